/* spool.c: maildir-style spools. Every state change is one rename(2) or
 * link(2), which are atomic on local filesystems and on NFS, so many
 * processes on many hosts can share a spool without locks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "id.h"
#include "io.h"
#include "spool.h"

static const char *states[] = { "tmp", "new", "cur", "done", "failed", "why" };

char *
ar_spool_path(const char *dir, const char *sub, const char *fname)
{
	return ar_xasprintf("%s/%s/%s", dir, sub, fname);
}

int
ar_spool_init(const char *dir)
{
	size_t i;
	char *p;

	if (ar_mkdirs(dir, 0755) < 0)
		return -1;
	for (i = 0; i < sizeof states / sizeof *states; i++) {
		p = ar_path(dir, states[i]);
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			errno = e;
			return -1;
		}
		free(p);
	}
	return ar_fsync_dir(dir);
}

int
ar_spool_check(const char *dir)
{
	struct stat st;
	size_t i;
	char *p;

	if (stat(dir, &st) < 0)
		return -1;
	for (i = 0; i < sizeof states / sizeof *states; i++) {
		p = ar_path(dir, states[i]);
		if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(p);
			errno = ENOTDIR;
			return -1;
		}
		free(p);
	}
	return 0;
}

static void
base_name(char *out, size_t n, long prio, const char *id)
{
	char order[AR_IDLEN];

	/* Smaller names sort first: higher priority, then older. */
	ar_id_new(order);
	snprintf(out, n, "%07ld-%s-%s", 1000000 - prio, order, id);
}

int
ar_spool_put(const char *dir, const char *id, long prio, const char *data,
    size_t len)
{
	char name[AR_SPOOL_NAME], *tmpdir, *tmp, *dst;
	int fd, r = AR_SP_OK, e = 0;
	struct stat st;

	base_name(name, sizeof name, prio, id);
	tmpdir = ar_path(dir, "tmp");
	tmp = ar_tmpname(tmpdir, name);
	dst = ar_spool_path(dir, "new", name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = AR_SP_ERR, e = errno;
		goto out;
	}
	if (ar_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		r = AR_SP_ERR, e = errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) < 0) {
		r = AR_SP_ERR, e = errno;
		unlink(tmp);
		goto out;
	}
	if (link(tmp, dst) < 0) {
		e = errno;
		if (e == EEXIST)
			r = AR_SP_GONE;
		else if (!(stat(tmp, &st) == 0 && st.st_nlink == 2))
			r = AR_SP_ERR;
	}
	unlink(tmp);
	if (r == AR_SP_OK) {
		char *nd = ar_path(dir, "new");

		if (ar_fsync_dir(nd) < 0)
			r = AR_SP_ERR, e = errno;
		free(nd);
	}
out:
	free(tmpdir);
	free(tmp);
	free(dst);
	errno = e;
	return r;
}

/* Makes the data of the files written so far durable with one call:
 * syncfs(2) of the filesystem that holds fd where there is one, else an
 * fsync of each file. */
static int
sync_files(int dirfd, const char *const *tmp, size_t n)
{
	size_t i;

#ifdef __linux__
	if (syncfs(dirfd) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
#else
	(void)dirfd;
#endif
	for (i = 0; i < n; i++) {
		int fd = open(tmp[i], O_RDONLY | O_CLOEXEC), r;

		if (fd < 0)
			return -1;
		r = fsync(fd);
		close(fd);
		if (r < 0)
			return -1;
	}
	return 0;
}

int
ar_spool_put_batch(const char *dir, const struct ar_spool_rec *recs,
    size_t n, size_t *stored)
{
	char name[AR_SPOOL_NAME], *tmpdir = ar_path(dir, "tmp");
	char *nd = ar_path(dir, "new");
	char **tmp = ar_xcalloc(n + 1, sizeof *tmp);
	char **dst = ar_xcalloc(n + 1, sizeof *dst);
	size_t i, written, ready, linked = 0;
	int fd, r = AR_SP_OK, e = 0, dfd;
	struct stat st;

	*stored = 0;
	/* Every record's file in tmp/, unsynced: the one sync below makes
	 * them all durable at once. A failure here stores the ones before
	 * it, as one put at a time would have. */
	for (written = 0; written < n; written++) {
		base_name(name, sizeof name, recs[written].prio,
		    recs[written].id);
		tmp[written] = ar_tmpname(tmpdir, name);
		dst[written] = ar_spool_path(dir, "new", name);
		fd = open(tmp[written], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0644);
		if (fd < 0) {
			r = AR_SP_ERR, e = errno;
			break;
		}
		if (ar_write_all(fd, recs[written].data, recs[written].len) < 0) {
			r = AR_SP_ERR, e = errno;
			close(fd);
			unlink(tmp[written]);
			break;
		}
		if (close(fd) < 0) {
			r = AR_SP_ERR, e = errno;
			unlink(tmp[written]);
			break;
		}
	}
	/* The sync comes before any of them is visible. */
	ready = written;
	if (ready > 0) {
		dfd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0 || sync_files(dfd, (const char *const *)tmp,
		    ready) < 0) {
			r = AR_SP_ERR, e = errno;
			ready = 0;
		}
		if (dfd >= 0)
			close(dfd);
	}
	for (i = 0; i < ready; i++) {
		if (link(tmp[i], dst[i]) < 0) {
			int le = errno;

			/* A link made though link(2) said no (an NFS retry)
			 * counts as made. */
			if (le == EEXIST || stat(tmp[i], &st) < 0 ||
			    st.st_nlink != 2) {
				r = le == EEXIST ? AR_SP_GONE : AR_SP_ERR;
				e = le;
				break;
			}
		}
		linked++;
	}
	/* One sync of new/ makes every link durable; only then are they
	 * stored. */
	if (linked > 0 && ar_fsync_dir(nd) < 0) {
		r = AR_SP_ERR, e = errno;
		linked = 0;
	}
	*stored = linked;
	/* The linked ones live on in new/; the rest are dropped. */
	for (i = 0; i < written; i++)
		unlink(tmp[i]);
	for (i = 0; i <= written && i < n; i++) {
		free(tmp[i]);
		free(dst[i]);
	}
	free(tmp);
	free(dst);
	free(tmpdir);
	free(nd);
	errno = e;
	return r;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
ar_spool_list(const char *dir, const char *sub, char ***names, size_t *n)
{
	char *p = ar_path(dir, sub);
	DIR *d = opendir(p);
	struct dirent *de;
	size_t cap = 0;

	free(p);
	*names = NULL;
	*n = 0;
	if (!d)
		return -1;
	errno = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*names = ar_xrealloc(*names, cap * sizeof **names);
		}
		(*names)[(*n)++] = ar_xstrdup(de->d_name);
	}
	if (errno) {
		int e = errno;
		closedir(d);
		ar_spool_free_list(*names, *n);
		*names = NULL;
		*n = 0;
		errno = e;
		return -1;
	}
	closedir(d);
	if (*n > 1)
		ar_sort(*names, *n, sizeof **names, cmp_str);
	return 0;
}

void
ar_spool_free_list(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
ar_spool_parse(const char *fname, struct ar_lease *l)
{
	const char *at, *at2;
	char num[48], *end;
	size_t n;

	memset(l, 0, sizeof *l);
	at = strchr(fname, '@');
	n = at ? (size_t)(at - fname) : strlen(fname);
	if (n >= sizeof l->name || n < 7 + 1 + 40 + 1 + 1)
		return -1;
	memcpy(l->name, fname, n);
	l->name[n] = '\0';
	if (l->name[7] != '-' || l->name[48] != '-')
		return -1;
	memcpy(num, l->name, 7);
	num[7] = '\0';
	if (strspn(num, "0123456789") != 7)
		return -1;
	l->prio = 1000000 - strtol(num, &end, 10);
	memcpy(num, l->name + 8, 40);
	num[40] = '\0';
	if (strspn(num, "0123456789TZ.-abcdef") != 40 ||
	    !ar_id_valid(l->name + 49))
		return -1;
	strcpy(l->id, l->name + 49);
	if (!at)
		return 0;
	if (!(at2 = strchr(at + 1, '@')) || (size_t)(at2 - at - 1) >=
	    sizeof num)
		return -1;
	memcpy(num, at + 1, (size_t)(at2 - at - 1));
	num[at2 - at - 1] = '\0';
	l->expires = strtoll(num, &end, 10);
	if (*end != '\0' || num[0] == '\0' || strlen(at2 + 1) > AR_ID_MAX ||
	    !ar_id_valid(at2 + 1))
		return -1;
	strcpy(l->holder, at2 + 1);
	return 0;
}

void
ar_spool_lease_name(char *out, size_t n, const struct ar_lease *l)
{
	snprintf(out, n, "%s@%lld@%s", l->name, l->expires, l->holder);
}

/* Moves a file between state directories and makes the move durable. */
static int
move(const char *dir, const char *from, const char *fname, const char *to,
    const char *tname, int sync)
{
	char *src = ar_spool_path(dir, from, fname);
	char *dst = ar_spool_path(dir, to, tname);
	char *d1, *d2;
	int r = AR_SP_OK, e = 0;

	if (rename(src, dst) < 0) {
		e = errno;
		r = e == ENOENT ? AR_SP_GONE : AR_SP_ERR;
	} else if (sync) {
		d1 = ar_path(dir, to);
		d2 = ar_path(dir, from);
		if (ar_fsync_dir(d1) < 0 || (strcmp(from, to) != 0 &&
		    ar_fsync_dir(d2) < 0))
			r = AR_SP_ERR, e = errno;
		free(d1);
		free(d2);
	}
	free(src);
	free(dst);
	errno = e;
	return r;
}

enum { TOPK = 64 };

/* The TOPK smallest names in new/, sorted, in one pass over the directory:
 * cheaper than sorting thousands of names for each claim. */
static int
smallest(const char *dir, char top[TOPK][AR_SPOOL_NAME], size_t *n)
{
	char *p = ar_path(dir, "new");
	DIR *d = opendir(p);
	struct dirent *de;
	size_t i, len;

	free(p);
	*n = 0;
	if (!d)
		return -1;
	errno = 0;
	while ((de = readdir(d))) {
		struct ar_lease l;

		/* Only record names: a stray README must not be retried
		 * forever. */
		if (de->d_name[0] == '.' || ar_spool_parse(de->d_name, &l) < 0 ||
		    l.expires)
			continue;
		len = strlen(de->d_name);
		if (*n == TOPK && strcmp(de->d_name, top[TOPK - 1]) >= 0)
			continue;
		i = *n < TOPK ? (*n)++ : TOPK - 1;
		while (i > 0 && strcmp(de->d_name, top[i - 1]) < 0) {
			memcpy(top[i], top[i - 1], sizeof top[i]);
			i--;
		}
		memcpy(top[i], de->d_name, len + 1);
	}
	i = (size_t)errno;
	closedir(d);
	errno = (int)i;
	return i ? -1 : 0;
}

int
ar_spool_claim(const char *dir, const char *holder, long long expires,
    struct ar_lease *l)
{
	char top[TOPK][AR_SPOOL_NAME];
	char lname[3 * AR_ID_MAX];
	size_t n, i;
	int r;

	for (;;) {
		if (smallest(dir, top, &n) < 0)
			return AR_SP_ERR;
		if (n == 0)
			return AR_SP_GONE;
		for (i = 0; i < n; i++) {
			if (ar_spool_parse(top[i], l) < 0 || l->expires)
				continue;
			l->expires = expires;
			snprintf(l->holder, sizeof l->holder, "%s", holder);
			ar_spool_lease_name(lname, sizeof lname, l);
			r = move(dir, "new", top[i], "cur", lname, 0);
			if (r != AR_SP_GONE)
				return r;
		}
		/* Others took every one we saw; look again. */
	}
}

int
ar_spool_claim_next(const char *dir, struct ar_claimer *c, const char *holder,
    long long expires, struct ar_lease *l)
{
	char lname[3 * AR_ID_MAX];
	struct timespec now;
	int r;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* A stale view would miss records put since with a higher
		 * priority; a second is the most it may lag. */
		if (c->pos == c->n || now.tv_sec > c->scanned.tv_sec + 1 ||
		    (now.tv_sec == c->scanned.tv_sec + 1 &&
		    now.tv_nsec >= c->scanned.tv_nsec)) {
			ar_spool_free_list(c->names, c->n);
			c->names = NULL;
			c->n = c->pos = 0;
			if (ar_spool_list(dir, "new", &c->names, &c->n) < 0)
				return AR_SP_ERR;
			c->scanned = now;
			{
				size_t i, w = 0;

				for (i = 0; i < c->n; i++) {
					if (ar_spool_parse(c->names[i], l) == 0 &&
					    !l->expires)
						c->names[w++] = c->names[i];
					else
						free(c->names[i]);
				}
				c->n = w;
			}
			if (c->n == 0)
				return AR_SP_GONE;
		}
		while (c->pos < c->n) {
			const char *name = c->names[c->pos++];

			if (ar_spool_parse(name, l) < 0 || l->expires)
				continue;
			l->expires = expires;
			snprintf(l->holder, sizeof l->holder, "%s", holder);
			ar_spool_lease_name(lname, sizeof lname, l);
			r = move(dir, "new", name, "cur", lname, 0);
			if (r != AR_SP_GONE)
				return r;
		}
	}
}

void
ar_claimer_free(struct ar_claimer *c)
{
	ar_spool_free_list(c->names, c->n);
	memset(c, 0, sizeof *c);
}

int
ar_spool_find(const char *dir, const char *id, const char *holder,
    struct ar_lease *l)
{
	char **names;
	size_t n, i;
	int r = AR_SP_GONE;

	if (ar_spool_list(dir, "cur", &names, &n) < 0)
		return AR_SP_ERR;
	for (i = 0; i < n; i++) {
		if (ar_spool_parse(names[i], l) < 0)
			continue;
		if (strcmp(l->id, id) == 0 &&
		    (!holder || strcmp(l->holder, holder) == 0)) {
			r = AR_SP_OK;
			break;
		}
	}
	ar_spool_free_list(names, n);
	return r;
}

int
ar_spool_finish(const char *dir, const struct ar_lease *l, const char *to)
{
	char lname[3 * AR_ID_MAX];

	ar_spool_lease_name(lname, sizeof lname, l);
	return move(dir, "cur", lname, to, l->name, 1);
}

int
ar_spool_renew(const char *dir, struct ar_lease *l, long long expires)
{
	char oldname[3 * AR_ID_MAX], newname[3 * AR_ID_MAX];
	long long old = l->expires;
	int r;

	ar_spool_lease_name(oldname, sizeof oldname, l);
	l->expires = expires;
	ar_spool_lease_name(newname, sizeof newname, l);
	r = move(dir, "cur", oldname, "cur", newname, 0);
	if (r != AR_SP_OK)
		l->expires = old;
	return r;
}

int
ar_spool_reap(const char *dir, long long now, size_t *returned)
{
	char **names, *p;
	size_t n, i;
	struct ar_lease l;
	struct stat st;
	int r;

	*returned = 0;
	if (ar_spool_list(dir, "cur", &names, &n) < 0)
		return AR_SP_ERR;
	for (i = 0; i < n; i++) {
		if (ar_spool_parse(names[i], &l) < 0 || l.expires > now)
			continue;
		r = move(dir, "cur", names[i], "new", l.name, 1);
		if (r == AR_SP_OK)
			(*returned)++;
		else if (r == AR_SP_ERR) {
			ar_spool_free_list(names, n);
			return r;
		}
	}
	ar_spool_free_list(names, n);
	/* Files left in tmp/ by a writer killed mid-put; a day is far
	 * longer than any put takes. */
	p = ar_path(dir, "tmp");
	{
		DIR *d = opendir(p);
		struct dirent *de;

		if (d) {
			while ((de = readdir(d))) {
				char *f;

				if (strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				f = ar_path(p, de->d_name);
				if (lstat(f, &st) == 0 &&
				    st.st_mtime < now - 86400)
					unlink(f);
				free(f);
			}
			closedir(d);
		}
	}
	free(p);
	return AR_SP_OK;
}
