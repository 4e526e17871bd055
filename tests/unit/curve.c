/* curve.c: unit tests of lib/curve: exact Amdahl and USL data give back
 * their parameters, too few points give no fit, predictions hold the
 * fitted curve, and the best feasible point and the knee. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "curve.h"
#include "unit.h"

/* y0 * g(k) / g(k0), g(k) = k / (1 + s (k - 1) + c k (k - 1)). */
static double
usl(double k, double k0, double y0, double s, double c)
{
	double g = k / (1 + s * (k - 1) + c * k * (k - 1));
	double g0 = k0 / (1 + s * (k0 - 1) + c * k0 * (k0 - 1));

	return y0 * g / g0;
}

/* Points on the curve at ks, each with a 95% interval of +-1%. */
static size_t
points(struct ar_point *p, const double *ks, size_t n, double y0, double s,
    double c)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i].k = ks[i];
		p[i].y = usl(ks[i], ks[0], y0, s, c);
		p[i].lo = p[i].y * 0.99;
		p[i].hi = p[i].y * 1.01;
		p[i].feasible = 1;
	}
	return n;
}

static void
amdahl(void)
{
	static const double ks[] = { 1, 2, 4, 8 }, two[] = { 2, 8 };
	struct ar_point p[8];
	struct ar_fit f;
	size_t n = points(p, ks, 4, 2.0, 0.1, 0);

	OK(ar_curve_fit(p, n, &f) == AR_FIT_AMDAHL && f.model == AR_FIT_AMDAHL,
	    "Amdahl data: an Amdahl fit");
	OK(fabs(f.sigma - 0.1) < 1e-4 && f.kappa == 0, "Amdahl: sigma 0.1 back "
	    "(%.6f)", f.sigma);
	OK(f.k0 == 1 && f.y0 == 2.0 && f.sigma_se > 0 && isfinite(f.sigma_se),
	    "Amdahl: anchored at the smallest k, with a standard error");
	OK(fabs(ar_curve_eval(&f, 16) - usl(16, 1, 2, 0.1, 0)) < 1e-3,
	    "Amdahl: the fit extrapolates the law");
	OK(strstr(f.why, "Amdahl, anchored at k=1: 4 points; USL's kappa is "
	    "not above its noise") != NULL, "Amdahl: why names the anchor, the "
	    "points and why not USL");
	n = points(p, two, 2, 5.0, 0.3, 0);
	OK(ar_curve_fit(p, n, &f) == AR_FIT_AMDAHL, "two points fit Amdahl");
	OK(fabs(f.sigma - 0.3) < 1e-4 && f.k0 == 2, "two points: sigma 0.3 "
	    "back (%.6f)", f.sigma);
	OK(strcmp(f.why, "Amdahl, anchored at k=2: 2 points") == 0, "two "
	    "points: why");
	/* Points given in any order: the anchor is the smallest k. */
	{
		struct ar_point q[2] = { p[1], p[0] };

		OK(ar_curve_fit(q, 2, &f) == AR_FIT_AMDAHL && f.k0 == 2 &&
		    fabs(f.sigma - 0.3) < 1e-4, "the anchor is the smallest k, "
		    "whatever the order");
	}
}

static void
universal(void)
{
	static const double ks[] = { 1, 2, 4, 8, 16 };
	struct ar_point p[8];
	struct ar_fit f;
	size_t n = points(p, ks, 5, 1.0, 0.05, 0.02);

	OK(ar_curve_fit(p, n, &f) == AR_FIT_USL, "USL data past its peak: a "
	    "USL fit");
	OK(fabs(f.sigma - 0.05) < 1e-3 && fabs(f.kappa - 0.02) < 1e-4,
	    "USL: sigma and kappa back (%.6f, %.6f)", f.sigma, f.kappa);
	OK(f.kappa > 2 * f.kappa_se, "USL: kappa stands out of its noise");
	OK(strncmp(f.why, "USL, anchored at k=1: 5 points, kappa ", 38) == 0,
	    "USL: why");
	n = points(p, ks, 3, 1.0, 0.05, 0.02);
	OK(ar_curve_fit(p, n, &f) == AR_FIT_AMDAHL, "three points never fit "
	    "USL");
}

static void
too_few(void)
{
	struct ar_point p[1] = { { 1, 1, 0.9, 1.1, 1 } };
	struct ar_fit f;

	OK(ar_curve_fit(p, 1, &f) == AR_FIT_NONE && f.model == AR_FIT_NONE &&
	    strcmp(f.why, "1 point: a fit needs two scales or more") == 0,
	    "one point: no fit, and why");
	OK(ar_curve_fit(p, 0, &f) == AR_FIT_NONE && strcmp(f.why, "0 points: a "
	    "fit needs two scales or more") == 0, "no points: no fit, and why");
}

static void
predict(void)
{
	static const double ks[] = { 1, 2, 4, 8, 16 }, at[] = { 1, 2, 3, 4, 8,
	    16, 32 };
	struct ar_point p[8];
	struct ar_fit f;
	size_t i, n;
	double y, lo, hi;
	int inside, model;

	for (model = 0; model < 2; model++) {
		n = points(p, ks, model ? 5 : 4, 1.5, 0.08, model ? 0.02 : 0);
		ar_curve_fit(p, n, &f);
		inside = 1;
		for (i = 0; i < NELEM(at); i++) {
			ar_curve_predict(&f, at[i], &y, &lo, &hi);
			if (!(y == ar_curve_eval(&f, at[i]) && lo < y && y < hi))
				inside = 0;
		}
		OK(inside, "%s: every prediction's interval holds the fit",
		    model ? "USL" : "Amdahl");
		ar_curve_predict(&f, ks[1], &y, &lo, &hi);
		OK(lo <= p[1].y && p[1].y <= hi, "%s: and the point measured "
		    "there", model ? "USL" : "Amdahl");
	}
	n = points(p, ks, 4, 1.5, 0.08, 0);
	ar_curve_fit(p, n, &f);
	{
		double w2, w32;

		ar_curve_predict(&f, 2, &y, &lo, &hi);
		w2 = hi - lo;
		ar_curve_predict(&f, 32, &y, &lo, &hi);
		w32 = hi - lo;
		OK(w32 > w2, "the interval widens far from the points");
	}
}

static void
best(void)
{
	struct ar_point p[] = {
		{ 1, 1.0, 0.95, 1.05, 1 },
		{ 2, 1.8, 1.70, 1.90, 1 },
		{ 4, 2.0, 1.85, 2.15, 1 },
		{ 8, 2.5, 2.40, 2.60, 0 },
	};
	long knee = 0, bk = 0;
	double b = 0;

	OK(ar_curve_best(p, 4, 1, &knee, &bk, &b) == 0 && bk == 4 && b == 2.0,
	    "higher: the best feasible point, not the infeasible higher one");
	OK(knee == 2, "higher: the knee, the smallest k whose interval reaches "
	    "the best's");
	p[1].hi = 1.80;
	OK(ar_curve_best(p, 4, 1, &knee, &bk, &b) == 0 && knee == 4, "higher: "
	    "no interval reaches it: the knee is the best");
	OK(ar_curve_best(p, 4, 0, &knee, &bk, &b) == 0 && bk == 1 && b == 1.0 &&
	    knee == 1, "lower is better: the smallest");
	p[2].y = 1.8;
	OK(ar_curve_best(p, 4, 1, &knee, &bk, &b) == 0 && bk == 2, "a tie: the "
	    "smaller k");
	p[0].feasible = p[1].feasible = p[2].feasible = 0;
	OK(ar_curve_best(p, 4, 1, &knee, &bk, &b) == -1, "none feasible: -1");
	p[0].feasible = 1;
	p[0].y = NAN;
	OK(ar_curve_best(p, 4, 1, &knee, &bk, &b) == -1, "a NaN is no point");
}

const struct unit_test unit_curve[] = {
	TEST(amdahl),
	TEST(universal),
	TEST(too_few),
	TEST(predict),
	TEST(best),
	UNIT_END,
};
