/* sections.c: the digest of a ledger as sections of rows: the goal,
 * the summary, the best, the leaderboard, the roofline, the curves (-c),
 * near-misses, failures, the noise floor, the next measurements and the
 * phase the data calls for (ar-digest(1)). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "hmap.h"
#include "io.h"
#include "json.h"
#include "stats.h"
#include "digest.h"

struct sect *
sect(struct digest *dg, const char *key, const char *title,
    const char *type, ...)
{
	struct sect *s = &dg->S[dg->nsect++];
	va_list ap;
	const char *c;

	s->key = key;
	s->title = title;
	s->type = type;
	va_start(ap, type);
	while ((c = va_arg(ap, const char *)) != NULL)
		s->col[s->ncol++] = c;
	va_end(ap);
	return s;
}

/* Adds a row of ncol cells given as printf formats, one per cell. */
void
row(struct sect *s, ...)
{
	va_list ap;
	size_t i;

	if (s->nrow == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->cell = ar_xrealloc(s->cell, s->cap * s->ncol * sizeof *s->cell);
	}
	va_start(ap, s);
	for (i = 0; i < s->ncol; i++)
		s->cell[s->nrow * s->ncol + i] = ar_xstrdup(va_arg(ap,
		    const char *));
	va_end(ap);
	s->nrow++;
}

const char *
f3(char *b, double v)
{
	if (isfinite(v))
		snprintf(b, 32, "%.3f", v);
	else
		b[0] = 0;
	return b;
}

const char *
fi(char *b, size_t v)
{
	snprintf(b, 32, "%zu", v);
	return b;
}

static int
cmp_method(const void *a, const void *b)
{
	const struct method *x = *(struct method *const *)a;
	const struct method *y = *(struct method *const *)b;

	if (x->bp->est != y->bp->est)
		return x->bp->est > y->bp->est ? -1 : 1;
	return strcmp(x->hash, y->hash);
}

/* A pool of a method, for the best so far. */
struct mk {
	const struct method *m;
	const struct kpool *p;
};

/* Higher pooled estimate first; the smaller latest id breaks ties. */
static int
mk_better(const struct mk *a, const struct mk *b)
{
	if (a->p->est != b->p->est)
		return a->p->est > b->p->est;
	return strcmp(a->p->last.id, b->p->last.id) < 0;
}

/* By workload, then k. */
static int
cmp_mk(const void *a, const void *b)
{
	const struct mk *x = a, *y = b;
	int c = strcmp(x->m->wl, y->m->wl);

	if (c)
		return c;
	return (x->p->k > y->p->k) - (x->p->k < y->p->k);
}

/* The idea's title, else its id, else empty. */
static const char *
title(const struct digest *dg, const struct item *it)
{
	const char *t = idea_title(dg, it->idea);

	return t ? t : it->idea;
}

static int
cmp_item_better(const void *a, const void *b)
{
	return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

static int
cmp_item_id(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->id,
	    ((const struct item *)b)->id);
}

static int
cmp_span(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* How busy the measurement devices were: the union of the results'
 * [started, finished] against the time from the first start to the last
 * finish. One figure for the campaign's measurements as a whole: idle
 * is when none ran. */
static void
devices(struct digest *dg)
{
	struct stale_in *sl = &dg->st;
	double lo, hi, busy = 0, span;
	size_t i;
	char a[32], b[32], c[32];
	struct sect *s;

	if (!sl->nbusy)
		return;
	ar_sort(sl->busy, sl->nbusy, sizeof *sl->busy, cmp_span);
	lo = sl->busy[0][0];
	hi = sl->busy[0][1];
	span = hi;
	for (i = 1; i < sl->nbusy; i++) {
		if (sl->busy[i][0] > hi) {
			busy += hi - lo;
			lo = sl->busy[i][0];
		}
		if (sl->busy[i][1] > hi)
			hi = sl->busy[i][1];
		if (hi > span)
			span = hi;
	}
	busy += hi - lo;
	span -= sl->busy[0][0];
	s = sect(dg, "devices", "Measurement devices", "ss", "item", "value",
	    NULL);
	s->kv = 1;
	s->rowtype = "nnn";
	snprintf(a, sizeof a, "%.4f", span / 3600);
	snprintf(b, sizeof b, "%.4f", busy / 3600);
	c[0] = 0;
	if (span > 0)
		snprintf(c, sizeof c, "%.3f", 1 - busy / span);
	row(s, "span_hours", a);
	row(s, "busy_hours", b);
	row(s, "idle_share", c);
	s->note = "idle_share: of the time from the first measurement's start "
	    "to the last one's finish, the share in which none ran (to the "
	    "second).";
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The curves as rows of s; each curve's object also into keep, if any,
 * for the HTML page to draw. */
static void
read_curves(const char *path, struct sect *s, json_t *keep)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct ar_buf b = {0};
	size_t lineno = 0;
	char err[256], x[32], y[32], z[32];

	if (!f)
		ar_die(errno == ENOENT || errno == EACCES ? AR_EX_NOINPUT :
		    AR_EX_IO, "%s:", path);
	while (ar_jsonl_line(f, path, &b, &lineno)) {
		json_t *o = ar_json_parse(b.p, b.len, err, sizeof err), *j;
		const char *label, *model;

		if (!o || !json_is_object(o))
			ar_die(AR_EX_DATA, "%s: line %zu: %s", path, lineno,
			    o ? "not an object" : err);
		label = ar_json_str(o, "label");
		model = ar_json_str(o, "fit.model");
		if (!label)
			ar_die(AR_EX_DATA, "%s: line %zu: no label", path, lineno);
		j = json_object_get(o, "knee");
		x[0] = 0;
		if (json_is_integer(j))
			snprintf(x, sizeof x, "%lld",
			    (long long)json_integer_value(j));
		j = json_object_get(o, "best_k");
		y[0] = 0;
		if (json_is_integer(j))
			snprintf(y, sizeof y, "%lld",
			    (long long)json_integer_value(j));
		j = json_object_get(o, "best_score");
		z[0] = 0;
		if (json_is_number(j))
			f3(z, json_number_value(j));
		row(s, label, ar_json_str(o, "workload") ? ar_json_str(o,
		    "workload") : "", ar_json_str(o, "device") ? ar_json_str(o,
		    "device") : "", x, y, z, model ? model : "");
		if (keep)
			json_array_append(keep, o);
		json_decref(o);
	}
	if (f != stdin)
		fclose(f);
	ar_buf_free(&b);
}

/* Builds every section from the aggregates. */
void
build(struct digest *dg, const char *curves)
{
	struct results *D = &dg->D;
	const struct goal *GL = &dg->GL;
	const char *phase, *phase_why;
	struct sect *s;
	struct method **ms = ar_xcalloc(D->mn + 1, sizeof *ms);
	size_t i, n = 0, nl = 0, keepers = 0, promising = 0, nearup = 0;
	char a[32], b[32], c[32], d[32], e[32];

	for (i = 0; i < D->mcap; i++)
		if (D->m[i].hash)
			ms[n++] = &D->m[i];
	/* Each method's pools, and its best: the highest pooled estimate
	 * among the ks with a keep, equivalent or inconclusive result. */
	for (i = 0; i < n; i++) {
		struct method *m = ms[i];
		size_t j;

		for (j = 0; j < m->nkp; j++) {
			struct kpool *kp = &m->kp[j];

			/* One result is its own estimate, with its own
			 * interval; several are pooled. */
			if (kp->n == 1) {
				kp->est = kp->last.r;
				kp->lo = kp->last.lo;
				kp->hi = kp->last.hi;
			} else if (!ar_pool_est(&kp->p, &kp->est, &kp->lo,
			    &kp->hi))
				kp->est = kp->lo = kp->hi = NAN;
			if (kp->nuse && isfinite(kp->est) && (!m->bp ||
			    kp->est > m->bp->est || (kp->est == m->bp->est &&
			    kp->k < m->bp->k)))
				m->bp = kp;
		}
		m->has_best = m->bp != NULL;
	}
	if (GL->on) {
		char bm[64] = "", bn[32], mt[200];

		s = sect(dg, "goal", "Goal and baseline", "ss", "item", "value",
		    NULL);
		s->kv = 1;
		row(s, "campaign", GL->c.id ? GL->c.id : "");
		row(s, "problem", GL->m.name);
		row(s, "goal", GL->m.description ? GL->m.description : "");
		snprintf(mt, sizeof mt, "%s%s%s, %s is better", GL->m.metric.name,
		    GL->m.metric.unit ? " in " : "", GL->m.metric.unit ?
		    GL->m.metric.unit : "", GL->m.metric.higher ? "higher" :
		    "lower");
		row(s, "metric", mt);
		row(s, "baseline", GL->m.baseline);
		if (GL->nb)
			snprintf(bm, sizeof bm, "%.6g", ar_median(GL->bv, GL->nb));
		row(s, "baseline_median", bm);
		row(s, "baseline_results", fi(bn, GL->nb));
		s->rowtype = "sssssni";
	}
	s = sect(dg, "summary", "Summary", "ss", "item", "value", NULL);
	s->kv = 1;
	row(s, "rows", fi(a, D->rows));
	row(s, "taken", fi(a, D->taken));
	row(s, "flagged_unsigned", fi(a, D->unsigned_));
	row(s, "flagged_unverified", fi(a, D->unverified));
	row(s, "aa", fi(a, D->aa));
	row(s, "methods", fi(a, D->mn));
	for (i = 0; i < V_N; i++)
		row(s, vname[i], fi(a, D->nv[i]));
	s->rowtype = "iiiiiiiiiiiiiisssss";
	row(s, "metric", D->mixed_metric ? "mixed" : D->metric);
	row(s, "workload", D->mixed_wl ? "mixed" : D->workload);
	row(s, "device", D->device);
	row(s, "first_started", D->first);
	row(s, "last_started", D->last);
	if (D->unsigned_ || D->unverified)
		s->note = "Flagged rows (unsigned or not verified) are counted, "
		    "never used.";

	/* The best so far: of the pools holding a keep, the highest pooled
	 * estimate, overall and at each k, per workload. */
	{
		struct mk *bk = NULL;
		struct ar_hmap ix = {0};
		size_t nb = 0, cap = 0, j, q;

		/* The best pool per workload and k, found by hash: the
		 * workloads and ks grow with the campaign. */
		for (i = 0; i < n; i++)
			for (j = 0; j < ms[i]->nkp; j++) {
				struct mk x = { ms[i], &ms[i]->kp[j] };
				uint32_t h;
				size_t it = 0;
				int found = 0;

				if (!x.p->nkeep || !isfinite(x.p->est))
					continue;
				h = ar_hash_str(x.m->wl) ^ (uint32_t)x.p->k *
				    0x9e3779b1u;
				while (!found && ar_hmap_next(&ix, h, &it, &q))
					found = bk[q].p->k == x.p->k &&
					    strcmp(bk[q].m->wl, x.m->wl) == 0;
				if (!found) {
					if (nb == cap) {
						cap = cap ? 2 * cap : 16;
						bk = ar_xrealloc(bk, cap *
						    sizeof *bk);
					}
					ar_hmap_put(&ix, h, nb);
					bk[nb++] = x;
				} else if (mk_better(&x, &bk[q]))
					bk[q] = x;
			}
		ar_hmap_free(&ix);
		ar_sort(bk, nb, sizeof *bk, cmp_mk);
		D->has_best = nb > 0;
		s = sect(dg, "best", "Best so far (keep)", "ssinnnisss",
		    "scope", "workload", "k", "ratio", "ci_lo", "ci_hi",
		    "results", "label", "idea", "id", NULL);
		s->note = "A method's results at a k pooled by inverse "
		    "variance, as ar-sched next reads them; id: the latest.";
		for (j = 0; j < nb; j++) {
			struct mk *o = &bk[j];

			/* The overall best of a workload: first, once. */
			if (j == 0 || strcmp(bk[j - 1].m->wl, o->m->wl)) {
				struct mk *w = o;

				for (q = j + 1; q < nb && strcmp(bk[q].m->wl,
				    o->m->wl) == 0; q++)
					if (mk_better(&bk[q], w))
						w = &bk[q];
				snprintf(d, sizeof d, "%ld", w->p->k);
				row(s, "overall", w->m->wl, d, f3(a, w->p->est),
				    f3(b, w->p->lo), f3(c, w->p->hi),
				    fi(e, w->p->n), w->m->label,
				    title(dg, &w->p->last), w->p->last.id);
			}
		}
		for (j = 0; j < nb && j < NK; j++) {
			struct mk *o = &bk[j];

			snprintf(d, sizeof d, "%ld", o->p->k);
			row(s, "k", o->m->wl, d, f3(a, o->p->est),
			    f3(b, o->p->lo), f3(c, o->p->hi), fi(e, o->p->n),
			    o->m->label, title(dg, &o->p->last), o->p->last.id);
		}
		s->more = nb > NK ? nb - NK : 0;
		free(bk);
	}

	/* Leaderboard: methods with a usable best, best ratio first. */
	for (i = 0; i < n; i++)
		if (ms[i]->has_best)
			ms[nl++] = ms[i];
	ar_sort(ms, nl, sizeof *ms, cmp_method);
	s = sect(dg, "leaderboard", "Leaderboard", "isssnnniisiis", "rank",
	    "label", "idea", "workload", "ratio", "ci_lo", "ci_hi", "k",
	    "pooled", "verdict", "results", "keeps", "id", NULL);
	for (i = 0; i < nl && i < LB_MAX; i++) {
		const struct kpool *bp = ms[i]->bp;
		char r[32], kk[32], nn[32], nk[32];

		snprintf(kk, sizeof kk, "%ld", bp->k);
		row(s, fi(r, i + 1), ms[i]->label, title(dg, &bp->last),
		    ms[i]->wl, f3(a, bp->est), f3(b, bp->lo), f3(c, bp->hi), kk,
		    fi(e, bp->n), vname[bp->last.v], fi(nn, ms[i]->n),
		    fi(nk, ms[i]->nv[V_KEEP]), bp->last.id);
	}
	s->note = "Each method at its best pooled k; verdict and id: the "
	    "latest there.";
	s->more = nl > LB_MAX ? nl - LB_MAX : 0;

	/* How close the leaders came to what the machine can do: a method at
	 * 90% of the memory roof gains nothing from compute tricks. Only
	 * where results carry roofline fields (ar-bench(1), Roofline). */
	for (i = 0; i < nl && i < LB_MAX && isnan(ms[i]->bp->last.rf); i++)
		;
	if (i < nl && i < LB_MAX) {
		s = sect(dg, "roofline", "Roofline (share of the machine's "
		    "measured limit)", "sisnns", "label", "k", "bound", "frac",
		    "baseline_frac", "id", NULL);
		for (i = 0; i < nl && i < LB_MAX; i++) {
			const struct item *it = &ms[i]->bp->last;

			if (isnan(it->rf))
				continue;
			snprintf(d, sizeof d, "%ld", it->k);
			row(s, ms[i]->label, d, it->bound, f3(a, it->rf),
			    isnan(it->rfb) ? "" : f3(b, it->rfb), it->id);
		}
		s->note = "frac is the rate reached over the roof the "
		    "workload's intensity allows (memory bandwidth times "
		    "flops per byte, or the GEMM rate, whichever is lower), "
		    "from ar-bench --roofline's profile; the run's whole wall "
		    "time counts, so it is a lower bound.";
	}

	if (curves) {
		s = sect(dg, "curves", "Scale curves", "sssiins", "label",
		    "workload", "device", "knee", "best_k", "best_score", "model",
		    NULL);
		if (D->want_points)
			dg->curves = json_array();
		read_curves(curves, s, dg->curves);
	}

	ar_sort(D->near, D->nnear, sizeof *D->near, cmp_item_better);
	s = sect(dg, "near_misses", "Near-misses (inconclusive)", "sssinnns",
	    "label", "idea", "workload", "k", "ratio", "ci_lo", "ci_hi", "id",
	    NULL);
	for (i = 0; i < D->nnear; i++) {
		snprintf(d, sizeof d, "%ld", D->near[i].k);
		row(s, D->near[i].label, title(dg, &D->near[i]), D->near[i].wl,
		    d, f3(a, D->near[i].r), f3(b, D->near[i].lo), f3(c,
		    D->near[i].hi), D->near[i].id);
	}
	s->more = D->tnear - D->nnear;

	ar_sort(D->crash, D->ncrash, sizeof *D->crash, cmp_item_id);
	s = sect(dg, "crashes", "Crashes and timeouts", "ssisss", "label",
	    "idea", "k", "verdict", "why", "id", NULL);
	for (i = 0; i < D->ncrash; i++) {
		snprintf(d, sizeof d, "%ld", D->crash[i].k);
		row(s, D->crash[i].label, title(dg, &D->crash[i]), d,
		    vname[D->crash[i].v], D->crash[i].why, D->crash[i].id);
	}
	s->more = D->tcrash - D->ncrash;
	if (D->tcrash > D->ncrash)
		s->note = "The latest by id.";

	ar_sort(D->inval, D->ninval, sizeof *D->inval, cmp_item_id);
	s = sect(dg, "invalid", "Invalid results", "ssss", "label", "idea",
	    "why", "id", NULL);
	for (i = 0; i < D->ninval; i++)
		row(s, D->inval[i].label, title(dg, &D->inval[i]),
		    D->inval[i].why, D->inval[i].id);
	s->more = D->tinval - D->ninval;

	devices(dg);
	s = sect(dg, "noise_floor", "Noise floor (A/A)", "ss", "item", "value",
	    NULL);
	s->kv = 1;
	ar_sort(D->rsd, D->nrsd, sizeof *D->rsd, cmp_double);
	a[0] = 0;
	if (D->nrsd)
		snprintf(a, sizeof a, "%.4g", D->nrsd % 2 ? D->rsd[D->nrsd / 2] :
		    (D->rsd[D->nrsd / 2 - 1] + D->rsd[D->nrsd / 2]) / 2);
	s->rowtype = "in";
	row(s, "aa_rows", fi(b, D->aa));
	row(s, "median_rsd", a);

	/* Promising methods seen only at small k: the scale probe tells
	 * most; inconclusive ones need more pairs, not more ideas. */
	s = sect(dg, "next", "Next measurements", "sssnss", "label", "idea",
	    "workload", "ratio", "measured_k", "suggest", NULL);
	for (i = 0; i < nl; i++) {
		struct method *m = ms[i];
		char kr[64], sg[64];

		snprintf(kr, sizeof kr, "%ld..%ld", m->kmin, m->kmax);
		if (m->nv[V_INCONC] && !m->nv[V_KEEP]) {
			snprintf(sg, sizeof sg, "more pairs");
			if (m->bp->est > 1)
				nearup++;
		} else if (m->bp->est > 1 && m->kmax <= 2) {
			snprintf(sg, sizeof sg, "scale probe at k=%s4,8",
			    m->kmax < 2 ? "2," : "");
			promising++;
		} else {
			continue;
		}
		if (s->nrow < LB_MAX)
			row(s, m->label, title(dg, &m->bp->last), m->wl,
			    f3(a, m->bp->est), kr, sg);
		else
			s->more++;
	}
	for (i = 0; i < nl; i++)
		if (ms[i]->nv[V_KEEP])
			keepers++;

	/* The phase, by the first rule that holds (ar-digest(1)). */
	if (D->taken - D->aa < 10) {
		phase = "explore";
		phase_why = "fewer than 10 results: too little to exploit";
	} else if (!D->has_best) {
		phase = "explore";
		phase_why = "no method kept yet";
	} else if (nearup >= 2) {
		phase = "combine near-misses";
		phase_why = "two or more inconclusive methods above 1.0";
	} else if (promising > 0) {
		phase = "exploit";
		phase_why = "a method above 1.0 is measured only at k <= 2";
	} else if (keepers >= 3) {
		phase = "ablate";
		phase_why = "three or more kept methods: find which change pays";
	} else {
		phase = "exploit";
		phase_why = "a kept method to refine";
	}
	s = sect(dg, "phase", "Phase", "ss", "item", "value", NULL);
	s->kv = 1;
	row(s, "phase", phase);
	row(s, "reason", phase_why);
	free(ms);
}
