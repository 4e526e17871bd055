/* staircase.c: progress as a staircase, drawn through lib/svg: one point
 * per result (or run of an imported log) in order across, its value up,
 * the running best of keeps as a step line, each step labelled with what
 * was kept (karpathy/autoresearch's progress.png is the model). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "svg.h"
#include "digest.h"

/* At most this many faint points are drawn; keeps that raise the best
 * and failures in a thinned stride are always drawn. */
#define SVG_MAX 4000
/* Labels of kept steps: at most this many characters, this many drawn,
 * each checked against this many drawn before it. */
#define LABEL_CHARS 28
#define LABEL_MAX 80
#define LABEL_NEAR 8

#define GREEN "#2ca02c"
#define DARK "#1b5e20"
#define GREY "#888"
#define RED "#d62728"

/* One point as both pictures draw it. */
struct spt {
	double v;            /* NaN when none */
	int cls;             /* 0 keep, 1 other verdict, 2 failure */
	const char *desc;    /* a keep's description; NULL when none */
};

/* A drawn label as a segment: from (x, y) along (dx, dy), len long. */
struct seg {
	double x, y, dx, dy, len;
};

/* The distance from (px, py) to segment s. */
static double
seg_dist(const struct seg *s, double px, double py)
{
	double t = (px - s->x) * s->dx + (py - s->y) * s->dy;

	t = t < 0 ? 0 : t > s->len ? s->len : t;
	return hypot(px - s->x - t * s->dx, py - s->y - t * s->dy);
}

/* Whether two labels come closer than a line of text: sampled along
 * the new one, which is enough at 10-pixel text. */
static int
seg_near(const struct seg *a, const struct seg *b)
{
	int i;

	for (i = 0; i <= 8; i++) {
		double t = b->len * i / 8;

		if (seg_dist(a, b->x + t * b->dx, b->y + t * b->dy) < 11)
			return 1;
	}
	return 0;
}

/* Both pictures: 900 by 440, the legend in 170 pixels at the right; y
 * ticks over the values with room above for the labels, and a row below
 * for the failures; x ticks at result numbers. */
static void
draw(FILE *f, int decl, const struct spt *pt, size_t npt, int lower,
    int baseline, const char *title, const char *ylabel,
    const char *xlabel, const char *other, const char *other2,
    const char *fail)
{
	struct ar_svg p;
	struct ar_svg_ticks t, xt;
	struct seg drawn[LABEL_NEAR];
	double ymin = INFINITY, ymax = -INFINITY, best = NAN, span, frow;
	size_t i, n = npt ? npt : 1, ndrawn = 0, nlab = 0, stride =
	    npt > SVG_MAX ? (npt + SVG_MAX - 1) / SVG_MAX : 1;
	long j;
	int started = 0;
	char txt[64], lab[LABEL_CHARS * 4 + 8], tip[1024];

	for (i = 0; i < npt; i++) {
		/* Failures sit on their own row: their values, if any, must
		 * not stretch the scale. */
		if (!isfinite(pt[i].v) || pt[i].cls == 2)
			continue;
		ymin = fmin(ymin, pt[i].v);
		ymax = fmax(ymax, pt[i].v);
	}
	if (baseline) {
		ymin = fmin(ymin, 1);
		ymax = fmax(ymax, 1);
	}
	if (!isfinite(ymin))
		ymin = 0, ymax = 1;
	/* Room above for the labels of the kept steps; one value alone
	 * gets the span ar_svg_nice gives it. */
	span = ymax - ymin;
	ar_svg_nice(&t, ymin >= 0 && ymin - span * 0.04 < 0 ? 0 :
	    ymin - span * 0.04, ymax + span * 0.3, 5);
	ar_svg_begin(&p, f, decl, 900, 440, 80, 170, 40, 60);
	ar_svg_xslots(&p, n);
	ar_svg_yticks(&p, &t, 0.6);
	frow = ar_svg_tick(&t, 0) - 0.35 * t.step;
	ar_svg_title(&p, title);
	ar_svg_axes(&p);
	/* Result numbers from 1, at a step of 1, 2 or 5 times a power of
	 * ten. */
	ar_svg_nice(&xt, 0, (double)n, 8);
	if (xt.step < 1)
		xt.step = 1, xt.i0 = 0, xt.n = (long)n;
	for (j = 0; j <= xt.n; j++) {
		double v = ar_svg_tick(&xt, j);

		if (v < 1 || v > (double)n)
			continue;
		snprintf(txt, sizeof txt, "%.0f", v);
		ar_svg_xtick_at(&p, ar_svg_x(&p, v - 1), txt);
	}
	if (baseline)
		ar_svg_hline(&p, 1.0, "baseline");
	ar_svg_xlabel(&p, xlabel);
	ar_svg_ylabel(&p, ylabel);
	/* Faint points first, so keeps and failures stay on top. */
	for (i = 0; i < npt; i += stride)
		if (pt[i].cls == 1 && isfinite(pt[i].v))
			ar_svg_dot_faint(&p, ar_svg_x(&p, (double)i),
			    ar_svg_y(&p, pt[i].v), 2.5, GREY);
	for (i = 0; i < npt; i++) {
		double x = ar_svg_x(&p, (double)i), v = pt[i].v;
		int raise = pt[i].cls == 0 && isfinite(v) && (isnan(best) ||
		    (lower ? v < best : v > best));

		if ((pt[i].cls == 2 || (pt[i].cls == 0 && !isfinite(v))) &&
		    i % stride == 0)
			ar_svg_cross(&p, x, ar_svg_y(&p, frow), 6, RED, 1.5,
			    NULL);
		if (pt[i].cls == 0 && isfinite(v) && (i % stride == 0 ||
		    raise))
			ar_svg_dot(&p, x, ar_svg_y(&p, v), 3.5, GREEN);
		if (raise)
			best = v;
	}
	/* The running best of keeps as a step line. */
	best = NAN;
	for (i = 0; i < npt; i++) {
		double x = ar_svg_x(&p, (double)i), v = pt[i].v;

		if (pt[i].cls != 0 || !isfinite(v) || !(isnan(best) ||
		    (lower ? v < best : v > best)))
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
		ar_svg_poly_end_at(&p, p.w - p.r, ar_svg_y(&p, best));
	/* Each step labelled with its description, turned 30 degrees up
	 * and back from the picture's edge; a label that would touch one
	 * drawn just before is left out (the step keeps its dot). */
	best = NAN;
	for (i = 0; i < npt && nlab < LABEL_MAX; i++) {
		double v = pt[i].v, x, y;
		struct seg s;
		size_t k;
		int end, near = 0;

		if (pt[i].cls != 0 || !isfinite(v) || !(isnan(best) ||
		    (lower ? v < best : v > best)))
			continue;
		best = v;
		if (!pt[i].desc || !pt[i].desc[0])
			continue;
		x = ar_svg_x(&p, (double)i);
		y = ar_svg_y(&p, v);
		ar_svg_clip(lab, sizeof lab, pt[i].desc, LABEL_CHARS);
		s.len = 5.6 * (double)(strlen(lab) < LABEL_CHARS + 3 ?
		    strlen(lab) : LABEL_CHARS + 1);
		/* The label may run into the legend's column below the
		 * legend; it turns back only at the picture's edge. */
		end = x + 5 + s.len * 0.866 > p.w - 4 || (x + 5 + s.len *
		    0.866 > p.w - p.r && y - 6 - s.len * 0.5 < p.t + 150);
		s.x = end ? x - 5 : x + 5;
		s.y = y - 6;
		s.dx = end ? -0.866 : 0.866;
		s.dy = -0.5;
		for (k = 0; k < ndrawn && k < LABEL_NEAR; k++)
			near |= seg_near(&drawn[k], &s);
		if (near)
			continue;
		drawn[ndrawn++ % LABEL_NEAR] = s;
		nlab++;
		ar_svg_clip(tip, sizeof tip, pt[i].desc, 200);
		ar_svg_label(&p, s.x, s.y, end ? 30 : -30, end, DARK, lab, tip);
	}
	ar_svg_key(&p, AR_SVG_KEY_DOT, 10, 3.5, GREEN, "keep", NULL);
	ar_svg_key(&p, AR_SVG_KEY_DOT, 30, 2.5, GREY, other, other2);
	ar_svg_key(&p, AR_SVG_KEY_CROSS, 63, 6, RED, fail,
	    "(at the bottom)");
	ar_svg_key(&p, AR_SVG_KEY_LINE, 100, 0, GREEN, "best kept so far",
	    NULL);
	if (stride > 1) {
		snprintf(txt, sizeof txt, "1 in %zu faint drawn", stride);
		ar_svg_note(&p, p.w - p.r + 20, p.t + 124, txt);
	}
	ar_svg_end(&p);
}

/* The ratios of the results in id order. */
void
staircase(const struct results *D, FILE *f, int decl)
{
	struct spt *pt = ar_xcalloc(D->npt + 1, sizeof *pt);
	size_t i, keeps = 0;
	char xl[96];

	for (i = 0; i < D->npt; i++) {
		const char *id = D->pt[i].idp;

		pt[i].v = D->pt[i].r;
		pt[i].cls = D->pt[i].cls;
		pt[i].desc = id + strlen(id) + 1;
		keeps += pt[i].cls == 0;
	}
	snprintf(xl, sizeof xl, "result, in id order (%zu result%s, %zu "
	    "kept)", D->npt, D->npt == 1 ? "" : "s", keeps);
	draw(f, decl, pt, D->npt, 0, 1, "Progress: ratio to the baseline by "
	    "result, running best of keeps", "ratio to baseline (higher is "
	    "better)", xl, "discard, equivalent,",
	    "inconclusive (faint)", "crash, timeout, invalid");
	free(pt);
}

/* The values of an imported log in log order. */
void
staircase_log(const struct logsum *G, FILE *f, int decl)
{
	const struct ar_import *imp = &G->imp;
	struct spt *pt = ar_xcalloc(imp->nrow + 1, sizeof *pt);
	size_t i, kept = 0;
	char title[TXT + 64], yl[TXT + 32], xl[96];

	for (i = 0; i < imp->nrow; i++) {
		const struct ar_import_row *r = &imp->row[i];
		int cls = log_cls(r->status);

		/* The keeps drawn: of a log of several sessions, the last. */
		kept += cls == L_KEEP;

		pt[i].v = r->value;
		pt[i].cls = cls == L_KEEP ? 0 : cls == L_CRASH ||
		    !isfinite(r->value) ? 2 : 1;
		pt[i].desc = r->description && r->description[0] ?
		    r->description : r->commit;
	}
	snprintf(title, sizeof title, "Progress: %s by run, running best of "
	    "keeps", G->metric);
	snprintf(yl, sizeof yl, "%s (%s is better)", G->metric, G->lower ?
	    "lower" : "higher");
	snprintf(xl, sizeof xl, "run, in log order (%zu run%s, %zu kept)",
	    imp->nrow, imp->nrow == 1 ? "" : "s", kept);
	draw(f, decl, pt, imp->nrow, G->lower, 0, title, yl, xl,
	    "discard, other", "(faint)", "crash");
	free(pt);
}
