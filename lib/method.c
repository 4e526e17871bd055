/* method.c: the mutable-path rule, a method's commit and content hash, and
 * laying a method over the baseline; method.h says what each promises. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "io.h"
#include "method.h"
#include "proc.h"

/* What git prints of a tree or a blob: bounded, so that a huge method
 * cannot take all of memory. */
#define GIT_OUT_MAX ((size_t)64 << 20)

int
ar_method_mutable(const char *const *globs, size_t n, const char *path)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		const char *g = globs[i];

		if (fnmatch(g, path, FNM_PATHNAME | FNM_PERIOD) == 0)
			return 1;
		/* A directory named in mutable covers all below it. */
		len = strlen(g);
		if (len && g[len - 1] == '/' && strncmp(path, g, len) == 0)
			return 1;
		if (len && strncmp(path, g, len) == 0 && path[len] == '/')
			return 1;
	}
	return 0;
}

int
ar_method_path(const char *const *globs, size_t n, const char *path,
    mode_t mode)
{
	const char *base = strrchr(path, '/');

	/* git's own files say how to store a tree, not what a method
	 * does. */
	base = base ? base + 1 : path;
	if (strcmp(base, ".gitignore") == 0 ||
	    strcmp(base, ".gitattributes") == 0)
		return AR_MP_IGNORED;
	if (!ar_method_mutable(globs, n, path))
		return AR_MP_SEALED;
	return mode == 0 || S_ISREG(mode) ? AR_MP_MUTABLE : AR_MP_NOTFILE;
}

const char *
ar_method_path_name(int what)
{
	switch (what) {
	case AR_MP_MUTABLE: return "mutable";
	case AR_MP_IGNORED: return "ignored";
	case AR_MP_NOTFILE: return "notfile";
	default: return "sealed";
	}
}

int
ar_method_change(const char *buf, size_t len, size_t *pos,
    struct ar_change *c)
{
	const char *meta = buf + *pos, *nul, *path, *end;
	unsigned long oldm, newm;
	char st;

	if (*pos >= len)
		return 0;
	if (!(nul = memchr(meta, '\0', len - *pos)) || meta[0] != ':' ||
	    sscanf(meta, ":%lo %lo %*s %*s %c", &oldm, &newm, &st) != 3)
		return -1;
	path = nul + 1;
	end = path < buf + len ? memchr(path, '\0', (size_t)(buf + len -
	    path)) : NULL;
	if (!end || end == path)
		return -1;
	(void)oldm;
	/* git's modes: a file, an executable, a link, a submodule. */
	c->mode = newm == 0 ? 0 : newm == 0100644 || newm == 0100755 ?
	    (mode_t)(S_IFREG | (newm & 0777)) : newm == 0120000 ?
	    (mode_t)(S_IFLNK | 0777) : (mode_t)0160000;
	c->path = path;
	c->what = st == 'A' ? "added" : st == 'D' ? "deleted" : "modified";
	*pos = (size_t)(end + 1 - buf);
	return 1;
}

int
ar_method_is_commit(const char *s)
{
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;

	return (n == 40 || n == AR_COMMIT_MAX) && s[n] == '\0';
}

int
ar_method_commit(const char *repo, const char *rev,
    char out[AR_COMMIT_MAX + 1])
{
	char *spec, *argv[] = { "git", "-C", (char *)repo, "rev-parse",
	    "--verify", "--quiet", NULL, NULL };
	struct ar_buf b = {0};
	size_t n;
	int st;

	/* Never an option to git. */
	if (rev[0] == '-' || !rev[0])
		return -1;
	spec = ar_xasprintf("%s^{commit}", rev);
	argv[6] = spec;
	st = ar_capture(argv, AR_FD_NULL, &b, 4096);
	free(spec);
	/* SHA-1 or SHA-256, whichever the repository uses: cut short, a
	 * SHA-256 id would be only an abbreviation of the commit. */
	if (st != 0 || !b.p || (n = strcspn(b.p, "\n")) > AR_COMMIT_MAX ||
	    b.p[n] != '\n') {
		ar_buf_free(&b);
		return -1;
	}
	memcpy(out, b.p, n);
	out[n] = '\0';
	ar_buf_free(&b);
	return ar_method_is_commit(out) ? 0 : -1;
}

int
ar_method_hash(const char *repo, const char *commit, char out[AR_HASH_HEX])
{
	char *argv[] = { "git", "-C", (char *)repo, "ls-tree", "-r",
	    "--full-tree", (char *)commit, NULL };
	struct ar_buf b = {0};
	int r = -1;

	out[0] = '\0';
	if (commit[0] != '-' && ar_capture(argv, AR_FD_NULL, &b,
	    GIT_OUT_MAX) == 0) {
		ar_hash_hex(out, b.p, b.len);
		r = 0;
	}
	ar_buf_free(&b);
	return r;
}

/* Makes the directories above root/rel, one component at a time, never
 * through a symbolic link or over a file: -1 and why when one is in the
 * way, -2 when one cannot be made. */
static int
mkparents(const char *root, const char *rel, char *why, size_t n)
{
	char *p = ar_xstrdup(rel), *s;
	struct stat st;
	int r = 0;

	for (s = strchr(p, '/'); s && r == 0; s = strchr(s + 1, '/')) {
		char *full;

		*s = 0;
		full = ar_path(root, p);
		if (lstat(full, &st) < 0) {
			if (errno != ENOENT || mkdir(full, 0755) < 0) {
				snprintf(why, n, "%s: %s", full, strerror(errno));
				r = -2;
			}
		} else if (!S_ISDIR(st.st_mode)) {
			snprintf(why, n, "%s lies under %s, which is %s", rel,
			    p, S_ISLNK(st.st_mode) ? "a symbolic link" :
			    "not a directory");
			r = -1;
		}
		free(full);
		*s = '/';
	}
	free(p);
	return r;
}

/* A path a tree of git may hold: relative, and never above its root. */
static int
inside(const char *path)
{
	size_t len = strlen(path);

	return path[0] != '/' && strcmp(path, "..") != 0 &&
	    strncmp(path, "../", 3) != 0 && !strstr(path, "/../") &&
	    !(len >= 3 && strcmp(path + len - 3, "/..") == 0);
}

int
ar_method_extract(const char *repo, const char *commit, const char *dir,
    char *err, size_t errlen)
{
	char *a[] = { "git", "-C", (char *)repo, "ls-tree", "-r", "-z",
	    "--full-tree", (char *)commit, NULL };
	struct ar_buf ls = {0}, blob = {0};
	char *p, *end, why[600];
	int pass, rc = 0;

	if (ar_capture(a, AR_FD_NULL, &ls, GIT_OUT_MAX) != 0) {
		snprintf(err, errlen, "%s: git ls-tree failed", commit);
		rc = AR_EX_NOINPUT;
		goto out;
	}
	/* Files first, links last: no file is ever written through a link
	 * of the same commit. */
	for (pass = 0; pass < 2 && rc == 0; pass++)
	for (p = ls.p, end = ls.p + ls.len; p < end && rc == 0;
	    p += strlen(p) + 1) {
		char mode[8], type[8], oid[65], *path = strchr(p, '\t');
		char *b[] = { "git", "-C", (char *)repo, "cat-file", "blob",
		    oid, NULL };
		char *full;
		int fd;

		if (!path || sscanf(p, "%7s %7s %64s", mode, type, oid) != 3) {
			snprintf(err, errlen, "%s: git ls-tree: a line it "
			    "cannot read", commit);
			rc = AR_EX_DATA;
			break;
		}
		path++;
		if (pass != (strcmp(mode, "120000") == 0))
			continue;
		if (strcmp(type, "blob") != 0) {
			snprintf(err, errlen, "%s: %s is a %s; a method holds "
			    "files only", commit, path, type);
			rc = AR_EX_DATA;
			break;
		}
		if (!inside(path)) {
			snprintf(err, errlen, "%s: %s: not a path inside the "
			    "method", commit, path);
			rc = AR_EX_DATA;
			break;
		}
		if (ar_capture(b, AR_FD_NULL, &blob, GIT_OUT_MAX) != 0) {
			snprintf(err, errlen, "%s: git cat-file %s failed",
			    commit, oid);
			rc = AR_EX_NOINPUT;
			break;
		}
		if (mkparents(dir, path, why, sizeof why) < 0) {
			snprintf(err, errlen, "%s: %s", commit, why);
			rc = AR_EX_DATA;
			break;
		}
		full = ar_path(dir, path);
		if (strcmp(mode, "120000") == 0) {
			if (symlink(blob.p, full) < 0) {
				rc = ar_errno_exit(errno);
				snprintf(err, errlen, "%s: %s", full,
				    strerror(errno));
			}
		} else {
			fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, strcmp(mode, "100755") == 0 ? 0755 :
			    0644);
			if (fd < 0 || ar_write_all(fd, blob.p, blob.len) < 0 ||
			    close(fd) < 0) {
				rc = ar_errno_exit(errno);
				snprintf(err, errlen, "%s: %s", full,
				    strerror(errno));
			}
		}
		free(full);
	}
out:
	ar_buf_free(&ls);
	ar_buf_free(&blob);
	return rc;
}

/* Adds a path to a list of at most 5 shown. */
static void
list_add(char *list, size_t n, size_t *count, const char *path)
{
	size_t len = strlen(list);

	if ((*count)++ < 5)
		snprintf(list + len, n - len, "%s%s", len ? ", " : "", path);
}

int
ar_method_overlay(const char *from, const struct ar_tree *base,
    const char *to, const char *const *globs, size_t n,
    struct ar_overlay *o, char *err, size_t errlen)
{
	struct ar_tree t;
	char why[512];
	size_t i, nout = 0;
	int rc = 0;

	memset(o, 0, sizeof *o);
	if (ar_tree_list(from, &t, why, sizeof why) < 0) {
		snprintf(err, errlen, "method: %s", why);
		return AR_EX_NOINPUT;
	}
	for (i = 0; i < t.n && rc == 0; i++) {
		const struct ar_entry *e = &t.e[i], *b;
		int mk, what;
		struct stat st;
		char *d;

		if (S_ISDIR(e->mode))
			continue;
		what = ar_method_path(globs, n, e->path, e->mode);
		if (what == AR_MP_IGNORED)
			continue;
		if (what == AR_MP_NOTFILE) {
			if (!o->conflict[0])
				snprintf(o->conflict, sizeof o->conflict, "%s "
				    "is not a regular file", e->path);
			continue;
		}
		if (what == AR_MP_SEALED) {
			b = ar_tree_find(base, e->path);
			if (b && (b->mode & S_IFMT) == (e->mode & S_IFMT) &&
			    strcmp(b->hash, e->hash) == 0 &&
			    !!(b->mode & 0111) == !!(e->mode & 0111))
				continue;
			list_add(o->outside, sizeof o->outside, &nout, e->path);
			continue;
		}
		mk = mkparents(to, e->path, why, sizeof why);
		if (mk == -2) {
			snprintf(err, errlen, "%s", why);
			rc = AR_EX_IO;
			break;
		}
		/* A directory of the baseline where the method has a file,
		 * or the other way round: the method does not fit over the
		 * baseline. */
		d = ar_path(to, e->path);
		if (mk == 0 && lstat(d, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(why, sizeof why, "%s is a directory in the "
			    "baseline", e->path);
			mk = -1;
		}
		free(d);
		if (mk < 0) {
			/* Cut to fit: it names a path for a person. */
			if (!o->conflict[0] && snprintf(o->conflict,
			    sizeof o->conflict, "%s", why) < 0)
				o->conflict[0] = 0;
			continue;
		}
		if (ar_tree_copy_entry(from, to, e, why, sizeof why) < 0) {
			rc = ar_errno_exit(errno);
			snprintf(err, errlen, "%s", why);
		}
	}
	if (nout > 5) {
		size_t len = strlen(o->outside);

		snprintf(o->outside + len, sizeof o->outside - len,
		    " and %zu more", nout - 5);
	}
	o->invalid = nout > 0 || o->conflict[0];
	ar_tree_free(&t);
	return rc;
}
