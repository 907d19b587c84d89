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
 * An upstream call blocks the process in poll(2) until its deadline (the
 * server's timeout): requests are decided one at a time anyway, and the
 * parent, bridge and dockerd-client keep their own clocks.  Requests are
 * one at a time because the bridge forwards the next only after the reply
 * to the last; a PolicyGate update will have to wait for a call in
 * flight, as policy.h describes.
 */

#include <sys/types.h>

#include <errno.h>
#include <event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "frame.h"
#include "json.h"
#include "log.h"
#include "mcp.h"
#include "policy.h"
#include "proc.h"
#include "sandbox.h"
#include "sha256.h"

/* The reply line around a result: {"ok":true,"result": ... } */
#define GW_REPLY_WRAP_BYTES	(sizeof("{\"ok\":true,\"result\":}") - 1)

struct gw_upstream {
	const struct conf_server *u_srv;
	struct mcp_client	 u_mc;
};

static struct {
	struct cmcp_conf	*conf;
	struct gw_session	 s;
	struct gw_upstream	 up[CONF_SERVERS_MAX];
	size_t			 nup;
	int			 checked;	/* upstreams initialized */
	int			 refused;	/* ... and found wanting */
	int			 labelled;	/* initial payload admitted */
	int			 failed;	/* upstream unsafe: no more calls */
	int			 ended;		/* IMSG_GW_END */
	struct gw_result	 res;
	uint8_t			 payload_digest[SHA256_DIGEST_BYTES];
	char			*result;	/* one tool result */
	size_t			 resultsz;
	struct gw_reply		*reply;		/* header and result */
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
	[MCP_E_CHANGED] =		"upstream_changed",
	[MCP_E_CLOSED] =		"upstream_closed",
	[MCP_E_NOTIFICATIONS] =		"upstream_notifications",
	[MCP_E_SERVER_REQUEST] =	"upstream_server_request",
	[MCP_E_NOT_ALLOWED] =		"upstream_not_allowed",
	[MCP_E_ARGS] =			"upstream_args",
	[MCP_E_STATE] =			"upstream_state",
	[MCP_E_INVAL] =			"upstream_inval",
	[MCP_E_SYSTEM] =		"upstream_system",
};

static uint32_t	gw_config_recv(void);
static void	gw_servers_recv(uint32_t);
static void	gw_dispatch_parent(struct imsg *);
static void	gw_dispatch_bridge(struct imsg *);
static void	gw_dispatch_auditor(struct imsg *);
static void	gw_dispatch_docker(struct imsg *);
static void	gw_upstreams_start(int, short, void *);
static void	gw_payload(struct imsg *);
static void	gw_end(void);
static void	gw_request(struct imsg *);
static int	gw_audit_decision(const struct gw_decision *, const char *,
		    size_t);
static void	gw_call(const struct gw_decision *, const char *, size_t);
static void	gw_reply(enum gw_verdict, enum bridge_reply_code,
		    const char *, const char *, size_t);
static enum bridge_reply_code gw_deny_code(enum gw_reason);
static struct gw_upstream *gw_upstream(const struct conf_server *);
static const char *gw_mcp_reason(enum mcp_error);

/*
 * The gateway's system calls on top of the baseline of common/sandbox.c,
 * measured with strace -ff over whole sessions with the recorder and
 * the hostile servers: the MCP client waits in poll (baseline) and
 * reads the monotonic clock, which the vDSO serves unless the clock
 * source has none.  Opening files and sockets fails softly; anything
 * else kills.
 */
static const struct sandbox_rule gw_sandbox[] = {
	SB_ALLOW(clock_gettime),
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler gw_handlers[] = {
	{ PROC_PARENT,	gw_dispatch_parent },
	{ PROC_BRIDGE,	gw_dispatch_bridge },
	{ PROC_AUDITOR,	gw_dispatch_auditor },
	{ PROC_DOCKER,	gw_dispatch_docker },
};

void
gw_main(const struct ctl_init *ci)
{
	struct timeval	 now = { 0, 0 };

	/* Still root and outside the chroot: /proc is there to parse. */
	gw_servers_recv(gw_config_recv());
	priv_drop(PROC_GATEWAY, ci);
	proc_listen(gw_handlers, nitems(gw_handlers));
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
 * with every include and macro already resolved.  Returns the number of
 * servers whose pipes follow: all of them in a session, else none.
 */
static uint32_t
gw_config_recv(void)
{
	struct imsg	 imsg;
	char		 path[64];
	uint32_t	 n;
	int		 fd;

	proc_recv_early(IMSG_GW_CONFIG, &imsg);
	if (imsg_get_data(&imsg, &n, sizeof(n)) == -1 ||
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

	/* The largest result that still fits a reply line. */
	gw.resultsz = gw.conf->c_agent.frame_bytes - GW_REPLY_WRAP_BYTES;
	if (gw.conf->c_agent.frame_bytes <= GW_REPLY_WRAP_BYTES ||
	    gw.conf->c_agent.frame_bytes > AGENT_FRAME_BYTES)
		fatalx("configuration: bad frame bound");
	if ((gw.result = malloc(gw.resultsz)) == NULL ||
	    (gw.reply = malloc(sizeof(*gw.reply) + gw.resultsz)) == NULL)
		fatal("malloc");
	return (n);
}

/*
 * Two descriptors per server, in the order of the configuration: its
 * standard input, then its standard output.  The client takes them over
 * (non-blocking) and learns the configured tool names now; nothing is
 * sent before the sandbox.
 */
static void
gw_servers_recv(uint32_t nservers)
{
	const struct conf_server	*srv;
	const struct conf_tool		*t;
	struct gw_upstream		*up;
	struct gw_server_fd		 gs;
	struct mcp_limits		 lim;
	struct imsg			 imsg;
	enum mcp_error			 e;
	int				 fds[2];
	uint32_t			 dir;

	if (nservers == 0)
		return;
	TAILQ_FOREACH(srv, &gw.conf->c_servers, entry) {
		if (gw.nup == nitems(gw.up) || gw.nup == nservers)
			fatalx("channel parent: too few servers");
		for (dir = 0; dir < 2; dir++) {
			proc_recv_early(IMSG_GW_SERVER, &imsg);
			if (imsg_get_data(&imsg, &gs, sizeof(gs)) == -1 ||
			    gs.gs_index != gw.nup || gs.gs_dir != dir ||
			    (fds[dir] = imsg_get_fd(&imsg)) == -1)
				fatalx("channel parent: bad server message");
			imsg_free(&imsg);
		}
		up = &gw.up[gw.nup++];
		up->u_srv = srv;
		memset(&lim, 0, sizeof(lim));
		lim.timeout_ms = srv->timeout_ms;
		lim.response_bytes = srv->response_bytes;
		lim.tools = srv->tools;
		lim.pages = srv->pages;
		if ((e = mcp_open(&up->u_mc, fds[0], fds[1], &lim)) != MCP_OK)
			fatalx("server %s: %s", srv->name, mcp_strerror(e));
		TAILQ_FOREACH(t, &gw.conf->c_tools, entry) {
			if (t->kind != TOOL_MCP || t->server != srv)
				continue;
			if ((e = mcp_allow(&up->u_mc, t->remote)) != MCP_OK)
				fatalx("server %s: tool %s: %s", srv->name,
				    t->remote, mcp_strerror(e));
		}
	}
	if (gw.nup != nservers)
		fatalx("channel parent: too many servers");
}

static void
gw_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_START:
		log_debug("started");
		break;
	case IMSG_CTL_STOPPING:
		proc_stopping();
		break;
	case IMSG_CTL_SHUTDOWN:
		proc_shutdown();
		/* NOTREACHED */
	case IMSG_SESSION_PAYLOAD:
		gw_payload(imsg);
		break;
	case IMSG_GW_END:
		gw_end();
		break;
#ifdef CMCP_TEST
	case IMSG_CTL_PROBE:
		proc_probe(imsg);
		break;
#endif
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

static void
gw_dispatch_auditor(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_AUDITOR, imsg);
}

static void
gw_dispatch_docker(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_DOCKER, imsg);
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
	struct gw_upstreams	 gu;
	const char		*reason = NULL;
	enum mcp_error		 e;
	size_t			 i;

	(void)fd;
	(void)event;
	(void)arg;
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
	TAILQ_FOREACH(t, &gw.conf->c_tools, entry)
		if (t->kind == TOOL_SANDBOX)
			log_warnx("tool %s: sandbox tools are not available "
			    "in this version; its calls fail", t->name);

	memset(&gu, 0, sizeof(gu));
	gu.gu_ok = reason == NULL;
	(void)strlcpy(gu.gu_reason, reason == NULL ? "" : reason,
	    sizeof(gu.gu_reason));
	gw.checked = 1;
	gw.refused = reason != NULL;
	proc_compose(PROC_PARENT, IMSG_GW_UPSTREAMS, &gu, sizeof(gu));
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

/*
 * The session is over: close every upstream (its end of file is the
 * polite close of MCP stdio, before the parent's signals) and report the
 * counts.
 */
static void
gw_end(void)
{
	size_t	 i;

	if (gw.ended)
		fatalx("channel parent: session ended twice");
	gw.ended = 1;
	for (i = 0; i < gw.nup; i++)
		mcp_close(&gw.up[i].u_mc);
	proc_compose(PROC_PARENT, IMSG_GW_RESULT, &gw.res, sizeof(gw.res));
	log_debug("session ended: %llu calls, %llu allowed, %llu denied",
	    (unsigned long long)gw.res.gr_calls,
	    (unsigned long long)gw.res.gr_allowed,
	    (unsigned long long)gw.res.gr_denied);
}

/*
 * One validated request from the bridge (DESIGN 5 step 6): decide it,
 * and call the tool when it is allowed.  A denial is a reply and the
 * agent may go on; an unknown operation is a violation.
 */
static void
gw_request(struct imsg *imsg)
{
	struct gw_request	 rq;
	struct gw_decision	 d;
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
	if (!gw.checked || gw.refused || !gw.labelled)
		fatalx("channel bridge: request before the session");
	if (gw.ended || gw.failed) {
		gw_reply(GW_VERDICT_FAILED, REPLY_INTERNAL, "session_over",
		    NULL, 0);
		return;
	}

	gw.res.gr_calls++;
	gw_decide(gw.conf, &gw.s, rq.gq_operation, args, rq.gq_arglen, &d);
	if (d.violation) {
		gw.res.gr_denied++;
		log_info("request %llu: %s", (unsigned long long)
		    gw.res.gr_calls, gw_reason_str(d.reason));
		gw_reply(GW_VERDICT_VIOLATION, REPLY_UNKNOWN_OPERATION,
		    gw_reason_str(d.reason), NULL, 0);
		return;
	}
	if (!d.allowed) {
		gw.res.gr_denied++;
		log_info("request %llu: operation %s: %s (rule %u)",
		    (unsigned long long)gw.res.gr_calls, d.op->name,
		    gw_reason_str(d.reason), d.rule);
		gw_reply(GW_VERDICT_REPLY, gw_deny_code(d.reason),
		    gw_reason_str(d.reason), NULL, 0);
		return;
	}
	if (d.tool->kind != TOOL_MCP) {
		gw.res.gr_denied++;
		log_warnx("request %llu: operation %s: tool %s unavailable",
		    (unsigned long long)gw.res.gr_calls, d.op->name,
		    d.tool->name);
		gw_reply(GW_VERDICT_REPLY, REPLY_UPSTREAM_ERROR,
		    "tool_unavailable", NULL, 0);
		return;
	}
	if (gw_audit_decision(&d, args, rq.gq_arglen) == -1) {
		gw.failed = 1;
		gw_reply(GW_VERDICT_FAILED, REPLY_INTERNAL, "audit_failed",
		    NULL, 0);
		return;
	}
	if (gw_commit_allowed(&gw.s, &d) == -1) {
		gw.res.gr_denied++;
		gw_reply(GW_VERDICT_REPLY, REPLY_INTERNAL, "internal_error",
		    NULL, 0);
		return;
	}
	gw.res.gr_allowed++;
	gw_call(&d, args, rq.gq_arglen);
}

/*
 * AUDIT POINT.  audit before act: issue 5 -- the decision record goes to
 * the auditor here and the call waits for its acknowledgement
 * (IMSG_AUDIT_RECORD, IMSG_AUDIT_ACK; common/auditrec.h builds the
 * record).  Until then nothing is sent and the call proceeds; -1 would
 * end the session without calling.
 */
static int
gw_audit_decision(const struct gw_decision *d, const char *args,
    size_t arglen)
{
	(void)d;
	(void)args;
	(void)arglen;
	return (0);
}

/*
 * The upstream call, bounded by the server's timeout.  The result's label
 * raises the session label whether or not the tool reported an error:
 * something of the tool came back.  A failure after which the client is
 * dead makes the exchange unsafe and ends the session.
 */
static void
gw_call(const struct gw_decision *d, const char *args, size_t arglen)
{
	struct gw_upstream	*up;
	struct timespec		 t0, t1;
	size_t			 rlen = gw.resultsz;
	int			 iserr = 0;
	enum mcp_error		 e;

	if ((up = gw_upstream(d->tool->server)) == NULL)
		fatalx("tool %s: no upstream", d->tool->name);
	if (clock_gettime(CLOCK_MONOTONIC, &t0) == -1)
		fatal("clock_gettime");
	e = mcp_call(&up->u_mc, d->tool->remote, args, arglen, gw.result,
	    &rlen, &iserr);
	if (clock_gettime(CLOCK_MONOTONIC, &t1) == -1)
		fatal("clock_gettime");
	if (e == MCP_OK) {
		(void)gw_result_label(&gw.s, d->tool);
		gw_reply(GW_VERDICT_REPLY, REPLY_OK, "allowed", gw.result,
		    rlen);
		log_debug("request %llu: operation %s: delivered, %zu bytes "
		    "back%s, session label %s, upstream %lld us",
		    (unsigned long long)gw.res.gr_calls, d->op->name, rlen,
		    iserr ? " (tool error)" : "",
		    gw.conf->c_labels[gw.s.s_label],
		    (long long)(t1.tv_sec - t0.tv_sec) * 1000000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000);
		return;
	}
	log_warnx("request %llu: operation %s: server %s: %s",
	    (unsigned long long)gw.res.gr_calls, d->op->name,
	    up->u_srv->name, mcp_strerror(e));
	if (up->u_mc.state != MCP_ST_DEAD) {
		/* A JSON-RPC error or an overlong result: read in full. */
		(void)gw_result_label(&gw.s, d->tool);
		gw_reply(GW_VERDICT_REPLY, REPLY_UPSTREAM_ERROR,
		    gw_mcp_reason(e), NULL, 0);
		return;
	}
	gw.failed = 1;
	gw_reply(GW_VERDICT_FAILED, e == MCP_E_TIMEOUT ?
	    REPLY_UPSTREAM_TIMEOUT : REPLY_UPSTREAM_ERROR, gw_mcp_reason(e),
	    NULL, 0);
}

static void
gw_reply(enum gw_verdict verdict, enum bridge_reply_code code,
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
static enum bridge_reply_code
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
