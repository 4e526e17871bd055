/* imports.c: karpathy/autoresearch's results.tsv and pi-autoresearch's
 * autoresearch.jsonl, read into one neutral form; imports.h states the
 * rule. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* Lower is better for a metric whose name ends in bpb or loss. */
static int
lower_by_name(const char *m)
{
	size_t n = strlen(m);

	return (n >= 3 && strcmp(m + n - 3, "bpb") == 0) ||
	    (n >= 4 && strcmp(m + n - 4, "loss") == 0);
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

/* ---- karpathy/autoresearch results.tsv ---- */

static int
read_tsv(struct ar_import *imp, FILE *f, const char *name,
    struct ar_import_err *e)
{
	static const char *const std[4] = { "commit", "memory_gb", "status",
	    "description" };
	struct ar_tsv t;
	int c[4], cm, i, r;
	size_t cap = 0;
	const char *metric;

	if (ar_tsv_open_raw(&t, f, name, 1) < 0) {
		fail(e, AR_IMPORT_E_FORMAT, t.lineno, "%s", t.err);
		ar_tsv_close(&t);
		return -1;
	}
	for (i = 0; i < 4; i++)
		c[i] = ar_tsv_col(&t, std[i]);
	/* The metric: val_bpb, else the first column of no other use. */
	if ((cm = ar_tsv_col(&t, "val_bpb")) < 0)
		for (i = 0; i < (int)t.ncol && cm < 0; i++)
			if (i != c[0] && i != c[1] && i != c[2] && i != c[3])
				cm = i;
	/* A missing column is named in the order of a results.tsv's:
	 * commit, the metric, then the others. */
	for (i = 0; i < 5; i++) {
		int j = i == 0 ? 0 : i - 1;

		if ((i == 1 ? cm : c[j]) >= 0)
			continue;
		fail(e, AR_IMPORT_E_ROW, 0, "%s: header: no '%s' column (a "
		    "results.tsv has commit, val_bpb, memory_gb, status, "
		    "description)", name, i == 1 ? "val_bpb" : std[j]);
		ar_tsv_close(&t);
		return -1;
	}
	metric = keep_str(imp, t.hdr[cm]);
	imp->metric = metric;
	imp->lower = lower_by_name(metric);
	while ((r = ar_tsv_next(&t)) == 1) {
		struct ar_import_row *w;
		const char *st = t.field[c[2]];
		double v, mem;
		int s;

		if (number(e, name, t.lineno, metric, t.field[cm], &v) < 0 ||
		    number(e, name, t.lineno, "memory_gb", t.field[c[1]],
		    &mem) < 0)
			goto fail;
		for (s = 0; s < AR_IMPORT_CHECKS_FAILED &&
		    strcmp(st, status_name[s]); s++)
			;
		if (s == AR_IMPORT_CHECKS_FAILED) {
			bad_value(e, name, t.lineno, "status", st, "keep, "
			    "discard or crash");
			goto fail;
		}
		if (!t.field[c[0]][0]) {
			fail(e, AR_IMPORT_E_ROW, t.lineno, "%s: line %zu: "
			    "empty commit", name, t.lineno);
			goto fail;
		}
		w = new_row(imp, &cap, t.lineno);
		w->ident = ar_xasprintf("%s\t%s\t%s\t%s\t%s", t.field[c[0]],
		    t.field[cm], t.field[c[1]], st, t.field[c[3]]);
		w->metric = metric;
		w->lower = imp->lower;
		w->status = s;
		w->status_text = status_name[s];
		w->logged = v;
		w->value = s == AR_IMPORT_CRASH ? NAN : v;
		w->memory_gb = mem;
		w->commit = ar_xstrdup(t.field[c[0]]);
		w->description = ar_xstrdup(t.field[c[3]]);
	}
	if (r < 0) {
		fail(e, AR_IMPORT_E_FORMAT, t.lineno, "%s", t.err);
		goto fail;
	}
	ar_tsv_close(&t);
	return 0;
fail:
	ar_tsv_close(&t);
	return -1;
}

/* ---- pi-autoresearch autoresearch.jsonl ---- */

/* The settings of the last config line, as copies: rows keep pointers to
 * them through imp. */
struct pi_config {
	const char *metric, *session;
	int lower;
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
	for (s = 0; s <= AR_IMPORT_CHECKS_FAILED && strcmp(st, status_name[s]);
	    s++)
		;
	if (s > AR_IMPORT_CHECKS_FAILED)
		return bad_value(e, name, lineno, "status", st, "keep, "
		    "discard, crash or checks_failed");
	w->status = s;
	w->status_text = status_name[s];
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
	w->ident = ar_xstrdup(line->p);
	w->metric = cf->metric;
	w->lower = cf->lower;
	w->session = cf->session;
	w->commit = dup_or_null(json_string_value(json_object_get(o,
	    "commit")));
	w->description = dup_or_null(json_string_value(json_object_get(o,
	    "description")));
	v = json_object_get(o, "run");
	if (json_is_integer(v)) {
		w->run.kind = AR_IMPORT_INT;
		w->run.i = (long long)json_integer_value(v);
		w->run.d = (double)w->run.i;
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
	while (r == 0 && ar_jsonl_line(f, name, &line, &lineno)) {
		json_t *o = ar_json_parse(line.p, line.len, err, sizeof err);
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
		else
			r = pi_run(&cf, o, &line, name, lineno,
			    new_row(imp, &cap, lineno), e);
		json_decref(o);
	}
	ar_buf_free(&line);
	imp->metric = cf.metric;
	imp->lower = cf.lower;
	return r;
}

int
ar_import_read(struct ar_import *imp, int from, FILE *f, const char *name,
    struct ar_import_err *e)
{
	int r;

	memset(imp, 0, sizeof *imp);
	memset(e, 0, sizeof *e);
	imp->from = from;
	r = from == AR_IMPORT_PI ? read_pi(imp, f, name, e) :
	    read_tsv(imp, f, name, e);
	if (r < 0) {
		ar_import_free(imp);
		imp->from = from;
	}
	return r;
}

void
ar_import_free(struct ar_import *imp)
{
	size_t i, j;

	for (i = 0; i < imp->nrow; i++) {
		struct ar_import_row *w = &imp->row[i];

		free((char *)w->ident);
		free((char *)w->commit);
		free((char *)w->description);
		for (j = 0; j < w->nmetrics; j++)
			free(w->metrics[j].name);
		free(w->metrics);
	}
	free(imp->row);
	for (i = 0; i < imp->nstr; i++)
		free(imp->str[i]);
	free(imp->str);
	memset(imp, 0, sizeof *imp);
}
