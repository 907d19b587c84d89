/*
 * The one-shot commands that need no running suite: check reads the
 * configuration and the host's core pattern, audit reads the database
 * the configuration names.  Both exit; usage() is main's.
 */

#include <sys/types.h>

#include <err.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditdb.h"
#include "config.h"
#include "dkr_seccomp.h"
#include "log.h"
#include "parent.h"
#include "proc.h"

/*
 * The seccomp profile every container is sent and admitted with, as a
 * comment after the configuration: its digest (the admission record's
 * response digest) and the number of calls it allows.
 */
static void
print_seccomp(FILE *f)
{
	uint8_t	 digest[SHA256_DIGEST_BYTES];
	char	 hex[SHA256_HEX_BYTES];

	if (dkr_seccomp_ours(digest) == -1)
		fatalx("seccomp profile: cannot be built");
	sha256_hex(digest, hex);
	fprintf(f, "# container seccomp profile sha256 %s, "
	    "%zu calls in its table\n", hex, dkr_sc_ncalls);
}

void
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
	if (noaction) {
		print_config(conf, stdout);
		print_seccomp(stdout);
	} else
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
void
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
