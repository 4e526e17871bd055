/* tree.c: unit tests of lib/tree: listing a tree with modes, sizes and
 * hashes, its content hash, copying it whole or by entry, removing it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "io.h"
#include "tree.h"
#include "unit.h"

static void
tree(void)
{
	char *dir = unit_tmpdir(), err[512], h[AR_HASH_HEX], *a, *b;
	char *p;
	struct ar_tree t, u;
	const struct ar_entry *e;
	struct stat st;
	struct ar_buf lines = {0};

	a = ar_path(dir, "a");
	b = ar_path(dir, "b");
	mkdir(a, 0755);
	unit_put(a, "run.sh", "echo hi\n", 0555);
	p = ar_path(a, "lib");
	mkdir(p, 0755);
	free(p);
	unit_put(a, "lib/x.c", "int x;\n", 0444);
	unit_put(a, "a-b", "dash\n", 0644);
	p = ar_path(a, "link");
	symlink("run.sh", p);
	free(p);
	/* The method's .git at the top is left out; deeper it is a file. */
	p = ar_path(a, ".git");
	mkdir(p, 0755);
	free(p);
	unit_put(a, ".git/HEAD", "ref\n", 0644);
	unit_put(a, "lib/.git", "gitdir\n", 0644);
	OK(ar_tree_list(a, &t, err, sizeof err) == 0, "list");
	OK(t.n == 6 && strcmp(t.e[0].path, "a-b") == 0 &&
	    strcmp(t.e[1].path, "lib") == 0 && strcmp(t.e[2].path,
	    "lib/.git") == 0 && strcmp(t.e[3].path, "lib/x.c") == 0 &&
	    strcmp(t.e[4].path, "link") == 0 && strcmp(t.e[5].path,
	    "run.sh") == 0, "sorted paths, top .git left out");
	ar_hash_hex(h, "echo hi\n", 8);
	OK((e = ar_tree_find(&t, "run.sh")) && S_ISREG(e->mode) &&
	    (e->mode & 0777) == 0555 && e->size == 8 && strcmp(e->hash, h) == 0,
	    "a file's mode, size, content hash");
	ar_hash_hex(h, "run.sh", 6);
	OK((e = ar_tree_find(&t, "link")) && S_ISLNK(e->mode) &&
	    strcmp(e->link, "run.sh") == 0 && strcmp(e->hash, h) == 0,
	    "a link and the hash of its target");
	OK((e = ar_tree_find(&t, "lib")) && S_ISDIR(e->mode) &&
	    ar_tree_find(&t, "nope") == NULL && ar_tree_find(&t, ".git") ==
	    NULL, "find");
	{
		size_t i;

		for (i = 0; i < t.n; i++)
			if (!S_ISDIR(t.e[i].mode))
				ar_buf_printf(&lines, "%s %s\t%s\n", S_ISLNK(
				    t.e[i].mode) ? "120000" : t.e[i].mode & 0111 ?
				    "100755" : "100644", t.e[i].hash, t.e[i].path);
		ar_hash_hex(h, lines.p, lines.len);
	}
	{
		char th[AR_HASH_HEX];

		ar_tree_hash(&t, th);
		OK(strcmp(th, h) == 0 && strstr(lines.p, "100755 ") &&
		    strstr(lines.p, "120000 "), "the method hash is over "
		    "git-like modes, hashes and paths");
	}
	OK(ar_tree_copy(a, b, err, sizeof err) == 0, "copy");
	OK(ar_tree_list(b, &u, err, sizeof err) == 0 && u.n == t.n,
	    "the copy lists alike");
	{
		char ha[AR_HASH_HEX], hb[AR_HASH_HEX];

		ar_tree_hash(&t, ha);
		ar_tree_hash(&u, hb);
		OK(strcmp(ha, hb) == 0, "the copy has the same hash");
	}
	p = ar_path(b, "lib/x.c");
	OK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644, "a "
	    "read-only file becomes owner-writable");
	free(p);
	p = ar_path(b, "run.sh");
	OK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0755, "an "
	    "executable stays executable");
	free(p);
	p = ar_path(b, "link");
	{
		char target[64];
		ssize_t n = readlink(p, target, sizeof target - 1);

		OK(n == 6 && memcmp(target, "run.sh", 6) == 0, "a link "
		    "is copied as a link");
	}
	free(p);
	p = ar_path(b, ".git");
	OK(access(p, F_OK) < 0, "the top .git is not copied");
	free(p);
	/* Copying an entry replaces what is there, a link too. */
	unit_put(a, "a-b", "changed\n", 0644);
	ar_tree_free(&t);
	OK(ar_tree_list(a, &t, err, sizeof err) == 0 && ar_tree_copy_entry(a,
	    b, ar_tree_find(&t, "a-b"), err, sizeof err) == 0, "copy "
	    "an entry over a file");
	{
		struct ar_buf c = {0};

		p = ar_path(b, "a-b");
		OK(ar_readfile(p, &c, 100) == 0 && strcmp(c.p, "changed\n") ==
		    0, "the entry's new content");
		free(p);
		ar_buf_free(&c);
	}
	ar_tree_free(&u);
	OK(ar_tree_scan(a, &u, 0, err, sizeof err) == 0 && (e = ar_tree_find(&u,
	    "run.sh")) && e->hash[0] == 0, "scan without hashes");
	ar_tree_free(&u);
	p = ar_path(a, "fifo");
	mkfifo(p, 0644);
	OK(ar_tree_list(a, &u, err, sizeof err) < 0 && strstr(err, "/fifo: "
	    "not a file, directory or symbolic link"), "a fifo is an "
	    "error naming it");
	free(p);
	OK(ar_tree_list("/nonexistent/ar-unit", &u, err, sizeof err) < 0 &&
	    strstr(err, "No such file or directory"), "a missing root");
	/* rm -rf, through a directory its owner made read-only. */
	p = ar_path(b, "lib");
	chmod(p, 0555);
	OK(ar_rm_rf(b, 1) == 0 && rmdir(b) == 0, "rm_rf keeps the top "
	    "when asked, and empties read-only directories");
	free(p);
	OK(ar_rm_rf(a, 0) == 0 && access(a, F_OK) < 0, "rm_rf");
	OK(ar_rm_rf(a, 0) == 0, "rm_rf of what is not there is fine");
	ar_tree_free(&t);
	ar_buf_free(&lines);
	free(a);
	free(b);
	unit_rmtree(dir);
}

const struct unit_test unit_tree[] = {
	TEST(tree),
	UNIT_END,
};
