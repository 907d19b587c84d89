/*
 * seccomp -- what the containers' own seccomp profile (issue 15) costs a
 * container's start, beside the engine's default profile, in one run.
 *
 *	seccomp [-n runs] [-o tsv] images.env
 *
 * The same container of the suite's template (dkr_template_body: the
 * fixture image, cmcp-init as its entry point, /bin/busybox true as its
 * workload) is created, started and run to its exit through the suite's
 * own engine client, with the profile inline in HostConfig.SecurityOpt
 * as the suite sends it, and with that entry dropped (the engine's
 * default profile, what every container had before), the two alternating
 * so that both see the same machine.  Per run, from just before the
 * request:
 *	create	POST /containers/create answered (the engine has read and
 *		stored the profile)
 *	start	POST /start and then /wait answered: runc installed the
 *		filter, cmcp-init and the workload ran and exited
 *	total	the two
 * Each container is removed after its run, outside the figures.  Prints
 * medians and p90s, total ours over default, and writes
 * metric<TAB>value<TAB>unit lines.  No figure is held against a target.
 */

#include <sys/types.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "dkr.h"

#define SOCK		"/run/cmcp-test/docker.sock"
#define RUNS_MAX	200

enum { OURS, ENGINE, NKINDS };
static const char *const kind_name[NKINDS] = { "ours", "default" };

struct samples {
	double	 create[RUNS_MAX];
	double	 start[RUNS_MAX];
	double	 total[RUNS_MAX];
};

static struct samples	 smp[NKINDS];

static void __attribute__((__noreturn__))
usage(void)
{
	fprintf(stderr, "usage: seccomp [-n runs] [-o tsv] images.env\n");
	exit(1);
}

static double
now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile p of v[0..n), sorted in place. */
static double
pct(double *v, int n, int p)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[(n * p + 99) / 100 - 1];
}

/* FIXTURE_IMAGE and CMCP_INIT of images.env. */
static void
images(const char *path, struct dkr_template *t)
{
	char	 line[512], *v;
	FILE	*f;

	if ((f = fopen(path, "r")) == NULL)
		err(1, "%s", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "FIXTURE_IMAGE") == 0)
			strlcpy(t->image, v, sizeof(t->image));
		else if (strcmp(line, "CMCP_INIT") == 0)
			strlcpy(t->init_path, v, sizeof(t->init_path));
	}
	fclose(f);
	if (t->image[0] == '\0' || t->init_path[0] == '\0')
		errx(1, "%s: no FIXTURE_IMAGE or CMCP_INIT", path);
}

/* The template's body, with the engine's default profile for ENGINE. */
static char *
body(const struct dkr_template *t, int kind)
{
	enum dkr_reason	 r;
	cJSON		*b, *hc, *so;
	char		*s;

	if ((s = dkr_template_body(t, &r)) == NULL)
		errx(1, "template: %s", dkr_reason_str(r));
	if (kind == OURS)
		return s;
	if ((b = cJSON_Parse(s)) == NULL)
		errx(1, "body");
	free(s);
	hc = cJSON_GetObjectItemCaseSensitive(b, "HostConfig");
	so = cJSON_GetObjectItemCaseSensitive(hc, "SecurityOpt");
	if (cJSON_GetArraySize(so) != 2)
		errx(1, "SecurityOpt: not the two entries sent");
	cJSON_DeleteItemFromArray(so, 1);
	if ((s = cJSON_PrintUnformatted(b)) == NULL)
		errx(1, "body");
	cJSON_Delete(b);
	return s;
}

static void
one(struct dkr_client *c, const char *b, int kind, int i)
{
	char		 id[DKR_CONTAINER_ID_BYTES];
	enum dkr_reason	 r;
	int64_t		 code;
	double		 t0, t1, t2;

	t0 = now_ms();
	if (dkr_create(c, b, id, &r) == -1 || r != DKR_OK)
		errx(1, "create: %s", r != DKR_OK ? dkr_reason_str(r) :
		    c->err);
	t1 = now_ms();
	if (dkr_start(c, id) != 204)
		errx(1, "start: %s", c->err);
	if (dkr_wait(c, id, 30000, &code) == -1 || code != 0)
		errx(1, "wait: %s (status %lld)", c->err, (long long)code);
	t2 = now_ms();
	if (dkr_delete(c, id) != 204 || dkr_gone(c, id) != 1)
		errx(1, "delete: %s", c->err);
	smp[kind].create[i] = t1 - t0;
	smp[kind].start[i] = t2 - t1;
	smp[kind].total[i] = t2 - t0;
}

int
main(int argc, char *argv[])
{
	struct dkr_client	 c;
	struct dkr_template	 t;
	const char		*tsv = NULL;
	char			*b[NKINDS];
	double			 med[NKINDS][3], p90[NKINDS][3];
	FILE			*f;
	int			 ch, runs = 15, i, k;

	while ((ch = getopt(argc, argv, "n:o:")) != -1) {
		switch (ch) {
		case 'n':
			runs = atoi(optarg);
			if (runs < 1 || runs > RUNS_MAX)
				usage();
			break;
		case 'o':
			tsv = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	memset(&t, 0, sizeof(t));
	images(argv[optind], &t);
	t.argc = 2;
	strlcpy(t.argv[0], "/bin/busybox", sizeof(t.argv[0]));
	strlcpy(t.argv[1], "true", sizeof(t.argv[1]));
	t.envc = 1;
	strlcpy(t.env[0], "PATH=/bin", sizeof(t.env[0]));
	t.uid = t.gid = 10001;
	t.memory_bytes = 64LL * 1024 * 1024;
	t.pids = 32;
	t.nofile = 256;
	t.nproc = 64;
	t.deadline_ms = 20000;
	strlcpy(t.instance, "bench-seccomp", sizeof(t.instance));
	strlcpy(t.session, "b", sizeof(t.session));
	for (k = 0; k < NKINDS; k++)
		b[k] = body(&t, k);

	if (dkr_client_init(&c, SOCK) == -1 || dkr_ping(&c) == -1)
		errx(1, "no engine at %s", SOCK);
	/* One of each first, not counted: the image and runc warm. */
	for (k = 0; k < NKINDS; k++)
		one(&c, b[k], k, 0);
	for (i = 0; i < runs; i++)
		for (k = 0; k < NKINDS; k++)
			one(&c, b[(k + i) % NKINDS], (k + i) % NKINDS, i);
	dkr_client_free(&c);

	for (k = 0; k < NKINDS; k++) {
		med[k][0] = pct(smp[k].create, runs, 50);
		p90[k][0] = pct(smp[k].create, runs, 90);
		med[k][1] = pct(smp[k].start, runs, 50);
		p90[k][1] = pct(smp[k].start, runs, 90);
		med[k][2] = pct(smp[k].total, runs, 50);
		p90[k][2] = pct(smp[k].total, runs, 90);
		printf("seccomp %-8s create %7.2f ms (p90 %7.2f)  start to exit "
		    "%7.2f ms (p90 %7.2f)  total %7.2f ms (p90 %7.2f)\n",
		    kind_name[k], med[k][0], p90[k][0], med[k][1], p90[k][1],
		    med[k][2], p90[k][2]);
	}
	printf("seccomp total ours/default %.3f (target <= 1.05), %d runs "
	    "each\n", med[OURS][2] / med[ENGINE][2], runs);
	if (tsv != NULL) {
		if ((f = fopen(tsv, "w")) == NULL)
			err(1, "%s", tsv);
		for (k = 0; k < NKINDS; k++) {
			fprintf(f, "%s_create_p50\t%.2f\tms\n", kind_name[k],
			    med[k][0]);
			fprintf(f, "%s_start_p50\t%.2f\tms\n", kind_name[k],
			    med[k][1]);
			fprintf(f, "%s_total_p50\t%.2f\tms\n", kind_name[k],
			    med[k][2]);
		}
		fprintf(f, "total_ratio\t%.3f\tx\n",
		    med[OURS][2] / med[ENGINE][2]);
		fprintf(f, "runs\t%d\tcount\n", runs);
		if (fclose(f) == EOF)
			err(1, "%s", tsv);
	}
	for (k = 0; k < NKINDS; k++)
		free(b[k]);
	return 0;
}
