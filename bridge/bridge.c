/*
 * The bridge: the only process that reads what the agent's container
 * writes (DESIGN 3, 6).  It gets the attach stream as a descriptor from
 * dockerd-client, never opens anything itself, and demultiplexes Docker's
 * stream: stdout is counted against the agent's budget (the frame protocol
 * comes next), stderr is drained and counted, never stored.  The end of the
 * stream, a budget exceeded or the host-side deadline ends the session: the
 * bridge asks dockerd-client to stop it and tells the parent the counts.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "sandbox.h"

/* Docker's stream with Tty false: [type, 0, 0, 0, size (big endian)]. */
#define STREAM_HDR_BYTES	8
#define STREAM_STDOUT		1
#define STREAM_STDERR		2
#define BRIDGE_READ_BYTES	(64 * 1024)

struct bridge_session {
	int			 active;	/* parameters received */
	int			 streaming;	/* the stream is ours */
	int			 admitted;	/* verified after start */
	int			 ended;
	struct session_bridge	 sb;
	int			 fd;
	struct bridge_stream	*head;		/* until the parameters came */
	struct event		 ev_read;
	struct event		 ev_deadline;

	/* demultiplexer state */
	unsigned char		 hdr[STREAM_HDR_BYTES];
	size_t			 hdrlen;
	int			 type;		/* of the frame being read */
	uint64_t		 left;		/* its payload still to come */

	uint64_t		 stdout_bytes;
	uint64_t		 stderr_bytes;
#ifdef CMCP_TEST
	int			 test_stdout;	/* copy of stdout, or -1 */
#endif
};

static struct bridge_session	 bs = { .fd = -1
#ifdef CMCP_TEST
	, .test_stdout = -1
#endif
};

static void	bridge_dispatch_parent(struct imsg *);
static void	bridge_dispatch_gateway(struct imsg *);
static void	bridge_dispatch_watchdog(struct imsg *);
static void	bridge_dispatch_docker(struct imsg *);
static void	bridge_session(struct imsg *);
static void	bridge_stream(struct imsg *);
static void	bridge_stream_open(void);
static void	bridge_payload_send(void);
static void	bridge_read(int, short, void *);
static void	bridge_deadline(int, short, void *);
static int	bridge_demux(const unsigned char *, size_t);
static int	bridge_payload(const unsigned char *, size_t);
static void	bridge_end(int);

/*
 * The bridge's system calls on top of the baseline of common/sandbox.c.
 * Opening files and sockets fails softly; anything else kills.
 */
static const struct sandbox_rule bridge_sandbox[] = {
	SB_EACCES(openat),
	SB_EACCES(socket),
	SB_EACCES(connect),
};

static const struct proc_handler bridge_handlers[] = {
	{ PROC_PARENT,	bridge_dispatch_parent },
	{ PROC_GATEWAY,	bridge_dispatch_gateway },
	{ PROC_WATCHDOG,	bridge_dispatch_watchdog },
	{ PROC_DOCKER,	bridge_dispatch_docker },
};

void
bridge_main(const struct ctl_init *ci)
{
	priv_drop(PROC_BRIDGE, ci);
	proc_listen(bridge_handlers, nitems(bridge_handlers));
	proc_chan_fdpass(PROC_DOCKER);
#ifdef CMCP_TEST
	proc_chan_fdpass(PROC_PARENT);
#endif
	sandbox_apply(ci, bridge_sandbox, nitems(bridge_sandbox));
	proc_ready();
	if (event_dispatch() == -1)
		fatal("event_dispatch");
	fatalx("event loop ended");
}

static void
bridge_dispatch_parent(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_START:
		log_debug("started");
		break;
	case IMSG_CTL_STOPPING:
		proc_stopping();
		break;
	case IMSG_CTL_SHUTDOWN:
		proc_shutdown();
		/* NOTREACHED */
	case IMSG_SESSION_BRIDGE:
		bridge_session(imsg);
		break;
#ifdef CMCP_TEST
	case IMSG_TEST_STDOUT:
		if (bs.test_stdout != -1 ||
		    (bs.test_stdout = imsg_get_fd(imsg)) == -1)
			fatalx("channel parent: bad test stdout message");
		break;
	case IMSG_CTL_PROBE:
		proc_probe(imsg);
		break;
#endif
	default:
		proc_unexpected(PROC_PARENT, imsg);
	}
}

static void
bridge_dispatch_gateway(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_GATEWAY, imsg);
}

static void
bridge_dispatch_watchdog(struct imsg *imsg)
{
	/* Nothing is expected on this channel yet. */
	proc_unexpected(PROC_WATCHDOG, imsg);
}

static void
bridge_dispatch_docker(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_BRIDGE_STREAM:
		bridge_stream(imsg);
		break;
	case IMSG_BRIDGE_ADMIT:
		if (!bs.streaming || bs.admitted)
			fatalx("channel dockerd-client: unexpected admit");
		bs.admitted = 1;
		if (!bs.ended && bs.active)
			bridge_payload_send();
		break;
	default:
		proc_unexpected(PROC_DOCKER, imsg);
	}
}

/* The session's budgets, from the parent, before the stream arrives. */
static void
bridge_session(struct imsg *imsg)
{
	if (bs.active)
		fatalx("channel parent: second session");
	if (imsg_get_data(imsg, &bs.sb, sizeof(bs.sb)) == -1 ||
	    memchr(bs.sb.sb_session, '\0', sizeof(bs.sb.sb_session)) == NULL ||
	    bs.sb.sb_stdout_bytes == 0 || bs.sb.sb_deadline_ms <= 0)
		fatalx("channel parent: bad session message");
	bs.active = 1;
	if (bs.streaming)
		bridge_stream_open();
}

/*
 * The attach stream from dockerd-client: what arrived with its 101 comes
 * first, then the socket.  The two channels are not ordered, so it may
 * come before the parent's parameters and then waits for them.
 */
static void
bridge_stream(struct imsg *imsg)
{
	int	 fd;

	if ((fd = imsg_get_fd(imsg)) == -1)
		fatalx("channel dockerd-client: stream without descriptor");
	if (bs.streaming || bs.ended)
		fatalx("channel dockerd-client: unexpected stream");
	if ((bs.head = malloc(sizeof(*bs.head))) == NULL)
		fatal("malloc");
	if (imsg_get_data(imsg, bs.head, sizeof(*bs.head)) == -1 ||
	    bs.head->bs_len > sizeof(bs.head->bs_head))
		fatalx("channel dockerd-client: bad stream message");
	bs.fd = fd;
	bs.streaming = 1;
	if (bs.active)
		bridge_stream_open();
}

/*
 * Stream and budgets are here.  The host-side deadline starts now, the
 * container having just been started.
 */
static void
bridge_stream_open(void)
{
	struct bridge_stream	*st = bs.head;
	struct timeval		 tv;

	bs.head = NULL;
	evtimer_set(&bs.ev_deadline, bridge_deadline, NULL);
	tv.tv_sec = bs.sb.sb_deadline_ms / 1000;
	tv.tv_usec = (bs.sb.sb_deadline_ms % 1000) * 1000;
	if (evtimer_add(&bs.ev_deadline, &tv) == -1)
		fatalx("evtimer_add failed");

	if (bridge_demux(st->bs_head, st->bs_len) == -1) {
		free(st);
		return;
	}
	free(st);
	if (bs.admitted)
		bridge_payload_send();
	event_set(&bs.ev_read, bs.fd, EV_READ | EV_PERSIST, bridge_read, NULL);
	if (event_add(&bs.ev_read, NULL) == -1)
		fatalx("event_add failed");
}

/*
 * Hook: the initial payload frame, {"payload": ...}, is written here once
 * the frame protocol exists (the next step).  Nothing goes to the
 * container, and no frame is acted on, before dockerd-client verified the
 * started container (IMSG_BRIDGE_ADMIT); until then output is only
 * counted.  The stream's direction to the container is raw bytes (Tty
 * false): no header.
 */
static void
bridge_payload_send(void)
{
}

static void
bridge_read(int fd, short event, void *arg)
{
	unsigned char	 buf[BRIDGE_READ_BYTES];
	ssize_t		 n;

	(void)event;
	(void)arg;
	if ((n = read(fd, buf, sizeof(buf))) == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		log_warn("stream read");
		bridge_end(OUTCOME_STREAM_ERROR);
		return;
	}
	if (n == 0) {
		/* A frame cut short is the container's last word, not ours. */
		bridge_end(bs.hdrlen == 0 && bs.left == 0 ?
		    OUTCOME_COMPLETED : OUTCOME_STREAM_ERROR);
		return;
	}
	(void)bridge_demux(buf, n);
}

static void
bridge_deadline(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	log_info("session deadline");
	bridge_end(OUTCOME_TIME_LIMIT);
}

/*
 * Feed len bytes to the state machine; frames do not follow read
 * boundaries.  -1 once the session has ended (budget, bad frame).
 */
static int
bridge_demux(const unsigned char *p, size_t len)
{
	size_t	 n;

	while (len > 0 && !bs.ended) {
		if (bs.left == 0 && bs.hdrlen < STREAM_HDR_BYTES) {
			n = STREAM_HDR_BYTES - bs.hdrlen;
			if (n > len)
				n = len;
			memcpy(bs.hdr + bs.hdrlen, p, n);
			bs.hdrlen += n;
			p += n;
			len -= n;
			if (bs.hdrlen < STREAM_HDR_BYTES)
				break;
			/* stdin (0) and Systemerr (3) are never ours. */
			if ((bs.hdr[0] != STREAM_STDOUT &&
			    bs.hdr[0] != STREAM_STDERR) || bs.hdr[1] != 0 ||
			    bs.hdr[2] != 0 || bs.hdr[3] != 0) {
				log_warnx("stream: bad frame header");
				bridge_end(OUTCOME_STREAM_ERROR);
				return (-1);
			}
			bs.type = bs.hdr[0];
			bs.left = (uint64_t)bs.hdr[4] << 24 |
			    (uint64_t)bs.hdr[5] << 16 |
			    (uint64_t)bs.hdr[6] << 8 | bs.hdr[7];
			bs.hdrlen = 0;
			if (bs.left > STREAM_FRAME_BYTES) {
				log_warnx("stream: frame of %llu bytes",
				    (unsigned long long)bs.left);
				bridge_end(OUTCOME_STREAM_ERROR);
				return (-1);
			}
			continue;
		}
		n = bs.left < len ? bs.left : len;
		if (bridge_payload(p, n) == -1)
			return (-1);
		bs.left -= n;
		p += n;
		len -= n;
	}
	return (bs.ended ? -1 : 0);
}

/* Count payload bytes against their budget; stderr is never kept. */
static int
bridge_payload(const unsigned char *p, size_t n)
{
	if (bs.type == STREAM_STDERR) {
		bs.stderr_bytes += n;
		if (bs.stderr_bytes > bs.sb.sb_stderr_bytes) {
			bridge_end(OUTCOME_STDERR_LIMIT);
			return (-1);
		}
		return (0);
	}
	bs.stdout_bytes += n;
	if (bs.stdout_bytes > bs.sb.sb_stdout_bytes) {
		bridge_end(OUTCOME_STDOUT_LIMIT);
		return (-1);
	}
#ifdef CMCP_TEST
	/* Test build: the workload's stdout, for the test to read. */
	while (bs.test_stdout != -1 && n > 0) {
		ssize_t	 w;

		if ((w = write(bs.test_stdout, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			fatal("test stdout");
		}
		p += w;
		n -= w;
	}
#else
	(void)p;
#endif
	return (0);
}

/*
 * Once: stop reading, ask dockerd-client to stop the container, and give
 * the parent the outcome as seen from here with the counts.
 */
static void
bridge_end(int outcome)
{
	struct session_stop	 ss;
	struct bridge_result	 br;

	if (bs.ended)
		return;
	bs.ended = 1;
	if (event_initialized(&bs.ev_read) && event_del(&bs.ev_read) == -1)
		fatalx("event_del failed");
	if (evtimer_initialized(&bs.ev_deadline) &&
	    evtimer_del(&bs.ev_deadline) == -1)
		fatalx("evtimer_del failed");
	if (bs.fd != -1 && close(bs.fd) == -1)
		fatal("close stream");
	bs.fd = -1;
#ifdef CMCP_TEST
	if (bs.test_stdout != -1 && close(bs.test_stdout) == -1)
		fatal("close test stdout");
	bs.test_stdout = -1;
#endif

	memset(&ss, 0, sizeof(ss));
	ss.ss_outcome = outcome;
	proc_compose(PROC_DOCKER, IMSG_BRIDGE_STOP, &ss, sizeof(ss));

	memset(&br, 0, sizeof(br));
	br.br_outcome = outcome;
	br.br_stdout_bytes = bs.stdout_bytes;
	br.br_stderr_bytes = bs.stderr_bytes;
	proc_compose(PROC_PARENT, IMSG_BRIDGE_RESULT, &br, sizeof(br));
	log_debug("session ended: stdout %llu bytes, stderr %llu bytes",
	    (unsigned long long)bs.stdout_bytes,
	    (unsigned long long)bs.stderr_bytes);
}
