/*
 * Host preflight: checks of host settings the suite relies on but never
 * changes.  Run by `check` and before `run` starts anything.
 */

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"

/* The kernel keeps at most 128 bytes (CORENAME_MAX_SIZE). */
#define CORE_PATTERN_BYTES	256

/*
 * Refuse a core_pattern that cannot be read, is blank, or pipes core
 * dumps to a program: a crashing child's memory must not leave the host's
 * known places.
 */
int
preflight_core_pattern(const char *path)
{
	char		 buf[CORE_PATTERN_BYTES];
	size_t		 len = 0, i;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("core_pattern: cannot read %s", path);
		return (-1);
	}
	while (len < sizeof(buf)) {
		if ((n = read(fd, buf + len, sizeof(buf) - len)) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("core_pattern: cannot read %s", path);
			(void)close(fd);
			return (-1);
		}
		if (n == 0)
			break;
		len += n;
	}
	if (close(fd) == -1) {
		log_warn("core_pattern: cannot read %s", path);
		return (-1);
	}

	for (i = 0; i < len && isspace((unsigned char)buf[i]); i++)
		;
	if (i == len) {
		log_warnx("core_pattern: empty, refusing to run");
		return (-1);
	}
	if (buf[i] == '|') {
		log_warnx("core_pattern: pipes core dumps to a program, "
		    "refusing to run");
		return (-1);
	}
	return (0);
}
