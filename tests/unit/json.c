/* json.c: unit tests of lib/json: strict parsing, the canonical form,
 * dotted paths, and numbers as TSV and JSON write them. */
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

const struct unit_test unit_json[] = {
	TEST(parse),
	TEST(numbers),
	UNIT_END,
};
