/*
 * fuzz_sbstream -- what a sandbox container can make of the gateway's
 * stream reader and of the agent's result: the input is the attach
 * stream (its first byte says how much of it came with the attach
 * response, its second the output bound), pumped through a socket pair
 * to its end.  Oracles: the bounds hold, and whatever stdout was kept
 * becomes a result that is one valid JSON document, refused only for
 * want of room.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "sbcall.h"
#include "sbstream.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	 out[SANDBOX_OUTPUT_BYTES];
static char	 res[8 * SANDBOX_OUTPUT_BYTES];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_feed		 f;
	struct sb_output	 o;
	struct gw_sb_run	 r;
	struct json_limits	 lim;
	size_t			 headlen, len;
	enum sb_end		 end;
	int			 sv[2], fl;

	if (size < 2 || size > 64 * 1024)
		return (0);
	headlen = data[0] % (size - 1);
	memset(&o, 0, sizeof(o));
	o.out = out;
	o.outmax = 1 + data[1] * 16;
	data += 2;
	size -= 2;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 ||
	    (fl = fcntl(sv[0], F_GETFL)) == -1 ||
	    fcntl(sv[0], F_SETFL, fl | O_NONBLOCK) == -1)
		abort();
	/* The rest of the stream, then its end; the feed is not read. */
	if (write(sv[1], data + headlen, size - headlen) !=
	    (ssize_t)(size - headlen) || shutdown(sv[1], SHUT_RDWR) == -1)
		abort();
	if (sb_feed_init(&f, "x", 1, "", 0) == -1)
		abort();
	end = sb_stream(sv[0], (const char *)data, headlen, &f, &o,
	    sb_now_ms() + 1000);
	close(sv[0]);
	close(sv[1]);
	if (end == SB_BACKSTOP || o.outlen > o.outmax ||
	    o.stdout_bytes > o.outmax + 1 || o.outlen > o.stdout_bytes ||
	    o.stderr_bytes > SB_STDERR_BYTES + 1)
		abort();

	memset(&r, 0, sizeof(r));
	r.out = out;
	r.outmax = sizeof(out);
	r.outlen = o.outlen;
	r.outcome = SANDBOX_COMPLETED;
	if (gw_sb_result(&r, res, sizeof(res), &len) == -1)
		abort();
	lim.max_bytes = sizeof(res);
	lim.max_depth = 2;
	if (json_check(res, len, &lim) != JSON_OK)
		abort();
	return (0);
}
