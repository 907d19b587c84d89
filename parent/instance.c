/*
 * This suite instance's name, which dockerd-client puts on every
 * container it creates, and the decision that another instance is dead:
 * only then may its leftovers be reaped.
 */

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "parent.h"
#include "proc.h"

static char	 parent_bootid[33];

static int	parent_instance_alive(const char *);
static int	parent_proc_start(pid_t, unsigned long long *);

/*
 * dockerd-client found containers of other suite instances: only the
 * parent can tell which of them are dead.  An instance name this suite
 * would not have written is never judged dead.
 */
void
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
void
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
