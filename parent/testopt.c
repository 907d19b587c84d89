/*
 * The test build's -X options (cmcp-privsep-test only, never the suite):
 * what they change is read where it applies, under CMCP_TEST; the probes
 * are sent from here once every child is ready.
 */

#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include "control.h"
#include "log.h"
#include "parent.h"
#include "proc.h"

#ifndef CMCP_TEST
#error "testopt.c is the test build's only"
#endif

struct parent_testopt	 parent_test = { CMCP_CORE_PATTERN, { { 0, 0 } }, 0,
    0, 0, 0, WEAKEN_NONE, NULL, -1, 0, 0, 0, 0 };

/*
 * Test build only: -X corepattern=PATH, -X probe=PROC:ATTEMPT,
 * -X nosandbox=PROC, -X noready=PROC, -X nosession (run starts the
 * children and no session), -X weaken=network|rootfs|logs|core|mount_rw|
 * seccomp_default|seccomp_unconfined|seccomp_plus|apparmor (a profile field
 * weakened at create, mount_rw a server's ro binds made read-write, the
 * seccomp ones the engine's default profile, none, or ours with
 * io_uring_setup allowed, apparmor=unconfined asked for, for admission
 * to refuse; repeated, the fields
 * combine: a core dump needs weaken=core and a writable place such as
 * weaken=rootfs), -X stdout=FILE (the
 * bridge copies the workload's stdout there), -X nowatchdog (the watchdog
 * never asks for the stop), -X noackcheck (the bridge ignores a missing
 * ack), -X noauditwait (the gateway calls without waiting for the
 * decision record's ack), -X noadmit (dockerd-client logs an admission
 * refusal and goes on: the causal mutations of regress/evidence).
 */
void
parent_test_option(const char *spec)
{
	const struct privsep_proc	*p;
	struct parent_probe		*pp;
	char				 buf[64], *attempt;

	if (strncmp(spec, "corepattern=", 12) == 0) {
		parent_test.corepattern = spec + 12;
		return;
	}
	if (strncmp(spec, "nosandbox=", 10) == 0) {
		if ((p = proc_bytitle(spec + 10)) == NULL)
			fatalx("-X %s: unknown process", spec);
		parent_test.nosandbox |= PROC_BIT(p->p_id);
		return;
	}
	if (strcmp(spec, "nosession") == 0) {
		parent_test.nosession = 1;
		return;
	}
	if (strncmp(spec, "weaken=", 7) == 0) {
		if (strcmp(spec + 7, "network") == 0)
			parent_test.weaken |= WEAKEN_NETWORK;
		else if (strcmp(spec + 7, "rootfs") == 0)
			parent_test.weaken |= WEAKEN_ROOTFS;
		else if (strcmp(spec + 7, "logs") == 0)
			parent_test.weaken |= WEAKEN_LOGS;
		else if (strcmp(spec + 7, "core") == 0)
			parent_test.weaken |= WEAKEN_CORE;
		else if (strcmp(spec + 7, "mount_rw") == 0)
			parent_test.weaken |= WEAKEN_MOUNT_RW;
		else if (strcmp(spec + 7, "seccomp_default") == 0)
			parent_test.weaken |= WEAKEN_SECCOMP_DEFAULT;
		else if (strcmp(spec + 7, "seccomp_unconfined") == 0)
			parent_test.weaken |= WEAKEN_SECCOMP_UNCONFINED;
		else if (strcmp(spec + 7, "seccomp_plus") == 0)
			parent_test.weaken |= WEAKEN_SECCOMP_PLUS;
		else if (strcmp(spec + 7, "apparmor") == 0)
			parent_test.weaken |= WEAKEN_APPARMOR;
		else
			fatalx("-X %s: unknown field", spec);
		return;
	}
	if (strncmp(spec, "stdout=", 7) == 0) {
		parent_test.stdout_path = spec + 7;
		return;
	}
	if (strcmp(spec, "noadmit") == 0) {
		parent_test.noadmit = 1;
		return;
	}
	if (strcmp(spec, "control-unknown") == 0) {
		control_forward_unknown = 1;
		return;
	}
	if (strcmp(spec, "control-replay") == 0) {
		control_replay = 1;
		return;
	}
	if (strcmp(spec, "nowatchdog") == 0) {
		parent_test.nowatchdog = 1;
		return;
	}
	if (strcmp(spec, "noackcheck") == 0) {
		parent_test.noackcheck = 1;
		return;
	}
	if (strcmp(spec, "noauditwait") == 0) {
		parent_test.noauditwait = 1;
		return;
	}
	if (strncmp(spec, "noready=", 8) == 0) {
		if ((p = proc_bytitle(spec + 8)) == NULL ||
		    p->p_id == PROC_PARENT)
			fatalx("-X %s: unknown process", spec);
		parent_test.noready |= PROC_BIT(p->p_id);
		return;
	}
	if (strncmp(spec, "probe=", 6) == 0) {
		if (parent_test.nprobes == PARENT_PROBES)
			fatalx("-X %s: too many probes", spec);
		if (strlcpy(buf, spec + 6, sizeof(buf)) >= sizeof(buf) ||
		    (attempt = strchr(buf, ':')) == NULL)
			fatalx("-X %s: want probe=PROC:ATTEMPT", spec);
		*attempt++ = '\0';
		pp = &parent_test.probes[parent_test.nprobes];
		if ((p = proc_bytitle(buf)) == NULL)
			fatalx("-X %s: unknown process", spec);
		pp->pp_proc = p->p_id;
		if ((pp->pp_attempt = proc_probe_byname(attempt)) == -1)
			fatalx("-X %s: unknown attempt", spec);
		/* The parent must signal; ptrace is what it must not do. */
		if (pp->pp_proc == PROC_PARENT &&
		    pp->pp_attempt != PROBE_PTRACE)
			fatalx("-X %s: the parent probes only ptrace", spec);
		parent_test.nprobes++;
		return;
	}
	fatalx("-X %s: unknown test option", spec);
}

/* Once all are ready: each probe names a sibling as kill/ptrace target. */
void
parent_test_probes(void)
{
	struct parent_probe	*pp;
	struct ctl_probe	 cp;
	enum cmcp_proc		 sibling;
	size_t			 i;

	for (i = 0; i < parent_test.nprobes; i++) {
		pp = &parent_test.probes[i];
		sibling = pp->pp_proc % (PROC_MAX - 1) + 1;
		memset(&cp, 0, sizeof(cp));
		cp.cp_attempt = pp->pp_attempt;
		cp.cp_sibling = parent_children[sibling].pc_pid;
		log_debug("probe %s: %s", proc_title(pp->pp_proc),
		    proc_probe_name(pp->pp_attempt));
		if (pp->pp_proc == PROC_PARENT)
			proc_probe_run(pp->pp_attempt, cp.cp_sibling);
		else
			proc_compose(pp->pp_proc, IMSG_CTL_PROBE, &cp,
			    sizeof(cp));
	}
}
