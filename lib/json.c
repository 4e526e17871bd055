/* json.c: strict JSON through jansson, the canonical form, numbers. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "json.h"
#include "utf8.h"

json_t *
ar_json_parse(const char *s, size_t len, char *err, size_t errlen)
{
	return ar_json_parse_flags(s, len, 0, err, errlen);
}

json_t *
ar_json_parse_flags(const char *s, size_t len, size_t flags, char *err,
    size_t errlen)
{
	json_error_t je;
	json_t *j;
	long bad;

	if (memchr(s, '\0', len)) {
		snprintf(err, errlen, "NUL byte in JSON text");
		return NULL;
	}
	if ((bad = ar_utf8_invalid(s, len)) >= 0) {
		snprintf(err, errlen, "invalid UTF-8 at byte %ld", bad + 1);
		return NULL;
	}
	j = json_loadb(s, len, JSON_REJECT_DUPLICATES | flags, &je);
	if (!j) {
		/* JSON Lines are one line each: the line only when there is
		 * more than one. */
		if (je.line > 1)
			snprintf(err, errlen, "invalid JSON at line %d, column "
			    "%d: %s", je.line, je.column, je.text);
		else
			snprintf(err, errlen, "invalid JSON at column %d: %s",
			    je.column, je.text);
		return NULL;
	}
	return j;
}

char *
ar_json_canon(const json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);

	if (!s)
		ar_die(AR_EX_SOFTWARE, "cannot encode JSON");
	return s;
}

char *
ar_json_line(const json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);

	if (!s)
		ar_die(AR_EX_SOFTWARE, "cannot encode JSON");
	return s;
}

json_t *
ar_json_path(const json_t *j, const char *path)
{
	char key[256];
	const char *dot;
	size_t n;

	while (j && *path) {
		if (!json_is_object(j))
			return NULL;
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		j = json_object_get(j, key);
		path += n + (dot ? 1 : 0);
	}
	return (json_t *)j;
}

const char *
ar_json_str(const json_t *j, const char *path)
{
	return json_string_value(ar_json_path(j, path));
}

void
ar_fmt_double(char *out, size_t n, double v)
{
	int prec;

	/* The shortest of 15, 16 or 17 digits that reads back exactly. */
	for (prec = 15; prec < 17; prec++) {
		snprintf(out, n, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
	snprintf(out, n, "%.17g", v);
}

/* The plain decimals of most TSV fields, -?digits[.digits], read
 * without strtod and with its answer, bit for bit (a ledger's million
 * rows spent a quarter of a decision in strtod). The digits m, at most
 * 19 of them, are an exact integer, and so is 10^f for the f digits
 * after the point:
 *  - m below 2^53 and f at most 22: both are exact doubles, and one
 *    IEEE division of exact operands is rounded correctly;
 *  - else, where long double has a 64-bit significand, f at most 27: the
 *    division is rounded correctly to 64 bits, and rounding that to a
 *    double gives the double nearest m / 10^f unless it landed on a
 *    midpoint between two doubles (its low 11 bits 10000000000), which
 *    is left to strtod.
 * -1 for anything else, left to strtod. */
#if LDBL_MANT_DIG == 64
/* Whether long doubles really carry 64 bits at run time: an emulator
 * (valgrind's x87 is done in doubles) may not, and then the long path
 * of plain_decimal is left to strtod. Checked once; threads that check
 * at once find the same answer. */
static int
long_double_exact(void)
{
	static atomic_int known = -1;
	int k = atomic_load_explicit(&known, memory_order_relaxed);

	if (k < 0) {
		volatile unsigned long long big = (1ULL << 63) + 1;
		volatile long double x = (long double)big;

		k = x - 9223372036854775808.0L == 1.0L;
		atomic_store_explicit(&known, k, memory_order_relaxed);
	}
	return k;
}
#endif

static int
plain_decimal(const char *s, double *v)
{
	static const double p10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
		1e22
	};
	uint64_t mant = 0;
	int neg = 0, sig = 0, frac = 0, digits = 0, point = 0;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			digits++;
			if (point && ++frac > 27)
				return -1;
			if (mant == 0 && *s == '0')
				continue;
			if (++sig > 19)
				return -1;
			mant = mant * 10 + (uint64_t)(*s - '0');
		} else if (*s == '.' && !point) {
			point = 1;
		} else {
			break;
		}
	}
	if (*s != '\0' || digits == 0)
		return -1;
	if (mant < (1ULL << 53) && frac <= 22) {
		*v = (double)mant / p10[frac];
	} else {
#if LDBL_MANT_DIG == 64
		if (!long_double_exact())
			return -1;
		/* Powers of ten to 10^27 are exact in 64 bits (5^27 < 2^64). */
		static const long double lp10[] = {
			1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L,
			1e9L, 1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L,
			1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L,
			1e25L, 1e26L, 1e27L
		};
		long double q = (long double)mant / lp10[frac];
#if defined(__x86_64__) || defined(__i386__)
		uint64_t bits;

		/* The x87 format: the 64-bit significand is the first eight
		 * bytes, read whole instead of by frexpl and ldexpl. */
		memcpy(&bits, &q, sizeof bits);
#else
		int e;
		uint64_t bits = (uint64_t)ldexpl(frexpl(q, &e), 64);
#endif
		if ((bits & 0x7ff) == 0x400)
			return -1;
		*v = (double)q;
#else
		return -1;
#endif
	}
	if (neg)
		*v = -*v;
	return 0;
}

int
ar_parse_double(const char *s, double *v)
{
	char *end;

	if (*s == '\0' || *s == ' ' || *s == '\t')
		return -1;
	if (plain_decimal(s, v) == 0)
		return 0;
	errno = 0;
	*v = strtod(s, &end);
	if (*end != '\0' || errno == ERANGE || !isfinite(*v))
		return -1;
	/* strtod takes hex floats and "infinity"; a TSV number is decimal. */
	if (strpbrk(s, "xXiInN"))
		return -1;
	return 0;
}

int
ar_parse_long(const char *s, long long *v)
{
	char *end;

	if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (*end != '\0' || errno == ERANGE)
		return -1;
	return 0;
}
