/*
 * sandbox-runner -- the interpreter command of the store demo's sandbox
 * tool (DESIGN section 11).  Inside the one-shot container, cmcp-init
 * runs it as the unprivileged workload; it reads the agent's source and
 * the operator-selected input from its stdin, then becomes
 *
 *	busybox sh -c SOURCE sandbox
 *
 * with the input, and nothing else, on the shell's stdin.
 *
 *	sandbox-runner [busybox]
 *
 * busybox is the path of a busybox binary, /bin/busybox by default.
 *
 * Framing of stdin (everything the host writes to the container):
 *
 *	<source-bytes> SP <input-bytes> LF <source> <input>
 *
 * The header is two decimal numbers, each 0 or without leading zeros,
 * separated by one space and ended by one newline, at most
 * RUNNER_HEADER_BYTES bytes in all.  1 <= source-bytes <= 16384 and
 * 0 <= input-bytes <= 65536 (SANDBOX_SOURCE_BYTES, SANDBOX_INPUT_BYTES).
 * Exactly that many bytes of source, then of input, follow.  The source
 * is a shell script for busybox sh and may hold no NUL byte (it is passed
 * as an argument); the input may hold any bytes.  The runner reads exactly
 * the framed bytes and never waits for the end of stdin, so it works
 * whether or not the host closes its side; anything after the input is
 * never read and never reaches the script.
 *
 * Nothing is written to any file system (the container's root is read
 * only): the input is put into a pipe, sized for it, before the exec, and
 * the pipe's read end becomes the script's stdin.  The script inherits
 * stdout and stderr; its environment is only PATH=/bin.  There is no
 * fork: the script's exit status is the runner's.
 *
 * Exit status of the runner itself, before the exec:
 *
 *	125	the framing was refused: a bad header, a size out of range,
 *		stdin ended early, a NUL in the source, a read error
 *	126	the input pipe could not be set up or busybox not executed
 *
 * A message on stderr then says which, in fixed words: never a byte of
 * the source or the input.  Static, no library but libc.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNNER_SOURCE_BYTES	(16 * 1024)
#define RUNNER_INPUT_BYTES	(64 * 1024)
#define RUNNER_HEADER_BYTES	16	/* "16384 65536\n" is 12 */
#define RUNNER_BUSYBOX		"/bin/busybox"
#define RUNNER_EXIT_FRAMING	125
#define RUNNER_EXIT_EXEC	126

static char	 source[RUNNER_SOURCE_BYTES + 1];
static char	 input[RUNNER_INPUT_BYTES];

static void	 runner_fail(int, const char *) __attribute__((__noreturn__));
static void	 runner_header(size_t *, size_t *);
static int	 runner_number(const char *, size_t, size_t, size_t *);
static void	 runner_read(char *, size_t);
static int	 runner_input_pipe(size_t);

int
main(int argc, char *argv[])
{
	static char	*env[] = { "PATH=/bin", NULL };
	const char	*busybox = RUNNER_BUSYBOX;
	char		*av[5];
	sigset_t	 mask;
	size_t		 srclen, inlen;
	int		 fd;

	if (argc > 2) {
		fprintf(stderr, "usage: sandbox-runner [busybox]\n");
		return RUNNER_EXIT_EXEC;
	}
	if (argc == 2)
		busybox = argv[1];

	runner_header(&srclen, &inlen);
	runner_read(source, srclen);
	if (memchr(source, '\0', srclen) != NULL)
		runner_fail(RUNNER_EXIT_FRAMING, "NUL byte in the source");
	source[srclen] = '\0';
	runner_read(input, inlen);

	fd = runner_input_pipe(inlen);
	if (dup2(fd, STDIN_FILENO) == -1)
		runner_fail(RUNNER_EXIT_EXEC, "dup2");
	/* Nothing but stdin, stdout and stderr reaches the script. */
	if (close_range(3, ~0U, 0) == -1 && errno != ENOSYS)
		runner_fail(RUNNER_EXIT_EXEC, "close_range");

	/* What the runner may have inherited is not the script's. */
	sigemptyset(&mask);
	if (signal(SIGPIPE, SIG_DFL) == SIG_ERR ||
	    sigprocmask(SIG_SETMASK, &mask, NULL) == -1)
		runner_fail(RUNNER_EXIT_EXEC, "signals");

	/* busybox picks its applet by argv[0]; $0 of the script is argv[3]. */
	av[0] = "sh";
	av[1] = "-c";
	av[2] = source;
	av[3] = "sandbox";
	av[4] = NULL;
	execve(busybox, av, env);
	runner_fail(RUNNER_EXIT_EXEC, "cannot execute busybox");
}

static void
runner_fail(int status, const char *why)
{
	fprintf(stderr, "sandbox-runner: %s\n", why);
	exit(status);
}

/* Read the header byte by byte: nothing past its newline is consumed. */
static void
runner_header(size_t *srclen, size_t *inlen)
{
	char		 h[RUNNER_HEADER_BYTES];
	size_t		 n = 0, sp;
	ssize_t		 r;

	for (;;) {
		if (n == sizeof(h))
			runner_fail(RUNNER_EXIT_FRAMING, "header too long");
		r = read(STDIN_FILENO, h + n, 1);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			runner_fail(RUNNER_EXIT_FRAMING, "read error");
		if (r == 0)
			runner_fail(RUNNER_EXIT_FRAMING, "no header");
		if (h[n] == '\n')
			break;
		n++;
	}
	for (sp = 0; sp < n && h[sp] != ' '; sp++)
		;
	if (sp == n ||
	    runner_number(h, sp, RUNNER_SOURCE_BYTES, srclen) == -1 ||
	    runner_number(h + sp + 1, n - sp - 1, RUNNER_INPUT_BYTES,
	    inlen) == -1 || *srclen == 0)
		runner_fail(RUNNER_EXIT_FRAMING, "bad header");
}

/* s[0..n): a decimal number from 0 to max, 0 or without leading zero. */
static int
runner_number(const char *s, size_t n, size_t max, size_t *v)
{
	size_t		 i;

	if (n == 0 || n > 6 || (n > 1 && s[0] == '0'))
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (size_t)(s[i] - '0');
	}
	return *v <= max ? 0 : -1;
}

static void
runner_read(char *buf, size_t len)
{
	size_t		 got = 0;
	ssize_t		 r;

	while (got < len) {
		r = read(STDIN_FILENO, buf + got, len - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			runner_fail(RUNNER_EXIT_FRAMING, "read error");
		if (r == 0)
			runner_fail(RUNNER_EXIT_FRAMING, "stdin ended early");
		got += r;
	}
}

/*
 * A pipe holding the len bytes of input, write end closed: the read end.
 * The pipe is first made large enough for all of it, so the writes cannot
 * block and no helper process is needed; the write end is non-blocking
 * so that a pipe smaller than asked fails here instead of hanging.
 */
static int
runner_input_pipe(size_t len)
{
	size_t		 off = 0;
	ssize_t		 w;
	int		 p[2], sz;

	if (pipe2(p, O_CLOEXEC) == -1)
		runner_fail(RUNNER_EXIT_EXEC, "pipe");
	if ((sz = fcntl(p[1], F_GETPIPE_SZ)) == -1)
		runner_fail(RUNNER_EXIT_EXEC, "pipe size");
	if ((size_t)sz < len &&
	    ((sz = fcntl(p[1], F_SETPIPE_SZ, (int)len)) == -1 ||
	    (size_t)sz < len))
		runner_fail(RUNNER_EXIT_EXEC, "pipe too small for the input");
	if (fcntl(p[1], F_SETFL, O_NONBLOCK) == -1)
		runner_fail(RUNNER_EXIT_EXEC, "pipe flags");
	while (off < len) {
		w = write(p[1], input + off, len - off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			runner_fail(RUNNER_EXIT_EXEC, "input write");
		off += w;
	}
	close(p[1]);
	/* dup2() clears close-on-exec on the copy that becomes stdin. */
	return p[0];
}
