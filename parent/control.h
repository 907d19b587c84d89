/*
 * The parent's control socket (cmcp-privsep(8) CONTROL SOCKET): revoke,
 * restore and status for the running session, from root or the
 * configured operator group only.  The client side is control_client().
 */

#ifndef PARENT_CONTROL_H
#define PARENT_CONTROL_H

#include "config.h"
#include "imsg.h"

void		 control_init(const struct cmcp_conf *);
void		 control_session(const char *);
void		 control_policy_ack(struct imsg *);
void		 control_status_reply(struct imsg *);
__dead void	 control_client(const char *, int, char *[]);
#ifdef CMCP_TEST
extern int	 control_forward_unknown;
extern int	 control_replay;
#endif

#endif /* PARENT_CONTROL_H */
