/* timefmt.h: RFC 3339 UTC. */
#ifndef AR_TIMEFMT_H
#define AR_TIMEFMT_H

#include <stddef.h>
#include <time.h>

/* "2026-11-26T01:58:12Z", or with digits > 0 that many fraction digits. */
void ar_time_fmt(char *out, size_t n, struct timespec ts, int digits);
void ar_time_now(char *out, size_t n);
/* Seconds on the monotonic clock: for intervals, never for dates. */
double ar_mono(void);
/* Parses RFC 3339 (any offset, optional fraction); -1 on garbage. */
int ar_time_parse(const char *s, struct timespec *ts);

#endif
