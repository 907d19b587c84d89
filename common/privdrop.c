/*
 * Privilege drop of a child, in the order of privsep.md 2.3: check and
 * enter the chroot, drop groups, gid and uid for good, prove that root
 * cannot be regained, then make the process undumpable and unable to
 * gain privileges through exec.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <grp.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"

/*
 * A directory a process may be confined to: a real directory (not a
 * symlink) owned by owner, with none of the forbidden mode bits.
 */
int
priv_check_dir(const char *path, uid_t owner, mode_t forbidden)
{
	struct stat	 st;

	if (lstat(path, &st) == -1) {
		log_warn("%s", path);
		return (-1);
	}
	if (!S_ISDIR(st.st_mode)) {
		log_warnx("%s: not a directory", path);
		return (-1);
	}
	if (st.st_uid != owner) {
		log_warnx("%s: owned by uid %u, must be uid %u", path,
		    (unsigned int)st.st_uid, (unsigned int)owner);
		return (-1);
	}
	if ((st.st_mode & forbidden) != 0) {
		log_warnx("%s: mode %04o allows group or other access",
		    path, (unsigned int)(st.st_mode & 07777));
		return (-1);
	}
	return (0);
}

void
priv_drop(enum cmcp_proc id, const struct ctl_init *ci)
{
	gid_t		 groups[2], rgid, egid, sgid;
	uid_t		 ruid, euid, suid;
	int		 ngroups, bad;

	if (ci->ci_uid == 0 || ci->ci_gid == 0)
		fatalx("refusing to run with uid or gid 0");

	/*
	 * The auditor's root is its own data directory, closed to everyone
	 * else; the others get an empty directory they cannot write.
	 */
	if (id == PROC_AUDITOR)
		bad = priv_check_dir(ci->ci_chroot, ci->ci_uid,
		    S_IRWXG | S_IRWXO);
	else
		bad = priv_check_dir(ci->ci_chroot, 0, S_IWGRP | S_IWOTH);
	if (bad)
		fatalx("refusing chroot %s", ci->ci_chroot);
	if (chroot(ci->ci_chroot) == -1)
		fatal("chroot %s", ci->ci_chroot);
	if (chdir("/") == -1)
		fatal("chdir /");

	if (ci->ci_has_sgid) {
		if (setgroups(1, &ci->ci_sgid) == -1)
			fatal("setgroups");
	} else if (setgroups(0, NULL) == -1)
		fatal("setgroups");
	if (setresgid(ci->ci_gid, ci->ci_gid, ci->ci_gid) == -1)
		fatal("setresgid %u", (unsigned int)ci->ci_gid);
	if (setresuid(ci->ci_uid, ci->ci_uid, ci->ci_uid) == -1)
		fatal("setresuid %u", (unsigned int)ci->ci_uid);

	/* Irreversible, and exactly the ids asked for. */
	if (setgid(0) != -1 || setegid(0) != -1 ||
	    setuid(0) != -1 || seteuid(0) != -1)
		fatalx("root can be regained after the privilege drop");
	if (getresgid(&rgid, &egid, &sgid) == -1 ||
	    getresuid(&ruid, &euid, &suid) == -1)
		fatal("getresuid");
	if (rgid != ci->ci_gid || egid != ci->ci_gid || sgid != ci->ci_gid ||
	    ruid != ci->ci_uid || euid != ci->ci_uid || suid != ci->ci_uid)
		fatalx("ids differ from the ones set");
	if ((ngroups = getgroups(nitems(groups), groups)) == -1)
		fatal("getgroups");
	if (ngroups != (ci->ci_has_sgid ? 1 : 0) ||
	    (ngroups == 1 && groups[0] != ci->ci_sgid))
		fatalx("supplementary groups differ from the ones set");

	priv_nodump();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("prctl PR_SET_NO_NEW_PRIVS");
}

/* No core file and no ptrace by the same uid: memory stays in here. */
void
priv_nodump(void)
{
	struct rlimit	 rl;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("prctl PR_SET_DUMPABLE");
	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_CORE, &rl) == -1)
		fatal("setrlimit RLIMIT_CORE");
}
