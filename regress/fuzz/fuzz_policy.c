/*
 * libFuzzer harness for the gateway's decision core (gateway/policy.c).
 *
 * Input: one byte of session state, then the arguments document.
 *	bits 0-1	session label (3 is read as 2, the highest)
 *	bit 2		"pres" revoked by a PolicyGate update
 * The document is decided as given, and, when it is a valid JSON object,
 * in canonical form (json_validate + json_canonical, as the bridge
 * forwards it), for every operation of a fixed configuration that uses
 * every kind of predicate.  Beyond not crashing, the decisions must keep
 * these properties:
 *
 *  - a document that is not a valid object is denied as internal_error;
 *  - the canonical form is decided exactly as the document;
 *  - a decision is repeatable, never a violation for a configured
 *    operation, allowed exactly when its reason is "allowed";
 *  - complementary rules (< and >=, <= and >, = and !=, present and
 *    absent) never both pass, and both pass-or-err together: on a number
 *    exactly one passes, on another value both are rule errors, on a
 *    missing argument both fall to the default block;
 *  - the numeric order agrees with strtold() wherever rounding cannot
 *    hide it: rounding is monotonic, so a long double strictly below
 *    (above) the bound means the exact value is too;
 *  - label, ceiling and gate refusals are those the state implies.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmcp.h"
#include "config.h"
#include "json.h"
#include "policy.h"

#define NUM_TEXT_MAX	512		/* longest number checked */
#define REF_DIGITS	512		/* digits ref_cmp() writes out */

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char conf_text[] =
    "user bridge 61001:61001\n"
    "user gateway 61002:61002\n"
    "user auditor 61003:61003\n"
    "user watchdog 61004:61004\n"
    "user dockerd-client 61005:61005\n"
    "agent {\n"
    "\timage \"sha256:0123456789abcdef0123456789abcdef"
    "0123456789abcdef0123456789abcdef\"\n"
    "\tcommand \"/usr/local/bin/agent\"\n"
    "}\n"
    "server \"s\" {\n"
    "\tcommand \"/usr/local/bin/mcp\"\n"
    "}\n"
    "tool \"t\" {\n"
    "\tmcp server \"s\" tool \"t\"\n"
    "\tceiling confidential\n"
    "\tlabel internal\n"
    "}\n"
    "tool \"pub\" {\n"
    "\tmcp server \"s\" tool \"pub\"\n"
    "\tceiling public\n"
    "\tlabel public\n"
    "}\n"
    "operation \"lt\" tool \"t\"\n"
    "operation \"ge\" tool \"t\"\n"
    "operation \"le\" tool \"t\"\n"
    "operation \"gt\" tool \"t\"\n"
    "operation \"eq\" tool \"t\"\n"
    "operation \"ne\" tool \"t\"\n"
    "operation \"seq\" tool \"t\"\n"
    "operation \"sne\" tool \"t\"\n"
    "operation \"in\" tool \"t\"\n"
    "operation \"pres\" tool \"t\"\n"
    "operation \"abs\" tool \"t\"\n"
    "operation \"mix\" tool \"t\" budget 3\n"
    "operation \"sink\" tool \"pub\"\n"
    "pass quick operation \"lt\" arg \"n\" < 5\n"			/* 1 */
    "pass quick operation \"ge\" arg \"n\" >= 5\n"			/* 2 */
    "pass quick operation \"le\" arg \"n\" <= -3\n"			/* 3 */
    "pass quick operation \"gt\" arg \"n\" > -3\n"			/* 4 */
    "pass quick operation \"eq\" arg \"n\" = 9223372036854775807\n"	/* 5 */
    "pass quick operation \"ne\" arg \"n\" != 9223372036854775807\n"	/* 6 */
    "pass quick operation \"seq\" arg \"s\" = \"ab\"\n"		/* 7 */
    "pass quick operation \"sne\" arg \"s\" != \"ab\"\n"		/* 8 */
    "pass quick operation \"in\" arg \"s\" in { \"ab\", 7, \"\" }\n"	/* 9 */
    "pass quick operation \"pres\" arg \"k\" present\n"		/* 10 */
    "pass quick operation \"abs\" arg \"k\" absent\n"		/* 11 */
    "pass operation \"mix\" arg \"n\" > 0 arg \"s\" = \"x\"\n"	/* 12 */
    "block operation \"mix\" arg \"k\" present label >= internal\n"	/* 13 */
    "pass operation \"sink\" label <= internal\n";			/* 14 */

static const char *const ops[] = {
	"lt", "ge", "le", "gt", "eq", "ne", "seq", "sne", "in", "pres",
	"abs", "mix", "sink"
};
#define NOPS	(sizeof(ops) / sizeof(ops[0]))
enum { LT, GE, LE, GT, EQ, NE, SEQ, SNE, IN, PRES, ABS, MIX, SINK };

static struct cmcp_conf	*conf;
static char		 canon[AGENT_FRAME_BYTES + 1];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	 path[] = "/tmp/fuzz_policy.conf.XXXXXX";
	int	 fd;

	(void)argc;
	(void)argv;
	if ((fd = mkstemp(path)) == -1)
		abort();
	if (write(fd, conf_text, sizeof(conf_text) - 1) !=
	    (ssize_t)sizeof(conf_text) - 1 || close(fd) == -1)
		abort();
	conf = parse_config(path);
	unlink(path);
	if (conf == NULL)
		abort();
	return 0;
}

static void
session(struct gw_session *s, uint8_t state)
{
	static const char *const pres[] = { "pres" };
	int			 label = state & 3;

	if (gw_session_init(conf, s) == -1)
		abort();
	if (gw_payload_label(s, label > 2 ? 2 : label) == -1)
		abort();
	if ((state & 4) && gw_gate_update(conf, s, 1, pres, 1) != GW_GATE_OK)
		abort();
}

static void
decide_all(struct gw_session *s, const char *doc, size_t len,
    struct gw_decision *d)
{
	struct gw_decision	 again;
	size_t			 i;

	for (i = 0; i < NOPS; i++) {
		gw_decide(conf, s, ops[i], doc, len, &d[i]);
		gw_decide(conf, s, ops[i], doc, len, &again);
		if (memcmp(&d[i], &again, sizeof(again)) != 0)
			abort();
		if (d[i].violation || d[i].reason >= GW_R_MAX ||
		    d[i].allowed != (d[i].reason == GW_R_ALLOWED) ||
		    d[i].op == NULL || d[i].tool != d[i].op->tool ||
		    d[i].rule > 14)
			abort();
	}
}

static int
is(const struct gw_decision *d, enum gw_reason reason, unsigned int rule)
{
	return d->reason == reason && d->rule == rule;
}

/* What a pair of complementary rules meets. */
enum meet {
	MEET_NOTHING,		/* the argument is missing */
	MEET_VALUE,		/* a value of the rules' type */
	MEET_MISMATCH		/* a value of another type */
};

/*
 * A pair of complementary quick pass rules ra and rb: on a value of their
 * type exactly one passes, on another value both err, on nothing both
 * fall through to the default block.
 */
static void
complement(const struct gw_decision *a, const struct gw_decision *b,
    unsigned int ra, unsigned int rb, enum meet m)
{
	switch (m) {
	case MEET_NOTHING:
		if (!is(a, GW_R_DEFAULT_BLOCK, 0) ||
		    !is(b, GW_R_DEFAULT_BLOCK, 0))
			abort();
		break;
	case MEET_VALUE:
		if (!((is(a, GW_R_ALLOWED, ra) &&
		    is(b, GW_R_DEFAULT_BLOCK, 0)) ||
		    (is(a, GW_R_DEFAULT_BLOCK, 0) && is(b, GW_R_ALLOWED, rb))))
			abort();
		break;
	case MEET_MISMATCH:
		if (!is(a, GW_R_RULE_ERROR, ra) || !is(b, GW_R_RULE_ERROR, rb))
			abort();
		break;
	}
}

static enum meet
meet(enum json_type t, enum json_type want)
{
	if (t == JSON_INVALID)
		return MEET_NOTHING;
	return t == want ? MEET_VALUE : MEET_MISMATCH;
}

/* The type of the top-level member, JSON_INVALID when absent. */
static enum json_type
member(const char *doc, size_t len, const char *key, size_t *off)
{
	size_t	 it, name, value;

	it = json_skip_ws(doc, len, 0);
	while (json_member_next(doc, len, &it, &name, &value))
		if (json_string_equal(doc, len, name, key)) {
			*off = value;
			return json_type(doc, len, value);
		}
	return JSON_INVALID;
}

/*
 * A second, plain comparison of the number text t with the integer b:
 * write the number out in positional notation (its integer digits, and
 * whether any fraction digit is nonzero) and compare that as strings.
 * -2 when the number is too long to write out here.
 */
static int
ref_cmp(const char *t, long long b)
{
	char		 digits[2 * REF_DIGITS], ip[4 * REF_DIGITS];
	char		 bs[32];
	const char	*p = t, *q;
	size_t		 nd = 0, nint = 0, ni = 0, i, blen;
	long		 e = 0, point;
	int		 neg = 0, frac = 0, c, bneg = b < 0, eneg = 0;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (; *p >= '0' && *p <= '9'; p++, nint++)
		if (nd < sizeof(digits))
			digits[nd++] = *p;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (nd < sizeof(digits))
				digits[nd++] = *p;
	if (*p != '\0' && *p != 'e' && *p != 'E')
		abort();	/* json_check accepted it */
	if (nd == sizeof(digits))
		return -2;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		for (q = p; *q == '0'; q++)
			;
		if (strlen(q) > 4)
			return -2;
		e = strtol(p, NULL, 10);
		if (eneg)
			e = -e;
	}
	point = (long)nint + e;
	if (point > REF_DIGITS || point < -REF_DIGITS)
		return -2;
	/* Integer part: digits before the point, zeros past the end. */
	for (i = 0; point > 0 && i < (size_t)point; i++) {
		c = i < nd ? digits[i] : '0';
		if (ni == 0 && c == '0')
			continue;
		ip[ni++] = (char)c;
	}
	for (i = point > 0 ? (size_t)point : 0; i < nd; i++)
		if (digits[i] != '0')
			frac = 1;
	ip[ni] = '\0';

	if (ni == 0 && !frac)
		neg = 0;	/* -0 */
	snprintf(bs, sizeof(bs), "%llu", bneg ? 0ULL - (unsigned long long)b :
	    (unsigned long long)b);
	if (b == 0)
		bs[0] = '\0';
	if (ni == 0 && !frac)
		return b == 0 ? 0 : (bneg ? 1 : -1);
	if (neg != bneg)
		return neg ? -1 : 1;
	/* Same sign: compare magnitudes, then mirror for negatives. */
	blen = strlen(bs);
	if (ni != blen)
		c = ni < blen ? -1 : 1;
	else if ((c = strcmp(ip, bs)) != 0)
		c = c < 0 ? -1 : 1;
	else
		c = frac;
	return neg ? -c : c;
}

static void
check_order(const char *doc, size_t len, size_t off,
    const struct gw_decision *d)
{
	char		 text[NUM_TEXT_MAX + 1];
	long double	 v;
	size_t		 end;
	int		 c;

	end = json_value_end(doc, len, off);
	if (end <= off || end - off > NUM_TEXT_MAX)
		return;
	memcpy(text, doc + off, end - off);
	text[end - off] = '\0';
	v = strtold(text, NULL);
	if ((v < 5 && !d[LT].allowed) || (v > 5 && !d[GE].allowed))
		abort();
	if ((v < -3 && !d[LE].allowed) || (v > -3 && !d[GT].allowed))
		abort();
	/* 2^63 - 1 is exact in a long double's 64-bit significand. */
	if (v != 9223372036854775807.0L && d[EQ].allowed)
		abort();

	if ((c = ref_cmp(text, 5)) != -2 &&
	    (d[LT].allowed != (c < 0) || d[GE].allowed != (c >= 0)))
		abort();
	if ((c = ref_cmp(text, -3)) != -2 &&
	    (d[LE].allowed != (c <= 0) || d[GT].allowed != (c > 0)))
		abort();
	if ((c = ref_cmp(text, INT64_MAX)) != -2 &&
	    (d[EQ].allowed != (c == 0) || d[NE].allowed != (c != 0)))
		abort();
}

static void
check(uint8_t state, const struct gw_session *s, const char *doc,
    size_t len, const struct gw_decision *d)
{
	enum json_type	 tn, ts, tk;
	size_t		 on = 0, os = 0, ok = 0;

	tn = member(doc, len, "n", &on);
	ts = member(doc, len, "s", &os);
	tk = member(doc, len, "k", &ok);

	complement(&d[LT], &d[GE], 1, 2, meet(tn, JSON_NUMBER));
	complement(&d[LE], &d[GT], 3, 4, meet(tn, JSON_NUMBER));
	complement(&d[EQ], &d[NE], 5, 6, meet(tn, JSON_NUMBER));
	if (tn == JSON_NUMBER)
		check_order(doc, len, on, d);

	complement(&d[SEQ], &d[SNE], 7, 8, meet(ts, JSON_STRING));
	if (d[SEQ].allowed && !d[IN].allowed)
		abort();
	/* The list has strings and a number: only other types err. */
	if (is(&d[IN], GW_R_RULE_ERROR, 9) !=
	    (ts != JSON_INVALID && ts != JSON_STRING && ts != JSON_NUMBER))
		abort();

	if (state & 4) {
		if (!is(&d[PRES], GW_R_REVOKED, 0))
			abort();
	} else if (d[PRES].allowed != (tk != JSON_INVALID))
		abort();
	if (d[ABS].allowed != (tk == JSON_INVALID))
		abort();

	switch (d[MIX].reason) {
	case GW_R_ALLOWED:
		if (d[MIX].rule != 12 || tn != JSON_NUMBER ||
		    ts != JSON_STRING)
			abort();
		break;
	case GW_R_RULE_BLOCK:
		if (d[MIX].rule != 13 || tk == JSON_INVALID || s->s_label < 1)
			abort();
		break;
	case GW_R_RULE_ERROR:
		if (d[MIX].rule != 12)
			abort();
		break;
	case GW_R_DEFAULT_BLOCK:
		break;
	default:
		abort();
	}

	switch (s->s_label) {
	case 0:
		if (!is(&d[SINK], GW_R_ALLOWED, 14))
			abort();
		break;
	case 1:
		if (!is(&d[SINK], GW_R_CEILING, 14))
			abort();
		break;
	default:
		if (!is(&d[SINK], GW_R_DEFAULT_BLOCK, 0))
			abort();
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_limits	 lim = { AGENT_FRAME_BYTES, JSON_DEPTH_MAX };
	struct gw_session	 s;
	struct gw_decision	 raw[NOPS], can[NOPS], d;
	const char		*doc;
	size_t			 len, clen, i;
	uint8_t			 state;

	if (size < 1)
		return 0;
	state = data[0];
	doc = (const char *)data + 1;
	len = size - 1;
	session(&s, state);
	decide_all(&s, doc, len, raw);

	if (json_validate(doc, len, &lim, NULL) == -1 ||
	    json_type(doc, len, json_skip_ws(doc, len, 0)) != JSON_OBJECT) {
		/* The gate is checked before the arguments. */
		for (i = 0; i < NOPS; i++)
			if (!is(&raw[i], (state & 4) && i == PRES ?
			    GW_R_REVOKED : GW_R_INTERNAL, 0))
				abort();
		return 0;
	}
	if (json_canonical(doc, len, &lim, canon, sizeof(canon), &clen,
	    NULL) == -1)
		abort();
	decide_all(&s, canon, clen, can);
	if (memcmp(raw, can, sizeof(raw)) != 0)
		abort();
	check(state, &s, canon, clen, can);

	gw_decide(conf, &s, "nope", canon, clen, &d);
	if (!d.violation || !is(&d, GW_R_UNKNOWN_OP, 0))
		abort();
	/* A replayed revision closes admission for everything. */
	if (gw_gate_update(conf, &s, 0, NULL, 0) != GW_GATE_STALE)
		abort();
	for (i = 0; i < NOPS; i++) {
		gw_decide(conf, &s, ops[i], canon, clen, &d);
		if (!is(&d, GW_R_CLOSED, 0))
			abort();
	}
	return 0;
}
