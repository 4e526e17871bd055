/* curve.c: scale curves from few points. The model is the Universal
 * Scalability Law anchored at the smallest measured k:
 *
 *   y(k) = y0 * g(k) / g(k0),  g(k) = k / (1 + sigma (k - 1) + kappa k (k - 1))
 *
 * kappa = 0 is Amdahl's law (one parameter: two points fit it); kappa > 0
 * bends the curve down past a peak (needs four points or more). Weighted
 * least squares with each point's variance from its CI, so parameter
 * uncertainties come from the measurements themselves. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "curve.h"

static double
g(double k, double s, double c)
{
	return k / (1 + s * (k - 1) + c * k * (k - 1));
}

static double
model(const struct ar_fit *f, double k, double s, double c)
{
	return f->y0 * g(k, s, c) / g(f->k0, s, c);
}

static double
sd_of(const struct ar_point *p)
{
	double sd = (p->hi - p->lo) / (2 * 1.959964);

	/* A point without an interval, or with none to speak of, weighs
	 * as one with 1% noise. */
	if (!(sd > 1e-9 * fabs(p->y)))
		sd = 0.01 * fabs(p->y) + 1e-12;
	return sd;
}

/* The weighted squared error; +inf where a denominator is not positive. */
static double
sse(const struct ar_fit *f, const struct ar_point *p, size_t n, double s,
    double c)
{
	double e = 0, kmax = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i].k > kmax)
			kmax = p[i].k;
	if (1 + s * (kmax - 1) + c * kmax * (kmax - 1) <= 1e-9 || c < 0)
		return INFINITY;
	for (i = 0; i < n; i++) {
		double r = (p[i].y - model(f, p[i].k, s, c)) / sd_of(&p[i]);

		e += r * r;
	}
	return e;
}

/* The starting point: r = (y / y0)(k0 / k) = D(k0) / D(k), with
 * D(k) = 1 + sigma (k - 1) + kappa k (k - 1), is linear in sigma and
 * kappa once multiplied out, so weighted linear least squares gives it
 * in closed form. np is 1 (kappa = 0) or 2. */
static void
linear_start(struct ar_fit *f, const struct ar_point *p, size_t n, int np)
{
	double a = 0, b = 0, d = 0, u = 0, v = 0, det;
	size_t i;

	for (i = 0; i < n; i++) {
		double k = p[i].k, r, sr, w, x1, x2, z;

		if (k == f->k0)
			continue;
		r = (p[i].y / f->y0) * (f->k0 / k);
		sr = sd_of(&p[i]) / f->y0 * (f->k0 / k);
		w = 1 / (sr * sr);
		z = r - 1;
		x1 = (f->k0 - 1) - r * (k - 1);
		x2 = f->k0 * (f->k0 - 1) - r * k * (k - 1);
		a += w * x1 * x1;
		b += w * x1 * x2;
		d += w * x2 * x2;
		u += w * x1 * z;
		v += w * x2 * z;
	}
	f->kappa = 0;
	if (np == 2 && (det = a * d - b * b) > 0) {
		f->sigma = (u * d - v * b) / det;
		f->kappa = (a * v - b * u) / det;
	} else {
		f->sigma = a > 0 ? u / a : 0;
	}
}

/* Gauss-Newton on the true weighted error, halving steps that do not
 * help and keeping kappa >= 0 and every denominator positive. */
static void
refine(struct ar_fit *f, const struct ar_point *p, size_t n, int np)
{
	double e = sse(f, p, n, f->sigma, f->kappa);
	int it;

	if (!isfinite(e)) {
		/* The linear start left the domain: start from Amdahl's
		 * plain serial fraction instead. */
		f->kappa = 0;
		f->sigma = 0;
		e = sse(f, p, n, 0, 0);
	}
	for (it = 0; it < 30; it++) {
		double a = 0, b = 0, d = 0, u = 0, v = 0, ds, dc, det, t;
		double hs = 1e-7, hc = 1e-8;
		size_t i;

		for (i = 0; i < n; i++) {
			double w = 1 / (sd_of(&p[i]) * sd_of(&p[i]));
			double m = model(f, p[i].k, f->sigma, f->kappa);
			double js = (model(f, p[i].k, f->sigma + hs, f->kappa) -
			    m) / hs;
			double jc = np > 1 ? (model(f, p[i].k, f->sigma,
			    f->kappa + hc) - m) / hc : 0;
			double r = p[i].y - m;

			a += w * js * js;
			b += w * js * jc;
			d += w * jc * jc;
			u += w * js * r;
			v += w * jc * r;
		}
		if (np > 1 && (det = a * d - b * b) > 0) {
			ds = (u * d - v * b) / det;
			dc = (a * v - b * u) / det;
		} else {
			ds = a > 0 ? u / a : 0;
			dc = 0;
		}
		for (t = 1; t > 1e-6; t /= 2) {
			double s2 = f->sigma + t * ds, c2 = f->kappa + t * dc;
			double e2;

			if (c2 < 0)
				c2 = 0;
			e2 = sse(f, p, n, s2, c2);
			if (e2 <= e) {
				f->sigma = s2;
				f->kappa = c2;
				if (e - e2 < 1e-12 * (1 + e))
					it = 30;
				e = e2;
				break;
			}
		}
		if (t <= 1e-6)
			break;
	}
}

/* The parameter covariance, (J' W J)^-1, by central differences. */
static void
covariance(struct ar_fit *f, const struct ar_point *p, size_t n, int np)
{
	double a = 0, b = 0, d = 0, hs = 1e-6, hc = 1e-7, det;
	size_t i;

	for (i = 0; i < n; i++) {
		double w = 1 / (sd_of(&p[i]) * sd_of(&p[i]));
		double js = (model(f, p[i].k, f->sigma + hs, f->kappa) -
		    model(f, p[i].k, f->sigma - hs, f->kappa)) / (2 * hs);
		double jc = np > 1 ? (model(f, p[i].k, f->sigma, f->kappa + hc)
		    - model(f, p[i].k, f->sigma, f->kappa > hc ? f->kappa - hc :
		    f->kappa)) / (f->kappa > hc ? 2 * hc : hc) : 0;

		a += w * js * js;
		b += w * js * jc;
		d += w * jc * jc;
	}
	memset(f->cov, 0, sizeof f->cov);
	if (np == 1) {
		f->cov[0][0] = a > 0 ? 1 / a : INFINITY;
	} else {
		det = a * d - b * b;
		if (det > 0) {
			f->cov[0][0] = d / det;
			f->cov[0][1] = f->cov[1][0] = -b / det;
			f->cov[1][1] = a / det;
		} else {
			f->cov[0][0] = f->cov[1][1] = INFINITY;
		}
	}
	f->sigma_se = sqrt(f->cov[0][0]);
	f->kappa_se = np > 1 ? sqrt(f->cov[1][1]) : 0;
}

int
ar_curve_fit(const struct ar_point *p, size_t n, struct ar_fit *f)
{
	size_t i, i0 = 0;

	memset(f, 0, sizeof *f);
	if (n < 2) {
		snprintf(f->why, sizeof f->why, "%zu point%s: a fit needs two "
		    "scales or more", n, n == 1 ? "" : "s");
		return AR_FIT_NONE;
	}
	for (i = 0; i < n; i++)
		if (p[i].k < p[i0].k)
			i0 = i;
	f->k0 = p[i0].k;
	f->y0 = p[i0].y;
	f->y0_sd = sd_of(&p[i0]);
	linear_start(f, p, n, 1);
	refine(f, p, n, 1);
	f->kappa = 0;
	f->model = AR_FIT_AMDAHL;
	covariance(f, p, n, 1);
	/* With four points or more, the USL's test says why. */
	if (n < 4) {
		snprintf(f->why, sizeof f->why, "Amdahl, anchored at k=%g: "
		    "%zu point%s", f->k0, n, n == 1 ? "" : "s");
	} else {
		struct ar_fit u = *f;

		linear_start(&u, p, n, 2);
		if (u.kappa > 0) {
			refine(&u, p, n, 2);
			covariance(&u, p, n, 2);
		}
		/* USL only where kappa stands out of its noise. */
		if (u.kappa > 0 && u.kappa > 2 * u.kappa_se &&
		    sse(&u, p, n, u.sigma, u.kappa) < sse(f, p, n, f->sigma, 0)) {
			*f = u;
			f->model = AR_FIT_USL;
			snprintf(f->why, sizeof f->why, "USL, anchored at k=%g: "
			    "%zu points, kappa %.3g +- %.2g", f->k0, n, f->kappa,
			    f->kappa_se);
		} else {
			snprintf(f->why, sizeof f->why, "Amdahl, anchored at "
			    "k=%g: %zu points; USL's kappa is not above its "
			    "noise", f->k0, n);
		}
	}
	return f->model;
}

double
ar_curve_eval(const struct ar_fit *f, double k)
{
	return model(f, k, f->sigma, f->kappa);
}

void
ar_curve_predict(const struct ar_fit *f, double k, double *y, double *lo,
    double *hi)
{
	double hs = 1e-6, hc = 1e-7, js, jc, var;

	*y = ar_curve_eval(f, k);
	js = (model(f, k, f->sigma + hs, f->kappa) - model(f, k, f->sigma -
	    hs, f->kappa)) / (2 * hs);
	jc = f->model == AR_FIT_USL ? (model(f, k, f->sigma, f->kappa + hc) -
	    model(f, k, f->sigma, f->kappa - hc)) / (2 * hc) : 0;
	/* The parameters' uncertainty and the anchor's, to first order. */
	var = js * js * f->cov[0][0] + 2 * js * jc * f->cov[0][1] +
	    jc * jc * f->cov[1][1];
	var += (*y / f->y0) * (*y / f->y0) * f->y0_sd * f->y0_sd;
	*lo = *y - 1.959964 * sqrt(var);
	*hi = *y + 1.959964 * sqrt(var);
}

int
ar_curve_best(const struct ar_point *p, size_t n, int higher, long *knee,
    long *best_k, double *best)
{
	size_t i, b = n;

	for (i = 0; i < n; i++) {
		if (!p[i].feasible || !isfinite(p[i].y))
			continue;
		if (b == n || (higher ? p[i].y > p[b].y : p[i].y < p[b].y) ||
		    (p[i].y == p[b].y && p[i].k < p[b].k))
			b = i;
	}
	if (b == n)
		return -1;
	*best_k = (long)p[b].k;
	*best = p[b].y;
	*knee = *best_k;
	/* The knee: the smallest feasible k whose interval reaches the
	 * best's, so more GPUs than that buy nothing the noise can show. */
	for (i = 0; i < n; i++) {
		if (!p[i].feasible || !isfinite(p[i].y) || p[i].k >= *knee)
			continue;
		if (higher ? p[i].hi >= p[b].lo : p[i].lo <= p[b].hi)
			*knee = (long)p[i].k;
	}
	return 0;
}
