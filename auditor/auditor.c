/*
 * The auditor: the hash-chained audit database (DESIGN 3, 9).  It opens
 * the database under its own uid before anything else, then confines
 * itself to the database's directory and, by its filter, to reading and
 * writing the two files it holds open.
 *
 * Records come from the parent, the gateway and dockerd-client.  Each is
 * checked as bytes from a process that may be compromised; one that does
 * not pass closes that sender's channel, which ends the suite.  Whatever
 * arrived in one turn of the event loop is committed in one transaction
 * (group commit), and only then is each record acknowledged to its
 * sender.  A transaction that holds a record authorizing an act is
 * synced before any of its acks, which say so (aa_synced): a sender that
 * waits for that ack acts on what is on stable storage ("audit before
 * act").  One of descriptive records only is acked unsynced; it becomes
 * durable with the next synced commit, or at shutdown (auditdb.c,
 * DURABILITY).  If the database fails, the auditor exits non-zero and the
 * suite ends.  Nothing of a record is ever logged, only counts.
 */

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <event.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditdb.h"
#include "log.h"
#include "mstime.h"
#include "proc.h"
#include "sandbox.h"

/* The auditor's nice value: a background task beside the request path. */
#define AUDIT_NICE	10

_Static_assert(AUDIT_QUEUE_MAX <= AUDIT_BATCH_MAX,
    "one queue is one transaction");
_Static_assert(AUDIT_ACK_HASH_BYTES == AUDIT_DIGEST_BYTES,
    "an ack carries a record hash");

/* Who is waiting for each queued record. */
struct audit_sender {
	enum cmcp_proc		 as_peer;
	uint32_t		 as_id;
};

static struct audit		*audit_db;
static struct audit_record	 audit_queue[AUDIT_QUEUE_MAX];
static struct audit_sender	 audit_senders[AUDIT_QUEUE_MAX];
static size_t			 audit_nqueued;
static struct event		 audit_ev_commit;
static uint64_t			 audit_nrecords, audit_ncommits;
static uint64_t			 audit_nsynced;

static void	audit_dispatch_parent(struct imsg *);
static void	audit_dispatch_gateway(struct imsg *);
static void	audit_dispatch_docker(struct imsg *);
static void	audit_shutdown(void);
static void	audit_db_open(const struct ctl_init *);
static void	audit_background(void);
static void	audit_enqueue(enum cmcp_proc, struct imsg *);
static void	audit_commit(void);
static void	audit_commit_cb(int, short, void *);
static void	audit_flush_acks(void);

/*
 * The auditor's system calls on top of the baseline of common/sandbox.c,
 * measured with strace -ff over whole sessions, from the point where the
 * filter loads, with the WAL of a 20,000-record database crossing its
 * checkpoint inside the sandbox (SQLite 3.40, WAL, locking_mode
 * EXCLUSIVE, synchronous FULL or NORMAL by commit, the -wal opened and
 * given its blocks by audit_open() and SQLite's generator seeded there;
 * measured again with the synchronous switch, a 880-commit -wal and a
 * session crossing its checkpoint): pwrite64 at each commit, fdatasync
 * at a synced one and at audit_sync(); pread64 and ftruncate at a
 * checkpoint; newfstatat (fstat) and fcntl (unlocking) at the orderly
 * close.  Memory: SQLite's page
 * cache and its WAL index (in memory under locking_mode EXCLUSIVE, no
 * -shm mapping) are malloc'd, and every allocation comes from the brk
 * heap (sandbox_heap_init()), so mmap and munmap are not needed.
 * Opening a file, a socket, and unlink (SQLite would remove the -wal at
 * close; it stays and is recovered at the next open) fail softly;
 * anything else kills.
 */
static const struct sandbox_rule audit_sandbox[] = {
	SB_ALLOW(pwrite64),
	SB_ALLOW(pread64),
	SB_ALLOW(fdatasync),
	SB_ALLOW(ftruncate),
	SB_ALLOW(newfstatat),
	SB_ALLOW(fcntl),
	SB_EACCES(unlink),
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler audit_handlers[] = {
	{ PROC_PARENT,	audit_dispatch_parent },
	{ PROC_GATEWAY,	audit_dispatch_gateway },
	{ PROC_DOCKER,	audit_dispatch_docker },
};

static const struct proc_hooks audit_hooks = {
	.ph_shutdown = audit_shutdown,
};

void
audit_main(const struct ctl_init *ci)
{
	audit_db_open(ci);
	priv_drop(PROC_AUDITOR, ci);
	proc_listen(audit_handlers, nitems(audit_handlers), &audit_hooks);
	/*
	 * A sender leaving ends nothing here: the parent, which sees it die,
	 * ends the session and still has its end to record.  Only the loss
	 * of the parent's channel (or its word) ends the auditor.
	 */
	proc_stopping();
	evtimer_set(&audit_ev_commit, audit_commit_cb, NULL);
	audit_background();
	sandbox_apply(ci, audit_sandbox, nitems(audit_sandbox));
	proc_ready();
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

static void
audit_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_AUDIT_RECORD:
		audit_enqueue(PROC_PARENT, imsg);
		break;
	default:
		proc_unexpected(PROC_PARENT, imsg);
	}
}

/* The last in the stop order: commit what came, then close. */
static void
audit_shutdown(void)
{
	/*
	 * The last in the stop order: commit what came, make it all durable
	 * (the session's end was, unless the session ended before it could
	 * be recorded), then close.
	 */
	audit_commit();
	if (audit_sync(audit_db) == -1)
		fatalx("audit database failed to sync");
	audit_flush_acks();
	audit_close(audit_db);
	log_debug("%llu record(s) in %llu commit(s), %llu synced",
	    (unsigned long long)audit_nrecords,
	    (unsigned long long)audit_ncommits,
	    (unsigned long long)audit_nsynced);
}

static void
audit_dispatch_gateway(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_AUDIT_RECORD:
		audit_enqueue(PROC_GATEWAY, imsg);
		break;
	default:
		proc_unexpected(PROC_GATEWAY, imsg);
	}
}

static void
audit_dispatch_docker(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_AUDIT_RECORD:
		audit_enqueue(PROC_DOCKER, imsg);
		break;
	default:
		proc_unexpected(PROC_DOCKER, imsg);
	}
}

/*
 * Still root: open (or create) the database with our own uid and gid as
 * the effective ids, so that the files are ours, then take root back for
 * the chroot and the final drop.  The directory was made for us alone.
 */
static void
audit_db_open(const struct ctl_init *ci)
{
	char	 path[PATH_MAX];
	int	 n;

	if (memchr(ci->ci_file, '\0', sizeof(ci->ci_file)) == NULL ||
	    ci->ci_file[0] == '\0' || ci->ci_file[0] == '.' ||
	    strchr(ci->ci_file, '/') != NULL)
		fatalx("channel parent: bad database name");
	n = snprintf(path, sizeof(path), "%s/%s", ci->ci_chroot, ci->ci_file);
	if (n < 0 || (size_t)n >= sizeof(path))
		fatalx("database path too long");
	if (priv_check_dir(ci->ci_chroot, ci->ci_uid, S_IRWXG | S_IRWXO) == -1)
		fatalx("refusing audit directory %s", ci->ci_chroot);

	if (setegid(ci->ci_gid) == -1 || seteuid(ci->ci_uid) == -1)
		fatal("seteuid %u", (unsigned int)ci->ci_uid);
	audit_db = audit_open(path);
	if (seteuid(0) == -1 || setegid(0) == -1)
		fatal("seteuid 0");
	if (audit_db == NULL)
		fatalx("cannot open the audit database");
}

/*
 * Most of a commit is the wait for the disk; its CPU share (SQLite, the
 * hashes) falls mostly on records nobody waits for, a call's start and
 * result, while the bridge and the gateway answer the agent.  As a batch
 * task at a lower priority the auditor does not preempt them when a
 * record wakes it; a record that an act waits for is committed while
 * they sleep.  Durability and the order of acks do not change.
 */
static void
audit_background(void)
{
	struct sched_param	 sp;

	memset(&sp, 0, sizeof(sp));
	if (sched_setscheduler(0, SCHED_BATCH, &sp) == -1)
		fatal("sched_setscheduler");
	if (setpriority(PRIO_PROCESS, 0, AUDIT_NICE) == -1)
		fatal("setpriority");
}

/*
 * One record from a sender.  A malformed one is a protocol error of that
 * channel: it is closed (the sender, losing it, exits and the suite ends)
 * and the records that passed before it are still committed.
 */
static void
audit_enqueue(enum cmcp_proc peer, struct imsg *imsg)
{
	struct audit_record	*ar;
	struct timeval		 now = { 0, 0 };

	if (audit_nqueued == AUDIT_QUEUE_MAX)
		audit_commit();
	ar = &audit_queue[audit_nqueued];
	if (imsg_get_data(imsg, ar, sizeof(*ar)) == -1 ||
	    audit_record_check(ar) == -1) {
		if (peer == PROC_PARENT)
			fatalx("channel parent: invalid audit record");
		log_warnx("channel %s: invalid audit record, closing it",
		    proc_title(peer));
		proc_chan_close(peer);
		return;
	}
	audit_senders[audit_nqueued].as_peer = peer;
	audit_senders[audit_nqueued].as_id = imsg_get_peerid(imsg);
	/*
	 * The commit runs once this turn of the loop has dispatched every
	 * channel that was ready, so that they share one transaction.
	 */
	if (audit_nqueued++ == 0 && evtimer_add(&audit_ev_commit, &now) == -1)
		fatalx("evtimer_add failed");
}

static void
audit_commit_cb(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	audit_commit();
}

/*
 * Append the queue as one batch, synced if it holds a record that
 * authorizes an act, then acknowledge each record, saying whether it is
 * on stable storage.
 */
static void
audit_commit(void)
{
	struct audit_ack	 aa;
	struct audit_sender	*as;
	struct timespec		 t0, t1;
	uint64_t		 durable, last;
	size_t			 i;

	if (audit_nqueued == 0)
		return;
	if (evtimer_del(&audit_ev_commit) == -1)
		fatalx("evtimer_del failed");
	if (clock_gettime(CLOCK_MONOTONIC, &t0) == -1)
		fatal("clock_gettime");
	if (audit_append_batch(audit_db, audit_queue, audit_nqueued) == -1)
		fatalx("audit database failed, %zu record(s) not committed",
		    audit_nqueued);
	if (clock_gettime(CLOCK_MONOTONIC, &t1) == -1)
		fatal("clock_gettime");
	timespecsub(&t1, &t0, &t1);
	durable = audit_durable(audit_db);
	last = audit_queue[audit_nqueued - 1].ar_seq;
	for (i = 0; i < audit_nqueued; i++) {
		as = &audit_senders[i];
		if (!proc_chan_isopen(as->as_peer))
			continue;
		memset(&aa, 0, sizeof(aa));
		aa.aa_seq = audit_queue[i].ar_seq;
		memcpy(aa.aa_hash, audit_queue[i].ar_hash, sizeof(aa.aa_hash));
		aa.aa_synced = aa.aa_seq <= durable;
		proc_compose_id(as->as_peer, IMSG_AUDIT_ACK, as->as_id, &aa,
		    sizeof(aa));
	}
	audit_nrecords += audit_nqueued;
	audit_ncommits++;
	if (last <= durable)
		audit_nsynced++;
	/* bench/calls reads the time a commit takes from here. */
	log_debug("committed %zu record(s) to seq %llu, %s, %lld us",
	    audit_nqueued, (unsigned long long)last, last <= durable ?
	    "synced" : "not synced", (long long)timespec_to_us(&t1));
	audit_nqueued = 0;
}

static void
audit_flush_acks(void)
{
	size_t	 i;

	for (i = 0; i < nitems(audit_handlers); i++)
		proc_flush(audit_handlers[i].ph_peer);
}
