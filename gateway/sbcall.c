/*
 * The gateway's side of a sandbox run (DESIGN 3, 11): the request's
 * source, the result the agent gets (here), and the run itself
 * (sbrun.c).
 *
 * dockerd-client holds the engine: it admits, creates, verifies and starts
 * the one-shot container and hands over its attach stream.  The gateway
 * holds everything the container touches: it writes the runner's stdin
 * frame (the agent's source, then the operator-selected input) into that
 * stream and reads the output back under the tool's bounds (sb_stream(),
 * common/sbstream.c).  Then it tells dockerd-client how the stream ended
 * and waits for the outcome, which comes only after the container's
 * absence was confirmed.  The source and the input never pass through
 * dockerd-client, and the output never reaches it.
 *
 * The exchange on the channel to dockerd-client is strictly one request,
 * one answer, and this process blocks on it, as it blocks on an upstream
 * call: IMSG_SB_RUN, then IMSG_SB_STREAM (with the stream) or IMSG_SB_DONE
 * (refused); after the stream, IMSG_SB_END, then IMSG_SB_DONE.  An answer
 * that does not come within its bound, or any other message, ends the
 * gateway, and with it the suite; dockerd-client then removes what it
 * started.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sbcall.h"

static const char *const gw_sb_outcomes[SANDBOX_OUTCOME_MAX] = {
	[SANDBOX_REFUSED] =		"REFUSED",
	[SANDBOX_COMPLETED] =		"COMPLETED",
	[SANDBOX_TIME_LIMIT] =		"TIME_LIMIT",
	[SANDBOX_OUTPUT_LIMIT] =	"OUTPUT_LIMIT",
	[SANDBOX_TOOL_FAILED] =		"TOOL_FAILED",
};

static size_t	 gw_sb_utf8(const unsigned char *, size_t, uint32_t *);

/* The outcome as an audit reason. */
static const char *const gw_sb_reasons[SANDBOX_OUTCOME_MAX] = {
	[SANDBOX_REFUSED] =		"sandbox_refused",
	[SANDBOX_COMPLETED] =		"completed",
	[SANDBOX_TIME_LIMIT] =		"time_limit",
	[SANDBOX_OUTPUT_LIMIT] =	"output_limit",
	[SANDBOX_TOOL_FAILED] =		"tool_failed",
};

const char *
gw_sb_outcome_reason(int o)
{
	if (o < 0 || o >= SANDBOX_OUTCOME_MAX)
		return ("sandbox_unknown");
	return (gw_sb_reasons[o]);
}

const char *
gw_sb_outcome_str(int o)
{
	if (o < 0 || o >= SANDBOX_OUTCOME_MAX)
		return ("unknown");
	return (gw_sb_outcomes[o]);
}

/*
 * The arguments of a sandbox operation: exactly {"source": string}, the
 * string non-empty, without NUL, and at most max bytes once unescaped.
 * The arguments are canonical JSON already (the bridge made them so).
 * 0 with the source in src (srcsz >= max + 1), -1 refused.
 */
int
gw_sb_source(const char *args, size_t len, size_t max, char *src,
    size_t srcsz, size_t *srclen)
{
	size_t	 it, name, value, n = 0;

	if (srcsz < max + 1)
		return (-1);
	it = json_skip_ws(args, len, 0);
	if (json_type(args, len, it) != JSON_OBJECT)
		return (-1);
	while (json_member_next(args, len, &it, &name, &value)) {
		if (n++ > 0 || !json_string_equal(args, len, name, "source") ||
		    json_type(args, len, value) != JSON_STRING ||
		    json_string_copy(args, len, value, src, max + 1,
		    srclen) == -1)
			return (-1);
	}
	if (n != 1 || *srclen == 0 || memchr(src, '\0', *srclen) != NULL)
		return (-1);
	return (0);
}

/*
 * The result the agent gets, a JSON object in canonical form (members in
 * byte order, as the bridge forwards every result):
 *
 *	{"outcome":"COMPLETED","output":"...","status":0}
 *	{"outcome":"TIME_LIMIT","status":250}
 *
 * The output is the program's stdout as a JSON string: a NUL, and a byte
 * that does not start a well-formed UTF-8 sequence, become U+FFFD;
 * controls are escaped.  -1 when it
 * does not fit in sz bytes.
 */
int
gw_sb_result(const struct gw_sb_run *r, char *buf, size_t sz, size_t *len)
{
	const unsigned char	*p = (const unsigned char *)r->out;
	const char		*e;
	char			 tail[32], esc[7];
	size_t			 n, i, k, elen, tlen;
	uint32_t		 cp;
	int			 w;

	w = snprintf(tail, sizeof(tail), "\"status\":%lld}",
	    (long long)r->status);
	if (w < 0 || (size_t)w >= sizeof(tail))
		return (-1);
	tlen = (size_t)w;
	w = snprintf(buf, sz, "{\"outcome\":\"%s\",%s",
	    gw_sb_outcome_str(r->outcome),
	    r->outcome == SANDBOX_COMPLETED ? "\"output\":\"" : tail);
	if (w < 0 || (size_t)w >= sz)
		return (-1);
	n = (size_t)w;
	if (r->outcome != SANDBOX_COMPLETED) {
		*len = n;
		return (0);
	}
	for (i = 0; i < r->outlen; i += k) {
		/* NUL too: no string of the project's JSON holds one. */
		if ((k = gw_sb_utf8(p + i, r->outlen - i, &cp)) == 0 ||
		    cp == 0) {
			e = "\\ufffd";
			elen = 6;
			k = 1;
		} else if (cp == '"' || cp == '\\') {
			esc[0] = '\\';
			esc[1] = (char)cp;
			e = esc;
			elen = 2;
		} else if (cp == '\n') {
			e = "\\n";
			elen = 2;
		} else if (cp == '\t') {
			e = "\\t";
			elen = 2;
		} else if (cp < 0x20 || cp == 0x7f) {
			(void)snprintf(esc, sizeof(esc), "\\u%04x",
			    (unsigned)cp);
			e = esc;
			elen = 6;
		} else {
			e = (const char *)p + i;
			elen = k;
		}
		/* Room for it, then for the tail. */
		if (sz - n < elen + 2 + tlen)
			return (-1);
		memcpy(buf + n, e, elen);
		n += elen;
	}
	if (sz - n < 2 + tlen)
		return (-1);
	memcpy(buf + n, "\",", 2);
	memcpy(buf + n + 2, tail, tlen);
	*len = n + 2 + tlen;
	return (0);
}

/*
 * The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), its code point
 * in *cp; 0 when there is none.
 */
static size_t
gw_sb_utf8(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t		 k, i;
	uint32_t	 c, min;

	if (p[0] < 0x80) {
		*cp = p[0];
		return (1);
	} else if ((p[0] & 0xe0) == 0xc0) {
		k = 2;
		c = p[0] & 0x1f;
		min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		k = 3;
		c = p[0] & 0x0f;
		min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		k = 4;
		c = p[0] & 0x07;
		min = 0x10000;
	} else
		return (0);
	if (n < k)
		return (0);
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return (0);
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return (0);
	*cp = c;
	return (k);
}
