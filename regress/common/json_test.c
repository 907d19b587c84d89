/*
 * Tests of the strict JSON validator, the canonical encoder and the
 * readers: each rule with documents it accepts and documents it refuses,
 * the limits exactly at and one past their bound, and canonical forms.
 */

#include <sys/types.h>

#include <atf-c.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define DOC_BYTES	(256 * 1024)	/* largest document built here */

static const struct json_limits	 lim32 = { 64 * 1024, 32 };

static void
check_at(const char *doc, size_t len, const char *buf,
    const struct json_limits *lim, enum json_error want)
{
	enum json_error	 got;

	got = json_check(buf, len, lim);
	ATF_CHECK_MSG(got == want, "document %zu bytes \"%.60s\": got \"%s\", "
	    "want \"%s\"", len, doc, json_strerror(got), json_strerror(want));
}

/*
 * The document is checked from a copy of exactly len bytes: a read past
 * the end is a heap overflow that ASan reports.
 */
static void
check_n(const char *doc, size_t len, const struct json_limits *lim,
    enum json_error want)
{
	char	*copy = NULL;

	if (doc != NULL) {
		ATF_REQUIRE((copy = malloc(len > 0 ? len : 1)) != NULL);
		memcpy(copy, doc, len);
	}
	check_at(doc, len, copy, lim, want);
	free(copy);
}

/*
 * The first len bytes of doc, its other bytes left readable after them:
 * a check that looked past len would see them, and they make a document
 * with another answer.
 */
static void
check_prefix(const char *doc, size_t len, enum json_error want)
{
	ATF_REQUIRE(len < strlen(doc));
	check_at(doc, len, doc, &lim32, want);
}

static void
check(const char *doc, enum json_error want)
{
	check_n(doc, strlen(doc), &lim32, want);
}

static void
accepts(const char *doc)
{
	check(doc, JSON_OK);
}

static void
canon_is(const char *doc, const char *want)
{
	char		 out[1024], again[1024];
	const char	*why = NULL;
	size_t		 n, m;

	if (json_canonical(doc, strlen(doc), &lim32, out, sizeof(out), &n,
	    &why) == -1) {
		atf_tc_fail_nonfatal("canonical of \"%s\" failed: %s", doc,
		    why);
		return;
	}
	ATF_CHECK_EQ_MSG(n, strlen(out), "length of \"%s\"", doc);
	ATF_CHECK_MSG(strcmp(out, want) == 0, "canonical of \"%s\" is \"%s\", "
	    "want \"%s\"", doc, out, want);
	ATF_CHECK_MSG(n <= strlen(doc), "canonical of \"%s\" grew", doc);
	/* The canonical form is its own canonical form. */
	ATF_REQUIRE(json_canonical(out, n, &lim32, again, sizeof(again), &m,
	    &why) == 0);
	ATF_CHECK_MSG(m == n && memcmp(out, again, n) == 0,
	    "canonical of \"%s\" is not a fixed point", doc);
}

/* n nested arrays around 0, written into buf (at least 2n + 2 bytes). */
static size_t
nest_arrays(char *buf, size_t n)
{
	size_t	 i, len = 0;

	for (i = 0; i < n; i++)
		buf[len++] = '[';
	buf[len++] = '0';
	for (i = 0; i < n; i++)
		buf[len++] = ']';
	buf[len] = '\0';
	return len;
}

/* n members "k000".."k(n-1)", in reverse order of names, no braces. */
static size_t
wide_members(char *buf, size_t bufsz, size_t n)
{
	size_t	 len = 0, i;

	for (i = n; i > 0; i--)
		len += snprintf(buf + len, bufsz - len, "%s\"k%03zu\":%zu",
		    i == n ? "" : ",", i - 1, i - 1);
	ATF_REQUIRE(len < bufsz);
	return len;
}

/* An object of the n members above, then one more member when given. */
static size_t
wide_object(char *buf, size_t bufsz, size_t n, const char *last)
{
	size_t	 len = 0;

	len += snprintf(buf + len, bufsz - len, "{");
	len += wide_members(buf + len, bufsz - len, n);
	if (last != NULL)
		len += snprintf(buf + len, bufsz - len, ",%s", last);
	len += snprintf(buf + len, bufsz - len, "}");
	ATF_REQUIRE(len < bufsz);
	return len;
}

ATF_TC_WITHOUT_HEAD(scalars_at_top_level_accepted);
ATF_TC_BODY(scalars_at_top_level_accepted, tc)
{
	accepts("0");
	accepts("\"x\"");
	accepts("true");
	accepts("false");
	accepts("null");
	accepts(" \t\r\n1 \t\r\n");
	accepts("{}");
	accepts("[]");
	accepts(" { } ");
	accepts("[ ]");
}

ATF_TC_WITHOUT_HEAD(empty_or_blank_document_refused);
ATF_TC_BODY(empty_or_blank_document_refused, tc)
{
	check("", JSON_ESYNTAX);
	check(" ", JSON_ESYNTAX);
	check("\r\n\t ", JSON_ESYNTAX);
	/* Form feed and vertical tab are not JSON whitespace. */
	check("\f1", JSON_ESYNTAX);
	check("\v1", JSON_ESYNTAX);
	check_n(NULL, 0, &lim32, JSON_ESYNTAX);
}

ATF_TC_WITHOUT_HEAD(numbers_follow_rfc8259_grammar);
ATF_TC_BODY(numbers_follow_rfc8259_grammar, tc)
{
	accepts("0");
	accepts("-0");
	accepts("12");
	accepts("-12");
	accepts("0.5");
	accepts("-0.0e0");
	accepts("1.25e10");
	accepts("1E+2");
	accepts("1e-2");
	accepts("123456789012345678901234567890123456789012345678901234567890"
	    "1234567890.5e-999999");
	accepts("[0,-0,1.5,2e3]");

	check("-", JSON_ESYNTAX);
	check("+1", JSON_ESYNTAX);
	check(".5", JSON_ESYNTAX);
	check("1.", JSON_ESYNTAX);
	check("1.e2", JSON_ESYNTAX);
	check("1e", JSON_ESYNTAX);
	check("1e+", JSON_ESYNTAX);
	check("-a", JSON_ESYNTAX);
	check("--1", JSON_ESYNTAX);
	check("NaN", JSON_ESYNTAX);
	check("Infinity", JSON_ESYNTAX);
	check("-Infinity", JSON_ESYNTAX);
	check("[01]", JSON_ESYNTAX);
	check("[-01]", JSON_ESYNTAX);
	check("[0x10]", JSON_ESYNTAX);
	check("[1.]", JSON_ESYNTAX);
	check("[1_000]", JSON_ESYNTAX);
	check("[1.5.2]", JSON_ESYNTAX);
	check("[1e2e3]", JSON_ESYNTAX);
	/* At the top level the number ends and the rest is extra. */
	check("01", JSON_ETRAILING);
	check("0x10", JSON_ETRAILING);
}

ATF_TC_WITHOUT_HEAD(literals_must_be_exact);
ATF_TC_BODY(literals_must_be_exact, tc)
{
	accepts("[true,false,null]");
	check("tru", JSON_ESYNTAX);
	check("True", JSON_ESYNTAX);
	check("NULL", JSON_ESYNTAX);
	check("nul", JSON_ESYNTAX);
	check("f", JSON_ESYNTAX);
	check("[truex]", JSON_ESYNTAX);
	check("[nulll]", JSON_ESYNTAX);
	check("falsey", JSON_ETRAILING);
	check("undefined", JSON_ESYNTAX);
}

ATF_TC_WITHOUT_HEAD(every_escape_of_rfc8259_accepted);
ATF_TC_BODY(every_escape_of_rfc8259_accepted, tc)
{
	accepts("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"");
	accepts("\"\\u0041\\u00e9\\u00E9\\uFFFF\\uffff\\u0001\"");
	accepts("\"\\u2028\\u007f\"");
	/* Both ends of each range of hex digits, read as their values. */
	canon_is("\"\\u00A9\\u00Fa\\u0109\\u00af\"",
	    "\"\xc2\xa9\xc3\xba\xc4\x89\xc2\xaf\"");
}

ATF_TC_WITHOUT_HEAD(invalid_escapes_refused);
ATF_TC_BODY(invalid_escapes_refused, tc)
{
	check("\"\\a\"", JSON_ESYNTAX);
	check("\"\\x41\"", JSON_ESYNTAX);
	check("\"\\'\"", JSON_ESYNTAX);
	check("\"\\U0041\"", JSON_ESYNTAX);
	check("\"\\u12\"", JSON_ESYNTAX);
	check("\"\\u12G4\"", JSON_ESYNTAX);
	check("\"\\u\"", JSON_ESYNTAX);
	check("\"\\", JSON_ESYNTAX);
	check("\"\\\"", JSON_ESYNTAX);
	check("\"abc", JSON_ESYNTAX);
	check("\"\\u004", JSON_ESYNTAX);
	/* The bytes just outside each range of hex digits. */
	check("\"\\u004/\"", JSON_ESYNTAX);
	check("\"\\u004:\"", JSON_ESYNTAX);
	check("\"\\u004@\"", JSON_ESYNTAX);
	check("\"\\u004G\"", JSON_ESYNTAX);
	check("\"\\u004`\"", JSON_ESYNTAX);
	check("\"\\u004g\"", JSON_ESYNTAX);
}

ATF_TC_WITHOUT_HEAD(raw_control_characters_in_strings_refused);
ATF_TC_BODY(raw_control_characters_in_strings_refused, tc)
{
	check("\"a\x01z\"", JSON_ESYNTAX);
	check("\"a\tz\"", JSON_ESYNTAX);
	check("\"a\nz\"", JSON_ESYNTAX);
	check("\"a\rz\"", JSON_ESYNTAX);
	check("\"a\x1fz\"", JSON_ESYNTAX);
	/* DEL is not a control character for JSON. */
	accepts("\"a\x7fz\"");
}

ATF_TC_WITHOUT_HEAD(structural_errors_refused);
ATF_TC_BODY(structural_errors_refused, tc)
{
	check("{", JSON_ESYNTAX);
	check("[", JSON_ESYNTAX);
	check("}", JSON_ESYNTAX);
	check("]", JSON_ESYNTAX);
	check("[1,]", JSON_ESYNTAX);
	check("[,1]", JSON_ESYNTAX);
	check("[,]", JSON_ESYNTAX);
	check("[1 2]", JSON_ESYNTAX);
	check("[1,,2]", JSON_ESYNTAX);
	check("[1}", JSON_ESYNTAX);
	check("{\"a\":1]", JSON_ESYNTAX);
	check("{\"a\":1,}", JSON_ESYNTAX);
	check("{,}", JSON_ESYNTAX);
	check("{\"a\"}", JSON_ESYNTAX);
	check("{\"a\":}", JSON_ESYNTAX);
	check("{\"a\" 1}", JSON_ESYNTAX);
	check("{\"a\"::1}", JSON_ESYNTAX);
	check("{\"a\":1 \"b\":2}", JSON_ESYNTAX);
	check("{a:1}", JSON_ESYNTAX);
	check("{'a':1}", JSON_ESYNTAX);
	check("{1:2}", JSON_ESYNTAX);
	check("{null:2}", JSON_ESYNTAX);
	check("{\"a\":1", JSON_ESYNTAX);
	check("[[[]]", JSON_ESYNTAX);
	check("[1/*c*/]", JSON_ESYNTAX);
	/* A byte-order mark is not whitespace. */
	check("\xef\xbb\xbf{}", JSON_ESYNTAX);
}

ATF_TC_WITHOUT_HEAD(anything_after_the_value_is_trailing_data);
ATF_TC_BODY(anything_after_the_value_is_trailing_data, tc)
{
	check("{}{}", JSON_ETRAILING);
	check("{} {}", JSON_ETRAILING);
	check("{\"a\":1}\n{\"a\":1}", JSON_ETRAILING);
	check("{\"a\":1}garbage", JSON_ETRAILING);
	check("[]]", JSON_ETRAILING);
	check("{}}", JSON_ETRAILING);
	check("1 2", JSON_ETRAILING);
	check("\"a\"\"b\"", JSON_ETRAILING);
	check("[1]//c", JSON_ETRAILING);
	check("{},", JSON_ETRAILING);
	accepts("{}  \r\n\t");
}

ATF_TC_WITHOUT_HEAD(well_formed_utf8_accepted);
ATF_TC_BODY(well_formed_utf8_accepted, tc)
{
	accepts("\"\xc2\x80\"");		/* U+0080 */
	accepts("\"\xc3\xa9\"");		/* U+00E9 */
	accepts("\"\xdf\xbf\"");		/* U+07FF */
	accepts("\"\xe0\xa0\x80\"");		/* U+0800 */
	accepts("\"\xe2\x82\xac\"");		/* U+20AC */
	accepts("\"\xed\x9f\xbf\"");		/* U+D7FF */
	accepts("\"\xee\x80\x80\"");		/* U+E000 */
	accepts("\"\xef\xbf\xbf\"");		/* U+FFFF */
	accepts("\"\xf0\x90\x80\x80\"");	/* U+10000 */
	accepts("\"\xf0\x9f\x98\x80\"");	/* U+1F600 */
	accepts("\"\xf4\x8f\xbf\xbf\"");	/* U+10FFFF */
	/* Between F0 and F4 the second byte has the whole range. */
	accepts("\"\xf1\x80\x80\x80\"");	/* U+40000 */
	accepts("\"\xf1\x90\x80\x80\"");	/* U+50000 */
	accepts("\"\xf3\xbf\xbf\xbf\"");	/* U+FFFFF */
	accepts("{\"\xc3\xa9\":\"\xe2\x82\xac\"}");
}

ATF_TC_WITHOUT_HEAD(overlong_utf8_refused);
ATF_TC_BODY(overlong_utf8_refused, tc)
{
	check("\"\xc0\xaf\"", JSON_EUTF8);		/* "/" in two bytes */
	check("\"\xc0\x80\"", JSON_EUTF8);		/* NUL in two bytes */
	check("\"\xc1\xbf\"", JSON_EUTF8);
	check("\"\xe0\x80\xaf\"", JSON_EUTF8);		/* "/" in three */
	check("\"\xe0\x9f\xbf\"", JSON_EUTF8);		/* U+07FF in three */
	check("\"\xf0\x80\x80\xaf\"", JSON_EUTF8);	/* "/" in four */
	check("\"\xf0\x8f\xbf\xbf\"", JSON_EUTF8);	/* U+FFFF in four */
}

ATF_TC_WITHOUT_HEAD(utf8_encoded_surrogates_refused);
ATF_TC_BODY(utf8_encoded_surrogates_refused, tc)
{
	check("\"\xed\xa0\x80\"", JSON_EUTF8);		/* U+D800 */
	check("\"\xed\xaf\xbf\"", JSON_EUTF8);		/* U+DBFF */
	check("\"\xed\xb0\x80\"", JSON_EUTF8);		/* U+DC00 */
	check("\"\xed\xbf\xbf\"", JSON_EUTF8);		/* U+DFFF */
	check("\"\xed\xa0\xbd\xed\xb8\x80\"", JSON_EUTF8); /* CESU-8 pair */
}

ATF_TC_WITHOUT_HEAD(utf8_above_u10ffff_refused);
ATF_TC_BODY(utf8_above_u10ffff_refused, tc)
{
	check("\"\xf4\x90\x80\x80\"", JSON_EUTF8);	/* U+110000 */
	check("\"\xf5\x80\x80\x80\"", JSON_EUTF8);
	check("\"\xf7\xbf\xbf\xbf\"", JSON_EUTF8);
	check("\"\xf8\x88\x80\x80\x80\"", JSON_EUTF8);
	check("\"\xfc\x84\x80\x80\x80\x80\"", JSON_EUTF8);
	check("\"\xfe\"", JSON_EUTF8);
	check("\"\xff\"", JSON_EUTF8);
}

ATF_TC_WITHOUT_HEAD(truncated_or_stray_utf8_refused);
ATF_TC_BODY(truncated_or_stray_utf8_refused, tc)
{
	check("\"\xc3\"", JSON_EUTF8);
	check("\"\xe2\x82\"", JSON_EUTF8);
	check("\"\xf0\x9f\x98\"", JSON_EUTF8);
	check("\"\xf0\x9f\x98", JSON_EUTF8);		/* at the very end */
	check("\"\xc3", JSON_EUTF8);
	check("\"\xe2\x82x\"", JSON_EUTF8);
	check("\"\x80\"", JSON_EUTF8);
	check("\"\xbf\"", JSON_EUTF8);
	check("\"\xc3\xa9\xa9\"", JSON_EUTF8);
	/* A later continuation byte out of 80..BF. */
	check("\"\xe2\x82\x7f\"", JSON_EUTF8);
	check("\"\xe2\x82\xc0\"", JSON_EUTF8);
	check("\"\xf0\x9f\x7f\x80\"", JSON_EUTF8);
	check("\"\xf0\x9f\x98\xc0\"", JSON_EUTF8);
}

ATF_TC_WITHOUT_HEAD(invalid_utf8_outside_strings_reported_as_utf8);
ATF_TC_BODY(invalid_utf8_outside_strings_reported_as_utf8, tc)
{
	check("\xff", JSON_EUTF8);
	check("[\xc3]", JSON_EUTF8);
	check("{\"a\":1\x80}", JSON_EUTF8);
	check("{\xc0\xaf:1}", JSON_EUTF8);
	/* Well-formed but not JSON. */
	check("[\xc3\xa9]", JSON_ESYNTAX);
}

ATF_TC_WITHOUT_HEAD(escaped_surrogate_pairs_accepted);
ATF_TC_BODY(escaped_surrogate_pairs_accepted, tc)
{
	accepts("\"\\uD83D\\uDE00\"");
	accepts("\"\\ud800\\udc00\"");
	accepts("\"\\uDBFF\\uDFFF\"");
	accepts("\"a\\uD83D\\uDE00b\"");
	/* Next to the surrogates, on either side: no pair needed. */
	accepts("\"\\uD7FF\"");
	accepts("\"\\uE000\"");
	accepts("\"\\uD7FFx\"");
}

ATF_TC_WITHOUT_HEAD(unpaired_escaped_surrogates_refused);
ATF_TC_BODY(unpaired_escaped_surrogates_refused, tc)
{
	check("\"\\uD800\"", JSON_ESURROGATE);
	check("\"\\uDBFF\"", JSON_ESURROGATE);
	check("\"\\uDC00\"", JSON_ESURROGATE);
	check("\"\\uDFFF\"", JSON_ESURROGATE);
	check("\"\\uD800x\"", JSON_ESURROGATE);
	check("\"\\uD800\\n\"", JSON_ESURROGATE);
	check("\"\\uD800\\u0041\"", JSON_ESURROGATE);
	check("\"\\uD800\\uD800\"", JSON_ESURROGATE);
	check("\"\\uDE00\\uD83D\"", JSON_ESURROGATE);	/* reversed */
	check("\"\\uD800\\uDBFF\"", JSON_ESURROGATE);
	check("\"\\uD800", JSON_ESURROGATE);
	check("\"\\uD800\\uZZZZ\"", JSON_ESYNTAX);
	/* The code points just outside the two halves. */
	check("\"\\uD800\\uE000\"", JSON_ESURROGATE);
	check("\"\\uD800\\uDBFF\"", JSON_ESURROGATE);
	/* The low half must be an escape: a backslash, then u. */
	check("\"\\uD800xuDC00\"", JSON_ESURROGATE);
	check("\"\\uD800\\xDC00\"", JSON_ESURROGATE);
}

ATF_TC_WITHOUT_HEAD(raw_nul_refused_anywhere);
ATF_TC_BODY(raw_nul_refused_anywhere, tc)
{
	check_n("\0", 1, &lim32, JSON_ENUL);
	check_n("[\0]", 3, &lim32, JSON_ENUL);
	check_n("\"a\0b\"", 5, &lim32, JSON_ENUL);
	check_n("{}\0", 3, &lim32, JSON_ENUL);
	check_n("1\0", 2, &lim32, JSON_ENUL);
	check_n("{\"a\0\":1}", 8, &lim32, JSON_ENUL);
}

ATF_TC_WITHOUT_HEAD(escaped_nul_refused);
ATF_TC_BODY(escaped_nul_refused, tc)
{
	check("\"\\u0000\"", JSON_ENUL);
	check("\"a\\u0000\"", JSON_ENUL);
	check("{\"\\u0000\":1}", JSON_ENUL);
	check("[\"ok\",\"\\u0000\"]", JSON_ENUL);
	accepts("\"\\u0001\"");
	accepts("\"\\u0100\"");
}

ATF_TC_WITHOUT_HEAD(duplicate_keys_refused);
ATF_TC_BODY(duplicate_keys_refused, tc)
{
	check("{\"a\":1,\"a\":2}", JSON_EDUPKEY);
	check("{\"a\":1,\"a\":1}", JSON_EDUPKEY);
	check("{\"a\":1,\"b\":2,\"a\":3}", JSON_EDUPKEY);
	check("{\"\":1,\"\":2}", JSON_EDUPKEY);
	check("{\"x\":{\"a\":1,\"a\":1}}", JSON_EDUPKEY);
	check("[{\"a\":1,\"a\":1}]", JSON_EDUPKEY);
	check("{\"a\":{},\"a\":[]}", JSON_EDUPKEY);
	check("{\"a\":{\"b\":{\"c\":1}},\"a\":0}", JSON_EDUPKEY);
}

ATF_TC_WITHOUT_HEAD(escaped_duplicate_keys_refused);
ATF_TC_BODY(escaped_duplicate_keys_refused, tc)
{
	check("{\"a\":1,\"\\u0061\":2}", JSON_EDUPKEY);
	check("{\"\\u0061\":1,\"a\":2}", JSON_EDUPKEY);
	check("{\"\xc3\xa9\":1,\"\\u00e9\":2}", JSON_EDUPKEY);
	check("{\"\\u00E9\":1,\"\\u00e9\":2}", JSON_EDUPKEY);
	check("{\"/\":1,\"\\/\":2}", JSON_EDUPKEY);
	check("{\"\xf0\x9f\x98\x80\":1,\"\\ud83d\\ude00\":2}", JSON_EDUPKEY);
	check("{\"\\n\":1,\"\\u000a\":2}", JSON_EDUPKEY);
	/* Raw UTF-8 of three and four bytes decodes to its code point. */
	check("{\"\xe3\x81\x82\":1,\"\\u3042\":2}", JSON_EDUPKEY);
	check("{\"\xf1\x80\x80\x81\":1,\"\\ud8c0\\udc01\":2}", JSON_EDUPKEY);
}

ATF_TC_WITHOUT_HEAD(distinct_or_separate_keys_accepted);
ATF_TC_BODY(distinct_or_separate_keys_accepted, tc)
{
	accepts("{\"a\":1,\"A\":2}");
	accepts("{\"a\":1,\"a \":2}");
	accepts("{\"ab\":1,\"a\":2,\"\":3}");
	accepts("{\"a\":{\"a\":1},\"b\":{\"a\":2}}");
	accepts("{\"a\":1,\"b\":{\"a\":1}}");
	accepts("[{\"a\":1},{\"a\":1}]");
	accepts("{\"x\":{\"a\":1},\"y\":{\"a\":1}}");
	/* Values are not names. */
	accepts("{\"a\":\"a\",\"b\":\"a\"}");
	/*
	 * Two different names with the same hash in the validator's table
	 * (FNV-1a over the code points): compared in full, not a duplicate.
	 */
	accepts("{\"chmxe\":1,\"edoda\":2}");
	check("{\"chmxe\":1,\"edoda\":2,\"chmxe\":3}", JSON_EDUPKEY);
	check("{\"chmxe\":1,\"edoda\":2,\"edoda\":3}", JSON_EDUPKEY);
	accepts("{\"edoda\":1,\"chmxe\":2}");
	/* The same hash again, of a name and one of its prefixes. */
	accepts("{\"boozseuh\":1,\"boozs\":2}");
	accepts("{\"boozs\":1,\"boozseuh\":2}");
	check("{\"boozseuh\":1,\"boozs\":2,\"boozs\":3}", JSON_EDUPKEY);
}

/*
 * An object cut where a member name should start: the byte after the
 * end would be a name's quote, and the object is full, so a look past
 * the end would say "too many members".
 */
ATF_TC_WITHOUT_HEAD(object_cut_where_a_name_should_start_refused);
ATF_TC_BODY(object_cut_where_a_name_should_start_refused, tc)
{
	static char	 buf[8 * 1024];
	size_t		 len;

	check("{", JSON_ESYNTAX);
	check("{ ", JSON_ESYNTAX);
	check("{\"a\":1,", JSON_ESYNTAX);
	check("{\"a\":1, ", JSON_ESYNTAX);
	len = wide_object(buf, sizeof(buf), JSON_MEMBERS_MAX, "\"x\":1");
	check_n(buf, len, &lim32, JSON_EMEMBERS);
	check_prefix(buf, len - 6, JSON_ESYNTAX);
	check_prefix(buf, len - 5, JSON_EMEMBERS);
}

/* A member name that is no valid string gives that string's reason. */
ATF_TC_WITHOUT_HEAD(member_name_refused_for_its_own_reason);
ATF_TC_BODY(member_name_refused_for_its_own_reason, tc)
{
	check("{\"\\udc00\":1}", JSON_ESURROGATE);
	check("{\"a\\ud800\":1}", JSON_ESURROGATE);
	check("{\"a\\u0000\":1}", JSON_ENUL);
	check("{\"\xc3\":1}", JSON_EUTF8);
	check("{\"a\":1,\"\\udfff\":2}", JSON_ESURROGATE);
	check("{\"a\":1,\"b\\u0000\":2}", JSON_ENUL);
	check("{\"a\":1,\"\xed\xa0\x80\":2}", JSON_EUTF8);
	check("{\"a\":{\"\\udc00\":1}}", JSON_ESURROGATE);
}

/* A string alone, each of its faults reported as such. */
ATF_TC_WITHOUT_HEAD(string_at_top_level_refused_for_its_own_reason);
ATF_TC_BODY(string_at_top_level_refused_for_its_own_reason, tc)
{
	check("\"", JSON_ESYNTAX);
	check("\"abc", JSON_ESYNTAX);
	check("\"\\", JSON_ESYNTAX);
	check("\"a\\", JSON_ESYNTAX);
	check("\"\\n", JSON_ESYNTAX);
	check("\"\\u12", JSON_ESYNTAX);
	check("\"\\udc00\"", JSON_ESURROGATE);
	check("\"a\\udfff\"", JSON_ESURROGATE);
	check("\"\\ud800\"", JSON_ESURROGATE);
	check("\"\\u0000\"", JSON_ENUL);
	check("\"\xc3\"", JSON_EUTF8);
	check(" \"abc", JSON_ESYNTAX);
	check(" \"\\udc00\" ", JSON_ESURROGATE);
}

/*
 * A UTF-8 sequence cut by the end of the document is ill-formed, though
 * the bytes after the end would complete it (and close the string).
 */
ATF_TC_WITHOUT_HEAD(utf8_cut_by_the_end_refused);
ATF_TC_BODY(utf8_cut_by_the_end_refused, tc)
{
	check_prefix("\"\xc3\xa9\"", 2, JSON_EUTF8);
	check_prefix("\"\xe3\x81\x82\"", 2, JSON_EUTF8);
	check_prefix("\"\xe3\x81\x82\"", 3, JSON_EUTF8);
	check_prefix("\"\xf1\x80\x80\x81\"", 4, JSON_EUTF8);
	check_prefix("[\"\xc3\xa9\"]", 3, JSON_EUTF8);
	check_prefix("\xc3\xa9", 1, JSON_EUTF8);
	check_prefix("[\xe3\x81\x82]", 3, JSON_EUTF8);
	check_n("\"\xc3", 2, &lim32, JSON_EUTF8);
	check_n("\"\xf1\x80\x80", 4, &lim32, JSON_EUTF8);
	check_n("\xe3\x81", 2, &lim32, JSON_EUTF8);
}

/* json_number() keeps the sign of a value too small for any double. */
ATF_TC_WITHOUT_HEAD(number_below_the_smallest_subnormal_keeps_its_sign);
ATF_TC_BODY(number_below_the_smallest_subnormal_keeps_its_sign, tc)
{
	static const char *const neg[] = {
		"-1e-500", "-0.000001e-399", "-1e-330", "-1e-99999999999"
	};
	static const char *const pos[] = {
		"1e-500", "0.000001e-399", "1e-330", "1e-99999999999"
	};
	size_t	 i;
	double	 v;

	for (i = 0; i < sizeof(neg) / sizeof(neg[0]); i++) {
		accepts(neg[i]);
		ATF_REQUIRE(json_number(neg[i], strlen(neg[i]), 0, &v) == 0);
		ATF_CHECK_MSG(v == 0 && signbit(v), "%s", neg[i]);
		canon_is(neg[i], "0");
		accepts(pos[i]);
		ATF_REQUIRE(json_number(pos[i], strlen(pos[i]), 0, &v) == 0);
		ATF_CHECK_MSG(v == 0 && !signbit(v), "%s", pos[i]);
	}
}

/*
 * An exponent is read in full whatever its length, and the digits before
 * it move the point: here by a thousand leading zeros or integer places.
 */
ATF_TC_WITHOUT_HEAD(exponent_of_any_length_read_with_the_digits);
ATF_TC_BODY(exponent_of_any_length_read_with_the_digits, tc)
{
	static char	 buf[2048];
	size_t		 len;
	double		 v;

	check("1e99999999999999999", JSON_ERANGE);
	check("1e999999999999999999999999", JSON_ERANGE);
	check("-1e+0000000000000000000000400", JSON_ERANGE);
	accepts("1e-999999999999999999999999");
	len = (size_t)snprintf(buf, sizeof(buf), "0.%01000d1e1001", 0);
	ATF_REQUIRE(len < sizeof(buf));
	ATF_REQUIRE(json_number(buf, len, 0, &v) == 0);
	ATF_CHECK_EQ(v, 1);
	len = (size_t)snprintf(buf, sizeof(buf), "1%01000de-1000", 0);
	ATF_REQUIRE(len < sizeof(buf));
	ATF_REQUIRE(json_number(buf, len, 0, &v) == 0);
	ATF_CHECK_EQ(v, 1);
	len = (size_t)snprintf(buf, sizeof(buf), "1%01000de-691", 0);
	ATF_CHECK(json_check(buf, len, &lim32) == JSON_ERANGE);
	len = (size_t)snprintf(buf, sizeof(buf), "1%01000de-692", 0);
	ATF_REQUIRE(json_number(buf, len, 0, &v) == 0);
	ATF_CHECK_EQ(v, 1e308);
}

/* json_type() at or past the length sees no value, whatever follows. */
ATF_TC_WITHOUT_HEAD(type_at_the_length_is_invalid);
ATF_TC_BODY(type_at_the_length_is_invalid, tc)
{
	char	*doc;

	ATF_CHECK_EQ(json_type("1{", 1, 1), JSON_INVALID);
	ATF_CHECK_EQ(json_type("1[", 1, 1), JSON_INVALID);
	ATF_CHECK_EQ(json_type("1\"", 1, 1), JSON_INVALID);
	ATF_CHECK_EQ(json_type("12", 1, 1), JSON_INVALID);
	ATF_REQUIRE((doc = malloc(1)) != NULL);
	doc[0] = '{';
	ATF_CHECK_EQ(json_type(doc, 1, 0), JSON_OBJECT);
	ATF_CHECK_EQ(json_type(doc, 1, 1), JSON_INVALID);
	free(doc);
}

/*
 * json_value_end() never answers past the length, from an offset at or
 * past it, or in a container whose close lies after it.
 */
ATF_TC_WITHOUT_HEAD(value_end_never_past_the_length);
ATF_TC_BODY(value_end_never_past_the_length, tc)
{
	char	*doc;

	ATF_CHECK_EQ(json_value_end("12", 1, 1), 1);
	ATF_CHECK_EQ(json_value_end("12", 1, 2), 1);
	ATF_CHECK_EQ(json_value_end("\"a\"", 1, 2), 1);
	ATF_CHECK_EQ(json_value_end("[1]", 2, 0), 2);
	ATF_CHECK_EQ(json_value_end("[[]]", 3, 0), 3);
	ATF_CHECK_EQ(json_value_end("{\"a\":1}", 6, 0), 6);
	ATF_REQUIRE((doc = malloc(3)) != NULL);
	memcpy(doc, "[1]", 3);
	ATF_CHECK_EQ(json_value_end(doc, 3, 0), 3);
	ATF_CHECK_EQ(json_value_end(doc, 3, 3), 3);
	ATF_CHECK_EQ(json_value_end(doc, 2, 0), 2);
	free(doc);
}

/* An element at the length is none, whatever follows it. */
ATF_TC_WITHOUT_HEAD(element_next_stops_at_the_length);
ATF_TC_BODY(element_next_stops_at_the_length, tc)
{
	char	*doc;
	size_t	 it, v;

	it = 0;
	ATF_CHECK(!json_element_next("[1", 1, &it, &v));
	it = 2;
	ATF_CHECK(!json_element_next("[1,2]", 3, &it, &v));
	ATF_REQUIRE((doc = malloc(3)) != NULL);
	memcpy(doc, "[1,", 3);
	it = 0;
	ATF_CHECK_EQ(json_element_next(doc, 1, &it, &v), 0);
	it = 2;
	ATF_CHECK_EQ(json_element_next(doc, 3, &it, &v), 0);
	it = 3;
	ATF_CHECK_EQ(json_element_next(doc, 3, &it, &v), 0);
	free(doc);
	/* An array cut after its bracket, exactly its byte on the heap. */
	ATF_REQUIRE((doc = malloc(1)) != NULL);
	doc[0] = '[';
	it = 0;
	ATF_CHECK_EQ(json_element_next(doc, 1, &it, &v), 0);
	free(doc);
}

/*
 * Each step returns exactly 1; json_member_next() on an array gives its
 * elements and no name, as json_element_next() does.
 */
ATF_TC_WITHOUT_HEAD(member_next_of_an_array_gives_elements);
ATF_TC_BODY(member_next_of_an_array_gives_elements, tc)
{
	const char	*doc = "[1,2]";
	size_t		 len = strlen(doc), it = 0, k = 99, v = 0;

	ATF_REQUIRE(json_check(doc, len, &lim32) == JSON_OK);
	ATF_CHECK_EQ(json_member_next(doc, len, &it, &k, &v), 1);
	ATF_CHECK_EQ(v, 1);
	ATF_CHECK_EQ(json_member_next(doc, len, &it, &k, &v), 1);
	ATF_CHECK_EQ(v, 3);
	ATF_CHECK_EQ(k, 99);
	ATF_CHECK_EQ(json_member_next(doc, len, &it, &k, &v), 0);
	doc = "{\"a\":1}";
	len = strlen(doc);
	it = 0;
	ATF_CHECK_EQ(json_member_next(doc, len, &it, &k, &v), 1);
	ATF_CHECK_EQ(k, 1);
	ATF_CHECK_EQ(v, 5);
	it = 0;
	ATF_CHECK_EQ(json_element_next(doc, len, &it, &v), 1);
}

/*
 * Members that json_check() would refuse: the colon is skipped only when
 * it is there, and a name cut by the end gives a value at the end.
 */
ATF_TC_WITHOUT_HEAD(member_next_takes_only_a_colon_after_a_name);
ATF_TC_BODY(member_next_takes_only_a_colon_after_a_name, tc)
{
	char	*doc;
	size_t	 it, k, v;

	it = 0;
	ATF_REQUIRE(json_member_next("{\"a\":1}", 4, &it, &k, &v));
	ATF_CHECK_EQ(k, 1);
	ATF_CHECK_EQ(v, 4);
	it = 0;
	ATF_REQUIRE(json_member_next("{\"a\"1}", 6, &it, &k, &v));
	ATF_CHECK_EQ(v, 4);
	it = 0;
	ATF_REQUIRE(json_member_next("{\"a\" 1}", 7, &it, &k, &v));
	ATF_CHECK_EQ(v, 5);
	ATF_REQUIRE((doc = malloc(4)) != NULL);
	memcpy(doc, "{\"a\"", 4);
	it = 0;
	ATF_REQUIRE(json_member_next(doc, 4, &it, &k, &v));
	ATF_CHECK_EQ(v, 4);
	free(doc);
}

/* A value that ends where it starts (two commas) ends the iteration. */
ATF_TC_WITHOUT_HEAD(iteration_ends_at_a_value_without_bytes);
ATF_TC_BODY(iteration_ends_at_a_value_without_bytes, tc)
{
	const char	*doc = "[1,,2]";
	size_t		 len = strlen(doc), it = 0, v;

	ATF_REQUIRE(json_element_next(doc, len, &it, &v));
	ATF_CHECK_EQ(v, 1);
	ATF_REQUIRE(json_element_next(doc, len, &it, &v));
	ATF_CHECK_EQ(v, 3);
	ATF_CHECK_EQ(it, len);
	ATF_CHECK(!json_element_next(doc, len, &it, &v));
}

/*
 * json_string_equal() on a string cut by the end compares the code points
 * before the end; an escape cut short is none.
 */
ATF_TC_WITHOUT_HEAD(string_equal_compares_up_to_the_length);
ATF_TC_BODY(string_equal_compares_up_to_the_length, tc)
{
	ATF_CHECK(json_string_equal("\"ab\"", 3, 0, "ab"));
	ATF_CHECK(json_string_equal("\"a\\n\"", 4, 0, "a\n"));
	ATF_CHECK(json_string_equal("\"\\/\"", 3, 0, "/"));
	ATF_CHECK(!json_string_equal("\"a\\n\"", 3, 0, "a\n"));
	ATF_CHECK(!json_string_equal("\"\\u00e9\"", 6, 0, "\xc3\xa9"));
}

/* Each code point at an end of a UTF-8 length, copied raw or escaped. */
ATF_TC_WITHOUT_HEAD(string_copy_encodes_every_utf8_boundary);
ATF_TC_BODY(string_copy_encodes_every_utf8_boundary, tc)
{
	static const struct {
		const char	*esc, *raw;
	} t[] = {
		{ "\\u007f", "\x7f" },
		{ "\\u0080", "\xc2\x80" },
		{ "\\u0081", "\xc2\x81" },
		{ "\\u07ff", "\xdf\xbf" },
		{ "\\u0800", "\xe0\xa0\x80" },
		{ "\\u0801", "\xe0\xa0\x81" },
		{ "\\uffff", "\xef\xbf\xbf" },
		{ "\\ud800\\udc00", "\xf0\x90\x80\x80" },
		{ "\\ud800\\udc01", "\xf0\x90\x80\x81" },
		{ "\\udbff\\udfff", "\xf4\x8f\xbf\xbf" },
	};
	char	 doc[32], s[8];
	size_t	 i, j, len, n;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (j = 0; j < 2; j++) {
			len = (size_t)snprintf(doc, sizeof(doc), "\"%s\"",
			    j == 0 ? t[i].esc : t[i].raw);
			ATF_REQUIRE(json_check(doc, len, &lim32) == JSON_OK);
			ATF_CHECK_MSG(json_string_copy(doc, len, 0, s,
			    sizeof(s), &n) == 0 && n == strlen(t[i].raw) &&
			    memcmp(s, t[i].raw, n + 1) == 0, "%s", doc);
			ATF_CHECK_MSG(json_string_equal(doc, len, 0, t[i].raw),
			    "%s", doc);
		}
}

ATF_TC_WITHOUT_HEAD(depth_at_limit_accepted_one_more_refused);
ATF_TC_BODY(depth_at_limit_accepted_one_more_refused, tc)
{
	struct json_limits	 lim;
	char			 buf[2 * (JSON_DEPTH_MAX + 1) + 2];
	char			 obj[16 * (JSON_DEPTH_MAX + 1)];
	size_t			 len, i;
	int			 d;

	lim.max_bytes = sizeof(obj);
	for (d = 0; d <= JSON_DEPTH_MAX; d++) {
		lim.max_depth = d;
		len = nest_arrays(buf, (size_t)d);
		check_n(buf, len, &lim, JSON_OK);
		len = nest_arrays(buf, (size_t)d + 1);
		check_n(buf, len, &lim, JSON_EDEPTH);
	}

	/* Objects count the same: {"a":{"a":...0...}} */
	lim.max_depth = 32;
	for (d = 32; d <= 33; d++) {
		len = 0;
		for (i = 0; i < (size_t)d; i++)
			len += snprintf(obj + len, sizeof(obj) - len,
			    "{\"a\":");
		obj[len++] = '0';
		for (i = 0; i < (size_t)d; i++)
			obj[len++] = '}';
		check_n(obj, len, &lim, d == 32 ? JSON_OK : JSON_EDEPTH);
	}

	/* Arrays and objects mixed, and empty containers count too. */
	check_n("[{\"a\":[{}]}]", 12, &(struct json_limits){ 64, 4 }, JSON_OK);
	check_n("[{\"a\":[{}]}]", 12, &(struct json_limits){ 64, 3 },
	    JSON_EDEPTH);
	check_n("7", 1, &(struct json_limits){ 64, 0 }, JSON_OK);
	check_n("[]", 2, &(struct json_limits){ 64, 0 }, JSON_EDEPTH);
}

ATF_TC_WITHOUT_HEAD(nesting_far_past_limit_refused_without_recursion);
ATF_TC_BODY(nesting_far_past_limit_refused_without_recursion, tc)
{
	struct json_limits	 lim = { DOC_BYTES, JSON_DEPTH_MAX };
	char			*buf;
	size_t			 len;

	ATF_REQUIRE((buf = malloc(DOC_BYTES)) != NULL);
	len = nest_arrays(buf, 1000);
	check_n(buf, len, &lim, JSON_EDEPTH);
	memset(buf, '[', DOC_BYTES);
	check_n(buf, DOC_BYTES, &lim, JSON_EDEPTH);
	memset(buf, '{', DOC_BYTES);
	check_n(buf, DOC_BYTES, &lim, JSON_ESYNTAX);
	free(buf);
}

ATF_TC_WITHOUT_HEAD(size_at_limit_accepted_one_more_refused);
ATF_TC_BODY(size_at_limit_accepted_one_more_refused, tc)
{
	struct json_limits	 lim = { 0, 8 };
	char			 buf[64];

	snprintf(buf, sizeof(buf), "{\"k\":\"0123456789\"}");
	lim.max_bytes = strlen(buf);
	check_n(buf, strlen(buf), &lim, JSON_OK);
	strlcat(buf, " ", sizeof(buf));
	check_n(buf, strlen(buf), &lim, JSON_ESIZE);
	/* The size is checked before anything else. */
	check_n("\0\0", 2, &(struct json_limits){ 1, 8 }, JSON_ESIZE);
	check_n("", 0, &(struct json_limits){ 0, 8 }, JSON_ESYNTAX);
}

ATF_TC_WITHOUT_HEAD(invalid_limits_refused);
ATF_TC_BODY(invalid_limits_refused, tc)
{
	check_n("1", 1, NULL, JSON_ELIMITS);
	check_n("1", 1, &(struct json_limits){ 8, -1 }, JSON_ELIMITS);
	check_n("1", 1, &(struct json_limits){ 8, JSON_DEPTH_MAX + 1 },
	    JSON_ELIMITS);
	check_n("1", 1, &(struct json_limits){ 8, JSON_DEPTH_MAX }, JSON_OK);
	/* No buffer, but bytes said to be in it. */
	check_n(NULL, 1, &lim32, JSON_ELIMITS);
}

ATF_TC_WITHOUT_HEAD(object_members_at_limit_accepted_one_more_refused);
ATF_TC_BODY(object_members_at_limit_accepted_one_more_refused, tc)
{
	struct json_limits	 lim = { DOC_BYTES, 8 };
	char			*buf;
	size_t			 len;

	ATF_REQUIRE((buf = malloc(DOC_BYTES)) != NULL);
	len = wide_object(buf, DOC_BYTES, JSON_MEMBERS_MAX, NULL);
	check_n(buf, len, &lim, JSON_OK);
	len = wide_object(buf, DOC_BYTES, JSON_MEMBERS_MAX, "\"x\":0");
	check_n(buf, len, &lim, JSON_EMEMBERS);
	/* Arrays have no member table and no such bound. */
	len = 0;
	buf[len++] = '[';
	while (len < 20000) {
		buf[len++] = '0';
		buf[len++] = ',';
	}
	buf[len++] = '0';
	buf[len++] = ']';
	check_n(buf, len, &lim, JSON_OK);
	free(buf);
}

/*
 * Objects nested in objects: the members of an object and of all around
 * it must fit JSON_OPEN_MEMBERS_MAX, whether the inner object comes first
 * or last; objects side by side do not add up.
 */
ATF_TC_WITHOUT_HEAD(members_of_enclosing_objects_bounded_together);
ATF_TC_BODY(members_of_enclosing_objects_bounded_together, tc)
{
	struct json_limits	 lim = { DOC_BYTES, 16 };
	char			*buf, *inner;
	size_t			 len, i, levels;
	int			 first;

	ATF_REQUIRE((buf = malloc(DOC_BYTES)) != NULL);
	ATF_REQUIRE((inner = malloc(DOC_BYTES)) != NULL);
	for (first = 0; first <= 1; first++) {
		for (levels = 1; levels <= 5; levels++) {
			/* levels objects of 256 members each, nested. */
			strlcpy(inner, "0", DOC_BYTES);
			for (i = 0; i < levels; i++) {
				len = snprintf(buf, DOC_BYTES, "{");
				if (first)
					len += snprintf(buf + len,
					    DOC_BYTES - len, "\"in\":%s,",
					    inner);
				len += wide_members(buf + len, DOC_BYTES - len,
				    JSON_MEMBERS_MAX - 1);
				if (!first)
					len += snprintf(buf + len,
					    DOC_BYTES - len, ",\"in\":%s",
					    inner);
				len += snprintf(buf + len, DOC_BYTES - len,
				    "}");
				ATF_REQUIRE(len < DOC_BYTES / 2);
				strlcpy(inner, buf, DOC_BYTES);
			}
			check_n(buf, len, &lim, levels * JSON_MEMBERS_MAX <=
			    JSON_OPEN_MEMBERS_MAX ? JSON_OK : JSON_EMEMBERS);
		}
	}

	/* Side by side: 16 full objects in an array. */
	len = 0;
	buf[len++] = '[';
	for (i = 0; i < 16; i++) {
		if (i > 0)
			buf[len++] = ',';
		len += wide_object(buf + len, DOC_BYTES - len,
		    JSON_MEMBERS_MAX, NULL);
	}
	buf[len++] = ']';
	check_n(buf, len, &lim, JSON_OK);
	free(inner);
	free(buf);
}

ATF_TC_WITHOUT_HEAD(reasons_are_fixed_strings);
ATF_TC_BODY(reasons_are_fixed_strings, tc)
{
	static const struct {
		const char	*doc;
		const char	*why;
	} cases[] = {
		{ "{\"a\":1,\"a\":2}", "duplicate key" },
		{ "\"\xc0\xaf\"", "invalid UTF-8" },
		{ "\"\\ud800\"", "unpaired surrogate" },
		{ "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0"
		    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "nesting too deep" },
		{ "{} x", "trailing data" },
		{ "{", "syntax error" },
		{ "\"\\u0000\"", "NUL byte" },
		{ "[1e999]", "number out of range" },
	};
	const char	*why;
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why = "";
		ATF_CHECK(json_validate(cases[i].doc, strlen(cases[i].doc),
		    &lim32, &why) == -1);
		ATF_CHECK_STREQ_MSG(why, cases[i].why, "%s", cases[i].doc);
	}
	why = "";
	ATF_CHECK(json_validate("{}  ", 4, &(struct json_limits){ 3, 1 },
	    &why) == -1);
	ATF_CHECK_STREQ(why, "document too large");
	why = "unchanged";
	ATF_CHECK(json_validate("{}", 2, &lim32, &why) == 0);
	ATF_CHECK_STREQ(why, "unchanged");
	ATF_CHECK_STREQ(json_strerror(JSON_ERROR_MAX), "unknown error");
}

ATF_TC_WITHOUT_HEAD(canonical_sorts_members_and_drops_whitespace);
ATF_TC_BODY(canonical_sorts_members_and_drops_whitespace, tc)
{
	canon_is("{\"b\":1,\"a\":2}", "{\"a\":2,\"b\":1}");
	canon_is(" { \"b\" : 1 ,\n\t\"a\" : [ 1 , 2 , { } , [ ] ] } ",
	    "{\"a\":[1,2,{},[]],\"b\":1}");
	canon_is("{\"c\":{\"z\":0,\"y\":[3,{\"k\":1,\"j\":2}]},\"b\":1}",
	    "{\"b\":1,\"c\":{\"y\":[3,{\"j\":2,\"k\":1}],\"z\":0}}");
	/* Array order is data and stays. */
	canon_is("[3,1,2]", "[3,1,2]");
	canon_is(" \"x\" ", "\"x\"");
	canon_is(" null ", "null");
}

ATF_TC_WITHOUT_HEAD(canonical_orders_names_by_utf8_bytes);
ATF_TC_BODY(canonical_orders_names_by_utf8_bytes, tc)
{
	/*
	 * "" < "Z" < "a" < "aa" < "z" < U+00E9 < U+FFFF < U+1F600: UTF-8
	 * byte order, which is code point order (UTF-16 order, as in RFC
	 * 8785, would put U+1F600 before U+FFFF).
	 */
	canon_is("{\"\xf0\x9f\x98\x80\":7,\"\\uffff\":6,\"\xc3\xa9\":5,"
	    "\"z\":4,\"aa\":3,\"a\":2,\"Z\":1,\"\":0}",
	    "{\"\":0,\"Z\":1,\"a\":2,\"aa\":3,\"z\":4,\"\xc3\xa9\":5,"
	    "\"\xef\xbf\xbf\":6,\"\xf0\x9f\x98\x80\":7}");
	/* Escaped names sort by what they unescape to. */
	canon_is("{\"\\u0062\":1,\"a\":2,\"\\u0063\":3}",
	    "{\"a\":2,\"b\":1,\"c\":3}");
}

ATF_TC_WITHOUT_HEAD(canonical_escapes_strings_minimally);
ATF_TC_BODY(canonical_escapes_strings_minimally, tc)
{
	canon_is("\"\\u0041\\/\\u00e9\\ud83d\\ude00\"",
	    "\"A/\xc3\xa9\xf0\x9f\x98\x80\"");
	canon_is("\"\\u0008\\u000C\\u000a\\u000D\\u0009\"",
	    "\"\\b\\f\\n\\r\\t\"");
	canon_is("\"\\b\\f\\n\\r\\t\"", "\"\\b\\f\\n\\r\\t\"");
	canon_is("\"\\u001F\\u0001\\u0010\"", "\"\\u001f\\u0001\\u0010\"");
	canon_is("\"\\u0022\\u005c\\\"\\\\\"", "\"\\\"\\\\\\\"\\\\\"");
	canon_is("\"\\u007f\\u2028\x7f\"", "\"\x7f\xe2\x80\xa8\x7f\"");
	canon_is("{\"\\u0041\\n\":\"\\u00e9\"}", "{\"A\\n\":\"\xc3\xa9\"}");
}

ATF_TC_WITHOUT_HEAD(canonical_keeps_literals_as_written);
ATF_TC_BODY(canonical_keeps_literals_as_written, tc)
{
	canon_is("[true , false , null]", "[true,false,null]");
}

/*
 * Numbers: the shortest decimal that reads back as the same double, plain
 * unless that is longer than the text, else integer digits and an
 * exponent.  The expected forms were computed apart from this code, from
 * Python's repr() (shortest round trip, David Gay's dtoa).
 */
ATF_TC_WITHOUT_HEAD(canonical_writes_numbers_as_shortest_round_trip);
ATF_TC_BODY(canonical_writes_numbers_as_shortest_round_trip, tc)
{
	static const struct {
		const char	*in;
		const char	*want;
	} t[] = {
		{ "1.0", "1" },
		{ "1e2", "100" },
		{ "1E+2", "100" },
		{ "1e-0", "1" },
		{ "0.10", "0.1" },
		{ "100", "100" },
		{ "1000", "1000" },
		{ "1e3", "1e3" },
		{ "10e5", "1e6" },
		{ "100e-1", "10" },
		{ "1.5e3", "1500" },
		{ "123456.789e3", "123456789" },
		{ "0.1", "0.1" },
		{ "0.30000000000000004", "0.30000000000000004" },
		{ "0.3000000000000000444", "0.30000000000000004" },
		{ "-3.14159265358979323846", "-3.141592653589793" },
		{ "0.00001", "0.00001" },
		{ "1.0e-5", "1e-5" },
		{ "1E-7", "1e-7" },
		{ "-0.000001", "-0.000001" },
		{ "4.35e-5", "435e-7" },
		{ "1.2e100", "12e99" },
		{ "-12.5e+300", "-125e299" },
		{ "1.5e-300", "15e-301" },
		/* Rounded to the double: what a server reads. */
		{ "99.999999999999999999", "100" },
		{ "9007199254740993", "9007199254740992" },
		{ "9007199254740993.0000000001", "9007199254740994" },
		/* -0, and what reads as 0, is 0. */
		{ "-0", "0" },
		{ "-0.0e0", "0" },
		{ "0e99999999999999999999", "0" },
		{ "1e-400", "0" },
		{ "-1e-400", "0" },
		{ "2.4703282292062327e-324", "0" },
		/* Subnormals. */
		{ "5e-324", "5e-324" },
		{ "4.9406564584124654e-324", "5e-324" },
		{ "2.4703282292062328e-324", "5e-324" },
		{ "7.4109846876186982e-324", "1e-323" },
		{ "9.8813129168249309e-324", "1e-323" },
		{ "2.2250738585072011e-308", "2225073858507201e-323" },
		/* The extremes of the normal range. */
		{ "2.2250738585072014e-308", "22250738585072014e-324" },
		{ "1.7976931348623157e308", "17976931348623157e292" },
		{ "-1.7976931348623157e308", "-17976931348623157e292" },
		/* Integers above 2^53 written plain are the double's value. */
		{ "1234567890123456789", "1234567890123456768" },
		{ "12345678901234567890123", "12345678901234567741440" },
		{ "100000000000000000000000", "99999999999999991611392" },
		{ "1e23", "1e23" },
		{ "1.1529215046068470e+18", "1152921504606846976" },
		{ "1152921504606847e3", "1152921504606847e3" },
		{ "1e21", "1e21" },
		{ "8.9884656743115795e+307", "898846567431158e293" },
		/*
		 * Powers of two whose nearest decimal of the shortest length
		 * does not read back (the doubles below are twice as close):
		 * the one on the other side does.
		 */
		{ "7.1202363472230444e-307", "7120236347223045e-322" },
		{ "7.2911220195563975e-304", "7291122019556398e-319" },
		{ "8.2090736025967525e-289", "8209073602596753e-304" },
		{ "6.2901843453097005e-235", "6290184345309701e-250" },
		{ "7.8545495444763625e-90", "7854549544476363e-105" },
		{ "7.1746481373430634e-43", "7174648137343064e-58" },
		/* Inside containers, every number. */
		{ "[1.0, 1e2, -0, 1E+2, 0.10, 1e-0, 100]",
		    "[1,100,0,100,0.1,1,100]" },
		{ "{\"b\":[-0.0,{\"c\":1.20e1}],\"a\":5e-1}",
		    "{\"a\":0.5,\"b\":[0,{\"c\":12}]}" },
	};
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		canon_is(t[i].in, t[i].want);
}

/* The digits and exponent of a canonical number: value = dig x 10^r. */
static void
number_digits(const char *num, char *dig, size_t digsz, long *r)
{
	const char	*p = num, *point = NULL;
	size_t		 n = 0;

	*r = 0;
	if (*p == '-')
		p++;
	for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
		if (*p == '.') {
			point = p;
			continue;
		}
		if (point != NULL)
			(*r)--;
		if (n == 0 && *p == '0')
			continue;
		ATF_REQUIRE(n + 1 < digsz);
		dig[n++] = *p;
	}
	if (*p == 'e')
		*r += strtol(p + 1, NULL, 10);
	while (n > 1 && dig[n - 1] == '0') {
		n--;
		(*r)++;
	}
	dig[n] = '\0';
}

/*
 * The canonical form of one spelling: no longer, the same double, a
 * fixed point, and the digits of every other spelling of that double.
 */
static void
spelling_is(const char *s, double v, const char *dig, long r)
{
	char		 out[512], again[512], d[32];
	size_t		 n, m;
	long		 rr;

	if (strtod(s, NULL) != v)
		return;		/* a shorter precision that rounds elsewhere */
	if (json_canonical(s, strlen(s), &lim32, out, sizeof(out), &n,
	    NULL) == -1) {
		atf_tc_fail_nonfatal("%s refused", s);
		return;
	}
	ATF_CHECK_MSG(n <= strlen(s), "%s: %s is longer", s, out);
	ATF_CHECK_MSG(strtod(out, NULL) == v, "%s: %s reads differently", s,
	    out);
	ATF_REQUIRE(json_canonical(out, n, &lim32, again, sizeof(again), &m,
	    NULL) == 0);
	ATF_CHECK_MSG(m == n && memcmp(out, again, n) == 0,
	    "%s: %s is not a fixed point", s, out);
	if (v != 0 && (v < 0 ? -v : v) < 9007199254740992.0) {
		number_digits(out, d, sizeof(d), &rr);
		ATF_CHECK_MSG(strcmp(d, dig) == 0 && rr == r,
		    "%s: %s, other spellings %se%ld", s, out, dig, r);
	}
}

/*
 * Every spelling of a double: its %.*e forms of 1 to 26 digits, and its
 * shortest digits D with the point after each of them, before them
 * ("0.De5") and plain.
 */
static void
spellings(double v)
{
	static char	 zeros[400];
	char		 s[512], base[512], dig[32];
	size_t		 n;
	long		 r, e, j, k;
	int		 p;

	if (v == 0)
		return;		/* "0", whatever the spelling */
	snprintf(s, sizeof(s), "%.16e", v);
	ATF_REQUIRE(json_canonical(s, strlen(s), &lim32, base, sizeof(base),
	    &n, NULL) == 0);
	number_digits(base, dig, sizeof(dig), &r);
	memset(zeros, '0', sizeof(zeros));
	for (p = 0; p <= 25; p++) {
		snprintf(s, sizeof(s), "%.*e", p, v);
		spelling_is(s, v, dig, r);
		snprintf(s, sizeof(s), "%.*E", p, v);
		spelling_is(s, v, dig, r);
	}
	k = (long)strlen(dig);
	e = k + r;
	for (j = 1; j <= k; j++) {
		snprintf(s, sizeof(s), "%.*s%s%se%ld", (int)j, dig,
		    j < k ? "." : "", dig + j, e - j);
		spelling_is(s, v, dig, r);
	}
	snprintf(s, sizeof(s), "0.%se%ld", dig, e);
	spelling_is(s, v, dig, r);
	if (r >= 0)
		snprintf(s, sizeof(s), "%s%.*s", dig, (int)r, zeros);
	else if (e > 0)
		snprintf(s, sizeof(s), "%.*s.%s", (int)e, dig, dig + e);
	else
		snprintf(s, sizeof(s), "0.%.*s%s", (int)-e, zeros, dig);
	spelling_is(s, v, dig, r);
}

ATF_TC_WITHOUT_HEAD(canonical_number_never_longer_than_any_spelling);
ATF_TC_BODY(canonical_number_never_longer_than_any_spelling, tc)
{
	uint64_t	 x = 0x9e3779b97f4a7c15ULL, bits;
	char		 t[16];
	double		 v;
	int		 i;

	for (i = -1074, v = 4.9406564584124654e-324; i <= 1023; i++, v *= 2)
		spellings(v);
	for (i = 1; i <= 1000; i++)
		spellings(i * 4.9406564584124654e-324);
	for (i = -323; i <= 308; i++) {
		snprintf(t, sizeof(t), "1e%d", i);
		spellings(strtod(t, NULL));
	}
	for (i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bits = x & ~(1ULL << 63);
		memcpy(&v, &bits, sizeof(v));
		if (!(v <= DBL_MAX))
			continue;	/* an infinity or a NaN */
		spellings(v);
		spellings(-v);
		spellings((double)(x >> (x % 64)));
	}
}

/*
 * A number that reads as an infinity is refused wherever it is, with
 * everything else about the document valid.
 */
ATF_TC_WITHOUT_HEAD(numbers_beyond_double_range_refused);
ATF_TC_BODY(numbers_beyond_double_range_refused, tc)
{
	check("1e999", JSON_ERANGE);
	check("-1e400", JSON_ERANGE);
	check("1e309", JSON_ERANGE);
	check("1E+309", JSON_ERANGE);
	check("-1.8e308", JSON_ERANGE);
	check("1.7976931348623159e308", JSON_ERANGE);
	check("0.1e310", JSON_ERANGE);
	check("1e99999999999999999999999999", JSON_ERANGE);
	check("[1,1e999]", JSON_ERANGE);
	check("{\"a\":1,\"b\":-1e400}", JSON_ERANGE);
	check("{\"a\":[1,{\"b\":[2,1e309]}],\"c\":\"x\"}", JSON_ERANGE);
	check("[0.5, 1e309, 0.5]", JSON_ERANGE);
	/* Scanned left to right: the first violation is reported. */
	check("[1e999,\"\xff\"]", JSON_ERANGE);
	check("[\"\xff\",1e999]", JSON_EUTF8);
	check("[1e999}", JSON_ERANGE);
	/* Checked the same way by every entry point. */
	ATF_CHECK(json_validate("{\"n\":1e999}", 12, &lim32, NULL) == -1);
	ATF_CHECK(json_canonical("{\"n\":1e999}", 12, &lim32,
	    (char [64]){ 0 }, 64, &(size_t){ 0 }, NULL) == -1);
}

/* The 309-digit integers on either side of DBL_MAX's rounding boundary. */
#define HALF_PAST_DBL_MAX						\
	"17976931348623158079372897140530341507993413271003782693617377"	\
	"89804449682927647509466490179775872070963302864166928879109465"	\
	"55547851940402630657488671505820681908902000708383676273854845"	\
	"81771153176447573027006985557136695962284291481986083493647529"	\
	"271907416844436551070434271155969950809304288017790417449779"

ATF_TC_WITHOUT_HEAD(numbers_at_the_ends_of_double_range_accepted);
ATF_TC_BODY(numbers_at_the_ends_of_double_range_accepted, tc)
{
	char	 doc[400];
	double	 v;

	accepts("1.7976931348623157e308");
	accepts("-1.7976931348623157e308");
	accepts("1.7976931348623158e308");	/* rounds down to DBL_MAX */
	accepts("2.2250738585072014e-308");
	accepts("5e-324");
	accepts("-4.9406564584124654e-324");
	accepts("[1e-400,-1e-400,0e999999]");
	accepts("1" "00000000000000000000000000000000000000000000000000"
	    "e-50");
	/* 2^1024 - 2^970, half way to 2^1024, rounds to even: infinity. */
	snprintf(doc, sizeof(doc), "%s2", HALF_PAST_DBL_MAX);
	check(doc, JSON_ERANGE);
	snprintf(doc, sizeof(doc), "%s1", HALF_PAST_DBL_MAX);
	accepts(doc);
	ATF_REQUIRE(json_number(doc, strlen(doc), 0, &v) == 0);
	ATF_CHECK(v == DBL_MAX);
}

/* json_number(): the double a parser gets, the sticky digit included. */
ATF_TC_WITHOUT_HEAD(numbers_read_as_the_nearest_double);
ATF_TC_BODY(numbers_read_as_the_nearest_double, tc)
{
	char	*doc;
	double	 v;
	size_t	 n;

	ATF_CHECK(json_number("1e-400", 6, 0, &v) == 0 && v == 0);
	ATF_CHECK(json_number("-0", 2, 0, &v) == 0 && v == 0 && signbit(v));
	ATF_CHECK(json_number("-1e-400", 7, 0, &v) == 0 && v == 0 &&
	    signbit(v));
	ATF_CHECK(json_number("2.4703282292062328e-324", 23, 0, &v) == 0 &&
	    v == 4.9406564584124654e-324);
	ATF_CHECK(json_number("[ 12.5 ]", 8, 2, &v) == 0 && v == 12.5);
	ATF_CHECK(json_number("12x", 3, 0, &v) == -1);
	ATF_CHECK(json_number("\"1\"", 3, 0, &v) == -1);
	ATF_CHECK(json_number("1e999", 5, 0, &v) == -1);
	ATF_CHECK(json_number("1", 1, 1, &v) == -1);
	/* 2^53 + 1 is half way between two doubles: ties to even. */
	ATF_CHECK(json_number("9007199254740993", 16, 0, &v) == 0 &&
	    v == 9007199254740992.0);

	/*
	 * Far past the digits kept, a nonzero digit still lifts a tie to the
	 * double above, and a run of zeros does not.
	 */
	ATF_REQUIRE((doc = malloc(4096)) != NULL);
	n = (size_t)snprintf(doc, 4096, "9007199254740993.");
	memset(doc + n, '0', 3000);
	doc[n + 3000] = '\0';
	ATF_CHECK(json_number(doc, n + 3000, 0, &v) == 0 &&
	    v == 9007199254740992.0);
	doc[n + 3000] = '1';
	ATF_CHECK(json_number(doc, n + 3001, 0, &v) == 0 &&
	    v == 9007199254740994.0);
	/* 0.{2000 zeros}1e2002 is 10, 4.{2000 nines} rounds to 5. */
	n = (size_t)snprintf(doc, 4096, "0.");
	memset(doc + n, '0', 2000);
	n += 2000;
	n += (size_t)snprintf(doc + n, 4096 - n, "1e2002");
	ATF_CHECK(json_number(doc, n, 0, &v) == 0 && v == 10);
	n = (size_t)snprintf(doc, 4096, "4.");
	memset(doc + n, '9', 2000);
	n += 2000;
	ATF_CHECK(json_number(doc, n, 0, &v) == 0 && v == 5);
	free(doc);
}

ATF_TC_WITHOUT_HEAD(canonical_sorts_a_full_object);
ATF_TC_BODY(canonical_sorts_a_full_object, tc)
{
	struct json_limits	 lim = { DOC_BYTES, 8 };
	char			*in, *out, name[8];
	size_t			 len, n, it, k, v, i;

	ATF_REQUIRE((in = malloc(DOC_BYTES)) != NULL);
	ATF_REQUIRE((out = malloc(DOC_BYTES)) != NULL);
	len = wide_object(in, DOC_BYTES, JSON_MEMBERS_MAX, NULL);
	ATF_REQUIRE(json_canonical(in, len, &lim, out, DOC_BYTES, &n,
	    NULL) == 0);
	ATF_CHECK_EQ(n, len);
	it = 0;
	for (i = 0; json_member_next(out, n, &it, &k, &v); i++) {
		snprintf(name, sizeof(name), "k%03zu", i);
		ATF_CHECK_MSG(json_string_equal(out, n, k, name),
		    "member %zu out of order", i);
	}
	ATF_CHECK_EQ(i, JSON_MEMBERS_MAX);
	free(out);
	free(in);
}

ATF_TC_WITHOUT_HEAD(canonical_refuses_invalid_input_and_small_output);
ATF_TC_BODY(canonical_refuses_invalid_input_and_small_output, tc)
{
	const char	*doc = "{ \"b\" : 1, \"a\" : 2 }";
	const char	*why;
	char		 out[64];
	size_t		 n, want = strlen("{\"a\":2,\"b\":1}");

	why = "";
	ATF_CHECK(json_canonical("{\"a\":1,\"a\":2}", 13, &lim32, out,
	    sizeof(out), &n, &why) == -1);
	ATF_CHECK_STREQ(why, "duplicate key");
	why = "";
	ATF_CHECK(json_canonical("[1,]", 4, &lim32, out, sizeof(out), &n,
	    &why) == -1);
	ATF_CHECK_STREQ(why, "syntax error");

	/* Exactly the bytes and the NUL fit; one less does not. */
	ATF_CHECK(json_canonical(doc, strlen(doc), &lim32, out, want + 1, &n,
	    &why) == 0);
	ATF_CHECK_EQ(n, want);
	ATF_CHECK_STREQ(out, "{\"a\":2,\"b\":1}");
	why = "";
	ATF_CHECK(json_canonical(doc, strlen(doc), &lim32, out, want, &n,
	    &why) == -1);
	ATF_CHECK_STREQ(why, "output too large");
	ATF_CHECK(json_canonical(doc, strlen(doc), &lim32, out, 0, &n,
	    &why) == -1);
}

ATF_TC_WITHOUT_HEAD(canonical_handles_maximum_depth);
ATF_TC_BODY(canonical_handles_maximum_depth, tc)
{
	struct json_limits	 lim = { 4096, JSON_DEPTH_MAX };
	char			 in[4096], out[4096];
	size_t			 len, n, i;

	len = 0;
	for (i = 0; i < JSON_DEPTH_MAX; i++)
		len += snprintf(in + len, sizeof(in) - len,
		    i % 2 ? "[ " : "{ \"b\":0, \"a\" : ");
	in[len++] = '1';
	for (i = JSON_DEPTH_MAX; i > 0; i--)
		in[len++] = (i - 1) % 2 ? ']' : '}';
	ATF_REQUIRE(json_canonical(in, len, &lim, out, sizeof(out), &n,
	    NULL) == 0);
	ATF_CHECK(n < len);
	ATF_CHECK(strncmp(out, "{\"a\":[{\"a\":[", 12) == 0);
	ATF_CHECK(json_check(out, n, &lim) == JSON_OK);
}

ATF_TC_WITHOUT_HEAD(readers_walk_a_validated_document);
ATF_TC_BODY(readers_walk_a_validated_document, tc)
{
	const char	*doc = " { \"op\" : \"r\\u00e9ad\" , \"n\" : -1.5e3 ,"
	    " \"l\" : [ 1 , \"]\" , { \"x\" : [ ] } ] , \"t\":true } ";
	size_t		 len = strlen(doc), it, k, v, e, n;
	char		 s[8];
	int		 i;

	ATF_REQUIRE(json_check(doc, len, &lim32) == JSON_OK);
	it = json_skip_ws(doc, len, 0);
	ATF_CHECK_EQ(json_type(doc, len, it), JSON_OBJECT);
	ATF_CHECK_EQ(json_value_end(doc, len, it), len - 1);

	ATF_REQUIRE(json_member_next(doc, len, &it, &k, &v));
	ATF_CHECK(json_string_equal(doc, len, k, "op"));
	ATF_CHECK(!json_string_equal(doc, len, k, "o"));
	ATF_CHECK(!json_string_equal(doc, len, k, "opx"));
	ATF_CHECK_EQ(json_type(doc, len, v), JSON_STRING);
	ATF_CHECK(json_string_equal(doc, len, v, "r\xc3\xa9" "ad"));
	ATF_CHECK(json_string_copy(doc, len, v, s, sizeof(s), &n) == 0);
	ATF_CHECK_EQ(n, 5);
	ATF_CHECK_STREQ(s, "r\xc3\xa9" "ad");
	/* Five bytes and the NUL: six fit, five do not. */
	ATF_CHECK(json_string_copy(doc, len, v, s, 6, &n) == 0);
	ATF_CHECK(json_string_copy(doc, len, v, s, 5, &n) == -1);

	ATF_REQUIRE(json_member_next(doc, len, &it, &k, &v));
	ATF_CHECK(json_string_equal(doc, len, k, "n"));
	ATF_CHECK_EQ(json_type(doc, len, v), JSON_NUMBER);
	ATF_CHECK_EQ(json_value_end(doc, len, v) - v, 6);

	ATF_REQUIRE(json_member_next(doc, len, &it, &k, &v));
	ATF_CHECK(json_string_equal(doc, len, k, "l"));
	ATF_CHECK_EQ(json_type(doc, len, v), JSON_ARRAY);
	e = v;
	ATF_REQUIRE(json_element_next(doc, len, &e, &n));
	ATF_CHECK_EQ(json_type(doc, len, n), JSON_NUMBER);
	ATF_REQUIRE(json_element_next(doc, len, &e, &n));
	ATF_CHECK(json_string_equal(doc, len, n, "]"));
	ATF_REQUIRE(json_element_next(doc, len, &e, &n));
	ATF_CHECK_EQ(json_type(doc, len, n), JSON_OBJECT);
	ATF_CHECK(!json_element_next(doc, len, &e, &n));

	ATF_REQUIRE(json_member_next(doc, len, &it, &k, &v));
	ATF_CHECK_EQ(json_type(doc, len, v), JSON_TRUE);
	ATF_CHECK(!json_member_next(doc, len, &it, &k, &v));
	ATF_CHECK(!json_member_next(doc, len, &it, &k, &v));

	/* A quote behind an even run of backslashes ends a string. */
	doc = "[\"a\\\\\",\"b\\\"c\\\\\\\"\",\"\\\\\\\\\"]";
	len = strlen(doc);
	ATF_REQUIRE(json_check(doc, len, &lim32) == JSON_OK);
	e = 0;
	for (i = 0; json_element_next(doc, len, &e, &n); i++)
		ATF_CHECK_EQ(json_type(doc, len, n), JSON_STRING);
	ATF_CHECK_EQ(i, 3);
	ATF_CHECK_EQ(json_value_end(doc, len, 1), 6);

	/* Readers stay in bounds on bytes that were never validated. */
	for (i = 0; i < 2; i++) {
		it = 0;
		while (json_member_next("{\"a", 3, &it, &k, &v))
			;
		it = 0;
		while (json_element_next("[[\"", 3, &it, &v))
			;
	}
	ATF_CHECK_EQ(json_value_end("[\"\\", 3, 0), 3);
	ATF_CHECK_EQ(json_type("x", 1, 0), JSON_INVALID);
	ATF_CHECK_EQ(json_type("x", 1, 1), JSON_INVALID);
}

ATF_TC_WITHOUT_HEAD(every_code_has_its_own_reason);
ATF_TC_BODY(every_code_has_its_own_reason, tc)
{
	enum json_error	 e, f;

	ATF_CHECK_STREQ(json_strerror(JSON_OK), "no error");
	ATF_CHECK_STREQ(json_strerror(JSON_ELIMITS), "invalid limits");
	ATF_CHECK_STREQ(json_strerror(JSON_ERANGE), "number out of range");
	for (e = JSON_OK; e < JSON_ERROR_MAX; e++) {
		ATF_CHECK(strcmp(json_strerror(e), "unknown error") != 0);
		for (f = JSON_OK; f < e; f++)
			ATF_CHECK(strcmp(json_strerror(e),
			    json_strerror(f)) != 0);
	}
	ATF_CHECK_STREQ(json_strerror((enum json_error)-1), "unknown error");
	ATF_CHECK_STREQ(json_strerror(JSON_ERROR_MAX + 1), "unknown error");
}

/*
 * A document ends at its length, whatever bytes lie after it: here they
 * would complete it, or give another reason.
 */
ATF_TC_WITHOUT_HEAD(bytes_past_the_length_never_read);
ATF_TC_BODY(bytes_past_the_length_never_read, tc)
{
	/* A container cut short, its close just past the end. */
	check_prefix("[1]", 2, JSON_ESYNTAX);
	check_prefix("{\"a\":1}", 6, JSON_ESYNTAX);
	check_prefix("[]", 1, JSON_ESYNTAX);
	check_prefix("{}", 1, JSON_ESYNTAX);
	/* A number ends at the end. */
	check_prefix("1.5", 1, JSON_OK);
	check_prefix("1e5", 1, JSON_OK);
	/* A \u escape needs its four digits inside the document. */
	check_prefix("\"\\u0000\"", 3, JSON_ESYNTAX);
	check_prefix("\"\\u0000\"", 4, JSON_ESYNTAX);
	check_prefix("\"\\u0000\"", 5, JSON_ESYNTAX);
	check_prefix("\"\\u0000\"", 6, JSON_ESYNTAX);
	/* And so does the low half of a pair, its backslash and its u. */
	check_prefix("\"\\ud800\\udc00\"", 7, JSON_ESURROGATE);
	check_prefix("\"\\ud800\\udc00\"", 8, JSON_ESURROGATE);
	check_prefix("\"\\ud800\\udc00\"", 9, JSON_ESYNTAX);
	check_prefix("\"\\ud800\\udc00\"", 12, JSON_ESYNTAX);
	/* An end where a name or a colon should be: syntax, not UTF-8. */
	check_prefix("{\xff", 1, JSON_ESYNTAX);
	check_prefix("{\"a\":1,\xff", 7, JSON_ESYNTAX);
	check_prefix("{\"a\"\xff", 4, JSON_ESYNTAX);
}

ATF_TC_WITHOUT_HEAD(member_name_must_open_with_a_quote);
ATF_TC_BODY(member_name_must_open_with_a_quote, tc)
{
	check("{a\":1}", JSON_ESYNTAX);
	check("{\"a\":1,b\":2}", JSON_ESYNTAX);
	accepts("{\"a\":1,\"b\":2}");
}

ATF_TC_WITHOUT_HEAD(member_name_must_be_followed_by_a_colon);
ATF_TC_BODY(member_name_must_be_followed_by_a_colon, tc)
{
	check("{\"a\"=1}", JSON_ESYNTAX);
	check("{\"a\":1,\"b\"=2}", JSON_ESYNTAX);
	check("{\"a\"", JSON_ESYNTAX);
	check("{\"a\" ", JSON_ESYNTAX);
	accepts("{\"a\" : 1}");
}

/*
 * levels objects of JSON_MEMBERS_MAX members, each the member "in" of
 * the one around it, the innermost's "in" being inner.
 */
static size_t
wide_nest(char *buf, size_t bufsz, size_t levels, const char *inner)
{
	size_t	 len = 0, i;

	for (i = 0; i < levels; i++)
		len += snprintf(buf + len, bufsz - len, "{\"in\":");
	len += snprintf(buf + len, bufsz - len, "%s", inner);
	for (i = 0; i < levels; i++) {
		len += snprintf(buf + len, bufsz - len, ",");
		len += wide_members(buf + len, bufsz - len,
		    JSON_MEMBERS_MAX - 1);
		len += snprintf(buf + len, bufsz - len, "}");
	}
	ATF_REQUIRE(len < bufsz);
	return len;
}

/*
 * What a container passes to the object around it is the largest need of
 * its children, not its last child's: here the big object comes first
 * in an array, a small one after it, and the members of the object
 * around the array come after both.
 */
ATF_TC_WITHOUT_HEAD(members_bounded_by_the_largest_child_not_the_last);
ATF_TC_BODY(members_bounded_by_the_largest_child_not_the_last, tc)
{
	struct json_limits	 lim = { DOC_BYTES, 16 };
	char			*buf;
	size_t			 len, inner;

	ATF_REQUIRE((buf = malloc(DOC_BYTES)) != NULL);
	/* 3 x 256 + 1 members inside, 256 around: one too many. */
	len = snprintf(buf, DOC_BYTES, "{\"t\":[");
	len += wide_nest(buf + len, DOC_BYTES - len, 3, "{\"z\":0}");
	len += snprintf(buf + len, DOC_BYTES - len, ",[0]],");
	len += wide_members(buf + len, DOC_BYTES - len, JSON_MEMBERS_MAX - 1);
	len += snprintf(buf + len, DOC_BYTES - len, "}");
	ATF_REQUIRE(len < DOC_BYTES);
	check_n(buf, len, &lim, JSON_EMEMBERS);
	/* 3 x 256 inside, 256 around: exactly the table. */
	len = snprintf(buf, DOC_BYTES, "{\"t\":[");
	inner = wide_nest(buf + len, DOC_BYTES - len, 3, "0");
	len += inner;
	len += snprintf(buf + len, DOC_BYTES - len, ",[0]],");
	len += wide_members(buf + len, DOC_BYTES - len, JSON_MEMBERS_MAX - 1);
	len += snprintf(buf + len, DOC_BYTES - len, "}");
	ATF_REQUIRE(len < DOC_BYTES);
	check_n(buf, len, &lim, JSON_OK);
	free(buf);
}

/* Each length of UTF-8, raw or escaped, and DEL, read back as written. */
ATF_TC_WITHOUT_HEAD(readers_decode_every_utf8_length);
ATF_TC_BODY(readers_decode_every_utf8_length, tc)
{
	static const char *const docs[] = {
		"[\"\x7f\xc3\xa9\xe3\x81\x82\xf1\x80\x80\x81\"]",
		"[\"\\u007f\\u00e9\\u3042\\ud8c0\\udc01\"]",
	};
	const char	*want = "\x7f\xc3\xa9\xe3\x81\x82\xf1\x80\x80\x81";
	char		 s[16];
	size_t		 i, len, n;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		len = strlen(docs[i]);
		ATF_REQUIRE(json_check(docs[i], len, &lim32) == JSON_OK);
		ATF_CHECK(json_string_equal(docs[i], len, 1, want));
		ATF_CHECK(json_string_copy(docs[i], len, 1, s, sizeof(s),
		    &n) == 0);
		ATF_CHECK_EQ(n, strlen(want));
		ATF_CHECK_STREQ(s, want);
	}
}

/* A string longer than the C string is not equal to it. */
ATF_TC_WITHOUT_HEAD(string_equal_refuses_a_longer_string);
ATF_TC_BODY(string_equal_refuses_a_longer_string, tc)
{
	char	*a;

	/* On the heap, exactly its bytes: a read past them is reported. */
	ATF_REQUIRE((a = strdup("a")) != NULL);
	ATF_CHECK(json_string_equal("\"a\"", 3, 0, a));
	ATF_CHECK(!json_string_equal("\"aa\"", 4, 0, a));
	ATF_CHECK(!json_string_equal("\"aaa\"", 5, 0, a));
	ATF_CHECK(!json_string_equal("\"aaaa\"", 6, 0, a));
	ATF_CHECK(!json_string_equal("\"\"", 2, 0, a));
	free(a);
}

ATF_TC_WITHOUT_HEAD(type_of_every_kind_of_value);
ATF_TC_BODY(type_of_every_kind_of_value, tc)
{
	static const struct {
		const char	*doc;
		enum json_type	 type;
	} t[] = {
		{ "{}", JSON_OBJECT }, { "[]", JSON_ARRAY },
		{ "\"\"", JSON_STRING }, { "true", JSON_TRUE },
		{ "false", JSON_FALSE }, { "null", JSON_NULL },
		{ "-1", JSON_NUMBER }, { "0", JSON_NUMBER },
		{ "1", JSON_NUMBER }, { "2", JSON_NUMBER },
		{ "3", JSON_NUMBER }, { "4", JSON_NUMBER },
		{ "5", JSON_NUMBER }, { "6", JSON_NUMBER },
		{ "7", JSON_NUMBER }, { "8", JSON_NUMBER },
		{ "9", JSON_NUMBER },
	};
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ATF_REQUIRE(json_check(t[i].doc, strlen(t[i].doc), &lim32) ==
		    JSON_OK);
		ATF_CHECK_EQ_MSG(json_type(t[i].doc, strlen(t[i].doc), 0),
		    t[i].type, "%s", t[i].doc);
	}
	ATF_CHECK_EQ(json_type("+", 1, 0), JSON_INVALID);
	ATF_CHECK_EQ(json_type("/", 1, 0), JSON_INVALID);
	ATF_CHECK_EQ(json_type(":", 1, 0), JSON_INVALID);
}

/* A number or a literal ends at each byte that may follow a value. */
ATF_TC_WITHOUT_HEAD(scalar_ends_at_every_delimiter);
ATF_TC_BODY(scalar_ends_at_every_delimiter, tc)
{
	static const char *const after[] = {
		",", "]", "}", " ", "\t", "\n", "\r"
	};
	char	 doc[16];
	size_t	 i, len;
	double	 v;

	for (i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		len = (size_t)snprintf(doc, sizeof(doc), "12%s0", after[i]);
		ATF_CHECK_EQ_MSG(json_value_end(doc, len, 0), 2, "12%s",
		    after[i]);
		ATF_CHECK_MSG(json_number(doc, len, 0, &v) == 0 && v == 12,
		    "12%s", after[i]);
		len = (size_t)snprintf(doc, sizeof(doc), "true%s0", after[i]);
		ATF_CHECK_EQ_MSG(json_value_end(doc, len, 0), 4, "true%s",
		    after[i]);
	}
	ATF_CHECK_EQ(json_value_end("12", 2, 0), 2);
	canon_is("[true\t,false\n,null\r, 0 ]", "[true,false,null,0]");
	canon_is("{\"a\":true\t,\"b\":null\n}", "{\"a\":true,\"b\":null}");
}

/* json_string_equal() and json_string_copy() on what is not a string. */
ATF_TC_WITHOUT_HEAD(string_readers_refuse_what_is_no_string);
ATF_TC_BODY(string_readers_refuse_what_is_no_string, tc)
{
	char	 s[8], *doc;

	ATF_CHECK(!json_string_equal("a\"", 2, 0, ""));
	ATF_CHECK(json_string_copy("a\"", 2, 0, s, sizeof(s), NULL) == -1);
	ATF_CHECK(!json_string_equal("1", 1, 0, ""));
	/* An offset at the end, the bytes after it a string. */
	ATF_CHECK(!json_string_equal("\"\"\"\"", 2, 2, ""));
	ATF_CHECK(json_string_copy("\"\"\"\"", 2, 2, s, sizeof(s),
	    NULL) == -1);
	/* And exactly the document's bytes, for ASan. */
	ATF_REQUIRE((doc = malloc(2)) != NULL);
	memcpy(doc, "\"\"", 2);
	ATF_CHECK(!json_string_equal(doc, 2, 2, ""));
	ATF_CHECK(json_string_copy(doc, 2, 2, s, sizeof(s), NULL) == -1);
	ATF_CHECK(json_string_equal(doc, 2, 0, ""));
	ATF_CHECK(json_string_copy(doc, 2, 0, s, sizeof(s), NULL) == 0);
	ATF_CHECK_STREQ(s, "");
	free(doc);
}

/*
 * A string whose last code point takes 1, 2, 3 or 4 bytes: into a buffer
 * of exactly its bytes and the NUL it fits, into one byte less it does
 * not, and nothing is written past the buffer (on the heap, for ASan).
 */
ATF_TC_WITHOUT_HEAD(string_copy_fits_exactly_or_refuses);
ATF_TC_BODY(string_copy_fits_exactly_or_refuses, tc)
{
	static const struct {
		const char	*doc;
		const char	*want;
	} t[] = {
		{ "\"ab\"", "ab" },
		{ "\"a\\u0062\"", "ab" },
		{ "\"a\xc3\xa9\"", "a\xc3\xa9" },
		{ "\"a\\u00e9\"", "a\xc3\xa9" },
		{ "\"a\xe2\x82\xac\"", "a\xe2\x82\xac" },
		{ "\"a\\u20ac\"", "a\xe2\x82\xac" },
		{ "\"a\xf0\x9f\x98\x80\"", "a\xf0\x9f\x98\x80" },
		{ "\"a\\ud83d\\ude00\"", "a\xf0\x9f\x98\x80" },
		{ "\"\"", "" },
	};
	char	*dst;
	size_t	 i, len, want, n;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		len = strlen(t[i].doc);
		want = strlen(t[i].want);
		ATF_REQUIRE(json_check(t[i].doc, len, &lim32) == JSON_OK);
		ATF_REQUIRE((dst = malloc(want + 1)) != NULL);
		n = 99;
		ATF_CHECK_MSG(json_string_copy(t[i].doc, len, 0, dst, want + 1,
		    &n) == 0, "%s", t[i].doc);
		ATF_CHECK_EQ_MSG(n, want, "%s", t[i].doc);
		ATF_CHECK_MSG(memcmp(dst, t[i].want, want + 1) == 0, "%s",
		    t[i].doc);
		ATF_CHECK(json_string_copy(t[i].doc, len, 0, dst, want + 1,
		    NULL) == 0);
		free(dst);
		ATF_REQUIRE((dst = malloc(want > 0 ? want : 1)) != NULL);
		ATF_CHECK_MSG(json_string_copy(t[i].doc, len, 0, dst, want,
		    &n) == -1, "%s in %zu bytes", t[i].doc, want);
		free(dst);
	}
}

/*
 * Objects of 1 to 40 members in many orders: the canonical form has them
 * sorted, each name with its own value.
 */
ATF_TC_WITHOUT_HEAD(canonical_sorts_members_in_any_order);
ATF_TC_BODY(canonical_sorts_members_in_any_order, tc)
{
	char		 in[1024], out[1024], name[8];
	size_t		 order[40], n, i, j, t, len, outlen, it, k, v;
	uint32_t	 x = 12345;
	double		 d;
	int		 round;

	for (n = 1; n <= 40; n++) {
		for (round = 0; round < 12; round++) {
			for (i = 0; i < n; i++)
				order[i] = round == 1 ? n - 1 - i : i;
			for (i = n; round > 1 && i > 1; i--) {
				x = x * 1103515245 + 12345;
				j = (x >> 8) % i;
				t = order[i - 1];
				order[i - 1] = order[j];
				order[j] = t;
			}
			len = 0;
			in[len++] = '{';
			for (i = 0; i < n; i++)
				len += (size_t)snprintf(in + len,
				    sizeof(in) - len, "%s\"k%02zu\":%zu",
				    i > 0 ? "," : "", order[i], order[i]);
			in[len++] = '}';
			ATF_REQUIRE(json_canonical(in, len, &lim32, out,
			    sizeof(out), &outlen, NULL) == 0);
			it = 0;
			for (i = 0; json_member_next(out, outlen, &it, &k, &v);
			    i++) {
				snprintf(name, sizeof(name), "k%02zu", i);
				ATF_CHECK_MSG(json_string_equal(out, outlen,
				    k, name) && json_number(out, outlen, v,
				    &d) == 0 && d == (double)i,
				    "%zu members, round %d: %s", n, round, out);
			}
			ATF_CHECK_EQ(i, n);
		}
	}
}

/*
 * Code points at both ends of each UTF-8 length, read raw or from an
 * escape: json_string_copy() writes each one's bytes, every bit of them.
 */
ATF_TC_WITHOUT_HEAD(string_copy_writes_every_utf8_length_boundary);
ATF_TC_BODY(string_copy_writes_every_utf8_length_boundary, tc)
{
	static const struct {
		const char	*doc;
		const char	*want;
	} t[] = {
		{ "\"\\u0001\\u007f\"", "\x01\x7f" },
		{ "\"\\u0080\\u07ff\"", "\xc2\x80\xdf\xbf" },
		{ "\"\\u0800\\uffff\"", "\xe0\xa0\x80\xef\xbf\xbf" },
		{ "\"\\ud800\\udc00\\udbff\\udfff\"",
		    "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf" },
		{ "\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\"",
		    "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf" },
		{ "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"",
		    "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf" },
	};
	char	 s[32];
	size_t	 i, len, n;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		len = strlen(t[i].doc);
		ATF_REQUIRE(json_check(t[i].doc, len, &lim32) == JSON_OK);
		n = 99;
		ATF_CHECK_MSG(json_string_copy(t[i].doc, len, 0, s, sizeof(s),
		    &n) == 0, "%zu", i);
		ATF_CHECK_EQ_MSG(n, strlen(t[i].want), "%zu", i);
		ATF_CHECK_MSG(strcmp(s, t[i].want) == 0, "%zu", i);
	}
}

/*
 * A string that is not well formed is refused by json_string_copy(), each
 * with one defect: not closed, a bad escape, a control character.
 */
ATF_TC_WITHOUT_HEAD(string_copy_refuses_a_malformed_string);
ATF_TC_BODY(string_copy_refuses_a_malformed_string, tc)
{
	static const char *const bad[] = {
		"\"ab", "\"a\\qb\"", "\"a\x01\"", "\"a\\u00\"", "\"a\\ud800\"",
	};
	char	 s[16];
	size_t	 i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 99;
		ATF_CHECK_MSG(json_string_copy(bad[i], strlen(bad[i]), 0, s,
		    sizeof(s), &n) == -1, "%zu", i);
		ATF_CHECK_EQ_MSG(n, 99, "%zu", i);
	}
}

/*
 * Escaped code points at both ends of each UTF-8 length, and control
 * characters of both hex digits, in the canonical form.
 */
ATF_TC_WITHOUT_HEAD(canonical_encodes_every_utf8_length_boundary);
ATF_TC_BODY(canonical_encodes_every_utf8_length_boundary, tc)
{
	canon_is("\"\\u0080\\u07ff\\u0800\\uffff\"",
	    "\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\"");
	canon_is("\"\\ud800\\udc00\\udbff\\udfff\"",
	    "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"");
	canon_is("\"\\u0020\\u007e\\u001e\\u000f\\u0011\"",
	    "\" ~\\u001e\\u000f\\u0011\"");
}

/*
 * json_canon() with no output buffer, or one of no bytes, says the output
 * does not fit, by its own code and by json_canonical()'s reason.
 */
ATF_TC_WITHOUT_HEAD(canonical_refuses_a_null_or_empty_output);
ATF_TC_BODY(canonical_refuses_a_null_or_empty_output, tc)
{
	const char	*why;
	char		 out[16];
	size_t		 n = 99;

	ATF_CHECK_EQ(json_canon("[1]", 3, &lim32, NULL, sizeof(out), &n),
	    JSON_ESPACE);
	ATF_CHECK_EQ(json_canon("[1]", 3, &lim32, out, 0, &n), JSON_ESPACE);
	ATF_CHECK_EQ(n, 99);
	why = "";
	ATF_CHECK(json_canonical("[1]", 3, &lim32, out, 0, &n, &why) == -1);
	ATF_CHECK_STREQ(why, "output too large");
	ATF_CHECK_EQ(json_canon("[1]", 3, &lim32, out, sizeof(out), &n),
	    JSON_OK);
	ATF_CHECK_EQ(n, 3);
}

/* The length and the reason are optional: the form is written all the same. */
ATF_TC_WITHOUT_HEAD(canonical_without_length_or_reason_writes_the_form);
ATF_TC_BODY(canonical_without_length_or_reason_writes_the_form, tc)
{
	char	 out[16];

	memset(out, 'x', sizeof(out));
	ATF_CHECK(json_canonical("{\"b\":1,\"a\":2}", 13, &lim32, out,
	    sizeof(out), NULL, NULL) == 0);
	ATF_CHECK_STREQ(out, "{\"a\":2,\"b\":1}");
	ATF_CHECK_EQ(json_canon("[ 1 ]", 5, &lim32, out, sizeof(out), NULL),
	    JSON_OK);
	ATF_CHECK_STREQ(out, "[1]");
	ATF_CHECK(json_canonical("[1,]", 4, &lim32, out, sizeof(out), NULL,
	    NULL) == -1);
}

/*
 * Objects nested four deep, 256 members each, the inner object the first
 * member: the encoder holds all 1024 members at once, exactly its table.
 */
ATF_TC_WITHOUT_HEAD(canonical_fills_the_member_table_exactly);
ATF_TC_BODY(canonical_fills_the_member_table_exactly, tc)
{
	struct json_limits	 lim = { DOC_BYTES, 16 };
	char			*in, *out;
	size_t			 len, n, levels;

	ATF_REQUIRE((in = malloc(DOC_BYTES)) != NULL);
	ATF_REQUIRE((out = malloc(DOC_BYTES)) != NULL);
	levels = JSON_OPEN_MEMBERS_MAX / JSON_MEMBERS_MAX;
	len = wide_nest(in, DOC_BYTES, levels, "0");
	ATF_REQUIRE(json_check(in, len, &lim) == JSON_OK);
	ATF_CHECK(json_canonical(in, len, &lim, out, DOC_BYTES, &n,
	    NULL) == 0);
	ATF_CHECK_EQ(n, len);
	ATF_CHECK(json_check(out, n, &lim) == JSON_OK);
	ATF_CHECK(strncmp(out, "{\"in\":{\"in\":{\"in\":{\"in\":0,\"k000\":0,",
	    34) == 0);
	free(out);
	free(in);
}

/*
 * Into a buffer too small for the canonical form, for each size: refused,
 * and what was written is a prefix of the form, nothing past the size.
 * The strings are pieces of several bytes, a shorter piece after each.
 */
ATF_TC_WITHOUT_HEAD(canonical_into_a_small_buffer_writes_only_a_prefix);
ATF_TC_BODY(canonical_into_a_small_buffer_writes_only_a_prefix, tc)
{
	const char	*doc = "[\"abc\",1,{\"defg\":\"hi\\u00e9\"},\"\"]";
	const char	*want = "[\"abc\",1,{\"defg\":\"hi\xc3\xa9\"},\"\"]";
	char		 out[64];
	size_t		 sz, i, n;

	for (sz = 1; sz <= strlen(want); sz++) {
		memset(out, 'x', sizeof(out));
		ATF_CHECK_EQ_MSG(json_canon(doc, strlen(doc), &lim32, out, sz,
		    &n), JSON_ESPACE, "%zu bytes", sz);
		for (i = 0; i < sz && out[i] == want[i]; i++)
			;
		for (; i < sizeof(out); i++)
			if (out[i] != 'x')
				break;
		ATF_CHECK_MSG(i == sizeof(out), "%zu bytes: \"%.*s\"", sz,
		    (int)sz, out);
	}
	ATF_CHECK_EQ(json_canon(doc, strlen(doc), &lim32, out, sz, &n),
	    JSON_OK);
	ATF_CHECK_STREQ(out, want);
}

/*
 * A quote and a backslash in a string, escaped or not in the input, are
 * written as \" and \\: here the first escapes this process writes.
 */
ATF_TC_WITHOUT_HEAD(canonical_escapes_quote_and_backslash);
ATF_TC_BODY(canonical_escapes_quote_and_backslash, tc)
{
	canon_is("[\"a\\\"b\",\"c\\\\d\"]", "[\"a\\\"b\",\"c\\\\d\"]");
	canon_is("{\"\\u0022\":\"\\u005C\"}", "{\"\\\"\":\"\\\\\"}");
}

/*
 * At the depth limit the innermost container may be an object or an
 * array, alone or inside the other kind.
 */
ATF_TC_WITHOUT_HEAD(canonical_takes_either_container_at_the_depth_limit);
ATF_TC_BODY(canonical_takes_either_container_at_the_depth_limit, tc)
{
	static const struct {
		int		 depth;
		const char	*doc;
		const char	*want;
	} t[] = {
		{ 1, "{ \"b\":1, \"a\":2 }", "{\"a\":2,\"b\":1}" },
		{ 1, "[ 1, 2 ]", "[1,2]" },
		{ 2, "[ { \"b\":1, \"a\":2 } ]", "[{\"a\":2,\"b\":1}]" },
		{ 2, "{ \"a\": [ 1, 2 ] }", "{\"a\":[1,2]}" },
	};
	struct json_limits	 lim;
	char			 out[64];
	size_t			 i, n;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		lim.max_bytes = 64 * 1024;
		lim.max_depth = t[i].depth;
		out[0] = '\0';
		ATF_CHECK_MSG(json_canonical(t[i].doc, strlen(t[i].doc), &lim,
		    out, sizeof(out), &n, NULL) == 0, "%s", t[i].doc);
		ATF_CHECK_STREQ(out, t[i].want);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, scalars_at_top_level_accepted);
	ATF_TP_ADD_TC(tp, empty_or_blank_document_refused);
	ATF_TP_ADD_TC(tp, numbers_follow_rfc8259_grammar);
	ATF_TP_ADD_TC(tp, literals_must_be_exact);
	ATF_TP_ADD_TC(tp, every_escape_of_rfc8259_accepted);
	ATF_TP_ADD_TC(tp, invalid_escapes_refused);
	ATF_TP_ADD_TC(tp, raw_control_characters_in_strings_refused);
	ATF_TP_ADD_TC(tp, structural_errors_refused);
	ATF_TP_ADD_TC(tp, anything_after_the_value_is_trailing_data);
	ATF_TP_ADD_TC(tp, well_formed_utf8_accepted);
	ATF_TP_ADD_TC(tp, overlong_utf8_refused);
	ATF_TP_ADD_TC(tp, utf8_encoded_surrogates_refused);
	ATF_TP_ADD_TC(tp, utf8_above_u10ffff_refused);
	ATF_TP_ADD_TC(tp, truncated_or_stray_utf8_refused);
	ATF_TP_ADD_TC(tp, invalid_utf8_outside_strings_reported_as_utf8);
	ATF_TP_ADD_TC(tp, escaped_surrogate_pairs_accepted);
	ATF_TP_ADD_TC(tp, unpaired_escaped_surrogates_refused);
	ATF_TP_ADD_TC(tp, raw_nul_refused_anywhere);
	ATF_TP_ADD_TC(tp, escaped_nul_refused);
	ATF_TP_ADD_TC(tp, duplicate_keys_refused);
	ATF_TP_ADD_TC(tp, escaped_duplicate_keys_refused);
	ATF_TP_ADD_TC(tp, distinct_or_separate_keys_accepted);
	ATF_TP_ADD_TC(tp, object_cut_where_a_name_should_start_refused);
	ATF_TP_ADD_TC(tp, member_name_refused_for_its_own_reason);
	ATF_TP_ADD_TC(tp, string_at_top_level_refused_for_its_own_reason);
	ATF_TP_ADD_TC(tp, utf8_cut_by_the_end_refused);
	ATF_TP_ADD_TC(tp, number_below_the_smallest_subnormal_keeps_its_sign);
	ATF_TP_ADD_TC(tp, exponent_of_any_length_read_with_the_digits);
	ATF_TP_ADD_TC(tp, type_at_the_length_is_invalid);
	ATF_TP_ADD_TC(tp, value_end_never_past_the_length);
	ATF_TP_ADD_TC(tp, element_next_stops_at_the_length);
	ATF_TP_ADD_TC(tp, member_next_of_an_array_gives_elements);
	ATF_TP_ADD_TC(tp, member_next_takes_only_a_colon_after_a_name);
	ATF_TP_ADD_TC(tp, iteration_ends_at_a_value_without_bytes);
	ATF_TP_ADD_TC(tp, string_equal_compares_up_to_the_length);
	ATF_TP_ADD_TC(tp, string_copy_encodes_every_utf8_boundary);
	ATF_TP_ADD_TC(tp, depth_at_limit_accepted_one_more_refused);
	ATF_TP_ADD_TC(tp, nesting_far_past_limit_refused_without_recursion);
	ATF_TP_ADD_TC(tp, size_at_limit_accepted_one_more_refused);
	ATF_TP_ADD_TC(tp, invalid_limits_refused);
	ATF_TP_ADD_TC(tp, object_members_at_limit_accepted_one_more_refused);
	ATF_TP_ADD_TC(tp, members_of_enclosing_objects_bounded_together);
	ATF_TP_ADD_TC(tp, reasons_are_fixed_strings);
	ATF_TP_ADD_TC(tp, canonical_sorts_members_and_drops_whitespace);
	ATF_TP_ADD_TC(tp, canonical_orders_names_by_utf8_bytes);
	ATF_TP_ADD_TC(tp, canonical_escapes_strings_minimally);
	ATF_TP_ADD_TC(tp, canonical_keeps_literals_as_written);
	ATF_TP_ADD_TC(tp, canonical_writes_numbers_as_shortest_round_trip);
	ATF_TP_ADD_TC(tp, canonical_number_never_longer_than_any_spelling);
	ATF_TP_ADD_TC(tp, numbers_beyond_double_range_refused);
	ATF_TP_ADD_TC(tp, numbers_at_the_ends_of_double_range_accepted);
	ATF_TP_ADD_TC(tp, numbers_read_as_the_nearest_double);
	ATF_TP_ADD_TC(tp, canonical_sorts_a_full_object);
	ATF_TP_ADD_TC(tp, canonical_refuses_invalid_input_and_small_output);
	ATF_TP_ADD_TC(tp, canonical_handles_maximum_depth);
	ATF_TP_ADD_TC(tp, readers_walk_a_validated_document);
	ATF_TP_ADD_TC(tp, every_code_has_its_own_reason);
	ATF_TP_ADD_TC(tp, bytes_past_the_length_never_read);
	ATF_TP_ADD_TC(tp, member_name_must_open_with_a_quote);
	ATF_TP_ADD_TC(tp, member_name_must_be_followed_by_a_colon);
	ATF_TP_ADD_TC(tp, members_bounded_by_the_largest_child_not_the_last);
	ATF_TP_ADD_TC(tp, readers_decode_every_utf8_length);
	ATF_TP_ADD_TC(tp, string_equal_refuses_a_longer_string);
	ATF_TP_ADD_TC(tp, type_of_every_kind_of_value);
	ATF_TP_ADD_TC(tp, scalar_ends_at_every_delimiter);
	ATF_TP_ADD_TC(tp, string_readers_refuse_what_is_no_string);
	ATF_TP_ADD_TC(tp, string_copy_fits_exactly_or_refuses);
	ATF_TP_ADD_TC(tp, canonical_sorts_members_in_any_order);
	ATF_TP_ADD_TC(tp, string_copy_writes_every_utf8_length_boundary);
	ATF_TP_ADD_TC(tp, string_copy_refuses_a_malformed_string);
	ATF_TP_ADD_TC(tp, canonical_encodes_every_utf8_length_boundary);
	ATF_TP_ADD_TC(tp, canonical_refuses_a_null_or_empty_output);
	ATF_TP_ADD_TC(tp, canonical_without_length_or_reason_writes_the_form);
	ATF_TP_ADD_TC(tp, canonical_fills_the_member_table_exactly);
	ATF_TP_ADD_TC(tp, canonical_into_a_small_buffer_writes_only_a_prefix);
	ATF_TP_ADD_TC(tp, canonical_escapes_quote_and_backslash);
	ATF_TP_ADD_TC(tp, canonical_takes_either_container_at_the_depth_limit);
	return atf_no_error();
}
