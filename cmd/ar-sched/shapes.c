/* shapes.c: ar-sched landscape -t shapes: landscapes made from shapes of
 * the score curve, each written without looking at how the policies
 * decide, so that a policy tuned on them is not tuned on its own
 * assumptions: a baseline that scales in one of several ways, methods
 * whose ratio to it peaks at 1, 2, 4 or 8, or falls, or stays flat,
 * guardrails that break exactly where the score is best, crashes at
 * scale, near-ties, duds and noisy ones; a noise and a cost of its own
 * for every method; hints, profiles and the baseline's parallel
 * fraction in few landscapes, and not always right there. ar-sched(1)
 * describes every shape; the same seed gives the same bytes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "json.h"
#include "sched.h"

#define NK 4                   /* k = 1, 2, 4, 8: k = 1 << j */
#define PAIRS 32               /* of a standard measurement */

enum {
	S_AMDAHL, S_PEAK2, S_PEAK4, S_PEAK8, S_WEAK4, S_WEAK8, S_PLATEAU,
	S_SFLAT, S_SFALL, S_TRAP4, S_TRAP8, S_CRASH, S_TIE, S_FLAT, S_DUD,
	S_NOISY, S_COUNT
};
_Static_assert((int)S_COUNT == (int)SHAPE_N, "SHAPE_N is the number of shapes");

static const char *const shape_name[SHAPE_N] = {
	"amdahl", "usl-peak2", "usl-peak4", "usl-peak8", "weak1-best4",
	"weak1-best8", "plateau", "strong1-flat", "strong1-fall",
	"guard-trap4", "guard-trap8", "crash", "near-tie", "flat", "dud",
	"noisy"
};

/* The default: most methods do little or lose, as in a real campaign;
 * a few pay at scale, a few break there. */
static const double shape_w[SHAPE_N] = {
	2, 1, 1, 0.5, 0.5, 0.5, 1, 1.5, 1.5, 0.5, 0.5, 1, 0.4, 3, 4, 1.5
};

enum { B_AMDAHL, B_USL, B_LOGCOMM, B_SUPER, B_N };
static const char *const base_name[B_N] = {
	"amdahl", "usl", "logcomm", "superlinear"
};

/* One landscape's baseline: its speedup over its own k=1 run. */
struct base {
	int kind;
	double sp[NK];
};

/* One method: its shape, the true ratio at each k, the ratio it would
 * have had without its crash (what its runs cost and what a profile
 * sees), its guardrail and the rsd of one run. */
struct meth {
	int shape, partner;        /* a near-tie's other method, or -1 */
	double r[NK], trend[NK], guard[NK], rsd[NK];
};

void
shapes_default_mix(double *w)
{
	memcpy(w, shape_w, sizeof shape_w);
}

void
shapes_parse_mix(const char *arg, double *w)
{
	int r = mix_parse(arg, shape_name, SHAPE_N, w);

	if (r == -1)
		ar_die(AR_EX_USAGE, "--mix %s: not shape=weight with a shape of "
		    "ar-sched(1)'s -t shapes", arg);
	if (r == -2)
		ar_die(AR_EX_USAGE, "--mix %s: every weight is 0", arg);
}

/* Amdahl's speedup at k of parallel fraction p. */
static double
amdahl(double k, double p)
{
	return 1 / ((1 - p) + p / k);
}

/* The parallel fraction Amdahl's law would give a speedup s at k. */
static double
amdahl_p(double s, double k)
{
	double p = (1 - 1 / s) / (1 - 1 / k);

	return p < 0 ? 0 : p > 1 ? 1 : p;
}

static void
base_draw(struct rng *g, struct base *b)
{
	double p = 0, sig = 0, kap = 0, c = 0, s = 0;
	int j;

	b->kind = (int)(rnd(g) * B_N);
	switch (b->kind) {
	case B_AMDAHL:
		p = urange(g, 0.80, 0.99);
		break;
	case B_USL:
		sig = urange(g, 0.02, 0.12);
		kap = urange(g, 0.001, 0.012);
		break;
	case B_LOGCOMM:
		p = urange(g, 0.90, 0.99);
		c = urange(g, 0.01, 0.05);
		break;
	default:
		sig = urange(g, 0, 0.05);
		s = urange(g, 0.02, 0.08);
		break;
	}
	for (j = 0; j < NK; j++) {
		double k = (double)(1 << j);

		switch (b->kind) {
		case B_AMDAHL:
			b->sp[j] = amdahl(k, p);
			break;
		case B_USL:
			b->sp[j] = k / (1 + sig * (k - 1) + kap * k * (k - 1));
			break;
		case B_LOGCOMM:
			b->sp[j] = 1 / ((1 - p) + p / k + c * j);
			break;
		default:
			b->sp[j] = k * (1 + s * j) / (1 + sig * (k - 1));
			break;
		}
	}
}

/* A curve that starts at r1 and changes by the factors f[0..2] from
 * one k to the next. */
static void
steps(double *r, double r1, double f1, double f2, double f3)
{
	r[0] = r1;
	r[1] = r[0] * f1;
	r[2] = r[1] * f2;
	r[3] = r[2] * f3;
}

/* A curve whose top, top, is at index j, falling away from it by 2 to
 * 10% a step. */
static void
peak_at(struct rng *g, double *r, int j, double top)
{
	int i;

	r[j] = top;
	for (i = j - 1; i >= 0; i--)
		r[i] = r[i + 1] * urange(g, 0.90, 0.98);
	for (i = j + 1; i < NK; i++)
		r[i] = r[i - 1] * urange(g, 0.90, 0.98);
}

/* A guardrail that holds at every k: 0.2 to 0.7 of its limit at k=1,
 * growing by up to 10% a doubling. */
static void
guard_safe(struct rng *g, double *gd)
{
	double g1 = urange(g, 0.2, 0.7), grow = urange(g, 1.0, 1.1);
	int j;

	for (j = 0; j < NK; j++)
		gd[j] = g1 * pow(grow, j);
}

/* A guardrail that breaks first at index jb: 2 to 30% over its limit
 * there, 70 to 97% of it one k before, growing after. */
static void
guard_break(struct rng *g, double *gd, int jb)
{
	double lo = urange(g, 0.3, 0.6), below = urange(g, 0.70, 0.97);
	int j;

	for (j = 0; j < jb; j++)
		gd[j] = jb == 1 ? below : lo * pow(below / lo,
		    (double)j / (jb - 1));
	gd[jb] = urange(g, 1.02, 1.30);
	for (j = jb + 1; j < NK; j++)
		gd[j] = gd[j - 1] * urange(g, 1.05, 1.30);
}

/* The curve and the guardrail of one method of every shape but
 * near-tie, whose level waits for the others' (tie_curves). */
static void
shape_curve(struct rng *g, const struct base *b, struct meth *m)
{
	double *r = m->r, a, c, d, top;
	int j, jc;

	guard_safe(g, m->guard);
	switch (m->shape) {
	case S_AMDAHL:
		/* Its own parallel fraction against the baseline's
		 * effective one at k=8: a serial part 0.4 to 3 times the
		 * baseline's. */
		a = 1 - (1 - amdahl_p(b->sp[3], 8)) * lrange(g, 0.5, 3);
		a = a < 0.3 ? 0.3 : a > 0.999 ? 0.999 : a;
		c = urange(g, 0.92, 1.06);
		for (j = 0; j < NK; j++)
			r[j] = c * amdahl((double)(1 << j), a) / b->sp[j];
		break;
	case S_PEAK2:
		steps(r, urange(g, 0.96, 1.04), 1 + urange(g, 0.02, 0.20),
		    urange(g, 0.85, 0.985), urange(g, 0.75, 0.97));
		break;
	case S_PEAK4:
		a = urange(g, 0.02, 0.15);
		c = a * urange(g, 0.3, 0.8);
		steps(r, urange(g, 0.96, 1.04), 1 + a, 1 + (c < 0.01 ? 0.01 :
		    c), urange(g, 0.80, 0.985));
		break;
	case S_PEAK8:
		a = urange(g, 0.02, 0.12);
		c = urange(g, 0.4, 0.9);
		d = a * c * c;
		steps(r, urange(g, 0.96, 1.04), 1 + a, 1 + a * c,
		    1 + (d < 0.01 ? 0.01 : d));
		break;
	case S_WEAK4:
		r[0] = urange(g, 0.90, 0.99);
		r[2] = urange(g, 1.02, 1.30);
		r[1] = sqrt(r[0] * r[2]) * urange(g, 0.96, 1.01);
		r[3] = r[2] * urange(g, 0.85, 0.985);
		break;
	case S_WEAK8:
		r[0] = urange(g, 0.90, 0.99);
		r[3] = urange(g, 1.03, 1.35);
		a = urange(g, 0.2, 0.5);
		c = urange(g, a + 0.15, 0.9);
		r[1] = r[0] * pow(r[3] / r[0], a);
		r[2] = r[0] * pow(r[3] / r[0], c);
		break;
	case S_PLATEAU:
		/* Rises to k=2 or 4, then stays within 0.3%. */
		jc = 1 + (rnd(g) < 0.5);
		a = pow(1 + urange(g, 0.03, 0.25), 1.0 / jc);
		r[0] = urange(g, 0.95, 1.03);
		for (j = 1; j < NK; j++)
			r[j] = j <= jc ? r[j - 1] * a : r[jc] *
			    (1 + urange(g, -0.003, 0.003));
		break;
	case S_SFLAT:
		r[0] = urange(g, 1.02, 1.30);
		for (j = 1; j < NK; j++)
			r[j] = r[0] * (1 + urange(g, -0.005, 0.005));
		break;
	case S_SFALL:
		steps(r, urange(g, 1.02, 1.30), urange(g, 0.90, 0.99),
		    urange(g, 0.90, 0.99), urange(g, 0.90, 0.99));
		break;
	case S_TRAP4:
		/* The jump to k=4 is the best of the method, and breaks
		 * the guardrail. */
		steps(r, urange(g, 0.96, 1.06), 1 + urange(g, 0.01, 0.08),
		    1 + urange(g, 0.05, 0.35), urange(g, 0.85, 0.99));
		guard_break(g, m->guard, 2);
		break;
	case S_TRAP8:
		steps(r, urange(g, 0.96, 1.06), 1 + urange(g, 0.01, 0.08),
		    1 + urange(g, 0.01, 0.08), 1 + urange(g, 0.05, 0.35));
		guard_break(g, m->guard, 3);
		break;
	case S_CRASH:
		/* Any trend until it crashes at 4 or 8: out of memory
		 * (the guardrail far over), its score the trend's or
		 * that of runs that died early. */
		jc = rnd(g) < 0.4 ? 2 : 3;
		steps(r, urange(g, 0.95, 1.10), urange(g, 0.97, 1.12),
		    urange(g, 0.97, 1.12), urange(g, 0.97, 1.12));
		memcpy(m->trend, r, sizeof m->trend);
		a = rnd(g);
		for (j = jc; j < NK; j++) {
			m->guard[j] = urange(g, 1.5, 4);
			if (a < 0.5)
				r[j] = urange(g, 0.05, 0.5);
		}
		return;
	case S_FLAT:
		for (j = 0; j < NK; j++)
			r[j] = 1 + urange(g, -0.008, 0.008);
		break;
	case S_DUD:
		steps(r, urange(g, 0.6, 0.97), urange(g, 0.9, 1.03),
		    urange(g, 0.9, 1.03), urange(g, 0.9, 1.03));
		for (j = 0; j < NK; j++)
			if (r[j] > 0.97)
				r[j] = 0.97 - 0.002 * j;
		break;
	case S_NOISY:
		steps(r, urange(g, 0.95, 1.08), urange(g, 0.95, 1.08),
		    urange(g, 0.95, 1.08), urange(g, 0.95, 1.08));
		break;
	default:
		/* A near-tie: a placeholder until tie_curves. */
		top = 1;
		peak_at(g, r, (int)(rnd(g) * NK), top);
		break;
	}
	memcpy(m->trend, r, sizeof m->trend);
}

/* The best feasible true ratio of the methods that are not near-ties;
 * 1.05 when there is none. */
static double
best_other(const struct meth *m, long n)
{
	double best = 0;
	long i;
	int j;

	for (i = 0; i < n; i++)
		for (j = 0; j < NK; j++)
			if (m[i].shape != S_TIE && m[i].guard[j] <= 1 &&
			    m[i].r[j] > best)
				best = m[i].r[j];
	return best > 0 ? best : 1.05;
}

/* The near-ties: 40% of the groups at the top of the landscape (0.5%
 * below its best feasible to 2% above), the rest 2 to 10% below it; in
 * a group, two methods whose best scores, or one method whose two
 * adjacent k, are 0.2 to 1.5% apart. */
static void
tie_curves(struct rng *g, struct meth *m, long n)
{
	double best = best_other(m, n);
	long i;

	for (i = 0; i < n; i++) {
		double top, d = urange(g, 0.002, 0.015);
		struct meth *a = &m[i], *b;
		int j;

		if (a->shape != S_TIE || (a->partner >= 0 && a->partner < i))
			continue;
		top = rnd(g) < 0.4 ? best * urange(g, 0.995, 1.02) :
		    best * urange(g, 0.90, 0.98);
		if (a->partner >= 0) {
			/* The other's best at the same k half the time. */
			b = &m[a->partner];
			j = (int)(rnd(g) * NK);
			peak_at(g, a->r, j, top);
			if (rnd(g) >= 0.5)
				j = (int)(rnd(g) * NK);
			peak_at(g, b->r, j, top * (1 - d));
			memcpy(b->trend, b->r, sizeof b->trend);
		} else {
			j = (int)(rnd(g) * (NK - 1));
			if (rnd(g) < 0.5) {
				peak_at(g, a->r, j, top);
				a->r[j + 1] = top * (1 - d);
			} else {
				peak_at(g, a->r, j + 1, top);
				a->r[j] = top * (1 - d);
			}
			/* Away from the two, falling on. */
			if (j + 2 < NK)
				a->r[j + 2] = a->r[j + 1] * urange(g, 0.9, 0.98);
			if (j + 3 < NK)
				a->r[j + 3] = a->r[j + 2] * urange(g, 0.9, 0.98);
			if (j > 0)
				a->r[j - 1] = a->r[j] * urange(g, 0.9, 0.98);
			if (j > 1)
				a->r[j - 2] = a->r[j - 1] * urange(g, 0.9, 0.98);
		}
		memcpy(a->trend, a->r, sizeof a->trend);
	}
}

/* The true best feasible k of m, the smaller on a tie. */
static int
best_k(const struct meth *m)
{
	int j, bj = -1;

	for (j = 0; j < NK; j++)
		if (m->guard[j] <= 1 && (bj < 0 || m->r[j] > m->r[bj]))
			bj = j;
	return bj;
}

static double
clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static void
print_land(const struct shapes_opt *o, long li)
{
	struct rng g = { mix64(((uint64_t)o->seed * 1000003ULL +
	    (uint64_t)li) ^ 0x5348415045ULL) };
	struct base b;
	struct meth *m;
	double w[SHAPE_N], wsum = 0, hour, nlo, nhi, bpf = -1;
	long n = (long)o->mlo, i;
	int f, j, info;
	char name[64];

	if (o->mhi > o->mlo)
		n += (long)(rnd(&g) * (double)(o->mhi - o->mlo + 1));
	/* The landscape's own weights: the mix's, each 0.5 to 2 times. */
	for (f = 0; f < SHAPE_N; f++)
		wsum += w[f] = o->w[f] * exp(urange(&g, -0.7, 0.7));
	base_draw(&g, &b);
	/* One standard measurement of the baseline at k=1, in GPU-hours,
	 * and the range of the methods' run-to-run rsd. */
	hour = lrange(&g, 0.05, 1.0);
	nlo = urange(&g, 0.01, 0.03);
	nhi = urange(&g, 0.04, 0.10);
	info = rnd(&g) < o->hints;
	if (info) {
		/* What a profile of the baseline says: its effective
		 * fraction at k=2, off by a little, or by a lot a fifth
		 * of the time. */
		bpf = rnd(&g) < 0.2 ? urange(&g, 0.6, 0.99) :
		    amdahl_p(b.sp[1], 2) + urange(&g, -0.03, 0.03);
		bpf = bpf < 0.01 ? 0.01 : bpf > 1 ? 1 : bpf;
	}
	m = ar_xcalloc((size_t)n, sizeof *m);
	for (i = 0; i < n; i++) {
		double u;

		if (m[i].shape == S_TIE)
			continue;       /* the second of a pair */
		u = rnd(&g) * wsum;
		for (f = 0; f < SHAPE_N - 1 && u >= w[f]; f++)
			u -= w[f];
		while (w[f] == 0)
			f--;
		m[i].shape = f;
		m[i].partner = -1;
		/* A near-tie pairs with the next method 60% of the time. */
		if (f == S_TIE && i + 1 < n && rnd(&g) < 0.6) {
			m[i].partner = i + 1;
			m[i + 1].shape = S_TIE;
			m[i + 1].partner = i;
			guard_safe(&g, m[i + 1].guard);
		}
		shape_curve(&g, &b, &m[i]);
	}
	tie_curves(&g, m, n);
	snprintf(name, sizeof name, "%s%04ld", o->prefix, li);
	for (i = 0; i < n; i++) {
		struct meth *M = &m[i];
		double r1 = lrange(&g, nlo, nhi), grow = urange(&g, 0, 0.25);
		double over = lrange(&g, 0.7, 1.6), start = urange(&g, 0, 0.1);
		double pf = -1, hq = rnd(&g);
		const char *hint = "";
		int bj;

		if (M->shape == S_NOISY) {
			r1 = urange(&g, 0.07, 0.10);
			grow = urange(&g, 0.2, 0.5);
		}
		if (info && rnd(&g) < 0.85) {
			/* A k=1 profile: the fraction that the speedup at
			 * k=2 would give, blind to contention beyond, off
			 * by a little, or anything a fifth of the time. */
			pf = rnd(&g) < 0.2 ? urange(&g, 0.5, 1) :
			    clamp01(amdahl_p(b.sp[1] * M->trend[1] /
			    M->trend[0], 2) + urange(&g, -0.03, 0.03));
		}
		if (info && hq < 0.75) {
			/* Right 70% of the time. */
			j = best_k(M);
			bj = j > 0 && M->r[j] > M->r[0] * 1.02;
			if (rnd(&g) < 0.3)
				bj = !bj;
			hint = bj ? "scale" : "single";
		}
		for (j = 0; j < NK; j++) {
			double k = (double)(1 << j);
			double rsd = r1 * (1 + grow * j);
			/* 32 pairs of runs of the baseline and the method:
			 * the method's run time is the baseline's over its
			 * ratio, times its own overhead; each of the k
			 * GPUs pays a start-up that grows with k. */
			double cost = hour * k / b.sp[j] * (1 + over /
			    M->trend[j]) / 2 * (1 + start * j);

			printf("%s\tm%02ld\t%d\t%.4f\t%.4f\t%.3f\t1\t%.4f\t",
			    name, i, 1 << j, M->r[j], rsd * sqrt(2.0) /
			    sqrt((double)PAIRS), M->guard[j], cost);
			if (pf >= 0)
				printf("%.3f", pf);
			printf("\t%s\t", hint);
			if (bpf >= 0)
				printf("%.3f", bpf);
			printf("\t%s\t%s\n", shape_name[M->shape],
			    base_name[b.kind]);
		}
	}
	free(m);
}

void
shapes_print(const struct shapes_opt *o)
{
	long li;

	puts("landscape\tmethod\tk\tscore\tnoise\tguard\tguard_max\tcost_h\t"
	    "pfrac\thint\tbase_pfrac\tfamily\tbase_shape");
	for (li = 0; li < o->nland; li++)
		print_land(o, li);
}
