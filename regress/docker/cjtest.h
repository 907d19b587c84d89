/*
 * What verify_test and weaken_test both do to the cJSON documents they
 * build: find a member by a dotted path, and count cJSON's allocations,
 * refusing the one numbered alloc_fail_at (from 0).  alloc_live is what
 * is allocated and not yet freed.  The count takes its memory from
 * libc's allocator itself, so a test may replace malloc(3); under ASan
 * malloc is ASan's.
 */

#ifndef CJTEST_H
#define CJTEST_H

#include <stdlib.h>
#include <string.h>

#include <atf-c.h>
#include <cjson/cJSON.h>

/* The member at a dotted path; the test fails when it is missing. */
static cJSON *
at(cJSON *root, const char *path)
{
	char	 buf[256], *p, *key;
	cJSON	*c = root;

	ATF_REQUIRE(strlcpy(buf, path, sizeof(buf)) < sizeof(buf));
	for (p = buf; (key = strsep(&p, ".")) != NULL; )
		ATF_REQUIRE_MSG((c = cJSON_GetObjectItemCaseSensitive(c,
		    key)) != NULL, "no %s", path);
	return c;
}

#ifndef __SANITIZE_ADDRESS__
void		*__libc_malloc(size_t);
#endif

static long	 alloc_fail_at = -1, alloc_count, alloc_live;

static void *
alloc_counted(size_t n)
{
	void	*p;

	if (alloc_count++ == alloc_fail_at)
		return NULL;
#ifdef __SANITIZE_ADDRESS__
	p = malloc(n);
#else
	p = __libc_malloc(n);
#endif
	if (p != NULL)
		alloc_live++;
	return p;
}

static void
free_counted(void *p)
{
	if (p != NULL)
		alloc_live--;
	free(p);
}

#endif
