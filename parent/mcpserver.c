/*
 * Spawning and closing the approved MCP servers (mcpserver.h has the
 * design).
 *
 * The pid namespace is made by unshare(CLONE_NEWPID) in the parent just
 * before fork(2): the new namespace is the one the parent's next child is
 * born into, and that child is its init.  setns(2) then puts the parent's
 * later children back into its own namespace.  fork(2) rather than a raw
 * clone(2) keeps the C library's own fork handling; the parent rather than
 * an intermediate process keeps the server a child of the parent, so that
 * the parent holds its pidfd and is the parent its death signal refers to.
 *
 * The child reports over a SOCK_SEQPACKET socketpair that closes on exec:
 * "ready" once set up, then, after the parent's "go", nothing (end of file:
 * the exec happened) or the step that failed and its errno.
 *
 * The parent-death signal is armed after the uid change, since a change
 * of credentials clears it, and before exec, which keeps it.  It names
 * the thread that forked, which is the parent's only thread.  The round
 * trip of "ready" and "go" closes the race with a parent that dies before
 * the signal was armed: the parent sends "go" only after "ready", so a
 * child that reads "go" knows the parent was alive once the signal was
 * armed, and a child that reads end of file exits.  (getppid() cannot tell:
 * the init of a namespace sees a parent pid of 0.)
 */

#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/nsfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "mcpserver.h"
#include "mstime.h"

#ifndef P_PIDFD
#define P_PIDFD		3	/* waitid(2) by pidfd, Linux 5.4 */
#endif

/* The child's setup steps, as it reports them. */
enum mcps_step {
	STEP_READY,
	STEP_SIGNALS,
	STEP_SESSION,
	STEP_FDS,
	STEP_CHDIR,
	STEP_RLIMIT,
	STEP_GROUPS,
	STEP_GID,
	STEP_UID,
	STEP_VERIFY,
	STEP_PDEATHSIG,
	STEP_NONEWPRIVS,
	STEP_EXEC,
	STEP_MAX
};

static const char *const mcps_steps[STEP_MAX] = {
	"ready",
	"signals",
	"setsid",
	"descriptors",
	"chdir /",
	"setrlimit RLIMIT_CORE",
	"setgroups",
	"setresgid",
	"setresuid",
	"ids differ from the ones set",
	"prctl PR_SET_PDEATHSIG",
	"prctl PR_SET_NO_NEW_PRIVS",
	"execve"
};

struct mcps_report {
	int		 step;
	int		 error;
};

/* The child's descriptors, in the order they get numbers 0 to 3. */
enum {
	CFD_STDIN,
	CFD_STDOUT,
	CFD_STDERR,
	CFD_SYNC,
	CFD_MAX
};

#ifdef MCPS_MUTATE
int	 mcps_mutate;
#endif

static __dead void mcps_child(const struct conf_server *, int *);
static __dead void mcps_fail(int, enum mcps_step);
static void	 mcps_verify(const struct conf_user *, int);
static int	 mcps_report(struct mcps *, int, struct mcps_report *);
static int	 mcps_wait(int, int);
static void	 mcps_signal(struct mcps *, int);
static void	 mcps_reap(struct mcps *);
static int	 mcps_ns_within(int, const struct stat *);
static int	 mcps_ns_depth(int, const char *);
static void	 mcps_closefd(int *);
static void	 mcps_sleep(int);

int
mcps_spawn(const struct conf_server *srv, struct mcps *m)
{
	const struct conf_user	*u = &srv->user;
	struct mcps_report	 r;
	sigset_t		 all, old;
	char			 path[64];
	int			 in[2] = { -1, -1 }, out[2] = { -1, -1 };
	int			 err[2] = { -1, -1 }, sync[2] = { -1, -1 };
	int			 cfd[CFD_MAX], selfns = -1, newns = 1;
	pid_t			 pid;

	memset(m, 0, sizeof(*m));
	m->pid = -1;
	m->infd = m->outfd = m->errfd = m->pidfd = m->nsfd = -1;
	(void)strlcpy(m->name, srv->name, sizeof(m->name));

	if (srv->cmd.argc == 0 || srv->cmd.argv[0] == NULL ||
	    srv->cmd.argv[0][0] != '/') {
		log_warnx("server %s: command is not an absolute path",
		    m->name);
		return (-1);
	}
	if (u->uid == 0 || u->gid == 0 || (u->has_group && u->sgid == 0)) {
		log_warnx("server %s: refusing to run with id 0", m->name);
		return (-1);
	}
#ifdef MCPS_MUTATE
	if (mcps_mutate & MCPS_MUTATE_NO_PIDNS)
		newns = 0;
#endif

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 ||
	    pipe2(err, O_CLOEXEC) == -1 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sync) == -1) {
		log_warn("server %s: pipe", m->name);
		goto fail;
	}
	/* The read end only: the server's write end stays blocking. */
	if (fcntl(err[0], F_SETFL, O_NONBLOCK) == -1) {
		log_warn("server %s: fcntl", m->name);
		goto fail;
	}
	if ((selfns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC)) ==
	    -1) {
		log_warn("server %s: /proc/self/ns/pid", m->name);
		goto fail;
	}

	/*
	 * No handler of the parent may run in the child before the child
	 * has reset them all: it would write into the parent's event loop.
	 */
	if (sigfillset(&all) == -1 ||
	    sigprocmask(SIG_SETMASK, &all, &old) == -1) {
		log_warn("server %s: sigprocmask", m->name);
		goto fail;
	}
	if (newns && unshare(CLONE_NEWPID) == -1) {
		log_warn("server %s: unshare CLONE_NEWPID", m->name);
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		goto fail;
	}
	if ((pid = fork()) == 0) {
		cfd[CFD_STDIN] = in[0];
		cfd[CFD_STDOUT] = out[1];
		cfd[CFD_STDERR] = err[1];
		cfd[CFD_SYNC] = sync[1];
		mcps_child(srv, cfd);
	}
	/*
	 * Were the parent left with the server's namespace for its
	 * children, its next child would be born inside it: better dead.
	 */
	if (newns && setns(selfns, CLONE_NEWPID) == -1)
		fatal("server %s: setns to the parent's pid namespace",
		    m->name);
	if (sigprocmask(SIG_SETMASK, &old, NULL) == -1)
		fatal("sigprocmask");
	if (pid == -1) {
		log_warn("server %s: fork", m->name);
		goto fail;
	}
	m->pid = pid;
	mcps_closefd(&in[0]);
	mcps_closefd(&out[1]);
	mcps_closefd(&err[1]);
	mcps_closefd(&sync[1]);

	/* The child is unreaped, so its pid cannot have been reused yet. */
	if ((m->pidfd = pidfd_open(pid, 0)) == -1) {
		log_warn("server %s: pidfd_open", m->name);
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		m->pid = -1;
		goto fail;
	}

	switch (mcps_report(m, sync[0], &r)) {
	case 1:
		break;
	case 0:
		log_warnx("server %s: ended during its setup", m->name);
		/* FALLTHROUGH */
	default:
		goto kill;
	}
	if (r.step != STEP_READY) {
		errno = r.error;
		log_warn("server %s: %s", m->name, mcps_steps[r.step]);
		goto kill;
	}
	/* It waits for "go", still in the namespace it was born in. */
	(void)snprintf(path, sizeof(path), "/proc/%ld/ns/pid", (long)pid);
	if ((m->nsfd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("server %s: %s", m->name, path);
		goto kill;
	}
	if (send(sync[0], "g", 1, MSG_NOSIGNAL) != 1) {
		log_warn("server %s: send", m->name);
		goto kill;
	}
	switch (mcps_report(m, sync[0], &r)) {
	case 0:
		break;
	case 1:
		errno = r.error;
		log_warn("server %s: %s %s", m->name, mcps_steps[r.step],
		    srv->cmd.argv[0]);
		/* FALLTHROUGH */
	default:
		goto kill;
	}

	mcps_closefd(&sync[0]);
	mcps_closefd(&selfns);
	m->infd = in[1];
	m->outfd = out[0];
	m->errfd = err[0];
	log_debug("server %s: pid %ld", m->name, (long)pid);
	return (0);

 kill:
	mcps_signal(m, SIGKILL);
	if (mcps_wait(m->pidfd, MCPS_KILL_MS) == 1)
		mcps_reap(m);
	if (!m->reaped)
		log_warnx("server %s: pid %ld not reaped", m->name,
		    (long)m->pid);
	mcps_closefd(&m->pidfd);
	mcps_closefd(&m->nsfd);
	m->pid = -1;
 fail:
	mcps_closefd(&in[0]);
	mcps_closefd(&in[1]);
	mcps_closefd(&out[0]);
	mcps_closefd(&out[1]);
	mcps_closefd(&err[0]);
	mcps_closefd(&err[1]);
	mcps_closefd(&sync[0]);
	mcps_closefd(&sync[1]);
	mcps_closefd(&selfns);
	return (-1);
}

/*
 * Read and discard what the server wrote on stderr, at most
 * MCPS_DRAIN_BYTES per call.  Returns the bytes drained by this call
 * (also added to errbytes), or -1.  At end of file errfd is closed and
 * set to -1: the caller stops polling it.
 */
ssize_t
mcps_drain_stderr(struct mcps *m)
{
	char		 buf[4096];
	size_t		 total = 0;
	ssize_t		 n;

	while (m->errfd != -1 && total < MCPS_DRAIN_BYTES) {
		if ((n = read(m->errfd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			explicit_bzero(buf, sizeof(buf));
			return (-1);
		}
		if (n == 0) {
			mcps_closefd(&m->errfd);
			break;
		}
		total += n;
		if (UINT64_MAX - m->errbytes < (uint64_t)n)
			m->errbytes = UINT64_MAX;
		else
			m->errbytes += n;
	}
	explicit_bzero(buf, sizeof(buf));
	return (total);
}

/*
 * The number of processes in the server's pid namespace or in one
 * nested in it, zombies included, from a scan of /proc; -1 if the scan
 * failed.
 */
int
mcps_members(const struct mcps *m)
{
	struct stat	 target;
	struct dirent	*de;
	DIR		*d;
	char		 path[NAME_MAX + 8];
	int		 fd, n = 0, in, self, depth;

	if (m->nsfd == -1)
		return (0);
	if (fstat(m->nsfd, &target) == -1)
		return (-1);
	if ((d = opendir("/proc")) == NULL)
		return (-1);
	self = mcps_ns_depth(dirfd(d), "self");
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0)
				n = -1;
			break;
		}
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		(void)snprintf(path, sizeof(path), "%s/ns/pid", de->d_name);
		if ((fd = openat(dirfd(d), path, O_RDONLY | O_CLOEXEC)) ==
		    -1) {
			/* Gone since readdir(), or reaped and not yet gone. */
			if (errno == ENOENT || errno == ESRCH)
				continue;
			/*
			 * Hidden from us (an LSM, a more privileged
			 * process): harmless only if it lives no deeper
			 * than we do, as every member lives deeper.
			 */
			if ((errno == EACCES || errno == EPERM) &&
			    self != -1 && (depth = mcps_ns_depth(dirfd(d),
			    de->d_name)) != -1 && depth <= self)
				continue;
			n = -1;
			break;
		}
		if ((in = mcps_ns_within(fd, &target)) == -1) {
			n = -1;
			break;
		}
		n += in;
	}
	(void)closedir(d);
	return (n);
}

/*
 * End of file on stdin (the polite close of MCP stdio), SIGTERM halfway
 * through timeout_ms, SIGKILL when it is over; then confirm by a scan of
 * /proc that no process of the namespace remains.  SIGTERM reaches only a
 * server that handles it: the kernel drops signals with the default
 * action that are sent to the init of a pid namespace, except SIGKILL
 * and SIGSTOP from an ancestor namespace.  The init's exit completes only
 * after the kernel killed and reaped every other process of the
 * namespace, so the scan is evidence, not a wait.
 *
 * Returns 0 once confirmed, -1 otherwise, with the pidfd and namespace
 * kept so that it may be called again.  It takes at most timeout_ms +
 * MCPS_KILL_MS + MCPS_CONFIRM_TRIES * MCPS_CONFIRM_MS, plus the scans.
 */
int
mcps_close(struct mcps *m, int timeout_ms)
{
	int	 half, n = -1, try, w;

	if (m->pidfd == -1)
		return (0);
	if (timeout_ms < 0)
		timeout_ms = 0;
	if (timeout_ms > MCPS_CLOSE_MAX_MS)
		timeout_ms = MCPS_CLOSE_MAX_MS;
	half = timeout_ms / 2;

	/* Nothing more is read: a server writing on gets EPIPE. */
	mcps_closefd(&m->infd);
	(void)mcps_drain_stderr(m);
	mcps_closefd(&m->outfd);
	mcps_closefd(&m->errfd);

	if ((w = mcps_wait(m->pidfd, half)) == 0) {
		mcps_signal(m, SIGTERM);
		if ((w = mcps_wait(m->pidfd, timeout_ms - half)) == 0) {
			mcps_signal(m, SIGKILL);
			w = mcps_wait(m->pidfd, MCPS_KILL_MS);
		}
	}
	if (w != 1) {
		if (w == 0)
			log_warnx("server %s: pid %ld outlives SIGKILL",
			    m->name, (long)m->pid);
		else
			log_warn("server %s: poll", m->name);
		return (-1);
	}
	mcps_reap(m);

	for (try = 0; try < MCPS_CONFIRM_TRIES; try++) {
		if ((n = mcps_members(m)) == 0)
			break;
		mcps_sleep(MCPS_CONFIRM_MS);
	}
	if (n != 0) {
		if (n == -1)
			log_warn("server %s: scanning /proc", m->name);
		else
			log_warnx("server %s: %d processes of its pid "
			    "namespace remain", m->name, n);
		return (-1);
	}
	mcps_closefd(&m->pidfd);
	mcps_closefd(&m->nsfd);
	log_debug("server %s: closed, status %d, %llu stderr bytes",
	    m->name, m->status, (unsigned long long)m->errbytes);
	return (0);
}

/*
 * In the child: set up, report ready, wait for go, exec.  Only plain
 * system calls from here on; any failure is reported and ends it.
 */
static __dead void
mcps_child(const struct conf_server *srv, int *cfd)
{
	const struct conf_user	*u = &srv->user;
	struct sigaction	 sa;
	struct mcps_report	 r;
	struct rlimit		 rl;
	sigset_t		 none;
	char			*envp[] = { NULL };
	char			 go;
	int			 fd, i, sig, pdeathsig = 1;

	/* Signals as after a fresh start, the parent's mask lifted last. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &sa, NULL);
	if (sigemptyset(&none) == -1 ||
	    sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		mcps_fail(cfd[CFD_SYNC], STEP_SIGNALS);

	if (setsid() == -1)
		mcps_fail(cfd[CFD_SYNC], STEP_SESSION);

	/*
	 * Move all four above 3 first, so that no dup2() below can land on
	 * one not yet moved; then 0 to 3, and nothing else open.
	 */
	for (i = 0; i < CFD_MAX; i++) {
		if ((fd = fcntl(cfd[i], F_DUPFD_CLOEXEC, CFD_MAX)) == -1)
			mcps_fail(cfd[CFD_SYNC], STEP_FDS);
		cfd[i] = fd;
	}
	for (i = 0; i < CFD_MAX; i++)
		if (dup2(cfd[i], i) == -1)
			mcps_fail(cfd[CFD_SYNC], STEP_FDS);
	if (fcntl(CFD_SYNC, F_SETFD, FD_CLOEXEC) == -1)
		mcps_fail(CFD_SYNC, STEP_FDS);
	closefrom(CFD_MAX);

	if (chdir("/") == -1)
		mcps_fail(CFD_SYNC, STEP_CHDIR);
	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_CORE, &rl) == -1)
		mcps_fail(CFD_SYNC, STEP_RLIMIT);

	if (u->has_group) {
		if (setgroups(1, &u->sgid) == -1)
			mcps_fail(CFD_SYNC, STEP_GROUPS);
	} else if (setgroups(0, NULL) == -1)
		mcps_fail(CFD_SYNC, STEP_GROUPS);
	if (setresgid(u->gid, u->gid, u->gid) == -1)
		mcps_fail(CFD_SYNC, STEP_GID);
	if (setresuid(u->uid, u->uid, u->uid) == -1)
		mcps_fail(CFD_SYNC, STEP_UID);
	mcps_verify(u, CFD_SYNC);

#ifdef MCPS_MUTATE
	if (mcps_mutate & MCPS_MUTATE_NO_PDEATHSIG)
		pdeathsig = 0;
#endif
	if (pdeathsig && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		mcps_fail(CFD_SYNC, STEP_PDEATHSIG);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		mcps_fail(CFD_SYNC, STEP_NONEWPRIVS);

	r.step = STEP_READY;
	r.error = 0;
	if (send(CFD_SYNC, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
		_exit(127);
	/* End of file: the parent died before it saw us ready. */
	if (recv(CFD_SYNC, &go, 1, 0) != 1 || go != 'g')
		_exit(127);

	execve(srv->cmd.argv[0], srv->cmd.argv, envp);
	mcps_fail(CFD_SYNC, STEP_EXEC);
}

static __dead void
mcps_fail(int sync, enum mcps_step step)
{
	struct mcps_report	 r;

	r.step = step;
	r.error = errno;
	(void)send(sync, &r, sizeof(r), MSG_NOSIGNAL);
	_exit(127);
}

/* The ids are exactly the configured ones, and root cannot come back. */
static void
mcps_verify(const struct conf_user *u, int sync)
{
	gid_t	 groups[2], rgid, egid, sgid;
	uid_t	 ruid, euid, suid;
	int	 ngroups;

	errno = EPERM;
	if (setgid(0) != -1 || setegid(0) != -1 ||
	    setuid(0) != -1 || seteuid(0) != -1)
		mcps_fail(sync, STEP_VERIFY);
	if (getresgid(&rgid, &egid, &sgid) == -1 ||
	    getresuid(&ruid, &euid, &suid) == -1 ||
	    (ngroups = getgroups(nitems(groups), groups)) == -1)
		mcps_fail(sync, STEP_VERIFY);
	errno = EPERM;
	if (rgid != u->gid || egid != u->gid || sgid != u->gid ||
	    ruid != u->uid || euid != u->uid || suid != u->uid ||
	    ngroups != (u->has_group ? 1 : 0) ||
	    (ngroups == 1 && groups[0] != u->sgid))
		mcps_fail(sync, STEP_VERIFY);
}

/*
 * One report from the child within MCPS_SPAWN_MS: 1 with *r filled in,
 * 0 at end of file, -1 on error or timeout (logged).
 */
static int
mcps_report(struct mcps *m, int sync, struct mcps_report *r)
{
	ssize_t	 n;

	switch (mcps_wait(sync, MCPS_SPAWN_MS)) {
	case 1:
		break;
	case 0:
		log_warnx("server %s: no report within %d ms", m->name,
		    MCPS_SPAWN_MS);
		return (-1);
	default:
		log_warn("server %s: poll", m->name);
		return (-1);
	}
	while ((n = recv(sync, r, sizeof(*r), 0)) == -1 && errno == EINTR)
		;
	if (n == 0)
		return (0);
	if (n != sizeof(*r) || r->step < 0 || r->step >= STEP_MAX) {
		if (n == -1)
			log_warn("server %s: recv", m->name);
		else
			log_warnx("server %s: bad report", m->name);
		return (-1);
	}
	return (1);
}

/*
 * Wait until fd is readable (a pidfd: the process has exited) for at
 * most ms milliseconds: 1 readable, 0 timed out, -1 error.
 */
static int
mcps_wait(int fd, int ms)
{
	struct pollfd	 pfd;
	struct timespec	 now, end, d;
	long long	 left;

	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		return (-1);
	ms_to_timespec(ms, &d);
	timespecadd(&now, &d, &end);
	for (;;) {
		if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
			return (-1);
		/* Rounded up: never return before the full ms. */
		left = 0;
		if (timespeccmp(&now, &end, <)) {
			timespecsub(&end, &now, &d);
			left = (long long)d.tv_sec * 1000 +
			    (d.tv_nsec + 999999) / 1000000;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		switch (poll(&pfd, 1, (int)left)) {
		case -1:
			if (errno == EINTR)
				continue;
			return (-1);
		case 0:
			if (left == 0)
				return (0);
			continue;
		default:
			return (1);
		}
	}
}

/* By pidfd: never a recycled pid, even once someone else has reaped. */
static void
mcps_signal(struct mcps *m, int sig)
{
	if (pidfd_send_signal(m->pidfd, sig, NULL, 0) == -1 &&
	    errno != ESRCH)
		log_warn("server %s: signal %d", m->name, sig);
}

/*
 * Collect the exited init by its pidfd.  ECHILD: the parent's SIGCHLD
 * handler (waitpid(-1)) was first, which is as good.
 */
static void
mcps_reap(struct mcps *m)
{
	siginfo_t	 si;

	if (m->reaped)
		return;
	memset(&si, 0, sizeof(si));
	while (waitid((idtype_t)P_PIDFD, m->pidfd, &si, WEXITED | WNOHANG) ==
	    -1) {
		if (errno == EINTR)
			continue;
		if (errno != ECHILD)
			log_warn("server %s: waitid", m->name);
		return;
	}
	if (si.si_pid == 0)
		return;
	m->reaped = 1;
	if (si.si_code == CLD_EXITED)
		m->status = W_EXITCODE(si.si_status, 0);
	else
		m->status = W_EXITCODE(0, si.si_status);
}

/*
 * 1 if the pid namespace fd refers to is target or nested in it, 0 if
 * not, -1 on error.  Closes fd.  NS_GET_PARENT fails with EPERM at the
 * top of what this process can see.
 */
static int
mcps_ns_within(int fd, const struct stat *target)
{
	struct stat	 st;
	int		 depth, up;

	for (depth = 0; depth <= MCPS_NS_DEPTH; depth++) {
		if (fstat(fd, &st) == -1) {
			(void)close(fd);
			return (-1);
		}
		if (st.st_dev == target->st_dev &&
		    st.st_ino == target->st_ino) {
			(void)close(fd);
			return (1);
		}
		up = ioctl(fd, NS_GET_PARENT);
		(void)close(fd);
		if (up == -1)
			return (errno == EPERM ? 0 : -1);
		fd = up;
	}
	(void)close(fd);
	errno = ELOOP;
	return (-1);
}

/*
 * How deep in nested pid namespaces, counted from the one of the proc
 * mount, the process named pid lives: the number of ids on the NSpid line
 * of its status file, which needs no ptrace access.  -1 on error.
 */
static int
mcps_ns_depth(int procfd, const char *pid)
{
	char	 path[NAME_MAX + 8], buf[4096], *p;
	ssize_t	 n;
	int	 fd, depth = 0;

	(void)snprintf(path, sizeof(path), "%s/status", pid);
	if ((fd = openat(procfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	if ((p = strstr(buf, "\nNSpid:")) == NULL)
		return (-1);
	for (p += strlen("\nNSpid:"); *p != '\n' && *p != '\0'; p++)
		if ((*p == '\t' || *p == ' ') && p[1] >= '0' && p[1] <= '9')
			depth++;
	if (*p != '\n' || depth == 0)
		return (-1);
	return (depth);
}

static void
mcps_closefd(int *fd)
{
	if (*fd != -1) {
		(void)close(*fd);
		*fd = -1;
	}
}

static void
mcps_sleep(int ms)
{
	struct timespec	 ts;

	ms_to_timespec(ms, &ts);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}
