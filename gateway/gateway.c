/*
 * The gateway: policy, labels and aliases, and the MCP client of the
 * approved servers, whose pipes the parent passes in (DESIGN 3, 8).  This
 * version reaches its loop and follows the lifecycle.
 */

#include <sys/types.h>

#include <event.h>

#include "log.h"
#include "proc.h"
#include "sandbox.h"

static void	gw_dispatch_parent(struct imsg *);
static void	gw_dispatch_bridge(struct imsg *);
static void	gw_dispatch_auditor(struct imsg *);
static void	gw_dispatch_docker(struct imsg *);

/*
 * The gateway's system calls on top of the baseline of common/sandbox.c.
 * Opening files and sockets fails softly; anything else kills.
 */
static const struct sandbox_rule gw_sandbox[] = {
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler gw_handlers[] = {
	{ PROC_PARENT,	gw_dispatch_parent },
	{ PROC_BRIDGE,	gw_dispatch_bridge },
	{ PROC_AUDITOR,	gw_dispatch_auditor },
	{ PROC_DOCKER,	gw_dispatch_docker },
};

void
gw_main(const struct ctl_init *ci)
{
	priv_drop(PROC_GATEWAY, ci);
	proc_listen(gw_handlers, nitems(gw_handlers));
	sandbox_apply(ci, gw_sandbox, nitems(gw_sandbox));
	proc_ready();
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

static void
gw_dispatch_parent(struct imsg *imsg)
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
gw_dispatch_bridge(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_BRIDGE, imsg);
}

static void
gw_dispatch_auditor(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_AUDITOR, imsg);
}

static void
gw_dispatch_docker(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_DOCKER, imsg);
}
