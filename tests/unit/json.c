/* json.c: unit tests of lib/json: strict parsing, the canonical form,
 * dotted paths, and numbers as TSV and JSON write them, the fast path
 * for plain decimals against strtod. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "unit.h"

static void
parse(void)
{
	char err[256], *s;
	json_t *j;

	OK(!ar_json_parse("{\"a\":1,\"a\":2}", 13, err, sizeof err) &&
	    strstr(err, "duplicate"), "duplicate keys rejected");
	OK(!ar_json_parse("{\"a\":NaN}", 9, err, sizeof err), "NaN rejected");
	OK(!ar_json_parse("{\"a\":1e999}", 11, err, sizeof err), "overflow "
	    "to infinity rejected");
	OK(!ar_json_parse("{\"a\":\"\xff\"}", 8, err, sizeof err) &&
	    strstr(err, "UTF-8"), "invalid UTF-8 rejected");
	OK(!ar_json_parse("{\"a\":1}\0", 8, err, sizeof err), "NUL rejected");
	OK(!ar_json_parse("{\"a\":", 5, err, sizeof err) && strncmp(err,
	    "invalid JSON at column ", 23) == 0, "a one-line error names the "
	    "column only");
	OK(!ar_json_parse("{\n\"a\":\n}", 8, err, sizeof err) && strncmp(err,
	    "invalid JSON at line 3, column ", 30) == 0, "a longer text's "
	    "error names the line");
	s = "{\"b\":[1,2.5,\"x\"],\"a\":{\"d\":null,\"c\":true}}";
	j = ar_json_parse(s, strlen(s), err, sizeof err);
	OK(j != NULL, "parse");
	s = ar_json_canon(j);
	OK(strcmp(s, "{\"a\":{\"c\":true,\"d\":null},\"b\":[1,2.5,\"x\"]}") == 0,
	    "canonical form sorts keys, compact");
	free(s);
	s = ar_json_line(j);
	OK(strcmp(s, "{\"b\":[1,2.5,\"x\"],\"a\":{\"d\":null,\"c\":true}}") == 0,
	    "a line keeps the order of the keys");
	free(s);
	OK(json_integer_value(ar_json_path(j, "b")) == 0 &&
	    ar_json_path(j, "a.c") == json_true(), "dotted path");
	OK(ar_json_path(j, "a.c.x") == NULL && ar_json_path(j, "z") == NULL &&
	    ar_json_path(j, "b.0") == NULL, "a path through a scalar, a "
	    "missing key or an array is NULL");
	OK(ar_json_str(j, "a.c") == NULL, "str of a non-string is NULL");
	json_decref(j);
	s = "{\"m\":{\"hash\":\"h1\"}}";
	j = ar_json_parse(s, strlen(s), err, sizeof err);
	OK(j && ar_json_str(j, "m.hash") && strcmp(ar_json_str(j, "m.hash"),
	    "h1") == 0, "str by dotted path");
	json_decref(j);
}

static void
numbers(void)
{
	char buf[64];
	double v;
	long long l;

	ar_fmt_double(buf, sizeof buf, 0.1);
	OK(strcmp(buf, "0.1") == 0, "shortest form 0.1");
	ar_fmt_double(buf, sizeof buf, 1.0 / 3);
	OK(strtod(buf, NULL) == 1.0 / 3, "1/3 reads back exactly");
	ar_fmt_double(buf, sizeof buf, 1e300);
	OK(strcmp(buf, "1e+300") == 0, "1e300 as printf writes it");
	OK(ar_parse_double("nan", &v) < 0 && ar_parse_double("inf",
	    &v) < 0 && ar_parse_double("1e999", &v) < 0 &&
	    ar_parse_double("0x10", &v) < 0 && ar_parse_double("", &v)
	    < 0 && ar_parse_double("1.5x", &v) < 0, "NaN, inf, "
	    "overflow, hex, empty, garbage rejected");
	OK(ar_parse_double(" 1", &v) < 0 && ar_parse_double("1 ", &v) < 0,
	    "blanks around a number rejected");
	OK(ar_parse_double("-2.5e3", &v) == 0 && v == -2500, "a number "
	    "parses");
	OK(ar_parse_long("-42", &l) == 0 && l == -42 &&
	    ar_parse_long("9223372036854775807", &l) == 0 &&
	    l == 9223372036854775807LL, "whole numbers, to the largest");
	OK(ar_parse_long("9223372036854775808", &l) < 0 &&
	    ar_parse_long("+1", &l) < 0 && ar_parse_long("", &l) < 0 &&
	    ar_parse_long(" 1", &l) < 0 && ar_parse_long("1.0", &l) < 0 &&
	    ar_parse_long("1x", &l) < 0, "overflow, a sign '+', blanks, a "
	    "fraction, garbage rejected");
}

/* strtod's answer and acceptance, as ar_parse_double had them before
 * its fast path for plain decimals. */
static int
slow_double(const char *s, double *v)
{
	char *end;

	if (*s == '\0' || *s == ' ' || *s == '\t')
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (*end != '\0' || errno == ERANGE || !isfinite(*v) ||
	    strpbrk(s, "xXiInN"))
		return -1;
	return 0;
}

/* 1 where ar_parse_double and strtod disagree on s: verdict or bits. */
static int
differs(const char *s)
{
	double a = 1, b = 2;
	int ra = ar_parse_double(s, &a), rb = slow_double(s, &b);

	return ra != rb || (ra == 0 && memcmp(&a, &b, sizeof a) != 0);
}

/* The fast path gives strtod's bits and strtod's verdict: on numbers of
 * every length around its limits (15 significant digits, 22 after the
 * point), signs, zeros, lone points and signs, and random garbage. */
static void
decimals(void)
{
	static const char alpha[] = "0123456789.-+eE x";
	static const char *const edge[] = {
		"0", "-0", "0.0", "-0.000", "00012.50", ".5", "-.5", "5.", "-5.",
		".", "-", "-.", "", "1..2", "--1", "+1", "1e3", "123456789012345",
		"1234567890123456", "0.1234567890123456789012",
		"0.12345678901234567890123", "999999999999999.9",
		"0.000000000000000000000001", "9007199254740993",
		"1.7976931348623157", "4.9406564584124654", "0.30000000000000004",
	};
	uint64_t st = 0x9e3779b97f4a7c15ULL;
	size_t i, bad = 0, n = 0;
	char buf[48];

	for (i = 0; i < sizeof edge / sizeof *edge; i++) {
		n++;
		bad += (size_t)differs(edge[i]);
	}
	for (i = 0; i < 400000; i++) {
		int len, j;

		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		len = (int)(st % 30);
		for (j = 0; j < len; j++) {
			st ^= st << 13;
			st ^= st >> 7;
			st ^= st << 17;
			/* Mostly digits and a point: plain decimals. */
			buf[j] = i % 4 ? "0123456789.-"[st % (j ? 11 : 12)] :
			    alpha[st % (sizeof alpha - 1)];
		}
		buf[len] = '\0';
		n++;
		bad += (size_t)differs(buf);
	}
	OK(bad == 0, "plain decimals: strtod's bits and verdict on %zu "
	    "strings (%zu differ)", n, bad);
	/* As ar-bench writes ratios: the shortest form of a double, 15 to
	 * 17 digits, and every double's 17; and integers on and beside the
	 * midpoints between doubles, from 2^53 to 2^64, with a point put
	 * anywhere in them. */
	n = bad = 0;
	for (i = 0; i < 200000; i++) {
		double d;
		uint64_t bits;

		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		bits = (st >> 12) | (uint64_t)(1000 + st % 100) << 52;
		memcpy(&d, &bits, sizeof d);
		if (i % 2)
			ar_fmt_double(buf, sizeof buf, d);
		else
			snprintf(buf, sizeof buf, "%.17g", d);
		if (strchr(buf, 'e'))
			continue;
		n++;
		bad += (size_t)differs(buf);
	}
	for (i = 0; i < 200000; i++) {
		uint64_t e = 53 + i % 11, m, ulp;
		int len, at;

		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		ulp = 1ULL << (e - 52);
		m = (1ULL << e) + (st % (1ULL << 40)) * ulp + ulp / 2 +
		    (uint64_t)(i / 11 % 3) - 1;
		len = snprintf(buf, sizeof buf, "%llu", (unsigned long long)m);
		at = (int)(st >> 50) % (len + 1);
		if (at < len) {
			memmove(buf + at + 1, buf + at, (size_t)(len - at + 1));
			buf[at] = '.';
		}
		n++;
		bad += (size_t)differs(buf);
	}
	OK(bad == 0, "long decimals: strtod's bits and verdict on %zu "
	    "strings, shortest forms and midpoints (%zu differ)", n, bad);
}

const struct unit_test unit_json[] = {
	TEST(parse),
	TEST(numbers),
	TEST(decimals),
	UNIT_END,
};
