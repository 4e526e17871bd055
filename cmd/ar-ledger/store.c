/* store.c: ar-ledger append, which stores signed results once every one
 * is checked, and ar-ledger import, which stores the runs of another
 * tool's log, read by lib/imports, as unsigned rows (ar-ledger(5)). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "imports.h"
#include "io.h"
#include "proc.h"
#include "json.h"
#include "timefmt.h"
#include "ar-ledger.h"

static void
read_jsonl(FILE *in, const char *name, struct job **jobs, size_t *n,
    size_t *cap)
{
	struct ar_buf line = {0};
	size_t lineno = 0;

	while (ar_jsonl_line(in, name, &line, &lineno)) {
		struct job *j;

		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*jobs = ar_xrealloc(*jobs, *cap * sizeof **jobs);
		}
		j = &(*jobs)[(*n)++];
		memset(j, 0, sizeof *j);
		j->json = ar_xstrdup(line.p);
		j->len = line.len;
		j->where = ar_xasprintf("%s:%zu", name, lineno);
	}
	ar_buf_free(&line);
}

/* What append's check found of a row's method, verify's rule: its
 * commit's content has its method.hash, is not in methods/ (unchecked),
 * or has another hash (a problem verify names). */
enum { M_OK, M_UNCHECKED, M_DIFF };

static unsigned char *
method_states(struct lctx *cx, struct job *jobs, size_t n)
{
	unsigned char *ms = ar_xmalloc(n ? n : 1);
	size_t i;

	cx->mc_keep = 1;
	mcache_missing(cx, jobs, n);
	for (i = 0; i < n; i++) {
		const char *h = jobs[i].commit[0] ? method_hash(cx,
		    jobs[i].commit) : "";

		ms[i] = !h[0] ? M_UNCHECKED : strcmp(h, jobs[i].mhash) ?
		    M_DIFF : M_OK;
	}
	mcache_save(cx);
	return ms;
}

/* A segment append made holds rows it checked as verify would, and the
 * bytes it wrote: it is sealed now, so that no later read checks their
 * signatures again. Not when a row's method has another hash: verify is
 * left to name it. 0 when sealed. */
static int
seal_made(struct lctx *cx, const struct ar_seg_made *made, const int *st,
    const unsigned char *ms, size_t n)
{
	struct segsum sum;
	size_t i;

	memset(&sum, 0, sizeof sum);
	for (i = 0; i < n; i++) {
		if (st[i] != 0)
			continue;
		if (ms[i] == M_DIFF)
			return -1;
		sum.rows++;
		sum.unchecked += ms[i] == M_UNCHECKED;
	}
	for (i = 0; i < cx->led.nseg; i++)
		if (ar_ledger_seg_number(cx->led.seg[i].path) == made->num)
			return segseal_write(cx, &cx->led.seg[i], &sum,
			    made->hash);
	return -1;
}

/* The scheduler's folds of the segments just written (ar-sched fold), so
 * that its first decision on this ledger reads them, not their rows; its
 * export -V checks and seals a compacted segment's rows on the way.
 * A cache: without ar-sched beside ar-ledger nothing is done, and a fold
 * that fails is made by the first decision instead. */
void
ledger_fold(struct lctx *cx, const char *what)
{
	char *prog = ar_sibling("ar-sched");
	char *argv[] = { prog, "fold", "-C", cx->camp.dir, NULL };
	int st;

	if (ar_runnable(prog) && (st = ar_run(argv, AR_FD_NULL,
	    AR_FD_NULL)) != 0)
		ar_warn("%s: ar-sched fold -C %s %s %d: the new segments are "
		    "left unfolded (it says why)", what, cx->camp.dir,
		    st < 0 ? "failed to start, errno" : "exited", st < 0 ?
		    errno : st);
	free(prog);
}

/* Stores recs; ms, when given, is method_states of them, and the
 * segments made are sealed, then folded. seal, when given, is what the
 * check found of each: those stored loose are added to the loose seal. */
static int
store_all(struct lctx *cx, json_t **recs, size_t n, const unsigned char *ms,
    struct lent *seal, const char *what)
{
	size_t i, stored = 0, dup = 0, clash = 0, off, sealed = 0;
	size_t nseg0 = cx->led.nseg;
	int *st = ar_xmalloc((n ? n : 1) * sizeof *st);
	char err[1024];

	if (n <= LOOSE_MAX) {
		for (i = 0; i < n; i++) {
			st[i] = ar_ledger_store(&cx->led, recs[i]);
			if (st[i] < 0)
				ar_die(ar_errno_exit(errno), "%s/results: "
				    "cannot store %s:", cx->led.dir,
				    json_string_value(json_object_get(recs[i],
				    "id")));
		}
		if (seal) {
			size_t w = 0;

			/* Stored now, or by an earlier append with the same
			 * bytes; one refused is not this check's. */
			for (i = 0; i < n; i++)
				if (st[i] == 0 || st[i] == 1)
					seal[w++] = seal[i];
			looseseal_add(cx, seal, w);
		}
	} else {
		for (off = 0; off < n; off += 16384) {
			size_t m = n - off < 16384 ? n - off : 16384;
			struct ar_seg_made made;

			if (ar_ledger_add_batch(&cx->led, recs + off, m,
			    st + off, &made, err, sizeof err) < 0)
				ar_die(errno == EAGAIN ? AR_EX_TEMPFAIL :
				    ar_errno_exit(errno), "%s", err);
			if (ms && made.num && seal_made(cx, &made, st + off,
			    ms + off, m) == 0)
				sealed++;
		}
	}
	/* Sealed segments, or loose results compacted into one. */
	if (sealed || cx->led.nseg != nseg0)
		ledger_fold(cx, what);
	for (i = 0; i < n; i++) {
		if (st[i] == 0)
			stored++;
		else if (st[i] == 1)
			dup++;
		else {
			clash++;
			ar_warn("%s: id %s is stored already with other "
			    "content; not replaced", cx->led.dir,
			    json_string_value(json_object_get(recs[i], "id")));
		}
	}
	ar_warn("%s: %zu stored, %zu already there%s", what, stored, dup,
	    clash ? ", some refused" : "");
	free(st);
	return clash ? AR_EX_CANTCREAT : AR_EX_OK;
}

int
cmd_append(struct lctx *cx, int argc, char **argv)
{
	struct job *jobs = NULL;
	size_t n = 0, cap = 0, i, bad = 0;
	json_t **recs;
	struct lent *seal;
	unsigned char *ms;
	int r, malformed = 0;

	if (argc == 0)
		read_jsonl(stdin, "<stdin>", &jobs, &n, &cap);
	for (i = 0; i < (size_t)argc; i++) {
		FILE *f = fopen(argv[i], "r");

		if (!f)
			ar_die(AR_EX_NOINPUT, "%s:", argv[i]);
		read_jsonl(f, argv[i], &jobs, &n, &cap);
		fclose(f);
	}
	run_jobs(&cx->camp, NULL, jobs, n);
	for (i = 0; i < n; i++) {
		if (jobs[i].status == ST_UNSIGNED) {
			jobs[i].status = ST_BAD;
			snprintf(jobs[i].why, sizeof jobs[i].why, "not signed "
			    "(only ar-ledger import stores unsigned rows)");
		}
		if (jobs[i].status == ST_BAD) {
			if (jobs[i].malformed)
				malformed = 1;
			if (++bad <= 20)
				ar_warn("%s: %s%s%s", jobs[i].where,
				    jobs[i].id[0] ? jobs[i].id : "",
				    jobs[i].id[0] ? ": " : "", jobs[i].why);
		}
	}
	if (bad) {
		if (bad > 20)
			ar_warn("... and %zu more", bad - 20);
		ar_die(malformed ? AR_EX_DATA : AR_EX_NO, "%zu of %zu results "
		    "refused; nothing stored", bad, n);
	}
	/* Rows go to a segment, which is sealed, only past LOOSE_MAX;
	 * loose ones go to the loose seal, as an export -V would list them,
	 * by the hash of the bytes the store writes (its canonical JSON). */
	ms = n > LOOSE_MAX ? method_states(cx, jobs, n) : NULL;
	seal = n <= LOOSE_MAX ? ar_xcalloc(n ? n : 1, sizeof *seal) : NULL;
	recs = ar_xmalloc((n ? n : 1) * sizeof *recs);
	for (i = 0; i < n; i++) {
		char err[256];

		recs[i] = ar_json_parse(jobs[i].json, jobs[i].len, err,
		    sizeof err);
		if (seal && recs[i]) {
			char *canon = ar_json_canon(recs[i]);

			snprintf(seal[i].name, sizeof seal[i].name, "%s",
			    jobs[i].id);
			ar_hash_hex(seal[i].hash, canon, strlen(canon));
			snprintf(seal[i].mhash, sizeof seal[i].mhash, "%s",
			    jobs[i].mhash);
			snprintf(seal[i].commit, sizeof seal[i].commit, "%s",
			    jobs[i].commit);
			free(canon);
		}
	}
	free_jobs(jobs, n);
	free(jobs);
	r = store_all(cx, recs, n, ms, seal, "append");
	free(seal);
	free(ms);
	for (i = 0; i < n; i++)
		json_decref(recs[i]);
	free(recs);
	return r;
}

/* ---- import ---- */

static char *
import_id(const char *src, size_t lineno, const char *line)
{
	char h[AR_HASH_HEX];
	struct ar_buf b = {0};

	/* The same line of the same log always gets the same id, so a
	 * repeated import stores nothing twice; lines keep their order. */
	ar_buf_printf(&b, "%s\n%zu\n%s", src, lineno, line);
	ar_hash_hex(h, b.p, b.len);
	ar_buf_free(&b);
	return ar_xasprintf("imp-%s-%06zu-%.12s", src, lineno, h);
}

static json_t *
metric_obj(double v)
{
	return json_pack("{s:f}", "median", v);
}

/* A run's verdict: keep, discard and crash as they are, checks_failed
 * an invalid run, any other status as the log wrote it. */
static const char *
verdict_of(const struct ar_import_row *w)
{
	static const char *const v[] = { "keep", "discard", "crash",
	    "invalid" };

	return w->status == AR_IMPORT_OTHER ? w->status_text : v[w->status];
}

/* What both kinds of log share. A crash has no measurement: both tools
 * log 0 for it, which a min would take as the best. */
static json_t *
record_common(const struct ar_import_row *w, const char *src)
{
	json_t *o, *metrics = json_object();
	const char *verdict = verdict_of(w);
	char *id = import_id(src, w->lineno, w->ident);
	size_t i;

	if (w->status != AR_IMPORT_CRASH) {
		if (!isnan(w->logged))
			json_object_set_new(metrics, w->metric,
			    metric_obj(w->logged));
		for (i = 0; i < w->nmetrics; i++)
			json_object_set_new(metrics, w->metrics[i].name,
			    metric_obj(w->metrics[i].value));
	}
	if (!isnan(w->memory_gb))
		json_object_set_new(metrics, "memory_gb",
		    metric_obj(w->memory_gb));
	o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:I}",
	    "id", id, "source", src,
	    "metric", w->metric, "direction", w->lower ? "lower" : "higher",
	    "metrics", metrics, "verdict", verdict,
	    "seq", (json_int_t)w->lineno);
	free(id);
	if (!o)
		return NULL;
	if (strcmp(verdict, w->status_text) != 0)
		json_object_set_new(o, "status", json_string(w->status_text));
	if (w->commit)
		json_object_set_new(o, "method", json_pack("{s:s}", "commit",
		    w->commit));
	if (w->description)
		json_object_set_new(o, "description",
		    json_string(w->description));
	return o;
}

/* A results.tsv row as an unsigned result: its extra columns as
 * written, and its header where it is not karpathy/autoresearch's, so
 * that an export writes the log back as it was. */
static json_t *
record_autoresearch(const struct ar_import *imp,
    const struct ar_import_row *w)
{
	json_t *o = record_common(w, "autoresearch");
	size_t i;

	if (!o)
		return NULL;
	if (w->nextra) {
		json_t *x = json_object();

		for (i = 0; i < w->nextra; i++)
			json_object_set_new(x, w->extra[i].name,
			    json_string(w->extra[i].text));
		json_object_set_new(o, "extra", x);
	}
	if (!ar_import_std_header(imp, w->metric)) {
		json_t *c = json_array();

		for (i = 0; i < imp->ncol; i++)
			json_array_append_new(c, json_string(imp->col[i]));
		json_object_set_new(o, "columns", c);
	}
	return o;
}

static json_t *
number_json(const struct ar_import_num *n)
{
	return n->kind == AR_IMPORT_INT ? json_integer((json_int_t)n->i) :
	    json_real(n->d);
}

/* A pi run as an unsigned result; each session its own workload, so
 * that sessions of other metrics are never pooled. */
static json_t *
record_pi(const struct ar_import_row *w)
{
	json_t *o = record_common(w, "pi");
	char wl[48];

	if (!o)
		return NULL;
	snprintf(wl, sizeof wl, "session-%zu", w->session_no);
	json_object_set_new(o, "workload", json_string(wl));
	if (w->session && *w->session)
		json_object_set_new(o, "session", json_string(w->session));
	if (w->asi) {
		char err[256];
		json_t *a = ar_json_parse(w->asi, strlen(w->asi), err,
		    sizeof err);

		if (!a)
			ar_die(AR_EX_SOFTWARE, "asi: %s", err);
		json_object_set_new(o, "asi", a);
	}
	if (w->confidence.kind != AR_IMPORT_NONE)
		json_object_set_new(o, "confidence",
		    number_json(&w->confidence));
	if (w->run.kind != AR_IMPORT_NONE)
		json_object_set_new(o, "run", number_json(&w->run));
	if (!isnan(w->finished)) {
		struct timespec ts;
		char when[32];

		ts.tv_sec = (time_t)w->finished;
		ts.tv_nsec = 0;
		ar_time_fmt(when, sizeof when, ts, 0);
		json_object_set_new(o, "finished", json_string(when));
	}
	return o;
}

int
cmd_import(struct lctx *cx, const char *from, const char *file,
    const char *metric, int lower)
{
	struct ar_import_opt opt = { metric, lower };
	FILE *in;
	struct ar_import imp;
	struct ar_import_err e;
	json_t **recs;
	size_t i;
	int r, kind = ar_import_kind(from);

	if (!(in = fopen(file, "r")))
		ar_die(AR_EX_NOINPUT, "%s:", file);
	if (kind < 0)
		ar_die(AR_EX_USAGE, "-F %s: expected autoresearch or pi", from);
	if (ar_import_read(&imp, kind, in, file, &opt, &e) < 0)
		ar_die(AR_EX_DATA, "%s", e.msg);
	fclose(in);
	if (imp.skipped)
		ar_warn("%s: %zu lines without a run left out", file,
		    imp.skipped);
	recs = ar_xmalloc((imp.nrow ? imp.nrow : 1) * sizeof *recs);
	for (i = 0; i < imp.nrow; i++) {
		recs[i] = kind == AR_IMPORT_PI ? record_pi(&imp.row[i]) :
		    record_autoresearch(&imp, &imp.row[i]);
		if (!recs[i])
			ar_die(AR_EX_SOFTWARE, "cannot build a record");
	}
	r = store_all(cx, recs, imp.nrow, NULL, NULL, "import");
	for (i = 0; i < imp.nrow; i++)
		json_decref(recs[i]);
	free(recs);
	ar_import_free(&imp);
	return r;
}
