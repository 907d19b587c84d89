/*
 * SHA-256 as specified in FIPS 180-4, sections 4.1.2, 4.2.2, 5.1.1,
 * 5.3.3 and 6.2.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sha256.h"

#define ROTR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))
#define CH(x, y, z)	(((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z)	(((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x)	(ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define BSIG1(x)	(ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define SSIG0(x)	(ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define SSIG1(x)	(ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

/* Fractional parts of the cube roots of the first 64 primes. */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* Fractional parts of the square roots of the first 8 primes. */
static const uint32_t sha256_h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
};

static void	sha256_block(struct sha256_ctx *, const uint8_t *);

void
sha256_init(struct sha256_ctx *ctx)
{
	memcpy(ctx->state, sha256_h0, sizeof(ctx->state));
	ctx->bytes = 0;
	ctx->used = 0;
}

void
sha256_update(struct sha256_ctx *ctx, const void *data, size_t len)
{
	const uint8_t	*p = data;
	size_t		 n;

	ctx->bytes += len;
	if (ctx->used > 0) {
		n = SHA256_BLOCK_BYTES - ctx->used;
		if (n > len)
			n = len;
		memcpy(ctx->block + ctx->used, p, n);
		ctx->used += n;
		p += n;
		len -= n;
		if (ctx->used < SHA256_BLOCK_BYTES)
			return;
		sha256_block(ctx, ctx->block);
		ctx->used = 0;
	}
	while (len >= SHA256_BLOCK_BYTES) {
		sha256_block(ctx, p);
		p += SHA256_BLOCK_BYTES;
		len -= SHA256_BLOCK_BYTES;
	}
	if (len > 0) {
		memcpy(ctx->block, p, len);
		ctx->used = len;
	}
}

void
sha256_final(struct sha256_ctx *ctx, uint8_t out[SHA256_DIGEST_BYTES])
{
	uint64_t	 bits = ctx->bytes * 8;
	int		 i;

	/* 0x80, zeros up to 56 mod 64, then the length in bits, big-endian. */
	ctx->block[ctx->used++] = 0x80;
	if (ctx->used > SHA256_BLOCK_BYTES - 8) {
		memset(ctx->block + ctx->used, 0,
		    SHA256_BLOCK_BYTES - ctx->used);
		sha256_block(ctx, ctx->block);
		ctx->used = 0;
	}
	memset(ctx->block + ctx->used, 0, SHA256_BLOCK_BYTES - 8 - ctx->used);
	for (i = 0; i < 8; i++)
		ctx->block[SHA256_BLOCK_BYTES - 1 - i] = bits >> (8 * i);
	sha256_block(ctx, ctx->block);

	for (i = 0; i < 8; i++) {
		out[4 * i] = ctx->state[i] >> 24;
		out[4 * i + 1] = ctx->state[i] >> 16;
		out[4 * i + 2] = ctx->state[i] >> 8;
		out[4 * i + 3] = ctx->state[i];
	}
	memset(ctx, 0, sizeof(*ctx));
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

static void
sha256_block(struct sha256_ctx *ctx, const uint8_t *p)
{
	uint32_t	 w[64], a, b, c, d, e, f, g, h, t1, t2;
	int		 i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = SSIG1(w[i - 2]) + w[i - 7] + SSIG0(w[i - 15]) +
		    w[i - 16];

	a = ctx->state[0];
	b = ctx->state[1];
	c = ctx->state[2];
	d = ctx->state[3];
	e = ctx->state[4];
	f = ctx->state[5];
	g = ctx->state[6];
	h = ctx->state[7];
	for (i = 0; i < 64; i++) {
		t1 = h + BSIG1(e) + CH(e, f, g) + sha256_k[i] + w[i];
		t2 = BSIG0(a) + MAJ(a, b, c);
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	ctx->state[0] += a;
	ctx->state[1] += b;
	ctx->state[2] += c;
	ctx->state[3] += d;
	ctx->state[4] += e;
	ctx->state[5] += f;
	ctx->state[6] += g;
	ctx->state[7] += h;
}
