/*
 * An approved MCP server in a container of its own (issue 14, DESIGN 7):
 * the agent's hardened profile, cmcp-init as PID 1 with the session's
 * deadline and a margin, the configured host directories bound read-only
 * or read-write, and nothing else of the host.
 *
 * In order, for each IMSG_SESSION_SERVER: the daemon check (once per
 * session: dkr_server_daemon), image admission (dkr_server_admit),
 * create from the fixed template and verify the inspect document
 * (dkr_server_create), attach, start and verify again
 * (dkr_server_start).  Only then does the attach stream leave this
 * process, for the gateway, which alone speaks MCP over it.  Whatever
 * happens afterwards, at the end of the session the container is
 * killed, deleted and its absence confirmed by a 404
 * (dkr_server_remove).
 *
 * A step that fails sets code, a fixed reason for IMSG_SRV_FAILED, and
 * why, a fixed text naming the step or the field; neither ever holds a
 * byte from the engine.  The caller then removes what was created.
 */

#ifndef DKR_SERVER_H
#define DKR_SERVER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "cmcp.h"
#include "dkr.h"

#define DKR_SERVERS_MAX		16	/* CONF_SERVERS_MAX */
/*
 * A server's whole environment: its argv[0] is absolute, PATH is for
 * what it runs in turn, and sending it keeps Config.Env exactly what
 * admission expects.
 */
#define DKR_SERVER_ENV		"PATH=/usr/local/bin:/usr/bin:/bin"
/* Removal: deletes tried, and the pause between them. */
#define DKR_SERVER_DELETE_TRIES	10
#define DKR_SERVER_DELETE_WAIT_MS 100
/* Removal: how long the status of the killed container is waited for. */
#define DKR_SERVER_STATUS_WAIT_MS 2000

/* IMSG_SRV_FAILED's reasons (struct server_failed). */
#define DKR_SRV_REFUSED		"admission_refused"
#define DKR_SRV_DOCKER		"docker_error"
#define DKR_SRV_SESSION_OVER	"session_over"
#define DKR_SRV_AUDIT		"audit_failed"

/*
 * One server's container.  id is set once the engine created it; gone
 * says that no container of it is left (none made, or a 404 seen after
 * the delete).  fd is the attach stream (non-blocking) between
 * dkr_server_start and its handover, with headlen bytes of it already
 * read in head.
 */
struct dkr_server {
	uint32_t		 index;		/* in the configuration */
	char			 name[DKR_LABEL_BYTES];
	struct dkr_template	 tmpl;
	char			 id[DKR_CONTAINER_ID_BYTES];
	int			 gone;
	int			 fd;
	char			 head[DKR_ATTACH_HEAD_BYTES];
	size_t			 headlen;
	const char		*code;
	char			 why[DKR_WHY_BYTES];
	int			 bypassed;	/* test build: refused, let by */
	int			 ended;		/* status read at removal */
	int64_t			 status;	/* its exit status then */
};

__BEGIN_DECLS
int	 dkr_server_fill(struct dkr_server *, const struct session_server *,
	    const char *, const char *, const char *);
int	 dkr_server_daemon(struct dkr_client *, struct dkr_server *);
int	 dkr_server_admit(struct dkr_client *, struct dkr_server *);
int	 dkr_server_create(struct dkr_client *, struct dkr_server *);
int	 dkr_server_start(struct dkr_client *, struct dkr_server *);
int	 dkr_server_remove(struct dkr_client *, struct dkr_server *);
__END_DECLS

#endif /* DKR_SERVER_H */
