/*
 * cmcp-privsep: main() and the root parent.  The parent reads the
 * configuration, checks the host, prepares the children's directories,
 * starts the five children (common/proc.c) and keeps them running: one
 * dying ends the suite, a signal to the parent stops them in order.
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

#include "config.h"
#include "log.h"
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
static int			 parent_status;
static struct event		 parent_ev_ready, parent_ev_grace;
static struct event		 parent_ev_sig[4];

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
} parent_test = { CMCP_CORE_PATTERN, { { 0, 0 } }, 0, 0, 0 };

static void	parent_test_option(const char *);
static void	parent_test_probes(void);
#endif

static __dead void usage(void);
static __dead void parent_check(const char *, int);
static __dead void parent_run(const char *, int, int);
static void	parent_stdio(void);
static void	parent_dirs(const struct cmcp_conf *, char *, size_t);
static void	parent_send_init(const struct cmcp_conf *, enum cmcp_proc,
		    const char *);
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
	    "       %s [-dv] [-f file]%s run\n", __progname,
#ifdef CMCP_TEST
	    " [-X spec]", __progname, " [-X spec]");
#else
	    "", __progname, "");
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

	if (argc != 1)
		usage();
	if (strcmp(argv[0], "check") == 0)
		parent_check(conffile, noaction);
	if (strcmp(argv[0], "run") == 0 && !noaction)
		parent_run(conffile, debug, verbose);
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

static void
parent_run(const char *conffile, int debug, int verbose)
{
	static const int	 sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD };
	struct cmcp_conf	*conf;
	struct timeval		 tv;
	const char		*corepattern = CMCP_CORE_PATTERN;
	char			 auditdir[PATH_MAX];
	int			 chan[PROC_MAX], i;
	pid_t			 pids[PROC_MAX];

#ifdef CMCP_TEST
	corepattern = parent_test.corepattern;
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
	parent_dirs(conf, auditdir, sizeof(auditdir));

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

	proc_spawn(debug, verbose, pids, chan);
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++) {
		parent_children[i].pc_pid = pids[i];
		parent_children[i].pc_alive = 1;
		log_debug("started %s pid %ld", proc_title(i), (long)pids[i]);
		proc_chan_open(i, chan[i], parent_dispatch[i],
		    parent_chan_closed);
		parent_send_init(conf, i, auditdir);
	}
	if (!debug)
		log_init(LOG_TO_SYSLOG, verbose, LOG_DAEMON);
	free_config(conf);
#ifdef CMCP_TEST
	if (parent_test.nosandbox & PROC_BIT(PROC_PARENT))
		log_warnx("parent seccomp filter disabled (test build)");
	else
#endif
	sandbox_apply_coarse(parent_sandbox, nitems(parent_sandbox));

	tv.tv_sec = CHILD_READY_TIMEOUT_MS / 1000;
	tv.tv_usec = (CHILD_READY_TIMEOUT_MS % 1000) * 1000;
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
parent_dirs(const struct cmcp_conf *conf, char *auditdir, size_t len)
{
	const struct conf_user	*au = &conf->c_users[PROC_AUDITOR];
	struct dirent		*de;
	char			 path[PATH_MAX];
	DIR			*dir;

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
    const char *auditdir)
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
	root = id == PROC_AUDITOR ? auditdir : conf->c_chroot;
	if (strlcpy(ci.ci_chroot, root, sizeof(ci.ci_chroot)) >=
	    sizeof(ci.ci_chroot))
		fatalx("chroot path too long");
#ifdef CMCP_TEST
	ci.ci_nosandbox = (parent_test.nosandbox & PROC_BIT(id)) != 0;
	ci.ci_noready = (parent_test.noready & PROC_BIT(id)) != 0;
#endif
	proc_compose(id, IMSG_CTL_INIT, &ci, sizeof(ci));
}

static void
parent_dispatch_bridge(struct imsg *imsg)
{
	parent_dispatch_child(PROC_BRIDGE, imsg);
}

static void
parent_dispatch_gateway(struct imsg *imsg)
{
	parent_dispatch_child(PROC_GATEWAY, imsg);
}

static void
parent_dispatch_auditor(struct imsg *imsg)
{
	parent_dispatch_child(PROC_AUDITOR, imsg);
}

static void
parent_dispatch_watchdog(struct imsg *imsg)
{
	parent_dispatch_child(PROC_WATCHDOG, imsg);
}

static void
parent_dispatch_docker(struct imsg *imsg)
{
	parent_dispatch_child(PROC_DOCKER, imsg);
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
		parent_stop();
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
		else if (failed)
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
	int	 i;

	parent_status = 1;
	if (parent_state == PARENT_TEARDOWN)
		return;
	parent_state = PARENT_TEARDOWN;
	if (evtimer_del(&parent_ev_ready) == -1)
		fatalx("evtimer_del failed");
	for (i = PROC_PARENT + 1; i < PROC_MAX; i++)
		if (parent_children[i].pc_alive &&
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
	tv.tv_sec = SHUTDOWN_GRACE_MS / 1000;
	tv.tv_usec = (SHUTDOWN_GRACE_MS % 1000) * 1000;
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
		log_warnx("%s did not exit in %d ms, killing it",
		    proc_title(id), SHUTDOWN_GRACE_MS);
		parent_status = 1;
		if (kill(parent_children[id].pc_pid, SIGKILL) == -1 &&
		    errno != ESRCH)
			fatal("kill %s", proc_title(id));
		if (!all)
			break;
	}
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

#ifdef CMCP_TEST
/*
 * Test build only: -X corepattern=PATH, -X probe=PROC:ATTEMPT,
 * -X nosandbox=PROC, -X noready=PROC.
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
