/*
 * Logging: one formatted line per call, written with a single write(2) on
 * stderr so lines of several processes sharing it do not interleave, or
 * handed to syslog(3), or to a sink (a child's channel to the parent).
 */

#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int		 log_dest = LOG_TO_STDERR;
static int		 log_verbose;
static const char	*log_procname;
static void		(*log_sink)(int, const char *);

static void	log_stderr(const char *);

void
log_init(int dest, int verbose, int facility)
{
	log_dest = dest;
	log_verbose = verbose;
	if (dest & LOG_TO_SYSLOG)
		openlog(CMCP_NAME, LOG_PID | LOG_NDELAY, facility);
	/* Load the zone data now: a chroot would hide it later. */
	tzset();
}

void
log_procinit(const char *name)
{
	log_procname = name;
}

void
log_setsink(void (*sink)(int, const char *))
{
	log_sink = sink;
}

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

int
log_getverbose(void)
{
	return (log_verbose);
}

void
logit(int pri, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(pri, fmt, ap);
	va_end(ap);
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	char	 msg[MAX_LOG_LINE_BYTES];
	int	 saved_errno = errno;

	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_dest & LOG_TO_STDERR)
		log_stderr(msg);
	if (log_dest & LOG_TO_SYSLOG) {
		if (log_procname != NULL)
			syslog(pri, "%s: %s", log_procname, msg);
		else
			syslog(pri, "%s", msg);
	}
	if ((log_dest & LOG_TO_SINK) && log_sink != NULL)
		log_sink(pri, msg);
	errno = saved_errno;
}

void
log_warn(const char *fmt, ...)
{
	char	 msg[MAX_LOG_LINE_BYTES];
	va_list	 ap;
	int	 saved_errno = errno;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	logit(LOG_ERR, "%s: %s", msg, strerror(saved_errno));
	errno = saved_errno;
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	char	 msg[MAX_LOG_LINE_BYTES];
	va_list	 ap;
	int	 saved_errno = errno;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	logit(LOG_CRIT, "fatal: %s: %s", msg, strerror(saved_errno));
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	char	 msg[MAX_LOG_LINE_BYTES];
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	logit(LOG_CRIT, "fatal: %s", msg);
	exit(1);
}

static void
log_stderr(const char *msg)
{
	char	 line[MAX_LOG_LINE_BYTES + 64];
	int	 n;

	if (log_procname != NULL)
		n = snprintf(line, sizeof(line), "%s: %s\n", log_procname, msg);
	else
		n = snprintf(line, sizeof(line), "%s\n", msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	/* Nowhere to report a failed write of the error channel itself. */
	if (write(STDERR_FILENO, line, n) == -1)
		return;
}
