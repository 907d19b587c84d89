/*
 * The gateway's side of a sandbox run (DESIGN 11); see sbcall.c.
 */

#ifndef CMCP_SBCALL_H
#define CMCP_SBCALL_H

#include <stddef.h>
#include <stdint.h>

#include "cmcp.h"

/* One run: what the caller gives (out, outmax) and what comes back. */
struct gw_sb_run {
	char		*out;		/* outmax bytes: stdout */
	size_t		 outmax;
	size_t		 outlen;	/* with COMPLETED only, else 0 */
	int		 outcome;	/* enum sandbox_outcome */
	int64_t		 status;	/* the container's, -1 unknown */
	int		 gone;		/* no container left: seen as 404 */
	int		 end;		/* enum sb_end, 0: never started */
	uint64_t	 stdout_bytes;
	uint64_t	 stderr_bytes;
	int64_t		 run_ms;
	int64_t		 total_ms;
	char		 why[SANDBOX_WHY_BYTES];	/* fixed text */
};

__BEGIN_DECLS
int		 gw_sb_source(const char *, size_t, size_t, char *, size_t,
		    size_t *);
void		 gw_sb_run(uint32_t, int64_t, const char *, size_t,
		    const char *, size_t, struct gw_sb_run *);
int		 gw_sb_result(const struct gw_sb_run *, char *, size_t,
		    size_t *);
const char	*gw_sb_outcome_str(int);
const char	*gw_sb_outcome_reason(int);
__END_DECLS

#endif /* CMCP_SBCALL_H */
