/*
 * The agent protocol on the container's stdin and stdout (DESIGN 6):
 * splitting stdout into lines, parsing one line into a request, and
 * encoding the lines the host sends.  Pure functions of their input; no
 * descriptors, no allocation, no logging.
 */

#ifndef CMCP_BRIDGE_FRAME_H
#define CMCP_BRIDGE_FRAME_H

#include <sys/types.h>

#include <stddef.h>

#include "cmcp.h"

#define BRIDGE_DEPTH_MAX	32	/* nesting of a request frame */
#define BRIDGE_OPERATION_BYTES	64	/* an operation name, without NUL */

/*
 * Why the agent's output is a violation.  Each ends the session; the
 * string is the reason code the audit log and the run summary carry.
 */
enum bridge_frame_code {
	FRAME_OK,
	FRAME_TOO_LARGE,	/* "frame_too_large": line over max_frame */
	FRAME_SYNTAX,		/* "frame_syntax": not RFC 8259 JSON */
	FRAME_TRAILING,		/* "frame_trailing_data": more after it */
	FRAME_UTF8,		/* "frame_utf8": ill-formed UTF-8, surrogate */
	FRAME_NUL,		/* "frame_nul": NUL byte or \u0000 */
	FRAME_DUPLICATE_KEY,	/* "frame_duplicate_key" (in any object) */
	FRAME_DEPTH,		/* "frame_depth": over BRIDGE_DEPTH_MAX */
	FRAME_WIDTH,		/* "frame_width": an object too wide */
	FRAME_NOT_OBJECT,	/* "frame_not_object": the line's value */
	FRAME_MEMBERS,		/* "frame_members": not exactly the two */
	FRAME_OPERATION,	/* "frame_operation": not a valid name */
	FRAME_ARGUMENTS,	/* "frame_arguments": not an object */
	FRAME_STDOUT_BUDGET,	/* "stdout_budget": total stdout exceeded */
	FRAME_TRUNCATED,	/* "frame_truncated": no newline at the end */
	FRAME_CODE_MAX
};

/* A validated request: what the bridge forwards to the gateway. */
struct bridge_request {
	char		 br_operation[BRIDGE_OPERATION_BYTES + 1];
	size_t		 br_arglen;
	char		 br_arguments[AGENT_FRAME_BYTES + 1];	/* canonical */
};

/*
 * Splitter of the agent's stdout into lines.  A line (its newline not
 * counted) longer than bl_max_frame is a violation as soon as its first
 * byte over arrives; so is the first byte over the stdout budget (newlines
 * counted).  A violation is final: later calls repeat it.
 */
struct bridge_lines {
	size_t			 bl_max_frame;
	size_t			 bl_budget;
	size_t			 bl_total;	/* stdout bytes taken */
	size_t			 bl_len;	/* of the unfinished line */
	enum bridge_frame_code	 bl_error;
	char			 bl_buf[AGENT_FRAME_BYTES];
};

__BEGIN_DECLS
const char	*bridge_frame_string(enum bridge_frame_code);
const char	*bridge_reply_string(enum reply_code);
/* 1 when s[0..n) is a valid operation name: 1 to BRIDGE_OPERATION_BYTES
   of [A-Za-z0-9_.-]. */
int		 bridge_operation_valid(const char *, size_t);

/*
 * One line of agent stdout, newline removed, into *out.  max_frame above
 * AGENT_FRAME_BYTES counts as AGENT_FRAME_BYTES.  FRAME_OK, or the
 * violation; *why (may be NULL) gets its string either way.
 */
enum bridge_frame_code bridge_frame_parse(const char *, size_t, size_t,
	    struct bridge_request *, const char **);

/* max_frame as above; budget is the stdout bytes of the whole session. */
void	 bridge_lines_init(struct bridge_lines *, size_t, size_t);
/*
 * Take bytes from data[0..len) up to and including the first newline.
 * 1: a line is complete, in *line (*linelen bytes, no newline), valid
 *    until the next call and while data is; *used bytes were taken.
 * 0: all len bytes were taken, no line is complete yet.
 * -1: a violation, in *code.
 */
int	 bridge_lines_feed(struct bridge_lines *, const char *, size_t,
	    size_t *, const char **, size_t *, enum bridge_frame_code *);
/* At end of stream: 0, or -1 with FRAME_TRUNCATED or the earlier error. */
int	 bridge_lines_end(const struct bridge_lines *,
	    enum bridge_frame_code *);

/*
 * The line the host writes, newline included, in out (outsz bytes, a
 * NUL after the newline; pass the frame bound + 2).  The JSON put in it
 * (a reply's result, the initial payload) is validated and written in
 * canonical form, so it can never break the line.  0 with *outlen, or -1
 * with *why (may be NULL): invalid JSON, an unknown code, or no room.
 */
int	 bridge_reply_encode(enum reply_code, const char *, size_t,
	    char *, size_t, size_t *, const char **);
int	 bridge_initial_encode(const char *, size_t, char *, size_t, size_t *,
	    const char **);
__END_DECLS

#endif /* CMCP_BRIDGE_FRAME_H */
