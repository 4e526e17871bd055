/* flat.c: a result flattened to dotted-path columns for TSV. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flat.h"
#include "json.h"

static void
add_num(struct ar_flat *f, const char *k, double num)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->kv = ar_xrealloc(f->kv, f->cap * sizeof *f->kv);
	}
	f->kv[f->n].k = ar_xstrdup(k);
	f->kv[f->n].v = NULL;
	f->kv[f->n].num = num;
	f->n++;
}

static void
add(struct ar_flat *f, const char *k, char *v)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->kv = ar_xrealloc(f->kv, f->cap * sizeof *f->kv);
	}
	f->kv[f->n].k = ar_xstrdup(k);
	f->kv[f->n].v = v;
	f->kv[f->n].num = 0;
	f->n++;
}

/* A scalar as text; NULL for objects and arrays. */
static char *
scalar(const json_t *j)
{
	char num[64];

	switch (json_typeof(j)) {
	case JSON_STRING:
		return ar_xstrdup(json_string_value(j));
	case JSON_INTEGER:
		return ar_xasprintf("%" JSON_INTEGER_FORMAT,
		    json_integer_value(j));
	case JSON_REAL:
		ar_fmt_double(num, sizeof num, json_real_value(j));
		return ar_xstrdup(num);
	case JSON_TRUE:
		return ar_xstrdup("true");
	case JSON_FALSE:
		return ar_xstrdup("false");
	case JSON_NULL:
		return ar_xstrdup("");
	default:
		return NULL;
	}
}

static void
walk(const json_t *j, struct ar_buf *path, struct ar_flat *f, int top,
    int keep_reals)
{
	const char *k;
	json_t *v;
	size_t mark = path->len, i;

	json_object_foreach((json_t *)j, k, v) {
		if (strcmp(k, "raw") == 0 || (top && strcmp(k, "sig") == 0))
			continue;
		path->len = mark;
		if (mark)
			ar_buf_addc(path, '.');
		/* A '.' inside a key is written "\.", so a path names one
		 * field only ("x.y" the key, "x"."y" the nesting). */
		for (const char *c = k; *c; c++) {
			if (*c == '.' || *c == '\\')
				ar_buf_addc(path, '\\');
			ar_buf_addc(path, *c);
		}
		if (json_is_object(v)) {
			walk(v, path, f, 0, keep_reals);
		} else if (json_is_array(v)) {
			struct ar_buf joined = {0};
			int ok = 1;
			json_t *e;

			ar_buf_reserve(&joined, 0);
			json_array_foreach(v, i, e) {
				char *s = scalar(e);

				if (!s) {
					ok = 0;
					break;
				}
				if (i)
					ar_buf_addc(&joined, ',');
				ar_buf_adds(&joined, s);
				free(s);
			}
			if (ok)
				add(f, path->p, joined.p);
			else
				ar_buf_free(&joined);
		} else if (keep_reals && json_is_real(v)) {
			add_num(f, path->p, json_real_value(v));
		} else {
			add(f, path->p, scalar(v));
		}
	}
	path->len = mark;
	if (path->p)
		path->p[mark] = '\0';
}

static int
cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct ar_kv *)a)->k, ((const struct ar_kv *)b)->k);
}

static void
flatten(const json_t *obj, struct ar_flat *f, int keep_reals)
{
	struct ar_buf path = {0};

	memset(f, 0, sizeof *f);
	ar_buf_reserve(&path, 64);
	walk(obj, &path, f, 1, keep_reals);
	ar_buf_free(&path);
	if (f->n > 1)
		ar_sort(f->kv, f->n, sizeof *f->kv, cmp_kv);
}

void
ar_flat_free(struct ar_flat *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->kv[i].k);
		free(f->kv[i].v);
	}
	free(f->kv);
	memset(f, 0, sizeof *f);
}

void
ar_flatten(const json_t *obj, struct ar_flat *f)
{
	flatten(obj, f, 0);
}

void
ar_flatten_num(const json_t *obj, struct ar_flat *f)
{
	flatten(obj, f, 1);
}
