/*
 * The fixed container template (DESIGN 7): the create body is built from
 * struct dkr_template and constants here, never from user JSON.
 *
 * Supervisor design (b): the whole container runs as the configured
 * non-root uid:gid with no capabilities (CapDrop ALL, no CapAdd).  PID 1
 * is cmcp-init, bind-mounted read-only from the host at CMCP_INIT_TARGET
 * through HostConfig.Mounts: a Mounts bind refuses a missing source,
 * where a legacy Binds entry would create it, and Binds stays empty so
 * that admission can refuse any Binds at all.  A server's container has
 * its configured host directories bound the same way after it, each
 * read-only or not as configured; no other container has any.
 *
 * The labels name the suite instance, the session and the kind of
 * container (agent, sandbox, server), and a server's container the
 * server: cleanup and reap find every container of a session or an
 * instance by the first two alone.
 */

#include <sys/types.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#ifdef CMCP_TEST
#include "cmcp.h"		/* enum session_weaken */
#endif
#include "dkr.h"
#include "dkr_seccomp.h"

static const char *const reasons[DKR_R_MAX] = {
	[DKR_OK] =		"ok",
	[DKR_R_JSON] =		"malformed document",
	[DKR_R_T_IMAGE] =	"template image",
	[DKR_R_T_INIT] =	"template init path",
	[DKR_R_T_ARGV] =	"template argv",
	[DKR_R_T_ENV] =		"template env",
	[DKR_R_T_USER] =	"template user",
	[DKR_R_T_LIMITS] =	"template limits",
	[DKR_R_T_DEADLINE] =	"template deadline",
	[DKR_R_T_LABELS] =	"template labels",
	[DKR_R_T_RELAY] =	"template relay",
	[DKR_R_T_KIND] =	"template kind",
	[DKR_R_T_MOUNTS] =	"template mounts",
	[DKR_R_ID] =		"Id",
	[DKR_R_IMAGE] =		"Image",
	[DKR_R_PATH] =		"Path",
	[DKR_R_ARGS] =		"Args",
	[DKR_R_STATE] =		"State",
	[DKR_R_APPARMOR] =	"AppArmorProfile",
	[DKR_R_MOUNTS] =	"Mounts",
	[DKR_R_MOUNT_TYPE] =	"Mounts.Type",
	[DKR_R_MOUNT_SOURCE] =	"Mounts.Source",
	[DKR_R_MOUNT_DEST] =	"Mounts.Destination",
	[DKR_R_MOUNT_RW] =	"Mounts.RW",
	[DKR_R_MOUNT_PROPAGATION] = "Mounts.Propagation",
	[DKR_R_NETWORKS] =	"NetworkSettings.Networks",
	[DKR_R_USER] =		"Config.User",
	[DKR_R_TTY] =		"Config.Tty",
	[DKR_R_STDIO] =		"Config.Attach/OpenStdin/StdinOnce",
	[DKR_R_ENV] =		"Config.Env",
	[DKR_R_ENTRYPOINT] =	"Config.Entrypoint",
	[DKR_R_CMD] =		"Config.Cmd",
	[DKR_R_CONFIG_IMAGE] =	"Config.Image",
	[DKR_R_VOLUMES] =	"Config.Volumes",
	[DKR_R_LABELS] =	"Config.Labels",
	[DKR_R_WORKDIR] =	"Config.WorkingDir",
	[DKR_R_HEALTHCHECK] =	"Config.Healthcheck",
	[DKR_R_EXPOSED] =	"Config.ExposedPorts",
	[DKR_R_STOPTIMEOUT] =	"Config.StopTimeout",
	[DKR_R_NETWORK] =	"HostConfig.NetworkMode",
	[DKR_R_READONLY] =	"HostConfig.ReadonlyRootfs",
	[DKR_R_PRIVILEGED] =	"HostConfig.Privileged",
	[DKR_R_CAPDROP] =	"HostConfig.CapDrop",
	[DKR_R_CAPADD] =	"HostConfig.CapAdd",
	[DKR_R_SECOPT] =	"HostConfig.SecurityOpt",
	[DKR_R_SECCOMP] =	"HostConfig.SecurityOpt seccomp",
	[DKR_R_LOG] =		"HostConfig.LogConfig",
	[DKR_R_RESTART] =	"HostConfig.RestartPolicy",
	[DKR_R_AUTOREMOVE] =	"HostConfig.AutoRemove",
	[DKR_R_PIDS] =		"HostConfig.PidsLimit",
	[DKR_R_MEMORY] =	"HostConfig.Memory",
	[DKR_R_SWAP] =		"HostConfig.MemorySwap",
	[DKR_R_CPUS] =		"HostConfig.NanoCpus",
	[DKR_R_ULIMITS] =	"HostConfig.Ulimits",
	[DKR_R_BINDS] =		"HostConfig.Binds",
	[DKR_R_DEVICES] =	"HostConfig.Devices",
	[DKR_R_DEVREQ] =	"HostConfig.DeviceRequests",
	[DKR_R_DEVRULES] =	"HostConfig.DeviceCgroupRules",
	[DKR_R_PORTS] =		"HostConfig.PortBindings",
	[DKR_R_PUBLISH] =	"HostConfig.PublishAllPorts",
	[DKR_R_VOLUMESFROM] =	"HostConfig.VolumesFrom",
	[DKR_R_LINKS] =		"HostConfig.Links",
	[DKR_R_GROUPADD] =	"HostConfig.GroupAdd",
	[DKR_R_PIDMODE] =	"HostConfig.PidMode",
	[DKR_R_IPCMODE] =	"HostConfig.IpcMode",
	[DKR_R_UTSMODE] =	"HostConfig.UTSMode",
	[DKR_R_USERNSMODE] =	"HostConfig.UsernsMode",
	[DKR_R_CGROUPNS] =	"HostConfig.CgroupnsMode",
	[DKR_R_CGROUP] =	"HostConfig.Cgroup",
	[DKR_R_CGROUPPARENT] =	"HostConfig.CgroupParent",
	[DKR_R_HC_MOUNTS] =	"HostConfig.Mounts",
	[DKR_R_HC_MOUNT_TYPE] =	"HostConfig.Mounts.Type",
	[DKR_R_HC_MOUNT_SOURCE] = "HostConfig.Mounts.Source",
	[DKR_R_HC_MOUNT_TARGET] = "HostConfig.Mounts.Target",
	[DKR_R_HC_MOUNT_READONLY] = "HostConfig.Mounts.ReadOnly",
	[DKR_R_HC_MOUNT_PROPAGATION] = "HostConfig.Mounts.BindOptions.Propagation",
	[DKR_R_HC_MOUNT_OPTIONS] = "HostConfig.Mounts options",
	[DKR_R_TMPFS] =		"HostConfig.Tmpfs",
	[DKR_R_MASKED] =	"HostConfig.MaskedPaths",
	[DKR_R_ROPATHS] =	"HostConfig.ReadonlyPaths",
	[DKR_R_RUNTIME] =	"HostConfig.Runtime",
	[DKR_R_INIT] =		"HostConfig.Init",
	[DKR_R_OOMKILL] =	"HostConfig.OomKillDisable",
	[DKR_R_SYSCTLS] =	"HostConfig.Sysctls",
	[DKR_R_IMG_ID] =	"image Id",
	[DKR_R_IMG_OS] =	"image Os",
	[DKR_R_IMG_VOLUMES] =	"image Config.Volumes",
	[DKR_R_IMG_HEALTHCHECK] = "image Config.Healthcheck",
	[DKR_R_IMG_ONBUILD] =	"image Config.OnBuild",
	[DKR_R_WARNINGS] =	"create Warnings",
	[DKR_R_D_API] =		"daemon ApiVersion",
	[DKR_R_D_OS] =		"daemon OSType",
	[DKR_R_D_DESKTOP] =	"daemon OperatingSystem",
	[DKR_R_D_MEMORY] =	"daemon MemoryLimit",
	[DKR_R_D_SWAP] =	"daemon SwapLimit",
	[DKR_R_D_PIDS] =	"daemon PidsLimit",
	[DKR_R_D_SECCOMP] =	"daemon SecurityOptions",
};

static const char *const kinds[DKR_KIND_MAX] = {
	[DKR_KIND_AGENT] =	"agent",
	[DKR_KIND_SANDBOX] =	"sandbox",
	[DKR_KIND_SERVER] =	"server",
};

const char *
dkr_reason_str(enum dkr_reason r)
{
	if (r < 0 || r >= DKR_R_MAX || reasons[r] == NULL)
		return "unknown";
	return reasons[r];
}

/* The kind label's value, or NULL for no kind. */
const char *
dkr_kind_str(int kind)
{
	if (kind < 0 || kind >= DKR_KIND_MAX)
		return NULL;
	return kinds[kind];
}

static int
is_hex(const char *s, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[n] == '\0';
}

/* Only the full, immutable local ID: no tag, no short ID, no digest. */
int
dkr_image_id_valid(const char *s)
{
	return strncmp(s, "sha256:", 7) == 0 && is_hex(s + 7, 64);
}

int
dkr_container_id_valid(const char *s)
{
	return is_hex(s, 64);
}

int
dkr_label_valid(const char *s)
{
	size_t	 n = strlen(s);

	if (n == 0 || n >= DKR_LABEL_BYTES)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* NUL-terminated within its array, non-empty, printable ASCII. */
static int
str_ok(const char *s, size_t size)
{
	size_t	 i;

	for (i = 0; i < size && s[i] != '\0'; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return i > 0 && i < size;
}

/*
 * Absolute, not "/", and canonical: no empty, "." or ".." component and
 * no trailing '/'.  The engine reports a bind's paths as they were sent,
 * so admission compares them byte for byte.
 */
static int
path_ok(const char *s, size_t size)
{
	size_t	 n;

	if (!str_ok(s, size) || s[0] != '/' || s[1] == '\0')
		return 0;
	while (*s == '/') {
		s++;
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s += n;
	}
	return 1;
}

/* p is dir or below it. */
static int
path_within(const char *p, const char *dir)
{
	size_t	 n = strlen(dir);

	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/*
 * The kernel's trees keep the profile's own mounts (procfs, sysfs,
 * MaskedPaths, ReadonlyPaths, the devices): a bind never comes from or
 * goes into them.
 */
static int
path_kernel(const char *p)
{
	return path_within(p, "/proc") || path_within(p, "/sys") ||
	    path_within(p, "/dev");
}

/*
 * A server's binds: canonical paths, each target once, none at or below
 * cmcp-init's; only a server's container has any.
 */
static int
mounts_ok(const struct dkr_template *t)
{
	const struct dkr_mount	*m;
	size_t			 i, j;

	if (t->nmounts > DKR_MOUNTS_MAX ||
	    (t->nmounts > 0 && t->kind != DKR_KIND_SERVER))
		return 0;
	for (i = 0; i < t->nmounts; i++) {
		m = &t->mounts[i];
		if (!path_ok(m->source, sizeof(m->source)) ||
		    !path_ok(m->target, sizeof(m->target)) ||
		    path_kernel(m->source) || path_kernel(m->target) ||
		    path_within(m->target, CMCP_INIT_TARGET) ||
		    (m->readonly != 0 && m->readonly != 1))
			return 0;
		for (j = 0; j < i; j++)
			if (strcmp(t->mounts[j].target, m->target) == 0)
				return 0;
	}
	return 1;
}

enum dkr_reason
dkr_template_check(const struct dkr_template *t)
{
	size_t	 i;

	if (!dkr_image_id_valid(t->image))
		return DKR_R_T_IMAGE;
	if (!str_ok(t->init_path, sizeof(t->init_path)) ||
	    t->init_path[0] != '/')
		return DKR_R_T_INIT;
	if (t->argc < 1 || t->argc > DKR_ARGV_MAX || t->argv[0][0] != '/')
		return DKR_R_T_ARGV;
	for (i = 0; i < t->argc; i++)
		if (!str_ok(t->argv[i], sizeof(t->argv[i])))
			return DKR_R_T_ARGV;
	if (t->envc > DKR_ENV_MAX)
		return DKR_R_T_ENV;
	for (i = 0; i < t->envc; i++)
		if (!str_ok(t->env[i], sizeof(t->env[i])) ||
		    strchr(t->env[i], '=') == NULL || t->env[i][0] == '=')
			return DKR_R_T_ENV;
	if (t->uid == 0 || t->gid == 0 || t->uid > INT32_MAX ||
	    t->gid > INT32_MAX)
		return DKR_R_T_USER;
	if (t->memory_bytes < DKR_MEMORY_MIN_BYTES ||
	    t->memory_bytes > DKR_MEMORY_MAX_BYTES ||
	    t->pids < 1 || t->pids > DKR_PIDS_MAX ||
	    t->nofile < 1 || t->nofile > DKR_NOFILE_MAX ||
	    t->nproc < 1 || t->nproc > DKR_PIDS_MAX ||
	    t->nano_cpus < 0 || t->nano_cpus > DKR_NANOCPUS_MAX)
		return DKR_R_T_LIMITS;
	if (t->deadline_ms < CMCP_INIT_MIN_MS ||
	    t->deadline_ms > CMCP_INIT_MAX_MS)
		return DKR_R_T_DEADLINE;
	if (!dkr_label_valid(t->instance) || !dkr_label_valid(t->session))
		return DKR_R_T_LABELS;
	if (t->relay != 0 && t->relay != 1)
		return DKR_R_T_RELAY;
	if (dkr_kind_str(t->kind) == NULL)
		return DKR_R_T_KIND;
	/* A server's container, and only that, is labelled with its name. */
	if (t->kind == DKR_KIND_SERVER ? !dkr_label_valid(t->server) :
	    t->server[0] != '\0')
		return DKR_R_T_LABELS;
	if (!mounts_ok(t))
		return DKR_R_T_MOUNTS;
	return DKR_OK;
}

static int
add_strings(cJSON *parent, const char *name, const char *const *v, size_t n)
{
	cJSON	*a;
	size_t	 i;

	if ((a = cJSON_AddArrayToObject(parent, name)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(v[i])))
			return -1;
	return 0;
}

static int
add_ulimit(cJSON *a, const char *name, int64_t v)
{
	cJSON	*u;

	if ((u = cJSON_CreateObject()) == NULL)
		return -1;
	if (!cJSON_AddItemToArray(a, u)) {
		cJSON_Delete(u);
		return -1;
	}
	if (cJSON_AddStringToObject(u, "Name", name) == NULL ||
	    cJSON_AddNumberToObject(u, "Soft", (double)v) == NULL ||
	    cJSON_AddNumberToObject(u, "Hard", (double)v) == NULL)
		return -1;
	return 0;
}

/*
 * One bind, not recursive: a submount of the source is not seen, so a
 * read-only bind has no writable part (a recursive one would keep its
 * submounts' own flags).
 */
static int
add_bind(cJSON *a, const char *source, const char *target, int readonly)
{
	cJSON	*m, *o;

	if ((m = cJSON_CreateObject()) == NULL)
		return -1;
	if (!cJSON_AddItemToArray(a, m)) {
		cJSON_Delete(m);
		return -1;
	}
	if (cJSON_AddStringToObject(m, "Type", "bind") == NULL ||
	    cJSON_AddStringToObject(m, "Source", source) == NULL ||
	    cJSON_AddStringToObject(m, "Target", target) == NULL ||
	    cJSON_AddBoolToObject(m, "ReadOnly", readonly) == NULL ||
	    (o = cJSON_AddObjectToObject(m, "BindOptions")) == NULL ||
	    cJSON_AddStringToObject(o, "Propagation", DKR_PROPAGATION) ==
	    NULL ||
	    cJSON_AddTrueToObject(o, "NonRecursive") == NULL)
		return -1;
	return 0;
}

/*
 * no-new-privileges and the containers' own seccomp profile, inline
 * (dkr_seccomp.c): the same two entries for every container kind.
 */
static int
add_secopt(cJSON *hc)
{
	const char	*v[2], *profile;
	char		*sc;
	int		 rv;

	if ((profile = dkr_seccomp_profile()) == NULL ||
	    asprintf(&sc, "%s%s", DKR_SECCOMP_OPT, profile) == -1)
		return -1;
	v[0] = "no-new-privileges";
	v[1] = sc;
	rv = add_strings(hc, "SecurityOpt", v, 2);
	free(sc);
	return rv;
}

/* cmcp-init, read-only, and a server's binds after it; never Binds. */
static int
add_mounts(cJSON *hc, const struct dkr_template *t)
{
	const struct dkr_mount	*m;
	cJSON			*a;
	size_t			 i;

	if ((a = cJSON_AddArrayToObject(hc, "Mounts")) == NULL ||
	    add_bind(a, t->init_path, CMCP_INIT_TARGET, 1) == -1)
		return -1;
	for (i = 0; i < t->nmounts; i++) {
		m = &t->mounts[i];
		if (add_bind(a, m->source, m->target, m->readonly) == -1)
			return -1;
	}
	return 0;
}

static int
build(const struct dkr_template *t, cJSON *root)
{
	const char	*argv[DKR_ARGV_MAX], *env[DKR_ENV_MAX];
	const char	*ep[DKR_INIT_ARGS_MAX], *none = "none", *drop = "ALL";
	char		 user[32], ms[24];
	cJSON		*hc, *o, *a;
	size_t		 i, nep = 0;

	for (i = 0; i < t->argc; i++)
		argv[i] = t->argv[i];
	for (i = 0; i < t->envc; i++)
		env[i] = t->env[i];
	(void)snprintf(user, sizeof(user), "%u:%u", (unsigned)t->uid,
	    (unsigned)t->gid);
	(void)snprintf(ms, sizeof(ms), "%lld", (long long)t->deadline_ms);
	ep[nep++] = CMCP_INIT_TARGET;
	/* The container's stdio waits for the MCP host's cmcp-init -c. */
	if (t->relay)
		ep[nep++] = "-r";
	ep[nep++] = "-t";
	ep[nep++] = ms;
	ep[nep++] = "--";

	if (cJSON_AddStringToObject(root, "Image", t->image) == NULL ||
	    cJSON_AddStringToObject(root, "User", user) == NULL ||
	    add_strings(root, "Entrypoint", ep, nep) == -1 ||
	    add_strings(root, "Cmd", argv, t->argc) == -1 ||
	    add_strings(root, "Env", env, t->envc) == -1 ||
	    cJSON_AddStringToObject(root, "WorkingDir", "/") == NULL ||
	    cJSON_AddTrueToObject(root, "AttachStdin") == NULL ||
	    cJSON_AddTrueToObject(root, "AttachStdout") == NULL ||
	    cJSON_AddTrueToObject(root, "AttachStderr") == NULL ||
	    cJSON_AddTrueToObject(root, "OpenStdin") == NULL ||
	    cJSON_AddTrueToObject(root, "StdinOnce") == NULL ||
	    cJSON_AddFalseToObject(root, "Tty") == NULL ||
	    cJSON_AddNumberToObject(root, "StopTimeout", 0) == NULL ||
	    (o = cJSON_AddObjectToObject(root, "Labels")) == NULL ||
	    cJSON_AddStringToObject(o, DKR_LABEL_INSTANCE,
	    t->instance) == NULL ||
	    cJSON_AddStringToObject(o, DKR_LABEL_SESSION, t->session) == NULL ||
	    cJSON_AddStringToObject(o, DKR_LABEL_KIND,
	    dkr_kind_str(t->kind)) == NULL ||
	    (t->kind == DKR_KIND_SERVER &&
	    cJSON_AddStringToObject(o, DKR_LABEL_SERVER, t->server) == NULL))
		return -1;

	/*
	 * MaskedPaths and ReadonlyPaths are never sent: Docker's defaults.
	 * IpcMode none: a private IPC namespace without /dev/shm, where
	 * "private" would mount a tmpfs the workload can write.
	 */
	if ((hc = cJSON_AddObjectToObject(root, "HostConfig")) == NULL ||
	    cJSON_AddStringToObject(hc, "NetworkMode", none) == NULL ||
	    cJSON_AddTrueToObject(hc, "ReadonlyRootfs") == NULL ||
	    cJSON_AddFalseToObject(hc, "Privileged") == NULL ||
	    add_strings(hc, "CapDrop", &drop, 1) == -1 ||
	    add_secopt(hc) == -1 ||
	    cJSON_AddNumberToObject(hc, "PidsLimit", (double)t->pids) == NULL ||
	    cJSON_AddNumberToObject(hc, "Memory",
	    (double)t->memory_bytes) == NULL ||
	    cJSON_AddNumberToObject(hc, "MemorySwap",
	    (double)t->memory_bytes) == NULL ||
	    (t->nano_cpus > 0 && cJSON_AddNumberToObject(hc, "NanoCpus",
	    (double)t->nano_cpus) == NULL) ||
	    (a = cJSON_AddArrayToObject(hc, "Ulimits")) == NULL ||
	    add_ulimit(a, "core", 0) == -1 ||
	    add_ulimit(a, "nofile", t->nofile) == -1 ||
	    add_ulimit(a, "nproc", t->nproc) == -1 ||
	    (o = cJSON_AddObjectToObject(hc, "LogConfig")) == NULL ||
	    cJSON_AddStringToObject(o, "Type", none) == NULL ||
	    cJSON_AddObjectToObject(o, "Config") == NULL ||
	    (o = cJSON_AddObjectToObject(hc, "RestartPolicy")) == NULL ||
	    cJSON_AddStringToObject(o, "Name", "no") == NULL ||
	    cJSON_AddFalseToObject(hc, "AutoRemove") == NULL ||
	    cJSON_AddFalseToObject(hc, "Init") == NULL ||
	    cJSON_AddStringToObject(hc, "PidMode", "") == NULL ||
	    cJSON_AddStringToObject(hc, "IpcMode", none) == NULL ||
	    cJSON_AddStringToObject(hc, "UTSMode", "") == NULL ||
	    cJSON_AddStringToObject(hc, "UsernsMode", "") == NULL ||
	    cJSON_AddStringToObject(hc, "CgroupnsMode", "private") == NULL ||
	    add_mounts(hc, t) == -1)
		return -1;
	return 0;
}

/*
 * The create body, a NUL-terminated string to free(3), or NULL with
 * *reason set (DKR_R_JSON for an allocation failure).
 */
char *
dkr_template_body(const struct dkr_template *t, enum dkr_reason *reason)
{
	cJSON	*root;
	char	*s = NULL;

	if ((*reason = dkr_template_check(t)) != DKR_OK)
		return NULL;
	*reason = DKR_R_JSON;
	if ((root = cJSON_CreateObject()) == NULL)
		return NULL;
	if (build(t, root) == 0 && (s = cJSON_PrintUnformatted(root)) != NULL)
		*reason = DKR_OK;
	cJSON_Delete(root);
	return s;
}

#ifdef CMCP_TEST
/* Replace o's member name by v, which is consumed; 0, or -1 if none. */
static int
weaken_set(cJSON *o, const char *name, cJSON *v)
{
	if (v == NULL)
		return -1;
	if (o == NULL || !cJSON_ReplaceItemInObjectCaseSensitive(o, name, v)) {
		cJSON_Delete(v);
		return -1;
	}
	return 0;
}

/* The core entry of Ulimits, soft and hard lifted. */
static int
weaken_core(cJSON *hc)
{
	cJSON	*u, *n;

	cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(hc,
	    "Ulimits")) {
		n = cJSON_GetObjectItemCaseSensitive(u, "Name");
		if (!cJSON_IsString(n) || strcmp(n->valuestring, "core") != 0)
			continue;
		if (weaken_set(u, "Soft",
		    cJSON_CreateNumber(DKR_WEAKEN_CORE_BYTES)) == -1 ||
		    weaken_set(u, "Hard",
		    cJSON_CreateNumber(DKR_WEAKEN_CORE_BYTES)) == -1)
			return -1;
		return 0;
	}
	return -1;
}

/*
 * Every read-only bind but cmcp-init's made read-write: a server's (the
 * agent's and a sandbox's bodies have none, and stay as they are).
 */
static int
weaken_mounts(cJSON *hc)
{
	cJSON	*m, *t;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(hc,
	    "Mounts")) {
		t = cJSON_GetObjectItemCaseSensitive(m, "Target");
		if (!cJSON_IsString(t))
			return -1;
		if (strcmp(t->valuestring, CMCP_INIT_TARGET) != 0 &&
		    weaken_set(m, "ReadOnly", cJSON_CreateFalse()) == -1)
			return -1;
	}
	return 0;
}

/*
 * SecurityOpt with its seccomp entry dropped (the engine's default
 * profile), unconfined, or our profile with one call more allowed.
 */
static int
weaken_seccomp(cJSON *hc, int weaken)
{
	cJSON	*a;
	char	*p = NULL, *sc = NULL;
	int	 rv = -1;

	if ((a = cJSON_CreateArray()) == NULL ||
	    !cJSON_AddItemToArray(a, cJSON_CreateString("no-new-privileges")))
		goto done;
	if (weaken & WEAKEN_SECCOMP_UNCONFINED) {
		if (!cJSON_AddItemToArray(a,
		    cJSON_CreateString(DKR_SECCOMP_OPT "unconfined")))
			goto done;
	} else if (weaken & WEAKEN_SECCOMP_PLUS) {
		if ((p = dkr_seccomp_json_plus("io_uring_setup")) == NULL ||
		    asprintf(&sc, "%s%s", DKR_SECCOMP_OPT, p) == -1) {
			sc = NULL;
			goto done;
		}
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(sc)))
			goto done;
	}
	rv = weaken_set(hc, "SecurityOpt", a);
	a = NULL;
 done:
	cJSON_Delete(a);
	free(p);
	free(sc);
	return rv;
}

/*
 * Test build only: the create body with the fields of weaken (a bitmask
 * of enum session_weaken) changed, for the agent's, the sandbox tool's
 * and the servers' containers alike, so that the tests show admission
 * refusing the container the engine then reports and, with the check
 * bypassed, the leak.  body is freed; the new body to free(3), or NULL
 * for an unknown bit or a body without the field.
 */
char *
dkr_template_weaken(char *body, int weaken)
{
	cJSON	*root, *hc, *v;
	char	*s = NULL;
	int	 bad = 0;

	if (weaken == WEAKEN_NONE)
		return body;
	root = (weaken & ~(WEAKEN_MAX - 1)) == 0 ? cJSON_Parse(body) : NULL;
	free(body);
	if (root == NULL)
		return NULL;
	hc = cJSON_GetObjectItemCaseSensitive(root, "HostConfig");
	if (weaken & WEAKEN_NETWORK)
		bad |= weaken_set(hc, "NetworkMode",
		    cJSON_CreateString("host"));
	if (weaken & WEAKEN_ROOTFS)
		bad |= weaken_set(hc, "ReadonlyRootfs", cJSON_CreateFalse());
	if (weaken & WEAKEN_LOGS)
		bad |= weaken_set(cJSON_GetObjectItemCaseSensitive(hc,
		    "LogConfig"), "Type", cJSON_CreateString("json-file"));
	if (weaken & WEAKEN_CORE)
		bad |= weaken_core(hc);
	if (weaken & WEAKEN_MOUNT_RW)
		bad |= weaken_mounts(hc);
	if (weaken & (WEAKEN_SECCOMP_DEFAULT | WEAKEN_SECCOMP_UNCONFINED |
	    WEAKEN_SECCOMP_PLUS))
		bad |= weaken_seccomp(hc, weaken);
	/* where AppArmor is on, the engine reports AppArmorProfile unconfined */
	if ((weaken & WEAKEN_APPARMOR) &&
	    ((v = cJSON_CreateString("apparmor=unconfined")) == NULL ||
	    !cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(hc,
	    "SecurityOpt"), v))) {
		cJSON_Delete(v);
		bad = -1;
	}
	if (!bad)
		s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}
#endif

/* The container's exit status as cmcp-init encodes it. */
enum dkr_outcome
dkr_exit_outcome(int64_t status)
{
	if (status == CMCP_INIT_TIME_LIMIT)
		return DKR_TIME_LIMIT;
	if (status == CMCP_INIT_FAILED)
		return DKR_INIT_FAILED;
	if (status >= 0 &&
	    status <= CMCP_INIT_SIG_BASE + CMCP_INIT_SIG_MAX)
		return DKR_EXITED;
	return DKR_UNKNOWN;
}
