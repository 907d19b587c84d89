/*
 * Tests of the agent protocol's byte-level rules: every malformed request
 * frame refused with its own code, valid frames reduced to an operation
 * name and canonical arguments, the stdout line splitter at every split
 * point and at its bounds, and the lines the host writes.
 */

#include <sys/types.h>

#include <atf-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmcp.h"
#include "frame.h"
#include "json.h"

#define LINE_BYTES	(AGENT_FRAME_BYTES + 64)	/* test line buffers */
#define MAX_LINES	16

static struct bridge_request	 req;

static void
refused_n(const char *line, size_t len, size_t max_frame,
    enum bridge_frame_code want)
{
	enum bridge_frame_code	 got;
	const char		*why = NULL;

	strlcpy(req.br_operation, "stale", sizeof(req.br_operation));
	strlcpy(req.br_arguments, "{\"stale\":1}", sizeof(req.br_arguments));
	req.br_arglen = 11;
	got = bridge_frame_parse(line, len, max_frame, &req, &why);
	ATF_CHECK_MSG(got == want, "frame \"%.80s\": got %s, want %s", line,
	    bridge_frame_string(got), bridge_frame_string(want));
	ATF_CHECK_MSG(why != NULL &&
	    strcmp(why, bridge_frame_string(got)) == 0,
	    "frame \"%.80s\": why is not the code's string", line);
	/* Nothing of a refused frame is left for the caller to forward. */
	ATF_CHECK_STREQ(req.br_operation, "");
	ATF_CHECK_STREQ(req.br_arguments, "");
	ATF_CHECK_EQ(req.br_arglen, 0);
}

static void
refused(const char *line, enum bridge_frame_code want)
{
	refused_n(line, strlen(line), AGENT_FRAME_BYTES, want);
}

static void
accepted(const char *line, const char *op, const char *args)
{
	enum bridge_frame_code	 got;
	const char		*why = NULL;

	got = bridge_frame_parse(line, strlen(line), AGENT_FRAME_BYTES, &req,
	    &why);
	ATF_REQUIRE_MSG(got == FRAME_OK, "frame \"%.80s\" refused: %s", line,
	    bridge_frame_string(got));
	ATF_CHECK_STREQ(why, "ok");
	ATF_CHECK_STREQ_MSG(req.br_operation, op, "frame \"%.80s\"", line);
	ATF_CHECK_STREQ_MSG(req.br_arguments, args, "frame \"%.80s\"", line);
	ATF_CHECK_EQ(req.br_arglen, strlen(args));
}

/* A frame whose arguments are {"s":"xxx..."}, exactly len bytes long. */
static size_t
sized_frame(char *buf, size_t len)
{
	static const char	 head[] =
	    "{\"operation\":\"op\",\"arguments\":{\"s\":\"";
	static const char	 tail[] = "\"}}";
	size_t			 fill;

	ATF_REQUIRE(len >= sizeof(head) + sizeof(tail) - 2 &&
	    len < LINE_BYTES);
	fill = len - (sizeof(head) - 1) - (sizeof(tail) - 1);
	memcpy(buf, head, sizeof(head) - 1);
	memset(buf + sizeof(head) - 1, 'x', fill);
	memcpy(buf + sizeof(head) - 1 + fill, tail, sizeof(tail));
	return len;
}

/* A frame whose arguments nest arrays so that the frame is depth deep. */
static size_t
deep_frame(char *buf, size_t bufsz, size_t depth)
{
	size_t	 len, i;

	ATF_REQUIRE(depth >= 2 && 2 * depth + 64 < bufsz);
	len = snprintf(buf, bufsz,
	    "{\"operation\":\"op\",\"arguments\":{\"a\":");
	for (i = 2; i < depth; i++)
		buf[len++] = '[';
	buf[len++] = '0';
	for (i = 2; i < depth; i++)
		buf[len++] = ']';
	buf[len++] = '}';
	buf[len++] = '}';
	buf[len] = '\0';
	return len;
}

ATF_TC_WITHOUT_HEAD(reference_malformed_frames_refused);
ATF_TC_BODY(reference_malformed_frames_refused, tc)
{
	/* cmcp-reference.md 3.3, the eight decode cases but the first. */
	refused("{\"operation\":\"permitted\",\"arguments\":{},"
	    "\"declared_data_class\":\"public\"}", FRAME_MEMBERS);
	refused("{\"operation\":\"permitted\",\"arguments\":{},"
	    "\"sink_policy\":{\"public.tool\":\"confidential\"}}",
	    FRAME_MEMBERS);
	refused("{\"operation\":[\"permitted\"],\"arguments\":{}}",
	    FRAME_OPERATION);
	refused("{\"operation\":\"permitted\",\"arguments\":[]}",
	    FRAME_ARGUMENTS);
	refused("[]", FRAME_NOT_OBJECT);
	refused("\"secret\"", FRAME_NOT_OBJECT);
	refused("null", FRAME_NOT_OBJECT);
	/* And the plaintext line the reference refuses. */
	refused("private plaintext", FRAME_SYNTAX);
}

/*
 * The first reference case, an unknown operation, is well-formed here:
 * the bridge does not hold the aliases.  It must reach the gateway's alias
 * lookup with the name exactly as sent.
 */
ATF_TC_WITHOUT_HEAD(unknown_operation_passed_intact_for_alias_lookup);
ATF_TC_BODY(unknown_operation_passed_intact_for_alias_lookup, tc)
{
	accepted("{\"operation\":\"no.such-alias_9\",\"arguments\":{}}",
	    "no.such-alias_9", "{}");
}

ATF_TC_WITHOUT_HEAD(frame_with_duplicate_keys_refused);
ATF_TC_BODY(frame_with_duplicate_keys_refused, tc)
{
	refused("{\"operation\":\"a\",\"operation\":\"b\",\"arguments\":{}}",
	    FRAME_DUPLICATE_KEY);
	refused("{\"operation\":\"a\",\"arguments\":{},\"arguments\":{}}",
	    FRAME_DUPLICATE_KEY);
	refused("{\"operation\":\"a\",\"\\u006fperation\":\"b\","
	    "\"arguments\":{}}", FRAME_DUPLICATE_KEY);
	refused("{\"operation\":\"a\",\"arguments\":{\"x\":1,\"x\":2}}",
	    FRAME_DUPLICATE_KEY);
	refused("{\"operation\":\"a\",\"arguments\":{\"l\":[{\"y\":1,"
	    "\"\\u0079\":1}]}}", FRAME_DUPLICATE_KEY);
}

ATF_TC_WITHOUT_HEAD(frame_with_nul_refused);
ATF_TC_BODY(frame_with_nul_refused, tc)
{
	static const char	 raw[] = "{\"operation\":\"a\",\"arguments\":"
	    "{\"x\":\"a\0b\"}}";

	refused_n(raw, sizeof(raw) - 1, AGENT_FRAME_BYTES, FRAME_NUL);
	refused_n("{\"operation\":\"a\",\"arguments\":{}}\0", 34,
	    AGENT_FRAME_BYTES, FRAME_NUL);
	refused("{\"operation\":\"a\",\"arguments\":{\"x\":\"\\u0000\"}}",
	    FRAME_NUL);
	refused("{\"operation\":\"a\\u0000\",\"arguments\":{}}", FRAME_NUL);
}

ATF_TC_WITHOUT_HEAD(frame_with_invalid_utf8_refused);
ATF_TC_BODY(frame_with_invalid_utf8_refused, tc)
{
	refused("{\"operation\":\"a\",\"arguments\":{\"x\":\"\xff\"}}",
	    FRAME_UTF8);
	refused("{\"operation\":\"a\",\"arguments\":{\"x\":\"\xc0\xaf\"}}",
	    FRAME_UTF8);
	refused("{\"operation\":\"a\",\"arguments\":{\"x\":\"\xed\xa0\x80\"}}",
	    FRAME_UTF8);
	refused("{\"operation\":\"a\",\"arguments\":"
	    "{\"x\":\"\xf4\x90\x80\x80\"}}", FRAME_UTF8);
	refused("{\"operation\":\"a\",\"arguments\":{\"x\":\"\xe2\x82\"}}",
	    FRAME_UTF8);
	refused("{\"operation\":\"a\",\"arguments\":{\"x\":\"\\ud800\"}}",
	    FRAME_UTF8);
	refused("{\"operation\":\"a\xc3\",\"arguments\":{}}", FRAME_UTF8);
	refused("\xef\xbf{}", FRAME_UTF8);
}

ATF_TC_WITHOUT_HEAD(frame_depth_at_limit_accepted_one_more_refused);
ATF_TC_BODY(frame_depth_at_limit_accepted_one_more_refused, tc)
{
	char	 buf[4096];
	size_t	 len;

	len = deep_frame(buf, sizeof(buf), BRIDGE_DEPTH_MAX);
	ATF_CHECK(bridge_frame_parse(buf, len, AGENT_FRAME_BYTES, &req,
	    NULL) == FRAME_OK);
	len = deep_frame(buf, sizeof(buf), BRIDGE_DEPTH_MAX + 1);
	refused_n(buf, len, AGENT_FRAME_BYTES, FRAME_DEPTH);
}

ATF_TC_WITHOUT_HEAD(frame_nested_1000_deep_refused);
ATF_TC_BODY(frame_nested_1000_deep_refused, tc)
{
	char	 buf[4096];
	size_t	 len;

	len = deep_frame(buf, sizeof(buf), 1000);
	refused_n(buf, len, AGENT_FRAME_BYTES, FRAME_DEPTH);
	memset(buf, '[', 1000);
	refused_n(buf, 1000, AGENT_FRAME_BYTES, FRAME_DEPTH);
}

ATF_TC_WITHOUT_HEAD(frame_size_at_limit_accepted_one_more_refused);
ATF_TC_BODY(frame_size_at_limit_accepted_one_more_refused, tc)
{
	char	*buf;
	size_t	 len;

	ATF_REQUIRE((buf = malloc(LINE_BYTES)) != NULL);
	len = sized_frame(buf, AGENT_FRAME_BYTES);
	ATF_CHECK(bridge_frame_parse(buf, len, AGENT_FRAME_BYTES, &req,
	    NULL) == FRAME_OK);
	ATF_CHECK_EQ(req.br_arglen, AGENT_FRAME_BYTES - 31);
	len = sized_frame(buf, AGENT_FRAME_BYTES + 1);
	refused_n(buf, len, AGENT_FRAME_BYTES, FRAME_TOO_LARGE);

	/* A smaller configured bound, exactly and one past. */
	len = sized_frame(buf, 100);
	ATF_CHECK(bridge_frame_parse(buf, len, 100, &req, NULL) == FRAME_OK);
	refused_n(buf, len, 99, FRAME_TOO_LARGE);

	/* A bound above the maximum counts as the maximum. */
	len = sized_frame(buf, AGENT_FRAME_BYTES + 1);
	refused_n(buf, len, AGENT_FRAME_BYTES * 2, FRAME_TOO_LARGE);
	free(buf);
}

ATF_TC_WITHOUT_HEAD(two_objects_on_one_line_refused);
ATF_TC_BODY(two_objects_on_one_line_refused, tc)
{
	refused("{\"operation\":\"a\",\"arguments\":{}}"
	    "{\"operation\":\"b\",\"arguments\":{}}", FRAME_TRAILING);
	refused("{\"operation\":\"a\",\"arguments\":{}} "
	    "{\"operation\":\"b\",\"arguments\":{}}", FRAME_TRAILING);
}

ATF_TC_WITHOUT_HEAD(trailing_garbage_refused);
ATF_TC_BODY(trailing_garbage_refused, tc)
{
	refused("{\"operation\":\"a\",\"arguments\":{}}x", FRAME_TRAILING);
	refused("{\"operation\":\"a\",\"arguments\":{}},", FRAME_TRAILING);
	refused("{\"operation\":\"a\",\"arguments\":{}}]", FRAME_TRAILING);
	refused("{\"operation\":\"a\",\"arguments\":{}}\r\nx", FRAME_TRAILING);
	/* Whitespace around the object is not garbage. */
	accepted(" \t{\"operation\":\"a\",\"arguments\":{}}\r", "a", "{}");
}

ATF_TC_WITHOUT_HEAD(frame_syntax_errors_refused);
ATF_TC_BODY(frame_syntax_errors_refused, tc)
{
	refused("", FRAME_SYNTAX);
	refused(" ", FRAME_SYNTAX);
	refused("{\"operation\":\"a\",\"arguments\":{}", FRAME_SYNTAX);
	refused("{\"operation\":\"a\",\"arguments\":{},}", FRAME_SYNTAX);
	refused("{operation:\"a\",arguments:{}}", FRAME_SYNTAX);
	refused("{'operation':'a','arguments':{}}", FRAME_SYNTAX);
	refused("{\"operation\":\"a\",\"arguments\":{\"n\":01}}",
	    FRAME_SYNTAX);
	refused("{\"operation\":\"a\",\"arguments\":{\"n\":NaN}}",
	    FRAME_SYNTAX);
}

ATF_TC_WITHOUT_HEAD(non_object_arguments_refused);
ATF_TC_BODY(non_object_arguments_refused, tc)
{
	refused("{\"operation\":\"a\",\"arguments\":[]}", FRAME_ARGUMENTS);
	refused("{\"operation\":\"a\",\"arguments\":[{}]}", FRAME_ARGUMENTS);
	refused("{\"operation\":\"a\",\"arguments\":\"{}\"}", FRAME_ARGUMENTS);
	refused("{\"operation\":\"a\",\"arguments\":1}", FRAME_ARGUMENTS);
	refused("{\"operation\":\"a\",\"arguments\":null}", FRAME_ARGUMENTS);
	refused("{\"operation\":\"a\",\"arguments\":true}", FRAME_ARGUMENTS);
	refused("{\"operation\":\"a\",\"arguments\":false}", FRAME_ARGUMENTS);
}

ATF_TC_WITHOUT_HEAD(operation_not_a_string_refused);
ATF_TC_BODY(operation_not_a_string_refused, tc)
{
	refused("{\"operation\":1,\"arguments\":{}}", FRAME_OPERATION);
	refused("{\"operation\":null,\"arguments\":{}}", FRAME_OPERATION);
	refused("{\"operation\":true,\"arguments\":{}}", FRAME_OPERATION);
	refused("{\"operation\":{},\"arguments\":{}}", FRAME_OPERATION);
	refused("{\"operation\":[\"a\"],\"arguments\":{}}", FRAME_OPERATION);
}

ATF_TC_WITHOUT_HEAD(operation_empty_or_too_long_refused);
ATF_TC_BODY(operation_empty_or_too_long_refused, tc)
{
	char	 name[BRIDGE_OPERATION_BYTES + 2], line[256];

	refused("{\"operation\":\"\",\"arguments\":{}}", FRAME_OPERATION);

	memset(name, 'o', BRIDGE_OPERATION_BYTES);
	name[BRIDGE_OPERATION_BYTES] = '\0';
	snprintf(line, sizeof(line), "{\"operation\":\"%s\",\"arguments\":{}}",
	    name);
	accepted(line, name, "{}");

	memset(name, 'o', BRIDGE_OPERATION_BYTES + 1);
	name[BRIDGE_OPERATION_BYTES + 1] = '\0';
	snprintf(line, sizeof(line), "{\"operation\":\"%s\",\"arguments\":{}}",
	    name);
	refused(line, FRAME_OPERATION);
}

ATF_TC_WITHOUT_HEAD(operation_with_bad_characters_refused);
ATF_TC_BODY(operation_with_bad_characters_refused, tc)
{
	static const char *const bad[] = {
		"a b", "a/b", "a:b", "a+b", "a,b", "a*", "\\\"a", "a\\\\",
		"a\\n", "a\\t", "\xc3\xa9", "\\u00e9", "a\x7f", "*", "..%2f",
	};
	char		 line[256];
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line),
		    "{\"operation\":\"%s\",\"arguments\":{}}", bad[i]);
		refused(line, FRAME_OPERATION);
	}
	accepted("{\"operation\":\"azAZ09_.-\",\"arguments\":{}}",
	    "azAZ09_.-", "{}");
	/* Escapes are undone before the check. */
	accepted("{\"operation\":\"\\u0073earch\",\"arguments\":{}}",
	    "search", "{}");
}

ATF_TC_WITHOUT_HEAD(missing_or_other_members_refused);
ATF_TC_BODY(missing_or_other_members_refused, tc)
{
	refused("{}", FRAME_MEMBERS);
	refused("{\"operation\":\"a\"}", FRAME_MEMBERS);
	refused("{\"arguments\":{}}", FRAME_MEMBERS);
	refused("{\"Operation\":\"a\",\"arguments\":{}}", FRAME_MEMBERS);
	refused("{\"operation\":\"a\",\"arguments \":{}}", FRAME_MEMBERS);
	refused("{\"op\":\"a\",\"arguments\":{}}", FRAME_MEMBERS);
	refused("{\"operation\":\"a\",\"arguments\":{},\"id\":1}",
	    FRAME_MEMBERS);
	refused("{\"label\":\"public\",\"operation\":\"a\",\"arguments\":{}}",
	    FRAME_MEMBERS);
	/* The member check comes before the operation's and arguments'. */
	refused("{\"operation\":1,\"arguments\":[],\"x\":0}", FRAME_MEMBERS);
}

/*
 * A frame with both a bad operation and bad arguments is named for its
 * operation: the operation is checked first and the arguments not read.
 */
ATF_TC_WITHOUT_HEAD(bad_operation_named_before_bad_arguments);
ATF_TC_BODY(bad_operation_named_before_bad_arguments, tc)
{
	refused("{\"operation\":\"a b\",\"arguments\":[]}", FRAME_OPERATION);
	refused("{\"operation\":1,\"arguments\":null}", FRAME_OPERATION);
}

/* The name check on its own, as the MCP front door and tool list use it. */
ATF_TC_WITHOUT_HEAD(operation_name_valid_from_1_to_64_bytes);
ATF_TC_BODY(operation_name_valid_from_1_to_64_bytes, tc)
{
	char	 name[BRIDGE_OPERATION_BYTES + 1];

	memset(name, 'o', sizeof(name));
	ATF_CHECK_EQ(bridge_operation_valid(name, 1), 1);
	ATF_CHECK_EQ(bridge_operation_valid(name, BRIDGE_OPERATION_BYTES), 1);
	ATF_CHECK_EQ(bridge_operation_valid(name, BRIDGE_OPERATION_BYTES + 1),
	    0);
	ATF_CHECK_EQ(bridge_operation_valid(name, 0), 0);
	name[BRIDGE_OPERATION_BYTES - 1] = '/';
	ATF_CHECK_EQ(bridge_operation_valid(name, BRIDGE_OPERATION_BYTES), 0);
}

ATF_TC_WITHOUT_HEAD(wide_arguments_object_refused);
ATF_TC_BODY(wide_arguments_object_refused, tc)
{
	char	*buf;
	size_t	 len, i;

	ATF_REQUIRE((buf = malloc(LINE_BYTES)) != NULL);
	len = snprintf(buf, LINE_BYTES,
	    "{\"operation\":\"a\",\"arguments\":{");
	for (i = 0; i < 300; i++)
		len += snprintf(buf + len, LINE_BYTES - len, "%s\"m%zu\":0",
		    i ? "," : "", i);
	len += snprintf(buf + len, LINE_BYTES - len, "}}");
	refused_n(buf, len, AGENT_FRAME_BYTES, FRAME_WIDTH);
	free(buf);
}

ATF_TC_WITHOUT_HEAD(valid_frames_yield_canonical_arguments);
ATF_TC_BODY(valid_frames_yield_canonical_arguments, tc)
{
	accepted("{\"operation\":\"search.docs\",\"arguments\":{}}",
	    "search.docs", "{}");
	/* Member order of the frame does not matter. */
	accepted("{\"arguments\":{\"q\":\"x\"},\"operation\":\"search\"}",
	    "search", "{\"q\":\"x\"}");
	accepted(" { \"operation\" : \"read\" , \"arguments\" : { \"b\" : 2 ,"
	    " \"a\" : [ 1 , { \"d\" : 0 , \"c\" : \"\\u00e9\\/\" } ] } } ",
	    "read", "{\"a\":[1,{\"c\":\"\xc3\xa9/\",\"d\":0}],\"b\":2}");
	accepted("{\"operation\":\"n\",\"arguments\":{\"x\":1.50,\"y\":-0,"
	    "\"z\":1E+3,\"t\":true,\"u\":null}}", "n",
	    "{\"t\":true,\"u\":null,\"x\":1.5,\"y\":0,\"z\":1000}");
	accepted("{\"operation\":\"s\",\"arguments\":"
	    "{\"text\":\"line\\nnext\",\"ctl\":\"\\u0001\"}}", "s",
	    "{\"ctl\":\"\\u0001\",\"text\":\"line\\nnext\"}");
	/* Names equal to the frame's are ordinary argument names. */
	accepted("{\"operation\":\"o\",\"arguments\":{\"operation\":\"x\","
	    "\"arguments\":{}}}", "o",
	    "{\"arguments\":{},\"operation\":\"x\"}");
}

/*
 * A number that is not a finite double has no value a server could read:
 * the frame is refused wherever the number is, all else valid.
 */
ATF_TC_WITHOUT_HEAD(frame_with_number_out_of_range_refused);
ATF_TC_BODY(frame_with_number_out_of_range_refused, tc)
{
	refused("{\"operation\":\"a\",\"arguments\":{\"n\":1e999}}",
	    FRAME_SYNTAX);
	refused("{\"operation\":\"a\",\"arguments\":{\"n\":-1e400}}",
	    FRAME_SYNTAX);
	refused("{\"operation\":\"a\",\"arguments\":{\"l\":[1,{\"n\":1e309}]}}",
	    FRAME_SYNTAX);
	refused("{\"arguments\":{},\"operation\":\"a\",\"x\":1e999}",
	    FRAME_SYNTAX);
	/* The same frames with the largest finite numbers pass. */
	accepted("{\"operation\":\"a\",\"arguments\":{\"n\":"
	    "1.7976931348623157e308}}", "a", "{\"n\":17976931348623157e292}");
	accepted("{\"operation\":\"a\",\"arguments\":{\"l\":[1,{\"n\":"
	    "-1.7976931348623157e308}]}}", "a",
	    "{\"l\":[1,{\"n\":-17976931348623157e292}]}");
}

/*
 * The canonical arguments carry each number as the double a server reads
 * from the frame, in its shortest form: what the gateway's rules compare
 * is what the server gets.
 */
ATF_TC_WITHOUT_HEAD(frame_numbers_forwarded_as_the_double_read);
ATF_TC_BODY(frame_numbers_forwarded_as_the_double_read, tc)
{
	accepted("{\"operation\":\"a\",\"arguments\":{\"n\":"
	    "99.999999999999999999}}", "a", "{\"n\":100}");
	accepted("{\"operation\":\"a\",\"arguments\":{\"n\":"
	    "9007199254740993}}", "a", "{\"n\":9007199254740992}");
	accepted("{\"operation\":\"a\",\"arguments\":{\"n\":1e-400,"
	    "\"m\":-0.0,\"k\":1.2e100,\"j\":0.1,\"i\":5e-324}}", "a",
	    "{\"i\":5e-324,\"j\":0.1,\"k\":12e99,\"m\":0,\"n\":0}");
}

/*
 * The canonical arguments are written into a buffer of the frame's size:
 * a frame of the largest size whose numbers all have the spelling least
 * favourable to the canonical form still fits, and nothing grows.
 */
ATF_TC_WITHOUT_HEAD(frame_of_numbers_at_size_limit_fits_canonical);
ATF_TC_BODY(frame_of_numbers_at_size_limit_fits_canonical, tc)
{
	static const char *const nums[] = {
		"1E+3", "1e3", "100", "0.1e1", "1e-5", "0.00001", "-0",
		"1e-400", "5e-324", "12e99", "1e23", "1152921504606847e3",
		"0.30000000000000004", "6.2901843453097005e-235",
		"100000000000000000000000", "22250738585072014e-324"
	};
	static const char	 head[] =
	    "{\"operation\":\"op\",\"arguments\":{\"l\":[";
	char			*buf;
	size_t			 len, i, n;

	ATF_REQUIRE((buf = malloc(LINE_BYTES)) != NULL);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		n = strlen(nums[i]);
		memcpy(buf, head, sizeof(head) - 1);
		len = sizeof(head) - 1;
		while (len + n + 1 + 3 <= AGENT_FRAME_BYTES) {
			memcpy(buf + len, nums[i], n);
			len += n;
			buf[len++] = ',';
		}
		buf[len - 1] = ']';
		/* Pad with spaces to exactly the bound. */
		while (len + 2 < AGENT_FRAME_BYTES)
			buf[len++] = ' ';
		buf[len++] = '}';
		buf[len++] = '}';
		ATF_REQUIRE_EQ(len, AGENT_FRAME_BYTES);
		ATF_CHECK_MSG(bridge_frame_parse(buf, len, AGENT_FRAME_BYTES,
		    &req, NULL) == FRAME_OK, "frame of %s refused", nums[i]);
		ATF_CHECK(req.br_arglen < len);
		ATF_CHECK(json_check(req.br_arguments, req.br_arglen,
		    &(struct json_limits){ AGENT_FRAME_BYTES, 3 }) == JSON_OK);
	}
	free(buf);
}

ATF_TC_WITHOUT_HEAD(frame_codes_have_distinct_strings);
ATF_TC_BODY(frame_codes_have_distinct_strings, tc)
{
	int	 i, j;

	for (i = 0; i < FRAME_CODE_MAX; i++) {
		ATF_REQUIRE(bridge_frame_string(i) != NULL);
		for (j = 0; j < i; j++)
			ATF_CHECK(strcmp(bridge_frame_string(i),
			    bridge_frame_string(j)) != 0);
	}
	ATF_CHECK_STREQ(bridge_frame_string(FRAME_DUPLICATE_KEY),
	    "frame_duplicate_key");
	ATF_CHECK_STREQ(bridge_frame_string(FRAME_CODE_MAX), "frame_unknown");
	for (i = 0; i < REPLY_CODE_MAX; i++) {
		ATF_REQUIRE(bridge_reply_string(i) != NULL);
		for (j = 0; j < i; j++)
			ATF_CHECK(strcmp(bridge_reply_string(i),
			    bridge_reply_string(j)) != 0);
	}
	ATF_CHECK(bridge_reply_string(REPLY_CODE_MAX) == NULL);
}

/* Line splitter. */

struct collected {
	size_t	 n;
	char	 line[MAX_LINES][128];
	size_t	 len[MAX_LINES];
};

/* Feed one chunk, collecting lines; the result of the last feed call. */
static int
feed_all(struct bridge_lines *bl, const char *data, size_t len,
    struct collected *c, enum bridge_frame_code *code)
{
	const char	*line;
	size_t		 used, linelen;
	int		 r;

	while (len > 0) {
		r = bridge_lines_feed(bl, data, len, &used, &line, &linelen,
		    code);
		if (r == -1)
			return -1;
		ATF_REQUIRE(used > 0 && used <= len);
		if (r == 1) {
			ATF_REQUIRE(c->n < MAX_LINES && linelen < 128);
			memcpy(c->line[c->n], line, linelen);
			c->line[c->n][linelen] = '\0';
			c->len[c->n++] = linelen;
		} else
			ATF_REQUIRE_EQ(used, len);
		data += used;
		len -= used;
	}
	return 0;
}

ATF_TC_WITHOUT_HEAD(lines_split_at_every_byte_boundary);
ATF_TC_BODY(lines_split_at_every_byte_boundary, tc)
{
	static const char	 stream[] =
	    "{\"operation\":\"a\",\"arguments\":{}}\n"
	    "\n"
	    "x\n"
	    "{\"operation\":\"b\",\"arguments\":{\"k\":[1,2]}}\n";
	static const char *const want[] = {
		"{\"operation\":\"a\",\"arguments\":{}}",
		"",
		"x",
		"{\"operation\":\"b\",\"arguments\":{\"k\":[1,2]}}",
	};
	struct bridge_lines	*bl;
	struct collected	 c;
	enum bridge_frame_code	 code;
	size_t			 len = sizeof(stream) - 1, i, j, k;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	/* Every split into two chunks, and into three. */
	for (i = 0; i <= len; i++) {
		for (j = i; j <= len; j++) {
			memset(&c, 0, sizeof(c));
			bridge_lines_init(bl, 64, len);
			ATF_REQUIRE(feed_all(bl, stream, i, &c, &code) == 0);
			ATF_REQUIRE(feed_all(bl, stream + i, j - i, &c,
			    &code) == 0);
			ATF_REQUIRE(feed_all(bl, stream + j, len - j, &c,
			    &code) == 0);
			ATF_REQUIRE_EQ_MSG(c.n, 4, "split %zu %zu", i, j);
			for (k = 0; k < 4; k++)
				ATF_CHECK_STREQ_MSG(c.line[k], want[k],
				    "split %zu %zu line %zu", i, j, k);
			ATF_CHECK(bridge_lines_end(bl, &code) == 0);
			ATF_CHECK_EQ(code, FRAME_OK);
		}
	}
	/* One byte at a time. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 64, len);
	for (i = 0; i < len; i++)
		ATF_REQUIRE(feed_all(bl, stream + i, 1, &c, &code) == 0);
	ATF_REQUIRE_EQ(c.n, 4);
	for (k = 0; k < 4; k++)
		ATF_CHECK_STREQ(c.line[k], want[k]);
	free(bl);
}

ATF_TC_WITHOUT_HEAD(lines_longer_than_frame_refused_before_newline);
ATF_TC_BODY(lines_longer_than_frame_refused_before_newline, tc)
{
	struct bridge_lines	*bl;
	struct collected	 c;
	enum bridge_frame_code	 code;
	size_t			 i;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);

	/* Exactly the bound, then its newline: one line. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 8, 1024);
	ATF_REQUIRE(feed_all(bl, "12345678\n", 9, &c, &code) == 0);
	ATF_CHECK_EQ(c.n, 1);
	ATF_CHECK_EQ(c.len[0], 8);

	/* Byte by byte: the ninth byte of a line, no newline in sight. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 8, 1024);
	for (i = 0; i < 8; i++)
		ATF_REQUIRE(feed_all(bl, "x", 1, &c, &code) == 0);
	ATF_CHECK(feed_all(bl, "x", 1, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);

	/* In one chunk. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 8, 1024);
	ATF_CHECK(feed_all(bl, "123456789", 9, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);

	/* After good lines, the bound is per line. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 8, 1024);
	ATF_CHECK(feed_all(bl, "1234\n12345678\n123456789", 23, &c,
	    &code) == -1);
	ATF_CHECK_EQ(c.n, 2);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);

	/* A bound above the maximum counts as the maximum. */
	bridge_lines_init(bl, AGENT_FRAME_BYTES * 4, SIZE_MAX);
	ATF_CHECK_EQ(bl->bl_max_frame, AGENT_FRAME_BYTES);
	free(bl);
}

ATF_TC_WITHOUT_HEAD(stdout_budget_at_limit_accepted_one_more_refused);
ATF_TC_BODY(stdout_budget_at_limit_accepted_one_more_refused, tc)
{
	struct bridge_lines	*bl;
	struct collected	 c;
	enum bridge_frame_code	 code;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);

	/* Newlines count: ten bytes in all. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 64, 10);
	ATF_REQUIRE(feed_all(bl, "abcd\nefgh\n", 10, &c, &code) == 0);
	ATF_CHECK_EQ(c.n, 2);
	ATF_CHECK(feed_all(bl, "\n", 1, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_STDOUT_BUDGET);

	/* In one chunk: the complete lines before the excess still count. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 64, 10);
	ATF_CHECK(feed_all(bl, "abcd\nefgh\nX", 11, &c, &code) == -1);
	ATF_CHECK_EQ(c.n, 2);
	ATF_CHECK_EQ(code, FRAME_STDOUT_BUDGET);

	/* The excess need not end a line. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 64, 10);
	ATF_CHECK(feed_all(bl, "abcdefghijk", 11, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_STDOUT_BUDGET);

	/* A zero budget refuses the first byte. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 64, 0);
	ATF_CHECK(feed_all(bl, "\n", 1, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_STDOUT_BUDGET);
	free(bl);
}

ATF_TC_WITHOUT_HEAD(first_byte_over_a_bound_names_the_violation);
ATF_TC_BODY(first_byte_over_a_bound_names_the_violation, tc)
{
	struct bridge_lines	 *bl;
	struct collected	 c;
	enum bridge_frame_code	 code;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	/* The frame's fifth byte comes before the budget's seventh. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 4, 6);
	ATF_CHECK(feed_all(bl, "abcdefgh", 8, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);
	/* The budget's fourth byte comes before the frame's ninth. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 8, 3);
	ATF_CHECK(feed_all(bl, "abcdefghij", 10, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_STDOUT_BUDGET);
	/* The same byte breaks both: the frame bound is named. */
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 4, 4);
	ATF_CHECK(feed_all(bl, "abcde", 5, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);
	free(bl);
}

ATF_TC_WITHOUT_HEAD(line_violation_is_final);
ATF_TC_BODY(line_violation_is_final, tc)
{
	struct bridge_lines	*bl;
	struct collected	 c;
	enum bridge_frame_code	 code;
	const char		*line;
	size_t			 used, linelen;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 4, 1024);
	ATF_CHECK(feed_all(bl, "abcde", 5, &c, &code) == -1);
	code = FRAME_OK;
	ATF_CHECK(feed_all(bl, "a\n", 2, &c, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);
	ATF_CHECK_EQ(c.n, 0);
	code = FRAME_OK;
	ATF_CHECK(bridge_lines_feed(bl, "", 0, &used, &line, &linelen,
	    &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);
	code = FRAME_OK;
	ATF_CHECK(bridge_lines_end(bl, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);
	free(bl);
}

/*
 * The bytes of a violation are not taken: the caller advances by *used
 * before it looks at the result.
 */
ATF_TC_WITHOUT_HEAD(violating_bytes_are_not_taken);
ATF_TC_BODY(violating_bytes_are_not_taken, tc)
{
	struct bridge_lines	*bl;
	enum bridge_frame_code	 code;
	const char		*line;
	size_t			 used, linelen;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	bridge_lines_init(bl, 4, 1024);
	used = 99;
	ATF_CHECK(bridge_lines_feed(bl, "abcde\n", 6, &used, &line, &linelen,
	    &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);
	ATF_CHECK_EQ(used, 0);
	/* Later calls take nothing either. */
	used = 99;
	ATF_CHECK(bridge_lines_feed(bl, "a\n", 2, &used, &line, &linelen,
	    &code) == -1);
	ATF_CHECK_EQ(used, 0);

	bridge_lines_init(bl, 64, 3);
	used = 99;
	ATF_CHECK(bridge_lines_feed(bl, "abc\n", 4, &used, &line, &linelen,
	    &code) == -1);
	ATF_CHECK_EQ(code, FRAME_STDOUT_BUDGET);
	ATF_CHECK_EQ(used, 0);
	free(bl);
}

ATF_TC_WITHOUT_HEAD(empty_feed_takes_nothing_completes_nothing);
ATF_TC_BODY(empty_feed_takes_nothing_completes_nothing, tc)
{
	struct bridge_lines	*bl;
	enum bridge_frame_code	 code;
	const char		*line;
	size_t			 used, linelen;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	bridge_lines_init(bl, 8, 1024);
	used = 99;
	ATF_CHECK_EQ(bridge_lines_feed(bl, "", 0, &used, &line, &linelen,
	    &code), 0);
	ATF_CHECK_EQ(used, 0);
	/* Nor with half a line held. */
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, "ab", 2, &used, &line, &linelen,
	    &code), 0);
	used = 99;
	ATF_CHECK_EQ(bridge_lines_feed(bl, "", 0, &used, &line, &linelen,
	    &code), 0);
	ATF_CHECK_EQ(used, 0);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, "c\n", 2, &used, &line, &linelen,
	    &code), 1);
	ATF_CHECK_EQ(linelen, 3);
	ATF_CHECK(memcmp(line, "abc", 3) == 0);
	free(bl);
}

/* A line that arrives whole is returned where it is, not copied. */
ATF_TC_WITHOUT_HEAD(whole_line_returned_in_place);
ATF_TC_BODY(whole_line_returned_in_place, tc)
{
	static const char	 data[] = "{}\nab";
	struct bridge_lines	*bl;
	enum bridge_frame_code	 code;
	const char		*line;
	size_t			 used, linelen;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	bridge_lines_init(bl, 8, 1024);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, data, 5, &used, &line, &linelen,
	    &code), 1);
	ATF_CHECK_EQ(used, 3);
	ATF_CHECK(line == data);
	ATF_CHECK_EQ(linelen, 2);
	/* One in pieces is put together in the splitter's buffer. */
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, data + 3, 2, &used, &line,
	    &linelen, &code), 0);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, "c\n", 2, &used, &line, &linelen,
	    &code), 1);
	ATF_CHECK(line == bl->bl_buf);
	ATF_CHECK_EQ(linelen, 3);
	ATF_CHECK(memcmp(line, "abc", 3) == 0);
	free(bl);
}

/*
 * The splitter's buffer at its size: a line of AGENT_FRAME_BYTES held in
 * it, gathered each way the copies into it can fill it, and one byte
 * more refused.  Under make sanitize an overrun of bl_buf, the last
 * member of the allocation, is reported.
 */
ATF_TC_WITHOUT_HEAD(line_of_buffer_size_gathered_one_more_refused);
ATF_TC_BODY(line_of_buffer_size_gathered_one_more_refused, tc)
{
	struct bridge_lines	*bl;
	enum bridge_frame_code	 code;
	const char		*line;
	char			*x;
	size_t			 used, linelen, i;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	ATF_REQUIRE((x = malloc(AGENT_FRAME_BYTES + 2)) != NULL);
	memset(x, 'x', AGENT_FRAME_BYTES + 2);

	/* All of it held, then the newline alone. */
	bridge_lines_init(bl, AGENT_FRAME_BYTES, SIZE_MAX);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, x, AGENT_FRAME_BYTES, &used,
	    &line, &linelen, &code), 0);
	ATF_CHECK_EQ(used, AGENT_FRAME_BYTES);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, "\n", 1, &used, &line, &linelen,
	    &code), 1);
	ATF_CHECK_EQ(linelen, AGENT_FRAME_BYTES);
	for (i = 0; i < linelen && line[i] == 'x'; i++)
		;
	ATF_CHECK_EQ(i, AGENT_FRAME_BYTES);

	/* One byte held, the rest with the newline. */
	x[AGENT_FRAME_BYTES] = '\n';
	bridge_lines_init(bl, AGENT_FRAME_BYTES, SIZE_MAX);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, x, 1, &used, &line, &linelen,
	    &code), 0);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, x + 1, AGENT_FRAME_BYTES, &used,
	    &line, &linelen, &code), 1);
	ATF_CHECK_EQ(used, AGENT_FRAME_BYTES);
	ATF_CHECK_EQ(linelen, AGENT_FRAME_BYTES);
	for (i = 0; i < linelen && line[i] == 'x'; i++)
		;
	ATF_CHECK_EQ(i, AGENT_FRAME_BYTES);
	x[AGENT_FRAME_BYTES] = 'x';

	/* One more: held whole, then a byte. */
	bridge_lines_init(bl, AGENT_FRAME_BYTES, SIZE_MAX);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, x, AGENT_FRAME_BYTES, &used,
	    &line, &linelen, &code), 0);
	ATF_CHECK_EQ(bridge_lines_feed(bl, "x\n", 2, &used, &line, &linelen,
	    &code), -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);

	/* One more: a byte held, then the rest with the newline. */
	x[AGENT_FRAME_BYTES + 1] = '\n';
	bridge_lines_init(bl, AGENT_FRAME_BYTES, SIZE_MAX);
	ATF_REQUIRE_EQ(bridge_lines_feed(bl, x, 1, &used, &line, &linelen,
	    &code), 0);
	ATF_CHECK_EQ(bridge_lines_feed(bl, x + 1, AGENT_FRAME_BYTES + 1,
	    &used, &line, &linelen, &code), -1);
	ATF_CHECK_EQ(code, FRAME_TOO_LARGE);
	free(x);
	free(bl);
}

ATF_TC_WITHOUT_HEAD(unterminated_line_at_end_of_stream_refused);
ATF_TC_BODY(unterminated_line_at_end_of_stream_refused, tc)
{
	struct bridge_lines	*bl;
	struct collected	 c;
	enum bridge_frame_code	 code;

	ATF_REQUIRE((bl = malloc(sizeof(*bl))) != NULL);
	memset(&c, 0, sizeof(c));
	bridge_lines_init(bl, 64, 1024);
	ATF_REQUIRE(feed_all(bl, "{}\n{", 4, &c, &code) == 0);
	ATF_CHECK_EQ(c.n, 1);
	ATF_CHECK(bridge_lines_end(bl, &code) == -1);
	ATF_CHECK_EQ(code, FRAME_TRUNCATED);
	ATF_CHECK_STREQ(bridge_frame_string(code), "frame_truncated");

	bridge_lines_init(bl, 64, 1024);
	ATF_CHECK(bridge_lines_end(bl, &code) == 0);
	free(bl);
}

/* Host to agent. */

ATF_TC_WITHOUT_HEAD(reply_ok_carries_canonical_result_on_one_line);
ATF_TC_BODY(reply_ok_carries_canonical_result_on_one_line, tc)
{
	static const char	 result[] =
	    "{ \"b\" : 1,\n \"a\" : \"x\\ny\" }";
	static const char	 want[] = "{\"ok\":true,\"result\":"
	    "{\"a\":\"x\\ny\",\"b\":1}}\n";
	char			 out[128];
	const char		*why = NULL;
	size_t			 n;

	ATF_REQUIRE(bridge_reply_encode(REPLY_OK, result, sizeof(result) - 1,
	    out, sizeof(out), &n, &why) == 0);
	ATF_CHECK_STREQ(out, want);
	ATF_CHECK_EQ(n, sizeof(want) - 1);
	ATF_CHECK(memchr(out, '\n', n - 1) == NULL);

	/* Exactly enough room (the NUL included), then one byte less. */
	ATF_CHECK(bridge_reply_encode(REPLY_OK, result, sizeof(result) - 1,
	    out, sizeof(want), &n, &why) == 0);
	ATF_CHECK_STREQ(out, want);
	ATF_CHECK(bridge_reply_encode(REPLY_OK, result, sizeof(result) - 1,
	    out, sizeof(want) - 1, &n, &why) == -1);
	ATF_CHECK_STREQ(why, "output too large");
	ATF_CHECK(bridge_reply_encode(REPLY_OK, result, sizeof(result) - 1,
	    out, 4, &n, &why) == -1);
}

ATF_TC_WITHOUT_HEAD(reply_with_invalid_result_refused);
ATF_TC_BODY(reply_with_invalid_result_refused, tc)
{
	char		 out[128];
	const char	*why = NULL;
	size_t		 n;

	ATF_CHECK(bridge_reply_encode(REPLY_OK, "{\"a\":1,\"a\":2}", 13, out,
	    sizeof(out), &n, &why) == -1);
	ATF_CHECK_STREQ(why, "duplicate key");
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "1 2", 3, out, sizeof(out), &n,
	    &why) == -1);
	ATF_CHECK_STREQ(why, "trailing data");
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "", 0, out, sizeof(out), &n,
	    &why) == -1);
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "{\"n\":1e999}", 11, out,
	    sizeof(out), &n, &why) == -1);
	ATF_CHECK_STREQ(why, "number out of range");
}

ATF_TC_WITHOUT_HEAD(reply_errors_use_the_fixed_vocabulary);
ATF_TC_BODY(reply_errors_use_the_fixed_vocabulary, tc)
{
	static const struct {
		enum reply_code	 code;
		const char		*line;
	} cases[] = {
		{ REPLY_DENIED, "{\"ok\":false,\"error\":\"denied\"}\n" },
		{ REPLY_UNKNOWN_OPERATION,
		    "{\"ok\":false,\"error\":\"unknown_operation\"}\n" },
		{ REPLY_BUDGET_EXHAUSTED,
		    "{\"ok\":false,\"error\":\"budget_exhausted\"}\n" },
		{ REPLY_CEILING, "{\"ok\":false,\"error\":\"ceiling\"}\n" },
		{ REPLY_UPSTREAM_ERROR,
		    "{\"ok\":false,\"error\":\"upstream_error\"}\n" },
		{ REPLY_UPSTREAM_TIMEOUT,
		    "{\"ok\":false,\"error\":\"upstream_timeout\"}\n" },
		{ REPLY_REVOKED, "{\"ok\":false,\"error\":\"revoked\"}\n" },
		{ REPLY_INTERNAL, "{\"ok\":false,\"error\":\"internal\"}\n" },
	};
	char		 out[128];
	const char	*why = NULL;
	size_t		 i, n;

	ATF_REQUIRE_EQ(sizeof(cases) / sizeof(cases[0]), REPLY_CODE_MAX - 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ATF_REQUIRE(bridge_reply_encode(cases[i].code, NULL, 0, out,
		    sizeof(out), &n, &why) == 0);
		ATF_CHECK_STREQ(out, cases[i].line);
		ATF_CHECK_EQ(n, strlen(cases[i].line));
		ATF_CHECK(json_check(out, n, &(struct json_limits){ 128, 1 })
		    == JSON_OK);
	}
	ATF_CHECK(bridge_reply_encode(REPLY_CODE_MAX, NULL, 0, out,
	    sizeof(out), &n, &why) == -1);
	ATF_CHECK_STREQ(why, "unknown reply code");
	ATF_CHECK(bridge_reply_encode(REPLY_DENIED, NULL, 0, out,
	    strlen(cases[0].line), &n, &why) == -1);
	ATF_CHECK(bridge_reply_encode(REPLY_DENIED, NULL, 0, out,
	    strlen(cases[0].line) + 1, &n, &why) == 0);
}

ATF_TC_WITHOUT_HEAD(initial_frame_wraps_canonical_payload);
ATF_TC_BODY(initial_frame_wraps_canonical_payload, tc)
{
	static const char	 payload[] = " { \"doc\" : \"\\u0041\\r\", "
	    "\"id\" : 7 } ";
	static const char	 want[] = "{\"payload\":{\"doc\":\"A\\r\","
	    "\"id\":7}}\n";
	char			 out[128];
	const char		*why = NULL;
	size_t			 n;

	ATF_REQUIRE(bridge_initial_encode(payload, sizeof(payload) - 1, out,
	    sizeof(out), &n, &why) == 0);
	ATF_CHECK_STREQ(out, want);
	ATF_CHECK_EQ(n, sizeof(want) - 1);
	ATF_REQUIRE(bridge_initial_encode("\"plain\"", 7, out, sizeof(out), &n,
	    &why) == 0);
	ATF_CHECK_STREQ(out, "{\"payload\":\"plain\"}\n");
	ATF_CHECK(bridge_initial_encode("\"\xc0\xaf\"", 4, out, sizeof(out),
	    &n, &why) == -1);
	ATF_CHECK_STREQ(why, "invalid UTF-8");
}

/*
 * The least room a line needs: the head, one byte of value, the tail and
 * a NUL.  It is checked before the value is read.
 */
ATF_TC_WITHOUT_HEAD(reply_room_for_head_value_and_tail);
ATF_TC_BODY(reply_room_for_head_value_and_tail, tc)
{
	static const char	 want[] = AGENT_REPLY_HEAD "1" AGENT_WRAP_TAIL
	    "\n";
	const size_t		 hlen = sizeof(AGENT_REPLY_HEAD) - 1;
	char			 out[128];
	const char		*why;
	size_t			 n;

	ATF_REQUIRE_EQ(sizeof(want), hlen + 4);
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "1", 1, out, hlen + 4, &n,
	    &why) == 0);
	ATF_CHECK_STREQ(out, want);
	ATF_CHECK_EQ(n, hlen + 3);
	why = NULL;
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "1", 1, out, hlen + 3, &n,
	    &why) == -1);
	ATF_CHECK(why != NULL && strcmp(why, "output too large") == 0);
	why = NULL;
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "1 2", 3, out, hlen + 3, &n,
	    &why) == -1);
	ATF_CHECK(why != NULL && strcmp(why, "output too large") == 0);
	why = NULL;
	ATF_CHECK(bridge_initial_encode("1", 1, out,
	    sizeof(AGENT_PAYLOAD_HEAD) + 2, &n, &why) == -1);
	ATF_CHECK(why != NULL && strcmp(why, "output too large") == 0);
}

/*
 * The wrapper adds one level: a result nested JSON_DEPTH_MAX - 1 deep
 * makes a line JSON_DEPTH_MAX deep, the most any reader here accepts;
 * one level more is refused.
 */
ATF_TC_WITHOUT_HEAD(reply_result_nested_below_the_ceiling);
ATF_TC_BODY(reply_result_nested_below_the_ceiling, tc)
{
	char		 json[2 * JSON_DEPTH_MAX], out[2 * JSON_DEPTH_MAX + 64];
	const char	*why;
	size_t		 n, d;

	for (d = JSON_DEPTH_MAX - 1; d <= JSON_DEPTH_MAX; d++) {
		memset(json, '[', d);
		memset(json + d, ']', d);
		why = NULL;
		n = 0;
		if (d < JSON_DEPTH_MAX) {
			ATF_CHECK_MSG(bridge_reply_encode(REPLY_OK, json,
			    2 * d, out, sizeof(out), &n, &why) == 0,
			    "depth %zu refused: %s", d, why);
			ATF_CHECK_EQ(n, sizeof(AGENT_REPLY_HEAD) + 2 * d + 1);
			ATF_CHECK(json_check(out, n, &(struct json_limits){
			    sizeof(out), JSON_DEPTH_MAX }) == JSON_OK);
			ATF_CHECK(bridge_initial_encode(json, 2 * d, out,
			    sizeof(out), &n, &why) == 0);
		} else {
			ATF_CHECK(bridge_reply_encode(REPLY_OK, json, 2 * d,
			    out, sizeof(out), &n, &why) == -1);
			ATF_CHECK(why != NULL &&
			    strcmp(why, "nesting too deep") == 0);
			why = NULL;
			ATF_CHECK(bridge_initial_encode(json, 2 * d, out,
			    sizeof(out), &n, &why) == -1);
			ATF_CHECK(why != NULL &&
			    strcmp(why, "nesting too deep") == 0);
		}
	}
}

/* Every refusal of the encoders with why NULL: nothing is written there. */
ATF_TC_WITHOUT_HEAD(encoders_refuse_with_why_null);
ATF_TC_BODY(encoders_refuse_with_why_null, tc)
{
	char	 out[128];
	size_t	 n;

	ATF_CHECK(bridge_reply_encode(REPLY_CODE_MAX, NULL, 0, out,
	    sizeof(out), &n, NULL) == -1);
	ATF_CHECK(bridge_reply_encode(REPLY_DENIED, NULL, 0, out, 8, &n,
	    NULL) == -1);
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "1", 1, out, 4, &n,
	    NULL) == -1);
	ATF_CHECK(bridge_reply_encode(REPLY_OK, "1 2", 3, out, sizeof(out),
	    &n, NULL) == -1);
	ATF_CHECK(bridge_initial_encode("1", 1, out, 4, &n, NULL) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, reference_malformed_frames_refused);
	ATF_TP_ADD_TC(tp, unknown_operation_passed_intact_for_alias_lookup);
	ATF_TP_ADD_TC(tp, frame_with_duplicate_keys_refused);
	ATF_TP_ADD_TC(tp, frame_with_nul_refused);
	ATF_TP_ADD_TC(tp, frame_with_invalid_utf8_refused);
	ATF_TP_ADD_TC(tp, frame_depth_at_limit_accepted_one_more_refused);
	ATF_TP_ADD_TC(tp, frame_nested_1000_deep_refused);
	ATF_TP_ADD_TC(tp, frame_size_at_limit_accepted_one_more_refused);
	ATF_TP_ADD_TC(tp, two_objects_on_one_line_refused);
	ATF_TP_ADD_TC(tp, trailing_garbage_refused);
	ATF_TP_ADD_TC(tp, frame_syntax_errors_refused);
	ATF_TP_ADD_TC(tp, non_object_arguments_refused);
	ATF_TP_ADD_TC(tp, operation_not_a_string_refused);
	ATF_TP_ADD_TC(tp, operation_empty_or_too_long_refused);
	ATF_TP_ADD_TC(tp, operation_with_bad_characters_refused);
	ATF_TP_ADD_TC(tp, missing_or_other_members_refused);
	ATF_TP_ADD_TC(tp, bad_operation_named_before_bad_arguments);
	ATF_TP_ADD_TC(tp, operation_name_valid_from_1_to_64_bytes);
	ATF_TP_ADD_TC(tp, wide_arguments_object_refused);
	ATF_TP_ADD_TC(tp, valid_frames_yield_canonical_arguments);
	ATF_TP_ADD_TC(tp, frame_with_number_out_of_range_refused);
	ATF_TP_ADD_TC(tp, frame_numbers_forwarded_as_the_double_read);
	ATF_TP_ADD_TC(tp, frame_of_numbers_at_size_limit_fits_canonical);
	ATF_TP_ADD_TC(tp, frame_codes_have_distinct_strings);
	ATF_TP_ADD_TC(tp, lines_split_at_every_byte_boundary);
	ATF_TP_ADD_TC(tp, lines_longer_than_frame_refused_before_newline);
	ATF_TP_ADD_TC(tp, stdout_budget_at_limit_accepted_one_more_refused);
	ATF_TP_ADD_TC(tp, first_byte_over_a_bound_names_the_violation);
	ATF_TP_ADD_TC(tp, line_violation_is_final);
	ATF_TP_ADD_TC(tp, violating_bytes_are_not_taken);
	ATF_TP_ADD_TC(tp, empty_feed_takes_nothing_completes_nothing);
	ATF_TP_ADD_TC(tp, whole_line_returned_in_place);
	ATF_TP_ADD_TC(tp, line_of_buffer_size_gathered_one_more_refused);
	ATF_TP_ADD_TC(tp, unterminated_line_at_end_of_stream_refused);
	ATF_TP_ADD_TC(tp, reply_ok_carries_canonical_result_on_one_line);
	ATF_TP_ADD_TC(tp, reply_with_invalid_result_refused);
	ATF_TP_ADD_TC(tp, reply_errors_use_the_fixed_vocabulary);
	ATF_TP_ADD_TC(tp, initial_frame_wraps_canonical_payload);
	ATF_TP_ADD_TC(tp, reply_room_for_head_value_and_tail);
	ATF_TP_ADD_TC(tp, reply_result_nested_below_the_ceiling);
	ATF_TP_ADD_TC(tp, encoders_refuse_with_why_null);
	return atf_no_error();
}
