/*
 * The test build's dkr_template_weaken (-DCMCP_TEST): the engine's tests
 * remove one protection of a container with it and expect admission to
 * refuse what the engine then reports, so each bit must change its one
 * field and nothing else, and a body without that field must be refused
 * rather than passed on unchanged.  fixtures/fixture.h's templates.
 */

#include <sys/types.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>
#include <cjson/cJSON.h>

#include "cmcp.h"
#include "dkr.h"
#include "dkr_seccomp.h"
#include "cjtest.h"
#include "fixtures/fixture.h"

/* Replace the member at a dotted path, which must exist. */
static void
set(cJSON *root, const char *path, cJSON *v)
{
	char		 buf[256], *dot;

	ATF_REQUIRE(v != NULL);
	strlcpy(buf, path, sizeof(buf));
	ATF_REQUIRE((dot = strrchr(buf, '.')) != NULL);
	*dot = '\0';
	ATF_REQUIRE(cJSON_ReplaceItemInObjectCaseSensitive(at(root, buf),
	    dot + 1, v));
}

static cJSON *
parsed(const char *json)
{
	cJSON	*v;

	ATF_REQUIRE((v = cJSON_Parse(json)) != NULL);
	return v;
}

static char *
printed(cJSON *root)
{
	char	*s;

	ATF_REQUIRE((s = cJSON_PrintUnformatted(root)) != NULL);
	return s;
}

static cJSON *
body_of(const struct dkr_template *t)
{
	enum dkr_reason	 r;
	cJSON		*b;
	char		*s;

	ATF_REQUIRE_MSG((s = dkr_template_body(t, &r)) != NULL, "%s",
	    dkr_reason_str(r));
	b = parsed(s);
	free(s);
	return b;
}

/* root, which is consumed, weakened; NULL when weaken refused it. */
static cJSON *
weakened(cJSON *root, int weaken)
{
	cJSON	*w;
	char	*s;

	s = printed(root);
	cJSON_Delete(root);
	if ((s = dkr_template_weaken(s, weaken)) == NULL)
		return NULL;
	w = parsed(s);
	free(s);
	return w;
}

/* got, which is consumed, is want, which is consumed, member for member. */
static void
same(cJSON *got, cJSON *want, const char *what)
{
	char	*g, *w;

	ATF_REQUIRE_MSG(got != NULL, "%s: refused", what);
	g = printed(got);
	w = printed(want);
	ATF_CHECK_MSG(strcmp(g, w) == 0, "%s: not the body expected", what);
	free(g);
	free(w);
	cJSON_Delete(got);
	cJSON_Delete(want);
}

/* SecurityOpt: no-new-privileges, then seccomp (a suffix, or none), then
 * extra if not NULL. */
static cJSON *
secopt(const char *seccomp, const char *extra)
{
	cJSON	*a;
	char	*s;

	ATF_REQUIRE((a = cJSON_CreateArray()) != NULL);
	ATF_REQUIRE(cJSON_AddItemToArray(a,
	    cJSON_CreateString("no-new-privileges")));
	if (seccomp != NULL) {
		ATF_REQUIRE(asprintf(&s, "%s%s", DKR_SECCOMP_OPT, seccomp) !=
		    -1);
		ATF_REQUIRE(cJSON_AddItemToArray(a, cJSON_CreateString(s)));
		free(s);
	}
	if (extra != NULL)
		ATF_REQUIRE(cJSON_AddItemToArray(a, cJSON_CreateString(extra)));
	return a;
}

/*
 * b, which is consumed, weakened: refused, and nothing of cJSON's left
 * (but the seccomp profile that WEAKEN_SECCOMP_PLUS makes is freed with
 * free(3), out of the count).
 */
static void
refused(cJSON *b, int weaken, const char *what)
{
	cJSON_Hooks	 hooks = { alloc_counted, free_counted };
	char		*s;

	s = printed(b);
	cJSON_Delete(b);
	cJSON_InitHooks(&hooks);
	alloc_fail_at = -1;
	alloc_count = alloc_live = 0;
	s = dkr_template_weaken(s, weaken);
	cJSON_InitHooks(NULL);
	ATF_CHECK_MSG(s == NULL, "%s: not refused", what);
	ATF_CHECK_MSG((weaken & WEAKEN_SECCOMP_PLUS) || alloc_live == 0,
	    "%s: %ld left", what, alloc_live);
	free(s);
}

/* Each bit alone changes its one field; NONE is the body itself. */
ATF_TC_WITHOUT_HEAD(weaken_each_field);
ATF_TC_BODY(weaken_each_field, tc)
{
	struct dkr_template	 t;
	enum dkr_reason		 r;
	cJSON			*w;
	char			*s, *plus;

	(void)tc;
	fx_template(&t);
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_CHECK(dkr_template_weaken(s, WEAKEN_NONE) == s);
	free(s);

	w = body_of(&t);
	set(w, "HostConfig.NetworkMode", cJSON_CreateString("host"));
	same(weakened(body_of(&t), WEAKEN_NETWORK), w, "network");

	w = body_of(&t);
	set(w, "HostConfig.ReadonlyRootfs", cJSON_CreateFalse());
	same(weakened(body_of(&t), WEAKEN_ROOTFS), w, "rootfs");

	w = body_of(&t);
	set(w, "HostConfig.LogConfig.Type", cJSON_CreateString("json-file"));
	same(weakened(body_of(&t), WEAKEN_LOGS), w, "logs");

	w = body_of(&t);
	set(w, "HostConfig.Ulimits", parsed("[{\"Name\":\"core\","
	    "\"Soft\":67108864,\"Hard\":67108864},{\"Name\":\"nofile\","
	    "\"Soft\":256,\"Hard\":256},{\"Name\":\"nproc\",\"Soft\":64,"
	    "\"Hard\":64}]"));
	same(weakened(body_of(&t), WEAKEN_CORE), w, "core");

	/* no bind but cmcp-init's, which stays read-only */
	same(weakened(body_of(&t), WEAKEN_MOUNT_RW), body_of(&t), "mount rw");

	w = body_of(&t);
	set(w, "HostConfig.SecurityOpt", secopt(NULL, NULL));
	same(weakened(body_of(&t), WEAKEN_SECCOMP_DEFAULT), w,
	    "seccomp default");

	w = body_of(&t);
	set(w, "HostConfig.SecurityOpt", secopt("unconfined", NULL));
	same(weakened(body_of(&t), WEAKEN_SECCOMP_UNCONFINED), w,
	    "seccomp unconfined");

	ATF_REQUIRE((plus = dkr_seccomp_json_plus("io_uring_setup")) !=
	    NULL);
	ATF_CHECK(strcmp(plus, dkr_seccomp_profile()) != 0);
	w = body_of(&t);
	set(w, "HostConfig.SecurityOpt", secopt(plus, NULL));
	same(weakened(body_of(&t), WEAKEN_SECCOMP_PLUS), w, "seccomp plus");
	free(plus);

	w = body_of(&t);
	set(w, "HostConfig.SecurityOpt", secopt(dkr_seccomp_profile(),
	    "apparmor=unconfined"));
	same(weakened(body_of(&t), WEAKEN_APPARMOR), w, "apparmor");
}

/* A server's read-only binds made read-write, cmcp-init's not; only then. */
ATF_TC_WITHOUT_HEAD(weaken_server_mounts);
ATF_TC_BODY(weaken_server_mounts, tc)
{
	struct dkr_template	 t;
	cJSON			*w, *m;

	(void)tc;
	fx_server_template(&t);
	w = body_of(&t);
	m = at(w, "HostConfig.Mounts");
	ATF_REQUIRE_EQ(cJSON_GetArraySize(m), 3);
	ATF_REQUIRE(cJSON_ReplaceItemInObjectCaseSensitive(
	    cJSON_GetArrayItem(m, 1), "ReadOnly", cJSON_CreateFalse()));
	same(weakened(body_of(&t), WEAKEN_MOUNT_RW), w, "server mount rw");
	/* without the bit they stay as configured */
	w = body_of(&t);
	set(w, "HostConfig.NetworkMode", cJSON_CreateString("host"));
	same(weakened(body_of(&t), WEAKEN_NETWORK), w, "server network");
	/* cmcp-init's, wherever it is */
	w = body_of(&t);
	m = at(w, "HostConfig.Mounts");
	cJSON_AddItemToArray(m, cJSON_DetachItemFromArray(m, 0));
	ATF_REQUIRE(cJSON_ReplaceItemInObjectCaseSensitive(
	    cJSON_GetArrayItem(m, 0), "ReadOnly", cJSON_CreateFalse()));
	w = weakened(w, WEAKEN_MOUNT_RW);
	ATF_REQUIRE(w != NULL);
	m = at(w, "HostConfig.Mounts");
	ATF_CHECK(cJSON_IsFalse(at(cJSON_GetArrayItem(m, 0), "ReadOnly")));
	ATF_CHECK(cJSON_IsFalse(at(cJSON_GetArrayItem(m, 1), "ReadOnly")));
	ATF_CHECK(cJSON_IsTrue(at(cJSON_GetArrayItem(m, 2), "ReadOnly")));
	ATF_CHECK_STREQ(at(cJSON_GetArrayItem(m, 2), "Target")->valuestring,
	    CMCP_INIT_TARGET);
	cJSON_Delete(w);
}

/* The core entry by its name, wherever it is; the others kept. */
ATF_TC_WITHOUT_HEAD(weaken_core_by_name);
ATF_TC_BODY(weaken_core_by_name, tc)
{
	static const char *const ulimits =
	    "[{\"Name\":\"nofile\",\"Soft\":256,\"Hard\":256},"
	    "{\"Soft\":1,\"Hard\":1},{\"Name\":1,\"Soft\":1,\"Hard\":1},"
	    "{\"Name\":\"cores\",\"Soft\":0,\"Hard\":0},"
	    "{\"Name\":\"core\",\"Soft\":0,\"Hard\":0}]";
	struct dkr_template	 t;
	cJSON			*b, *w;

	(void)tc;
	fx_template(&t);
	b = body_of(&t);
	set(b, "HostConfig.Ulimits", parsed(ulimits));
	w = body_of(&t);
	set(w, "HostConfig.Ulimits", parsed(
	    "[{\"Name\":\"nofile\",\"Soft\":256,\"Hard\":256},"
	    "{\"Soft\":1,\"Hard\":1},{\"Name\":1,\"Soft\":1,\"Hard\":1},"
	    "{\"Name\":\"cores\",\"Soft\":0,\"Hard\":0},"
	    "{\"Name\":\"core\",\"Soft\":67108864,\"Hard\":67108864}]"));
	same(weakened(b, WEAKEN_CORE), w, "core last");
}

/* Bits together: unconfined over plus, AppArmor after either. */
ATF_TC_WITHOUT_HEAD(weaken_bits_combined);
ATF_TC_BODY(weaken_bits_combined, tc)
{
	struct dkr_template	 t;
	cJSON			*w;

	(void)tc;
	fx_template(&t);
	w = body_of(&t);
	set(w, "HostConfig.SecurityOpt", secopt("unconfined", NULL));
	same(weakened(body_of(&t), WEAKEN_SECCOMP_UNCONFINED |
	    WEAKEN_SECCOMP_PLUS), w, "unconfined and plus");

	w = body_of(&t);
	set(w, "HostConfig.SecurityOpt", secopt(NULL, "apparmor=unconfined"));
	same(weakened(body_of(&t), WEAKEN_SECCOMP_DEFAULT | WEAKEN_APPARMOR),
	    w, "default and apparmor");

	w = body_of(&t);
	set(w, "HostConfig.NetworkMode", cJSON_CreateString("host"));
	set(w, "HostConfig.ReadonlyRootfs", cJSON_CreateFalse());
	set(w, "HostConfig.SecurityOpt", secopt("unconfined",
	    "apparmor=unconfined"));
	same(weakened(body_of(&t), WEAKEN_NETWORK | WEAKEN_ROOTFS |
	    WEAKEN_SECCOMP_UNCONFINED | WEAKEN_APPARMOR), w, "four bits");
}

/* A bit that names no field, and a body that is not one, are refused. */
ATF_TC_WITHOUT_HEAD(weaken_unknown_refused);
ATF_TC_BODY(weaken_unknown_refused, tc)
{
	struct dkr_template	 t;
	enum dkr_reason		 r;
	char			*s;

	(void)tc;
	fx_template(&t);
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_CHECK(dkr_template_weaken(s, WEAKEN_MAX) == NULL);
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_CHECK(dkr_template_weaken(s, WEAKEN_NETWORK | WEAKEN_MAX) ==
	    NULL);
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_CHECK(dkr_template_weaken(s, INT_MIN) == NULL);
	ATF_REQUIRE((s = strdup("{\"HostConfig\":")) != NULL);
	ATF_CHECK(dkr_template_weaken(s, WEAKEN_NETWORK) == NULL);
}

/* Each bit refuses a body without its field: none passes unchanged. */
ATF_TC_WITHOUT_HEAD(weaken_missing_field_refused);
ATF_TC_BODY(weaken_missing_field_refused, tc)
{
	static const struct {
		int		 weaken;
		const char	*path;
	} missing[] = {
		{ WEAKEN_NETWORK, "HostConfig.NetworkMode" },
		{ WEAKEN_ROOTFS, "HostConfig.ReadonlyRootfs" },
		{ WEAKEN_LOGS, "HostConfig.LogConfig" },
		{ WEAKEN_LOGS, "HostConfig.LogConfig.Type" },
		{ WEAKEN_CORE, "HostConfig.Ulimits" },
		{ WEAKEN_SECCOMP_DEFAULT, "HostConfig.SecurityOpt" },
		{ WEAKEN_SECCOMP_UNCONFINED, "HostConfig.SecurityOpt" },
		{ WEAKEN_SECCOMP_PLUS, "HostConfig.SecurityOpt" },
		{ WEAKEN_APPARMOR, "HostConfig.SecurityOpt" },
		{ WEAKEN_NETWORK, "HostConfig" },
		{ WEAKEN_APPARMOR, "HostConfig" },
	};
	struct dkr_template	 t;
	cJSON			*b, *m;
	char			 buf[256], *dot;
	size_t			 i;

	(void)tc;
	fx_server_template(&t);
	for (i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		b = body_of(&t);
		strlcpy(buf, missing[i].path, sizeof(buf));
		if ((dot = strrchr(buf, '.')) != NULL) {
			*dot = '\0';
			cJSON_DeleteItemFromObjectCaseSensitive(at(b, buf),
			    dot + 1);
		} else
			cJSON_DeleteItemFromObjectCaseSensitive(b, buf);
		refused(b, missing[i].weaken, missing[i].path);
	}
	/* Ulimits without a core entry */
	b = body_of(&t);
	cJSON_DeleteItemFromArray(at(b, "HostConfig.Ulimits"), 0);
	refused(b, WEAKEN_CORE, "no core entry");
	/* core without its Soft, or its Hard */
	b = body_of(&t);
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(
	    at(b, "HostConfig.Ulimits"), 0), "Soft");
	refused(b, WEAKEN_CORE, "core without Soft");
	b = body_of(&t);
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(
	    at(b, "HostConfig.Ulimits"), 0), "Hard");
	refused(b, WEAKEN_CORE, "core without Hard");
	/* a bind without its Target, one without ReadOnly */
	b = body_of(&t);
	m = at(b, "HostConfig.Mounts");
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(m, 2),
	    "Target");
	refused(b, WEAKEN_MOUNT_RW, "bind without Target");
	b = body_of(&t);
	m = at(b, "HostConfig.Mounts");
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(m, 1),
	    "ReadOnly");
	refused(b, WEAKEN_MOUNT_RW, "bind without ReadOnly");
}

/*
 * Each allocation of weaken failed in turn, the others not: no body and
 * nothing left allocated.  But cJSON 1.7.15's replace does not check its
 * copy of the member's name: that failure leaves a member named "" (a
 * body the engine refuses) where the others leave none.  The profile
 * that WEAKEN_SECCOMP_PLUS makes is freed with free(3), out of the count.
 */
static void
weaken_alloc_fails(const struct dkr_template *t, int weaken,
    const char *what)
{
	cJSON_Hooks	 hooks = { alloc_counted, free_counted };
	enum dkr_reason	 r;
	char		*body, *s;
	long		 n, i;
	int		 counted = !(weaken & WEAKEN_SECCOMP_PLUS);

	alloc_fail_at = -1;
	ATF_REQUIRE((body = dkr_template_body(t, &r)) != NULL);
	cJSON_InitHooks(&hooks);
	alloc_count = alloc_live = 0;
	ATF_REQUIRE((s = dkr_template_weaken(strdup(body), weaken)) != NULL);
	ATF_CHECK(strstr(s, "\"\":") == NULL);
	cJSON_free(s);
	ATF_REQUIRE(!counted || alloc_live == 0);
	n = alloc_count;
	ATF_REQUIRE(n > 0);
	for (i = 0; i < n; i++) {
		alloc_fail_at = i;
		alloc_count = alloc_live = 0;
		s = dkr_template_weaken(strdup(body), weaken);
		ATF_CHECK_MSG(s == NULL || strstr(s, "\"\":") != NULL,
		    "%s: allocation %ld of %ld failed", what, i, n);
		ATF_CHECK_MSG(!counted || alloc_live == (s == NULL ? 0 : 1),
		    "%s: allocation %ld of %ld failed, %ld left", what, i, n,
		    alloc_live);
		cJSON_free(s);
	}
	cJSON_InitHooks(NULL);
	free(body);
}

ATF_TC_WITHOUT_HEAD(weaken_alloc_failure_refused);
ATF_TC_BODY(weaken_alloc_failure_refused, tc)
{
	static const struct {
		int		 weaken;
		const char	*what;
	} bits[] = {
		{ WEAKEN_NETWORK, "network" },
		{ WEAKEN_ROOTFS, "rootfs" },
		{ WEAKEN_LOGS, "logs" },
		{ WEAKEN_CORE, "core" },
		{ WEAKEN_MOUNT_RW, "mount rw" },
		{ WEAKEN_SECCOMP_DEFAULT, "seccomp default" },
		{ WEAKEN_SECCOMP_UNCONFINED, "seccomp unconfined" },
		{ WEAKEN_SECCOMP_PLUS, "seccomp plus" },
		{ WEAKEN_APPARMOR, "apparmor" },
	};
	struct dkr_template	 t;
	size_t			 i;

	(void)tc;
	fx_server_template(&t);
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		weaken_alloc_fails(&t, bits[i].weaken, bits[i].what);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, weaken_each_field);
	ATF_TP_ADD_TC(tp, weaken_server_mounts);
	ATF_TP_ADD_TC(tp, weaken_core_by_name);
	ATF_TP_ADD_TC(tp, weaken_bits_combined);
	ATF_TP_ADD_TC(tp, weaken_unknown_refused);
	ATF_TP_ADD_TC(tp, weaken_missing_field_refused);
	ATF_TP_ADD_TC(tp, weaken_alloc_failure_refused);
	return atf_no_error();
}
