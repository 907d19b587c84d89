/*
 * A sandbox run from the gateway (DESIGN 3, 11); see sbcall.c for the
 * exchange with dockerd-client.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "sbcall.h"
#include "sbstream.h"

static void	 gw_sb_wait(struct imsg *, int64_t);
static void	 gw_sb_done(struct imsg *, struct gw_sb_run *);

/*
 * One run of the sandbox tool with index tool over source and input.
 * r->out (r->outmax bytes) receives stdout; the outcome and the counts
 * are set in any case.  Returns only when dockerd-client has answered
 * for the end of the run.
 */
void
gw_sb_run(uint32_t tool, int64_t deadline_ms, const char *src,
    size_t srclen, const char *in, size_t inlen, struct gw_sb_run *r)
{
	struct sandbox_run	 sr;
	struct sandbox_stream	*ss;
	struct sandbox_end	 se;
	struct sb_feed		 feed;
	struct sb_output	 o;
	struct imsg		 imsg;
	int			 fd;

	r->outcome = SANDBOX_REFUSED;
	r->status = -1;
	r->gone = 1;
	r->outlen = 0;
	r->stdout_bytes = r->stderr_bytes = 0;
	r->end = 0;
	(void)strlcpy(r->why, "", sizeof(r->why));
	if (sb_feed_init(&feed, src, srclen, in, inlen) == -1)
		fatalx("sandbox: bad sizes");

	memset(&sr, 0, sizeof(sr));
	sr.sr_tool = tool;
	sr.sr_srclen = srclen;
	sr.sr_inlen = inlen;
	proc_compose(PROC_DOCKER, IMSG_SB_RUN, &sr, sizeof(sr));
	proc_flush(PROC_DOCKER);
	gw_sb_wait(&imsg, SANDBOX_OPEN_WAIT_MS);
	if (imsg_get_type(&imsg) == IMSG_SB_DONE) {
		/* Refused: nothing of the source or the input went out. */
		gw_sb_done(&imsg, r);
		if (r->outcome != SANDBOX_REFUSED)
			fatalx("channel docker: run refused with an outcome");
		return;
	}
	if (imsg_get_type(&imsg) != IMSG_SB_STREAM)
		proc_unexpected(PROC_DOCKER, &imsg);
	if (imsg_get_len(&imsg) != sizeof(*ss) ||
	    (fd = imsg_get_fd(&imsg)) == -1)
		fatalx("channel docker: bad sandbox stream");
	ss = imsg.data;
	if (ss->ss_len > sizeof(ss->ss_head))
		fatalx("channel docker: bad sandbox stream");

	memset(&o, 0, sizeof(o));
	o.out = r->out;
	o.outmax = r->outmax;
	r->end = sb_stream(fd, (const char *)ss->ss_head, ss->ss_len, &feed,
	    &o, sb_now_ms() + deadline_ms + SANDBOX_MARGIN_MS);
	explicit_bzero(ss->ss_head, ss->ss_len);
	imsg_free(&imsg);
	if (close(fd) == -1)
		fatal("close");
	r->outlen = o.outlen;
	r->stdout_bytes = o.stdout_bytes;
	r->stderr_bytes = o.stderr_bytes;

	memset(&se, 0, sizeof(se));
	se.se_end = r->end;
	proc_compose(PROC_DOCKER, IMSG_SB_END, &se, sizeof(se));
	proc_flush(PROC_DOCKER);
	gw_sb_wait(&imsg, SANDBOX_END_WAIT_MS);
	if (imsg_get_type(&imsg) != IMSG_SB_DONE)
		proc_unexpected(PROC_DOCKER, &imsg);
	gw_sb_done(&imsg, r);
	if (r->outcome == SANDBOX_REFUSED)
		fatalx("channel docker: a started run refused");
	if (r->outcome != SANDBOX_COMPLETED) {
		explicit_bzero(r->out, r->outlen);
		r->outlen = 0;
	}
}

static void
gw_sb_wait(struct imsg *imsg, int64_t ms)
{
	if (proc_recv_sync(PROC_DOCKER, imsg, ms) == -1)
		fatalx("channel docker: no answer for the sandbox run "
		    "within %lld ms", (long long)ms);
}

static void
gw_sb_done(struct imsg *imsg, struct gw_sb_run *r)
{
	struct sandbox_done	 sn;

	if (imsg_get_data(imsg, &sn, sizeof(sn)) == -1 ||
	    sn.sn_outcome < 0 || sn.sn_outcome >= SANDBOX_OUTCOME_MAX ||
	    memchr(sn.sn_why, '\0', sizeof(sn.sn_why)) == NULL)
		fatalx("channel docker: bad sandbox outcome");
	imsg_free(imsg);
	r->outcome = sn.sn_outcome;
	r->status = sn.sn_status;
	r->gone = sn.sn_gone;
	r->run_ms = sn.sn_run_ms;
	r->total_ms = sn.sn_total_ms;
	(void)strlcpy(r->why, sn.sn_why, sizeof(r->why));
}

