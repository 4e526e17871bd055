/* json.h: JSON through jansson, strict: duplicate keys and invalid UTF-8
 * are errors, and so are NaN and infinities. */
#ifndef AR_JSON_H
#define AR_JSON_H

#include <stddef.h>
#include <jansson.h>

json_t *ar_json_parse(const char *s, size_t len, char *err, size_t errlen);
/* The same with jansson's decoding flags added (JSON_DECODE_INT_AS_REAL). */
json_t *ar_json_parse_flags(const char *s, size_t len, size_t flags,
	char *err, size_t errlen);
/* The canonical form for signing: keys sorted, compact, reals with 17
 * significant digits. malloc'd. */
char *ar_json_canon(const json_t *j);
/* Compact, key order kept, one line. malloc'd. */
char *ar_json_line(const json_t *j);
/* Looks up a dotted path ("method.hash"); NULL if absent. */
json_t *ar_json_path(const json_t *j, const char *path);
const char *ar_json_str(const json_t *j, const char *path);
/* Formats a finite double in the shortest form that reads back exactly. */
void ar_fmt_double(char *out, size_t n, double v);
/* Parses a finite number; -1 on garbage, NaN or infinity. */
int ar_parse_double(const char *s, double *v);
int ar_parse_long(const char *s, long long *v);

#endif
