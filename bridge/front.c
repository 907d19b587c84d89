/*
 * The MCP front door's byte-level rules (front.h).  A line is checked in
 * full by the strict validator (common/json.c) before anything of it is
 * read; then its members are taken one by one, each of a known name and
 * type, and everything the MCP revisions of FRONT_VERSION and
 * FRONT_VERSION_OLD do not define for a client to send is a violation.
 * Only two things of the line ever leave the bridge: a tools/call's name
 * and its arguments, in canonical form.  A request id is echoed as the
 * agent wrote it, so an id above 2^53 or a string with escapes comes back
 * byte for byte.
 */

#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include "cmcp.h"
#include "frame.h"
#include "front.h"
#include "json.h"

static const char *const front_strings[FRONT_CODE_MAX] = {
	[FRONT_OK] = "ok",
	[FRONT_TOO_LARGE] = "mcp_too_large",
	[FRONT_SYNTAX] = "mcp_syntax",
	[FRONT_TRAILING] = "mcp_trailing_data",
	[FRONT_UTF8] = "mcp_utf8",
	[FRONT_NUL] = "mcp_nul",
	[FRONT_DUPLICATE_KEY] = "mcp_duplicate_key",
	[FRONT_DEPTH] = "mcp_depth",
	[FRONT_WIDTH] = "mcp_width",
	[FRONT_BATCH] = "mcp_batch",
	[FRONT_NOT_OBJECT] = "mcp_not_object",
	[FRONT_JSONRPC] = "mcp_jsonrpc",
	[FRONT_MEMBERS] = "mcp_members",
	[FRONT_ID] = "mcp_id",
	[FRONT_RESPONSE] = "mcp_response",
	[FRONT_METHOD] = "mcp_method",
	[FRONT_PARAMS] = "mcp_params",
	[FRONT_TOOL] = "mcp_tool",
	[FRONT_ARGUMENTS] = "mcp_arguments",
};

/* The requests the front door serves, and the notifications it reads. */
static const struct {
	const char		*name;
	enum front_method	 method;
	int			 request;
} front_methods[] = {
	{ "initialize",			FRONT_M_INITIALIZE,	1 },
	{ "ping",			FRONT_M_PING,		1 },
	{ "tools/list",			FRONT_M_TOOLS_LIST,	1 },
	{ "tools/call",			FRONT_M_TOOLS_CALL,	1 },
	{ "notifications/initialized",	FRONT_M_INITIALIZED,	0 },
	{ "notifications/cancelled",	FRONT_M_CANCELLED,	0 },
};

/*
 * The members a params object may have, by method, and their types.
 * "_meta" is the protocol's own and may come with anything.
 */
struct front_member {
	const char	*name;
	enum json_type	 type;		/* JSON_INVALID: string or integer */
	int		 required;
};

static const struct front_member front_p_initialize[] = {
	{ "protocolVersion",	JSON_STRING,	1 },
	{ "capabilities",	JSON_OBJECT,	1 },
	{ "clientInfo",		JSON_OBJECT,	1 },
	{ NULL,			JSON_INVALID,	0 }
};
static const struct front_member front_p_call[] = {
	{ "name",		JSON_STRING,	1 },
	{ "arguments",		JSON_OBJECT,	0 },
	{ NULL,			JSON_INVALID,	0 }
};
static const struct front_member front_p_cancelled[] = {
	{ "requestId",		JSON_INVALID,	1 },
	{ "reason",		JSON_STRING,	0 },
	{ NULL,			JSON_INVALID,	0 }
};
static const struct front_member front_p_none[] = {
	{ NULL,			JSON_INVALID,	0 }
};

#define FRONT_PARAMS_MAX	4	/* members of the longest table */

/* The schema annotations that carry text (front_schema_strip()). */
static const char *const front_annotations[] = {
	"description", "title", "$comment", "examples",
};

/* Keywords whose value maps names to schemas, and those that list them. */
static const char *const front_schema_maps[] = {
	"properties", "patternProperties", "$defs", "definitions",
	"dependentSchemas",
};
static const char *const front_schema_lists[] = {
	"allOf", "anyOf", "oneOf", "prefixItems",
};

static enum front_code front_json_code(enum json_error);
static int	front_get_method(const char *, size_t, size_t,
		    struct front_msg *);
static enum front_code front_params(const char *, size_t, size_t,
		    const struct front_member *, size_t *);
static int	front_id_take(const char *, size_t, size_t,
		    struct front_id *);
static int	front_is_integer(const char *, size_t);
static int	front_put(char *, size_t, size_t *, const char *, size_t);
static int	front_puts(char *, size_t, size_t *, const char *);
static int	front_put_canonical(char *, size_t, size_t *, const char *,
		    size_t, int);
static int	front_put_text(char *, size_t, size_t *, const char *,
		    size_t);
static int	front_head(const struct front_id *, const char *, char *,
		    size_t, size_t *);
static int	front_tail(char *, size_t, size_t *, size_t *,
		    const char **);
static int	front_strip(const char *, size_t, size_t, int, char *,
		    size_t, size_t *);
static int	front_in(const char *, size_t, size_t,
		    const char *const *, size_t);
static int	front_wrap(const char *, size_t, char *, size_t, size_t *,
		    size_t *, const char **);
static int	front_fail(const char **, const char *);

const char *
front_string(enum front_code code)
{
	if (code < 0 || code >= FRONT_CODE_MAX)
		return "mcp_unknown";
	return front_strings[code];
}

enum front_code
front_parse(const char *b, size_t len, size_t max_frame, struct front_msg *m,
    const char **why)
{
	struct json_limits	 lim;
	enum front_code		 code;
	enum json_type		 t;
	size_t			 it, name, v, top, p[FRONT_PARAMS_MAX], n;
	size_t			 rpc = 0, id = 0, method = 0, params = 0;
	int			 have_rpc = 0, have_id = 0, have_method = 0;
	int			 have_params = 0, answer = 0;

	memset(m, 0, sizeof(*m));
	if (max_frame > AGENT_FRAME_BYTES)
		max_frame = AGENT_FRAME_BYTES;
	lim.max_bytes = max_frame;
	lim.max_depth = FRONT_DEPTH_MAX;

	if ((code = front_json_code(json_check(b, len, &lim))) != FRONT_OK)
		goto done;
	top = json_skip_ws(b, len, 0);
	if ((t = json_type(b, len, top)) == JSON_ARRAY) {
		code = FRONT_BATCH;
		goto done;
	}
	if (t != JSON_OBJECT) {
		code = FRONT_NOT_OBJECT;
		goto done;
	}
	/* Names are unique: the validator refused duplicates. */
	it = top;
	while (json_member_next(b, len, &it, &name, &v)) {
		if (json_string_equal(b, len, name, "jsonrpc")) {
			rpc = v;
			have_rpc = 1;
		} else if (json_string_equal(b, len, name, "id")) {
			id = v;
			have_id = 1;
		} else if (json_string_equal(b, len, name, "method")) {
			method = v;
			have_method = 1;
		} else if (json_string_equal(b, len, name, "params")) {
			params = v;
			have_params = 1;
		} else if (json_string_equal(b, len, name, "result") ||
		    json_string_equal(b, len, name, "error"))
			answer = 1;
		else {
			code = FRONT_MEMBERS;
			goto done;
		}
	}
	/* A client never answers here: the front door asks it nothing. */
	if (answer) {
		code = FRONT_RESPONSE;
		goto done;
	}
	if (!have_rpc || json_type(b, len, rpc) != JSON_STRING ||
	    !json_string_equal(b, len, rpc, "2.0")) {
		code = FRONT_JSONRPC;
		goto done;
	}
	if (!have_method) {
		code = FRONT_MEMBERS;
		goto done;
	}
	if (have_id) {
		if (front_id_take(b, len, id, &m->fm_id) == -1) {
			code = FRONT_ID;
			goto done;
		}
		m->fm_request = 1;
	}
	if (json_type(b, len, method) != JSON_STRING ||
	    json_string_equal(b, len, method, "")) {
		code = FRONT_METHOD;
		goto done;
	}
	if (have_params && json_type(b, len, params) != JSON_OBJECT) {
		code = FRONT_PARAMS;
		goto done;
	}
	/* A request method without an id, or the reverse. */
	if (front_get_method(b, len, method, m) == -1) {
		code = FRONT_MEMBERS;
		goto done;
	}

	switch (m->fm_method) {
	case FRONT_M_INITIALIZE:
		if (!have_params) {
			code = FRONT_PARAMS;
			break;
		}
		if ((code = front_params(b, len, params, front_p_initialize,
		    p)) != FRONT_OK)
			break;
		if (json_string_copy(b, len, p[0], m->fm_version,
		    sizeof(m->fm_version), &n) == -1 ||
		    strlen(m->fm_version) != n)
			code = FRONT_PARAMS;
		break;
	case FRONT_M_TOOLS_CALL:
		if (!have_params) {
			code = FRONT_PARAMS;
			break;
		}
		if ((code = front_params(b, len, params, front_p_call, p)) !=
		    FRONT_OK)
			break;
		if (json_string_copy(b, len, p[0], m->fm_call.br_operation,
		    sizeof(m->fm_call.br_operation), &n) == -1 ||
		    !bridge_operation_valid(m->fm_call.br_operation, n)) {
			code = FRONT_TOOL;
			break;
		}
		if (p[1] == 0) {
			memcpy(m->fm_call.br_arguments, "{}", 3);
			m->fm_call.br_arglen = 2;
			break;
		}
		lim.max_bytes = json_value_end(b, len, p[1]) - p[1];
		if (json_canon(b + p[1], lim.max_bytes, &lim,
		    m->fm_call.br_arguments, sizeof(m->fm_call.br_arguments),
		    &m->fm_call.br_arglen) != JSON_OK)
			code = FRONT_ARGUMENTS;	/* not reached: checked */
		break;
	case FRONT_M_CANCELLED:
		if (!have_params) {
			code = FRONT_PARAMS;
			break;
		}
		if ((code = front_params(b, len, params, front_p_cancelled,
		    p)) != FRONT_OK)
			break;
		if (front_id_take(b, len, p[0], &m->fm_target) == -1)
			code = FRONT_PARAMS;
		break;
	case FRONT_M_PING:
	case FRONT_M_TOOLS_LIST:
	case FRONT_M_INITIALIZED:
		/* No cursor is ever given out, so none may come back. */
		if (have_params)
			code = front_params(b, len, params, front_p_none, p);
		break;
	case FRONT_M_OTHER:
	case FRONT_M_NOTIFICATION:
		/* Not read: answered "method not found", or dropped. */
		break;
	}
 done:
	if (code != FRONT_OK)
		memset(m, 0, sizeof(*m));
	if (why != NULL)
		*why = front_string(code);
	return code;
}

/* The method by name; -1 when a known one comes with or without an id. */
static int
front_get_method(const char *b, size_t len, size_t v, struct front_msg *m)
{
	size_t	 i;

	for (i = 0; i < nitems(front_methods); i++) {
		if (!json_string_equal(b, len, v, front_methods[i].name))
			continue;
		if (front_methods[i].request && !m->fm_request)
			return -1;
		if (!front_methods[i].request && m->fm_request)
			break;	/* a notification's name, asked: unknown */
		m->fm_method = front_methods[i].method;
		return 0;
	}
	m->fm_method = m->fm_request ? FRONT_M_OTHER : FRONT_M_NOTIFICATION;
	return 0;
}

/*
 * The members of params, each by the table: p[i] the offset of table
 * entry i's value, 0 when absent.  Unknown members, a missing required
 * one or a wrong type: FRONT_PARAMS, or FRONT_TOOL/FRONT_ARGUMENTS for
 * a call's name and arguments (the codes a reader of the log expects).
 */
static enum front_code
front_params(const char *b, size_t len, size_t params,
    const struct front_member *tab, size_t *p)
{
	enum json_type	 t;
	size_t		 it = params, name, v, i;

	for (i = 0; i < FRONT_PARAMS_MAX; i++)
		p[i] = 0;
	while (json_member_next(b, len, &it, &name, &v)) {
		if (json_string_equal(b, len, name, "_meta")) {
			if (json_type(b, len, v) != JSON_OBJECT)
				return FRONT_PARAMS;
			continue;
		}
		for (i = 0; tab[i].name != NULL; i++)
			if (json_string_equal(b, len, name, tab[i].name))
				break;
		if (tab[i].name == NULL)
			return FRONT_PARAMS;
		t = json_type(b, len, v);
		if (tab[i].type == JSON_INVALID ?
		    (t != JSON_STRING && t != JSON_NUMBER) :
		    t != tab[i].type) {
			if (tab == front_p_call)
				return i == 0 ? FRONT_TOOL : FRONT_ARGUMENTS;
			return FRONT_PARAMS;
		}
		p[i] = v;
	}
	for (i = 0; tab[i].name != NULL; i++)
		if (tab[i].required && p[i] == 0) {
			if (tab == front_p_call && i == 0)
				return FRONT_TOOL;
			return FRONT_PARAMS;
		}
	return FRONT_OK;
}

/*
 * A string or an integer (no fraction, no exponent), at most
 * FRONT_ID_BYTES as written.  The key of an integer is its text (-0 is
 * 0); that of a string its canonical form.
 */
static int
front_id_take(const char *b, size_t len, size_t v, struct front_id *id)
{
	struct json_limits	 lim;
	enum json_type		 t = json_type(b, len, v);
	size_t			 n = json_value_end(b, len, v) - v;

	memset(id, 0, sizeof(*id));
	if (n > FRONT_ID_BYTES)
		return -1;
	if (t == JSON_NUMBER) {
		if (!front_is_integer(b + v, n))
			return -1;
		memcpy(id->fi_text, b + v, n);
		id->fi_len = n;
		if (n == 2 && memcmp(b + v, "-0", 2) == 0) {
			memcpy(id->fi_key, "0", 2);
			id->fi_keylen = 1;
		} else {
			memcpy(id->fi_key, b + v, n);
			id->fi_keylen = n;
		}
		return 0;
	}
	if (t != JSON_STRING)
		return -1;
	memcpy(id->fi_text, b + v, n);
	id->fi_len = n;
	lim.max_bytes = n;
	lim.max_depth = 1;
	/* The canonical form is never longer than the text. */
	if (json_canon(b + v, n, &lim, id->fi_key, sizeof(id->fi_key),
	    &id->fi_keylen) != JSON_OK)
		return -1;
	return 0;
}

/* -?(0|[1-9][0-9]*), all of s[0..n). */
static int
front_is_integer(const char *s, size_t n)
{
	size_t	 i = 0;

	if (i < n && s[i] == '-')
		i++;
	if (i == n)
		return 0;
	if (s[i] == '0')
		return i + 1 == n;
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int
front_id_equal(const struct front_id *a, const struct front_id *b)
{
	/* A string's key starts with '"', an integer's never does. */
	return a->fi_keylen == b->fi_keylen &&
	    memcmp(a->fi_key, b->fi_key, a->fi_keylen) == 0;
}

const char *
front_version(const char *asked)
{
	if (strcmp(asked, FRONT_VERSION_OLD) == 0)
		return FRONT_VERSION_OLD;
	return FRONT_VERSION;
}

int
front_encode_initialize(const struct front_id *id, const char *version,
    const char *server_version, const char *instructions, size_t ilen,
    char *out, size_t sz, size_t *outlen, const char **why)
{
	size_t	 n;

	if (front_head(id, "result", out, sz, &n) == -1 ||
	    front_puts(out, sz, &n, "{\"capabilities\":{\"tools\":"
	    "{\"listChanged\":true}},") == -1 ||
	    (instructions != NULL &&
	    (front_puts(out, sz, &n, "\"instructions\":") == -1 ||
	    front_put_text(out, sz, &n, instructions, ilen) == -1 ||
	    front_puts(out, sz, &n, ",") == -1)) ||
	    front_puts(out, sz, &n, "\"protocolVersion\":") == -1 ||
	    front_put_text(out, sz, &n, front_version(version),
	    strlen(front_version(version))) == -1 ||
	    front_puts(out, sz, &n, ",\"serverInfo\":{\"name\":\"" CMCP_NAME
	    "\",\"version\":") == -1 ||
	    front_put_text(out, sz, &n, server_version,
	    strlen(server_version)) == -1 ||
	    front_puts(out, sz, &n, "}}}") == -1)
		return front_fail(why, "output too large");
	return front_tail(out, sz, &n, outlen, why);
}

int
front_encode_result(const struct front_id *id, const char *json, size_t len,
    char *out, size_t sz, size_t *outlen, const char **why)
{
	size_t	 n;

	if (front_head(id, "result", out, sz, &n) == -1)
		return front_fail(why, "output too large");
	switch (front_put_canonical(out, sz, &n, json, len, JSON_OBJECT)) {
	case -1:
		return front_fail(why, "invalid result");
	case -2:
		return front_fail(why, "output too large");
	}
	if (front_puts(out, sz, &n, "}") == -1)
		return front_fail(why, "output too large");
	return front_tail(out, sz, &n, outlen, why);
}

int
front_encode_error(const struct front_id *id, int code, const char *msg,
    char *out, size_t sz, size_t *outlen, const char **why)
{
	char	 num[16];
	size_t	 n;
	int	 w;

	w = snprintf(num, sizeof(num), "%d", code);
	if (w < 0 || (size_t)w >= sizeof(num))
		return front_fail(why, "bad error code");
	if (front_head(id, "error", out, sz, &n) == -1 ||
	    front_puts(out, sz, &n, "{\"code\":") == -1 ||
	    front_puts(out, sz, &n, num) == -1 ||
	    front_puts(out, sz, &n, ",\"message\":") == -1 ||
	    front_put_text(out, sz, &n, msg, strlen(msg)) == -1 ||
	    front_puts(out, sz, &n, "}}") == -1)
		return front_fail(why, "output too large");
	return front_tail(out, sz, &n, outlen, why);
}

/*
 * An allowed call's CallToolResult: the tool's content, its
 * structuredContent and isError, and nothing else of what it sent (no
 * _meta, no member a later revision may give meaning).  A result that is
 * not a CallToolResult (a sandbox run's) is the text of its JSON and, as
 * an object, its structured content.
 */
int
front_encode_tool_result(const struct front_id *id, const char *res,
    size_t len, char *out, size_t sz, size_t *outlen, const char **why)
{
	struct json_limits	 lim;
	size_t			 n, it, name, v, content = 0, sc = 0, err = 0;
	size_t			 top;

	lim.max_bytes = len;
	lim.max_depth = JSON_DEPTH_MAX - 1;
	if (json_check(res, len, &lim) != JSON_OK ||
	    json_type(res, len, (top = json_skip_ws(res, len, 0))) !=
	    JSON_OBJECT)
		return front_fail(why, "invalid result");
	it = top;
	while (json_member_next(res, len, &it, &name, &v)) {
		if (json_string_equal(res, len, name, "content") &&
		    json_type(res, len, v) == JSON_ARRAY)
			content = v;
		else if (json_string_equal(res, len, name,
		    "structuredContent") &&
		    json_type(res, len, v) == JSON_OBJECT)
			sc = v;
		else if (json_string_equal(res, len, name, "isError") &&
		    (json_type(res, len, v) == JSON_TRUE ||
		    json_type(res, len, v) == JSON_FALSE))
			err = v;
	}
	if (front_head(id, "result", out, sz, &n) == -1)
		return front_fail(why, "output too large");
	if (content == 0)
		return front_wrap(res, len, out, sz, &n, outlen, why);
	if (front_puts(out, sz, &n, "{\"content\":") == -1 ||
	    front_put_canonical(out, sz, &n, res + content,
	    json_value_end(res, len, content) - content, JSON_ARRAY) != 0)
		return front_fail(why, "output too large");
	if (front_puts(out, sz, &n, ",\"isError\":") == -1 ||
	    front_puts(out, sz, &n, err != 0 &&
	    json_type(res, len, err) == JSON_TRUE ? "true" : "false") == -1)
		return front_fail(why, "output too large");
	if (sc != 0 && (front_puts(out, sz, &n, ",\"structuredContent\":") ==
	    -1 || front_put_canonical(out, sz, &n, res + sc,
	    json_value_end(res, len, sc) - sc, JSON_OBJECT) != 0))
		return front_fail(why, "output too large");
	if (front_puts(out, sz, &n, "}}") == -1)
		return front_fail(why, "output too large");
	return front_tail(out, sz, &n, outlen, why);
}

/*
 * A result that is not a CallToolResult, the canonical form C of an
 * object: {"content":[{"text":"C","type":"text"}],"isError":false,
 * "structuredContent":C}.  C is written once, at the end of out, and
 * copied from there: its quoted form first (canonical JSON has no raw
 * control, so only '"' and '\\' need a backslash), then C itself.
 */
static int
front_wrap(const char *res, size_t len, char *out, size_t sz, size_t *n,
    size_t *outlen, const char **why)
{
	static const char	 head[] = "{\"content\":[{\"text\":\"";
	static const char	 mid[] =
	    "\",\"type\":\"text\"}],\"isError\":false,"
	    "\"structuredContent\":";
	struct json_limits	 lim;
	size_t			 w, src, q, i;

	lim.max_bytes = len;
	lim.max_depth = JSON_DEPTH_MAX - 1;
	if (*n > sz || sz - *n < sizeof(head) + sizeof(mid) + 4)
		return front_fail(why, "output too large");
	/* Room: head, quoted C, mid, C, "}}", newline, NUL. */
	if (json_canon(res, len, &lim, out + *n, sz - *n, &w) != JSON_OK)
		return front_fail(why, "output too large");
	for (q = 0, i = 0; i < w; i++)
		if (out[*n + i] == '"' || out[*n + i] == '\\')
			q++;
	if (sz - *n < (sizeof(head) - 1) + w + q + (sizeof(mid) - 1) + w +
	    2 + 2)
		return front_fail(why, "output too large");
	src = sz - w;
	memmove(out + src, out + *n, w);
	memcpy(out + *n, head, sizeof(head) - 1);
	*n += sizeof(head) - 1;
	for (i = 0; i < w; i++) {
		if (out[src + i] == '"' || out[src + i] == '\\')
			out[(*n)++] = '\\';
		out[(*n)++] = out[src + i];
	}
	memcpy(out + *n, mid, sizeof(mid) - 1);
	*n += sizeof(mid) - 1;
	memmove(out + *n, out + src, w);
	*n += w;
	memcpy(out + *n, "}}", 2);
	*n += 2;
	return front_tail(out, sz, n, outlen, why);
}

/* A refusal the agent's model reads: isError, the fixed code as text. */
int
front_encode_refusal(const struct front_id *id, enum reply_code code,
    char *out, size_t sz, size_t *outlen, const char **why)
{
	const char	*s = bridge_reply_string(code);
	size_t		 n;

	if (s == NULL || code == REPLY_OK)
		return front_fail(why, "unknown reply code");
	if (front_head(id, "result", out, sz, &n) == -1 ||
	    front_puts(out, sz, &n, "{\"content\":[{\"text\":") == -1 ||
	    front_put_text(out, sz, &n, s, strlen(s)) == -1 ||
	    front_puts(out, sz, &n, ",\"type\":\"text\"}],\"isError\":true}}")
	    == -1)
		return front_fail(why, "output too large");
	return front_tail(out, sz, &n, outlen, why);
}

int
front_encode_list_changed(char *out, size_t sz, size_t *outlen,
    const char **why)
{
	size_t	 n = 0;

	if (front_puts(out, sz, &n, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/tools/list_changed\"}") == -1)
		return front_fail(why, "output too large");
	return front_tail(out, sz, &n, outlen, why);
}

void
front_list_begin(struct front_list *fl, const struct front_id *id,
    char *out, size_t sz)
{
	memset(fl, 0, sizeof(*fl));
	fl->fl_out = out;
	fl->fl_size = sz;
	if (front_head(id, "result", out, sz, &fl->fl_len) == -1 ||
	    front_puts(out, sz, &fl->fl_len, "{\"tools\":[") == -1) {
		fl->fl_failed = 1;
		fl->fl_why = "output too large";
	}
}

/* One tool, its members in canonical order. */
void
front_list_add(struct front_list *fl, const char *name, const char *desc,
    const char *schema, size_t schemalen)
{
	char	*o = fl->fl_out;
	size_t	 sz = fl->fl_size, *n = &fl->fl_len;

	if (fl->fl_failed)
		return;
	if ((fl->fl_ntools > 0 && front_puts(o, sz, n, ",") == -1) ||
	    front_puts(o, sz, n, "{") == -1 ||
	    (desc != NULL && (front_puts(o, sz, n, "\"description\":") == -1 ||
	    front_put_text(o, sz, n, desc, strlen(desc)) == -1 ||
	    front_puts(o, sz, n, ",") == -1)) ||
	    front_puts(o, sz, n, "\"inputSchema\":") == -1) {
		fl->fl_failed = 1;
		fl->fl_why = "output too large";
		return;
	}
	switch (front_put_canonical(o, sz, n, schema, schemalen,
	    JSON_OBJECT)) {
	case -1:
		fl->fl_failed = 1;
		fl->fl_why = "invalid schema";
		return;
	case -2:
		fl->fl_failed = 1;
		fl->fl_why = "output too large";
		return;
	}
	if (front_puts(o, sz, n, ",\"name\":") == -1 ||
	    front_put_text(o, sz, n, name, strlen(name)) == -1 ||
	    front_puts(o, sz, n, "}") == -1) {
		fl->fl_failed = 1;
		fl->fl_why = "output too large";
		return;
	}
	fl->fl_ntools++;
}

int
front_list_end(struct front_list *fl, size_t *outlen, const char **why)
{
	if (fl->fl_failed)
		return front_fail(why, fl->fl_why);
	if (front_puts(fl->fl_out, fl->fl_size, &fl->fl_len, "]}}") == -1)
		return front_fail(why, "output too large");
	return front_tail(fl->fl_out, fl->fl_size, &fl->fl_len, outlen, why);
}

int
front_schema_strip(const char *s, size_t len, char *tmp, size_t tmpsz,
    char *out, size_t sz, size_t *outlen, const char **why)
{
	struct json_limits	 lim;
	size_t			 clen, n = 0;

	/*
	 * Canonical first: what is left after members are dropped from
	 * sorted objects, and canonical values copied, is canonical too.
	 */
	lim.max_bytes = len;
	lim.max_depth = JSON_DEPTH_MAX - 1;
	if (json_canon(s, len, &lim, tmp, tmpsz, &clen) != JSON_OK ||
	    json_type(tmp, clen, 0) != JSON_OBJECT)
		return front_fail(why, "invalid schema");
	if (front_strip(tmp, clen, 0, 1, out, sz, &n) == -1)
		return front_fail(why, "output too large");
	out[n] = '\0';
	*outlen = n;
	return 0;
}

/*
 * The value at v, written into out; when schema is set it is a schema:
 * an object loses its text annotations, and the values of the keywords
 * that hold schemas are schemas again.  Everything else is copied as is.
 */
static int
front_strip(const char *s, size_t len, size_t v, int schema, char *out,
    size_t sz, size_t *n)
{
	enum json_type	 t = json_type(s, len, v);
	size_t		 it = v, name, mv, k = 0;
	int		 map, list, sub;

	if (!schema || (t != JSON_OBJECT && t != JSON_ARRAY))
		return front_put(out, sz, n, s + v,
		    json_value_end(s, len, v) - v);
	if (t == JSON_ARRAY) {
		/* A list of schemas (allOf, items of old drafts, ...). */
		if (front_puts(out, sz, n, "[") == -1)
			return -1;
		while (json_element_next(s, len, &it, &mv)) {
			if ((k++ > 0 && front_puts(out, sz, n, ",") == -1) ||
			    front_strip(s, len, mv, 1, out, sz, n) == -1)
				return -1;
		}
		return front_puts(out, sz, n, "]");
	}
	if (front_puts(out, sz, n, "{") == -1)
		return -1;
	while (json_member_next(s, len, &it, &name, &mv)) {
		if (front_in(s, len, name, front_annotations,
		    nitems(front_annotations)))
			continue;
		map = front_in(s, len, name, front_schema_maps,
		    nitems(front_schema_maps));
		list = front_in(s, len, name, front_schema_lists,
		    nitems(front_schema_lists));
		sub = list || json_string_equal(s, len, name, "items") ||
		    json_string_equal(s, len, name, "additionalProperties") ||
		    json_string_equal(s, len, name, "not") ||
		    json_string_equal(s, len, name, "if") ||
		    json_string_equal(s, len, name, "then") ||
		    json_string_equal(s, len, name, "else") ||
		    json_string_equal(s, len, name, "contains") ||
		    json_string_equal(s, len, name, "propertyNames");
		if ((k++ > 0 && front_puts(out, sz, n, ",") == -1) ||
		    front_put(out, sz, n, s + name,
		    json_value_end(s, len, name) - name) == -1 ||
		    front_puts(out, sz, n, ":") == -1)
			return -1;
		if (map && json_type(s, len, mv) == JSON_OBJECT) {
			/* Names are kept: each value is a schema. */
			size_t	 it2 = mv, nm, sv, j = 0;

			if (front_puts(out, sz, n, "{") == -1)
				return -1;
			while (json_member_next(s, len, &it2, &nm, &sv))
				if ((j++ > 0 && front_puts(out, sz, n, ",") ==
				    -1) || front_put(out, sz, n, s + nm,
				    json_value_end(s, len, nm) - nm) == -1 ||
				    front_puts(out, sz, n, ":") == -1 ||
				    front_strip(s, len, sv, 1, out, sz, n) ==
				    -1)
					return -1;
			if (front_puts(out, sz, n, "}") == -1)
				return -1;
		} else if (front_strip(s, len, mv, sub, out, sz, n) == -1)
			return -1;
	}
	return front_puts(out, sz, n, "}");
}

/* 1 when the string at v is one of the names. */
static int
front_in(const char *s, size_t len, size_t v, const char *const *names,
    size_t nnames)
{
	size_t	 i;

	for (i = 0; i < nnames; i++)
		if (json_string_equal(s, len, v, names[i]))
			return 1;
	return 0;
}

static enum front_code
front_json_code(enum json_error e)
{
	switch (e) {
	case JSON_OK:
		return FRONT_OK;
	case JSON_ESIZE:
		return FRONT_TOO_LARGE;
	case JSON_ENUL:
		return FRONT_NUL;
	case JSON_EUTF8:
	case JSON_ESURROGATE:
		return FRONT_UTF8;
	case JSON_ETRAILING:
		return FRONT_TRAILING;
	case JSON_EDEPTH:
		return FRONT_DEPTH;
	case JSON_EMEMBERS:
		return FRONT_WIDTH;
	case JSON_EDUPKEY:
		return FRONT_DUPLICATE_KEY;
	default:
		return FRONT_SYNTAX;
	}
}

/* {"id":<as written>,"jsonrpc":"2.0","<member>": -- canonical order. */
static int
front_head(const struct front_id *id, const char *member, char *out,
    size_t sz, size_t *n)
{
	*n = 0;
	if (front_puts(out, sz, n, "{\"id\":") == -1 ||
	    front_put(out, sz, n, id->fi_text, id->fi_len) == -1 ||
	    front_puts(out, sz, n, ",\"jsonrpc\":\"2.0\",\"") == -1 ||
	    front_puts(out, sz, n, member) == -1 ||
	    front_puts(out, sz, n, "\":") == -1)
		return -1;
	return 0;
}

/* "}" is the caller's; the newline and the NUL after it are ours. */
static int
front_tail(char *out, size_t sz, size_t *n, size_t *outlen, const char **why)
{
	if (sz - *n < 2)
		return front_fail(why, "output too large");
	out[(*n)++] = '\n';
	out[*n] = '\0';
	*outlen = *n;
	return 0;
}

/* Bytes at *n, leaving room for a newline and a NUL. */
static int
front_put(char *out, size_t sz, size_t *n, const char *p, size_t len)
{
	if (*n > sz || sz - *n < len + 2)
		return -1;
	memcpy(out + *n, p, len);
	*n += len;
	return 0;
}

static int
front_puts(char *out, size_t sz, size_t *n, const char *s)
{
	return front_put(out, sz, n, s, strlen(s));
}

/*
 * A JSON value of the given type, in canonical form: -1 when it is not
 * one, -2 when there is no room for it.
 */
static int
front_put_canonical(char *out, size_t sz, size_t *n, const char *json,
    size_t len, int type)
{
	struct json_limits	 lim;
	size_t			 w;

	lim.max_bytes = len;
	lim.max_depth = JSON_DEPTH_MAX - 1;
	if (json_check(json, len, &lim) != JSON_OK ||
	    (int)json_type(json, len, json_skip_ws(json, len, 0)) != type)
		return -1;
	/* Checked with the same limits: only the room can fail now. */
	if (*n > sz || sz - *n < 2 ||
	    json_canon(json, len, &lim, out + *n, sz - *n - 1, &w) != JSON_OK ||
	    sz - *n - w < 2)
		return -2;
	*n += w;
	return 0;
}

/*
 * Text as a JSON string: '"' and '\\' escaped, controls as \u00xx.  The
 * text is the configuration's or a fixed code: well-formed UTF-8, which
 * passes as it is.
 */
static int
front_put_text(char *out, size_t sz, size_t *n, const char *s, size_t len)
{
	char		 esc[8];
	size_t		 i;
	unsigned char	 c;

	if (front_puts(out, sz, n, "\"") == -1)
		return -1;
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			if (front_put(out, sz, n, esc, 2) == -1)
				return -1;
		} else if (c < 0x20) {
			(void)snprintf(esc, sizeof(esc), "\\u%04x", c);
			if (front_put(out, sz, n, esc, 6) == -1)
				return -1;
		} else if (front_put(out, sz, n, s + i, 1) == -1)
			return -1;
	}
	return front_puts(out, sz, n, "\"");
}

static int
front_fail(const char **why, const char *reason)
{
	if (why != NULL)
		*why = reason;
	return -1;
}
