/*
 * The containers' own seccomp profile (issue 15): one table of the
 * system calls the workloads need, measured (regress/docker/
 * syscalls-measure), and the JSON of Docker's profile format built from
 * it.  Not yet sent with a container: dockerd-client still leaves every
 * container on the engine's default profile.
 */

#ifndef DKR_SECCOMP_H
#define DKR_SECCOMP_H

#include <stddef.h>
#include <stdint.h>

/* The error every call outside the table gets: EPERM, not a kill. */
#define DKR_SECCOMP_ERRNO	1
/* clone3's: glibc falls back to clone, whose flags can be checked. */
#define DKR_SECCOMP_ENOSYS	38
/* clone's flags that make a namespace: none of them is allowed. */
#define DKR_SECCOMP_CLONE_NEW	0x7e020000UL
#define DKR_SECCOMP_AF_UNIX	1

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
__END_DECLS

#endif /* DKR_SECCOMP_H */
