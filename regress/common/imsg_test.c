/*
 * Tests of the framing library: reassembly at any split, size limits,
 * descriptor passing and its failure modes, end of file, and a write queue
 * drained through a small socket buffer.
 */

#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imsg.h"
#include "memcap.h"
#include "count-fds.h"

/* Linux's, for a libc whose headers predate it */
#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD	76
#endif

#ifndef nitems
#define nitems(a)	(sizeof((a)) / sizeof((a)[0]))
#endif

#define TEST_TYPE	7
#define TEST_PEERID	11
#define TEST_PID	4242
#define POLL_MS		5000

static void
pair(int s[2])
{
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0, s) == 0);
}

static void
init_pair(struct imsgbuf *a, struct imsgbuf *b, int s[2], int fdpass)
{
	pair(s);
	ATF_REQUIRE(imsgbuf_init(a, s[0]) == 0);
	ATF_REQUIRE(imsgbuf_init(b, s[1]) == 0);
	if (fdpass) {
		imsgbuf_allow_fdpass(a);
		imsgbuf_allow_fdpass(b);
	}
}

static void
close_pair(struct imsgbuf *a, struct imsgbuf *b, int s[2])
{
	imsgbuf_clear(a);
	imsgbuf_clear(b);
	if (s[0] != -1)
		close(s[0]);
	if (s[1] != -1)
		close(s[1]);
}

/* Write all of buf, with an optional set of descriptors on the first byte. */
static void
send_raw(int s, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(4 * sizeof(int))];
	}		 cmsgbuf;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	ssize_t		 n;

	ATF_REQUIRE(nfds <= 4);
	memset(&msg, 0, sizeof(msg));
	memset(&cmsgbuf, 0, sizeof(cmsgbuf));
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0) {
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	n = sendmsg(s, &msg, MSG_NOSIGNAL);
	ATF_REQUIRE_EQ(n, (ssize_t)len);
}

static size_t
raw_msg(unsigned char *buf, uint32_t len, const void *data, size_t datalen)
{
	struct imsg_hdr	 hdr;

	hdr.type = TEST_TYPE;
	hdr.len = len;
	hdr.peerid = TEST_PEERID;
	hdr.pid = TEST_PID;
	memcpy(buf, &hdr, sizeof(hdr));
	if (datalen > 0)
		memcpy(buf + sizeof(hdr), data, datalen);
	return sizeof(hdr) + datalen;
}

/* The bytes imsg_compose puts on the wire for one message. */
static size_t
encode(unsigned char *out, size_t outlen, uint32_t type, const void *data,
    size_t datalen)
{
	struct imsgbuf	 ib;
	int		 s[2];
	ssize_t		 n;

	pair(s);
	ATF_REQUIRE(imsgbuf_init(&ib, s[0]) == 0);
	ATF_REQUIRE_EQ(imsg_compose(&ib, type, TEST_PEERID, TEST_PID, -1,
	    data, datalen), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(&ib), 0);
	n = read(s[1], out, outlen);
	ATF_REQUIRE_EQ(n, (ssize_t)(IMSG_HEADER_SIZE + datalen));
	imsgbuf_clear(&ib);
	close(s[0]);
	close(s[1]);
	return n;
}

/*
 * Drive writer (may be NULL) and reader until one message is complete.
 * Returns what imsgbuf_get or imsgbuf_read ended with.
 */
static int
recv_one(struct imsgbuf *w, struct imsgbuf *r, struct imsg *imsg)
{
	struct pollfd	 pfd;
	int		 n;

	for (;;) {
		if (w != NULL && imsgbuf_write(w) == -1)
			return -1;
		if ((n = imsgbuf_get(r, imsg)) != 0)
			return n;
		pfd.fd = r->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, POLL_MS) != 1) {
			errno = ETIMEDOUT;
			return -1;
		}
		if ((n = imsgbuf_read(r)) != 1)
			return n;
	}
}

static int
fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

static void
check_payload(struct imsg *imsg, uint32_t type, const void *data,
    size_t datalen)
{
	ATF_REQUIRE_EQ(imsg_get_type(imsg), type);
	ATF_REQUIRE_EQ(imsg_get_peerid(imsg), TEST_PEERID);
	ATF_REQUIRE_EQ(imsg_get_pid(imsg), TEST_PID);
	ATF_REQUIRE_EQ(imsg_get_len(imsg), datalen);
	ATF_REQUIRE(datalen == 0 || memcmp(imsg->data, data, datalen) == 0);
}

/* Two messages back to back, so splits fall in headers, bodies and between. */
static size_t
two_messages(unsigned char *buf, size_t buflen)
{
	size_t	 n;

	n = encode(buf, buflen, 1, "first message body..", 20);
	n += encode(buf + n, buflen - n, 2, "second!", 7);
	return n;
}

/* Reads and gets until none is complete; checks each against two_messages. */
static void
drain_two(struct imsgbuf *ib, int *got)
{
	struct imsg	 imsg;

	ATF_REQUIRE_EQ(imsgbuf_read(ib), 1);
	while (imsgbuf_get(ib, &imsg) == 1) {
		ATF_REQUIRE(*got < 2);
		if (*got == 0)
			check_payload(&imsg, 1, "first message body..", 20);
		else
			check_payload(&imsg, 2, "second!", 7);
		ATF_REQUIRE_EQ(imsg.fd, -1);
		imsg_free(&imsg);
		(*got)++;
	}
}

ATF_TC_WITHOUT_HEAD(split_at_every_byte_boundary_reassembles);
ATF_TC_BODY(split_at_every_byte_boundary_reassembles, tc)
{
	struct imsgbuf	 a, b;
	unsigned char	 buf[128];
	size_t		 len, k;
	int		 s[2], got;

	len = two_messages(buf, sizeof(buf));
	for (k = 1; k < len; k++) {
		init_pair(&a, &b, s, 0);
		got = 0;
		send_raw(s[0], buf, k, NULL, 0);
		drain_two(&b, &got);
		ATF_REQUIRE_EQ(got, k >= 36 ? 1 : 0);
		send_raw(s[0], buf + k, len - k, NULL, 0);
		drain_two(&b, &got);
		ATF_REQUIRE_EQ(got, 2);
		close_pair(&a, &b, s);
	}
}

ATF_TC_WITHOUT_HEAD(one_byte_writes_reassemble);
ATF_TC_BODY(one_byte_writes_reassemble, tc)
{
	struct imsgbuf	 a, b;
	unsigned char	 buf[128];
	size_t		 len, k;
	int		 s[2], got = 0;

	len = two_messages(buf, sizeof(buf));
	init_pair(&a, &b, s, 0);
	for (k = 0; k < len; k++) {
		send_raw(s[0], buf + k, 1, NULL, 0);
		drain_two(&b, &got);
		ATF_REQUIRE_EQ(got, k + 1 < 36 ? 0 : k + 1 < len ? 1 : 2);
	}
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(max_size_message_passes);
ATF_TC_BODY(max_size_message_passes, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	*data;
	size_t		 datalen = MAX_IMSG_BYTES - IMSG_HEADER_SIZE, i;
	int		 s[2];

	ATF_REQUIRE((data = malloc(datalen)) != NULL);
	for (i = 0; i < datalen; i++)
		data[i] = i * 7;
	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    data, datalen), 1);
	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, data, datalen);
	imsg_free(&imsg);
	close_pair(&a, &b, s);
	free(data);
}

ATF_TC_WITHOUT_HEAD(raised_maxsize_carries_limit_sized_message);
ATF_TC_BODY(raised_maxsize_carries_limit_sized_message, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	*data;
	size_t		 datalen = MAX_IMSG_LIMIT_BYTES - IMSG_HEADER_SIZE, i;
	int		 s[2];

	ATF_REQUIRE((data = malloc(datalen)) != NULL);
	for (i = 0; i < datalen; i++)
		data[i] = i * 13;
	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_ERRNO(EMSGSIZE, imsg_compose(&a, TEST_TYPE, TEST_PEERID,
	    TEST_PID, -1, data, datalen) == -1);
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&a, MAX_IMSG_LIMIT_BYTES), 0);
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&b, MAX_IMSG_LIMIT_BYTES), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    data, datalen), 1);
	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, data, datalen);
	imsg_free(&imsg);
	close_pair(&a, &b, s);
	free(data);
}

ATF_TC_WITHOUT_HEAD(maxsize_outside_bounds_refused);
ATF_TC_BODY(maxsize_outside_bounds_refused, tc)
{
	struct imsgbuf	 ib;

	ATF_REQUIRE(imsgbuf_init(&ib, -1) == 0);
	ATF_REQUIRE_ERRNO(EINVAL,
	    imsgbuf_set_maxsize(&ib, IMSG_HEADER_SIZE - 1) == -1);
	ATF_REQUIRE_ERRNO(EINVAL,
	    imsgbuf_set_maxsize(&ib, MAX_IMSG_LIMIT_BYTES + 1) == -1);
	ATF_REQUIRE_EQ(ib.maxsize, MAX_IMSG_BYTES);
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&ib, IMSG_HEADER_SIZE), 0);
	ATF_REQUIRE_EQ(imsg_compose(&ib, TEST_TYPE, 0, 0, -1, NULL, 0), 1);
	ATF_REQUIRE_ERRNO(EMSGSIZE,
	    imsg_compose(&ib, TEST_TYPE, 0, 0, -1, "x", 1) == -1);
	imsgbuf_clear(&ib);
}

ATF_TC_WITHOUT_HEAD(compose_over_max_size_fails_emsgsize);
ATF_TC_BODY(compose_over_max_size_fails_emsgsize, tc)
{
	struct imsgbuf	 ib;
	unsigned char	*data;
	size_t		 datalen = MAX_IMSG_BYTES - IMSG_HEADER_SIZE + 1;
	int		 p[2];

	ATF_REQUIRE((data = calloc(1, datalen)) != NULL);
	ATF_REQUIRE(imsgbuf_init(&ib, -1) == 0);
	imsgbuf_allow_fdpass(&ib);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE_ERRNO(EMSGSIZE, imsg_compose(&ib, TEST_TYPE, 0, 0, p[1],
	    data, datalen) == -1);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&ib), 0);
	/* The descriptor is the library's from the call on: closed on error. */
	ATF_REQUIRE(!fd_is_open(p[1]));
	ATF_REQUIRE_EQ(imsg_compose(&ib, TEST_TYPE, 0, 0, -1, data,
	    datalen - 1), 1);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&ib), 1);
	imsgbuf_clear(&ib);
	close(p[0]);
	free(data);
}

ATF_TC_WITHOUT_HEAD(header_claiming_over_max_fails_ebadmsg);
ATF_TC_BODY(header_claiming_over_max_fails_ebadmsg, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[IMSG_HEADER_SIZE];
	uint32_t	 lens[] = { MAX_IMSG_BYTES + 1,
			    IMSG_FD_MARK | (MAX_IMSG_BYTES + 1), UINT32_MAX };
	size_t		 i;
	int		 s[2];

	/* A header at the maximum waits for its body... */
	init_pair(&a, &b, s, 0);
	send_raw(s[0], buf, raw_msg(buf, MAX_IMSG_BYTES, NULL, 0), NULL, 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
	close_pair(&a, &b, s);

	/* ...one byte more is refused as soon as the header is in. */
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		init_pair(&a, &b, s, 1);
		send_raw(s[0], buf, raw_msg(buf, lens[i], NULL, 0), NULL, 0);
		ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
		ATF_REQUIRE_ERRNO(EBADMSG, imsgbuf_get(&b, &imsg) == -1);
		close_pair(&a, &b, s);
	}
}

ATF_TC_WITHOUT_HEAD(header_length_below_header_size_fails_ebadmsg);
ATF_TC_BODY(header_length_below_header_size_fails_ebadmsg, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[64];
	uint32_t	 lens[] = { 0, 1, IMSG_HEADER_SIZE - 1,
			    IMSG_FD_MARK | (IMSG_HEADER_SIZE - 1) };
	size_t		 i;
	int		 s[2];

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		init_pair(&a, &b, s, 1);
		send_raw(s[0], buf, raw_msg(buf, lens[i], NULL, 0) + 32, NULL,
		    0);
		ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
		ATF_REQUIRE_ERRNO(EBADMSG, imsgbuf_get(&b, &imsg) == -1);
		close_pair(&a, &b, s);
	}
}

ATF_TC_WITHOUT_HEAD(fd_mark_without_fd_fails_ebadmsg);
ATF_TC_BODY(fd_mark_without_fd_fails_ebadmsg, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[64];
	int		 s[2];

	init_pair(&a, &b, s, 1);
	send_raw(s[0], buf, raw_msg(buf, IMSG_FD_MARK | (IMSG_HEADER_SIZE + 4),
	    "abcd", 4), NULL, 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsgbuf_get(&b, &imsg) == -1);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(fd_without_mark_fails_ebadmsg);
ATF_TC_BODY(fd_without_mark_fails_ebadmsg, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[64];
	int		 s[2], p[2], before, n;

	init_pair(&a, &b, s, 1);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	before = count_fds();
	send_raw(s[0], buf, raw_msg(buf, IMSG_HEADER_SIZE + 4, "abcd", 4),
	    &p[0], 1);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	while ((n = imsgbuf_get(&b, &imsg)) == 1) {
		ATF_REQUIRE_EQ(imsg.fd, -1);
		imsg_free(&imsg);
	}
	ATF_REQUIRE_ERRNO(EBADMSG, n == -1);
	ATF_REQUIRE_EQ(count_fds(), before);
	close_pair(&a, &b, s);
	close(p[0]);
	close(p[1]);
}

/* Send the write end of a pipe from one side, write through it on the other. */
static void
pass_pipe(struct imsgbuf *from, struct imsgbuf *to)
{
	struct imsg	 imsg;
	char		 c[5];
	int		 p[2], fd, flags;

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	/* Queued behind a plain message, the fd must still ride its own. */
	ATF_REQUIRE_EQ(imsg_compose(from, TEST_TYPE, TEST_PEERID, TEST_PID,
	    -1, "plain", 5), 1);
	ATF_REQUIRE_EQ(imsg_compose(from, TEST_TYPE, TEST_PEERID, TEST_PID,
	    p[1], "pipe", 4), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(from), 0);
	ATF_REQUIRE(!fd_is_open(p[1]));		/* closed once sent */
	ATF_REQUIRE_EQ(recv_one(NULL, to, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, "plain", 5);
	ATF_REQUIRE_EQ(imsg.fd, -1);
	imsg_free(&imsg);
	ATF_REQUIRE_EQ(recv_one(NULL, to, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, "pipe", 4);
	ATF_REQUIRE((fd = imsg_get_fd(&imsg)) != -1);
	ATF_REQUIRE_EQ(imsg_get_fd(&imsg), -1);
	imsg_free(&imsg);
	ATF_REQUIRE((flags = fcntl(fd, F_GETFD)) != -1);
	ATF_REQUIRE(flags & FD_CLOEXEC);
	ATF_REQUIRE_EQ(write(fd, "ping", 4), 4);
	close(fd);
	ATF_REQUIRE_EQ(read(p[0], c, sizeof(c)), 4);
	ATF_REQUIRE(memcmp(c, "ping", 4) == 0);
	close(p[0]);
}

ATF_TC_WITHOUT_HEAD(fd_passes_both_ways_close_on_exec);
ATF_TC_BODY(fd_passes_both_ways_close_on_exec, tc)
{
	struct imsgbuf	 a, b;
	int		 s[2];

	init_pair(&a, &b, s, 1);
	pass_pipe(&a, &b);
	pass_pipe(&b, &a);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(fd_message_split_at_every_byte_keeps_its_fd);
ATF_TC_BODY(fd_message_split_at_every_byte_keeps_its_fd, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[64];
	size_t		 len, k;
	int		 s[2], p[2], before;

	len = raw_msg(buf, IMSG_FD_MARK | (IMSG_HEADER_SIZE + 6), "fdhere", 6);
	for (k = 1; k < len; k++) {
		init_pair(&a, &b, s, 1);
		ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
		before = count_fds();
		send_raw(s[0], buf, k, &p[1], 1);
		ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
		ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
		send_raw(s[0], buf + k, len - k, NULL, 0);
		ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
		ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 1);
		check_payload(&imsg, TEST_TYPE, "fdhere", 6);
		ATF_REQUIRE(imsg.fd != -1);
		imsg_free(&imsg);
		ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
		ATF_REQUIRE_EQ(count_fds(), before);
		close_pair(&a, &b, s);
		close(p[0]);
		close(p[1]);
	}
}

/*
 * A real MSG_CTRUNC: the receiver has no descriptor slot left, so the kernel
 * drops the fd and flags the truncation.  The receiver runs in a child
 * because it lowers its own descriptor limit.
 */
ATF_TC_WITHOUT_HEAD(truncated_control_data_fails_eproto);
ATF_TC_BODY(truncated_control_data_fails_eproto, tc)
{
	struct imsgbuf	 a, b;
	struct rlimit	 rl;
	unsigned char	 buf[64];
	pid_t		 pid;
	int		 s[2], p[2], status, lowest, rc;

	init_pair(&a, &b, s, 1);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	send_raw(s[0], buf, raw_msg(buf, IMSG_FD_MARK | (IMSG_HEADER_SIZE + 2),
	    "fd", 2), &p[1], 1);

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		/* No ATF calls in the child: its exit code is the verdict. */
		if ((lowest = dup(s[1])) == -1 || close(lowest) == -1 ||
		    getrlimit(RLIMIT_NOFILE, &rl) == -1)
			_exit(10);
		rl.rlim_cur = lowest;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			_exit(11);
		rc = imsgbuf_read(&b);
		if (rc == -1 && errno == EPROTO)
			_exit(0);
		_exit(rc == -1 ? 2 : 3);
	}
	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	ATF_REQUIRE(WIFEXITED(status));
	ATF_REQUIRE_EQ_MSG(WEXITSTATUS(status), 0, "child verdict %d",
	    WEXITSTATUS(status));
	close_pair(&a, &b, s);
	close(p[0]);
	close(p[1]);
}

ATF_TC_WITHOUT_HEAD(several_fds_in_one_message_fail_eproto);
ATF_TC_BODY(several_fds_in_one_message_fail_eproto, tc)
{
	struct imsgbuf	 a, b;
	unsigned char	 buf[64];
	int		 s[2], fds[4], before;
	size_t		 n, i;

	for (n = 2; n <= 4; n++) {
		init_pair(&a, &b, s, 1);
		for (i = 0; i < n; i++)
			ATF_REQUIRE((fds[i] = open("/dev/null",
			    O_RDONLY | O_CLOEXEC)) != -1);
		before = count_fds();
		send_raw(s[0], buf, raw_msg(buf,
		    IMSG_FD_MARK | IMSG_HEADER_SIZE, NULL, 0), fds, n);
		ATF_REQUIRE_ERRNO(EPROTO, imsgbuf_read(&b) == -1);
		/* What arrived was closed again. */
		ATF_REQUIRE_EQ(count_fds(), before);
		for (i = 0; i < n; i++)
			close(fds[i]);
		close_pair(&a, &b, s);
	}
}

/*
 * from composes no descriptor, and one sent anyway on the raw socket s
 * of from's end is refused by to; the descriptor is closed both times.
 */
static void
fd_refused(struct imsgbuf *from, int s, struct imsgbuf *to)
{
	unsigned char	 buf[64];
	int		 p[2], before;

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE_ERRNO(EINVAL, imsg_compose(from, TEST_TYPE, 0, 0, p[1],
	    NULL, 0) == -1);
	ATF_REQUIRE(!fd_is_open(p[1]));
	ATF_REQUIRE_EQ(imsgbuf_queuelen(from), 0);

	before = count_fds();
	send_raw(s, buf, raw_msg(buf, IMSG_FD_MARK | IMSG_HEADER_SIZE,
	    NULL, 0), &p[0], 1);
	ATF_REQUIRE_ERRNO(EPROTO, imsgbuf_read(to) == -1);
	ATF_REQUIRE_EQ(count_fds(), before);
	close(p[0]);
}

ATF_TC_WITHOUT_HEAD(fd_refused_without_fdpass);
ATF_TC_BODY(fd_refused_without_fdpass, tc)
{
	struct imsgbuf	 a, b;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	fd_refused(&a, s[0], &b);
	close_pair(&a, &b, s);
}

/*
 * One way only, as the process table has it: the end that sends takes no
 * descriptor in, the end that receives sends none out (as a compromised
 * process would try, on the raw socket).
 */
ATF_TC_WITHOUT_HEAD(fd_one_way_refused_the_other_way);
ATF_TC_BODY(fd_one_way_refused_the_other_way, tc)
{
	struct imsgbuf	 a, b;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	imsgbuf_allow_fdsend(&a);
	imsgbuf_allow_fdrecv(&b);
	pass_pipe(&a, &b);
	fd_refused(&b, s[1], &a);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(eof_mid_message_fails_econnreset);
ATF_TC_BODY(eof_mid_message_fails_econnreset, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[64];
	size_t		 len, k;
	int		 s[2];

	len = raw_msg(buf, IMSG_HEADER_SIZE + 8, "12345678", 8);
	for (k = 1; k < len; k++) {
		init_pair(&a, &b, s, 0);
		send_raw(s[0], buf, k, NULL, 0);
		close(s[0]);
		s[0] = -1;
		ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
		ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
		ATF_REQUIRE_ERRNO(ECONNRESET, imsgbuf_read(&b) == -1);
		close_pair(&a, &b, s);
	}
}

ATF_TC_WITHOUT_HEAD(clean_eof_returns_zero);
ATF_TC_BODY(clean_eof_returns_zero, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[128];
	size_t		 len;
	int		 s[2];

	/* Nothing sent at all. */
	init_pair(&a, &b, s, 0);
	close(s[0]);
	s[0] = -1;
	ATF_REQUIRE_EQ(b.reof, 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 0);
	ATF_REQUIRE(b.reof);
	close_pair(&a, &b, s);

	/* Whole messages still buffered when the end comes. */
	len = two_messages(buf, sizeof(buf));
	init_pair(&a, &b, s, 0);
	send_raw(s[0], buf, len, NULL, 0);
	close(s[0]);
	s[0] = -1;
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 0);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 1);
	check_payload(&imsg, 1, "first message body..", 20);
	imsg_free(&imsg);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 1);
	check_payload(&imsg, 2, "second!", 7);
	imsg_free(&imsg);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(write_to_closed_peer_fails_epipe_without_signal);
ATF_TC_BODY(write_to_closed_peer_fails_epipe_without_signal, tc)
{
	struct imsgbuf	 a, b;
	int		 s[2];

	ATF_REQUIRE(signal(SIGPIPE, SIG_DFL) != SIG_ERR);
	init_pair(&a, &b, s, 0);
	close(s[1]);
	s[1] = -1;
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, 0, 0, -1, "x", 1), 1);
	ATF_REQUIRE_ERRNO(EPIPE, imsgbuf_write(&a) == -1);
	ATF_REQUIRE_ERRNO(EPIPE, imsgbuf_flush(&a) == -1);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 1);
	close_pair(&a, &b, s);
}

#define QUEUE_MSGS	2000
#define QUEUE_MAXLEN	3000
#define SMALL_BUF_BYTES	4096

static void
queue_payload(unsigned char *p, size_t len, uint32_t i)
{
	size_t	 j;

	for (j = 0; j < len; j++)
		p[j] = (unsigned char)(i * 31 + j);
}

ATF_TC_WITHOUT_HEAD(queued_messages_survive_partial_writes_in_order);
ATF_TC_BODY(queued_messages_survive_partial_writes_in_order, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 data[QUEUE_MAXLEN];
	size_t		 len, total = 0;
	uint32_t	 i, next = 0;
	int		 s[2], bufsz = SMALL_BUF_BYTES, sndbuf;
	socklen_t	 sl = sizeof(sndbuf);

	init_pair(&a, &b, s, 0);
	ATF_REQUIRE(setsockopt(s[0], SOL_SOCKET, SO_SNDBUF, &bufsz,
	    sizeof(bufsz)) == 0);
	ATF_REQUIRE(setsockopt(s[1], SOL_SOCKET, SO_RCVBUF, &bufsz,
	    sizeof(bufsz)) == 0);
	ATF_REQUIRE(getsockopt(s[0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
	    &sl) == 0);

	for (i = 0; i < QUEUE_MSGS; i++) {
		len = (i * 37) % QUEUE_MAXLEN;
		queue_payload(data, len, i);
		ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, i, TEST_PID, -1,
		    data, len), 1);
		total += IMSG_HEADER_SIZE + len;
	}
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), QUEUE_MSGS);
	ATF_REQUIRE(total > 10 * (size_t)sndbuf);

	/* The first write cannot take it all: the rest must resume. */
	ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
	ATF_REQUIRE(imsgbuf_queuelen(&a) > 0);
	ATF_REQUIRE(imsgbuf_queuelen(&a) < QUEUE_MSGS);

	while (next < QUEUE_MSGS) {
		ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
		ATF_REQUIRE_EQ(imsg_get_peerid(&imsg), next);
		len = (next * 37) % QUEUE_MAXLEN;
		ATF_REQUIRE_EQ(imsg_get_len(&imsg), len);
		queue_payload(data, len, next);
		ATF_REQUIRE(len == 0 || memcmp(imsg.data, data, len) == 0);
		imsg_free(&imsg);
		next++;
	}
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(get_data_wrong_length_fails_ebadmsg);
ATF_TC_BODY(get_data_wrong_length_fails_ebadmsg, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	uint64_t	 v = 0x0123456789abcdefULL, out = 0;
	unsigned char	 big[sizeof(v) + 1];
	uint32_t	 small;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    &v, sizeof(v)), 1);
	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_data(&imsg, &small,
	    sizeof(small)) == -1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_data(&imsg, big,
	    sizeof(big)) == -1);
	ATF_REQUIRE_EQ(imsg_get_data(&imsg, &out, sizeof(out)), 0);
	ATF_REQUIRE_EQ(out, v);
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(get_string_refuses_nul_and_overlong);
ATF_TC_BODY(get_string_refuses_nul_and_overlong, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	char		 str[8];
	int		 s[2];

	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    "hello", 5), 1);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    "he\0lo", 5), 1);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    NULL, 0), 1);

	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_string(&imsg, str, 5) == -1);
	ATF_REQUIRE_EQ(imsg_get_string(&imsg, str, 6), 0);
	ATF_REQUIRE_STREQ(str, "hello");
	imsg_free(&imsg);

	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	ATF_REQUIRE_ERRNO(EBADMSG,
	    imsg_get_string(&imsg, str, sizeof(str)) == -1);
	imsg_free(&imsg);

	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_string(&imsg, str, 0) == -1);
	ATF_REQUIRE_EQ(imsg_get_string(&imsg, str, 1), 0);
	ATF_REQUIRE_STREQ(str, "");
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

/* Bytes on r's socket that imsgbuf_read takes: a message's first part. */
static void
buffer_part(struct imsgbuf *r, int wfd, size_t part)
{
	unsigned char	 buf[256];
	struct pollfd	 pfd;

	ATF_REQUIRE(part <= sizeof(buf) && part >= IMSG_HEADER_SIZE);
	raw_msg(buf, sizeof(buf), NULL, 0);
	memset(buf + IMSG_HEADER_SIZE, 'p', sizeof(buf) - IMSG_HEADER_SIZE);
	send_raw(wfd, buf, part, NULL, 0);
	pfd.fd = r->fd;
	pfd.events = POLLIN;
	ATF_REQUIRE_EQ(poll(&pfd, 1, POLL_MS), 1);
	ATF_REQUIRE_EQ(imsgbuf_read(r), 1);
	ATF_REQUIRE_EQ(r->rlen, part);
}

ATF_TC_WITHOUT_HEAD(maxsize_below_buffered_bytes_refused);
ATF_TC_BODY(maxsize_below_buffered_bytes_refused, tc)
{
	struct imsgbuf	 a, b;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	buffer_part(&b, s[0], 100);
	/* within the bounds, but below what is already buffered */
	ATF_REQUIRE_ERRNO(EINVAL, imsgbuf_set_maxsize(&b, 99) == -1);
	ATF_REQUIRE_EQ(b.maxsize, MAX_IMSG_BYTES);
	ATF_REQUIRE_EQ(b.rlen, 100);
	/* exactly what is buffered is enough */
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&b, 100), 0);
	ATF_REQUIRE_EQ(b.maxsize, 100);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(clear_closes_queued_fds_and_empties);
ATF_TC_BODY(clear_closes_queued_fds_and_empties, tc)
{
	struct imsgbuf	 a, b;
	int		 s[2], fd, saved;

	init_pair(&a, &b, s, 1);
	buffer_part(&a, s[1], 40);
	ATF_REQUIRE((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) != -1);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, 0, 0, fd, "x", 1), 1);
	/* a queued descriptor that is 0 is closed too */
	ATF_REQUIRE((saved = fcntl(0, F_DUPFD_CLOEXEC, 3)) != -1);
	close(0);
	ATF_REQUIRE_EQ(open("/dev/null", O_RDONLY), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, 0, 0, 0, "y", 1), 1);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 2);
	imsgbuf_clear(&a);
	ATF_CHECK(!fd_is_open(fd));
	ATF_CHECK(!fd_is_open(0));
	ATF_REQUIRE(dup2(saved, 0) == 0);
	close(saved);
	ATF_CHECK_EQ(imsgbuf_queuelen(&a), 0);
	ATF_CHECK(a.rbuf == NULL);
	ATF_CHECK_EQ(a.rlen, 0);
	imsgbuf_clear(&b);
	close(s[0]);
	close(s[1]);
}

ATF_TC_WITHOUT_HEAD(read_into_full_buffer_is_not_eof);
ATF_TC_BODY(read_into_full_buffer_is_not_eof, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 data[64 - IMSG_HEADER_SIZE];
	struct pollfd	 pfd;
	int		 s[2];

	memset(data, 'f', sizeof(data));
	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&b, 64), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    data, sizeof(data)), 1);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    data, sizeof(data)), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	pfd.fd = b.fd;
	pfd.events = POLLIN;
	ATF_REQUIRE_EQ(poll(&pfd, 1, POLL_MS), 1);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.rlen, 64);
	/* the buffer holds one whole message: more reading is not the end */
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.rlen, 64);
	ATF_REQUIRE_EQ(b.reof, 0);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, data, sizeof(data));
	imsg_free(&imsg);
	ATF_REQUIRE_EQ(recv_one(NULL, &b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, data, sizeof(data));
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(read_error_returned);
ATF_TC_BODY(read_error_returned, tc)
{
	struct imsgbuf	 ib;
	int		 p[2];

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE(imsgbuf_init(&ib, p[0]) == 0);
	ATF_REQUIRE_ERRNO(ENOTSOCK, imsgbuf_read(&ib) == -1);
	ATF_REQUIRE_EQ(ib.rlen, 0);
	imsgbuf_clear(&ib);
	close(p[0]);
	close(p[1]);
}

ATF_TC_WITHOUT_HEAD(read_nothing_waiting_is_not_eof);
ATF_TC_BODY(read_nothing_waiting_is_not_eof, tc)
{
	struct imsgbuf	 a, b;
	int		 s[2];

	init_pair(&a, &b, s, 0);	/* non-blocking: EAGAIN */
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.rlen, 0);
	ATF_REQUIRE_EQ(b.reof, 0);
	close_pair(&a, &b, s);
}

static void
on_alarm(int sig)
{
	(void)sig;
}

ATF_TC_WITHOUT_HEAD(read_interrupted_is_not_eof);
ATF_TC_BODY(read_interrupted_is_not_eof, tc)
{
	struct imsgbuf		 a, b;
	struct sigaction	 sa;
	struct itimerval	 it;
	int			 s[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == 0);
	ATF_REQUIRE(imsgbuf_init(&a, s[0]) == 0);
	ATF_REQUIRE(imsgbuf_init(&b, s[1]) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: recvmsg gets EINTR */
	sigemptyset(&sa.sa_mask);
	ATF_REQUIRE(sigaction(SIGALRM, &sa, NULL) == 0);
	/* again every 100 ms, in case the first comes before the read */
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 100 * 1000;
	it.it_interval.tv_usec = 100 * 1000;
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	memset(&it, 0, sizeof(it));
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
	ATF_REQUIRE_EQ(b.rlen, 0);
	ATF_REQUIRE_EQ(b.reof, 0);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(init_without_memory_fails_enomem);
ATF_TC_BODY(init_without_memory_fails_enomem, tc)
{
	struct imsgbuf	 ib;
	pid_t		 pid;

	memcap_skip_under_asan();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		memcap_limit(0);
		memcap_exhaust();
		errno = 0;
		if (imsgbuf_init(&ib, -1) != -1)
			_exit(10);
		_exit(errno == ENOMEM ? 0 : 11);
	}
	memcap_child_passes(pid);
}

ATF_TC_WITHOUT_HEAD(set_maxsize_without_memory_keeps_buffer);
ATF_TC_BODY(set_maxsize_without_memory_keeps_buffer, tc)
{
	struct imsgbuf	 ib;
	unsigned char	*old;
	pid_t		 pid;

	memcap_skip_under_asan();
	ATF_REQUIRE(imsgbuf_init(&ib, -1) == 0);
	old = ib.rbuf;
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		memcap_limit(0);
		memcap_exhaust();
		errno = 0;
		if (imsgbuf_set_maxsize(&ib, MAX_IMSG_LIMIT_BYTES) != -1)
			_exit(10);
		if (errno != ENOMEM)
			_exit(11);
		if (ib.rbuf != old || ib.maxsize != MAX_IMSG_BYTES)
			_exit(12);
		_exit(0);
	}
	memcap_child_passes(pid);
	imsgbuf_clear(&ib);
}

/* Big enough that no allocator cache of small chunks can serve it. */
#define NOMEM_PAYLOAD	2000

ATF_TC_WITHOUT_HEAD(get_without_memory_keeps_message);
ATF_TC_BODY(get_without_memory_keeps_message, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 data[NOMEM_PAYLOAD];
	pid_t		 pid;
	int		 s[2];

	memset(data, 'm', sizeof(data));
	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    data, sizeof(data)), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.rlen, IMSG_HEADER_SIZE + sizeof(data));
	memcap_skip_under_asan();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		memcap_limit(0);
		memcap_exhaust();
		errno = 0;
		if (imsgbuf_get(&b, &imsg) != -1)
			_exit(10);
		if (errno != ENOMEM)
			_exit(11);
		if (b.rlen != IMSG_HEADER_SIZE + sizeof(data))
			_exit(12);
		_exit(0);
	}
	memcap_child_passes(pid);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(get_empty_message_needs_no_memory);
ATF_TC_BODY(get_empty_message_needs_no_memory, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	pid_t		 pid;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    NULL, 0), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	memcap_skip_under_asan();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		memcap_limit(0);
		memcap_exhaust();
		if (imsgbuf_get(&b, &imsg) != 1)
			_exit(10);
		if (imsg_get_len(&imsg) != 0 || imsg.data != NULL)
			_exit(11);
		_exit(0);
	}
	memcap_child_passes(pid);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(compose_without_memory_closes_fd);
ATF_TC_BODY(compose_without_memory_closes_fd, tc)
{
	struct imsgbuf	 ib;
	unsigned char	 data[NOMEM_PAYLOAD];
	pid_t		 pid;
	int		 p[2];

	memcap_skip_under_asan();
	memset(data, 'c', sizeof(data));
	ATF_REQUIRE(imsgbuf_init(&ib, -1) == 0);
	imsgbuf_allow_fdpass(&ib);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		memcap_limit(0);
		memcap_exhaust();
		errno = 0;
		if (imsg_compose(&ib, TEST_TYPE, 0, 0, p[1], data,
		    sizeof(data)) != -1)
			_exit(10);
		if (errno != ENOMEM)
			_exit(11);
		if (fd_is_open(p[1]))
			_exit(12);
		if (imsgbuf_queuelen(&ib) != 0)
			_exit(13);
		_exit(0);
	}
	memcap_child_passes(pid);
	imsgbuf_clear(&ib);
	close(p[0]);
	close(p[1]);
}

ATF_TC_WITHOUT_HEAD(compose_on_full_queue_fails_enobufs);
ATF_TC_BODY(compose_on_full_queue_fails_enobufs, tc)
{
	struct imsgbuf	 ib;
	int		 p[2];

	ATF_REQUIRE(imsgbuf_init(&ib, -1) == 0);
	imsgbuf_allow_fdpass(&ib);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	/* The count at its maximum: one more would wrap it. */
	ib.wqlen = UINT32_MAX;
	errno = 0;
	ATF_REQUIRE_ERRNO(ENOBUFS, imsg_compose(&ib, TEST_TYPE, 0, 0, p[1],
	    "x", 1) == -1);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&ib), UINT32_MAX);
	ATF_REQUIRE(TAILQ_EMPTY(&ib.wq));
	ATF_REQUIRE(!fd_is_open(p[1]));
	ib.wqlen = 0;
	imsgbuf_clear(&ib);
	close(p[0]);
}

ATF_TC_WITHOUT_HEAD(compose_pid_zero_sends_own_pid);
ATF_TC_BODY(compose_pid_zero_sends_own_pid, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, 0, -1,
	    NULL, 0), 1);
	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	ATF_REQUIRE_EQ(imsg_get_pid(&imsg), getpid());
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(get_nothing_leaves_imsg_empty);
ATF_TC_BODY(get_nothing_leaves_imsg_empty, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	memset(&imsg, 0xa5, sizeof(imsg));
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
	ATF_REQUIRE_EQ(imsg.fd, -1);
	ATF_REQUIRE(imsg.data == NULL);
	ATF_REQUIRE_EQ(imsg.datalen, 0);
	ATF_REQUIRE_EQ(imsg.hdr.len, 0);
	imsg_free(&imsg);		/* nothing to free, nothing to close */
	close_pair(&a, &b, s);
}

/* One message of datalen bytes from a to b, into imsg. */
static void
one_message(struct imsgbuf *a, struct imsgbuf *b, struct imsg *imsg,
    const void *data, size_t datalen)
{
	ATF_REQUIRE_EQ(imsg_compose(a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    data, datalen), 1);
	ATF_REQUIRE_EQ(recv_one(a, b, imsg), 1);
	ATF_REQUIRE_EQ(imsg_get_len(imsg), datalen);
}

ATF_TC_WITHOUT_HEAD(get_data_one_byte_copied);
ATF_TC_BODY(get_data_one_byte_copied, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	char		 c = 0;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	one_message(&a, &b, &imsg, "z", 1);
	ATF_REQUIRE_EQ(imsg_get_data(&imsg, &c, 1), 0);
	ATF_REQUIRE_EQ(c, 'z');
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(get_string_one_byte_copied);
ATF_TC_BODY(get_string_one_byte_copied, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	char		 str[2] = "x";
	int		 s[2];

	init_pair(&a, &b, s, 0);
	one_message(&a, &b, &imsg, "a", 1);
	ATF_REQUIRE_EQ(imsg_get_string(&imsg, str, sizeof(str)), 0);
	ATF_REQUIRE_STREQ(str, "a");
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(get_string_lone_nul_refused);
ATF_TC_BODY(get_string_lone_nul_refused, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	char		 str[8];
	int		 s[2];

	init_pair(&a, &b, s, 0);
	one_message(&a, &b, &imsg, "", 1);
	ATF_REQUIRE_ERRNO(EBADMSG,
	    imsg_get_string(&imsg, str, sizeof(str)) == -1);
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

/* Stdin aside, so a test can make descriptor 0 one of its own. */
static int
save_stdin(void)
{
	int	 saved;

	ATF_REQUIRE((saved = fcntl(0, F_DUPFD_CLOEXEC, 3)) != -1);
	close(0);
	return saved;
}

static void
restore_stdin(int saved)
{
	ATF_REQUIRE(dup2(saved, 0) == 0);
	close(saved);
}

ATF_TC_WITHOUT_HEAD(free_closes_fd_zero_and_empties);
ATF_TC_BODY(free_closes_fd_zero_and_empties, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	int		 s[2], p[2], saved;

	init_pair(&a, &b, s, 1);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID,
	    p[1], "fd", 2), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	saved = save_stdin();
	/* the lowest free descriptor, 0, is the one received */
	ATF_REQUIRE_EQ(recv_one(NULL, &b, &imsg), 1);
	ATF_REQUIRE_EQ(imsg.fd, 0);
	imsg_free(&imsg);
	ATF_CHECK(!fd_is_open(0));
	restore_stdin(saved);
	ATF_CHECK_EQ(imsg_get_fd(&imsg), -1);
	ATF_CHECK(imsg.data == NULL);
	ATF_CHECK_EQ(imsg_get_len(&imsg), 0);
	close_pair(&a, &b, s);
	close(p[0]);
}

/* The write end of pipe p, through fd, reaches p's read end. */
static void
check_pipe_end(int fd, const int p[2])
{
	char	 c;

	ATF_REQUIRE_EQ(write(fd, "!", 1), 1);
	ATF_REQUIRE_EQ(read(p[0], &c, 1), 1);
	ATF_REQUIRE_EQ(c, '!');
}

ATF_TC_WITHOUT_HEAD(fds_taken_in_message_order);
ATF_TC_BODY(fds_taken_in_message_order, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 m1, m2;
	int		 s[2], p[2], q[2], fd1, fd2;

	init_pair(&a, &b, s, 1);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(q, O_CLOEXEC) == 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID,
	    p[1], "one", 3), 1);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID,
	    q[1], "two", 3), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	/* both in, both descriptors queued, before either is taken */
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.nrfds, 2);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &m1), 1);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &m2), 1);
	check_payload(&m1, TEST_TYPE, "one", 3);
	check_payload(&m2, TEST_TYPE, "two", 3);
	fd1 = imsg_get_fd(&m1);
	fd2 = imsg_get_fd(&m2);
	ATF_REQUIRE(fd1 != -1 && fd2 != -1 && fd1 != fd2);
	check_pipe_end(fd1, p);
	check_pipe_end(fd2, q);
	close(fd1);
	close(fd2);
	imsg_free(&m1);
	imsg_free(&m2);
	close_pair(&a, &b, s);
	close(p[0]);
	close(q[0]);
}

ATF_TC_WITHOUT_HEAD(fd_queue_takes_eight_refuses_ninth);
ATF_TC_BODY(fd_queue_takes_eight_refuses_ninth, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	 buf[64];
	size_t		 len, i;
	int		 s[2], fd, before;

	len = raw_msg(buf, IMSG_FD_MARK | IMSG_HEADER_SIZE, NULL, 0);
	init_pair(&a, &b, s, 1);
	ATF_REQUIRE_EQ(nitems(b.rfds), 8);
	for (i = 0; i <= nitems(b.rfds); i++) {
		ATF_REQUIRE((fd = open("/dev/null", O_RDONLY | O_CLOEXEC))
		    != -1);
		send_raw(s[0], buf, len, &fd, 1);
		close(fd);
		before = count_fds();
		if (i < nitems(b.rfds)) {
			ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
			ATF_REQUIRE_EQ(b.nrfds, (int)i + 1);
		} else {
			/* the ninth is refused, and closed */
			ATF_REQUIRE_ERRNO(EPROTO, imsgbuf_read(&b) == -1);
			ATF_REQUIRE_EQ(b.nrfds, (int)nitems(b.rfds));
			ATF_REQUIRE_EQ(count_fds(), before);
		}
	}
	for (i = 0; i < nitems(b.rfds); i++) {
		ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 1);
		ATF_REQUIRE(imsg.fd != -1);
		imsg_free(&imsg);
	}
	close_pair(&a, &b, s);
}

/*
 * SO_PASSPIDFD (Linux 6.5) makes the kernel add SCM_PIDFD, a control
 * message of the right level, of another type, that fits the buffer (so
 * no MSG_CTRUNC): one int, as SCM_RIGHTS with one descriptor would be.
 */
ATF_TC_WITHOUT_HEAD(other_type_control_message_fails_eproto);
ATF_TC_BODY(other_type_control_message_fails_eproto, tc)
{
	struct imsgbuf	 a, b;
	unsigned char	 buf[64];
	int		 s[2], on = 1;

	init_pair(&a, &b, s, 1);
	if (setsockopt(s[1], SOL_SOCKET, SO_PASSPIDFD, &on,
	    sizeof(on)) == -1)
		atf_tc_skip("no SO_PASSPIDFD: %s", strerror(errno));
	send_raw(s[0], buf, raw_msg(buf, IMSG_HEADER_SIZE, NULL, 0), NULL, 0);
	ATF_REQUIRE_ERRNO(EPROTO, imsgbuf_read(&b) == -1);
	ATF_REQUIRE_EQ(b.nrfds, 0);
	close_pair(&a, &b, s);
}

/*
 * SO_PASSCRED makes the kernel add SCM_CREDENTIALS (truncated: it is
 * larger than the buffer), whose pid, uid and gid are not descriptors:
 * read as such, the descriptor numbered as the uid would be closed.
 */
ATF_TC_WITHOUT_HEAD(credentials_not_closed_as_descriptors);
ATF_TC_BODY(credentials_not_closed_as_descriptors, tc)
{
	struct imsgbuf	 a, b;
	unsigned char	 buf[64];
	int		 s[2], on = 1, uidfd;

	init_pair(&a, &b, s, 1);
	ATF_REQUIRE(setsockopt(s[1], SOL_SOCKET, SO_PASSCRED, &on,
	    sizeof(on)) == 0);
	uidfd = (int)getuid();
	if (!fd_is_open(uidfd))
		ATF_REQUIRE_MSG(dup2(s[0], uidfd) == uidfd,
		    "no descriptor %d", uidfd);
	send_raw(s[0], buf, raw_msg(buf, IMSG_HEADER_SIZE, NULL, 0), NULL, 0);
	ATF_REQUIRE_ERRNO(EPROTO, imsgbuf_read(&b) == -1);
	ATF_REQUIRE(fd_is_open(uidfd));
	close_pair(&a, &b, s);
}

/*
 * IP_TOS has SCM_RIGHTS's number, at level IPPROTO_IP: only the level
 * tells it from descriptors.  A datagram socket, as it is the one that
 * carries it.
 */
ATF_TC_WITHOUT_HEAD(other_level_control_message_fails_eproto);
ATF_TC_BODY(other_level_control_message_fails_eproto, tc)
{
	struct imsgbuf		 b;
	struct sockaddr_in	 sin;
	socklen_t		 sl = sizeof(sin);
	unsigned char		 buf[64];
	struct pollfd		 pfd;
	size_t			 len;
	int			 r, w, on = 1;

	ATF_REQUIRE(IP_TOS == SCM_RIGHTS);
	ATF_REQUIRE((r = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) != -1);
	ATF_REQUIRE((w = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) != -1);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE(bind(r, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	ATF_REQUIRE(getsockname(r, (struct sockaddr *)&sin, &sl) == 0);
	ATF_REQUIRE(setsockopt(r, IPPROTO_IP, IP_RECVTOS, &on,
	    sizeof(on)) == 0);
	ATF_REQUIRE(imsgbuf_init(&b, r) == 0);
	imsgbuf_allow_fdpass(&b);
	len = raw_msg(buf, IMSG_HEADER_SIZE, NULL, 0);
	ATF_REQUIRE_EQ(sendto(w, buf, len, 0, (struct sockaddr *)&sin,
	    sizeof(sin)), (ssize_t)len);
	pfd.fd = r;
	pfd.events = POLLIN;
	ATF_REQUIRE_EQ(poll(&pfd, 1, POLL_MS), 1);
	ATF_REQUIRE_ERRNO(EPROTO, imsgbuf_read(&b) == -1);
	imsgbuf_clear(&b);
	close(r);
	close(w);
}

ATF_TC_WITHOUT_HEAD(write_sends_queued_messages_together);
ATF_TC_BODY(write_sends_queued_messages_together, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	int		 s[2], i;

	init_pair(&a, &b, s, 0);
	for (i = 0; i < 3; i++)
		ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID,
		    TEST_PID, -1, "abc", 3), 1);
	ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	for (i = 0; i < 3; i++) {
		ATF_REQUIRE_EQ(recv_one(NULL, &b, &imsg), 1);
		check_payload(&imsg, TEST_TYPE, "abc", 3);
		imsg_free(&imsg);
	}
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(fd_zero_closed_once_sent);
ATF_TC_BODY(fd_zero_closed_once_sent, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	int		 s[2], p[2], saved, fd;

	init_pair(&a, &b, s, 1);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	saved = save_stdin();
	ATF_REQUIRE_EQ(dup(p[1]), 0);
	close(p[1]);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, 0,
	    "zero", 4), 1);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	ATF_CHECK(!fd_is_open(0));
	restore_stdin(saved);
	ATF_REQUIRE_EQ(recv_one(NULL, &b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, "zero", 4);
	ATF_REQUIRE((fd = imsg_get_fd(&imsg)) != -1);
	check_pipe_end(fd, p);
	close(fd);
	imsg_free(&imsg);
	close_pair(&a, &b, s);
	close(p[0]);
}

/* The sender's socket buffer and the receiver's, both small. */
static void
small_buffers(int s[2])
{
	int	 bufsz = SMALL_BUF_BYTES;

	ATF_REQUIRE(setsockopt(s[0], SOL_SOCKET, SO_SNDBUF, &bufsz,
	    sizeof(bufsz)) == 0);
	ATF_REQUIRE(setsockopt(s[1], SOL_SOCKET, SO_RCVBUF, &bufsz,
	    sizeof(bufsz)) == 0);
}

#define PARTS_PAYLOAD	60000

ATF_TC_WITHOUT_HEAD(fd_message_sent_in_parts_carries_one_fd);
ATF_TC_BODY(fd_message_sent_in_parts_carries_one_fd, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	*data;
	int		 s[2], p[2], fd;

	ATF_REQUIRE((data = malloc(PARTS_PAYLOAD)) != NULL);
	queue_payload(data, PARTS_PAYLOAD, 5);
	init_pair(&a, &b, s, 1);
	small_buffers(s);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID,
	    p[1], data, PARTS_PAYLOAD), 1);
	ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
	/* the descriptor went with the first part, the rest is queued */
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 1);
	ATF_REQUIRE(!fd_is_open(p[1]));
	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, data, PARTS_PAYLOAD);
	ATF_REQUIRE((fd = imsg_get_fd(&imsg)) != -1);
	check_pipe_end(fd, p);
	close(fd);
	imsg_free(&imsg);
	/* no second descriptor came with the rest */
	ATF_REQUIRE_EQ(b.nrfds, 0);
	ATF_REQUIRE(fd_is_open(0));
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	close_pair(&a, &b, s);
	close(p[0]);
	free(data);
}

ATF_TC_WITHOUT_HEAD(get_data_empty_copies_nothing);
ATF_TC_BODY(get_data_empty_copies_nothing, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	char		 c = 'k';
	int		 s[2];

	init_pair(&a, &b, s, 0);
	one_message(&a, &b, &imsg, NULL, 0);
	ATF_REQUIRE(imsg.data == NULL);
	ATF_REQUIRE_EQ(imsg_get_data(&imsg, &c, 0), 0);
	ATF_REQUIRE_EQ(c, 'k');
	imsg_free(&imsg);
	close_pair(&a, &b, s);
}

/* What one write of a large message puts on a pair with small buffers. */
static size_t
one_write_bytes(void)
{
	struct imsgbuf	 a, b;
	unsigned char	*data;
	int		 s[2], q;

	ATF_REQUIRE((data = calloc(1, PARTS_PAYLOAD)) != NULL);
	init_pair(&a, &b, s, 0);
	small_buffers(s);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, 0, 0, -1, data,
	    PARTS_PAYLOAD), 1);
	ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
	ATF_REQUIRE(ioctl(s[1], FIONREAD, &q) == 0);
	ATF_REQUIRE(q > (int)IMSG_HEADER_SIZE + 1 && q < PARTS_PAYLOAD);
	close_pair(&a, &b, s);
	free(data);
	return q;
}

ATF_TC_WITHOUT_HEAD(partial_write_one_byte_into_next_message_resumes);
ATF_TC_BODY(partial_write_one_byte_into_next_message_resumes, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 imsg;
	unsigned char	*d1, *d2;
	size_t		 n, len1;
	int		 s[2], q;

	/* the first message ends one byte before the write does */
	n = one_write_bytes();
	len1 = n - 1 - IMSG_HEADER_SIZE;
	ATF_REQUIRE((d1 = malloc(len1)) != NULL);
	ATF_REQUIRE((d2 = malloc(PARTS_PAYLOAD)) != NULL);
	queue_payload(d1, len1, 1);
	queue_payload(d2, PARTS_PAYLOAD, 2);
	init_pair(&a, &b, s, 0);
	small_buffers(s);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    d1, len1), 1);
	ATF_REQUIRE_EQ(imsg_compose(&a, TEST_TYPE, TEST_PEERID, TEST_PID, -1,
	    d2, PARTS_PAYLOAD), 1);
	ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
	ATF_REQUIRE(ioctl(s[1], FIONREAD, &q) == 0);
	ATF_REQUIRE_EQ((size_t)q, n);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 1);
	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, d1, len1);
	imsg_free(&imsg);
	ATF_REQUIRE_EQ(recv_one(&a, &b, &imsg), 1);
	check_payload(&imsg, TEST_TYPE, d2, PARTS_PAYLOAD);
	imsg_free(&imsg);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &imsg), 0);
	close_pair(&a, &b, s);
	free(d1);
	free(d2);
}

#define FLUSH_MSGS	4
#define FLUSH_PAYLOAD	50000
#define READER_DELAY_MS	500
#define TICK_MS		50

/*
 * A reader, in a child, that starts late and drains exactly the bytes
 * FLUSH_MSGS messages are; its verdict is its exit status.
 */
static pid_t
late_reader(int s[2])
{
	unsigned char	 buf[8192];
	struct pollfd	 pfd;
	size_t		 total = 0, want;
	ssize_t		 n;
	pid_t		 pid;

	want = FLUSH_MSGS * (IMSG_HEADER_SIZE + FLUSH_PAYLOAD);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid != 0)
		return pid;
	close(s[0]);
	usleep(READER_DELAY_MS * 1000);
	while (total < want) {
		pfd.fd = s[1];
		pfd.events = POLLIN;
		if (poll(&pfd, 1, POLL_MS) != 1)
			_exit(20);
		if ((n = read(s[1], buf, sizeof(buf))) <= 0) {
			if (n == -1 && errno == EAGAIN)
				continue;
			_exit(21);
		}
		total += n;
	}
	_exit(total == want ? 0 : 22);
}

/* More than the socket buffers hold, queued on a. */
static void
queue_flush_messages(struct imsgbuf *a)
{
	unsigned char	*data;
	int		 i;

	ATF_REQUIRE((data = malloc(FLUSH_PAYLOAD)) != NULL);
	for (i = 0; i < FLUSH_MSGS; i++) {
		queue_payload(data, FLUSH_PAYLOAD, i);
		ATF_REQUIRE_EQ(imsg_compose(a, TEST_TYPE, i, TEST_PID, -1,
		    data, FLUSH_PAYLOAD), 1);
	}
	free(data);
}

static void
start_ticks(void)
{
	struct sigaction	 sa;
	struct itimerval	 it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: calls get EINTR */
	sigemptyset(&sa.sa_mask);
	ATF_REQUIRE(sigaction(SIGALRM, &sa, NULL) == 0);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = TICK_MS * 1000;
	it.it_interval.tv_usec = TICK_MS * 1000;
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

static void
stop_ticks(void)
{
	struct itimerval	 it;

	memset(&it, 0, sizeof(it));
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

static long
cpu_ms(void)
{
	struct rusage	 ru;

	ATF_REQUIRE(getrusage(RUSAGE_SELF, &ru) == 0);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

ATF_TC_WITHOUT_HEAD(flush_sleeps_until_reader_drains);
ATF_TC_BODY(flush_sleeps_until_reader_drains, tc)
{
	struct imsgbuf	 a, b;
	long		 cpu;
	pid_t		 pid;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	small_buffers(s);
	queue_flush_messages(&a);
	pid = late_reader(s);
	cpu = cpu_ms();
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	/* it waited in poll(2), not in a loop of writes */
	cpu = cpu_ms() - cpu;
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	memcap_child_passes(pid);
	ATF_REQUIRE_MSG(cpu < READER_DELAY_MS / 10, "flush took %ld ms "
	    "of CPU", cpu);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(flush_interrupted_poll_continues);
ATF_TC_BODY(flush_interrupted_poll_continues, tc)
{
	struct imsgbuf	 a, b;
	pid_t		 pid;
	int		 s[2];

	init_pair(&a, &b, s, 0);	/* non-blocking: the wait is poll's */
	small_buffers(s);
	queue_flush_messages(&a);
	pid = late_reader(s);
	start_ticks();
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	stop_ticks();
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	memcap_child_passes(pid);
	close_pair(&a, &b, s);
}

ATF_TC_WITHOUT_HEAD(flush_interrupted_send_continues);
ATF_TC_BODY(flush_interrupted_send_continues, tc)
{
	struct imsgbuf	 a, b;
	pid_t		 pid;
	int		 s[2];

	/* blocking: the wait is sendmsg's */
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == 0);
	ATF_REQUIRE(imsgbuf_init(&a, s[0]) == 0);
	ATF_REQUIRE(imsgbuf_init(&b, s[1]) == 0);
	small_buffers(s);
	queue_flush_messages(&a);
	pid = late_reader(s);
	start_ticks();
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	stop_ticks();
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	memcap_child_passes(pid);
	close_pair(&a, &b, s);
}

/*
 * poll(2) fails EINVAL for more descriptors than RLIMIT_NOFILE allows: at
 * 0, in a child, whose alarm ends a flush that never returns.
 */
ATF_TC_WITHOUT_HEAD(flush_poll_error_returned);
ATF_TC_BODY(flush_poll_error_returned, tc)
{
	struct imsgbuf	 a, b;
	struct rlimit	 rl;
	pid_t		 pid;
	int		 s[2];

	init_pair(&a, &b, s, 0);
	small_buffers(s);
	queue_flush_messages(&a);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		alarm(POLL_MS / 1000);
		rl.rlim_cur = rl.rlim_max = 0;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			_exit(2);
		errno = 0;
		if (imsgbuf_flush(&a) != -1)
			_exit(10);
		if (errno != EINVAL)
			_exit(11);
		if (imsgbuf_queuelen(&a) == 0)
			_exit(12);
		_exit(0);
	}
	memcap_child_passes(pid);
	close_pair(&a, &b, s);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, maxsize_below_buffered_bytes_refused);
	ATF_TP_ADD_TC(tp, clear_closes_queued_fds_and_empties);
	ATF_TP_ADD_TC(tp, read_into_full_buffer_is_not_eof);
	ATF_TP_ADD_TC(tp, read_error_returned);
	ATF_TP_ADD_TC(tp, read_nothing_waiting_is_not_eof);
	ATF_TP_ADD_TC(tp, read_interrupted_is_not_eof);
	ATF_TP_ADD_TC(tp, split_at_every_byte_boundary_reassembles);
	ATF_TP_ADD_TC(tp, one_byte_writes_reassemble);
	ATF_TP_ADD_TC(tp, max_size_message_passes);
	ATF_TP_ADD_TC(tp, raised_maxsize_carries_limit_sized_message);
	ATF_TP_ADD_TC(tp, maxsize_outside_bounds_refused);
	ATF_TP_ADD_TC(tp, compose_over_max_size_fails_emsgsize);
	ATF_TP_ADD_TC(tp, header_claiming_over_max_fails_ebadmsg);
	ATF_TP_ADD_TC(tp, header_length_below_header_size_fails_ebadmsg);
	ATF_TP_ADD_TC(tp, fd_mark_without_fd_fails_ebadmsg);
	ATF_TP_ADD_TC(tp, fd_without_mark_fails_ebadmsg);
	ATF_TP_ADD_TC(tp, fd_passes_both_ways_close_on_exec);
	ATF_TP_ADD_TC(tp, fd_message_split_at_every_byte_keeps_its_fd);
	ATF_TP_ADD_TC(tp, truncated_control_data_fails_eproto);
	ATF_TP_ADD_TC(tp, several_fds_in_one_message_fail_eproto);
	ATF_TP_ADD_TC(tp, fd_refused_without_fdpass);
	ATF_TP_ADD_TC(tp, fd_one_way_refused_the_other_way);
	ATF_TP_ADD_TC(tp, eof_mid_message_fails_econnreset);
	ATF_TP_ADD_TC(tp, clean_eof_returns_zero);
	ATF_TP_ADD_TC(tp, write_to_closed_peer_fails_epipe_without_signal);
	ATF_TP_ADD_TC(tp, queued_messages_survive_partial_writes_in_order);
	ATF_TP_ADD_TC(tp, get_data_wrong_length_fails_ebadmsg);
	ATF_TP_ADD_TC(tp, get_string_refuses_nul_and_overlong);
	ATF_TP_ADD_TC(tp, init_without_memory_fails_enomem);
	ATF_TP_ADD_TC(tp, set_maxsize_without_memory_keeps_buffer);
	ATF_TP_ADD_TC(tp, get_without_memory_keeps_message);
	ATF_TP_ADD_TC(tp, get_empty_message_needs_no_memory);
	ATF_TP_ADD_TC(tp, compose_without_memory_closes_fd);
	ATF_TP_ADD_TC(tp, compose_on_full_queue_fails_enobufs);
	ATF_TP_ADD_TC(tp, compose_pid_zero_sends_own_pid);
	ATF_TP_ADD_TC(tp, get_nothing_leaves_imsg_empty);
	ATF_TP_ADD_TC(tp, get_data_one_byte_copied);
	ATF_TP_ADD_TC(tp, get_string_one_byte_copied);
	ATF_TP_ADD_TC(tp, get_string_lone_nul_refused);
	ATF_TP_ADD_TC(tp, free_closes_fd_zero_and_empties);
	ATF_TP_ADD_TC(tp, fds_taken_in_message_order);
	ATF_TP_ADD_TC(tp, fd_queue_takes_eight_refuses_ninth);
	ATF_TP_ADD_TC(tp, other_type_control_message_fails_eproto);
	ATF_TP_ADD_TC(tp, credentials_not_closed_as_descriptors);
	ATF_TP_ADD_TC(tp, other_level_control_message_fails_eproto);
	ATF_TP_ADD_TC(tp, write_sends_queued_messages_together);
	ATF_TP_ADD_TC(tp, fd_zero_closed_once_sent);
	ATF_TP_ADD_TC(tp, fd_message_sent_in_parts_carries_one_fd);
	ATF_TP_ADD_TC(tp, flush_sleeps_until_reader_drains);
	ATF_TP_ADD_TC(tp, flush_interrupted_poll_continues);
	ATF_TP_ADD_TC(tp, flush_interrupted_send_continues);
	ATF_TP_ADD_TC(tp, flush_poll_error_returned);
	ATF_TP_ADD_TC(tp, get_data_empty_copies_nothing);
	ATF_TP_ADD_TC(tp, partial_write_one_byte_into_next_message_resumes);
	return atf_no_error();
}
