/*
 * Admission: verify what Docker reports against what the template asked
 * for.  The engine ignores unknown and misspelt create fields and rewrites
 * limits it cannot enforce (docker-api.md 1, 2.5), so the create body
 * proves nothing; only the inspect document does.
 *
 * Every check is strict: a field must be present exactly once (no
 * duplicate, also not in another letter case) with the expected type and
 * value.  A field of this engine version that goes missing refuses too,
 * so a change of the document's shape fails closed.
 */

#include <sys/types.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "cmcp.h"
#include "dkr.h"
#include "dkr_seccomp.h"

/* 2^53: integers below it are exact in a double. */
#define JSON_MAX_INT	9007199254740992.0

static enum dkr_reason	 refuse(enum dkr_reason, char *, size_t);
static cJSON		*parse(const char *, size_t);
static const cJSON	*field(const cJSON *, const char *);
static int		 present(const cJSON *, const char *);
static int		 is_str(const cJSON *, const char *, const char *);
static int		 is_bool(const cJSON *, const char *, int);
static int		 is_int(const cJSON *, const char *, int64_t);
static int		 is_empty(const cJSON *, const char *);
static int		 is_strings(const cJSON *, const char *,
			    const char *const *, size_t);
static enum dkr_reason	 verify_top(const cJSON *,
			    const struct dkr_template *, const char *, int);
static enum dkr_reason	 verify_config(const cJSON *,
			    const struct dkr_template *);
static enum dkr_reason	 verify_host(const cJSON *,
			    const struct dkr_template *);

static enum dkr_reason
refuse(enum dkr_reason r, char *why, size_t whylen)
{
	if (why != NULL && whylen > 0)
		(void)snprintf(why, whylen, "%s%s",
		    r == DKR_OK ? "" : "refused: ", dkr_reason_str(r));
	return r;
}

/* One JSON object, nothing after it, within the size bound. */
static cJSON *
parse(const char *json, size_t len)
{
	const char	*end = NULL;
	cJSON		*root;

	if (json == NULL || len == 0 || len > DKR_RESPONSE_MAX_BYTES)
		return NULL;
	if ((root = cJSON_ParseWithLengthOpts(json, len, &end, 0)) == NULL)
		return NULL;
	while (end != NULL && end < json + len &&
	    (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n' ||
	    *end == '\0'))
		end++;
	if (!cJSON_IsObject(root) || end != json + len) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/*
 * The member key of object o, or NULL when o is not an object, the key is
 * missing, or it occurs more than once in any letter case: Go decodes
 * keys case-insensitively and keeps the last duplicate, cJSON the first.
 */
static const cJSON *
field(const cJSON *o, const char *key)
{
	const cJSON	*c, *hit = NULL;

	if (!cJSON_IsObject(o))
		return NULL;
	for (c = o->child; c != NULL; c = c->next) {
		if (c->string == NULL || strcasecmp(c->string, key) != 0)
			continue;
		if (hit != NULL || strcmp(c->string, key) != 0)
			return NULL;
		hit = c;
	}
	return hit;
}

/*
 * Whether o has the member key in any letter case, once or more: what
 * must be absent is absent only when this is 0 (field() says NULL for a
 * duplicate too).
 */
static int
present(const cJSON *o, const char *key)
{
	const cJSON	*c;

	if (!cJSON_IsObject(o))
		return 0;
	for (c = o->child; c != NULL; c = c->next)
		if (c->string != NULL && strcasecmp(c->string, key) == 0)
			return 1;
	return 0;
}

static int
is_str(const cJSON *o, const char *key, const char *want)
{
	const cJSON	*v = field(o, key);

	return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

static int
is_bool(const cJSON *o, const char *key, int want)
{
	const cJSON	*v = field(o, key);

	return want ? cJSON_IsTrue(v) : cJSON_IsFalse(v);
}

/* cJSON's valueint saturates; valuedouble is exact below 2^53. */
static int
is_int(const cJSON *o, const char *key, int64_t want)
{
	const cJSON	*v = field(o, key);

	return cJSON_IsNumber(v) && fabs(v->valuedouble) < JSON_MAX_INT &&
	    v->valuedouble == (double)want;
}

/* Present, and null, [] or {}. */
static int
is_empty(const cJSON *o, const char *key)
{
	const cJSON	*v = field(o, key);

	if (cJSON_IsNull(v))
		return 1;
	return (cJSON_IsArray(v) || cJSON_IsObject(v)) && v->child == NULL;
}

/* An array of exactly these n strings, in this order. */
static int
is_strings(const cJSON *o, const char *key, const char *const *want,
    size_t n)
{
	const cJSON	*v = field(o, key), *c;
	size_t		 i = 0;

	if (!cJSON_IsArray(v))
		return 0;
	for (c = v->child; c != NULL; c = c->next, i++)
		if (i >= n || !cJSON_IsString(c) ||
		    strcmp(c->valuestring, want[i]) != 0)
			return 0;
	return i == n;
}

/* An array of strings that contains s. */
static int
has_string(const cJSON *a, const char *s)
{
	const cJSON	*c;

	if (!cJSON_IsArray(a))
		return 0;
	for (c = a->child; c != NULL; c = c->next)
		if (cJSON_IsString(c) && strcmp(c->valuestring, s) == 0)
			return 1;
	return 0;
}

/* The argument vectors the template implies. */
struct vecs {
	char		 ms[24];
	const char	*ep[DKR_INIT_ARGS_MAX];
	size_t		 nep;
	const char	*args[DKR_INIT_ARGS_MAX - 1 + DKR_ARGV_MAX];
	size_t		 nargs;		/* Entrypoint after Path, then Cmd */
	const char	*cmd[DKR_ARGV_MAX];
	const char	*env[DKR_ENV_MAX];
	char		 user[32];
};

static void
vecs_fill(struct vecs *v, const struct dkr_template *t)
{
	size_t	 i;

	(void)snprintf(v->ms, sizeof(v->ms), "%lld",
	    (long long)t->deadline_ms);
	(void)snprintf(v->user, sizeof(v->user), "%u:%u", (unsigned)t->uid,
	    (unsigned)t->gid);
	/* Exactly the relay that was asked for, or none. */
	v->nep = 0;
	v->ep[v->nep++] = CMCP_INIT_TARGET;
	if (t->relay)
		v->ep[v->nep++] = "-r";
	v->ep[v->nep++] = "-t";
	v->ep[v->nep++] = v->ms;
	v->ep[v->nep++] = "--";
	for (v->nargs = 0; v->nargs + 1 < v->nep; v->nargs++)
		v->args[v->nargs] = v->ep[v->nargs + 1];
	for (i = 0; i < t->argc; i++)
		v->cmd[i] = v->args[v->nargs++] = t->argv[i];
	for (i = 0; i < t->envc; i++)
		v->env[i] = t->env[i];
}

/* A bind the template asks for: cmcp-init's, or a server's. */
struct want_mount {
	const char	*source;
	const char	*target;
	int		 readonly;
};

/* cmcp-init's first, then the server's; the number of them. */
static size_t
want_mounts(const struct dkr_template *t, struct want_mount *w)
{
	size_t	 i;

	w[0].source = t->init_path;
	w[0].target = CMCP_INIT_TARGET;
	w[0].readonly = 1;
	for (i = 0; i < t->nmounts; i++) {
		w[i + 1].source = t->mounts[i].source;
		w[i + 1].target = t->mounts[i].target;
		w[i + 1].readonly = t->mounts[i].readonly;
	}
	return t->nmounts + 1;
}

/*
 * The entry of array a whose key names target, when there is exactly
 * one; NULL when none or more.  The engine lists the top-level Mounts in
 * no fixed order (a Go map), so each wanted bind is found by where it is
 * mounted, and the count makes the match one to one: the template's
 * targets are distinct.
 */
static const cJSON *
mount_at(const cJSON *a, const char *key, const char *target)
{
	const cJSON	*m, *hit = NULL;

	for (m = a->child; m != NULL; m = m->next) {
		if (!is_str(m, key, target))
			continue;
		if (hit != NULL)
			return NULL;
		hit = m;
	}
	return hit;
}

/*
 * The top-level (effective) Mounts: exactly the wanted binds, each with
 * its source, destination, write flag and propagation.
 */
static enum dkr_reason
mounts_verify(const cJSON *o, const struct dkr_template *t)
{
	struct want_mount	 w[DKR_MOUNTS_MAX + 1];
	const cJSON		*a = field(o, "Mounts"), *m;
	size_t			 i, n;

	n = want_mounts(t, w);
	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) != n)
		return DKR_R_MOUNTS;
	for (i = 0; i < n; i++) {
		if ((m = mount_at(a, "Destination", w[i].target)) == NULL)
			return DKR_R_MOUNT_DEST;
		if (!is_str(m, "Type", "bind"))
			return DKR_R_MOUNT_TYPE;
		if (!is_str(m, "Source", w[i].source))
			return DKR_R_MOUNT_SOURCE;
		if (!is_bool(m, "RW", !w[i].readonly))
			return DKR_R_MOUNT_RW;
		if (!is_str(m, "Propagation", DKR_PROPAGATION))
			return DKR_R_MOUNT_PROPAGATION;
	}
	return DKR_OK;
}

/*
 * The requested form echoed in HostConfig.Mounts, the same binds: the
 * engine drops ReadOnly when it is false, and a bind has nothing but its
 * BindOptions.
 */
static enum dkr_reason
hc_mounts_verify(const cJSON *hc, const struct dkr_template *t)
{
	struct want_mount	 w[DKR_MOUNTS_MAX + 1];
	const cJSON		*a = field(hc, "Mounts"), *m, *b;
	size_t			 i, n;
	int			 ro;

	n = want_mounts(t, w);
	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) != n)
		return DKR_R_HC_MOUNTS;
	for (i = 0; i < n; i++) {
		if ((m = mount_at(a, "Target", w[i].target)) == NULL)
			return DKR_R_HC_MOUNT_TARGET;
		b = field(m, "BindOptions");
		if (!is_str(m, "Type", "bind"))
			return DKR_R_HC_MOUNT_TYPE;
		if (!is_str(m, "Source", w[i].source))
			return DKR_R_HC_MOUNT_SOURCE;
		ro = w[i].readonly;
		if (!is_bool(m, "ReadOnly", ro) &&
		    (ro || present(m, "ReadOnly")))
			return DKR_R_HC_MOUNT_READONLY;
		if (!is_str(b, "Propagation", DKR_PROPAGATION))
			return DKR_R_HC_MOUNT_PROPAGATION;
		if (!is_bool(b, "NonRecursive", 1) ||
		    cJSON_GetArraySize(b) != 2 ||
		    present(m, "VolumeOptions") ||
		    present(m, "TmpfsOptions") ||
		    present(m, "Consistency"))
			return DKR_R_HC_MOUNT_OPTIONS;
	}
	return DKR_OK;
}

static enum dkr_reason
verify_top(const cJSON *root, const struct dkr_template *t, const char *id,
    int states)
{
	struct vecs	 v;
	const cJSON	*s, *st;

	vecs_fill(&v, t);
	s = field(root, "Id");
	if (!cJSON_IsString(s) || !dkr_container_id_valid(s->valuestring) ||
	    (id != NULL && strcmp(s->valuestring, id) != 0))
		return DKR_R_ID;
	if (!is_str(root, "Image", t->image))
		return DKR_R_IMAGE;
	if (!is_str(root, "Path", CMCP_INIT_TARGET))
		return DKR_R_PATH;
	if (!is_strings(root, "Args", v.args, v.nargs))
		return DKR_R_ARGS;
	st = field(root, "State");
	if (!(((states & DKR_STATE_CREATED) &&
	    is_str(st, "Status", "created")) ||
	    ((states & DKR_STATE_RUNNING) &&
	    is_str(st, "Status", "running")) ||
	    ((states & DKR_STATE_EXITED) &&
	    is_str(st, "Status", "exited"))) ||
	    !is_bool(st, "Restarting", 0) || !is_bool(st, "Paused", 0))
		return DKR_R_STATE;
	/*
	 * The engine's default profile where AppArmor is on, none where it
	 * is off; never unconfined, never a profile of someone's choosing.
	 */
	s = field(root, "AppArmorProfile");
	if (!cJSON_IsString(s) || (strcmp(s->valuestring, "") != 0 &&
	    strcmp(s->valuestring, DKR_APPARMOR_DEFAULT) != 0))
		return DKR_R_APPARMOR;
	return mounts_verify(root, t);
}

static enum dkr_reason
verify_config(const cJSON *c, const struct dkr_template *t)
{
	struct vecs	 v;
	const cJSON	*l;
	int		 srv;

	vecs_fill(&v, t);
	if (!is_str(c, "User", v.user))
		return DKR_R_USER;
	if (!is_bool(c, "Tty", 0))
		return DKR_R_TTY;
	if (!is_bool(c, "OpenStdin", 1) || !is_bool(c, "StdinOnce", 1) ||
	    !is_bool(c, "AttachStdin", 1) || !is_bool(c, "AttachStdout", 1) ||
	    !is_bool(c, "AttachStderr", 1))
		return DKR_R_STDIO;
	/* Image Env is merged in; it must not add anything. */
	if (!is_strings(c, "Env", v.env, t->envc))
		return DKR_R_ENV;
	if (!is_strings(c, "Entrypoint", v.ep, v.nep))
		return DKR_R_ENTRYPOINT;
	if (!is_strings(c, "Cmd", v.cmd, t->argc))
		return DKR_R_CMD;
	if (!is_str(c, "Image", t->image))
		return DKR_R_CONFIG_IMAGE;
	/* Image volumes are merged in and would be writable. */
	if (!is_empty(c, "Volumes"))
		return DKR_R_VOLUMES;
	l = field(c, "Labels");
	srv = t->kind == DKR_KIND_SERVER;
	if (!cJSON_IsObject(l) || cJSON_GetArraySize(l) != 3 + srv ||
	    !is_str(l, DKR_LABEL_INSTANCE, t->instance) ||
	    !is_str(l, DKR_LABEL_SESSION, t->session) ||
	    !is_str(l, DKR_LABEL_KIND, dkr_kind_str(t->kind)) ||
	    (srv && !is_str(l, DKR_LABEL_SERVER, t->server)))
		return DKR_R_LABELS;
	if (!is_str(c, "WorkingDir", "/"))
		return DKR_R_WORKDIR;
	/* Absent in this engine's output unless the image declares one. */
	if (present(c, "Healthcheck"))
		return DKR_R_HEALTHCHECK;
	if (present(c, "ExposedPorts") && !is_empty(c, "ExposedPorts"))
		return DKR_R_EXPOSED;
	if (!is_int(c, "StopTimeout", 0))
		return DKR_R_STOPTIMEOUT;
	return DKR_OK;
}

/* HostConfig fields with one fixed value, whatever the template. */
enum want { W_STR, W_TRUE, W_FALSE, W_EMPTY };
static const struct {
	enum dkr_reason	 reason;
	const char	*key;
	enum want	 want;
	const char	*str;
} hc_fixed[] = {
	{ DKR_R_NETWORK,	"NetworkMode",		W_STR,	"none" },
	{ DKR_R_READONLY,	"ReadonlyRootfs",	W_TRUE,	NULL },
	{ DKR_R_PRIVILEGED,	"Privileged",		W_FALSE, NULL },
	{ DKR_R_CAPADD,		"CapAdd",		W_EMPTY, NULL },
	{ DKR_R_AUTOREMOVE,	"AutoRemove",		W_FALSE, NULL },
	{ DKR_R_BINDS,		"Binds",		W_EMPTY, NULL },
	{ DKR_R_DEVICES,	"Devices",		W_EMPTY, NULL },
	{ DKR_R_DEVREQ,		"DeviceRequests",	W_EMPTY, NULL },
	{ DKR_R_DEVRULES,	"DeviceCgroupRules",	W_EMPTY, NULL },
	{ DKR_R_PORTS,		"PortBindings",		W_EMPTY, NULL },
	{ DKR_R_PUBLISH,	"PublishAllPorts",	W_FALSE, NULL },
	{ DKR_R_VOLUMESFROM,	"VolumesFrom",		W_EMPTY, NULL },
	{ DKR_R_LINKS,		"Links",		W_EMPTY, NULL },
	{ DKR_R_GROUPADD,	"GroupAdd",		W_EMPTY, NULL },
	{ DKR_R_PIDMODE,	"PidMode",		W_STR,	"" },
	{ DKR_R_IPCMODE,	"IpcMode",		W_STR,	"none" },
	{ DKR_R_UTSMODE,	"UTSMode",		W_STR,	"" },
	{ DKR_R_USERNSMODE,	"UsernsMode",		W_STR,	"" },
	{ DKR_R_CGROUPNS,	"CgroupnsMode",		W_STR,	"private" },
	{ DKR_R_CGROUP,		"Cgroup",		W_STR,	"" },
	{ DKR_R_CGROUPPARENT,	"CgroupParent",		W_STR,	"" },
	{ DKR_R_RUNTIME,	"Runtime",		W_STR,	"runc" },
	{ DKR_R_INIT,		"Init",			W_FALSE, NULL },
	{ DKR_R_OOMKILL,	"OomKillDisable",	W_FALSE, NULL },
};

/* Optional in this engine's output, but never anything but empty. */
static const struct {
	enum dkr_reason	 reason;
	const char	*key;
} hc_absent[] = {
	{ DKR_R_TMPFS,		"Tmpfs" },
	{ DKR_R_SYSCTLS,	"Sysctls" },
};

/* The defaults Docker fills in when MaskedPaths/ReadonlyPaths are unsent. */
static const char *const masked_min[] = {
	"/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware",
};
static const char *const ropaths_min[] = {
	"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus",
};

static int
ulimits_ok(const cJSON *hc, const struct dkr_template *t)
{
	static const char *const names[] = { "core", "nofile", "nproc" };
	const cJSON	*a = field(hc, "Ulimits"), *u, *n;
	int64_t		 want[3];
	int		 seen[3] = { 0, 0, 0 }, count = 0;
	size_t		 i;

	want[0] = 0;
	want[1] = t->nofile;
	want[2] = t->nproc;
	if (!cJSON_IsArray(a))
		return 0;
	for (u = a->child; u != NULL; u = u->next, count++) {
		n = field(u, "Name");
		if (!cJSON_IsString(n))
			return 0;
		for (i = 0; i < nitems(names); i++)
			if (strcmp(n->valuestring, names[i]) == 0)
				break;
		if (i == nitems(names) || seen[i]++ ||
		    !is_int(u, "Soft", want[i]) || !is_int(u, "Hard", want[i]))
			return 0;
	}
	return count == (int)nitems(names);
}

/*
 * SecurityOpt is exactly no-new-privileges and our seccomp profile, as
 * sent: the profile compared by the digest of its canonical form, so the
 * engine's default (no entry), unconfined or any other profile is
 * refused.
 */
static enum dkr_reason
secopt_verify(const cJSON *hc)
{
	const cJSON	*v = field(hc, "SecurityOpt"), *c;
	uint8_t		 ours[SHA256_DIGEST_BYTES], seen[SHA256_DIGEST_BYTES];
	const size_t	 plen = sizeof(DKR_SECCOMP_OPT) - 1;

	if (!cJSON_IsArray(v) || (c = v->child) == NULL ||
	    !cJSON_IsString(c) ||
	    strcmp(c->valuestring, "no-new-privileges") != 0)
		return DKR_R_SECOPT;
	if ((c = c->next) == NULL || !cJSON_IsString(c) ||
	    strncmp(c->valuestring, DKR_SECCOMP_OPT, plen) != 0)
		return DKR_R_SECCOMP;
	if (c->next != NULL)
		return DKR_R_SECOPT;
	if (dkr_seccomp_ours(ours) == -1 ||
	    dkr_seccomp_digest(c->valuestring + plen,
	    strlen(c->valuestring + plen), seen) == -1 ||
	    memcmp(ours, seen, sizeof(ours)) != 0)
		return DKR_R_SECCOMP;
	return DKR_OK;
}

static enum dkr_reason
verify_host(const cJSON *hc, const struct dkr_template *t)
{
	static const char *const all[] = { "ALL" };
	const cJSON	*v;
	enum dkr_reason	 r;
	size_t		 i;
	int		 ok;

	for (i = 0; i < nitems(hc_fixed); i++) {
		switch (hc_fixed[i].want) {
		case W_STR:
			ok = is_str(hc, hc_fixed[i].key, hc_fixed[i].str);
			break;
		case W_TRUE:
			ok = is_bool(hc, hc_fixed[i].key, 1);
			break;
		case W_FALSE:
			ok = is_bool(hc, hc_fixed[i].key, 0);
			break;
		default:
			ok = is_empty(hc, hc_fixed[i].key);
			break;
		}
		if (!ok)
			return hc_fixed[i].reason;
	}
	for (i = 0; i < nitems(hc_absent); i++)
		if (present(hc, hc_absent[i].key) &&
		    !is_empty(hc, hc_absent[i].key))
			return hc_absent[i].reason;
	if (!is_strings(hc, "CapDrop", all, 1))
		return DKR_R_CAPDROP;
	if ((r = secopt_verify(hc)) != DKR_OK)
		return r;
	v = field(hc, "LogConfig");
	if (!is_str(v, "Type", "none") || !is_empty(v, "Config"))
		return DKR_R_LOG;
	v = field(hc, "RestartPolicy");
	if (!is_str(v, "Name", "no") || !is_int(v, "MaximumRetryCount", 0))
		return DKR_R_RESTART;
	if (!is_int(hc, "PidsLimit", t->pids))
		return DKR_R_PIDS;
	if (!is_int(hc, "Memory", t->memory_bytes))
		return DKR_R_MEMORY;
	/* -1 (unlimited) is what the engine puts here without swap limits. */
	if (!is_int(hc, "MemorySwap", t->memory_bytes))
		return DKR_R_SWAP;
	if (!is_int(hc, "NanoCpus", t->nano_cpus))
		return DKR_R_CPUS;
	if (!ulimits_ok(hc, t))
		return DKR_R_ULIMITS;
	if ((r = hc_mounts_verify(hc, t)) != DKR_OK)
		return r;
	v = field(hc, "MaskedPaths");
	for (i = 0; i < nitems(masked_min); i++)
		if (!has_string(v, masked_min[i]))
			return DKR_R_MASKED;
	v = field(hc, "ReadonlyPaths");
	for (i = 0; i < nitems(ropaths_min); i++)
		if (!has_string(v, ropaths_min[i]))
			return DKR_R_ROPATHS;
	return DKR_OK;
}

/* Attached to exactly the "none" network. */
static int
networks_ok(const cJSON *ns)
{
	const cJSON	*n = field(ns, "Networks");

	return cJSON_IsObject(n) && n->child != NULL &&
	    n->child->next == NULL && field(n, "none") != NULL;
}

/*
 * Verify a container inspect document (GET /containers/{id}/json) against
 * the template.  id, when not NULL, is the container ID the engine gave at
 * create.  DKR_OK, or the first field that differs.
 */
enum dkr_reason
dkr_inspect_verify(const char *json, size_t len, const struct dkr_template *t,
    const char *id, char *why, size_t whylen)
{
	return dkr_inspect_verify_state(json, len, t, id,
	    DKR_STATE_CREATED | DKR_STATE_RUNNING, why, whylen);
}

/*
 * The same, with the states State.Status may be in (DKR_STATE_*): after
 * start, a workload that already finished shows "exited", and its profile
 * is still verified before its output is admitted.
 */
enum dkr_reason
dkr_inspect_verify_state(const char *json, size_t len,
    const struct dkr_template *t, const char *id, int states, char *why,
    size_t whylen)
{
	cJSON		*root;
	enum dkr_reason	 r;

	if ((r = dkr_template_check(t)) != DKR_OK)
		return refuse(r, why, whylen);
	if ((root = parse(json, len)) == NULL)
		return refuse(DKR_R_JSON, why, whylen);
	if ((r = verify_top(root, t, id, states)) == DKR_OK &&
	    (r = verify_config(field(root, "Config"), t)) == DKR_OK &&
	    (r = verify_host(field(root, "HostConfig"), t)) == DKR_OK &&
	    !networks_ok(field(root, "NetworkSettings")))
		r = DKR_R_NETWORKS;
	cJSON_Delete(root);
	return refuse(r, why, whylen);
}

/*
 * Verify an image inspect document (GET /images/{id}/json): the pinned ID,
 * a Linux image, no volumes, healthcheck or ONBUILD triggers.
 */
enum dkr_reason
dkr_image_verify(const char *json, size_t len, const char *image, char *why,
    size_t whylen)
{
	cJSON		*root;
	const cJSON	*c;
	enum dkr_reason	 r = DKR_OK;

	if (image == NULL || !dkr_image_id_valid(image))
		return refuse(DKR_R_T_IMAGE, why, whylen);
	if ((root = parse(json, len)) == NULL)
		return refuse(DKR_R_JSON, why, whylen);
	c = field(root, "Config");
	if (!is_str(root, "Id", image))
		r = DKR_R_IMG_ID;
	else if (!is_str(root, "Os", "linux"))
		r = DKR_R_IMG_OS;
	else if (!cJSON_IsObject(c) || !is_empty(c, "Volumes"))
		r = DKR_R_IMG_VOLUMES;
	else if (present(c, "Healthcheck"))
		r = DKR_R_IMG_HEALTHCHECK;
	else if (!is_empty(c, "OnBuild"))
		r = DKR_R_IMG_ONBUILD;
	cJSON_Delete(root);
	return refuse(r, why, whylen);
}

/* "major.minor" at least DKR_API_MAJOR.DKR_API_MINOR. */
static int
api_ok(const cJSON *v)
{
	unsigned long	 major, minor;
	char		*end;
	const char	*s;

	if (!cJSON_IsString(v))
		return 0;
	s = v->valuestring;
	if (*s < '0' || *s > '9')
		return 0;
	major = strtoul(s, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9' || major > 1000)
		return 0;
	minor = strtoul(end + 1, &end, 10);
	if (*end != '\0' || minor > 1000)
		return 0;
	return major > DKR_API_MAJOR ||
	    (major == DKR_API_MAJOR && minor >= DKR_API_MINOR);
}

static int
seccomp_on(const cJSON *a)
{
	const cJSON	*c;

	if (!cJSON_IsArray(a))
		return 0;
	for (c = a->child; c != NULL; c = c->next)
		if (cJSON_IsString(c) &&
		    strncmp(c->valuestring, "name=seccomp", 12) == 0)
			return strstr(c->valuestring, "unconfined") == NULL;
	return 0;
}

/*
 * Verify the daemon from GET /version and GET /info: API 1.41 or later, a
 * Linux engine that is not Docker Desktop, enforcing memory, swap and pids
 * limits, with seccomp.  Without SwapLimit the engine silently turns
 * MemorySwap into -1, so it refuses even though inspect would catch it.
 */
enum dkr_reason
dkr_daemon_verify(const char *version, size_t vlen, const char *info,
    size_t ilen, char *why, size_t whylen)
{
	cJSON		*ver, *inf;
	const cJSON	*os;
	enum dkr_reason	 r = DKR_OK;

	if ((ver = parse(version, vlen)) == NULL)
		return refuse(DKR_R_JSON, why, whylen);
	if ((inf = parse(info, ilen)) == NULL) {
		cJSON_Delete(ver);
		return refuse(DKR_R_JSON, why, whylen);
	}
	os = field(inf, "OperatingSystem");
	if (!api_ok(field(ver, "ApiVersion")))
		r = DKR_R_D_API;
	else if (!is_str(ver, "Os", "linux") || !is_str(inf, "OSType", "linux"))
		r = DKR_R_D_OS;
	else if (!cJSON_IsString(os) ||
	    strcasestr(os->valuestring, "docker desktop") != NULL)
		r = DKR_R_D_DESKTOP;
	else if (!is_bool(inf, "MemoryLimit", 1))
		r = DKR_R_D_MEMORY;
	else if (!is_bool(inf, "SwapLimit", 1))
		r = DKR_R_D_SWAP;
	else if (!is_bool(inf, "PidsLimit", 1))
		r = DKR_R_D_PIDS;
	else if (!seccomp_on(field(inf, "SecurityOptions")))
		r = DKR_R_D_SECCOMP;
	cJSON_Delete(ver);
	cJSON_Delete(inf);
	return refuse(r, why, whylen);
}

/*
 * The create response: copy the container ID to id (DKR_CONTAINER_ID_BYTES)
 * and refuse when the engine had anything to say.  It warns when it drops
 * or rewrites a limit it cannot enforce (MemorySwap becomes -1), so any
 * warning is fatal; the caller deletes the container.
 */
enum dkr_reason
dkr_create_verify(const char *json, size_t len, char *id, char *why,
    size_t whylen)
{
	cJSON		*root;
	const cJSON	*v;
	enum dkr_reason	 r = DKR_OK;

	id[0] = '\0';
	if ((root = parse(json, len)) == NULL)
		return refuse(DKR_R_JSON, why, whylen);
	v = field(root, "Id");
	if (!cJSON_IsString(v) || !dkr_container_id_valid(v->valuestring))
		r = DKR_R_ID;
	else {
		/* The ID is needed to delete the container after a warning. */
		memcpy(id, v->valuestring, DKR_CONTAINER_ID_BYTES);
		if (!is_empty(root, "Warnings"))
			r = DKR_R_WARNINGS;
	}
	cJSON_Delete(root);
	return refuse(r, why, whylen);
}
