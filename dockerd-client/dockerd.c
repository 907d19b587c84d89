/*
 * dockerd-client: the only holder of a Docker socket connection; it runs
 * with the socket's group as its one supplementary group (DESIGN 3, 5).
 * This version reaches its loop and follows the lifecycle.
 */

#include <sys/types.h>

#include <event.h>

#include "log.h"
#include "proc.h"
#include "sandbox.h"

static void	dkr_dispatch_parent(struct imsg *);
static void	dkr_dispatch_bridge(struct imsg *);
static void	dkr_dispatch_gateway(struct imsg *);
static void	dkr_dispatch_auditor(struct imsg *);
static void	dkr_dispatch_watchdog(struct imsg *);

/*
 * dockerd-client's system calls on top of the baseline of common/sandbox.c.
 * Opening files and sockets fails softly; anything else kills.
 */
static const struct sandbox_rule dkr_sandbox[] = {
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler dkr_handlers[] = {
	{ PROC_PARENT,	dkr_dispatch_parent },
	{ PROC_BRIDGE,	dkr_dispatch_bridge },
	{ PROC_GATEWAY,	dkr_dispatch_gateway },
	{ PROC_AUDITOR,	dkr_dispatch_auditor },
	{ PROC_WATCHDOG,	dkr_dispatch_watchdog },
};

void
dkr_main(const struct ctl_init *ci)
{
	priv_drop(PROC_DOCKER, ci);
	proc_listen(dkr_handlers, nitems(dkr_handlers));
	sandbox_apply(ci, dkr_sandbox, nitems(dkr_sandbox));
	proc_ready();
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

static void
dkr_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_START:
		log_debug("started");
		break;
	case IMSG_CTL_STOPPING:
		proc_stopping();
		break;
	case IMSG_CTL_SHUTDOWN:
		proc_shutdown();
		/* NOTREACHED */
#ifdef CMCP_TEST
	case IMSG_CTL_PROBE:
		proc_probe(imsg);
		break;
#endif
	default:
		proc_unexpected(PROC_PARENT, imsg);
	}
}

static void
dkr_dispatch_bridge(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_BRIDGE, imsg);
}

static void
dkr_dispatch_gateway(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_GATEWAY, imsg);
}

static void
dkr_dispatch_auditor(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_AUDITOR, imsg);
}

static void
dkr_dispatch_watchdog(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_WATCHDOG, imsg);
}
