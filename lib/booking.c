/* booking.c: run/gpus/NODE@SLOT files; booking.h says what they mean. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "booking.h"
#include "buf.h"
#include "io.h"
#include "spool.h"

char *
ar_booking_dir(const char *camp)
{
	return ar_path(camp, "run/gpus");
}

char *
ar_booking_path(const char *camp, const char *node, int slot)
{
	return ar_xasprintf("%s/run/gpus/%s@%d", camp, node, slot);
}

int
ar_booking_name(const char *name, char *node, size_t n, int *slot)
{
	const char *at = strrchr(name, '@');
	char *end;
	long v;

	if (!at || at == name || (size_t)(at - name) >= n || !at[1] ||
	    at[1] < '0' || at[1] > '9')
		return -1;
	v = strtol(at + 1, &end, 10);
	if (*end || v > 1 << 20)
		return -1;
	memcpy(node, name, (size_t)(at - name));
	node[at - name] = '\0';
	*slot = (int)v;
	return 0;
}

int
ar_booking_read(const char *path, struct ar_booking *b)
{
	struct ar_buf buf = {0};
	char *f[4], *s, *t;
	size_t n = 0;
	int r = -1;

	memset(b, 0, sizeof *b);
	if (ar_readfile(path, &buf, 4096) == 0) {
		s = buf.p;
		s[strcspn(s, "\n")] = '\0';
		while (n < 4 && s) {
			f[n++] = s;
			if ((t = strchr(s, '\t')))
				*t++ = '\0';
			s = t;
		}
		if (n == 4) {
			snprintf(b->exp, sizeof b->exp, "%s", f[0]);
			snprintf(b->holder, sizeof b->holder, "%s", f[1]);
			b->pid = strtol(f[2], NULL, 10);
			b->expires = strtoll(f[3], NULL, 10);
			r = 0;
		}
	}
	ar_buf_free(&buf);
	return r;
}

static char *
line_of(const struct ar_booking *b)
{
	return ar_xasprintf("%s\t%s\t%ld\t%lld\n", b->exp, b->holder, b->pid,
	    b->expires);
}

/* Whether a booking at path is still exp's, by pid. */
static int
held_by(const char *path, const char *exp, long pid)
{
	struct ar_booking cur;

	return ar_booking_read(path, &cur) == 0 && strcmp(cur.exp, exp) == 0 &&
	    cur.pid == pid;
}

int
ar_booking_make(const char *camp, const char *node, const int *slot,
    size_t n, const struct ar_booking *b)
{
	char *line = line_of(b), *dir = ar_booking_dir(camp);
	size_t i, j;
	int r = 0, e = 0;

	if (ar_mkdirs(dir, 0755) < 0) {
		e = errno;
		r = -1;
		n = 0;
	}
	for (i = 0; i < n; i++) {
		char *p = ar_booking_path(camp, node, slot[i]);
		int w = ar_write_new(p, line, strlen(line), 0644);

		e = errno;
		free(p);
		if (w != 0) {
			for (j = 0; j < i; j++)
				ar_booking_drop(camp, node, slot[j], b->exp,
				    b->pid);
			r = w < 0 ? -1 : 1;
			break;
		}
	}
	free(line);
	free(dir);
	errno = e;
	return r;
}

int
ar_booking_renew(const char *camp, const char *node, int slot,
    const struct ar_booking *b)
{
	char *p = ar_booking_path(camp, node, slot), *line = line_of(b);
	int r = 0;

	if (held_by(p, b->exp, b->pid))
		r = ar_write_atomic(p, line, strlen(line), 0644);
	free(line);
	free(p);
	return r;
}

void
ar_booking_drop(const char *camp, const char *node, int slot,
    const char *exp, long pid)
{
	char *p = ar_booking_path(camp, node, slot);

	if (held_by(p, exp, pid))
		unlink(p);
	free(p);
}

int
ar_booking_each(const char *camp, void (*fn)(const char *node, int slot,
    const struct ar_booking *b, const char *path, void *arg), void *arg)
{
	char **names, node[256], *dir = ar_booking_dir(camp);
	size_t n, i;
	int slot;

	if (ar_spool_list(camp, "run/gpus", &names, &n) < 0) {
		free(dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct ar_booking b;
		char *p;

		if (ar_booking_name(names[i], node, sizeof node, &slot) < 0)
			continue;
		p = ar_path(dir, names[i]);
		fn(node, slot, ar_booking_read(p, &b) == 0 ? &b : NULL, p, arg);
		free(p);
	}
	ar_spool_free_list(names, n);
	free(dir);
	return 0;
}
