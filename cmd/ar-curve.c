/* ar-curve: scale curves from a ledger export. Groups verified results by
 * method, workload and device; per group, the points (k, score with its
 * CI, feasible under the guardrails), a fit that works with few points,
 * predictions at unmeasured k, the knee and the best feasible k.
 * ar-curve(1) is the contract. One file of more than 1,000 lines: the
 * streaming summary (rows are not kept: a million groups in 300 MB) and
 * its four outputs (TSV, JSON Lines, text, SVG) share the group arena,
 * and the hand-written number reading and %.6g formatting are its hot
 * path; split, they would only pass the arena around. With two cores or
 * more, a thread reads and splits the rows while the main one folds
 * them, in the order read, and the TSV output is made by a thread a
 * core; the output is the same on any number. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "curve.h"
#include "err.h"
#include "hmap.h"
#include "io.h"
#include "json.h"
#include "spool.h"
#include "svg.h"
#include "tsv.h"

static const char usage[] =
	"[-U] [-f tsv|jsonl] [-m metric] [-l] [-k list] [-i ideas] [--text] "
	"[--svg file] [file ...]";

/* The rows are summarized as they stream, never kept: per group
 * (method, workload, device) and per k only what the curve needs, the
 * latest scored result and the latest result of any kind. Names and ids
 * live in one arena, addressed by 32-bit offsets; a point is 32 bytes.
 * Groups are found by hash; the output sorts them once at the end. */

/* A point as the rows stream: one k of a group. Its record in the
 * arena holds, as varints, the rows at this k, the latest scored row's
 * n and verdict (an index into R.verdict); then that row's id, NUL; then,
 * with PT_LSEP, the latest row's id, NUL: a later row without a score. */
struct pt {
	double y, lo, hi;    /* the latest scored result's */
	uint32_t k;          /* k, and PT_ flags above it */
	uint32_t rec;        /* arena: the record */
};
#define PT_K 0x1ffffu        /* k <= 65536 */
#define PT_FEAS (1u << 30)   /* the latest row was feasible */
#define PT_HASY (1u << 29)   /* a row had a score */
#define PT_LSEP (1u << 28)   /* the latest row is not the scored one */

/* A record, read. */
struct recv {
	unsigned long long results, n, v;
	const char *yid, *lid;
	size_t size;
};

struct grp {
	uint32_t key;        /* arena: method TAB workload TAB device, NUL,
	                      * then the method's and workload's lengths */
	uint32_t label;      /* arena: the first row's label */
	uint32_t idea;       /* arena: the first row's idea, with -i */
	uint32_t first;      /* arena: the first row's id: least k, then id */
	uint32_t np;         /* points, sorted by k */
	struct pt *p;        /* room for max(4, 2^ceil(log2 np)) */
};

/* A group as the output needs it, built from its summary. */
struct view {
	const char *method, *label, *workload, *device;
	struct ar_point *p;  /* one point per k: the latest result */
	size_t np, cap;
	long *results, *n;
	const char **verdict, **id;
	struct ar_fit fit;
	long knee, best_k;
	double best;
	int has_best;
	char *mwd;           /* method, workload, device, NUL-separated */
	size_t mwdcap;
};

/* Everything read. */
static struct {
	char *a;             /* the arena; offset 0 means none */
	size_t alen, acap;
	struct grp *g;
	size_t ng, gcap;
	struct ar_hmap gix;  /* g by key */
	char **verdict;      /* distinct verdicts, by index */
	size_t nverdict;
	struct ar_hmap vix;
	struct pt *free4;    /* freed blocks of 4 points, linked */
	char *slab;          /* blocks of 4 points are cut from slabs */
	size_t slabn;
	char **slabs;
	size_t nslabs;
	struct ar_buf rb;    /* a record being made */
	const char *name;    /* the input being read */
} R;

/* The options; with R above, the only file-level state. */
static struct {
	int fmt, text, unverified, lower;
	const char *metric, *svg, *ideas;
	double kpred[64];    /* -k */
	size_t nkpred;
} O;

/* Rows read and left out, by why. */
struct left {
	size_t unsigned_, unverified, aa, noscore;
};

/* Room for n more bytes in the arena; the offset they start at. */
static uint32_t
arena_room(size_t n)
{
	if (!R.acap) {
		R.acap = 1 << 16;
		R.a = ar_xmalloc(R.acap);
		R.alen = 1;  /* offset 0 is "none" */
	}
	if (R.alen + n > UINT32_MAX)
		ar_die(AR_EX_DATA, "%s: more than 4 GiB of names and ids to "
		    "hold: split the export", R.name);
	if (R.alen + n > R.acap) {
		while (R.alen + n > R.acap)
			R.acap *= 2;
		R.a = ar_xrealloc(R.a, R.acap);
	}
	R.alen += n;
	return (uint32_t)(R.alen - n);
}

static uint32_t
arena_str(const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t o = arena_room(n);

	memcpy(R.a + o, s, n);
	return o;
}

static size_t
varint_put(unsigned char *b, unsigned long long v)
{
	size_t n = 0;

	do {
		b[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static const unsigned char *
varint_get(const unsigned char *b, unsigned long long *v)
{
	int sh = 0;

	*v = 0;
	do
		*v |= (unsigned long long)(*b & 0x7f) << sh, sh += 7;
	while (*b++ & 0x80);
	return b;
}

/* A verdict's index among the distinct verdicts. */
static uint32_t
verdict_ix(const char *v)
{
	uint32_t h = ar_hash_str(v);
	size_t it = 0, i;

	while (ar_hmap_next(&R.vix, h, &it, &i))
		if (strcmp(R.verdict[i], v) == 0)
			return (uint32_t)i;
	R.verdict = ar_xrealloc(R.verdict, (R.nverdict + 1) *
	    sizeof *R.verdict);
	R.verdict[R.nverdict] = ar_xstrdup(v);
	ar_hmap_put(&R.vix, h, R.nverdict);
	return (uint32_t)R.nverdict++;
}

/* A record's counts and the latest scored row's id, all the output
 * reads: without the lengths of the ids, which only the fold needs. */
static void
rec_head(uint32_t o, struct recv *r)
{
	const unsigned char *b = (const unsigned char *)R.a + o;

	b = varint_get(b, &r->results);
	b = varint_get(b, &r->n);
	b = varint_get(b, &r->v);
	r->yid = (const char *)b;
	r->lid = NULL;
	r->size = 0;
}

static void
rec_get(uint32_t o, uint32_t flags, struct recv *r)
{
	const unsigned char *s = (const unsigned char *)R.a + o, *b;

	b = varint_get(s, &r->results);
	b = varint_get(b, &r->n);
	b = varint_get(b, &r->v);
	r->yid = r->lid = (const char *)b;
	b += strlen(r->yid) + 1;
	if (flags & PT_LSEP) {
		r->lid = (const char *)b;
		b += strlen(r->lid) + 1;
	}
	r->size = (size_t)(b - s);
}

/* Room for n points where n - 1 are: blocks of 4 from slabs, reused
 * when a group outgrows them; larger ones from malloc, doubled. */
static struct pt *
pts_grow(struct pt *old, uint32_t n)
{
	uint32_t c = n - 1;
	struct pt *p;

	if (old && (c < 4 || (c & (c - 1))))
		return old;    /* room left */
	if (old && c > 4)
		return ar_xrealloc(old, 2 * (size_t)c * sizeof *old);
	if (old) {
		p = ar_xmalloc(8 * sizeof *p);
		memcpy(p, old, 4 * sizeof *p);
		*(struct pt **)(void *)old = R.free4;
		R.free4 = old;
		return p;
	}
	if (R.free4) {
		p = R.free4;
		R.free4 = *(struct pt **)(void *)p;
		return p;
	}
	if (!R.slabn) {
		R.slabs = ar_xrealloc(R.slabs, (R.nslabs + 1) *
		    sizeof *R.slabs);
		R.slab = R.slabs[R.nslabs++] = ar_xmalloc(4096 * 4 *
		    sizeof *p);
		R.slabn = 4096;
	}
	p = (struct pt *)(void *)R.slab;
	R.slab += 4 * sizeof *p;
	R.slabn--;
	return p;
}

/* The lengths of the method and the workload after a key's NUL. */
static void
key_lens(const char *k, size_t kl, size_t *ml, size_t *wl)
{
	unsigned long long a, b;

	varint_get(varint_get((const unsigned char *)k + kl + 1, &a), &b);
	*ml = (size_t)a;
	*wl = (size_t)b;
}

/* The hash of a group's key: the names apart, so that a tab inside one
 * cannot join two groups. */
static uint32_t
group_hash(const char *m, size_t ml, const char *w, size_t wl,
    const char *d, size_t dl)
{
	return ar_hash(m, ml) ^ ar_hash(w, wl) * 31 ^ ar_hash(d, dl) * 961;
}

/* The group of a key, made when new. key: the method, workload and
 * device joined by tabs, ml, wl, dl their lengths, h group_hash's. */
static struct grp *
group_of(const char *key, size_t ml, size_t wl, size_t dl, uint32_t h)
{
	size_t it = 0, i;
	size_t kl = ml + 1 + wl + 1 + dl, ml2, wl2;
	unsigned char tail[20];
	size_t tl = varint_put(tail, ml);
	uint32_t o;
	char *k;

	tl += varint_put(tail + tl, wl);
	while (ar_hmap_next(&R.gix, h, &it, &i)) {
		const char *s = R.a + R.g[i].key;

		/* strncmp stops at the NUL of a shorter key. */
		if (strncmp(s, key, kl + 1))
			continue;
		key_lens(s, kl, &ml2, &wl2);
		if (ml2 == ml && wl2 == wl)
			return &R.g[i];
	}
	o = arena_room(kl + 1 + tl);
	k = R.a + o;
	memcpy(k, key, kl + 1);
	memcpy(k + kl + 1, tail, tl);
	if (R.ng == R.gcap) {
		R.gcap = R.gcap ? 2 * R.gcap : 1024;
		R.g = ar_xrealloc(R.g, R.gcap * sizeof *R.g);
	}
	memset(&R.g[R.ng], 0, sizeof *R.g);
	R.g[R.ng].key = o;
	ar_hmap_put(&R.gix, h, R.ng);
	return &R.g[R.ng++];
}

/* The point of k in g, made when new, the points kept sorted by k. */
static struct pt *
point_of(struct grp *g, uint32_t k)
{
	uint32_t lo = 0, hi = g->np;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((g->p[mid].k & PT_K) < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->np && (g->p[lo].k & PT_K) == k)
		return &g->p[lo];
	g->p = pts_grow(g->p, g->np + 1);
	memmove(&g->p[lo + 1], &g->p[lo], (g->np - lo) * sizeof *g->p);
	memset(&g->p[lo], 0, sizeof *g->p);
	g->p[lo].k = k;
	g->np++;
	return &g->p[lo];
}

/* A row as read, waiting in a batch to be folded: its strings lie in
 * the batch's chars, by offset. */
struct row {
	double y, lo, hi;
	long n;
	uint32_t h, k;       /* group_hash's; k */
	uint32_t key, id, lab, idea, verdict; /* key: as grp's, to its NUL */
	uint32_t ml, wl, dl, labn;
	unsigned has_y : 1, feasible : 1, has_idea : 1;
};

/* Rows are folded a window at a time, so that the memory each will
 * touch (its slot in the index, its group, its points, its record) is
 * asked for ahead, many rows at once, and not waited on one row at a
 * time. A batch is what the reading thread hands to the folding one. */
#define WINDOW 64
#define BATCH 1024
struct batch {
	struct row r[BATCH];
	size_t n;
	struct ar_buf s;     /* the rows' strings, NUL-terminated */
	char *err;           /* a malformed row after the rows: dies */
};

/* A row of the group at k. Ties of id keep the later row as the latest
 * and the earlier as the first, the order a stable sort of the rows by
 * key, k and id gives. */
static void
add_row(const struct row *rw, const char *s)
{
	struct grp *g = group_of(s + rw->key, rw->ml, rw->wl, rw->dl, rw->h);
	uint32_t k = rw->k;
	const char *id = s + rw->id, *lab = s + rw->lab;
	const char *idea = rw->has_idea ? s + rw->idea : NULL;
	size_t labn = rw->labn;
	int has_y = rw->has_y;
	int is_first = !g->np || k < (g->p[0].k & PT_K) || (k ==
	    (g->p[0].k & PT_K) && strcmp(id, R.a + g->first) < 0);
	struct pt *p = point_of(g, k);
	struct recv r = { 0, 0, 0, "", "", 0 };
	unsigned char vb[30];
	size_t vl, yl;
	int newlast, newy, hasy = (p->k & PT_HASY) != 0, lsep;
	const char *yid, *lid;

	if (p->rec)
		rec_get(p->rec, p->k, &r);
	newlast = !p->rec || strcmp(id, r.lid) >= 0;
	newy = has_y && (!hasy || strcmp(id, r.yid) >= 0);
	/* A newer scored row is also the latest: the two part only by a
	 * later row without a score, or an older scored one. */
	lsep = newy && newlast ? 0 : newy || newlast ? 1 :
	    (p->k & PT_LSEP) != 0;
	yid = newy ? id : r.yid;
	lid = newlast ? id : r.lid;
	vl = varint_put(vb, r.results + 1);
	vl += varint_put(vb + vl, newy ? (unsigned long long)rw->n : r.n);
	vl += varint_put(vb + vl, newy ? verdict_ix(s + rw->verdict) : r.v);
	/* Made aside: the old ids may lie where the new record goes. */
	ar_buf_clear(&R.rb);
	ar_buf_add(&R.rb, vb, vl);
	yl = strlen(yid) + 1;
	ar_buf_add(&R.rb, yid, yl);
	if (lsep)
		ar_buf_add(&R.rb, lid, strlen(lid) + 1);
	/* In place when it fits and the group's first id is not in it:
	 * the ids of a ledger have one length. */
	if (!p->rec || R.rb.len > r.size || (g->first >= p->rec &&
	    g->first < p->rec + r.size))
		p->rec = arena_room(R.rb.len);
	memcpy(R.a + p->rec, R.rb.p, R.rb.len);
	p->k = k | (hasy || newy ? PT_HASY : 0) | (lsep ? PT_LSEP : 0) |
	    ((newlast ? rw->feasible : (p->k & PT_FEAS) != 0) ? PT_FEAS : 0);
	if (newy) {
		p->y = rw->y;
		p->lo = rw->lo;
		p->hi = rw->hi;
	}
	if (is_first) {
		/* The row's id where it is kept already: a new first is
		 * rare (a smaller k, or an older id at the least k). */
		if (newlast)
			g->first = (uint32_t)(p->rec + vl + (lsep ? yl : 0));
		else
			g->first = arena_str(id);
		/* The label is the group's alone: written over in place. */
		if (!g->label || strlen(R.a + g->label) < labn)
			g->label = arena_room(labn + 1);
		memcpy(R.a + g->label, lab, labn);
		R.a[g->label + labn] = 0;
		if (idea)
			g->idea = idea[0] ? arena_str(idea) : 0;
	}
}

/* Folds rows r[0..n) in their order. Before, in passes over them all,
 * each row's memory is prefetched a level at a time: its slot in the
 * index, then the group the slot names, then the group's key and
 * points, then the record of its point at k. A pass reads only what the
 * pass before fetched; the fold itself looks everything up again, so a
 * stale guess (a group made earlier in the window) costs only a miss. */
static void
fold_window(const struct row *r, size_t n, const char *s)
{
	uint32_t gix[WINDOW];
	size_t i, j, it, pos;

	if (R.gix.cap) {
		for (i = 0; i < n; i++)
			__builtin_prefetch(&R.gix.slot[r[i].h &
			    (R.gix.cap - 1)]);
		for (i = 0; i < n; i++) {
			it = 0;
			gix[i] = UINT32_MAX;
			if (ar_hmap_next(&R.gix, r[i].h, &it, &pos)) {
				gix[i] = (uint32_t)pos;
				__builtin_prefetch(&R.g[pos]);
				__builtin_prefetch((char *)&R.g[pos] +
				    sizeof *R.g - 1);
			}
		}
		for (i = 0; i < n; i++) {
			const struct grp *g;

			if (gix[i] == UINT32_MAX)
				continue;
			g = &R.g[gix[i]];
			__builtin_prefetch(R.a + g->key);
			__builtin_prefetch(g->p);
			__builtin_prefetch((char *)g->p + 64);
		}
		for (i = 0; i < n; i++) {
			const struct grp *g;

			if (gix[i] == UINT32_MAX)
				continue;
			g = &R.g[gix[i]];
			for (j = 0; j < g->np; j++)
				if ((g->p[j].k & PT_K) == r[i].k) {
					__builtin_prefetch(R.a + g->p[j].rec);
					break;
				}
		}
	}
	for (i = 0; i < n; i++)
		add_row(&r[i], s);
}

/* Folds a batch's rows, a window at a time, and empties it; then a
 * malformed row after them ends the program. */
static void
fold_batch(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i += WINDOW)
		fold_window(b->r + i, b->n - i < WINDOW ? b->n - i : WINDOW,
		    b->s.p);
	b->n = 0;
	ar_buf_clear(&b->s);
	if (b->err)
		ar_die(AR_EX_DATA, "%s", b->err);
}

/* A column that may be missing, or (need) one that must be there. */
static int
col(const struct ar_tsv *t, const char *name, int need)
{
	return need ? ar_tsv_need(t, name) : ar_tsv_col(t, name);
}

/* A plain decimal (digits, maybe a point and digits; 15 digits at most)
 * read without strtod: the digits are an exact integer and the power of
 * ten is exact, so their quotient is rounded once, as strtod rounds.
 * 0 where the form is not that one: strtod decides. */
static int
fast_double(const char *s, double *v)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
		1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	uint64_t d = 0;
	int nd = 0, nf = -1;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			d = d * 10 + (uint64_t)(*s - '0');
			if (++nd > 15)
				return 0;
			if (nf >= 0)
				nf++;
		} else if (*s == '.' && nf < 0 && nd) {
			nf = 0;
		} else {
			return 0;
		}
	}
	if (!nd || nf == 0)
		return 0;
	*v = (double)d / p10[nf < 0 ? 0 : nf];
	return 1;
}

/* An input being read. With two cores or more, a thread reads and
 * splits the rows into batches, and the main thread folds them, in the
 * order read; a ring of batches lies between them. */
#define RING 4
struct rd {
	struct ar_tsv t;
	char cy[128], clo[128], chi[128], cn[128];
	int c_id, c_signed, c_verified, c_hash, c_commit, c_dir, c_wl;
	int c_dev, c_idea, c_k, c_verdict, c_guard, c_aa, c_y, c_lo, c_hi;
	int c_n;
	struct left left;    /* the reading thread's counts */
	struct batch *ring[RING];
	size_t head, tail;   /* batches folded, and handed over */
	int ended;           /* the last batch is handed over */
	int threaded;
	pthread_mutex_t mu;
	pthread_cond_t full, room;
};

/* The reader's batch being filled. */
static struct batch *
rd_cur(struct rd *rd)
{
	return rd->ring[rd->tail % RING];
}

/* The batch filled (the last one when end): folded now, or handed to
 * the folding thread, waiting for room for the next. */
static void
rd_put(struct rd *rd, int end)
{
	if (!rd->threaded) {
		fold_batch(rd_cur(rd));
		return;
	}
	pthread_mutex_lock(&rd->mu);
	rd->tail++;
	rd->ended = end;
	pthread_cond_signal(&rd->full);
	while (!end && rd->tail - rd->head == RING)
		pthread_cond_wait(&rd->room, &rd->mu);
	pthread_mutex_unlock(&rd->mu);
}

/* A malformed row: the rows before it are folded first, as they would
 * have been one at a time, then the message ends the program. */
static _Noreturn void
row_die(struct rd *rd, const char *fmt, ...)
{
	struct batch *b = rd_cur(rd);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	b->err = ar_xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	va_start(ap, fmt);
	vsnprintf(b->err, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
	va_end(ap);
	rd_put(rd, 1);
	/* The folding thread ends the program when it comes to it. */
	if (rd->threaded)
		pthread_exit(NULL);
	abort();    /* fold_batch died */
}

/* A score field: empty is missing; anything else must be a positive,
 * finite number. */
static int
score_field(struct rd *rd, int c, const char *name, double *v)
{
	const struct ar_tsv *t = &rd->t;
	const char *s = c >= 0 ? t->field[c] : "";

	if (!s[0])
		return 0;
	if ((!fast_double(s, v) && ar_parse_double(s, v) < 0) || !(*v > 0))
		row_die(rd, "%s: line %zu: %s: \"%s\" is not a positive "
		    "number", t->name, t->lineno, name, s);
	return 1;
}

/* -i: each group whose first row names an idea takes the idea's title
 * from the ideas spool as its label. Only the records of those ideas are
 * read; an idea without a record or a title keeps the label it has. */
static void
idea_titles(const char *dir)
{
	static const char *const sub[] = { "new", "cur", "done", "failed" };
	struct ar_hmap want = {0};
	size_t i, j, n, it, pos;
	char **names;

	if (ar_spool_check(dir) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a spool (-i)", dir);
	for (i = 0; i < R.ng; i++)
		if (R.g[i].idea)
			ar_hmap_put(&want, ar_hash_str(R.a + R.g[i].idea),
			    (uint32_t)i);
	for (i = 0; i < 4 && want.n; i++) {
		if (ar_spool_list(dir, sub[i], &names, &n) < 0)
			ar_die(AR_EX_IO, "%s/%s:", dir, sub[i]);
		for (j = 0; j < n; j++) {
			struct ar_lease l;
			struct ar_buf b = {0};
			const char *title = NULL;
			char *p, err[256];
			json_t *o = NULL;
			uint32_t h, t = 0;

			if (ar_spool_parse(names[j], &l) < 0)
				continue;
			h = ar_hash_str(l.id);
			it = 0;
			while (ar_hmap_next(&want, h, &it, &pos)) {
				if (strcmp(R.a + R.g[pos].idea, l.id))
					continue;
				if (!t) {
					p = ar_spool_path(dir, sub[i], names[j]);
					if (ar_readfile(p, &b, AR_LINE_MAX + 1) == 0)
						o = ar_json_parse(b.p, b.len, err,
						    sizeof err);
					free(p);
					title = json_string_value(
					    json_object_get(o, "title"));
					if (!title || !title[0])
						break;
					t = arena_str(title);
				}
				R.g[pos].label = t;
			}
			json_decref(o);
			ar_buf_free(&b);
		}
		ar_spool_free_list(names, n);
	}
	ar_hmap_free(&want);
}

/* The rows of rd->t into batches, handed on as they fill. */
static void
parse_rows(struct rd *rd)
{
	struct ar_tsv *t = &rd->t;
	struct left *left = &rd->left;

	for (;;) {
		int st = ar_tsv_next(t), has_y, feasible;
		const char *v, *method, *lab, *id, *wl, *dev;
		struct batch *b;
		struct row *rw;
		size_t labn, idn, idean, vn;
		double y = 0, lo, hi;
		long long k;
		long n;
		char *o;

		if (st < 0)
			row_die(rd, "%s", t->err);
		if (st == 0)
			break;
		if (strcmp(t->field[rd->c_signed], "yes") != 0) {
			left->unsigned_++;
			continue;
		}
		/* Only rows checked by ar-ledger export -V, unless -U. */
		if (!O.unverified && (rd->c_verified < 0 ||
		    strcmp(t->field[rd->c_verified], "yes") != 0)) {
			left->unverified++;
			continue;
		}
		if (rd->c_aa >= 0 && strcmp(t->field[rd->c_aa], "true") == 0) {
			left->aa++;
			continue;
		}
		if (ar_parse_long(t->field[rd->c_k], &k) < 0 || k < 1 ||
		    k > 65536)
			row_die(rd, "%s: line %zu: shape.k: \"%s\" is not "
			    "a whole number from 1 to 65536", t->name,
			    t->lineno, t->field[rd->c_k]);
		has_y = score_field(rd, rd->c_y, rd->cy, &y);
		lo = hi = y;
		if (has_y) {
			double x;

			if (score_field(rd, rd->c_lo, rd->clo, &x))
				lo = x;
			if (score_field(rd, rd->c_hi, rd->chi, &x))
				hi = x;
			if (lo > y || hi < y)
				row_die(rd, "%s: line %zu: %s lies outside "
				    "its interval", t->name, t->lineno, rd->cy);
		} else {
			left->noscore++;
		}
		n = 0;
		if (rd->c_n >= 0 && t->field[rd->c_n][0]) {
			long long nn;

			if (ar_parse_long(t->field[rd->c_n], &nn) == 0 &&
			    nn >= 0)
				n = (long)nn;
		}
		v = t->field[rd->c_verdict];
		feasible = strcmp(v, "invalid") && strcmp(v, "crash") &&
		    strcmp(v, "timeout") && !(rd->c_guard >= 0 &&
		    strcmp(t->field[rd->c_guard], "false") == 0);
		method = t->field[rd->c_hash];
		if (rd->c_commit >= 0 && t->field[rd->c_commit][0]) {
			lab = t->field[rd->c_commit];
			labn = strnlen(lab, 7);
		} else if (rd->c_dir >= 0 && t->field[rd->c_dir][0]) {
			/* The directory's last name, trailing slashes aside;
			 * "/" is itself. */
			size_t e = strlen(t->field[rd->c_dir]), s;

			lab = t->field[rd->c_dir];
			while (e > 1 && lab[e - 1] == '/')
				e--;
			for (s = e; s > 0 && lab[s - 1] != '/'; s--)
				;
			if (s == e)
				s = 0;
			lab += s;
			labn = e - s;
		} else {
			lab = method;
			labn = strnlen(lab, 7);
		}
		wl = t->field[rd->c_wl];
		dev = t->field[rd->c_dev];
		id = t->field[rd->c_id];
		b = rd_cur(rd);
		rw = &b->r[b->n];
		rw->y = y;
		rw->lo = lo;
		rw->hi = hi;
		rw->n = n;
		rw->k = (uint32_t)k;
		rw->has_y = has_y != 0;
		rw->feasible = feasible != 0;
		rw->has_idea = rd->c_idea >= 0 || O.ideas;
		rw->ml = (uint32_t)strlen(method);
		rw->wl = (uint32_t)strlen(wl);
		rw->dl = (uint32_t)strlen(dev);
		rw->labn = (uint32_t)labn;
		rw->h = group_hash(method, rw->ml, wl, rw->wl, dev, rw->dl);
		idn = strlen(id);
		idean = rd->c_idea >= 0 ? strlen(t->field[rd->c_idea]) : 0;
		vn = strlen(v);
		/* The row's strings, each with its NUL, in one copy each
		 * into room made once. */
		ar_buf_reserve(&b->s, rw->ml + rw->wl + rw->dl + idn + labn +
		    idean + vn + 7);
		o = b->s.p + b->s.len;
#define PUT(fld, str, len) do { rw->fld = (uint32_t)(o - b->s.p); \
	memcpy(o, (str), (len)); o[(len)] = 0; o += (len) + 1; } while (0)
		/* The key: method, workload and device, joined by tabs. */
		rw->key = (uint32_t)(o - b->s.p);
		memcpy(o, method, rw->ml);
		o += rw->ml;
		*o++ = '\t';
		memcpy(o, wl, rw->wl);
		o += rw->wl;
		*o++ = '\t';
		memcpy(o, dev, rw->dl);
		o += rw->dl;
		*o++ = 0;
		PUT(id, id, idn);
		PUT(lab, lab, labn);
		PUT(idea, rd->c_idea >= 0 ? t->field[rd->c_idea] : "", idean);
		PUT(verdict, v, vn);
#undef PUT
		b->s.len = (size_t)(o - b->s.p);
		if (++b->n == BATCH)
			rd_put(rd, 0);
	}
	rd_put(rd, 1);
}

static void *
parse_main(void *arg)
{
	parse_rows(arg);
	return NULL;
}

/* The threads to use: $AR_THREADS (1 to 16), as ar-ledger reads it;
 * else the CPUs this process may run on. */
static long
ncpus(void)
{
	const char *e = getenv("AR_THREADS");
	cpu_set_t set;

	if (e && *e) {
		long n = atol(e);

		return n < 1 ? 1 : n > 16 ? 16 : n;
	}
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

static void
read_rows(FILE *f, const char *name, struct left *left)
{
	struct rd *rd = ar_xcalloc(1, sizeof *rd);
	struct ar_tsv *t = &rd->t;
	pthread_t th;
	size_t i;

	if (ar_tsv_open(t, f, name) < 0)
		ar_die(AR_EX_DATA, "%s", t->err);
	R.name = name;
	if (O.metric) {
		snprintf(rd->cy, sizeof rd->cy, "metrics.%s.median", O.metric);
		snprintf(rd->clo, sizeof rd->clo, "metrics.%s.ci_lo", O.metric);
		snprintf(rd->chi, sizeof rd->chi, "metrics.%s.ci_hi", O.metric);
		snprintf(rd->cn, sizeof rd->cn, "metrics.%s.n", O.metric);
	} else {
		snprintf(rd->cy, sizeof rd->cy, "ratio.median");
		snprintf(rd->clo, sizeof rd->clo, "ratio.ci_lo");
		snprintf(rd->chi, sizeof rd->chi, "ratio.ci_hi");
		snprintf(rd->cn, sizeof rd->cn, "ratio.n");
	}
	rd->c_id = col(t, "id", 1);
	rd->c_signed = col(t, "signed", 1);
	rd->c_verified = col(t, "verified", 0);
	rd->c_hash = col(t, "method.hash", 1);
	rd->c_commit = col(t, "method.commit", 0);
	rd->c_dir = col(t, "method.dir", 0);
	rd->c_idea = O.ideas ? col(t, "idea", 0) : -1;
	rd->c_wl = col(t, "workload", 1);
	rd->c_dev = col(t, "device", 1);
	rd->c_k = col(t, "shape.k", 1);
	rd->c_verdict = col(t, "verdict", 1);
	rd->c_guard = col(t, "pass.guardrails", 0);
	rd->c_aa = col(t, "aa", 0);
	rd->c_y = col(t, rd->cy, 1);
	rd->c_lo = col(t, rd->clo, 0);
	rd->c_hi = col(t, rd->chi, 0);
	rd->c_n = col(t, rd->cn, 0);
	for (i = 0; i < RING; i++)
		rd->ring[i] = ar_xcalloc(1, sizeof *rd->ring[i]);
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->full, NULL);
	pthread_cond_init(&rd->room, NULL);
	/* Set before the thread starts: it reads it. */
	rd->threaded = ncpus() > 1;
	if (rd->threaded && pthread_create(&th, NULL, parse_main, rd) != 0)
		rd->threaded = 0;
	if (!rd->threaded) {
		parse_rows(rd);
	} else {
		pthread_mutex_lock(&rd->mu);
		for (;;) {
			while (rd->head == rd->tail && !rd->ended)
				pthread_cond_wait(&rd->full, &rd->mu);
			if (rd->head == rd->tail)
				break;
			pthread_mutex_unlock(&rd->mu);
			/* A batch that ends in a malformed row is the
			 * reader's last: joined before its fold ends the
			 * program. */
			if (rd->ring[rd->head % RING]->err)
				pthread_join(th, NULL);
			fold_batch(rd->ring[rd->head % RING]);
			pthread_mutex_lock(&rd->mu);
			rd->head++;
			pthread_cond_signal(&rd->room);
		}
		pthread_mutex_unlock(&rd->mu);
		pthread_join(th, NULL);
	}
	left->unsigned_ += rd->left.unsigned_;
	left->unverified += rd->left.unverified;
	left->aa += rd->left.aa;
	left->noscore += rd->left.noscore;
	pthread_cond_destroy(&rd->room);
	pthread_cond_destroy(&rd->full);
	pthread_mutex_destroy(&rd->mu);
	for (i = 0; i < RING; i++) {
		ar_buf_free(&rd->ring[i]->s);
		free(rd->ring[i]);
	}
	ar_tsv_close(t);
	free(rd);
}

/* The view of a group: its points with a score, the fit, the knee. */
static void
build(const struct grp *g, struct view *v)
{
	const char *k = R.a + g->key;
	size_t kl = strlen(k), i, ml, wl;

	key_lens(k, kl, &ml, &wl);
	if (v->mwdcap < kl + 1) {
		v->mwdcap = kl + 1;
		v->mwd = ar_xrealloc(v->mwd, v->mwdcap);
	}
	memcpy(v->mwd, k, kl + 1);
	v->mwd[ml] = 0;
	v->mwd[ml + 1 + wl] = 0;
	v->method = v->mwd;
	v->workload = v->mwd + ml + 1;
	v->device = v->mwd + ml + 1 + wl + 1;
	v->label = R.a + g->label;
	if (v->cap < g->np + 1) {
		v->cap = g->np + 1;
		v->p = ar_xrealloc(v->p, v->cap * sizeof *v->p);
		v->results = ar_xrealloc(v->results, v->cap *
		    sizeof *v->results);
		v->n = ar_xrealloc(v->n, v->cap * sizeof *v->n);
		v->verdict = ar_xrealloc(v->verdict, v->cap *
		    sizeof *v->verdict);
		v->id = ar_xrealloc(v->id, v->cap * sizeof *v->id);
	}
	v->np = 0;
	for (i = 0; i < g->np; i++) {
		const struct pt *q = &g->p[i];
		struct ar_point *p = &v->p[v->np];
		struct recv r;

		/* One point per k: the latest result with a score;
		 * feasible as the latest result at that k says. */
		if (!(q->k & PT_HASY))
			continue;
		p->k = (double)(q->k & PT_K);
		p->y = q->y;
		p->lo = q->lo;
		p->hi = q->hi;
		p->feasible = (q->k & PT_FEAS) != 0;
		rec_head(q->rec, &r);
		v->results[v->np] = (long)r.results;
		v->n[v->np] = (long)r.n;
		v->verdict[v->np] = R.verdict[r.v];
		v->id[v->np] = r.yid;
		v->np++;
	}
	ar_curve_fit(v->p, v->np, &v->fit);
	v->has_best = ar_curve_best(v->p, v->np, !O.lower, &v->knee,
	    &v->best_k, &v->best) == 0;
}

static void
view_free(struct view *v)
{
	free(v->p);
	free(v->results);
	free(v->n);
	free(v->verdict);
	free(v->id);
	free(v->mwd);
}

/* The output's order: by the joined key, as the rows were sorted. The
 * key's first 8 bytes, big-endian, decide most comparisons without
 * touching the arena. */
struct gord {
	uint64_t pre;
	uint32_t g;
};

static int
cmp_gord(const void *a, const void *b)
{
	const struct gord *x = a, *y = b;
	const char *p, *q;
	size_t mp, wp, mq, wq;
	int c;

	if (x->pre != y->pre)
		return x->pre < y->pre ? -1 : 1;
	p = R.a + R.g[x->g].key;
	q = R.a + R.g[y->g].key;
	if ((c = strcmp(p, q)))
		return c;
	/* The same joined key from names holding tabs: by the lengths. */
	key_lens(p, strlen(p), &mp, &wp);
	key_lens(q, strlen(q), &mq, &wq);
	if (mp != mq)
		return mp < mq ? -1 : 1;
	return (wp > wq) - (wp < wq);
}

/* cmp_gord's order: by pre a byte at a time, least significant first,
 * skipping the bytes all keys share (a radix sort, stable); then each
 * run of one pre by cmp_gord. A comparison sort spent most of its time
 * on what pre alone decides. */
static void
sort_gord(struct gord *o, size_t n)
{
	struct gord *t, *src = o, *dst, *x;
	size_t cnt[256], i, b, run, sum, c;
	uint64_t diff = 0;

	if (n < 2)
		return;
	for (i = 1; i < n; i++)
		diff |= o[i].pre ^ o[0].pre;
	t = ar_xmalloc(n * sizeof *t);
	dst = t;
	for (b = 0; b < 64; b += 8) {
		if (!((diff >> b) & 0xff))
			continue;
		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[(src[i].pre >> b) & 0xff]++;
		for (i = 0, sum = 0; i < 256; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i].pre >> b) & 0xff]++] = src[i];
		x = src;
		src = dst;
		dst = x;
	}
	if (src != o)
		memcpy(o, src, n * sizeof *o);
	free(t);
	for (i = 0; i < n; i = run) {
		for (run = i + 1; run < n && o[run].pre == o[i].pre; run++)
			;
		if (run - i > 1)
			ar_sort(o + i, run - i, sizeof *o, cmp_gord);
	}
}

static double
efficiency(const struct view *g, size_t i)
{
	/* The score's scaling efficiency against the smallest k. */
	if (!g->np || !(g->p[0].y > 0))
		return NAN;
	return (g->p[i].y / g->p[0].y) / (g->p[i].k / g->p[0].k);
}

static int
measured(const struct view *g, double k)
{
	size_t i;

	for (i = 0; i < g->np; i++)
		if (g->p[i].k == k)
			return 1;
	return 0;
}

/* printf's "%.6g" (and "%g"), without printf's cost where the digits are
 * sure: the value scaled to six digits by one exact power of ten, then
 * rounded; a value too near a rounding boundary, or out of the range of
 * exact powers, goes to printf. */
static char *
g6_end(char *b, double v)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
		1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
		1e18, 1e19, 1e20, 1e21, 1e22 };
	double a = fabs(v), m = 0, f;
	uint64_t bits;
	long d;
	int e, s, i, end, tries;
	char dig[8], *o = b;

	if (a == 0) {
		strcpy(b, signbit(v) ? "-0" : "0");
		return b + strlen(b);
	}
	/* A whole number of six digits at most (k, an efficiency of 1) is
	 * its digits. */
	if (a < 1e6 && v == (double)(long)v) {
		unsigned long u = (unsigned long)a;

		if (v < 0)
			*o++ = '-';
		for (i = 0, d = (long)u; d; d /= 10)
			dig[i++] = (char)('0' + d % 10);
		while (i)
			*o++ = dig[--i];
		*o = 0;
		return o;
	}
	if (!(a >= 1e-15 && a < 1e15))
		goto slow;
	/* The binary exponent tells the decimal one (78913 / 2^18 is
	 * log10(2)), or misses it by one: m says which. */
	memcpy(&bits, &a, sizeof bits);
	e = (int)((bits >> 52) & 0x7ff) - 1023;
	e = e >= 0 ? e * 78913 >> 18 : -((-e * 78913 + 262143) >> 18);
	for (tries = 0; tries < 3; tries++) {
		s = 5 - e;
		m = s >= 0 ? a * p10[s] : a / p10[-s];
		if (m < 1e5)
			e--;
		else if (m >= 1e6)
			e++;
		else
			break;
	}
	if (tries == 3)
		goto slow;
	d = (long)m;
	f = m - (double)d;
	if (f > 0.5 - 1e-6 && f < 0.5 + 1e-6)
		goto slow;
	if (f > 0.5)
		d++;
	if (d == 1000000) {
		d = 100000;
		e++;
	}
	for (i = 5; i >= 0; i--, d /= 10)
		dig[i] = (char)('0' + d % 10);
	for (end = 6; end > 1 && dig[end - 1] == '0'; end--)
		;
	if (v < 0)
		*o++ = '-';
	if (e < -4 || e >= 6) {
		*o++ = dig[0];
		if (end > 1) {
			*o++ = '.';
			for (i = 1; i < end; i++)
				*o++ = dig[i];
		}
		*o++ = 'e';
		*o++ = e < 0 ? '-' : '+';
		s = e < 0 ? -e : e;
		if (s >= 100)
			*o++ = (char)('0' + s / 100);
		*o++ = (char)('0' + s / 10 % 10);
		*o++ = (char)('0' + s % 10);
	} else if (e >= 0) {
		for (i = 0; i <= e; i++)
			*o++ = dig[i];
		if (end > e + 1) {
			*o++ = '.';
			for (i = e + 1; i < end; i++)
				*o++ = dig[i];
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (i = 0; i < -e - 1; i++)
			*o++ = '0';
		for (i = 0; i < end; i++)
			*o++ = dig[i];
	}
	*o = 0;
	return o;
slow:
	return b + snprintf(b, 32, "%.6g", v);
}

/* Six significant digits: more than any score's interval can tell
 * apart, and the shortest exact form costs a strtod per digit count. */
/* Appends to a line: ar_buf_add's work, inlined where it fits. */
static void
bput(struct ar_buf *b, const char *s, size_t n)
{
	if (b->len + n < b->cap) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	} else {
		ar_buf_add(b, s, n);
	}
}

static void
bs(struct ar_buf *b, const char *s)
{
	bput(b, s, strlen(s));
}

static void
bc(struct ar_buf *b, char c)
{
	bput(b, &c, 1);
}

static void
num(struct ar_buf *b, double v)
{
	/* Written in place: g6_end's digits and NUL take 32 bytes at
	 * most. */
	if (isfinite(v)) {
		if (b->len + 32 >= b->cap)
			ar_buf_reserve(b, 32);
		b->len = (size_t)(g6_end(b->p + b->len, v) - b->p);
	}
}

/* "%ld", by hand: printf costs more than the rest of a line. */
static const char *
ld(char *b, long v)
{
	char t[24];
	unsigned long u = v < 0 ? 0 - (unsigned long)v : (unsigned long)v;
	size_t n = 0, i = 0;

	do
		t[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		b[i++] = '-';
	while (n)
		b[i++] = t[--n];
	b[i] = 0;
	return b;
}

/* A field escaped as ar_tsv_put escapes it. */
static void
put_esc(struct ar_buf *b, const char *s)
{
	const char *p;

	for (p = s; *p; p++) {
		const char *e = *p == '\t' ? "\\t" : *p == '\n' ? "\\n" :
		    *p == '\r' ? "\\r" : *p == '\\' ? "\\\\" : NULL;

		if (e) {
			bput(b, s, (size_t)(p - s));
			bput(b, e, 2);
			s = p + 1;
		}
	}
	bput(b, s, (size_t)(p - s));
}

static const char *
model_name(int m)
{
	return m == AR_FIT_USL ? "usl" : m == AR_FIT_AMDAHL ? "amdahl" : "none";
}

/* A group's lines, added to b. The fields
 * every line of a group repeats (names before k, the fit after the
 * efficiency) are made once, in pre and post. */
static void
tsv_group(const struct view *g, struct ar_buf *b, struct ar_buf *pre,
    struct ar_buf *post)
{
	size_t i;
	char t[32];

	ar_buf_clear(pre);
	bs(pre, g->method);
	bc(pre, '\t');
	put_esc(pre, g->label);
	bc(pre, '\t');
	put_esc(pre, g->workload);
	bc(pre, '\t');
	put_esc(pre, g->device);
	bc(pre, '\t');
	bs(pre, O.metric ? O.metric : "ratio");
	bc(pre, '\t');
	ar_buf_clear(post);
	bc(post, '\t');
	bs(post, model_name(g->fit.model));
	bc(post, '\t');
	if (g->fit.model) {
		num(post, g->fit.sigma);
		bc(post, '\t');
		num(post, g->fit.sigma_se);
		bc(post, '\t');
		num(post, g->fit.kappa);
		bc(post, '\t');
		num(post, g->fit.kappa_se);
	} else {
		bs(post, "\t\t\t");
	}
	bc(post, '\t');
	if (g->has_best) {
		bs(post, ld(t, g->knee));
		bc(post, '\t');
		bs(post, ld(t, g->best_k));
	} else
		bc(post, '\t');
	bc(post, '\n');
	for (i = 0; i < g->np + O.nkpred; i++) {
		double k, y, lo, hi;
		int meas = i < g->np;

		if (meas) {
			k = g->p[i].k;
			y = g->p[i].y;
			lo = g->p[i].lo;
			hi = g->p[i].hi;
		} else {
			k = O.kpred[i - g->np];
			if (g->fit.model == AR_FIT_NONE || measured(g, k))
				continue;
			ar_curve_predict(&g->fit, k, &y, &lo, &hi);
		}
		bput(b, pre->p, pre->len);
		num(b, k);
		if (meas)
			bput(b, "\tmeasured\t", 10);
		else
			bput(b, "\tpredicted\t", 11);
		num(b, y);
		bc(b, '\t');
		num(b, lo);
		bc(b, '\t');
		num(b, hi);
		bc(b, '\t');
		if (meas)
			bs(b, ld(t, g->n[i]));
		bc(b, '\t');
		if (meas)
			bput(b, g->p[i].feasible ? "yes" : "no",
			    g->p[i].feasible ? 3 : 2);
		bc(b, '\t');
		if (meas)
			num(b, efficiency(g, i));
		bput(b, post->p, post->len);
	}
}

/* The TSV output is made by a crew of threads, one a core: each takes
 * a chunk of groups in turn (builds, fits and formats them into its own
 * buffer), and the main thread writes the chunks in order, so the
 * output is the same whatever the number of threads. */
#define CHUNK 512
#define CREW_MAX 8

struct crew;

struct hand {
	struct crew *c;
	pthread_t th;
	size_t from, to;     /* the groups of this round, in ord */
	struct view v;
	struct ar_buf out, pre, post;
};

struct crew {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned long round; /* bumped when a round's chunks are handed out */
	size_t busy;         /* hands still at work in the round */
	int quit;
	const struct gord *ord;
	struct hand h[CREW_MAX];
	size_t n;            /* h[0] is the main thread */
};

static void
hand_chunk(struct hand *h)
{
	size_t i;

	ar_buf_clear(&h->out);
	for (i = h->from; i < h->to; i++) {
		build(&R.g[h->c->ord[i].g], &h->v);
		tsv_group(&h->v, &h->out, &h->pre, &h->post);
	}
}

static void *
hand_main(void *arg)
{
	struct hand *h = arg;
	struct crew *c = h->c;
	unsigned long seen = 0;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (c->round == seen && !c->quit)
			pthread_cond_wait(&c->go, &c->mu);
		if (c->quit)
			break;
		seen = c->round;
		pthread_mutex_unlock(&c->mu);
		hand_chunk(h);
		pthread_mutex_lock(&c->mu);
		if (--c->busy == 0)
			pthread_cond_signal(&c->done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static void
hand_free(struct hand *h)
{
	view_free(&h->v);
	ar_buf_free(&h->out);
	ar_buf_free(&h->pre);
	ar_buf_free(&h->post);
}

/* The groups' TSV lines, in ord's order. */
static void
tsv_all(const struct gord *ord)
{
	struct crew c;
	long ncpu = ncpus();
	size_t i, j, n;

	memset(&c, 0, sizeof c);
	c.ord = ord;
	n = ncpu < 1 ? 1 : ncpu > CREW_MAX ? CREW_MAX : (size_t)ncpu;
	/* Fewer groups than chunks for all: no more hands than chunks. */
	if (n > (R.ng + CHUNK - 1) / CHUNK)
		n = (R.ng + CHUNK - 1) / CHUNK;
	if (n < 1)
		n = 1;
	pthread_mutex_init(&c.mu, NULL);
	pthread_cond_init(&c.go, NULL);
	pthread_cond_init(&c.done, NULL);
	for (c.n = 0; c.n < n; c.n++) {
		c.h[c.n].c = &c;
		/* Fewer hands do the same work. */
		if (c.n && pthread_create(&c.h[c.n].th, NULL, hand_main,
		    &c.h[c.n]) != 0)
			break;
	}
	for (i = 0; i < R.ng; i += c.n * CHUNK) {
		pthread_mutex_lock(&c.mu);
		for (j = 0; j < c.n; j++) {
			c.h[j].from = i + j * CHUNK < R.ng ? i + j * CHUNK : R.ng;
			c.h[j].to = c.h[j].from + CHUNK < R.ng ?
			    c.h[j].from + CHUNK : R.ng;
		}
		c.busy = c.n - 1;
		c.round++;
		pthread_cond_broadcast(&c.go);
		pthread_mutex_unlock(&c.mu);
		hand_chunk(&c.h[0]);
		pthread_mutex_lock(&c.mu);
		while (c.busy)
			pthread_cond_wait(&c.done, &c.mu);
		pthread_mutex_unlock(&c.mu);
		for (j = 0; j < c.n; j++)
			fwrite(c.h[j].out.p, 1, c.h[j].out.len, stdout);
	}
	pthread_mutex_lock(&c.mu);
	c.quit = 1;
	pthread_cond_broadcast(&c.go);
	pthread_mutex_unlock(&c.mu);
	for (j = 0; j < c.n; j++) {
		if (j)
			pthread_join(c.h[j].th, NULL);
		hand_free(&c.h[j]);
	}
	pthread_cond_destroy(&c.done);
	pthread_cond_destroy(&c.go);
	pthread_mutex_destroy(&c.mu);
}

static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
group_json(const struct view *g)
{
	json_t *o, *pts = json_array(), *pred = json_array(), *eff = json_array();
	json_t *fit;
	size_t i;

	for (i = 0; i < g->np; i++) {
		json_array_append_new(pts, json_pack("{s:f, s:o, s:o, s:o, s:i, "
		    "s:i, s:b, s:s, s:s}", "k", g->p[i].k, "score",
		    jnum(g->p[i].y), "ci_lo", jnum(g->p[i].lo), "ci_hi",
		    jnum(g->p[i].hi), "n", (int)g->n[i], "results",
		    (int)g->results[i], "feasible", g->p[i].feasible, "verdict",
		    g->verdict[i], "id", g->id[i]));
		json_array_append_new(eff, json_pack("{s:f, s:o}", "k",
		    g->p[i].k, "e", jnum(efficiency(g, i))));
	}
	for (i = 0; i < O.nkpred && g->fit.model; i++) {
		double y, lo, hi;

		if (measured(g, O.kpred[i]))
			continue;
		ar_curve_predict(&g->fit, O.kpred[i], &y, &lo, &hi);
		json_array_append_new(pred, json_pack("{s:f, s:o, s:o, s:o}",
		    "k", O.kpred[i], "score", jnum(y), "ci_lo", jnum(lo),
		    "ci_hi", jnum(hi)));
	}
	fit = json_pack("{s:s, s:s}", "model", model_name(g->fit.model), "why",
	    g->fit.why);
	if (g->fit.model) {
		json_object_set_new(fit, "k0", json_real(g->fit.k0));
		json_object_set_new(fit, "s1", jnum(g->fit.y0));
		json_object_set_new(fit, "sigma", jnum(g->fit.sigma));
		json_object_set_new(fit, "sigma_se", jnum(g->fit.sigma_se));
		json_object_set_new(fit, "kappa", jnum(g->fit.kappa));
		json_object_set_new(fit, "kappa_se", jnum(g->fit.kappa_se));
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}",
	    "method", g->method, "label", g->label, "workload", g->workload,
	    "device", g->device, "score", O.metric ? O.metric : "ratio",
	    "points", pts, "fit", fit, "predicted", pred, "efficiency", eff);
	json_object_set_new(o, "knee", g->has_best ? json_integer(g->knee) :
	    json_null());
	json_object_set_new(o, "best_k", g->has_best ? json_integer(g->best_k) :
	    json_null());
	json_object_set_new(o, "best_score", g->has_best ? json_real(g->best) :
	    json_null());
	return o;
}

/* A terminal plot: one line per k, the score as a bar against the
 * group's largest value, the interval and the marks. */
static void
text_group(const struct view *g)
{
	double top = 0;
	size_t i;

	for (i = 0; i < g->np; i++)
		if (g->p[i].hi > top)
			top = g->p[i].hi;
	printf("%s (%.12s) %s %s, %s vs k: %s\n", g->label, g->method,
	    g->workload, g->device, O.metric ? O.metric : "ratio",
	    g->fit.why);
	for (i = 0; i < g->np; i++) {
		int w = top > 0 ? (int)(40 * g->p[i].y / top + 0.5) : 0, j;

		printf("  k=%-4g ", g->p[i].k);
		for (j = 0; j < w; j++)
			putchar(g->p[i].feasible ? '#' : 'x');
		printf("%*s %.3f [%.3f, %.3f]%s%s%s\n", 40 - w, "", g->p[i].y,
		    g->p[i].lo, g->p[i].hi, g->p[i].feasible ? "" :
		    "  infeasible", g->has_best && g->p[i].k == g->knee ?
		    "  <- knee" : "", g->has_best && g->p[i].k == g->best_k ?
		    "  <- best feasible" : "");
	}
	for (i = 0; i < O.nkpred && g->fit.model; i++) {
		double y, lo, hi;

		if (measured(g, O.kpred[i]))
			continue;
		ar_curve_predict(&g->fit, O.kpred[i], &y, &lo, &hi);
		printf("  k=%-4g %-40s %.3f [%.3f, %.3f]  predicted\n",
		    O.kpred[i], "", y, lo, hi);
	}
	if (g->has_best)
		printf("  knee %ld, best feasible %ld (%.3f)\n", g->knee,
		    g->best_k, g->best);
	else
		printf("  no feasible point\n");
}

/* ---- SVG ---- */

/* The curves of the first 8 groups, drawn by lib/svg; the legend names
 * each by its label. */
static void
svg(const char *path, struct view *g, size_t ng)
{
	struct ar_svg_curve c[8];
	struct ar_svg_cpt *pt[8];
	char *tmp;
	FILE *f = ar_out_open(path, &tmp);
	size_t i, j, shown = ng < 8 ? ng : 8;

	if (!f)
		ar_die(ar_errno_exit(errno), "%s:", path);
	for (i = 0; i < shown; i++) {
		pt[i] = ar_xcalloc(g[i].np + 1, sizeof *pt[i]);
		for (j = 0; j < g[i].np; j++) {
			pt[i][j].k = g[i].p[j].k;
			pt[i][j].y = g[i].p[j].y;
			pt[i][j].lo = g[i].p[j].lo;
			pt[i][j].hi = g[i].p[j].hi;
			pt[i][j].feasible = g[i].p[j].feasible;
		}
		c[i].name = g[i].label;
		c[i].workload = g[i].workload;
		c[i].p = pt[i];
		c[i].np = g[i].np;
		c[i].knee = g[i].has_best ? g[i].knee : 0;
		c[i].best_k = g[i].has_best ? g[i].best_k : 0;
	}
	ar_svg_curves(f, 1, O.metric, O.lower, c, shown, ng - shown);
	for (i = 0; i < shown; i++)
		free(pt[i]);
	if (ar_out_close(f, path, tmp) < 0)
		ar_die(ar_errno_exit(errno), "%s:", path);
}

static void
parse_klist(const char *s)
{
	const char *p = s;
	char *end = (char *)s;

	O.nkpred = 0;
	if (!*s)
		ar_die(AR_EX_USAGE, "-k: no k given");
	while (*p) {
		long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;

		if (v < 1 || v > 65536 || (*end && *end != ',') ||
		    (*end == ',' && !end[1]) ||
		    O.nkpred == sizeof O.kpred / sizeof *O.kpred)
			ar_die(AR_EX_USAGE, "-k %s: not a list of k like 1,2,4,8",
			    s);
		O.kpred[O.nkpred++] = (double)v;
		p = *end ? end + 1 : end;
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "text", no_argument, NULL, 'X' },
		{ "svg", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct left left = {0};
	struct gord *ord;
	struct view v = {0}, top[8];
	size_t i, j, ntop;
	const char *fmt = "tsv";
	int c;

	ar_setprog(argv[0]);
	ar_std_args(argc, argv, usage);
	parse_klist("1,2,4,8");
	while ((c = getopt_long(argc, argv, "f:i:k:lm:U", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'i': O.ideas = optarg; break;
		case 'k': parse_klist(optarg); break;
		case 'l': O.lower = 1; break;
		case 'm': O.metric = optarg; break;
		case 'S': O.svg = optarg; break;
		case 'U': O.unverified = 1; break;
		case 'X': O.text = 1; break;
		default: ar_usage(usage);
		}
	}
	if (strcmp(fmt, "tsv") && strcmp(fmt, "jsonl"))
		ar_die(AR_EX_USAGE, "-f %s: the formats are tsv and jsonl", fmt);
	O.fmt = strcmp(fmt, "jsonl") == 0;
	if (optind == argc) {
		read_rows(stdin, "<stdin>", &left);
	} else {
		for (i = (size_t)optind; i < (size_t)argc; i++) {
			FILE *f = strcmp(argv[i], "-") ? fopen(argv[i], "r") :
			    stdin;

			if (!f)
				ar_die(errno == ENOENT || errno == EACCES ?
				    AR_EX_NOINPUT : AR_EX_IO, "%s:", argv[i]);
			read_rows(f, argv[i], &left);
			if (f != stdin)
				fclose(f);
		}
	}
	if (O.ideas)
		idea_titles(O.ideas);
	if (left.unsigned_ || left.unverified || left.aa || left.noscore)
		ar_warn("left out %zu unsigned row%s, %zu not verified%s, %zu "
		    "A/A; %zu row%s without a score", left.unsigned_,
		    left.unsigned_ == 1 ? "" : "s", left.unverified,
		    left.unverified ? " (export with ar-ledger export -V, or "
		    "-U)" : "", left.aa, left.noscore, left.noscore == 1 ?
		    "" : "s");
	/* The index has done its work: its memory goes to the sort. */
	ar_hmap_free(&R.gix);
	ord = ar_xcalloc(R.ng + 1, sizeof *ord);
	for (i = 0; i < R.ng; i++) {
		const unsigned char *k = (const unsigned char *)R.a +
		    R.g[i].key;

		for (j = 0; j < 8 && k[j]; j++)
			ord[i].pre |= (uint64_t)k[j] << (56 - 8 * j);
		ord[i].g = (uint32_t)i;
	}
	sort_gord(ord, R.ng);
	if (!O.text && !O.fmt)
		puts("method\tlabel\tworkload\tdevice\tscore\tk\tsource\tvalue\t"
		    "ci_lo\tci_hi\tn\tfeasible\tefficiency\tmodel\tsigma\t"
		    "sigma_se\tkappa\tkappa_se\tknee\tbest_k");
	/* One group at a time: its view, its lines, the next. */
	for (i = 0; i < R.ng && (O.text || O.fmt); i++) {
		build(&R.g[ord[i].g], &v);
		if (O.text) {
			text_group(&v);
		} else {
			json_t *o = group_json(&v);
			char *s = ar_json_line(o);

			puts(s);
			free(s);
			json_decref(o);
		}
	}
	if (!O.text && !O.fmt)
		tsv_all(ord);
	view_free(&v);
	if (O.svg) {
		/* The plot shows the first 8 groups. */
		ntop = R.ng < 8 ? R.ng : 8;
		memset(top, 0, sizeof top);
		for (i = 0; i < ntop; i++)
			build(&R.g[ord[i].g], &top[i]);
		svg(O.svg, top, R.ng);
		for (i = 0; i < ntop; i++)
			view_free(&top[i]);
	}
	ar_fshut(stdout, "<stdout>");
	free(ord);
	for (i = 0; i < R.ng; i++)
		if (R.g[i].np > 4)
			free(R.g[i].p);
	for (i = 0; i < R.nslabs; i++)
		free(R.slabs[i]);
	free(R.slabs);
	free(R.g);
	free(R.a);
	for (i = 0; i < R.nverdict; i++)
		free(R.verdict[i]);
	free(R.verdict);
	ar_hmap_free(&R.vix);
	ar_buf_free(&R.rb);
	return AR_EX_OK;
}
