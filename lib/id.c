/* id.c: unique, time-ordered ids. The time to the microsecond sorts them;
 * 64 random bits keep two hosts or processes from ever colliding; within
 * one process they strictly increase. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <sodium.h>

#include "crypto.h"
#include "err.h"
#include "id.h"
#include "timefmt.h"

static pthread_mutex_t idlock = PTHREAD_MUTEX_INITIALIZER;
static long long last_us;

void
ar_id_new(char out[AR_IDLEN])
{
	struct timespec ts;
	unsigned char rnd[8];
	char hex[17], when[32];
	long long us;

	clock_gettime(CLOCK_REALTIME, &ts);
	us = (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	pthread_mutex_lock(&idlock);
	if (us <= last_us)
		us = last_us + 1;
	last_us = us;
	pthread_mutex_unlock(&idlock);
	ts.tv_sec = (time_t)(us / 1000000);
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	if (sodium_init() < 0)
		ar_die(AR_EX_SOFTWARE, "libsodium failed to start");
	randombytes_buf(rnd, sizeof rnd);
	ar_hex(hex, rnd, sizeof rnd);
	ar_time_fmt(when, sizeof when, ts, 6);
	/* "2026-11-26T01:58:12.123456Z" without '-' and ':'. */
	snprintf(out, AR_IDLEN, "%.4s%.2s%.2sT%.2s%.2s%.2s%.8s-%s", when,
	    when + 5, when + 8, when + 11, when + 14, when + 17, when + 19,
	    hex);
}

int
ar_id_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > AR_ID_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int
ar_id_time(const char *id, struct timespec *ts)
{
	static const char shape[] = "dddddddd.dddddd.dddddd.";
	char rfc[40];
	size_t i;

	/* "20261126T015812.123456Z": digits where shape has 'd'. */
	for (i = 0; shape[i]; i++) {
		if (!id[i])
			return -1;
		if (shape[i] == 'd' ? id[i] < '0' || id[i] > '9' :
		    id[i] != (i == 8 ? 'T' : i == 15 ? '.' : 'Z'))
			return -1;
	}
	snprintf(rfc, sizeof rfc, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s.%.6sZ", id,
	    id + 4, id + 6, id + 9, id + 11, id + 13, id + 16);
	return ar_time_parse(rfc, ts);
}
