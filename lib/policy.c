/* policy.c: which (method, k) to measure next, and which is best.
 *
 * Four policies share the interface, so that ar-sched simulate compares
 * them on the code ar-sched next runs:
 *   flat1  every method at k=1, the best at k=1 (autoresearch's way);
 *   grid   every method at every k, the best estimate;
 *   sha    successive halving with the GPU count as the fidelity: all at
 *          k=1, the better half of them at 2, of those at 4, then 8;
 *   ours   k=1 probes of new methods first; then the measurements of the
 *          highest value per GPU-hour: scale probes, one step up a
 *          method's ladder at a time, where the method's own curve (a
 *          Gaussian process over log k, learnt from what it and the
 *          campaign's other methods measured, widened by how far the
 *          campaign's curves left their course; no hint needed) may beat
 *          the incumbent, and re-measurements of pairs within the
 *          incumbent's noise, worth the expected amount by which the pick
 *          could miss the best by more than the minimum effect; nothing
 *          when no measurement is worth its price, and never more than
 *          AR_POL_GRID_CAP of the grid's GPU-hours. Its measurements are
 *          sequential (policy.h): they stop once the question they were
 *          made for is clear. Its best so far, the incumbent, is the
 *          feasible pair of the highest estimate less one standard
 *          error (half of one for a pair measured again), so that one
 *          lucky draw does not win; its pick (pick_ours) reads each
 *          pair through its method's curve.
 * The constants below may be set at build time (-DEI_MIN=...), which is
 * how they were tuned with ar-sched simulate on the tuning sets of
 * bench/bench-policy.sh.
 * Scores are ratios to the baseline at the same k, higher better.
 * One file past 1,000 lines: the four policies share its helpers (costs,
 * the ladder, the incumbent) and one interface, and ours' curve is only
 * what its picks and its pick read; split, each half would export the
 * other's internals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "policy.h"

#define Z95 1.959964
/* A measurement is worth making when its value reaches this fraction of
 * the incumbent's score per unit of price (units(): a k=1 measurement
 * in a campaign of GRID_REF of them): EI_MIN for a re-measurement,
 * SCALE_EI for a scale probe. */
#ifndef EI_MIN
#define EI_MIN 0.00006
#endif
#ifndef SCALE_EI
#define SCALE_EI 0.0003
#endif
/* A rival is measured again only while it is within VAL_Z standard
 * errors of the incumbent: further away, its chance of being better is
 * too small to be worth a look, and the many such looks (probes stopped
 * early at a quarter measurement are all noisy) took the GPU-hours that
 * resolving the best and its closest rival needs (resolve_top). */
#ifndef VAL_Z
#define VAL_Z 2
#endif
/* No pair is measured more often than this: past four looks a close
 * call is as good as a tie, and its GPU-hours are better spent on
 * another question. A noisy pair is the exception: while its standard
 * error still exceeds NOISY_SD minimum effects, four looks have not
 * told it from a pair one minimum effect away, so it may have up to
 * N_NOISY (done()). */
#ifndef N_MAX
#define N_MAX 4
#endif
#ifndef N_NOISY
#define N_NOISY 8
#endif
#ifndef NOISY_SD
#define NOISY_SD 1.0
#endif
/* The best is the highest estimate less CAUTION standard errors, so
 * that the luckiest of many single draws does not win; less CAUTION_N
 * of them for a pair measured twice or more, whose first draw ours'
 * own re-measurements have diluted: a full standard error there hands
 * every close call to the quieter pair, and a noisy best loses it. */
#ifndef CAUTION
#define CAUTION 1.0
#endif
#ifndef CAUTION_N
#define CAUTION_N 0.5
#endif
/* What a scale probe's view of the scales above it is worth. */
#ifndef LOOKAHEAD
#define LOOKAHEAD 0.35
#endif
/* Sizes, in standard measurements, of ours' sequential measurements.
 * Probes, k=1 or scale, may stop after a quarter (the 8 pairs of a first
 * look's interval), since most of them only have to show that a method
 * is a dud or does not pay at scale: a k=1 probe stops early once it is
 * clearly above or below PROBE_BAR of the incumbent, a scale probe once
 * it clearly beats the incumbent by the minimum effect or clearly does
 * not. Re-measurements stop once the rival is clearly above or below the
 * other, and close calls run to VAL_MAX measurements. An incumbent is
 * looked at again, for up to half a measurement at a time, while its sd
 * exceeds LONE_SD minimum effects. */
#ifndef LONE_SD
#define LONE_SD 3
#endif
#define LONE_MAX 0.5
#ifndef PROBE_MIN
#define PROBE_MIN 0.25
#endif
#ifndef PROBE_BAR
#define PROBE_BAR 1.0
#endif
#ifndef SCALE_MIN
#define SCALE_MIN 0.25
#endif
#define SCALE_MAX 1.0
#ifndef VAL_MIN
#define VAL_MIN 0.25
#endif
#ifndef VAL_MAX
#define VAL_MAX 3
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

/* One measurement of method m at k: its own figure once known. */
static double
cost_m(const struct ar_pol_cfg *c, const struct ar_pol_method *m, int ki)
{
	return m->cost_h[ki] > 0 ? m->cost_h[ki] : cost_of(c, ki);
}

/* A measurement's price: its share of the grid's GPU-hours, counted in
 * the k=1 measurements of a campaign of GRID_REF of them, so that a
 * measurement must promise more in a small campaign, where it is a
 * larger share of what the campaign may spend, than in a large one.
 * Without the grid's figure, its cost in the campaign's k=1
 * measurements. */
#ifndef GRID_REF
#define GRID_REF 200
#endif

static double
units(const struct ar_pol_cfg *c, const struct ar_pol_method *m, int ki)
{
	if (GRID_REF > 0 && c->grid_h > 0)
		return cost_m(c, m, ki) / c->grid_h * GRID_REF;
	return cost_m(c, m, ki) / cost_of(c, 0);
}

/* Whether a measurement of size standard ones fits the budget and, for
 * ours unless nocap, the cap: ours stops short of the grid, since past
 * it what is left to tell apart is ties. A new method's first probe is
 * never capped: the grid has it too, and a campaign looks at every
 * method at least once. */
static int
affordable(const struct ar_pol_cfg *c, const struct ar_pol_method *m,
    int ki, double spent, double size, int nocap)
{
	double h = cost_m(c, m, ki) * size;

	if (!c->use[ki])
		return 0;
	if (c->budget_h >= 0 && h + spent > c->budget_h + 1e-12)
		return 0;
	if (!nocap && c->policy == AR_POL_OURS && c->grid_h > 0 &&
	    c->spent_h + spent + h > (c->grid_cap > 0 ? c->grid_cap :
	    AR_POL_GRID_CAP) * c->grid_h)
		return 0;
	return 1;
}

/* The least sd of a measured estimate, relative: a hundredth of the
 * minimum effect at a ratio of 1, well clear of dividing by zero. */
#define OBS_SD_MIN 1e-4

static double
obs_sd(const struct ar_pol_obs *o)
{
	double sd = (o->hi - o->lo) / (2 * Z95);

	/* An interval of no width (or next to none) is a measurement
	 * without noise, a deterministic metric: known to a hair, not
	 * unknown. Taken as 2% noise, it was measured again and again
	 * until the cap, since more of it never narrowed it. */
	if (sd >= 0 && isfinite(sd) && sd < OBS_SD_MIN * fabs(o->est))
		return OBS_SD_MIN * fabs(o->est);
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

/* Whether a pair has had all the looks it may have: N_MAX, or N_NOISY
 * while its standard error exceeds NOISY_SD tolerances (tol: the
 * minimum effect, in ratio to the baseline). */
static int
done(const struct ar_pol_obs *o, double tol)
{
	return o->n >= N_NOISY || (o->n >= N_MAX && obs_sd(o) <= NOISY_SD *
	    tol);
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

/* The ladder: a scale is probed only right above a measured one (2 above
 * 1, 4 above 2, 8 above 4, of the scales in use), so that a curve that peaks at 2 or 4 is seen
 * there before any dearer scale is tried. */
static int
ladder(const struct ar_pol_method *m, const struct ar_pol_cfg *c, int ki)
{
	int j = ki - 1;

	/* A scale the campaign does not use is stepped over. */
	while (j >= 0 && !c->use[j])
		j--;
	return j < 0 || measured(&m->at[j]);
}

/* Whether a method the planner hinted may pay at scale is owed a probe
 * at k (2 or 4): the scale below it is measured, feasible, and at least
 * HINT_FLOOR of the incumbent (below that it is dead, hint or not). */
#ifndef HINT_FLOOR
#define HINT_FLOOR 0.5
#endif
static int
hint_probe(const struct ar_pol_method *m, const struct ar_pol_cfg *c, int ki,
    double inc)
{
	int j = ki - 1;

	if (m->hint <= 0 || ar_pol_k(ki) > 4)
		return 0;
	while (j >= 0 && !c->use[j])
		j--;
	return j >= 0 && measured(&m->at[j]) && m->at[j].feasible &&
	    m->at[j].est >= HINT_FLOOR * inc;
}

/* How a method's score moves with k, learnt from what is measured. The
 * log of its ratio at the scales j = log2 k (0 to 3) is a level plus a
 * curve, a Gaussian process: the kernel (kern) is a trend in j (a
 * slope of sd GP_B per doubling, so that a method rising from 1 to 2 is
 * expected to go on rising), a bend (GP_Q j^2: the ratios of Amdahl's
 * law accelerate in log k when the baseline stops scaling) and a smooth
 * departure from both (GP_S over GP_L doublings: plateaus, peaks at 2,
 * 4 or 8). It assumes no family of curves: one k=1 result leaves every
 * larger k open, so a method weak at k=1 keeps a chance at scale until a
 * cheap k=2 probe says which way it goes, and each measured scale
 * narrows its neighbours. The campaign sets the rest (gp_learn): the
 * level's prior is the spread of the methods' k=1 estimates (so that
 * the luckiest of many noisy probes is not believed at its word when it
 * predicts), the prior mean curve the methods' average move from k=1
 * (mostly the baseline's own scaling, which every ratio shares), and the
 * kernel's scale how far the methods measured at two scales or more
 * have moved. Hints are not needed; they help where given: a method's
 * parallel fraction with the baseline's adds W_PF of Amdahl's ratio to
 * its prior mean, a hint of scale widens the kernel by a quarter, one of
 * single halves it. Infeasible results are left out: a crashed run's
 * score says nothing of the curve. */
#ifndef GP_B
#define GP_B 0.06
#endif
#ifndef GP_Q
#define GP_Q 0.04
#endif
#ifndef GP_S
#define GP_S 0.08
#endif
#ifndef GP_L
#define GP_L 1.5
#endif
#ifndef W_PF
#define W_PF 0.5
#endif
/* The kernel's scale is learnt as a mean over the methods, weighed
 * against 1 as GP_N0 methods' worth and kept within GP_FLOOR..GP_CEIL:
 * a mean, not a median, since one scale winner among flat methods is the
 * thing a campaign must not miss. */
#ifndef GP_N0
#define GP_N0 4
#endif
#define GP_FLOOR 0.5
#define GP_CEIL 4
/* The level's prior needs GP_POP methods measured at k=1; its spread is
 * at least GP_TAU_MIN. Without them, a level of sd GP_LEVEL: unknown. */
#define GP_POP 4
#define GP_TAU_MIN 0.03
#define GP_LEVEL 1.0

static double
kern(int i, int j, double lam)
{
	return lam * lam * (GP_B * GP_B * i * j + GP_Q * GP_Q * i * i * j *
	    j + GP_S * GP_S * exp(-(double)((i - j) * (i - j)) /
	    (2 * GP_L * GP_L)));
}

/* Solves a x = b for a symmetric positive definite a of order n <= 4,
 * in place, by Cholesky; returns -1 when it is not. */
static int
chol_solve(double a[AR_POL_NK][AR_POL_NK], int n, double *b)
{
	double l[AR_POL_NK][AR_POL_NK] = {{0}}, y[AR_POL_NK];
	int i, j, k;

	for (j = 0; j < n; j++) {
		double d = a[j][j];

		for (k = 0; k < j; k++)
			d -= l[j][k] * l[j][k];
		if (!(d > 0))
			return -1;
		l[j][j] = sqrt(d);
		for (i = j + 1; i < n; i++) {
			double e = a[i][j];

			for (k = 0; k < j; k++)
				e -= l[i][k] * l[j][k];
			l[i][j] = e / l[j][j];
		}
	}
	for (i = 0; i < n; i++) {
		y[i] = b[i];
		for (k = 0; k < i; k++)
			y[i] -= l[i][k] * y[k];
		y[i] /= l[i][i];
	}
	for (i = n - 1; i >= 0; i--) {
		b[i] = y[i];
		for (k = i + 1; k < n; k++)
			b[i] -= l[k][i] * b[k];
		b[i] /= l[i][i];
	}
	return 0;
}

/* What gp_learn learns of the campaign. */
struct gp_hyp {
	double amp;          /* the kernel's scale */
	double mu, tau;      /* the levels' mean and spread, log */
	double shape[AR_POL_NK]; /* the methods' mean move from k=1, log */
	double jump2;        /* learnt roughness: added to unmeasured k */
};

static void
gp_learn(const struct ar_pol_method *m, size_t n, struct gp_hyp *h)
{
	double sum = GP_N0, cnt = GP_N0, a;
	double ls = 0, ls2 = 0, nv = 0;
	size_t i, nl = 0;
	int j, q;

	h->jump2 = 0;
	for (i = 0; i < n; i++) {
		const struct ar_pol_obs *o = &m[i].at[0];
		double ms = 0;
		int np = 0;

		if (measured(o) && o->est > 0) {
			double l = log(o->est), e = obs_sd(o) / o->est;

			ls += l;
			ls2 += l * l;
			nv += e * e;
			nl++;
		}
		for (j = 0; j < AR_POL_NK; j++)
			for (q = j + 1; q < AR_POL_NK; q++) {
				const struct ar_pol_obs *x = &m[i].at[j];
				const struct ar_pol_obs *y = &m[i].at[q];
				double dl, v, f;

				if (!measured(x) || !measured(y) ||
				    !x->feasible || !y->feasible ||
				    !(x->est > 0) || !(y->est > 0))
					continue;
				dl = log(y->est / x->est);
				v = pow(obs_sd(x) / x->est, 2) +
				    pow(obs_sd(y) / y->est, 2);
				f = kern(j, j, 1) + kern(q, q, 1) -
				    2 * kern(j, q, 1);
				ms += (dl * dl - v) / f;
				np++;
			}
		if (np) {
			sum += ms / np;
			cnt += 1;
		}
	}
	/* The mean curve: how the methods measured at k and at 1 moved
	 * between them, on average, pulled toward no move by GP_N0 methods'
	 * worth. It is mostly the baseline's own scaling (every score is a
	 * ratio to it), which every method shares. */
	for (j = 0; j < AR_POL_NK; j++) {
		double d = 0;
		int nd = 0;

		for (i = 0; j > 0 && i < n; i++) {
			const struct ar_pol_obs *x = &m[i].at[0];
			const struct ar_pol_obs *y = &m[i].at[j];

			if (!measured(x) || !measured(y) || !x->feasible ||
			    !y->feasible || !(x->est > 0) || !(y->est > 0))
				continue;
			d += log(y->est / x->est);
			nd++;
		}
		h->shape[j] = d / (nd + GP_N0);
	}
	a = sum / cnt;
	h->amp = a > GP_FLOOR * GP_FLOOR ? sqrt(a) : GP_FLOOR;
	if (h->amp > GP_CEIL)
		h->amp = GP_CEIL;
	h->mu = 0;
	h->tau = GP_LEVEL;
	if (nl >= GP_POP) {
		double mean = ls / (double)nl;
		double var = ls2 / (double)nl - mean * mean - nv / (double)nl;

		h->mu = mean;
		h->tau = var > GP_TAU_MIN * GP_TAU_MIN ? sqrt(var) :
		    GP_TAU_MIN;
	}
}

/* The posterior of the method's log ratio at every k, the curves'
 * amplitude amp; mean lm, variance lv. -1 when there is no measurement
 * to learn from. */
static int
gp_post(const struct ar_pol_method *m, const struct ar_pol_cfg *c,
    const struct gp_hyp *h, double *lm, double *lv, const char **how)
{
	double prior[AR_POL_NK], kk[AR_POL_NK][AR_POL_NK], amp = h->amp;
	double a[AR_POL_NK][AR_POL_NK], r[AR_POL_NK], noise[AR_POL_NK];
	int obs[AR_POL_NK], n = 0, i, j, q;

	*how = "the method's curve";
	for (j = 0; j < AR_POL_NK; j++)
		prior[j] = h->mu + h->shape[j];
	if (isfinite(m->pfrac) && m->pfrac >= 0 && m->pfrac <= 1 &&
	    c->base_pfrac > 0 && c->base_pfrac <= 1) {
		for (j = 0; j < AR_POL_NK; j++) {
			double k = (double)ar_pol_k(j);

			prior[j] = h->mu + h->shape[j] + W_PF *
			    log(amdahl(k, m->pfrac) / amdahl(k,
			    c->base_pfrac));
		}
		*how = "the method's curve and its parallel fraction";
	} else if (m->hint > 0) {
		amp *= 1.25;
		*how = "the method's curve and the planner's hint";
	} else if (m->hint < 0) {
		amp *= 0.5;
		*how = "the method's curve and the planner's hint";
	}
	for (i = 0; i < AR_POL_NK; i++)
		for (j = 0; j < AR_POL_NK; j++)
			kk[i][j] = h->tau * h->tau + kern(i, j, amp);
	for (j = 0; j < AR_POL_NK; j++) {
		const struct ar_pol_obs *o = &m->at[j];

		if (!measured(o) || !o->feasible || !(o->est > 0))
			continue;
		obs[n] = j;
		r[n] = log(o->est) - prior[j];
		noise[n] = obs_sd(o) / o->est;
		n++;
	}
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			a[i][j] = kk[obs[i]][obs[j]] + (i == j ? noise[i] *
			    noise[i] : 0);
	{
		double alpha[AR_POL_NK];

		memcpy(alpha, r, sizeof alpha);
		if (chol_solve(a, n, alpha) < 0)
			return -1;
		for (j = 0; j < AR_POL_NK; j++) {
			double col[AR_POL_NK] = { 0 }, v = kk[j][j];

			lm[j] = prior[j];
			for (q = 0; q < n; q++) {
				lm[j] += kk[j][obs[q]] * alpha[q];
				col[q] = kk[j][obs[q]];
			}
			{
				double rhs[AR_POL_NK];

				memcpy(rhs, col, sizeof rhs);
				for (i = 0; i < n; i++)
					for (q = 0; q < n; q++)
						a[i][q] = kk[obs[i]][obs[q]] +
						    (i == q ? noise[i] *
						    noise[i] : 0);
				if (chol_solve(a, n, rhs) < 0)
					return -1;
				for (q = 0; q < n; q++)
					v -= col[q] * rhs[q];
			}
			lv[j] = v > 0 ? v : 0;
		}
	}
	return 0;
}

/* How rough the campaign's curves are: each method measured at three
 * scales or more predicts its highest one from those below, and JUMP_W
 * of what its squared error exceeds the prediction's variance and the
 * measurement's noise by, on average (against JUMP_N0 methods' worth of
 * none; at most JUMP_MAX, log), is added to every unmeasured scale's
 * variance. A smooth curve cannot foresee a jump at 8 (a model that
 * fits in memory only there, a collective that overlaps only past 4),
 * and a method flat at 1, 2 and 4 earns a k=8 probe only where the
 * campaign has seen its curves leave their course. On the tuning sets
 * (3 repeats): +0.25 point found on the indep recipe's for 0.2% more of
 * the grid; the whole excess (JUMP_W 1) found 0.07 point more there and
 * cost twice as much on shapes-tune. */
#ifndef JUMP_N0
#define JUMP_N0 4
#endif
#ifndef JUMP_W
#define JUMP_W 0.5
#endif
#ifndef JUMP_MAX
#define JUMP_MAX 0.15
#endif
static void
learn_jump(const struct ar_pol_method *m, size_t n,
    const struct ar_pol_cfg *c, struct gp_hyp *h)
{
	double sum = 0, cnt = JUMP_N0;
	size_t i;

	h->jump2 = 0;
	for (i = 0; i < n; i++) {
		struct ar_pol_method x = m[i];
		double lm[AR_POL_NK], lv[AR_POL_NK], r, e;
		const char *how;
		int j, top = -1, below = 0;

		for (j = 0; j < AR_POL_NK; j++) {
			const struct ar_pol_obs *o = &m[i].at[j];

			if (!measured(o) || !o->feasible || !(o->est > 0))
				continue;
			if (top >= 0)
				below++;
			top = j;
		}
		if (below < 2)
			continue;
		x.at[top].n = 0;
		if (gp_post(&x, c, h, lm, lv, &how) < 0)
			continue;
		r = log(m[i].at[top].est) - lm[top];
		e = obs_sd(&m[i].at[top]) / m[i].at[top].est;
		sum += r * r - lv[top] - e * e;
		cnt += 1;
	}
	if (sum > 0)
		h->jump2 = fmin(JUMP_W * sum / cnt, JUMP_MAX * JUMP_MAX);
}

/* Predictions at every k for one method, as ratios: ok[k] says which
 * exist. */
static void
predict_all(const struct ar_pol_method *m, const struct ar_pol_cfg *c,
    const struct gp_hyp *h, double *mu, double *sd, int *ok,
    const char **how)
{
	double lm[AR_POL_NK], lv[AR_POL_NK];
	int j, got = gp_post(m, c, h, lm, lv, how) == 0;

	for (j = 0; j < AR_POL_NK; j++) {
		ok[j] = got;
		if (!got)
			continue;
		mu[j] = exp(lm[j]);
		if (!measured(&m->at[j]))
			lv[j] += h->jump2;
		sd[j] = mu[j] * sqrt(lv[j]);
	}
}

/* What ours believes of each measured feasible pair: its pooled
 * estimate and standard error. (Pulling it toward the method's curve was
 * tried: it flattens the peaks that a campaign is looking for.) */
struct view {
	double e, sd;
	int ok;
};

static struct view *
views(const struct ar_pol_method *m, size_t n)
{
	struct view *v = ar_xcalloc(n * AR_POL_NK, sizeof *v);
	size_t i;
	int j;

	for (i = 0; i < n; i++)
		for (j = 0; j < AR_POL_NK; j++) {
			const struct ar_pol_obs *o = &m[i].at[j];
			struct view *w = &v[i * AR_POL_NK + j];

			w->ok = measured(o) && o->feasible;
			if (!w->ok)
				continue;
			w->e = o->est;
			w->sd = obs_sd(o);
		}
	return v;
}

/* The caution of ours' best for one pair: CAUTION_N once re-measured. */
static double
zn(double z, const struct ar_pol_obs *o)
{
	return z > 0 && o->n >= 2 ? CAUTION_N : z;
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
			if (!found || o->est - zn(z, o) * obs_sd(o) > b) {
				found = 1;
				b = o->est - zn(z, o) * obs_sd(o);
				*bm = i;
				*bk = j;
			}
		}
	return found ? 0 : -1;
}

/* ours' pick, once the campaign is over or whenever it is asked: each
 * measured feasible pair read through its method's curve (gp_post),
 * less PICK_Z of its standard deviation, or CAUTION of it for a pair
 * measured once (a lucky single draw). A noisy pair's lucky draw is
 * weighed against what the method showed at its other scales; a quiet
 * pair keeps its own estimate. The curve is PICK_AMP times as free as
 * the one that predicts, and its level is not pulled toward the other
 * methods': the best is an outlier among them by definition, and
 * either pull took the true best down with the lucky ones. The
 * incumbent of ours_picks stays best_of's, whose caution steers what is
 * measured next. */
#ifndef PICK_Z
#define PICK_Z 0.25
#endif
#ifndef PICK_AMP
#define PICK_AMP 2
#endif

static int
pick_ours(const struct ar_pol_method *m, size_t n, const struct ar_pol_cfg *c,
    size_t *bm, int *bk, double *mu_out, double *sd_out)
{
	struct gp_hyp h;
	size_t i;
	int j, found = 0;
	double b = 0;

	gp_learn(m, n, &h);
	h.amp *= PICK_AMP;
	h.tau = GP_LEVEL;
	for (i = 0; i < n; i++) {
		double mu[AR_POL_NK], sd[AR_POL_NK];
		int ok[AR_POL_NK];
		const char *how;

		predict_all(&m[i], c, &h, mu, sd, ok, &how);
		for (j = 0; j < AR_POL_NK; j++) {
			const struct ar_pol_obs *o = &m[i].at[j];
			double e, s;

			if (!measured(o) || !o->feasible)
				continue;
			e = ok[j] ? mu[j] : o->est;
			s = ok[j] ? sd[j] : obs_sd(o);
			s *= o->n >= 2 ? PICK_Z : CAUTION;
			if (!found || e - s > b) {
				found = 1;
				b = e - s;
				*bm = i;
				*bk = j;
				*mu_out = e;
				*sd_out = ok[j] ? sd[j] : obs_sd(o);
			}
		}
	}
	return found ? 0 : -1;
}

int
ar_policy_pick(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, size_t *method, int *ki, double *est,
	double *sd)
{
	double e = NAN, s = NAN;
	int r;

	if (c->policy == AR_POL_OURS)
		r = pick_ours(m, n, c, method, ki, &e, &s);
	else if ((r = best_of(m, n, c->policy == AR_POL_FLAT1, 0, method,
	    ki)) == 0) {
		e = m[*method].at[*ki].est;
		s = obs_sd(&m[*method].at[*ki]);
	}
	if (est)
		*est = e;
	if (sd)
		*sd = s;
	return r;
}

int
ar_policy_best(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, size_t *method, int *ki)
{
	return ar_policy_pick(m, n, c, method, ki, NULL, NULL);
}

/* A taken[] mark for what this call already chose: pending from then. */
struct state {
	const struct ar_pol_method *m;
	size_t n;
	const struct ar_pol_cfg *c;
	unsigned char *taken;
	double spent;
};

static int
free_pair(const struct state *s, size_t i, int ki)
{
	return !s->m[i].at[ki].pending && !s->taken[i * AR_POL_NK + ki] &&
	    affordable(s->c, &s->m[i], ki, s->spent, 1, 0);
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
	s->spent += cost_m(s->c, &s->m[i], ki);
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

/* What one more standard measurement of o would take off its variance:
 * the spread of the shift it may cause in the belief. */
static double
shift_sd(const struct ar_pol_obs *o, double sd)
{
	double n = o->n > 0 ? o->n : 1, one = sd * sd * n;
	double after = 1 / (1 / (sd * sd) + 1 / one);

	return sqrt(sd * sd - after);
}

/* A candidate measurement of ours. Within one call nothing new is
 * measured, so every candidate's value is fixed: they are valued once,
 * sorted, and taken in order while they fit. alt is what a
 * re-measurement of the incumbent falls back on when the incumbent is
 * taken: the rival itself, stopped at alt_stop. */
struct cand {
	double value, size_min, size_max, stop_at, alt_stop;
	size_t i, alt_i;
	int ki, alt_k, purpose;
	size_t order;
	char why[160];
};

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static struct cand *
add_cand(struct cand **c, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*c = ar_xrealloc(*c, *cap * sizeof **c);
	}
	memset(&(*c)[*n], 0, sizeof **c);
	(*c)[*n].order = *n;
	(*c)[*n].alt_k = -1;
	return &(*c)[(*n)++];
}

/* A scale probe's expected size, in standard measurements: it stops at
 * the first look where its interval clears thr, which takes about
 * (1.96 noise / gap)^2 of a measurement, noise the method's own (its
 * interval at the scale below, as if one measurement) and gap how far
 * the prediction is from thr, its sd included. A quiet method's probe
 * ends at its first quarter; priced as a whole measurement, a probe
 * that would have found a quiet scale winner cheaply was not worth it. */
static double
scale_size(const struct ar_pol_cfg *c, const struct ar_pol_method *m, int ki,
    double mu, double sd, double thr)
{
	/* Its least size as ar_pol_pairs makes it: a quarter, and never
	 * below the pairs of ar-bench's first look. */
	struct ar_pol_pick least = { .size_min = SCALE_MIN,
	    .size_max = SCALE_MAX, .stop_at = thr };
	long std = c->pairs > 0 ? c->pairs : AR_POL_PAIRS_STD, pmin, pmax;
	int j = ki - 1;
	double lo, es;

	ar_pol_pairs(&least, std, &pmin, &pmax);
	lo = fmin((double)pmin / (double)std, SCALE_MAX);
	while (j > 0 && !measured(&m->at[j]))
		j--;
	es = pow(Z95 * (obs_sd(&m->at[j]) / m->at[j].est) /
	    (hypot(mu - thr, sd) / thr), 2);
	/* NaN too (a scale below with no estimate): priced whole. */
	if (!(es <= SCALE_MAX))
		return SCALE_MAX;
	return es < lo ? lo : es;
}

/* The best and its closest rival (the pair likeliest to be above it)
 * are measured again while they are not told apart: the rival is within
 * RESOLVE_Z standard errors of their gap below the best, and one of the
 * two is noisy, its own standard error above NOISY_SD minimum effects.
 * Of the two, the one that takes more off the gap's variance per
 * GPU-hour is measured, past N_NOISY looks if need be. It is valued
 * below every measurement worth its price, so it spends only what would
 * be left unspent, and never past the cap: without it a noisy best,
 * mostly at k=8 where the noise is largest, ends as a coin toss with a
 * quieter rival, or behind a lucky first draw. Quiet close calls are
 * left to the measurements' values: resolving them too cost more than
 * it found. */
#ifndef RESOLVE_Z
#define RESOLVE_Z 2.0
#endif
static void
resolve_top(const struct state *s, const struct view *vw, size_t bm, int bk,
    double tol, struct cand **cd, size_t *nc, size_t *capc)
{
	const struct view *va = &vw[bm * AR_POL_NK + bk], *vb;
	const struct ar_pol_method *m = s->m;
	double best = -INFINITY, d, ss, ga, gb;
	size_t i, q, ri = 0;
	int ki, rk = -1;
	struct cand *c;

	for (i = 0; i < s->n; i++)
		for (ki = 0; ki < AR_POL_NK; ki++) {
			const struct view *w = &vw[i * AR_POL_NK + ki];
			double z;

			if (!w->ok || (i == bm && ki == bk))
				continue;
			z = (w->e - va->e) / hypot(w->sd, va->sd);
			if (z > best) {
				best = z;
				ri = i;
				rk = ki;
			}
		}
	if (rk < 0)
		return;
	/* A measurement of value already looks at one of the two. */
	for (q = 0; q < *nc; q++) {
		c = &(*cd)[q];
		if (c->purpose == AR_PUR_VALIDATE && ((c->i == bm && c->ki ==
		    bk) || (c->i == ri && c->ki == rk)))
			return;
	}
	vb = &vw[ri * AR_POL_NK + rk];
	ss = hypot(va->sd, vb->sd);
	d = va->e - vb->e;
	if (d > RESOLVE_Z * ss || fmax(va->sd, vb->sd) <= NOISY_SD * tol)
		return;
	ga = pow(shift_sd(&m[bm].at[bk], va->sd), 2) / cost_m(s->c, &m[bm],
	    bk);
	gb = pow(shift_sd(&m[ri].at[rk], vb->sd), 2) / cost_m(s->c, &m[ri],
	    rk);
	c = add_cand(cd, nc, capc);
	/* Below any candidate of value: those are > 0. */
	c->value = 0;
	c->i = ga >= gb ? bm : ri;
	c->ki = ga >= gb ? bk : rk;
	c->alt_i = ga >= gb ? ri : bm;
	c->alt_k = ga >= gb ? rk : bk;
	c->purpose = AR_PUR_VALIDATE;
	c->size_min = VAL_MIN;
	c->size_max = VAL_MAX;
	c->stop_at = ga >= gb ? vb->e : va->e;
	c->alt_stop = ga >= gb ? va->e : vb->e;
	snprintf(c->why, sizeof c->why, "ours: the best so far and its "
	    "closest rival, not yet told apart; measured again");
}

/* ours: up to max picks, the candidates of the highest value first. */
static size_t
ours_picks(struct state *s, struct ar_pol_pick *out, size_t max)
{
	const struct ar_pol_method *m = s->m;
	size_t i, bm = 0, nc = 0, capc = 0, got = 0, q;
	int ki, kj, bk = 0, have;
	struct view *vw;
	struct cand *cd = NULL, *c;
	double inc, thr, second = 0, tol;
	struct gp_hyp hyp, pick_hyp;

	gp_learn(m, s->n, &hyp);
	learn_jump(m, s->n, s->c, &hyp);
	pick_hyp = hyp;
	pick_hyp.amp *= PICK_AMP;
	pick_hyp.tau = GP_LEVEL;
	vw = views(m, s->n);
	have = best_of(m, s->n, 0, CAUTION, &bm, &bk) == 0;
	inc = have ? vw[bm * AR_POL_NK + bk].e : 1;
	/* The minimum effect is a share of the baseline's score, and every
	 * score is a ratio to it: two pairs are told apart to min_effect in
	 * ratio, not to min_effect of the larger ratio (which at 1.4 let
	 * close calls 0.014 apart stand as ties). */
	thr = inc + s->c->min_effect;
	tol = s->c->min_effect;
	/* The runner-up's belief: a lone incumbent's second look stops once
	 * it clearly leads it. */
	for (i = 0; have && i < s->n; i++)
		for (ki = 0; ki < AR_POL_NK; ki++) {
			const struct view *w = &vw[i * AR_POL_NK + ki];

			if (w->ok && !(i == bm && ki == bk) && w->e > second)
				second = w->e;
		}
	for (i = 0; i < s->n; i++) {
		const struct ar_pol_method *mi = &m[i];
		double pmu[AR_POL_NK], psd[AR_POL_NK];
		double cmu[AR_POL_NK], csd[AR_POL_NK];
		int pok[AR_POL_NK], cok[AR_POL_NK];
		const char *how = "", *chow;

		/* New methods first: a k=1 probe is the cheapest evidence
		 * there is, and without it no prediction at any scale. */
		if (!measured(&mi->at[0])) {
			if (!s->c->use[0])
				continue;
			c = add_cand(&cd, &nc, &capc);
			c->value = INFINITY;
			c->i = i;
			c->ki = 0;
			c->purpose = AR_PUR_PROBE;
			c->size_min = PROBE_MIN;
			c->size_max = 1;
			c->stop_at = have ? inc * PROBE_BAR : NAN;
			snprintf(c->why, sizeof c->why, "ours: a new method, "
			    "probed at k=1 first");
			continue;
		}
		predict_all(mi, s->c, &hyp, pmu, psd, pok, &how);
		predict_all(mi, s->c, &pick_hyp, cmu, csd, cok, &chow);
		for (ki = 0; ki < AR_POL_NK; ki++) {
			const struct ar_pol_obs *o = &mi->at[ki];
			double mu, sd, v, es;

			if (!s->c->use[ki] || o->pending)
				continue;
			if (measured(o)) {
				double d, sa, sb, ss, va_, vb_, el;
				const struct ar_pol_obs *a = &m[bm].at[bk];
				const struct view *va = &vw[bm * AR_POL_NK + bk];
				const struct view *vb = &vw[i * AR_POL_NK + ki];
				struct view cv;
				int inc_too;

				if (!o->feasible || !have || done(o, tol))
					continue;
				if (i == bm && ki == bk) {
					/* The best while too noisy to tell
					 * the minimum effect is measured once
					 * more: a lucky draw is likelier at
					 * the top, and a noisy pair's first
					 * looks may all have been lucky. */
					if (obs_sd(o) <= LONE_SD * tol)
						continue;
					c = add_cand(&cd, &nc, &capc);
					c->value = exp_gain(0, obs_sd(o), 0) /
					    cost_m(s->c, mi, ki);
					c->i = i;
					c->ki = ki;
					c->purpose = AR_PUR_VALIDATE;
					c->size_min = VAL_MIN;
					c->size_max = LONE_MAX;
					c->stop_at = second > 0 ? second +
					    s->c->min_effect : NAN;
					snprintf(c->why, sizeof c->why, "ours: "
					    "the best so far rests on %s; "
					    "measured again", o->n < 2 ? "one "
					    "noisy measurement" : "noisy "
					    "measurements");
					continue;
				}
				/* A rival within the incumbent's noise: the
				 * expected amount by which it beats the
				 * incumbent past the tolerance (a pick within
				 * the minimum effect of the best is as good
				 * as it), shared by the two by how much one
				 * more measurement of each narrows their
				 * gap, per GPU-hour. */
				/* A rival read through its method's curve, as
				 * the pick reads it, where that is higher: a
				 * probe stopped early on an unlucky quarter of
				 * a measurement, below a curve that rose to
				 * it, is still a rival. */
				if (cok[ki] && cmu[ki] > vb->e) {
					cv.e = cmu[ki];
					cv.sd = csd[ki];
					cv.ok = 1;
					vb = &cv;
				}
				sa = va->sd;
				sb = vb->sd;
				ss = hypot(sa, sb);
				/* The gap is signed: a rival whose one draw is
				 * above the incumbent (which stands by its
				 * caution, not its estimate) is valued as
				 * above, not as below by as much. */
				d = va->e - vb->e;
				if (d > VAL_Z * ss)
					continue;
				el = exp_gain(-d, ss, tol);
				vb_ = el * shift_sd(o, sb) / ss /
				    cost_m(s->c, mi, ki);
				va_ = !done(a, tol) ? el * shift_sd(a, sa) / ss /
				    cost_m(s->c, &m[bm], bk) : 0;
				inc_too = va_ > vb_;
				v = inc_too ? va_ : vb_;
				if (v * cost_m(s->c, inc_too ? &m[bm] : mi,
				    inc_too ? bk : ki) < EI_MIN * inc *
				    units(s->c, inc_too ? &m[bm] : mi,
				    inc_too ? bk : ki))
					continue;
				c = add_cand(&cd, &nc, &capc);
				c->value = v;
				c->i = inc_too ? bm : i;
				c->ki = inc_too ? bk : ki;
				if (inc_too) {
					c->alt_i = i;
					c->alt_k = ki;
				}
				c->purpose = AR_PUR_VALIDATE;
				c->size_min = VAL_MIN;
				c->size_max = VAL_MAX;
				c->stop_at = inc_too ? vb->e : va->e;
				c->alt_stop = va->e;
				if (inc_too)
					snprintf(c->why, sizeof c->why, "ours: the "
					    "best so far, again: a rival at "
					    "k=%ld is within its noise",
					    ar_pol_k(ki));
				else
					snprintf(c->why, sizeof c->why, "ours: "
					    "within the noise of the best so "
					    "far; measured again");
				continue;
			}
			if (blocked(mi, ki) || !ladder(mi, s->c, ki) || !pok[ki])
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
			/* The planner's hint of scale is a promise program.md
			 * makes: such a method is probed at 2 and then 4
			 * unless the scale below shows it dead. */
			es = scale_size(s->c, mi, ki, mu, sd, thr);
			if (v < SCALE_EI * inc * units(s->c, mi, ki) * es) {
				if (!hint_probe(mi, s->c, ki, inc))
					continue;
				v = SCALE_EI * inc * units(s->c, mi, ki) * es;
			}
			c = add_cand(&cd, &nc, &capc);
			c->value = v / (cost_m(s->c, mi, ki) * es);
			c->i = i;
			c->ki = ki;
			c->purpose = AR_PUR_SCALE;
			c->size_min = SCALE_MIN;
			c->size_max = SCALE_MAX;
			c->stop_at = thr;
			snprintf(c->why, sizeof c->why, "ours: %s predicts "
			    "%.3f +- %.3f at k=%ld against %.3f", how, mu,
			    Z95 * sd, ar_pol_k(ki), inc);
		}
	}
	if (have)
		resolve_top(s, vw, bm, bk, tol, &cd, &nc, &capc);
	free(vw);
	if (nc > 1)
		qsort(cd, nc, sizeof *cd, cmp_cand);
	for (q = 0; q < nc && got < max; q++) {
		size_t pi = cd[q].i;
		int pk = cd[q].ki;

		if (isinf(cd[q].value)) {
			if (m[pi].at[pk].pending || s->taken[pi * AR_POL_NK +
			    pk] || !affordable(s->c, &m[pi], pk, s->spent,
			    cd[q].size_max, 1))
				continue;
		} else if (!free_pair(s, pi, pk) || !affordable(s->c, &m[pi],
		    pk, s->spent, cd[q].size_max, 0)) {
			if (cd[q].alt_k < 0 || !free_pair(s, cd[q].alt_i,
			    cd[q].alt_k) || !affordable(s->c, &m[cd[q].alt_i],
			    cd[q].alt_k, s->spent, cd[q].size_max, 0))
				continue;
			pi = cd[q].alt_i;
			pk = cd[q].alt_k;
			cd[q].stop_at = cd[q].alt_stop;
		}
		put(s, &out[got], pi, pk, cd[q].purpose, isfinite(cd[q].value) ?
		    cd[q].value : 0, cd[q].why);
		sized(&out[got], cd[q].size_min, cd[q].size_max,
		    cd[q].stop_at);
		/* What it may cost at most counts against the cap. */
		s->spent += cost_m(s->c, &m[pi], pk) * (cd[q].size_max - 1);
		got++;
	}
	free(cd);
	return got;
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
		got = ours_picks(&s, out, max);
		break;
	}
	free(s.taken);
	return got;
}
