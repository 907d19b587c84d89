/*
 * The privilege-separated process machinery: the process table, the
 * channel mesh, and what every child does between exec and its loop.
 */

#ifndef CMCP_PROC_H
#define CMCP_PROC_H

#include <sys/types.h>

#include "cmcp.h"
#include "imsg.h"

#define PROC_BIT(id)	(1U << (id))

struct privsep_proc {
	enum cmcp_proc	 p_id;
	__dead void	(*p_main)(const struct ctl_init *);
	unsigned int	 p_peers;	/* PROC_BIT() of each peer */
	unsigned int	 p_fdpeers;	/* the peers it sends descriptors to */
};

/*
 * A child's handler for the messages arriving on one channel.  On the
 * parent's, the machinery takes the messages every child gets (start,
 * stopping, shutdown, probe) and passes on only the process's own.
 */
struct proc_handler {
	enum cmcp_proc	 ph_peer;
	void		(*ph_dispatch)(struct imsg *);
};

/* What a child does at the parent's word, where it has something to. */
struct proc_hooks {
	void		(*ph_start)(void);	/* every child is ready */
	void		(*ph_stopping)(void);	/* orderly shutdown begun */
	void		(*ph_shutdown)(void);	/* last work before exit */
};

__BEGIN_DECLS
/* proc.c */
const struct privsep_proc *proc_bytitle(const char *);
const char	*proc_title(enum cmcp_proc);
void		 proc_spawn(int, int, pid_t [PROC_MAX], int [PROC_MAX]);
__dead void	 proc_child(const char *, int, int);
void		 proc_chan_open(enum cmcp_proc, int,
		    void (*)(struct imsg *), void (*)(enum cmcp_proc));
void		 proc_chan_close(enum cmcp_proc);
void		 proc_chan_reap(enum cmcp_proc);
int		 proc_chan_isopen(enum cmcp_proc);
void		 proc_compose(enum cmcp_proc, uint32_t, const void *,
		    size_t);
void		 proc_compose_fd(enum cmcp_proc, uint32_t, int, const void *,
		    size_t);
void		 proc_compose_id(enum cmcp_proc, uint32_t, uint32_t,
		    const void *, size_t);
void		 proc_flush(enum cmcp_proc);
__dead void	 proc_unexpected(enum cmcp_proc, struct imsg *);
void		 proc_listen(const struct proc_handler *, size_t,
		    const struct proc_hooks *);
void		 proc_recv_early(uint32_t, struct imsg *);
int		 proc_recv_sync(enum cmcp_proc, struct imsg *, int64_t);
void		 proc_ready(void);
void		 proc_stopping(void);
#ifdef CMCP_TEST
const char	*proc_probe_name(int);
int		 proc_probe_byname(const char *);
void		 proc_probe_run(int, pid_t);
#endif

/* privdrop.c */
int		 priv_check_dir(const char *, uid_t, mode_t);
void		 priv_drop(enum cmcp_proc, const struct ctl_init *);
void		 priv_nodump(void);

/* preflight.c */
int		 preflight_core_pattern(const char *);

/* the children, one directory each */
__dead void	 bridge_main(const struct ctl_init *);
__dead void	 gw_main(const struct ctl_init *);
__dead void	 audit_main(const struct ctl_init *);
__dead void	 wd_main(const struct ctl_init *);
__dead void	 dkr_main(const struct ctl_init *);
__END_DECLS

#endif /* CMCP_PROC_H */
