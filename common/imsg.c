/*
 * Framed messages over a stream socket; see imsg.h for the contract.
 *
 * Every descriptor rides on the first byte of its message: a message that
 * carries one always starts a sendmsg(2) of its own, and Linux never reads
 * past the end of a segment that carried descriptors.  Received descriptors
 * therefore queue in message order, and a complete message whose header is
 * marked takes the oldest one.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imsg.h"

struct imsg_wbuf {
	TAILQ_ENTRY(imsg_wbuf)	 entry;
	int			 fd;	/* -1 once sent */
	size_t			 len;
	size_t			 off;	/* bytes already written */
	unsigned char		 data[];
};

#ifndef nitems
#define nitems(a)	(sizeof((a)) / sizeof((a)[0]))
#endif

static int	imsg_msglen(const struct imsgbuf *, size_t, uint32_t *);
static int	imsg_take_fds(struct imsgbuf *, struct msghdr *);
static int	imsg_write_once(struct imsgbuf *);
static void	imsg_close_rfds(struct imsgbuf *);

int
imsgbuf_init(struct imsgbuf *ib, int fd)
{
	memset(ib, 0, sizeof(*ib));
	ib->fd = fd;
	ib->pid = getpid();
	ib->maxsize = MAX_IMSG_BYTES;
	TAILQ_INIT(&ib->wq);
	if ((ib->rbuf = malloc(ib->maxsize)) == NULL)
		return -1;
	return 0;
}

void
imsgbuf_allow_fdpass(struct imsgbuf *ib)
{
	ib->fdsend = 1;
	ib->fdrecv = 1;
}

void
imsgbuf_allow_fdsend(struct imsgbuf *ib)
{
	ib->fdsend = 1;
}

void
imsgbuf_allow_fdrecv(struct imsgbuf *ib)
{
	ib->fdrecv = 1;
}

int
imsgbuf_set_maxsize(struct imsgbuf *ib, uint32_t maxsize)
{
	unsigned char	*p;

	if (maxsize < IMSG_HEADER_SIZE || maxsize > MAX_IMSG_LIMIT_BYTES ||
	    maxsize < ib->rlen) {
		errno = EINVAL;
		return -1;
	}
	if ((p = realloc(ib->rbuf, maxsize)) == NULL)
		return -1;
	ib->rbuf = p;
	ib->maxsize = maxsize;
	return 0;
}

void
imsgbuf_clear(struct imsgbuf *ib)
{
	struct imsg_wbuf	*wb;

	while ((wb = TAILQ_FIRST(&ib->wq)) != NULL) {
		TAILQ_REMOVE(&ib->wq, wb, entry);
		if (wb->fd != -1)
			close(wb->fd);
		freezero(wb, sizeof(*wb) + wb->len);
	}
	ib->wqlen = 0;
	imsg_close_rfds(ib);
	freezero(ib->rbuf, ib->maxsize);
	ib->rbuf = NULL;
	ib->rlen = 0;
}

int
imsgbuf_read(struct imsgbuf *ib)
{
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int))];
	}		 cmsgbuf;
	struct msghdr	 msg;
	struct iovec	 iov[1];
	ssize_t		 n;
	size_t		 off;
	uint32_t	 len;

	/* A full buffer holds a whole message: the caller must get it. */
	if (ib->rlen == ib->maxsize)
		return 1;

	memset(&msg, 0, sizeof(msg));
	iov[0].iov_base = ib->rbuf + ib->rlen;
	iov[0].iov_len = ib->maxsize - ib->rlen;
	msg.msg_iov = iov;
	msg.msg_iovlen = nitems(iov);
	msg.msg_control = cmsgbuf.buf;
	msg.msg_controllen = sizeof(cmsgbuf.buf);

	if ((n = recvmsg(ib->fd, &msg, MSG_CMSG_CLOEXEC)) == -1) {
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		return -1;
	}
	if (imsg_take_fds(ib, &msg) == -1)
		return -1;
	if (n > 0) {
		ib->rlen += n;
		return 1;
	}

	ib->reof = 1;
	/* Whole messages still buffered are fine; a piece of one is not. */
	off = 0;
	while (off < ib->rlen && imsg_msglen(ib, off, &len) == 1)
		off += len;
	if (off != ib->rlen) {
		errno = ECONNRESET;
		return -1;
	}
	return 0;
}

int
imsgbuf_write(struct imsgbuf *ib)
{
	return imsg_write_once(ib) == -1 ? -1 : 0;
}

int
imsgbuf_flush(struct imsgbuf *ib)
{
	struct pollfd	 pfd[1];

	while (ib->wqlen > 0) {
		switch (imsg_write_once(ib)) {
		case -1:
			return -1;
		case 0:
			pfd[0].fd = ib->fd;
			pfd[0].events = POLLOUT;
			if (poll(pfd, nitems(pfd), -1) == -1 && errno != EINTR)
				return -1;
			break;
		}
	}
	return 0;
}

uint32_t
imsgbuf_queuelen(struct imsgbuf *ib)
{
	return ib->wqlen;
}

int
imsgbuf_get(struct imsgbuf *ib, struct imsg *imsg)
{
	struct imsg_hdr	 hdr;
	uint32_t	 len;
	size_t		 datalen;
	void		*data = NULL;

	memset(imsg, 0, sizeof(*imsg));
	imsg->fd = -1;

	switch (imsg_msglen(ib, 0, &len)) {
	case -1:
		return -1;
	case 0:
		if (ib->rlen == 0 && ib->nrfds > 0) {
			/* A descriptor came with no marked message. */
			imsg_close_rfds(ib);
			errno = EBADMSG;
			return -1;
		}
		return 0;
	}

	memcpy(&hdr, ib->rbuf, sizeof(hdr));
	if ((hdr.len & IMSG_FD_MARK) && ib->nrfds == 0) {
		errno = EBADMSG;
		return -1;
	}
	datalen = len - IMSG_HEADER_SIZE;
	if (datalen > 0) {
		if ((data = malloc(datalen)) == NULL)
			return -1;
		memcpy(data, ib->rbuf + IMSG_HEADER_SIZE, datalen);
	}
	if (hdr.len & IMSG_FD_MARK) {
		imsg->fd = ib->rfds[0];
		ib->nrfds--;
		memmove(ib->rfds, ib->rfds + 1, ib->nrfds * sizeof(int));
	}

	hdr.len = len;
	imsg->hdr = hdr;
	imsg->datalen = datalen;
	imsg->data = data;

	ib->rlen -= len;
	memmove(ib->rbuf, ib->rbuf + len, ib->rlen);
	return 1;
}

int
imsg_compose(struct imsgbuf *ib, uint32_t type, uint32_t peerid, pid_t pid,
    int fd, const void *data, size_t datalen)
{
	struct imsg_wbuf	*wb;
	struct imsg_hdr		 hdr;

	if (fd != -1 && !ib->fdsend) {
		errno = EINVAL;
		goto fail;
	}
	if (datalen > ib->maxsize - IMSG_HEADER_SIZE) {
		errno = EMSGSIZE;
		goto fail;
	}
	if (ib->wqlen == UINT32_MAX) {
		errno = ENOBUFS;
		goto fail;
	}
	if ((wb = malloc(sizeof(*wb) + IMSG_HEADER_SIZE + datalen)) == NULL)
		goto fail;

	hdr.type = type;
	hdr.len = IMSG_HEADER_SIZE + datalen;
	if (fd != -1)
		hdr.len |= IMSG_FD_MARK;
	hdr.peerid = peerid;
	hdr.pid = pid == 0 ? ib->pid : pid;

	wb->fd = fd;
	wb->len = IMSG_HEADER_SIZE + datalen;
	wb->off = 0;
	memcpy(wb->data, &hdr, sizeof(hdr));
	if (datalen > 0)
		memcpy(wb->data + IMSG_HEADER_SIZE, data, datalen);
	TAILQ_INSERT_TAIL(&ib->wq, wb, entry);
	ib->wqlen++;
	return 1;

 fail:
	if (fd != -1)
		close(fd);
	return -1;
}

uint32_t
imsg_get_type(const struct imsg *imsg)
{
	return imsg->hdr.type;
}

uint32_t
imsg_get_peerid(const struct imsg *imsg)
{
	return imsg->hdr.peerid;
}

pid_t
imsg_get_pid(const struct imsg *imsg)
{
	return imsg->hdr.pid;
}

size_t
imsg_get_len(const struct imsg *imsg)
{
	return imsg->datalen;
}

int
imsg_get_data(const struct imsg *imsg, void *buf, size_t len)
{
	if (len != imsg->datalen) {
		errno = EBADMSG;
		return -1;
	}
	if (len > 0)
		memcpy(buf, imsg->data, len);
	return 0;
}

int
imsg_get_string(const struct imsg *imsg, char *buf, size_t len)
{
	if (imsg->datalen >= len ||
	    (imsg->datalen > 0 && memchr(imsg->data, '\0', imsg->datalen))) {
		errno = EBADMSG;
		return -1;
	}
	if (imsg->datalen > 0)
		memcpy(buf, imsg->data, imsg->datalen);
	buf[imsg->datalen] = '\0';
	return 0;
}

int
imsg_get_fd(struct imsg *imsg)
{
	int	 fd = imsg->fd;

	imsg->fd = -1;
	return fd;
}

void
imsg_free(struct imsg *imsg)
{
	if (imsg->fd != -1)
		close(imsg->fd);
	freezero(imsg->data, imsg->datalen);
	imsg->fd = -1;
	imsg->data = NULL;
	imsg->datalen = 0;
}

/*
 * Length of the message at off in the read buffer: 1 with *len when it is
 * all there, 0 when more bytes are needed, -1 for a header that lies.
 */
static int
imsg_msglen(const struct imsgbuf *ib, size_t off, uint32_t *len)
{
	struct imsg_hdr	 hdr;

	if (ib->rlen - off < IMSG_HEADER_SIZE)
		return 0;
	memcpy(&hdr, ib->rbuf + off, sizeof(hdr));
	*len = hdr.len & ~IMSG_FD_MARK;
	if (*len < IMSG_HEADER_SIZE || *len > ib->maxsize) {
		errno = EBADMSG;
		return -1;
	}
	return *len <= ib->rlen - off;
}

/* Queue the one descriptor that may come with a read; refuse anything else. */
static int
imsg_take_fds(struct imsgbuf *ib, struct msghdr *msg)
{
	struct cmsghdr	*cm;
	int		 fds[2], bad = 0;	/* the control buffer fits two */
	size_t		 i, n, nfds = 0;

	if (msg->msg_flags & MSG_CTRUNC)
		bad = 1;
	for (cm = CMSG_FIRSTHDR(msg); cm != NULL; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(0)) {
			bad = 1;
			continue;
		}
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n && nfds < nitems(fds); i++)
			memcpy(&fds[nfds++], CMSG_DATA(cm) + i * sizeof(int),
			    sizeof(int));
	}
	if (nfds > 1 || (nfds == 1 && (!ib->fdrecv ||
	    ib->nrfds == (int)nitems(ib->rfds))))
		bad = 1;
	if (bad) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		errno = EPROTO;
		return -1;
	}
	if (nfds == 1)
		ib->rfds[ib->nrfds++] = fds[0];
	return 0;
}

/* 1: progress or nothing queued, 0: would block, -1: error. */
static int
imsg_write_once(struct imsgbuf *ib)
{
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int))];
	}			 cmsgbuf;
	struct iovec		 iov[IOV_MAX];
	struct msghdr		 msg;
	struct cmsghdr		*cm;
	struct imsg_wbuf	*wb, *next, *first;
	ssize_t			 n;
	size_t			 left;
	int			 niov = 0;

	if ((first = TAILQ_FIRST(&ib->wq)) == NULL)
		return 1;

	memset(&msg, 0, sizeof(msg));
	TAILQ_FOREACH(wb, &ib->wq, entry) {
		/* A descriptor must travel with its message's first byte. */
		if (niov == IOV_MAX || (wb != first && wb->fd != -1))
			break;
		iov[niov].iov_base = wb->data + wb->off;
		iov[niov].iov_len = wb->len - wb->off;
		niov++;
	}
	msg.msg_iov = iov;
	msg.msg_iovlen = niov;
	if (first->fd != -1) {
		memset(&cmsgbuf, 0, sizeof(cmsgbuf));
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = sizeof(cmsgbuf.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		memcpy(CMSG_DATA(cm), &first->fd, sizeof(int));
	}

	if ((n = sendmsg(ib->fd, &msg, MSG_NOSIGNAL)) == -1) {
		if (errno == EINTR || errno == EAGAIN ||
		    errno == EWOULDBLOCK || errno == ENOBUFS)
			return 0;
		return -1;
	}
	if (first->fd != -1 && n > 0) {
		close(first->fd);
		first->fd = -1;
	}

	for (left = n, wb = first; wb != NULL && left > 0; wb = next) {
		next = TAILQ_NEXT(wb, entry);
		if (left < wb->len - wb->off) {
			wb->off += left;
			break;
		}
		left -= wb->len - wb->off;
		TAILQ_REMOVE(&ib->wq, wb, entry);
		freezero(wb, sizeof(*wb) + wb->len);
		ib->wqlen--;
	}
	return 1;
}

static void
imsg_close_rfds(struct imsgbuf *ib)
{
	while (ib->nrfds > 0)
		close(ib->rfds[--ib->nrfds]);
}
