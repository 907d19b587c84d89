/*
 * Milliseconds, the unit of every time in the configuration and the
 * protocol, as the timeval libevent's timers take and the timespec the
 * clocks give.  Sums, differences and comparisons of those structures
 * are libbsd's <sys/time.h>: timespecadd, timespecsub, timespeccmp.
 */

#ifndef CMCP_MSTIME_H
#define CMCP_MSTIME_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline void
ms_to_timeval(int64_t ms, struct timeval *tv)
{
	tv->tv_sec = ms / 1000;
	tv->tv_usec = (ms % 1000) * 1000;
}

static inline void
ms_to_timespec(int64_t ms, struct timespec *ts)
{
	ts->tv_sec = ms / 1000;
	ts->tv_nsec = (ms % 1000) * 1000000;
}

/* Whole milliseconds in ts, rounded down. */
static inline int64_t
timespec_to_ms(const struct timespec *ts)
{
	return ((int64_t)ts->tv_sec * 1000 + ts->tv_nsec / 1000000);
}

/* Whole microseconds in ts, rounded down. */
static inline int64_t
timespec_to_us(const struct timespec *ts)
{
	return ((int64_t)ts->tv_sec * 1000000 + ts->tv_nsec / 1000);
}

#endif /* CMCP_MSTIME_H */
