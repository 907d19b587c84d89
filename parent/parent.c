/*
 * cmcp-privsep: main() and the root parent.  The parent reads the
 * configuration, checks the host, prepares the children's directories,
 * starts the five children (common/proc.c) and keeps them running: one
 * dying ends the suite, a signal to the parent stops them in order.
 * What each file of parent/ does is in parent.h.
 */

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <libgen.h>
#include <paths.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "auditclient.h"
#include "config.h"
#include "control.h"
#include "log.h"
#include "mstime.h"
#include "parent.h"
#include "proc.h"
#include "sandbox.h"

#ifdef CMCP_TEST
#define PARENT_OPTS	"+df:nP:vX:"
#else
#define PARENT_OPTS	"+df:nP:v"
#endif

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

struct parent_child		 parent_children[PROC_MAX];
enum parent_state		 parent_state = PARENT_STARTING;
enum parent_mode		 parent_mode = MODE_RUN;
int				 parent_status;
static struct event		 parent_ev_ready, parent_ev_grace;
static struct event		 parent_ev_dkrgrace;
static struct event		 parent_ev_sig[4];
static const char		*parent_payload_path;

static __dead void parent_run(const char *, int, int);
static void	parent_run_args(int, char *[]);
static void	parent_stdio(void);
static void	parent_dirs(const struct cmcp_conf *, char *, size_t,
		    char *, size_t);
static void	parent_init_check(const char *);
static void	parent_socket_check(const char *);
static void	parent_send_init(const struct cmcp_conf *, enum cmcp_proc,
		    const char *, const char *);
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

__dead void
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
		parent_payload_read(conf, parent_payload_path);
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
	parent_session_init();
	/*
	 * Before the coarse filter, which they would inherit; their pipes
	 * are close-on-exec, and the children close all but their channels.
	 */
	if (parent_mode == MODE_RUN) {
		control_init(conf);
		parent_servers_spawn(conf);
	}

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

/* A reason from a child: a fixed code, NUL-terminated, [a-z0-9_]. */
int
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

/* Every child ready and, for a session, every server: go. */
void
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
void
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
