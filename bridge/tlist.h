/*
 * The tools an MCP agent is shown (protocol mcp), as the gateway sends
 * them (IMSG_GW_TOOL, IMSG_GW_TOOLS_END; gateway/tools.h): the list in
 * force, the one being received, and every name any list of the session
 * held.  A tools/call naming a tool no list held is the agent's fault
 * (a violation); one naming a tool since revoked goes to the gateway,
 * which refuses it.
 */

#ifndef CMCP_BRIDGE_TLIST_H
#define CMCP_BRIDGE_TLIST_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "cmcp.h"
#include "config.h"
#include "front.h"
#include "sha256.h"

struct tlist_tool {
	char		 name[SESSION_OP_BYTES];
	char		*desc;		/* NUL-terminated, NULL: none */
	char		*schema;	/* canonical JSON object */
	size_t		 schemalen;
};

struct tlist_list {
	struct tlist_tool tools[CONF_OPERATIONS_MAX];
	size_t		 ntools;
	uint32_t	 serial;	/* 0: none yet */
};

struct tlist {
	struct tlist_list cur;
	struct tlist_list next;		/* being received */
	uint8_t		 digest[SHA256_DIGEST_BYTES];	/* of cur */
	char		 listed[CONF_OPERATIONS_MAX][SESSION_OP_BYTES];
	size_t		 nlisted;
};

__BEGIN_DECLS
/* 0, or -1 when the message is not one the gateway sends. */
int	 tlist_tool(struct tlist *, const void *, size_t);
/* 0 with *changed (the tools differ from the last list's), or -1. */
int	 tlist_end(struct tlist *, const void *, size_t, int *);
/* 1 when the session ever listed a tool of that name. */
int	 tlist_listed(const struct tlist *, const char *);
/* The answer to tools/list; as front_list_end(). */
int	 tlist_encode(const struct tlist *, const struct front_id *, char *,
	    size_t, size_t *, const char **);
__END_DECLS

#endif /* CMCP_BRIDGE_TLIST_H */
