/*
 * What the store demo's tests share: starting a program over two pipes,
 * lines in and out with a deadline, shell commands, and reading what came
 * back with the project's strict JSON (common/json.c).  A failure anywhere
 * here fails the test case that called it.
 */

#ifndef REGRESS_STORE_H
#define REGRESS_STORE_H

#include <sys/types.h>

#include <stddef.h>

#include <atf-c.h>

#define TEST_LINE_BYTES		(160 * 1024)	/* a line we read, at most */
#define TEST_WAIT_MS		5000		/* for any one line or exit */
#define TEST_NONE		((size_t)-1)

struct child {
	pid_t		 pid;
	int		 wfd;		/* its stdin, -1 once closed */
	int		 rfd;		/* its stdout */
	char		 buf[TEST_LINE_BYTES];
	size_t		 have;
};

/*
 * The path of a program of examples/store: the configuration variable
 * var when set (a sanitizer build, for one), else the source tree's.
 */
void	 test_prog(const atf_tc_t *, const char *, const char *, char *,
	    size_t);
/* Run a command line under sh -c; its exit status, -1 when not normal. */
int	 test_sh(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
/* The same, with its stdout (at most sz - 1 bytes, NUL ended) in out. */
int	 test_sh_out(char *, size_t, const char *, ...)
	    __attribute__((__format__ (printf, 3, 4)));
/* A whole file, NUL ended; its length. */
size_t	 test_file(const char *, char *, size_t);

/* argv[0] is the path; stderr goes to errfile, created afresh. */
void	 child_start(struct child *, char *const [], const char *);
void	 child_send(struct child *, const char *);
int	 child_send_early(struct child *, const char *);
void	 child_send_raw(struct child *, const void *, size_t);
/* The next line without its newline, NUL ended: its length. */
size_t	 child_recv(struct child *, char *, size_t);
/* 1 when stdout ends within the deadline without another byte. */
int	 child_eof(struct child *);
void	 child_close(struct child *);
/* Close its stdin, wait (SIGKILL after the deadline): the wait status. */
int	 child_wait(struct child *);

/*
 * JSON from json_check()ed bytes: the value at a dotted path from the
 * top value ("result.content.0.text": members by name, array elements by
 * index), TEST_NONE when there is none.
 */
void	 json_require(const char *, size_t);
size_t	 json_at(const char *, size_t, const char *);
/* The string at off, unescaped into dst; the test fails if it is not. */
size_t	 json_text(const char *, size_t, size_t, char *, size_t);
/* 1 when the value at off is written exactly as raw. */
int	 json_raw_is(const char *, size_t, size_t, const char *);
/* The members of the object (elements of the array) at off. */
size_t	 json_count(const char *, size_t, size_t);

#endif /* REGRESS_STORE_H */
