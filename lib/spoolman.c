/* spoolman.c: a batch's manifest, SPOOL/batch/NAME (spool.h, ar-spool(5)):
 * every record of one put of many, so that a reader of many records
 * reads one file instead of each. Kept apart from spool.c, whose
 * renames are the spool's truth: a manifest is only ever a shortcut to
 * bytes the records' own files hold. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "hmap.h"
#include "io.h"
#include "spool.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file: "ar-spool batch 1", then each record as "NAME INODE LENGTH",
 * its bytes and a newline, then "sum HASH" of all before it (BLAKE2b). */
#define MAN_MAGIC "ar-spool batch 1\n"

void
ar_spool_man_put(const char *dir, const struct ar_spool_rec *recs,
    char *const *dst, const uint64_t *ino, size_t n)
{
	struct ar_buf b = {0};
	char h[AR_HASH_HEX], *bd = ar_path(dir, "batch");
	char *path = NULL;
	const char *name;
	size_t i;
	int e = errno;

	if (mkdir(bd, 0755) < 0 && errno != EEXIST)
		goto out;
	ar_buf_add(&b, MAN_MAGIC, sizeof MAN_MAGIC - 1);
	for (i = 0; i < n; i++) {
		/* The name it was linked under, in new/. */
		name = strrchr(dst[i], '/') + 1;
		if (i == 0)
			path = ar_path(bd, name);
		ar_buf_printf(&b, "%s %llu %zu\n", name,
		    (unsigned long long)ino[i], recs[i].len);
		ar_buf_add(&b, recs[i].data, recs[i].len);
		ar_buf_add(&b, "\n", 1);
	}
	ar_hash_hex(h, b.p, b.len);
	ar_buf_printf(&b, "sum %s\n", h);
	/* Not synced: a reader checks it and reads records without it. */
	(void)ar_write_cache(path, b.p, b.len, 0644);
out:
	free(path);
	free(bd);
	ar_buf_free(&b);
	errno = e;
}

/* Parses one manifest file's bytes (kept in m) into m's entries; -1 when
 * it is not one whole manifest. */
static int
man_parse(struct ar_spool_man *m, char *p, size_t len)
{
	char *end = p + len, *q, *nl, h[AR_HASH_HEX];
	size_t first = m->n;

	if (len < sizeof MAN_MAGIC - 1 + 5 + AR_HASH_HEX || memcmp(p,
	    MAN_MAGIC, sizeof MAN_MAGIC - 1) || end[-1] != '\n')
		return -1;
	/* The last line: "sum HASH". */
	q = end - 1 - (AR_HASH_HEX - 1) - 4;
	if (memcmp(q, "sum ", 4) || (q > p && q[-1] != '\n'))
		return -1;
	ar_hash_hex(h, p, (size_t)(q - p));
	if (memcmp(h, q + 4, AR_HASH_HEX - 1))
		return -1;
	end = q;
	for (p += sizeof MAN_MAGIC - 1; p < end; ) {
		struct ar_spool_ment *x;
		unsigned long long in;
		size_t dl;
		char *sp, *ep;

		if (!(nl = memchr(p, '\n', (size_t)(end - p))) ||
		    !(sp = memchr(p, ' ', (size_t)(nl - p))))
			goto bad;
		*sp = '\0';
		errno = 0;
		in = strtoull(sp + 1, &ep, 10);
		if (errno || *ep != ' ')
			goto bad;
		dl = (size_t)strtoull(ep + 1, &ep, 10);
		if (errno || ep != nl || dl > (size_t)(end - nl - 1) ||
		    nl[1 + dl] != '\n')
			goto bad;
		if (m->n == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 256;
			m->e = ar_xrealloc(m->e, m->cap * sizeof *m->e);
		}
		x = &m->e[m->n++];
		x->name = p;
		x->ino = (uint64_t)in;
		x->data = nl + 1;
		x->len = dl;
		p = nl + 2 + dl;
	}
	return 0;
bad:
	m->n = first;
	return -1;
}

int
ar_spool_man_load(const char *dir, struct ar_spool_man *m)
{
	char **names, *bd = ar_path(dir, "batch"), *p;
	size_t n, i;
	struct ar_buf b;

	memset(m, 0, sizeof *m);
	if (ar_spool_list(dir, "batch", &names, &n) < 0) {
		free(bd);
		return errno == ENOENT ? 0 : -1;
	}
	for (i = 0; i < n; i++) {
		memset(&b, 0, sizeof b);
		p = ar_path(bd, names[i]);
		if (ar_readfile(p, &b, (size_t)1 << 32) == 0 &&
		    man_parse(m, b.p, b.len) == 0) {
			m->buf = ar_xrealloc(m->buf, (m->nbuf + 1) *
			    sizeof *m->buf);
			m->buf[m->nbuf++] = b.p;
		} else {
			ar_buf_free(&b);
		}
		free(p);
	}
	/* Stored only now: the entries move while the array grows. */
	for (i = 0; i < m->n; i++)
		ar_hmap_put(&m->map, ar_hash_str(m->e[i].name), i);
	ar_spool_free_list(names, n);
	free(bd);
	return 0;
}

const char *
ar_spool_man_get(const struct ar_spool_man *m, const char *name,
    uint64_t ino, size_t *len)
{
	size_t it = 0, pos;
	uint32_t h;

	if (!m->n)
		return NULL;
	h = ar_hash_str(name);
	while (ar_hmap_next(&m->map, h, &it, &pos))
		if (m->e[pos].ino == ino && strcmp(m->e[pos].name, name) == 0) {
			*len = m->e[pos].len;
			return m->e[pos].data;
		}
	return NULL;
}

void
ar_spool_man_free(struct ar_spool_man *m)
{
	size_t i;

	for (i = 0; i < m->nbuf; i++)
		free(m->buf[i]);
	free(m->buf);
	free(m->e);
	ar_hmap_free(&m->map);
	memset(m, 0, sizeof *m);
}

void
ar_spool_man_prune(const char *dir)
{
	char **names, **live = NULL, *bd = ar_path(dir, "batch");
	size_t n, nlive = 0, i, j, k;
	static const char *const subs[] = { "new", "cur" };

	if (ar_spool_list(dir, "batch", &names, &n) < 0) {
		free(bd);
		return;
	}
	for (k = 0; k < 2; k++) {
		char **l;
		size_t ln;

		if (ar_spool_list(dir, subs[k], &l, &ln) < 0)
			goto out;   /* unsure what lives: keep them all */
		live = ar_xrealloc(live, (nlive + ln + 1) * sizeof *live);
		for (j = 0; j < ln; j++) {
			char *at = strchr(l[j], '@');

			if (at)
				*at = '\0';
			live[nlive++] = l[j];
		}
		free(l);
	}
	ar_sort(live, nlive, sizeof *live, cmp_str);
	for (i = 0; i < n; i++) {
		struct ar_spool_man m;
		struct ar_buf b = {0};
		char *p = ar_path(bd, names[i]);
		int keep = 1;

		memset(&m, 0, sizeof m);
		if (ar_readfile(p, &b, (size_t)1 << 32) == 0) {
			keep = 0;
			if (man_parse(&m, b.p, b.len) < 0)
				keep = 1;   /* being written: left alone */
			for (j = 0; !keep && j < m.n; j++)
				keep = bsearch(&m.e[j].name, live, nlive,
				    sizeof *live, cmp_str) != NULL;
		}
		if (!keep)
			unlink(p);
		free(m.e);
		ar_buf_free(&b);
		free(p);
	}
out:
	for (j = 0; j < nlive; j++)
		free(live[j]);
	free(live);
	ar_spool_free_list(names, n);
	free(bd);
}
