/* stats.c: the statistics ar-bench decides with: robust summaries and a
 * distribution-free confidence interval for the per-pair log-ratio
 * (Hodges-Lehmann estimate, Wilcoxon signed-rank interval), and the
 * verdict rule with its stopping schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "buf.h"
#include "stats.h"

double
ar_median(const double *v, size_t n)
{
	double *c, m;

	if (n == 0)
		return NAN;
	c = ar_xmalloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	gsl_sort(c, 1, n);
	m = gsl_stats_median_from_sorted_data(c, 1, n);
	free(c);
	return m;
}

double
ar_mad(const double *v, size_t n)
{
	double med = ar_median(v, n), *d, m;
	size_t i;

	if (n == 0)
		return NAN;
	d = ar_xmalloc(n * sizeof *d);
	for (i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	m = ar_median(d, n);
	free(d);
	return m;
}

size_t
ar_mad_outliers(const double *v, size_t n, double k)
{
	double med = ar_median(v, n), s = 1.4826 * ar_mad(v, n);
	size_t i, out = 0;

	if (n < 3 || !(s > 0))
		return 0;
	for (i = 0; i < n; i++)
		if (fabs(v[i] - med) > k * s)
			out++;
	return out;
}

/* The largest c with P(T <= c) <= alpha / 2 for the signed-rank
 * statistic T of n pairs, or -1 when even T = 0 is likelier. Exact up to
 * 60 pairs, from the normal approximation beyond. */
long
ar_signed_rank_crit(size_t n, double alpha)
{
	long m = (long)(n * (n + 1) / 2), c;

	if (n <= 60) {
		double *p = ar_xcalloc((size_t)m + 1, sizeof *p), cum = 0;
		size_t k;
		long t;

		/* p[t] = P(T = t), one rank at a time. */
		p[0] = 1;
		for (k = 1; k <= n; k++)
			for (t = (long)(k * (k + 1) / 2); t >= 0; t--)
				p[t] = 0.5 * p[t] + (t >= (long)k ?
				    0.5 * p[t - (long)k] : 0);
		for (c = -1, t = 0; t <= m; t++) {
			cum += p[t];
			if (cum > alpha / 2)
				break;
			c = t;
		}
		free(p);
		return c;
	}
	{
		double mean = m / 2.0;
		double sd = sqrt((double)n * (n + 1) * (2 * n + 1) / 24.0);
		double z = gsl_cdf_ugaussian_Pinv(alpha / 2);

		c = (long)floor(mean + z * sd - 0.5);
		return c < 0 ? -1 : c;
	}
}

/* The k-th smallest of v (0-based), reordering v: quickselect. */
static double
select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2], t;
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

int
ar_signed_rank_ci(const double *x, size_t n, double conf, double *est,
    double *lo, double *hi)
{
	size_t m = n * (n + 1) / 2, i, j, k = 0;
	double *w;
	long c;

	if (n == 0 || !(conf > 0 && conf < 1))
		return -1;
	w = ar_xmalloc(m * sizeof *w);
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[k++] = (x[i] + x[j]) / 2;
	/* Order statistics by selection: a look costs O(n^2), not
	 * O(n^2 log n). */
	*est = select_kth(w, m, m / 2);
	if (m % 2 == 0)
		*est = (*est + select_kth(w, m, m / 2 - 1)) / 2;
	c = ar_signed_rank_crit(n, 1 - conf);
	if (c < 0) {
		/* Too few pairs for this confidence: the widest interval. */
		*lo = -INFINITY;
		*hi = INFINITY;
	} else {
		*lo = select_kth(w, m, (size_t)c);
		*hi = select_kth(w, m, m - 1 - (size_t)c);
	}
	free(w);
	return 0;
}

const char *
ar_verdict_name(int v)
{
	switch (v) {
	case AR_V_KEEP: return "keep";
	case AR_V_DISCARD: return "discard";
	case AR_V_EQUIVALENT: return "equivalent";
	case AR_V_INCONCLUSIVE: return "inconclusive";
	default: return "continue";
	}
}

void
ar_verdict_defaults(struct ar_verdict_opts *o)
{
	memset(o, 0, sizeof *o);
	o->min_effect = 0.01;
	o->alpha = 0.007;
	o->beta = 0.10;
	o->min_pairs = 16;
	o->max_pairs = 2048;
	o->keep_shape = 0.5;
	o->stop_shape = 0.25;
}

/* The look after one at n pairs: about 6% more pairs. Looks cost little
 * once the boundary counts their correlation (3.38 over 90 looks, 3.32
 * over 44 at 12.5%), and close looks stop a session near where its
 * evidence suffices. */
static size_t
next_look(size_t n)
{
	return n + (n / 16 > 0 ? n / 16 : 1);
}

int
ar_verdict_look(size_t n, const struct ar_verdict_opts *o)
{
	size_t look = o->min_pairs;

	/* Looks at min_pairs, then about every 6% more pairs, and at
	 * the last pair. */
	while (look < n && look < o->max_pairs)
		look = next_look(look);
	return n == look || n == o->max_pairs;
}

size_t
ar_verdict_looks(const struct ar_verdict_opts *o)
{
	size_t look = o->min_pairs, k = 1;

	while (look < o->max_pairs) {
		look = next_look(look);
		k++;
	}
	return k;
}

/* ---- units: blocks with carry-over taken out ---- */

size_t
ar_block_size(size_t max_pairs)
{
	return max_pairs < AR_BLOCK_SHORT ? 2 : AR_BLOCK;
}

static char
other(char role)
{
	return role == 'b' ? 'm' : 'b';
}

/* Whether pair i follows a run of the other role than its first. */
static int
exposed(const struct ar_pairs *p, size_t i)
{
	char prev = i == 0 ? p->before : other(p->first[i - 1]);

	/* Nothing known before: it may be exposed. */
	return prev == 0 || p->first[i] != prev;
}

/* The pairs of the complete blocks, sorted by value, for the statistic
 * at any shift in linear time: per pair its block and its part (PART_CORE
 * for a block's later pairs, PART_IN for a first pair in the test,
 * PART_OUT for a first pair left out as exposed). A first pair's
 * inclusion depends on its block's coin and the one before it, which is
 * why it has parts of its own in the variance (cluster_z). */
enum { PART_CORE, PART_IN, PART_OUT, PART_NONE };
struct tset {
	double *xs, *gb;
	size_t *bs, n, nb, used;
	unsigned char *part;
	int *u;       /* per block: +1 when its first pair is in the test */
};

static const double *sort_key;

static int
cmp_key(const void *a, const void *b)
{
	double x = sort_key[*(const size_t *)a];
	double y = sort_key[*(const size_t *)b];

	return (x > y) - (x < y);
}

static void
tset_make(const struct ar_pairs *p, struct tset *t)
{
	size_t L = p->block ? p->block : AR_BLOCK;
	size_t i, nb = p->n / L, n = nb * L, *idx, *blk;
	unsigned char *part;

	memset(t, 0, sizeof *t);
	t->xs = ar_xmalloc((n + 1) * sizeof *t->xs);
	t->bs = ar_xmalloc((n + 1) * sizeof *t->bs);
	t->part = ar_xmalloc(n + 1);
	t->gb = ar_xmalloc((nb + 1) * sizeof *t->gb);
	t->u = ar_xmalloc((nb + 1) * sizeof *t->u);
	idx = ar_xmalloc((n + 1) * sizeof *idx);
	blk = ar_xmalloc((n + 1) * sizeof *blk);
	part = ar_xmalloc(n + 1);
	for (i = 0; i < n; i++) {
		idx[i] = i;
		blk[i] = i / L;
		if (i % L != 0)
			part[i] = PART_CORE;
		else if (i == 0)
			/* What ran before the session is no coin's: the
			 * first pair is never in the test. */
			part[i] = PART_NONE;
		else
			part[i] = exposed(p, i) ? PART_OUT : PART_IN;
		if (i % L == 0)
			t->u[blk[i]] = part[i] == PART_IN ? 1 : -1;
		if (part[i] == PART_CORE || part[i] == PART_IN)
			t->used++;
	}
	sort_key = p->x;
	ar_sort(idx, n, sizeof *idx, cmp_key);
	for (i = 0; i < n; i++) {
		t->xs[i] = p->x[idx[i]];
		t->bs[i] = blk[idx[i]];
		t->part[i] = part[idx[i]];
	}
	t->n = n;
	t->nb = nb;
	free(idx);
	free(blk);
	free(part);
}

static void
tset_free(struct tset *t)
{
	free(t->xs);
	free(t->bs);
	free(t->part);
	free(t->gb);
	free(t->u);
}

size_t
ar_units(const struct ar_pairs *p, double *u, size_t *used)
{
	size_t L = p->block ? p->block : AR_BLOCK, j, i, nb = 0, k;
	double sum;

	*used = 0;
	for (j = 0; L * (j + 1) <= p->n; j++) {
		sum = 0;
		k = 0;
		for (i = L * j; i < L * (j + 1); i++)
			if (i % L != 0 || (i > 0 && !exposed(p, i))) {
				sum += p->x[i];
				k++;
			}
		if (k == 0)
			continue;
		u[nb++] = sum / (double)k;
		*used += k;
	}
	return nb;
}

/* The signed-rank statistic T of x - d over the pairs in the test,
 * standardized by its variance under the design's randomization. A
 * block's coin flips the signs of all its pairs at once, so the pairs of
 * a block are not independent; and a block's first pair is in the test
 * only when its coin agrees with the block before's, so the coins of
 * neighbouring blocks meet in it. Written over the coins s_b, T is
 * exactly sum_b s_b g_b with g_b = (the later pairs' signed ranks of
 * block b) + (half its first pair's) + (half the next block's first
 * pair's, signed by whether that one is in), each ranked as if in the
 * test; its variance is sum_b g_b^2. The ranks of |x - d| come from
 * merging the sorted values below d (walking down) with those above it
 * (walking up). */
static double
cluster_z(struct tset *t, double d)
{
	size_t lo = 0, hi = t->n, k, a, b, i, rank;
	double T = 0, V = 0;

	/* k: the first value at or above d. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->xs[mid] < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = lo;
	for (i = 0; i < t->nb; i++)
		t->gb[i] = 0;
	a = k;          /* below: indices a - 1, a - 2, ... */
	b = k;          /* above: b, b + 1, ... */
	for (rank = 1; rank <= t->n; ) {
		double da = a > 0 ? d - t->xs[a - 1] : INFINITY;
		double db = b < t->n ? t->xs[b] - d : INFINITY;
		double dist = da < db ? da : db, r;
		size_t a0 = a, b0 = b, tie;

		/* Every value at this distance, on both sides: one average
		 * rank for the tie. */
		while (a > 0 && d - t->xs[a - 1] == dist)
			a--;
		while (b < t->n && t->xs[b] - d == dist)
			b++;
		tie = (a0 - a) + (b - b0);
		r = (double)rank + (double)(tie - 1) / 2;
		rank += tie;
		if (dist == 0)
			continue;   /* a zero difference has no sign */
		for (i = a; i < b; i++) {
			double sr;
			size_t blk;

			/* Only the tie's values: below, then above. */
			if (i == a0)
				i = b0;
			if (i >= b)
				break;
			blk = t->bs[i];
			sr = i < a0 ? -r : r;
			switch (t->part[i]) {
			case PART_CORE:
				T += sr;
				t->gb[blk] += sr;
				break;
			case PART_IN:
			case PART_OUT:
				if (t->part[i] == PART_IN)
					T += sr;
				t->gb[blk] += sr / 2;
				t->gb[blk - 1] += t->u[blk] * sr / 2;
				break;
			default:
				break;
			}
		}
	}
	for (i = 0; i < t->nb; i++)
		V += t->gb[i] * t->gb[i];
	return V > 0 ? T / sqrt(V) : 0;
}

/* The shift d where cluster_z(d) falls through z, by bisection over
 * the range of the pairs: the interval's ends at z and -z. */
static double
cluster_root(struct tset *t, double z)
{
	double lo, hi;
	int it;

	if (t->n == 0)
		return NAN;
	lo = t->xs[0] - 1e-9;
	hi = t->xs[t->n - 1] + 1e-9;
	/* Beyond the data the statistic is at its extreme: when even that
	 * does not reach z, the interval is unbounded there. */
	if (cluster_z(t, lo) < z)
		return z > 0 ? -INFINITY : NAN;
	if (cluster_z(t, hi) > z)
		return z < 0 ? INFINITY : NAN;
	/* To a millionth of the log-ratio, far below any effect. */
	for (it = 0; it < 60 && hi - lo > 1e-6; it++) {
		double mid = (lo + hi) / 2;

		if (cluster_z(t, mid) >= z)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int
ar_carryover(const struct ar_pairs *p, double *est, double *lo, double *hi)
{
	size_t ne = 0, nu = 0, i, j, k = 0, m;
	double *e, *u, *d, z = 1.959964, sd, c;

	for (i = 0; i < p->n; i++)
		exposed(p, i) ? ne++ : nu++;
	if (ne == 0 || nu == 0)
		return -1;
	e = ar_xmalloc(ne * sizeof *e);
	u = ar_xmalloc(nu * sizeof *u);
	ne = nu = 0;
	for (i = 0; i < p->n; i++) {
		if (exposed(p, i))
			e[ne++] = p->x[i];
		else
			u[nu++] = p->x[i];
	}
	m = ne * nu;
	d = ar_xmalloc(m * sizeof *d);
	for (i = 0; i < ne; i++)
		for (j = 0; j < nu; j++)
			d[k++] = e[i] - u[j];
	*est = select_kth(d, m, m / 2);
	if (m % 2 == 0)
		*est = (*est + select_kth(d, m, m / 2 - 1)) / 2;
	sd = sqrt((double)ne * nu * (ne + nu + 1) / 12.0);
	c = floor((double)m / 2 - z * sd);
	if (c < 0) {
		*lo = -INFINITY;
		*hi = INFINITY;
	} else {
		*lo = select_kth(d, m, (size_t)c);
		*hi = select_kth(d, m, m - 1 - (size_t)c);
	}
	free(d);
	free(e);
	free(u);
	return 0;
}

/* ---- the boundaries ---- */

/* Points of the grid the density of the sum is carried on, and how far
 * out (in standard deviations) it and the kernel reach. */
#define GRID 101
#define REACH 8.0

static double
npdf(double u)
{
	return 0.3989422804014327 * exp(-0.5 * u * u);
}

double
ar_boundary_cross(const double *t, const double *b, size_t k)
{
	double f[GRID], g[GRID], s[GRID], w[GRID], cross, h, h2, lo, lo2;
	size_t look, i, j;

	if (k == 0)
		return 0;
	/* S(t) ~ N(0, t); the first look's density below its boundary. */
	cross = gsl_cdf_ugaussian_Q(b[0]);
	lo = -REACH * sqrt(t[0]);
	h = (b[0] * sqrt(t[0]) - lo) / (GRID - 1);
	for (i = 0; i < GRID; i++) {
		s[i] = lo + (double)i * h;
		f[i] = npdf(s[i] / sqrt(t[0])) / sqrt(t[0]);
	}
	for (look = 1; look < k; look++) {
		double dt = t[look] - t[look - 1], sd = sqrt(dt);
		double top = b[look] * sqrt(t[look]);

		if (!(dt > 0))
			continue;
		/* Simpson's weights over the old grid. */
		for (i = 0; i < GRID; i++)
			w[i] = h / 3 * (i == 0 || i == GRID - 1 ? 1 : i % 2 ?
			    4 : 2) * f[i];
		for (i = 0; i < GRID; i++)
			cross += w[i] * gsl_cdf_ugaussian_Q((top - s[i]) / sd);
		lo2 = -REACH * sqrt(t[look]);
		h2 = (top - lo2) / (GRID - 1);
		for (j = 0; j < GRID; j++) {
			double acc = 0, sj = lo2 + (double)j * h2;

			for (i = 0; i < GRID; i++) {
				double u = (sj - s[i]) / sd;

				/* The kernel is nothing beyond its reach. */
				if (u < REACH && u > -REACH)
					acc += w[i] * npdf(u);
			}
			g[j] = acc / sd;
		}
		for (j = 0; j < GRID; j++)
			s[j] = lo2 + (double)j * h2;
		memcpy(f, g, sizeof f);
		h = h2;
	}
	return cross;
}

/* The look schedule, as times (pairs). */
static size_t
look_times(const struct ar_verdict_opts *o, double **t)
{
	size_t k = ar_verdict_looks(o), i = 0, n = o->min_pairs;

	*t = ar_xmalloc(k * sizeof **t);
	while (i < k) {
		(*t)[i++] = (double)(n < o->max_pairs ? n : o->max_pairs);
		n = next_look(n);
	}
	return k;
}

/* The constant C whose boundaries C (t / T)^(shape - 1/2) are crossed
 * with probability level under no drift: regula falsi (Illinois) on the
 * log of the probability, a few integrations instead of forty. */
static double
crossing_at(const double *t, size_t k, double shape, double c, double *b)
{
	size_t i;

	for (i = 0; i < k; i++)
		b[i] = c * pow(t[i] / t[k - 1], shape - 0.5);
	return ar_boundary_cross(t, b, k);
}

static double
solve_c(const double *t, size_t k, double shape, double level)
{
	double *b = ar_xmalloc(k * sizeof *b), x0 = 1, x1 = 6, f0, f1, x = 1,
	    fx;
	int it, side = 0;

	f0 = log(crossing_at(t, k, shape, x0, b)) - log(level);
	f1 = log(crossing_at(t, k, shape, x1, b)) - log(level);
	for (it = 0; it < 60 && x1 - x0 > 1e-6; it++) {
		x = (x0 * f1 - x1 * f0) / (f1 - f0);
		fx = log(crossing_at(t, k, shape, x, b)) - log(level);
		if (fabs(fx) < 1e-9)
			break;
		if (fx > 0) {   /* crossed too often: c is above x */
			x0 = x;
			f0 = fx;
			if (side == 1)
				f1 /= 2;
			side = 1;
		} else {
			x1 = x;
			f1 = fx;
			if (side == -1)
				f0 /= 2;
			side = -1;
		}
	}
	free(b);
	return x;
}

int
ar_design_init(struct ar_design *d, const struct ar_verdict_opts *o)
{
	double *t;

	memset(d, 0, sizeof *d);
	d->o = *o;
	if (!(o->alpha > 0 && o->alpha < 0.5) || !(o->beta > 0 &&
	    o->beta < 0.5) || o->min_pairs < 1 || o->max_pairs < o->min_pairs)
		return -1;
	if (!(d->o.keep_shape > 0))
		d->o.keep_shape = 0.5;
	if (!(d->o.stop_shape > 0))
		d->o.stop_shape = 0.25;
	d->looks = look_times(&d->o, &t);
	d->keep_c = solve_c(t, d->looks, d->o.keep_shape, o->alpha);
	d->stop_c = solve_c(t, d->looks, d->o.stop_shape, o->beta);
	free(t);
	return 0;
}

double
ar_design_z(const struct ar_design *d, size_t n, int keep)
{
	double f = (double)(n < 1 ? 1 : n) / (double)d->o.max_pairs;

	if (f > 1)
		f = 1;
	return keep ? d->keep_c * pow(f, d->o.keep_shape - 0.5) :
	    d->stop_c * pow(f, d->o.stop_shape - 0.5);
}

/* ---- the verdict ---- */

/* Mann-Whitney z of the first half of u against the second. */
static double
halves_z(const double *u, size_t n)
{
	size_t a = n / 2, b = n - a, i, j;
	double U = 0, mean, sd;

	for (i = 0; i < a; i++)
		for (j = a; j < n; j++)
			U += u[i] > u[j] ? 1 : u[i] == u[j] ? 0.5 : 0;
	mean = (double)a * b / 2;
	sd = sqrt((double)a * b * (n + 1) / 12.0);
	return sd > 0 ? (U - mean) / sd : 0;
}

/* The two-sided confidence whose interval's ends test at z one-sided. */
static double
conf_of(double z)
{
	return 1 - 2 * gsl_cdf_ugaussian_Q(z);
}

/* Whether the halves of the units disagree: the change that holds every
 * verdict back. */
#define STABLE_Z 1.959964

int
ar_verdict(const struct ar_design *d, const struct ar_pairs *p, size_t n_end,
    int last, struct ar_look *lk)
{
	double m = log1p(d->o.min_effect), *u, zk, zs, z0, zm, znm;
	struct tset t;
	size_t h, nu;
	int v;

	memset(lk, 0, sizeof *lk);
	lk->ci.lo = lk->stop_lo = -INFINITY;
	lk->ci.hi = lk->stop_hi = INFINITY;
	lk->first = lk->second = NAN;
	lk->ci.n = p->n;
	tset_make(p, &t);
	lk->units = t.nb;
	lk->used = t.used;
	lk->conf = conf_of(ar_design_z(d, p->n, 1));
	lk->stop_conf = conf_of(ar_design_z(d, p->n, 0));
	if (p->n < d->o.min_pairs || t.nb < 2) {
		double lo, hi;

		/* No test yet: the estimate of all the pairs, for the
		 * record. */
		if (p->n > 0)
			ar_signed_rank_ci(p->x, p->n, 0.5, &lk->ci.est, &lo,
			    &hi);
		tset_free(&t);
		lk->why = last ? AR_WHY_FEW : AR_WHY_NONE;
		return last ? AR_V_INCONCLUSIVE : AR_V_CONTINUE;
	}
	zk = ar_design_z(d, p->n, 1);
	zs = ar_design_z(d, p->n, 0);
	lk->conf = conf_of(zk);
	lk->stop_conf = conf_of(zs);
	/* The rule reads the standardized statistic at 0, at plus and
	 * minus the minimum effect and at the reach: the intervals' ends
	 * are where it crosses the boundaries, so Z(0) > zk is lo > 0,
	 * Z(m) >= 0 an estimate of at least m, Z(m) < -zs stop_hi < m. */
	z0 = cluster_z(&t, 0);
	zm = cluster_z(&t, m);
	znm = cluster_z(&t, -m);
	/* The least gain the session could still confirm: the keep
	 * interval's half-width (zk times the scale, the statistic's slope
	 * between 0 and m) shrunk to the last pair's, or the minimum
	 * effect. */
	lk->reach = m;
	if (z0 - zm > 0 && n_end > p->n) {
		double r = m / (z0 - zm) * sqrt((double)p->n / (double)n_end) *
		    ar_design_z(d, n_end, 1);

		if (r > m)
			lk->reach = r;
	}
	v = AR_V_CONTINUE;
	if (z0 > zk && zm >= 0) {
		v = AR_V_KEEP;
		lk->why = AR_WHY_KEEP;
	} else if (znm >= zs && zm <= -zs) {
		v = AR_V_EQUIVALENT;
		lk->why = AR_WHY_EQUIVALENT;
	} else if (zm < -zs) {
		v = AR_V_DISCARD;
		lk->why = AR_WHY_DISCARD;
	} else if (lk->reach > m ? cluster_z(&t, lk->reach) < -zs : 0) {
		v = AR_V_INCONCLUSIVE;
		lk->why = AR_WHY_FUTILE;
	}
	/* The halves of the session, block by block, and the intervals,
	 * where a verdict or the last look needs them. */
	if (v != AR_V_CONTINUE || last) {
		u = ar_xmalloc((t.nb + 1) * sizeof *u);
		nu = ar_units(p, u, &h);
		h = nu / 2;
		if (h >= 2 && nu - h >= 2) {
			lk->first = ar_median(u, h);
			lk->second = ar_median(u + h, nu - h);
			lk->stab_z = halves_z(u, nu);
			lk->unstable = fabs(lk->stab_z) > STABLE_Z;
		}
		free(u);
		lk->ci.est = cluster_root(&t, 0);
		lk->ci.lo = cluster_root(&t, zk);
		lk->ci.hi = cluster_root(&t, -zk);
		lk->stop_lo = cluster_root(&t, zs);
		lk->stop_hi = cluster_root(&t, -zs);
	}
	tset_free(&t);
	/* An effect that changed across the session is not one effect:
	 * no verdict on it. */
	if (v != AR_V_CONTINUE && lk->unstable) {
		v = AR_V_CONTINUE;
		lk->why = AR_WHY_UNSTABLE;
	}
	if (v == AR_V_CONTINUE && last) {
		v = AR_V_INCONCLUSIVE;
		if (lk->why != AR_WHY_UNSTABLE)
			lk->why = AR_WHY_UNDECIDED;
	}
	return v;
}

double
ar_pool_log_se(double lo, double hi, double conf)
{
	double c = conf > 0.5 && conf < 1 ? conf : 0.95, z;

	if (!(hi > lo && lo > 0 && isfinite(hi)))
		return 0.02;
	/* The two confidences results carry, without the inverse CDF:
	 * ar-digest reads a million rows. */
	if (c == 0.95)
		z = 0x1.f5c0331eeff82p+0; /* gsl's, to the bit */
	else if (c == 0.99)
		z = 0x1.49b4c64d6915fp+1;
	else
		z = gsl_cdf_ugaussian_Pinv(1 - (1 - c) / 2);
	return (log(hi) - log(lo)) / (2 * z);
}

void
ar_pool_add(struct ar_pool *p, double y, double lo, double hi, double conf)
{
	double se, w;

	if (!(y > 0) || !isfinite(y))
		return;
	se = ar_pool_log_se(lo, hi, conf);
	w = 1 / (se * se);
	p->lsum += w * log(y);
	p->wsum += w;
	p->n++;
}

int
ar_pool_est(const struct ar_pool *p, double *est, double *lo, double *hi)
{
	double mean, se;

	if (!p->n || !(p->wsum > 0))
		return 0;
	mean = p->lsum / p->wsum;
	se = 1 / sqrt(p->wsum);
	*est = exp(mean);
	*lo = exp(mean - 1.959964 * se);
	*hi = exp(mean + 1.959964 * se);
	return 1;
}
