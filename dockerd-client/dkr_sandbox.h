/*
 * The sandbox tool's container side (DESIGN 11): agent-supplied source run
 * over operator-selected input in a one-shot container of the hardened
 * profile, cmcp-init as PID 1 with the tool's deadline, the runner
 * (examples/store/sandbox-runner) as the unprivileged workload.
 *
 * The source and the input go in over the attached stdin in the runner's
 * framing, "<source-bytes> SP <input-bytes> LF <source><input>": no host
 * directory is mounted and nothing is written on the host.  stdout is read
 * up to the tool's output bound, stderr is counted and dropped.
 *
 * Outcomes, from the container's exit status (init/cmcp-init.h) and from
 * what the host saw:
 *
 *	COMPLETED	the container exited by itself with 0..124, 127 or
 *			129..192: the program's exit status, or 128 + the
 *			signal that killed it.  The output is returned.
 *	TIME_LIMIT	cmcp-init's deadline status 250, or the container
 *			still running at the host's backstop (the deadline
 *			plus DKR_SANDBOX_MARGIN_MS after start): killed.
 *	OUTPUT_LIMIT	more than the output bound on stdout (or more than
 *			DKR_SANDBOX_STDERR_BYTES on stderr): reading stops
 *			at the first byte over, the container is killed.
 *	TOOL_FAILED	the tool chain, not the program, gave the status or
 *			the run broke: 251 (cmcp-init refused or could not
 *			exec the runner), 125 (the runner refused the
 *			framing), 126 (the runner could not set up or exec
 *			busybox), 128, any status cmcp-init never produces,
 *			a malformed attach stream, an engine error after
 *			the container was created.
 *
 * 128 is what cmcp-init reports for every program exit status of 128 or
 * more, the deadline's own 250 and cmcp-init's 251 included: such a status
 * cannot be told apart from the reserved ones, so it is never reported as
 * a program status, and it can never become TIME_LIMIT.  125 and 126 are
 * the runner's; a program that exits with them is reported TOOL_FAILED
 * too.  A program can thus make its run look failed, never timed out or
 * cut short, and never completed when it was not.  Output is returned with
 * COMPLETED only.
 *
 * REFUSED: no byte of the source or the input reached a container.  The
 * source is empty, holds a NUL or is over the tool's source bound, the
 * input is over its bound, the spec is invalid, the engine is unreachable
 * or fails the daemon check, the image is not there or fails image
 * admission (each before any container exists); or the engine refused the
 * create, warned, or the container failed the profile check after create
 * or after start, or attach or start failed (the container is removed).
 * Code never runs on the host in any case.
 *
 * Cleanup always: SIGKILL, DELETE ?force=1&v=1, then an inspect must say
 * 404; only then is gone set.
 */

#ifndef DKR_SANDBOX_H
#define DKR_SANDBOX_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "cmcp.h"
#include "dkr.h"
#include "sbstream.h"

/* Defaults of a sandbox tool (cmcp-privsep.conf(5)). */
#define DKR_SANDBOX_UID			65534
#define DKR_SANDBOX_GID			65534
#define DKR_SANDBOX_MEMORY_BYTES	(256LL * 1024 * 1024)
#define DKR_SANDBOX_PIDS		64
#define DKR_SANDBOX_NOFILE		64
#define DKR_SANDBOX_RUNNER		"/sandbox-runner"
#define DKR_SANDBOX_ENV			"PATH=/bin"

/* stderr is counted, never stored; past this the run is cut. */
#define DKR_SANDBOX_STDERR_BYTES	SB_STDERR_BYTES
/* The host's backstop: this long after the in-container deadline. */
#define DKR_SANDBOX_MARGIN_MS		SANDBOX_MARGIN_MS
/* After the end of the stream the container is exiting by itself. */
#define DKR_SANDBOX_EXIT_WAIT_MS	3000
/* After SIGKILL its exit is prompt. */
#define DKR_SANDBOX_KILL_WAIT_MS	5000
/* The engine's answers during a run. */
#define DKR_SANDBOX_CALL_TIMEOUT_MS	10000

/* The runner's own statuses (examples/store/sandbox-runner.c). */
#define DKR_SANDBOX_RUNNER_FRAMING	125
#define DKR_SANDBOX_RUNNER_EXEC		126

enum dkr_sandbox_outcome {
	DKR_SB_REFUSED =	SANDBOX_REFUSED,	/* nothing ran */
	DKR_SB_COMPLETED =	SANDBOX_COMPLETED,
	DKR_SB_TIME_LIMIT =	SANDBOX_TIME_LIMIT,
	DKR_SB_OUTPUT_LIMIT =	SANDBOX_OUTPUT_LIMIT,
	DKR_SB_TOOL_FAILED =	SANDBOX_TOOL_FAILED
};

/*
 * One sandbox tool, plain data: what the configuration says, plus the
 * engine's socket and the labels of the run.  dkr_sandbox_defaults()
 * fills the defaults; then the caller sets image, init_path, sock,
 * instance and session.
 */
struct dkr_sandbox_spec {
	char	 sock[108];				/* the engine */
	char	 image[DKR_IMAGE_ID_BYTES];		/* sha256:<64 hex> */
	char	 init_path[DKR_PATH_BYTES];		/* host cmcp-init */
	size_t	 argc;					/* the runner */
	char	 argv[DKR_ARGV_MAX][DKR_ARG_BYTES];
	uid_t	 uid;					/* never 0 */
	gid_t	 gid;					/* never 0 */
	int64_t	 memory_bytes;				/* = MemorySwap */
	int64_t	 pids;					/* and nproc */
	int64_t	 deadline_ms;				/* cmcp-init -t */
	size_t	 output_bytes;		/* <= SANDBOX_OUTPUT_BYTES */
	size_t	 source_bytes;		/* <= SANDBOX_SOURCE_BYTES */
	size_t	 input_bytes;		/* <= SANDBOX_INPUT_BYTES */
	char	 instance[DKR_LABEL_BYTES];
	char	 session[DKR_LABEL_BYTES];
#ifdef CMCP_TEST
	int	 weaken;	/* enum session_weaken: fields changed at create */
	int	 noadmit;	/* a failed profile check is ignored */
#endif
};

/*
 * How it went.  status is the container's exit status as cmcp-init gave
 * it (-1 unknown); with COMPLETED it is the program's.  out holds outlen
 * bytes, NUL-terminated, with COMPLETED only.  why is a fixed text,
 * never a byte from the engine or the container.
 */
struct dkr_sandbox_result {
	enum dkr_sandbox_outcome outcome;
	int64_t	 status;
	int	 created;		/* a container existed */
	int	 gone;			/* none left: absence seen as 404 */
	int	 killed;		/* the host killed it */
	char	 id[DKR_CONTAINER_ID_BYTES];	/* "" when none */
	uint64_t stdout_bytes;		/* received, at most bound + 1 */
	uint64_t stderr_bytes;		/* received, counted only */
	int64_t	 run_ms;		/* start to end of stream */
	int64_t	 total_ms;		/* first check to confirmed absence */
	size_t	 outlen;
	char	 out[SANDBOX_OUTPUT_BYTES + 1];
	char	 why[DKR_WHY_BYTES];
};

/*
 * A run between dkr_sandbox_start and dkr_sandbox_end: the container
 * runs and fd is its attach stream (non-blocking), with headlen bytes of
 * it already read in head.  Times are CLOCK_MONOTONIC milliseconds.
 */
struct dkr_sandbox_started {
	int	 fd;
	char	 head[DKR_ATTACH_HEAD_BYTES];
	size_t	 headlen;
	int64_t	 begin;		/* the check */
	int64_t	 t0;		/* the start */
};

__BEGIN_DECLS
/* The configuration's defaults; sock, image, init and labels stay "". */
void		 dkr_sandbox_defaults(struct dkr_sandbox_spec *);
/* 0: ran, outcome set, container gone; -1: refused, or not seen gone. */
int		 dkr_sandbox_run(const struct dkr_sandbox_spec *,
		    const char *, size_t, const char *, size_t,
		    struct dkr_sandbox_result *);
/* The same in steps, the stream pumped by another process in between. */
int		 dkr_sandbox_check(const struct dkr_sandbox_spec *, size_t,
		    size_t, struct dkr_sandbox_started *,
		    struct dkr_sandbox_result *);
int		 dkr_sandbox_start(struct dkr_client *,
		    const struct dkr_sandbox_spec *,
		    struct dkr_sandbox_started *, struct dkr_sandbox_result *);
int64_t		 dkr_sandbox_backstop(const struct dkr_sandbox_spec *,
		    const struct dkr_sandbox_started *);
void		 dkr_sandbox_end(struct dkr_client *,
		    struct dkr_sandbox_started *, enum sb_end,
		    struct dkr_sandbox_result *);
const char	*dkr_sandbox_outcome_str(enum dkr_sandbox_outcome);
/* The outcome of a container that exited by itself with this status. */
enum dkr_sandbox_outcome dkr_sandbox_status_outcome(int64_t);
__END_DECLS

#endif /* DKR_SANDBOX_H */
