/*
 * Audit store benchmark (issue 5): durable appends per second with one
 * record per transaction (what "audit before act" costs per decision),
 * the same with group commit of -b records, descriptive records one per
 * transaction (committed without a sync of their own), and the time
 * audit_verify() takes over a chain of -n records (median of three
 * runs).  Prints a table on stdout and, with -o, the figures as
 * "metric<TAB>value<TAB>unit" lines.
 *
 * The device is measured first, in the same run, on the databases' file
 * system: one 4 KiB overwrite + fdatasync(2) (what a commit into a WAL
 * that reuses its blocks costs at least), one 4 KiB append + fdatasync
 * (the file grows: its size is metadata to sync too), and a process
 * round trip over a socketpair, the unit of the suite's own hops.  The
 * targets of issue 12 are printed as ratios of figures of this run.
 * With -p, only the device and the round trip are measured (bench/calls
 * uses that for its own run).
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditdb.h"
#include "log.h"
#include "sha256.h"

#define BENCH_SECONDS		3
#define BENCH_BATCH		32
#define BENCH_VERIFY_RECORDS	1000000
#define BENCH_SAMPLES_MAX	(1024 * 1024)
#define BENCH_VERIFY_RUNS	3	/* the median is reported */
#define BENCH_PAGE_BYTES	4096
#define BENCH_OVERWRITE_PAGES	256	/* the file overwritten, 1 MiB */
#define BENCH_RTT_BYTES		64	/* a small imsg */
#define BENCH_RTT_ROUNDS	20000

/* Targets of issue 12, as ratios. */
#define TARGET_WAIT_OVER_SYNC	1.3	/* durable wait / overwrite sync */
#define TARGET_RATE_OVER_SYNC	0.9	/* durable decisions / sync rate */

struct bench_result {
	double		 fsync_per_s;	/* overwrite + fdatasync */
	double		 overwrite_p50_us;
	double		 append_p50_us;
	double		 rtt_p50_us;
	double		 descriptive_per_s;
	double		 descriptive_p50_us;
	double		 single_per_s;
	double		 single_p50_us;
	double		 single_p99_us;
	double		 grouped_per_s;
	double		 grouped_commit_p99_us;
	double		 build_s;
	double		 verify_s;	/* median of the runs */
	double		 verify_min_s;
	double		 verify_max_s;
	double		 verify_cpu_s;	/* of the median run */
	off_t		 verify_db_bytes;
};

static __dead void	 usage(void);
static double		 now_s(void);
static double		 cpu_s(void);
static void		 mkrec(struct audit_record *, enum audit_kind,
			    uint64_t);
static void		 db_path(char *, size_t, const char *, const char *);
static void		 db_remove(const char *);
static double		 p50(void);
static void		 run_sync(const char *, int, int, double *, double *);
static void		 run_rtt(double *);
static void		 run_appends(const char *, size_t, int, int,
			    double *, double *, double *);
static void		 run_verify(const char *, uint64_t,
			    struct bench_result *);
static int		 cmp_double(const void *, const void *);
static void		 report_device(FILE *, const struct bench_result *);
static void		 report(FILE *, const struct bench_result *, size_t,
			    uint64_t);
static void		 report_device_tsv(FILE *,
			    const struct bench_result *);
static void		 report_tsv(FILE *, const struct bench_result *,
			    size_t, uint64_t);

static struct audit_record	 recs[AUDIT_BATCH_MAX];
static double			*samples;
static size_t			 nsamples;
static int			 seconds = BENCH_SECONDS;

static __dead void
usage(void)
{
	fprintf(stderr, "usage: audit [-p] [-b batch] [-n records] "
	    "[-o tsv] [-s seconds] dir\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	struct bench_result	 r;
	const char		*errstr, *dir, *tsv = NULL;
	char			 path[PATH_MAX];
	FILE			*fp;
	size_t			 batch = BENCH_BATCH;
	uint64_t		 nverify = BENCH_VERIFY_RECORDS;
	int			 ch, probe = 0;

	while ((ch = getopt(argc, argv, "b:n:o:ps:")) != -1) {
		switch (ch) {
		case 'b':
			batch = strtonum(optarg, 1, AUDIT_BATCH_MAX, &errstr);
			if (errstr != NULL)
				errx(1, "batch is %s: %s", errstr, optarg);
			break;
		case 'n':
			nverify = strtonum(optarg, 1, INT64_MAX, &errstr);
			if (errstr != NULL)
				errx(1, "records is %s: %s", errstr, optarg);
			break;
		case 'o':
			tsv = optarg;
			break;
		case 'p':
			probe = 1;
			break;
		case 's':
			seconds = strtonum(optarg, 1, 3600, &errstr);
			if (errstr != NULL)
				errx(1, "seconds is %s: %s", errstr, optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();
	dir = argv[0];
	log_init(LOG_TO_STDERR, 0, 0);
	if ((samples = calloc(BENCH_SAMPLES_MAX, sizeof(*samples))) == NULL)
		err(1, "calloc");

	memset(&r, 0, sizeof(r));
	db_path(path, sizeof(path), dir, "fsync");
	run_sync(path, seconds, 0, &r.fsync_per_s, &r.overwrite_p50_us);
	db_path(path, sizeof(path), dir, "append");
	run_sync(path, seconds, 1, NULL, &r.append_p50_us);
	run_rtt(&r.rtt_p50_us);
	if (!probe) {
		db_path(path, sizeof(path), dir, "single");
		run_appends(path, 1, AUDIT_K_DECISION, seconds,
		    &r.single_per_s, &r.single_p50_us, &r.single_p99_us);
		db_path(path, sizeof(path), dir, "grouped");
		run_appends(path, batch, AUDIT_K_DECISION, seconds,
		    &r.grouped_per_s, NULL, &r.grouped_commit_p99_us);
		db_path(path, sizeof(path), dir, "descriptive");
		run_appends(path, 1, AUDIT_K_CALL_RESULT, seconds,
		    &r.descriptive_per_s, &r.descriptive_p50_us, NULL);
		db_path(path, sizeof(path), dir, "verify");
		run_verify(path, nverify, &r);
	}

	report_device(stdout, &r);
	if (!probe)
		report(stdout, &r, batch, nverify);
	if (tsv != NULL) {
		if ((fp = fopen(tsv, "w")) == NULL)
			err(1, "%s", tsv);
		report_device_tsv(fp, &r);
		if (!probe)
			report_tsv(fp, &r, batch, nverify);
		if (fclose(fp) == EOF)
			err(1, "%s", tsv);
	}
	free(samples);
	return (0);
}

static double
now_s(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

/* CPU time of this process: the figure other load on the host spares. */
static double
cpu_s(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == -1)
		err(1, "clock_gettime");
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

/*
 * A decision record as the gateway sends it, or, of a descriptive kind,
 * the same fields without a decision.
 */
static void
mkrec(struct audit_record *ar, enum audit_kind kind, uint64_t i)
{
	char	 buf[32];
	uint8_t	 d[AUDIT_DIGEST_BYTES];

	audit_record_init(ar, kind, kind != AUDIT_K_DECISION ? AUDIT_D_NONE :
	    i % 4 ? AUDIT_D_ALLOW : AUDIT_D_DENY);
	if (audit_record_set(ar, AUDIT_F_SESSION,
	    "5f0c3a9e2b7d41c8a6e9d0b4c2f1a7e3") == -1 ||
	    audit_record_set(ar, AUDIT_F_OPERATION, "read_customer") == -1 ||
	    audit_record_set(ar, AUDIT_F_TOOL, "crm.get_record") == -1 ||
	    audit_record_set(ar, AUDIT_F_REASON, i % 4 ? "rule_12" :
	    "ceiling") == -1 ||
	    audit_record_set(ar, AUDIT_F_LABEL_BEFORE, "internal") == -1 ||
	    audit_record_set(ar, AUDIT_F_LABEL_AFTER, "confidential") == -1)
		errx(1, "record refused");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)i);
	sha256(buf, strlen(buf), d);
	audit_record_digest(ar, AUDIT_HAS_REQUEST, d);
}

static void
db_path(char *path, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(path, len, "%s/bench-%s.db", dir, name) >= len)
		errx(1, "directory name too long");
	db_remove(path);
}

static void
db_remove(const char *path)
{
	char	 aux[PATH_MAX];

	if (unlink(path) == -1 && errno != ENOENT)
		err(1, "unlink %s", path);
	snprintf(aux, sizeof(aux), "%s-wal", path);
	if (unlink(aux) == -1 && errno != ENOENT)
		err(1, "unlink %s", aux);
	snprintf(aux, sizeof(aux), "%s-shm", path);
	if (unlink(aux) == -1 && errno != ENOENT)
		err(1, "unlink %s", aux);
}

/* The median of samples[0 .. nsamples - 1], which it sorts. */
static double
p50(void)
{
	if (nsamples == 0)
		return (0);
	qsort(samples, nsamples, sizeof(*samples), cmp_double);
	return (samples[nsamples / 2]);
}

/*
 * One 4 KiB write and an fdatasync(2), as often as it goes, two ways:
 *
 * overwrite	over a page written and synced before: the floor under any
 *		durable commit into blocks the file already has, as SQLite
 *		does per commit into a WAL that starts over after a
 *		checkpoint;
 * append	past the end each time: the file grows, and fdatasync has
 *		its new size to commit too, as a WAL that is still growing
 *		does.
 */
static void
run_sync(const char *path, int secs, int append, double *per_s,
    double *p50_us)
{
	char		 page[BENCH_PAGE_BYTES];
	double		 start, t0, t;
	uint64_t	 n = 0;
	off_t		 off;
	int		 fd, i;

	memset(page, 'x', sizeof(page));
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) ==
	    -1)
		err(1, "%s", path);
	for (i = 0; !append && i < BENCH_OVERWRITE_PAGES; i++)
		if (pwrite(fd, page, sizeof(page), (off_t)i * sizeof(page)) !=
		    (ssize_t)sizeof(page))
			err(1, "pwrite");
	if (fsync(fd) == -1)
		err(1, "fsync");
	nsamples = 0;
	start = t = now_s();
	do {
		t0 = t;
		off = (off_t)(append ? n : n % BENCH_OVERWRITE_PAGES) *
		    (off_t)sizeof(page);
		if (pwrite(fd, page, sizeof(page), off) !=
		    (ssize_t)sizeof(page))
			err(1, "pwrite");
		if (fdatasync(fd) == -1)
			err(1, "fdatasync");
		n++;
		t = now_s();
		if (nsamples < BENCH_SAMPLES_MAX)
			samples[nsamples++] = (t - t0) * 1e6;
	} while (t - start < secs);
	if (close(fd) == -1)
		err(1, "close");
	db_remove(path);
	if (per_s != NULL)
		*per_s = n / (t - start);
	*p50_us = p50();
}

/* A message to a child process over a socketpair and its echo back. */
static void
run_rtt(double *p50_us)
{
	char		 msg[BENCH_RTT_BYTES];
	double		 t0;
	ssize_t		 n, r;
	pid_t		 pid;
	int		 sv[2], i, status;

	memset(msg, 'm', sizeof(msg));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		err(1, "socketpair");
	switch (pid = fork()) {
	case -1:
		err(1, "fork");
	case 0:
		close(sv[0]);
		while ((n = read(sv[1], msg, sizeof(msg))) > 0)
			if (write(sv[1], msg, n) != n)
				_exit(1);
		_exit(n == 0 ? 0 : 1);
	}
	close(sv[1]);
	nsamples = 0;
	for (i = 0; i < BENCH_RTT_ROUNDS; i++) {
		t0 = now_s();
		if (write(sv[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			err(1, "write");
		for (n = 0; n < (ssize_t)sizeof(msg); n += r)
			if ((r = read(sv[0], msg + n, sizeof(msg) - n)) <= 0)
				errx(1, "the echo process ended");
		samples[nsamples++] = (now_s() - t0) * 1e6;
	}
	close(sv[0]);
	if (waitpid(pid, &status, 0) == -1)
		err(1, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		errx(1, "the echo process failed");
	*p50_us = p50();
}

/*
 * Append batches of n records of kind for secs seconds; each call of a
 * decision returns only after its transaction is on disk.  Records per
 * second, and the median and 99th percentile time of one call in
 * microseconds.
 */
static void
run_appends(const char *path, size_t n, int kind, int secs, double *per_s,
    double *p50_us, double *p99_us)
{
	struct audit		*a;
	double			 start, t0, t1;
	uint64_t		 total = 0;
	size_t			 i;

	if ((a = audit_open(path)) == NULL)
		errx(1, "cannot open %s", path);
	nsamples = 0;
	start = now_s();
	do {
		for (i = 0; i < n; i++)
			mkrec(&recs[i], kind, total + i);
		t0 = now_s();
		if (audit_append_batch(a, recs, n) == -1)
			errx(1, "append failed");
		t1 = now_s();
		if (nsamples < BENCH_SAMPLES_MAX)
			samples[nsamples++] = (t1 - t0) * 1e6;
		total += n;
	} while (t1 - start < secs);
	audit_close(a);
	db_remove(path);

	*per_s = total / (t1 - start);
	qsort(samples, nsamples, sizeof(*samples), cmp_double);
	if (p50_us != NULL)
		*p50_us = samples[nsamples / 2];
	if (p99_us != NULL)
		*p99_us = samples[nsamples * 99 / 100];
}

/* Build a chain of n records in the largest batches, then verify it. */
static void
run_verify(const char *path, uint64_t n, struct bench_result *r)
{
	struct audit_tip	 tip;
	struct audit		*a;
	struct stat		 sb;
	uint64_t		 done, bad, nrec;
	double			 wall[BENCH_VERIFY_RUNS], cpu[BENCH_VERIFY_RUNS];
	double			 sorted[BENCH_VERIFY_RUNS];
	size_t			 i, k;
	double			 t0, c0;
	int			 j, rc;

	if ((a = audit_open(path)) == NULL)
		errx(1, "cannot open %s", path);
	t0 = now_s();
	for (done = 0; done < n; done += k) {
		k = n - done < AUDIT_BATCH_MAX ? n - done : AUDIT_BATCH_MAX;
		for (i = 0; i < k; i++)
			mkrec(&recs[i], AUDIT_K_DECISION, done + i);
		if (audit_append_batch(a, recs, k) == -1)
			errx(1, "append failed");
	}
	audit_tip(a, &tip);
	audit_close(a);
	r->build_s = now_s() - t0;
	if (stat(path, &sb) == -1)
		err(1, "stat %s", path);
	r->verify_db_bytes = sb.st_size;

	/* Other tenants of the host make single runs noisy. */
	for (j = 0; j < BENCH_VERIFY_RUNS; j++) {
		t0 = now_s();
		c0 = cpu_s();
		rc = audit_verify(path, &tip, &bad, &nrec);
		cpu[j] = cpu_s() - c0;
		wall[j] = now_s() - t0;
		if (rc != AUDIT_VERIFY_OK || nrec != n)
			errx(1, "verify: %d, first bad %llu, %llu records", rc,
			    (unsigned long long)bad, (unsigned long long)nrec);
	}
	db_remove(path);
	memcpy(sorted, wall, sizeof(sorted));
	qsort(sorted, BENCH_VERIFY_RUNS, sizeof(*sorted), cmp_double);
	r->verify_min_s = sorted[0];
	r->verify_s = sorted[BENCH_VERIFY_RUNS / 2];
	r->verify_max_s = sorted[BENCH_VERIFY_RUNS - 1];
	for (j = 0; j < BENCH_VERIFY_RUNS; j++)
		if (wall[j] == r->verify_s)
			r->verify_cpu_s = cpu[j];
}

static int
cmp_double(const void *a, const void *b)
{
	const double	*x = a, *y = b;

	return ((*x > *y) - (*x < *y));
}

static void
report_device(FILE *fp, const struct bench_result *r)
{
	fprintf(fp, "%-40s %14s  %s\n", "device and round trip", "value",
	    "unit");
	fprintf(fp, "%-40s %14.0f  %s\n", "device: 4 KiB write + fdatasync",
	    r->fsync_per_s, "syncs/s");
	fprintf(fp, "%-40s %14.0f  %s\n", "  overwrite + fdatasync p50",
	    r->overwrite_p50_us, "us");
	fprintf(fp, "%-40s %14.0f  %s\n", "  append + fdatasync p50",
	    r->append_p50_us, "us");
	fprintf(fp, "%-40s %14.1f  %s\n", "socketpair round trip p50",
	    r->rtt_p50_us, "us");
}

static void
report(FILE *fp, const struct bench_result *r, size_t batch, uint64_t n)
{
	double	 wait, rate;

	fprintf(fp, "%-40s %14s  %s\n", "audit store", "value", "unit");
	fprintf(fp, "%-40s %14.0f  %s\n", "durable appends, 1 per commit",
	    r->single_per_s, "records/s");
	fprintf(fp, "%-40s %14.0f  %s\n", "  append latency p50",
	    r->single_p50_us, "us");
	fprintf(fp, "%-40s %14.0f  %s\n", "  append latency p99",
	    r->single_p99_us, "us");
	fprintf(fp, "%-40s %14.0f  %s\n", "durable appends, group commit",
	    r->grouped_per_s, "records/s");
	fprintf(fp, "%-40s %14zu  %s\n", "  records per commit", batch,
	    "records");
	fprintf(fp, "%-40s %14.0f  %s\n", "  commit latency p99",
	    r->grouped_commit_p99_us, "us");
	fprintf(fp, "%-40s %14.0f  %s\n", "descriptive appends, 1 per commit",
	    r->descriptive_per_s, "records/s");
	fprintf(fp, "%-40s %14.0f  %s\n", "  append latency p50 (no sync)",
	    r->descriptive_p50_us, "us");
	fprintf(fp, "%-40s %14llu  %s\n", "verify chain of",
	    (unsigned long long)n, "records");
	fprintf(fp, "%-40s %14.1f  %s\n", "  database size",
	    r->verify_db_bytes / 1048576.0, "MiB");
	fprintf(fp, "%-40s %14.2f  %s\n", "  build (batches of 1024)",
	    r->build_s, "s");
	fprintf(fp, "%-40s %14.2f  %s\n", "  verify, median of 3", r->verify_s,
	    "s");
	fprintf(fp, "%-40s %7.2f %6.2f  %s\n", "  verify, fastest and slowest",
	    r->verify_min_s, r->verify_max_s, "s");
	fprintf(fp, "%-40s %14.2f  %s\n", "  verify, CPU time of the median",
	    r->verify_cpu_s, "s");
	fprintf(fp, "%-40s %14.0f  %s\n", "  verify rate", n / r->verify_s,
	    "records/s");

	wait = r->single_p50_us / r->overwrite_p50_us;
	rate = r->single_per_s / r->fsync_per_s;
	fprintf(fp, "target: durable append p50 %.0f us <= %.1f x overwrite "
	    "sync p50 %.0f us: %.2fx, %s\n", r->single_p50_us,
	    TARGET_WAIT_OVER_SYNC, r->overwrite_p50_us, wait,
	    wait <= TARGET_WAIT_OVER_SYNC ? "met" : "NOT met");
	fprintf(fp, "target: durable decisions %.0f/s >= %.1f x device "
	    "%.0f syncs/s: %.2fx, %s\n", r->single_per_s,
	    TARGET_RATE_OVER_SYNC, r->fsync_per_s, rate,
	    rate >= TARGET_RATE_OVER_SYNC ? "met" : "NOT met");
}

static void
report_device_tsv(FILE *fp, const struct bench_result *r)
{
	fprintf(fp, "device_overwrite_sync_p50_us\t%.0f\tus\n",
	    r->overwrite_p50_us);
	fprintf(fp, "device_append_sync_p50_us\t%.0f\tus\n",
	    r->append_p50_us);
	fprintf(fp, "socketpair_rtt_p50_us\t%.1f\tus\n", r->rtt_p50_us);
}

static void
report_tsv(FILE *fp, const struct bench_result *r, size_t batch, uint64_t n)
{
	fprintf(fp, "device_fdatasync_per_s\t%.0f\tsyncs/s\n",
	    r->fsync_per_s);
	fprintf(fp, "durable_decisions_per_s\t%.0f\trecords/s\n",
	    r->single_per_s);
	fprintf(fp, "durable_append_p50_us\t%.0f\tus\n", r->single_p50_us);
	fprintf(fp, "durable_append_p99_us\t%.0f\tus\n", r->single_p99_us);
	fprintf(fp, "descriptive_append_p50_us\t%.0f\tus\n",
	    r->descriptive_p50_us);
	fprintf(fp, "descriptive_appends_per_s\t%.0f\trecords/s\n",
	    r->descriptive_per_s);
	fprintf(fp, "grouped_decisions_per_s\t%.0f\trecords/s\n",
	    r->grouped_per_s);
	fprintf(fp, "grouped_batch_records\t%zu\trecords\n", batch);
	/* The metric's name promises 1M records; say if it was another n. */
	if (n == BENCH_VERIFY_RECORDS)
		fprintf(fp, "verify_1m_entries_s\t%.2f\ts\n", r->verify_s);
	else
		fprintf(fp, "verify_%llu_entries_s\t%.2f\ts\n",
		    (unsigned long long)n, r->verify_s);
	fprintf(fp, "verify_cpu_s\t%.2f\ts\n", r->verify_cpu_s);
	fprintf(fp, "verify_entries_per_s\t%.0f\trecords/s\n",
	    n / r->verify_s);
	/* Issue 12's targets: <= 1.3 and >= 0.9. */
	fprintf(fp, "durable_append_p50_over_overwrite_sync\t%.2f\tx\n",
	    r->single_p50_us / r->overwrite_p50_us);
	fprintf(fp, "durable_decisions_over_sync_rate\t%.2f\tx\n",
	    r->single_per_s / r->fsync_per_s);
}
