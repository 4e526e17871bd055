/* utf8.c: unit tests of lib/utf8: what is valid UTF-8 and where the
 * first bad byte is. */
#include <stdio.h>
#include <string.h>

#include "utf8.h"
#include "unit.h"

static void
validity(void)
{
	const char *t = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80";

	OK(ar_utf8_invalid(t, strlen(t)) == -1, "valid text");
	OK(ar_utf8_invalid("", 0) == -1, "empty text is valid");
	OK(ar_utf8_invalid("\xc0\xaf", 2) == 0, "overlong rejected");
	OK(ar_utf8_invalid("ab\xed\xa0\x80", 5) == 2, "surrogate rejected");
	OK(ar_utf8_invalid("\xf4\x90\x80\x80", 4) == 0, "> U+10FFFF");
	OK(ar_utf8_invalid("\xff", 1) == 0, "0xff rejected");
	OK(ar_utf8_invalid("abc\xe2\x82", 5) == 3, "a character cut short "
	    "at the end");
	OK(ar_utf8_invalid("a\x80", 2) == 1, "a lone continuation byte");
	OK(ar_utf8_invalid("\xf4\x8f\xbf\xbf", 4) == -1, "U+10FFFF itself is "
	    "valid");
	{
		/* ASCII is skipped eight bytes at a time: a bad byte or a
		 * character at every offset and every length around it. */
		char buf[40];
		size_t at, len;
		int good = 1;

		for (len = 1; len <= 32; len++)
			for (at = 0; at < len; at++) {
				memset(buf, 'x', sizeof buf);
				buf[at] = '\xff';
				good &= ar_utf8_invalid(buf, len) == (long)at;
				good &= ar_utf8_invalid(buf, at) == -1;
				if (at + 2 <= len) {
					buf[at] = '\xc3';
					buf[at + 1] = '\xa9';
					good &= ar_utf8_invalid(buf, len) == -1;
					good &= ar_utf8_invalid(buf, at + 1) ==
					    (long)at;
				}
			}
		OK(good, "a bad byte found at every offset of ASCII runs of 1 "
		    "to 32 bytes; a character anywhere in them is valid");
	}
}

static void
cutting(void)
{
	char s[] = "ab\xc3\xa9\xe2\x82\xac";  /* a b é € */
	char bad[] = "x\xff\xc3y\xe2\x82";

	OK(ar_utf8_prefix(s, 100) == 7, "prefix: all of a short string");
	OK(ar_utf8_prefix(s, 2) == 2, "prefix: before é");
	OK(ar_utf8_prefix(s, 3) == 2, "prefix: never inside é");
	OK(ar_utf8_prefix(s, 4) == 4, "prefix: after é");
	OK(ar_utf8_prefix(s, 5) == 4 && ar_utf8_prefix(s, 6) == 4,
	    "prefix: never inside €");
	OK(ar_utf8_prefix(s, 0) == 0, "prefix: nothing");
	OK(ar_utf8_prefix("\x80\x80", 1) == 0, "prefix: continuation bytes "
	    "alone give nothing");
	ar_utf8_repair(bad);
	OK(strcmp(bad, "x??y??") == 0, "repair: bad bytes and a cut "
	    "character become '?' (%s)", bad);
	ar_utf8_repair(s);
	OK(strcmp(s, "ab\xc3\xa9\xe2\x82\xac") == 0, "repair: valid text is "
	    "left as it is");
}

const struct unit_test unit_utf8[] = {
	TEST(validity),
	TEST(cutting),
	UNIT_END,
};
