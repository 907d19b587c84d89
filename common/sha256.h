/*
 * SHA-256 (FIPS 180-4).  Small and dependency-free, so that the static
 * fixtures can link it too.  Used for payload digests and for pinning MCP
 * tool definitions; never for secrets that need constant-time handling.
 */

#ifndef CMCP_SHA256_H
#define CMCP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_BYTES	32
#define SHA256_BLOCK_BYTES	64
#define SHA256_HEX_BYTES	(2 * SHA256_DIGEST_BYTES + 1)	/* with NUL */

struct sha256_ctx {
	uint32_t	 state[8];
	uint64_t	 bytes;		/* message length so far */
	size_t		 used;		/* bytes waiting in block */
	uint8_t		 block[SHA256_BLOCK_BYTES];
};

void	 sha256_init(struct sha256_ctx *);
void	 sha256_update(struct sha256_ctx *, const void *, size_t);
void	 sha256_final(struct sha256_ctx *, uint8_t [SHA256_DIGEST_BYTES]);
void	 sha256(const void *, size_t, uint8_t [SHA256_DIGEST_BYTES]);
void	 sha256_hex(const uint8_t [SHA256_DIGEST_BYTES],
	    char [SHA256_HEX_BYTES]);

#endif /* CMCP_SHA256_H */
