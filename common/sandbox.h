/*
 * The seccomp sandbox: each child declares one table of the system calls
 * it may make on top of the shared baseline; everything else kills the
 * process.  The parent, which must go on forking and executing, declares
 * the reverse: a coarse table of what kills it.
 */

#ifndef CMCP_SANDBOX_H
#define CMCP_SANDBOX_H

#include <seccomp.h>
#include <stdint.h>

#include "cmcp.h"

enum sandbox_action {
	SANDBOX_ALLOW,
	SANDBOX_EACCES,		/* fails with EACCES, so libc copes */
	SANDBOX_ENOMEM,		/* fails with ENOMEM: out of memory */
	SANDBOX_KILL,		/* in a coarse table: kills the process */
};

/*
 * A rule applies to every call of sr_nr, or, when sr_hasarg is set, only
 * to calls whose argument sr_arg (an int: the low 32 bits) equals
 * sr_value.  Calls a rule does not match fall to the default action.
 */
struct sandbox_rule {
	const char		*sr_name;
	int			 sr_nr;
	enum sandbox_action	 sr_action;
	int			 sr_hasarg;
	unsigned int		 sr_arg;
	uint32_t		 sr_value;
};

#define SB_ALLOW(name)	{ #name, SCMP_SYS(name), SANDBOX_ALLOW, 0, 0, 0 }
#define SB_EACCES(name)	{ #name, SCMP_SYS(name), SANDBOX_EACCES, 0, 0, 0 }
#define SB_ENOMEM(name)	{ #name, SCMP_SYS(name), SANDBOX_ENOMEM, 0, 0, 0 }
#define SB_KILL(name)	{ #name, SCMP_SYS(name), SANDBOX_KILL, 0, 0, 0 }
#define SB_ALLOW_ARG(name, arg, value)					\
	{ #name, SCMP_SYS(name), SANDBOX_ALLOW, 1, (arg), (value) }

__BEGIN_DECLS
void	 sandbox_heap_init(void);
void	 sandbox_apply(const struct ctl_init *, const struct sandbox_rule *,
	    size_t);
void	 sandbox_apply_coarse(const struct sandbox_rule *, size_t);
__END_DECLS

#endif /* CMCP_SANDBOX_H */
