/*
 * The parsed configuration (cmcp-privsep.conf(5)).  parse.y fills it,
 * printconf.c prints it in normalized form.
 *
 * Fields marked STABLE are used by the process machinery; keep their names.
 */

#ifndef CMCP_CONFIG_H
#define CMCP_CONFIG_H

#include <sys/types.h>
#include <sys/queue.h>

#include <limits.h>
#include <stdio.h>

#include "cmcp.h"

struct conf_user {				/* STABLE */
	char		 name[64];	/* as written, "" when numeric */
	uid_t		 uid;
	gid_t		 gid;
	int		 has_group;	/* supplementary group set */
	char		 group[64];	/* as written, "" when numeric */
	gid_t		 sgid;
};

struct cmcp_conf {
	char		 c_file[PATH_MAX];			/* STABLE */
	struct conf_user c_users[PROC_MAX];	/* STABLE, [PROC_PARENT] unused */
	char		 c_chroot[PATH_MAX];			/* STABLE */
	char		 c_audit_db[PATH_MAX];			/* STABLE */
	char		 c_docker_socket[PATH_MAX];		/* STABLE */
	char		 c_control_socket[PATH_MAX];		/* STABLE */
	/* the rest of the grammar follows */
};

__BEGIN_DECLS
/* NULL on error, after printing "file:line: message" lines to stderr */
struct cmcp_conf	*parse_config(const char *);
void			 print_config(const struct cmcp_conf *, FILE *);
void			 free_config(struct cmcp_conf *);
__END_DECLS

#endif /* CMCP_CONFIG_H */
