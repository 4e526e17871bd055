/* main.c: runs the C unit tests of lib/ and prints TAP; unit.h is the
 * harness. `unit [MODULE...]` runs only the modules named; `unit --child
 * MODULE NAME ARG` is one child of a test (unit_child). Exits 0 when
 * every assertion held, 1 when one failed, 64 on a bad command line. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crypto.h"
#include "err.h"
#include "unit.h"

static int ntest, nfail;
static const char *module = "";

static void
name_line(const char *fmt, va_list ap)
{
	printf("%s: ", module);
	vprintf(fmt, ap);
}

int
unit_ok(int pass, const char *file, int line, const char *expr,
    const char *fmt, ...)
{
	va_list ap;

	ntest++;
	if (!pass)
		nfail++;
	printf("%sok %d - ", pass ? "" : "not ", ntest);
	va_start(ap, fmt);
	name_line(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass)
		printf("#   %s:%d: %s\n", file, line, expr);
	return pass;
}

static void
bail(const char *what)
{
	printf("Bail out! %s: %s: %s\n", module, what, strerror(errno));
	exit(1);
}

char *
unit_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d;

	if (!t || !*t)
		t = "/tmp";
	if (!(d = malloc(strlen(t) + sizeof "/ar-unit-XXXXXX")))
		bail("malloc");
	sprintf(d, "%s/ar-unit-XXXXXX", t);
	if (!mkdtemp(d))
		bail("mkdtemp");
	return d;
}

static int
open_up(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type == FTW_D || type == FTW_DNR)
		chmod(p, (st->st_mode & 07777) | 0700);
	return 0;
}

static int
remove_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	if (type == FTW_DP || type == FTW_D)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

void
unit_rmtree(char *dir)
{
	if (!dir)
		return;
	/* Directories first made writable, then all removed, deepest
	 * first; links are removed, never followed. */
	nftw(dir, open_up, 16, FTW_PHYS);
	nftw(dir, remove_one, 16, FTW_PHYS | FTW_DEPTH);
	free(dir);
}

char *
unit_path(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);

	if (!p)
		bail("malloc");
	sprintf(p, "%s/%s", dir, name);
	return p;
}

int
unit_put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char *p = unit_path(dir, name), *s;
	FILE *f;
	int ok;

	for (s = p + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	unlink(p);
	f = fopen(p, "w");
	ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (ok && chmod(p, mode) < 0)
		ok = 0;
	if (!ok)
		OK(0, "setup: cannot write %s: %s", p, strerror(errno));
	free(p);
	return ok ? 0 : -1;
}

char *
unit_read(const char *dir, const char *name)
{
	char *p = name ? unit_path(dir, name) : strdup(dir), *b = NULL;
	size_t len = 0;
	FILE *f = fopen(p, "r"), *m;

	free(p);
	if (!f)
		return NULL;
	if ((m = open_memstream(&b, &len))) {
		int c;

		while ((c = getc(f)) != EOF)
			putc(c, m);
		fclose(m);
	}
	fclose(f);
	return b;
}

int
unit_exists(const char *dir, const char *name)
{
	char *p = unit_path(dir, name);
	struct stat st;
	int r = lstat(p, &st) == 0;

	free(p);
	return r;
}

/* This program again as "unit --child MODULE NAME ARG", stdout and
 * stderr to the files o and e when given; its pid, or -1. */
static pid_t
spawn_self(const char *name, const char *arg, const char *o, const char *e)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	pid_t pid;
	int fd;

	if (n <= 0)
		return -1;
	self[n] = 0;
	fflush(NULL);
	if ((pid = fork()) == 0) {
		char *argv[] = { self, "--child", (char *)module, (char *)name,
		    (char *)(arg ? arg : ""), NULL };

		if (o && ((fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644)) <
		    0 || dup2(fd, 1) < 0 || close(fd) < 0))
			_exit(125);
		if (e && ((fd = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644)) <
		    0 || dup2(fd, 2) < 0 || close(fd) < 0))
			_exit(125);
		execv(self, argv);
		_exit(126);
	}
	return pid;
}

pid_t
unit_child_start(const char *name, const char *arg)
{
	return spawn_self(name, arg, NULL, NULL);
}

int
unit_child(const char *name, const char *arg, char **out, char **err)
{
	char dir[4096], o[4200], e[4200];
	const char *t = getenv("TMPDIR");
	pid_t pid;
	int st = -1;

	snprintf(dir, sizeof dir, "%s/ar-unit-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		bail("mkdtemp");
	snprintf(o, sizeof o, "%s/out", dir);
	snprintf(e, sizeof e, "%s/err", dir);
	pid = spawn_self(name, arg, o, e);
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	else
		st = -1;
	if (out)
		*out = unit_read(o, NULL);
	if (err)
		*err = unit_read(e, NULL);
	unlink(o);
	unlink(e);
	rmdir(dir);
	return st;
}

static const struct {
	const char *name;
	const struct unit_test *t;
} modules[] = {
#define X(m) { #m, unit_##m },
	UNIT_MODULES
#undef X
};

/* unit --child MODULE NAME ARG: one child of a module's table. */
static int
run_child(const char *mod, const char *name, const char *arg)
{
	size_t i, j;

	for (i = 0; i < NELEM(modules); i++)
		if (strcmp(modules[i].name, mod) == 0)
			for (j = 0; modules[i].t[j].name; j++)
				if (modules[i].t[j].child &&
				    strcmp(modules[i].t[j].name, name) == 0) {
					module = mod;
					modules[i].t[j].child(arg);
					return 0;
				}
	fprintf(stderr, "unit: --child %s %s: no such child\n", mod, name);
	return 64;
}

int
main(int argc, char **argv)
{
	size_t i, j;
	int k;

	ar_setprog(argv[0]);
	ar_crypto_init();
	/* Line-buffered: a forked child never holds a copy of a line. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		return run_child(argv[2], argv[3], argv[4]);
	for (k = 1; k < argc; k++) {
		for (i = 0; i < NELEM(modules); i++)
			if (strcmp(argv[k], modules[i].name) == 0)
				break;
		if (i == NELEM(modules)) {
			fprintf(stderr, "usage: unit [MODULE...]\n"
			    "unit: %s: no such module\n", argv[k]);
			return 64;
		}
	}
	for (i = 0; i < NELEM(modules); i++) {
		if (argc > 1) {
			for (k = 1; k < argc; k++)
				if (strcmp(argv[k], modules[i].name) == 0)
					break;
			if (k == argc)
				continue;
		}
		module = modules[i].name;
		for (j = 0; modules[i].t[j].name; j++)
			if (modules[i].t[j].fn)
				modules[i].t[j].fn();
	}
	printf("1..%d\n", ntest);
	if (nfail)
		printf("# %d of %d failed\n", nfail, ntest);
	return nfail ? 1 : 0;
}
