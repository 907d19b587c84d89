/*
 * The sandbox tool's one-shot container (dockerd-client/dkr_sandbox.c)
 * against the private engine (regress/docker/dockerd-env) and the sandbox
 * image (make sandbox-image, which writes sandbox-image.env): busybox and
 * examples/store/sandbox-runner, with cmcp-init bind-mounted as PID 1.
 *
 * Skipped, with the reason, when no engine listens on the test socket:
 * $CMCP_TEST_DOCKER_SOCK, the docker_sock configuration variable, or
 * /run/cmcp-test/docker.sock.  Every test labels its containers with its
 * own instance, regress-sb-<case>, and sweeps that label in its cleanup.
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
#define OBSERVER_LOG	"tcp.log"
#define OBSERVER_PORTS	"tcp.ports"
#define OBSERVER_PID	"tcp-observer.pid"
#define OBSERVER_WAIT_MS 5000
#define OBSERVER_LOG_BYTES (64 * 1024)
#define CANARY_BYTES	32
#define SCRIPT_BYTES	1024
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

/*
 * A network case: the observer, a fresh canary, the script that tries to
 * deliver the canary to it (net_script), and the observer's log.
 */
struct netprobe {
	struct observer	 o;
	char		 canary[CANARY_BYTES];
	char		 src[SCRIPT_BYTES];
	char		 log[OBSERVER_LOG_BYTES];
};

/*
 * A case on the engine, run as root, whose containers carry its own
 * instance label; the cleanup ends an observer the body left and removes
 * whatever carries the label.  The body follows.
 */
#define SB_TC(name, secs, descr)					\
ATF_TC_WITH_CLEANUP(name);						\
ATF_TC_HEAD(name, tc)							\
{									\
	atf_tc_set_md_var(tc, "descr", descr);				\
	atf_tc_set_md_var(tc, "require.user", "root");			\
	atf_tc_set_md_var(tc, "timeout", secs);				\
	atf_tc_set_md_var(tc, "X-instance", "regress-sb-" #name);	\
}									\
ATF_TC_CLEANUP(name, tc)						\
{									\
	observer_reap();						\
	sweep(tc);							\
}									\
ATF_TC_BODY(name, tc)

static const char *
instance(const atf_tc_t *tc)
{
	return atf_tc_get_md_var(tc, "X-instance");
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
 * /sandbox-runner), on the test engine and image, labelled with the
 * case's instance.
 */
static void
spec(const atf_tc_t *tc, struct dkr_sandbox_spec *sp, int64_t deadline_ms)
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
	strlcpy(sp->instance, instance(tc), sizeof(sp->instance));
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

/* How many containers carry the case's instance label. */
static size_t
containers_of(const atf_tc_t *tc)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	struct dkr_client	 c;
	size_t			 n;

	ATF_REQUIRE_MSG(dkr_client_init(&c, sock_path(tc)) == 0, "%s", c.err);
	ATF_REQUIRE_MSG(dkr_list(&c, instance(tc), NULL, ids, DKR_LIST_MAX,
	    &n) == 0, "%s", c.err);
	dkr_client_free(&c);
	return n;
}

/* Cleanup: remove whatever a failed run left under the instance label. */
static void
sweep(const atf_tc_t *tc)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	struct dkr_client	 c;
	size_t			 n, i;

	if (dkr_client_init(&c, sock_path(tc)) == -1)
		return;
	if (dkr_list(&c, instance(tc), NULL, ids, DKR_LIST_MAX, &n) == 0)
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
ran_and_gone(const atf_tc_t *tc, int rv, const struct dkr_sandbox_result *res)
{
	ATF_CHECK_EQ(rv, 0);
	ATF_CHECK(res->created);
	ATF_CHECK(res->gone);
	ATF_CHECK(dkr_container_id_valid(res->id));
	ATF_CHECK_EQ(containers_of(tc), 0);
}

/*
 * Run src over in: it ran, ended with want, and its container is
 * confirmed gone.  The result stays valid until the next call.
 */
static const struct dkr_sandbox_result *
ran(const atf_tc_t *tc, const struct dkr_sandbox_spec *sp, const char *src,
    const char *in, size_t inlen, enum dkr_sandbox_outcome want)
{
	static struct dkr_sandbox_result res;

	ran_and_gone(tc, run(sp, src, in, inlen, &res), &res);
	ATF_CHECK_EQ_MSG(res.outcome, want, "%s",
	    dkr_sandbox_outcome_str(res.outcome));
	return &res;
}

/*
 * A script of probes, no input: it completes, and its output, "key
 * value" lines, is printed for the record.
 */
static const struct dkr_sandbox_result *
probe(const atf_tc_t *tc, const struct dkr_sandbox_spec *sp, const char *src)
{
	const struct dkr_sandbox_result	*res;

	res = ran(tc, sp, src, "", 0, DKR_SB_COMPLETED);
	printf("%s", res->out);
	return res;
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

/* 1 when v is one of the "|"-separated alternatives. */
static int
one_of(const char *v, const char *alts)
{
	size_t	 n;

	for (;; alts += n + 1) {
		n = strcspn(alts, "|");
		if (strlen(v) == n && strncmp(v, alts, n) == 0)
			return 1;
		if (alts[n] == '\0')
			return 0;
	}
}

/*
 * Each line of want, "key value", is what the output's first line of
 * that key says; value may list alternatives, "S|R".
 */
static void
expect(const struct dkr_sandbox_result *res, const char *want)
{
	char		 line[128], *value;
	const char	*w, *e, *got;

	for (w = want; *w != '\0'; w = e + 1) {
		ATF_REQUIRE((e = strchr(w, '\n')) != NULL);
		ATF_REQUIRE((size_t)(e - w) < sizeof(line));
		snprintf(line, sizeof(line), "%.*s", (int)(e - w), w);
		ATF_REQUIRE((value = strchr(line, ' ')) != NULL);
		*value++ = '\0';
		got = probe_value(res->out, line);
		ATF_CHECK_MSG(one_of(got, value), "%s: %s, want %s", line, got,
		    value);
	}
}

/*
 * Source (srclen bytes of src) over inlen bytes of input, refused before
 * any container: nothing created, nothing listed, why the reason.
 */
static void
refused_before(const atf_tc_t *tc, const struct dkr_sandbox_spec *sp,
    const char *src, size_t srclen, size_t inlen, const char *why)
{
	static struct dkr_sandbox_result res;
	static char	 in[SANDBOX_INPUT_BYTES + 1];

	ATF_REQUIRE(inlen <= sizeof(in));
	memset(in, ':', inlen);
	ATF_CHECK_EQ(dkr_sandbox_run(sp, src, srclen, in, inlen, &res), -1);
	ATF_CHECK_EQ(res.outcome, DKR_SB_REFUSED);
	ATF_CHECK_STREQ(res.why, why);
	ATF_CHECK(!res.created);
	ATF_CHECK_STREQ(res.id, "");
	ATF_CHECK_EQ(res.outlen, 0);
	ATF_CHECK_EQ(containers_of(tc), 0);
}

/*
 * A mutation's first run: the profile without one protection (weaken) is
 * refused by the profile check after create, why naming the field.  The
 * container existed, no byte went in or came out, and it is confirmed
 * gone.
 */
static void
weakened(const atf_tc_t *tc, struct dkr_sandbox_spec *sp, int weaken,
    const char *src, const char *why)
{
	static struct dkr_sandbox_result res;

	sp->weaken = weaken;
	ATF_CHECK_EQ(run(sp, src, "", 0, &res), -1);
	ATF_CHECK_EQ(res.outcome, DKR_SB_REFUSED);
	ATF_CHECK_STREQ(res.why, why);
	ATF_CHECK(res.created);
	ATF_CHECK(res.gone);
	ATF_CHECK_EQ(res.outlen, 0);
	ATF_CHECK_EQ(res.stdout_bytes, 0);
	ATF_CHECK_EQ(containers_of(tc), 0);
}

/* Its second: the same profile, the check bypassed (test build only). */
static const struct dkr_sandbox_result *
bypassed(const atf_tc_t *tc, struct dkr_sandbox_spec *sp, const char *src)
{
	sp->noadmit = 1;
	return probe(tc, sp, src);
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	ATF_REQUIRE(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * src runs past DEADLINE_MS and cmcp-init's own deadline ends it: status
 * 250, not the host's backstop (137, killed), and not before the
 * deadline.  The call's time is printed as the measure name.
 */
static const struct dkr_sandbox_result *
past_deadline(const atf_tc_t *tc, const char *src, const char *name)
{
	static struct dkr_sandbox_result res;
	struct dkr_sandbox_spec	 sp;
	int64_t			 t0, ms;
	int			 rv;

	spec(tc, &sp, DEADLINE_MS);
	t0 = now_ms();
	rv = run(&sp, src, "", 0, &res);
	ms = now_ms() - t0;
	printf("measure: %s_%dms_call_ms %lld\n", name, DEADLINE_MS,
	    (long long)ms);
	ran_and_gone(tc, rv, &res);
	ATF_CHECK_EQ(res.outcome, DKR_SB_TIME_LIMIT);
	ATF_CHECK_EQ(res.status, CMCP_INIT_TIME_LIMIT);
	/*
	 * 250 is cmcp-init's alone: its deadline ended the run.  A host too
	 * loaded to see that exit within the margin also fires its backstop
	 * on the container already ended; which reason it then records does
	 * not change who ended it.
	 */
	if (strcmp(res.why, "sandbox: deadline") != 0)
		printf("note: the host recorded \"%s\" after the exit\n",
		    res.why);
	/* no upper bound: on a loaded host the status says who ended it */
	ATF_CHECK_MSG(ms >= DEADLINE_MS, "the call took %lld ms",
	    (long long)ms);
	return &res;
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

/*
 * Connects to the observer's ports on 127.0.0.1 and ::1, sending the
 * canary when connected; with testnet, to TEST-NET-1 too, and then only
 * when the container's sole interface is lo, so that no packet can leave
 * the host even if the isolation were gone.
 */
static void
net_script(struct netprobe *np, int testnet)
{
	int	 n;

	n = snprintf(np->src, sizeof(np->src),
	    "sbprobe lo4 connect 127.0.0.1 %d %s %s\n"
	    "sbprobe lo6 connect ::1 %d %s %s\n"
	    "echo netifs $(ls /sys/class/net)\n%s",
	    np->o.port4, CONNECT_MS, np->canary, np->o.port6, CONNECT_MS,
	    np->canary, testnet ?
	    "if [ \"$(ls /sys/class/net)\" = lo ]; then\n"
	    "\tsbprobe testnet connect 192.0.2.1 80 " CONNECT_MS "\n"
	    "else\n\techo testnet not-isolated\nfi\n" : "");
	ATF_REQUIRE(n > 0 && (size_t)n < sizeof(np->src));
}

/* A fresh canary, "CANARY-sb-" and hex, the observer, the script. */
static void
net_start(const atf_tc_t *tc, struct netprobe *np, int testnet)
{
	unsigned char	 r[8];
	size_t		 i;

	arc4random_buf(r, sizeof(r));
	strlcpy(np->canary, "CANARY-sb-", sizeof(np->canary));
	for (i = 0; i < sizeof(r); i++)
		snprintf(np->canary + strlen(np->canary), sizeof(np->canary) -
		    strlen(np->canary), "%02x", r[i]);
	observer_start(tc, &np->o);
	net_script(np, testnet);
}

/* Bytes of the observer's log, read into np->log; -1 with no log. */
static ssize_t
net_log(struct netprobe *np)
{
	ssize_t	 n;
	int	 fd;

	np->log[0] = '\0';
	if ((fd = open(OBSERVER_LOG, O_RDONLY)) == -1)
		return -1;
	n = read(fd, np->log, sizeof(np->log) - 1);
	close(fd);
	if (n >= 0)
		np->log[n] = '\0';
	return n;
}

/* Wait up to OBSERVER_WAIT_MS for the canary in the log: 1 seen. */
static int
net_saw_canary(struct netprobe *np)
{
	int64_t	 until = now_ms() + OBSERVER_WAIT_MS;
	ssize_t	 n;

	do {
		if ((n = net_log(np)) > 0 && memmem(np->log, n, np->canary,
		    strlen(np->canary)) != NULL)
			return 1;
		usleep(50 * 1000);
	} while (now_ms() < until);
	return 0;
}

/*
 * End the observer and check its whole log: empty, or when the run
 * leaked, the canary from each of the two loopback connections and
 * nothing else.
 */
static void
net_stop(struct netprobe *np, int leaked)
{
	if (leaked)
		ATF_CHECK_MSG(net_saw_canary(np), "the host's observer did "
		    "not see the canary");
	observer_stop(&np->o);
	ATF_CHECK_EQ(net_log(np), leaked ? (ssize_t)(2 *
	    strlen(np->canary)) : 0);
	ATF_CHECK(leaked == (strstr(np->log, np->canary) != NULL));
}

SB_TC(report_completed, "60", "A script reads the input from its stdin "
    "and prints it and its uid: COMPLETED, output exact, uid 65534, "
    "stderr counted and not returned")
{
	static const char	 in[] = "stock 17\nbinary \0\001\377 end\n";
	static const char	 src[] = "cat\nid -u\nid -g\n"
	    "echo not-returned >&2\n";
	static const char	 ids[] = "65534\n65534\n";
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	res = ran(tc, &sp, src, in, sizeof(in) - 1, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res->status, 0);
	ATF_CHECK_STREQ(res->why, "");
	ATF_CHECK(!res->killed);
	ATF_REQUIRE_EQ(res->outlen, sizeof(in) - 1 + sizeof(ids) - 1);
	ATF_CHECK(memcmp(res->out, in, sizeof(in) - 1) == 0);
	ATF_CHECK(memcmp(res->out + sizeof(in) - 1, ids,
	    sizeof(ids) - 1) == 0);
	ATF_CHECK_EQ(res->stdout_bytes, res->outlen);
	ATF_CHECK_EQ(res->stderr_bytes, strlen("not-returned\n"));
	ATF_CHECK(memmem(res->out, res->outlen, "not-returned", 12) == NULL);
}

SB_TC(infinite_loop_time_limit, "60", "An infinite loop ends with "
    "TIME_LIMIT within the deadline plus 2 s, its container confirmed "
    "gone and its partial output not returned")
{
	const struct dkr_sandbox_result	*res;

	res = past_deadline(tc, "echo started\nwhile :; do :; done\n",
	    "time_limit");
	ATF_CHECK_EQ(res->stdout_bytes, strlen("started\n"));
	ATF_CHECK_EQ(res->outlen, 0);
}

/*
 * Test helper, in a child: freeze the container labelled instance (POST
 * /pause, the cgroup freezer) 400 ms after it runs, well before its 1 s
 * deadline, so that cmcp-init cannot end it.  A container frozen before
 * the second admission is refused there ("State").
 */
static void
freeze_when_seen(const char *sock, const char *label)
{
	static char		 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	struct dkr_client	 c;
	char			 path[128];
	size_t			 n;
	int			 i;

	if (dkr_client_init(&c, sock) == -1)
		_exit(1);
	for (i = 0; i < 500; i++) {
		if (dkr_list(&c, label, NULL, ids, DKR_LIST_MAX, &n) == 0 &&
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

SB_TC(frozen_init_host_backstop, "60", "When cmcp-init cannot end the "
    "container (frozen), the host's backstop does: TIME_LIMIT not before "
    "the deadline and its margin, killed (137) and gone")
{
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;
	pid_t			 pid;
	int			 status;

	spec(tc, &sp, DEADLINE_MS);
	ATF_REQUIRE(fflush(stdout) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0)
		freeze_when_seen(sp.sock, sp.instance);
	res = ran(tc, &sp, "while :; do :; done\n", "", 0, DKR_SB_TIME_LIMIT);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the container was not frozen (%d)", status);
	printf("measure: backstop_%dms_total_ms %lld\n", DEADLINE_MS,
	    (long long)res->total_ms);
	ATF_CHECK_STREQ(res->why, "sandbox: host backstop");
	ATF_CHECK(res->killed);
	ATF_CHECK_EQ(res->status, 137);
	/* not before it; how late a loaded host is, the figure says */
	ATF_CHECK_MSG(res->total_ms >= DEADLINE_MS + DKR_SANDBOX_MARGIN_MS,
	    "%lld ms", (long long)res->total_ms);
}

SB_TC(output_flood_output_limit, "90", "Output up to the bound completes; "
    "one byte more, or an endless flood on stdout or stderr, ends with "
    "OUTPUT_LIMIT, killed and gone")
{
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 10000);
	sp.output_bytes = 4096;

	/* Exactly the bound: all of it comes back. */
	res = ran(tc, &sp, "head -c 4096 /dev/zero | tr '\\0' a\n", "", 0,
	    DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res->outlen, 4096);
	ATF_CHECK(res->out[0] == 'a' && res->out[4095] == 'a');

	/* One byte over, and the program then waits: the host kills it. */
	res = ran(tc, &sp, "head -c 4097 /dev/zero | tr '\\0' a\nsleep 100\n",
	    "", 0, DKR_SB_OUTPUT_LIMIT);
	ATF_CHECK_EQ(res->stdout_bytes, 4097);
	ATF_CHECK_EQ(res->outlen, 0);
	ATF_CHECK(res->killed);
	ATF_CHECK_MSG(res->total_ms < 5000, "%lld ms",
	    (long long)res->total_ms);

	/* An endless flood is cut at the bound, long before the deadline. */
	res = ran(tc, &sp, "while :; do echo flood-flood-flood; done\n", "", 0,
	    DKR_SB_OUTPUT_LIMIT);
	ATF_CHECK_EQ(res->stdout_bytes, 4097);
	ATF_CHECK(res->killed);
	ATF_CHECK_MSG(res->total_ms < 5000, "%lld ms",
	    (long long)res->total_ms);

	/* stderr is not stored, but it is bounded too. */
	res = ran(tc, &sp, "while :; do echo flood-flood-flood; done >&2\n",
	    "", 0, DKR_SB_OUTPUT_LIMIT);
	ATF_CHECK_EQ(res->stderr_bytes, DKR_SANDBOX_STDERR_BYTES + 1);
	ATF_CHECK_EQ(res->stdout_bytes, 0);
	ATF_CHECK(res->killed);
}

SB_TC(reserved_status_tool_failed, "120", "A program exiting with the "
    "deadline's status (or cmcp-init's, or the runner's) is TOOL_FAILED, "
    "never TIME_LIMIT; other statuses are its own")
{
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
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;
	size_t			 i;

	spec(tc, &sp, 10000);
	for (i = 0; i < nitems(cases); i++) {
		res = ran(tc, &sp, cases[i].src, "", 0, cases[i].outcome);
		ATF_CHECK_EQ_MSG(res->status, cases[i].status, "%s: %lld",
		    cases[i].src, (long long)res->status);
		ATF_CHECK(!res->killed);
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

SB_TC(init_failure_tool_failed, "60", "A runner that does not exist in "
    "the image makes cmcp-init exit 251: TOOL_FAILED")
{
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	strlcpy(sp.argv[0], "/no-such-runner", sizeof(sp.argv[0]));
	res = ran(tc, &sp, "echo never", "", 0, DKR_SB_TOOL_FAILED);
	ATF_CHECK_EQ(res->status, CMCP_INIT_FAILED);
	ATF_CHECK_EQ(res->outlen, 0);
}

SB_TC(oversize_refused_before_container, "60", "Source over 16 KiB (or "
    "the tool's bound), input over 64 KiB, an empty source or one with a "
    "NUL, and weak tool parameters are refused before the engine is asked "
    "anything")
{
	static const char	 sizes[] = "sandbox: source size out of bounds";
	static const char	 input[] = "sandbox: input too large";
	static char		 big[SANDBOX_INPUT_BYTES];
	static char		 src[SANDBOX_SOURCE_BYTES + 1];
	static struct dkr_sandbox_spec sp, weak[5];
	const struct dkr_sandbox_result	*res;
	size_t			 i;

	spec(tc, &sp, 5000);
	memset(big, ':', sizeof(big));

	refused_before(tc, &sp, big, SANDBOX_SOURCE_BYTES + 1, 0, sizes);
	refused_before(tc, &sp, "cat", 3, SANDBOX_INPUT_BYTES + 1, input);
	refused_before(tc, &sp, "", 0, 0, sizes);
	refused_before(tc, &sp, "echo a\0b", 8, 0,
	    "sandbox: NUL byte in the source");

	/* A tool's own, smaller bounds hold too. */
	weak[0] = sp;
	weak[0].source_bytes = 1024;
	weak[0].input_bytes = 10;
	refused_before(tc, &weak[0], big, 1025, 0, sizes);
	refused_before(tc, &weak[0], "cat", 3, 11, input);

	/* Checked before the engine: an unreachable one is not the reason. */
	weak[0] = sp;
	strlcpy(weak[0].sock, "/nonexistent/docker.sock",
	    sizeof(weak[0].sock));
	refused_before(tc, &weak[0], big, SANDBOX_SOURCE_BYTES + 1, 0, sizes);

	/* Weak parameters: root, a tag, bounds over the maxima. */
	for (i = 0; i < nitems(weak); i++)
		weak[i] = sp;
	weak[0].uid = 0;
	strlcpy(weak[1].image, "cmcp-test/sandbox:1", sizeof(weak[1].image));
	weak[2].output_bytes = SANDBOX_OUTPUT_BYTES + 1;
	weak[3].source_bytes = SANDBOX_SOURCE_BYTES + 1;
	weak[4].deadline_ms = 0;
	for (i = 0; i < nitems(weak); i++)
		refused_before(tc, &weak[i], "id", 2, 0,
		    "sandbox: bad tool parameters");

	/* At the bounds exactly, it runs. */
	memset(src, '#', SANDBOX_SOURCE_BYTES);
	memcpy(src, "wc -c\n", 6);
	src[SANDBOX_SOURCE_BYTES - 1] = '\n';
	res = ran(tc, &sp, src, big, SANDBOX_INPUT_BYTES, DKR_SB_COMPLETED);
	ATF_CHECK_STREQ(res->out, "65536\n");
}

SB_TC(unavailable_refused, "60", "An unknown image, an unreachable "
    "engine, an image with a volume or a missing init binary refuse the "
    "run: nothing is created, nothing runs")
{
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	strlcpy(sp.image, UNKNOWN_IMAGE, sizeof(sp.image));
	refused_before(tc, &sp, "id -u", 5, 0, "sandbox: image not found");

	spec(tc, &sp, 5000);
	strlcpy(sp.sock, "/nonexistent/docker.sock", sizeof(sp.sock));
	refused_before(tc, &sp, "id -u", 5, 0, "sandbox: engine unavailable");

	/* Image admission: an image that declares a volume. */
	spec(tc, &sp, 5000);
	images_env(tc, "VOLUME_IMAGE", sp.image, sizeof(sp.image));
	ATF_REQUIRE(dkr_image_id_valid(sp.image));
	refused_before(tc, &sp, "id -u", 5, 0,
	    "refused: image Config.Volumes");

	/* The engine refuses to bind a missing init: nothing is created. */
	spec(tc, &sp, 5000);
	strlcpy(sp.init_path, "/nonexistent/cmcp-init", sizeof(sp.init_path));
	refused_before(tc, &sp, "id -u", 5, 0, "docker create: HTTP 400");
}

SB_TC(network_only_lo, "60", "Inside, the only interface is lo and an "
    "outside address is out of reach at once: nc's socket refused by the "
    "seccomp profile, and with the engine's default profile (test build, "
    "admission bypassed) the network unreachable")
{
	static const char	 src[] = "ls /sys/class/net\n"
	    "nc 192.0.2.1 80 </dev/null 2>&1\necho nc=$?\n";
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	res = probe(tc, &sp, src);
	ATF_CHECK(strncmp(res->out, "lo\n", 3) == 0);
	ATF_CHECK(strstr(res->out, "Operation not permitted") != NULL);
	ATF_CHECK(strstr(res->out, "\nnc=1\n") != NULL);
	spec(tc, &sp, 5000);
	sp.weaken = WEAKEN_SECCOMP_DEFAULT;
	res = bypassed(tc, &sp, src);
	ATF_CHECK(strncmp(res->out, "lo\n", 3) == 0);
	ATF_CHECK(strstr(res->out, "Network is unreachable") != NULL);
	ATF_CHECK(strstr(res->out, "\nnc=1\n") != NULL);
}

SB_TC(rootfs_write_fails, "60", "Writing the root file system or the init "
    "binary fails with EROFS, the runner's with EACCES, and the input "
    "cannot be written back")
{
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	res = ran(tc, &sp, "{ echo x >/probe; } 2>&1; echo rc=$?\n"
	    "{ echo x >>/sandbox-runner; } 2>&1; echo rc=$?\n"
	    "{ echo x >/cmcp-init; } 2>&1; echo rc=$?\n"
	    "{ echo x >&0; } 2>&1; echo rc=$?\n", "in", 2, DKR_SB_COMPLETED);
	printf("%s", res->out);
	ATF_CHECK(strstr(res->out, "/probe: Read-only file system\nrc=1\n") !=
	    NULL);
	ATF_CHECK(strstr(res->out, "rc=0") == NULL);
	ATF_CHECK(strstr(res->out, "/cmcp-init: Read-only file system") !=
	    NULL);
	/* The input is a pipe's read end: there is no file to change. */
	ATF_CHECK(strstr(res->out, "Bad file descriptor\nrc=1\n") != NULL);
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

SB_TC(nothing_left_on_host, "60", "A run writes no file on the host: "
    "private empty /tmp, /var/tmp, /dev/shm and working directory stay "
    "empty, no descriptor leaks, and the engine keeps no state of the "
    "container")
{
	static struct dkr_sandbox_result res;
	static const char *const tmps[] = { "/tmp", "/var/tmp", "/dev/shm" };
	struct dkr_sandbox_spec	 sp;
	const char		*rundir, *datadir;
	pid_t			 pid;
	size_t			 i;
	int			 status, fds, rv, bad;

	spec(tc, &sp, 5000);
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
		for (i = 0; i < nitems(tmps); i++)
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
		for (i = 0; i < nitems(tmps); i++)
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
	ATF_CHECK_EQ(containers_of(tc), 0);
}

/*
 * From inside the report (issue 7), each attack its own case.  The
 * scripts run sbprobe and print what the kernel said.
 */

SB_TC(inside_input_unmodifiable, "60", "The script cannot modify its "
    "input: writing its stdin fails with EBADF; /proc/self/fd/0 reopens "
    "the script's own pipe, never the host's data; the host's input is "
    "unchanged and a second run reads the same bytes")
{
	static char		 in[] = "stock 17\nbinary \0\001\377 end\n";
	static const char	 src[] =
	    "sbprobe stdin_write writefd 0\n"
	    "sbprobe stdin_reopen reopen /proc/self/fd/0\n"
	    "echo ---\n"
	    "cat\n";
	const struct dkr_sandbox_result	*res;
	char			 copy[sizeof(in)];
	const char		*data;
	struct dkr_sandbox_spec	 sp;

	memcpy(copy, in, sizeof(in));
	spec(tc, &sp, 5000);
	res = ran(tc, &sp, src, in, sizeof(in) - 1, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res->status, 0);
	ATF_REQUIRE((data = strstr(res->out, "---\n")) != NULL);
	printf("%.*s", (int)(data - res->out), res->out);
	data += 4;
	expect(res,
	    /* The script's stdin is the read end of a pipe. */
	    "stdin_write EBADF\n"
	    /*
	     * Reopening the pipe through /proc gives a write end of that
	     * same pipe (the script's uid owns it): what is written there is
	     * only appended to the script's own stream, after the input.
	     */
	    "stdin_reopen open-ok write-ok\n");
	ATF_CHECK_EQ((size_t)(res->out + res->outlen - data), sizeof(in));
	ATF_CHECK(memcmp(data, in, sizeof(in) - 1) == 0);
	ATF_CHECK_EQ(data[sizeof(in) - 1], 'x');

	/* The host's bytes are untouched, and the next run gets them all. */
	ATF_CHECK(memcmp(in, copy, sizeof(in)) == 0);
	res = ran(tc, &sp, "cat\n", in, sizeof(in) - 1, DKR_SB_COMPLETED);
	ATF_CHECK_EQ(res->outlen, sizeof(in) - 1);
	ATF_CHECK(memcmp(res->out, copy, sizeof(in) - 1) == 0);
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

SB_TC(inside_rootfs_write_erofs, "60", "Writing the root file system "
    "fails with EROFS, in the world-writable /tmp too, and the "
    "bind-mounted init; /dev is root's; there is no /dev/shm")
{
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	expect(probe(tc, &sp, rootfs_src),
	    "rootfs EROFS\n"
	    "bin EROFS\n"
	    /* Mode 1777 in the image: only the read-only root stops this. */
	    "tmp EROFS\n"
	    "runner EROFS\n"
	    "init EROFS\n"
	    /* Docker's /dev tmpfs, root's 0755. */
	    "dev EACCES\n"
	    /* IpcMode none: no IPC tmpfs is mounted there. */
	    "devshm ENOENT\n");
}

SB_TC(mutant_rootfs_writable_leaks, "60", "Mutation: ReadonlyRootfs false "
    "is refused by the profile check; with the check bypassed (test build) "
    "the same probe writes /tmp")
{
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	weakened(tc, &sp, WEAKEN_ROOTFS, rootfs_src,
	    "refused: HostConfig.ReadonlyRootfs");
	expect(bypassed(tc, &sp, rootfs_src),
	    "tmp ok\n"
	    /* The rest is root's: file modes, not a read-only root, say no. */
	    "rootfs EACCES\n"
	    "runner EACCES\n"
	    "init EROFS\n");
}

SB_TC(seccomp_profile_refused_each, "90", "A run's container created "
    "with the engine's default seccomp profile, unconfined, or ours with "
    "io_uring_setup allowed (each alone) is refused before it starts, "
    "removed, nothing read")
{
	static const int	 w[] = { WEAKEN_SECCOMP_DEFAULT,
	    WEAKEN_SECCOMP_UNCONFINED, WEAKEN_SECCOMP_PLUS };
	struct dkr_sandbox_spec	 sp;
	size_t			 i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		spec(tc, &sp, 5000);
		weakened(tc, &sp, w[i], "echo ran",
		    "refused: HostConfig.SecurityOpt seccomp");
	}
}

SB_TC(inside_network_unreachable, "60", "Two protections, each alone: "
    "the seccomp profile refuses an IPv4 or IPv6 socket (EPERM); with the "
    "engine's default profile instead (test build, admission bypassed) "
    "NetworkMode none still holds: 127.0.0.1 is the container's own "
    "loopback, ECONNREFUSED, ::1 is not even configured there, "
    "EADDRNOTAVAIL, TEST-NET-1 is ENETUNREACH at once (a timeout fails); "
    "the host's observer on the same ports sees nothing in either")
{
	static struct netprobe	 np;
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	net_start(tc, &np, 1);
	res = probe(tc, &sp, np.src);
	expect(res,
	    "netifs lo\n"
	    "lo4 socket-EPERM\n"
	    "lo6 socket-EPERM\n"
	    "testnet socket-EPERM\n");
	spec(tc, &sp, 5000);
	sp.weaken = WEAKEN_SECCOMP_DEFAULT;
	res = bypassed(tc, &sp, np.src);
	net_stop(&np, 0);
	expect(res,
	    "netifs lo\n"
	    "lo4 ECONNREFUSED\n"
	    /* The engine's lo of NetworkMode none has no IPv6 address. */
	    "lo6 EADDRNOTAVAIL\n"
	    "testnet ENETUNREACH\n");
	/* Refused at once: no connect waited for its timeout. */
	ATF_CHECK_MSG(res->run_ms < 2000, "run_ms %lld",
	    (long long)res->run_ms);
}

SB_TC(mutant_host_network_leaks, "60", "Mutation: NetworkMode host is "
    "refused by the profile check (the observer sees nothing); with the "
    "check bypassed (test build) the seccomp profile still refuses the "
    "socket, and with the engine's default profile too the same probe "
    "reaches the host's observer on 127.0.0.1 and ::1 with the canary")
{
	static struct netprobe	 np;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	/* Loopback only: the host's network is this run's. */
	net_start(tc, &np, 0);
	weakened(tc, &sp, WEAKEN_NETWORK, np.src,
	    "refused: HostConfig.NetworkMode");
	ATF_CHECK_EQ(net_log(&np), 0);
	/* Bypassed, the seccomp profile alone still refuses the socket. */
	expect(bypassed(tc, &sp, np.src),
	    "lo4 socket-EPERM\n"
	    "lo6 socket-EPERM\n");
	ATF_CHECK_EQ(net_log(&np), 0);
	/* Both removed, the host's network is open. */
	spec(tc, &sp, 5000);
	sp.weaken = WEAKEN_NETWORK | WEAKEN_SECCOMP_DEFAULT;
	expect(bypassed(tc, &sp, np.src),
	    "lo4 ok\n"
	    "lo6 ok\n");
	net_stop(&np, 1);
}

SB_TC(inside_wait_running_child, "60", "The script waits for a child "
    "that is still running (busybox sh waits for the signal with "
    "rt_sigsuspend) and for one it stopped and killed: both waits end "
    "with the child's status, long before the deadline")
{
	static const char	 src[] =
	    "sleep 0.5 & c=$!\n"
	    "wait $c; echo \"waited $?\"\n"
	    "sleep 30 & c=$!\n"
	    "kill -STOP $c; kill -KILL $c\n"
	    "wait $c; echo \"killed $?\"\n"
	    "echo \"end alive\"\n";
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 10000);
	res = probe(tc, &sp, src);
	ATF_CHECK_EQ(res->status, 0);
	expect(res,
	    "waited 0\n"
	    "killed 137\n"
	    "end alive\n");
}

SB_TC(inside_pid1_kill_stop_no_effect, "60", "kill -KILL 1 and kill -STOP "
    "1 from the script are dropped by the kernel (non-root design): PID 1 "
    "runs on, the script too, while the same signals stop and kill a "
    "process of the script")
{
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
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 10000);
	res = probe(tc, &sp, src);
	ATF_CHECK_EQ(res->status, 0);
	expect(res,
	    /* Permitted (same uid), and dropped: init has no handler. */
	    "kill_kill ok\n"
	    "kill_stop ok\n"
	    "sh_kill_kill 0\n"
	    "sh_kill_stop 0\n"
	    /* PID 1 neither stopped nor dead: in sigtimedwait, or running. */
	    "after_kill S|R\n"
	    "after_stop S|R\n"
	    "after_sh S|R\n"
	    "child_stop ok\n"
	    "child_stopped T\n"
	    "child_kill ok\n"
	    "child_status 137\n"
	    "end alive\n");
}

SB_TC(inside_pid1_stop_deadline_holds, "60", "After kill -STOP 1 and kill "
    "-KILL 1 a script looping forever still ends by cmcp-init's deadline: "
    "TIME_LIMIT with status 250 within the deadline plus 2 s, not by the "
    "host's backstop")
{
	const struct dkr_sandbox_result	*res;

	/* The marker line only when both kills said 0 and PID 1 is alive. */
	res = past_deadline(tc, "kill -STOP 1 && kill -KILL 1 && "
	    "sbprobe pid1 state 1 | grep -qE '^pid1 [SR]$' && "
	    "echo stopped-and-looping\n"
	    "while :; do :; done\n", "stopped_init_deadline");
	/* The attempts were made: the marker went out (not returned). */
	ATF_CHECK_EQ(res->stdout_bytes, strlen("stopped-and-looping\n"));
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

SB_TC(inside_pid1_ptrace_eperm, "60", "Two protections, each alone: the "
    "seccomp profile refuses ptrace(2) outright (EPERM, a process of the "
    "script too); with the engine's default profile instead (test build, "
    "admission bypassed) PTRACE_ATTACH and PTRACE_SEIZE of PID 1 still "
    "fail with EPERM (cmcp-init is non-dumpable) while the same probe "
    "attaches to a process of the script; PID 1 runs on")
{
	const struct dkr_sandbox_result	*res;
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	res = probe(tc, &sp, ptrace_src);
	ATF_CHECK_EQ(res->status, 0);
	expect(res,
	    "attach EPERM\n"
	    "seize EPERM\n"
	    "pid1 S|R\n"
	    "child_attach EPERM\n");
	ATF_CHECK(strstr(res->out, "\nend\n") != NULL);
	spec(tc, &sp, 5000);
	sp.weaken = WEAKEN_SECCOMP_DEFAULT;
	res = bypassed(tc, &sp, ptrace_src);
	ATF_CHECK_EQ(res->status, 0);
	expect(res,
	    "attach EPERM\n"
	    "seize EPERM\n"
	    "pid1 S|R\n"
	    "child_attach ok\n");
	ATF_CHECK(strstr(res->out, "\nend\n") != NULL);
}

SB_TC(mutant_dumpable_init_ptrace, "60", "Mutation: under the dumpable "
    "cmcp-init (test-only binary) the seccomp profile still refuses "
    "ptrace; with the engine's default profile too (admission bypassed) "
    "the same probe attaches to and seizes PID 1")
{
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	images_env(tc, "CMCP_INIT_DUMPABLE", sp.init_path,
	    sizeof(sp.init_path));
	ATF_REQUIRE_MSG(access(sp.init_path, X_OK) == 0, "%s", sp.init_path);
	expect(probe(tc, &sp, ptrace_src),
	    "attach EPERM\n"
	    "seize EPERM\n");
	sp.weaken = WEAKEN_SECCOMP_DEFAULT;
	/* The probe detaches again, so the run still ends by itself. */
	expect(bypassed(tc, &sp, ptrace_src),
	    "attach ok\n"
	    "seize ok\n");
}

SB_TC(inside_setuid_root_eperm, "60", "The script runs as uid 65534; "
    "setuid(0) and setgid(0) fail with EPERM, while setuid to its own uid "
    "works")
{
	static const char	 src[] =
	    "echo \"id_u $(id -u)\"\n"
	    "echo \"id_g $(id -g)\"\n"
	    "sbprobe setuid0 setuid 0\n"
	    "sbprobe setgid0 setgid 0\n"
	    "sbprobe setuid_own setuid 65534\n"
	    "echo \"after $(id -u)\"\n";
	struct dkr_sandbox_spec	 sp;

	spec(tc, &sp, 5000);
	expect(probe(tc, &sp, src),
	    "id_u 65534\n"
	    "id_g 65534\n"
	    "setuid0 EPERM\n"
	    "setgid0 EPERM\n"
	    "setuid_own ok\n"
	    "after 65534\n");
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
	ATF_TP_ADD_TC(tp, seccomp_profile_refused_each);
	ATF_TP_ADD_TC(tp, inside_network_unreachable);
	ATF_TP_ADD_TC(tp, mutant_host_network_leaks);
	ATF_TP_ADD_TC(tp, inside_wait_running_child);
	ATF_TP_ADD_TC(tp, inside_pid1_kill_stop_no_effect);
	ATF_TP_ADD_TC(tp, inside_pid1_stop_deadline_holds);
	ATF_TP_ADD_TC(tp, inside_pid1_ptrace_eperm);
	ATF_TP_ADD_TC(tp, mutant_dumpable_init_ptrace);
	ATF_TP_ADD_TC(tp, inside_setuid_root_eperm);
	return atf_no_error();
}
