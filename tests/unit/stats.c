/* stats.c: unit tests of lib/stats: median and MAD, the Wilcoxon
 * interval, and the sequential verdict with its looks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

static void
verdict(void)
{
	double big[200];
	struct ar_verdict_opts o = { 0.01, 0.01, 8, 256 };
	struct ar_interval ci;
	int i, v;

	for (i = 0; i < 200; i++)
		big[i] = 0.05 + 0.01 * ((i * 37) % 11 - 5) / 5.0;
	v = ar_verdict(big, 200, &o, 0, &ci);
	OK(v == AR_V_KEEP, "a clear 5%% gain is a keep");
	OK(ci.n == 200 && ci.lo > 0.01 && ci.lo <= ci.est && ci.est <= ci.hi,
	    "the interval of a keep clears the minimum effect");
	for (i = 0; i < 200; i++)
		big[i] = -big[i];
	OK(ar_verdict(big, 200, &o, 0, &ci) == AR_V_DISCARD, "a clear "
	    "5%% loss is a discard");
	for (i = 0; i < 200; i++)
		big[i] = 0.001 * ((i * 37) % 11 - 5) / 5.0;
	OK(ar_verdict(big, 200, &o, 0, &ci) == AR_V_EQUIVALENT, "within "
	    "0.1%% of the baseline is equivalent at a 1%% minimum effect");
	for (i = 0; i < 8; i++)
		big[i] = (i % 2 ? 1 : -1) * 0.2;
	OK(ar_verdict(big, 8, &o, 0, &ci) == AR_V_CONTINUE &&
	    ar_verdict(big, 8, &o, 1, &ci) == AR_V_INCONCLUSIVE, "wide "
	    "noise continues, and is inconclusive at the last look");
	OK(ar_verdict(big, 7, &o, 0, &ci) == AR_V_CONTINUE, "no verdict "
	    "before the minimum pairs");
	OK(ar_verdict_look(8, &o) && ar_verdict_look(10, &o) &&
	    !ar_verdict_look(9, &o) && ar_verdict_look(256, &o),
	    "looks at 8, 10, ... and the last pair");
	{
		size_t n, looks = 0;

		for (n = 1; n <= 256; n++)
			looks += ar_verdict_look(n, &o) != 0;
		OK(ar_verdict_looks(&o) == looks, "verdict_looks counts the "
		    "looks verdict_look makes (%zu)", looks);
	}
	OK(strcmp(ar_verdict_name(AR_V_KEEP), "keep") == 0 &&
	    strcmp(ar_verdict_name(AR_V_DISCARD), "discard") == 0 &&
	    strcmp(ar_verdict_name(AR_V_EQUIVALENT), "equivalent") == 0 &&
	    strcmp(ar_verdict_name(AR_V_INCONCLUSIVE), "inconclusive") == 0 &&
	    strcmp(ar_verdict_name(AR_V_CONTINUE), "continue") == 0,
	    "verdict names");
}

const struct unit_test unit_stats[] = {
	TEST(robust),
	TEST(interval),
	TEST(verdict),
	UNIT_END,
};
