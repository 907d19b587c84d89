/*
 * The sandbox tool's one-shot container (DESIGN 11; outcomes and their
 * statuses in dkr_sandbox.h).
 *
 * One run, in order: the sizes and the spec, the daemon check, image
 * admission (nothing exists yet when any of these refuses); create from
 * the fixed template, verify the inspect document, attach, start, verify
 * again; only then the stdin frame goes in and the stream is pumped under
 * the host's backstop; the exit status is read; and whatever happened the
 * container is killed, deleted and its absence confirmed by a 404.
 *
 * sb_stream() is the only code that sees bytes the container produced: it
 * takes a descriptor and bounds, never the engine connection, and stores
 * stdout up to the bound and nothing of stderr.
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

#define SB_FRAME_HEAD		8	/* attach stream: type, 0 0 0, size */
#define SB_STREAM_STDOUT	1
#define SB_STREAM_STDERR	2
#define SB_READ_BYTES		(16 * 1024)
#define SB_STDIN_HEAD_BYTES	32	/* "16384 65536\n" is 12 */
#define SB_DELETE_TRIES		3
#define SB_DELETE_PAUSE_MS	100

/* How the stream ended. */
enum sb_end {
	SB_EOF,			/* the engine closed it after the container */
	SB_OUTPUT,		/* a byte over a bound */
	SB_BACKSTOP,		/* the host's deadline */
	SB_BROKEN		/* malformed, or an I/O error */
};

/* The stdin frame: header, source, input, sent in turn. */
struct sb_feed {
	const char	*seg[3];
	size_t		 len[3];
	size_t		 i;
	size_t		 off;
};

/* The demultiplexer of the attach stream. */
struct sb_demux {
	unsigned char	 head[SB_FRAME_HEAD];
	size_t		 headlen;
	size_t		 left;		/* of the current frame's payload */
	int		 stream;
};

static int	 sb_refuse(struct dkr_sandbox_result *, const char *);
static int	 sb_template(const struct dkr_sandbox_spec *,
		    struct dkr_template *);
static int	 sb_admit(struct dkr_client *, const struct dkr_template *,
		    struct dkr_sandbox_result *);
static int	 sb_create(struct dkr_client *, const struct dkr_template *,
		    struct dkr_sandbox_result *);
static int	 sb_verify(struct dkr_client *, const struct dkr_template *,
		    int, struct dkr_sandbox_result *);
static void	 sb_run(struct dkr_client *, const struct dkr_template *,
		    const struct dkr_sandbox_spec *, struct sb_feed *,
		    struct dkr_sandbox_result *);
static enum sb_end sb_stream(int, const char *, size_t, struct sb_feed *,
		    size_t, int64_t, struct dkr_sandbox_result *);
static int	 sb_send(int, struct sb_feed *);
static int	 sb_demux(struct sb_demux *, const char *, size_t, size_t,
		    struct dkr_sandbox_result *, enum sb_end *);
static void	 sb_finish(struct dkr_client *, enum sb_end,
		    struct dkr_sandbox_result *);
static void	 sb_cleanup(struct dkr_client *, struct dkr_sandbox_result *);
static int64_t	 sb_now_ms(void);

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
 * Run source over input.  0 when the program ran (res->outcome is one of
 * the four) and its container is confirmed gone; -1 when the run was
 * refused (nothing reached a container) or when the container's absence
 * could not be confirmed (res->gone 0: the caller must not go on as if it
 * were gone).  res->why says which, in fixed words.
 */
int
dkr_sandbox_run(const struct dkr_sandbox_spec *sp, const char *source,
    size_t srclen, const char *input, size_t inlen,
    struct dkr_sandbox_result *res)
{
	struct dkr_client	 c;
	struct dkr_template	 t;
	struct sb_feed		 feed;
	char			 head[SB_STDIN_HEAD_BYTES];
	int64_t			 t0;
	int			 n;

	memset(res, 0, sizeof(*res));
	res->outcome = DKR_SB_REFUSED;
	res->status = -1;
	res->gone = 1;
	t0 = sb_now_ms();

	/* Everything that can be refused without the engine, first. */
	if (sb_template(sp, &t) == -1)
		return sb_refuse(res, "sandbox: bad tool parameters");
	if (srclen == 0 || srclen > sp->source_bytes)
		return sb_refuse(res, "sandbox: source size out of bounds");
	if (memchr(source, '\0', srclen) != NULL)
		return sb_refuse(res, "sandbox: NUL byte in the source");
	if (inlen > sp->input_bytes)
		return sb_refuse(res, "sandbox: input too large");
	n = snprintf(head, sizeof(head), "%zu %zu\n", srclen, inlen);
	if (n < 0 || (size_t)n >= sizeof(head))
		return sb_refuse(res, "sandbox: bad frame");
	feed.seg[0] = head;
	feed.len[0] = (size_t)n;
	feed.seg[1] = source;
	feed.len[1] = srclen;
	feed.seg[2] = input;
	feed.len[2] = inlen;
	feed.i = feed.off = 0;

	if (dkr_client_init(&c, sp->sock) == -1)
		return sb_refuse(res, "sandbox: engine unavailable");
	c.timeout_ms = DKR_SANDBOX_CALL_TIMEOUT_MS;
	if (sb_admit(&c, &t, res) == 0 && sb_create(&c, &t, res) == 0)
		sb_run(&c, &t, sp, &feed, res);
	sb_cleanup(&c, res);
	dkr_client_free(&c);

	if (res->outcome != DKR_SB_COMPLETED) {
		explicit_bzero(res->out, res->outlen);
		res->outlen = 0;
	}
	res->out[res->outlen] = '\0';
	res->total_ms = sb_now_ms() - t0;
	return res->outcome != DKR_SB_REFUSED && res->gone ? 0 : -1;
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
	    res->why, sizeof(res->why)) != DKR_OK)
		return -1;
	res->why[0] = '\0';
	return 0;
}

/*
 * Attach before start so nothing is lost, start, verify the running
 * profile, and only then let the source and the input go in.  Up to that
 * point a failure is a refusal: no byte reached the container.
 */
static void
sb_run(struct dkr_client *c, const struct dkr_template *t,
    const struct dkr_sandbox_spec *sp, struct sb_feed *feed,
    struct dkr_sandbox_result *res)
{
	static char	 head[DKR_ATTACH_HEAD_BYTES];
	size_t		 headlen;
	int64_t		 t0, backstop;
	enum sb_end	 end;
	int		 fd, fl;

	if (dkr_attach(c, res->id, &fd, head, sizeof(head), &headlen) == -1) {
		sb_refuse(res, c->err);
		return;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		(void)close(fd);
		sb_refuse(res, "sandbox: fcntl");
		return;
	}
	t0 = sb_now_ms();
	if (dkr_start(c, res->id) != 204) {
		(void)close(fd);
		sb_refuse(res, "sandbox: docker start failed");
		return;
	}
	backstop = t0 + sp->deadline_ms + DKR_SANDBOX_MARGIN_MS;
	if (sb_verify(c, t, DKR_STATE_RUNNING | DKR_STATE_EXITED, res) == -1) {
		(void)close(fd);
		return;
	}

	end = sb_stream(fd, head, headlen, feed, sp->output_bytes, backstop,
	    res);
	res->run_ms = sb_now_ms() - t0;
	(void)close(fd);
	sb_finish(c, end, res);
}

/*
 * Write the stdin frame and demultiplex the attach stream until it ends,
 * a bound is passed, or the backstop comes.  stdout goes to res->out up to
 * outmax bytes, stderr is only counted.
 */
static enum sb_end
sb_stream(int fd, const char *head, size_t headlen, struct sb_feed *feed,
    size_t outmax, int64_t backstop, struct dkr_sandbox_result *res)
{
	char		 buf[SB_READ_BYTES];
	struct sb_demux	 d;
	struct pollfd	 pfd;
	enum sb_end	 end;
	int64_t		 left;
	ssize_t		 n;
	int		 writing = 1;

	memset(&d, 0, sizeof(d));
	if (sb_demux(&d, head, headlen, outmax, res, &end) == -1)
		return end;
	for (;;) {
		if ((left = backstop - sb_now_ms()) <= 0)
			return SB_BACKSTOP;
		pfd.fd = fd;
		pfd.events = POLLIN | (writing ? POLLOUT : 0);
		pfd.revents = 0;
		if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) == -1) {
			if (errno == EINTR)
				continue;
			return SB_BROKEN;
		}
		if (pfd.revents & POLLNVAL)
			return SB_BROKEN;
		if (writing && (pfd.revents & (POLLOUT | POLLERR | POLLHUP))) {
			switch (sb_send(fd, feed)) {
			case 1:
				/* All in: the engine closes the stdin. */
				if (shutdown(fd, SHUT_WR) == -1)
					return SB_BROKEN;
				writing = 0;
				break;
			case -1:
				/* Nobody reads it any more: the rest says why. */
				writing = 0;
				break;
			}
		}
		if ((pfd.revents & (POLLIN | POLLERR | POLLHUP)) == 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return SB_BROKEN;
		}
		if (n == 0)
			return d.headlen == 0 && d.left == 0 ? SB_EOF :
			    SB_BROKEN;
		if (sb_demux(&d, buf, (size_t)n, outmax, res, &end) == -1)
			return end;
	}
}

/* Send what the socket takes: 0 more to come, 1 all sent, -1 refused. */
static int
sb_send(int fd, struct sb_feed *f)
{
	ssize_t	 n;

	while (f->i < 3) {
		if (f->off == f->len[f->i]) {
			f->i++;
			f->off = 0;
			continue;
		}
		n = send(fd, f->seg[f->i] + f->off, f->len[f->i] - f->off,
		    MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		f->off += (size_t)n;
	}
	return 1;
}

/*
 * Frames of the attach stream (Tty false): a byte naming the stream, three
 * zero bytes, a 32-bit big-endian payload size, the payload.  The payload
 * is never buffered beyond res->out, so a frame may be of any size.
 * 0, or -1 with *end set.
 */
static int
sb_demux(struct sb_demux *d, const char *p, size_t n, size_t outmax,
    struct dkr_sandbox_result *res, enum sb_end *end)
{
	const unsigned char	*h = d->head;
	size_t			 take;

	while (n > 0) {
		if (d->left == 0) {
			take = SB_FRAME_HEAD - d->headlen;
			if (take > n)
				take = n;
			memcpy(d->head + d->headlen, p, take);
			d->headlen += take;
			p += take;
			n -= take;
			if (d->headlen < SB_FRAME_HEAD)
				break;
			d->headlen = 0;
			if ((h[0] != SB_STREAM_STDOUT &&
			    h[0] != SB_STREAM_STDERR) ||
			    h[1] != 0 || h[2] != 0 || h[3] != 0) {
				*end = SB_BROKEN;
				return -1;
			}
			d->stream = h[0];
			d->left = (size_t)h[4] << 24 | (size_t)h[5] << 16 |
			    (size_t)h[6] << 8 | (size_t)h[7];
			continue;
		}
		take = d->left < n ? d->left : n;
		if (d->stream == SB_STREAM_STDOUT) {
			if (take > outmax - res->outlen) {
				/* The first byte over the bound ends it. */
				res->stdout_bytes += outmax - res->outlen + 1;
				*end = SB_OUTPUT;
				return -1;
			}
			memcpy(res->out + res->outlen, p, take);
			res->outlen += take;
			res->stdout_bytes += take;
		} else {
			if (take > DKR_SANDBOX_STDERR_BYTES - res->stderr_bytes) {
				res->stderr_bytes = DKR_SANDBOX_STDERR_BYTES + 1;
				*end = SB_OUTPUT;
				return -1;
			}
			res->stderr_bytes += take;
		}
		d->left -= take;
		p += take;
		n -= take;
	}
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

static int64_t
sb_now_ms(void)
{
	struct timespec	 ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
