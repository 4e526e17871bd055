/* tsv.c: unit tests of lib/tsv: splitting and escapes, a header with
 * columns by name, rows and the errors that name their line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "tsv.h"
#include "unit.h"

static void
split(void)
{
	char line[256], *f[8], err[256];
	int n;

	strcpy(line, "a\\tb\tc\\\\d\te\\nf");
	n = ar_tsv_split(line, strlen(line), f, 8, err, sizeof err);
	OK(n == 3 && strcmp(f[0], "a\tb") == 0 && strcmp(f[1], "c\\d") == 0 &&
	    strcmp(f[2], "e\nf") == 0, "split unescapes \\t \\\\ \\n");
	strcpy(line, "a\t\tb\t");
	n = ar_tsv_split(line, strlen(line), f, 8, err, sizeof err);
	OK(n == 4 && strcmp(f[1], "") == 0 && strcmp(f[3], "") == 0,
	    "empty fields, a trailing one too");
	strcpy(line, "a\tb\tc");
	OK(ar_tsv_split(line, strlen(line), f, 2, err, sizeof err) == 3 &&
	    strcmp(f[1], "b") == 0, "split counts the fields beyond max");
	strcpy(line, "a\\xb");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0 &&
	    strstr(err, "unknown escape"), "unknown escape is an error");
	strcpy(line, "ab\\");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0,
	    "trailing backslash is an error");
	strcpy(line, "a\rb");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0 &&
	    strstr(err, "carriage return"), "CR is an error");
	memcpy(line, "a\0b", 4);
	OK(ar_tsv_split(line, 3, f, 8, err, sizeof err) < 0 &&
	    strstr(err, "NUL"), "NUL is an error");
	strcpy(line, "caf\xc3");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0 &&
	    strstr(err, "UTF-8"), "truncated UTF-8 is an error");
}

static void
escape(void)
{
	struct ar_buf b = {0};
	char line[256], *out = NULL;
	size_t len = 0;
	FILE *m;

	ar_buf_reserve(&b, 0);
	ar_tsv_escape(&b, "x\ty\nz\\w\rv");
	OK(strcmp(b.p, "x\\ty\\nz\\\\w\\rv") == 0, "escape");
	strcpy(line, b.p);
	OK(ar_tsv_unescape(line) == 0 && strcmp(line, "x\ty\nz\\w\rv") == 0,
	    "escape and unescape round-trip");
	ar_buf_free(&b);
	m = open_memstream(&out, &len);
	ar_tsv_put(m, "a\tb\\c\n");
	fclose(m);
	OK(strcmp(out, "a\\tb\\\\c\\n") == 0, "put escapes as escape does");
	free(out);
}

static void
reader(void)
{
	{
		FILE *in = fmemopen("b\ta\n1\t2\n3\n", 10, "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") == 0 && ar_tsv_col(&t, "a") == 1 &&
		    ar_tsv_col(&t, "zz") == -1, "columns by name");
		OK(ar_tsv_next(&t) == 1 && strcmp(t.field[1], "2") == 0,
		    "a row");
		OK(ar_tsv_next(&t) == -1 && strstr(t.err, "line 3: 1 field, "
		    "header has 2"), "wrong column count names the line");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		FILE *in = fmemopen("a\ta\n", 4, "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") < 0 && strstr(t.err, "duplicate "
		    "column 'a'"), "duplicate column");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\ty\n1\t\\t\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") == 0 && ar_tsv_next(&t) == 1 &&
		    strcmp(t.field[1], "\t") == 0 && t.lineno == 2 &&
		    ar_tsv_next(&t) == 0, "a row unescaped, then the end");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\ty\n1\t\\t\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open_raw(&t, in, "in", 1) == 0 && ar_tsv_next(&t) ==
		    1 && strcmp(t.field[1], "\\t") == 0, "raw: fields as they "
		    "are");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\t\ty\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") < 0 && strcmp(t.err, "in: header: "
		    "column 2 has no name") == 0, "a column without a name");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		FILE *in = fopen("/dev/null", "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "nil") < 0 && strcmp(t.err, "nil: empty "
		    "input: no header line") == 0, "empty input");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\n\\q\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") == 0 && ar_tsv_next(&t) == -1 &&
		    strncmp(t.err, "in: line 2: field 1: unknown escape", 35) ==
		    0, "a bad escape names the line and the field");
		ar_tsv_close(&t);
		fclose(in);
	}
}

const struct unit_test unit_tsv[] = {
	TEST(split),
	TEST(escape),
	TEST(reader),
	UNIT_END,
};
