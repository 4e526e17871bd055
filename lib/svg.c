/* svg.c: one plot as SVG; svg.h says what each call draws. */
#include <math.h>
#include <stdio.h>

#include "io.h"
#include "svg.h"

void
ar_svg_begin(struct ar_svg *p, FILE *f, int decl, double w, double h,
    double l, double r, double t, double b)
{
	p->f = f;
	p->w = w;
	p->h = h;
	p->l = l;
	p->r = r;
	p->t = t;
	p->b = b;
	p->ymin = 0;
	p->ymax = 1;
	p->xlog = 0;
	p->xn = 1;
	if (decl)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
	    "height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
	    "fill=\"white\"/>\n", w, h, w, h);
}

void
ar_svg_end(struct ar_svg *p)
{
	fputs("</svg>\n", p->f);
}

void
ar_svg_xslots(struct ar_svg *p, size_t n)
{
	p->xlog = 0;
	p->xn = (double)n;
}

void
ar_svg_xlog2(struct ar_svg *p, double max)
{
	p->xlog = 1;
	p->xn = log2(max > 1 ? max : 2);
}

double
ar_svg_x(const struct ar_svg *p, double v)
{
	if (p->xlog)
		return p->l + (p->w - p->l - p->r) * log2(v) / p->xn;
	return p->l + (p->w - p->l - p->r) * (v + 0.5) / p->xn;
}

double
ar_svg_y(const struct ar_svg *p, double v)
{
	return p->t + (p->h - p->t - p->b) * (1 - (v - p->ymin) /
	    (p->ymax - p->ymin));
}

/* <text ATTRS>TEXT</text>, the text escaped. */
static void
text(struct ar_svg *p, const char *attrs, const char *s)
{
	fprintf(p->f, "<text %s>", attrs);
	ar_xml_put(p->f, s);
	fputs("</text>", p->f);
}

void
ar_svg_title(struct ar_svg *p, const char *s)
{
	fprintf(p->f, "<text x=\"%g\" y=\"22\" font-size=\"15\">", p->l);
	ar_xml_put(p->f, s);
	fputs("</text>\n", p->f);
}

void
ar_svg_axes(struct ar_svg *p)
{
	double w = p->w, h = p->h, l = p->l, r = p->r, t = p->t, b = p->b;

	fprintf(p->f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"black\"/>\n<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"black\"/>\n", l, h - b, w - r, h - b, l, t, l, h - b);
}

void
ar_svg_ygrid(struct ar_svg *p, double lo, double span, int n, int digits)
{
	int i;

	for (i = 0; i <= n; i++) {
		double v = lo + span * (double)i / n, y = ar_svg_y(p, v);

		fprintf(p->f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" "
		    "y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%g\" y=\"%.1f\" "
		    "text-anchor=\"end\">%.*g</text>\n", p->l, y, p->w - p->r,
		    y, p->l - 6, y + 4, digits, v);
	}
}

void
ar_svg_xtick(struct ar_svg *p, double v)
{
	double x = ar_svg_x(p, v), y = p->h - p->b;

	fprintf(p->f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
	    "stroke=\"black\"/><text x=\"%.1f\" y=\"%g\" "
	    "text-anchor=\"middle\">%g</text>\n", x, y, x, y + 5, x, y + 20,
	    v);
}

void
ar_svg_xlabel(struct ar_svg *p, const char *s)
{
	fprintf(p->f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
	    (p->l + p->w - p->r) / 2, p->h - 18);
	ar_xml_put(p->f, s);
	fputs("</text>\n", p->f);
}

void
ar_svg_ylabel(struct ar_svg *p, const char *s)
{
	double y = (p->t + p->h - p->b) / 2;

	fprintf(p->f, "<text x=\"18\" y=\"%g\" transform=\"rotate(-90 18 %g)\" "
	    "text-anchor=\"middle\">", y, y);
	ar_xml_put(p->f, s);
	fputs("</text>\n", p->f);
}

void
ar_svg_hline(struct ar_svg *p, double v, const char *label)
{
	double y = ar_svg_y(p, v);

	fprintf(p->f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
	    "stroke=\"black\" stroke-dasharray=\"6 4\"/><text x=\"%g\" "
	    "y=\"%.1f\">", p->l, y, p->w - p->r, y, p->w - p->r - 60, y - 5);
	ar_xml_put(p->f, label);
	fputs("</text>\n", p->f);
}

void
ar_svg_dot(struct ar_svg *p, double x, double y, double r, const char *fill)
{
	fprintf(p->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%g\" "
	    "fill=\"%s\"/>\n", x, y, r, fill);
}

void
ar_svg_cross(struct ar_svg *p, double x, double y, double size,
    const char *colour, double width, const char *label)
{
	fprintf(p->f, "<path d=\"M%.1f %.1fl%g %gm0 -%gl-%g %g\" stroke=\"%s\" "
	    "stroke-width=\"%g\"/>", x - size / 2, y - size / 2, size, size,
	    size, size, size, colour, width);
	if (label) {
		fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", x + 8,
		    y + 16, colour);
		ar_xml_put(p->f, label);
		fputs("</text>", p->f);
	}
	fputc('\n', p->f);
}

void
ar_svg_ring(struct ar_svg *p, double x, double y, double r,
    const char *colour, const char *label)
{
	fprintf(p->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%g\" fill=\"none\" "
	    "stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" "
	    "text-anchor=\"middle\" fill=\"%s\">", x, y, r, colour, x,
	    y - (r + 5), colour);
	ar_xml_put(p->f, label);
	fputs("</text>\n", p->f);
}

void
ar_svg_poly(struct ar_svg *p, int kind, const char *colour)
{
	if (kind == AR_SVG_BAND)
		fprintf(p->f, "<polygon fill=\"%s\" fill-opacity=\"0.15\" "
		    "stroke=\"none\" points=\"", colour);
	else
		fprintf(p->f, "<polyline fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\" points=\"", colour);
}

void
ar_svg_point(struct ar_svg *p, double x, double y)
{
	fprintf(p->f, "%.1f,%.1f ", x, y);
}

void
ar_svg_poly_end(struct ar_svg *p)
{
	fputs("\"/>\n", p->f);
}

void
ar_svg_poly_end_at(struct ar_svg *p, double x, double y)
{
	fprintf(p->f, "%.1f,%.1f\"/>\n", x, y);
}

void
ar_svg_key(struct ar_svg *p, int kind, double y, double size,
    const char *colour, const char *s, const char *s2)
{
	double x = p->w - p->r, top = p->t + y, dy = 4;
	char at[64];

	switch (kind) {
	case AR_SVG_KEY_DOT:
		fprintf(p->f, "<circle cx=\"%g\" cy=\"%g\" r=\"%g\" "
		    "fill=\"%s\"/>", x + 20, top, size, colour);
		break;
	case AR_SVG_KEY_CROSS:
		fprintf(p->f, "<path d=\"M%g %gl%g %gm0 -%gl-%g %g\" "
		    "stroke=\"%s\" stroke-width=\"1.5\"/>", x + 17, top, size,
		    size, size, size, size, colour);
		dy = 7;
		break;
	case AR_SVG_KEY_LINE:
		fprintf(p->f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
		    "stroke=\"%s\" stroke-width=\"2\"/>", x + 12, top, x + 26,
		    top, colour);
		break;
	default:
		fprintf(p->f, "<rect x=\"%g\" y=\"%g\" width=\"14\" "
		    "height=\"4\" fill=\"%s\"/>", x + 16, top + 4, colour);
		snprintf(at, sizeof at, "x=\"%g\" y=\"%g\"", x + 36, top + 9);
		text(p, at, s);
		fputc('\n', p->f);
		return;
	}
	snprintf(at, sizeof at, "x=\"%g\" y=\"%g\"", x + 30, top + dy);
	text(p, at, s);
	if (s2) {
		snprintf(at, sizeof at, "x=\"%g\" y=\"%g\"", x + 30,
		    top + dy + 14);
		text(p, at, s2);
	}
	fputc('\n', p->f);
}

void
ar_svg_note(struct ar_svg *p, double x, double y, const char *s)
{
	fprintf(p->f, "<text x=\"%g\" y=\"%g\">", x, y);
	ar_xml_put(p->f, s);
	fputs("</text>\n", p->f);
}
