/*
 * udp-observer -- a UDP listener on 127.0.0.1 (a DNS server that never
 * answers) that appends every datagram it receives to its log file, up to
 * a bound.  It ends on SIGTERM, SIGINT or SIGHUP (exit 0) or when its
 * lifetime is over.
 *
 *	udp-observer -o log [-p port] [-P portfile] [-m max-bytes]
 *	    [-t lifetime-seconds]
 *
 * Port 0 (the default) takes an ephemeral port; the port file ("dns PORT")
 * is written once bound.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "observer.h"

static __attribute__((__noreturn__)) void
usage(void)
{
	fprintf(stderr, "usage: udp-observer -o log [-p port] [-P portfile] "
	    "[-m max-bytes] [-t seconds]\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sin;
	struct pollfd		 pfd;
	struct obs_log		 lg;
	struct timespec		 now;
	sigset_t		 open;
	socklen_t		 len;
	const char		*log = NULL, *portfile = NULL;
	char			 buf[OBS_READ_BYTES], line[32];
	unsigned int		 port = 0;
	size_t			 max = OBS_MAX_BYTES_DEFAULT;
	time_t			 lifetime = OBS_LIFETIME_DEFAULT_S;
	ssize_t			 r;
	int			 ch;

	while ((ch = getopt(argc, argv, "m:o:p:P:t:")) != -1) {
		switch (ch) {
		case 'm':
			max = obs_number(optarg, "-m", 0, OBS_MAX_BYTES_LIMIT);
			break;
		case 'o':
			log = optarg;
			break;
		case 'p':
			port = obs_number(optarg, "-p", 0, 65535);
			break;
		case 'P':
			portfile = optarg;
			break;
		case 't':
			lifetime = obs_number(optarg, "-t", 1,
			    OBS_LIFETIME_LIMIT_S);
			break;
		default:
			usage();
		}
	}
	if (log == NULL || optind != argc)
		usage();

	obs_signals(&open);
	obs_log_open(&lg, log, max);
	if ((pfd.fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	pfd.events = POLLIN;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(pfd.fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		err(1, "bind 127.0.0.1 port %u", port);
	len = sizeof(sin);
	if (getsockname(pfd.fd, (struct sockaddr *)&sin, &len) == -1)
		err(1, "getsockname");
	if (portfile != NULL) {
		snprintf(line, sizeof(line), "dns %u\n", ntohs(sin.sin_port));
		obs_portfile(portfile, line);
	}
	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		err(1, "clock_gettime");

	while (obs_wait(&pfd, 1, &open, now.tv_sec + lifetime) != -1) {
		if (!(pfd.revents & POLLIN))
			continue;
		/* Drain what is queued; each datagram is kept as received. */
		while ((r = recv(pfd.fd, buf, sizeof(buf), 0)) >= 0)
			obs_log_append(&lg, buf, r);
		if (errno != EAGAIN && errno != EINTR)
			err(1, "recv");
	}
	return 0;
}
