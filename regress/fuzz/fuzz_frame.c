/*
 * libFuzzer harness for the agent protocol: the stdout line splitter and
 * the request frame parser.
 *
 * Input: three configuration bytes, then the agent's stdout.
 *	byte 0	frame bound: AGENT_FRAME_BYTES if bit 7 is set,
 *		else 16 + 8 * (bits 0-6)
 *	byte 1	stdout budget: 255 unbounded, else 64 * (0..254)
 *	byte 2	first chunk size 1..64; later sizes vary from it
 * The stream is fed in chunks; every complete line is parsed.  Checked:
 * a line is never over the frame bound, the bytes taken never exceed the
 * budget, a violation is final; a frame accepted has a valid operation
 * name and canonical arguments that validate, are an object, are a fixed
 * point of the encoder and fit a reply; a frame refused leaves nothing,
 * and one with a number that is no finite double is refused as a syntax
 * error.  The whole stream is also parsed as one line.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmcp.h"
#include "frame.h"
#include "json.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct bridge_lines	 bl;
static struct bridge_request	 req;
static char			 canon[AGENT_FRAME_BYTES + 1];
static char			 reply[AGENT_FRAME_BYTES + 64];

static void
check_frame(const char *line, size_t len, size_t max_frame)
{
	struct json_limits	 lim = { AGENT_FRAME_BYTES, BRIDGE_DEPTH_MAX };
	enum bridge_frame_code	 code;
	const char		*why = NULL;
	size_t			 i, n;
	char			 c;

	code = bridge_frame_parse(line, len, max_frame, &req, &why);
	if (code < 0 || code >= FRAME_CODE_MAX || why == NULL ||
	    strcmp(why, bridge_frame_string(code)) != 0)
		abort();
	lim.max_bytes = max_frame < AGENT_FRAME_BYTES ? max_frame :
	    AGENT_FRAME_BYTES;
	if (json_check(line, len, &lim) == JSON_ERANGE && code != FRAME_SYNTAX)
		abort();
	lim.max_bytes = AGENT_FRAME_BYTES;
	if (code != FRAME_OK) {
		if (req.br_operation[0] != '\0' || req.br_arglen != 0)
			abort();
		return;
	}
	if (len > max_frame || len > AGENT_FRAME_BYTES)
		abort();
	n = strlen(req.br_operation);
	if (n == 0 || n > BRIDGE_OPERATION_BYTES)
		abort();
	for (i = 0; i < n; i++) {
		c = req.br_operation[i];
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", c) == NULL)
			abort();
	}
	if (req.br_arglen > len || strlen(req.br_arguments) != req.br_arglen ||
	    req.br_arguments[0] != '{')
		abort();
	if (json_canonical(req.br_arguments, req.br_arglen, &lim, canon,
	    sizeof(canon), &n, &why) != 0 || n != req.br_arglen ||
	    memcmp(canon, req.br_arguments, n) != 0)
		abort();
	if (bridge_reply_encode(REPLY_OK, req.br_arguments, req.br_arglen,
	    reply, sizeof(reply), &n, &why) != 0 || reply[n - 1] != '\n' ||
	    memchr(reply, '\n', n - 1) != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum bridge_frame_code	 code, again;
	const char		*stream, *line;
	size_t			 max_frame, budget, len, chunk, used, linelen;
	size_t			 taken = 0, n;
	int			 r = 0;

	if (size < 3)
		return 0;
	max_frame = data[0] & 0x80 ? AGENT_FRAME_BYTES :
	    16 + 8 * (size_t)(data[0] & 0x7f);
	budget = data[1] == 0xff ? SIZE_MAX : 64 * (size_t)data[1];
	chunk = 1 + data[2] % 64;
	stream = (const char *)data + 3;
	len = size - 3;

	bridge_lines_init(&bl, max_frame, budget);
	while (len > 0) {
		n = chunk < len ? chunk : len;
		while (n > 0) {
			r = bridge_lines_feed(&bl, stream, n, &used, &line,
			    &linelen, &code);
			if (r == -1)
				break;
			if (used == 0 || used > n)
				abort();
			taken += used;
			if (taken > budget)
				abort();
			if (r == 1) {
				if (linelen > max_frame ||
				    memchr(line, '\n', linelen) != NULL)
					abort();
				check_frame(line, linelen, max_frame);
			} else if (used != n)
				abort();
			stream += used;
			len -= used;
			n -= used;
		}
		if (r == -1)
			break;
		chunk = 1 + (chunk * 7 + 3) % 64;
	}
	if (r == -1) {
		if (code != FRAME_TOO_LARGE && code != FRAME_STDOUT_BUDGET)
			abort();
		if (bridge_lines_feed(&bl, "{}\n", 3, &used, &line, &linelen,
		    &again) != -1 || again != code || used != 0)
			abort();
	}
	r = bridge_lines_end(&bl, &again);
	if ((r == 0) != (again == FRAME_OK))
		abort();

	check_frame((const char *)data + 3, size - 3, max_frame);
	return 0;
}
