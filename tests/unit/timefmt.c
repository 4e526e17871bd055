/* timefmt.c: unit tests of lib/timefmt: RFC 3339 in UTC, written and
 * read, and the monotonic clock. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timefmt.h"
#include "unit.h"

static void
rfc3339(void)
{
	struct timespec ts = { 1795000000, 123456789 }, back;
	char buf[64];

	ar_time_fmt(buf, sizeof buf, ts, 0);
	OK(strcmp(buf, "2026-11-18T11:06:40Z") == 0, "RFC 3339 UTC");
	ar_time_fmt(buf, sizeof buf, ts, 3);
	OK(strcmp(buf, "2026-11-18T11:06:40.123Z") == 0, "fraction");
	ar_time_fmt(buf, sizeof buf, ts, 6);
	OK(strcmp(buf, "2026-11-18T11:06:40.123456Z") == 0, "six digits");
	OK(ar_time_parse("2026-11-18T12:06:40.5+01:00", &back) == 0 &&
	    back.tv_sec == 1795000000 && back.tv_nsec == 500000000,
	    "parse with offset");
	OK(ar_time_parse("2026-11-18T11:06:40Z", &back) == 0 &&
	    back.tv_sec == 1795000000 && back.tv_nsec == 0, "parse Z");
	OK(ar_time_parse("2026-11-18T08:36:40-02:30", &back) == 0 &&
	    back.tv_sec == 1795000000, "parse a negative offset");
	OK(ar_time_parse("2026-02-30T00:00:00Z", &back) < 0 &&
	    ar_time_parse("2026-11-18 09:46", &back) < 0 &&
	    ar_time_parse("2026-11-18T09:46:40", &back) < 0, "invalid "
	    "dates and missing zone rejected");
	OK(ar_time_parse("2024-02-29T00:00:00Z", &back) == 0 &&
	    ar_time_parse("2023-02-29T00:00:00Z", &back) < 0, "leap years");
	OK(ar_time_parse("2026-11-18T11:06:40Zjunk", &back) < 0 &&
	    ar_time_parse("", &back) < 0, "trailing garbage, empty");
	ar_time_now(buf, sizeof buf);
	OK(ar_time_parse(buf, &back) == 0 && back.tv_sec > 1700000000,
	    "now reads back");
}

/* What timegm gives, the way ar_time_parse used it: -1 for a date it
 * moves (31 February, 23:59:60). */
static int
by_timegm(int y, int mo, int d, int h, int mi, int sec, time_t *t)
{
	struct tm tm = {0};

	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*t = timegm(&tm);
	return tm.tm_mday != d || tm.tm_mon != mo - 1 ? -1 : 0;
}

static void
against_timegm(void)
{
	static const int ys[] = { 0, 1, 4, 99, 100, 400, 1600, 1899, 1900,
		1969, 1970, 1999, 2000, 2024, 2026, 2100, 2400, 9999 };
	static const int hms[][3] = { { 0, 0, 0 }, { 12, 34, 56 },
		{ 23, 59, 59 }, { 23, 59, 60 }, { 10, 59, 60 } };
	size_t i, k, bad = 0, n = 0;
	int mo, d;

	for (i = 0; i < sizeof ys / sizeof ys[0]; i++)
		for (mo = 1; mo <= 12; mo++)
			for (d = 1; d <= 31; d++)
				for (k = 0; k < 5; k++) {
					struct timespec ts;
					char b[40];
					time_t t;
					int want, got;

					snprintf(b, sizeof b, "%04d-%02d-%02dT%02d:"
					    "%02d:%02dZ", ys[i], mo, d, hms[k][0],
					    hms[k][1], hms[k][2]);
					want = by_timegm(ys[i], mo, d, hms[k][0],
					    hms[k][1], hms[k][2], &t);
					got = ar_time_parse(b, &ts);
					n++;
					if (got != want || (got == 0 &&
					    ts.tv_sec != t))
						bad++;
				}
	OK(bad == 0 && n == 18 * 12 * 31 * 5, "parse: as timegm on 33,480 "
	    "dates and times of years 0 to 9999 (leap years, 31 February, "
	    "leap seconds)");
}

static void
mono(void)
{
	double a = ar_mono(), b = ar_mono();

	OK(a > 0 && b >= a, "the monotonic clock never goes back");
}

const struct unit_test unit_timefmt[] = {
	TEST(rfc3339),
	TEST(against_timegm),
	TEST(mono),
	UNIT_END,
};
