/* driver.c: the sealed harness, built into every method by its Makefile.
 * Maps the inputs in $AR_IN read-only, calls matvec() once per token (the
 * decode order, each token made from the last one's output by
 * decode_next), and writes $AR_OUT/y.bin. It prints nothing on stdout. */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matvec.h"

static void
die(const char *what, const char *why)
{
	fprintf(stderr, "matvec: %s: %s\n", what, why);
	exit(1);
}

/* A decimal integer in [1, max], nothing else. */
static int
env_int(const char *name, long max)
{
	const char *v = getenv(name);
	char *end, why[64];
	long n;

	if (v == NULL || *v == '\0')
		die(name, "not set");
	errno = 0;
	n = strtol(v, &end, 10);
	if (*v < '0' || *v > '9' || errno || *end || n < 1 || n > max) {
		snprintf(why, sizeof why, "not an integer from 1 to %ld", max);
		die(name, why);
	}
	return (int)n;
}

static char *
path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p == NULL)
		die(name, "out of memory");
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Maps dir/name, which must be size bytes. MAP_POPULATE maps every page
 * now, in one go: cheaper than a fault per page and the same for every
 * method. */
static const void *
map_input(const char *dir, const char *name, size_t size)
{
	char *path = path_in(dir, name);
	struct stat st;
	void *p;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0)
		die(path, strerror(errno));
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size != size)
		die(path, "not a file of the size ROWS, COLS and TOKENS give");
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		die(path, strerror(errno));
	close(fd);
	free(path);
	return p;
}

static void *
alloc64(size_t n)
{
	void *p = aligned_alloc(64, (n + 63) / 64 * 64);

	if (p == NULL)
		die("memory", strerror(errno));
	memset(p, 0, n);
	return p;
}

int
main(void)
{
	/* gen's bounds; COLS < 2^17 keeps the int32 sums exact. */
	int rows = env_int("ROWS", 1L << 20);
	int cols = env_int("COLS", (1L << 17) - 1);
	int tokens = env_int("TOKENS", 4096), ncpu = env_int("AR_CPUS", 4096);
	const char *in = getenv("AR_IN"), *out = getenv("AR_OUT");
	size_t ny = (size_t)tokens * rows * sizeof(float), done = 0;
	const int8_t *w, *x;
	const float *ws, *xs;
	int8_t *xbuf;
	float *y;
	char *path;
	ssize_t n;
	int fd;

	if (in == NULL || *in == '\0')
		die("AR_IN", "not set");
	if (out == NULL || *out == '\0')
		die("AR_OUT", "not set");
	w = map_input(in, "w.bin", (size_t)rows * cols);
	ws = map_input(in, "ws.bin", (size_t)rows * sizeof *ws);
	x = map_input(in, "x.bin", (size_t)tokens * cols);
	xs = map_input(in, "xs.bin", (size_t)tokens * sizeof *xs);
	y = alloc64(ny);
	xbuf = alloc64((size_t)cols);

	for (int t = 0; t < tokens; t++) {
		if (t == 0)
			memcpy(xbuf, x, (size_t)cols);
		else
			decode_next(xbuf, x + (size_t)t * cols,
			    y + (size_t)(t - 1) * rows, rows, cols);
		matvec(w, ws, xbuf, xs[t], y + (size_t)t * rows, rows, cols,
		    ncpu);
	}

	path = path_in(out, "y.bin");
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		die(path, strerror(errno));
	while (done < ny) {
		if ((n = write(fd, (char *)y + done, ny - done)) < 0) {
			if (errno == EINTR)
				continue;
			die(path, strerror(errno));
		}
		done += (size_t)n;
	}
	if (close(fd) < 0)
		die(path, strerror(errno));
	free(path);
	free(xbuf);
	free(y);
	return 0;
}
