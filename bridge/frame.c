/*
 * The agent protocol's byte-level rules (DESIGN 6).  The bridge process
 * feeds the container's stdout through bridge_lines_feed(), parses each
 * line with bridge_frame_parse() and forwards only the operation name and
 * the canonical arguments; everything else the agent wrote ends the
 * session with one of the fixed codes below.
 */

#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include "cmcp.h"
#include "frame.h"
#include "json.h"

static const char *const bridge_frame_strings[FRAME_CODE_MAX] = {
	[FRAME_OK] = "ok",
	[FRAME_TOO_LARGE] = "frame_too_large",
	[FRAME_SYNTAX] = "frame_syntax",
	[FRAME_TRAILING] = "frame_trailing_data",
	[FRAME_UTF8] = "frame_utf8",
	[FRAME_NUL] = "frame_nul",
	[FRAME_DUPLICATE_KEY] = "frame_duplicate_key",
	[FRAME_DEPTH] = "frame_depth",
	[FRAME_WIDTH] = "frame_width",
	[FRAME_NOT_OBJECT] = "frame_not_object",
	[FRAME_MEMBERS] = "frame_members",
	[FRAME_OPERATION] = "frame_operation",
	[FRAME_ARGUMENTS] = "frame_arguments",
	[FRAME_STDOUT_BUDGET] = "stdout_budget",
	[FRAME_TRUNCATED] = "frame_truncated",
};

static const char *const bridge_reply_strings[REPLY_CODE_MAX] = {
	[REPLY_OK] = "ok",
	[REPLY_DENIED] = "denied",
	[REPLY_UNKNOWN_OPERATION] = "unknown_operation",
	[REPLY_BUDGET_EXHAUSTED] = "budget_exhausted",
	[REPLY_CEILING] = "ceiling",
	[REPLY_UPSTREAM_ERROR] = "upstream_error",
	[REPLY_UPSTREAM_TIMEOUT] = "upstream_timeout",
	[REPLY_REVOKED] = "revoked",
	[REPLY_INTERNAL] = "internal",
};

static enum bridge_frame_code bridge_json_code(enum json_error);
static int	bridge_wrap(const char *, const char *, size_t, char *, size_t,
		    size_t *, const char **);
static int	bridge_fail(const char **, const char *);

const char *
bridge_frame_string(enum bridge_frame_code code)
{
	if (code < 0 || code >= FRAME_CODE_MAX)
		return "frame_unknown";
	return bridge_frame_strings[code];
}

const char *
bridge_reply_string(enum reply_code code)
{
	if (code < 0 || code >= REPLY_CODE_MAX)
		return NULL;
	return bridge_reply_strings[code];
}

enum bridge_frame_code
bridge_frame_parse(const char *line, size_t len, size_t max_frame,
    struct bridge_request *out, const char **why)
{
	struct json_limits	 lim;
	enum bridge_frame_code	 code;
	char			*c = out->br_arguments;
	size_t			 clen, it, name, value, op = 0, args = 0, n;
	int			 have_op = 0, have_args = 0;

	if (max_frame > AGENT_FRAME_BYTES)
		max_frame = AGENT_FRAME_BYTES;
	lim.max_bytes = max_frame;
	lim.max_depth = BRIDGE_DEPTH_MAX;

	/*
	 * Validate and canonicalize the whole line in one pass into the
	 * arguments buffer (the canonical form is never longer than the
	 * line), then check its shape on exactly those bytes; the canonical
	 * arguments are a substring of the canonical line.
	 */
	code = bridge_json_code(json_canon(line, len, &lim, c,
	    sizeof(out->br_arguments), &clen));
	if (code != FRAME_OK)
		goto done;
	if (json_type(c, clen, 0) != JSON_OBJECT) {
		code = FRAME_NOT_OBJECT;
		goto done;
	}
	/* Names are unique here: the validator refused duplicates. */
	it = 0;
	while (json_member_next(c, clen, &it, &name, &value)) {
		if (json_string_equal(c, clen, name, "operation")) {
			op = value;
			have_op = 1;
		} else if (json_string_equal(c, clen, name, "arguments")) {
			args = value;
			have_args = 1;
		} else {
			code = FRAME_MEMBERS;
			goto done;
		}
	}
	if (!have_op || !have_args) {
		code = FRAME_MEMBERS;
		goto done;
	}
	if (json_type(c, clen, op) != JSON_STRING ||
	    json_string_copy(c, clen, op, out->br_operation,
	    sizeof(out->br_operation), &n) == -1 ||
	    !bridge_operation_valid(out->br_operation, n)) {
		code = FRAME_OPERATION;
		goto done;
	}
	if (json_type(c, clen, args) != JSON_OBJECT) {
		code = FRAME_ARGUMENTS;
		goto done;
	}
	n = json_value_end(c, clen, args) - args;
	memmove(c, c + args, n);
	c[n] = '\0';
	out->br_arglen = n;
 done:
	if (code != FRAME_OK) {
		out->br_operation[0] = '\0';
		out->br_arguments[0] = '\0';
		out->br_arglen = 0;
	}
	if (why != NULL)
		*why = bridge_frame_string(code);
	return code;
}

static enum bridge_frame_code
bridge_json_code(enum json_error e)
{
	switch (e) {
	case JSON_OK:
		return FRAME_OK;
	case JSON_ESIZE:
		return FRAME_TOO_LARGE;
	case JSON_ENUL:
		return FRAME_NUL;
	case JSON_EUTF8:
	case JSON_ESURROGATE:
		return FRAME_UTF8;
	case JSON_ETRAILING:
		return FRAME_TRAILING;
	case JSON_EDEPTH:
		return FRAME_DEPTH;
	case JSON_EMEMBERS:
		return FRAME_WIDTH;
	case JSON_EDUPKEY:
		return FRAME_DUPLICATE_KEY;
	default:
		return FRAME_SYNTAX;
	}
}

/* 1 to BRIDGE_OPERATION_BYTES of [A-Za-z0-9_.-]. */
int
bridge_operation_valid(const char *s, size_t n)
{
	size_t	 i;
	char	 c;

	if (n == 0 || n > BRIDGE_OPERATION_BYTES)
		return 0;
	for (i = 0; i < n; i++) {
		c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		    c == '-'))
			return 0;
	}
	return 1;
}

void
bridge_lines_init(struct bridge_lines *bl, size_t max_frame, size_t budget)
{
	if (max_frame > AGENT_FRAME_BYTES)
		max_frame = AGENT_FRAME_BYTES;
	bl->bl_max_frame = max_frame;
	bl->bl_budget = budget;
	bl->bl_total = 0;
	bl->bl_len = 0;
	bl->bl_error = FRAME_OK;
}

int
bridge_lines_feed(struct bridge_lines *bl, const char *data, size_t len,
    size_t *used, const char **line, size_t *linelen,
    enum bridge_frame_code *code)
{
	const char	*nl;
	size_t		 take, body, room_budget, room_frame;
	int		 over_budget, over_frame;

	*used = 0;
	if (bl->bl_error != FRAME_OK) {
		*code = bl->bl_error;
		return -1;
	}
	if (len == 0)
		return 0;
	nl = memchr(data, '\n', len);
	take = nl != NULL ? (size_t)(nl - data) + 1 : len;
	body = nl != NULL ? take - 1 : take;

	/*
	 * Both rooms are counted from the first byte of data, so the
	 * violation reported is the one whose first offending byte comes
	 * first; when one byte breaks both, the frame bound is reported.
	 */
	room_budget = bl->bl_budget - bl->bl_total;
	room_frame = bl->bl_max_frame - bl->bl_len;
	over_budget = take > room_budget;
	over_frame = body > room_frame;
	if (over_frame && (!over_budget || room_frame <= room_budget))
		bl->bl_error = FRAME_TOO_LARGE;
	else if (over_budget)
		bl->bl_error = FRAME_STDOUT_BUDGET;
	if (bl->bl_error != FRAME_OK) {
		*code = bl->bl_error;
		return -1;
	}

	bl->bl_total += take;
	*used = take;
	if (nl == NULL) {
		memcpy(bl->bl_buf + bl->bl_len, data, take);
		bl->bl_len += take;
		return 0;
	}
	if (bl->bl_len == 0) {
		*line = data;
		*linelen = body;
		return 1;
	}
	memcpy(bl->bl_buf + bl->bl_len, data, body);
	*line = bl->bl_buf;
	*linelen = bl->bl_len + body;
	bl->bl_len = 0;
	return 1;
}

int
bridge_lines_end(const struct bridge_lines *bl, enum bridge_frame_code *code)
{
	if (bl->bl_error != FRAME_OK) {
		*code = bl->bl_error;
		return -1;
	}
	if (bl->bl_len > 0) {
		*code = FRAME_TRUNCATED;
		return -1;
	}
	*code = FRAME_OK;
	return 0;
}

int
bridge_reply_encode(enum reply_code code, const char *result,
    size_t resultlen, char *out, size_t outsz, size_t *outlen,
    const char **why)
{
	int	 n;

	if (code == REPLY_OK)
		return bridge_wrap(AGENT_REPLY_HEAD, result, resultlen, out,
		    outsz, outlen, why);
	if (bridge_reply_string(code) == NULL)
		return bridge_fail(why, "unknown reply code");
	n = snprintf(out, outsz, "{\"ok\":false,\"error\":\"%s\"}\n",
	    bridge_reply_string(code));
	if (n < 0 || (size_t)n >= outsz)
		return bridge_fail(why, "output too large");
	*outlen = (size_t)n;
	return 0;
}

int
bridge_initial_encode(const char *payload, size_t len, char *out,
    size_t outsz, size_t *outlen, const char **why)
{
	return bridge_wrap(AGENT_PAYLOAD_HEAD, payload, len, out, outsz, outlen,
	    why);
}

/* head, the canonical form of json, then "}\n" and a NUL. */
static int
bridge_wrap(const char *head, const char *json, size_t jsonlen, char *out,
    size_t outsz, size_t *outlen, const char **why)
{
	static const char	 tail[] = AGENT_WRAP_TAIL "\n";
	struct json_limits	 lim;
	size_t			 hlen = strlen(head), n;

	if (outsz < hlen + sizeof(tail) + 1)
		return bridge_fail(why, "output too large");
	lim.max_bytes = jsonlen;
	lim.max_depth = JSON_DEPTH_MAX - 1;
	memcpy(out, head, hlen);
	if (json_canonical(json, jsonlen, &lim, out + hlen,
	    outsz - hlen - (sizeof(tail) - 1), &n, why) == -1)
		return -1;
	memcpy(out + hlen + n, tail, sizeof(tail));
	*outlen = hlen + n + sizeof(tail) - 1;
	return 0;
}

static int
bridge_fail(const char **why, const char *reason)
{
	if (why != NULL)
		*why = reason;
	return -1;
}
