/*
 * What an MCP agent is shown (agent { protocol mcp }, DESIGN 6): the
 * gateway builds the list of tools, one per operation, and sends it to
 * the bridge, which answers tools/list from it.  Upstream text never
 * gets there: a tool's description is the operator's or none, and its
 * input schema the operator's, or the upstream's pinned one with every
 * text annotation removed (front_schema_strip()), or a sandbox tool's
 * fixed one.
 */

#ifndef CMCP_GATEWAY_TOOLS_H
#define CMCP_GATEWAY_TOOLS_H

#include "config.h"
#include "policy.h"

/* A sandbox tool's arguments (sbcall.c): exactly {"source": string}. */
#define GW_SANDBOX_SCHEMA	"{\"additionalProperties\":false," \
	"\"properties\":{\"source\":{\"type\":\"string\"}}," \
	"\"required\":[\"source\"],\"type\":\"object\"}"

__BEGIN_DECLS
void		 gw_tools_init(const struct cmcp_conf *);
/*
 * The schema of operation i (index in c_operations).  An MCP tool's
 * operation without a configured schema takes the upstream's, canonical
 * as mcp_tool_schema() gives it.  NULL, or a fixed reason code.
 */
const char	*gw_tools_set(size_t, const char *, size_t);
/* Every operation's schema is set and the longest list fits a line. */
const char	*gw_tools_check(void);
/* The operations not revoked, to the bridge: a new list. */
void		 gw_tools_send(const struct gw_session *);
__END_DECLS

#endif /* CMCP_GATEWAY_TOOLS_H */
