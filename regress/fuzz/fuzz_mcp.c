/*
 * libFuzzer harness for the MCP client's response side.
 *
 * Input: one configuration byte, then the bytes the server writes on its
 * stdout, all of them, followed by end of file.
 *	bit 0	line bound 1024 bytes instead of MCP_RESPONSE_BYTES
 *	bit 1	at most 2 tools and 2 pages instead of the defaults
 *	bit 2	skip initialize: the first operation is refused (STATE)
 * The client runs initialize, tools/list, a call of "echo", tools/list
 * again and another call; what it writes is drained and dropped.  All the
 * input is in the pipe before the first operation, so no read waits for
 * the (short) deadline except on a pipe that stays open, which never
 * happens here.  Every descriptor is closed before returning.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp.h"

#define CFG_SMALL_LINE	0x01
#define CFG_FEW_TOOLS	0x02
#define CFG_NO_INIT	0x04
#define FUZZ_PIPE_BYTES	(256 * 1024)
#define FUZZ_TIMEOUT_MS	100

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Read and drop what the client wrote. */
static void
fuzz_drain(int fd)
{
	char	 buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void
fuzz_call(struct mcp_client *c, int req)
{
	static const char	 args[] = "{\"a\":[1,\"x\"]}";
	char			 result[MCP_RESPONSE_BYTES];
	size_t			 len = sizeof(result);
	int			 is_error;

	(void)mcp_call(c, "echo", args, sizeof(args) - 1, result, &len,
	    &is_error);
	if (len > sizeof(result))
		abort();
	fuzz_drain(req);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int		 once;
	struct mcp_client	 c;
	struct mcp_limits	 lim;
	size_t			 off;
	ssize_t			 n;
	int			 req[2], resp[2];
	uint8_t			 cfg;

	if (!once) {
		if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
			abort();
		once = 1;
	}
	if (size < 1)
		return 0;
	cfg = data[0];
	data++;
	size--;
	if (size > FUZZ_PIPE_BYTES)
		size = FUZZ_PIPE_BYTES;

	if (pipe2(req, O_CLOEXEC | O_NONBLOCK) == -1 ||
	    pipe2(resp, O_CLOEXEC) == -1)
		abort();
	if (fcntl(resp[1], F_SETPIPE_SZ, FUZZ_PIPE_BYTES) == -1)
		abort();
	for (off = 0; off < size; off += n)
		if ((n = write(resp[1], data + off, size - off)) <= 0)
			abort();
	if (close(resp[1]) == -1)
		abort();

	memset(&lim, 0, sizeof(lim));
	lim.timeout_ms = FUZZ_TIMEOUT_MS;
	if (cfg & CFG_SMALL_LINE)
		lim.response_bytes = MCP_RESPONSE_MIN_BYTES;
	if (cfg & CFG_FEW_TOOLS) {
		lim.tools = 2;
		lim.pages = 2;
	}
	if (mcp_open(&c, req[1], resp[0], &lim) != MCP_OK)
		abort();
	if (mcp_allow(&c, "echo") != MCP_OK || mcp_allow(&c, "t00") != MCP_OK)
		abort();

	if ((cfg & CFG_NO_INIT) == 0)
		(void)mcp_initialize(&c);
	fuzz_drain(req[0]);
	(void)mcp_list_tools(&c);
	fuzz_drain(req[0]);
	fuzz_call(&c, req[0]);
	(void)mcp_list_tools(&c);
	fuzz_drain(req[0]);
	fuzz_call(&c, req[0]);
	if (c.state != MCP_ST_DEAD && c.fatal != MCP_OK)
		abort();
	(void)mcp_tools_hash(&c);
	(void)mcp_tool_state(&c, "echo");
	(void)mcp_strerror(c.fatal);

	mcp_close(&c);		/* closes req[1] and resp[0] */
	if (close(req[0]) == -1)
		abort();
	return 0;
}
