/* next-read.c: what ar-sched next reads of the ledger before it decides:
 * the verified results of its export (each method's estimate at each k,
 * the time a measurement takes, the baseline's scaling, the nodes' A/A
 * noise), folded into sums that the summary keeps; the methods are read
 * by methods.c. next.h names it all. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "assign.h"
#include "buf.h"
#include "err.h"
#include "host.h"
#include "io.h"
#include "proc.h"
#include "stats.h"
#include "timefmt.h"
#include "tsv.h"
#include "sched.h"
#include "next.h"

struct lrow {
	int ki, feasible, scored;
	double y, lo, hi, conf;
	const char *fin;
};

/* A result's standard error in log space, from its interval at its own
 * confidence (a look's, e.g. 0.99); without an interval, 2% as the
 * policy takes it. The rule is lib/stats' (ar_pool), which ar-digest
 * pools by too. */
static double
log_se(const struct lrow *r)
{
	return ar_pool_log_se(r->lo, r->hi, r->conf);
}

static void
fold_row(struct kstat *st, const struct lrow *r)
{
	st->n++;
	if (r->scored && r->y > 0) {
		double se = log_se(r), w = 1 / (se * se);

		st->lsum += w * log(r->y);
		st->wsum += w;
	}
	/* Whether the pair is feasible, the latest result decides; ties go
	 * to the later row. */
	if (strcmp(r->fin, st->fin) >= 0) {
		size_t n = strlen(r->fin);

		/* As snprintf would cut it, at a fraction of the cost: a
		 * decision from scratch folds a million rows. */
		if (n >= sizeof st->fin)
			n = sizeof st->fin - 1;
		memcpy(st->fin, r->fin, n);
		st->fin[n] = '\0';
		st->feasible = r->feasible;
		st->scored = r->scored;
	}
}

/* A string's bytes into h, eight at a time: a million rows look their
 * method up, a 40-byte commit each. */
static uint64_t
hash_bytes(uint64_t h, const char *p, size_t n)
{
	uint64_t w;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	for (; n; n--, p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

/* Of name and workload; a hash of the table's only, never stored. */
static size_t
key_hash(const char *name, const char *workload)
{
	uint64_t h = 1469598103934665603ULL;

	h = hash_bytes(h, name, strlen(name));
	h = (h ^ 0xff) * 1099511628211ULL;
	h = hash_bytes(h, workload, strlen(workload));
	return (size_t)mix64(h);
}

static void
rehash(struct agg *a)
{
	size_t i, j;

	free(a->slot);
	a->nslot = a->nslot ? 2 * a->nslot : 1024;
	a->slot = ar_xcalloc(a->nslot, sizeof *a->slot);
	for (i = 0; i < a->nkey; i++) {
		j = key_hash(a->key[i].name, a->key[i].workload) &
		    (a->nslot - 1);
		while (a->slot[j])
			j = (j + 1) & (a->nslot - 1);
		a->slot[j] = i + 1;
	}
}

struct akey *
agg_key(struct agg *a, const char *name, const char *workload, int create)
{
	size_t j;
	struct akey *k;
	int ki;

	if (!a->nslot)
		rehash(a);
	j = key_hash(name, workload) & (a->nslot - 1);
	for (; a->slot[j]; j = (j + 1) & (a->nslot - 1)) {
		k = &a->key[a->slot[j] - 1];
		if (strcmp(k->name, name) == 0 &&
		    strcmp(k->workload, workload) == 0)
			return k;
	}
	if (!create)
		return NULL;
	if (a->nkey == a->capkey) {
		a->capkey = a->capkey ? 2 * a->capkey : 256;
		a->key = ar_xrealloc(a->key, a->capkey * sizeof *a->key);
	}
	k = &a->key[a->nkey++];
	memset(k, 0, sizeof *k);
	k->name = ar_xstrdup(name);
	k->workload = ar_xstrdup(workload);
	for (ki = 0; ki < AR_POL_NK; ki++)
		k->at[ki].feasible = 1;
	a->slot[j] = a->nkey;
	if (2 * a->nkey > a->nslot)
		rehash(a);
	return k;
}

struct wbase *
agg_wbase(struct agg *a, const char *workload, int create)
{
	size_t i;

	for (i = 0; i < a->nwb; i++)
		if (strcmp(a->wb[i].workload, workload) == 0)
			return &a->wb[i];
	if (!create)
		return NULL;
	a->wb = ar_xrealloc(a->wb, (a->nwb + 1) * sizeof *a->wb);
	memset(&a->wb[a->nwb], 0, sizeof *a->wb);
	a->wb[a->nwb].workload = ar_xstrdup(workload);
	return &a->wb[a->nwb++];
}

void
dlist_add(struct dlist *l, double v)
{
	/* Beyond a window's end, a value only moves the ranks. */
	if (l->below && l->nsorted && v < l->v[0]) {
		l->below++;
		return;
	}
	if (l->above && l->nsorted && v > l->v[l->nsorted - 1]) {
		l->above++;
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = ar_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = v;
}

int
dlist_at(const struct dlist *l, size_t r, double *v)
{
	if (r < l->below || r - l->below >= l->n)
		return -1;
	*v = l->v[r - l->below];
	return 0;
}

static size_t
dlist_count(const struct dlist *l)
{
	return l->below + l->n + l->above;
}

/* The ranks a median takes: (N - 1) / 2 and N / 2. */
static int
dlist_exact(const struct dlist *l)
{
	size_t all = dlist_count(l);
	double v;

	return all == 0 || (dlist_at(l, (all - 1) / 2, &v) == 0 &&
	    dlist_at(l, all / 2, &v) == 0);
}

int
agg_exact(const struct agg *a)
{
	size_t i;
	int ki;

	if (!dlist_exact(&a->secs_all))
		return 0;
	for (ki = 0; ki < AR_POL_NK; ki++) {
		if (!dlist_exact(&a->secs[ki]))
			return 0;
		for (i = 0; i < a->nwb; i++)
			if (!dlist_exact(&a->wb[i].at[ki]))
				return 0;
	}
	return 1;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A double's bits as an unsigned number in the same order: the sign
 * bit set for positives, every bit flipped for negatives. */
static uint64_t
dbl_key(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof u);
	return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

/* Sorts n doubles by their bits, 16 at a time: a summary rebuilt from
 * the segments' folds sorts millions of them, which a comparison sort
 * takes several times longer over. */
static void
radix_sort(double *v, size_t n)
{
	uint64_t *a = ar_xmalloc(n * sizeof *a), *b = ar_xmalloc(n * sizeof *b);
	uint64_t *t, u;
	size_t *cnt = ar_xmalloc(65536 * sizeof *cnt), i, sum, c;
	int shift;

	for (i = 0; i < n; i++)
		a[i] = dbl_key(v[i]);
	for (shift = 0; shift < 64; shift += 16) {
		memset(cnt, 0, 65536 * sizeof *cnt);
		for (i = 0; i < n; i++)
			cnt[a[i] >> shift & 0xffff]++;
		if (cnt[a[0] >> shift & 0xffff] == n)
			continue;   /* one digit for all: nothing moves */
		for (i = 0, sum = 0; i < 65536; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[a[i] >> shift & 0xffff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i++) {
		u = a[i] >> 63 ? a[i] & ~((uint64_t)1 << 63) : ~a[i];
		memcpy(&v[i], &u, sizeof u);
	}
	free(a);
	free(b);
	free(cnt);
}

/* Sorts what was added since the last sort, then merges it in: a
 * summary's long sorted lists take a few new numbers in linear time. */
static void
dlist_sort(struct dlist *l)
{
	size_t i, j, k, m = l->nsorted;
	double *out;

	if (m == l->n)
		return;
	if (l->n - m >= 4096)
		radix_sort(l->v + m, l->n - m);
	else
		ar_sort(l->v + m, l->n - m, sizeof *l->v, cmp_dbl);
	if (m > 0 && l->v[m - 1] > l->v[m]) {
		out = ar_xmalloc(l->n * sizeof *out);
		for (i = 0, j = m, k = 0; k < l->n; k++)
			out[k] = j == l->n || (i < m && l->v[i] <= l->v[j]) ?
			    l->v[i++] : l->v[j++];
		memcpy(l->v, out, l->n * sizeof *out);
		free(out);
	}
	l->nsorted = l->n;
}

void
agg_sort(struct agg *a)
{
	size_t i;
	int ki;

	dlist_sort(&a->secs_all);
	for (ki = 0; ki < AR_POL_NK; ki++) {
		dlist_sort(&a->secs[ki]);
		for (i = 0; i < a->nwb; i++)
			dlist_sort(&a->wb[i].at[ki]);
	}
}

void
agg_init(struct agg *a, const char *metric)
{
	memset(a, 0, sizeof *a);
	a->min_effect = NAN;
	a->metric = metric;
}

void
agg_free(struct agg *a)
{
	size_t i;
	int ki;

	for (i = 0; i < a->nkey; i++) {
		free(a->key[i].name);
		free(a->key[i].workload);
	}
	free(a->key);
	free(a->slot);
	for (i = 0; i < a->nnz; i++)
		free(a->nz[i].node);
	free(a->nz);
	for (i = 0; i < a->nwb; i++) {
		free(a->wb[i].workload);
		for (ki = 0; ki < AR_POL_NK; ki++)
			free(a->wb[i].at[ki].v);
	}
	free(a->wb);
	for (ki = 0; ki < AR_POL_NK; ki++)
		free(a->secs[ki].v);
	free(a->secs_all.v);
	memset(a, 0, sizeof *a);
}

static const char *
fld(const struct ar_tsv *t, int c)
{
	return c >= 0 ? t->field[c] : "";
}

static int
num(const char *s, double *v)
{
	return s[0] && ar_parse_double(s, v) == 0;
}

static void
add_noise(struct agg *x, const char *node, const char *fin, const char *exp,
    double v)
{
	size_t i;

	for (i = 0; i < x->nnz; i++)
		if (strcmp(x->nz[i].node, node) == 0)
			break;
	if (i == x->nnz) {
		x->nz = ar_xrealloc(x->nz, (x->nnz + 1) * sizeof *x->nz);
		memset(&x->nz[i], 0, sizeof *x->nz);
		x->nz[i].node = ar_xstrdup(node);
		x->nnz++;
	} else if (strcmp(fin, x->nz[i].fin) < 0) {
		return;
	}
	snprintf(x->nz[i].fin, sizeof x->nz[i].fin, "%s", fin);
	snprintf(x->nz[i].exp, sizeof x->nz[i].exp, "%s", exp);
	x->nz[i].v = v;
}

static void
dlist_merge(struct dlist *to, const struct dlist *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		dlist_add(to, from->v[i]);
	to->below += from->below;
	to->above += from->above;
}

void
agg_merge(struct agg *a, const struct agg *b)
{
	size_t i;
	int ki;

	a->rows += b->rows;
	a->left_unverified += b->left_unverified;
	a->used_h += b->used_h;
	if (!isnan(b->min_effect))
		a->min_effect = b->min_effect;
	for (i = 0; i < b->nkey; i++) {
		struct akey *k = agg_key(a, b->key[i].name, b->key[i].workload,
		    1);

		for (ki = 0; ki < AR_POL_NK; ki++) {
			const struct kstat *f = &b->key[i].at[ki];
			struct kstat *t = &k->at[ki];

			if (!f->n)
				continue;
			t->n += f->n;
			t->lsum += f->lsum;
			t->wsum += f->wsum;
			/* As fold_row: the latest row, ties to the later. */
			if (strcmp(f->fin, t->fin) >= 0) {
				memcpy(t->fin, f->fin, sizeof t->fin);
				t->feasible = f->feasible;
				t->scored = f->scored;
			}
		}
	}
	for (i = 0; i < b->nnz; i++)
		add_noise(a, b->nz[i].node, b->nz[i].fin, b->nz[i].exp,
		    b->nz[i].v);
	for (ki = 0; ki < AR_POL_NK; ki++)
		dlist_merge(&a->secs[ki], &b->secs[ki]);
	dlist_merge(&a->secs_all, &b->secs_all);
	for (i = 0; i < b->nwb; i++) {
		struct wbase *w = agg_wbase(a, b->wb[i].workload, 1);

		w->lower = b->wb[i].lower;
		for (ki = 0; ki < AR_POL_NK; ki++)
			dlist_merge(&w->at[ki], &b->wb[i].at[ki]);
	}
}

static double
seconds_between(const char *a, const char *b)
{
	struct timespec s, e;

	if (ar_time_parse(a, &s) < 0 || ar_time_parse(b, &e) < 0)
		return -1;
	return (double)(e.tv_sec - s.tv_sec) + (e.tv_nsec - s.tv_nsec) / 1e9;
}

/* The names of the columns FC_ (next.h). */
const char *const fold_cols[FC_N] = {
	"workload", "shape.k", "verdict", "method.commit", "method.dir",
	"shape.node", "aa", "ratio.median", "ratio.ci_lo", "ratio.ci_hi",
	"pass.guardrails", "noise_floor.rsd", "noise_floor.ci_half_width",
	"finished", "started", "experiment", "stats.min_effect",
	"direction", "ratio.conf"
};

char *
fold_columns(const char *metric)
{
	struct ar_buf b = {0};
	size_t i;

	for (i = 0; i < FC_N; i++)
		ar_buf_printf(&b, "%s%s", i ? "," : "", fold_cols[i]);
	if (metric)
		ar_buf_printf(&b, ",baseline.%s.median", metric);
	return b.p;
}

/* The rows are malformed: fo's hook first (see struct fold). */
static void
fold_bad(const struct fold *fo)
{
	if (fo && fo->bad)
		fo->bad(fo->arg);
}

static int
fold_need(const struct ar_tsv *t, const char *col, const struct fold *fo)
{
	if (ar_tsv_col(t, col) < 0)
		fold_bad(fo);
	return ar_tsv_need(t, col);
}

/* Whether the fold ends softly here (struct fold's soft): then t is
 * closed and the caller returns. */
static int
fold_soft(struct fold *fo, struct ar_tsv *t, int opened)
{
	if (!fo || !fo->soft)
		return 0;
	fo->failed = 1;
	if (opened)
		ar_tsv_close(t);
	return 1;
}

/* Folds one row's values (v[FC_...] and v[FV_BASE]) into x; -1 when
 * its shape.k is not a whole number from 1 to 65536. */
int
fold_values(struct agg *x, const char *const *v)
{
	const char *aa = v[FC_AA];
	long long k;
	double y, secs, me;
	struct lrow r;
	struct akey *ak;

	if (ar_parse_long(v[FC_K], &k) < 0 || k < 1 || k > 65536)
		return -1;
	r.ki = ar_pol_kindex((long)k);
	secs = seconds_between(v[FC_START], v[FC_FIN]);
	if (secs > 0) {
		x->used_h += (double)k * secs / 3600;
		if (r.ki >= 0) {
			dlist_add(&x->secs[r.ki], secs);
			dlist_add(&x->secs_all, secs);
		}
	}
	if (num(v[FC_ME], &me) && me > 0)
		x->min_effect = me;
	{
		double bv;
		struct wbase *wb;

		if (r.ki >= 0 && num(v[FV_BASE], &bv) && bv > 0) {
			wb = agg_wbase(x, v[FC_WL], 1);
			dlist_add(&wb->at[r.ki], bv);
			wb->lower = strcmp(v[FC_DIRN], "lower") == 0;
		}
	}
	if (strcmp(aa, "true") == 0 || strcmp(aa, "yes") == 0) {
		double nv, lo, hi;

		/* The noise floor: the A/A's own figure, else the
		 * half width of its ratio's interval. */
		if (!num(v[FC_RSD], &nv) && !num(v[FC_HALF], &nv)) {
			if (num(v[FC_LO], &lo) && num(v[FC_HI], &hi))
				nv = (hi - lo) / 2;
			else
				nv = INFINITY;
		}
		if (v[FC_NODE][0])
			add_noise(x, v[FC_NODE], v[FC_FIN], v[FC_EXP], nv);
		return 0;
	}
	if (r.ki < 0)
		return 0;
	r.scored = num(v[FC_Y], &y) && y > 0;
	if (!num(v[FC_CONF], &r.conf))
		r.conf = 0.95;
	r.y = r.lo = r.hi = r.scored ? y : 0;
	if (r.scored) {
		if (!num(v[FC_LO], &r.lo) || r.lo > y)
			r.lo = y;
		if (!num(v[FC_HI], &r.hi) || r.hi < y)
			r.hi = y;
	}
	r.feasible = strcmp(v[FC_VERDICT], "invalid") &&
	    strcmp(v[FC_VERDICT], "crash") && strcmp(v[FC_VERDICT],
	    "timeout") && strcmp(v[FC_GUARD], "false");
	r.fin = v[FC_FIN];
	if (v[FC_COMMIT][0]) {
		ak = agg_key(x, v[FC_COMMIT], v[FC_WL], 1);
		fold_row(&ak->at[r.ki], &r);
	}
	if (v[FC_DIR][0] && strcmp(v[FC_DIR], v[FC_COMMIT])) {
		ak = agg_key(x, v[FC_DIR], v[FC_WL], 1);
		fold_row(&ak->at[r.ki], &r);
	}
	return 0;
}

void
fold_ledger(struct agg *x, FILE *f, const char *name, struct fold *fo)
{
	struct ar_tsv t;
	int c[FV_N], i, st, cols_ok = 0;
	int loose = 0;
	size_t rows = 0;
	/* With fo->seg_done, a segment's rows go to fo->seg first, and it
	 * to x at the segment's end: the sums come out the same whether a
	 * segment was folded from its rows or read as its fold. */
	struct agg *const total = x;
	unsigned long cur = 0;

	if (ar_tsv_open(&t, f, name) < 0) {
		if (fold_soft(fo, &t, 0))
			return;
		fold_bad(fo);
		ar_die(AR_EX_DATA, "%s", t.err);
	}
	for (i = 0; i < FC_N; i++)
		c[i] = ar_tsv_col(&t, fold_cols[i]);
	c[FV_BASE] = c[FV_SEG] = -1;
	c[FV_SIGNED] = ar_tsv_col(&t, "signed");
	c[FV_VER] = ar_tsv_col(&t, "verified");
	c[FV_ID] = ar_tsv_col(&t, "id");
	if (fo && fo->want_seg)
		c[FV_SEG] = fold_need(&t, "segment", fo);
	if (x->metric) {
		char *cn = ar_xasprintf("baseline.%s.median", x->metric);

		c[FV_BASE] = ar_tsv_col(&t, cn);
		free(cn);
	}
	while ((st = ar_tsv_next(&t)) == 1) {
		const char *v[FV_N];

		for (i = 0; i < FV_N; i++)
			v[i] = fld(&t, c[i]);
		/* An export without the column: every row is signed. */
		if (c[FV_SIGNED] < 0)
			v[FV_SIGNED] = "yes";
		rows++;
		if (fo && fo->known && strcmp(v[FV_SIGNED], "known") == 0) {
			/* A loose result the summary holds (-K): signed and
			 * verified when it was read. */
			if (fo->known(fo->arg, v[FV_ID], v) < 0) {
				fold_bad(fo);
				ar_die(AR_EX_DATA, "%s: line %zu: %s: a known row "
				    "that was not listed", name, t.lineno,
				    v[FV_ID]);
			}
			v[FV_SIGNED] = v[FV_VER] = "yes";
		} else if (!cols_ok) {
			/* An empty ledger exports a bare header, and known
			 * rows need none: the columns are needed only once
			 * there is a row read. */
			if ((c[FC_WL] < 0 || c[FC_K] < 0 || c[FC_VERDICT] < 0 ||
			    (c[FC_COMMIT] < 0 && c[FC_DIR] < 0)) &&
			    fold_soft(fo, &t, 1))
				return;
			fold_need(&t, "workload", fo);
			fold_need(&t, "shape.k", fo);
			fold_need(&t, "verdict", fo);
			if (c[FC_COMMIT] < 0 && c[FC_DIR] < 0) {
				fold_bad(fo);
				ar_die(AR_EX_DATA, "%s: no column method.commit "
				    "or method.dir", name);
			}
			cols_ok = 1;
		}
		if (c[FV_SEG] >= 0) {
			unsigned long sn = strtoul(v[FV_SEG], NULL, 10);

			if (fo->seg_done && cur && sn != cur) {
				fo->seg_done(total, fo->seg, cur, fo->arg);
				cur = 0;
			}
			if (!v[FV_SEG][0] && !loose) {
				loose = 1;
				agg_sort(total);
				if (fo->before_loose)
					fo->before_loose(total, fo->arg);
			}
			if (sn > fo->maxseg)
				fo->maxseg = sn;
			if (fo->seg_done && sn && !loose)
				cur = sn;
			x = cur ? fo->seg : total;
		}
		x->rows++;
		if (strcmp(v[FV_SIGNED], "yes") || strcmp(v[FV_VER], "yes")) {
			x->left_unverified++;
			continue;
		}
		if (loose && fo->loose_row)
			fo->loose_row(fo->arg, v[FV_ID], v);
		if (fold_values(x, v) < 0) {
			if (fold_soft(fo, &t, 1))
				return;
			fold_bad(fo);
			ar_die(AR_EX_DATA, "%s: line %zu: shape.k: \"%s\" is not a "
			    "whole number from 1 to 65536", name, t.lineno,
			    v[FC_K]);
		}
}
	if (st < 0) {
		if (fold_soft(fo, &t, 1))
			return;
		fold_bad(fo);
		ar_die(AR_EX_DATA, "%s", t.err);
	}
	ar_tsv_close(&t);
	x = total;
	if (cur)
		fo->seg_done(x, fo->seg, cur, fo->arg);
	agg_sort(x);
	if (c[FV_SEG] >= 0 && !loose && fo->before_loose)
		fo->before_loose(x, fo->arg);
}

/* fold_file's parts: a FILE over up to two ranges of the file's bytes,
 * read by pread, so that the parts' readers share no offset. A part
 * after the first reads the header line, then its own lines. */
#define SPLIT_MIN (64 * 1024)
#define SPLIT_MAX 16

struct part {
	int fd;
	off_t at[2], end[2];
	int r;
	const char *name;
	struct agg agg;
	struct fold fo;
	FILE *f;
};

static ssize_t
part_read(void *cookie, char *buf, size_t n)
{
	struct part *p = cookie;
	ssize_t got;

	while (p->r < 2 && p->at[p->r] >= p->end[p->r])
		p->r++;
	if (p->r == 2)
		return 0;
	if ((off_t)n > p->end[p->r] - p->at[p->r])
		n = (size_t)(p->end[p->r] - p->at[p->r]);
	do
		got = pread(p->fd, buf, n, p->at[p->r]);
	while (got < 0 && errno == EINTR);
	if (got > 0)
		p->at[p->r] += got;
	/* A file cut short under us ends the part where it ends. */
	if (got == 0)
		p->at[p->r] = p->end[p->r];
	return got;
}

static void *
part_fold(void *arg)
{
	struct part *p = arg;

	fold_ledger(&p->agg, p->f, p->name, &p->fo);
	return NULL;
}

int
sched_threads(void)
{
	const char *e = getenv("AR_THREADS");
	long n = e && *e ? atol(e) : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > SPLIT_MAX ? SPLIT_MAX : (int)n;
}

/* The offset of the first line that starts at or after at; end when
 * none does. */
static off_t
line_after(int fd, off_t at, off_t end)
{
	char buf[4096];

	while (at < end) {
		ssize_t n = pread(fd, buf, sizeof buf, at - 1);
		char *nl;

		if (n <= 0)
			return end;
		if ((nl = memchr(buf, '\n', (size_t)n)))
			return at - 1 + (nl - buf) + 1;
		at += n;
	}
	return end;
}

void
fold_file(struct agg *x, FILE *f, const char *name)
{
	struct part part[SPLIT_MAX];
	pthread_t tid[SPLIT_MAX];
	cookie_io_functions_t io = { .read = part_read };
	struct stat st;
	int fd = fileno(f), n = sched_threads(), np = 0, i, failed = 0;
	off_t hdr, cut[SPLIT_MAX + 1];

	if (n < 2 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < SPLIT_MIN || ftello(f) != 0) {
		fold_ledger(x, f, name, NULL);
		return;
	}
	hdr = line_after(fd, 1, st.st_size);
	cut[0] = 0;
	for (i = 1; i < n; i++) {
		off_t c = line_after(fd, st.st_size / n * i, st.st_size);

		if (c < hdr)
			c = hdr;
		cut[i] = c > cut[i - 1] ? c : cut[i - 1];
	}
	cut[n] = st.st_size;
	for (i = 0; i < n; i++) {
		struct part *p = &part[np];

		if (i > 0 && cut[i] == cut[i + 1])
			continue;
		memset(p, 0, sizeof *p);
		p->fd = fd;
		p->name = name;
		/* The first part has the header; the others read it first. */
		p->at[0] = 0;
		p->end[0] = i ? hdr : cut[1];
		p->at[1] = i ? cut[i] : 0;
		p->end[1] = i ? cut[i + 1] : 0;
		p->fo.soft = 1;
		agg_init(&p->agg, x->metric);
		if (!(p->f = fopencookie(p, "r", io)))
			ar_die(AR_EX_SOFTWARE, "%s: fopencookie:", name);
		np++;
	}
	for (i = 1; i < np; i++)
		if ((errno = pthread_create(&tid[i], NULL, part_fold,
		    &part[i])))
			ar_die(AR_EX_SOFTWARE, "%s: a thread:", name);
	part_fold(&part[0]);
	for (i = 1; i < np; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < np; i++) {
		failed |= part[i].fo.failed;
		fclose(part[i].f);
	}
	if (!failed) {
		agg_free(x);
		*x = part[0].agg;
		for (i = 1; i < np; i++) {
			agg_merge(x, &part[i].agg);
			agg_free(&part[i].agg);
		}
		agg_sort(x);
		return;
	}
	for (i = 0; i < np; i++)
		agg_free(&part[i].agg);
	fold_ledger(x, f, name, NULL);
}

void
apply_agg(struct nx *x, struct agg *a)
{
	const char *wl = x->workload ? x->workload : x->dflt_wl;
	struct wbase *wb;
	size_t i, n;
	int ki;

	agg_sort(a);
	for (i = 0; i < x->nm; i++) {
		struct meth *m = &x->m[i];
		const struct akey *k = agg_key(a, m->method, m->workload, 0);

		if (!k)
			continue;
		for (ki = 0; ki < AR_POL_NK; ki++) {
			const struct kstat *st = &k->at[ki];
			struct ar_pol_obs *o = &m->at[ki];

			if (!st->n)
				continue;
			o->n = (int)st->n;
			o->feasible = st->feasible;
			m->scored[ki] = st->scored;
			m->lsum[ki] = st->lsum;
			m->wsum[ki] = st->wsum;
			snprintf(m->fin[ki], sizeof m->fin[ki], "%s", st->fin);
			if (st->scored && st->wsum > 0) {
				double mean = st->lsum / st->wsum;
				double se = 1 / sqrt(st->wsum);

				/* As the policy reads an interval: at 95%. */
				o->est = exp(mean);
				o->lo = exp(mean - 1.959964 * se);
				o->hi = exp(mean + 1.959964 * se);
			} else {
				/* Nothing measured: a crash or an invalid run. */
				o->est = o->lo = o->hi = 0;
			}
		}
	}
	/* The nodes, the times and the baseline go over to x. */
	x->nz = a->nz;
	x->nnz = a->nnz;
	a->nz = NULL;
	a->nnz = 0;
	x->used_h = a->used_h;
	if (!isnan(a->min_effect))
		x->min_effect = a->min_effect;
	x->left_unverified = a->left_unverified;
	/* Exact: a summary that no longer holds a median was rebuilt. */
	for (ki = 0; ki < AR_POL_NK; ki++) {
		x->nsecs[ki] = dlist_count(&a->secs[ki]);
		if (x->nsecs[ki] && dlist_at(&a->secs[ki], x->nsecs[ki] / 2,
		    &x->secs_med[ki]) < 0)
			ar_die(AR_EX_SOFTWARE, "a median of durations is not "
			    "in the summary's window");
	}
	n = dlist_count(&a->secs_all);
	if (n && dlist_at(&a->secs_all, n / 2, &x->secs_all_med) < 0)
		ar_die(AR_EX_SOFTWARE, "the median of durations is not in the "
		    "summary's window");
	if (wl && (wb = agg_wbase(a, wl, 0))) {
		x->lower = wb->lower;
		for (ki = 0; ki < AR_POL_NK; ki++) {
			double lo, hi;

			n = x->nbase[ki] = dlist_count(&wb->at[ki]);
			if (!n)
				continue;
			if (dlist_at(&wb->at[ki], (n - 1) / 2, &lo) < 0 ||
			    dlist_at(&wb->at[ki], n / 2, &hi) < 0)
				ar_die(AR_EX_SOFTWARE, "a median of the baseline "
				    "is not in the summary's window");
			/* As ar_median (gsl) takes it. */
			x->base_med[ki] = (lo + hi) / 2.0;
		}
	}
}

double
base_pfrac(const struct nx *x, char *how, size_t n)
{
	double m1, p = 0, w = 0;
	size_t len = 0;
	int ki;

	how[0] = 0;
	if (!x->nbase[0])
		return 0;
	m1 = x->base_med[0];
	for (ki = 1; ki < AR_POL_NK; ki++) {
		double mk, sp, k = (double)ar_pol_k(ki), pk;

		if (!x->nbase[ki])
			continue;
		mk = x->base_med[ki];
		sp = x->lower ? m1 / mk : mk / m1;
		if (!(sp > 0) || !isfinite(sp))
			continue;
		pk = (1 - 1 / sp) / (1 - 1 / k);
		pk = pk < 0 ? 0 : pk > 1 ? 1 : pk;
		p += pk * (double)x->nbase[ki];
		w += (double)x->nbase[ki];
		if (len < n)
			len += (size_t)snprintf(how + len, n - len, "%s%ld",
			    len ? ", " : "", ar_pol_k(ki));
	}
	if (!(w > 0))
		return 0;
	/* A baseline that does not scale is known, not unknown. */
	return p / w > 1e-6 ? p / w : 1e-6;
}

const struct noise *
noise_of(const struct nx *x, const char *node)
{
	const struct noise *z = NULL;
	size_t i;

	for (i = 0; i < x->nnz; i++)
		if (ar_host_same(x->nz[i].node, node) &&
		    (!z || strcmp(x->nz[i].fin, z->fin) > 0))
			z = &x->nz[i];
	return z;
}

int
aa_queued(const struct nx *x, const struct ar_inv *inv, size_t node)
{
	size_t i;

	for (i = 0; i < x->naa; i++)
		if (node_of(inv, x->aa_pending[i]) == (long)node)
			return 1;
	return 0;
}
