/*
 * The MCP front door (agent { protocol mcp }, DESIGN 6): the bridge as
 * the one MCP server the agent may use.  An agent's line is JSON-RPC 2.0;
 * front_parse() takes it apart into what the bridge acts on, and the
 * front_encode_*() functions write the lines the bridge sends back.  Like
 * frame.c: pure functions of their input, no descriptors, no allocation,
 * no logging, and a refusal's reason is a fixed code.
 *
 * A tools/call becomes the same struct bridge_request a frame does, the
 * tool's name as the operation and its arguments in canonical form: the
 * gateway, the policy and the audit log never see the second protocol.
 */

#ifndef CMCP_BRIDGE_FRONT_H
#define CMCP_BRIDGE_FRONT_H

#include <sys/types.h>

#include <stddef.h>

#include "cmcp.h"
#include "frame.h"

#define FRONT_ID_BYTES		128	/* an id's JSON text, without NUL */
#define FRONT_VERSION_BYTES	32	/* a protocolVersion, without NUL */
#define FRONT_DEPTH_MAX		BRIDGE_DEPTH_MAX
/*
 * The longest line the bridge writes but a tools/list answer: a result
 * that is not a CallToolResult is sent twice, once as escaped text (each
 * byte at most two), once as itself; initialize's instructions, the
 * payload, are escaped once.
 */
#define FRONT_LINE_BYTES	(3 * AGENT_FRAME_BYTES + 1024)
/* Requests an agent may send in a session: each id is used once. */
#define FRONT_REQUESTS_MAX	1024

/* The protocol revisions the front door speaks: the newest first. */
#define FRONT_VERSION		"2025-11-25"
#define FRONT_VERSION_OLD	"2025-06-18"

/* JSON-RPC error codes the front door answers with. */
#define FRONT_RPC_METHOD_NOT_FOUND	(-32601)

/*
 * Why an agent's line is a violation.  Each ends the session; the string
 * is the reason code of the audit log and the run summary.
 */
enum front_code {
	FRONT_OK,
	FRONT_TOO_LARGE,	/* "mcp_too_large": over the frame bound */
	FRONT_SYNTAX,		/* "mcp_syntax": not RFC 8259 JSON */
	FRONT_TRAILING,		/* "mcp_trailing_data" */
	FRONT_UTF8,		/* "mcp_utf8": ill-formed UTF-8, surrogate */
	FRONT_NUL,		/* "mcp_nul": NUL byte or \u0000 */
	FRONT_DUPLICATE_KEY,	/* "mcp_duplicate_key" (in any object) */
	FRONT_DEPTH,		/* "mcp_depth": over FRONT_DEPTH_MAX */
	FRONT_WIDTH,		/* "mcp_width": an object too wide */
	FRONT_BATCH,		/* "mcp_batch": a JSON-RPC batch (array) */
	FRONT_NOT_OBJECT,	/* "mcp_not_object" */
	FRONT_JSONRPC,		/* "mcp_jsonrpc": "jsonrpc" is not "2.0" */
	FRONT_MEMBERS,		/* "mcp_members": unknown or missing member */
	FRONT_ID,		/* "mcp_id": not a string or an integer */
	FRONT_RESPONSE,		/* "mcp_response": the agent answered */
	FRONT_METHOD,		/* "mcp_method": not a non-empty string */
	FRONT_PARAMS,		/* "mcp_params": params of the wrong shape */
	FRONT_TOOL,		/* "mcp_tool": not a valid operation name */
	FRONT_ARGUMENTS,	/* "mcp_arguments": not an object */
	FRONT_CODE_MAX
};

/* What an accepted line asks for. */
enum front_method {
	FRONT_M_INITIALIZE,	/* request */
	FRONT_M_PING,		/* request */
	FRONT_M_TOOLS_LIST,	/* request */
	FRONT_M_TOOLS_CALL,	/* request: fm_call */
	FRONT_M_OTHER,		/* request: answer "method not found" */
	FRONT_M_INITIALIZED,	/* notification */
	FRONT_M_CANCELLED,	/* notification: fm_target */
	FRONT_M_NOTIFICATION	/* another notification: ignored */
};

/*
 * A request id: its text exactly as the agent wrote it, to echo, and its
 * key, the canonical form, to compare ("a" and "\u0061" are one id, 1
 * and "1" are two).
 */
struct front_id {
	size_t		 fi_len;
	char		 fi_text[FRONT_ID_BYTES + 1];
	size_t		 fi_keylen;
	char		 fi_key[FRONT_ID_BYTES + 1];
};

struct front_msg {
	enum front_method	 fm_method;
	int			 fm_request;	/* has an id: answer it */
	struct front_id		 fm_id;
	/* initialize: the revision asked for, as a C string */
	char			 fm_version[FRONT_VERSION_BYTES + 1];
	/* notifications/cancelled: the request named */
	struct front_id		 fm_target;
	/* tools/call */
	struct bridge_request	 fm_call;
};

__BEGIN_DECLS
const char	*front_string(enum front_code);

/*
 * One line of the agent's stdout, newline removed.  max_frame above
 * AGENT_FRAME_BYTES counts as AGENT_FRAME_BYTES.  FRONT_OK with *m set,
 * or the violation; *why (may be NULL) gets its string either way.
 */
enum front_code	 front_parse(const char *, size_t, size_t,
		    struct front_msg *, const char **);

/* 1 when two ids are the same id. */
int		 front_id_equal(const struct front_id *,
		    const struct front_id *);

/*
 * The revision the answer to initialize names: the one asked for when
 * the front door speaks it, else the newest (the client then decides).
 */
const char	*front_version(const char *);

/*
 * The lines the bridge writes, newline included, into out (outsz bytes,
 * a NUL after the newline).  Each returns 0 with *outlen, or -1 with
 * *why: the JSON put in is invalid, or there is no room.
 */
int	 front_encode_initialize(const struct front_id *, const char *,
	    const char *, const char *, size_t, char *, size_t, size_t *,
	    const char **);
int	 front_encode_result(const struct front_id *, const char *, size_t,
	    char *, size_t, size_t *, const char **);
int	 front_encode_error(const struct front_id *, int, const char *,
	    char *, size_t, size_t *, const char **);
int	 front_encode_tool_result(const struct front_id *, const char *,
	    size_t, char *, size_t, size_t *, const char **);
int	 front_encode_refusal(const struct front_id *,
	    enum reply_code, char *, size_t, size_t *, const char **);
int	 front_encode_list_changed(char *, size_t, size_t *, const char **);

/*
 * tools/list's result, one tool at a time: name, the operator's
 * description (plain text, may be NULL) and the input schema (a JSON
 * object).  begin, then add for each tool, then end gives the line.
 */
struct front_list {
	char		*fl_out;
	size_t		 fl_size;
	size_t		 fl_len;
	size_t		 fl_ntools;
	int		 fl_failed;
	const char	*fl_why;
};
void	 front_list_begin(struct front_list *, const struct front_id *,
	    char *, size_t);
void	 front_list_add(struct front_list *, const char *, const char *,
	    const char *, size_t);
int	 front_list_end(struct front_list *, size_t *, const char **);

/*
 * An upstream tool's input schema as the agent may see it: the JSON
 * Schema annotations that carry text (description, title, $comment,
 * examples) removed at every level where the value is a schema, names
 * of properties kept.  tmp (tmpsz bytes) holds the input's canonical
 * form on the way; the result is canonical, in out with a NUL after it.
 * As for a line, out needs two bytes more than the result.
 * 0 with *outlen, -1 with *why.
 */
int	 front_schema_strip(const char *, size_t, char *, size_t, char *,
	    size_t, size_t *, const char **);
__END_DECLS

#endif /* CMCP_BRIDGE_FRONT_H */
