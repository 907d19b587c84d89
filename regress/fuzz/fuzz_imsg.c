/*
 * libFuzzer harness for the framing library's read side.
 *
 * Input: one configuration byte, then the byte stream the peer sends.
 *	bit 0	the reader allows descriptor passing
 *	bit 1	the peer sends a descriptor with its first byte
 *	bit 2	small maximum: IMSG_HEADER_SIZE + 4 * (bits 3-7)
 * Every message read is composed back, so the write queue runs too.
 * Everything is freed and every descriptor closed before returning; a
 * descriptor left open aborts the run.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imsg.h"

#define CFG_FDPASS	0x01
#define CFG_SENDFD	0x02
#define CFG_SMALLMAX	0x04
#define FD_WATCH	64	/* descriptors checked for leaks */

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Send what the socket takes; the first call may carry fd. */
static size_t
fuzz_send(int s, const uint8_t *buf, size_t len, int fd)
{
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int))];
	}		 cmsgbuf;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	ssize_t		 n;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd != -1) {
		memset(&cmsgbuf, 0, sizeof(cmsgbuf));
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = sizeof(cmsgbuf.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if ((n = sendmsg(s, &msg, MSG_NOSIGNAL | MSG_DONTWAIT)) <= 0)
		return 0;
	return n;
}

/* Bit i set: descriptor i is open. */
static uint64_t
fuzz_open_fds(void)
{
	uint64_t	 set = 0;
	int		 fd;

	for (fd = 0; fd < FD_WATCH; fd++)
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			set |= 1ULL << fd;
	return set;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imsgbuf	 ib;
	struct imsg	 imsg;
	char		 str[64];
	unsigned char	 small[8];
	size_t		 n, off = 0;
	uint64_t	 fds_before;
	uint8_t		 cfg;
	int		 s[2], p[2] = { -1, -1 }, sendfd = -1, shut = 0;
	int		 r, g, fd;

	if (size < 1)
		return 0;
	cfg = data[0];
	data++;
	size--;
	fds_before = fuzz_open_fds();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    s) == -1)
		abort();
	if (imsgbuf_init(&ib, s[1]) == -1)
		abort();
	if (cfg & CFG_FDPASS)
		imsgbuf_allow_fdpass(&ib);
	if ((cfg & CFG_SMALLMAX) &&
	    imsgbuf_set_maxsize(&ib, IMSG_HEADER_SIZE + 4 * (cfg >> 3)) == -1)
		abort();
	if (cfg & CFG_SENDFD) {
		if (pipe2(p, O_CLOEXEC) == -1)
			abort();
		sendfd = p[0];
	}

	for (;;) {
		if (off < size) {
			n = fuzz_send(s[0], data + off, size - off, sendfd);
			if (n > 0)
				sendfd = -1;
			off += n;
		}
		if (off == size && !shut) {
			if (shutdown(s[0], SHUT_WR) == -1)
				abort();
			shut = 1;
		}
		if ((r = imsgbuf_read(&ib)) == -1)
			break;
		while ((g = imsgbuf_get(&ib, &imsg)) == 1) {
			(void)imsg_get_data(&imsg, small, sizeof(small));
			(void)imsg_get_string(&imsg, str, sizeof(str));
			fd = imsg_get_fd(&imsg);
			(void)imsg_compose(&ib, imsg_get_type(&imsg),
			    imsg_get_peerid(&imsg), imsg_get_pid(&imsg), fd,
			    imsg.data, imsg_get_len(&imsg));
			imsg_free(&imsg);
		}
		(void)imsgbuf_write(&ib);
		if (g == -1 || r == 0)
			break;
	}

	imsgbuf_clear(&ib);
	close(s[0]);
	close(s[1]);
	if (p[0] != -1) {
		close(p[0]);
		close(p[1]);
	}
	if (fuzz_open_fds() != fds_before)
		abort();
	return 0;
}
