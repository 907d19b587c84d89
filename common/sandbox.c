/*
 * Loader of the seccomp filters.  The default action kills the whole
 * process (SIGSYS), so anything a table does not name ends the child and
 * with it the suite.
 */

#include <sys/types.h>

#include <errno.h>
#include <malloc.h>
#include <seccomp.h>
#include <stddef.h>

#include "log.h"
#include "sandbox.h"

/*
 * What every child needs once in its loop (libevent on epoll, imsg on
 * socketpairs, logging through the parent or to stderr, SIGTERM through
 * libevent's signal pipe), measured with strace -ff on Debian 12 (glibc
 * 2.36, libevent 2.1.12) over start, probes, orderly shutdown, SIGTERM
 * and peer loss.  poll is the one addition: imsgbuf_flush waits with it
 * when a socket is full, which the measured runs never hit.  Memory is
 * the brk heap's alone (sandbox_heap_init()): brk grows and shrinks it,
 * and mmap, which malloc still tries when brk cannot grow, fails as out
 * of memory, so the caller reports a failed allocation instead of dying.
 */
static const struct sandbox_rule sandbox_baseline[] = {
	SB_ALLOW(epoll_wait),
	SB_ALLOW(epoll_ctl),
	SB_ALLOW(recvmsg),
	SB_ALLOW(sendmsg),
	SB_ALLOW(poll),
	SB_ALLOW(read),
	SB_ALLOW(write),
	SB_ALLOW(close),
	SB_ALLOW(rt_sigreturn),
	/* A stopped and continued process resumes a sleep through it. */
	SB_ALLOW(restart_syscall),
	SB_ALLOW(brk),
	SB_ENOMEM(mmap),
	SB_ALLOW(exit_group),
};

static void	sandbox_add(scmp_filter_ctx, const struct sandbox_rule *);

/*
 * Every child, before its first allocation: malloc serves every size
 * from the brk heap and never maps or unmaps.  Above glibc's mmap
 * threshold (128 KiB, raised at run time by each free) a buffer sized
 * from the configuration, a 1 MiB response for one, would otherwise be
 * an mmap and its free a munmap, so whether a process survives its
 * sandbox would depend on the sizes configured.  With no mmap'd chunks
 * the threshold stays fixed and the heap is trimmed past
 * M_TRIM_THRESHOLD with brk alone, without madvise.
 */
void
sandbox_heap_init(void)
{
	if (mallopt(M_MMAP_MAX, 0) != 1)
		fatalx("mallopt M_MMAP_MAX failed");
}

void
sandbox_apply(const struct ctl_init *ci, const struct sandbox_rule *rules,
    size_t nrules)
{
	scmp_filter_ctx	 ctx;
	size_t		 i;
	int		 r;

#ifdef CMCP_TEST
	if (ci->ci_nosandbox) {
		log_warnx("seccomp filter disabled (test build)");
		return;
	}
#else
	(void)ci;
#endif
	if ((ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)) == NULL)
		fatalx("seccomp_init failed");
	for (i = 0; i < nitems(sandbox_baseline); i++)
		sandbox_add(ctx, &sandbox_baseline[i]);
	for (i = 0; i < nrules; i++)
		sandbox_add(ctx, &rules[i]);
	if ((r = seccomp_load(ctx)) < 0) {
		errno = -r;
		fatal("seccomp_load");
	}
	seccomp_release(ctx);
}

/*
 * The parent's coarse filter: everything is allowed but the table, whose
 * entries kill.  It is inherited by whatever the parent starts later.
 */
void
sandbox_apply_coarse(const struct sandbox_rule *rules, size_t nrules)
{
	scmp_filter_ctx	 ctx;
	size_t		 i;
	int		 r;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		fatalx("seccomp_init failed");
	for (i = 0; i < nrules; i++)
		sandbox_add(ctx, &rules[i]);
	if ((r = seccomp_load(ctx)) < 0) {
		errno = -r;
		fatal("seccomp_load");
	}
	seccomp_release(ctx);
}

static void
sandbox_add(scmp_filter_ctx ctx, const struct sandbox_rule *sr)
{
	struct scmp_arg_cmp	 cmp;
	uint32_t		 action = SCMP_ACT_KILL_PROCESS;
	int			 r;

	switch (sr->sr_action) {
	case SANDBOX_ALLOW:
		action = SCMP_ACT_ALLOW;
		break;
	case SANDBOX_EACCES:
		action = SCMP_ACT_ERRNO(EACCES);
		break;
	case SANDBOX_ENOMEM:
		action = SCMP_ACT_ERRNO(ENOMEM);
		break;
	case SANDBOX_KILL:
		action = SCMP_ACT_KILL_PROCESS;
		break;
	}
	if (sr->sr_hasarg) {
		/* An int argument: the upper half of the register is junk. */
		cmp = SCMP_CMP(sr->sr_arg, SCMP_CMP_MASKED_EQ, 0xffffffffU,
		    sr->sr_value);
		r = seccomp_rule_add_exact_array(ctx, action, sr->sr_nr, 1,
		    &cmp);
	} else
		r = seccomp_rule_add(ctx, action, sr->sr_nr, 0);
	if (r < 0) {
		errno = -r;
		fatal("seccomp rule for %s", sr->sr_name);
	}
}
