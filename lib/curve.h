/* curve.h: scale curves (score against k) from few points. */
#ifndef AR_CURVE_H
#define AR_CURVE_H

#include <stddef.h>

enum { AR_FIT_NONE, AR_FIT_AMDAHL, AR_FIT_USL };
struct ar_point {
	double k, y, lo, hi;  /* the score and its interval at k */
	int feasible;         /* every guardrail held */
};
struct ar_fit {
	int model;
	double k0, y0, y0_sd; /* the anchor: the smallest k measured */
	double sigma, kappa, sigma_se, kappa_se, cov[2][2];
	char why[160];
};
/* Fits the points (at distinct k); returns the model, AR_FIT_NONE with
 * f->why when there are fewer than two. */
int ar_curve_fit(const struct ar_point *p, size_t n, struct ar_fit *f);
double ar_curve_eval(const struct ar_fit *f, double k);
/* The fitted score at k with a 95% interval. */
void ar_curve_predict(const struct ar_fit *f, double k, double *y,
	double *lo, double *hi);
/* The best feasible point and the knee, the smallest feasible k whose
 * interval reaches the best's; -1 when no point is feasible. */
int ar_curve_best(const struct ar_point *p, size_t n, int higher, long *knee,
	long *best_k, double *best);

#endif
