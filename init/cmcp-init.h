/*
 * The exit status of cmcp-init, which is the exit status of the container.
 *
 *	0..127		the workload exited with this status
 *	128		the workload exited with a status of 128 or more
 *	129..192	the workload was killed by signal (status - 128)
 *	250		the deadline passed; cmcp-init ended the container
 *	251		cmcp-init refused to run, or could not start the
 *			workload
 *
 * The workload's own status is folded into 0..192, so 250 and 251 can only
 * come from cmcp-init: a workload cannot fake TIME_LIMIT by its exit code.
 * 137 is also what the container reports when the host or the OOM killer
 * SIGKILLs cmcp-init itself; the host tells those apart by what it did and
 * by State.OOMKilled.
 */

#ifndef CMCP_INIT_H
#define CMCP_INIT_H

#define CMCP_INIT_EXIT_HIGH	128
#define CMCP_INIT_SIG_BASE	128
#define CMCP_INIT_SIG_MAX	64
#define CMCP_INIT_TIME_LIMIT	250
#define CMCP_INIT_FAILED	251

/* The deadline argument, milliseconds. */
#define CMCP_INIT_MIN_MS	1
#define CMCP_INIT_MAX_MS	(24 * 60 * 60 * 1000)

/* Where the container sees the read-only bind of the binary. */
#define CMCP_INIT_TARGET	"/cmcp-init"

/* The relay's abstract socket name (-r and -c), in the container's netns. */
#define CMCP_INIT_RELAY		"cmcp-privsep.relay"

#endif /* CMCP_INIT_H */
