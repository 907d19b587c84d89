/*
 * The audit store (DESIGN 9): one SQLite table of fixed records, each
 * carrying the hash of its predecessor, so that a changed, removed or
 * reordered record breaks the chain at a sequence number that
 * audit_verify() reports.  Triggers refuse UPDATE and DELETE; the chain
 * catches what gets past them (a dropped trigger, an edited file).
 *
 * The hash of a record and its encoding are defined in common/auditrec.c;
 * the database stores digests and hashes as 64 lowercase hex digits, and
 * anything else is not a record this module wrote.
 *
 * The first broken sequence number is the smallest s such that records
 * 1 .. s-1 form an intact chain and the database holds no record s that
 * links to s-1 and hashes to its stored hash.  A changed record is
 * reported at its own seq; a deleted one at its own (missing) seq; rows
 * exchanged at the lower seq.  A record rewritten together with its hash
 * is reported at the next seq, whose prev_hash no longer matches; when
 * every later record is rewritten too, or the tail is cut off, only a tip
 * (seq:hash) printed earlier detects it: the break is then the tip's seq
 * if that record's hash differs, or the first missing seq after the end.
 *
 * Errors are logged with fixed strings and SQLite's numeric result code,
 * never with SQLite's message text, which can quote data.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditdb.h"
#include "log.h"
#include "mstime.h"
#include "sha256.h"

#define AUDIT_APPLICATION_ID	1668113264	/* 0x636d6370, "cmcp" */
#define AUDIT_FORMAT		1		/* PRAGMA user_version */
#define AUDIT_WAL_HDR_BYTES	32	/* SQLite's WAL format */
#define AUDIT_WAL_FRAME_HDR	24
#define AUDIT_WAL_SPARE_FRAMES	128	/* a commit past the threshold */
#define AUDIT_ZERO_BYTES	65536
#define AUDIT_STR(x)		AUDIT_XSTR(x)
#define AUDIT_XSTR(x)		#x

struct audit {
	sqlite3			*a_db;
	sqlite3_stmt		*a_begin;
	sqlite3_stmt		*a_insert;
	sqlite3_stmt		*a_commit;
	sqlite3_stmt		*a_rollback;
	struct audit_tip	 a_tip;
	int64_t			 a_time_ms;	/* of the tip */
	uint64_t		 a_durable;	/* seq on stable storage */
	int			 a_synchronous;	/* index into a_sync */
	int			 a_failed;	/* a write failed: refuse more */
};

/* How a commit ends. */
#define AUDIT_SYNC_NONE		0	/* no sync of its own */
#define AUDIT_SYNC_COMMIT	1	/* the -wal synced at commit */

/*
 * PRAGMA synchronous takes effect when it is prepared, not when it runs:
 * it is compiled each time it changes.
 */
static const char *const audit_synchronous[] = {
	[AUDIT_SYNC_NONE] =	"PRAGMA synchronous = NORMAL",
	[AUDIT_SYNC_COMMIT] =	"PRAGMA synchronous = FULL",
};

/*
 * The kind and decision lists repeat the names of common/auditrec.c; the
 * tests append a record of every kind and decision, so the two cannot
 * drift apart.
 */
static const char audit_schema[] =
	"CREATE TABLE audit_records ("
	" seq INTEGER PRIMARY KEY NOT NULL CHECK (seq > 0),"
	" time INTEGER NOT NULL CHECK (time >= 0),"
	" session TEXT NOT NULL,"
	" kind TEXT NOT NULL CHECK (kind IN ('session_start',"
	"  'session_end', 'admission', 'decision', 'call_start',"
	"  'call_result', 'label_change', 'policy_revision', 'watchdog',"
	"  'container', 'violation')),"
	" operation TEXT NOT NULL,"
	" tool TEXT NOT NULL,"
	" decision TEXT NOT NULL CHECK (decision IN ('none', 'allow',"
	"  'deny')),"
	" reason TEXT NOT NULL,"
	" label_before TEXT NOT NULL,"
	" label_after TEXT NOT NULL,"
	" request_sha256 TEXT CHECK (request_sha256 IS NULL OR"
	"  length(request_sha256) = 64),"
	" response_sha256 TEXT CHECK (response_sha256 IS NULL OR"
	"  length(response_sha256) = 64),"
	" prev_hash TEXT NOT NULL CHECK (length(prev_hash) = 64),"
	" hash TEXT NOT NULL CHECK (length(hash) = 64)"
	") STRICT;"
	"CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records"
	" BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;"
	"CREATE TRIGGER audit_records_no_delete BEFORE DELETE ON audit_records"
	" BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;";

#define AUDIT_COLUMNS \
	"seq, time, session, kind, operation, tool, decision, reason," \
	" label_before, label_after, request_sha256, response_sha256," \
	" prev_hash, hash"

/* Column numbers in AUDIT_COLUMNS and parameter numbers - 1 in inserts. */
enum audit_col {
	COL_SEQ,
	COL_TIME,
	COL_SESSION,
	COL_KIND,
	COL_OPERATION,
	COL_TOOL,
	COL_DECISION,
	COL_REASON,
	COL_LABEL_BEFORE,
	COL_LABEL_AFTER,
	COL_REQUEST,
	COL_RESPONSE,
	COL_PREV,
	COL_HASH
};

static int	 audit_exec(sqlite3 *, const char *, const char *);
static int	 audit_step(sqlite3_stmt *, const char *);
static int	 audit_prepare(sqlite3 *, const char *, sqlite3_stmt **,
		    const char *);
static int	 audit_pragma_int(sqlite3 *, const char *, int64_t *);
static int	 audit_schema_check(sqlite3 *, int);
static int	 audit_load_tip(struct audit *);
static int	 audit_wal_file(struct audit *, sqlite3_file **);
static int	 audit_wal_extend(struct audit *);
static int	 audit_insert(struct audit *, const struct audit_record *);
static int	 audit_open_ro(const char *, sqlite3 **);
static int	 audit_row_read(sqlite3_stmt *, struct audit_record *);
static int	 audit_col_name(sqlite3_stmt *, int, char *);
static int	 audit_col_digest(sqlite3_stmt *, int, uint8_t *, int);
static int	 audit_col_code(sqlite3_stmt *, int);
static int	 audit_now_ms(int64_t *);
static int	 audit_show_row(FILE *, const struct audit_record *, int);

/*
 * DURABILITY.  A commit that holds a record authorizing an act
 * (audit_kind_authorizes(): the sender acts once it is acknowledged)
 * ends with the -wal synced, PRAGMA synchronous FULL.  A commit of
 * records that only describe what already happened is written to the
 * -wal without a sync of its own, synchronous NORMAL, switched per
 * commit.  NORMAL, never OFF: in WAL mode it still syncs the -wal before
 * each checkpoint, the database after it and the -wal header when the
 * log starts over, so the database stays consistent across a power loss
 * (SQLite's "PRAGMA synchronous": "WAL mode is always consistent with
 * synchronous=NORMAL"; "transactions are durable across application
 * crashes regardless of the synchronous setting"); OFF would drop those
 * syncs too.  A sync of the -wal is an fdatasync(2) of the whole file,
 * earlier frames included, so the next synced commit makes the unsynced
 * ones before it durable too, in order: a power loss can cost only the
 * descriptive records after the last synced commit, never an authorizing
 * one, and leaves the chain a prefix of itself.  A crash of the process
 * costs nothing: its frames are written, in the kernel's page cache.
 */

/*
 * Open or create the database at path for appending.  Everything that
 * needs a file system call beyond reading and writing the two open files
 * happens here, so the caller may sandbox itself afterwards: the file is
 * created 0600, WAL is set up under an exclusive lock (no -shm file), the
 * statements are prepared and one write leaves the -wal file open.
 */
struct audit *
audit_open(const char *path)
{
	struct audit	*a;
	uint64_t	 seed;
	int		 fd, rc;

	/*
	 * Create the file with our mode; never open one that exists, since
	 * closing any descriptor of a file drops all of the process's
	 * fcntl(2) locks on it, SQLite's exclusive lock among them.
	 */
	if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 && errno != EEXIST) {
		log_warn("audit: create %s", path);
		return (NULL);
	}
	if (fd != -1 && close(fd) == -1) {
		log_warn("audit: close %s", path);
		return (NULL);
	}
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		log_warn("audit: calloc");
		return (NULL);
	}
	/*
	 * SQLite seeds its generator (new WAL salts after a checkpoint) from
	 * /dev/urandom on first use: do that now, not in the sandbox.
	 */
	sqlite3_randomness(sizeof(seed), &seed);
	rc = sqlite3_open_v2(path, &a->a_db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE,
	    NULL);
	if (rc != SQLITE_OK) {
		log_warnx("audit: %s: sqlite open error %d", path, rc);
		goto fail;
	}
	if ((rc = sqlite3_db_config(a->a_db, SQLITE_DBCONFIG_DEFENSIVE, 1,
	    NULL)) != SQLITE_OK ||
	    (rc = sqlite3_db_config(a->a_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA,
	    0, NULL)) != SQLITE_OK) {
		log_warnx("audit: db_config: sqlite error %d", rc);
		goto fail;
	}

	/*
	 * The lock mode first: in WAL mode it keeps the index in memory.
	 * Until the first append, every commit is synced.
	 */
	a->a_synchronous = AUDIT_SYNC_COMMIT;
	if (audit_exec(a->a_db, "PRAGMA locking_mode = EXCLUSIVE",
	    "locking mode") == -1 ||
	    audit_exec(a->a_db, "PRAGMA journal_mode = WAL",
	    "journal mode") == -1 ||
	    audit_exec(a->a_db, audit_synchronous[a->a_synchronous],
	    "synchronous") == -1 ||
	    audit_exec(a->a_db, "PRAGMA temp_store = MEMORY",
	    "temp store") == -1)
		goto fail;
	if (audit_schema_check(a->a_db, 1) == -1)
		goto fail;

	if (audit_prepare(a->a_db, "BEGIN IMMEDIATE", &a->a_begin,
	    "begin") == -1 ||
	    audit_prepare(a->a_db, "COMMIT", &a->a_commit, "commit") == -1 ||
	    audit_prepare(a->a_db, "ROLLBACK", &a->a_rollback,
	    "rollback") == -1 ||
	    audit_prepare(a->a_db, "INSERT INTO audit_records (" AUDIT_COLUMNS
	    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
	    " ?14)", &a->a_insert, "insert") == -1)
		goto fail;
	if (audit_load_tip(a) == -1)
		goto fail;

	/*
	 * The warm-up write: it takes the exclusive lock for good and
	 * leaves the -wal file open, so appends need no open(2) later.
	 */
	if (audit_exec(a->a_db, "BEGIN IMMEDIATE; PRAGMA user_version = "
	    AUDIT_STR(AUDIT_FORMAT) "; COMMIT", "warm-up write") == -1)
		goto fail;
	/* Synced: it covers whatever the -wal held (DURABILITY above). */
	a->a_durable = a->a_tip.at_seq;
	if (audit_wal_extend(a) == -1)
		goto fail;
	return (a);

 fail:
	audit_close(a);
	return (NULL);
}

void
audit_close(struct audit *a)
{
	if (a == NULL)
		return;
	/* Finalizing reports the last step's error again; ignore it. */
	sqlite3_finalize(a->a_begin);
	sqlite3_finalize(a->a_insert);
	sqlite3_finalize(a->a_commit);
	sqlite3_finalize(a->a_rollback);
	if (sqlite3_close(a->a_db) != SQLITE_OK)
		log_warnx("audit: close: statements left open");
	free(a);
}

int
audit_append(struct audit *a, struct audit_record *ar)
{
	return (audit_append_batch(a, ar, 1));
}

/*
 * Append n records in one transaction.  On return 0 all of them are
 * committed, and on stable storage if one of them authorizes an act
 * (audit_durable() then reaches the last): see DURABILITY above.
 * Invalid records are refused before anything is written.  A failure
 * after that leaves the store refusing every later append: the caller
 * cannot know what reached the disk, so it must not act as if audited.
 */
int
audit_append_batch(struct audit *a, struct audit_record *ar, size_t n)
{
	struct audit_tip	 tip;
	int64_t			 now;
	size_t			 i;
	int			 sync = AUDIT_SYNC_NONE;

	if (a->a_failed) {
		log_warnx("audit: append refused after an earlier failure");
		return (-1);
	}
	if (n == 0 || n > AUDIT_BATCH_MAX ||
	    a->a_tip.at_seq > (uint64_t)INT64_MAX - n) {
		log_warnx("audit: batch of %zu records refused", n);
		return (-1);
	}
	for (i = 0; i < n; i++) {
		if (audit_record_check(&ar[i]) == -1) {
			log_warnx("audit: invalid record refused");
			return (-1);
		}
		if (audit_kind_authorizes(ar[i].ar_kind))
			sync = AUDIT_SYNC_COMMIT;
	}
	if (audit_now_ms(&now) == -1)
		return (-1);
	/* Time never runs backwards in the log, even if the clock does. */
	if (now < a->a_time_ms)
		now = a->a_time_ms;

	tip = a->a_tip;
	/* Outside a transaction: the setting holds for the next commit. */
	if (sync != a->a_synchronous) {
		if (audit_exec(a->a_db, audit_synchronous[sync],
		    "synchronous") == -1)
			goto fail;
		a->a_synchronous = sync;
	}
	if (audit_step(a->a_begin, "begin") == -1)
		goto fail;
	for (i = 0; i < n; i++) {
		ar[i].ar_seq = tip.at_seq + 1;
		ar[i].ar_time_ms = now;
		memcpy(ar[i].ar_prev, tip.at_hash, sizeof(ar[i].ar_prev));
		audit_record_hash(&ar[i], ar[i].ar_hash);
		if (audit_insert(a, &ar[i]) == -1)
			goto rollback;
		tip.at_seq = ar[i].ar_seq;
		memcpy(tip.at_hash, ar[i].ar_hash, sizeof(tip.at_hash));
	}
	if (audit_step(a->a_commit, "commit") == -1)
		goto rollback;
	a->a_tip = tip;
	a->a_time_ms = now;
	if (sync == AUDIT_SYNC_COMMIT)
		a->a_durable = tip.at_seq;
	return (0);

 rollback:
	/* A failed COMMIT may have rolled back already. */
	if (sqlite3_get_autocommit(a->a_db) == 0)
		(void)audit_step(a->a_rollback, "rollback");
 fail:
	a->a_failed = 1;
	return (-1);
}

void
audit_tip(const struct audit *a, struct audit_tip *tip)
{
	*tip = a->a_tip;
}

/* The last seq known to be on stable storage. */
uint64_t
audit_durable(const struct audit *a)
{
	return (a->a_durable);
}

/*
 * Make every committed record durable: sync the -wal if a commit since
 * the last synced one was not (SQLite's handle of the open -wal file, as
 * its own commit would).  A failure is final, as for an append.
 */
int
audit_sync(struct audit *a)
{
	sqlite3_file	*wal;
	int		 rc;

	if (a->a_failed) {
		log_warnx("audit: sync refused after an earlier failure");
		return (-1);
	}
	if (a->a_durable == a->a_tip.at_seq)
		return (0);
	if (audit_wal_file(a, &wal) == -1) {
		a->a_failed = 1;
		return (-1);
	}
	if ((rc = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL)) !=
	    SQLITE_OK) {
		log_warnx("audit: sync: sqlite error %d", rc);
		a->a_failed = 1;
		return (-1);
	}
	a->a_durable = a->a_tip.at_seq;
	return (0);
}

/*
 * Walk the chain of the database at path in seq order.  Returns
 * AUDIT_VERIFY_OK, or AUDIT_VERIFY_BROKEN with *first_bad set to the
 * first broken seq (defined at the top of this file), or -1 when the
 * database cannot be read at all.  With a tip, the chain must also hold
 * a record tip->at_seq whose hash is tip->at_hash.  *nrecords is the
 * number of records verified: the length of the intact prefix.
 */
int
audit_verify(const char *path, const struct audit_tip *tip,
    uint64_t *first_bad, uint64_t *nrecords)
{
	struct audit_record	 ar;
	sqlite3			*db;
	sqlite3_stmt		*st;
	uint8_t			 prev[AUDIT_DIGEST_BYTES];
	uint8_t			 h[AUDIT_DIGEST_BYTES];
	uint64_t		 expect;
	int			 rc, ret = -1;

	*first_bad = *nrecords = 0;
	if (tip != NULL && tip->at_seq == 0 &&
	    memcmp(tip->at_hash, audit_genesis, sizeof(audit_genesis)) != 0) {
		log_warnx("audit: tip with seq 0 is not the genesis");
		return (-1);
	}
	if (audit_open_ro(path, &db) == -1)
		return (-1);
	if (audit_prepare(db, "SELECT " AUDIT_COLUMNS " FROM audit_records"
	    " ORDER BY seq", &st, "select") == -1) {
		sqlite3_close(db);
		return (-1);
	}

	memcpy(prev, audit_genesis, sizeof(prev));
	expect = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (audit_row_read(st, &ar) == -1 || ar.ar_seq != expect ||
		    memcmp(ar.ar_prev, prev, sizeof(prev)) != 0)
			break;
		audit_record_hash(&ar, h);
		if (memcmp(h, ar.ar_hash, sizeof(h)) != 0)
			break;
		if (tip != NULL && ar.ar_seq == tip->at_seq &&
		    memcmp(h, tip->at_hash, sizeof(h)) != 0)
			break;
		memcpy(prev, h, sizeof(prev));
		expect++;
	}
	*nrecords = expect - 1;
	switch (rc) {
	case SQLITE_ROW:
		*first_bad = expect;
		ret = AUDIT_VERIFY_BROKEN;
		break;
	case SQLITE_DONE:
		if (tip != NULL && tip->at_seq > expect - 1) {
			*first_bad = expect;
			ret = AUDIT_VERIFY_BROKEN;
		} else
			ret = AUDIT_VERIFY_OK;
		break;
	default:
		/* A damaged page is a break too; other errors are not. */
		if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) ==
		    SQLITE_NOTADB) {
			*first_bad = expect;
			ret = AUDIT_VERIFY_BROKEN;
		} else
			log_warnx("audit: select: sqlite error %d", rc);
		break;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return (ret);
}

/*
 * Print the records of the database at path (of one session if session
 * is not NULL) to fp, one per line: tab-separated fields in schema order
 * with "-" for an empty name or absent digest, or one JSON object a line.
 */
int
audit_show(const char *path, FILE *fp, const char *session, int mode)
{
	struct audit_record	 ar;
	sqlite3			*db;
	sqlite3_stmt		*st;
	uint64_t		 last = 0;
	int			 rc, ret = -1;

	if (audit_open_ro(path, &db) == -1)
		return (-1);
	if (audit_prepare(db, session == NULL ?
	    "SELECT " AUDIT_COLUMNS " FROM audit_records ORDER BY seq" :
	    "SELECT " AUDIT_COLUMNS " FROM audit_records WHERE session = ?1"
	    " ORDER BY seq", &st, "select") == -1) {
		sqlite3_close(db);
		return (-1);
	}
	if (session != NULL && (rc = sqlite3_bind_text(st, 1, session, -1,
	    SQLITE_STATIC)) != SQLITE_OK) {
		log_warnx("audit: bind: sqlite error %d", rc);
		goto done;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (audit_row_read(st, &ar) == -1) {
			log_warnx("audit: malformed record after seq %llu",
			    (unsigned long long)last);
			goto done;
		}
		if (audit_show_row(fp, &ar, mode) == -1)
			goto done;
		last = ar.ar_seq;
	}
	if (rc != SQLITE_DONE) {
		log_warnx("audit: select: sqlite error %d", rc);
		goto done;
	}
	if (fflush(fp) == EOF || ferror(fp)) {
		log_warn("audit: show");
		goto done;
	}
	ret = 0;
 done:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return (ret);
}

static int
audit_exec(sqlite3 *db, const char *sql, const char *what)
{
	int	 rc;

	if ((rc = sqlite3_exec(db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
		log_warnx("audit: %s: sqlite error %d", what, rc);
		return (-1);
	}
	return (0);
}

/* Run a statement that returns no row, and make it ready to run again. */
static int
audit_step(sqlite3_stmt *st, const char *what)
{
	int	 rc;

	rc = sqlite3_step(st);
	if (sqlite3_reset(st) != SQLITE_OK || rc != SQLITE_DONE) {
		log_warnx("audit: %s: sqlite error %d", what, rc);
		return (-1);
	}
	return (0);
}

static int
audit_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st,
    const char *what)
{
	int	 rc;

	if ((rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    st, NULL)) != SQLITE_OK) {
		log_warnx("audit: prepare %s: sqlite error %d", what, rc);
		*st = NULL;
		return (-1);
	}
	return (0);
}

/* Run a PRAGMA that returns one integer. */
static int
audit_pragma_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt	*st;
	int		 rc, ret = -1;

	if (audit_prepare(db, sql, &st, "pragma") == -1)
		return (-1);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		*v = sqlite3_column_int64(st, 0);
		ret = 0;
	} else if ((rc & 0xff) == SQLITE_BUSY)
		/* The first read of a connection: the lock is taken here. */
		log_warnx("audit: database locked by another process");
	else
		log_warnx("audit: pragma: sqlite error %d", rc);
	sqlite3_finalize(st);
	return (ret);
}

/*
 * Is this our database?  An empty file becomes one when create is set;
 * anything else, or ours in a format we do not know, is refused.  It must
 * be in WAL mode, read in temp: in main, a view of the file may hide it.
 */
static int
audit_schema_check(sqlite3 *db, int create)
{
	int64_t		 appid, format, ntables, wal;

	if (audit_pragma_int(db, "PRAGMA application_id", &appid) == -1 ||
	    audit_pragma_int(db, "PRAGMA user_version", &format) == -1 ||
	    audit_pragma_int(db, "SELECT count(*) FROM sqlite_schema",
	    &ntables) == -1 ||
	    audit_pragma_int(db, "SELECT count(*) FROM"
	    " temp.pragma_journal_mode WHERE journal_mode = 'wal'", &wal) == -1)
		return (-1);
	if (wal != 1) {
		log_warnx("audit: database is not in WAL mode");
		return (-1);
	}
	if (appid == AUDIT_APPLICATION_ID && format == AUDIT_FORMAT)
		return (0);
	if (appid != 0 || format != 0 || ntables != 0 || !create) {
		log_warnx("audit: not an audit database of format %d",
		    AUDIT_FORMAT);
		return (-1);
	}
	if (audit_exec(db, "BEGIN EXCLUSIVE", "create") == -1 ||
	    audit_exec(db, audit_schema, "create schema") == -1 ||
	    audit_exec(db, "PRAGMA application_id = "
	    AUDIT_STR(AUDIT_APPLICATION_ID) "; PRAGMA user_version = "
	    AUDIT_STR(AUDIT_FORMAT), "create format") == -1 ||
	    audit_exec(db, "COMMIT", "create commit") == -1) {
		if (sqlite3_get_autocommit(db) == 0)
			(void)audit_exec(db, "ROLLBACK", "create rollback");
		return (-1);
	}
	return (0);
}

/* SQLite's handle of the open -wal file. */
static int
audit_wal_file(struct audit *a, sqlite3_file **wal)
{
	int	 rc;

	*wal = NULL;
	if ((rc = sqlite3_file_control(a->a_db, "main",
	    SQLITE_FCNTL_JOURNAL_POINTER, wal)) != SQLITE_OK ||
	    *wal == NULL || (*wal)->pMethods == NULL) {
		log_warnx("audit: no -wal file: sqlite error %d", rc);
		return (-1);
	}
	return (0);
}

/*
 * Give the -wal file, once, the blocks it will use, so that commits
 * overwrite them instead of growing the file.  SQLite starts the log over
 * after a checkpoint (every PRAGMA wal_autocheckpoint pages, 1000) and
 * never shrinks it (journal_size_limit stays -1), and in the sandbox the
 * -wal is not removed at close, so it keeps its size across sessions;
 * only a new -wal grows, for about its first 900 commits.  Measured on
 * the test host (ext4 on a virtio disk, bench/audit and one-record
 * commits): 4 KiB + fdatasync 115-125 us p50 over written blocks,
 * 200-390 us appending; a durable commit 243-302 us p50 while a new -wal
 * grows, 127-131 us once it starts over, and 132-144 us over the blocks
 * given here, which cost 6 ms once (4.6 MB).  Zeros past the last frame are
 * never frames (each carries the log's salt and a running checksum), and
 * they are written, not fallocate(2)'d: unwritten extents would cost a
 * journal commit at their first sync, as growth does.  Under the
 * exclusive lock, so nobody else writes the log.
 */
static int
audit_wal_extend(struct audit *a)
{
	static const char	 zero[AUDIT_ZERO_BYTES];
	sqlite3_file		*wal;
	sqlite3_int64		 size, want;
	int64_t			 page, ckpt;
	int			 n, rc;

	if (audit_pragma_int(a->a_db, "PRAGMA page_size", &page) == -1 ||
	    audit_pragma_int(a->a_db, "PRAGMA wal_autocheckpoint",
	    &ckpt) == -1 || audit_wal_file(a, &wal) == -1)
		return (-1);
	if (page <= 0 || ckpt <= 0)
		return (0);
	want = AUDIT_WAL_HDR_BYTES + (ckpt + AUDIT_WAL_SPARE_FRAMES) *
	    (AUDIT_WAL_FRAME_HDR + page);
	if ((rc = wal->pMethods->xFileSize(wal, &size)) != SQLITE_OK) {
		log_warnx("audit: -wal size: sqlite error %d", rc);
		return (-1);
	}
	if (size >= want)
		return (0);
	for (; size < want; size += n) {
		n = want - size < (sqlite3_int64)sizeof(zero) ?
		    (int)(want - size) : (int)sizeof(zero);
		if ((rc = wal->pMethods->xWrite(wal, zero, n, size)) !=
		    SQLITE_OK) {
			log_warnx("audit: -wal extend: sqlite error %d", rc);
			return (-1);
		}
	}
	if ((rc = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL)) !=
	    SQLITE_OK) {
		log_warnx("audit: -wal extend sync: sqlite error %d", rc);
		return (-1);
	}
	return (0);
}

/* Continue the chain from its last record, which must verify itself. */
static int
audit_load_tip(struct audit *a)
{
	struct audit_record	 ar;
	sqlite3_stmt		*st;
	uint8_t			 h[AUDIT_DIGEST_BYTES];
	int			 rc, ret = -1;

	if (audit_prepare(a->a_db, "SELECT " AUDIT_COLUMNS " FROM"
	    " audit_records ORDER BY seq DESC LIMIT 1", &st, "tip") == -1)
		return (-1);
	switch ((rc = sqlite3_step(st))) {
	case SQLITE_DONE:
		a->a_tip.at_seq = 0;
		memcpy(a->a_tip.at_hash, audit_genesis, sizeof(audit_genesis));
		a->a_time_ms = 0;
		ret = 0;
		break;
	case SQLITE_ROW:
		if (audit_row_read(st, &ar) == -1) {
			log_warnx("audit: last record is malformed");
			break;
		}
		audit_record_hash(&ar, h);
		if (memcmp(h, ar.ar_hash, sizeof(h)) != 0) {
			log_warnx("audit: last record does not verify");
			break;
		}
		a->a_tip.at_seq = ar.ar_seq;
		memcpy(a->a_tip.at_hash, h, sizeof(h));
		a->a_time_ms = ar.ar_time_ms;
		ret = 0;
		break;
	default:
		log_warnx("audit: tip: sqlite error %d", rc);
		break;
	}
	sqlite3_finalize(st);
	return (ret);
}

static int
audit_insert(struct audit *a, const struct audit_record *ar)
{
	sqlite3_stmt	*st = a->a_insert;
	char		 req[AUDIT_HEX_BYTES], resp[AUDIT_HEX_BYTES];
	char		 prev[AUDIT_HEX_BYTES], hash[AUDIT_HEX_BYTES];
	int		 rc;

	sha256_hex(ar->ar_request, req);
	sha256_hex(ar->ar_response, resp);
	sha256_hex(ar->ar_prev, prev);
	sha256_hex(ar->ar_hash, hash);

	if ((rc = sqlite3_bind_int64(st, COL_SEQ + 1, ar->ar_seq)) ||
	    (rc = sqlite3_bind_int64(st, COL_TIME + 1, ar->ar_time_ms)) ||
	    (rc = sqlite3_bind_text(st, COL_SESSION + 1, ar->ar_session, -1,
	    SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_KIND + 1,
	    audit_kind_name(ar->ar_kind), -1, SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_OPERATION + 1, ar->ar_operation,
	    -1, SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_TOOL + 1, ar->ar_tool, -1,
	    SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_DECISION + 1,
	    audit_decision_name(ar->ar_decision), -1, SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_REASON + 1, ar->ar_reason, -1,
	    SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_LABEL_BEFORE + 1,
	    ar->ar_label_before, -1, SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_LABEL_AFTER + 1,
	    ar->ar_label_after, -1, SQLITE_STATIC)) ||
	    (rc = (ar->ar_flags & AUDIT_HAS_REQUEST) ?
	    sqlite3_bind_text(st, COL_REQUEST + 1, req, -1, SQLITE_STATIC) :
	    sqlite3_bind_null(st, COL_REQUEST + 1)) ||
	    (rc = (ar->ar_flags & AUDIT_HAS_RESPONSE) ?
	    sqlite3_bind_text(st, COL_RESPONSE + 1, resp, -1, SQLITE_STATIC) :
	    sqlite3_bind_null(st, COL_RESPONSE + 1)) ||
	    (rc = sqlite3_bind_text(st, COL_PREV + 1, prev, -1,
	    SQLITE_STATIC)) ||
	    (rc = sqlite3_bind_text(st, COL_HASH + 1, hash, -1,
	    SQLITE_STATIC))) {
		log_warnx("audit: bind: sqlite error %d", rc);
		sqlite3_clear_bindings(st);
		return (-1);
	}
	rc = audit_step(st, "insert");
	/* The bound buffers die with this frame. */
	sqlite3_clear_bindings(st);
	return (rc);
}

/*
 * Open for reading only, in the shared lock mode: an exclusive lock
 * needs a descriptor open for writing.  A reader of a WAL database uses
 * the -shm index, which SQLite makes (owned like the database) when it
 * is missing; a running auditor holds its exclusive lock, so this then
 * fails as busy instead of reading a chain that is growing.
 */
static int
audit_open_ro(const char *path, sqlite3 **db)
{
	int	 rc;

	rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE,
	    NULL);
	if (rc != SQLITE_OK) {
		log_warnx("audit: %s: sqlite open error %d", path, rc);
		goto fail;
	}
	if ((rc = sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0,
	    NULL)) != SQLITE_OK) {
		log_warnx("audit: db_config: sqlite error %d", rc);
		goto fail;
	}
	if (audit_schema_check(*db, 0) == -1)
		goto fail;
	return (0);
 fail:
	sqlite3_close(*db);
	*db = NULL;
	return (-1);
}

/*
 * Read the current row into ar, refusing anything audit_append() could
 * not have written: a wrong type, an oversize or foreign name, an unknown
 * kind, a digest that is not 64 lowercase hex digits.
 */
static int
audit_row_read(sqlite3_stmt *st, struct audit_record *ar)
{
	int	 k, d;

	memset(ar, 0, sizeof(*ar));
	if (sqlite3_column_type(st, COL_SEQ) != SQLITE_INTEGER ||
	    sqlite3_column_type(st, COL_TIME) != SQLITE_INTEGER)
		return (-1);
	if (sqlite3_column_int64(st, COL_SEQ) <= 0 ||
	    (ar->ar_time_ms = sqlite3_column_int64(st, COL_TIME)) < 0)
		return (-1);
	ar->ar_seq = sqlite3_column_int64(st, COL_SEQ);
	if ((k = audit_col_code(st, COL_KIND)) == -1 ||
	    (d = audit_col_code(st, COL_DECISION)) == -1)
		return (-1);
	ar->ar_kind = k;
	ar->ar_decision = d;
	if (audit_col_name(st, COL_SESSION, ar->ar_session) == -1 ||
	    audit_col_name(st, COL_OPERATION, ar->ar_operation) == -1 ||
	    audit_col_name(st, COL_TOOL, ar->ar_tool) == -1 ||
	    audit_col_name(st, COL_REASON, ar->ar_reason) == -1 ||
	    audit_col_name(st, COL_LABEL_BEFORE, ar->ar_label_before) == -1 ||
	    audit_col_name(st, COL_LABEL_AFTER, ar->ar_label_after) == -1)
		return (-1);
	switch (audit_col_digest(st, COL_REQUEST, ar->ar_request, 1)) {
	case 1:
		ar->ar_flags |= AUDIT_HAS_REQUEST;
		break;
	case -1:
		return (-1);
	}
	switch (audit_col_digest(st, COL_RESPONSE, ar->ar_response, 1)) {
	case 1:
		ar->ar_flags |= AUDIT_HAS_RESPONSE;
		break;
	case -1:
		return (-1);
	}
	if (audit_col_digest(st, COL_PREV, ar->ar_prev, 0) != 1 ||
	    audit_col_digest(st, COL_HASH, ar->ar_hash, 0) != 1)
		return (-1);
	return (audit_record_check(ar));
}

static int
audit_col_name(sqlite3_stmt *st, int col, char *dst)
{
	const unsigned char	*s;
	int			 len;

	if (sqlite3_column_type(st, col) != SQLITE_TEXT ||
	    (s = sqlite3_column_text(st, col)) == NULL ||
	    (len = sqlite3_column_bytes(st, col)) >= AUDIT_NAME_BYTES ||
	    memchr(s, '\0', len) != NULL)
		return (-1);
	memcpy(dst, s, len);
	dst[len] = '\0';
	return (0);
}

/* 1 if a digest was read, 0 if the column is NULL and may be, or -1. */
static int
audit_col_digest(sqlite3_stmt *st, int col, uint8_t *dst, int nullable)
{
	const unsigned char	*s;

	if (nullable && sqlite3_column_type(st, col) == SQLITE_NULL)
		return (0);
	if (sqlite3_column_type(st, col) != SQLITE_TEXT ||
	    (s = sqlite3_column_text(st, col)) == NULL ||
	    audit_unhex((const char *)s, sqlite3_column_bytes(st, col),
	    dst) == -1)
		return (-1);
	return (1);
}

/* The kind or decision code whose name the column holds, or -1. */
static int
audit_col_code(sqlite3_stmt *st, int col)
{
	const unsigned char	*s;
	const char		*n;
	int			 i, len, max;

	if (sqlite3_column_type(st, col) != SQLITE_TEXT ||
	    (s = sqlite3_column_text(st, col)) == NULL)
		return (-1);
	len = sqlite3_column_bytes(st, col);
	max = col == COL_KIND ? AUDIT_K_MAX : AUDIT_D_MAX;
	for (i = 1; i < max; i++) {
		n = col == COL_KIND ? audit_kind_name(i) :
		    audit_decision_name(i);
		if ((size_t)len == strlen(n) && memcmp(s, n, len) == 0)
			return (i);
	}
	return (-1);
}

static int
audit_now_ms(int64_t *ms)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1) {
		log_warn("audit: clock_gettime");
		return (-1);
	}
	if (ts.tv_sec < 0) {
		log_warnx("audit: clock before 1970");
		return (-1);
	}
	*ms = timespec_to_ms(&ts);
	return (0);
}

static int
audit_show_row(FILE *fp, const struct audit_record *ar, int mode)
{
	struct tm	 tm;
	time_t		 t;
	char		 when[32], req[AUDIT_HEX_BYTES], resp[AUDIT_HEX_BYTES];
	char		 prev[AUDIT_HEX_BYTES], hash[AUDIT_HEX_BYTES];
	int		 n;

	t = ar->ar_time_ms / 1000;
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return (-1);
	sha256_hex(ar->ar_request, req);
	sha256_hex(ar->ar_response, resp);
	sha256_hex(ar->ar_prev, prev);
	sha256_hex(ar->ar_hash, hash);

	/*
	 * audit_row_read() checked every name: printable ASCII without
	 * '"' and '\\', so none needs escaping, in JSON or on a terminal.
	 */
	if (mode == AUDIT_SHOW_JSON)
		n = fprintf(fp, "{\"seq\":%llu,\"time\":\"%s.%03dZ\","
		    "\"session\":\"%s\",\"kind\":\"%s\",\"operation\":\"%s\","
		    "\"tool\":\"%s\",\"decision\":\"%s\",\"reason\":\"%s\","
		    "\"label_before\":\"%s\",\"label_after\":\"%s\","
		    "\"request_sha256\":%s%s%s,\"response_sha256\":%s%s%s,"
		    "\"prev_hash\":\"%s\",\"hash\":\"%s\"}\n",
		    (unsigned long long)ar->ar_seq, when,
		    (int)(ar->ar_time_ms % 1000), ar->ar_session,
		    audit_kind_name(ar->ar_kind), ar->ar_operation,
		    ar->ar_tool, audit_decision_name(ar->ar_decision),
		    ar->ar_reason, ar->ar_label_before, ar->ar_label_after,
		    (ar->ar_flags & AUDIT_HAS_REQUEST) ? "\"" : "",
		    (ar->ar_flags & AUDIT_HAS_REQUEST) ? req : "null",
		    (ar->ar_flags & AUDIT_HAS_REQUEST) ? "\"" : "",
		    (ar->ar_flags & AUDIT_HAS_RESPONSE) ? "\"" : "",
		    (ar->ar_flags & AUDIT_HAS_RESPONSE) ? resp : "null",
		    (ar->ar_flags & AUDIT_HAS_RESPONSE) ? "\"" : "",
		    prev, hash);
	else
		n = fprintf(fp, "%llu\t%s.%03dZ\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s"
		    "\t%s\t%s\t%s\t%s\n",
		    (unsigned long long)ar->ar_seq, when,
		    (int)(ar->ar_time_ms % 1000), ar->ar_session,
		    audit_kind_name(ar->ar_kind),
		    ar->ar_operation[0] ? ar->ar_operation : "-",
		    ar->ar_tool[0] ? ar->ar_tool : "-",
		    audit_decision_name(ar->ar_decision),
		    ar->ar_reason[0] ? ar->ar_reason : "-",
		    ar->ar_label_before[0] ? ar->ar_label_before : "-",
		    ar->ar_label_after[0] ? ar->ar_label_after : "-",
		    (ar->ar_flags & AUDIT_HAS_REQUEST) ? req : "-",
		    (ar->ar_flags & AUDIT_HAS_RESPONSE) ? resp : "-",
		    prev, hash);
	if (n < 0) {
		log_warn("audit: show");
		return (-1);
	}
	return (0);
}
