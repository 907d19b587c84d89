/*
 * The sandbox tool's stream; see sbstream.h.  Nothing here parses what
 * the container wrote beyond the attach stream's frame headers: stdout is
 * copied into a bounded buffer, stderr only counted.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmcp.h"
#include "mstime.h"
#include "sbstream.h"

#define SB_READ_BYTES		(16 * 1024)	/* one read of the stream */

/* The demultiplexer of the attach stream. */
struct sb_demux {
	unsigned char	 head[STREAM_HEADER_BYTES];
	size_t		 headlen;
	size_t		 left;		/* of the current frame's payload */
	int		 stream;
};

static int	 sb_send(int, struct sb_feed *);
static int	 sb_demux(struct sb_demux *, const char *, size_t,
		    struct sb_output *, enum sb_end *);

static const char *const sb_ends[SB_END_MAX] = {
	[SB_EOF] =	"eof",
	[SB_OUTPUT] =	"output",
	[SB_BACKSTOP] =	"backstop",
	[SB_BROKEN] =	"broken",
};

int
sb_feed_init(struct sb_feed *f, const char *source, size_t srclen,
    const char *input, size_t inlen)
{
	int	 n;

	memset(f, 0, sizeof(*f));
	n = snprintf(f->head, sizeof(f->head), "%zu %zu\n", srclen, inlen);
	if (n < 0 || (size_t)n >= sizeof(f->head))
		return (-1);
	f->seg[0] = f->head;
	f->len[0] = (size_t)n;
	f->seg[1] = source;
	f->len[1] = srclen;
	f->seg[2] = input;
	f->len[2] = inlen;
	return (0);
}

/*
 * Write the stdin frame and demultiplex the attach stream until it ends,
 * a bound is passed, or the backstop comes.
 */
enum sb_end
sb_stream(int fd, const char *head, size_t headlen, struct sb_feed *feed,
    struct sb_output *o, int64_t backstop)
{
	char		 buf[SB_READ_BYTES];
	struct sb_demux	 d;
	struct pollfd	 pfd;
	enum sb_end	 end;
	int64_t		 left;
	ssize_t		 n;
	int		 writing = 1;

	memset(&d, 0, sizeof(d));
	if (sb_demux(&d, head, headlen, o, &end) == -1)
		return (end);
	for (;;) {
		if ((left = backstop - sb_now_ms()) <= 0)
			return (SB_BACKSTOP);
		pfd.fd = fd;
		pfd.events = POLLIN | (writing ? POLLOUT : 0);
		pfd.revents = 0;
		if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) == -1) {
			if (errno == EINTR)
				continue;
			return (SB_BROKEN);
		}
		if (pfd.revents & POLLNVAL)
			return (SB_BROKEN);
		if (writing && (pfd.revents & (POLLOUT | POLLERR | POLLHUP))) {
			switch (sb_send(fd, feed)) {
			case 1:
				/* All in: the engine closes the stdin. */
				if (shutdown(fd, SHUT_WR) == -1)
					return (SB_BROKEN);
				writing = 0;
				break;
			case -1:
				/* Nobody reads it any more: the rest says why. */
				writing = 0;
				break;
			}
		}
		if ((pfd.revents & (POLLIN | POLLERR | POLLHUP)) == 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return (SB_BROKEN);
		}
		if (n == 0)
			return (d.headlen == 0 && d.left == 0 ? SB_EOF :
			    SB_BROKEN);
		if (sb_demux(&d, buf, (size_t)n, o, &end) == -1) {
			explicit_bzero(buf, sizeof(buf));
			return (end);
		}
	}
}

/*
 * Send what the socket takes: 0 more to come, 1 all sent, -1 refused (a
 * closed peer is EPIPE, never a signal).
 */
static int
sb_send(int fd, struct sb_feed *f)
{
	ssize_t	 n;

	while (f->i < 3) {
		if (f->off == f->len[f->i]) {
			f->i++;
			f->off = 0;
			continue;
		}
		n = send(fd, f->seg[f->i] + f->off, f->len[f->i] - f->off,
		    MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return (0);
		if (n <= 0)
			return (-1);
		f->off += (size_t)n;
	}
	return (1);
}

/*
 * The payload is never buffered beyond o->out, so a frame may be of any
 * size.  0, or -1 with *end set.
 */
static int
sb_demux(struct sb_demux *d, const char *p, size_t n, struct sb_output *o,
    enum sb_end *end)
{
	const unsigned char	*h = d->head;
	size_t			 take;

	while (n > 0) {
		if (d->left == 0) {
			take = STREAM_HEADER_BYTES - d->headlen;
			if (take > n)
				take = n;
			memcpy(d->head + d->headlen, p, take);
			d->headlen += take;
			p += take;
			n -= take;
			if (d->headlen < STREAM_HEADER_BYTES)
				break;
			d->headlen = 0;
			if ((h[0] != STREAM_STDOUT &&
			    h[0] != STREAM_STDERR) ||
			    h[1] != 0 || h[2] != 0 || h[3] != 0) {
				*end = SB_BROKEN;
				return (-1);
			}
			d->stream = h[0];
			d->left = (size_t)h[4] << 24 | (size_t)h[5] << 16 |
			    (size_t)h[6] << 8 | (size_t)h[7];
			continue;
		}
		take = d->left < n ? d->left : n;
		if (d->stream == STREAM_STDOUT) {
			if (take > o->outmax - o->outlen) {
				/* The first byte over the bound ends it. */
				o->stdout_bytes += o->outmax - o->outlen + 1;
				*end = SB_OUTPUT;
				return (-1);
			}
			memcpy(o->out + o->outlen, p, take);
			o->outlen += take;
			o->stdout_bytes += take;
		} else {
			if (take > SB_STDERR_BYTES - o->stderr_bytes) {
				o->stderr_bytes = SB_STDERR_BYTES + 1;
				*end = SB_OUTPUT;
				return (-1);
			}
			o->stderr_bytes += take;
		}
		d->left -= take;
		p += take;
		n -= take;
	}
	return (0);
}

int64_t
sb_now_ms(void)
{
	struct timespec	 ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (timespec_to_ms(&ts));
}

const char *
sb_end_str(enum sb_end e)
{
	if (e < SB_EOF || e >= SB_END_MAX)
		return ("unknown");
	return (sb_ends[e]);
}
