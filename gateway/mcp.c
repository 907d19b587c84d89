/*
 * MCP client of one approved server over its stdin and stdout, or over
 * its container's attach stream (mcp.h).
 *
 * Shape of one operation: mcp_begin() takes the deadline, a request is
 * composed in wbuf within MCP_REQUEST_BYTES and written by mcp_send(), and
 * mcp_await() reads lines until the response to that request arrives,
 * counting, answering or refusing whatever comes in between.  Any error
 * after the first byte is sent leaves the stream in an unknown state and
 * is fatal for the session (mcp_fail()); a JSON-RPC error answer to
 * tools/call is the only exception, since the exchange completed.  A
 * request that times out is followed by notifications/cancelled, written
 * once without waiting, so that a server still working on it may stop.
 *
 * A listing (mcp_list_tools()) reads every page into scratch; one that a
 * list_changed interrupts is read again from the first page.  The first
 * complete listing is pinned.  After the pin a list_changed is acted on
 * before the next call is sent: mcp_call() first reads what the server
 * has already written (mcp_drain(), no waiting), lists again if a
 * list_changed is among it, and lists again after the response if one
 * came with it; mcp_repin() then compares every configured tool.
 *
 * The two transports differ only below the line buffer: mcp_fill() takes
 * bytes from the pipe, or from the stream (first the bytes read before
 * the open, then the socket) through mcp_demux(), which leaves in rbuf
 * the stdout payload alone; every line, bound and deadline above it is
 * the same code.  Writes are mcp_write().
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "mcp.h"
#include "mstime.h"
#include "sha256.h"

#define MCP_CLIENT_NAME		"cmcp-privsep"
#define MCP_CLIENT_VERSION	"1"
#define MCP_METHOD_NOT_FOUND	"-32601"
#define MCP_LIST_CHANGED	"notifications/tools/list_changed"
#define MCP_CANCELLED		"notifications/cancelled"
#define MCP_PIN_DOMAIN		"cmcp-privsep mcp tools v1"
#define MCP_ID_BYTES		24	/* a uint64_t in decimal, NUL */

/* A response: its line (valid until the next read) and result offset. */
struct mcp_msg {
	const char	*b;
	size_t		 len;
	size_t		 result;
};

/* A request under construction; over is set instead of overflowing. */
struct mcp_buf {
	char		*p;
	size_t		 len;
	size_t		 cap;
	int		 over;
};

static enum mcp_error	 mcp_setup(struct mcp_client *,
			    const struct mcp_limits *);
static enum mcp_error	 mcp_start(struct mcp_client *, int, int);
static enum mcp_error	 mcp_fail(struct mcp_client *, enum mcp_error);
static enum mcp_error	 mcp_begin(struct mcp_client *);
static enum mcp_error	 mcp_remaining(const struct mcp_client *, int *);
static enum mcp_error	 mcp_poll(struct mcp_client *, int, short);
static enum mcp_error	 mcp_send(struct mcp_client *, const char *, size_t);
static ssize_t		 mcp_write(const struct mcp_client *, const void *,
			    size_t);
static ssize_t		 mcp_read(const struct mcp_client *, void *,
			    size_t);
static int		 mcp_bufline(struct mcp_client *, const char **,
			    size_t *);
static enum mcp_error	 mcp_readline(struct mcp_client *, const char **,
			    size_t *);
static enum mcp_error	 mcp_fill(struct mcp_client *, size_t *);
static enum mcp_error	 mcp_demux(struct mcp_client *, size_t);
static enum mcp_error	 mcp_frame(struct mcp_demux *);
static enum mcp_error	 mcp_message(struct mcp_client *, const char *,
			    size_t, size_t *);
static enum mcp_error	 mcp_drain(struct mcp_client *);
static void		 mcp_cancel(struct mcp_client *, uint64_t);
static enum mcp_error	 mcp_list_once(struct mcp_client *);
static enum mcp_error	 mcp_repin(struct mcp_client *,
			    const uint8_t [SHA256_DIGEST_BYTES]);
static const struct mcp_tool *mcp_find(const struct mcp_tool *, size_t,
			    const char *);
static enum mcp_error	 mcp_await(struct mcp_client *, uint64_t,
			    struct mcp_msg *);
static enum mcp_error	 mcp_response(const char *, size_t, size_t, uint64_t,
			    size_t *);
static enum mcp_error	 mcp_peer_message(struct mcp_client *, const char *,
			    size_t, size_t);
static enum mcp_error	 mcp_exchange(struct mcp_client *, struct mcp_buf *,
			    uint64_t, struct mcp_msg *);
static enum mcp_error	 mcp_check_init(struct mcp_client *,
			    const struct mcp_msg *);
static enum mcp_error	 mcp_page(struct mcp_client *, const struct mcp_msg *);
static int		 mcp_tool_ok(const char *, size_t, size_t);
static int		 mcp_keep_schema(struct mcp_client *, const char *,
			    size_t, size_t, const char *);
static void		 mcp_swap_scratch(struct mcp_client *,
			    const uint8_t [SHA256_DIGEST_BYTES]);
static enum mcp_error	 mcp_check_call(const struct mcp_msg *, int *);
static void		 mcp_list_hash(struct mcp_tool *, size_t,
			    uint8_t [SHA256_DIGEST_BYTES]);
static void		 mcp_hash_bytes(struct sha256_ctx *, const char *,
			    size_t);
static int		 mcp_tool_cmp(const void *, const void *);
static int		 mcp_name_ok(const char *);
static int		 mcp_get(const char *, size_t, size_t, const char *,
			    size_t *);
static int		 mcp_is(const char *, size_t, size_t, const char *,
			    enum json_type);
static int		 mcp_only_members(const char *, size_t, size_t,
			    const char *const *);
static int		 mcp_is_integer(const char *, size_t);
static int		 mcp_args_ok(const char *, size_t);
static void		 mcp_req_open(struct mcp_client *, struct mcp_buf *,
			    const char *, uint64_t *);
static enum mcp_error	 mcp_req_close(struct mcp_buf *);
static void		 mcp_put(struct mcp_buf *, const char *, size_t);
static void		 mcp_puts(struct mcp_buf *, const char *);

static const char *const mcp_errstr[MCP_E_MAX] = {
	[MCP_OK] =		"ok",
	[MCP_E_TIMEOUT] =	"deadline exceeded",
	[MCP_E_ID] =		"response id is not the outstanding request's",
	[MCP_E_TOO_LARGE] =	"message over its size bound",
	[MCP_E_SYNTAX] =	"malformed JSON",
	[MCP_E_PROTOCOL] =	"protocol violation",
	[MCP_E_VERSION] =	"unsupported protocol version",
	[MCP_E_RPC_ERROR] =	"server answered with an error",
	[MCP_E_RESULT] =	"missing or malformed result",
	[MCP_E_TOOLS] =		"malformed tool list",
	[MCP_E_TOOL_COUNT] =	"too many tools",
	[MCP_E_PAGES] =		"too many tool list pages",
	[MCP_E_CURSOR] =	"tool list cursor repeated",
	[MCP_E_CHANGED] =	"tool list changed",
	[MCP_E_CLOSED] =	"server closed the connection",
	[MCP_E_STREAM] =	"malformed attach stream",
	[MCP_E_STDERR] =	"server stderr over its bound",
	[MCP_E_NOTIFICATIONS] =	"too many interleaved messages",
	[MCP_E_SERVER_REQUEST] = "server request refused",
	[MCP_E_NOT_ALLOWED] =	"tool not configured and discovered",
	[MCP_E_ARGS] =		"arguments are not one JSON object",
	[MCP_E_STATE] =		"operation out of order",
	[MCP_E_INVAL] =		"invalid limits or descriptors",
	[MCP_E_SYSTEM] =	"system error",
};

static const char mcp_initialized[] =
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

/* The versions we speak, the one we offer first. */
static const char *const mcp_versions[] = {
	MCP_PROTOCOL_VERSION,
	MCP_PROTOCOL_PREVIOUS,
};

/*
 * Take over wfd (the server's stdin) and rfd (its stdout), which become
 * non-blocking; mcp_close() closes them.  After a failure they are still
 * the caller's.  lim may be NULL for the defaults.
 */
enum mcp_error
mcp_open(struct mcp_client *c, int wfd, int rfd,
    const struct mcp_limits *lim)
{
	struct sigaction	 sa;
	sigset_t		 mask;
	enum mcp_error		 e;

	if ((e = mcp_setup(c, lim)) != MCP_OK)
		return e;
	if (wfd < 0 || rfd < 0)
		return MCP_E_INVAL;

	/* A server that closes its stdin must cost an EPIPE, not the process. */
	if (sigaction(SIGPIPE, NULL, &sa) == -1 ||
	    sigprocmask(SIG_BLOCK, NULL, &mask) == -1)
		return MCP_E_SYSTEM;
	/* sa_sigaction is the same storage: with SA_SIGINFO, null is SIG_DFL */
	if (sa.sa_handler == SIG_DFL && sigismember(&mask, SIGPIPE) != 1)
		return MCP_E_INVAL;
	return mcp_start(c, wfd, rfd);
}

/*
 * Take over fd, the attach socket of the server's container (both
 * directions), blocking or not; mcp_close() shuts its write side down
 * and closes it.  head[0..headlen) are the stream's first bytes,
 * read with the attach response: they are demultiplexed before anything
 * from the socket.  After a failure fd is still the caller's.
 */
enum mcp_error
mcp_open_stream(struct mcp_client *c, int fd, const unsigned char *head,
    size_t headlen, const struct mcp_limits *lim)
{
	enum mcp_error		 e;

	if ((e = mcp_setup(c, lim)) != MCP_OK)
		return e;
	if (fd < 0 || headlen > STREAM_HEAD_BYTES ||
	    (head == NULL && headlen > 0))
		return MCP_E_INVAL;
	if (headlen > 0) {
		if ((c->head = malloc(headlen)) == NULL)
			return MCP_E_SYSTEM;
		memcpy(c->head, head, headlen);
		c->headlen = headlen;
	}
	c->stream = 1;
	return mcp_start(c, fd, fd);
}

/* An unusable client with the limits, checked, or MCP_E_INVAL. */
static enum mcp_error
mcp_setup(struct mcp_client *c, const struct mcp_limits *lim)
{
	memset(c, 0, sizeof(*c));
	c->wfd = c->rfd = -1;
	c->state = MCP_ST_DEAD;
	c->fatal = MCP_E_INVAL;

	c->lim.timeout_ms = MCP_TIMEOUT_MS;
	c->lim.response_bytes = MCP_RESPONSE_BYTES;
	c->lim.tools = MCP_TOOLS;
	c->lim.pages = MCP_LIST_PAGES;
	if (lim != NULL) {
		if (lim->timeout_ms != 0)
			c->lim.timeout_ms = lim->timeout_ms;
		if (lim->response_bytes != 0)
			c->lim.response_bytes = lim->response_bytes;
		if (lim->tools != 0)
			c->lim.tools = lim->tools;
		if (lim->pages != 0)
			c->lim.pages = lim->pages;
	}
	if (c->lim.timeout_ms > MCP_TIMEOUT_MAX_MS ||
	    c->lim.response_bytes < MCP_RESPONSE_MIN_BYTES ||
	    c->lim.response_bytes > MCP_RESPONSE_MAX_BYTES ||
	    c->lim.tools > MCP_TOOLS_MAX || c->lim.pages > MCP_PAGES_MAX)
		return MCP_E_INVAL;
	return MCP_OK;
}

/* A pipe's descriptors non-blocking, the buffers allocated: ready. */
static enum mcp_error
mcp_start(struct mcp_client *c, int wfd, int rfd)
{
	int		 fd, fl, i;
	size_t		 n;

	/*
	 * A stream is read and written with MSG_DONTWAIT instead: it comes
	 * to a sandboxed gateway, which has no fcntl.
	 */
	for (i = 0; !c->stream && i < 2; i++) {
		fd = i == 0 ? wfd : rfd;
		if ((fl = fcntl(fd, F_GETFL)) == -1)
			return errno == EBADF ? MCP_E_INVAL : MCP_E_SYSTEM;
		if ((fl & O_NONBLOCK) == 0 &&
		    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
			return MCP_E_SYSTEM;
	}

	n = c->lim.tools;
	if ((c->rbuf = malloc(MCP_LINE_BUF(c))) == NULL ||
	    (c->cbuf = malloc(MCP_LINE_BUF(c))) == NULL ||
	    (c->wbuf = malloc(MCP_REQUEST_BYTES)) == NULL ||
	    (c->tools = calloc(n, sizeof(*c->tools))) == NULL ||
	    (c->scratch = calloc(n, sizeof(*c->scratch))) == NULL ||
	    (c->allow = calloc(n, sizeof(*c->allow))) == NULL ||
	    (c->schemas = calloc(n, sizeof(*c->schemas))) == NULL ||
	    (c->cursors = calloc(c->lim.pages, sizeof(*c->cursors))) == NULL) {
		mcp_close(c);
		return MCP_E_SYSTEM;
	}
	c->wfd = wfd;
	c->rfd = rfd;
	c->next_id = 1;
	c->state = MCP_ST_OPEN;
	c->fatal = MCP_OK;
	return MCP_OK;
}

/* Configure a tool name; only before the first byte goes to the server. */
enum mcp_error
mcp_allow(struct mcp_client *c, const char *name)
{
	size_t		 i;

	if (c->state != MCP_ST_OPEN)
		return MCP_E_STATE;
	if (name == NULL || !mcp_name_ok(name))
		return MCP_E_INVAL;
	for (i = 0; i < c->nallow; i++)
		if (strcmp(c->allow[i], name) == 0)
			return MCP_OK;
	if (c->nallow >= c->lim.tools)
		return MCP_E_INVAL;
	strlcpy(c->allow[c->nallow++], name, MCP_NAME_BYTES);
	return MCP_OK;
}

enum mcp_error
mcp_initialize(struct mcp_client *c)
{
	struct mcp_buf	 b;
	struct mcp_msg	 m;
	uint64_t	 id;
	enum mcp_error	 e;

	if (c->state == MCP_ST_DEAD)
		return c->fatal;
	if (c->state != MCP_ST_OPEN)
		return MCP_E_STATE;
	if ((e = mcp_begin(c)) != MCP_OK)
		return mcp_fail(c, e);

	mcp_req_open(c, &b, "initialize", &id);
	mcp_puts(&b, "{\"protocolVersion\":\"" MCP_PROTOCOL_VERSION "\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"" MCP_CLIENT_NAME
	    "\",\"version\":\"" MCP_CLIENT_VERSION "\"}}");
	if ((e = mcp_req_close(&b)) != MCP_OK ||
	    (e = mcp_exchange(c, &b, id, &m)) != MCP_OK ||
	    (e = mcp_check_init(c, &m)) != MCP_OK)
		return mcp_fail(c, e);

	/* Same operation, same deadline. */
	if ((e = mcp_send(c, mcp_initialized, sizeof(mcp_initialized) - 1)) !=
	    MCP_OK)
		return mcp_fail(c, e);
	c->state = MCP_ST_INITIALIZED;
	return MCP_OK;
}

/*
 * Read the whole tool list, as one operation with one deadline and one
 * budget of interleaved messages.  A list_changed during a listing means
 * the pages may not belong together: the listing starts over, at most
 * MCP_RELISTS_MAX more times.  The first complete list is pinned; a later
 * one goes through mcp_repin().
 */
enum mcp_error
mcp_list_tools(struct mcp_client *c)
{
	uint8_t		 hash[SHA256_DIGEST_BYTES];
	unsigned int	 round;
	enum mcp_error	 e;

	if (c->state == MCP_ST_DEAD)
		return c->fatal;
	if (c->state != MCP_ST_INITIALIZED && c->state != MCP_ST_READY)
		return MCP_E_STATE;
	if ((e = mcp_begin(c)) != MCP_OK)
		return mcp_fail(c, e);
	for (round = 0;; round++) {
		c->list_changed = 0;
		if ((e = mcp_list_once(c)) != MCP_OK)
			return mcp_fail(c, e);
		if (!c->list_changed)
			break;
		if (round == MCP_RELISTS_MAX)
			return mcp_fail(c, MCP_E_CHANGED);
	}
	c->listings++;

	/*
	 * heapsort(3), not qsort: glibc's qsort asks the kernel for the size
	 * of physical memory (sysinfo) once a list no longer sorts on the
	 * stack, from 58 tools on; the gateway's filter has no reason to
	 * allow that.
	 */
	if (heapsort(c->scratch, c->nscratch, sizeof(*c->scratch),
	    mcp_tool_cmp) == -1)
		return mcp_fail(c, MCP_E_SYSTEM);
	mcp_list_hash(c->scratch, c->nscratch, hash);
	if (c->pinned)
		return mcp_repin(c, hash);
	mcp_swap_scratch(c, hash);
	c->pinned = 1;
	c->state = MCP_ST_READY;
	return MCP_OK;
}

/*
 * One listing, every page, into scratch.  The cursor goes back exactly as
 * it came; a cursor seen before in the same listing would loop, and is
 * refused (its digest is what is remembered).
 */
static enum mcp_error
mcp_list_once(struct mcp_client *c)
{
	struct mcp_buf	 b;
	struct mcp_msg	 m;
	char		 cursor[MCP_CURSOR_BYTES];
	size_t		 cursorlen = 0, v, end;
	uint64_t	 id;
	unsigned int	 page, i;
	enum mcp_error	 e;

	c->nscratch = 0;
	for (page = 0;; page++) {
		if (page >= c->lim.pages)
			return MCP_E_PAGES;
		mcp_req_open(c, &b, "tools/list", &id);
		if (page > 0) {
			mcp_puts(&b, "{\"cursor\":");
			mcp_put(&b, cursor, cursorlen);
			mcp_puts(&b, "}");
		} else
			mcp_puts(&b, "{}");
		if ((e = mcp_req_close(&b)) != MCP_OK ||
		    (e = mcp_exchange(c, &b, id, &m)) != MCP_OK ||
		    (e = mcp_page(c, &m)) != MCP_OK)
			return e;

		if (!mcp_get(m.b, m.len, m.result, "nextCursor", &v))
			return MCP_OK;
		end = json_value_end(m.b, m.len, v);
		if (json_type(m.b, m.len, v) != JSON_STRING ||
		    end - v > sizeof(cursor))
			return MCP_E_PROTOCOL;
		memcpy(cursor, m.b + v, end - v);
		cursorlen = end - v;
		sha256(cursor, cursorlen, c->cursors[page]);
		for (i = 0; i < page; i++)
			if (memcmp(c->cursors[i], c->cursors[page],
			    sizeof(c->cursors[i])) == 0)
				return MCP_E_CURSOR;
	}
}

/*
 * A listing after the pin.  Every configured tool must be as pinned: the
 * same definition (digest), listed then and now or neither; otherwise the
 * server changed what the operator approved under a running session.
 * Anything else may change; the new list becomes the pin.
 */
static enum mcp_error
mcp_repin(struct mcp_client *c, const uint8_t hash[SHA256_DIGEST_BYTES])
{
	const struct mcp_tool	*was, *now;
	size_t			 i;

	c->relists++;
	for (i = 0; i < c->nallow; i++) {
		was = mcp_find(c->tools, c->ntools, c->allow[i]);
		now = mcp_find(c->scratch, c->nscratch, c->allow[i]);
		if (was == NULL && now == NULL)
			continue;
		if (was != NULL && now != NULL &&
		    memcmp(was->digest, now->digest, sizeof(was->digest)) == 0)
			continue;
		strlcpy(c->changed, c->allow[i], sizeof(c->changed));
		memset(c->changed_was, 0, sizeof(c->changed_was));
		memset(c->changed_now, 0, sizeof(c->changed_now));
		if (was != NULL)
			memcpy(c->changed_was, was->digest,
			    sizeof(c->changed_was));
		if (now != NULL)
			memcpy(c->changed_now, now->digest,
			    sizeof(c->changed_now));
		return mcp_fail(c, MCP_E_CHANGED);
	}
	if (memcmp(hash, c->pin, sizeof(c->pin)) == 0)
		return MCP_OK;
	c->catalog_changes++;
	memcpy(c->prev_pin, c->pin, sizeof(c->prev_pin));
	mcp_swap_scratch(c, hash);
	return MCP_OK;
}

/* The list just read (sorted) becomes the pinned one. */
static void
mcp_swap_scratch(struct mcp_client *c, const uint8_t hash[SHA256_DIGEST_BYTES])
{
	struct mcp_tool	*t;

	t = c->tools;
	c->tools = c->scratch;
	c->scratch = t;
	c->ntools = c->nscratch;
	c->nscratch = 0;
	memcpy(c->pin, hash, sizeof(c->pin));
}

static const struct mcp_tool *
mcp_find(const struct mcp_tool *tools, size_t n, const char *name)
{
	struct mcp_tool	 key;

	if (strlcpy(key.name, name, sizeof(key.name)) >= sizeof(key.name))
		return NULL;
	return bsearch(&key, tools, n, sizeof(*tools), mcp_tool_cmp);
}

/*
 * Call a tool that is both configured and discovered with args, one JSON
 * object.  On success result[0..*resultlen) holds the response's result
 * object as the server wrote it (strict JSON, within the line bound;
 * *resultlen is the capacity on entry) and *is_error its isError flag.
 * A list_changed the server sent before the call is acted on before it
 * goes out; one sent with the response, before the result is handed out:
 * a rug-pull ends the session either way, and the result is withheld.
 */
enum mcp_error
mcp_call(struct mcp_client *c, const char *name, const char *args,
    size_t argslen, char *result, size_t *resultlen, int *is_error)
{
	struct mcp_buf	 b;
	struct mcp_msg	 m;
	size_t		 end, len;
	uint64_t	 id;
	int		 flag;
	enum mcp_error	 e;

	if (c->state == MCP_ST_DEAD)
		return c->fatal;
	if (c->state != MCP_ST_READY)
		return MCP_E_STATE;
	if (name == NULL ||
	    (mcp_tool_state(c, name) & MCP_TOOL_CALLABLE) != MCP_TOOL_CALLABLE)
		return MCP_E_NOT_ALLOWED;
	if (args == NULL || !mcp_args_ok(args, argslen))
		return MCP_E_ARGS;
	/* The request is composed in wbuf, which a re-list would reuse. */
	if ((e = mcp_begin(c)) != MCP_OK || (e = mcp_drain(c)) != MCP_OK)
		return mcp_fail(c, e);
	if (c->list_changed && (e = mcp_list_tools(c)) != MCP_OK)
		return e;

	/* The name passed mcp_name_ok(): nothing in it needs escaping. */
	mcp_req_open(c, &b, "tools/call", &id);
	mcp_puts(&b, "{\"name\":\"");
	mcp_puts(&b, name);
	mcp_puts(&b, "\",\"arguments\":");
	mcp_put(&b, args, argslen);
	mcp_puts(&b, "}");
	if ((e = mcp_req_close(&b)) != MCP_OK)
		return e;		/* nothing was sent */

	if ((e = mcp_begin(c)) != MCP_OK ||
	    (e = mcp_send(c, b.p, b.len)) != MCP_OK)
		return mcp_fail(c, e);
	c->calls++;
	if ((e = mcp_await(c, id, &m)) != MCP_OK) {
		if (e == MCP_E_TIMEOUT)
			mcp_cancel(c, id);
		return e == MCP_E_RPC_ERROR ? e : mcp_fail(c, e);
	}
	if ((e = mcp_check_call(&m, &flag)) != MCP_OK)
		return mcp_fail(c, e);

	/* The exchange is complete; a short buffer is the caller's matter. */
	end = json_value_end(m.b, m.len, m.result);
	len = end - m.result;
	if (len <= *resultlen)
		memcpy(result, m.b + m.result, len);
	if (c->list_changed && (e = mcp_list_tools(c)) != MCP_OK) {
		if (len <= *resultlen)
			explicit_bzero(result, len);
		return e;
	}
	if (len > *resultlen)
		return MCP_E_TOO_LARGE;
	*resultlen = len;
	if (is_error != NULL)
		*is_error = flag;
	return MCP_OK;
}

/*
 * Frees everything and closes both descriptors, a stream's one socket
 * once; c can be opened again.  The stream's write side is shut down
 * first: the server's stdin ends even if another process still holds
 * the socket.  If that fails the server is gone already.
 */
void
mcp_close(struct mcp_client *c)
{
	size_t	 i;

	if (c->wfd != -1) {
		if (c->stream)
			(void)shutdown(c->wfd, SHUT_WR);
		close(c->wfd);
	}
	if (c->rfd != -1 && c->rfd != c->wfd)
		close(c->rfd);
	if (c->head != NULL)
		freezero(c->head, c->headlen);
	if (c->rbuf != NULL)
		freezero(c->rbuf, MCP_LINE_BUF(c));
	if (c->cbuf != NULL)
		freezero(c->cbuf, MCP_LINE_BUF(c));
	if (c->wbuf != NULL)
		freezero(c->wbuf, MCP_REQUEST_BYTES);
	free(c->tools);
	free(c->scratch);
	free(c->allow);
	if (c->schemas != NULL)
		for (i = 0; i < c->nallow; i++)
			free(c->schemas[i].s);
	free(c->schemas);
	free(c->cursors);
	memset(c, 0, sizeof(*c));
	c->wfd = c->rfd = -1;
	c->state = MCP_ST_DEAD;
	c->fatal = MCP_E_CLOSED;
}

/*
 * No operation's deadline passes end (CLOCK_MONOTONIC), the end of the
 * session, whatever the server's timeout: a call is not waited for after
 * the session it belongs to.
 */
void
mcp_set_end(struct mcp_client *c, const struct timespec *end)
{
	c->end = *end;
}

/* The pinned hash of the tool list, NULL before the first list. */
const uint8_t *
mcp_tools_hash(const struct mcp_client *c)
{
	return c->pinned ? c->pin : NULL;
}

int
mcp_tool_state(const struct mcp_client *c, const char *name)
{
	size_t		 i;
	int		 flags = 0;

	for (i = 0; i < c->nallow; i++)
		if (strcmp(c->allow[i], name) == 0) {
			flags |= MCP_TOOL_CONFIGURED;
			break;
		}
	if (c->pinned && mcp_find(c->tools, c->ntools, name) != NULL)
		flags |= MCP_TOOL_DISCOVERED;
	return flags;
}

/*
 * A configured tool's input schema, canonical, as the server listed it
 * when the list was pinned: 0 with *schema and *len, -1 when the tool is
 * not configured or was not listed.
 */
int
mcp_tool_schema(const struct mcp_client *c, const char *name,
    const char **schema, size_t *len)
{
	size_t	 i;

	if (!c->pinned)
		return -1;
	for (i = 0; i < c->nallow; i++)
		if (strcmp(c->allow[i], name) == 0)
			break;
	if (i == c->nallow || c->schemas[i].s == NULL ||
	    mcp_find(c->tools, c->ntools, name) == NULL)
		return -1;
	*schema = c->schemas[i].s;
	*len = c->schemas[i].len;
	return 0;
}

const char *
mcp_strerror(enum mcp_error e)
{
	if (e < MCP_OK || e >= MCP_E_MAX)
		return "unknown error";
	return mcp_errstr[e];
}

/* The session is over: every later operation returns e. */
static enum mcp_error
mcp_fail(struct mcp_client *c, enum mcp_error e)
{
	c->state = MCP_ST_DEAD;
	c->fatal = e;
	return e;
}

static enum mcp_error
mcp_begin(struct mcp_client *c)
{
	struct timespec	 add;

	if (clock_gettime(CLOCK_MONOTONIC, &c->deadline) == -1)
		return MCP_E_SYSTEM;
	ms_to_timespec(c->lim.timeout_ms, &add);
	timespecadd(&c->deadline, &add, &c->deadline);
	if (timespecisset(&c->end) &&
	    timespeccmp(&c->end, &c->deadline, <))
		c->deadline = c->end;
	c->interleaved = 0;
	return MCP_OK;
}

/* Milliseconds to the deadline, rounded up so poll never wakes early. */
static enum mcp_error
mcp_remaining(const struct mcp_client *c, int *ms)
{
	struct timespec	 now;
	int64_t		 ns;

	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		return MCP_E_SYSTEM;
	ns = (int64_t)(c->deadline.tv_sec - now.tv_sec) * 1000000000 +
	    (c->deadline.tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return MCP_E_TIMEOUT;
	*ms = (int)((ns + 999999) / 1000000);
	return MCP_OK;
}

/* Until fd is ready for events, or the operation's deadline. */
static enum mcp_error
mcp_poll(struct mcp_client *c, int fd, short events)
{
	struct pollfd	 pfd;
	int		 ms;
	enum mcp_error	 e;

	for (;;) {
		if ((e = mcp_remaining(c, &ms)) != MCP_OK)
			return e;
		pfd.fd = fd;
		pfd.events = events;
		pfd.revents = 0;
		switch (poll(&pfd, 1, ms)) {
		case -1:
			if (errno == EINTR)
				continue;
			return MCP_E_SYSTEM;
		case 0:
			return MCP_E_TIMEOUT;
		}
		return (pfd.revents & POLLNVAL) ? MCP_E_SYSTEM : MCP_OK;
	}
}

static enum mcp_error
mcp_send(struct mcp_client *c, const char *buf, size_t len)
{
	ssize_t		 n;
	size_t		 off = 0;
	enum mcp_error	 e;

	while (off < len) {
		if ((e = mcp_poll(c, c->wfd, POLLOUT)) != MCP_OK)
			return e;
		if ((n = mcp_write(c, buf + off, len - off)) == -1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			if (errno == EPIPE)
				return MCP_E_CLOSED;
			return MCP_E_SYSTEM;
		}
		off += n;
	}
	return MCP_OK;
}

/*
 * On a stream send(2) (sendto), MSG_NOSIGNAL: a closed peer is EPIPE,
 * never a signal.
 */
static ssize_t
mcp_write(const struct mcp_client *c, const void *buf, size_t len)
{
	if (c->stream)
		return send(c->wfd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	return write(c->wfd, buf, len);
}

/*
 * On a stream recvmsg(2), which the sandbox allows (recv(2) would be
 * recvfrom).  No control buffer: a descriptor sent along is discarded.
 */
static ssize_t
mcp_read(const struct mcp_client *c, void *buf, size_t len)
{
	struct msghdr	 msg;
	struct iovec	 iov;

	if (!c->stream)
		return read(c->rfd, buf, len);
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	return recvmsg(c->rfd, &msg, MSG_DONTWAIT);
}

/*
 * A complete line already in rbuf: 1 with it (without its newline, valid
 * until the next read), 0 when none is.  A line is refused as soon as
 * more than response_bytes of it are held, without waiting for its end.
 */
static int
mcp_bufline(struct mcp_client *c, const char **line, size_t *len)
{
	const char	*nl;

	if (c->rskip > 0) {
		memmove(c->rbuf, c->rbuf + c->rskip, c->rlen - c->rskip);
		c->rlen -= c->rskip;
		c->rskip = 0;
		c->rscan = 0;
	}
	nl = memchr(c->rbuf + c->rscan, '\n', c->rlen - c->rscan);
	if (nl == NULL) {
		c->rscan = c->rlen;
		return 0;
	}
	*line = c->rbuf;
	*len = nl - c->rbuf;
	c->rskip = *len + 1;
	return 1;
}

/* The next line, waiting for it until the deadline. */
static enum mcp_error
mcp_readline(struct mcp_client *c, const char **line, size_t *len)
{
	size_t		 got;
	int		 ms;
	enum mcp_error	 e;

	for (;;) {
		if (mcp_bufline(c, line, len))
			return MCP_OK;
		if (c->rlen > c->lim.response_bytes)
			return MCP_E_TOO_LARGE;

		/* The bytes that came with the stream's open need no wait. */
		if (c->head != NULL)
			e = mcp_remaining(c, &ms);
		else
			e = mcp_poll(c, c->rfd, POLLIN);
		if (e != MCP_OK)
			return e;
		if ((e = mcp_fill(c, &got)) != MCP_OK)
			return e;
	}
}

/*
 * One read of what the server wrote, into rbuf after what it holds:
 * MCP_OK with the count of bytes taken in *got, 0 when nothing was there
 * yet.  From a stream they are taken first from the bytes that came with
 * the open, and only the stdout payload among them stays in rbuf, so
 * *got may be more than rbuf grew by.  Either way no more is taken than
 * rbuf has room for: the line bound is the pipe's.
 */
static enum mcp_error
mcp_fill(struct mcp_client *c, size_t *got)
{
	size_t	 room = MCP_LINE_BUF(c) - c->rlen, n;
	ssize_t	 r;

	*got = 0;
	if (c->head != NULL) {
		n = c->headlen - c->headoff;
		if (n > room)
			n = room;
		memcpy(c->rbuf + c->rlen, c->head + c->headoff, n);
		c->headoff += n;
		/* It may hold stderr: kept no longer than needed. */
		if (c->headoff == c->headlen) {
			freezero(c->head, c->headlen);
			c->head = NULL;
		}
	} else {
		if ((r = mcp_read(c, c->rbuf + c->rlen, room)) == -1)
			return errno == EAGAIN || errno == EINTR ? MCP_OK :
			    MCP_E_SYSTEM;
		if (r == 0)
			return MCP_E_CLOSED;
		n = r;
	}
	*got = n;
	if (c->stream)
		return mcp_demux(c, n);
	c->rlen += n;
	return MCP_OK;
}

/*
 * Demultiplex the n stream bytes just placed at rbuf + rlen, in place: the
 * stdout payload moves down to follow what rbuf holds (never past where it
 * is: the headers and stderr left out only make room), stderr is counted
 * and dropped, and what is left behind is wiped, so no stderr byte stays
 * in rbuf.  A frame or its header may be split anywhere between calls.
 */
static enum mcp_error
mcp_demux(struct mcp_client *c, size_t n)
{
	struct mcp_demux	*d = &c->dmx;
	char			*p, *end, *out;
	size_t			 take;
	enum mcp_error		 e = MCP_OK;

	p = out = c->rbuf + c->rlen;
	end = p + n;

	while (p < end) {
		if (d->left == 0) {
			take = STREAM_HEADER_BYTES - d->hdrlen;
			if (take > (size_t)(end - p))
				take = end - p;
			memcpy(d->hdr + d->hdrlen, p, take);
			d->hdrlen += take;
			p += take;
			if (d->hdrlen < STREAM_HEADER_BYTES)
				break;
			d->hdrlen = 0;
			if ((e = mcp_frame(d)) != MCP_OK)
				break;
			continue;
		}
		take = d->left;
		if (take > (size_t)(end - p))
			take = end - p;
		if (d->type == STREAM_STDOUT) {
			memmove(out, p, take);
			out += take;
		} else if (take > MCP_STDERR_BYTES - c->stderr_bytes) {
			c->stderr_bytes = MCP_STDERR_BYTES + 1;
			e = MCP_E_STDERR;
			break;
		} else
			c->stderr_bytes += take;
		d->left -= take;
		p += take;
	}
	explicit_bzero(out, end - out);
	c->rlen = out - c->rbuf;
	return e;
}

/*
 * A frame header just read: stdout or stderr (stdin, 0, and the engine's
 * own errors, 3, never come from the container), three zero bytes, and a
 * size the engine would write: no frame is buffered, but one larger than
 * any the engine sends is not from it.
 */
static enum mcp_error
mcp_frame(struct mcp_demux *d)
{
	const unsigned char	*h = d->hdr;
	size_t			 size;

	if (h[0] != STREAM_STDOUT && h[0] != STREAM_STDERR)
		return MCP_E_STREAM;
	if (h[1] != 0 || h[2] != 0 || h[3] != 0)
		return MCP_E_STREAM;
	size = (size_t)h[4] << 24 | (size_t)h[5] << 16 | (size_t)h[6] << 8 |
	    (size_t)h[7];
	if (size > STREAM_FRAME_BYTES)
		return MCP_E_STREAM;
	d->type = h[0];
	d->left = size;
	return MCP_OK;
}

/*
 * One line from the server, validated before anything reads it.  A
 * server message is handled here (*root is then SIZE_MAX); a response
 * is left to the caller to match, *root the offset of its object.
 */
static enum mcp_error
mcp_message(struct mcp_client *c, const char *b, size_t len, size_t *root)
{
	struct json_limits	 jl;
	const char		*why;
	size_t			 r, v;
	enum mcp_error		 e;

	jl.max_bytes = c->lim.response_bytes;
	jl.max_depth = MCP_JSON_DEPTH;
	if (json_validate(b, len, &jl, &why) == -1)
		return MCP_E_SYNTAX;
	r = json_skip_ws(b, len, 0);
	if (!mcp_get(b, len, r, "jsonrpc", &v) ||
	    !mcp_is(b, len, v, "2.0", JSON_STRING))
		return MCP_E_PROTOCOL;
	if (mcp_get(b, len, r, "method", &v)) {
		if ((e = mcp_peer_message(c, b, len, r)) != MCP_OK)
			return e;
		*root = SIZE_MAX;
		return MCP_OK;
	}
	*root = r;
	return MCP_OK;
}

/*
 * Read until the response to request id, counting, answering or refusing
 * what comes first.
 */
static enum mcp_error
mcp_await(struct mcp_client *c, uint64_t id, struct mcp_msg *m)
{
	const char	*b;
	size_t		 len, root;
	enum mcp_error	 e;

	for (;;) {
		if ((e = mcp_readline(c, &b, &len)) != MCP_OK ||
		    (e = mcp_message(c, b, len, &root)) != MCP_OK)
			return e;
		if (root == SIZE_MAX)
			continue;
		if ((e = mcp_response(b, len, root, id, &m->result)) != MCP_OK)
			return e;
		m->b = b;
		m->len = len;
		return MCP_OK;
	}
}

/*
 * A response must carry exactly the outstanding id as a JSON integer:
 * the raw token is compared, so true, 1.0, 1e0, "1" and null all fail.
 */
static enum mcp_error
mcp_response(const char *b, size_t len, size_t root, uint64_t id,
    size_t *result)
{
	static const char *const members[] = {
		"jsonrpc", "id", "result", "error", NULL
	};
	char		 want[MCP_ID_BYTES];
	size_t		 v, r, err;
	int		 n, has_r, has_err;

	n = snprintf(want, sizeof(want), "%" PRIu64, id);
	if (n < 0 || (size_t)n >= sizeof(want))
		return MCP_E_SYSTEM;
	if (!mcp_get(b, len, root, "id", &v) ||
	    json_value_end(b, len, v) - v != (size_t)n ||
	    memcmp(b + v, want, n) != 0)
		return MCP_E_ID;
	if (!mcp_only_members(b, len, root, members))
		return MCP_E_PROTOCOL;

	has_r = mcp_get(b, len, root, "result", &r);
	has_err = mcp_get(b, len, root, "error", &err);
	if (has_r && has_err)
		return MCP_E_PROTOCOL;
	if (has_err)
		return json_type(b, len, err) == JSON_OBJECT ?
		    MCP_E_RPC_ERROR : MCP_E_PROTOCOL;
	if (!has_r || json_type(b, len, r) != JSON_OBJECT)
		return MCP_E_RESULT;
	*result = r;
	return MCP_OK;
}

/*
 * A notification or request from the server while we wait.  None is acted
 * on: notifications are counted (list_changed is also noted, for the
 * listing or the call to act on), ping gets its empty result, every other
 * request an error answer, and the operation is refused.
 */
static enum mcp_error
mcp_peer_message(struct mcp_client *c, const char *b, size_t len,
    size_t root)
{
	static const char *const members[] = {
		"jsonrpc", "id", "method", "params", NULL
	};
	struct mcp_buf	 w;
	size_t		 method, params, id, idlen;
	int		 ping;
	enum mcp_error	 e;

	if (++c->interleaved > MCP_NOTIFICATIONS)
		return MCP_E_NOTIFICATIONS;
	if (!mcp_only_members(b, len, root, members) ||
	    !mcp_get(b, len, root, "method", &method) ||
	    json_type(b, len, method) != JSON_STRING ||
	    (mcp_get(b, len, root, "params", &params) &&
	    json_type(b, len, params) != JSON_OBJECT))
		return MCP_E_PROTOCOL;

	if (!mcp_get(b, len, root, "id", &id)) {
		if (json_string_equal(b, len, method, MCP_LIST_CHANGED))
			c->list_changed = 1;
		c->notifications++;
		return MCP_OK;
	}

	/* The answer carries the request's id as written: string or integer. */
	idlen = json_value_end(b, len, id) - id;
	if (idlen > MCP_PEER_ID_BYTES ||
	    (json_type(b, len, id) != JSON_STRING &&
	    !mcp_is_integer(b + id, idlen)))
		return MCP_E_PROTOCOL;
	ping = json_string_equal(b, len, method, "ping");
	w.p = c->wbuf;
	w.len = 0;
	w.cap = MCP_REQUEST_BYTES;
	w.over = 0;
	mcp_puts(&w, "{\"jsonrpc\":\"2.0\",\"id\":");
	mcp_put(&w, b + id, idlen);
	if (ping)
		mcp_puts(&w, ",\"result\":{}}\n");
	else
		mcp_puts(&w, ",\"error\":{\"code\":" MCP_METHOD_NOT_FOUND
		    ",\"message\":\"Method not found\"}}\n");
	if (w.over)
		return MCP_E_SYSTEM;
	if ((e = mcp_send(c, w.p, w.len)) != MCP_OK)
		return e;
	if (!ping)
		return MCP_E_SERVER_REQUEST;
	c->pings++;
	return MCP_OK;
}

static enum mcp_error
mcp_exchange(struct mcp_client *c, struct mcp_buf *b, uint64_t id,
    struct mcp_msg *m)
{
	enum mcp_error	 e;

	if ((e = mcp_send(c, b->p, b->len)) != MCP_OK)
		return e;
	if ((e = mcp_await(c, id, m)) == MCP_E_TIMEOUT)
		mcp_cancel(c, id);
	return e;
}

/*
 * Between operations nothing reads the server's output.  Handle the
 * server messages it has written meanwhile, without waiting for more.  A
 * response is left where it is, for the next operation to match (a stale
 * one is refused then), and so is an incomplete line.
 */
static enum mcp_error
mcp_drain(struct mcp_client *c)
{
	const char	*b;
	size_t		 len, root, got;
	int		 ms;
	enum mcp_error	 e;

	for (;;) {
		while (mcp_bufline(c, &b, &len)) {
			if ((e = mcp_message(c, b, len, &root)) != MCP_OK)
				return e;
			if (root != SIZE_MAX) {
				c->rskip = 0;	/* read it again */
				c->rscan = 0;
				return MCP_OK;
			}
		}
		if (c->rlen > c->lim.response_bytes)
			return MCP_E_TOO_LARGE;
		/*
		 * Frames without payload fill nothing and so would keep it
		 * reading for ever: the call's deadline holds here too.
		 */
		if ((e = mcp_remaining(c, &ms)) != MCP_OK ||
		    (e = mcp_fill(c, &got)) != MCP_OK || got == 0)
			return e;
	}
}

/*
 * Tell the server that request id is abandoned.  The stream is about to
 * be closed, so one write is tried and its outcome does not matter.
 */
static void
mcp_cancel(struct mcp_client *c, uint64_t id)
{
	char	 line[160];
	int	 n;

	/* The initialize request is never cancelled (MCP lifecycle). */
	if (c->state == MCP_ST_OPEN)
		return;
	n = snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"method\":\""
	    MCP_CANCELLED "\",\"params\":{\"requestId\":%" PRIu64
	    ",\"reason\":\"timeout\"}}\n", id);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if (mcp_write(c, line, n) == n)
		c->cancels++;
}

/*
 * InitializeResult: one of our versions (the server may answer an older
 * one than we offered), a tools capability, a serverInfo.
 */
static enum mcp_error
mcp_check_init(struct mcp_client *c, const struct mcp_msg *m)
{
	const char	*b = m->b;
	size_t		 len = m->len, v, caps, info, i;

	if (!mcp_get(b, len, m->result, "protocolVersion", &v) ||
	    json_type(b, len, v) != JSON_STRING)
		return MCP_E_PROTOCOL;
	for (i = 0; i < nitems(mcp_versions); i++)
		if (json_string_equal(b, len, v, mcp_versions[i]))
			break;
	if (i == nitems(mcp_versions))
		return MCP_E_VERSION;
	c->version = mcp_versions[i];
	if (!mcp_get(b, len, m->result, "capabilities", &caps) ||
	    !mcp_get(b, len, caps, "tools", &v) ||
	    json_type(b, len, v) != JSON_OBJECT)
		return MCP_E_PROTOCOL;
	if (!mcp_get(b, len, m->result, "serverInfo", &info) ||
	    !mcp_get(b, len, info, "name", &v) ||
	    json_type(b, len, v) != JSON_STRING ||
	    !mcp_get(b, len, info, "version", &v) ||
	    json_type(b, len, v) != JSON_STRING)
		return MCP_E_PROTOCOL;
	if (mcp_get(b, len, m->result, "instructions", &v) &&
	    json_type(b, len, v) != JSON_STRING)
		return MCP_E_PROTOCOL;
	return MCP_OK;
}

/*
 * Add one page of tools to scratch.  Each tool's digest is the SHA-256 of
 * the canonical form (json_canonical()) of its whole definition, so an
 * operator can compute the same pin from the server's output.
 */
static enum mcp_error
mcp_page(struct mcp_client *c, const struct mcp_msg *m)
{
	struct json_limits jl;
	struct mcp_tool	*t;
	const char	*b = m->b, *why;
	size_t		 len = m->len, list, it, tool, v, n, i, clen;

	if (!mcp_get(b, len, m->result, "tools", &list) ||
	    json_type(b, len, list) != JSON_ARRAY)
		return MCP_E_TOOLS;
	jl.max_bytes = c->lim.response_bytes;
	jl.max_depth = MCP_JSON_DEPTH;
	it = list;
	while (json_element_next(b, len, &it, &tool)) {
		if (c->nscratch >= c->lim.tools)
			return MCP_E_TOOL_COUNT;
		t = &c->scratch[c->nscratch];
		if (json_type(b, len, tool) != JSON_OBJECT ||
		    !mcp_get(b, len, tool, "name", &v) ||
		    json_type(b, len, v) != JSON_STRING ||
		    json_string_copy(b, len, v, t->name, sizeof(t->name),
		    &n) == -1 || n != strlen(t->name) ||
		    !mcp_name_ok(t->name) || !mcp_tool_ok(b, len, tool))
			return MCP_E_TOOLS;
		for (i = 0; i < c->nscratch; i++)
			if (strcmp(c->scratch[i].name, t->name) == 0)
				return MCP_E_TOOLS;
		if (json_canonical(b + tool, json_value_end(b, len, tool) - tool,
		    &jl, c->cbuf, MCP_LINE_BUF(c), &clen, &why) == -1)
			return MCP_E_TOOLS;
		sha256(c->cbuf, clen, t->digest);
		if (!c->pinned && mcp_keep_schema(c, b, len, tool, t->name) ==
		    -1)
			return MCP_E_TOOLS;
		c->nscratch++;
	}
	return MCP_OK;
}

/*
 * Until the pin, a configured tool's input schema is kept, canonical:
 * it is what an MCP agent is shown of the tool when the operator gave no
 * schema (gateway.c strips it of its text).  After the pin the
 * definition of a configured tool cannot change without ending the
 * session, so the schema kept stays the one pinned.
 */
static int
mcp_keep_schema(struct mcp_client *c, const char *b, size_t len,
    size_t tool, const char *name)
{
	struct json_limits	 jl;
	struct mcp_schema	*ms;
	const char		*why;
	size_t			 i, v, clen;
	char			*s;

	for (i = 0; i < c->nallow; i++)
		if (strcmp(c->allow[i], name) == 0)
			break;
	if (i == c->nallow)
		return 0;
	if (!mcp_get(b, len, tool, "inputSchema", &v))
		return -1;
	jl.max_bytes = c->lim.response_bytes;
	jl.max_depth = MCP_JSON_DEPTH;
	if (json_canonical(b + v, json_value_end(b, len, v) - v, &jl,
	    c->cbuf, MCP_LINE_BUF(c), &clen, &why) == -1)
		return -1;
	if ((s = malloc(clen + 1)) == NULL)
		return -1;
	memcpy(s, c->cbuf, clen);
	s[clen] = '\0';
	ms = &c->schemas[i];
	free(ms->s);
	ms->s = s;
	ms->len = clen;
	return 0;
}

/*
 * The members of a Tool definition (MCP 2025-11-25) that have a type:
 * inputSchema is required, the others optional.  None of them is read:
 * they are untrusted text, pinned with the rest of the definition.
 */
static int
mcp_tool_ok(const char *b, size_t len, size_t tool)
{
	static const struct {
		const char	*name;
		enum json_type	 type;
	} members[] = {
		{ "title",		JSON_STRING },
		{ "description",	JSON_STRING },
		{ "outputSchema",	JSON_OBJECT },
		{ "annotations",	JSON_OBJECT },
		{ "icons",		JSON_ARRAY },
		{ "execution",		JSON_OBJECT },
		{ "_meta",		JSON_OBJECT },
	};
	size_t		 i, v;

	if (!mcp_get(b, len, tool, "inputSchema", &v) ||
	    json_type(b, len, v) != JSON_OBJECT)
		return 0;
	for (i = 0; i < nitems(members); i++)
		if (mcp_get(b, len, tool, members[i].name, &v) &&
		    json_type(b, len, v) != members[i].type)
			return 0;
	return 1;
}

/* CallToolResult: content is required; isError and structuredContent typed. */
static enum mcp_error
mcp_check_call(const struct mcp_msg *m, int *is_error)
{
	const char	*b = m->b;
	size_t		 len = m->len, v;
	enum json_type	 type;

	if (!mcp_get(b, len, m->result, "content", &v) ||
	    json_type(b, len, v) != JSON_ARRAY)
		return MCP_E_RESULT;
	*is_error = 0;
	if (mcp_get(b, len, m->result, "isError", &v)) {
		type = json_type(b, len, v);
		if (type != JSON_TRUE && type != JSON_FALSE)
			return MCP_E_RESULT;
		*is_error = type == JSON_TRUE;
	}
	if (mcp_get(b, len, m->result, "structuredContent", &v) &&
	    json_type(b, len, v) != JSON_OBJECT)
		return MCP_E_RESULT;
	return MCP_OK;
}

/*
 * The pin: a domain string, the count, then each tool in name order as
 * its name (length first) and the digest of its definition.
 */
static void
mcp_list_hash(struct mcp_tool *tools, size_t n,
    uint8_t out[SHA256_DIGEST_BYTES])
{
	struct sha256_ctx ctx;
	char		 num[MCP_ID_BYTES];
	size_t		 i;
	int		 len;

	sha256_init(&ctx);
	mcp_hash_bytes(&ctx, MCP_PIN_DOMAIN, strlen(MCP_PIN_DOMAIN));
	len = snprintf(num, sizeof(num), "%zu", n);
	if (len > 0 && (size_t)len < sizeof(num))
		mcp_hash_bytes(&ctx, num, len);
	for (i = 0; i < n; i++) {
		mcp_hash_bytes(&ctx, tools[i].name, strlen(tools[i].name));
		sha256_update(&ctx, tools[i].digest, sizeof(tools[i].digest));
	}
	sha256_final(&ctx, out);
}

/* Bytes with their length in front, so no two sequences run together. */
static void
mcp_hash_bytes(struct sha256_ctx *ctx, const char *p, size_t n)
{
	uint8_t		 b[8];
	int		 i;

	for (i = 0; i < 8; i++)
		b[7 - i] = (uint64_t)n >> (8 * i);
	sha256_update(ctx, b, sizeof(b));
	sha256_update(ctx, p, n);
}

static int
mcp_tool_cmp(const void *a, const void *b)
{
	const struct mcp_tool *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * Tool names as the configuration grammar allows them: printable ASCII
 * without quote or backslash, under MCP_NAME_BYTES.  Such a name is safe
 * to log and to put in a request without escaping.
 */
static int
mcp_name_ok(const char *s)
{
	size_t		 i;

	for (i = 0; s[i] != '\0'; i++)
		if (i + 1 >= MCP_NAME_BYTES || s[i] < 0x20 || s[i] > 0x7e ||
		    s[i] == '"' || s[i] == '\\')
			return 0;
	return i > 0;
}

/* The offset of member name's value if obj (an offset into b) has one. */
static int
mcp_get(const char *b, size_t len, size_t obj, const char *name,
    size_t *val)
{
	size_t		 it = obj, k, v;

	if (json_type(b, len, obj) != JSON_OBJECT)
		return 0;
	while (json_member_next(b, len, &it, &k, &v))
		if (json_string_equal(b, len, k, name)) {
			*val = v;
			return 1;
		}
	return 0;
}

static int
mcp_is(const char *b, size_t len, size_t v, const char *s,
    enum json_type type)
{
	return json_type(b, len, v) == type && json_string_equal(b, len, v, s);
}

/* Responses and server messages may carry no member of their own. */
static int
mcp_only_members(const char *b, size_t len, size_t obj,
    const char *const *names)
{
	size_t		 it = obj, k, v, i;

	while (json_member_next(b, len, &it, &k, &v)) {
		for (i = 0; names[i] != NULL; i++)
			if (json_string_equal(b, len, k, names[i]))
				break;
		if (names[i] == NULL)
			return 0;
	}
	return 1;
}

static int
mcp_is_integer(const char *p, size_t n)
{
	size_t		 i = 0;

	if (n > 0 && p[0] == '-')
		i++;
	if (i == n)
		return 0;
	for (; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	return 1;
}

/*
 * Arguments are embedded in the request as given: one strict JSON object
 * without a line break, which would end the message early.
 */
static int
mcp_args_ok(const char *args, size_t len)
{
	struct json_limits	 jl;
	const char		*why;

	jl.max_bytes = MCP_REQUEST_BYTES;
	jl.max_depth = MCP_JSON_DEPTH;
	return len > 0 && memchr(args, '\n', len) == NULL &&
	    memchr(args, '\r', len) == NULL &&
	    json_validate(args, len, &jl, &why) == 0 &&
	    json_type(args, len, json_skip_ws(args, len, 0)) == JSON_OBJECT;
}

static void
mcp_req_open(struct mcp_client *c, struct mcp_buf *b, const char *method,
    uint64_t *id)
{
	char		 num[MCP_ID_BYTES];
	int		 n;

	b->p = c->wbuf;
	b->len = 0;
	b->cap = MCP_REQUEST_BYTES;
	b->over = 0;
	*id = c->next_id++;
	n = snprintf(num, sizeof(num), "%" PRIu64, *id);
	if (n < 0 || (size_t)n >= sizeof(num)) {
		b->over = 1;
		return;
	}
	mcp_puts(b, "{\"jsonrpc\":\"2.0\",\"id\":");
	mcp_put(b, num, n);
	mcp_puts(b, ",\"method\":\"");
	mcp_puts(b, method);
	mcp_puts(b, "\",\"params\":");
}

static enum mcp_error
mcp_req_close(struct mcp_buf *b)
{
	mcp_puts(b, "}\n");
	return b->over ? MCP_E_TOO_LARGE : MCP_OK;
}

static void
mcp_put(struct mcp_buf *b, const char *s, size_t n)
{
	if (b->over || n > b->cap - b->len) {
		b->over = 1;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void
mcp_puts(struct mcp_buf *b, const char *s)
{
	mcp_put(b, s, strlen(s));
}
