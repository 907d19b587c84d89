/*
 * cmcp-privsep.conf(5): the grammar and its own lexer, in the manner of the
 * OpenBSD daemons' parse.y.  Macros are expanded by the lexer, includes are
 * a stack of files, and every name that may be written before it is defined
 * (labels, servers, tools, operations) is resolved after the whole file.
 *
 * The first error ends the parse.  Strings handed out by the lexer live in
 * a pool freed after the parse, and every object is linked into the config
 * when it is created, so an abort anywhere leaks nothing.
 */

%{
#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "json.h"
#include "../init/cmcp-init.h"

/* A server's mounts travel to dockerd-client in one session_server. */
#if CONF_MOUNTS_MAX > SESSION_MOUNTS_MAX
#error "CONF_MOUNTS_MAX exceeds SESSION_MOUNTS_MAX"
#endif

/*
 * Longest token, quoted or bare: an operation's schema may be written
 * with white space and over continued lines, and is bounded by its
 * canonical form (CONF_SCHEMA_BYTES), which is never longer.
 */
#define TOKEN_BYTES	(2 * CONF_SCHEMA_BYTES)
#define UNGET_SLOTS	(TOKEN_BYTES + 16)
#define EXPAND_START	0x100		/* markers around a macro's text */
#define EXPAND_END	0x101
/* byacc's stack is freed after each parse: one a failed allocation left
 * half grown would be written through a null pointer by the next parse. */
#define YY_NO_LEAKS
#define MIN_SIZE_BYTES	1024LL
#define MAX_ID		4294967294LL	/* (uid_t)-1 is never valid */

struct file {
	TAILQ_ENTRY(file)	 entry;
	FILE			*stream;
	const char		*name;		/* as written, owned by conf */
	char			 path[PATH_MAX]; /* as opened */
	dev_t			 dev;
	ino_t			 ino;
	int			 lineno;
	int			 eol;		/* next token is on a new line */
	int			 eol_done;	/* this token began a new line */
	int			 inject_nl;	/* end the include statement */
	int			 eof_nl;	/* final newline returned */
	int			 expanding;	/* inside a macro's text */
	int			 unget[UNGET_SLOTS];
	size_t			 nunget;
};

struct sym {
	TAILQ_ENTRY(sym)	 entry;
	char			*name;
	char			*value;
};

/* A name used before the end of the file, resolved by conf_resolve(). */
enum ref_kind {
	REF_LABEL,
	REF_SERVER,
	REF_TOOL,
	REF_INPUT_TOOL,
	REF_OPERATION
};

struct ref {
	TAILQ_ENTRY(ref)	 entry;
	enum ref_kind		 kind;
	char			 name[CONF_NAME_BYTES];
	struct conf_where	 where;
	void			*target;
};

/* Options of a block, each allowed once. */
enum opt {
	O_IMAGE, O_COMMAND, O_USER, O_MEMORY, O_PIDS, O_NOFILE, O_FRAME,
	O_STDOUT, O_STDERR, O_CALLS, O_TIMEOUT, O_PAYLOAD, O_PULSE, O_ACK,
	O_LEASE, O_TRIES, O_STOPTIMEOUT, O_RESPONSE, O_TOOLS, O_PAGES,
	O_KIND, O_CEILING, O_LABEL, O_OUTPUT, O_SOURCE, O_INPUT, O_INPUTTOOL,
	O_PROTOCOL, O_RELAY, O_BUDGET, O_DESCRIPTION, O_SCHEMA
};

/* Top-level statements, each allowed once. */
enum top {
	T_CHROOT, T_DOCKERSOCK, T_DOCKERTIMEOUT, T_AUDITDB, T_CONTROL,
	T_LABELS, T_AGENT, T_WATCHDOG, T_INIT
};

enum unit {
	U_COUNT,
	U_SIZE,
	U_TIME
};

static const char *const defusers[PROC_MAX] = {
	NULL, "_cmcpbridge", "_cmcpgw", "_cmcpaudit", "_cmcpwd", "_cmcpdocker"
};

static struct cmcp_conf		*conf;
static TAILQ_HEAD(files, file)	 files;
static struct file		*file, *topfile;
static TAILQ_HEAD(, sym)	 symhead;
static TAILQ_HEAD(, ref)	 refs;
static int			 errors;
static int			 depth;

static char			**pool;		/* lexer strings */
static size_t			 npool, poolcap;

static uint32_t			 topset;
static uint64_t			 optset;	/* 1ULL << enum opt */
static int			 userset[PROC_MAX];
static struct conf_where	 userwhere[PROC_MAX];
static struct conf_where	 agentwhere, relaywhere, eofwhere;
static struct conf_where	 onlywhere;	/* first option of one kind */
static const char		*onlykw;
static struct conf_where	 cmdwhere, srvuserwhere;
static struct conf_where	 mountwhere[CONF_SERVERS_MAX][CONF_MOUNTS_MAX];

static struct conf_user		 uspec;		/* user being parsed */
static char			*argbuf[CONF_ARGS_MAX + 1];
static size_t			 nargbuf;
static char			*namebuf[CONF_LIST_MAX];
static size_t			 nnamebuf;

static struct conf_server	*cursrv;
static struct conf_tool		*curtool;
static struct conf_operation	*curop;
static struct conf_rule		*currule;
static struct conf_pred		*curpred;
static size_t			 nservers, ntools, noperations, nrules;

typedef struct {
	union {
		long long	 number;
		char		*string;
	} v;
	int lineno;
} YYSTYPE;
#define YYSTYPE_IS_DECLARED 1

int		 yyparse(void);
static int	 yylex(void);
static void	 yyerror(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2)));
static void	 conf_error(const struct conf_where *, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));
static struct conf_where here(void);
static char	*pool_add(char *);
static struct file *pushfile(const char *, int);
static int	 popfile(void);
static int	 symset(const char *, const char *);
static const char *symget(const char *);
static int	 addref(enum ref_kind, const char *, void *);
static int	 once(enum opt, const char *);
static int	 toponce(enum top, const char *);
static int	 inrange(const char *, long long, long long, long long,
		    enum unit);
static int	 parse_size(const char *, long long *);
static int	 parse_time(const char *, long long *);
static int	 parse_ids(const char *, uid_t *, gid_t *);
static int	 name_ok(const char *, const char *);
static int	 path_ok(const char *, const char *, char *, size_t);
static int	 image_ok(const char *, char *, size_t);
static int	 user_by_name(const char *, struct conf_user *);
static int	 group_by_name(const char *, gid_t *);
static int	 argbuf_add(const char *);
static int	 argbuf_take(struct conf_argv *);
static int	 ctr_cmd_ok(const struct conf_where *, char *const *,
		    size_t);
static int	 namebuf_add(const char *);
static int	 value_add(int, long long, const char *);
static int	 utf8_ok(const unsigned char *, size_t);
static int	 op_description(struct conf_operation *, const char *);
static int	 op_schema(struct conf_operation *, const char *);
static void	 container_defaults(struct conf_container *);
static void	 only_of_kind(const char *);
static const char *path_canonical(const char *);
static int	 path_within(const char *, const char *);
static int	 mount_host_ok(const char *);
static int	 mount_target_ok(const struct conf_server *, const char *);
static int	 path_kernel(const char *);
static int	 server_mount(struct conf_server *, const char *,
		    const char *, const char *);
static int	 server_finish(struct conf_server *);
static void	 path_dir_text(const char *, char *, size_t);
static void	 path_dir(char *);
static void	 socket_dirs(const char *, char [3][PATH_MAX]);
static int	 conf_check_mounts(void);
static int	 conf_finish(void);
static int	 conf_resolve(void);
static int	 conf_check_users(void);
static int	 label_index(const char *);
static void	 conf_free_argv(struct conf_argv *);
%}

%token	ABSENT ACK AGENT ALL ARG AUDIT AUDITOR BLOCK BRIDGE BUDGET CALLS
%token	CEILING CHROOT COMMAND CONTROL DATABASE DESCRIPTION DOCKER
%token	DOCKERDCLIENT FRAME GATEWAY GROUP IMAGE IN INCLUDE INIT INPUT LABEL
%token	LABELS LEASE MCP MEMORY MOUNT NOFILE OPERATION OUTPUT PAGES PASS
%token	PAYLOAD PIDS PRESENT PROTOCOL PULSE QUICK RELAY RESPONSE SANDBOX
%token	SCHEMA SERVER SOCKET SOURCE STDERR STDOUT STOP TIMEOUT TOOL TOOLS
%token	TRIES USER WATCHDOG
%token	NE LE GE ERROR
%token	<v.string>	STRING NUMSTR
%token	<v.number>	NUMBER
%type	<v.number>	proc size time count cmpop action quick yesno
%type	<v.string>	macroval

%%

grammar		: /* empty */
		| grammar '\n'
		| grammar include '\n'
		| grammar varset '\n'
		| grammar main '\n'
		| grammar agent '\n'
		| grammar watchdog '\n'
		| grammar server '\n'
		| grammar tool '\n'
		| grammar operation '\n'
		| grammar rule '\n'
		;

include		: INCLUDE STRING {
			if (pushfile($2, 1) == NULL)
				YYABORT;
		}
		;

varset		: STRING '=' macroval {
			const char *s;

			for (s = $1; *s != '\0'; s++)
				if (!isalnum((unsigned char)*s) && *s != '_')
					break;
			if (*s != '\0' || s == $1 || s - $1 >= CONF_NAME_BYTES) {
				yyerror("invalid macro name");
				YYABORT;
			}
			if (symset($1, $3) == -1)
				YYABORT;
		}
		;

macroval	: STRING	{ $$ = $1; }
		| NUMSTR	{ $$ = $1; }
		| NUMBER	{
			char	*s;

			if (asprintf(&s, "%lld", $1) == -1) {
				yyerror("out of memory");
				YYABORT;
			}
			if (($$ = pool_add(s)) == NULL)
				YYABORT;
		}
		;

optnl		: /* empty */
		| optnl '\n'
		;

optcomma	: /* empty */
		| ','
		;

proc		: BRIDGE	{ $$ = PROC_BRIDGE; }
		| GATEWAY	{ $$ = PROC_GATEWAY; }
		| AUDITOR	{ $$ = PROC_AUDITOR; }
		| WATCHDOG	{ $$ = PROC_WATCHDOG; }
		| DOCKERDCLIENT	{ $$ = PROC_DOCKER; }
		;

userspec	: STRING {
			memset(&uspec, 0, sizeof(uspec));
			if (user_by_name($1, &uspec) == -1)
				YYABORT;
		}
		| NUMSTR {
			memset(&uspec, 0, sizeof(uspec));
			if (parse_ids($1, &uspec.uid, &uspec.gid) == -1)
				YYABORT;
		}
		| NUMBER {
			yyerror("user: uid:gid expected");
			YYABORT;
		}
		;

uidgid		: NUMSTR {
			memset(&uspec, 0, sizeof(uspec));
			if (parse_ids($1, &uspec.uid, &uspec.gid) == -1)
				YYABORT;
		}
		| NUMBER {
			yyerror("user: uid:gid expected");
			YYABORT;
		}
		| STRING {
			yyerror("user: uid:gid expected");
			YYABORT;
		}
		;

optgroup	: /* empty */
		| GROUP STRING {
			uspec.has_group = 1;
			if (group_by_name($2, &uspec.sgid) == -1)
				YYABORT;
			strlcpy(uspec.group, $2, sizeof(uspec.group));
		}
		| GROUP NUMBER {
			if (inrange("group", $2, 1, MAX_ID, U_COUNT) == -1)
				YYABORT;
			uspec.has_group = 1;
			uspec.sgid = $2;
		}
		;

size		: NUMBER {
			if ($1 < 0) {
				yyerror("invalid size");
				YYABORT;
			}
			$$ = $1;
		}
		| NUMSTR {
			if (parse_size($1, &$$) == -1)
				YYABORT;
		}
		;

time		: NUMSTR {
			if (parse_time($1, &$$) == -1)
				YYABORT;
		}
		| NUMBER {
			yyerror("time needs a unit (ms, s or m)");
			YYABORT;
		}
		;

count		: NUMBER	{ $$ = $1; }
		| NUMSTR {
			yyerror("invalid number");
			YYABORT;
		}
		;

yesno		: STRING {
			if (strcmp($1, "yes") == 0)
				$$ = 1;
			else if (strcmp($1, "no") == 0)
				$$ = 0;
			else {
				yyerror("yes or no expected");
				YYABORT;
			}
		}
		;

main		: USER proc userspec optgroup {
			if (userset[$2]) {
				yyerror("duplicate user %s", proc_names[$2]);
				YYABORT;
			}
			userset[$2] = 1;
			userwhere[$2] = here();
			conf->c_users[$2] = uspec;
		}
		| CHROOT STRING {
			if (toponce(T_CHROOT, "chroot") == -1 ||
			    path_ok("chroot", $2, conf->c_chroot,
			    sizeof(conf->c_chroot)) == -1)
				YYABORT;
		}
		| DOCKER SOCKET STRING {
			if (toponce(T_DOCKERSOCK, "docker socket") == -1 ||
			    path_ok("docker socket", $3, conf->c_docker_socket,
			    sizeof(conf->c_docker_socket)) == -1)
				YYABORT;
		}
		| INIT STRING {
			if (toponce(T_INIT, "init") == -1 ||
			    path_ok("init", $2, conf->c_init,
			    sizeof(conf->c_init)) == -1)
				YYABORT;
		}
		| DOCKER TIMEOUT time {
			if (toponce(T_DOCKERTIMEOUT, "docker timeout") == -1 ||
			    inrange("docker timeout", $3, 1000, 300000,
			    U_TIME) == -1)
				YYABORT;
			conf->c_docker_timeout_ms = $3;
		}
		| AUDIT DATABASE STRING {
			if (toponce(T_AUDITDB, "audit database") == -1 ||
			    path_ok("audit database", $3, conf->c_audit_db,
			    sizeof(conf->c_audit_db)) == -1)
				YYABORT;
		}
		| CONTROL SOCKET STRING {
			if (toponce(T_CONTROL, "control socket") == -1 ||
			    path_ok("control socket", $3,
			    conf->c_control_socket,
			    sizeof(conf->c_control_socket)) == -1)
				YYABORT;
		} ctlgroup
		| LABELS '{' optnl {
			if (toponce(T_LABELS, "labels") == -1)
				YYABORT;
			conf->c_nlabels = 0;
		} labellist '}' {
			if (conf->c_nlabels == 0) {
				yyerror("labels: empty list");
				YYABORT;
			}
		}
		;

ctlgroup	: /* empty */
		| GROUP STRING {
			if (group_by_name($2, &conf->c_control_gid) == -1)
				YYABORT;
			conf->c_control_has_group = 1;
			strlcpy(conf->c_control_group, $2,
			    sizeof(conf->c_control_group));
		}
		| GROUP NUMBER {
			if (inrange("group", $2, 1, MAX_ID, U_COUNT) == -1)
				YYABORT;
			conf->c_control_has_group = 1;
			conf->c_control_gid = $2;
		}
		;

labellist	: /* empty */
		| labellist STRING optcomma optnl {
			size_t	 i;

			if (name_ok("label", $2) == -1)
				YYABORT;
			for (i = 0; i < conf->c_nlabels; i++)
				if (strcmp(conf->c_labels[i], $2) == 0) {
					yyerror("duplicate label \"%s\"", $2);
					YYABORT;
				}
			if (conf->c_nlabels == CONF_LABELS_MAX) {
				yyerror("labels: more than %d", CONF_LABELS_MAX);
				YYABORT;
			}
			strlcpy(conf->c_labels[conf->c_nlabels++], $2,
			    sizeof(conf->c_labels[0]));
		}
		;

command		: STRING			{ nargbuf = 0;
						  if (argbuf_add($1) == -1)
							YYABORT; }
		| command STRING		{ if (argbuf_add($2) == -1)
							YYABORT; }
		| '{' optnl { nargbuf = 0; } cmdlist '}'
		;

cmdlist		: /* empty */
		| cmdlist STRING optcomma optnl	{ if (argbuf_add($2) == -1)
							YYABORT; }
		;

/* agent { ... } */

agent		: AGENT {
			if (toponce(T_AGENT, "agent block") == -1)
				YYABORT;
			agentwhere = here();
			optset = 0;
		} '{' agentopts '}' {
			/* Only an MCP host spawns a server to relay to. */
			if ((optset & (1ULL << O_RELAY)) &&
			    conf->c_agent.protocol != PROTO_MCP) {
				conf_error(&relaywhere,
				    "agent: relay needs protocol mcp");
				YYABORT;
			}
		}
		;

agentopts	: agentopt1
		| agentopts '\n' agentopt1
		;

agentopt1	: /* empty */
		| agentopt
		;

agentopt	: IMAGE STRING {
			if (once(O_IMAGE, "image") == -1 ||
			    image_ok($2, conf->c_agent.ctr.image,
			    sizeof(conf->c_agent.ctr.image)) == -1)
				YYABORT;
		}
		| COMMAND command {
			struct conf_where	 w = here();

			if (once(O_COMMAND, "command") == -1 ||
			    ctr_cmd_ok(&w, argbuf, nargbuf) == -1 ||
			    argbuf_take(&conf->c_agent.ctr.cmd) == -1)
				YYABORT;
		}
		| USER uidgid {
			if (once(O_USER, "user") == -1)
				YYABORT;
			conf->c_agent.ctr.uid = uspec.uid;
			conf->c_agent.ctr.gid = uspec.gid;
		}
		| MEMORY size {
			if (once(O_MEMORY, "memory") == -1 ||
			    inrange("memory", $2, 6LL << 20, 64LL << 30,
			    U_SIZE) == -1)
				YYABORT;
			conf->c_agent.ctr.memory_bytes = $2;
		}
		| PIDS count {
			if (once(O_PIDS, "pids") == -1 ||
			    inrange("pids", $2, 2, 4096, U_COUNT) == -1)
				YYABORT;
			conf->c_agent.ctr.pids = $2;
		}
		| NOFILE count {
			if (once(O_NOFILE, "nofile") == -1 ||
			    inrange("nofile", $2, 16, 4096, U_COUNT) == -1)
				YYABORT;
			conf->c_agent.nofile = $2;
		}
		| FRAME size {
			if (once(O_FRAME, "frame") == -1 ||
			    inrange("frame", $2, MIN_SIZE_BYTES, AGENT_FRAME_BYTES,
			    U_SIZE) == -1)
				YYABORT;
			conf->c_agent.frame_bytes = $2;
		}
		| STDOUT size {
			if (once(O_STDOUT, "stdout") == -1 ||
			    inrange("stdout", $2, MIN_SIZE_BYTES,
			    AGENT_STDOUT_BYTES, U_SIZE) == -1)
				YYABORT;
			conf->c_agent.stdout_bytes = $2;
		}
		| STDERR size {
			if (once(O_STDERR, "stderr") == -1 ||
			    inrange("stderr", $2, 0, AGENT_STDERR_BYTES,
			    U_SIZE) == -1)
				YYABORT;
			conf->c_agent.stderr_bytes = $2;
		}
		| CALLS count {
			if (once(O_CALLS, "calls") == -1 ||
			    inrange("calls", $2, 1, AGENT_CALLS, U_COUNT) == -1)
				YYABORT;
			conf->c_agent.calls = $2;
		}
		| TIMEOUT time {
			if (once(O_TIMEOUT, "timeout") == -1 ||
			    inrange("timeout", $2, 1000, AGENT_TIMEOUT_MS,
			    U_TIME) == -1)
				YYABORT;
			conf->c_agent.ctr.timeout_ms = $2;
		}
		| PAYLOAD LABEL STRING {
			if (once(O_PAYLOAD, "payload label") == -1 ||
			    addref(REF_LABEL, $3,
			    &conf->c_agent.payload_label) == -1)
				YYABORT;
		}
		| PROTOCOL MCP {
			if (once(O_PROTOCOL, "protocol") == -1)
				YYABORT;
			conf->c_agent.protocol = PROTO_MCP;
		}
		| PROTOCOL STRING {
			if (once(O_PROTOCOL, "protocol") == -1)
				YYABORT;
			if (strcmp($2, "frames") == 0)
				conf->c_agent.protocol = PROTO_FRAMES;
			else if (strcmp($2, "mcp") == 0)
				conf->c_agent.protocol = PROTO_MCP;
			else {
				yyerror("protocol: frames or mcp expected");
				YYABORT;
			}
		}
		| RELAY yesno {
			if (once(O_RELAY, "relay") == -1)
				YYABORT;
			conf->c_agent.relay = $2;
			relaywhere = here();
		}
		;

/* watchdog { ... } */

watchdog	: WATCHDOG {
			if (toponce(T_WATCHDOG, "watchdog block") == -1)
				YYABORT;
			optset = 0;
		} '{' wdopts '}' {
			struct conf_watchdog	*wd = &conf->c_wd;

			/* A margin of one pulse: a timer's jitter is not late. */
			if (wd->ack_ms < 2 * wd->pulse_ms) {
				yyerror("watchdog: ack must be at least twice "
				    "the pulse");
				YYABORT;
			}
			if (wd->lease_ms < 2 * wd->pulse_ms) {
				yyerror("watchdog: lease must be at least twice "
				    "the pulse");
				YYABORT;
			}
		}
		;

wdopts		: wdopt1
		| wdopts '\n' wdopt1
		;

wdopt1		: /* empty */
		| wdopt
		;

wdopt		: PULSE time {
			if (once(O_PULSE, "pulse") == -1 ||
			    inrange("pulse", $2, 50, 1000, U_TIME) == -1)
				YYABORT;
			conf->c_wd.pulse_ms = $2;
		}
		| ACK time {
			if (once(O_ACK, "ack") == -1 ||
			    inrange("ack", $2, 1, 30000, U_TIME) == -1)
				YYABORT;
			conf->c_wd.ack_ms = $2;
		}
		| LEASE time {
			if (once(O_LEASE, "lease") == -1 ||
			    inrange("lease", $2, 1, 30000, U_TIME) == -1)
				YYABORT;
			conf->c_wd.lease_ms = $2;
		}
		| STOP TRIES count {
			if (once(O_TRIES, "stop tries") == -1 ||
			    inrange("stop tries", $3, 1, 10, U_COUNT) == -1)
				YYABORT;
			conf->c_wd.stop_tries = $3;
		}
		| STOP TIMEOUT time {
			if (once(O_STOPTIMEOUT, "stop timeout") == -1 ||
			    inrange("stop timeout", $3, 1000, 60000,
			    U_TIME) == -1)
				YYABORT;
			conf->c_wd.stop_timeout_ms = $3;
		}
		;

/* server "name" { ... } */

server		: SERVER STRING {
			struct conf_server	*s;

			if (name_ok("server", $2) == -1)
				YYABORT;
			TAILQ_FOREACH(s, &conf->c_servers, entry)
				if (strcmp(s->name, $2) == 0) {
					yyerror("duplicate server \"%s\"", $2);
					YYABORT;
				}
			if (nservers++ == CONF_SERVERS_MAX) {
				yyerror("more than %d servers",
				    CONF_SERVERS_MAX);
				YYABORT;
			}
			if ((s = calloc(1, sizeof(*s))) == NULL) {
				yyerror("out of memory");
				YYABORT;
			}
			TAILQ_INSERT_TAIL(&conf->c_servers, s, entry);
			strlcpy(s->name, $2, sizeof(s->name));
			s->where = here();
			s->user.uid = s->user.gid = CONF_NOBODY_ID;
			s->timeout_ms = MCP_TIMEOUT_MS;
			s->response_bytes = MCP_RESPONSE_BYTES;
			s->tools = CONF_SERVER_TOOLS;
			s->pages = MCP_LIST_PAGES;
			cursrv = s;
			optset = 0;
			onlykw = NULL;
		} '{' serveropts '}' {
			if (cursrv->cmd.argc == 0) {
				conf_error(&cursrv->where,
				    "server \"%s\": no command", cursrv->name);
				YYABORT;
			}
			if (server_finish(cursrv) == -1)
				YYABORT;
		}
		;

serveropts	: serveropt1
		| serveropts '\n' serveropt1
		;

serveropt1	: /* empty */
		| serveropt
		;

serveropt	: COMMAND command {
			if (once(O_COMMAND, "command") == -1 ||
			    argbuf_take(&cursrv->cmd) == -1)
				YYABORT;
			cmdwhere = here();
		}
		| USER userspec {
			if (once(O_USER, "user") == -1)
				YYABORT;
			cursrv->user = uspec;
			srvuserwhere = here();
		}
		| IMAGE STRING {
			if (once(O_IMAGE, "image") == -1 ||
			    image_ok($2, cursrv->image,
			    sizeof(cursrv->image)) == -1)
				YYABORT;
		}
		| MEMORY size {
			if (once(O_MEMORY, "memory") == -1 ||
			    inrange("memory", $2, 6LL << 20, 64LL << 30,
			    U_SIZE) == -1)
				YYABORT;
			cursrv->memory_bytes = $2;
			only_of_kind("memory");
		}
		| PIDS count {
			if (once(O_PIDS, "pids") == -1 ||
			    inrange("pids", $2, 2, 4096, U_COUNT) == -1)
				YYABORT;
			cursrv->pids = $2;
			only_of_kind("pids");
		}
		| MOUNT STRING STRING STRING {
			if (server_mount(cursrv, $2, $3, $4) == -1)
				YYABORT;
			only_of_kind("mount");
		}
		| TIMEOUT time {
			if (once(O_TIMEOUT, "timeout") == -1 ||
			    inrange("timeout", $2, 100, 60000, U_TIME) == -1)
				YYABORT;
			cursrv->timeout_ms = $2;
		}
		| RESPONSE size {
			if (once(O_RESPONSE, "response") == -1 ||
			    inrange("response", $2, MIN_SIZE_BYTES, 1024 * 1024,
			    U_SIZE) == -1)
				YYABORT;
			cursrv->response_bytes = $2;
		}
		| TOOLS count {
			if (once(O_TOOLS, "tools") == -1 ||
			    inrange("tools", $2, 1, 256, U_COUNT) == -1)
				YYABORT;
			cursrv->tools = $2;
		}
		| PAGES count {
			if (once(O_PAGES, "pages") == -1 ||
			    inrange("pages", $2, 1, 64, U_COUNT) == -1)
				YYABORT;
			cursrv->pages = $2;
		}
		;

/* tool "name" { ... } */

tool		: TOOL STRING {
			struct conf_tool	*t;

			if (name_ok("tool", $2) == -1)
				YYABORT;
			TAILQ_FOREACH(t, &conf->c_tools, entry)
				if (strcmp(t->name, $2) == 0) {
					yyerror("duplicate tool \"%s\"", $2);
					YYABORT;
				}
			if (ntools++ == CONF_TOOLS_MAX) {
				yyerror("more than %d tools", CONF_TOOLS_MAX);
				YYABORT;
			}
			if ((t = calloc(1, sizeof(*t))) == NULL) {
				yyerror("out of memory");
				YYABORT;
			}
			TAILQ_INSERT_TAIL(&conf->c_tools, t, entry);
			strlcpy(t->name, $2, sizeof(t->name));
			t->where = here();
			t->ceiling = t->label = -1;
			container_defaults(&t->ctr);
			t->ctr.timeout_ms = SANDBOX_TIMEOUT_MS;
			t->output_bytes = SANDBOX_OUTPUT_BYTES;
			t->source_bytes = SANDBOX_SOURCE_BYTES;
			t->input_bytes = SANDBOX_INPUT_BYTES;
			curtool = t;
			optset = 0;
			onlykw = NULL;
		} '{' toolopts '}' {
			struct conf_tool	*t = curtool;

			if (t->kind == 0) {
				conf_error(&t->where, "tool \"%s\": no mcp "
				    "server or sandbox image", t->name);
				YYABORT;
			}
			if (t->kind == TOOL_MCP && onlykw != NULL) {
				conf_error(&onlywhere, "tool \"%s\": %s is "
				    "only for sandbox tools", t->name,
				    onlykw);
				YYABORT;
			}
			if (t->kind == TOOL_SANDBOX && t->ctr.cmd.argc == 0) {
				conf_error(&t->where,
				    "tool \"%s\": no command", t->name);
				YYABORT;
			}
			if ((optset & (1ULL << O_CEILING)) == 0) {
				conf_error(&t->where,
				    "tool \"%s\": no ceiling", t->name);
				YYABORT;
			}
			if ((optset & (1ULL << O_LABEL)) == 0) {
				conf_error(&t->where,
				    "tool \"%s\": no label", t->name);
				YYABORT;
			}
		}
		;

toolopts	: toolopt1
		| toolopts '\n' toolopt1
		;

toolopt1	: /* empty */
		| toolopt
		;

toolopt		: MCP SERVER STRING TOOL STRING {
			if (once(O_KIND, "mcp server or sandbox image") == -1 ||
			    name_ok("tool", $5) == -1 ||
			    addref(REF_SERVER, $3, &curtool->server) == -1)
				YYABORT;
			curtool->kind = TOOL_MCP;
			strlcpy(curtool->remote, $5, sizeof(curtool->remote));
		}
		| SANDBOX IMAGE STRING {
			if (once(O_KIND, "mcp server or sandbox image") == -1 ||
			    image_ok($3, curtool->ctr.image,
			    sizeof(curtool->ctr.image)) == -1)
				YYABORT;
			curtool->kind = TOOL_SANDBOX;
		}
		| CEILING STRING {
			if (once(O_CEILING, "ceiling") == -1 ||
			    addref(REF_LABEL, $2, &curtool->ceiling) == -1)
				YYABORT;
		}
		| LABEL STRING {
			if (once(O_LABEL, "label") == -1 ||
			    addref(REF_LABEL, $2, &curtool->label) == -1)
				YYABORT;
		}
		| sandboxopt
		;

sandboxopt	: COMMAND command {
			struct conf_where	 w = here();

			if (once(O_COMMAND, "command") == -1 ||
			    ctr_cmd_ok(&w, argbuf, nargbuf) == -1 ||
			    argbuf_take(&curtool->ctr.cmd) == -1)
				YYABORT;
			only_of_kind("command");
		}
		| USER uidgid {
			if (once(O_USER, "user") == -1)
				YYABORT;
			curtool->ctr.uid = uspec.uid;
			curtool->ctr.gid = uspec.gid;
			only_of_kind("user");
		}
		| MEMORY size {
			if (once(O_MEMORY, "memory") == -1 ||
			    inrange("memory", $2, 6LL << 20, 64LL << 30,
			    U_SIZE) == -1)
				YYABORT;
			curtool->ctr.memory_bytes = $2;
			only_of_kind("memory");
		}
		| PIDS count {
			if (once(O_PIDS, "pids") == -1 ||
			    inrange("pids", $2, 2, 4096, U_COUNT) == -1)
				YYABORT;
			curtool->ctr.pids = $2;
			only_of_kind("pids");
		}
		| TIMEOUT time {
			if (once(O_TIMEOUT, "timeout") == -1 ||
			    inrange("timeout", $2, 1000, 60000, U_TIME) == -1)
				YYABORT;
			curtool->ctr.timeout_ms = $2;
			only_of_kind("timeout");
		}
		| OUTPUT size {
			if (once(O_OUTPUT, "output") == -1 ||
			    inrange("output", $2, MIN_SIZE_BYTES,
			    SANDBOX_OUTPUT_BYTES, U_SIZE) == -1)
				YYABORT;
			curtool->output_bytes = $2;
			only_of_kind("output");
		}
		| SOURCE size {
			if (once(O_SOURCE, "source") == -1 ||
			    inrange("source", $2, MIN_SIZE_BYTES,
			    SANDBOX_SOURCE_BYTES, U_SIZE) == -1)
				YYABORT;
			curtool->source_bytes = $2;
			only_of_kind("source");
		}
		| INPUT size {
			if (once(O_INPUT, "input") == -1 ||
			    inrange("input", $2, 0, SANDBOX_INPUT_BYTES,
			    U_SIZE) == -1)
				YYABORT;
			curtool->input_bytes = $2;
			only_of_kind("input");
		}
		| INPUT TOOL STRING {
			if (once(O_INPUTTOOL, "input tool") == -1 ||
			    addref(REF_INPUT_TOOL, $3,
			    &curtool->input_tool) == -1)
				YYABORT;
			only_of_kind("input tool");
		}
		;

/*
 * operation "name" tool "tool" [budget N] [description "text"]
 *     [schema "json"], the optional parts in any order, each once
 */

operation	: OPERATION STRING TOOL STRING {
			struct conf_operation	*o;

			if (name_ok("operation", $2) == -1)
				YYABORT;
			TAILQ_FOREACH(o, &conf->c_operations, entry)
				if (strcmp(o->name, $2) == 0) {
					yyerror("duplicate operation \"%s\"",
					    $2);
					YYABORT;
				}
			if (noperations++ == CONF_OPERATIONS_MAX) {
				yyerror("more than %d operations",
				    CONF_OPERATIONS_MAX);
				YYABORT;
			}
			if ((o = calloc(1, sizeof(*o))) == NULL) {
				yyerror("out of memory");
				YYABORT;
			}
			TAILQ_INSERT_TAIL(&conf->c_operations, o, entry);
			strlcpy(o->name, $2, sizeof(o->name));
			o->where = here();
			if (addref(REF_TOOL, $4, &o->tool) == -1)
				YYABORT;
			curop = o;
			optset = 0;
		} opopts
		;

opopts		: /* empty */
		| opopts opopt
		;

opopt		: BUDGET count {
			if (once(O_BUDGET, "budget") == -1 ||
			    inrange("budget", $2, 1, 1000, U_COUNT) == -1)
				YYABORT;
			curop->budget = $2;
		}
		| DESCRIPTION STRING {
			if (once(O_DESCRIPTION, "description") == -1 ||
			    op_description(curop, $2) == -1)
				YYABORT;
		}
		| SCHEMA STRING {
			if (once(O_SCHEMA, "schema") == -1 ||
			    op_schema(curop, $2) == -1)
				YYABORT;
		}
		;

/* (pass | block) [quick] [all | operation ...] [label OP L | arg ...] ... */

rule		: action quick {
			struct conf_rule	*r;

			if (nrules++ == CONF_RULES_MAX) {
				yyerror("more than %d rules", CONF_RULES_MAX);
				YYABORT;
			}
			if ((r = calloc(1, sizeof(*r))) == NULL) {
				yyerror("out of memory");
				YYABORT;
			}
			TAILQ_INIT(&r->preds);
			TAILQ_INSERT_TAIL(&conf->c_rules, r, entry);
			r->where = here();
			r->nr = nrules;
			r->action = $1;
			r->quick = $2;
			currule = r;
		} ruletarget rulepreds
		;

action		: PASS		{ $$ = RULE_PASS; }
		| BLOCK		{ $$ = RULE_BLOCK; }
		;

quick		: /* empty */	{ $$ = 0; }
		| QUICK		{ $$ = 1; }
		;

ruletarget	: /* empty */
		| ALL
		| OPERATION opnames {
			size_t	 i;

			if (nnamebuf == 0) {
				yyerror("operation: empty list");
				YYABORT;
			}
			currule->ops = calloc(nnamebuf,
			    sizeof(*currule->ops));
			if (currule->ops == NULL) {
				yyerror("out of memory");
				YYABORT;
			}
			currule->nops = nnamebuf;
			for (i = 0; i < nnamebuf; i++)
				if (addref(REF_OPERATION, namebuf[i],
				    &currule->ops[i]) == -1)
					YYABORT;
		}
		;

opnames		: STRING {
			nnamebuf = 0;
			if (namebuf_add($1) == -1)
				YYABORT;
		}
		| '{' optnl { nnamebuf = 0; } oplist '}'
		;

oplist		: /* empty */
		| oplist STRING optcomma optnl {
			if (namebuf_add($2) == -1)
				YYABORT;
		}
		;

rulepreds	: /* empty */
		| rulepreds rulepred
		;

rulepred	: LABEL cmpop STRING {
			if (currule->label_cmp != CMP_NONE) {
				yyerror("duplicate label");
				YYABORT;
			}
			currule->label_cmp = $2;
			if (addref(REF_LABEL, $3, &currule->label) == -1)
				YYABORT;
		}
		| argpred
		;

cmpop		: '='		{ $$ = CMP_EQ; }
		| NE		{ $$ = CMP_NE; }
		| '<'		{ $$ = CMP_LT; }
		| LE		{ $$ = CMP_LE; }
		| '>'		{ $$ = CMP_GT; }
		| GE		{ $$ = CMP_GE; }
		;

argpred		: argkey cmpop NUMBER {
			curpred->cmp = $2;
			if (value_add(1, $3, NULL) == -1)
				YYABORT;
		}
		| argkey cmpop STRING {
			if ($2 != CMP_EQ && $2 != CMP_NE) {
				yyerror("arg \"%s\": ordering needs a number",
				    curpred->key);
				YYABORT;
			}
			curpred->cmp = $2;
			if (value_add(0, 0, $3) == -1)
				YYABORT;
		}
		| argkey IN '{' optnl { curpred->cmp = CMP_IN; } valuelist '}' {
			if (curpred->nvalues == 0) {
				yyerror("arg \"%s\": empty list",
				    curpred->key);
				YYABORT;
			}
		}
		| argkey PRESENT	{ curpred->cmp = CMP_PRESENT; }
		| argkey ABSENT		{ curpred->cmp = CMP_ABSENT; }
		;

argkey		: ARG STRING {
			struct conf_pred	*p;

			if (name_ok("arg", $2) == -1)
				YYABORT;
			if ((p = calloc(1, sizeof(*p))) == NULL) {
				yyerror("out of memory");
				YYABORT;
			}
			TAILQ_INSERT_TAIL(&currule->preds, p, entry);
			strlcpy(p->key, $2, sizeof(p->key));
			curpred = p;
		}
		;

valuelist	: /* empty */
		| valuelist NUMBER optcomma optnl {
			if (value_add(1, $2, NULL) == -1)
				YYABORT;
		}
		| valuelist STRING optcomma optnl {
			if (value_add(0, 0, $2) == -1)
				YYABORT;
		}
		;

%%

struct keyword {
	const char	*k_name;
	int		 k_val;
};

/* Sorted for bsearch(3). */
static const struct keyword keywords[] = {
	{ "absent",		ABSENT },
	{ "ack",		ACK },
	{ "agent",		AGENT },
	{ "all",		ALL },
	{ "arg",		ARG },
	{ "audit",		AUDIT },
	{ "auditor",		AUDITOR },
	{ "block",		BLOCK },
	{ "bridge",		BRIDGE },
	{ "budget",		BUDGET },
	{ "calls",		CALLS },
	{ "ceiling",		CEILING },
	{ "chroot",		CHROOT },
	{ "command",		COMMAND },
	{ "control",		CONTROL },
	{ "database",		DATABASE },
	{ "description",	DESCRIPTION },
	{ "docker",		DOCKER },
	{ "dockerd-client",	DOCKERDCLIENT },
	{ "frame",		FRAME },
	{ "gateway",		GATEWAY },
	{ "group",		GROUP },
	{ "image",		IMAGE },
	{ "in",			IN },
	{ "include",		INCLUDE },
	{ "init",		INIT },
	{ "input",		INPUT },
	{ "label",		LABEL },
	{ "labels",		LABELS },
	{ "lease",		LEASE },
	{ "mcp",		MCP },
	{ "memory",		MEMORY },
	{ "mount",		MOUNT },
	{ "nofile",		NOFILE },
	{ "operation",		OPERATION },
	{ "output",		OUTPUT },
	{ "pages",		PAGES },
	{ "pass",		PASS },
	{ "payload",		PAYLOAD },
	{ "pids",		PIDS },
	{ "present",		PRESENT },
	{ "protocol",		PROTOCOL },
	{ "pulse",		PULSE },
	{ "quick",		QUICK },
	{ "relay",		RELAY },
	{ "response",		RESPONSE },
	{ "sandbox",		SANDBOX },
	{ "schema",		SCHEMA },
	{ "server",		SERVER },
	{ "socket",		SOCKET },
	{ "source",		SOURCE },
	{ "stderr",		STDERR },
	{ "stdout",		STDOUT },
	{ "stop",		STOP },
	{ "timeout",		TIMEOUT },
	{ "tool",		TOOL },
	{ "tools",		TOOLS },
	{ "tries",		TRIES },
	{ "user",		USER },
	{ "watchdog",		WATCHDOG }
};

static int
kw_cmp(const void *k, const void *e)
{
	return strcmp(k, ((const struct keyword *)e)->k_name);
}

static int
lookup(const char *s)
{
	const struct keyword	*p;

	p = bsearch(s, keywords, nitems(keywords), sizeof(keywords[0]),
	    kw_cmp);
	return p != NULL ? p->k_val : STRING;
}

int
conf_keyword(const char *s)
{
	return lookup(s) != STRING;
}

static struct conf_where
here(void)
{
	struct conf_where	 w;

	w.file = file->name;
	w.line = file->lineno;
	return w;
}

static void
vreport(const struct conf_where *w, const char *fmt, va_list ap)
{
	/* The first error ends the parse; later ones would be noise. */
	if (errors++ > 0)
		return;
#ifdef CMCP_FUZZ
	(void)w;
	(void)fmt;
	(void)ap;
#else
	fprintf(stderr, "%s:%d: ", w->file, w->line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
#endif
}

static void
yyerror(const char *fmt, ...)
{
	struct conf_where	 w;
	va_list			 ap;

	w = here();
	va_start(ap, fmt);
	vreport(&w, fmt, ap);
	va_end(ap);
}

static void
conf_error(const struct conf_where *w, const char *fmt, ...)
{
	va_list			 ap;

	va_start(ap, fmt);
	vreport(w, fmt, ap);
	va_end(ap);
}

static char *
pool_add(char *s)
{
	char	**np;

	if (npool == poolcap) {
		np = reallocarray(pool, poolcap + 64, sizeof(*pool));
		if (np == NULL) {
			free(s);
			yyerror("out of memory");
			return NULL;
		}
		pool = np;
		poolcap += 64;
	}
	pool[npool++] = s;
	return s;
}

/* Lexer. */

static int
lgetc(void)
{
	int	 c, next;

	if (file->nunget > 0)
		return file->unget[--file->nunget];
	for (;;) {
		c = getc(file->stream);
		if (c != '\\')
			return c;
		/* A backslash before a newline continues the line. */
		next = getc(file->stream);
		if (next != '\n') {
			if (next != EOF)
				ungetc(next, file->stream);
			return c;
		}
		file->lineno++;
	}
}

static int
lungetc(int c)
{
	if (c == EOF)
		return 0;
	if (file->nunget == UNGET_SLOTS) {
		yyerror("macro value too long");
		return -1;
	}
	file->unget[file->nunget++] = c;
	return 0;
}

static int
wordchar(int c)
{
	if (c <= 0 || c > 0x7f)
		return 0;
	return isalnum(c) || strchr("_-.:/@+", c) != NULL;
}

/* Push a macro's text back into the input, between markers. */
static int
expand(void)
{
	char		 name[CONF_NAME_BYTES];
	const char	*val;
	size_t		 len = 0, i;
	int		 c;

	while ((c = lgetc()) != EOF && c < 0x80 &&
	    (isalnum(c) || c == '_')) {
		if (len + 1 >= sizeof(name)) {
			yyerror("macro name too long");
			return -1;
		}
		name[len++] = c;
	}
	if (lungetc(c) == -1)
		return -1;
	name[len] = '\0';
	if (len == 0) {
		yyerror("macro name expected after $");
		return -1;
	}
	if ((val = symget(name)) == NULL) {
		yyerror("macro \"%s\" not defined", name);
		return -1;
	}
	if (lungetc(EXPAND_END) == -1)
		return -1;
	for (i = strlen(val); i > 0; i--)
		if (lungetc((unsigned char)val[i - 1]) == -1)
			return -1;
	return lungetc(EXPAND_START);
}

static int
yylex(void)
{
	char		 buf[TOKEN_BYTES];
	const char	*errstr;
	size_t		 len;
	int		 c, next, digits;

	file->eol_done = file->eol;
	if (file->eol) {
		file->lineno++;
		file->eol = 0;
	}
	if (file->inject_nl) {
		file->inject_nl = 0;
		return '\n';
	}
top:
	while ((c = lgetc()) == ' ' || c == '\t')
		;
	if (c == '#')
		while ((c = lgetc()) != '\n' && c != EOF && c != EXPAND_END)
			;
	yylval.lineno = file->lineno;

	switch (c) {
	case EXPAND_START:
		file->expanding = 1;
		goto top;
	case EXPAND_END:
		file->expanding = 0;
		goto top;
	case EOF:
		if (!file->eof_nl) {
			/* Missing statements are reported on the last line. */
			eofwhere.file = file->name;
			eofwhere.line = file->lineno - file->eol_done;
			if (eofwhere.line < 1)
				eofwhere.line = 1;
			file->eof_nl = 1;
			return '\n';
		}
		if (file == topfile || popfile() == -1)
			return 0;
		goto top;
	case '\n':
		file->eol = 1;
		return '\n';
	case '$':
		if (file->expanding) {
			yyerror("macro used inside a macro value");
			return ERROR;
		}
		if (expand() == -1)
			return ERROR;
		goto top;
	case '"':
		len = 0;
		for (;;) {
			c = lgetc();
			if (c == EOF || c == '\n' || c == EXPAND_START ||
			    c == EXPAND_END) {
				yyerror("unterminated quoted string");
				return ERROR;
			}
			if (c == '"')
				break;
			if (c == '\\') {
				c = lgetc();
				if (c != '"' && c != '\\') {
					yyerror("invalid escape in quoted "
					    "string");
					return ERROR;
				}
			} else if (c < 0x20 || c == 0x7f) {
				yyerror("control character in quoted string");
				return ERROR;
			}
			if (len + 1 >= sizeof(buf)) {
				yyerror("string too long");
				return ERROR;
			}
			buf[len++] = c;
		}
		buf[len] = '\0';
		if ((yylval.v.string = strdup(buf)) == NULL ||
		    pool_add(yylval.v.string) == NULL) {
			if (yylval.v.string == NULL)
				yyerror("out of memory");
			return ERROR;
		}
		return STRING;
	case '{':
	case '}':
	case ',':
	case '=':
		return c;
	case '<':
	case '>':
	case '!':
		next = lgetc();
		if (next == '=')
			return c == '<' ? LE : c == '>' ? GE : NE;
		if (lungetc(next) == -1)
			return ERROR;
		if (c == '!') {
			yyerror("syntax error");
			return ERROR;
		}
		return c;
	}

	if (!wordchar(c)) {
		yyerror("invalid character");
		return ERROR;
	}

	/* A bare word: a keyword, a string, a number or a number+unit. */
	len = 0;
	digits = 1;
	do {
		if (len + 1 >= sizeof(buf)) {
			yyerror("string too long");
			return ERROR;
		}
		if (!isdigit(c) && !(c == '-' && len == 0))
			digits = 0;
		buf[len++] = c;
	} while (wordchar(c = lgetc()));
	if (lungetc(c) == -1)
		return ERROR;
	buf[len] = '\0';

	if (digits && (buf[0] != '-' || len > 1)) {
		yylval.v.number = strtonum(buf, LLONG_MIN + 1, LLONG_MAX,
		    &errstr);
		if (errstr != NULL) {
			yyerror("number out of range");
			return ERROR;
		}
		return NUMBER;
	}
	if ((yylval.v.string = strdup(buf)) == NULL) {
		yyerror("out of memory");
		return ERROR;
	}
	if (pool_add(yylval.v.string) == NULL)
		return ERROR;
	if (isdigit((unsigned char)buf[0]) ||
	    (buf[0] == '-' && isdigit((unsigned char)buf[1])))
		return NUMSTR;
	return lookup(buf);
}

/* Files. */

/*
 * No memory to read a file: an include's error is the parse's; the top
 * file's is printed as parse_config's own are, as there is no file yet.
 */
static void
pushfile_nomem(const char *written, int include)
{
	if (include)
		yyerror("out of memory");
#ifndef CMCP_FUZZ
	else
		fprintf(stderr, "%s: %s\n", written, strerror(ENOMEM));
#endif
}

static struct file *
pushfile(const char *written, int include)
{
	struct file	*nf, *f;
	struct conf_file *cf;
	struct stat	 st;
	char		 path[PATH_MAX], *slash;
	size_t		 len;
	int		 fd, n;

	if (include && depth >= CONF_INCLUDE_DEPTH) {
		yyerror("include nested too deeply");
		return NULL;
	}
	if (include && written[0] != '/') {
		/* Relative to the directory of the including file. */
		strlcpy(path, file->path, sizeof(path));
		if ((slash = strrchr(path, '/')) != NULL)
			slash[1] = '\0';
		else
			path[0] = '\0';
		if (strlcat(path, written, sizeof(path)) >= sizeof(path)) {
			yyerror("include: path too long");
			return NULL;
		}
	} else if (strlcpy(path, written, sizeof(path)) >= sizeof(path)) {
		if (include)
			yyerror("include: path too long");
		else
			fprintf(stderr, "%s: path too long\n", written);
		return NULL;
	}

	len = strlen(written);
	if ((cf = malloc(sizeof(*cf) + len + 1)) == NULL) {
		pushfile_nomem(written, include);
		return NULL;
	}
	memcpy(cf->name, written, len + 1);
	TAILQ_INSERT_TAIL(&conf->c_files, cf, entry);

	/* Never block on a fifo; an include must be a regular file. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (include)
			yyerror("include: cannot open file");
#ifndef CMCP_FUZZ
		else
			fprintf(stderr, "%s: %s\n", written, strerror(errno));
#endif
		return NULL;
	}
	if (fstat(fd, &st) == -1 || S_ISDIR(st.st_mode) ||
	    (include && !S_ISREG(st.st_mode))) {
		close(fd);
		if (include)
			yyerror("include: not a regular file");
#ifndef CMCP_FUZZ
		else
			fprintf(stderr, "%s: not a regular file\n", written);
#endif
		return NULL;
	}
	TAILQ_FOREACH(f, &files, entry)
		if (f->dev == st.st_dev && f->ino == st.st_ino) {
			close(fd);
			yyerror("include loop");
			return NULL;
		}
	if ((n = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, n & ~O_NONBLOCK) == -1 ||
	    (nf = calloc(1, sizeof(*nf))) == NULL) {
		close(fd);
		pushfile_nomem(written, include);
		return NULL;
	}
	if ((nf->stream = fdopen(fd, "r")) == NULL) {
		close(fd);
		free(nf);
		pushfile_nomem(written, include);
		return NULL;
	}
	nf->name = cf->name;
	strlcpy(nf->path, path, sizeof(nf->path));
	nf->dev = st.st_dev;
	nf->ino = st.st_ino;
	nf->lineno = 1;
	nf->inject_nl = include;
	TAILQ_INSERT_TAIL(&files, nf, entry);
	if (include)
		depth++;
	file = nf;
	return nf;
}

static int
popfile(void)
{
	struct file	*prev;

	prev = TAILQ_PREV(file, files, entry);
	TAILQ_REMOVE(&files, file, entry);
	fclose(file->stream);
	free(file);
	file = prev;
	if (file == NULL)
		return -1;
	depth--;
	return 0;
}

/* Macros. */

static int
symset(const char *name, const char *value)
{
	struct sym	*s;
	char		*v;

	if ((v = strdup(value)) == NULL) {
		yyerror("out of memory");
		return -1;
	}
	TAILQ_FOREACH(s, &symhead, entry)
		if (strcmp(s->name, name) == 0) {
			free(s->value);
			s->value = v;
			return 0;
		}
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->name = strdup(name)) == NULL) {
		free(s);
		free(v);
		yyerror("out of memory");
		return -1;
	}
	s->value = v;
	TAILQ_INSERT_TAIL(&symhead, s, entry);
	return 0;
}

static const char *
symget(const char *name)
{
	struct sym	*s;

	TAILQ_FOREACH(s, &symhead, entry)
		if (strcmp(s->name, name) == 0)
			return s->value;
	return NULL;
}

/* Helpers of the grammar. */

static int
addref(enum ref_kind kind, const char *name, void *target)
{
	struct ref	*r;

	if (name_ok(kind == REF_LABEL ? "label" : "name", name) == -1)
		return -1;
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		yyerror("out of memory");
		return -1;
	}
	r->kind = kind;
	strlcpy(r->name, name, sizeof(r->name));
	r->where = here();
	r->target = target;
	TAILQ_INSERT_TAIL(&refs, r, entry);
	return 0;
}

static int
once(enum opt o, const char *kw)
{
	if (optset & (1ULL << o)) {
		yyerror("duplicate %s", kw);
		return -1;
	}
	optset |= 1ULL << o;
	return 0;
}

static int
toponce(enum top t, const char *kw)
{
	if (topset & (1U << t)) {
		yyerror("duplicate %s", kw);
		return -1;
	}
	topset |= 1U << t;
	return 0;
}

static void
fmt_value(char *buf, size_t len, long long v, enum unit u)
{
	switch (u) {
	case U_SIZE:
		conf_fmt_size(buf, len, v);
		break;
	case U_TIME:
		conf_fmt_time(buf, len, v);
		break;
	default:
		snprintf(buf, len, "%lld", v);
		break;
	}
}

static int
inrange(const char *kw, long long v, long long min, long long max,
    enum unit u)
{
	char	 lo[32], hi[32];

	if (v >= min && v <= max)
		return 0;
	fmt_value(lo, sizeof(lo), min, u);
	fmt_value(hi, sizeof(hi), max, u);
	yyerror("%s out of range (%s..%s)", kw, lo, hi);
	return -1;
}

/* Digits and an optional unit; the value must fit 2^62. */
static int
number_unit(const char *s, long long *v, const char **unit)
{
	long long	 n = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		if (n > ((1LL << 62) - 9) / 10)
			return -1;
		n = n * 10 + (*s - '0');
	}
	*v = n;
	*unit = s;
	return 0;
}

static int
parse_size(const char *s, long long *out)
{
	const char	*unit;
	long long	 n, mult;

	if (number_unit(s, &n, &unit) == -1)
		goto bad;
	if (strcmp(unit, "") == 0)
		mult = 1;
	else if (strcmp(unit, "K") == 0)
		mult = 1LL << 10;
	else if (strcmp(unit, "M") == 0)
		mult = 1LL << 20;
	else if (strcmp(unit, "G") == 0)
		mult = 1LL << 30;
	else
		goto bad;
	if (n > (1LL << 62) / mult)
		goto bad;
	*out = n * mult;
	return 0;
 bad:
	yyerror("invalid size (N, NK, NM or NG)");
	return -1;
}

static int
parse_time(const char *s, long long *out)
{
	const char	*unit;
	long long	 n, mult;

	if (number_unit(s, &n, &unit) == -1)
		goto bad;
	if (strcmp(unit, "ms") == 0)
		mult = 1;
	else if (strcmp(unit, "s") == 0)
		mult = 1000;
	else if (strcmp(unit, "m") == 0)
		mult = 60 * 1000;
	else
		goto bad;
	if (n > (1LL << 62) / mult)
		goto bad;
	*out = n * mult;
	return 0;
 bad:
	yyerror("invalid time (Nms, Ns or Nm)");
	return -1;
}

/* "uid:gid", both decimal, neither 0. */
static int
parse_ids(const char *s, uid_t *uid, gid_t *gid)
{
	char		 buf[32], *colon;
	const char	*errstr;
	long long	 u, g;

	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf) ||
	    (colon = strchr(buf, ':')) == NULL)
		goto bad;
	*colon++ = '\0';
	if (!isdigit((unsigned char)buf[0]) ||
	    !isdigit((unsigned char)colon[0]))
		goto bad;
	u = strtonum(buf, 0, MAX_ID, &errstr);
	if (errstr != NULL)
		goto bad;
	g = strtonum(colon, 0, MAX_ID, &errstr);
	if (errstr != NULL)
		goto bad;
	if (u == 0) {
		yyerror("user: uid 0 not allowed");
		return -1;
	}
	if (g == 0) {
		yyerror("user: gid 0 not allowed");
		return -1;
	}
	*uid = u;
	*gid = g;
	return 0;
 bad:
	yyerror("user: invalid uid:gid");
	return -1;
}

/* A name: 1..63 printable ASCII characters, no quote or backslash. */
static int
name_ok(const char *kw, const char *s)
{
	const char	*p;

	if (*s == '\0') {
		yyerror("%s: empty name", kw);
		return -1;
	}
	if (strlen(s) >= CONF_NAME_BYTES) {
		yyerror("%s: name too long", kw);
		return -1;
	}
	for (p = s; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\') {
			yyerror("%s: invalid character in name", kw);
			return -1;
		}
	return 0;
}

static int
path_ok(const char *kw, const char *s, char *dst, size_t len)
{
	if (s[0] != '/') {
		yyerror("%s: path must be absolute", kw);
		return -1;
	}
	if (strlcpy(dst, s, len) >= len) {
		yyerror("%s: path too long", kw);
		return -1;
	}
	return 0;
}

static int
image_ok(const char *s, char *dst, size_t len)
{
	size_t	 i;

	if (strncmp(s, "sha256:", 7) != 0 || strlen(s) != 7 + 64)
		goto bad;
	for (i = 7; s[i] != '\0'; i++)
		if (!isdigit((unsigned char)s[i]) &&
		    (s[i] < 'a' || s[i] > 'f'))
			goto bad;
	strlcpy(dst, s, len);
	return 0;
 bad:
	yyerror("image: not a full sha256 image id");
	return -1;
}

static int
user_by_name(const char *name, struct conf_user *u)
{
	struct passwd	*pw;

	if (name_ok("user", name) == -1)
		return -1;
	if ((pw = getpwnam(name)) == NULL) {
		yyerror("unknown user \"%s\"", name);
		return -1;
	}
	if (pw->pw_uid == 0) {
		yyerror("user: uid 0 not allowed");
		return -1;
	}
	if (pw->pw_gid == 0) {
		yyerror("user: gid 0 not allowed");
		return -1;
	}
	strlcpy(u->name, name, sizeof(u->name));
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

static int
group_by_name(const char *name, gid_t *gid)
{
	struct group	*gr;

	if (name_ok("group", name) == -1)
		return -1;
	if ((gr = getgrnam(name)) == NULL) {
		yyerror("unknown group \"%s\"", name);
		return -1;
	}
	if (gr->gr_gid == 0) {
		yyerror("group: gid 0 not allowed");
		return -1;
	}
	*gid = gr->gr_gid;
	return 0;
}

static int
argbuf_add(const char *s)
{
	if (nargbuf == CONF_ARGS_MAX) {
		yyerror("command: more than %d arguments", CONF_ARGS_MAX);
		return -1;
	}
	if (strlen(s) >= CONF_STRING_BYTES) {
		yyerror("command: argument too long");
		return -1;
	}
	argbuf[nargbuf++] = (char *)s;
	return 0;
}

/*
 * A container's command travels to dockerd-client in fixed fields: at
 * most SESSION_ARGV_MAX strings shorter than SESSION_ARG_BYTES.
 */
static int
ctr_cmd_ok(const struct conf_where *w, char *const *argv, size_t argc)
{
	size_t	 i;

	if (argc > SESSION_ARGV_MAX) {
		conf_error(w, "command: more than %d arguments in a container",
		    SESSION_ARGV_MAX);
		return -1;
	}
	for (i = 0; i < argc; i++)
		if (strlen(argv[i]) >= SESSION_ARG_BYTES) {
			conf_error(w, "command: argument longer than %d bytes "
			    "in a container", SESSION_ARG_BYTES - 1);
			return -1;
		}
	return 0;
}

/* Move the collected arguments into a command line. */
static int
argbuf_take(struct conf_argv *av)
{
	size_t	 i;

	if (nargbuf == 0) {
		yyerror("command: no arguments");
		return -1;
	}
	if (argbuf[0][0] != '/') {
		yyerror("command: first argument must be an absolute path");
		return -1;
	}
	for (i = 0; i < nargbuf; i++) {
		if ((av->argv[i] = strdup(argbuf[i])) == NULL) {
			yyerror("out of memory");
			return -1;
		}
		av->argc = i + 1;
	}
	nargbuf = 0;
	return 0;
}

static int
namebuf_add(const char *s)
{
	if (nnamebuf == CONF_LIST_MAX) {
		yyerror("operation: more than %d names", CONF_LIST_MAX);
		return -1;
	}
	namebuf[nnamebuf++] = (char *)s;
	return 0;
}

static int
value_add(int is_number, long long n, const char *s)
{
	struct conf_value	*nv, *v;

	if (curpred->nvalues == CONF_LIST_MAX) {
		yyerror("arg \"%s\": more than %d values", curpred->key,
		    CONF_LIST_MAX);
		return -1;
	}
	if (!is_number && strlen(s) >= CONF_STRING_BYTES) {
		yyerror("arg \"%s\": value too long", curpred->key);
		return -1;
	}
	nv = reallocarray(curpred->values, curpred->nvalues + 1,
	    sizeof(*nv));
	if (nv == NULL) {
		yyerror("out of memory");
		return -1;
	}
	curpred->values = nv;
	v = &nv[curpred->nvalues];
	memset(v, 0, sizeof(*v));
	v->is_number = is_number;
	v->number = n;
	if (!is_number && (v->string = strdup(s)) == NULL) {
		yyerror("out of memory");
		return -1;
	}
	curpred->nvalues++;
	return 0;
}

/* Well-formed UTF-8: no overlong form, no surrogate, nothing past U+10FFFF. */
static int
utf8_ok(const unsigned char *s, size_t len)
{
	uint32_t	 cp, min;
	size_t		 i = 0, n, k;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0) {
			n = 1;
			cp = s[i] & 0x1f;
			min = 0x80;
		} else if ((s[i] & 0xf0) == 0xe0) {
			n = 2;
			cp = s[i] & 0x0f;
			min = 0x800;
		} else if ((s[i] & 0xf8) == 0xf0) {
			n = 3;
			cp = s[i] & 0x07;
			min = 0x10000;
		} else
			return 0;
		if (len - i - 1 < n)
			return 0;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

/* What an MCP agent reads of the operation; the lexer let no control in. */
static int
op_description(struct conf_operation *o, const char *s)
{
	size_t	 len = strlen(s);

	if (len == 0) {
		yyerror("operation: empty description");
		return -1;
	}
	if (len >= CONF_DESC_BYTES) {
		yyerror("operation: description longer than %d bytes",
		    CONF_DESC_BYTES - 1);
		return -1;
	}
	if (!utf8_ok((const unsigned char *)s, len)) {
		yyerror("operation: description is not valid UTF-8");
		return -1;
	}
	if ((o->description = strdup(s)) == NULL) {
		yyerror("out of memory");
		return -1;
	}
	return 0;
}

/*
 * The input schema an MCP agent is shown: one JSON object, read by the
 * suite's strict reader and kept in canonical form.  A refusal names the
 * reader's fixed reason, never the text.  U+007F, which canonical JSON
 * writes raw, is refused: the printed configuration could not carry it.
 */
static int
op_schema(struct conf_operation *o, const char *s)
{
	static char		 canon[CONF_SCHEMA_BYTES];
	struct json_limits	 lim;
	enum json_error		 e;
	size_t			 len;

	lim.max_bytes = TOKEN_BYTES;
	lim.max_depth = CONF_SCHEMA_DEPTH;
	e = json_canon(s, strlen(s), &lim, canon, sizeof(canon), &len);
	if (e == JSON_ESPACE) {
		yyerror("operation: schema longer than %d bytes in canonical "
		    "form", CONF_SCHEMA_BYTES - 1);
		return -1;
	}
	if (e != JSON_OK) {
		yyerror("operation: schema: %s", json_strerror(e));
		return -1;
	}
	if (json_type(canon, len, 0) != JSON_OBJECT) {
		yyerror("operation: schema is not a JSON object");
		return -1;
	}
	if (memchr(canon, 0x7f, len) != NULL) {
		yyerror("operation: schema: U+007F in a string");
		return -1;
	}
	if ((o->schema = malloc(len + 1)) == NULL) {
		yyerror("out of memory");
		return -1;
	}
	memcpy(o->schema, canon, len + 1);
	o->schemalen = len;
	return 0;
}

static void
container_defaults(struct conf_container *c)
{
	c->uid = c->gid = CONF_NOBODY_ID;
	c->memory_bytes = CONF_MEMORY_BYTES;
	c->pids = CONF_PIDS;
}

/*
 * Remember the first option that only one kind of block may have: a
 * sandbox tool, or a server with an image.  The kind is known at the end.
 */
static void
only_of_kind(const char *kw)
{
	if (onlykw != NULL)
		return;
	onlykw = kw;
	onlywhere = here();
}

/*
 * Why an absolute path other than "/" has more than one spelling, or
 * NULL: a "." or ".." component, or an empty one (a doubled or trailing
 * slash).  A mount is written as the engine reports it, and its host
 * directory as the kernel resolves it.
 */
static const char *
path_canonical(const char *p)
{
	const char	*c, *e;
	size_t		 n;

	for (c = p + 1;; c = e + 1) {
		if ((e = strchr(c, '/')) == NULL)
			e = c + strlen(c);
		n = e - c;
		if (n == 0)
			return "has an empty component";
		if (c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.')))
			return "has a . or .. component";
		if (*e == '\0')
			return NULL;
	}
}

/* Whether path is dir or lies below it; dir is not "/". */
static int
path_within(const char *path, const char *dir)
{
	size_t	 n = strlen(dir);

	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/*
 * A mount's host directory: a real directory, named by its one path.  A
 * symbolic link anywhere in it would let whoever controls the link choose
 * what the container sees; realpath(3) of a path without "." or ".."
 * differs from it only where a component is a link.  The Docker socket
 * is checked at the end of the file (conf_check_mounts()).
 */
static int
mount_host_ok(const char *host)
{
	struct stat	 st;
	char		 real[PATH_MAX];
	const char	*why;

	if (host[0] != '/') {
		yyerror("mount: host directory must be absolute");
		return -1;
	}
	if (strcmp(host, "/") == 0) {
		yyerror("mount: host directory must not be /");
		return -1;
	}
	if (strlen(host) >= SESSION_PATH_BYTES) {
		yyerror("mount: host directory longer than %d bytes",
		    SESSION_PATH_BYTES - 1);
		return -1;
	}
	if ((why = path_canonical(host)) != NULL) {
		yyerror("mount: host directory %s", why);
		return -1;
	}
	if (lstat(host, &st) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			yyerror("mount: host directory does not exist");
		else
			yyerror("mount: host directory cannot be examined");
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		yyerror("mount: host directory is a symbolic link");
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		yyerror("mount: host directory is not a directory");
		return -1;
	}
	if (realpath(host, real) == NULL) {
		yyerror("mount: host directory cannot be resolved");
		return -1;
	}
	if (strcmp(real, host) != 0) {
		yyerror("mount: host directory has a symbolic link in its "
		    "path");
		return -1;
	}
	if (path_kernel(host)) {
		yyerror("mount: host directory is in /proc, /sys or /dev");
		return -1;
	}
	return 0;
}

/*
 * The kernel's file systems, on either side of a bind: a server given
 * /proc/sys or /dev of the host, or shadowing its own, is no longer in
 * the agent's profile.  dockerd-client's template refuses the same.
 */
static int
path_kernel(const char *path)
{
	return (path_within(path, "/proc") || path_within(path, "/sys") ||
	    path_within(path, "/dev"));
}

/*
 * Where the container sees it: one spelling, clear of the supervisor's
 * bind, and neither the same place as another mount nor above or below
 * it, so that the mounts do not depend on the order the engine makes them.
 */
static int
mount_target_ok(const struct conf_server *s, const char *target)
{
	const char	*why, *other;
	size_t		 i;

	if (target[0] != '/') {
		yyerror("mount: container directory must be absolute");
		return -1;
	}
	if (strcmp(target, "/") == 0) {
		yyerror("mount: container directory must not be /");
		return -1;
	}
	if (strlen(target) >= SESSION_PATH_BYTES) {
		yyerror("mount: container directory longer than %d bytes",
		    SESSION_PATH_BYTES - 1);
		return -1;
	}
	if ((why = path_canonical(target)) != NULL) {
		yyerror("mount: container directory %s", why);
		return -1;
	}
	if (path_kernel(target)) {
		yyerror("mount: container directory is in /proc, /sys or "
		    "/dev");
		return -1;
	}
	if (path_within(target, CMCP_INIT_TARGET)) {
		yyerror("mount: container directory is " CMCP_INIT_TARGET
		    " or below it");
		return -1;
	}
	for (i = 0; i < s->nmounts; i++) {
		other = s->mounts[i].target;
		if (strcmp(target, other) == 0) {
			yyerror("mount: duplicate container directory");
			return -1;
		}
		if (path_within(target, other) || path_within(other, target)) {
			yyerror("mount: container directory nested with "
			    "another mount's");
			return -1;
		}
	}
	return 0;
}

static int
server_mount(struct conf_server *s, const char *host, const char *target,
    const char *mode)
{
	struct conf_mount	*m;
	int			 rw;

	if (s->nmounts == CONF_MOUNTS_MAX) {
		yyerror("server \"%s\": more than %d mounts", s->name,
		    CONF_MOUNTS_MAX);
		return -1;
	}
	if (mount_host_ok(host) == -1 || mount_target_ok(s, target) == -1)
		return -1;
	if (strcmp(mode, "ro") == 0)
		rw = 0;
	else if (strcmp(mode, "rw") == 0)
		rw = 1;
	else {
		yyerror("mount: ro or rw expected");
		return -1;
	}
	mountwhere[nservers - 1][s->nmounts] = here();
	m = &s->mounts[s->nmounts++];
	strlcpy(m->host, host, sizeof(m->host));
	strlcpy(m->target, target, sizeof(m->target));
	m->rw = rw;
	return 0;
}

/*
 * The end of a server block.  Without an image the server runs on the
 * host, and the container's options mean nothing.  With one, the engine
 * runs the container as the user: a name would be looked up in the
 * image, not here, so only numbers are taken.
 */
static int
server_finish(struct conf_server *s)
{
	if (s->image[0] == '\0') {
		if (onlykw != NULL) {
			conf_error(&onlywhere, "server \"%s\": %s needs image",
			    s->name, onlykw);
			return -1;
		}
		return 0;
	}
	if (s->user.name[0] != '\0') {
		conf_error(&srvuserwhere, "server \"%s\": user must be "
		    "uid:gid with an image", s->name);
		return -1;
	}
	if (ctr_cmd_ok(&cmdwhere, s->cmd.argv, s->cmd.argc) == -1)
		return -1;
	if ((optset & (1ULL << O_MEMORY)) == 0)
		s->memory_bytes = CONF_MEMORY_BYTES;
	if ((optset & (1ULL << O_PIDS)) == 0)
		s->pids = CONF_PIDS;
	return 0;
}

/* The directory of an absolute path, its ".", ".." and "//" read as text. */
static void
path_dir_text(const char *p, char *dir, size_t len)
{
	const char	*c, *e;
	char		*slash;
	size_t		 n, at;

	dir[0] = '\0';
	for (c = p; *c != '\0'; c = e) {
		while (*c == '/')
			c++;
		if ((e = strchr(c, '/')) == NULL)
			e = c + strlen(c);
		n = e - c;
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if ((slash = strrchr(dir, '/')) != NULL)
				*slash = '\0';
			continue;
		}
		/* Never longer than p, which fits. */
		if ((at = strlen(dir)) + 1 + n >= len)
			break;
		dir[at] = '/';
		memcpy(dir + at + 1, c, n);
		dir[at + 1 + n] = '\0';
	}
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if (dir[0] == '\0')
		strlcpy(dir, "/", len);
}

/* Strip the last component of an absolute path; "/" stays. */
static void
path_dir(char *p)
{
	char	*slash;

	if ((slash = strrchr(p, '/')) == NULL)
		return;
	if (slash == p)
		slash[1] = '\0';
	else
		*slash = '\0';
}

/*
 * Where the Docker socket is: its directory as written, read as text,
 * and as the kernel resolves that directory and the socket itself now
 * (either may be a symbolic link).  Empty where nothing resolves.
 */
static void
socket_dirs(const char *sock, char dirs[3][PATH_MAX])
{
	char	 dir[PATH_MAX];

	path_dir_text(sock, dirs[0], PATH_MAX);
	strlcpy(dir, sock, sizeof(dir));
	path_dir(dir);
	if (realpath(dir, dirs[1]) == NULL)
		dirs[1][0] = '\0';
	if (realpath(sock, dirs[2]) == NULL)
		dirs[2][0] = '\0';
	else
		path_dir(dirs[2]);
}

/*
 * No mount hands a server the Docker socket: its host directory is
 * neither the socket's directory nor one above it.  After the whole
 * file, so that a docker socket statement anywhere in it counts.
 */
static int
conf_check_mounts(void)
{
	static char		 dirs[3][PATH_MAX];
	struct conf_server	*s;
	const char		*host;
	size_t			 i, j, k = 0;

	socket_dirs(conf->c_docker_socket, dirs);
	TAILQ_FOREACH(s, &conf->c_servers, entry) {
		for (i = 0; i < s->nmounts; i++) {
			host = s->mounts[i].host;
			for (j = 0; j < nitems(dirs); j++) {
				if (dirs[j][0] == '\0' ||
				    !path_within(dirs[j], host))
					continue;
				conf_error(&mountwhere[k][i], "server \"%s\": "
				    "mount: host directory %s", s->name,
				    strcmp(dirs[j], host) == 0 ?
				    "is the docker socket's directory" :
				    "contains the docker socket");
				return -1;
			}
		}
		k++;
	}
	return 0;
}

static int
label_index(const char *name)
{
	size_t	 i;

	for (i = 0; i < conf->c_nlabels; i++)
		if (strcmp(conf->c_labels[i], name) == 0)
			return i;
	return -1;
}

/* After the parse: defaults, references, and checks across statements. */
static int
conf_finish(void)
{
	static const char *const deflabels[] = {
		"public", "internal", "confidential"
	};
	struct conf_agent	*a = &conf->c_agent;
	size_t			 i;

	if (conf->c_nlabels == 0) {
		for (i = 0; i < nitems(deflabels); i++)
			strlcpy(conf->c_labels[i], deflabels[i],
			    sizeof(conf->c_labels[i]));
		conf->c_nlabels = nitems(deflabels);
	}
	if ((topset & (1U << T_AGENT)) == 0) {
		conf_error(&eofwhere, "no agent block");
		return -1;
	}
	if (a->ctr.image[0] == '\0') {
		conf_error(&agentwhere, "agent: no image");
		return -1;
	}
	if (a->ctr.cmd.argc == 0) {
		conf_error(&agentwhere, "agent: no command");
		return -1;
	}
	if (conf_resolve() == -1 || conf_check_mounts() == -1)
		return -1;
	if (a->payload_label == -1)
		a->payload_label = conf->c_nlabels - 1;
	return conf_check_users();
}

static int
conf_resolve(void)
{
	struct ref		*r;
	struct conf_server	*s;
	struct conf_tool	*t;
	struct conf_operation	*o;
	int			 idx;

	TAILQ_FOREACH(r, &refs, entry) {
		switch (r->kind) {
		case REF_LABEL:
			if ((idx = label_index(r->name)) == -1) {
				conf_error(&r->where, "unknown label \"%s\"",
				    r->name);
				return -1;
			}
			*(int *)r->target = idx;
			break;
		case REF_SERVER:
			TAILQ_FOREACH(s, &conf->c_servers, entry)
				if (strcmp(s->name, r->name) == 0)
					break;
			if (s == NULL) {
				conf_error(&r->where, "unknown server \"%s\"",
				    r->name);
				return -1;
			}
			*(struct conf_server **)r->target = s;
			break;
		case REF_TOOL:
		case REF_INPUT_TOOL:
			TAILQ_FOREACH(t, &conf->c_tools, entry)
				if (strcmp(t->name, r->name) == 0)
					break;
			if (t == NULL) {
				conf_error(&r->where, "unknown tool \"%s\"",
				    r->name);
				return -1;
			}
			if (r->kind == REF_INPUT_TOOL && t->kind != TOOL_MCP) {
				conf_error(&r->where, "input tool \"%s\" is "
				    "not an mcp tool", r->name);
				return -1;
			}
			*(struct conf_tool **)r->target = t;
			break;
		case REF_OPERATION:
			TAILQ_FOREACH(o, &conf->c_operations, entry)
				if (strcmp(o->name, r->name) == 0)
					break;
			if (o == NULL) {
				conf_error(&r->where,
				    "unknown operation \"%s\"", r->name);
				return -1;
			}
			*(struct conf_operation **)r->target = o;
			break;
		}
	}
	return 0;
}

static int
conf_check_users(void)
{
	struct conf_user	*u;
	struct passwd		*pw;
	struct group		*gr;
	int			 p, q;

	for (p = PROC_BRIDGE; p < PROC_MAX; p++) {
		if (userset[p])
			continue;
		/* Defaults are looked up only when they are used. */
		u = &conf->c_users[p];
		userwhere[p] = eofwhere;
		if ((pw = getpwnam(defusers[p])) == NULL) {
			conf_error(&eofwhere, "user %s: default user \"%s\" "
			    "not found", proc_names[p], defusers[p]);
			return -1;
		}
		if (pw->pw_uid == 0 || pw->pw_gid == 0) {
			conf_error(&eofwhere, "user %s: default user \"%s\" "
			    "has id 0", proc_names[p], defusers[p]);
			return -1;
		}
		strlcpy(u->name, defusers[p], sizeof(u->name));
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
		if (p != PROC_DOCKER)
			continue;
		if ((gr = getgrnam("docker")) == NULL || gr->gr_gid == 0) {
			conf_error(&eofwhere, "user %s: default group "
			    "\"docker\" not found", proc_names[p]);
			return -1;
		}
		u->has_group = 1;
		u->sgid = gr->gr_gid;
		strlcpy(u->group, "docker", sizeof(u->group));
	}
	for (q = PROC_BRIDGE; q < PROC_MAX; q++) {
		if (q == PROC_AUDITOR ||
		    conf->c_users[q].uid != conf->c_users[PROC_AUDITOR].uid)
			continue;
		conf_error(&userwhere[PROC_AUDITOR], "user auditor: uid must "
		    "differ from the uid of %s", proc_names[q]);
		return -1;
	}
	return 0;
}

static void
conf_free_argv(struct conf_argv *av)
{
	size_t	 i;

	for (i = 0; i < av->argc; i++)
		free(av->argv[i]);
	av->argc = 0;
}

static void
parse_reset(void)
{
	struct sym	*s;
	struct ref	*r;
	size_t		 i;

	while (file != NULL)
		(void)popfile();
	while ((s = TAILQ_FIRST(&symhead)) != NULL) {
		TAILQ_REMOVE(&symhead, s, entry);
		free(s->name);
		free(s->value);
		free(s);
	}
	while ((r = TAILQ_FIRST(&refs)) != NULL) {
		TAILQ_REMOVE(&refs, r, entry);
		free(r);
	}
	for (i = 0; i < npool; i++)
		free(pool[i]);
	free(pool);
	pool = NULL;
	npool = poolcap = 0;
	nargbuf = nnamebuf = 0;
	cursrv = NULL;
	curtool = NULL;
	curop = NULL;
	currule = NULL;
	curpred = NULL;
	topfile = NULL;
	depth = 0;
}

struct cmcp_conf *
parse_config(const char *filename)
{
	struct cmcp_conf	*c;
	int			 rv;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
#ifndef CMCP_FUZZ
		fprintf(stderr, "%s: %s\n", filename, strerror(errno));
#endif
		return NULL;
	}
	TAILQ_INIT(&c->c_servers);
	TAILQ_INIT(&c->c_tools);
	TAILQ_INIT(&c->c_operations);
	TAILQ_INIT(&c->c_rules);
	TAILQ_INIT(&c->c_files);
	if (strlcpy(c->c_file, filename, sizeof(c->c_file)) >=
	    sizeof(c->c_file)) {
#ifndef CMCP_FUZZ
		fprintf(stderr, "%s: path too long\n", filename);
#endif
		free(c);
		return NULL;
	}
	strlcpy(c->c_chroot, CONF_CHROOT, sizeof(c->c_chroot));
	strlcpy(c->c_audit_db, CONF_AUDIT_DB, sizeof(c->c_audit_db));
	strlcpy(c->c_docker_socket, CONF_DOCKER_SOCKET,
	    sizeof(c->c_docker_socket));
	strlcpy(c->c_control_socket, CONF_CONTROL_SOCKET,
	    sizeof(c->c_control_socket));
	c->c_docker_timeout_ms = CONF_DOCKER_TIMEOUT_MS;
	strlcpy(c->c_init, CONF_INIT, sizeof(c->c_init));
	container_defaults(&c->c_agent.ctr);
	c->c_agent.ctr.timeout_ms = AGENT_TIMEOUT_MS;
	c->c_agent.nofile = CONF_NOFILE;
	c->c_agent.frame_bytes = AGENT_FRAME_BYTES;
	c->c_agent.stdout_bytes = AGENT_STDOUT_BYTES;
	c->c_agent.stderr_bytes = AGENT_STDERR_BYTES;
	c->c_agent.calls = AGENT_CALLS;
	c->c_agent.payload_label = -1;
	c->c_wd.pulse_ms = WD_PULSE_MS;
	c->c_wd.ack_ms = WD_ACK_MS;
	c->c_wd.lease_ms = WD_LEASE_MS;
	c->c_wd.stop_tries = WD_STOP_TRIES;
	c->c_wd.stop_timeout_ms = WD_STOP_TIMEOUT_MS;

	conf = c;
	TAILQ_INIT(&files);
	TAILQ_INIT(&symhead);
	TAILQ_INIT(&refs);
	file = NULL;
	errors = 0;
	topset = optset = 0;
	memset(userset, 0, sizeof(userset));
	nservers = ntools = noperations = nrules = 0;
	nargbuf = nnamebuf = 0;
	depth = 0;

	if ((topfile = pushfile(filename, 0)) == NULL) {
		parse_reset();
		free_config(c);
		conf = NULL;
		return NULL;
	}
	rv = yyparse();
	if (rv == 0 && errors == 0)
		(void)conf_finish();
	if (rv != 0 && errors == 0)
		yyerror("syntax error");
	parse_reset();
	conf = NULL;
	if (rv != 0 || errors != 0) {
		free_config(c);
		return NULL;
	}
	return c;
}

void
free_config(struct cmcp_conf *c)
{
	struct conf_server	*s;
	struct conf_tool	*t;
	struct conf_operation	*o;
	struct conf_rule	*r;
	struct conf_pred	*p;
	struct conf_file	*f;
	size_t			 i;

	if (c == NULL)
		return;
	conf_free_argv(&c->c_agent.ctr.cmd);
	while ((s = TAILQ_FIRST(&c->c_servers)) != NULL) {
		TAILQ_REMOVE(&c->c_servers, s, entry);
		conf_free_argv(&s->cmd);
		free(s);
	}
	while ((t = TAILQ_FIRST(&c->c_tools)) != NULL) {
		TAILQ_REMOVE(&c->c_tools, t, entry);
		conf_free_argv(&t->ctr.cmd);
		free(t);
	}
	while ((o = TAILQ_FIRST(&c->c_operations)) != NULL) {
		TAILQ_REMOVE(&c->c_operations, o, entry);
		free(o->description);
		free(o->schema);
		free(o);
	}
	while ((r = TAILQ_FIRST(&c->c_rules)) != NULL) {
		TAILQ_REMOVE(&c->c_rules, r, entry);
		while ((p = TAILQ_FIRST(&r->preds)) != NULL) {
			TAILQ_REMOVE(&r->preds, p, entry);
			for (i = 0; i < p->nvalues; i++)
				free(p->values[i].string);
			free(p->values);
			free(p);
		}
		free(r->ops);
		free(r);
	}
	while ((f = TAILQ_FIRST(&c->c_files)) != NULL) {
		TAILQ_REMOVE(&c->c_files, f, entry);
		free(f);
	}
	free(c);
}
