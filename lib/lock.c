/* lock.c: lock files made with link(2) and broken under a guard; lock.h
 * says what they promise. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "host.h"
#include "io.h"
#include "lock.h"
#include "proc.h"
#include "timefmt.h"

/* What a lock file says of its holder. */
struct holder {
	char host[256];
	long pid;
	unsigned long long start;   /* 0: not recorded */
	int ok;
};

static void
parse(const char *s, struct holder *h)
{
	char tok[64];

	memset(h, 0, sizeof *h);
	/* "HOST PID START TOKEN"; a lock of an older version holds only
	 * "HOST PID TIME", whose holder is judged by its pid alone. */
	if (sscanf(s, "%255s %ld %llu %63s", h->host, &h->pid, &h->start,
	    tok) == 4)
		h->ok = h->pid > 0;
	else if (sscanf(s, "%255s %ld", h->host, &h->pid) == 2) {
		h->start = 0;
		h->ok = h->pid > 0;
	}
}

/* Whether the holder is known to be gone: it ran on this host and no
 * longer does. A holder on another host is never judged gone. */
static int
gone(const struct holder *h)
{
	if (!h->ok || !ar_host_same(h->host, ar_host()))
		return 0;
	if (h->start)
		return !ar_proc_alive(h->pid, h->start);
	return kill((pid_t)h->pid, 0) < 0 && errno == ESRCH;
}

/* Removes path if it still holds seen, under the guard PATH.break. */
static int
break_lock(const char *path, const struct ar_buf *seen)
{
	char *g = ar_xasprintf("%s.break", path);
	struct ar_buf now = {0};
	int fd = open(g, O_RDWR | O_CREAT | O_CLOEXEC, 0644), r = 0;

	if (fd >= 0 && flock(fd, LOCK_EX) == 0) {
		if (ar_readfile(path, &now, 4096) == 0 && now.len == seen->len &&
		    memcmp(now.p, seen->p, now.len) == 0 && unlink(path) == 0)
			r = 1;
	}
	if (fd >= 0)
		close(fd);
	ar_buf_free(&now);
	free(g);
	return r;
}

int
ar_lock_take(const char *path, const struct ar_lock_opts *o, int *broke,
    char *err, size_t errlen)
{
	pid_t pid = o->pid ? o->pid : getpid();
	struct ar_buf old = {0};
	unsigned char rnd[8];
	char *mine;
	double deadline;
	long breaks = 0;
	int force = o->force, r = -1, fd;

	if (broke)
		*broke = 0;
	/* The token tells two takes by one process apart. */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, rnd, sizeof rnd) != (ssize_t)sizeof rnd)
		memset(rnd, 0, sizeof rnd);
	if (fd >= 0)
		close(fd);
	mine = ar_xasprintf("%s %ld %llu %02x%02x%02x%02x%02x%02x%02x%02x\n",
	    ar_host(), (long)pid, ar_proc_start(pid), rnd[0], rnd[1], rnd[2],
	    rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	deadline = ar_mono() + (o->wait_s > 0 ? o->wait_s : 0);
	for (;;) {
		struct holder h;
		struct stat st;
		int w = ar_write_new(path, mine, strlen(mine), 0644);

		if (w == 0) {
			r = 0;
			break;
		}
		if (w < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			break;
		}
		if (ar_readfile(path, &old, 4096) < 0) {
			/* Dropped meanwhile: try again; anything else (a
			 * directory, no permission) will not go away. */
			if (errno == ENOENT)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			break;
		}
		parse(old.p, &h);
		if (breaks < 10 && (force || gone(&h) || (o->stale_s > 0 &&
		    stat(path, &st) == 0 &&
		    difftime(time(NULL), st.st_mtime) > o->stale_s))) {
			/* A break is not a wait: try again at once. */
			force = 0;
			breaks++;
			if (break_lock(path, &old) && broke)
				(*broke)++;
			continue;
		}
		if (ar_mono() >= deadline) {
			if (old.len && old.p[old.len - 1] == '\n')
				old.p[--old.len] = '\0';
			snprintf(err, errlen, "%s: busy: held by '%s' (remove it "
			    "if that process is gone)", path, old.p ? old.p :
			    "?");
			errno = EAGAIN;
			r = 1;
			break;
		}
		{
			struct timespec ts = { 0, 50 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	ar_buf_free(&old);
	free(mine);
	return r;
}

int
ar_lock_drop(const char *path, pid_t pid)
{
	struct ar_buf b = {0};
	struct holder h;
	int r = 1;

	if (!pid)
		pid = getpid();
	if (ar_readfile(path, &b, 4096) == 0) {
		parse(b.p, &h);
		if (h.ok && h.pid == (long)pid &&
		    ar_host_same(h.host, ar_host()) && (!h.start ||
		    h.start == ar_proc_start(pid)))
			r = break_lock(path, &b) ? 0 : 1;
	}
	ar_buf_free(&b);
	return r;
}

int
ar_lock_holder(const char *path, char *out, size_t n)
{
	struct ar_buf b = {0};
	struct holder h;

	if (ar_readfile(path, &b, 4096) < 0) {
		ar_buf_free(&b);
		return -1;
	}
	parse(b.p, &h);
	ar_buf_free(&b);
	if (!h.ok)
		return -1;
	snprintf(out, n, "pid %ld on %s", h.pid, h.host);
	return 0;
}
