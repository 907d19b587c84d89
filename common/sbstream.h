/*
 * The sandbox tool's stream (DESIGN 3, 11): the one piece of code that
 * sees bytes a sandbox container produced.  It takes the attach stream as
 * a descriptor, writes the runner's stdin frame into it, and reads the
 * multiplexed output back under the tool's bounds and the host's
 * backstop.  It holds no engine connection: dockerd-client creates and
 * removes the container, the gateway pumps this.
 *
 * The stdin frame (examples/store/sandbox-runner.c):
 *
 *	<source-bytes> SP <input-bytes> LF <source> <input>
 *
 * The attach stream (Tty false): frames of a byte naming the stream (1
 * stdout, 2 stderr), three zero bytes, a 32-bit big-endian size and the
 * payload.  stdout is kept up to the bound, stderr counted and dropped.
 */

#ifndef CMCP_SBSTREAM_H
#define CMCP_SBSTREAM_H

#include <stddef.h>
#include <stdint.h>

#define SB_STDIN_HEAD_BYTES	32	/* "16384 65536\n" is 12 */
/* stderr is counted, never stored; past this the run is cut. */
#define SB_STDERR_BYTES		(1024 * 1024)

/* How the stream ended. */
enum sb_end {
	SB_EOF = 1,		/* the engine closed it after the container */
	SB_OUTPUT,		/* a byte over a bound */
	SB_BACKSTOP,		/* the host's deadline */
	SB_BROKEN,		/* malformed, or an I/O error */
	SB_END_MAX
};

/* The stdin frame: header, source, input, sent in turn. */
struct sb_feed {
	char		 head[SB_STDIN_HEAD_BYTES];
	const char	*seg[3];
	size_t		 len[3];
	size_t		 i;
	size_t		 off;
};

/* What came back: stdout up to outmax bytes in out, counts of both. */
struct sb_output {
	char		*out;		/* outmax bytes */
	size_t		 outmax;
	size_t		 outlen;
	uint64_t	 stdout_bytes;	/* received, at most outmax + 1 */
	uint64_t	 stderr_bytes;	/* received, counted only */
};

/* 0, or -1 when the sizes cannot be framed. */
int		 sb_feed_init(struct sb_feed *, const char *, size_t,
		    const char *, size_t);
/*
 * Pump fd (non-blocking) until the stream ends, a bound is passed or
 * CLOCK_MONOTONIC reaches backstop_ms.  head holds bytes of the stream
 * already read with the attach response.
 */
enum sb_end	 sb_stream(int, const char *, size_t, struct sb_feed *,
		    struct sb_output *, int64_t);
int64_t		 sb_now_ms(void);
const char	*sb_end_str(enum sb_end);

#endif /* CMCP_SBSTREAM_H */
