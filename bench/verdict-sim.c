/* verdict-sim: how honest the verdict rule of lib/stats.c is on a
 * synthetic noisy benchmark, against the simpler rules of the seeds' tools
 * on the same samples. Run by hand (make bench; build/bench/verdict-sim).
 *
 * A run's time is base * drift * effect * noise: lognormal noise of a
 * chosen CV, 2% of runs 3x slower, a slow drift of +10% over 1000 runs.
 * Baseline and method alternate in balanced, shuffled AB/BA pairs. A/A
 * trials (effect 1) give the false-keep rate; trials where the method is
 * truly 3% faster give the keep rate.
 *
 * -S adds an interference shape on top (issue 15's, for the rule of
 * today to be measured against them):
 *   periodic   +20% on the middle two runs of every four: a background
 *              job whose period matches the AB/BA block, so that one
 *              coin (the block's order) decides which role both slowed
 *              runs belong to (on the first two it would cancel within
 *              a pair)
 *   carryover  a run right after a method run is 10% slower (a cache
 *              the method ruins); in its "A/A" trials the method is not
 *              faster, it only carries over, and must never be kept
 *   fading     the method's gain (3%) lasts the first 64 pairs only; in
 *              its "A/A" trials it is equal throughout */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "buf.h"
#include "err.h"
#include "stats.h"

static const char usage[] = "[-t trials] [-m min-effect] [-a alpha] "
	"[-p max-pairs] [-s seed] [-S none|periodic|carryover|fading]";

enum { SH_NONE, SH_PERIODIC, SH_CARRY, SH_FADING };

struct sample {
	double base, meth;       /* run times of one pair */
};

static double
run_time(gsl_rng *r, double cv, size_t run, double effect)
{
	double sigma = sqrt(log1p(cv * cv));
	double t = effect * (1 + 0.10 * (double)run / 1000.0) *
	    exp(gsl_ran_gaussian(r, sigma) - sigma * sigma / 2);

	if (gsl_rng_uniform(r) < 0.02)
		t *= 3;
	return t;
}

/* max pairs of one trial, in run order: balanced AB/BA, shuffled, with
 * the interference of shape on top. */
static void
make_pairs(gsl_rng *r, double cv, double effect, int shape, struct sample *s,
    size_t n)
{
	size_t i, run = 0;
	int ab = 0, last_meth = 0, k;

	for (i = 0; i < n; i++) {
		double eff = effect;

		if (i % 2 == 0)
			ab = gsl_rng_uniform(r) < 0.5;
		else
			ab = !ab;
		if (shape == SH_FADING && i >= 64)
			eff = 1;
		for (k = 0; k < 2; k++) {
			int meth = ab ? k == 1 : k == 0;
			double t = run_time(r, cv, run, meth ? eff : 1);

			if (shape == SH_PERIODIC && (run % 4 == 1 ||
			    run % 4 == 2))
				t *= 1.20;
			if (shape == SH_CARRY && last_meth)
				t *= 1.10;
			if (meth)
				s[i].meth = t;
			else
				s[i].base = t;
			last_meth = meth;
			run++;
		}
	}
}

struct tally {
	size_t keep, trials;
	double *pairs, *secs;
};

/* Ours: the sequential rule of ar_verdict. */
static int
ours(const struct sample *s, size_t max, const struct ar_verdict_opts *o,
    size_t *used, double *secs)
{
	double *x = ar_xmalloc(max * sizeof *x), t = 0;
	struct ar_interval ci;
	size_t n;
	int v = AR_V_CONTINUE;

	for (n = 1; n <= max; n++) {
		x[n - 1] = log(s[n - 1].base / s[n - 1].meth);
		t += s[n - 1].base + s[n - 1].meth;
		if (!ar_verdict_look(n, o) && n < max)
			continue;
		v = ar_verdict(x, n, o, n == max, &ci);
		if (v != AR_V_CONTINUE)
			break;
	}
	*used = n > max ? max : n;
	*secs = t;
	free(x);
	return v;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
med(double *v, size_t n)
{
	ar_sort(v, n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* karpathy/autoresearch: one run each, keep if faster. */
static int
greedy(const struct sample *s)
{
	return s[0].meth < s[0].base;
}

/* SkyPilot's example: five runs each, keep if the median is faster. */
static int
median5(const struct sample *s)
{
	double b[5], m[5];
	int i;

	for (i = 0; i < 5; i++) {
		b[i] = s[i].base;
		m[i] = s[i].meth;
	}
	return med(m, 5) < med(b, 5);
}

/* pi-autoresearch: five runs each; keep if faster and the improvement is
 * at least twice the MAD of all ten values (confidence >= 2). */
static int
pi_mad(const struct sample *s)
{
	double all[10], b[5], m[5], mb, mm, c, d[10];
	int i;

	for (i = 0; i < 5; i++) {
		all[2 * i] = b[i] = s[i].base;
		all[2 * i + 1] = m[i] = s[i].meth;
	}
	mb = med(b, 5);
	mm = med(m, 5);
	c = med(all, 10);
	for (i = 0; i < 10; i++)
		d[i] = fabs(all[i] - c);
	return mm < mb && (mb - mm) / med(d, 10) >= 2;
}

int
main(int argc, char **argv)
{
	struct ar_verdict_opts o = { 0.01, 0.05, 16, 2048 };
	long trials = 1000, seed = 1;
	int shape = SH_NONE;
	const char *shape_name = "none";
	const double cvs[] = { 0.10, 0.30 }, effects[] = { 1.0, 1 / 1.03 };
	struct sample *s;
	gsl_rng *r;
	int c, ci, ei;

	ar_std_args(argc, argv, usage);
	while ((c = getopt(argc, argv, "a:m:p:s:S:t:")) != -1) {
		switch (c) {
		case 'a': o.alpha = atof(optarg); break;
		case 'm': o.min_effect = atof(optarg); break;
		case 'p': o.max_pairs = (size_t)atol(optarg); break;
		case 's': seed = atol(optarg); break;
		case 't': trials = atol(optarg); break;
		case 'S':
			shape_name = optarg;
			if (strcmp(optarg, "none") == 0)
				shape = SH_NONE;
			else if (strcmp(optarg, "periodic") == 0)
				shape = SH_PERIODIC;
			else if (strcmp(optarg, "carryover") == 0)
				shape = SH_CARRY;
			else if (strcmp(optarg, "fading") == 0)
				shape = SH_FADING;
			else
				ar_die(AR_EX_USAGE, "-S %s: expected none, "
				    "periodic, carryover or fading", optarg);
			break;
		default: ar_usage(usage);
		}
	}
	if (trials < 1 || o.max_pairs < o.min_pairs)
		ar_usage(usage);
	r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, (unsigned long)seed);
	s = ar_xmalloc(o.max_pairs * sizeof *s);
	printf("verdict-sim: %ld trials per case; ours: min effect %.3g, "
	    "alpha %.3g over %zu looks, %zu to %zu pairs; 2%% of runs 3x "
	    "slower, +10%% drift per 1000 runs; shape %s\n", trials,
	    o.min_effect, o.alpha, ar_verdict_looks(&o), o.min_pairs,
	    o.max_pairs, shape_name);
	printf("noise\tmethod\trule\tkeep_rate\tmedian_pairs\tmedian_runs_s\t"
	    "verdicts\n");
	for (ci = 0; ci < 2; ci++)
		for (ei = 0; ei < 2; ei++) {
			size_t k[5] = {0}, keep_g = 0, keep_m = 0, keep_p = 0;
			double *pairs = ar_xmalloc((size_t)trials *
			    sizeof *pairs);
			double *secs = ar_xmalloc((size_t)trials * sizeof *secs);
			const char *what = ei == 0 ? (shape == SH_CARRY ?
			    "carry-over only" : "A/A") : (shape == SH_FADING ?
			    "3% faster, fading" : "3% faster");
			long t;

			for (t = 0; t < trials; t++) {
				size_t used;
				int v;

				make_pairs(r, cvs[ci], effects[ei], shape, s,
				    o.max_pairs);
				v = ours(s, o.max_pairs, &o, &used, &secs[t]);
				pairs[t] = (double)used;
				k[v]++;
				keep_g += (size_t)greedy(s);
				keep_m += (size_t)median5(s);
				keep_p += (size_t)pi_mad(s);
			}
			printf("CV %.0f%%\t%s\tours\t%.4f\t%.0f\t%.0f\t"
			    "keep %zu, discard %zu, equivalent %zu, "
			    "inconclusive %zu\n", cvs[ci] * 100, what,
			    (double)k[AR_V_KEEP] / trials, med(pairs,
			    (size_t)trials), med(secs, (size_t)trials),
			    k[AR_V_KEEP], k[AR_V_DISCARD],
			    k[AR_V_EQUIVALENT], k[AR_V_INCONCLUSIVE]);
			printf("CV %.0f%%\t%s\tgreedy, 1 run each\t%.4f\t1\t2\t"
			    "\n", cvs[ci] * 100, what,
			    (double)keep_g / trials);
			printf("CV %.0f%%\t%s\tmedian of 5\t%.4f\t5\t10\t\n",
			    cvs[ci] * 100, what, (double)keep_m / trials);
			printf("CV %.0f%%\t%s\tpi MAD confidence >= 2 (5 each)\t"
			    "%.4f\t5\t10\t\n", cvs[ci] * 100, what,
			    (double)keep_p / trials);
			fflush(stdout);
			free(pairs);
			free(secs);
		}
	free(s);
	gsl_rng_free(r);
	return 0;
}
