/* output.c: the sections as Markdown within a budget, as one JSON
 * object, or as an HTML page with the staircase; output files replaced
 * whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "io.h"
#include "json.h"
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

void
html(const struct digest *dg, const char *path)
{
	char *tmp;
	FILE *f = out_open(path, &tmp);
	size_t i, j, k;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
	    "\"utf-8\"/>\n<title>Campaign digest</title>\n<style>\nbody { "
	    "font-family: sans-serif; margin: 2em; max-width: 70em; }\n"
	    "table { border-collapse: collapse; margin-bottom: 1em; }\n"
	    "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; "
	    "text-align: left; }\nth { background: #f3f3f3; }\n"
	    ".more { color: #666; }\n</style>\n</head>\n<body>\n"
	    "<h1>Campaign digest</h1>\n<h2>Progress</h2>\n", f);
	if (dg->G.from)
		staircase_log(&dg->G, f, 0);
	else
		staircase(&dg->D, f, 0);
	for (i = 0; i < dg->nsect; i++) {
		const struct sect *s = &dg->S[i];

		fputs("<h2>", f);
		ar_xml_put(f, s->title);
		fputs("</h2>\n", f);
		if (s->note) {
			fputs("<p>", f);
			ar_xml_put(f, s->note);
			fputs("</p>\n", f);
		}
		if (!s->nrow && !s->more) {
			fputs("<p class=\"more\">(none)</p>\n", f);
			continue;
		}
		fputs("<table>\n<tr>", f);
		for (j = 0; j < s->ncol; j++) {
			fputs("<th>", f);
			ar_xml_put(f, s->kv ? (j ? "value" : "item") : s->col[j]);
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
	fputs("</body>\n</html>\n", f);
	out_close(f, path, tmp);
}
