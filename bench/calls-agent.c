/*
 * calls-agent: the workload of bench/calls, inside the container (static,
 * libc only).  Its first line is the host's initial frame,
 * {"payload":{"n":N}}.  It makes N requests
 *
 *	{"operation":"echo","arguments":{"i":K}}
 *
 * each timed from its write to the end of its reply line (with
 * "message":true in the payload the arguments are {"message":"call K"},
 * the argument of an echo tool such as server-everything's), then one
 *
 *	{"operation":"report","arguments":{"us":[T1,...,TN]}}
 *
 * reads that reply and exits 0.  Exit 1 on a system error or a missing
 * reply, 2 on a first line it cannot read.
 *
 * With -m it speaks MCP on its stdio instead (agent { protocol mcp }):
 * it sends initialize, reads the payload from the answer's instructions,
 * and each request is the tools/call of the same operation and
 * arguments, with ids 1, 2, ...; each is timed the same way.
 */

#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CA_LINE_BYTES	(128 * 1024)
#define CA_CALLS_MAX	100000

static char	 ca_in[CA_LINE_BYTES];
static size_t	 ca_inlen;

static int
ca_write(const char *p, size_t n)
{
	ssize_t	 w;

	while (n > 0) {
		if ((w = write(STDOUT_FILENO, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		p += w;
		n -= w;
	}
	return (0);
}

/* One line into line (NUL-terminated, newline removed); -1 at its end. */
static int
ca_readline(char *line, size_t size)
{
	char	*nl;
	size_t	 n;
	ssize_t	 r;

	for (;;) {
		if ((nl = memchr(ca_in, '\n', ca_inlen)) != NULL) {
			n = nl - ca_in;
			if (n >= size)
				return (-1);
			memcpy(line, ca_in, n);
			line[n] = '\0';
			ca_inlen -= n + 1;
			memmove(ca_in, nl + 1, ca_inlen);
			return (0);
		}
		if (ca_inlen == sizeof(ca_in))
			return (-1);
		if ((r = read(STDIN_FILENO, ca_in + ca_inlen,
		    sizeof(ca_in) - ca_inlen)) <= 0) {
			if (r == -1 && errno == EINTR)
				continue;
			return (-1);
		}
		ca_inlen += r;
	}
}

static long long
ca_us(const struct timespec *a, const struct timespec *b)
{
	return ((long long)(b->tv_sec - a->tv_sec) * 1000000 +
	    (b->tv_nsec - a->tv_nsec) / 1000);
}

/* A request line for the operation and arguments, in the protocol. */
static int
ca_request(char *line, size_t size, int mcp, long id, const char *op,
    const char *args)
{
	if (mcp)
		return (snprintf(line, size, "{\"id\":%ld,\"jsonrpc\":\"2.0\","
		    "\"method\":\"tools/call\",\"params\":{\"arguments\":%s,"
		    "\"name\":\"%s\"}}\n", id, args, op));
	return (snprintf(line, size, "{\"operation\":\"%s\",\"arguments\":"
	    "%s}\n", op, args));
}

static const char ca_init[] = "{\"id\":0,\"jsonrpc\":\"2.0\","
    "\"method\":\"initialize\",\"params\":{\"capabilities\":{},"
    "\"clientInfo\":{\"name\":\"calls-agent\",\"version\":\"1\"},"
    "\"protocolVersion\":\"2025-11-25\"}}\n";

int
main(int argc, char *argv[])
{
	static char		 line[CA_LINE_BYTES];
	static long long	 us[CA_CALLS_MAX];
	static char		 out[CA_CALLS_MAX * 12 + 256];
	static char		 args[CA_CALLS_MAX * 12 + 128];
	struct timespec		 t0, t1;
	const char		*p, *key;
	size_t			 len;
	long			 n, i;
	int			 k, msg, mcp;

	mcp = argc == 2 && strcmp(argv[1], "-m") == 0;
	if (argc != 1 && !mcp)
		return (2);
	/* The payload is the first line's, or initialize's instructions. */
	key = mcp ? "\\\"n\\\":" : "\"n\":";
	if ((mcp && ca_write(ca_init, sizeof(ca_init) - 1) == -1) ||
	    ca_readline(line, sizeof(line)) == -1 ||
	    (p = strstr(line, key)) == NULL)
		return (2);
	n = strtol(p + strlen(key), NULL, 10);
	if (n < 1 || n > CA_CALLS_MAX)
		return (2);
	msg = strstr(line, mcp ? "\\\"message\\\":true" :
	    "\"message\":true") != NULL;
	for (i = 0; i < n; i++) {
		if (msg)
			(void)snprintf(args, sizeof(args),
			    "{\"message\":\"call %ld\"}", i);
		else
			(void)snprintf(args, sizeof(args), "{\"i\":%ld}", i);
		k = ca_request(line, sizeof(line), mcp, i + 1, "echo", args);
		if (clock_gettime(CLOCK_MONOTONIC, &t0) == -1 ||
		    ca_write(line, k) == -1 ||
		    ca_readline(line, sizeof(line)) == -1 ||
		    clock_gettime(CLOCK_MONOTONIC, &t1) == -1)
			return (1);
		us[i] = ca_us(&t0, &t1);
	}
	len = snprintf(args, sizeof(args), "{\"us\":[");
	for (i = 0; i < n; i++)
		len += snprintf(args + len, sizeof(args) - len, "%s%lld",
		    i == 0 ? "" : ",", us[i]);
	(void)snprintf(args + len, sizeof(args) - len, "]}");
	len = ca_request(out, sizeof(out), mcp, n + 1, "report", args);
	if (ca_write(out, len) == -1 || ca_readline(line, sizeof(line)) == -1)
		return (1);
	return (0);
}
