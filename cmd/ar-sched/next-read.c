/* next-read.c: what ar-sched next reads before it decides: the methods
 * submitted (a submissions file or the campaign's submitted/ spool), the
 * verified results of the ledger export (each method's estimate at each
 * k, the time a measurement takes, the baseline's scaling, the nodes'
 * A/A noise) and what the queue already holds. next.h names it all. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

struct lrow {
	int ki, feasible, scored;
	double y, lo, hi, conf;
	const char *fin;
};

/* A result's standard error in log space, from its interval at its own
 * confidence (a look's, e.g. 0.99); without an interval, 2% as the
 * policy takes it. */
static double
log_se(const struct lrow *r)
{
	double c = r->conf > 0.5 && r->conf < 1 ? r->conf : 0.95;
	double z = gsl_cdf_ugaussian_Pinv(1 - (1 - c) / 2);

	if (r->hi > r->lo && r->lo > 0)
		return (log(r->hi) - log(r->lo)) / (2 * z);
	return 0.02;
}

static void
apply_row(struct meth *m, void *arg)
{
	const struct lrow *r = arg;
	struct ar_pol_obs *o = &m->at[r->ki];
	int ki = r->ki;

	o->n++;
	if (r->scored && r->y > 0) {
		double se = log_se(r), w = 1 / (se * se);

		m->lsum[ki] += w * log(r->y);
		m->wsum[ki] += w;
	}
	/* Whether the pair is feasible, the latest result decides; ties go
	 * to the later row. */
	if (strcmp(r->fin, m->fin[ki]) >= 0) {
		snprintf(m->fin[ki], sizeof m->fin[ki], "%s", r->fin);
		o->feasible = r->feasible;
		m->scored[ki] = r->scored;
	}
	if (m->scored[ki] && m->wsum[ki] > 0) {
		double mean = m->lsum[ki] / m->wsum[ki];
		double se = 1 / sqrt(m->wsum[ki]);

		/* As the policy reads an interval: at 95%. */
		o->est = exp(mean);
		o->lo = exp(mean - 1.959964 * se);
		o->hi = exp(mean + 1.959964 * se);
	} else {
		/* Nothing measured: a crash or an invalid run. */
		o->est = o->lo = o->hi = 0;
	}
}

static const char *
fld(const struct ar_tsv *t, int c)
{
	return c >= 0 ? t->field[c] : "";
}

static int
num(const struct ar_tsv *t, int c, double *v)
{
	return c >= 0 && t->field[c][0] && ar_parse_double(t->field[c], v) ==
	    0;
}

static void
add_noise(struct nx *x, const char *node, const char *fin, const char *exp,
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

static double
seconds_between(const char *a, const char *b)
{
	struct timespec s, e;

	if (ar_time_parse(a, &s) < 0 || ar_time_parse(b, &e) < 0)
		return -1;
	return (double)(e.tv_sec - s.tv_sec) + (e.tv_nsec - s.tv_nsec) / 1e9;
}

static void
read_ledger(struct nx *x, FILE *f, const char *name)
{
	struct ar_tsv t;
	int c_commit, c_dir, c_wl, c_k, c_node, c_aa, c_verdict, c_y, c_lo;
	int c_hi, c_guard, c_rsd, c_half, c_fin, c_start, c_signed, c_ver;
	int c_exp, c_me, c_base = -1, c_dirn, c_conf, st;
	size_t rows = 0;
	const char *wl = x->workload ? x->workload : x->dflt_wl;

	if (ar_tsv_open(&t, f, name) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	c_wl = ar_tsv_col(&t, "workload");
	c_k = ar_tsv_col(&t, "shape.k");
	c_verdict = ar_tsv_col(&t, "verdict");
	c_commit = ar_tsv_col(&t, "method.commit");
	c_dir = ar_tsv_col(&t, "method.dir");
	c_node = ar_tsv_col(&t, "shape.node");
	c_aa = ar_tsv_col(&t, "aa");
	c_y = ar_tsv_col(&t, "ratio.median");
	c_lo = ar_tsv_col(&t, "ratio.ci_lo");
	c_hi = ar_tsv_col(&t, "ratio.ci_hi");
	c_guard = ar_tsv_col(&t, "pass.guardrails");
	c_rsd = ar_tsv_col(&t, "noise_floor.rsd");
	c_half = ar_tsv_col(&t, "noise_floor.ci_half_width");
	c_fin = ar_tsv_col(&t, "finished");
	c_start = ar_tsv_col(&t, "started");
	c_signed = ar_tsv_col(&t, "signed");
	c_ver = ar_tsv_col(&t, "verified");
	c_exp = ar_tsv_col(&t, "experiment");
	c_me = ar_tsv_col(&t, "stats.min_effect");
	c_dirn = ar_tsv_col(&t, "direction");
	c_conf = ar_tsv_col(&t, "ratio.conf");
	if (x->metric) {
		char *cn = ar_xasprintf("baseline.%s.median", x->metric);

		c_base = ar_tsv_col(&t, cn);
		free(cn);
	}
	while ((st = ar_tsv_next(&t)) == 1) {
		const char *aa = fld(&t, c_aa), *v = fld(&t, c_verdict);
		long long k;
		double y, secs, me;
		struct lrow r;

		/* An empty ledger exports a bare header: the columns are
		 * needed only once there is a row. */
		if (!rows++) {
			ar_tsv_need(&t, "workload");
			ar_tsv_need(&t, "shape.k");
			ar_tsv_need(&t, "verdict");
			if (c_commit < 0 && c_dir < 0)
				ar_die(AR_EX_DATA, "%s: no column method.commit or "
				    "method.dir", name);
		}
		if ((c_signed >= 0 && strcmp(fld(&t, c_signed), "yes")) ||
		    strcmp(fld(&t, c_ver), "yes")) {
			x->left_unverified++;
			continue;
		}
		if (ar_parse_long(fld(&t, c_k), &k) < 0 || k < 1 || k > 65536)
			ar_die(AR_EX_DATA, "%s: line %zu: shape.k: \"%s\" is not a "
			    "whole number from 1 to 65536", name, t.lineno,
			    fld(&t, c_k));
		r.ki = ar_pol_kindex((long)k);
		secs = seconds_between(fld(&t, c_start), fld(&t, c_fin));
		if (secs > 0) {
			x->used_h += (double)k * secs / 3600;
			if (r.ki >= 0) {
				size_t *n = &x->nsecs[r.ki];

				x->all_secs[r.ki] = ar_xrealloc(x->all_secs[r.ki],
				    (*n + 1) * sizeof(double));
				x->all_secs[r.ki][(*n)++] = secs;
			}
		}
		if (num(&t, c_me, &me) && me > 0)
			x->min_effect = me;
		{
			double bv;
			size_t *nb;

			if (r.ki >= 0 && wl && strcmp(fld(&t, c_wl), wl) == 0 &&
			    num(&t, c_base, &bv) && bv > 0) {
				nb = &x->nbase[r.ki];
				x->base[r.ki] = ar_xrealloc(x->base[r.ki], (*nb + 1) *
				    sizeof(double));
				x->base[r.ki][(*nb)++] = bv;
				x->lower = strcmp(fld(&t, c_dirn), "lower") == 0;
			}
		}
		if (strcmp(aa, "true") == 0 || strcmp(aa, "yes") == 0) {
			double nv, lo, hi;

			/* The noise floor: the A/A's own figure, else the
			 * half width of its ratio's interval. */
			if (!num(&t, c_rsd, &nv) && !num(&t, c_half, &nv)) {
				if (num(&t, c_lo, &lo) && num(&t, c_hi, &hi))
					nv = (hi - lo) / 2;
				else
					nv = INFINITY;
			}
			if (fld(&t, c_node)[0])
				add_noise(x, fld(&t, c_node), fld(&t, c_fin),
				    fld(&t, c_exp), nv);
			continue;
		}
		if (r.ki < 0)
			continue;
		r.scored = num(&t, c_y, &y) && y > 0;
		if (!num(&t, c_conf, &r.conf))
			r.conf = 0.95;
		r.y = r.lo = r.hi = r.scored ? y : 0;
		if (r.scored) {
			if (!num(&t, c_lo, &r.lo) || r.lo > y)
				r.lo = y;
			if (!num(&t, c_hi, &r.hi) || r.hi < y)
				r.hi = y;
		}
		r.feasible = strcmp(v, "invalid") && strcmp(v, "crash") &&
		    strcmp(v, "timeout") && strcmp(fld(&t, c_guard), "false");
		r.fin = fld(&t, c_fin);
		each_named(x, fld(&t, c_commit), fld(&t, c_wl), apply_row, &r);
		if (strcmp(fld(&t, c_dir), fld(&t, c_commit)))
			each_named(x, fld(&t, c_dir), fld(&t, c_wl), apply_row,
			    &r);
	}
	if (st < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
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
	m1 = ar_median(x->base[0], x->nbase[0]);
	for (ki = 1; ki < AR_POL_NK; ki++) {
		double mk, sp, k = (double)ar_pol_k(ki), pk;

		if (!x->nbase[ki])
			continue;
		mk = ar_median(x->base[ki], x->nbase[ki]);
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

static void
add_pending(struct meth *m, void *arg)
{
	m->at[*(int *)arg].pending++;
}

static void
queued_rec(json_t *rec, void *arg)
{
	struct nx *x = arg;
	struct ar_assign a;
	int ki;

	ar_assign_parse(rec, "", &a);
	if (a.purpose && strcmp(a.purpose, "aa") == 0) {
		x->aa_pending = ar_xrealloc(x->aa_pending, (x->naa + 1) *
		    sizeof *x->aa_pending);
		x->aa_pending[x->naa++] = ar_xstrdup(a.node ? a.node : "");
		return;
	}
	ki = ar_pol_kindex(a.k);
	if (ki >= 0 && a.method)
		each_named(x, a.method, a.workload, add_pending, &ki);
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
read_known(struct nx *x, const char *ledger)
{
	if (ledger) {
		FILE *f = strcmp(ledger, "-") ? fopen(ledger, "r") : stdin;

		if (!f)
			ar_die(errno == ENOENT || errno == EACCES ?
			    AR_EX_NOINPUT : AR_EX_IO, "%s:", ledger);
		read_ledger(x, f, ledger);
		if (f != stdin)
			fclose(f);
	} else {
		/* ar-ledger export -C CAMP -V -f tsv, from the ar-ledger
		 * beside this program or on PATH; all of it first: a failed
		 * export is not malformed data. */
		char *prog = ar_sibling("ar-ledger");
		char *argv[] = { prog, "export", "-C", (char *)x->camp, "-V",
		    "-f", "tsv", NULL };
		struct ar_buf b = {0};
		FILE *mf;
		int st;

		st = ar_capture(argv, AR_FD_KEEP, &b, (size_t)1 << 34);
		if (st < 0 && errno != EFBIG)
			ar_die(AR_EX_UNAVAILABLE, "%s: cannot run: %s", prog,
			    strerror(errno));
		if (st != 0)
			ar_die(AR_EX_UNAVAILABLE, "ar-ledger export -C %s -V "
			    "failed; give its export with -l", x->camp);
		free(prog);
		if (!(mf = fmemopen(b.p, b.len ? b.len : 1, "r")))
			ar_die(AR_EX_SOFTWARE, "fmemopen:");
		read_ledger(x, mf, "ar-ledger export");
		fclose(mf);
		ar_buf_free(&b);
	}
	if (x->left_unverified)
		ar_warn("left out %zu row%s not signed and verified (export "
		    "with ar-ledger export -V)", x->left_unverified,
		    x->left_unverified == 1 ? "" : "s");
}

void
read_queued(struct nx *x, const char *qdir)
{
	static const char *const qsubs[] = { "new", "cur", NULL };

	spool_each(qdir, qsubs, queued_rec, x);
}

void
free_nx(struct nx *x)
{
	size_t i;
	int k;

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
	for (k = 0; k < AR_POL_NK; k++) {
		free(x->all_secs[k]);
		free(x->base[k]);
	}
}

