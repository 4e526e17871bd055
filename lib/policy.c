/* policy.c: which (method, k) to measure next, and which is best.
 *
 * Four policies share the interface, so that ar-sched simulate compares
 * them on the code ar-sched next runs:
 *   flat1  every method at k=1, the best at k=1 (autoresearch's way);
 *   grid   every method at every k, the best estimate;
 *   sha    successive halving with the GPU count as the fidelity: all at
 *          k=1, the better half of them at 2, of those at 4, then 8;
 *   ours   k=1 probes of new methods first; then the measurement whose
 *          expected gain over the incumbent per GPU-hour is highest:
 *          scale probes where a prediction of the score at k (the curve
 *          fitted to two scales or more, else the parallel fraction or
 *          the planner's hint with a wide interval) can beat the
 *          incumbent, and re-measurements where the incumbent and a
 *          rival are within each other's noise (worth the chance of a
 *          miss, the rival beating the pick by the minimum effect, per
 *          GPU-hour); nothing
 *          when no measurement is expected to gain enough. Its
 *          measurements are sequential (policy.h): they stop once the
 *          question they were made for is clear. Its best weighs each
 *          estimate against the method's curve and takes one standard
 *          error off, so that one lucky draw does not win.
 * The constants below may be set at build time (-DEI_MIN=...), which is
 * how they were tuned with ar-sched simulate on the tuning set of
 * bench/bench-policy.sh.
 * Scores are ratios to the baseline at the same k, higher better. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "curve.h"
#include "err.h"
#include "policy.h"

#define Z95 1.959964
/* A re-measurement is worth making when its value reaches this fraction
 * of the incumbent's score. */
#ifndef EI_MIN
#define EI_MIN 0.001
#endif
/* A scale probe is worth making when its expected gain reaches this
 * fraction of the incumbent's score per k=1 measurement it costs, so an
 * 8-GPU probe must promise eight times what a 1-GPU one must. */
#ifndef SCALE_EI
#define SCALE_EI 0.0002
#endif
/* Uncertainty of an extrapolation, per doubling of k past the measured
 * scales, that no fit sees: contention, guardrails, a changed regime. */
#ifndef EXTRAP_SD
#define EXTRAP_SD 0.04
#endif
/* No pair is measured more often than this: past four looks a close
 * call is as good as a tie, and its GPU-hours are better spent on
 * another question. */
#ifndef N_MAX
#define N_MAX 4
#endif
#ifndef CAUTION
#define CAUTION 1.0
#endif
#ifndef SHRINK
#define SHRINK 1
#endif
#ifndef LADDER8
#define LADDER8 2
#endif
/* What a scale probe's view of the scales above it is worth. */
#ifndef LOOKAHEAD
#define LOOKAHEAD 0.35
#endif
/* A campaign misses when its pick is more than the minimum effect below
 * the best; a rival's chance of that, times this share of the
 * incumbent's score, is what re-measuring the two is worth. */
#ifndef MISS_W
#define MISS_W 0.04
#endif
/* Sizes, in standard measurements, of ours' sequential measurements.
 * Probes, k=1 or scale, may stop after a quarter (the 8 pairs of a first
 * look's interval), since most of them only have to show that a method
 * is a dud or does not pay at scale: a k=1 probe stops early only below
 * this fraction of the incumbent (a dud: its parallel fraction is what
 * is left to learn), a scale probe once it clearly beats the incumbent
 * by the minimum effect or clearly does not. Re-measurements are at
 * least half of one, since the pick rests on them, stop once the rival
 * is clearly above or below the other, and close calls run to 2.5
 * measurements. */
/* A lone incumbent is looked at again, for half a measurement, when its
 * sd exceeds this many minimum effects. */
#ifndef LONE_SD
#define LONE_SD 3
#endif
#define LONE_MAX 0.5
#ifndef PROBE_MIN
#define PROBE_MIN 0.25
#endif
#ifndef PROBE_BAR
#define PROBE_BAR 0.85
#endif
#ifndef SCALE_MIN
#define SCALE_MIN 0.25
#endif
#define SCALE_MAX 1.0
#ifndef VAL_MIN
#define VAL_MIN 0.5
#endif
#ifndef VAL_MAX
#define VAL_MAX 2.5
#endif

int
ar_pol_kindex(long k)
{
	return k == 1 ? 0 : k == 2 ? 1 : k == 4 ? 2 : k == 8 ? 3 : -1;
}

long
ar_pol_k(int ki)
{
	return 1L << ki;
}

const char *
ar_pol_purpose_name(int p)
{
	static const char *const name[] = { "probe", "scale", "validate", "aa" };

	return p >= 0 && p < 4 ? name[p] : "?";
}

const char *
ar_pol_name(int p)
{
	static const char *const name[] = { "ours", "flat1", "grid", "sha" };

	return p >= 0 && p < 4 ? name[p] : "?";
}

int
ar_pol_parse(const char *s)
{
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, ar_pol_name(i)) == 0)
			return i;
	return -1;
}

int
ar_pol_pairs(const struct ar_pol_pick *pk, long std, long *pmin, long *pmax)
{
	if (pk->size_min == 1 && pk->size_max == 1 && isnan(pk->stop_at))
		return 0;
	*pmin = (long)ceil(pk->size_min * (double)std - 1e-9);
	*pmax = (long)ceil(pk->size_max * (double)std - 1e-9);
	if (*pmin < AR_POL_PAIRS_MIN)
		*pmin = AR_POL_PAIRS_MIN;
	if (*pmax < *pmin)
		*pmax = *pmin;
	return 1;
}

static double
cost_of(const struct ar_pol_cfg *c, int ki)
{
	/* Without a figure, a measurement's GPU-hours grow with its GPUs. */
	return c->cost_h[ki] > 0 ? c->cost_h[ki] : (double)ar_pol_k(ki);
}

/* A measurement's cost in k=1 measurements. */
static double
units(const struct ar_pol_cfg *c, int ki)
{
	return cost_of(c, ki) / cost_of(c, 0);
}

static int
affordable(const struct ar_pol_cfg *c, int ki, double spent)
{
	return c->use[ki] && (c->budget_h < 0 ||
	    cost_of(c, ki) + spent <= c->budget_h + 1e-12);
}

static double
obs_sd(const struct ar_pol_obs *o)
{
	double sd = (o->hi - o->lo) / (2 * Z95);

	/* An estimate without an interval weighs as one with 2% noise. */
	if (!(sd > 0) || !isfinite(sd))
		sd = 0.02 * fabs(o->est);
	return sd;
}

static int
measured(const struct ar_pol_obs *o)
{
	return o->n > 0 && isfinite(o->est);
}

static double
npdf(double z)
{
	return exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

static double
ncdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2));
}

/* The expected amount by which X ~ N(mu, sd) exceeds t. */
static double
exp_gain(double mu, double sd, double t)
{
	double z;

	if (!(sd > 0))
		return mu > t ? mu - t : 0;
	z = (mu - t) / sd;
	return (mu - t) * ncdf(z) + sd * npdf(z);
}

/* Amdahl's speedup at k for a parallel fraction p. */
static double
amdahl(double k, double p)
{
	return 1 / ((1 - p) + p / k);
}

/* The ratio at k predicted from the ratio y0 at k0 and the parallel
 * fractions of the method and the baseline. */
static double
pf_ratio(double y0, double k0, double k, double pm, double pb)
{
	return y0 * (amdahl(k, pm) / amdahl(k, pb)) /
	    (amdahl(k0, pm) / amdahl(k0, pb));
}

/* A guardrail broken at some k is taken to stay broken above it (memory,
 * communication buffers grow with the scale). */
static int
blocked(const struct ar_pol_method *m, int ki)
{
	int j;

	for (j = 0; j <= ki; j++)
		if (measured(&m->at[j]) && !m->at[j].feasible)
			return 1;
	return 0;
}

/* The ladder: a scale is probed only above a measured smaller one, and
 * the largest only once two scales give a curve, so that no 8-GPU
 * measurement rests on a k=1 probe alone. */
static int
ladder(const struct ar_pol_method *m, int ki)
{
	int j, below = 0;

	for (j = 0; j < ki; j++)
		if (measured(&m->at[j]))
			below++;
	return ki == AR_POL_NK - 1 ? below >= LADDER8 : below >= 1;
}

/* The predicted score of an unmeasured (method, k) and its uncertainty;
 * -1 when the method has no measurement to predict from. */
static int
predict(const struct ar_pol_method *m, const struct ar_pol_cfg *c, int ki,
    double *mu, double *sd, const char **how)
{
	struct ar_point p[AR_POL_NK];
	size_t np = 0;
	int j, jmax = -1, j0 = -1;
	double k = (double)ar_pol_k(ki), dbl;

	for (j = 0; j < AR_POL_NK; j++) {
		const struct ar_pol_obs *o = &m->at[j];

		if (!measured(o) || !o->feasible || !(o->est > 0))
			continue;
		p[np].k = (double)ar_pol_k(j);
		p[np].y = o->est;
		p[np].lo = o->est - Z95 * obs_sd(o);
		p[np].hi = o->est + Z95 * obs_sd(o);
		p[np].feasible = 1;
		np++;
		if (j0 < 0)
			j0 = j;
		jmax = j;
	}
	if (np == 0)
		return -1;
	dbl = fabs(log2(k / (double)ar_pol_k(ki > jmax ? jmax : j0)));
	if (np >= 2) {
		struct ar_fit f;
		double y, lo, hi;

		ar_curve_fit(p, np, &f);
		ar_curve_predict(&f, k, &y, &lo, &hi);
		*mu = y;
		*sd = (hi - lo) / (2 * Z95);
		if (!isfinite(*sd) || *sd < 0)
			*sd = fabs(y);
		if (ki < jmax)
			dbl = 0.5;   /* between measured scales */
		*sd = hypot(*sd, EXTRAP_SD * fabs(y) * dbl);
		*how = "the curve's extrapolation";
		return 0;
	}
	{
		const struct ar_pol_obs *o = &m->at[j0];
		double y0 = o->est, s0 = obs_sd(o), k0 = (double)ar_pol_k(j0);

		if (isfinite(m->pfrac) && m->pfrac > 0 && m->pfrac <= 1 &&
		    c->base_pfrac > 0 && c->base_pfrac <= 1) {
			double ps = isfinite(m->pfrac_sd) && m->pfrac_sd > 0 ?
			    m->pfrac_sd : 0.05;
			double pm = m->pfrac, up, dn;

			*mu = pf_ratio(y0, k0, k, pm, c->base_pfrac);
			up = pf_ratio(y0, k0, k, pm + ps > 1 ? 1 : pm + ps,
			    c->base_pfrac);
			dn = pf_ratio(y0, k0, k, pm - ps < 0 ? 0 : pm - ps,
			    c->base_pfrac);
			*sd = hypot(hypot(s0 * *mu / y0, (up - dn) / 2),
			    EXTRAP_SD * *mu * dbl);
			*how = "the parallel fraction";
		} else if (m->hint > 0) {
			*mu = y0 * (1 + 0.02 * dbl);
			*sd = hypot(s0, 0.06 * y0 * dbl);
			*how = "the planner's hint";
		} else if (m->hint < 0) {
			*mu = y0;
			*sd = hypot(s0, 0.01 * y0 * dbl);
			*how = "the planner's hint (single)";
		} else {
			*mu = y0;
			*sd = hypot(s0, 0.04 * y0 * dbl);
			*how = "the k=1 probe alone";
		}
	}
	return 0;
}

/* With the baseline's parallel fraction known, the ratio follows
 *
 *   r(k) = a * A(k, p) / A(k, pb),  A(k, p) = 1 / ((1 - p) + p / k),
 *
 * with the method's own fraction p unknown: its prior is the fraction a
 * profile measured (else the hint's guess, else the baseline's, widely),
 * and every measured scale narrows it. The posterior over a grid of p,
 * with a fitted in log space for each, gives the prediction at every k
 * and its spread; extrapolation past the largest measured k adds the
 * model error (contention, which a k=1 profile cannot see). */
#define PGRID 200

static int
predict_pf(const struct ar_pol_method *m, const struct ar_pol_cfg *c,
    int skip, double *mu, double *sd, int *ok, const char **how)
{
	double x[AR_POL_NK], w[AR_POL_NK], pb = c->base_pfrac, p0, ps;
	double la[PGRID + 1], chi[PGRID + 1], cmin = INFINITY, sw = 0;
	double lr[PGRID + 1][AR_POL_NK];
	double mL[AR_POL_NK] = {0}, m2[AR_POL_NK] = {0}, wsum = 0;
	int j, i, ki, nj = 0, jmax = -1;

	for (j = 0; j < AR_POL_NK; j++) {
		const struct ar_pol_obs *o = &m->at[j];

		w[j] = 0;
		if (j == skip || !measured(o) || !o->feasible || !(o->est > 0))
			continue;
		x[j] = log(o->est);
		w[j] = 1 / pow(obs_sd(o) / o->est, 2);
		sw += w[j];
		nj++;
		jmax = j;
	}
	if (nj == 0)
		return -1;
	if (isfinite(m->pfrac) && m->pfrac >= 0 && m->pfrac <= 1) {
		p0 = m->pfrac;
		ps = isfinite(m->pfrac_sd) && m->pfrac_sd > 0 ? m->pfrac_sd :
		    0.05;
		*how = nj > 1 ? "the curve with the parallel fraction" :
		    "the parallel fraction";
	} else if (m->hint > 0) {
		p0 = pb + (1 - pb) / 2;
		ps = (1 - pb) / 2 + 0.02;
		*how = nj > 1 ? "the curve with the hint" : "the planner's hint";
	} else if (m->hint < 0) {
		p0 = pb;
		ps = 0.02;
		*how = nj > 1 ? "the curve with the hint" : "the planner's hint";
	} else {
		p0 = pb;
		ps = 0.1;
		*how = nj > 1 ? "the curve" : "the k=1 probe alone";
	}
	/* The curve's shape at each grid point and k, in log space: the
	 * same for every sum below, so worked out once. */
	for (i = 0; i <= PGRID; i++)
		for (ki = 0; ki < AR_POL_NK; ki++) {
			double k = (double)ar_pol_k(ki);

			lr[i][ki] = log(amdahl(k, (double)i / PGRID) /
			    amdahl(k, pb));
		}
	for (i = 0; i <= PGRID; i++) {
		double p = (double)i / PGRID, num = 0, e = 0;

		for (j = 0; j < AR_POL_NK; j++)
			if (w[j] > 0)
				num += w[j] * (x[j] - lr[i][j]);
		la[i] = num / sw;
		for (j = 0; j < AR_POL_NK; j++)
			if (w[j] > 0) {
				double r = x[j] - la[i] - lr[i][j];

				e += w[j] * r * r;
			}
		chi[i] = e + (p - p0) * (p - p0) / (ps * ps);
		if (chi[i] < cmin)
			cmin = chi[i];
	}
	for (i = 0; i <= PGRID; i++) {
		double wi = exp(-(chi[i] - cmin) / 2);

		wsum += wi;
		for (ki = 0; ki < AR_POL_NK; ki++) {
			double y = la[i] + lr[i][ki];

			mL[ki] += wi * y;
			m2[ki] += wi * y * y;
		}
	}
	for (ki = 0; ki < AR_POL_NK; ki++) {
		double mean = mL[ki] / wsum, var = m2[ki] / wsum - mean * mean;
		double dbl = ki > jmax ? ki - jmax : 0;

		if (var < 0)
			var = 0;
		var += 1 / sw;
		mu[ki] = exp(mean);
		sd[ki] = hypot(mu[ki] * sqrt(var), EXTRAP_SD * mu[ki] * dbl);
		ok[ki] = 1;
	}
	return 0;
}

/* Predictions at every k for one method; ok[k] says which exist. */
static void
predict_all(const struct ar_pol_method *m, const struct ar_pol_cfg *c,
    double *mu, double *sd, int *ok, const char **how)
{
	int ki;

	if (c->base_pfrac > 0 && c->base_pfrac <= 1 &&
	    predict_pf(m, c, -1, mu, sd, ok, how) == 0)
		return;
	for (ki = 0; ki < AR_POL_NK; ki++)
		ok[ki] = predict(m, c, ki, &mu[ki], &sd[ki], how) == 0;
}

/* What ours believes of each measured feasible pair: its estimate,
 * pulled toward what the method's other scales predict there (the
 * parallel-fraction curve, with the model's own error), so that one
 * lucky draw weighs less against a method's whole curve. */
struct view {
	double e, sd;
	int ok;
};

static void
view_of(const struct ar_pol_method *m, const struct ar_pol_cfg *c,
    struct view *v)
{
	int j, nj = 0;

	for (j = 0; j < AR_POL_NK; j++)
		if (measured(&m->at[j]) && m->at[j].feasible &&
		    m->at[j].est > 0)
			nj++;
	for (j = 0; j < AR_POL_NK; j++) {
		const struct ar_pol_obs *o = &m->at[j];
		double mu[AR_POL_NK], sd[AR_POL_NK];
		int ok[AR_POL_NK];
		const char *how;

		v[j].ok = measured(o) && o->feasible;
		if (!v[j].ok)
			continue;
		v[j].e = o->est;
		v[j].sd = obs_sd(o);
		if (SHRINK && nj >= 2 && o->est > 0 && c->base_pfrac > 0 &&
		    c->base_pfrac <= 1 && predict_pf(m, c, j, mu, sd, ok,
		    &how) == 0) {
			double ms = hypot(sd[j], EXTRAP_SD * mu[j]);
			double w1 = 1 / (v[j].sd * v[j].sd), w2 = 1 / (ms * ms);

			v[j].e = (w1 * o->est + w2 * mu[j]) / (w1 + w2);
			v[j].sd = 1 / sqrt(w1 + w2);
		}
	}
}

static struct view *
views(const struct ar_pol_method *m, size_t n, const struct ar_pol_cfg *c)
{
	struct view *v = ar_xcalloc(n * AR_POL_NK, sizeof *v);
	size_t i;

	for (i = 0; i < n; i++)
		view_of(&m[i], c, &v[i * AR_POL_NK]);
	return v;
}

/* ours' best: the highest belief less z standard errors. */
static int
best_view(const struct view *v, size_t n, double z, size_t *bm, int *bk)
{
	size_t i;
	int j, found = 0;
	double b = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < AR_POL_NK; j++) {
			const struct view *w = &v[i * AR_POL_NK + j];

			if (!w->ok)
				continue;
			if (!found || w->e - z * w->sd > b) {
				found = 1;
				b = w->e - z * w->sd;
				*bm = i;
				*bk = j;
			}
		}
	return found ? 0 : -1;
}

/* The incumbent of ours, grid and sha: the highest estimate among the
 * feasible measured pairs, the smaller k on a tie. flat1 looks at k=1
 * only. */
static int
best_of(const struct ar_pol_method *m, size_t n, int k1only, double z,
    size_t *bm, int *bk)
{
	size_t i;
	int j, found = 0;
	double b = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < (k1only ? 1 : AR_POL_NK); j++) {
			const struct ar_pol_obs *o = &m[i].at[j];

			if (!measured(o) || !o->feasible)
				continue;
			if (!found || o->est - z * obs_sd(o) > b) {
				found = 1;
				b = o->est - z * obs_sd(o);
				*bm = i;
				*bk = j;
			}
		}
	return found ? 0 : -1;
}

int
ar_policy_best(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, size_t *method, int *ki)
{
	struct view *v;
	int r;

	if (c->policy != AR_POL_OURS)
		return best_of(m, n, c->policy == AR_POL_FLAT1, 0, method, ki);
	v = views(m, n, c);
	r = best_view(v, n, CAUTION, method, ki);
	free(v);
	return r;
}

/* A taken[] mark for what this call already chose: pending from then. */
/* A method's predictions at every k (predict_all), made once. */
struct pred {
	double mu[AR_POL_NK], sd[AR_POL_NK];
	int ok[AR_POL_NK], done;
	const char *how;
};

/* One call of ar_policy_next. The beliefs (views), the incumbent and
 * the predictions depend on the methods and the settings only, not on
 * what was picked, so ours makes them once for all its picks. */
struct state {
	const struct ar_pol_method *m;
	size_t n;
	const struct ar_pol_cfg *c;
	unsigned char *taken;
	double spent;
	struct view *vw;            /* NULL until ours needs them */
	struct pred *pr;
	int have;                   /* an incumbent: bm at bk */
	size_t bm;
	int bk;
	double second;              /* the runner-up's belief */
};

static int
free_pair(const struct state *s, size_t i, int ki)
{
	return !s->m[i].at[ki].pending && !s->taken[i * AR_POL_NK + ki] &&
	    affordable(s->c, ki, s->spent);
}

static void
put(struct state *s, struct ar_pol_pick *out, size_t i, int ki, int purpose,
    double value, const char *why)
{
	out->method = i;
	out->ki = ki;
	out->purpose = purpose;
	out->value = value;
	out->size_min = out->size_max = 1;
	out->stop_at = NAN;
	snprintf(out->why, sizeof out->why, "%s", why);
	s->taken[i * AR_POL_NK + ki] = 1;
	s->spent += cost_of(s->c, ki);
}

/* Does method i stand in sha's rung r (the r-th usable scale)? */
static int
sha_in(const struct state *s, size_t i, int r, const int *rung, int nr)
{
	size_t j, above, cands;
	int q = r - 1;
	const struct ar_pol_obs *o;

	if (r == 0)
		return 1;
	if (!sha_in(s, i, q, rung, nr))
		return 0;
	o = &s->m[i].at[rung[q]];
	if (!measured(o) || !o->feasible)
		return 0;
	/* The better half (rounded up) of rung q's feasible methods. */
	above = cands = 0;
	for (j = 0; j < s->n; j++) {
		const struct ar_pol_obs *p = &s->m[j].at[rung[q]];

		if (!sha_in(s, j, q, rung, nr) || !measured(p) || !p->feasible)
			continue;
		cands++;
		if (p->est > o->est || (p->est == o->est && j < i))
			above++;
	}
	return above < (cands + 1) / 2;
}

static size_t
next_sha(struct state *s, struct ar_pol_pick *out, size_t max)
{
	int rung[AR_POL_NK], nr = 0, r, ki;
	size_t i, got = 0;

	for (ki = 0; ki < AR_POL_NK; ki++)
		if (s->c->use[ki])
			rung[nr++] = ki;
	for (r = 0; r < nr && got < max; r++) {
		int waiting = 0;

		ki = rung[r];
		for (i = 0; i < s->n; i++) {
			const struct ar_pol_obs *o = &s->m[i].at[ki];

			if (!sha_in(s, i, r, rung, nr))
				continue;
			if (measured(o))
				continue;
			waiting = 1;
			if (got < max && free_pair(s, i, ki)) {
				char why[160];

				snprintf(why, sizeof why, "sha: rung %d of "
				    "%d, k=%ld", r + 1, nr, ar_pol_k(ki));
				put(s, &out[got++], i, ki, r ? AR_PUR_SCALE :
				    AR_PUR_PROBE, 0, why);
			}
		}
		/* A rung's survivors are known once all of it is measured. */
		if (waiting)
			break;
	}
	return got;
}

static void
sized(struct ar_pol_pick *p, double lo, double hi, double at)
{
	p->size_min = lo;
	p->size_max = hi;
	p->stop_at = at;
}

/* One pick of ours: the candidate of the highest value, if any. */
static int
next_ours(struct state *s, struct ar_pol_pick *out)
{
	const struct ar_pol_method *m = s->m;
	size_t i, bm = 0, best_i = 0;
	int ki, kj, bk = 0, best_k = -1, best_pur = 0, have;
	struct view *vw;
	double inc, best_v = 0, thr, best_at = NAN, second = 0;
	int lone = 0;
	char why[160] = "";

	if (!s->vw) {
		s->vw = views(m, s->n, s->c);
		s->pr = ar_xcalloc(s->n + 1, sizeof *s->pr);
		s->have = best_view(s->vw, s->n, CAUTION, &s->bm, &s->bk) == 0;
		/* The runner-up's belief: a lone incumbent's second look
		 * stops once it clearly leads it. */
		s->second = 0;
		for (i = 0; s->have && i < s->n; i++)
			for (ki = 0; ki < AR_POL_NK; ki++) {
				const struct view *w = &s->vw[i * AR_POL_NK +
				    ki];

				if (w->ok && !(i == s->bm && ki == s->bk) &&
				    w->e > s->second)
					s->second = w->e;
			}
	}
	vw = s->vw;
	have = s->have;
	bm = s->bm;
	bk = s->bk;
	second = s->second;
	inc = have ? vw[bm * AR_POL_NK + bk].e : 1;
	thr = inc * (1 + s->c->min_effect);
	/* New methods first: a k=1 probe is the cheapest evidence there
	 * is, and without it no prediction at any scale. */
	for (i = 0; i < s->n; i++) {
		if (measured(&m[i].at[0]) || !free_pair(s, i, 0))
			continue;
		put(s, out, i, 0, AR_PUR_PROBE, 0, "ours: a new method, "
		    "probed at k=1 first");
		sized(out, PROBE_MIN, 1, have ? inc * PROBE_BAR : NAN);
		return 1;
	}
	for (i = 0; i < s->n; i++) {
		const struct ar_pol_method *mi = &m[i];
		struct pred *pd = &s->pr[i];
		const double *pmu = pd->mu, *psd = pd->sd;
		const int *pok = pd->ok;
		const char *how;

		if (!pd->done) {
			pd->how = "";
			predict_all(mi, s->c, pd->mu, pd->sd, pd->ok, &pd->how);
			pd->done = 1;
		}
		how = pd->how;
		for (ki = 0; ki < AR_POL_NK; ki++) {
			const struct ar_pol_obs *o = &mi->at[ki];
			double mu, sd, v;

			if (!free_pair(s, i, ki))
				continue;
			if (measured(o)) {
				double d, sa, sb, ss, loss;
				const struct ar_pol_obs *a = &m[bm].at[bk];
				const struct view *va = &vw[bm * AR_POL_NK + bk];
				const struct view *vb = &vw[i * AR_POL_NK + ki];

				/* Re-measure to tell the incumbent from a
				 * rival within its noise. */
				if (!o->feasible || o->n >= N_MAX)
					continue;
				if (i == bm && ki == bk) {
					/* The best on one measurement too
					 * noisy to tell the minimum effect
					 * is measured once more: a lucky draw
					 * is likelier at the top. */
					if (o->n >= 2 || obs_sd(o) <= LONE_SD *
					    s->c->min_effect * inc)
						continue;
					v = exp_gain(0, obs_sd(o), 0) /
					    cost_of(s->c, ki);
					if (v > best_v) {
						best_v = v;
						best_i = i;
						best_k = ki;
						best_pur = AR_PUR_VALIDATE;
						lone = 1;
						best_at = second > 0 ? second *
						    (1 + s->c->min_effect) : NAN;
						snprintf(why, sizeof why, "ours: "
						    "the best so far rests on one "
						    "noisy measurement; measured "
						    "again");
					}
					continue;
				}
				sa = va->sd;
				sb = vb->sd;
				ss = hypot(sa, sb);
				d = va->e - vb->e;
				/* The chance that the rival beats the
				 * incumbent by more than the minimum effect:
				 * a miss, whatever the size of the gap. */
				loss = MISS_W * inc * ncdf((-d -
				    s->c->min_effect * inc) / ss);
				if (loss < EI_MIN * inc)
					continue;
				/* Worth that chance per GPU-hour; measure the
				 * one whose next measurement narrows the gap's
				 * variance most per GPU-hour. */
				{
					int inc_too = sa * sa / (a->n + 1) /
					    cost_of(s->c, bk) > sb * sb /
					    (o->n + 1) / cost_of(s->c, ki) &&
					    a->n < N_MAX && free_pair(s, bm, bk);
					size_t wi = inc_too ? bm : i;
					int wk = inc_too ? bk : ki;

					v = loss / cost_of(s->c, wk);
					if (v <= best_v)
						continue;
					best_v = v;
					best_i = wi;
					best_k = wk;
					best_pur = AR_PUR_VALIDATE;
					best_at = inc_too ? vb->e : va->e;
					lone = 0;
					if (inc_too)
						snprintf(why, sizeof why, "ours: "
						    "the best so far, again: a "
						    "rival at k=%ld is within "
						    "its noise", ar_pol_k(ki));
					else
						snprintf(why, sizeof why, "ours: "
						    "within the noise of the best "
						    "so far; measured again");
				}
				continue;
			}
			if (blocked(mi, ki) || !ladder(mi, ki) || !pok[ki])
				continue;
			mu = pmu[ki];
			sd = psd[ki];
			v = exp_gain(mu, sd, thr);
			/* A step up the ladder is worth what it may show
			 * above it as well, discounted: it is what tells
			 * whether the next step is worth its price. */
			for (kj = ki + 1; kj < AR_POL_NK; kj++) {
				double mj = pmu[kj], sj = psd[kj];

				if (!s->c->use[kj] || measured(&mi->at[kj]) ||
				    !pok[kj] || blocked(mi, kj))
					continue;
				if (LOOKAHEAD * exp_gain(mj, sj, thr) > v)
					v = LOOKAHEAD * exp_gain(mj, sj, thr);
			}
			if (v < SCALE_EI * inc * units(s->c, ki))
				continue;
			v /= cost_of(s->c, ki);
			if (v > best_v) {
				best_v = v;
				best_i = i;
				best_k = ki;
				best_pur = AR_PUR_SCALE;
				best_at = thr;
				lone = 0;
				snprintf(why, sizeof why, "ours: %s predicts "
				    "%.3f +- %.3f at k=%ld against %.3f",
				    how, mu, Z95 * sd, ar_pol_k(ki), inc);
			}
		}
	}
	if (best_k < 0)
		return 0;
	put(s, out, best_i, best_k, best_pur, best_v, why);
	if (best_pur == AR_PUR_SCALE)
		sized(out, SCALE_MIN, SCALE_MAX, best_at);
	else if (lone)
		sized(out, VAL_MIN, LONE_MAX, best_at);
	else
		sized(out, VAL_MIN, VAL_MAX, best_at);
	return 1;
}

size_t
ar_policy_next(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, struct ar_pol_pick *out, size_t max)
{
	struct state s;
	size_t got = 0, i;
	int ki;

	if (n == 0 || max == 0)
		return 0;
	s.m = m;
	s.n = n;
	s.c = c;
	s.spent = 0;
	s.vw = NULL;
	s.pr = NULL;
	if ((s.taken = calloc(n, AR_POL_NK)) == NULL)
		ar_die(AR_EX_SOFTWARE, "policy: out of memory");
	switch (c->policy) {
	case AR_POL_FLAT1:
		for (i = 0; i < n && got < max; i++)
			if (!measured(&m[i].at[0]) && free_pair(&s, i, 0))
				put(&s, &out[got++], i, 0, AR_PUR_PROBE, 0,
				    "flat1: every method at k=1");
		break;
	case AR_POL_GRID:
		for (ki = 0; ki < AR_POL_NK; ki++)
			for (i = 0; i < n && got < max; i++)
				if (!measured(&m[i].at[ki]) &&
				    free_pair(&s, i, ki))
					put(&s, &out[got++], i, ki, ki ?
					    AR_PUR_SCALE : AR_PUR_PROBE, 0,
					    "grid: every method at every k");
		break;
	case AR_POL_SHA:
		got = next_sha(&s, out, max);
		break;
	default:
		while (got < max && next_ours(&s, &out[got]))
			got++;
		break;
	}
	free(s.taken);
	free(s.vw);
	free(s.pr);
	return got;
}
