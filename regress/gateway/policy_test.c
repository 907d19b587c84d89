/*
 * The gateway's decision core (gateway/policy.c) against configurations
 * written to a file and read by the real parser: rules, predicates,
 * budgets, labels and ceilings, PolicyGate updates, and the refusals of
 * inconsistent input.  Each expectation names the reason and the rule
 * number it must come with, so a decision right for the wrong reason
 * fails too.
 */

#include <sys/types.h>

#include <atf-c.h>
#include <grp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-fixture.h"
#include "config.h"
#include "json.h"
#include "policy.h"

#define CONF_PATH	"policy.conf"

/*
 * Labels public < internal < confidential (the default).  Tools, as
 * (ceiling, result label): read (confidential, confidential), search
 * (confidential, internal), note (internal, internal), mail (public,
 * public).  Operation "limited" calls search with a budget of 2.
 */
static const char procs[] = CONF_USERS CONF_AGENT("")
    "server \"docs\" {\n"
    "\tcommand \"/usr/local/bin/mcp-docs\"\n"
    "}\n";
static const char header[] =
    "tool \"read\" {\n"
    "\tmcp server \"docs\" tool \"read\"\n"
    "\tceiling confidential\n"
    "\tlabel confidential\n"
    "}\n"
    "tool \"search\" {\n"
    "\tmcp server \"docs\" tool \"search\"\n"
    "\tceiling confidential\n"
    "\tlabel internal\n"
    "}\n"
    "tool \"note\" {\n"
    "\tmcp server \"docs\" tool \"note\"\n"
    "\tceiling internal\n"
    "\tlabel internal\n"
    "}\n"
    "tool \"mail\" {\n"
    "\tmcp server \"docs\" tool \"mail\"\n"
    "\tceiling %s\n"
    "\tlabel public\n"
    "}\n"
    "operation \"read\" tool \"read\"\n"
    "operation \"search\" tool \"search\"\n"
    "operation \"note\" tool \"note\"\n"
    "operation \"mail\" tool \"mail\"\n"
    "operation \"limited\" tool \"search\" budget 2\n";

enum { PUBLIC, INTERNAL, CONFIDENTIAL };
#define MATCH		1
#define NOMATCH		0
#define ERROR		(-1)

#define EXPECT(c, s, op, args, allowed, reason, rule)			\
	expect(__LINE__, (c), (s), (op), (args), (allowed), (reason), (rule))
#define ALLOW(c, s, op, args, rule)					\
	EXPECT(c, s, op, args, 1, GW_R_ALLOWED, rule)
#define DENY(c, s, op, args, reason, rule)				\
	EXPECT(c, s, op, args, 0, reason, rule)
#define PRED(pred, args, want)	pred_case(__LINE__, (pred), (args), (want))

static struct cmcp_conf *
conf_load_ceiling(const char *mail_ceiling, const char *rules)
{
	struct cmcp_conf	*c;
	FILE			*f;

	ATF_REQUIRE((f = fopen(CONF_PATH, "w")) != NULL);
	ATF_REQUIRE(fputs(procs, f) >= 0);
	ATF_REQUIRE(fprintf(f, header, mail_ceiling) > 0);
	ATF_REQUIRE(fputs(rules, f) >= 0);
	ATF_REQUIRE(fclose(f) == 0);
	c = parse_config(CONF_PATH);
	ATF_REQUIRE_MSG(c != NULL, "rules do not parse: %s", rules);
	return c;
}

static struct cmcp_conf *
conf_load(const char *rules)
{
	return conf_load_ceiling("public", rules);
}

/* A configuration of head, then text. */
static struct cmcp_conf *
conf_load_after(const char *head, const char *text)
{
	struct cmcp_conf	*c;
	FILE			*f;

	ATF_REQUIRE((f = fopen(CONF_PATH, "w")) != NULL);
	ATF_REQUIRE(fputs(head, f) >= 0);
	ATF_REQUIRE(fputs(text, f) >= 0);
	ATF_REQUIRE(fclose(f) == 0);
	c = parse_config(CONF_PATH);
	ATF_REQUIRE_MSG(c != NULL, "does not parse: %.200s", text);
	return c;
}

/* A configuration of the users, agent and server above and text. */
static struct cmcp_conf *
conf_load_text(const char *text)
{
	return conf_load_after(procs, text);
}

/* A configuration and a fresh session on it. */
static struct cmcp_conf *
setup(struct gw_session *s, const char *rules)
{
	struct cmcp_conf	*c;

	c = conf_load(rules);
	ATF_REQUIRE(gw_session_init(c, s) == 0);
	return c;
}

static size_t
op_index(const struct cmcp_conf *c, const char *name)
{
	const struct conf_operation	*op;
	size_t				 i = 0;

	TAILQ_FOREACH(op, &c->c_operations, entry) {
		if (strcmp(op->name, name) == 0)
			return i;
		i++;
	}
	atf_tc_fail("no operation %s", name);
	return 0;
}

static void
decide(const struct cmcp_conf *c, struct gw_session *s, const char *op,
    const char *args, struct gw_decision *d)
{
	gw_decide(c, s, op, args, args == NULL ? 0 : strlen(args), d);
}

static void
expect(int line, const struct cmcp_conf *c, struct gw_session *s,
    const char *op, const char *args, int allowed, enum gw_reason reason,
    unsigned int rule)
{
	struct gw_decision	 d, again;

	decide(c, s, op, args, &d);
	if (d.allowed != allowed || d.reason != reason || d.rule != rule ||
	    d.violation != (reason == GW_R_UNKNOWN_OP))
		atf_tc_fail_check(__FILE__, (size_t)line,
		    "%s %s: got allowed %d %s rule %u violation %d, "
		    "want allowed %d %s rule %u", op ? op : "(null)",
		    args ? args : "(null)", d.allowed,
		    gw_reason_str(d.reason), d.rule, d.violation, allowed,
		    gw_reason_str(reason), rule);
	/* Deciding changes nothing. */
	decide(c, s, op, args, &again);
	if (memcmp(&d, &again, sizeof(d)) != 0)
		atf_tc_fail_check(__FILE__, (size_t)line,
		    "%s: a second decision differs", op ? op : "(null)");
}

/*
 * One predicate on its own: "pass operation read <pred>" decides the
 * request to allowed (MATCH), default_block (NOMATCH) or rule_error.
 */
static struct cmcp_conf *
pred_setup(struct gw_session *s, const char *pred)
{
	char	 rules[512];

	snprintf(rules, sizeof(rules), "pass operation \"read\" %s\n", pred);
	return setup(s, rules);
}

/* Whether the one rule of pred_setup() matched, did not, or erred. */
static void
pred_check(int line, const struct cmcp_conf *c, struct gw_session *s,
    const char *pred, const char *args, int want)
{
	struct gw_decision	 d;
	int			 got;

	decide(c, s, "read", args, &d);
	if (d.allowed && d.reason == GW_R_ALLOWED && d.rule == 1)
		got = MATCH;
	else if (!d.allowed && d.reason == GW_R_DEFAULT_BLOCK && d.rule == 0)
		got = NOMATCH;
	else if (!d.allowed && d.reason == GW_R_RULE_ERROR && d.rule == 1)
		got = ERROR;
	else
		got = 99;
	if (got != want)
		atf_tc_fail_check(__FILE__, (size_t)line,
		    "%s with %s: got %s rule %u, want %s", pred, args,
		    gw_reason_str(d.reason), d.rule, want == MATCH ? "match" :
		    want == NOMATCH ? "no match" : "rule_error");
}

static void
pred_case(int line, const char *pred, const char *args, int want)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = pred_setup(&s, pred);
	pred_check(line, c, &s, pred, args, want);
	free_config(c);
}

static void
commit(struct gw_session *s, const struct cmcp_conf *c, const char *op)
{
	struct gw_decision	 d;

	decide(c, s, op, "{}", &d);
	ATF_REQUIRE_MSG(d.allowed, "%s not allowed: %s", op,
	    gw_reason_str(d.reason));
	ATF_REQUIRE(gw_commit_allowed(s, &d) == 0);
}

/* Rules. */

ATF_TC_WITHOUT_HEAD(default_block_without_rules);
ATF_TC_BODY(default_block_without_rules, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "");
	DENY(c, &s, "read", "{}", GW_R_DEFAULT_BLOCK, 0);
	DENY(c, &s, "mail", "{}", GW_R_DEFAULT_BLOCK, 0);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(default_block_when_no_rule_matches);
ATF_TC_BODY(default_block_when_no_rule_matches, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass operation \"mail\"\n"
	    "pass operation \"read\" arg \"path\" present\n");
	ALLOW(c, &s, "mail", "{}", 1);
	DENY(c, &s, "read", "{}", GW_R_DEFAULT_BLOCK, 0);
	DENY(c, &s, "search", "{\"path\":\"/\"}", GW_R_DEFAULT_BLOCK, 0);
	ALLOW(c, &s, "read", "{\"path\":\"/\"}", 2);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(pass_and_all_match_every_operation);
ATF_TC_BODY(pass_and_all_match_every_operation, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass\n");
	ALLOW(c, &s, "read", "{}", 1);
	ALLOW(c, &s, "note", "{\"x\":1}", 1);
	free_config(c);

	c = setup(&s, "block all\npass all\n");
	ALLOW(c, &s, "search", "{}", 2);
	ALLOW(c, &s, "mail", "{}", 2);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(block_rule_blocks);
ATF_TC_BODY(block_rule_blocks, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\nblock operation \"mail\"\n");
	DENY(c, &s, "mail", "{}", GW_R_RULE_BLOCK, 2);
	ALLOW(c, &s, "read", "{}", 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(last_match_wins);
ATF_TC_BODY(last_match_wins, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "block all\n"
	    "pass operation \"read\"\n"
	    "block operation \"read\" arg \"raw\" present\n"
	    "pass operation \"read\" arg \"raw\" = 0\n");
	DENY(c, &s, "mail", "{}", GW_R_RULE_BLOCK, 1);
	ALLOW(c, &s, "read", "{}", 2);
	DENY(c, &s, "read", "{\"raw\":1}", GW_R_RULE_BLOCK, 3);
	ALLOW(c, &s, "read", "{\"raw\":0}", 4);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(quick_decides_at_once);
ATF_TC_BODY(quick_decides_at_once, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "block quick operation \"mail\"\n"
	    "pass quick operation \"read\"\n"
	    "pass quick operation \"mail\"\n"
	    "block all\n"
	    "pass operation \"note\"\n");
	DENY(c, &s, "mail", "{}", GW_R_RULE_BLOCK, 1);
	ALLOW(c, &s, "read", "{}", 2);
	DENY(c, &s, "search", "{}", GW_R_RULE_BLOCK, 4);
	ALLOW(c, &s, "note", "{}", 5);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(operation_list_matches_members_only);
ATF_TC_BODY(operation_list_matches_members_only, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass operation { \"read\", \"search\" }\n"
	    "block operation { \"search\" \"note\" }\n");
	ALLOW(c, &s, "read", "{}", 1);
	DENY(c, &s, "search", "{}", GW_R_RULE_BLOCK, 2);
	DENY(c, &s, "note", "{}", GW_R_RULE_BLOCK, 2);
	DENY(c, &s, "mail", "{}", GW_R_DEFAULT_BLOCK, 0);
	free_config(c);
}

/* For each operator, whether it holds for [session label][rule label]. */
ATF_TC_WITHOUT_HEAD(label_predicate_at_each_label);
ATF_TC_BODY(label_predicate_at_each_label, tc)
{
	static const struct {
		const char	*op;
		const char	*holds[3];
	} t[] = {
		{ "=",	{ "100", "010", "001" } },
		{ "!=",	{ "011", "101", "110" } },
		{ "<",	{ "011", "001", "000" } },
		{ "<=",	{ "111", "011", "001" } },
		{ ">",	{ "000", "100", "110" } },
		{ ">=",	{ "100", "110", "111" } },
	};
	static const char *const names[] =
	    { "public", "internal", "confidential" };
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;
	char			 rules[128];
	size_t			 i;
	int			 have, want, holds;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (want = PUBLIC; want <= CONFIDENTIAL; want++) {
			snprintf(rules, sizeof(rules),
			    "pass operation \"search\" label %s %s\n",
			    t[i].op, names[want]);
			c = conf_load(rules);
			for (have = PUBLIC; have <= CONFIDENTIAL; have++) {
				ATF_REQUIRE(gw_session_init(c, &s) == 0);
				ATF_REQUIRE(gw_payload_label(&s, have) == 0);
				decide(c, &s, "search", "{}", &d);
				holds = t[i].holds[have][want] == '1';
				ATF_CHECK_MSG(d.allowed == holds &&
				    d.rule == (holds ? 1U : 0U),
				    "session %s, label %s %s: allowed %d",
				    names[have], t[i].op, names[want],
				    d.allowed);
			}
			free_config(c);
		}
}

/* Argument predicates, one at a time. */

/*
 * Numbers compare as the double they read as, which is what a server
 * reads: texts between two doubles are the nearer one.  10.000000000000002
 * and 9.999999999999998 are the doubles next to 10.
 */
ATF_TC_WITHOUT_HEAD(number_equality_by_value);
ATF_TC_BODY(number_equality_by_value, tc)
{
	PRED("arg \"n\" = 10", "{\"n\":10}", MATCH);
	PRED("arg \"n\" = 10", "{\"n\":10.0}", MATCH);
	PRED("arg \"n\" = 10", "{\"n\":1e1}", MATCH);
	PRED("arg \"n\" = 10", "{\"n\":1E+1}", MATCH);
	PRED("arg \"n\" = 10", "{\"n\":100e-1}", MATCH);
	PRED("arg \"n\" = 10", "{\"n\":0.00001e6}", MATCH);
	PRED("arg \"n\" = 10", "{\"n\":10.000000000000000000000000001}",
	    MATCH);
	PRED("arg \"n\" = 10", "{\"n\":9.999999999999999999999999999}",
	    MATCH);
	PRED("arg \"n\" = 10", "{\"n\":10.000000000000002}", NOMATCH);
	PRED("arg \"n\" = 10", "{\"n\":9.999999999999998}", NOMATCH);
	PRED("arg \"n\" = 10", "{\"n\":11}", NOMATCH);
	PRED("arg \"n\" = 10", "{\"n\":-10}", NOMATCH);
	PRED("arg \"n\" = 10", "{\"n\":100}", NOMATCH);
	PRED("arg \"n\" = 10", "{\"m\":10}", NOMATCH);
	PRED("arg \"n\" = -10", "{\"n\":-10}", MATCH);
	PRED("arg \"n\" = -10", "{\"n\":10}", NOMATCH);
	PRED("arg \"n\" = 0", "{\"n\":0}", MATCH);
	PRED("arg \"n\" = 0", "{\"n\":-0}", MATCH);
	PRED("arg \"n\" = 0", "{\"n\":-0.000e-7}", MATCH);
	PRED("arg \"n\" = 0", "{\"n\":1e-400}", MATCH);
	PRED("arg \"n\" = 0", "{\"n\":5e-324}", NOMATCH);
	PRED("arg \"n\" = 1", "{\"n\":1.0000000000000000000000000000000000}",
	    MATCH);
	PRED("arg \"n\" = 1",
	    "{\"n\":1000000000000000000000000000000000e-33}", MATCH);
	PRED("arg \"n\" = 1", "{\"n\":1.0000000000000000000000000000000001}",
	    MATCH);
	PRED("arg \"n\" = 1", "{\"n\":1.0000000000000002}", NOMATCH);
	PRED("arg \"n\" != 10", "{\"n\":10}", NOMATCH);
	PRED("arg \"n\" != 10", "{\"n\":10.0}", NOMATCH);
	PRED("arg \"n\" != 10", "{\"n\":10.000000000000000000001}", NOMATCH);
	PRED("arg \"n\" != 10", "{\"n\":10.5}", MATCH);
	PRED("arg \"n\" != 10", "{\"n\":-10}", MATCH);
	/* A missing argument satisfies no comparison, not even !=. */
	PRED("arg \"n\" != 10", "{}", NOMATCH);
}

ATF_TC_WITHOUT_HEAD(number_ordering_at_boundaries);
ATF_TC_BODY(number_ordering_at_boundaries, tc)
{
	PRED("arg \"n\" < 10", "{\"n\":9}", MATCH);
	PRED("arg \"n\" < 10", "{\"n\":9.999999999999998}", MATCH);
	PRED("arg \"n\" < 10", "{\"n\":9.999999999999999999999999}", NOMATCH);
	PRED("arg \"n\" < 10", "{\"n\":10}", NOMATCH);
	PRED("arg \"n\" < 10", "{\"n\":10.0}", NOMATCH);
	PRED("arg \"n\" < 10", "{\"n\":0.1e2}", NOMATCH);
	PRED("arg \"n\" < 10", "{\"n\":11}", NOMATCH);
	PRED("arg \"n\" < 10", "{\"n\":-0}", MATCH);
	PRED("arg \"n\" < 10", "{\"n\":-1.7976931348623157e308}", MATCH);
	PRED("arg \"n\" < 10", "{\"n\":1.7976931348623157e308}", NOMATCH);
	PRED("arg \"n\" < 10", "{\"n\":99999999999999999999999999}", NOMATCH);
	PRED("arg \"n\" < 10", "{}", NOMATCH);

	PRED("arg \"n\" <= 10", "{\"n\":10}", MATCH);
	PRED("arg \"n\" <= 10", "{\"n\":10e0}", MATCH);
	PRED("arg \"n\" <= 10", "{\"n\":10.0000000000000000000001}", MATCH);
	PRED("arg \"n\" <= 10", "{\"n\":10.000000000000002}", NOMATCH);
	PRED("arg \"n\" <= 10", "{\"n\":11}", NOMATCH);
	PRED("arg \"n\" <= 10", "{}", NOMATCH);

	PRED("arg \"n\" > 10", "{\"n\":10}", NOMATCH);
	PRED("arg \"n\" > 10", "{\"n\":1E+1}", NOMATCH);
	PRED("arg \"n\" > 10", "{\"n\":10.0000000000000000000001}", NOMATCH);
	PRED("arg \"n\" > 10", "{\"n\":10.000000000000002}", MATCH);
	PRED("arg \"n\" > 10", "{\"n\":11}", MATCH);
	PRED("arg \"n\" > 10", "{}", NOMATCH);

	PRED("arg \"n\" >= 10", "{\"n\":10}", MATCH);
	PRED("arg \"n\" >= 10", "{\"n\":9.99999999999999999999}", MATCH);
	PRED("arg \"n\" >= 10", "{\"n\":9.999999999999998}", NOMATCH);
	PRED("arg \"n\" >= 10", "{\"n\":1.7976931348623157e308}", MATCH);
	PRED("arg \"n\" >= 10", "{}", NOMATCH);

	PRED("arg \"n\" > 0", "{\"n\":0}", NOMATCH);
	PRED("arg \"n\" > 0", "{\"n\":-0}", NOMATCH);
	PRED("arg \"n\" > 0", "{\"n\":0.0e5}", NOMATCH);
	PRED("arg \"n\" > 0", "{\"n\":5e-324}", MATCH);
	PRED("arg \"n\" > 0", "{\"n\":1e-999999999999999999999}", NOMATCH);
	PRED("arg \"n\" > 0", "{\"n\":-1e-400}", NOMATCH);
	PRED("arg \"n\" < 0", "{\"n\":-5e-324}", MATCH);
	PRED("arg \"n\" < 0", "{\"n\":-1e-400}", NOMATCH);

	PRED("arg \"n\" >= -5", "{\"n\":-5}", MATCH);
	PRED("arg \"n\" >= -5", "{\"n\":-5.0000000000000000001}", MATCH);
	PRED("arg \"n\" >= -5", "{\"n\":-5.000000000000001}", NOMATCH);
	PRED("arg \"n\" >= -5", "{\"n\":-4.9999999999999999999}", MATCH);
	PRED("arg \"n\" < -5", "{\"n\":-50e-1}", NOMATCH);
	PRED("arg \"n\" < -5", "{\"n\":-6}", MATCH);
}

/*
 * The double compared with a 64-bit integer, neither rounded: near 2^63
 * doubles are 1024 apart, so 9223372036854775807 reads as 2^63, above
 * the rule's integer, as a server reads it.
 */
ATF_TC_WITHOUT_HEAD(number_compared_as_its_double_at_int64_limits);
ATF_TC_BODY(number_compared_as_its_double_at_int64_limits, tc)
{
	PRED("arg \"n\" <= 9223372036854775807",
	    "{\"n\":9223372036854775807}", NOMATCH);
	PRED("arg \"n\" > 9223372036854775807",
	    "{\"n\":9223372036854775807}", MATCH);
	PRED("arg \"n\" <= 9223372036854775807",
	    "{\"n\":9223372036854774784}", MATCH);
	PRED("arg \"n\" <= 9223372036854775807",
	    "{\"n\":9223372036854775296}", NOMATCH);
	PRED("arg \"n\" <= 9223372036854775807",
	    "{\"n\":9223372036854775295}", MATCH);
	PRED("arg \"n\" = 9223372036854775807",
	    "{\"n\":9.223372036854775807e18}", NOMATCH);
	PRED("arg \"n\" = 9223372036854775807",
	    "{\"n\":9223372036854775806}", NOMATCH);
	PRED("arg \"n\" >= -9223372036854775807",
	    "{\"n\":-9223372036854775807}", NOMATCH);
	PRED("arg \"n\" >= -9223372036854775807",
	    "{\"n\":-9223372036854774784}", MATCH);
	PRED("arg \"n\" < -9223372036854775807",
	    "{\"n\":-9223372036854775808}", MATCH);
	/* 2^53 + 1 is no double: nothing equals it. */
	PRED("arg \"n\" < 9007199254740993",
	    "{\"n\":9007199254740992}", MATCH);
	PRED("arg \"n\" < 9007199254740993",
	    "{\"n\":9007199254740993}", MATCH);
	PRED("arg \"n\" = 9007199254740993",
	    "{\"n\":9007199254740993}", NOMATCH);
	PRED("arg \"n\" = 9007199254740992",
	    "{\"n\":9007199254740993}", MATCH);
	/*
	 * 2^60 in the canonical exponent form: the decimal it writes is 24
	 * above 2^60, the double it reads as is 2^60.
	 */
	PRED("arg \"n\" = 1152921504606846976",
	    "{\"n\":1152921504606847e3}", MATCH);
	PRED("arg \"n\" != 1152921504606846976",
	    "{\"n\":1152921504606847e3}", NOMATCH);
	PRED("arg \"n\" = 1152921504606847000",
	    "{\"n\":1152921504606847e3}", NOMATCH);
}

/*
 * Long runs of digits: the exponent is read in full, not cut short at
 * some digit count, and digits far past any double's precision still
 * decide a tie between two doubles.
 */
static void
long_number(int line, const char *pred, const char *lead, char fill,
    const char *tail, int want)
{
	char	 args[4096];
	size_t	 n;

	n = (size_t)snprintf(args, sizeof(args), "{\"n\":%s", lead);
	ATF_REQUIRE(n + 2000 + strlen(tail) + 2 < sizeof(args));
	memset(args + n, fill, 2000);
	snprintf(args + n + 2000, sizeof(args) - n - 2000, "%s}", tail);
	pred_case(line, pred, args, want);
}

ATF_TC_WITHOUT_HEAD(number_with_long_digit_runs);
ATF_TC_BODY(number_with_long_digit_runs, tc)
{
	/* 0.{2000 zeros}1e2002 is 10. */
	long_number(__LINE__, "arg \"n\" = 10", "0.", '0', "1e2002", MATCH);
	long_number(__LINE__, "arg \"n\" > 10", "0.", '0', "1e2002",
	    NOMATCH);
	long_number(__LINE__, "arg \"n\" < 10", "0.", '0', "1e2001", MATCH);
	/* 1{2000 zeros}e-2000 is 1, and so reads 1{2000 zeros}1e-2001. */
	long_number(__LINE__, "arg \"n\" = 1", "1", '0', "e-2000", MATCH);
	long_number(__LINE__, "arg \"n\" = 1", "1", '0', "1e-2001", MATCH);
	long_number(__LINE__, "arg \"n\" > 1", "1", '0', "1e-2001", NOMATCH);
	/* 4.{2000 nines} reads as 5. */
	long_number(__LINE__, "arg \"n\" < 5", "4.", '9', "", NOMATCH);
	long_number(__LINE__, "arg \"n\" >= 5", "4.", '9', "e0", MATCH);
	long_number(__LINE__, "arg \"n\" < -4", "-4.", '9', "", MATCH);
	/* 2^53 + 1 ties to 2^53, unless a 1 follows 2000 zeros later. */
	long_number(__LINE__, "arg \"n\" = 9007199254740992",
	    "9007199254740993.", '0', "", MATCH);
	long_number(__LINE__, "arg \"n\" = 9007199254740994",
	    "9007199254740993.", '0', "1", MATCH);
}

/* A number that is no finite double: the arguments are not a document. */
ATF_TC_WITHOUT_HEAD(number_out_of_range_is_internal_error);
ATF_TC_BODY(number_out_of_range_is_internal_error, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass operation \"read\"\n");
	DENY(c, &s, "read", "{\"n\":1e999}", GW_R_INTERNAL, 0);
	DENY(c, &s, "read", "{\"n\":[-1e400]}", GW_R_INTERNAL, 0);
	ALLOW(c, &s, "read", "{\"n\":1.7976931348623157e308}", 1);
	free_config(c);
}

/*
 * The bridge forwards the canonical form of the arguments, and the server
 * reads its numbers as doubles: a rule "arg n < 100" against
 * 99.999999999999999999 decides what the server will see, 100, not below
 * 100; on the frame's text and on the canonical text alike.
 */
ATF_TC_WITHOUT_HEAD(rule_decides_the_number_the_server_reads);
ATF_TC_BODY(rule_decides_the_number_the_server_reads, tc)
{
	static const char *const docs[] = {
		"{\"n\":99.999999999999999999}", "{\"n\":99.99999999999999}",
		"{\"n\":100}", "{\"n\":1e2}", "{\"n\":-0}", "{\"n\":1e-400}",
		"{\"n\":100.00000000000001}", "{\"n\":9007199254740993}",
		"{\"n\":4.9999999999999999999e1}", "{\"n\":0.99999999999999999e2}",
	};
	struct json_limits	 lim = { 4096, 4 };
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 raw, can;
	char			 canon[4096];
	size_t			 i, n, off;
	double			 server;

	c = setup(&s, "pass operation \"read\" arg \"n\" < 100\n");
	DENY(c, &s, "read", "{\"n\":99.999999999999999999}",
	    GW_R_DEFAULT_BLOCK, 0);
	ALLOW(c, &s, "read", "{\"n\":99.99999999999999}", 1);
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		ATF_REQUIRE(json_canonical(docs[i], strlen(docs[i]), &lim,
		    canon, sizeof(canon), &n, NULL) == 0);
		decide(c, &s, "read", docs[i], &raw);
		gw_decide(c, &s, "read", canon, n, &can);
		ATF_CHECK_MSG(memcmp(&raw, &can, sizeof(raw)) == 0,
		    "%s and its canonical %s decided apart", docs[i], canon);
		/* A double parser reading the forwarded text. */
		off = strlen("{\"n\":");
		ATF_REQUIRE(strncmp(canon, "{\"n\":", off) == 0);
		server = strtod(canon + off, NULL);
		ATF_CHECK_MSG(can.allowed == (server < 100),
		    "%s: allowed %d, the server reads %.17g", canon,
		    can.allowed, server);
	}
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(string_equality_exact);
ATF_TC_BODY(string_equality_exact, tc)
{
	PRED("arg \"s\" = \"abc\"", "{\"s\":\"abc\"}", MATCH);
	PRED("arg \"s\" = \"abc\"", "{\"s\":\"\\u0061bc\"}", MATCH);
	PRED("arg \"s\" = \"abc\"", "{\"s\":\"ABC\"}", NOMATCH);
	PRED("arg \"s\" = \"abc\"", "{\"s\":\"abc \"}", NOMATCH);
	PRED("arg \"s\" = \"abc\"", "{\"s\":\"ab\"}", NOMATCH);
	PRED("arg \"s\" = \"abc\"", "{\"s\":\"abcd\"}", NOMATCH);
	PRED("arg \"s\" = \"abc\"", "{\"s\":\"\"}", NOMATCH);
	PRED("arg \"s\" = \"abc\"", "{\"S\":\"abc\"}", NOMATCH);
	PRED("arg \"s\" = \"abc\"", "{\"\\u0073\":\"abc\"}", MATCH);
	PRED("arg \"s\" = \"abc\"", "{}", NOMATCH);
	PRED("arg \"s\" = \"\"", "{\"s\":\"\"}", MATCH);
	PRED("arg \"s\" = \"\"", "{\"s\":\"a\"}", NOMATCH);
	PRED("arg \"s\" = \"10\"", "{\"s\":\"10\"}", MATCH);
	PRED("arg \"s\" != \"abc\"", "{\"s\":\"abc\"}", NOMATCH);
	PRED("arg \"s\" != \"abc\"", "{\"s\":\"abd\"}", MATCH);
	PRED("arg \"s\" != \"abc\"", "{}", NOMATCH);
}

ATF_TC_WITHOUT_HEAD(in_list_compares_values_of_the_same_type);
ATF_TC_BODY(in_list_compares_values_of_the_same_type, tc)
{
	PRED("arg \"v\" in { 1 2 \"three\" }", "{\"v\":1}", MATCH);
	PRED("arg \"v\" in { 1 2 \"three\" }", "{\"v\":2.0}", MATCH);
	PRED("arg \"v\" in { 1 2 \"three\" }", "{\"v\":3}", NOMATCH);
	PRED("arg \"v\" in { 1 2 \"three\" }", "{\"v\":\"three\"}", MATCH);
	PRED("arg \"v\" in { 1 2 \"three\" }", "{\"v\":\"1\"}", NOMATCH);
	PRED("arg \"v\" in { 1 2 \"three\" }", "{\"v\":true}", ERROR);
	PRED("arg \"v\" in { 1 2 \"three\" }", "{\"v\":[1]}", ERROR);
	PRED("arg \"v\" in { 1 2 \"three\" }", "{}", NOMATCH);
	PRED("arg \"v\" in { \"a\", \"b\" }", "{\"v\":\"b\"}", MATCH);
	PRED("arg \"v\" in { \"a\", \"b\" }", "{\"v\":\"c\"}", NOMATCH);
	PRED("arg \"v\" in { \"a\", \"b\" }", "{\"v\":1}", ERROR);
	PRED("arg \"v\" in { 1, 2 }", "{\"v\":2}", MATCH);
	PRED("arg \"v\" in { 1, 2 }", "{\"v\":\"2\"}", ERROR);
	PRED("arg \"v\" in { 1, 2 }", "{\"v\":null}", ERROR);
	/* A list of one is that value's =. */
	PRED("arg \"v\" in { 5 }", "{\"v\":5}", MATCH);
	PRED("arg \"v\" in { 5 }", "{\"v\":6}", NOMATCH);
	PRED("arg \"v\" in { \"a\" }", "{\"v\":\"a\"}", MATCH);
	PRED("arg \"v\" in { \"a\" }", "{\"v\":5}", ERROR);
}

ATF_TC_WITHOUT_HEAD(present_and_absent_any_value);
ATF_TC_BODY(present_and_absent_any_value, tc)
{
	static const char *const there[] = {
		"{\"k\":null}", "{\"k\":[]}", "{\"k\":{}}", "{\"k\":false}",
		"{\"k\":\"\"}", "{\"k\":0}", "{\"a\":1,\"k\":1,\"z\":2}",
		"{\"\\u006b\":1}"
	};
	static const char *const missing[] = {
		"{}", "{\"K\":1}", "{\"kk\":1}", "{\"a\":{\"k\":1}}",
		"{\"a\":[\"k\"]}", "{\"a\":\"k\"}"
	};
	size_t	 i;

	for (i = 0; i < sizeof(there) / sizeof(there[0]); i++) {
		PRED("arg \"k\" present", there[i], MATCH);
		PRED("arg \"k\" absent", there[i], NOMATCH);
	}
	for (i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		PRED("arg \"k\" present", missing[i], NOMATCH);
		PRED("arg \"k\" absent", missing[i], MATCH);
	}
}

/* Type mismatches are evaluation errors, whatever the operator. */
ATF_TC_WITHOUT_HEAD(type_mismatch_is_rule_error);
ATF_TC_BODY(type_mismatch_is_rule_error, tc)
{
	static const char *const ops[] = { "=", "!=", "<", "<=", ">", ">=" };
	static const char *const notnum[] = {
		"{\"n\":\"5\"}", "{\"n\":true}", "{\"n\":false}",
		"{\"n\":null}", "{\"n\":[5]}", "{\"n\":{\"n\":5}}"
	};
	static const char *const notstr[] = {
		"{\"s\":5}", "{\"s\":true}", "{\"s\":null}", "{\"s\":[\"a\"]}",
		"{\"s\":{}}"
	};
	char	 pred[64];
	size_t	 i, j;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (j = 0; j < sizeof(notnum) / sizeof(notnum[0]); j++) {
			snprintf(pred, sizeof(pred), "arg \"n\" %s 5", ops[i]);
			PRED(pred, notnum[j], ERROR);
		}
	for (j = 0; j < sizeof(notstr) / sizeof(notstr[0]); j++) {
		PRED("arg \"s\" = \"a\"", notstr[j], ERROR);
		PRED("arg \"s\" != \"a\"", notstr[j], ERROR);
	}
}

ATF_TC_WITHOUT_HEAD(rule_error_not_rescued_by_later_rules);
ATF_TC_BODY(rule_error_not_rescued_by_later_rules, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n"
	    "block operation \"read\" arg \"n\" < 5\n"
	    "pass quick all\n");
	DENY(c, &s, "read", "{\"n\":\"4\"}", GW_R_RULE_ERROR, 2);
	/* Evaluated, the rule matches, and the quick pass after it wins. */
	ALLOW(c, &s, "read", "{\"n\":4}", 3);
	ALLOW(c, &s, "read", "{}", 3);
	/* The rule does not apply to other operations: no error there. */
	ALLOW(c, &s, "search", "{\"n\":\"4\"}", 3);
	free_config(c);

	/* A pass rule that errs blocks as well. */
	c = setup(&s, "pass operation \"read\" arg \"n\" >= 0\npass all\n");
	DENY(c, &s, "read", "{\"n\":[1]}", GW_R_RULE_ERROR, 1);
	free_config(c);
}

/* A quick rule decides before an erring rule after it is reached. */
ATF_TC_WITHOUT_HEAD(quick_rule_before_error_decides);
ATF_TC_BODY(quick_rule_before_error_decides, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass quick operation \"read\"\n"
	    "block arg \"n\" < 5\n");
	ALLOW(c, &s, "read", "{\"n\":\"x\"}", 1);
	DENY(c, &s, "search", "{\"n\":\"x\"}", GW_R_RULE_ERROR, 2);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(rule_error_only_where_rule_applies);
ATF_TC_BODY(rule_error_only_where_rule_applies, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "block operation \"mail\" arg \"n\" < 5\n"
	    "block label = confidential arg \"n\" < 5\n"
	    "pass all\n");
	ALLOW(c, &s, "read", "{\"n\":\"x\"}", 3);
	DENY(c, &s, "mail", "{\"n\":\"x\"}", GW_R_RULE_ERROR, 1);
	ATF_REQUIRE(gw_payload_label(&s, CONFIDENTIAL) == 0);
	DENY(c, &s, "read", "{\"n\":\"x\"}", GW_R_RULE_ERROR, 2);
	free_config(c);
}

/* All predicates of an applying rule are evaluated, in any order. */
ATF_TC_WITHOUT_HEAD(rule_error_independent_of_predicate_order);
ATF_TC_BODY(rule_error_independent_of_predicate_order, tc)
{
	PRED("arg \"a\" = 1 arg \"b\" < 3", "{\"a\":2,\"b\":\"x\"}", ERROR);
	PRED("arg \"b\" < 3 arg \"a\" = 1", "{\"a\":2,\"b\":\"x\"}", ERROR);
	PRED("arg \"a\" = 1 arg \"b\" < 3", "{\"a\":2,\"b\":1}", NOMATCH);
	PRED("arg \"a\" = 1 arg \"b\" < 3", "{\"a\":1,\"b\":1}", MATCH);
	PRED("arg \"a\" absent arg \"b\" < 3", "{\"a\":1,\"b\":[]}", ERROR);
}

/* Budgets, labels, ceilings. */

ATF_TC_WITHOUT_HEAD(budget_exhausted_after_commits);
ATF_TC_BODY(budget_exhausted_after_commits, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;
	size_t			 lim;

	c = setup(&s, "pass all\n");
	lim = op_index(c, "limited");
	commit(&s, c, "limited");
	ALLOW(c, &s, "limited", "{}", 1);
	commit(&s, c, "limited");
	DENY(c, &s, "limited", "{}", GW_R_BUDGET, 1);
	decide(c, &s, "limited", "{}", &d);
	ATF_CHECK(gw_commit_allowed(&s, &d) == -1);
	ATF_CHECK_EQ(s.s_count[lim], 2);
	ATF_CHECK_EQ(s.s_allowed, 2);
	/* Same tool, other operation, no budget. */
	ALLOW(c, &s, "search", "{}", 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(budget_counts_commits_not_decisions);
ATF_TC_BODY(budget_counts_commits_not_decisions, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;
	int			 i;

	c = setup(&s, "pass all\n");
	for (i = 0; i < 5; i++)
		ALLOW(c, &s, "limited", "{}", 1);
	decide(c, &s, "limited", "{}", &d);
	ATF_REQUIRE(d.allowed);
	ATF_CHECK(gw_commit_allowed(&s, &d) == 0);
	ATF_CHECK(gw_commit_allowed(&s, &d) == 0);
	/* A stale allow cannot push the count past the budget. */
	ATF_CHECK(gw_commit_allowed(&s, &d) == -1);
	ATF_CHECK_EQ(s.s_count[op_index(c, "limited")], 2);
	DENY(c, &s, "limited", "{}", GW_R_BUDGET, 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(commit_refuses_denials_and_foreign_decisions);
ATF_TC_BODY(commit_refuses_denials_and_foreign_decisions, tc)
{
	struct cmcp_conf	*c, *other;
	struct gw_session	 s, t;
	struct gw_decision	 d;
	size_t			 i;

	c = setup(&s, "pass operation \"read\"\n");
	decide(c, &s, "mail", "{}", &d);
	ATF_CHECK(gw_commit_allowed(&s, &d) == -1);
	decide(c, &s, "nope", "{}", &d);
	ATF_CHECK(gw_commit_allowed(&s, &d) == -1);
	ATF_CHECK(gw_commit_allowed(&s, NULL) == -1);

	/* An allow of another configuration's session. */
	other = conf_load("pass all\n");
	ATF_REQUIRE(gw_session_init(other, &t) == 0);
	decide(other, &t, "read", "{}", &d);
	ATF_REQUIRE(d.allowed);
	ATF_CHECK(gw_commit_allowed(&s, &d) == -1);

	for (i = 0; i < s.s_nops; i++)
		ATF_CHECK_EQ(s.s_count[i], 0);
	ATF_CHECK_EQ(s.s_allowed, 0);
	free_config(other);
	free_config(c);
}

/* cmcp-reference 3.4: the public sink is refused after a confidential read. */
ATF_TC_WITHOUT_HEAD(ceiling_refuses_public_sink_after_confidential_read);
ATF_TC_BODY(ceiling_refuses_public_sink_after_confidential_read, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;

	c = setup(&s, "pass all\n");
	ATF_REQUIRE(gw_payload_label(&s, PUBLIC) == 0);
	ALLOW(c, &s, "mail", "{}", 1);
	decide(c, &s, "read", "{}", &d);
	ATF_REQUIRE(d.allowed && gw_commit_allowed(&s, &d) == 0);
	ATF_REQUIRE(gw_result_label(&s, d.tool) == 0);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	DENY(c, &s, "mail", "{}", GW_R_CEILING, 1);
	DENY(c, &s, "note", "{}", GW_R_CEILING, 1);
	ALLOW(c, &s, "search", "{}", 1);
	ALLOW(c, &s, "read", "{}", 1);
	free_config(c);

	/* Mutation: with a confidential ceiling the sink is reached. */
	c = conf_load_ceiling("confidential", "pass all\n");
	ATF_REQUIRE(gw_session_init(c, &s) == 0);
	ATF_REQUIRE(gw_payload_label(&s, CONFIDENTIAL) == 0);
	ALLOW(c, &s, "mail", "{}", 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(payload_label_sets_initial_label);
ATF_TC_BODY(payload_label_sets_initial_label, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	ATF_CHECK_EQ(s.s_label, PUBLIC);
	ATF_REQUIRE(gw_payload_label(&s, INTERNAL) == 0);
	DENY(c, &s, "mail", "{}", GW_R_CEILING, 1);
	ALLOW(c, &s, "note", "{}", 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(label_never_lowers);
ATF_TC_BODY(label_never_lowers, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;

	c = setup(&s, "pass all\n");
	decide(c, &s, "search", "{}", &d);
	ATF_REQUIRE(gw_result_label(&s, d.tool) == 0);
	ATF_CHECK_EQ(s.s_label, INTERNAL);
	decide(c, &s, "read", "{}", &d);
	ATF_REQUIRE(gw_result_label(&s, d.tool) == 0);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	decide(c, &s, "search", "{}", &d);
	ATF_REQUIRE(gw_result_label(&s, d.tool) == 0);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	ATF_REQUIRE(gw_payload_label(&s, PUBLIC) == 0);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	DENY(c, &s, "mail", "{}", GW_R_CEILING, 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(invalid_label_raises_to_highest);
ATF_TC_BODY(invalid_label_raises_to_highest, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	ATF_CHECK(gw_payload_label(&s, 3) == -1);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	ATF_REQUIRE(gw_session_init(c, &s) == 0);
	ATF_CHECK(gw_payload_label(&s, -1) == -1);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	ATF_REQUIRE(gw_session_init(c, &s) == 0);
	ATF_CHECK(gw_result_label(&s, NULL) == -1);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	DENY(c, &s, "mail", "{}", GW_R_CEILING, 1);
	free_config(c);
}

/* Aliases. */

ATF_TC_WITHOUT_HEAD(unknown_operation_is_violation);
ATF_TC_BODY(unknown_operation_is_violation, tc)
{
	static const char *const bad[] = {
		"nope", "", "READ", "read ", "search_documents", "docs",
		"rea", "readread"
	};
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;
	char			 longname[256];
	size_t			 i;

	c = setup(&s, "pass quick all\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		DENY(c, &s, bad[i], "{}", GW_R_UNKNOWN_OP, 0);
		decide(c, &s, bad[i], "{}", &d);
		ATF_CHECK(d.op == NULL && d.tool == NULL);
	}
	DENY(c, &s, NULL, "{}", GW_R_UNKNOWN_OP, 0);
	memset(longname, 'r', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	DENY(c, &s, longname, "{}", GW_R_UNKNOWN_OP, 0);
	/* Denials of a known operation are not violations. */
	ATF_REQUIRE(gw_payload_label(&s, CONFIDENTIAL) == 0);
	DENY(c, &s, "mail", "{}", GW_R_CEILING, 1);
	/* A violation whatever the gate says. */
	ATF_CHECK_EQ(gw_gate_update(c, &s, 0, NULL, 0), GW_GATE_STALE);
	DENY(c, &s, "nope", "{}", GW_R_UNKNOWN_OP, 0);
	DENY(c, &s, "read", "{}", GW_R_CLOSED, 0);
	free_config(c);
}

/* PolicyGate. */

ATF_TC_WITHOUT_HEAD(gate_revoke_then_restore);
ATF_TC_BODY(gate_revoke_then_restore, tc)
{
	static const char *const mail[] = { "mail" };
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass quick all\n");
	ALLOW(c, &s, "mail", "{}", 1);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 1, mail, 1), GW_GATE_OK);
	DENY(c, &s, "mail", "{}", GW_R_REVOKED, 0);
	ALLOW(c, &s, "read", "{}", 1);
	ATF_CHECK_EQ(s.s_revision, 1);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 2, NULL, 0), GW_GATE_OK);
	ALLOW(c, &s, "mail", "{}", 1);
	ATF_CHECK_EQ(s.s_revision, 2);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(gate_revoke_all_and_budget_untouched);
ATF_TC_BODY(gate_revoke_all_and_budget_untouched, tc)
{
	static const char *const all[] =
	    { "limited", "read", "search", "note", "mail" };
	struct cmcp_conf	*c;
	struct gw_session	 s;
	size_t			 i;

	c = setup(&s, "pass all\n");
	commit(&s, c, "limited");
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 7, all, 5), GW_GATE_OK);
	for (i = 0; i < 5; i++)
		DENY(c, &s, all[i], "{}", GW_R_REVOKED, 0);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 8, all + 1, 4), GW_GATE_OK);
	ALLOW(c, &s, "limited", "{}", 1);
	commit(&s, c, "limited");
	DENY(c, &s, "limited", "{}", GW_R_BUDGET, 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(gate_stale_revision_closes_admission);
ATF_TC_BODY(gate_stale_revision_closes_admission, tc)
{
	static const char *const mail[] = { "mail" };
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 5, mail, 1), GW_GATE_OK);
	ALLOW(c, &s, "read", "{}", 1);
	/* Equal: a replay. */
	ATF_CHECK_EQ(gw_gate_update(c, &s, 5, NULL, 0), GW_GATE_STALE);
	DENY(c, &s, "read", "{}", GW_R_CLOSED, 0);
	DENY(c, &s, "mail", "{}", GW_R_CLOSED, 0);
	/* Lower: a rollback; still closed. */
	ATF_CHECK_EQ(gw_gate_update(c, &s, 4, NULL, 0), GW_GATE_STALE);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 0, mail, 1), GW_GATE_STALE);
	DENY(c, &s, "read", "{}", GW_R_CLOSED, 0);
	ATF_CHECK_EQ(s.s_revision, 5);
	/* The stale update restored nothing. */
	ATF_CHECK(s.s_revoked[op_index(c, "mail")]);
	/* A valid newer revision reopens. */
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 6, NULL, 0), GW_GATE_OK);
	ALLOW(c, &s, "read", "{}", 1);
	ALLOW(c, &s, "mail", "{}", 1);
	ATF_CHECK_EQ(gw_gate_update(c, &s, UINT64_MAX, NULL, 0), GW_GATE_OK);
	ATF_CHECK_EQ(gw_gate_update(c, &s, UINT64_MAX, NULL, 0),
	    GW_GATE_STALE);
	DENY(c, &s, "read", "{}", GW_R_CLOSED, 0);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(gate_unknown_operation_closes_admission);
ATF_TC_BODY(gate_unknown_operation_closes_admission, tc)
{
	static const char *const bad[] = { "mail", "nope" };
	static const char *const mail[] = { "mail" };
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	ATF_CHECK_EQ(gw_gate_update(c, &s, 3, bad, 2), GW_GATE_UNKNOWN);
	DENY(c, &s, "read", "{}", GW_R_CLOSED, 0);
	/* Nothing of the refused update was installed. */
	ATF_CHECK_EQ(s.s_revision, 0);
	ATF_CHECK(!s.s_revoked[op_index(c, "mail")]);
	/* Its revision was not used up. */
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 3, mail, 1), GW_GATE_OK);
	ALLOW(c, &s, "read", "{}", 1);
	DENY(c, &s, "mail", "{}", GW_R_REVOKED, 0);
	DENY(c, &s, "nope", "{}", GW_R_UNKNOWN_OP, 0);
	free_config(c);
}

/*
 * An update names what is revoked, so the only way to try to add an
 * operation is to name one: it is refused, and the alias stays unknown.
 */
ATF_TC_WITHOUT_HEAD(gate_cannot_add_operation);
ATF_TC_BODY(gate_cannot_add_operation, tc)
{
	static const char *const add[] = { "exfiltrate" };
	static const char *const dup[] = { "mail", "note", "mail" };
	static const char *const hole[] = { "mail", NULL };
	static const char *const many[] =
	    { "mail", "note", "read", "search", "limited", "mail" };
	struct cmcp_conf	*c;
	struct gw_session	 s;
	size_t			 i;

	c = setup(&s, "pass all\n");
	ATF_CHECK_EQ(gw_gate_update(c, &s, 1, add, 1), GW_GATE_UNKNOWN);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 2, dup, 3), GW_GATE_INVALID);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 3, hole, 2), GW_GATE_INVALID);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 4, NULL, 1), GW_GATE_INVALID);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 5, many, 6), GW_GATE_INVALID);
	DENY(c, &s, "read", "{}", GW_R_CLOSED, 0);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 1, NULL, 0), GW_GATE_OK);
	DENY(c, &s, "exfiltrate", "{}", GW_R_UNKNOWN_OP, 0);
	for (i = 0; i < s.s_nops; i++)
		ATF_CHECK(s.s_approved[i] && !s.s_revoked[i]);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(gate_restore_does_not_lift_ceiling);
ATF_TC_BODY(gate_restore_does_not_lift_ceiling, tc)
{
	static const char *const mail[] = { "mail" };
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;

	c = setup(&s, "pass all\n");
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 1, mail, 1), GW_GATE_OK);
	decide(c, &s, "read", "{}", &d);
	ATF_REQUIRE(d.allowed && gw_commit_allowed(&s, &d) == 0);
	ATF_REQUIRE(gw_result_label(&s, d.tool) == 0);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 2, NULL, 0), GW_GATE_OK);
	ATF_CHECK_EQ(s.s_label, CONFIDENTIAL);
	DENY(c, &s, "mail", "{}", GW_R_CEILING, 1);
	free_config(c);
}

/* Inconsistent input is refused, never allowed. */

ATF_TC_WITHOUT_HEAD(bad_arguments_are_denied);
ATF_TC_BODY(bad_arguments_are_denied, tc)
{
	static const char *const bad[] = {
		"", "[]", "\"s\"", "5", "null", "{", "{\"a\":1,\"a\":2}",
		"{\"n\":5} x", "{\"n\":01}", "{\"s\":\"\xff\"}", "{} {}"
	};
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;
	size_t			 i;

	c = setup(&s, "pass all\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		DENY(c, &s, "read", bad[i], GW_R_INTERNAL, 0);
	DENY(c, &s, "read", NULL, GW_R_INTERNAL, 0);
	ALLOW(c, &s, "read", " { } ", 1);
	/* The length counts, not a NUL. */
	gw_decide(c, &s, "read", "{\"n\":5}garbage", 7, &d);
	ATF_CHECK(d.allowed);
	gw_decide(c, &s, "read", "{\"n\":5}", 6, &d);
	ATF_CHECK(!d.allowed && d.reason == GW_R_INTERNAL);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(foreign_or_uninitialized_session_denied);
ATF_TC_BODY(foreign_or_uninitialized_session_denied, tc)
{
	static const char *const none[] = { "mail" };
	struct cmcp_conf	*c, *other;
	struct gw_session	 s;

	c = conf_load("pass all\n");
	other = conf_load("pass all\n");
	memset(&s, 0, sizeof(s));
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 1, none, 1), GW_GATE_INVALID);
	ATF_REQUIRE(gw_session_init(other, &s) == 0);
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 1, none, 1), GW_GATE_INVALID);
	DENY(other, &s, "read", "{}", GW_R_CLOSED, 0);
	DENY(c, NULL, "read", "{}", GW_R_INTERNAL, 0);
	DENY(NULL, &s, "read", "{}", GW_R_INTERNAL, 0);
	ATF_CHECK(gw_session_init(NULL, &s) == -1);
	DENY(other, &s, "read", "{}", GW_R_INTERNAL, 0);
	free_config(other);
	free_config(c);
}

/*
 * Bounds, and inconsistent configurations, sessions and decisions: the
 * parser never makes the latter, so a case alters one field of what it
 * parsed or decided, and puts it back before freeing.
 */

#define TPRED(c, s, pred, args, want)					\
	pred_check(__LINE__, (c), (s), (pred), (args), (want))

/* The first predicate of the first rule. */
static struct conf_pred *
pred_first(struct cmcp_conf *c)
{
	return TAILQ_FIRST(&TAILQ_FIRST(&c->c_rules)->preds);
}

static struct conf_operation *
op_named(struct cmcp_conf *c, const char *name)
{
	struct conf_operation	*op;

	TAILQ_FOREACH(op, &c->c_operations, entry)
		if (strcmp(op->name, name) == 0)
			return op;
	atf_tc_fail("no operation %s", name);
	return NULL;
}

/* The tools of the header and rules, under a labels statement. */
static struct cmcp_conf *
conf_load_labels(const char *labels, const char *rules)
{
	char	 text[4096];
	int	 n, m;

	n = snprintf(text, sizeof(text), "%s", labels);
	ATF_REQUIRE(n > 0 && (size_t)n < sizeof(text));
	m = snprintf(text + n, sizeof(text) - n, header, "public");
	ATF_REQUIRE(m > 0 && (size_t)m < sizeof(text) - n);
	ATF_REQUIRE(strlcat(text, rules, sizeof(text)) < sizeof(text));
	return conf_load_text(text);
}

ATF_TC_WITHOUT_HEAD(session_with_one_label_decides);
ATF_TC_BODY(session_with_one_label_decides, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = conf_load_text("labels { \"only\" }\n"
	    "tool \"read\" {\n"
	    "\tmcp server \"docs\" tool \"read\"\n"
	    "\tceiling only\n"
	    "\tlabel only\n"
	    "}\n"
	    "operation \"read\" tool \"read\"\n"
	    "pass all\n");
	ATF_REQUIRE_EQ(c->c_nlabels, 1);
	ATF_REQUIRE_EQ(gw_session_init(c, &s), 0);
	ALLOW(c, &s, "read", "{}", 1);
	ATF_CHECK_EQ(gw_payload_label(&s, 1), -1);
	ATF_CHECK_EQ(s.s_label, 0);
	ALLOW(c, &s, "read", "{}", 1);
	free_config(c);
}

/* CONF_LABELS_MAX labels are a session's; one more is refused. */
ATF_TC_WITHOUT_HEAD(session_label_count_at_maximum);
ATF_TC_BODY(session_label_count_at_maximum, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = conf_load_labels("labels { \"public\" \"internal\" "
	    "\"confidential\" \"l3\" \"l4\" \"l5\" \"l6\" \"l7\" \"l8\" \"l9\" "
	    "\"l10\" \"l11\" \"l12\" \"l13\" \"l14\" \"l15\" }\n", "pass all\n");
	ATF_REQUIRE_EQ(c->c_nlabels, CONF_LABELS_MAX);
	ATF_REQUIRE_EQ(gw_session_init(c, &s), 0);
	ALLOW(c, &s, "read", "{}", 1);
	ATF_CHECK_EQ(gw_payload_label(&s, CONF_LABELS_MAX), -1);
	ATF_CHECK_EQ(s.s_label, CONF_LABELS_MAX - 1);
	DENY(c, &s, "read", "{}", GW_R_CEILING, 1);
	ATF_REQUIRE_EQ(gw_session_init(c, &s), 0);
	ATF_CHECK_EQ(gw_payload_label(&s, CONF_LABELS_MAX - 1), 0);
	ATF_CHECK_EQ(s.s_label, CONF_LABELS_MAX - 1);

	c->c_nlabels = CONF_LABELS_MAX + 1;
	ATF_CHECK_EQ(gw_session_init(c, &s), -1);
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	c->c_nlabels = CONF_LABELS_MAX;
	free_config(c);
}

/* A refused session stays closed and matches no configuration. */
ATF_TC_WITHOUT_HEAD(session_init_without_labels_refused_closed);
ATF_TC_BODY(session_init_without_labels_refused_closed, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	size_t			 n;

	c = conf_load("pass all\n");
	n = c->c_nlabels;
	c->c_nlabels = 0;
	ATF_CHECK_EQ(gw_session_init(c, &s), -1);
	ATF_CHECK(s.s_closed);
	ATF_CHECK(s.s_conf == NULL);
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	c->c_nlabels = n;
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	free_config(c);
}

/*
 * CONF_OPERATIONS_MAX operations are a session's, every one approved,
 * counted and revocable at once; one more operation, or one more name in
 * an update, is refused.
 */
ATF_TC_WITHOUT_HEAD(session_operation_count_at_maximum);
ATF_TC_BODY(session_operation_count_at_maximum, tc)
{
	static char		 namebuf[CONF_OPERATIONS_MAX + 1][16];
	const char		*names[CONF_OPERATIONS_MAX + 1];
	struct conf_operation	 extra;
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;
	char			*text;
	size_t			 sz = 65536, n;
	int			 i;

	ATF_REQUIRE((text = malloc(sz)) != NULL);
	n = (size_t)snprintf(text, sz, "tool \"read\" {\n"
	    "\tmcp server \"docs\" tool \"read\"\n"
	    "\tceiling confidential\n"
	    "\tlabel confidential\n"
	    "}\n");
	for (i = 0; i <= CONF_OPERATIONS_MAX; i++) {
		snprintf(namebuf[i], sizeof(namebuf[i]), "o%d", i);
		names[i] = namebuf[i];
	}
	for (i = 0; i < CONF_OPERATIONS_MAX; i++) {
		n += (size_t)snprintf(text + n, sz - n,
		    "operation \"%s\" tool \"read\"\n", names[i]);
		ATF_REQUIRE(n < sz);
	}
	ATF_REQUIRE(strlcat(text, "pass all\n", sz) < sz);
	c = conf_load_text(text);
	free(text);

	ATF_REQUIRE_EQ(gw_session_init(c, &s), 0);
	ATF_CHECK_EQ(s.s_nops, CONF_OPERATIONS_MAX);
	ALLOW(c, &s, "o0", "{}", 1);
	decide(c, &s, "o255", "{}", &d);
	ATF_REQUIRE(d.allowed && d.opidx == CONF_OPERATIONS_MAX - 1);
	ATF_CHECK_EQ(gw_commit_allowed(&s, &d), 0);
	ATF_CHECK_EQ(s.s_count[CONF_OPERATIONS_MAX - 1], 1);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 1, names, CONF_OPERATIONS_MAX + 1),
	    GW_GATE_INVALID);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 1, names, CONF_OPERATIONS_MAX),
	    GW_GATE_OK);
	DENY(c, &s, "o0", "{}", GW_R_REVOKED, 0);
	DENY(c, &s, "o255", "{}", GW_R_REVOKED, 0);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 2, names + 1,
	    CONF_OPERATIONS_MAX - 1), GW_GATE_OK);
	ALLOW(c, &s, "o0", "{}", 1);
	DENY(c, &s, "o255", "{}", GW_R_REVOKED, 0);

	memset(&extra, 0, sizeof(extra));
	snprintf(extra.name, sizeof(extra.name), "o256");
	extra.tool = TAILQ_FIRST(&c->c_tools);
	TAILQ_INSERT_TAIL(&c->c_operations, &extra, entry);
	ATF_CHECK_EQ(gw_session_init(c, &s), -1);
	ATF_CHECK(s.s_closed);
	DENY(c, &s, "o0", "{}", GW_R_INTERNAL, 0);
	TAILQ_REMOVE(&c->c_operations, &extra, entry);
	free_config(c);
}

/* The approved operations are those of the configuration at init. */
ATF_TC_WITHOUT_HEAD(operation_added_after_init_not_approved);
ATF_TC_BODY(operation_added_after_init_not_approved, tc)
{
	static const char *const late[] = { "late" };
	struct conf_operation	 extra;
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	memset(&extra, 0, sizeof(extra));
	snprintf(extra.name, sizeof(extra.name), "late");
	extra.tool = op_named(c, "read")->tool;
	TAILQ_INSERT_TAIL(&c->c_operations, &extra, entry);
	DENY(c, &s, "late", "{}", GW_R_REVOKED, 0);
	ALLOW(c, &s, "read", "{}", 1);
	ATF_CHECK_EQ(gw_gate_update(c, &s, 1, late, 1), GW_GATE_UNKNOWN);
	TAILQ_REMOVE(&c->c_operations, &extra, entry);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(session_label_out_of_range_refused);
ATF_TC_BODY(session_label_out_of_range_refused, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	s.s_label = CONFIDENTIAL + 1;
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	s.s_label = -1;
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	s.s_label = CONFIDENTIAL;
	ALLOW(c, &s, "read", "{}", 1);
	s.s_label = CONFIDENTIAL + 1;
	ATF_CHECK_EQ(gw_gate_update(c, &s, 1, NULL, 0), GW_GATE_INVALID);
	ATF_CHECK_EQ(s.s_revision, 0);
	free_config(c);
}

/* The session's label count is the configuration's. */
ATF_TC_WITHOUT_HEAD(session_refused_when_label_count_differs);
ATF_TC_BODY(session_refused_when_label_count_differs, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	c->c_nlabels = 2;
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	c->c_nlabels = 4;
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 0);
	c->c_nlabels = 3;
	ALLOW(c, &s, "read", "{}", 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(unset_session_refused_without_configuration);
ATF_TC_BODY(unset_session_refused_without_configuration, tc)
{
	struct gw_session	 s;

	memset(&s, 0, sizeof(s));
	DENY(NULL, &s, "read", "{}", GW_R_INTERNAL, 0);
	ATF_CHECK_EQ(gw_gate_update(NULL, &s, 1, NULL, 0), GW_GATE_INVALID);
}

ATF_TC_WITHOUT_HEAD(null_session_refused);
ATF_TC_BODY(null_session_refused, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;

	c = setup(&s, "pass all\n");
	decide(c, &s, "read", "{}", &d);
	ATF_REQUIRE(d.allowed);
	ATF_CHECK_EQ(gw_payload_label(NULL, PUBLIC), -1);
	ATF_CHECK_EQ(gw_result_label(NULL, d.tool), -1);
	ATF_CHECK_EQ(gw_result_label(NULL, NULL), -1);
	ATF_CHECK_EQ(gw_gate_update(c, NULL, 1, NULL, 0), GW_GATE_INVALID);
	ATF_CHECK_EQ(gw_commit_allowed(NULL, &d), -1);
	ATF_CHECK_EQ(s.s_label, PUBLIC);
	ATF_CHECK_EQ(s.s_count[op_index(c, "read")], 0);
	free_config(c);
}

/* An allow only counts unchanged, on a valid session. */
ATF_TC_WITHOUT_HEAD(commit_refuses_altered_decision_or_session);
ATF_TC_BODY(commit_refuses_altered_decision_or_session, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s, t;
	struct gw_decision	 d, bad;
	size_t			 i;

	c = setup(&s, "pass all\n");
	decide(c, &s, "read", "{}", &d);
	ATF_REQUIRE(d.allowed);
	bad = d;
	bad.allowed = 0;
	ATF_CHECK_EQ(gw_commit_allowed(&s, &bad), -1);
	bad = d;
	bad.reason = GW_R_BUDGET;
	ATF_CHECK_EQ(gw_commit_allowed(&s, &bad), -1);
	bad = d;
	bad.opidx = op_index(c, "mail");
	ATF_CHECK_EQ(gw_commit_allowed(&s, &bad), -1);
	t = s;
	t.s_label = CONFIDENTIAL + 1;
	ATF_CHECK_EQ(gw_commit_allowed(&t, &d), -1);
	memset(&t, 0, sizeof(t));
	ATF_CHECK_EQ(gw_commit_allowed(&t, &d), -1);
	for (i = 0; i < s.s_nops; i++)
		ATF_CHECK_EQ(s.s_count[i], 0);
	ATF_CHECK_EQ(s.s_allowed, 0);
	ATF_CHECK_EQ(gw_commit_allowed(&s, &d), 0);
	ATF_CHECK_EQ(s.s_count[op_index(c, "read")], 1);
	free_config(c);
}

/* The counts stop at UINT_MAX, each on its own: the last one counts. */
ATF_TC_WITHOUT_HEAD(commit_counts_stop_at_uint_max);
ATF_TC_BODY(commit_counts_stop_at_uint_max, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct gw_decision	 d;
	size_t			 i;

	c = setup(&s, "pass all\n");
	i = op_index(c, "read");
	s.s_count[i] = UINT_MAX - 1;
	decide(c, &s, "read", "{}", &d);
	ATF_REQUIRE(d.allowed);
	ATF_CHECK_EQ(gw_commit_allowed(&s, &d), 0);
	ATF_CHECK_EQ(s.s_count[i], UINT_MAX);
	ATF_CHECK_EQ(gw_commit_allowed(&s, &d), -1);
	ATF_CHECK_EQ(s.s_count[i], UINT_MAX);
	ATF_CHECK_EQ(s.s_allowed, 1);

	ATF_REQUIRE_EQ(gw_session_init(c, &s), 0);
	s.s_allowed = UINT_MAX - 1;
	decide(c, &s, "read", "{}", &d);
	ATF_REQUIRE(d.allowed);
	ATF_CHECK_EQ(gw_commit_allowed(&s, &d), 0);
	ATF_CHECK_EQ(s.s_allowed, UINT_MAX);
	ATF_CHECK_EQ(gw_commit_allowed(&s, &d), -1);
	ATF_CHECK_EQ(s.s_allowed, UINT_MAX);
	ATF_CHECK_EQ(s.s_count[i], 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(gate_more_names_than_operations_invalid);
ATF_TC_BODY(gate_more_names_than_operations_invalid, tc)
{
	static const char *const six[] =
	    { "read", "search", "note", "mail", "limited", "nope" };
	struct cmcp_conf	*c;
	struct gw_session	 s;

	c = setup(&s, "pass all\n");
	ATF_CHECK_EQ(gw_gate_update(c, &s, 1, six, 6), GW_GATE_INVALID);
	DENY(c, &s, "read", "{}", GW_R_CLOSED, 0);
	ATF_CHECK_EQ(s.s_revision, 0);
	ATF_REQUIRE_EQ(gw_gate_update(c, &s, 1, six, 5), GW_GATE_OK);
	DENY(c, &s, "read", "{}", GW_R_REVOKED, 0);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(rule_action_unknown_is_internal_error);
ATF_TC_BODY(rule_action_unknown_is_internal_error, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_rule	*r;

	c = setup(&s, "pass all\n");
	r = TAILQ_FIRST(&c->c_rules);
	r->action = (enum conf_action)(RULE_PASS + 1);
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 1);
	r->action = RULE_PASS;
	ALLOW(c, &s, "read", "{}", 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(operation_without_tool_is_internal_error);
ATF_TC_BODY(operation_without_tool_is_internal_error, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_operation	*op;
	struct conf_tool	*t;

	c = setup(&s, "pass all\n");
	op = op_named(c, "read");
	t = op->tool;
	op->tool = NULL;
	DENY(c, &s, "read", "{}", GW_R_INTERNAL, 1);
	op->tool = t;
	ALLOW(c, &s, "read", "{}", 1);
	free_config(c);
}

/* A ceiling is one of the labels; the highest is one. */
ATF_TC_WITHOUT_HEAD(tool_ceiling_out_of_range_is_internal_error);
ATF_TC_BODY(tool_ceiling_out_of_range_is_internal_error, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_tool	*t;

	c = setup(&s, "pass all\n");
	t = op_named(c, "mail")->tool;
	t->ceiling = CONFIDENTIAL + 1;
	DENY(c, &s, "mail", "{}", GW_R_INTERNAL, 1);
	t->ceiling = -1;
	DENY(c, &s, "mail", "{}", GW_R_INTERNAL, 1);
	t->ceiling = CONFIDENTIAL;
	ALLOW(c, &s, "mail", "{}", 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(rule_operation_list_missing_is_rule_error);
ATF_TC_BODY(rule_operation_list_missing_is_rule_error, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_rule	*r;
	struct conf_operation	**ops;

	c = setup(&s, "pass operation \"read\"\n");
	r = TAILQ_FIRST(&c->c_rules);
	ops = r->ops;
	r->ops = NULL;
	DENY(c, &s, "read", "{}", GW_R_RULE_ERROR, 1);
	DENY(c, &s, "mail", "{}", GW_R_RULE_ERROR, 1);
	r->ops = ops;
	ALLOW(c, &s, "read", "{}", 1);
	DENY(c, &s, "mail", "{}", GW_R_DEFAULT_BLOCK, 0);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(label_comparison_unknown_is_rule_error);
ATF_TC_BODY(label_comparison_unknown_is_rule_error, tc)
{
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_rule	*r;

	c = setup(&s, "pass label >= public\n");
	r = TAILQ_FIRST(&c->c_rules);
	ATF_REQUIRE_EQ(r->label_cmp, CMP_GE);
	r->label_cmp = CMP_IN;
	DENY(c, &s, "read", "{}", GW_R_RULE_ERROR, 1);
	r->label_cmp = CMP_GE;
	ALLOW(c, &s, "read", "{}", 1);
	free_config(c);
}

/* =, != and the orderings take exactly one value. */
ATF_TC_WITHOUT_HEAD(comparison_without_one_value_is_rule_error);
ATF_TC_BODY(comparison_without_one_value_is_rule_error, tc)
{
	static const struct {
		const char	*pred;
		int		 want;
	} t[] = {
		{ "arg \"n\" = 5", MATCH },
		{ "arg \"n\" != 5", NOMATCH },
		{ "arg \"n\" < 5", NOMATCH },
		{ "arg \"n\" >= 5", MATCH },
	};
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_pred	*p;
	struct conf_value	*v;
	size_t			 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		c = pred_setup(&s, t[i].pred);
		p = pred_first(c);
		v = p->values;
		p->nvalues = 0;
		TPRED(c, &s, t[i].pred, "{\"n\":5}", ERROR);
		TPRED(c, &s, t[i].pred, "{}", ERROR);
		p->nvalues = 2;
		TPRED(c, &s, t[i].pred, "{\"n\":5}", ERROR);
		p->nvalues = 1;
		p->values = NULL;
		TPRED(c, &s, t[i].pred, "{\"n\":5}", ERROR);
		p->values = v;
		TPRED(c, &s, t[i].pred, "{\"n\":5}", t[i].want);
		free_config(c);
	}
}

/*
 * An ordering needs a number value (the grammar has no other): the
 * value checked is the one compared, whatever lies next to it.
 */
ATF_TC_WITHOUT_HEAD(ordering_against_a_string_is_rule_error);
ATF_TC_BODY(ordering_against_a_string_is_rule_error, tc)
{
	static char		 five[] = "5";
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_pred	*p;
	struct conf_value	 vals[3], *v;

	c = pred_setup(&s, "arg \"n\" < 5");
	p = pred_first(c);
	v = p->values;
	memset(vals, 0, sizeof(vals));
	vals[0].is_number = vals[2].is_number = 1;
	vals[0].number = vals[1].number = vals[2].number = 5;
	vals[1].string = five;
	p->values = &vals[1];
	TPRED(c, &s, "arg \"n\" < \"5\"", "{\"n\":4}", ERROR);
	TPRED(c, &s, "arg \"n\" < \"5\"", "{}", ERROR);
	p->values = v;
	TPRED(c, &s, "arg \"n\" < 5", "{\"n\":4}", MATCH);
	free_config(c);
}

/* in takes one value or more, and compares those only. */
ATF_TC_WITHOUT_HEAD(in_list_inconsistent_is_rule_error);
ATF_TC_BODY(in_list_inconsistent_is_rule_error, tc)
{
	static const char	 pred[] = "arg \"v\" in { 1 2 }";
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_pred	*p;
	struct conf_value	*v;

	c = pred_setup(&s, pred);
	p = pred_first(c);
	v = p->values;
	p->nvalues = 0;
	TPRED(c, &s, pred, "{\"v\":1}", ERROR);
	TPRED(c, &s, pred, "{}", ERROR);
	p->nvalues = 2;
	p->values = NULL;
	TPRED(c, &s, pred, "{\"v\":1}", ERROR);
	TPRED(c, &s, pred, "{}", ERROR);
	p->values = v;
	p->nvalues = 1;
	TPRED(c, &s, "arg \"v\" in { 1 }", "{\"v\":1}", MATCH);
	TPRED(c, &s, "arg \"v\" in { 1 }", "{\"v\":2}", NOMATCH);
	p->nvalues = 2;
	TPRED(c, &s, pred, "{\"v\":2}", MATCH);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(predicate_operator_unknown_is_rule_error);
ATF_TC_BODY(predicate_operator_unknown_is_rule_error, tc)
{
	static const char	 pred[] = "arg \"n\" present";
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_pred	*p;

	c = pred_setup(&s, pred);
	p = pred_first(c);
	p->cmp = CMP_NONE;
	TPRED(c, &s, pred, "{\"n\":1}", ERROR);
	TPRED(c, &s, pred, "{}", ERROR);
	p->cmp = (enum conf_cmp)(CMP_ABSENT + 1);
	TPRED(c, &s, pred, "{\"n\":1}", ERROR);
	p->cmp = CMP_PRESENT;
	TPRED(c, &s, pred, "{\"n\":1}", MATCH);
	free_config(c);
}

/* A value's type is its is_number; a string value needs its string. */
ATF_TC_WITHOUT_HEAD(value_type_is_its_is_number);
ATF_TC_BODY(value_type_is_its_is_number, tc)
{
	static char		 one[] = "1";
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_pred	*p;
	char			*str;

	c = pred_setup(&s, "arg \"v\" = 1");
	p = pred_first(c);
	p->values[0].string = one;
	TPRED(c, &s, "arg \"v\" = 1", "{\"v\":\"1\"}", ERROR);
	TPRED(c, &s, "arg \"v\" = 1", "{\"v\":1}", MATCH);
	p->values[0].string = NULL;
	free_config(c);

	c = pred_setup(&s, "arg \"v\" = \"a\"");
	p = pred_first(c);
	str = p->values[0].string;
	p->values[0].string = NULL;
	TPRED(c, &s, "arg \"v\" = \"a\"", "{\"v\":\"a\"}", ERROR);
	p->values[0].string = str;
	TPRED(c, &s, "arg \"v\" = \"a\"", "{\"v\":\"a\"}", MATCH);
	free_config(c);
}

/*
 * The grammar's integers stop at -(2^63 - 1); the comparison takes any
 * long long, and -2^63 is a double, exactly.
 */
ATF_TC_WITHOUT_HEAD(number_compared_with_int64_min);
ATF_TC_BODY(number_compared_with_int64_min, tc)
{
	static const char	 pred[] = "arg \"n\" = -9223372036854775808";
	struct cmcp_conf	*c;
	struct gw_session	 s;
	struct conf_pred	*p;

	c = pred_setup(&s, "arg \"n\" = -9223372036854775807");
	p = pred_first(c);
	p->values[0].number = LLONG_MIN;
	TPRED(c, &s, pred, "{\"n\":-9223372036854775808}", MATCH);
	TPRED(c, &s, pred, "{\"n\":-9223372036854775807}", MATCH);
	TPRED(c, &s, pred, "{\"n\":-9223372036854774784}", NOMATCH);
	TPRED(c, &s, pred, "{\"n\":-1e19}", NOMATCH);
	p->cmp = CMP_LT;
	TPRED(c, &s, pred, "{\"n\":-9223372036854775808}", NOMATCH);
	TPRED(c, &s, pred, "{\"n\":-1e19}", MATCH);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(reason_strings_are_fixed);
ATF_TC_BODY(reason_strings_are_fixed, tc)
{
	static const char *const want[GW_R_MAX] = {
		"allowed", "default_block", "rule_block", "rule_error",
		"budget_exhausted", "ceiling", "revoked", "admission_closed",
		"unknown_operation", "internal_error"
	};
	static const char *const gate[GW_GATE_MAX] = {
		"ok", "stale_revision", "unknown_operation", "invalid"
	};
	int	 i;

	for (i = 0; i < GW_R_MAX; i++)
		ATF_CHECK_STREQ(gw_reason_str((enum gw_reason)i), want[i]);
	ATF_CHECK_STREQ(gw_reason_str(GW_R_MAX), "internal_error");
	for (i = 0; i < GW_GATE_MAX; i++)
		ATF_CHECK_STREQ(gw_gate_str((enum gw_gate)i), gate[i]);
	ATF_CHECK_STREQ(gw_gate_str(GW_GATE_MAX), "invalid");
}

/*
 * The parser's flags are 0 or 1, not merely true: dockerd-client's
 * template refuses a relay other than 0 or 1 (dkr_template.c), and the
 * group flags are read by the parent and printed back.
 */
static struct cmcp_conf *
conf_load_whole(const char *text)
{
	return conf_load_after("", text);
}

static const char users_but_docker[] = CONF_USERS_BUT_DOCKER;
static const char frames_agent[] = CONF_AGENT("");

ATF_TC_WITHOUT_HEAD(agent_relay_yes_parses_as_one);
ATF_TC_BODY(agent_relay_yes_parses_as_one, tc)
{
	struct cmcp_conf	*c;

	c = conf_load_whole(CONF_USERS
	    CONF_AGENT("\tprotocol mcp\n" "\trelay yes\n"));
	ATF_CHECK_EQ(c->c_agent.protocol, PROTO_MCP);
	ATF_CHECK_EQ(c->c_agent.relay, 1);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(group_number_sets_group_flags_to_one);
ATF_TC_BODY(group_number_sets_group_flags_to_one, tc)
{
	char			 text[1024];
	struct cmcp_conf	*c;

	ATF_REQUIRE(snprintf(text, sizeof(text), "%s%s%s", users_but_docker,
	    "user dockerd-client 61005:61005 group 61010\n"
	    "control socket \"/run/cmcp/ctl.sock\" group 61011\n",
	    frames_agent) < (int)sizeof(text));
	c = conf_load_whole(text);
	ATF_CHECK_EQ(c->c_users[PROC_DOCKER].has_group, 1);
	ATF_CHECK_EQ(c->c_users[PROC_DOCKER].sgid, 61010);
	ATF_CHECK_EQ(c->c_control_has_group, 1);
	ATF_CHECK_EQ(c->c_control_gid, 61011);
	free_config(c);
}

ATF_TC_WITHOUT_HEAD(group_name_sets_group_flags_to_one);
ATF_TC_BODY(group_name_sets_group_flags_to_one, tc)
{
	char			 text[1024];
	struct cmcp_conf	*c;
	struct group		*gr;

	if ((gr = getgrnam("nogroup")) == NULL || gr->gr_gid == 0)
		atf_tc_skip("this host has no nogroup group");
	ATF_REQUIRE(snprintf(text, sizeof(text), "%s%s%s", users_but_docker,
	    "user dockerd-client 61005:61005 group \"nogroup\"\n"
	    "control socket \"/run/cmcp/ctl.sock\" group \"nogroup\"\n",
	    frames_agent) < (int)sizeof(text));
	c = conf_load_whole(text);
	ATF_CHECK_EQ(c->c_users[PROC_DOCKER].has_group, 1);
	ATF_CHECK_EQ(c->c_users[PROC_DOCKER].sgid, gr->gr_gid);
	ATF_CHECK_EQ(c->c_control_has_group, 1);
	ATF_CHECK_EQ(c->c_control_gid, gr->gr_gid);
	free_config(c);
}

/*
 * A macro's name is read into a buffer of CONF_NAME_BYTES: 63 characters
 * are the longest, 64 are refused before one more byte is written (the
 * sanitized build sees a byte past the buffer).
 */
ATF_TC_WITHOUT_HEAD(macro_use_name_at_buffer_bound);
ATF_TC_BODY(macro_use_name_at_buffer_bound, tc)
{
	char			 name[CONF_NAME_BYTES + 1], text[2048];
	struct cmcp_conf	*c;
	FILE			*f;

	memset(name, 'm', CONF_NAME_BYTES - 1);
	name[CONF_NAME_BYTES - 1] = '\0';
	ATF_REQUIRE(snprintf(text, sizeof(text), "%s%s%s%s = \"/var/empty\"\n"
	    "chroot $%s\n", users_but_docker,
	    "user dockerd-client 61005:61005\n", frames_agent, name,
	    name) < (int)sizeof(text));
	c = conf_load_whole(text);
	ATF_CHECK_STREQ(c->c_chroot, "/var/empty");
	free_config(c);

	memset(name, 'm', CONF_NAME_BYTES);
	name[CONF_NAME_BYTES] = '\0';
	ATF_REQUIRE(snprintf(text, sizeof(text), "%s%s%schroot $%s\n",
	    users_but_docker, "user dockerd-client 61005:61005\n",
	    frames_agent, name) < (int)sizeof(text));
	ATF_REQUIRE((f = fopen(CONF_PATH, "w")) != NULL);
	ATF_REQUIRE(fputs(text, f) >= 0);
	ATF_REQUIRE(fclose(f) == 0);
	ATF_CHECK(parse_config(CONF_PATH) == NULL);
}

/*
 * Labels fill an array of CONF_LABELS_MAX names: that many are taken and
 * one more is refused before anything is copied past the array (the
 * sanitized build runs this too).
 */
ATF_TC_WITHOUT_HEAD(labels_at_array_bound);
ATF_TC_BODY(labels_at_array_bound, tc)
{
	char			 text[4096], list[1024];
	struct cmcp_conf	*c;
	FILE			*f;
	size_t			 i, len;

	len = 0;
	for (i = 0; i < CONF_LABELS_MAX; i++)
		len += snprintf(list + len, sizeof(list) - len, " l%zu", i);
	ATF_REQUIRE(len < sizeof(list));
	ATF_REQUIRE(snprintf(text, sizeof(text), "%s%s%slabels {%s }\n",
	    users_but_docker, "user dockerd-client 61005:61005\n",
	    frames_agent, list) < (int)sizeof(text));
	c = conf_load_whole(text);
	ATF_CHECK_EQ(c->c_nlabels, CONF_LABELS_MAX);
	ATF_CHECK_STREQ(c->c_labels[CONF_LABELS_MAX - 1], "l15");
	free_config(c);

	ATF_REQUIRE(snprintf(text, sizeof(text), "%s%s%slabels {%s l%d }\n",
	    users_but_docker, "user dockerd-client 61005:61005\n",
	    frames_agent, list, CONF_LABELS_MAX) < (int)sizeof(text));
	ATF_REQUIRE((f = fopen(CONF_PATH, "w")) != NULL);
	ATF_REQUIRE(fputs(text, f) >= 0);
	ATF_REQUIRE(fclose(f) == 0);
	ATF_CHECK(parse_config(CONF_PATH) == NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, default_block_without_rules);
	ATF_TP_ADD_TC(tp, default_block_when_no_rule_matches);
	ATF_TP_ADD_TC(tp, pass_and_all_match_every_operation);
	ATF_TP_ADD_TC(tp, block_rule_blocks);
	ATF_TP_ADD_TC(tp, last_match_wins);
	ATF_TP_ADD_TC(tp, quick_decides_at_once);
	ATF_TP_ADD_TC(tp, operation_list_matches_members_only);
	ATF_TP_ADD_TC(tp, label_predicate_at_each_label);
	ATF_TP_ADD_TC(tp, number_equality_by_value);
	ATF_TP_ADD_TC(tp, number_ordering_at_boundaries);
	ATF_TP_ADD_TC(tp, number_compared_as_its_double_at_int64_limits);
	ATF_TP_ADD_TC(tp, number_with_long_digit_runs);
	ATF_TP_ADD_TC(tp, number_out_of_range_is_internal_error);
	ATF_TP_ADD_TC(tp, rule_decides_the_number_the_server_reads);
	ATF_TP_ADD_TC(tp, string_equality_exact);
	ATF_TP_ADD_TC(tp, in_list_compares_values_of_the_same_type);
	ATF_TP_ADD_TC(tp, present_and_absent_any_value);
	ATF_TP_ADD_TC(tp, type_mismatch_is_rule_error);
	ATF_TP_ADD_TC(tp, rule_error_not_rescued_by_later_rules);
	ATF_TP_ADD_TC(tp, quick_rule_before_error_decides);
	ATF_TP_ADD_TC(tp, rule_error_only_where_rule_applies);
	ATF_TP_ADD_TC(tp, rule_error_independent_of_predicate_order);
	ATF_TP_ADD_TC(tp, budget_exhausted_after_commits);
	ATF_TP_ADD_TC(tp, budget_counts_commits_not_decisions);
	ATF_TP_ADD_TC(tp, commit_refuses_denials_and_foreign_decisions);
	ATF_TP_ADD_TC(tp, ceiling_refuses_public_sink_after_confidential_read);
	ATF_TP_ADD_TC(tp, payload_label_sets_initial_label);
	ATF_TP_ADD_TC(tp, label_never_lowers);
	ATF_TP_ADD_TC(tp, invalid_label_raises_to_highest);
	ATF_TP_ADD_TC(tp, unknown_operation_is_violation);
	ATF_TP_ADD_TC(tp, gate_revoke_then_restore);
	ATF_TP_ADD_TC(tp, gate_revoke_all_and_budget_untouched);
	ATF_TP_ADD_TC(tp, gate_stale_revision_closes_admission);
	ATF_TP_ADD_TC(tp, gate_unknown_operation_closes_admission);
	ATF_TP_ADD_TC(tp, gate_cannot_add_operation);
	ATF_TP_ADD_TC(tp, gate_restore_does_not_lift_ceiling);
	ATF_TP_ADD_TC(tp, bad_arguments_are_denied);
	ATF_TP_ADD_TC(tp, foreign_or_uninitialized_session_denied);
	ATF_TP_ADD_TC(tp, session_with_one_label_decides);
	ATF_TP_ADD_TC(tp, session_label_count_at_maximum);
	ATF_TP_ADD_TC(tp, session_init_without_labels_refused_closed);
	ATF_TP_ADD_TC(tp, session_operation_count_at_maximum);
	ATF_TP_ADD_TC(tp, operation_added_after_init_not_approved);
	ATF_TP_ADD_TC(tp, session_label_out_of_range_refused);
	ATF_TP_ADD_TC(tp, session_refused_when_label_count_differs);
	ATF_TP_ADD_TC(tp, unset_session_refused_without_configuration);
	ATF_TP_ADD_TC(tp, null_session_refused);
	ATF_TP_ADD_TC(tp, commit_refuses_altered_decision_or_session);
	ATF_TP_ADD_TC(tp, commit_counts_stop_at_uint_max);
	ATF_TP_ADD_TC(tp, gate_more_names_than_operations_invalid);
	ATF_TP_ADD_TC(tp, rule_action_unknown_is_internal_error);
	ATF_TP_ADD_TC(tp, operation_without_tool_is_internal_error);
	ATF_TP_ADD_TC(tp, tool_ceiling_out_of_range_is_internal_error);
	ATF_TP_ADD_TC(tp, rule_operation_list_missing_is_rule_error);
	ATF_TP_ADD_TC(tp, label_comparison_unknown_is_rule_error);
	ATF_TP_ADD_TC(tp, comparison_without_one_value_is_rule_error);
	ATF_TP_ADD_TC(tp, ordering_against_a_string_is_rule_error);
	ATF_TP_ADD_TC(tp, in_list_inconsistent_is_rule_error);
	ATF_TP_ADD_TC(tp, predicate_operator_unknown_is_rule_error);
	ATF_TP_ADD_TC(tp, value_type_is_its_is_number);
	ATF_TP_ADD_TC(tp, number_compared_with_int64_min);
	ATF_TP_ADD_TC(tp, reason_strings_are_fixed);
	ATF_TP_ADD_TC(tp, agent_relay_yes_parses_as_one);
	ATF_TP_ADD_TC(tp, group_number_sets_group_flags_to_one);
	ATF_TP_ADD_TC(tp, group_name_sets_group_flags_to_one);
	ATF_TP_ADD_TC(tp, macro_use_name_at_buffer_bound);
	ATF_TP_ADD_TC(tp, labels_at_array_bound);

	return atf_no_error();
}
