/*
 * libcurl for dockerd-client alone.  The suite is one binary that every
 * child re-executes; linking libcurl would make each of them load it and
 * its 30-odd libraries (TLS, Kerberos, LDAP...) and run their constructors,
 * which costs each child several milliseconds at every start.  Instead the
 * suite links this file, and dockerd-client loads libcurl with dlopen(3),
 * before its chroot and sandbox, through dkr_curl_load().
 *
 * The functions below carry libcurl's names and forward to the loaded
 * library, so that dkr_api.c is the same code whether it is linked with
 * -lcurl (the engine tests) or with this file (the suite).  They are not
 * exported from the executable, so libcurl never binds to them.
 */

#define CURL_DISABLE_TYPECHECK

#include <sys/types.h>

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>

#include <curl/curl.h>

#include "dkr.h"

#define DKR_CURL_LIB	"libcurl.so.4"

static struct {
	CURLcode	 (*global_init)(long);
	void		 (*global_cleanup)(void);
	CURL		*(*easy_init)(void);
	void		 (*easy_cleanup)(CURL *);
	void		 (*easy_reset)(CURL *);
	CURLcode	 (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode	 (*easy_perform)(CURL *);
	CURLcode	 (*easy_getinfo)(CURL *, CURLINFO, ...);
	char		*(*easy_escape)(CURL *, const char *, int);
	void		 (*free)(void *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void		 (*slist_free_all)(struct curl_slist *);
} dkr_curl;

static const struct {
	const char	*name;
	void		**fn;
} dkr_curl_syms[] = {
	{ "curl_global_init",	(void **)&dkr_curl.global_init },
	{ "curl_global_cleanup", (void **)&dkr_curl.global_cleanup },
	{ "curl_easy_init",	(void **)&dkr_curl.easy_init },
	{ "curl_easy_cleanup",	(void **)&dkr_curl.easy_cleanup },
	{ "curl_easy_reset",	(void **)&dkr_curl.easy_reset },
	{ "curl_easy_setopt",	(void **)&dkr_curl.easy_setopt },
	{ "curl_easy_perform",	(void **)&dkr_curl.easy_perform },
	{ "curl_easy_getinfo",	(void **)&dkr_curl.easy_getinfo },
	{ "curl_easy_escape",	(void **)&dkr_curl.easy_escape },
	{ "curl_free",		(void **)&dkr_curl.free },
	{ "curl_slist_append",	(void **)&dkr_curl.slist_append },
	{ "curl_slist_free_all", (void **)&dkr_curl.slist_free_all },
};

/* 0, or -1 when the library or one of its functions is missing. */
int
dkr_curl_load(void)
{
	void	*h;
	size_t	 i;

	if ((h = dlopen(DKR_CURL_LIB, RTLD_NOW | RTLD_LOCAL)) == NULL)
		return -1;
	for (i = 0; i < sizeof(dkr_curl_syms) / sizeof(dkr_curl_syms[0]);
	    i++)
		if ((*dkr_curl_syms[i].fn = dlsym(h,
		    dkr_curl_syms[i].name)) == NULL)
			return -1;
	return 0;
}

CURLcode
curl_global_init(long flags)
{
	if (dkr_curl.global_init == NULL)
		return CURLE_FAILED_INIT;
	return dkr_curl.global_init(flags);
}

void
curl_global_cleanup(void)
{
	dkr_curl.global_cleanup();
}

CURL *
curl_easy_init(void)
{
	if (dkr_curl.easy_init == NULL)
		return NULL;
	return dkr_curl.easy_init();
}

void
curl_easy_cleanup(CURL *cu)
{
	dkr_curl.easy_cleanup(cu);
}

void
curl_easy_reset(CURL *cu)
{
	dkr_curl.easy_reset(cu);
}

/*
 * One argument after the option, whose type the option's number range
 * names (curl.h CURLOPTTYPE_*), as libcurl itself reads it.
 */
CURLcode
curl_easy_setopt(CURL *cu, CURLoption opt, ...)
{
	va_list		 ap;
	CURLcode	 rc;

	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = dkr_curl.easy_setopt(cu, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
		rc = dkr_curl.easy_setopt(cu, opt, va_arg(ap, void *));
	else if (opt < CURLOPTTYPE_OFF_T)
		rc = dkr_curl.easy_setopt(cu, opt,
		    va_arg(ap, void (*)(void)));
	else if (opt < CURLOPTTYPE_BLOB)
		rc = dkr_curl.easy_setopt(cu, opt, va_arg(ap, curl_off_t));
	else
		rc = dkr_curl.easy_setopt(cu, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode
curl_easy_perform(CURL *cu)
{
	return dkr_curl.easy_perform(cu);
}

/* Every CURLINFO takes a pointer to where the value goes. */
CURLcode
curl_easy_getinfo(CURL *cu, CURLINFO info, ...)
{
	va_list		 ap;
	CURLcode	 rc;

	va_start(ap, info);
	rc = dkr_curl.easy_getinfo(cu, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

char *
curl_easy_escape(CURL *cu, const char *s, int len)
{
	return dkr_curl.easy_escape(cu, s, len);
}

void
curl_free(void *p)
{
	dkr_curl.free(p);
}

struct curl_slist *
curl_slist_append(struct curl_slist *l, const char *s)
{
	return dkr_curl.slist_append(l, s);
}

void
curl_slist_free_all(struct curl_slist *l)
{
	dkr_curl.slist_free_all(l);
}
