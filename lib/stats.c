/* stats.c: the statistics ar-bench decides with: robust summaries and a
 * distribution-free confidence interval for the per-pair log-ratio
 * (Hodges-Lehmann estimate, Wilcoxon signed-rank interval), and the
 * verdict rule with its stopping schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
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
static long
signed_rank_crit(size_t n, double alpha)
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
	c = signed_rank_crit(n, 1 - conf);
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

int
ar_verdict_look(size_t n, const struct ar_verdict_opts *o)
{
	size_t look = o->min_pairs;

	/* Looks at min_pairs, then about every 25% more pairs, and at the
	 * last pair: few looks keep the price of peeking low. */
	while (look < n && look < o->max_pairs)
		look += look / 4 > 0 ? look / 4 : 1;
	return n == look || n == o->max_pairs;
}

size_t
ar_verdict_looks(const struct ar_verdict_opts *o)
{
	size_t look = o->min_pairs, k = 1;

	while (look < o->max_pairs) {
		look += look / 4 > 0 ? look / 4 : 1;
		k++;
	}
	return k;
}

int
ar_verdict(const double *x, size_t n, const struct ar_verdict_opts *o,
    int last, struct ar_interval *ci)
{
	double m = log1p(o->min_effect), conf;

	memset(ci, 0, sizeof *ci);
	ci->n = n;
	if (n < o->min_pairs)
		return last ? AR_V_INCONCLUSIVE : AR_V_CONTINUE;
	/* Each look spends its share of alpha (Bonferroni), so stopping at
	 * the first decisive look keeps the false-keep rate under alpha. */
	conf = 1 - o->alpha / (double)ar_verdict_looks(o);
	ar_signed_rank_ci(x, n, conf, &ci->est, &ci->lo, &ci->hi);
	if (ci->lo > m)
		return AR_V_KEEP;
	if (ci->lo >= -m && ci->hi <= m)
		return AR_V_EQUIVALENT;
	/* No gain of the minimum effect is plausible any more. */
	if (ci->hi < m)
		return AR_V_DISCARD;
	return last ? AR_V_INCONCLUSIVE : AR_V_CONTINUE;
}
