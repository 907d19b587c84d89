/*
 * The audit client (DESIGN 9): the one way the gateway, dockerd-client
 * and the parent send their records to the auditor and learn that they
 * are kept.  It numbers each record (the imsg peerid), checks that the
 * acks come back in order, one per record, and runs one timer: an ack
 * overdue by AUDIT_ACK_WAIT_MS, or the auditor's channel closed, fails
 * the client for good.
 *
 * A sender waits in one of two ways:
 *
 *	auditc_durable()	"durable before I act": the callback runs
 *				once the record is on stable storage; the
 *				act goes there and nowhere else.
 *	auditc_recorded()	"recorded": the callback runs once no
 *				record is outstanding, every one sent until
 *				then committed; it may report, nothing acts
 *				on it.
 *
 * auditc_send() sends a record and waits for nothing.  A failed client
 * sends nothing more and runs no callback: the owner's failure hook runs
 * once instead.  A process has one client, on its channel to the
 * auditor: auditc_dispatch() is a child's handler of that channel; the
 * parent's, which takes more messages, calls auditc_ack().
 */

#ifndef CMCP_AUDITCLIENT_H
#define CMCP_AUDITCLIENT_H

#include <sys/types.h>

#include <stdint.h>

#include "auditrec.h"
#include "cmcp.h"
#include "imsg.h"

/* The ack of the record waited for; NULL when nothing was outstanding. */
typedef void	(*auditc_cb)(const struct audit_ack *, void *);

__BEGIN_DECLS
void		 auditc_init(void (*)(void *), void *);
uint32_t	 auditc_send(const struct audit_record *);
uint32_t	 auditc_durable(const struct audit_record *, auditc_cb, void *);
int		 auditc_recorded(auditc_cb, void *);
void		 auditc_dispatch(struct imsg *);
void		 auditc_ack(struct imsg *);
void		 auditc_lost(void);
int		 auditc_failed(void);
__END_DECLS

#endif /* CMCP_AUDITCLIENT_H */
