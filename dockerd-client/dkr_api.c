/*
 * The Docker Engine API client: libcurl over the engine's unix socket for
 * the REST calls, a raw AF_UNIX socket for the attach hijack.
 *
 * Every call has a timeout, every response a size bound; a container or
 * image is only ever named by its full ID, so no engine-side name or
 * prefix lookup happens.  Failures leave a fixed text in c->err with at
 * most an HTTP status or a curl code in it, never engine text.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "dkr.h"
#include "mstime.h"

#define URL_BYTES		512
#define CONNECT_TIMEOUT_MS	5000L

static size_t	 write_cb(char *, size_t, size_t, void *);
static size_t	 header_cb(char *, size_t, size_t, void *);
static int64_t	 now_ms(void);
static int	 id_path(struct dkr_client *, char *, size_t, const char *,
		    const char *, const char *);

static size_t
write_cb(char *p, size_t size, size_t n, void *arg)
{
	struct dkr_client	*c = arg;

	n *= size;
	if (n > c->cap - c->len) {
		c->overflow = 1;
		return 0;	/* makes curl fail the transfer */
	}
	memcpy(c->body + c->len, p, n);
	c->len += n;
	c->body[c->len] = '\0';
	return n;
}

static size_t
header_cb(char *p, size_t size, size_t n, void *arg)
{
	struct dkr_client	*c = arg;
	size_t			 len = size * n, i = 12, j = 0;

	if (len > 12 && strncasecmp(p, "Api-Version:", 12) == 0) {
		while (i < len && p[i] == ' ')
			i++;
		while (i < len && j < sizeof(c->api) - 1 &&
		    ((p[i] >= '0' && p[i] <= '9') || p[i] == '.'))
			c->api[j++] = p[i++];
		c->api[j] = '\0';
	}
	return len;
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		return -1;
	return timespec_to_ms(&ts);
}

int
dkr_client_init(struct dkr_client *c, const char *sock)
{
	memset(c, 0, sizeof(*c));
	if (sock[0] != '/' || strlcpy(c->sock, sock, sizeof(c->sock)) >=
	    sizeof(c->sock)) {
		strlcpy(c->err, "docker: bad socket path", sizeof(c->err));
		return -1;
	}
	c->cap = DKR_RESPONSE_MAX_BYTES;
	c->timeout_ms = DKR_CALL_TIMEOUT_MS;
	if ((c->body = malloc(c->cap + 1)) == NULL) {
		strlcpy(c->err, "docker: out of memory", sizeof(c->err));
		return -1;
	}
	c->body[0] = '\0';
	if (curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK ||
	    (c->curl = curl_easy_init()) == NULL) {
		free(c->body);
		c->body = NULL;
		strlcpy(c->err, "docker: curl init", sizeof(c->err));
		return -1;
	}
	return 0;
}

void
dkr_client_free(struct dkr_client *c)
{
	if (c->curl != NULL) {
		curl_easy_cleanup(c->curl);
		curl_global_cleanup();
	}
	free(c->body);
	c->curl = NULL;
	c->body = NULL;
}

/*
 * One request: method GET, POST or DELETE, path below /v1.41, an optional
 * JSON body.  The HTTP status, or -1.
 */
long
dkr_call(struct dkr_client *c, const char *method, const char *path,
    const char *body, long timeout_ms)
{
	struct curl_slist	*hdr = NULL, *h;
	CURL			*cu = c->curl;
	char			 url[URL_BYTES];
	long			 status = -1;
	CURLcode		 rc;
	int			 ok = 1;

	c->len = 0;
	c->overflow = 0;
	c->err[0] = '\0';
	if (c->body != NULL)
		c->body[0] = '\0';
	if (cu == NULL || path[0] != '/' || timeout_ms <= 0 ||
	    (size_t)snprintf(url, sizeof(url), "http://localhost%s%s",
	    DKR_API_PATH, path) >= sizeof(url)) {
		strlcpy(c->err, "docker: bad request", sizeof(c->err));
		return -1;
	}

	curl_easy_reset(cu);
#define OPT(o, v)	(ok = ok && curl_easy_setopt(cu, o, v) == CURLE_OK)
	OPT(CURLOPT_URL, url);
	OPT(CURLOPT_UNIX_SOCKET_PATH, c->sock);
	OPT(CURLOPT_PROTOCOLS_STR, "http");
	OPT(CURLOPT_REDIR_PROTOCOLS_STR, "http");
	OPT(CURLOPT_FOLLOWLOCATION, 0L);
	OPT(CURLOPT_PROXY, "");	/* no proxy from the environment */
	OPT(CURLOPT_NOSIGNAL, 1L);
	OPT(CURLOPT_TIMEOUT_MS, timeout_ms);
	OPT(CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < CONNECT_TIMEOUT_MS ?
	    timeout_ms : CONNECT_TIMEOUT_MS);
	OPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->cap);
	OPT(CURLOPT_WRITEFUNCTION, write_cb);
	OPT(CURLOPT_WRITEDATA, c);
	OPT(CURLOPT_HEADERFUNCTION, header_cb);
	OPT(CURLOPT_HEADERDATA, c);
	OPT(CURLOPT_USERAGENT, "cmcp-privsep");
	if (strcmp(method, "GET") == 0)
		OPT(CURLOPT_HTTPGET, 1L);
	else if (strcmp(method, "POST") == 0) {
		OPT(CURLOPT_POST, 1L);
		OPT(CURLOPT_POSTFIELDS, body != NULL ? body : "");
		OPT(CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)(body != NULL ? strlen(body) : 0));
	} else if (strcmp(method, "DELETE") == 0)
		OPT(CURLOPT_CUSTOMREQUEST, "DELETE");
	else
		ok = 0;
#undef OPT
	/* Go refuses a form content type; no 100-continue round trip. */
	if (ok && (h = curl_slist_append(hdr, "Expect:")) != NULL) {
		hdr = h;
		if (body != NULL &&
		    (h = curl_slist_append(hdr,
		    "Content-Type: application/json")) == NULL)
			ok = 0;
		else
			hdr = h;
	} else
		ok = 0;
	if (ok)
		ok = curl_easy_setopt(cu, CURLOPT_HTTPHEADER, hdr) == CURLE_OK;
	if (!ok) {
		strlcpy(c->err, "docker: curl setup", sizeof(c->err));
		curl_slist_free_all(hdr);
		return -1;
	}

	rc = curl_easy_perform(cu);
	if (c->overflow)
		strlcpy(c->err, "docker: response too large", sizeof(c->err));
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		strlcpy(c->err, "docker: timeout", sizeof(c->err));
	else if (rc != CURLE_OK)
		(void)snprintf(c->err, sizeof(c->err),
		    "docker: transport error (curl %d)", (int)rc);
	else if (curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &status) !=
	    CURLE_OK || status < 100 || status > 599) {
		strlcpy(c->err, "docker: no status", sizeof(c->err));
		status = -1;
	}
	(void)curl_easy_setopt(cu, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdr);
	return rc == CURLE_OK && !c->overflow ? status : -1;
}

/* Note a status other than the expected one; returns -1. */
static int
unexpected(struct dkr_client *c, const char *what, long status)
{
	if (status != -1)
		(void)snprintf(c->err, sizeof(c->err), "docker %s: HTTP %ld",
		    what, status);
	return -1;
}

/* path = prefix + container ID + suffix; the ID must be a full ID. */
static int
id_path(struct dkr_client *c, char *buf, size_t size, const char *prefix,
    const char *id, const char *suffix)
{
	if (id == NULL || !dkr_container_id_valid(id) ||
	    (size_t)snprintf(buf, size, "%s%s%s", prefix, id, suffix) >=
	    size) {
		strlcpy(c->err, "docker: bad container id", sizeof(c->err));
		return -1;
	}
	return 0;
}

int
dkr_ping(struct dkr_client *c)
{
	long	 s;

	c->api[0] = '\0';
	s = dkr_call(c, "GET", "/_ping", NULL, c->timeout_ms);
	if (s != 200)
		return unexpected(c, "ping", s);
	if (strcmp(c->body, "OK") != 0 || c->api[0] == '\0') {
		strlcpy(c->err, "docker ping: bad answer", sizeof(c->err));
		return -1;
	}
	return 0;
}

long
dkr_version(struct dkr_client *c)
{
	return dkr_call(c, "GET", "/version", NULL, c->timeout_ms);
}

long
dkr_info(struct dkr_client *c)
{
	return dkr_call(c, "GET", "/info", NULL, c->timeout_ms);
}

/* GET /images/sha256:<hex>/json: 200, 404, or -1. */
long
dkr_image_inspect(struct dkr_client *c, const char *image)
{
	char	 path[128];

	if (!dkr_image_id_valid(image)) {
		strlcpy(c->err, "docker: bad image id", sizeof(c->err));
		return -1;
	}
	(void)snprintf(path, sizeof(path), "/images/%s/json", image);
	return dkr_call(c, "GET", path, NULL, c->timeout_ms);
}

/*
 * POST /containers/create with a template body.  0 when the engine
 * created something: id is set when its ID is known, and *r says whether
 * it may be used (any Warnings entry refuses; the caller deletes id).
 */
int
dkr_create(struct dkr_client *c, const char *body, char *id,
    enum dkr_reason *r)
{
	long	 s;

	id[0] = '\0';
	*r = DKR_R_JSON;
	s = dkr_call(c, "POST", "/containers/create", body,
	    c->timeout_ms);
	if (s != 201)
		return unexpected(c, "create", s);
	*r = dkr_create_verify(c->body, c->len, id, c->err, sizeof(c->err));
	return 0;
}

/* GET /containers/{id}/json: 200 (document in c->body), 404, or -1. */
long
dkr_inspect(struct dkr_client *c, const char *id)
{
	char	 path[128];

	if (id_path(c, path, sizeof(path), "/containers/", id, "/json") == -1)
		return -1;
	return dkr_call(c, "GET", path, NULL, c->timeout_ms);
}

/* 204 started, 304 already running. */
long
dkr_start(struct dkr_client *c, const char *id)
{
	char	 path[128];

	if (id_path(c, path, sizeof(path), "/containers/", id, "/start") == -1)
		return -1;
	return dkr_call(c, "POST", path, NULL, c->timeout_ms);
}

/* Wait up to timeout_ms for the container to stop; its exit status. */
int
dkr_wait(struct dkr_client *c, const char *id, long timeout_ms,
    int64_t *code)
{
	char		 path[160];
	cJSON		*root;
	const cJSON	*v;
	long		 s;
	int		 rv = -1;

	if (id_path(c, path, sizeof(path), "/containers/", id,
	    "/wait?condition=not-running") == -1)
		return -1;
	if ((s = dkr_call(c, "POST", path, NULL, timeout_ms)) != 200)
		return unexpected(c, "wait", s);
	if ((root = cJSON_ParseWithLength(c->body, c->len)) != NULL &&
	    cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root,
	    "StatusCode")) && v->valuedouble >= -1 &&
	    v->valuedouble <= 65535 &&
	    v->valuedouble == (int64_t)v->valuedouble) {
		*code = (int64_t)v->valuedouble;
		rv = 0;
	} else
		strlcpy(c->err, "docker wait: bad answer", sizeof(c->err));
	cJSON_Delete(root);
	return rv;
}

/*
 * SIGKILL.  cmcp-init installs no handler, so as a namespace init it
 * ignores SIGTERM: /stop would only wait for its timeout.  204 killed,
 * 409 not running.
 */
long
dkr_kill(struct dkr_client *c, const char *id)
{
	char	 path[128];

	if (id_path(c, path, sizeof(path), "/containers/", id,
	    "/kill?signal=SIGKILL") == -1)
		return -1;
	return dkr_call(c, "POST", path, NULL, c->timeout_ms);
}

/* 204 stopped, 304 already stopped. */
long
dkr_stop(struct dkr_client *c, const char *id, int secs)
{
	char	 path[160], sfx[32];

	if (secs < 0 || secs > 60) {
		strlcpy(c->err, "docker: bad stop timeout", sizeof(c->err));
		return -1;
	}
	(void)snprintf(sfx, sizeof(sfx), "/stop?t=%d", secs);
	if (id_path(c, path, sizeof(path), "/containers/", id, sfx) == -1)
		return -1;
	return dkr_call(c, "POST", path, NULL,
	    c->timeout_ms + secs * 1000L);
}

/* DELETE, killing first and removing anonymous volumes: 204 or 404. */
long
dkr_delete(struct dkr_client *c, const char *id)
{
	char	 path[160];

	if (id_path(c, path, sizeof(path), "/containers/", id,
	    "?force=1&v=1") == -1)
		return -1;
	return dkr_call(c, "DELETE", path, NULL, c->timeout_ms);
}

/* Absence is confirmed by a 404 inspect, never assumed: 1, 0 or -1. */
int
dkr_gone(struct dkr_client *c, const char *id)
{
	long	 s;

	if ((s = dkr_inspect(c, id)) == 404)
		return 1;
	if (s == 200)
		return 0;
	return unexpected(c, "inspect", s);
}

static int
label_is(const cJSON *labels, const char *key, const char *want)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(labels, key);

	return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

/*
 * The IDs of every container, running or not, labelled with this suite
 * instance (and session, when not NULL).  The engine's label filter is
 * exact, and the labels are checked again here; names are never used.
 */
int
dkr_list(struct dkr_client *c, const char *instance, const char *session,
    char (*ids)[DKR_CONTAINER_ID_BYTES], size_t max, size_t *n)
{
	char		 lab[2][DKR_LABEL_BYTES + 32], path[URL_BYTES];
	const char	*v[2];
	cJSON		*f = NULL, *root = NULL;
	const cJSON	*it, *id, *labels;
	char		*json = NULL, *esc = NULL;
	long		 s;
	int		 rv = -1;

	*n = 0;
	if (!dkr_label_valid(instance) ||
	    (session != NULL && !dkr_label_valid(session))) {
		strlcpy(c->err, "docker list: bad label", sizeof(c->err));
		return -1;
	}
	(void)snprintf(lab[0], sizeof(lab[0]), "%s=%s", DKR_LABEL_INSTANCE,
	    instance);
	v[0] = lab[0];
	if (session != NULL) {
		(void)snprintf(lab[1], sizeof(lab[1]), "%s=%s",
		    DKR_LABEL_SESSION, session);
		v[1] = lab[1];
	}
	if ((f = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToObject(f, "label",
	    cJSON_CreateStringArray(v, session != NULL ? 2 : 1)) ||
	    (json = cJSON_PrintUnformatted(f)) == NULL ||
	    (esc = curl_easy_escape(c->curl, json, 0)) == NULL ||
	    (size_t)snprintf(path, sizeof(path),
	    "/containers/json?all=1&filters=%s", esc) >= sizeof(path)) {
		strlcpy(c->err, "docker list: bad request", sizeof(c->err));
		goto done;
	}
	if ((s = dkr_call(c, "GET", path, NULL, c->timeout_ms)) != 200) {
		unexpected(c, "list", s);
		goto done;
	}
	if ((root = cJSON_ParseWithLength(c->body, c->len)) == NULL ||
	    !cJSON_IsArray(root)) {
		strlcpy(c->err, "docker list: bad answer", sizeof(c->err));
		goto done;
	}
	cJSON_ArrayForEach(it, root) {
		id = cJSON_GetObjectItemCaseSensitive(it, "Id");
		labels = cJSON_GetObjectItemCaseSensitive(it, "Labels");
		if (!cJSON_IsString(id) ||
		    !dkr_container_id_valid(id->valuestring)) {
			strlcpy(c->err, "docker list: bad answer",
			    sizeof(c->err));
			goto done;
		}
		if (!label_is(labels, DKR_LABEL_INSTANCE, instance) ||
		    (session != NULL &&
		    !label_is(labels, DKR_LABEL_SESSION, session)))
			continue;
		if (*n == max) {
			strlcpy(c->err, "docker list: too many",
			    sizeof(c->err));
			goto done;
		}
		memcpy(ids[(*n)++], id->valuestring, DKR_CONTAINER_ID_BYTES);
	}
	rv = 0;
 done:
	cJSON_Delete(root);
	cJSON_Delete(f);
	free(json);
	curl_free(esc);
	return rv;
}

/*
 * The distinct suite instances named by the instance label of any
 * container, running or not, other than self.  Only containers that carry
 * the label key are listed by the engine; a value that is not a valid
 * label is skipped (such a container is not ours to judge).  At most max
 * instances; *more is set when others were left out.
 */
int
dkr_instances(struct dkr_client *c, const char *self,
    char (*inst)[DKR_LABEL_BYTES], size_t max, size_t *n, int *more)
{
	char		 path[URL_BYTES];
	const char	*key = DKR_LABEL_INSTANCE;
	cJSON		*f = NULL, *root = NULL;
	const cJSON	*it, *v;
	char		*json = NULL, *esc = NULL;
	size_t		 i;
	long		 s;
	int		 rv = -1;

	*n = 0;
	*more = 0;
	if ((f = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToObject(f, "label",
	    cJSON_CreateStringArray(&key, 1)) ||
	    (json = cJSON_PrintUnformatted(f)) == NULL ||
	    (esc = curl_easy_escape(c->curl, json, 0)) == NULL ||
	    (size_t)snprintf(path, sizeof(path),
	    "/containers/json?all=1&filters=%s", esc) >= sizeof(path)) {
		strlcpy(c->err, "docker list: bad request", sizeof(c->err));
		goto done;
	}
	if ((s = dkr_call(c, "GET", path, NULL, c->timeout_ms)) != 200) {
		unexpected(c, "list", s);
		goto done;
	}
	if ((root = cJSON_ParseWithLength(c->body, c->len)) == NULL ||
	    !cJSON_IsArray(root)) {
		strlcpy(c->err, "docker list: bad answer", sizeof(c->err));
		goto done;
	}
	cJSON_ArrayForEach(it, root) {
		v = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(it, "Labels"), key);
		if (!cJSON_IsString(v) || !dkr_label_valid(v->valuestring) ||
		    strcmp(v->valuestring, self) == 0)
			continue;
		for (i = 0; i < *n; i++)
			if (strcmp(inst[i], v->valuestring) == 0)
				break;
		if (i < *n)
			continue;
		if (*n == max) {
			*more = 1;
			continue;
		}
		strlcpy(inst[(*n)++], v->valuestring, DKR_LABEL_BYTES);
	}
	rv = 0;
 done:
	cJSON_Delete(root);
	cJSON_Delete(f);
	free(json);
	curl_free(esc);
	return rv;
}

/* Wait for fd to be ready for events until deadline; 0, or -1. */
static int
wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd	 pfd;
	int64_t		 left;
	int		 n;

	pfd.fd = fd;
	pfd.events = events;
	for (;;) {
		if ((left = deadline - now_ms()) <= 0)
			return -1;
		n = poll(&pfd, 1, (int)left);
		if (n == -1 && errno == EINTR)
			continue;
		return n == 1 ? 0 : -1;
	}
}

static int
attach_fail(struct dkr_client *c, int fd, const char *why)
{
	strlcpy(c->err, why, sizeof(c->err));
	if (fd != -1)
		(void)close(fd);
	return -1;
}

/*
 * Hijack POST /containers/{id}/attach: stdin, stdout and stderr, no logs.
 * On success *fdp is the stream socket (blocking, close-on-exec) and left
 * holds *leftlen bytes of the stream that arrived with the 101 header;
 * they come before anything read from *fdp.  leftsz must be at least
 * DKR_ATTACH_HEAD_BYTES.  From here on, the stream is the agent's: this
 * process must not read it.
 */
int
dkr_attach(struct dkr_client *c, const char *id, int *fdp, char *left,
    size_t leftsz, size_t *leftlen)
{
	struct sockaddr_un	 sun;
	char			 req[512], head[DKR_ATTACH_HEAD_BYTES];
	const char		*end;
	size_t			 off = 0, have = 0, reqlen;
	ssize_t			 n;
	int64_t			 deadline;
	int			 fd, fl;

	*fdp = -1;
	*leftlen = 0;
	if (leftsz < sizeof(head) || id == NULL ||
	    !dkr_container_id_valid(id))
		return attach_fail(c, -1, "docker attach: bad request");
	reqlen = (size_t)snprintf(req, sizeof(req),
	    "POST %s/containers/%s/attach?stream=1&stdin=1&stdout=1&stderr=1"
	    " HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\n"
	    "Upgrade: tcp\r\nContent-Length: 0\r\n\r\n", DKR_API_PATH, id);
	if (reqlen >= sizeof(req))
		return attach_fail(c, -1, "docker attach: bad request");
	deadline = now_ms() + DKR_ATTACH_TIMEOUT_MS;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, c->sock, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		return attach_fail(c, -1, "docker attach: bad socket path");
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		return attach_fail(c, -1, "docker attach: socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 &&
	    errno != EINPROGRESS && errno != EAGAIN)
		return attach_fail(c, fd, "docker attach: connect");

	while (off < reqlen) {
		if (wait_fd(fd, POLLOUT, deadline) == -1)
			return attach_fail(c, fd, "docker attach: timeout");
		n = send(fd, req + off, reqlen - off, MSG_NOSIGNAL);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return attach_fail(c, fd, "docker attach: send");
		off += n;
	}

	/* Read the response header; anything after it is stream. */
	while ((end = memmem(head, have, "\r\n\r\n", 4)) == NULL) {
		if (have == sizeof(head))
			return attach_fail(c, fd,
			    "docker attach: header too long");
		if (wait_fd(fd, POLLIN, deadline) == -1)
			return attach_fail(c, fd, "docker attach: timeout");
		n = recv(fd, head + have, sizeof(head) - have, 0);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return attach_fail(c, fd, "docker attach: closed");
		have += n;
	}
	if (have < 13 || memcmp(head, "HTTP/1.1 101 ", 13) != 0)
		return attach_fail(c, fd, "docker attach: not upgraded");
	end += 4;
	*leftlen = have - (end - head);
	memcpy(left, end, *leftlen);

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1)
		return attach_fail(c, fd, "docker attach: fcntl");
	*fdp = fd;
	return 0;
}
