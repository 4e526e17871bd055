/* evil: the baseline's kernel, honest output, that on its first call tries
 * to break out of the sandbox, for the benchmark's tests. It reads the
 * campaign's conf and secret key (where AR_PROBLEM's parent is the
 * campaign), writes where no run may, and says on stderr how each try
 * went: "evil: read PATH: ok" or the error. What it reads it copies to
 * $AR_OUT/stolen.txt. It never crashes and never stops the kernel. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matvec.h"

#define PATH_LEN 4096

static char loot[PATH_LEN];

static void
join(char *buf, const char *dir, const char *name)
{
	snprintf(buf, PATH_LEN, "%s/%s", dir, name);
}

/* Reads up to n - 1 bytes of path into buf, NUL-terminated, and copies
 * them to the loot file. Returns 0, or -1 when it could not. */
static int
try_read(const char *path, char *buf, size_t n)
{
	ssize_t got = -1;
	int fd, e;
	FILE *f;

	if ((fd = open(path, O_RDONLY)) >= 0) {
		got = read(fd, buf, n - 1);
		e = errno;
		close(fd);
	} else
		e = errno;
	fprintf(stderr, "evil: read %s: %s\n", path, got >= 0 ? "ok" :
	    strerror(e));
	if (got < 0)
		return -1;
	buf[got] = '\0';
	if (*loot && (f = fopen(loot, "a")) != NULL) {
		fprintf(f, "== %s ==\n%s\n", path, buf);
		fclose(f);
	}
	return 0;
}

static void
try_write(const char *path)
{
	int fd, ok = 0, e;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		e = errno;
	else {
		ok = write(fd, "evil\n", 5) == 5;
		e = errno;
		if (close(fd) < 0 && ok) {
			ok = 0;
			e = errno;
		}
	}
	fprintf(stderr, "evil: write %s: %s\n", path, ok ? "ok" : strerror(e));
}

/* The value of the "key = PATH" line of a campaign.conf, or NULL. */
static char *
conf_key(char *conf)
{
	for (char *line = strtok(conf, "\n"); line; line = strtok(NULL, "\n")) {
		char *v, *end;

		line += strspn(line, " \t");
		if (strncmp(line, "key", 3) != 0)
			continue;
		v = line + 3 + strspn(line + 3, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		for (end = v + strlen(v); end > v && strchr(" \t", end[-1]);)
			*--end = '\0';
		return *v ? v : NULL;
	}
	return NULL;
}

static void
escape(void)
{
	const char *problem = getenv("AR_PROBLEM"), *method = getenv("AR_METHOD");
	const char *home = getenv("HOME"), *out = getenv("AR_OUT");
	static char path[PATH_LEN], buf[65536], key[PATH_LEN];
	char *k;

	if (out)
		join(loot, out, "stolen.txt");
	if (problem) {
		join(path, problem, "../campaign.conf");
		*key = '\0';
		if (try_read(path, buf, sizeof buf) == 0 &&
		    (k = conf_key(buf)) != NULL) {
			if (*k == '/')
				snprintf(key, sizeof key, "%s", k);
			else
				snprintf(key, sizeof key, "%s/../%s", problem, k);
		}
		join(path, problem, "../keys/bench.key");
		try_read(path, buf, sizeof buf);
		if (*key)
			try_read(key, buf, sizeof buf);
		else
			fprintf(stderr, "evil: read the key campaign.conf "
			    "names: no campaign.conf or no key in it\n");
		join(path, problem, "../ledger/evil");
		try_write(path);
		join(path, problem, "evil");
		try_write(path);
	} else
		fprintf(stderr, "evil: AR_PROBLEM: not set\n");
	if (method) {
		join(path, method, "evil");
		try_write(path);
	} else
		fprintf(stderr, "evil: AR_METHOD: not set\n");
	try_write("/usr/evil");
	if (home) {
		join(path, home, "../evil-outside");
		try_write(path);
	} else
		fprintf(stderr, "evil: HOME: not set\n");
}

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	static int once;

	(void)ncpu;
	if (!once++)
		escape();
	for (int r = 0; r < rows; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		int32_t acc = 0;

		for (int c = 0; c < cols; c++)
			acc += (int32_t)wr[c] * x[c];
		y[r] = ((float)acc * ws[r]) * xs;
	}
}
