/* methods.c: the hashes of method commits of methods/, computed once
 * per commit through the cache run/method-hashes (export -V; verify
 * rehashes every commit), and the commits methods/ lacks, asked of git
 * once per batch and kept as missing while methods/ gains no object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "io.h"
#include "method.h"
#include "proc.h"
#include "ar-ledger.h"

static int
cmp_mc(const void *a, const void *b)
{
	return strcmp(((const struct mcache *)a)->commit,
	    ((const struct mcache *)b)->commit);
}

/* bsearch(3) of the cache; an empty one has no array to search. */
static struct mcache *
mc_find(const struct lctx *cx, const struct mcache *key)
{
	return cx->nmc ? bsearch(key, cx->mc, cx->nmc, sizeof *cx->mc,
	    cmp_mc) : NULL;
}

/* Appends to the cache; the caller sorts it (mc_sort) before the next
 * lookup. */
static void
mc_add(struct lctx *cx, const char *commit, const char *hash)
{
	if (cx->nmc == cx->capmc) {
		cx->capmc = cx->capmc ? cx->capmc * 2 : 64;
		cx->mc = ar_xrealloc(cx->mc, cx->capmc * sizeof *cx->mc);
	}
	snprintf(cx->mc[cx->nmc].commit, sizeof cx->mc[cx->nmc].commit, "%s",
	    commit);
	snprintf(cx->mc[cx->nmc].hash, sizeof cx->mc[cx->nmc].hash, "%s",
	    hash);
	cx->nmc++;
}

/* Sorts the cache and drops a commit found twice. */
static void
mc_sort(struct lctx *cx)
{
	size_t i, w = 0;

	ar_sort(cx->mc, cx->nmc, sizeof *cx->mc, cmp_mc);
	for (i = 0; i < cx->nmc; i++)
		if (w == 0 || strcmp(cx->mc[i].commit, cx->mc[w - 1].commit))
			cx->mc[w++] = cx->mc[i];
	cx->nmc = w;
}

/* Inserts one commit in its place: no sort of the whole cache for each
 * new method. Returns the entry. */
static struct mcache *
mc_insert(struct lctx *cx, const char *commit, const char *hash)
{
	size_t lo = 0, hi = cx->nmc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(cx->mc[mid].commit, commit) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	mc_add(cx, commit, hash);
	if (lo + 1 < cx->nmc) {
		struct mcache m = cx->mc[cx->nmc - 1];

		memmove(&cx->mc[lo + 1], &cx->mc[lo], (cx->nmc - 1 - lo) *
		    sizeof *cx->mc);
		cx->mc[lo] = m;
	}
	return &cx->mc[lo];
}

/* run/method-hashes: "COMMIT TAB HASH" lines, and "COMMIT TAB -" for a
 * commit methods/ lacked while its objects had the stamp of the line
 * "stamp TAB STAMP". A cache: a line that is not one is skipped, and a
 * missing file is an empty one. */
static char *
mcache_path(const struct lctx *cx)
{
	char *run = ar_path(cx->camp.dir, "run"), *p;

	p = ar_path(run, "method-hashes");
	free(run);
	return p;
}

/* A hash of the stat of every place a new object of methods/ appears:
 * a loose object is a new file in objects/XX (that directory's mtime
 * and ctime move, or it is new), a pack is a new file in objects/pack,
 * and alternates add stores. "" when methods/ is no plain repository:
 * then no commit is kept as missing. */
static void
mcache_stamp(const struct lctx *cx, char out[AR_HASH_HEX])
{
	static const char *const fixed[] = { "", "pack", "info",
	    "info/alternates" };
	char *repo = ar_path(cx->camp.dir, "methods");
	char *git = ar_path(repo, ".git"), *obj = ar_path(git, "objects");
	struct ar_buf b = {0};
	struct stat st;
	size_t i;

	out[0] = '\0';
	if (lstat(git, &st) < 0 || !S_ISDIR(st.st_mode) || lstat(obj, &st) < 0
	    || !S_ISDIR(st.st_mode))
		goto done;
	for (i = 0; i < 256 + sizeof fixed / sizeof *fixed; i++) {
		char sub[32], *p;
		int r;

		if (i < 256)
			snprintf(sub, sizeof sub, "%02zx", i);
		else
			snprintf(sub, sizeof sub, "%s", fixed[i - 256]);
		p = sub[0] ? ar_path(obj, sub) : ar_xstrdup(obj);
		r = lstat(p, &st);
		free(p);
		if (r < 0) {
			if (errno != ENOENT)
				goto done;
			ar_buf_printf(&b, "%s -\n", sub);
			continue;
		}
		ar_buf_printf(&b, "%s %llu %llu %lld.%09ld %lld.%09ld %lld\n",
		    sub, (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino, (long long)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
		    st.st_ctim.tv_nsec, (long long)st.st_size);
	}
	ar_hash_hex(out, b.p, b.len);
done:
	ar_buf_free(&b);
	free(obj);
	free(git);
	free(repo);
}

static void
mcache_load(struct lctx *cx)
{
	char *path = mcache_path(cx), line[256], *tab;
	FILE *f;

	cx->mc_loaded = 1;
	/* Taken before anything is asked of git: an object added after
	 * this shows as another stamp next time. */
	mcache_stamp(cx, cx->mc_stamp);
	f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!(tab = strchr(line, '\t')))
			continue;
		*tab++ = '\0';
		if (strcmp(line, "stamp") == 0) {
			/* Missing commits hold only under today's stamp. */
			if (!cx->mc_stamp[0] || strcmp(tab, cx->mc_stamp))
				break;
			continue;
		}
		if (!ar_method_is_commit(line))
			continue;
		if (is_hex(tab, AR_HASH_HEX - 1))
			mc_add(cx, line, tab);
		else if (strcmp(tab, "-") == 0 && cx->mc_stamp[0])
			mc_add(cx, line, "");
	}
	/* Lines after a stale stamp: only the hashes, which never go
	 * stale. */
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!(tab = strchr(line, '\t')))
			continue;
		*tab++ = '\0';
		if (ar_method_is_commit(line) && is_hex(tab, AR_HASH_HEX - 1))
			mc_add(cx, line, tab);
	}
	fclose(f);
	mc_sort(cx);
}

void
mcache_save(struct lctx *cx)
{
	struct ar_buf b = {0};
	char *path, *run;
	size_t i;

	if (!cx->mc_keep || !cx->mc_new)
		return;
	/* The stamp first: a missing line counts only after it. */
	if (cx->mc_stamp[0])
		ar_buf_printf(&b, "stamp\t%s\n", cx->mc_stamp);
	for (i = 0; i < cx->nmc; i++) {
		if (!ar_method_is_commit(cx->mc[i].commit))
			continue;
		if (cx->mc[i].hash[0])
			ar_buf_printf(&b, "%s\t%s\n", cx->mc[i].commit,
			    cx->mc[i].hash);
		else if (cx->mc_stamp[0])
			ar_buf_printf(&b, "%s\t-\n", cx->mc[i].commit);
	}
	run = ar_path(cx->camp.dir, "run");
	path = mcache_path(cx);
	/* A cache: when it cannot be written, the next run hashes again. */
	if (ar_mkdirs(run, 0755) < 0 || ar_write_atomic(path, b.p ? b.p : "",
	    b.len, 0644) < 0)
		ar_warn("%s: not kept:", path);
	free(run);
	free(path);
	ar_buf_free(&b);
	cx->mc_new = 0;
}

/* Which of a batch's commits methods/ lacks, in one git process: a
 * missing commit is known unhashable for this run without a git process
 * of its own. Best effort: when git cannot be run, each is tried. */
void
mcache_missing(struct lctx *cx, struct job *jobs, size_t n)
{
	FILE *in = tmpfile(), *out = tmpfile();
	char *repo = ar_path(cx->camp.dir, "methods"), line[256];
	char *argv[] = { "git", "-C", repo, "cat-file", "--batch-check", NULL };
	struct ar_spawn sp;
	struct mcache key;
	size_t i, asked = 0, before;
	pid_t pid;

	if (cx->mc_keep && !cx->mc_loaded)
		mcache_load(cx);
	for (i = 0; in && out && i < n; i++) {
		snprintf(key.commit, sizeof key.commit, "%s", jobs[i].commit);
		/* A commit twice in a batch is asked twice: git answers
		 * both, and mc_sort drops the second. */
		if (ar_method_is_commit(key.commit) && !mc_find(cx, &key)) {
			fprintf(in, "%s\n", key.commit);
			asked++;
		}
	}
	if (!asked || fflush(in) != 0 || fseek(in, 0, SEEK_SET) != 0)
		goto done;
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.in = fileno(in);
	sp.out = fileno(out);
	sp.err = AR_FD_NULL;
	if (ar_spawn(&sp, &pid) < 0 || ar_wait(pid) != 0 ||
	    fseek(out, 0, SEEK_SET) != 0)
		goto done;
	before = cx->nmc;
	while (fgets(line, sizeof line, out)) {
		char *sp1 = strchr(line, ' ');

		/* Each commit was asked once, and was not in the cache:
		 * appended, then sorted once. */
		if (sp1 && strncmp(sp1, " missing", 8) == 0) {
			*sp1 = '\0';
			if (ar_method_is_commit(line))
				mc_add(cx, line, "");
		}
	}
	if (cx->nmc > before) {
		mc_sort(cx);
		/* Kept as missing while methods/ gains no object. */
		if (cx->mc_stamp[0])
			cx->mc_new = 1;
	}
done:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	free(repo);
}

/* The hash of a commit of methods/, through the cache (struct mcache):
 * one git process per commit is the cost of a first export -V. */
const char *
method_hash(struct lctx *cx, const char *commit)
{
	struct mcache key, *m;
	char *repo, hash[AR_HASH_HEX];

	if (cx->mc_keep && !cx->mc_loaded)
		mcache_load(cx);
	snprintf(key.commit, sizeof key.commit, "%s", commit);
	if ((m = mc_find(cx, &key)))
		return m->hash;
	repo = ar_path(cx->camp.dir, "methods");
	ar_method_hash(repo, commit, hash);
	free(repo);
	if (hash[0])
		cx->mc_new = 1;
	return mc_insert(cx, commit, hash)->hash;
}

int
methods_in_repo(const struct lctx *cx)
{
	char *repo = ar_path(cx->camp.dir, "methods");
	char head[AR_COMMIT_MAX + 1];
	int r = ar_method_commit(repo, "HEAD", head) == 0;

	free(repo);
	return r;
}
