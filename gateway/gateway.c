/*
 * The gateway: policy, labels and aliases, and the MCP client of the
 * approved servers, whose pipes the parent passes in (DESIGN 3, 8).
 *
 * Before it drops its privileges the gateway takes, on the parent
 * channel and in this order, the normalized configuration (a sealed
 * memfd it parses as /proc/self/fd/N: the parent's own parse, printed)
 * and the two pipes of every server.  Once sandboxed it initializes each
 * server and pins its tool list; a configured tool a server does not list
 * refuses the session (IMSG_GW_UPSTREAMS).  Then each request the bridge
 * forwards is decided (policy.h), and an allowed one is called upstream;
 * the reply goes back to the bridge.  Nothing here ever logs an argument,
 * a result or a byte of a server's output: only names, counts and codes.
 *
 * Audit before act (DESIGN 9): every decision goes to the auditor as a
 * record (auditclient.h), and the request waits in the event loop, as
 * the one pending request, until that record is durable; only then is
 * the refusal answered or the tool called (gw_decided()).  An ack that
 * does not come within AUDIT_ACK_WAIT_MS stops all calls and ends the
 * session (audit_failed); a closed auditor channel ends the gateway, and
 * with it the suite.  The call's start, its result and a rise of the
 * label are recorded too; those are not waited for, but acks come in
 * order, so the next request's decision ack means they are committed as
 * well, and the counts go to the parent only when every record is.
 *
 * An upstream call blocks the process in poll(2) until its deadline (the
 * server's timeout): requests are decided one at a time anyway, and the
 * parent, bridge and dockerd-client keep their own clocks.  Requests are
 * one at a time because the bridge forwards the next only after the reply
 * to the last.
 *
 * A PolicyGate update (IMSG_GW_POLICY, only ever from the parent's
 * control socket) is serialized with dispatch as policy.h describes:
 * while a request is pending or its call runs, the update is queued and
 * applied right after that request's reply, before the bridge can
 * forward the next one.  The policy_revision record then goes to the
 * auditor and the parent learns the result once it is durable.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>

#include <errno.h>
#include <event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditclient.h"
#include "auditrec.h"
#include "config.h"
#include "json.h"
#include "log.h"
#include "mcp.h"
#include "mstime.h"
#include "policy.h"
#include "proc.h"
#include "sandbox.h"
#include "sbcall.h"
#include "sha256.h"
#include "tools.h"

/* Added to an MCP error: the client is dead (gw_mcp_exchange). */
#define GW_MCP_DEAD		0x100
_Static_assert(MCP_E_MAX < GW_MCP_DEAD, "an error code takes the bit");

struct gw_upstream {
	const struct conf_server *u_srv;
	struct mcp_client	 u_mc;
	int			 u_waiting;	/* its container's stream */
	int			 u_watched;	/* u_ev added */
	struct event		 u_ev;		/* its end, between calls */
	uint64_t		 u_relists;	/* recorded so far */
	uint64_t		 u_moves;	/* ... that moved the pin */
};

/* The request whose decision record is not yet acknowledged. */
struct gw_pending {
	int			 p_active;
	struct gw_decision	 p_d;
	char			*p_args;	/* AGENT_FRAME_BYTES */
	size_t			 p_arglen;
	struct timespec		 p_sent;	/* its decision record */
	long long		 p_wait_us;	/* until its ack (bench/calls) */
};

static struct {
	struct cmcp_conf	*conf;
	struct gw_session	 s;
	struct gw_upstream	 up[CONF_SERVERS_MAX];
	size_t			 nup;
	int			 checked;	/* upstreams initialized */
	int			 started;	/* in the loop, sandboxed */
	size_t			 nwaiting;	/* streams still to come */
	int			 refused;	/* ... and found wanting */
	int			 labelled;	/* initial payload admitted */
	int			 failed;	/* upstream unsafe: no more calls */
	int			 ended;		/* IMSG_GW_END */
	int			 report_wait;	/* counts after the last ack */
	char			 session[SESSION_ID_BYTES];
	struct gw_pending	 pend;
	struct gw_policy	*pol;		/* the update, from the parent */
	int			 pol_queued;	/* behind the pending request */
	int			 pol_wait;	/* for its record's ack */
	struct gw_policy_ack	 pol_ack;
#ifdef CMCP_TEST
	int			 noauditwait;	/* mutation: act at once */
#endif
	struct gw_result	 res;
	uint8_t			 payload_digest[SHA256_DIGEST_BYTES];
	char			*result;	/* one tool result */
	size_t			 resultsz;
	struct gw_reply		*reply;		/* header and result */
	char			*sbsrc;		/* a sandbox run's source */
	char			*sbin;		/* ... its input */
	char			*sbout;		/* ... its output */
} gw;

/* Why an upstream failure ends the session, as a fixed code. */
static const char *const gw_mcp_reasons[MCP_E_MAX] = {
	[MCP_OK] =			"upstream_ok",
	[MCP_E_TIMEOUT] =		"upstream_timeout",
	[MCP_E_ID] =			"upstream_id",
	[MCP_E_TOO_LARGE] =		"upstream_too_large",
	[MCP_E_SYNTAX] =		"upstream_syntax",
	[MCP_E_PROTOCOL] =		"upstream_protocol",
	[MCP_E_VERSION] =		"upstream_version",
	[MCP_E_RPC_ERROR] =		"upstream_rpc_error",
	[MCP_E_RESULT] =		"upstream_result",
	[MCP_E_TOOLS] =			"upstream_tools",
	[MCP_E_TOOL_COUNT] =		"upstream_tool_count",
	[MCP_E_PAGES] =			"upstream_pages",
	[MCP_E_CURSOR] =		"upstream_cursor",
	[MCP_E_CHANGED] =		"upstream_changed",
	[MCP_E_CLOSED] =		"upstream_closed",
	[MCP_E_STREAM] =		"upstream_stream",
	[MCP_E_STDERR] =		"upstream_stderr",
	[MCP_E_NOTIFICATIONS] =		"upstream_notifications",
	[MCP_E_SERVER_REQUEST] =	"upstream_server_request",
	[MCP_E_NOT_ALLOWED] =		"upstream_not_allowed",
	[MCP_E_ARGS] =			"upstream_args",
	[MCP_E_STATE] =			"upstream_state",
	[MCP_E_INVAL] =			"upstream_inval",
	[MCP_E_SYSTEM] =		"upstream_system",
};

static const struct gw_config *gw_config_recv(void);
static void	gw_servers_recv(const struct gw_config *);
static void	gw_server_stream(struct imsg *);
static void	gw_server_failed(struct imsg *);
static void	gw_upstreams_verdict(const char *);
static void	gw_watch_start(void);
static void	gw_watch_stop(struct gw_upstream *);
static void	gw_watch(int, short, void *);
static void	gw_server_limits(const struct conf_server *,
		    struct mcp_limits *);
static void	gw_server_allow(struct gw_upstream *);
static void	gw_dispatch_parent(struct imsg *);
static void	gw_dispatch_bridge(struct imsg *);
static void	gw_dispatch_docker(struct imsg *);
static void	gw_upstreams_start(int, short, void *);
static const char *gw_tools_start(void);
static void	gw_session(struct imsg *);
static void	gw_payload(struct imsg *);
static void	gw_end(void);
static void	gw_session_end(void);
static void	gw_report(void);
static void	gw_request(struct imsg *);
static void	gw_act(void);
static void	gw_policy(struct imsg *);
static void	gw_policy_apply(void);
static void	gw_policy_done(const char *);
static void	gw_status(struct imsg *);
static void	gw_audit_decision(const struct gw_decision *,
		    const uint8_t *);
static void	gw_decided(const struct audit_ack *, void *);
static void	gw_policy_durable(const struct audit_ack *, void *);
static void	gw_recorded(const struct audit_ack *, void *);
static void	gw_audit(enum audit_kind, enum audit_decision,
		    const struct gw_decision *, const char *, int, int,
		    const uint8_t *, const uint8_t *);
static void	gw_audit_record(struct audit_record *, enum audit_kind,
		    enum audit_decision, const struct gw_decision *,
		    const char *, int, int, const uint8_t *, const uint8_t *);
static void	gw_audit_failed(void *);
static int	gw_mcp_exchange(const struct gw_decision *,
		    const char *, const char *, size_t, char *, size_t,
		    size_t *, int *, long long *);
static void	gw_mcp_failed(int);
static void	gw_relist_audit(struct gw_upstream *,
		    const struct gw_decision *, enum mcp_error);
static void	gw_call(const struct gw_decision *, const char *, size_t);
static void	gw_sandbox_call(const struct gw_decision *, const char *,
		    size_t);
static int	gw_sandbox_input(const struct gw_decision *, size_t *);
static uint32_t	gw_tool_index(const struct conf_tool *);
static void	gw_reply(enum gw_verdict, enum reply_code,
		    const char *, const char *, size_t);
static enum reply_code gw_deny_code(enum gw_reason);
static struct gw_upstream *gw_upstream(const struct conf_server *);
static const char *gw_mcp_reason(enum mcp_error);

/*
 * The gateway's system calls on top of the baseline of common/sandbox.c,
 * measured with strace -ff over whole sessions with the recorder and
 * the hostile servers: the MCP client waits in poll (baseline) and
 * reads the monotonic clock, which the vDSO serves unless the clock
 * source has none.  Its buffers, sized from the servers' response bounds
 * and the agent's frame, come from the brk heap like every allocation
 * (sandbox_heap_init()): no mmap.  Opening files and sockets fails
 * softly; anything else kills.
 */
static const struct sandbox_rule gw_sandbox[] = {
	SB_ALLOW(clock_gettime),
	/*
	 * The attach streams of a sandbox run and of a server's container
	 * (mcp_open_stream()): send(MSG_NOSIGNAL), the end of its stdin;
	 * read, recvmsg and poll are the baseline's.
	 */
	SB_ALLOW(sendto),
	SB_ALLOW(shutdown),
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler gw_handlers[] = {
	{ PROC_PARENT,	gw_dispatch_parent },
	{ PROC_BRIDGE,	gw_dispatch_bridge },
	{ PROC_AUDITOR,	auditc_dispatch },
	{ PROC_DOCKER,	gw_dispatch_docker },
};

void
gw_main(const struct ctl_init *ci)
{
	struct timeval	 now = { 0, 0 };

	/* Still root and outside the chroot: /proc is there to parse. */
	gw_servers_recv(gw_config_recv());
	priv_drop(PROC_GATEWAY, ci);
	proc_listen(gw_handlers, nitems(gw_handlers), NULL);
	auditc_init(gw_audit_failed, NULL);
#ifdef CMCP_TEST
	gw.noauditwait = ci->ci_noauditwait;
	if (gw.noauditwait)
		log_warnx("test build: calls do not wait for the audit ack");
#endif
	sandbox_apply(ci, gw_sandbox, nitems(gw_sandbox));
	proc_ready();
	/* The handshakes parse server bytes: sandboxed, in the loop. */
	if (event_once(-1, EV_TIMEOUT, gw_upstreams_start, NULL, &now) == -1)
		fatalx("event_once failed");
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

/*
 * The configuration as the parent parsed it, printed in normal form into
 * a sealed memfd: parsed once more here, it is the same configuration,
 * with every include and macro already resolved.  Returns whether a
 * session runs and how many servers' pipes follow: those of the servers
 * on the host.
 */
static const struct gw_config *
gw_config_recv(void)
{
	static struct gw_config	 gc;
	struct imsg		 imsg;
	char			 path[64];
	int			 fd;

	proc_recv_early(IMSG_GW_CONFIG, &imsg);
	if (imsg_get_data(&imsg, &gc, sizeof(gc)) == -1 ||
	    gc.gc_session > 1 || (!gc.gc_session && gc.gc_pipes != 0) ||
	    (fd = imsg_get_fd(&imsg)) == -1)
		fatalx("channel parent: bad configuration message");
	imsg_free(&imsg);
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((gw.conf = parse_config(path)) == NULL)
		fatalx("configuration from the parent refused");
	if (close(fd) == -1)
		fatal("close");
	if (gw_session_init(gw.conf, &gw.s) == -1)
		fatalx("configuration unusable for decisions");
	if (gw.conf->c_agent.protocol == PROTO_MCP)
		gw_tools_init(gw.conf);

	/* The largest result that still fits a reply line. */
	gw.resultsz = gw.conf->c_agent.frame_bytes - AGENT_REPLY_WRAP_BYTES;
	if (gw.conf->c_agent.frame_bytes <= AGENT_REPLY_WRAP_BYTES ||
	    gw.conf->c_agent.frame_bytes > AGENT_FRAME_BYTES)
		fatalx("configuration: bad frame bound");
	if ((gw.result = malloc(gw.resultsz)) == NULL ||
	    (gw.reply = malloc(sizeof(*gw.reply) + gw.resultsz)) == NULL ||
	    (gw.pend.p_args = malloc(AGENT_FRAME_BYTES)) == NULL ||
	    (gw.pol = malloc(sizeof(*gw.pol))) == NULL ||
	    (gw.sbsrc = malloc(SANDBOX_SOURCE_BYTES + 1)) == NULL ||
	    (gw.sbin = malloc(SANDBOX_INPUT_BYTES)) == NULL ||
	    (gw.sbout = malloc(SANDBOX_OUTPUT_BYTES)) == NULL)
		fatal("malloc");
	return (&gc);
}

/*
 * In a session, every server in the order of the configuration.  One on
 * the host comes as two descriptors, its standard input, then its
 * standard output; the client takes them over (non-blocking) and learns
 * the configured tool names now.  One in a container waits for its
 * attach stream from dockerd-client (gw_server_stream()).  Nothing is
 * sent before the sandbox.
 */
static void
gw_servers_recv(const struct gw_config *gc)
{
	const struct conf_server	*srv;
	struct gw_upstream		*up;
	struct gw_server_fd		 gs;
	struct mcp_limits		 lim;
	struct imsg			 imsg;
	enum mcp_error			 e;
	int				 fds[2];
	uint32_t			 dir, pipes = 0;

	if (!gc->gc_session)
		return;
	TAILQ_FOREACH(srv, &gw.conf->c_servers, entry) {
		if (gw.nup == nitems(gw.up))
			fatalx("channel parent: too many servers");
		up = &gw.up[gw.nup];
		up->u_srv = srv;
		if (srv->image[0] != '\0') {
			up->u_waiting = 1;
			gw.nwaiting++;
			gw.nup++;
			continue;
		}
		if (pipes++ == gc->gc_pipes)
			fatalx("channel parent: too few servers");
		for (dir = 0; dir < 2; dir++) {
			proc_recv_early(IMSG_GW_SERVER, &imsg);
			if (imsg_get_data(&imsg, &gs, sizeof(gs)) == -1 ||
			    gs.gs_index != gw.nup || gs.gs_dir != dir ||
			    (fds[dir] = imsg_get_fd(&imsg)) == -1)
				fatalx("channel parent: bad server message");
			imsg_free(&imsg);
		}
		gw.nup++;
		gw_server_limits(srv, &lim);
		if ((e = mcp_open(&up->u_mc, fds[0], fds[1], &lim)) != MCP_OK)
			fatalx("server %s: %s", srv->name, mcp_strerror(e));
		gw_server_allow(up);
	}
	if (pipes != gc->gc_pipes)
		fatalx("channel parent: too many servers");
}

static void
gw_server_limits(const struct conf_server *srv, struct mcp_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->timeout_ms = srv->timeout_ms;
	lim->response_bytes = srv->response_bytes;
	lim->tools = srv->tools;
	lim->pages = srv->pages;
}

/* The configured tool names of the server, before its first byte. */
static void
gw_server_allow(struct gw_upstream *up)
{
	const struct conf_tool	*t;
	enum mcp_error		 e;

	TAILQ_FOREACH(t, &gw.conf->c_tools, entry) {
		if (t->kind != TOOL_MCP || t->server != up->u_srv)
			continue;
		if ((e = mcp_allow(&up->u_mc, t->remote)) != MCP_OK)
			fatalx("server %s: tool %s: %s", up->u_srv->name,
			    t->remote, mcp_strerror(e));
	}
}

/*
 * A server's container is verified and running (dockerd-client): its
 * attach stream is the server's stdin and stdout, demultiplexed by the
 * client (mcp_open_stream()).  Once every stream is here the servers
 * are initialized.
 */
static void
gw_server_stream(struct imsg *imsg)
{
	struct server_stream	 st;
	struct gw_upstream	*up;
	struct mcp_limits	 lim;
	enum mcp_error		 e;
	int			 fd;

	if ((fd = imsg_get_fd(imsg)) == -1 ||
	    imsg_get_data(imsg, &st, sizeof(st)) == -1 ||
	    st.st_index >= gw.nup || !gw.up[st.st_index].u_waiting ||
	    st.st_len > sizeof(st.st_head))
		fatalx("channel dockerd-client: bad server stream message");
	up = &gw.up[st.st_index];
	up->u_waiting = 0;
	gw.nwaiting--;
	gw_server_limits(up->u_srv, &lim);
	if ((e = mcp_open_stream(&up->u_mc, fd, st.st_head, st.st_len,
	    &lim)) != MCP_OK)
		fatalx("server %s: %s", up->u_srv->name, mcp_strerror(e));
	gw_server_allow(up);
	explicit_bzero(&st, sizeof(st));
	log_debug("server %s: its container's stream", up->u_srv->name);
	if (gw.nwaiting == 0 && gw.started && !gw.checked)
		gw_upstreams_start(-1, EV_TIMEOUT, NULL);
}

/* A server's container was refused or did not start: no session. */
static void
gw_server_failed(struct imsg *imsg)
{
	struct server_failed	 sf;
	const char		*p;

	if (imsg_get_data(imsg, &sf, sizeof(sf)) == -1 ||
	    sf.sf_index >= gw.nup || !gw.up[sf.sf_index].u_waiting ||
	    memchr(sf.sf_reason, '\0', sizeof(sf.sf_reason)) == NULL)
		fatalx("channel dockerd-client: bad server failure message");
	for (p = sf.sf_reason; *p != '\0'; p++)
		if ((*p < 'a' || *p > 'z') && (*p < '0' || *p > '9') &&
		    *p != '_')
			fatalx("channel dockerd-client: bad server failure");
	gw.up[sf.sf_index].u_waiting = 0;
	gw.nwaiting--;
	log_warnx("server %s: its container: %s",
	    gw.up[sf.sf_index].u_srv->name, sf.sf_reason);
	if (!gw.checked)
		gw_upstreams_verdict(sf.sf_reason[0] != '\0' ? sf.sf_reason :
		    "server_container");
}

static void
gw_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_GW_SESSION:
		gw_session(imsg);
		break;
	case IMSG_SESSION_PAYLOAD:
		gw_payload(imsg);
		break;
	case IMSG_GW_END:
		gw_end();
		break;
	case IMSG_GW_POLICY:
		gw_policy(imsg);
		break;
	case IMSG_GW_STATUS:
		gw_status(imsg);
		break;
	default:
		proc_unexpected(PROC_PARENT, imsg);
	}
}

static void
gw_dispatch_bridge(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_GW_REQUEST:
		gw_request(imsg);
		break;
	default:
		proc_unexpected(PROC_BRIDGE, imsg);
	}
}

/*
 * A sandbox run's answers are read where the run waits for them
 * (sbcall.c); one arriving here came unasked.
 */
static void
gw_dispatch_docker(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_SRV_STREAM:
		gw_server_stream(imsg);
		break;
	case IMSG_SRV_FAILED:
		gw_server_failed(imsg);
		break;
	default:
		proc_unexpected(PROC_DOCKER, imsg);
	}
}

/*
 * DESIGN 5 step 2: initialize every server, pin its tool list, and check
 * that it lists every tool the configuration names on it.  The first
 * failure refuses the session; the parent then starts nothing.
 */
static void
gw_upstreams_start(int fd, short event, void *arg)
{
	const struct conf_tool	*t;
	struct gw_upstream	*up;
	const char		*reason = NULL;
	enum mcp_error		 e;
	size_t			 i;

	(void)fd;
	(void)event;
	(void)arg;
	gw.started = 1;
	/* A server in a container: its stream first (gw_server_stream()). */
	if (gw.nwaiting > 0 || gw.checked)
		return;
	for (i = 0; i < gw.nup && reason == NULL; i++) {
		up = &gw.up[i];
		if ((e = mcp_initialize(&up->u_mc)) != MCP_OK ||
		    (e = mcp_list_tools(&up->u_mc)) != MCP_OK) {
			log_warnx("server %s: %s", up->u_srv->name,
			    mcp_strerror(e));
			reason = gw_mcp_reason(e);
			break;
		}
		TAILQ_FOREACH(t, &gw.conf->c_tools, entry) {
			if (t->kind != TOOL_MCP || t->server != up->u_srv ||
			    (mcp_tool_state(&up->u_mc, t->remote) &
			    MCP_TOOL_DISCOVERED) != 0)
				continue;
			log_warnx("server %s does not list tool %s (tool %s)",
			    up->u_srv->name, t->remote, t->name);
			reason = "catalog_mismatch";
			break;
		}
		if (reason == NULL)
			log_debug("server %s: %zu tools listed",
			    up->u_srv->name, up->u_mc.ntools);
	}
	if (reason == NULL && gw.conf->c_agent.protocol == PROTO_MCP)
		reason = gw_tools_start();
	gw_upstreams_verdict(reason);
}

/* The upstreams' check, once: NULL, or why the session is refused. */
static void
gw_upstreams_verdict(const char *reason)
{
	struct gw_upstreams	 gu;

	if (gw.checked)
		return;
	memset(&gu, 0, sizeof(gu));
	gu.gu_ok = reason == NULL;
	(void)strlcpy(gu.gu_reason, reason == NULL ? "" : reason,
	    sizeof(gu.gu_reason));
	gw.checked = 1;
	gw.refused = reason != NULL;
	proc_compose(PROC_PARENT, IMSG_GW_UPSTREAMS, &gu, sizeof(gu));
	if (reason == NULL)
		gw_watch_start();
}

/*
 * A server's container that exits closes its attach stream, which no
 * one reads between calls: watch each for its end, so that the session
 * ends then rather than at the next call to it (issue 14).
 */
static void
gw_watch_start(void)
{
	struct gw_upstream	*up;
	size_t			 i;

	for (i = 0; i < gw.nup; i++) {
		up = &gw.up[i];
		if (!up->u_mc.stream || up->u_mc.rfd == -1)
			continue;
		event_set(&up->u_ev, up->u_mc.rfd, EV_READ | EV_PERSIST,
		    gw_watch, up);
		if (event_add(&up->u_ev, NULL) == -1)
			fatalx("event_add failed");
		up->u_watched = 1;
	}
}

static void
gw_watch_stop(struct gw_upstream *up)
{
	if (!up->u_watched)
		return;
	if (event_del(&up->u_ev) == -1)
		fatalx("event_del failed");
	up->u_watched = 0;
}

/*
 * The stream is readable with no call under way: its end (or an error)
 * ends the session as upstream_failed.  Bytes nobody asked for are left
 * for the next call to read and judge; the watch stops, not to spin.
 */
static void
gw_watch(int fd, short event, void *arg)
{
	struct gw_upstream	*up = arg;
	struct msghdr		 msg;
	struct iovec		 iov;
	unsigned char		 c;
	ssize_t			 n;

	(void)event;
	/* recvmsg(2): the one receive call the sandbox allows */
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &c;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if ((n = recvmsg(fd, &msg, MSG_PEEK | MSG_DONTWAIT)) == -1 &&
	    (errno == EAGAIN || errno == EINTR))
		return;
	gw_watch_stop(up);
	/* not a socket: nothing to peek at, the next call will tell */
	if (n > 0 || gw.ended || (n == -1 && errno == ENOTSOCK))
		return;
	log_warnx("server %s: its container's stream closed",
	    up->u_srv->name);
	proc_compose(PROC_BRIDGE, IMSG_GW_LOST, NULL, 0);
	proc_flush(PROC_BRIDGE);
}

/*
 * Protocol mcp: every operation's schema, from the pinned lists where
 * the operator gave none, the list checked to fit the bridge's line and
 * sent.  NULL, or why the session is refused.
 */
static const char *
gw_tools_start(void)
{
	const struct conf_operation	*o;
	const struct gw_upstream	*up;
	const char			*s, *reason;
	size_t				 i = 0, len;

	TAILQ_FOREACH(o, &gw.conf->c_operations, entry) {
		s = NULL;
		len = 0;
		if (o->tool->kind == TOOL_MCP &&
		    ((up = gw_upstream(o->tool->server)) == NULL ||
		    mcp_tool_schema(&up->u_mc, o->tool->remote, &s,
		    &len) == -1))
			s = NULL;
		if ((reason = gw_tools_set(i++, s, len)) != NULL) {
			log_warnx("operation %s: no input schema to show",
			    o->name);
			return (reason);
		}
	}
	if ((reason = gw_tools_check()) != NULL)
		return (reason);
	gw_tools_send(&gw.s);
	return (NULL);
}

/*
 * The initial payload: the parent validated it; the label is the
 * operator's (payload label).  Its digest is kept for the audit record.
 */
static void
gw_payload(struct imsg *imsg)
{
	struct sha256_ctx	 ctx;
	struct json_limits	 lim;
	const char		*why;
	size_t			 len = imsg_get_len(imsg);

	if (gw.labelled || len == 0 || len > AGENT_FRAME_BYTES)
		fatalx("channel parent: bad payload message");
	lim.max_bytes = len;
	lim.max_depth = JSON_DEPTH_MAX - 1;
	if (json_validate(imsg->data, len, &lim, &why) == -1)
		fatalx("channel parent: payload: %s", why);
	sha256_init(&ctx);
	sha256_update(&ctx, imsg->data, len);
	sha256_final(&ctx, gw.payload_digest);
	if (gw_payload_label(&gw.s, gw.conf->c_agent.payload_label) == -1)
		log_warnx("payload label out of range: session label raised "
		    "to the highest");
	gw.labelled = 1;
	log_debug("payload of %zu bytes admitted, session label %s", len,
	    gw.conf->c_labels[gw.s.s_label]);
}

/* The session's id: every record the gateway sends carries it. */
static void
gw_session(struct imsg *imsg)
{
	if (gw.session[0] != '\0' ||
	    imsg_get_data(imsg, gw.session, sizeof(gw.session)) == -1 ||
	    memchr(gw.session, '\0', sizeof(gw.session)) == NULL ||
	    gw.session[0] == '\0')
		fatalx("channel parent: bad session message");
}

/*
 * The first request comes after the bridge started the session's clock
 * (the agent's timeout and its second from the attach stream), so from
 * it no MCP operation needs a deadline later than that again: a call is
 * never waited for long after its session (mcp_set_end()).  Discovery,
 * before, keeps each server's own timeout.
 */
static void
gw_session_end(void)
{
	struct timespec	 end, add;
	unsigned int	 ms;
	size_t		 i;

	if (clock_gettime(CLOCK_MONOTONIC, &end) == -1)
		fatal("clock_gettime");
	ms = gw.conf->c_agent.ctr.timeout_ms + HOST_DEADLINE_SLACK_MS;
	ms_to_timespec(ms, &add);
	timespecadd(&end, &add, &end);
	for (i = 0; i < gw.nup; i++)
		mcp_set_end(&gw.up[i].u_mc, &end);
}

/*
 * The session is over: close every upstream (its end of file is the
 * polite close of MCP stdio, before the parent's signals) and report the
 * counts once the records sent so far are durable.  A request still
 * waiting for its ack is dropped: nothing of it is acted on.
 */
static void
gw_end(void)
{
	size_t	 i;

	if (gw.ended)
		fatalx("channel parent: session ended twice");
	gw.ended = 1;
	if (gw.pend.p_active) {
		gw.pend.p_active = 0;
		explicit_bzero(gw.pend.p_args, gw.pend.p_arglen);
	}
	if (gw.pol_queued)
		gw_policy_apply();
	for (i = 0; i < gw.nup; i++) {
		gw_watch_stop(&gw.up[i]);
		mcp_close(&gw.up[i].u_mc);
	}
	gw.report_wait = 1;
	if (auditc_recorded(gw_recorded, NULL) == -1)
		gw_report();
}

/* Every record of the session is committed: the counts may follow. */
static void
gw_recorded(const struct audit_ack *aa, void *arg)
{
	(void)aa;
	(void)arg;
	if (gw.report_wait)
		gw_report();
}

static void
gw_report(void)
{
	gw.report_wait = 0;
	proc_compose(PROC_PARENT, IMSG_GW_RESULT, &gw.res, sizeof(gw.res));
	log_debug("session ended: %llu calls, %llu allowed, %llu denied%s",
	    (unsigned long long)gw.res.gr_calls,
	    (unsigned long long)gw.res.gr_allowed,
	    (unsigned long long)gw.res.gr_denied,
	    gw.res.gr_audit_failed ? ", audit failed" : "");
}

/*
 * One validated request from the bridge (DESIGN 5 step 6): decide it,
 * record the decision, and act on it once the record is durable.
 */
static void
gw_request(struct imsg *imsg)
{
	struct gw_request	 rq;
	struct gw_pending	*p = &gw.pend;
	struct sha256_ctx	 ctx;
	uint8_t			 digest[SHA256_DIGEST_BYTES];
	const char		*args;
	size_t			 len = imsg_get_len(imsg);

	if (len < sizeof(rq))
		fatalx("channel bridge: short request");
	memcpy(&rq, imsg->data, sizeof(rq));
	args = (const char *)imsg->data + sizeof(rq);
	if (memchr(rq.gq_operation, '\0', sizeof(rq.gq_operation)) == NULL ||
	    rq.gq_arglen != len - sizeof(rq) || rq.gq_arglen == 0 ||
	    rq.gq_arglen > AGENT_FRAME_BYTES)
		fatalx("channel bridge: bad request");
	/* The bridge admits nothing before the parent started it all. */
	if (!gw.checked || gw.refused || !gw.labelled || gw.session[0] == '\0')
		fatalx("channel bridge: request before the session");
	if (p->p_active)
		fatalx("channel bridge: request while one is pending");
	if (gw.ended || gw.failed) {
		gw_reply(GW_VERDICT_FAILED, REPLY_INTERNAL,
		    gw.res.gr_audit_failed ? "audit_failed" : "session_over",
		    NULL, 0);
		return;
	}

	if (gw.res.gr_calls++ == 0)
		gw_session_end();
	gw_decide(gw.conf, &gw.s, rq.gq_operation, args, rq.gq_arglen,
	    &p->p_d);
	sha256_init(&ctx);
	sha256_update(&ctx, args, rq.gq_arglen);
	sha256_final(&ctx, digest);
	memcpy(p->p_args, args, rq.gq_arglen);
	p->p_arglen = rq.gq_arglen;
	gw_audit_decision(&p->p_d, digest);
	if (gw.failed) {
		explicit_bzero(p->p_args, p->p_arglen);
		gw_reply(GW_VERDICT_FAILED, REPLY_INTERNAL, "audit_failed",
		    NULL, 0);
		return;
	}
	p->p_active = 1;
	p->p_wait_us = 0;
	/* The wait for the durable record, apart from our own work. */
	if (clock_gettime(CLOCK_MONOTONIC, &p->p_sent) == -1)
		fatal("clock_gettime");
#ifdef CMCP_TEST
	if (gw.noauditwait)
		gw_act();
#endif
}

/*
 * The pending request's records are durable: answer a refusal, end the
 * session on a violation, or call the tool.  A denial is a reply and the
 * agent may go on.
 */
static void
gw_act(void)
{
	struct gw_pending	*p = &gw.pend;
	const struct gw_decision *d = &p->p_d;

	p->p_active = 0;
	if (d->violation) {
		gw.res.gr_denied++;
		log_info("request %llu: %s", (unsigned long long)
		    gw.res.gr_calls, gw_reason_str(d->reason));
		gw_reply(GW_VERDICT_VIOLATION, REPLY_UNKNOWN_OPERATION,
		    gw_reason_str(d->reason), NULL, 0);
	} else if (!d->allowed) {
		gw.res.gr_denied++;
		log_info("request %llu: operation %s: %s (rule %u)",
		    (unsigned long long)gw.res.gr_calls, d->op->name,
		    gw_reason_str(d->reason), d->rule);
		gw_reply(GW_VERDICT_REPLY, gw_deny_code(d->reason),
		    gw_reason_str(d->reason), NULL, 0);
	} else if (gw_commit_allowed(&gw.s, d) == -1) {
		gw.res.gr_denied++;
		gw_reply(GW_VERDICT_REPLY, REPLY_INTERNAL, "internal_error",
		    NULL, 0);
	} else {
		gw.res.gr_allowed++;
		if (d->tool->kind == TOOL_SANDBOX)
			gw_sandbox_call(d, p->p_args, p->p_arglen);
		else
			gw_call(d, p->p_args, p->p_arglen);
	}
	explicit_bzero(p->p_args, p->p_arglen);
	/* The reply is out; the next request will see the update. */
	if (gw.pol_queued)
		gw_policy_apply();
}

/*
 * A PolicyGate revision from the parent.  The parent sends one at a time
 * and waits for its ack.  Applied now when no request is pending, else
 * after that request's reply (gw_act()).
 */
static void
gw_policy(struct imsg *imsg)
{
	size_t	 i;

	if (gw.pol_queued || gw.pol_wait || gw.session[0] == '\0' ||
	    imsg_get_data(imsg, gw.pol, sizeof(*gw.pol)) == -1 ||
	    gw.pol->gl_count > GW_POLICY_OPS_MAX)
		fatalx("channel parent: bad policy message");
	for (i = 0; i < gw.pol->gl_count; i++)
		if (memchr(gw.pol->gl_names[i], '\0',
		    sizeof(gw.pol->gl_names[i])) == NULL)
			fatalx("channel parent: bad policy message");
	gw.pol_queued = 1;
	if (!gw.pend.p_active)
		gw_policy_apply();
}

/*
 * AUDIT POINT.  Install the queued revision and record it: the reason
 * code carries the revision number and the result, the names are not
 * recorded (they are configured names or, refused, nothing of interest).
 */
static void
gw_policy_apply(void)
{
	static const char	*names[GW_POLICY_OPS_MAX];
	struct audit_record	 ar;
	struct gw_decision	 none;
	enum gw_gate		 g;
	char			 reason[AUDIT_NAME_BYTES];
	size_t			 i;

	gw.pol_queued = 0;
	for (i = 0; i < gw.pol->gl_count; i++)
		names[i] = gw.pol->gl_names[i];
	g = gw_gate_update(gw.conf, &gw.s, gw.pol->gl_revision, names,
	    gw.pol->gl_count);
	log_info("policy revision %llu: %s",
	    (unsigned long long)gw.pol->gl_revision, gw_gate_str(g));
	if (g == GW_GATE_OK && gw.conf->c_agent.protocol == PROTO_MCP)
		gw_tools_send(&gw.s);

	memset(&gw.pol_ack, 0, sizeof(gw.pol_ack));
	gw.pol_ack.ga_revision = gw.pol->gl_revision;
	gw.pol_ack.ga_ok = g == GW_GATE_OK;
	(void)strlcpy(gw.pol_ack.ga_reason, gw_gate_str(g),
	    sizeof(gw.pol_ack.ga_reason));

	memset(&none, 0, sizeof(none));
	(void)snprintf(reason, sizeof(reason), "revision_%llu_%s",
	    (unsigned long long)gw.pol->gl_revision, gw_gate_str(g));
	gw_audit_record(&ar, AUDIT_K_POLICY_REVISION, g == GW_GATE_OK ?
	    AUDIT_D_ALLOW : AUDIT_D_DENY, &none, reason, gw.s.s_label,
	    gw.s.s_label, NULL, NULL);
	if (auditc_durable(&ar, gw_policy_durable, NULL) == 0) {
		gw_policy_done("audit_failed");
		return;
	}
	gw.pol_wait = 1;
}

/* The revision's record is durable: the parent may say it is in force. */
static void
gw_policy_durable(const struct audit_ack *aa, void *arg)
{
	(void)aa;
	(void)arg;
	if (gw.pol_wait)
		gw_policy_done(NULL);
}

/* The update's record is durable, or can never be: tell the parent. */
static void
gw_policy_done(const char *failure)
{
	gw.pol_wait = 0;
	if (failure != NULL) {
		gw.pol_ack.ga_ok = 0;
		(void)strlcpy(gw.pol_ack.ga_reason, failure,
		    sizeof(gw.pol_ack.ga_reason));
	}
	proc_compose(PROC_PARENT, IMSG_GW_POLICY_ACK, &gw.pol_ack,
	    sizeof(gw.pol_ack));
	proc_flush(PROC_PARENT);
}

/* The control socket's status: names and counts, never a payload. */
static void
gw_status(struct imsg *imsg)
{
	struct gw_status	 st;
	size_t			 i;

	memset(&st, 0, sizeof(st));
	st.gt_revision = gw.s.s_revision;
	st.gt_closed = gw.s.s_closed;
	(void)strlcpy(st.gt_label, gw.conf->c_labels[gw.s.s_label],
	    sizeof(st.gt_label));
	st.gt_calls = gw.res.gr_calls;
	st.gt_allowed = gw.res.gr_allowed;
	st.gt_denied = gw.res.gr_denied;
	for (i = 0; i < gw.s.s_nops && i < nitems(st.gt_revoked); i++)
		st.gt_revoked[i] = gw.s.s_revoked[i];
	proc_compose_id(PROC_PARENT, IMSG_GW_STATUS_REPLY,
	    imsg_get_peerid(imsg), &st, sizeof(st));
	proc_flush(PROC_PARENT);
}

/*
 * AUDIT POINT.  The decision record of a request: the operation and tool
 * by their configured names when the operation is an alias, never the
 * agent's string otherwise; the verdict and its reason code; the session
 * label; the digest of the canonical arguments.  An unknown operation is
 * a violation, recorded as such in the same wait.
 */
static void
gw_audit_decision(const struct gw_decision *d, const uint8_t *digest)
{
	struct audit_record	 ar;
	const char		*reason = gw_reason_str(d->reason);
	enum audit_decision	 ad = AUDIT_D_DENY;

	if (d->allowed && !d->violation)
		ad = AUDIT_D_ALLOW;
	gw_audit_record(&ar, AUDIT_K_DECISION, ad, d, reason, gw.s.s_label,
	    gw.s.s_label, digest, NULL);
#ifdef CMCP_TEST
	/* The mutation: the request acts at once, nothing waits. */
	if (gw.noauditwait)
		(void)auditc_send(&ar);
	else
#endif
		(void)auditc_durable(&ar, gw_decided, NULL);
	if (d->violation)
		gw_audit(AUDIT_K_VIOLATION, AUDIT_D_NONE, d, reason,
		    gw.s.s_label, gw.s.s_label, digest, NULL);
}

/* The pending request's decision is durable: act on it. */
static void
gw_decided(const struct audit_ack *aa, void *arg)
{
	struct gw_pending	*p = &gw.pend;
	struct timespec		 now;

	(void)aa;
	(void)arg;
	/* Dropped at the session's end: nothing of it is acted on. */
	if (!p->p_active)
		return;
	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		fatal("clock_gettime");
	timespecsub(&now, &p->p_sent, &now);
	p->p_wait_us = timespec_to_us(&now);
	gw_act();
}

/*
 * One record to the auditor, waited for by nothing.  With the auditor's
 * channel gone or an ack overdue, no record is sent and gw.failed says
 * so (gw_audit_failed()).
 */
static void
gw_audit(enum audit_kind kind, enum audit_decision ad,
    const struct gw_decision *d, const char *reason, int before, int after,
    const uint8_t *request, const uint8_t *response)
{
	struct audit_record	 ar;

	gw_audit_record(&ar, kind, ad, d, reason, before, after, request,
	    response);
	(void)auditc_send(&ar);
}

/* Only configured names, fixed codes and digests go in. */
static void
gw_audit_record(struct audit_record *ar, enum audit_kind kind,
    enum audit_decision ad, const struct gw_decision *d, const char *reason,
    int before, int after, const uint8_t *request, const uint8_t *response)
{
	audit_record_init(ar, kind, ad);
	if (audit_record_set(ar, AUDIT_F_SESSION, gw.session) == -1 ||
	    audit_record_set(ar, AUDIT_F_REASON, reason) == -1 ||
	    audit_record_set(ar, AUDIT_F_LABEL_BEFORE,
	    gw.conf->c_labels[before]) == -1 ||
	    audit_record_set(ar, AUDIT_F_LABEL_AFTER,
	    gw.conf->c_labels[after]) == -1)
		fatalx("audit: bad record");
	if (d->op != NULL && !d->violation &&
	    (audit_record_set(ar, AUDIT_F_OPERATION, d->op->name) == -1 ||
	    audit_record_set(ar, AUDIT_F_TOOL, d->tool->name) == -1))
		fatalx("audit: bad record names");
	if (request != NULL)
		audit_record_digest(ar, AUDIT_HAS_REQUEST, request);
	if (response != NULL)
		audit_record_digest(ar, AUDIT_HAS_RESPONSE, response);
}

/*
 * No record can be made durable (auditclient.c): nothing more goes
 * upstream.  The pending request is refused and the session ends
 * (audit_failed).
 */
static void
gw_audit_failed(void *arg)
{
	(void)arg;
	gw.res.gr_audit_failed = 1;
	gw.failed = 1;
	if (gw.pend.p_active) {
		gw.pend.p_active = 0;
		explicit_bzero(gw.pend.p_args, gw.pend.p_arglen);
		gw_reply(GW_VERDICT_FAILED, REPLY_INTERNAL, "audit_failed",
		    NULL, 0);
	}
	if (gw.pol_wait)
		gw_policy_done("audit_failed");
	else if (gw.pol_queued)
		gw_policy_apply();
	if (gw.report_wait)
		gw_report();
}

/*
 * One recorded MCP call of the tool of d, bounded by its server's
 * timeout: the start, the call, the result's label (raised whether or
 * not the tool reported an error: something of the tool came back), the
 * result (its digest, never its bytes) and a rise of the label.  tag is
 * the start's reason and the result's when it is good.  The result is in
 * buf[0..*rlen), buf having cap bytes; *us is the call's own time.
 * Returns MCP_OK, or the error with GW_MCP_DEAD added when the client is
 * dead.
 */
static int
gw_mcp_exchange(const struct gw_decision *d, const char *tag,
    const char *args, size_t arglen, char *buf, size_t cap, size_t *rlen,
    int *iserr, long long *us)
{
	struct gw_upstream	*up;
	struct sha256_ctx	 ctx;
	struct timespec		 t0, t1;
	uint8_t			 digest[SHA256_DIGEST_BYTES];
	int			 before = gw.s.s_label;
	enum mcp_error		 e;

	if (d->tool->kind != TOOL_MCP ||
	    (up = gw_upstream(d->tool->server)) == NULL)
		fatalx("tool %s: no upstream", d->tool->name);
	gw_audit(AUDIT_K_CALL_START, AUDIT_D_NONE, d, tag, before, before,
	    NULL, NULL);
	*rlen = cap;
	*iserr = 0;
	if (clock_gettime(CLOCK_MONOTONIC, &t0) == -1)
		fatal("clock_gettime");
	e = mcp_call(&up->u_mc, d->tool->remote, args, arglen, buf, rlen,
	    iserr);
	if (clock_gettime(CLOCK_MONOTONIC, &t1) == -1)
		fatal("clock_gettime");
	timespecsub(&t1, &t0, &t1);
	*us = timespec_to_us(&t1);
	gw_relist_audit(up, d, e);
	if (e == MCP_OK || up->u_mc.state != MCP_ST_DEAD)
		(void)gw_result_label(&gw.s, d->tool);
	if (e == MCP_OK) {
		sha256_init(&ctx);
		sha256_update(&ctx, buf, *rlen);
		sha256_final(&ctx, digest);
	}
	gw_audit(AUDIT_K_CALL_RESULT, AUDIT_D_NONE, d, e != MCP_OK ?
	    gw_mcp_reason(e) : *iserr ? "tool_error" : tag[0] != '\0' ? tag :
	    "ok", before, gw.s.s_label, NULL, e == MCP_OK ? digest : NULL);
	if (gw.s.s_label != before)
		gw_audit(AUDIT_K_LABEL_CHANGE, AUDIT_D_NONE, d, "", before,
		    gw.s.s_label, NULL, NULL);
	if (e != MCP_OK) {
		log_warnx("request %llu: operation %s: server %s: %s",
		    (unsigned long long)gw.res.gr_calls, d->op->name,
		    up->u_srv->name, mcp_strerror(e));
		/* A dead client makes the exchange unsafe: no more calls. */
		if (up->u_mc.state == MCP_ST_DEAD) {
			gw.failed = 1;
			return (e | GW_MCP_DEAD);
		}
	}
	return (e);
}

/*
 * What the re-lists of a call found (mcp.h), recorded before its result:
 * each re-list as an admission of the list now pinned (the pins before
 * and after as digests; equal when nothing moved), and a configured tool
 * whose definition changed -- the rug-pull that ends the session -- as a
 * violation naming that tool, with the digests of its definition as
 * pinned and as listed now (absent: no digest).
 */
static void
gw_relist_audit(struct gw_upstream *up, const struct gw_decision *d,
    enum mcp_error e)
{
	static const uint8_t	 none[SHA256_DIGEST_BYTES];
	struct mcp_client	*c = &up->u_mc;
	const struct conf_tool	*t;
	struct gw_decision	 dt;
	int			 l = gw.s.s_label, moved;

	if (c->relists > up->u_relists && e != MCP_E_CHANGED) {
		moved = c->catalog_changes > up->u_moves;
		gw_audit(AUDIT_K_ADMISSION, AUDIT_D_ALLOW, d, moved ?
		    "unconfigured_tools_changed" : "tools_relisted", l, l,
		    moved ? c->prev_pin : c->pin, c->pin);
	}
	up->u_relists = c->relists;
	up->u_moves = c->catalog_changes;
	if (e != MCP_E_CHANGED || c->changed[0] == '\0')
		return;
	dt = *d;
	TAILQ_FOREACH(t, &gw.conf->c_tools, entry)
		if (t->kind == TOOL_MCP && t->server == up->u_srv &&
		    strcmp(t->remote, c->changed) == 0) {
			dt.tool = t;
			break;
		}
	gw_audit(AUDIT_K_VIOLATION, AUDIT_D_NONE, &dt, "upstream_tool_changed",
	    l, l, memcmp(c->changed_was, none, sizeof(none)) != 0 ?
	    c->changed_was : NULL, memcmp(c->changed_now, none,
	    sizeof(none)) != 0 ? c->changed_now : NULL);
	log_warnx("server %s: tool %s changed under the session",
	    up->u_srv->name, dt.tool->name);
	c->changed[0] = '\0';
}

/* The reply to a failed exchange; the session ends once it is unsafe. */
static void
gw_mcp_failed(int r)
{
	enum mcp_error	 e = r & ~GW_MCP_DEAD;

	if ((r & GW_MCP_DEAD) == 0) {
		/* A JSON-RPC error or an overlong result: read in full. */
		gw_reply(GW_VERDICT_REPLY, REPLY_UPSTREAM_ERROR,
		    gw_mcp_reason(e), NULL, 0);
		return;
	}
	gw_reply(GW_VERDICT_FAILED, e == MCP_E_TIMEOUT ?
	    REPLY_UPSTREAM_TIMEOUT : REPLY_UPSTREAM_ERROR, gw_mcp_reason(e),
	    NULL, 0);
}

/* An MCP tool's call, answered with its result. */
static void
gw_call(const struct gw_decision *d, const char *args, size_t arglen)
{
	size_t		 rlen;
	long long	 us;
	int		 iserr;
	int		 e;

	if ((e = gw_mcp_exchange(d, "", args, arglen, gw.result, gw.resultsz,
	    &rlen, &iserr, &us)) != MCP_OK) {
		gw_mcp_failed(e);
		return;
	}
	gw_reply(GW_VERDICT_REPLY, REPLY_OK, "allowed", gw.result, rlen);
	explicit_bzero(gw.result, rlen);
	log_debug("request %llu: operation %s: delivered, %zu bytes back%s, "
	    "session label %s, audit wait %lld us, upstream %lld us",
	    (unsigned long long)gw.res.gr_calls, d->op->name, rlen,
	    iserr ? " (tool error)" : "", gw.conf->c_labels[gw.s.s_label],
	    gw.pend.p_wait_us, us);
}

/*
 * A sandbox tool's run (DESIGN 11): the source from the arguments, a
 * fresh result of the input tool as the input, the run in a one-shot
 * container (sbcall.c), the outcome as the result.  The input's label
 * raises the session label as any result does, then the run's own label.
 * Recorded: the input call's start and result, the run's start and
 * result (the outcome as the reason, the digest of the output), each rise
 * of the label.  A container whose absence was not confirmed ends the
 * session.
 */
static void
gw_sandbox_call(const struct gw_decision *d, const char *args, size_t arglen)
{
	const struct conf_tool	*t = d->tool;
	struct gw_sb_run	 r;
	struct sha256_ctx	 ctx;
	uint8_t			 digest[SHA256_DIGEST_BYTES];
	size_t			 srclen, inlen = 0, rlen;
	int			 before;

	if (gw_sb_source(args, arglen, t->source_bytes, gw.sbsrc,
	    SANDBOX_SOURCE_BYTES + 1, &srclen) == -1) {
		log_info("request %llu: operation %s: bad sandbox arguments",
		    (unsigned long long)gw.res.gr_calls, d->op->name);
		gw_audit(AUDIT_K_CALL_RESULT, AUDIT_D_NONE, d,
		    "sandbox_arguments", gw.s.s_label, gw.s.s_label, NULL,
		    NULL);
		gw_reply(GW_VERDICT_REPLY, REPLY_DENIED, "sandbox_arguments",
		    NULL, 0);
		return;
	}
	if (t->input_tool != NULL && gw_sandbox_input(d, &inlen) == -1) {
		explicit_bzero(gw.sbsrc, srclen);
		return;
	}

	before = gw.s.s_label;
	gw_audit(AUDIT_K_CALL_START, AUDIT_D_NONE, d, "", before, before,
	    NULL, NULL);
	memset(&r, 0, sizeof(r));
	r.out = gw.sbout;
	r.outmax = t->output_bytes;
	gw_sb_run(gw_tool_index(t), t->ctr.timeout_ms, gw.sbsrc, srclen,
	    gw.sbin, inlen, &r);
	explicit_bzero(gw.sbsrc, srclen);
	explicit_bzero(gw.sbin, inlen);
	if (r.outcome != SANDBOX_REFUSED)
		(void)gw_result_label(&gw.s, t);

	/* The result, as the agent will get it. */
	rlen = 0;
	if (r.outcome != SANDBOX_REFUSED &&
	    gw_sb_result(&r, gw.result, gw.resultsz, &rlen) == -1) {
		/* Escaped, it does not fit a reply: an output limit. */
		explicit_bzero(r.out, r.outlen);
		r.outlen = 0;
		r.outcome = SANDBOX_OUTPUT_LIMIT;
		if (gw_sb_result(&r, gw.result, gw.resultsz, &rlen) == -1)
			fatalx("sandbox: reply too small");
	}
	explicit_bzero(r.out, r.outlen);
	if (rlen > 0) {
		sha256_init(&ctx);
		sha256_update(&ctx, gw.result, rlen);
		sha256_final(&ctx, digest);
	}
	gw_audit(AUDIT_K_CALL_RESULT, AUDIT_D_NONE, d, r.gone ?
	    gw_sb_outcome_reason(r.outcome) : "sandbox_not_gone", before,
	    gw.s.s_label, NULL, rlen > 0 ? digest : NULL);
	if (gw.s.s_label != before)
		gw_audit(AUDIT_K_LABEL_CHANGE, AUDIT_D_NONE, d, "", before,
		    gw.s.s_label, NULL, NULL);
	log_debug("request %llu: operation %s: sandbox %s, status %lld, "
	    "stdout %llu, stderr %llu bytes, run %lld ms, total %lld ms%s",
	    (unsigned long long)gw.res.gr_calls, d->op->name,
	    gw_sb_outcome_str(r.outcome), (long long)r.status,
	    (unsigned long long)r.stdout_bytes,
	    (unsigned long long)r.stderr_bytes, (long long)r.run_ms,
	    (long long)r.total_ms, r.gone ? "" : ", NOT GONE");

	if (!r.gone) {
		/* Something of the run may be left: nothing more runs. */
		log_warnx("request %llu: sandbox container not confirmed gone",
		    (unsigned long long)gw.res.gr_calls);
		explicit_bzero(gw.result, rlen);
		gw.failed = 1;
		gw_reply(GW_VERDICT_FAILED, REPLY_UPSTREAM_ERROR,
		    "sandbox_not_gone", NULL, 0);
		return;
	}
	if (r.outcome == SANDBOX_REFUSED) {
		log_warnx("request %llu: operation %s: %s",
		    (unsigned long long)gw.res.gr_calls, d->op->name, r.why);
		gw_reply(GW_VERDICT_REPLY, REPLY_UPSTREAM_ERROR,
		    "sandbox_unavailable", NULL, 0);
		return;
	}
	gw_reply(GW_VERDICT_REPLY, REPLY_OK, "allowed", gw.result, rlen);
	explicit_bzero(gw.result, rlen);
}

/*
 * The operator-selected input: a fresh call of the input tool without
 * arguments, its result (the CallToolResult object as the server sent
 * it) into gw.sbin.  0, or -1 with the reply sent.
 */
static int
gw_sandbox_input(const struct gw_decision *d, size_t *inlen)
{
	struct gw_decision	 din = *d;
	size_t			 rlen;
	long long		 us;
	int			 iserr, e;

	/*
	 * The input goes to the run, never into a reply line: read into
	 * sbin, whose SANDBOX_INPUT_BYTES is the most input may be, so every
	 * input bound can be reached whatever the agent's frame.
	 */
	din.tool = d->tool->input_tool;
	e = gw_mcp_exchange(&din, "input", "{}", 2, gw.sbin,
	    SANDBOX_INPUT_BYTES, &rlen, &iserr, &us);
	/* Over SANDBOX_INPUT_BYTES: read in full, not kept, too large. */
	if (e != MCP_OK && e != MCP_E_TOO_LARGE) {
		gw_mcp_failed(e);
		return (-1);
	}
	if (e == MCP_OK && !iserr && rlen <= d->tool->input_bytes) {
		*inlen = rlen;
		return (0);
	}
	explicit_bzero(gw.sbin, SANDBOX_INPUT_BYTES);
	log_warnx("request %llu: operation %s: input tool %s: %s",
	    (unsigned long long)gw.res.gr_calls, d->op->name, din.tool->name,
	    iserr ? "tool error" : "input too large");
	gw_reply(GW_VERDICT_REPLY, REPLY_UPSTREAM_ERROR, iserr ?
	    "input_tool_error" : "input_too_large", NULL, 0);
	return (-1);
}

/* A tool's index among all tools: how dockerd-client knows it. */
static uint32_t
gw_tool_index(const struct conf_tool *t)
{
	const struct conf_tool	*u;
	uint32_t		 i = 0;

	TAILQ_FOREACH(u, &gw.conf->c_tools, entry) {
		if (u == t)
			return (i);
		i++;
	}
	fatalx("tool %s: not configured", t->name);
}

static void
gw_reply(enum gw_verdict verdict, enum reply_code code,
    const char *reason, const char *result, size_t len)
{
	struct gw_reply	*gp = gw.reply;

	if (len > gw.resultsz)
		fatalx("reply too large");
	memset(gp, 0, sizeof(*gp));
	gp->gp_verdict = verdict;
	gp->gp_code = code;
	(void)strlcpy(gp->gp_reason, reason, sizeof(gp->gp_reason));
	gp->gp_resultlen = len;
	if (len > 0)
		memcpy(gp + 1, result, len);
	proc_compose(PROC_BRIDGE, IMSG_GW_REPLY, gp, sizeof(*gp) + len);
	/* Out now, not on the loop's next turn: the agent is waiting. */
	proc_flush(PROC_BRIDGE);
	if (len > 0)
		explicit_bzero(gp + 1, len);
}

/* The agent learns the kind of refusal, never the rule. */
static enum reply_code
gw_deny_code(enum gw_reason r)
{
	switch (r) {
	case GW_R_DEFAULT_BLOCK:
	case GW_R_RULE_BLOCK:
	case GW_R_RULE_ERROR:
		return (REPLY_DENIED);
	case GW_R_BUDGET:
		return (REPLY_BUDGET_EXHAUSTED);
	case GW_R_CEILING:
		return (REPLY_CEILING);
	case GW_R_REVOKED:
	case GW_R_CLOSED:
		return (REPLY_REVOKED);
	default:
		return (REPLY_INTERNAL);
	}
}

static struct gw_upstream *
gw_upstream(const struct conf_server *srv)
{
	size_t	 i;

	for (i = 0; i < gw.nup; i++)
		if (gw.up[i].u_srv == srv)
			return (&gw.up[i]);
	return (NULL);
}

static const char *
gw_mcp_reason(enum mcp_error e)
{
	if (e < MCP_OK || e >= MCP_E_MAX)
		return ("upstream_error");
	return (gw_mcp_reasons[e]);
}
