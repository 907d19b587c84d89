/*
 * cmcp-init -- PID 1 of an agent or sandbox container.
 *
 *	cmcp-init -t ms -- program [argument ...]
 *
 * Runs program as its only child and ends the container when the program
 * exits or when ms milliseconds have passed, whichever comes first.  It is
 * PID 1 of the container's pid namespace, so its exit makes the kernel kill
 * every other process of the container, setsid'd descendants included.
 * The deadline therefore holds when every host process is gone.
 *
 * Design (b) of DESIGN 7: the whole container runs as one non-root uid:gid
 * with no capabilities.  cmcp-init refuses to run otherwise.  It protects
 * itself from the workload, which has the same uid, by being non-dumpable
 * (no ptrace, no /proc/1/mem or /proc/1/environ) and by installing no
 * signal handler: the kernel drops every signal sent to a namespace's init
 * from inside the namespace unless the init handles it.  It waits with
 * SIGCHLD blocked and sigtimedwait(2), which needs no handler either.
 *
 * The exit status is described in cmcp-init.h.  It is static and uses only
 * syscalls of Docker's default seccomp profile.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmcp-init.h"

#define USAGE	"usage: cmcp-init -t ms -- program [argument ...]"

static void	fail(const char *) __attribute__((__noreturn__));
static int64_t	now_ms(void);
static int	has_privilege(void);
static int64_t	parse_ms(const char *);
static pid_t	spawn(char **, const sigset_t *, int64_t);
static int	fold_status(int);

static void
fail(const char *why)
{
	char	 buf[128];
	int	 n;

	/* Best effort: stderr belongs to the workload's stream. */
	n = snprintf(buf, sizeof(buf), "cmcp-init: %s\n", why);
	if (n > 0 && write(STDERR_FILENO, buf, (size_t)n < sizeof(buf) ?
	    (size_t)n : sizeof(buf) - 1) == -1)
		_exit(CMCP_INIT_FAILED);
	_exit(CMCP_INIT_FAILED);
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fail("clock_gettime");
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Root in any id, or any capability left: not design (b). */
static int
has_privilege(void)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[_LINUX_CAPABILITY_U32S_3];
	uid_t				 ruid, euid, suid;
	gid_t				 rgid, egid, sgid;
	size_t				 i;

	if (getresuid(&ruid, &euid, &suid) == -1 ||
	    getresgid(&rgid, &egid, &sgid) == -1)
		return 1;
	if (ruid == 0 || euid == 0 || suid == 0 ||
	    rgid == 0 || egid == 0 || sgid == 0)
		return 1;
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		return 1;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable)
			return 1;
	return 0;
}

static int64_t
parse_ms(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 ||
	    v < CMCP_INIT_MIN_MS || v > CMCP_INIT_MAX_MS)
		return -1;
	return v;
}

/*
 * Fork and exec the workload.  A close-on-exec pipe tells an exec failure
 * (the child writes its errno) from a successful exec (EOF); the wait for
 * it is bounded by the deadline.
 */
static pid_t
spawn(char **argv, const sigset_t *oldmask, int64_t deadline)
{
	struct pollfd	 pfd;
	int		 p[2], e, n;
	int64_t		 left;
	pid_t		 pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		fail("pipe2");
	switch (pid = fork()) {
	case -1:
		fail("fork");
	case 0:
		(void)close(p[0]);
		if (sigprocmask(SIG_SETMASK, oldmask, NULL) == -1)
			e = errno;
		else {
			execv(argv[0], argv);
			e = errno;
		}
		/* If even this fails, the parent sees EOF and status 127. */
		if (write(p[1], &e, sizeof(e)) == -1)
			_exit(127);
		_exit(127);
	}
	(void)close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			_exit(CMCP_INIT_TIME_LIMIT);
		n = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			fail("poll");
		if (n == 0)
			continue;
		n = read(p[0], &e, sizeof(e));
		if (n == -1 && errno == EINTR)
			continue;
		break;
	}
	if (n != 0)
		fail("cannot execute workload");
	(void)close(p[0]);
	return pid;
}

static int
fold_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status) < CMCP_INIT_EXIT_HIGH ?
		    WEXITSTATUS(status) : CMCP_INIT_EXIT_HIGH;
	if (WIFSIGNALED(status) && WTERMSIG(status) > 0 &&
	    WTERMSIG(status) <= CMCP_INIT_SIG_MAX)
		return CMCP_INIT_SIG_BASE + WTERMSIG(status);
	return CMCP_INIT_EXIT_HIGH;
}

int
main(int argc, char *argv[])
{
	struct timespec	 ts;
	sigset_t	 chld, old;
	int64_t		 ms, deadline, left;
	pid_t		 child, pid;
	int		 ch, status;

	/*
	 * First, before anything the workload could race with.  The test
	 * build cmcp-init-dumpable leaves this out, to show what it stops.
	 */
#ifndef CMCP_INIT_MUTANT_DUMPABLE
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fail("PR_SET_DUMPABLE");
#endif
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fail("PR_SET_NO_NEW_PRIVS");

	ms = -1;
	while ((ch = getopt(argc, argv, "+t:")) != -1) {
		switch (ch) {
		case 't':
			if ((ms = parse_ms(optarg)) == -1)
				fail("bad deadline");
			break;
		default:
			fail(USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (ms == -1 || argc < 1 || argv[0][0] != '/')
		fail(USAGE);
	deadline = now_ms() + ms;

	if (getpid() != 1)
		fail("not PID 1 of a pid namespace");
	if (has_privilege())
		fail("runs as root or with capabilities");

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, &old) == -1)
		fail("sigprocmask");
	child = spawn(argv, &old, deadline);

	for (;;) {
		/* Reap everything: orphans of the container re-parent here. */
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			if (pid == child)
				_exit(fold_status(status));
		if (pid == -1 && errno != EINTR)
			fail("waitpid");
		left = deadline - now_ms();
		if (left <= 0)
			_exit(CMCP_INIT_TIME_LIMIT);
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		/* SIGCHLD, a timeout or an interruption: look again. */
		if (sigtimedwait(&chld, NULL, &ts) == -1 &&
		    errno != EAGAIN && errno != EINTR)
			fail("sigtimedwait");
	}
}
