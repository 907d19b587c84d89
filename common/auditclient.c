/*
 * The audit client (auditclient.h): records to the auditor, acks back.
 *
 * The auditor commits what it is sent in the order it arrives and acks
 * every record, in that order, with the peerid it came with (the
 * auditor's audit_commit()).  So the client needs no table of what is
 * outstanding: record ac_id - ac_pending + 1 is the one the next ack
 * must name, and an ack of record n says every earlier record is
 * committed too.  Anything else from the auditor is a broken channel.
 *
 * The timer bounds how long the oldest outstanding record waits for its
 * ack; each ack restarts it for the next one.  A session does not stall
 * longer than that for an auditor that has stopped: the owner's failure
 * hook ends what waits (the gateway refuses its pending request and the
 * session ends as audit_failed; dockerd-client and the parent report
 * without waiting).
 */

#include <sys/types.h>
#include <sys/time.h>

#include <event.h>
#include <stdint.h>
#include <string.h>

#include "auditclient.h"
#include "log.h"
#include "mstime.h"
#include "proc.h"

/* Callbacks waiting at once, of each way: a sender has one or two. */
#define AUDITC_WAITS_MAX	4

struct auditc_wait {
	uint32_t	 aw_id;		/* the record it waits for */
	int		 aw_durable;	/* auditc_durable() */
	auditc_cb	 aw_cb;
	void		*aw_arg;
};

static struct {
	uint32_t		 ac_id;		/* of the last record sent */
	uint32_t		 ac_pending;	/* sent, not yet acked */
	int			 ac_failed;
	struct event		 ac_ev;		/* AUDIT_ACK_WAIT_MS */
	struct auditc_wait	 ac_durable[AUDITC_WAITS_MAX]; /* by record */
	size_t			 ac_ndurable;
	struct auditc_wait	 ac_recorded[AUDITC_WAITS_MAX];
	size_t			 ac_nrecorded;
	void			(*ac_fail)(void *);
	void			*ac_arg;
} ac;

static void	auditc_wait_add(uint32_t, auditc_cb, void *);
static void	auditc_release(const struct auditc_wait *,
		    const struct audit_ack *);
static void	auditc_late(int, short, void *);
static void	auditc_fail(void);

/* fail runs once, when the client fails; arg is its argument. */
void
auditc_init(void (*fail)(void *), void *arg)
{
	memset(&ac, 0, sizeof(ac));
	ac.ac_fail = fail;
	ac.ac_arg = arg;
	evtimer_set(&ac.ac_ev, auditc_late, NULL);
}

/*
 * Send one record, numbered, and wait for nothing.  Returns its number,
 * or 0 when the client has failed (now or before) and nothing was sent.
 */
uint32_t
auditc_send(const struct audit_record *ar)
{
	struct timeval	 tv;

	if (ac.ac_failed)
		return (0);
	if (!proc_chan_isopen(PROC_AUDITOR)) {
		log_warnx("auditor: channel closed");
		auditc_fail();
		return (0);
	}
	if (audit_record_check(ar) == -1)
		fatalx("audit: record refused");
	proc_compose_id(PROC_AUDITOR, IMSG_AUDIT_RECORD, ++ac.ac_id, ar,
	    sizeof(*ar));
	proc_flush(PROC_AUDITOR);
	if (ac.ac_pending++ == 0) {
		ms_to_timeval(AUDIT_ACK_WAIT_MS, &tv);
		if (evtimer_add(&ac.ac_ev, &tv) == -1)
			fatalx("evtimer_add failed");
	}
	return (ac.ac_id);
}

/*
 * "Durable before I act": send a record whose kind authorizes an act
 * (audit_kind_authorizes()); cb, the act, runs once it is on stable
 * storage (auditc_release()).  Returns as auditc_send() does; when
 * nothing was sent, cb never runs.
 */
uint32_t
auditc_durable(const struct audit_record *ar, auditc_cb cb, void *arg)
{
	uint32_t	 id;

	if (!audit_kind_authorizes(ar->ar_kind))
		fatalx("audit: a %s record authorizes no act",
		    audit_kind_name(ar->ar_kind));
	if ((id = auditc_send(ar)) != 0)
		auditc_wait_add(id, cb, arg);
	return (id);
}

/*
 * "Recorded": cb runs once no record is outstanding, every one sent
 * until then committed -- at once, before this returns, when none is.
 * It orders a report after the records; it authorizes nothing.  -1, and
 * cb never runs, when the client has failed.
 */
int
auditc_recorded(auditc_cb cb, void *arg)
{
	if (ac.ac_failed)
		return (-1);
	if (ac.ac_pending == 0)
		cb(NULL, arg);
	else
		auditc_wait_add(0, cb, arg);
	return (0);
}

/* The handler of a child's channel to the auditor. */
void
auditc_dispatch(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_AUDIT_ACK:
		auditc_ack(imsg);
		break;
	default:
		proc_unexpected(PROC_AUDITOR, imsg);
	}
}

/* IMSG_AUDIT_ACK: one per record, in the order they were sent. */
void
auditc_ack(struct imsg *imsg)
{
	struct audit_ack	 aa;
	struct auditc_wait	 w;
	struct timeval		 tv;
	uint32_t		 id = imsg_get_peerid(imsg);

	if (imsg_get_data(imsg, &aa, sizeof(aa)) == -1 || aa.aa_seq == 0 ||
	    (aa.aa_synced != 0 && aa.aa_synced != 1))
		fatalx("channel auditor: bad ack");
	/* Too late: the client stopped waiting, nothing acts on it. */
	if (ac.ac_failed)
		return;
	if (ac.ac_pending == 0 || id != ac.ac_id - ac.ac_pending + 1)
		fatalx("channel auditor: bad ack");
	if (evtimer_del(&ac.ac_ev) == -1)
		fatalx("evtimer_del failed");
	if (--ac.ac_pending > 0) {
		ms_to_timeval(AUDIT_ACK_WAIT_MS, &tv);
		if (evtimer_add(&ac.ac_ev, &tv) == -1)
			fatalx("evtimer_add failed");
	}
	/*
	 * A callback may send and wait again, and a record it sends keeps
	 * the recorded waits waiting.
	 */
	while (!ac.ac_failed && ac.ac_ndurable > 0 &&
	    ac.ac_durable[0].aw_id == id) {
		w = ac.ac_durable[0];
		memmove(&ac.ac_durable[0], &ac.ac_durable[1],
		    --ac.ac_ndurable * sizeof(w));
		auditc_release(&w, &aa);
	}
	while (!ac.ac_failed && ac.ac_pending == 0 &&
	    ac.ac_nrecorded > 0) {
		w = ac.ac_recorded[0];
		memmove(&ac.ac_recorded[0], &ac.ac_recorded[1],
		    --ac.ac_nrecorded * sizeof(w));
		auditc_release(&w, &aa);
	}
}

/* The owner saw the auditor's channel close. */
void
auditc_lost(void)
{
	if (ac.ac_failed)
		return;
	if (ac.ac_pending > 0)
		log_warnx("auditor: channel closed, %u record(s) not acked",
		    ac.ac_pending);
	auditc_fail();
}

int
auditc_failed(void)
{
	return (ac.ac_failed);
}

/* A durable wait for record id, or a recorded wait when id is 0. */
static void
auditc_wait_add(uint32_t id, auditc_cb cb, void *arg)
{
	struct auditc_wait	*w;
	size_t			*n;

	if (id != 0) {
		w = ac.ac_durable;
		n = &ac.ac_ndurable;
	} else {
		w = ac.ac_recorded;
		n = &ac.ac_nrecorded;
	}
	if (*n == AUDITC_WAITS_MAX)
		fatalx("audit: too many waits");
	w += (*n)++;
	w->aw_id = id;
	w->aw_durable = id != 0;
	w->aw_cb = cb;
	w->aw_arg = arg;
}

/*
 * AUDIT BEFORE ACT (DESIGN 9).  Whatever a record authorizes -- a call
 * going upstream or its refusal answered, a policy revision in force,
 * the bridge let at the agent's stream, the session's summary printed --
 * waits for a callback of auditc_durable(), and such a callback runs
 * here and nowhere else, only once all of this holds:
 *
 *	- the record's kind authorizes an act (auditc_durable());
 *	- the auditor acked this very record, in order, so every record
 *	  sent before it is committed as well (auditc_ack());
 *	- the commit that holds it was synced: aa_synced is 1.  The
 *	  auditor syncs every commit that holds an authorizing record, so
 *	  0 here is the auditor breaking the protocol;
 *	- the client has not failed: after a timeout or a closed channel
 *	  no callback runs, however late the ack (auditc_fail()).
 *
 * A "recorded" wait passes through too, for the ordering alone: its
 * records may ride on a later sync, so nothing may act on it.
 */
static void
auditc_release(const struct auditc_wait *w, const struct audit_ack *aa)
{
	if (ac.ac_failed)
		return;
	if (w->aw_durable && aa->aa_synced != 1)
		fatalx("channel auditor: bad ack");
	w->aw_cb(aa, w->aw_arg);
}

static void
auditc_late(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	log_warnx("auditor: no acknowledgement within %d ms",
	    AUDIT_ACK_WAIT_MS);
	auditc_fail();
}

/* Nothing more is sent, nothing waited for runs; the owner learns once. */
static void
auditc_fail(void)
{
	ac.ac_failed = 1;
	ac.ac_pending = 0;
	ac.ac_ndurable = ac.ac_nrecorded = 0;
	if (evtimer_del(&ac.ac_ev) == -1)
		fatalx("evtimer_del failed");
	if (ac.ac_fail != NULL)
		ac.ac_fail(ac.ac_arg);
}
