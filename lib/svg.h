/* svg.h: the drawing ar-curve --svg and ar-digest --svg and --html share:
 * one plot in a picture, its axes, ticks at 1-2-5 steps and grid lines,
 * lines and bands, markers, labels and a legend right of the plot, all
 * text escaped and kept XML; and the scale-curve picture whole, so that
 * both programs draw it one way. Every call writes whole elements and
 * ends its line. Points of the data are written to 0.1 pixel, the fixed
 * parts of the layout as %g; the same calls always write the same
 * bytes. */
#ifndef AR_SVG_H
#define AR_SVG_H

#include <stddef.h>
#include <stdio.h>

struct ar_svg {
	FILE *f;
	double w, h;         /* the picture */
	double l, r, t, b;   /* margins around the plot: the legend is in r */
	double ymin, ymax;   /* the y scale: linear */
	int xlog;            /* x: log2 of a value, else the slot of an index */
	double xn;           /* the slots; or log2 of the largest value */
	double xpad;         /* log2 x: pixels kept free at either end */
};

/* Starts a picture w by h with the plot inside the margins l, r, t, b,
 * on white; decl writes the XML declaration first (a file of its own,
 * not a picture inside HTML). The scales are the caller's to set. */
void ar_svg_begin(struct ar_svg *p, FILE *f, int decl, double w, double h,
	double l, double r, double t, double b);
void ar_svg_end(struct ar_svg *p);

/* x scales: n slots of equal width, the index i in the middle of the
 * (i+1)th; or log2 of values from 1 to max (at least 2). */
void ar_svg_xslots(struct ar_svg *p, size_t n);
void ar_svg_xlog2(struct ar_svg *p, double max);
/* The pixel of a value on each axis. */
double ar_svg_x(const struct ar_svg *p, double v);
double ar_svg_y(const struct ar_svg *p, double v);

/* The title above the plot. */
void ar_svg_title(struct ar_svg *p, const char *text);
/* The two axes, left and bottom. */
void ar_svg_axes(struct ar_svg *p);
/* A tick under the x axis at value v, labelled with it. */
void ar_svg_xtick(struct ar_svg *p, double v);
/* The names of the axes: under the x axis; turned, left of the y axis. */
void ar_svg_xlabel(struct ar_svg *p, const char *text);
void ar_svg_ylabel(struct ar_svg *p, const char *text);
/* A dashed line across the plot at y value v, labelled at its right end. */
void ar_svg_hline(struct ar_svg *p, double v, const char *label);

/* Markers at pixel (x, y): a filled dot of radius r; a cross size wide,
 * with a label at its lower right if one is given. */
void ar_svg_dot(struct ar_svg *p, double x, double y, double r,
	const char *fill);
void ar_svg_cross(struct ar_svg *p, double x, double y, double size,
	const char *colour, double width, const char *label);

/* A line (polyline, 2 pixels wide) or a band (polygon, filled at 15%)
 * through points given one by one; ar_svg_poly_end closes it after the
 * last point, ar_svg_poly_end_at after one more point at (x, y). */
enum { AR_SVG_LINE, AR_SVG_BAND };
void ar_svg_poly(struct ar_svg *p, int kind, const char *colour);
void ar_svg_point(struct ar_svg *p, double x, double y);
void ar_svg_poly_end(struct ar_svg *p);
void ar_svg_poly_end_at(struct ar_svg *p, double x, double y);

/* Legend entries right of the plot, at y pixels below its top: a marker
 * (AR_SVG_KEY_DOT of radius size, AR_SVG_KEY_CROSS, AR_SVG_KEY_LINE, or
 * AR_SVG_KEY_SWATCH, a bar) and one or two lines of text (text2 may be
 * NULL). */
enum { AR_SVG_KEY_DOT, AR_SVG_KEY_CROSS, AR_SVG_KEY_LINE,
	AR_SVG_KEY_SWATCH };
void ar_svg_key(struct ar_svg *p, int kind, double y, double size,
	const char *colour, const char *text, const char *text2);
/* A line of text at pixel (x, y), for notes in the legend. */
void ar_svg_note(struct ar_svg *p, double x, double y, const char *text);

/* Ticks a reader can add up: n + 1 values i0 * step .. (i0 + n) * step,
 * the step 1, 2 or 5 times a power of ten, the first at or below lo and
 * the last at or above hi, about want steps apart. A single value or an
 * empty range gets a span around it. Labels have as many decimals as
 * the step needs (0, 0.5, 1.0, 1.5), or 3 significant digits and an
 * exponent beyond 1e6 and below 1e-4. */
struct ar_svg_ticks {
	double step;
	long i0, n;
	int dec;             /* decimals; -1: %g with sig digits */
	int sig;
};
void ar_svg_nice(struct ar_svg_ticks *t, double lo, double hi, int want);
double ar_svg_tick(const struct ar_svg_ticks *t, long i);
void ar_svg_tickfmt(char *b, size_t n, const struct ar_svg_ticks *t,
	double v);
/* The y scale from the first tick to the last, below by extra steps
 * more (room for a row of failures), and a labelled grid line at each
 * tick. */
void ar_svg_yticks(struct ar_svg *p, const struct ar_svg_ticks *t,
	double extra);
/* A tick under the x axis at pixel x, labelled with text. */
void ar_svg_xtick_at(struct ar_svg *p, double x, const char *text);
/* A dot drawn faintly: the points that lost. */
void ar_svg_dot_faint(struct ar_svg *p, double x, double y, double r,
	const char *fill);
/* Text from the data, made fit for a picture: at most max characters
 * (an ellipsis ends what was cut), control characters as spaces, bytes
 * that are not UTF-8 as '?'; dst holds n bytes. */
void ar_svg_clip(char *dst, size_t n, const char *s, size_t max);
/* A label of the data at pixel (x, y), turned by angle degrees
 * (clockwise), starting there, or ending there when end is set; tip,
 * if given, is the whole text, shown on hover. */
void ar_svg_label(struct ar_svg *p, double x, double y, double angle,
	int end, const char *colour, const char *text, const char *tip);

/* Scale curves, the picture ar-curve --svg and ar-digest --html share:
 * per curve, in one of eight colours, its 95% band, its points joined
 * by a line, infeasible points as crosses, the knee ringed; k on a log2
 * axis; the baseline dashed at 1 when the score is the ratio; a legend
 * of names, each with its workload, knee and best k. */
struct ar_svg_cpt {
	double k, y, lo, hi;
	int feasible;
};
struct ar_svg_curve {
	const char *name, *workload;
	const struct ar_svg_cpt *p;
	size_t np;
	long knee, best_k;   /* 0 when none */
};
/* metric: NULL for the ratio to the baseline; lower: lower is better
 * (1), higher (0) or not known (-1);
 * more: curves not drawn, said in the legend. */
void ar_svg_curves(FILE *f, int decl, const char *metric, int lower,
	const struct ar_svg_curve *c, size_t n, size_t more);

#endif
