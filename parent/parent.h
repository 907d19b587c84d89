/*
 * The root parent's own files and what crosses between them:
 *
 *	parent.c	main(), the run loop, the children (start, ready,
 *			orderly stop, teardown, grace, reap) and the
 *			dispatch of what each child sends
 *	cmd.c		the one-shot commands check and audit
 *	session.c	the session: its parameters, its start, the
 *			gateway's verdict and counts, its end, the summary
 *			and the parent's own audit records
 *	servers.c	the approved MCP servers: spawned, handed to the
 *			gateway, drained, closed
 *	instance.c	this suite instance's name and which others are dead
 *	control.c	the control socket (control.h)
 *	testopt.c	the test build's -X options and probes
 */

#ifndef PARENT_PARENT_H
#define PARENT_PARENT_H

#include <sys/types.h>
#include <sys/time.h>

#include <event.h>
#include <stdint.h>

#include "auditrec.h"
#include "cmcp.h"
#include "config.h"
#include "imsg.h"

enum parent_state {
	PARENT_STARTING,	/* waiting for IMSG_CTL_READY */
	PARENT_RUNNING,
	PARENT_STOPPING,	/* orderly, one child after the other */
	PARENT_TEARDOWN,	/* a child failed: terminate all */
};

struct parent_child {
	pid_t		 pc_pid;
	int		 pc_alive;
	int		 pc_ready;
};

enum parent_mode {
	MODE_RUN,		/* one session */
	MODE_REAP,		/* remove leftovers of dead instances */
#ifdef CMCP_TEST
	MODE_IDLE,		/* test build: children only, no session */
#endif
};

/*
 * What run prints when the session ends, one JSON line.  The gateway's
 * counts and the audit chain tip join it with the next steps.
 */
struct session_summary {
	char		 ss_session[SESSION_ID_BYTES];
	int		 ss_outcome;
	int64_t		 ss_exit;		/* -1: none */
	uint64_t	 ss_stdout_bytes;
	uint64_t	 ss_stderr_bytes;
	uint64_t	 ss_calls;		/* the gateway's counts */
	uint64_t	 ss_allowed;
	uint64_t	 ss_denied;
	char		 ss_reason[SESSION_REASON_BYTES];	/* fixed */
	char		 ss_tip[AUDIT_TIP_BYTES];	/* "": not recorded */
};

/* The session as the parent follows it. */
struct parent_session {
	int			 begun;
	int			 ended;		/* summary printed */
	int			 signalled;
	int			 child_died;
	int			 have_bridge;
	int			 have_docker;
	struct bridge_result	 bridge;
	struct dkr_result	 docker;
	struct session_docker	 sd;
	struct session_bridge	 sb;
	struct session_watchdog	 sw;
	struct event		 ev_wait;
	int			 upstreams;	/* 1 ready, -1 refused */
	char			 up_reason[SESSION_REASON_BYTES];
	int			 started;	/* IMSG_CTL_START sent */
	int			 reaped;	/* IMSG_REAP_DEAD sent */
	int			 stop_pending;	/* IMSG_SESSION_STOP after it */
	int			 gw_end_sent;
	int			 have_gw;
	struct gw_result	 gw;
	int			 servers_left;	/* not confirmed gone */
	int64_t			 gw_wait_ms;	/* a call in flight, and more */
	int64_t			 up_wait_ms;	/* the servers' handshakes */
	struct event		 ev_gwwait;
	struct event		 ev_upwait;
	int			 audit_wait;	/* for the session_end ack */
	struct session_summary	 summary;
	struct session_sandbox	*sx;		/* the sandbox tools */
	size_t			 nsx;
	struct session_server	*sv;		/* the servers' containers */
	size_t			 nsv;
};

/* parent.c */
extern struct parent_child	 parent_children[PROC_MAX];
extern enum parent_state	 parent_state;
extern enum parent_mode		 parent_mode;
extern int			 parent_status;

__dead void	 usage(void);
int		 parent_reason_ok(const char *, size_t);
void		 parent_start_children(void);
void		 parent_stop(void);

/* cmd.c */
__dead void	 parent_check(const char *, int);
__dead void	 parent_audit_cmd(const char *, int, char **);

/* session.c */
extern struct parent_session	 parent_sess;

void		 parent_session_prepare(const struct cmcp_conf *);
void		 parent_payload_read(const struct cmcp_conf *, const char *);
void		 parent_session_init(void);
void		 parent_session_begin(void);
void		 parent_upstreams(struct imsg *);
void		 parent_session_stop(void);
void		 parent_session_check(void);
void		 parent_gw_result(struct imsg *);
void		 parent_session_end(void);
int		 parent_hung_known(enum cmcp_proc);

/* servers.c */
void		 parent_servers_spawn(const struct cmcp_conf *);
void		 parent_gw_send(const struct cmcp_conf *);
int		 parent_servers_close(void);

/* instance.c */
void		 parent_instance_self(char *, size_t);
void		 parent_reap_judge(struct imsg *);

#ifdef CMCP_TEST
/* testopt.c */
#define PARENT_PROBES	16

struct parent_probe {
	enum cmcp_proc	 pp_proc;
	int		 pp_attempt;
};

struct parent_testopt {
	const char		*corepattern;
	struct parent_probe	 probes[PARENT_PROBES];
	size_t			 nprobes;
	unsigned int		 nosandbox;	/* PROC_BIT() of each */
	unsigned int		 noready;
	int			 nosession;
	int			 weaken;	/* enum session_weaken bits */
	const char		*stdout_path;
	int			 stdout_fd;
	int			 nowatchdog;
	int			 noackcheck;
	int			 noauditwait;
	int			 noadmit;	/* admission refusals ignored */
};

extern struct parent_testopt	 parent_test;

void		 parent_test_option(const char *);
void		 parent_test_probes(void);
#endif

#endif /* PARENT_PARENT_H */
