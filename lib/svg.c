/* svg.c: one plot as SVG; svg.h says what each call draws. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

/* The length of the UTF-8 character at s, 0 when it is not one. */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ?
	    3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Text escaped for XML, and kept XML: control characters become
 * spaces and bytes that are not UTF-8 '?', whatever the data holds. */
static void
put(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t l = utf8_len(u);

		if (l > 1) {
			fwrite(u, 1, l, f);
			u += l;
			continue;
		}
		switch (*u) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			fputc(!l ? '?' : *u < 0x20 || *u == 0x7f ? ' ' : *u, f);
		}
		u++;
	}
}

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
	p->xpad = 0;
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
		return p->l + p->xpad + (p->w - p->l - p->r - 2 * p->xpad) *
		    log2(v) / p->xn;
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
	put(p->f, s);
	fputs("</text>", p->f);
}

void
ar_svg_title(struct ar_svg *p, const char *s)
{
	fprintf(p->f, "<text x=\"%g\" y=\"22\" font-size=\"15\">", p->l);
	put(p->f, s);
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
	put(p->f, s);
	fputs("</text>\n", p->f);
}

void
ar_svg_ylabel(struct ar_svg *p, const char *s)
{
	double y = (p->t + p->h - p->b) / 2;

	fprintf(p->f, "<text x=\"18\" y=\"%g\" transform=\"rotate(-90 18 %g)\" "
	    "text-anchor=\"middle\">", y, y);
	put(p->f, s);
	fputs("</text>\n", p->f);
}

void
ar_svg_hline(struct ar_svg *p, double v, const char *label)
{
	double y = ar_svg_y(p, v);

	fprintf(p->f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
	    "stroke=\"black\" stroke-dasharray=\"6 4\"/><text x=\"%g\" "
	    "y=\"%.1f\">", p->l, y, p->w - p->r, y, p->w - p->r - 60, y - 5);
	put(p->f, label);
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
		put(p->f, label);
		fputs("</text>", p->f);
	}
	fputc('\n', p->f);
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
	put(p->f, s);
	fputs("</text>\n", p->f);
}

void
ar_svg_nice(struct ar_svg_ticks *t, double lo, double hi, int want)
{
	double span, raw, mag, f, top;

	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (lo > hi) {
		double x = lo;

		lo = hi;
		hi = x;
	}
	/* One value: a tenth of it either side (1 around zero). */
	if (!(hi - lo > fabs(hi) * 1e-9)) {
		double d = lo != 0 ? fabs(lo) * 0.1 : 1;

		lo -= d;
		hi += d;
	}
	span = hi - lo;
	raw = span / (want > 0 ? want : 5);
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	t->step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	/* A tolerance keeps 0.3 from becoming 0.30000000000000004's tick. */
	t->i0 = (long)floor(lo / t->step + 1e-9);
	t->n = (long)ceil(hi / t->step - 1e-9) - t->i0;
	if (t->n < 1)
		t->n = 1;
	top = fmax(fabs(ar_svg_tick(t, 0)), fabs(ar_svg_tick(t, t->n)));
	if (top >= 1e6 || t->step < 1e-4) {
		t->dec = -1;
		t->sig = (int)(floor(log10(top)) - floor(log10(t->step) + 1e-9))
		    + 1;
		if (t->sig < 2)
			t->sig = 2;
		if (t->sig > 12)
			t->sig = 12;
	} else {
		t->dec = t->step >= 1 ? 0 : (int)ceil(-log10(t->step) - 1e-9);
		t->sig = 0;
	}
}

double
ar_svg_tick(const struct ar_svg_ticks *t, long i)
{
	return (double)(t->i0 + i) * t->step;
}

void
ar_svg_tickfmt(char *b, size_t n, const struct ar_svg_ticks *t, double v)
{
	/* Zero is 0 whatever rounding left of it, never -0. */
	if (fabs(v) < t->step * 1e-6)
		v = 0;
	if (t->dec < 0)
		snprintf(b, n, "%.*g", v == 0 ? 1 : t->sig, v);
	else
		snprintf(b, n, "%.*f", t->dec, v);
}

void
ar_svg_yticks(struct ar_svg *p, const struct ar_svg_ticks *t, double extra)
{
	long i;
	char b[64];

	p->ymin = ar_svg_tick(t, 0) - extra * t->step;
	p->ymax = ar_svg_tick(t, t->n);
	for (i = 0; i <= t->n; i++) {
		double v = ar_svg_tick(t, i), y = ar_svg_y(p, v);

		ar_svg_tickfmt(b, sizeof b, t, v);
		fprintf(p->f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" "
		    "y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%g\" y=\"%.1f\" "
		    "text-anchor=\"end\">%s</text>\n", p->l, y, p->w - p->r,
		    y, p->l - 6, y + 4, b);
	}
}

void
ar_svg_xtick_at(struct ar_svg *p, double x, const char *s)
{
	double y = p->h - p->b;

	fprintf(p->f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
	    "stroke=\"black\"/><text x=\"%.1f\" y=\"%g\" "
	    "text-anchor=\"middle\">", x, y, x, y + 5, x, y + 20);
	put(p->f, s);
	fputs("</text>\n", p->f);
}

void
ar_svg_dot_faint(struct ar_svg *p, double x, double y, double r,
    const char *fill)
{
	fprintf(p->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%g\" fill=\"%s\" "
	    "fill-opacity=\"0.45\"/>\n", x, y, r, fill);
}

void
ar_svg_clip(char *dst, size_t n, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, chars = 0;

	if (!n)
		return;
	while (*u) {
		size_t l = utf8_len(u);

		if (chars == max || o + (l ? l : 1) + 4 > n) {
			/* Cut: an ellipsis says so. */
			if (o + 4 <= n) {
				memcpy(dst + o, "\xe2\x80\xa6", 3);
				o += 3;
			}
			break;
		}
		if (!l) {
			dst[o++] = '?';
			u++;
		} else if (l == 1) {
			dst[o++] = *u < 0x20 || *u == 0x7f ? ' ' : (char)*u;
			u++;
		} else {
			memcpy(dst + o, u, l);
			o += l;
			u += l;
		}
		chars++;
	}
	dst[o] = 0;
}

void
ar_svg_label(struct ar_svg *p, double x, double y, double angle, int end,
    const char *colour, const char *s, const char *tip)
{
	fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(%g %.1f "
	    "%.1f)\" font-size=\"10\" fill=\"%s\"%s>", x, y, angle, x, y,
	    colour, end ? " text-anchor=\"end\"" : "");
	if (tip) {
		fputs("<title>", p->f);
		put(p->f, tip);
		fputs("</title>", p->f);
	}
	put(p->f, s);
	fputs("</text>\n", p->f);
}

static const char *const curve_colour[] = { "#1f77b4", "#d62728",
	"#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };

/* Text at (x, y) in colour, starting there or ending there. */
static void
put_at(struct ar_svg *p, double x, double y, int end, const char *colour,
    const char *extra, const char *s)
{
	fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\"%s fill=\"%s\"%s>", x, y,
	    end ? " text-anchor=\"end\"" : "", colour, extra);
	put(p->f, s);
	fputs("</text>", p->f);
}

/* Whether a label of len characters at (x, y), ending there when end
 * is set, keeps clear of those drawn; if so, it is taken as drawn. */
static int
mark_free(double (*mark)[3], size_t *n, double x, double y, int end,
    size_t len)
{
	double w = 6.5 * (double)len, x0 = end ? x - w : x;
	size_t i;

	for (i = 0; i < *n; i++)
		if (x0 < mark[i][1] + 4 && mark[i][0] < x0 + w + 4 &&
		    fabs(mark[i][2] - y) < 14)
			return 0;
	if (*n < 64) {
		mark[*n][0] = x0;
		mark[*n][1] = x0 + w;
		mark[*n][2] = y;
		++*n;
	}
	return 1;
}

void
ar_svg_curves(FILE *f, int decl, const char *metric, int lower,
    const struct ar_svg_curve *c, size_t n, size_t more)
{
	struct ar_svg p;
	struct ar_svg_ticks t;
	double kmax = 1, ymin = INFINITY, ymax = -INFINITY, kt, pad, right;
	char txt[512], name[256];
	size_t i, j, nmark = 0;
	double mark[64][3];  /* labels drawn: x from, x to, y */

	for (i = 0; i < n; i++)
		for (j = 0; j < c[i].np; j++) {
			kmax = fmax(kmax, c[i].p[j].k);
			ymin = fmin(ymin, c[i].p[j].lo);
			ymax = fmax(ymax, c[i].p[j].hi);
		}
	/* The baseline's line at 1 is always in view. */
	if (!metric) {
		ymin = fmin(ymin, 1);
		ymax = fmax(ymax, 1);
	}
	/* Room above and below for the labels of the knee and crosses. */
	pad = isfinite(ymin) ? (ymax - ymin) * 0.06 : 0;
	/* Scores that cannot go below zero get no ticks below it. */
	ar_svg_nice(&t, ymin >= 0 && ymin - pad < 0 ? 0 : ymin - pad,
	    ymax + pad, 5);
	ar_svg_begin(&p, f, decl, 900, 440, 80, 330, 40, 60);
	ar_svg_xlog2(&p, kmax);
	/* Points and rings stay off the axes. */
	p.xpad = 24;
	right = p.w - p.r;
	snprintf(txt, sizeof txt, "Scale curves: %s against k, 95%% intervals",
	    metric ? metric : "ratio to the baseline");
	ar_svg_title(&p, txt);
	ar_svg_yticks(&p, &t, 0);
	ar_svg_axes(&p);
	for (kt = 1; kt <= kmax; kt *= 2)
		ar_svg_xtick(&p, kt);
	ar_svg_xlabel(&p, "k, GPUs (or CPUs) of the bundle, log scale");
	if (metric && lower < 0)
		snprintf(txt, sizeof txt, "%s", metric);
	else if (metric)
		snprintf(txt, sizeof txt, "%s (%s is better)", metric, lower ?
		    "lower" : "higher");
	else
		snprintf(txt, sizeof txt, "ratio to baseline (higher is "
		    "better)");
	ar_svg_clip(name, sizeof name, txt, 60);
	ar_svg_ylabel(&p, name);
	if (!metric)
		ar_svg_hline(&p, 1.0, "baseline");
	for (i = 0; i < n; i++) {
		const char *col = curve_colour[i % 8];
		const struct ar_svg_curve *q = &c[i];
		double top = p.t + 34 * (double)i;

		/* The band, then the line, then the points. */
		if (q->np) {
			ar_svg_poly(&p, AR_SVG_BAND, col);
			for (j = 0; j < q->np; j++)
				ar_svg_point(&p, ar_svg_x(&p, q->p[j].k),
				    ar_svg_y(&p, q->p[j].hi));
			for (j = q->np; j-- > 0;)
				ar_svg_point(&p, ar_svg_x(&p, q->p[j].k),
				    ar_svg_y(&p, q->p[j].lo));
			ar_svg_poly_end(&p);
			ar_svg_poly(&p, AR_SVG_LINE, col);
			for (j = 0; j < q->np; j++)
				ar_svg_point(&p, ar_svg_x(&p, q->p[j].k),
				    ar_svg_y(&p, q->p[j].y));
			ar_svg_poly_end(&p);
		}
		for (j = 0; j < q->np; j++) {
			double x = ar_svg_x(&p, q->p[j].k);
			double y = ar_svg_y(&p, q->p[j].y);
			/* Labels turn inward near the right edge and go
			 * below a point near the top: never over a tick. */
			int end = x > right - 60;

			double ly;

			if (q->p[j].feasible) {
				ar_svg_dot(&p, x, y, 4, col);
			} else {
				ar_svg_cross(&p, x, y, 10, col, 2.5, NULL);
				ly = y + 18;
				if (mark_free(mark, &nmark, end ? x - 8 : x + 8, ly,
				    end, 10))
					put_at(&p, end ? x - 8 : x + 8, ly, end,
					    col, "", "infeasible");
				fputc('\n', p.f);
			}
			if (q->knee && q->p[j].k == (double)q->knee) {
				fprintf(p.f, "<circle cx=\"%.1f\" cy=\"%.1f\" "
				    "r=\"9\" fill=\"none\" stroke=\"%s\" "
				    "stroke-width=\"2\"/>", x, y, col);
				ly = y - 12 < p.t + 12 ? y + 24 : y - 12;
				if (mark_free(mark, &nmark, end ? x - 12 : x + 12,
				    ly, end, 4))
					put_at(&p, end ? x - 12 : x + 12, ly, end,
					    col, "", "knee");
				fputc('\n', p.f);
			}
		}
		/* The legend: the name, then workload, knee and best. */
		fprintf(p.f, "<rect x=\"%g\" y=\"%g\" width=\"14\" height=\"4\" "
		    "fill=\"%s\"/>", right + 16, top + 4, col);
		ar_svg_clip(name, sizeof name, q->name ? q->name : "", 44);
		put_at(&p, right + 36, top + 9, 0, "black", "", name);
		ar_svg_clip(name, sizeof name, q->workload ? q->workload : "",
		    24);
		if (q->knee)
			snprintf(txt, sizeof txt, "%s: knee %ld, best %ld", name,
			    q->knee, q->best_k);
		else
			snprintf(txt, sizeof txt, "%s: no feasible point", name);
		put_at(&p, right + 36, top + 23, 0, "#555", " font-size=\"11\"",
		    txt);
		fputc('\n', p.f);
	}
	if (more) {
		snprintf(txt, sizeof txt, "and %zu more", more);
		ar_svg_note(&p, right + 16, p.t + 34 * (double)n + 9, txt);
	}
	ar_svg_end(&p);
}
