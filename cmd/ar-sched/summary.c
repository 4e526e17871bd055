/* summary.c: the summary ar-sched next keeps in run/sched-summary and
 * run/sched-queue, so that a decision reads only what changed since the
 * last one: the ledger's rows folded so far (struct agg, up to a
 * segment) and what each queue record it has read holds (by the
 * record's name). It is a
 * cache: written tmp and renamed, not synced (a torn one fails its
 * checksum); anything wrong with it (a bad checksum, another campaign,
 * key, seal or metric, a folded segment changed or gone) and it is
 * rebuilt from the ledger and the queue (only from the ledger when just
 * a segment changed: the queue records are still known by name; only
 * the queue's records when just the queue file is bad).
 *
 * The file: a magic line, then fields in this host's byte order (a
 * cache is read where it was written; another host's fails its checks
 * and is rebuilt), then a checksum of all before it (sum_hex):
 *   campaign id, key hash, seal hash, metric
 *   the folded segments: number, size, inode, mtime, ctime, tail hash,
 *     settled (then a stat stands for the segment)
 *   the fold (struct agg)
 *   the checksum of the queue file, run/sched-queue, which holds
 *     the queue records known: name, then what ar-sched reads of one
 *     the queue's directories new/ and cur/ as they were listed
 *   after its own magic line, with its own checksum at its end. It is
 *   written first, and only when its records changed.
 * A third file, run/sched-loose, keeps what was folded of each loose
 * result (see lcache below); run/sched-fold/ holds each segment's fold
 * and the first segments' folds merged (prefix, below).
 * Over 1,000 lines: each file's writer and its reader must agree field
 * by field, and each is kept beside the other; the files share
 * the field helpers and the head (put_head), and the fuzz target
 * (tests/fuzz/summary.c) reaches every reader by including this file. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>

#include "assign.h"
#include "buf.h"
#include "campaign.h"
#include "crypto.h"
#include "err.h"
#include "io.h"
#include "json.h"
#include "known.h"
#include "ledger.h"
#include "proc.h"
#include "segseal.h"
#include "spool.h"
#include "sched.h"
#include "next.h"

#define MAGIC "ar-sched summary 6\n"
/* The queue part, a file of its own: most of the bytes, and unchanged
 * by new results, so a decision after them does not write it again. */
#define QNAME "sched-queue"
#define QMAGIC "ar-sched queue 1\n"
#define NAME "sched-summary"
/* The file's checksum: 16 hex digits. */
#define SUMLEN 16

/* The bytes at a segment's end whose hash stands for its last rows. */
#define TAIL 4096

/* A folded segment as it was when folded; hash: the BLAKE2b hash of its
 * bytes as its seal signed it, "" when unknown (no seal of the file as
 * it was). */
struct fseg {
	unsigned long num;
	uint64_t size, ino;
	int64_t mt, mtn, ct, ctn;
	char tail[AR_HASH_HEX];
	char hash[AR_HASH_HEX];
	/* Its ctime was more than two seconds old when it was seen: any
	 * change since has set a later ctime, so a stat tells. */
	int settled;
};

/* What a queue record says, by its name (without a lease). */
struct qent {
	char *name, *method, *workload, *node;
	int aa, used, own;          /* own: the strings are malloc'd */
	long k;
	int *gpus;
	size_t ngpus;
};

/* A queue directory as listed: any record put, claimed or removed
 * changes its mtime and ctime. trusted: it was last changed well before
 * it was listed, so that a change after the listing cannot have kept
 * the same times (they tick coarsely). */
struct qdid {
	uint64_t present, ino, trusted;
	int64_t mt, mtn, ct, ctn;
};

struct summ {
	char *camp, *path, *err;    /* err: why the file was not used */
	struct ar_campaign cp;
	char keyhash[AR_HASH_HEX];
	const char *metric;
	struct fseg *seg;
	size_t nseg;
	struct ar_buf ledger;       /* the ledger part, as written */
	struct ar_buf file;         /* the file read */
	struct ar_buf qfile;        /* the queue file read: queue entries
	                             * point into it */
	char *qpath;
	char *fdir;                 /* run/sched-fold: the segments' folds */
	char qsum[SUMLEN + 1];      /* its checksum, as the summary names it */
	int have_ledger, dirty, loaded;
	/* The queue file is read on a thread of its own (qthr, while the
	 * export runs): qstate 1 while it reads, 2 once read here, 0 once
	 * taken by q_join; qloaded when its records are this run's. */
	pthread_t qthr;
	int qstate, qloaded;
	char qwhy[300];
	/* The ledger part was not used but the queue part was: the records
	 * it knows by name are kept (a copied or rewritten ledger). */
	int qkept;
	struct qent *q;
	size_t nq, capq, *qslot, nqslot, misses;
	size_t *order, norder;      /* the entries in the order listed */
	size_t capor;
	struct qdid qd[2];          /* new/ and cur/ as the file says */
	struct qdid qnow[2];        /* as listed by this run */
	int qlisted;                /* this run's listing is in order[] */
	/* Whether this run's queue part would be the bytes of the queue
	 * file read: then that file is left as it is. */
	int qsame;
	struct lcache *lc;          /* run/sched-loose, once read */
	/* The queue as listed on a thread of its own (prethr, prerun)
	 * while the ledger is read, when nothing of it is known. */
	struct qlisting *pre;
	pthread_t prethr;
	int prerun;
};

/* A checksum against torn and damaged files, fast over megabytes: four
 * lanes, so that the multiplies do not wait on each other. It is not a
 * seal: whoever may write run/ may write queue/ too. */
static void
sum_hex(char out[SUMLEN + 1], const char *p, size_t n)
{
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = 0xbf58476d1ce4e5b9ULL;
	uint64_t c = 0x94d049bb133111ebULL, d = 0x2545f4914f6cdd1dULL, w[4];
	const uint64_t m = 0xff51afd7ed558ccdULL;
	size_t i;

	for (i = 0; i + 32 <= n; i += 32) {
		memcpy(w, p + i, 32);
		a = (a ^ w[0]) * m;
		b = (b ^ w[1]) * m;
		c = (c ^ w[2]) * m;
		d = (d ^ w[3]) * m;
		a ^= a >> 29;
		b ^= b >> 29;
		c ^= c >> 29;
		d ^= d >> 29;
	}
	for (; i < n; i++)
		a = (a ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	a = mix64(mix64(mix64(a ^ b) ^ c) ^ d);
	snprintf(out, SUMLEN + 1, "%016llx", (unsigned long long)mix64(a));
}

/* ---- writing ---- */

static void
put_u64(struct ar_buf *b, uint64_t v)
{
	ar_buf_add(b, (const char *)&v, sizeof v);
}

static void
put_f64(struct ar_buf *b, double v)
{
	ar_buf_add(b, (const char *)&v, sizeof v);
}

static void
put_str(struct ar_buf *b, const char *s)
{
	if (!s) {
		put_u64(b, UINT64_MAX);
		return;
	}
	put_u64(b, strlen(s));
	/* With its NUL: a reader points into the file instead of copying. */
	ar_buf_add(b, s, strlen(s) + 1);
}

/* A sorted list as the counts left out below and above, then runs of
 * equal values (times repeat a lot): at most DLIST_KEEP values, those
 * around the median (next.h). */
static void
put_dlist(struct ar_buf *b, const struct dlist *l, int whole)
{
	size_t i, j, runs = 0, first = 0, keep = l->n, most = DLIST_KEEP;
	size_t all = l->below + l->n + l->above, mid = all ? (all - 1) / 2 : 0;
	const char *e = getenv("AR_SCHED_KEEP");

	/* Tests make the window small enough to leave. */
	if (e && atol(e) >= 2 && atol(e) <= DLIST_MAX)
		most = (size_t)atol(e);
	/* A segment's fold keeps every value: it is merged with others. */
	if (whole)
		most = l->n;
	if (l->n > most) {
		/* Around the median; a list whose median is already out of
		 * it (read again before it is used) around its middle. */
		size_t at = mid >= l->below && mid - l->below < l->n ?
		    mid - l->below : l->n / 2;

		keep = most;
		first = at > keep / 2 ? at - keep / 2 : 0;
		if (first + keep > l->n)
			first = l->n - keep;
	}
	put_u64(b, l->below + first);
	put_u64(b, l->above + (l->n - first - keep));
	for (i = first; i < first + keep; i = j, runs++)
		for (j = i + 1; j < first + keep && l->v[j] == l->v[i]; j++)
			;
	put_u64(b, runs);
	for (i = first; i < first + keep; i = j) {
		for (j = i + 1; j < first + keep && l->v[j] == l->v[i]; j++)
			;
		put_f64(b, l->v[i]);
		put_u64(b, j - i);
	}
}

static void
put_agg(struct ar_buf *b, const struct agg *a, int whole)
{
	size_t i;
	int ki;

	put_u64(b, a->rows);
	put_f64(b, a->used_h);
	put_f64(b, a->min_effect);
	put_u64(b, a->left_unverified);
	put_u64(b, a->nkey);
	for (i = 0; i < a->nkey; i++) {
		put_str(b, a->key[i].name);
		put_str(b, a->key[i].workload);
		for (ki = 0; ki < AR_POL_NK; ki++) {
			const struct kstat *s = &a->key[i].at[ki];

			put_u64(b, (uint64_t)s->n);
			put_u64(b, (uint64_t)(s->feasible | s->scored << 1));
			put_f64(b, s->lsum);
			put_f64(b, s->wsum);
			put_str(b, s->fin);
		}
	}
	put_u64(b, a->nnz);
	for (i = 0; i < a->nnz; i++) {
		put_str(b, a->nz[i].node);
		put_str(b, a->nz[i].fin);
		put_str(b, a->nz[i].exp);
		put_f64(b, a->nz[i].v);
	}
	for (ki = 0; ki < AR_POL_NK; ki++)
		put_dlist(b, &a->secs[ki], whole);
	put_dlist(b, &a->secs_all, whole);
	put_u64(b, a->nwb);
	for (i = 0; i < a->nwb; i++) {
		put_str(b, a->wb[i].workload);
		put_u64(b, (uint64_t)a->wb[i].lower);
		for (ki = 0; ki < AR_POL_NK; ki++)
			put_dlist(b, &a->wb[i].at[ki], whole);
	}
}

/* ---- reading: any short or odd field fails the whole file ---- */

/* The most rows a segment's fold may stand for: its lists then hold at
 * most three times as many values (100 MB). */
#define FOLD_ROWS ((uint64_t)1 << 22)

struct rd {
	const char *p, *end;
	int bad;
	/* A segment's fold: its lists hold no more values, all together,
	 * than budget, three for each of its rows (get_agg sets it). */
	int fold;
	uint64_t budget;
};

static uint64_t
get_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < sizeof v) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, sizeof v);
	r->p += sizeof v;
	return v;
}

static double
get_f64(struct rd *r)
{
	double v = 0;

	if (r->bad || (size_t)(r->end - r->p) < sizeof v) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, sizeof v);
	r->p += sizeof v;
	return v;
}

/* A malloc'd string, NULL for none (or when bad). */
static char *
get_str(struct rd *r)
{
	uint64_t n = get_u64(r);
	char *s;

	if (r->bad || n == UINT64_MAX)
		return NULL;
	if (n >= (uint64_t)(r->end - r->p) || n > AR_LINE_MAX ||
	    r->p[n] != '\0') {
		r->bad = 1;
		return NULL;
	}
	s = ar_xmalloc((size_t)n + 1);
	memcpy(s, r->p, (size_t)n + 1);
	r->p += n + 1;
	return s;
}

/* The same, pointing into the file read (kept until summ_close). */
static char *
get_ref(struct rd *r)
{
	uint64_t n = get_u64(r);
	char *s;

	if (r->bad || n == UINT64_MAX)
		return NULL;
	if (n >= (uint64_t)(r->end - r->p) || n > AR_LINE_MAX ||
	    r->p[n] != '\0') {
		r->bad = 1;
		return NULL;
	}
	s = (char *)r->p;
	r->p += n + 1;
	return s;
}

/* The same into a fixed buffer. */
static void
get_fix(struct rd *r, char *out, size_t n)
{
	char *s = get_str(r);

	if (!s || strlen(s) >= n)
		r->bad = 1;
	snprintf(out, n, "%s", s ? s : "");
	free(s);
}

static void
get_dlist(struct rd *r, struct dlist *l)
{
	uint64_t below = get_u64(r), above = get_u64(r);
	uint64_t runs = get_u64(r), i, c, j, total = 0;

	if (below > ((uint64_t)1 << 40) || above > ((uint64_t)1 << 40))
		r->bad = 1;
	if (runs > (uint64_t)(r->end - r->p) / 16)
		r->bad = 1;
	for (i = 0; !r->bad && i < runs; i++) {
		double v = get_f64(r);

		c = get_u64(r);
		/* A summary holds at most DLIST_MAX values of a list, a
		 * segment's fold its budget: a run count beyond is a damaged
		 * file, not memory to take. */
		if (c == 0 || (r->fold ? c > r->budget : c > DLIST_MAX -
		    total) || !isfinite(v)) {
			r->bad = 1;
			break;
		}
		if (r->fold)
			r->budget -= c;
		total += c;
		for (j = 0; j < c; j++)
			dlist_add(l, v);
	}
	for (i = 1; !r->bad && i < l->n; i++)
		if (!(l->v[i - 1] < l->v[i]) && l->v[i - 1] != l->v[i])
			r->bad = 1;
	l->nsorted = l->n;
	l->below = (size_t)below;
	l->above = (size_t)above;
}

static void
get_agg(struct rd *r, struct agg *a)
{
	uint64_t n, i;
	int ki;

	a->rows = (size_t)get_u64(r);
	if (r->fold) {
		/* Each row gives a list at most three values: its
		 * duration twice (its k's and all k's) and its baseline. */
		if (a->rows > FOLD_ROWS)
			r->bad = 1;
		r->budget = 3 * (uint64_t)a->rows;
	}
	a->used_h = get_f64(r);
	a->min_effect = get_f64(r);
	a->left_unverified = (size_t)get_u64(r);
	n = get_u64(r);
	if (n > (uint64_t)(r->end - r->p) / 16)
		r->bad = 1;
	for (i = 0; !r->bad && i < n; i++) {
		char *name = get_str(r), *wl = get_str(r);
		struct akey *k;

		if (!name || !wl) {
			r->bad = 1;
			free(name);
			free(wl);
			break;
		}
		k = agg_key(a, name, wl, 1);
		free(name);
		free(wl);
		for (ki = 0; ki < AR_POL_NK; ki++) {
			struct kstat *s = &k->at[ki];
			uint64_t fl;

			s->n = (long)get_u64(r);
			fl = get_u64(r);
			s->feasible = (int)(fl & 1);
			s->scored = (int)(fl >> 1 & 1);
			s->lsum = get_f64(r);
			s->wsum = get_f64(r);
			get_fix(r, s->fin, sizeof s->fin);
		}
	}
	n = get_u64(r);
	if (n > (uint64_t)(r->end - r->p) / 16)
		r->bad = 1;
	for (i = 0; !r->bad && i < n; i++) {
		struct noise z;

		memset(&z, 0, sizeof z);
		z.node = get_str(r);
		get_fix(r, z.fin, sizeof z.fin);
		get_fix(r, z.exp, sizeof z.exp);
		z.v = get_f64(r);
		if (!z.node) {
			r->bad = 1;
			break;
		}
		a->nz = ar_xrealloc(a->nz, (a->nnz + 1) * sizeof *a->nz);
		a->nz[a->nnz++] = z;
	}
	for (ki = 0; ki < AR_POL_NK; ki++)
		get_dlist(r, &a->secs[ki]);
	get_dlist(r, &a->secs_all);
	n = get_u64(r);
	if (n > (uint64_t)(r->end - r->p) / 16)
		r->bad = 1;
	for (i = 0; !r->bad && i < n; i++) {
		char *wl = get_str(r);
		struct wbase *w;

		if (!wl) {
			r->bad = 1;
			break;
		}
		w = agg_wbase(a, wl, 1);
		free(wl);
		w->lower = get_u64(r) != 0;
		for (ki = 0; ki < AR_POL_NK; ki++)
			get_dlist(r, &w->at[ki]);
	}
}

/* ---- the ledger's segments ---- */

/* How old a segment's ctime must be, in seconds, for a stat to stand
 * for it: 2, or AR_SCHED_SETTLE (tests that compare summaries byte for
 * byte set it past their run). */
static long long
settle_s(void)
{
	const char *e = getenv("AR_SCHED_SETTLE");
	long long v;

	if (e && ar_parse_long(e, &v) == 0 && v >= 0 && v <= 1000000000)
		return v;
	return 2;
}

/* What stands for a segment: its file's identity and times, and a hash
 * of its last bytes (its last rows, each signed): a segment is written
 * once and never changed, so any difference means it was rewritten. */
static int
seg_ident(const char *path, unsigned long num, struct fseg *f)
{
	struct stat st;
	struct timespec now;
	char buf[TAIL];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	off_t off;

	if (fd < 0)
		return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	memset(f, 0, sizeof *f);
	f->settled = now.tv_sec - st.st_ctim.tv_sec > settle_s();
	f->num = num;
	f->size = (uint64_t)st.st_size;
	f->ino = (uint64_t)st.st_ino;
	f->mt = (int64_t)st.st_mtim.tv_sec;
	f->mtn = (int64_t)st.st_mtim.tv_nsec;
	f->ct = (int64_t)st.st_ctim.tv_sec;
	f->ctn = (int64_t)st.st_ctim.tv_nsec;
	off = st.st_size > TAIL ? st.st_size - TAIL : 0;
	n = pread(fd, buf, sizeof buf, off);
	close(fd);
	if (n < 0)
		return -1;
	ar_hash_hex(f->tail, buf, (size_t)n);
	return 0;
}

static int
stat_same(const struct fseg *a, const struct stat *st)
{
	return a->size == (uint64_t)st->st_size &&
	    a->ino == (uint64_t)st->st_ino &&
	    a->mt == (int64_t)st->st_mtim.tv_sec &&
	    a->mtn == (int64_t)st->st_mtim.tv_nsec &&
	    a->ct == (int64_t)st->st_ctim.tv_sec &&
	    a->ctn == (int64_t)st->st_ctim.tv_nsec;
}

static int
seg_same(const struct fseg *a, const struct fseg *b)
{
	return a->num == b->num && a->size == b->size && a->ino == b->ino &&
	    a->mt == b->mt && a->mtn == b->mtn && a->ct == b->ct &&
	    a->ctn == b->ctn && strcmp(a->tail, b->tail) == 0;
}

/* Whether the segment at path is still f: a stat when f was settled, a
 * thousand opens and hashes fewer per decision at a thousand segments;
 * else its identity again, and *now_settled set when it is the same and
 * settled now. */
static int
seg_still(const char *path, struct fseg *f, int *now_settled)
{
	struct fseg now;
	struct stat st;

	if (f->settled)
		return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    stat_same(f, &st);
	if (seg_ident(path, f->num, &now) < 0 || !seg_same(f, &now))
		return 0;
	if (now.settled) {
		f->settled = 1;
		*now_settled = 1;
	}
	return 1;
}

/* ---- the queue's records ---- */

/* FNV-1a, its bits mixed (mix64): the table takes the low ones. */
static size_t
name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)mix64(h);
}

static void
q_rehash(struct summ *sm)
{
	size_t i, j;

	free(sm->qslot);
	sm->nqslot = sm->nqslot ? 2 * sm->nqslot : 4096;
	while (sm->nqslot < 2 * sm->nq + 2)
		sm->nqslot *= 2;
	sm->qslot = ar_xcalloc(sm->nqslot, sizeof *sm->qslot);
	for (i = 0; i < sm->nq; i++) {
		j = name_hash(sm->q[i].name) & (sm->nqslot - 1);
		while (sm->qslot[j])
			j = (j + 1) & (sm->nqslot - 1);
		sm->qslot[j] = i + 1;
	}
}

static struct qent *
q_find(struct summ *sm, const char *name)
{
	size_t j;

	if (!sm->nq)
		return NULL;
	if (!sm->nqslot)
		q_rehash(sm);
	j = name_hash(name) & (sm->nqslot - 1);
	for (; sm->qslot[j]; j = (j + 1) & (sm->nqslot - 1))
		if (strcmp(sm->q[sm->qslot[j] - 1].name, name) == 0)
			return &sm->q[sm->qslot[j] - 1];
	return NULL;
}

/* Adds an entry that owns e's strings. */
static struct qent *
q_add(struct summ *sm, struct qent *e)
{
	if (sm->nq == sm->capq) {
		sm->capq = sm->capq ? 2 * sm->capq : 1024;
		sm->q = ar_xrealloc(sm->q, sm->capq * sizeof *sm->q);
	}
	sm->q[sm->nq++] = *e;
	/* The index is made only once a name is looked up out of order. */
	if (!sm->nqslot)
		;
	else if (2 * sm->nq + 2 > sm->nqslot)
		q_rehash(sm);
	else {
		size_t j = name_hash(e->name) & (sm->nqslot - 1);

		while (sm->qslot[j])
			j = (j + 1) & (sm->nqslot - 1);
		sm->qslot[j] = sm->nq;
	}
	return &sm->q[sm->nq - 1];
}

static void
q_free(struct qent *e)
{
	free(e->gpus);
	if (!e->own)
		return;
	free(e->name);
	free(e->method);
	free(e->workload);
	free(e->node);
}

/* The strings of the queue's entries, each once: a thousand methods
 * over a hundred thousand records. */
struct stab {
	const char **s;
	size_t n, cap, *slot, nslot;
};

static uint32_t
stab_idx(struct stab *t, const char *s)
{
	size_t j, i;

	if (!s)
		return UINT32_MAX;
	if (2 * t->n + 2 > t->nslot) {
		free(t->slot);
		t->nslot = t->nslot ? 2 * t->nslot : 256;
		t->slot = ar_xcalloc(t->nslot, sizeof *t->slot);
		for (i = 0; i < t->n; i++) {
			j = name_hash(t->s[i]) & (t->nslot - 1);
			while (t->slot[j])
				j = (j + 1) & (t->nslot - 1);
			t->slot[j] = i + 1;
		}
	}
	j = name_hash(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (strcmp(t->s[t->slot[j] - 1], s) == 0)
			return (uint32_t)(t->slot[j] - 1);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->s = ar_xrealloc(t->s, t->cap * sizeof *t->s);
	}
	t->s[t->n] = s;
	t->slot[j] = ++t->n;
	return (uint32_t)(t->n - 1);
}

static void
put_u32(struct ar_buf *b, uint32_t v)
{
	ar_buf_add(b, (const char *)&v, sizeof v);
}

static uint32_t
get_u32(struct rd *r)
{
	uint32_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < sizeof v) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, sizeof v);
	r->p += sizeof v;
	return v;
}

/* The table of strings, then per entry its name and the indexes of its
 * method, workload and node (UINT32_MAX: none), A/A, k and GPUs. */
static void
put_queue(struct ar_buf *b, const struct summ *sm)
{
	struct stab t = {0};
	struct ar_buf ents = {0};
	size_t i, j;

	/* Records gone from new/ and cur/ are forgotten; the rest are kept
	 * in the order the directories listed them. */
	for (i = 0; i < sm->norder; i++) {
		const struct qent *e = &sm->q[sm->order[i]];

		put_str(&ents, e->name);
		put_u32(&ents, stab_idx(&t, e->method));
		put_u32(&ents, stab_idx(&t, e->workload));
		put_u32(&ents, stab_idx(&t, e->node));
		put_u32(&ents, (uint32_t)e->aa);
		put_u32(&ents, (uint32_t)e->k);
		put_u32(&ents, (uint32_t)e->ngpus);
		for (j = 0; j < e->ngpus; j++)
			put_u32(&ents, (uint32_t)e->gpus[j]);
	}
	put_u64(b, t.n);
	for (i = 0; i < t.n; i++)
		put_str(b, t.s[i]);
	put_u64(b, sm->norder);
	ar_buf_add(b, ents.p ? ents.p : "", ents.len);
	ar_buf_free(&ents);
	free(t.s);
	free(t.slot);
	/* The directories' times only when the entries are exactly what
	 * they listed: else a later run must list them again. */
	for (i = 0; i < 2; i++) {
		const struct qdid *d = &sm->qnow[i];
		int ok = sm->qlisted && d->trusted;

		put_u64(b, d->present);
		put_u64(b, d->ino);
		put_u64(b, (uint64_t)d->mt);
		put_u64(b, (uint64_t)d->mtn);
		put_u64(b, (uint64_t)d->ct);
		put_u64(b, (uint64_t)d->ctn);
		put_u64(b, (uint64_t)ok);
	}
}

static char *
tab_ref(struct rd *r, char **tab, uint64_t ntab)
{
	uint32_t i = get_u32(r);

	if (i == UINT32_MAX)
		return NULL;
	if (i >= ntab) {
		r->bad = 1;
		return NULL;
	}
	return tab[i];
}

static void
get_queue(struct rd *r, struct summ *sm)
{
	uint64_t ntab = get_u64(r), n, i, j;
	char **tab = NULL;

	if (ntab > (uint64_t)(r->end - r->p) / 9)
		r->bad = 1;
	else
		tab = ar_xmalloc(((size_t)ntab + 1) * sizeof *tab);
	for (i = 0; !r->bad && i < ntab; i++)
		if (!(tab[i] = get_ref(r)))
			r->bad = 1;
	n = get_u64(r);
	if (n > (uint64_t)(r->end - r->p) / 16)
		r->bad = 1;
	else if (!r->bad) {
		/* Sized once for all of them. */
		sm->q = ar_xrealloc(sm->q, ((size_t)n + 1) * sizeof *sm->q);
		sm->capq = (size_t)n + 1;
	}
	for (i = 0; !r->bad && i < n; i++) {
		struct qent e;

		memset(&e, 0, sizeof e);
		e.name = get_ref(r);
		e.method = tab_ref(r, tab, ntab);
		e.workload = tab_ref(r, tab, ntab);
		e.node = tab_ref(r, tab, ntab);
		e.aa = get_u32(r) != 0;
		e.k = (long)get_u32(r);
		e.ngpus = (size_t)get_u32(r);
		if (!e.name || e.ngpus > AR_ASSIGN_GPUS)
			r->bad = 1;
		else if (e.ngpus) {
			/* Owned: the only allocation of an entry read. */
			e.gpus = ar_xcalloc(e.ngpus, sizeof *e.gpus);
			e.own = 0;
		}
		for (j = 0; !r->bad && j < e.ngpus; j++)
			e.gpus[j] = (int)get_u32(r);
		if (r->bad) {
			free(e.gpus);
			break;
		}
		q_add(sm, &e);
	}
	free(tab);
	for (i = 0; i < 2; i++) {
		struct qdid *d = &sm->qd[i];

		d->present = get_u64(r);
		d->ino = get_u64(r);
		d->mt = (int64_t)get_u64(r);
		d->mtn = (int64_t)get_u64(r);
		d->ct = (int64_t)get_u64(r);
		d->ctn = (int64_t)get_u64(r);
		d->trusted = get_u64(r);
	}
}

/* Reads the queue file the summary names into sm; why says what is
 * wrong with it, if anything. */
static void
load_queue(struct summ *sm, char *why, size_t whylen)
{
	struct ar_buf b = {0};
	struct rd r;
	char h[SUMLEN + 1];
	size_t hl = SUMLEN;

	if (ar_readfile(sm->qpath, &b, (size_t)1 << 32) < 0) {
		snprintf(why, whylen, "its queue file %s: %s", QNAME,
		    strerror(errno));
		ar_buf_free(&b);
		return;
	}
	if (b.len < sizeof QMAGIC - 1 + hl || memcmp(b.p, QMAGIC,
	    sizeof QMAGIC - 1) != 0) {
		snprintf(why, whylen, "its queue file %s is not of this "
		    "version", QNAME);
		ar_buf_free(&b);
		return;
	}
	sum_hex(h, b.p, b.len - hl);
	/* Its own checksum, and the one the summary was written with: a
	 * queue file of another run (a crash between the two renames) is
	 * not this summary's. */
	if (memcmp(h, b.p + b.len - hl, hl) != 0 || strcmp(h, sm->qsum)) {
		snprintf(why, whylen, "its queue file %s does not match (a "
		    "torn, altered or other run's file)", QNAME);
		ar_buf_free(&b);
		return;
	}
	r.p = b.p + sizeof QMAGIC - 1;
	r.end = b.p + b.len - hl;
	r.bad = 0;
	r.fold = 0;
	get_queue(&r, sm);
	if (r.bad || r.p != r.end) {
		snprintf(why, whylen, "its queue file %s is malformed",
		    QNAME);
		ar_buf_free(&b);
		return;
	}
	/* The queue's entries point into it. */
	sm->qfile = b;
}

static void *
queue_thread(void *arg)
{
	struct summ *sm = arg;

	load_queue(sm, sm->qwhy, sizeof sm->qwhy);
	return NULL;
}

static void
q_drop(struct summ *sm)
{
	size_t i;

	ar_buf_free(&sm->qfile);
	for (i = 0; i < sm->nq; i++)
		q_free(&sm->q[i]);
	sm->nq = 0;
	free(sm->qslot);
	sm->qslot = NULL;
	sm->nqslot = 0;
}

/* Takes the queue file's records once read; a file found bad is said,
 * and its records are read again from the queue (the ledger part
 * stands: it has a checksum of its own). */
static void
q_join(struct summ *sm, int say)
{
	if (sm->qstate == 1)
		pthread_join(sm->qthr, NULL);
	if (!sm->qstate)
		return;
	sm->qstate = 0;
	if (!sm->qwhy[0]) {
		sm->qloaded = 1;
		return;
	}
	if (say)
		ar_warn("%s: %s; the queue's records are read again",
		    sm->path, sm->qwhy);
	q_drop(sm);
	sm->dirty = 1;
}

/* ---- the file ---- */

/* What a summary or a fold was made for: campaign, key, SEAL, metric. */
static void
put_head(struct ar_buf *b, const struct summ *sm)
{
	put_str(b, sm->cp.id);
	put_str(b, sm->keyhash);
	put_str(b, sm->cp.have_seal ? sm->cp.seal_hash : "");
	put_str(b, sm->metric);
}

/* Reads what put_head wrote; why says the first that is not sm's. */
static void
get_head(struct rd *r, const struct summ *sm, char *why, size_t n)
{
	char *s = get_str(r);

	if (!s || strcmp(s, sm->cp.id))
		snprintf(why, n, "made for another campaign");
	free(s);
	s = get_str(r);
	if (!why[0] && (!s || strcmp(s, sm->keyhash)))
		snprintf(why, n, "made under another key");
	free(s);
	s = get_str(r);
	if (!why[0] && (!s || strcmp(s, sm->cp.have_seal ? sm->cp.seal_hash :
	    "")))
		snprintf(why, n, "made under another SEAL");
	free(s);
	s = get_str(r);
	if (!why[0] && ((s == NULL) != (sm->metric == NULL) || (s &&
	    strcmp(s, sm->metric))))
		snprintf(why, n, "made for another metric");
	free(s);
}

/* A segment's fold holds the hash of its bytes too (a summary has no
 * use for it). */
static void
put_fseg(struct ar_buf *b, const struct fseg *f, int fold)
{
	put_u64(b, f->num);
	put_u64(b, f->size);
	put_u64(b, f->ino);
	put_u64(b, (uint64_t)f->mt);
	put_u64(b, (uint64_t)f->mtn);
	put_u64(b, (uint64_t)f->ct);
	put_u64(b, (uint64_t)f->ctn);
	put_str(b, f->tail);
	/* A fold's segment is seen again when it is taken. */
	if (fold)
		put_str(b, f->hash);
	else
		put_u64(b, (uint64_t)f->settled);
}

static void
get_fseg(struct rd *r, struct fseg *f, int fold)
{
	f->num = (unsigned long)get_u64(r);
	f->size = get_u64(r);
	f->ino = get_u64(r);
	f->mt = (int64_t)get_u64(r);
	f->mtn = (int64_t)get_u64(r);
	f->ct = (int64_t)get_u64(r);
	f->ctn = (int64_t)get_u64(r);
	get_fix(r, f->tail, sizeof f->tail);
	f->settled = 0;
	if (fold)
		get_fix(r, f->hash, sizeof f->hash);
	else {
		f->hash[0] = '\0';
		f->settled = get_u64(r) != 0;
	}
}

static void put_ledger(struct summ *, const struct agg *);

/* Reads the file into sm and a; NULL when it is usable, else why not
 * (a and sm are then left empty). led is the ledger as it is now. */
static const char *
load(struct summ *sm, struct agg *a, const struct ar_ledger *led)
{
	static char why[300];
	struct ar_buf b = {0};
	struct rd r;
	char h[SUMLEN + 1];
	const char *ls;
	size_t i, hl = SUMLEN;
	int ok, head_ok, settled = 0;

	if (ar_readfile(sm->path, &b, (size_t)1 << 32) < 0) {
		ar_buf_free(&b);
		return errno == ENOENT ? "" : strerror(errno);
	}
	if (b.len < sizeof MAGIC - 1 + hl || memcmp(b.p, MAGIC,
	    sizeof MAGIC - 1) != 0) {
		ar_buf_free(&b);
		return "not a summary of this version";
	}
	sum_hex(h, b.p, b.len - hl);
	if (memcmp(h, b.p + b.len - hl, hl) != 0) {
		ar_buf_free(&b);
		return "its checksum does not match (a torn or altered file)";
	}
	r.p = b.p + sizeof MAGIC - 1;
	r.end = b.p + b.len - hl;
	r.bad = 0;
	r.fold = 0;
	why[0] = '\0';
	get_head(&r, sm, why, sizeof why);
	head_ok = !why[0];
	ls = r.p;
	/* The segments folded must all be there, unchanged. */
	sm->nseg = (size_t)get_u64(&r);
	if (sm->nseg > (size_t)(r.end - r.p) / 16)
		r.bad = 1;
	else
		sm->seg = ar_xcalloc(sm->nseg + 1, sizeof *sm->seg);
	for (i = 0; !r.bad && i < sm->nseg; i++) {
		struct fseg *f = &sm->seg[i];

		get_fseg(&r, f, 0);
		if (why[0] || r.bad)
			continue;
		ok = i < led->nseg && ar_ledger_seg_number(led->seg[i].path) ==
		    f->num && seg_still(led->seg[i].path, f, &settled);
		if (!ok)
			snprintf(why, sizeof why, "ledger segment %08lu %s since "
			    "it was summarized", f->num, i < led->nseg &&
			    ar_ledger_seg_number(led->seg[i].path) == f->num ?
			    "changed" : "is gone or renumbered");
	}
	get_agg(&r, a);
	sm->ledger.len = 0;
	if (!r.bad)
		ar_buf_add(&sm->ledger, ls, (size_t)(r.p - ls));
	get_fix(&r, sm->qsum, sizeof sm->qsum);
	if (!r.bad && r.p != r.end)
		r.bad = 1;
	/* The queue's records do not depend on the ledger: a summary of a
	 * campaign whose segments were copied (new inodes and times) or
	 * rewritten still knows them by name, which records keep. */
	if (head_ok && !r.bad && !why[0]) {
		/* Most of the bytes (12 MB at 100,000 records): read while
		 * the export runs. */
		sm->qwhy[0] = '\0';
		if (pthread_create(&sm->qthr, NULL, queue_thread, sm) == 0)
			sm->qstate = 1;
		else {
			load_queue(sm, sm->qwhy, sizeof sm->qwhy);
			sm->qstate = 2;
		}
	} else if (head_ok && !r.bad) {
		char qwhy[300] = "";

		load_queue(sm, qwhy, sizeof qwhy);
		sm->qkept = !qwhy[0];
	}
	if (!why[0] && !r.bad) {
		sm->file = b;
		sm->have_ledger = 1;
		sm->loaded = 1;
		/* Segments settled since: written once, so that later
		 * decisions only stat them. */
		if (settled) {
			put_ledger(sm, a);
			sm->dirty = 1;
		}
		return NULL;
	}
	if (!why[0])
		snprintf(why, sizeof why, "malformed");
	if (sm->qstate)
		q_join(sm, 0);
	if (!sm->qkept)
		q_drop(sm);
	/* Nothing else of it is kept. */
	agg_free(a);
	agg_init(a, sm->metric);
	free(sm->seg);
	sm->seg = NULL;
	sm->nseg = 0;
	sm->ledger.len = 0;
	ar_buf_free(&b);
	return why;
}

static void
put_ledger(struct summ *sm, const struct agg *a)
{
	size_t i;

	sm->ledger.len = 0;
	put_u64(&sm->ledger, sm->nseg);
	for (i = 0; i < sm->nseg; i++)
		put_fseg(&sm->ledger, &sm->seg[i], 0);
	put_agg(&sm->ledger, a, 0);
	sm->have_ledger = 1;
}

/* ---- the segments' folds: run/sched-fold/NNNNNNNN ----
 * A segment's rows as folded, with every value of its lists: written
 * when its rows come from the export, and read instead of them when the
 * summary is built again (from scratch, or when a median left its
 * window), so that a rebuild reads a fold of kilobytes a segment, not
 * the segment's rows. Like the summary a cache, in this host's byte
 * order: its checksum, what it was made for (put_head) and the
 * segment's identity (seg_ident) must all hold, else the segment's rows
 * are read again and the fold is written anew. */
#define FMAGIC "ar-sched fold 2\n"

/* Whether st is the file of identity f (but for its tail). */
static int
ident_is(const struct fseg *f, const struct stat *st)
{
	return f->size == (uint64_t)st->st_size && f->ino ==
	    (uint64_t)st->st_ino && f->mt == (int64_t)st->st_mtim.tv_sec &&
	    f->mtn == (int64_t)st->st_mtim.tv_nsec && f->ct ==
	    (int64_t)st->st_ctim.tv_sec && f->ctn == (int64_t)st->st_ctim.tv_nsec;
}

/* The hash of the bytes of the segment at path, of identity f, into
 * f->hash: its seal's, when the seal signs the file as it is, else the
 * file hashed, while its identity stays f's. Left "" when neither. */
static void
hash_of(const struct summ *sm, const char *path, struct fseg *f)
{
	struct stat st;
	struct fseg again;
	char h[AR_HASH_HEX];

	if (ar_segseal_hash(path, sm->cp.pk, h, &st) == 0 && ident_is(f, &st)) {
		memcpy(f->hash, h, sizeof h);
		return;
	}
	if (ar_hash_file(path, h) == 0 && seg_ident(path, f->num, &again) ==
	    0 && seg_same(&again, f))
		memcpy(f->hash, h, sizeof h);
}

/* Whether a fold made of the segment of identity was holds for the
 * segment now, whose identity differs: a campaign copied, moved or
 * restored has the same bytes under a new inode and ctime. The bytes are
 * the same when they hash as they did when folded (by the seal, when it
 * signs the file as it is now). Their hash is then now's. */
static int
same_bytes(const struct summ *sm, const char *path, const struct fseg *was,
    struct fseg *now)
{
	struct fseg f = *now;

	if (!was->hash[0] || was->num != now->num || was->size != now->size ||
	    strcmp(was->tail, now->tail) != 0)
		return 0;
	f.hash[0] = '\0';
	hash_of(sm, path, &f);
	if (strcmp(f.hash, was->hash) != 0)
		return 0;
	memcpy(now->hash, was->hash, sizeof now->hash);
	return 1;
}

static char *
fold_path(const struct summ *sm, unsigned long num)
{
	return ar_xasprintf("%s/%08lu", sm->fdir, num);
}

static void
fold_write(struct summ *sm, const struct fseg *f, const struct agg *a)
{
	struct ar_buf b = {0};
	char h[SUMLEN + 1], *path;

	/* A segment of more rows than a fold may hold is read as rows. */
	if (a->rows > FOLD_ROWS)
		return;
	if (mkdir(sm->fdir, 0755) < 0 && errno != EEXIST) {
		ar_warn("%s: cannot make it: %s", sm->fdir, strerror(errno));
		return;
	}
	ar_buf_add(&b, FMAGIC, sizeof FMAGIC - 1);
	put_head(&b, sm);
	put_fseg(&b, f, 1);
	put_agg(&b, a, 1);
	sum_hex(h, b.p, b.len);
	ar_buf_add(&b, h, SUMLEN);
	path = fold_path(sm, f->num);
	if (ar_write_cache(path, b.p, b.len, 0644) < 0)
		ar_warn("%s: cannot write the segment's fold: %s", path,
		    strerror(errno));
	free(path);
	ar_buf_free(&b);
}

/* Reads the fold of the segment now (its identity as it is; its file
 * at segpath) into a, empty; 0 when it is good, else -1 with why (""
 * when there is none). A fold of the same bytes under another identity
 * is good, and written again with now's; *moved is then 1. now->hash is
 * the fold's. */
static int
fold_read(struct summ *sm, const char *segpath, struct fseg *now,
    struct agg *a, int *moved, char *why, size_t n)
{
	struct ar_buf b = {0};
	struct rd r;
	struct fseg f;
	char h[SUMLEN + 1], *path = fold_path(sm, now->num);

	why[0] = '\0';
	if (ar_readfile(path, &b, (size_t)1 << 34) < 0) {
		if (errno != ENOENT)
			snprintf(why, n, "%s", strerror(errno));
		goto bad;
	}
	if (b.len < sizeof FMAGIC - 1 + SUMLEN || memcmp(b.p, FMAGIC,
	    sizeof FMAGIC - 1) != 0) {
		snprintf(why, n, "not a segment's fold of this version");
		goto bad;
	}
	sum_hex(h, b.p, b.len - SUMLEN);
	if (memcmp(h, b.p + b.len - SUMLEN, SUMLEN) != 0) {
		snprintf(why, n, "its checksum does not match (a torn or "
		    "altered file)");
		goto bad;
	}
	r.p = b.p + sizeof FMAGIC - 1;
	r.end = b.p + b.len - SUMLEN;
	r.bad = 0;
	r.fold = 1;
	get_head(&r, sm, why, n);
	if (why[0])
		goto bad;
	get_fseg(&r, &f, 1);
	get_agg(&r, a);
	if (r.bad || r.p != r.end) {
		snprintf(why, n, "malformed");
		goto bad;
	}
	*moved = 0;
	if (!seg_same(&f, now)) {
		if (!same_bytes(sm, segpath, &f, now)) {
			snprintf(why, n, "ledger segment %08lu changed since "
			    "it was folded", now->num);
			goto bad;
		}
		*moved = 1;
		fold_write(sm, now, a);
	}
	memcpy(now->hash, f.hash, sizeof now->hash);
	free(path);
	ar_buf_free(&b);
	return 0;
bad:
	agg_free(a);
	agg_init(a, sm->metric);
	free(path);
	ar_buf_free(&b);
	return -1;
}

/* ---- the folds' prefix: run/sched-fold/prefix ----
 * The folds of the ledger's first segments merged, every value of their
 * lists with them, and each segment's identity as in the summary. A
 * summary built again (none, or a median out of its window) reads it and
 * the folds after it: at a thousand segments their folds are 268 MB, the
 * prefix some megabytes. Written by such a rebuild, and by ar-sched fold,
 * once PREFIX_EVERY folds or more follow it. A cache like the folds: its
 * checksum, what it was made for (put_head) and each segment's identity
 * must hold, else the folds are read. */
#define PMAGIC "ar-sched prefix 1\n"
#define PNAME "prefix"
#define PREFIX_EVERY 32

static size_t
prefix_every(void)
{
	const char *e = getenv("AR_SCHED_PREFIX");
	long long v;

	if (e && ar_parse_long(e, &v) == 0 && v >= 1 && v <= 1000000)
		return (size_t)v;
	return PREFIX_EVERY;
}

/* Every list whole: a prefix merged with later folds stays exact. */
static int
agg_whole(const struct agg *a)
{
	size_t i;
	int ki;

	for (ki = 0; ki < AR_POL_NK; ki++)
		if (a->secs[ki].below || a->secs[ki].above)
			return 0;
	if (a->secs_all.below || a->secs_all.above)
		return 0;
	for (i = 0; i < a->nwb; i++)
		for (ki = 0; ki < AR_POL_NK; ki++)
			if (a->wb[i].at[ki].below || a->wb[i].at[ki].above)
				return 0;
	return 1;
}

static void prefix_write(const struct summ *, const struct agg *);

/* The prefix's segments of another identity now, checked on every
 * core: each is taken, with its identity now, when its bytes hash as
 * when it was folded. */
struct pmoved {
	const struct summ *sm;
	const struct ar_ledger *led;
	struct fseg *seg;
	const unsigned char *moved;
	size_t n;
	atomic_size_t next, first_bad;
};

static void *
pmoved_check(void *arg)
{
	struct pmoved *m = arg;
	size_t i;

	while ((i = atomic_fetch_add(&m->next, 1)) < m->n) {
		struct fseg now;
		const char *path = m->led->seg[i].path;

		if (!m->moved[i] || i > atomic_load(&m->first_bad))
			continue;
		if (seg_ident(path, m->seg[i].num, &now) == 0 &&
		    same_bytes(m->sm, path, &m->seg[i], &now)) {
			m->seg[i] = now;
			continue;
		}
		for (size_t b = atomic_load(&m->first_bad); i < b &&
		    !atomic_compare_exchange_weak(&m->first_bad, &b, i);)
			;
	}
	return NULL;
}

/* The first segment that is not the same bytes, or n. */
static size_t
prefix_moved(const struct summ *sm, const struct ar_ledger *led,
    struct fseg *seg, const unsigned char *moved, size_t n)
{
	struct pmoved m = { sm, led, seg, moved, n, 0, 0 };
	pthread_t *th;
	size_t i, nth = (size_t)sched_threads();

	atomic_init(&m.next, 0);
	atomic_init(&m.first_bad, n);
	th = ar_xcalloc(nth + 1, sizeof *th);
	for (i = 1; i < nth; i++)
		if (pthread_create(&th[i], NULL, pmoved_check, &m) != 0)
			break;
	nth = i;
	pmoved_check(&m);
	for (i = 1; i < nth; i++)
		pthread_join(th[i], NULL);
	free(th);
	return atomic_load(&m.first_bad);
}

/* Takes the prefix into sm and a (both empty) when it is good for led;
 * else leaves them empty, and says why when there was a file. */
static void
prefix_read(struct summ *sm, struct agg *a, const struct ar_ledger *led)
{
	struct ar_buf b = {0};
	struct fseg *seg = NULL;
	struct rd r;
	char h[SUMLEN + 1], why[300] = "", *path = ar_path(sm->fdir, PNAME);
	unsigned char *moved = NULL;
	size_t i, n = 0, nmoved = 0;
	int settled = 0;

	if (ar_readfile(path, &b, (size_t)1 << 34) < 0) {
		if (errno != ENOENT)
			snprintf(why, sizeof why, "%s", strerror(errno));
		goto out;
	}
	if (b.len < sizeof PMAGIC - 1 + SUMLEN || memcmp(b.p, PMAGIC,
	    sizeof PMAGIC - 1) != 0) {
		snprintf(why, sizeof why, "not a prefix of this version");
		goto out;
	}
	sum_hex(h, b.p, b.len - SUMLEN);
	if (memcmp(h, b.p + b.len - SUMLEN, SUMLEN) != 0) {
		snprintf(why, sizeof why, "its checksum does not match (a "
		    "torn or altered file)");
		goto out;
	}
	r.p = b.p + sizeof PMAGIC - 1;
	r.end = b.p + b.len - SUMLEN;
	r.bad = 0;
	r.fold = 1;
	get_head(&r, sm, why, sizeof why);
	if (why[0])
		goto out;
	n = (size_t)get_u64(&r);
	if (r.bad || n > (size_t)(r.end - r.p) / 16) {
		snprintf(why, sizeof why, "malformed");
		goto out;
	}
	seg = ar_xcalloc(n + 1, sizeof *seg);
	moved = ar_xcalloc(n + 1, 1);
	for (i = 0; i < n && !r.bad; i++) {
		get_fseg(&r, &seg[i], 0);
		get_fix(&r, seg[i].hash, sizeof seg[i].hash);
		if (r.bad)
			break;
		if (i >= led->nseg || ar_ledger_seg_number(led->seg[i].path) !=
		    seg[i].num) {
			snprintf(why, sizeof why, "ledger segment %08lu is gone "
			    "or renumbered since it was folded", seg[i].num);
			goto out;
		}
		/* Another identity: a copy, taken once its bytes hash as
		 * they did (below, on every core). */
		if (!seg_still(led->seg[i].path, &seg[i], &settled))
			moved[i] = 1, nmoved++;
	}
	get_agg(&r, a);
	if (r.bad || r.p != r.end) {
		snprintf(why, sizeof why, "malformed");
		goto out;
	}
	if (nmoved && (i = prefix_moved(sm, led, seg, moved, n)) < n) {
		snprintf(why, sizeof why, "ledger segment %08lu changed since "
		    "it was folded", seg[i].num);
		goto out;
	}
	sm->seg = seg;
	sm->nseg = n;
	sm->dirty = 1;
	seg = NULL;
	/* Written again with the segments' identities now. */
	if (nmoved)
		prefix_write(sm, a);
out:
	if (seg || why[0]) {
		agg_free(a);
		agg_init(a, sm->metric);
	}
	if (why[0])
		ar_warn("%s: %s; the folds are read instead", path, why);
	free(seg);
	free(moved);
	free(path);
	ar_buf_free(&b);
}

/* How many segments the prefix holds, from its head alone (0 when there
 * is none): whether enough folds follow it to write it again. */
static size_t
prefix_count(const struct summ *sm)
{
	char buf[65536], why[300] = "", *path = ar_path(sm->fdir, PNAME);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd < 0 ? -1 : pread(fd, buf, sizeof buf, 0);
	struct rd r;
	size_t n;

	if (fd >= 0)
		close(fd);
	free(path);
	if (got < (ssize_t)(sizeof PMAGIC - 1) || memcmp(buf, PMAGIC,
	    sizeof PMAGIC - 1) != 0)
		return 0;
	r.p = buf + sizeof PMAGIC - 1;
	r.end = buf + got;
	r.bad = 0;
	r.fold = 1;
	get_head(&r, sm, why, sizeof why);
	n = (size_t)get_u64(&r);
	return why[0] || r.bad ? 0 : n;
}

static void
prefix_write(const struct summ *sm, const struct agg *a)
{
	struct ar_buf b = {0};
	char h[SUMLEN + 1], *path;
	size_t i;

	if (a->rows > FOLD_ROWS || !agg_whole(a))
		return;
	ar_buf_add(&b, PMAGIC, sizeof PMAGIC - 1);
	put_head(&b, sm);
	put_u64(&b, sm->nseg);
	for (i = 0; i < sm->nseg; i++) {
		put_fseg(&b, &sm->seg[i], 0);
		put_str(&b, sm->seg[i].hash);
	}
	put_agg(&b, a, 1);
	sum_hex(h, b.p, b.len);
	ar_buf_add(&b, h, SUMLEN);
	path = ar_path(sm->fdir, PNAME);
	if (ar_write_cache(path, b.p, b.len, 0644) < 0)
		ar_warn("%s: cannot write the folds' prefix: %s", path,
		    strerror(errno));
	free(path);
	ar_buf_free(&b);
}

/* A segment's fold as one of folds_in's threads read it. */
struct fslot {
	struct fseg now;
	struct agg f;
	char why[300];
	int good;
};

/* A segment whose fold is missing or bad, sealed (by a seal of the
 * campaign's key): its rows folded from its file into a (empty), its
 * fold written. 0 when done, -1 when it is left to the export. A sealed
 * segment's rows were all checked when it was sealed, as ar-ledger
 * export -V gives them; read here, each line is split only up to the
 * last column the fold needs, on every core, where the export split it
 * whole on one. While the seal signs the file's stat as it is, the
 * seal's hash stands for its bytes, as for the export; else the bytes
 * are read, hashed and folded from one copy. */
static int
fold_direct(struct summ *sm, const char *path, struct fseg *now,
    struct agg *a)
{
	struct stat st;
	struct fseg again;
	struct ar_segseal ss;
	struct ar_buf sb = {0}, b = {0};
	char h[AR_HASH_HEX];
	void *map = MAP_FAILED;
	int fd = -1, r = -1;

	if (ar_segseal_hash(path, sm->cp.pk, h, &st) == 0 && ident_is(now,
	    &st)) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
		    fstat(fd, &st) < 0 || !ident_is(now, &st) ||
		    st.st_size <= 0 || (map = mmap(NULL, (size_t)st.st_size,
		    PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
			goto out;
		(void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
		r = fold_segment(a, map, (size_t)st.st_size);
		munmap(map, (size_t)st.st_size);
	} else if (ar_segseal_read(path, sm->cp.pk, &ss, &sb) == 0 &&
	    ss.tsv_size == (long long)now->size) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
		    fstat(fd, &st) < 0 || !ident_is(now, &st) ||
		    ar_readfd(fd, &b, (size_t)now->size + 1) < 0 ||
		    b.len != now->size)
			goto out;
		ar_hash_hex(h, b.p, b.len);
		if (strcmp(h, ss.tsv_hash) == 0)
			r = fold_segment(a, b.p, b.len);
	}
out:
	if (fd >= 0)
		close(fd);
	ar_buf_free(&sb);
	ar_buf_free(&b);
	/* Still the file it was, and one a fold may hold. */
	if (r < 0 || seg_ident(path, now->num, &again) < 0 ||
	    !seg_same(&again, now) || a->rows > FOLD_ROWS) {
		agg_free(a);
		agg_init(a, sm->metric);
		return -1;
	}
	agg_sort(a);
	memcpy(now->hash, h, sizeof now->hash);
	fold_write(sm, now, a);
	return 0;
}

struct freader {
	struct summ *sm;
	const struct ar_ledger *led;
	struct fslot *slot;
	size_t from, n;
	atomic_size_t next;
	/* The first slot found bad: no thread reads a fold after it. */
	atomic_size_t first_bad;
};

static void *
fold_reader(void *arg)
{
	struct freader *r = arg;
	size_t j;

	while ((j = atomic_fetch_add(&r->next, 1)) < r->n) {
		struct fslot *s = &r->slot[j];
		const char *path = r->led->seg[r->from + j].path;
		unsigned long num = ar_ledger_seg_number(path);
		int moved;

		agg_init(&s->f, r->sm->metric);
		if (j > atomic_load(&r->first_bad))
			continue;
		s->good = num != 0 && seg_ident(path, num, &s->now) == 0 &&
		    (fold_read(r->sm, path, &s->now, &s->f, &moved, s->why,
		    sizeof s->why) == 0 || fold_direct(r->sm, path, &s->now,
		    &s->f) == 0);
		if (!s->good) {
			size_t b = atomic_load(&r->first_bad);

			while (j < b && !atomic_compare_exchange_weak(
			    &r->first_bad, &b, j))
				;
		}
	}
	return NULL;
}

/* Folds into a, after the segments the summary holds, the segments
 * that follow them in order and have a good fold. The folds are read on
 * every core: a fold whose segment was copied or moved is taken only
 * once the segment's bytes hash as they did, the most of the work. */
static void
folds_in(struct summ *sm, struct agg *a, const struct ar_ledger *led)
{
	struct freader r;
	pthread_t *th;
	size_t i, nth, p0;
	int scratch = sm->nseg == 0;

	/* Built again: from the prefix, when it is good. */
	if (scratch)
		prefix_read(sm, a, led);
	p0 = sm->nseg;
	if (sm->nseg >= led->nseg) {
		agg_sort(a);
		return;
	}
	memset(&r, 0, sizeof r);
	r.sm = sm;
	r.led = led;
	r.from = sm->nseg;
	r.n = led->nseg - sm->nseg;
	r.slot = ar_xcalloc(r.n, sizeof *r.slot);
	atomic_init(&r.next, 0);
	atomic_init(&r.first_bad, r.n);
	nth = (size_t)sched_threads();
	if (nth > r.n)
		nth = r.n;
	th = ar_xcalloc(nth, sizeof *th);
	for (i = 1; i < nth; i++)
		if (pthread_create(&th[i], NULL, fold_reader, &r) != 0)
			break;
	nth = i;
	fold_reader(&r);
	for (i = 1; i < nth; i++)
		pthread_join(th[i], NULL);
	free(th);
	for (i = 0; i < r.n; i++) {
		struct fslot *s = &r.slot[i];

		/* A bad fold is said whether its segment's rows were
		 * folded here (sealed) or are left to the export. */
		if (s->why[0]) {
			char *p = fold_path(sm, s->now.num);

			ar_warn("%s: %s; the segment's rows are read instead",
			    p, s->why);
			free(p);
		}
		if (!s->good || (sm->nseg && s->now.num <=
		    sm->seg[sm->nseg - 1].num))
			break;
		agg_merge(a, &s->f);
		sm->seg = ar_xrealloc(sm->seg, (sm->nseg + 1) * sizeof *sm->seg);
		sm->seg[sm->nseg++] = s->now;
		sm->dirty = 1;
	}
	for (i = 0; i < r.n; i++)
		agg_free(&r.slot[i].f);
	free(r.slot);
	agg_sort(a);
	if (scratch && sm->nseg - p0 >= prefix_every())
		prefix_write(sm, a);
}

/* Called by fold_ledger once the rows of segments are in: what is folded
 * so far is what the file keeps; the loose rows after it are not (they
 * move into a segment of their own when compacted). */
struct cut {
	struct summ *sm;
	/* The ledger as listed once the export has listed it (at the cut:
	 * its rows of segments are all in); led_open 1 when listed, -1
	 * when it could not be. */
	struct ar_ledger led;
	int led_open;
	unsigned long after;
	struct fold *fo;
	const char *camp;
	/* The segments after `after` as they were before the export, and
	 * the folds of those the export gave rows of (seg_done). */
	struct fseg *pre;
	size_t npre;
	struct agg *done;
	unsigned long *donenum;
	size_t ndone;
	/* The folds to write once the export has exited well (a segment
	 * and its index in done, or -1: none of its rows was exported), and
	 * the export being read. */
	struct fseg *keep;
	char **keeppath;
	long *keepat;
	size_t nkeep;
	FILE *in;
	pid_t pid;
	/* The loose results' list (a decision's, not ar-sched fold's). */
	struct lcache *lc;
};

/* ---- the loose results folded: run/sched-loose ----
 * Each loose result a decision folded, by its id and its file's
 * identity (known.h), with the values the fold read of it (FV_KEEP). The
 * next decision gives the list to the export (ar-ledger export -K): a
 * result whose file is unchanged is neither read nor checked again (the
 * loose seal vouched for it), and its values come from here, in its
 * place among the rows, so that the sums are the same to the last bit.
 * A result is kept only when its file's mtime is more than two seconds
 * older than the export, as the queue's directories are trusted: a
 * change after it sets a later mtime, and one that sets it back changes
 * the ctime. Like the summary a cache: its checksum and what it was made
 * for (put_head) must hold, else every loose result is read. */
/* Its version: a new one when the values kept (FV_KEEP) change. */
#define LMAGIC "ar-sched loose 2\n"
#define LNAME "sched-loose"
#define LOOSE_AGE 2
/* The most results listed, the first in id order (AR_SCHED_LOOSE_MAX
 * sets fewer): a ledger that never compacts (AR_LEDGER_COMPACT=0) may
 * hold millions loose, and the list, about 420 bytes a result, is read
 * and may be written at every decision; the rest are read each time. */
#define LOOSE_MAX 100000

static size_t
loose_max(void)
{
	const char *e = getenv("AR_SCHED_LOOSE_MAX");
	long long v;

	if (e && ar_parse_long(e, &v) == 0 && v >= 0 && v <= LOOSE_MAX)
		return (size_t)v;
	return LOOSE_MAX;
}

struct lres {
	struct ar_known k;
	const char *v[FV_KEEP];     /* into the file read, or into vbuf */
	char *vbuf;                 /* the values read from the export */
	int have_k;                 /* k's identity is set */
};

struct lcache {
	char *path, *results;
	struct ar_buf file;         /* the file read: old's values */
	struct lres *old, *now;
	size_t nold, nnow, capnow;
	struct timespec t0;         /* just before the export */
	/* Every result listed was in no segment numbered up to this when
	 * the list was written (its export looked in them all): the file's,
	 * and this run's. */
	unsigned long old_upto, upto;
};

static int
cmp_lres(const void *a, const void *b)
{
	return strcmp(((const struct lres *)a)->k.id,
	    ((const struct lres *)b)->k.id);
}

static const struct lres *
lres_find(const struct lcache *lc, const char *id)
{
	struct lres key;

	if (!lc->nold || strlen(id) > AR_ID_MAX)
		return NULL;
	memset(&key, 0, sizeof key);
	memcpy(key.k.id, id, strlen(id));
	return bsearch(&key, lc->old, lc->nold, sizeof *lc->old, cmp_lres);
}

/* Reads run/sched-loose into lc->old; why says what is wrong with it
 * ("" when there is none). */
static void
lcache_parse(struct lcache *lc, const struct summ *sm, char *why,
    size_t whylen)
{
	struct rd r;
	char h[SUMLEN + 1];
	size_t hl = SUMLEN, i, j, n;
	struct ar_buf *b = &lc->file;

	why[0] = '\0';
	if (b->len < sizeof LMAGIC - 1 + hl || memcmp(b->p, LMAGIC,
	    sizeof LMAGIC - 1) != 0) {
		snprintf(why, whylen, "not a list of this version");
		return;
	}
	sum_hex(h, b->p, b->len - hl);
	if (memcmp(h, b->p + b->len - hl, hl) != 0) {
		snprintf(why, whylen, "its checksum does not match (a torn "
		    "or altered file)");
		return;
	}
	r.p = b->p + sizeof LMAGIC - 1;
	r.end = b->p + b->len - hl;
	r.bad = 0;
	r.fold = 0;
	get_head(&r, sm, why, whylen);
	if (why[0])
		return;
	lc->old_upto = (unsigned long)get_u64(&r);
	n = (size_t)get_u64(&r);
	/* Each entry is at least its six numbers and its strings' sizes. */
	if (r.bad || n > LOOSE_MAX || n > (size_t)(r.end - r.p) /
	    (8 * (7 + FV_KEEP))) {
		snprintf(why, whylen, "malformed");
		return;
	}
	lc->old = ar_xcalloc(n + 1, sizeof *lc->old);
	for (i = 0; i < n && !r.bad; i++) {
		struct lres *e = &lc->old[i];
		const char *id = get_ref(&r);

		if (!id || strlen(id) > AR_ID_MAX || !ar_id_valid(id) ||
		    (i && strcmp(lc->old[i - 1].k.id, id) >= 0)) {
			r.bad = 1;
			break;
		}
		memcpy(e->k.id, id, strlen(id) + 1);
		e->k.ino = get_u64(&r);
		e->k.size = get_u64(&r);
		e->k.mt = (int64_t)get_u64(&r);
		e->k.mtn = (int64_t)get_u64(&r);
		e->k.ct = (int64_t)get_u64(&r);
		e->k.ctn = (int64_t)get_u64(&r);
		e->have_k = 1;
		/* Times the list's text can say (known.h). */
		if (e->k.mt < 0 || e->k.ct < 0 || e->k.mtn < 0 || e->k.ctn < 0 ||
		    e->k.mtn > 999999999 || e->k.ctn > 999999999)
			r.bad = 1;
		for (j = 0; j < FV_KEEP; j++)
			if (!(e->v[j] = get_ref(&r)))
				r.bad = 1;
	}
	if (r.bad || r.p != r.end) {
		free(lc->old);
		lc->old = NULL;
		snprintf(why, whylen, "malformed");
		return;
	}
	lc->nold = n;
}

static struct lcache *
lcache_open(const struct summ *sm)
{
	struct lcache *lc = ar_xcalloc(1, sizeof *lc);
	char *run = ar_campaign_path(sm->camp, "run"), why[300];
	char *ldir = ar_campaign_path(sm->camp, "ledger");

	lc->path = ar_path(run, LNAME);
	lc->results = ar_path(ldir, "results");
	free(run);
	free(ldir);
	if (ar_readfile(lc->path, &lc->file, (size_t)1 << 30) < 0) {
		if (errno != ENOENT)
			ar_warn("%s: %s; its loose results are read again",
			    lc->path, strerror(errno));
		ar_buf_free(&lc->file);
		return lc;
	}
	lcache_parse(lc, sm, why, sizeof why);
	if (why[0]) {
		ar_warn("%s: %s; its loose results are read again", lc->path,
		    why);
		ar_buf_free(&lc->file);
	}
	return lc;
}

/* The list for the export's -K, in a file of memory; -1 when there is
 * nothing to list (or no such file can be made). */
static int
lcache_list(const struct lcache *lc)
{
	struct ar_buf b = {0};
	size_t i;
	int fd;

	if (!lc->nold)
		return -1;
	for (i = 0; i < lc->nold; i++)
		ar_known_put(&b, &lc->old[i].k);
	fd = memfd_create("ar-sched-known", MFD_CLOEXEC);
	if (fd >= 0 && (ar_write_all(fd, b.p, b.len) < 0 ||
	    lseek(fd, 0, SEEK_SET) != 0)) {
		close(fd);
		fd = -1;
	}
	ar_buf_free(&b);
	return fd;
}

/* struct fold's known: a row the export did not read. */
static int
lcache_known(void *arg, const char *id, const char **v)
{
	const struct lcache *lc = ((struct cut *)arg)->lc;
	const struct lres *e = lc ? lres_find(lc, id) : NULL;
	size_t j;

	if (!e)
		return -1;
	for (j = 0; j < FV_KEEP; j++)
		v[j] = e->v[j];
	return 0;
}

/* struct fold's loose_row: each loose row folded, kept for the list. A
 * known one's values are the list's own (the same pointers). */
static void
lcache_row(void *arg, const char *id, const char *const *v)
{
	struct lcache *lc = ((struct cut *)arg)->lc;
	const struct lres *e;
	struct lres *n;
	size_t j, len = 0;
	char *p;

	if (!lc || strlen(id) > AR_ID_MAX || !ar_id_valid(id))
		return;
	if (lc->nnow == lc->capnow) {
		lc->capnow = lc->capnow ? 2 * lc->capnow : 64;
		lc->now = ar_xrealloc(lc->now, lc->capnow * sizeof *lc->now);
	}
	n = &lc->now[lc->nnow++];
	memset(n, 0, sizeof *n);
	memcpy(n->k.id, id, strlen(id) + 1);
	if ((e = lres_find(lc, id)) && e->v[0] == v[0]) {
		*n = *e;
		return;
	}
	/* Read from the export: its values copied, the line goes on. */
	for (j = 0; j < FV_KEEP; j++)
		len += strlen(v[j]) + 1;
	p = n->vbuf = ar_xmalloc(len);
	for (j = 0; j < FV_KEEP; j++) {
		size_t l = strlen(v[j]) + 1;

		memcpy(p, v[j], l);
		n->v[j] = p;
		p += l;
	}
}

static void
lcache_reset(struct lcache *lc)
{
	size_t i;

	for (i = 0; i < lc->nnow; i++)
		free(lc->now[i].vbuf);
	lc->nnow = 0;
}

/* The export exited well: the rows read are given their files'
 * identities (those old enough), and the list is written when it
 * differs from the one read. */
static void
lcache_write(struct lcache *lc, const struct summ *sm)
{
	struct ar_buf b = {0};
	char h[SUMLEN + 1];
	size_t i, j, w = 0;
	int same;

	for (i = 0; i < lc->nnow; i++) {
		struct lres *e = &lc->now[i];
		struct stat st;
		char *p;

		if (!e->have_k) {
			p = ar_xasprintf("%s/%s.json", lc->results, e->k.id);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
			    st.st_mtim.tv_sec >= 0 && st.st_ctim.tv_sec >= 0 &&
			    (st.st_mtim.tv_sec < lc->t0.tv_sec - LOOSE_AGE ||
			    (st.st_mtim.tv_sec == lc->t0.tv_sec - LOOSE_AGE &&
			    st.st_mtim.tv_nsec < lc->t0.tv_nsec))) {
				ar_known_of(&e->k, e->k.id, &st);
				e->have_k = 1;
			}
			free(p);
		}
		if (!e->have_k) {
			free(e->vbuf);
			continue;
		}
		lc->now[w++] = *e;
	}
	lc->nnow = w;
	for (i = loose_max(); i < lc->nnow; i++)
		free(lc->now[i].vbuf);
	if (lc->nnow > loose_max())
		lc->nnow = loose_max();
	/* The segments this run's export looked in: all up to the last
	 * one the summary now holds. */
	lc->upto = sm->nseg ? sm->seg[sm->nseg - 1].num : 0;
	same = lc->nnow == lc->nold && lc->upto == lc->old_upto;
	for (i = 0; same && i < lc->nnow; i++)
		same = memcmp(&lc->now[i].k, &lc->old[i].k,
		    sizeof lc->now[i].k) == 0 && lc->now[i].v[0] ==
		    lc->old[i].v[0];
	if (same)
		return;
	if (!lc->nnow) {
		if (unlink(lc->path) < 0 && errno != ENOENT)
			ar_warn("%s:", lc->path);
		return;
	}
	ar_buf_add(&b, LMAGIC, sizeof LMAGIC - 1);
	put_head(&b, sm);
	put_u64(&b, lc->upto);
	put_u64(&b, lc->nnow);
	for (i = 0; i < lc->nnow; i++) {
		const struct lres *e = &lc->now[i];

		put_str(&b, e->k.id);
		put_u64(&b, e->k.ino);
		put_u64(&b, e->k.size);
		put_u64(&b, (uint64_t)e->k.mt);
		put_u64(&b, (uint64_t)e->k.mtn);
		put_u64(&b, (uint64_t)e->k.ct);
		put_u64(&b, (uint64_t)e->k.ctn);
		for (j = 0; j < FV_KEEP; j++)
			put_str(&b, e->v[j]);
	}
	sum_hex(h, b.p, b.len);
	ar_buf_add(&b, h, SUMLEN);
	/* A cache, not synced: the next decision reads every loose
	 * result when it is torn or missing. */
	if (ar_write_cache(lc->path, b.p, b.len, 0644) < 0)
		ar_warn("%s: cannot write the loose results' list: %s",
		    lc->path, strerror(errno));
	ar_buf_free(&b);
}

static void
lcache_free(struct lcache *lc)
{
	if (!lc)
		return;
	lcache_reset(lc);
	free(lc->now);
	free(lc->old);
	ar_buf_free(&lc->file);
	free(lc->path);
	free(lc->results);
	free(lc);
}

/* A segment's rows are all in: into the total, and kept for its fold. */
static void
seg_done(struct agg *total, struct agg *seg, unsigned long num, void *arg)
{
	struct cut *c = arg;

	agg_sort(seg);
	agg_merge(total, seg);
	c->done = ar_xrealloc(c->done, (c->ndone + 1) * sizeof *c->done);
	c->donenum = ar_xrealloc(c->donenum, (c->ndone + 1) *
	    sizeof *c->donenum);
	c->done[c->ndone] = *seg;
	c->donenum[c->ndone++] = num;
	agg_init(seg, total->metric);
}

/* Keeps the fold of a segment just folded, to be written once the
 * export has exited well, when the segment is the file it was before
 * the export (else its rows may be others than those read). */
static void
fold_keep(struct cut *c, const struct fseg *now, const char *path)
{
	size_t i;

	for (i = 0; i < c->npre; i++)
		if (c->pre[i].num == now->num)
			break;
	if (i == c->npre || !seg_same(&c->pre[i], now))
		return;
	c->keep = ar_xrealloc(c->keep, (c->nkeep + 1) * sizeof *c->keep);
	c->keepat = ar_xrealloc(c->keepat, (c->nkeep + 1) *
	    sizeof *c->keepat);
	c->keeppath = ar_xrealloc(c->keeppath, (c->nkeep + 1) *
	    sizeof *c->keeppath);
	c->keep[c->nkeep] = *now;
	c->keeppath[c->nkeep] = ar_xstrdup(path);
	c->keepat[c->nkeep] = -1;
	for (i = 0; i < c->ndone; i++)
		if (c->donenum[i] == now->num)
			c->keepat[c->nkeep] = (long)i;
	c->nkeep++;
}

/* The export exited well: the folds fold_keep chose are written, each
 * with the hash of its segment's bytes, by which a copy of the segment
 * is known for the same (same_bytes). */
static void
folds_write(struct cut *c)
{
	struct agg empty;
	size_t i;

	agg_init(&empty, c->sm->metric);
	for (i = 0; i < c->nkeep; i++) {
		hash_of(c->sm, c->keeppath[i], &c->keep[i]);
		/* No row of it was exported (all unsigned): an empty fold. */
		fold_write(c->sm, &c->keep[i], c->keepat[i] < 0 ? &empty :
		    &c->done[c->keepat[i]]);
	}
	agg_free(&empty);
}

/* How the export ended; it is not read further. */
static int
export_end(struct cut *c)
{
	char buf[65536];
	int st;

	if (!c->in)
		return -1;
	/* Read to its end, so that it is not stopped by a broken pipe. */
	while (fread(buf, 1, sizeof buf, c->in) > 0)
		;
	fclose(c->in);
	c->in = NULL;
	st = ar_wait(c->pid);
	return st;
}

static void
export_failed(const char *camp)
{
	ar_die(AR_EX_UNAVAILABLE, "ar-ledger export -C %s -V failed; give "
	    "its export with -l", camp);
}

/* Rows refused as malformed: a failed export is said to have failed. */
static void
export_bad(void *arg)
{
	struct cut *c = arg;

	if (export_end(c) != 0)
		export_failed(c->camp);
}

static void
at_cut(struct agg *a, void *arg)
{
	struct cut *c = arg;
	struct summ *sm = c->sm;
	unsigned long upto = c->fo->maxseg > c->after ? c->fo->maxseg :
	    c->after;
	size_t i;

	/* Listed now, after the export listed it: it saw no segment newer
	 * than these. */
	if (!c->led_open) {
		char err[1024], *ldir = ar_campaign_path(c->camp, "ledger");

		c->led_open = ar_ledger_open_lazy(&c->led, ldir, err,
		    sizeof err) == 0 ? 1 : -1;
		if (c->led_open < 0)
			memset(&c->led, 0, sizeof c->led);
		free(ldir);
	}
	/* Segments are numbered in the order they were written: every
	 * segment up to the last one seen is folded now. */
	for (i = sm->nseg; i < c->led.nseg; i++) {
		unsigned long num = ar_ledger_seg_number(c->led.seg[i].path);

		if (num == 0 || num > upto)
			break;
		sm->seg = ar_xrealloc(sm->seg, (sm->nseg + 1) * sizeof *sm->seg);
		if (seg_ident(c->led.seg[i].path, num, &sm->seg[sm->nseg]) < 0)
			break;
		fold_keep(c, &sm->seg[sm->nseg], c->led.seg[i].path);
		sm->nseg++;
		sm->dirty = 1;
	}
	if (sm->dirty || !sm->have_ledger)
		put_ledger(sm, a);
}

/* Folds into a the rows ar-ledger export -C CAMP -V -f tsv -A N gives:
 * those after the last segment the summary holds, each checked as a
 * whole export would check it. They are read as the export writes them
 * (a million rows are 700 MB), and nothing is kept on disk before it has
 * exited well: a failed export is neither malformed data nor folds. */
static void
fold_export(struct summ *sm, struct nx *x, struct agg *a,
    const struct ar_ledger *before, int with_loose)
{
	char *prog = ar_sibling("ar-ledger"), num[32];
	/* Only the columns the fold reads: a third of the bytes (all of
	 * them for a metric whose name would split the list). */
	char *cols = a->metric && strchr(a->metric, ',') ? NULL :
	    fold_columns(a->metric);
	char *argv[16] = { prog, "export", "-C", (char *)x->camp, "-V",
	    "-f", "tsv", "-A", num };
	struct fold fo;
	struct ar_spawn sp;
	struct agg seg;
	struct cut cut;
	int fd[2], kfd = -1, na = 9;
	size_t i;

	if (cols) {
		argv[na++] = "-c";
		argv[na++] = cols;
	}
	memset(&fo, 0, sizeof fo);
	fo.want_seg = 1;
	fo.before_loose = at_cut;
	fo.seg_done = seg_done;
	fo.bad = export_bad;
	memset(&cut, 0, sizeof cut);
	/* A decision's loose results: those it folded before and can take
	 * again from its list are not read (-K). */
	if (with_loose) {
		if (!sm->lc)
			sm->lc = lcache_open(sm);
		lcache_reset(sm->lc);
		cut.lc = sm->lc;
		fo.known = lcache_known;
		fo.loose_row = lcache_row;
		/* The export looks a listed result up only in the segments
		 * after the cut (-A): the list must have looked in those up
		 * to it. A cut that went past it (folds taken since) has the
		 * results read this once. */
		if (sm->lc->old_upto >= (sm->nseg ? sm->seg[sm->nseg - 1].num :
		    0) && (kfd = lcache_list(sm->lc)) >= 0) {
			argv[na++] = "-K";
			argv[na++] = "-";
		}
		clock_gettime(CLOCK_REALTIME, &sm->lc->t0);
	}
	cut.camp = x->camp;
	cut.after = sm->nseg ? sm->seg[sm->nseg - 1].num : 0;
	snprintf(num, sizeof num, "%lu", cut.after);
	/* The segments to come, as they are before the export reads them
	 * (the ledger as listed before it: a segment it lists that the
	 * listing did not is folded, not kept as a fold). */
	if (before) {
		cut.pre = ar_xcalloc(before->nseg + 1, sizeof *cut.pre);
		for (i = 0; i < before->nseg; i++) {
			unsigned long n = ar_ledger_seg_number(
			    before->seg[i].path);

			if (n > cut.after && seg_ident(before->seg[i].path, n,
			    &cut.pre[cut.npre]) == 0)
				cut.npre++;
		}
	}
	agg_init(&seg, a->metric);
	fo.seg = &seg;
	if (pipe2(fd, O_CLOEXEC) < 0)
		ar_die(AR_EX_SOFTWARE, "pipe:");
#ifdef F_SETPIPE_SZ
	/* A megabyte in the pipe, not 64 KiB: the two sides wake each
	 * other a sixteenth as often over a million rows. Where the system
	 * allows less, the pipe keeps its size. */
	(void)fcntl(fd[1], F_SETPIPE_SZ, 1 << 20);
#endif
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.in = kfd >= 0 ? kfd : AR_FD_NULL;
	sp.out = fd[1];
	sp.err = AR_FD_KEEP;
	sp.die_with_parent = 1;
	if (ar_spawn(&sp, &cut.pid) < 0)
		ar_die(AR_EX_UNAVAILABLE, "%s: cannot run: %s", prog,
		    strerror(errno));
	close(fd[1]);
	if (kfd >= 0)
		close(kfd);
	free(prog);
	free(cols);
	if (!(cut.in = fdopen(fd[0], "r")))
		ar_die(AR_EX_SOFTWARE, "fdopen:");
	/* Large reads: the rows come by the hundred megabytes. */
	setvbuf(cut.in, NULL, _IOFBF, (size_t)1 << 20);
	cut.sm = sm;
	cut.fo = &fo;
	fo.arg = &cut;
	fold_ledger(a, cut.in, "ar-ledger export", &fo);
	if (export_end(&cut) != 0)
		export_failed(x->camp);
	folds_write(&cut);
	if (cut.lc)
		lcache_write(cut.lc, sm);
	if (cut.led_open > 0)
		ar_ledger_close(&cut.led);
	agg_free(&seg);
	for (i = 0; i < cut.ndone; i++)
		agg_free(&cut.done[i]);
	free(cut.done);
	free(cut.donenum);
	free(cut.pre);
	for (i = 0; i < cut.nkeep; i++)
		free(cut.keeppath[i]);
	free(cut.keeppath);
	free(cut.keep);
	free(cut.keepat);
}

static char *
key_hash_of(const struct ar_campaign *c, char out[AR_HASH_HEX])
{
	ar_hash_hex(out, c->pk, sizeof c->pk);
	return out;
}

static void summ_free(struct summ *);
static void queue_prefetch(struct summ *, const char *);

static struct summ *
summ_new(const struct nx *x, const char *metric)
{
	struct summ *sm = ar_xcalloc(1, sizeof *sm);
	char *run;

	sm->camp = ar_xstrdup(x->camp);
	sm->metric = metric;
	ar_campaign_open(&sm->cp, x->camp);
	key_hash_of(&sm->cp, sm->keyhash);
	run = ar_campaign_path(x->camp, "run");
	sm->path = ar_path(run, NAME);
	sm->qpath = ar_path(run, QNAME);
	sm->fdir = ar_path(run, "sched-fold");
	free(run);
	return sm;
}

/* ar-sched fold: the folds of the segments from the first one without a
 * fold file, or after the newest one with a good fold when that is
 * earlier, from their rows, as a decision would write them; no summary
 * or queue is read or written. So that a ledger a decision never read
 * (ar-ledger append runs this) is decided from its folds. The first
 * without a file matters when appends run at once: a fold run may see
 * a newer segment's fold before an older segment is folded. Returns how
 * many segments it folded. */
size_t
summ_fold(struct nx *x, const char *metric)
{
	struct summ *sm = summ_new(x, metric);
	struct ar_ledger led;
	struct fseg now;
	struct agg a;
	char err[1024], why[300], *ldir;
	size_t i, upto = 0, n;
	int moved;

	ldir = ar_campaign_path(x->camp, "ledger");
	if (ar_ledger_open_lazy(&led, ldir, err, sizeof err) < 0) {
		free(ldir);
		summ_free(sm);
		return 0;
	}
	free(ldir);
	for (i = led.nseg; i > 0 && !upto; i--) {
		unsigned long num = ar_ledger_seg_number(led.seg[i - 1].path);

		if (num == 0 || seg_ident(led.seg[i - 1].path, num, &now) < 0)
			continue;
		agg_init(&a, metric);
		if (fold_read(sm, led.seg[i - 1].path, &now, &a, &moved, why,
		    sizeof why) == 0)
			upto = i;
		agg_free(&a);
	}
	for (i = 0; i < upto; i++) {
		char *p = fold_path(sm, ar_ledger_seg_number(led.seg[i].path));
		int gone = access(p, F_OK) < 0;

		free(p);
		if (gone)
			break;
	}
	upto = i;
	/* The segments up to it stand as folded: only their numbers are
	 * read (at_cut goes on from the next one). */
	sm->seg = ar_xcalloc(upto + 1, sizeof *sm->seg);
	for (i = 0; i < upto; i++)
		sm->seg[i].num = ar_ledger_seg_number(led.seg[i].path);
	sm->nseg = upto;
	agg_init(&a, metric);
	fold_export(sm, x, &a, &led, 0);
	n = sm->nseg - upto;
	agg_free(&a);
	ar_ledger_close(&led);
	/* The prefix brought up to date, so that the first decision on the
	 * ledger reads it and a few folds (folds_in writes it once enough
	 * folds follow it). */
	ldir = ar_campaign_path(x->camp, "ledger");
	if (n && ar_ledger_open_lazy(&led, ldir, err, sizeof err) == 0) {
		if (led.nseg >= prefix_count(sm) + prefix_every()) {
			free(sm->seg);
			sm->seg = NULL;
			sm->nseg = 0;
			agg_init(&a, metric);
			folds_in(sm, &a, &led);
			agg_free(&a);
		}
		ar_ledger_close(&led);
	}
	free(ldir);
	summ_free(sm);
	return n;
}

struct summ *
summ_known(struct nx *x, const char *ledger, const char *metric,
    const char *qdir)
{
	struct summ *sm = summ_new(x, metric);
	struct agg a;
	struct ar_ledger led;
	char err[1024], *ldir;
	const char *why;
	int have_led;

	agg_init(&a, metric);
	ldir = ar_campaign_path(x->camp, "ledger");
	have_led = ar_ledger_open_lazy(&led, ldir, err, sizeof err) == 0;
	free(ldir);
	if (!have_led)
		memset(&led, 0, sizeof led);
	why = load(sm, &a, &led);
	if (why && why[0])
		ar_warn("%s: %s; it is rebuilt from the ledger%s", sm->path,
		    why, sm->qkept ? " (the queue records it knows are kept)" :
		    " and the queue");
	queue_prefetch(sm, qdir);
	if (ledger) {
		/* A given export: folded for this run only. */
		FILE *f = strcmp(ledger, "-") ? fopen(ledger, "r") : stdin;
		struct agg b;

		if (!f)
			ar_die(errno == ENOENT || errno == EACCES ?
			    AR_EX_NOINPUT : AR_EX_IO, "%s:", ledger);
		agg_init(&b, metric);
		fold_file(&b, f, ledger);
		if (f != stdin)
			fclose(f);
		apply_agg(x, &b);
		agg_free(&b);
	} else {
		/* What the segments' folds hold, then the rows after them. */
		if (have_led)
			folds_in(sm, &a, &led);
		fold_export(sm, x, &a, have_led ? &led : NULL, 1);
		/* A median gone out of a list's window (next.h): everything
		 * is read again, which holds all of each list. */
		if (!agg_exact(&a)) {
			ar_warn("%s: a median left the values it keeps; it is "
			    "rebuilt from the ledger", sm->path);
			agg_free(&a);
			agg_init(&a, metric);
			free(sm->seg);
			sm->seg = NULL;
			sm->nseg = 0;
			sm->ledger.len = 0;
			sm->have_ledger = 0;
			sm->dirty = 1;
			if (have_led)
				folds_in(sm, &a, &led);
			fold_export(sm, x, &a, have_led ? &led : NULL, 1);
		}
		apply_agg(x, &a);
	}
	if (have_led)
		ar_ledger_close(&led);
	agg_free(&a);
	if (x->left_unverified)
		ar_warn("left out %zu row%s not signed and verified (export "
		    "with ar-ledger export -V)", x->left_unverified,
		    x->left_unverified == 1 ? "" : "s");
	return sm;
}

/* Reads one record into e, from data (len bytes) when given, else its
 * file; 0 when it is one ar-sched counts. Why a malformed one is left
 * out goes to why (empty for a record gone or not an object), for the
 * caller to say: records are read on several threads, and said in the
 * listing's order. */
static int
read_record(const char *dir, const char *file, const char *data, size_t len,
    const char *name, struct qent *e, char *why, size_t whylen)
{
	struct ar_buf b = {0};
	struct ar_assign as;
	char err[256], store[1024], *path;
	json_t *j;
	int r = -1, got;

	why[0] = '\0';

	/* A record claimed or finished meanwhile is gone: it is simply not
	 * counted. Its path is made only when it is read. */
	if (!data) {
		path = ar_path(dir, file);
		got = ar_readfile(path, &b, AR_LINE_MAX);
		free(path);
		if (got < 0) {
			ar_buf_free(&b);
			return -1;
		}
		data = b.p;
		len = b.len;
	}
	/* The plain form ar-queue writes is read without jansson: a
	 * decision from scratch reads every pending record. */
	if (ar_assign_parse_text(data, len, "", &as, store, sizeof store) == 0)
		j = NULL;
	else if (!(j = ar_json_parse(data, len, err, sizeof err))) {
		ar_buf_free(&b);
		snprintf(why, whylen, "%s/%s: %s; left out", dir, file, err);
		return -1;
	} else if (json_is_object(j))
		ar_assign_parse(j, "", &as);
	if (!j || json_is_object(j)) {
		size_t i;

		memset(e, 0, sizeof *e);
		e->own = 1;
		e->name = ar_xstrdup(name);
		e->aa = as.purpose && strcmp(as.purpose, "aa") == 0;
		e->method = as.method ? ar_xstrdup(as.method) : NULL;
		e->workload = as.workload ? ar_xstrdup(as.workload) : NULL;
		e->node = as.node ? ar_xstrdup(as.node) : NULL;
		e->k = as.k;
		e->ngpus = as.ngpus;
		e->gpus = ar_xcalloc(as.ngpus + 1, sizeof *e->gpus);
		for (i = 0; i < as.ngpus; i++)
			e->gpus[i] = as.gpus[i];
		r = 0;
	}
	json_decref(j);
	ar_buf_free(&b);
	return r;
}

/* The measurements pending, counted by method, workload and k before
 * they are matched to the methods: many records, few such keys. */
struct pkey {
	const char *method, *workload;
	int ki;
	long n;
};

struct pend {
	struct pkey *k;
	size_t nk, nslot;
	size_t *slot;
	/* The keys last found, by their strings' addresses: the queue
	 * file's records share one copy of each method and workload, so a
	 * hundred thousand records hash a few thousand names. */
	struct pseen {
		const char *m, *w;
		int ki;
		size_t k;            /* into k, plus 1 */
	} *seen;
};
#define PSEEN 4096

static size_t
pkey_hash(const char *m, const char *w, int ki)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)ki;

	for (; *m; m++)
		h = (h ^ (unsigned char)*m) * 1099511628211ULL;
	for (; w && *w; w++)
		h = (h ^ (unsigned char)*w) * 1099511628211ULL;
	return (size_t)mix64(h);
}

static void
pend_add(struct pend *p, const char *m, const char *w, int ki)
{
	size_t j, i, c = (size_t)mix64((uint64_t)(uintptr_t)m ^
	    (uint64_t)(uintptr_t)w * 31 ^ (uint64_t)ki) & (PSEEN - 1);
	struct pseen *ps;

	if (!p->seen)
		p->seen = ar_xcalloc(PSEEN, sizeof *p->seen);
	ps = &p->seen[c];
	if (ps->k && ps->m == m && ps->w == w && ps->ki == ki) {
		p->k[ps->k - 1].n++;
		return;
	}

	if (2 * p->nk + 2 > p->nslot) {
		free(p->slot);
		p->nslot = p->nslot ? 2 * p->nslot : 1024;
		p->slot = ar_xcalloc(p->nslot, sizeof *p->slot);
		for (i = 0; i < p->nk; i++) {
			j = pkey_hash(p->k[i].method, p->k[i].workload,
			    p->k[i].ki) & (p->nslot - 1);
			while (p->slot[j])
				j = (j + 1) & (p->nslot - 1);
			p->slot[j] = i + 1;
		}
	}
	j = pkey_hash(m, w, ki) & (p->nslot - 1);
	for (; p->slot[j]; j = (j + 1) & (p->nslot - 1)) {
		struct pkey *k = &p->k[p->slot[j] - 1];

		if (k->ki == ki && strcmp(k->method, m) == 0 &&
		    (k->workload == w || (k->workload && w &&
		    strcmp(k->workload, w) == 0))) {
			k->n++;
			*ps = (struct pseen){ m, w, ki, p->slot[j] };
			return;
		}
	}
	p->k = ar_xrealloc(p->k, (p->nk + 1) * sizeof *p->k);
	p->k[p->nk] = (struct pkey){ m, w, ki, 1 };
	p->slot[j] = ++p->nk;
	*ps = (struct pseen){ m, w, ki, p->nk };
}

/* Counts a queue entry as listed: pending, an A/A, GPUs placed. */
static void
take(struct summ *sm, struct nx *x, struct ar_inv *inv, struct pend *pd,
    struct qent *e)
{
	if (e->used)
		return;
	e->used = 1;
	if (sm->norder == sm->capor) {
		sm->capor = sm->capor ? 2 * sm->capor : 1024;
		sm->order = ar_xrealloc(sm->order, sm->capor *
		    sizeof *sm->order);
	}
	sm->order[sm->norder++] = (size_t)(e - sm->q);
	if (e->aa) {
		x->aa_pending = ar_xrealloc(x->aa_pending, (x->naa + 1) *
		    sizeof *x->aa_pending);
		x->aa_pending[x->naa++] = ar_xstrdup(e->node ? e->node : "");
	} else if (e->method && ar_pol_kindex(e->k) >= 0) {
		pend_add(pd, e->method, e->workload, ar_pol_kindex(e->k));
	}
	busy_placed(inv, e->node, e->gpus, e->ngpus);
}

/* The identity of a queue directory now; trusted when its mtime is more
 * than two seconds old. -1 when it cannot be known (errno). */
static int
qdir_stat(const char *d, struct qdid *q)
{
	struct stat st;
	struct timespec now;

	memset(q, 0, sizeof *q);
	if (stat(d, &st) < 0) {
		if (errno != ENOENT)
			return -1;
		q->trusted = 1;
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	q->present = 1;
	q->ino = (uint64_t)st.st_ino;
	q->mt = (int64_t)st.st_mtim.tv_sec;
	q->mtn = (int64_t)st.st_mtim.tv_nsec;
	q->ct = (int64_t)st.st_ctim.tv_sec;
	q->ctn = (int64_t)st.st_ctim.tv_nsec;
	/* A change after this sets mtime to a later tick, and one that
	 * sets it back (touch) changes ctime. */
	q->trusted = now.tv_sec - st.st_mtim.tv_sec > 2;
	return 0;
}

static int
qdid_same(const struct qdid *a, const struct qdid *b)
{
	return a->present == b->present && a->ino == b->ino && a->mt == b->mt
	    && a->mtn == b->mtn && a->ct == b->ct && a->ctn == b->ctn;
}

/* A record the summary does not know, listed: read by read_misses. */
struct miss {
	const char *dir;
	char *file, *base;          /* one allocation: the file's name, and
	                             * its name up to the @ */
	uint64_t ino;               /* as listed */
	const char *data;           /* in the batches' manifests, or NULL */
	size_t len;
	struct qent ne;
	int r;
	char *why;                  /* why it is left out, if said */
};

/* A share of the records to read, and the manifests they may be in. */
struct mslice {
	struct miss *a, *b;
	const struct ar_spool_man *man;
};

static void *
miss_slice(void *arg)
{
	struct mslice *se = arg;
	struct miss *m;
	char why[512];

	/* The reason is kept only where there is one: a hundred thousand
	 * records read from scratch. */
	for (m = se->a; m < se->b; m++) {
		if (se->man)
			m->data = ar_spool_man_get(se->man, m->base, m->ino,
			    &m->len);
		m->r = read_record(m->dir, m->file, m->data, m->len, m->base,
		    &m->ne, why, sizeof why);
		if (why[0])
			m->why = ar_xstrdup(why);
	}
	return NULL;
}

/* Reads the records of a listing, each from the manifests when man has
 * it, on AR_THREADS threads when there are many (from scratch, a
 * hundred thousand: their JSON was half of such a decision). Each
 * record is read alone, so that the order of the reading does not
 * matter; what is made of them is, in summ_queued. */
static void
read_misses(struct miss *m, size_t n, const struct ar_spool_man *man)
{
	struct mslice se[16];
	pthread_t tid[16];
	size_t t = (size_t)sched_threads(), i;
	int up[16];

	if (n < 256 || t < 2)
		t = 1;
	if (t > 16)
		t = 16;
	se[0] = (struct mslice){ m, m + n / t, man };
	for (i = 1; i < t; i++)
		se[i] = (struct mslice){ m + n * i / t, m + n * (i + 1) / t,
		    man };
	/* A slice whose thread cannot start is read here. */
	for (i = 1; i < t; i++)
		up[i] = pthread_create(&tid[i], NULL, miss_slice, &se[i]) == 0;
	miss_slice(&se[0]);
	for (i = 1; i < t; i++)
		if (up[i])
			pthread_join(tid[i], NULL);
		else
			miss_slice(&se[i]);
}

/* The queue's two directories as listed (summ_queued's first half):
 * each entry in the listing's order, a record the summary knows (its
 * index in sm->q) or one read (-1 - its index in miss); err, the errno
 * of a listing that failed, said by the second half. */
struct qlist {
	ptrdiff_t *act;
	struct miss *miss;
	size_t nact, nmiss;
	char *dir;
	int err;
};

struct qlisting {
	struct qlist d[2];
	struct ar_spool_man man;    /* where the misses' data points */
	int same;                   /* unchanged: sm->q is the listing */
	char *qdir;
};

static const char *const qsubs[] = { "new", "cur" };

static void *
man_thread(void *arg)
{
	struct qlisting *L = arg;

	if (ar_spool_man_load(L->qdir, &L->man) < 0)
		memset(&L->man, 0, sizeof L->man);
	return NULL;
}

/* Lists new/ and cur/ and reads the records the summary does not know;
 * touches nothing of sm but its reading of sm->q and qnow, so that it
 * may run on a thread of its own while the ledger is read. */
static void
queue_list(struct summ *sm, struct qlisting *L)
{
	size_t s, pos = 0, capact, capmiss, allmiss = 0;
	pthread_t mthr;
	int man = 0;

	L->same = sm->qloaded;
	for (s = 0; s < 2; s++) {
		struct qlist *q = &L->d[s];

		q->dir = ar_path(L->qdir, qsubs[s]);
		/* Before listing: a change while listing shows as newer. */
		if (qdir_stat(q->dir, &sm->qnow[s]) < 0)
			q->err = errno;
		L->same = L->same && sm->qd[s].trusted &&
		    qdid_same(&sm->qd[s], &sm->qnow[s]);
	}
	/* From scratch every record is to be read, most from the batches'
	 * manifests: they are loaded while the directories are listed. */
	if (!L->same && !sm->qloaded)
		man = pthread_create(&mthr, NULL, man_thread, L) == 0 ? 2 : 0;
	/* Neither directory changed since the listing the file keeps:
	 * its entries, in its order, are what a listing would give. */
	for (s = 0; !L->same && s < 2; s++) {
		struct qlist *q = &L->d[s];
		DIR *dp;
		struct dirent *de;

		if (q->err)
			continue;
		if (!(dp = opendir(q->dir))) {
			if (errno != ENOENT)
				q->err = errno;
			continue;
		}
		/* Unsorted: what is counted does not depend on order. */
		capact = capmiss = 0;
		while ((errno = 0, de = readdir(dp))) {
			char base[AR_SPOOL_NAME + 1];
			const char *at = strchr(de->d_name, '@');
			size_t n = at ? (size_t)(at - de->d_name) :
			    strlen(de->d_name);
			struct qent *e;
			struct miss *ms;
			size_t nf;

			if (de->d_name[0] == '.' || n >= sizeof base)
				continue;
			memcpy(base, de->d_name, n);
			base[n] = '\0';
			/* A directory lists what did not change in the same
			 * order each time, and the summary keeps that order:
			 * most names are the next one it holds. */
			e = NULL;
			if (pos < sm->nq && strcmp(sm->q[pos].name, base) == 0)
				e = &sm->q[pos++];
			else if ((e = q_find(sm, base)))
				pos = (size_t)(e - sm->q) + 1;
			if (q->nact == capact) {
				capact = capact ? 2 * capact : 1024;
				q->act = ar_xrealloc(q->act, capact *
				    sizeof *q->act);
			}
			if (e) {
				q->act[q->nact++] = (ptrdiff_t)(e - sm->q);
				continue;
			}
			if (q->nmiss == capmiss) {
				capmiss = capmiss ? 2 * capmiss : 1024;
				q->miss = ar_xrealloc(q->miss, capmiss *
				    sizeof *q->miss);
			}
			ms = &q->miss[q->nmiss];
			memset(ms, 0, sizeof *ms);
			ms->dir = q->dir;
			ms->ino = (uint64_t)de->d_ino;
			nf = strlen(de->d_name) + 1;
			ms->file = ar_xmalloc(nf + n + 1);
			memcpy(ms->file, de->d_name, nf);
			ms->base = ms->file + nf;
			memcpy(ms->base, base, n + 1);
			q->act[q->nact++] = -1 - (ptrdiff_t)q->nmiss++;
			allmiss++;
		}
		if (errno)
			q->err = errno;
		closedir(dp);
	}
	if (man == 2)
		pthread_join(mthr, NULL);
	/* Many to read (from scratch, or a large put): the batches'
	 * manifests hold them, a file each. */
	else if (!L->same && (!sm->qloaded || allmiss >= 256))
		man_thread(L);
	for (s = 0; !L->same && s < 2; s++)
		read_misses(L->d[s].miss, L->d[s].nmiss, L->man.n ? &L->man :
		    NULL);
}

static void *
queue_list_thread(void *arg)
{
	struct summ *sm = arg;

	queue_list(sm, sm->pre);
	return NULL;
}

/* From scratch (nothing of the queue known), the queue is listed and
 * its records read while the ledger is: a hundred thousand records
 * took as long as the rest of such a decision. Listed before the
 * ledger is read, a measurement that ends meanwhile is counted as
 * pending and measured, for this decision only, where listed after it
 * could be counted as neither and assigned again. */
static void
queue_prefetch(struct summ *sm, const char *qdir)
{
	if (!qdir || sm->qstate || sm->nq || sched_threads() < 2)
		return;
	sm->pre = ar_xcalloc(1, sizeof *sm->pre);
	sm->pre->qdir = ar_xstrdup(qdir);
	if (pthread_create(&sm->prethr, NULL, queue_list_thread, sm) == 0)
		sm->prerun = 1;
	else {
		free(sm->pre->qdir);
		free(sm->pre);
		sm->pre = NULL;
	}
}

static void
qlisting_free(struct qlisting *L)
{
	size_t s, i;

	for (s = 0; s < 2; s++) {
		for (i = 0; i < L->d[s].nmiss; i++) {
			free(L->d[s].miss[i].file);
			free(L->d[s].miss[i].why);
			q_free(&L->d[s].miss[i].ne);
		}
		free(L->d[s].miss);
		free(L->d[s].act);
		free(L->d[s].dir);
	}
	ar_spool_man_free(&L->man);
	free(L->qdir);
	free(L);
}

/* The prefetch's listing once it has ended; NULL without one. */
static struct qlisting *
pre_join(struct summ *sm)
{
	struct qlisting *L = sm->pre;

	if (sm->prerun)
		pthread_join(sm->prethr, NULL);
	sm->prerun = 0;
	sm->pre = NULL;
	return L;
}

void
summ_queued(struct summ *sm, struct nx *x, struct ar_inv *inv,
    const char *qdir)
{
	struct pend pd = {0};
	struct qlisting *L;
	size_t s, i;
	int same;

	q_join(sm, 1);
	if (!(L = pre_join(sm))) {
		L = ar_xcalloc(1, sizeof *L);
		L->qdir = ar_xstrdup(qdir);
		queue_list(sm, L);
	}
	for (s = 0; s < 2; s++)
		if (L->d[s].err) {
			errno = L->d[s].err;
			ar_die(AR_EX_IO, "%s:", L->d[s].dir);
		}
	for (i = 0; L->same && i < sm->nq; i++)
		take(sm, x, inv, &pd, &sm->q[i]);
	/* Then the entries, their order and the directories' times are
	 * those the file holds: its queue part is written back as read. */
	sm->qsame = L->same;
	for (s = 0; !L->same && s < 2; s++) {
		struct qlist *q = &L->d[s];

		/* In the listing's order, as read one at a time: a record
		 * listed twice (claimed from new/ to cur/ meanwhile) is
		 * added once. */
		for (i = 0; i < q->nact; i++) {
			struct qent *e;
			struct miss *ms;

			if (q->act[i] >= 0) {
				take(sm, x, inv, &pd, &sm->q[q->act[i]]);
				continue;
			}
			ms = &q->miss[-1 - q->act[i]];
			if (ms->r < 0) {
				if (ms->why)
					ar_warn("%s", ms->why);
			} else if ((e = q_find(sm, ms->base))) {
				take(sm, x, inv, &pd, e);
			} else {
				e = q_add(sm, &ms->ne);
				/* Its strings are the entry's now. */
				memset(&ms->ne, 0, sizeof ms->ne);
				sm->misses++;
				take(sm, x, inv, &pd, e);
			}
		}
	}
	same = L->same;
	qlisting_free(L);
	sm->qlisted = 1;
	/* The strings stay alive in sm until summ_close. */
	for (i = 0; i < pd.nk; i++)
		add_pending_named(x, pd.k[i].method, pd.k[i].workload,
		    pd.k[i].ki, pd.k[i].n);
	free(pd.k);
	free(pd.slot);
	free(pd.seen);
	/* Rewritten when it would save reading many files next time, or
	 * forget many records gone; a few either way cost less than
	 * writing it all again. Also once the directories have been still
	 * a while, so that later runs need not list them. */
	for (i = 0, s = 0; i < sm->nq; i++)
		s += !sm->q[i].used;
	if (sm->misses >= 64 || s > 64 + sm->nq / 16)
		sm->dirty = 1;
	if (!same && sm->qnow[0].trusted && sm->qnow[1].trusted)
		sm->dirty = 1;
}

void
summ_close(struct summ *sm)
{
	struct ar_buf b = {0};
	char h[SUMLEN + 1];

	q_join(sm, 1);
	if (sm->dirty || !sm->loaded) {
		char *run = ar_campaign_path(sm->camp, "run");

		if (ar_mkdirs(run, 0755) < 0)
			ar_warn("%s:", run);
		free(run);
		/* The queue file first: a crash before the summary follows
		 * leaves the summary naming the old one's checksum, and both
		 * are rebuilt. A run that did not list the queue (next
		 * --best) keeps the one it loaded. */
		if (!(sm->qloaded && (sm->qsame || !sm->qlisted))) {
			ar_buf_add(&b, QMAGIC, sizeof QMAGIC - 1);
			put_queue(&b, sm);
			sum_hex(sm->qsum, b.p, b.len);
			ar_buf_add(&b, sm->qsum, SUMLEN);
			/* Not synced: a file torn by a crash fails its
			 * checksum and is rebuilt, and a sync of megabytes
			 * costs more than the rest of a decision. */
			if (ar_write_cache(sm->qpath, b.p, b.len, 0644) < 0) {
				ar_warn("%s: cannot write the summary: %s",
				    sm->qpath, strerror(errno));
				sm->qsum[0] = '\0';
			}
			b.len = 0;
		}
		ar_buf_add(&b, MAGIC, sizeof MAGIC - 1);
		put_head(&b, sm);
		if (sm->have_ledger)
			ar_buf_add(&b, sm->ledger.p, sm->ledger.len);
		else {
			/* Nothing folded yet (the ledger came from -l). */
			struct agg a;

			agg_init(&a, sm->metric);
			put_u64(&b, 0);
			put_agg(&b, &a, 0);
			agg_free(&a);
		}
		put_str(&b, sm->qsum);
		sum_hex(h, b.p, b.len);
		ar_buf_add(&b, h, SUMLEN);
		/* A cache: when it cannot be written, the next run reads
		 * everything again, and says why. Not synced, as above. */
		if (sm->qsum[0] && ar_write_cache(sm->path, b.p, b.len,
		    0644) < 0)
			ar_warn("%s: cannot write the summary: %s", sm->path,
			    strerror(errno));
		ar_buf_free(&b);
	}
	summ_free(sm);
}

static void
summ_free(struct summ *sm)
{
	struct qlisting *L = pre_join(sm);
	size_t i;

	if (L)
		qlisting_free(L);
	q_join(sm, 0);
	for (i = 0; i < sm->nq; i++)
		q_free(&sm->q[i]);
	free(sm->q);
	free(sm->qslot);
	free(sm->order);
	free(sm->seg);
	ar_buf_free(&sm->ledger);
	ar_buf_free(&sm->file);
	ar_buf_free(&sm->qfile);
	ar_campaign_free(&sm->cp);
	free(sm->camp);
	free(sm->path);
	free(sm->qpath);
	free(sm->fdir);
	free(sm->err);
	lcache_free(sm->lc);
	free(sm);
}
