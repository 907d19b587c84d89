/*
 * The containers' seccomp profile (dkr_seccomp.h): the table, and the
 * JSON of Docker's profile format built from it.
 *
 * The table is what regress/docker/syscalls-measure measured with
 * strace -f on the host (cmcp-init as PID 1 of new pid and network
 * namespaces, as uid 10001 with no capabilities) and then in real
 * containers of the suite's profile under a logging filter, to a fixed
 * point, then with everything else refused: "all" below is every
 * measured workload (the shell agents, agent-script, mcp-recorder, the
 * sandbox runner, the relay, node loading the MCP SDK), each of which
 * starts under cmcp-init.  Then the whole regress suite ran under the
 * logging profile (regress/docker/syscalls-suite, a tree built with
 * make SECCOMP_MEASURE=1): the calls its containers made outside the
 * table are below under "suite", each with the program that made it;
 * the ones only its attacks made (sockets of other families, ptrace,
 * process_vm_readv, sendto/setsockopt/getsockopt on those sockets) stay
 * out.  Everything else is refused with EPERM, so that a program
 * probing a feature gets an error, not a kill.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dkr_seccomp.h"
#include "json.h"
#include "sha256.h"

const struct dkr_sc_call dkr_sc_calls[] = {
	/* all: the C runtime's start, memory, exit (cmcp-init, static C) */
	{ "arch_prctl",		DKR_SC_ALLOW },
	{ "brk",		DKR_SC_ALLOW },
	{ "mprotect",		DKR_SC_ALLOW },
	{ "rseq",		DKR_SC_ALLOW },
	{ "set_robust_list",	DKR_SC_ALLOW },
	{ "set_tid_address",	DKR_SC_ALLOW },
	{ "getrandom",		DKR_SC_ALLOW },
	{ "readlink",		DKR_SC_ALLOW },	/* /proc/self/exe */
	{ "prlimit64",		DKR_SC_ALLOW },
	{ "exit_group",		DKR_SC_ALLOW },
	/* all: cmcp-init supervising its workload */
	{ "capget",		DKR_SC_ALLOW },	/* no capabilities left */
	{ "getpid",		DKR_SC_ALLOW },
	{ "getresuid",		DKR_SC_ALLOW },
	{ "getresgid",		DKR_SC_ALLOW },
	{ "prctl",		DKR_SC_ALLOW },	/* dumpable, no_new_privs */
	{ "signalfd4",		DKR_SC_ALLOW },
	{ "rt_sigaction",	DKR_SC_ALLOW },
	{ "rt_sigprocmask",	DKR_SC_ALLOW },
	{ "poll",		DKR_SC_ALLOW },
	{ "pipe2",		DKR_SC_ALLOW },
	{ "wait4",		DKR_SC_ALLOW },
	{ "execve",		DKR_SC_ALLOW },
	/* all: a process of its own, never a namespace (flags checked) */
	{ "clone",		DKR_SC_CLONE },
	/* node's threads: its flags are out of reach, so ENOSYS, and glibc
	 * falls back to clone above */
	{ "clone3",		DKR_SC_ENOSYS },
	/* all: stdio and files */
	{ "read",		DKR_SC_ALLOW },
	{ "write",		DKR_SC_ALLOW },
	{ "close",		DKR_SC_ALLOW },
	/* runc's init after it installed the filter: /proc/self/fd is procfs */
	{ "fstatfs",		DKR_SC_ALLOW },
	/* busybox sh, the sandbox runner, node, mcp-recorder */
	{ "openat",		DKR_SC_ALLOW },
	{ "newfstatat",		DKR_SC_ALLOW },
	{ "fcntl",		DKR_SC_ALLOW },
	{ "dup2",		DKR_SC_ALLOW },
	{ "getuid",		DKR_SC_ALLOW },
	{ "getgid",		DKR_SC_ALLOW },
	{ "setuid",		DKR_SC_ALLOW },	/* busybox: to its own uid */
	{ "setgid",		DKR_SC_ALLOW },	/* busybox: to its own gid */
	{ "getppid",		DKR_SC_ALLOW },
	{ "uname",		DKR_SC_ALLOW },
	{ "getcwd",		DKR_SC_ALLOW },
	/* busybox applets of the shell agents and sandbox scripts */
	{ "clock_nanosleep",	DKR_SC_ALLOW },	/* sleep */
	{ "getdents64",		DKR_SC_ALLOW },	/* ls */
	{ "lseek",		DKR_SC_ALLOW },
	{ "ioctl",		DKR_SC_ALLOW },	/* isatty */
	{ "mmap",		DKR_SC_ALLOW },
	{ "munmap",		DKR_SC_ALLOW },
	{ "rt_sigreturn",	DKR_SC_ALLOW },
	{ "sendfile",		DKR_SC_ALLOW },	/* cat */
	/* the sandbox runner: nothing but the script's fds to busybox */
	{ "close_range",	DKR_SC_ALLOW },
	/* the relay (cmcp-init -r and -c): one abstract AF_UNIX socket */
	{ "socket",		DKR_SC_AF_UNIX },
	{ "bind",		DKR_SC_ALLOW },
	{ "listen",		DKR_SC_ALLOW },
	{ "accept4",		DKR_SC_ALLOW },
	{ "connect",		DKR_SC_ALLOW },
	{ "sendmsg",		DKR_SC_ALLOW },
	{ "recvmsg",		DKR_SC_ALLOW },
	/* suite: signals to a process of its own (busybox kill, a shell's
	 * kill -9 $$; the pid namespace and PID 1's ignored signals bound
	 * them), a session of its own (busybox setsid), a sleep resumed
	 * after a signal (the kernel's restart of cmcp-init's and sleep's
	 * waits), the groups it has (busybox id, the report fixture), a
	 * signal to a thread of its own (raise(3) and abort(3): agent-script,
	 * the adversary), an alarm (busybox nc -w and timeout) */
	{ "kill",		DKR_SC_ALLOW },
	{ "setsid",		DKR_SC_ALLOW },
	{ "tgkill",		DKR_SC_ALLOW },
	{ "alarm",		DKR_SC_ALLOW },
	{ "restart_syscall",	DKR_SC_ALLOW },
	{ "getgroups",		DKR_SC_ALLOW },
	/* busybox sh: wait for a child still running (the signal awaited,
	 * a race the suite's run under the logging profile missed and a CI
	 * run met: strace of the shell's builtins on the host), and its
	 * applets' vfork (no flags: never a namespace) */
	{ "rt_sigsuspend",	DKR_SC_ALLOW },
	{ "vfork",		DKR_SC_ALLOW },
	/* suite: busybox sort's and realloc's growth, touch; a directory
	 * changed to or made (sh's cd; the adversary's, where the read-only
	 * root, not this profile, is what refuses it) */
	{ "mremap",		DKR_SC_ALLOW },
	{ "utimensat",		DKR_SC_ALLOW },
	{ "chdir",		DKR_SC_ALLOW },
	{ "mkdir",		DKR_SC_ALLOW },
	/* suite: the test servers waiting for their end (mcp-recorder -k,
	 * mcp-hostile, mcp-escape) */
	{ "pause",		DKR_SC_ALLOW },
	/* suite: SQLite in a server's container (store-mcp's database on
	 * its rw mount: journal writes, syncs, the journal's removal) */
	{ "pwrite64",		DKR_SC_ALLOW },
	{ "fdatasync",		DKR_SC_ALLOW },
	{ "unlink",		DKR_SC_ALLOW },
	/* suite: runc's init and node yielding */
	{ "sched_yield",	DKR_SC_ALLOW },
	/* suite: node's child processes' stdio (libuv): a pair of AF_UNIX
	 * sockets, shut down at the child's end */
	{ "socketpair",		DKR_SC_AF_UNIX },
	{ "shutdown",		DKR_SC_ALLOW },
	/* node (the MCP front door's agents, node servers) */
	{ "access",		DKR_SC_ALLOW },
	{ "epoll_create1",	DKR_SC_ALLOW },
	{ "epoll_ctl",		DKR_SC_ALLOW },
	{ "epoll_pwait",	DKR_SC_ALLOW },
	{ "eventfd2",		DKR_SC_ALLOW },
	{ "exit",		DKR_SC_ALLOW },	/* its threads */
	{ "fstat",		DKR_SC_ALLOW },
	{ "futex",		DKR_SC_ALLOW },
	{ "getegid",		DKR_SC_ALLOW },
	{ "geteuid",		DKR_SC_ALLOW },
	{ "gettid",		DKR_SC_ALLOW },
	{ "madvise",		DKR_SC_ALLOW },
	{ "pkey_alloc",		DKR_SC_ALLOW },
	{ "pread64",		DKR_SC_ALLOW },
	{ "sched_getaffinity",	DKR_SC_ALLOW },
	{ "statx",		DKR_SC_ALLOW },
	{ "sysinfo",		DKR_SC_ALLOW },
};
const size_t dkr_sc_ncalls = sizeof(dkr_sc_calls) / sizeof(dkr_sc_calls[0]);

static cJSON	*sc_rule(enum dkr_sc_rule, const char **, size_t);
static cJSON	*sc_arg(unsigned long, unsigned long, const char *);
static char	*sc_build(int, const char *);
static char	*sc_canon(const char *, size_t, size_t *);
static char	*sc_canonical(char *);

static const struct json_limits sc_limits = { DKR_SECCOMP_BYTES - 1, 8 };

/* What is sent: the measurement build's logging profile, else ours. */
#ifdef DKR_SECCOMP_MEASURE
#define SC_SENT_LOG	1
#else
#define SC_SENT_LOG	0
#endif

/* {"index":0,"value":V,"valueTwo":V2,"op":OP} */
static cJSON *
sc_arg(unsigned long value, unsigned long value2, const char *op)
{
	cJSON	*a;

	if ((a = cJSON_CreateObject()) == NULL ||
	    cJSON_AddNumberToObject(a, "index", 0) == NULL ||
	    cJSON_AddNumberToObject(a, "value", (double)value) == NULL ||
	    cJSON_AddNumberToObject(a, "valueTwo", (double)value2) == NULL ||
	    cJSON_AddStringToObject(a, "op", op) == NULL) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}

/* One entry of "syscalls": the names of one rule, in table order. */
static cJSON *
sc_rule(enum dkr_sc_rule rule, const char **names, size_t n)
{
	cJSON	*e, *v, *args = NULL, *a = NULL;
	size_t	 i;

	if ((e = cJSON_CreateObject()) == NULL)
		return NULL;
	if ((v = cJSON_AddArrayToObject(e, "names")) == NULL)
		goto fail;
	for (i = 0; i < n; i++)
		if (!cJSON_AddItemToArray(v, cJSON_CreateString(names[i])))
			goto fail;
	switch (rule) {
	case DKR_SC_ENOSYS:
		if (cJSON_AddStringToObject(e, "action", "SCMP_ACT_ERRNO") ==
		    NULL || cJSON_AddNumberToObject(e, "errnoRet",
		    DKR_SECCOMP_ENOSYS) == NULL)
			goto fail;
		return e;
	case DKR_SC_CLONE:
		a = sc_arg(DKR_SECCOMP_CLONE_NEW, 0, "SCMP_CMP_MASKED_EQ");
		break;
	case DKR_SC_AF_UNIX:
		a = sc_arg(DKR_SECCOMP_AF_UNIX, 0, "SCMP_CMP_EQ");
		break;
	case DKR_SC_ALLOW:
		break;
	}
	if (cJSON_AddStringToObject(e, "action", "SCMP_ACT_ALLOW") == NULL)
		goto fail;
	if (rule != DKR_SC_ALLOW) {
		if (a == NULL || (args = cJSON_AddArrayToObject(e, "args")) ==
		    NULL || !cJSON_AddItemToArray(args, a))
			goto fail;
		a = NULL;
	}
	return e;
 fail:
	cJSON_Delete(a);
	cJSON_Delete(e);
	return NULL;
}

/*
 * The profile's JSON: the table's calls by rule, in table order, and
 * extra (the test build's one call added) first among the allowed.
 */
static char *
sc_build(int log, const char *extra)
{
	static const enum dkr_sc_rule	 rules[] = {
		DKR_SC_ALLOW, DKR_SC_CLONE, DKR_SC_AF_UNIX, DKR_SC_ENOSYS
	};
	const char	**names;
	cJSON		 *root, *arch, *calls, *e;
	char		 *s = NULL;
	size_t		  i, r, n;

	if ((names = calloc(dkr_sc_ncalls + 1, sizeof(*names))) == NULL)
		return NULL;
	if ((root = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(root, "defaultAction",
	    log ? "SCMP_ACT_LOG" : "SCMP_ACT_ERRNO") == NULL ||
	    (!log && cJSON_AddNumberToObject(root, "defaultErrnoRet",
	    DKR_SECCOMP_ERRNO) == NULL) ||
	    (arch = cJSON_AddArrayToObject(root, "architectures")) == NULL ||
	    !cJSON_AddItemToArray(arch,
	    cJSON_CreateString("SCMP_ARCH_X86_64")) ||
	    (calls = cJSON_AddArrayToObject(root, "syscalls")) == NULL)
		goto done;
	for (r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		n = 0;
		if (extra != NULL && rules[r] == DKR_SC_ALLOW)
			names[n++] = extra;
		for (i = 0; i < dkr_sc_ncalls; i++)
			if (dkr_sc_calls[i].rule == rules[r])
				names[n++] = dkr_sc_calls[i].name;
		if (n == 0)
			continue;
		/* a rule with an argument check is one entry a name */
		if (rules[r] == DKR_SC_ALLOW || rules[r] == DKR_SC_ENOSYS) {
			if ((e = sc_rule(rules[r], names, n)) == NULL)
				goto done;
			cJSON_AddItemToArray(calls, e);
			continue;
		}
		for (i = 0; i < n; i++) {
			if ((e = sc_rule(rules[r], &names[i], 1)) == NULL)
				goto done;
			cJSON_AddItemToArray(calls, e);
		}
	}
	s = cJSON_PrintUnformatted(root);
 done:
	cJSON_Delete(root);
	free(names);
	return s;
}

char *
dkr_seccomp_json(int log)
{
	return sc_build(log, NULL);
}

/*
 * json[0..len) in its canonical form, malloc'd, its length in *clen;
 * NULL if refused or larger than DKR_SECCOMP_BYTES.
 */
static char *
sc_canon(const char *json, size_t len, size_t *clen)
{
	char	*c;

	if ((c = malloc(DKR_SECCOMP_BYTES)) != NULL &&
	    json_canon(json, len, &sc_limits, c, DKR_SECCOMP_BYTES, clen) !=
	    JSON_OK) {
		free(c);
		c = NULL;
	}
	return c;
}

/* s (consumed) in its canonical form, malloc'd; NULL if refused. */
static char *
sc_canonical(char *s)
{
	char	*c;
	size_t	 len;

	if (s == NULL)
		return NULL;
	c = sc_canon(s, strlen(s), &len);
	free(s);
	return c;
}

const char *
dkr_seccomp_profile(void)
{
	static char	*profile;

	if (profile == NULL)
		profile = sc_canonical(sc_build(SC_SENT_LOG, NULL));
	return profile;
}

int
dkr_seccomp_digest(const char *json, size_t len,
    uint8_t digest[SHA256_DIGEST_BYTES])
{
	char	*c;
	size_t	 clen;

	if ((c = sc_canon(json, len, &clen)) == NULL)
		return -1;
	sha256(c, clen, digest);
	free(c);
	return 0;
}

int
dkr_seccomp_ours(uint8_t digest[SHA256_DIGEST_BYTES])
{
	static uint8_t	 ours[SHA256_DIGEST_BYTES];
	static int	 done;
	const char	*p;

	if (!done) {
		if ((p = dkr_seccomp_profile()) == NULL)
			return -1;
		sha256(p, strlen(p), ours);
		done = 1;
	}
	memcpy(digest, ours, sizeof(ours));
	return 0;
}

#ifdef CMCP_TEST
char *
dkr_seccomp_json_plus(const char *name)
{
	return sc_canonical(sc_build(0, name));
}
#endif
