/*
 * dockerd-client: the only process that talks to Docker (DESIGN 3, 5, 7).
 * It runs with the socket's group as its one supplementary group, chrooted
 * into the directory of the socket, and reaches the engine by the socket's
 * base name.  Its filter lets it create AF_UNIX sockets and nothing else:
 * no file opens, no exec.
 *
 * One session: reap the leftovers of dead suite instances (by label
 * only), check the daemon, admit the image, create the container from the
 * fixed template, verify every field of the inspect document, attach, start,
 * verify again, and hand the attach stream to the bridge.  It never reads a
 * byte of that stream.  The approved servers that run in containers of
 * their own get the same steps as their messages come, before the
 * agent's container is created, and their streams go to the gateway.
 * When the session ends, for whatever reason, every container of it is
 * killed, deleted, and its absence confirmed by a 404 before the parent
 * hears the result.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditclient.h"
#include "auditrec.h"
#include "log.h"
#include "mstime.h"
#include "proc.h"
#include "sandbox.h"
#include "sha256.h"
#include "dkr.h"
#include "dkr_sandbox.h"
#include "dkr_seccomp.h"
#include "dkr_server.h"

/* After the end of the stream, the container is about to exit. */
#define DKR_WAIT_EXITED_MS	2000
#define DKR_SOCKET_DEFAULT	"/docker.sock"
#define DKR_REAP_TRIES		10	/* removal checks of one leftover */
#define DKR_REAP_WAIT_MS	100	/* between them */
/*
 * The workload's whole environment.  Without PATH the engine adds its
 * own; sending it keeps Config.Env exactly what admission expects.
 */
#define DKR_AGENT_ENV		"PATH=/usr/bin:/bin"

enum dkr_phase {
	DKR_IDLE,		/* no session asked for yet */
	DKR_REAPING,		/* waiting for the parent's verdict */
	DKR_ATTACHED,		/* created, verified, attached: waits for START */
	DKR_RUNNING,		/* the bridge has the stream */
	DKR_DONE,		/* cleaned up and reported */
};

struct dkr_session {
	enum dkr_phase		 phase;
	struct session_docker	 req;
	struct dkr_template	 tmpl;
	struct dkr_client	 client;
	char			 id[DKR_CONTAINER_ID_BYTES];	/* "" none */
	int			 go;		/* IMSG_CTL_START seen */
	struct event		 ev_go;		/* ... within the deadline */
	int			 fd;		/* attach stream until passed */
	struct bridge_stream	*head;		/* and its first bytes */
	struct dkr_result	 res;
	int			 daemon_ok;	/* the daemon check passed */
	int			 admission_durable; /* the bridge may admit */
	int			 report_wait;	/* report once all are acked */
	int			 exiting;	/* in atexit: records are moot */
};

static struct dkr_session	 dkr = { .fd = -1 };

/*
 * Sandbox runs for the gateway (DESIGN 11): the configured sandbox tools,
 * by their index among all tools, and the one run in progress.  The run's
 * attach stream goes to the gateway; this process never reads it.
 */
enum dkr_sb_phase {
	DKR_SB_IDLE,		/* no run */
	DKR_SB_STREAMING,	/* the gateway has the stream */
	DKR_SB_ABORTED,		/* the session ended under it: removed */
};

struct dkr_sbtool {
	uint32_t		 tool;
	struct dkr_sandbox_spec	 spec;
};

static struct {
	struct dkr_sbtool	*tools;
	size_t			 ntools;
	enum dkr_sb_phase	 phase;
	const struct dkr_sbtool	*cur;
	struct dkr_sandbox_started st;
	struct dkr_sandbox_result *res;		/* 64 KiB and more */
} dkr_sb = { .st = { .fd = -1 } };

/*
 * The servers' containers (server { image ... }), in the order their
 * messages came.  Each stream goes to the gateway once the server's
 * admission is durable and its start recorded; this process never reads
 * it.  All are removed at the session's end, whatever their phase.
 */
enum dkr_srv_phase {
	DKR_SRV_STARTING,	/* running, its records not yet committed */
	DKR_SRV_STREAMED,	/* the gateway has the stream */
	DKR_SRV_FAILED,		/* refused or failed: the gateway was told */
	DKR_SRV_ENDED,		/* the session ended under it */
};

struct dkr_srv {
	struct dkr_server	 sv;
	enum dkr_srv_phase	 phase;
	int			 admission_durable;
};

static struct {
	struct dkr_srv		*srv[DKR_SERVERS_MAX];
	size_t			 n;
} dkr_srvs;

/* What the bridge reports as the agent's violation, as audit codes. */
static const char *const dkr_violations[OUTCOME_MAX] = {
	[OUTCOME_TIME_LIMIT] = "time_limit",
	[OUTCOME_STDOUT_LIMIT] = "stdout_limit",
	[OUTCOME_STDERR_LIMIT] = "stderr_limit",
	[OUTCOME_STREAM_ERROR] = "stream_error",
	[OUTCOME_VIOLATION] = "violation",
	[OUTCOME_CALLS_LIMIT] = "calls_limit",
};

static void	dkr_dispatch_parent(struct imsg *);
static void	dkr_dispatch_bridge(struct imsg *);
static void	dkr_dispatch_gateway(struct imsg *);
static void	dkr_dispatch_watchdog(struct imsg *);
static void	dkr_ctl_start(void);
static void	dkr_stopping(void);
static void	dkr_shutdown(void);
static void	dkr_session_begin(struct imsg *);
static void	dkr_sb_tool(struct imsg *);
static void	dkr_sb_run(struct imsg *);
static void	dkr_sb_end(struct imsg *);
static void	dkr_sb_abort(void);
static void	dkr_sb_done(void);
static void	dkr_srv_begin(struct imsg *);
static int	dkr_srv_steps(struct dkr_srv *);
static void	dkr_srv_fail(struct dkr_srv *);
static void	dkr_srv_tell(struct dkr_srv *);
static void	dkr_srv_admission(const struct audit_ack *, void *);
static void	dkr_srv_pass(const struct audit_ack *, void *);
static int	dkr_srv_remove(struct dkr_srv *);
static void	dkr_srv_cleanup(void);
static void	dkr_srv_audit(const struct dkr_srv *, enum audit_kind,
		    enum audit_decision, const char *, const uint8_t *);
static void	dkr_reap_ask(void);
static int	dkr_reap_one(const char *);
static void	dkr_reap_dead(struct imsg *);
static void	dkr_session_prepare(void);
static void	dkr_session_start(void);
static void	dkr_go_late(int, short, void *);
static int	dkr_daemon_check(void);
static int	dkr_image_check(void);
static int	dkr_container_create(void);
static int	dkr_container_verify(int);
static int	dkr_stream_attach(void);
static void	dkr_session_end(int);
static void	dkr_cleanup(int);
static void	dkr_agent_cleanup(int);
static void	dkr_fail(int, const char *);
static void	dkr_atexit(void);
static int	dkr_template_fill(const struct session_docker *,
		    struct dkr_template *);
static void	dkr_report(void);
static void	dkr_admission(const struct audit_ack *, void *);
static void	dkr_admit(const struct audit_ack *, void *);
static void	dkr_reported(const struct audit_ack *, void *);
static void	dkr_audit_failed(void *);
static void	dkr_audit(enum audit_kind, enum audit_decision, const char *,
		    const uint8_t *);
static void	dkr_audit_record(struct audit_record *, enum audit_kind,
		    enum audit_decision, const char *, const uint8_t *);
static void	dkr_audit_code(const char *, char *, size_t);
static void	dkr_audit_seccomp(struct audit_record *);
static void	dkr_profile_digest(const struct dkr_template *, const char *,
		    uint8_t *);

/*
 * dockerd-client's system calls on top of the baseline of common/sandbox.c,
 * measured with strace -ff over whole sessions (libcurl 7.88.1 REST over
 * the unix socket with keep-alive, the raw attach, the descriptor passed
 * to the bridge, kill/delete/inspect at the end): socket, connect,
 * getsockname, getpeername, getsockopt, sendto, recvfrom, socketpair (its
 * wakeup pair), fcntl, futex, getpid.  socket and socketpair are allowed
 * for AF_UNIX only; any other family kills.  Memory: engine answers
 * (up to DKR_RESPONSE_MAX_BYTES) and libcurl's buffers come from the brk
 * heap like every allocation (sandbox_heap_init()); libcurl and its
 * libraries were mapped by dlopen before the filter and stay mapped, so
 * mmap and munmap are not needed.  Opening a file fails softly; exec
 * kills.
 */
static const struct sandbox_rule dkr_sandbox[] = {
	SB_ALLOW_ARG(socket, 0, AF_UNIX),
	SB_ALLOW_ARG(socketpair, 0, AF_UNIX),
	SB_ALLOW(connect),
	SB_ALLOW(getsockname),
	SB_ALLOW(getpeername),
	SB_ALLOW(getsockopt),
	SB_ALLOW(sendto),
	SB_ALLOW(recvfrom),
	SB_ALLOW(fcntl),
	SB_ALLOW(futex),
	SB_ALLOW(getpid),
	SB_EACCES(openat),
};

static const struct proc_handler dkr_handlers[] = {
	{ PROC_PARENT,	dkr_dispatch_parent },
	{ PROC_BRIDGE,	dkr_dispatch_bridge },
	{ PROC_GATEWAY,	dkr_dispatch_gateway },
	{ PROC_AUDITOR,	auditc_dispatch },
	{ PROC_WATCHDOG,	dkr_dispatch_watchdog },
};

static const struct proc_hooks dkr_hooks = {
	.ph_start = dkr_ctl_start,
	.ph_stopping = dkr_stopping,
	.ph_shutdown = dkr_shutdown,
};

void
dkr_main(const struct ctl_init *ci)
{
	/*
	 * libcurl is loaded here only (dkr_curl.c), and its global setup
	 * must happen before the chroot and the sandbox.
	 */
	if (dkr_curl_load() == -1)
		fatalx("cannot load libcurl");
	if (dkr_client_init(&dkr.client, DKR_SOCKET_DEFAULT) == -1)
		fatalx("%s", dkr.client.err);
	priv_drop(PROC_DOCKER, ci);
	proc_listen(dkr_handlers, nitems(dkr_handlers), &dkr_hooks);
	evtimer_set(&dkr.ev_go, dkr_go_late, NULL);
	auditc_init(dkr_audit_failed, NULL);
	if (atexit(dkr_atexit) != 0)
		fatalx("atexit failed");
	sandbox_apply(ci, dkr_sandbox, nitems(dkr_sandbox));
	proc_ready();
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

static void
dkr_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_SESSION_DOCKER:
		dkr_session_begin(imsg);
		break;
	case IMSG_SESSION_SANDBOX:
		dkr_sb_tool(imsg);
		break;
	case IMSG_SESSION_SERVER:
		dkr_srv_begin(imsg);
		break;
	case IMSG_REAP_DEAD:
		dkr_reap_dead(imsg);
		break;
	case IMSG_SESSION_STOP:
		dkr_session_end(OUTCOME_SIGNAL);
		break;
	default:
		proc_unexpected(PROC_PARENT, imsg);
	}
}

/* Every child is ready: the container starts once it is attached. */
static void
dkr_ctl_start(void)
{
	dkr.go = 1;
	if (dkr.phase == DKR_ATTACHED) {
		if (evtimer_pending(&dkr.ev_go, NULL) &&
		    evtimer_del(&dkr.ev_go) == -1)
			fatalx("evtimer_del failed");
		dkr_session_start();
	}
}

static void
dkr_stopping(void)
{
	dkr_session_end(OUTCOME_SIGNAL);
}

static void
dkr_shutdown(void)
{
	dkr_session_end(OUTCOME_SIGNAL);
	/* No more waiting for acks: the parent is stopping us. */
	dkr_reported(NULL, NULL);
}

/* "Stop my session": the bridge saw the end, a limit or its deadline. */
static void
dkr_dispatch_bridge(struct imsg *imsg)
{
	struct session_stop	 ss;

	switch (imsg_get_type(imsg)) {
	case IMSG_BRIDGE_STOP:
		if (imsg_get_data(imsg, &ss, sizeof(ss)) == -1 ||
		    ss.ss_outcome <= OUTCOME_NONE ||
		    ss.ss_outcome >= OUTCOME_MAX)
			fatalx("channel bridge: bad stop message");
		if (dkr.phase == DKR_RUNNING &&
		    dkr_violations[ss.ss_outcome] != NULL)
			dkr_audit(AUDIT_K_VIOLATION, AUDIT_D_NONE,
			    dkr_violations[ss.ss_outcome], NULL);
		if (ss.ss_outcome == OUTCOME_ACK_TIMEOUT &&
		    dkr.phase != DKR_DONE)
			dkr_audit(AUDIT_K_WATCHDOG, AUDIT_D_NONE,
			    "ack_timeout", NULL);
		dkr_session_end(ss.ss_outcome);
		break;
	default:
		proc_unexpected(PROC_BRIDGE, imsg);
	}
}

/* Sandbox runs, one at a time: start it, then end it. */
static void
dkr_dispatch_gateway(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_SB_RUN:
		dkr_sb_run(imsg);
		break;
	case IMSG_SB_END:
		dkr_sb_end(imsg);
		break;
	default:
		proc_unexpected(PROC_GATEWAY, imsg);
	}
}

/*
 * "Stop container now": a fixed message, it names no container and
 * carries nothing.  The session's container, if any, is stopped with the
 * configured retries and its absence confirmed (dkr_cleanup).
 */
static void
dkr_dispatch_watchdog(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_WD_STOP:
		if (imsg_get_len(imsg) != 0)
			fatalx("channel watchdog: bad stop message");
		if (dkr.phase == DKR_IDLE || dkr.phase == DKR_DONE)
			break;
		log_warnx("watchdog: stop now");
		dkr_audit(AUDIT_K_WATCHDOG, AUDIT_D_NONE, "lease_stop", NULL);
		dkr_session_end(OUTCOME_WATCHDOG_STOP);
		break;
	default:
		proc_unexpected(PROC_WATCHDOG, imsg);
	}
}

/* The parent's request: check it, then ask about leftovers first. */
static void
dkr_session_begin(struct imsg *imsg)
{
	struct session_docker	*sd = &dkr.req;

	if (dkr.phase != DKR_IDLE)
		fatalx("channel parent: second session");
	if (imsg_get_data(imsg, sd, sizeof(*sd)) == -1)
		fatalx("channel parent: bad session message");
	if (memchr(sd->sd_socket, '\0', sizeof(sd->sd_socket)) == NULL ||
	    sd->sd_socket[0] != '/' || strchr(sd->sd_socket + 1, '/') != NULL ||
	    strlcpy(dkr.client.sock, sd->sd_socket, sizeof(dkr.client.sock)) >=
	    sizeof(dkr.client.sock))
		fatalx("channel parent: bad socket path");
	if (sd->sd_call_timeout_ms < 1000 || sd->sd_call_timeout_ms > 300000)
		fatalx("channel parent: bad docker timeout");
	if (!sd->sd_reap_only && (sd->sd_stop_tries < 1 ||
	    sd->sd_stop_tries > DKR_STOP_TRIES_MAX ||
	    sd->sd_stop_timeout_ms < 1 ||
	    sd->sd_stop_timeout_ms > DKR_STOP_TIMEOUT_MAX_MS))
		fatalx("channel parent: bad stop parameters");
	if (!sd->sd_reap_only && (sd->sd_start_wait_ms < 1000 ||
	    sd->sd_start_wait_ms > DKR_START_WAIT_MAX_MS))
		fatalx("channel parent: bad start wait");
	dkr.client.timeout_ms = sd->sd_call_timeout_ms;
	memset(&dkr.res, 0, sizeof(dkr.res));
	dkr.res.dr_exit = -1;
	if (!sd->sd_reap_only && dkr_template_fill(sd, &dkr.tmpl) == -1)
		fatalx("channel parent: bad session parameters");
	if (memchr(sd->sd_instance, '\0', sizeof(sd->sd_instance)) == NULL ||
	    !dkr_label_valid(sd->sd_instance))
		fatalx("channel parent: bad instance");
	dkr_reap_ask();
}

/*
 * Every suite instance that labelled a container, for the parent to judge:
 * only it can look at /proc.  The containers of the dead ones go.
 */
static void
dkr_reap_ask(void)
{
	struct reap_instances	 ri;
	size_t			 n;
	int			 more;

	memset(&ri, 0, sizeof(ri));
	if (dkr_instances(&dkr.client, dkr.req.sd_instance, ri.ri_instance,
	    REAP_INSTANCES_MAX, &n, &more) == -1) {
		dkr_fail(OUTCOME_DOCKER_ERROR, dkr.client.err);
		return;
	}
	if (more)
		log_warnx("reap: more than %d instances, the rest next time",
		    REAP_INSTANCES_MAX);
	ri.ri_count = n;
	dkr.phase = DKR_REAPING;
	proc_compose(PROC_PARENT, IMSG_REAP_ASK, &ri, sizeof(ri));
}

/*
 * Remove one leftover and confirm it gone.  The dead instance's own
 * dockerd-client, or another instance's reap, may be removing it at the
 * same moment (the engine then answers 409 or 404): only absence counts,
 * checked a few times.
 */
static int
dkr_reap_one(const char *id)
{
	int	 i, g;

	for (i = 0; i < DKR_REAP_TRIES; i++) {
		if (dkr_delete(&dkr.client, id) == -1)
			return (-1);
		if ((g = dkr_gone(&dkr.client, id)) != 0)
			return (g == 1 ? 0 : -1);
		if (poll(NULL, 0, DKR_REAP_WAIT_MS) == -1 && errno != EINTR)
			fatal("poll");
	}
	return (-1);
}

static void
dkr_reap_dead(struct imsg *imsg)
{
	struct reap_instances	 ri;
	char			 ids[DKR_LIST_MAX][DKR_CONTAINER_ID_BYTES];
	size_t			 i, j, n;

	if (dkr.phase != DKR_REAPING)
		fatalx("channel parent: unasked reap verdict");
	if (imsg_get_data(imsg, &ri, sizeof(ri)) == -1 ||
	    ri.ri_count > REAP_INSTANCES_MAX)
		fatalx("channel parent: bad reap verdict");
	for (i = 0; i < ri.ri_count; i++) {
		if (memchr(ri.ri_instance[i], '\0', INSTANCE_ID_BYTES) ==
		    NULL || !dkr_label_valid(ri.ri_instance[i]) ||
		    strcmp(ri.ri_instance[i], dkr.req.sd_instance) == 0)
			fatalx("channel parent: bad reap verdict");
		if (dkr_list(&dkr.client, ri.ri_instance[i], NULL, ids,
		    DKR_LIST_MAX, &n) == -1) {
			dkr_fail(OUTCOME_DOCKER_ERROR, dkr.client.err);
			return;
		}
		for (j = 0; j < n; j++) {
			if (dkr_reap_one(ids[j]) == -1) {
				dkr_fail(OUTCOME_DOCKER_ERROR,
				    "reap: leftover not removed");
				return;
			}
			dkr.res.dr_reaped++;
		}
	}
	if (dkr.res.dr_reaped > 0)
		log_info("reaped %u container(s) of dead instances",
		    dkr.res.dr_reaped);
	if (dkr.req.sd_reap_only) {
		dkr.phase = DKR_DONE;
		dkr.res.dr_gone = 1;
		proc_compose(PROC_PARENT, IMSG_DKR_RESULT, &dkr.res,
		    sizeof(dkr.res));
		return;
	}
	dkr_session_prepare();
}

/*
 * DESIGN 5 step 3, and the attach of step 4, while the other children
 * may still be starting; any failure ends the session cleaned up.
 */
static void
dkr_session_prepare(void)
{
	struct audit_record	 ar;
	struct timeval		 tv;
	uint8_t			 profile[SHA256_DIGEST_BYTES];

	if (dkr_daemon_check() == -1 || dkr_image_check() == -1 ||
	    dkr_container_create() == -1 ||
	    dkr_container_verify(DKR_STATE_CREATED) == -1)
		return;
	dkr_profile_digest(&dkr.tmpl, dkr.id, profile);
	/* What the bridge's admission will rest on (dkr_admit()). */
	dkr_audit_record(&ar, AUDIT_K_ADMISSION, AUDIT_D_ALLOW, "", profile);
	dkr_audit_seccomp(&ar);
	(void)auditc_durable(&ar, dkr_admission, NULL);
	if (dkr_stream_attach() == -1)
		return;
	dkr.phase = DKR_ATTACHED;
	if (dkr.go) {
		dkr_session_start();
		return;
	}
	/*
	 * A created container has no deadline of its own until it runs: it
	 * is not left waiting on a parent that never says go (a stopped
	 * one, say) longer than the parent itself would wait for its
	 * children and the servers' handshakes.
	 */
	ms_to_timeval(dkr.req.sd_start_wait_ms, &tv);
	if (evtimer_add(&dkr.ev_go, &tv) == -1)
		fatalx("evtimer_add failed");
}

/* The parent did not start the session when it would have at the latest. */
static void
dkr_go_late(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	if (dkr.phase == DKR_ATTACHED && !dkr.go)
		dkr_fail(OUTCOME_TIME_LIMIT, "container not started in time");
}

/*
 * Every child is ready.  The stream goes to the bridge first, so that the
 * workload's output is drained from its first byte; then start, and verify
 * once more: only after that does the bridge admit anything (it may write
 * to the container and act on what it reads).
 */
static void
dkr_session_start(void)
{
	struct dkr_client	*c = &dkr.client;
	long			 s;
	int			 fl;

	/* The bridge polls it; it has no fcntl of its own. */
	if ((fl = fcntl(dkr.fd, F_GETFL)) == -1 ||
	    fcntl(dkr.fd, F_SETFL, fl | O_NONBLOCK) == -1)
		fatal("fcntl");
	proc_compose_fd(PROC_BRIDGE, IMSG_BRIDGE_STREAM, dkr.fd, dkr.head,
	    sizeof(*dkr.head));
	proc_flush(PROC_BRIDGE);
	dkr.fd = -1;
	free(dkr.head);
	dkr.head = NULL;
	dkr.phase = DKR_RUNNING;
	dkr.res.dr_streamed = 1;

	if ((s = dkr_start(c, dkr.id)) != 204) {
		dkr_fail(OUTCOME_DOCKER_ERROR, s == -1 ? c->err :
		    "docker start: failed");
		return;
	}
	if (dkr_container_verify(DKR_STATE_RUNNING | DKR_STATE_EXITED) == -1)
		return;
	dkr.res.dr_admitted = 1;
	dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_NONE, "started", NULL);
	log_debug("container %.12s started and verified", dkr.id);
	/* Audit before act: the bridge admits data once this is on record. */
	(void)auditc_recorded(dkr_admit, NULL);
}

/*
 * A local Linux engine of API 1.41 or later that enforces every limit;
 * once a session (a server's container may have been first).
 */
static int
dkr_daemon_check(void)
{
	struct dkr_client	*c = &dkr.client;
	char			*version;
	size_t			 vlen;
	long			 s;
	enum dkr_reason		 r;

	if (dkr.daemon_ok)
		return (0);
	if (dkr_ping(c) == -1) {
		dkr_fail(OUTCOME_DOCKER_ERROR, c->err);
		return (-1);
	}
	if ((s = dkr_version(c)) != 200) {
		dkr_fail(OUTCOME_DOCKER_ERROR, "docker version: failed");
		return (-1);
	}
	vlen = c->len;
	if ((version = malloc(vlen + 1)) == NULL)
		fatal("malloc");
	memcpy(version, c->body, vlen + 1);
	if ((s = dkr_info(c)) != 200) {
		free(version);
		dkr_fail(OUTCOME_DOCKER_ERROR, "docker info: failed");
		return (-1);
	}
	r = dkr_daemon_verify(version, vlen, c->body, c->len, c->err,
	    sizeof(c->err));
	free(version);
	if (r != DKR_OK) {
		dkr_fail(OUTCOME_ADMISSION_REFUSED, c->err);
		return (-1);
	}
	dkr.daemon_ok = 1;
	return (0);
}

/* The pinned image ID exists here and declares no volumes. */
static int
dkr_image_check(void)
{
	struct dkr_client	*c = &dkr.client;
	long			 s;

	if ((s = dkr_image_inspect(c, dkr.tmpl.image)) == 404) {
		dkr_fail(OUTCOME_ADMISSION_REFUSED, "refused: image not found");
		return (-1);
	}
	if (s != 200) {
		dkr_fail(OUTCOME_DOCKER_ERROR, "docker image inspect: failed");
		return (-1);
	}
	if (dkr_image_verify(c->body, c->len, dkr.tmpl.image, c->err,
	    sizeof(c->err)) != DKR_OK) {
		dkr_fail(OUTCOME_ADMISSION_REFUSED, c->err);
		return (-1);
	}
	return (0);
}

/* Create from the template; a warning of any kind refuses (and deletes). */
static int
dkr_container_create(void)
{
	struct dkr_client	*c = &dkr.client;
	enum dkr_reason		 r;
	char			*body;

	if ((body = dkr_template_body(&dkr.tmpl, &r)) == NULL) {
		dkr_fail(OUTCOME_ADMISSION_REFUSED, dkr_reason_str(r));
		return (-1);
	}
#ifdef CMCP_TEST
	if ((body = dkr_template_weaken(body, dkr.req.sd_weaken)) == NULL)
		fatalx("weaken: unknown field or bad body");
	if (dkr.req.sd_weaken != WEAKEN_NONE)
		log_warnx("test build: create body weakened (%d)",
		    dkr.req.sd_weaken);
#endif
	if (dkr_create(c, body, dkr.id, &r) == -1) {
		free(body);
		dkr_fail(OUTCOME_DOCKER_ERROR, c->err);
		return (-1);
	}
	free(body);
	if (r != DKR_OK) {
		dkr_fail(OUTCOME_ADMISSION_REFUSED, c->err);
		return (-1);
	}
	dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_NONE, "created", NULL);
	log_debug("created %.12s", dkr.id);
	return (0);
}

/* Inspect and compare every field of the profile (dkr_verify.c). */
static int
dkr_container_verify(int states)
{
	struct dkr_client	*c = &dkr.client;
	long			 s;

	if ((s = dkr_inspect(c, dkr.id)) != 200) {
		dkr_fail(OUTCOME_DOCKER_ERROR, "docker inspect: failed");
		return (-1);
	}
	if (dkr_inspect_verify_state(c->body, c->len, &dkr.tmpl, dkr.id,
	    states, c->err, sizeof(c->err)) != DKR_OK) {
#ifdef CMCP_TEST
		if (dkr.req.sd_noadmit) {
			log_warnx("test build: admission %s: bypassed", c->err);
			return (0);
		}
#endif
		dkr_fail(OUTCOME_ADMISSION_REFUSED, c->err);
		return (-1);
	}
	return (0);
}

/* Attach before start, so no output is lost. */
static int
dkr_stream_attach(void)
{
	struct dkr_client	*c = &dkr.client;
	size_t			 left;

	if ((dkr.head = calloc(1, sizeof(*dkr.head))) == NULL)
		fatal("calloc");
	if (dkr_attach(c, dkr.id, &dkr.fd, (char *)dkr.head->bs_head,
	    sizeof(dkr.head->bs_head), &left) == -1) {
		dkr_fail(OUTCOME_DOCKER_ERROR, c->err);
		return (-1);
	}
	dkr.head->bs_len = left;
	return (0);
}

/*
 * The session is over: clean up and report once.  why is the cause as
 * the sender saw it; the verdict on the container is ours.
 */
static void
dkr_session_end(int why)
{
	if (dkr.phase != DKR_RUNNING && dkr.phase != DKR_REAPING &&
	    dkr.phase != DKR_ATTACHED)
		return;
	dkr_cleanup(why);
	/* The container's status after our kill says nothing of its own. */
	if (why == OUTCOME_WATCHDOG_STOP &&
	    dkr.res.dr_outcome != OUTCOME_CLEANUP_FAILED)
		dkr.res.dr_outcome = OUTCOME_WATCHDOG_STOP;
	dkr.phase = DKR_DONE;
	dkr_report();
}

/*
 * Every container of the session goes: a sandbox run's, the agent's, the
 * servers'.  The servers' last, so that a removal not confirmed is the
 * verdict whatever the agent's status said.
 */
static void
dkr_cleanup(int why)
{
	dkr_sb_abort();
	dkr_agent_cleanup(why);
	dkr_srv_cleanup();
}

/*
 * Kill, learn the exit status, delete (force), and confirm the absence by
 * a 404; never trust a return code for it.  At the end of the stream the
 * container is exiting by itself, so it gets a short wait first.  A kill
 * is tried up to the configured number of times, each followed by a
 * bounded wait for the container to stop (DESIGN 10).
 */
static void
dkr_agent_cleanup(int why)
{
	struct dkr_client	*c = &dkr.client;
	int64_t			 status;
	long			 s;
	uint32_t		 try, tries;
	int64_t			 wait_ms;
	int			 got = 0;

	if (dkr.fd != -1 && close(dkr.fd) == -1)
		fatal("close");
	dkr.fd = -1;
	free(dkr.head);
	dkr.head = NULL;
	if (dkr.id[0] == '\0') {
		dkr.res.dr_gone = 1;
		return;
	}
	if (why == OUTCOME_COMPLETED && dkr.res.dr_admitted &&
	    dkr_wait(c, dkr.id, DKR_WAIT_EXITED_MS, &status) == 0)
		got = 1;
	/* Before a session's parameters (atexit), the defaults. */
	tries = dkr.req.sd_stop_tries > 0 ? dkr.req.sd_stop_tries :
	    WD_STOP_TRIES;
	wait_ms = dkr.req.sd_stop_timeout_ms > 0 ?
	    dkr.req.sd_stop_timeout_ms : WD_STOP_TIMEOUT_MS;
	for (try = 1; !got && try <= tries; try++) {
		if ((s = dkr_kill(c, dkr.id)) != 204 && s != 409)
			log_warnx("%s", s == -1 ? c->err : "docker kill: failed");
		/* Never started: the forced delete below does it. */
		if (!dkr.res.dr_admitted)
			break;
		if (dkr_wait(c, dkr.id, wait_ms, &status) == 0)
			got = 1;
		else
			log_warnx("container %.12s: not stopped, try %u of %u",
			    dkr.id, try, tries);
	}
	if (got) {
		dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_NONE, "stopped", NULL);
		dkr.res.dr_exit = status;
		switch (dkr_exit_outcome(status)) {
		case DKR_TIME_LIMIT:
			dkr.res.dr_outcome = OUTCOME_TIME_LIMIT;
			break;
		case DKR_INIT_FAILED:
			dkr.res.dr_outcome = OUTCOME_INIT_FAILED;
			break;
		case DKR_EXITED:
			dkr.res.dr_outcome = OUTCOME_COMPLETED;
			break;
		default:
			dkr.res.dr_outcome = OUTCOME_DOCKER_ERROR;
			break;
		}
	}
	if ((s = dkr_delete(c, dkr.id)) != 204 && s != 404)
		log_warnx("%s", s == -1 ? c->err : "docker delete: failed");
	if (dkr_gone(c, dkr.id) == 1) {
		dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_NONE, "removed_confirmed",
		    NULL);
		dkr.res.dr_gone = 1;
		log_debug("container %.12s gone", dkr.id);
		dkr.id[0] = '\0';
	} else {
		log_warnx("container %.12s: absence not confirmed", dkr.id);
		dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_NONE,
		    "removal_unconfirmed", NULL);
		dkr.res.dr_outcome = OUTCOME_CLEANUP_FAILED;
	}
}

/* A refusal or an error before the stream: clean up, report. */
static void
dkr_fail(int outcome, const char *why)
{
	char	 code[AUDIT_NAME_BYTES];

	log_warnx("%s", why);
	strlcpy(dkr.res.dr_why, why, sizeof(dkr.res.dr_why));
	if (!dkr.req.sd_reap_only) {
		dkr_audit_code(why, code, sizeof(code));
		dkr_audit(AUDIT_K_ADMISSION, AUDIT_D_DENY, code, NULL);
	}
	dkr_cleanup(outcome);
	if (dkr.res.dr_outcome != OUTCOME_CLEANUP_FAILED)
		dkr.res.dr_outcome = outcome;
	dkr.phase = DKR_DONE;
	dkr_report();
}

/*
 * Whatever way this process ends (parent gone, a peer's channel closed,
 * SIGTERM, fatal), a container it created does not outlive it knowingly.
 */
static void
dkr_atexit(void)
{
	dkr.exiting = 1;
	dkr_sb_abort();
	if (dkr.id[0] != '\0' && dkr.phase != DKR_DONE)
		dkr_cleanup(OUTCOME_SIGNAL);
	dkr_srv_cleanup();
}

/*
 * The result goes to the parent once every record of the session is
 * committed, so that the parent's session_end follows them in the chain.
 */
static void
dkr_report(void)
{
	dkr.report_wait = 1;
	if (auditc_recorded(dkr_reported, NULL) == -1)
		dkr_reported(NULL, NULL);
}

static void
dkr_reported(const struct audit_ack *aa, void *arg)
{
	(void)aa;
	(void)arg;
	if (!dkr.report_wait)
		return;
	dkr.report_wait = 0;
	proc_compose(PROC_PARENT, IMSG_DKR_RESULT, &dkr.res, sizeof(dkr.res));
	proc_flush(PROC_PARENT);
}

/* The admission record is on stable storage (auditclient.c). */
static void
dkr_admission(const struct audit_ack *aa, void *arg)
{
	(void)aa;
	(void)arg;
	dkr.admission_durable = 1;
}

/*
 * The bridge may act on the stream: the admission is durable, and the
 * container's start, recorded after it, is committed.
 */
static void
dkr_admit(const struct audit_ack *aa, void *arg)
{
	(void)aa;
	(void)arg;
	if (!dkr.admission_durable || dkr.phase != DKR_RUNNING)
		return;
	proc_compose(PROC_BRIDGE, IMSG_BRIDGE_ADMIT, NULL, 0);
	proc_compose(PROC_PARENT, IMSG_DKR_STARTED, NULL, 0);
}

/*
 * The records can no longer be committed: the result goes to the parent
 * without waiting for them, as when the parent stops us; the bridge is
 * not admitted, and no server's stream goes to the gateway.
 */
static void
dkr_audit_failed(void *arg)
{
	struct dkr_srv	*s;
	size_t		 i;

	(void)arg;
	for (i = 0; i < dkr_srvs.n; i++) {
		s = dkr_srvs.srv[i];
		if (s->phase != DKR_SRV_STARTING)
			continue;
		s->sv.code = DKR_SRV_AUDIT;
		dkr_srv_tell(s);
	}
	dkr_reported(NULL, NULL);
}

/*
 * One record of this session: admission, the container's lifecycle, a
 * violation the bridge reported.  Waited for by nothing but the report.
 */
static void
dkr_audit(enum audit_kind kind, enum audit_decision decision,
    const char *reason, const uint8_t *digest)
{
	struct audit_record	 ar;

	if (dkr.exiting)
		return;
	dkr_audit_record(&ar, kind, decision, reason, digest);
	(void)auditc_send(&ar);
}

/* Only fixed codes and digests go in. */
static void
dkr_audit_record(struct audit_record *ar, enum audit_kind kind,
    enum audit_decision decision, const char *reason, const uint8_t *digest)
{
	audit_record_init(ar, kind, decision);
	if (audit_record_set(ar, AUDIT_F_SESSION, dkr.req.sd_session) == -1 ||
	    audit_record_set(ar, AUDIT_F_REASON, reason) == -1)
		fatalx("audit: bad record");
	if (digest != NULL)
		audit_record_digest(ar, AUDIT_HAS_REQUEST, digest);
}

/*
 * An admission's second digest: the seccomp profile the container was
 * admitted with (the first is the whole profile's, dkr_profile_digest()).
 */
static void
dkr_audit_seccomp(struct audit_record *ar)
{
	uint8_t	 digest[SHA256_DIGEST_BYTES];

	if (dkr_seccomp_ours(digest) == -1)
		fatalx("seccomp profile: out of memory");
	audit_record_digest(ar, AUDIT_HAS_RESPONSE, digest);
}

/*
 * A refusal's fixed text (never the engine's) as a reason code: lower
 * case letters and digits, each other run of bytes one '_'.
 */
static void
dkr_audit_code(const char *why, char *code, size_t len)
{
	size_t	 n = 0;
	int	 sep = 0;

	for (; *why != '\0' && n + 2 < len; why++) {
		if ((*why >= 'a' && *why <= 'z') || (*why >= '0' &&
		    *why <= '9') || (*why >= 'A' && *why <= 'Z')) {
			if (sep && n > 0)
				code[n++] = '_';
			code[n++] = *why | 0x20;
			sep = 0;
		} else
			sep = 1;
	}
	code[n] = '\0';
}

/*
 * One sandbox tool of the configuration, from the parent, after the
 * session's own parameters: the engine, the init and the labels are the
 * session's.  Checked now as dkr_sandbox_check() will check it per run.
 */
static void
dkr_sb_tool(struct imsg *imsg)
{
	struct session_sandbox		 sx;
	struct dkr_sandbox_started	 st;
	struct dkr_sbtool		*t;
	struct dkr_sandbox_spec		*sp;
	size_t				 i;

	if (dkr.phase == DKR_IDLE || dkr.req.sd_reap_only ||
	    imsg_get_data(imsg, &sx, sizeof(sx)) == -1 ||
	    dkr_sb.ntools == SANDBOX_TOOLS_MAX ||
	    memchr(sx.sx_image, '\0', sizeof(sx.sx_image)) == NULL ||
	    sx.sx_argc < 1 || sx.sx_argc > SESSION_ARGV_MAX)
		fatalx("channel parent: bad sandbox tool");
	for (i = 0; i < dkr_sb.ntools; i++)
		if (dkr_sb.tools[i].tool == sx.sx_tool)
			fatalx("channel parent: sandbox tool twice");
	if ((t = reallocarray(dkr_sb.tools, dkr_sb.ntools + 1,
	    sizeof(*t))) == NULL)
		fatal("reallocarray");
	dkr_sb.tools = t;
	t = &dkr_sb.tools[dkr_sb.ntools];
	t->tool = sx.sx_tool;
	sp = &t->spec;
	dkr_sandbox_defaults(sp);
	/* Inside the chroot the socket is "/" and its base name. */
	if (strlcpy(sp->sock, dkr.client.sock, sizeof(sp->sock)) >=
	    sizeof(sp->sock) ||
	    strlcpy(sp->image, sx.sx_image, sizeof(sp->image)) >=
	    sizeof(sp->image) ||
	    strlcpy(sp->init_path, dkr.req.sd_init, sizeof(sp->init_path)) >=
	    sizeof(sp->init_path) ||
	    strlcpy(sp->instance, dkr.req.sd_instance, sizeof(sp->instance)) >=
	    sizeof(sp->instance) ||
	    strlcpy(sp->session, dkr.req.sd_session, sizeof(sp->session)) >=
	    sizeof(sp->session))
		fatalx("channel parent: bad sandbox tool");
	sp->argc = sx.sx_argc;
	for (i = 0; i < sp->argc; i++)
		if (memchr(sx.sx_argv[i], '\0', sizeof(sx.sx_argv[i])) ==
		    NULL || strlcpy(sp->argv[i], sx.sx_argv[i],
		    sizeof(sp->argv[i])) >= sizeof(sp->argv[i]))
			fatalx("channel parent: bad sandbox tool");
	sp->uid = sx.sx_uid;
	sp->gid = sx.sx_gid;
	sp->memory_bytes = sx.sx_memory_bytes;
	sp->pids = sx.sx_pids;
	sp->deadline_ms = sx.sx_deadline_ms;
	sp->output_bytes = sx.sx_output_bytes;
	sp->source_bytes = sx.sx_source_bytes;
	sp->input_bytes = sx.sx_input_bytes;
#ifdef CMCP_TEST
	/* The session's weakened profile, for its runs too. */
	sp->weaken = dkr.req.sd_weaken;
	sp->noadmit = dkr.req.sd_noadmit;
#endif
	if (dkr_sb.res == NULL &&
	    (dkr_sb.res = malloc(sizeof(*dkr_sb.res))) == NULL)
		fatal("malloc");
	if (dkr_sandbox_check(sp, 1, 0, &st, dkr_sb.res) == -1)
		fatalx("channel parent: sandbox tool refused: %s",
		    dkr_sb.res->why);
	dkr_sb.ntools++;
}

/*
 * The gateway asks for a run of a configured sandbox tool over so many
 * bytes.  Only while the session's container runs; one at a time.  The
 * container is admitted, created, verified, attached, started and
 * verified again here; the attach stream then goes to the gateway, which
 * writes the source and the input and reads the output.
 */
static void
dkr_sb_run(struct imsg *imsg)
{
	struct sandbox_run	 sr;
	struct sandbox_stream	*ss;
	struct dkr_sandbox_result *res = dkr_sb.res;
	size_t			 i;

	if (dkr_sb.phase != DKR_SB_IDLE ||
	    imsg_get_data(imsg, &sr, sizeof(sr)) == -1)
		fatalx("channel gateway: bad sandbox run");
	dkr_sb.cur = NULL;
	for (i = 0; i < dkr_sb.ntools; i++)
		if (dkr_sb.tools[i].tool == sr.sr_tool)
			dkr_sb.cur = &dkr_sb.tools[i];
	if (dkr_sb.cur == NULL)
		fatalx("channel gateway: not a sandbox tool");
	if (dkr_sandbox_check(&dkr_sb.cur->spec, sr.sr_srclen, sr.sr_inlen,
	    &dkr_sb.st, res) == -1) {
		dkr_sb_done();
		return;
	}
	if (dkr.phase != DKR_RUNNING) {
		(void)strlcpy(res->why, "sandbox: session over",
		    sizeof(res->why));
		dkr_sb_done();
		return;
	}
	if (dkr_sandbox_start(&dkr.client, &dkr_sb.cur->spec, &dkr_sb.st,
	    res) == -1) {
		log_warnx("%s", res->why);
		dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_DENY,
		    res->gone ? "sandbox_refused" : "sandbox_not_gone", NULL);
		dkr_sb_done();
		return;
	}
	/* From here whatever ends this process removes the container. */
	dkr_sb.phase = DKR_SB_STREAMING;
	dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_ALLOW, "sandbox_started", NULL);
	if ((ss = calloc(1, sizeof(*ss))) == NULL)
		fatal("calloc");
	if (dkr_sb.st.headlen > sizeof(ss->ss_head))
		fatalx("sandbox: attach head too long");
	memcpy(ss->ss_head, dkr_sb.st.head, dkr_sb.st.headlen);
	ss->ss_len = dkr_sb.st.headlen;
	proc_compose_fd(PROC_GATEWAY, IMSG_SB_STREAM, dkr_sb.st.fd, ss,
	    sizeof(*ss));
	dkr_sb.st.fd = -1;		/* the channel's now, closed once sent */
	proc_flush(PROC_GATEWAY);
	explicit_bzero(ss, sizeof(*ss));
	free(ss);
	explicit_bzero(dkr_sb.st.head, sizeof(dkr_sb.st.head));
	log_debug("sandbox %.12s: started, stream with the gateway",
	    res->id);
}

/* The gateway's stream ended: the outcome, then removal and its proof. */
static void
dkr_sb_end(struct imsg *imsg)
{
	struct sandbox_end	 se;

	if (imsg_get_data(imsg, &se, sizeof(se)) == -1 ||
	    se.se_end < SB_EOF || se.se_end >= SB_END_MAX ||
	    dkr_sb.phase == DKR_SB_IDLE)
		fatalx("channel gateway: bad sandbox end");
	if (dkr_sb.phase == DKR_SB_STREAMING) {
		dkr_sandbox_end(&dkr.client, &dkr_sb.st, se.se_end,
		    dkr_sb.res);
		dkr_audit(AUDIT_K_CONTAINER, AUDIT_D_NONE,
		    dkr_sb.res->gone ? "sandbox_gone" : "sandbox_not_gone",
		    NULL);
	}
	log_debug("sandbox %.12s: %s, status %lld, %s, run %lld ms, "
	    "total %lld ms", dkr_sb.res->id,
	    dkr_sandbox_outcome_str(dkr_sb.res->outcome),
	    (long long)dkr_sb.res->status,
	    dkr_sb.res->gone ? "gone" : "NOT GONE",
	    (long long)dkr_sb.res->run_ms, (long long)dkr_sb.res->total_ms);
	dkr_sb_done();
}

/*
 * The session ends while a run streams: the run's container goes first.
 * The gateway learns it when its stream ends and it says so.
 */
static void
dkr_sb_abort(void)
{
	if (dkr_sb.phase != DKR_SB_STREAMING)
		return;
	dkr_sandbox_end(&dkr.client, &dkr_sb.st, SB_BROKEN, dkr_sb.res);
	dkr_sb.res->outcome = DKR_SB_TOOL_FAILED;
	(void)strlcpy(dkr_sb.res->why, dkr_sb.res->gone ?
	    "sandbox: session over" : "sandbox: absence not confirmed",
	    sizeof(dkr_sb.res->why));
	dkr_sb.phase = DKR_SB_ABORTED;
	if (!dkr.exiting)
		log_warnx("sandbox %.12s: removed with the session (%s)",
		    dkr_sb.res->id, dkr_sb.res->gone ? "gone" : "NOT GONE");
}

/* The run's outcome to the gateway: codes and counts, never output. */
static void
dkr_sb_done(void)
{
	struct dkr_sandbox_result	*res = dkr_sb.res;
	struct sandbox_done		 sn;

	memset(&sn, 0, sizeof(sn));
	sn.sn_outcome = res->outcome;
	sn.sn_status = res->status;
	sn.sn_created = res->created;
	sn.sn_gone = res->gone;
	sn.sn_killed = res->killed;
	sn.sn_run_ms = res->run_ms;
	sn.sn_total_ms = res->total_ms;
	(void)strlcpy(sn.sn_why, res->why, sizeof(sn.sn_why));
	explicit_bzero(res->out, sizeof(res->out));
	res->outlen = 0;
	proc_compose(PROC_GATEWAY, IMSG_SB_DONE, &sn, sizeof(sn));
	proc_flush(PROC_GATEWAY);
	dkr_sb.phase = DKR_SB_IDLE;
}

/*
 * One server with an image, from the parent, after the session's own
 * parameters and before the agent's go: its container is admitted,
 * created, verified, attached, started and verified again now, while the
 * agent's waits, so that the gateway can initialize it.  The stream goes
 * to the gateway once the admission is durable and the start recorded
 * (dkr_srv_pass); a refusal or failure tells the gateway in a fixed word
 * and removes whatever was created.
 */
static void
dkr_srv_begin(struct imsg *imsg)
{
	struct session_server	*ss;
	struct dkr_srv		*s;
	size_t			 i;

	if (dkr.phase == DKR_IDLE || dkr.req.sd_reap_only || dkr.go ||
	    dkr_srvs.n == DKR_SERVERS_MAX)
		fatalx("channel parent: unexpected server");
	if ((ss = malloc(sizeof(*ss))) == NULL ||
	    (s = calloc(1, sizeof(*s))) == NULL)
		fatal("malloc");
	if (imsg_get_data(imsg, ss, sizeof(*ss)) == -1 ||
	    dkr_server_fill(&s->sv, ss, dkr.req.sd_init, dkr.req.sd_instance,
	    dkr.req.sd_session) == -1)
		fatalx("channel parent: bad server");
	free(ss);
	for (i = 0; i < dkr_srvs.n; i++)
		if (dkr_srvs.srv[i]->sv.index == s->sv.index)
			fatalx("channel parent: server twice");
	dkr_srvs.srv[dkr_srvs.n++] = s;
#ifdef CMCP_TEST
	/* The session's weakened profile, for its servers too. */
	s->sv.tmpl.weaken = dkr.req.sd_weaken;
	s->sv.tmpl.noadmit = dkr.req.sd_noadmit;
#endif
	s->phase = DKR_SRV_STARTING;
	/* Refused before: nothing is created, nothing more recorded. */
	if (dkr.phase == DKR_DONE) {
		s->sv.code = DKR_SRV_SESSION_OVER;
		dkr_srv_tell(s);
		return;
	}
	if (dkr_srv_steps(s) == -1)
		dkr_srv_fail(s);
}

/* The agent's steps, with the agent's records naming the server. */
static int
dkr_srv_steps(struct dkr_srv *s)
{
	struct dkr_client	*c = &dkr.client;
	struct dkr_server	*sv = &s->sv;
	struct audit_record	 ar;
	uint8_t			 profile[SHA256_DIGEST_BYTES];
	int			 rv;

	if (auditc_failed())
		goto audit;
	if (!dkr.daemon_ok) {
		if (dkr_server_daemon(c, sv) == -1)
			return (-1);
		dkr.daemon_ok = 1;
	}
	if (dkr_server_admit(c, sv) == -1)
		return (-1);
	rv = dkr_server_create(c, sv);
#ifdef CMCP_TEST
	if (sv->tmpl.weaken != WEAKEN_NONE)
		log_warnx("test build: server %s: create body weakened (%d)",
		    sv->name, sv->tmpl.weaken);
#endif
	if (!sv->gone)
		dkr_srv_audit(s, AUDIT_K_CONTAINER, AUDIT_D_NONE, "created",
		    NULL);
	if (rv == -1)
		return (-1);
#ifdef CMCP_TEST
	if (sv->bypassed)
		log_warnx("test build: server %s: admission %s: bypassed",
		    sv->name, sv->why);
#endif
	dkr_profile_digest(&sv->tmpl, sv->id, profile);
	dkr_audit_record(&ar, AUDIT_K_ADMISSION, AUDIT_D_ALLOW, "", profile);
	dkr_audit_seccomp(&ar);
	if (audit_record_set(&ar, AUDIT_F_TOOL, sv->name) == -1)
		fatalx("audit: bad record");
	(void)auditc_durable(&ar, dkr_srv_admission, s);
	if (dkr_server_start(c, sv) == -1)
		return (-1);
	dkr_srv_audit(s, AUDIT_K_CONTAINER, AUDIT_D_NONE, "started", NULL);
	log_debug("server %s: container %.12s started and verified",
	    sv->name, sv->id);
	/* Audit before act: the gateway speaks to it once this is kept. */
	if (auditc_recorded(dkr_srv_pass, s) == 0)
		return (0);
 audit:
	sv->code = DKR_SRV_AUDIT;
	(void)strlcpy(sv->why, "server: audit failed", sizeof(sv->why));
	return (-1);
}

/* Refused or failed: on record as a code, removed, the gateway told. */
static void
dkr_srv_fail(struct dkr_srv *s)
{
	char	 code[AUDIT_NAME_BYTES];

	log_warnx("server %s: %s", s->sv.name, s->sv.why);
	dkr_audit_code(s->sv.why, code, sizeof(code));
	dkr_srv_audit(s, AUDIT_K_ADMISSION, AUDIT_D_DENY, code, NULL);
	(void)dkr_srv_remove(s);
	dkr_srv_tell(s);
}

/*
 * IMSG_SRV_FAILED, once: no stream will come for this server.  Sent from
 * the event loop, as IMSG_SRV_STREAM: this process never waits on the
 * gateway, which may be busy with another server.
 */
static void
dkr_srv_tell(struct dkr_srv *s)
{
	struct server_failed	 sf;

	if (s->phase == DKR_SRV_FAILED)
		return;
	s->phase = DKR_SRV_FAILED;
	if (dkr.exiting)
		return;
	memset(&sf, 0, sizeof(sf));
	sf.sf_index = s->sv.index;
	if (strlcpy(sf.sf_reason, s->sv.code, sizeof(sf.sf_reason)) >=
	    sizeof(sf.sf_reason))
		fatalx("server: reason too long");
	proc_compose(PROC_GATEWAY, IMSG_SRV_FAILED, &sf, sizeof(sf));
}

/* The server's admission record is on stable storage. */
static void
dkr_srv_admission(const struct audit_ack *aa, void *arg)
{
	struct dkr_srv	*s = arg;

	(void)aa;
	s->admission_durable = 1;
}

/*
 * Its admission is durable and its start committed: the stream, and the
 * bytes that came with the attach answer, go to the gateway.
 */
static void
dkr_srv_pass(const struct audit_ack *aa, void *arg)
{
	struct dkr_srv		*s = arg;
	struct dkr_server	*sv = &s->sv;
	struct server_stream	*st;

	(void)aa;
	if (s->phase != DKR_SRV_STARTING || !s->admission_durable ||
	    sv->fd == -1)
		return;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		fatal("calloc");
	if (sv->headlen > sizeof(st->st_head))
		fatalx("server: attach head too long");
	st->st_index = sv->index;
	st->st_len = sv->headlen;
	memcpy(st->st_head, sv->head, sv->headlen);
	proc_compose_fd(PROC_GATEWAY, IMSG_SRV_STREAM, sv->fd, st,
	    sizeof(*st));
	sv->fd = -1;		/* the channel's now, closed once sent */
	explicit_bzero(st, sizeof(*st));
	free(st);
	explicit_bzero(sv->head, sizeof(sv->head));
	sv->headlen = 0;
	s->phase = DKR_SRV_STREAMED;
	log_debug("server %s: stream with the gateway", sv->name);
}

/* Remove its container, if any, with the records the agent's gets. */
static int
dkr_srv_remove(struct dkr_srv *s)
{
	struct dkr_server	*sv = &s->sv;
	int			 had = !sv->gone;

	if (dkr_server_remove(&dkr.client, sv) == 0) {
		if (had && sv->ended &&
		    sv->status != CMCP_INIT_SIG_BASE + SIGKILL)
			log_warnx("server %s: its container had ended, "
			    "status %lld", sv->name, (long long)sv->status);
		if (had) {
			dkr_srv_audit(s, AUDIT_K_CONTAINER, AUDIT_D_NONE,
			    "removed_confirmed", NULL);
			log_debug("server %s: container %.12s gone", sv->name,
			    sv->id);
		}
		return (0);
	}
	log_warnx("server %s: container %.12s: absence not confirmed",
	    sv->name, sv->id);
	dkr_srv_audit(s, AUDIT_K_CONTAINER, AUDIT_D_NONE,
	    "removal_unconfirmed", NULL);
	return (-1);
}

/*
 * The session ends: every server's container goes.  One whose absence
 * is not confirmed makes the session's cleanup fail, as the agent's.  A
 * server whose stream had not yet gone to the gateway is said to be
 * over.
 */
static void
dkr_srv_cleanup(void)
{
	struct dkr_srv	*s;
	size_t		 i;

	for (i = 0; i < dkr_srvs.n; i++) {
		s = dkr_srvs.srv[i];
		if (s->phase == DKR_SRV_STARTING) {
			s->sv.code = DKR_SRV_SESSION_OVER;
			dkr_srv_tell(s);
		} else if (s->phase == DKR_SRV_STREAMED)
			s->phase = DKR_SRV_ENDED;
		if (dkr_srv_remove(s) == -1) {
			dkr.res.dr_gone = 0;
			dkr.res.dr_outcome = OUTCOME_CLEANUP_FAILED;
		}
	}
}

/* A record of the session naming the server by its configured name. */
static void
dkr_srv_audit(const struct dkr_srv *s, enum audit_kind kind,
    enum audit_decision decision, const char *reason, const uint8_t *digest)
{
	struct audit_record	 ar;

	if (dkr.exiting)
		return;
	dkr_audit_record(&ar, kind, decision, reason, digest);
	if (audit_record_set(&ar, AUDIT_F_TOOL, s->sv.name) == -1)
		fatalx("audit: bad record");
	(void)auditc_send(&ar);
}

/*
 * The verified profile: admission compared every field of the inspect
 * document with this template, so the container's id and the create body
 * built from it name exactly what was verified.  Only the digest is kept.
 */
static void
dkr_profile_digest(const struct dkr_template *t, const char *id,
    uint8_t *digest)
{
	struct sha256_ctx	 ctx;
	enum dkr_reason		 r;
	char			*body;

	if ((body = dkr_template_body(t, &r)) == NULL)
		fatalx("profile: %s", dkr_reason_str(r));
	sha256_init(&ctx);
	sha256_update(&ctx, id, strlen(id) + 1);
	sha256_update(&ctx, body, strlen(body));
	sha256_final(&ctx, digest);
	free(body);
}

static int
dkr_template_fill(const struct session_docker *sd, struct dkr_template *t)
{
	size_t	 i;

	memset(t, 0, sizeof(*t));
	if (memchr(sd->sd_image, '\0', sizeof(sd->sd_image)) == NULL ||
	    memchr(sd->sd_init, '\0', sizeof(sd->sd_init)) == NULL ||
	    memchr(sd->sd_session, '\0', sizeof(sd->sd_session)) == NULL)
		return (-1);
	if (strlcpy(t->image, sd->sd_image, sizeof(t->image)) >=
	    sizeof(t->image) ||
	    strlcpy(t->init_path, sd->sd_init, sizeof(t->init_path)) >=
	    sizeof(t->init_path) ||
	    strlcpy(t->instance, sd->sd_instance, sizeof(t->instance)) >=
	    sizeof(t->instance) ||
	    strlcpy(t->session, sd->sd_session, sizeof(t->session)) >=
	    sizeof(t->session))
		return (-1);
	if (sd->sd_argc < 1 || sd->sd_argc > DKR_ARGV_MAX)
		return (-1);
	t->argc = sd->sd_argc;
	for (i = 0; i < t->argc; i++)
		if (memchr(sd->sd_argv[i], '\0', sizeof(sd->sd_argv[i])) ==
		    NULL || strlcpy(t->argv[i], sd->sd_argv[i],
		    sizeof(t->argv[i])) >= sizeof(t->argv[i]))
			return (-1);
	t->envc = 1;
	strlcpy(t->env[0], DKR_AGENT_ENV, sizeof(t->env[0]));
	t->uid = sd->sd_uid;
	t->gid = sd->sd_gid;
	t->memory_bytes = sd->sd_memory_bytes;
	t->pids = sd->sd_pids;
	t->nofile = sd->sd_nofile;
	t->nproc = sd->sd_pids;
	t->nano_cpus = 0;
	t->deadline_ms = sd->sd_deadline_ms;
	t->relay = sd->sd_relay;
	t->kind = DKR_KIND_AGENT;
	return (dkr_template_check(t) == DKR_OK ? 0 : -1);
}
