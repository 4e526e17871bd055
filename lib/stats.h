/* stats.h: what ar-bench decides with. x holds per-pair log-ratios,
 * method against baseline, oriented so that a positive value is better
 * (for a time: log(baseline / method)). */
#ifndef AR_STATS_H
#define AR_STATS_H

#include <stddef.h>

double ar_median(const double *v, size_t n);
double ar_mad(const double *v, size_t n);
/* How many values lie more than k scaled MADs from the median. */
size_t ar_mad_outliers(const double *v, size_t n, double k);
/* Hodges-Lehmann estimate of x's centre and the Wilcoxon signed-rank
 * interval at confidence conf (exact up to 60 pairs); -inf..inf when n is
 * too small for conf. */
int ar_signed_rank_ci(const double *x, size_t n, double conf, double *est,
	double *lo, double *hi);
enum { AR_V_CONTINUE, AR_V_KEEP, AR_V_DISCARD, AR_V_EQUIVALENT,
	AR_V_INCONCLUSIVE };
struct ar_verdict_opts {
	double min_effect;   /* e.g. 0.01: a keep must gain at least 1% */
	double alpha;        /* false-keep rate allowed over all looks */
	size_t min_pairs, max_pairs;
};
struct ar_interval {
	size_t n;
	double est, lo, hi;  /* log-ratio; exp() gives the ratio */
};
/* The verdict after n pairs: keep when the interval clears the minimum
 * effect, equivalent when it lies within plus or minus it, discard when
 * no gain of the minimum effect remains plausible; otherwise continue,
 * or inconclusive when last. Looks come at min_pairs, then every 25% more
 * pairs (ar_verdict_look says when), each at alpha / looks. */
int ar_verdict(const double *x, size_t n, const struct ar_verdict_opts *o,
	int last, struct ar_interval *ci);
int ar_verdict_look(size_t n, const struct ar_verdict_opts *o);
size_t ar_verdict_looks(const struct ar_verdict_opts *o);
const char *ar_verdict_name(int v);

#endif
