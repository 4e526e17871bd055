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

/* ar_tsv_split_upto: the first n fields, the rest not split, on lines
 * shorter and longer than its 16-byte blocks; escapes; the buffer's
 * bound. */
static void
split_upto(void)
{
	const char *f[8], *line;
	char buf[256], big[200];
	int more, n, i;

	line = "a\tbb\tc\\\\d\tjson{\"x\":1}";
	n = ar_tsv_split_upto(line, strlen(line), 3, f, buf, sizeof buf,
	    &more);
	OK(n == 3 && more && strcmp(f[0], "a") == 0 && strcmp(f[1], "bb") ==
	    0 && strcmp(f[2], "c\\d") == 0, "the first three fields, "
	    "unescaped, the line going on");
	n = ar_tsv_split_upto(line, strlen(line), 4, f, buf, sizeof buf,
	    &more);
	OK(n == 4 && !more && strcmp(f[3], "json{\"x\":1}") == 0,
	    "all four, the last ended by the line's end");
	n = ar_tsv_split_upto(line, strlen(line), 6, f, buf, sizeof buf,
	    &more);
	OK(n == 4 && !more, "fewer fields than asked: how many there are");
	n = ar_tsv_split_upto("", 0, 2, f, buf, sizeof buf, &more);
	OK(n == 1 && !more && strcmp(f[0], "") == 0, "an empty line is one "
	    "empty field");
	/* Tabs past the first 16-byte block, at 7, 23 and 40. */
	memset(big, 'x', sizeof big);
	big[7] = big[23] = big[40] = '\t';
	n = ar_tsv_split_upto(big, 60, 3, f, buf, sizeof buf, &more);
	OK(n == 3 && more && strlen(f[0]) == 7 && strlen(f[1]) == 15 &&
	    strlen(f[2]) == 16, "tabs across the blocks");
	n = ar_tsv_split_upto(big, 60, 8, f, buf, sizeof buf, &more);
	OK(n == 4 && !more && strlen(f[3]) == 19, "to the line's end across "
	    "the blocks");
	OK(ar_tsv_split_upto(big, sizeof big, 8, f, buf, 100, &more) == -1,
	    "a line longer than the buffer is refused");
	OK(ar_tsv_split_upto(big, 60, 2, f, buf, 40, &more) == 2,
	    "only what is copied must fit");
	line = "a\\xb\tc";
	OK(ar_tsv_split_upto(line, strlen(line), 2, f, buf, sizeof buf,
	    &more) == -1, "an unknown escape is refused");
	for (i = 0; i < 8; i++)
		f[i] = NULL;
	OK(ar_tsv_split_upto("a\tb", 3, 0, f, buf, sizeof buf, &more) ==
	    0 && f[0] == NULL, "no field asked, none given");
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
		static char text[] = "x\ty\r\n1\t2\r\n3\t4\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open_raw(&t, in, "in", 1) == 0 &&
		    strcmp(t.hdr[1], "y") == 0 && ar_tsv_next(&t) == 1 &&
		    strcmp(t.field[1], "2") == 0 && ar_tsv_next(&t) == 1 &&
		    strcmp(t.field[1], "4") == 0 && ar_tsv_next(&t) == 0,
		    "raw: a CR that ends a line is dropped");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\ty\n1\r\t2\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open_raw(&t, in, "in", 1) == 0 && ar_tsv_next(&t) < 0 &&
		    strcmp(t.err, "in: line 2: carriage return inside the "
		    "line") == 0, "raw: a CR inside a line is refused");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\ty\r\n1\t2\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") < 0 && strstr(t.err,
		    "carriage return in line") != NULL,
		    "escaped TSV: a CRLF line is still refused");
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
		static char text[] = "\xef\xbb\xbfx\ty\n1\t2\n\n\n3\n\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") == 0 && ar_tsv_col(&t, "x") == 0,
		    "a byte-order mark is not part of the first name");
		OK(ar_tsv_next(&t) == 1 && strcmp(t.field[1], "2") == 0,
		    "the row after the marked header");
		OK(ar_tsv_next(&t) == -1 && strcmp(t.err, "in: line 5: 1 "
		    "field, header has 2") == 0, "blank lines are skipped, "
		    "and counted in the line numbers");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\ty\n1\t2\n\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") == 0 && ar_tsv_next(&t) == 1 &&
		    ar_tsv_next(&t) == 0, "a trailing blank line is no row");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		static char text[] = "x\n\n1\n";
		FILE *in = fmemopen(text, strlen(text), "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") == 0 && ar_tsv_next(&t) == 1 &&
		    strcmp(t.field[0], "") == 0 && ar_tsv_next(&t) == 1 &&
		    strcmp(t.field[0], "1") == 0 && ar_tsv_next(&t) == 0,
		    "of one column, a blank line is a row with an empty field");
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

static unsigned long
rnd(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Lines of many lengths (the 16-byte steps and the bytes after them):
 * plain ones split into the fields they were made of; with a backslash
 * escape, UTF-8, a byte that is not, a CR or a NUL anywhere, after any
 * number of tabs, what the general path gives for it. */
static void
split_lines(void)
{
	/* Put into a field: an escape, UTF-8, not UTF-8, a CR. */
	static const char *const odd[] = { "\\t", "\xc3\xa9", "\xff", "\r" };
	unsigned long seed = 2463534242UL;
	size_t t, bad = 0, i, count[6] = {0};

	for (t = 0; t < 30000; t++) {
		char line[512], want[32][16], *f[40], err[256];
		size_t nf = 1 + rnd(&seed) % 30, len = 0, k;
		size_t which = t % 6, oddf = rnd(&seed) % nf;
		int n, good;

		for (k = 0; k < nf; k++) {
			size_t fl = rnd(&seed) % 12, at;

			for (i = 0; i < fl; i++)
				want[k][i] = (char)('a' + rnd(&seed) % 26);
			want[k][fl] = '\0';
			if (which < 4 && k == oddf) {
				at = rnd(&seed) % (fl + 1);
				memmove(want[k] + at + strlen(odd[which]),
				    want[k] + at, fl - at + 1);
				memcpy(want[k] + at, odd[which],
				    strlen(odd[which]));
			}
			len += (size_t)snprintf(line + len, sizeof line - len,
			    "%s%s", k ? "\t" : "", want[k]);
		}
		if (which == 4 && len)
			line[rnd(&seed) % len] = '\0';
		n = ar_tsv_split(line, len, f, 40, err, sizeof err);
		if (which == 0 || which == 1 || which == 5 || (which == 4 &&
		    !len)) {
			char *e;

			/* The fields as made; "\t" read as a tab. */
			if (which == 0 && (e = strstr(want[oddf], "\\t")))
				memmove(e + 1, e + 2, strlen(e + 2) + 1), *e =
				    '\t';
			good = n == (int)nf;
			for (k = 0; good && k < nf; k++)
				good = strcmp(f[k], want[k]) == 0;
		} else if (which == 2)
			good = n < 0 && strstr(err, "invalid UTF-8") != NULL;
		else if (which == 3)
			good = n < 0 && strstr(err, "carriage return") != NULL;
		else
			good = n < 0 && strstr(err, "NUL byte") != NULL;
		bad += !good;
		count[which] += (size_t)good;
	}
	OK(bad == 0, "split: 30,000 lines, plain, with an escape, UTF-8, a "
	    "byte that is not, a CR or a NUL: %zu read wrong (%zu %zu %zu "
	    "%zu %zu %zu right)", bad, count[0], count[1], count[2],
	    count[3], count[4], count[5]);
}

const struct unit_test unit_tsv[] = {
	TEST(split),
	TEST(split_upto),
	TEST(escape),
	TEST(reader),
	TEST(split_lines),
	UNIT_END,
};
