/* verify.c: the whole ledger read in batches of row checks; what is
 * wrong beyond one row (a segment's index, an id stored twice); the
 * method hashes recomputed from methods/; ar-ledger verify. */
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
#include "tsv.h"
#include "ar-ledger.h"

static const struct hdr *
hdr_for(struct scanner *s, const struct ar_row *r)
{
	struct hdr *h;
	size_t i;

	if (s->nhdr && r->hdr == s->last_hdr && r->src == s->last_src)
		return s->hdrs[s->nhdr - 1];
	h = ar_xmalloc(sizeof *h);
	h->ncol = r->ncol;
	h->name = ar_xmalloc(r->ncol * sizeof *h->name);
	for (i = 0; i < r->ncol; i++)
		h->name[i] = ar_xstrdup(r->hdr[i]);
	s->hdrs = ar_xrealloc(s->hdrs, (s->nhdr + 1) * sizeof *s->hdrs);
	s->hdrs[s->nhdr++] = h;
	s->last_hdr = r->hdr;
	s->last_src = r->src;
	return h;
}

static void
free_hdrs(struct scanner *s)
{
	size_t i, k;

	for (i = 0; i < s->nhdr; i++) {
		for (k = 0; k < s->hdrs[i]->ncol; k++)
			free(s->hdrs[i]->name[k]);
		free(s->hdrs[i]->name);
		free(s->hdrs[i]);
	}
	free(s->hdrs);
	s->hdrs = NULL;
	s->nhdr = 0;
}

char *
where_of(const struct ar_row *r)
{
	if (r->lineno)
		return ar_xasprintf("%s:%zu", r->src, r->lineno);
	return ar_xstrdup(r->src);
}

static void report_bad(struct scanner *s, const char *where, const char *id,
    const char *why);

/* The ids of a segment must be exactly its index. */
static void
check_index(struct scanner *s)
{
	const struct ar_ledger *led = &s->cx->led;
	size_t i;

	if (!s->seg_src)
		return;
	for (i = 0; i < led->nseg; i++) {
		if (led->seg[i].path != s->seg_src)
			continue;
		if (led->seg[i].idxlen != s->seg_ids.len || (s->seg_ids.len &&
		    memcmp(led->seg[i].idx, s->seg_ids.p, s->seg_ids.len) != 0))
			report_bad(s, s->seg_src, "-", "index (.idx) does not "
			    "list exactly the segment's ids");
	}
	s->seg_src = NULL;
	ar_buf_clear(&s->seg_ids);
}

void
row_fileid(const struct ar_row *r, char id[AR_ID_MAX + 1])
{
	const char *b;
	size_t len;

	id[0] = '\0';
	if (r->field) {
		snprintf(id, AR_ID_MAX + 1, "%s", r->field[0]);
		return;
	}
	if (r->lineno)
		return;
	b = strrchr(r->src, '/');
	b = b ? b + 1 : r->src;
	len = strlen(b);
	if (len > 5 && len - 5 <= AR_ID_MAX)
		snprintf(id, AR_ID_MAX + 1, "%.*s", (int)(len - 5), b);
}

int
before_cut(const struct ar_row *r, long after)
{
	return after > 0 && r->lineno &&
	    ar_ledger_seg_number(r->src) <= (unsigned long)after;
}

/* Rows of a new file: which segment it is, whether it is sealed, and
 * where its method columns are. */
static void
enter_source(struct scanner *s, const struct ar_row *r)
{
	const struct ar_ledger *led = &s->cx->led;
	size_t i;

	s->cur_src = r->src;
	s->cur_sealed = 0;
	s->cur_segi = -1;
	s->c_commit = s->c_mhash = -1;
	for (i = 0; r->lineno && i < led->nseg; i++)
		if (led->seg[i].path == r->src) {
			s->cur_segi = (long)i;
			break;
		}
	if (s->cur_segi >= 0 && (size_t)s->cur_segi >= s->nsums) {
		s->sums = ar_xrealloc(s->sums, led->nseg * sizeof *s->sums);
		memset(s->sums + s->nsums, 0, (led->nseg - s->nsums) *
		    sizeof *s->sums);
		s->nsums = led->nseg;
	}
	if (s->cur_segi >= 0 && (size_t)s->cur_segi < s->nsealed)
		s->cur_sealed = s->sealed[s->cur_segi];
	for (i = 0; s->cur_sealed && i < r->ncol; i++) {
		if (strcmp(r->hdr[i], "method.commit") == 0)
			s->c_commit = (long)i;
		else if (strcmp(r->hdr[i], "method.hash") == 0)
			s->c_mhash = (long)i;
	}
}

/* A segment whose seal holds is not read: its seal says how many rows
 * it has and of what kind, all found good when it was sealed, and its
 * index, which the seal covers, gives its ids. With -s, a sealed segment
 * that holds unsigned rows is read, to name them. */
static int
skip_sealed(const struct ar_seg *seg, void *arg)
{
	struct scanner *s = arg;
	size_t i = (size_t)(seg - s->cx->led.seg);
	const struct segsum *m;

	if (i >= s->nsealed || !s->sealed[i])
		return 0;
	m = &s->sums[i];
	if (s->strict && m->unsigned_)
		return 0;
	s->total += m->rows;
	s->ok += m->rows - m->unsigned_;
	s->unsigned_ += m->unsigned_;
	s->cx->methods_unchecked += m->unchecked;
	s->skipped = ar_xrealloc(s->skipped, (s->nskipped + 1) *
	    sizeof *s->skipped);
	s->skipped[s->nskipped++] = i;
	return 1;
}

/* A loose result taken as its loose seal's entry says it was found. */
static void
as_sealed(struct job *j, const struct lent *e)
{
	snprintf(j->id, sizeof j->id, "%s", e->name);
	j->status = e->unsigned_ ? ST_UNSIGNED : ST_OK;
	snprintf(j->mhash, sizeof j->mhash, "%s", e->mhash);
	snprintf(j->commit, sizeof j->commit, "%s", e->commit);
}

static int
collect(const struct ar_row *r, void *arg)
{
	struct scanner *s = arg;
	struct job *j;

	/* export -A: what is before the cut was checked when it was
	 * exported before. */
	if (before_cut(r, s->after))
		return 0;

	if (r->src != s->seg_src && s->seg_src)
		check_index(s);
	if (r->lineno)
		s->seg_src = r->src;
	if (r->lineno && r->field) {
		ar_buf_adds(&s->seg_ids, r->field[0]);
		ar_buf_addc(&s->seg_ids, '\n');
	}
	if (r->bad) {
		char *w = where_of(r), id[AR_ID_MAX + 1];

		s->total++;
		row_fileid(r, id);
		report_bad(s, w, id[0] ? id : "-", r->bad);
		free(w);
		return 0;
	}
	if (r->src != s->cur_src)
		enter_source(s, r);
	j = &s->jobs[s->n++];
	memset(j, 0, sizeof *j);
	j->segi = s->cur_segi;
	if (s->cur_sealed && r->field) {
		/* Checked when sealed: what the row says is in its columns,
		 * which then said what its JSON says. */
		const char *c;

		j->trusted = 1;
		j->where = where_of(r);
		snprintf(j->id, sizeof j->id, "%s", r->field[0]);
		j->status = r->ncol > 1 && strcmp(r->field[1], "yes") == 0 ?
		    ST_OK : ST_UNSIGNED;
		c = s->c_mhash >= 0 ? r->field[s->c_mhash] : "";
		snprintf(j->mhash, sizeof j->mhash, "%s", c);
		c = s->c_commit >= 0 ? r->field[s->c_commit] : "";
		if (ar_method_is_commit(c))
			snprintf(j->commit, sizeof j->commit, "%s", c);
		if (s->n == BATCH)
			s->flush(s);
		return 0;
	}
	if (r->known) {
		const struct lent *e;

		/* A loose result the export's reader holds (export -K),
		 * unchanged since: known only when the loose seal lists it,
		 * so taken as its seal says, and sealed again. */
		j->where = where_of(r);
		j->loose = 1;
		/* Nothing to read: check_job leaves it as said here. */
		j->trusted = 1;
		row_fileid(r, j->fileid);
		if (!(e = looseseal_find(&s->loose, j->fileid, NULL))) {
			j->status = ST_BAD;
			snprintf(j->why, sizeof j->why, "not read (-K) and "
			    "not in the loose seal");
		} else {
			snprintf(j->chash, sizeof j->chash, "%s", e->hash);
			as_sealed(j, e);
		}
		if (s->n == BATCH)
			s->flush(s);
		return 0;
	}
	j->len = r->jsonlen;
	j->where = where_of(r);
	j->stored = 1;
	row_fileid(r, j->fileid);
	if (!r->lineno && !r->field) {
		const struct lent *e;

		/* A loose result: taken as checked when the loose seal lists
		 * its bytes. */
		j->loose = 1;
		ar_hash_hex(j->chash, r->json, r->jsonlen);
		if (s->trust_seals && (e = looseseal_find(&s->loose,
		    j->fileid, j->chash))) {
			j->trusted = 1;
			as_sealed(j, e);
			if (s->n == BATCH)
				s->flush(s);
			return 0;
		}
	}
	if (r->field) {
		/* The fields, json last, lie one after the other in the
		 * row's line: one copy of the line, and pointers into it,
		 * instead of one allocation per field. */
		size_t k, span = (size_t)(r->json + r->jsonlen + 1 -
		    r->field[0]);
		char *blob;

		j->h = hdr_for(s, r);
		j->cols = ar_xmalloc(r->ncol * sizeof *j->cols + span);
		blob = (char *)(j->cols + r->ncol);
		memcpy(blob, r->field[0], span);
		for (k = 0; k + 1 < r->ncol; k++)
			j->cols[k] = blob + (r->field[k] - r->field[0]);
		j->json = blob + (r->json - r->field[0]);
		j->json_in_cols = 1;
	} else
		j->json = ar_xstrdup(r->json);
	if (s->n == BATCH)
		s->flush(s);
	return 0;
}

static void
push_str(char ***v, size_t *n, size_t *cap, const char *str)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = ar_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = ar_xstrdup(str);
}

/* Names one problem. Export -V leaves out the row at where; a problem
 * of an id (stored twice) leaves out every row of that id. */
static void
report_bad(struct scanner *s, const char *where, const char *id,
    const char *why)
{
	s->bad++;
	if (s->out && s->npend && !s->in_flush) {
		/* Found while reading, with a batch of earlier rows still
		 * being checked: said after them, in the order of the
		 * ledger, as without the overlap. */
		ar_buf_printf(&s->later, "%s\t%s\t", where, id);
		ar_tsv_escape(&s->later, why);
		ar_buf_addc(&s->later, '\n');
	} else if (s->out) {
		fprintf(s->out, "%s\t%s\t", where, id);
		ar_tsv_put(s->out, why);
		putc('\n', s->out);
	}
	push_str(&s->badwhere, &s->nbadwhere, &s->capbadwhere, where);
}

/* A loose result found good, for the next loose seal. */
static void
keep_loose(struct scanner *s, const struct job *j)
{
	struct lent e;

	if (!j->loose || !j->id[0] || strcmp(j->id, j->fileid) != 0)
		return;
	memset(&e, 0, sizeof e);
	snprintf(e.name, sizeof e.name, "%s", j->id);
	snprintf(e.hash, sizeof e.hash, "%s", j->chash);
	e.unsigned_ = j->status == ST_UNSIGNED;
	snprintf(e.mhash, sizeof e.mhash, "%s", j->mhash);
	snprintf(e.commit, sizeof e.commit, "%s", j->commit);
	looseseal_keep(&s->loose, &e);
}

/* What the checks of a batch found, in the order of its rows. */
static void
finish_batch(struct scanner *s, struct job *jobs, size_t n)
{
	struct segsum *sum;
	size_t i;

	mcache_missing(s->cx, jobs, n);
	for (i = 0; i < n; i++) {
		struct job *j = &jobs[i];

		if (j->id[0]) {
			if (s->nids == s->capids) {
				s->capids = s->capids ? s->capids * 2 : 1024;
				s->ids = ar_xrealloc(s->ids, s->capids *
				    sizeof *s->ids);
				s->idseg = ar_xrealloc(s->idseg, s->capids);
			}
			s->idseg[s->nids] = j->segi >= 0;
			s->ids[s->nids++] = ar_xstrdup(j->id);
		}
		s->total++;
		if (j->status == ST_BAD) {
			report_bad(s, j->where, j->id[0] ? j->id : j->fileid[0] ?
			    j->fileid : "-", j->why);
			continue;
		}
		sum = !j->trusted && j->segi >= 0 && (size_t)j->segi <
		    s->nsums ? &s->sums[j->segi] : NULL;
		if (sum && j->status != ST_BAD)
			sum->rows++;
		if (j->status == ST_UNSIGNED) {
			keep_loose(s, j);
			s->unsigned_++;
			if (sum)
				sum->unsigned_++;
			if (s->strict)
				report_bad(s, j->where, j->id, "unsigned "
				    "(imported) row");
			continue;
		}
		if (j->commit[0]) {
			const char *h = method_hash(s->cx, j->commit);

			if (!h[0]) {
				s->cx->methods_unchecked++;
				if (sum)
					sum->unchecked++;
			} else if (strcmp(h, j->mhash) != 0) {
				char why[200];

				snprintf(why, sizeof why, "method.hash is not "
				    "the hash of commit %.12s in methods/",
				    j->commit);
				report_bad(s, j->where, j->id, why);
				continue;
			}
		} else {
			s->cx->methods_unchecked++;
			if (sum)
				sum->unchecked++;
		}
		keep_loose(s, j);
		s->ok++;
	}
	free_jobs(jobs, n);
}

/* The batch checked meanwhile, finished. */
static void
finish_pending(struct scanner *s)
{
	if (!s->pend)
		return;
	jobs_wait(&s->pool);
	s->in_flush++;
	finish_batch(s, s->pend, s->npend);
	s->in_flush--;
	s->npend = 0;
	if (s->later.len) {
		fwrite(s->later.p, 1, s->later.len, s->out);
		ar_buf_clear(&s->later);
	}
}

/* A full batch: the one before it is finished, then this one is checked
 * on every core but this one, which reads the next. */
static void
flush_verify(struct scanner *s)
{
	struct job *t;

	finish_pending(s);
	if (!s->n)
		return;
	if (!s->pend)
		s->pend = ar_xmalloc(BATCH * sizeof *s->pend);
	t = s->pend;
	s->pend = s->jobs;
	s->jobs = t;
	s->npend = s->n;
	s->n = 0;
	jobs_start(&s->pool, &s->cx->camp, signer(s->cx), s->pend,
	    s->npend);
}

int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether a problem was found in the segment at path (a row of it, or
 * its index). */
static int
bad_in(const struct scanner *s, const char *path)
{
	size_t i, n = strlen(path);

	for (i = 0; i < s->nbadwhere; i++)
		if (strncmp(s->badwhere[i], path, n) == 0 &&
		    (s->badwhere[i][n] == '\0' || s->badwhere[i][n] == ':'))
			return 1;
	return 0;
}

/* One sorted list of ids in the merge that finds ids stored twice: the
 * ids of the rows read (strings), or a sealed segment's index (lines). */
struct idlist {
	char **v;            /* strings, or NULL for lines */
	size_t i, n;
	const char *p, *end; /* lines: the rest of the index */
	const char *id;      /* the current id, len bytes */
	size_t len;
};

static int
idl_next(struct idlist *l)
{
	const char *nl;

	if (l->v) {
		if (l->i == l->n)
			return 0;
		l->id = l->v[l->i++];
		l->len = strlen(l->id);
		return 1;
	}
	if (l->p >= l->end || !(nl = memchr(l->p, '\n', (size_t)(l->end -
	    l->p))))
		return 0;
	l->id = l->p;
	l->len = (size_t)(nl - l->p);
	l->p = nl + 1;
	return 1;
}

/* The order of strcmp(3), on ids that are not strings. */
static int
idcmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : (an > bn) - (an < bn);
}

static int
idl_less(const struct idlist *a, const struct idlist *b)
{
	return idcmp(a->id, a->len, b->id, b->len) < 0;
}

static void
heap_down(struct idlist **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct idlist *t;

		if (l < n && idl_less(h[l], h[m]))
			m = l;
		if (l + 1 < n && idl_less(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Ids stored twice: the sorted ids of the rows read and the indexes of
 * the sealed segments not read (each sorted, as written), merged with a
 * heap. An id is named once however often it is stored. */
static void
find_twice(struct scanner *s)
{
	const struct ar_ledger *led = &s->cx->led;
	size_t nl = s->nskipped + 1, nh = 0, i, plen = 0;
	struct idlist *lists = ar_xcalloc(nl, sizeof *lists);
	struct idlist **h = ar_xmalloc(nl * sizeof *h);
	const char *prev = NULL;
	int named = 0;

	lists[0].v = s->ids;
	lists[0].n = s->nids;
	for (i = 0; i < s->nskipped; i++) {
		lists[i + 1].p = led->seg[s->skipped[i]].idx;
		lists[i + 1].end = lists[i + 1].p + led->seg[s->skipped[i]].idxlen;
	}
	for (i = 0; i < nl; i++)
		if (idl_next(&lists[i]))
			h[nh++] = &lists[i];
	for (i = nh; i-- > 0;)
		heap_down(h, nh, i);
	while (nh) {
		struct idlist *l = h[0];

		if (prev && idcmp(prev, plen, l->id, l->len) == 0) {
			if (!named) {
				char id[AR_ID_MAX + 1];

				snprintf(id, sizeof id, "%.*s", (int)l->len,
				    l->id);
				report_bad(s, led->dir, id, "the same id is "
				    "stored twice");
				push_str(&s->badids, &s->nbadids,
				    &s->capbadids, id);
				named = 1;
			}
		} else
			named = 0;
		prev = l->id;
		plen = l->len;
		if (!idl_next(l))
			h[0] = h[--nh];
		heap_down(h, nh, 0);
	}
	free(h);
	free(lists);
}

/* Whether an index lists its ids in strictly increasing order, as a
 * segment is written: a seal vouches for the order find_twice needs. */
static int
idx_sorted(const struct ar_seg *seg)
{
	struct idlist l;
	const char *prev = NULL;
	size_t plen = 0;

	memset(&l, 0, sizeof l);
	l.p = seg->idx;
	l.end = seg->idx + seg->idxlen;
	while (idl_next(&l)) {
		if (prev && idcmp(prev, plen, l.id, l.len) >= 0)
			return 0;
		prev = l.id;
		plen = l.len;
	}
	return 1;
}

/* export -A: an id after the cut that is also stored before it is an id
 * stored twice, found through the segments' indexes. */
static void
twice_across_cut(struct scanner *s, const char *id)
{
	const struct ar_ledger *led = &s->cx->led;

	if (ar_ledger_in_segments_upto(led, id, (unsigned long)s->after)) {
		report_bad(s, led->dir, id, "the same id is stored twice");
		push_str(&s->badids, &s->nbadids, &s->capbadids, id);
	}
}

/* Before twice_across_cut: the segments up to the cut whose range meets
 * the ids after it have their indexes mapped, the others are passed by
 * their range (a thousand segments before a new one). */
static void
prepare_cut(struct scanner *s)
{
	struct ar_ledger *led = &s->cx->led;
	char err[1024], *lo = NULL, *hi = NULL;
	size_t i;

	for (i = 0; i < s->nids; i++) {
		if (!s->idseg[i])
			continue;
		if (!lo || strcmp(s->ids[i], lo) < 0)
			lo = s->ids[i];
		if (!hi || strcmp(s->ids[i], hi) > 0)
			hi = s->ids[i];
	}
	for (i = 0; i < s->nskipped; i++) {
		const struct ar_seg *g = &led->seg[s->skipped[i]];
		char *a, *b;

		if (!g->idx || !g->lolen)
			continue;
		a = ar_xasprintf("%.*s", (int)g->lolen, g->idx);
		b = ar_xasprintf("%.*s", (int)g->hilen, g->idx + g->hioff);
		if (!lo || strcmp(a, lo) < 0) {
			free(s->cut_lo);
			lo = s->cut_lo = ar_xstrdup(a);
		}
		if (!hi || strcmp(b, hi) > 0) {
			free(s->cut_hi);
			hi = s->cut_hi = ar_xstrdup(b);
		}
		free(a);
		free(b);
	}
	if (lo && ar_ledger_prepare(led, (unsigned long)s->after, lo, hi, err,
	    sizeof err) < 0)
		ar_die(scan_exit(errno), "%s", err);
}

/* Runs the checks over the whole ledger; prints bad rows as TSV on
 * stdout when print is set, and leaves in s, sorted, where the bad rows
 * are and which ids are stored twice. */
void
verify_all(struct lctx *cx, struct scanner *s, int print)
{
	char err[1024];
	unsigned long cut;
	unsigned char *want;
	size_t i;

	s->cx = cx;
	s->out = print ? stdout : NULL;
	s->jobs = ar_xmalloc(BATCH * sizeof *s->jobs);
	s->flush = flush_verify;
	cut = s->after > 0 ? (unsigned long)s->after : 0;
	/* Nothing after the cut (a decision with its summary current):
	 * no index is read. */
	/* With a cut, the indexes after it (their rows are checked against
	 * them); those before are looked up by range (twice_across_cut). */
	if (ar_ledger_needs_map(&cx->led, cut) && (cut ?
	    ar_ledger_map_after(&cx->led, cut, err, sizeof err) :
	    ar_ledger_map(&cx->led, err, sizeof err)) < 0)
		ar_die(scan_exit(errno), "%s", err);
	s->nsealed = s->nsums = cx->led.nseg;
	s->sealed = ar_xcalloc(s->nsealed ? s->nsealed : 1, 1);
	s->sums = ar_xcalloc(s->nsums ? s->nsums : 1, sizeof *s->sums);
	if (s->trust_seals) {
		segseal_check_all(cx, cut, s->sealed, s->sums);
		if (!s->loose_loaded)
			looseseal_load(cx, &s->loose);
	}
	if (ar_ledger_scan_skip(&cx->led, cut, s->trust_seals ? skip_sealed :
	    NULL, collect, s, err, sizeof err) != 0)
		ar_die(scan_exit(errno), "%s", err);
	flush_verify(s);
	finish_pending(s);
	check_index(s);
	/* A segment checked row by row and found good is sealed, so that
	 * the next verify or export -V need not check it again. */
	want = ar_xcalloc(cx->led.nseg ? cx->led.nseg : 1, 1);
	for (i = 0; i < cx->led.nseg && i < s->nsums; i++)
		want[i] = (i < s->nsealed && s->sealed[i] == SEAL_STALE) ||
		    (!(i < s->nsealed && s->sealed[i]) &&
		    ar_ledger_seg_number(cx->led.seg[i].path) > cut &&
		    s->sums[i].rows && !bad_in(s, cx->led.seg[i].path) &&
		    idx_sorted(&cx->led.seg[i]));
	segseal_write_all(cx, want, s->sums);
	free(want);
	looseseal_write(cx, &s->loose);
	if (s->after > 0)
		prepare_cut(s);
	for (i = 0; s->after > 0 && i < s->nids; i++)
		if (s->idseg[i])
			twice_across_cut(s, s->ids[i]);
	for (i = 0; s->after > 0 && i < s->nskipped; i++) {
		struct idlist l;

		memset(&l, 0, sizeof l);
		l.p = cx->led.seg[s->skipped[i]].idx;
		l.end = l.p + cx->led.seg[s->skipped[i]].idxlen;
		while (idl_next(&l)) {
			char id[AR_ID_MAX + 1];

			snprintf(id, sizeof id, "%.*s", (int)l.len, l.id);
			twice_across_cut(s, id);
		}
	}
	ar_sort(s->ids, s->nids, sizeof *s->ids, cmp_str);
	find_twice(s);
	free(s->sealed);
	s->sealed = NULL;
	ar_sort(s->badids, s->nbadids, sizeof *s->badids, cmp_str);
	ar_sort(s->badwhere, s->nbadwhere, sizeof *s->badwhere, cmp_str);
	free(s->jobs);
	free(s->pend);
	s->pend = NULL;
	free_hdrs(s);
}

void
free_scanner(struct scanner *s)
{
	size_t i;

	for (i = 0; i < s->nids; i++)
		free(s->ids[i]);
	free(s->ids);
	free(s->idseg);
	free(s->cut_lo);
	free(s->cut_hi);
	for (i = 0; i < s->nbadids; i++)
		free(s->badids[i]);
	free(s->badids);
	for (i = 0; i < s->nbadwhere; i++)
		free(s->badwhere[i]);
	free(s->badwhere);
	free(s->sums);
	free(s->skipped);
	ar_buf_free(&s->seg_ids);
	ar_buf_free(&s->later);
	looseseal_free(&s->loose);
}

int
cmd_verify(struct lctx *cx, int strict, int full)
{
	struct scanner s;

	memset(&s, 0, sizeof s);
	s.strict = strict;
	s.after = -1;
	/* A segment whose seal holds was checked when it was sealed, and
	 * has not changed by a byte since: -F checks it all the same. */
	s.trust_seals = !full;
	printf("where\tid\tproblem\n");
	verify_all(cx, &s, 1);
	ar_warn("%zu rows: %zu verified, %zu unsigned (imported); %zu "
	    "problem%s", s.total, s.ok, s.unsigned_, s.bad, s.bad == 1 ? "" :
	    "s");
	/* Said only where methods/ holds commits at all: an empty one
	 * means the methods live elsewhere, and there is nothing to say. */
	if (cx->methods_unchecked && methods_in_repo(cx))
		ar_warn("%zu verified rows name a method that is not a commit "
		    "of methods/: its hash was not recomputed",
		    cx->methods_unchecked);
	free_scanner(&s);
	return s.bad ? AR_EX_NO : AR_EX_OK;
}
