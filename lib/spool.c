/* spool.c: maildir-style spools. Every state change is one rename(2) or
 * link(2), which are atomic on local filesystems and on NFS, so many
 * processes on many hosts can share a spool without locks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

/* SPOOL/arrivals holds a token replaced, by a rename, after every record
 * moved into new/; SPOOL/next is a claimer's hint: the smallest names of
 * new/ as one scan found them, with the token seen before that scan. While
 * the token is unchanged nothing has arrived since the scan, so the hint's
 * first name still in new/ is the first record of new/ and a claim need
 * not read the whole directory. Both files live beside the state
 * directories, so readers of new/ and cur/ never see them. */
enum { HINT_MAX = 512, TOKEN_MAX = 64 };
/* A hint older than this is not trusted: files moved into new/ by hand, or
 * by a program that does not replace the token, wait at most this long. */
#define HINT_AGE_NS 1000000000LL

/* Reads the token into tok; "-" when there is none yet. */
static int
read_token(const char *dir, char tok[TOKEN_MAX])
{
	char *p = ar_path(dir, "arrivals");
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;

	free(p);
	if (fd < 0) {
		if (errno != ENOENT)
			return -1;
		strcpy(tok, "-");
		return 0;
	}
	n = read(fd, tok, TOKEN_MAX - 1);
	close(fd);
	if (n <= 1 || tok[n - 1] != '\n')
		return -1;
	tok[n - 1] = '\0';
	return 0;
}

/* Replaces the token after an arrival. Where it cannot be replaced the
 * hint goes instead; a hint written by a scan that ran meanwhile is then
 * trusted for at most HINT_AGE_NS. */
static void
arrived(const char *dir)
{
	char tok[AR_IDLEN + 1], *tmpdir = ar_path(dir, "tmp");
	char *tmp = ar_tmpname(tmpdir, "arrivals");
	char *dst = ar_path(dir, "arrivals");
	int fd, ok = 0, e = errno;

	ar_id_new(tok);
	strcat(tok, "\n");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ok = ar_write_all(fd, tok, strlen(tok)) == 0;
		ok = close(fd) == 0 && ok;
		ok = ok && rename(tmp, dst) == 0;
		if (!ok)
			unlink(tmp);
	}
	if (!ok) {
		char *h = ar_path(dir, "next");

		unlink(h);
		free(h);
	}
	free(tmpdir);
	free(tmp);
	free(dst);
	errno = e;
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
		arrived(dir);
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
	uint64_t *ino = ar_xcalloc(n + 1, sizeof *ino);
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
		if (ar_write_all(fd, recs[written].data, recs[written].len) < 0 ||
		    fstat(fd, &st) < 0) {
			r = AR_SP_ERR, e = errno;
			close(fd);
			unlink(tmp[written]);
			break;
		}
		ino[written] = (uint64_t)st.st_ino;
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
	if (linked >= AR_SPOOL_MANIFEST_MIN)
		ar_spool_man_put(dir, recs, dst, ino, linked);
	/* One sync of new/ makes every link durable; only then are they
	 * stored. */
	if (linked > 0)
		arrived(dir);
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
	free(ino);
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

/* The smallest names in new/, at most HINT_MAX, sorted, in one pass over
 * the directory: cheaper than sorting thousands of names for each claim.
 * A name is parsed only once it would enter the list. */
struct top {
	char name[HINT_MAX][AR_SPOOL_NAME];
	char *ord[HINT_MAX];
	size_t n;
};

static int
smallest(const char *dir, struct top *t)
{
	char *p = ar_path(dir, "new");
	DIR *d = opendir(p);
	struct dirent *de;
	size_t i, len;
	int e;

	free(p);
	t->n = 0;
	for (i = 0; i < HINT_MAX; i++)
		t->ord[i] = t->name[i];
	if (!d)
		return -1;
	/* errno is cleared before each readdir(3): parsing a name may set
	 * it, and only readdir's own error must fail the scan. */
	while ((errno = 0, de = readdir(d))) {
		struct ar_lease l;
		char *slot;

		if (de->d_name[0] == '.' || (t->n == HINT_MAX &&
		    strcmp(de->d_name, t->ord[HINT_MAX - 1]) >= 0))
			continue;
		/* Only record names: a stray README must not be retried
		 * forever. */
		len = strlen(de->d_name);
		if (len >= AR_SPOOL_NAME || ar_spool_parse(de->d_name, &l) < 0 ||
		    l.expires)
			continue;
		/* The slot of the largest name, dropped when the list is
		 * full. */
		i = t->n < HINT_MAX ? t->n++ : HINT_MAX - 1;
		slot = t->ord[i];
		while (i > 0 && strcmp(de->d_name, t->ord[i - 1]) < 0) {
			t->ord[i] = t->ord[i - 1];
			i--;
		}
		memcpy(slot, de->d_name, len + 1);
		t->ord[i] = slot;
	}
	e = errno;
	closedir(d);
	errno = e;
	return e ? -1 : 0;
}

/* Writes the hint: tok as read before the scan, when the scan began, then
 * the names. It is a cache, so it is not synced, and a write that fails
 * only leaves the next claim to scan. */
static void
write_hint(const char *dir, const char *tok, const struct timespec *at,
    const struct top *t)
{
	char *tmpdir = ar_path(dir, "tmp"), *tmp = ar_tmpname(tmpdir, "next");
	char *dst = ar_path(dir, "next");
	FILE *f;
	size_t i;
	int ok;

	if ((f = fopen(tmp, "wx"))) {
		fprintf(f, "ar-spool-next 1\n%s\n%lld.%09ld\n", tok,
		    (long long)at->tv_sec, at->tv_nsec);
		for (i = 0; i < t->n; i++)
			fprintf(f, "%s\n", t->ord[i]);
		fputs("end\n", f);
		ok = fflush(f) == 0 && !ferror(f);
		/* The cursor starts past any index, whatever the clock says
		 * (a host that booted in 1970 would make a fresh hint's
		 * time look like an index). */
		if (ok) {
			struct timespec ts[2] = { { 0, UTIME_OMIT },
			    { HINT_MAX + 1, 0 } };

			ok = futimens(fileno(f), ts) == 0;
		}
		ok = fclose(f) == 0 && ok;
		if (!ok || rename(tmp, dst) < 0)
			unlink(tmp);
	}
	free(tmpdir);
	free(tmp);
	free(dst);
}

/* Reads the hint into buf and points names at its names, when it was
 * written after the last arrival and is young enough to trust; -1 when
 * it must not be used. *fd stays open on it, for the cursor; *from is
 * the cursor: the hint file's modification time, in seconds, when it is
 * at most the number of names, is the index of the first name that may
 * still be in new/ (set by the claimer of the name before it); a hint
 * just written has HINT_MAX + 1, so 0. */
static int
load_hint(const char *dir, char *buf, size_t size, char **names, size_t *n,
    int *fd, size_t *from)
{
	char tok[TOKEN_MAX], *p = ar_path(dir, "next"), *s, *nl, *end;
	struct timespec now;
	long long at, age;
	struct stat st;
	size_t len = 0;
	ssize_t r;

	*n = *from = 0;
	*fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	if (*fd < 0)
		return -1;
	if (fstat(*fd, &st) < 0)
		goto bad;
	while (len < size - 1 && (r = read(*fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	/* The whole file or nothing: a torn write lacks the last line. */
	if (len < 6 || strcmp(buf + len - 5, "\nend\n") != 0 ||
	    strncmp(buf, "ar-spool-next 1\n", 16) != 0 || read_token(dir, tok) < 0)
		goto bad;
	s = buf + 16;
	if (!(nl = strchr(s, '\n')))
		goto bad;
	*nl = '\0';
	if (strcmp(s, tok) != 0)
		goto bad;
	s = nl + 1;
	at = strtoll(s, &end, 10) * 1000000000LL;
	if (end == s || *end != '.' || strspn(end + 1, "0123456789") != 9 ||
	    end[10] != '\n')
		goto bad;
	at += strtol(end + 1, NULL, 10);
	clock_gettime(CLOCK_REALTIME, &now);
	age = (long long)now.tv_sec * 1000000000LL + now.tv_nsec - at;
	/* A hint from the future comes from a clock that jumped back. */
	if (age < 0 || age > HINT_AGE_NS)
		goto bad;
	for (s = end + 11; *s && strcmp(s, "end\n") != 0; s = nl + 1) {
		if (!(nl = strchr(s, '\n')) || *n == HINT_MAX)
			goto bad;
		*nl = '\0';
		names[(*n)++] = s;
	}
	if (st.st_mtime > 0 && (unsigned long long)st.st_mtime <= *n)
		*from = (size_t)st.st_mtime;
	return 0;
bad:
	close(*fd);
	*fd = -1;
	return -1;
}

/* Claims new/name; AR_SP_GONE when another took it first, or when name is
 * not a record name (a hint is only a cache: it cannot make a claim move
 * anything but a record of new/). */
static int
try_claim(const char *dir, const char *name, const char *holder,
    long long expires, struct ar_lease *l)
{
	char lname[3 * AR_ID_MAX];

	if (ar_spool_parse(name, l) < 0 || l->expires)
		return AR_SP_GONE;
	l->expires = expires;
	snprintf(l->holder, sizeof l->holder, "%s", holder);
	ar_spool_lease_name(lname, sizeof lname, l);
	return move(dir, "new", name, "cur", lname, 0);
}

/* Scans new/, writes the hint, and claims from what the scan found. With
 * refresh, it only writes the hint. */
static int
scan_claim(const char *dir, const char *holder, long long expires,
    struct ar_lease *l, int refresh)
{
	struct top *t = ar_xmalloc(sizeof *t);
	char tok[TOKEN_MAX];
	struct timespec at;
	size_t i;
	int r, have;

	for (;;) {
		/* The token first: an arrival after it changes it, so the
		 * hint is trusted only if the scan saw every arrival. */
		have = read_token(dir, tok) == 0;
		clock_gettime(CLOCK_REALTIME, &at);
		if (smallest(dir, t) < 0) {
			r = AR_SP_ERR;
			break;
		}
		if (t->n == 0) {
			/* An empty hint would hide files moved into new/ by
			 * hand; no hint makes the next claim look. */
			char *h = ar_path(dir, "next");

			unlink(h);
			free(h);
			r = AR_SP_GONE;
			break;
		}
		if (have)
			write_hint(dir, tok, &at, t);
		if (refresh) {
			r = AR_SP_OK;
			break;
		}
		for (i = 0, r = AR_SP_GONE; i < t->n && r == AR_SP_GONE; i++)
			r = try_claim(dir, t->ord[i], holder, expires, l);
		if (r != AR_SP_GONE)
			break;
		/* Others took every one we saw; look again. */
	}
	free(t);
	return r;
}

int
ar_spool_claim(const char *dir, const char *holder, long long expires,
    struct ar_lease *l)
{
	size_t size = HINT_MAX * (AR_SPOOL_NAME + 1) + 128, n, i, from;
	char *buf = ar_xmalloc(size), **names = ar_xmalloc(HINT_MAX *
	    sizeof *names);
	int r = AR_SP_GONE, e, fd;

	if (load_hint(dir, buf, size, names, &n, &fd, &from) == 0) {
		for (i = from; i < n; i++)
			if ((r = try_claim(dir, names[i], holder, expires,
			    l)) != AR_SP_GONE)
				break;
		e = errno;
		if (r == AR_SP_OK) {
			/* Every name before the one taken is gone, and none
			 * comes back while the token holds: the next claimer
			 * starts after it. Without the right to set the time
			 * (another user's hint) each starts at the first. */
			struct timespec ts[2] = { { 0, UTIME_OMIT },
			    { (time_t)(i + 1), 0 } };

			futimens(fd, ts);
		}
		close(fd);
		/* The one claimer that takes the hint's middle name, and
		 * each eighth after it, scans for the next hint while the
		 * rest is still claimed: so the claimers do not all find it
		 * used up and all scan at once. */
		if (r == AR_SP_OK && i >= HINT_MAX / 2 && i % (HINT_MAX / 8) == 0)
			scan_claim(dir, holder, expires, NULL, 1);
		errno = e;
	}
	free(buf);
	free(names);
	if (r != AR_SP_GONE)
		return r;
	return scan_claim(dir, holder, expires, l, 0);
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

	int r;

	ar_spool_lease_name(lname, sizeof lname, l);
	r = move(dir, "cur", lname, to, l->name, 1);
	if (r == AR_SP_OK && strcmp(to, "new") == 0)
		arrived(dir);
	return r;
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
			if (*returned)
				arrived(dir);
			return r;
		}
	}
	ar_spool_free_list(names, n);
	/* Always, not only when a lease came back: so that files moved into
	 * new/ by hand are seen by the next claim. */
	arrived(dir);
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
	ar_spool_man_prune(dir);
	return AR_SP_OK;
}
