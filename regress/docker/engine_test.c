/*
 * The template, the verifiers, cmcp-init, the API client and a server's
 * container (dkr_server.c) against the real private engine
 * (regress/docker/dockerd-env) and the offline test images
 * (regress/docker/build-images, which writes images.env).
 *
 * Skipped, with the reason, when no engine listens on the test socket:
 * $CMCP_TEST_DOCKER_SOCK, the docker_sock configuration variable, or
 * /run/cmcp-test/docker.sock.  CI always starts one.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>
#include <cjson/cJSON.h>

#include "cmcp.h"
#include "dkr.h"
#include "dkr_seccomp.h"
#include "dkr_server.h"

#define DEFAULT_SOCK	"/run/cmcp-test/docker.sock"
#define STREAM_MAX	(256 * 1024)
#define RUN_TIMEOUT_MS	30000

struct images {
	char	 busybox[DKR_IMAGE_ID_BYTES];
	char	 fixtures[DKR_IMAGE_ID_BYTES];
	char	 volume[DKR_IMAGE_ID_BYTES];
	char	 init[DKR_PATH_BYTES];
	char	 init_dumpable[DKR_PATH_BYTES];	/* test-only mutant */
};

struct output {
	char	 out[STREAM_MAX + 1];
	size_t	 outlen;
	char	 err[STREAM_MAX + 1];
	size_t	 errlen;
	int64_t	 first_ms;	/* first stdout byte, monotonic */
};

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	ATF_REQUIRE(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *
sock_path(const atf_tc_t *tc)
{
	const char	*sock;

	if ((sock = getenv("CMCP_TEST_DOCKER_SOCK")) == NULL &&
	    (sock = atf_tc_get_config_var_wd(tc, "docker_sock", NULL)) == NULL)
		sock = DEFAULT_SOCK;
	return sock;
}

/* Connect to the test engine, or skip the test saying why. */
static void
engine(const atf_tc_t *tc, struct dkr_client *c)
{
	const char	*sock = sock_path(tc);
	struct stat	 st;

	if (stat(sock, &st) == -1 || !S_ISSOCK(st.st_mode))
		atf_tc_skip("no private dockerd at %s: run "
		    "regress/docker/dockerd-env start", sock);
	ATF_REQUIRE_MSG(dkr_client_init(c, sock) == 0, "%s", c->err);
	ATF_REQUIRE_MSG(dkr_ping(c) == 0, "%s", c->err);
}

/* Cleanup: remove every container of a test's instance, quietly. */
static void
sweep(const atf_tc_t *tc, const char *instance)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	struct dkr_client	 c;
	size_t			 n, i;

	if (dkr_client_init(&c, sock_path(tc)) == -1)
		return;
	if (dkr_list(&c, instance, NULL, ids, DKR_LIST_MAX, &n) == 0)
		for (i = 0; i < n; i++)
			(void)dkr_delete(&c, ids[i]);
	dkr_client_free(&c);
}

static void
images(const atf_tc_t *tc, struct images *im)
{
	char	 path[1024], line[512], *v;
	FILE	*f;

	memset(im, 0, sizeof(*im));
	snprintf(path, sizeof(path), "%s/images.env",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG((f = fopen(path, "r")) != NULL,
	    "%s missing: run make docker-images", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "BUSYBOX_IMAGE") == 0)
			strlcpy(im->busybox, v, sizeof(im->busybox));
		else if (strcmp(line, "FIXTURE_IMAGE") == 0)
			strlcpy(im->fixtures, v, sizeof(im->fixtures));
		else if (strcmp(line, "VOLUME_IMAGE") == 0)
			strlcpy(im->volume, v, sizeof(im->volume));
		else if (strcmp(line, "CMCP_INIT") == 0)
			strlcpy(im->init, v, sizeof(im->init));
		else if (strcmp(line, "CMCP_INIT_DUMPABLE") == 0)
			strlcpy(im->init_dumpable, v,
			    sizeof(im->init_dumpable));
	}
	fclose(f);
	ATF_REQUIRE(dkr_image_id_valid(im->busybox) &&
	    dkr_image_id_valid(im->fixtures) && dkr_image_id_valid(im->volume));
	ATF_REQUIRE_MSG(access(im->init, X_OK) == 0, "%s", im->init);
}

/*
 * Each test labels its containers with its own suite instance, so its
 * cleanup can remove what a failed run left, and only that.
 */
static void
tmpl(struct dkr_template *t, const struct images *im, const char *image,
    const char *instance, int64_t deadline_ms, const char *const *argv)
{
	memset(t, 0, sizeof(*t));
	strlcpy(t->image, image, sizeof(t->image));
	strlcpy(t->init_path, im->init, sizeof(t->init_path));
	for (t->argc = 0; argv[t->argc] != NULL; t->argc++)
		strlcpy(t->argv[t->argc], argv[t->argc], sizeof(t->argv[0]));
	t->envc = 1;
	strlcpy(t->env[0], "PATH=/bin", sizeof(t->env[0]));
	t->uid = 10001;
	t->gid = 10001;
	t->memory_bytes = 64LL * 1024 * 1024;
	t->pids = 32;
	t->nofile = 256;
	t->nproc = 64;
	t->nano_cpus = 0;
	t->deadline_ms = deadline_ms;
	strlcpy(t->instance, instance, sizeof(t->instance));
	strlcpy(t->session, "s1", sizeof(t->session));
}

/* Create from a body and require a clean create; the container ID. */
static void
create_body(struct dkr_client *c, const char *body, char *id)
{
	enum dkr_reason	 r;

	ATF_REQUIRE_MSG(dkr_create(c, body, id, &r) == 0, "%s", c->err);
	ATF_REQUIRE_MSG(r == DKR_OK, "%s", dkr_reason_str(r));
}

static void
create(struct dkr_client *c, const struct dkr_template *t, char *id)
{
	enum dkr_reason	 r;
	char		*body;

	ATF_REQUIRE((body = dkr_template_body(t, &r)) != NULL);
	create_body(c, body, id);
	free(body);
}

static enum dkr_reason
inspect_verify(struct dkr_client *c, const struct dkr_template *t,
    const char *id)
{
	char	 why[DKR_WHY_BYTES];

	ATF_REQUIRE_EQ_MSG(dkr_inspect(c, id), 200, "%s", c->err);
	return dkr_inspect_verify(c->body, c->len, t, id, why, sizeof(why));
}

/* Delete and confirm absence by a 404 inspect. */
static void
remove_confirmed(struct dkr_client *c, const char *id)
{
	long	 s;

	s = dkr_delete(c, id);
	ATF_CHECK_MSG(s == 204, "delete: %ld %s", s, c->err);
	ATF_CHECK_EQ(dkr_gone(c, id), 1);
}

/*
 * Demultiplex the attach stream until EOF: 8-byte headers, stream 1 or 2,
 * a bounded size.  Anything else fails the test.  0 at EOF, -1 when the
 * deadline came first.
 */
static int
pump(int fd, const char *left, size_t leftlen, struct output *o,
    int64_t deadline)
{
	static char	 buf[STREAM_MAX * 2 + 64];
	struct pollfd	 pfd;
	size_t		 have = leftlen, off = 0, size;
	ssize_t		 n;
	int64_t		 wait;
	int		 rv = 0;

	memset(o, 0, sizeof(*o));
	ATF_REQUIRE(leftlen <= sizeof(buf));
	memcpy(buf, left, leftlen);
	if (leftlen > 0)
		o->first_ms = now_ms();
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if ((wait = deadline - now_ms()) <= 0) {
			rv = -1;
			break;
		}
		ATF_REQUIRE(poll(&pfd, 1, (int)wait) != -1);
		if (pfd.revents == 0)
			continue;
		n = read(fd, buf + have, sizeof(buf) - have);
		ATF_REQUIRE(n != -1);
		if (n == 0)
			break;
		if (o->first_ms == 0)
			o->first_ms = now_ms();
		have += n;
		ATF_REQUIRE_MSG(have < sizeof(buf), "stream too long");
	}
	while (have - off >= 8) {
		size = (size_t)(unsigned char)buf[off + 4] << 24 |
		    (size_t)(unsigned char)buf[off + 5] << 16 |
		    (size_t)(unsigned char)buf[off + 6] << 8 |
		    (size_t)(unsigned char)buf[off + 7];
		ATF_REQUIRE(size <= have - off - 8);
		ATF_REQUIRE(buf[off] == 1 || buf[off] == 2);
		if (buf[off] == 1) {
			ATF_REQUIRE(o->outlen + size <= STREAM_MAX);
			memcpy(o->out + o->outlen, buf + off + 8, size);
			o->outlen += size;
		} else {
			ATF_REQUIRE(o->errlen + size <= STREAM_MAX);
			memcpy(o->err + o->errlen, buf + off + 8, size);
			o->errlen += size;
		}
		off += 8 + size;
	}
	ATF_REQUIRE(rv == -1 || off == have);
	o->out[o->outlen] = '\0';
	o->err[o->errlen] = '\0';
	return rv;
}

/* The value of the report line "key value", or "" when missing. */
static const char *
report(const struct output *o, const char *key)
{
	static char	 val[256];
	const char	*p = o->out, *nl;
	size_t		 klen = strlen(key);

	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if ((size_t)(nl - p) > klen && strncmp(p, key, klen) == 0 &&
		    p[klen] == ' ') {
			snprintf(val, sizeof(val), "%.*s",
			    (int)(nl - p - klen - 1), p + klen + 1);
			return val;
		}
		p = *nl ? nl + 1 : nl;
	}
	return "";
}

/* No host process is left in the container's cgroups. */
static int
processes_of(const char *id)
{
	char		 path[300], line[1024];
	struct dirent	*d;
	DIR		*dir;
	FILE		*f;
	int		 n = 0;

	ATF_REQUIRE((dir = opendir("/proc")) != NULL);
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cgroup", d->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL)
			if (strstr(line, id) != NULL) {
				n++;
				break;
			}
		fclose(f);
	}
	closedir(dir);
	return n;
}

ATF_TC(daemon_admitted);
ATF_TC_HEAD(daemon_admitted, tc)
{
	atf_tc_set_md_var(tc, "descr", "The test engine passes the daemon "
	    "check: API 1.41, Linux, memory, swap and pids limits, seccomp");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(daemon_admitted, tc)
{
	struct dkr_client	 c;
	char			*ver, why[DKR_WHY_BYTES];
	size_t			 vlen;

	engine(tc, &c);
	ATF_CHECK_STREQ(c.api, "1.41");
	ATF_REQUIRE_EQ(dkr_version(&c), 200);
	ATF_REQUIRE((ver = strdup(c.body)) != NULL);
	vlen = c.len;
	ATF_REQUIRE_EQ(dkr_info(&c), 200);
	ATF_CHECK_EQ_MSG(dkr_daemon_verify(ver, vlen, c.body, c.len, why,
	    sizeof(why)), DKR_OK, "%s", why);
	free(ver);
	dkr_client_free(&c);
}

ATF_TC(image_admission_real);
ATF_TC_HEAD(image_admission_real, tc)
{
	atf_tc_set_md_var(tc, "descr", "Only a full local image ID without "
	    "volumes is admitted: tag, short ID, unknown ID, VOLUME refused");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(image_admission_real, tc)
{
	struct dkr_client	 c;
	struct images		 im;
	char			 why[DKR_WHY_BYTES], shortid[20];

	engine(tc, &c);
	images(tc, &im);
	ATF_REQUIRE_EQ(dkr_image_inspect(&c, im.fixtures), 200);
	ATF_CHECK_EQ(dkr_image_verify(c.body, c.len, im.fixtures, why,
	    sizeof(why)), DKR_OK);
	ATF_REQUIRE_EQ(dkr_image_inspect(&c, im.volume), 200);
	ATF_CHECK_EQ(dkr_image_verify(c.body, c.len, im.volume, why,
	    sizeof(why)), DKR_R_IMG_VOLUMES);
	/* Never sent: the engine would resolve a tag or a prefix. */
	ATF_CHECK_EQ(dkr_image_inspect(&c, "cmcp-test/fixtures:1"), -1);
	strlcpy(shortid, im.fixtures, sizeof(shortid));
	ATF_CHECK_EQ(dkr_image_inspect(&c, shortid), -1);
	ATF_CHECK_EQ(dkr_image_inspect(&c, "sha256:00000000000000000000000"
	    "00000000000000000000000000000000000000000"), 404);
	dkr_client_free(&c);
}

ATF_TC_WITH_CLEANUP(report_from_inside);
ATF_TC_HEAD(report_from_inside, tc)
{
	atf_tc_set_md_var(tc, "descr", "A workload created from the template "
	    "reports its confinement from inside and cannot touch PID 1");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "120");
}
/*
 * Run the report fixture under the given cmcp-init and deadline: create,
 * verify, attach, start, verify again, feed stdin, read the stream to its
 * end, wait, remove.  The exit status, or -1 when the container was still
 * running 4 s after its deadline (then it is killed).
 */
static int64_t
run_report(const atf_tc_t *tc, const char *instance, const char *init,
    int weaken, int64_t deadline_ms, struct output *o)
{
	static const char *const argv[] = { "/report", NULL };
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	char			 id[DKR_CONTAINER_ID_BYTES];
	char			 left[DKR_ATTACH_HEAD_BYTES], *body;
	const char		*in = "hello-from-host\n";
	enum dkr_reason		 r;
	size_t			 leftlen;
	int64_t			 t0, t1, code;
	int			 fd;

	engine(tc, &c);
	images(tc, &im);
	tmpl(&t, &im, im.fixtures, instance, deadline_ms, argv);
	if (init != NULL)
		strlcpy(t.init_path, init, sizeof(t.init_path));
	t0 = now_ms();
	if (weaken == WEAKEN_NONE)
		create(&c, &t, id);
	else {
		/* the test build's weakening; admission would refuse it */
		ATF_REQUIRE((body = dkr_template_body(&t, &r)) != NULL);
		ATF_REQUIRE((body = dkr_template_weaken(body, weaken)) != NULL);
		create_body(&c, body, id);
		free(body);
	}
	ATF_CHECK_EQ(inspect_verify(&c, &t, id), weaken == WEAKEN_NONE ?
	    DKR_OK : DKR_R_SECCOMP);
	ATF_REQUIRE_MSG(dkr_attach(&c, id, &fd, left, sizeof(left),
	    &leftlen) == 0, "%s", c.err);
	t1 = now_ms();
	ATF_REQUIRE_EQ(dkr_start(&c, id), 204);
	/* The pre-admission inspect: running, still the same profile. */
	ATF_CHECK_EQ(inspect_verify(&c, &t, id), weaken == WEAKEN_NONE ?
	    DKR_OK : DKR_R_SECCOMP);
	ATF_REQUIRE(send(fd, in, strlen(in), MSG_NOSIGNAL) ==
	    (ssize_t)strlen(in));
	ATF_REQUIRE(shutdown(fd, SHUT_WR) == 0);
	if (pump(fd, left, leftlen, o, t1 + deadline_ms + 4000) == -1) {
		printf("container outlived its deadline: killing it\n");
		ATF_CHECK_EQ(dkr_kill(&c, id), 204);
		code = -1;
	} else
		ATF_REQUIRE_MSG(dkr_wait(&c, id, RUN_TIMEOUT_MS, &code) == 0,
		    "%s", c.err);
	close(fd);
	printf("measure: create_to_first_byte_ms %lld\n",
	    (long long)(o->first_ms - t0));
	printf("measure: start_to_first_byte_ms %lld\n",
	    (long long)(o->first_ms - t1));
	printf("report:\n%s", o->out);
	remove_confirmed(&c, id);
	dkr_client_free(&c);
	return code;
}

ATF_TC_BODY(report_from_inside, tc)
{
	static struct output	 o;
	const char		*v;
	int64_t			 code;

	code = run_report(tc, "regress-report", NULL, WEAKEN_NONE, 20000, &o);
	ATF_CHECK_EQ(code, 0);
	ATF_CHECK_EQ(dkr_exit_outcome(code), DKR_EXITED);

	ATF_CHECK_STREQ(report(&o, "stdin"), "hello-from-host");
	ATF_CHECK_STREQ(report(&o, "uid"), "10001");
	ATF_CHECK_STREQ(report(&o, "gid"), "10001");
	ATF_CHECK_STREQ(report(&o, "euid"), "10001");
	ATF_CHECK_STREQ(report(&o, "egid"), "10001");
	ATF_CHECK_STREQ(report(&o, "ppid"), "1");
	ATF_CHECK_STREQ(report(&o, "capeff"), "0000000000000000");
	ATF_CHECK_STREQ(report(&o, "capprm"), "0000000000000000");
	ATF_CHECK_STREQ(report(&o, "capbnd"), "0000000000000000");
	ATF_CHECK_STREQ(report(&o, "nonewprivs"), "1");
	ATF_CHECK_STREQ(report(&o, "seccomp"), "2");
	ATF_CHECK_STREQ(report(&o, "rootfs_write"), "EROFS");
	ATF_CHECK_STREQ(report(&o, "netifs"), "lo");
	ATF_CHECK_STREQ(report(&o, "core"), "0:0");
	ATF_CHECK_STREQ(report(&o, "nofile"), "256:256");
	ATF_CHECK_STREQ(report(&o, "nproc"), "64:64");
	ATF_CHECK_STREQ(report(&o, "pids_max"), "32");
	ATF_CHECK_STREQ(report(&o, "mem_limit"), "67108864");
	/* cgroup v1: memory+swap; v2: swap alone. */
	v = report(&o, "memsw_limit");
	ATF_CHECK_MSG(strcmp(v, "67108864") == 0 || strcmp(v, "0") == 0,
	    "memsw_limit %s", v);
	/* Signals to PID 1 are refused or dropped by the kernel. */
	v = report(&o, "pid1_kill_kill");
	ATF_CHECK(strcmp(v, "ok") == 0 || strcmp(v, "EPERM") == 0);
	v = report(&o, "pid1_kill_stop");
	ATF_CHECK(strcmp(v, "ok") == 0 || strcmp(v, "EPERM") == 0);
	ATF_CHECK_STREQ(report(&o, "pid1_after_signals"), "running");
	ATF_CHECK_STREQ(report(&o, "pid1_ptrace_attach"), "EPERM");
	ATF_CHECK_STREQ(report(&o, "pid1_ptrace_seize"), "EPERM");
	ATF_CHECK_STREQ(report(&o, "pid1_environ"), "EACCES");
	ATF_CHECK_STREQ(report(&o, "pid1_mem"), "EACCES");
	ATF_CHECK_STREQ(report(&o, "pid1_vm_read"), "EPERM");
	ATF_CHECK_STREQ(report(&o, "pid1_after_attacks"), "running");
	ATF_CHECK_STREQ(report(&o, "done"), "");
	ATF_CHECK(strstr(o.out, "\ndone\n") != NULL);
	ATF_CHECK_STREQ(o.err, "report-stderr\n");
}
ATF_TC_CLEANUP(report_from_inside, tc)
{
	sweep(tc, "regress-report");
}

ATF_TC_WITH_CLEANUP(report_dumpable_init_mutant);
ATF_TC_HEAD(report_dumpable_init_mutant, tc)
{
	atf_tc_set_md_var(tc, "descr", "Mutation: under a dumpable cmcp-init "
	    "the workload reads PID 1's environment; the seccomp profile still "
	    "refuses ptrace, and with the engine's default profile too (test "
	    "build) the workload ptraces PID 1, which freezes it past its "
	    "deadline");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(report_dumpable_init_mutant, tc)
{
	static struct output	 o;
	struct images		 im;

	images(tc, &im);
	ATF_REQUIRE_MSG(im.init_dumpable[0] != '\0',
	    "no CMCP_INIT_DUMPABLE in images.env: make docker-images");
	/*
	 * PTRACE_ATTACH stops PID 1 with a SIGSTOP the kernel lets through,
	 * and it stays stopped when the tracer exits: the deadline is dead.
	 */
	ATF_CHECK(run_report(tc, "regress-dumpable", im.init_dumpable,
	    WEAKEN_NONE, 2000, &o) != -1);
	ATF_CHECK_STREQ(report(&o, "pid1_environ"), "read-ok");
	ATF_CHECK_STREQ(report(&o, "pid1_ptrace_attach"), "EPERM");
	ATF_CHECK_STREQ(report(&o, "pid1_after_attacks"), "running");
	memset(&o, 0, sizeof(o));
	ATF_CHECK_EQ(run_report(tc, "regress-dumpable", im.init_dumpable,
	    WEAKEN_SECCOMP_DEFAULT, 2000, &o), -1);
	ATF_CHECK_STREQ(report(&o, "pid1_environ"), "read-ok");
	ATF_CHECK_STREQ(report(&o, "pid1_ptrace_attach"), "ok");
	ATF_CHECK_STREQ(report(&o, "pid1_after_attacks"), "stopped");
}
ATF_TC_CLEANUP(report_dumpable_init_mutant, tc)
{
	sweep(tc, "regress-dumpable");
}

ATF_TC_WITH_CLEANUP(deadline_ends_container);
ATF_TC_HEAD(deadline_ends_container, tc)
{
	atf_tc_set_md_var(tc, "descr", "cmcp-init's deadline ends the "
	    "container, a setsid'd descendant included, with TIME_LIMIT");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(deadline_ends_container, tc)
{
	static const char *const argv[] = { "/bin/busybox", "sh", "-c",
	    "busybox setsid busybox sleep 1000 & exec busybox sleep 1000",
	    NULL };
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	char			 id[DKR_CONTAINER_ID_BYTES];
	int64_t			 t0, ms, code;
	int			 n;

	engine(tc, &c);
	images(tc, &im);
	tmpl(&t, &im, im.fixtures, "regress-deadline", 1000, argv);
	create(&c, &t, id);
	ATF_REQUIRE_EQ(inspect_verify(&c, &t, id), DKR_OK);
	t0 = now_ms();
	ATF_REQUIRE_EQ(dkr_start(&c, id), 204);
	/*
	 * The workload and its setsid'd descendant run: looked for until
	 * they are there or the deadline is near (a loaded host is slow to
	 * fork them).
	 */
	while ((n = processes_of(id)) < 3 && now_ms() - t0 < 900)
		usleep(20 * 1000);
	ATF_CHECK_MSG(n >= 3, "%d processes", n);
	ATF_REQUIRE_MSG(dkr_wait(&c, id, 10000, &code) == 0, "%s", c.err);
	ms = now_ms() - t0;
	printf("measure: deadline_1000ms_exit_after_ms %lld\n", (long long)ms);
	/* The status says the deadline ended it; the time, not before it. */
	ATF_CHECK_EQ(code, CMCP_INIT_TIME_LIMIT);
	ATF_CHECK_EQ(dkr_exit_outcome(code), DKR_TIME_LIMIT);
	ATF_CHECK_MSG(ms >= 900, "ended after %lld ms", (long long)ms);
	ATF_CHECK_EQ(processes_of(id), 0);
	remove_confirmed(&c, id);
	dkr_client_free(&c);
}
ATF_TC_CLEANUP(deadline_ends_container, tc)
{
	sweep(tc, "regress-deadline");
}

ATF_TC_WITH_CLEANUP(workload_cannot_fake_time_limit);
ATF_TC_HEAD(workload_cannot_fake_time_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "A workload exiting with 250 or 251 "
	    "is reported as a plain exit, never TIME_LIMIT");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(workload_cannot_fake_time_limit, tc)
{
	static const char *const fake[][4] = {
		{ "/bin/busybox", "sh", "-c", "exit 250" },
		{ "/bin/busybox", "sh", "-c", "exit 251" },
		{ "/bin/busybox", "sh", "-c", "kill -9 $$" },
	};
	static const int64_t want[] = { 128, 128, 137 };
	const char		*argv[5];
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	char			 id[DKR_CONTAINER_ID_BYTES];
	int64_t			 code;
	size_t			 i;

	engine(tc, &c);
	images(tc, &im);
	for (i = 0; i < sizeof(fake) / sizeof(fake[0]); i++) {
		memcpy(argv, fake[i], sizeof(fake[i]));
		argv[4] = NULL;
		tmpl(&t, &im, im.fixtures, "regress-fake", 20000, argv);
		create(&c, &t, id);
		ATF_REQUIRE_EQ(dkr_start(&c, id), 204);
		ATF_REQUIRE_MSG(dkr_wait(&c, id, 10000, &code) == 0, "%s",
		    c.err);
		ATF_CHECK_EQ_MSG(code, want[i], "%s: %lld", fake[i][3],
		    (long long)code);
		ATF_CHECK(dkr_exit_outcome(code) == DKR_EXITED);
		remove_confirmed(&c, id);
	}
	dkr_client_free(&c);
}
ATF_TC_CLEANUP(workload_cannot_fake_time_limit, tc)
{
	sweep(tc, "regress-fake");
}

/*
 * One container running the relay workload below, its stdin the host's
 * line; its exit code.  The workload reads its own stdin to its end,
 * then runs the connector as an MCP host would, with one line to send
 * and a reader of one line.  With the relay the stream stays open, as
 * the bridge leaves it (the connector ends at either end); without, the
 * host closes it so that the workload's read ends.
 */
static int64_t
run_relay(const atf_tc_t *tc, int relay, struct output *o)
{
	static const char *const argv[] = { "/bin/busybox", "sh", "-c",
	    "echo \"workload-in:$(busybox cat)\"; "
	    "(echo to-host; busybox sleep 3) | /cmcp-init -c | "
	    "busybox head -n 1 >&2", NULL };
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	char			 id[DKR_CONTAINER_ID_BYTES];
	char			 left[DKR_ATTACH_HEAD_BYTES];
	const char		*in = "hello-from-host\n";
	size_t			 leftlen;
	int64_t			 code;
	int			 fd;

	engine(tc, &c);
	images(tc, &im);
	tmpl(&t, &im, im.fixtures, "regress-relay", 20000, argv);
	t.relay = relay;
	create(&c, &t, id);
	ATF_CHECK_EQ(inspect_verify(&c, &t, id), DKR_OK);
	/* Admission takes exactly the entry point that was asked. */
	t.relay = !relay;
	ATF_CHECK_EQ(inspect_verify(&c, &t, id), DKR_R_ARGS);
	t.relay = relay;
	ATF_REQUIRE_MSG(dkr_attach(&c, id, &fd, left, sizeof(left),
	    &leftlen) == 0, "%s", c.err);
	ATF_REQUIRE_EQ(dkr_start(&c, id), 204);
	ATF_REQUIRE(send(fd, in, strlen(in), MSG_NOSIGNAL) ==
	    (ssize_t)strlen(in));
	if (!relay)
		ATF_REQUIRE(shutdown(fd, SHUT_WR) == 0);
	if (pump(fd, left, leftlen, o, now_ms() + RUN_TIMEOUT_MS) == -1) {
		ATF_CHECK_EQ(dkr_kill(&c, id), 204);
		code = -1;
	} else
		ATF_REQUIRE_MSG(dkr_wait(&c, id, RUN_TIMEOUT_MS, &code) == 0,
		    "%s", c.err);
	close(fd);
	remove_confirmed(&c, id);
	dkr_client_free(&c);
	return code;
}

ATF_TC_WITH_CLEANUP(relay_container_stdio);
ATF_TC_HEAD(relay_container_stdio, tc)
{
	atf_tc_set_md_var(tc, "descr", "With the relay (cmcp-init -r) the "
	    "container's stdin and stdout reach only the connector; the "
	    "workload's stdin is empty and its stdout is the stderr stream");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(relay_container_stdio, tc)
{
	static struct output	 o;
	int64_t			 code;

	code = run_relay(tc, 1, &o);
	ATF_CHECK_EQ(code, 0);
	ATF_CHECK_STREQ(o.out, "to-host\n");
	ATF_CHECK_STREQ(o.err, "workload-in:\nhello-from-host\n");

	/* Without it the same workload holds the stream, no connector. */
	code = run_relay(tc, 0, &o);
	ATF_CHECK_EQ(code, 0);
	ATF_CHECK(strstr(o.out, "workload-in:hello-from-host\n") == o.out);
	ATF_CHECK(strstr(o.out, "to-host") == NULL);
	ATF_CHECK(strstr(o.err, "no relay") != NULL);
}
ATF_TC_CLEANUP(relay_container_stdio, tc)
{
	sweep(tc, "regress-relay");
}

/* Create a weakened container directly, as only a test may. */
static enum dkr_reason
weakened(struct dkr_client *c, const struct dkr_template *t,
    const char *drop, const char *key, cJSON *v)
{
	enum dkr_reason	 r;
	cJSON		*b, *hc;
	char		*body, id[DKR_CONTAINER_ID_BYTES];

	ATF_REQUIRE((body = dkr_template_body(t, &r)) != NULL);
	ATF_REQUIRE((b = cJSON_Parse(body)) != NULL);
	free(body);
	hc = cJSON_GetObjectItemCaseSensitive(b, "HostConfig");
	if (drop != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(hc, drop);
	if (cJSON_GetObjectItemCaseSensitive(hc, key) != NULL)
		ATF_REQUIRE(cJSON_ReplaceItemInObjectCaseSensitive(hc, key, v));
	else
		ATF_REQUIRE(cJSON_AddItemToObject(hc, key, v));
	ATF_REQUIRE((body = cJSON_PrintUnformatted(b)) != NULL);
	cJSON_Delete(b);
	create_body(c, body, id);
	free(body);
	r = inspect_verify(c, t, id);
	remove_confirmed(c, id);
	return r;
}

ATF_TC_WITH_CLEANUP(weakened_containers_refused);
ATF_TC_HEAD(weakened_containers_refused, tc)
{
	atf_tc_set_md_var(tc, "descr", "Containers the engine created "
	    "weakened are refused at inspection, a misspelt field and "
	    "each seccomp profile but ours included");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(weakened_containers_refused, tc)
{
	static const char *const argv[] = { "/report", NULL };
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	char			 id[DKR_CONTAINER_ID_BYTES], *plus, *opt;
	cJSON			*log;

	engine(tc, &c);
	images(tc, &im);
	tmpl(&t, &im, im.fixtures, "regress-weak", 20000, argv);
	ATF_CHECK_EQ(weakened(&c, &t, NULL, "NetworkMode",
	    cJSON_CreateString("host")), DKR_R_NETWORK);
	ATF_CHECK_EQ(weakened(&c, &t, NULL, "ReadonlyRootfs",
	    cJSON_CreateFalse()), DKR_R_READONLY);
	ATF_REQUIRE((log = cJSON_Parse("{\"Type\":\"json-file\"}")) != NULL);
	ATF_CHECK_EQ(weakened(&c, &t, NULL, "LogConfig", log), DKR_R_LOG);
	/* The engine ignores a misspelt key and creates without CapDrop. */
	ATF_CHECK_EQ(weakened(&c, &t, "CapDrop", "CapDrops",
	    cJSON_CreateStringArray((const char *[]){ "ALL" }, 1)),
	    DKR_R_CAPDROP);
	/*
	 * The engine's default seccomp profile (no entry), none, and ours
	 * with one call more: each created as asked and refused.
	 */
	ATF_CHECK_EQ(weakened(&c, &t, NULL, "SecurityOpt",
	    cJSON_CreateStringArray((const char *[]){ "no-new-privileges" },
	    1)), DKR_R_SECCOMP);
	ATF_CHECK_EQ(weakened(&c, &t, NULL, "SecurityOpt",
	    cJSON_CreateStringArray((const char *[]){ "no-new-privileges",
	    "seccomp=unconfined" }, 2)), DKR_R_SECCOMP);
	ATF_REQUIRE((plus = dkr_seccomp_json_plus("io_uring_setup")) != NULL);
	ATF_REQUIRE(asprintf(&opt, "seccomp=%s", plus) != -1);
	ATF_CHECK_EQ(weakened(&c, &t, NULL, "SecurityOpt",
	    cJSON_CreateStringArray((const char *[]){ "no-new-privileges",
	    opt }, 2)), DKR_R_SECCOMP);
	free(opt);
	free(plus);
	/* An image VOLUME is merged in whatever the body says. */
	tmpl(&t, &im, im.volume, "regress-weak", 20000, argv);
	create(&c, &t, id);
	ATF_CHECK_EQ(inspect_verify(&c, &t, id), DKR_R_MOUNTS);
	remove_confirmed(&c, id);
	dkr_client_free(&c);
}
ATF_TC_CLEANUP(weakened_containers_refused, tc)
{
	sweep(tc, "regress-weak");
}

ATF_TC_WITH_CLEANUP(list_by_label_only);
ATF_TC_HEAD(list_by_label_only, tc)
{
	atf_tc_set_md_var(tc, "descr", "Listing finds this instance's "
	    "containers by label, and never a foreign one");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(list_by_label_only, tc)
{
	static const char *const argv[] = { "/report", NULL };
	static char		 found[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	char			 ids[4][DKR_CONTAINER_ID_BYTES];
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	size_t			 n, i;

	engine(tc, &c);
	images(tc, &im);
	tmpl(&t, &im, im.fixtures, "regress-list", 20000, argv);
	create(&c, &t, ids[0]);
	strlcpy(t.session, "b", sizeof(t.session));
	create(&c, &t, ids[1]);
	/* Foreign: another instance, and one whose value only starts alike. */
	strlcpy(t.instance, "regress-list-other", sizeof(t.instance));
	create(&c, &t, ids[2]);
	strlcpy(t.instance, "regress-list0", sizeof(t.instance));
	create(&c, &t, ids[3]);

	strlcpy(t.instance, "regress-list", sizeof(t.instance));
	ATF_REQUIRE_MSG(dkr_list(&c, t.instance, NULL, found, DKR_LIST_MAX,
	    &n) == 0, "%s", c.err);
	ATF_CHECK_EQ(n, 2);
	for (i = 0; i < n; i++)
		ATF_CHECK(strcmp(found[i], ids[0]) == 0 ||
		    strcmp(found[i], ids[1]) == 0);
	ATF_REQUIRE(dkr_list(&c, t.instance, "b", found, DKR_LIST_MAX,
	    &n) == 0);
	ATF_CHECK(n == 1 && strcmp(found[0], ids[1]) == 0);
	/* Never started: nothing to kill or stop. */
	ATF_CHECK_EQ(dkr_kill(&c, ids[0]), 409);
	ATF_CHECK_EQ(dkr_stop(&c, ids[0], 0), 304);
	/* Bounded: more matches than room is an error, not a truncation. */
	ATF_CHECK_EQ(dkr_list(&c, t.instance, NULL, found, 1, &n), -1);
	for (i = 0; i < 4; i++)
		remove_confirmed(&c, ids[i]);
	ATF_REQUIRE(dkr_list(&c, t.instance, NULL, found, DKR_LIST_MAX,
	    &n) == 0);
	ATF_CHECK_EQ(n, 0);
	dkr_client_free(&c);
}
ATF_TC_CLEANUP(list_by_label_only, tc)
{
	sweep(tc, "regress-list");
	sweep(tc, "regress-list-other");
	sweep(tc, "regress-list0");
}

/*
 * Server containers (server { image ... mount ... }) through dkr_server.c,
 * as dockerd-client drives them: two host directories made for the test,
 * owned by the server's uid, one bound read-only and one read-write.  The
 * server script reads the read-only one, tries to write it, writes the
 * read-write one, then echoes its stdin as an MCP server would answer.
 */
#define SRV_UID		10001
#define SRV_INSTANCE	"regress-server"
#define SRV_RO_TARGET	"/srv/ro"
#define SRV_RW_TARGET	"/srv/rw"
#define SRV_SCRIPT							\
	"busybox cat " SRV_RO_TARGET "/catalog.txt >&2; "		\
	"busybox touch " SRV_RO_TARGET "/probe && echo ro-written >&2; "	\
	"echo written >" SRV_RW_TARGET "/out && echo rw-written >&2; "	\
	"exec busybox cat"

struct srv_dirs {
	char	 base[64];
	char	 ro[96];
	char	 rw[96];
};

/* The host side: base/ro with a file in it and base/rw, empty. */
static void
srv_dirs(struct srv_dirs *d)
{
	char	 path[160];
	FILE	*f;

	strlcpy(d->base, "/tmp/cmcp-srv.XXXXXX", sizeof(d->base));
	ATF_REQUIRE(mkdtemp(d->base) != NULL);
	snprintf(d->ro, sizeof(d->ro), "%s/ro", d->base);
	snprintf(d->rw, sizeof(d->rw), "%s/rw", d->base);
	ATF_REQUIRE(mkdir(d->ro, 0755) == 0 && mkdir(d->rw, 0755) == 0);
	snprintf(path, sizeof(path), "%s/catalog.txt", d->ro);
	ATF_REQUIRE((f = fopen(path, "w")) != NULL);
	ATF_REQUIRE(fputs("catalog-from-host\n", f) != EOF);
	ATF_REQUIRE(fclose(f) == 0);
	/* Writable by the server's uid: only the bind's flag refuses. */
	ATF_REQUIRE(chown(d->ro, SRV_UID, SRV_UID) == 0 &&
	    chown(d->rw, SRV_UID, SRV_UID) == 0);
}

static void
srv_dirs_remove(const char *base)
{
	char	 path[160];

	snprintf(path, sizeof(path), "%s/ro/catalog.txt", base);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/ro/probe", base);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/rw/out", base);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/ro", base);
	(void)rmdir(path);
	snprintf(path, sizeof(path), "%s/rw", base);
	(void)rmdir(path);
	(void)rmdir(base);
}

/* The base of the directories a case made, for its cleanup. */
static void
srv_dirs_note(const struct srv_dirs *d)
{
	FILE	*f;

	ATF_REQUIRE((f = fopen("srv-dirs", "w")) != NULL);
	fprintf(f, "%s\n", d->base);
	ATF_REQUIRE(fclose(f) == 0);
}

static void
srv_dirs_cleanup(void)
{
	char	 base[64];
	FILE	*f;

	if ((f = fopen("srv-dirs", "r")) == NULL)
		return;
	if (fgets(base, sizeof(base), f) != NULL) {
		base[strcspn(base, "\n")] = '\0';
		if (strncmp(base, "/tmp/cmcp-srv.", 14) == 0)
			srv_dirs_remove(base);
	}
	fclose(f);
}

/* The parent's message for the script above over the two binds. */
static void
srv_message(struct session_server *ss, const struct images *im,
    const struct srv_dirs *d)
{
	static const char *const argv[] = { "/bin/busybox", "sh", "-c",
	    SRV_SCRIPT };
	size_t	 i;

	memset(ss, 0, sizeof(*ss));
	ss->sv_index = 3;
	strlcpy(ss->sv_name, "catalog", sizeof(ss->sv_name));
	strlcpy(ss->sv_image, im->fixtures, sizeof(ss->sv_image));
	ss->sv_argc = nitems(argv);
	for (i = 0; i < nitems(argv); i++)
		strlcpy(ss->sv_argv[i], argv[i], sizeof(ss->sv_argv[i]));
	ss->sv_uid = SRV_UID;
	ss->sv_gid = SRV_UID;
	ss->sv_memory_bytes = 64LL * 1024 * 1024;
	ss->sv_pids = 32;
	ss->sv_nofile = 256;
	ss->sv_deadline_ms = 20000;
	ss->sv_nmounts = 2;
	strlcpy(ss->sv_mounts[0].sm_host, d->ro, sizeof(ss->sv_mounts[0].sm_host));
	strlcpy(ss->sv_mounts[0].sm_target, SRV_RO_TARGET,
	    sizeof(ss->sv_mounts[0].sm_target));
	ss->sv_mounts[0].sm_rw = 0;
	strlcpy(ss->sv_mounts[1].sm_host, d->rw, sizeof(ss->sv_mounts[1].sm_host));
	strlcpy(ss->sv_mounts[1].sm_target, SRV_RW_TARGET,
	    sizeof(ss->sv_mounts[1].sm_target));
	ss->sv_mounts[1].sm_rw = 1;
}

static void
srv_fill(const atf_tc_t *tc, struct dkr_server *sv, const struct images *im,
    const struct srv_dirs *d)
{
	static struct session_server	 ss;

	(void)tc;
	srv_message(&ss, im, d);
	ATF_REQUIRE(dkr_server_fill(sv, &ss, im->init, SRV_INSTANCE,
	    "s1") == 0);
}

/* Whether the host file base/dir/name exists; its first line in line. */
static int
host_file(const char *dir, const char *name, char *line, size_t len)
{
	char	 path[160];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "r")) == NULL) {
		ATF_REQUIRE(errno == ENOENT);
		return 0;
	}
	line[0] = '\0';
	if (fgets(line, len, f) == NULL)
		line[0] = '\0';
	fclose(f);
	return 1;
}

/*
 * Talk to the started server over its stream: one line in, end of
 * input; the stream read to its end.  The container's exit status.
 */
static int64_t
srv_talk(struct dkr_client *c, struct dkr_server *sv, const char *line,
    struct output *o)
{
	int64_t	 code;

	ATF_REQUIRE(send(sv->fd, line, strlen(line), MSG_NOSIGNAL) ==
	    (ssize_t)strlen(line));
	ATF_REQUIRE(shutdown(sv->fd, SHUT_WR) == 0);
	ATF_REQUIRE_MSG(pump(sv->fd, sv->head, sv->headlen, o,
	    now_ms() + RUN_TIMEOUT_MS) == 0, "server outlived the test");
	ATF_REQUIRE_MSG(dkr_wait(c, sv->id, RUN_TIMEOUT_MS, &code) == 0,
	    "%s", c->err);
	return code;
}

ATF_TC_WITH_CLEANUP(server_container_binds);
ATF_TC_HEAD(server_container_binds, tc)
{
	atf_tc_set_md_var(tc, "descr", "A server's container from its "
	    "message: verified with its two binds, attached, started, "
	    "echoing over its stream; the read-only bind refuses a write "
	    "(EROFS), the read-write one takes it; removed, 404");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(server_container_binds, tc)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	static struct output	 o;
	static struct dkr_server sv;
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	struct srv_dirs		 d;
	char			 line[64], id[DKR_CONTAINER_ID_BYTES];
	size_t			 n;
	int64_t			 code, t0, t1, t2, t3;
	int			 fl;

	engine(tc, &c);
	images(tc, &im);
	srv_dirs(&d);
	srv_dirs_note(&d);
	srv_fill(tc, &sv, &im, &d);
	ATF_CHECK(sv.gone && sv.fd == -1 && sv.id[0] == '\0');
	t0 = now_ms();
	ATF_REQUIRE_MSG(dkr_server_daemon(&c, &sv) == 0, "%s", sv.why);
	ATF_REQUIRE_MSG(dkr_server_admit(&c, &sv) == 0, "%s", sv.why);
	ATF_REQUIRE_MSG(dkr_server_create(&c, &sv) == 0, "%s", sv.why);
	t1 = now_ms();
	ATF_CHECK(!sv.gone);
	/* The engine's document holds exactly these binds, as asked. */
	ATF_CHECK_EQ(inspect_verify(&c, &sv.tmpl, sv.id), DKR_OK);
	t = sv.tmpl;
	t.mounts[0].readonly = 0;
	ATF_CHECK_EQ(inspect_verify(&c, &t, sv.id), DKR_R_MOUNT_RW);
	t = sv.tmpl;
	t.nmounts = 1;
	ATF_CHECK_EQ(inspect_verify(&c, &t, sv.id), DKR_R_MOUNTS);
	/* Found by the session's labels, as cleanup and reap find it. */
	ATF_REQUIRE(dkr_list(&c, SRV_INSTANCE, "s1", ids, DKR_LIST_MAX,
	    &n) == 0);
	ATF_CHECK(n == 1 && strcmp(ids[0], sv.id) == 0);
	ATF_REQUIRE_EQ(dkr_inspect(&c, sv.id), 200);
	ATF_CHECK(strstr(c.body, "\"" DKR_LABEL_KIND "\":\"server\"") !=
	    NULL);
	ATF_CHECK(strstr(c.body, "\"" DKR_LABEL_SERVER "\":\"catalog\"") !=
	    NULL);

	t2 = now_ms();
	ATF_REQUIRE_MSG(dkr_server_start(&c, &sv) == 0, "%s", sv.why);
	t3 = now_ms();
	printf("measure: server_admit_create_verify_ms %lld\n",
	    (long long)(t1 - t0));
	printf("measure: server_attach_start_verify_ms %lld\n",
	    (long long)(t3 - t2));
	ATF_REQUIRE(sv.fd != -1);
	ATF_CHECK((fl = fcntl(sv.fd, F_GETFL)) != -1 && (fl & O_NONBLOCK));
	/* Running, and verified again with the binds in the engine's order. */
	ATF_CHECK_EQ(inspect_verify(&c, &sv.tmpl, sv.id), DKR_OK);
	code = srv_talk(&c, &sv, "{\"jsonrpc\":\"2.0\",\"id\":1}\n", &o);
	ATF_CHECK_EQ(code, 0);
	ATF_CHECK_STREQ(o.out, "{\"jsonrpc\":\"2.0\",\"id\":1}\n");
	printf("server stderr:\n%s", o.err);
	ATF_CHECK(strstr(o.err, "catalog-from-host\n") != NULL);
	ATF_CHECK(strstr(o.err, "Read-only file system") != NULL);
	ATF_CHECK(strstr(o.err, "ro-written") == NULL);
	ATF_CHECK(strstr(o.err, "rw-written\n") != NULL);
	ATF_CHECK(!host_file(d.ro, "probe", line, sizeof(line)));
	ATF_CHECK(host_file(d.rw, "out", line, sizeof(line)) &&
	    strcmp(line, "written\n") == 0);

	strlcpy(id, sv.id, sizeof(id));
	t0 = now_ms();
	ATF_CHECK_EQ(dkr_server_remove(&c, &sv), 0);
	printf("measure: server_remove_confirmed_ms %lld\n",
	    (long long)(now_ms() - t0));
	ATF_CHECK(sv.gone && sv.fd == -1);
	ATF_CHECK_EQ(dkr_gone(&c, id), 1);
	/* Twice is nothing more. */
	ATF_CHECK_EQ(dkr_server_remove(&c, &sv), 0);
	ATF_REQUIRE(dkr_list(&c, SRV_INSTANCE, NULL, ids, DKR_LIST_MAX,
	    &n) == 0);
	ATF_CHECK_EQ(n, 0);
	dkr_client_free(&c);
	srv_dirs_remove(d.base);
}
ATF_TC_CLEANUP(server_container_binds, tc)
{
	sweep(tc, SRV_INSTANCE);
	srv_dirs_cleanup();
}

ATF_TC_WITH_CLEANUP(server_ro_bind_made_rw);
ATF_TC_HEAD(server_ro_bind_made_rw, tc)
{
	atf_tc_set_md_var(tc, "descr", "Mutation: the read-only bind created "
	    "read-write is refused at admission (Mounts.RW); with the refusal "
	    "bypassed the server writes the host directory");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(server_ro_bind_made_rw, tc)
{
	static struct output	 o;
	static struct dkr_server sv;
	struct dkr_client	 c;
	struct images		 im;
	struct srv_dirs		 d;
	char			 line[64], id[DKR_CONTAINER_ID_BYTES];

	engine(tc, &c);
	images(tc, &im);
	srv_dirs(&d);
	srv_dirs_note(&d);

	srv_fill(tc, &sv, &im, &d);
	sv.tmpl.weaken = WEAKEN_MOUNT_RW;
	ATF_REQUIRE(dkr_server_admit(&c, &sv) == 0);
	ATF_CHECK_EQ(dkr_server_create(&c, &sv), -1);
	ATF_CHECK_STREQ(sv.why, "refused: Mounts.RW");
	ATF_CHECK_STREQ(sv.code, DKR_SRV_REFUSED);
	ATF_REQUIRE(!sv.gone);
	strlcpy(id, sv.id, sizeof(id));
	ATF_CHECK_EQ(dkr_server_remove(&c, &sv), 0);
	ATF_CHECK_EQ(dkr_gone(&c, id), 1);

	srv_fill(tc, &sv, &im, &d);
	sv.tmpl.weaken = WEAKEN_MOUNT_RW;
	sv.tmpl.noadmit = 1;
	ATF_REQUIRE_MSG(dkr_server_create(&c, &sv) == 0, "%s", sv.why);
	ATF_REQUIRE_MSG(dkr_server_start(&c, &sv) == 0, "%s", sv.why);
	ATF_CHECK_EQ(srv_talk(&c, &sv, "x\n", &o), 0);
	ATF_CHECK(strstr(o.err, "ro-written\n") != NULL);
	ATF_CHECK(host_file(d.ro, "probe", line, sizeof(line)));
	ATF_CHECK_EQ(dkr_server_remove(&c, &sv), 0);
	dkr_client_free(&c);
	srv_dirs_remove(d.base);
}
ATF_TC_CLEANUP(server_ro_bind_made_rw, tc)
{
	sweep(tc, SRV_INSTANCE);
	srv_dirs_cleanup();
}

ATF_TC_WITH_CLEANUP(server_refusals);
ATF_TC_HEAD(server_refusals, tc)
{
	atf_tc_set_md_var(tc, "descr", "A server's container is refused for "
	    "an unknown or volume image, a bind the template refuses or a "
	    "host directory that does not exist; nothing is left");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(server_refusals, tc)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	static struct dkr_server sv;
	static struct session_server ss;
	struct dkr_client	 c;
	struct images		 im;
	struct srv_dirs		 d;
	char			 path[160];
	size_t			 n;

	engine(tc, &c);
	images(tc, &im);
	srv_dirs(&d);
	srv_dirs_note(&d);

	srv_message(&ss, &im, &d);
	strlcpy(ss.sv_image, "sha256:000000000000000000000000000000000000"
	    "0000000000000000000000000000", sizeof(ss.sv_image));
	ATF_REQUIRE(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1") == 0);
	ATF_CHECK_EQ(dkr_server_admit(&c, &sv), -1);
	ATF_CHECK_STREQ(sv.why, "refused: image not found");
	ATF_CHECK_STREQ(sv.code, DKR_SRV_REFUSED);

	srv_message(&ss, &im, &d);
	strlcpy(ss.sv_image, im.volume, sizeof(ss.sv_image));
	ATF_REQUIRE(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1") == 0);
	ATF_CHECK_EQ(dkr_server_admit(&c, &sv), -1);
	ATF_CHECK_STREQ(sv.why, "refused: image Config.Volumes");

	/* Never sent: the kernel's trees keep the profile's mounts. */
	srv_message(&ss, &im, &d);
	strlcpy(ss.sv_mounts[1].sm_target, "/proc/sys",
	    sizeof(ss.sv_mounts[1].sm_target));
	ATF_REQUIRE(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1") == 0);
	ATF_CHECK_EQ(dkr_server_create(&c, &sv), -1);
	ATF_CHECK_STREQ(sv.why, "template mounts");
	ATF_CHECK(sv.gone && sv.id[0] == '\0');

	/* A bind through Mounts never makes its source: the engine refuses. */
	srv_message(&ss, &im, &d);
	strlcat(ss.sv_mounts[0].sm_host, "/missing",
	    sizeof(ss.sv_mounts[0].sm_host));
	ATF_REQUIRE(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1") == 0);
	ATF_CHECK_EQ(dkr_server_create(&c, &sv), -1);
	ATF_CHECK_STREQ(sv.code, DKR_SRV_DOCKER);
	ATF_CHECK(sv.gone && sv.id[0] == '\0');
	snprintf(path, sizeof(path), "%s/missing", d.ro);
	ATF_CHECK(access(path, F_OK) == -1 && errno == ENOENT);

	/* Malformed messages are the caller's protocol error. */
	srv_message(&ss, &im, &d);
	ss.sv_mounts[0].sm_rw = 2;
	ATF_CHECK_EQ(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1"), -1);
	srv_message(&ss, &im, &d);
	ss.sv_nmounts = SESSION_MOUNTS_MAX + 1;
	ATF_CHECK_EQ(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1"), -1);
	srv_message(&ss, &im, &d);
	strlcpy(ss.sv_name, "a b", sizeof(ss.sv_name));
	ATF_CHECK_EQ(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1"), -1);
	srv_message(&ss, &im, &d);
	memset(ss.sv_mounts[1].sm_target, 'a',
	    sizeof(ss.sv_mounts[1].sm_target));
	ATF_CHECK_EQ(dkr_server_fill(&sv, &ss, im.init, SRV_INSTANCE,
	    "s1"), -1);

	ATF_REQUIRE(dkr_list(&c, SRV_INSTANCE, NULL, ids, DKR_LIST_MAX,
	    &n) == 0);
	ATF_CHECK_EQ(n, 0);
	dkr_client_free(&c);
	srv_dirs_remove(d.base);
}
ATF_TC_CLEANUP(server_refusals, tc)
{
	sweep(tc, SRV_INSTANCE);
	srv_dirs_cleanup();
}

ATF_TC(names_never_sent);
ATF_TC_HEAD(names_never_sent, tc)
{
	atf_tc_set_md_var(tc, "descr", "Only full IDs reach the engine, "
	    "and an unknown container gives a fixed error, no engine text");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(names_never_sent, tc)
{
	static const char	 zero[] = "00000000000000000000000000000000"
	    "00000000000000000000000000000000";
	struct dkr_client	 c;
	char			 left[DKR_ATTACH_HEAD_BYTES];
	size_t			 leftlen;
	int			 fd;

	engine(tc, &c);
	/* A name or prefix would be resolved by the engine. */
	ATF_CHECK_EQ(dkr_inspect(&c, "cmcp-fixture"), -1);
	ATF_CHECK_EQ(dkr_inspect(&c, "0801f643"), -1);
	ATF_CHECK_EQ(dkr_delete(&c, "../../images/x"), -1);
	ATF_CHECK_STREQ(c.err, "docker: bad container id");
	ATF_CHECK_EQ(dkr_inspect(&c, zero), 404);
	ATF_CHECK_EQ(dkr_gone(&c, zero), 1);
	ATF_CHECK_EQ(dkr_start(&c, zero), 404);
	ATF_CHECK_EQ(dkr_attach(&c, zero, &fd, left, sizeof(left),
	    &leftlen), -1);
	ATF_CHECK_EQ(fd, -1);
	ATF_CHECK_STREQ(c.err, "docker attach: not upgraded");
	dkr_client_free(&c);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, daemon_admitted);
	ATF_TP_ADD_TC(tp, image_admission_real);
	ATF_TP_ADD_TC(tp, report_from_inside);
	ATF_TP_ADD_TC(tp, report_dumpable_init_mutant);
	ATF_TP_ADD_TC(tp, deadline_ends_container);
	ATF_TP_ADD_TC(tp, workload_cannot_fake_time_limit);
	ATF_TP_ADD_TC(tp, relay_container_stdio);
	ATF_TP_ADD_TC(tp, weakened_containers_refused);
	ATF_TP_ADD_TC(tp, list_by_label_only);
	ATF_TP_ADD_TC(tp, server_container_binds);
	ATF_TP_ADD_TC(tp, server_ro_bind_made_rw);
	ATF_TP_ADD_TC(tp, server_refusals);
	ATF_TP_ADD_TC(tp, names_never_sent);
	return atf_no_error();
}
