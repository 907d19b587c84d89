/*
 * The gateway's decision core (DESIGN 8): PolicyGate, aliases, pf-like
 * rules, budgets, labels and sink ceilings.  Pure: no I/O, no allocation,
 * no messages, so that it can be tested and fuzzed on its own.  Nothing
 * here ever returns an argument value; a decision carries only numbers,
 * configuration pointers and a reason from a fixed vocabulary.
 *
 * How the gateway process uses it, per session:
 *
 *	gw_session_init(conf, &s);
 *	gw_payload_label(&s, label);	   after classifying the payload
 *	for each request (operation, canonical arguments):
 *		gw_decide(conf, &s, op, args, len, &d);
 *		audit d, wait for the auditor's commit;
 *		if (d.allowed && gw_commit_allowed(&s, &d) == 0)
 *			call d.tool; gw_result_label(&s, d.tool);
 *
 * Decide and commit of one request are not interleaved with another
 * request's: the budget check in gw_decide() counts committed calls only.
 *
 * A PolicyGate update from the control socket is serialized with dispatch
 * by the process, not here: on receiving one it stops taking requests off
 * the bridge channel, lets the calls already admitted (decided and
 * committed) finish, then calls gw_gate_update(), audits the result,
 * acknowledges, and resumes; the requests queued behind the update are
 * decided against the new state.
 */

#ifndef GW_POLICY_H
#define GW_POLICY_H

#include <sys/cdefs.h>

#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* The fixed vocabulary of decision reasons; gw_reason_str() names them. */
enum gw_reason {
	GW_R_ALLOWED,		/* "allowed" */
	GW_R_DEFAULT_BLOCK,	/* "default_block": no rule matched */
	GW_R_RULE_BLOCK,	/* "rule_block": the deciding rule blocks */
	GW_R_RULE_ERROR,	/* "rule_error": a rule could not be evaluated */
	GW_R_BUDGET,		/* "budget_exhausted" */
	GW_R_CEILING,		/* "ceiling": session label above the sink's */
	GW_R_REVOKED,		/* "revoked" by PolicyGate */
	GW_R_CLOSED,		/* "admission_closed" by PolicyGate */
	GW_R_UNKNOWN_OP,	/* "unknown_operation": a violation */
	GW_R_INTERNAL,		/* "internal_error": inconsistent input */
	GW_R_MAX
};

/* PolicyGate update results; gw_gate_str() names them. */
enum gw_gate {
	GW_GATE_OK,		/* "ok": installed, admission open */
	GW_GATE_STALE,		/* "stale_revision": not above the current */
	GW_GATE_UNKNOWN,	/* "unknown_operation": not approved */
	GW_GATE_INVALID,	/* "invalid": malformed update */
	GW_GATE_MAX
};

struct gw_session {
	const struct cmcp_conf *s_conf;	/* the one it was set up for */
	size_t		 s_nops;	/* operations in s_conf */
	size_t		 s_nlabels;
	int		 s_label;	/* index into c_labels; only rises */

	/* Allowed calls committed, per operation (index in c_operations). */
	unsigned int	 s_count[CONF_OPERATIONS_MAX];
	unsigned int	 s_allowed;	/* all operations */

	/* PolicyGate. */
	uint8_t		 s_approved[CONF_OPERATIONS_MAX];	/* fixed */
	uint8_t		 s_revoked[CONF_OPERATIONS_MAX];
	uint64_t	 s_revision;	/* of the installed update, 0: none */
	int		 s_closed;	/* admission closed */
};

struct gw_decision {
	int		 allowed;
	int		 violation;	/* ends the session (unknown operation) */
	enum gw_reason	 reason;
	unsigned int	 rule;		/* deciding rule's nr, 0: none */
	const struct conf_operation *op;	/* NULL when unknown */
	size_t		 opidx;		/* index of op in c_operations */
	const struct conf_tool *tool;	/* op's tool */
};

__BEGIN_DECLS
/*
 * Every configured operation approved, none revoked, revision 0,
 * admission open, label 0.  -1 when the configuration cannot be used
 * (no labels, too many operations); the session then refuses everything.
 */
int		 gw_session_init(const struct cmcp_conf *, struct gw_session *);

/*
 * Decide one request.  The operation is the agent's alias, the arguments
 * a JSON object of len bytes (need not be NUL-terminated).  Always fills
 * *out; every path but the one to "allowed" denies.  See policy.c for the
 * order of the checks and the semantics of predicates.
 */
void		 gw_decide(const struct cmcp_conf *, struct gw_session *,
		    const char *, const char *, size_t, struct gw_decision *);

/*
 * Count an allowed call once its decision record is committed.  -1 (and
 * nothing counted) when the decision is not an allow of this session or
 * the count would pass the budget: the call must then not be made.
 */
int		 gw_commit_allowed(struct gw_session *,
		    const struct gw_decision *);

/*
 * Raise the session label to the initial payload's label or to a tool
 * result's label; neither lowers it.  -1 when the label is not one of the
 * configuration's: the session label is then raised to the highest.
 */
int		 gw_payload_label(struct gw_session *, int);
int		 gw_result_label(struct gw_session *, const struct conf_tool *);

/*
 * Install a PolicyGate revision: the revoked operations are exactly the n
 * names given (so a restore is an update without the name).  Admission
 * closes first and reopens only when the update is valid: a revision above
 * the installed one, and distinct names of originally approved operations.
 * A refused update changes nothing else, so a valid newer one reopens.
 * The update can only take operations away; ceilings and labels are not
 * reachable from here.
 */
enum gw_gate	 gw_gate_update(const struct cmcp_conf *, struct gw_session *,
		    uint64_t, const char *const *, size_t);

const char	*gw_reason_str(enum gw_reason);
const char	*gw_gate_str(enum gw_gate);
__END_DECLS

#endif /* GW_POLICY_H */
