/* imports.c: karpathy/autoresearch's results.tsv and pi-autoresearch's
 * autoresearch.jsonl, read into one neutral form; imports.h states the
 * rule. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "imports.h"
#include "io.h"
#include "json.h"
#include "tsv.h"

static const char *const status_name[] = { "keep", "discard", "crash",
	"checks_failed" };

int
ar_import_kind(const char *name)
{
	if (strcmp(name, "autoresearch") == 0)
		return AR_IMPORT_AUTORESEARCH;
	if (strcmp(name, "pi") == 0)
		return AR_IMPORT_PI;
	return -1;
}

/* Lower is better for errors, losses, distances, times and sizes: the
 * endings of the metric names peers log (val_bpb, primary_rmse,
 * latency_ms, val_fid). */
int
ar_import_lower_by_name(const char *m)
{
	static const char *const end[] = { "bpb", "bpc", "loss", "ppl",
	    "perplexity", "nll", "mse", "mae", "mape", "err", "error", "wer",
	    "cer", "fid", "latency", "time", "seconds", "_ms", "_us", "_ns",
	    "\xc2\xb5s", "bytes", "_mb", "_gb", NULL };
	size_t n = strlen(m), k, i;

	for (i = 0; end[i]; i++) {
		k = strlen(end[i]);
		if (n >= k && strcasecmp(m + n - k, end[i]) == 0)
			return 1;
	}
	return 0;
}

static int
fail(struct ar_import_err *e, int kind, size_t lineno, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail(struct ar_import_err *e, int kind, size_t lineno, const char *fmt, ...)
{
	va_list ap;

	e->kind = kind;
	e->lineno = lineno;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* A field that must be a finite number. */
static int
number(struct ar_import_err *e, const char *name, size_t lineno,
    const char *field, const char *s, double *v)
{
	if (ar_parse_double(s, v) == 0)
		return 0;
	snprintf(e->field, sizeof e->field, "%s", field);
	snprintf(e->value, sizeof e->value, "%s", s);
	return fail(e, AR_IMPORT_E_NUMBER, lineno, "%s: line %zu: %s '%s' is "
	    "not a finite number", name, lineno, e->field, e->value);
}

/* A field that must be one of a list. */
static int
bad_value(struct ar_import_err *e, const char *name, size_t lineno,
    const char *field, const char *s, const char *expected)
{
	snprintf(e->field, sizeof e->field, "%s", field);
	snprintf(e->value, sizeof e->value, "%s", s);
	snprintf(e->expected, sizeof e->expected, "%s", expected);
	return fail(e, AR_IMPORT_E_VALUE, lineno, "%s: line %zu: %s '%s': "
	    "expected %s", name, lineno, e->field, e->value, e->expected);
}

/* A name the rows share (metric, session), owned by imp: a later
 * config line never frees what an earlier row points to. */
static const char *
keep_str(struct ar_import *imp, const char *s)
{
	if (imp->nstr && strcmp(imp->str[imp->nstr - 1], s) == 0)
		return imp->str[imp->nstr - 1];
	imp->str = ar_xrealloc(imp->str, (imp->nstr + 1) * sizeof *imp->str);
	imp->str[imp->nstr] = ar_xstrdup(s);
	return imp->str[imp->nstr++];
}

static struct ar_import_row *
new_row(struct ar_import *imp, size_t *cap, size_t lineno)
{
	struct ar_import_row *r;

	if (imp->nrow == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		imp->row = ar_xrealloc(imp->row, *cap * sizeof *imp->row);
	}
	r = &imp->row[imp->nrow++];
	memset(r, 0, sizeof *r);
	r->lineno = lineno;
	r->value = r->logged = r->memory_gb = r->finished = NAN;
	return r;
}

static char *
dup_or_null(const char *s)
{
	return s ? ar_xstrdup(s) : NULL;
}

/* A run's status: a known one in any case, else its own ("tentative",
 * "REVERT"), kept as written. -1 for an empty one. */
static int
set_status(struct ar_import_row *w, const char *st, int nknown)
{
	int s;

	if (!*st)
		return -1;
	for (s = 0; s < nknown && strcasecmp(st, status_name[s]); s++)
		;
	w->status = s < nknown ? s : AR_IMPORT_OTHER;
	w->status_text = s < nknown && strcmp(st, status_name[s]) == 0 ?
	    status_name[s] : ar_xstrdup(st);
	return 0;
}

static int
owns_status(const struct ar_import_row *w)
{
	size_t s;

	for (s = 0; s < sizeof status_name / sizeof *status_name; s++)
		if (w->status_text == status_name[s])
			return 0;
	return w->status_text != NULL;
}

/* ---- karpathy/autoresearch results.tsv ---- */

/* The columns a results.tsv row is made of. */
enum { C_COMMIT, C_METRIC, C_MEM, C_STATUS, C_DESC, C_N };

/* The names each column goes by in the logs of autoresearch's forks, in
 * the order they are looked for, in any case: the first found is it. */
static const char *const commit_names[] = { "commit", "git_commit",
	"commit_hash", "commit_sha", NULL };
static const char *const status_names[] = { "status", "decision",
	"verdict", "outcome", NULL };

static int
col_named(char *const *hdr, size_t n, const char *const *names)
{
	size_t i;

	for (; *names; names++)
		for (i = 0; i < n; i++)
			if (strcasecmp(hdr[i], *names) == 0)
				return (int)i;
	return -1;
}

void
ar_import_roles(char *const *hdr, size_t n, int *c)
{
	static const char *const mem[] = { "memory_gb", NULL };
	static const char *const desc[] = { "description", NULL };

	c[AR_IMPORT_COL_COMMIT] = col_named(hdr, n, commit_names);
	c[AR_IMPORT_COL_MEM] = col_named(hdr, n, mem);
	c[AR_IMPORT_COL_STATUS] = col_named(hdr, n, status_names);
	c[AR_IMPORT_COL_DESC] = col_named(hdr, n, desc);
}

/* Whether a column's name says it names or dates a run, not measures it
 * (exp_id, iter, round, timestamp): its numbers are never the metric. */
static int
names_a_run(const char *h)
{
	static const char *const is[] = { "id", "run", "exp", "experiment",
		"trial", "iter", "iteration", "step", "round", "gen",
		"generation", "cycle", "phase", "stage", "version", "attempt",
		"epoch", "epochs", "index", "idx", "seed", "tag", "name",
		"timestamp", "date", "datetime", "parent", NULL };
	static const char *const end[] = { "_id", "_at", "_date", "_commit",
		"_hash", "_sha", "_ref", "_name", NULL };
	size_t n = strlen(h), k;
	int i;

	for (i = 0; is[i]; i++)
		if (strcasecmp(h, is[i]) == 0)
			return 1;
	for (i = 0; end[i]; i++) {
		k = strlen(end[i]);
		if (n > k && strcasecmp(h + n - k, end[i]) == 0)
			return 1;
	}
	return strncasecmp(h, "git_", 4) == 0;
}

/* The words logs write for a value they do not have: NA, N/A, NaN,
 * null, None, -, ?, in any case. The field is missing, as an empty one. */
static int
placeholder(const char *s)
{
	static const char *const w[] = { "na", "n/a", "nan", "null", "none",
		"-", "?", NULL };
	int i;

	for (i = 0; w[i]; i++)
		if (strcasecmp(s, w[i]) == 0)
			return 1;
	return 0;
}

/* A word where a number goes (DIVERGED, OOM), not a mistyped number
 * (1.0o5, 0x10): it starts with a letter. */
static int
is_word(const char *s)
{
	return (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z');
}

/* One row of a results.tsv, held until the columns are chosen. */
struct tsvrow {
	size_t lineno;
	char **f;
};

/* Whether column i may be the metric: a number in some row, and in no
 * kept row anything but a number, a placeholder or nothing. */
static int
metric_like(const struct tsvrow *rows, size_t nrow, int status, size_t i)
{
	size_t r, nnum = 0;
	double v;

	for (r = 0; r < nrow; r++) {
		const char *x = rows[r].f[i];

		if (!*x || placeholder(x))
			continue;
		if (ar_parse_double(x, &v) == 0)
			nnum++;
		else if (strcasecmp(rows[r].f[status], "keep") == 0)
			return 0;
	}
	return nnum > 0;
}

static int
tsv_header(struct ar_import *imp, const struct ar_tsv *t, const char *name,
    const struct ar_import_opt *o, const struct tsvrow *rows, size_t nrow,
    int *c, struct ar_import_err *e)
{
	int role[AR_IMPORT_NCOL], k, pass;
	size_t i;

	ar_import_roles(t->hdr, t->ncol, role);
	c[C_COMMIT] = role[AR_IMPORT_COL_COMMIT];
	c[C_METRIC] = -1;
	c[C_MEM] = role[AR_IMPORT_COL_MEM];
	c[C_STATUS] = role[AR_IMPORT_COL_STATUS];
	c[C_DESC] = role[AR_IMPORT_COL_DESC];
	if (c[C_STATUS] < 0) {
		double v;

		for (i = 0; i < t->ncol; i++)
			if (ar_parse_double(t->hdr[i], &v) == 0)
				return fail(e, AR_IMPORT_E_ROW, 0, "%s: header: no "
				    "'status' column (no header line? the first "
				    "line is a row)", name);
		return fail(e, AR_IMPORT_E_ROW, 0, "%s: header: no 'status' "
		    "column (a results.tsv has commit, val_bpb, memory_gb, "
		    "status, description; decision, verdict or outcome may "
		    "stand for status)", name);
	}
	if (o && o->metric) {
		if ((c[C_METRIC] = ar_tsv_col(t, o->metric)) < 0)
			return fail(e, AR_IMPORT_E_ROW, 0, "%s: header: no '%s' "
			    "column (-m)", name, o->metric);
		for (k = 0; k < C_N; k++)
			if (k != C_METRIC && c[k] == c[C_METRIC])
				return fail(e, AR_IMPORT_E_ROW, 0, "%s: header: "
				    "'%s' is not a metric (-m)", name,
				    o->metric);
	} else if ((c[C_METRIC] = ar_tsv_col(t, "val_bpb")) < 0) {
		/* The first column of no other use that holds the numbers
		 * of a metric and is not named for a run's id or time;
		 * failing that, the first of no other use, which its rows
		 * then show is no metric. */
		for (pass = 0; pass < 2 && c[C_METRIC] < 0; pass++)
			for (i = 0; i < t->ncol && c[C_METRIC] < 0; i++) {
				for (k = 0; k < C_N && c[k] != (int)i; k++)
					;
				if (k == C_N && (pass == 1 ||
				    (!names_a_run(t->hdr[i]) && metric_like(rows,
				    nrow, c[C_STATUS], i))))
					c[C_METRIC] = (int)i;
			}
	}
	if (c[C_METRIC] < 0)
		return fail(e, AR_IMPORT_E_ROW, 0, "%s: header: no metric "
		    "column (a results.tsv has commit, val_bpb, memory_gb, "
		    "status, description)", name);
	imp->metric = keep_str(imp, t->hdr[c[C_METRIC]]);
	imp->lower = o && o->lower >= 0 ? o->lower :
	    ar_import_lower_by_name(imp->metric);
	imp->col = ar_xcalloc(t->ncol + 1, sizeof *imp->col);
	for (i = 0; i < t->ncol; i++)
		imp->col[i] = ar_xstrdup(t->hdr[i]);
	imp->ncol = t->ncol;
	return 0;
}

static void
add_extra(struct ar_import_row *w, const char *name, const char *text)
{
	w->extra[w->nextra].name = name;
	w->extra[w->nextra++].text = ar_xstrdup(text);
}

static int
tsv_row(struct ar_import *imp, const struct tsvrow *row, const char *name,
    const int *c, struct ar_import_row *w, struct ar_import_err *e)
{
	const char *f[C_N], *text[2] = { NULL, NULL };
	struct ar_buf id = {0};
	size_t i, lineno = row->lineno;
	int k;

	for (k = 0; k < C_N; k++)
		f[k] = c[k] >= 0 ? row->f[c[k]] : "";
	if (set_status(w, f[C_STATUS], AR_IMPORT_CHECKS_FAILED) < 0)
		return fail(e, AR_IMPORT_E_ROW, lineno, "%s: line %zu: "
		    "empty status", name, lineno);
	/* NA and its kin are no value; nor is a word (DIVERGED) in a run
	 * that was not kept. Either is kept as an extra of the column's
	 * name, as written, so that the export writes it back. */
	if (placeholder(f[C_METRIC]) || (w->status != AR_IMPORT_KEEP &&
	    is_word(f[C_METRIC])))
		text[0] = f[C_METRIC];
	else if (*f[C_METRIC] && number(e, name, lineno, imp->metric,
	    f[C_METRIC], &w->logged) < 0)
		return -1;
	if (isnan(w->logged) && w->status == AR_IMPORT_KEEP)
		return fail(e, AR_IMPORT_E_ROW, lineno, "%s: line %zu: a "
		    "kept run without a metric", name, lineno);
	if (placeholder(f[C_MEM]))
		text[1] = f[C_MEM];
	else if (*f[C_MEM] && number(e, name, lineno, "memory_gb", f[C_MEM],
	    &w->memory_gb) < 0)
		return -1;
	/* karpathy/autoresearch writes 0 for a crash's figures: none. */
	if (w->status == AR_IMPORT_CRASH && w->memory_gb == 0)
		w->memory_gb = NAN;
	w->value = w->status == AR_IMPORT_CRASH ? NAN : w->logged;
	w->metric = imp->metric;
	w->lower = imp->lower;
	w->session_no = 1;
	w->commit = *f[C_COMMIT] ? ar_xstrdup(f[C_COMMIT]) : NULL;
	w->description = c[C_DESC] >= 0 ? ar_xstrdup(f[C_DESC]) : NULL;
	ar_buf_printf(&id, "%s\t%s\t%s\t%s\t%s", f[C_COMMIT], f[C_METRIC],
	    f[C_MEM], f[C_STATUS], f[C_DESC]);
	w->extra = ar_xcalloc(imp->ncol + 3, sizeof *w->extra);
	for (i = 0; i < imp->ncol; i++) {
		for (k = 0; k < C_N && c[k] != (int)i; k++)
			;
		if (k < C_N || !row->f[i][0])
			continue;
		add_extra(w, imp->col[i], row->f[i]);
		ar_buf_printf(&id, "\t%s=%s", imp->col[i], row->f[i]);
	}
	for (k = 0; k < 2; k++)
		if (text[k])
			add_extra(w, imp->col[c[k ? C_MEM : C_METRIC]], text[k]);
	w->ident = ar_xstrdup(id.p);
	ar_buf_free(&id);
	return 0;
}

static void
free_rows(struct tsvrow *rows, size_t nrow, size_t ncol)
{
	size_t r, i;

	for (r = 0; r < nrow; r++) {
		for (i = 0; i < ncol; i++)
			free(rows[r].f[i]);
		free(rows[r].f);
	}
	free(rows);
}

/* The rows are all read before the columns are chosen, since a metric
 * is known by its values as much as by its name. */
static int
read_tsv(struct ar_import *imp, FILE *f, const char *name,
    const struct ar_import_opt *o, struct ar_import_err *e)
{
	struct ar_tsv t;
	struct tsvrow *rows = NULL;
	size_t nrow = 0, cap = 0, rcap = 0, r, i;
	int c[C_N], got, ret = -1;

	if (ar_tsv_open_raw(&t, f, name, 1) < 0) {
		fail(e, AR_IMPORT_E_FORMAT, t.lineno, "%s", t.err);
		ar_tsv_close(&t);
		return -1;
	}
	while ((got = ar_tsv_next(&t)) == 1) {
		if (nrow == rcap) {
			rcap = rcap ? 2 * rcap : 64;
			rows = ar_xrealloc(rows, rcap * sizeof *rows);
		}
		rows[nrow].lineno = t.lineno;
		rows[nrow].f = ar_xmalloc(t.ncol * sizeof *rows[nrow].f);
		for (i = 0; i < t.ncol; i++)
			rows[nrow].f[i] = ar_xstrdup(t.field[i]);
		nrow++;
	}
	if (got < 0) {
		fail(e, AR_IMPORT_E_FORMAT, t.lineno, "%s", t.err);
		goto out;
	}
	if (tsv_header(imp, &t, name, o, rows, nrow, c, e) < 0)
		goto out;
	for (r = 0; r < nrow; r++) {
		if (tsv_row(imp, &rows[r], name, c, new_row(imp, &cap,
		    rows[r].lineno), e) < 0)
			goto out;
		imp->nsession = 1;
	}
	ret = 0;
out:
	free_rows(rows, nrow, t.ncol);
	ar_tsv_close(&t);
	return ret;
}

int
ar_import_std_header(const struct ar_import *imp, const char *metric)
{
	static const char *const std[5] = { "commit", NULL, "memory_gb",
	    "status", "description" };
	size_t i;

	if (imp->ncol != 5)
		return 0;
	for (i = 0; i < 5; i++)
		if (strcmp(imp->col[i], std[i] ? std[i] : metric))
			return 0;
	return 1;
}

/* ---- pi-autoresearch autoresearch.jsonl ---- */

/* The settings of the last config line, as copies: rows keep pointers to
 * them through imp. */
struct pi_config {
	const char *metric, *session;
	int lower;
	size_t number;       /* the session's, from 1 */
	int runs;            /* the session has runs */
};

static int
pi_config(struct ar_import *imp, struct pi_config *cf, json_t *o,
    const char *name, size_t lineno, struct ar_import_err *e)
{
	const char *m = json_string_value(json_object_get(o, "metricName"));
	const char *d = json_string_value(json_object_get(o, "bestDirection"));
	const char *s = json_string_value(json_object_get(o, "name"));

	if (d && strcmp(d, "lower") && strcmp(d, "higher"))
		return bad_value(e, name, lineno, "bestDirection", d, "lower "
		    "or higher");
	/* A config line after runs starts a new session; config lines in a
	 * row make one. */
	if (cf->runs) {
		cf->number++;
		cf->runs = 0;
	}
	if (m)
		cf->metric = keep_str(imp, m);
	if (d)
		cf->lower = strcmp(d, "lower") == 0;
	if (s)
		cf->session = keep_str(imp, s);
	return 0;
}

static int
pi_run(const struct pi_config *cf, json_t *o,
    const struct ar_buf *line, const char *name, size_t lineno,
    struct ar_import_row *w, struct ar_import_err *e)
{
	const char *st = json_string_value(json_object_get(o, "status")), *k;
	json_t *v, *ms, *m;
	int s;
	size_t n;

	if (!st)
		return fail(e, AR_IMPORT_E_ROW, lineno, "%s: line %zu: run "
		    "without a status", name, lineno);
	if (set_status(w, st, AR_IMPORT_OTHER) < 0)
		return fail(e, AR_IMPORT_E_ROW, lineno, "%s: line %zu: empty "
		    "status", name, lineno);
	s = w->status;
	v = json_object_get(o, "metric");
	if (json_is_number(v))
		w->logged = json_number_value(v);
	else if (v && !json_is_null(v))
		return fail(e, AR_IMPORT_E_ROW, lineno, "%s: line %zu: metric "
		    "is not a number", name, lineno);
	else if (s == AR_IMPORT_KEEP)
		return fail(e, AR_IMPORT_E_ROW, lineno, "%s: line %zu: a kept "
		    "run without a metric", name, lineno);
	w->value = s == AR_IMPORT_CRASH ? NAN : w->logged;
	ms = json_object_get(o, "metrics");
	w->metrics = ar_xcalloc(json_object_size(ms) + 1, sizeof *w->metrics);
	n = 0;
	json_object_foreach(ms, k, m) {
		if (!json_is_number(m))
			return fail(e, AR_IMPORT_E_ROW, lineno, "%s: line %zu: "
			    "metrics.%s is not a number", name, lineno, k);
		w->metrics[n].name = ar_xstrdup(k);
		w->metrics[n++].value = json_number_value(m);
		w->nmetrics = n;
	}
	v = json_object_get(o, "asi");
	if (v && !json_is_null(v))
		w->asi = ar_json_line(v);
	w->ident = ar_xstrdup(line->p);
	w->metric = cf->metric;
	w->lower = cf->lower;
	w->session = cf->session;
	w->session_no = cf->number;
	w->commit = dup_or_null(json_string_value(json_object_get(o,
	    "commit")));
	w->description = dup_or_null(json_string_value(json_object_get(o,
	    "description")));
	v = json_object_get(o, "run");
	if (json_is_integer(v)) {
		w->run.kind = AR_IMPORT_INT;
		w->run.i = (long long)json_integer_value(v);
		w->run.d = (double)w->run.i;
	} else if (json_is_real(v) && fabs(json_real_value(v)) < 0x1p53 &&
	    json_real_value(v) == floor(json_real_value(v))) {
		/* A line read again with its integers as doubles
		 * (parse_line): its run number is still one. */
		w->run.kind = AR_IMPORT_INT;
		w->run.d = json_real_value(v);
		w->run.i = (long long)w->run.d;
	}
	v = json_object_get(o, "confidence");
	if (json_is_integer(v)) {
		w->confidence.kind = AR_IMPORT_INT;
		w->confidence.i = (long long)json_integer_value(v);
		w->confidence.d = (double)w->confidence.i;
	} else if (json_is_real(v)) {
		w->confidence.kind = AR_IMPORT_REAL;
		w->confidence.d = json_real_value(v);
	}
	v = json_object_get(o, "timestamp");
	if (json_is_number(v)) {
		double t = json_number_value(v);

		/* pi writes seconds or milliseconds. */
		t = t > 1e11 ? t / 1000 : t;
		/* An instant RFC 3339 can write: 1970 to the end of 9999,
		 * which a time_t holds too. */
		if (!(t >= 0 && t < AR_IMPORT_TIME_MAX)) {
			char s[64];

			snprintf(s, sizeof s, "%.15g", json_number_value(v));
			return bad_value(e, name, lineno, "timestamp", s,
			    "seconds or milliseconds since 1970, before "
			    "year 10000");
		}
		w->finished = t;
	}
	return 0;
}

/* A pi line: JSON. An integer past 64 bits (a u64 counter that wrapped,
 * 18446744073709496000) is no reason to refuse a whole log: such a
 * line is read again with every integer as a double. */
static json_t *
parse_line(const struct ar_buf *line, char *err, size_t errlen)
{
	json_t *o = ar_json_parse(line->p, line->len, err, errlen);

	if (!o && strstr(err, "too big integer"))
		o = ar_json_parse_flags(line->p, line->len,
		    JSON_DECODE_INT_AS_REAL, err, errlen);
	return o;
}

static int
read_pi(struct ar_import *imp, FILE *f, const char *name,
    struct ar_import_err *e)
{
	struct ar_buf line = {0};
	struct pi_config cf;
	size_t lineno = 0, cap = 0;
	char err[256];
	int r = 0;

	/* pi-autoresearch's own defaults. */
	cf.metric = keep_str(imp, "metric");
	cf.session = NULL;
	cf.lower = 1;
	cf.number = 1;
	cf.runs = 0;
	while (r == 0 && ar_jsonl_line_crlf(f, name, &line, &lineno)) {
		json_t *o = parse_line(&line, err, sizeof err);
		const char *type;

		if (!o)
			r = fail(e, AR_IMPORT_E_FORMAT, lineno, "%s: line %zu: "
			    "%s", name, lineno, err);
		else if (!json_is_object(o))
			r = fail(e, AR_IMPORT_E_FORMAT, lineno, "%s: line %zu: "
			    "not a JSON object", name, lineno);
		else if ((type = json_string_value(json_object_get(o,
		    "type"))) && strcmp(type, "config") == 0)
			r = pi_config(imp, &cf, o, name, lineno, e);
		else if (type || !json_object_get(o, "run"))
			/* Hook and other records carry no measurement. */
			imp->skipped++;
		else {
			r = pi_run(&cf, o, &line, name, lineno,
			    new_row(imp, &cap, lineno), e);
			cf.runs = 1;
			imp->nsession = cf.number;
		}
		json_decref(o);
	}
	ar_buf_free(&line);
	imp->metric = cf.metric;
	imp->lower = cf.lower;
	return r;
}

int
ar_import_read(struct ar_import *imp, int from, FILE *f, const char *name,
    const struct ar_import_opt *o, struct ar_import_err *e)
{
	int r;

	memset(imp, 0, sizeof *imp);
	memset(e, 0, sizeof *e);
	imp->from = from;
	r = from == AR_IMPORT_PI ? read_pi(imp, f, name, e) :
	    read_tsv(imp, f, name, o, e);
	if (r < 0) {
		ar_import_free(imp);
		imp->from = from;
	}
	return r;
}

static void
free_row(struct ar_import_row *w)
{
	size_t j;

	free((char *)w->ident);
	free((char *)w->commit);
	free((char *)w->description);
	free(w->asi);
	if (owns_status(w))
		free((char *)w->status_text);
	for (j = 0; j < w->nextra; j++)
		free(w->extra[j].text);
	free(w->extra);
	for (j = 0; j < w->nmetrics; j++)
		free(w->metrics[j].name);
	free(w->metrics);
}

void
ar_import_keep_session(struct ar_import *imp, size_t session_no)
{
	size_t i, n = 0;

	for (i = 0; i < imp->nrow; i++) {
		if (imp->row[i].session_no == session_no)
			imp->row[n++] = imp->row[i];
		else
			free_row(&imp->row[i]);
	}
	imp->nrow = n;
}

void
ar_import_free(struct ar_import *imp)
{
	size_t i;

	for (i = 0; i < imp->nrow; i++)
		free_row(&imp->row[i]);
	free(imp->row);
	for (i = 0; i < imp->ncol; i++)
		free(imp->col[i]);
	free(imp->col);
	for (i = 0; i < imp->nstr; i++)
		free(imp->str[i]);
	free(imp->str);
	memset(imp, 0, sizeof *imp);
}
