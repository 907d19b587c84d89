/*
 * What the host-side observers share: their log file (append only,
 * bounded), their port file (how a test learns ephemeral ports), the
 * signals that end them and their lifetime bound.  An observer writes only
 * to its own files and never prints what it received.
 */

#ifndef OBSERVER_H
#define OBSERVER_H

#include <sys/types.h>

#include <poll.h>
#include <signal.h>

#define OBS_MAX_BYTES_DEFAULT	(1024 * 1024)
#define OBS_MAX_BYTES_LIMIT	(64 * 1024 * 1024)
#define OBS_LIFETIME_DEFAULT_S	600
#define OBS_LIFETIME_LIMIT_S	86400
#define OBS_READ_BYTES		(64 * 1024)

struct obs_log {
	int		 fd;
	size_t		 max;		/* bytes kept, at most */
	size_t		 kept;
	size_t		 dropped;
};

void	 obs_log_open(struct obs_log *, const char *, size_t);
void	 obs_log_append(struct obs_log *, const void *, size_t);
void	 obs_portfile(const char *, const char *);
void	 obs_signals(sigset_t *);
int	 obs_wait(struct pollfd *, nfds_t, const sigset_t *, time_t);
size_t	 obs_number(const char *, const char *, long long, long long);

#endif /* OBSERVER_H */
