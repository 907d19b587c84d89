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
 */

#include <sys/types.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <sched.h>
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

/* VOLUME_IMAGE of build-images (make docker-images). */
static void
volume_image(const atf_tc_t *tc, char *image, size_t size)
{
	char	 path[1024], line[512];
	FILE	*f;

	image[0] = '\0';
	snprintf(path, sizeof(path), "%s/images.env",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG((f = fopen(path, "r")) != NULL,
	    "%s missing: run make docker-images", path);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VOLUME_IMAGE=", 13) == 0) {
			line[strcspn(line, "\n")] = '\0';
			strlcpy(image, line + 13, size);
		}
	fclose(f);
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
	return atf_no_error();
}
