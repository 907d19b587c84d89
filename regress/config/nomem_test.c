/*
 * The configuration parser (common/parse.y) with each of its allocations
 * failed in turn: the parse fails, says so in one line, and leaks nothing,
 * no descriptor (checked here) and no memory (the ASan build, make
 * nomem-sanitize, checks the leaks).  A refused include leaves no
 * descriptor either.  Every golden
 * good-N.conf in regress/config is read once per allocation it makes, the
 * Nth failed on the Nth read, until a read makes fewer than N.
 *
 * Running out of memory at one chosen allocation cannot be produced for
 * real, so this program replaces the allocation functions, and only those:
 * it is linked with ld --wrap for each function common/parse.c calls that
 * allocates (nm -u), which redirects the parser's own calls and no others
 * (the C library's, getpwnam(3)'s among them, are untouched).  A wrapper
 * fails when its call is the one chosen and passes the call on otherwise.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "../common/count-fds.h"

#define ERR_PATH	"nomem.err"
#define ERR_BYTES	4096

static int	nomem_counting;	/* a parse is under way */
static long	nomem_at = -1;	/* the call to fail, from 0; -1: none */
static long	nomem_calls;	/* calls counted in this parse */

static int
nomem_now(void)
{
	if (!nomem_counting || nomem_calls++ != nomem_at)
		return 0;
	errno = ENOMEM;
	return 1;
}

void	*__real_malloc(size_t);
void	*__real_calloc(size_t, size_t);
void	*__real_realloc(void *, size_t);
void	*__real_reallocarray(void *, size_t, size_t);
char	*__real_strdup(const char *);
FILE	*__real_fdopen(int, const char *);
void	*__wrap_malloc(size_t);
void	*__wrap_calloc(size_t, size_t);
void	*__wrap_realloc(void *, size_t);
void	*__wrap_reallocarray(void *, size_t, size_t);
char	*__wrap_strdup(const char *);
FILE	*__wrap_fdopen(int, const char *);
int	 __wrap_asprintf(char **, const char *, ...);
int	 __wrap___asprintf_chk(char **, int, const char *, ...);

void *
__wrap_malloc(size_t n)
{
	return nomem_now() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t size)
{
	return nomem_now() ? NULL : __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return nomem_now() ? NULL : __real_realloc(p, n);
}

void *
__wrap_reallocarray(void *p, size_t n, size_t size)
{
	return nomem_now() ? NULL : __real_reallocarray(p, n, size);
}

char *
__wrap_strdup(const char *s)
{
	return nomem_now() ? NULL : __real_strdup(s);
}

FILE *
__wrap_fdopen(int fd, const char *mode)
{
	return nomem_now() ? NULL : __real_fdopen(fd, mode);
}

/* asprintf(3) fails as the C library's does: -1, *ret undefined. */
static int
nomem_vasprintf(char **ret, const char *fmt, va_list ap)
{
	if (nomem_now())
		return -1;
	return vasprintf(ret, fmt, ap);
}

int
__wrap_asprintf(char **ret, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = nomem_vasprintf(ret, fmt, ap);
	va_end(ap);
	return n;
}

/* What asprintf(3) is called as under _FORTIFY_SOURCE. */
int
__wrap___asprintf_chk(char **ret, int flag, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	(void)flag;
	va_start(ap, fmt);
	n = nomem_vasprintf(ret, fmt, ap);
	va_end(ap);
	return n;
}

/* The directory of the golden files: -v configs=DIR, else srcdir. */
static const char *
configs(const atf_tc_t *tc)
{
	if (atf_tc_has_config_var(tc, "configs"))
		return atf_tc_get_config_var(tc, "configs");
	return atf_tc_get_config_var(tc, "srcdir");
}

/*
 * One parse of path with allocation at failed (-1: none), its stderr in
 * err; returns the allocations it made.
 */
static long
parse_failing(const char *path, long at, struct cmcp_conf **c, char *err,
    size_t errlen)
{
	ssize_t	 n;
	long	 calls;
	int	 fd, saved;

	ATF_REQUIRE(fflush(stderr) == 0);
	ATF_REQUIRE((saved = dup(STDERR_FILENO)) != -1);
	ATF_REQUIRE((fd = open(ERR_PATH, O_RDWR | O_CREAT | O_TRUNC, 0600))
	    != -1);
	ATF_REQUIRE(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	nomem_calls = 0;
	nomem_at = at;
	nomem_counting = 1;
	*c = parse_config(path);
	nomem_counting = 0;
	calls = nomem_calls;
	ATF_REQUIRE(fflush(stderr) == 0);
	ATF_REQUIRE(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
	ATF_REQUIRE(close(saved) == 0);
	ATF_REQUIRE((n = pread(fd, err, errlen - 1, 0)) >= 0);
	err[n] = '\0';
	ATF_REQUIRE(close(fd) == 0);
	return calls;
}

/*
 * What a failed allocation may print: one line, with one of these
 * endings; returns its index plus one, or 0.
 */
#define NOMEM_BYACC	3	/* this and after: byacc's */
static int
nomem_line(const char *err)
{
	static const char	*const ends[] = {
		": out of memory\n",
		/* parse_config's and the top file's, as its open errors */
		": Cannot allocate memory\n",
		/* byacc's, when its stack cannot be allocated */
		": yacc stack overflow\n",
		": memory exhausted\n",
	};
	size_t			 i, len = strlen(err), elen;

	if (len == 0 || strchr(err, '\n') != err + len - 1)
		return 0;
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		elen = strlen(ends[i]);
		if (len > elen && strcmp(err + len - elen, ends[i]) == 0)
			return i + 1;
	}
	return 0;
}

/*
 * Each allocation of one file's parse failed in turn, until a parse makes
 * fewer: returns how many failed, and counts byacc's messages in *byacc.
 */
static long
sweep(const char *dir, const char *name, long *byacc)
{
	struct cmcp_conf	*c;
	char			 path[PATH_MAX], err[ERR_BYTES];
	long			 at;
	int			 kind, fds = count_fds();

	ATF_REQUIRE((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) <
	    sizeof(path));
	for (at = 0;; at++) {
		if (parse_failing(path, at, &c, err, sizeof(err)) <= at) {
			ATF_REQUIRE_MSG(c != NULL && err[0] == '\0',
			    "%s does not parse without a failure", name);
			free_config(c);
			return at;
		}
		ATF_CHECK_MSG(c == NULL, "%s: allocation %ld failed, the parse "
		    "did not", name, at);
		free_config(c);
		kind = nomem_line(err);
		ATF_CHECK_MSG(kind != 0, "%s: allocation %ld failed, the "
		    "message is not one out-of-memory line (%zu bytes)", name,
		    at, strlen(err));
		if (kind >= NOMEM_BYACC)
			(*byacc)++;
		ATF_CHECK_MSG(count_fds() == fds, "%s: allocation %ld failed, "
		    "a descriptor is left open", name, at);
	}
}

ATF_TC(every_allocation_fails_in_turn);
ATF_TC_HEAD(every_allocation_fails_in_turn, tc)
{
	atf_tc_set_md_var(tc, "descr", "every allocation of the parser's, "
	    "failed in turn while each golden good-N.conf is read, fails the "
	    "parse with one out-of-memory line");
}
ATF_TC_BODY(every_allocation_fails_in_turn, tc)
{
	DIR		*d;
	struct dirent	*de;
	const char	*dir = configs(tc);
	size_t		 len;
	long		 files = 0, calls = 0, byacc = 0;

	ATF_REQUIRE((d = opendir(dir)) != NULL);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (strncmp(de->d_name, "good-", 5) != 0 || len < 5 ||
		    strcmp(de->d_name + len - 5, ".conf") != 0)
			continue;
		calls += sweep(dir, de->d_name, &byacc);
		files++;
	}
	ATF_REQUIRE(closedir(d) == 0);
	/* The wrappers are in the way: without --wrap nothing is counted. */
	ATF_REQUIRE_MSG(files >= 10 && calls >= 10 * files,
	    "%ld files, %ld allocations", files, calls);
	/*
	 * byacc's stack is made by each parse (YY_NO_LEAKS frees it after
	 * each): a stack left half grown by a failed allocation would be
	 * written through a null pointer by the next parse.
	 */
	ATF_CHECK_MSG(byacc >= files, "%ld files, %ld failed in byacc's "
	    "stack", files, byacc);
	printf("%ld files, %ld allocations failed in turn\n", files, calls);
}

ATF_TC(refused_include_leaves_no_descriptor);
ATF_TC_HEAD(refused_include_leaves_no_descriptor, tc)
{
	atf_tc_set_md_var(tc, "descr", "each golden bad-include-*.conf, "
	    "refused, leaves no descriptor open");
}
ATF_TC_BODY(refused_include_leaves_no_descriptor, tc)
{
	DIR		*d;
	struct dirent	*de;
	struct cmcp_conf *c;
	const char	*dir = configs(tc);
	char		 path[PATH_MAX], err[ERR_BYTES];
	size_t		 len;
	long		 files = 0;
	int		 fds;

	ATF_REQUIRE((d = opendir(dir)) != NULL);
	fds = count_fds();
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (strncmp(de->d_name, "bad-include-", 12) != 0 ||
		    len < 5 || strcmp(de->d_name + len - 5, ".conf") != 0)
			continue;
		ATF_REQUIRE((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    de->d_name) < sizeof(path));
		(void)parse_failing(path, -1, &c, err, sizeof(err));
		ATF_CHECK_MSG(c == NULL && err[0] != '\0', "%s is not refused",
		    de->d_name);
		free_config(c);
		ATF_CHECK_MSG(count_fds() == fds, "%s: a descriptor is left "
		    "open", de->d_name);
		files++;
	}
	ATF_REQUIRE(closedir(d) == 0);
	ATF_REQUIRE_MSG(files >= 5, "%ld files", files);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, every_allocation_fails_in_turn);
	ATF_TP_ADD_TC(tp, refused_include_leaves_no_descriptor);
	return atf_no_error();
}
