/*
 * tcp-observer -- a TCP listener on 127.0.0.1 and/or ::1 that appends
 * every byte any connection sends to its log file, up to a bound, and
 * answers nothing.  It ends on SIGTERM, SIGINT or SIGHUP (exit 0) or when
 * its lifetime is over.
 *
 *	tcp-observer -o log [-4 port] [-6 port] [-P portfile] [-m max-bytes]
 *	    [-t lifetime-seconds]
 *
 * Port 0 takes an ephemeral port.  Once listening, it writes the port file
 * ("tcp4 PORT" and/or "tcp6 PORT" lines), which is how a test knows it is
 * ready and where.
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

#define TOBS_CONNS	64
#define TOBS_BACKLOG	16

static __attribute__((__noreturn__)) void
usage(void)
{
	fprintf(stderr, "usage: tcp-observer -o log [-4 port] [-6 port] "
	    "[-P portfile] [-m max-bytes] [-t seconds]\n");
	exit(1);
}

/* Listen on the family's loopback address; *port gets the bound port. */
static int
tobs_listen(int family, unsigned int *port)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 len;
	int			 s, on = 1;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(*port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*sin);
	} else {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(*port);
		sin6->sin6_addr = in6addr_loopback;
		len = sizeof(*sin6);
	}
	if ((s = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		err(1, "socket");
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1)
		err(1, "SO_REUSEADDR");
	if (family == AF_INET6 &&
	    setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == -1)
		err(1, "IPV6_V6ONLY");
	if (bind(s, (struct sockaddr *)&ss, len) == -1)
		err(1, "bind %s port %u", family == AF_INET ? "127.0.0.1" :
		    "::1", *port);
	if (listen(s, TOBS_BACKLOG) == -1)
		err(1, "listen");
	len = sizeof(ss);
	if (getsockname(s, (struct sockaddr *)&ss, &len) == -1)
		err(1, "getsockname");
	*port = ntohs(family == AF_INET ? sin->sin_port : sin6->sin6_port);
	return s;
}

int
main(int argc, char *argv[])
{
	struct pollfd	 pfd[2 + TOBS_CONNS];
	struct obs_log	 lg;
	struct timespec	 now;
	sigset_t	 open;
	const char	*log = NULL, *portfile = NULL;
	char		 ports[64], buf[OBS_READ_BYTES];
	unsigned int	 p4 = 0, p6 = 0;
	size_t		 max = OBS_MAX_BYTES_DEFAULT, i, j;
	time_t		 lifetime = OBS_LIFETIME_DEFAULT_S;
	nfds_t		 nl = 0, n;
	ssize_t		 r;
	int		 ch, want4 = 0, want6 = 0, s;

	while ((ch = getopt(argc, argv, "4:6:m:o:P:t:")) != -1) {
		switch (ch) {
		case '4':
			p4 = obs_number(optarg, "-4", 0, 65535);
			want4 = 1;
			break;
		case '6':
			p6 = obs_number(optarg, "-6", 0, 65535);
			want6 = 1;
			break;
		case 'm':
			max = obs_number(optarg, "-m", 0, OBS_MAX_BYTES_LIMIT);
			break;
		case 'o':
			log = optarg;
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
	if (log == NULL || optind != argc || (!want4 && !want6))
		usage();

	obs_signals(&open);
	obs_log_open(&lg, log, max);
	ports[0] = '\0';
	if (want4) {
		pfd[nl].fd = tobs_listen(AF_INET, &p4);
		pfd[nl++].events = POLLIN;
		snprintf(ports, sizeof(ports), "tcp4 %u\n", p4);
	}
	if (want6) {
		pfd[nl].fd = tobs_listen(AF_INET6, &p6);
		pfd[nl++].events = POLLIN;
		snprintf(ports + strlen(ports), sizeof(ports) - strlen(ports),
		    "tcp6 %u\n", p6);
	}
	if (portfile != NULL)
		obs_portfile(portfile, ports);
	for (i = nl; i < nl + TOBS_CONNS; i++) {
		pfd[i].fd = -1;
		pfd[i].events = POLLIN;
	}
	n = nl + TOBS_CONNS;
	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		err(1, "clock_gettime");

	while (obs_wait(pfd, n, &open, now.tv_sec + lifetime) != -1) {
		for (i = 0; i < nl; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			s = accept4(pfd[i].fd, NULL, NULL, SOCK_NONBLOCK |
			    SOCK_CLOEXEC);
			if (s == -1)
				continue;	/* gone before we looked */
			for (j = nl; j < n && pfd[j].fd != -1; j++)
				;
			if (j == n) {
				close(s);	/* full: refused, not recorded */
				continue;
			}
			pfd[j].fd = s;
		}
		for (i = nl; i < n; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r == -1 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r > 0) {
				obs_log_append(&lg, buf, r);
				continue;
			}
			close(pfd[i].fd);
			pfd[i].fd = -1;
		}
	}
	return 0;
}
