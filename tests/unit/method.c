/* method.c: unit tests of lib/method: which paths a method may change
 * (globs, directories, git's own files, links, deletions), laying a
 * method over the baseline, and a method's commit, content hash and
 * extraction from git. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "io.h"
#include "method.h"
#include "proc.h"
#include "tree.h"
#include "unit.h"

static const char *const globs[] = { "src/*.c", "kernels/", "lib",
	"Makefile.inc", "docs/*/index.md" };

static void
mutable(void)
{
	static const struct {
		const char *path;
		int mutable;
	} t[] = {
		{ "src/a.c", 1 }, { "src/sub/x.c", 0 }, { "src/.hidden.c", 0 },
		{ "src/a.h", 0 }, { "src", 0 },
		{ "kernels/a.c", 1 }, { "kernels/deep/b.cu", 1 },
		{ "kernels", 0 }, { "kernelsx/a.c", 0 },
		{ "lib/x.c", 1 }, { "lib/.x", 1 }, { "lib", 1 },
		{ "libx/y.c", 0 }, { "lib.c", 0 },
		{ "Makefile.inc", 1 }, { "Makefile", 0 },
		{ "docs/a/index.md", 1 }, { "docs/a/b/index.md", 0 },
		{ "a.c", 0 }, { "", 0 },
	};
	static const char *const dot[] = { "*.c" }, *const kern[] = {
	    "kernels" };
	size_t i;

	for (i = 0; i < NELEM(t); i++)
		OK(ar_method_mutable(globs, NELEM(globs), t[i].path) ==
		    t[i].mutable, "mutable(%s) is %d", t[i].path, t[i].mutable);
	OK(ar_method_mutable(dot, 1, "x.c") && !ar_method_mutable(dot, 1,
	    ".x.c") && !ar_method_mutable(dot, 1, "d/x.c"), "*.c: not a "
	    "leading-dot file, not below a directory");
	OK(ar_method_mutable(kern, 1, "kernels/a.c") &&
	    ar_method_mutable(kern, 1, "kernels") &&
	    !ar_method_mutable(kern, 1, "kernelsx"), "\"kernels\" covers "
	    "kernels/a.c as \"kernels/\" does");
	OK(!ar_method_mutable(globs, 0, "src/a.c"), "no globs, nothing "
	    "mutable");
}

static void
paths(void)
{
	static const struct {
		const char *path;
		mode_t mode;
		int what;
	} t[] = {
		{ "src/a.c", S_IFREG | 0644, AR_MP_MUTABLE },
		{ "src/a.c", S_IFREG | 0755, AR_MP_MUTABLE },
		{ "src/sub/x.c", S_IFREG | 0644, AR_MP_SEALED },
		{ "src/a.c", S_IFLNK | 0777, AR_MP_NOTFILE },
		{ "kernels/d", S_IFDIR | 0755, AR_MP_NOTFILE },
		{ "src/a.c", 0, AR_MP_MUTABLE },
		{ "README", 0, AR_MP_SEALED },
		{ "README", S_IFLNK | 0777, AR_MP_SEALED },
		{ ".gitignore", S_IFREG | 0644, AR_MP_IGNORED },
		{ "src/.gitignore", S_IFREG | 0644, AR_MP_IGNORED },
		{ "kernels/.gitattributes", S_IFREG | 0644, AR_MP_IGNORED },
		{ "deep/er/.gitignore", 0, AR_MP_IGNORED },
		{ ".gitignore.bak", S_IFREG | 0644, AR_MP_SEALED },
		{ "src/x.gitignore", S_IFREG | 0644, AR_MP_SEALED },
	};
	size_t i;

	for (i = 0; i < NELEM(t); i++)
		OK(ar_method_path(globs, NELEM(globs), t[i].path, t[i].mode) ==
		    t[i].what, "path %s of mode %06o is %s", t[i].path,
		    (unsigned)t[i].mode, ar_method_path_name(t[i].what));
	OK(strcmp(ar_method_path_name(AR_MP_SEALED), "sealed") == 0 &&
	    strcmp(ar_method_path_name(AR_MP_MUTABLE), "mutable") == 0 &&
	    strcmp(ar_method_path_name(AR_MP_IGNORED), "ignored") == 0 &&
	    strcmp(ar_method_path_name(AR_MP_NOTFILE), "notfile") == 0,
	    "path names");
}

/* A baseline in dir/base, copied to dir/to, its listing in *t. */
static void
baseline(const char *dir, struct ar_tree *t)
{
	char *base = unit_path(dir, "base"), *to = unit_path(dir, "to");
	char err[512];

	unit_put(dir, "base/src/a.c", "int a;\n", 0644);
	unit_put(dir, "base/src/sub/x.c", "int x;\n", 0644);
	unit_put(dir, "base/Makefile", "all:\n", 0644);
	unit_put(dir, "base/run.sh", "echo\n", 0755);
	unit_put(dir, "base/kernels/k.cu", "k\n", 0644);
	unit_put(dir, "base/lib/d/keep", "d\n", 0644);
	if (ar_tree_list(base, t, err, sizeof err) < 0 ||
	    ar_tree_copy(base, to, err, sizeof err) < 0)
		OK(0, "setup: %s", err);
	free(base);
	free(to);
}

/* Lays dir/m over a fresh copy of the baseline; the overlay's result. */
static int
lay(const char *dir, const struct ar_tree *base, struct ar_overlay *o,
    char *err, size_t n)
{
	char *from = unit_path(dir, "m"), *to = unit_path(dir, "to"),
	    *src = unit_path(dir, "base");
	int r;

	ar_rm_rf(to, 0);
	if (ar_tree_copy(src, to, err, n) < 0)
		OK(0, "setup: %s", err);
	r = ar_method_overlay(from, base, to, globs, NELEM(globs), o, err, n);
	free(from);
	free(to);
	free(src);
	return r;
}

static void
overlay(void)
{
	char *dir = unit_tmpdir(), err[512], *t, *m;
	struct ar_tree base;
	struct ar_overlay o;
	int i;

	baseline(dir, &base);
	unit_put(dir, "m/src/a.c", "int a = 2;\n", 0644);
	unit_put(dir, "m/src/sub/x.c", "int x;\n", 0644);
	unit_put(dir, "m/Makefile", "all:\n", 0644);
	unit_put(dir, "m/kernels/new/n.cu", "n\n", 0644);
	unit_put(dir, "m/.gitignore", "*.o\n", 0644);
	OK(lay(dir, &base, &o, err, sizeof err) == 0 && !o.invalid &&
	    o.outside[0] == 0 && o.conflict[0] == 0, "a method that changes "
	    "mutable files only is valid");
	t = unit_read(dir, "to/src/a.c");
	OK(t && strcmp(t, "int a = 2;\n") == 0, "its mutable file is laid "
	    "over the copy");
	free(t);
	t = unit_read(dir, "to/kernels/new/n.cu");
	OK(t && strcmp(t, "n\n") == 0 && unit_exists(dir, "to/kernels/k.cu"),
	    "a new file under a mutable directory, its directory made; the "
	    "baseline's others stay");
	free(t);
	OK(!unit_exists(dir, "to/.gitignore"), "git's own files are not laid");
	unit_put(dir, "m/src/sub/x.c", "int x = 1;\n", 0644);
	unit_put(dir, "m/Makefile", "all: x\n", 0644);
	OK(lay(dir, &base, &o, err, sizeof err) == 0 && o.invalid &&
	    strcmp(o.outside, "Makefile, src/sub/x.c") == 0 && !o.conflict[0],
	    "sealed files that differ are named, invalid");
	unit_put(dir, "m/src/sub/x.c", "int x;\n", 0644);
	unit_put(dir, "m/Makefile", "all:\n", 0644);
	m = unit_path(dir, "m/run.sh");
	unit_put(dir, "m/run.sh", "echo\n", 0644);
	OK(lay(dir, &base, &o, err, sizeof err) == 0 && o.invalid &&
	    strcmp(o.outside, "run.sh") == 0, "a sealed file whose x bit "
	    "differs");
	unlink(m);
	free(m);
	for (i = 0; i < 7; i++) {
		char name[32];

		snprintf(name, sizeof name, "m/extra%d", i);
		unit_put(dir, name, "e\n", 0644);
	}
	OK(lay(dir, &base, &o, err, sizeof err) == 0 && o.invalid &&
	    strcmp(o.outside, "extra0, extra1, extra2, extra3, extra4 and 2 "
	    "more") == 0, "sealed files the baseline lacks: five named, and "
	    "N more");
	ar_tree_free(&base);
	unit_rmtree(dir);
}

static void
conflicts(void)
{
	char *dir = unit_tmpdir(), err[512], *p;
	struct ar_tree base;
	struct ar_overlay o;

	baseline(dir, &base);
	unit_put(dir, "m/src/a.c", "x\n", 0644);
	p = unit_path(dir, "m/kernels/l.cu");
	unit_put(dir, "m/kernels/k.cu", "k\n", 0644);
	OK(symlink("k.cu", p) == 0, "setup: a link");
	OK(lay(dir, &base, &o, err, sizeof err) == 0 && o.invalid &&
	    strcmp(o.conflict, "kernels/l.cu is not a regular file") == 0,
	    "a link at a mutable path is a conflict");
	unlink(p);
	free(p);
	p = unit_path(dir, "m/lib");
	ar_rm_rf(p, 0);
	unit_put(dir, "m/lib/d", "a file\n", 0644);
	OK(lay(dir, &base, &o, err, sizeof err) == 0 && o.invalid &&
	    strcmp(o.conflict, "lib/d is a directory in the baseline") == 0,
	    "a file where the baseline has a directory");
	ar_rm_rf(p, 0);
	free(p);
	unit_put(dir, "m/lib/d/keep/under", "x\n", 0644);
	OK(lay(dir, &base, &o, err, sizeof err) == 0 && o.invalid &&
	    strcmp(o.conflict, "lib/d/keep/under lies under lib/d/keep, which "
	    "is not a directory") == 0, "a file under one of the baseline's "
	    "files");
	p = unit_path(dir, "m/lib");
	ar_rm_rf(p, 0);
	free(p);
	p = unit_path(dir, "none");
	OK(ar_method_overlay(p, &base, dir, globs, NELEM(globs), &o, err,
	    sizeof err) == AR_EX_NOINPUT && strncmp(err, "method: ", 8) == 0 &&
	    strstr(err, "No such file or directory"), "a method that is not "
	    "there: exit 66 and why");
	free(p);
	ar_tree_free(&base);
	unit_rmtree(dir);
}

/* Runs git with args in repo; its exit status. */
static int
git(const char *repo, const char *a1, const char *a2, const char *a3,
    const char *a4)
{
	char *argv[] = { "git", "-C", (char *)repo, "-c", "user.name=unit",
	    "-c", "user.email=unit@example.org", "-c", "commit.gpgsign=false",
	    (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL };

	return ar_run(argv, AR_FD_NULL, AR_FD_NULL);
}

static void
from_git(void)
{
	char *dir = unit_tmpdir(), *repo = unit_path(dir, "repo"), err[512];
	char id[AR_COMMIT_MAX + 1], h[AR_HASH_HEX], *x = unit_path(dir, "x");
	char *t, *p;
	char *head[] = { "git", "-C", repo, "rev-parse", "HEAD", NULL };
	char *ls[] = { "git", "-C", repo, "ls-tree", "-r", "--full-tree",
	    "HEAD", NULL };
	struct ar_buf b = {0};
	struct stat st;

	unit_put(repo, "src/a.c", "int a;\n", 0644);
	unit_put(repo, "run.sh", "echo hi\n", 0755);
	p = unit_path(repo, "link");
	symlink("run.sh", p);
	free(p);
	if (git(repo, "init", "-q", NULL, NULL) != 0 || git(repo, "add", "-A",
	    NULL, NULL) != 0 || git(repo, "commit", "-q", "-m", "m") != 0) {
		OK(0, "setup: git init, add, commit");
		goto out;
	}
	OK(ar_method_commit(repo, "HEAD", id) == 0 && strlen(id) == 40 &&
	    ar_capture(head, AR_FD_NULL, &b, 4096) == 0 && strncmp(b.p, id, 40)
	    == 0, "commit: HEAD's full id");
	OK(ar_method_commit(repo, "-h", id) == -1 && ar_method_commit(repo, "",
	    id) == -1 && ar_method_commit(repo, "nosuch", id) == -1 &&
	    ar_method_commit(repo, "HEAD:run.sh", id) == -1, "commit: none for "
	    "an option, nothing, no such rev, a blob");
	OK(ar_method_commit(repo, "HEAD", id) == 0 && ar_method_hash(repo, id,
	    h) == 0 && ar_capture(ls, AR_FD_NULL, &b, 1 << 20) == 0, "hash: of "
	    "the commit");
	{
		char want[AR_HASH_HEX];

		ar_hash_hex(want, b.p, b.len);
		OK(strcmp(h, want) == 0 && strstr(b.p, "100755 blob ") &&
		    strstr(b.p, "120000 blob "), "hash: BLAKE2b-256 of git "
		    "ls-tree -r --full-tree, modes and all");
	}
	OK(ar_method_hash(repo, "-x", h) == -1 && h[0] == 0 &&
	    ar_method_hash(repo, "0000000000000000000000000000000000000000",
	    h) == -1, "hash: none for an option or a missing commit");
	mkdir(x, 0755);
	OK(ar_method_extract(repo, id, x, err, sizeof err) == 0, "extract "
	    "into an empty directory");
	t = unit_read(x, "src/a.c");
	OK(t && strcmp(t, "int a;\n") == 0, "extract: a file in its directory");
	free(t);
	p = unit_path(x, "run.sh");
	OK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0755, "extract: an "
	    "executable stays one");
	free(p);
	p = unit_path(x, "link");
	{
		char target[64] = "";
		ssize_t n = readlink(p, target, sizeof target - 1);

		OK(n == 6 && strncmp(target, "run.sh", 6) == 0, "extract: a link "
		    "is a link");
	}
	free(p);
	OK(ar_method_extract(repo, id, x, err, sizeof err) != 0, "extract: "
	    "over files already there fails");
	OK(ar_method_extract(repo, "nosuch", dir, err, sizeof err) ==
	    AR_EX_NOINPUT && strcmp(err, "nosuch: git ls-tree failed") == 0,
	    "extract: no such commit, exit 66");
out:
	ar_buf_free(&b);
	free(repo);
	free(x);
	unit_rmtree(dir);
}

static void
commit_ids(void)
{
	char s[80];

	memset(s, 'a', sizeof s);
	s[40] = '\0';
	OK(ar_method_is_commit(s), "commit id: 40 hex digits (SHA-1)");
	s[40] = '0';
	s[64] = '\0';
	OK(ar_method_is_commit(s), "commit id: 64 hex digits (SHA-256)");
	s[63] = '\0';
	OK(!ar_method_is_commit(s), "commit id: not 63 digits");
	s[63] = 'a';
	s[64] = 'a';
	s[65] = '\0';
	OK(!ar_method_is_commit(s), "commit id: not 65 digits");
	s[64] = '\0';
	s[3] = 'A';
	OK(!ar_method_is_commit(s), "commit id: lowercase only");
	s[3] = '\n';
	OK(!ar_method_is_commit(s) && !ar_method_is_commit("") &&
	    !ar_method_is_commit(NULL), "commit id: not a newline, nothing, "
	    "or NULL");
}

/* A SHA-256 repository's commit ids are 64 hex digits: the id is the
 * whole of it, not its first 40 (an abbreviation), and it is hashed and
 * extracted as a SHA-1 one is. */
static void
from_git_sha256(void)
{
	char *dir = unit_tmpdir(), *repo = unit_path(dir, "repo");
	char *x = unit_path(dir, "x"), id[AR_COMMIT_MAX + 1], h[AR_HASH_HEX];
	char err[512], *t;
	char *init[] = { "git", "init", "-q", "--object-format=sha256", repo,
	    NULL };
	char *head[] = { "git", "-C", repo, "rev-parse", "HEAD", NULL };
	struct ar_buf b = {0};

	unit_put(repo, "a.c", "int a;\n", 0644);
	if (ar_run(init, AR_FD_NULL, AR_FD_NULL) != 0 || git(repo, "add",
	    "-A", NULL, NULL) != 0 || git(repo, "commit", "-q", "-m", "m")
	    != 0 || ar_capture(head, AR_FD_NULL, &b, 4096) != 0) {
		OK(0, "setup: git init --object-format=sha256, add, commit");
		goto out;
	}
	OK(ar_method_commit(repo, "HEAD", id) == 0 && strlen(id) == 64 &&
	    b.len == 65 && strncmp(b.p, id, 64) == 0, "commit: a SHA-256 "
	    "repository's full id, 64 digits");
	OK(ar_method_hash(repo, id, h) == 0 && strlen(h) == 64, "hash: of a "
	    "SHA-256 commit");
	mkdir(x, 0755);
	OK(ar_method_extract(repo, id, x, err, sizeof err) == 0, "extract: a "
	    "SHA-256 commit");
	t = unit_read(x, "a.c");
	OK(t && strcmp(t, "int a;\n") == 0, "extract: its file");
	free(t);
out:
	ar_buf_free(&b);
	free(repo);
	free(x);
	unit_rmtree(dir);
}

static void
changes(void)
{
	static const char raw[] =
	    ":100644 100644 aaa bbb M\0run.sh\0"
	    ":000000 100755 000 ccc A\0src/a b.c\0"
	    ":100644 000000 ddd 000 D\0notes.txt\0"
	    ":000000 120000 000 eee A\0link\0";
	struct ar_change c;
	size_t pos = 0;

	OK(ar_method_change(raw, sizeof raw - 1, &pos, &c) == 1 &&
	    strcmp(c.path, "run.sh") == 0 && S_ISREG(c.mode) &&
	    strcmp(c.what, "modified") == 0, "change: a file modified");
	OK(ar_method_change(raw, sizeof raw - 1, &pos, &c) == 1 &&
	    strcmp(c.path, "src/a b.c") == 0 && S_ISREG(c.mode) &&
	    (c.mode & 0777) == 0755 && strcmp(c.what, "added") == 0,
	    "change: an executable added, a blank in its path");
	OK(ar_method_change(raw, sizeof raw - 1, &pos, &c) == 1 &&
	    c.mode == 0 && strcmp(c.what, "deleted") == 0, "change: a "
	    "deletion has mode 0");
	OK(ar_method_change(raw, sizeof raw - 1, &pos, &c) == 1 &&
	    S_ISLNK(c.mode), "change: a link");
	OK(ar_method_change(raw, sizeof raw - 1, &pos, &c) == 0 &&
	    pos == sizeof raw - 1, "change: the end");
	pos = 0;
	OK(ar_method_change(":100644 100644 a b M\0run.sh", 26, &pos, &c) ==
	    -1, "change: a path without its NUL is not raw diff");
	pos = 0;
	OK(ar_method_change("100644 100644 a b M\0x\0", 22, &pos, &c) == -1,
	    "change: no leading colon");
	pos = 0;
	OK(ar_method_change(":100644\0x\0", 11, &pos, &c) == -1,
	    "change: too few fields");
	pos = 0;
	OK(ar_method_change(":100644 100644 a b M\0\0", 23, &pos, &c) == -1,
	    "change: an empty path");
}

const struct unit_test unit_method[] = {
	TEST(changes),
	TEST(mutable),
	TEST(paths),
	TEST(overlay),
	TEST(conflicts),
	TEST(from_git),
	TEST(from_git_sha256),
	TEST(commit_ids),
	UNIT_END,
};
