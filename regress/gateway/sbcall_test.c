/*
 * The gateway's code for a sandbox run that sees what the container
 * produced (common/sbstream.c) and what the agent sent and gets
 * (gateway/sbcall.c), without an engine: the attach stream is one end of
 * a socket pair whose other end the test (or a child of it) plays as the
 * engine would, and as a hostile container could.
 */

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "json.h"
#include "sbcall.h"
#include "sbstream.h"

#define T_OUTMAX	64
#define T_BACKSTOP_MS	5000

static char	 t_out[SANDBOX_OUTPUT_BYTES];

struct t_pair {
	int	 fd;		/* the gateway's end, non-blocking */
	int	 peer;		/* the engine's */
};

static void
t_pair(struct t_pair *p)
{
	int	 sv[2], fl;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE((fl = fcntl(sv[0], F_GETFL)) != -1);
	ATF_REQUIRE(fcntl(sv[0], F_SETFL, fl | O_NONBLOCK) == 0);
	p->fd = sv[0];
	p->peer = sv[1];
}

/* One frame of the attach stream: stream byte, 0 0 0, size, payload. */
static size_t
t_frame(char *buf, int stream, const char *payload, size_t len)
{
	buf[0] = (char)stream;
	buf[1] = buf[2] = buf[3] = 0;
	buf[4] = (char)(len >> 24);
	buf[5] = (char)(len >> 16);
	buf[6] = (char)(len >> 8);
	buf[7] = (char)len;
	memcpy(buf + 8, payload, len);
	return (8 + len);
}

static void
t_write(int fd, const char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		n = write(fd, p, len);
		ATF_REQUIRE_MSG(n > 0, "write: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

/* Pump with an empty feed; the output goes to t_out. */
static enum sb_end
t_pump(struct t_pair *p, const char *head, size_t headlen,
    struct sb_output *o, size_t outmax, int64_t backstop_ms)
{
	struct sb_feed	 f;

	ATF_REQUIRE(sb_feed_init(&f, "x", 1, "", 0) == 0);
	memset(o, 0, sizeof(*o));
	o->out = t_out;
	o->outmax = outmax;
	return (sb_stream(p->fd, head, headlen, &f, o,
	    sb_now_ms() + backstop_ms));
}

ATF_TC_WITHOUT_HEAD(stream_frames_split_anywhere);
ATF_TC_BODY(stream_frames_split_anywhere, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	char		 buf[256];
	size_t		 n = 0, cut;

	/* stdout "hello ", stderr "noise", stdout "world" */
	n += t_frame(buf + n, 1, "hello ", 6);
	n += t_frame(buf + n, 2, "noise", 5);
	n += t_frame(buf + n, 1, "world", 5);
	for (cut = 0; cut <= n; cut++) {
		t_pair(&p);
		/* The first cut bytes came with the attach response. */
		t_write(p.peer, buf + cut, n - cut);
		ATF_REQUIRE(close(p.peer) == 0);
		ATF_CHECK_EQ_MSG(t_pump(&p, buf, cut, &o, T_OUTMAX,
		    T_BACKSTOP_MS), SB_EOF, "cut %zu", cut);
		ATF_CHECK_EQ(o.outlen, 11);
		ATF_CHECK(memcmp(t_out, "hello world", 11) == 0);
		ATF_CHECK_EQ(o.stdout_bytes, 11);
		ATF_CHECK_EQ(o.stderr_bytes, 5);
		close(p.fd);
	}
}

ATF_TC_WITHOUT_HEAD(stream_malformed_is_broken);
ATF_TC_BODY(stream_malformed_is_broken, tc)
{
	static const struct {
		const char	*name;
		const char	*bytes;
		size_t		 len;
	} bad[] = {
		{ "stream 0",	"\0\0\0\0\0\0\0\1x", 9 },
		{ "stream 3",	"\3\0\0\0\0\0\0\1x", 9 },
		{ "padding 1",	"\1\1\0\0\0\0\0\1x", 9 },
		{ "padding 2",	"\1\0\1\0\0\0\0\1x", 9 },
		{ "padding 3",	"\1\0\0\1\0\0\0\1x", 9 },
		{ "eof in header", "\1\0\0\0\0", 5 },
		{ "eof in payload", "\1\0\0\0\0\0\0\5abc", 11 },
	};
	struct t_pair	 p;
	struct sb_output o;
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t_pair(&p);
		t_write(p.peer, bad[i].bytes, bad[i].len);
		ATF_REQUIRE(close(p.peer) == 0);
		ATF_CHECK_EQ_MSG(t_pump(&p, NULL, 0, &o, T_OUTMAX,
		    T_BACKSTOP_MS), SB_BROKEN, "%s", bad[i].name);
		close(p.fd);
	}
}

ATF_TC_WITHOUT_HEAD(stream_output_bound_exact);
ATF_TC_BODY(stream_output_bound_exact, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	char		 payload[T_OUTMAX + 1], buf[2 * (T_OUTMAX + 9)];
	size_t		 n;

	memset(payload, 'a', sizeof(payload));

	/* Exactly the bound, in two frames: all of it, EOF. */
	t_pair(&p);
	n = t_frame(buf, 1, payload, T_OUTMAX / 2);
	n += t_frame(buf + n, 1, payload, T_OUTMAX - T_OUTMAX / 2);
	t_write(p.peer, buf, n);
	ATF_REQUIRE(close(p.peer) == 0);
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, T_BACKSTOP_MS),
	    SB_EOF);
	ATF_CHECK_EQ(o.outlen, T_OUTMAX);
	close(p.fd);

	/* One byte more: the first byte over ends it, nothing stored. */
	t_pair(&p);
	n = t_frame(buf, 1, payload, T_OUTMAX);
	n += t_frame(buf + n, 1, payload, 1);
	t_write(p.peer, buf, n);
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, T_BACKSTOP_MS),
	    SB_OUTPUT);
	ATF_CHECK_EQ(o.outlen, T_OUTMAX);
	ATF_CHECK_EQ(o.stdout_bytes, T_OUTMAX + 1);
	close(p.fd);
	close(p.peer);
}

ATF_TC_WITHOUT_HEAD(stream_stderr_bound);
ATF_TC_BODY(stream_stderr_bound, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	static char	 chunk[64 * 1024 + 8];
	size_t		 n, sent;
	pid_t		 pid;
	int		 status;

	/* A child floods stderr frames past the bound; stdout stays empty. */
	t_pair(&p);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN);
		close(p.fd);
		memset(chunk + 8, 'e', sizeof(chunk) - 8);
		n = t_frame(chunk, 2, chunk + 8, sizeof(chunk) - 8);
		for (sent = 0; sent <= SB_STDERR_BYTES; sent += n - 8)
			if (write(p.peer, chunk, n) != (ssize_t)n)
				_exit(0);
		_exit(0);
	}
	close(p.peer);
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, T_BACKSTOP_MS),
	    SB_OUTPUT);
	ATF_CHECK_EQ(o.stderr_bytes, SB_STDERR_BYTES + 1);
	ATF_CHECK_EQ(o.outlen, 0);
	close(p.fd);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
}

ATF_TC_WITHOUT_HEAD(stream_backstop);
ATF_TC_BODY(stream_backstop, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	int64_t		 t0;

	/* A container that says nothing and never ends. */
	t_pair(&p);
	t0 = sb_now_ms();
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, 200), SB_BACKSTOP);
	ATF_CHECK(sb_now_ms() - t0 >= 200);
	ATF_CHECK(sb_now_ms() - t0 < 2000);
	close(p.fd);
	close(p.peer);
}

/*
 * The frame goes in whole, then the write side is shut: the peer reads
 * exactly the header, the source and the input, then its EOF.
 */
ATF_TC_WITHOUT_HEAD(stream_feed_exact);
ATF_TC_BODY(stream_feed_exact, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	struct sb_feed	 f;
	static char	 input[SANDBOX_INPUT_BYTES], got[SANDBOX_INPUT_BYTES + 64];
	char		 reply[16];
	const char	*head = "3 65536\ncat";
	size_t		 have = 0, n, i;
	ssize_t		 r;
	pid_t		 pid;
	int		 status, same;

	for (i = 0; i < sizeof(input); i++)
		input[i] = (char)(i * 7);
	t_pair(&p);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		/* The engine: read to EOF, compare, answer "ok" or "no". */
		close(p.fd);
		while ((r = read(p.peer, got + have, sizeof(got) - have)) > 0)
			have += (size_t)r;
		same = r == 0 && have == strlen(head) + sizeof(input) &&
		    memcmp(got, head, strlen(head)) == 0 &&
		    memcmp(got + strlen(head), input, sizeof(input)) == 0;
		n = t_frame(reply, 1, same ? "ok" : "no", 2);
		_exit(write(p.peer, reply, n) == (ssize_t)n ? 0 : 1);
	}
	close(p.peer);
	ATF_REQUIRE(sb_feed_init(&f, "cat", 3, input, sizeof(input)) == 0);
	memset(&o, 0, sizeof(o));
	o.out = t_out;
	o.outmax = T_OUTMAX;
	ATF_CHECK_EQ(sb_stream(p.fd, NULL, 0, &f, &o, sb_now_ms() +
	    T_BACKSTOP_MS), SB_EOF);
	ATF_CHECK_EQ(o.outlen, 2);
	ATF_CHECK(memcmp(t_out, "ok", 2) == 0);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(p.fd);
}

/* A container that stops reading: EPIPE, never SIGPIPE; output still read. */
ATF_TC_WITHOUT_HEAD(stream_feed_refused_no_signal);
ATF_TC_BODY(stream_feed_refused_no_signal, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	struct sb_feed	 f;
	static char	 input[SANDBOX_INPUT_BYTES];
	char		 buf[32];
	size_t		 n;

	ATF_REQUIRE(signal(SIGPIPE, SIG_DFL) != SIG_ERR);
	t_pair(&p);
	n = t_frame(buf, 1, "early", 5);
	t_write(p.peer, buf, n);
	ATF_REQUIRE(shutdown(p.peer, SHUT_RD) == 0);
	ATF_REQUIRE(close(p.peer) == 0);
	ATF_REQUIRE(sb_feed_init(&f, "x", 1, input, sizeof(input)) == 0);
	memset(&o, 0, sizeof(o));
	o.out = t_out;
	o.outmax = T_OUTMAX;
	ATF_CHECK_EQ(sb_stream(p.fd, NULL, 0, &f, &o, sb_now_ms() +
	    T_BACKSTOP_MS), SB_EOF);
	ATF_CHECK_EQ(o.outlen, 5);
	close(p.fd);
}

/* The longest stdin header the buffer holds, and one digit more. */
ATF_TC_WITHOUT_HEAD(feed_head_bound_exact);
ATF_TC_BODY(feed_head_bound_exact, tc)
{
	const char	*want = "18446744073709551615 999999999\n";
	struct sb_feed	 f;

	/* Nothing is read through the pointers: only the sizes count. */
	ATF_REQUIRE_EQ(sb_feed_init(&f, "x", SIZE_MAX, "", 999999999), 0);
	ATF_CHECK_EQ(f.len[0], strlen(want));
	ATF_CHECK_EQ(strlen(want), SB_STDIN_HEAD_BYTES - 1);
	ATF_CHECK(memcmp(f.head, want, strlen(want)) == 0);
	ATF_CHECK_EQ(sb_feed_init(&f, "x", SIZE_MAX, "", 1000000000), -1);
}

/* Each end's name; anything else is unknown. */
ATF_TC_WITHOUT_HEAD(end_names);
ATF_TC_BODY(end_names, tc)
{
	ATF_CHECK_STREQ(sb_end_str(SB_EOF), "eof");
	ATF_CHECK_STREQ(sb_end_str(SB_OUTPUT), "output");
	ATF_CHECK_STREQ(sb_end_str(SB_BACKSTOP), "backstop");
	ATF_CHECK_STREQ(sb_end_str(SB_BROKEN), "broken");
	ATF_CHECK_STREQ(sb_end_str((enum sb_end)0), "unknown");
	ATF_CHECK_STREQ(sb_end_str(SB_END_MAX), "unknown");
	ATF_CHECK_STREQ(sb_end_str((enum sb_end)(SB_END_MAX + 1)), "unknown");
}

/* A malformed frame in the bytes read with the attach response. */
ATF_TC_WITHOUT_HEAD(stream_head_malformed_is_broken);
ATF_TC_BODY(stream_head_malformed_is_broken, tc)
{
	struct t_pair	 p;
	struct sb_output o;

	t_pair(&p);
	ATF_REQUIRE(close(p.peer) == 0);
	ATF_CHECK_EQ(t_pump(&p, "\3\0\0\0\0\0\0\1x", 9, &o, T_OUTMAX,
	    T_BACKSTOP_MS), SB_BROKEN);
	ATF_CHECK_EQ(o.outlen, 0);
	close(p.fd);
}

/* At the backstop nothing more is read, even a stream that is all there. */
ATF_TC_WITHOUT_HEAD(stream_backstop_reached_reads_nothing);
ATF_TC_BODY(stream_backstop_reached_reads_nothing, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	char		 buf[16];
	size_t		 n;
	int		 i;

	n = t_frame(buf, 1, "ok", 2);
	for (i = 0; i < 10; i++) {
		t_pair(&p);
		t_write(p.peer, buf, n);
		ATF_REQUIRE(close(p.peer) == 0);
		ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, 0),
		    SB_BACKSTOP);
		ATF_CHECK_EQ(o.outlen, 0);
		close(p.fd);
	}
}

/*
 * With a millisecond left, a stream that is all there is read to its
 * end (unless that millisecond passes meanwhile: some tries must end).
 */
ATF_TC_WITHOUT_HEAD(stream_backstop_last_ms_reads);
ATF_TC_BODY(stream_backstop_last_ms_reads, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	enum sb_end	 end;
	char		 buf[16];
	size_t		 n;
	int		 i, eof = 0;

	n = t_frame(buf, 1, "ok", 2);
	for (i = 0; i < 200; i++) {
		t_pair(&p);
		t_write(p.peer, buf, n);
		ATF_REQUIRE(close(p.peer) == 0);
		end = t_pump(&p, NULL, 0, &o, T_OUTMAX, 1);
		ATF_CHECK_MSG(end == SB_EOF || end == SB_BACKSTOP, "end %d",
		    end);
		if (end == SB_EOF) {
			ATF_CHECK_EQ(o.outlen, 2);
			eof++;
		}
		close(p.fd);
	}
	ATF_CHECK_MSG(eof > 0, "no stream read in its last millisecond");
}

static int	 t_sig_peer = -1;
static char	 t_sig_bytes[16];
static size_t	 t_sig_len;
static volatile sig_atomic_t t_sig_seen;

/* The engine answers from the signal handler, while sb_stream polls. */
static void
t_sig_answer(int sig)
{
	char	 buf[64];

	(void)sig;
	t_sig_seen = 1;
	if (t_sig_peer != -1) {
		/* The stdin frame first: closed unread, it is a reset. */
		while (read(t_sig_peer, buf, sizeof(buf)) > 0)
			;
		if (write(t_sig_peer, t_sig_bytes, t_sig_len) !=
		    (ssize_t)t_sig_len)
			t_sig_seen = 2;
		(void)close(t_sig_peer);
		t_sig_peer = -1;
	}
}

static void
t_sig_arm(int ms)
{
	struct sigaction	 sa;
	struct itimerval	 it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = t_sig_answer;	/* no SA_RESTART */
	ATF_REQUIRE(sigemptyset(&sa.sa_mask) == 0);
	ATF_REQUIRE(sigaction(SIGALRM, &sa, NULL) == 0);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

/* A signal that interrupts the wait for output does not end the stream. */
ATF_TC_WITHOUT_HEAD(stream_poll_interrupted_continues);
ATF_TC_BODY(stream_poll_interrupted_continues, tc)
{
	struct t_pair	 p;
	struct sb_output o;

	t_pair(&p);
	t_sig_len = t_frame(t_sig_bytes, 1, "ok", 2);
	t_sig_peer = p.peer;
	t_sig_arm(100);
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, T_BACKSTOP_MS), SB_EOF);
	ATF_CHECK_EQ(t_sig_seen, 1);
	ATF_CHECK_EQ(o.outlen, 2);
	ATF_CHECK(memcmp(t_out, "ok", 2) == 0);
	close(p.fd);
}

/* poll(2) itself failing (here EINVAL: no descriptor allowed) ends it. */
ATF_TC_WITHOUT_HEAD(stream_poll_error_is_broken);
ATF_TC_BODY(stream_poll_error_is_broken, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	struct rlimit	 old, none;
	enum sb_end	 end;

	t_pair(&p);
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &old) == 0);
	none = old;
	none.rlim_cur = 0;
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &none) == 0);
	end = t_pump(&p, NULL, 0, &o, T_OUTMAX, 500);
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &old) == 0);
	ATF_CHECK_EQ(end, SB_BROKEN);
	close(p.fd);
	close(p.peer);
}

/* A descriptor that is not open: POLLNVAL, at once. */
ATF_TC_WITHOUT_HEAD(stream_closed_fd_is_broken);
ATF_TC_BODY(stream_closed_fd_is_broken, tc)
{
	struct t_pair	 p;
	struct sb_output o;

	t_pair(&p);
	ATF_REQUIRE(close(p.fd) == 0);
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, 500), SB_BROKEN);
	close(p.peer);
}

/*
 * A read that fails (the engine reset the connection) ends it, after a
 * frame read whole: what the buffer still holds is not read again.
 */
ATF_TC_WITHOUT_HEAD(stream_reset_is_broken);
ATF_TC_BODY(stream_reset_is_broken, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	char		 payload[40], buf[sizeof(payload) + 8];
	size_t		 n;

	/* Read again, this frame would pass T_OUTMAX: SB_OUTPUT. */
	memset(payload, 'a', sizeof(payload));
	n = t_frame(buf, 1, payload, sizeof(payload));
	t_pair(&p);
	t_write(p.peer, buf, n);
	/* Closed with bytes it never read: ECONNRESET on this end. */
	t_write(p.fd, "zz", 2);
	ATF_REQUIRE(close(p.peer) == 0);
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, T_BACKSTOP_MS),
	    SB_BROKEN);
	ATF_CHECK_EQ(o.outlen, sizeof(payload));
	close(p.fd);
}

static void
t_sleep_ms(int ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * The stdin frame through a small send buffer, to an engine that starts
 * reading late, with a signal while sb_stream waits to write: still
 * exactly the frame, then EOF.  A one-byte source.
 */
ATF_TC_WITHOUT_HEAD(stream_feed_exact_blocked_interrupted);
ATF_TC_BODY(stream_feed_exact_blocked_interrupted, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	struct sb_feed	 f;
	static char	 input[SANDBOX_INPUT_BYTES];
	static char	 got[SANDBOX_INPUT_BYTES + 64];
	char		 reply[16];
	const char	*head = "1 65536\nx";
	size_t		 have = 0, n, i;
	ssize_t		 r;
	pid_t		 pid;
	int		 status, same, sndbuf = 4096;

	for (i = 0; i < sizeof(input); i++)
		input[i] = (char)(i * 7 + i / 251);
	t_pair(&p);
	ATF_REQUIRE(setsockopt(p.fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
	    sizeof(sndbuf)) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(p.fd);
		t_sleep_ms(400);
		while ((r = read(p.peer, got + have, sizeof(got) - have)) > 0)
			have += (size_t)r;
		same = r == 0 && have == strlen(head) + sizeof(input) &&
		    memcmp(got, head, strlen(head)) == 0 &&
		    memcmp(got + strlen(head), input, sizeof(input)) == 0;
		n = t_frame(reply, 1, same ? "ok" : "no", 2);
		_exit(write(p.peer, reply, n) == (ssize_t)n ? 0 : 1);
	}
	close(p.peer);
	t_sig_peer = -1;
	t_sig_arm(100);
	ATF_REQUIRE(sb_feed_init(&f, "x", 1, input, sizeof(input)) == 0);
	memset(&o, 0, sizeof(o));
	o.out = t_out;
	o.outmax = T_OUTMAX;
	ATF_CHECK_EQ(sb_stream(p.fd, NULL, 0, &f, &o, sb_now_ms() +
	    T_BACKSTOP_MS), SB_EOF);
	ATF_CHECK(t_sig_seen);
	ATF_CHECK_EQ(o.outlen, 2);
	ATF_CHECK(memcmp(t_out, "ok", 2) == 0);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(p.fd);
}

/* CPU time of this process so far, in ms. */
static int64_t
t_cpu_ms(void)
{
	struct rusage	 ru;

	ATF_REQUIRE(getrusage(RUSAGE_SELF, &ru) == 0);
	return ((int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
}

#define T_QUIET_MS	500	/* the engine says nothing this long */
#define T_SPIN_MS	50	/* far more CPU than a wait takes */

/*
 * A container that says nothing for a while, after its stdin was all
 * written (shut) or refused: sb_stream waits in poll, it does not spin.
 */
ATF_TC_WITHOUT_HEAD(stream_quiet_waits_without_spinning);
ATF_TC_BODY(stream_quiet_waits_without_spinning, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	char		 buf[64], reply[16];
	size_t		 n;
	pid_t		 pid;
	int64_t		 cpu;
	int		 refuse, status;

	for (refuse = 0; refuse <= 1; refuse++) {
		t_pair(&p);
		if (refuse)
			ATF_REQUIRE(shutdown(p.peer, SHUT_RD) == 0);
		ATF_REQUIRE((pid = fork()) != -1);
		if (pid == 0) {
			close(p.fd);
			/* Written all: read it to its EOF first. */
			while (!refuse && read(p.peer, buf, sizeof(buf)) > 0)
				;
			t_sleep_ms(T_QUIET_MS);
			n = t_frame(reply, 1, "ok", 2);
			_exit(write(p.peer, reply, n) == (ssize_t)n ? 0 : 1);
		}
		close(p.peer);
		cpu = t_cpu_ms();
		ATF_CHECK_EQ_MSG(t_pump(&p, NULL, 0, &o, T_OUTMAX,
		    T_BACKSTOP_MS), SB_EOF, "refuse %d", refuse);
		cpu = t_cpu_ms() - cpu;
		ATF_CHECK_MSG(cpu < T_SPIN_MS, "refuse %d: %lld ms of CPU "
		    "in %d ms of quiet", refuse, (long long)cpu, T_QUIET_MS);
		ATF_CHECK_EQ(o.outlen, 2);
		ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
		close(p.fd);
	}
}

/* A frame size uses all four bytes, most significant first. */
ATF_TC_WITHOUT_HEAD(stream_frame_size_every_byte);
ATF_TC_BODY(stream_frame_size_every_byte, tc)
{
#define T_BIG	0x01010101
	static char	 big[T_BIG + 1], chunk[64 * 1024];
	struct t_pair	 p;
	struct sb_output o;
	struct sb_feed	 f;
	char		 buf[16];
	size_t		 n, left;
	pid_t		 pid;
	int		 status;

	t_pair(&p);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(p.fd);
		/* The stdin frame first: closed unread, it is a reset. */
		while (read(p.peer, chunk, sizeof(chunk)) > 0)
			;
		memset(chunk, 'a', sizeof(chunk));
		/* The header alone, then the payload, then a frame "!". */
		n = t_frame(buf, 1, "", 0);
		buf[4] = buf[5] = buf[6] = buf[7] = 1;
		if (write(p.peer, buf, n) != (ssize_t)n)
			_exit(1);
		for (left = T_BIG; left > 0; left -= n) {
			n = left < sizeof(chunk) ? left : sizeof(chunk);
			t_write(p.peer, chunk, n);
		}
		n = t_frame(buf, 1, "!", 1);
		t_write(p.peer, buf, n);
		_exit(0);
	}
	close(p.peer);
	ATF_REQUIRE(sb_feed_init(&f, "x", 1, "", 0) == 0);
	memset(&o, 0, sizeof(o));
	o.out = big;
	o.outmax = sizeof(big);
	ATF_CHECK_EQ(sb_stream(p.fd, NULL, 0, &f, &o, sb_now_ms() +
	    T_BACKSTOP_MS), SB_EOF);
	ATF_CHECK_EQ(o.outlen, T_BIG + 1);
	ATF_CHECK(big[T_BIG - 1] == 'a' && big[T_BIG] == '!');
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	close(p.fd);
#undef T_BIG
}

/* Exactly the stderr bound is taken: the run goes on to its end. */
ATF_TC_WITHOUT_HEAD(stream_stderr_bound_exact);
ATF_TC_BODY(stream_stderr_bound_exact, tc)
{
	struct t_pair	 p;
	struct sb_output o;
	static char	 chunk[64 * 1024 + 8];
	char		 buf[16];
	size_t		 n, sent;
	pid_t		 pid;
	int		 status;

	t_pair(&p);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(p.fd);
		while (read(p.peer, chunk, sizeof(chunk)) > 0)
			;
		memset(chunk + 8, 'e', sizeof(chunk) - 8);
		n = t_frame(chunk, 2, chunk + 8, sizeof(chunk) - 8);
		for (sent = 0; sent < SB_STDERR_BYTES; sent += n - 8)
			t_write(p.peer, chunk, n);
		n = t_frame(buf, 1, "ok", 2);
		t_write(p.peer, buf, n);
		_exit(0);
	}
	close(p.peer);
	ATF_CHECK_EQ(t_pump(&p, NULL, 0, &o, T_OUTMAX, T_BACKSTOP_MS),
	    SB_EOF);
	ATF_CHECK_EQ(o.stderr_bytes, SB_STDERR_BYTES);
	ATF_CHECK_EQ(o.outlen, 2);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	close(p.fd);
}

/* Source: exactly {"source": non-empty string without NUL, <= max}. */
ATF_TC_WITHOUT_HEAD(source_exactly_one_string);
ATF_TC_BODY(source_exactly_one_string, tc)
{
	static const char *const bad[] = {
		"{}", "[]", "\"x\"", "{\"source\":\"\"}", "{\"source\":1}",
		"{\"source\":null}", "{\"source\":[\"x\"]}",
		"{\"source\":\"x\",\"input\":\"y\"}", "{\"a\":1,\"source\":\"x\"}",
		"{\"Source\":\"x\"}", "{\"source\":\"a\\u0000b\"}",
		"{\"source\":\"12345678\"}",
	};
	char	 src[8 + 1];
	size_t	 len, i;
	const char *ok = "{\"source\":\"a\\nb\\\"c\\u00e9\"}";

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_EQ_MSG(gw_sb_source(bad[i], strlen(bad[i]), 7, src,
		    sizeof(src), &len), -1, "%s", bad[i]);
	ATF_REQUIRE_EQ(gw_sb_source(ok, strlen(ok), 7, src, sizeof(src),
	    &len), 0);
	ATF_CHECK_EQ(len, 7);
	ATF_CHECK(memcmp(src, "a\nb\"c\xc3\xa9", 7) == 0);
	/* Exactly at the bound, and the buffer must hold bound + 1. */
	ATF_CHECK_EQ(gw_sb_source("{\"source\":\"1234567\"}", 20, 7, src,
	    sizeof(src), &len), 0);
	ATF_CHECK_EQ(gw_sb_source("{\"source\":\"1234567\"}", 20, 8, src,
	    sizeof(src) - 1, &len), -1);
}

static void
t_result(struct gw_sb_run *r, int outcome, int64_t status,
    const char *out, size_t outlen)
{
	memset(r, 0, sizeof(*r));
	memcpy(t_out, out, outlen);
	r->out = t_out;
	r->outmax = sizeof(t_out);
	r->outlen = outlen;
	r->outcome = outcome;
	r->status = status;
}

/* The result is canonical JSON, every byte sequence made a string. */
ATF_TC_WITHOUT_HEAD(result_canonical_json);
ATF_TC_BODY(result_canonical_json, tc)
{
	static const struct {
		const char	*out;
		size_t		 len;
		const char	*want;
	} cases[] = {
		{ "plain\n", 6, "\"plain\\n\"" },
		{ "q\"b\\t\tc\x01\x7f", 9, "\"q\\\"b\\\\t\\tc\\u0001\x7f\"" },
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
		    "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		{ "\xff", 1, "\"\xef\xbf\xbd\"" },
		{ "\xc0\x80", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\xed\xa0\x80", 3,
		    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "a\xe2\x82", 3, "\"a\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\xf4\x90\x80\x80", 4, "\"\xef\xbf\xbd\xef\xbf\xbd"
		    "\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "", 0, "\"\"" },
		{ "a\0b", 3, "\"a\xef\xbf\xbd" "b\"" },
	};
	struct gw_sb_run	 r;
	struct json_limits	 lim;
	char			 buf[512], canon[512], want[256];
	size_t			 len, clen, i;

	lim.max_bytes = sizeof(buf);
	lim.max_depth = 8;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t_result(&r, SANDBOX_COMPLETED, 0, cases[i].out, cases[i].len);
		ATF_REQUIRE(gw_sb_result(&r, buf, sizeof(buf), &len) == 0);
		ATF_CHECK_MSG(json_check(buf, len, &lim) == JSON_OK,
		    "case %zu not JSON", i);
		/* Canonicalized, it is the expected text. */
		ATF_REQUIRE_MSG(json_canon(buf, len, &lim, canon,
		    sizeof(canon), &clen) == JSON_OK, "case %zu", i);
		(void)snprintf(want, sizeof(want), "{\"outcome\":\"COMPLETED\","
		    "\"output\":%s,\"status\":0}", cases[i].want);
		ATF_CHECK_MSG(clen == strlen(want) &&
		    memcmp(canon, want, clen) == 0, "case %zu: %.*s", i,
		    (int)clen, canon);
	}

	/* Other outcomes carry no output, whatever was read. */
	t_result(&r, SANDBOX_TIME_LIMIT, 250, "secret", 6);
	ATF_REQUIRE(gw_sb_result(&r, buf, sizeof(buf), &len) == 0);
	ATF_CHECK(len == strlen("{\"outcome\":\"TIME_LIMIT\",\"status\":250}") &&
	    memcmp(buf, "{\"outcome\":\"TIME_LIMIT\",\"status\":250}", len) == 0);
	ATF_CHECK(memmem(buf, len, "secret", 6) == NULL);
}

/* Every size below the result's refuses; the exact size takes it. */
ATF_TC_WITHOUT_HEAD(result_bound_exact);
ATF_TC_BODY(result_bound_exact, tc)
{
	struct gw_sb_run	 r;
	char			 buf[256];
	size_t			 len, need, sz;

	t_result(&r, SANDBOX_COMPLETED, 0, "ab\n\x01\xff", 5);
	ATF_REQUIRE(gw_sb_result(&r, buf, sizeof(buf), &need) == 0);
	for (sz = 0; sz < need; sz++)
		ATF_CHECK_EQ_MSG(gw_sb_result(&r, buf, sz, &len), -1,
		    "size %zu", sz);
	ATF_CHECK_EQ(gw_sb_result(&r, buf, need, &len), 0);
	ATF_CHECK_EQ(len, need);
}

/* Each outcome's name and audit reason; anything else is unknown. */
ATF_TC_WITHOUT_HEAD(outcome_names_and_reasons);
ATF_TC_BODY(outcome_names_and_reasons, tc)
{
	static const struct {
		int		 o;
		const char	*str;
		const char	*reason;
	} cases[] = {
		{ SANDBOX_REFUSED, "REFUSED", "sandbox_refused" },
		{ SANDBOX_COMPLETED, "COMPLETED", "completed" },
		{ SANDBOX_TIME_LIMIT, "TIME_LIMIT", "time_limit" },
		{ SANDBOX_OUTPUT_LIMIT, "OUTPUT_LIMIT", "output_limit" },
		{ SANDBOX_TOOL_FAILED, "TOOL_FAILED", "tool_failed" },
		{ -1, "unknown", "sandbox_unknown" },
		{ -2, "unknown", "sandbox_unknown" },
		{ SANDBOX_OUTCOME_MAX, "unknown", "sandbox_unknown" },
		{ SANDBOX_OUTCOME_MAX + 1, "unknown", "sandbox_unknown" },
	};
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ATF_CHECK_STREQ_MSG(gw_sb_outcome_str(cases[i].o),
		    cases[i].str, "outcome %d", cases[i].o);
		ATF_CHECK_STREQ_MSG(gw_sb_outcome_reason(cases[i].o),
		    cases[i].reason, "outcome %d", cases[i].o);
	}
}

/* The buffer must hold max + 1 bytes: exactly that is enough. */
ATF_TC_WITHOUT_HEAD(source_buffer_exact);
ATF_TC_BODY(source_buffer_exact, tc)
{
	const char	*seven = "{\"source\":\"1234567\"}";
	const char	*eight = "{\"source\":\"12345678\"}";
	char		 src[8];
	size_t		 len;

	ATF_CHECK_EQ(gw_sb_source(seven, strlen(seven), 7, src, 8, &len), 0);
	ATF_CHECK_EQ(len, 7);
	ATF_CHECK(memcmp(src, "1234567", 8) == 0);
	/* One byte over the bound. */
	ATF_CHECK_EQ(gw_sb_source(eight, strlen(eight), 7, src, 8, &len), -1);
	/* One byte short of the buffer the bound needs. */
	ATF_CHECK_EQ(gw_sb_source(seven, strlen(seven), 7, src, 7, &len), -1);
}

/* No member at all, whatever an earlier call left in src and *srclen. */
ATF_TC_WITHOUT_HEAD(source_empty_object_refused);
ATF_TC_BODY(source_empty_object_refused, tc)
{
	const char	*ok = "{\"source\":\"x\"}";
	char		 src[8];
	size_t		 len;

	ATF_REQUIRE_EQ(gw_sb_source(ok, strlen(ok), 7, src, sizeof(src),
	    &len), 0);
	ATF_REQUIRE_EQ(len, 1);
	ATF_CHECK_EQ(gw_sb_source("{}", 2, 7, src, sizeof(src), &len), -1);
}

/* The member without its object around it. */
ATF_TC_WITHOUT_HEAD(source_not_object_refused);
ATF_TC_BODY(source_not_object_refused, tc)
{
	const char	*bare = "\"source\":\"x\"";
	char		 src[8];
	size_t		 len;

	ATF_CHECK_EQ(gw_sb_source(bare, strlen(bare), 7, src, sizeof(src),
	    &len), -1);
}

/*
 * The COMPLETED result of out is exactly {"outcome":"COMPLETED","output":
 * "<want>","status":0}, and exactly that size of buffer takes it: every
 * smaller one is refused.
 */
static void
t_result_exact(const char *name, const char *out, size_t outlen,
    const char *want)
{
	struct gw_sb_run	 r;
	char			 buf[512], full[512];
	size_t			 len, sz;

	(void)snprintf(full, sizeof(full),
	    "{\"outcome\":\"COMPLETED\",\"output\":\"%s\",\"status\":0}", want);
	t_result(&r, SANDBOX_COMPLETED, 0, out, outlen);
	ATF_REQUIRE_EQ_MSG(gw_sb_result(&r, buf, sizeof(buf), &len), 0,
	    "%s", name);
	ATF_CHECK_MSG(len == strlen(full) && memcmp(buf, full, len) == 0,
	    "%s: got %.*s", name, (int)len, buf);
	for (sz = 0; sz < strlen(full); sz++)
		ATF_CHECK_EQ_MSG(gw_sb_result(&r, buf, sz, &len), -1,
		    "%s: size %zu", name, sz);
	ATF_CHECK_EQ_MSG(gw_sb_result(&r, buf, strlen(full), &len), 0,
	    "%s: exact size", name);
	ATF_CHECK_EQ_MSG(len, strlen(full), "%s", name);
}

/* Each byte class as it goes out: controls escaped, the rest as is. */
ATF_TC_WITHOUT_HEAD(result_escapes_exact);
ATF_TC_BODY(result_escapes_exact, tc)
{
	static const struct {
		const char	*out;
		size_t		 len;
		const char	*want;
	} cases[] = {
		{ "a",		1,	"a" },
		{ "",		0,	"" },
		{ "\n",		1,	"\\n" },
		{ "\t",		1,	"\\t" },
		{ "\"",		1,	"\\\"" },
		{ "\\",		1,	"\\\\" },
		{ "\0",		1,	"\\ufffd" },
		{ "\x01",	1,	"\\u0001" },
		{ "\b",		1,	"\\u0008" },
		{ "\r",		1,	"\\u000d" },
		{ "\x1f",	1,	"\\u001f" },
		{ " ",		1,	" " },
		{ "!",		1,	"!" },
		{ "~",		1,	"~" },
		{ "\x7f",	1,	"\\u007f" },
		{ "\x80",	1,	"\\ufffd" },
		{ "a\n\"b",	4,	"a\\n\\\"b" },
	};
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		t_result_exact(cases[i].want, cases[i].out, cases[i].len,
		    cases[i].want);
}

/*
 * RFC 3629 at each edge: the first and last code point of each length
 * go out as they are, the overlong form just below, a surrogate, a lead
 * byte that starts nothing and a bad continuation become U+FFFD a byte.
 */
ATF_TC_WITHOUT_HEAD(result_utf8_boundaries);
ATF_TC_BODY(result_utf8_boundaries, tc)
{
#define FFFD	"\\ufffd"
	static const struct {
		const char	*name;
		const char	*out;
		const char	*want;
	} cases[] = {
		{ "U+0080", "\xc2\x80", "\xc2\x80" },
		{ "overlong U+007F", "\xc1\xbf", FFFD FFFD },
		{ "U+00E9", "\xc3\xa9", "\xc3\xa9" },
		{ "U+07FF", "\xdf\xbf", "\xdf\xbf" },
		{ "U+0800", "\xe0\xa0\x80", "\xe0\xa0\x80" },
		{ "overlong U+07FF", "\xe0\x9f\xbf", FFFD FFFD FFFD },
		{ "U+1000", "\xe1\x80\x80", "\xe1\x80\x80" },
		{ "U+D7FF", "\xed\x9f\xbf", "\xed\x9f\xbf" },
		{ "U+D800", "\xed\xa0\x80", FFFD FFFD FFFD },
		{ "U+DFFF", "\xed\xbf\xbf", FFFD FFFD FFFD },
		{ "U+E000", "\xee\x80\x80", "\xee\x80\x80" },
		{ "U+FFFF", "\xef\xbf\xbf", "\xef\xbf\xbf" },
		{ "U+10000", "\xf0\x90\x80\x80", "\xf0\x90\x80\x80" },
		{ "overlong U+FFFF", "\xf0\x8f\xbf\xbf", FFFD FFFD FFFD FFFD },
		{ "U+40000", "\xf1\x80\x80\x80", "\xf1\x80\x80\x80" },
		{ "U+10FFFF", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },
		{ "U+110000", "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD },
		{ "lead 0xf8", "\xf8\x90\x80\x80", FFFD FFFD FFFD FFFD },
		{ "2: bad 2nd", "\xc3\x28", FFFD "(" },
		{ "3: bad 2nd", "\xe2\x28\xa1", FFFD "(" FFFD },
		{ "4: bad 3rd", "\xf0\x90\x28\x80", FFFD FFFD "(" FFFD },
		{ "3: cut short", "\xe2\x82", FFFD FFFD },
	};
#undef FFFD
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		t_result_exact(cases[i].name, cases[i].out,
		    strlen(cases[i].out), cases[i].want);
}

/*
 * Without output the result is written with its NUL: the text's length
 * is refused, one byte more takes it.  The status tail holds the longest
 * int64 there is.
 */
ATF_TC_WITHOUT_HEAD(result_no_output_bound_exact);
ATF_TC_BODY(result_no_output_bound_exact, tc)
{
	static const struct {
		int64_t		 status;
		const char	*want;
	} cases[] = {
		{ 250, "{\"outcome\":\"TIME_LIMIT\",\"status\":250}" },
		{ INT64_MIN, "{\"outcome\":\"TIME_LIMIT\","
		    "\"status\":-9223372036854775808}" },
		{ INT64_MAX, "{\"outcome\":\"TIME_LIMIT\","
		    "\"status\":9223372036854775807}" },
	};
	struct gw_sb_run	 r;
	char			 buf[128];
	size_t			 len, sz, i, want;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		want = strlen(cases[i].want);
		t_result(&r, SANDBOX_TIME_LIMIT, cases[i].status, "", 0);
		for (sz = 0; sz <= want; sz++)
			ATF_CHECK_EQ_MSG(gw_sb_result(&r, buf, sz, &len), -1,
			    "case %zu: size %zu", i, sz);
		ATF_CHECK_EQ_MSG(gw_sb_result(&r, buf, want + 1, &len), 0,
		    "case %zu", i);
		ATF_CHECK_MSG(len == want && memcmp(buf, cases[i].want,
		    want) == 0, "case %zu: %.*s", i, (int)len, buf);
	}
	/* And with output, the longest tail. */
	t_result(&r, SANDBOX_COMPLETED, INT64_MIN, "a", 1);
	ATF_REQUIRE_EQ(gw_sb_result(&r, buf, sizeof(buf), &len), 0);
	ATF_CHECK(len == strlen("{\"outcome\":\"COMPLETED\",\"output\":\"a\","
	    "\"status\":-9223372036854775808}"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, stream_frames_split_anywhere);
	ATF_TP_ADD_TC(tp, stream_malformed_is_broken);
	ATF_TP_ADD_TC(tp, stream_output_bound_exact);
	ATF_TP_ADD_TC(tp, stream_stderr_bound);
	ATF_TP_ADD_TC(tp, stream_backstop);
	ATF_TP_ADD_TC(tp, stream_feed_exact);
	ATF_TP_ADD_TC(tp, stream_feed_refused_no_signal);
	ATF_TP_ADD_TC(tp, feed_head_bound_exact);
	ATF_TP_ADD_TC(tp, end_names);
	ATF_TP_ADD_TC(tp, stream_head_malformed_is_broken);
	ATF_TP_ADD_TC(tp, stream_backstop_reached_reads_nothing);
	ATF_TP_ADD_TC(tp, stream_backstop_last_ms_reads);
	ATF_TP_ADD_TC(tp, stream_poll_interrupted_continues);
	ATF_TP_ADD_TC(tp, stream_poll_error_is_broken);
	ATF_TP_ADD_TC(tp, stream_closed_fd_is_broken);
	ATF_TP_ADD_TC(tp, stream_reset_is_broken);
	ATF_TP_ADD_TC(tp, stream_feed_exact_blocked_interrupted);
	ATF_TP_ADD_TC(tp, stream_quiet_waits_without_spinning);
	ATF_TP_ADD_TC(tp, stream_frame_size_every_byte);
	ATF_TP_ADD_TC(tp, stream_stderr_bound_exact);
	ATF_TP_ADD_TC(tp, source_exactly_one_string);
	ATF_TP_ADD_TC(tp, result_canonical_json);
	ATF_TP_ADD_TC(tp, result_bound_exact);
	ATF_TP_ADD_TC(tp, outcome_names_and_reasons);
	ATF_TP_ADD_TC(tp, source_buffer_exact);
	ATF_TP_ADD_TC(tp, source_empty_object_refused);
	ATF_TP_ADD_TC(tp, source_not_object_refused);
	ATF_TP_ADD_TC(tp, result_escapes_exact);
	ATF_TP_ADD_TC(tp, result_utf8_boundaries);
	ATF_TP_ADD_TC(tp, result_no_output_bound_exact);
	return (atf_no_error());
}
