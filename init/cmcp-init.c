/*
 * cmcp-init -- PID 1 of an agent or sandbox container.
 *
 *	cmcp-init -t ms [-r] -- program [argument ...]
 *	cmcp-init -c
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
 * The relay (-r), for an MCP host that spawns its server: the workload's
 * stdin is empty and its stdout is the container's stderr, so neither
 * carries the protocol; the container's stdin and stdout, the only way to
 * the bridge, wait in cmcp-init until the first process that connects to
 * the abstract socket CMCP_INIT_RELAY takes them.  That is `cmcp-init -c`,
 * the connector, spawned by the host as its MCP server: it receives the
 * two descriptors and copies its stdin to the one and the other to its
 * stdout.  Nothing is added to what the workload could reach: the
 * descriptors are the same stream it would have had as its stdio, an
 * abstract socket name lives in the container's own network namespace
 * (NetworkMode none), cmcp-init reads none of the bytes, and after the one
 * hand-over the socket is closed.
 *
 * The exit status is described in cmcp-init.h.  It is static and uses only
 * system calls of the containers' own seccomp profile (dockerd-client/
 * dkr_seccomp.c).
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmcp-init.h"

#define USAGE	"usage: cmcp-init -t ms [-r] -- program [argument ...]\n" \
		"       cmcp-init -c"

/* The connector's copy buffer, each way. */
#define RELAY_BUF_BYTES	(64 * 1024)

static void	fail(const char *) __attribute__((__noreturn__));
static int64_t	now_ms(void);
static int	has_privilege(void);
static int64_t	parse_ms(const char *);
static pid_t	spawn(char **, const sigset_t *, int64_t, int);
static int	fold_status(int);
static int	relay_listen(void);
static int	relay_hand_over(int);
static void	relay_address(struct sockaddr_un *, socklen_t *);
static struct cmsghdr *relay_msg(struct msghdr *, struct iovec *, char *,
		    void *, size_t);
static void	connector(void) __attribute__((__noreturn__));
static int	copy_some(int, int, char *, size_t *, size_t *);

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
spawn(char **argv, const sigset_t *oldmask, int64_t deadline, int relay)
{
	struct pollfd	 pfd;
	int		 p[2], q[2], e, n;
	int64_t		 left;
	pid_t		 pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		fail("pipe2");
	/* The relay's empty stdin: a pipe whose writer is closed. */
	if (relay && pipe2(q, O_CLOEXEC) == -1)
		fail("pipe2");
	switch (pid = fork()) {
	case -1:
		fail("fork");
	case 0:
		(void)close(p[0]);
		e = 0;
		if (relay && (dup2(q[0], STDIN_FILENO) == -1 ||
		    dup2(STDERR_FILENO, STDOUT_FILENO) == -1))
			e = errno;
		if (e == 0 && sigprocmask(SIG_SETMASK, oldmask, NULL) == -1)
			e = errno;
		if (e == 0) {
			execv(argv[0], argv);
			e = errno;
		}
		/* If even this fails, the parent sees EOF and status 127. */
		if (write(p[1], &e, sizeof(e)) == -1)
			_exit(127);
		_exit(127);
	}
	(void)close(p[1]);
	if (relay) {
		(void)close(q[0]);
		(void)close(q[1]);
	}
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
	struct signalfd_siginfo	 si;
	struct pollfd		 pfd[2];
	sigset_t		 chld, old;
	int64_t			 ms, deadline, left;
	pid_t			 child, pid;
	int			 ch, status, relay = 0, connect = 0, lfd = -1;
	int			 sfd, nfds, n;

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
	while ((ch = getopt(argc, argv, "+crt:")) != -1) {
		switch (ch) {
		case 'c':
			connect = 1;
			break;
		case 'r':
			relay = 1;
			break;
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
	if (connect) {
		if (relay || ms != -1 || argc != 0)
			fail(USAGE);
		if (has_privilege())
			fail("runs as root or with capabilities");
		connector();
	}
	if (ms == -1 || argc < 1 || argv[0][0] != '/')
		fail(USAGE);
	deadline = now_ms() + ms;

	if (getpid() != 1)
		fail("not PID 1 of a pid namespace");
	if (has_privilege())
		fail("runs as root or with capabilities");

	/*
	 * SIGCHLD stays blocked and is read from a signalfd: no handler, so
	 * the kernel still drops every signal the workload sends us.
	 */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, &old) == -1)
		fail("sigprocmask");
	if ((sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) == -1)
		fail("signalfd");
	/* Listening before the workload runs, so no connect comes early. */
	if (relay)
		lfd = relay_listen();
	child = spawn(argv, &old, deadline, relay);

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
		pfd[0].fd = sfd;
		pfd[0].events = POLLIN;
		nfds = 1;
		if (lfd != -1) {
			pfd[1].fd = lfd;
			pfd[1].events = POLLIN;
			nfds = 2;
		}
		n = poll(pfd, nfds, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n == -1 && errno != EINTR)
			fail("poll");
		if (n <= 0)
			continue;
		/* SIGCHLD: drain the signalfd, then look again. */
		if (pfd[0].revents & POLLIN)
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				;
		if (nfds == 2 && pfd[1].revents != 0 &&
		    relay_hand_over(lfd) == 0) {
			(void)close(lfd);
			lfd = -1;
		}
	}
}

/* The relay's name: abstract, so nothing on a file system is needed. */
static void
relay_address(struct sockaddr_un *sun, socklen_t *len)
{
	static const char	 name[] = CMCP_INIT_RELAY;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	/* sun_path[0] stays NUL; the name follows, without its own NUL. */
	memcpy(sun->sun_path + 1, name, sizeof(name) - 1);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    sizeof(name) - 1);
}

/* One byte and room for the two descriptors; the first control header. */
static struct cmsghdr *
relay_msg(struct msghdr *msg, struct iovec *iov, char *one, void *buf,
    size_t len)
{
	memset(msg, 0, sizeof(*msg));
	memset(buf, 0, len);
	iov->iov_base = one;
	iov->iov_len = 1;
	msg->msg_iov = iov;
	msg->msg_iovlen = 1;
	msg->msg_control = buf;
	msg->msg_controllen = len;
	return CMSG_FIRSTHDR(msg);
}

static int
relay_listen(void)
{
	struct sockaddr_un	 sun;
	socklen_t		 len;
	int			 fd;

	relay_address(&sun, &len);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		fail("socket");
	if (bind(fd, (struct sockaddr *)&sun, len) == -1)
		fail("bind");
	if (listen(fd, 1) == -1)
		fail("listen");
	return fd;
}

/*
 * Give the container's stdin and stdout to the one connection, then let
 * go of them: from here on only the connector holds the stream.  0 once
 * handed over; -1 when the connection went away first (the next may try).
 */
static int
relay_hand_over(int lfd)
{
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*cmsg;
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(2 * sizeof(int))];
	}		 cm;
	int		 fds[2] = { STDIN_FILENO, STDOUT_FILENO }, c;
	char		 one = 'R';

	if ((c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1)
		return -1;
	cmsg = relay_msg(&msg, &iov, &one, cm.buf, sizeof(cm.buf));
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cmsg), fds, sizeof(fds));
	if (sendmsg(c, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
		(void)close(c);
		return -1;
	}
	(void)close(c);
	(void)close(STDIN_FILENO);
	(void)close(STDOUT_FILENO);
	return 0;
}

/*
 * The connector: the MCP host's server.  Its stdin goes to the bridge,
 * the bridge's lines come out on its stdout; it ends when either side
 * closes.  It reads nothing of the bytes: the bridge parses them.
 */
static void
connector(void)
{
	struct sockaddr_un	 sun;
	struct msghdr		 msg;
	struct iovec		 iov;
	struct cmsghdr		*cmsg;
	struct pollfd		 pfd[2];
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(2 * sizeof(int))];
	}			 cm;
	static char		 up[RELAY_BUF_BYTES], down[RELAY_BUF_BYTES];
	size_t			 uplen = 0, upoff = 0, dnlen = 0, dnoff = 0;
	socklen_t		 len;
	int			 fd, fds[2], r;
	char			 one;

	/* A closed side is an end, not a signal. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		fail("signal");
	relay_address(&sun, &len);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fail("socket");
	if (connect(fd, (struct sockaddr *)&sun, len) == -1)
		fail("no relay: not under cmcp-init -r, or taken");
	(void)relay_msg(&msg, &iov, &one, cm.buf, sizeof(cm.buf));
	if (recvmsg(fd, &msg, MSG_CMSG_CLOEXEC) != 1 ||
	    (msg.msg_flags & MSG_CTRUNC) ||
	    (cmsg = CMSG_FIRSTHDR(&msg)) == NULL ||
	    cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(fds)))
		fail("relay: no stream");
	memcpy(fds, CMSG_DATA(cmsg), sizeof(fds));
	(void)close(fd);

	/* fds[0]: the bridge's lines; fds[1]: to the bridge. */
	for (;;) {
		pfd[0].fd = uplen == 0 ? STDIN_FILENO : fds[1];
		pfd[0].events = uplen == 0 ? POLLIN : POLLOUT;
		pfd[1].fd = dnlen == 0 ? fds[0] : STDOUT_FILENO;
		pfd[1].events = dnlen == 0 ? POLLIN : POLLOUT;
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fail("poll");
		}
		if (pfd[0].revents != 0) {
			r = copy_some(STDIN_FILENO, fds[1], up, &uplen,
			    &upoff);
			if (r == -1)
				_exit(0);	/* the host is done */
		}
		if (pfd[1].revents != 0) {
			r = copy_some(fds[0], STDOUT_FILENO, down, &dnlen,
			    &dnoff);
			if (r == -1)
				_exit(0);	/* the bridge is done */
		}
	}
}

/*
 * One step of a copy from in to out through buf: read when it is empty,
 * else write what is left.  -1 at end of file or an error either way.
 */
static int
copy_some(int in, int out, char *buf, size_t *len, size_t *off)
{
	ssize_t	 n;

	if (*len == 0) {
		n = read(in, buf, RELAY_BUF_BYTES);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			return 0;
		if (n <= 0)
			return -1;
		*len = (size_t)n;
		*off = 0;
		return 0;
	}
	n = write(out, buf + *off, *len - *off);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	*off += (size_t)n;
	if (*off == *len)
		*len = 0;
	return 0;
}
