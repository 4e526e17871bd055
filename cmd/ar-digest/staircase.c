/* staircase.c: progress as a staircase, drawn through lib/svg: one point
 * per result (or run of an imported log) in order across, its value up,
 * the running best of keeps as a step line. */
#include <math.h>
#include <stdio.h>

#include "svg.h"
#include "digest.h"

/* At most this many grey points are drawn; keeps that raise the best
 * and failures in a thinned stride are always drawn. */
#define SVG_MAX 4000

#define GREEN "#2ca02c"
#define GREY "#999"
#define RED "#d62728"

/* Both pictures: 900 by 420, the legend in 170 pixels at the right. */
static void
begin(struct ar_svg *p, FILE *f, int decl, size_t n, double ymin,
    double ymax)
{
	ar_svg_begin(p, f, decl, 900, 420, 70, 170, 40, 60);
	p->ymin = ymin;
	p->ymax = ymax;
	ar_svg_xslots(p, n);
}

/* The right end of the step line: the edge of the last slot. */
static double
right_end(const struct ar_svg *p, size_t n)
{
	return ar_svg_x(p, (double)(n - 1)) + 0.5 * (p->w - p->l - p->r) /
	    (double)n;
}

/* The ratios of the results in id order; keeps green, other verdicts
 * grey, failures red on a row of their own at the bottom. */
void
staircase(const struct results *D, FILE *f, int decl)
{
	struct ar_svg p;
	double ymin = INFINITY, ymax = -INFINITY, best = -INFINITY, pad;
	size_t i, n = D->npt ? D->npt : 1, stride = D->npt > SVG_MAX ?
	    (D->npt + SVG_MAX - 1) / SVG_MAX : 1;
	int started = 0;
	char txt[64];

	for (i = 0; i < D->npt; i++) {
		double r = D->pt[i].r;

		/* Failures sit on their own row: their ratios, if any, must
		 * not stretch the scale. */
		if (isnan(r) || D->pt[i].cls == 2)
			continue;
		if (r < ymin)
			ymin = r;
		if (r > ymax)
			ymax = r;
	}
	if (ymin > 1)
		ymin = 1;
	if (ymax < 1)
		ymax = 1;
	pad = (ymax - ymin) * 0.08 + 0.02;
	ymax += pad;
	ymin -= 2 * pad;     /* room for the failures' row */
	begin(&p, f, decl, n, ymin, ymax);
	ar_svg_title(&p, "Progress: ratio to the baseline by result, running "
	    "best of keeps");
	ar_svg_axes(&p);
	ar_svg_ygrid(&p, ymin + pad, ymax - ymin - pad, 4, 3);
	ar_svg_hline(&p, 1.0, "baseline");
	snprintf(txt, sizeof txt, "results in id order (%zu)", D->npt);
	ar_svg_xlabel(&p, txt);
	ar_svg_ylabel(&p, "ratio");
	/* Points: grey first, so keeps and failures stay on top. */
	for (i = 0; i < D->npt; i += stride)
		if (D->pt[i].cls == 1 && !isnan(D->pt[i].r))
			ar_svg_dot(&p, ar_svg_x(&p, (double)i), ar_svg_y(&p,
			    D->pt[i].r), 2.5, GREY);
	for (i = 0; i < D->npt; i++) {
		double x = ar_svg_x(&p, (double)i);

		if (D->pt[i].cls == 2 && i % stride == 0)
			ar_svg_cross(&p, x, ar_svg_y(&p, ymin + pad * 0.7), 6,
			    RED, 1.5, NULL);
		if (D->pt[i].cls == 0 && (i % stride == 0 || D->pt[i].r > best))
			ar_svg_dot(&p, x, ar_svg_y(&p, D->pt[i].r), 3.5, GREEN);
		if (D->pt[i].cls == 0 && D->pt[i].r > best)
			best = D->pt[i].r;
	}
	/* The running best of keeps as a step line. */
	best = -INFINITY;
	for (i = 0; i < D->npt; i++) {
		double x = ar_svg_x(&p, (double)i);

		if (D->pt[i].cls != 0 || !(D->pt[i].r > best))
			continue;
		if (!started) {
			ar_svg_poly(&p, AR_SVG_LINE, GREEN);
			started = 1;
		} else {
			ar_svg_point(&p, x, ar_svg_y(&p, best));
		}
		best = D->pt[i].r;
		ar_svg_point(&p, x, ar_svg_y(&p, best));
	}
	if (started)
		ar_svg_poly_end_at(&p, right_end(&p, n), ar_svg_y(&p, best));
	ar_svg_key(&p, AR_SVG_KEY_DOT, 10, 3.5, GREEN, "keep", NULL);
	ar_svg_key(&p, AR_SVG_KEY_DOT, 30, 2.5, GREY, "discard, equivalent,",
	    "inconclusive");
	ar_svg_key(&p, AR_SVG_KEY_CROSS, 63, 6, RED, "crash, timeout,",
	    "invalid (at the bottom)");
	ar_svg_key(&p, AR_SVG_KEY_LINE, 100, 0, GREEN, "best kept so far",
	    NULL);
	if (stride > 1) {
		snprintf(txt, sizeof txt, "1 in %zu drawn", stride);
		ar_svg_note(&p, p.w - p.r + 20, p.t + 124, txt);
	}
	ar_svg_end(&p);
}

/* The values of an imported log in log order; keeps green, discards
 * and others grey, crashes red on the bottom row. */
void
staircase_log(const struct logsum *G, FILE *f, int decl)
{
	const struct ar_import *imp = &G->imp;
	struct ar_svg p;
	double ymin = INFINITY, ymax = -INFINITY, best = NAN, pad;
	size_t i, n = imp->nrow ? imp->nrow : 1;
	int started = 0;
	char txt[TXT + 64];

	for (i = 0; i < imp->nrow; i++) {
		double v = imp->row[i].value;

		if (!isfinite(v))
			continue;
		if (v < ymin)
			ymin = v;
		if (v > ymax)
			ymax = v;
	}
	if (!isfinite(ymin))
		ymin = 0, ymax = 1;
	pad = (ymax - ymin) * 0.08 + 1e-9 + fabs(ymax) * 1e-6;
	ymax += pad;
	ymin -= 2 * pad;
	begin(&p, f, decl, n, ymin, ymax);
	snprintf(txt, sizeof txt, "Progress: %s (%s is better) by run, running "
	    "best of keeps", G->metric, G->lower ? "lower" : "higher");
	ar_svg_title(&p, txt);
	ar_svg_axes(&p);
	ar_svg_ygrid(&p, ymin + pad, ymax - ymin - pad, 4, 4);
	snprintf(txt, sizeof txt, "runs in log order (%zu)", imp->nrow);
	ar_svg_xlabel(&p, txt);
	for (i = 0; i < imp->nrow; i++) {
		int cls = log_cls(imp->row[i].status);
		double v = imp->row[i].value;

		if (cls != L_KEEP && cls != L_CRASH && isfinite(v))
			ar_svg_dot(&p, ar_svg_x(&p, (double)i), ar_svg_y(&p, v),
			    2.5, GREY);
	}
	for (i = 0; i < imp->nrow; i++) {
		int cls = log_cls(imp->row[i].status);
		double v = imp->row[i].value, x = ar_svg_x(&p, (double)i);

		if (cls == L_CRASH || !isfinite(v))
			ar_svg_cross(&p, x, ar_svg_y(&p, ymin + pad * 0.7), 6,
			    RED, 1.5, NULL);
		else if (cls == L_KEEP)
			ar_svg_dot(&p, x, ar_svg_y(&p, v), 3.5, GREEN);
	}
	for (i = 0; i < imp->nrow; i++) {
		double v = imp->row[i].value, x = ar_svg_x(&p, (double)i);

		if (log_cls(imp->row[i].status) != L_KEEP || !isfinite(v) ||
		    !(isnan(best) || (G->lower ? v < best : v > best)))
			continue;
		if (!started) {
			ar_svg_poly(&p, AR_SVG_LINE, GREEN);
			started = 1;
		} else {
			ar_svg_point(&p, x, ar_svg_y(&p, best));
		}
		best = v;
		ar_svg_point(&p, x, ar_svg_y(&p, best));
	}
	if (started)
		ar_svg_poly_end_at(&p, right_end(&p, n), ar_svg_y(&p, best));
	ar_svg_key(&p, AR_SVG_KEY_DOT, 10, 3.5, GREEN, "keep", NULL);
	ar_svg_key(&p, AR_SVG_KEY_DOT, 30, 2.5, GREY, "discard, other", NULL);
	ar_svg_key(&p, AR_SVG_KEY_CROSS, 47, 6, RED, "crash (at the bottom)",
	    NULL);
	ar_svg_key(&p, AR_SVG_KEY_LINE, 70, 0, GREEN, "best kept so far",
	    NULL);
	ar_svg_end(&p);
}
