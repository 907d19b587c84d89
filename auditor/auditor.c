/*
 * The auditor: the hash-chained audit database, confined to its own
 * directory under its own uid (DESIGN 3, 9).  This version reaches its
 * loop and follows the lifecycle; the database comes with its own issue.
 */

#include <sys/types.h>

#include <event.h>

#include "log.h"
#include "proc.h"
#include "sandbox.h"

static void	audit_dispatch_parent(struct imsg *);
static void	audit_dispatch_gateway(struct imsg *);
static void	audit_dispatch_docker(struct imsg *);

/*
 * The auditor's system calls on top of the baseline of common/sandbox.c.
 * Opening files and sockets fails softly; anything else kills.
 */
static const struct sandbox_rule audit_sandbox[] = {
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler audit_handlers[] = {
	{ PROC_PARENT,	audit_dispatch_parent },
	{ PROC_GATEWAY,	audit_dispatch_gateway },
	{ PROC_DOCKER,	audit_dispatch_docker },
};

void
audit_main(const struct ctl_init *ci)
{
	priv_drop(PROC_AUDITOR, ci);
	proc_listen(audit_handlers, nitems(audit_handlers));
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
audit_dispatch_gateway(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_GATEWAY, imsg);
}

static void
audit_dispatch_docker(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_DOCKER, imsg);
}
