/*
 * The session as the parent runs it: its parameters from the
 * configuration, the payload, the start once every child and every
 * server is ready (or the refusal), the end once dockerd-client, the
 * bridge and the gateway have reported, the outcome and the summary
 * run prints, and the parent's own audit records (session start, end).
 */

#include <sys/types.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditclient.h"
#include "auditrec.h"
#include "config.h"
#include "../init/cmcp-init.h"
#include "control.h"
#include "json.h"
#include "log.h"
#include "mstime.h"
#include "parent.h"
#include "proc.h"

/* The outcomes and the exit status of run for each (cmcp-privsep(8)). */
static const struct {
	const char	*name;
	int		 status;
} parent_outcomes[OUTCOME_MAX] = {
	[OUTCOME_NONE] =		{ "none",		1 },
	[OUTCOME_COMPLETED] =		{ "completed",		0 },
	[OUTCOME_TIME_LIMIT] =		{ "time_limit",		2 },
	[OUTCOME_STDOUT_LIMIT] =	{ "stdout_limit",	3 },
	[OUTCOME_STDERR_LIMIT] =	{ "stderr_limit",	4 },
	[OUTCOME_STREAM_ERROR] =	{ "stream_error",	5 },
	[OUTCOME_ADMISSION_REFUSED] =	{ "admission_refused",	6 },
	[OUTCOME_INIT_FAILED] =		{ "init_failed",	7 },
	[OUTCOME_DOCKER_ERROR] =	{ "docker_error",	8 },
	[OUTCOME_CLEANUP_FAILED] =	{ "cleanup_failed",	9 },
	[OUTCOME_CHILD_DIED] =		{ "child_died",		10 },
	[OUTCOME_SIGNAL] =		{ "signal",		11 },
	[OUTCOME_VIOLATION] =		{ "violation",		12 },
	[OUTCOME_CALLS_LIMIT] =		{ "calls_limit",	13 },
	[OUTCOME_UPSTREAM_FAILED] =	{ "upstream_failed",	14 },
	[OUTCOME_UPSTREAM_REFUSED] =	{ "upstream_refused",	15 },
	[OUTCOME_WATCHDOG_STOP] =	{ "watchdog_stop",	16 },
	[OUTCOME_ACK_TIMEOUT] =		{ "ack_timeout",	17 },
	[OUTCOME_AUDIT_FAILED] =	{ "audit_failed",	18 },
};

/* How long the parent waits for the bridge's counts after the cleanup. */
#define PARENT_BRIDGE_WAIT_MS	1000

struct parent_session		 parent_sess;
static char			 parent_payload[AGENT_FRAME_BYTES];
static size_t			 parent_payloadlen;

static void	parent_sandbox_prepare(const struct cmcp_conf *);
static void	parent_server_ctr_prepare(const struct cmcp_conf *);
static void	parent_upstreams_refused(const char *);
static void	parent_upstreams_late(int, short, void *);
static void	parent_session_wait(int, short, void *);
static void	parent_session_finish(void);
static void	parent_gw_late(int, short, void *);
static int	parent_session_outcome(void);
static void	parent_session_report(void);
static void	parent_audit_record(struct audit_record *, enum audit_kind,
		    const char *);
static void	parent_session_ended(const struct audit_ack *, void *);
static void	parent_audit_failed(void *);

/*
 * Everything the session needs from the configuration, in the fixed
 * messages, before the configuration is freed: identifiers, the socket
 * as dockerd-client sees it, the container's profile, the budgets.
 */
void
parent_session_prepare(const struct cmcp_conf *conf)
{
	const struct conf_agent	*ag = &conf->c_agent;
	const struct conf_server *srv;
	struct session_docker	*sd = &parent_sess.sd;
	struct session_bridge	*sb = &parent_sess.sb;
	unsigned char		 rnd[16];
	const char		*base;
	size_t			 i;

	memset(sd, 0, sizeof(*sd));
	memset(sb, 0, sizeof(*sb));
	parent_instance_self(sd->sd_instance, sizeof(sd->sd_instance));
	arc4random_buf(rnd, sizeof(rnd));
	for (i = 0; i < sizeof(rnd); i++)
		(void)snprintf(sd->sd_session + 2 * i, 3, "%02x", rnd[i]);
	strlcpy(sb->sb_session, sd->sd_session, sizeof(sb->sb_session));

	if ((base = strrchr(conf->c_docker_socket, '/')) == NULL ||
	    base[1] == '\0' ||
	    strlcpy(sd->sd_socket, base, sizeof(sd->sd_socket)) >=
	    sizeof(sd->sd_socket) || strlen(base) >= 108)
		fatalx("docker socket: bad path");
	sd->sd_call_timeout_ms = conf->c_docker_timeout_ms;
	sd->sd_reap_only = parent_mode == MODE_REAP;
	if (parent_mode != MODE_RUN)
		return;

	if (strlcpy(sd->sd_init, conf->c_init, sizeof(sd->sd_init)) >=
	    sizeof(sd->sd_init) ||
	    strlcpy(sd->sd_image, ag->ctr.image, sizeof(sd->sd_image)) >=
	    sizeof(sd->sd_image))
		fatalx("agent: image or init path too long");
	if (ag->ctr.cmd.argc < 1 || ag->ctr.cmd.argc > SESSION_ARGV_MAX)
		fatalx("agent command: at most %d arguments", SESSION_ARGV_MAX);
	sd->sd_argc = ag->ctr.cmd.argc;
	for (i = 0; i < ag->ctr.cmd.argc; i++)
		if (strlcpy(sd->sd_argv[i], ag->ctr.cmd.argv[i],
		    sizeof(sd->sd_argv[i])) >= sizeof(sd->sd_argv[i]))
			fatalx("agent command: argument longer than %d bytes",
			    SESSION_ARG_BYTES - 1);
	sd->sd_uid = ag->ctr.uid;
	sd->sd_gid = ag->ctr.gid;
	sd->sd_memory_bytes = ag->ctr.memory_bytes;
	sd->sd_pids = ag->ctr.pids;
	sd->sd_nofile = ag->nofile;
	sd->sd_deadline_ms = ag->ctr.timeout_ms;
	sd->sd_relay = ag->relay;
#ifdef CMCP_TEST
	sd->sd_weaken = parent_test.weaken;
	sd->sd_noadmit = parent_test.noadmit;
#endif

	sb->sb_stdout_bytes = ag->stdout_bytes;
	sb->sb_stderr_bytes = ag->stderr_bytes;
	sb->sb_deadline_ms = (int64_t)ag->ctr.timeout_ms +
	    HOST_DEADLINE_SLACK_MS;
	sb->sb_frame_bytes = ag->frame_bytes;
	sb->sb_calls = ag->calls;
	sb->sb_protocol = ag->protocol;

	/* The watchdog's numbers (DESIGN 10), checked by parse.y. */
	sb->sb_pulse_ms = conf->c_wd.pulse_ms;
	sb->sb_ack_ms = conf->c_wd.ack_ms;
	parent_sess.sw.sw_lease_ms = conf->c_wd.lease_ms;
	sd->sd_stop_tries = conf->c_wd.stop_tries;
	sd->sd_stop_timeout_ms = conf->c_wd.stop_timeout_ms;
#ifdef CMCP_TEST
	sb->sb_noackcheck = parent_test.noackcheck;
	parent_sess.sw.sw_nostop = parent_test.nowatchdog;
#endif

	/*
	 * The gateway's handshakes take two operations per server, each
	 * bounded by the server's timeout; a call in flight at the end, one,
	 * and the acks of its records.
	 */
	parent_sess.up_wait_ms = 1000;
	parent_sess.gw_wait_ms = 1000 + AUDIT_ACK_WAIT_MS;
	TAILQ_FOREACH(srv, &conf->c_servers, entry) {
		parent_sess.up_wait_ms += 2 * (int64_t)srv->timeout_ms;
		/* A server's container is admitted and started first. */
		if (srv->image[0] != '\0')
			parent_sess.up_wait_ms += 4 *
			    (int64_t)conf->c_docker_timeout_ms;
		if (parent_sess.gw_wait_ms < 1000 + AUDIT_ACK_WAIT_MS +
		    (int64_t)srv->timeout_ms)
			parent_sess.gw_wait_ms = 1000 + AUDIT_ACK_WAIT_MS +
			    srv->timeout_ms;
	}
	/* After that the parent has started the session or refused it. */
	sd->sd_start_wait_ms = CHILD_READY_TIMEOUT_MS +
	    parent_sess.up_wait_ms + HOST_DEADLINE_SLACK_MS;
	parent_sandbox_prepare(conf);
	parent_server_ctr_prepare(conf);
}

/*
 * The servers that run in containers (server { image ... }), for
 * dockerd-client, by their index among all servers.  A server's
 * container lives from before the agent's to after it: its deadline is
 * the wait for the servers, the agent's timeout and the stop, with the
 * engine's time to create and remove containers on top.
 */
static void
parent_server_ctr_prepare(const struct cmcp_conf *conf)
{
	const struct conf_server	*srv;
	struct session_server		*sv;
	uint32_t			 idx = 0;
	size_t				 i;

	TAILQ_FOREACH(srv, &conf->c_servers, entry) {
		if (srv->image[0] == '\0') {
			idx++;
			continue;
		}
		if ((sv = reallocarray(parent_sess.sv, parent_sess.nsv + 1,
		    sizeof(*sv))) == NULL)
			fatal("reallocarray");
		parent_sess.sv = sv;
		sv = &parent_sess.sv[parent_sess.nsv++];
		memset(sv, 0, sizeof(*sv));
		sv->sv_index = idx++;
		if (strlcpy(sv->sv_name, srv->name, sizeof(sv->sv_name)) >=
		    sizeof(sv->sv_name) ||
		    strlcpy(sv->sv_image, srv->image, sizeof(sv->sv_image)) >=
		    sizeof(sv->sv_image))
			fatalx("server %s: name or image too long", srv->name);
		if (srv->cmd.argc < 1 || srv->cmd.argc > SESSION_ARGV_MAX)
			fatalx("server %s: at most %d arguments", srv->name,
			    SESSION_ARGV_MAX);
		sv->sv_argc = srv->cmd.argc;
		for (i = 0; i < srv->cmd.argc; i++)
			if (strlcpy(sv->sv_argv[i], srv->cmd.argv[i],
			    sizeof(sv->sv_argv[i])) >= sizeof(sv->sv_argv[i]))
				fatalx("server %s: argument longer than %d "
				    "bytes", srv->name, SESSION_ARG_BYTES - 1);
		sv->sv_uid = srv->user.uid;
		sv->sv_gid = srv->user.gid;
		sv->sv_memory_bytes = srv->memory_bytes;
		sv->sv_pids = srv->pids;
		sv->sv_nofile = CONF_SERVER_NOFILE;
		sv->sv_deadline_ms = parent_sess.up_wait_ms +
		    (int64_t)conf->c_agent.ctr.timeout_ms +
		    parent_sess.gw_wait_ms + 4 *
		    (int64_t)conf->c_docker_timeout_ms;
		if (sv->sv_deadline_ms > CMCP_INIT_MAX_MS)
			sv->sv_deadline_ms = CMCP_INIT_MAX_MS;
		if (srv->nmounts > SESSION_MOUNTS_MAX)
			fatalx("server %s: too many mounts", srv->name);
		sv->sv_nmounts = srv->nmounts;
		for (i = 0; i < srv->nmounts; i++) {
			if (strlcpy(sv->sv_mounts[i].sm_host,
			    srv->mounts[i].host,
			    sizeof(sv->sv_mounts[i].sm_host)) >=
			    sizeof(sv->sv_mounts[i].sm_host) ||
			    strlcpy(sv->sv_mounts[i].sm_target,
			    srv->mounts[i].target,
			    sizeof(sv->sv_mounts[i].sm_target)) >=
			    sizeof(sv->sv_mounts[i].sm_target))
				fatalx("server %s: mount path too long",
				    srv->name);
			sv->sv_mounts[i].sm_rw = srv->mounts[i].rw;
		}
	}
}

/*
 * The sandbox tools for dockerd-client, by their index among all tools
 * (the gateway names a run by it).  A sandbox run in flight at the end
 * is bounded by its input call, dockerd-client's end of the run and the
 * container's own deadline: the gateway's wait grows by that.
 */
static void
parent_sandbox_prepare(const struct cmcp_conf *conf)
{
	const struct conf_tool	*t;
	struct session_sandbox	*sx;
	uint32_t		 idx = 0;
	int64_t			 w;
	size_t			 i;

	TAILQ_FOREACH(t, &conf->c_tools, entry) {
		if (t->kind != TOOL_SANDBOX) {
			idx++;
			continue;
		}
		if ((sx = reallocarray(parent_sess.sx, parent_sess.nsx + 1,
		    sizeof(*sx))) == NULL)
			fatal("reallocarray");
		parent_sess.sx = sx;
		sx = &parent_sess.sx[parent_sess.nsx++];
		memset(sx, 0, sizeof(*sx));
		sx->sx_tool = idx++;
		if (strlcpy(sx->sx_image, t->ctr.image, sizeof(sx->sx_image)) >=
		    sizeof(sx->sx_image))
			fatalx("tool %s: image too long", t->name);
		if (t->ctr.cmd.argc < 1 || t->ctr.cmd.argc > SESSION_ARGV_MAX)
			fatalx("tool %s: at most %d arguments", t->name,
			    SESSION_ARGV_MAX);
		sx->sx_argc = t->ctr.cmd.argc;
		for (i = 0; i < t->ctr.cmd.argc; i++)
			if (strlcpy(sx->sx_argv[i], t->ctr.cmd.argv[i],
			    sizeof(sx->sx_argv[i])) >= sizeof(sx->sx_argv[i]))
				fatalx("tool %s: argument longer than %d "
				    "bytes", t->name, SESSION_ARG_BYTES - 1);
		sx->sx_uid = t->ctr.uid;
		sx->sx_gid = t->ctr.gid;
		sx->sx_memory_bytes = t->ctr.memory_bytes;
		sx->sx_pids = t->ctr.pids;
		sx->sx_deadline_ms = t->ctr.timeout_ms;
		sx->sx_output_bytes = t->output_bytes;
		sx->sx_source_bytes = t->source_bytes;
		sx->sx_input_bytes = t->input_bytes;
		w = 1000 + AUDIT_ACK_WAIT_MS + (int64_t)t->ctr.timeout_ms +
		    SANDBOX_END_WAIT_MS;
		if (t->input_tool != NULL && t->input_tool->server != NULL)
			w += t->input_tool->server->timeout_ms;
		if (parent_sess.gw_wait_ms < w)
			parent_sess.gw_wait_ms = w;
	}
}

/*
 * The initial payload (-p): the operator's JSON, "{}" without -p, kept in
 * the canonical form the agent will see.  It must fit the initial frame,
 * {"payload":...} within the agent's frame bound.
 */
void
parent_payload_read(const struct cmcp_conf *conf, const char *path)
{
	static char		 raw[AGENT_FRAME_BYTES + 1];
	struct json_limits	 lim;
	const char		*why;
	size_t			 len = 0, max;
	ssize_t			 n;
	int			 fd;

	if (conf->c_agent.frame_bytes <= AGENT_PAYLOAD_WRAP_BYTES ||
	    conf->c_agent.frame_bytes > AGENT_FRAME_BYTES)
		fatalx("agent frame bound out of range");
	max = conf->c_agent.frame_bytes - AGENT_PAYLOAD_WRAP_BYTES;
	if (path == NULL) {
		path = "(none)";
		len = strlcpy(raw, "{}", sizeof(raw));
	} else {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			fatal("payload %s", path);
		while (len < sizeof(raw) &&
		    (n = read(fd, raw + len, sizeof(raw) - len)) != 0) {
			if (n == -1) {
				if (errno == EINTR)
					continue;
				fatal("payload %s", path);
			}
			len += n;
		}
		(void)close(fd);
		if (len == sizeof(raw))
			fatalx("payload %s: larger than %d bytes", path,
			    AGENT_FRAME_BYTES);
	}
	lim.max_bytes = len;
	lim.max_depth = JSON_DEPTH_MAX - 1;
	if (json_canonical(raw, len, &lim, parent_payload,
	    max + 1, &parent_payloadlen,
	    &why) == -1)
		fatalx("payload %s: %s (at most %zu bytes in canonical form)",
		    path, why, max);
	explicit_bzero(raw, len);
}

/* The session's timers and the audit client, once the event loop is there. */
void
parent_session_init(void)
{
	evtimer_set(&parent_sess.ev_wait, parent_session_wait, NULL);
	evtimer_set(&parent_sess.ev_gwwait, parent_gw_late, NULL);
	evtimer_set(&parent_sess.ev_upwait, parent_upstreams_late, NULL);
	auditc_init(parent_audit_failed, NULL);
}

/* The bridge learns its budgets before dockerd-client starts anything. */
void
parent_session_begin(void)
{
	struct audit_record	 ar;
	struct timeval		 tv;
	size_t			 i;

#ifdef CMCP_TEST
	if (parent_mode == MODE_IDLE)
		return;
#endif
	parent_sess.begun = 1;
	if (parent_mode == MODE_RUN) {
		log_info("session %s", parent_sess.sd.sd_session);
		parent_audit_record(&ar, AUDIT_K_SESSION_START, "");
		(void)auditc_send(&ar);
		/* The lease runs from here; the bridge pulses from here. */
		proc_compose(PROC_WATCHDOG, IMSG_SESSION_WATCHDOG,
		    &parent_sess.sw, sizeof(parent_sess.sw));
		proc_compose(PROC_BRIDGE, IMSG_SESSION_BRIDGE, &parent_sess.sb,
		    sizeof(parent_sess.sb));
		/* The bridge writes it, the gateway labels it. */
		proc_compose(PROC_BRIDGE, IMSG_SESSION_PAYLOAD, parent_payload,
		    parent_payloadlen);
		proc_compose(PROC_GATEWAY, IMSG_GW_SESSION,
		    parent_sess.sd.sd_session, sizeof(parent_sess.sd.sd_session));
		control_session(parent_sess.sd.sd_session);
		proc_compose(PROC_GATEWAY, IMSG_SESSION_PAYLOAD, parent_payload,
		    parent_payloadlen);
		explicit_bzero(parent_payload, parent_payloadlen);
		ms_to_timeval(parent_sess.up_wait_ms, &tv);
		if (evtimer_add(&parent_sess.ev_upwait, &tv) == -1)
			fatalx("evtimer_add failed");
	}
	proc_compose(PROC_DOCKER, IMSG_SESSION_DOCKER, &parent_sess.sd,
	    sizeof(parent_sess.sd));
	for (i = 0; i < parent_sess.nsx; i++)
		proc_compose(PROC_DOCKER, IMSG_SESSION_SANDBOX,
		    &parent_sess.sx[i], sizeof(parent_sess.sx[i]));
	for (i = 0; i < parent_sess.nsv; i++)
		proc_compose(PROC_DOCKER, IMSG_SESSION_SERVER,
		    &parent_sess.sv[i], sizeof(parent_sess.sv[i]));
}

/* The gateway's verdict on its servers: start the session, or refuse. */
void
parent_upstreams(struct imsg *imsg)
{
	struct gw_upstreams	 gu;

	if (imsg_get_data(imsg, &gu, sizeof(gu)) == -1 ||
	    !parent_reason_ok(gu.gu_reason, sizeof(gu.gu_reason)) ||
	    parent_sess.upstreams != 0)
		fatalx("channel gateway: bad upstreams message");
	if (parent_mode != MODE_RUN) {
		parent_sess.upstreams = 1;
		return;
	}
	if (evtimer_del(&parent_sess.ev_upwait) == -1)
		fatalx("evtimer_del failed");
	if (!gu.gu_ok) {
		parent_upstreams_refused(gu.gu_reason[0] != '\0' ?
		    gu.gu_reason : "upstream_refused");
		return;
	}
	parent_sess.upstreams = 1;
	log_debug("session %s: servers ready", parent_sess.sd.sd_session);
	parent_start_children();
}

/* Nothing starts: dockerd-client removes the container it created. */
static void
parent_upstreams_refused(const char *reason)
{
	if (parent_sess.upstreams != 0)
		return;
	parent_sess.upstreams = -1;
	(void)strlcpy(parent_sess.up_reason, reason,
	    sizeof(parent_sess.up_reason));
	log_warnx("session %s: servers refused: %s",
	    parent_sess.sd.sd_session, reason);
	if (!parent_sess.begun || parent_sess.ended ||
	    !parent_children[PROC_DOCKER].pc_alive)
		return;
	/* dockerd-client takes a stop only once it left its reap phase. */
	if (parent_sess.reaped)
		proc_compose(PROC_DOCKER, IMSG_SESSION_STOP, NULL, 0);
	else
		parent_sess.stop_pending = 1;
}

static void
parent_upstreams_late(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	parent_upstreams_refused("upstreams_late");
}

/* A signal: the container goes first, then the suite. */
void
parent_session_stop(void)
{
	struct timeval	 tv;

	log_info("session %s: stopping on a signal",
	    parent_sess.sd.sd_session);
	parent_sess.signalled = 1;
	proc_compose(PROC_DOCKER, IMSG_SESSION_STOP, NULL, 0);
	ms_to_timeval(DKR_CLEANUP_GRACE_MS, &tv);
	if (evtimer_add(&parent_sess.ev_wait, &tv) == -1)
		fatalx("evtimer_add failed");
}

/*
 * The session is over once dockerd-client reported its cleanup and, when
 * the bridge had the stream, the bridge its counts (which come first;
 * the wait for them is bounded all the same).
 */
void
parent_session_check(void)
{
	struct timeval	 tv;

	if (parent_sess.ended || !parent_sess.have_docker)
		return;
	if (parent_sess.docker.dr_streamed && !parent_sess.have_bridge &&
	    !parent_sess.signalled) {
		ms_to_timeval(PARENT_BRIDGE_WAIT_MS, &tv);
		if (evtimer_add(&parent_sess.ev_wait, &tv) == -1)
			fatalx("evtimer_add failed");
		return;
	}
	parent_session_finish();
}

static void
parent_session_wait(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	if (parent_sess.ended)
		return;
	log_warnx("session %s: %s did not report in time",
	    parent_sess.sd.sd_session,
	    proc_title(parent_sess.have_docker ? PROC_BRIDGE : PROC_DOCKER));
	parent_session_finish();
}

/*
 * The container is gone and counted.  The gateway closes its upstreams
 * and reports its counts (bounded: a call in flight ends at its server's
 * deadline); then the servers are closed and the summary printed.
 */
static void
parent_session_finish(void)
{
	struct timeval	 tv;

	if (parent_sess.ended || parent_sess.gw_end_sent)
		return;
	if (parent_mode == MODE_RUN &&
	    parent_children[PROC_GATEWAY].pc_alive &&
	    proc_chan_isopen(PROC_GATEWAY)) {
		parent_sess.gw_end_sent = 1;
		proc_compose(PROC_GATEWAY, IMSG_GW_END, NULL, 0);
		ms_to_timeval(parent_sess.gw_wait_ms, &tv);
		if (evtimer_add(&parent_sess.ev_gwwait, &tv) == -1)
			fatalx("evtimer_add failed");
		return;
	}
	parent_session_end();
	parent_stop();
}

void
parent_gw_result(struct imsg *imsg)
{
	struct gw_result	 gr;

	if (!parent_sess.gw_end_sent || parent_sess.have_gw ||
	    imsg_get_data(imsg, &gr, sizeof(gr)) == -1 ||
	    gr.gr_allowed > gr.gr_calls || gr.gr_denied > gr.gr_calls ||
	    (gr.gr_audit_failed != 0 && gr.gr_audit_failed != 1))
		fatalx("channel gateway: bad result");
	parent_sess.gw = gr;
	parent_sess.have_gw = 1;
	if (evtimer_del(&parent_sess.ev_gwwait) == -1)
		fatalx("evtimer_del failed");
	if (parent_sess.ended)
		return;
	parent_session_end();
	parent_stop();
}

static void
parent_gw_late(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	if (parent_sess.ended)
		return;
	log_warnx("session %s: gateway did not report in time",
	    parent_sess.sd.sd_session);
	parent_session_end();
	parent_stop();
}

/*
 * The session is over: set the exit status, record the end, and print the
 * summary once the record is durable (or cannot be).
 */
void
parent_session_end(void)
{
	struct session_summary	*ss;
	struct audit_record	 ar;

	if (parent_sess.ended)
		return;
	parent_sess.ended = 1;
	if (evtimer_del(&parent_sess.ev_wait) == -1)
		fatalx("evtimer_del failed");

	if (parent_mode == MODE_REAP) {
		if (parent_sess.have_docker &&
		    parent_sess.docker.dr_outcome == OUTCOME_NONE) {
			printf("{\"reaped\":%u}\n", parent_sess.docker.dr_reaped);
			parent_status = 0;
		} else {
			log_warnx("reap: %s", parent_sess.have_docker ?
			    parent_sess.docker.dr_why : "no result");
			parent_status = parent_outcomes[
			    OUTCOME_DOCKER_ERROR].status;
		}
		if (fflush(stdout) == EOF)
			log_warn("stdout");
		return;
	}

	if (parent_servers_close() == -1)
		parent_sess.servers_left = 1;
	ss = &parent_sess.summary;
	memset(ss, 0, sizeof(*ss));
	strlcpy(ss->ss_session, parent_sess.sd.sd_session,
	    sizeof(ss->ss_session));
	ss->ss_outcome = parent_session_outcome();
	ss->ss_exit = parent_sess.have_docker ? parent_sess.docker.dr_exit :
	    -1;
	if (parent_sess.have_bridge) {
		ss->ss_stdout_bytes = parent_sess.bridge.br_stdout_bytes;
		ss->ss_stderr_bytes = parent_sess.bridge.br_stderr_bytes;
	}
	if (parent_sess.have_gw) {
		ss->ss_calls = parent_sess.gw.gr_calls;
		ss->ss_allowed = parent_sess.gw.gr_allowed;
		ss->ss_denied = parent_sess.gw.gr_denied;
	}
	if (parent_sess.upstreams == -1)
		strlcpy(ss->ss_reason, parent_sess.up_reason,
		    sizeof(ss->ss_reason));
	else if (parent_sess.have_bridge)
		strlcpy(ss->ss_reason, parent_sess.bridge.br_reason,
		    sizeof(ss->ss_reason));
	parent_status = parent_outcomes[ss->ss_outcome].status;

	/* The summary carries the chain's tip: the session_end record's. */
	parent_audit_record(&ar, AUDIT_K_SESSION_END,
	    parent_outcomes[ss->ss_outcome].name);
	if (auditc_durable(&ar, parent_session_ended, NULL) != 0) {
		parent_sess.audit_wait = 1;
		return;
	}
	parent_session_report();
}

/* Print the summary once; a session_end record not acked has no tip. */
static void
parent_session_report(void)
{
	struct session_summary	*ss = &parent_sess.summary;

	parent_sess.audit_wait = 0;
	if (parent_sess.have_docker && parent_sess.docker.dr_why[0] != '\0')
		log_info("session %s: %s", ss->ss_session,
		    parent_sess.docker.dr_why);
	log_info("session %s: %s", ss->ss_session,
	    parent_outcomes[ss->ss_outcome].name);
	if (ss->ss_tip[0] != '\0')
		log_info("session %s: audit tip %s", ss->ss_session,
		    ss->ss_tip);
	else
		log_warnx("session %s: session end not in the audit log",
		    ss->ss_session);
	printf("{\"session\":\"%s\",\"outcome\":\"%s\",\"reason\":\"%s\","
	    "\"exit\":%lld,\"calls\":%llu,\"allowed\":%llu,\"denied\":%llu,"
	    "\"stdout_bytes\":%llu,\"stderr_bytes\":%llu,"
	    "\"audit_tip\":%s%s%s}\n", ss->ss_session,
	    parent_outcomes[ss->ss_outcome].name, ss->ss_reason,
	    (long long)ss->ss_exit, (unsigned long long)ss->ss_calls,
	    (unsigned long long)ss->ss_allowed,
	    (unsigned long long)ss->ss_denied,
	    (unsigned long long)ss->ss_stdout_bytes,
	    (unsigned long long)ss->ss_stderr_bytes,
	    ss->ss_tip[0] != '\0' ? "\"" : "",
	    ss->ss_tip[0] != '\0' ? ss->ss_tip : "null",
	    ss->ss_tip[0] != '\0' ? "\"" : "");
	if (fflush(stdout) == EOF)
		log_warn("stdout");
	/* In a teardown, the auditor was kept for this record. */
	if (parent_state == PARENT_TEARDOWN &&
	    parent_children[PROC_AUDITOR].pc_alive &&
	    kill(parent_children[PROC_AUDITOR].pc_pid, SIGTERM) == -1 &&
	    errno != ESRCH)
		fatal("kill auditor");
}

/*
 * One outcome from what each side saw, the graver cause first: a dead
 * child or an unconfirmed cleanup, then the operator's signal, a refusal
 * before the stream, a limit the bridge enforced, and last how the
 * container itself ended (cmcp-init's status).
 */
static int
parent_session_outcome(void)
{
	const struct dkr_result		*dr = &parent_sess.docker;
	const struct bridge_result	*br = &parent_sess.bridge;

	if (parent_sess.child_died)
		return (OUTCOME_CHILD_DIED);
	if (!parent_sess.have_docker || !dr->dr_gone ||
	    dr->dr_outcome == OUTCOME_CLEANUP_FAILED ||
	    parent_sess.servers_left)
		return (OUTCOME_CLEANUP_FAILED);
	if (parent_sess.signalled)
		return (OUTCOME_SIGNAL);
	if (parent_sess.upstreams == -1)
		return (OUTCOME_UPSTREAM_REFUSED);
	/* The stream's end that follows says nothing about the agent. */
	if (dr->dr_outcome == OUTCOME_WATCHDOG_STOP)
		return (OUTCOME_WATCHDOG_STOP);
	/* The bridge saw an upstream failure; the gateway knows why. */
	if (parent_sess.have_gw && parent_sess.gw.gr_audit_failed)
		return (OUTCOME_AUDIT_FAILED);
	if (!dr->dr_admitted)
		return (dr->dr_outcome == OUTCOME_NONE ||
		    dr->dr_outcome == OUTCOME_COMPLETED ? OUTCOME_DOCKER_ERROR :
		    dr->dr_outcome);
	if (parent_sess.have_bridge && br->br_outcome != OUTCOME_COMPLETED)
		return (br->br_outcome);
	switch (dr->dr_outcome) {
	case OUTCOME_TIME_LIMIT:
	case OUTCOME_INIT_FAILED:
	case OUTCOME_COMPLETED:
		return (parent_sess.have_bridge ? dr->dr_outcome :
		    OUTCOME_DOCKER_ERROR);
	default:
		return (OUTCOME_DOCKER_ERROR);
	}
}

/*
 * The session's outcome already says that this child stopped answering
 * (DESIGN 10): the bridge after watchdog_stop, the watchdog after
 * ack_timeout.  Killing it at the shutdown then leaves run's status to
 * the outcome.
 */
int
parent_hung_known(enum cmcp_proc id)
{
	if (!parent_sess.ended)
		return (0);
	switch (parent_sess.summary.ss_outcome) {
	case OUTCOME_WATCHDOG_STOP:
		return (id == PROC_BRIDGE);
	case OUTCOME_ACK_TIMEOUT:
		return (id == PROC_WATCHDOG);
	default:
		return (0);
	}
}

/* A record of the session's own (start, end); the reason is the outcome. */
static void
parent_audit_record(struct audit_record *ar, enum audit_kind kind,
    const char *reason)
{
	audit_record_init(ar, kind, AUDIT_D_NONE);
	if (audit_record_set(ar, AUDIT_F_SESSION,
	    parent_sess.sd.sd_session) == -1 ||
	    audit_record_set(ar, AUDIT_F_REASON, reason) == -1)
		fatalx("audit: bad session record");
}

/* The session's end is durable: the summary carries it as the tip. */
static void
parent_session_ended(const struct audit_ack *aa, void *arg)
{
	struct audit_tip	 tip;

	(void)arg;
	if (!parent_sess.audit_wait)
		return;
	tip.at_seq = aa->aa_seq;
	memcpy(tip.at_hash, aa->aa_hash, sizeof(tip.at_hash));
	audit_tip_format(&tip, parent_sess.summary.ss_tip,
	    sizeof(parent_sess.summary.ss_tip));
	parent_session_report();
}

/* No ack in time or no auditor: the summary goes without a tip. */
static void
parent_audit_failed(void *arg)
{
	(void)arg;
	if (parent_sess.audit_wait)
		parent_session_report();
}
