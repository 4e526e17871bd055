/* buf.c: unit tests of lib/buf: growable NUL-terminated buffers,
 * allocation helpers and a sort that takes no elements. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "unit.h"

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void
buffers(void)
{
	struct ar_buf b = {0};
	char *s;
	int i, v[] = { 3, 1, 2 };

	ar_buf_reserve(&b, 0);
	OK(b.p && b.p[0] == 0 && b.len == 0, "an empty buffer is \"\"");
	ar_buf_adds(&b, "ab");
	ar_buf_addc(&b, 'c');
	ar_buf_add(&b, "de\0f", 4);
	OK(b.len == 7 && memcmp(b.p, "abcde\0f", 8) == 0, "add, adds, addc; "
	    "NUL-terminated, NULs inside kept");
	ar_buf_clear(&b);
	OK(b.len == 0 && b.p[0] == 0, "clear");
	for (i = 0; i < 1000; i++)
		ar_buf_printf(&b, "%d,", i);
	OK(b.len == strlen(b.p) && strncmp(b.p, "0,1,2,", 6) == 0 &&
	    strcmp(b.p + b.len - 4, "999,") == 0, "printf grows the buffer");
	ar_buf_free(&b);
	OK(b.p == NULL && b.len == 0 && b.cap == 0, "free empties it");
	ar_buf_free(&b);
	s = ar_xasprintf("%s-%d", "x", 5);
	OK(strcmp(s, "x-5") == 0, "xasprintf");
	free(s);
	s = ar_xstrdup("dup");
	OK(strcmp(s, "dup") == 0, "xstrdup");
	free(s);
	s = ar_xcalloc(4, 4);
	OK(s[0] == 0 && s[15] == 0, "xcalloc zeroes");
	free(s);
	ar_sort(NULL, 0, sizeof(int), cmp_int);
	ar_sort(v, 3, sizeof *v, cmp_int);
	OK(v[0] == 1 && v[1] == 2 && v[2] == 3, "sort; and no elements with "
	    "a NULL base");
}

const struct unit_test unit_buf[] = {
	TEST(buffers),
	UNIT_END,
};
