/* verdict-sim: how honest and how quick the verdict rule of lib/stats.c
 * is on a synthetic noisy benchmark, side by side with the rule of
 * 8975a38 (the one before issue 15) and the simpler rules of the seeds'
 * tools, all on the same samples. Run by hand (make bench;
 * build/bench/verdict-sim).
 *
 * A run's log-time is the sum of: lognormal noise of a chosen CV, 2% of
 * runs 3x slower, a slow drift of +10% over 1000 runs, the method's
 * effect on its own runs, and a shape of interference (-S). Pairs run as
 * ar-bench runs them: a warm-up pair baseline first, then blocks of two
 * pairs whose order one coin decides (AB BA or BA AB).
 *
 * Shapes come in two sets. The tuning set (-S tune) is what the rule's
 * constants were chosen on; the check set (-S check) was written after
 * and never tuned on. Each shape's "A/A" case is a method that should
 * never be kept (equal, or only carrying over, or a gain that is gone);
 * its "win" case is a method truly 3% faster throughout.
 *
 * -B 2 draws the orders of 8975a38 (blocks of two pairs) and measures
 * only its rule and the peers', for its figures on its own design; by
 * default the rule of 8975a38 is measured on the same samples as ours
 * (blocks of four).
 *
 * Output: TSV, one line per noise, shape, case and rule. */
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
	"[-b beta] [-k keep-shape] [-K stop-shape] [-p max-pairs] [-s seed] "
	"[-c cv,...] [-S tune|check|all|shape,...] [-O] [-B 2]";

/* One shape of interference. */
struct shape {
	const char *name, *set, *aa;  /* aa: what the A/A case is */
	double periodic;     /* log slowdown on some runs of each period */
	int period, on_from, on_to;   /* runs [on_from, on_to) of a period */
	double carry1, carry2;        /* after a method run, one and two back */
	int fade_pairs;      /* the gain lasts this many pairs (0: always) */
	int fade_linear;     /* ...fading linearly to nothing over them */
	double bimodal;      /* each run this much slower with chance 1/2 */
	double heavy_df;     /* Student-t noise of this df instead */
	double step;         /* slower by this from run 500 on */
	double ar_rho;       /* AR(1) noise from run to run */
	double second;       /* the second run of each pair slower */
	int aa_carry;        /* A/A case: the method only carries over */
	int aa_fading;       /* A/A case: the fading gain itself */
};

static const struct shape shapes[] = {
	{ "none", "tune", "equal", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0 },
	{ "periodic", "tune", "equal", 0.18232155679395462, 4, 1, 3, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0 },
	{ "carryover", "tune", "carry-over only", 0, 0, 0, 0, 0.09531017980432493, 0,
	    0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ "periodic+carryover", "tune", "carry-over only", 0.18232155679395462, 4, 1,
	    3, 0.09531017980432493, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ "fading16", "tune", "3% for 16 pairs only", 0, 0, 0, 0, 0, 0, 16,
	    0, 0, 0, 0, 0, 0, 0, 1 },
	{ "fading64", "tune", "3% for 64 pairs only", 0, 0, 0, 0, 0, 0, 64,
	    0, 0, 0, 0, 0, 0, 0, 1 },
	{ "periodic8", "check", "equal", 0.22314355131420976, 8, 2, 6, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0 },
	{ "periodic6", "check", "equal", 0.26236426446749106, 6, 0, 3, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0 },
	{ "carry5", "check", "carry-over only", 0, 0, 0, 0, 0.04879016416943205, 0, 0,
	    0, 0, 0, 0, 0, 0, 1, 0 },
	{ "carry30", "check", "carry-over only", 0, 0, 0, 0, 0.26236426446749106, 0,
	    0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ "carry-decay", "check", "carry-over only", 0, 0, 0, 0, 0.09531017980432493,
	    0.04879016416943205, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ "fading-linear", "check", "3% fading to 0 over 128 pairs", 0, 0, 0,
	    0, 0, 0, 128, 1, 0, 0, 0, 0, 0, 0, 1 },
	{ "bimodal", "check", "equal", 0, 0, 0, 0, 0, 0, 0, 0, 0.13976194237515868, 0,
	    0, 0, 0, 0, 0 },
	{ "heavy-t3", "check", "equal", 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0,
	    0, 0, 0 },
	{ "step", "check", "equal", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.26236426446749106,
	    0, 0, 0, 0 },
	{ "ar0.7", "check", "equal", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.7, 0,
	    0, 0 },
	{ "second-run", "check", "equal", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0.04879016416943205, 0, 0 },
};
#define NSHAPE (sizeof shapes / sizeof shapes[0])

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_abs_d(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);

	return (x > y) - (x < y);
}

/* One trial's samples in run order. */
struct trial {
	double *x, *b, *m;   /* log-ratio, baseline and method times */
	char *first;
};

/* Draws max pairs. aa: the shape's A/A case; otherwise 3% faster. */
static size_t block = AR_BLOCK;

static void
make_trial(gsl_rng *r, double cv, const struct shape *sh, int aa,
    struct trial *tr, size_t n)
{
	double sigma = sqrt(log1p(cv * cv)), prev_noise = 0, t[2];
	size_t i, run = 0;
	int k, ab = 0, hist[2] = { 0, 0 };   /* method one and two runs back */

	for (i = 0; i <= n; i++) {   /* pair 0: the warm-up */
		double gain = aa ? 0 : log(1.03);

		if (i == 0)
			ab = 1;
		else if ((i - 1) % block == 0)
			ab = gsl_rng_uniform(r) < 0.5;
		else
			ab = !ab;
		if (sh->aa_fading) {
			double g = log(1.03);

			if (!aa)
				gain = g;
			else if (sh->fade_linear)
				gain = i < (size_t)sh->fade_pairs ? g * (1 -
				    (double)i / sh->fade_pairs) : 0;
			else
				gain = i <= (size_t)sh->fade_pairs ? g : 0;
		}
		for (k = 0; k < 2; k++) {
			int meth = ab ? k == 1 : k == 0;
			double e;

			if (sh->heavy_df > 0)
				e = sigma * gsl_ran_tdist(r, sh->heavy_df) /
				    sqrt(sh->heavy_df / (sh->heavy_df - 2));
			else
				e = gsl_ran_gaussian(r, sigma);
			if (sh->ar_rho > 0) {
				e = sh->ar_rho * prev_noise + sqrt(1 -
				    sh->ar_rho * sh->ar_rho) * e;
				prev_noise = e;
			}
			e += log1p(0.10 * (double)run / 1000.0);
			if (gsl_rng_uniform(r) < 0.02)
				e += log(3);
			if (sh->bimodal > 0 && gsl_rng_uniform(r) < 0.5)
				e += sh->bimodal;
			if (sh->step > 0 && run >= 500)
				e += sh->step;
			if (sh->period > 0 && (int)(run % (size_t)sh->period) >=
			    sh->on_from && (int)(run % (size_t)sh->period) <
			    sh->on_to)
				e += sh->periodic;
			if (k == 1)
				e += sh->second;
			/* Carry-over: the runs after a method run. In the win
			 * case the method carries over as well as gaining. */
			e += sh->carry1 * hist[0] + sh->carry2 * hist[1];
			if (meth)
				e -= gain;
			t[meth] = exp(e);
			hist[1] = hist[0];
			hist[0] = meth;
			run++;
		}
		if (i == 0)
			continue;
		tr->b[i - 1] = t[0];
		tr->m[i - 1] = t[1];
		tr->x[i - 1] = log(t[0] / t[1]);
		tr->first[i - 1] = ab ? 'b' : 'm';
	}
}

/* The looks of 8975a38: at 16, then every 25% more pairs, and the last. */
static int
old_look(size_t n, size_t max)
{
	size_t look = 16;

	while (look < n && look < max)
		look += look / 4;
	return n == look || n == max;
}

/* How many Walsh averages (x_i + x_j) / 2, i <= j, lie below d: the
 * signed-rank sum of the negative x - d (so the interval's ends against
 * d need no O(n^2) list of averages). */
static double
walsh_below(const double *x, size_t n, double d, double *y)
{
	size_t i;
	double w = 0;

	for (i = 0; i < n; i++)
		y[i] = x[i] - d;
	ar_sort(y, n, sizeof *y, cmp_abs_d);
	for (i = 0; i < n; i++)
		if (y[i] < 0)
			w += (double)(i + 1);
	return w;
}

/* The rule of 8975a38: the signed-rank interval of the per-pair
 * log-ratios at 1 - 0.05 / looks (Bonferroni), keep when its lower end
 * clears the minimum effect. lo > m when at most c averages lie below
 * m, hi < m when at most c lie above it. */
static int
old_rule(const double *x, size_t max, double min_effect, size_t *used)
{
	double m = log1p(min_effect), *y = ar_xmalloc(max * sizeof *y);
	size_t n, looks = 0;
	int v = AR_V_CONTINUE;

	for (n = 16; n <= max; n++)
		looks += (size_t)old_look(n, max);
	for (n = 16; n <= max; n++) {
		double tot;
		long c;

		if (!old_look(n, max))
			continue;
		c = ar_signed_rank_crit(n, 0.05 / (double)looks);
		tot = (double)n * (n + 1) / 2;
		if (c >= 0) {
			double below_m = walsh_below(x, n, m, y);
			double below_nm = walsh_below(x, n, -m, y);

			if (below_m <= (double)c)
				v = AR_V_KEEP;
			else if (below_nm <= (double)c && tot - below_m <=
			    (double)c)
				v = AR_V_EQUIVALENT;
			else if (tot - below_m <= (double)c)
				v = AR_V_DISCARD;
		}
		if (v == AR_V_CONTINUE && n == max)
			v = AR_V_INCONCLUSIVE;
		if (v != AR_V_CONTINUE)
			break;
	}
	*used = n > max ? max : n;
	free(y);
	return v;
}

/* Ours: the rule of lib/stats, looking where ar-bench looks. */
static int
new_rule(const struct ar_design *d, const struct trial *tr, size_t max,
    size_t *used, int *why)
{
	struct ar_pairs p = { tr->x, tr->first, 'm', 0, AR_BLOCK };
	struct ar_look lk;
	size_t n;
	int v = AR_V_CONTINUE;

	for (n = 1; n <= max; n++) {
		if (!ar_verdict_look(n, &d->o) && n < max)
			continue;
		p.n = n;
		v = ar_verdict(d, &p, max, n == max, &lk);
		if (v != AR_V_CONTINUE)
			break;
	}
	*used = n > max ? max : n;
	*why = lk.why;
	return v;
}


static double
med(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	ar_sort(v, n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* karpathy/autoresearch: one run each, keep if faster. */
static int
greedy(const struct trial *tr)
{
	return tr->m[0] < tr->b[0];
}

/* SkyPilot's example: five runs each, keep if the median is faster. */
static int
median5(const struct trial *tr)
{
	double b[5], m[5];

	memcpy(b, tr->b, sizeof b);
	memcpy(m, tr->m, sizeof m);
	return med(m, 5) < med(b, 5);
}

/* pi-autoresearch: five runs each; keep if faster and the improvement is
 * at least twice the MAD of all ten values (confidence >= 2). */
static int
pi_mad(const struct trial *tr)
{
	double all[10], b[5], m[5], mb, mm, c, d[10];
	int i;

	for (i = 0; i < 5; i++) {
		all[2 * i] = b[i] = tr->b[i];
		all[2 * i + 1] = m[i] = tr->m[i];
	}
	mb = med(b, 5);
	mm = med(m, 5);
	c = med(all, 10);
	for (i = 0; i < 10; i++)
		d[i] = fabs(all[i] - c);
	return mm < mb && (mb - mm) / med(d, 10) >= 2;
}

static int
selected(const char *spec, const struct shape *sh)
{
	char *s, *tok, *save = NULL;
	int hit = 0;

	if (strcmp(spec, "all") == 0)
		return 1;
	s = ar_xstrdup(spec);
	for (tok = strtok_r(s, ",", &save); tok && !hit; tok = strtok_r(NULL,
	    ",", &save))
		hit = strcmp(tok, sh->name) == 0 || strcmp(tok, sh->set) == 0;
	free(s);
	return hit;
}

static const char *
why_name(int why)
{
	static const char *n[] = { "-", "few", "keep", "equivalent",
	    "discard", "futile", "unstable", "undecided" };

	return why >= 0 && why <= AR_WHY_UNDECIDED ? n[why] : "?";
}

int
main(int argc, char **argv)
{
	struct ar_verdict_opts o;
	struct ar_design d;
	long trials = 1000, seed = 1;
	const char *spec = "all", *cvspec = "0.03,0.10,0.30";
	double cvs[8];
	size_t ncv = 0, si;
	int c, ci, aa, old = 1;
	struct trial tr;
	gsl_rng *r;

	ar_std_args(argc, argv, usage);
	ar_verdict_defaults(&o);
	while ((c = getopt(argc, argv, "a:B:b:c:k:K:m:Op:s:S:t:")) != -1) {
		switch (c) {
		case 'B': block = (size_t)atol(optarg); break;
		case 'a': o.alpha = atof(optarg); break;
		case 'b': o.beta = atof(optarg); break;
		case 'c': cvspec = optarg; break;
		case 'k': o.keep_shape = atof(optarg); break;
		case 'K': o.stop_shape = atof(optarg); break;
		case 'm': o.min_effect = atof(optarg); break;
		case 'O': old = 0; break;
		case 'p': o.max_pairs = (size_t)atol(optarg); break;
		case 's': seed = atol(optarg); break;
		case 't': trials = atol(optarg); break;
		case 'S': spec = optarg; break;
		default: ar_usage(usage);
		}
	}
	{
		char *s = ar_xstrdup(cvspec), *tok, *save = NULL;

		for (tok = strtok_r(s, ",", &save); tok && ncv < 8;
		    tok = strtok_r(NULL, ",", &save))
			cvs[ncv++] = atof(tok);
		free(s);
	}
	for (si = 0; si < NSHAPE && !selected(spec, &shapes[si]); si++)
		;
	if (trials < 1 || ncv == 0 || si == NSHAPE)
		ar_usage(usage);
	if (ar_design_init(&d, &o) < 0)
		ar_die(AR_EX_USAGE, "bad options for the verdict design");
	r = gsl_rng_alloc(gsl_rng_mt19937);
	tr.x = ar_xmalloc(o.max_pairs * sizeof *tr.x);
	tr.b = ar_xmalloc(o.max_pairs * sizeof *tr.b);
	tr.m = ar_xmalloc(o.max_pairs * sizeof *tr.m);
	tr.first = ar_xmalloc(o.max_pairs + 1);
	printf("# verdict-sim: %ld trials per case; ours: min effect %.3g, "
	    "alpha %.3g, beta %.3g, %zu looks from %zu to %zu pairs, keep "
	    "boundary z %.3f (shape %.2f), stop boundary z %.3f at the last "
	    "look (shape %.2f); seed %ld\n", trials, o.min_effect, o.alpha,
	    o.beta, d.looks, o.min_pairs, o.max_pairs, d.keep_c, d.o.keep_shape,
	    d.stop_c, d.o.stop_shape, seed);
	printf("noise\tshape\tset\tcase\trule\tkeep_rate\tmedian_pairs\t"
	    "verdicts\n");
	for (si = 0; si < NSHAPE; si++) {
		const struct shape *sh = &shapes[si];

		if (!selected(spec, sh))
			continue;
		for (ci = 0; ci < (int)ncv; ci++)
			for (aa = 1; aa >= 0; aa--) {
				size_t k[5] = {0}, ko[5] = {0}, kg = 0, km = 0,
				    kp = 0, whys[AR_WHY_UNDECIDED + 1] = {0};
				double *pn = ar_xmalloc((size_t)trials *
				    sizeof *pn), *po = ar_xmalloc(
				    (size_t)trials * sizeof *po);
				const char *what = aa ? sh->aa : "3% faster";
				long t;
				int w;

				/* The same draws for every cell's trials:
				 * rules and options compare on one set. */
				gsl_rng_set(r, (unsigned long)(seed * 1000003 +
				    (long)si * 101 + ci * 7 + aa));
				for (t = 0; t < trials; t++) {
					size_t used;
					int v, why;

					make_trial(r, cvs[ci], sh, aa, &tr,
					    o.max_pairs);
					if (block == AR_BLOCK) {
						v = new_rule(&d, &tr, o.max_pairs,
						    &used, &why);
						k[v]++;
						whys[why]++;
						pn[t] = (double)used;
					}
					if (old) {
						v = old_rule(tr.x, o.max_pairs,
						    o.min_effect, &used);
						ko[v]++;
						po[t] = (double)used;
					}
					kg += (size_t)greedy(&tr);
					km += (size_t)median5(&tr);
					kp += (size_t)pi_mad(&tr);
				}
				if (block == AR_BLOCK)
				printf("CV %g%%\t%s\t%s\t%s\tours\t%.4f\t%.0f\t"
				    "keep %zu, discard %zu, equivalent %zu, "
				    "inconclusive %zu (", cvs[ci] * 100,
				    sh->name, sh->set, what,
				    (double)k[AR_V_KEEP] / trials, med(pn,
				    (size_t)trials), k[AR_V_KEEP],
				    k[AR_V_DISCARD], k[AR_V_EQUIVALENT],
				    k[AR_V_INCONCLUSIVE]);
				for (w = AR_WHY_FEW; w <= AR_WHY_UNDECIDED &&
				    block == AR_BLOCK; w++)
					if (whys[w] && (w == AR_WHY_FEW || w >=
					    AR_WHY_FUTILE))
						printf(" %s %zu", why_name(w),
						    whys[w]);
				if (block == AR_BLOCK)
					printf(" )\n");
				if (old)
					printf("CV %g%%\t%s\t%s\t%s\t8975a38%s\t"
					    "%.4f\t%.0f\tkeep %zu, discard %zu, "
					    "equivalent %zu, inconclusive %zu\n",
					    cvs[ci] * 100, sh->name, sh->set,
					    what, block == AR_BLOCK ? "" :
					    " (its own 2-pair blocks)", (double)ko[AR_V_KEEP] / trials,
					    med(po, (size_t)trials),
					    ko[AR_V_KEEP], ko[AR_V_DISCARD],
					    ko[AR_V_EQUIVALENT],
					    ko[AR_V_INCONCLUSIVE]);
				printf("CV %g%%\t%s\t%s\t%s\tgreedy, 1 run each\t"
				    "%.4f\t1\t\n", cvs[ci] * 100, sh->name,
				    sh->set, what, (double)kg / trials);
				printf("CV %g%%\t%s\t%s\t%s\tmedian of 5\t%.4f\t5\t"
				    "\n", cvs[ci] * 100, sh->name, sh->set, what,
				    (double)km / trials);
				printf("CV %g%%\t%s\t%s\t%s\tpi MAD confidence >= "
				    "2 (5 each)\t%.4f\t5\t\n", cvs[ci] * 100,
				    sh->name, sh->set, what, (double)kp /
				    trials);
				fflush(stdout);
				free(pn);
				free(po);
			}
	}
	free(tr.x);
	free(tr.b);
	free(tr.m);
	free(tr.first);
	gsl_rng_free(r);
	return 0;
}
