/*
 * Shared declarations of the cmcp-privsep suite: process identities,
 * the one table of message types, and the limits and defaults with their
 * units in their names.
 */

#ifndef CMCP_H
#define CMCP_H

#include <sys/types.h>

#include <limits.h>
#include <stdint.h>

#ifndef __dead
#define __dead		__attribute__((__noreturn__))
#endif
#ifndef nitems
#define nitems(a)	(sizeof((a)) / sizeof((a)[0]))
#endif

#define CMCP_NAME		"cmcp-privsep"
#define CMCP_VERSION		"1.0"	/* serverInfo of the MCP front door */
#define CMCP_CONF_FILE		"/etc/cmcp-privsep.conf"
#define CMCP_CORE_PATTERN	"/proc/sys/kernel/core_pattern"

enum cmcp_proc {
	PROC_PARENT,
	PROC_BRIDGE,
	PROC_GATEWAY,
	PROC_AUDITOR,
	PROC_WATCHDOG,
	PROC_DOCKER,
	PROC_MAX
};

/*
 * Their names, the one spelling of them: -P of the re-exec, the process
 * titles and log prefixes, and the user lines of the configuration.
 */
static const char *const proc_names[PROC_MAX] = {
	[PROC_PARENT] = "parent",
	[PROC_BRIDGE] = "bridge",
	[PROC_GATEWAY] = "gateway",
	[PROC_AUDITOR] = "auditor",
	[PROC_WATCHDOG] = "watchdog",
	[PROC_DOCKER] = "dockerd-client",
};

/*
 * In a child, the channel to process id N is descriptor CHAN_FD(N): the
 * parent's is 3, the bridge's 4, and so on.  Absent channels are closed.
 */
#define CHAN_FD_BASE		3
#define CHAN_FD(id)		(CHAN_FD_BASE + (id))

/* Message types: every channel declares which of these it accepts. */
enum imsg_type {
	IMSG_NONE,
	IMSG_CTL_INIT,		/* parent -> child: privsep parameters */
	IMSG_CTL_READY,		/* child -> parent: sandboxed, in its loop */
	IMSG_CTL_START,		/* parent -> child: all children ready */
	IMSG_CTL_SHUTDOWN,	/* parent -> child: exit in order */
	IMSG_CTL_LOG,		/* child -> parent: one log line */
	IMSG_CTL_PROBE,		/* parent -> child, test build only */
	IMSG_CTL_STOPPING,	/* parent -> child: orderly shutdown begun */
	IMSG_SESSION_BRIDGE,	/* parent -> bridge: struct session_bridge */
	IMSG_SESSION_DOCKER,	/* parent -> dockerd-client: session_docker */
	IMSG_SESSION_STOP,	/* parent -> dockerd-client: stop it now */
	IMSG_REAP_ASK,		/* dockerd-client -> parent: reap_instances */
	IMSG_REAP_DEAD,		/* parent -> dockerd-client: reap_instances */
	IMSG_DKR_STARTED,	/* dockerd-client -> parent: admitted, running */
	IMSG_DKR_RESULT,	/* dockerd-client -> parent: dkr_result */
	IMSG_BRIDGE_STREAM,	/* dockerd-client -> bridge: fd, bridge_stream */
	IMSG_BRIDGE_ADMIT,	/* dockerd-client -> bridge: verified, running */
	IMSG_BRIDGE_STOP,	/* bridge -> dockerd-client: stop my session */
	IMSG_BRIDGE_RESULT,	/* bridge -> parent: bridge_result */
	IMSG_WD_STOP,		/* watchdog -> dockerd-client: stop now, no
				   data */
	IMSG_WD_PULSE,		/* bridge -> watchdog: one byte, a counter */
	IMSG_WD_ACK,		/* watchdog -> bridge: the same byte */
	IMSG_SESSION_WATCHDOG,	/* parent -> watchdog: session_watchdog */
	IMSG_TEST_STDOUT,	/* parent -> bridge, test build: fd, no data */
	IMSG_GW_CONFIG,		/* parent -> gateway, before its privilege
				   drop: fd of the normalized configuration */
	IMSG_GW_SERVER,		/* parent -> gateway, likewise: fd, struct
				   gw_server_fd, two per server in order */
	IMSG_SESSION_PAYLOAD,	/* parent -> gateway and bridge: the initial
				   payload, canonical JSON */
	IMSG_GW_UPSTREAMS,	/* gateway -> parent: struct gw_upstreams */
	IMSG_GW_END,		/* parent -> gateway: close the upstreams */
	IMSG_GW_RESULT,		/* gateway -> parent: struct gw_result */
	IMSG_GW_REQUEST,	/* bridge -> gateway: struct gw_request and
				   the canonical arguments */
	IMSG_GW_REPLY,		/* gateway -> bridge: struct gw_reply and
				   the result */
	IMSG_AUDIT_RECORD,	/* gateway, dockerd-client, parent -> auditor:
				   struct audit_record, peerid = request no. */
	IMSG_AUDIT_ACK,		/* auditor -> sender: struct audit_ack once the
				   record is durable, same peerid */
	IMSG_GW_SESSION,	/* parent -> gateway: the session id, for its
				   audit records */
	IMSG_GW_POLICY,		/* parent -> gateway: struct gw_policy, from
				   the control socket */
	IMSG_GW_POLICY_ACK,	/* gateway -> parent: struct gw_policy_ack
				   once applied and recorded */
	IMSG_GW_STATUS,		/* parent -> gateway: no data, peerid = the
				   control connection */
	IMSG_GW_STATUS_REPLY,	/* gateway -> parent: struct gw_status */
	IMSG_SESSION_SANDBOX,	/* parent -> dockerd-client: one sandbox
				   tool, struct session_sandbox */
	IMSG_SB_RUN,		/* gateway -> dockerd-client: sandbox_run */
	IMSG_SB_STREAM,		/* dockerd-client -> gateway: fd,
				   struct sandbox_stream */
	IMSG_SB_END,		/* gateway -> dockerd-client: sandbox_end */
	IMSG_SB_DONE,		/* dockerd-client -> gateway: sandbox_done,
				   the container confirmed gone (or not) */
	IMSG_GW_TOOL,		/* gateway -> bridge: struct gw_tool and its
				   description and schema (protocol mcp) */
	IMSG_GW_TOOLS_END,	/* gateway -> bridge: struct gw_tools_end, the
				   list complete */
	IMSG_SESSION_SERVER,	/* parent -> dockerd-client: session_server,
				   one per server with an image */
	IMSG_SRV_STREAM,	/* dockerd-client -> gateway: fd,
				   struct server_stream: the server's
				   container verified, running */
	IMSG_SRV_FAILED,	/* dockerd-client -> gateway: server_failed,
				   no stream will come */
	IMSG_GW_LOST,		/* gateway -> bridge: no data, a server's
				   container stream closed between calls */
	IMSG_TYPE_MAX
};

/* Channel and message limits. */
#define MAX_CHAN_MSG_BYTES	(96 * 1024)	/* a 64 KiB frame and more */
#define MAX_LOG_LINE_BYTES	1024

/* Lifecycle timing. */
#define CHILD_READY_TIMEOUT_MS	5000
#define SHUTDOWN_GRACE_MS	500

/*
 * IMSG_CTL_INIT: what a child needs to drop privileges.  Sent once, before
 * anything else, on the parent channel.  Debug and verbosity travel as -d
 * and -v on the re-exec command line, since a child logs before this.
 */
struct ctl_init {
	uid_t		 ci_uid;
	gid_t		 ci_gid;
	gid_t		 ci_sgid;	/* supplementary group, if ci_has_sgid */
	int		 ci_has_sgid;
	char		 ci_chroot[PATH_MAX];
	char		 ci_file[NAME_MAX + 1];	/* auditor: its database, a
						   name in ci_chroot */
#ifdef CMCP_TEST
	int		 ci_nosandbox;	/* skip the seccomp filter */
	int		 ci_noready;	/* never send IMSG_CTL_READY */
	int		 ci_noauditwait; /* gateway: act before the ack */
#endif
};

/* IMSG_CTL_LOG: one line, NUL-terminated, never payload bytes. */
struct ctl_log {
	int		 cl_pri;
	char		 cl_msg[MAX_LOG_LINE_BYTES];
};

#ifdef CMCP_TEST
/* IMSG_CTL_PROBE: make the sandboxed child try one forbidden thing. */
enum probe_attempt {
	PROBE_OPEN,
	PROBE_SOCKET,
	PROBE_EXECVE,
	PROBE_KILL,
	PROBE_PTRACE,
	PROBE_BADMSG,		/* send a message of no accepted type */
	PROBE_FD,		/* PROBE_FD + peer, "fd-<peer>": a descriptor
				   on the channel to that peer */
	PROBE_MAX = PROBE_FD + PROC_MAX
};

struct ctl_probe {
	int		 cp_attempt;
	pid_t		 cp_sibling;	/* target of kill and ptrace */
};
#endif

/*
 * One session (DESIGN 5).  Its identifiers become container labels, so
 * they use the label alphabet: the session is 32 hex digits, the suite
 * instance "<boot id hex>-<parent pid>-<parent start time>".
 */
#define SESSION_ID_BYTES	(32 + 1)
#define INSTANCE_ID_BYTES	64
#define SESSION_ARGV_MAX	16
#define SESSION_ARG_BYTES	256
#define SESSION_PATH_BYTES	256
#define SESSION_IMAGE_BYTES	(7 + 64 + 1)
#define SESSION_WHY_BYTES	96
#define SESSION_REASON_BYTES	32	/* a fixed code: [a-z0-9_] */
#define SESSION_OP_BYTES	(64 + 1)	/* an operation name */
#define STREAM_HEAD_BYTES	(16 * 1024)	/* attach leftover bytes */
#define STREAM_FRAME_BYTES	(1024 * 1024)	/* one demuxed frame */
/* A frame of the attach stream (Tty false): [stream, 0 0 0, size BE32]. */
#define STREAM_HEADER_BYTES	8
#define STREAM_STDOUT		1
#define STREAM_STDERR		2
#define HOST_DEADLINE_SLACK_MS	1000	/* after the in-container one */
#define DKR_CLEANUP_GRACE_MS	15000	/* parent's wait for the cleanup */
#define REAP_INSTANCES_MAX	32

/*
 * How a session ended; cmcp-privsep(8) lists them with the exit status of
 * run.  Ordered by precedence where two causes meet (parent/session.c).
 */
enum session_outcome {
	OUTCOME_NONE,
	OUTCOME_COMPLETED,		/* the workload exited */
	OUTCOME_TIME_LIMIT,
	OUTCOME_STDOUT_LIMIT,
	OUTCOME_STDERR_LIMIT,
	OUTCOME_STREAM_ERROR,		/* malformed attach stream */
	OUTCOME_ADMISSION_REFUSED,
	OUTCOME_INIT_FAILED,		/* cmcp-init refused or no exec */
	OUTCOME_DOCKER_ERROR,
	OUTCOME_CLEANUP_FAILED,		/* absence not confirmed */
	OUTCOME_CHILD_DIED,
	OUTCOME_SIGNAL,
	OUTCOME_VIOLATION,		/* the agent broke the protocol */
	OUTCOME_CALLS_LIMIT,		/* a request over the agent's calls */
	OUTCOME_UPSTREAM_FAILED,	/* an MCP exchange became unsafe */
	OUTCOME_UPSTREAM_REFUSED,	/* a server failed its start */
	OUTCOME_AUDIT_FAILED,		/* a decision record not acked */
	OUTCOME_WATCHDOG_STOP,		/* the lease ran out (DESIGN 10) */
	OUTCOME_ACK_TIMEOUT,		/* the watchdog stopped acking */
	OUTCOME_MAX
};

/*
 * Test build: the profile fields dockerd-client weakens at create, a
 * bitmask (-X weaken= repeats to combine them).
 */
enum session_weaken {
	WEAKEN_NONE =		0,
	WEAKEN_NETWORK =	0x01,	/* NetworkMode host */
	WEAKEN_ROOTFS =		0x02,	/* ReadonlyRootfs false */
	WEAKEN_LOGS =		0x04,	/* LogConfig json-file */
	WEAKEN_CORE =		0x08,	/* Ulimits core 64M:64M */
	WEAKEN_MOUNT_RW =	0x10,	/* a server's ro binds read-write */
	WEAKEN_SECCOMP_DEFAULT = 0x20,	/* no seccomp entry: the engine's */
	WEAKEN_SECCOMP_UNCONFINED = 0x40, /* seccomp=unconfined */
	WEAKEN_SECCOMP_PLUS =	0x80,	/* ours with io_uring_setup allowed */
	WEAKEN_APPARMOR =	0x100,	/* apparmor=unconfined added */
	WEAKEN_MAX =		0x200
};

/* IMSG_SESSION_DOCKER: everything dockerd-client needs, fixed fields. */
struct session_docker {
	char		 sd_session[SESSION_ID_BYTES];
	char		 sd_instance[INSTANCE_ID_BYTES];
	char		 sd_socket[SESSION_PATH_BYTES];	/* inside its root */
	char		 sd_init[SESSION_PATH_BYTES];	/* on the host */
	char		 sd_image[SESSION_IMAGE_BYTES];
	uint32_t	 sd_argc;
	char		 sd_argv[SESSION_ARGV_MAX][SESSION_ARG_BYTES];
	uid_t		 sd_uid;
	gid_t		 sd_gid;
	int64_t		 sd_memory_bytes;
	int64_t		 sd_pids;
	int64_t		 sd_nofile;
	int64_t		 sd_deadline_ms;
	int64_t		 sd_call_timeout_ms;
	int		 sd_reap_only;	/* cmcp-privsep reap */
	int		 sd_relay;	/* cmcp-init -r: stdio to the relay */
	int		 sd_weaken;	/* enum session_weaken, test build */
	int		 sd_noadmit;	/* test build: refusal logged, ignored */
	uint32_t	 sd_stop_tries;		/* kills before giving up */
	int64_t		 sd_stop_timeout_ms;	/* wait after each */
	int64_t		 sd_start_wait_ms;	/* the parent's go, at the
						   latest: ready, upstreams */
};

/* What dockerd-client accepts of the stop numbers in session_docker. */
#define DKR_STOP_TRIES_MAX	10
#define DKR_STOP_TIMEOUT_MAX_MS	300000
/* Above the parent's longest wait: 16 servers, two 1m handshakes each. */
#define DKR_START_WAIT_MAX_MS	(40 * 60 * 1000)

/* IMSG_SESSION_BRIDGE: the budgets the bridge enforces. */
struct session_bridge {
	char		 sb_session[SESSION_ID_BYTES];
	uint64_t	 sb_stdout_bytes;
	uint64_t	 sb_stderr_bytes;
	int64_t		 sb_deadline_ms;	/* host side, from the stream */
	uint64_t	 sb_frame_bytes;	/* largest request line */
	uint32_t	 sb_calls;		/* requests in the session */
	int64_t		 sb_pulse_ms;		/* to the watchdog */
	int64_t		 sb_ack_ms;		/* its ack's deadline */
	int		 sb_protocol;		/* enum conf_protocol */
#ifdef CMCP_TEST
	int		 sb_noackcheck;		/* a missing ack is ignored */
#endif
};

/* IMSG_REAP_ASK and IMSG_REAP_DEAD: instances seen on our containers. */
struct reap_instances {
	uint32_t	 ri_count;
	char		 ri_instance[REAP_INSTANCES_MAX][INSTANCE_ID_BYTES];
};

/* IMSG_BRIDGE_STREAM, with the attach socket: bytes already read. */
struct bridge_stream {
	uint32_t	 bs_len;
	unsigned char	 bs_head[STREAM_HEAD_BYTES];
};

/* IMSG_SESSION_WATCHDOG: the lease (DESIGN 10). */
struct session_watchdog {
	int64_t		 sw_lease_ms;
#ifdef CMCP_TEST
	int		 sw_nostop;	/* never ask for the stop */
#endif
};

/* IMSG_BRIDGE_STOP: why (an enum session_outcome). */
struct session_stop {
	int		 ss_outcome;
};

/* IMSG_BRIDGE_RESULT: counts only, never a byte of the stream. */
struct bridge_result {
	int		 br_outcome;	/* COMPLETED at end of stream */
	uint64_t	 br_stdout_bytes;
	uint64_t	 br_stderr_bytes;
	char		 br_reason[SESSION_REASON_BYTES];	/* fixed */
};

/* IMSG_DKR_RESULT: the container's end, after cleanup. */
struct dkr_result {
	int		 dr_outcome;	/* NONE: no verdict of its own */
	int		 dr_streamed;	/* the bridge got the stream */
	int		 dr_admitted;	/* verified after start */
	int		 dr_gone;	/* absence confirmed by a 404 */
	int		 dr_oom;	/* State.OOMKilled */
	int64_t		 dr_exit;	/* -1 when unknown */
	uint32_t	 dr_reaped;	/* leftovers of dead instances */
	char		 dr_why[SESSION_WHY_BYTES];	/* fixed text */
};

/*
 * IMSG_GW_CONFIG, with the configuration's memfd: whether a session
 * runs, and how many servers' pipes follow (the servers on the host; a
 * server with an image comes as IMSG_SRV_STREAM from dockerd-client).
 */
struct gw_config {
	uint32_t	 gc_session;
	uint32_t	 gc_pipes;
};

/*
 * IMSG_GW_SERVER: which descriptor of which server (index in the order of
 * the configuration): 0 its standard input, 1 its standard output.
 */
struct gw_server_fd {
	uint32_t	 gs_index;
	uint32_t	 gs_dir;
};

/* IMSG_GW_UPSTREAMS: every server initialized and its catalog checked. */
struct gw_upstreams {
	int		 gu_ok;
	char		 gu_reason[SESSION_REASON_BYTES];	/* fixed */
};

/* IMSG_GW_RESULT: counts only. */
struct gw_result {
	uint64_t	 gr_calls;	/* requests decided */
	uint64_t	 gr_allowed;
	uint64_t	 gr_denied;
	int		 gr_audit_failed;	/* no ack: calls stopped */
};

/* IMSG_GW_REQUEST: followed by gq_arglen bytes, a canonical object. */
struct gw_request {
	char		 gq_operation[SESSION_OP_BYTES];
	uint32_t	 gq_arglen;
};

/* How the gateway answers a request (struct gw_reply). */
enum gw_verdict {
	GW_VERDICT_REPLY,	/* gp_code for the agent, the session goes on */
	GW_VERDICT_VIOLATION,	/* end the session: the agent's fault */
	GW_VERDICT_FAILED	/* end the session: upstream unsafe */
};

/*
 * The agent's replies (DESIGN 6), carried in gw_reply: REPLY_OK is
 * {"ok":true,"result":...}, every other one {"ok":false,"error":"<string>"}
 * (bridge/frame.c writes them).
 */
enum reply_code {
	REPLY_OK,
	REPLY_DENIED,		/* "denied": a policy rule blocked it */
	REPLY_UNKNOWN_OPERATION,/* "unknown_operation" */
	REPLY_BUDGET_EXHAUSTED,	/* "budget_exhausted": calls used up */
	REPLY_CEILING,		/* "ceiling": label above the sink ceiling */
	REPLY_UPSTREAM_ERROR,	/* "upstream_error" */
	REPLY_UPSTREAM_TIMEOUT,	/* "upstream_timeout" */
	REPLY_REVOKED,		/* "revoked": withdrawn through PolicyGate */
	REPLY_INTERNAL,		/* "internal" */
	REPLY_CODE_MAX
};

/*
 * A reply's result and the initial payload go inside a fixed wrapping: a
 * frame bound (its newline not counted) leaves this much less for them.
 */
#define AGENT_REPLY_HEAD	"{\"ok\":true,\"result\":"
#define AGENT_PAYLOAD_HEAD	"{\"payload\":"
#define AGENT_WRAP_TAIL		"}"
#define AGENT_REPLY_WRAP_BYTES	(sizeof(AGENT_REPLY_HEAD AGENT_WRAP_TAIL) - 1)
#define AGENT_PAYLOAD_WRAP_BYTES \
	(sizeof(AGENT_PAYLOAD_HEAD AGENT_WRAP_TAIL) - 1)

/*
 * IMSG_GW_REPLY: followed by gp_resultlen bytes, the tool's result (JSON)
 * when gp_code is REPLY_OK, nothing otherwise.
 */
struct gw_reply {
	int		 gp_verdict;	/* enum gw_verdict */
	int		 gp_code;	/* enum reply_code */
	char		 gp_reason[SESSION_REASON_BYTES];	/* fixed */
	uint32_t	 gp_resultlen;
};

/*
 * IMSG_GW_TOOL (protocol mcp): one tool of the list the agent is shown,
 * followed by gt_desclen bytes of description (plain text; 0: none) and
 * gt_schemalen bytes of input schema (a canonical JSON object), no NUL
 * in either.
 * Tools come in order, gt_index from 0, all of one list with the same
 * gt_serial; IMSG_GW_TOOLS_END closes the list.  The gateway sends one at
 * the upstreams' check and a new one after every PolicyGate revision
 * it applies: the operations not revoked, in configuration order.
 */
#define GW_TOOL_SCHEMA_BYTES	MCP_RESPONSE_BYTES
#define GW_TOOL_LIST_BYTES	(512 * 1024)	/* the tools/list line */
struct gw_tool {
	uint32_t	 gt_serial;
	uint32_t	 gt_index;
	char		 gt_name[SESSION_OP_BYTES];
	uint32_t	 gt_desclen;
	uint32_t	 gt_schemalen;
};

struct gw_tools_end {
	uint32_t	 ge_serial;
	uint32_t	 ge_count;	/* IMSG_GW_TOOL messages before it */
};

/*
 * IMSG_GW_POLICY: a PolicyGate revision, the full set of revoked
 * operations by name (policy.h, gw_gate_update()).  At most
 * GW_POLICY_OPS_MAX names, which is not below CONF_OPERATIONS_MAX.
 */
#define GW_POLICY_OPS_MAX	256
struct gw_policy {
	uint64_t	 gl_revision;
	uint32_t	 gl_count;
	char		 gl_names[GW_POLICY_OPS_MAX][SESSION_OP_BYTES];
};

/* IMSG_GW_POLICY_ACK: the update's result, recorded and durable. */
struct gw_policy_ack {
	uint64_t	 ga_revision;
	int		 ga_ok;		/* installed, admission open */
	char		 ga_reason[SESSION_REASON_BYTES];	/* fixed */
};

/* IMSG_GW_STATUS_REPLY: the live session, names and counts only. */
struct gw_status {
	uint64_t	 gt_revision;	/* installed */
	int		 gt_closed;	/* admission closed */
	char		 gt_label[SESSION_OP_BYTES];	/* configured name */
	uint64_t	 gt_calls;
	uint64_t	 gt_allowed;
	uint64_t	 gt_denied;
	uint8_t		 gt_revoked[GW_POLICY_OPS_MAX];	/* by index */
};

/*
 * IMSG_AUDIT_ACK: the record with the sender's peerid is committed as
 * record seq, whose hash is now the chain's tip.  aa_synced is 1 when the
 * commit that holds it reached stable storage (always so for a record
 * whose kind authorizes an act, audit_kind_authorizes()), 0 when it is
 * durable only with the next synced commit.
 */
#define AUDIT_ACK_HASH_BYTES	32
struct audit_ack {
	uint64_t	 aa_seq;
	uint8_t		 aa_hash[AUDIT_ACK_HASH_BYTES];
	uint32_t	 aa_synced;
	uint32_t	 aa_pad;
};

/* Auditor: records it commits in one transaction, and its sender's wait. */
#define AUDIT_QUEUE_MAX		1024
#define AUDIT_ACK_WAIT_MS	2000

/* Control socket (cmcp-privsep(8) CONTROL SOCKET). */
#define CONTROL_LINE_BYTES	4096	/* one request line */
#define CONTROL_ANSWER_BYTES	(32 * 1024)	/* one answer line */
#define CONTROL_CLIENTS_MAX	8
#define CONTROL_TIMEOUT_MS	5000	/* request, and the gateway's ack */

/* Agent bounds: defaults are also the maxima (DESIGN 6). */
#define AGENT_FRAME_BYTES	(64 * 1024)
#define AGENT_STDOUT_BYTES	(1024 * 1024)
#define AGENT_STDERR_BYTES	(1024 * 1024)
#define AGENT_CALLS		16
#define AGENT_TIMEOUT_MS	15000

/* Watchdog (DESIGN 10). */
#define WD_PULSE_MS		250
#define WD_ACK_MS		1000
#define WD_LEASE_MS		2000
#define WD_STOP_TRIES		3
#define WD_STOP_TIMEOUT_MS	5000

/* MCP client (DESIGN 8). */
#define MCP_REQUEST_BYTES	(16 * 1024)
#define MCP_RESPONSE_BYTES	(64 * 1024)
#define MCP_TOOLS		32
#define MCP_NOTIFICATIONS	16
#define MCP_TIMEOUT_MS		5000
#define MCP_LIST_PAGES		8

/* Sandbox tool (DESIGN 11). */
#define SANDBOX_SOURCE_BYTES	(16 * 1024)
#define SANDBOX_INPUT_BYTES	(64 * 1024)
#define SANDBOX_OUTPUT_BYTES	(64 * 1024)
#define SANDBOX_TIMEOUT_MS	5000
#define SANDBOX_WHY_BYTES	96
#define SANDBOX_TOOLS_MAX	128	/* CONF_TOOLS_MAX */
/* The host's backstop: this long after the in-container deadline. */
#define SANDBOX_MARGIN_MS	1000
/* The gateway's wait for dockerd-client's start and end of a run. */
#define SANDBOX_OPEN_WAIT_MS	30000
#define SANDBOX_END_WAIT_MS	30000

/*
 * IMSG_SESSION_SANDBOX: a sandbox tool as the configuration has it, by
 * its index among all tools; the parent sends one per sandbox tool after
 * IMSG_SESSION_DOCKER.  The engine, the init and the labels are the
 * session's.
 */
struct session_sandbox {
	uint32_t	 sx_tool;
	char		 sx_image[SESSION_IMAGE_BYTES];
	uint32_t	 sx_argc;
	char		 sx_argv[SESSION_ARGV_MAX][SESSION_ARG_BYTES];
	uid_t		 sx_uid;
	gid_t		 sx_gid;
	int64_t		 sx_memory_bytes;
	int64_t		 sx_pids;
	int64_t		 sx_deadline_ms;
	uint64_t	 sx_output_bytes;
	uint64_t	 sx_source_bytes;
	uint64_t	 sx_input_bytes;
};

/*
 * IMSG_SB_RUN: run this tool over that many bytes of source and input.
 * The bytes themselves never pass through dockerd-client: the gateway
 * writes them into the attach stream it is given.
 */
struct sandbox_run {
	uint32_t	 sr_tool;
	uint64_t	 sr_srclen;
	uint64_t	 sr_inlen;
};

/*
 * IMSG_SESSION_SERVER: a server's container (server { image ... }), by
 * its index in the configuration's servers, in the order of the
 * configuration, after IMSG_SESSION_DOCKER and before the agent's go.
 * The engine, the init, the instance and session labels are the
 * session's.  The deadline is the session's timeout and a margin.
 */
#define SESSION_MOUNTS_MAX	8
struct session_mount {
	char		 sm_host[SESSION_PATH_BYTES];
	char		 sm_target[SESSION_PATH_BYTES];
	int		 sm_rw;
};

struct session_server {
	uint32_t	 sv_index;		/* in c_servers */
	char		 sv_name[SESSION_OP_BYTES];
	char		 sv_image[SESSION_IMAGE_BYTES];
	uint32_t	 sv_argc;
	char		 sv_argv[SESSION_ARGV_MAX][SESSION_ARG_BYTES];
	uid_t		 sv_uid;
	gid_t		 sv_gid;
	int64_t		 sv_memory_bytes;
	int64_t		 sv_pids;
	int64_t		 sv_nofile;
	int64_t		 sv_deadline_ms;
	uint32_t	 sv_nmounts;
	struct session_mount sv_mounts[SESSION_MOUNTS_MAX];
};

/* IMSG_SRV_STREAM, with the attach socket: bytes already read. */
struct server_stream {
	uint32_t	 st_index;		/* in c_servers */
	uint32_t	 st_len;
	unsigned char	 st_head[STREAM_HEAD_BYTES];
};

/* IMSG_SRV_FAILED: admission refused it or it did not start. */
struct server_failed {
	uint32_t	 sf_index;
	char		 sf_reason[SESSION_REASON_BYTES];	/* fixed */
};

/* IMSG_SB_STREAM, with the attach socket: bytes already read. */
struct sandbox_stream {
	uint32_t	 ss_len;
	unsigned char	 ss_head[STREAM_HEAD_BYTES];
};

/* IMSG_SB_END: how the stream ended (enum sb_end, common/sbstream.h). */
struct sandbox_end {
	int		 se_end;
};

/* A sandbox run's outcome (DESIGN 11; dockerd-client/dkr_sandbox.h). */
enum sandbox_outcome {
	SANDBOX_REFUSED = 0,	/* nothing ran */
	SANDBOX_COMPLETED,
	SANDBOX_TIME_LIMIT,
	SANDBOX_OUTPUT_LIMIT,
	SANDBOX_TOOL_FAILED,
	SANDBOX_OUTCOME_MAX
};

/*
 * IMSG_SB_DONE: the run's outcome (enum sandbox_outcome), the container's
 * exit status (-1 unknown), and whether its absence was seen.
 */
struct sandbox_done {
	int		 sn_outcome;
	int64_t		 sn_status;
	int		 sn_created;
	int		 sn_gone;
	int		 sn_killed;
	int64_t		 sn_run_ms;
	int64_t		 sn_total_ms;
	char		 sn_why[SANDBOX_WHY_BYTES];	/* fixed text */
};

#endif /* CMCP_H */
