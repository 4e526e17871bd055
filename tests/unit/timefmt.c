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

static void
mono(void)
{
	double a = ar_mono(), b = ar_mono();

	OK(a > 0 && b >= a, "the monotonic clock never goes back");
}

const struct unit_test unit_timefmt[] = {
	TEST(rfc3339),
	TEST(mono),
	UNIT_END,
};
