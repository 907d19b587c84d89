/*
 * Admission verifiers against real engine documents.
 *
 * fixtures/inspect-good.json is GET /containers/{id}/json of a container
 * that the private test engine created from the template below
 * (dkr_template_body), inspect-relay.json the same of one created with
 * the relay (cmcp-init -r), inspect-server.json of a server's container
 * with a read-only and a read-write bind, fixtures/image-*.json are GET
 * /images/{id}/json of the test images, version.json and info.json the
 * engine's own (fixtures/fixture.h).  Each test weakens one field of a
 * good document and expects the verifier to refuse naming that field.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>
#include <cjson/cJSON.h>

#include "dkr.h"
#include "dkr_seccomp.h"
#include "cjtest.h"
#include "fixtures/fixture.h"

static char *
slurp(const atf_tc_t *tc, const char *name, size_t *len)
{
	char		 path[1024];
	struct stat	 st;
	char		*buf;
	ssize_t		 n;
	int		 fd;

	snprintf(path, sizeof(path), "%s/fixtures/%s",
	    atf_tc_get_config_var(tc, "srcdir"), name);
	ATF_REQUIRE_MSG((fd = open(path, O_RDONLY)) != -1, "open %s", path);
	ATF_REQUIRE(fstat(fd, &st) == 0 && st.st_size > 0 &&
	    st.st_size < DKR_RESPONSE_MAX_BYTES);
	ATF_REQUIRE((buf = malloc(st.st_size + 1)) != NULL);
	ATF_REQUIRE((n = read(fd, buf, st.st_size)) == st.st_size);
	buf[n] = '\0';
	close(fd);
	*len = n;
	return buf;
}

static cJSON *
load(const atf_tc_t *tc, const char *name)
{
	cJSON	*root;
	char	*buf;
	size_t	 len;

	buf = slurp(tc, name, &len);
	ATF_REQUIRE((root = cJSON_ParseWithLength(buf, len)) != NULL);
	free(buf);
	return root;
}

/* Replace (or add) the member at a dotted path. */
static void
set(cJSON *root, const char *path, cJSON *v)
{
	char		 buf[256], *dot;
	cJSON		*parent = root;
	const char	*key = buf;

	ATF_REQUIRE(v != NULL);
	strlcpy(buf, path, sizeof(buf));
	if ((dot = strrchr(buf, '.')) != NULL) {
		*dot = '\0';
		parent = at(root, buf);
		key = dot + 1;
	}
	if (cJSON_GetObjectItemCaseSensitive(parent, key) != NULL)
		ATF_REQUIRE(cJSON_ReplaceItemInObjectCaseSensitive(parent,
		    key, v));
	else
		ATF_REQUIRE(cJSON_AddItemToObject(parent, key, v));
}

/* Replace (or add) member key of object o. */
static void
put(cJSON *o, const char *key, cJSON *v)
{
	ATF_REQUIRE(cJSON_IsObject(o) && v != NULL);
	if (cJSON_GetObjectItemCaseSensitive(o, key) != NULL)
		ATF_REQUIRE(cJSON_ReplaceItemInObjectCaseSensitive(o, key, v));
	else
		ATF_REQUIRE(cJSON_AddItemToObject(o, key, v));
}

/* The element of the array at path whose member key is the string value. */
static cJSON *
entry(cJSON *root, const char *path, const char *key, const char *value)
{
	cJSON	*e, *v;

	cJSON_ArrayForEach(e, at(root, path)) {
		v = cJSON_GetObjectItemCaseSensitive(e, key);
		if (cJSON_IsString(v) && strcmp(v->valuestring, value) == 0)
			return e;
	}
	atf_tc_fail("no %s %s in %s", key, value, path);
	return NULL;
}

static void
del(cJSON *root, const char *path)
{
	char	 buf[256], *dot;

	strlcpy(buf, path, sizeof(buf));
	ATF_REQUIRE((dot = strrchr(buf, '.')) != NULL);
	*dot = '\0';
	cJSON_DeleteItemFromObjectCaseSensitive(at(root, buf), dot + 1);
}

static cJSON *
strs(const char *a, const char *b)
{
	const char	*v[2] = { a, b };

	return cJSON_CreateStringArray(v, b == NULL ? 1 : 2);
}

static cJSON *
parsed(const char *json)
{
	cJSON	*v;

	ATF_REQUIRE((v = cJSON_Parse(json)) != NULL);
	return v;
}

/* Verify root, which is consumed, against t; id NULL: any. */
static enum dkr_reason
verify_doc_as(cJSON *root, const struct dkr_template *t, const char *id,
    char *why, size_t whylen)
{
	enum dkr_reason		 r;
	char			*s;

	ATF_REQUIRE((s = cJSON_PrintUnformatted(root)) != NULL);
	r = dkr_inspect_verify(s, strlen(s), t, id, why, whylen);
	free(s);
	cJSON_Delete(root);
	return r;
}

static enum dkr_reason
verify_doc(cJSON *root, char *why, size_t whylen)
{
	struct dkr_template	 t;

	fx_template(&t);
	return verify_doc_as(root, &t, FX_ID, why, whylen);
}

static void
refused_as(cJSON *root, const struct dkr_template *t, enum dkr_reason want)
{
	char		 why[DKR_WHY_BYTES];
	enum dkr_reason	 r;

	r = verify_doc_as(root, t, NULL, why, sizeof(why));
	ATF_CHECK_EQ_MSG(r, want, "got \"%s\", want \"%s\"", why,
	    dkr_reason_str(want));
	ATF_CHECK(strstr(why, dkr_reason_str(want)) != NULL);
}

static void
refused_with(cJSON *root, enum dkr_reason want)
{
	char		 why[DKR_WHY_BYTES];
	enum dkr_reason	 r;

	r = verify_doc(root, why, sizeof(why));
	ATF_CHECK_EQ_MSG(r, want, "got \"%s\", want \"%s\"", why,
	    dkr_reason_str(want));
	ATF_CHECK(strstr(why, dkr_reason_str(want)) != NULL);
}

/*
 * dkr_template.c: the template's own checks, each bound at the largest
 * value accepted and one past it refused, the create body whole, and a
 * failed allocation anywhere in it.
 */

/* The member at path of t's create body, printed. */
static char *
body_member(const struct dkr_template *t, const char *path)
{
	enum dkr_reason	 r;
	cJSON		*b;
	char		*s, *e;

	ATF_REQUIRE_MSG((s = dkr_template_body(t, &r)) != NULL, "%s",
	    dkr_reason_str(r));
	ATF_REQUIRE((b = cJSON_Parse(s)) != NULL);
	free(s);
	ATF_REQUIRE((e = cJSON_PrintUnformatted(at(b, path))) != NULL);
	cJSON_Delete(b);
	return e;
}

/* t's check, and its body there exactly when the check passes. */
static void
template_is(const struct dkr_template *t, enum dkr_reason want,
    const char *what)
{
	enum dkr_reason	 r;
	char		*s;

	ATF_CHECK_EQ_MSG(dkr_template_check(t), want, "%s", what);
	s = dkr_template_body(t, &r);
	ATF_CHECK_EQ_MSG(r, want, "%s: body", what);
	ATF_CHECK_MSG((s != NULL) == (want == DKR_OK), "%s: body", what);
	free(s);
}

/* A string of n copies of c after prefix, NUL-terminated, in buf. */
static char *
fill(char *buf, size_t size, const char *prefix, int c, size_t n)
{
	size_t	 p = strlen(prefix);

	ATF_REQUIRE(p + n < size);
	memcpy(buf, prefix, p);
	memset(buf + p, c, n);
	buf[p + n] = '\0';
	return buf;
}

/* The fixture's body with SecurityOpt's seccomp entry left out. */
#define FX_BODY	"{\"Image\":\"" FX_IMAGE "\",\"User\":\"10001:10001\","	\
	"\"Entrypoint\":[\"/cmcp-init\",\"-t\",\"15000\",\"--\"],"	\
	"\"Cmd\":[\"/report\"],\"Env\":[\"PATH=/bin\"],"		\
	"\"WorkingDir\":\"/\",\"AttachStdin\":true,\"AttachStdout\":true," \
	"\"AttachStderr\":true,\"OpenStdin\":true,\"StdinOnce\":true,"	\
	"\"Tty\":false,\"StopTimeout\":0,\"Labels\":{"			\
	"\"" DKR_LABEL_INSTANCE "\":\"regress\","			\
	"\"" DKR_LABEL_SESSION "\":\"fixture\","			\
	"\"" DKR_LABEL_KIND "\":\"agent\"},"				\
	"\"HostConfig\":{\"NetworkMode\":\"none\",\"ReadonlyRootfs\":true," \
	"\"Privileged\":false,\"CapDrop\":[\"ALL\"],"			\
	"\"SecurityOpt\":[\"no-new-privileges\"],"			\
	"\"PidsLimit\":32,\"Memory\":134217728,\"MemorySwap\":134217728," \
	"\"NanoCpus\":500000000,\"Ulimits\":["				\
	"{\"Name\":\"core\",\"Soft\":0,\"Hard\":0},"			\
	"{\"Name\":\"nofile\",\"Soft\":256,\"Hard\":256},"		\
	"{\"Name\":\"nproc\",\"Soft\":64,\"Hard\":64}],"		\
	"\"LogConfig\":{\"Type\":\"none\",\"Config\":{}},"		\
	"\"RestartPolicy\":{\"Name\":\"no\"},\"AutoRemove\":false,"	\
	"\"Init\":false,\"PidMode\":\"\",\"IpcMode\":\"none\","		\
	"\"UTSMode\":\"\",\"UsernsMode\":\"\",\"CgroupnsMode\":\"private\"," \
	"\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"" FX_INIT "\","	\
	"\"Target\":\"/cmcp-init\",\"ReadOnly\":true,\"BindOptions\":"	\
	"{\"Propagation\":\"rprivate\",\"NonRecursive\":true}}]}}"

/*
 * The whole create body, member by member in order: the seccomp entry
 * is our profile exactly, after no-new-privileges and nothing else.
 */
ATF_TC_WITHOUT_HEAD(template_body_exact);
ATF_TC_BODY(template_body_exact, tc)
{
	struct dkr_template	 t;
	enum dkr_reason		 r;
	cJSON			*b, *so;
	char			*s, *want;

	(void)tc;
	fx_template(&t);
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_CHECK_EQ(r, DKR_OK);
	ATF_REQUIRE((b = cJSON_Parse(s)) != NULL);
	free(s);
	so = at(b, "HostConfig.SecurityOpt");
	ATF_REQUIRE_EQ(cJSON_GetArraySize(so), 2);
	ATF_REQUIRE(dkr_seccomp_profile() != NULL);
	ATF_REQUIRE(asprintf(&want, "%s%s", DKR_SECCOMP_OPT,
	    dkr_seccomp_profile()) != -1);
	ATF_CHECK(cJSON_IsString(cJSON_GetArrayItem(so, 1)) &&
	    strcmp(cJSON_GetArrayItem(so, 1)->valuestring, want) == 0);
	free(want);
	cJSON_DeleteItemFromArray(so, 1);
	ATF_REQUIRE((s = cJSON_PrintUnformatted(b)) != NULL);
	ATF_CHECK_STREQ(s, FX_BODY);
	free(s);
	cJSON_Delete(b);
}

/* No NanoCpus for no CPU limit; the smallest limit is sent. */
ATF_TC_WITHOUT_HEAD(template_body_cpu_limit);
ATF_TC_BODY(template_body_cpu_limit, tc)
{
	struct dkr_template	 t;
	enum dkr_reason		 r;
	cJSON			*b;
	char			*s;

	(void)tc;
	fx_template(&t);
	t.nano_cpus = 0;
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_REQUIRE((b = cJSON_Parse(s)) != NULL);
	free(s);
	ATF_CHECK(cJSON_GetObjectItemCaseSensitive(at(b, "HostConfig"),
	    "NanoCpus") == NULL);
	cJSON_Delete(b);
	t.nano_cpus = 1;
	s = body_member(&t, "HostConfig.NanoCpus");
	ATF_CHECK_STREQ(s, "1");
	free(s);
}

/*
 * malloc(3) that can be made to fail: asprintf's allocations are libc's,
 * outside cJSON's hooks.  In make sanitize ASan's allocator is malloc and
 * the case is skipped.
 */
#ifndef __SANITIZE_ADDRESS__
static int	 malloc_fails;

void *
malloc(size_t n)
{
	return malloc_fails ? NULL : __libc_malloc(n);
}
#endif

/*
 * Each of the body's allocations failed in turn, the others not: no
 * body, DKR_R_JSON, and nothing left allocated.
 */
static void
body_alloc_fails(const struct dkr_template *t, const char *what)
{
	cJSON_Hooks	 hooks = { alloc_counted, free_counted };
	enum dkr_reason	 r;
	char		*s;
	long		 n, i;

	/* the profile is made once, outside the count */
	ATF_REQUIRE(dkr_seccomp_profile() != NULL);
	cJSON_InitHooks(&hooks);
	alloc_fail_at = -1;
	alloc_count = alloc_live = 0;
	ATF_REQUIRE((s = dkr_template_body(t, &r)) != NULL);
	cJSON_free(s);
	ATF_REQUIRE_EQ(alloc_live, 0);
	n = alloc_count;
	ATF_REQUIRE(n > 20);
	for (i = 0; i < n; i++) {
		alloc_fail_at = i;
		alloc_count = alloc_live = 0;
		s = dkr_template_body(t, &r);
		ATF_CHECK_MSG(s == NULL && r == DKR_R_JSON,
		    "%s: allocation %ld of %ld failed, reason %d", what, i, n,
		    r);
		ATF_CHECK_MSG(alloc_live == (s == NULL ? 0 : 1),
		    "%s: allocation %ld of %ld failed, %ld left", what, i, n,
		    alloc_live);
		cJSON_free(s);
	}
	cJSON_InitHooks(NULL);
}

ATF_TC_WITHOUT_HEAD(template_body_alloc_failure_refused);
ATF_TC_BODY(template_body_alloc_failure_refused, tc)
{
	struct dkr_template	 t;

	(void)tc;
	fx_template(&t);
	body_alloc_fails(&t, "agent");
	t.envc = 0;
	body_alloc_fails(&t, "agent, no env");
	fx_relay_template(&t);
	body_alloc_fails(&t, "relay");
	fx_server_template(&t);
	body_alloc_fails(&t, "server");
}

/* The seccomp entry that cannot be made refuses the body, leaking nothing. */
ATF_TC_WITHOUT_HEAD(template_body_secopt_failure_refused);
ATF_TC_BODY(template_body_secopt_failure_refused, tc)
{
#ifdef __SANITIZE_ADDRESS__
	(void)tc;
	atf_tc_skip("ASan's allocator is malloc(3)");
#else
	cJSON_Hooks		 hooks = { alloc_counted, free_counted };
	struct dkr_template	 t;
	enum dkr_reason		 r;
	char			*s;

	(void)tc;
	fx_template(&t);
	ATF_REQUIRE(dkr_seccomp_profile() != NULL);
	cJSON_InitHooks(&hooks);
	alloc_fail_at = -1;
	alloc_count = alloc_live = 0;
	malloc_fails = 1;
	s = dkr_template_body(&t, &r);
	malloc_fails = 0;
	cJSON_InitHooks(NULL);
	ATF_CHECK(s == NULL && r == DKR_R_JSON);
	ATF_CHECK_EQ(alloc_live, 0);
	ATF_CHECK(alloc_count > 0);
#endif
}

/* Only the full local image ID, and a container's full ID. */
ATF_TC_WITHOUT_HEAD(template_image_id_exact);
ATF_TC_BODY(template_image_id_exact, tc)
{
	struct dkr_template	 t;
	char			 buf[128];

	(void)tc;
	ATF_CHECK(dkr_image_id_valid(FX_IMAGE));
	ATF_CHECK(dkr_image_id_valid(fill(buf, sizeof(buf), "sha256:", 'f',
	    64)));
	ATF_CHECK(!dkr_image_id_valid(fill(buf, sizeof(buf), "sha256:", 'g',
	    64)));
	ATF_CHECK(!dkr_image_id_valid(fill(buf, sizeof(buf), "sha256:", 'a',
	    65)));
	ATF_CHECK(!dkr_image_id_valid(fill(buf, sizeof(buf), "sha256:", 'a',
	    63)));
	ATF_CHECK(!dkr_image_id_valid(fill(buf, sizeof(buf), "sha512:", 'a',
	    64)));
	ATF_CHECK(!dkr_image_id_valid(fill(buf, sizeof(buf), "sha256-", 'a',
	    64)));
	ATF_CHECK(dkr_container_id_valid(FX_ID));
	ATF_CHECK(!dkr_container_id_valid(fill(buf, sizeof(buf), "", 'a',
	    65)));
	ATF_CHECK(!dkr_container_id_valid(fill(buf, sizeof(buf), "", 'a',
	    63)));
	/* The template's ID fills its array; one byte more is refused. */
	fx_template(&t);
	t.image[DKR_IMAGE_ID_BYTES - 1] = '0';
	template_is(&t, DKR_R_T_IMAGE, "image unterminated");
	fx_template(&t);
	t.image[20] = 'g';
	template_is(&t, DKR_R_T_IMAGE, "image not hex");
}

/* A label of DKR_LABEL_BYTES - 1 characters, not one more. */
ATF_TC_WITHOUT_HEAD(template_label_bounds);
ATF_TC_BODY(template_label_bounds, tc)
{
	struct dkr_template	 t;
	char			 buf[DKR_LABEL_BYTES + 1];

	(void)tc;
	ATF_CHECK(dkr_label_valid(fill(buf, sizeof(buf), "", 'a',
	    DKR_LABEL_BYTES - 1)));
	ATF_CHECK(!dkr_label_valid(fill(buf, sizeof(buf), "", 'a',
	    DKR_LABEL_BYTES)));
	ATF_CHECK(!dkr_label_valid(""));
	ATF_CHECK(!dkr_label_valid("a/b"));
	fx_template(&t);
	fill(t.instance, sizeof(t.instance), "", 'i', DKR_LABEL_BYTES - 1);
	fill(t.session, sizeof(t.session), "", 's', DKR_LABEL_BYTES - 1);
	template_is(&t, DKR_OK, "labels at their maximum");
}

/* Every reason has its name; anything else is unknown, never read. */
ATF_TC_WITHOUT_HEAD(template_reason_kind_names);
ATF_TC_BODY(template_reason_kind_names, tc)
{
	int	 r;

	(void)tc;
	ATF_CHECK_STREQ(dkr_reason_str(DKR_OK), "ok");
	ATF_CHECK_STREQ(dkr_reason_str(DKR_R_JSON), "malformed document");
	ATF_CHECK_STREQ(dkr_reason_str(DKR_R_D_SECCOMP),
	    "daemon SecurityOptions");
	for (r = 0; r < DKR_R_MAX; r++)
		ATF_CHECK_MSG(strcmp(dkr_reason_str(r), "unknown") != 0,
		    "reason %d", r);
	ATF_CHECK_STREQ(dkr_reason_str(DKR_R_MAX), "unknown");
	ATF_CHECK_STREQ(dkr_reason_str((enum dkr_reason)-1), "unknown");
	ATF_CHECK_STREQ(dkr_reason_str((enum dkr_reason)INT_MAX), "unknown");
	ATF_CHECK_STREQ(dkr_reason_str((enum dkr_reason)INT_MIN), "unknown");
	ATF_CHECK_STREQ(dkr_kind_str(DKR_KIND_AGENT), "agent");
	ATF_CHECK_STREQ(dkr_kind_str(DKR_KIND_SANDBOX), "sandbox");
	ATF_CHECK_STREQ(dkr_kind_str(DKR_KIND_SERVER), "server");
	ATF_CHECK(dkr_kind_str(DKR_KIND_MAX) == NULL);
	ATF_CHECK(dkr_kind_str(-1) == NULL);
	ATF_CHECK(dkr_kind_str(INT_MAX) == NULL);
	ATF_CHECK(dkr_kind_str(INT_MIN) == NULL);
}

/*
 * The workload's argv: DKR_ARGV_MAX arguments, each of printable ASCII
 * and DKR_ARG_BYTES - 1 bytes at most, none empty; one defect each.
 */
ATF_TC_WITHOUT_HEAD(template_argv_bounds);
ATF_TC_BODY(template_argv_bounds, tc)
{
	static const char *const good[] = { "x", "a b", "a~", " ", "~" };
	static const char *const bad[] = { "", "a\x1f", "a\x7f", "\tx",
	    "a\n", "\x80" };
	struct dkr_template	 t;
	char			*s;
	size_t			 i;

	(void)tc;
	fx_template(&t);
	for (i = 0; i < DKR_ARGV_MAX; i++)
		snprintf(t.argv[i], sizeof(t.argv[i]), "/arg%zu", i);
	t.argc = DKR_ARGV_MAX;
	template_is(&t, DKR_OK, "argc at its maximum");
	s = body_member(&t, "Cmd");
	ATF_CHECK(strstr(s, "\"/arg0\",") == s + 1);
	ATF_CHECK(strstr(s, ",\"/arg15\"]") != NULL);
	free(s);
	t.argc = 0;
	template_is(&t, DKR_R_T_ARGV, "argc 0");

	fx_template(&t);
	t.argc = 2;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		strlcpy(t.argv[1], good[i], sizeof(t.argv[1]));
		template_is(&t, DKR_OK, good[i]);
	}
	fill(t.argv[1], sizeof(t.argv[1]), "", 'a', DKR_ARG_BYTES - 1);
	template_is(&t, DKR_OK, "argument at its maximum");
	t.argv[1][DKR_ARG_BYTES - 1] = 'a';
	template_is(&t, DKR_R_T_ARGV, "argument unterminated");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_template(&t);
		t.argc = 2;
		strlcpy(t.argv[1], bad[i], sizeof(t.argv[1]));
		template_is(&t, DKR_R_T_ARGV, "bad argument");
	}
	/* The first argument is checked as the others are. */
	fx_template(&t);
	strlcpy(t.argv[0], "/rep\tort", sizeof(t.argv[0]));
	template_is(&t, DKR_R_T_ARGV, "argv[0] with a tab");
	fill(t.argv[0], sizeof(t.argv[0]), "/", 'a', DKR_ARG_BYTES - 2);
	template_is(&t, DKR_OK, "argv[0] at its maximum");
	t.argv[0][DKR_ARG_BYTES - 1] = 'a';
	template_is(&t, DKR_R_T_ARGV, "argv[0] unterminated");
}

/* cmcp-init's host path: absolute, printable, held in its array. */
ATF_TC_WITHOUT_HEAD(template_init_path_bounds);
ATF_TC_BODY(template_init_path_bounds, tc)
{
	struct dkr_template	 t;
	char			*s, want[512];

	(void)tc;
	fx_template(&t);
	fill(t.init_path, sizeof(t.init_path), "/", 'i', DKR_PATH_BYTES - 2);
	template_is(&t, DKR_OK, "init path at its maximum");
	snprintf(want, sizeof(want), "[{\"Type\":\"bind\",\"Source\":"
	    "\"%s\",\"Target\":\"/cmcp-init\",\"ReadOnly\":true,"
	    "\"BindOptions\":{\"Propagation\":\"rprivate\","
	    "\"NonRecursive\":true}}]", t.init_path);
	s = body_member(&t, "HostConfig.Mounts");
	ATF_CHECK_STREQ(s, want);
	free(s);
	t.init_path[DKR_PATH_BYTES - 1] = 'i';
	template_is(&t, DKR_R_T_INIT, "init path unterminated");
	fx_template(&t);
	strlcpy(t.init_path, "/cmcp\tinit", sizeof(t.init_path));
	template_is(&t, DKR_R_T_INIT, "init path with a tab");
}

/*
 * The environment: DKR_ENV_MAX entries of NAME=value, each of printable
 * ASCII and DKR_ARG_BYTES - 1 bytes at most.  One past the last entry is
 * the uid and gid: here they are bytes that would pass for one.
 */
ATF_TC_WITHOUT_HEAD(template_env_bounds);
ATF_TC_BODY(template_env_bounds, tc)
{
	static const char *const bad[] = { "PATH", "", "=x", "A=\x01",
	    "A=\x7f" };
	struct dkr_template	 t;
	char			*s;
	size_t			 i;

	(void)tc;
	fx_template(&t);
	for (i = 0; i < DKR_ENV_MAX; i++)
		snprintf(t.env[i], sizeof(t.env[i]), "V%zu=%zu", i, i);
	t.envc = DKR_ENV_MAX;
	template_is(&t, DKR_OK, "envc at its maximum");
	s = body_member(&t, "Env");
	ATF_CHECK_STREQ(s, "[\"V0=0\",\"V1=1\",\"V2=2\",\"V3=3\",\"V4=4\","
	    "\"V5=5\",\"V6=6\",\"V7=7\"]");
	free(s);
	t.uid = 0x41414141;	/* "AAAA" */
	t.gid = 0x3d3d3d3d;	/* "====" */
	template_is(&t, DKR_OK, "uid and gid as text");
	t.envc = DKR_ENV_MAX + 1;
	template_is(&t, DKR_R_T_ENV, "envc past its maximum");

	fx_template(&t);
	strlcpy(t.env[0], "A=", sizeof(t.env[0]));
	template_is(&t, DKR_OK, "empty value");
	fill(t.env[0], sizeof(t.env[0]), "A=", 'a', DKR_ARG_BYTES - 3);
	template_is(&t, DKR_OK, "entry at its maximum");
	t.env[0][DKR_ARG_BYTES - 1] = 'a';
	template_is(&t, DKR_R_T_ENV, "entry unterminated");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_template(&t);
		strlcpy(t.env[0], bad[i], sizeof(t.env[0]));
		template_is(&t, DKR_R_T_ENV, "bad entry");
	}
	/* the last entry as the first */
	fx_template(&t);
	t.envc = 2;
	strlcpy(t.env[1], "B", sizeof(t.env[1]));
	template_is(&t, DKR_R_T_ENV, "second entry without =");
}

/* uid and gid from 1 to INT32_MAX, and User says exactly that. */
ATF_TC_WITHOUT_HEAD(template_user_bounds);
ATF_TC_BODY(template_user_bounds, tc)
{
	struct dkr_template	 t;
	char			*s;

	(void)tc;
	fx_template(&t);
	t.uid = INT32_MAX;
	t.gid = INT32_MAX;
	template_is(&t, DKR_OK, "uid and gid at their maximum");
	s = body_member(&t, "User");
	ATF_CHECK_STREQ(s, "\"2147483647:2147483647\"");
	free(s);
	t.uid = (uid_t)INT32_MAX + 1;
	template_is(&t, DKR_R_T_USER, "uid past its maximum");
	fx_template(&t);
	t.gid = (gid_t)INT32_MAX + 1;
	template_is(&t, DKR_R_T_USER, "gid past its maximum");
	fx_template(&t);
	t.uid = 1;
	t.gid = 1;
	template_is(&t, DKR_OK, "uid and gid 1");
}

/* Each limit at both ends accepted, one past either end refused. */
ATF_TC_WITHOUT_HEAD(template_limit_bounds);
ATF_TC_BODY(template_limit_bounds, tc)
{
	struct dkr_template	 t;
	char			*s;

#define LIMIT(field, lo, hi, want) do {					\
	fx_template(&t);						\
	t.field = (lo);							\
	template_is(&t, DKR_OK, #field " at " #lo);			\
	t.field = (hi);							\
	template_is(&t, DKR_OK, #field " at " #hi);			\
	t.field = (lo) - 1;						\
	template_is(&t, want, #field " below " #lo);			\
	t.field = (hi) + 1;						\
	template_is(&t, want, #field " above " #hi);			\
} while (0)
	(void)tc;
	LIMIT(memory_bytes, DKR_MEMORY_MIN_BYTES, DKR_MEMORY_MAX_BYTES,
	    DKR_R_T_LIMITS);
	LIMIT(pids, 1, DKR_PIDS_MAX, DKR_R_T_LIMITS);
	LIMIT(nofile, 1, DKR_NOFILE_MAX, DKR_R_T_LIMITS);
	LIMIT(nproc, 1, DKR_PIDS_MAX, DKR_R_T_LIMITS);
	LIMIT(nano_cpus, 0, DKR_NANOCPUS_MAX, DKR_R_T_LIMITS);
	LIMIT(deadline_ms, CMCP_INIT_MIN_MS, CMCP_INIT_MAX_MS,
	    DKR_R_T_DEADLINE);
#undef LIMIT
	/* cmcp-init's -t at the longest deadline */
	fx_template(&t);
	t.deadline_ms = CMCP_INIT_MAX_MS;
	s = body_member(&t, "Entrypoint");
	ATF_CHECK_STREQ(s, "[\"/cmcp-init\",\"-t\",\"86400000\",\"--\"]");
	free(s);
}

/*
 * A server's bind paths: what is canonical is accepted however it looks,
 * the longest path its array holds too; one byte more is refused.  An
 * agent's container refuses even one bind.
 */
ATF_TC_WITHOUT_HEAD(template_mount_paths);
ATF_TC_BODY(template_mount_paths, tc)
{
	static const char *const good[] = { "/a", "/srv/a", "/srv/.config",
	    "/srv/..db", "/srv/a.", "/srv/.a", "/srv/a..", "/srv/...",
	    "/s p" };
	struct dkr_template	 t;
	size_t			 i;

	(void)tc;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		fx_server_template(&t);
		strlcpy(t.mounts[0].source, good[i],
		    sizeof(t.mounts[0].source));
		template_is(&t, DKR_OK, good[i]);
		fx_server_template(&t);
		strlcpy(t.mounts[1].target, good[i],
		    sizeof(t.mounts[1].target));
		template_is(&t, DKR_OK, good[i]);
	}
	fx_server_template(&t);
	fill(t.mounts[0].source, sizeof(t.mounts[0].source), "/", 'a',
	    DKR_PATH_BYTES - 2);
	fill(t.mounts[1].target, sizeof(t.mounts[1].target), "/", 'b',
	    DKR_PATH_BYTES - 2);
	template_is(&t, DKR_OK, "paths at their maximum");
	t.mounts[0].source[DKR_PATH_BYTES - 1] = 'a';
	template_is(&t, DKR_R_T_MOUNTS, "source unterminated");
	fx_server_template(&t);
	fill(t.mounts[1].target, sizeof(t.mounts[1].target), "/", 'b',
	    DKR_PATH_BYTES - 2);
	t.mounts[1].target[DKR_PATH_BYTES - 1] = 'b';
	template_is(&t, DKR_R_T_MOUNTS, "target unterminated");

	fx_server_template(&t);
	t.nmounts = 1;
	template_is(&t, DKR_OK, "one bind");
	t.kind = DKR_KIND_AGENT;
	t.server[0] = '\0';
	template_is(&t, DKR_R_T_MOUNTS, "an agent's one bind");
	fx_server_template(&t);
	t.nmounts = 0;
	template_is(&t, DKR_OK, "a server without binds");
}

ATF_TC_WITHOUT_HEAD(inspect_good_verifies);
ATF_TC_BODY(inspect_good_verifies, tc)
{
	struct dkr_template	 t;
	char			 why[DKR_WHY_BYTES], *buf;
	size_t			 len;
	enum dkr_reason		 r;

	fx_template(&t);
	buf = slurp(tc, "inspect-good.json", &len);
	r = dkr_inspect_verify(buf, len, &t, FX_ID, why, sizeof(why));
	ATF_CHECK_EQ_MSG(r, DKR_OK, "%s", why);
	/* Without the expected ID, too. */
	ATF_CHECK_EQ(dkr_inspect_verify(buf, len, &t, NULL, why,
	    sizeof(why)), DKR_OK);
	free(buf);
	/* And after a cJSON round trip, which the mutants go through. */
	ATF_CHECK_EQ(verify_doc(load(tc, "inspect-good.json"), why,
	    sizeof(why)), DKR_OK);
}

/* The ways profile_edit() changes the seccomp profile in a document. */
enum sc_edit {
	SC_ADD_IO_URING,	/* io_uring_setup allowed too */
	SC_DROP_LAST_NAME,	/* the first group's last call gone */
	SC_LOG_DEFAULT,		/* defaultAction SCMP_ACT_LOG */
	SC_ERRNO_38,		/* defaultErrnoRet ENOSYS */
	SC_CLONE_NO_ARGS,	/* clone allowed with any flags */
	SC_ARCH_X32,		/* a second architecture */
	SC_REFORMAT		/* the same profile, keys and spacing moved */
};

/*
 * The document's SecurityOpt[1] ("seccomp=<json>") parsed, changed as
 * edit says, and put back, printed by cJSON (so not in canonical form:
 * only its digest after canonicalization may decide).
 */
static void
profile_edit(cJSON *root, enum sc_edit edit)
{
	cJSON	*so = at(root, "HostConfig.SecurityOpt"), *p, *e, *c;
	char	*json, *opt;

	ATF_REQUIRE(cJSON_GetArraySize(so) == 2);
	e = cJSON_GetArrayItem(so, 1);
	ATF_REQUIRE(cJSON_IsString(e) &&
	    strncmp(e->valuestring, "seccomp=", 8) == 0);
	ATF_REQUIRE((p = cJSON_Parse(e->valuestring + 8)) != NULL);
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "syscalls"), 0);
	switch (edit) {
	case SC_ADD_IO_URING:
		cJSON_AddItemToArray(cJSON_GetObjectItem(c, "names"),
		    cJSON_CreateString("io_uring_setup"));
		break;
	case SC_DROP_LAST_NAME:
		e = cJSON_GetObjectItem(c, "names");
		cJSON_DeleteItemFromArray(e, cJSON_GetArraySize(e) - 1);
		break;
	case SC_LOG_DEFAULT:
		cJSON_ReplaceItemInObject(p, "defaultAction",
		    cJSON_CreateString("SCMP_ACT_LOG"));
		break;
	case SC_ERRNO_38:
		cJSON_ReplaceItemInObject(p, "defaultErrnoRet",
		    cJSON_CreateNumber(38));
		break;
	case SC_CLONE_NO_ARGS:
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(p, "syscalls")) {
			e = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "names"),
			    0);
			if (strcmp(e->valuestring, "clone") == 0)
				cJSON_DeleteItemFromObject(c, "args");
		}
		break;
	case SC_ARCH_X32:
		cJSON_AddItemToArray(cJSON_GetObjectItem(p, "architectures"),
		    cJSON_CreateString("SCMP_ARCH_X32"));
		break;
	case SC_REFORMAT:
		/* the first member last, and cJSON_Print's spacing */
		e = cJSON_DetachItemViaPointer(p, p->child);
		cJSON_AddItemToArray(p, e);
		break;
	}
	json = edit == SC_REFORMAT ? cJSON_Print(p) :
	    cJSON_PrintUnformatted(p);
	ATF_REQUIRE(json != NULL);
	ATF_REQUIRE(asprintf(&opt, "seccomp=%s", json) != -1);
	cJSON_ReplaceItemInArray(so, 1, cJSON_CreateString(opt));
	free(opt);
	free(json);
	cJSON_Delete(p);
}

/* One test per single-field weakening. */
#define MUTANT(name, reason, stmt)					\
ATF_TC_WITHOUT_HEAD(name);						\
ATF_TC_BODY(name, tc)							\
{									\
	cJSON	*r = load(tc, "inspect-good.json");		\
	stmt;								\
	refused_with(r, reason);					\
}

/* cmcp-reference.md 3.3, the reference's twelve mutants. */
MUTANT(network_host_refused, DKR_R_NETWORK,
    set(r, "HostConfig.NetworkMode", cJSON_CreateString("host")))
MUTANT(rootfs_writable_refused, DKR_R_READONLY,
    set(r, "HostConfig.ReadonlyRootfs", cJSON_CreateFalse()))
MUTANT(privileged_refused, DKR_R_PRIVILEGED,
    set(r, "HostConfig.Privileged", cJSON_CreateTrue()))
MUTANT(capadd_sys_admin_refused, DKR_R_CAPADD,
    set(r, "HostConfig.CapAdd", strs("SYS_ADMIN", NULL)))
MUTANT(log_json_file_refused, DKR_R_LOG,
    set(r, "HostConfig.LogConfig.Type", cJSON_CreateString("json-file")))
MUTANT(restart_always_refused, DKR_R_RESTART,
    set(r, "HostConfig.RestartPolicy.Name", cJSON_CreateString("always")))
MUTANT(core_unlimited_refused, DKR_R_ULIMITS,
    set(r, "HostConfig.Ulimits", parsed("[{\"Name\":\"core\",\"Soft\":-1,"
    "\"Hard\":-1},{\"Name\":\"nofile\",\"Soft\":256,\"Hard\":256},"
    "{\"Name\":\"nproc\",\"Soft\":64,\"Hard\":64}]")))
MUTANT(binds_refused, DKR_R_BINDS,
    set(r, "HostConfig.Binds", strs("/tmp:/export", NULL)))
MUTANT(pid_host_refused, DKR_R_PIDMODE,
    set(r, "HostConfig.PidMode", cJSON_CreateString("host")))
MUTANT(ipc_host_refused, DKR_R_IPCMODE,
    set(r, "HostConfig.IpcMode", cJSON_CreateString("host")))
MUTANT(user_root_refused, DKR_R_USER,
    set(r, "Config.User", cJSON_CreateString("0")))
MUTANT(config_volumes_refused, DKR_R_VOLUMES,
    set(r, "Config.Volumes", parsed("{\"/export\":{}}")))

/* The fail-open traps of docker-api.md, and the rest of the profile. */
MUTANT(swap_unlimited_refused, DKR_R_SWAP,
    set(r, "HostConfig.MemorySwap", cJSON_CreateNumber(-1)))
MUTANT(swap_double_refused, DKR_R_SWAP,
    set(r, "HostConfig.MemorySwap", cJSON_CreateNumber(268435456)))
MUTANT(extra_mount_refused, DKR_R_MOUNTS,
    cJSON_AddItemToArray(at(r, "Mounts"), parsed("{\"Type\":\"volume\","
    "\"Name\":\"x\",\"Source\":\"/var/lib/docker/volumes/x/_data\","
    "\"Destination\":\"/export\",\"Driver\":\"local\",\"Mode\":\"\","
    "\"RW\":true,\"Propagation\":\"\"}")))
MUTANT(no_mount_refused, DKR_R_MOUNTS,
    set(r, "Mounts", cJSON_CreateArray()))
MUTANT(init_mount_writable_refused, DKR_R_MOUNT_RW,
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(at(r,
    "Mounts"), 0), "RW", cJSON_CreateTrue()))
MUTANT(init_mount_other_source_refused, DKR_R_MOUNT_SOURCE,
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(at(r,
    "Mounts"), 0), "Source", cJSON_CreateString("/")))
MUTANT(hc_extra_mount_refused, DKR_R_HC_MOUNTS,
    cJSON_AddItemToArray(at(r, "HostConfig.Mounts"), parsed("{\"Type\":"
    "\"bind\",\"Source\":\"/tmp\",\"Target\":\"/export\"}")))
MUTANT(capadd_all_refused, DKR_R_CAPADD,
    set(r, "HostConfig.CapAdd", strs("ALL", NULL)))
MUTANT(capdrop_empty_refused, DKR_R_CAPDROP,
    set(r, "HostConfig.CapDrop", cJSON_CreateNull()))
MUTANT(capdrop_partial_refused, DKR_R_CAPDROP,
    set(r, "HostConfig.CapDrop", strs("ALL", "NET_RAW")))
MUTANT(no_new_privileges_missing_refused, DKR_R_SECOPT,
    set(r, "HostConfig.SecurityOpt", cJSON_CreateNull()))
MUTANT(seccomp_unconfined_refused, DKR_R_SECCOMP,
    set(r, "HostConfig.SecurityOpt", strs("no-new-privileges",
    "seccomp=unconfined")))
/* The engine's default profile: no seccomp entry at all. */
MUTANT(seccomp_default_refused, DKR_R_SECCOMP,
    set(r, "HostConfig.SecurityOpt", strs("no-new-privileges", NULL)))
MUTANT(seccomp_file_refused, DKR_R_SECCOMP,
    set(r, "HostConfig.SecurityOpt", strs("no-new-privileges",
    "seccomp=/etc/docker/seccomp.json")))
MUTANT(seccomp_first_refused, DKR_R_SECOPT,
    cJSON_AddItemToArray(at(r, "HostConfig.SecurityOpt"),
    cJSON_DetachItemFromArray(at(r, "HostConfig.SecurityOpt"), 0)))
MUTANT(secopt_third_entry_refused, DKR_R_SECOPT,
    cJSON_AddItemToArray(at(r, "HostConfig.SecurityOpt"),
    cJSON_CreateString("apparmor=unconfined")))
MUTANT(secopt_nnp_false_refused, DKR_R_SECOPT,
    cJSON_ReplaceItemInArray(at(r, "HostConfig.SecurityOpt"), 0,
    cJSON_CreateString("no-new-privileges=false")))
/* Our profile changed in one place each, the rest as sent. */
MUTANT(seccomp_call_added_refused, DKR_R_SECCOMP,
    profile_edit(r, SC_ADD_IO_URING))
MUTANT(seccomp_call_removed_refused, DKR_R_SECCOMP,
    profile_edit(r, SC_DROP_LAST_NAME))
MUTANT(seccomp_log_default_refused, DKR_R_SECCOMP,
    profile_edit(r, SC_LOG_DEFAULT))
MUTANT(seccomp_errno_changed_refused, DKR_R_SECCOMP,
    profile_edit(r, SC_ERRNO_38))
MUTANT(seccomp_clone_unchecked_refused, DKR_R_SECCOMP,
    profile_edit(r, SC_CLONE_NO_ARGS))
MUTANT(seccomp_arch_added_refused, DKR_R_SECCOMP,
    profile_edit(r, SC_ARCH_X32))
MUTANT(tty_refused, DKR_R_TTY,
    set(r, "Config.Tty", cJSON_CreateTrue()))
MUTANT(stdin_once_off_refused, DKR_R_STDIO,
    set(r, "Config.StdinOnce", cJSON_CreateFalse()))
MUTANT(user_root_gid_refused, DKR_R_USER,
    set(r, "Config.User", cJSON_CreateString("0:0")))
MUTANT(user_name_refused, DKR_R_USER,
    set(r, "Config.User", cJSON_CreateString("root")))
MUTANT(user_without_gid_refused, DKR_R_USER,
    set(r, "Config.User", cJSON_CreateString("10001")))
MUTANT(image_other_refused, DKR_R_IMAGE,
    set(r, "Image", cJSON_CreateString(FX_VOLUME_IMAGE)))
MUTANT(config_image_tag_refused, DKR_R_CONFIG_IMAGE,
    set(r, "Config.Image", cJSON_CreateString("cmcp-test/fixtures:1")))
MUTANT(id_other_refused, DKR_R_ID,
    set(r, "Id", cJSON_CreateString(FX_VOLUME_IMAGE + 7)))
MUTANT(pids_unlimited_refused, DKR_R_PIDS,
    set(r, "HostConfig.PidsLimit", cJSON_CreateNumber(0)))
MUTANT(pids_null_refused, DKR_R_PIDS,
    set(r, "HostConfig.PidsLimit", cJSON_CreateNull()))
MUTANT(pids_fraction_refused, DKR_R_PIDS,
    set(r, "HostConfig.PidsLimit", cJSON_CreateNumber(32.5)))
MUTANT(memory_zero_refused, DKR_R_MEMORY,
    set(r, "HostConfig.Memory", cJSON_CreateNumber(0)))
MUTANT(memory_as_string_refused, DKR_R_MEMORY,
    set(r, "HostConfig.Memory", cJSON_CreateString("134217728")))
MUTANT(cpus_unlimited_refused, DKR_R_CPUS,
    set(r, "HostConfig.NanoCpus", cJSON_CreateNumber(0)))
MUTANT(nofile_missing_refused, DKR_R_ULIMITS,
    cJSON_DeleteItemFromArray(at(r, "HostConfig.Ulimits"), 1))
MUTANT(core_duplicate_refused, DKR_R_ULIMITS,
    cJSON_AddItemToArray(at(r, "HostConfig.Ulimits"), parsed("{\"Name\":"
    "\"core\",\"Soft\":0,\"Hard\":0}")))
MUTANT(rlimit_extra_refused, DKR_R_ULIMITS,
    cJSON_AddItemToArray(at(r, "HostConfig.Ulimits"), parsed("{\"Name\":"
    "\"fsize\",\"Soft\":-1,\"Hard\":-1}")))
MUTANT(uts_host_refused, DKR_R_UTSMODE,
    set(r, "HostConfig.UTSMode", cJSON_CreateString("host")))
MUTANT(userns_host_refused, DKR_R_USERNSMODE,
    set(r, "HostConfig.UsernsMode", cJSON_CreateString("host")))
MUTANT(cgroupns_host_refused, DKR_R_CGROUPNS,
    set(r, "HostConfig.CgroupnsMode", cJSON_CreateString("host")))
MUTANT(pid_container_refused, DKR_R_PIDMODE,
    set(r, "HostConfig.PidMode", cJSON_CreateString("container:x")))
/* IpcMode none has no /dev/shm; private and shareable mount a tmpfs. */
MUTANT(ipc_private_refused, DKR_R_IPCMODE,
    set(r, "HostConfig.IpcMode", cJSON_CreateString("private")))
MUTANT(ipc_shareable_refused, DKR_R_IPCMODE,
    set(r, "HostConfig.IpcMode", cJSON_CreateString("shareable")))
MUTANT(ipc_container_refused, DKR_R_IPCMODE,
    set(r, "HostConfig.IpcMode", cJSON_CreateString("container:x")))
MUTANT(ipc_daemon_default_refused, DKR_R_IPCMODE,
    set(r, "HostConfig.IpcMode", cJSON_CreateString("")))
MUTANT(devices_refused, DKR_R_DEVICES,
    set(r, "HostConfig.Devices", parsed("[{\"PathOnHost\":\"/dev/kmsg\","
    "\"PathInContainer\":\"/dev/kmsg\",\"CgroupPermissions\":\"rwm\"}]")))
MUTANT(device_requests_refused, DKR_R_DEVREQ,
    set(r, "HostConfig.DeviceRequests", parsed("[{\"Driver\":\"nvidia\"}]")))
MUTANT(port_bindings_refused, DKR_R_PORTS,
    set(r, "HostConfig.PortBindings", parsed("{\"80/tcp\":[{\"HostIp\":"
    "\"127.0.0.1\",\"HostPort\":\"8080\"}]}")))
MUTANT(group_add_refused, DKR_R_GROUPADD,
    set(r, "HostConfig.GroupAdd", strs("0", NULL)))
MUTANT(masked_paths_empty_refused, DKR_R_MASKED,
    set(r, "HostConfig.MaskedPaths", cJSON_CreateArray()))
MUTANT(readonly_paths_empty_refused, DKR_R_ROPATHS,
    set(r, "HostConfig.ReadonlyPaths", cJSON_CreateArray()))
MUTANT(docker_init_refused, DKR_R_INIT,
    set(r, "HostConfig.Init", cJSON_CreateTrue()))
MUTANT(runtime_other_refused, DKR_R_RUNTIME,
    set(r, "HostConfig.Runtime", cJSON_CreateString("runc-unsafe")))
MUTANT(auto_remove_refused, DKR_R_AUTOREMOVE,
    set(r, "HostConfig.AutoRemove", cJSON_CreateTrue()))
MUTANT(tmpfs_refused, DKR_R_TMPFS,
    set(r, "HostConfig.Tmpfs", parsed("{\"/tmp\":\"exec\"}")))
MUTANT(sysctls_refused, DKR_R_SYSCTLS,
    set(r, "HostConfig.Sysctls", parsed("{\"net.ipv4.ip_forward\":\"1\"}")))
MUTANT(entrypoint_other_refused, DKR_R_ENTRYPOINT,
    set(r, "Config.Entrypoint", strs("/report", NULL)))
MUTANT(deadline_other_refused, DKR_R_ARGS,
    set(r, "Args", parsed("[\"-t\",\"99999\",\"--\",\"/report\"]")))
MUTANT(path_other_refused, DKR_R_PATH,
    set(r, "Path", cJSON_CreateString("/report")))
MUTANT(cmd_other_refused, DKR_R_CMD,
    set(r, "Config.Cmd", strs("/bin/busybox", "sh")))
MUTANT(env_extra_refused, DKR_R_ENV,
    set(r, "Config.Env", strs("PATH=/bin", "LD_PRELOAD=/x.so")))
MUTANT(labels_session_missing_refused, DKR_R_LABELS,
    cJSON_DeleteItemFromObjectCaseSensitive(at(r, "Config.Labels"),
    DKR_LABEL_SESSION))
MUTANT(labels_extra_refused, DKR_R_LABELS,
    cJSON_AddStringToObject(at(r, "Config.Labels"), "x", "y"))
MUTANT(labels_kind_missing_refused, DKR_R_LABELS,
    cJSON_DeleteItemFromObjectCaseSensitive(at(r, "Config.Labels"),
    DKR_LABEL_KIND))
MUTANT(labels_kind_other_refused, DKR_R_LABELS,
    put(at(r, "Config.Labels"), DKR_LABEL_KIND, cJSON_CreateString("server")))
MUTANT(healthcheck_refused, DKR_R_HEALTHCHECK,
    set(r, "Config.Healthcheck", parsed("{\"Test\":[\"CMD\",\"/x\"]}")))
MUTANT(extra_network_refused, DKR_R_NETWORKS,
    cJSON_AddItemToObject(at(r, "NetworkSettings.Networks"), "bridge",
    cJSON_CreateObject()))
MUTANT(apparmor_unconfined_refused, DKR_R_APPARMOR,
    set(r, "AppArmorProfile", cJSON_CreateString("unconfined")))
MUTANT(apparmor_other_refused, DKR_R_APPARMOR,
    set(r, "AppArmorProfile", cJSON_CreateString("docker-default-x")))
MUTANT(apparmor_missing_refused, DKR_R_APPARMOR,
    cJSON_DeleteItemFromObjectCaseSensitive(r, "AppArmorProfile"))

/* What an AppArmor host's engine reports for our containers. */
ATF_TC_WITHOUT_HEAD(apparmor_engine_default_verifies);
ATF_TC_BODY(apparmor_engine_default_verifies, tc)
{
	cJSON	*r = load(tc, "inspect-good.json");
	char	 why[DKR_WHY_BYTES];

	set(r, "AppArmorProfile", cJSON_CreateString(DKR_APPARMOR_DEFAULT));
	ATF_CHECK_EQ_MSG(verify_doc(r, why, sizeof(why)), DKR_OK, "%s", why);
}

/* The profile's digest is of its canonical form, not of its bytes. */
ATF_TC_WITHOUT_HEAD(seccomp_reformatted_verifies);
ATF_TC_BODY(seccomp_reformatted_verifies, tc)
{
	cJSON	*r = load(tc, "inspect-good.json");
	char	 why[DKR_WHY_BYTES];

	profile_edit(r, SC_REFORMAT);
	ATF_CHECK(strchr(cJSON_GetArrayItem(at(r, "HostConfig.SecurityOpt"),
	    1)->valuestring, '\n') != NULL);
	ATF_CHECK_EQ_MSG(verify_doc(r, why, sizeof(why)), DKR_OK, "%s", why);
}
MUTANT(state_restarting_refused, DKR_R_STATE,
    set(r, "State.Restarting", cJSON_CreateTrue()))
MUTANT(state_exited_refused, DKR_R_STATE,
    set(r, "State.Status", cJSON_CreateString("exited")))

/*
 * The relay (agent { relay yes }): cmcp-init -r keeps the container's
 * stdio for the MCP host's connector.  Admission takes exactly the
 * entry point that was asked: -r where no relay was asked is refused,
 * and so is its absence where one was.  Each case changes one field.
 */
MUTANT(relay_entrypoint_unasked_refused, DKR_R_ENTRYPOINT,
    set(r, "Config.Entrypoint", parsed("[\"/cmcp-init\",\"-r\",\"-t\","
    "\"15000\",\"--\"]")))
MUTANT(relay_args_unasked_refused, DKR_R_ARGS,
    set(r, "Args", parsed("[\"-r\",\"-t\",\"15000\",\"--\",\"/report\"]")))

ATF_TC_WITHOUT_HEAD(relay_inspect_verifies);
ATF_TC_BODY(relay_inspect_verifies, tc)
{
	struct dkr_template	 t;
	char			 why[DKR_WHY_BYTES], *buf;
	size_t			 len;
	enum dkr_reason		 r;

	fx_relay_template(&t);
	buf = slurp(tc, "inspect-relay.json", &len);
	r = dkr_inspect_verify(buf, len, &t, FX_RELAY_ID, why, sizeof(why));
	ATF_CHECK_EQ_MSG(r, DKR_OK, "%s", why);
	free(buf);
	ATF_CHECK_EQ(verify_doc_as(load(tc, "inspect-relay.json"), &t,
	    FX_RELAY_ID, why, sizeof(why)), DKR_OK);
}

/* The engine's own documents, each against the other template. */
ATF_TC_WITHOUT_HEAD(relay_container_unasked_refused);
ATF_TC_BODY(relay_container_unasked_refused, tc)
{
	struct dkr_template	 t;

	fx_relay_template(&t);
	t.relay = 0;
	refused_as(load(tc, "inspect-relay.json"), &t, DKR_R_ARGS);
}

ATF_TC_WITHOUT_HEAD(relay_container_missing_refused);
ATF_TC_BODY(relay_container_missing_refused, tc)
{
	struct dkr_template	 t;

	fx_template(&t);
	t.relay = 1;
	refused_as(load(tc, "inspect-good.json"), &t, DKR_R_ARGS);
}

#define RELAY_MUTANT(name, reason, stmt)				\
ATF_TC_WITHOUT_HEAD(name);						\
ATF_TC_BODY(name, tc)							\
{									\
	struct dkr_template	 t;					\
	cJSON			*r = load(tc, "inspect-relay.json");	\
	fx_relay_template(&t);						\
	stmt;								\
	refused_as(r, &t, reason);					\
}

RELAY_MUTANT(relay_entrypoint_missing_refused, DKR_R_ENTRYPOINT,
    set(r, "Config.Entrypoint", parsed("[\"/cmcp-init\",\"-t\",\"15000\","
    "\"--\"]")))
RELAY_MUTANT(relay_args_missing_refused, DKR_R_ARGS,
    set(r, "Args", parsed("[\"-t\",\"15000\",\"--\",\"/report\"]")))
/* getopt would take -r here too; admission takes only the one vector. */
RELAY_MUTANT(relay_entrypoint_reordered_refused, DKR_R_ENTRYPOINT,
    set(r, "Config.Entrypoint", parsed("[\"/cmcp-init\",\"-t\",\"15000\","
    "\"-r\",\"--\"]")))
RELAY_MUTANT(relay_entrypoint_twice_refused, DKR_R_ENTRYPOINT,
    set(r, "Config.Entrypoint", parsed("[\"/cmcp-init\",\"-r\",\"-r\","
    "\"-t\",\"15000\",\"--\"]")))

/*
 * A server's container (server { image ... mount ... }): inspect-server.json
 * from fx_server_template(), cmcp-init's bind and two of the server's,
 * FX_RO_TARGET read-only and FX_RW_TARGET read-write.  The effective
 * Mounts and the requested HostConfig.Mounts must each hold exactly these
 * three, each with exactly its source, destination, write flag and
 * propagation; every case below changes one of them in one of the two.
 */
ATF_TC_WITHOUT_HEAD(server_inspect_verifies);
ATF_TC_BODY(server_inspect_verifies, tc)
{
	struct dkr_template	 t;
	char			 why[DKR_WHY_BYTES], *buf;
	size_t			 len;
	enum dkr_reason		 r;
	cJSON			*doc, *a, *m;

	fx_server_template(&t);
	buf = slurp(tc, "inspect-server.json", &len);
	r = dkr_inspect_verify(buf, len, &t, FX_SERVER_ID, why, sizeof(why));
	ATF_CHECK_EQ_MSG(r, DKR_OK, "%s", why);
	free(buf);
	ATF_CHECK_EQ(verify_doc_as(load(tc, "inspect-server.json"), &t,
	    FX_SERVER_ID, why, sizeof(why)), DKR_OK);
	/* The engine lists the effective Mounts in no fixed order. */
	doc = load(tc, "inspect-server.json");
	a = at(doc, "Mounts");
	ATF_REQUIRE((m = cJSON_DetachItemFromArray(a, 0)) != NULL);
	ATF_REQUIRE(cJSON_AddItemToArray(a, m));
	ATF_CHECK_EQ(verify_doc_as(doc, &t, NULL, why, sizeof(why)), DKR_OK);
	/* Nor is the request's order asked of HostConfig.Mounts. */
	doc = load(tc, "inspect-server.json");
	a = at(doc, "HostConfig.Mounts");
	ATF_REQUIRE((m = cJSON_DetachItemFromArray(a, 0)) != NULL);
	ATF_REQUIRE(cJSON_AddItemToArray(a, m));
	ATF_CHECK_EQ(verify_doc_as(doc, &t, NULL, why, sizeof(why)), DKR_OK);
	/* ReadOnly false spelt out means what its absence does. */
	doc = load(tc, "inspect-server.json");
	put(entry(doc, "HostConfig.Mounts", "Target", FX_RW_TARGET),
	    "ReadOnly", cJSON_CreateFalse());
	ATF_CHECK_EQ(verify_doc_as(doc, &t, NULL, why, sizeof(why)), DKR_OK);
}

#define SERVER_MUTANT(name, reason, stmt)				\
ATF_TC_WITHOUT_HEAD(name);						\
ATF_TC_BODY(name, tc)							\
{									\
	struct dkr_template	 t;					\
	cJSON			*r = load(tc, "inspect-server.json");	\
	fx_server_template(&t);						\
	stmt;								\
	refused_as(r, &t, reason);					\
}

/* The effective binds (top-level Mounts). */
#define RO_MOUNT	entry(r, "Mounts", "Destination", FX_RO_TARGET)
#define RW_MOUNT	entry(r, "Mounts", "Destination", FX_RW_TARGET)
SERVER_MUTANT(server_mount_source_refused, DKR_R_MOUNT_SOURCE,
    put(RO_MOUNT, "Source", cJSON_CreateString("/srv/cmcp-fixture")))
SERVER_MUTANT(server_mount_rw_source_refused, DKR_R_MOUNT_SOURCE,
    put(RW_MOUNT, "Source", cJSON_CreateString("/etc")))
SERVER_MUTANT(server_mount_destination_refused, DKR_R_MOUNT_DEST,
    put(RO_MOUNT, "Destination", cJSON_CreateString("/data/other")))
SERVER_MUTANT(server_mount_destination_twice_refused, DKR_R_MOUNT_DEST,
    put(RW_MOUNT, "Destination", cJSON_CreateString(FX_RO_TARGET)))
SERVER_MUTANT(server_mount_ro_writable_refused, DKR_R_MOUNT_RW,
    put(RO_MOUNT, "RW", cJSON_CreateTrue()))
SERVER_MUTANT(server_mount_rw_readonly_refused, DKR_R_MOUNT_RW,
    put(RW_MOUNT, "RW", cJSON_CreateFalse()))
SERVER_MUTANT(server_mount_rw_missing_refused, DKR_R_MOUNT_RW,
    cJSON_DeleteItemFromObjectCaseSensitive(RW_MOUNT, "RW"))
SERVER_MUTANT(server_mount_propagation_refused, DKR_R_MOUNT_PROPAGATION,
    put(RO_MOUNT, "Propagation", cJSON_CreateString("rshared")))
SERVER_MUTANT(server_mount_propagation_slave_refused,
    DKR_R_MOUNT_PROPAGATION,
    put(RW_MOUNT, "Propagation", cJSON_CreateString("rslave")))
SERVER_MUTANT(server_mount_type_refused, DKR_R_MOUNT_TYPE,
    put(RW_MOUNT, "Type", cJSON_CreateString("volume")))
SERVER_MUTANT(server_mount_extra_refused, DKR_R_MOUNTS,
    cJSON_AddItemToArray(at(r, "Mounts"), parsed("{\"Type\":\"bind\","
    "\"Source\":\"/etc\",\"Destination\":\"/host-etc\",\"Mode\":\"\","
    "\"RW\":false,\"Propagation\":\"rprivate\"}")))
SERVER_MUTANT(server_mount_missing_refused, DKR_R_MOUNTS,
    cJSON_DeleteItemFromArray(at(r, "Mounts"), 2))
/* A duplicate key: Go would take the last, cJSON the first. */
SERVER_MUTANT(server_mount_rw_duplicate_refused, DKR_R_MOUNT_RW,
    cJSON_AddItemToObject(RO_MOUNT, "RW", cJSON_CreateTrue()))

/* The requested binds echoed in HostConfig.Mounts, .Mounts intact. */
#define HC_RO_MOUNT	entry(r, "HostConfig.Mounts", "Target", FX_RO_TARGET)
#define HC_RW_MOUNT	entry(r, "HostConfig.Mounts", "Target", FX_RW_TARGET)
SERVER_MUTANT(server_hc_mount_source_refused, DKR_R_HC_MOUNT_SOURCE,
    put(HC_RO_MOUNT, "Source", cJSON_CreateString("/srv/cmcp-fixture")))
SERVER_MUTANT(server_hc_mount_target_refused, DKR_R_HC_MOUNT_TARGET,
    put(HC_RW_MOUNT, "Target", cJSON_CreateString("/data/other")))
SERVER_MUTANT(server_hc_mount_ro_writable_refused, DKR_R_HC_MOUNT_READONLY,
    put(HC_RO_MOUNT, "ReadOnly", cJSON_CreateFalse()))
SERVER_MUTANT(server_hc_mount_ro_missing_refused, DKR_R_HC_MOUNT_READONLY,
    cJSON_DeleteItemFromObjectCaseSensitive(HC_RO_MOUNT, "ReadOnly"))
SERVER_MUTANT(server_hc_mount_rw_readonly_refused, DKR_R_HC_MOUNT_READONLY,
    put(HC_RW_MOUNT, "ReadOnly", cJSON_CreateTrue()))
SERVER_MUTANT(server_hc_mount_rw_duplicate_refused, DKR_R_HC_MOUNT_READONLY,
    cJSON_AddItemToObject(HC_RW_MOUNT, "readonly", cJSON_CreateTrue()))
SERVER_MUTANT(server_hc_mount_propagation_refused,
    DKR_R_HC_MOUNT_PROPAGATION,
    put(at(HC_RO_MOUNT, "BindOptions"), "Propagation",
    cJSON_CreateString("rshared")))
SERVER_MUTANT(server_hc_mount_recursive_refused, DKR_R_HC_MOUNT_OPTIONS,
    put(at(HC_RO_MOUNT, "BindOptions"), "NonRecursive", cJSON_CreateFalse()))
SERVER_MUTANT(server_hc_mount_volume_options_refused, DKR_R_HC_MOUNT_OPTIONS,
    put(HC_RW_MOUNT, "VolumeOptions", cJSON_CreateObject()))
SERVER_MUTANT(server_hc_mount_type_refused, DKR_R_HC_MOUNT_TYPE,
    put(HC_RW_MOUNT, "Type", cJSON_CreateString("volume")))
SERVER_MUTANT(server_hc_mount_extra_refused, DKR_R_HC_MOUNTS,
    cJSON_AddItemToArray(at(r, "HostConfig.Mounts"), parsed("{\"Type\":"
    "\"bind\",\"Source\":\"/etc\",\"Target\":\"/host-etc\",\"ReadOnly\":"
    "true,\"BindOptions\":{\"Propagation\":\"rprivate\","
    "\"NonRecursive\":true}}")))
SERVER_MUTANT(server_hc_mount_missing_refused, DKR_R_HC_MOUNTS,
    cJSON_DeleteItemFromArray(at(r, "HostConfig.Mounts"), 1))

/* The same document against a template that asks for other binds. */
SERVER_MUTANT(server_template_fewer_mounts_refused, DKR_R_MOUNTS,
    t.nmounts = 1)
SERVER_MUTANT(server_template_rw_asked_refused, DKR_R_MOUNT_RW,
    t.mounts[0].readonly = 0)
SERVER_MUTANT(server_template_other_source_refused, DKR_R_MOUNT_SOURCE,
    strcpy(t.mounts[1].source, "/srv/cmcp-fixture/other"))

/* The labels: its kind and its name. */
SERVER_MUTANT(server_label_name_refused, DKR_R_LABELS,
    put(at(r, "Config.Labels"), DKR_LABEL_SERVER,
    cJSON_CreateString("other")))
SERVER_MUTANT(server_label_name_missing_refused, DKR_R_LABELS,
    cJSON_DeleteItemFromObjectCaseSensitive(at(r, "Config.Labels"),
    DKR_LABEL_SERVER))
SERVER_MUTANT(server_label_kind_refused, DKR_R_LABELS,
    put(at(r, "Config.Labels"), DKR_LABEL_KIND, cJSON_CreateString("agent")))

/* The rest of the profile is the agent's; a few of it, once more. */
SERVER_MUTANT(server_network_host_refused, DKR_R_NETWORK,
    set(r, "HostConfig.NetworkMode", cJSON_CreateString("host")))
SERVER_MUTANT(server_rootfs_writable_refused, DKR_R_READONLY,
    set(r, "HostConfig.ReadonlyRootfs", cJSON_CreateFalse()))
SERVER_MUTANT(server_binds_refused, DKR_R_BINDS,
    set(r, "HostConfig.Binds", strs(FX_RW_SOURCE ":" FX_RW_TARGET, NULL)))
SERVER_MUTANT(server_user_root_refused, DKR_R_USER,
    set(r, "Config.User", cJSON_CreateString("0:0")))
SERVER_MUTANT(server_env_extra_refused, DKR_R_ENV,
    set(r, "Config.Env", strs("PATH=/usr/local/bin:/usr/bin:/bin",
    "NODE_OPTIONS=--inspect")))
#undef RO_MOUNT
#undef RW_MOUNT
#undef HC_RO_MOUNT
#undef HC_RW_MOUNT

/* The agent's document against a server's template, and back. */
ATF_TC_WITHOUT_HEAD(server_documents_not_interchangeable);
ATF_TC_BODY(server_documents_not_interchangeable, tc)
{
	struct dkr_template	 t;

	/* Only the binds and the labels apart: mounts come first. */
	fx_template(&t);
	t.kind = DKR_KIND_SERVER;
	strcpy(t.server, "catalog");
	t.nmounts = 1;
	strcpy(t.mounts[0].source, FX_RO_SOURCE);
	strcpy(t.mounts[0].target, FX_RO_TARGET);
	t.mounts[0].readonly = 1;
	refused_as(load(tc, "inspect-good.json"), &t, DKR_R_MOUNTS);
	t.nmounts = 0;
	refused_as(load(tc, "inspect-good.json"), &t, DKR_R_LABELS);
}

/* Parser ambiguities: Go keeps the last duplicate and ignores case. */
MUTANT(duplicate_key_refused, DKR_R_NETWORK,
    cJSON_AddItemToObject(at(r, "HostConfig"), "NetworkMode",
    cJSON_CreateString("host")))
MUTANT(case_variant_key_refused, DKR_R_READONLY,
    cJSON_AddItemToObject(at(r, "HostConfig"), "readonlyrootfs",
    cJSON_CreateFalse()))
MUTANT(network_mode_missing_refused, DKR_R_NETWORK,
    del(r, "HostConfig.NetworkMode"))

ATF_TC_WITHOUT_HEAD(malformed_documents_refused);
ATF_TC_BODY(malformed_documents_refused, tc)
{
	static const char *const bad[] = {
		"", "null", "[]", "\"x\"", "{", "{}", "{} x", "{}{}",
	};
	struct dkr_template	 t;
	char			 why[DKR_WHY_BYTES], *buf;
	size_t			 i, len;

	fx_template(&t);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_MSG(dkr_inspect_verify(bad[i], strlen(bad[i]), &t,
		    NULL, why, sizeof(why)) != DKR_OK, "accepted %s", bad[i]);
	/* Truncated at every length. */
	buf = slurp(tc, "inspect-good.json", &len);
	while (len > 1 && buf[len - 1] == '\n')
		len--;
	for (i = 0; i < len; i++)
		ATF_CHECK_MSG(dkr_inspect_verify(buf, i, &t, NULL, why,
		    sizeof(why)) != DKR_OK, "accepted %zu bytes", i);
	free(buf);
}

ATF_TC_WITHOUT_HEAD(reason_never_echoes_docker_text);
ATF_TC_BODY(reason_never_echoes_docker_text, tc)
{
	cJSON	*r = load(tc, "inspect-good.json");
	char	 why[DKR_WHY_BYTES];

	set(r, "HostConfig.NetworkMode", cJSON_CreateString("CANARY-7f3a"));
	ATF_CHECK_EQ(verify_doc(r, why, sizeof(why)), DKR_R_NETWORK);
	ATF_CHECK(strstr(why, "CANARY") == NULL);
	ATF_CHECK_STREQ(why, "refused: HostConfig.NetworkMode");
}

/* A template that is itself too weak never reaches the engine. */
ATF_TC_WITHOUT_HEAD(template_weak_values_refused);
ATF_TC_BODY(template_weak_values_refused, tc)
{
	struct dkr_template	 t;
	enum dkr_reason		 r;

	fx_template(&t);
	ATF_CHECK_EQ(dkr_template_check(&t), DKR_OK);
#define WEAK(stmt, want) do {						\
	fx_template(&t);						\
	stmt;								\
	ATF_CHECK_EQ_MSG(dkr_template_check(&t), want, "%s", #stmt);	\
	ATF_CHECK(dkr_template_body(&t, &r) == NULL && r == want);	\
} while (0)
	WEAK(strcpy(t.image, "cmcp-test/fixtures:1"), DKR_R_T_IMAGE);
	WEAK(strcpy(t.image, "sha256:54204ea0bf81"), DKR_R_T_IMAGE);
	WEAK(strcpy(t.image, "54204ea0bf810bec014715203878ded031829035b123f"
	    "fb4bf5bf92142869635"), DKR_R_T_IMAGE);
	WEAK(t.image[7] = 'A', DKR_R_T_IMAGE);
	WEAK(t.uid = 0, DKR_R_T_USER);
	WEAK(t.gid = 0, DKR_R_T_USER);
	WEAK(t.memory_bytes = 1024, DKR_R_T_LIMITS);
	WEAK(t.memory_bytes = 1LL << 50, DKR_R_T_LIMITS);
	WEAK(t.pids = 0, DKR_R_T_LIMITS);
	WEAK(t.pids = -1, DKR_R_T_LIMITS);
	WEAK(t.nano_cpus = -1, DKR_R_T_LIMITS);
	WEAK(t.deadline_ms = 0, DKR_R_T_DEADLINE);
	WEAK(t.argc = 0, DKR_R_T_ARGV);
	WEAK(strcpy(t.argv[0], "report"), DKR_R_T_ARGV);
	WEAK(strcpy(t.init_path, "cmcp-init"), DKR_R_T_INIT);
	WEAK(strcpy(t.env[0], "=x"), DKR_R_T_ENV);
	WEAK(strcpy(t.session, "a,b=c"), DKR_R_T_LABELS);
	WEAK(t.instance[0] = '\0', DKR_R_T_LABELS);
	WEAK(t.relay = 2, DKR_R_T_RELAY);
	WEAK(t.relay = -1, DKR_R_T_RELAY);
	WEAK(t.kind = DKR_KIND_MAX, DKR_R_T_KIND);
	WEAK(t.kind = -1, DKR_R_T_KIND);
	/* A server's name label, on a server's container only. */
	WEAK(strcpy(t.server, "catalog"), DKR_R_T_LABELS);
	WEAK(t.kind = DKR_KIND_SERVER, DKR_R_T_LABELS);
	/* Binds on a server's container only. */
	WEAK((fx_server_template(&t), t.kind = DKR_KIND_AGENT,
	    t.server[0] = '\0'), DKR_R_T_MOUNTS);
	WEAK((fx_server_template(&t), t.kind = DKR_KIND_SANDBOX,
	    t.server[0] = '\0'), DKR_R_T_MOUNTS);
#undef WEAK
}

/* A server's binds that the template itself refuses, one defect each. */
ATF_TC_WITHOUT_HEAD(template_server_mounts_refused);
ATF_TC_BODY(template_server_mounts_refused, tc)
{
	static const char *const bad_path[] = {
		"", "data", "/", "//", "/srv/", "/srv//db", "/srv/./db",
		"/srv/../etc", "/srv/..", "/./srv", "/srv/db\n", "/srv/d\tb",
	};
	static const char *const kernel[] = {
		"/proc", "/proc/sys", "/sys", "/sys/fs/cgroup", "/dev",
		"/dev/shm",
	};
	struct dkr_template	 t;
	enum dkr_reason		 r;
	size_t			 i;

	(void)tc;
	fx_server_template(&t);
	ATF_CHECK_EQ(dkr_template_check(&t), DKR_OK);
#define WEAK(stmt) do {							\
	fx_server_template(&t);						\
	stmt;								\
	ATF_CHECK_EQ_MSG(dkr_template_check(&t), DKR_R_T_MOUNTS, "%s",	\
	    #stmt);							\
	ATF_CHECK(dkr_template_body(&t, &r) == NULL &&			\
	    r == DKR_R_T_MOUNTS);					\
} while (0)
	for (i = 0; i < sizeof(bad_path) / sizeof(bad_path[0]); i++) {
		WEAK(strcpy(t.mounts[0].source, bad_path[i]));
		WEAK(strcpy(t.mounts[1].target, bad_path[i]));
	}
	for (i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
		WEAK(strcpy(t.mounts[1].source, kernel[i]));
		WEAK(strcpy(t.mounts[0].target, kernel[i]));
	}
	WEAK(strcpy(t.mounts[1].target, "/cmcp-init"));
	WEAK(strcpy(t.mounts[1].target, "/cmcp-init/x"));
	WEAK(strcpy(t.mounts[1].target, FX_RO_TARGET));
	WEAK(t.mounts[0].readonly = 2);
	WEAK(t.mounts[1].readonly = -1);
	WEAK(t.nmounts = DKR_MOUNTS_MAX + 1);
	WEAK(memset(t.mounts[0].source, 'a', sizeof(t.mounts[0].source)));
#undef WEAK
	/* What only looks like one of them is a path like any other. */
	fx_server_template(&t);
	strcpy(t.mounts[0].source, "/procs");
	strcpy(t.mounts[0].target, "/device");
	strcpy(t.mounts[1].target, "/cmcp-init.d");
	ATF_CHECK_EQ(dkr_template_check(&t), DKR_OK);
	/* Nested targets are two binds, each as configured. */
	fx_server_template(&t);
	strcpy(t.mounts[1].target, FX_RO_TARGET "/db");
	ATF_CHECK_EQ(dkr_template_check(&t), DKR_OK);
	/* As many as the configuration allows. */
	fx_server_template(&t);
	for (i = 0; i < DKR_MOUNTS_MAX; i++) {
		snprintf(t.mounts[i].source, sizeof(t.mounts[i].source),
		    "/srv/d%zu", i);
		snprintf(t.mounts[i].target, sizeof(t.mounts[i].target),
		    "/data/d%zu", i);
		t.mounts[i].readonly = i % 2;
	}
	t.nmounts = DKR_MOUNTS_MAX;
	ATF_CHECK_EQ(dkr_template_check(&t), DKR_OK);
}

/* The body sends the profile and never the fields that weaken it. */
ATF_TC_WITHOUT_HEAD(template_body_profile);
ATF_TC_BODY(template_body_profile, tc)
{
	static const char *const never[] = {
		"HostConfig.MaskedPaths", "HostConfig.ReadonlyPaths",
		"HostConfig.Binds", "HostConfig.CapAdd", "HostConfig.Devices",
		"HostConfig.Privileged", "HostConfig.PortBindings",
		"HostConfig.Tmpfs", "Volumes", "NetworkDisabled",
	};
	struct dkr_template	 t;
	enum dkr_reason		 r;
	cJSON			*b, *hc;
	char			*s, buf[64], *dot;
	size_t			 i;

	fx_template(&t);
	t.memory_bytes = DKR_MEMORY_MAX_BYTES;
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_CHECK_EQ(r, DKR_OK);
	/* Go refuses 1e+12 for an int64. */
	ATF_CHECK(strstr(s, "\"Memory\":1099511627776,") != NULL);
	ATF_CHECK(strstr(s, "e+") == NULL);
	ATF_REQUIRE((b = cJSON_Parse(s)) != NULL);
	free(s);
	hc = at(b, "HostConfig");
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		strlcpy(buf, never[i], sizeof(buf));
		if ((dot = strchr(buf, '.')) != NULL)
			ATF_CHECK_MSG(cJSON_GetObjectItemCaseSensitive(hc,
			    dot + 1) == NULL || strcmp(dot + 1,
			    "Privileged") == 0, "sent %s", never[i]);
		else
			ATF_CHECK_MSG(cJSON_GetObjectItemCaseSensitive(b,
			    buf) == NULL, "sent %s", never[i]);
	}
	ATF_CHECK(cJSON_IsFalse(at(b, "HostConfig.Privileged")));
	ATF_CHECK_STREQ(at(b, "HostConfig.NetworkMode")->valuestring, "none");
	ATF_CHECK_STREQ(at(b, "HostConfig.IpcMode")->valuestring, "none");
	ATF_CHECK_STREQ(at(b, "User")->valuestring, "10001:10001");
	ATF_CHECK_EQ(cJSON_GetArraySize(at(b, "HostConfig.Mounts")), 1);
	ATF_CHECK_STREQ(at(b, "Image")->valuestring, FX_IMAGE);
	cJSON_Delete(b);
}

#define INIT_BIND	"{\"Type\":\"bind\",\"Source\":\"" FX_INIT "\","	\
	"\"Target\":\"/cmcp-init\",\"ReadOnly\":true,\"BindOptions\":"	\
	"{\"Propagation\":\"rprivate\",\"NonRecursive\":true}}"

/*
 * A server's binds go in HostConfig.Mounts after cmcp-init's, in the
 * configured order, each bind, not recursive, rprivate, ReadOnly as
 * configured; never in Binds.  The other containers have cmcp-init's
 * alone.  And the labels say which container it is.
 */
ATF_TC_WITHOUT_HEAD(template_body_mounts);
ATF_TC_BODY(template_body_mounts, tc)
{
	struct dkr_template	 t;
	enum dkr_reason		 r;
	char			*s;

	(void)tc;
	fx_server_template(&t);
	s = body_member(&t, "HostConfig.Mounts");
	ATF_CHECK_STREQ(s, "[" INIT_BIND ","
	    "{\"Type\":\"bind\",\"Source\":\"" FX_RO_SOURCE "\","
	    "\"Target\":\"" FX_RO_TARGET "\",\"ReadOnly\":true,"
	    "\"BindOptions\":{\"Propagation\":\"rprivate\","
	    "\"NonRecursive\":true}},"
	    "{\"Type\":\"bind\",\"Source\":\"" FX_RW_SOURCE "\","
	    "\"Target\":\"" FX_RW_TARGET "\",\"ReadOnly\":false,"
	    "\"BindOptions\":{\"Propagation\":\"rprivate\","
	    "\"NonRecursive\":true}}]");
	free(s);
	s = body_member(&t, "Labels");
	ATF_CHECK_STREQ(s, "{\"" DKR_LABEL_INSTANCE "\":\"regress\",\""
	    DKR_LABEL_SESSION "\":\"fixture\",\"" DKR_LABEL_KIND "\":"
	    "\"server\",\"" DKR_LABEL_SERVER "\":\"catalog\"}");
	free(s);
	ATF_REQUIRE((s = dkr_template_body(&t, &r)) != NULL);
	ATF_CHECK(strstr(s, "\"Binds\"") == NULL);
	free(s);

	fx_template(&t);
	s = body_member(&t, "HostConfig.Mounts");
	ATF_CHECK_STREQ(s, "[" INIT_BIND "]");
	free(s);
	s = body_member(&t, "Labels");
	ATF_CHECK_STREQ(s, "{\"" DKR_LABEL_INSTANCE "\":\"regress\",\""
	    DKR_LABEL_SESSION "\":\"fixture\",\"" DKR_LABEL_KIND "\":"
	    "\"agent\"}");
	free(s);
	t.kind = DKR_KIND_SANDBOX;
	s = body_member(&t, "Labels");
	ATF_CHECK(strstr(s, "\"" DKR_LABEL_KIND "\":\"sandbox\"") != NULL);
	free(s);
}

/* The entry point with -r exactly when the relay is asked. */
static void
body_entrypoint(const struct dkr_template *t, const char *want)
{
	enum dkr_reason	 r;
	cJSON		*b, *ep;
	char		*s, *e;

	ATF_REQUIRE((s = dkr_template_body(t, &r)) != NULL);
	ATF_REQUIRE((b = cJSON_Parse(s)) != NULL);
	free(s);
	ep = at(b, "Entrypoint");
	ATF_REQUIRE((e = cJSON_PrintUnformatted(ep)) != NULL);
	ATF_CHECK_STREQ(e, want);
	free(e);
	cJSON_Delete(b);
}

ATF_TC_WITHOUT_HEAD(template_body_relay);
ATF_TC_BODY(template_body_relay, tc)
{
	struct dkr_template	 t;

	(void)tc;
	fx_template(&t);
	body_entrypoint(&t, "[\"/cmcp-init\",\"-t\",\"15000\",\"--\"]");
	fx_relay_template(&t);
	body_entrypoint(&t,
	    "[\"/cmcp-init\",\"-r\",\"-t\",\"15000\",\"--\"]");
}

ATF_TC_WITHOUT_HEAD(create_warnings_refused);
ATF_TC_BODY(create_warnings_refused, tc)
{
	const char	*ok = "{\"Id\":\"" FX_ID "\",\"Warnings\":[]}";
	const char	*okn = "{\"Id\":\"" FX_ID "\",\"Warnings\":null}";
	const char	*warn = "{\"Id\":\"" FX_ID "\",\"Warnings\":[\"Your "
	    "kernel does not support swap limit capabilities\"]}";
	const char	*noid = "{\"Id\":\"abc\",\"Warnings\":[]}";
	char		 id[DKR_CONTAINER_ID_BYTES], why[DKR_WHY_BYTES];

	(void)tc;
	ATF_CHECK_EQ(dkr_create_verify(ok, strlen(ok), id, why, sizeof(why)),
	    DKR_OK);
	ATF_CHECK_STREQ(id, FX_ID);
	ATF_CHECK_EQ(dkr_create_verify(okn, strlen(okn), id, why,
	    sizeof(why)), DKR_OK);
	ATF_CHECK_EQ(dkr_create_verify(warn, strlen(warn), id, why,
	    sizeof(why)), DKR_R_WARNINGS);
	/* The caller still learns what to delete. */
	ATF_CHECK_STREQ(id, FX_ID);
	ATF_CHECK(strstr(why, "swap") == NULL);
	ATF_CHECK_EQ(dkr_create_verify(noid, strlen(noid), id, why,
	    sizeof(why)), DKR_R_ID);
	ATF_CHECK_STREQ(id, "");
}

static enum dkr_reason
image_doc(cJSON *root, const char *pinned)
{
	char		 why[DKR_WHY_BYTES], *s;
	enum dkr_reason	 r;

	ATF_REQUIRE((s = cJSON_PrintUnformatted(root)) != NULL);
	r = dkr_image_verify(s, strlen(s), pinned, why, sizeof(why));
	free(s);
	cJSON_Delete(root);
	return r;
}

ATF_TC_WITHOUT_HEAD(image_admission);
ATF_TC_BODY(image_admission, tc)
{
	cJSON	*r;

	ATF_CHECK_EQ(image_doc(load(tc, "image-good.json"), FX_IMAGE), DKR_OK);
	/* The image that declares VOLUME /data. */
	ATF_CHECK_EQ(image_doc(load(tc, "image-volume.json"), FX_VOLUME_IMAGE),
	    DKR_R_IMG_VOLUMES);
	/* Another image than the pinned one. */
	ATF_CHECK_EQ(image_doc(load(tc, "image-volume.json"), FX_IMAGE),
	    DKR_R_IMG_ID);
	/* A tag or short ID is never an acceptable pin. */
	ATF_CHECK_EQ(image_doc(load(tc, "image-good.json"),
	    "cmcp-test/fixtures:1"), DKR_R_T_IMAGE);
	ATF_CHECK_EQ(image_doc(load(tc, "image-good.json"), "sha256:54204ea0"),
	    DKR_R_T_IMAGE);
	ATF_CHECK_EQ(image_doc(load(tc, "image-good.json"), "54204ea0"),
	    DKR_R_T_IMAGE);
	r = load(tc, "image-good.json");
	set(r, "Config.Healthcheck", parsed("{\"Test\":[\"CMD\",\"/x\"]}"));
	ATF_CHECK_EQ(image_doc(r, FX_IMAGE), DKR_R_IMG_HEALTHCHECK);
	r = load(tc, "image-good.json");
	set(r, "Config.OnBuild", strs("RUN x", NULL));
	ATF_CHECK_EQ(image_doc(r, FX_IMAGE), DKR_R_IMG_ONBUILD);
	r = load(tc, "image-good.json");
	set(r, "Os", cJSON_CreateString("windows"));
	ATF_CHECK_EQ(image_doc(r, FX_IMAGE), DKR_R_IMG_OS);
}

static enum dkr_reason
daemon_docs(cJSON *ver, cJSON *inf)
{
	char		 why[DKR_WHY_BYTES], *v, *i;
	enum dkr_reason	 r;

	ATF_REQUIRE((v = cJSON_PrintUnformatted(ver)) != NULL);
	ATF_REQUIRE((i = cJSON_PrintUnformatted(inf)) != NULL);
	r = dkr_daemon_verify(v, strlen(v), i, strlen(i), why, sizeof(why));
	free(v);
	free(i);
	cJSON_Delete(ver);
	cJSON_Delete(inf);
	return r;
}

#define DAEMON(name, want, doc, stmt)					\
ATF_TC_WITHOUT_HEAD(name);						\
ATF_TC_BODY(name, tc)							\
{									\
	cJSON	*ver = load(tc, "version.json");			\
	cJSON	*inf = load(tc, "info.json");			\
	cJSON	*r = doc;						\
	(void)r;							\
	stmt;								\
	ATF_CHECK_EQ(daemon_docs(ver, inf), want);			\
}

DAEMON(daemon_good_verifies, DKR_OK, inf, (void)0)
DAEMON(daemon_old_api_refused, DKR_R_D_API, ver,
    set(r, "ApiVersion", cJSON_CreateString("1.40")))
DAEMON(daemon_api_garbage_refused, DKR_R_D_API, ver,
    set(r, "ApiVersion", cJSON_CreateString("1.41beta")))
DAEMON(daemon_windows_refused, DKR_R_D_OS, inf,
    set(r, "OSType", cJSON_CreateString("windows")))
DAEMON(daemon_desktop_refused, DKR_R_D_DESKTOP, inf,
    set(r, "OperatingSystem", cJSON_CreateString("Docker Desktop")))
DAEMON(daemon_no_memory_limit_refused, DKR_R_D_MEMORY, inf,
    set(r, "MemoryLimit", cJSON_CreateFalse()))
DAEMON(daemon_no_swap_limit_refused, DKR_R_D_SWAP, inf,
    set(r, "SwapLimit", cJSON_CreateFalse()))
DAEMON(daemon_no_pids_limit_refused, DKR_R_D_PIDS, inf,
    set(r, "PidsLimit", cJSON_CreateFalse()))
DAEMON(daemon_no_seccomp_refused, DKR_R_D_SECCOMP, inf,
    set(r, "SecurityOptions", strs("name=apparmor", NULL)))
DAEMON(daemon_seccomp_unconfined_refused, DKR_R_D_SECCOMP, inf,
    set(r, "SecurityOptions", strs("name=seccomp,profile=unconfined", NULL)))

ATF_TC_WITHOUT_HEAD(exit_status_outcomes);
ATF_TC_BODY(exit_status_outcomes, tc)
{
	int64_t	 s;

	(void)tc;
	for (s = 0; s <= 192; s++)
		ATF_CHECK_EQ(dkr_exit_outcome(s), DKR_EXITED);
	ATF_CHECK_EQ(dkr_exit_outcome(250), DKR_TIME_LIMIT);
	ATF_CHECK_EQ(dkr_exit_outcome(251), DKR_INIT_FAILED);
	for (s = 193; s < 250; s++)
		ATF_CHECK_EQ(dkr_exit_outcome(s), DKR_UNKNOWN);
	ATF_CHECK_EQ(dkr_exit_outcome(255), DKR_UNKNOWN);
	ATF_CHECK_EQ(dkr_exit_outcome(-1), DKR_UNKNOWN);
}

/*
 * dkr_verify.c under mutation (issue 16): each case below is refused by
 * one check alone, the rest of its document as the engine sent it, or
 * shows a bound of the verifier's fixed buffers: the most it takes, and
 * one more refused.
 */

/* Verify root, which is consumed, with the states it may be in. */
static enum dkr_reason
verify_doc_state(cJSON *root, const struct dkr_template *t, int states)
{
	enum dkr_reason	 r;
	char		 why[DKR_WHY_BYTES], *s;

	ATF_REQUIRE((s = cJSON_PrintUnformatted(root)) != NULL);
	r = dkr_inspect_verify_state(s, strlen(s), t, NULL, states, why,
	    sizeof(why));
	free(s);
	cJSON_Delete(root);
	return r;
}

/* Fixture name printed unformatted, with room bytes spare after it. */
static char *
good_text(const atf_tc_t *tc, const char *name, size_t room, size_t *len)
{
	cJSON	*root = load(tc, name);
	char	*s, *buf;

	ATF_REQUIRE((s = cJSON_PrintUnformatted(root)) != NULL);
	cJSON_Delete(root);
	*len = strlen(s);
	ATF_REQUIRE((buf = malloc(*len + room + 1)) != NULL);
	memcpy(buf, s, *len + 1);
	free(s);
	return buf;
}

/* The reason of text s of len bytes against the fixture's template. */
static enum dkr_reason
verify_text(const char *s, size_t len)
{
	struct dkr_template	 t;
	char			 why[DKR_WHY_BYTES];

	fx_template(&t);
	return dkr_inspect_verify(s, len, &t, FX_ID, why, sizeof(why));
}

/* why is optional; when given, it is filled within whylen bytes. */
ATF_TC_WITHOUT_HEAD(reason_buffer_bounds);
ATF_TC_BODY(reason_buffer_bounds, tc)
{
	const char	*want = "refused: HostConfig.NetworkMode";
	struct dkr_template	 t;
	char		 why[DKR_WHY_BYTES], *good, *bad;
	size_t		 glen, blen, n = strlen(want);
	cJSON		*r;

	fx_template(&t);
	good = good_text(tc, "inspect-good.json", 0, &glen);
	r = load(tc, "inspect-good.json");
	set(r, "HostConfig.NetworkMode", cJSON_CreateString("host"));
	ATF_REQUIRE((bad = cJSON_PrintUnformatted(r)) != NULL);
	cJSON_Delete(r);
	blen = strlen(bad);
	/* No buffer: the verdict alone. */
	ATF_CHECK_EQ(dkr_inspect_verify(good, glen, &t, FX_ID, NULL,
	    sizeof(why)), DKR_OK);
	ATF_CHECK_EQ(dkr_inspect_verify(bad, blen, &t, FX_ID, NULL,
	    sizeof(why)), DKR_R_NETWORK);
	/* No room: nothing written. */
	memset(why, 'x', sizeof(why));
	ATF_CHECK_EQ(dkr_inspect_verify(bad, blen, &t, FX_ID, why, 0),
	    DKR_R_NETWORK);
	ATF_CHECK_EQ(why[0], 'x');
	/* One byte: the empty string. */
	ATF_CHECK_EQ(dkr_inspect_verify(bad, blen, &t, FX_ID, why, 1),
	    DKR_R_NETWORK);
	ATF_CHECK_EQ(why[0], '\0');
	ATF_CHECK_EQ(why[1], 'x');
	/* Exactly the reason's size, and one byte less: cut, terminated. */
	memset(why, 'x', sizeof(why));
	ATF_CHECK_EQ(dkr_inspect_verify(bad, blen, &t, FX_ID, why, n + 1),
	    DKR_R_NETWORK);
	ATF_CHECK_STREQ(why, want);
	memset(why, 'x', sizeof(why));
	ATF_CHECK_EQ(dkr_inspect_verify(bad, blen, &t, FX_ID, why, n),
	    DKR_R_NETWORK);
	ATF_CHECK_EQ(strlen(why), n - 1);
	ATF_CHECK(strncmp(why, want, n - 1) == 0);
	ATF_CHECK_EQ(why[n], 'x');
	/* And every reason fits DKR_WHY_BYTES whole. */
	for (n = 0; n < DKR_R_MAX; n++)
		ATF_CHECK_MSG(strlen("refused: ") + strlen(dkr_reason_str(n)) <
		    DKR_WHY_BYTES, "%s", dkr_reason_str(n));
	free(good);
	free(bad);
}

/* The document is at most DKR_RESPONSE_MAX_BYTES, whitespace and all. */
ATF_TC_WITHOUT_HEAD(inspect_size_bound);
ATF_TC_BODY(inspect_size_bound, tc)
{
	char	*s, *buf;
	size_t	 len;

	s = good_text(tc, "inspect-good.json", 0, &len);
	ATF_REQUIRE((buf = malloc(DKR_RESPONSE_MAX_BYTES + 2)) != NULL);
	/* Leading blanks, which the parser itself skips. */
	memset(buf, ' ', DKR_RESPONSE_MAX_BYTES + 1 - len);
	memcpy(buf + DKR_RESPONSE_MAX_BYTES + 1 - len, s, len + 1);
	ATF_CHECK_EQ(verify_text(buf + 1, DKR_RESPONSE_MAX_BYTES), DKR_OK);
	ATF_CHECK_EQ(verify_text(buf, DKR_RESPONSE_MAX_BYTES + 1),
	    DKR_R_JSON);
	free(buf);
	free(s);
}

/* What may follow the document: blanks and NULs, and nothing else. */
ATF_TC_WITHOUT_HEAD(inspect_trailing_blanks_verify);
ATF_TC_BODY(inspect_trailing_blanks_verify, tc)
{
	static const char *const tail[] = { " ", "\t", "\r", "\n", " \t\r\n" };
	char	*s;
	size_t	 len, i;

	s = good_text(tc, "inspect-good.json", 8, &len);
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		strcpy(s + len, tail[i]);
		ATF_CHECK_EQ_MSG(verify_text(s, strlen(s)), DKR_OK, "%zu", i);
	}
	/* The terminating NUL counted in, as a caller may. */
	s[len] = '\0';
	ATF_CHECK_EQ(verify_text(s, len + 1), DKR_OK);
	free(s);
}

ATF_TC_WITHOUT_HEAD(inspect_trailing_garbage_refused);
ATF_TC_BODY(inspect_trailing_garbage_refused, tc)
{
	static const char *const tail[] = { "x", " x", "\tx", "\rx", "\nx",
	    "{}" };
	char	*s;
	size_t	 len, i;

	s = good_text(tc, "inspect-good.json", 8, &len);
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		strcpy(s + len, tail[i]);
		ATF_CHECK_EQ_MSG(verify_text(s, strlen(s)), DKR_R_JSON,
		    "%zu", i);
	}
	/* After a NUL, too. */
	memcpy(s + len, "\0x", 2);
	ATF_CHECK_EQ(verify_text(s, len + 2), DKR_R_JSON);
	free(s);
}

/* The good document as the only element of an array. */
ATF_TC_WITHOUT_HEAD(inspect_in_array_refused);
ATF_TC_BODY(inspect_in_array_refused, tc)
{
	cJSON	*a;
	char	*s;

	ATF_REQUIRE((a = cJSON_CreateArray()) != NULL);
	ATF_REQUIRE(cJSON_AddItemToArray(a, load(tc, "inspect-good.json")));
	ATF_REQUIRE((s = cJSON_PrintUnformatted(a)) != NULL);
	cJSON_Delete(a);
	ATF_CHECK_EQ(verify_text(s, strlen(s)), DKR_R_JSON);
	free(s);
}

/* cJSON's allocations not yet freed, through its hooks. */
static long	 heap_live;

static void *
heap_malloc(size_t n)
{
	void	*p;

	if ((p = malloc(n)) != NULL)
		heap_live++;
	return p;
}

static void
heap_free(void *p)
{
	if (p != NULL)
		heap_live--;
	free(p);
}

static void
heap_count(void)
{
	cJSON_Hooks	 h = { heap_malloc, heap_free };

	heap_live = 0;
	cJSON_InitHooks(&h);
}

/*
 * Every verifier frees its parse, whatever its verdict.  The inspect
 * document is refused before SecurityOpt: the seccomp digest frees its
 * canonical text with free(), which these hooks do not see.
 */
ATF_TC_WITHOUT_HEAD(verifiers_free_documents);
ATF_TC_BODY(verifiers_free_documents, tc)
{
	const char	*create = "{\"Id\":\"" FX_ID "\",\"Warnings\":[]}";
	struct dkr_template	 t;
	cJSON		*r;
	char		*bad, *arr, *img, *ver, *inf;
	char		 id[DKR_CONTAINER_ID_BYTES], why[DKR_WHY_BYTES];
	size_t		 ilen, vlen, nlen;

	fx_template(&t);
	r = load(tc, "inspect-good.json");
	set(r, "HostConfig.NetworkMode", cJSON_CreateString("host"));
	ATF_REQUIRE((bad = cJSON_PrintUnformatted(r)) != NULL);
	cJSON_Delete(r);
	ATF_REQUIRE(asprintf(&arr, "[%s]", bad) != -1);
	img = slurp(tc, "image-good.json", &ilen);
	ver = slurp(tc, "version.json", &vlen);
	inf = slurp(tc, "info.json", &nlen);
	heap_count();
	ATF_CHECK_EQ(dkr_inspect_verify(bad, strlen(bad), &t, FX_ID, why,
	    sizeof(why)), DKR_R_NETWORK);
	ATF_CHECK_EQ(heap_live, 0);
	ATF_CHECK_EQ(dkr_inspect_verify(arr, strlen(arr), &t, FX_ID, why,
	    sizeof(why)), DKR_R_JSON);
	ATF_CHECK_EQ(heap_live, 0);
	ATF_CHECK_EQ(dkr_image_verify(img, ilen, FX_IMAGE, why, sizeof(why)),
	    DKR_OK);
	ATF_CHECK_EQ(heap_live, 0);
	ATF_CHECK_EQ(dkr_daemon_verify(ver, vlen, inf, nlen, why,
	    sizeof(why)), DKR_OK);
	ATF_CHECK_EQ(heap_live, 0);
	/* The version parsed, the info not. */
	ATF_CHECK_EQ(dkr_daemon_verify(ver, vlen, inf, nlen - 2, why,
	    sizeof(why)), DKR_R_JSON);
	ATF_CHECK_EQ(heap_live, 0);
	ATF_CHECK_EQ(dkr_create_verify(create, strlen(create), id, why,
	    sizeof(why)), DKR_OK);
	ATF_CHECK_EQ(heap_live, 0);
	cJSON_InitHooks(NULL);
	free(bad);
	free(arr);
	free(img);
	free(ver);
	free(inf);
}

/* Go takes the last of duplicate keys, and any letter case. */
MUTANT(duplicate_key_same_value_refused, DKR_R_NETWORK,
    cJSON_AddItemToObject(at(r, "HostConfig"), "NetworkMode",
    cJSON_CreateString("none")))
MUTANT(key_other_case_refused, DKR_R_NETWORK,
    (del(r, "HostConfig.NetworkMode"), cJSON_AddItemToObject(at(r,
    "HostConfig"), "networkMode", cJSON_CreateString("none"))))
MUTANT(config_null_refused, DKR_R_USER,
    set(r, "Config", cJSON_CreateNull()))
MUTANT(stop_timeout_other_refused, DKR_R_STOPTIMEOUT,
    set(r, "Config.StopTimeout", cJSON_CreateNumber(10)))
MUTANT(stop_timeout_string_refused, DKR_R_STOPTIMEOUT,
    set(r, "Config.StopTimeout", cJSON_CreateString("0")))
MUTANT(config_volumes_string_refused, DKR_R_VOLUMES,
    set(r, "Config.Volumes", cJSON_CreateString("/export")))
MUTANT(env_as_object_refused, DKR_R_ENV,
    set(r, "Config.Env", parsed("{\"PATH\":\"PATH=/bin\"}")))
MUTANT(env_not_string_refused, DKR_R_ENV,
    set(r, "Config.Env", parsed("[1]")))
MUTANT(env_empty_refused, DKR_R_ENV,
    set(r, "Config.Env", cJSON_CreateArray()))
MUTANT(masked_paths_missing_refused, DKR_R_MASKED,
    del(r, "HostConfig.MaskedPaths"))
MUTANT(masked_paths_kcore_missing_refused, DKR_R_MASKED,
    cJSON_DeleteItemFromArray(at(r, "HostConfig.MaskedPaths"), 2))
MUTANT(masked_paths_number_refused, DKR_R_MASKED,
    cJSON_ReplaceItemInArray(at(r, "HostConfig.MaskedPaths"), 2,
    cJSON_CreateNumber(1)))
MUTANT(mounts_as_object_refused, DKR_R_MOUNTS,
    set(r, "Mounts", parsed("{\"m\":{\"Type\":\"bind\",\"Source\":\""
    FX_INIT "\",\"Destination\":\"/cmcp-init\",\"Mode\":\"\","
    "\"RW\":false,\"Propagation\":\"rprivate\"}}")))
MUTANT(hc_mounts_as_object_refused, DKR_R_HC_MOUNTS,
    set(r, "HostConfig.Mounts", parsed("{\"m\":" INIT_BIND "}")))
MUTANT(hc_init_mount_other_source_refused, DKR_R_HC_MOUNT_SOURCE,
    put(cJSON_GetArrayItem(at(r, "HostConfig.Mounts"), 0), "Source",
    cJSON_CreateString("/")))
MUTANT(hc_mount_bind_option_extra_refused, DKR_R_HC_MOUNT_OPTIONS,
    put(at(cJSON_GetArrayItem(at(r, "HostConfig.Mounts"), 0),
    "BindOptions"), "CreateMountpoint", cJSON_CreateTrue()))
MUTANT(hc_mount_tmpfs_options_refused, DKR_R_HC_MOUNT_OPTIONS,
    put(cJSON_GetArrayItem(at(r, "HostConfig.Mounts"), 0), "TmpfsOptions",
    cJSON_CreateObject()))
MUTANT(hc_mount_consistency_refused, DKR_R_HC_MOUNT_OPTIONS,
    put(cJSON_GetArrayItem(at(r, "HostConfig.Mounts"), 0), "Consistency",
    cJSON_CreateString("cached")))
MUTANT(state_paused_refused, DKR_R_STATE,
    set(r, "State.Paused", cJSON_CreateTrue()))
MUTANT(open_stdin_off_refused, DKR_R_STDIO,
    set(r, "Config.OpenStdin", cJSON_CreateFalse()))
MUTANT(attach_stdin_off_refused, DKR_R_STDIO,
    set(r, "Config.AttachStdin", cJSON_CreateFalse()))
MUTANT(attach_stdout_off_refused, DKR_R_STDIO,
    set(r, "Config.AttachStdout", cJSON_CreateFalse()))
MUTANT(attach_stderr_off_refused, DKR_R_STDIO,
    set(r, "Config.AttachStderr", cJSON_CreateFalse()))
MUTANT(labels_instance_other_refused, DKR_R_LABELS,
    put(at(r, "Config.Labels"), DKR_LABEL_INSTANCE,
    cJSON_CreateString("other")))
MUTANT(labels_session_other_refused, DKR_R_LABELS,
    put(at(r, "Config.Labels"), DKR_LABEL_SESSION,
    cJSON_CreateString("other")))
MUTANT(workdir_other_refused, DKR_R_WORKDIR,
    set(r, "Config.WorkingDir", cJSON_CreateString("/tmp")))
MUTANT(exposed_ports_refused, DKR_R_EXPOSED,
    set(r, "Config.ExposedPorts", parsed("{\"80/tcp\":{}}")))
MUTANT(ulimits_missing_refused, DKR_R_ULIMITS,
    del(r, "HostConfig.Ulimits"))
MUTANT(ulimit_name_not_string_refused, DKR_R_ULIMITS,
    put(cJSON_GetArrayItem(at(r, "HostConfig.Ulimits"), 0), "Name",
    cJSON_CreateNumber(0)))

/* An image that exposes no port: present, and empty. */
ATF_TC_WITHOUT_HEAD(exposed_ports_empty_verifies);
ATF_TC_BODY(exposed_ports_empty_verifies, tc)
{
	cJSON	*r = load(tc, "inspect-good.json");
	char	 why[DKR_WHY_BYTES];

	set(r, "Config.ExposedPorts", cJSON_CreateObject());
	ATF_CHECK_EQ_MSG(verify_doc(r, why, sizeof(why)), DKR_OK, "%s", why);
	r = load(tc, "inspect-good.json");
	del(r, "Config.ExposedPorts");
	ATF_CHECK_EQ_MSG(verify_doc(r, why, sizeof(why)), DKR_OK, "%s", why);
}

/* Without an expected ID, the document's must still be one. */
ATF_TC_WITHOUT_HEAD(id_malformed_refused);
ATF_TC_BODY(id_malformed_refused, tc)
{
	struct dkr_template	 t;
	cJSON			*r = load(tc, "inspect-good.json");

	fx_template(&t);
	set(r, "Id", cJSON_CreateString("abc"));
	refused_as(r, &t, DKR_R_ID);
}

/* State.Status is one of the states asked for, and only those. */
ATF_TC_WITHOUT_HEAD(state_only_asked);
ATF_TC_BODY(state_only_asked, tc)
{
	static const struct {
		const char	*status;
		int		 states;
		enum dkr_reason	 want;
	} c[] = {
		{ "created",	DKR_STATE_CREATED,	DKR_OK },
		{ "created",	DKR_STATE_RUNNING | DKR_STATE_EXITED,
		    DKR_R_STATE },
		{ "running",	DKR_STATE_RUNNING,	DKR_OK },
		{ "running",	DKR_STATE_CREATED | DKR_STATE_EXITED,
		    DKR_R_STATE },
		{ "exited",	DKR_STATE_EXITED,	DKR_OK },
		{ "exited",	DKR_STATE_CREATED | DKR_STATE_RUNNING,
		    DKR_R_STATE },
		{ "dead",	DKR_STATE_CREATED | DKR_STATE_RUNNING |
		    DKR_STATE_EXITED,				DKR_R_STATE },
		{ "paused",	DKR_STATE_CREATED | DKR_STATE_RUNNING |
		    DKR_STATE_EXITED,				DKR_R_STATE },
	};
	struct dkr_template	 t;
	cJSON			*r;
	size_t			 i;

	fx_template(&t);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		r = load(tc, "inspect-good.json");
		set(r, "State.Status", cJSON_CreateString(c[i].status));
		ATF_CHECK_EQ_MSG(verify_doc_state(r, &t, c[i].states),
		    c[i].want, "%s %d", c[i].status, c[i].states);
	}
}

/* The template's most environment: exactly DKR_ENV_MAX, not one more. */
ATF_TC_WITHOUT_HEAD(env_max_verifies);
ATF_TC_BODY(env_max_verifies, tc)
{
	struct dkr_template	 t;
	cJSON			*r = load(tc, "inspect-good.json"), *e;
	char			 why[DKR_WHY_BYTES];
	size_t			 i;

	fx_template(&t);
	ATF_REQUIRE((e = cJSON_CreateArray()) != NULL);
	for (i = 0; i < DKR_ENV_MAX; i++) {
		snprintf(t.env[i], sizeof(t.env[i]), "V%zu=%zu", i, i);
		ATF_REQUIRE(cJSON_AddItemToArray(e,
		    cJSON_CreateString(t.env[i])));
	}
	t.envc = DKR_ENV_MAX;
	set(r, "Config.Env", e);
	ATF_CHECK_EQ_MSG(verify_doc_as(r, &t, FX_ID, why, sizeof(why)),
	    DKR_OK, "%s", why);
	t.envc = DKR_ENV_MAX + 1;
	ATF_CHECK_EQ(verify_doc_as(load(tc, "inspect-good.json"), &t, FX_ID,
	    why, sizeof(why)), DKR_R_T_ENV);
}

/* The longest argument vectors: the relay's entry point, DKR_ARGV_MAX. */
ATF_TC_WITHOUT_HEAD(argv_max_verifies);
ATF_TC_BODY(argv_max_verifies, tc)
{
	struct dkr_template	 t;
	cJSON			*r = load(tc, "inspect-relay.json"), *a, *c;
	char			 why[DKR_WHY_BYTES];
	size_t			 i;

	fx_relay_template(&t);
	ATF_REQUIRE((a = parsed("[\"-r\",\"-t\",\"15000\",\"--\"]")) != NULL);
	ATF_REQUIRE((c = cJSON_CreateArray()) != NULL);
	for (i = 0; i < DKR_ARGV_MAX; i++) {
		snprintf(t.argv[i], sizeof(t.argv[i]), "/a%zu", i);
		ATF_REQUIRE(cJSON_AddItemToArray(a,
		    cJSON_CreateString(t.argv[i])));
		ATF_REQUIRE(cJSON_AddItemToArray(c,
		    cJSON_CreateString(t.argv[i])));
	}
	t.argc = DKR_ARGV_MAX;
	set(r, "Args", a);
	set(r, "Config.Cmd", c);
	ATF_CHECK_EQ_MSG(verify_doc_as(r, &t, FX_RELAY_ID, why, sizeof(why)),
	    DKR_OK, "%s", why);
	t.argc = DKR_ARGV_MAX + 1;
	ATF_CHECK_EQ(verify_doc_as(load(tc, "inspect-relay.json"), &t,
	    FX_RELAY_ID, why, sizeof(why)), DKR_R_T_ARGV);
}

/* The widest user and deadline the template takes, as the engine shows. */
ATF_TC_WITHOUT_HEAD(user_deadline_max_verify);
ATF_TC_BODY(user_deadline_max_verify, tc)
{
	struct dkr_template	 t;
	cJSON			*r = load(tc, "inspect-good.json");
	char			 why[DKR_WHY_BYTES], ms[32];

	fx_template(&t);
	t.uid = INT32_MAX;
	t.gid = INT32_MAX;
	t.deadline_ms = CMCP_INIT_MAX_MS;
	snprintf(ms, sizeof(ms), "%d", CMCP_INIT_MAX_MS);
	set(r, "Config.User", cJSON_CreateString("2147483647:2147483647"));
	set(r, "Config.Entrypoint", cJSON_CreateStringArray((const char *[])
	    { "/cmcp-init", "-t", ms, "--" }, 4));
	set(r, "Args", cJSON_CreateStringArray((const char *[])
	    { "-t", ms, "--", "/report" }, 4));
	ATF_CHECK_EQ_MSG(verify_doc_as(r, &t, FX_ID, why, sizeof(why)),
	    DKR_OK, "%s", why);
	t.uid = (uid_t)INT32_MAX + 1;
	ATF_CHECK_EQ(verify_doc_as(load(tc, "inspect-good.json"), &t, FX_ID,
	    why, sizeof(why)), DKR_R_T_USER);
	t.uid = INT32_MAX;
	t.deadline_ms = CMCP_INIT_MAX_MS + 1;
	ATF_CHECK_EQ(verify_doc_as(load(tc, "inspect-good.json"), &t, FX_ID,
	    why, sizeof(why)), DKR_R_T_DEADLINE);
}

/* The most binds a server has, DKR_MOUNTS_MAX, in both mount lists. */
ATF_TC_WITHOUT_HEAD(server_mounts_max_verify);
ATF_TC_BODY(server_mounts_max_verify, tc)
{
	struct dkr_template	 t;
	cJSON			*r = load(tc, "inspect-server.json"), *m, *h;
	cJSON			*mounts, *hcmounts;
	char			 why[DKR_WHY_BYTES];
	size_t			 i;

	fx_server_template(&t);
	mounts = at(r, "Mounts");
	hcmounts = at(r, "HostConfig.Mounts");
	m = entry(r, "Mounts", "Destination", FX_RO_TARGET);
	h = entry(r, "HostConfig.Mounts", "Target", FX_RO_TARGET);
	for (i = 2; i < DKR_MOUNTS_MAX; i++) {
		snprintf(t.mounts[i].source, sizeof(t.mounts[i].source),
		    "/srv/d%zu", i);
		snprintf(t.mounts[i].target, sizeof(t.mounts[i].target),
		    "/data/d%zu", i);
		t.mounts[i].readonly = 1;
		ATF_REQUIRE(cJSON_AddItemToArray(mounts,
		    cJSON_Duplicate(m, 1)));
		put(cJSON_GetArrayItem(mounts, i + 1), "Source",
		    cJSON_CreateString(t.mounts[i].source));
		put(cJSON_GetArrayItem(mounts, i + 1), "Destination",
		    cJSON_CreateString(t.mounts[i].target));
		ATF_REQUIRE(cJSON_AddItemToArray(hcmounts,
		    cJSON_Duplicate(h, 1)));
		put(cJSON_GetArrayItem(hcmounts, i + 1), "Source",
		    cJSON_CreateString(t.mounts[i].source));
		put(cJSON_GetArrayItem(hcmounts, i + 1), "Target",
		    cJSON_CreateString(t.mounts[i].target));
	}
	t.nmounts = DKR_MOUNTS_MAX;
	ATF_CHECK_EQ_MSG(verify_doc_as(r, &t, FX_SERVER_ID, why, sizeof(why)),
	    DKR_OK, "%s", why);
	t.nmounts = DKR_MOUNTS_MAX + 1;
	ATF_CHECK_EQ(verify_doc_as(load(tc, "inspect-server.json"), &t,
	    FX_SERVER_ID, why, sizeof(why)), DKR_R_T_MOUNTS);
}

/* The create response's ID fills id exactly; a longer one is refused. */
ATF_TC_WITHOUT_HEAD(create_id_bounds);
ATF_TC_BODY(create_id_bounds, tc)
{
	const char	*ok = "{\"Id\":\"" FX_ID "\",\"Warnings\":[]}";
	const char	*longer = "{\"Id\":\"" FX_ID "0\",\"Warnings\":[]}";
	char		 id[DKR_CONTAINER_ID_BYTES + 1], why[DKR_WHY_BYTES];

	(void)tc;
	memset(id, 'x', sizeof(id));
	ATF_CHECK_EQ(dkr_create_verify(ok, strlen(ok), id, why, sizeof(why)),
	    DKR_OK);
	ATF_CHECK_STREQ(id, FX_ID);
	ATF_CHECK_EQ(id[DKR_CONTAINER_ID_BYTES], 'x');
	memset(id, 'x', sizeof(id));
	ATF_CHECK_EQ(dkr_create_verify(longer, strlen(longer), id, why,
	    sizeof(why)), DKR_R_ID);
	ATF_CHECK_STREQ(id, "");
}

ATF_TC_WITHOUT_HEAD(create_id_not_string_refused);
ATF_TC_BODY(create_id_not_string_refused, tc)
{
	const char	*num = "{\"Id\":6271,\"Warnings\":[]}";
	char		 id[DKR_CONTAINER_ID_BYTES], why[DKR_WHY_BYTES];

	(void)tc;
	ATF_CHECK_EQ(dkr_create_verify(num, strlen(num), id, why,
	    sizeof(why)), DKR_R_ID);
	ATF_CHECK_STREQ(id, "");
}

MUTANT(config_missing_refused, DKR_R_USER,
    cJSON_DeleteItemFromObjectCaseSensitive(r, "Config"))
MUTANT(core_soft_unlimited_refused, DKR_R_ULIMITS,
    put(cJSON_GetArrayItem(at(r, "HostConfig.Ulimits"), 0), "Soft",
    cJSON_CreateNumber(-1)))
MUTANT(core_hard_unlimited_refused, DKR_R_ULIMITS,
    put(cJSON_GetArrayItem(at(r, "HostConfig.Ulimits"), 0), "Hard",
    cJSON_CreateNumber(-1)))
/* fsize in core's place, with core's values: three limits, one unknown. */
MUTANT(ulimit_name_unknown_refused, DKR_R_ULIMITS,
    put(cJSON_GetArrayItem(at(r, "HostConfig.Ulimits"), 0), "Name",
    cJSON_CreateString("fsize")))
MUTANT(secopt_not_string_refused, DKR_R_SECOPT,
    cJSON_ReplaceItemInArray(at(r, "HostConfig.SecurityOpt"), 0,
    cJSON_CreateNumber(1)))
MUTANT(seccomp_not_string_refused, DKR_R_SECCOMP,
    cJSON_ReplaceItemInArray(at(r, "HostConfig.SecurityOpt"), 1,
    cJSON_CreateNumber(1)))
MUTANT(tmpfs_empty_verifies, DKR_OK,
    set(r, "HostConfig.Tmpfs", cJSON_CreateObject()))
MUTANT(sysctls_empty_verifies, DKR_OK,
    set(r, "HostConfig.Sysctls", cJSON_CreateNull()))
MUTANT(log_options_refused, DKR_R_LOG,
    set(r, "HostConfig.LogConfig.Config", parsed("{\"max-size\":\"1m\"}")))
MUTANT(restart_retries_refused, DKR_R_RESTART,
    set(r, "HostConfig.RestartPolicy.MaximumRetryCount",
    cJSON_CreateNumber(3)))
MUTANT(readonly_paths_proc_sys_missing_refused, DKR_R_ROPATHS,
    cJSON_DeleteItemFromArray(at(r, "HostConfig.ReadonlyPaths"), 3))
MUTANT(networks_missing_refused, DKR_R_NETWORKS,
    del(r, "NetworkSettings.Networks"))
MUTANT(networks_empty_refused, DKR_R_NETWORKS,
    set(r, "NetworkSettings.Networks", cJSON_CreateObject()))
MUTANT(networks_bridge_only_refused, DKR_R_NETWORKS,
    set(r, "NetworkSettings.Networks", parsed("{\"bridge\":{}}")))

/* SecurityOpt's two entries as members of an object. */
ATF_TC_WITHOUT_HEAD(secopt_as_object_refused);
ATF_TC_BODY(secopt_as_object_refused, tc)
{
	cJSON	*r = load(tc, "inspect-good.json"), *so, *o;

	so = at(r, "HostConfig.SecurityOpt");
	ATF_REQUIRE((o = cJSON_CreateObject()) != NULL);
	ATF_REQUIRE(cJSON_AddItemToObject(o, "a",
	    cJSON_Duplicate(cJSON_GetArrayItem(so, 0), 1)));
	ATF_REQUIRE(cJSON_AddItemToObject(o, "b",
	    cJSON_Duplicate(cJSON_GetArrayItem(so, 1), 1)));
	set(r, "HostConfig.SecurityOpt", o);
	refused_with(r, DKR_R_SECOPT);
}

/* Our profile under another spelling of the option's name. */
ATF_TC_WITHOUT_HEAD(seccomp_key_other_case_refused);
ATF_TC_BODY(seccomp_key_other_case_refused, tc)
{
	cJSON	*r = load(tc, "inspect-good.json"), *e;
	char	*opt;

	e = cJSON_GetArrayItem(at(r, "HostConfig.SecurityOpt"), 1);
	ATF_REQUIRE(cJSON_IsString(e) &&
	    strncmp(e->valuestring, "seccomp=", 8) == 0);
	ATF_REQUIRE(asprintf(&opt, "SECCOMP=%s", e->valuestring + 8) != -1);
	cJSON_ReplaceItemInArray(at(r, "HostConfig.SecurityOpt"), 1,
	    cJSON_CreateString(opt));
	free(opt);
	refused_with(r, DKR_R_SECCOMP);
}

/* A profile that is not JSON, right after one that verified. */
ATF_TC_WITHOUT_HEAD(seccomp_malformed_refused);
ATF_TC_BODY(seccomp_malformed_refused, tc)
{
	struct dkr_template	 t;
	cJSON			*r = load(tc, "inspect-good.json");
	char			*good, *bad, why[DKR_WHY_BYTES];
	size_t			 len;

	fx_template(&t);
	good = good_text(tc, "inspect-good.json", 0, &len);
	cJSON_ReplaceItemInArray(at(r, "HostConfig.SecurityOpt"), 1,
	    cJSON_CreateString("seccomp={\"defaultAction\":"));
	ATF_REQUIRE((bad = cJSON_PrintUnformatted(r)) != NULL);
	cJSON_Delete(r);
	ATF_CHECK_EQ(dkr_inspect_verify(good, len, &t, FX_ID, why,
	    sizeof(why)), DKR_OK);
	ATF_CHECK_EQ(dkr_inspect_verify(bad, strlen(bad), &t, FX_ID, why,
	    sizeof(why)), DKR_R_SECCOMP);
	free(good);
	free(bad);
}

/* A template too weak is refused before the document, which matches it. */
ATF_TC_WITHOUT_HEAD(inspect_weak_template_refused);
ATF_TC_BODY(inspect_weak_template_refused, tc)
{
	struct dkr_template	 t;
	cJSON			*r = load(tc, "inspect-good.json");

	fx_template(&t);
	t.uid = 0;
	t.gid = 0;
	set(r, "Config.User", cJSON_CreateString("0:0"));
	refused_as(r, &t, DKR_R_T_USER);
}

/* What is not JSON says so, in the return and in why. */
ATF_TC_WITHOUT_HEAD(malformed_reason_named);
ATF_TC_BODY(malformed_reason_named, tc)
{
	struct dkr_template	 t;
	char			 why[DKR_WHY_BYTES], want[DKR_WHY_BYTES], *img;
	char			 id[DKR_CONTAINER_ID_BYTES];
	size_t			 len;

	fx_template(&t);
	snprintf(want, sizeof(want), "refused: %s",
	    dkr_reason_str(DKR_R_JSON));
	why[0] = '\0';
	ATF_CHECK_EQ(dkr_inspect_verify("{", 1, &t, NULL, why, sizeof(why)),
	    DKR_R_JSON);
	ATF_CHECK_STREQ(why, want);
	why[0] = '\0';
	ATF_CHECK_EQ(dkr_create_verify("{", 1, id, why, sizeof(why)),
	    DKR_R_JSON);
	ATF_CHECK_STREQ(why, want);
	/* The image document cut short by one byte. */
	img = slurp(tc, "image-good.json", &len);
	while (len > 1 && img[len - 1] == '\n')
		len--;
	ATF_CHECK_EQ(dkr_image_verify(img, len, FX_IMAGE, why, sizeof(why)),
	    DKR_OK);
	why[0] = '\0';
	ATF_CHECK_EQ(dkr_image_verify(img, len - 1, FX_IMAGE, why,
	    sizeof(why)), DKR_R_JSON);
	ATF_CHECK_STREQ(why, want);
	/* No pin at all. */
	ATF_CHECK_EQ(dkr_image_verify(img, len, NULL, why, sizeof(why)),
	    DKR_R_T_IMAGE);
	free(img);
}

/* ApiVersion is "major.minor" in decimal, at least 1.41. */
ATF_TC_WITHOUT_HEAD(daemon_api_versions);
ATF_TC_BODY(daemon_api_versions, tc)
{
	static const char *const ok[] = {
		"1.41", "1.42", "1.99", "1.100", "2.0", "9.0", "01.41",
		"1.041", "1000.0", "1.1000",
	};
	static const char *const bad[] = {
		"1.40", "0.99", "", " 1.41", "+1.41", "1.41 ", "1.", "1",
		".41", "1.+41", "1. 41", "1,41", "1a.0", "1.41x", "1001.0",
		"1.1001", "1.41.0", "x1.41",
	};
	cJSON	*ver;
	size_t	 i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ver = load(tc, "version.json");
		set(ver, "ApiVersion", cJSON_CreateString(ok[i]));
		ATF_CHECK_EQ_MSG(daemon_docs(ver, load(tc, "info.json")),
		    DKR_OK, "%s", ok[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ver = load(tc, "version.json");
		set(ver, "ApiVersion", cJSON_CreateString(bad[i]));
		ATF_CHECK_EQ_MSG(daemon_docs(ver, load(tc, "info.json")),
		    DKR_R_D_API, "\"%s\"", bad[i]);
	}
	ver = load(tc, "version.json");
	set(ver, "ApiVersion", cJSON_CreateNumber(1.41));
	ATF_CHECK_EQ(daemon_docs(ver, load(tc, "info.json")), DKR_R_D_API);
}

DAEMON(daemon_version_os_refused, DKR_R_D_OS, ver,
    set(r, "Os", cJSON_CreateString("windows")))
DAEMON(daemon_operating_system_missing_refused, DKR_R_D_DESKTOP, inf,
    cJSON_DeleteItemFromObjectCaseSensitive(r, "OperatingSystem"))
DAEMON(daemon_security_options_missing_refused, DKR_R_D_SECCOMP, inf,
    cJSON_DeleteItemFromObjectCaseSensitive(r, "SecurityOptions"))
DAEMON(daemon_security_options_object_refused, DKR_R_D_SECCOMP, inf,
    set(r, "SecurityOptions", parsed("{\"a\":\"name=seccomp,"
    "profile=default\"}")))
DAEMON(daemon_security_option_number_refused, DKR_R_D_SECCOMP, inf,
    set(r, "SecurityOptions", parsed("[1]")))
DAEMON(daemon_seccomp_misspelt_refused, DKR_R_D_SECCOMP, inf,
    set(r, "SecurityOptions", strs("name=seccomP,profile=default", NULL)))

/* Either daemon document not JSON: named so, in the return and why. */
ATF_TC_WITHOUT_HEAD(daemon_malformed_refused);
ATF_TC_BODY(daemon_malformed_refused, tc)
{
	char	 why[DKR_WHY_BYTES], want[DKR_WHY_BYTES], *ver, *inf;
	size_t	 vlen, ilen;

	snprintf(want, sizeof(want), "refused: %s",
	    dkr_reason_str(DKR_R_JSON));
	ver = slurp(tc, "version.json", &vlen);
	inf = slurp(tc, "info.json", &ilen);
	ATF_CHECK_EQ(dkr_daemon_verify(ver, vlen, inf, ilen, why,
	    sizeof(why)), DKR_OK);
	ATF_CHECK_EQ(dkr_daemon_verify(ver, vlen - 2, inf, ilen, why,
	    sizeof(why)), DKR_R_JSON);
	ATF_CHECK_STREQ(why, want);
	why[0] = '\0';
	ATF_CHECK_EQ(dkr_daemon_verify(ver, vlen, inf, ilen - 2, why,
	    sizeof(why)), DKR_R_JSON);
	ATF_CHECK_STREQ(why, want);
	free(ver);
	free(inf);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, template_body_exact);
	ATF_TP_ADD_TC(tp, template_body_cpu_limit);
	ATF_TP_ADD_TC(tp, template_body_alloc_failure_refused);
	ATF_TP_ADD_TC(tp, template_body_secopt_failure_refused);
	ATF_TP_ADD_TC(tp, template_image_id_exact);
	ATF_TP_ADD_TC(tp, template_label_bounds);
	ATF_TP_ADD_TC(tp, template_reason_kind_names);
	ATF_TP_ADD_TC(tp, template_argv_bounds);
	ATF_TP_ADD_TC(tp, template_init_path_bounds);
	ATF_TP_ADD_TC(tp, template_env_bounds);
	ATF_TP_ADD_TC(tp, template_user_bounds);
	ATF_TP_ADD_TC(tp, template_limit_bounds);
	ATF_TP_ADD_TC(tp, template_mount_paths);

	ATF_TP_ADD_TC(tp, inspect_good_verifies);
	ATF_TP_ADD_TC(tp, network_host_refused);
	ATF_TP_ADD_TC(tp, rootfs_writable_refused);
	ATF_TP_ADD_TC(tp, privileged_refused);
	ATF_TP_ADD_TC(tp, capadd_sys_admin_refused);
	ATF_TP_ADD_TC(tp, log_json_file_refused);
	ATF_TP_ADD_TC(tp, restart_always_refused);
	ATF_TP_ADD_TC(tp, core_unlimited_refused);
	ATF_TP_ADD_TC(tp, binds_refused);
	ATF_TP_ADD_TC(tp, pid_host_refused);
	ATF_TP_ADD_TC(tp, ipc_host_refused);
	ATF_TP_ADD_TC(tp, user_root_refused);
	ATF_TP_ADD_TC(tp, config_volumes_refused);
	ATF_TP_ADD_TC(tp, swap_unlimited_refused);
	ATF_TP_ADD_TC(tp, swap_double_refused);
	ATF_TP_ADD_TC(tp, extra_mount_refused);
	ATF_TP_ADD_TC(tp, no_mount_refused);
	ATF_TP_ADD_TC(tp, init_mount_writable_refused);
	ATF_TP_ADD_TC(tp, init_mount_other_source_refused);
	ATF_TP_ADD_TC(tp, hc_extra_mount_refused);
	ATF_TP_ADD_TC(tp, capadd_all_refused);
	ATF_TP_ADD_TC(tp, capdrop_empty_refused);
	ATF_TP_ADD_TC(tp, capdrop_partial_refused);
	ATF_TP_ADD_TC(tp, no_new_privileges_missing_refused);
	ATF_TP_ADD_TC(tp, seccomp_unconfined_refused);
	ATF_TP_ADD_TC(tp, seccomp_default_refused);
	ATF_TP_ADD_TC(tp, seccomp_file_refused);
	ATF_TP_ADD_TC(tp, seccomp_first_refused);
	ATF_TP_ADD_TC(tp, secopt_third_entry_refused);
	ATF_TP_ADD_TC(tp, secopt_nnp_false_refused);
	ATF_TP_ADD_TC(tp, seccomp_call_added_refused);
	ATF_TP_ADD_TC(tp, seccomp_call_removed_refused);
	ATF_TP_ADD_TC(tp, seccomp_log_default_refused);
	ATF_TP_ADD_TC(tp, seccomp_errno_changed_refused);
	ATF_TP_ADD_TC(tp, seccomp_clone_unchecked_refused);
	ATF_TP_ADD_TC(tp, seccomp_arch_added_refused);
	ATF_TP_ADD_TC(tp, seccomp_reformatted_verifies);
	ATF_TP_ADD_TC(tp, tty_refused);
	ATF_TP_ADD_TC(tp, stdin_once_off_refused);
	ATF_TP_ADD_TC(tp, user_root_gid_refused);
	ATF_TP_ADD_TC(tp, user_name_refused);
	ATF_TP_ADD_TC(tp, user_without_gid_refused);
	ATF_TP_ADD_TC(tp, image_other_refused);
	ATF_TP_ADD_TC(tp, config_image_tag_refused);
	ATF_TP_ADD_TC(tp, id_other_refused);
	ATF_TP_ADD_TC(tp, pids_unlimited_refused);
	ATF_TP_ADD_TC(tp, pids_null_refused);
	ATF_TP_ADD_TC(tp, pids_fraction_refused);
	ATF_TP_ADD_TC(tp, memory_zero_refused);
	ATF_TP_ADD_TC(tp, memory_as_string_refused);
	ATF_TP_ADD_TC(tp, cpus_unlimited_refused);
	ATF_TP_ADD_TC(tp, nofile_missing_refused);
	ATF_TP_ADD_TC(tp, core_duplicate_refused);
	ATF_TP_ADD_TC(tp, rlimit_extra_refused);
	ATF_TP_ADD_TC(tp, uts_host_refused);
	ATF_TP_ADD_TC(tp, userns_host_refused);
	ATF_TP_ADD_TC(tp, cgroupns_host_refused);
	ATF_TP_ADD_TC(tp, pid_container_refused);
	ATF_TP_ADD_TC(tp, ipc_private_refused);
	ATF_TP_ADD_TC(tp, ipc_shareable_refused);
	ATF_TP_ADD_TC(tp, ipc_container_refused);
	ATF_TP_ADD_TC(tp, ipc_daemon_default_refused);
	ATF_TP_ADD_TC(tp, devices_refused);
	ATF_TP_ADD_TC(tp, device_requests_refused);
	ATF_TP_ADD_TC(tp, port_bindings_refused);
	ATF_TP_ADD_TC(tp, group_add_refused);
	ATF_TP_ADD_TC(tp, masked_paths_empty_refused);
	ATF_TP_ADD_TC(tp, readonly_paths_empty_refused);
	ATF_TP_ADD_TC(tp, docker_init_refused);
	ATF_TP_ADD_TC(tp, runtime_other_refused);
	ATF_TP_ADD_TC(tp, auto_remove_refused);
	ATF_TP_ADD_TC(tp, tmpfs_refused);
	ATF_TP_ADD_TC(tp, sysctls_refused);
	ATF_TP_ADD_TC(tp, entrypoint_other_refused);
	ATF_TP_ADD_TC(tp, deadline_other_refused);
	ATF_TP_ADD_TC(tp, path_other_refused);
	ATF_TP_ADD_TC(tp, cmd_other_refused);
	ATF_TP_ADD_TC(tp, env_extra_refused);
	ATF_TP_ADD_TC(tp, labels_session_missing_refused);
	ATF_TP_ADD_TC(tp, labels_extra_refused);
	ATF_TP_ADD_TC(tp, labels_kind_missing_refused);
	ATF_TP_ADD_TC(tp, labels_kind_other_refused);
	ATF_TP_ADD_TC(tp, healthcheck_refused);
	ATF_TP_ADD_TC(tp, extra_network_refused);
	ATF_TP_ADD_TC(tp, apparmor_unconfined_refused);
	ATF_TP_ADD_TC(tp, apparmor_other_refused);
	ATF_TP_ADD_TC(tp, apparmor_missing_refused);
	ATF_TP_ADD_TC(tp, apparmor_engine_default_verifies);
	ATF_TP_ADD_TC(tp, state_restarting_refused);
	ATF_TP_ADD_TC(tp, state_exited_refused);
	ATF_TP_ADD_TC(tp, relay_entrypoint_unasked_refused);
	ATF_TP_ADD_TC(tp, relay_args_unasked_refused);
	ATF_TP_ADD_TC(tp, relay_inspect_verifies);
	ATF_TP_ADD_TC(tp, relay_container_unasked_refused);
	ATF_TP_ADD_TC(tp, relay_container_missing_refused);
	ATF_TP_ADD_TC(tp, relay_entrypoint_missing_refused);
	ATF_TP_ADD_TC(tp, relay_args_missing_refused);
	ATF_TP_ADD_TC(tp, relay_entrypoint_reordered_refused);
	ATF_TP_ADD_TC(tp, relay_entrypoint_twice_refused);
	ATF_TP_ADD_TC(tp, server_inspect_verifies);
	ATF_TP_ADD_TC(tp, server_mount_source_refused);
	ATF_TP_ADD_TC(tp, server_mount_rw_source_refused);
	ATF_TP_ADD_TC(tp, server_mount_destination_refused);
	ATF_TP_ADD_TC(tp, server_mount_destination_twice_refused);
	ATF_TP_ADD_TC(tp, server_mount_ro_writable_refused);
	ATF_TP_ADD_TC(tp, server_mount_rw_readonly_refused);
	ATF_TP_ADD_TC(tp, server_mount_rw_missing_refused);
	ATF_TP_ADD_TC(tp, server_mount_propagation_refused);
	ATF_TP_ADD_TC(tp, server_mount_propagation_slave_refused);
	ATF_TP_ADD_TC(tp, server_mount_type_refused);
	ATF_TP_ADD_TC(tp, server_mount_extra_refused);
	ATF_TP_ADD_TC(tp, server_mount_missing_refused);
	ATF_TP_ADD_TC(tp, server_mount_rw_duplicate_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_source_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_target_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_ro_writable_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_ro_missing_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_rw_readonly_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_rw_duplicate_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_propagation_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_recursive_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_volume_options_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_type_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_extra_refused);
	ATF_TP_ADD_TC(tp, server_hc_mount_missing_refused);
	ATF_TP_ADD_TC(tp, server_template_fewer_mounts_refused);
	ATF_TP_ADD_TC(tp, server_template_rw_asked_refused);
	ATF_TP_ADD_TC(tp, server_template_other_source_refused);
	ATF_TP_ADD_TC(tp, server_label_name_refused);
	ATF_TP_ADD_TC(tp, server_label_name_missing_refused);
	ATF_TP_ADD_TC(tp, server_label_kind_refused);
	ATF_TP_ADD_TC(tp, server_network_host_refused);
	ATF_TP_ADD_TC(tp, server_rootfs_writable_refused);
	ATF_TP_ADD_TC(tp, server_binds_refused);
	ATF_TP_ADD_TC(tp, server_user_root_refused);
	ATF_TP_ADD_TC(tp, server_env_extra_refused);
	ATF_TP_ADD_TC(tp, server_documents_not_interchangeable);
	ATF_TP_ADD_TC(tp, duplicate_key_refused);
	ATF_TP_ADD_TC(tp, case_variant_key_refused);
	ATF_TP_ADD_TC(tp, network_mode_missing_refused);
	ATF_TP_ADD_TC(tp, malformed_documents_refused);
	ATF_TP_ADD_TC(tp, reason_never_echoes_docker_text);
	ATF_TP_ADD_TC(tp, template_weak_values_refused);
	ATF_TP_ADD_TC(tp, template_server_mounts_refused);
	ATF_TP_ADD_TC(tp, template_body_mounts);
	ATF_TP_ADD_TC(tp, template_body_profile);
	ATF_TP_ADD_TC(tp, template_body_relay);
	ATF_TP_ADD_TC(tp, create_warnings_refused);
	ATF_TP_ADD_TC(tp, image_admission);
	ATF_TP_ADD_TC(tp, daemon_good_verifies);
	ATF_TP_ADD_TC(tp, daemon_old_api_refused);
	ATF_TP_ADD_TC(tp, daemon_api_garbage_refused);
	ATF_TP_ADD_TC(tp, daemon_windows_refused);
	ATF_TP_ADD_TC(tp, daemon_desktop_refused);
	ATF_TP_ADD_TC(tp, daemon_no_memory_limit_refused);
	ATF_TP_ADD_TC(tp, daemon_no_swap_limit_refused);
	ATF_TP_ADD_TC(tp, daemon_no_pids_limit_refused);
	ATF_TP_ADD_TC(tp, daemon_no_seccomp_refused);
	ATF_TP_ADD_TC(tp, daemon_seccomp_unconfined_refused);
	ATF_TP_ADD_TC(tp, exit_status_outcomes);
	/* dkr_verify.c under mutation */
	ATF_TP_ADD_TC(tp, reason_buffer_bounds);
	ATF_TP_ADD_TC(tp, inspect_size_bound);
	ATF_TP_ADD_TC(tp, inspect_trailing_blanks_verify);
	ATF_TP_ADD_TC(tp, inspect_trailing_garbage_refused);
	ATF_TP_ADD_TC(tp, inspect_in_array_refused);
	ATF_TP_ADD_TC(tp, verifiers_free_documents);
	ATF_TP_ADD_TC(tp, duplicate_key_same_value_refused);
	ATF_TP_ADD_TC(tp, key_other_case_refused);
	ATF_TP_ADD_TC(tp, config_null_refused);
	ATF_TP_ADD_TC(tp, stop_timeout_other_refused);
	ATF_TP_ADD_TC(tp, stop_timeout_string_refused);
	ATF_TP_ADD_TC(tp, config_volumes_string_refused);
	ATF_TP_ADD_TC(tp, env_as_object_refused);
	ATF_TP_ADD_TC(tp, env_not_string_refused);
	ATF_TP_ADD_TC(tp, env_empty_refused);
	ATF_TP_ADD_TC(tp, masked_paths_missing_refused);
	ATF_TP_ADD_TC(tp, masked_paths_kcore_missing_refused);
	ATF_TP_ADD_TC(tp, masked_paths_number_refused);
	ATF_TP_ADD_TC(tp, mounts_as_object_refused);
	ATF_TP_ADD_TC(tp, hc_mounts_as_object_refused);
	ATF_TP_ADD_TC(tp, hc_init_mount_other_source_refused);
	ATF_TP_ADD_TC(tp, hc_mount_bind_option_extra_refused);
	ATF_TP_ADD_TC(tp, hc_mount_tmpfs_options_refused);
	ATF_TP_ADD_TC(tp, hc_mount_consistency_refused);
	ATF_TP_ADD_TC(tp, state_paused_refused);
	ATF_TP_ADD_TC(tp, open_stdin_off_refused);
	ATF_TP_ADD_TC(tp, attach_stdin_off_refused);
	ATF_TP_ADD_TC(tp, attach_stdout_off_refused);
	ATF_TP_ADD_TC(tp, attach_stderr_off_refused);
	ATF_TP_ADD_TC(tp, labels_instance_other_refused);
	ATF_TP_ADD_TC(tp, labels_session_other_refused);
	ATF_TP_ADD_TC(tp, workdir_other_refused);
	ATF_TP_ADD_TC(tp, exposed_ports_refused);
	ATF_TP_ADD_TC(tp, ulimits_missing_refused);
	ATF_TP_ADD_TC(tp, ulimit_name_not_string_refused);
	ATF_TP_ADD_TC(tp, exposed_ports_empty_verifies);
	ATF_TP_ADD_TC(tp, id_malformed_refused);
	ATF_TP_ADD_TC(tp, state_only_asked);
	ATF_TP_ADD_TC(tp, env_max_verifies);
	ATF_TP_ADD_TC(tp, argv_max_verifies);
	ATF_TP_ADD_TC(tp, user_deadline_max_verify);
	ATF_TP_ADD_TC(tp, server_mounts_max_verify);
	ATF_TP_ADD_TC(tp, create_id_bounds);
	ATF_TP_ADD_TC(tp, create_id_not_string_refused);
	ATF_TP_ADD_TC(tp, config_missing_refused);
	ATF_TP_ADD_TC(tp, core_soft_unlimited_refused);
	ATF_TP_ADD_TC(tp, core_hard_unlimited_refused);
	ATF_TP_ADD_TC(tp, ulimit_name_unknown_refused);
	ATF_TP_ADD_TC(tp, secopt_not_string_refused);
	ATF_TP_ADD_TC(tp, seccomp_not_string_refused);
	ATF_TP_ADD_TC(tp, tmpfs_empty_verifies);
	ATF_TP_ADD_TC(tp, sysctls_empty_verifies);
	ATF_TP_ADD_TC(tp, log_options_refused);
	ATF_TP_ADD_TC(tp, restart_retries_refused);
	ATF_TP_ADD_TC(tp, readonly_paths_proc_sys_missing_refused);
	ATF_TP_ADD_TC(tp, networks_missing_refused);
	ATF_TP_ADD_TC(tp, networks_empty_refused);
	ATF_TP_ADD_TC(tp, networks_bridge_only_refused);
	ATF_TP_ADD_TC(tp, secopt_as_object_refused);
	ATF_TP_ADD_TC(tp, seccomp_key_other_case_refused);
	ATF_TP_ADD_TC(tp, seccomp_malformed_refused);
	ATF_TP_ADD_TC(tp, inspect_weak_template_refused);
	ATF_TP_ADD_TC(tp, malformed_reason_named);
	ATF_TP_ADD_TC(tp, daemon_api_versions);
	ATF_TP_ADD_TC(tp, daemon_version_os_refused);
	ATF_TP_ADD_TC(tp, daemon_operating_system_missing_refused);
	ATF_TP_ADD_TC(tp, daemon_security_options_missing_refused);
	ATF_TP_ADD_TC(tp, daemon_security_options_object_refused);
	ATF_TP_ADD_TC(tp, daemon_security_option_number_refused);
	ATF_TP_ADD_TC(tp, daemon_seccomp_misspelt_refused);
	ATF_TP_ADD_TC(tp, daemon_malformed_refused);
	return atf_no_error();
}
