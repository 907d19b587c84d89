/*
 * startup -- how long a session takes to start and to end, cmcp-privsep
 * against the docker CLI, side by side on the private engine.
 *
 *	startup [-v] [-n runs] [-o tsv] images.env cmcp-privsep-test
 *
 * For each run, measured from just before the exec:
 *	first_byte	the workload's first stdout byte reaches us
 *	cleanup		the command has exited; for cmcp-privsep that is
 *			after dockerd-client confirmed the container's
 *			absence (404), for `docker run --rm' after the
 *			engine removed it (the CLI waits for "removed")
 *
 * cmcp-privsep-test is the test build: -X stdout=FIFO lets the bridge copy
 * the workload's stdout to us, which the installed binary cannot do.  Both
 * commands run the same image, user, limits, mounts and supervisor, and the
 * runs alternate so that drift hits both.  Prints medians and ratios, and
 * writes metric<TAB>value<TAB>unit lines to the tsv file.
 */

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SOCK		"/run/cmcp-test/docker.sock"
#define DOCKER		"/usr/bin/docker"
#define RUNS_MAX	100
#define TIMEOUT_MS	60000

struct sample {
	double	 first_byte_ms;
	double	 cleanup_ms;
};

static char	 image[128], init[PATH_MAX], work[PATH_MAX];

static void __attribute__((__noreturn__))
usage(void)
{
	fprintf(stderr, "usage: startup [-v] [-n runs] [-o tsv] images.env "
	    "cmcp-privsep-test\n");
	exit(1);
}

static double
now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void
load_env(const char *path)
{
	FILE	*fp;
	char	 line[PATH_MAX + 64];

	if ((fp = fopen(path, "r")) == NULL)
		err(1, "%s", path);
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "FIXTURE_IMAGE=", 14) == 0)
			strlcpy(image, line + 14, sizeof(image));
		else if (strncmp(line, "CMCP_INIT=", 10) == 0)
			strlcpy(init, line + 10, sizeof(init));
	}
	fclose(fp);
	if (image[0] == '\0' || init[0] == '\0')
		errx(1, "%s: no FIXTURE_IMAGE or CMCP_INIT", path);
}

static void
write_conf(const char *path)
{
	struct stat	 st;
	FILE		*fp;

	if (stat(SOCK, &st) == -1)
		err(1, "%s (regress/docker/dockerd-env start)", SOCK);
	if ((fp = fopen(path, "w")) == NULL)
		err(1, "%s", path);
	fprintf(fp,
	    "user bridge 61001:61001\n"
	    "user gateway 61002:61002\n"
	    "user auditor 61003:61003\n"
	    "user watchdog 61004:61004\n"
	    "user dockerd-client 61005:61005 group %u\n"
	    "chroot \"%s/root\"\n"
	    "audit database \"%s/audit/audit.db\"\n"
	    "docker socket \"%s\"\n"
	    "init \"%s\"\n"
	    "agent {\n"
	    "\timage \"%s\"\n"
	    "\tcommand \"/bin/busybox\" \"echo\" \"hello\"\n"
	    "\tuser 10001:10001\n"
	    "\tmemory 64M\n"
	    "\tpids 32\n"
	    "\tnofile 256\n"
	    "\ttimeout 10s\n"
	    "}\n", (unsigned)st.st_gid, work, work, SOCK, init, image);
	if (fclose(fp) == EOF)
		err(1, "%s", path);
}

/*
 * Start argv with stdout to the write end of a pipe (or with the FIFO
 * named, the command opens it), read the first byte, drain, wait.
 */
static void
measure(char *const argv[], const char *fifo, struct sample *s)
{
	struct pollfd	 pfd;
	double		 t0;
	char		 buf[4096];
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2], fd, status, got = 0;

	if (fifo == NULL && pipe2(p, O_CLOEXEC) == -1)
		err(1, "pipe");
	t0 = now_ms();
	switch (pid = fork()) {
	case -1:
		err(1, "fork");
	case 0:
		if ((fd = open("/dev/null", O_RDWR)) == -1 ||
		    dup2(fd, STDIN_FILENO) == -1 ||
		    dup2(fifo == NULL ? p[1] : fd, STDOUT_FILENO) == -1 ||
		    dup2(fd, STDERR_FILENO) == -1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (fifo == NULL) {
		close(p[1]);
		fd = p[0];
	} else if ((fd = open(fifo, O_RDONLY | O_CLOEXEC)) == -1)
		err(1, "%s", fifo);
	s->first_byte_ms = -1;
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, TIMEOUT_MS) != 1)
			errx(1, "%s: no output in time", argv[0]);
		if ((n = read(fd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "read");
		}
		if (n == 0)
			break;
		if (!got) {
			s->first_byte_ms = now_ms() - t0;
			got = 1;
		}
	}
	close(fd);
	if (waitpid(pid, &status, 0) == -1)
		err(1, "waitpid");
	s->cleanup_ms = now_ms() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got)
		errx(1, "%s: exit status %d, %s output", argv[0], status,
		    got ? "with" : "no");
}

static int
cmp(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(const struct sample *s, size_t n, int cleanup)
{
	double	 v[RUNS_MAX];
	size_t	 i;

	for (i = 0; i < n; i++)
		v[i] = cleanup ? s[i].cleanup_ms : s[i].first_byte_ms;
	qsort(v, n, sizeof(v[0]), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char *argv[])
{
	static struct sample	 cm[RUNS_MAX], dk[RUNS_MAX];
	char			 conf[PATH_MAX + 16], fifo[PATH_MAX + 16];
	char			 fifoarg[PATH_MAX + 32], mnt[PATH_MAX + 64];
	char			 host[sizeof(SOCK) + 8], dir[] =
				    "/tmp/cmcp-bench.XXXXXX";
	const char		*tsv = NULL, *errstr;
	double			 m[4], ratio_fb, ratio_cl;
	size_t			 runs = 10, i;
	FILE			*fp;
	int			 ch, verbose = 0;

	while ((ch = getopt(argc, argv, "n:o:v")) != -1) {
		switch (ch) {
		case 'n':
			runs = strtonum(optarg, 1, RUNS_MAX, &errstr);
			if (errstr != NULL)
				errx(1, "-n %s: %s", optarg, errstr);
			break;
		case 'o':
			tsv = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();
	load_env(argv[0]);
	if (mkdtemp(dir) == NULL)
		err(1, "mkdtemp");
	/* The auditor opens its database under its own uid: it must pass. */
	if (chmod(dir, 0755) == -1)
		err(1, "chmod %s", dir);
	strlcpy(work, dir, sizeof(work));
	snprintf(conf, sizeof(conf), "%s/cmcp.conf", work);
	snprintf(fifo, sizeof(fifo), "%s/stdout", work);
	snprintf(fifoarg, sizeof(fifoarg), "stdout=%s", fifo);
	snprintf(host, sizeof(host), "unix://%s", SOCK);
	snprintf(mnt, sizeof(mnt),
	    "type=bind,source=%s,target=/cmcp-init,readonly", init);
	write_conf(conf);
	if (mkfifo(fifo, 0600) == -1)
		err(1, "%s", fifo);

	{
		char *const cmcp[] = { argv[1], "-f", conf, "-X", fifoarg,
		    "run", NULL };
		/* The same profile as the template, through the CLI. */
		char *const cli[] = { DOCKER, "-H", host, "run", "--rm", "-i",
		    "--network", "none", "--read-only", "--cap-drop", "ALL",
		    "--security-opt", "no-new-privileges", "--user",
		    "10001:10001", "--pids-limit", "32", "--memory", "64m",
		    "--memory-swap", "64m", "--ulimit", "core=0:0",
		    "--ulimit", "nofile=256:256", "--ulimit", "nproc=32:32",
		    "--log-driver", "none", "--ipc", "none", "--cgroupns",
		    "private", "--mount", mnt, "--entrypoint", "/cmcp-init",
		    "-e", "PATH=/usr/bin:/bin", "--workdir", "/",
		    "--stop-timeout", "0", "--label",
		    "org.cmcp-privsep.bench=1", image, "-t", "10000", "--",
		    "/bin/busybox", "echo", "hello", NULL };

		/* One warm-up each: page cache, engine caches. */
		measure(cmcp, fifo, &cm[0]);
		measure(cli, NULL, &dk[0]);
		for (i = 0; i < runs; i++) {
			measure(cmcp, fifo, &cm[i]);
			measure(cli, NULL, &dk[i]);
			if (verbose)
				fprintf(stderr, "run %zu: cmcp %.1f %.1f, "
				    "cli %.1f %.1f ms\n", i,
				    cm[i].first_byte_ms, cm[i].cleanup_ms,
				    dk[i].first_byte_ms, dk[i].cleanup_ms);
		}
	}
	unlink(fifo);
	unlink(conf);

	m[0] = median(cm, runs, 0);
	m[1] = median(cm, runs, 1);
	m[2] = median(dk, runs, 0);
	m[3] = median(dk, runs, 1);
	ratio_fb = m[0] / m[2];
	ratio_cl = m[1] / m[3];
	printf("runs %zu (medians)\n", runs);
	printf("cmcp-privsep  first byte %7.1f ms  cleanup %7.1f ms\n",
	    m[0], m[1]);
	printf("docker CLI    first byte %7.1f ms  cleanup %7.1f ms\n",
	    m[2], m[3]);
	printf("ratio         first byte %7.2f     cleanup %7.2f  "
	    "(target <= 1.10)\n", ratio_fb, ratio_cl);
	if (tsv != NULL) {
		if ((fp = fopen(tsv, "w")) == NULL)
			err(1, "%s", tsv);
		fprintf(fp, "runs\t%zu\tcount\n", runs);
		fprintf(fp, "cmcp_first_byte_median\t%.1f\tms\n", m[0]);
		fprintf(fp, "cmcp_cleanup_median\t%.1f\tms\n", m[1]);
		fprintf(fp, "docker_cli_first_byte_median\t%.1f\tms\n", m[2]);
		fprintf(fp, "docker_cli_cleanup_median\t%.1f\tms\n", m[3]);
		fprintf(fp, "ratio_first_byte_vs_docker_cli\t%.3f\tratio\n",
		    ratio_fb);
		fprintf(fp, "ratio_cleanup_vs_docker_cli\t%.3f\tratio\n",
		    ratio_cl);
		/* The headline: the worse of the two. */
		fprintf(fp, "ratio_vs_docker_cli\t%.3f\tratio\n",
		    ratio_fb > ratio_cl ? ratio_fb : ratio_cl);
		if (fclose(fp) == EOF)
			err(1, "%s", tsv);
	}
	if (rmdir(work) == -1 && errno != ENOTEMPTY)
		warn("%s", work);
	return 0;
}
