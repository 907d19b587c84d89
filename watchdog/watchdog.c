/*
 * The watchdog: holds the bridge's lease and asks dockerd-client to stop
 * the container when pulses stop (DESIGN 3, 10).  This version reaches
 * its loop and follows the lifecycle.
 */

#include <sys/types.h>

#include <event.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "sandbox.h"

static void	wd_dispatch_parent(struct imsg *);
static void	wd_dispatch_bridge(struct imsg *);
static void	wd_dispatch_docker(struct imsg *);

/*
 * The watchdog's system calls on top of the baseline of common/sandbox.c.
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

void
wd_main(const struct ctl_init *ci)
{
	/* Its own session and process group (DESIGN 10). */
	if (setsid() == -1)
		fatal("setsid");
	priv_drop(PROC_WATCHDOG, ci);
	proc_listen(wd_handlers, nitems(wd_handlers));
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
wd_dispatch_bridge(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_BRIDGE, imsg);
}

static void
wd_dispatch_docker(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_DOCKER, imsg);
}
