/*
 * SHA-256 through libmd.  The digest itself is libmd's (FIPS 180-4);
 * what is here is the suite's interface to it and the lowercase hex
 * the audit store and the fixtures print.
 */

#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

void
sha256_init(struct sha256_ctx *ctx)
{
	SHA256Init(&ctx->md);
}

void
sha256_update(struct sha256_ctx *ctx, const void *data, size_t len)
{
	SHA256Update(&ctx->md, data, len);
}

/* libmd clears the context once the digest is out. */
void
sha256_final(struct sha256_ctx *ctx, uint8_t out[SHA256_DIGEST_BYTES])
{
	SHA256Final(out, &ctx->md);
}

void
sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_BYTES])
{
	struct sha256_ctx	 ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, data, len);
	sha256_final(&ctx, out);
}

void
sha256_hex(const uint8_t digest[SHA256_DIGEST_BYTES],
    char hex[SHA256_HEX_BYTES])
{
	static const char	 digits[] = "0123456789abcdef";
	int			 i;

	for (i = 0; i < SHA256_DIGEST_BYTES; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 0x0f];
	}
	hex[2 * SHA256_DIGEST_BYTES] = '\0';
}
