/*
 * The observers' shared plumbing; see observer.h.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "observer.h"

static volatile sig_atomic_t	 obs_stop;

static void
obs_on_signal(int sig)
{
	(void)sig;
	obs_stop = 1;
}

/* The log is created for us alone and only ever appended to. */
void
obs_log_open(struct obs_log *lg, const char *path, size_t max)
{
	memset(lg, 0, sizeof(*lg));
	lg->max = max;
	if ((lg->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) == -1)
		err(1, "%s", path);
}

/* Keep what fits under the bound; count, never keep, the rest. */
void
obs_log_append(struct obs_log *lg, const void *p, size_t n)
{
	const char	*c = p;
	size_t		 keep;
	ssize_t		 w;

	keep = lg->max - lg->kept < n ? lg->max - lg->kept : n;
	lg->dropped += n - keep;
	while (keep > 0) {
		w = write(lg->fd, c, keep);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			err(1, "log write");
		c += w;
		keep -= w;
		lg->kept += w;
	}
}

/* Written whole under a temporary name, then renamed: seen complete or not. */
void
obs_portfile(const char *path, const char *text)
{
	char	 tmp[PATH_MAX];
	size_t	 n = strlen(text);
	int	 fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		errx(1, "port file name too long");
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) ==
	    -1)
		err(1, "%s", tmp);
	if (write(fd, text, n) != (ssize_t)n)
		err(1, "%s", tmp);
	if (close(fd) == -1)
		err(1, "%s", tmp);
	if (rename(tmp, path) == -1)
		err(1, "rename %s", path);
}

/*
 * SIGTERM, SIGINT and SIGHUP end the observer.  They stay blocked except
 * inside ppoll, so one cannot slip in between the check and the wait;
 * *open receives the mask to wait with.
 */
void
obs_signals(sigset_t *open)
{
	struct sigaction	 sa;
	sigset_t		 block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = obs_on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &block, open) == -1)
		err(1, "sigprocmask");
	sigdelset(open, SIGTERM);
	sigdelset(open, SIGINT);
	sigdelset(open, SIGHUP);
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    sigaction(SIGHUP, &sa, NULL) == -1 ||
	    signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(1, "sigaction");
}

/*
 * Wait for events until the deadline (CLOCK_MONOTONIC seconds): the
 * number of ready descriptors, or -1 once a signal or the lifetime says
 * stop.
 */
int
obs_wait(struct pollfd *pfd, nfds_t n, const sigset_t *open, time_t deadline)
{
	struct timespec	 now, ts;
	int		 r;

	if (obs_stop)
		return -1;
	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		err(1, "clock_gettime");
	if (now.tv_sec >= deadline)
		return -1;
	ts.tv_sec = deadline - now.tv_sec;
	ts.tv_nsec = 0;
	r = ppoll(pfd, n, &ts, open);
	if (r == -1 && errno != EINTR)
		err(1, "ppoll");
	if (obs_stop)
		return -1;
	return r == -1 ? 0 : r;
}

size_t
obs_number(const char *s, const char *what, long long min, long long max)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		errx(1, "%s: bad number (%lld..%lld)", what, min, max);
	return v;
}
