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

static inline const char *
env_str(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL || *v == '\0')
		die("%s: not set", name);
	return v;
}

/* A decimal integer in [1, max], nothing else. */
static inline long
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

static inline char *
path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p == NULL)
		die("out of memory");
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static inline void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

static inline void
write_file(const char *dir, const char *name, const void *buf, size_t len)
{
	char *path = path_in(dir, name);
	size_t done = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		die("%s: %s", path, strerror(errno));
	while (done < len) {
		if ((n = write(fd, (const char *)buf + done, len - done)) < 0) {
			if (errno == EINTR)
				continue;
			die("%s: %s", path, strerror(errno));
		}
		done += (size_t)n;
	}
	if (close(fd) < 0)
		die("%s: %s", path, strerror(errno));
	free(path);
}

/* Reads up to max bytes of the regular file dir/name into buf, sets
 * *got; returns NULL or why it failed. Never follows a link nor blocks
 * on a FIFO: a run's output may be anything. */
static inline const char *
read_upto(const char *dir, const char *name, void *buf, size_t max,
    size_t *got)
{
	char *path = path_in(dir, name);
	const char *why = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	*got = 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	free(path);
	if (fd < 0)
		return errno == ELOOP ? "is a symbolic link" : strerror(errno);
	if (fstat(fd, &st) < 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	while (why == NULL && *got < max &&
	    (n = read(fd, (char *)buf + *got, max - *got)) != 0) {
		if (n < 0 && errno != EINTR)
			why = strerror(errno);
		else if (n > 0)
			*got += (size_t)n;
	}
	close(fd);
	return why;
}

#endif
