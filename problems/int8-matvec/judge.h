/* judge.h: what gen and score share: the environment and whole files. */
#ifndef JUDGE_H
#define JUDGE_H

#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounds on the shapes. MAX_COLS keeps every sum of int8 products exact
 * in int32: 131071 * (-128) * (-128) < 2^31. The driver has the same. */
#define MAX_ROWS (1L << 20)
#define MAX_COLS ((1L << 17) - 1)
#define MAX_TOKENS 4096L

static const char *prog;

static void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static const char *
env_str(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL || *v == '\0')
		die("%s: not set", name);
	return v;
}

/* A decimal integer in [1, max], nothing else. */
static long
env_long(const char *name, long max)
{
	const char *v = env_str(name);
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (*v < '0' || *v > '9' || errno || *end || n < 1 || n > max)
		die("%s: \"%s\" is not an integer from 1 to %ld", name, v, max);
	return n;
}

static char *
path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p == NULL)
		die("out of memory");
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

#endif
