/*
 * The control socket (DESIGN 8, PolicyGate; cmcp-privsep(8) CONTROL
 * SOCKET).  The parent creates it before the children start and serves
 * it from its event loop; nothing of it is reachable from the agent's
 * side, whose frames go bridge -> gateway on channels that do not accept
 * these messages.
 *
 * A client sends one line and gets one line back:
 *
 *	revoke OP ...		take operations away
 *	restore OP ...		give originally approved ones back
 *	status			the live session, one JSON object
 *
 * The parent keeps the revoked set and the revision counter; each
 * revoke or restore becomes the next revision, with the full new set,
 * sent to the gateway, which applies it between requests and records it.
 * The client is answered only after the gateway's ack, that is, after
 * the calls admitted before the update finished and its record is
 * durable.  One update is in flight at a time; another gets "busy".
 *
 * Unknown operation names are refused here, before a revision is spent:
 * an update the gateway would refuse closes admission until a valid
 * newer one (policy.h), and a typo of the operator should not do that.
 * The test build can forward them anyway (-X control-unknown), or send
 * the next update with the last revision once (-X control-replay), to
 * show that such updates close admission.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmcp.h"
#include "config.h"
#include "control.h"
#include "log.h"
#include "mstime.h"
#include "proc.h"

_Static_assert(CONF_OPERATIONS_MAX <= GW_POLICY_OPS_MAX,
    "a policy message must name every operation");
_Static_assert(CONF_NAME_BYTES <= SESSION_OP_BYTES,
    "an operation name must fit a policy message");

struct control_conn {
	TAILQ_ENTRY(control_conn) entry;
	int			 fd;
	uint32_t		 id;
	struct event		 ev;
	struct event		 ev_timeout;
	size_t			 len;
	char			 line[CONTROL_LINE_BYTES];
};

static struct {
	int			 fd;
	pid_t			 pid;		/* the creator unlinks it */
	char			 path[PATH_MAX];
	gid_t			 gid;		/* operator group, or 0 */
	struct event		 ev;
	TAILQ_HEAD(, control_conn) conns;
	size_t			 nconns;
	uint32_t		 nextid;
	char			 session[SESSION_ID_BYTES];
	size_t			 nops;
	char			 ops[CONF_OPERATIONS_MAX][CONF_NAME_BYTES];
	uint8_t			 revoked[CONF_OPERATIONS_MAX];
	uint64_t		 revision;	/* last sent */
	int			 inflight;	/* an update awaits its ack */
	uint32_t		 inflight_id;	/* its client */
	uint8_t			 next[CONF_OPERATIONS_MAX];	/* its set */
	struct gw_policy	 pol;
} control = { .fd = -1 };

#ifdef CMCP_TEST
int		 control_forward_unknown;
int		 control_replay;
#endif

static void	control_unlink(void);
static void	control_accept(int, short, void *);
static int	control_authorized(int, uid_t *);
static void	control_read(int, short, void *);
static void	control_timeout(int, short, void *);
static void	control_request(struct control_conn *);
static void	control_update(struct control_conn *, int, char *);
static void	control_answer(struct control_conn *, const char *);
static void	control_close(struct control_conn *);
static struct control_conn *control_find(uint32_t);
static int	control_name_ok(const char *, int);
static ssize_t	control_opindex(const char *);

/*
 * Create the socket: a stale one is removed only when it is a socket,
 * root's, and nobody listens on it, so a wrong path never unlinks
 * someone's file and a second run never takes a running one's socket.
 * Mode 0660, owner root, group the operator group (root when none is
 * configured).
 */
void
control_init(const struct cmcp_conf *conf)
{
	const struct conf_operation	*op;
	struct sockaddr_un		 sun;
	struct stat			 st;
	mode_t				 old;

	TAILQ_INIT(&control.conns);
	TAILQ_FOREACH(op, &conf->c_operations, entry) {
		if (control.nops == nitems(control.ops))
			fatalx("control: too many operations");
		(void)strlcpy(control.ops[control.nops++], op->name,
		    sizeof(control.ops[0]));
	}
	control.gid = conf->c_control_has_group ? conf->c_control_gid : 0;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, conf->c_control_socket,
	    sizeof(sun.sun_path)) >= sizeof(sun.sun_path))
		fatalx("control socket %s: path too long",
		    conf->c_control_socket);
	if ((control.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		fatal("control socket: socket");
	if (lstat(sun.sun_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode) || st.st_uid != 0)
			fatalx("control socket %s: exists and is not root's "
			    "socket", sun.sun_path);
		/* A running instance answers: not stale, not ours. */
		if (connect(control.fd, (struct sockaddr *)&sun,
		    sizeof(sun)) == 0 || errno == EAGAIN)
			fatalx("control socket %s: in use", sun.sun_path);
		if (close(control.fd) == -1)
			fatal("close");
		if ((control.fd = socket(AF_UNIX, SOCK_STREAM |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
			fatal("control socket: socket");
		if (unlink(sun.sun_path) == -1)
			fatal("control socket %s: unlink", sun.sun_path);
	} else if (errno != ENOENT)
		fatal("control socket %s", sun.sun_path);

	/* Nobody but root may connect before the mode is set. */
	old = umask(0177);
	if (bind(control.fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		fatal("control socket %s: bind", sun.sun_path);
	(void)umask(old);
	(void)strlcpy(control.path, sun.sun_path, sizeof(control.path));
	control.pid = getpid();
	if (atexit(control_unlink) != 0)
		fatalx("atexit failed");
	if (chown(control.path, 0, control.gid) == -1)
		fatal("control socket %s: chown", control.path);
	if (chmod(control.path, 0660) == -1)
		fatal("control socket %s: chmod", control.path);
	if (listen(control.fd, CONTROL_CLIENTS_MAX) == -1)
		fatal("control socket %s: listen", control.path);
	event_set(&control.ev, control.fd, EV_READ | EV_PERSIST,
	    control_accept, NULL);
	if (event_add(&control.ev, NULL) == -1)
		fatalx("event_add failed");
	log_debug("control socket %s, group %lu", control.path,
	    (unsigned long)control.gid);
}

/* The session is running: updates and status have a gateway to go to. */
void
control_session(const char *session)
{
	(void)strlcpy(control.session, session, sizeof(control.session));
}

static void
control_unlink(void)
{
	if (control.pid == getpid() && control.path[0] != '\0')
		(void)unlink(control.path);
}

static void
control_accept(int fd, short event, void *arg)
{
	static const char	 refused[] =
	    "{\"ok\":false,\"error\":\"not_authorized\"}\n";
	struct timeval		 tv;
	struct control_conn	*c;
	uid_t			 uid;
	int			 s;

	(void)event;
	(void)arg;
	if ((s = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) ==
	    -1) {
		if (errno != EAGAIN && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("control: accept");
		return;
	}
	if (control_authorized(s, &uid) == -1) {
		log_warnx("control: uid %lu refused", (unsigned long)uid);
		if (write(s, refused, sizeof(refused) - 1) !=
		    sizeof(refused) - 1)
			log_warnx("control: refusal not written");
		if (close(s) == -1)
			log_warn("control: close");
		return;
	}
	if (control.nconns == CONTROL_CLIENTS_MAX ||
	    (c = calloc(1, sizeof(*c))) == NULL) {
		log_warnx("control: too many clients");
		if (close(s) == -1)
			log_warn("control: close");
		return;
	}
	c->fd = s;
	c->id = ++control.nextid;
	event_set(&c->ev, s, EV_READ | EV_PERSIST, control_read, c);
	evtimer_set(&c->ev_timeout, control_timeout, c);
	TAILQ_INSERT_TAIL(&control.conns, c, entry);
	control.nconns++;
	ms_to_timeval(CONTROL_TIMEOUT_MS, &tv);
	if (event_add(&c->ev, NULL) == -1 ||
	    evtimer_add(&c->ev_timeout, &tv) == -1)
		fatalx("event_add failed");
}

/* Root, or a process with the operator group among its groups. */
static int
control_authorized(int s, uid_t *uid)
{
	struct ucred	 cred;
	socklen_t	 len = sizeof(cred);
	gid_t		*groups;
	size_t		 i, n;
	int		 found = 0;

	*uid = (uid_t)-1;
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1 ||
	    len != sizeof(cred))
		return (-1);
	*uid = cred.uid;
	if (cred.uid == 0)
		return (0);
	if (control.gid == 0)
		return (-1);
	if (cred.gid == control.gid)
		return (0);
	/* The supplementary groups: first their size, then them. */
	len = 0;
	if (getsockopt(s, SOL_SOCKET, SO_PEERGROUPS, NULL, &len) == -1 &&
	    errno != ERANGE)
		return (-1);
	if ((n = len / sizeof(*groups)) == 0)
		return (-1);
	if ((groups = reallocarray(NULL, n, sizeof(*groups))) == NULL) {
		log_warn("control: groups");
		return (-1);
	}
	len = n * sizeof(*groups);
	if (getsockopt(s, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0)
		for (i = 0; i < len / sizeof(*groups) && i < n; i++)
			if (groups[i] == control.gid)
				found = 1;
	free(groups);
	return (found ? 0 : -1);
}

static void
control_read(int fd, short event, void *arg)
{
	struct control_conn	*c = arg;
	char			*nl;
	ssize_t			 n;

	(void)event;
	n = read(fd, c->line + c->len, sizeof(c->line) - c->len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		control_close(c);
		return;
	}
	c->len += n;
	if ((nl = memchr(c->line, '\n', c->len)) == NULL) {
		if (c->len == sizeof(c->line))
			control_answer(c, "{\"ok\":false,\"error\":"
			    "\"too_long\"}");
		return;
	}
	*nl = '\0';
	/* One request per connection: the rest is not read. */
	if (event_del(&c->ev) == -1)
		fatalx("event_del failed");
	control_request(c);
}

static void
control_timeout(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	control_answer(arg, "{\"ok\":false,\"error\":\"timeout\"}");
}

static void
control_request(struct control_conn *c)
{
	char	*cmd, *rest;

	rest = c->line;
	cmd = strsep(&rest, " ");
	if (control.session[0] == '\0' || !proc_chan_isopen(PROC_GATEWAY)) {
		control_answer(c, "{\"ok\":false,\"error\":\"no_session\"}");
		return;
	}
	if (strcmp(cmd, "status") == 0 && rest == NULL) {
		proc_compose_id(PROC_GATEWAY, IMSG_GW_STATUS, c->id, NULL, 0);
		proc_flush(PROC_GATEWAY);
	} else if (strcmp(cmd, "revoke") == 0 && rest != NULL)
		control_update(c, 1, rest);
	else if (strcmp(cmd, "restore") == 0 && rest != NULL)
		control_update(c, 0, rest);
	else
		control_answer(c, "{\"ok\":false,\"error\":\"bad_request\"}");
}

/*
 * Revoke or restore the names in list: the next revision carries the
 * whole new set.  The set is the parent's only once the gateway acks it.
 */
static void
control_update(struct control_conn *c, int revoke, char *list)
{
	struct gw_policy	*gl = &control.pol;
	char			*name;
	ssize_t			 i;
	size_t			 j;

	if (control.inflight) {
		control_answer(c, "{\"ok\":false,\"error\":\"busy\"}");
		return;
	}
	memset(gl, 0, sizeof(*gl));
	memcpy(control.next, control.revoked, sizeof(control.next));
	while ((name = strsep(&list, " ")) != NULL) {
		if (!control_name_ok(name, 0)) {
			control_answer(c, "{\"ok\":false,\"error\":"
			    "\"bad_request\"}");
			return;
		}
		if ((i = control_opindex(name)) != -1) {
			control.next[i] = revoke;
			continue;
		}
#ifdef CMCP_TEST
		if (control_forward_unknown && revoke &&
		    gl->gl_count < nitems(gl->gl_names)) {
			(void)strlcpy(gl->gl_names[gl->gl_count++], name,
			    sizeof(gl->gl_names[0]));
			continue;
		}
#endif
		control_answer(c, "{\"ok\":false,\"error\":"
		    "\"unknown_operation\"}");
		return;
	}
	for (j = 0; j < control.nops; j++)
		if (control.next[j]) {
			if (gl->gl_count == nitems(gl->gl_names))
				fatalx("control: too many names");
			(void)strlcpy(gl->gl_names[gl->gl_count++],
			    control.ops[j], sizeof(gl->gl_names[0]));
		}
	gl->gl_revision = ++control.revision;
#ifdef CMCP_TEST
	/* Once: the last revision again, which the gateway must refuse. */
	if (control_replay) {
		control_replay = 0;
		gl->gl_revision = --control.revision;
	}
#endif
	control.inflight = 1;
	control.inflight_id = c->id;
	log_info("control: %s, revision %llu to the gateway",
	    revoke ? "revoke" : "restore",
	    (unsigned long long)gl->gl_revision);
	proc_compose(PROC_GATEWAY, IMSG_GW_POLICY, gl, sizeof(*gl));
	proc_flush(PROC_GATEWAY);
}

/* IMSG_GW_POLICY_ACK: installed (or refused) and recorded. */
void
control_policy_ack(struct imsg *imsg)
{
	struct gw_policy_ack	 ga;
	struct control_conn	*c;
	char			 buf[128];
	size_t			 i;

	if (imsg_get_data(imsg, &ga, sizeof(ga)) == -1 ||
	    !control.inflight || ga.ga_revision != control.revision ||
	    memchr(ga.ga_reason, '\0', sizeof(ga.ga_reason)) == NULL)
		fatalx("channel gateway: bad policy ack");
	for (i = 0; i < sizeof(ga.ga_reason) && ga.ga_reason[i] != '\0'; i++)
		if ((ga.ga_reason[i] < 'a' || ga.ga_reason[i] > 'z') &&
		    ga.ga_reason[i] != '_')
			fatalx("channel gateway: bad policy ack");
	control.inflight = 0;
	if (ga.ga_ok)
		memcpy(control.revoked, control.next, sizeof(control.revoked));
	log_info("control: revision %llu %s", (unsigned long long)
	    ga.ga_revision, ga.ga_reason);
	if ((c = control_find(control.inflight_id)) == NULL)
		return;
	(void)snprintf(buf, sizeof(buf), "{\"ok\":%s,\"revision\":%llu,"
	    "\"result\":\"%s\"}", ga.ga_ok ? "true" : "false",
	    (unsigned long long)ga.ga_revision, ga.ga_reason);
	control_answer(c, buf);
}

/* IMSG_GW_STATUS_REPLY: one JSON line of names and counts. */
void
control_status_reply(struct imsg *imsg)
{
	struct gw_status	 st;
	struct control_conn	*c;
	char			*buf;
	size_t			 i, len = 0, sz = CONTROL_ANSWER_BYTES;
	int			 first = 1, n;

	if (imsg_get_data(imsg, &st, sizeof(st)) == -1 ||
	    memchr(st.gt_label, '\0', sizeof(st.gt_label)) == NULL ||
	    !control_name_ok(st.gt_label, 1))
		fatalx("channel gateway: bad status");
	if ((c = control_find(imsg_get_peerid(imsg))) == NULL)
		return;
	if ((buf = malloc(sz)) == NULL)
		fatal("malloc");
	n = snprintf(buf, sz, "{\"ok\":true,\"session\":\"%s\","
	    "\"label\":\"%s\",\"revision\":%llu,\"admission\":\"%s\","
	    "\"operations\":[", control.session, st.gt_label,
	    (unsigned long long)st.gt_revision,
	    st.gt_closed ? "closed" : "open");
	if (n < 0 || (size_t)n >= sz)
		fatalx("control: status too long");
	len = n;
	for (i = 0; i < control.nops; i++) {
		if (st.gt_revoked[i])
			continue;
		n = snprintf(buf + len, sz - len, "%s\"%s\"", first ? "" :
		    ",", control.ops[i]);
		if (n < 0 || (size_t)n >= sz - len)
			fatalx("control: status too long");
		len += n;
		first = 0;
	}
	n = snprintf(buf + len, sz - len, "],\"calls\":%llu,\"allowed\":%llu,"
	    "\"denied\":%llu}", (unsigned long long)st.gt_calls,
	    (unsigned long long)st.gt_allowed,
	    (unsigned long long)st.gt_denied);
	if (n < 0 || (size_t)n >= sz - len)
		fatalx("control: status too long");
	control_answer(c, buf);
	free(buf);
}

/* One line back, then the connection is done. */
static void
control_answer(struct control_conn *c, const char *line)
{
	size_t	 len = strlen(line);
	ssize_t	 n;

	if ((n = write(c->fd, line, len)) != (ssize_t)len ||
	    write(c->fd, "\n", 1) != 1)
		log_warnx("control: answer not written in full");
	control_close(c);
}

static void
control_close(struct control_conn *c)
{
	if (event_del(&c->ev) == -1 || evtimer_del(&c->ev_timeout) == -1)
		fatalx("event_del failed");
	if (close(c->fd) == -1)
		log_warn("control: close");
	TAILQ_REMOVE(&control.conns, c, entry);
	control.nconns--;
	explicit_bzero(c, sizeof(*c));
	free(c);
}

static struct control_conn *
control_find(uint32_t id)
{
	struct control_conn	*c;

	TAILQ_FOREACH(c, &control.conns, entry)
		if (c->id == id)
			return (c);
	return (NULL);
}

/*
 * A configured name (cmcp-privsep.conf(5)): printable ASCII without '"'
 * and '\\', so that JSON needs no escapes.  In a request the space
 * separates names; a name with a space cannot be revoked.
 */
static int
control_name_ok(const char *s, int space)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (i + 1 >= CONF_NAME_BYTES || s[i] < (space ? 0x20 : 0x21) ||
		    s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
			return (0);
	return (i > 0);
}

static ssize_t
control_opindex(const char *name)
{
	size_t	 i;

	for (i = 0; i < control.nops; i++)
		if (strcmp(control.ops[i], name) == 0)
			return (i);
	return (-1);
}

/*
 * cmcp-privsep revoke|restore|status: one request line to the configured
 * socket, the answer printed.  Exit 0 when the answer says ok.
 */
void
control_client(const char *conffile, int argc, char *argv[])
{
	struct cmcp_conf	*conf;
	struct sockaddr_un	 sun;
	char			 line[CONTROL_LINE_BYTES];
	char			*answer;
	size_t			 len = 0;
	ssize_t			 n;
	int			 i, s;

	line[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i > 0 && !control_name_ok(argv[i], 0))
			errx(1, "bad operation name");
		if (strlcat(line, argv[i], sizeof(line)) >= sizeof(line) ||
		    strlcat(line, i + 1 < argc ? " " : "\n", sizeof(line)) >=
		    sizeof(line))
			errx(1, "request too long");
	}
	if ((conf = parse_config(conffile)) == NULL)
		exit(1);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, conf->c_control_socket,
	    sizeof(sun.sun_path)) >= sizeof(sun.sun_path))
		errx(1, "control socket path too long");
	free_config(conf);
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "%s", sun.sun_path);
	/* A refusal may come, and the socket close, before the request. */
	if ((n = send(s, line, strlen(line), MSG_NOSIGNAL)) == -1 &&
	    errno != EPIPE && errno != ECONNRESET)
		err(1, "send");
	if (n != -1 && (size_t)n != strlen(line))
		errx(1, "request not sent in full");
	if ((answer = malloc(CONTROL_ANSWER_BYTES + 1)) == NULL)
		err(1, NULL);
	while (len < CONTROL_ANSWER_BYTES && memchr(answer, '\n', len) ==
	    NULL) {
		if ((n = read(s, answer + len, CONTROL_ANSWER_BYTES - len)) ==
		    -1 && errno != ECONNRESET)
			err(1, "read");
		if (n == -1)
			break;
		if (n == 0)
			break;
		len += n;
	}
	if (len == 0 || answer[len - 1] != '\n')
		errx(1, "no answer");
	answer[len] = '\0';
	fputs(answer, stdout);
	exit(strncmp(answer, "{\"ok\":true", 10) == 0 ? 0 : 1);
}
