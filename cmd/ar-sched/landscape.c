/* landscape.c: ar-sched landscape: landscape files for ar-sched
 * simulate (simulate.c), by one of two recipes. -t families, the
 * default, makes them from families of methods seen in practice: flat,
 * ones that pay only at scale, ones that win at k=1 and then contend,
 * ones whose guardrail breaks at scale, noisy ones and duds, each
 * scaling by the Universal Scalability Law against a baseline of its
 * own. -t shapes is shapes.c. This file owns the options of both. The
 * same seed gives the same bytes. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "id.h"
#include "json.h"
#include "policy.h"
#include "sched.h"

#define NK AR_POL_NK

enum { F_FLAT, F_SCALER, F_CONTEND, F_INFEAS, F_NOISY, F_DUD, F_N };
static const char *const fam_name[F_N] = {
	"flat", "scaler", "contend", "infeasible", "noisy", "dud"
};

/* Throughput at k relative to k=1: the Universal Scalability Law. */
static double
usl(double k, double sigma, double kappa)
{
	return k / (1 + sigma * (k - 1) + kappa * k * (k - 1));
}

int
mix_parse(const char *arg, const char *const *names, int n, double *w)
{
	char *list = ar_xstrdup(arg), *save = NULL, *tok;
	double sum = 0;
	int f;

	for (f = 0; f < n; f++)
		w[f] = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		double v;

		if (eq)
			*eq = 0;
		for (f = 0; f < n; f++)
			if (strcmp(tok, names[f]) == 0)
				break;
		if (f == n || !eq || ar_parse_double(eq + 1, &v) < 0 ||
		    !(v >= 0 && v <= 1e6)) {
			free(list);
			return -1;
		}
		w[f] = v;
	}
	free(list);
	for (f = 0; f < n; f++)
		sum += w[f];
	return sum > 0 ? 0 : -2;
}

static void
parse_mix(const char *arg, double *w)
{
	int r = mix_parse(arg, fam_name, F_N, w), f;

	if (r == -1)
		ar_die(AR_EX_USAGE, "--mix %s: not family=weight with a family "
		    "of flat, scaler, contend, infeasible, noisy, dud", arg);
	if (r == -2)
		ar_die(AR_EX_USAGE, "--mix %s: every weight is 0", arg);
	for (f = 0, w[F_N] = 0; f < F_N; f++)
		w[F_N] += w[f];
}

/* -m's argument: a count, or a range lo-hi to draw from per landscape. */
static void
parse_methods(const char *arg, long long *lo, long long *hi)
{
	const char *dash = strchr(arg, '-');
	char *a = ar_xstrdup(arg);
	int bad;

	if (dash)
		a[dash - arg] = 0;
	bad = ar_parse_long(a, lo) < 0;
	if (dash)
		bad = bad || ar_parse_long(dash + 1, hi) < 0;
	else
		*hi = *lo;
	bad = bad || *lo < 1 || *hi > 1000 || *lo > *hi;
	free(a);
	if (bad)
		ar_die(AR_EX_USAGE, "-m %s: not a count from 1 to 1000, or a "
		    "range lo-hi of such counts", arg);
}

/* The shapes recipe's options, checked, to shapes.c. */
static void
run_shapes(struct shapes_opt *o, const char *mix, int mset)
{
	if (!mset) {
		o->mlo = 8;
		o->mhi = 80;
	}
	if (mix)
		shapes_parse_mix(mix, o->w);
	else
		shapes_default_mix(o->w);
	shapes_print(o);
}

int
cmd_landscape(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mix", required_argument, NULL, 'M' },
		{ "hints", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	/* The default mix: every landscape has its share of methods that
	 * pay only at scale, of contention and of broken guardrails. */
	double w[F_N + 1] = { 3, 2, 2, 1, 1, 2, 11 };
	struct shapes_opt so = { .hints = 0 };
	long long nland = 10, mlo = 12, mhi = 12, seed = 1;
	const char *prefix = "L", *mix = NULL, *hints = NULL;
	long li, mi, nmeth;
	int c, ki, shapes = 0, mset = 0;

	optind = 0;
	while ((c = getopt_long(argc, argv, "m:n:s:t:x:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'm':
			parse_methods(optarg, &mlo, &mhi);
			mset = 1;
			break;
		case 'n':
			if (ar_parse_long(optarg, &nland) < 0 || nland < 1 ||
			    nland > 100000)
				ar_die(AR_EX_USAGE, "-n %s: not a count from 1 "
				    "to 100000", optarg);
			break;
		case 's':
			if (ar_parse_long(optarg, &seed) < 0 || seed < 0)
				ar_die(AR_EX_USAGE, "-s %s: not a whole number "
				    "from 0", optarg);
			break;
		case 't':
			if (strcmp(optarg, "shapes") == 0)
				shapes = 1;
			else if (strcmp(optarg, "families") == 0)
				shapes = 0;
			else
				ar_die(AR_EX_USAGE, "-t %s: the recipes are "
				    "families and shapes", optarg);
			break;
		case 'x':
			if (!ar_id_valid(optarg) || strlen(optarg) > 40)
				ar_die(AR_EX_USAGE, "-x %s: not a short name of "
				    "letters, digits, '.', '_', '-'", optarg);
			prefix = optarg;
			break;
		case 'M': mix = optarg; break;
		case 'H':
			if (ar_parse_double(optarg, &so.hints) < 0 ||
			    !(so.hints >= 0 && so.hints <= 1))
				ar_die(AR_EX_USAGE, "--hints %s: not a share "
				    "from 0 to 1", optarg);
			hints = optarg;
			break;
		default: ar_usage(USAGE_LANDSCAPE);
		}
	}
	if (optind != argc)
		ar_usage(USAGE_LANDSCAPE);
	if (shapes) {
		so.nland = nland;
		so.mlo = mlo;
		so.mhi = mhi;
		so.seed = seed;
		so.prefix = prefix;
		run_shapes(&so, mix, mset);
		ar_fshut(stdout, "<stdout>");
		return AR_EX_OK;
	}
	if (hints)
		ar_die(AR_EX_USAGE, "--hints %s: only with -t shapes (every "
		    "family landscape has hints)", hints);
	if (mix)
		parse_mix(mix, w);
	puts("landscape\tmethod\tk\tscore\tnoise\tguard\tguard_max\tcost_h\t"
	    "pfrac\thint\tbase_pfrac\tfamily");
	for (li = 0; li < nland; li++) {
		struct rng g = { mix64((uint64_t)seed * 1000003ULL +
		    (uint64_t)li) };
		double bsig = urange(&g, 0.03, 0.15);   /* the baseline's */
		double hour = urange(&g, 0.1, 0.5);     /* one k=1 run */
		double bp = 1 - bsig;

		/* A range of methods is drawn apart from g, so that a
		 * count gives the bytes it always gave. */
		nmeth = (long)mlo;
		if (mhi > mlo) {
			struct rng gm = { mix64(g.s ^ 0x6d6574686f64ULL) };

			nmeth += (long)(rnd(&gm) * (double)(mhi - mlo + 1));
		}
		for (mi = 0; mi < nmeth; mi++) {
			double u = rnd(&g) * w[F_N], r1, sig, kap = 0, rsd;
			double g1, ggrow, hq = rnd(&g);
			int f = 0;
			const char *hint = "";

			while (f < F_N - 1 && u >= w[f])
				u -= w[f++];
			/* The run-to-run rsd on a shared cluster, 2-30%;
			 * an estimate is a median of 20 runs. */
			rsd = f == F_NOISY ? lrange(&g, 0.10, 0.30) :
			    lrange(&g, 0.02, 0.10);
			r1 = urange(&g, 0.97, 1.06);
			sig = bsig * urange(&g, 0.85, 1.15);
			g1 = urange(&g, 0.3, 0.7);
			ggrow = urange(&g, 0.0, 0.03);
			switch (f) {
			case F_SCALER:
				/* Loses a little at k=1, less serial work
				 * and fewer syncs: wins at 4 or 8. */
				r1 = urange(&g, 0.95, 0.995);
				sig = bsig * urange(&g, 0.2, 0.7);
				break;
			case F_CONTEND:
				/* Wins at 1, then contention (kappa). */
				r1 = urange(&g, 1.01, 1.08);
				kap = urange(&g, 0.003, 0.03);
				break;
			case F_INFEAS:
				/* Any shape, but memory grows with k until
				 * the guardrail breaks at 4 or 8. */
				r1 = urange(&g, 0.97, 1.04);
				sig = bsig * urange(&g, 0.1, 1.0);
				g1 = urange(&g, 0.6, 0.8);
				ggrow = urange(&g, 0.25, 0.6);
				break;
			case F_DUD:
				r1 = urange(&g, 0.70, 0.95);
				sig = bsig * urange(&g, 1.0, 1.5);
				break;
			default:
				break;
			}
			/* The planner's hint: right half the time, wrong
			 * a tenth of it, else none. */
			if (hq < 0.5)
				hint = f == F_SCALER ? "scale" : f == F_DUD ?
				    "" : "single";
			else if (hq < 0.6)
				hint = f == F_SCALER ? "single" : "scale";
			for (ki = 0; ki < NK; ki++) {
				double k = (double)ar_pol_k(ki);
				double sc = r1 * usl(k, sig, kap) /
				    usl(k, bsig, 0);
				double nz = rsd / sqrt(20) * (1 + 0.15 *
				    log2(k));
				double gd = g1 * (1 + ggrow * log2(k) *
				    log2(k));

				printf("%s%04ld\tm%02ld\t%ld\t%.4f\t%.4f\t%.3f\t"
				    "1\t%.3f\t%.3f\t%s\t%.3f\t%s\n", prefix, li,
				    mi, (long)k, sc, nz, gd, hour * k,
				    1 - sig < 0 ? 0 : 1 - sig, hint, bp,
				    fam_name[f]);
			}
		}
	}
	ar_fshut(stdout, "<stdout>");
	return AR_EX_OK;
}

