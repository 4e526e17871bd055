/* flat.c: unit tests of lib/flat: a result as sorted dotted-path
 * columns, with reals as text or as numbers. */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "flat.h"
#include "json.h"
#include "unit.h"

/* The pairs of f as "k=v;" text into b; a real kept as a number is
 * "k=#num". */
static void
text_of(const struct ar_flat *f, struct ar_buf *b)
{
	size_t i;

	ar_buf_clear(b);
	ar_buf_reserve(b, 0);
	for (i = 0; i < f->n; i++)
		if (f->kv[i].v)
			ar_buf_printf(b, "%s=%s;", f->kv[i].k, f->kv[i].v);
		else
			ar_buf_printf(b, "%s=#%g;", f->kv[i].k, f->kv[i].num);
}

static void
flatten(void)
{
	char err[256];
	const char *in = "{\"id\":\"r\",\"sig\":\"s\",\"raw\":[1],"
	    "\"metrics\":{\"t\":{\"median\":1.5,\"n\":3}},\"ids\":[0,1],"
	    "\"objs\":[{\"a\":1}],\"ok\":false,\"none\":null}";
	json_t *o = ar_json_parse(in, strlen(in), err, sizeof err);
	struct ar_flat f;
	struct ar_buf b = {0};

	OK(o != NULL, "input parses");
	if (!o)
		return;
	ar_flatten(o, &f);
	text_of(&f, &b);
	OK(strcmp(b.p, "id=r;ids=0,1;metrics.t.median=1.5;metrics.t.n=3;"
	    "none=;ok=false;") == 0, "dotted paths, joined arrays, no "
	    "sig, raw or arrays of objects");
	ar_flat_free(&f);
	ar_flatten_num(o, &f);
	text_of(&f, &b);
	OK(strcmp(b.p, "id=r;ids=0,1;metrics.t.median=#1.5;metrics.t.n=3;"
	    "none=;ok=false;") == 0, "num: reals left as numbers, integers "
	    "as text");
	ar_flat_free(&f);
	json_decref(o);
	in = "{\"a.b\":{\"c\\\\d\":1},\"x\":{\"sig\":\"kept\",\"e\":[]},"
	    "\"t\":true}";
	o = ar_json_parse(in, strlen(in), err, sizeof err);
	ar_flatten(o, &f);
	text_of(&f, &b);
	OK(strcmp(b.p, "a\\.b.c\\\\d=1;t=true;x.e=;x.sig=kept;") == 0,
	    "'.' and '\\' in keys escaped; a nested sig kept; an empty "
	    "array is \"\"");
	ar_flat_free(&f);
	json_decref(o);
	ar_buf_free(&b);
}

const struct unit_test unit_flat[] = {
	TEST(flatten),
	UNIT_END,
};
