/*
 * The containers' own seccomp profile: one table of the system calls the
 * workloads need, measured (regress/docker/syscalls-measure), the JSON
 * of Docker's profile format built from it, and the digest admission
 * compares.  dkr_template.c sends it inline in HostConfig.SecurityOpt
 * for every container kind; dkr_verify.c admits a container only when
 * the engine reports exactly it.
 */

#ifndef DKR_SECCOMP_H
#define DKR_SECCOMP_H

#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

/* The error every call outside the table gets: EPERM, not a kill. */
#define DKR_SECCOMP_ERRNO	1
/* clone3's: glibc falls back to clone, whose flags can be checked. */
#define DKR_SECCOMP_ENOSYS	38
/* clone's flags that make a namespace: none of them is allowed. */
#define DKR_SECCOMP_CLONE_NEW	0x7e020000UL
#define DKR_SECCOMP_AF_UNIX	1
/* Room for the canonical profile (about 1.6 KB today) and its NUL. */
#define DKR_SECCOMP_BYTES	8192
/* The SecurityOpt entry's prefix before the profile's JSON. */
#define DKR_SECCOMP_OPT		"seccomp="

/* How a table entry is allowed. */
enum dkr_sc_rule {
	DKR_SC_ALLOW,		/* every argument */
	DKR_SC_CLONE,		/* argument 0 without DKR_SECCOMP_CLONE_NEW */
	DKR_SC_AF_UNIX,		/* argument 0 == AF_UNIX */
	DKR_SC_ENOSYS		/* refused with ENOSYS rather than EPERM */
};

struct dkr_sc_call {
	const char	*name;
	enum dkr_sc_rule rule;
};

__BEGIN_DECLS
extern const struct dkr_sc_call dkr_sc_calls[];
extern const size_t dkr_sc_ncalls;

/*
 * The profile as one line of JSON, the same bytes for the same table
 * (malloc'd; NULL when out of memory).  log: the test build's
 * measurement profile, every call outside the table logged and allowed
 * (SCMP_ACT_LOG) instead of refused.
 */
char	*dkr_seccomp_json(int log);

/*
 * The profile every container is sent: dkr_seccomp_json(0) in its
 * canonical form (common/json.h), built once; NULL when it cannot be
 * built.  A build made with -DDKR_SECCOMP_MEASURE (make SECCOMP_MEASURE=1,
 * for regress/docker/syscalls-measure -s only) sends and admits the
 * measurement profile instead.
 */
const char *dkr_seccomp_profile(void);
/* The SHA-256 of the sent profile: 0, or -1 when it cannot be built. */
int	 dkr_seccomp_ours(uint8_t [SHA256_DIGEST_BYTES]);
/*
 * The SHA-256 of the canonical form of the profile in json[0..len):
 * 0, or -1 for JSON that is refused or does not fit DKR_SECCOMP_BYTES.
 */
int	 dkr_seccomp_digest(const char *, size_t,
	    uint8_t [SHA256_DIGEST_BYTES]);
#ifdef CMCP_TEST
/* Test build: the sent profile with name allowed too (malloc'd). */
char	*dkr_seccomp_json_plus(const char *);
#endif
__END_DECLS

#endif /* DKR_SECCOMP_H */
