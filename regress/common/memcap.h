/*
 * Memory exhaustion for the unit tests, for real: a forked child caps
 * its address space just above what it uses (memcap_limit), and may
 * take every allocation the heap can still give (memcap_exhaust), so
 * the next malloc(3) fails; its exit status is its verdict
 * (memcap_child_passes).  ASan's allocator does not live under such a
 * cap: those cases skip there (memcap_skip_under_asan).  A failure of
 * the set-up itself is exit 2 or 3 in the child.
 */

#include <sys/resource.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline size_t
memcap_vm_bytes(void)
{
	unsigned long	 pages;
	FILE		*f;

	if ((f = fopen("/proc/self/statm", "r")) == NULL)
		_exit(2);
	if (fscanf(f, "%lu", &pages) != 1)
		_exit(2);
	fclose(f);
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* The address space capped at what the child uses and more bytes. */
static inline void
memcap_limit(size_t more)
{
	struct rlimit	 rl;

	rl.rlim_cur = rl.rlim_max = memcap_vm_bytes() + more;
	if (setrlimit(RLIMIT_AS, &rl) == -1)
		_exit(2);
}

/* Every allocation the heap can still give, down to a byte's, taken. */
static inline void
memcap_exhaust(void)
{
	static const size_t	 sizes[] = { 4096, 256, 64, 16, 1 };
	size_t			 i, k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (i = 0; i < 100000000; i++)
			if (malloc(sizes[k]) == NULL)
				break;
		if (i == 100000000)
			_exit(3);
	}
}

static inline void
memcap_skip_under_asan(void)
{
#ifdef __SANITIZE_ADDRESS__
	atf_tc_skip("an address space cap and ASan do not mix");
#endif
}

/* A child's exit status is its verdict: 0 passes, anything else says why. */
static inline void
memcap_child_passes(pid_t pid)
{
	int	 status;

	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	ATF_REQUIRE_MSG(WIFEXITED(status), "child killed by signal %d",
	    WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	ATF_REQUIRE_EQ_MSG(WEXITSTATUS(status), 0, "child verdict %d",
	    WEXITSTATUS(status));
}
