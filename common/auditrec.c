/*
 * Audit records (DESIGN 9): building, checking and hashing the fixed
 * record that gateway, dockerd-client and the parent send the auditor.
 * No storage here (auditor/auditdb.c), so any process may link it.
 *
 * The hash of a record is SHA-256 over this encoding of its fields, in
 * this order, each written as a 4-byte big-endian length followed by that
 * many bytes:
 *
 *	 1. the 20 bytes "cmcp-privsep audit 1" (domain and format version)
 *	 2. seq, 8 bytes, unsigned big-endian
 *	 3. time, 8 bytes big-endian: ms since 1970-01-01 UTC
 *	 4. session		the name's bytes, without a NUL
 *	 5. kind		its name as stored, e.g. "decision"
 *	 6. operation
 *	 7. tool
 *	 8. decision		"none", "allow" or "deny"
 *	 9. reason
 *	10. label_before
 *	11. label_after
 *	12. request_sha256	the 32 digest bytes; length 0 when NULL
 *	13. response_sha256	the same
 *	14. prev_hash		32 bytes: the hash of record seq - 1
 *
 * Every field carries its length, so two different records never share
 * an encoding.  The first record's prev_hash is the genesis value, 32 zero
 * bytes.  The database stores digests and hashes as 64 lowercase hex
 * digits; anything else is not a record the store wrote.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auditrec.h"
#include "cmcp.h"
#include "sha256.h"

#define AUDIT_DOMAIN		"cmcp-privsep audit 1"
#define AUDIT_NFIELDS		14
#define AUDIT_ENC_BYTES		(AUDIT_NFIELDS * 4 + \
				    (sizeof(AUDIT_DOMAIN) - 1) + 8 + 8 + \
				    8 * (AUDIT_NAME_BYTES - 1) + \
				    3 * AUDIT_DIGEST_BYTES)

_Static_assert(AUDIT_DIGEST_BYTES == SHA256_DIGEST_BYTES &&
    AUDIT_HEX_BYTES == SHA256_HEX_BYTES, "audit digests are SHA-256");

/* The encoding of a record, filled by the audit_enc_* helpers. */
struct audit_enc {
	uint8_t			 e_buf[AUDIT_ENC_BYTES];
	size_t			 e_len;
};

static const char *const audit_kinds[AUDIT_K_MAX] = {
	[AUDIT_K_SESSION_START] = "session_start",
	[AUDIT_K_SESSION_END] = "session_end",
	[AUDIT_K_ADMISSION] = "admission",
	[AUDIT_K_DECISION] = "decision",
	[AUDIT_K_CALL_START] = "call_start",
	[AUDIT_K_CALL_RESULT] = "call_result",
	[AUDIT_K_LABEL_CHANGE] = "label_change",
	[AUDIT_K_POLICY_REVISION] = "policy_revision",
	[AUDIT_K_WATCHDOG] = "watchdog",
	[AUDIT_K_CONTAINER] = "container",
	[AUDIT_K_VIOLATION] = "violation",
};

static const char *const audit_decisions[AUDIT_D_MAX] = {
	[AUDIT_D_NONE] = "none",
	[AUDIT_D_ALLOW] = "allow",
	[AUDIT_D_DENY] = "deny",
};

const uint8_t	 audit_genesis[AUDIT_DIGEST_BYTES];

static int	 audit_name_ok(const char *, int);
static void	 audit_enc_field(struct audit_enc *, const void *, size_t);
static void	 audit_enc_u64(struct audit_enc *, uint64_t);
static void	 audit_enc_str(struct audit_enc *, const char *);

/* Start a record: all names empty, no digests. */
void
audit_record_init(struct audit_record *ar, enum audit_kind kind,
    enum audit_decision decision)
{
	memset(ar, 0, sizeof(*ar));
	ar->ar_kind = kind;
	ar->ar_decision = decision;
}

/* Set one name field; a name too long or with a foreign byte is refused. */
int
audit_record_set(struct audit_record *ar, enum audit_field f,
    const char *name)
{
	char	*dst;
	int	 code = 0;

	switch (f) {
	case AUDIT_F_SESSION:
		dst = ar->ar_session;
		break;
	case AUDIT_F_OPERATION:
		dst = ar->ar_operation;
		break;
	case AUDIT_F_TOOL:
		dst = ar->ar_tool;
		break;
	case AUDIT_F_REASON:
		dst = ar->ar_reason;
		code = 1;
		break;
	case AUDIT_F_LABEL_BEFORE:
		dst = ar->ar_label_before;
		break;
	case AUDIT_F_LABEL_AFTER:
		dst = ar->ar_label_after;
		break;
	default:
		return (-1);
	}
	if (strnlen(name, AUDIT_NAME_BYTES) == AUDIT_NAME_BYTES ||
	    audit_name_ok(name, code) == -1)
		return (-1);
	strlcpy(dst, name, AUDIT_NAME_BYTES);
	return (0);
}

/* Set the digest of the request (AUDIT_HAS_REQUEST) or the response. */
void
audit_record_digest(struct audit_record *ar, unsigned int which,
    const uint8_t *digest)
{
	if (which == AUDIT_HAS_REQUEST)
		memcpy(ar->ar_request, digest, sizeof(ar->ar_request));
	else if (which == AUDIT_HAS_RESPONSE)
		memcpy(ar->ar_response, digest, sizeof(ar->ar_response));
	else
		return;
	ar->ar_flags |= which;
}

/*
 * Is this a record audit_append() may store?  It may have arrived as
 * bytes from another process, so nothing is assumed: every name must be
 * terminated inside its array.
 */
int
audit_record_check(const struct audit_record *ar)
{
	const char	*names[] = {
		ar->ar_session, ar->ar_operation, ar->ar_tool,
		ar->ar_label_before, ar->ar_label_after
	};
	size_t		 i;

	if (ar->ar_kind <= 0 || ar->ar_kind >= AUDIT_K_MAX ||
	    ar->ar_decision <= 0 || ar->ar_decision >= AUDIT_D_MAX ||
	    (ar->ar_flags & ~(AUDIT_HAS_REQUEST | AUDIT_HAS_RESPONSE)) != 0)
		return (-1);
	for (i = 0; i < nitems(names); i++)
		if (memchr(names[i], '\0', AUDIT_NAME_BYTES) == NULL ||
		    audit_name_ok(names[i], 0) == -1)
			return (-1);
	if (memchr(ar->ar_reason, '\0', AUDIT_NAME_BYTES) == NULL ||
	    audit_name_ok(ar->ar_reason, 1) == -1 ||
	    ar->ar_session[0] == '\0')
		return (-1);
	return (0);
}

/* The hash of a checked record, over the encoding described on top. */
void
audit_record_hash(const struct audit_record *ar, uint8_t *hash)
{
	struct audit_enc	 e;

	e.e_len = 0;
	audit_enc_field(&e, AUDIT_DOMAIN, sizeof(AUDIT_DOMAIN) - 1);
	audit_enc_u64(&e, ar->ar_seq);
	audit_enc_u64(&e, (uint64_t)ar->ar_time_ms);
	audit_enc_str(&e, ar->ar_session);
	audit_enc_str(&e, audit_kind_name(ar->ar_kind));
	audit_enc_str(&e, ar->ar_operation);
	audit_enc_str(&e, ar->ar_tool);
	audit_enc_str(&e, audit_decision_name(ar->ar_decision));
	audit_enc_str(&e, ar->ar_reason);
	audit_enc_str(&e, ar->ar_label_before);
	audit_enc_str(&e, ar->ar_label_after);
	audit_enc_field(&e, ar->ar_request,
	    (ar->ar_flags & AUDIT_HAS_REQUEST) ? AUDIT_DIGEST_BYTES : 0);
	audit_enc_field(&e, ar->ar_response,
	    (ar->ar_flags & AUDIT_HAS_RESPONSE) ? AUDIT_DIGEST_BYTES : 0);
	audit_enc_field(&e, ar->ar_prev, AUDIT_DIGEST_BYTES);
	sha256(e.e_buf, e.e_len, hash);
}

const char *
audit_kind_name(enum audit_kind kind)
{
	if (kind <= 0 || kind >= AUDIT_K_MAX)
		return ("");
	return (audit_kinds[kind]);
}

/*
 * The records that authorize an act: the sender acts only once such a
 * record is on stable storage, so the auditor syncs the commit that holds
 * one (and the session's end, which closes the chain).  The others
 * describe what already happened; they are committed without a sync of
 * their own and become durable with the next synced commit.
 */
static const int audit_authorizing[AUDIT_K_MAX] = {
	[AUDIT_K_SESSION_START] =	1,	/* the session runs */
	[AUDIT_K_SESSION_END] =		1,	/* the chain's last word */
	[AUDIT_K_ADMISSION] =		1,	/* a container, a tool set */
	[AUDIT_K_DECISION] =		1,	/* a call goes upstream */
	[AUDIT_K_POLICY_REVISION] =	1,	/* a rule set is installed */
};

int
audit_kind_authorizes(enum audit_kind kind)
{
	if (kind <= 0 || kind >= AUDIT_K_MAX)
		return (0);
	return (audit_authorizing[kind]);
}

const char *
audit_decision_name(enum audit_decision decision)
{
	if (decision <= 0 || decision >= AUDIT_D_MAX)
		return ("");
	return (audit_decisions[decision]);
}

/* Parse "seq:hash" as audit_tip_format() prints it, and nothing else. */
int
audit_tip_parse(const char *s, struct audit_tip *tip)
{
	const char	*colon, *p, *errstr;
	char		 num[21];

	if ((colon = strchr(s, ':')) == NULL || colon == s ||
	    (size_t)(colon - s) >= sizeof(num))
		return (-1);
	for (p = s; p < colon; p++)
		if (*p < '0' || *p > '9')
			return (-1);
	memcpy(num, s, colon - s);
	num[colon - s] = '\0';
	tip->at_seq = strtonum(num, 0, INT64_MAX, &errstr);
	if (errstr != NULL)
		return (-1);
	if (audit_unhex(colon + 1, strlen(colon + 1), tip->at_hash) == -1)
		return (-1);
	if (tip->at_seq == 0 && memcmp(tip->at_hash, audit_genesis,
	    sizeof(audit_genesis)) != 0)
		return (-1);
	return (0);
}

void
audit_tip_format(const struct audit_tip *tip, char *buf, size_t len)
{
	char	 hex[AUDIT_HEX_BYTES];

	sha256_hex(tip->at_hash, hex);
	snprintf(buf, len, "%llu:%s", (unsigned long long)tip->at_seq, hex);
}

/*
 * Exactly 64 lowercase hex digits, so that one digest has one spelling.
 * A table, since verify decodes four digests per record.  Also used by
 * audit_tip_parse() and the store's row reader.
 */
int
audit_unhex(const char *hex, size_t len, uint8_t *d)
{
	static int8_t	 val[256];
	static int	 ready;
	size_t		 i;
	int		 c;
	int8_t		 hi, lo;

	if (!ready) {
		memset(val, -1, sizeof(val));
		for (c = 0; c < 16; c++)
			val[(unsigned char)"0123456789abcdef"[c]] = c;
		ready = 1;
	}
	if (len != 2 * AUDIT_DIGEST_BYTES)
		return (-1);
	for (i = 0; i < AUDIT_DIGEST_BYTES; i++) {
		hi = val[(unsigned char)hex[2 * i]];
		lo = val[(unsigned char)hex[2 * i + 1]];
		if ((hi | lo) < 0)
			return (-1);
		d[i] = hi << 4 | lo;
	}
	return (0);
}

/*
 * Names follow the configuration grammar (printable ASCII but '"' and
 * '\\'); codes are [a-z0-9_].  Neither leaves room for payload text.
 */
static int
audit_name_ok(const char *s, int code)
{
	for (; *s != '\0'; s++) {
		if (code) {
			if ((*s < 'a' || *s > 'z') && (*s < '0' || *s > '9') &&
			    *s != '_')
				return (-1);
		} else if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return (-1);
	}
	return (0);
}

static void
audit_enc_field(struct audit_enc *e, const void *p, size_t len)
{
	uint8_t	*b = e->e_buf + e->e_len;

	/* The sizes are bounded by the record's arrays (AUDIT_ENC_BYTES). */
	b[0] = len >> 24;
	b[1] = len >> 16;
	b[2] = len >> 8;
	b[3] = len;
	memcpy(b + 4, p, len);
	e->e_len += 4 + len;
}

static void
audit_enc_u64(struct audit_enc *e, uint64_t v)
{
	uint8_t	 b[8];
	int	 i;

	for (i = 7; i >= 0; i--) {
		b[i] = v & 0xff;
		v >>= 8;
	}
	audit_enc_field(e, b, sizeof(b));
}

static void
audit_enc_str(struct audit_enc *e, const char *s)
{
	audit_enc_field(e, s, strnlen(s, AUDIT_NAME_BYTES - 1));
}
