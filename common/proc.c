/*
 * The process machinery shared by the parent and the children: the one
 * process table, the socketpair mesh and the re-exec of each child, the
 * channels (an imsgbuf and a libevent event each), and the steps every
 * child takes between exec and its own main function.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <limits.h>
#include <paths.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#ifdef CMCP_TEST
#include <sys/ptrace.h>
#endif

#include "log.h"
#include "mstime.h"
#include "proc.h"
#include "sandbox.h"

/* Bound on the reads of a dead peer's channel (64 KiB each). */
#define PROC_REAP_READS	16

#define P_PARENT	PROC_BIT(PROC_PARENT)
#define P_BRIDGE	PROC_BIT(PROC_BRIDGE)
#define P_GATEWAY	PROC_BIT(PROC_GATEWAY)
#define P_AUDITOR	PROC_BIT(PROC_AUDITOR)
#define P_WATCHDOG	PROC_BIT(PROC_WATCHDOG)
#define P_DOCKER	PROC_BIT(PROC_DOCKER)

#ifdef CMCP_TEST
#define P_TESTFD	P_BRIDGE	/* -X stdout: the agent's output */
#else
#define P_TESTFD	0
#endif

/*
 * The suite: who runs what, and who may talk to whom (DESIGN 4).  A
 * channel exists only when both ends list each other.  Descriptors go
 * one way only, from a process to the peers it lists as their receivers,
 * and this table is the only place that says so: the parent passes the
 * configuration and the MCP servers' pipes to the gateway (and, in the
 * test build, a file for the agent's output to the bridge), dockerd-client
 * the attach streams to the bridge (the agent's) and to the gateway (a
 * sandbox run's).  Every other end refuses a descriptor as a protocol
 * error.
 */
static const struct privsep_proc procs[PROC_MAX] = {
	[PROC_PARENT] =	{ PROC_PARENT, NULL,
	    P_BRIDGE | P_GATEWAY | P_AUDITOR | P_WATCHDOG | P_DOCKER,
	    P_GATEWAY | P_TESTFD },
	[PROC_BRIDGE] =	{ PROC_BRIDGE, bridge_main,
	    P_PARENT | P_GATEWAY | P_WATCHDOG | P_DOCKER },
	[PROC_GATEWAY] = { PROC_GATEWAY, gw_main,
	    P_PARENT | P_BRIDGE | P_AUDITOR | P_DOCKER },
	[PROC_AUDITOR] = { PROC_AUDITOR, audit_main,
	    P_PARENT | P_GATEWAY | P_DOCKER },
	[PROC_WATCHDOG] = { PROC_WATCHDOG, wd_main,
	    P_PARENT | P_BRIDGE | P_DOCKER },
	[PROC_DOCKER] =	{ PROC_DOCKER, dkr_main,
	    P_PARENT | P_BRIDGE | P_GATEWAY | P_AUDITOR | P_WATCHDOG,
	    P_BRIDGE | P_GATEWAY },
};

/*
 * dockerd-client first: on a small machine the children compete for the
 * CPU while they load, and its work (admission, create, attach) is what
 * the session waits for; it overlaps the others' start.
 */
static const enum cmcp_proc proc_spawn_order[] = {
	PROC_DOCKER, PROC_BRIDGE, PROC_GATEWAY, PROC_AUDITOR, PROC_WATCHDOG
};

struct proc_chan {
	struct imsgbuf	 pc_ibuf;
	struct event	 pc_ev;
	short		 pc_events;	/* 0: no event set */
	int		 pc_open;
	int		 pc_blocked;	/* the peer's buffer was full */
	void		(*pc_dispatch)(struct imsg *);
	void		(*pc_closed)(enum cmcp_proc);
};

static struct proc_chan			 proc_chans[PROC_MAX];
static const struct privsep_proc	*proc_self;
static const struct proc_hooks		*proc_hooks;
static void				(*proc_parent_dispatch)(struct imsg *);
static int				 proc_is_stopping;
static struct event			 proc_ev_term;
static struct event			 proc_ev_send;	/* queued, not flushed */
static int				 proc_ev_send_set;
#ifdef CMCP_TEST
static int				 proc_noready;
#endif

#ifdef CMCP_TEST
static const char *proc_probe_names[PROBE_FD] = {
	[PROBE_OPEN] = "open",
	[PROBE_SOCKET] = "socket",
	[PROBE_EXECVE] = "execve",
	[PROBE_KILL] = "kill",
	[PROBE_PTRACE] = "ptrace",
	[PROBE_BADMSG] = "badmsg",
};
#endif

static int	proc_linked(enum cmcp_proc, enum cmcp_proc);
static __dead void proc_exec(enum cmcp_proc, const int *, int, int);
static void	proc_chan_init(enum cmcp_proc, int);
static void	proc_chan_listen(enum cmcp_proc, void (*)(struct imsg *),
		    void (*)(enum cmcp_proc));
static void	proc_compose_msg(enum cmcp_proc, uint32_t, uint32_t, int,
		    const void *, size_t);
static void	proc_chan_update(struct proc_chan *);
static int	proc_chan_send(struct proc_chan *);
static void	proc_send_later(void);
static void	proc_send_queued(int, short, void *);
static void	proc_chan_handler(int, short, void *);
static int	proc_chan_drain(struct proc_chan *);
static void	proc_child_closed(enum cmcp_proc);
static void	proc_dispatch_parent(struct imsg *);
static __dead void proc_shutdown(void);
#ifdef CMCP_TEST
static void	proc_probe(struct imsg *);
static void	proc_probe_fd(enum cmcp_proc, const char *);
#endif
static void	proc_recv_init(struct ctl_init *);
static void	proc_log_sink(int, const char *);
static void	proc_sig_term(int, short, void *);

const struct privsep_proc *
proc_bytitle(const char *title)
{
	int	 i;

	for (i = 0; i < PROC_MAX; i++)
		if (strcmp(proc_names[i], title) == 0)
			return (&procs[i]);
	return (NULL);
}

const char *
proc_title(enum cmcp_proc id)
{
	if (id >= PROC_MAX)
		return ("unknown");
	return (proc_names[id]);
}

/*
 * Parent: build the mesh, then fork and re-exec every child with its
 * channel ends on the fixed descriptors.  Returns the pids and the
 * parent's end of each parent channel.
 */
void
proc_spawn(int debug, int verbose, pid_t pids[PROC_MAX], int chan[PROC_MAX])
{
	int		 fds[PROC_MAX][PROC_MAX], sp[2];
	sigset_t	 all, old;
	size_t		 i;
	int		 a, b;

	for (a = 0; a < PROC_MAX; a++)
		for (b = 0; b < PROC_MAX; b++)
			fds[a][b] = -1;
	for (a = 0; a < PROC_MAX; a++) {
		for (b = a + 1; b < PROC_MAX; b++) {
			if (!proc_linked(a, b))
				continue;
			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
			    SOCK_NONBLOCK, PF_UNSPEC, sp) == -1)
				fatal("socketpair");
			fds[a][b] = sp[0];
			fds[b][a] = sp[1];
		}
	}

	/*
	 * No signal may run the parent's handlers in a child between fork
	 * and exec; the child unblocks once its own dispositions are set.
	 */
	if (sigfillset(&all) == -1 ||
	    sigprocmask(SIG_SETMASK, &all, &old) == -1)
		fatal("sigprocmask");
	pids[PROC_PARENT] = getpid();
	for (i = 0; i < nitems(proc_spawn_order); i++) {
		a = proc_spawn_order[i];
		switch (pids[a] = fork()) {
		case -1:
			fatal("fork");
		case 0:
			proc_exec(a, fds[a], debug, verbose);
			/* NOTREACHED */
		}
	}
	if (sigprocmask(SIG_SETMASK, &old, NULL) == -1)
		fatal("sigprocmask");

	for (a = PROC_PARENT + 1; a < PROC_MAX; a++)
		for (b = 0; b < PROC_MAX; b++)
			if (fds[a][b] != -1 && close(fds[a][b]) == -1)
				fatal("close");
	for (b = 0; b < PROC_MAX; b++)
		chan[b] = fds[PROC_PARENT][b];
}

/*
 * The child after fork, still the parent's image: move the channel ends
 * to CHAN_FD(peer), close everything else, exec ourselves afresh.
 */
static __dead void
proc_exec(enum cmcp_proc id, const int *fds, int debug, int verbose)
{
	char		*argv[8], *envp[] = { NULL };
	int		 tmp[PROC_MAX], argc = 0, fd, i;

	/* A child reads no terminal; with -d it keeps stderr for logging. */
	if ((fd = open(_PATH_DEVNULL, O_RDWR)) == -1)
		goto fail;
	if (dup2(fd, STDIN_FILENO) == -1 || dup2(fd, STDOUT_FILENO) == -1 ||
	    (!debug && dup2(fd, STDERR_FILENO) == -1))
		goto fail;
	if (fd > STDERR_FILENO && close(fd) == -1)
		goto fail;

	/* Above the fixed range first, so no dup2 clobbers a source. */
	for (i = 0; i < PROC_MAX; i++) {
		tmp[i] = -1;
		if (fds[i] != -1 && (tmp[i] = fcntl(fds[i], F_DUPFD_CLOEXEC,
		    CHAN_FD(PROC_MAX))) == -1)
			goto fail;
	}
	for (i = 0; i < PROC_MAX; i++) {
		if (tmp[i] != -1) {
			if (dup2(tmp[i], CHAN_FD(i)) == -1)
				goto fail;
		} else if (close(CHAN_FD(i)) == -1 && errno != EBADF)
			goto fail;
	}
	closefrom(CHAN_FD(PROC_MAX));

	argv[argc++] = CMCP_NAME;
	argv[argc++] = "-P";
	argv[argc++] = (char *)proc_names[id];
	if (debug)
		argv[argc++] = "-d";
	if (verbose > 0)
		argv[argc++] = verbose > 1 ? "-vv" : "-v";
	argv[argc] = NULL;

	execve("/proc/self/exe", argv, envp);
 fail:
	log_warn("cannot start %s", proc_names[id]);
	_exit(127);
}

static int
proc_linked(enum cmcp_proc a, enum cmcp_proc b)
{
	int	 ab, ba;

	ab = (procs[a].p_peers & PROC_BIT(b)) != 0;
	ba = (procs[b].p_peers & PROC_BIT(a)) != 0;
	if (ab != ba)
		fatalx("process table: %s and %s disagree on their channel",
		    proc_names[a], proc_names[b]);
	if (!ab && ((procs[a].p_fdpeers & PROC_BIT(b)) != 0 ||
	    (procs[b].p_fdpeers & PROC_BIT(a)) != 0))
		fatalx("process table: descriptors between %s and %s, "
		    "which have no channel", proc_names[a], proc_names[b]);
	return (ab);
}

/*
 * Child: called from main() for -P title.  Set up logging and the parent
 * channel, wait for the privsep parameters, hand over to the process.
 */
void
proc_child(const char *title, int debug, int verbose)
{
	const struct privsep_proc	*p;
	struct ctl_init			 ci;
	sigset_t			 none;

	log_init(debug ? LOG_TO_STDERR : LOG_TO_SINK, verbose, LOG_DAEMON);
	/* Before anything sized from the configuration is allocated. */
	sandbox_heap_init();
	if ((p = proc_bytitle(title)) == NULL || p->p_main == NULL)
		fatalx("unknown process %s", title);
	proc_self = p;
	log_procinit(proc_names[p->p_id]);
	proc_chan_init(PROC_PARENT, CHAN_FD(PROC_PARENT));
	log_setsink(proc_log_sink);

	/* The parent alone answers the terminal; SIGTERM comes from it. */
	if (signal(SIGINT, SIG_IGN) == SIG_ERR ||
	    signal(SIGHUP, SIG_IGN) == SIG_ERR ||
	    signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		fatal("signal");
	if (sigemptyset(&none) == -1 ||
	    sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		fatal("sigprocmask");

	setproctitle("%s", proc_names[p->p_id]);
	proc_recv_init(&ci);
#ifdef CMCP_TEST
	proc_noready = ci.ci_noready;
#endif
	p->p_main(&ci);
}

/* Block (before the sandbox) until IMSG_CTL_INIT arrives. */
static void
proc_recv_init(struct ctl_init *ci)
{
	struct imsg	 imsg;

	proc_recv_early(IMSG_CTL_INIT, &imsg);
	if (imsg_get_data(&imsg, ci, sizeof(*ci)) == -1)
		fatalx("channel parent: init message of %zu bytes",
		    imsg_get_len(&imsg));
	imsg_free(&imsg);
	if (memchr(ci->ci_chroot, '\0', sizeof(ci->ci_chroot)) == NULL)
		fatalx("channel parent: chroot path unterminated");
}

/*
 * Child, before its event loop: block until the next message on the
 * parent channel, which must be of the given type; the caller frees it.
 * The end of the channel here is the parent's end: exit quietly.
 */
void
proc_recv_early(uint32_t type, struct imsg *imsg)
{
	struct imsgbuf	*ibuf = &proc_chans[PROC_PARENT].pc_ibuf;
	struct pollfd	 pfd;
	int		 n;

	for (;;) {
		if ((n = imsgbuf_get(ibuf, imsg)) == -1)
			fatal("channel parent: bad message");
		if (n == 1)
			break;
		pfd.fd = ibuf->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
			fatal("poll");
		if ((n = imsgbuf_read(ibuf)) == -1)
			fatal("channel parent: read");
		if (n == 0 && ibuf->rlen == 0)
			exit(0);
	}
	if (imsg_get_type(imsg) != type)
		proc_unexpected(PROC_PARENT, imsg);
}

/*
 * Child, inside a dispatch function: block until the next message on the
 * channel to peer, for at most timeout_ms.  0 with the message, which the
 * caller frees; -1 when the time ran out.  Only for a channel whose
 * protocol is one request, one answer (the event loop has nothing of it
 * buffered then); its end is fatal.
 */
int
proc_recv_sync(enum cmcp_proc peer, struct imsg *imsg, int64_t timeout_ms)
{
	struct proc_chan	*pc = &proc_chans[peer];
	struct imsgbuf		*ibuf = &pc->pc_ibuf;
	struct pollfd		 pfd;
	struct timespec		 now;
	int64_t			 end, left;
	int			 n;

	if (!pc->pc_open)
		fatalx("channel %s: not open", proc_title(peer));
	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		fatal("clock_gettime");
	end = timespec_to_ms(&now) + timeout_ms;
	for (;;) {
		if ((n = imsgbuf_get(ibuf, imsg)) == -1)
			fatal("channel %s: bad message", proc_title(peer));
		if (n == 1)
			return (0);
		if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
			fatal("clock_gettime");
		left = end - timespec_to_ms(&now);
		if (left <= 0)
			return (-1);
		pfd.fd = ibuf->fd;
		pfd.events = POLLIN;
		if ((n = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left)) ==
		    -1 && errno != EINTR)
			fatal("poll");
		if (n <= 0)
			continue;
		if ((n = imsgbuf_read(ibuf)) == -1)
			fatal("channel %s: read", proc_title(peer));
		if (n == 0)
			fatalx("channel %s: closed", proc_title(peer));
	}
}

/*
 * Child, after the privilege drop and before the sandbox: the event loop,
 * its signal events and one channel per peer of the process table, each
 * with the process's own dispatch function; the parent's through
 * proc_dispatch_parent(), with the hooks (may be NULL).
 */
void
proc_listen(const struct proc_handler *ph, size_t nph,
    const struct proc_hooks *hooks)
{
	static const struct proc_hooks	 none;
	void				(*dispatch)(struct imsg *);
	unsigned int			 seen = 0, bit;
	size_t				 i;

	if (event_init() == NULL)
		fatalx("event_init failed");
	signal_set(&proc_ev_term, SIGTERM, proc_sig_term, NULL);
	if (signal_add(&proc_ev_term, NULL) == -1)
		fatalx("signal_add failed");

	for (i = 0; i < nph; i++) {
		bit = PROC_BIT(ph[i].ph_peer);
		if ((proc_self->p_peers & bit) == 0 || (seen & bit) != 0)
			fatalx("no channel to %s", proc_title(ph[i].ph_peer));
		seen |= bit;
	}
	if (seen != proc_self->p_peers)
		fatalx("a channel has no handler");

	proc_hooks = hooks != NULL ? hooks : &none;
	for (i = 0; i < nph; i++) {
		dispatch = ph[i].ph_dispatch;
		if (ph[i].ph_peer == PROC_PARENT) {
			proc_parent_dispatch = dispatch;
			dispatch = proc_dispatch_parent;
		} else
			proc_chan_init(ph[i].ph_peer, CHAN_FD(ph[i].ph_peer));
		proc_chan_listen(ph[i].ph_peer, dispatch, proc_child_closed);
	}
}

/*
 * Child: what the parent says to every child, then the process's own
 * messages.  Stopping is recorded before the hook runs, so a channel the
 * hook's work closes is already an expected end.
 */
static void
proc_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_START:
		log_debug("started");
		if (proc_hooks->ph_start != NULL)
			proc_hooks->ph_start();
		break;
	case IMSG_CTL_STOPPING:
		proc_stopping();
		if (proc_hooks->ph_stopping != NULL)
			proc_hooks->ph_stopping();
		break;
	case IMSG_CTL_SHUTDOWN:
		if (proc_hooks->ph_shutdown != NULL)
			proc_hooks->ph_shutdown();
		proc_shutdown();
		/* NOTREACHED */
#ifdef CMCP_TEST
	case IMSG_CTL_PROBE:
		proc_probe(imsg);
		break;
#endif
	default:
		proc_parent_dispatch(imsg);
	}
}

/*
 * Child, sandboxed, about to enter its loop.  What came in along with
 * IMSG_CTL_INIT is already buffered and would not wake the loop, so it
 * is dispatched here.
 */
void
proc_ready(void)
{
#ifdef CMCP_TEST
	if (!proc_noready)
#endif
	{
		/* Out before whatever the buffered messages start. */
		proc_compose(PROC_PARENT, IMSG_CTL_READY, NULL, 0);
		proc_flush(PROC_PARENT);
	}
	(void)proc_chan_drain(&proc_chans[PROC_PARENT]);
}

/* Orderly shutdown has begun: peers closing their channels is expected. */
void
proc_stopping(void)
{
	proc_is_stopping = 1;
}

static void
proc_shutdown(void)
{
	log_debug("shutting down");
	exit(0);
}

static void
proc_child_closed(enum cmcp_proc peer)
{
	if (peer == PROC_PARENT)
		exit(0);
	/*
	 * The parent sends IMSG_CTL_STOPPING to every child before it lets
	 * the first one exit, so it is already queued on our parent channel
	 * when a peer's end closes in an orderly shutdown.
	 */
	if (!proc_is_stopping && proc_chans[PROC_PARENT].pc_open)
		proc_chan_handler(CHAN_FD(PROC_PARENT), EV_READ,
		    &proc_chans[PROC_PARENT]);
	if (!proc_is_stopping)
		fatalx("channel %s closed", proc_title(peer));
	log_debug("channel %s closed", proc_title(peer));
}

static void
proc_sig_term(int sig, short event, void *arg)
{
	(void)sig;
	(void)event;
	(void)arg;
	log_debug("terminated by the parent");
	exit(0);
}

/* Child without -d: every log line goes to the parent, which syslogs it. */
static void
proc_log_sink(int pri, const char *msg)
{
	struct proc_chan	*pc = &proc_chans[PROC_PARENT];
	struct ctl_log		 cl;

	if (!pc->pc_open)
		return;
	memset(&cl, 0, sizeof(cl));
	cl.cl_pri = pri;
	(void)strlcpy(cl.cl_msg, msg, sizeof(cl.cl_msg));
	/* Failing here cannot be logged; the parent sees us die instead. */
	if (imsg_compose(&pc->pc_ibuf, IMSG_CTL_LOG, 0, 0, -1, &cl,
	    sizeof(cl)) == -1)
		return;
	if (imsgbuf_flush(&pc->pc_ibuf) == -1)
		return;
}

/* Channels: one imsgbuf and one event, read (and write while blocked). */
void
proc_chan_open(enum cmcp_proc peer, int fd, void (*dispatch)(struct imsg *),
    void (*closed)(enum cmcp_proc))
{
	proc_chan_init(peer, fd);
	proc_chan_listen(peer, dispatch, closed);
}

static void
proc_chan_init(enum cmcp_proc peer, int fd)
{
	struct proc_chan		*pc = &proc_chans[peer];
	const struct privsep_proc	*self;

	if (pc->pc_open)
		fatalx("channel %s opened twice", proc_title(peer));
	if (imsgbuf_init(&pc->pc_ibuf, fd) == -1 ||
	    imsgbuf_set_maxsize(&pc->pc_ibuf, MAX_CHAN_MSG_BYTES) == -1)
		fatal("channel %s", proc_title(peer));
	/* Before the first read: a descriptor may come with it. */
	self = proc_self != NULL ? proc_self : &procs[PROC_PARENT];
	if ((self->p_fdpeers & PROC_BIT(peer)) != 0)
		imsgbuf_allow_fdsend(&pc->pc_ibuf);
	if ((procs[peer].p_fdpeers & PROC_BIT(self->p_id)) != 0)
		imsgbuf_allow_fdrecv(&pc->pc_ibuf);
	pc->pc_open = 1;
}

static void
proc_chan_listen(enum cmcp_proc peer, void (*dispatch)(struct imsg *),
    void (*closed)(enum cmcp_proc))
{
	struct proc_chan	*pc = &proc_chans[peer];

	/* The loop exists now: what is composed goes out from it. */
	if (!proc_ev_send_set) {
		event_set(&proc_ev_send, -1, 0, proc_send_queued, NULL);
		proc_ev_send_set = 1;
	}
	pc->pc_dispatch = dispatch;
	pc->pc_closed = closed;
	proc_chan_update(pc);
	if (imsgbuf_queuelen(&pc->pc_ibuf) > 0)
		proc_send_later();
}

void
proc_chan_close(enum cmcp_proc peer)
{
	struct proc_chan	*pc = &proc_chans[peer];

	if (!pc->pc_open)
		return;
	if (pc->pc_events != 0 && event_del(&pc->pc_ev) == -1)
		fatalx("event_del failed");
	if (close(pc->pc_ibuf.fd) == -1)
		fatal("channel %s: close", proc_title(peer));
	imsgbuf_clear(&pc->pc_ibuf);
	pc->pc_events = 0;
	pc->pc_blocked = 0;
	pc->pc_open = 0;
}

int
proc_chan_isopen(enum cmcp_proc peer)
{
	return (proc_chans[peer].pc_open);
}

/*
 * The peer process is gone: dispatch what it sent before it died (its
 * last log lines), up to the end of file, then close the channel.
 */
void
proc_chan_reap(enum cmcp_proc peer)
{
	struct proc_chan	*pc = &proc_chans[peer];
	int			 i, n;

	for (i = 0; i < PROC_REAP_READS && pc->pc_open; i++) {
		if ((n = imsgbuf_read(&pc->pc_ibuf)) == -1)
			break;
		if (proc_chan_drain(pc) == -1 || n == 0)
			break;
	}
	proc_chan_close(peer);
}

void
proc_compose(enum cmcp_proc peer, uint32_t type, const void *data,
    size_t len)
{
	proc_compose_fd(peer, type, -1, data, len);
}

/* The descriptor, when not -1, is closed once sent. */
void
proc_compose_fd(enum cmcp_proc peer, uint32_t type, int fd, const void *data,
    size_t len)
{
	proc_compose_msg(peer, type, 0, fd, data, len);
}

/* A request and its answer carry the same number in the header's peerid. */
void
proc_compose_id(enum cmcp_proc peer, uint32_t type, uint32_t id,
    const void *data, size_t len)
{
	proc_compose_msg(peer, type, id, -1, data, len);
}

static void
proc_compose_msg(enum cmcp_proc peer, uint32_t type, uint32_t id, int fd,
    const void *data, size_t len)
{
	struct proc_chan	*pc = &proc_chans[peer];

	if (!pc->pc_open)
		fatalx("channel %s: not open", proc_title(peer));
	if (imsg_compose(&pc->pc_ibuf, type, id, 0, fd, data, len) == -1)
		fatal("channel %s: compose", proc_title(peer));
	if (pc->pc_dispatch != NULL)
		proc_send_later();
}

/*
 * Write what is queued now, blocking until it is out.  A peer that is
 * gone leaves it queued: the loop's next write sees the same error and
 * closes the channel.
 */
void
proc_flush(enum cmcp_proc peer)
{
	struct proc_chan	*pc = &proc_chans[peer];

	if (!pc->pc_open)
		return;
	if (imsgbuf_flush(&pc->pc_ibuf) == -1) {
		if (errno != EPIPE)
			fatal("channel %s: flush", proc_title(peer));
		return;
	}
	if (pc->pc_blocked) {
		pc->pc_blocked = 0;
		proc_chan_update(pc);
	}
}

void
proc_unexpected(enum cmcp_proc peer, struct imsg *imsg)
{
	fatalx("unexpected message type %u on channel %s",
	    imsg_get_type(imsg), proc_title(peer));
}

/*
 * The channel's event: always readable, writable only while a write left
 * something queued.  Composing does not touch it: most messages are
 * flushed at once, and the rest go out from proc_send_queued().
 */
static void
proc_chan_update(struct proc_chan *pc)
{
	short	 events = EV_READ | EV_PERSIST;

	if (pc->pc_blocked)
		events |= EV_WRITE;
	if (events == pc->pc_events)
		return;
	if (pc->pc_events != 0 && event_del(&pc->pc_ev) == -1)
		fatalx("event_del failed");
	event_set(&pc->pc_ev, pc->pc_ibuf.fd, events, proc_chan_handler, pc);
	if (event_add(&pc->pc_ev, NULL) == -1)
		fatalx("event_add failed");
	pc->pc_events = events;
}

static void
proc_chan_handler(int fd, short event, void *arg)
{
	struct proc_chan	*pc = arg;
	enum cmcp_proc		 peer = pc - proc_chans;
	int			 n;

	(void)fd;
	if ((event & EV_WRITE) && proc_chan_send(pc) == -1)
		goto closed;
	if (event & EV_READ) {
		/* A peer that died with data unread resets the stream. */
		if ((n = imsgbuf_read(&pc->pc_ibuf)) == -1) {
			if (errno != ECONNRESET)
				fatal("channel %s: read", proc_title(peer));
			n = 0;
		}
		if (proc_chan_drain(pc) == -1)
			return;
		if (n == 0)
			goto closed;
	}
	proc_chan_update(pc);
	return;

 closed:
	proc_chan_close(peer);
	pc->pc_closed(peer);
}

/* One write that does not block; -1 when the peer is gone. */
static int
proc_chan_send(struct proc_chan *pc)
{
	if (imsgbuf_write(&pc->pc_ibuf) == -1) {
		if (errno != EPIPE)
			fatal("channel %s: write", proc_title(pc - proc_chans));
		return (-1);
	}
	pc->pc_blocked = imsgbuf_queuelen(&pc->pc_ibuf) > 0;
	return (0);
}

/*
 * Messages composed and not flushed go out once the current callback
 * returns, in the same turn of the loop.
 */
static void
proc_send_later(void)
{
	event_active(&proc_ev_send, EV_TIMEOUT, 1);
}

static void
proc_send_queued(int fd, short event, void *arg)
{
	struct proc_chan	*pc;
	enum cmcp_proc		 peer;

	(void)fd;
	(void)event;
	(void)arg;
	for (peer = 0; peer < PROC_MAX; peer++) {
		pc = &proc_chans[peer];
		if (!pc->pc_open || pc->pc_dispatch == NULL || pc->pc_blocked ||
		    imsgbuf_queuelen(&pc->pc_ibuf) == 0)
			continue;
		if (proc_chan_send(pc) == -1) {
			proc_chan_close(peer);
			pc->pc_closed(peer);
			continue;
		}
		proc_chan_update(pc);
	}
}

/* Dispatch every complete message; -1 when a handler closed the channel. */
static int
proc_chan_drain(struct proc_chan *pc)
{
	enum cmcp_proc	 peer = pc - proc_chans;
	struct imsg	 imsg;
	int		 n;

	while (pc->pc_open) {
		if ((n = imsgbuf_get(&pc->pc_ibuf, &imsg)) == -1)
			fatal("channel %s: bad message", proc_title(peer));
		if (n == 0)
			return (0);
		pc->pc_dispatch(&imsg);
		imsg_free(&imsg);
	}
	return (-1);
}

#ifdef CMCP_TEST
const char *
proc_probe_name(int attempt)
{
	static char	 names[PROC_MAX][32];
	enum cmcp_proc	 peer;

	if (attempt < 0 || attempt >= PROBE_MAX)
		return (NULL);
	if (attempt < PROBE_FD)
		return (proc_probe_names[attempt]);
	peer = attempt - PROBE_FD;
	(void)snprintf(names[peer], sizeof(names[peer]), "fd-%s",
	    proc_title(peer));
	return (names[peer]);
}

int
proc_probe_byname(const char *name)
{
	const struct privsep_proc	*p;
	int				 i;

	if (strncmp(name, "fd-", 3) == 0)
		return ((p = proc_bytitle(name + 3)) == NULL ? -1 :
		    PROBE_FD + (int)p->p_id);
	for (i = 0; i < PROBE_FD; i++)
		if (strcmp(proc_probe_names[i], name) == 0)
			return (i);
	return (-1);
}

/*
 * Test build: try one thing the sandbox forbids and say what happened.
 * Under the filter, a killing rule ends the process right here.
 */
static void
proc_probe(struct imsg *imsg)
{
	struct ctl_probe	 cp;

	if (imsg_get_data(imsg, &cp, sizeof(cp)) == -1 ||
	    proc_probe_name(cp.cp_attempt) == NULL)
		fatalx("channel parent: bad probe");
	proc_probe_run(cp.cp_attempt, cp.cp_sibling);
}

/* The attempt itself, also made by the parent against a child. */
void
proc_probe_run(int attempt, pid_t sibling)
{
	char			*argv[] = { CMCP_NAME, NULL };
	char			*envp[] = { NULL };
	const char		*name, *ename;
	int			 peer, r = -1;

	if ((name = proc_probe_name(attempt)) == NULL)
		fatalx("bad probe");
	if (attempt >= PROBE_FD) {
		proc_probe_fd(attempt - PROBE_FD, name);
		return;
	}
	errno = 0;
	switch (attempt) {
	case PROBE_OPEN:
		if ((r = open("/", O_RDONLY)) != -1 && close(r) == -1)
			fatal("close");
		break;
	case PROBE_SOCKET:
		if ((r = socket(AF_INET, SOCK_STREAM, 0)) != -1 &&
		    close(r) == -1)
			fatal("close");
		break;
	case PROBE_EXECVE:
		r = execve("/proc/self/exe", argv, envp);
		break;
	case PROBE_KILL:
		r = kill(sibling, SIGTERM);
		break;
	case PROBE_PTRACE:
		/* SEIZE: succeeding must not stop the sibling. */
		r = ptrace(PTRACE_SEIZE, sibling, NULL, NULL);
		break;
	case PROBE_BADMSG:
		/* A type no channel accepts, on every channel we have. */
		for (peer = 0; peer < PROC_MAX; peer++)
			if (proc_self->p_peers & PROC_BIT(peer))
				proc_compose(peer, IMSG_NONE, NULL, 0);
		log_info("probe %s: sent", name);
		return;
	}
	if (r == -1) {
		if ((ename = strerrorname_np(errno)) == NULL)
			ename = "unknown";
		log_info("probe %s: denied errno %s", name, ename);
	} else
		log_info("probe %s: allowed", name);
}

/*
 * Test build: a descriptor on the channel to peer, whatever the table
 * says, as a process that ignores its own side of it would send one.
 * The message is a log line that says so, in case the peer takes it.
 * The descriptor is our standard input (/dev/null), which no child reads.
 */
static void
proc_probe_fd(enum cmcp_proc peer, const char *name)
{
	struct proc_chan	*pc = &proc_chans[peer];
	struct ctl_log		 cl;

	if ((proc_self->p_peers & PROC_BIT(peer)) == 0 || !pc->pc_open) {
		log_info("probe %s: no channel", name);
		return;
	}
	memset(&cl, 0, sizeof(cl));
	cl.cl_pri = LOG_INFO;
	(void)snprintf(cl.cl_msg, sizeof(cl.cl_msg),
	    "probe %s: descriptor taken", name);
	imsgbuf_allow_fdsend(&pc->pc_ibuf);
	proc_compose_fd(peer, IMSG_CTL_LOG, STDIN_FILENO, &cl, sizeof(cl));
	proc_flush(peer);
	log_info("probe %s: sent", name);
}
#endif
