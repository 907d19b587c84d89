/*
 * The bridge: the only process that reads what the agent's container
 * writes (DESIGN 3, 6).  It gets the attach stream as a descriptor from
 * dockerd-client, never opens anything itself, and demultiplexes Docker's
 * stream: stderr is drained and counted, never stored; stdout is counted
 * against the agent's budget, split into lines and parsed as request
 * frames (frame.h).  Only a validated request -- an operation name and the
 * canonical arguments -- goes to the gateway, one at a time: the next line
 * is looked at once the reply to the last is written.  Anything else the
 * agent writes, a request over its calls, the end of the stream, a budget
 * exceeded, the host-side deadline or the gateway's verdict ends the
 * session: the bridge asks dockerd-client to stop it and tells the parent
 * the outcome, a fixed reason and the counts.
 *
 * From the session's start the bridge pulses the watchdog (DESIGN 10): a
 * one-byte counter every pulse interval on their private channel, each
 * to be acked within the ack time or the session ends (ack_timeout).  No
 * byte goes to the container before the first ack: the lease is held.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "front.h"
#include "log.h"
#include "mstime.h"
#include "proc.h"
#include "sandbox.h"
#include "sha256.h"
#include "tlist.h"

#define BRIDGE_READ_BYTES	(64 * 1024)	/* one read of the stream */

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
	unsigned char		 hdr[STREAM_HEADER_BYTES];
	size_t			 hdrlen;
	int			 type;		/* of the frame being read */
	uint64_t		 left;		/* its payload still to come */

	uint64_t		 stdout_bytes;
	uint64_t		 stderr_bytes;

	/* the agent protocol */
	int			 payload;	/* initial payload received */
	size_t			 payloadlen;
	int			 initial;	/* initial frame queued */
	int			 outstanding;	/* a request at the gateway */
	int			 lost;		/* an upstream, before admit */
	uint32_t		 calls;		/* requests forwarded */
	size_t			 pendoff;	/* stdout not yet split */
	size_t			 pendlen;
	size_t			 outoff;	/* host line not yet written */
	size_t			 outlen;
	int			 wclosed;	/* the agent's stdin is gone */
	const char		*wp;		/* the line being written */
	int			 in_frames;	/* bridge_frames() runs */
	struct timespec		 t_line;	/* the request's line complete */
	struct event		 ev_write;
	struct bridge_lines	 lines;

	/* protocol mcp (front.h) */
	int			 mcp;
	int			 initialized;	/* initialize answered */
	int			 notify;	/* list_changed to send */
	struct front_id		 call_id;	/* of the call at the gateway */
	size_t			 nids;		/* request ids used */

	/* the watchdog's lease */
	int			 armed;		/* the first ack came */
	uint8_t			 pulse_next;	/* byte of the next pulse */
	uint8_t			 ack_next;	/* byte of the next ack */
	unsigned int		 unacked;	/* pulses sent, not acked */
	struct event		 ev_pulse;
	struct event		 ev_ack;	/* the oldest unacked pulse's */
#ifdef CMCP_TEST
	int			 test_stdout;	/* copy of stdout, or -1 */
#endif
};

/*
 * Fixed buffers, no allocation in the loop: the stdout not yet split
 * (the whole session's stdout fits, so it never wraps), one host line,
 * one parsed request and the payload.
 */
static char			 bridge_pend[AGENT_STDOUT_BYTES];
static char			 bridge_out[FRONT_LINE_BYTES];
static char			 bridge_payload_buf[AGENT_FRAME_BYTES];
/* When each pulse byte in flight was sent. */
static struct timespec		 bridge_pulse_sent[UINT8_MAX + 1];
static struct bridge_request	 bridge_req;
/*
 * Protocol mcp: one parsed message, the tools/list line, the tools the
 * gateway sent, and the digest of every request id the agent used (an
 * id is never used twice in a session).
 */
static struct front_msg		 bridge_msg;
static char			*bridge_list;
static struct tlist		 bridge_tools;
static uint8_t			 bridge_ids[FRONT_REQUESTS_MAX]
				    [SHA256_DIGEST_BYTES];
static struct {
	struct gw_request	 hdr;
	char			 args[AGENT_FRAME_BYTES + 1];
} bridge_fwd;

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
static void	bridge_lost(struct imsg *);
static void	bridge_stream(struct imsg *);
static void	bridge_stream_open(void);
static void	bridge_payload_recv(struct imsg *);
static void	bridge_payload_send(void);
static void	bridge_read(int, short, void *);
static void	bridge_deadline(int, short, void *);
static int	bridge_demux(const unsigned char *, size_t);
static int	bridge_payload(const unsigned char *, size_t);
static void	bridge_frames(void);
static void	bridge_forward(const struct bridge_request *);
static int	bridge_mcp_line(const char *, size_t);
static int	bridge_mcp_id(const struct front_id *);
static void	bridge_mcp_reply(const struct gw_reply *, const char *);
static void	bridge_tools_msg(struct imsg *);
static void	bridge_reply(struct imsg *);
static void	bridge_line_out(size_t);
static void	bridge_line_from(const char *, size_t);
static void	bridge_write(int, short, void *);
static void	bridge_eof(void);
static int	bridge_judge_rest(int *, const char **);
static const char *bridge_line_reason(enum bridge_frame_code);
static void	bridge_elapsed(void);
static void	bridge_end(int, const char *);
static void	bridge_wd_start(void);
static void	bridge_wd_pulse(int, short, void *);
static void	bridge_wd_ack(struct imsg *);
static void	bridge_wd_ack_wait(void);
static void	bridge_wd_ack_expired(int, short, void *);

/*
 * The bridge's system calls on top of the baseline of common/sandbox.c.
 * Its buffers, sized from the frame and stdout bounds, come from the
 * brk heap like every allocation (sandbox_heap_init()): no mmap.
 * Opening files and sockets fails softly; anything else kills.
 */
static const struct sandbox_rule bridge_sandbox[] = {
	SB_ALLOW(clock_gettime),	/* when the vDSO cannot serve it */
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
	proc_listen(bridge_handlers, nitems(bridge_handlers), NULL);
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
	case IMSG_SESSION_BRIDGE:
		bridge_session(imsg);
		break;
	case IMSG_SESSION_PAYLOAD:
		bridge_payload_recv(imsg);
		break;
#ifdef CMCP_TEST
	case IMSG_TEST_STDOUT:
		if (bs.test_stdout != -1 ||
		    (bs.test_stdout = imsg_get_fd(imsg)) == -1)
			fatalx("channel parent: bad test stdout message");
		break;
#endif
	default:
		proc_unexpected(PROC_PARENT, imsg);
	}
}

static void
bridge_dispatch_gateway(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_GW_REPLY:
		bridge_reply(imsg);
		break;
	case IMSG_GW_TOOL:
	case IMSG_GW_TOOLS_END:
		bridge_tools_msg(imsg);
		break;
	case IMSG_GW_LOST:
		bridge_lost(imsg);
		break;
	default:
		proc_unexpected(PROC_GATEWAY, imsg);
	}
}

static void
bridge_dispatch_watchdog(struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_WD_ACK:
		bridge_wd_ack(imsg);
		break;
	default:
		proc_unexpected(PROC_WATCHDOG, imsg);
	}
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
		if (bs.lost) {
			bridge_end(OUTCOME_UPSTREAM_FAILED, "upstream_closed");
			break;
		}
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
	    bs.sb.sb_stdout_bytes == 0 ||
	    bs.sb.sb_stdout_bytes > AGENT_STDOUT_BYTES ||
	    bs.sb.sb_deadline_ms <= 0 || bs.sb.sb_frame_bytes == 0 ||
	    bs.sb.sb_frame_bytes > AGENT_FRAME_BYTES ||
	    bs.sb.sb_calls > AGENT_CALLS ||
	    bs.sb.sb_pulse_ms < 1 || bs.sb.sb_ack_ms <= bs.sb.sb_pulse_ms ||
	    bs.sb.sb_ack_ms > 3600 * 1000 ||
	    (bs.sb.sb_protocol != PROTO_FRAMES &&
	    bs.sb.sb_protocol != PROTO_MCP) ||
	    (bs.sb.sb_protocol != PROTO_MCP &&
	    bridge_tools.cur.serial + bridge_tools.next.serial != 0))
		fatalx("channel parent: bad session message");
	bs.mcp = bs.sb.sb_protocol == PROTO_MCP;
	if (bs.mcp && (bridge_list = malloc(GW_TOOL_LIST_BYTES)) == NULL)
		fatal("malloc");
	bridge_lines_init(&bs.lines, bs.sb.sb_frame_bytes,
	    bs.sb.sb_stdout_bytes);
	bs.active = 1;
	bridge_wd_start();
	if (bs.streaming)
		bridge_stream_open();
}

/*
 * A server's container stream closed with no request at the gateway
 * (issue 14): the session ends as a call to it would have, once the
 * agent's container is admitted, so that its stop follows its start.
 */
static void
bridge_lost(struct imsg *imsg)
{
	if (imsg_get_len(imsg) != 0)
		fatalx("channel gateway: bad upstream loss");
	if (bs.ended)
		return;
	if (!bs.admitted) {
		bs.lost = 1;
		return;
	}
	bridge_end(OUTCOME_UPSTREAM_FAILED, "upstream_closed");
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
	ms_to_timeval(bs.sb.sb_deadline_ms, &tv);
	if (evtimer_add(&bs.ev_deadline, &tv) == -1)
		fatalx("evtimer_add failed");

	if (bridge_demux(st->bs_head, st->bs_len) == -1) {
		free(st);
		return;
	}
	free(st);
	event_set(&bs.ev_read, bs.fd, EV_READ | EV_PERSIST, bridge_read, NULL);
	if (event_add(&bs.ev_read, NULL) == -1)
		fatalx("event_add failed");
	event_set(&bs.ev_write, bs.fd, EV_WRITE, bridge_write, NULL);
	if (bs.admitted)
		bridge_payload_send();
}

/* The operator's payload, canonical JSON that the parent checked. */
static void
bridge_payload_recv(struct imsg *imsg)
{
	size_t	 len = imsg_get_len(imsg);

	if (bs.payload || len == 0 || len > sizeof(bridge_payload_buf))
		fatalx("channel parent: bad payload message");
	memcpy(bridge_payload_buf, imsg->data, len);
	bs.payloadlen = len;
	bs.payload = 1;
	if (bs.admitted && !bs.ended && bs.active && bs.streaming &&
	    bs.fd != -1)
		bridge_payload_send();
}

/*
 * The initial frame, {"payload": ...}, once dockerd-client verified the
 * started container (IMSG_BRIDGE_ADMIT), the watchdog acked a first pulse
 * and the payload is here: nothing goes to the container, and no frame is
 * acted on, before.  The stream's direction to the container is raw bytes
 * (Tty false): no header.
 */
static void
bridge_payload_send(void)
{
	const char	*why;
	size_t		 len;

	if (bs.initial || !bs.payload || !bs.armed)
		return;
	if (bs.mcp) {
		/* The agent speaks first; the payload waits for initialize. */
		if (bridge_tools.cur.serial == 0)
			return;
		bs.initial = 1;
		bridge_frames();
		return;
	}
	if (bridge_initial_encode(bridge_payload_buf, bs.payloadlen,
	    bridge_out, bs.sb.sb_frame_bytes + 2, &len, &why) == -1)
		fatalx("initial frame: %s", why);
	explicit_bzero(bridge_payload_buf, bs.payloadlen);
	bs.initial = 1;
	bridge_line_out(len);
	bridge_frames();
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
		bridge_end(OUTCOME_STREAM_ERROR, "stream_read");
		return;
	}
	if (n == 0) {
		bridge_eof();
		return;
	}
	if (bridge_demux(buf, n) == 0)
		bridge_frames();
	explicit_bzero(buf, n);
}

/*
 * The end of the stream: the workload is gone.  A Docker frame cut short
 * is the container's last word, not ours; an unfinished line is the
 * agent's.  Every byte the agent wrote is judged, whether or not the
 * session got to it (the agent may exit before admission): lines not yet
 * acted on are checked but not forwarded, since nobody would read their
 * replies.  So the outcome does not depend on timing.
 */
static void
bridge_eof(void)
{
	const char	*why;
	int		 outcome;

	if (bs.hdrlen != 0 || bs.left != 0) {
		bridge_end(OUTCOME_STREAM_ERROR, "stream_truncated");
		return;
	}
#ifdef CMCP_TEST
	if (bs.test_stdout != -1) {
		bridge_end(OUTCOME_COMPLETED, "");
		return;
	}
#endif
	if (bridge_judge_rest(&outcome, &why) == -1) {
		bridge_end(outcome, why);
		return;
	}
	bridge_end(OUTCOME_COMPLETED, "");
}

/*
 * Check what is left of stdout at its end, in the session's protocol;
 * -1 with the outcome and the reason of the first fault.
 */
static int
bridge_judge_rest(int *outcome, const char **whyp)
{
	enum bridge_frame_code	 code;
	enum front_code		 fc;
	const char		*line;
	size_t			 used, linelen;
	int			 r;

	*outcome = OUTCOME_VIOLATION;
	while (bs.pendoff < bs.pendlen) {
		r = bridge_lines_feed(&bs.lines, bridge_pend + bs.pendoff,
		    bs.pendlen - bs.pendoff, &used, &line, &linelen, &code);
		bs.pendoff += used;
		if (r == -1)
			goto fault;
		if (r == 0)
			break;
		if (bs.mcp) {
			fc = front_parse(line, linelen, bs.sb.sb_frame_bytes,
			    &bridge_msg, whyp);
			explicit_bzero(&bridge_msg, sizeof(bridge_msg));
			r = fc == FRONT_OK ? 0 : -1;
		} else {
			code = bridge_frame_parse(line, linelen,
			    bs.sb.sb_frame_bytes, &bridge_req, whyp);
			explicit_bzero(&bridge_req, sizeof(bridge_req));
			r = code == FRAME_OK ? 0 : -1;
		}
		explicit_bzero((char *)bridge_pend + bs.pendoff - used, used);
		if (r == -1) {
			log_info("after the end: %s", *whyp);
			return (-1);
		}
	}
	if (bridge_lines_end(&bs.lines, &code) == 0)
		return (0);
fault:
	if (code == FRAME_STDOUT_BUDGET)
		*outcome = OUTCOME_STDOUT_LIMIT;
	*whyp = bridge_line_reason(code);
	return (-1);
}

/*
 * Why the splitting of stdout into lines failed, in the session's
 * protocol: a line too long or cut short is an MCP message's fault too.
 */
static const char *
bridge_line_reason(enum bridge_frame_code code)
{
	if (bs.mcp && code == FRAME_TOO_LARGE)
		return (front_string(FRONT_TOO_LARGE));
	if (bs.mcp && code == FRAME_TRUNCATED)
		return ("mcp_truncated");
	return (bridge_frame_string(code));
}

static void
bridge_deadline(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	log_info("session deadline");
	bridge_end(OUTCOME_TIME_LIMIT, "deadline");
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
		if (bs.left == 0 && bs.hdrlen < STREAM_HEADER_BYTES) {
			n = STREAM_HEADER_BYTES - bs.hdrlen;
			if (n > len)
				n = len;
			memcpy(bs.hdr + bs.hdrlen, p, n);
			bs.hdrlen += n;
			p += n;
			len -= n;
			if (bs.hdrlen < STREAM_HEADER_BYTES)
				break;
			/* stdin (0) and Systemerr (3) are never ours. */
			if ((bs.hdr[0] != STREAM_STDOUT &&
			    bs.hdr[0] != STREAM_STDERR) || bs.hdr[1] != 0 ||
			    bs.hdr[2] != 0 || bs.hdr[3] != 0) {
				log_warnx("stream: bad frame header");
				bridge_end(OUTCOME_STREAM_ERROR,
				    "stream_header");
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
				bridge_end(OUTCOME_STREAM_ERROR,
				    "stream_frame_size");
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

/*
 * Count payload bytes against their budget; stderr is never kept, stdout
 * waits in bridge_pend to be split into lines.
 */
static int
bridge_payload(const unsigned char *p, size_t n)
{
	if (bs.type == STREAM_STDERR) {
		bs.stderr_bytes += n;
		if (bs.stderr_bytes > bs.sb.sb_stderr_bytes) {
			bridge_end(OUTCOME_STDERR_LIMIT, "stderr_budget");
			return (-1);
		}
		return (0);
	}
	bs.stdout_bytes += n;
	if (bs.stdout_bytes > bs.sb.sb_stdout_bytes) {
		bridge_end(OUTCOME_STDOUT_LIMIT, "stdout_budget");
		return (-1);
	}
#ifdef CMCP_TEST
	/*
	 * Test build: the workload's stdout, for the test to read, instead
	 * of the frame protocol (the workloads of the confinement tests
	 * print plain text).
	 */
	if (bs.test_stdout != -1) {
		while (n > 0) {
			ssize_t	 w;

			if ((w = write(bs.test_stdout, p, n)) == -1) {
				if (errno == EINTR)
					continue;
				fatal("test stdout");
			}
			p += w;
			n -= w;
		}
		return (0);
	}
#endif
	/* Within the budget, so within the buffer: it never wraps. */
	if (n > sizeof(bridge_pend) - bs.pendlen)
		fatalx("stdout beyond its buffer");
	memcpy(bridge_pend + bs.pendlen, p, n);
	bs.pendlen += n;
	return (0);
}

/*
 * Split and parse what the agent wrote, one request at a time: only once
 * the stream is admitted and the initial frame queued (protocol mcp: the
 * payload and the tools are here), while no request is at the gateway
 * and no line waits to be written.  A line the bridge answers itself
 * (protocol mcp) is written before the next is looked at.
 */
static void
bridge_frames(void)
{
	enum bridge_frame_code	 code;
	const char		*line, *why;
	size_t			 used, linelen, n;
	int			 r;

	if (bs.in_frames)
		return;
	bs.in_frames = 1;
	while (!bs.ended && bs.admitted && bs.initial && !bs.outstanding &&
	    bs.outlen == 0) {
		if (bs.notify) {
			bs.notify = 0;
			if (front_encode_list_changed(bridge_out,
			    sizeof(bridge_out), &n, &why) == -1)
				fatalx("list_changed: %s", why);
			bridge_line_out(n);
			continue;
		}
		if (bs.pendoff == bs.pendlen)
			break;
		r = bridge_lines_feed(&bs.lines, bridge_pend + bs.pendoff,
		    bs.pendlen - bs.pendoff, &used, &line, &linelen, &code);
		bs.pendoff += used;
		if (r == -1) {
			bridge_end(code == FRAME_STDOUT_BUDGET ?
			    OUTCOME_STDOUT_LIMIT : OUTCOME_VIOLATION,
			    bridge_line_reason(code));
			break;
		}
		if (r == 0)
			break;
		if (clock_gettime(CLOCK_MONOTONIC, &bs.t_line) == -1)
			fatal("clock_gettime");
		if (bs.mcp) {
			r = bridge_mcp_line(line, linelen);
			explicit_bzero((char *)bridge_pend + bs.pendoff - used,
			    used);
			if (r == -1)
				break;
			continue;
		}
		code = bridge_frame_parse(line, linelen, bs.sb.sb_frame_bytes,
		    &bridge_req, &why);
		explicit_bzero((char *)bridge_pend + bs.pendoff - used, used);
		if (code != FRAME_OK) {
			log_info("request %u: %s", bs.calls + 1, why);
			bridge_end(OUTCOME_VIOLATION, why);
			break;
		}
		if (bs.calls >= bs.sb.sb_calls) {
			log_info("request %u: over the calls bound",
			    bs.calls + 1);
			bridge_end(OUTCOME_CALLS_LIMIT, "calls_limit");
			break;
		}
		bridge_forward(&bridge_req);
		explicit_bzero(&bridge_req, sizeof(bridge_req));
	}
	bs.in_frames = 0;
}

/*
 * Protocol mcp: one line of the agent's.  A tools/call goes to the
 * gateway as the request a frame would have made; everything else is
 * answered here, from the tools the gateway sent and the payload, and
 * never reaches the gateway.  -1 once the session has ended.
 */
static int
bridge_mcp_line(const char *line, size_t linelen)
{
	struct front_msg	*m = &bridge_msg;
	enum front_code		 fc;
	const char		*why;
	size_t			 n;
	int			 r = 0;

	fc = front_parse(line, linelen, bs.sb.sb_frame_bytes, m, &why);
	if (fc != FRONT_OK) {
		log_info("message: %s", why);
		bridge_end(OUTCOME_VIOLATION, why);
		return (-1);
	}
	if (m->fm_request && bridge_mcp_id(&m->fm_id) == -1)
		return (-1);
	switch (m->fm_method) {
	case FRONT_M_INITIALIZE:
		if (bs.initialized) {
			bridge_end(OUTCOME_VIOLATION, "mcp_initialized_twice");
			return (-1);
		}
		r = front_encode_initialize(&m->fm_id, m->fm_version,
		    CMCP_VERSION, bridge_payload_buf, bs.payloadlen,
		    bridge_out, sizeof(bridge_out), &n, &why);
		explicit_bzero(bridge_payload_buf, bs.payloadlen);
		bs.initialized = 1;
		break;
	case FRONT_M_PING:
		r = front_encode_result(&m->fm_id, "{}", 2, bridge_out,
		    sizeof(bridge_out), &n, &why);
		break;
	case FRONT_M_TOOLS_LIST:
		if (!bs.initialized)
			goto early;
		if (tlist_encode(&bridge_tools, &m->fm_id, bridge_list,
		    GW_TOOL_LIST_BYTES, &n, &why) == -1)
			fatalx("tools/list: %s", why);
		bridge_line_from(bridge_list, n);
		return (0);
	case FRONT_M_TOOLS_CALL:
		if (!bs.initialized)
			goto early;
		if (!tlist_listed(&bridge_tools, m->fm_call.br_operation)) {
			log_info("call %u: a tool never listed",
			    bs.calls + 1);
			bridge_end(OUTCOME_VIOLATION, "mcp_unknown_tool");
			return (-1);
		}
		if (bs.calls >= bs.sb.sb_calls) {
			log_info("request %u: over the calls bound",
			    bs.calls + 1);
			bridge_end(OUTCOME_CALLS_LIMIT, "calls_limit");
			return (-1);
		}
		bs.call_id = m->fm_id;
		bridge_forward(&m->fm_call);
		explicit_bzero(m, sizeof(*m));
		return (0);
	case FRONT_M_OTHER:
		r = front_encode_error(&m->fm_id, FRONT_RPC_METHOD_NOT_FOUND,
		    "Method not found", bridge_out, sizeof(bridge_out), &n,
		    &why);
		break;
	case FRONT_M_INITIALIZED:
	case FRONT_M_CANCELLED:
	case FRONT_M_NOTIFICATION:
		/*
		 * Nothing is in flight when a line is read (one request at
		 * a time): a cancellation names a request already answered,
		 * which the protocol lets a server ignore.
		 */
		explicit_bzero(m, sizeof(*m));
		return (0);
	}
	explicit_bzero(m, sizeof(*m));
	if (r == -1)
		fatalx("answer: %s", why);
	bridge_line_out(n);
	return (0);

early:
	log_info("message: before initialize");
	bridge_end(OUTCOME_VIOLATION, "mcp_not_initialized");
	return (-1);
}

/*
 * A request id is used once in a session (MCP: never reused by the
 * requestor): its key's digest is kept, at most FRONT_REQUESTS_MAX.
 */
static int
bridge_mcp_id(const struct front_id *id)
{
	uint8_t	 d[SHA256_DIGEST_BYTES];
	size_t	 i;

	sha256(id->fi_key, id->fi_keylen, d);
	for (i = 0; i < bs.nids; i++)
		if (memcmp(bridge_ids[i], d, sizeof(d)) == 0) {
			log_info("request: an id used before");
			bridge_end(OUTCOME_VIOLATION, "mcp_id_reused");
			return (-1);
		}
	if (bs.nids == nitems(bridge_ids)) {
		log_info("request: over the requests bound");
		bridge_end(OUTCOME_CALLS_LIMIT, "requests_limit");
		return (-1);
	}
	memcpy(bridge_ids[bs.nids++], d, sizeof(d));
	return (0);
}

/* The validated request, and nothing else of the line, to the gateway. */
static void
bridge_forward(const struct bridge_request *req)
{
	struct gw_request	*rq = &bridge_fwd.hdr;

	memset(rq, 0, sizeof(*rq));
	if (strlcpy(rq->gq_operation, req->br_operation,
	    sizeof(rq->gq_operation)) >= sizeof(rq->gq_operation) ||
	    req->br_arglen == 0 ||
	    req->br_arglen > sizeof(bridge_fwd.args))
		fatalx("request out of bounds");
	rq->gq_arglen = req->br_arglen;
	memcpy(bridge_fwd.args, req->br_arguments, req->br_arglen);
	proc_compose(PROC_GATEWAY, IMSG_GW_REQUEST, &bridge_fwd,
	    sizeof(*rq) + rq->gq_arglen);
	proc_flush(PROC_GATEWAY);
	explicit_bzero(&bridge_fwd, sizeof(*rq) + rq->gq_arglen);
	bs.calls++;
	bs.outstanding = 1;
}

/*
 * The gateway's answer to the outstanding request: a reply line for the
 * agent, or the end of the session.  A result that does not fit a line
 * becomes an "internal" refusal (the gateway bounds it, so it cannot).
 */
static void
bridge_reply(struct imsg *imsg)
{
	struct gw_reply		 gp;
	const char		*result, *why, *p;
	size_t			 len = imsg_get_len(imsg), outlen;

	if (!bs.outstanding || len < sizeof(gp))
		fatalx("channel gateway: unexpected reply");
	memcpy(&gp, imsg->data, sizeof(gp));
	result = (const char *)imsg->data + sizeof(gp);
	if (gp.gp_resultlen != len - sizeof(gp) ||
	    memchr(gp.gp_reason, '\0', sizeof(gp.gp_reason)) == NULL ||
	    gp.gp_code < REPLY_OK || gp.gp_code >= REPLY_CODE_MAX ||
	    (gp.gp_code == REPLY_OK) != (gp.gp_resultlen > 0))
		fatalx("channel gateway: bad reply");
	for (p = gp.gp_reason; *p != '\0'; p++)
		if ((*p < 'a' || *p > 'z') && (*p < '0' || *p > '9') &&
		    *p != '_')
			fatalx("channel gateway: bad reply reason");
	bs.outstanding = 0;
	if (bs.ended)
		return;

	switch (gp.gp_verdict) {
	case GW_VERDICT_REPLY:
		break;
	case GW_VERDICT_VIOLATION:
		bridge_end(OUTCOME_VIOLATION, gp.gp_reason);
		return;
	case GW_VERDICT_FAILED:
		bridge_end(OUTCOME_UPSTREAM_FAILED, gp.gp_reason);
		return;
	default:
		fatalx("channel gateway: bad verdict");
	}
	if (bs.mcp) {
		bridge_mcp_reply(&gp, result);
		return;
	}
	if (bridge_reply_encode(gp.gp_code, result, gp.gp_resultlen,
	    bridge_out, bs.sb.sb_frame_bytes + 2, &outlen, &why) == -1) {
		log_warnx("reply: %s", why);
		if (bridge_reply_encode(REPLY_INTERNAL, NULL, 0, bridge_out,
		    bs.sb.sb_frame_bytes + 2, &outlen, &why) == -1)
			fatalx("reply: %s", why);
	}
	bridge_line_out(outlen);
	bridge_frames();
}

/*
 * Protocol mcp: the call's result as a CallToolResult, a refusal as one
 * with isError and the code as its text; a result that does not fit is
 * an "internal" refusal, as for frames.
 */
static void
bridge_mcp_reply(const struct gw_reply *gp, const char *result)
{
	const char	*why;
	size_t		 n;
	int		 r;

	if (gp->gp_code == REPLY_OK)
		r = front_encode_tool_result(&bs.call_id, result,
		    gp->gp_resultlen, bridge_out, sizeof(bridge_out), &n,
		    &why);
	else
		r = front_encode_refusal(&bs.call_id, gp->gp_code, bridge_out,
		    sizeof(bridge_out), &n, &why);
	if (r == -1) {
		log_warnx("reply: %s", why);
		if (front_encode_refusal(&bs.call_id, REPLY_INTERNAL,
		    bridge_out, sizeof(bridge_out), &n, &why) == -1)
			fatalx("reply: %s", why);
	}
	explicit_bzero(&bs.call_id, sizeof(bs.call_id));
	bridge_line_out(n);
	bridge_frames();
}

/*
 * Protocol mcp: a tool of the list the agent is shown, or the list's
 * end.  A new list that differs from the last is announced to an agent
 * that initialized (notifications/tools/list_changed) before the next
 * line of its is read.
 */
static void
bridge_tools_msg(struct imsg *imsg)
{
	int	 changed;

	if (bs.active && !bs.mcp)
		fatalx("channel gateway: tools for a frames session");
	if (imsg_get_type(imsg) == IMSG_GW_TOOL) {
		if (tlist_tool(&bridge_tools, imsg->data,
		    imsg_get_len(imsg)) == -1)
			fatalx("channel gateway: bad tool message");
		return;
	}
	if (tlist_end(&bridge_tools, imsg->data, imsg_get_len(imsg),
	    &changed) == -1)
		fatalx("channel gateway: bad tools message");
	log_debug("tools: list %u, %zu tools", bridge_tools.cur.serial,
	    bridge_tools.cur.ntools);
	if (bs.ended)
		return;
	if (changed && bs.initialized)
		bs.notify = 1;
	if (!bs.initial && bs.admitted && bs.active && bs.streaming &&
	    bs.fd != -1)
		bridge_payload_send();
	else
		bridge_frames();
}

/*
 * Write the line in bridge_out to the container's stdin.  An agent that
 * does not read holds up only its own next request; one that closed its
 * stdin gets nothing more.
 */
static void
bridge_line_out(size_t len)
{
	bridge_line_from(bridge_out, len);
}

static void
bridge_line_from(const char *line, size_t len)
{
	bs.wp = line;
	bs.outoff = 0;
	bs.outlen = len;
	bridge_write(bs.fd, EV_WRITE, NULL);
}

static void
bridge_write(int fd, short event, void *arg)
{
	ssize_t	 n;

	(void)event;
	(void)arg;
	while (!bs.ended && bs.outoff < bs.outlen && !bs.wclosed) {
		if ((n = write(fd, bs.wp + bs.outoff,
		    bs.outlen - bs.outoff)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				if (event_add(&bs.ev_write, NULL) == -1)
					fatalx("event_add failed");
				return;
			}
			if (errno != EPIPE && errno != ECONNRESET)
				log_warn("stream write");
			bs.wclosed = 1;
			break;
		}
		bs.outoff += n;
	}
	if (bs.wp == bridge_out)
		explicit_bzero(bridge_out, bs.outlen);
	bs.outoff = bs.outlen = 0;
	bridge_elapsed();
	bridge_frames();
}

/* The time from a request's line to its reply written (bench/calls). */
static void
bridge_elapsed(void)
{
	struct timespec	 now, d;

	if (!timespecisset(&bs.t_line))
		return;
	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		fatal("clock_gettime");
	timespecsub(&now, &bs.t_line, &d);
	log_debug("request %u: %lld us from its line to its reply", bs.calls,
	    (long long)timespec_to_us(&d));
	timespecclear(&bs.t_line);
}

/*
 * Once: stop reading, ask dockerd-client to stop the container, and give
 * the parent the outcome as seen from here with a fixed reason and the
 * counts.
 */
static void
bridge_end(int outcome, const char *reason)
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
	if (event_initialized(&bs.ev_write) && event_del(&bs.ev_write) == -1)
		fatalx("event_del failed");
	explicit_bzero(bridge_pend, bs.pendlen);
	explicit_bzero(bridge_out, sizeof(bridge_out));
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
	(void)strlcpy(br.br_reason, reason, sizeof(br.br_reason));
	proc_compose(PROC_PARENT, IMSG_BRIDGE_RESULT, &br, sizeof(br));
	log_debug("session ended: %s, %u requests, stdout %llu bytes, "
	    "stderr %llu bytes", reason[0] != '\0' ? reason : "end of stream",
	    bs.calls, (unsigned long long)bs.stdout_bytes,
	    (unsigned long long)bs.stderr_bytes);
}

/*
 * The watchdog's lease (DESIGN 10): the first pulse now, then one every
 * pulse interval for as long as this process lives, the session's end
 * included, so that the watchdog does not stop a cleanup under way.
 */
static void
bridge_wd_start(void)
{
	struct timeval	 tv;

	event_set(&bs.ev_pulse, -1, EV_PERSIST, bridge_wd_pulse, NULL);
	evtimer_set(&bs.ev_ack, bridge_wd_ack_expired, NULL);
	ms_to_timeval(bs.sb.sb_pulse_ms, &tv);
	if (event_add(&bs.ev_pulse, &tv) == -1)
		fatalx("event_add failed");
	bridge_wd_pulse(-1, EV_TIMEOUT, NULL);
}

/*
 * Queued, not flushed: a watchdog that does not read must not block the
 * bridge.  No more than a byte's worth in flight, so that each ack names
 * one pulse; that many are never in flight while acks are checked.
 */
static void
bridge_wd_pulse(int fd, short event, void *arg)
{
	uint8_t	 b = bs.pulse_next;

	(void)fd;
	(void)event;
	(void)arg;
	if (bs.unacked == UINT8_MAX)
		return;
	if (clock_gettime(CLOCK_MONOTONIC, &bridge_pulse_sent[b]) == -1)
		fatal("clock_gettime");
	proc_compose(PROC_WATCHDOG, IMSG_WD_PULSE, &b, sizeof(b));
	bs.pulse_next++;
	if (bs.unacked++ == 0)
		bridge_wd_ack_wait();
}

/* Acks come in order, one per pulse; the first arms the session. */
static void
bridge_wd_ack(struct imsg *imsg)
{
	uint8_t	 b;

	if (imsg_get_data(imsg, &b, sizeof(b)) == -1 || bs.unacked == 0 ||
	    b != bs.ack_next)
		fatalx("channel watchdog: bad ack");
	bs.ack_next++;
	bs.unacked--;
	if (bs.unacked > 0)
		bridge_wd_ack_wait();
	else if (evtimer_del(&bs.ev_ack) == -1)
		fatalx("evtimer_del failed");
	if (bs.armed)
		return;
	bs.armed = 1;
	log_debug("watchdog armed");
	if (bs.admitted && !bs.ended && bs.active && bs.streaming &&
	    bs.fd != -1)
		bridge_payload_send();
}

/* The oldest pulse in flight must be acked within the ack time. */
static void
bridge_wd_ack_wait(void)
{
	const struct timespec	*t = &bridge_pulse_sent[bs.ack_next];
	struct timespec		 ack, due, now, left;
	struct timeval		 tv;

	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		fatal("clock_gettime");
	ms_to_timespec(bs.sb.sb_ack_ms, &ack);
	timespecadd(t, &ack, &due);
	if (timespeccmp(&now, &due, <))
		timespecsub(&due, &now, &left);
	else
		timespecclear(&left);
	TIMESPEC_TO_TIMEVAL(&tv, &left);
	if (evtimer_add(&bs.ev_ack, &tv) == -1)
		fatalx("evtimer_add failed");
}

static void
bridge_wd_ack_expired(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	if (bs.ended)
		return;
#ifdef CMCP_TEST
	if (bs.sb.sb_noackcheck) {
		log_warnx("watchdog: no ack in %lld ms, ignored (test build)",
		    (long long)bs.sb.sb_ack_ms);
		return;
	}
#endif
	log_warnx("watchdog: no ack in %lld ms", (long long)bs.sb.sb_ack_ms);
	bridge_end(OUTCOME_ACK_TIMEOUT, "ack_timeout");
}
