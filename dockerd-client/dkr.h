/*
 * dockerd-client: the container template, the admission verifiers and the
 * Docker Engine API client.  The template and verifiers are pure (cJSON
 * only); dkr_api.c does the I/O (libcurl over the unix socket, and a raw
 * AF_UNIX hijack for attach).
 *
 * Every refusal is a fixed reason naming the field; no text that Docker
 * returned is ever copied into a reason or a log line.
 */

#ifndef DKR_H
#define DKR_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "../init/cmcp-init.h"

#define DKR_API_PATH		"/v1.41"
#define DKR_API_MAJOR		1
#define DKR_API_MINOR		41

#define DKR_IMAGE_ID_BYTES	(7 + 64 + 1)	/* "sha256:" 64 hex NUL */
#define DKR_CONTAINER_ID_BYTES	(64 + 1)
#define DKR_ARGV_MAX		16
#define DKR_INIT_ARGS_MAX	5	/* cmcp-init [-r] -t ms -- */
#define DKR_ENV_MAX		8
#define DKR_ARG_BYTES		256
#define DKR_LABEL_BYTES		64
#define DKR_PATH_BYTES		256
#define DKR_WHY_BYTES		96

#define DKR_LABEL_INSTANCE	"org.cmcp-privsep.instance"
#define DKR_LABEL_SESSION	"org.cmcp-privsep.session"
/* Which of a session's containers: DKR_KIND_* as dkr_kind_str() names. */
#define DKR_LABEL_KIND		"org.cmcp-privsep.kind"
/* A server's container only: the server's configured name. */
#define DKR_LABEL_SERVER	"org.cmcp-privsep.server"

/* A server's bind mounts (SESSION_MOUNTS_MAX), besides cmcp-init's. */
#define DKR_MOUNTS_MAX		8
/* Every bind's propagation: no mount event crosses it either way. */
#define DKR_PROPAGATION		"rprivate"

/* Docker refuses less than 6 MiB; cJSON prints 1e15 and up as 1e+15. */
#define DKR_MEMORY_MIN_BYTES	(6LL * 1024 * 1024)
#define DKR_MEMORY_MAX_BYTES	(1LL << 40)
#define DKR_PIDS_MAX		4096
#define DKR_NOFILE_MAX		65536
#define DKR_NANOCPUS_MAX	(256LL * 1000 * 1000 * 1000)

/* Bounds on what the engine may send back. */
#define DKR_RESPONSE_MAX_BYTES	(512 * 1024)
#define DKR_ATTACH_HEAD_BYTES	(16 * 1024)
#define DKR_LIST_MAX		256

/* The engine's own AppArmor profile, where AppArmor is on. */
#define DKR_APPARMOR_DEFAULT	"docker-default"

#ifdef CMCP_TEST
/* Test build: what WEAKEN_CORE lifts the core limit to, soft and hard. */
#define DKR_WEAKEN_CORE_BYTES	(64LL * 1024 * 1024)
#endif

/* Per-call timeouts. */
#define DKR_CALL_TIMEOUT_MS	20000
#define DKR_ATTACH_TIMEOUT_MS	5000

/* The containers of a session; the kind label says which one. */
enum dkr_kind {
	DKR_KIND_AGENT = 0,
	DKR_KIND_SANDBOX,
	DKR_KIND_SERVER,
	DKR_KIND_MAX
};

/*
 * A host directory bound into a server's container: source and target
 * absolute and canonical (no ".", "..", "//" or trailing "/"), so that
 * the engine reports them exactly as sent.
 */
struct dkr_mount {
	char	 source[DKR_PATH_BYTES];		/* on the host */
	char	 target[DKR_PATH_BYTES];		/* in the container */
	int	 readonly;				/* 0 or 1 */
};

/*
 * The profile of one container.  Everything the create body carries that
 * is not in here is a constant of dkr_template.c.
 */
struct dkr_template {
	char	 image[DKR_IMAGE_ID_BYTES];		/* sha256:<64 hex> */
	char	 init_path[DKR_PATH_BYTES];		/* host cmcp-init */
	size_t	 argc;					/* workload argv */
	char	 argv[DKR_ARGV_MAX][DKR_ARG_BYTES];
	size_t	 envc;					/* exactly this env */
	char	 env[DKR_ENV_MAX][DKR_ARG_BYTES];
	uid_t	 uid;					/* never 0 */
	gid_t	 gid;					/* never 0 */
	int64_t	 memory_bytes;				/* = MemorySwap */
	int64_t	 pids;
	int64_t	 nofile;
	int64_t	 nproc;
	int64_t	 nano_cpus;				/* 0: no limit */
	int64_t	 deadline_ms;				/* cmcp-init -t */
	int	 relay;					/* cmcp-init -r: 0, 1 */
	int	 kind;					/* enum dkr_kind */
	char	 server[DKR_LABEL_BYTES];		/* servers only */
	size_t	 nmounts;				/* servers only */
	struct dkr_mount mounts[DKR_MOUNTS_MAX];
	char	 instance[DKR_LABEL_BYTES];
	char	 session[DKR_LABEL_BYTES];
#ifdef CMCP_TEST
	int	 weaken;	/* enum session_weaken: fields changed at create */
	int	 noadmit;	/* a failed profile check is ignored */
#endif
};

/* Why admission refused.  dkr_reason_str() names the field. */
enum dkr_reason {
	DKR_OK = 0,
	DKR_R_JSON,
	/* template */
	DKR_R_T_IMAGE,
	DKR_R_T_INIT,
	DKR_R_T_ARGV,
	DKR_R_T_ENV,
	DKR_R_T_USER,
	DKR_R_T_LIMITS,
	DKR_R_T_DEADLINE,
	DKR_R_T_LABELS,
	DKR_R_T_RELAY,
	DKR_R_T_KIND,
	DKR_R_T_MOUNTS,
	/* container inspect, top level */
	DKR_R_ID,
	DKR_R_IMAGE,
	DKR_R_PATH,
	DKR_R_ARGS,
	DKR_R_STATE,
	DKR_R_APPARMOR,
	DKR_R_MOUNTS,
	DKR_R_MOUNT_TYPE,
	DKR_R_MOUNT_SOURCE,
	DKR_R_MOUNT_DEST,
	DKR_R_MOUNT_RW,
	DKR_R_MOUNT_PROPAGATION,
	DKR_R_NETWORKS,
	/* Config */
	DKR_R_USER,
	DKR_R_TTY,
	DKR_R_STDIO,
	DKR_R_ENV,
	DKR_R_ENTRYPOINT,
	DKR_R_CMD,
	DKR_R_CONFIG_IMAGE,
	DKR_R_VOLUMES,
	DKR_R_LABELS,
	DKR_R_WORKDIR,
	DKR_R_HEALTHCHECK,
	DKR_R_EXPOSED,
	DKR_R_STOPTIMEOUT,
	/* HostConfig */
	DKR_R_NETWORK,
	DKR_R_READONLY,
	DKR_R_PRIVILEGED,
	DKR_R_CAPDROP,
	DKR_R_CAPADD,
	DKR_R_SECOPT,
	DKR_R_SECCOMP,
	DKR_R_LOG,
	DKR_R_RESTART,
	DKR_R_AUTOREMOVE,
	DKR_R_PIDS,
	DKR_R_MEMORY,
	DKR_R_SWAP,
	DKR_R_CPUS,
	DKR_R_ULIMITS,
	DKR_R_BINDS,
	DKR_R_DEVICES,
	DKR_R_DEVREQ,
	DKR_R_DEVRULES,
	DKR_R_PORTS,
	DKR_R_PUBLISH,
	DKR_R_VOLUMESFROM,
	DKR_R_LINKS,
	DKR_R_GROUPADD,
	DKR_R_PIDMODE,
	DKR_R_IPCMODE,
	DKR_R_UTSMODE,
	DKR_R_USERNSMODE,
	DKR_R_CGROUPNS,
	DKR_R_CGROUP,
	DKR_R_CGROUPPARENT,
	DKR_R_HC_MOUNTS,
	DKR_R_HC_MOUNT_TYPE,
	DKR_R_HC_MOUNT_SOURCE,
	DKR_R_HC_MOUNT_TARGET,
	DKR_R_HC_MOUNT_READONLY,
	DKR_R_HC_MOUNT_PROPAGATION,
	DKR_R_HC_MOUNT_OPTIONS,
	DKR_R_TMPFS,
	DKR_R_MASKED,
	DKR_R_ROPATHS,
	DKR_R_RUNTIME,
	DKR_R_INIT,
	DKR_R_OOMKILL,
	DKR_R_SYSCTLS,
	/* image inspect */
	DKR_R_IMG_ID,
	DKR_R_IMG_OS,
	DKR_R_IMG_VOLUMES,
	DKR_R_IMG_HEALTHCHECK,
	DKR_R_IMG_ONBUILD,
	/* create response */
	DKR_R_WARNINGS,
	/* daemon */
	DKR_R_D_API,
	DKR_R_D_OS,
	DKR_R_D_DESKTOP,
	DKR_R_D_MEMORY,
	DKR_R_D_SWAP,
	DKR_R_D_PIDS,
	DKR_R_D_SECCOMP,
	DKR_R_MAX
};

/* The container states an inspect document may show (a bit mask). */
#define DKR_STATE_CREATED	0x1
#define DKR_STATE_RUNNING	0x2
#define DKR_STATE_EXITED	0x4

/* How a container ended, from its exit status (see cmcp-init.h). */
enum dkr_outcome {
	DKR_EXITED,		/* workload exit status or signal */
	DKR_TIME_LIMIT,		/* cmcp-init's deadline */
	DKR_INIT_FAILED,	/* cmcp-init refused or could not exec */
	DKR_UNKNOWN		/* a status cmcp-init never produces */
};

/*
 * A connection to the engine (dkr_api.c).  body holds the last response,
 * NUL-terminated, at most DKR_RESPONSE_MAX_BYTES; err a fixed text naming
 * the last failure, never anything the engine said.
 */
struct dkr_client {
	void		*curl;
	char		 sock[108];
	char		*body;
	size_t		 len;
	size_t		 cap;
	int		 overflow;
	char		 api[16];	/* Api-Version of the last ping */
	long		 timeout_ms;	/* of each call */
	char		 err[DKR_WHY_BYTES];
};

__BEGIN_DECLS
/* dkr_template.c */
const char	*dkr_reason_str(enum dkr_reason);
const char	*dkr_kind_str(int);
int		 dkr_image_id_valid(const char *);
int		 dkr_container_id_valid(const char *);
int		 dkr_label_valid(const char *);
enum dkr_reason	 dkr_template_check(const struct dkr_template *);
char		*dkr_template_body(const struct dkr_template *,
		    enum dkr_reason *);
enum dkr_outcome dkr_exit_outcome(int64_t);
#ifdef CMCP_TEST
/* Test build: weaken fields of a create body (enum session_weaken). */
char		*dkr_template_weaken(char *, int);
#endif

/* dkr_verify.c: each returns DKR_OK or the reason, and fills why */
enum dkr_reason	 dkr_inspect_verify(const char *, size_t,
		    const struct dkr_template *, const char *, char *, size_t);
enum dkr_reason	 dkr_inspect_verify_state(const char *, size_t,
		    const struct dkr_template *, const char *, int, char *,
		    size_t);
enum dkr_reason	 dkr_image_verify(const char *, size_t, const char *,
		    char *, size_t);
enum dkr_reason	 dkr_daemon_verify(const char *, size_t, const char *,
		    size_t, char *, size_t);
enum dkr_reason	 dkr_create_verify(const char *, size_t, char *, char *,
		    size_t);

/* dkr_curl.c (the suite only): dlopen libcurl; 0 or -1 */
int		 dkr_curl_load(void);

/* dkr_api.c: HTTP status, or -1 with c->err set */
int		 dkr_client_init(struct dkr_client *, const char *);
void		 dkr_client_free(struct dkr_client *);
long		 dkr_call(struct dkr_client *, const char *, const char *,
		    const char *, long);
int		 dkr_ping(struct dkr_client *);
long		 dkr_version(struct dkr_client *);
long		 dkr_info(struct dkr_client *);
long		 dkr_image_inspect(struct dkr_client *, const char *);
int		 dkr_create(struct dkr_client *, const char *, char *,
		    enum dkr_reason *);
long		 dkr_inspect(struct dkr_client *, const char *);
long		 dkr_start(struct dkr_client *, const char *);
int		 dkr_wait(struct dkr_client *, const char *, long,
		    int64_t *);
long		 dkr_kill(struct dkr_client *, const char *);
long		 dkr_stop(struct dkr_client *, const char *, int);
long		 dkr_delete(struct dkr_client *, const char *);
int		 dkr_gone(struct dkr_client *, const char *);
int		 dkr_list(struct dkr_client *, const char *, const char *,
		    char (*)[DKR_CONTAINER_ID_BYTES], size_t, size_t *);
int		 dkr_instances(struct dkr_client *, const char *,
		    char (*)[DKR_LABEL_BYTES], size_t, size_t *, int *);
int		 dkr_attach(struct dkr_client *, const char *, int *, char *,
		    size_t, size_t *);
__END_DECLS

#endif /* DKR_H */
