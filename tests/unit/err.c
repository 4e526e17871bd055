/* err.c: unit tests of lib/err: the program's name, messages "prog:
 * what: why", exit codes from errno, ar_die with its cleanup hook,
 * usage, -h and --version, and a checked stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "unit.h"

static void
names(void)
{
	const char *saved = ar_prog();

	ar_setprog("/usr/local/bin/ar-x");
	OK(strcmp(ar_prog(), "ar-x") == 0, "the name is argv[0]'s last part");
	ar_setprog("plain");
	OK(strcmp(ar_prog(), "plain") == 0, "a name without a '/'");
	ar_setprog(saved);
	OK(strncmp(ar_build_id(), "autoreduce-", 11) == 0, "the build id");
}

static void
codes(void)
{
	static const struct {
		int e, code;
	} t[] = {
		{ ENOENT, AR_EX_NOINPUT }, { ENOTDIR, AR_EX_NOINPUT },
		{ EEXIST, AR_EX_CANTCREAT }, { ENOTEMPTY, AR_EX_CANTCREAT },
		{ EACCES, AR_EX_CANTCREAT }, { EPERM, AR_EX_CANTCREAT },
		{ EROFS, AR_EX_CANTCREAT }, { ENOSPC, AR_EX_IO },
		{ EIO, AR_EX_IO }, { 0, AR_EX_IO },
	};
	size_t i;

	for (i = 0; i < NELEM(t); i++)
		OK(ar_errno_exit(t[i].e) == t[i].code, "errno %s gives exit %d",
		    strerror(t[i].e), t[i].code);
}

static void
warn_plain(const char *arg)
{
	(void)arg;
	ar_setprog("prog");
	ar_warn("what: %d", 7);
	errno = ENOENT;
	ar_warn("%s:", "file");
}

static int hooked;

static void
hook(void)
{
	hooked = 1;
	fputs("hook ran\n", stdout);
}

static void
die(const char *arg)
{
	(void)arg;
	ar_setprog("prog");
	ar_on_die(hook);
	errno = EACCES;
	ar_die(AR_EX_CANTCREAT, "out:");
}

static void
usage(const char *arg)
{
	(void)arg;
	ar_setprog("prog");
	ar_usage("-a FILE\n-b");
}

static void
help(const char *arg)
{
	char *argv[] = { "/x/prog", (char *)arg, "-h", NULL };

	ar_std_args(3, argv, "-a FILE\n-b");
	puts("no -h seen");
}

static void
full(const char *arg)
{
	FILE *f = fopen("/dev/full", "w");

	(void)arg;
	ar_setprog("prog");
	if (!f)
		_exit(99);
	fputs("lost", f);
	ar_fshut(f, "<stdout>");
}

static void
messages(void)
{
	char *out, *err;
	int st;

	st = unit_child("warn", NULL, NULL, &err);
	OK(st == 0 && err && strcmp(err, "prog: what: 7\nprog: file: No such "
	    "file or directory\n") == 0, "warn, and strerror after a ':'");
	free(err);
	st = unit_child("die", NULL, &out, &err);
	OK(st == AR_EX_CANTCREAT && err && strcmp(err, "prog: out: Permission "
	    "denied\n") == 0, "die: the message and the exit code");
	OK(out && strcmp(out, "hook ran\n") == 0, "die: the hook ran");
	free(out);
	free(err);
	OK(hooked == 0, "die: nothing ran here");
	st = unit_child("usage", NULL, NULL, &err);
	OK(st == AR_EX_USAGE && err && strcmp(err, "usage: prog -a FILE\n"
	    "       prog -b\n") == 0, "usage: one line per form, exit 64");
	free(err);
	st = unit_child("help", "sub", &out, NULL);
	OK(st == 0 && out && strcmp(out, "usage: prog -a FILE\n       prog -b\n")
	    == 0, "-h after a subcommand prints the usage to stdout");
	free(out);
	st = unit_child("help", "-x", &out, NULL);
	OK(st == 0 && out && strcmp(out, "no -h seen\n") == 0, "-h after an "
	    "option is an option's value");
	free(out);
	st = unit_child("full", NULL, NULL, &err);
	OK(st == AR_EX_IO && err && strcmp(err, "prog: <stdout>: write "
	    "failed: No space left on device\n") == 0, "fshut: a full disk is "
	    "an error");
	free(err);
}

const struct unit_test unit_err[] = {
	TEST(names),
	TEST(codes),
	TEST(messages),
	CHILD("warn", warn_plain),
	CHILD("die", die),
	CHILD("usage", usage),
	CHILD("help", help),
	CHILD("full", full),
	UNIT_END,
};
