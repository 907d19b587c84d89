/*
 * The parent's MCP server spawner (parent/mcpserver.c) against a real
 * server, regress/fixtures/mcps-server, run as an unprivileged uid.
 *
 * What the server runs as is read from the outside, in /proc.  What it
 * leaves behind is read there too: a descendant of the fixture that
 * double-forks into a session of its own writes its pid to a file, and
 * the test checks that pid after the close.  Each protection is shown
 * twice: the protected run leaves nothing, and a run of this separately
 * built binary with that one protection removed (mcps_mutate, or the
 * process-group close below) leaves the descendant alive, which the test
 * then kills by pid.
 *
 * Times are taken on the monotonic clock; the bounds are correctness
 * bounds with a margin for a busy host, not benchmarks.  The measured
 * close times go to stderr.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "mcpserver.h"

#define SERVER_UID	61010
#define SERVER_GID	61010
#define SERVER_SGID	61011
#define MARGIN_MS	1000		/* scheduling slack on a busy host */
#define PIDFILE_MS	5000		/* the escapee writing its pid */
#define FLOOD_BYTES	(4 * 1024 * 1024)
#define MAX_ARGS	8

struct fixture {
	struct conf_server	 srv;
	char			 path[PATH_MAX];
	char			 dir[PATH_MAX];		/* for pid files */
	char			 pidfile[PATH_MAX];
	char			*args[MAX_ARGS];
};

static void
now(struct timespec *ts)
{
	ATF_REQUIRE(clock_gettime(CLOCK_MONOTONIC, ts) == 0);
}

static long
elapsed_ms(const struct timespec *t0)
{
	struct timespec	 t1;

	now(&t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	    (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static void
sleep_ms(long ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * A server "test" running mcps-server with the given arguments (NULL
 * ended) as SERVER_UID:SERVER_GID, and a directory that uid may write
 * for the pid file, named in f->pidfile.
 */
static void
fixture_init(const atf_tc_t *tc, struct fixture *f, const char *const *args)
{
	char	 rel[PATH_MAX];
	size_t	 i;

	memset(f, 0, sizeof(*f));
	if (atf_tc_has_config_var(tc, "fixtures"))
		ATF_REQUIRE((size_t)snprintf(rel, sizeof(rel),
		    "%s/mcps-server", atf_tc_get_config_var(tc, "fixtures")) <
		    sizeof(rel));
	else
		ATF_REQUIRE((size_t)snprintf(rel, sizeof(rel),
		    "%s/../fixtures/mcps-server",
		    atf_tc_get_config_var(tc, "srcdir")) < sizeof(rel));
	/* The configuration's command is absolute. */
	ATF_REQUIRE_MSG(realpath(rel, f->path) != NULL, "%s: %s", rel,
	    strerror(errno));

	strlcpy(f->dir, "/tmp/mcps-test.XXXXXX", sizeof(f->dir));
	ATF_REQUIRE(mkdtemp(f->dir) != NULL);
	ATF_REQUIRE(chown(f->dir, SERVER_UID, SERVER_GID) == 0);
	ATF_REQUIRE((size_t)snprintf(f->pidfile, sizeof(f->pidfile),
	    "%s/escapee.pid", f->dir) < sizeof(f->pidfile));

	strlcpy(f->srv.name, "test", sizeof(f->srv.name));
	f->srv.cmd.argv[0] = f->path;
	for (i = 0; args[i] != NULL; i++) {
		ATF_REQUIRE(i + 1 < CONF_ARGS_MAX && i < MAX_ARGS);
		if (strcmp(args[i], "PIDFILE") == 0)
			f->args[i] = strdup(f->pidfile);
		else
			f->args[i] = strdup(args[i]);
		ATF_REQUIRE(f->args[i] != NULL);
		f->srv.cmd.argv[i + 1] = f->args[i];
	}
	f->srv.cmd.argc = i + 1;
	f->srv.cmd.argv[i + 1] = NULL;
	f->srv.user.uid = SERVER_UID;
	f->srv.user.gid = SERVER_GID;
	f->srv.timeout_ms = 5000;
}

static void
fixture_free(struct fixture *f)
{
	size_t	 i;

	(void)unlink(f->pidfile);
	(void)rmdir(f->dir);
	for (i = 0; i < MAX_ARGS; i++)
		free(f->args[i]);
}

/* The pid the escapee wrote, once the whole line is there. */
static pid_t
pidfile_wait(const char *path)
{
	struct timespec	 t0;
	char		 buf[32], *end;
	ssize_t		 n;
	long		 pid;
	int		 fd;

	now(&t0);
	while (elapsed_ms(&t0) < PIDFILE_MS) {
		if ((fd = open(path, O_RDONLY)) != -1) {
			n = read(fd, buf, sizeof(buf) - 1);
			ATF_REQUIRE(close(fd) == 0);
			if (n > 1 && buf[n - 1] == '\n') {
				buf[n - 1] = '\0';
				errno = 0;
				pid = strtol(buf, &end, 10);
				ATF_REQUIRE(errno == 0 && *end == '\0' &&
				    pid > 1);
				return pid;
			}
		}
		sleep_ms(5);
	}
	atf_tc_fail("no pid in %s after %d ms", path, PIDFILE_MS);
}

/* A process with this pid exists and is not a zombie. */
static int
alive(pid_t pid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;

	if (kill(pid, 0) == -1)
		return 0;
	(void)snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	return p[2] != 'Z' && p[2] != 'X';
}

/* Reap orphans handed to this (subreaper) process while waiting. */
static int
gone_within(pid_t pid, long ms)
{
	struct timespec	 t0;

	now(&t0);
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (kill(pid, 0) == -1 && errno == ESRCH)
			return 1;
		if (elapsed_ms(&t0) >= ms)
			return 0;
		sleep_ms(5);
	}
}

static void
kill_by_pid(pid_t pid)
{
	if (kill(pid, SIGKILL) == -1)
		ATF_REQUIRE(errno == ESRCH);
	ATF_REQUIRE(gone_within(pid, 5000));
}

/* One line of /proc/pid/status after its "Name:", tabs and all. */
static void
status_field(pid_t pid, const char *name, char *out, size_t outlen)
{
	char	 path[64], line[512];
	size_t	 len = strlen(name);
	FILE	*fp;

	(void)snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	ATF_REQUIRE((fp = fopen(path, "r")) != NULL);
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, name, len) != 0 || line[len] != ':')
			continue;
		line[strcspn(line, "\n")] = '\0';
		strlcpy(out, line + len + 1, outlen);
		ATF_REQUIRE(fclose(fp) == 0);
		return;
	}
	atf_tc_fail("%s: no %s", path, name);
}

static ino_t
ns_ino(pid_t pid)
{
	char		 path[64];
	struct stat	 st;

	(void)snprintf(path, sizeof(path), "/proc/%ld/ns/pid", (long)pid);
	ATF_REQUIRE(stat(path, &st) == 0);
	return st.st_ino;
}

/*
 * The namespace holds want processes, once the fixture has reaped the
 * intermediate of its double fork.
 */
static void
members_settle(const struct mcps *m, int want)
{
	struct timespec	 t0;
	int		 n;

	now(&t0);
	while ((n = mcps_members(m)) != want && elapsed_ms(&t0) < 2000)
		sleep_ms(5);
	ATF_REQUIRE_EQ_MSG(n, want, "%d processes in the namespace", n);
}

static void
spawn(struct fixture *f, struct mcps *m)
{
	ATF_REQUIRE(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
	ATF_REQUIRE_MSG(mcps_spawn(&f->srv, m) == 0, "mcps_spawn failed");
	ATF_REQUIRE(m->pid > 1);
}

static long
close_timed(struct mcps *m, int timeout_ms, const char *what)
{
	struct timespec	 t0;
	long		 ms;

	now(&t0);
	ATF_REQUIRE_EQ(mcps_close(m, timeout_ms), 0);
	ms = elapsed_ms(&t0);
	fprintf(stderr, "close %s: %ld ms (grace %d ms)\n", what, ms,
	    timeout_ms);
	return ms;
}

/*
 * The old way, the mutation of mcps_close(): end of file and SIGKILL to
 * the server's process group, nothing else.
 */
static void
mcps_close_pgrp_only(struct mcps *m)
{
	siginfo_t	 si;

	(void)close(m->infd);
	(void)close(m->outfd);
	(void)close(m->errfd);
	ATF_REQUIRE(killpg(m->pid, SIGKILL) == 0);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, m->pid, &si, WEXITED) == 0);
	(void)close(m->pidfd);
	(void)close(m->nsfd);
	m->infd = m->outfd = m->errfd = m->pidfd = m->nsfd = -1;
}

static void
write_line(int fd, const char *s)
{
	ATF_REQUIRE_EQ(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

/* Read until buf holds a whole line or ms pass: its length, or -1. */
static ssize_t
read_line(int fd, char *buf, size_t len, long ms)
{
	struct pollfd	 pfd;
	struct timespec	 t0;
	size_t		 have = 0;
	ssize_t		 n;
	long		 left;

	now(&t0);
	while (have + 1 < len) {
		if ((left = ms - elapsed_ms(&t0)) <= 0)
			return -1;
		pfd.fd = fd;
		pfd.events = POLLIN;
		ATF_REQUIRE(poll(&pfd, 1, left) != -1);
		if (pfd.revents == 0)
			continue;
		ATF_REQUIRE((n = read(fd, buf + have, len - 1 - have)) != -1);
		if (n == 0)
			return -1;
		have += n;
		buf[have] = '\0';
		if (buf[have - 1] == '\n')
			return have;
	}
	return -1;
}

ATF_TC(spawn_confined);
ATF_TC_HEAD(spawn_confined, tc)
{
	atf_tc_set_md_var(tc, "descr", "The server runs as the configured "
	    "uid and gid, no supplementary group, empty environment, own "
	    "session, own pid namespace as its init, cwd /, no core, "
	    "no_new_privs, three descriptors");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(spawn_confined, tc)
{
	static const char *const args[] = { "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	struct stat	 st;
	char		 path[64], buf[512];
	ssize_t		 n;
	int		 fd, nfds;
	DIR		*d;
	struct dirent	*de;
	FILE		*fp;

	fixture_init(tc, &f, args);
	spawn(&f, &m);

	status_field(m.pid, "Uid", buf, sizeof(buf));
	ATF_REQUIRE_STREQ(buf, "\t61010\t61010\t61010\t61010");
	status_field(m.pid, "Gid", buf, sizeof(buf));
	ATF_REQUIRE_STREQ(buf, "\t61010\t61010\t61010\t61010");
	status_field(m.pid, "Groups", buf, sizeof(buf));
	ATF_REQUIRE_MSG(strspn(buf, " \t") == strlen(buf), "groups: %s", buf);
	status_field(m.pid, "NoNewPrivs", buf, sizeof(buf));
	ATF_REQUIRE_STREQ(buf, "\t1");
	/* The init of a namespace nested in this one. */
	status_field(m.pid, "NSpid", buf, sizeof(buf));
	(void)snprintf(path, sizeof(path), "\t%ld\t1", (long)m.pid);
	ATF_REQUIRE_STREQ(buf, path);
	ATF_REQUIRE(ns_ino(m.pid) != ns_ino(getpid()));

	(void)snprintf(path, sizeof(path), "/proc/%ld/environ", (long)m.pid);
	ATF_REQUIRE((fd = open(path, O_RDONLY)) != -1);
	ATF_REQUIRE_EQ((n = read(fd, buf, sizeof(buf))), 0);
	ATF_REQUIRE(close(fd) == 0);

	ATF_REQUIRE_EQ(getsid(m.pid), m.pid);
	ATF_REQUIRE_EQ(getpgid(m.pid), m.pid);

	(void)snprintf(path, sizeof(path), "/proc/%ld/cwd", (long)m.pid);
	ATF_REQUIRE((n = readlink(path, buf, sizeof(buf) - 1)) > 0);
	buf[n] = '\0';
	ATF_REQUIRE_STREQ(buf, "/");

	(void)snprintf(path, sizeof(path), "/proc/%ld/limits", (long)m.pid);
	ATF_REQUIRE((fp = fopen(path, "r")) != NULL);
	n = 0;
	while (fgets(buf, sizeof(buf), fp) != NULL)
		if (strncmp(buf, "Max core file size", 18) == 0) {
			ATF_REQUIRE_MSG(strstr(buf, " 0 ") != NULL &&
			    strstr(strstr(buf, " 0 ") + 2, " 0 ") != NULL,
			    "%s", buf);
			n = 1;
		}
	ATF_REQUIRE(fclose(fp) == 0);
	ATF_REQUIRE(n == 1);

	(void)snprintf(path, sizeof(path), "/proc/%ld/fd", (long)m.pid);
	ATF_REQUIRE((d = opendir(path)) != NULL);
	nfds = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		ATF_REQUIRE_MSG(strcmp(de->d_name, "0") == 0 ||
		    strcmp(de->d_name, "1") == 0 ||
		    strcmp(de->d_name, "2") == 0, "fd %s open", de->d_name);
		nfds++;
	}
	ATF_REQUIRE(closedir(d) == 0);
	ATF_REQUIRE_EQ(nfds, 3);

	/* The parent's ends do not leak into its other children. */
	ATF_REQUIRE(fcntl(m.infd, F_GETFD) & FD_CLOEXEC);
	ATF_REQUIRE(fcntl(m.outfd, F_GETFD) & FD_CLOEXEC);
	ATF_REQUIRE(fcntl(m.errfd, F_GETFD) & FD_CLOEXEC);
	ATF_REQUIRE(fcntl(m.pidfd, F_GETFD) & FD_CLOEXEC);
	ATF_REQUIRE(fcntl(m.nsfd, F_GETFD) & FD_CLOEXEC);
	ATF_REQUIRE(fcntl(m.errfd, F_GETFL) & O_NONBLOCK);
	ATF_REQUIRE(fstat(m.infd, &st) == 0 && S_ISFIFO(st.st_mode));

	ATF_REQUIRE_EQ(mcps_members(&m), 1);
	close_timed(&m, 2000, "echo after EOF");
	ATF_REQUIRE(!alive(m.pid));
	fixture_free(&f);
}

ATF_TC(spawn_supplementary_group);
ATF_TC_HEAD(spawn_supplementary_group, tc)
{
	atf_tc_set_md_var(tc, "descr", "A configured group is the only "
	    "supplementary group");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(spawn_supplementary_group, tc)
{
	static const char *const args[] = { "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	char		 buf[512];

	fixture_init(tc, &f, args);
	f.srv.user.has_group = 1;
	f.srv.user.sgid = SERVER_SGID;
	spawn(&f, &m);
	status_field(m.pid, "Groups", buf, sizeof(buf));
	buf[strcspn(buf, " ")] = '\0';
	ATF_REQUIRE_STREQ(buf, "\t61011");
	ATF_REQUIRE_EQ(mcps_close(&m, 2000), 0);
	fixture_free(&f);
}

ATF_TC(spawn_refuses);
ATF_TC_HEAD(spawn_refuses, tc)
{
	atf_tc_set_md_var(tc, "descr", "uid 0, gid 0, group 0, a relative "
	    "command and a command that cannot run are refused and leave "
	    "no process");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(spawn_refuses, tc)
{
	static const char *const args[] = { "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	char		 missing[] = "/nonexistent/mcps-server";
	char		 relative[] = "mcps-server";
	char		*saved;

	fixture_init(tc, &f, args);
	f.srv.user.uid = 0;
	ATF_REQUIRE_EQ(mcps_spawn(&f.srv, &m), -1);
	f.srv.user.uid = SERVER_UID;
	f.srv.user.gid = 0;
	ATF_REQUIRE_EQ(mcps_spawn(&f.srv, &m), -1);
	f.srv.user.gid = SERVER_GID;
	f.srv.user.has_group = 1;
	f.srv.user.sgid = 0;
	ATF_REQUIRE_EQ(mcps_spawn(&f.srv, &m), -1);
	f.srv.user.has_group = 0;

	saved = f.srv.cmd.argv[0];
	f.srv.cmd.argv[0] = relative;
	ATF_REQUIRE_EQ(mcps_spawn(&f.srv, &m), -1);
	f.srv.cmd.argv[0] = missing;
	ATF_REQUIRE_EQ(mcps_spawn(&f.srv, &m), -1);
	ATF_REQUIRE_EQ(m.pid, -1);
	ATF_REQUIRE(m.infd == -1 && m.outfd == -1 && m.errfd == -1 &&
	    m.pidfd == -1 && m.nsfd == -1);
	/* The child that failed to exec was reaped. */
	ATF_REQUIRE_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ATF_REQUIRE_EQ(errno, ECHILD);
	f.srv.cmd.argv[0] = saved;
	fixture_free(&f);
}

ATF_TC(echo_round_trip);
ATF_TC_HEAD(echo_round_trip, tc)
{
	atf_tc_set_md_var(tc, "descr", "Lines written to the server's stdin "
	    "come back on its stdout");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(echo_round_trip, tc)
{
	static const char *const args[] = { "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	char		 buf[128];
	int		 i;

	fixture_init(tc, &f, args);
	spawn(&f, &m);
	for (i = 0; i < 3; i++) {
		write_line(m.infd, "{\"jsonrpc\":\"2.0\",\"id\":1}\n");
		ATF_REQUIRE(read_line(m.outfd, buf, sizeof(buf), 2000) > 0);
		ATF_REQUIRE_STREQ(buf, "{\"jsonrpc\":\"2.0\",\"id\":1}\n");
	}
	close_timed(&m, 2000, "echo after a round trip");
	fixture_free(&f);
}

/* Poll stdout and stderr, draining stderr, until "flooded" arrives. */
static int
flood_wait(struct mcps *m, int drain, long ms, uint64_t *drained)
{
	struct pollfd	 pfd[2];
	struct timespec	 t0;
	char		 buf[64];
	size_t		 have = 0;
	ssize_t		 n;
	long		 left;

	now(&t0);
	*drained = 0;
	while ((left = ms - elapsed_ms(&t0)) > 0) {
		pfd[0].fd = m->outfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = drain ? m->errfd : -1;
		pfd[1].events = POLLIN;
		ATF_REQUIRE(poll(pfd, 2, left) != -1);
		if (pfd[1].revents != 0) {
			ATF_REQUIRE((n = mcps_drain_stderr(m)) != -1);
			ATF_REQUIRE(n <= MCPS_DRAIN_BYTES);
			*drained += n;
		}
		if (pfd[0].revents != 0) {
			ATF_REQUIRE((n = read(m->outfd, buf + have,
			    sizeof(buf) - 1 - have)) > 0);
			have += n;
			buf[have] = '\0';
			if (strcmp(buf, "flooded\n") == 0)
				return 1;
			ATF_REQUIRE(have < sizeof(buf) - 1);
		}
	}
	return 0;
}

ATF_TC(stderr_flood_drained);
ATF_TC_HEAD(stderr_flood_drained, tc)
{
	atf_tc_set_md_var(tc, "descr", "4 MiB on stderr are drained and "
	    "counted to the byte while the server goes on; undrained, the "
	    "same server blocks");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(stderr_flood_drained, tc)
{
	static const char *const args[] = { "-f", "4194304", "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	uint64_t	 drained;
	ssize_t		 n;
	char		 buf[64];

	fixture_init(tc, &f, args);

	/* Nobody drains: the server stops in write(2) on a full pipe. */
	spawn(&f, &m);
	ATF_REQUIRE_EQ(flood_wait(&m, 0, 500, &drained), 0);
	ATF_REQUIRE(m.errbytes == 0);
	close_timed(&m, 200, "blocked on a full stderr");

	spawn(&f, &m);
	ATF_REQUIRE_EQ(flood_wait(&m, 1, 10000, &drained), 1);
	/* Everything was written before "flooded": the rest is buffered. */
	while (m.errbytes < FLOOD_BYTES) {
		ATF_REQUIRE((n = mcps_drain_stderr(&m)) > 0);
		drained += n;
	}
	ATF_REQUIRE_EQ(m.errbytes, (uint64_t)FLOOD_BYTES);
	ATF_REQUIRE_EQ(drained, (uint64_t)FLOOD_BYTES);
	ATF_REQUIRE_EQ(mcps_drain_stderr(&m), 0);
	ATF_REQUIRE(m.errfd != -1);

	/* Still serving. */
	write_line(m.infd, "after\n");
	ATF_REQUIRE(read_line(m.outfd, buf, sizeof(buf), 2000) > 0);
	ATF_REQUIRE_STREQ(buf, "after\n");
	close_timed(&m, 2000, "after a stderr flood");
	fixture_free(&f);
}

ATF_TC(close_kills_setsid_descendant);
ATF_TC_HEAD(close_kills_setsid_descendant, tc)
{
	atf_tc_set_md_var(tc, "descr", "A descendant double-forked into its "
	    "own session is gone after mcps_close");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(close_kills_setsid_descendant, tc)
{
	static const char *const args[] = { "-e", "PIDFILE", "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	pid_t		 esc;

	fixture_init(tc, &f, args);
	spawn(&f, &m);
	esc = pidfile_wait(f.pidfile);
	ATF_REQUIRE(alive(esc));
	/* It did leave the server's session and process group. */
	ATF_REQUIRE(getsid(esc) != m.pid && getpgid(esc) != m.pid);
	ATF_REQUIRE(ns_ino(esc) == ns_ino(m.pid));
	members_settle(&m, 2);

	close_timed(&m, 2000, "with a setsid descendant");
	ATF_REQUIRE_MSG(!alive(esc), "descendant %ld survived", (long)esc);
	ATF_REQUIRE(kill(esc, 0) == -1 && errno == ESRCH);
	fixture_free(&f);
}

ATF_TC(close_pgrp_only_misses_descendant);
ATF_TC_HEAD(close_pgrp_only_misses_descendant, tc)
{
	atf_tc_set_md_var(tc, "descr", "Mutation: without the pid namespace, "
	    "a process-group kill leaves the setsid descendant alive");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(close_pgrp_only_misses_descendant, tc)
{
	static const char *const args[] = { "-e", "PIDFILE", "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	pid_t		 esc;

	/* The escapee's zombie comes back here, to be reaped at once. */
	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	fixture_init(tc, &f, args);
	mcps_mutate = MCPS_MUTATE_NO_PIDNS;
	spawn(&f, &m);
	mcps_mutate = 0;
	ATF_REQUIRE(ns_ino(m.pid) == ns_ino(getpid()));
	esc = pidfile_wait(f.pidfile);

	mcps_close_pgrp_only(&m);
	sleep_ms(200);
	ATF_REQUIRE_MSG(alive(esc), "the mutation did not leave the "
	    "descendant alive: the test cannot see an escape");
	kill_by_pid(esc);
	fixture_free(&f);
}

ATF_TC(close_pgrp_only_with_pidns);
ATF_TC_HEAD(close_pgrp_only_with_pidns, tc)
{
	atf_tc_set_md_var(tc, "descr", "With the pid namespace, even a "
	    "process-group kill of the server ends the setsid descendant: "
	    "the namespace is the protection");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(close_pgrp_only_with_pidns, tc)
{
	static const char *const args[] = { "-e", "PIDFILE", "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	pid_t		 esc;

	fixture_init(tc, &f, args);
	spawn(&f, &m);
	esc = pidfile_wait(f.pidfile);
	mcps_close_pgrp_only(&m);
	ATF_REQUIRE_MSG(gone_within(esc, 2000), "descendant %ld survived",
	    (long)esc);
	fixture_free(&f);
}

ATF_TC(close_kills_nested_namespace);
ATF_TC_HEAD(close_kills_nested_namespace, tc)
{
	atf_tc_set_md_var(tc, "descr", "A descendant in a user and pid "
	    "namespace of its own is counted as a member and is gone after "
	    "mcps_close");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(close_kills_nested_namespace, tc)
{
	static const char *const args[] = { "-n", "PIDFILE", "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	FILE		*fp;
	long		 max = 0;
	pid_t		 esc;

	if ((fp = fopen("/proc/sys/user/max_user_namespaces", "r")) != NULL) {
		if (fscanf(fp, "%ld", &max) != 1)
			max = 0;
		(void)fclose(fp);
	}
	if (max == 0)
		atf_tc_skip("user namespaces are disabled on this host");

	fixture_init(tc, &f, args);
	spawn(&f, &m);
	esc = pidfile_wait(f.pidfile);
	ATF_REQUIRE(alive(esc));
	ATF_REQUIRE(ns_ino(esc) != ns_ino(m.pid));
	/* The server, the escapee, and the nested namespace's init. */
	members_settle(&m, 3);

	close_timed(&m, 2000, "with a nested namespace");
	ATF_REQUIRE_MSG(!alive(esc), "nested %ld survived", (long)esc);
	fixture_free(&f);
}

ATF_TC(close_stubborn_bounded);
ATF_TC_HEAD(close_stubborn_bounded, tc)
{
	atf_tc_set_md_var(tc, "descr", "A server that ignores SIGTERM and "
	    "never reads stdin is closed within the grace plus the kill "
	    "bound");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(close_stubborn_bounded, tc)
{
	static const char *const args[] = { "-i", "-e", "PIDFILE", "hold",
	    NULL };
	struct fixture	 f;
	struct mcps	 m;
	long		 ms;
	pid_t		 esc;

	fixture_init(tc, &f, args);
	spawn(&f, &m);
	esc = pidfile_wait(f.pidfile);
	ms = close_timed(&m, 400, "stubborn");
	ATF_REQUIRE_MSG(ms >= 400, "closed in %ld ms, before the grace", ms);
	ATF_REQUIRE_MSG(ms <= 400 + MCPS_KILL_MS + MARGIN_MS,
	    "closed in %ld ms", ms);
	/* It did not exit: it was killed. */
	ATF_REQUIRE(m.reaped && WIFSIGNALED(m.status) &&
	    WTERMSIG(m.status) == SIGKILL);
	ATF_REQUIRE(!alive(esc));

	/* A grace of 0 goes straight to SIGKILL. */
	spawn(&f, &m);
	ms = close_timed(&m, 0, "stubborn, no grace");
	ATF_REQUIRE_MSG(ms <= MARGIN_MS, "closed in %ld ms", ms);
	fixture_free(&f);
}

ATF_TC(close_polite_fast);
ATF_TC_HEAD(close_polite_fast, tc)
{
	atf_tc_set_md_var(tc, "descr", "A server that exits at end of file "
	    "is closed without waiting for the grace");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(close_polite_fast, tc)
{
	static const char *const args[] = { "echo", NULL };
	struct fixture	 f;
	struct mcps	 m;
	long		 ms;

	fixture_init(tc, &f, args);
	spawn(&f, &m);
	ms = close_timed(&m, 10000, "polite");
	ATF_REQUIRE_MSG(ms < MARGIN_MS, "closed in %ld ms", ms);
	ATF_REQUIRE(m.reaped && WIFEXITED(m.status) &&
	    WEXITSTATUS(m.status) == 0);
	/* Closing again is a no-op. */
	ATF_REQUIRE_EQ(mcps_close(&m, 0), 0);
	fixture_free(&f);
}

/*
 * A helper process spawns the server and is then killed; the server and
 * its escapee must go.  This process becomes their reaper on the way.
 */
static void
spawner_killed(const atf_tc_t *tc, int mutate, pid_t *srv, pid_t *esc)
{
	static const char *const args[] = { "-i", "-e", "PIDFILE", "hold",
	    NULL };
	struct fixture	 f;
	struct mcps	 m;
	pid_t		 helper;
	int		 p[2], status;

	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	fixture_init(tc, &f, args);
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((helper = fork()) != -1);
	if (helper == 0) {
		mcps_mutate = mutate;
		if (mcps_spawn(&f.srv, &m) == -1 ||
		    write(p[1], &m.pid, sizeof(m.pid)) != sizeof(m.pid))
			_exit(1);
		for (;;)
			pause();
	}
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_REQUIRE_EQ(read(p[0], srv, sizeof(*srv)), (ssize_t)sizeof(*srv));
	ATF_REQUIRE(close(p[0]) == 0);
	*esc = pidfile_wait(f.pidfile);
	ATF_REQUIRE(alive(*srv) && alive(*esc));

	ATF_REQUIRE(kill(helper, SIGKILL) == 0);
	ATF_REQUIRE_EQ(waitpid(helper, &status, 0), helper);
	ATF_REQUIRE(WIFSIGNALED(status));
	fixture_free(&f);
}

ATF_TC(spawner_death_kills_server);
ATF_TC_HEAD(spawner_death_kills_server, tc)
{
	atf_tc_set_md_var(tc, "descr", "When the process that spawned the "
	    "server dies, the server and its setsid descendant go");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(spawner_death_kills_server, tc)
{
	pid_t	 srv, esc;

	spawner_killed(tc, 0, &srv, &esc);
	ATF_REQUIRE_MSG(gone_within(srv, 2000), "server %ld survived",
	    (long)srv);
	ATF_REQUIRE_MSG(gone_within(esc, 2000), "descendant %ld survived",
	    (long)esc);
}

ATF_TC(spawner_death_without_pdeathsig);
ATF_TC_HEAD(spawner_death_without_pdeathsig, tc)
{
	atf_tc_set_md_var(tc, "descr", "Mutation: without the parent-death "
	    "signal the server outlives its spawner");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(spawner_death_without_pdeathsig, tc)
{
	pid_t	 srv, esc;

	spawner_killed(tc, MCPS_MUTATE_NO_PDEATHSIG, &srv, &esc);
	sleep_ms(500);
	ATF_REQUIRE_MSG(alive(srv) && alive(esc), "the mutation did not "
	    "leave the server alive: the test cannot see a survivor");
	/* From out here SIGKILL reaches the init, and takes all with it. */
	kill_by_pid(srv);
	ATF_REQUIRE(gone_within(esc, 2000));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, spawn_confined);
	ATF_TP_ADD_TC(tp, spawn_supplementary_group);
	ATF_TP_ADD_TC(tp, spawn_refuses);
	ATF_TP_ADD_TC(tp, echo_round_trip);
	ATF_TP_ADD_TC(tp, stderr_flood_drained);
	ATF_TP_ADD_TC(tp, close_kills_setsid_descendant);
	ATF_TP_ADD_TC(tp, close_pgrp_only_misses_descendant);
	ATF_TP_ADD_TC(tp, close_pgrp_only_with_pidns);
	ATF_TP_ADD_TC(tp, close_kills_nested_namespace);
	ATF_TP_ADD_TC(tp, close_stubborn_bounded);
	ATF_TP_ADD_TC(tp, close_polite_fast);
	ATF_TP_ADD_TC(tp, spawner_death_kills_server);
	ATF_TP_ADD_TC(tp, spawner_death_without_pdeathsig);
	return atf_no_error();
}
