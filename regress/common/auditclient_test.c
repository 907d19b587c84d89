/*
 * Tests of the audit client (common/auditclient.c) over a real
 * socketpair, the suite's own channel (proc.c) and libevent on one end.
 *
 * The other end is a fake auditor written here, a bare imsgbuf: what is
 * tested is how the client takes the auditor's misbehaviour (acks out of
 * order, twice, for no record, short, unsynced where an act waits, or
 * none at all), which the real auditor never shows.  A refused ack is a
 * fatalx, so those cases run the client in a child and read its exit
 * status and its stderr.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditclient.h"
#include "auditrec.h"
#include "cmcp.h"
#include "imsg.h"
#include "log.h"
#include "proc.h"

#define POLL_MS		5000

static struct imsgbuf	 fake;		/* the auditor's end */
static uint64_t		 fake_seq;
static int		 nfailed;	/* the failure hook's calls */
static int		 nacted;	/* durable callbacks */
static int		 nrecorded;	/* recorded callbacks */
static uint64_t		 acted_seq;	/* the ack an act saw */

/* proc.c's process table names every child's main; none runs here. */
__dead void bridge_main(const struct ctl_init *ci) { (void)ci; abort(); }
__dead void gw_main(const struct ctl_init *ci) { (void)ci; abort(); }
__dead void audit_main(const struct ctl_init *ci) { (void)ci; abort(); }
__dead void wd_main(const struct ctl_init *ci) { (void)ci; abort(); }
__dead void dkr_main(const struct ctl_init *ci) { (void)ci; abort(); }

static void
closed(enum cmcp_proc peer)
{
	(void)peer;
}

static void
failed(void *arg)
{
	ATF_REQUIRE(arg == &nfailed);
	nfailed++;
}

static void
acted(const struct audit_ack *aa, void *arg)
{
	ATF_REQUIRE(arg == &nacted);
	ATF_REQUIRE(aa != NULL && aa->aa_synced == 1);
	acted_seq = aa->aa_seq;
	nacted++;
	/* Seen by the parent of a child that should never get here. */
	printf("acted\n");
	fflush(stdout);
}

static void
recorded(const struct audit_ack *aa, void *arg)
{
	(void)aa;
	ATF_REQUIRE(arg == &nrecorded);
	nrecorded++;
}

/* The client's end on the suite's channel, the fake auditor's bare. */
static void
setup(void)
{
	int	 s[2];

	log_init(LOG_TO_STDERR, 1, 0);
	event_init();
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0, s) == 0);
	proc_chan_open(PROC_AUDITOR, s[0], auditc_dispatch, closed);
	ATF_REQUIRE(imsgbuf_init(&fake, s[1]) == 0);
	auditc_init(failed, &nfailed);
	fake_seq = 0;
	nfailed = nacted = nrecorded = 0;
}

static void
record(struct audit_record *ar, enum audit_kind kind)
{
	audit_record_init(ar, kind, kind == AUDIT_K_DECISION ?
	    AUDIT_D_ALLOW : AUDIT_D_NONE);
	ATF_REQUIRE(audit_record_set(ar, AUDIT_F_SESSION, "s1") == 0);
}

static uint32_t
send_kind(enum audit_kind kind)
{
	struct audit_record	 ar;

	record(&ar, kind);
	return (auditc_send(&ar));
}

static uint32_t
durable_kind(enum audit_kind kind)
{
	struct audit_record	 ar;

	record(&ar, kind);
	return (auditc_durable(&ar, acted, &nacted));
}

/* 1 when the fake auditor has a message waiting, within ms. */
static int
fake_readable(int ms)
{
	struct pollfd	 pfd;

	pfd.fd = fake.fd;
	pfd.events = POLLIN;
	ATF_REQUIRE(poll(&pfd, 1, ms) != -1);
	return ((pfd.revents & POLLIN) != 0);
}

/* Nothing came to the fake auditor: no message, maybe the end. */
static void
fake_nothing(void)
{
	struct imsg	 imsg;

	if (fake_readable(100))
		ATF_REQUIRE(imsgbuf_read(&fake) != -1);
	ATF_REQUIRE_EQ(imsgbuf_get(&fake, &imsg), 0);
}

/* The next record the fake auditor receives: its peerid. */
static uint32_t
fake_recv(void)
{
	struct imsg	 imsg;
	uint32_t	 id;
	ssize_t		 n;

	for (;;) {
		ATF_REQUIRE((n = imsgbuf_get(&fake, &imsg)) != -1);
		if (n > 0)
			break;
		ATF_REQUIRE_MSG(fake_readable(POLL_MS), "no record");
		ATF_REQUIRE(imsgbuf_read(&fake) > 0);
	}
	ATF_REQUIRE_EQ(imsg_get_type(&imsg), IMSG_AUDIT_RECORD);
	ATF_REQUIRE_EQ(imsg_get_len(&imsg), sizeof(struct audit_record));
	id = imsg_get_peerid(&imsg);
	imsg_free(&imsg);
	return (id);
}

/* An ack of len bytes (sizeof(struct audit_ack) when well-formed). */
static void
fake_ack_len(uint32_t id, uint32_t synced, size_t len)
{
	struct audit_ack	 aa;

	memset(&aa, 0, sizeof(aa));
	aa.aa_seq = ++fake_seq;
	aa.aa_synced = synced;
	ATF_REQUIRE(imsg_compose(&fake, IMSG_AUDIT_ACK, id, 0, -1, &aa,
	    len) != -1);
	ATF_REQUIRE(imsgbuf_flush(&fake) == 0);
}

static void
fake_ack(uint32_t id, uint32_t synced)
{
	fake_ack_len(id, synced, sizeof(struct audit_ack));
}

/* Let the client's loop take what is waiting for it (one turn). */
static void
turn(void)
{
	ATF_REQUIRE(event_loop(EVLOOP_ONCE) == 0);
}

/* An ack, taken by the client before this returns. */
static void
ack(uint32_t id, uint32_t synced)
{
	fake_ack(id, synced);
	turn();
}

/* Read fd to its end into buf, NUL-terminated. */
static void
slurp(int fd, char *buf, size_t len)
{
	size_t	 n = 0;
	ssize_t	 r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += r;
	ATF_REQUIRE(r != -1 || n + 1 == len);
	buf[n] = '\0';
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * Run fn in a child, its stdout and stderr into out and err; returns
 * its exit status, -1 when it did not exit.
 */
static int
child(void (*fn)(const void *), const void *arg, char *out, size_t outlen,
    char *err, size_t errlen)
{
	int	 po[2], pe[2], status;
	pid_t	 pid;

	ATF_REQUIRE(pipe(po) == 0 && pipe(pe) == 0);
	fflush(stdout);
	fflush(stderr);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (dup2(po[1], STDOUT_FILENO) == -1 ||
		    dup2(pe[1], STDERR_FILENO) == -1)
			_exit(127);
		close(po[0]);
		close(pe[0]);
		fn(arg);
		fflush(stdout);
		_exit(0);
	}
	close(po[1]);
	close(pe[1]);
	slurp(po[0], out, outlen);
	slurp(pe[0], err, errlen);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

#define ACK_BYTES	sizeof(struct audit_ack)

/* A refused case: the records the client sends, the acks it gets. */
struct script {
	enum audit_kind		 kinds[2];
	int			 durable[2];	/* auditc_durable() */
	size_t			 nrec;
	struct {
		uint32_t	 id;
		uint32_t	 synced;
		size_t		 len;
	}			 acks[2];
	size_t			 nack;
};

static void
play(const void *arg)
{
	const struct script	*sc = arg;
	size_t			 i;

	setup();
	for (i = 0; i < sc->nrec; i++) {
		if (sc->durable[i])
			(void)durable_kind(sc->kinds[i]);
		else
			(void)send_kind(sc->kinds[i]);
		(void)fake_recv();
	}
	for (i = 0; i < sc->nack; i++) {
		fake_ack_len(sc->acks[i].id, sc->acks[i].synced,
		    sc->acks[i].len);
		turn();
	}
}

/*
 * The client must die of "fatal: channel auditor: bad ack", no act run
 * (an act prints "acted").
 */
static void
refused(const struct script *sc)
{
	char	 out[256], err[1024];

	ATF_CHECK_EQ(child(play, sc, out, sizeof(out), err, sizeof(err)), 1);
	ATF_CHECK_STREQ(out, "");
	ATF_CHECK_MSG(strstr(err, "fatal: channel auditor: bad ack\n") !=
	    NULL, "stderr: %s", err);
}

ATF_TC_WITHOUT_HEAD(acks_in_order_accepted);
ATF_TC_BODY(acks_in_order_accepted, tc)
{
	uint32_t	 i;

	setup();
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_START), 1);
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_RESULT), 2);
	ATF_CHECK_EQ(send_kind(AUDIT_K_LABEL_CHANGE), 3);
	for (i = 1; i <= 3; i++)
		ATF_CHECK_EQ(fake_recv(), i);
	/* A descriptive record's ack may say either. */
	ack(1, 0);
	ack(2, 1);
	ack(3, 0);
	ATF_CHECK_EQ(nfailed, 0);
	ATF_CHECK(!auditc_failed());
	/* Numbering goes on. */
	ATF_CHECK_EQ(send_kind(AUDIT_K_CONTAINER), 4);
	ATF_CHECK_EQ(fake_recv(), 4);
}

ATF_TC_WITHOUT_HEAD(ack_out_of_order_refused);
ATF_TC_BODY(ack_out_of_order_refused, tc)
{
	static const struct script sc = {
		{ AUDIT_K_CALL_START, AUDIT_K_CALL_RESULT }, { 0, 0 }, 2,
		{ { 2, 1, ACK_BYTES }, { 1, 1, ACK_BYTES } }, 2
	};

	refused(&sc);
}

ATF_TC_WITHOUT_HEAD(ack_duplicate_refused);
ATF_TC_BODY(ack_duplicate_refused, tc)
{
	static const struct script sc = {
		{ AUDIT_K_CALL_START, AUDIT_K_CALL_RESULT }, { 0, 0 }, 2,
		{ { 1, 1, ACK_BYTES }, { 1, 1, ACK_BYTES } }, 2
	};

	refused(&sc);
}

ATF_TC_WITHOUT_HEAD(ack_unknown_peerid_refused);
ATF_TC_BODY(ack_unknown_peerid_refused, tc)
{
	static const struct script sc = { { AUDIT_K_CALL_START }, { 0 }, 1,
	    { { 7, 1, ACK_BYTES } }, 1 };

	refused(&sc);
}

ATF_TC_WITHOUT_HEAD(ack_of_nothing_sent_refused);
ATF_TC_BODY(ack_of_nothing_sent_refused, tc)
{
	static const struct script sc = { { 0 }, { 0 }, 0,
	    { { 1, 1, ACK_BYTES } }, 1 };

	refused(&sc);
}

ATF_TC_WITHOUT_HEAD(ack_short_refused);
ATF_TC_BODY(ack_short_refused, tc)
{
	static const struct script sc = { { AUDIT_K_CALL_START }, { 0 }, 1,
	    { { 1, 1, ACK_BYTES - 1 } }, 1 };

	refused(&sc);
}

ATF_TC_WITHOUT_HEAD(ack_synced_not_a_flag_refused);
ATF_TC_BODY(ack_synced_not_a_flag_refused, tc)
{
	static const struct script sc = { { AUDIT_K_CALL_START }, { 0 }, 1,
	    { { 1, 2, ACK_BYTES } }, 1 };

	refused(&sc);
}

/* The act waits for a synced commit: an unsynced ack of it is a lie. */
ATF_TC_WITHOUT_HEAD(durable_unsynced_ack_refused);
ATF_TC_BODY(durable_unsynced_ack_refused, tc)
{
	static const struct script sc = {
		{ AUDIT_K_CALL_RESULT, AUDIT_K_DECISION }, { 0, 1 }, 2,
		{ { 1, 0, ACK_BYTES }, { 2, 0, ACK_BYTES } }, 2
	};

	refused(&sc);
}

static void
durable_descriptive(const void *arg)
{
	(void)arg;
	setup();
	(void)durable_kind(AUDIT_K_CALL_RESULT);
	/* Not reached: nothing may go to the auditor. */
	printf("sent\n");
}

ATF_TC_WITHOUT_HEAD(durable_needs_authorizing_kind);
ATF_TC_BODY(durable_needs_authorizing_kind, tc)
{
	char	 out[256], err[1024];

	ATF_CHECK_EQ(child(durable_descriptive, NULL, out, sizeof(out), err,
	    sizeof(err)), 1);
	ATF_CHECK_STREQ(out, "");
	ATF_CHECK_MSG(strstr(err,
	    "fatal: audit: a call_result record authorizes no act\n") != NULL,
	    "stderr: %s", err);
}

ATF_TC_WITHOUT_HEAD(durable_callback_only_after_its_ack);
ATF_TC_BODY(durable_callback_only_after_its_ack, tc)
{
	setup();
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_RESULT), 1);
	ATF_CHECK_EQ(durable_kind(AUDIT_K_DECISION), 2);
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_START), 3);
	ATF_CHECK_EQ(fake_recv(), 1);
	ATF_CHECK_EQ(fake_recv(), 2);
	ATF_CHECK_EQ(fake_recv(), 3);
	ATF_CHECK_EQ(nacted, 0);	/* not on its send */
	ack(1, 0);
	ATF_CHECK_EQ(nacted, 0);	/* not on an earlier record's ack */
	ack(2, 1);
	ATF_CHECK_EQ(nacted, 1);
	ATF_CHECK_EQ(acted_seq, 2);
	ack(3, 0);
	ATF_CHECK_EQ(nacted, 1);	/* once */
	ATF_CHECK_EQ(nfailed, 0);
}

ATF_TC_WITHOUT_HEAD(recorded_never_blocks);
ATF_TC_BODY(recorded_never_blocks, tc)
{
	uint32_t	 i;

	setup();
	/* Nothing outstanding: the callback runs before the call returns. */
	ATF_CHECK_EQ(auditc_recorded(recorded, &nrecorded), 0);
	ATF_CHECK_EQ(nrecorded, 1);

	/* Outstanding records: the sender goes on sending meanwhile. */
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_START), 1);
	ATF_CHECK_EQ(auditc_recorded(recorded, &nrecorded), 0);
	ATF_CHECK_EQ(nrecorded, 1);
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_RESULT), 2);
	ATF_CHECK_EQ(send_kind(AUDIT_K_LABEL_CHANGE), 3);
	for (i = 1; i <= 3; i++)
		ATF_CHECK_EQ(fake_recv(), i);
	/* Unsynced acks are fine; it waits until none is outstanding. */
	ack(1, 0);
	ack(2, 0);
	ATF_CHECK_EQ(nrecorded, 1);
	ack(3, 0);
	ATF_CHECK_EQ(nrecorded, 2);
	ATF_CHECK_EQ(nfailed, 0);
}

/*
 * No ack within AUDIT_ACK_WAIT_MS: the failure hook runs once, nothing
 * more is sent, no callback runs, a late ack is ignored.
 */
ATF_TC(timer_fails_client_once);
ATF_TC_HEAD(timer_fails_client_once, tc)
{
	atf_tc_set_md_var(tc, "timeout", "30");
}
ATF_TC_BODY(timer_fails_client_once, tc)
{
	setup();
	ATF_CHECK_EQ(durable_kind(AUDIT_K_DECISION), 1);
	ATF_CHECK_EQ(auditc_recorded(recorded, &nrecorded), 0);
	ATF_CHECK_EQ(fake_recv(), 1);
	/* The timer is the only event: the loop's turn ends with it. */
	while (nfailed == 0)
		turn();
	ATF_CHECK_EQ(nfailed, 1);
	ATF_CHECK(auditc_failed());

	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_START), 0);
	ATF_CHECK_EQ(durable_kind(AUDIT_K_DECISION), 0);
	ATF_CHECK_EQ(auditc_recorded(recorded, &nrecorded), -1);
	fake_nothing();

	ack(1, 1);
	auditc_lost();
	ATF_CHECK_EQ(nfailed, 1);
	ATF_CHECK_EQ(nacted, 0);
	ATF_CHECK_EQ(nrecorded, 0);
}

static void
alarm_cb(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	*(int *)arg = 1;
}

/* Turn the loop until ms have passed or the client failed. */
static void
wait_ms(int ms)
{
	struct event	 ev;
	struct timeval	 tv;
	int		 rang = 0;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_set(&ev, alarm_cb, &rang);
	ATF_REQUIRE(evtimer_add(&ev, &tv) == 0);
	while (!rang && nfailed == 0)
		turn();
	ATF_REQUIRE(evtimer_del(&ev) == 0);
}

/*
 * The bound runs from the oldest outstanding record, and each ack
 * restarts it for the next: with nothing outstanding nothing fires; two
 * records, the first acked 0.6 bounds after both were sent, the second
 * not at all: no failure 1.2 bounds after the sending (a timer left
 * running from the first record would have fired), a failure once the
 * second is a bound overdue (a timer stopped by the first ack would not).
 */
ATF_TC(timer_restarted_per_ack);
ATF_TC_HEAD(timer_restarted_per_ack, tc)
{
	atf_tc_set_md_var(tc, "timeout", "30");
}
ATF_TC_BODY(timer_restarted_per_ack, tc)
{
	const int	 step = AUDIT_ACK_WAIT_MS * 6 / 10;

	setup();
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_START), 1);
	ATF_CHECK_EQ(fake_recv(), 1);
	ack(1, 0);
	wait_ms(AUDIT_ACK_WAIT_MS + step / 2);
	ATF_CHECK_EQ(nfailed, 0);

	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_RESULT), 2);
	ATF_CHECK_EQ(send_kind(AUDIT_K_LABEL_CHANGE), 3);
	ATF_CHECK_EQ(fake_recv(), 2);
	ATF_CHECK_EQ(fake_recv(), 3);
	wait_ms(step);
	ack(2, 0);
	wait_ms(step);
	ATF_CHECK_EQ(nfailed, 0);
	wait_ms(AUDIT_ACK_WAIT_MS);
	ATF_CHECK_EQ(nfailed, 1);
	ATF_CHECK(auditc_failed());
}

ATF_TC_WITHOUT_HEAD(channel_closed_fails_client_once);
ATF_TC_BODY(channel_closed_fails_client_once, tc)
{
	setup();
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_START), 1);
	ATF_CHECK_EQ(fake_recv(), 1);
	proc_chan_close(PROC_AUDITOR);
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_RESULT), 0);
	ATF_CHECK_EQ(nfailed, 1);
	ATF_CHECK_EQ(send_kind(AUDIT_K_CALL_RESULT), 0);
	auditc_lost();
	ATF_CHECK_EQ(nfailed, 1);
	fake_nothing();
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, acks_in_order_accepted);
	ATF_TP_ADD_TC(tp, ack_out_of_order_refused);
	ATF_TP_ADD_TC(tp, ack_duplicate_refused);
	ATF_TP_ADD_TC(tp, ack_unknown_peerid_refused);
	ATF_TP_ADD_TC(tp, ack_of_nothing_sent_refused);
	ATF_TP_ADD_TC(tp, ack_short_refused);
	ATF_TP_ADD_TC(tp, ack_synced_not_a_flag_refused);
	ATF_TP_ADD_TC(tp, durable_unsynced_ack_refused);
	ATF_TP_ADD_TC(tp, durable_needs_authorizing_kind);
	ATF_TP_ADD_TC(tp, durable_callback_only_after_its_ack);
	ATF_TP_ADD_TC(tp, recorded_never_blocks);
	ATF_TP_ADD_TC(tp, timer_fails_client_once);
	ATF_TP_ADD_TC(tp, timer_restarted_per_ack);
	ATF_TP_ADD_TC(tp, channel_closed_fails_client_once);
	return (atf_no_error());
}
