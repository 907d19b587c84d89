/*
 * Tests of the audit store: the chain verifies, and each kind of tampering
 * done with the sqlite3 command line (which is what an intruder with the
 * file has) is reported at the documented sequence number; the triggers
 * refuse UPDATE and DELETE; a reopened store continues its chain; records
 * with oversize or foreign names are refused.  Durability: the syncs
 * SQLite asks of the -wal file, counted by a VFS that passes every call
 * on to the default one, follow what the records of a commit authorize;
 * a killed process loses nothing; the -wal reuses its blocks.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditdb.h"
#include "log.h"
#include "sha256.h"
#include "../common/memcap.h"

#define DB		"audit.db"
#define COPY		"tampered.db"
#define NRECS		300
#define VICTIM		137		/* the record the tests tamper with */
#define OUT_BYTES	(64 * 1024)
#define SQL_BYTES	(256 * 1024)	/* a script rewriting every record */

static struct audit_record	 recs[NRECS];

static const char *const reasons[] = { "", "rule_1", "ceiling", "budget" };
static const char *const labels[] = { "", "public", "internal",
    "confidential" };

/* A record varied in every field; i is 0-based. */
static void
mkrec(struct audit_record *ar, int i)
{
	char	 buf[AUDIT_NAME_BYTES];
	uint8_t	 d[AUDIT_DIGEST_BYTES];

	audit_record_init(ar, 1 + i % (AUDIT_K_MAX - 1),
	    1 + i % (AUDIT_D_MAX - 1));
	snprintf(buf, sizeof(buf), "session-%02d", i / 50);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_SESSION, buf) == 0);
	snprintf(buf, sizeof(buf), "read file %d", i % 7);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_OPERATION, buf) == 0);
	snprintf(buf, sizeof(buf), "server.tool-%d", i % 5);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_TOOL, buf) == 0);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_REASON,
	    reasons[i % nitems(reasons)]) == 0);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_LABEL_BEFORE,
	    labels[i % nitems(labels)]) == 0);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_LABEL_AFTER,
	    labels[(i + 1) % nitems(labels)]) == 0);
	/* Every other record has both digests, VICTIM among them. */
	if ((i - (VICTIM - 1)) % 2 != 0)
		return;
	snprintf(buf, sizeof(buf), "request %d", i);
	sha256(buf, strlen(buf), d);
	audit_record_digest(ar, AUDIT_HAS_REQUEST, d);
	snprintf(buf, sizeof(buf), "response %d", i);
	sha256(buf, strlen(buf), d);
	audit_record_digest(ar, AUDIT_HAS_RESPONSE, d);
}

/* NRECS records into recs[] and path, single and in batches. */
static void
build(const char *path, struct audit_tip *tip)
{
	struct audit	*a;
	int		 i, n;

	ATF_REQUIRE((a = audit_open(path)) != NULL);
	for (i = 0; i < NRECS; i++)
		mkrec(&recs[i], i);
	for (i = 0; i < NRECS; i += n) {
		n = (i / 10) % 3 == 0 ? 10 : 1;
		ATF_REQUIRE(audit_append_batch(a, &recs[i], n) == 0);
	}
	audit_tip(a, tip);
	audit_close(a);
	ATF_REQUIRE_EQ(tip->at_seq, NRECS);
}

static void
copy(const char *from, const char *to)
{
	char	 buf[8192];
	ssize_t	 n;
	int	 in, out;

	ATF_REQUIRE((in = open(from, O_RDONLY)) != -1);
	ATF_REQUIRE((out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600)) !=
	    -1);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ATF_REQUIRE(write(out, buf, n) == n);
	ATF_REQUIRE(n == 0);
	close(in);
	close(out);
	/* A reader of an earlier copy may have left these. */
	snprintf(buf, sizeof(buf), "%s-wal", to);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-shm", to);
	unlink(buf);
}

/*
 * Run the sqlite3 command line on path with one SQL string; return its
 * exit status, or -1 if it did not exit.  Output goes to out if not NULL.
 */
static int
sql(const char *path, const char *stmt, char *out, size_t outlen)
{
	char	 junk[512], *buf = out != NULL ? out : junk;
	size_t	 cap = out != NULL ? outlen - 1 : sizeof(junk), got = 0;
	pid_t	 pid;
	ssize_t	 n;
	int	 p[2], status;

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (dup2(p[1], 1) == -1 || dup2(p[1], 2) == -1)
			_exit(127);
		close(p[0]);
		execlp("sqlite3", "sqlite3", "-batch", path, stmt,
		    (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, cap - got)) > 0) {
		if (out != NULL)
			got += n;
		ATF_REQUIRE_MSG(got < cap, "sqlite3 printed too much");
	}
	close(p[0]);
	if (out != NULL)
		out[got] = '\0';
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void
expect_break(const char *path, const struct audit_tip *tip, uint64_t at,
    const char *what)
{
	uint64_t	 bad, n;
	int		 rc;

	rc = audit_verify(path, tip, &bad, &n);
	ATF_CHECK_EQ_MSG(rc, AUDIT_VERIFY_BROKEN, "%s: verify returned %d",
	    what, rc);
	ATF_CHECK_EQ_MSG(bad, at, "%s: first bad seq %llu, expected %llu",
	    what, (unsigned long long)bad, (unsigned long long)at);
	ATF_CHECK_EQ_MSG(n, at - 1, "%s: %llu records verified", what,
	    (unsigned long long)n);
}

static void
expect_intact(const char *path, const struct audit_tip *tip, uint64_t nrec)
{
	uint64_t	 bad, n;

	ATF_CHECK_EQ(audit_verify(path, tip, &bad, &n), AUDIT_VERIFY_OK);
	ATF_CHECK_EQ(bad, 0);
	ATF_CHECK_EQ(n, nrec);
}

#define DROP_TRIGGERS	"DROP TRIGGER audit_records_no_update;" \
			" DROP TRIGGER audit_records_no_delete; "

static void
tamper(const char *stmt)
{
	static char	 s[SQL_BYTES + 128];

	copy(DB, COPY);
	snprintf(s, sizeof(s), DROP_TRIGGERS "%s", stmt);
	ATF_REQUIRE_EQ_MSG(sql(COPY, s, NULL, 0), 0, "sqlite3 failed: %s",
	    stmt);
}

static void
setup(void)
{
	log_init(LOG_TO_STDERR, 0, 0);
}

/*
 * The lines the store logs, kept for the tests of a refusal's cause: a
 * failure is reported once, by the check that found it.
 */
static char	 logged[4096];
static int	 nlogged;

static void
log_keep(int pri, const char *msg)
{
	size_t	 len = strlen(logged);

	(void)pri;
	nlogged++;
	snprintf(logged + len, sizeof(logged) - len, "%s\n", msg);
}

static void
capture(void)
{
	log_init(LOG_TO_STDERR | LOG_TO_SINK, 0, 0);
	log_setsink(log_keep);
	logged[0] = '\0';
	nlogged = 0;
}

/* Exactly one line was logged since capture(), and it is want. */
static void
logged_once(const char *want)
{
	char	 line[512];

	snprintf(line, sizeof(line), "%s\n", want);
	ATF_CHECK_EQ_MSG(nlogged, 1, "%d lines logged: %s", nlogged, logged);
	ATF_CHECK_STREQ(logged, line);
	logged[0] = '\0';
	nlogged = 0;
}

/*
 * The counting VFS: every call goes to the default VFS; of the -wal
 * file it counts the syncs, and the writes not yet covered by one.
 */
struct cnt_file {
	sqlite3_file	 cf_base;
	int		 cf_wal;
	sqlite3_file	*cf_real;	/* follows this struct */
};

static sqlite3_vfs	*cnt_real;
static int		 cnt_wal_syncs, cnt_wal_unsynced;

#define CNT_REAL(f)	(((struct cnt_file *)(f))->cf_real)

static int
cnt_close(sqlite3_file *f)
{
	return (CNT_REAL(f)->pMethods->xClose(CNT_REAL(f)));
}

static int
cnt_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return (CNT_REAL(f)->pMethods->xRead(CNT_REAL(f), buf, n, off));
}

static int
cnt_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	if (((struct cnt_file *)f)->cf_wal)
		cnt_wal_unsynced++;
	return (CNT_REAL(f)->pMethods->xWrite(CNT_REAL(f), buf, n, off));
}

static int
cnt_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return (CNT_REAL(f)->pMethods->xTruncate(CNT_REAL(f), size));
}

static int
cnt_sync(sqlite3_file *f, int flags)
{
	if (((struct cnt_file *)f)->cf_wal) {
		cnt_wal_syncs++;
		cnt_wal_unsynced = 0;
	}
	return (CNT_REAL(f)->pMethods->xSync(CNT_REAL(f), flags));
}

static int
cnt_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return (CNT_REAL(f)->pMethods->xFileSize(CNT_REAL(f), size));
}

static int
cnt_lock(sqlite3_file *f, int l)
{
	return (CNT_REAL(f)->pMethods->xLock(CNT_REAL(f), l));
}

static int
cnt_unlock(sqlite3_file *f, int l)
{
	return (CNT_REAL(f)->pMethods->xUnlock(CNT_REAL(f), l));
}

static int
cnt_reserved(sqlite3_file *f, int *res)
{
	return (CNT_REAL(f)->pMethods->xCheckReservedLock(CNT_REAL(f), res));
}

static int
cnt_fcntl(sqlite3_file *f, int op, void *arg)
{
	return (CNT_REAL(f)->pMethods->xFileControl(CNT_REAL(f), op, arg));
}

static int
cnt_sector(sqlite3_file *f)
{
	return (CNT_REAL(f)->pMethods->xSectorSize(CNT_REAL(f)));
}

static int
cnt_caps(sqlite3_file *f)
{
	return (CNT_REAL(f)->pMethods->xDeviceCharacteristics(CNT_REAL(f)));
}

static int
cnt_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **p)
{
	return (CNT_REAL(f)->pMethods->xShmMap(CNT_REAL(f), pg, sz, extend,
	    p));
}

static int
cnt_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return (CNT_REAL(f)->pMethods->xShmLock(CNT_REAL(f), off, n, flags));
}

static void
cnt_shm_barrier(sqlite3_file *f)
{
	CNT_REAL(f)->pMethods->xShmBarrier(CNT_REAL(f));
}

static int
cnt_shm_unmap(sqlite3_file *f, int del)
{
	return (CNT_REAL(f)->pMethods->xShmUnmap(CNT_REAL(f), del));
}

static const sqlite3_io_methods cnt_methods = {
	.iVersion = 2,
	.xClose = cnt_close,
	.xRead = cnt_read,
	.xWrite = cnt_write,
	.xTruncate = cnt_truncate,
	.xSync = cnt_sync,
	.xFileSize = cnt_size,
	.xLock = cnt_lock,
	.xUnlock = cnt_unlock,
	.xCheckReservedLock = cnt_reserved,
	.xFileControl = cnt_fcntl,
	.xSectorSize = cnt_sector,
	.xDeviceCharacteristics = cnt_caps,
	.xShmMap = cnt_shm_map,
	.xShmLock = cnt_shm_lock,
	.xShmBarrier = cnt_shm_barrier,
	.xShmUnmap = cnt_shm_unmap,
};

static int
cnt_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
    int *outflags)
{
	struct cnt_file	*cf = (struct cnt_file *)f;
	int		 rc;

	(void)vfs;
	cf->cf_real = (sqlite3_file *)(cf + 1);
	cf->cf_wal = (flags & SQLITE_OPEN_WAL) != 0;
	if ((rc = cnt_real->xOpen(cnt_real, name, cf->cf_real, flags,
	    outflags)) != SQLITE_OK) {
		f->pMethods = NULL;
		return (rc);
	}
	f->pMethods = &cnt_methods;
	return (SQLITE_OK);
}

static sqlite3_vfs	 cnt_vfs;

/* Make the counting VFS the default; the store then opens through it. */
static void
cnt_install(void)
{
	ATF_REQUIRE((cnt_real = sqlite3_vfs_find(NULL)) != NULL);
	cnt_vfs = *cnt_real;
	cnt_vfs.iVersion = 1;		/* no syscall overrides */
	cnt_vfs.zName = "cmcp-count";
	cnt_vfs.szOsFile = sizeof(struct cnt_file) + cnt_real->szOsFile;
	cnt_vfs.xOpen = cnt_open;
	cnt_vfs.pAppData = NULL;
	ATF_REQUIRE(sqlite3_vfs_register(&cnt_vfs, 1) == SQLITE_OK);
	ATF_REQUIRE(sqlite3_vfs_find(NULL) == &cnt_vfs);
}

/* A record of kind, valid in every field. */
static void
mkkind(struct audit_record *ar, enum audit_kind kind)
{
	audit_record_init(ar, kind, kind == AUDIT_K_DECISION ?
	    AUDIT_D_ALLOW : AUDIT_D_NONE);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_SESSION, "session-d") == 0);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_REASON, "ok") == 0);
}

/* Append n records and say how many syncs of the -wal that took. */
static int
append_syncs(struct audit *a, struct audit_record *ar, size_t n)
{
	int	 before = cnt_wal_syncs;

	ATF_REQUIRE(audit_append_batch(a, ar, n) == 0);
	return (cnt_wal_syncs - before);
}

ATF_TC(verify_intact_chain_passes);
ATF_TC_HEAD(verify_intact_chain_passes, tc)
{
	atf_tc_set_md_var(tc, "descr", "A chain of 300 records verifies, "
	    "with and without its tip; the store is WAL and private");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(verify_intact_chain_passes, tc)
{
	struct audit_tip	 tip, zero;
	struct stat		 sb;
	char			 out[OUT_BYTES];
	int			 i;

	setup();
	build(DB, &tip);
	expect_intact(DB, NULL, NRECS);
	expect_intact(DB, &tip, NRECS);
	/* An earlier tip is a checkpoint: the chain may have grown since. */
	memset(&zero, 0, sizeof(zero));
	expect_intact(DB, &zero, NRECS);
	zero.at_seq = 10;
	memcpy(zero.at_hash, recs[9].ar_hash, sizeof(zero.at_hash));
	expect_intact(DB, &zero, NRECS);

	for (i = 0; i < NRECS; i++) {
		ATF_CHECK_EQ(recs[i].ar_seq, (uint64_t)i + 1);
		if (i > 0) {
			ATF_CHECK(memcmp(recs[i].ar_prev, recs[i - 1].ar_hash,
			    AUDIT_DIGEST_BYTES) == 0);
			ATF_CHECK(recs[i].ar_time_ms >= recs[i - 1].ar_time_ms);
		}
	}
	ATF_REQUIRE(stat(DB, &sb) == 0);
	ATF_CHECK_EQ(sb.st_mode & 07777, 0600);
	ATF_REQUIRE_EQ(sql(DB, "PRAGMA journal_mode", out, sizeof(out)), 0);
	ATF_CHECK_STREQ(out, "wal\n");
}

/*
 * Each field of one record changed to another value the schema accepts:
 * the break is at exactly that record.  If the hash left out a field,
 * the case for that field fails.
 */
ATF_TC(altered_field_detected_at_its_seq);
ATF_TC_HEAD(altered_field_detected_at_its_seq, tc)
{
	atf_tc_set_md_var(tc, "descr", "Changing any one field of record "
	    "137 (triggers dropped) breaks the chain at 137");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(altered_field_detected_at_its_seq, tc)
{
	static const char *const sets[] = {
		"time = time + 1",
		"session = session || 'x'",
		"kind = CASE kind WHEN 'violation' THEN 'decision'"
		    " ELSE 'violation' END",
		"operation = operation || 'x'",
		"tool = tool || 'x'",
		"decision = CASE decision WHEN 'deny' THEN 'allow'"
		    " ELSE 'deny' END",
		"reason = reason || 'x'",
		"label_before = label_before || 'x'",
		"label_after = label_after || 'x'",
		"request_sha256 = NULL",
		"request_sha256 = hash",
		"request_sha256 = upper(request_sha256)",
		"response_sha256 = NULL",
		"response_sha256 = hash",
		"prev_hash = hash",
		"hash = prev_hash",
		"seq = 1000000",
	};
	struct audit_tip	 tip;
	char			 s[256];
	size_t			 i;

	setup();
	build(DB, &tip);
	for (i = 0; i < nitems(sets); i++) {
		snprintf(s, sizeof(s), "UPDATE audit_records SET %s"
		    " WHERE seq = %d", sets[i], VICTIM);
		tamper(s);
		expect_break(COPY, NULL, VICTIM, sets[i]);
	}
	/* The ends of the chain too. */
	tamper("UPDATE audit_records SET tool = 'x' WHERE seq = 1");
	expect_break(COPY, NULL, 1, "first record");
	tamper("UPDATE audit_records SET tool = 'x' WHERE seq = 300");
	expect_break(COPY, NULL, NRECS, "last record");
}

ATF_TC(deleted_row_detected_at_its_seq);
ATF_TC_HEAD(deleted_row_detected_at_its_seq, tc)
{
	atf_tc_set_md_var(tc, "descr", "A deleted record is reported at its "
	    "own, now missing, seq");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(deleted_row_detected_at_its_seq, tc)
{
	struct audit_tip	 tip;

	setup();
	build(DB, &tip);
	tamper("DELETE FROM audit_records WHERE seq = 137");
	expect_break(COPY, NULL, VICTIM, "delete 137");
	tamper("DELETE FROM audit_records WHERE seq = 1");
	expect_break(COPY, NULL, 1, "delete 1");
	tamper("DELETE FROM audit_records WHERE seq BETWEEN 137 AND 139");
	expect_break(COPY, NULL, VICTIM, "delete 137-139");
}

ATF_TC(truncated_tail_detected_only_with_tip);
ATF_TC_HEAD(truncated_tail_detected_only_with_tip, tc)
{
	atf_tc_set_md_var(tc, "descr", "Cutting off the last records is "
	    "invisible to the chain alone and found with the tip");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(truncated_tail_detected_only_with_tip, tc)
{
	struct audit_tip	 tip, wrong;
	char			 s[AUDIT_TIP_BYTES];

	setup();
	build(DB, &tip);
	tamper("DELETE FROM audit_records WHERE seq > 290");
	expect_intact(COPY, NULL, 290);
	expect_break(COPY, &tip, 291, "tail cut at 290");

	/* The same through the printed form of the tip. */
	audit_tip_format(&tip, s, sizeof(s));
	ATF_REQUIRE(audit_tip_parse(s, &wrong) == 0);
	ATF_CHECK_EQ(wrong.at_seq, tip.at_seq);
	ATF_CHECK(memcmp(wrong.at_hash, tip.at_hash, sizeof(tip.at_hash)) ==
	    0);
	expect_break(COPY, &wrong, 291, "parsed tip");

	/* The last record dropped: only the tip knows it existed. */
	tamper("DELETE FROM audit_records WHERE seq = 300");
	expect_intact(COPY, NULL, 299);
	expect_break(COPY, &tip, NRECS, "last record dropped");

	/* Everything gone. */
	tamper("DELETE FROM audit_records");
	expect_intact(COPY, NULL, 0);
	expect_break(COPY, &tip, 1, "all records dropped");

	/* A tip from another chain: the intact database ends elsewhere. */
	wrong = tip;
	wrong.at_hash[0] ^= 1;
	expect_break(DB, &wrong, NRECS, "foreign tip");
}

ATF_TC(reordered_rows_detected);
ATF_TC_HEAD(reordered_rows_detected, tc)
{
	atf_tc_set_md_var(tc, "descr", "Two records exchanged are reported "
	    "at the lower seq");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(reordered_rows_detected, tc)
{
	struct audit_tip	 tip;

	setup();
	build(DB, &tip);
	tamper("UPDATE audit_records SET seq = 1000137 WHERE seq = 137;"
	    " UPDATE audit_records SET seq = 137 WHERE seq = 138;"
	    " UPDATE audit_records SET seq = 138 WHERE seq = 1000137");
	expect_break(COPY, NULL, VICTIM, "137 and 138 exchanged");
	tamper("UPDATE audit_records SET seq = 1000137 WHERE seq = 137;"
	    " UPDATE audit_records SET seq = 137 WHERE seq = 250;"
	    " UPDATE audit_records SET seq = 250 WHERE seq = 1000137");
	expect_break(COPY, NULL, VICTIM, "137 and 250 exchanged");
}

/*
 * SQL that rewrites records from index `from' to the end with hashes
 * that match, linking the first of them to the record at index `to'
 * (-1: the genesis), and renaming the operation of record `from'.
 */
static void
relink(char *s, size_t len, int from, int to)
{
	struct audit_record	 ar;
	char			 hex[AUDIT_HEX_BYTES], prev[AUDIT_HEX_BYTES];
	uint8_t			 link[AUDIT_DIGEST_BYTES];
	char			*p = s, *end = s + len;
	int			 i;

	memset(link, 0, sizeof(link));
	if (to >= 0)
		memcpy(link, recs[to].ar_hash, sizeof(link));
	for (i = from; i < NRECS; i++) {
		ar = recs[i];
		if (i == from)
			ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_OPERATION,
			    "harmless") == 0);
		memcpy(ar.ar_prev, link, sizeof(link));
		audit_record_hash(&ar, ar.ar_hash);
		memcpy(link, ar.ar_hash, sizeof(link));
		sha256_hex(ar.ar_prev, prev);
		sha256_hex(ar.ar_hash, hex);
		p += snprintf(p, end - p, "UPDATE audit_records SET"
		    " operation = '%s', prev_hash = '%s', hash = '%s'"
		    " WHERE seq = %d;", ar.ar_operation, prev, hex, i + 1);
		ATF_REQUIRE(p < end);
	}
}

/*
 * An intruder who knows the encoding rewrites records with matching
 * hashes.  One record: the next one's link breaks.  The whole rest of
 * the chain: only the tip finds it.  The rest of the chain relinked
 * across a deleted record: the gap in seq finds it.
 */
ATF_TC(rewritten_records_detected);
ATF_TC_HEAD(rewritten_records_detected, tc)
{
	atf_tc_set_md_var(tc, "descr", "A record rewritten with a recomputed "
	    "hash breaks at the next seq; a rewritten tail needs the tip");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(rewritten_records_detected, tc)
{
	struct audit_record	 ar;
	struct audit_tip	 tip;
	char			 hex[AUDIT_HEX_BYTES];
	static char		 s[SQL_BYTES];

	setup();
	build(DB, &tip);
	ar = recs[VICTIM - 1];
	ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_OPERATION, "harmless") == 0);
	audit_record_hash(&ar, ar.ar_hash);
	sha256_hex(ar.ar_hash, hex);
	snprintf(s, sizeof(s), "UPDATE audit_records SET operation ="
	    " 'harmless', hash = '%s' WHERE seq = %d", hex, VICTIM);
	tamper(s);
	expect_break(COPY, NULL, VICTIM + 1, "one record rewritten");

	relink(s, sizeof(s), VICTIM - 1, VICTIM - 2);
	tamper(s);
	expect_intact(COPY, NULL, NRECS);
	expect_break(COPY, &tip, NRECS, "tail rewritten");

	relink(s, sizeof(s), 0, -1);
	tamper(s);
	expect_intact(COPY, NULL, NRECS);
	expect_break(COPY, &tip, NRECS, "whole chain rewritten");

	strlcpy(s, "DELETE FROM audit_records WHERE seq = 137;", sizeof(s));
	relink(s + strlen(s), sizeof(s) - strlen(s), VICTIM, VICTIM - 2);
	tamper(s);
	expect_break(COPY, NULL, VICTIM, "tail relinked over a gap");
}

ATF_TC(triggers_refuse_update_and_delete);
ATF_TC_HEAD(triggers_refuse_update_and_delete, tc)
{
	atf_tc_set_md_var(tc, "descr", "UPDATE and DELETE through SQL fail "
	    "and change nothing");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(triggers_refuse_update_and_delete, tc)
{
	struct audit_tip	 tip;
	char			 before[OUT_BYTES], after[OUT_BYTES];
	const char		*row = "SELECT * FROM audit_records"
				    " WHERE seq = 137";
	const char		*all = "SELECT count(*), sum(seq) FROM"
				    " audit_records";

	setup();
	build(DB, &tip);
	ATF_REQUIRE_EQ(sql(DB, row, before, sizeof(before)), 0);
	ATF_REQUIRE(strlen(before) > 64);
	ATF_CHECK(sql(DB, "UPDATE audit_records SET operation = 'x'"
	    " WHERE seq = 137", NULL, 0) != 0);
	ATF_CHECK(sql(DB, "UPDATE audit_records SET seq = seq + 1000",
	    NULL, 0) != 0);
	ATF_REQUIRE_EQ(sql(DB, row, after, sizeof(after)), 0);
	ATF_CHECK_STREQ(before, after);

	ATF_REQUIRE_EQ(sql(DB, all, before, sizeof(before)), 0);
	ATF_CHECK_STREQ(before, "300|45150\n");
	ATF_CHECK(sql(DB, "DELETE FROM audit_records WHERE seq = 137",
	    NULL, 0) != 0);
	ATF_CHECK(sql(DB, "DELETE FROM audit_records", NULL, 0) != 0);
	ATF_REQUIRE_EQ(sql(DB, all, after, sizeof(after)), 0);
	ATF_CHECK_STREQ(before, after);
	expect_intact(DB, &tip, NRECS);
}

ATF_TC(reopen_continues_chain);
ATF_TC_HEAD(reopen_continues_chain, tc)
{
	atf_tc_set_md_var(tc, "descr", "Closing and reopening the store "
	    "continues the chain from its tip");
}
ATF_TC_BODY(reopen_continues_chain, tc)
{
	struct audit		*a;
	struct audit_tip	 t1, t2;
	int			 i;

	setup();
	for (i = 0; i < 100; i++)
		mkrec(&recs[i], i);
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	audit_tip(a, &t1);
	ATF_CHECK_EQ(t1.at_seq, 0);
	for (i = 0; i < 50; i++)
		ATF_REQUIRE(audit_append(a, &recs[i]) == 0);
	audit_tip(a, &t1);
	audit_close(a);

	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	audit_tip(a, &t2);
	ATF_CHECK_EQ(t2.at_seq, 50);
	ATF_CHECK(memcmp(t1.at_hash, t2.at_hash, sizeof(t1.at_hash)) == 0);
	ATF_REQUIRE(audit_append_batch(a, &recs[50], 50) == 0);
	audit_tip(a, &t2);
	audit_close(a);

	ATF_CHECK_EQ(recs[50].ar_seq, 51);
	ATF_CHECK(memcmp(recs[50].ar_prev, t1.at_hash, sizeof(t1.at_hash)) ==
	    0);
	ATF_CHECK(recs[50].ar_time_ms >= recs[49].ar_time_ms);
	expect_intact(DB, &t1, 100);
	expect_intact(DB, &t2, 100);
}

ATF_TC(verify_refused_while_store_open);
ATF_TC_HEAD(verify_refused_while_store_open, tc)
{
	atf_tc_set_md_var(tc, "descr", "While the store is open nobody "
	    "else writes or reads it, even after a second open failed");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(verify_refused_while_store_open, tc)
{
	struct audit_record	 ar;
	struct audit		*a;
	uint64_t		 bad, n;

	setup();
	mkrec(&ar, 0);
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	ATF_REQUIRE(audit_append(a, &ar) == 0);
	/*
	 * The store's exclusive lock: no second writer, no reader of a
	 * growing chain.  The failed open must not drop the lock (closing
	 * any descriptor of the file drops a process's fcntl locks).
	 */
	capture();
	ATF_CHECK(audit_open(DB) == NULL);
	logged_once("audit: journal mode: sqlite error 5");
	ATF_CHECK_EQ(audit_verify(DB, NULL, &bad, &n), -1);
	logged_once("audit: database locked by another process");
	ATF_CHECK_EQ(audit_show(DB, stdout, NULL, AUDIT_SHOW_TEXT), -1);
	logged_once("audit: database locked by another process");
	/* A fresh process sees only the kernel's locks, not SQLite's. */
	ATF_CHECK_MSG(sql(DB, "SELECT count(*) FROM audit_records", NULL,
	    0) != 0, "another process read the open store");
	ATF_REQUIRE(audit_append(a, &ar) == 0);
	audit_close(a);
	expect_intact(DB, NULL, 2);
}

ATF_TC(reopen_refuses_broken_tip);
ATF_TC_HEAD(reopen_refuses_broken_tip, tc)
{
	atf_tc_set_md_var(tc, "descr", "The store does not continue a chain "
	    "whose last record does not verify");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(reopen_refuses_broken_tip, tc)
{
	struct audit_tip	 tip;
	struct audit		*a;

	setup();
	build(DB, &tip);
	tamper("UPDATE audit_records SET tool = 'x' WHERE seq = 300");
	ATF_CHECK(audit_open(COPY) == NULL);
	tamper("UPDATE audit_records SET tool = 'x' WHERE seq = 299");
	ATF_REQUIRE((a = audit_open(COPY)) != NULL);
	audit_close(a);
}

ATF_TC(record_refuses_oversize_and_foreign_names);
ATF_TC_HEAD(record_refuses_oversize_and_foreign_names, tc)
{
	atf_tc_set_md_var(tc, "descr", "Names over 63 bytes, with bytes "
	    "outside the name alphabet, or unterminated are refused");
}
ATF_TC_BODY(record_refuses_oversize_and_foreign_names, tc)
{
	static const char *const bad_names[] = {
		"a\"b", "a\\b", "a\nb", "a\tb", "\x7f", "caf\xc3\xa9",
	};
	static const char *const bad_codes[] = {
		"Rule", "rule 3", "rule-3", "r\xc3\xa9",
	};
	struct audit_record	 ar, raw;
	struct audit_tip	 tip;
	struct audit		*a;
	char			 name[256];
	size_t			 i;
	uint64_t		 bad, n;

	setup();
	mkrec(&ar, 1);
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ATF_CHECK(audit_record_set(&ar, AUDIT_F_OPERATION, name) == -1);
	ATF_CHECK_STREQ(ar.ar_operation, "read file 1");
	/* 64 bytes do not fit with the NUL; 63 do. */
	name[AUDIT_NAME_BYTES] = '\0';
	ATF_CHECK(audit_record_set(&ar, AUDIT_F_SESSION, name) == -1);
	ATF_CHECK(audit_record_set(&ar, AUDIT_F_LABEL_AFTER, name) == -1);
	ATF_CHECK_STREQ(ar.ar_label_after, "internal");
	name[AUDIT_NAME_BYTES - 1] = '\0';
	ATF_CHECK(audit_record_set(&ar, AUDIT_F_OPERATION, name) == 0);
	ATF_CHECK_EQ(strlen(ar.ar_operation), AUDIT_NAME_BYTES - 1);
	for (i = 0; i < nitems(bad_names); i++)
		ATF_CHECK_MSG(audit_record_set(&ar, AUDIT_F_TOOL,
		    bad_names[i]) == -1, "name %zu accepted", i);
	for (i = 0; i < nitems(bad_codes); i++)
		ATF_CHECK_MSG(audit_record_set(&ar, AUDIT_F_REASON,
		    bad_codes[i]) == -1, "code %zu accepted", i);
	ATF_CHECK(audit_record_set(&ar, AUDIT_F_REASON, "rule_3") == 0);
	ATF_CHECK(audit_record_check(&ar) == 0);

	/* Records as another process might send them. */
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	raw = ar;
	memset(raw.ar_label_after, 'A', sizeof(raw.ar_label_after));
	ATF_CHECK(audit_append(a, &raw) == -1);
	raw = ar;
	raw.ar_session[0] = '\0';
	ATF_CHECK(audit_append(a, &raw) == -1);
	raw = ar;
	raw.ar_tool[3] = '\n';
	ATF_CHECK(audit_append(a, &raw) == -1);
	raw = ar;
	raw.ar_reason[0] = 'R';
	ATF_CHECK(audit_append(a, &raw) == -1);
	raw = ar;
	raw.ar_kind = 0;
	ATF_CHECK(audit_append(a, &raw) == -1);
	raw.ar_kind = AUDIT_K_MAX;
	ATF_CHECK(audit_append(a, &raw) == -1);
	raw = ar;
	raw.ar_decision = AUDIT_D_MAX;
	ATF_CHECK(audit_append(a, &raw) == -1);
	raw = ar;
	raw.ar_flags |= 0x4;
	ATF_CHECK(audit_append(a, &raw) == -1);
	ATF_CHECK(audit_append_batch(a, &ar, 0) == -1);

	/* One bad record refuses the whole batch. */
	mkrec(&recs[0], 0);
	recs[1] = ar;
	memset(recs[1].ar_session, 'x', sizeof(recs[1].ar_session));
	ATF_CHECK(audit_append_batch(a, recs, 2) == -1);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, 0);

	/* Refusals do not stop the store. */
	ATF_CHECK(audit_append(a, &ar) == 0);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, 1);
	audit_close(a);
	ATF_CHECK_EQ(audit_verify(DB, &tip, &bad, &n), AUDIT_VERIFY_OK);
	ATF_CHECK_EQ(n, 1);
}

ATF_TC(every_kind_and_decision_stored);
ATF_TC_HEAD(every_kind_and_decision_stored, tc)
{
	atf_tc_set_md_var(tc, "descr", "The schema accepts each kind and "
	    "decision of the vocabulary; show prints them");
}
ATF_TC_BODY(every_kind_and_decision_stored, tc)
{
	struct audit_record	 ar;
	struct audit		*a;
	FILE			*fp;
	char			 line[2048], want[128];
	int			 k, d, n;

	setup();
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	for (k = 1; k < AUDIT_K_MAX; k++)
		for (d = 1; d < AUDIT_D_MAX; d++) {
			audit_record_init(&ar, k, d);
			ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_SESSION,
			    k == AUDIT_K_DECISION ? "s2" : "s1") == 0);
			ATF_REQUIRE_MSG(audit_append(a, &ar) == 0,
			    "kind %s decision %s", audit_kind_name(k),
			    audit_decision_name(d));
		}
	audit_close(a);
	expect_intact(DB, NULL, (AUDIT_K_MAX - 1) * (AUDIT_D_MAX - 1));

	ATF_REQUIRE((fp = fopen("show.json", "w+")) != NULL);
	ATF_REQUIRE(audit_show(DB, fp, NULL, AUDIT_SHOW_JSON) == 0);
	rewind(fp);
	for (n = 0; fgets(line, sizeof(line), fp) != NULL; n++) {
		k = 1 + n / (AUDIT_D_MAX - 1);
		d = 1 + n % (AUDIT_D_MAX - 1);
		snprintf(want, sizeof(want), "{\"seq\":%d,", n + 1);
		ATF_CHECK(strncmp(line, want, strlen(want)) == 0);
		snprintf(want, sizeof(want), "\"kind\":\"%s\",",
		    audit_kind_name(k));
		ATF_CHECK_MSG(strstr(line, want) != NULL, "%s", line);
		snprintf(want, sizeof(want), "\"decision\":\"%s\",",
		    audit_decision_name(d));
		ATF_CHECK_MSG(strstr(line, want) != NULL, "%s", line);
		ATF_CHECK(strstr(line, "\"request_sha256\":null,") != NULL);
	}
	ATF_CHECK_EQ(n, (AUDIT_K_MAX - 1) * (AUDIT_D_MAX - 1));
	fclose(fp);

	/* One session only, as text. */
	ATF_REQUIRE((fp = fopen("show.txt", "w+")) != NULL);
	ATF_REQUIRE(audit_show(DB, fp, "s2", AUDIT_SHOW_TEXT) == 0);
	rewind(fp);
	for (n = 0; fgets(line, sizeof(line), fp) != NULL; n++)
		ATF_CHECK_MSG(strstr(line, "\ts2\tdecision\t-\t-\t") != NULL,
		    "%s", line);
	ATF_CHECK_EQ(n, AUDIT_D_MAX - 1);
	fclose(fp);
}

/*
 * The encoding written out here from the description in auditdb.c; the
 * literal pins it, so a change to it is a deliberate format change.
 */
ATF_TC_WITHOUT_HEAD(hash_encoding_as_documented);
ATF_TC_BODY(hash_encoding_as_documented, tc)
{
	static const char	 pinned[] = "1ddec0d00da0348bcc25144621441a32"
				    "c6379097528a57f380c849b24a9b2ae9";
	struct audit_record	 ar;
	uint8_t			 enc[1024], *p = enc;
	uint8_t			 want[AUDIT_DIGEST_BYTES];
	uint8_t			 got[AUDIT_DIGEST_BYTES];
	char			 hex[AUDIT_HEX_BYTES];
	const char		*strs[] = { "sess-1", "call_result", "op",
				    "srv.tool", "deny", "ceiling", "public",
				    "" };
	size_t			 i, len;
	int			 j;

#define PUT_LEN(l) do {							\
	*p++ = (l) >> 24; *p++ = (l) >> 16; *p++ = (l) >> 8; *p++ = (l);	\
} while (0)

	audit_record_init(&ar, AUDIT_K_CALL_RESULT, AUDIT_D_DENY);
	ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_SESSION, "sess-1") == 0);
	ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_OPERATION, "op") == 0);
	ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_TOOL, "srv.tool") == 0);
	ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_REASON, "ceiling") == 0);
	ATF_REQUIRE(audit_record_set(&ar, AUDIT_F_LABEL_BEFORE, "public") ==
	    0);
	memset(want, 0xab, sizeof(want));
	audit_record_digest(&ar, AUDIT_HAS_RESPONSE, want);
	ar.ar_seq = 0x0102030405060708ULL;
	ar.ar_time_ms = 1764496800123LL;
	memset(ar.ar_prev, 0x5a, sizeof(ar.ar_prev));
	audit_record_hash(&ar, got);

	PUT_LEN(20);
	memcpy(p, "cmcp-privsep audit 1", 20);
	p += 20;
	PUT_LEN(8);
	for (j = 56; j >= 0; j -= 8)
		*p++ = ar.ar_seq >> j;
	PUT_LEN(8);
	for (j = 56; j >= 0; j -= 8)
		*p++ = (uint64_t)ar.ar_time_ms >> j;
	for (i = 0; i < nitems(strs); i++) {
		len = strlen(strs[i]);
		PUT_LEN(len);
		memcpy(p, strs[i], len);
		p += len;
	}
	PUT_LEN(0);		/* no request digest */
	PUT_LEN(32);
	memset(p, 0xab, 32);
	p += 32;
	PUT_LEN(32);
	memset(p, 0x5a, 32);
	p += 32;
#undef PUT_LEN
	sha256(enc, p - enc, want);
	ATF_CHECK(memcmp(got, want, sizeof(got)) == 0);
	sha256_hex(got, hex);
	ATF_CHECK_STREQ(hex, pinned);
}

ATF_TC(open_refuses_foreign_database);
ATF_TC_HEAD(open_refuses_foreign_database, tc)
{
	atf_tc_set_md_var(tc, "descr", "Another SQLite database is neither "
	    "appended to nor verified");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(open_refuses_foreign_database, tc)
{
	uint64_t	 bad, n;

	setup();
	ATF_REQUIRE_EQ(sql("other.db", "CREATE TABLE t (x); INSERT INTO t"
	    " VALUES (1)", NULL, 0), 0);
	ATF_CHECK(audit_open("other.db") == NULL);
	ATF_CHECK_EQ(audit_verify("other.db", NULL, &bad, &n), -1);
	ATF_CHECK_EQ(audit_verify("missing.db", NULL, &bad, &n), -1);
	ATF_REQUIRE(symlink("other.db", "link.db") == 0);
	ATF_CHECK(audit_open("link.db") == NULL);
}

ATF_TC_WITHOUT_HEAD(tip_parse_refuses_malformed);
ATF_TC_BODY(tip_parse_refuses_malformed, tc)
{
	static const char	 h[] = "00112233445566778899aabbccddeeff"
				    "00112233445566778899aabbccddeeff";
	static const char *const bad[] = {
		"", ":", "12", "12:", ":00", "+1:%s", " 1:%s", "-1:%s",
		"1:%s ", "1:%sff", "1 :%s", "99999999999999999999:%s",
		"9223372036854775808:%s", "0:%s", "1:%.63s", "x:%s",
	};
	struct audit_tip	 tip;
	char			 s[256];
	size_t			 i;

	for (i = 0; i < nitems(bad); i++) {
		snprintf(s, sizeof(s), bad[i], h);
		ATF_CHECK_MSG(audit_tip_parse(s, &tip) == -1, "accepted %s",
		    s);
	}
	snprintf(s, sizeof(s), "1:%s", h);
	s[2] = 'A';
	ATF_CHECK(audit_tip_parse(s, &tip) == -1);
	snprintf(s, sizeof(s), "9223372036854775807:%s", h);
	ATF_CHECK(audit_tip_parse(s, &tip) == 0);
	ATF_CHECK_EQ(tip.at_seq, 9223372036854775807ULL);
	ATF_CHECK(audit_tip_parse("0:0000000000000000000000000000000000000000"
	    "000000000000000000000000", &tip) == 0);
	ATF_CHECK_EQ(tip.at_seq, 0);
}

/*
 * A write that fails (here: the file size limit) leaves the store
 * refusing every later append, even once writing would work again.
 * The child makes no ATF calls; its exit status says how far it got.
 */
ATF_TC_WITHOUT_HEAD(append_failure_is_final);
ATF_TC_BODY(append_failure_is_final, tc)
{
	struct audit_record	 ar;
	struct rlimit		 rl;
	struct audit		*a;
	pid_t			 pid;
	int			 i, status;

	setup();
	mkrec(&ar, 1);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR ||
		    (a = audit_open(DB)) == NULL)
			_exit(10);
		if (getrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(11);
		rl.rlim_cur = 64 * 1024;
		if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(12);
		for (i = 0; i < 100000; i++)
			if (audit_append(a, &ar) == -1)
				break;
		if (i == 100000)
			_exit(13);
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(14);
		if (audit_append(a, &ar) == 0)
			_exit(15);
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(WIFEXITED(status));
	ATF_CHECK_EQ(WEXITSTATUS(status), 0);
}

ATF_TC(durability_by_what_a_record_authorizes);
ATF_TC_HEAD(durability_by_what_a_record_authorizes, tc)
{
	atf_tc_set_md_var(tc, "descr", "A commit holding a record that "
	    "authorizes an act syncs the -wal, earlier unsynced frames with "
	    "it; one of descriptive records only does not");
}
ATF_TC_BODY(durability_by_what_a_record_authorizes, tc)
{
	static const enum audit_kind descriptive[] = {
		AUDIT_K_CALL_START, AUDIT_K_CALL_RESULT, AUDIT_K_LABEL_CHANGE,
		AUDIT_K_WATCHDOG, AUDIT_K_CONTAINER, AUDIT_K_VIOLATION,
	};
	struct audit_record	 ar[nitems(descriptive) + 1];
	struct audit_tip	 tip;
	struct audit		*a;
	size_t			 i;
	int			 k;

	setup();
	cnt_install();
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(audit_durable(a), tip.at_seq);

	/* One record of each kind on its own. */
	for (k = 1; k < AUDIT_K_MAX; k++) {
		mkkind(&ar[0], k);
		ATF_CHECK_EQ_MSG(append_syncs(a, ar, 1),
		    audit_kind_authorizes(k) ? 1 : 0, "kind %s",
		    audit_kind_name(k));
		ATF_CHECK_EQ_MSG(audit_durable(a) == ar[0].ar_seq,
		    audit_kind_authorizes(k), "kind %s", audit_kind_name(k));
		ATF_CHECK_EQ_MSG(cnt_wal_unsynced > 0,
		    !audit_kind_authorizes(k), "kind %s", audit_kind_name(k));
	}
	/* The kinds the issue names, and no other. */
	for (k = 1; k < AUDIT_K_MAX; k++)
		ATF_CHECK_EQ_MSG(audit_kind_authorizes(k),
		    k == AUDIT_K_SESSION_START || k == AUDIT_K_SESSION_END ||
		    k == AUDIT_K_ADMISSION || k == AUDIT_K_DECISION ||
		    k == AUDIT_K_POLICY_REVISION, "kind %s",
		    audit_kind_name(k));

	/* Every descriptive kind in one commit: no sync. */
	for (i = 0; i < nitems(descriptive); i++)
		mkkind(&ar[i], descriptive[i]);
	ATF_CHECK_EQ(append_syncs(a, ar, nitems(descriptive)), 0);
	ATF_CHECK(cnt_wal_unsynced > 0);
	ATF_CHECK(audit_durable(a) < ar[0].ar_seq);

	/*
	 * The next authorizing commit: one sync of the -wal after every
	 * write of the descriptive frames, so it covers them too.
	 */
	mkkind(&ar[0], AUDIT_K_DECISION);
	ATF_CHECK_EQ(append_syncs(a, ar, 1), 1);
	ATF_CHECK_EQ(cnt_wal_unsynced, 0);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(audit_durable(a), tip.at_seq);

	/* One authorizing record makes its whole commit synced. */
	for (i = 0; i < nitems(descriptive); i++)
		mkkind(&ar[i], descriptive[i]);
	mkkind(&ar[i], AUDIT_K_ADMISSION);
	ATF_CHECK_EQ(append_syncs(a, ar, nitems(ar)), 1);
	ATF_CHECK_EQ(audit_durable(a), ar[nitems(ar) - 1].ar_seq);

	/* audit_sync(): one sync when something is unsynced, else none. */
	mkkind(&ar[0], AUDIT_K_CALL_RESULT);
	ATF_CHECK_EQ(append_syncs(a, ar, 1), 0);
	k = cnt_wal_syncs;
	ATF_REQUIRE(audit_sync(a) == 0);
	ATF_CHECK_EQ(cnt_wal_syncs, k + 1);
	ATF_CHECK_EQ(cnt_wal_unsynced, 0);
	ATF_CHECK_EQ(audit_durable(a), ar[0].ar_seq);
	ATF_REQUIRE(audit_sync(a) == 0);
	ATF_CHECK_EQ(cnt_wal_syncs, k + 1);

	audit_tip(a, &tip);
	audit_close(a);
	ATF_CHECK(sqlite3_vfs_unregister(&cnt_vfs) == SQLITE_OK);
	expect_intact(DB, &tip, tip.at_seq);
}

ATF_TC(killed_process_loses_nothing);
ATF_TC_HEAD(killed_process_loses_nothing, tc)
{
	atf_tc_set_md_var(tc, "descr", "Records committed without a sync "
	    "survive the process killed before any sync or close; the "
	    "-wal's unused blocks are not read as records");
}
ATF_TC_BODY(killed_process_loses_nothing, tc)
{
	struct audit_record	 ar;
	struct audit_tip	 tip;
	struct audit		*a;
	struct stat		 sb;
	pid_t			 pid;
	int			 i, status;

	setup();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((a = audit_open(DB)) == NULL)
			_exit(10);
		mkkind(&ar, AUDIT_K_DECISION);
		if (audit_append(a, &ar) == -1)
			_exit(11);
		for (i = 0; i < 20; i++) {
			mkkind(&ar, i % 2 ? AUDIT_K_CALL_RESULT :
			    AUDIT_K_CALL_START);
			if (audit_append(a, &ar) == -1)
				_exit(12);
		}
		if (audit_durable(a) != 1)
			_exit(13);
		raise(SIGKILL);
		_exit(14);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "the writer did not die as planned: status %d", status);
	/* Frames, then zeros up to the size given at open. */
	ATF_REQUIRE(stat(DB "-wal", &sb) == 0);
	ATF_CHECK_MSG(sb.st_size >= 32 + 1000 * (24 + 4096),
	    "-wal of %lld bytes", (long long)sb.st_size);

	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, 21);
	audit_close(a);
	expect_intact(DB, &tip, 21);
}

ATF_TC(wal_reuses_its_blocks);
ATF_TC_HEAD(wal_reuses_its_blocks, tc)
{
	atf_tc_set_md_var(tc, "descr", "The -wal gets its blocks at open and "
	    "does not grow past them across checkpoints");
}
ATF_TC_BODY(wal_reuses_its_blocks, tc)
{
	struct audit_record	 ar;
	struct audit_tip	 tip;
	struct audit		*a;
	struct stat		 sb;
	off_t			 given;
	int			 i;

	setup();
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	ATF_REQUIRE(stat(DB "-wal", &sb) == 0);
	given = sb.st_size;
	/* wal_autocheckpoint's 1000 pages of 4 KiB, and room to spare. */
	ATF_CHECK_MSG(given >= 32 + 1000 * (24 + 4096), "-wal of %lld bytes",
	    (long long)given);
	/* About 1.2 frames a commit: past two checkpoints. */
	for (i = 0; i < 2500; i++) {
		mkkind(&ar, i % 5 ? AUDIT_K_CALL_RESULT : AUDIT_K_DECISION);
		ATF_REQUIRE(audit_append(a, &ar) == 0);
	}
	ATF_REQUIRE(stat(DB "-wal", &sb) == 0);
	ATF_CHECK_EQ_MSG(sb.st_size, given, "-wal grew from %lld to %lld "
	    "bytes", (long long)given, (long long)sb.st_size);
	audit_tip(a, &tip);
	audit_close(a);
	expect_intact(DB, &tip, 2500);
}

/*
 * Record ar, its seq, time and prev set by the caller, inserted with a
 * hash that matches: what someone who knows the encoding could write.
 */
static void
forge(const char *path, struct audit_record *ar)
{
	char	 s[2048], req[AUDIT_HEX_BYTES], resp[AUDIT_HEX_BYTES];
	char	 prev[AUDIT_HEX_BYTES], hash[AUDIT_HEX_BYTES];
	char	 rq[AUDIT_HEX_BYTES + 2], rs[AUDIT_HEX_BYTES + 2];

	audit_record_hash(ar, ar->ar_hash);
	sha256_hex(ar->ar_request, req);
	sha256_hex(ar->ar_response, resp);
	sha256_hex(ar->ar_prev, prev);
	sha256_hex(ar->ar_hash, hash);
	snprintf(rq, sizeof(rq), "'%s'", req);
	snprintf(rs, sizeof(rs), "'%s'", resp);
	snprintf(s, sizeof(s), "INSERT INTO audit_records VALUES (%llu, %lld,"
	    " '%s', '%s', '%s', '%s', '%s', '%s', '%s', '%s', %s, %s, '%s',"
	    " '%s')", (unsigned long long)ar->ar_seq,
	    (long long)ar->ar_time_ms, ar->ar_session,
	    audit_kind_name(ar->ar_kind), ar->ar_operation, ar->ar_tool,
	    audit_decision_name(ar->ar_decision), ar->ar_reason,
	    ar->ar_label_before, ar->ar_label_after,
	    (ar->ar_flags & AUDIT_HAS_REQUEST) ? rq : "NULL",
	    (ar->ar_flags & AUDIT_HAS_RESPONSE) ? rs : "NULL", prev, hash);
	ATF_REQUIRE_EQ_MSG(sql(path, s, NULL, 0), 0, "forge seq %llu",
	    (unsigned long long)ar->ar_seq);
}

/* An empty store at path, created and closed. */
static void
create(const char *path)
{
	struct audit	*a;

	ATF_REQUIRE((a = audit_open(path)) != NULL);
	audit_close(a);
}

ATF_TC_WITHOUT_HEAD(open_in_missing_directory_refused);
ATF_TC_BODY(open_in_missing_directory_refused, tc)
{
	capture();
	ATF_CHECK(audit_open("missing/audit.db") == NULL);
	logged_once("audit: create missing/audit.db: No such file or "
	    "directory");
}

/*
 * In a child, the system calls that match picks fail with EIO from now
 * on (a seccomp filter: the kernel's answer, not a stand-in for it).
 * match starts with the call's number loaded; its end falls through to
 * the failure, a jump past that allows the call.
 */
static int
eio_filter(const struct sock_filter *match, size_t n)
{
	struct sock_filter	 f[8] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
	};
	struct sock_filter	 tail[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EIO),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	 prog = { 1 + n + nitems(tail), f };

	if (1 + n + nitems(tail) > nitems(f))
		return (-1);
	memcpy(f + 1, match, n * sizeof(*f));
	memcpy(f + 1 + n, tail, sizeof(tail));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
		return (-1);
	return (0);
}

/* In a child, close(2) of descriptor fd fails with EIO from now on. */
static int
close_fails(int fd)
{
	struct sock_filter	 match[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, fd, 0, 1),
	};

	return (eio_filter(match, nitems(match)));
}

ATF_TC_WITHOUT_HEAD(open_close_failure_refused);
ATF_TC_BODY(open_close_failure_refused, tc)
{
	pid_t	 pid;
	int	 fd, status;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		capture();
		/* The descriptor audit_open's open(2) will get. */
		if ((fd = open("/dev/null", O_RDONLY)) == -1 ||
		    close(fd) == -1 || close_fails(fd) == -1)
			_exit(10);
		if (audit_open(DB) != NULL)
			_exit(11);
		_exit(nlogged == 1 && strcmp(logged, "audit: close " DB
		    ": Input/output error\n") == 0 ? 0 : 12);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(WIFEXITED(status));
	ATF_CHECK_EQ(WEXITSTATUS(status), 0);
}

ATF_TC_WITHOUT_HEAD(open_without_memory_refused);
ATF_TC_BODY(open_without_memory_refused, tc)
{
	pid_t	 pid;

	memcap_skip_under_asan();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		capture();
		memcap_limit(0);
		memcap_exhaust();
		if (audit_open(DB) != NULL)
			_exit(10);
		_exit(nlogged == 1 && strcmp(logged, "audit: calloc: Cannot "
		    "allocate memory\n") == 0 ? 0 : 11);
	}
	memcap_child_passes(pid);
}

ATF_TC_WITHOUT_HEAD(open_directory_refused);
ATF_TC_BODY(open_directory_refused, tc)
{
	uint64_t	 bad, n;

	ATF_REQUIRE(mkdir("dir.db", 0700) == 0);
	capture();
	ATF_CHECK(audit_open("dir.db") == NULL);
	logged_once("audit: dir.db: sqlite open error 14");
	/* A directory opens for reading, and its first read fails. */
	ATF_CHECK_EQ(audit_verify("dir.db", NULL, &bad, &n), -1);
	logged_once("audit: dir.db: sqlite open error 266");
}

/*
 * Triggers planted in the file run inside the store's own statements:
 * defensive mode refuses one that writes a virtual table's shadow
 * table, and an untrusted schema one that reads a virtual table that
 * is not innocuous (fts5; dbstat is refused in any schema).  The insert
 * is prepared at open, so the store does not open.
 */
ATF_TC(open_refuses_planted_triggers);
ATF_TC_HEAD(open_refuses_planted_triggers, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(open_refuses_planted_triggers, tc)
{
	struct audit	*a;

	setup();
	create(DB);
	copy(DB, COPY);
	ATF_REQUIRE_EQ(sql(COPY, "CREATE VIRTUAL TABLE f USING fts5(x);"
	    " CREATE TRIGGER planted AFTER INSERT ON audit_records BEGIN"
	    " INSERT INTO f_data VALUES (1000, x'00'); END", NULL, 0), 0);
	capture();
	ATF_CHECK(audit_open(COPY) == NULL);
	logged_once("audit: prepare insert: sqlite error 1");

	copy(DB, COPY);
	ATF_REQUIRE_EQ(sql(COPY, "CREATE VIRTUAL TABLE f USING fts5(x);"
	    " CREATE TABLE k (n);"
	    " CREATE TRIGGER planted AFTER INSERT ON audit_records BEGIN"
	    " INSERT INTO k SELECT count(*) FROM f; END", NULL, 0), 0);
	ATF_CHECK(audit_open(COPY) == NULL);
	logged_once("audit: prepare insert: sqlite error 1");

	/* The same triggers, harmless, are no reason to refuse. */
	copy(DB, COPY);
	ATF_REQUIRE_EQ(sql(COPY, "CREATE TABLE k (n);"
	    " CREATE TRIGGER planted AFTER INSERT ON audit_records BEGIN"
	    " INSERT INTO k VALUES (1); END", NULL, 0), 0);
	ATF_CHECK((a = audit_open(COPY)) != NULL);
	audit_close(a);
	ATF_CHECK_EQ(nlogged, 0);
}

/* A view in the table's place that reads fts5: not trusted either. */
ATF_TC(verify_refuses_view_of_unsafe_table);
ATF_TC_HEAD(verify_refuses_view_of_unsafe_table, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(verify_refuses_view_of_unsafe_table, tc)
{
	uint64_t	 bad, n;

	setup();
	create(DB);
	copy(DB, COPY);
	ATF_REQUIRE_EQ(sql(COPY, "CREATE VIRTUAL TABLE f USING fts5(x);"
	    " ALTER TABLE audit_records RENAME TO old;"
	    " CREATE VIEW audit_records AS SELECT * FROM old WHERE"
	    " (SELECT count(*) FROM f) >= 0", NULL, 0), 0);
	capture();
	ATF_CHECK_EQ(audit_verify(COPY, NULL, &bad, &n), -1);
	logged_once("audit: prepare select: sqlite error 1");
	ATF_CHECK_EQ(audit_show(COPY, stdout, NULL, AUDIT_SHOW_TEXT), -1);
	logged_once("audit: prepare select: sqlite error 1");
}

ATF_TC_WITHOUT_HEAD(open_refuses_file_not_database);
ATF_TC_BODY(open_refuses_file_not_database, tc)
{
	char		 junk[8192];
	uint64_t	 bad, n;
	int		 fd;

	memset(junk, 'j', sizeof(junk));
	ATF_REQUIRE((fd = open("junk.db", O_WRONLY | O_CREAT, 0600)) != -1);
	ATF_REQUIRE(write(fd, junk, sizeof(junk)) == sizeof(junk));
	close(fd);
	capture();
	ATF_CHECK(audit_open("junk.db") == NULL);
	logged_once("audit: journal mode: sqlite error 26");
	ATF_CHECK_EQ(audit_verify("junk.db", NULL, &bad, &n), -1);
	logged_once("audit: pragma: sqlite error 26");
}

/*
 * SQLite databases that are not the store's, or not in a format this
 * version knows: each differs from an acceptable one in one respect.
 */
ATF_TC(open_refuses_other_formats);
ATF_TC_HEAD(open_refuses_other_formats, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(open_refuses_other_formats, tc)
{
	static const struct {
		int		 store;	/* a store first, else a new file */
		const char	*sql;
	} other[] = {
		{ 0, "PRAGMA journal_mode = WAL; PRAGMA application_id = 42" },
		{ 0, "PRAGMA journal_mode = WAL; PRAGMA user_version = 7" },
		{ 1, "PRAGMA user_version = 2" },
		{ 1, "PRAGMA application_id = 0" },
		{ 1, "PRAGMA application_id = 1668113265" },
	};
	struct audit	*a;
	uint64_t	 bad, n;
	size_t		 i;

	setup();
	create(DB);
	for (i = 0; i < nitems(other); i++) {
		if (other[i].store)
			copy(DB, COPY);
		else
			ATF_REQUIRE(unlink(COPY) == 0 || errno == ENOENT);
		ATF_REQUIRE_EQ(sql(COPY, other[i].sql, NULL, 0), 0);
		capture();
		ATF_CHECK_MSG(audit_open(COPY) == NULL, "%s", other[i].sql);
		logged_once("audit: not an audit database of format 1");
		ATF_CHECK_EQ(audit_verify(COPY, NULL, &bad, &n), -1);
		logged_once("audit: not an audit database of format 1");
	}

	/* An empty database becomes a store, but is not one to verify. */
	ATF_REQUIRE(unlink(COPY) == 0);
	ATF_REQUIRE_EQ(sql(COPY, "PRAGMA journal_mode = WAL", NULL, 0), 0);
	capture();
	ATF_CHECK_EQ(audit_verify(COPY, NULL, &bad, &n), -1);
	logged_once("audit: not an audit database of format 1");
	ATF_REQUIRE((a = audit_open(COPY)) != NULL);
	audit_close(a);
	ATF_CHECK_EQ(nlogged, 0);
	expect_intact(COPY, NULL, 0);

	/* The store's format without its table. */
	copy(DB, COPY);
	ATF_REQUIRE_EQ(sql(COPY, "DROP TABLE audit_records", NULL, 0), 0);
	capture();
	ATF_CHECK(audit_open(COPY) == NULL);
	logged_once("audit: prepare insert: sqlite error 1");
	ATF_CHECK_EQ(audit_verify(COPY, NULL, &bad, &n), -1);
	logged_once("audit: prepare select: sqlite error 1");
	ATF_CHECK_EQ(audit_show(COPY, stdout, "s", AUDIT_SHOW_TEXT), -1);
	logged_once("audit: prepare select: sqlite error 1");
}

/*
 * COPY is not in WAL mode: verify and show refuse it, each saying so
 * once, and the store opened on it sets WAL mode itself.
 */
static void
expect_not_wal(void)
{
	struct audit	*a;
	uint64_t	 bad, n;

	capture();
	ATF_CHECK_EQ(audit_verify(COPY, NULL, &bad, &n), -1);
	logged_once("audit: database is not in WAL mode");
	ATF_CHECK_EQ(audit_show(COPY, stdout, NULL, AUDIT_SHOW_TEXT), -1);
	logged_once("audit: database is not in WAL mode");
	ATF_REQUIRE((a = audit_open(COPY)) != NULL);
	audit_close(a);
}

/* A reader needs the -wal: a database in another journal mode is not ours. */
ATF_TC(verify_refuses_rollback_journal);
ATF_TC_HEAD(verify_refuses_rollback_journal, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(verify_refuses_rollback_journal, tc)
{
	setup();
	create(DB);
	copy(DB, COPY);
	ATF_REQUIRE_EQ(sql(COPY, "PRAGMA journal_mode = DELETE", NULL, 0),
	    0);
	expect_not_wal();
	expect_intact(COPY, NULL, 0);
}

/*
 * A chain can be made to end near the largest seq (a forged record, as
 * SQLite's integers are signed): the batch that would pass INT64_MAX is
 * refused whole, the one that reaches it taken.  And a batch holds
 * AUDIT_BATCH_MAX records, not one more.
 */
ATF_TC(append_batch_bounds);
ATF_TC_HEAD(append_batch_bounds, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(append_batch_bounds, tc)
{
	static struct audit_record	 many[AUDIT_BATCH_MAX + 1];
	struct audit_record		 ar[2];
	struct audit_tip		 tip;
	struct audit			*a;
	size_t				 i;

	setup();
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	for (i = 0; i < nitems(many); i++)
		mkrec(&many[i], i);
	capture();
	ATF_CHECK(audit_append_batch(a, many, AUDIT_BATCH_MAX + 1) == -1);
	logged_once("audit: batch of 1025 records refused");
	ATF_CHECK(audit_append_batch(a, many, 0) == -1);
	logged_once("audit: batch of 0 records refused");
	ATF_CHECK(audit_append_batch(a, many, AUDIT_BATCH_MAX) == 0);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, AUDIT_BATCH_MAX);
	ATF_CHECK_EQ(nlogged, 0);
	audit_close(a);

	create(COPY);
	mkrec(&ar[0], 0);
	ar[0].ar_seq = INT64_MAX - 1;
	ar[0].ar_time_ms = 1000;
	forge(COPY, &ar[0]);
	ATF_REQUIRE((a = audit_open(COPY)) != NULL);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, INT64_MAX - 1);
	mkrec(&ar[0], 1);
	mkrec(&ar[1], 2);
	capture();
	ATF_CHECK(audit_append_batch(a, ar, 2) == -1);
	logged_once("audit: batch of 2 records refused");
	ATF_CHECK(audit_append_batch(a, ar, 1) == 0);
	ATF_CHECK_EQ(ar[0].ar_seq, INT64_MAX);
	ATF_CHECK(audit_append_batch(a, &ar[1], 1) == -1);
	logged_once("audit: batch of 1 records refused");
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, INT64_MAX);
	audit_close(a);
}

/*
 * A record's time is the clock's, and never earlier than the tip's: a
 * chain whose last record lies in the future (the clock stepped back
 * since, here forged) continues at that time, not before it.
 */
ATF_TC(append_time_never_runs_back);
ATF_TC_HEAD(append_time_never_runs_back, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(append_time_never_runs_back, tc)
{
	static const int64_t	 future = 4102444800000LL;	/* 2100 */
	struct audit_record	 ar;
	struct audit_tip	 tip;
	struct audit		*a;
	struct timespec		 t0, t1;
	uint8_t			 d[AUDIT_DIGEST_BYTES];

	setup();
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	/* A request digest without a response's. */
	mkrec(&ar, 1);
	memset(d, 0x11, sizeof(d));
	audit_record_digest(&ar, AUDIT_HAS_REQUEST, d);
	ATF_REQUIRE(clock_gettime(CLOCK_REALTIME, &t0) == 0);
	ATF_REQUIRE(audit_append(a, &ar) == 0);
	ATF_REQUIRE(clock_gettime(CLOCK_REALTIME, &t1) == 0);
	ATF_CHECK(ar.ar_time_ms >= (int64_t)t0.tv_sec * 1000 +
	    t0.tv_nsec / 1000000);
	ATF_CHECK(ar.ar_time_ms <= (int64_t)t1.tv_sec * 1000 +
	    t1.tv_nsec / 1000000);
	audit_tip(a, &tip);
	audit_close(a);

	mkrec(&ar, 1);
	ar.ar_seq = 2;
	ar.ar_time_ms = future;
	memcpy(ar.ar_prev, tip.at_hash, sizeof(ar.ar_prev));
	forge(DB, &ar);
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	mkrec(&ar, 2);
	ATF_REQUIRE(audit_append(a, &ar) == 0);
	ATF_CHECK_EQ(ar.ar_seq, 3);
	ATF_CHECK_EQ(ar.ar_time_ms, future);
	mkrec(&ar, 3);
	ATF_REQUIRE(audit_append(a, &ar) == 0);
	ATF_CHECK_EQ(ar.ar_time_ms, future);
	audit_tip(a, &tip);
	audit_close(a);
	expect_intact(DB, &tip, 4);
}

/*
 * An insert that fails (a trigger planted in the file refuses seq 2):
 * the batch is rolled back whole, and the store refuses every later
 * append and sync, as after a failed write.
 */
ATF_TC(append_failure_rolls_back_batch);
ATF_TC_HEAD(append_failure_rolls_back_batch, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(append_failure_rolls_back_batch, tc)
{
	struct audit_record	 ar[3];
	struct audit_tip	 tip;
	struct audit		*a;
	int			 i;

	setup();
	create(DB);
	ATF_REQUIRE_EQ(sql(DB, "CREATE TRIGGER planted BEFORE INSERT ON"
	    " audit_records WHEN NEW.seq = 2 BEGIN"
	    " SELECT RAISE(ABORT, 'planted'); END", NULL, 0), 0);
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	for (i = 0; i < 3; i++)
		mkkind(&ar[i], AUDIT_K_CALL_START);
	capture();
	ATF_CHECK(audit_append_batch(a, ar, 3) == -1);
	logged_once("audit: insert: sqlite error 1811");
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, 0);
	ATF_CHECK_EQ(audit_durable(a), 0);
	ATF_CHECK(audit_append(a, &ar[0]) == -1);
	logged_once("audit: append refused after an earlier failure");
	ATF_CHECK(audit_sync(a) == -1);
	logged_once("audit: sync refused after an earlier failure");
	audit_close(a);
	expect_intact(DB, NULL, 0);

	/* One record at a time: the first is committed, the second not. */
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	ATF_CHECK(audit_append(a, &ar[0]) == 0);
	ATF_CHECK(audit_append(a, &ar[1]) == -1);
	logged_once("audit: insert: sqlite error 1811");
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, 1);
	audit_close(a);
	expect_intact(DB, &tip, 1);
}

ATF_TC_WITHOUT_HEAD(verify_refuses_empty_tip_not_genesis);
ATF_TC_BODY(verify_refuses_empty_tip_not_genesis, tc)
{
	struct audit_tip	 tip;
	uint64_t		 bad, n;

	setup();
	create(DB);
	memset(&tip, 0, sizeof(tip));
	tip.at_hash[31] = 1;
	capture();
	ATF_CHECK_EQ(audit_verify(DB, &tip, &bad, &n), -1);
	logged_once("audit: tip with seq 0 is not the genesis");
	tip.at_hash[31] = 0;
	tip.at_hash[0] = 0x80;
	ATF_CHECK_EQ(audit_verify(DB, &tip, &bad, &n), -1);
	logged_once("audit: tip with seq 0 is not the genesis");
	/* With seq 1 that hash is an ordinary tip the chain lacks. */
	tip.at_seq = 1;
	ATF_CHECK_EQ(audit_verify(DB, &tip, &bad, &n), AUDIT_VERIFY_BROKEN);
	ATF_CHECK_EQ(bad, 1);
	ATF_CHECK_EQ(nlogged, 0);
}

#define LOOSEN	"ALTER TABLE audit_records RENAME TO strict_records;"	\
		" CREATE TABLE audit_records (seq INTEGER PRIMARY KEY,"	\
		" time, session, kind, operation, tool, decision, reason,"	\
		" label_before, label_after, request_sha256,"		\
		" response_sha256, prev_hash, hash);"			\
		" INSERT INTO audit_records SELECT * FROM strict_records;" \
		" DROP TABLE strict_records"

/*
 * An intruder can replace the table by one without STRICT and checks
 * and store what audit_append() never writes.  Each case is a single
 * record whose hash matches what a reader that skipped the one check
 * would make of it: the store does not continue from it, verify breaks
 * at it, show stops at it.
 */
ATF_TC(malformed_record_refused_by_each_check);
ATF_TC_HEAD(malformed_record_refused_by_each_check, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(malformed_record_refused_by_each_check, tc)
{
	static const struct {
		int		 field;		/* in the forged record */
		const char	*value;
		const char	*set;		/* then, in the table */
	} bad[] = {
		{ 's', NULL, NULL },				/* seq 0 */
		{ 't', NULL, NULL },				/* time -1 */
		{ 0, NULL, "time = CAST(time AS TEXT)" },
		{ 0, NULL, "kind = CAST(kind AS BLOB)" },
		{ 0, NULL, "kind = 'nonsense'" },
		/* A name's prefix, and one as long as another name. */
		{ 'k', NULL, "kind = 'session_star'" },
		{ 'K', NULL, "kind = 'xecision'" },
		{ 0, NULL, "decision = CAST(decision AS BLOB)" },
		{ 0, NULL, "decision = 'maybe'" },
		{ 'd', NULL, "decision = 'allo'" },
		{ 'D', NULL, "decision = 'xone'" },
		{ AUDIT_F_SESSION, "5", "session = 5" },
		{ 0, NULL, "session = CAST(session AS BLOB)" },
		{ 0, NULL, "session = session || char(0) || 'x'" },
		{ 0, NULL, "operation = CAST(operation AS BLOB)" },
		{ 0, NULL, "tool = CAST(tool AS BLOB)" },
		{ 0, NULL, "reason = CAST(reason AS BLOB)" },
		{ 0, NULL, "label_before = CAST(label_before AS BLOB)" },
		{ 0, NULL, "label_after = CAST(label_after AS BLOB)" },
		/* 63 bytes are a name (show_prints_every_field), 64 not. */
		{ 0, NULL, "tool = printf('%.64c', 'n')" },
		{ 0, NULL, "label_after = printf('%.4000c', 'x')" },
		{ 0, NULL, "request_sha256 = CAST(request_sha256 AS BLOB)" },
		{ 0, NULL, "response_sha256 = CAST(response_sha256 AS BLOB)" },
		{ 0, NULL, "prev_hash = CAST(prev_hash AS BLOB)" },
		{ 0, NULL, "prev_hash = NULL" },
		{ 0, NULL, "hash = CAST(hash AS BLOB)" },
		{ 0, NULL, "hash = NULL" },
		{ 'r', "Rule", NULL },		/* only the record check */
	};
	struct audit_record	 ar;
	char			 s[512], out[OUT_BYTES];
	FILE			*fp;
	uint64_t		 n;
	size_t			 i;

	setup();
	create(DB);
	ATF_REQUIRE_EQ(sql(DB, LOOSEN, NULL, 0), 0);
	for (i = 0; i < nitems(bad); i++) {
		copy(DB, COPY);
		mkrec(&ar, VICTIM - 1);
		ar.ar_seq = 1;
		ar.ar_time_ms = 1000;
		switch (bad[i].field) {
		case 's':
			ar.ar_seq = 0;
			break;
		case 't':
			ar.ar_time_ms = -1;
			break;
		case 'k':
			ar.ar_kind = AUDIT_K_SESSION_START;
			break;
		case 'K':
			ar.ar_kind = AUDIT_K_DECISION;
			break;
		case 'd':
			ar.ar_decision = AUDIT_D_ALLOW;
			break;
		case 'D':
			ar.ar_decision = AUDIT_D_NONE;
			break;
		case 'r':
			strlcpy(ar.ar_reason, bad[i].value,
			    sizeof(ar.ar_reason));
			break;
		case 0:
			break;
		default:
			ATF_REQUIRE(audit_record_set(&ar, bad[i].field,
			    bad[i].value) == 0);
		}
		forge(COPY, &ar);
		if (bad[i].set != NULL) {
			snprintf(s, sizeof(s), "UPDATE audit_records SET %s",
			    bad[i].set);
			ATF_REQUIRE_EQ(sql(COPY, s, NULL, 0), 0);
		}
		snprintf(s, sizeof(s), "case %zu", i);
		capture();
		ATF_CHECK_MSG(audit_open(COPY) == NULL, "%s", s);
		logged_once("audit: last record is malformed");
		expect_break(COPY, NULL, 1, s);
		ATF_CHECK_EQ_MSG(nlogged, 0, "%s: %s", s, logged);
		ATF_REQUIRE((fp = fmemopen(out, sizeof(out), "w")) != NULL);
		ATF_CHECK_MSG(audit_show(COPY, fp, NULL, AUDIT_SHOW_TEXT) ==
		    -1, "%s", s);
		n = ftell(fp);
		fclose(fp);
		ATF_CHECK_EQ_MSG(n, 0, "%s", s);
		logged_once("audit: malformed record after seq 0");
	}
}

/* The first of the page's records, by dbstat: ncell of the leaves before. */
static int
leaf_holding(const char *path, int seq, long *pageno)
{
	char	 out[OUT_BYTES], *line, *save;
	long	 pg, ncell;
	int	 before = 0;

	ATF_REQUIRE_EQ(sql(path, "SELECT pageno, ncell FROM dbstat WHERE"
	    " name = 'audit_records' AND pagetype = 'leaf' ORDER BY path",
	    out, sizeof(out)), 0);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		ATF_REQUIRE(sscanf(line, "%ld|%ld", &pg, &ncell) == 2);
		if (before + ncell >= seq) {
			*pageno = pg;
			return (before + 1);
		}
		before += ncell;
	}
	atf_tc_fail("no leaf holds seq %d", seq);
	return (-1);
}

/*
 * A damaged page (overwritten in the file) is a break at the first
 * record it held; show stops there with SQLite's error.
 */
ATF_TC(damaged_page_is_a_break);
ATF_TC_HEAD(damaged_page_is_a_break, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(damaged_page_is_a_break, tc)
{
	static char		 out[4 * OUT_BYTES];
	struct audit_tip	 tip;
	char			 page[4096], *p;
	FILE			*fp;
	long			 pageno;
	int			 fd, first, lines;

	setup();
	build(DB, &tip);
	copy(DB, COPY);
	first = leaf_holding(COPY, VICTIM, &pageno);
	ATF_REQUIRE(first > 1 && first <= VICTIM);
	memset(page, 0xff, sizeof(page));
	ATF_REQUIRE((fd = open(COPY, O_WRONLY)) != -1);
	ATF_REQUIRE(pwrite(fd, page, sizeof(page), (pageno - 1) *
	    (off_t)sizeof(page)) == sizeof(page));
	close(fd);
	capture();
	expect_break(COPY, NULL, first, "damaged page");
	expect_break(COPY, &tip, first, "damaged page, with the tip");
	ATF_CHECK_EQ(nlogged, 0);

	ATF_REQUIRE((fp = fmemopen(out, sizeof(out), "w")) != NULL);
	ATF_CHECK(audit_show(COPY, fp, NULL, AUDIT_SHOW_TEXT) == -1);
	fclose(fp);
	logged_once("audit: select: sqlite error 11");
	for (lines = 0, p = out; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	ATF_CHECK_EQ(lines, first - 1);
}

static const char *
dash(const char *s)
{
	return (s[0] != '\0' ? s : "-");
}

/* The text line show prints for ar, written out here from its comment. */
static void
text_line(const struct audit_record *ar, char *buf, size_t len)
{
	char		 when[32], req[AUDIT_HEX_BYTES], resp[AUDIT_HEX_BYTES];
	char		 prev[AUDIT_HEX_BYTES], hash[AUDIT_HEX_BYTES];
	struct tm	 tm;
	time_t		 t = ar->ar_time_ms / 1000;

	ATF_REQUIRE(gmtime_r(&t, &tm) != NULL);
	ATF_REQUIRE(strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm) >
	    0);
	sha256_hex(ar->ar_request, req);
	sha256_hex(ar->ar_response, resp);
	sha256_hex(ar->ar_prev, prev);
	sha256_hex(ar->ar_hash, hash);
	snprintf(buf, len, "%llu\t%s.%03dZ\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s"
	    "\t%s\t%s\t%s\t%s\n", (unsigned long long)ar->ar_seq, when,
	    (int)(ar->ar_time_ms % 1000), ar->ar_session,
	    audit_kind_name(ar->ar_kind), dash(ar->ar_operation),
	    dash(ar->ar_tool), audit_decision_name(ar->ar_decision),
	    dash(ar->ar_reason), dash(ar->ar_label_before),
	    dash(ar->ar_label_after),
	    (ar->ar_flags & AUDIT_HAS_REQUEST) ? req : "-",
	    (ar->ar_flags & AUDIT_HAS_RESPONSE) ? resp : "-", prev, hash);
}

/*
 * Every field of every record, in both forms: names of one byte and of
 * the most a name holds (63), empty ones as "-" or "", digests or not,
 * times with their milliseconds.
 */
ATF_TC_WITHOUT_HEAD(show_prints_every_field);
ATF_TC_BODY(show_prints_every_field, tc)
{
	static const int	 ms[] = { 7, 999, 40, 123 };
	static char		 out[4 * OUT_BYTES];
	struct audit_record	 ar[4];
	char			 want[2048], line[2048], name[AUDIT_NAME_BYTES];
	char			 req[AUDIT_HEX_BYTES], resp[AUDIT_HEX_BYTES];
	char			 prev[AUDIT_HEX_BYTES], hash[AUDIT_HEX_BYTES];
	FILE			*fp;
	size_t			 i;
	int			 f;

	setup();
	create(DB);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	mkrec(&ar[0], VICTIM - 1);
	mkrec(&ar[1], 4);	/* no digests, empty reason and label */
	mkrec(&ar[2], 0);
	mkrec(&ar[3], VICTIM - 1);
	for (f = AUDIT_F_SESSION; f <= AUDIT_F_LABEL_AFTER; f++) {
		ATF_REQUIRE(audit_record_set(&ar[2], f, f == AUDIT_F_REASON ?
		    "r" : "x") == 0);
		ATF_REQUIRE(audit_record_set(&ar[3], f, name) == 0);
	}
	/* Forged, for times with milliseconds of every width. */
	for (i = 0; i < nitems(ar); i++) {
		ar[i].ar_seq = i + 1;
		ar[i].ar_time_ms = 1764496800000LL + 86400000LL * i + ms[i];
		memcpy(ar[i].ar_prev, i == 0 ? audit_genesis :
		    ar[i - 1].ar_hash, sizeof(ar[i].ar_prev));
		forge(DB, &ar[i]);
	}
	expect_intact(DB, NULL, nitems(ar));

	ATF_REQUIRE((fp = fmemopen(out, sizeof(out), "w")) != NULL);
	ATF_REQUIRE(audit_show(DB, fp, NULL, AUDIT_SHOW_TEXT) == 0);
	fclose(fp);
	want[0] = '\0';
	for (i = 0; i < nitems(ar); i++) {
		text_line(&ar[i], line, sizeof(line));
		strlcat(want, line, sizeof(want));
	}
	ATF_CHECK_STREQ(out, want);

	ATF_REQUIRE((fp = fmemopen(out, sizeof(out), "w")) != NULL);
	ATF_REQUIRE(audit_show(DB, fp, NULL, AUDIT_SHOW_JSON) == 0);
	fclose(fp);
	sha256_hex(ar[0].ar_request, req);
	sha256_hex(ar[0].ar_response, resp);
	sha256_hex(ar[0].ar_prev, prev);
	sha256_hex(ar[0].ar_hash, hash);
	snprintf(want, sizeof(want), "\"label_after\":\"%s\","
	    "\"request_sha256\":\"%s\",\"response_sha256\":\"%s\","
	    "\"prev_hash\":\"%s\",\"hash\":\"%s\"}\n",
	    ar[0].ar_label_after, req, resp, prev, hash);
	ATF_CHECK_MSG(strstr(out, want) != NULL, "%s", out);
	ATF_CHECK(strstr(out, "\"reason\":\"\",\"label_before\":\"\",") !=
	    NULL);
	snprintf(want, sizeof(want), "\"tool\":\"%s\",", name);
	ATF_CHECK(strstr(out, want) != NULL);
}

/* A write error of show's stream, in a row or at the final flush. */
ATF_TC_WITHOUT_HEAD(show_write_failure_reported);
ATF_TC_BODY(show_write_failure_reported, tc)
{
	struct audit_record	 ar;
	struct audit_tip	 tip;
	struct audit		*a;
	FILE			*fp;

	setup();
	ATF_REQUIRE((a = audit_open(COPY)) != NULL);
	mkrec(&ar, 0);
	ATF_REQUIRE(audit_append(a, &ar) == 0);
	audit_close(a);
	build(DB, &tip);
	capture();
	ATF_REQUIRE((fp = fopen("/dev/full", "w")) != NULL);
	ATF_CHECK(audit_show(COPY, fp, NULL, AUDIT_SHOW_TEXT) == -1);
	logged_once("audit: show: No space left on device");
	fclose(fp);
	ATF_REQUIRE((fp = fopen("/dev/full", "w")) != NULL);
	ATF_CHECK(audit_show(DB, fp, NULL, AUDIT_SHOW_JSON) == -1);
	logged_once("audit: show: No space left on device");
	fclose(fp);
}

/*
 * The writes at open fail for real under a file size limit: the warm-up
 * commit when the -wal cannot take one frame, the -wal's blocks when it
 * cannot take them all.  Each refuses the open, with its own message.
 */
static int
open_under_limit(rlim_t bytes, const char *want)
{
	struct rlimit	 rl;
	pid_t		 pid;
	int		 status;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		capture();
		if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR ||
		    getrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(10);
		rl.rlim_cur = bytes;
		if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(11);
		if (audit_open(DB) != NULL)
			_exit(12);
		fprintf(stderr, "logged: %s", logged);
		_exit(nlogged == 1 && strncmp(logged, want, strlen(want)) == 0 ?
		    0 : 13);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(WIFEXITED(status));
	return (WEXITSTATUS(status));
}

ATF_TC_WITHOUT_HEAD(open_write_failure_refused);
ATF_TC_BODY(open_write_failure_refused, tc)
{
	setup();
	create(DB);
	ATF_CHECK_EQ(open_under_limit(2048, "audit: warm-up write: sqlite "
	    "error "), 0);
	ATF_CHECK_EQ(open_under_limit(64 * 1024, "audit: -wal extend: sqlite "
	    "error "), 0);
	/* Without the limit it opens. */
	create(DB);
}

/* audit_close() takes what a failed audit_open() returned. */
ATF_TC_WITHOUT_HEAD(close_of_failed_open_is_noop);
ATF_TC_BODY(close_of_failed_open_is_noop, tc)
{
	capture();
	audit_close(audit_open("missing/audit.db"));
	logged_once("audit: create missing/audit.db: No such file or "
	    "directory");
}

/*
 * SQLite's allocator, each call passed on to the default one except the
 * one numbered oom_fail_at (counting from where it is set), which fails:
 * a shortage of memory at one chosen allocation cannot be had for real
 * (a real one, at the store's own calloc: open_without_memory_refused).
 */
static sqlite3_mem_methods	 oom_real;
static long			 oom_count, oom_fail_at;

static void *
oom_malloc(int n)
{
	if (oom_fail_at != 0 && ++oom_count == oom_fail_at)
		return (NULL);
	return (oom_real.xMalloc(n));
}

static void *
oom_realloc(void *p, int n)
{
	if (oom_fail_at != 0 && ++oom_count == oom_fail_at)
		return (NULL);
	return (oom_real.xRealloc(p, n));
}

static void
oom_install(void)
{
	sqlite3_mem_methods	 m;

	ATF_REQUIRE(sqlite3_config(SQLITE_CONFIG_GETMALLOC, &oom_real) ==
	    SQLITE_OK);
	m = oom_real;
	m.xMalloc = oom_malloc;
	m.xRealloc = oom_realloc;
	ATF_REQUIRE(sqlite3_config(SQLITE_CONFIG_MALLOC, &m) == SQLITE_OK);
	ATF_REQUIRE(sqlite3_initialize() == SQLITE_OK);
}

enum oom_call { OOM_OPEN, OOM_APPEND, OOM_APPEND_AGAIN, OOM_VERIFY, OOM_SHOW };

static char	 oom_want[OUT_BYTES];	/* what show prints, unfailed */
static int	 oom_lookaside = 1;	/* 0: every allocation a malloc */

/*
 * One call of the store on DB in a child, SQLite's allocation number k
 * of that call failing.  Exit status 0: the call failed and said so in
 * one line, or did as it does unfailed and said nothing; 1: allocation k
 * never came, and the call did as it does; 2: as 0, the line one of
 * making a store, 3 of its schema; more: anything else.  SQLite's memory is all freed
 * again after the call.
 */
static int
oom_child(enum oom_call call, long k)
{
	static char		 out[OUT_BYTES];
	struct audit_record	 ar[2];
	struct audit		*a = NULL;
	FILE			*fp;
	sqlite3_int64		 before;
	uint64_t		 bad, n;
	pid_t			 pid;
	int			 ok = 0, failed = 0, reached, rc, status;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		/* No connection is open: SQLite starts over without. */
		if (!oom_lookaside && (sqlite3_shutdown() != SQLITE_OK ||
		    sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0) !=
		    SQLITE_OK || sqlite3_initialize() != SQLITE_OK))
			_exit(25);
		before = sqlite3_memory_used();
		mkkind(&ar[0], AUDIT_K_CALL_START);
		mkkind(&ar[1], AUDIT_K_CALL_RESULT);
		if (call != OOM_OPEN && call != OOM_VERIFY &&
		    call != OOM_SHOW && (a = audit_open(DB)) == NULL)
			_exit(20);
		if (call == OOM_APPEND_AGAIN &&
		    audit_append_batch(a, ar, nitems(ar)) == -1)
			_exit(20);
		capture();
		oom_count = 0;
		oom_fail_at = k;
		switch (call) {
		case OOM_OPEN:
			ok = (a = audit_open(DB)) != NULL;
			failed = !ok;
			break;
		case OOM_APPEND:
		case OOM_APPEND_AGAIN:
			/*
			 * Descriptive records: the sync is switched first,
			 * and only then (no statement of its own again).
			 */
			rc = audit_append_batch(a, ar, nitems(ar));
			ok = rc == 0;
			failed = rc == -1 && (call == OOM_APPEND ||
			    strncmp(logged, "audit: synchronous", 18) != 0);
			break;
		case OOM_VERIFY:
			rc = audit_verify(DB, NULL, &bad, &n);
			ok = rc == AUDIT_VERIFY_OK && bad == 0 && n == NRECS;
			failed = rc == -1;
			break;
		case OOM_SHOW:
			if ((fp = fmemopen(out, sizeof(out), "w")) == NULL)
				_exit(21);
			rc = audit_show(DB, fp, "session-01", AUDIT_SHOW_TEXT);
			fclose(fp);
			ok = rc == 0 && strcmp(out, oom_want) == 0;
			failed = rc == -1;
			break;
		}
		reached = oom_count >= k;
		oom_fail_at = 0;
		audit_close(a);
		if (sqlite3_memory_used() != before)
			_exit(22);
		if (!reached)
			_exit(ok && nlogged == 0 ? 1 : 23);
		if (failed && nlogged == 1 &&
		    strncmp(logged, "audit: create schema", 20) == 0)
			_exit(3);
		if (failed && nlogged == 1)
			_exit(strncmp(logged, "audit: create", 13) == 0 ? 2 : 0);
		_exit(ok && nlogged == 0 ? 0 : 24);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/*
 * Every allocation of the call failing in turn, on a copy of src or on a
 * new file.  On a new file, only until the store is made: the failures
 * after that are those of a store's open.  In a run of failures in the
 * schema's statement, alike, every eighth, and each where the run ends.
 */
static int
oom_one(enum oom_call call, const char *src, long k)
{
	if (src != NULL)
		copy(src, DB);
	else
		ATF_REQUIRE(unlink(DB) == 0 || errno == ENOENT);
	unlink(DB "-wal");
	unlink(DB "-shm");
	return (oom_child(call, k));
}

static void
oom_sweep(enum oom_call call, const char *src, const char *what)
{
	FILE	*fp;
	long	 k, n;
	int	 last = -1, made = 0, st;

	if (call == OOM_SHOW) {
		ATF_REQUIRE((fp = fmemopen(oom_want, sizeof(oom_want), "w")) !=
		    NULL);
		ATF_REQUIRE(audit_show(src, fp, "session-01",
		    AUDIT_SHOW_TEXT) == 0);
		fclose(fp);
		ATF_REQUIRE(strlen(oom_want) > 0);
	}
	for (k = 0; k < 20000; k = n, last = st) {
		n = k + (last == 3 ? 8 : 1);
		if ((st = oom_one(call, src, n)) != 3 && n > k + 1)
			st = oom_one(call, src, n = k + 1);
		if (st == 1)
			break;
		ATF_REQUIRE_MSG(st == 0 || st == 2 || st == 3, "%s, allocation "
		    "%ld failing: status %d", what, n, st);
		if (src == NULL && call == OOM_OPEN && st >= 2)
			made = 1;
		else if (made)
			return;
	}
	ATF_REQUIRE_MSG(k > 0 && k < 20000, "%s: %ld allocations", what, k);
}

#define STORE	"store.db"
#define STORE16	"store16.db"

/* A store of NRECS records, and one in UTF-16 (made so by hand). */
static void
oom_stores(void)
{
	struct audit_tip	 tip;
	struct audit		*a;
	struct audit_record	 ar;
	char			 out[64];

	build(STORE, &tip);
	/* The encoding is set when the first table is made. */
	ATF_REQUIRE_EQ(sql(STORE16, "PRAGMA encoding = 'UTF-16le';"
	    " CREATE TABLE t (x); DROP TABLE t; PRAGMA journal_mode = WAL",
	    NULL, 0), 0);
	ATF_REQUIRE((a = audit_open(STORE16)) != NULL);
	mkrec(&ar, 50);
	ATF_REQUIRE(audit_append(a, &ar) == 0);
	audit_close(a);
	ATF_REQUIRE_EQ(sql(STORE16, "PRAGMA encoding", out, sizeof(out)), 0);
	ATF_REQUIRE_STREQ(out, "UTF-16le\n");
}

ATF_TC(allocation_failure_reported_once);
ATF_TC_HEAD(allocation_failure_reported_once, tc)
{
	atf_tc_set_md_var(tc, "descr", "Each allocation of SQLite's failing "
	    "in turn: open, append, verify and show fail and say so once, or "
	    "do what they do, and free what they took");
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
	atf_tc_set_md_var(tc, "timeout", "300");
}
ATF_TC_BODY(allocation_failure_reported_once, tc)
{
	setup();
	oom_install();
	oom_stores();
	oom_sweep(OOM_OPEN, NULL, "open, new file");
	oom_sweep(OOM_OPEN, STORE, "open, a store");
	oom_sweep(OOM_APPEND, NULL, "append");
	oom_sweep(OOM_APPEND_AGAIN, NULL, "append again");
	oom_sweep(OOM_VERIFY, STORE, "verify");
	oom_sweep(OOM_SHOW, STORE, "show");
	/*
	 * A connection's small allocations come from its lookaside, which
	 * never fails; without it, UTF-16's conversions are mallocs too.
	 */
	oom_lookaside = 0;
	oom_sweep(OOM_APPEND, STORE16, "append, UTF-16");
	oom_sweep(OOM_SHOW, STORE16, "show, UTF-16");
}

/*
 * The clock the store reads is the kernel's, but in the case below: a
 * clock at a whole second up to 1970, or one that fails, which no test
 * may make of the machine's own.
 */
static int	 clock_fake;	/* 0 the kernel's, 1 at clock_sec, 2 fails */
static time_t	 clock_sec;

int
clock_gettime(clockid_t id, struct timespec *ts)
{
	if (clock_fake == 2) {
		errno = EINVAL;
		return (-1);
	}
	if (syscall(SYS_clock_gettime, id, ts) == -1)
		return (-1);
	if (clock_fake == 1) {
		ts->tv_sec = clock_sec;
		ts->tv_nsec = 0;
	}
	return (0);
}

ATF_TC_WITHOUT_HEAD(append_refused_without_a_clock);
ATF_TC_BODY(append_refused_without_a_clock, tc)
{
	struct audit_record	 ar;
	struct audit_tip	 tip;
	struct audit		*a;

	setup();
	ATF_REQUIRE((a = audit_open(DB)) != NULL);
	mkkind(&ar, AUDIT_K_CALL_START);
	capture();
	clock_fake = 2;
	ATF_CHECK(audit_append(a, &ar) == -1);
	logged_once("audit: clock_gettime: Invalid argument");
	clock_fake = 1;
	clock_sec = -1;
	ATF_CHECK(audit_append(a, &ar) == -1);
	logged_once("audit: clock before 1970");
	/* Nothing was written: the store goes on, from 1970 on. */
	clock_sec = 0;
	ATF_CHECK(audit_append(a, &ar) == 0);
	ATF_CHECK_EQ(ar.ar_seq, 1);
	ATF_CHECK_EQ(ar.ar_time_ms, 0);
	clock_fake = 0;
	ATF_CHECK(audit_append(a, &ar) == 0);
	ATF_CHECK_EQ(ar.ar_seq, 2);
	ATF_CHECK_EQ(nlogged, 0);
	audit_tip(a, &tip);
	audit_close(a);
	expect_intact(DB, &tip, 2);
}

/*
 * A commit that fails for real (the file size limit: the -wal cannot
 * take the frames) is rolled back by SQLite itself; the store says so in
 * one line, and refuses to go on.  Making a store fails likewise.
 */
ATF_TC_WITHOUT_HEAD(commit_failure_reported_once);
ATF_TC_BODY(commit_failure_reported_once, tc)
{
	struct audit_record	 ar;
	struct rlimit		 rl;
	struct audit		*a;
	pid_t			 pid;
	int			 i, status;

	setup();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR ||
		    (a = audit_open(DB)) == NULL ||
		    getrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(10);
		rl.rlim_cur = 64 * 1024;
		if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(11);
		capture();
		mkkind(&ar, AUDIT_K_CALL_RESULT);
		for (i = 0; i < 1000; i++)
			if (audit_append(a, &ar) == -1)
				break;
		fprintf(stderr, "logged: %s", logged);
		if (i == 1000 || nlogged != 1 || strncmp(logged,
		    "audit: commit: sqlite error ", 28) != 0)
			_exit(12);
		if (audit_append(a, &ar) != -1 || nlogged != 2)
			_exit(13);
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(WIFEXITED(status));
	ATF_CHECK_EQ(WEXITSTATUS(status), 0);

	ATF_REQUIRE(unlink(DB) == 0);
	unlink(DB "-wal");
	ATF_CHECK_EQ(open_under_limit(4096, "audit: create commit: sqlite "
	    "error "), 0);
}

/*
 * In a child, fsync(2) and fdatasync(2) fail with EIO from now on (a
 * seccomp filter: the kernel's answer, as for close_fails).
 */
static int
sync_fails(void)
{
	struct sock_filter	 match[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fsync, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fdatasync, 0, 1),
	};

	return (eio_filter(match, nitems(match)));
}

/* A sync that fails is final, as a failed append is. */
ATF_TC_WITHOUT_HEAD(sync_failure_is_final);
ATF_TC_BODY(sync_failure_is_final, tc)
{
	struct audit_record	 ar;
	struct audit		*a;
	pid_t			 pid;
	int			 status;

	setup();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((a = audit_open(DB)) == NULL)
			_exit(10);
		mkkind(&ar, AUDIT_K_CALL_RESULT);
		if (audit_append(a, &ar) == -1 || audit_durable(a) != 0 ||
		    sync_fails() == -1)
			_exit(11);
		capture();
		if (audit_sync(a) != -1 || audit_durable(a) != 0)
			_exit(12);
		fprintf(stderr, "logged: %s", logged);
		if (nlogged != 1 || strcmp(logged, "audit: sync: sqlite "
		    "error 1034\n") != 0)
			_exit(13);
		if (audit_append(a, &ar) != -1 || audit_sync(a) != -1 ||
		    nlogged != 3)
			_exit(14);
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(WIFEXITED(status));
	ATF_CHECK_EQ(WEXITSTATUS(status), 0);
}

/*
 * The counting VFS, failing the k-th size or sync call on the -wal: the
 * kernel cannot fail one fstat(2) or fdatasync(2) of many, so this is
 * SQLite's error code without the kernel's.
 */
static sqlite3_io_methods	 wfail_methods;
static int			 wfail_op, wfail_at, wfail_n;

static int
wfail_sync(sqlite3_file *f, int flags)
{
	if (wfail_op == 's' && ++wfail_n == wfail_at)
		return (SQLITE_IOERR_FSYNC);
	return (cnt_sync(f, flags));
}

static int
wfail_size(sqlite3_file *f, sqlite3_int64 *size)
{
	if (wfail_op == 'z' && ++wfail_n == wfail_at)
		return (SQLITE_IOERR_FSTAT);
	return (cnt_size(f, size));
}

static int
wfail_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
    int *outflags)
{
	int	 rc;

	if ((rc = cnt_open(vfs, name, f, flags, outflags)) == SQLITE_OK &&
	    (flags & SQLITE_OPEN_WAL))
		f->pMethods = &wfail_methods;
	return (rc);
}

/*
 * Status 0: the open failed, said once; 1: no k-th call, and the open
 * left nothing of the -wal unsynced; more: wrong.
 */
static int
wfail_child(int op, int k)
{
	struct audit	*a;
	pid_t		 pid;
	int		 reached, status, unsynced;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		cnt_install();
		wfail_methods = cnt_methods;
		wfail_methods.xSync = wfail_sync;
		wfail_methods.xFileSize = wfail_size;
		cnt_vfs.xOpen = wfail_open;
		wfail_op = op;
		wfail_at = k;
		capture();
		a = audit_open(DB);
		reached = wfail_n >= k;
		unsynced = cnt_wal_unsynced;
		wfail_op = 0;
		audit_close(a);
		/* Unfailed, the -wal's blocks are synced once written. */
		if (!reached)
			_exit(a != NULL && nlogged == 0 && unsynced == 0 ?
			    1 : 20);
		_exit(a == NULL && nlogged == 1 ? 0 : 21);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

ATF_TC_WITHOUT_HEAD(open_wal_failure_refused);
ATF_TC_BODY(open_wal_failure_refused, tc)
{
	static const int	 ops[] = { 's', 'z' };
	size_t			 i;
	int			 k, st;

	setup();
	for (i = 0; i < nitems(ops); i++) {
		for (k = 1; k < 100; k++) {
			ATF_REQUIRE(unlink(DB) == 0 || errno == ENOENT);
			unlink(DB "-wal");
			if ((st = wfail_child(ops[i], k)) == 1)
				break;
			ATF_REQUIRE_EQ_MSG(st, 0, "%c call %d failing",
			    ops[i], k);
		}
		ATF_CHECK_MSG(k > 1 && k < 100, "%c: %d calls", ops[i], k);
	}
}

/* A stream already in error is one show cannot have written to. */
ATF_TC_WITHOUT_HEAD(show_stream_in_error_reported);
ATF_TC_BODY(show_stream_in_error_reported, tc)
{
	FILE	*fp;

	setup();
	create(DB);
	ATF_REQUIRE((fp = fopen("/dev/full", "w")) != NULL);
	ATF_REQUIRE(setvbuf(fp, NULL, _IONBF, 0) == 0);
	ATF_REQUIRE(fputc('x', fp) == EOF && ferror(fp));
	capture();
	ATF_CHECK(audit_show(DB, fp, NULL, AUDIT_SHOW_TEXT) == -1);
	ATF_CHECK_EQ(nlogged, 1);
	ATF_CHECK(strncmp(logged, "audit: show", 11) == 0);
	fclose(fp);
}

/*
 * A view named as the table-valued pragma function hides that function
 * from the file's own queries: the journal mode is not read through it.
 */
ATF_TC(verify_refuses_view_claiming_wal);
ATF_TC_HEAD(verify_refuses_view_claiming_wal, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(verify_refuses_view_claiming_wal, tc)
{
	char		 out[64];

	setup();
	create(DB);
	copy(DB, COPY);
	ATF_REQUIRE_EQ(sql(COPY, "PRAGMA journal_mode = DELETE;"
	    " CREATE VIEW pragma_journal_mode AS SELECT 'wal' AS"
	    " journal_mode", NULL, 0), 0);
	/* What a reader of the function in main would see. */
	ATF_REQUIRE_EQ(sql(COPY, "SELECT count(*) FROM pragma_journal_mode"
	    " WHERE journal_mode = 'wal'", out, sizeof(out)), 0);
	ATF_CHECK_STREQ(out, "1\n");
	expect_not_wal();
	/* And then it reads the mode as WAL. */
	ATF_CHECK_EQ(nlogged, 0);
	expect_intact(COPY, NULL, 0);
}

/*
 * The edges of what a record may hold: time 0 (1970) is a time, and a
 * whole second's milliseconds are .000 in either form; a digest
 * one digit short of hex, at its last digit, is no digest even where the
 * bytes before it decode to what was hashed; a seq that is text (a view
 * in the table's place) is no seq.
 */
ATF_TC(record_edges_read_as_written);
ATF_TC_HEAD(record_edges_read_as_written, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "sqlite3");
}
ATF_TC_BODY(record_edges_read_as_written, tc)
{
	struct audit_record	 ar;
	struct audit_tip	 tip;
	struct audit		*a;
	char			 out[OUT_BYTES];
	FILE			*fp;

	setup();
	create(DB);
	copy(DB, COPY);
	mkrec(&ar, VICTIM - 1);
	ar.ar_seq = 1;
	ar.ar_time_ms = 0;
	forge(COPY, &ar);
	expect_intact(COPY, NULL, 1);
	ATF_REQUIRE((fp = fmemopen(out, sizeof(out), "w")) != NULL);
	ATF_CHECK(audit_show(COPY, fp, NULL, AUDIT_SHOW_TEXT) == 0);
	fclose(fp);
	ATF_CHECK(strncmp(out, "1\t1970-01-01T00:00:00.000Z\t", 27) == 0);
	/* A whole second, in JSON. */
	memcpy(ar.ar_prev, ar.ar_hash, sizeof(ar.ar_prev));
	ar.ar_seq = 2;
	ar.ar_time_ms = 1000;
	forge(COPY, &ar);
	ATF_REQUIRE((fp = fmemopen(out, sizeof(out), "w")) != NULL);
	ATF_CHECK(audit_show(COPY, fp, NULL, AUDIT_SHOW_JSON) == 0);
	fclose(fp);
	ATF_CHECK_MSG(strstr(out, "\n{\"seq\":2,\"time\":"
	    "\"1970-01-01T00:00:01.000Z\",") != NULL, "%s", out);
	ATF_REQUIRE((a = audit_open(COPY)) != NULL);
	audit_tip(a, &tip);
	ATF_CHECK_EQ(tip.at_seq, 2);
	audit_close(a);

	/* The request digest's last byte 0, its last digit 'g'. */
	copy(DB, COPY);
	mkrec(&ar, VICTIM - 1);
	ar.ar_seq = 1;
	ar.ar_time_ms = 1000;
	ar.ar_request[AUDIT_DIGEST_BYTES - 1] = 0;
	forge(COPY, &ar);
	ATF_REQUIRE_EQ(sql(COPY, DROP_TRIGGERS "UPDATE audit_records SET"
	    " request_sha256 = substr(request_sha256, 1, 63) || 'g'", NULL,
	    0), 0);
	capture();
	ATF_CHECK(audit_open(COPY) == NULL);
	logged_once("audit: last record is malformed");
	expect_break(COPY, NULL, 1, "digest digit");

	copy(DB, COPY);
	mkrec(&ar, VICTIM - 1);
	ar.ar_seq = 1;
	ar.ar_time_ms = 1000;
	forge(COPY, &ar);
	ATF_REQUIRE_EQ(sql(COPY, "ALTER TABLE audit_records RENAME TO t;"
	    " CREATE VIEW audit_records AS SELECT CAST(seq AS TEXT) AS seq,"
	    " time, session, kind, operation, tool, decision, reason,"
	    " label_before, label_after, request_sha256, response_sha256,"
	    " prev_hash, hash FROM t", NULL, 0), 0);
	expect_break(COPY, NULL, 1, "text seq");
	ATF_CHECK_EQ(nlogged, 0);
}

/* A stream whose first write fails (EIO) and whose later ones would not. */
static size_t	 once_got;
static int	 once_failed;

static ssize_t
once_write(void *cookie, const char *buf, size_t len)
{
	(void)cookie;
	(void)buf;
	if (!once_failed) {
		once_failed = 1;
		errno = EIO;
		return (-1);
	}
	once_got += len;
	return (len);
}

/* Show stops at the first row it cannot write: none after it is written. */
ATF_TC_WITHOUT_HEAD(show_stops_at_first_failed_row);
ATF_TC_BODY(show_stops_at_first_failed_row, tc)
{
	static const cookie_io_functions_t	 once = { NULL, once_write, NULL,
						    NULL };
	struct audit_tip			 tip;
	FILE					*fp;
	int					 mode;

	setup();
	build(DB, &tip);
	for (mode = AUDIT_SHOW_TEXT; mode <= AUDIT_SHOW_JSON; mode++) {
		/* A row a write; the failed one stays in the buffer. */
		ATF_REQUIRE((fp = fopencookie(NULL, "w", once)) != NULL);
		ATF_REQUIRE(setvbuf(fp, NULL, _IOLBF, BUFSIZ) == 0);
		once_got = 0;
		once_failed = 0;
		capture();
		ATF_CHECK(audit_show(DB, fp, NULL, mode) == -1);
		logged_once("audit: show: Input/output error");
		ATF_CHECK_EQ(once_got, 0);
		fclose(fp);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, append_refused_without_a_clock);
	ATF_TP_ADD_TC(tp, commit_failure_reported_once);
	ATF_TP_ADD_TC(tp, sync_failure_is_final);
	ATF_TP_ADD_TC(tp, open_wal_failure_refused);
	ATF_TP_ADD_TC(tp, show_stream_in_error_reported);
	ATF_TP_ADD_TC(tp, verify_refuses_view_claiming_wal);
	ATF_TP_ADD_TC(tp, record_edges_read_as_written);
	ATF_TP_ADD_TC(tp, show_stops_at_first_failed_row);
	ATF_TP_ADD_TC(tp, allocation_failure_reported_once);
	ATF_TP_ADD_TC(tp, verify_intact_chain_passes);
	ATF_TP_ADD_TC(tp, altered_field_detected_at_its_seq);
	ATF_TP_ADD_TC(tp, deleted_row_detected_at_its_seq);
	ATF_TP_ADD_TC(tp, truncated_tail_detected_only_with_tip);
	ATF_TP_ADD_TC(tp, reordered_rows_detected);
	ATF_TP_ADD_TC(tp, rewritten_records_detected);
	ATF_TP_ADD_TC(tp, triggers_refuse_update_and_delete);
	ATF_TP_ADD_TC(tp, reopen_continues_chain);
	ATF_TP_ADD_TC(tp, verify_refused_while_store_open);
	ATF_TP_ADD_TC(tp, reopen_refuses_broken_tip);
	ATF_TP_ADD_TC(tp, record_refuses_oversize_and_foreign_names);
	ATF_TP_ADD_TC(tp, every_kind_and_decision_stored);
	ATF_TP_ADD_TC(tp, hash_encoding_as_documented);
	ATF_TP_ADD_TC(tp, open_refuses_foreign_database);
	ATF_TP_ADD_TC(tp, tip_parse_refuses_malformed);
	ATF_TP_ADD_TC(tp, append_failure_is_final);
	ATF_TP_ADD_TC(tp, durability_by_what_a_record_authorizes);
	ATF_TP_ADD_TC(tp, killed_process_loses_nothing);
	ATF_TP_ADD_TC(tp, wal_reuses_its_blocks);
	ATF_TP_ADD_TC(tp, open_in_missing_directory_refused);
	ATF_TP_ADD_TC(tp, open_close_failure_refused);
	ATF_TP_ADD_TC(tp, open_without_memory_refused);
	ATF_TP_ADD_TC(tp, open_directory_refused);
	ATF_TP_ADD_TC(tp, open_refuses_planted_triggers);
	ATF_TP_ADD_TC(tp, verify_refuses_view_of_unsafe_table);
	ATF_TP_ADD_TC(tp, open_refuses_file_not_database);
	ATF_TP_ADD_TC(tp, open_refuses_other_formats);
	ATF_TP_ADD_TC(tp, verify_refuses_rollback_journal);
	ATF_TP_ADD_TC(tp, append_batch_bounds);
	ATF_TP_ADD_TC(tp, append_time_never_runs_back);
	ATF_TP_ADD_TC(tp, append_failure_rolls_back_batch);
	ATF_TP_ADD_TC(tp, verify_refuses_empty_tip_not_genesis);
	ATF_TP_ADD_TC(tp, malformed_record_refused_by_each_check);
	ATF_TP_ADD_TC(tp, damaged_page_is_a_break);
	ATF_TP_ADD_TC(tp, show_prints_every_field);
	ATF_TP_ADD_TC(tp, show_write_failure_reported);
	ATF_TP_ADD_TC(tp, open_write_failure_refused);
	ATF_TP_ADD_TC(tp, close_of_failed_open_is_noop);
	return (atf_no_error());
}
