/*
 * The bridge: the only process that will read the agent's frames (DESIGN
 * 3, 6).  It gets the attach stream as a descriptor from dockerd-client,
 * never opens anything itself, and forwards validated requests to the
 * gateway.  This version reaches its loop and follows the lifecycle.
 */

#include <sys/types.h>

#include <event.h>

#include "log.h"
#include "proc.h"
#include "sandbox.h"

static void	bridge_dispatch_parent(struct imsg *);
static void	bridge_dispatch_gateway(struct imsg *);
static void	bridge_dispatch_watchdog(struct imsg *);
static void	bridge_dispatch_docker(struct imsg *);

/*
 * The bridge's system calls on top of the baseline of common/sandbox.c.
 * Opening files and sockets fails softly; anything else kills.
 */
static const struct sandbox_rule bridge_sandbox[] = {
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler bridge_handlers[] = {
	{ PROC_PARENT,	bridge_dispatch_parent },
	{ PROC_GATEWAY,	bridge_dispatch_gateway },
	{ PROC_WATCHDOG,	bridge_dispatch_watchdog },
	{ PROC_DOCKER,	bridge_dispatch_docker },
};

void
bridge_main(const struct ctl_init *ci)
{
	priv_drop(PROC_BRIDGE, ci);
	proc_listen(bridge_handlers, nitems(bridge_handlers));
	sandbox_apply(ci, bridge_sandbox, nitems(bridge_sandbox));
	proc_ready();
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

static void
bridge_dispatch_parent(struct imsg *imsg)
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
bridge_dispatch_gateway(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_GATEWAY, imsg);
}

static void
bridge_dispatch_watchdog(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_WATCHDOG, imsg);
}

static void
bridge_dispatch_docker(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_DOCKER, imsg);
}
