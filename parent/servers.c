/*
 * The approved MCP servers of a session, spawned by the parent before
 * the children (mcpserver.h): their pipes go to the gateway with the
 * configuration, their stderr is drained here, and at the session's end
 * each is closed and confirmed gone.
 */

#include <sys/types.h>
#include <sys/mman.h>

#include <event.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "mcpserver.h"
#include "parent.h"
#include "proc.h"

/* A server's grace between end of file on its stdin and SIGKILL. */
#define PARENT_SERVER_CLOSE_MS	1000

/* An approved MCP server, spawned by the parent (mcpserver.h). */
struct parent_server {
	struct mcps	 ps_m;
	uint32_t	 ps_index;	/* among all servers */
	struct event	 ps_ev;		/* its stderr, drained and counted */
	int		 ps_draining;
};

static struct parent_server	 parent_servers[CONF_SERVERS_MAX];
static size_t			 parent_nservers;

static void	parent_server_stderr(int, short, void *);
static void	parent_server_undrain(struct parent_server *);

/*
 * Every approved server that runs on the host, each the init of its own
 * pid namespace, with its stderr drained and counted here, never logged
 * or stored.  One that does not start ends the suite before anything
 * else starts.  A server with an image runs in a container that
 * dockerd-client starts (IMSG_SESSION_SERVER) and never here.
 */
void
parent_servers_spawn(const struct cmcp_conf *conf)
{
	const struct conf_server	*srv;
	struct parent_server		*ps;
	uint32_t			 idx = 0;

	TAILQ_FOREACH(srv, &conf->c_servers, entry) {
		if (srv->image[0] != '\0') {
			idx++;
			continue;
		}
		if (parent_nservers == nitems(parent_servers))
			fatalx("too many servers");
		ps = &parent_servers[parent_nservers];
		ps->ps_index = idx++;
		if (mcps_spawn(srv, &ps->ps_m) == -1)
			fatalx("server %s: cannot start", srv->name);
		parent_nservers++;
		event_set(&ps->ps_ev, ps->ps_m.errfd, EV_READ | EV_PERSIST,
		    parent_server_stderr, ps);
		if (event_add(&ps->ps_ev, NULL) == -1)
			fatalx("event_add failed");
		ps->ps_draining = 1;
	}
}

static void
parent_server_stderr(int fd, short event, void *arg)
{
	struct parent_server	*ps = arg;

	(void)fd;
	(void)event;
	if (mcps_drain_stderr(&ps->ps_m) == -1) {
		log_warn("server %s: stderr", ps->ps_m.name);
		parent_server_undrain(ps);
		return;
	}
	/* End of file: mcps_drain_stderr() closed it. */
	if (ps->ps_m.errfd == -1)
		parent_server_undrain(ps);
}

static void
parent_server_undrain(struct parent_server *ps)
{
	if (!ps->ps_draining)
		return;
	if (event_del(&ps->ps_ev) == -1)
		fatalx("event_del failed");
	ps->ps_draining = 0;
}

/*
 * Close every server and confirm that no process of its namespace is
 * left (mcpserver.h).  The gateway closed their pipes at IMSG_GW_END, so
 * a server that behaves has seen end of file and exits; the others get
 * SIGTERM, then SIGKILL.  -1: one is not confirmed gone, a cleanup
 * failure.
 */
int
parent_servers_close(void)
{
	struct parent_server	*ps;
	size_t			 i;
	int			 rv = 0;

	for (i = 0; i < parent_nservers; i++) {
		ps = &parent_servers[i];
		parent_server_undrain(ps);
		if (mcps_close(&ps->ps_m, PARENT_SERVER_CLOSE_MS) == -1) {
			log_warnx("server %s: its processes are not "
			    "confirmed gone", ps->ps_m.name);
			rv = -1;
		} else
			log_info("server %s: closed, all its processes gone, "
			    "%llu stderr bytes", ps->ps_m.name,
			    (unsigned long long)ps->ps_m.errbytes);
	}
	/*
	 * That may have blocked for seconds: timers armed next (the grace of
	 * the orderly stop) must not start from the loop's stale clock.
	 */
	if (parent_nservers > 0 && event_base_update_cache_time(
	    event_get_base(&parent_servers[0].ps_ev)) == -1)
		fatalx("event_base_update_cache_time failed");
	return (rv);
}

/*
 * What the gateway takes before its privilege drop: the configuration,
 * printed in normal form into a sealed memfd (the gateway parses it as
 * /proc/self/fd/N, with every include and macro resolved), and both pipes
 * of every server on the host, which the parent does not keep, by the
 * server's index among all servers.  The message says how many servers'
 * pipes follow: none outside a session.
 */
void
parent_gw_send(const struct cmcp_conf *conf)
{
	struct gw_server_fd	 gs;
	struct gw_config	 gc;
	struct mcps		*m;
	FILE			*fp;
	size_t			 i;
	int			 fd, dfd;

	if ((fd = memfd_create("cmcp-privsep.conf", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1)
		fatal("memfd_create");
	if ((dfd = dup(fd)) == -1 || (fp = fdopen(dfd, "w")) == NULL)
		fatal("configuration for the gateway");
	print_config(conf, fp);
	if (fclose(fp) == EOF)
		fatal("configuration for the gateway");
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) == -1)
		fatal("configuration for the gateway: seals");
	memset(&gc, 0, sizeof(gc));
	gc.gc_session = parent_mode == MODE_RUN;
	gc.gc_pipes = parent_nservers;
	proc_compose_fd(PROC_GATEWAY, IMSG_GW_CONFIG, fd, &gc, sizeof(gc));

	for (i = 0; i < parent_nservers; i++) {
		m = &parent_servers[i].ps_m;
		gs.gs_index = parent_servers[i].ps_index;
		gs.gs_dir = 0;
		proc_compose_fd(PROC_GATEWAY, IMSG_GW_SERVER, m->infd, &gs,
		    sizeof(gs));
		m->infd = -1;
		gs.gs_dir = 1;
		proc_compose_fd(PROC_GATEWAY, IMSG_GW_SERVER, m->outfd, &gs,
		    sizeof(gs));
		m->outfd = -1;
	}
}
