/*
 * Strict JSON for untrusted bytes: agent frames (bridge) and MCP messages
 * (gateway).  cJSON alone accepts duplicate keys and ill-formed UTF-8; the
 * validator here runs first and refuses them, with a fixed reason string
 * that never quotes the input.
 */

#ifndef CMCP_JSON_H
#define CMCP_JSON_H

#include <stddef.h>

struct json_limits {
	size_t		 max_bytes;	/* whole document */
	int		 max_depth;	/* nesting of arrays and objects */
};

__BEGIN_DECLS
/*
 * 0 when buf[0..len) is exactly one RFC 8259 value with optional
 * surrounding whitespace, well-formed UTF-8 (no overlongs, surrogates or
 * code points above U+10FFFF), no NUL byte and no \u0000 escape, no
 * duplicate member name in any object (compared after unescaping), within
 * the limits.  -1 otherwise, with *why set to a fixed string.
 */
int	 json_validate(const char *, size_t, const struct json_limits *,
	    const char **);
__END_DECLS

#endif /* CMCP_JSON_H */
