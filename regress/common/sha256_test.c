/*
 * SHA-256 against the FIPS 180-4 example messages (and the empty string),
 * messages at the padding boundaries, and the same digests fed in pieces.
 */

#include <atf-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

#define MILLION		1000000

static void
check(const void *msg, size_t len, const char *want)
{
	uint8_t		 d[SHA256_DIGEST_BYTES];
	char		 hex[SHA256_HEX_BYTES];

	sha256(msg, len, d);
	sha256_hex(d, hex);
	ATF_CHECK_STREQ(hex, want);
}

static void
check_a(size_t n, const char *want)
{
	char		*buf;

	ATF_REQUIRE((buf = malloc(n + 1)) != NULL);
	memset(buf, 'a', n);
	check(buf, n, want);
	free(buf);
}

ATF_TC_WITHOUT_HEAD(empty_string);
ATF_TC_BODY(empty_string, tc)
{
	check("", 0,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

ATF_TC_WITHOUT_HEAD(fips_abc);
ATF_TC_BODY(fips_abc, tc)
{
	check("abc", 3,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

ATF_TC_WITHOUT_HEAD(fips_two_blocks);
ATF_TC_BODY(fips_two_blocks, tc)
{
	const char	*m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	check(m, strlen(m),
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

ATF_TC_WITHOUT_HEAD(fips_896_bits);
ATF_TC_BODY(fips_896_bits, tc)
{
	const char	*m = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklm"
	    "ghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

	check(m, strlen(m),
	    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

ATF_TC_WITHOUT_HEAD(fips_million_a);
ATF_TC_BODY(fips_million_a, tc)
{
	check_a(MILLION,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* 55 and 56 bytes: the length fits in the last block or needs another. */
ATF_TC_WITHOUT_HEAD(padding_boundaries);
ATF_TC_BODY(padding_boundaries, tc)
{
	check_a(55,
	    "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_a(56,
	    "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_a(63,
	    "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34");
	check_a(64,
	    "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	check_a(119,
	    "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb");
	check_a(120,
	    "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c");
}

/* Any split of the input into two updates gives the one-shot digest. */
ATF_TC_WITHOUT_HEAD(split_updates_agree);
ATF_TC_BODY(split_updates_agree, tc)
{
	struct sha256_ctx	 ctx;
	uint8_t			 msg[200], whole[SHA256_DIGEST_BYTES];
	uint8_t			 part[SHA256_DIGEST_BYTES];
	size_t			 i, len;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	for (len = 0; len <= sizeof(msg); len += 13) {
		sha256(msg, len, whole);
		for (i = 0; i <= len; i++) {
			sha256_init(&ctx);
			sha256_update(&ctx, msg, i);
			sha256_update(&ctx, msg + i, 0);
			sha256_update(&ctx, msg + i, len - i);
			sha256_final(&ctx, part);
			ATF_REQUIRE(memcmp(whole, part, sizeof(whole)) == 0);
		}
	}
}

/* The million a's, one byte at a time, through the buffering path. */
ATF_TC_WITHOUT_HEAD(bytewise_million_a);
ATF_TC_BODY(bytewise_million_a, tc)
{
	struct sha256_ctx	 ctx;
	uint8_t			 d[SHA256_DIGEST_BYTES];
	char			 hex[SHA256_HEX_BYTES];
	size_t			 i;

	sha256_init(&ctx);
	for (i = 0; i < MILLION; i++)
		sha256_update(&ctx, "a", 1);
	sha256_final(&ctx, d);
	sha256_hex(d, hex);
	ATF_CHECK_STREQ(hex,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, empty_string);
	ATF_TP_ADD_TC(tp, fips_abc);
	ATF_TP_ADD_TC(tp, fips_two_blocks);
	ATF_TP_ADD_TC(tp, fips_896_bits);
	ATF_TP_ADD_TC(tp, fips_million_a);
	ATF_TP_ADD_TC(tp, padding_boundaries);
	ATF_TP_ADD_TC(tp, split_updates_agree);
	ATF_TP_ADD_TC(tp, bytewise_million_a);
	return atf_no_error();
}
