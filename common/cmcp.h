/*
 * Shared declarations of the cmcp-privsep suite: process identities,
 * the one table of message types, and the limits and defaults with their
 * units in their names.
 */

#ifndef CMCP_H
#define CMCP_H

#include <sys/types.h>

#include <limits.h>

#ifndef __dead
#define __dead		__attribute__((__noreturn__))
#endif
#ifndef nitems
#define nitems(a)	(sizeof((a)) / sizeof((a)[0]))
#endif

#define CMCP_NAME		"cmcp-privsep"
#define CMCP_CONF_FILE		"/etc/cmcp-privsep.conf"
#define CMCP_CORE_PATTERN	"/proc/sys/kernel/core_pattern"

enum cmcp_proc {
	PROC_PARENT,
	PROC_BRIDGE,
	PROC_GATEWAY,
	PROC_AUDITOR,
	PROC_WATCHDOG,
	PROC_DOCKER,
	PROC_MAX
};

/*
 * In a child, the channel to process id N is descriptor CHAN_FD(N): the
 * parent's is 3, the bridge's 4, and so on.  Absent channels are closed.
 */
#define CHAN_FD_BASE		3
#define CHAN_FD(id)		(CHAN_FD_BASE + (id))

/* Message types: every channel declares which of these it accepts. */
enum imsg_type {
	IMSG_NONE,
	IMSG_CTL_INIT,		/* parent -> child: privsep parameters */
	IMSG_CTL_READY,		/* child -> parent: sandboxed, in its loop */
	IMSG_CTL_START,		/* parent -> child: all children ready */
	IMSG_CTL_SHUTDOWN,	/* parent -> child: exit in order */
	IMSG_CTL_LOG,		/* child -> parent: one log line */
	IMSG_CTL_PROBE,		/* parent -> child, test build only */
	IMSG_CTL_STOPPING,	/* parent -> child: orderly shutdown begun */
	IMSG_TYPE_MAX
};

/* Channel and message limits. */
#define MAX_CHAN_MSG_BYTES	(64 * 1024)
#define MAX_LOG_LINE_BYTES	1024

/* Lifecycle timing. */
#define CHILD_READY_TIMEOUT_MS	5000
#define SHUTDOWN_GRACE_MS	500

/*
 * IMSG_CTL_INIT: what a child needs to drop privileges.  Sent once, before
 * anything else, on the parent channel.  Debug and verbosity travel as -d
 * and -v on the re-exec command line, since a child logs before this.
 */
struct ctl_init {
	uid_t		 ci_uid;
	gid_t		 ci_gid;
	gid_t		 ci_sgid;	/* supplementary group, if ci_has_sgid */
	int		 ci_has_sgid;
	char		 ci_chroot[PATH_MAX];
#ifdef CMCP_TEST
	int		 ci_nosandbox;	/* skip the seccomp filter */
	int		 ci_noready;	/* never send IMSG_CTL_READY */
#endif
};

/* IMSG_CTL_LOG: one line, NUL-terminated, never payload bytes. */
struct ctl_log {
	int		 cl_pri;
	char		 cl_msg[MAX_LOG_LINE_BYTES];
};

#ifdef CMCP_TEST
/* IMSG_CTL_PROBE: make the sandboxed child try one forbidden thing. */
enum probe_attempt {
	PROBE_OPEN,
	PROBE_SOCKET,
	PROBE_EXECVE,
	PROBE_KILL,
	PROBE_PTRACE,
	PROBE_BADMSG,		/* send a message of no accepted type */
	PROBE_MAX
};

struct ctl_probe {
	int		 cp_attempt;
	pid_t		 cp_sibling;	/* target of kill and ptrace */
};
#endif

/* Agent bounds: defaults are also the maxima (DESIGN 6). */
#define AGENT_FRAME_BYTES	(64 * 1024)
#define AGENT_STDOUT_BYTES	(1024 * 1024)
#define AGENT_STDERR_BYTES	(1024 * 1024)
#define AGENT_CALLS		16
#define AGENT_TIMEOUT_MS	15000

/* Watchdog (DESIGN 10). */
#define WD_PULSE_MS		250
#define WD_ACK_MS		1000
#define WD_LEASE_MS		2000
#define WD_STOP_TRIES		3
#define WD_STOP_TIMEOUT_MS	5000

/* MCP client (DESIGN 8). */
#define MCP_REQUEST_BYTES	(16 * 1024)
#define MCP_RESPONSE_BYTES	(64 * 1024)
#define MCP_TOOLS		32
#define MCP_NOTIFICATIONS	16
#define MCP_TIMEOUT_MS		5000
#define MCP_LIST_PAGES		8

/* Sandbox tool (DESIGN 11). */
#define SANDBOX_SOURCE_BYTES	(16 * 1024)
#define SANDBOX_INPUT_BYTES	(64 * 1024)
#define SANDBOX_OUTPUT_BYTES	(64 * 1024)
#define SANDBOX_TIMEOUT_MS	5000

#endif /* CMCP_H */
