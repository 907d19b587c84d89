/*
 * Logging for the suite, after OpenBSD's log.c: stderr with -d, syslog in
 * the parent otherwise, and in a child a sink that hands each line to the
 * parent (which syslogs it).
 */

#ifndef CMCP_LOG_H
#define CMCP_LOG_H

#include <stdarg.h>

#include "cmcp.h"

#define LOG_TO_STDERR	0x1
#define LOG_TO_SYSLOG	0x2
#define LOG_TO_SINK	0x4

__BEGIN_DECLS
void	 log_init(int, int, int);
void	 log_procinit(const char *);
void	 log_setsink(void (*)(int, const char *));
void	 log_setverbose(int);
int	 log_getverbose(void);
void	 logit(int, const char *, ...)
	    __attribute__((__format__ (printf, 2, 3)));
void	 vlog(int, const char *, va_list)
	    __attribute__((__format__ (printf, 2, 0)));
void	 log_warn(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_warnx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_info(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_debug(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
__dead void fatal(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
__dead void fatalx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
__END_DECLS

#endif /* CMCP_LOG_H */
