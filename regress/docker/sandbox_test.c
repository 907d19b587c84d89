/*
 * The sandbox tool's one-shot container (dockerd-client/dkr_sandbox.c)
 * against the private engine (regress/docker/dockerd-env) and the sandbox
 * image (make sandbox-image, which writes sandbox-image.env): busybox and
 * examples/store/sandbox-runner, with cmcp-init bind-mounted as PID 1.
 *
 * Skipped, with the reason, when no engine listens on the test socket:
 * $CMCP_TEST_DOCKER_SOCK, the docker_sock configuration variable, or
 * /run/cmcp-test/docker.sock.  Every test labels its containers with its
 * own instance and sweeps that label in its cleanup.
 *
 * The attacks from inside the report run regress/docker/fixtures/sbprobe
 * (in the test image only), which prints "key ok" or "key ERRNO-NAME";
 * each is its own case.  A mutation removes one protection through the
 * test build's weaken (the container is then refused by the profile
 * check) and noadmit (the check bypassed) and shows that the same probe
 * sees the leak.  Built with -DCMCP_TEST.
 */

#include <sys/types.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "dkr_sandbox.h"

#define DEFAULT_SOCK	"/run/cmcp-test/docker.sock"
#define DEFAULT_RUN	"/run/cmcp-test"
#define DEFAULT_DATA	"/var/lib/cmcp-test"
#define UNKNOWN_IMAGE	"sha256:00000000000000000000000000000000" \
			"00000000000000000000000000000000"
#define DEADLINE_MS	1000
#define SLACK_MS	2000
#define OBSERVER_LOG	"tcp.log"
#define OBSERVER_PORTS	"tcp.ports"
#define OBSERVER_PID	"tcp-observer.pid"
#define OBSERVER_WAIT_MS 5000
#define OBSERVER_LOG_BYTES (64 * 1024)
#define CANARY_BYTES	32
/* sbprobe's connect: longer than any refusal, so a timeout is seen. */
#define CONNECT_MS	"3000"

#ifndef CMCP_TEST
#error "sandbox_test is a test build: compile with -DCMCP_TEST"
#endif

/* The host's tcp-observer, on 127.0.0.1 and ::1. */
struct observer {
	pid_t	 pid;
	int	 port4;
	int	 port6;
};

static const char *
sock_path(const atf_tc_t *tc)
{
	const char	*sock;

	if ((sock = getenv("CMCP_TEST_DOCKER_SOCK")) == NULL &&
	    (sock = atf_tc_get_config_var_wd(tc, "docker_sock", NULL)) == NULL)
		sock = DEFAULT_SOCK;
	return sock;
}

/* Skip, saying why, when the engine is not running. */
static void
engine(const atf_tc_t *tc)
{
	struct stat	 st;
	const char	*sock = sock_path(tc);

	if (stat(sock, &st) == -1 || !S_ISSOCK(st.st_mode))
		atf_tc_skip("no private dockerd at %s: run "
		    "regress/docker/dockerd-env start", sock);
}

/*
 * The tool as the configuration's defaults make it (uid 65534:65534,
 * /sandbox-runner), on the test engine and image, labelled instance.
 */
static void
spec(const atf_tc_t *tc, struct dkr_sandbox_spec *sp, const char *instance,
    int64_t deadline_ms)
{
	char	 path[1024], line[512], *v;
	FILE	*f;

	engine(tc);
	dkr_sandbox_defaults(sp);
	snprintf(path, sizeof(path), "%s/sandbox-image.env",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG((f = fopen(path, "r")) != NULL,
	    "%s missing: run make sandbox-image", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "SANDBOX_IMAGE") == 0)
			strlcpy(sp->image, v, sizeof(sp->image));
		else if (strcmp(line, "CMCP_INIT") == 0)
			strlcpy(sp->init_path, v, sizeof(sp->init_path));
	}
	fclose(f);
	ATF_REQUIRE(dkr_image_id_valid(sp->image));
	ATF_REQUIRE_MSG(access(sp->init_path, X_OK) == 0, "%s",
	    sp->init_path);
	strlcpy(sp->sock, sock_path(tc), sizeof(sp->sock));
	strlcpy(sp->instance, instance, sizeof(sp->instance));
	strlcpy(sp->session, "sb1", sizeof(sp->session));
	sp->deadline_ms = deadline_ms;
}

/* A variable of build-images' images.env (make docker-images). */
static void
images_env(const atf_tc_t *tc, const char *name, char *value, size_t size)
{
	char	 path[1024], line[512];
	size_t	 n = strlen(name);
	FILE	*f;

	value[0] = '\0';
	snprintf(path, sizeof(path), "%s/images.env",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG((f = fopen(path, "r")) != NULL,
	    "%s missing: run make docker-images", path);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, name, n) == 0 && line[n] == '=') {
			line[strcspn(line, "\n")] = '\0';
			strlcpy(value, line + n + 1, size);
		}
	fclose(f);
	ATF_REQUIRE_MSG(value[0] != '\0', "no %s in %s: run make "
	    "docker-images", name, path);
}

/* VOLUME_IMAGE of build-images. */
static void
volume_image(const atf_tc_t *tc, char *image, size_t size)
{
	images_env(tc, "VOLUME_IMAGE", image, size);
	ATF_REQUIRE(dkr_image_id_valid(image));
}

/* How many containers carry the instance label. */
static size_t
containers_of(const atf_tc_t *tc, const char *instance)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	struct dkr_client	 c;
	size_t			 n;

	ATF_REQUIRE_MSG(dkr_client_init(&c, sock_path(tc)) == 0, "%s", c.err);
	ATF_REQUIRE_MSG(dkr_list(&c, instance, NULL, ids, DKR_LIST_MAX,
	    &n) == 0, "%s", c.err);
	dkr_client_free(&c);
	return n;
}

/* Cleanup: remove whatever a failed run left under the instance label. */
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

static int
run(const struct dkr_sandbox_spec *sp, const char *src, const char *in,
    size_t inlen, struct dkr_sandbox_result *res)
{
	int	 rv;

	rv = dkr_sandbox_run(sp, src, strlen(src), in, inlen, res);
	printf("%s status %lld why \"%s\" stdout %llu stderr %llu "
	    "run_ms %lld total_ms %lld\n", dkr_sandbox_outcome_str(
	    res->outcome), (long long)res->status, res->why,
	    (unsigned long long)res->stdout_bytes,
	    (unsigned long long)res->stderr_bytes, (long long)res->run_ms,
	    (long long)res->total_ms);
	return rv;
}

/* A run that happened: its container existed and is confirmed gone. */
static void
ran_and_gone(const atf_tc_t *tc, int rv, const struct dkr_sandbox_result *res,
    const char *instance)
{
	ATF_CHECK_EQ(rv, 0);
	ATF_CHECK(res->created);
	ATF_CHECK(res->gone);
	ATF_CHECK(dkr_container_id_valid(res->id));
	ATF_CHECK_EQ(containers_of(tc, instance), 0);
}

/* A refusal before any container: nothing created, nothing listed. */
static void
refused_before(const atf_tc_t *tc, int rv,
    const struct dkr_sandbox_result *res, const char *instance,
    const char *why)
{
	ATF_CHECK_EQ(rv, -1);
	ATF_CHECK_EQ(res->outcome, DKR_SB_REFUSED);
	ATF_CHECK_STREQ(res->why, why);
	ATF_CHECK(!res->created);
	ATF_CHECK_STREQ(res->id, "");
	ATF_CHECK_EQ(res->outlen, 0);
	ATF_CHECK_EQ(containers_of(tc, instance), 0);
}

/*
 * A weakened container that the profile check refused after create: it
 * existed, no byte went in or came out, and it is confirmed gone.
 */
static void
refused_after_create(const atf_tc_t *tc, int rv,
    const struct dkr_sandbox_result *res, const char *instance,
    const char *why)
{
	ATF_CHECK_EQ(rv, -1);
	ATF_CHECK_EQ(res->outcome, DKR_SB_REFUSED);
	ATF_CHECK_STREQ(res->why, why);
	ATF_CHECK(res->created);
	ATF_CHECK(res->gone);
	ATF_CHECK_EQ(res->outlen, 0);
	ATF_CHECK_EQ(res->stdout_bytes, 0);
	ATF_CHECK_EQ(containers_of(tc, instance), 0);
}

/* The value of out's first "key value" line; "(missing)" if none. */
static const char *
probe_value(const char *out, const char *key)
{
	static char	 v[128];
	const char	*p, *e;
	size_t		 klen = strlen(key);

	for (p = out; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		if ((e = strchr(p, '\n')) == NULL)
			e = p + strlen(p);
		if ((size_t)(e - p) > klen && strncmp(p, key, klen) == 0 &&
		    p[klen] == ' ') {
			snprintf(v, sizeof(v), "%.*s", (int)(e - p - klen - 1),
			    p + klen + 1);
			return v;
		}
	}
	return "(missing)";
}

#define CHECK_PROBE(out, key, want)					\
	ATF_CHECK_STREQ_MSG(probe_value((out), (key)), (want), "%s", (key))

/* PID 1 neither stopped nor dead: sleeping in sigtimedwait, or running. */
#define CHECK_PID1_ALIVE(out, key) do {					\
	const char *st_ = probe_value((out), (key));			\
	ATF_CHECK_MSG(strcmp(st_, "S") == 0 || strcmp(st_, "R") == 0,	\
	    "%s: PID 1 state %s", (key), st_);				\
} while (0)

/* A fresh canary, "CANARY-sb-" and hex, for the observer to find. */
static void
canary(char *buf, size_t size)
{
	unsigned char	 r[8];
	size_t		 i;

	arc4random_buf(r, sizeof(r));
	strlcpy(buf, "CANARY-sb-", size);
	for (i = 0; i < sizeof(r); i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%02x", r[i]);
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	ATF_REQUIRE(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Start regress/observers/tcp-observer on the host's 127.0.0.1 and ::1,
 * ephemeral ports, logging into the work directory; its pid is kept in a
 * file so that the cleanup can end it.
 */
static void
observer_start(const atf_tc_t *tc, struct observer *o)
{
	char		 path[1024], line[64];
	FILE		*f;
	int64_t		 until;

	snprintf(path, sizeof(path), "%s/../observers/tcp-observer",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG(access(path, X_OK) == 0, "%s missing: make "
	    "observers", path);
	(void)unlink(OBSERVER_PORTS);
	(void)unlink(OBSERVER_LOG);
	ATF_REQUIRE(fflush(stdout) == 0);
	ATF_REQUIRE((o->pid = fork()) != -1);
	if (o->pid == 0) {
		execl(path, "tcp-observer", "-o", OBSERVER_LOG, "-4", "0",
		    "-6", "0", "-P", OBSERVER_PORTS, "-t", "120", (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE((f = fopen(OBSERVER_PID, "w")) != NULL);
	fprintf(f, "%d\n", (int)o->pid);
	ATF_REQUIRE(fclose(f) == 0);

	o->port4 = o->port6 = 0;
	until = now_ms() + OBSERVER_WAIT_MS;
	while (o->port4 == 0 || o->port6 == 0) {
		ATF_REQUIRE_MSG(now_ms() < until, "tcp-observer not listening");
		usleep(20 * 1000);
		if ((f = fopen(OBSERVER_PORTS, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			if (strncmp(line, "tcp4 ", 5) == 0)
				o->port4 = atoi(line + 5);
			else if (strncmp(line, "tcp6 ", 5) == 0)
				o->port6 = atoi(line + 5);
		}
		fclose(f);
	}
	printf("observer pid %d tcp4 %d tcp6 %d\n", (int)o->pid, o->port4,
	    o->port6);
}

/* End it, so that its log is complete. */
static void
observer_stop(struct observer *o)
{
	int	 status;

	if (o->pid <= 0)
		return;
	ATF_CHECK(kill(o->pid, SIGTERM) == 0);
	ATF_CHECK(waitpid(o->pid, &status, 0) == o->pid);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "tcp-observer status %d", status);
	o->pid = -1;
	(void)unlink(OBSERVER_PID);
}

/* Cleanup: end the observer a failed body left, by its recorded pid. */
static void
observer_reap(void)
{
	FILE	*f;
	int	 pid;

	if ((f = fopen(OBSERVER_PID, "r")) == NULL)
		return;
	if (fscanf(f, "%d", &pid) == 1 && pid > 1)
		(void)kill(pid, SIGTERM);
	fclose(f);
	(void)unlink(OBSERVER_PID);
}

/* Bytes of the observer's log; -1 when there is no log. */
static ssize_t
observer_log(char *buf, size_t size)
{
	ssize_t	 n;
	int	 fd;

	buf[0] = '\0';
	if ((fd = open(OBSERVER_LOG, O_RDONLY)) == -1)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* Wait up to OBSERVER_WAIT_MS for the canary in the log: 1 seen. */
static int
observer_saw(const char *canary_str)
{
	static char	 buf[OBSERVER_LOG_BYTES];
	int64_t		 until = now_ms() + OBSERVER_WAIT_MS;
	ssize_t		 n;

	do {
		if ((n = observer_log(buf, sizeof(buf))) > 0 &&
		    memmem(buf, n, canary_str, strlen(canary_str)) != NULL)
			return 1;
		usleep(50 * 1000);
	} while (now_ms() < until);
	return 0;
}

ATF_TC_WITH_CLEANUP(report_completed);
ATF_TC_HEAD(report_completed, tc)
{
	atf_tc_set_md_var(tc, "descr", "A script reads the input from its "
	    "stdin and prints it and its uid: COMPLETED, output exact, "
	    "uid 65534, stderr counted and not returned");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(report_completed, tc)
{
	static struct dkr_sandbox_result res;
	static const char	 in[] = "stock 17\nbinary \0\001\377 end\n";
	static const char	 src[] = "cat\nid -u\nid -g\n"
	    "echo not-returned >&2\n";
	static const char	 ids[] = "65534\n65534\n";
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-report", 5000);
	rv = run(&sp, src, in, sizeof(in) - 1, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-report");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res.status, 0);
	ATF_CHECK_STREQ(res.why, "");
	ATF_CHECK(!res.killed);
	ATF_REQUIRE_EQ(res.outlen, sizeof(in) - 1 + sizeof(ids) - 1);
	ATF_CHECK(memcmp(res.out, in, sizeof(in) - 1) == 0);
	ATF_CHECK(memcmp(res.out + sizeof(in) - 1, ids, sizeof(ids) - 1) == 0);
	ATF_CHECK_EQ(res.stdout_bytes, res.outlen);
	ATF_CHECK_EQ(res.stderr_bytes, strlen("not-returned\n"));
	ATF_CHECK(memmem(res.out, res.outlen, "not-returned", 12) == NULL);
}
ATF_TC_CLEANUP(report_completed, tc)
{
	sweep(tc, "regress-sb-report");
}

ATF_TC_WITH_CLEANUP(infinite_loop_time_limit);
ATF_TC_HEAD(infinite_loop_time_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "An infinite loop ends with "
	    "TIME_LIMIT within the deadline plus 2 s, its container "
	    "confirmed gone and its partial output not returned");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(infinite_loop_time_limit, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	struct timespec		 a, b;
	int64_t			 ms;
	int			 rv;

	spec(tc, &sp, "regress-sb-loop", DEADLINE_MS);
	ATF_REQUIRE(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
	rv = run(&sp, "echo started\nwhile :; do :; done\n", "", 0, &res);
	ATF_REQUIRE(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
	ms = (int64_t)(b.tv_sec - a.tv_sec) * 1000 +
	    (b.tv_nsec - a.tv_nsec) / 1000000;
	printf("measure: time_limit_%dms_call_ms %lld\n", DEADLINE_MS,
	    (long long)ms);
	ran_and_gone(tc, rv, &res, "regress-sb-loop");
	ATF_CHECK_EQ(res.outcome, DKR_SB_TIME_LIMIT);
	/* cmcp-init's own deadline came first, not the host's backstop. */
	ATF_CHECK_EQ(res.status, CMCP_INIT_TIME_LIMIT);
	ATF_CHECK_STREQ(res.why, "sandbox: deadline");
	ATF_CHECK_EQ(res.stdout_bytes, strlen("started\n"));
	ATF_CHECK_EQ(res.outlen, 0);
	ATF_CHECK_MSG(ms >= DEADLINE_MS && ms <= DEADLINE_MS + SLACK_MS,
	    "the call took %lld ms", (long long)ms);
}
ATF_TC_CLEANUP(infinite_loop_time_limit, tc)
{
	sweep(tc, "regress-sb-loop");
}

/*
 * Test helper, in a child: freeze the container labelled instance (POST
 * /pause, the cgroup freezer) 400 ms after it runs, well before its 1 s
 * deadline, so that cmcp-init cannot end it.  A container frozen before
 * the second admission is refused there ("State").
 */
static void
freeze_when_seen(const char *sock, const char *instance)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	struct dkr_client	 c;
	char			 path[128];
	size_t			 n;
	int			 i;

	if (dkr_client_init(&c, sock) == -1)
		_exit(1);
	for (i = 0; i < 500; i++) {
		if (dkr_list(&c, instance, NULL, ids, DKR_LIST_MAX, &n) == 0 &&
		    n == 1 && dkr_inspect(&c, ids[0]) == 200 &&
		    strstr(c.body, "\"Status\":\"running\"") != NULL) {
			/* After the admission of the running profile. */
			usleep(400 * 1000);
			snprintf(path, sizeof(path), "/containers/%s/pause",
			    ids[0]);
			_exit(dkr_call(&c, "POST", path, NULL, 5000) == 204 ?
			    0 : 2);
		}
		usleep(10 * 1000);
	}
	_exit(3);
}

ATF_TC_WITH_CLEANUP(frozen_init_host_backstop);
ATF_TC_HEAD(frozen_init_host_backstop, tc)
{
	atf_tc_set_md_var(tc, "descr", "When cmcp-init cannot end the "
	    "container (frozen), the host's backstop does: TIME_LIMIT within "
	    "the deadline plus 2 s, killed and gone");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(frozen_init_host_backstop, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	pid_t			 pid;
	int			 rv, status;

	spec(tc, &sp, "regress-sb-frozen", DEADLINE_MS);
	ATF_REQUIRE(fflush(stdout) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0)
		freeze_when_seen(sp.sock, sp.instance);
	rv = run(&sp, "while :; do :; done\n", "", 0, &res);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the container was not frozen (%d)", status);
	printf("measure: backstop_%dms_total_ms %lld\n", DEADLINE_MS,
	    (long long)res.total_ms);
	ran_and_gone(tc, rv, &res, "regress-sb-frozen");
	ATF_CHECK_EQ(res.outcome, DKR_SB_TIME_LIMIT);
	ATF_CHECK_STREQ(res.why, "sandbox: host backstop");
	ATF_CHECK(res.killed);
	ATF_CHECK_EQ(res.status, 137);
	ATF_CHECK_MSG(res.total_ms >= DEADLINE_MS + DKR_SANDBOX_MARGIN_MS &&
	    res.total_ms <= DEADLINE_MS + SLACK_MS, "%lld ms",
	    (long long)res.total_ms);
}
ATF_TC_CLEANUP(frozen_init_host_backstop, tc)
{
	sweep(tc, "regress-sb-frozen");
}

ATF_TC_WITH_CLEANUP(output_flood_output_limit);
ATF_TC_HEAD(output_flood_output_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "Output up to the bound completes; "
	    "one byte more, or an endless flood on stdout or stderr, ends "
	    "with OUTPUT_LIMIT, killed and gone");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "90");
}
ATF_TC_BODY(output_flood_output_limit, tc)
{
	static struct dkr_sandbox_result res;
	static const char *const inst = "regress-sb-flood";
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, inst, 10000);
	sp.output_bytes = 4096;

	/* Exactly the bound: all of it comes back. */
	rv = run(&sp, "head -c 4096 /dev/zero | tr '\\0' a\n", "", 0, &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res.outlen, 4096);
	ATF_CHECK(res.out[0] == 'a' && res.out[4095] == 'a');

	/* One byte over, and the program then waits: the host kills it. */
	rv = run(&sp, "head -c 4097 /dev/zero | tr '\\0' a\nsleep 100\n",
	    "", 0, &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_OUTPUT_LIMIT);
	ATF_CHECK_EQ(res.stdout_bytes, 4097);
	ATF_CHECK_EQ(res.outlen, 0);
	ATF_CHECK(res.killed);
	ATF_CHECK_MSG(res.total_ms < 5000, "%lld ms", (long long)res.total_ms);

	/* An endless flood is cut at the bound, long before the deadline. */
	rv = run(&sp, "while :; do echo flood-flood-flood; done\n", "", 0,
	    &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_OUTPUT_LIMIT);
	ATF_CHECK_EQ(res.stdout_bytes, 4097);
	ATF_CHECK(res.killed);
	ATF_CHECK_MSG(res.total_ms < 5000, "%lld ms", (long long)res.total_ms);

	/* stderr is not stored, but it is bounded too. */
	rv = run(&sp, "while :; do echo flood-flood-flood; done >&2\n", "", 0,
	    &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_OUTPUT_LIMIT);
	ATF_CHECK_EQ(res.stderr_bytes, DKR_SANDBOX_STDERR_BYTES + 1);
	ATF_CHECK_EQ(res.stdout_bytes, 0);
	ATF_CHECK(res.killed);
}
ATF_TC_CLEANUP(output_flood_output_limit, tc)
{
	sweep(tc, "regress-sb-flood");
}

ATF_TC_WITH_CLEANUP(reserved_status_tool_failed);
ATF_TC_HEAD(reserved_status_tool_failed, tc)
{
	atf_tc_set_md_var(tc, "descr", "A program exiting with the "
	    "deadline's status (or cmcp-init's, or the runner's) is "
	    "TOOL_FAILED, never TIME_LIMIT; other statuses are its own");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(reserved_status_tool_failed, tc)
{
	static struct dkr_sandbox_result res;
	static const struct {
		const char			*src;
		int64_t				 status;
		enum dkr_sandbox_outcome	 outcome;
	} cases[] = {
		{ "exit 250", 128, DKR_SB_TOOL_FAILED },
		{ "exit 251", 128, DKR_SB_TOOL_FAILED },
		{ "exit 200", 128, DKR_SB_TOOL_FAILED },
		{ "exit 125", 125, DKR_SB_TOOL_FAILED },
		{ "exit 126", 126, DKR_SB_TOOL_FAILED },
		{ "exit 3", 3, DKR_SB_COMPLETED },
		{ "exit 127", 127, DKR_SB_COMPLETED },
		{ "kill -9 $$", 137, DKR_SB_COMPLETED },
	};
	struct dkr_sandbox_spec	 sp;
	size_t			 i;
	int			 rv;

	spec(tc, &sp, "regress-sb-status", 10000);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rv = run(&sp, cases[i].src, "", 0, &res);
		ran_and_gone(tc, rv, &res, "regress-sb-status");
		ATF_CHECK_EQ_MSG(res.status, cases[i].status, "%s: %lld",
		    cases[i].src, (long long)res.status);
		ATF_CHECK_EQ_MSG(res.outcome, cases[i].outcome, "%s: %s",
		    cases[i].src, dkr_sandbox_outcome_str(res.outcome));
		ATF_CHECK(!res.killed);
	}

	/* Statuses a script cannot produce here. */
	ATF_CHECK_EQ(dkr_sandbox_status_outcome(CMCP_INIT_FAILED),
	    DKR_SB_TOOL_FAILED);
	ATF_CHECK_EQ(dkr_sandbox_status_outcome(CMCP_INIT_TIME_LIMIT),
	    DKR_SB_TIME_LIMIT);
	ATF_CHECK_EQ(dkr_sandbox_status_outcome(193), DKR_SB_TOOL_FAILED);
	ATF_CHECK_EQ(dkr_sandbox_status_outcome(-1), DKR_SB_TOOL_FAILED);
	ATF_CHECK_EQ(dkr_sandbox_status_outcome(0), DKR_SB_COMPLETED);
	ATF_CHECK_EQ(dkr_sandbox_status_outcome(192), DKR_SB_COMPLETED);
}
ATF_TC_CLEANUP(reserved_status_tool_failed, tc)
{
	sweep(tc, "regress-sb-status");
}

ATF_TC_WITH_CLEANUP(init_failure_tool_failed);
ATF_TC_HEAD(init_failure_tool_failed, tc)
{
	atf_tc_set_md_var(tc, "descr", "A runner that does not exist in "
	    "the image makes cmcp-init exit 251: TOOL_FAILED");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(init_failure_tool_failed, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-noexec", 5000);
	strlcpy(sp.argv[0], "/no-such-runner", sizeof(sp.argv[0]));
	rv = run(&sp, "echo never", "", 0, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-noexec");
	ATF_CHECK_EQ(res.status, CMCP_INIT_FAILED);
	ATF_CHECK_EQ(res.outcome, DKR_SB_TOOL_FAILED);
	ATF_CHECK_EQ(res.outlen, 0);
}
ATF_TC_CLEANUP(init_failure_tool_failed, tc)
{
	sweep(tc, "regress-sb-noexec");
}

ATF_TC_WITH_CLEANUP(oversize_refused_before_container);
ATF_TC_HEAD(oversize_refused_before_container, tc)
{
	atf_tc_set_md_var(tc, "descr", "Source over 16 KiB (or the tool's "
	    "bound), input over 64 KiB, an empty source or one with a NUL, "
	    "and weak tool parameters are refused before the engine is "
	    "asked anything");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(oversize_refused_before_container, tc)
{
	static struct dkr_sandbox_result res;
	static const char *const inst = "regress-sb-size";
	static char		 big[SANDBOX_INPUT_BYTES + 2];
	struct dkr_sandbox_spec	 sp, weak;
	int			 rv;

	spec(tc, &sp, inst, 5000);
	memset(big, ':', sizeof(big));

	rv = dkr_sandbox_run(&sp, big, SANDBOX_SOURCE_BYTES + 1, "", 0, &res);
	refused_before(tc, rv, &res, inst,
	    "sandbox: source size out of bounds");
	rv = dkr_sandbox_run(&sp, "cat", 3, big, SANDBOX_INPUT_BYTES + 1,
	    &res);
	refused_before(tc, rv, &res, inst, "sandbox: input too large");
	rv = dkr_sandbox_run(&sp, "", 0, "", 0, &res);
	refused_before(tc, rv, &res, inst,
	    "sandbox: source size out of bounds");
	rv = dkr_sandbox_run(&sp, "echo a\0b", 8, "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: NUL byte in the source");

	/* A tool's own, smaller bounds hold too. */
	weak = sp;
	weak.source_bytes = 1024;
	weak.input_bytes = 10;
	rv = dkr_sandbox_run(&weak, big, 1025, "", 0, &res);
	refused_before(tc, rv, &res, inst,
	    "sandbox: source size out of bounds");
	rv = dkr_sandbox_run(&weak, "cat", 3, big, 11, &res);
	refused_before(tc, rv, &res, inst, "sandbox: input too large");

	/* Checked before the engine: an unreachable one is not the reason. */
	weak = sp;
	strlcpy(weak.sock, "/nonexistent/docker.sock", sizeof(weak.sock));
	rv = dkr_sandbox_run(&weak, big, SANDBOX_SOURCE_BYTES + 1, "", 0,
	    &res);
	refused_before(tc, rv, &res, inst,
	    "sandbox: source size out of bounds");

	/* Weak parameters: root, a tag, bounds over the maxima. */
	weak = sp;
	weak.uid = 0;
	rv = dkr_sandbox_run(&weak, "id", 2, "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: bad tool parameters");
	weak = sp;
	strlcpy(weak.image, "cmcp-test/sandbox:1", sizeof(weak.image));
	rv = dkr_sandbox_run(&weak, "id", 2, "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: bad tool parameters");
	weak = sp;
	weak.output_bytes = SANDBOX_OUTPUT_BYTES + 1;
	rv = dkr_sandbox_run(&weak, "id", 2, "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: bad tool parameters");
	weak = sp;
	weak.source_bytes = SANDBOX_SOURCE_BYTES + 1;
	rv = dkr_sandbox_run(&weak, "id", 2, "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: bad tool parameters");
	weak = sp;
	weak.deadline_ms = 0;
	rv = dkr_sandbox_run(&weak, "id", 2, "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: bad tool parameters");

	/* At the bounds exactly, it runs. */
	memset(big, '#', SANDBOX_SOURCE_BYTES);
	big[SANDBOX_SOURCE_BYTES - 1] = '\n';
	memcpy(big, "wc -c\n", 6);
	rv = dkr_sandbox_run(&sp, big, SANDBOX_SOURCE_BYTES, big,
	    SANDBOX_INPUT_BYTES, &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	ATF_CHECK_STREQ(res.out, "65536\n");
}
ATF_TC_CLEANUP(oversize_refused_before_container, tc)
{
	sweep(tc, "regress-sb-size");
}

ATF_TC_WITH_CLEANUP(unavailable_refused);
ATF_TC_HEAD(unavailable_refused, tc)
{
	atf_tc_set_md_var(tc, "descr", "An unknown image, an unreachable "
	    "engine, an image with a volume or a missing init binary refuse "
	    "the run: nothing is created, nothing runs");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(unavailable_refused, tc)
{
	static struct dkr_sandbox_result res;
	static const char *const inst = "regress-sb-noimage";
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, inst, 5000);
	strlcpy(sp.image, UNKNOWN_IMAGE, sizeof(sp.image));
	rv = run(&sp, "id -u", "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: image not found");

	spec(tc, &sp, inst, 5000);
	strlcpy(sp.sock, "/nonexistent/docker.sock", sizeof(sp.sock));
	rv = run(&sp, "id -u", "", 0, &res);
	refused_before(tc, rv, &res, inst, "sandbox: engine unavailable");

	/* Image admission: an image that declares a volume. */
	spec(tc, &sp, inst, 5000);
	volume_image(tc, sp.image, sizeof(sp.image));
	rv = run(&sp, "id -u", "", 0, &res);
	refused_before(tc, rv, &res, inst,
	    "refused: image Config.Volumes");

	/* The engine refuses to bind a missing init: nothing is created. */
	spec(tc, &sp, inst, 5000);
	strlcpy(sp.init_path, "/nonexistent/cmcp-init", sizeof(sp.init_path));
	rv = run(&sp, "id -u", "", 0, &res);
	refused_before(tc, rv, &res, inst, "docker create: HTTP 400");
}
ATF_TC_CLEANUP(unavailable_refused, tc)
{
	sweep(tc, "regress-sb-noimage");
}

ATF_TC_WITH_CLEANUP(network_only_lo);
ATF_TC_HEAD(network_only_lo, tc)
{
	atf_tc_set_md_var(tc, "descr", "Inside, the only interface is lo and "
	    "an outside address is unreachable at once");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(network_only_lo, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-net", 5000);
	rv = run(&sp, "ls /sys/class/net\n"
	    "nc 192.0.2.1 80 </dev/null 2>&1\necho nc=$?\n", "", 0, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-net");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	ATF_CHECK(strncmp(res.out, "lo\n", 3) == 0);
	ATF_CHECK(strstr(res.out, "Network is unreachable") != NULL);
	ATF_CHECK(strstr(res.out, "\nnc=1\n") != NULL);
}
ATF_TC_CLEANUP(network_only_lo, tc)
{
	sweep(tc, "regress-sb-net");
}

ATF_TC_WITH_CLEANUP(rootfs_write_fails);
ATF_TC_HEAD(rootfs_write_fails, tc)
{
	atf_tc_set_md_var(tc, "descr", "Writing the root file system or the "
	    "init binary fails with EROFS, the runner's with EACCES, and the "
	    "input cannot be written back");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(rootfs_write_fails, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-rofs", 5000);
	rv = run(&sp, "{ echo x >/probe; } 2>&1; echo rc=$?\n"
	    "{ echo x >>/sandbox-runner; } 2>&1; echo rc=$?\n"
	    "{ echo x >/cmcp-init; } 2>&1; echo rc=$?\n"
	    "{ echo x >&0; } 2>&1; echo rc=$?\n", "in", 2, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-rofs");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	ATF_CHECK(strstr(res.out, "/probe: Read-only file system\nrc=1\n") !=
	    NULL);
	ATF_CHECK(strstr(res.out, "rc=0") == NULL);
	ATF_CHECK(strstr(res.out, "/cmcp-init: Read-only file system") !=
	    NULL);
	/* The input is a pipe's read end: there is no file to change. */
	ATF_CHECK(strstr(res.out, "Bad file descriptor\nrc=1\n") != NULL);
}
ATF_TC_CLEANUP(rootfs_write_fails, tc)
{
	sweep(tc, "regress-sb-rofs");
}

/* Entries of a directory; -1 when it cannot be read. */
static int
entries(const char *dir)
{
	struct dirent	*d;
	DIR		*dp;
	int		 n = 0;

	if ((dp = opendir(dir)) == NULL)
		return -1;
	while ((d = readdir(dp)) != NULL)
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			n++;
	closedir(dp);
	return n;
}

static int
exists(const char *fmt, const char *a, const char *id)
{
	char	 path[1024];

	snprintf(path, sizeof(path), fmt, a, id);
	return access(path, F_OK) == 0;
}

ATF_TC_WITH_CLEANUP(nothing_left_on_host);
ATF_TC_HEAD(nothing_left_on_host, tc)
{
	atf_tc_set_md_var(tc, "descr", "A run writes no file on the host: "
	    "private empty /tmp, /var/tmp, /dev/shm and working directory "
	    "stay empty, no descriptor leaks, and the engine keeps no state "
	    "of the container");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(nothing_left_on_host, tc)
{
	static struct dkr_sandbox_result res;
	static const char *const tmps[] = { "/tmp", "/var/tmp", "/dev/shm" };
	struct dkr_sandbox_spec	 sp;
	const char		*rundir, *datadir;
	pid_t			 pid;
	size_t			 i;
	int			 status, fds, rv, bad;

	spec(tc, &sp, "regress-sb-host", 5000);
	if ((rundir = getenv("CMCP_TEST_RUN")) == NULL)
		rundir = DEFAULT_RUN;
	if ((datadir = getenv("CMCP_TEST_DATA")) == NULL)
		datadir = DEFAULT_DATA;
	ATF_REQUIRE(fflush(stdout) == 0);

	/*
	 * The run happens in a child with its own mount namespace and fresh
	 * tmpfs over the temporary directories, so that other processes of
	 * the host cannot disturb the count and anything the module or its
	 * libraries wrote there is seen.
	 */
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		bad = 0;
		if (unshare(CLONE_NEWNS) == -1 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
			_exit(100);
		for (i = 0; i < sizeof(tmps) / sizeof(tmps[0]); i++)
			if (mount("cmcp-sb", tmps[i], "tmpfs", MS_NOSUID |
			    MS_NODEV, "size=1m,mode=1777") == -1)
				_exit(101);
		if (chdir("/tmp") == -1)
			_exit(102);
		fds = entries("/proc/self/fd");
		rv = dkr_sandbox_run(&sp, "cat; id -u", 10, "confidential\n",
		    13, &res);
		printf("child: %s why \"%s\" out %zu\n",
		    dkr_sandbox_outcome_str(res.outcome), res.why, res.outlen);
		if (rv != 0 || res.outcome != DKR_SB_COMPLETED ||
		    strcmp(res.out, "confidential\n65534\n") != 0)
			bad |= 1;
		for (i = 0; i < sizeof(tmps) / sizeof(tmps[0]); i++)
			if (entries(tmps[i]) != 0) {
				printf("child: %s has %d entries\n", tmps[i],
				    entries(tmps[i]));
				bad |= 2;
			}
		if (entries("/proc/self/fd") != fds) {
			printf("child: %d descriptors, were %d\n",
			    entries("/proc/self/fd"), fds);
			bad |= 4;
		}
		if (exists("%s/docker/containers/%s", datadir, res.id) ||
		    exists("%s/exec/runtime-runc/moby/%s", rundir, res.id) ||
		    exists("%s/containerd/state/io.containerd.runtime.v2.task/"
		    "moby/%s", rundir, res.id))
			bad |= 8;
		fflush(stdout);
		_exit(bad);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(WIFEXITED(status));
	ATF_CHECK_EQ_MSG(WEXITSTATUS(status), 0, "child status %d "
	    "(100+ setup, 1 run, 2 temp files, 4 descriptors, 8 engine "
	    "state)", WEXITSTATUS(status));
	ATF_CHECK_EQ(containers_of(tc, "regress-sb-host"), 0);
}
ATF_TC_CLEANUP(nothing_left_on_host, tc)
{
	sweep(tc, "regress-sb-host");
}

/*
 * From inside the report (issue 7), each attack its own case.  The
 * scripts run sbprobe and print what the kernel said.
 */

ATF_TC_WITH_CLEANUP(inside_input_unmodifiable);
ATF_TC_HEAD(inside_input_unmodifiable, tc)
{
	atf_tc_set_md_var(tc, "descr", "The script cannot modify its input: "
	    "writing its stdin fails with EBADF; /proc/self/fd/0 reopens the "
	    "script's own pipe, never the host's data; the host's input is "
	    "unchanged and a second run reads the same bytes");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(inside_input_unmodifiable, tc)
{
	static struct dkr_sandbox_result res;
	static const char *const inst = "regress-sb-input";
	static char		 in[] = "stock 17\nbinary \0\001\377 end\n";
	static const char	 src[] =
	    "sbprobe stdin_write writefd 0\n"
	    "sbprobe stdin_reopen reopen /proc/self/fd/0\n"
	    "echo ---\n"
	    "cat\n";
	char			 copy[sizeof(in)], *data;
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	memcpy(copy, in, sizeof(in));
	spec(tc, &sp, inst, 5000);
	rv = run(&sp, src, in, sizeof(in) - 1, &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res.status, 0);
	ATF_REQUIRE((data = strstr(res.out, "---\n")) != NULL);
	printf("%.*s", (int)(data - res.out), res.out);
	data += 4;
	/* The script's stdin is the read end of a pipe. */
	CHECK_PROBE(res.out, "stdin_write", "EBADF");
	/*
	 * Reopening the pipe through /proc gives a write end of that same
	 * pipe (the script's uid owns it): what is written there is only
	 * appended to the script's own stream, after the input.
	 */
	CHECK_PROBE(res.out, "stdin_reopen", "open-ok write-ok");
	ATF_CHECK_EQ((size_t)(res.out + res.outlen - data), sizeof(in));
	ATF_CHECK(memcmp(data, in, sizeof(in) - 1) == 0);
	ATF_CHECK_EQ(data[sizeof(in) - 1], 'x');

	/* The host's bytes are untouched, and the next run gets them all. */
	ATF_CHECK(memcmp(in, copy, sizeof(in)) == 0);
	rv = run(&sp, "cat\n", in, sizeof(in) - 1, &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res.outlen, sizeof(in) - 1);
	ATF_CHECK(memcmp(res.out, copy, sizeof(in) - 1) == 0);
}
ATF_TC_CLEANUP(inside_input_unmodifiable, tc)
{
	sweep(tc, "regress-sb-input");
}

/* Every file-system write of the rootfs cases, one sbprobe line each. */
static const char rootfs_src[] =
    "sbprobe rootfs create /sbprobe-file\n"
    "sbprobe bin create /bin/sbprobe-file\n"
    "sbprobe tmp create /tmp/sbprobe-file\n"
    "sbprobe runner create /sandbox-runner\n"
    "sbprobe init create /cmcp-init\n"
    "sbprobe dev create /dev/sbprobe-file\n"
    "sbprobe devshm create /dev/shm/sbprobe-file\n";

ATF_TC_WITH_CLEANUP(inside_rootfs_write_erofs);
ATF_TC_HEAD(inside_rootfs_write_erofs, tc)
{
	atf_tc_set_md_var(tc, "descr", "Writing the root file system fails "
	    "with EROFS, in the world-writable /tmp too, and the bind-mounted "
	    "init; /dev is root's; /dev/shm is the container's own tmpfs");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(inside_rootfs_write_erofs, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-erofs", 5000);
	rv = run(&sp, rootfs_src, "", 0, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-erofs");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	CHECK_PROBE(res.out, "rootfs", "EROFS");
	CHECK_PROBE(res.out, "bin", "EROFS");
	/* Mode 1777 in the image: only the read-only root stops this one. */
	CHECK_PROBE(res.out, "tmp", "EROFS");
	CHECK_PROBE(res.out, "runner", "EROFS");
	CHECK_PROBE(res.out, "init", "EROFS");
	/* Docker's /dev tmpfs, root's 0755. */
	CHECK_PROBE(res.out, "dev", "EACCES");
	/*
	 * Docker's /dev/shm of the private IPC namespace: a tmpfs of the
	 * container, gone with it (nothing_left_on_host).
	 */
	CHECK_PROBE(res.out, "devshm", "ok");
}
ATF_TC_CLEANUP(inside_rootfs_write_erofs, tc)
{
	sweep(tc, "regress-sb-erofs");
}

ATF_TC_WITH_CLEANUP(mutant_rootfs_writable_leaks);
ATF_TC_HEAD(mutant_rootfs_writable_leaks, tc)
{
	atf_tc_set_md_var(tc, "descr", "Mutation: ReadonlyRootfs false is "
	    "refused by the profile check; with the check bypassed (test "
	    "build) the same probe writes /tmp");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(mutant_rootfs_writable_leaks, tc)
{
	static struct dkr_sandbox_result res;
	static const char *const inst = "regress-sb-rwroot";
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, inst, 5000);
	sp.weaken = WEAKEN_ROOTFS;
	rv = run(&sp, rootfs_src, "", 0, &res);
	refused_after_create(tc, rv, &res, inst,
	    "refused: HostConfig.ReadonlyRootfs");

	sp.noadmit = 1;
	rv = run(&sp, rootfs_src, "", 0, &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	CHECK_PROBE(res.out, "tmp", "ok");
	/* The rest is root's: file modes, not the read-only root, say no. */
	CHECK_PROBE(res.out, "rootfs", "EACCES");
	CHECK_PROBE(res.out, "runner", "EACCES");
	CHECK_PROBE(res.out, "init", "EROFS");
}
ATF_TC_CLEANUP(mutant_rootfs_writable_leaks, tc)
{
	sweep(tc, "regress-sb-rwroot");
}

/*
 * Connects to the observer's ports on 127.0.0.1 and ::1, sending the
 * canary when connected; with testnet, to TEST-NET-1 too, and then only
 * when the container's sole interface is lo, so that no packet can leave
 * the host even if the isolation were gone.
 */
static void
net_script(char *buf, size_t size, const struct observer *o,
    const char *canary_str, int testnet)
{
	int	 n;

	n = snprintf(buf, size,
	    "sbprobe lo4 connect 127.0.0.1 %d %s %s\n"
	    "sbprobe lo6 connect ::1 %d %s %s\n"
	    "echo netifs $(ls /sys/class/net)\n%s",
	    o->port4, CONNECT_MS, canary_str, o->port6, CONNECT_MS,
	    canary_str, testnet ?
	    "if [ \"$(ls /sys/class/net)\" = lo ]; then\n"
	    "\tsbprobe testnet connect 192.0.2.1 80 " CONNECT_MS "\n"
	    "else\n\techo testnet not-isolated\nfi\n" : "");
	ATF_REQUIRE(n > 0 && (size_t)n < size);
}

ATF_TC_WITH_CLEANUP(inside_network_unreachable);
ATF_TC_HEAD(inside_network_unreachable, tc)
{
	atf_tc_set_md_var(tc, "descr", "127.0.0.1 is the container's own "
	    "loopback: ECONNREFUSED, ::1 is not even configured there: "
	    "EADDRNOTAVAIL, and the host's observer on the same ports sees "
	    "nothing; TEST-NET-1 is ENETUNREACH at once (a timeout fails)");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(inside_network_unreachable, tc)
{
	static struct dkr_sandbox_result res;
	static char		 buf[OBSERVER_LOG_BYTES];
	struct dkr_sandbox_spec	 sp;
	struct observer		 o;
	char			 src[1024], can[CANARY_BYTES];
	int			 rv;

	spec(tc, &sp, "regress-sb-net2", 5000);
	canary(can, sizeof(can));
	observer_start(tc, &o);
	net_script(src, sizeof(src), &o, can, 1);
	rv = run(&sp, src, "", 0, &res);
	observer_stop(&o);
	ran_and_gone(tc, rv, &res, "regress-sb-net2");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	CHECK_PROBE(res.out, "netifs", "lo");
	CHECK_PROBE(res.out, "lo4", "ECONNREFUSED");
	/* The engine's lo of NetworkMode none has no IPv6 address. */
	CHECK_PROBE(res.out, "lo6", "EADDRNOTAVAIL");
	CHECK_PROBE(res.out, "testnet", "ENETUNREACH");
	/* Refused at once: no connect waited for its timeout. */
	ATF_CHECK_MSG(res.run_ms < 2000, "run_ms %lld",
	    (long long)res.run_ms);
	ATF_CHECK_EQ(observer_log(buf, sizeof(buf)), 0);
	ATF_CHECK(strstr(buf, can) == NULL);
}
ATF_TC_CLEANUP(inside_network_unreachable, tc)
{
	observer_reap();
	sweep(tc, "regress-sb-net2");
}

ATF_TC_WITH_CLEANUP(mutant_host_network_leaks);
ATF_TC_HEAD(mutant_host_network_leaks, tc)
{
	atf_tc_set_md_var(tc, "descr", "Mutation: NetworkMode host is "
	    "refused by the profile check (the observer sees nothing); with "
	    "the check bypassed (test build) the same probe reaches the "
	    "host's observer on 127.0.0.1 and ::1 with the canary");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(mutant_host_network_leaks, tc)
{
	static struct dkr_sandbox_result res;
	static const char *const inst = "regress-sb-hostnet";
	static char		 buf[OBSERVER_LOG_BYTES];
	struct dkr_sandbox_spec	 sp;
	struct observer		 o;
	char			 src[1024], can[CANARY_BYTES];
	int			 rv;

	spec(tc, &sp, inst, 5000);
	sp.weaken = WEAKEN_NETWORK;
	canary(can, sizeof(can));
	observer_start(tc, &o);
	/* Loopback only: the host's network is this run's. */
	net_script(src, sizeof(src), &o, can, 0);

	rv = run(&sp, src, "", 0, &res);
	refused_after_create(tc, rv, &res, inst,
	    "refused: HostConfig.NetworkMode");
	ATF_CHECK_EQ(observer_log(buf, sizeof(buf)), 0);

	sp.noadmit = 1;
	rv = run(&sp, src, "", 0, &res);
	ran_and_gone(tc, rv, &res, inst);
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	CHECK_PROBE(res.out, "lo4", "ok");
	CHECK_PROBE(res.out, "lo6", "ok");
	ATF_CHECK_MSG(observer_saw(can), "the host's observer did not see "
	    "the canary");
	observer_stop(&o);
	ATF_CHECK_EQ(observer_log(buf, sizeof(buf)),
	    (ssize_t)(2 * strlen(can)));
}
ATF_TC_CLEANUP(mutant_host_network_leaks, tc)
{
	observer_reap();
	sweep(tc, "regress-sb-hostnet");
}

ATF_TC_WITH_CLEANUP(inside_pid1_kill_stop_no_effect);
ATF_TC_HEAD(inside_pid1_kill_stop_no_effect, tc)
{
	atf_tc_set_md_var(tc, "descr", "kill -KILL 1 and kill -STOP 1 from "
	    "the script are dropped by the kernel (non-root design): PID 1 "
	    "runs on, the script too, while the same signals stop and kill "
	    "a process of the script");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(inside_pid1_kill_stop_no_effect, tc)
{
	static struct dkr_sandbox_result res;
	static const char	 src[] =
	    "sbprobe kill_kill kill 1 9\n"
	    "sleep 0.2\n"
	    "sbprobe after_kill state 1\n"
	    "sbprobe kill_stop kill 1 19\n"
	    "sleep 0.2\n"
	    "sbprobe after_stop state 1\n"
	    "kill -KILL 1; echo \"sh_kill_kill $?\"\n"
	    "kill -STOP 1; echo \"sh_kill_stop $?\"\n"
	    "sleep 0.2\n"
	    "sbprobe after_sh state 1\n"
	    /* The control: the same probes on a process that is not init. */
	    "sleep 30 & child=$!\n"
	    "sbprobe child_stop kill $child 19\n"
	    "sleep 0.2\n"
	    "sbprobe child_stopped state $child\n"
	    "sbprobe child_kill kill $child 9\n"
	    "wait $child; echo \"child_status $?\"\n"
	    "echo \"end alive\"\n";
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-kill", 10000);
	rv = run(&sp, src, "", 0, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-kill");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res.status, 0);
	printf("%s", res.out);
	/* Permitted (same uid), and dropped: init has no handler. */
	CHECK_PROBE(res.out, "kill_kill", "ok");
	CHECK_PROBE(res.out, "kill_stop", "ok");
	CHECK_PROBE(res.out, "sh_kill_kill", "0");
	CHECK_PROBE(res.out, "sh_kill_stop", "0");
	CHECK_PID1_ALIVE(res.out, "after_kill");
	CHECK_PID1_ALIVE(res.out, "after_stop");
	CHECK_PID1_ALIVE(res.out, "after_sh");
	CHECK_PROBE(res.out, "child_stop", "ok");
	CHECK_PROBE(res.out, "child_stopped", "T");
	CHECK_PROBE(res.out, "child_kill", "ok");
	CHECK_PROBE(res.out, "child_status", "137");
	CHECK_PROBE(res.out, "end", "alive");
}
ATF_TC_CLEANUP(inside_pid1_kill_stop_no_effect, tc)
{
	sweep(tc, "regress-sb-kill");
}

ATF_TC_WITH_CLEANUP(inside_pid1_stop_deadline_holds);
ATF_TC_HEAD(inside_pid1_stop_deadline_holds, tc)
{
	atf_tc_set_md_var(tc, "descr", "After kill -STOP 1 and kill -KILL 1 "
	    "a script looping forever still ends by cmcp-init's deadline: "
	    "TIME_LIMIT with status 250 within the deadline plus 2 s, not by "
	    "the host's backstop");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(inside_pid1_stop_deadline_holds, tc)
{
	static struct dkr_sandbox_result res;
	/* The marker line only when both kills said 0 and PID 1 is alive. */
	static const char	 src[] =
	    "kill -STOP 1 && kill -KILL 1 && sbprobe pid1 state 1 |"
	    " grep -qE '^pid1 [SR]$' && echo stopped-and-looping\n"
	    "while :; do :; done\n";
	struct dkr_sandbox_spec	 sp;
	int64_t			 t0, ms;
	int			 rv;

	spec(tc, &sp, "regress-sb-stop", DEADLINE_MS);
	t0 = now_ms();
	rv = run(&sp, src, "", 0, &res);
	ms = now_ms() - t0;
	printf("measure: stopped_init_deadline_%dms_call_ms %lld\n",
	    DEADLINE_MS, (long long)ms);
	ran_and_gone(tc, rv, &res, "regress-sb-stop");
	ATF_CHECK_EQ(res.outcome, DKR_SB_TIME_LIMIT);
	/* cmcp-init's own deadline, not the host's backstop (137, killed). */
	ATF_CHECK_EQ(res.status, CMCP_INIT_TIME_LIMIT);
	ATF_CHECK_STREQ(res.why, "sandbox: deadline");
	ATF_CHECK(!res.killed);
	/* The attempts were made: the marker went out (not returned). */
	ATF_CHECK_EQ(res.stdout_bytes, strlen("stopped-and-looping\n"));
	ATF_CHECK_MSG(ms >= DEADLINE_MS && ms <= DEADLINE_MS + SLACK_MS,
	    "the call took %lld ms", (long long)ms);
}
ATF_TC_CLEANUP(inside_pid1_stop_deadline_holds, tc)
{
	sweep(tc, "regress-sb-stop");
}

/* ptrace of PID 1, and the control: of a process of the script. */
static const char ptrace_src[] =
    "sbprobe attach ptrace-attach 1\n"
    "sbprobe seize ptrace-seize 1\n"
    "sbprobe pid1 state 1\n"
    "sleep 30 & child=$!\n"
    "sbprobe child_attach ptrace-attach $child\n"
    "kill -KILL $child\n"
    "echo end\n";

ATF_TC_WITH_CLEANUP(inside_pid1_ptrace_eperm);
ATF_TC_HEAD(inside_pid1_ptrace_eperm, tc)
{
	atf_tc_set_md_var(tc, "descr", "PTRACE_ATTACH and PTRACE_SEIZE of "
	    "PID 1 fail with EPERM (cmcp-init is non-dumpable) and PID 1 runs "
	    "on, while the same probe attaches to a process of the script");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(inside_pid1_ptrace_eperm, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-ptrace", 5000);
	rv = run(&sp, ptrace_src, "", 0, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-ptrace");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res.status, 0);
	printf("%s", res.out);
	CHECK_PROBE(res.out, "attach", "EPERM");
	CHECK_PROBE(res.out, "seize", "EPERM");
	CHECK_PID1_ALIVE(res.out, "pid1");
	CHECK_PROBE(res.out, "child_attach", "ok");
	ATF_CHECK(strstr(res.out, "\nend\n") != NULL);
}
ATF_TC_CLEANUP(inside_pid1_ptrace_eperm, tc)
{
	sweep(tc, "regress-sb-ptrace");
}

ATF_TC_WITH_CLEANUP(mutant_dumpable_init_ptrace);
ATF_TC_HEAD(mutant_dumpable_init_ptrace, tc)
{
	atf_tc_set_md_var(tc, "descr", "Mutation: under the dumpable "
	    "cmcp-init (test-only binary) the same probe attaches to and "
	    "seizes PID 1");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(mutant_dumpable_init_ptrace, tc)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-dumpable", 5000);
	images_env(tc, "CMCP_INIT_DUMPABLE", sp.init_path,
	    sizeof(sp.init_path));
	ATF_REQUIRE_MSG(access(sp.init_path, X_OK) == 0, "%s", sp.init_path);
	rv = run(&sp, ptrace_src, "", 0, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-dumpable");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	/* The probe detaches again, so the run still ends by itself. */
	CHECK_PROBE(res.out, "attach", "ok");
	CHECK_PROBE(res.out, "seize", "ok");
}
ATF_TC_CLEANUP(mutant_dumpable_init_ptrace, tc)
{
	sweep(tc, "regress-sb-dumpable");
}

ATF_TC_WITH_CLEANUP(inside_setuid_root_eperm);
ATF_TC_HEAD(inside_setuid_root_eperm, tc)
{
	atf_tc_set_md_var(tc, "descr", "The script runs as uid 65534; "
	    "setuid(0) and setgid(0) fail with EPERM, while setuid to its own "
	    "uid works");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(inside_setuid_root_eperm, tc)
{
	static struct dkr_sandbox_result res;
	static const char	 src[] =
	    "echo \"id_u $(id -u)\"\n"
	    "echo \"id_g $(id -g)\"\n"
	    "sbprobe setuid0 setuid 0\n"
	    "sbprobe setgid0 setgid 0\n"
	    "sbprobe setuid_own setuid 65534\n"
	    "echo \"after $(id -u)\"\n";
	struct dkr_sandbox_spec	 sp;
	int			 rv;

	spec(tc, &sp, "regress-sb-setuid", 5000);
	rv = run(&sp, src, "", 0, &res);
	ran_and_gone(tc, rv, &res, "regress-sb-setuid");
	ATF_CHECK_EQ(res.outcome, DKR_SB_COMPLETED);
	printf("%s", res.out);
	CHECK_PROBE(res.out, "id_u", "65534");
	CHECK_PROBE(res.out, "id_g", "65534");
	CHECK_PROBE(res.out, "setuid0", "EPERM");
	CHECK_PROBE(res.out, "setgid0", "EPERM");
	CHECK_PROBE(res.out, "setuid_own", "ok");
	CHECK_PROBE(res.out, "after", "65534");
}
ATF_TC_CLEANUP(inside_setuid_root_eperm, tc)
{
	sweep(tc, "regress-sb-setuid");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, report_completed);
	ATF_TP_ADD_TC(tp, infinite_loop_time_limit);
	ATF_TP_ADD_TC(tp, frozen_init_host_backstop);
	ATF_TP_ADD_TC(tp, output_flood_output_limit);
	ATF_TP_ADD_TC(tp, reserved_status_tool_failed);
	ATF_TP_ADD_TC(tp, init_failure_tool_failed);
	ATF_TP_ADD_TC(tp, oversize_refused_before_container);
	ATF_TP_ADD_TC(tp, unavailable_refused);
	ATF_TP_ADD_TC(tp, network_only_lo);
	ATF_TP_ADD_TC(tp, rootfs_write_fails);
	ATF_TP_ADD_TC(tp, nothing_left_on_host);
	ATF_TP_ADD_TC(tp, inside_input_unmodifiable);
	ATF_TP_ADD_TC(tp, inside_rootfs_write_erofs);
	ATF_TP_ADD_TC(tp, mutant_rootfs_writable_leaks);
	ATF_TP_ADD_TC(tp, inside_network_unreachable);
	ATF_TP_ADD_TC(tp, mutant_host_network_leaks);
	ATF_TP_ADD_TC(tp, inside_pid1_kill_stop_no_effect);
	ATF_TP_ADD_TC(tp, inside_pid1_stop_deadline_holds);
	ATF_TP_ADD_TC(tp, inside_pid1_ptrace_eperm);
	ATF_TP_ADD_TC(tp, mutant_dumpable_init_ptrace);
	ATF_TP_ADD_TC(tp, inside_setuid_root_eperm);
	return atf_no_error();
}
