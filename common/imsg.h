/*
 * Framed messages over a stream socket, in the manner of OpenBSD's imsg(3),
 * written for this project.  A message is a fixed 16-byte header followed by
 * at most maxsize - 16 bytes of payload.  At most one descriptor travels with
 * a message (SCM_RIGHTS); received descriptors are close-on-exec.
 *
 * Error reporting (errno after a -1 return):
 *	EBADMSG		a header whose length is below the header size, above
 *			the maximum, or whose fd mark arrives without an fd
 *	EPROTO		truncated control data (MSG_CTRUNC), an unexpected
 *			control message, or a descriptor the buffer does not
 *			receive
 *	EINVAL		compose of a descriptor the buffer does not send
 *	ECONNRESET	end of file in the middle of a message
 *	EMSGSIZE	compose of a message larger than the maximum
 */

#ifndef CMCP_IMSG_H
#define CMCP_IMSG_H

#include <sys/types.h>
#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#define IMSG_HEADER_SIZE	sizeof(struct imsg_hdr)
#define IMSG_FD_MARK		0x80000000U
#define MAX_IMSG_BYTES		(64 * 1024)	/* default, header included */
#define MAX_IMSG_LIMIT_BYTES	(1024 * 1024)	/* largest settable maximum */

struct imsg_hdr {
	uint32_t	 type;
	uint32_t	 len;		/* header + payload, bit 31: fd */
	uint32_t	 peerid;
	uint32_t	 pid;
};

struct imsg {
	struct imsg_hdr	 hdr;
	int		 fd;		/* -1 when none or already taken */
	size_t		 datalen;
	void		*data;		/* datalen bytes, owned by the imsg */
};

struct imsg_wbuf;
TAILQ_HEAD(imsg_wqueue, imsg_wbuf);

struct imsgbuf {
	int			 fd;
	int			 fdsend;	/* compose takes descriptors */
	int			 fdrecv;	/* a read takes them in */
	pid_t			 pid;
	uint32_t		 maxsize;
	/* read side */
	unsigned char		*rbuf;		/* maxsize bytes */
	size_t			 rlen;		/* bytes buffered */
	int			 rfds[8];	/* received, not yet claimed */
	int			 nrfds;
	int			 reof;
	/* write side */
	struct imsg_wqueue	 wq;
	uint32_t		 wqlen;
};

__BEGIN_DECLS
int	 imsgbuf_init(struct imsgbuf *, int);
/* Descriptors on this channel: both ways, or one way only. */
void	 imsgbuf_allow_fdpass(struct imsgbuf *);
void	 imsgbuf_allow_fdsend(struct imsgbuf *);
void	 imsgbuf_allow_fdrecv(struct imsgbuf *);
int	 imsgbuf_set_maxsize(struct imsgbuf *, uint32_t);
void	 imsgbuf_clear(struct imsgbuf *);

/* 1: data or EAGAIN/EINTR, 0: clean EOF, -1: error */
int	 imsgbuf_read(struct imsgbuf *);
/* 0: progress or EAGAIN, -1: error (EPIPE for a closed peer) */
int	 imsgbuf_write(struct imsgbuf *);
/* write everything queued, polling on EAGAIN; 0 or -1 */
int	 imsgbuf_flush(struct imsgbuf *);
uint32_t imsgbuf_queuelen(struct imsgbuf *);
/* 1: a message in *imsg, 0: none complete yet, -1: error */
int	 imsgbuf_get(struct imsgbuf *, struct imsg *);

/* 1 or -1; fd (or -1) is closed once sent, or on failure */
int	 imsg_compose(struct imsgbuf *, uint32_t, uint32_t, pid_t, int,
	    const void *, size_t);

uint32_t imsg_get_type(const struct imsg *);
uint32_t imsg_get_peerid(const struct imsg *);
pid_t	 imsg_get_pid(const struct imsg *);
size_t	 imsg_get_len(const struct imsg *);
/* payload must be exactly len bytes, else -1 with EBADMSG */
int	 imsg_get_data(const struct imsg *, void *, size_t);
/* payload as a NUL-free string of at most len - 1 bytes, else -1 */
int	 imsg_get_string(const struct imsg *, char *, size_t);
/* transfers ownership of the descriptor; -1 when none */
int	 imsg_get_fd(struct imsg *);
void	 imsg_free(struct imsg *);
__END_DECLS

#endif /* CMCP_IMSG_H */
