/* stats.c: unit tests of lib/stats: median and MAD, the Wilcoxon
 * interval, and the sequential verdict with its looks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

#include "buf.h"
#include "stats.h"
#include "unit.h"

static void
robust(void)
{
	double x[10];
	int i;

	for (i = 0; i < 10; i++)
		x[i] = i + 1;
	OK(ar_median(x, 10) == 5.5 && ar_mad(x, 10) == 2.5, "median and MAD");
	OK(ar_median(x, 9) == 5 && ar_median(x, 1) == 1, "median of an odd "
	    "count");
	OK(x[0] == 1 && x[9] == 10, "the input is left alone");
	x[9] = 1000;
	OK(ar_mad_outliers(x, 10, 3) == 1, "one MAD outlier");
}

static void
interval(void)
{
	double x[10], est, lo, hi, big[200];
	int i;

	for (i = 0; i < 10; i++)
		x[i] = i + 1;
	/* n = 10 at 95%: P(T <= 8) = 0.0244, so the interval runs from the
	 * 9th to the 47th of the 55 Walsh averages. */
	OK(ar_signed_rank_ci(x, 10, 0.95, &est, &lo, &hi) == 0 && est == 5.5 &&
	    lo == 3 && hi == 8, "Hodges-Lehmann and the exact Wilcoxon "
	    "interval");
	OK(ar_signed_rank_ci(x, 5, 0.95, &est, &lo, &hi) == 0 && isinf(lo) &&
	    isinf(hi), "too few pairs give the widest interval");
	for (i = 0; i < 200; i++)
		big[i] = 0.05 + 0.01 * ((i * 37) % 11 - 5) / 5.0;
	OK(ar_signed_rank_ci(big, 200, 0.99, &est, &lo, &hi) == 0 &&
	    fabs(est - 0.05) < 1e-9 && lo < est && hi > est && lo > 0.04 &&
	    hi < 0.06, "normal approximation beyond 60 pairs");
}

/* n pairs in blocks of AR_BLOCK, each block's order from bits (a set bit:
 * the method first), pairs alternating within a block. */
static void
orders(char *first, size_t n, unsigned long bits)
{
	size_t i;
	int m = 0;

	for (i = 0; i < n; i++) {
		if (i % AR_BLOCK == 0)
			m = (int)((bits >> (i / AR_BLOCK % 32)) & 1);
		else
			m = !m;
		first[i] = m ? 'm' : 'b';
	}
	first[n] = 0;
}

static void
boundaries(void)
{
	struct ar_verdict_opts o;
	struct ar_design d;
	double t[2] = { 1, 2 }, b[2] = { 1.959964, 1.959964 }, *tl, *bl, p;
	size_t n, k = 0;
	int i;

	OK(fabs(ar_boundary_cross(t, b, 1) - 0.025) < 1e-6, "one look: the "
	    "normal tail");
	p = ar_boundary_cross(t, b, 2);
	/* Two looks, correlation sqrt(1/2): between one look's 0.025 and
	 * Bonferroni's 0.05; 0.0416 from the bivariate normal. */
	OK(p > 0.0405 && p < 0.0425, "two looks at 1.96 cross %.4f", p);
	ar_verdict_defaults(&o);
	i = ar_design_init(&d, &o);
	OK(i == 0 && d.keep_c > 2.5 && d.keep_c < 4 &&
	    d.stop_c > 1 && d.stop_c < d.keep_c, "the default design: keep "
	    "z %.3f, stop z %.3f", d.keep_c, d.stop_c);
	tl = ar_xmalloc(d.looks * sizeof *tl);
	bl = ar_xmalloc(d.looks * sizeof *bl);
	for (n = 1; n <= o.max_pairs; n++)
		if (n >= o.min_pairs && ar_verdict_look(n, &o)) {
			tl[k] = (double)n;
			bl[k++] = ar_design_z(&d, n, 1);
		}
	OK(k == d.looks, "the design counts the looks (%zu)", k);
	p = ar_boundary_cross(tl, bl, k);
	OK(fabs(p - o.alpha) < 2e-4, "the keep boundary spends alpha over "
	    "all looks: %.5f", p);
	for (n = 0; n < k; n++)
		bl[n] = ar_design_z(&d, (size_t)tl[n], 0);
	p = ar_boundary_cross(tl, bl, k);
	OK(fabs(p - o.beta) < 2e-3, "the stop boundary spends beta: %.4f",
	    p);
	OK(ar_design_z(&d, 16, 0) > ar_design_z(&d, 2048, 0), "the stop "
	    "boundary is strict early on");
	o.alpha = 0;
	OK(ar_design_init(&d, &o) < 0, "alpha 0 is refused");
	free(tl);
	free(bl);
}

static void
units(void)
{
	double x[16], u[8], est, lo, hi;
	char first[17];
	struct ar_pairs p = { x, first, 'm', 8, 0 };
	size_t used, i;

	/* Block 0 starts with b after an m: its first pair is exposed.
	 * Block 0 ends with pair 3 (m first, so b last); block 1 starts
	 * with b: not exposed. */
	orders(first, 8, 0);
	OK(strcmp(first, "bmbmbmbm") == 0, "orders");
	for (i = 0; i < 8; i++)
		x[i] = (double)i;
	OK(ar_units(&p, u, &used) == 2 && used == 7 && u[0] == 2 && u[1] ==
	    5.5, "a block's unit is the mean of its pairs not exposed");
	p.before = 'b';
	OK(ar_units(&p, u, &used) == 2 && used == 7 && u[0] == 2,
	    "the session's first pair is never in the test (no coin decides "
	    "what ran before it)");
	orders(first, 8, 0x2);
	OK(ar_units(&p, u, &used) == 2 && used == 6 && u[1] == 6,
	    "a block whose coin differs from the block before's leaves its "
	    "first pair out");
	p.n = 7;
	OK(ar_units(&p, u, &used) == 1 && used == 3, "an incomplete block "
	    "is left out");
	/* Carry-over: the exposed pairs 0.1 higher. */
	orders(first, 16, 0x5);   /* blocks m, b, m, b first */
	p.n = 16;
	p.before = 'm';
	for (i = 0; i < 16; i++)
		x[i] = 0.001 * (double)(i % 3);
	for (i = 0; i < 16; i++) {
		char prev = i == 0 ? p.before : first[i - 1] == 'b' ? 'm' : 'b';

		if (first[i] != prev)
			x[i] += 0.1;
	}
	i = (size_t)ar_carryover(&p, &est, &lo, &hi);
	OK(i == 0 && fabs(est - 0.1) < 0.003 &&
	    lo < est && hi > est, "the carry-over estimate: %.4f", est);
}

static void
verdict(void)
{
	double big[256];
	char first[257];
	struct ar_verdict_opts o;
	struct ar_design d;
	struct ar_pairs p = { big, first, 'b', 200, AR_BLOCK };
	struct ar_look lk;
	int i, v;

	ar_verdict_defaults(&o);
	o.min_pairs = 8;
	o.max_pairs = 256;
	OK(ar_design_init(&d, &o) == 0, "design");
	orders(first, 256, 0x9b3c5a71UL);
	for (i = 0; i < 256; i++)
		big[i] = 0.05 + 0.01 * ((i * 37) % 11 - 5) / 5.0;
	v = ar_verdict(&d, &p, 256, 0, &lk);
	OK(v == AR_V_KEEP && lk.why == AR_WHY_KEEP, "a clear 5%% gain is a "
	    "keep");
	OK(lk.ci.n == 200 && lk.ci.lo > 0 && lk.ci.lo <= lk.ci.est &&
	    lk.ci.est <= lk.ci.hi && lk.used < 200 && lk.units == 50,
	    "its interval, over the pairs not exposed, in 50 blocks");
	for (i = 0; i < 256; i++)
		big[i] = -big[i];
	OK(ar_verdict(&d, &p, 256, 0, &lk) == AR_V_DISCARD, "a clear 5%% "
	    "loss is a discard");
	for (i = 0; i < 256; i++)
		big[i] = 0.001 * ((i * 37) % 11 - 5) / 5.0;
	OK(ar_verdict(&d, &p, 256, 0, &lk) == AR_V_EQUIVALENT, "within "
	    "0.1%% of the baseline is equivalent at a 1%% minimum effect");
	for (i = 0; i < 16; i++)
		big[i] = (i % 3 ? 1 : -1) * 0.2;
	p.n = 16;
	OK(ar_verdict(&d, &p, 256, 0, &lk) == AR_V_CONTINUE &&
	    ar_verdict(&d, &p, 16, 1, &lk) == AR_V_INCONCLUSIVE, "wide "
	    "noise continues, and is inconclusive at the last look");
	p.n = 7;
	OK(ar_verdict(&d, &p, 256, 0, &lk) == AR_V_CONTINUE, "no verdict "
	    "before the minimum pairs");
	/* The unit is the block: 8 blocks whose pairs all agree are 8
	 * observations, not 32, and 8 cannot clear the keep boundary. */
	for (i = 0; i < 32; i++)
		big[i] = 0.05 + 0.001 * (i / AR_BLOCK);
	p.n = 32;
	p.before = 'b';
	OK(ar_verdict(&d, &p, 256, 0, &lk) != AR_V_KEEP && lk.units == 8,
	    "pairs of one block count once");
	/* Carry-over only: the exposed pairs look 10% better, the rest
	 * equal. Never kept. */
	for (i = 0; i < 256; i++) {
		char prev = i == 0 ? 'm' : first[i - 1] == 'b' ? 'm' : 'b';

		big[i] = 0.001 * ((i * 37) % 11 - 5) / 5.0 +
		    (first[i] != prev ? 0.1 : 0);
	}
	p.n = 256;
	p.before = 'm';
	v = ar_verdict(&d, &p, 256, 0, &lk);
	OK(v == AR_V_EQUIVALENT, "a method that only carries over is "
	    "equivalent, not kept (%s)", ar_verdict_name(v));
	/* A gain in the first half only: held back, inconclusive at the
	 * last look. */
	for (i = 0; i < 256; i++)
		big[i] = (i < 128 ? 0.06 : 0) + 0.01 * ((i * 37) % 11 - 5) /
		    5.0;
	v = ar_verdict(&d, &p, 256, 0, &lk);
	OK(v == AR_V_CONTINUE && lk.unstable && lk.why == AR_WHY_UNSTABLE &&
	    lk.first > lk.second, "a gain that fades is held back");
	OK(ar_verdict(&d, &p, 256, 1, &lk) == AR_V_INCONCLUSIVE && lk.why ==
	    AR_WHY_UNSTABLE, "and inconclusive at the last look");
	/* Noise too wide for the pairs left: futile, inconclusive now;
	 * with many pairs left, the session goes on. */
	for (i = 0; i < 64; i++)
		big[i] = 0.12 * ((i * 37) % 11 - 5) / 5.0;
	p.n = 64;
	v = ar_verdict(&d, &p, 72, 0, &lk);
	OK(v == AR_V_INCONCLUSIVE && lk.why == AR_WHY_FUTILE && lk.reach >
	    log1p(o.min_effect), "futile: no gain the last pair could confirm "
	    "is plausible (%s)", ar_verdict_name(v));
	OK(ar_verdict(&d, &p, 256, 0, &lk) == AR_V_CONTINUE, "with pairs "
	    "left, it goes on");
	OK(ar_verdict_look(16, &o) && ar_verdict_look(17, &o) &&
	    ar_verdict_look(32, &o) && !ar_verdict_look(33, &o) &&
	    ar_verdict_look(34, &o) && ar_verdict_look(256, &o),
	    "looks at every pair to 32, then every 6%%, and the last pair");
	{
		size_t n, looks = 0;

		for (n = 1; n <= 256; n++)
			looks += ar_verdict_look(n, &o) != 0;
		OK(ar_verdict_looks(&o) == looks, "verdict_looks counts the "
		    "looks verdict_look makes (%zu)", looks);
	}
	OK(ar_block_size(2048) == 4 && ar_block_size(127) == 2, "blocks of 4, "
	    "of 2 in short sessions");
	OK(strcmp(ar_verdict_name(AR_V_KEEP), "keep") == 0 &&
	    strcmp(ar_verdict_name(AR_V_DISCARD), "discard") == 0 &&
	    strcmp(ar_verdict_name(AR_V_EQUIVALENT), "equivalent") == 0 &&
	    strcmp(ar_verdict_name(AR_V_INCONCLUSIVE), "inconclusive") == 0 &&
	    strcmp(ar_verdict_name(AR_V_CONTINUE), "continue") == 0,
	    "verdict names");
}

/* Pooling: the winner's curse of taking the largest of four. */
static void
pool(void)
{
	struct ar_pool p = {0};
	double e = 0, lo = 0, hi = 0, se = ar_pool_log_se(0.9, 1.1, 0.95);
	int r;

	OK(fabs(se - (log(1.1) - log(0.9)) / (2 * 1.959964)) < 1e-6,
	    "log se from a 95%% interval");
	OK(se == (log(1.1) - log(0.9)) / (2 * gsl_cdf_ugaussian_Pinv(0.975)) &&
	    ar_pool_log_se(0.9, 1.1, 0.99) == (log(1.1) - log(0.9)) /
	    (2 * gsl_cdf_ugaussian_Pinv(0.995)) && ar_pool_log_se(0.9, 1.1,
	    0.9) == (log(1.1) - log(0.9)) / (2 * gsl_cdf_ugaussian_Pinv(0.95)),
	    "the 95%% and 99%% z are gsl's, to the bit");
	OK(ar_pool_log_se(NAN, NAN, 0.95) == 0.02 &&
	    ar_pool_log_se(1, 1, 0.95) == 0.02, "no interval: 0.02");
	OK(ar_pool_log_se(0.9, 1.1, 0.99) < se, "a 99%% interval is wider "
	    "for the same se");
	OK(!ar_pool_est(&p, &e, &lo, &hi), "nothing pooled: no estimate");
	ar_pool_add(&p, 2.00, 1.9, 2.1, 0.95);
	ar_pool_add(&p, 2.11, 2.0, 2.2, 0.95);
	ar_pool_add(&p, 1.75, 1.65, 1.85, 0.95);
	ar_pool_add(&p, 1.98, 1.88, 2.08, 0.95);
	ar_pool_add(&p, 0, 0, 0, 0.95);
	OK(p.n == 4, "a ratio of 0 is not pooled");
	r = ar_pool_est(&p, &e, &lo, &hi);
	OK(r && e > 1.9 && e < 2.0 && lo < e && hi > e && hi - lo < 0.15,
	    "four ratios pool to %.4f (%.4f..%.4f), "
	    "not the largest, 2.11", e, lo, hi);
}

const struct unit_test unit_stats[] = {
	TEST(pool),
	TEST(robust),
	TEST(interval),
	TEST(boundaries),
	TEST(units),
	TEST(verdict),
	UNIT_END,
};
