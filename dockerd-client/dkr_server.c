/*
 * An approved MCP server's container (dkr_server.h): the template filled
 * from IMSG_SESSION_SERVER, and the steps from the daemon check to the
 * confirmed removal.  Every step is the agent's, on the engine client the
 * caller owns; this file never reads a byte of the attach stream.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dkr_server.h"

static int	 srv_fail(struct dkr_server *, const char *, const char *);
static int	 srv_str(char *, size_t, const char *, size_t);
static int	 srv_verify(struct dkr_client *, struct dkr_server *, int);

/* What the step left: the code and the fixed text; -1. */
static int
srv_fail(struct dkr_server *sv, const char *code, const char *why)
{
	sv->code = code;
	(void)strlcpy(sv->why, why, sizeof(sv->why));
	return -1;
}

/* A NUL-terminated field of a message into dst; 0, or -1. */
static int
srv_str(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	if (memchr(src, '\0', srclen) == NULL ||
	    strlcpy(dst, src, dstlen) >= dstlen)
		return -1;
	return 0;
}

/*
 * The server's profile from the parent's message and the session's init
 * and labels.  -1 when the message itself is malformed (a field without
 * its NUL, a count out of range, a name that is not a label).  The
 * profile's values are not judged here: a template that fails
 * dkr_template_check() is refused at create, as admission.
 */
int
dkr_server_fill(struct dkr_server *sv, const struct session_server *ss,
    const char *init, const char *instance, const char *session)
{
	struct dkr_template	*t = &sv->tmpl;
	struct dkr_mount	*m;
	size_t			 i;

	memset(sv, 0, sizeof(*sv));
	sv->fd = -1;
	sv->gone = 1;
	sv->index = ss->sv_index;
	if (srv_str(sv->name, sizeof(sv->name), ss->sv_name,
	    sizeof(ss->sv_name)) == -1 || !dkr_label_valid(sv->name) ||
	    strlcpy(t->server, sv->name, sizeof(t->server)) >=
	    sizeof(t->server) ||
	    srv_str(t->image, sizeof(t->image), ss->sv_image,
	    sizeof(ss->sv_image)) == -1 ||
	    strlcpy(t->init_path, init, sizeof(t->init_path)) >=
	    sizeof(t->init_path) ||
	    strlcpy(t->instance, instance, sizeof(t->instance)) >=
	    sizeof(t->instance) ||
	    strlcpy(t->session, session, sizeof(t->session)) >=
	    sizeof(t->session))
		return -1;
	if (ss->sv_argc < 1 || ss->sv_argc > DKR_ARGV_MAX ||
	    ss->sv_argc > SESSION_ARGV_MAX)
		return -1;
	t->argc = ss->sv_argc;
	for (i = 0; i < t->argc; i++)
		if (srv_str(t->argv[i], sizeof(t->argv[i]), ss->sv_argv[i],
		    sizeof(ss->sv_argv[i])) == -1)
			return -1;
	if (ss->sv_nmounts > DKR_MOUNTS_MAX ||
	    ss->sv_nmounts > SESSION_MOUNTS_MAX)
		return -1;
	t->nmounts = ss->sv_nmounts;
	for (i = 0; i < t->nmounts; i++) {
		m = &t->mounts[i];
		if (srv_str(m->source, sizeof(m->source),
		    ss->sv_mounts[i].sm_host,
		    sizeof(ss->sv_mounts[i].sm_host)) == -1 ||
		    srv_str(m->target, sizeof(m->target),
		    ss->sv_mounts[i].sm_target,
		    sizeof(ss->sv_mounts[i].sm_target)) == -1 ||
		    (ss->sv_mounts[i].sm_rw != 0 &&
		    ss->sv_mounts[i].sm_rw != 1))
			return -1;
		m->readonly = !ss->sv_mounts[i].sm_rw;
	}
	t->envc = 1;
	(void)strlcpy(t->env[0], DKR_SERVER_ENV, sizeof(t->env[0]));
	t->uid = ss->sv_uid;
	t->gid = ss->sv_gid;
	t->memory_bytes = ss->sv_memory_bytes;
	t->pids = ss->sv_pids;
	t->nproc = ss->sv_pids;
	t->nofile = ss->sv_nofile;
	t->nano_cpus = 0;
	t->deadline_ms = ss->sv_deadline_ms;
	t->relay = 0;
	t->kind = DKR_KIND_SERVER;
	return 0;
}

/*
 * A local Linux engine of API 1.41 or later that enforces every limit
 * (dkr_daemon_verify); once per session is enough.
 */
int
dkr_server_daemon(struct dkr_client *c, struct dkr_server *sv)
{
	char	*version;
	size_t	 vlen;

	if (dkr_ping(c) == -1)
		return srv_fail(sv, DKR_SRV_DOCKER, c->err);
	if (dkr_version(c) != 200)
		return srv_fail(sv, DKR_SRV_DOCKER, "docker version: failed");
	vlen = c->len;
	if ((version = malloc(vlen + 1)) == NULL)
		return srv_fail(sv, DKR_SRV_DOCKER, "docker: out of memory");
	memcpy(version, c->body, vlen + 1);
	if (dkr_info(c) != 200) {
		free(version);
		return srv_fail(sv, DKR_SRV_DOCKER, "docker info: failed");
	}
	if (dkr_daemon_verify(version, vlen, c->body, c->len, sv->why,
	    sizeof(sv->why)) != DKR_OK) {
		free(version);
		sv->code = DKR_SRV_REFUSED;
		return -1;
	}
	free(version);
	return 0;
}

/* The pinned image ID is here and declares no volumes. */
int
dkr_server_admit(struct dkr_client *c, struct dkr_server *sv)
{
	long	 s;

	if (!dkr_image_id_valid(sv->tmpl.image))
		return srv_fail(sv, DKR_SRV_REFUSED,
		    dkr_reason_str(DKR_R_T_IMAGE));
	if ((s = dkr_image_inspect(c, sv->tmpl.image)) == 404)
		return srv_fail(sv, DKR_SRV_REFUSED,
		    "refused: image not found");
	if (s != 200)
		return srv_fail(sv, DKR_SRV_DOCKER,
		    "docker image inspect: failed");
	if (dkr_image_verify(c->body, c->len, sv->tmpl.image, sv->why,
	    sizeof(sv->why)) != DKR_OK) {
		sv->code = DKR_SRV_REFUSED;
		return -1;
	}
	return 0;
}

/* Inspect, and compare every field of the profile. */
static int
srv_verify(struct dkr_client *c, struct dkr_server *sv, int states)
{
	if (dkr_inspect(c, sv->id) != 200)
		return srv_fail(sv, DKR_SRV_DOCKER, "docker inspect: failed");
	if (dkr_inspect_verify_state(c->body, c->len, &sv->tmpl, sv->id,
	    states, sv->why, sizeof(sv->why)) != DKR_OK) {
#ifdef CMCP_TEST
		if (sv->tmpl.noadmit) {
			sv->bypassed = 1;	/* dockerd.c says so */
			return 0;
		}
#endif
		sv->code = DKR_SRV_REFUSED;
		return -1;
	}
	return 0;
}

/*
 * Create from the fixed template and verify the created container.  Any
 * create warning refuses.  -1 leaves id set when something was created:
 * the caller removes it.
 */
int
dkr_server_create(struct dkr_client *c, struct dkr_server *sv)
{
	enum dkr_reason	 r;
	char		*body;
	int		 rv;

	if ((body = dkr_template_body(&sv->tmpl, &r)) == NULL)
		return srv_fail(sv, DKR_SRV_REFUSED, dkr_reason_str(r));
#ifdef CMCP_TEST
	if ((body = dkr_template_weaken(body, sv->tmpl.weaken)) == NULL)
		return srv_fail(sv, DKR_SRV_REFUSED, "weaken: bad body");
#endif
	rv = dkr_create(c, body, sv->id, &r);
	free(body);
	if (sv->id[0] != '\0')
		sv->gone = 0;
	if (rv == -1)
		return srv_fail(sv, DKR_SRV_DOCKER, c->err);
	if (r != DKR_OK) {
		sv->code = DKR_SRV_REFUSED;
		(void)strlcpy(sv->why, c->err, sizeof(sv->why));
		return -1;
	}
	return srv_verify(c, sv, DKR_STATE_CREATED);
}

/*
 * Attach before start, so that nothing the server writes is lost; start;
 * verify the running profile.  0: fd is the stream, non-blocking (its
 * holder polls it and has no fcntl of its own).  -1: fd is closed, the
 * caller removes the container.
 */
int
dkr_server_start(struct dkr_client *c, struct dkr_server *sv)
{
	int	 fd, fl;

	if (dkr_attach(c, sv->id, &fd, sv->head, sizeof(sv->head),
	    &sv->headlen) == -1)
		return srv_fail(sv, DKR_SRV_DOCKER, c->err);
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		(void)close(fd);
		return srv_fail(sv, DKR_SRV_DOCKER, "docker attach: fcntl");
	}
	if (dkr_start(c, sv->id) != 204) {
		(void)close(fd);
		return srv_fail(sv, DKR_SRV_DOCKER, "docker start: failed");
	}
	/* A server that already ended is still verified, then reported. */
	if (srv_verify(c, sv, DKR_STATE_RUNNING | DKR_STATE_EXITED) == -1) {
		(void)close(fd);
		return -1;
	}
	sv->fd = fd;
	return 0;
}

/*
 * SIGKILL (204, or 409 when it is not running), its exit status read
 * (ended, status), delete with force, and
 * believe only a 404 from inspect; a delete may race the engine's own
 * teardown of the dying container, so it is tried a few times.  The
 * stream, if still held, is closed first.  0 when gone, -1 when its
 * absence could not be confirmed (the caller tries again at the end).
 */
int
dkr_server_remove(struct dkr_client *c, struct dkr_server *sv)
{
	int	 try;

	if (sv->fd != -1) {
		(void)close(sv->fd);
		sv->fd = -1;
	}
	explicit_bzero(sv->head, sizeof(sv->head));
	sv->headlen = 0;
	if (sv->gone)
		return 0;
	/*
	 * Its exit status, for the log: a container that was still running
	 * dies of the SIGKILL (128 + 9); any other status is what it ended
	 * with on its own (a server that closed its stream, say).
	 */
	if (dkr_kill(c, sv->id) != -1 && dkr_wait(c, sv->id,
	    DKR_SERVER_STATUS_WAIT_MS, &sv->status) == 0)
		sv->ended = 1;
	for (try = 0; try < DKR_SERVER_DELETE_TRIES; try++) {
		if (try > 0 && poll(NULL, 0, DKR_SERVER_DELETE_WAIT_MS) == -1 &&
		    errno != EINTR)
			break;
		(void)dkr_delete(c, sv->id);
		if (dkr_gone(c, sv->id) == 1) {
			sv->gone = 1;
			return 0;
		}
	}
	return -1;
}
