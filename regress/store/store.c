/*
 * Helpers of the store tests (store.h).
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "json.h"
#include "store.h"

#define TEST_CMD_BYTES		4096
#define TEST_JSON_DEPTH		64

static long
now_ms(void)
{
	struct timespec	 ts;

	ATF_REQUIRE(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
test_prog(const atf_tc_t *tc, const char *var, const char *name, char *path,
    size_t sz)
{
	int		 n;

	if (var != NULL && atf_tc_has_config_var(tc, var))
		n = snprintf(path, sz, "%s", atf_tc_get_config_var(tc, var));
	else
		n = snprintf(path, sz, "%s/../../examples/store/%s",
		    atf_tc_get_config_var(tc, "srcdir"), name);
	ATF_REQUIRE(n > 0 && (size_t)n < sz);
	ATF_REQUIRE_MSG(access(path, X_OK) == 0, "%s missing (make store)",
	    path);
}

static int
test_vsh(char *out, size_t outsz, const char *fmt, va_list ap)
{
	char		 cmd[TEST_CMD_BYTES];
	FILE		*p;
	size_t		 n = 0, r;
	int		 len, status;

	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	ATF_REQUIRE(len > 0 && (size_t)len < sizeof(cmd));
	if (out == NULL) {
		status = system(cmd);
	} else {
		ATF_REQUIRE(outsz > 0);
		ATF_REQUIRE((p = popen(cmd, "r")) != NULL);
		while (n < outsz - 1 &&
		    (r = fread(out + n, 1, outsz - 1 - n, p)) > 0)
			n += r;
		out[n] = '\0';
		status = pclose(p);
	}
	ATF_REQUIRE(status != -1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
test_sh(const char *fmt, ...)
{
	va_list		 ap;
	int		 rc;

	va_start(ap, fmt);
	rc = test_vsh(NULL, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int
test_sh_out(char *out, size_t outsz, const char *fmt, ...)
{
	va_list		 ap;
	int		 rc;

	va_start(ap, fmt);
	rc = test_vsh(out, outsz, fmt, ap);
	va_end(ap);
	return rc;
}

size_t
test_file(const char *path, char *buf, size_t sz)
{
	size_t		 n = 0;
	ssize_t		 r;
	int		 fd;

	ATF_REQUIRE(sz > 0);
	ATF_REQUIRE((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1);
	while (n < sz - 1 && (r = read(fd, buf + n, sz - 1 - n)) != 0) {
		ATF_REQUIRE(r != -1 || errno == EINTR);
		if (r > 0)
			n += r;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

void
child_start(struct child *c, char *const argv[], const char *errfile)
{
	int		 in[2], out[2], efd;

	ATF_REQUIRE(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
	ATF_REQUIRE((efd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644)) != -1);
	ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(out, O_CLOEXEC) == 0);
	ATF_REQUIRE((c->pid = fork()) != -1);
	if (c->pid == 0) {
		if (dup2(in[0], STDIN_FILENO) == -1 ||
		    dup2(out[1], STDOUT_FILENO) == -1 ||
		    dup2(efd, STDERR_FILENO) == -1 ||
		    signal(SIGPIPE, SIG_DFL) == SIG_ERR)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(efd);
	c->wfd = in[1];
	c->rfd = out[0];
	c->have = 0;
}

/* Write all of p; 0, or -1 at EPIPE when epipe_ok (any other error fails). */
static int
child_write(struct child *c, const void *p, size_t len, int epipe_ok)
{
	const char	*s = p;
	ssize_t		 w;

	ATF_REQUIRE(c->wfd != -1);
	while (len > 0) {
		w = write(c->wfd, s, len);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && errno == EPIPE && epipe_ok)
			return -1;
		ATF_REQUIRE_MSG(w != -1, "write to the child: %s",
		    strerror(errno));
		s += w;
		len -= w;
	}
	return 0;
}

void
child_send_raw(struct child *c, const void *p, size_t len)
{
	(void)child_write(c, p, len, 0);
}

/*
 * The line, to a child that may already have ended: one that refuses its
 * arguments exits before it reads, and the write then meets EPIPE.  0
 * when all of it was written, -1 at EPIPE.
 */
int
child_send_early(struct child *c, const char *line)
{
	return child_write(c, line, strlen(line), 1);
}

void
child_send(struct child *c, const char *line)
{
	child_send_raw(c, line, strlen(line));
	child_send_raw(c, "\n", 1);
}

/* Read more of its stdout within the deadline: the bytes read, 0 at EOF. */
static size_t
child_fill(struct child *c, long deadline)
{
	struct pollfd	 pfd;
	ssize_t		 r;
	long		 left;
	int		 n;

	ATF_REQUIRE_MSG(c->have < sizeof(c->buf), "line too long");
	for (;;) {
		left = deadline - now_ms();
		ATF_REQUIRE_MSG(left > 0, "no output within %d ms",
		    TEST_WAIT_MS);
		pfd.fd = c->rfd;
		pfd.events = POLLIN;
		n = poll(&pfd, 1, (int)left);
		if (n == -1 && errno == EINTR)
			continue;
		ATF_REQUIRE(n != -1);
		if (n == 0)
			continue;
		r = read(c->rfd, c->buf + c->have, sizeof(c->buf) - c->have);
		if (r == -1 && errno == EINTR)
			continue;
		ATF_REQUIRE(r != -1);
		c->have += r;
		return r;
	}
}

size_t
child_recv(struct child *c, char *line, size_t sz)
{
	char		*nl;
	size_t		 n;
	long		 deadline = now_ms() + TEST_WAIT_MS;

	while ((nl = memchr(c->buf, '\n', c->have)) == NULL)
		ATF_REQUIRE_MSG(child_fill(c, deadline) > 0,
		    "output ended before a line");
	n = nl - c->buf;
	ATF_REQUIRE_MSG(n < sz, "line of %zu bytes", n);
	memcpy(line, c->buf, n);
	line[n] = '\0';
	c->have -= n + 1;
	memmove(c->buf, nl + 1, c->have);
	return n;
}

int
child_eof(struct child *c)
{
	long		 deadline = now_ms() + TEST_WAIT_MS;

	return c->have == 0 && child_fill(c, deadline) == 0;
}

void
child_close(struct child *c)
{
	if (c->wfd != -1)
		close(c->wfd);
	c->wfd = -1;
}

int
child_wait(struct child *c)
{
	long		 deadline = now_ms() + TEST_WAIT_MS;
	pid_t		 p;
	int		 status;

	child_close(c);
	while ((p = waitpid(c->pid, &status, WNOHANG)) == 0) {
		if (now_ms() > deadline) {
			kill(c->pid, SIGKILL);
			ATF_REQUIRE(waitpid(c->pid, &status, 0) == c->pid);
			close(c->rfd);
			atf_tc_fail("the child did not exit within %d ms",
			    TEST_WAIT_MS);
		}
		usleep(10000);
	}
	ATF_REQUIRE(p == c->pid);
	close(c->rfd);
	return status;
}

void
json_require(const char *b, size_t len)
{
	struct json_limits lim = { TEST_LINE_BYTES, TEST_JSON_DEPTH };
	enum json_error	 e;

	e = json_check(b, len, &lim);
	ATF_REQUIRE_MSG(e == JSON_OK, "not strict JSON: %s",
	    json_strerror(e));
}

size_t
json_at(const char *b, size_t len, const char *path)
{
	char		 key[128];
	const char	*p = path, *dot;
	size_t		 off, it, name, value, k, i, idx;
	int		 found;

	off = json_skip_ws(b, len, 0);
	while (*p != '\0') {
		dot = strchr(p, '.');
		k = dot != NULL ? (size_t)(dot - p) : strlen(p);
		ATF_REQUIRE(k > 0 && k < sizeof(key));
		memcpy(key, p, k);
		key[k] = '\0';
		p += k + (dot != NULL);
		found = 0;
		it = off;
		if (json_type(b, len, off) == JSON_OBJECT) {
			while (json_member_next(b, len, &it, &name, &value))
				if (json_string_equal(b, len, name, key)) {
					off = value;
					found = 1;
					break;
				}
		} else if (json_type(b, len, off) == JSON_ARRAY) {
			idx = strtoul(key, NULL, 10);
			for (i = 0; json_element_next(b, len, &it, &value);
			    i++)
				if (i == idx) {
					off = value;
					found = 1;
					break;
				}
		}
		if (!found)
			return TEST_NONE;
	}
	return off;
}

size_t
json_text(const char *b, size_t len, size_t off, char *dst, size_t sz)
{
	size_t		 n;

	ATF_REQUIRE_MSG(off != TEST_NONE &&
	    json_type(b, len, off) == JSON_STRING, "not a string");
	ATF_REQUIRE_MSG(json_string_copy(b, len, off, dst, sz, &n) == 0,
	    "string too long");
	return n;
}

int
json_raw_is(const char *b, size_t len, size_t off, const char *raw)
{
	size_t		 end;

	if (off == TEST_NONE)
		return 0;
	end = json_value_end(b, len, off);
	return end - off == strlen(raw) && memcmp(b + off, raw, end - off) == 0;
}

size_t
json_count(const char *b, size_t len, size_t off)
{
	size_t		 it = off, name, value, n = 0;

	ATF_REQUIRE(off != TEST_NONE);
	if (json_type(b, len, off) == JSON_OBJECT)
		while (json_member_next(b, len, &it, &name, &value))
			n++;
	else {
		ATF_REQUIRE(json_type(b, len, off) == JSON_ARRAY);
		while (json_element_next(b, len, &it, &value))
			n++;
	}
	return n;
}
