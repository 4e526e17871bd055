/* verify.c: the whole ledger read in batches of row checks; what is
 * wrong beyond one row (a segment's index, an id stored twice); the
 * method hashes recomputed from methods/; ar-ledger verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "io.h"
#include "method.h"
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

/* The id a row is stored under: its segment's id column, or its file
 * name without ".json". Empty when neither can be read. */
static void
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
	j = &s->jobs[s->n++];
	memset(j, 0, sizeof *j);
	j->json = ar_xstrdup(r->json);
	j->len = r->jsonlen;
	j->where = where_of(r);
	j->stored = 1;
	row_fileid(r, j->fileid);
	if (r->field) {
		size_t k;

		j->h = hdr_for(s, r);
		j->cols = ar_xmalloc(r->ncol * sizeof *j->cols);
		for (k = 0; k + 1 < r->ncol; k++)
			j->cols[k] = ar_xstrdup(r->field[k]);
	}
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
	if (s->out) {
		fprintf(s->out, "%s\t%s\t", where, id);
		ar_tsv_put(s->out, why);
		putc('\n', s->out);
	}
	push_str(&s->badwhere, &s->nbadwhere, &s->capbadwhere, where);
}

/* The hash of a commit of methods/, through the cache (struct mcache). */
static const char *
method_hash(struct lctx *cx, const char *commit)
{
	char *repo;
	size_t i;

	for (i = 0; i < cx->nmc; i++)
		if (strcmp(cx->mc[i].commit, commit) == 0)
			return cx->mc[i].hash;
	if (cx->nmc == cx->capmc) {
		cx->capmc = cx->capmc ? cx->capmc * 2 : 64;
		cx->mc = ar_xrealloc(cx->mc, cx->capmc * sizeof *cx->mc);
	}
	snprintf(cx->mc[cx->nmc].commit, sizeof cx->mc[cx->nmc].commit, "%s",
	    commit);
	repo = ar_path(cx->camp.dir, "methods");
	ar_method_hash(repo, commit, cx->mc[cx->nmc].hash);
	free(repo);
	return cx->mc[cx->nmc++].hash;
}

static int
methods_in_repo(const struct lctx *cx)
{
	char *repo = ar_path(cx->camp.dir, "methods"), head[41];
	int r = ar_method_commit(repo, "HEAD", head) == 0;

	free(repo);
	return r;
}

static void
flush_verify(struct scanner *s)
{
	size_t i;

	run_jobs(&s->cx->camp, s->jobs, s->n);
	for (i = 0; i < s->n; i++) {
		struct job *j = &s->jobs[i];

		if (j->id[0]) {
			if (s->nids == s->capids) {
				s->capids = s->capids ? s->capids * 2 : 1024;
				s->ids = ar_xrealloc(s->ids, s->capids *
				    sizeof *s->ids);
			}
			s->ids[s->nids++] = ar_xstrdup(j->id);
		}
		s->total++;
		if (j->status == ST_BAD) {
			report_bad(s, j->where, j->id[0] ? j->id : j->fileid[0] ?
			    j->fileid : "-", j->why);
			continue;
		}
		if (j->status == ST_UNSIGNED) {
			s->unsigned_++;
			if (s->strict)
				report_bad(s, j->where, j->id, "unsigned "
				    "(imported) row");
			continue;
		}
		if (j->commit[0]) {
			const char *h = method_hash(s->cx, j->commit);

			if (!h[0])
				s->cx->methods_unchecked++;
			else if (strcmp(h, j->mhash) != 0) {
				char why[200];

				snprintf(why, sizeof why, "method.hash is not "
				    "the hash of commit %.12s in methods/",
				    j->commit);
				report_bad(s, j->where, j->id, why);
				continue;
			}
		} else
			s->cx->methods_unchecked++;
		s->ok++;
	}
	free_jobs(s->jobs, s->n);
	s->n = 0;
}

int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the checks over the whole ledger; prints bad rows as TSV on
 * stdout when print is set, and leaves in s, sorted, where the bad rows
 * are and which ids are stored twice. */
void
verify_all(struct lctx *cx, struct scanner *s, int print)
{
	char err[1024];
	size_t i;

	s->cx = cx;
	s->out = print ? stdout : NULL;
	s->jobs = ar_xmalloc(BATCH * sizeof *s->jobs);
	s->flush = flush_verify;
	if (ar_ledger_scan_after(&cx->led, s->after > 0 ?
	    (unsigned long)s->after : 0, collect, s, err, sizeof err) != 0)
		ar_die(scan_exit(errno), "%s", err);
	flush_verify(s);
	check_index(s);
	/* export -A: an id after the cut that is also stored before it is
	 * an id stored twice, found through the segments' indexes. */
	for (i = 0; s->after > 0 && i < s->nids; i++)
		if (ar_ledger_in_segments_upto(&cx->led, s->ids[i],
		    (unsigned long)s->after)) {
			report_bad(s, cx->led.dir, s->ids[i], "the same id is "
			    "stored twice");
			push_str(&s->badids, &s->nbadids, &s->capbadids,
			    s->ids[i]);
		}
	ar_sort(s->ids, s->nids, sizeof *s->ids, cmp_str);
	for (i = 1; i < s->nids; i++)
		if (strcmp(s->ids[i], s->ids[i - 1]) == 0 && (i == 1 ||
		    strcmp(s->ids[i], s->ids[i - 2]) != 0)) {
			report_bad(s, cx->led.dir, s->ids[i], "the same id is "
			    "stored twice");
			push_str(&s->badids, &s->nbadids, &s->capbadids,
			    s->ids[i]);
		}
	ar_sort(s->badids, s->nbadids, sizeof *s->badids, cmp_str);
	ar_sort(s->badwhere, s->nbadwhere, sizeof *s->badwhere, cmp_str);
	free(s->jobs);
	free_hdrs(s);
}

void
free_scanner(struct scanner *s)
{
	size_t i;

	for (i = 0; i < s->nids; i++)
		free(s->ids[i]);
	free(s->ids);
	for (i = 0; i < s->nbadids; i++)
		free(s->badids[i]);
	free(s->badids);
	for (i = 0; i < s->nbadwhere; i++)
		free(s->badwhere[i]);
	free(s->badwhere);
	ar_buf_free(&s->seg_ids);
}

int
cmd_verify(struct lctx *cx, int strict)
{
	struct scanner s;

	memset(&s, 0, sizeof s);
	s.strict = strict;
	s.after = -1;
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
