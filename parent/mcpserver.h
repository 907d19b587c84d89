/*
 * The parent's spawner of approved MCP servers (DESIGN 5 step 1 and 7).
 *
 * Each server is the init (pid 1) of a pid namespace of its own.  When
 * the init of a pid namespace dies, the kernel kills every other process
 * of that namespace, nested namespaces included, and the init's exit is
 * complete only once they are all gone.  Nothing a server starts can
 * leave the namespace, so killing the one process the parent knows ends
 * them all.  A process-group kill is not enough: any descendant may call
 * setsid(2) and so leave the group, and a double fork hides it from the
 * parent's view of the tree.
 *
 * A server runs with an empty environment, in its own session, as the
 * configured uid and gid with no supplementary group but the configured
 * one, cwd "/", RLIMIT_CORE 0, no_new_privs, its parent-death signal
 * SIGKILL, and exactly three open descriptors: stdin and stdout are pipes
 * to the caller, stderr a pipe the caller drains and counts with
 * mcps_drain_stderr() and never logs or stores.
 *
 * The parent holds a pidfd of the init, so that a signal sent after the
 * pid was reaped by someone else (the parent's SIGCHLD handler reaps with
 * waitpid(-1)) cannot reach a recycled pid, and a descriptor of its pid
 * namespace, so that the namespace's identity cannot be recycled either
 * while the absence of its processes is being confirmed.
 */

#ifndef CMCP_MCPSERVER_H
#define CMCP_MCPSERVER_H

#include <sys/types.h>

#include <stdint.h>

#include "config.h"

#define MCPS_SPAWN_MS		2000	/* the child's setup, up to exec */
#define MCPS_KILL_MS		2000	/* SIGKILL to the init's exit */
#define MCPS_CLOSE_MAX_MS	60000	/* largest grace mcps_close takes */
#define MCPS_DRAIN_BYTES	(64 * 1024)	/* per mcps_drain_stderr call */
#define MCPS_CONFIRM_TRIES	10	/* /proc scans, MCPS_CONFIRM_MS apart */
#define MCPS_CONFIRM_MS		10
#define MCPS_NS_DEPTH		32	/* the kernel's pid namespace nesting */

struct mcps {
	char		 name[CONF_NAME_BYTES];
	pid_t		 pid;		/* the namespace's init, as seen here */
	int		 infd;		/* its stdin, the write end */
	int		 outfd;		/* its stdout, the read end */
	int		 errfd;		/* its stderr, the read end, O_NONBLOCK */
	int		 pidfd;		/* of the init */
	int		 nsfd;		/* its pid namespace */
	uint64_t	 errbytes;	/* stderr bytes drained, saturating */
	int		 reaped;
	int		 status;	/* wait status once reaped by us */
};

#ifdef MCPS_MUTATE
/*
 * Only in the separately built unit test: one protection removed, to
 * show that the tests see what it prevents.
 */
#define MCPS_MUTATE_NO_PIDNS		0x1	/* no pid namespace */
#define MCPS_MUTATE_NO_PDEATHSIG	0x2	/* no parent-death signal */
extern int	 mcps_mutate;
#endif

__BEGIN_DECLS
int	 mcps_spawn(const struct conf_server *, struct mcps *);
ssize_t	 mcps_drain_stderr(struct mcps *);
int	 mcps_members(const struct mcps *);
int	 mcps_close(struct mcps *, int);
__END_DECLS

#endif /* CMCP_MCPSERVER_H */
