/*
 * The gateway's decision core: see policy.h for its use.
 *
 * gw_decide() checks, in this order, and the first refusal decides:
 *
 *  1. the session belongs to this configuration (else internal_error);
 *  2. alias: an operation that is not configured is a violation
 *     (unknown_operation), checked first because it is a fault of the
 *     frame whatever the gate's state, as in the reference gateway, whose
 *     bridge refuses it before its PolicyGate;
 *  3. PolicyGate: admission closed (admission_closed), then the operation
 *     revoked (revoked);
 *  4. the arguments are one JSON object (else internal_error: the bridge
 *     sends only validated objects, so anything else is a bridge fault);
 *  5. rules, pf-like: default block; each rule in file order is matched
 *     against the operation, the session label and the arguments; the last
 *     match decides, unless a matching rule is quick, which decides at
 *     once; a rule that cannot be evaluated decides at once too, as a
 *     block (rule_error), whatever the rules after it say;
 *  6. the operation's budget: committed allowed calls below it
 *     (budget_exhausted);
 *  7. the tool's ceiling: session label not above it (ceiling).
 *
 * The decision names the deciding rule (0: none, for 1-4 and the default
 * block); a budget or ceiling refusal keeps the number of the pass rule it
 * overrides.
 *
 * Matching one rule.  A rule applies when its operation list names the
 * operation (or it has none) and its label predicate holds for the session
 * label.  Then every argument predicate is evaluated, with no short cut,
 * so that whether a rule errs does not depend on the order its predicates
 * are written in; the rule matches when all of them hold.  An argument is
 * a top-level member of the arguments object, found by its unescaped name.
 *
 *  present / absent	the member is / is not there, whatever its value.
 *  = != < <= > >= in	a missing member never satisfies them (not even
 *			!=).  The member's value must be of the type of the
 *			rule's value: a number for a number, a string for a
 *			string (the grammar allows ordering on numbers only).
 *			Any other value (a string against a number, true,
 *			false, null, an array, an object) is an evaluation
 *			error.  For in, the list's values of the member's
 *			type are compared; if the list has none, that is an
 *			error too, so "in { v }" behaves as "= v".
 *
 * Strings compare equal when their unescaped bytes are equal: "\u0061"
 * is "a"; nothing else is normalized.
 *
 * Numbers compare as the IEEE-754 double they read as, exactly: that
 * double, not the decimal text, is what the server gets (RFC 7493 2.2;
 * JavaScript, Python's float, Go's float64 all read it), so a rule must
 * decide on it.  5, 5.0, 5e0 and 50e-1 are equal, -0 is 0, and so is
 * 4.99999999999999999999, which every double parser reads as 5; 1e-400
 * is 0.  The double is compared with the rule's 64-bit integer without
 * rounding either: 9223372036854775807 reads as 2^63, above the integer
 * 9223372036854775807, and no argument equals an integer that no double
 * is (beyond 2^53, odd ones and others).  The bridge sends the arguments
 * in canonical form, whose numbers read back as the same doubles, and an
 * integer written plain there is the double's exact value, so a server
 * that keeps integers exact reads the same number too.  A number that is
 * no finite double never gets here: the document is refused before.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmcp.h"
#include "config.h"
#include "json.h"
#include "policy.h"

#define GW_TWO63	9223372036854775808.0	/* exact as a double */

static const char *const gw_reasons[GW_R_MAX] = {
	[GW_R_ALLOWED] =	"allowed",
	[GW_R_DEFAULT_BLOCK] =	"default_block",
	[GW_R_RULE_BLOCK] =	"rule_block",
	[GW_R_RULE_ERROR] =	"rule_error",
	[GW_R_BUDGET] =		"budget_exhausted",
	[GW_R_CEILING] =	"ceiling",
	[GW_R_REVOKED] =	"revoked",
	[GW_R_CLOSED] =		"admission_closed",
	[GW_R_UNKNOWN_OP] =	"unknown_operation",
	[GW_R_INTERNAL] =	"internal_error"
};

static const char *const gw_gates[GW_GATE_MAX] = {
	[GW_GATE_OK] =		"ok",
	[GW_GATE_STALE] =	"stale_revision",
	[GW_GATE_UNKNOWN] =	"unknown_operation",
	[GW_GATE_INVALID] =	"invalid"
};

static const struct conf_operation *gw_op_find(const struct cmcp_conf *,
		    const char *, size_t *);
static int	 gw_session_ok(const struct cmcp_conf *,
		    const struct gw_session *);
static void	 gw_deny(struct gw_decision *, enum gw_reason, unsigned int);
static int	 gw_rule_match(const struct conf_rule *,
		    const struct conf_operation *, int, const char *, size_t);
static int	 gw_label_cmp(enum conf_cmp, int, int);
static int	 gw_pred_eval(const struct conf_pred *, const char *, size_t);
static int	 gw_arg_find(const char *, size_t, const char *, size_t *);
static int	 gw_value_eq(const char *, size_t, size_t,
		    const struct conf_value *, int *);
static int	 gw_num_cmp(double, long long);
static void	 gw_label_raise(struct gw_session *, int);

int
gw_session_init(const struct cmcp_conf *conf, struct gw_session *s)
{
	const struct conf_operation	*op;
	size_t				 n = 0;

	memset(s, 0, sizeof(*s));
	/* Until this succeeds the session matches no configuration. */
	s->s_closed = 1;
	if (conf == NULL || conf->c_nlabels == 0 ||
	    conf->c_nlabels > CONF_LABELS_MAX)
		return -1;
	TAILQ_FOREACH(op, &conf->c_operations, entry) {
		if (n == CONF_OPERATIONS_MAX)
			return -1;
		s->s_approved[n++] = 1;
	}
	s->s_conf = conf;
	s->s_nops = n;
	s->s_nlabels = conf->c_nlabels;
	s->s_closed = 0;
	return 0;
}

void
gw_decide(const struct cmcp_conf *conf, struct gw_session *s,
    const char *operation, const char *args, size_t len,
    struct gw_decision *out)
{
	struct json_limits		 lim;
	const struct conf_operation	*op;
	const struct conf_rule		*r, *last = NULL;
	size_t				 idx;
	int				 m;

	memset(out, 0, sizeof(*out));
	gw_deny(out, GW_R_INTERNAL, 0);
	if (s == NULL || !gw_session_ok(conf, s))
		return;

	if ((op = gw_op_find(conf, operation, &idx)) == NULL) {
		gw_deny(out, GW_R_UNKNOWN_OP, 0);
		out->violation = 1;
		return;
	}
	out->op = op;
	out->opidx = idx;
	out->tool = op->tool;

	if (s->s_closed) {
		gw_deny(out, GW_R_CLOSED, 0);
		return;
	}
	if (!s->s_approved[idx] || s->s_revoked[idx]) {
		gw_deny(out, GW_R_REVOKED, 0);
		return;
	}

	/* The readers below are only meaningful on a checked document. */
	lim.max_bytes = AGENT_FRAME_BYTES;
	lim.max_depth = JSON_DEPTH_MAX;
	if (args == NULL || json_check(args, len, &lim) != JSON_OK ||
	    json_type(args, len, json_skip_ws(args, len, 0)) != JSON_OBJECT)
		return;

	TAILQ_FOREACH(r, &conf->c_rules, entry) {
		m = gw_rule_match(r, op, s->s_label, args, len);
		if (m == -1) {
			gw_deny(out, GW_R_RULE_ERROR, r->nr);
			return;
		}
		if (m == 0)
			continue;
		last = r;
		if (r->quick)
			break;
	}
	if (last == NULL) {
		gw_deny(out, GW_R_DEFAULT_BLOCK, 0);
		return;
	}
	if (last->action == RULE_BLOCK) {
		gw_deny(out, GW_R_RULE_BLOCK, last->nr);
		return;
	}
	if (last->action != RULE_PASS) {
		gw_deny(out, GW_R_INTERNAL, last->nr);
		return;
	}

	if (op->budget != 0 && s->s_count[idx] >= op->budget) {
		gw_deny(out, GW_R_BUDGET, last->nr);
		return;
	}
	if (op->tool == NULL || op->tool->ceiling < 0 ||
	    (size_t)op->tool->ceiling >= s->s_nlabels) {
		gw_deny(out, GW_R_INTERNAL, last->nr);
		return;
	}
	if (s->s_label > op->tool->ceiling) {
		gw_deny(out, GW_R_CEILING, last->nr);
		return;
	}

	out->allowed = 1;
	out->reason = GW_R_ALLOWED;
	out->rule = last->nr;
}

int
gw_commit_allowed(struct gw_session *s, const struct gw_decision *d)
{
	const struct conf_operation	*op;
	size_t				 idx;

	if (s == NULL || d == NULL || !gw_session_ok(s->s_conf, s) ||
	    !d->allowed || d->reason != GW_R_ALLOWED || d->op == NULL)
		return -1;
	/* The decision must name this session's operation at its index. */
	if (gw_op_find(s->s_conf, d->op->name, &idx) != d->op ||
	    idx != d->opidx)
		return -1;
	op = d->op;
	if (op->budget != 0 && s->s_count[idx] >= op->budget)
		return -1;
	if (s->s_count[idx] == UINT_MAX || s->s_allowed == UINT_MAX)
		return -1;
	s->s_count[idx]++;
	s->s_allowed++;
	return 0;
}

int
gw_payload_label(struct gw_session *s, int label)
{
	if (s == NULL)
		return -1;
	if (label < 0 || (size_t)label >= s->s_nlabels) {
		gw_label_raise(s, (int)s->s_nlabels - 1);
		return -1;
	}
	gw_label_raise(s, label);
	return 0;
}

int
gw_result_label(struct gw_session *s, const struct conf_tool *tool)
{
	if (s == NULL)
		return -1;
	if (tool == NULL)
		return gw_payload_label(s, -1);
	return gw_payload_label(s, tool->label);
}

enum gw_gate
gw_gate_update(const struct cmcp_conf *conf, struct gw_session *s,
    uint64_t revision, const char *const *names, size_t n)
{
	uint8_t		 revoked[CONF_OPERATIONS_MAX];
	size_t		 i, idx;

	if (s == NULL)
		return GW_GATE_INVALID;
	/* Closed first: every refusal below leaves it closed. */
	s->s_closed = 1;
	if (!gw_session_ok(conf, s))
		return GW_GATE_INVALID;
	if (revision <= s->s_revision)
		return GW_GATE_STALE;
	if (n > s->s_nops || (n > 0 && names == NULL))
		return GW_GATE_INVALID;

	memset(revoked, 0, sizeof(revoked));
	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			return GW_GATE_INVALID;
		if (gw_op_find(conf, names[i], &idx) == NULL ||
		    !s->s_approved[idx])
			return GW_GATE_UNKNOWN;
		if (revoked[idx])
			return GW_GATE_INVALID;
		revoked[idx] = 1;
	}

	memcpy(s->s_revoked, revoked, sizeof(s->s_revoked));
	s->s_revision = revision;
	s->s_closed = 0;
	return GW_GATE_OK;
}

const char *
gw_reason_str(enum gw_reason r)
{
	if ((unsigned int)r >= GW_R_MAX)
		return gw_reasons[GW_R_INTERNAL];
	return gw_reasons[r];
}

const char *
gw_gate_str(enum gw_gate g)
{
	if ((unsigned int)g >= GW_GATE_MAX)
		return gw_gates[GW_GATE_INVALID];
	return gw_gates[g];
}

/* The operation named, with its index in c_operations. */
static const struct conf_operation *
gw_op_find(const struct cmcp_conf *conf, const char *name, size_t *idx)
{
	const struct conf_operation	*op;
	size_t				 i = 0;

	if (name == NULL)
		return NULL;
	TAILQ_FOREACH(op, &conf->c_operations, entry) {
		if (strcmp(op->name, name) == 0) {
			*idx = i;
			return op;
		}
		i++;
	}
	return NULL;
}

static int
gw_session_ok(const struct cmcp_conf *conf, const struct gw_session *s)
{
	return conf != NULL && s->s_conf == conf &&
	    s->s_nlabels == conf->c_nlabels && s->s_nlabels > 0 &&
	    s->s_label >= 0 && (size_t)s->s_label < s->s_nlabels;
}

static void
gw_deny(struct gw_decision *d, enum gw_reason reason, unsigned int rule)
{
	d->allowed = 0;
	d->reason = reason;
	d->rule = rule;
}

/* 1 when the rule matches, 0 when not, -1 when it cannot be evaluated. */
static int
gw_rule_match(const struct conf_rule *r, const struct conf_operation *op,
    int label, const char *args, size_t len)
{
	const struct conf_pred	*p;
	size_t			 i;
	int			 m, all = 1;

	if (r->nops > 0) {
		if (r->ops == NULL)
			return -1;
		for (i = 0; i < r->nops; i++)
			if (r->ops[i] == op)
				break;
		if (i == r->nops)
			return 0;
	}
	if (r->label_cmp != CMP_NONE) {
		if ((m = gw_label_cmp(r->label_cmp, label, r->label)) != 1)
			return m;
	}
	TAILQ_FOREACH(p, &r->preds, entry) {
		if ((m = gw_pred_eval(p, args, len)) == -1)
			return -1;
		if (m == 0)
			all = 0;
	}
	return all;
}

static int
gw_label_cmp(enum conf_cmp cmp, int have, int want)
{
	switch (cmp) {
	case CMP_EQ:
		return have == want;
	case CMP_NE:
		return have != want;
	case CMP_LT:
		return have < want;
	case CMP_LE:
		return have <= want;
	case CMP_GT:
		return have > want;
	case CMP_GE:
		return have >= want;
	default:
		return -1;
	}
}

static int
gw_pred_eval(const struct conf_pred *p, const char *args, size_t len)
{
	size_t		 off = 0, i;
	double		 a;
	int		 found, c, eq, typed = 0;

	found = gw_arg_find(args, len, p->key, &off);
	switch (p->cmp) {
	case CMP_PRESENT:
		return found;
	case CMP_ABSENT:
		return !found;
	case CMP_EQ:
	case CMP_NE:
		if (p->nvalues != 1 || p->values == NULL)
			return -1;
		if (!found)
			return 0;
		if (gw_value_eq(args, len, off, &p->values[0], &eq) == -1)
			return -1;
		return p->cmp == CMP_EQ ? eq : !eq;
	case CMP_LT:
	case CMP_LE:
	case CMP_GT:
	case CMP_GE:
		if (p->nvalues != 1 || p->values == NULL ||
		    !p->values[0].is_number)
			return -1;
		if (!found)
			return 0;
		if (json_type(args, len, off) != JSON_NUMBER ||
		    json_number(args, len, off, &a) == -1)
			return -1;
		c = gw_num_cmp(a, p->values[0].number);
		if (p->cmp == CMP_LT)
			return c < 0;
		if (p->cmp == CMP_LE)
			return c <= 0;
		if (p->cmp == CMP_GT)
			return c > 0;
		return c >= 0;
	case CMP_IN:
		if (p->nvalues == 0 || p->values == NULL)
			return -1;
		if (!found)
			return 0;
		for (i = 0; i < p->nvalues; i++) {
			/* -1 here only means the types differ. */
			if (gw_value_eq(args, len, off, &p->values[i],
			    &eq) == -1)
				continue;
			typed = 1;
			if (eq)
				return 1;
		}
		return typed ? 0 : -1;
	default:
		return -1;
	}
}

/* 1 with the offset of the value of the top-level member key, else 0. */
static int
gw_arg_find(const char *args, size_t len, const char *key, size_t *off)
{
	size_t	 it, name, value;

	it = json_skip_ws(args, len, 0);
	while (json_member_next(args, len, &it, &name, &value))
		if (json_string_equal(args, len, name, key)) {
			*off = value;
			return 1;
		}
	return 0;
}

/*
 * *eq set to whether the value at off equals v; -1 when they are not of
 * the same type (or the number is not one).
 */
static int
gw_value_eq(const char *args, size_t len, size_t off,
    const struct conf_value *v, int *eq)
{
	double	 a;

	switch (json_type(args, len, off)) {
	case JSON_NUMBER:
		if (!v->is_number || json_number(args, len, off, &a) == -1)
			return -1;
		*eq = gw_num_cmp(a, v->number) == 0;
		return 0;
	case JSON_STRING:
		if (v->is_number || v->string == NULL)
			return -1;
		*eq = json_string_equal(args, len, off, v->string);
		return 0;
	default:
		return -1;
	}
}

/*
 * <0, 0, >0 as the finite double a is below, equal to or above b, with
 * no rounding: below 2^63 in magnitude a's integer part is exact as a
 * long long, and what is left of a is its fraction, exactly.
 */
static int
gw_num_cmp(double a, long long b)
{
	long long	 ia;
	double		 frac;

	if (a >= GW_TWO63)
		return 1;
	if (a < -GW_TWO63)
		return -1;
	ia = (long long)a;	/* toward 0; -2^63 itself is LLONG_MIN */
	if (ia != b)
		return ia < b ? -1 : 1;
	frac = a - (double)ia;
	return frac > 0 ? 1 : frac < 0 ? -1 : 0;
}

static void
gw_label_raise(struct gw_session *s, int label)
{
	if (label > s->s_label)
		s->s_label = label;
}
