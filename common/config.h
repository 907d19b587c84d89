/*
 * The parsed configuration (cmcp-privsep.conf(5)).  parse.y fills it,
 * printconf.c prints it in normalized form.
 *
 * Fields marked STABLE are used by the process machinery; keep their names.
 *
 * Every reference is resolved when parse_config() returns: a tool points at
 * its server, an operation at its tool, a rule at its operations, and labels
 * are indices into c_labels (0 is the lowest).
 */

#ifndef CMCP_CONFIG_H
#define CMCP_CONFIG_H

#include <sys/types.h>
#include <sys/queue.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "cmcp.h"

/* Bounds of the grammar. */
#define CONF_NAME_BYTES		64	/* label, server, tool, op, key, user */
#define CONF_STRING_BYTES	1024	/* a command argument, a rule value */
#define CONF_IMAGE_BYTES	72	/* "sha256:" + 64 hex digits + NUL */
#define CONF_LABELS_MAX		16
#define CONF_ARGS_MAX		32	/* command arguments */
#define CONF_LIST_MAX		64	/* names or values in a rule list */
#define CONF_SERVERS_MAX	16
#define CONF_TOOLS_MAX		128
#define CONF_OPERATIONS_MAX	256
#define CONF_RULES_MAX		1024
#define CONF_INCLUDE_DEPTH	8
#define CONF_DESC_BYTES		1024	/* an operation's description */
#define CONF_MOUNTS_MAX		8	/* in one server block */
#define CONF_SCHEMA_BYTES	8192	/* ... its input schema, canonical */
#define CONF_SCHEMA_DEPTH	32	/* ... and its nesting */

/* Defaults of the grammar that the rest of the suite does not share. */
#define CONF_CHROOT		"/var/lib/cmcp-privsep/empty"
#define CONF_AUDIT_DB		"/var/lib/cmcp-privsep/audit/audit.db"
#define CONF_DOCKER_SOCKET	"/run/docker.sock"
#define CONF_CONTROL_SOCKET	"/run/cmcp-privsep.sock"
#ifndef CONF_INIT
#define CONF_INIT		"/usr/local/libexec/cmcp-privsep/cmcp-init"
#endif
#define CONF_DOCKER_TIMEOUT_MS	10000
#define CONF_NOBODY_ID		65534	/* default container and server user */
#define CONF_MEMORY_BYTES	(256ULL * 1024 * 1024)
#define CONF_PIDS		64
#define CONF_NOFILE		64
/*
 * A server in a container has no nofile statement: node's ESM loader
 * opens a module graph's files at once, and server-filesystem's (zod v4
 * and its locales) failed with EMFILE at 144 and started at 152.  Twice
 * the agent's default would not hold it; 256 leaves it two-thirds again.
 */
#define CONF_SERVER_NOFILE	256
#define CONF_SERVER_TOOLS	MCP_TOOLS

/* Where a statement was written, for messages after the parse. */
struct conf_where {
	const char	*file;		/* owned by the cmcp_conf */
	int		 line;
};

struct conf_user {				/* STABLE */
	char		 name[64];	/* as written, "" when numeric */
	uid_t		 uid;
	gid_t		 gid;
	int		 has_group;	/* supplementary group set */
	char		 group[64];	/* as written, "" when numeric */
	gid_t		 sgid;
};

/* A command line: argv[0] is absolute, argv[argc] is NULL. */
struct conf_argv {
	char		*argv[CONF_ARGS_MAX + 1];
	size_t		 argc;
};

/* A container's identity and resource bounds (agent or sandbox tool). */
struct conf_container {
	char		 image[CONF_IMAGE_BYTES];	/* sha256:<64 hex> */
	struct conf_argv cmd;
	uid_t		 uid;
	gid_t		 gid;
	uint64_t	 memory_bytes;
	unsigned int	 pids;
	unsigned int	 timeout_ms;
};

/* What the agent speaks on its stdio (DESIGN 6). */
enum conf_protocol {
	PROTO_FRAMES = 0,	/* the suite's request frames (default) */
	PROTO_MCP		/* MCP: the bridge is the agent's one server */
};

struct conf_agent {
	struct conf_container ctr;
	enum conf_protocol protocol;
	int		 relay;		/* mcp: cmcp-init -r, hosts spawn -c */
	unsigned int	 nofile;
	size_t		 frame_bytes;
	size_t		 stdout_bytes;
	size_t		 stderr_bytes;
	unsigned int	 calls;
	int		 payload_label;
};

struct conf_watchdog {
	unsigned int	 pulse_ms;
	unsigned int	 ack_ms;
	unsigned int	 lease_ms;
	unsigned int	 stop_tries;
	unsigned int	 stop_timeout_ms;
};

/*
 * A bind mount of a server's container (server blocks only): an absolute
 * host directory, never a symbolic link, "/" or the Docker socket's
 * directory, at an absolute path inside the container.
 */
struct conf_mount {
	char		 host[PATH_MAX];
	char		 target[PATH_MAX];
	int		 rw;		/* 0: read-only */
};

struct conf_server {
	TAILQ_ENTRY(conf_server) entry;
	char		 name[CONF_NAME_BYTES];
	struct conf_where where;
	struct conf_argv cmd;
	struct conf_user user;
	/*
	 * With an image the server runs in a container of the agent's
	 * profile (DESIGN 7, 8): image is "sha256:<64 hex>", "" for a
	 * server on the host; the user numeric and not root; the limits
	 * and mounts apply to the container only.
	 */
	char		 image[CONF_IMAGE_BYTES];
	uint64_t	 memory_bytes;
	unsigned int	 pids;
	struct conf_mount mounts[CONF_MOUNTS_MAX];
	size_t		 nmounts;
	unsigned int	 timeout_ms;
	size_t		 response_bytes;
	unsigned int	 tools;
	unsigned int	 pages;
};

enum conf_tool_kind {
	TOOL_MCP = 1,
	TOOL_SANDBOX
};

struct conf_tool {
	TAILQ_ENTRY(conf_tool) entry;
	char		 name[CONF_NAME_BYTES];
	struct conf_where where;
	enum conf_tool_kind kind;
	int		 ceiling;	/* label index */
	int		 label;		/* label index of the result */

	/* TOOL_MCP */
	struct conf_server *server;
	char		 remote[CONF_NAME_BYTES];

	/* TOOL_SANDBOX */
	struct conf_container ctr;
	size_t		 output_bytes;
	size_t		 source_bytes;
	size_t		 input_bytes;
	struct conf_tool *input_tool;	/* an mcp tool, or NULL */
};

struct conf_operation {
	TAILQ_ENTRY(conf_operation) entry;
	char		 name[CONF_NAME_BYTES];
	struct conf_where where;
	struct conf_tool *tool;
	unsigned int	 budget;	/* 0: bounded by agent calls only */
	/*
	 * What an MCP agent is shown (protocol mcp): the operator's text,
	 * NULL for none, and the input schema, canonical JSON (a JSON
	 * object) or NULL for the upstream tool's, stripped of its text.
	 */
	char		*description;
	char		*schema;
	size_t		 schemalen;
};

enum conf_cmp {
	CMP_NONE,
	CMP_EQ,
	CMP_NE,
	CMP_LT,
	CMP_LE,
	CMP_GT,
	CMP_GE,
	CMP_IN,
	CMP_PRESENT,
	CMP_ABSENT
};

struct conf_value {
	int		 is_number;
	long long	 number;
	char		*string;	/* when !is_number */
};

/* An argument predicate: "key" cmp values[0..nvalues). */
struct conf_pred {
	TAILQ_ENTRY(conf_pred) entry;
	char		 key[CONF_NAME_BYTES];
	enum conf_cmp	 cmp;
	struct conf_value *values;	/* 1 for =..>=, n for in, 0 else */
	size_t		 nvalues;
};

enum conf_action {
	RULE_BLOCK,
	RULE_PASS
};

struct conf_rule {
	TAILQ_ENTRY(conf_rule) entry;
	struct conf_where where;
	unsigned int	 nr;		/* 1-based, in file order */
	enum conf_action action;
	int		 quick;
	struct conf_operation **ops;	/* nops == 0: all operations */
	size_t		 nops;
	enum conf_cmp	 label_cmp;	/* CMP_NONE: any session label */
	int		 label;
	TAILQ_HEAD(, conf_pred) preds;
};

/* The name of every file read, so that conf_where can point at it. */
struct conf_file {
	TAILQ_ENTRY(conf_file) entry;
	char		 name[];
};

struct cmcp_conf {
	char		 c_file[PATH_MAX];			/* STABLE */
	struct conf_user c_users[PROC_MAX];	/* STABLE, [PROC_PARENT] unused */
	char		 c_chroot[PATH_MAX];			/* STABLE */
	char		 c_audit_db[PATH_MAX];			/* STABLE */
	char		 c_docker_socket[PATH_MAX];		/* STABLE */
	char		 c_control_socket[PATH_MAX];		/* STABLE */

	int		 c_control_has_group;
	char		 c_control_group[64];	/* as written, "" when numeric */
	gid_t		 c_control_gid;
	unsigned int	 c_docker_timeout_ms;
	char		 c_init[PATH_MAX];	/* cmcp-init on the host */

	char		 c_labels[CONF_LABELS_MAX][CONF_NAME_BYTES];
	size_t		 c_nlabels;

	struct conf_agent c_agent;
	struct conf_watchdog c_wd;

	TAILQ_HEAD(, conf_server) c_servers;
	TAILQ_HEAD(, conf_tool) c_tools;
	TAILQ_HEAD(, conf_operation) c_operations;
	TAILQ_HEAD(, conf_rule) c_rules;
	TAILQ_HEAD(, conf_file) c_files;
};

__BEGIN_DECLS
/* NULL on error, after printing "file:line: message" lines to stderr */
struct cmcp_conf	*parse_config(const char *);
void			 print_config(const struct cmcp_conf *, FILE *);
void			 free_config(struct cmcp_conf *);

/* parse.y: nonzero if the word is a keyword (printconf quotes it) */
int			 conf_keyword(const char *);
/* printconf.c: canonical units, also used in messages */
void			 conf_fmt_size(char *, size_t, uint64_t);
void			 conf_fmt_time(char *, size_t, uint64_t);
__END_DECLS

#endif /* CMCP_CONFIG_H */
