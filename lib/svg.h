/* svg.h: the drawing ar-curve --svg and ar-digest --svg and --html share:
 * one plot in a picture, its axes, ticks and grid lines, lines and
 * bands, markers and a legend right of the plot, all text escaped. Every
 * call writes whole elements and ends its line. Points of the data are
 * written to 0.1 pixel, the fixed parts of the layout as %g; the same
 * calls always write the same bytes. */
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
/* n + 1 grid lines across the plot at lo + span * i / n, each labelled
 * on the left with digits significant digits. */
void ar_svg_ygrid(struct ar_svg *p, double lo, double span, int n,
	int digits);
/* A tick under the x axis at value v, labelled with it. */
void ar_svg_xtick(struct ar_svg *p, double v);
/* The names of the axes: under the x axis; turned, left of the y axis. */
void ar_svg_xlabel(struct ar_svg *p, const char *text);
void ar_svg_ylabel(struct ar_svg *p, const char *text);
/* A dashed line across the plot at y value v, labelled at its right end. */
void ar_svg_hline(struct ar_svg *p, double v, const char *label);

/* Markers at pixel (x, y): a filled dot of radius r; a cross size wide,
 * with a label at its lower right if one is given; a ring of radius r,
 * labelled above. */
void ar_svg_dot(struct ar_svg *p, double x, double y, double r,
	const char *fill);
void ar_svg_cross(struct ar_svg *p, double x, double y, double size,
	const char *colour, double width, const char *label);
void ar_svg_ring(struct ar_svg *p, double x, double y, double r,
	const char *colour, const char *label);

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

#endif
