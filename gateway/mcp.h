/*
 * The gateway's MCP client for one approved server (DESIGN 8): initialize
 * (2025-11-25 offered, 2025-06-18 accepted), notifications/initialized,
 * tools/list with bounded pagination, tools/call.  The server is reached
 * over its stdin and stdout (mcp_open(): a server on the host) or over
 * the attach stream of its container (mcp_open_stream()): one socket, raw
 * bytes to the container, Docker's multiplexed frames back (Tty false: an
 * 8-byte header, the stream in byte 0, 1 stdout or 2 stderr, three zero
 * bytes, the payload's size big-endian in bytes 4-7).  Its stdout payload
 * is read exactly as a pipe's bytes are; its stderr payload is counted
 * (stderr_bytes; past MCP_STDERR_BYTES in the client's life MCP_E_STDERR)
 * and dropped, never stored.  A header that names another stream, has a
 * reserved byte set or announces more than STREAM_FRAME_BYTES is not the
 * engine's: MCP_E_STREAM.
 *
 * Every byte the server writes is untrusted.  Each line is bounded while it
 * is still being read, checked by json_validate(), then read only through
 * the json.h readers (one view of the bytes, no allocation per message),
 * and refused with a fixed error code that never quotes it.  Nothing the server
 * sends is executed or interpreted: notifications are counted and dropped,
 * a ping is answered with an empty result, any other server request is
 * refused.  The one notification that changes what the client does is
 * notifications/tools/list_changed: during a listing it means "list
 * again" (at most MCP_RELISTS_MAX more times in the same operation);
 * after the pin it makes the client list again before its next call, or
 * right after the call it arrived in, before that call's result is handed
 * out.  A re-list after the pin that finds the definition of a configured
 * tool changed, added or gone is a rug-pull and ends the session
 * (MCP_E_CHANGED, the tool in changed[]); a change to other tools only
 * moves the pin (relists, catalog_changes, prev_pin say so).  The client
 * neither logs nor signals; the caller does both, and over pipes must
 * ignore (or catch, or block) SIGPIPE -- mcp_open() checks; over a stream
 * every write is a send(2) with MSG_NOSIGNAL.
 *
 * Operations block in poll(2) until one deadline, shared by all the writes
 * and reads of the operation, taken from the monotonic clock.  All the
 * pages of one tools/list are one operation, with one deadline and one
 * budget of MCP_NOTIFICATIONS interleaved messages (notifications and
 * pings alike).  Any failure once bytes have gone out ends the session:
 * later operations return the same code without touching the server.
 * Only refusals decided before sending (NOT_ALLOWED, ARGS, STATE, a
 * request over MCP_REQUEST_BYTES), a JSON-RPC error answer to tools/call,
 * and a result larger than the caller's buffer leave the session usable.
 * To run them from the event loop later, each operation becomes a small
 * state machine (request bytes still to write, the read buffer, the
 * expected id, the page and interleaved-message counts, the deadline)
 * stepped by the read and write events and a timer, with the same checks;
 * nothing here depends on blocking but the two poll loops in mcp_send()
 * and mcp_readline().
 */

#ifndef CMCP_MCP_H
#define CMCP_MCP_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cmcp.h"
#include "sha256.h"

#define MCP_PROTOCOL_VERSION	"2025-11-25"	/* offered */
#define MCP_PROTOCOL_PREVIOUS	"2025-06-18"	/* also accepted */

/* Bounds the configuration may choose within (cmcp-privsep.conf(5)). */
#define MCP_TIMEOUT_MAX_MS	60000
#define MCP_RESPONSE_MIN_BYTES	1024
#define MCP_RESPONSE_MAX_BYTES	(1024 * 1024)
#define MCP_TOOLS_MAX		256
#define MCP_PAGES_MAX		64

/* Fixed bounds of the client. */
#define MCP_NAME_BYTES		64	/* a tool name with its NUL */
#define MCP_CURSOR_BYTES	1024	/* a nextCursor as sent, quotes included */
#define MCP_PEER_ID_BYTES	64	/* the id of a server request */
#define MCP_JSON_DEPTH		64	/* nesting in any message */
#define MCP_RELISTS_MAX		2	/* more listings after list_changed */
/* A server's stderr over its attach stream: counted, never stored. */
#define MCP_STDERR_BYTES	(1024 * 1024)

/* Each line buffer of a client (rbuf, cbuf): the bound and a NUL. */
#define MCP_LINE_BUF(c)		((c)->lim.response_bytes + 1)

enum mcp_error {
	MCP_OK = 0,
	MCP_E_TIMEOUT,		/* the operation's deadline passed */
	MCP_E_ID,		/* response id not the outstanding request's */
	MCP_E_TOO_LARGE,	/* line, request or result over its bound */
	MCP_E_SYNTAX,		/* not strict JSON */
	MCP_E_PROTOCOL,		/* valid JSON, not a valid message here */
	MCP_E_VERSION,		/* server protocol version not one of ours */
	MCP_E_RPC_ERROR,	/* the server answered with a JSON-RPC error */
	MCP_E_RESULT,		/* result missing or of the wrong shape */
	MCP_E_TOOLS,		/* tool list malformed */
	MCP_E_TOOL_COUNT,	/* more tools than the bound */
	MCP_E_PAGES,		/* more tools/list pages than the bound */
	MCP_E_CURSOR,		/* a nextCursor repeated within one list */
	MCP_E_CHANGED,		/* a configured tool changed (rug-pull), or
				   list_changed during every listing */
	MCP_E_CLOSED,		/* the server closed its end */
	MCP_E_STREAM,		/* a frame header of the attach stream
				   that is not the engine's */
	MCP_E_STDERR,		/* stderr over MCP_STDERR_BYTES */
	MCP_E_NOTIFICATIONS,	/* too many interleaved messages */
	MCP_E_SERVER_REQUEST,	/* server request other than ping */
	MCP_E_NOT_ALLOWED,	/* tool not configured or not discovered */
	MCP_E_ARGS,		/* arguments not one JSON object */
	MCP_E_STATE,		/* operation out of order */
	MCP_E_INVAL,		/* bad limits or descriptors */
	MCP_E_SYSTEM,		/* a system call or allocation failed */
	MCP_E_MAX
};

/* Zero in a field means the default from cmcp.h. */
struct mcp_limits {
	unsigned int	 timeout_ms;	/* per operation; MCP_TIMEOUT_MS */
	size_t		 response_bytes; /* per line; MCP_RESPONSE_BYTES */
	unsigned int	 tools;		/* in the whole list; MCP_TOOLS */
	unsigned int	 pages;		/* of tools/list; MCP_LIST_PAGES */
};

struct mcp_tool {
	char		 name[MCP_NAME_BYTES];
	uint8_t		 digest[SHA256_DIGEST_BYTES];	/* its definition */
};

enum mcp_state {
	MCP_ST_OPEN,		/* nothing sent */
	MCP_ST_INITIALIZED,	/* handshake done */
	MCP_ST_READY,		/* tool list pinned */
	MCP_ST_DEAD		/* a fatal error happened */
};

/* A configured tool's input schema as first pinned, canonical. */
struct mcp_schema {
	char		*s;		/* NUL after it; NULL: not listed */
	size_t		 len;
};

/* Where the attach stream is in its frames (mcp_open_stream()). */
struct mcp_demux {
	unsigned char	 hdr[STREAM_HEADER_BYTES];	/* one being read */
	size_t		 hdrlen;
	size_t		 left;		/* of the current frame's payload */
	int		 type;		/* its stream: STREAM_STDOUT, _STDERR */
};

struct mcp_client {
	int		 wfd;		/* the server's stdin */
	int		 rfd;		/* the server's stdout; wfd on a stream */
	int		 stream;	/* an attach stream, not two pipes */
	struct mcp_demux dmx;
	unsigned char	*head;		/* stream bytes read before the open */
	size_t		 headlen;
	size_t		 headoff;	/* of those, handed to rbuf already */
	enum mcp_state	 state;
	enum mcp_error	 fatal;		/* sticky once state is DEAD */
	struct mcp_limits lim;
	uint64_t	 next_id;
	const char	*version;	/* the server's answer, one of ours */

	struct timespec	 deadline;	/* of the current operation */
	struct timespec	 end;		/* no deadline after it, if set */
	unsigned int	 interleaved;	/* in the current operation */
	int		 list_changed;	/* since the last listing began */

	char		*rbuf;		/* MCP_LINE_BUF */
	size_t		 rlen;		/* bytes in rbuf */
	size_t		 rscan;		/* of those, known to hold no '\n' */
	size_t		 rskip;		/* the line handed out last */
	char		*wbuf;		/* MCP_REQUEST_BYTES */
	char		*cbuf;		/* a tool definition, canonical form */

	struct mcp_tool	*tools;		/* pinned, sorted by name */
	size_t		 ntools;
	int		 pinned;	/* tools and pin are set */
	struct mcp_tool	*scratch;	/* a list being read */
	size_t		 nscratch;
	uint8_t		 pin[SHA256_DIGEST_BYTES];
	uint8_t		(*cursors)[SHA256_DIGEST_BYTES];	/* of a list */
	char		(*allow)[MCP_NAME_BYTES];	/* configured names */
	struct mcp_schema *schemas;	/* of each, in the same order */
	size_t		 nallow;

	/* After a re-list: what moved, as names of ours and digests. */
	uint8_t		 prev_pin[SHA256_DIGEST_BYTES];
	char		 changed[MCP_NAME_BYTES];	/* the rug-pulled tool */
	uint8_t		 changed_was[SHA256_DIGEST_BYTES];	/* 0: absent */
	uint8_t		 changed_now[SHA256_DIGEST_BYTES];

	/* Counts for the audit log; never contents. */
	uint64_t	 notifications;
	uint64_t	 pings;
	uint64_t	 calls;
	uint64_t	 listings;	/* tools/list operations, all pages */
	uint64_t	 relists;	/* listings after the pin */
	uint64_t	 catalog_changes; /* ... that moved the pin */
	uint64_t	 cancels;	/* notifications/cancelled sent */
	uint64_t	 stderr_bytes;	/* on the attach stream; the bound
					   + 1 once over it */
};

/* mcp_tool_state() flags. */
#define MCP_TOOL_CONFIGURED	0x1
#define MCP_TOOL_DISCOVERED	0x2
#define MCP_TOOL_CALLABLE	(MCP_TOOL_CONFIGURED | MCP_TOOL_DISCOVERED)

__BEGIN_DECLS
enum mcp_error	 mcp_open(struct mcp_client *, int, int,
		    const struct mcp_limits *);
enum mcp_error	 mcp_open_stream(struct mcp_client *, int,
		    const unsigned char *, size_t, const struct mcp_limits *);
enum mcp_error	 mcp_allow(struct mcp_client *, const char *);
enum mcp_error	 mcp_initialize(struct mcp_client *);
enum mcp_error	 mcp_list_tools(struct mcp_client *);
enum mcp_error	 mcp_call(struct mcp_client *, const char *, const char *,
		    size_t, char *, size_t *, int *);
void		 mcp_close(struct mcp_client *);
void		 mcp_set_end(struct mcp_client *, const struct timespec *);

const uint8_t	*mcp_tools_hash(const struct mcp_client *);
int		 mcp_tool_state(const struct mcp_client *, const char *);
int		 mcp_tool_schema(const struct mcp_client *, const char *,
		    const char **, size_t *);
const char	*mcp_strerror(enum mcp_error);
__END_DECLS

#endif /* CMCP_MCP_H */
