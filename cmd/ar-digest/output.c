/* output.c: the sections as Markdown within a budget, as one JSON
 * object, or as an HTML page with the staircase and the scale curves
 * drawn; output files replaced whole. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "io.h"
#include "json.h"
#include "svg.h"
#include "digest.h"

/* ---- Markdown ---- */

static void
md_cell(struct ar_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			ar_buf_addc(b, '\\');
		ar_buf_addc(b, *s);
	}
}

void
md(const struct digest *dg, size_t budget)
{
	struct ar_buf out = {0}, line = {0}, head = {0};
	size_t i, j, k;

	ar_buf_adds(&out, "# Campaign digest\n");
	for (i = 0; i < dg->nsect; i++) {
		const struct sect *s = &dg->S[i];
		size_t left;

		/* Headings and cut lines are always written: the reader
		 * sees what was left out. */
		ar_buf_printf(&out, "\n## %s\n\n", s->title);
		if (s->note)
			ar_buf_printf(&out, "%s\n\n", s->note);
		if (!s->nrow && !s->more) {
			ar_buf_adds(&out, "(none)\n");
			continue;
		}
		/* The table's head goes out with its first row, or not at
		 * all when no row fits. */
		ar_buf_clear(&head);
		if (s->kv) {
			ar_buf_adds(&head, "| item | value |\n|---|---|\n");
		} else {
			for (j = 0; j < s->ncol; j++)
				ar_buf_printf(&head, "| %s ", s->col[j]);
			ar_buf_adds(&head, "|\n");
			for (j = 0; j < s->ncol; j++)
				ar_buf_adds(&head, "|---");
			ar_buf_adds(&head, "|\n");
		}
		for (k = 0; k < s->nrow; k++) {
			ar_buf_clear(&line);
			for (j = 0; j < s->ncol; j++) {
				ar_buf_adds(&line, "| ");
				md_cell(&line, s->cell[k * s->ncol + j]);
				ar_buf_addc(&line, ' ');
			}
			ar_buf_adds(&line, "|\n");
			/* 24 bytes stay free for the cut line. */
			if (out.len + line.len + (k ? 0 : head.len) + 24 > budget)
				break;
			if (!k)
				ar_buf_add(&out, head.p, head.len);
			ar_buf_add(&out, line.p, line.len);
		}
		left = s->nrow - k + s->more;
		if (left)
			ar_buf_printf(&out, "%s(%zu more left out)\n", k ? "\n" :
			    "", left);
	}
	fwrite(out.p, 1, out.len, stdout);
	ar_buf_free(&out);
	ar_buf_free(&line);
	ar_buf_free(&head);
}

/* ---- JSON ---- */

static json_t *
cell_json(const char *v, char type)
{
	double d;
	long long l;

	if (type == 'i' && ar_parse_long(v, &l) == 0)
		return json_integer(l);
	if (type == 'n' && ar_parse_double(v, &d) == 0)
		return json_real(d);
	if (type != 's' && !v[0])
		return json_null();
	return json_string(v);
}

void
json_out(const struct digest *dg)
{
	json_t *o = json_object(), *more = json_object();
	size_t i, j, k;
	char *s;

	for (i = 0; i < dg->nsect; i++) {
		const struct sect *sc = &dg->S[i];
		json_t *v;

		if (sc->kv) {
			v = json_object();
			for (k = 0; k < sc->nrow; k++) {
				const char *c = sc->cell[k * 2 + 1];
				/* kv sections type each row, not each column. */
				char t = sc->rowtype && k < strlen(sc->rowtype) ?
				    sc->rowtype[k] : 's';

				json_object_set_new(v, sc->cell[k * 2],
				    cell_json(c, t));
			}
		} else {
			v = json_array();
			for (k = 0; k < sc->nrow; k++) {
				json_t *r = json_object();

				for (j = 0; j < sc->ncol; j++)
					json_object_set_new(r, sc->col[j],
					    cell_json(sc->cell[k * sc->ncol + j],
					    sc->type[j]));
				json_array_append_new(v, r);
			}
			json_object_set_new(more, sc->key,
			    json_integer((json_int_t)sc->more));
		}
		json_object_set_new(o, sc->key, v);
	}
	json_object_set_new(o, "left_out", more);
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(10));
	if (!s)
		ar_die(AR_EX_SOFTWARE, "cannot write JSON");
	puts(s);
	free(s);
	json_decref(o);
}

/* Output files through ar_out_open: replaced whole, or written into
 * when they are a pipe or a device. */
FILE *
out_open(const char *path, char **tmp)
{
	FILE *f = ar_out_open(path, tmp);

	if (!f)
		ar_die(ar_errno_exit(errno), "%s:", path);
	return f;
}

void
out_close(FILE *f, const char *path, char *tmp)
{
	if (ar_out_close(f, path, tmp) < 0)
		ar_die(ar_errno_exit(errno), "%s:", path);
}

/* The name of the method with this hash on this workload: the title of
 * the idea its latest result names, else that idea's id; NULL when no
 * result names one. */
static const char *
method_title(const struct digest *dg, const char *hash, const char *wl)
{
	const struct results *D = &dg->D;
	const struct item *last = NULL;
	size_t i, j, hl = strlen(hash);

	/* A method's key is its hash, a tab, its workload. */
	for (i = 0; i < D->mcap; i++) {
		const struct method *m = &D->m[i];

		if (!m->hash || strncmp(m->hash, hash, hl) ||
		    m->hash[hl] != '\t' || strcmp(m->wl, wl))
			continue;
		for (j = 0; j < m->nkp; j++)
			if (m->kp[j].last.idea[0] && (!last ||
			    strcmp(m->kp[j].last.id, last->id) > 0))
				last = &m->kp[j].last;
	}
	if (!last)
		return NULL;
	return idea_title(dg, last->idea) ? idea_title(dg, last->idea) :
	    last->idea;
}

/* A curve to draw: its object, its best score, where it was read. */
struct pick {
	json_t *o;
	double best;
	size_t at;
};

/* Best score first, then as read. */
static int
cmp_pick(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	if (x->best != y->best)
		return x->best < y->best ? 1 : -1;
	return (x->at > y->at) - (x->at < y->at);
}

/* The scale curves read with -c, drawn: the 8 with the best scores
 * (as read, for a metric whose direction the curves do not say), each
 * named by its idea's title or id, else its label. */
static void
html_curves(const struct digest *dg, FILE *f)
{
	size_t n = json_array_size(dg->curves), shown, i, j;
	struct pick *pk = ar_xcalloc(n + 1, sizeof *pk);
	struct ar_svg_curve c[8];
	struct ar_svg_cpt *pt[8];
	const char *score = NULL;
	int ratio = 1;

	for (i = 0; i < n; i++) {
		json_t *o = json_array_get(dg->curves, i);
		const char *sc = ar_json_str(o, "score");
		json_t *b = json_object_get(o, "best_score");

		if (sc && strcmp(sc, "ratio")) {
			ratio = 0;
			score = score ? score : sc;
		}
		pk[i].o = o;
		pk[i].best = json_is_number(b) ? json_number_value(b) :
		    -INFINITY;
		pk[i].at = i;
	}
	if (ratio)
		ar_sort(pk, n, sizeof *pk, cmp_pick);
	shown = n < 8 ? n : 8;
	for (i = 0; i < shown; i++) {
		json_t *o = pk[i].o, *ps = json_object_get(o, "points"), *x;
		const char *wl = ar_json_str(o, "workload"), *t = NULL;
		const char *h = ar_json_str(o, "method");
		size_t np = json_array_size(ps), m = 0;

		pt[i] = ar_xcalloc(np + 1, sizeof *pt[i]);
		json_array_foreach(ps, j, x) {
			json_t *k = json_object_get(x, "k");
			json_t *y = json_object_get(x, "score");
			json_t *lo = json_object_get(x, "ci_lo");
			json_t *hi = json_object_get(x, "ci_hi");

			if (!json_is_number(k) || !json_is_number(y) ||
			    !(json_number_value(k) >= 1))
				continue;
			pt[i][m].k = json_number_value(k);
			pt[i][m].y = json_number_value(y);
			pt[i][m].lo = json_is_number(lo) ? json_number_value(lo) :
			    pt[i][m].y;
			pt[i][m].hi = json_is_number(hi) ? json_number_value(hi) :
			    pt[i][m].y;
			pt[i][m].feasible = json_is_true(json_object_get(x,
			    "feasible"));
			m++;
		}
		if (h && wl)
			t = method_title(dg, h, wl);
		c[i].name = t ? t : ar_json_str(o, "label");
		c[i].workload = wl;
		c[i].p = pt[i];
		c[i].np = m;
		x = json_object_get(o, "knee");
		c[i].knee = json_is_integer(x) ? (long)json_integer_value(x) : 0;
		x = json_object_get(o, "best_k");
		c[i].best_k = json_is_integer(x) ? (long)json_integer_value(x) :
		    0;
	}
	fputs("<h2>Scale curves</h2>\n", f);
	ar_svg_curves(f, 0, ratio ? NULL : score, -1, c, shown, n - shown);
	for (i = 0; i < shown; i++)
		free(pt[i]);
	free(pk);
}

/* A section of items and values: three pairs a row, a compact table;
 * the items read as words (first_started: first started). */
static void
html_kv(const struct sect *s, FILE *f)
{
	char item[TXT];
	size_t k, i;

	fputs("<table class=\"kv\">\n", f);
	for (k = 0; k < s->nrow; k++) {
		if (k % 3 == 0)
			fputs("<tr>", f);
		fputs("<th>", f);
		cpy(item, sizeof item, s->cell[k * 2]);
		for (i = 0; item[i]; i++)
			if (item[i] == '_')
				item[i] = ' ';
		ar_xml_put(f, item);
		fputs("</th><td>", f);
		ar_xml_put(f, s->cell[k * 2 + 1]);
		fputs("</td>", f);
		if (k % 3 == 2 || k + 1 == s->nrow)
			fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* A section as HTML: its heading (when head is set), its note, its
 * table. */
static void
html_sect(const struct sect *s, FILE *f, int head)
{
	size_t j, k;

	if (head) {
		fputs("<h2>", f);
		ar_xml_put(f, s->title);
		fputs("</h2>\n", f);
	}
	if (s->note) {
		fputs("<p>", f);
		ar_xml_put(f, s->note);
		fputs("</p>\n", f);
	}
	if (!s->nrow && !s->more) {
		fputs("<p class=\"more\">(none)</p>\n", f);
		return;
	}
	if (s->kv) {
		html_kv(s, f);
		return;
	}
	fputs("<table>\n<tr>", f);
	for (j = 0; j < s->ncol; j++) {
		fputs("<th>", f);
		ar_xml_put(f, s->col[j]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (k = 0; k < s->nrow; k++) {
		fputs("<tr>", f);
		for (j = 0; j < s->ncol; j++) {
			fputs("<td>", f);
			ar_xml_put(f, s->cell[k * s->ncol + j]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (s->more)
		fprintf(f, "<p class=\"more\">(%zu more left out)</p>\n",
		    s->more);
}

/* The page: progress first, then the scale curves drawn, with their
 * table under them, then every other section. */
void
html(const struct digest *dg, const char *path)
{
	char *tmp;
	FILE *f = out_open(path, &tmp);
	size_t i;
	int drawn = json_array_size(dg->curves) > 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
	    "\"utf-8\"/>\n<title>Campaign digest</title>\n<style>\nbody { "
	    "font-family: sans-serif; margin: 2em; max-width: 70em; }\n"
	    "table { border-collapse: collapse; margin-bottom: 1em; }\n"
	    "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; "
	    "text-align: left; }\nth { background: #f3f3f3; }\n"
	    ".more { color: #666; }\ntable.kv th { background: none; "
	    "color: #555; font-weight: normal; }\ntable.kv td { "
	    "font-variant-numeric: tabular-nums; }\n</style>\n</head>\n<body>\n"
	    "<h1>Campaign digest</h1>\n<h2>Progress</h2>\n", f);
	if (dg->G.from)
		staircase_log(&dg->G, f, 0);
	else
		staircase(&dg->D, f, 0);
	if (drawn) {
		html_curves(dg, f);
		for (i = 0; i < dg->nsect; i++)
			if (strcmp(dg->S[i].key, "curves") == 0)
				html_sect(&dg->S[i], f, 0);
	}
	for (i = 0; i < dg->nsect; i++)
		if (!drawn || strcmp(dg->S[i].key, "curves"))
			html_sect(&dg->S[i], f, 1);
	fputs("</body>\n</html>\n", f);
	out_close(f, path, tmp);
}
