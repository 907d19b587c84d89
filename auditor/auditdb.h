/*
 * The audit store: an append-only, hash-chained table of the fixed records
 * of common/auditrec.h in one SQLite database (DESIGN 9).
 */

#ifndef CMCP_AUDITDB_H
#define CMCP_AUDITDB_H

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>

#include "auditrec.h"

#define AUDIT_BATCH_MAX		1024	/* records in one transaction */

/* audit_verify() */
#define AUDIT_VERIFY_OK		0
#define AUDIT_VERIFY_BROKEN	1

/* audit_show() */
#define AUDIT_SHOW_TEXT		0
#define AUDIT_SHOW_JSON		1

struct audit;

__BEGIN_DECLS
struct audit	*audit_open(const char *);
void		 audit_close(struct audit *);
int		 audit_append(struct audit *, struct audit_record *);
int		 audit_append_batch(struct audit *, struct audit_record *,
		    size_t);
void		 audit_tip(const struct audit *, struct audit_tip *);
uint64_t	 audit_durable(const struct audit *);
int		 audit_sync(struct audit *);

int		 audit_verify(const char *, const struct audit_tip *,
		    uint64_t *, uint64_t *);
int		 audit_show(const char *, FILE *, const char *, int);
__END_DECLS

#endif /* CMCP_AUDITDB_H */
