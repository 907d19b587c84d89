/*
 * cmcp-privsep: main() and the root parent.  The parent reads the
 * configuration, checks the host, prepares the children's directories,
 * starts the five children (common/proc.c) and keeps them running: one
 * dying ends the suite, a signal to the parent stops them in order.
 */

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <libgen.h>
#include <paths.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "auditclient.h"
#include "auditdb.h"
#include "config.h"
#include "control.h"
#include "json.h"
#include "log.h"
#include "mcpserver.h"
#include "mstime.h"
#include "proc.h"
#include "sandbox.h"

#ifdef CMCP_TEST
#define PARENT_OPTS	"+df:nP:vX:"
#define PARENT_PROBES	16
#else
#define PARENT_OPTS	"+df:nP:v"
#endif

enum parent_state {
	PARENT_STARTING,	/* waiting for IMSG_CTL_READY */
	PARENT_RUNNING,
	PARENT_STOPPING,	/* orderly, one child after the other */
	PARENT_TEARDOWN,	/* a child failed: terminate all */
};

struct parent_child {
	pid_t		 pc_pid;
	int		 pc_alive;
	int		 pc_ready;
};

enum parent_mode {
	MODE_RUN,		/* one session */
	MODE_REAP,		/* remove leftovers of dead instances */
#ifdef CMCP_TEST
	MODE_IDLE,		/* test build: children only, no session */
#endif
};

/*
 * What run prints when the session ends, one JSON line.  The gateway's
 * counts and the audit chain tip join it with the next steps.
 */
struct session_summary {
	char		 ss_session[SESSION_ID_BYTES];
	int		 ss_outcome;
	int64_t		 ss_exit;		/* -1: none */
	uint64_t	 ss_stdout_bytes;
	uint64_t	 ss_stderr_bytes;
	uint64_t	 ss_calls;		/* the gateway's counts */
	uint64_t	 ss_allowed;
	uint64_t	 ss_denied;
	char		 ss_reason[SESSION_REASON_BYTES];	/* fixed */
	char		 ss_tip[AUDIT_TIP_BYTES];	/* "": not recorded */
};

/* The session as the parent follows it. */
struct parent_session {
	int			 begun;
	int			 ended;		/* summary printed */
	int			 signalled;
	int			 child_died;
	int			 have_bridge;
	int			 have_docker;
	struct bridge_result	 bridge;
	struct dkr_result	 docker;
	struct session_docker	 sd;
	struct session_bridge	 sb;
	struct session_watchdog	 sw;
	struct event		 ev_wait;
	int			 upstreams;	/* 1 ready, -1 refused */
	char			 up_reason[SESSION_REASON_BYTES];
	int			 started;	/* IMSG_CTL_START sent */
	int			 reaped;	/* IMSG_REAP_DEAD sent */
	int			 stop_pending;	/* IMSG_SESSION_STOP after it */
	int			 gw_end_sent;
	int			 have_gw;
	struct gw_result	 gw;
	int			 servers_left;	/* not confirmed gone */
	int64_t			 gw_wait_ms;	/* a call in flight, and more */
	int64_t			 up_wait_ms;	/* the servers' handshakes */
	struct event		 ev_gwwait;
	struct event		 ev_upwait;
	int			 audit_wait;	/* for the session_end ack */
	struct session_summary	 summary;
	struct session_sandbox	*sx;		/* the sandbox tools */
	size_t			 nsx;
};

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
/* A server's grace between end of file on its stdin and SIGKILL. */
#define PARENT_SERVER_CLOSE_MS	1000

/* An approved MCP server, spawned by the parent (mcpserver.h). */
struct parent_server {
	struct mcps	 ps_m;
	struct event	 ps_ev;		/* its stderr, drained and counted */
	int		 ps_draining;
};

static struct parent_server	 parent_servers[CONF_SERVERS_MAX];
static size_t			 parent_nservers;
static const char		*parent_payload_path;
static char			 parent_payload[AGENT_FRAME_BYTES];
static size_t			 parent_payloadlen;

/*
 * The parent's coarse filter, loaded once the children run: it must keep
 * forking, executing and signalling, so it lists what kills it instead --
 * reading or writing other processes' memory and changing the kernel,
 * its mounts, modules, keys or clock.
 */
static const struct sandbox_rule parent_sandbox[] = {
	SB_KILL(ptrace),
	SB_KILL(process_vm_readv),
	SB_KILL(process_vm_writev),
	SB_KILL(mount),
	SB_KILL(umount2),
	SB_KILL(pivot_root),
	SB_KILL(open_by_handle_at),
	SB_KILL(name_to_handle_at),
	SB_KILL(kexec_load),
	SB_KILL(kexec_file_load),
	SB_KILL(init_module),
	SB_KILL(finit_module),
	SB_KILL(delete_module),
	SB_KILL(bpf),
	SB_KILL(perf_event_open),
	SB_KILL(userfaultfd),
	SB_KILL(keyctl),
	SB_KILL(add_key),
	SB_KILL(request_key),
	SB_KILL(swapon),
	SB_KILL(swapoff),
	SB_KILL(reboot),
	SB_KILL(acct),
	SB_KILL(quotactl),
	SB_KILL(syslog),
	SB_KILL(settimeofday),
	SB_KILL(clock_settime),
	SB_KILL(clock_adjtime),
	SB_KILL(adjtimex),
	SB_KILL(iopl),
	SB_KILL(ioperm),
	SB_KILL(io_uring_setup),
};

/* Orderly shutdown: the agent's side first, the audit trail last. */
static const enum cmcp_proc parent_stop_order[] = {
	PROC_BRIDGE, PROC_GATEWAY, PROC_WATCHDOG, PROC_DOCKER, PROC_AUDITOR
};

static struct parent_child	 parent_children[PROC_MAX];
static enum parent_state	 parent_state = PARENT_STARTING;
static enum parent_mode		 parent_mode = MODE_RUN;
static int			 parent_status;
static struct event		 parent_ev_ready, parent_ev_grace;
static struct event		 parent_ev_dkrgrace;
static struct event		 parent_ev_sig[4];
static struct parent_session	 parent_sess;
static char			 parent_bootid[33];

#ifdef CMCP_TEST
struct parent_probe {
	enum cmcp_proc	 pp_proc;
	int		 pp_attempt;
};

static struct {
	const char		*corepattern;
	struct parent_probe	 probes[PARENT_PROBES];
	size_t			 nprobes;
	unsigned int		 nosandbox;	/* PROC_BIT() of each */
	unsigned int		 noready;
	int			 nosession;
	int			 weaken;	/* enum session_weaken bits */
	const char		*stdout_path;
	int			 stdout_fd;
	int			 nowatchdog;
	int			 noackcheck;
	int			 noauditwait;
	int			 noadmit;	/* admission refusals ignored */
} parent_test = { CMCP_CORE_PATTERN, { { 0, 0 } }, 0, 0, 0, 0, WEAKEN_NONE,
    NULL, -1, 0, 0, 0, 0 };

static void	parent_test_option(const char *);
static void	parent_test_probes(void);
#endif

static __dead void usage(void);
static __dead void parent_check(const char *, int);
static __dead void parent_run(const char *, int, int);
static void	parent_stdio(void);
static void	parent_dirs(const struct cmcp_conf *, char *, size_t,
		    char *, size_t);
static void	parent_init_check(const char *);
static void	parent_socket_check(const char *);
static void	parent_send_init(const struct cmcp_conf *, enum cmcp_proc,
		    const char *, const char *);
static void	parent_session_prepare(const struct cmcp_conf *);
static void	parent_session_begin(void);
static void	parent_sandbox_prepare(const struct cmcp_conf *);
static void	parent_session_stop(void);
static void	parent_session_check(void);
static void	parent_session_wait(int, short, void *);
static void	parent_session_end(void);
static int	parent_hung_known(enum cmcp_proc);
static void	parent_session_report(void);
static void	parent_audit_record(struct audit_record *, enum audit_kind,
		    const char *);
static void	parent_session_ended(const struct audit_ack *, void *);
static void	parent_audit_failed(void *);
static __dead void parent_audit_cmd(const char *, int, char **);
static int	parent_session_outcome(void);
static void	parent_run_args(int, char *[]);
static void	parent_payload_read(const struct cmcp_conf *);
static void	parent_servers_spawn(const struct cmcp_conf *);
static void	parent_server_stderr(int, short, void *);
static void	parent_server_undrain(struct parent_server *);
static void	parent_servers_close(void);
static void	parent_gw_send(const struct cmcp_conf *);
static void	parent_upstreams(struct imsg *);
static void	parent_upstreams_refused(const char *);
static void	parent_upstreams_late(int, short, void *);
static void	parent_start_children(void);
static void	parent_session_finish(void);
static void	parent_gw_result(struct imsg *);
static void	parent_gw_late(int, short, void *);
static int	parent_reason_ok(const char *, size_t);
static void	parent_reap_judge(struct imsg *);
static int	parent_instance_alive(const char *);
static void	parent_instance_self(char *, size_t);
static int	parent_proc_start(pid_t, unsigned long long *);
static void	parent_dkr_grace(int, short, void *);
static void	parent_dispatch_bridge(struct imsg *);
static void	parent_dispatch_gateway(struct imsg *);
static void	parent_dispatch_auditor(struct imsg *);
static void	parent_dispatch_watchdog(struct imsg *);
static void	parent_dispatch_docker(struct imsg *);
static void	parent_dispatch_child(enum cmcp_proc, struct imsg *);
static void	parent_child_log(enum cmcp_proc, struct imsg *);
static void	parent_child_ready(enum cmcp_proc);
static void	parent_chan_closed(enum cmcp_proc);
static void	parent_sig(int, short, void *);
static void	parent_reap(void);
static void	parent_ready_timeout(int, short, void *);
static void	parent_stop(void);
static void	parent_stop_next(void);
static void	parent_teardown(void);
static void	parent_grace_expired(int, short, void *);
static void	parent_grace(int);
static int	parent_nalive(void);

static void (*const parent_dispatch[PROC_MAX])(struct imsg *) = {
	[PROC_BRIDGE] = parent_dispatch_bridge,
	[PROC_GATEWAY] = parent_dispatch_gateway,
	[PROC_AUDITOR] = parent_dispatch_auditor,
	[PROC_WATCHDOG] = parent_dispatch_watchdog,
	[PROC_DOCKER] = parent_dispatch_docker,
};

static __dead void
usage(void)
{
	extern char	*__progname;

	fprintf(stderr, "usage: %s [-dnv] [-f file]%s check\n"
	    "       %s [-dv] [-f file]%s run [-p payload-file]\n"
	    "       %s [-dv] [-f file] reap\n"
	    "       %s [-f file] audit verify [-t tip]\n"
	    "       %s [-f file] audit show [-j] [-s session]\n"
	    "       %s [-f file] revoke op ... | restore op ... | status\n",
	    __progname,
#ifdef CMCP_TEST
	    " [-X spec]", __progname, " [-X spec]", __progname, __progname,
	    __progname, __progname);
#else
	    "", __progname, "", __progname, __progname, __progname,
	    __progname);
#endif
	exit(1);
}

int
main(int argc, char *argv[], char *envp[])
{
	const char	*conffile = CMCP_CONF_FILE, *title = NULL;
	int		 ch, debug = 0, noaction = 0, verbose = 0;

	setproctitle_init(argc, argv, envp);
	log_init(LOG_TO_STDERR, 0, LOG_DAEMON);

	while ((ch = getopt(argc, argv, PARENT_OPTS)) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'f':
			conffile = optarg;
			break;
		case 'n':
			noaction = 1;
			break;
		case 'P':
			title = optarg;
			break;
		case 'v':
			verbose++;
			break;
#ifdef CMCP_TEST
		case 'X':
			parent_test_option(optarg);
			break;
#endif
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	/* A child re-executed by the parent (hidden flag). */
	if (title != NULL) {
		if (argc != 0)
			usage();
		proc_child(title, debug, verbose);
	}

	if (argc >= 2 && strcmp(argv[0], "audit") == 0 && !noaction)
		parent_audit_cmd(conffile, argc - 1, argv + 1);
	if (argc >= 2 && !noaction && (strcmp(argv[0], "revoke") == 0 ||
	    strcmp(argv[0], "restore") == 0))
		control_client(conffile, argc, argv);
	if (argc == 1 && !noaction && strcmp(argv[0], "status") == 0)
		control_client(conffile, argc, argv);
	if (argc >= 1 && strcmp(argv[0], "run") == 0 && !noaction) {
		parent_run_args(argc, argv);
		parent_run(conffile, debug, verbose);
	}
	if (argc != 1)
		usage();
	if (strcmp(argv[0], "check") == 0)
		parent_check(conffile, noaction);
	if (strcmp(argv[0], "run") == 0 && !noaction)
		parent_run(conffile, debug, verbose);
	if (strcmp(argv[0], "reap") == 0 && !noaction) {
		parent_mode = MODE_REAP;
		parent_run(conffile, debug, verbose);
	}
	usage();
}

static void
parent_check(const char *conffile, int noaction)
{
	struct cmcp_conf	*conf;
	const char		*corepattern = CMCP_CORE_PATTERN;

#ifdef CMCP_TEST
	corepattern = parent_test.corepattern;
#endif
	if ((conf = parse_config(conffile)) == NULL)
		exit(1);
	if (preflight_core_pattern(corepattern) == -1)
		exit(1);
	if (noaction)
		print_config(conf, stdout);
	else
		fprintf(stderr, "configuration OK\n");
	free_config(conf);
	if (fflush(stdout) == EOF)
		fatal("stdout");
	exit(0);
}

/*
 * audit verify [-t tip] | audit show [-s session] [-j]: read the database
 * of the configuration, read-only (a running auditor's lock refuses it).
 * verify exits 0 for an intact chain, 2 for a broken one, 1 when the
 * database cannot be read.
 */
static void
parent_audit_cmd(const char *conffile, int argc, char *argv[])
{
	struct cmcp_conf	*conf;
	struct audit_tip	 tip, *tipp = NULL;
	const char		*session = NULL;
	char			 path[PATH_MAX];
	uint64_t		 bad, n;
	int			 ch, mode = AUDIT_SHOW_TEXT, verify;

	if (strcmp(argv[0], "verify") == 0)
		verify = 1;
	else if (strcmp(argv[0], "show") == 0)
		verify = 0;
	else
		usage();
	optind = 0;
	while ((ch = getopt(argc, argv, verify ? "+t:" : "+js:")) != -1) {
		switch (ch) {
		case 't':
			if (audit_tip_parse(optarg, &tip) == -1)
				errx(1, "-t %s: not a tip (seq:hash)", optarg);
			tipp = &tip;
			break;
		case 'j':
			mode = AUDIT_SHOW_JSON;
			break;
		case 's':
			session = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	if ((conf = parse_config(conffile)) == NULL)
		exit(1);
	if (strlcpy(path, conf->c_audit_db, sizeof(path)) >= sizeof(path))
		errx(1, "audit database: path too long");
	free_config(conf);

	if (!verify) {
		if (audit_show(path, stdout, session, mode) == -1)
			exit(1);
		exit(0);
	}
	switch (audit_verify(path, tipp, &bad, &n)) {
	case AUDIT_VERIFY_OK:
		printf("%s: chain intact, %llu records%s\n", path,
		    (unsigned long long)n, tipp != NULL ?
		    ", the tip is in it" : "");
		exit(0);
	case AUDIT_VERIFY_BROKEN:
		printf("%s: chain broken at seq %llu, %llu records intact\n",
		    path, (unsigned long long)bad, (unsigned long long)n);
		exit(2);
	default:
		errx(1, "%s: cannot verify", path);
	}
}

static void
parent_run(const char *conffile, int debug, int verbose)
{
	static const int	 sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD };
	struct cmcp_conf	*conf;
	struct timeval		 tv;
	const char		*corepattern = CMCP_CORE_PATTERN;
	char			 auditdir[PATH_MAX], sockdir[PATH_MAX];
	int			 chan[PROC_MAX], i;
	pid_t			 pids[PROC_MAX];

#ifdef CMCP_TEST
	corepattern = parent_test.corepattern;
	if (parent_test.nosession && parent_mode == MODE_RUN)
		parent_mode = MODE_IDLE;
#endif
	/* Until the children run, errors also go to the operator. */
	log_init(debug ? LOG_TO_STDERR : LOG_TO_STDERR | LOG_TO_SYSLOG,
	    verbose, LOG_DAEMON);
	if (geteuid() != 0)
		fatalx("run: need root privileges");
	priv_nodump();
	parent_stdio();
	if ((conf = parse_config(conffile)) == NULL)
		exit(1);
	if (preflight_core_pattern(corepattern) == -1)
		exit(1);
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
		if (conf->c_users[i].uid == 0 || conf->c_users[i].gid == 0)
			fatalx("user %s: must not be root", proc_title(i));
	umask(022);
	parent_dirs(conf, auditdir, sizeof(auditdir), sockdir,
	    sizeof(sockdir));
	if (parent_mode == MODE_RUN) {
		parent_init_check(conf->c_init);
		parent_payload_read(conf);
	}
	if (parent_mode == MODE_RUN || parent_mode == MODE_REAP)
		parent_socket_check(conf->c_docker_socket);
	parent_session_prepare(conf);
#ifdef CMCP_TEST
	if (parent_test.stdout_path != NULL && (parent_test.stdout_fd =
	    open(parent_test.stdout_path, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0600)) == -1)
		fatal("%s", parent_test.stdout_path);
#endif

	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		fatal("signal");
	if (event_init() == NULL)
		fatalx("event_init failed");
	for (i = 0; i < (int)nitems(sigs); i++) {
		signal_set(&parent_ev_sig[i], sigs[i], parent_sig, NULL);
		if (signal_add(&parent_ev_sig[i], NULL) == -1)
			fatalx("signal_add failed");
	}
	evtimer_set(&parent_ev_ready, parent_ready_timeout, NULL);
	evtimer_set(&parent_ev_grace, parent_grace_expired, NULL);
	evtimer_set(&parent_ev_dkrgrace, parent_dkr_grace, NULL);
	evtimer_set(&parent_sess.ev_wait, parent_session_wait, NULL);
	evtimer_set(&parent_sess.ev_gwwait, parent_gw_late, NULL);
	evtimer_set(&parent_sess.ev_upwait, parent_upstreams_late, NULL);
	/*
	 * Before the coarse filter, which they would inherit; their pipes
	 * are close-on-exec, and the children close all but their channels.
	 */
	if (parent_mode == MODE_RUN) {
		control_init(conf);
		parent_servers_spawn(conf);
	}
	auditc_init(parent_audit_failed, NULL);

	proc_spawn(debug, verbose, pids, chan);
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++) {
		parent_children[i].pc_pid = pids[i];
		parent_children[i].pc_alive = 1;
		log_debug("started %s pid %ld", proc_title(i), (long)pids[i]);
		proc_chan_open(i, chan[i], parent_dispatch[i],
		    parent_chan_closed);
		parent_send_init(conf, i, auditdir, sockdir);
		/* The gateway takes these before its privilege drop. */
		if (i == PROC_GATEWAY)
			parent_gw_send(conf);
	}
	/*
	 * The session's parameters go out with the children's: dockerd-client
	 * admits and creates the container while the others start, and
	 * starts it only on IMSG_CTL_START, once every child is ready.
	 */
	parent_session_begin();
	if (!debug)
		log_init(LOG_TO_SYSLOG, verbose, LOG_DAEMON);
	free_config(conf);
#ifdef CMCP_TEST
	if (parent_test.nosandbox & PROC_BIT(PROC_PARENT))
		log_warnx("parent seccomp filter disabled (test build)");
	else
#endif
	sandbox_apply_coarse(parent_sandbox, nitems(parent_sandbox));

	ms_to_timeval(CHILD_READY_TIMEOUT_MS, &tv);
	if (evtimer_add(&parent_ev_ready, &tv) == -1)
		fatalx("evtimer_add failed");

	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

/* Descriptors 0-2 must be open, or a socketpair could land on them. */
static void
parent_stdio(void)
{
	int	 fd;

	do {
		if ((fd = open(_PATH_DEVNULL, O_RDWR)) == -1)
			fatal("%s", _PATH_DEVNULL);
	} while (fd <= STDERR_FILENO);
	if (close(fd) == -1)
		fatal("close");
}

/*
 * The empty root-owned chroot of the children, and the auditor's own
 * directory (the one holding the database): create what is missing,
 * refuse what is unsafe.
 */
static void
parent_dirs(const struct cmcp_conf *conf, char *auditdir, size_t len,
    char *sockdir, size_t socklen)
{
	const struct conf_user	*au = &conf->c_users[PROC_AUDITOR];
	struct dirent		*de;
	char			 path[PATH_MAX];
	DIR			*dir;

	/*
	 * dockerd-client's root is the directory of the Docker socket: it
	 * sees the socket and whatever else the engine keeps there, nothing
	 * of the rest of the host, and it cannot write there.
	 */
	if (conf->c_docker_socket[0] != '/')
		fatalx("docker socket: not an absolute path");
	if (strlcpy(path, conf->c_docker_socket, sizeof(path)) >=
	    sizeof(path) ||
	    strlcpy(sockdir, dirname(path), socklen) >= socklen)
		fatalx("docker socket: path too long");
	if (priv_check_dir(sockdir, 0, S_IWGRP | S_IWOTH) == -1)
		fatalx("refusing docker socket directory %s", sockdir);

	if (conf->c_chroot[0] != '/')
		fatalx("chroot: not an absolute path");
	if (mkdir(conf->c_chroot, 0755) == 0) {
		if (chown(conf->c_chroot, 0, 0) == -1 ||
		    chmod(conf->c_chroot, 0755) == -1)
			fatal("%s", conf->c_chroot);
	} else if (errno != EEXIST)
		fatal("mkdir %s", conf->c_chroot);
	if (priv_check_dir(conf->c_chroot, 0, S_IWGRP | S_IWOTH) == -1)
		fatalx("refusing chroot %s", conf->c_chroot);
	if ((dir = opendir(conf->c_chroot)) == NULL)
		fatal("%s", conf->c_chroot);
	errno = 0;
	while ((de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			fatalx("refusing chroot %s: not empty",
			    conf->c_chroot);
	if (errno != 0)
		fatal("%s", conf->c_chroot);
	if (closedir(dir) == -1)
		fatal("%s", conf->c_chroot);

	if (conf->c_audit_db[0] != '/')
		fatalx("audit database: not an absolute path");
	if (strlcpy(path, conf->c_audit_db, sizeof(path)) >= sizeof(path) ||
	    strlcpy(auditdir, dirname(path), len) >= len)
		fatalx("audit database: path too long");
	if (mkdir(auditdir, 0700) == 0) {
		if (chown(auditdir, au->uid, au->gid) == -1 ||
		    chmod(auditdir, 0700) == -1)
			fatal("%s", auditdir);
	} else if (errno != EEXIST)
		fatal("mkdir %s", auditdir);
	if (priv_check_dir(auditdir, au->uid, S_IRWXG | S_IRWXO) == -1)
		fatalx("refusing audit directory %s", auditdir);
}

static void
parent_send_init(const struct cmcp_conf *conf, enum cmcp_proc id,
    const char *auditdir, const char *sockdir)
{
	const struct conf_user	*u = &conf->c_users[id];
	struct ctl_init		 ci;
	const char		*root;

	memset(&ci, 0, sizeof(ci));
	ci.ci_uid = u->uid;
	ci.ci_gid = u->gid;
	/* Only the Docker socket holder gets a supplementary group. */
	if (id == PROC_DOCKER && u->has_group) {
		ci.ci_has_sgid = 1;
		ci.ci_sgid = u->sgid;
	}
	if (id == PROC_AUDITOR)
		root = auditdir;
	else if (id == PROC_DOCKER)
		root = sockdir;
	else
		root = conf->c_chroot;
	if (strlcpy(ci.ci_chroot, root, sizeof(ci.ci_chroot)) >=
	    sizeof(ci.ci_chroot))
		fatalx("chroot path too long");
	/* The auditor opens its database, a name in its root, before chroot. */
	if (id == PROC_AUDITOR && strlcpy(ci.ci_file,
	    strrchr(conf->c_audit_db, '/') + 1, sizeof(ci.ci_file)) >=
	    sizeof(ci.ci_file))
		fatalx("audit database: name too long");
#ifdef CMCP_TEST
	ci.ci_nosandbox = (parent_test.nosandbox & PROC_BIT(id)) != 0;
	ci.ci_noready = (parent_test.noready & PROC_BIT(id)) != 0;
	ci.ci_noauditwait = id == PROC_GATEWAY && parent_test.noauditwait;
#endif
	proc_compose(id, IMSG_CTL_INIT, &ci, sizeof(ci));
}

static void
parent_dispatch_bridge(struct imsg *imsg)
{
	struct bridge_result	 br;

	switch (imsg_get_type(imsg)) {
	case IMSG_BRIDGE_RESULT:
		if (!parent_sess.begun || parent_sess.have_bridge ||
		    imsg_get_data(imsg, &br, sizeof(br)) == -1 ||
		    br.br_outcome <= OUTCOME_NONE ||
		    br.br_outcome >= OUTCOME_MAX ||
		    !parent_reason_ok(br.br_reason, sizeof(br.br_reason)))
			fatalx("channel bridge: bad result");
		parent_sess.bridge = br;
		parent_sess.have_bridge = 1;
		parent_session_check();
		break;
	default:
		parent_dispatch_child(PROC_BRIDGE, imsg);
	}
}

static void
parent_dispatch_gateway(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_GW_UPSTREAMS:
		parent_upstreams(imsg);
		break;
	case IMSG_GW_RESULT:
		parent_gw_result(imsg);
		break;
	case IMSG_GW_POLICY_ACK:
		control_policy_ack(imsg);
		break;
	case IMSG_GW_STATUS_REPLY:
		control_status_reply(imsg);
		break;
	default:
		parent_dispatch_child(PROC_GATEWAY, imsg);
	}
}

static void
parent_dispatch_auditor(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_AUDIT_ACK:
		auditc_ack(imsg);
		break;
	default:
		parent_dispatch_child(PROC_AUDITOR, imsg);
	}
}

static void
parent_dispatch_watchdog(struct imsg *imsg)
{
	parent_dispatch_child(PROC_WATCHDOG, imsg);
}

static void
parent_dispatch_docker(struct imsg *imsg)
{
	struct dkr_result	 dr;

	switch (imsg_get_type(imsg)) {
	case IMSG_REAP_ASK:
		parent_reap_judge(imsg);
		break;
	case IMSG_DKR_STARTED:
		log_debug("session %s: container admitted and started",
		    parent_sess.sd.sd_session);
		break;
	case IMSG_DKR_RESULT:
		if (!parent_sess.begun || parent_sess.have_docker ||
		    imsg_get_data(imsg, &dr, sizeof(dr)) == -1 ||
		    dr.dr_outcome < OUTCOME_NONE ||
		    dr.dr_outcome >= OUTCOME_MAX ||
		    memchr(dr.dr_why, '\0', sizeof(dr.dr_why)) == NULL)
			fatalx("channel dockerd-client: bad result");
		parent_sess.docker = dr;
		parent_sess.have_docker = 1;
		parent_session_check();
		break;
	default:
		parent_dispatch_child(PROC_DOCKER, imsg);
	}
}

/* What every child may say to the parent. */
static void
parent_dispatch_child(enum cmcp_proc id, struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_READY:
		parent_child_ready(id);
		break;
	case IMSG_CTL_LOG:
		parent_child_log(id, imsg);
		break;
	default:
		proc_unexpected(id, imsg);
	}
}

/*
 * A child's log line: a fixed record, logged under the name of the
 * channel it came on, with anything unprintable replaced.
 */
static void
parent_child_log(enum cmcp_proc id, struct imsg *imsg)
{
	struct ctl_log	 cl;
	char		*p;
	int		 pri;

	if (imsg_get_data(imsg, &cl, sizeof(cl)) == -1 ||
	    memchr(cl.cl_msg, '\0', sizeof(cl.cl_msg)) == NULL)
		fatalx("channel %s: malformed log message", proc_title(id));
	for (p = cl.cl_msg; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	pri = cl.cl_pri & LOG_PRIMASK;
	if (pri < LOG_CRIT)
		pri = LOG_CRIT;
	logit(pri, "%s: %s", proc_title(id), cl.cl_msg);
}

static void
parent_child_ready(enum cmcp_proc id)
{
	int	 i;

	if (parent_children[id].pc_ready)
		fatalx("channel %s: ready twice", proc_title(id));
	parent_children[id].pc_ready = 1;
	log_debug("%s ready", proc_title(id));
	if (parent_state != PARENT_STARTING)
		return;
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
		if (!parent_children[i].pc_ready)
			return;

	if (evtimer_del(&parent_ev_ready) == -1)
		fatalx("evtimer_del failed");
	parent_state = PARENT_RUNNING;
	log_info("all children ready");
#ifdef CMCP_TEST
	/* The bridge takes it in its loop, before its session starts. */
	if (parent_test.stdout_fd != -1) {
		proc_compose_fd(PROC_BRIDGE, IMSG_TEST_STDOUT,
		    parent_test.stdout_fd, NULL, 0);
		parent_test.stdout_fd = -1;
	}
#endif
	parent_start_children();
}

static void
parent_chan_closed(enum cmcp_proc id)
{
	if (parent_state == PARENT_STOPPING || parent_state == PARENT_TEARDOWN)
		return;
	log_warnx("lost channel to %s", proc_title(id));
	parent_teardown();
}

static void
parent_sig(int sig, short event, void *arg)
{
	(void)event;
	(void)arg;
	switch (sig) {
	case SIGTERM:
	case SIGINT:
	case SIGHUP:
		if (parent_sess.begun && !parent_sess.ended &&
		    !parent_sess.signalled && parent_state == PARENT_RUNNING)
			parent_session_stop();
		else {
			/* Still starting: the orderly stop ends the session. */
			if (parent_sess.begun && !parent_sess.ended)
				parent_sess.signalled = 1;
			parent_stop();
		}
		break;
	case SIGCHLD:
		parent_reap();
		break;
	}
}

static void
parent_reap(void)
{
	struct parent_child	*pc;
	const char		*title;
	pid_t			 pid;
	int			 status, i, failed;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		/* A traced child reports stops too; only an end counts. */
		if (!WIFEXITED(status) && !WIFSIGNALED(status))
			continue;
		for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
			if (parent_children[i].pc_alive &&
			    parent_children[i].pc_pid == pid)
				break;
		if (i == PROC_MAX)
			continue;
		pc = &parent_children[i];
		pc->pc_alive = 0;
		proc_chan_reap(i);
		if (i == PROC_AUDITOR)
			auditc_lost();
		title = proc_title(i);

		failed = parent_state != PARENT_STOPPING;
		if (WIFSIGNALED(status)) {
			log_warnx("%s terminated by signal %d", title,
			    WTERMSIG(status));
			failed = 1;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
			log_warnx("%s exited with status %d", title,
			    WEXITSTATUS(status));
			failed = 1;
		} else if (failed)
			log_warnx("%s exited", title);
		else
			log_debug("%s exited", title);

		if (failed && parent_state != PARENT_STOPPING)
			parent_teardown();
		else if (failed && !parent_hung_known(i))
			parent_status = 1;
		if (parent_state == PARENT_STOPPING)
			parent_stop_next();
	}
	if (pid == -1 && errno != ECHILD)
		fatal("waitpid");

	if (parent_nalive() == 0) {
		log_debug("all children gone, exit %d", parent_status);
		exit(parent_status);
	}
}

static void
parent_ready_timeout(int fd, short event, void *arg)
{
	int	 i;

	(void)fd;
	(void)event;
	(void)arg;
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
		if (!parent_children[i].pc_ready)
			log_warnx("%s not ready after %d ms", proc_title(i),
			    CHILD_READY_TIMEOUT_MS);
	parent_teardown();
}

/*
 * Orderly shutdown: first tell everyone that channels will close, then
 * let one child after the other exit.
 */
static void
parent_stop(void)
{
	int	 i;

	if (parent_state == PARENT_STOPPING || parent_state == PARENT_TEARDOWN)
		return;
	log_info("shutting down");
	if (evtimer_del(&parent_ev_ready) == -1)
		fatalx("evtimer_del failed");
	parent_state = PARENT_STOPPING;
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++) {
		if (!parent_children[i].pc_alive)
			continue;
		proc_compose(i, IMSG_CTL_STOPPING, NULL, 0);
		proc_flush(i);
	}
	parent_stop_next();
}

static void
parent_stop_next(void)
{
	enum cmcp_proc	 id;
	size_t		 i;

	for (i = 0; i < nitems(parent_stop_order); i++) {
		id = parent_stop_order[i];
		if (parent_children[id].pc_alive)
			break;
	}
	if (i == nitems(parent_stop_order))
		return;
	proc_compose(id, IMSG_CTL_SHUTDOWN, NULL, 0);
	parent_grace(0);
}

/* A child failed: terminate the others, kill what is left after grace. */
static void
parent_teardown(void)
{
	struct timeval	 tv;
	int		 i;

	/* Once: another child failing meanwhile changes no outcome. */
	if (parent_state == PARENT_TEARDOWN)
		return;
	parent_status = 1;
	if (parent_sess.begun && !parent_sess.ended) {
		parent_sess.child_died = 1;
		parent_session_end();
	}
	parent_state = PARENT_TEARDOWN;
	/* dockerd-client removes the container on SIGTERM: give it time. */
	ms_to_timeval(DKR_CLEANUP_GRACE_MS, &tv);
	if (evtimer_add(&parent_ev_dkrgrace, &tv) == -1)
		fatalx("evtimer_add failed");
	if (evtimer_del(&parent_ev_ready) == -1)
		fatalx("evtimer_del failed");
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
		if (parent_children[i].pc_alive &&
		    (i != PROC_AUDITOR || !parent_sess.audit_wait) &&
		    kill(parent_children[i].pc_pid, SIGTERM) == -1 &&
		    errno != ESRCH)
			fatal("kill %s", proc_title(i));
	parent_grace(1);
}

/* (Re)arm the grace timer; on expiry, kill one child or all of them. */
static void
parent_grace(int all)
{
	static int	 grace_all;
	struct timeval	 tv;

	grace_all = all;
	if (evtimer_del(&parent_ev_grace) == -1)
		fatalx("evtimer_del failed");
	evtimer_set(&parent_ev_grace, parent_grace_expired, &grace_all);
	ms_to_timeval(SHUTDOWN_GRACE_MS, &tv);
	if (evtimer_add(&parent_ev_grace, &tv) == -1)
		fatalx("evtimer_add failed");
}

/*
 * The session's outcome already says that this child stopped answering
 * (DESIGN 10): the bridge after watchdog_stop, the watchdog after
 * ack_timeout.  Killing it at the shutdown then leaves run's status to
 * the outcome.
 */
static int
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

static void
parent_grace_expired(int fd, short event, void *arg)
{
	enum cmcp_proc	 id;
	size_t		 i;
	int		 all = *(int *)arg;

	(void)fd;
	(void)event;
	for (i = 0; i < nitems(parent_stop_order); i++) {
		id = parent_stop_order[i];
		if (!parent_children[id].pc_alive)
			continue;
		/* In a teardown, it has its own longer grace. */
		if (all && id == PROC_DOCKER)
			continue;
		log_warnx("%s did not exit in %d ms, killing it",
		    proc_title(id), SHUTDOWN_GRACE_MS);
		if (!parent_hung_known(id))
			parent_status = 1;
		if (kill(parent_children[id].pc_pid, SIGKILL) == -1 &&
		    errno != ESRCH)
			fatal("kill %s", proc_title(id));
		if (!all)
			break;
	}
}

static void
parent_dkr_grace(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	if (!parent_children[PROC_DOCKER].pc_alive)
		return;
	log_warnx("dockerd-client did not exit in %d ms, killing it",
	    DKR_CLEANUP_GRACE_MS);
	if (kill(parent_children[PROC_DOCKER].pc_pid, SIGKILL) == -1 &&
	    errno != ESRCH)
		fatal("kill dockerd-client");
}

static int
parent_nalive(void)
{
	int	 i, n = 0;

	for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
		if (parent_children[i].pc_alive)
			n++;
	return (n);
}

/*
 * cmcp-init is mounted into every container and runs as its PID 1: it must
 * be a regular file (not a link) that only root can change.
 */
static void
parent_init_check(const char *path)
{
	struct stat	 st;

	if (strlen(path) >= SESSION_PATH_BYTES)
		fatalx("init %s: path too long", path);
	if (lstat(path, &st) == -1)
		fatal("init %s", path);
	if (!S_ISREG(st.st_mode))
		fatalx("init %s: not a regular file", path);
	if (st.st_uid != 0)
		fatalx("init %s: owned by uid %u, must be uid 0", path,
		    (unsigned int)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		fatalx("init %s: mode %04o allows group or other writes",
		    path, (unsigned int)(st.st_mode & 07777));
	if ((st.st_mode & S_IXOTH) == 0)
		fatalx("init %s: not executable by the container user", path);
}

/*
 * The Docker socket, when it is there, is a local unix socket that root
 * owns.  A missing one is Docker's absence, which the session reports.
 */
static void
parent_socket_check(const char *path)
{
	struct stat	 st;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return;
		fatal("docker socket %s", path);
	}
	if (!S_ISSOCK(st.st_mode))
		fatalx("docker socket %s: not a unix socket", path);
	if (st.st_uid != 0)
		fatalx("docker socket %s: owned by uid %u, must be uid 0", path,
		    (unsigned int)st.st_uid);
}

/*
 * Everything the session needs from the configuration, in the fixed
 * messages, before the configuration is freed: identifiers, the socket
 * as dockerd-client sees it, the container's profile, the budgets.
 */
static void
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
		if (parent_sess.gw_wait_ms < 1000 + AUDIT_ACK_WAIT_MS +
		    (int64_t)srv->timeout_ms)
			parent_sess.gw_wait_ms = 1000 + AUDIT_ACK_WAIT_MS +
			    srv->timeout_ms;
	}
	/* After that the parent has started the session or refused it. */
	sd->sd_start_wait_ms = CHILD_READY_TIMEOUT_MS +
	    parent_sess.up_wait_ms + HOST_DEADLINE_SLACK_MS;
	parent_sandbox_prepare(conf);
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

/* The bridge learns its budgets before dockerd-client starts anything. */
static void
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
}

/* A signal: the container goes first, then the suite. */
static void
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
static void
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
 * The session is over: set the exit status, record the end, and print the
 * summary once the record is durable (or cannot be).
 */
static void
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

	parent_servers_close();
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

/* run's own options: -p payload-file. */
static void
parent_run_args(int argc, char *argv[])
{
	int	 ch;

	optind = 0;
	while ((ch = getopt(argc, argv, "+p:")) != -1) {
		switch (ch) {
		case 'p':
			parent_payload_path = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
}

/*
 * The initial payload (-p): the operator's JSON, "{}" without -p, kept in
 * the canonical form the agent will see.  It must fit the initial frame,
 * {"payload":...} within the agent's frame bound.
 */
static void
parent_payload_read(const struct cmcp_conf *conf)
{
	static char		 raw[AGENT_FRAME_BYTES + 1];
	struct json_limits	 lim;
	const char		*why, *path = parent_payload_path;
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

/*
 * Every approved server, each the init of its own pid namespace, with
 * its stderr drained and counted here, never logged or stored.  One that
 * does not start ends the suite before anything else starts.
 */
static void
parent_servers_spawn(const struct cmcp_conf *conf)
{
	const struct conf_server	*srv;
	struct parent_server		*ps;

	TAILQ_FOREACH(srv, &conf->c_servers, entry) {
		if (parent_nservers == nitems(parent_servers))
			fatalx("too many servers");
		ps = &parent_servers[parent_nservers];
		if (mcps_spawn(srv, &ps->ps_m) == -1)
			fatalx("server %s: cannot start", srv->name);
		parent_nservers++;
		event_set(&ps->ps_ev, ps->ps_m.errfd, EV_READ | EV_PERSIST,
		    parent_server_stderr, ps);
		if (event_add(&ps->ps_ev, NULL) == -1)
			fatalx("event_add failed");
		ps->ps_draining = 1;
	}
}

static void
parent_server_stderr(int fd, short event, void *arg)
{
	struct parent_server	*ps = arg;

	(void)fd;
	(void)event;
	if (mcps_drain_stderr(&ps->ps_m) == -1) {
		log_warn("server %s: stderr", ps->ps_m.name);
		parent_server_undrain(ps);
		return;
	}
	/* End of file: mcps_drain_stderr() closed it. */
	if (ps->ps_m.errfd == -1)
		parent_server_undrain(ps);
}

static void
parent_server_undrain(struct parent_server *ps)
{
	if (!ps->ps_draining)
		return;
	if (event_del(&ps->ps_ev) == -1)
		fatalx("event_del failed");
	ps->ps_draining = 0;
}

/*
 * Close every server and confirm that no process of its namespace is
 * left (mcpserver.h).  The gateway closed their pipes at IMSG_GW_END, so
 * a server that behaves has seen end of file and exits; the others get
 * SIGTERM, then SIGKILL.  Not confirmed is a cleanup failure.
 */
static void
parent_servers_close(void)
{
	struct parent_server	*ps;
	size_t			 i;

	for (i = 0; i < parent_nservers; i++) {
		ps = &parent_servers[i];
		parent_server_undrain(ps);
		if (mcps_close(&ps->ps_m, PARENT_SERVER_CLOSE_MS) == -1) {
			log_warnx("server %s: its processes are not "
			    "confirmed gone", ps->ps_m.name);
			parent_sess.servers_left = 1;
		} else
			log_info("server %s: closed, all its processes gone, "
			    "%llu stderr bytes", ps->ps_m.name,
			    (unsigned long long)ps->ps_m.errbytes);
	}
	/*
	 * That may have blocked for seconds: timers armed next (the grace of
	 * the orderly stop) must not start from the loop's stale clock.
	 */
	if (parent_nservers > 0 && event_base_update_cache_time(
	    event_get_base(&parent_sess.ev_wait)) == -1)
		fatalx("event_base_update_cache_time failed");
}

/*
 * What the gateway takes before its privilege drop: the configuration,
 * printed in normal form into a sealed memfd (the gateway parses it as
 * /proc/self/fd/N, with every include and macro resolved), and both pipes
 * of every server, which the parent does not keep.  The message says how
 * many servers follow: none outside a session.
 */
static void
parent_gw_send(const struct cmcp_conf *conf)
{
	struct gw_server_fd	 gs;
	struct mcps		*m;
	FILE			*fp;
	uint32_t		 n = parent_nservers;
	size_t			 i;
	int			 fd, dfd;

	if ((fd = memfd_create("cmcp-privsep.conf", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1)
		fatal("memfd_create");
	if ((dfd = dup(fd)) == -1 || (fp = fdopen(dfd, "w")) == NULL)
		fatal("configuration for the gateway");
	print_config(conf, fp);
	if (fclose(fp) == EOF)
		fatal("configuration for the gateway");
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) == -1)
		fatal("configuration for the gateway: seals");
	proc_compose_fd(PROC_GATEWAY, IMSG_GW_CONFIG, fd, &n, sizeof(n));

	for (i = 0; i < parent_nservers; i++) {
		m = &parent_servers[i].ps_m;
		gs.gs_index = i;
		gs.gs_dir = 0;
		proc_compose_fd(PROC_GATEWAY, IMSG_GW_SERVER, m->infd, &gs,
		    sizeof(gs));
		m->infd = -1;
		gs.gs_dir = 1;
		proc_compose_fd(PROC_GATEWAY, IMSG_GW_SERVER, m->outfd, &gs,
		    sizeof(gs));
		m->outfd = -1;
	}
}

/* The gateway's verdict on its servers: start the session, or refuse. */
static void
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

/* Every child ready and, for a session, every server: go. */
static void
parent_start_children(void)
{
	int	 i;

	if (parent_state != PARENT_RUNNING || parent_sess.started)
		return;
	if (parent_mode == MODE_RUN && parent_sess.upstreams != 1)
		return;
	parent_sess.started = 1;
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
		proc_compose(i, IMSG_CTL_START, NULL, 0);
#ifdef CMCP_TEST
	parent_test_probes();
#endif
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

static void
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

/* A reason from a child: a fixed code, NUL-terminated, [a-z0-9_]. */
static int
parent_reason_ok(const char *r, size_t len)
{
	const char	*p;

	if (memchr(r, '\0', len) == NULL)
		return (0);
	for (p = r; *p != '\0'; p++)
		if ((*p < 'a' || *p > 'z') && (*p < '0' || *p > '9') &&
		    *p != '_')
			return (0);
	return (1);
}

/*
 * dockerd-client found containers of other suite instances: only the
 * parent can tell which of them are dead.  An instance name this suite
 * would not have written is never judged dead.
 */
static void
parent_reap_judge(struct imsg *imsg)
{
	struct reap_instances	 ask, dead;
	uint32_t		 i;

	if (!parent_sess.begun || imsg_get_data(imsg, &ask, sizeof(ask)) == -1 ||
	    ask.ri_count > REAP_INSTANCES_MAX)
		fatalx("channel dockerd-client: bad reap request");
	memset(&dead, 0, sizeof(dead));
	for (i = 0; i < ask.ri_count; i++) {
		if (memchr(ask.ri_instance[i], '\0', INSTANCE_ID_BYTES) == NULL)
			fatalx("channel dockerd-client: bad reap request");
		if (parent_instance_alive(ask.ri_instance[i]))
			continue;
		log_debug("instance %s is dead", ask.ri_instance[i]);
		strlcpy(dead.ri_instance[dead.ri_count++], ask.ri_instance[i],
		    INSTANCE_ID_BYTES);
	}
	proc_compose(PROC_DOCKER, IMSG_REAP_DEAD, &dead, sizeof(dead));
	parent_sess.reaped = 1;
	if (parent_sess.stop_pending)
		proc_compose(PROC_DOCKER, IMSG_SESSION_STOP, NULL, 0);
}

/*
 * An instance is "<boot id>-<pid>-<start time>": the boot id without its
 * dashes, the parent's pid and its start time in clock ticks after boot
 * (proc(5) stat field 22).  It is dead when it ran in another boot, or
 * when no process of that pid with that start time runs now.
 */
static int
parent_instance_alive(const char *inst)
{
	unsigned long long	 start, want;
	const char		*errstr, *p;
	char			 buf[INSTANCE_ID_BYTES], *pid, *st;
	pid_t			 n;

	if (strlcpy(buf, inst, sizeof(buf)) >= sizeof(buf) ||
	    strlen(buf) < 33 || buf[32] != '-')
		return (1);
	for (p = buf; p < buf + 32; p++)
		if (!isxdigit((unsigned char)*p) || isupper((unsigned char)*p))
			return (1);
	buf[32] = '\0';
	pid = buf + 33;
	if ((st = strchr(pid, '-')) == NULL)
		return (1);
	*st++ = '\0';
	n = strtonum(pid, 1, INT32_MAX, &errstr);
	if (errstr != NULL)
		return (1);
	want = strtonum(st, 0, LLONG_MAX, &errstr);
	if (errstr != NULL)
		return (1);
	if (strcmp(buf, parent_bootid) != 0)
		return (0);
	if (parent_proc_start(n, &start) == -1)
		return (errno != ENOENT && errno != ESRCH);
	return (start == want);
}

/* This instance: the boot id and our own pid and start time. */
static void
parent_instance_self(char *buf, size_t len)
{
	unsigned long long	 start;
	FILE			*fp;
	char			 line[64];
	size_t			 i, j = 0;

	if ((fp = fopen("/proc/sys/kernel/random/boot_id", "re")) == NULL)
		fatal("boot_id");
	if (fgets(line, sizeof(line), fp) == NULL)
		fatalx("boot_id: empty");
	fclose(fp);
	for (i = 0; line[i] != '\0' && line[i] != '\n'; i++)
		if (line[i] != '-' && j < sizeof(parent_bootid) - 1)
			parent_bootid[j++] = tolower((unsigned char)line[i]);
	parent_bootid[j] = '\0';
	if (j != 32)
		fatalx("boot_id: unexpected format");
	if (parent_proc_start(getpid(), &start) == -1)
		fatal("/proc/self/stat");
	if ((size_t)snprintf(buf, len, "%s-%ld-%llu", parent_bootid,
	    (long)getpid(), start) >= len)
		fatalx("instance id too long");
}

/* The start time of a process, field 22 of /proc/PID/stat. */
static int
parent_proc_start(pid_t pid, unsigned long long *start)
{
	char		 path[64], line[1024], *p, *end;
	FILE		*fp;
	int		 field;

	(void)snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (-1);
	if (fgets(line, sizeof(line), fp) == NULL) {
		fclose(fp);
		errno = EIO;
		return (-1);
	}
	fclose(fp);
	/* The command name may hold blanks and parentheses. */
	if ((p = strrchr(line, ')')) == NULL) {
		errno = EIO;
		return (-1);
	}
	p++;
	for (field = 3; field < 22; field++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	p += strspn(p, " ");
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (errno != 0 || end == p) {
		errno = EIO;
		return (-1);
	}
	return (0);
}

#ifdef CMCP_TEST
/*
 * Test build only: -X corepattern=PATH, -X probe=PROC:ATTEMPT,
 * -X nosandbox=PROC, -X noready=PROC, -X nosession (run starts the
 * children and no session), -X weaken=network|rootfs|logs|core (a profile
 * field weakened at create, for admission to refuse; repeated, the fields
 * combine: a core dump needs weaken=core and a writable place such as
 * weaken=rootfs), -X stdout=FILE (the
 * bridge copies the workload's stdout there), -X nowatchdog (the watchdog
 * never asks for the stop), -X noackcheck (the bridge ignores a missing
 * ack), -X noauditwait (the gateway calls without waiting for the
 * decision record's ack), -X noadmit (dockerd-client logs an admission
 * refusal and goes on: the causal mutations of regress/evidence).
 */
static void
parent_test_option(const char *spec)
{
	const struct privsep_proc	*p;
	struct parent_probe		*pp;
	char				 buf[64], *attempt;

	if (strncmp(spec, "corepattern=", 12) == 0) {
		parent_test.corepattern = spec + 12;
		return;
	}
	if (strncmp(spec, "nosandbox=", 10) == 0) {
		if ((p = proc_bytitle(spec + 10)) == NULL)
			fatalx("-X %s: unknown process", spec);
		parent_test.nosandbox |= PROC_BIT(p->p_id);
		return;
	}
	if (strcmp(spec, "nosession") == 0) {
		parent_test.nosession = 1;
		return;
	}
	if (strncmp(spec, "weaken=", 7) == 0) {
		if (strcmp(spec + 7, "network") == 0)
			parent_test.weaken |= WEAKEN_NETWORK;
		else if (strcmp(spec + 7, "rootfs") == 0)
			parent_test.weaken |= WEAKEN_ROOTFS;
		else if (strcmp(spec + 7, "logs") == 0)
			parent_test.weaken |= WEAKEN_LOGS;
		else if (strcmp(spec + 7, "core") == 0)
			parent_test.weaken |= WEAKEN_CORE;
		else
			fatalx("-X %s: unknown field", spec);
		return;
	}
	if (strncmp(spec, "stdout=", 7) == 0) {
		parent_test.stdout_path = spec + 7;
		return;
	}
	if (strcmp(spec, "noadmit") == 0) {
		parent_test.noadmit = 1;
		return;
	}
	if (strcmp(spec, "control-unknown") == 0) {
		control_forward_unknown = 1;
		return;
	}
	if (strcmp(spec, "control-replay") == 0) {
		control_replay = 1;
		return;
	}
	if (strcmp(spec, "nowatchdog") == 0) {
		parent_test.nowatchdog = 1;
		return;
	}
	if (strcmp(spec, "noackcheck") == 0) {
		parent_test.noackcheck = 1;
		return;
	}
	if (strcmp(spec, "noauditwait") == 0) {
		parent_test.noauditwait = 1;
		return;
	}
	if (strncmp(spec, "noready=", 8) == 0) {
		if ((p = proc_bytitle(spec + 8)) == NULL ||
		    p->p_id == PROC_PARENT)
			fatalx("-X %s: unknown process", spec);
		parent_test.noready |= PROC_BIT(p->p_id);
		return;
	}
	if (strncmp(spec, "probe=", 6) == 0) {
		if (parent_test.nprobes == PARENT_PROBES)
			fatalx("-X %s: too many probes", spec);
		if (strlcpy(buf, spec + 6, sizeof(buf)) >= sizeof(buf) ||
		    (attempt = strchr(buf, ':')) == NULL)
			fatalx("-X %s: want probe=PROC:ATTEMPT", spec);
		*attempt++ = '\0';
		pp = &parent_test.probes[parent_test.nprobes];
		if ((p = proc_bytitle(buf)) == NULL)
			fatalx("-X %s: unknown process", spec);
		pp->pp_proc = p->p_id;
		if ((pp->pp_attempt = proc_probe_byname(attempt)) == -1)
			fatalx("-X %s: unknown attempt", spec);
		/* The parent must signal; ptrace is what it must not do. */
		if (pp->pp_proc == PROC_PARENT &&
		    pp->pp_attempt != PROBE_PTRACE)
			fatalx("-X %s: the parent probes only ptrace", spec);
		parent_test.nprobes++;
		return;
	}
	fatalx("-X %s: unknown test option", spec);
}

/* Once all are ready: each probe names a sibling as kill/ptrace target. */
static void
parent_test_probes(void)
{
	struct parent_probe	*pp;
	struct ctl_probe	 cp;
	enum cmcp_proc		 sibling;
	size_t			 i;

	for (i = 0; i < parent_test.nprobes; i++) {
		pp = &parent_test.probes[i];
		sibling = pp->pp_proc % (PROC_MAX - 1) + 1;
		memset(&cp, 0, sizeof(cp));
		cp.cp_attempt = pp->pp_attempt;
		cp.cp_sibling = parent_children[sibling].pc_pid;
		log_debug("probe %s: %s", proc_title(pp->pp_proc),
		    proc_probe_name(pp->pp_attempt));
		if (pp->pp_proc == PROC_PARENT)
			proc_probe_run(pp->pp_attempt, cp.cp_sibling);
		else
			proc_compose(pp->pp_proc, IMSG_CTL_PROBE, &cp,
			    sizeof(cp));
	}
}
#endif
