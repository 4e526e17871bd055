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
/* The largest c with P(T <= c) <= alpha / 2 for the signed-rank
 * statistic T of n pairs, or -1: exact up to 60 pairs. */
long ar_signed_rank_crit(size_t n, double alpha);
int ar_signed_rank_ci(const double *x, size_t n, double conf, double *est,
	double *lo, double *hi);
enum { AR_V_CONTINUE, AR_V_KEEP, AR_V_DISCARD, AR_V_EQUIVALENT,
	AR_V_INCONCLUSIVE };
struct ar_verdict_opts {
	double min_effect;   /* e.g. 0.01: a keep's estimate must gain 1% */
	double alpha;        /* the chance that a method no better than the
	                      * baseline is kept, over all looks */
	double beta;         /* the chance that a method exactly min_effect
	                      * better is discarded or called equivalent */
	size_t min_pairs, max_pairs;
	/* Boundary shapes (Wang-Tsiatis): a look at n of N pairs stops at
	 * z = C (n / N)^(shape - 1/2); 0.5 is Pocock's constant boundary,
	 * 0 O'Brien-Fleming's. Zero values take the defaults. */
	double keep_shape, stop_shape;
};
/* The defaults: min effect 1%, alpha 0.007, beta 0.10, 16 to 2048 pairs,
 * a constant keep boundary and a stop boundary strict early on. */
void ar_verdict_defaults(struct ar_verdict_opts *o);

/* Pairs per block: one coin decides the order of a block's pairs, which
 * alternate (AB BA AB BA, or BA AB BA AB), so that every pair after the
 * first starts with the role the pair before it ended with. Four, so
 * that only one pair in four can be exposed to carry-over; two in
 * sessions of fewer than AR_BLOCK_SHORT pairs, which need the blocks'
 * number more (B blocks cannot give a p-value below 2^-B). */
#define AR_BLOCK 4
#define AR_BLOCK_SHORT 128
size_t ar_block_size(size_t max_pairs);

/* A session's pairs in run order: per pair the log-ratio and the role
 * that ran first ('b' or 'm'), and the role of the run before the first
 * pair (0 when none). Pairs block j to block j + block - 1 are block j
 * (block 0: AR_BLOCK). */
struct ar_pairs {
	const double *x;
	const char *first;
	char before;
	size_t n;
	size_t block;
};

/* A pair is exposed to carry-over when its first run follows a run of
 * the other role: then one run of the pair follows a method run and the
 * other does not, so an effect the method leaves on the next run shows
 * up in it. The test uses the pairs of complete blocks that are not
 * exposed (all but a block's first pair are not, by the design). u gets
 * each block's mean of them (at least n / 2 values); returns the
 * number of blocks, *used the pairs in them. */
size_t ar_units(const struct ar_pairs *p, double *u, size_t *used);
/* The carry-over: Hodges-Lehmann shift of the exposed pairs against the
 * others, with its 95% interval (Mann-Whitney, normal approximation);
 * -1 when either group is empty. Positive: the run after a method run is
 * slower, which flatters the method. */
int ar_carryover(const struct ar_pairs *p, double *est, double *lo,
	double *hi);

/* The boundaries of a schedule, computed once for the options by
 * numerical integration over the looks (ar_verdict_look): keep_c for a
 * one-sided false keep of alpha, stop_c for beta. */
struct ar_design {
	struct ar_verdict_opts o;
	double keep_c, stop_c;
	size_t looks;
};
int ar_design_init(struct ar_design *d, const struct ar_verdict_opts *o);
/* The z boundary of a look at n pairs, for keeping or stopping. */
double ar_design_z(const struct ar_design *d, size_t n, int keep);
/* P(a standard Brownian motion observed at times t[0..k-1] is ever at or
 * above b[i] sqrt(t[i])), by recursive numerical integration. */
double ar_boundary_cross(const double *t, const double *b, size_t k);

struct ar_interval {
	size_t n;
	double est, lo, hi;  /* log-ratio; exp() gives the ratio */
};
enum { AR_WHY_NONE, AR_WHY_FEW, AR_WHY_KEEP, AR_WHY_EQUIVALENT,
	AR_WHY_DISCARD, AR_WHY_FUTILE, AR_WHY_UNSTABLE, AR_WHY_UNDECIDED };
/* One look's numbers. */
struct ar_look {
	struct ar_interval ci;   /* effect, carry-over out, at conf */
	double conf;             /* two-sided; its lower end is the keep test */
	double stop_lo, stop_hi, stop_conf; /* the interval stops are read on */
	size_t units, used;
	double first, second, stab_z; /* the halves' estimates, their test */
	int unstable;
	double reach;            /* the least gain the session could still
	                          * confirm by its last pair */
	int why;
};
/* The verdict after the pairs of p: keep when the effect is above zero
 * at the keep boundary, the estimate reaches the minimum effect and the
 * two halves of the session agree; equivalent when the stop interval
 * lies within plus or minus the minimum effect; discard when it lies
 * below it; inconclusive when even the least gain the session could
 * confirm by n_end pairs is implausible (futile), or at the last look;
 * otherwise continue. A change between the halves holds every verdict
 * back (inconclusive at the last look). The intervals and the halves
 * are filled in where the verdict is not continue, or last is set. */
int ar_verdict(const struct ar_design *d, const struct ar_pairs *p,
	size_t n_end, int last, struct ar_look *lk);
int ar_verdict_look(size_t n, const struct ar_verdict_opts *o);
size_t ar_verdict_looks(const struct ar_verdict_opts *o);
const char *ar_verdict_name(int v);

/* Repeated measurements of one method at one scale, pooled in log space
 * by inverse variance: a re-measurement narrows the estimate instead of
 * replacing it, and the largest of several is not believed at its word.
 * ar-sched next and ar-digest both read the ledger this way. */
struct ar_pool {
	double lsum, wsum;   /* sum of w log(ratio), sum of w */
	size_t n;            /* the ratios pooled */
};
/* A ratio's standard error in log space, from its interval [lo, hi] at
 * confidence conf (two-sided; 0.95 when conf is not within 0.5..1); 0.02
 * without an interval. */
double ar_pool_log_se(double lo, double hi, double conf);
/* Adds ratio y (> 0) with its interval; a y of 0 or less is not pooled. */
void ar_pool_add(struct ar_pool *p, double y, double lo, double hi,
	double conf);
/* The pooled estimate and its 95% interval; 0 when nothing is pooled. */
int ar_pool_est(const struct ar_pool *p, double *est, double *lo,
	double *hi);

#endif
