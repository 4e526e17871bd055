/* tree.c: directory trees as ar-bench handles methods: a sorted listing
 * with each file's hash, a copy that makes every file writable by its
 * owner, recursive removal, and the content hash of a method directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "io.h"
#include "tree.h"

static int
cmp_entry(const void *a, const void *b)
{
	const struct ar_entry *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int
walk(const char *root, const char *rel, struct ar_tree *t, int hash,
    char *err, size_t errlen)
{
	char *dir = rel[0] ? ar_xasprintf("%s/%s", root, rel) :
	    ar_xstrdup(root);
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	while ((e = readdir(d))) {
		struct ar_entry en = {0};
		char *full;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* A method's git metadata is not part of the method. */
		if (!rel[0] && strcmp(e->d_name, ".git") == 0)
			continue;
		en.path = rel[0] ? ar_xasprintf("%s/%s", rel, e->d_name) :
		    ar_xstrdup(e->d_name);
		full = ar_xasprintf("%s/%s", root, en.path);
		if (lstat(full, &st) < 0) {
			snprintf(err, errlen, "%s: %s", full, strerror(errno));
			free(full);
			free(en.path);
			r = -1;
			break;
		}
		en.mode = st.st_mode;
		en.size = st.st_size;
		if (S_ISREG(st.st_mode)) {
			if (hash && ar_hash_file(full, en.hash) < 0) {
				snprintf(err, errlen, "%s: %s", full,
				    strerror(errno));
				r = -1;
			}
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(full, target, sizeof target - 1);

			if (n < 0) {
				snprintf(err, errlen, "%s: %s", full,
				    strerror(errno));
				r = -1;
			} else {
				target[n] = 0;
				en.link = ar_xstrdup(target);
				ar_hash_hex(en.hash, target, (size_t)n);
			}
		} else if (!S_ISDIR(st.st_mode) && hash) {
			/* A listing without hashes names special files; their
			 * caller decides. */
			snprintf(err, errlen, "%s: not a file, directory or "
			    "symbolic link", full);
			r = -1;
		}
		free(full);
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 64;
			t->e = ar_xrealloc(t->e, t->cap * sizeof *t->e);
		}
		t->e[t->n++] = en;
		if (r < 0)
			break;
		if (S_ISDIR(st.st_mode) && walk(root, en.path, t, hash, err,
		    errlen) < 0) {
			r = -1;
			break;
		}
	}
	closedir(d);
	free(dir);
	return r;
}

int
ar_tree_scan(const char *root, struct ar_tree *t, int hash, char *err,
    size_t errlen)
{
	memset(t, 0, sizeof *t);
	if (walk(root, "", t, hash, err, errlen) < 0) {
		ar_tree_free(t);
		return -1;
	}
	ar_sort(t->e, t->n, sizeof *t->e, cmp_entry);
	return 0;
}

int
ar_tree_list(const char *root, struct ar_tree *t, char *err, size_t errlen)
{
	return ar_tree_scan(root, t, 1, err, errlen);
}

const struct ar_entry *
ar_tree_find(const struct ar_tree *t, const char *path)
{
	struct ar_entry key = { .path = (char *)path };

	if (!t->n)
		return NULL;
	return bsearch(&key, t->e, t->n, sizeof *t->e, cmp_entry);
}

void
ar_tree_free(struct ar_tree *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->e[i].path);
		free(t->e[i].link);
	}
	free(t->e);
	memset(t, 0, sizeof *t);
}

/* The git-like mode of an entry: what a method's content hash covers. */
static const char *
git_mode(mode_t m)
{
	if (S_ISLNK(m))
		return "120000";
	return m & 0111 ? "100755" : "100644";
}

void
ar_tree_hash(const struct ar_tree *t, char out[AR_HASH_HEX])
{
	struct ar_buf b = {0};
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!S_ISDIR(t->e[i].mode))
			ar_buf_printf(&b, "%s %s\t%s\n", git_mode(t->e[i].mode),
			    t->e[i].hash, t->e[i].path);
	ar_hash_hex(out, b.p ? b.p : "", b.len);
	ar_buf_free(&b);
}

static int
copy_file(const char *src, const char *dst, mode_t mode, char *err,
    size_t errlen)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return -1;
	}
	/* Owner-writable, executable as the source was: a sealed 0444 file
	 * becomes an ordinary file of the scratch copy. */
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    mode & 0111 ? 0755 : 0644);
	if (out < 0) {
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		close(in);
		return -1;
	}
	/* In the kernel first (no copy through this process; a reflink
	 * where the file system has them: ar-bench copies a pair's inputs
	 * for each role); read and write where it cannot. Both go on from
	 * the files' offsets, so a fallback half-way is fine. */
	while ((n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0)) > 0)
		;
	if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
	    errno == EOPNOTSUPP || errno == EBADF))
		while ((n = read(in, buf, sizeof buf)) > 0)
			if (ar_write_all(out, buf, (size_t)n) < 0)
				break;
	if (n != 0) {
		int e = errno;

		close(out);
		close(in);
		snprintf(err, errlen, "%s: copying to %s: %s", src, dst,
		    strerror(e));
		return -1;
	}
	close(in);
	if (close(out) < 0) {
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		return -1;
	}
	return 0;
}

int
ar_tree_copy_entry(const char *src, const char *dst,
    const struct ar_entry *e, char *err, size_t errlen)
{
	char *s = ar_path(src, e->path), *d = ar_path(dst, e->path);
	int r = 0;

	if (S_ISDIR(e->mode)) {
		if (mkdir(d, 0755) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", d, strerror(errno));
			r = -1;
		}
	} else {
		/* A file replaces whatever the overlay found there. */
		if (unlink(d) < 0 && errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", d, strerror(errno));
			r = -1;
		} else if (S_ISLNK(e->mode)) {
			if (symlink(e->link, d) < 0) {
				snprintf(err, errlen, "%s: %s", d,
				    strerror(errno));
				r = -1;
			}
		} else {
			r = copy_file(s, d, e->mode, err, errlen);
		}
	}
	free(s);
	free(d);
	return r;
}

int
ar_tree_copy(const char *src, const char *dst, char *err, size_t errlen)
{
	struct ar_tree t;
	size_t i;
	int r = 0;

	if (ar_tree_list(src, &t, err, errlen) < 0)
		return -1;
	if (ar_mkdirs(dst, 0755) < 0) {
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		ar_tree_free(&t);
		return -1;
	}
	/* Sorted paths put every directory before what it holds. */
	for (i = 0; i < t.n && r == 0; i++)
		r = ar_tree_copy_entry(src, dst, &t.e[i], err, errlen);
	ar_tree_free(&t);
	return r;
}

static int
rm_at(int at, const char *name, int keep_top)
{
	struct stat st;
	int fd, r = 0;
	DIR *d;
	struct dirent *e;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0) < 0 && errno != ENOENT ? -1 : 0;
	/* Removal must not be stopped by a directory its method made
	 * read-only. */
	if (!(st.st_mode & S_IWUSR))
		fchmodat(at, name, st.st_mode | S_IRWXU, 0);
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			if (rm_at(dirfd(d), e->d_name, 0) < 0)
				r = -1;
	closedir(d);
	if (!keep_top && unlinkat(at, name, AT_REMOVEDIR) < 0 &&
	    errno != ENOENT)
		r = -1;
	return r;
}

int
ar_rm_rf(const char *path, int keep_top)
{
	return rm_at(AT_FDCWD, path, keep_top);
}
