/* known.c: unit tests of lib/known, the list of loose results a reader
 * holds: its lines written and read back, its errors, the lookup and
 * the identity check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "known.h"
#include "unit.h"

static int
parse(const char *text, struct ar_known **k, size_t *n, char *err,
    size_t errlen)
{
	return ar_known_parse(text, strlen(text), k, n, err, errlen);
}

static void
roundtrip(void)
{
	struct ar_buf b = {0};
	struct ar_known a, *k = NULL;
	struct stat st;
	char err[256];
	size_t n = 0;

	memset(&st, 0, sizeof st);
	st.st_ino = 12345;
	st.st_size = 1455;
	st.st_mtim.tv_sec = 1795961241;
	st.st_mtim.tv_nsec = 898839217;
	st.st_ctim.tv_sec = 1795961242;
	st.st_ctim.tv_nsec = 7;
	ar_known_of(&a, "r2", &st);
	ar_known_put(&b, &a);
	OK(strcmp(b.p, "r2\t12345\t1455\t1795961241.898839217\t"
	    "1795961242.000000007\n") == 0, "put: the line");
	/* Out of order: the parser sorts. */
	st.st_ino = 1;
	ar_known_of(&a, "r1", &st);
	ar_known_put(&b, &a);
	OK(parse(b.p, &k, &n, err, sizeof err) == 0 && n == 2 &&
	    strcmp(k[0].id, "r1") == 0 && strcmp(k[1].id, "r2") == 0,
	    "parse: two, sorted");
	OK(ar_known_find(k, n, "r2") == &k[1] && !ar_known_find(k, n, "r3") &&
	    !ar_known_find(k, 0, "r1"), "find");
	st.st_ino = 12345;
	OK(ar_known_same(&k[1], &st), "same: the file as listed");
	st.st_ctim.tv_nsec = 8;
	OK(!ar_known_same(&k[1], &st), "same: another ctime is not");
	st.st_ctim.tv_nsec = 7;
	st.st_size = 1456;
	OK(!ar_known_same(&k[1], &st), "same: another size is not");
	st.st_size = 1455;
	st.st_ino = 9;
	OK(!ar_known_same(&k[1], &st), "same: another inode is not");
	free(k);
	k = NULL;
	/* ar_known_of with the entry's own id. */
	ar_known_of(&a, a.id, &st);
	OK(strcmp(a.id, "r1") == 0, "of: its own id kept");
	OK(parse("", &k, &n, err, sizeof err) == 0 && n == 0, "parse: empty");
	free(k);
	ar_buf_free(&b);
}

static void
bad(void)
{
	static const struct { const char *text, *why; } c[] = {
		{ "r1\t1\t2\t3.000000000\t4.000000000", "line 1: no newline "
		    "at its end" },
		{ "r1 1 2 3.000000000 4.000000000\n", "line 1: not an id and "
		    "a tab" },
		{ "\t1\t2\t3.000000000\t4.000000000\n", "line 1: not an id "
		    "and a tab" },
		{ "a/b\t1\t2\t3.000000000\t4.000000000\n", "line 1: not a "
		    "valid id" },
		{ "r1\t1\t2\t3.00000000\t4.000000000\n", "line 1: expected" },
		{ "r1\t1\t2\t3.0000000000\t4.000000000\n", "line 1: expected" },
		{ "r1\t1\t2\t3\t4.000000000\n", "line 1: expected" },
		{ "r1\t-1\t2\t3.000000000\t4.000000000\n", "line 1: expected" },
		{ "r1\t1\t\t3.000000000\t4.000000000\n", "line 1: expected" },
		{ "r1\t1\t2\t3.000000000\t4.000000000\tx\n", "line 1: "
		    "expected" },
		{ "r1\t1\t2\t3.000000000\n", "line 1: expected" },
		{ "r1\t12345678901234567890\t2\t3.000000000\t4.000000000\n",
		    "line 1: expected" },
		{ "r1\t1\t2\t9999999999999999999.000000000\t4.000000000\n",
		    "line 1: expected" },
		{ "r1\t1\t2\t3.000000000\t4.000000000\n\n", "line 2: not an "
		    "id and a tab" },
		{ "r1\t1\t2\t3.000000000\t4.000000000\n"
		  "r1\t1\t2\t3.000000000\t4.000000000\n", "r1: listed twice" },
	};
	struct ar_known *k;
	char err[256];
	size_t i, n;

	for (i = 0; i < sizeof c / sizeof *c; i++) {
		k = (struct ar_known *)&n;
		n = 7;
		OK(parse(c[i].text, &k, &n, err, sizeof err) == -1 &&
		    strncmp(err, c[i].why, strlen(c[i].why)) == 0 && !k &&
		    n == 0, "bad %zu: %s (%s)", i, c[i].why, err);
	}
	/* A NUL in an id. */
	OK(ar_known_parse("r\0\t1\t2\t3.000000000\t4.000000000\n", 32, &k, &n,
	    err, sizeof err) == -1 && strcmp(err, "line 1: not an id and a "
	    "tab") == 0, "bad: a NUL in the id");
}

const struct unit_test unit_known[] = {
	TEST(roundtrip),
	TEST(bad),
	UNIT_END,
};
