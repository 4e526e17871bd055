/* metric.c: METRIC lines, the output of a score stage: "METRIC name=value"
 * with name [A-Za-z0-9_.µ]+ and a finite value; the last duplicate wins;
 * other lines are not metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "metric.h"

/* Length of a valid metric name at s, or 0. */
static size_t
name_len(const char *s, size_t max)
{
	size_t i = 0;

	while (i < max && s[i] != '=') {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.')
			i++;
		else if (c == 0xc2 && i + 1 < max &&
		    (unsigned char)s[i + 1] == 0xb5)
			i += 2;   /* µ */
		else
			return 0;
	}
	return i < max ? i : 0;
}

int
ar_metrics_parse(const char *text, size_t len, struct ar_metric **out,
    size_t *n, char *err, size_t errlen)
{
	size_t lineno = 0, cap = 0, i;
	const char *p = text, *end = text + len;

	*out = NULL;
	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p), k;
		char val[64];
		double v;

		lineno++;
		if (ll > 0 && p[ll - 1] == '\r')
			ll--;
		if (ll >= 7 && memcmp(p, "METRIC ", 7) == 0) {
			k = name_len(p + 7, ll - 7);
			if (k == 0 || k >= AR_METRIC_NAME) {
				snprintf(err, errlen, "line %zu: METRIC name: "
				    "expected 1 to %d of [A-Za-z0-9_.µ] then "
				    "'='", lineno, AR_METRIC_NAME - 1);
				goto fail;
			}
			if (ll - 7 - k - 1 >= sizeof val || ll - 7 - k - 1 == 0) {
				snprintf(err, errlen, "line %zu: METRIC %.*s: no "
				    "value", lineno, (int)k, p + 7);
				goto fail;
			}
			memcpy(val, p + 7 + k + 1, ll - 7 - k - 1);
			val[ll - 7 - k - 1] = '\0';
			if (ar_parse_double(val, &v) < 0) {
				snprintf(err, errlen, "line %zu: METRIC %.*s: "
				    "'%s' is not a finite number", lineno,
				    (int)k, p + 7, val);
				goto fail;
			}
			for (i = 0; i < *n; i++)
				if (strlen((*out)[i].name) == k &&
				    memcmp((*out)[i].name, p + 7, k) == 0)
					break;
			if (i == *n) {
				if (*n == cap) {
					cap = cap ? cap * 2 : 8;
					*out = ar_xrealloc(*out, cap *
					    sizeof **out);
				}
				memcpy((*out)[i].name, p + 7, k);
				(*out)[i].name[k] = '\0';
				(*n)++;
			}
			(*out)[i].value = v;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
fail:
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}
