/* flat.h: flattening a result into TSV columns by dotted path. */
#ifndef AR_FLAT_H
#define AR_FLAT_H

#include <stddef.h>
#include <jansson.h>

struct ar_kv {
	char *k, *v;
	double num;      /* the value of a JSON real, when v is NULL */
};
struct ar_flat {
	size_t n, cap;
	struct ar_kv *kv;
};
/* Flattens obj: objects become dotted paths ('.' and '\' inside a key are
 * escaped with '\'), arrays of scalars are joined with ',', other arrays,
 * "raw" and "sig" are left out; sorted by key. */
void ar_flatten(const json_t *obj, struct ar_flat *f);
/* The same, but JSON reals are left in num with v NULL: formatting them
 * is the dear part, and a check can compare numbers instead. */
void ar_flatten_num(const json_t *obj, struct ar_flat *f);
void ar_flat_free(struct ar_flat *f);

#endif
