/*
 * calls-tool: the helpers of bench/calls.
 *
 *	calls-tool sink FILE
 *		an MCP server (stdio) with one tool, "report", that appends
 *		its arguments to FILE, one line per call: the way the
 *		confined agent's own timings leave the container
 *	calls-tool direct N RECORDER RECORD
 *		the gateway's MCP client (gateway/mcp.c) calling the echo
 *		tool of mcp-recorder N times; prints each call's
 *		microseconds, one per line
 *	calls-tool upstream N TOOL ARGV...
 *		the same client calling TOOL of the server ARGV (started
 *		with an empty environment, as the parent starts servers) N
 *		times with {"message":"call K"}, the argument of an echo
 *		tool such as server-everything's; prints as direct does
 *	calls-tool floor N DOCKER-ARGV...
 *		runs the docker CLI with the agent attached (docker run -i):
 *		writes {"payload":{"n":N}}, answers every line at once with
 *		{"ok":true,"result":{}} (no bridge, no gateway), and prints
 *		the agent's report line
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcp.h"
#include "mcp-peer.h"

static char	 ct_body[PEER_BODY_BYTES];

static __dead void
usage(void)
{
	fprintf(stderr, "usage: calls-tool sink file\n"
	    "       calls-tool direct n recorder record\n"
	    "       calls-tool upstream n tool argv ...\n"
	    "       calls-tool floor n docker-argv ...\n");
	exit(1);
}

static int
ct_sink(const char *file)
{
	static const struct peer_tool tools[] = {
		{ "report", "{\"name\":\"report\",\"description\":\"Keep the "
		    "timings.\",\"inputSchema\":{\"type\":\"object\"}}" },
	};
	struct peer_msg	 m;
	FILE		*fp;

	while (peer_read(&m) == 0) {
		if (m.id[0] == '\0' || m.method[0] == '\0')
			continue;
		if (strcmp(m.method, "initialize") == 0)
			peer_body_init(ct_body, sizeof(ct_body), "2025-06-18",
			    1, 0);
		else if (strcmp(m.method, "tools/list") == 0)
			peer_body_list(ct_body, sizeof(ct_body), tools, 1,
			    NULL);
		else if (strcmp(m.method, "tools/call") == 0 &&
		    strcmp(m.name, "report") == 0 && m.args != NULL) {
			if ((fp = fopen(file, "a")) == NULL)
				exit(2);
			fprintf(fp, "%.*s\n", (int)m.argslen, m.args);
			if (fclose(fp) == EOF)
				exit(2);
			peer_body_text(ct_body, sizeof(ct_body), "kept", 4);
		} else
			peer_body_error(ct_body, sizeof(ct_body), -32601,
			    "Method not found");
		peer_respond(m.id, ct_body);
	}
	return (0);
}

/* envp NULL: the server inherits this environment. */
static pid_t
ct_spawn(char *const argv[], char *const envp[], int *wfd, int *rfd,
    int keep_stderr)
{
	int	 in[2], out[2], fd;
	pid_t	 pid;

	if (pipe(in) == -1 || pipe(out) == -1)
		err(1, "pipe");
	switch (pid = fork()) {
	case -1:
		err(1, "fork");
	case 0:
		if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1)
			_exit(127);
		if (!keep_stderr && (fd = open("/dev/null", 0)) != -1)
			(void)dup2(fd, 2);
		closefrom(3);
		if (envp != NULL)
			execve(argv[0], argv, envp);
		else
			execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	*wfd = in[1];
	*rfd = out[0];
	return (pid);
}

static long long
ct_us(const struct timespec *a, const struct timespec *b)
{
	return ((long long)(b->tv_sec - a->tv_sec) * 1000000 +
	    (b->tv_nsec - a->tv_nsec) / 1000);
}

/*
 * n calls of tool on the server argv, the arguments of call K made by
 * snprintf from fmt (one of this file's) and K; a result that is a
 * tool error fails too: the call measured must be the call meant.
 */
static int
ct_calls(long n, char *const argv[], char *const envp[], const char *tool,
    const char *fmt)
{
	static char		 result[MCP_RESPONSE_BYTES];
	struct mcp_client	 c;
	struct timespec		 t0, t1;
	char			 args[64];
	size_t			 rlen;
	long			 i;
	int			 wfd, rfd, iserr, k;
	enum mcp_error		 e;
	pid_t			 pid;

	pid = ct_spawn(argv, envp, &wfd, &rfd, 0);
	if ((e = mcp_open(&c, wfd, rfd, NULL)) != MCP_OK ||
	    (e = mcp_allow(&c, tool)) != MCP_OK ||
	    (e = mcp_initialize(&c)) != MCP_OK ||
	    (e = mcp_list_tools(&c)) != MCP_OK)
		errx(1, "%s: %s", argv[0], mcp_strerror(e));
	for (i = 0; i < n; i++) {
		k = snprintf(args, sizeof(args), fmt, i);
		rlen = sizeof(result);
		if (clock_gettime(CLOCK_MONOTONIC, &t0) == -1)
			err(1, "clock_gettime");
		if ((e = mcp_call(&c, tool, args, k, result, &rlen,
		    &iserr)) != MCP_OK)
			errx(1, "call: %s", mcp_strerror(e));
		if (clock_gettime(CLOCK_MONOTONIC, &t1) == -1)
			err(1, "clock_gettime");
		if (iserr)
			errx(1, "call: the tool reported an error");
		printf("%lld\n", ct_us(&t0, &t1));
	}
	mcp_close(&c);
	(void)waitpid(pid, NULL, 0);
	return (0);
}

static int
ct_direct(long n, const char *recorder, const char *record)
{
	char	*argv[] = { (char *)recorder, "-r", (char *)record, NULL };

	return (ct_calls(n, argv, NULL, "echo", "{\"i\":%ld}"));
}

static int
ct_upstream(long n, const char *tool, char *argv[])
{
	char	*envp[] = { NULL };

	return (ct_calls(n, argv, envp, tool, "{\"message\":\"call %ld\"}"));
}

static int
ct_floor(long n, char *argv[])
{
	static const char	 reply[] = "{\"ok\":true,\"result\":{}}\n";
	static char		 buf[256 * 1024];
	char			 first[64];
	size_t			 len = 0;
	ssize_t			 r;
	char			*nl;
	int			 wfd, rfd, k, status;
	pid_t			 pid;

	pid = ct_spawn(argv, NULL, &wfd, &rfd, 1);
	k = snprintf(first, sizeof(first), "{\"payload\":{\"n\":%ld}}\n", n);
	if (write(wfd, first, k) != k)
		err(1, "write");
	for (;;) {
		if ((nl = memchr(buf, '\n', len)) == NULL) {
			if (len == sizeof(buf))
				errx(1, "line too long");
			if ((r = read(rfd, buf + len, sizeof(buf) - len)) <= 0)
				errx(1, "the agent ended early");
			len += r;
			continue;
		}
		if (write(wfd, reply, sizeof(reply) - 1) !=
		    (ssize_t)sizeof(reply) - 1)
			err(1, "write");
		if (strncmp(buf, "{\"operation\":\"report\"", 21) == 0) {
			printf("%.*s\n", (int)(nl - buf), buf);
			break;
		}
		len -= nl + 1 - buf;
		memmove(buf, nl + 1, len);
	}
	close(wfd);
	if (waitpid(pid, &status, 0) == -1)
		err(1, "waitpid");
	return (0);
}

int
main(int argc, char *argv[])
{
	const char	*errstr;
	long		 n;

	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(1, "signal");
	if (argc == 3 && strcmp(argv[1], "sink") == 0)
		return (ct_sink(argv[2]));
	if (argc < 4)
		usage();
	n = strtonum(argv[2], 1, 1000000, &errstr);
	if (errstr != NULL)
		errx(1, "n %s: %s", argv[2], errstr);
	if (argc == 5 && strcmp(argv[1], "direct") == 0)
		return (ct_direct(n, argv[3], argv[4]));
	if (strcmp(argv[1], "floor") == 0)
		return (ct_floor(n, argv + 3));
	if (argc >= 5 && strcmp(argv[1], "upstream") == 0)
		return (ct_upstream(n, argv[3], argv + 4));
	usage();
}
