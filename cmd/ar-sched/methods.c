/* methods.c: the methods ar-sched next decides about: those submitted
 * (a submissions file or the campaign's submitted/ spool), one per id
 * and workload, found by their method's name, and the measurements of
 * each already pending in the queue. next.h names it all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "err.h"
#include "io.h"
#include "tsv.h"
#include "sched.h"
#include "next.h"

static void
add_meth(struct nx *x, const char *id, const char *method, const char *idea,
    const char *label, const char *category, const char *workload,
    const char *hint, const char *pfrac, const char *where)
{
	struct meth *m;
	const char *wl = x->workload ? x->workload : workload[0] ? workload :
	    x->dflt_wl;
	double pf = NAN;
	int k;

	if (!method[0]) {
		ar_warn("%s: no method; left out", where);
		return;
	}
	if (!id[0])
		id = method;
	if (pfrac[0] && (ar_parse_double(pfrac, &pf) < 0 || pf < 0 || pf > 1))
		ar_die(AR_EX_DATA, "%s: pfrac: \"%s\" is not a number from 0 "
		    "to 1", where, pfrac);
	if (x->nm == x->capm) {
		x->capm = x->capm ? 2 * x->capm : 64;
		x->m = ar_xrealloc(x->m, x->capm * sizeof *x->m);
	}
	m = &x->m[x->nm++];
	memset(m, 0, sizeof *m);
	m->id = ar_xstrdup(id);
	m->method = ar_xstrdup(method);
	m->idea = ar_xstrdup(idea);
	m->label = ar_xstrdup(label[0] ? label : id);
	m->category = ar_xstrdup(category);
	m->workload = ar_xstrdup(wl);
	m->hint = strcmp(hint, "scale") == 0 ? 1 : strcmp(hint, "single") ==
	    0 ? -1 : 0;
	m->pfrac = pf;
	for (k = 0; k < AR_POL_NK; k++) {
		m->at[k].est = m->at[k].lo = m->at[k].hi = NAN;
		m->at[k].feasible = 1;
	}
}

static void
submitted_rec(json_t *rec, void *arg)
{
	struct nx *x = arg;
	json_t *pf = json_object_get(rec, "pfrac");
	char pfs[64] = "";

	if (json_is_number(pf))
		snprintf(pfs, sizeof pfs, "%.17g", json_number_value(pf));
	else if (json_is_string(pf))
		snprintf(pfs, sizeof pfs, "%s", json_string_value(pf));
	add_meth(x, jstr(rec, "id"), jstr(rec, "method"), jstr(rec, "idea"),
	    jstr(rec, "label"), jstr(rec, "category"), jstr(rec, "workload"),
	    jstr(rec, "hint"), pfs, "submitted");
}

static void
read_submissions_tsv(struct nx *x, const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	static const char *const names[] = { "id", "method", "idea", "label",
	    "category", "workload", "hint", "pfrac" };
	struct ar_tsv t;
	int c[8], i, st;

	if (!f)
		ar_die(errno == ENOENT || errno == EACCES ? AR_EX_NOINPUT :
		    AR_EX_IO, "%s:", file);
	if (ar_tsv_open(&t, f, file) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	for (i = 0; i < 8; i++)
		c[i] = i == 1 ? ar_tsv_need(&t, names[i]) :
		    ar_tsv_col(&t, names[i]);
	while ((st = ar_tsv_next(&t)) == 1) {
		const char *v[8];
		char where[300];

		for (i = 0; i < 8; i++)
			v[i] = c[i] >= 0 ? t.field[c[i]] : "";
		snprintf(where, sizeof where, "%s: line %zu", file, t.lineno);
		add_meth(x, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
		    where);
	}
	if (st < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
	if (f != stdin)
		fclose(f);
}

static void
free_meth(struct meth *m)
{
	free(m->id);
	free(m->method);
	free(m->idea);
	free(m->label);
	free(m->category);
	free(m->workload);
}

/* Method names in order; ties in any order (each_named visits them
 * all). */
static int
cmp_byname(const void *a, const void *b)
{
	const struct meth *const *i = a, *const *j = b;

	return strcmp((*i)->method, (*j)->method);
}

/* By id and workload, then by place in the array: a total order. */
static int
cmp_idwl(const void *a, const void *b)
{
	const struct meth *x = *(const struct meth *const *)a;
	const struct meth *y = *(const struct meth *const *)b;
	int c = strcmp(x->id, y->id);

	if (!c)
		c = strcmp(x->workload, y->workload);
	return c ? c : (x > y) - (x < y);
}

/* A method submitted twice (same id and workload) is taken once, as it
 * was first; the order of the rest is kept. */
static void
dedupe(struct nx *x)
{
	struct meth **ix = ar_xcalloc(x->nm + 1, sizeof *ix);
	char *drop = ar_xcalloc(x->nm + 1, 1);
	size_t i, n = 0;

	for (i = 0; i < x->nm; i++)
		ix[i] = &x->m[i];
	ar_sort(ix, x->nm, sizeof *ix, cmp_idwl);
	for (i = 1; i < x->nm; i++)
		if (strcmp(ix[i]->id, ix[i - 1]->id) == 0 &&
		    strcmp(ix[i]->workload, ix[i - 1]->workload) == 0)
			drop[ix[i] - x->m] = 1;
	for (i = 0; i < x->nm; i++) {
		if (drop[i])
			free_meth(&x->m[i]);
		else
			x->m[n++] = x->m[i];
	}
	x->nm = n;
	free(ix);
	free(drop);
}

/* Calls fn for each method whose method is name, on workload (NULL:
 * any). */
static void
each_named(struct nx *x, const char *name, const char *workload,
    void (*fn)(struct meth *, void *), void *arg)
{
	size_t lo = 0, hi = x->nm;

	if (!name[0])
		return;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(x->byname[mid]->method, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->nm && strcmp(x->byname[lo]->method, name) == 0;
	    lo++) {
		struct meth *m = x->byname[lo];

		if (!workload || strcmp(m->workload, workload) == 0)
			fn(m, arg);
	}
}

struct pending {
	int ki;
	long n;
};

static void
add_pending(struct meth *m, void *arg)
{
	const struct pending *p = arg;

	m->at[p->ki].pending += (int)p->n;
}

void
add_pending_named(struct nx *x, const char *method, const char *workload,
    int ki, long n)
{
	struct pending p = { ki, n };

	each_named(x, method, workload, add_pending, &p);
}

void
read_methods(struct nx *x, const char *subm)
{
	static const char *const subs[] = { "new", "cur", "done", NULL };
	size_t i;

	if (subm) {
		read_submissions_tsv(x, subm);
	} else {
		char *sdir = ar_path(x->camp, "submitted");

		spool_each(sdir, subs, submitted_rec, x);
		free(sdir);
	}
	dedupe(x);
	x->byname = ar_xcalloc(x->nm + 1, sizeof *x->byname);
	for (i = 0; i < x->nm; i++)
		x->byname[i] = &x->m[i];
	ar_sort(x->byname, x->nm, sizeof *x->byname, cmp_byname);
}

void
free_nx(struct nx *x)
{
	size_t i;

	for (i = 0; i < x->nm; i++)
		free_meth(&x->m[i]);
	free(x->m);
	free(x->byname);
	for (i = 0; i < x->nnz; i++)
		free(x->nz[i].node);
	free(x->nz);
	for (i = 0; i < x->naa; i++)
		free(x->aa_pending[i]);
	free(x->aa_pending);
}

