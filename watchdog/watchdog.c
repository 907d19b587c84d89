/*
 * The watchdog: holds the bridge's lease and asks dockerd-client to stop
 * the container when pulses stop (DESIGN 3, 10).
 *
 * The bridge sends a one-byte pulse, a counter, every pulse interval;
 * each is acked with the same byte.  The parent only tells us the lease
 * when the session begins.  From then on, whatever ends the lease -- no
 * pulse within it, a byte out of sequence, any other message from the
 * bridge, the end of its channel, the end of this process -- makes us send
 * the one fixed message IMSG_WD_STOP, which names no container, to
 * dockerd-client.  Nothing in that path goes through the parent.
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "mstime.h"
#include "proc.h"
#include "sandbox.h"

struct wd_lease {
	int			 armed;		/* the session began */
	int			 fired;		/* the stop was asked for */
	int			 stopping;	/* orderly shutdown */
	uint8_t			 next;		/* the pulse byte expected */
	struct session_watchdog	 sw;
	struct event		 ev_lease;
};

static struct wd_lease	 wd;

static void	wd_dispatch_parent(struct imsg *);
static void	wd_dispatch_bridge(struct imsg *);
static void	wd_dispatch_docker(struct imsg *);
static void	wd_stopping(void);
static void	wd_session(struct imsg *);
static void	wd_pulse(struct imsg *);
static void	wd_lease_renew(void);
static void	wd_lease_expired(int, short, void *);
static void	wd_stop(const char *);
static void	wd_atexit(void);

/*
 * The watchdog's system calls on top of the baseline of common/sandbox.c,
 * which covers its loop: the lease is a libevent timer (epoll_wait's
 * timeout, the clock from the vDSO), pulses and acks are imsgs; what
 * it allocates comes from the brk heap (sandbox_heap_init()).
 * Opening files and sockets fails softly; anything else kills.
 */
static const struct sandbox_rule wd_sandbox[] = {
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler wd_handlers[] = {
	{ PROC_PARENT,	wd_dispatch_parent },
	{ PROC_BRIDGE,	wd_dispatch_bridge },
	{ PROC_DOCKER,	wd_dispatch_docker },
};

static const struct proc_hooks wd_hooks = {
	.ph_stopping = wd_stopping,
};

void
wd_main(const struct ctl_init *ci)
{
	/*
	 * Its own session and process group (DESIGN 10): a signal to the
	 * parent's group, or the terminal's, does not reach it.
	 */
	if (setsid() == -1)
		fatal("setsid");
	priv_drop(PROC_WATCHDOG, ci);
	proc_listen(wd_handlers, nitems(wd_handlers), &wd_hooks);
	evtimer_set(&wd.ev_lease, wd_lease_expired, NULL);
	/*
	 * A peer's channel closing, the parent's included, ends this process
	 * (proc.c); the lease ends with it.
	 */
	if (atexit(wd_atexit) != 0)
		fatalx("atexit failed");
	sandbox_apply(ci, wd_sandbox, nitems(wd_sandbox));
	proc_ready();
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

static void
wd_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_SESSION_WATCHDOG:
		wd_session(imsg);
		break;
	default:
		proc_unexpected(PROC_PARENT, imsg);
	}
}

/* The session is over and accounted for: no more lease. */
static void
wd_stopping(void)
{
	wd.stopping = 1;
	if (evtimer_initialized(&wd.ev_lease) &&
	    evtimer_del(&wd.ev_lease) == -1)
		fatalx("evtimer_del failed");
}

static void
wd_dispatch_bridge(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_WD_PULSE:
		wd_pulse(imsg);
		break;
	default:
		wd_stop("bad message");
		proc_unexpected(PROC_BRIDGE, imsg);
	}
}

static void
wd_dispatch_docker(struct imsg *imsg)
{
	/* dockerd-client only listens on this channel. */
	proc_unexpected(PROC_DOCKER, imsg);
}

/* The lease runs from the session's start, before any pulse. */
static void
wd_session(struct imsg *imsg)
{
	if (wd.armed || wd.stopping)
		fatalx("channel parent: unexpected session");
	if (imsg_get_data(imsg, &wd.sw, sizeof(wd.sw)) == -1 ||
	    wd.sw.sw_lease_ms < 1 || wd.sw.sw_lease_ms > 3600 * 1000)
		fatalx("channel parent: bad session message");
	wd.armed = 1;
	wd_lease_renew();
	log_debug("lease %lld ms", (long long)wd.sw.sw_lease_ms);
}

/*
 * One pulse: exactly one byte, the next of the counter.  It may come
 * before the parent's session message (another channel): it is acked,
 * and the lease starts with that message.  After the stop was asked for,
 * nothing is acked: the bridge then ends the session from its side too.
 */
static void
wd_pulse(struct imsg *imsg)
{
	uint8_t	 b;

	if (wd.fired)
		return;
	if (imsg_get_data(imsg, &b, sizeof(b)) == -1 || b != wd.next) {
		wd_stop("bad pulse");
		return;
	}
	wd.next++;
	if (wd.armed && !wd.stopping)
		wd_lease_renew();
	proc_compose(PROC_BRIDGE, IMSG_WD_ACK, &b, sizeof(b));
	proc_flush(PROC_BRIDGE);
}

static void
wd_lease_renew(void)
{
	struct timeval	 tv;

	ms_to_timeval(wd.sw.sw_lease_ms, &tv);
	if (evtimer_add(&wd.ev_lease, &tv) == -1)
		fatalx("evtimer_add failed");
}

static void
wd_lease_expired(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	wd_stop("lease expired");
}

/* Once per session, and only while one runs: the fixed stop message. */
static void
wd_stop(const char *why)
{
	if (!wd.armed || wd.fired || wd.stopping)
		return;
#ifdef CMCP_TEST
	if (wd.sw.sw_nostop) {
		log_warnx("%s: no stop (test build)", why);
		return;
	}
#endif
	wd.fired = 1;
	if (evtimer_initialized(&wd.ev_lease) &&
	    evtimer_del(&wd.ev_lease) == -1)
		fatalx("evtimer_del failed");
	log_warnx("%s: stopping the container", why);
	if (!proc_chan_isopen(PROC_DOCKER))
		return;
	proc_compose(PROC_DOCKER, IMSG_WD_STOP, NULL, 0);
	proc_flush(PROC_DOCKER);
}

/* The bridge's channel closed, the parent's, SIGTERM, a fatal error. */
static void
wd_atexit(void)
{
	wd_stop("exiting");
}
