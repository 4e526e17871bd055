/* timefmt.c: RFC 3339 times in UTC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timefmt.h"

void
ar_time_fmt(char *out, size_t n, struct timespec ts, int digits)
{
	struct tm tm;
	char frac[16] = "";
	long div = 1;
	int i;

	gmtime_r(&ts.tv_sec, &tm);
	if (digits > 9)
		digits = 9;
	if (digits > 0) {
		for (i = digits; i < 9; i++)
			div *= 10;
		snprintf(frac, sizeof frac, ".%0*ld", digits, ts.tv_nsec / div);
	}
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d%sZ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

double
ar_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
ar_time_now(char *out, size_t n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ar_time_fmt(out, n, ts, 0);
}

static int
digits(const char **s, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return -1;
		*v = *v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	return 0;
}

static int
expect(const char **s, const char *set)
{
	/* A loop, not strchr: a decision parses two times a ledger row. */
	for (; **s && *set; set++)
		if (*set == **s) {
			(*s)++;
			return 0;
		}
	return -1;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static long long
days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
month_days(int y, int m)
{
	static const int n[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return n[m - 1];
}

int
ar_time_parse(const char *s, struct timespec *ts)
{
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	long nsec = 0, scale = 100000000;
	time_t t;

	if (digits(&s, 4, &y) || expect(&s, "-") || digits(&s, 2, &mo) ||
	    expect(&s, "-") || digits(&s, 2, &d) || expect(&s, "Tt ") ||
	    digits(&s, 2, &h) || expect(&s, ":") || digits(&s, 2, &mi) ||
	    expect(&s, ":") || digits(&s, 2, &sec))
		return -1;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++) {
			nsec += (*s - '0') * scale;
			scale /= 10;
		}
	}
	if (*s == 'Z' || *s == 'z')
		s++;
	else if (*s == '+' || *s == '-') {
		sign = *s == '+' ? 1 : -1;
		s++;
		if (digits(&s, 2, &oh) || expect(&s, ":") || digits(&s, 2, &om))
			return -1;
	} else
		return -1;
	if (*s != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60 || oh > 23 || om > 59)
		return -1;
	/* No 31 February; a leap second only where it stays in its day,
	 * as timegm's normalizing allowed. */
	if (d > month_days(y, mo) || (sec == 60 && h == 23 && mi == 59))
		return -1;
	/* By hand, not timegm: its time zone work was a tenth of reading
	 * a ledger's rows. */
	t = (time_t)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
	    sec);
	ts->tv_sec = t - sign * (oh * 3600 + om * 60);
	ts->tv_nsec = nsec;
	return 0;
}
