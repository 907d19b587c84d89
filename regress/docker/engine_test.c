/*
 * The template, the verifiers, cmcp-init and the API client against the
 * real private engine (regress/docker/dockerd-env) and the offline test
 * images (regress/docker/build-images, which writes images.env).
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

#include "dkr.h"

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
    int64_t deadline_ms, struct output *o)
{
	static const char *const argv[] = { "/report", NULL };
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	char			 id[DKR_CONTAINER_ID_BYTES];
	char			 left[DKR_ATTACH_HEAD_BYTES];
	const char		*in = "hello-from-host\n";
	size_t			 leftlen;
	int64_t			 t0, t1, code;
	int			 fd;

	engine(tc, &c);
	images(tc, &im);
	tmpl(&t, &im, im.fixtures, instance, deadline_ms, argv);
	if (init != NULL)
		strlcpy(t.init_path, init, sizeof(t.init_path));
	t0 = now_ms();
	create(&c, &t, id);
	ATF_CHECK_EQ(inspect_verify(&c, &t, id), DKR_OK);
	ATF_REQUIRE_MSG(dkr_attach(&c, id, &fd, left, sizeof(left),
	    &leftlen) == 0, "%s", c.err);
	t1 = now_ms();
	ATF_REQUIRE_EQ(dkr_start(&c, id), 204);
	/* The pre-admission inspect: running, still the same profile. */
	ATF_CHECK_EQ(inspect_verify(&c, &t, id), DKR_OK);
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

	code = run_report(tc, "regress-report", NULL, 20000, &o);
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
	    "the workload reads PID 1's environment and ptraces it, which "
	    "freezes it past its deadline");
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
	ATF_CHECK_EQ(run_report(tc, "regress-dumpable", im.init_dumpable, 2000,
	    &o), -1);
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

	engine(tc, &c);
	images(tc, &im);
	tmpl(&t, &im, im.fixtures, "regress-deadline", 1000, argv);
	create(&c, &t, id);
	ATF_REQUIRE_EQ(inspect_verify(&c, &t, id), DKR_OK);
	t0 = now_ms();
	ATF_REQUIRE_EQ(dkr_start(&c, id), 204);
	usleep(300 * 1000);
	/* The workload and its setsid'd descendant run. */
	ATF_CHECK_MSG(processes_of(id) >= 3, "%d processes",
	    processes_of(id));
	ATF_REQUIRE_MSG(dkr_wait(&c, id, 10000, &code) == 0, "%s", c.err);
	ms = now_ms() - t0;
	printf("measure: deadline_1000ms_exit_after_ms %lld\n", (long long)ms);
	ATF_CHECK_EQ(code, CMCP_INIT_TIME_LIMIT);
	ATF_CHECK_EQ(dkr_exit_outcome(code), DKR_TIME_LIMIT);
	ATF_CHECK_MSG(ms >= 900 && ms < 3000, "ended after %lld ms",
	    (long long)ms);
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
	    "weakened are refused at inspection, a misspelt field included");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(weakened_containers_refused, tc)
{
	static const char *const argv[] = { "/report", NULL };
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct images		 im;
	char			 id[DKR_CONTAINER_ID_BYTES];
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
	ATF_TP_ADD_TC(tp, names_never_sent);
	return atf_no_error();
}
