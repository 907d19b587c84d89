/*
 * SHA-256, from libmd (<sha2.h>), behind the small interface the suite
 * and its fixtures use.  The static fixtures link libmd's archive.  Used
 * for payload digests and for pinning MCP tool definitions; never for
 * secrets that need constant-time handling.
 */

#ifndef CMCP_SHA256_H
#define CMCP_SHA256_H

#include <stddef.h>
#include <stdint.h>
#include <sha2.h>

#define SHA256_DIGEST_BYTES	SHA256_DIGEST_LENGTH
#define SHA256_HEX_BYTES	SHA256_DIGEST_STRING_LENGTH	/* with NUL */

struct sha256_ctx {
	SHA2_CTX	 md;
};

void	 sha256_init(struct sha256_ctx *);
void	 sha256_update(struct sha256_ctx *, const void *, size_t);
void	 sha256_final(struct sha256_ctx *, uint8_t [SHA256_DIGEST_BYTES]);
void	 sha256(const void *, size_t, uint8_t [SHA256_DIGEST_BYTES]);
void	 sha256_hex(const uint8_t [SHA256_DIGEST_BYTES],
	    char [SHA256_HEX_BYTES]);

#endif /* CMCP_SHA256_H */
