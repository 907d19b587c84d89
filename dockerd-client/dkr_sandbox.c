/*
 * The sandbox tool's one-shot container (DESIGN 11; outcomes and their
 * statuses in dkr_sandbox.h).
 *
 * One run, in order: the sizes and the spec, the daemon check, image
 * admission (nothing exists yet when any of these refuses); create from
 * the fixed template, verify the inspect document, attach, start, verify
 * again (dkr_sandbox_start); only then does the holder of the attach
 * stream write the stdin frame and pump the stream under the host's
 * backstop (sb_stream(), common/sbstream.c: in the suite that is the
 * gateway, never this process); then the exit status is read and,
 * whatever happened, the container is killed, deleted and its absence
 * confirmed by a 404 (dkr_sandbox_end).  dkr_sandbox_run() does all of
 * it in one process, for the tests and the benchmarks.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dkr_sandbox.h"

#define SB_DELETE_TRIES		3
#define SB_DELETE_PAUSE_MS	100

static int	 sb_refuse(struct dkr_sandbox_result *, const char *);
static int	 sb_template(const struct dkr_sandbox_spec *,
		    struct dkr_template *);
static int	 sb_admit(struct dkr_client *, const struct dkr_template *,
		    struct dkr_sandbox_result *);
static int	 sb_create(struct dkr_client *, const struct dkr_template *,
		    struct dkr_sandbox_result *);
static int	 sb_verify(struct dkr_client *, const struct dkr_template *,
		    int, struct dkr_sandbox_result *);
static int	 sb_run(struct dkr_client *, const struct dkr_template *,
		    struct dkr_sandbox_started *, struct dkr_sandbox_result *);
static void	 sb_finish(struct dkr_client *, enum sb_end,
		    struct dkr_sandbox_result *);
static void	 sb_cleanup(struct dkr_client *, struct dkr_sandbox_result *);

static const char *const sb_outcomes[] = {
	[DKR_SB_REFUSED] =	"REFUSED",
	[DKR_SB_COMPLETED] =	"COMPLETED",
	[DKR_SB_TIME_LIMIT] =	"TIME_LIMIT",
	[DKR_SB_OUTPUT_LIMIT] =	"OUTPUT_LIMIT",
	[DKR_SB_TOOL_FAILED] =	"TOOL_FAILED",
};

void
dkr_sandbox_defaults(struct dkr_sandbox_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->argc = 1;
	strlcpy(sp->argv[0], DKR_SANDBOX_RUNNER, sizeof(sp->argv[0]));
	sp->uid = DKR_SANDBOX_UID;
	sp->gid = DKR_SANDBOX_GID;
	sp->memory_bytes = DKR_SANDBOX_MEMORY_BYTES;
	sp->pids = DKR_SANDBOX_PIDS;
	sp->deadline_ms = SANDBOX_TIMEOUT_MS;
	sp->output_bytes = SANDBOX_OUTPUT_BYTES;
	sp->source_bytes = SANDBOX_SOURCE_BYTES;
	sp->input_bytes = SANDBOX_INPUT_BYTES;
}

const char *
dkr_sandbox_outcome_str(enum dkr_sandbox_outcome o)
{
	if (o < DKR_SB_REFUSED || o > DKR_SB_TOOL_FAILED)
		return "unknown";
	return sb_outcomes[o];
}

/*
 * The outcome of a container that ended by itself with this status.  Only
 * statuses a program can own are COMPLETED; see dkr_sandbox.h for why 125,
 * 126 and 128 are not among them.
 */
enum dkr_sandbox_outcome
dkr_sandbox_status_outcome(int64_t status)
{
	switch (dkr_exit_outcome(status)) {
	case DKR_TIME_LIMIT:
		return DKR_SB_TIME_LIMIT;
	case DKR_EXITED:
		if (status == DKR_SANDBOX_RUNNER_FRAMING ||
		    status == DKR_SANDBOX_RUNNER_EXEC ||
		    status == CMCP_INIT_EXIT_HIGH)
			return DKR_SB_TOOL_FAILED;
		return DKR_SB_COMPLETED;
	default:
		return DKR_SB_TOOL_FAILED;
	}
}

/*
 * Run source over input in one process.  0 when the program ran
 * (res->outcome is one of the four) and its container is confirmed gone;
 * -1 when the run was refused (nothing reached a container) or when the
 * container's absence could not be confirmed (res->gone 0: the caller
 * must not go on as if it were gone).  res->why says which, in fixed
 * words.
 */
int
dkr_sandbox_run(const struct dkr_sandbox_spec *sp, const char *source,
    size_t srclen, const char *input, size_t inlen,
    struct dkr_sandbox_result *res)
{
	struct dkr_client		 c;
	struct dkr_sandbox_started	 st;
	struct sb_feed			 feed;
	struct sb_output		 o;
	enum sb_end			 end;

	if (dkr_sandbox_check(sp, srclen, inlen, &st, res) == -1)
		return -1;
	if (memchr(source, '\0', srclen) != NULL)
		return sb_refuse(res, "sandbox: NUL byte in the source");
	if (sb_feed_init(&feed, source, srclen, input, inlen) == -1)
		return sb_refuse(res, "sandbox: bad frame");
	if (dkr_client_init(&c, sp->sock) == -1)
		return sb_refuse(res, "sandbox: engine unavailable");
	c.timeout_ms = DKR_SANDBOX_CALL_TIMEOUT_MS;
	if (dkr_sandbox_start(&c, sp, &st, res) == -1) {
		dkr_client_free(&c);
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.out = res->out;
	o.outmax = sp->output_bytes;
	end = sb_stream(st.fd, st.head, st.headlen, &feed, &o,
	    dkr_sandbox_backstop(sp, &st));
	res->outlen = o.outlen;
	res->stdout_bytes = o.stdout_bytes;
	res->stderr_bytes = o.stderr_bytes;
	dkr_sandbox_end(&c, &st, end, res);
	dkr_client_free(&c);
	return res->outcome != DKR_SB_REFUSED && res->gone ? 0 : -1;
}

/*
 * Everything that can be refused without the engine: the tool's
 * parameters and the sizes.  0, or -1 refused.
 */
int
dkr_sandbox_check(const struct dkr_sandbox_spec *sp, size_t srclen,
    size_t inlen, struct dkr_sandbox_started *st,
    struct dkr_sandbox_result *res)
{
	struct dkr_template	 t;

	memset(res, 0, sizeof(*res));
	memset(st, 0, sizeof(*st));
	st->fd = -1;
	st->begin = sb_now_ms();
	res->outcome = DKR_SB_REFUSED;
	res->status = -1;
	res->gone = 1;
	if (sb_template(sp, &t) == -1)
		return sb_refuse(res, "sandbox: bad tool parameters");
	if (srclen == 0 || srclen > sp->source_bytes)
		return sb_refuse(res, "sandbox: source size out of bounds");
	if (inlen > sp->input_bytes)
		return sb_refuse(res, "sandbox: input too large");
	return 0;
}

/*
 * After dkr_sandbox_check: admit, create, verify, attach, start, verify
 * again.  0: the container runs and st->fd is its attach stream, to be
 * pumped and then given to dkr_sandbox_end.  -1: refused, no byte of the
 * source or the input reached a container, and whatever was created is
 * removed (res->gone says whether its absence was confirmed).
 */
int
dkr_sandbox_start(struct dkr_client *c, const struct dkr_sandbox_spec *sp,
    struct dkr_sandbox_started *st, struct dkr_sandbox_result *res)
{
	struct dkr_template	 t;

	if (sb_template(sp, &t) == -1)
		return sb_refuse(res, "sandbox: bad tool parameters");
	if (sb_admit(c, &t, res) == 0 && sb_create(c, &t, res) == 0 &&
	    sb_run(c, &t, st, res) == 0)
		return 0;
	sb_cleanup(c, res);
	res->total_ms = sb_now_ms() - st->begin;
	return -1;
}

/* When the host stops waiting for the stream: deadline plus margin. */
int64_t
dkr_sandbox_backstop(const struct dkr_sandbox_spec *sp,
    const struct dkr_sandbox_started *st)
{
	return st->t0 + sp->deadline_ms + DKR_SANDBOX_MARGIN_MS;
}

/*
 * The stream ended as end says: read the exit status or kill, then
 * remove the container and confirm its absence.  Output is kept with
 * COMPLETED only.
 */
void
dkr_sandbox_end(struct dkr_client *c, struct dkr_sandbox_started *st,
    enum sb_end end, struct dkr_sandbox_result *res)
{
	if (st->fd != -1) {
		(void)close(st->fd);
		st->fd = -1;
	}
	res->run_ms = sb_now_ms() - st->t0;
	sb_finish(c, end, res);
	sb_cleanup(c, res);
	if (res->outcome != DKR_SB_COMPLETED) {
		explicit_bzero(res->out, res->outlen);
		res->outlen = 0;
	}
	res->out[res->outlen] = '\0';
	res->total_ms = sb_now_ms() - st->begin;
}

static int
sb_refuse(struct dkr_sandbox_result *res, const char *why)
{
	res->outcome = DKR_SB_REFUSED;
	strlcpy(res->why, why, sizeof(res->why));
	return -1;
}

/* The profile of the run: the fixed template, filled from the spec. */
static int
sb_template(const struct dkr_sandbox_spec *sp, struct dkr_template *t)
{
	size_t	 i;

	memset(t, 0, sizeof(*t));
	if (memchr(sp->sock, '\0', sizeof(sp->sock)) == NULL ||
	    sp->sock[0] != '/' ||
	    strlcpy(t->image, sp->image, sizeof(t->image)) >=
	    sizeof(t->image) ||
	    strlcpy(t->init_path, sp->init_path, sizeof(t->init_path)) >=
	    sizeof(t->init_path) ||
	    strlcpy(t->instance, sp->instance, sizeof(t->instance)) >=
	    sizeof(t->instance) ||
	    strlcpy(t->session, sp->session, sizeof(t->session)) >=
	    sizeof(t->session))
		return -1;
	if (sp->argc < 1 || sp->argc > DKR_ARGV_MAX)
		return -1;
	t->argc = sp->argc;
	for (i = 0; i < sp->argc; i++)
		if (strlcpy(t->argv[i], sp->argv[i], sizeof(t->argv[i])) >=
		    sizeof(t->argv[i]))
			return -1;
	t->envc = 1;
	strlcpy(t->env[0], DKR_SANDBOX_ENV, sizeof(t->env[0]));
	t->uid = sp->uid;
	t->gid = sp->gid;
	t->memory_bytes = sp->memory_bytes;
	t->pids = sp->pids;
	t->nofile = DKR_SANDBOX_NOFILE;
	t->nproc = sp->pids;
	t->nano_cpus = 0;
	t->deadline_ms = sp->deadline_ms;
	t->kind = DKR_KIND_SANDBOX;
#ifdef CMCP_TEST
	t->weaken = sp->weaken;
	t->noadmit = sp->noadmit;
#endif
	if (sp->output_bytes < 1 || sp->output_bytes > SANDBOX_OUTPUT_BYTES ||
	    sp->source_bytes < 1 || sp->source_bytes > SANDBOX_SOURCE_BYTES ||
	    sp->input_bytes > SANDBOX_INPUT_BYTES)
		return -1;
	return dkr_template_check(t) == DKR_OK ? 0 : -1;
}

/* A local Linux engine that enforces every limit, and the pinned image. */
static int
sb_admit(struct dkr_client *c, const struct dkr_template *t,
    struct dkr_sandbox_result *res)
{
	char	*version;
	size_t	 vlen;
	long	 s;

	if (dkr_ping(c) == -1)
		return sb_refuse(res, "sandbox: engine unavailable");
	if (dkr_version(c) != 200)
		return sb_refuse(res, "sandbox: docker version failed");
	vlen = c->len;
	if ((version = malloc(vlen + 1)) == NULL)
		return sb_refuse(res, "sandbox: out of memory");
	memcpy(version, c->body, vlen + 1);
	if (dkr_info(c) != 200) {
		free(version);
		return sb_refuse(res, "sandbox: docker info failed");
	}
	if (dkr_daemon_verify(version, vlen, c->body, c->len, res->why,
	    sizeof(res->why)) != DKR_OK) {
		free(version);
		return -1;
	}
	free(version);

	if ((s = dkr_image_inspect(c, t->image)) == 404)
		return sb_refuse(res, "sandbox: image not found");
	if (s != 200)
		return sb_refuse(res, "sandbox: docker image inspect failed");
	if (dkr_image_verify(c->body, c->len, t->image, res->why,
	    sizeof(res->why)) != DKR_OK)
		return -1;
	res->why[0] = '\0';
	return 0;
}

/* Create from the template; any create warning refuses. */
static int
sb_create(struct dkr_client *c, const struct dkr_template *t,
    struct dkr_sandbox_result *res)
{
	enum dkr_reason	 r;
	char		*body;
	int		 rv;

	if ((body = dkr_template_body(t, &r)) == NULL)
		return sb_refuse(res, dkr_reason_str(r));
#ifdef CMCP_TEST
	if ((body = dkr_template_weaken(body, t->weaken)) == NULL)
		return sb_refuse(res, "sandbox: weaken failed");
#endif
	rv = dkr_create(c, body, res->id, &r);
	free(body);
	if (res->id[0] != '\0') {
		res->created = 1;
		res->gone = 0;
	}
	if (rv == -1 || r != DKR_OK)
		return sb_refuse(res, c->err);
	return sb_verify(c, t, DKR_STATE_CREATED, res);
}

/* Inspect, and compare every field of the profile. */
static int
sb_verify(struct dkr_client *c, const struct dkr_template *t, int states,
    struct dkr_sandbox_result *res)
{
	if (dkr_inspect(c, res->id) != 200)
		return sb_refuse(res, "sandbox: docker inspect failed");
	if (dkr_inspect_verify_state(c->body, c->len, t, res->id, states,
	    res->why, sizeof(res->why)) != DKR_OK) {
#ifdef CMCP_TEST
		if (t->noadmit) {
			res->why[0] = '\0';
			return 0;
		}
#endif
		return -1;
	}
	res->why[0] = '\0';
	return 0;
}

/*
 * Attach before start so nothing is lost, start, and verify the running
 * profile.  Up to that point a failure is a refusal: no byte reached the
 * container.
 */
static int
sb_run(struct dkr_client *c, const struct dkr_template *t,
    struct dkr_sandbox_started *st, struct dkr_sandbox_result *res)
{
	int	 fd, fl;

	if (dkr_attach(c, res->id, &fd, st->head, sizeof(st->head),
	    &st->headlen) == -1)
		return sb_refuse(res, c->err);
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		(void)close(fd);
		return sb_refuse(res, "sandbox: fcntl");
	}
	st->t0 = sb_now_ms();
	if (dkr_start(c, res->id) != 204) {
		(void)close(fd);
		return sb_refuse(res, "sandbox: docker start failed");
	}
	if (sb_verify(c, t, DKR_STATE_RUNNING | DKR_STATE_EXITED, res) == -1) {
		(void)close(fd);
		return -1;
	}
	st->fd = fd;
	return 0;
}

/*
 * The outcome.  At the end of the stream the container is exiting by
 * itself and its status decides; otherwise the host kills it and decides,
 * and the status is only recorded.
 */
static void
sb_finish(struct dkr_client *c, enum sb_end end,
    struct dkr_sandbox_result *res)
{
	int64_t	 status;

	if (end == SB_EOF) {
		if (dkr_wait(c, res->id, DKR_SANDBOX_EXIT_WAIT_MS,
		    &status) == 0) {
			res->status = status;
			res->outcome = dkr_sandbox_status_outcome(status);
			if (res->outcome == DKR_SB_TIME_LIMIT)
				strlcpy(res->why, "sandbox: deadline",
				    sizeof(res->why));
			else if (res->outcome == DKR_SB_TOOL_FAILED)
				strlcpy(res->why, "sandbox: reserved or "
				    "unknown exit status", sizeof(res->why));
			return;
		}
		res->outcome = DKR_SB_TOOL_FAILED;
		strlcpy(res->why, "sandbox: no exit after the stream ended",
		    sizeof(res->why));
	} else if (end == SB_OUTPUT) {
		res->outcome = DKR_SB_OUTPUT_LIMIT;
		strlcpy(res->why, "sandbox: output limit", sizeof(res->why));
	} else if (end == SB_BACKSTOP) {
		res->outcome = DKR_SB_TIME_LIMIT;
		strlcpy(res->why, "sandbox: host backstop", sizeof(res->why));
	} else {
		res->outcome = DKR_SB_TOOL_FAILED;
		strlcpy(res->why, "sandbox: attach stream broken",
		    sizeof(res->why));
	}
	if (dkr_kill(c, res->id) == 204)
		res->killed = 1;
	if (dkr_wait(c, res->id, DKR_SANDBOX_KILL_WAIT_MS, &status) == 0)
		res->status = status;
}

/*
 * Kill (204, or 409 when it has exited), delete with force, and believe
 * only a 404 from inspect.  A delete may race the engine's own teardown
 * of a dying container, so it is tried again a few times.
 */
static void
sb_cleanup(struct dkr_client *c, struct dkr_sandbox_result *res)
{
	int	 try;

	if (!res->created)
		return;
	if (dkr_kill(c, res->id) == 204)
		res->killed = 1;
	for (try = 0; try < SB_DELETE_TRIES; try++) {
		if (try > 0)
			(void)usleep(SB_DELETE_PAUSE_MS * 1000);
		(void)dkr_delete(c, res->id);
		if (dkr_gone(c, res->id) == 1) {
			res->gone = 1;
			return;
		}
	}
	res->gone = 0;
	strlcpy(res->why, "sandbox: absence not confirmed", sizeof(res->why));
}
