/* known.c: the list of loose results a reader holds already (known.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "known.h"

/* A whole number of at most 19 digits (no overflow) at p: the end of
 * its digits, or NULL when there is none or there are more. */
static const char *
whole(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	size_t d = 0;

	while (p < end && *p >= '0' && *p <= '9' && d < 19) {
		x = x * 10 + (uint64_t)(*p++ - '0');
		d++;
	}
	if (!d || (p < end && *p >= '0' && *p <= '9'))
		return NULL;
	*v = x;
	return p;
}

/* seconds.nanoseconds, the nanoseconds 9 digits. */
static const char *
stamp(const char *p, const char *end, int64_t *s, int64_t *ns)
{
	uint64_t a, b;
	const char *q;

	if (!(q = whole(p, end, &a)) || q >= end || *q != '.' ||
	    a > INT64_MAX)
		return NULL;
	p = q + 1;
	if (!(q = whole(p, end, &b)) || q - p != 9)
		return NULL;
	*s = (int64_t)a;
	*ns = (int64_t)b;
	return q;
}

static int
cmp_known(const void *a, const void *b)
{
	return strcmp(((const struct ar_known *)a)->id,
	    ((const struct ar_known *)b)->id);
}

int
ar_known_parse(const char *p, size_t len, struct ar_known **out, size_t *n,
    char *err, size_t errlen)
{
	const char *end = p + len, *nl, *q, *t;
	struct ar_known *k = NULL;
	size_t cap = 0, m = 0, line = 0, i;
	const char *why = NULL;

	*out = NULL;
	*n = 0;
	for (; p < end && !why; p = nl + 1) {
		struct ar_known x;
		size_t idlen;

		line++;
		if (!(nl = memchr(p, '\n', (size_t)(end - p)))) {
			why = "no newline at its end";
			break;
		}
		memset(&x, 0, sizeof x);
		t = memchr(p, '\t', (size_t)(nl - p));
		idlen = t ? (size_t)(t - p) : 0;
		if (!t || idlen == 0 || idlen > AR_ID_MAX ||
		    memchr(p, '\0', idlen)) {
			why = "not an id and a tab";
			break;
		}
		memcpy(x.id, p, idlen);
		if (!ar_id_valid(x.id)) {
			why = "not a valid id";
			break;
		}
		q = t + 1;
		if (!(q = whole(q, nl, &x.ino)) || q >= nl || *q++ != '\t' ||
		    !(q = whole(q, nl, &x.size)) || q >= nl || *q++ != '\t' ||
		    !(q = stamp(q, nl, &x.mt, &x.mtn)) || q >= nl ||
		    *q++ != '\t' || !(q = stamp(q, nl, &x.ct, &x.ctn)) ||
		    q != nl) {
			why = "expected id, inode, size, mtime and ctime "
			    "(seconds.nanoseconds), tab-separated";
			break;
		}
		if (m == cap) {
			cap = cap ? 2 * cap : 64;
			k = ar_xrealloc(k, cap * sizeof *k);
		}
		k[m++] = x;
	}
	if (!why) {
		ar_sort(k, m, sizeof *k, cmp_known);
		for (i = 1; i < m; i++)
			if (strcmp(k[i - 1].id, k[i].id) == 0) {
				snprintf(err, errlen, "%s: listed twice",
				    k[i].id);
				free(k);
				return -1;
			}
		*out = k;
		*n = m;
		return 0;
	}
	snprintf(err, errlen, "line %zu: %s", line, why);
	free(k);
	return -1;
}

void
ar_known_of(struct ar_known *k, const char *id, const struct stat *st)
{
	char name[AR_ID_MAX + 1];

	/* id may be k's own. */
	snprintf(name, sizeof name, "%s", id);
	memset(k, 0, sizeof *k);
	memcpy(k->id, name, sizeof name);
	k->ino = (uint64_t)st->st_ino;
	k->size = (uint64_t)st->st_size;
	k->mt = (int64_t)st->st_mtim.tv_sec;
	k->mtn = (int64_t)st->st_mtim.tv_nsec;
	k->ct = (int64_t)st->st_ctim.tv_sec;
	k->ctn = (int64_t)st->st_ctim.tv_nsec;
}

void
ar_known_put(struct ar_buf *b, const struct ar_known *k)
{
	ar_buf_printf(b, "%s\t%llu\t%llu\t%lld.%09lld\t%lld.%09lld\n", k->id,
	    (unsigned long long)k->ino, (unsigned long long)k->size,
	    (long long)k->mt, (long long)k->mtn, (long long)k->ct,
	    (long long)k->ctn);
}

const struct ar_known *
ar_known_find(const struct ar_known *k, size_t n, const char *id)
{
	struct ar_known key;

	if (!n || strlen(id) > AR_ID_MAX)
		return NULL;
	memset(&key, 0, sizeof key);
	memcpy(key.id, id, strlen(id));
	return bsearch(&key, k, n, sizeof *k, cmp_known);
}

int
ar_known_same(const struct ar_known *k, const struct stat *st)
{
	struct ar_known now;

	ar_known_of(&now, k->id, st);
	return k->ino == now.ino && k->size == now.size && k->mt == now.mt &&
	    k->mtn == now.mtn && k->ct == now.ct && k->ctn == now.ctn;
}
