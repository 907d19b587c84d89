/*
 * Tests of the tool list the bridge keeps for an MCP agent (bridge/
 * tlist.c): every check of a gateway's IMSG_GW_TOOL and IMSG_GW_TOOLS_END
 * decided by its own case, one defect per message and the rest valid,
 * each beside the same message without the defect taken; when a new list
 * counts as changed; the names a session ever listed; the tools/list
 * line, to the byte and at its bound.  The lists are allocated: under
 * ASan a list replaced and not freed is a leak (the one in force stays
 * reachable from the static list).
 */

#include <sys/types.h>

#include <atf-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmcp.h"
#include "config.h"
#include "front.h"
#include "tlist.h"

#define SCHEMA		"{\"type\":\"object\"}"
#define OTHER_SCHEMA	"{\"type\":\"object\",\"required\":[]}"

static struct tlist	 tl;

/* One message as the gateway composes it: header, description, schema. */
static union {
	struct gw_tool	 h;
	char		 b[sizeof(struct gw_tool) + CONF_DESC_BYTES + 1 +
			    GW_TOOL_SCHEMA_BYTES + 1];
} m;

/* A valid IMSG_GW_TOOL in m; its length. */
static size_t
tool(uint32_t serial, uint32_t index, const char *name, const char *desc,
    const char *schema)
{
	size_t	 dlen = desc != NULL ? strlen(desc) : 0;
	size_t	 slen = strlen(schema);

	ATF_REQUIRE(dlen <= CONF_DESC_BYTES && slen <= GW_TOOL_SCHEMA_BYTES);
	memset(&m.h, 0, sizeof(m.h));
	m.h.gt_serial = serial;
	m.h.gt_index = index;
	ATF_REQUIRE(strlcpy(m.h.gt_name, name, sizeof(m.h.gt_name)) <
	    sizeof(m.h.gt_name));
	m.h.gt_desclen = dlen;
	m.h.gt_schemalen = slen;
	memcpy(m.b + sizeof(m.h), desc != NULL ? desc : "", dlen);
	memcpy(m.b + sizeof(m.h) + dlen, schema, slen);
	return (sizeof(m.h) + dlen + slen);
}

static void
tool_ok(uint32_t serial, uint32_t index, const char *name, const char *desc,
    const char *schema)
{
	size_t	 len = tool(serial, index, name, desc, schema);

	ATF_REQUIRE_MSG(tlist_tool(&tl, m.b, len) == 0, "tool %s (serial %u, "
	    "index %u) refused", name, serial, index);
}

/* The message in m refused, and nothing of the list received changed. */
static void
tool_refused(size_t len, const char *what)
{
	size_t		 ntools = tl.next.ntools;
	uint32_t	 serial = tl.next.serial;

	ATF_CHECK_MSG(tlist_tool(&tl, m.b, len) == -1, "%s: taken", what);
	ATF_CHECK_EQ(tl.next.ntools, ntools);
	ATF_CHECK_EQ(tl.next.serial, serial);
}

static int
end(uint32_t serial, uint32_t count, int *changed)
{
	struct gw_tools_end	 ge;

	memset(&ge, 0, sizeof(ge));
	ge.ge_serial = serial;
	ge.ge_count = count;
	*changed = -1;
	return (tlist_end(&tl, &ge, sizeof(ge), changed));
}

static void
end_ok(uint32_t serial, uint32_t count, int want_changed)
{
	int	 changed;

	ATF_REQUIRE_MSG(end(serial, count, &changed) == 0, "end of list %u "
	    "(%u tools) refused", serial, count);
	ATF_CHECK_MSG(changed == want_changed, "list %u: changed %d, want %d",
	    serial, changed, want_changed);
	ATF_CHECK_EQ(tl.cur.serial, serial);
	ATF_CHECK_EQ(tl.cur.ntools, count);
}

/* An END refused, and the list in force left as it was. */
static void
end_refused(uint32_t serial, uint32_t count, const char *what)
{
	size_t		 ntools = tl.cur.ntools;
	uint32_t	 cserial = tl.cur.serial;
	int		 changed;

	ATF_CHECK_MSG(end(serial, count, &changed) == -1, "%s: taken", what);
	ATF_CHECK_EQ(tl.cur.ntools, ntools);
	ATF_CHECK_EQ(tl.cur.serial, cserial);
}

/* A whole list of one tool, ended; whether it counted as changed. */
static int
list1(uint32_t serial, const char *name, const char *desc,
    const char *schema)
{
	int	 changed;

	tool_ok(serial, 0, name, desc, schema);
	ATF_REQUIRE(end(serial, 1, &changed) == 0);
	return (changed);
}

/* A list of the two tools read and buy, ended. */
static int
list2(uint32_t serial)
{
	int	 changed;

	tool_ok(serial, 0, "read", "Reads the bulletin", SCHEMA);
	tool_ok(serial, 1, "buy", NULL, SCHEMA);
	ATF_REQUIRE(end(serial, 2, &changed) == 0);
	return (changed);
}

/* A schema of exactly len bytes: {"s":"xxx..."}. */
static char *
sized_schema(size_t len)
{
	char	*s;

	ATF_REQUIRE(len >= 9 && (s = malloc(len + 1)) != NULL);
	memcpy(s, "{\"s\":\"", 6);
	memset(s + 6, 'x', len - 8);
	memcpy(s + len - 2, "\"}", 3);
	return (s);
}

ATF_TC_WITHOUT_HEAD(tool_shorter_than_its_header_refused);
ATF_TC_BODY(tool_shorter_than_its_header_refused, tc)
{
	char	*p;

	/* Exactly the bytes given: under ASan a read past them is caught. */
	tool(1, 0, "read", NULL, SCHEMA);
	ATF_REQUIRE((p = malloc(sizeof(m.h) - 1)) != NULL);
	memcpy(p, m.b, sizeof(m.h) - 1);
	ATF_CHECK_EQ(tlist_tool(&tl, p, sizeof(m.h) - 1), -1);
	ATF_CHECK_EQ(tl.next.ntools, 0);
	free(p);
	ATF_CHECK_EQ(tlist_tool(&tl, m.b, tool(1, 0, "read", NULL, SCHEMA)),
	    0);
}

ATF_TC_WITHOUT_HEAD(tool_name_without_nul_refused);
ATF_TC_BODY(tool_name_without_nul_refused, tc)
{
	size_t	 len = tool(1, 0, "read", NULL, SCHEMA);

	memset(m.h.gt_name, 'n', sizeof(m.h.gt_name));
	tool_refused(len, "name without NUL");
	/* Its last byte a NUL: the longest name, taken. */
	m.h.gt_name[sizeof(m.h.gt_name) - 1] = '\0';
	ATF_REQUIRE(tlist_tool(&tl, m.b, len) == 0);
	end_ok(1, 1, 0);
	ATF_CHECK_EQ(strlen(tl.cur.tools[0].name), SESSION_OP_BYTES - 1);
	ATF_CHECK(tlist_listed(&tl, tl.cur.tools[0].name));
}

ATF_TC_WITHOUT_HEAD(tool_name_not_an_operation_name_refused);
ATF_TC_BODY(tool_name_not_an_operation_name_refused, tc)
{
	size_t	 len;

	len = tool(1, 0, "read bulletin", NULL, SCHEMA);
	tool_refused(len, "name with a space");
	len = tool(1, 0, "read/bulletin", NULL, SCHEMA);
	tool_refused(len, "name with a slash");
	len = tool(1, 0, "", NULL, SCHEMA);
	tool_refused(len, "empty name");
	tool_ok(1, 0, "read_bulletin", NULL, SCHEMA);
}

/*
 * The bridge takes up to CONF_DESC_BYTES, as the gateway sends (the
 * parser's own bound, CONF_DESC_BYTES - 1, is tighter).
 */
ATF_TC_WITHOUT_HEAD(tool_description_at_bound_taken_one_more_refused);
ATF_TC_BODY(tool_description_at_bound_taken_one_more_refused, tc)
{
	char	 desc[CONF_DESC_BYTES + 2];
	size_t	 len;

	memset(desc, 'd', CONF_DESC_BYTES + 1);
	desc[CONF_DESC_BYTES + 1] = '\0';
	/* tool() holds at most the bound: one more byte by hand. */
	len = tool(1, 0, "read", NULL, SCHEMA);
	m.h.gt_desclen = CONF_DESC_BYTES + 1;
	memcpy(m.b + sizeof(m.h), desc, CONF_DESC_BYTES + 1);
	memcpy(m.b + sizeof(m.h) + CONF_DESC_BYTES + 1, SCHEMA,
	    strlen(SCHEMA));
	len += CONF_DESC_BYTES + 1;
	tool_refused(len, "description of CONF_DESC_BYTES + 1");
	desc[CONF_DESC_BYTES] = '\0';
	tool_ok(1, 0, "read", desc, SCHEMA);
	end_ok(1, 1, 0);
	ATF_CHECK_EQ(strlen(tl.cur.tools[0].desc), CONF_DESC_BYTES);
}

ATF_TC_WITHOUT_HEAD(tool_empty_schema_refused);
ATF_TC_BODY(tool_empty_schema_refused, tc)
{
	size_t	 len;

	len = tool(1, 0, "read", NULL, "");
	tool_refused(len, "no schema");
	len = tool(1, 0, "read", "Reads", "");
	tool_refused(len, "a description and no schema");
	tool_ok(1, 0, "read", "Reads", "{}");
}

ATF_TC_WITHOUT_HEAD(tool_schema_at_bound_taken_one_more_refused);
ATF_TC_BODY(tool_schema_at_bound_taken_one_more_refused, tc)
{
	char	*s;
	size_t	 len;

	/* tool() holds at most the bound: one more byte by hand. */
	s = sized_schema(GW_TOOL_SCHEMA_BYTES + 1);
	(void)tool(1, 0, "read", NULL, "{}");
	m.h.gt_schemalen = GW_TOOL_SCHEMA_BYTES + 1;
	memcpy(m.b + sizeof(m.h), s, GW_TOOL_SCHEMA_BYTES + 1);
	len = sizeof(m.h) + GW_TOOL_SCHEMA_BYTES + 1;
	tool_refused(len, "schema of GW_TOOL_SCHEMA_BYTES + 1");
	free(s);
	s = sized_schema(GW_TOOL_SCHEMA_BYTES);
	tool_ok(1, 0, "read", NULL, s);
	end_ok(1, 1, 0);
	ATF_CHECK_EQ(tl.cur.tools[0].schemalen, GW_TOOL_SCHEMA_BYTES);
	ATF_CHECK_STREQ(tl.cur.tools[0].schema, s);
	free(s);
}

ATF_TC_WITHOUT_HEAD(tool_length_not_its_parts_refused);
ATF_TC_BODY(tool_length_not_its_parts_refused, tc)
{
	size_t	 len = tool(1, 0, "read", "Reads", SCHEMA);

	tool_refused(len + 1, "a byte more than its parts");
	tool_refused(len - 1, "a byte less than its parts");
	m.h.gt_desclen++;
	tool_refused(len, "description length one more");
	m.h.gt_desclen -= 2;
	tool_refused(len, "description length one less");
	m.h.gt_desclen++;
	m.h.gt_schemalen--;
	tool_refused(len, "schema length one less");
	m.h.gt_schemalen++;
	ATF_CHECK_EQ(tlist_tool(&tl, m.b, len), 0);
}

/* A NUL anywhere after the header: first, inside or last of each part. */
ATF_TC_WITHOUT_HEAD(tool_with_nul_refused);
ATF_TC_BODY(tool_with_nul_refused, tc)
{
	static const size_t	 at[] = {
		0, 2, 4, 5, 9, 5 + sizeof(SCHEMA) - 2
	};
	size_t			 len, i;

	for (i = 0; i < nitems(at); i++) {
		len = tool(1, 0, "read", "Reads", SCHEMA);
		m.b[sizeof(m.h) + at[i]] = '\0';
		tool_refused(len, "a NUL in the body");
	}
	len = tool(1, 0, "read", NULL, SCHEMA);
	m.b[len - 1] = '\0';
	tool_refused(len, "a NUL last in the schema, no description");
	tool_ok(1, 0, "read", "Reads", SCHEMA);
}

ATF_TC_WITHOUT_HEAD(tool_beginning_a_list_not_newer_refused);
ATF_TC_BODY(tool_beginning_a_list_not_newer_refused, tc)
{
	size_t	 len;

	ATF_REQUIRE(list2(5) == 0);
	len = tool(5, 0, "read", NULL, SCHEMA);
	tool_refused(len, "first tool with the serial in force");
	len = tool(4, 0, "read", NULL, SCHEMA);
	tool_refused(len, "first tool with an older serial");
	len = tool(0, 0, "read", NULL, SCHEMA);
	tool_refused(len, "first tool with serial 0");
	tool_ok(6, 0, "read", NULL, SCHEMA);
	/* Nor with the serial of the list being received. */
	len = tool(6, 0, "buy", NULL, SCHEMA);
	tool_refused(len, "first tool again, same serial");
	/* A newer first tool drops the list being received. */
	tool_ok(7, 0, "buy", NULL, SCHEMA);
	ATF_CHECK_EQ(tl.next.ntools, 1);
	end_ok(7, 1, 1);
	ATF_CHECK_STREQ(tl.cur.tools[0].name, "buy");
}

ATF_TC_WITHOUT_HEAD(tool_out_of_order_refused);
ATF_TC_BODY(tool_out_of_order_refused, tc)
{
	size_t	 len;

	len = tool(0, 1, "read", NULL, SCHEMA);
	tool_refused(len, "index 1 with no list begun");
	tool_ok(1, 0, "read", NULL, SCHEMA);
	len = tool(1, 2, "buy", NULL, SCHEMA);
	tool_refused(len, "index 2 after 0");
	tool_ok(1, 1, "buy", NULL, SCHEMA);
	len = tool(1, 1, "note", NULL, SCHEMA);
	tool_refused(len, "index 1 again");
	tool_ok(1, 2, "note", NULL, SCHEMA);
	end_ok(1, 3, 0);
}

ATF_TC_WITHOUT_HEAD(tool_serial_changed_within_a_list_refused);
ATF_TC_BODY(tool_serial_changed_within_a_list_refused, tc)
{
	size_t	 len;

	tool_ok(3, 0, "read", NULL, SCHEMA);
	len = tool(4, 1, "buy", NULL, SCHEMA);
	tool_refused(len, "second tool of a newer serial");
	len = tool(2, 1, "buy", NULL, SCHEMA);
	tool_refused(len, "second tool of an older serial");
	tool_ok(3, 1, "buy", NULL, SCHEMA);
	end_ok(3, 2, 0);
}

ATF_TC_WITHOUT_HEAD(list_of_operations_max_taken_one_more_refused);
ATF_TC_BODY(list_of_operations_max_taken_one_more_refused, tc)
{
	char		 name[16];
	size_t		 len;
	uint32_t	 i;

	for (i = 0; i < CONF_OPERATIONS_MAX; i++) {
		snprintf(name, sizeof(name), "op%u", i);
		tool_ok(1, i, name, NULL, SCHEMA);
	}
	len = tool(1, CONF_OPERATIONS_MAX, "one_more", NULL, SCHEMA);
	tool_refused(len, "tool CONF_OPERATIONS_MAX + 1");
	end_ok(1, CONF_OPERATIONS_MAX, 0);
	ATF_CHECK(!tlist_listed(&tl, "one_more"));
}

ATF_TC_WITHOUT_HEAD(end_of_wrong_size_refused);
ATF_TC_BODY(end_of_wrong_size_refused, tc)
{
	struct {
		struct gw_tools_end	 ge;
		char			 more;
	}				 e;
	char				*p;
	int				 changed;

	tool_ok(1, 0, "read", NULL, SCHEMA);
	memset(&e, 0, sizeof(e));
	e.ge.ge_serial = 1;
	e.ge.ge_count = 1;
	ATF_CHECK_EQ(tlist_end(&tl, &e, sizeof(e.ge) + 1, &changed), -1);
	ATF_REQUIRE((p = malloc(sizeof(e.ge) - 1)) != NULL);
	memcpy(p, &e.ge, sizeof(e.ge) - 1);
	ATF_CHECK_EQ(tlist_end(&tl, p, sizeof(e.ge) - 1, &changed), -1);
	free(p);
	ATF_CHECK_EQ(tl.cur.serial, 0);
	ATF_CHECK_EQ(tlist_end(&tl, &e, sizeof(e.ge), &changed), 0);
	ATF_CHECK_EQ(tl.cur.serial, 1);
}

ATF_TC_WITHOUT_HEAD(end_with_wrong_count_refused);
ATF_TC_BODY(end_with_wrong_count_refused, tc)
{
	tool_ok(1, 0, "read", NULL, SCHEMA);
	tool_ok(1, 1, "buy", NULL, SCHEMA);
	end_refused(1, 3, "count one more");
	end_refused(1, 1, "count one less");
	end_refused(1, 0, "count 0 after tools of its serial");
	end_ok(1, 2, 0);
}

ATF_TC_WITHOUT_HEAD(end_with_wrong_serial_refused);
ATF_TC_BODY(end_with_wrong_serial_refused, tc)
{
	/* Both above the list in force, so only the mismatch refuses. */
	ATF_REQUIRE(list2(1) == 0);
	tool_ok(3, 0, "read", NULL, SCHEMA);
	end_refused(4, 1, "serial one more");
	end_refused(2, 1, "serial one less");
	end_ok(3, 1, 1);
}

/* An END with the serial in force again would empty the list. */
ATF_TC_WITHOUT_HEAD(end_again_refused);
ATF_TC_BODY(end_again_refused, tc)
{
	end_refused(0, 0, "an empty list of serial 0");
	ATF_REQUIRE(list2(1) == 0);
	end_refused(1, 0, "the list in force ended again, empty");
	end_refused(1, 2, "the list in force ended again");
	ATF_CHECK_EQ(tl.cur.ntools, 2);
	end_ok(2, 0, 1);
	end_refused(2, 0, "the empty list ended again");
}

ATF_TC_WITHOUT_HEAD(empty_list_after_tools_taken);
ATF_TC_BODY(empty_list_after_tools_taken, tc)
{
	char	 out[256];
	size_t	 n;

	ATF_REQUIRE(list2(1) == 0);
	/* Begun and not ended: an empty newer list drops it. */
	tool_ok(2, 0, "note", NULL, SCHEMA);
	end_ok(3, 0, 1);
	ATF_CHECK_EQ(tl.next.ntools, 0);
	ATF_CHECK(tlist_listed(&tl, "read"));
	ATF_CHECK(tlist_listed(&tl, "buy"));
	ATF_CHECK(!tlist_listed(&tl, "note"));
	memset(out, 0, sizeof(out));
	ATF_REQUIRE(tlist_encode(&tl, &(struct front_id){ 1, "7", 1, "7" },
	    out, sizeof(out), &n, NULL) == 0);
	ATF_CHECK_STREQ(out, "{\"id\":7,\"jsonrpc\":\"2.0\",\"result\":"
	    "{\"tools\":[]}}\n");
	/* And the first list may be empty. */
	memset(&tl, 0, sizeof(tl));
	end_ok(1, 0, 0);
}

ATF_TC_WITHOUT_HEAD(first_list_not_changed);
ATF_TC_BODY(first_list_not_changed, tc)
{
	ATF_CHECK_EQ(list2(1), 0);
}

ATF_TC_WITHOUT_HEAD(same_list_again_not_changed);
ATF_TC_BODY(same_list_again_not_changed, tc)
{
	ATF_REQUIRE(list2(1) == 0);
	ATF_CHECK_EQ(list2(2), 0);
	/* Serials need not follow each other. */
	ATF_CHECK_EQ(list2(9), 0);
}

ATF_TC_WITHOUT_HEAD(list_with_a_field_changed_changed);
ATF_TC_BODY(list_with_a_field_changed_changed, tc)
{
	ATF_REQUIRE(list1(1, "read", "Reads", SCHEMA) == 0);
	ATF_CHECK_EQ(list1(2, "read", "Reads!", SCHEMA), 1);
	ATF_CHECK_EQ(list1(3, "read", NULL, SCHEMA), 1);
	ATF_CHECK_EQ(list1(4, "read", "Reads", SCHEMA), 1);
	ATF_CHECK_EQ(list1(5, "read", "Reads", OTHER_SCHEMA), 1);
	ATF_CHECK_EQ(list1(6, "read2", "Reads", OTHER_SCHEMA), 1);
	ATF_CHECK_EQ(list1(7, "read2", "Reads", OTHER_SCHEMA), 0);
}

ATF_TC_WITHOUT_HEAD(list_with_tools_reordered_added_or_gone_changed);
ATF_TC_BODY(list_with_tools_reordered_added_or_gone_changed, tc)
{
	int	 changed;

	ATF_REQUIRE(list2(1) == 0);
	tool_ok(2, 0, "buy", NULL, SCHEMA);
	tool_ok(2, 1, "read", "Reads the bulletin", SCHEMA);
	end_ok(2, 2, 1);
	ATF_REQUIRE(list2(3) == 1);
	ATF_CHECK_EQ(list1(4, "read", "Reads the bulletin", SCHEMA), 1);
	ATF_REQUIRE(end(5, 0, &changed) == 0);
	ATF_CHECK_EQ(changed, 1);
	ATF_CHECK_EQ(list2(6), 1);
}

/* The same bytes with a field's end moved: a different list. */
ATF_TC_WITHOUT_HEAD(list_with_bytes_moved_between_fields_changed);
ATF_TC_BODY(list_with_bytes_moved_between_fields_changed, tc)
{
	ATF_REQUIRE(list1(1, "ab", "c", SCHEMA) == 0);
	ATF_CHECK_EQ(list1(2, "a", "bc", SCHEMA), 1);
	ATF_CHECK_EQ(list1(3, "a", "bc{", "}"), 1);
	ATF_CHECK_EQ(list1(4, "a", "bc{", "}"), 0);
}

ATF_TC_WITHOUT_HEAD(names_listed_kept_across_lists);
ATF_TC_BODY(names_listed_kept_across_lists, tc)
{
	ATF_CHECK(!tlist_listed(&tl, "read"));
	/* Received, not ended: not listed yet. */
	tool_ok(1, 0, "read", NULL, SCHEMA);
	ATF_CHECK(!tlist_listed(&tl, "read"));
	end_ok(1, 1, 0);
	ATF_CHECK(tlist_listed(&tl, "read"));
	ATF_REQUIRE(list1(2, "buy", NULL, SCHEMA) == 1);
	ATF_CHECK(tlist_listed(&tl, "read"));
	ATF_CHECK(tlist_listed(&tl, "buy"));
	ATF_REQUIRE(list1(3, "read", NULL, SCHEMA) == 1);
	ATF_CHECK_EQ(tl.nlisted, 2);
	/* A name, not a prefix or an extension of one. */
	ATF_CHECK(!tlist_listed(&tl, "rea"));
	ATF_CHECK(!tlist_listed(&tl, "reads"));
	ATF_CHECK(!tlist_listed(&tl, ""));
}

/* The gateway has CONF_OPERATIONS_MAX names to list, never more. */
ATF_TC_WITHOUT_HEAD(names_over_operations_max_refused);
ATF_TC_BODY(names_over_operations_max_refused, tc)
{
	char		 name[16];
	uint32_t	 i;

	for (i = 0; i < CONF_OPERATIONS_MAX; i++) {
		snprintf(name, sizeof(name), "op%u", i);
		tool_ok(1, i, name, NULL, SCHEMA);
	}
	end_ok(1, CONF_OPERATIONS_MAX, 0);
	ATF_CHECK_EQ(tl.nlisted, CONF_OPERATIONS_MAX);
	/* Names listed before are no new ones. */
	ATF_REQUIRE(list1(2, "op7", NULL, SCHEMA) == 1);
	tool_ok(3, 0, "one_more", NULL, SCHEMA);
	end_refused(3, 1, "a name past CONF_OPERATIONS_MAX");
	ATF_CHECK(!tlist_listed(&tl, "one_more"));
}

ATF_TC_WITHOUT_HEAD(encode_list_exact_and_bound);
ATF_TC_BODY(encode_list_exact_and_bound, tc)
{
	static const char	 want[] = "{\"id\":\"l\",\"jsonrpc\":\"2.0\","
	    "\"result\":{\"tools\":[{\"description\":\"Reads \\\"the\\\" "
	    "bulletin\",\"inputSchema\":{\"properties\":{},\"type\":"
	    "\"object\"},\"name\":\"read\"},{\"inputSchema\":{\"type\":"
	    "\"object\"},\"name\":\"buy\"}]}}\n";
	struct front_id		 id = { 3, "\"l\"", 3, "\"l\"" };
	const char		*why = NULL;
	char			*out;
	size_t			 n;

	tool_ok(1, 0, "read", "Reads \"the\" bulletin",
	    "{\"type\":\"object\",\"properties\":{}}");
	tool_ok(1, 1, "buy", NULL, SCHEMA);
	end_ok(1, 2, 0);
	/* Exactly the room: the line and its NUL. */
	ATF_REQUIRE((out = malloc(sizeof(want))) != NULL);
	ATF_REQUIRE(tlist_encode(&tl, &id, out, sizeof(want), &n, &why) ==
	    0);
	ATF_CHECK_STREQ(out, want);
	ATF_CHECK_EQ(n, sizeof(want) - 1);
	free(out);
	ATF_REQUIRE((out = malloc(sizeof(want) - 1)) != NULL);
	ATF_CHECK_EQ(tlist_encode(&tl, &id, out, sizeof(want) - 1, &n, &why),
	    -1);
	ATF_CHECK_STREQ(why, "output too large");
	free(out);
}

/* Lists replaced, dropped half received, or refused: nothing leaks. */
ATF_TC_WITHOUT_HEAD(lists_replaced_freed);
ATF_TC_BODY(lists_replaced_freed, tc)
{
	size_t		 len;
	uint32_t	 s;

	for (s = 1; s < 64; s += 3) {
		ATF_REQUIRE(list2(s) == 0);
		tool_ok(s + 1, 0, "read", "Reads", SCHEMA);
		tool_ok(s + 2, 0, "read", "Reads", SCHEMA);
		len = tool(s + 2, 1, "buy", "Buys", SCHEMA);
		m.h.gt_schemalen = 0;
		tool_refused(len, "empty schema");
	}
	ATF_CHECK_EQ(tl.nlisted, 2);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, tool_shorter_than_its_header_refused);
	ATF_TP_ADD_TC(tp, tool_name_without_nul_refused);
	ATF_TP_ADD_TC(tp, tool_name_not_an_operation_name_refused);
	ATF_TP_ADD_TC(tp, tool_description_at_bound_taken_one_more_refused);
	ATF_TP_ADD_TC(tp, tool_empty_schema_refused);
	ATF_TP_ADD_TC(tp, tool_schema_at_bound_taken_one_more_refused);
	ATF_TP_ADD_TC(tp, tool_length_not_its_parts_refused);
	ATF_TP_ADD_TC(tp, tool_with_nul_refused);
	ATF_TP_ADD_TC(tp, tool_beginning_a_list_not_newer_refused);
	ATF_TP_ADD_TC(tp, tool_out_of_order_refused);
	ATF_TP_ADD_TC(tp, tool_serial_changed_within_a_list_refused);
	ATF_TP_ADD_TC(tp, list_of_operations_max_taken_one_more_refused);
	ATF_TP_ADD_TC(tp, end_of_wrong_size_refused);
	ATF_TP_ADD_TC(tp, end_with_wrong_count_refused);
	ATF_TP_ADD_TC(tp, end_with_wrong_serial_refused);
	ATF_TP_ADD_TC(tp, end_again_refused);
	ATF_TP_ADD_TC(tp, empty_list_after_tools_taken);
	ATF_TP_ADD_TC(tp, first_list_not_changed);
	ATF_TP_ADD_TC(tp, same_list_again_not_changed);
	ATF_TP_ADD_TC(tp, list_with_a_field_changed_changed);
	ATF_TP_ADD_TC(tp, list_with_tools_reordered_added_or_gone_changed);
	ATF_TP_ADD_TC(tp, list_with_bytes_moved_between_fields_changed);
	ATF_TP_ADD_TC(tp, names_listed_kept_across_lists);
	ATF_TP_ADD_TC(tp, names_over_operations_max_refused);
	ATF_TP_ADD_TC(tp, encode_list_exact_and_bound);
	ATF_TP_ADD_TC(tp, lists_replaced_freed);
	return atf_no_error();
}
