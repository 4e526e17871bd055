/* conf.c: unit tests of lib/conf: campaign.conf's "key = value" lines,
 * comments, and the errors that name their line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "unit.h"

/* The error of reading text as a conf, or "" when it reads. */
static const char *
conf_err(const char *dir, const char *text)
{
	static char err[512];
	struct ar_conf c;
	char *p = unit_path(dir, "c.conf");

	unit_put(dir, "c.conf", text, 0644);
	err[0] = 0;
	if (ar_conf_read(&c, p, err, sizeof err) == 0)
		ar_conf_free(&c);
	free(p);
	return err;
}

static void
lines(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, "c.conf"), err[512];
	const char *e;
	struct ar_conf c;

	unit_put(dir, "c.conf", "# c\na = 1\n b.c=two words \n\n\t# x\n"
	    "empty =\n", 0644);
	OK(ar_conf_read(&c, p, err, sizeof err) == 0 &&
	    strcmp(ar_conf_get(&c, "a"), "1") == 0 &&
	    strcmp(ar_conf_get(&c, "b.c"), "two words") == 0, "read");
	OK(c.n == 3 && strcmp(ar_conf_get(&c, "empty"), "") == 0 &&
	    ar_conf_get(&c, "zz") == NULL, "an empty value; a missing key is "
	    "NULL");
	ar_conf_free(&c);
	OK(c.n == 0 && c.key == NULL, "free empties it");
	unit_put(dir, "c.conf", "a = x=y\n", 0644);
	OK(ar_conf_read(&c, p, err, sizeof err) == 0 &&
	    strcmp(ar_conf_get(&c, "a"), "x=y") == 0, "the value runs past a "
	    "second '='");
	ar_conf_free(&c);
	e = conf_err(dir, "a = 1\na = 2\n");
	OK(strstr(e, "line 2: duplicate key"), "duplicate key");
	e = conf_err(dir, "novalue\n");
	OK(strstr(e, "line 1"), "malformed line");
	e = conf_err(dir, "a = 1\nnovalue\n");
	OK(strstr(e, "/c.conf: line 2: expected 'key = value'"), "a line "
	    "without '=' names its line");
	e = conf_err(dir, "A = 1\n");
	OK(strstr(e, "/c.conf: line 1: bad key 'A'"), "keys are lower case");
	e = conf_err(dir, " = 1\n");
	OK(strstr(e, "line 1: bad key ''"), "an empty key");
	e = conf_err(dir, "a = \xff\n");
	OK(strstr(e, "/c.conf: not a text file"), "invalid UTF-8");
	free(p);
	p = unit_path(dir, "none");
	OK(ar_conf_read(&c, p, err, sizeof err) < 0 && errno == ENOENT &&
	    strstr(err, "/none: No such file or directory"), "a missing "
	    "file");
	free(p);
	unit_rmtree(dir);
}

const struct unit_test unit_conf[] = {
	TEST(lines),
	UNIT_END,
};
