/* seal.c: SEAL, the signed list of every file of a campaign's problem/,
 * with its mode, size and BLAKE2b hash. See ar-campaign(5). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "io.h"
#include "seal.h"
#include "timefmt.h"
#include "tsv.h"

struct entry {
	char *path;     /* relative to problem/ */
	char kind;      /* 'f' file, 'd' directory, 'l' link, '?' other */
	unsigned mode;
	long long size;
	char hash[AR_HASH_HEX];
};

struct list {
	size_t n, cap;
	struct entry *e;
};

static void
push(struct list *l, struct entry *e)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->e = ar_xrealloc(l->e, l->cap * sizeof *l->e);
	}
	l->e[l->n++] = *e;
}

static void
free_list(struct list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->e[i].path);
	free(l->e);
	memset(l, 0, sizeof *l);
}

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path,
	    ((const struct entry *)b)->path);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks root/rel into l, children sorted; hashes regular files. */
static int
walk(const char *root, const char *rel, struct list *l, char *err,
    size_t errlen)
{
	char *dir = *rel ? ar_path(root, rel) : ar_xstrdup(root);
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int r = 0;

	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = ar_xrealloc(names, cap * sizeof *names);
		}
		names[n++] = ar_xstrdup(de->d_name);
	}
	closedir(d);
	ar_sort(names, n, sizeof *names, cmp_name);
	for (i = 0; i < n; i++) {
		struct entry e;
		struct stat st;
		char *full;

		memset(&e, 0, sizeof e);
		e.path = *rel ? ar_xasprintf("%s/%s", rel, names[i]) :
		    ar_xstrdup(names[i]);
		full = ar_path(root, e.path);
		if (lstat(full, &st) < 0) {
			snprintf(err, errlen, "%s: %s", full, strerror(errno));
			free(full);
			free(e.path);
			r = -1;
			break;
		}
		e.mode = (unsigned)st.st_mode & 07777;
		e.size = S_ISREG(st.st_mode) ? (long long)st.st_size : 0;
		if (S_ISREG(st.st_mode)) {
			e.kind = 'f';
			if (ar_hash_file(full, e.hash) < 0) {
				snprintf(err, errlen, "%s: %s", full,
				    strerror(errno));
				free(full);
				free(e.path);
				r = -1;
				break;
			}
		} else if (S_ISDIR(st.st_mode))
			e.kind = 'd';
		else if (S_ISLNK(st.st_mode))
			e.kind = 'l';
		else
			e.kind = '?';
		push(l, &e);
		if (e.kind == 'd' && walk(root, e.path, l, err, errlen) < 0) {
			free(full);
			r = -1;
			break;
		}
		free(full);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
	return r;
}

/* The tree and problem/ itself, as ".", whose mode matters too. */
static int
walk_root(const char *root, struct list *l, char *err, size_t errlen)
{
	struct entry e;
	struct stat st;

	if (stat(root, &st) < 0) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return -1;
	}
	memset(&e, 0, sizeof e);
	e.path = ar_xstrdup(".");
	e.kind = 'd';
	e.mode = (unsigned)st.st_mode & 07777;
	push(l, &e);
	return walk(root, "", l, err, errlen);
}

int
ar_seal_write(const char *campaign, const char *id, const char *problem,
    const unsigned char sk[AR_SK_BYTES], char *err, size_t errlen)
{
	char *root = ar_path(campaign, "problem"), *p, sig[AR_SIG_HEX], now[32];
	struct list l = {0};
	struct ar_buf b = {0};
	size_t i;
	int r = -1;

	if (walk_root(root, &l, err, errlen) < 0)
		goto out;
	ar_sort(l.e, l.n, sizeof *l.e, cmp_entry);
	ar_time_now(now, sizeof now);
	ar_buf_printf(&b, "autoreduce-seal 1\ncampaign\t%s\nproblem\t", id);
	ar_tsv_escape(&b, problem);
	ar_buf_printf(&b, "\nbuild\t%s\ncreated\t%s\n", ar_build_id(), now);
	for (i = 0; i < l.n; i++) {
		struct entry *e = &l.e[i];

		if (e->kind == 'l' || e->kind == '?') {
			snprintf(err, errlen, "%s/%s: %s are not sealed; copy "
			    "the file itself into the problem", root, e->path,
			    e->kind == 'l' ? "symbolic links" :
			    "special files");
			goto out;
		}
		if (e->kind == 'f')
			ar_buf_printf(&b, "file\t%04o\t%lld\t%s\t", e->mode,
			    e->size, e->hash);
		else
			ar_buf_printf(&b, "dir\t%04o\t-\t-\t", e->mode);
		ar_tsv_escape(&b, e->path);
		ar_buf_addc(&b, '\n');
	}
	ar_sign_hex(sig, b.p, b.len, sk);
	ar_buf_printf(&b, "sig\t%s\n", sig);
	p = ar_path(campaign, "SEAL");
	if (ar_write_atomic(p, b.p, b.len, 0444) < 0)
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
	else
		r = 0;
	free(p);
out:
	free_list(&l);
	ar_buf_free(&b);
	free(root);
	return r;
}

/* Reads and verifies SEAL into l. -1 malformed or unreadable, -2 a bad
 * signature. */
static int
read_seal(const char *campaign, const char *id,
    const unsigned char pk[AR_PK_BYTES], struct list *l, char *err,
    size_t errlen)
{
	char *p = ar_path(campaign, "SEAL"), *line, *next, *f[6], why[128];
	struct ar_buf b = {0};
	size_t lineno = 0, body = 0;
	int r = -3, nf, sigok = 0;

	if (ar_readfile(p, &b, 64 << 20) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		free(p);
		errno = e;
		return -1;
	}
	/* The signature covers every byte before its own line. */
	{
		char *sl = b.len ? strstr(b.p, "\nsig\t") : NULL, *end;

		if (!sl || memchr(b.p, '\0', b.len)) {
			snprintf(err, errlen, "%s: no signature", p);
			r = -2;
			goto out;
		}
		body = (size_t)(sl - b.p) + 1;
		end = strchr(sl + 1, '\n');
		if (!end || end[1] != '\0') {
			snprintf(err, errlen, "%s: text after the signature", p);
			goto out;
		}
		*end = '\0';
		if (ar_verify_hex(sl + 5, b.p, body, pk) < 0) {
			snprintf(err, errlen, "%s: bad signature: the SEAL was "
			    "altered or signed by another key", p);
			r = -2;
			goto out;
		}
		sigok = 1;
		b.p[body] = '\0';
	}
	for (line = b.p; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			snprintf(err, errlen, "%s: line %zu: no newline", p,
			    lineno + 1);
			goto out;
		}
		*next++ = '\0';
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "autoreduce-seal 1") != 0) {
				snprintf(err, errlen, "%s: not a SEAL file", p);
				goto out;
			}
			continue;
		}
		nf = ar_tsv_split(line, strlen(line), f, 6, why, sizeof why);
		if (nf < 0) {
			snprintf(err, errlen, "%s: line %zu: %s", p, lineno, why);
			goto out;
		}
		if (nf == 2 && strcmp(f[0], "campaign") == 0 &&
		    strcmp(f[1], id) != 0) {
			snprintf(err, errlen, "%s: belongs to campaign %s, not "
			    "%s", p, f[1], id);
			r = -2;
			goto out;
		}
		if (nf == 5 && (strcmp(f[0], "file") == 0 ||
		    strcmp(f[0], "dir") == 0)) {
			struct entry e;

			memset(&e, 0, sizeof e);
			e.kind = f[0][0] == 'f' ? 'f' : 'd';
			e.mode = (unsigned)strtoul(f[1], NULL, 8);
			e.size = e.kind == 'f' ? strtoll(f[2], NULL, 10) : 0;
			snprintf(e.hash, sizeof e.hash, "%s",
			    e.kind == 'f' ? f[3] : "");
			e.path = ar_xstrdup(f[4]);
			push(l, &e);
		} else if (nf != 2) {
			snprintf(err, errlen, "%s: line %zu: unknown record",
			    p, lineno);
			goto out;
		}
	}
	if (!sigok) {
		snprintf(err, errlen, "%s: no signature", p);
		r = -2;
		goto out;
	}
	ar_sort(l->e, l->n, sizeof *l->e, cmp_entry);
	r = 0;
out:
	ar_buf_free(&b);
	free(p);
	return r;
}

int
ar_seal_check(const char *campaign, const char *id,
    const unsigned char pk[AR_PK_BYTES], ar_seal_report_fn report, void *arg,
    char *err, size_t errlen)
{
	struct list want = {0}, have = {0};
	char *root = ar_path(campaign, "problem");
	size_t i = 0, j = 0;
	int r, diffs = 0;

	if ((r = read_seal(campaign, id, pk, &want, err, errlen)) < 0)
		goto out;
	if ((r = walk_root(root, &have, err, errlen)) < 0)
		goto out;
	ar_sort(have.e, have.n, sizeof *have.e, cmp_entry);
	while (i < want.n || j < have.n) {
		int c = i == want.n ? 1 : j == have.n ? -1 :
		    strcmp(want.e[i].path, have.e[j].path);
		char detail[128];

		if (c < 0) {
			report(arg, "removed", want.e[i].path, "");
			diffs++;
			i++;
			continue;
		}
		if (c > 0) {
			report(arg, "added", have.e[j].path,
			    have.e[j].kind == 'l' ? "symbolic link" :
			    have.e[j].kind == 'd' ? "directory" : "");
			diffs++;
			j++;
			continue;
		}
		if (want.e[i].kind != have.e[j].kind) {
			report(arg, "changed", want.e[i].path, "type");
			diffs++;
		} else if (want.e[i].kind == 'f' && (want.e[i].size !=
		    have.e[j].size || strcmp(want.e[i].hash,
		    have.e[j].hash) != 0)) {
			report(arg, "changed", want.e[i].path, "content");
			diffs++;
		} else if (want.e[i].mode != have.e[j].mode) {
			snprintf(detail, sizeof detail, "mode %04o -> %04o",
			    want.e[i].mode, have.e[j].mode);
			report(arg, "changed", want.e[i].path, detail);
			diffs++;
		}
		i++;
		j++;
	}
	r = diffs;
out:
	free_list(&want);
	free_list(&have);
	free(root);
	return r;
}
