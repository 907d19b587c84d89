/*
 * Audit records (DESIGN 9): the fixed record every sender builds, its
 * check and its hash.  A record holds names, fixed codes and 32-byte
 * digests only; there is no field a payload or free text fits in.  The
 * store that chains and keeps them is auditor/auditdb.[ch].
 */

#ifndef CMCP_AUDITREC_H
#define CMCP_AUDITREC_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define AUDIT_NAME_BYTES	64	/* a name or code and its NUL */
#define AUDIT_DIGEST_BYTES	32	/* SHA-256 */
#define AUDIT_HEX_BYTES		(2 * AUDIT_DIGEST_BYTES + 1)
#define AUDIT_TIP_BYTES		(20 + 1 + AUDIT_HEX_BYTES)	/* seq:hex */

/* The fixed vocabulary of record kinds; 0 is never valid. */
enum audit_kind {
	AUDIT_K_SESSION_START = 1,
	AUDIT_K_SESSION_END,
	AUDIT_K_ADMISSION,
	AUDIT_K_DECISION,
	AUDIT_K_CALL_START,
	AUDIT_K_CALL_RESULT,
	AUDIT_K_LABEL_CHANGE,
	AUDIT_K_POLICY_REVISION,
	AUDIT_K_WATCHDOG,
	AUDIT_K_CONTAINER,
	AUDIT_K_VIOLATION,
	AUDIT_K_MAX
};

enum audit_decision {
	AUDIT_D_NONE = 1,
	AUDIT_D_ALLOW,
	AUDIT_D_DENY,
	AUDIT_D_MAX
};

/* The name fields, for audit_record_set(). */
enum audit_field {
	AUDIT_F_SESSION,
	AUDIT_F_OPERATION,
	AUDIT_F_TOOL,
	AUDIT_F_REASON,
	AUDIT_F_LABEL_BEFORE,
	AUDIT_F_LABEL_AFTER
};

/* ar_flags */
#define AUDIT_HAS_REQUEST	0x1
#define AUDIT_HAS_RESPONSE	0x2

/*
 * One record.  The sender fills session to response (it travels as the
 * fixed-size IMSG_AUDIT_RECORD); the store checks every field and sets
 * seq, time, prev and hash.  Names are configured names (operation, tool,
 * labels) or ids: printable ASCII without '"' and '\\', at most
 * AUDIT_NAME_BYTES - 1 long; session is never empty.  reason is a code
 * of [a-z0-9_], possibly empty.  Never copy a string that came from the
 * agent or an upstream server into a record: record its digest.
 */
struct audit_record {
	uint64_t		 ar_seq;
	int64_t			 ar_time_ms;	/* UTC, ms since the epoch */
	char			 ar_session[AUDIT_NAME_BYTES];
	enum audit_kind		 ar_kind;
	char			 ar_operation[AUDIT_NAME_BYTES];
	char			 ar_tool[AUDIT_NAME_BYTES];
	enum audit_decision	 ar_decision;
	char			 ar_reason[AUDIT_NAME_BYTES];
	char			 ar_label_before[AUDIT_NAME_BYTES];
	char			 ar_label_after[AUDIT_NAME_BYTES];
	unsigned int		 ar_flags;
	uint8_t			 ar_request[AUDIT_DIGEST_BYTES];
	uint8_t			 ar_response[AUDIT_DIGEST_BYTES];
	uint8_t			 ar_prev[AUDIT_DIGEST_BYTES];
	uint8_t			 ar_hash[AUDIT_DIGEST_BYTES];
};

/* The last record of a chain: seq 0 and the genesis hash when empty. */
struct audit_tip {
	uint64_t		 at_seq;
	uint8_t			 at_hash[AUDIT_DIGEST_BYTES];
};

/* The prev hash of record 1: 32 zero bytes. */
extern const uint8_t	 audit_genesis[AUDIT_DIGEST_BYTES];

__BEGIN_DECLS
void		 audit_record_init(struct audit_record *, enum audit_kind,
		    enum audit_decision);
int		 audit_record_set(struct audit_record *, enum audit_field,
		    const char *);
void		 audit_record_digest(struct audit_record *, unsigned int,
		    const uint8_t *);
int		 audit_record_check(const struct audit_record *);
void		 audit_record_hash(const struct audit_record *, uint8_t *);

const char	*audit_kind_name(enum audit_kind);
int		 audit_kind_authorizes(enum audit_kind);
const char	*audit_decision_name(enum audit_decision);
int		 audit_tip_parse(const char *, struct audit_tip *);
void		 audit_tip_format(const struct audit_tip *, char *, size_t);
int		 audit_unhex(const char *, size_t, uint8_t *);
__END_DECLS

#endif /* CMCP_AUDITREC_H */
