/* canon.c: a signed row's JSON read straight into its flat columns, as
 * ar_flatten_num(3) would give them from jansson's parse, at a fraction
 * of the cost. It reads the JSON that a signature vouches for: jansson's
 * canonical dump (sorted keys, compact). Whatever it does not expect (a
 * key out of order, a number out of range, an escape jansson refuses,
 * deep nesting) makes it give up, and the row is read by jansson, which
 * says what is wrong; tests/fuzz/ledger.c compares the two. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "utf8.h"
#include "ar-ledger.h"

#define DEPTH 32

struct reader {
	const char *p, *end;
	struct ar_buf path;
	struct ar_buf s;        /* the string last read, unescaped */
	struct cflat *out;
};

static void
ws(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
	    *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int
hex4(const char *p, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static void
put_utf8(struct ar_buf *b, unsigned c)
{
	if (c < 0x80) {
		ar_buf_addc(b, (char)c);
	} else if (c < 0x800) {
		ar_buf_addc(b, (char)(0xc0 | (c >> 6)));
		ar_buf_addc(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		ar_buf_addc(b, (char)(0xe0 | (c >> 12)));
		ar_buf_addc(b, (char)(0x80 | ((c >> 6) & 0x3f)));
		ar_buf_addc(b, (char)(0x80 | (c & 0x3f)));
	} else {
		ar_buf_addc(b, (char)(0xf0 | (c >> 18)));
		ar_buf_addc(b, (char)(0x80 | ((c >> 12) & 0x3f)));
		ar_buf_addc(b, (char)(0x80 | ((c >> 6) & 0x3f)));
		ar_buf_addc(b, (char)(0x80 | (c & 0x3f)));
	}
}

/* A string, unescaped into r->s; the text is valid UTF-8 already. */
static int
string(struct reader *r)
{
	const char *run;

	ar_buf_clear(&r->s);
	ar_buf_reserve(&r->s, 0);
	if (r->p >= r->end || *r->p != '"')
		return -1;
	run = ++r->p;
	for (;;) {
		unsigned c, lo;

		if (r->p >= r->end)
			return -1;
		if ((unsigned char)*r->p < 0x20)
			return -1;
		if (*r->p == '"')
			break;
		if (*r->p != '\\') {
			r->p++;
			continue;
		}
		ar_buf_add(&r->s, run, (size_t)(r->p - run));
		if (r->end - r->p < 2)
			return -1;
		switch (r->p[1]) {
		case '"': ar_buf_addc(&r->s, '"'); break;
		case '\\': ar_buf_addc(&r->s, '\\'); break;
		case '/': ar_buf_addc(&r->s, '/'); break;
		case 'b': ar_buf_addc(&r->s, '\b'); break;
		case 'f': ar_buf_addc(&r->s, '\f'); break;
		case 'n': ar_buf_addc(&r->s, '\n'); break;
		case 'r': ar_buf_addc(&r->s, '\r'); break;
		case 't': ar_buf_addc(&r->s, '\t'); break;
		case 'u':
			if (r->end - r->p < 6 || hex4(r->p + 2, &c) < 0)
				return -1;
			r->p += 4;
			/* jansson refuses \u0000 and unpaired surrogates. */
			if (c == 0 || (c >= 0xdc00 && c <= 0xdfff))
				return -1;
			if (c >= 0xd800 && c <= 0xdbff) {
				if (r->end - r->p < 8 || r->p[2] != '\\' ||
				    r->p[3] != 'u' || hex4(r->p + 4, &lo) < 0 ||
				    lo < 0xdc00 || lo > 0xdfff)
					return -1;
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				r->p += 6;
			}
			put_utf8(&r->s, c);
			break;
		default:
			return -1;
		}
		r->p += 2;
		run = r->p;
	}
	ar_buf_add(&r->s, run, (size_t)(r->p - run));
	r->p++;
	return 0;
}

static void
add(struct cflat *o, const char *k, char *v, double num)
{
	struct ar_flat *f = &o->f;

	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->kv = ar_xrealloc(f->kv, f->cap * sizeof *f->kv);
	}
	f->kv[f->n].k = ar_xstrdup(k);
	f->kv[f->n].v = v;
	f->kv[f->n].num = num;
	f->n++;
}

/* A scalar, as ar_flatten formats it, into *v (NULL for a real when
 * keep is set, its value in *num; NULL for anything when skip is set,
 * the value only read). 1 when the value is not a scalar (r not moved),
 * -1 when it cannot be read. */
static int
scalar(struct reader *r, int keep, int skip, char **v, double *num,
    int *isstr)
{
	const char *s = r->p;

	*v = NULL;
	*num = 0;
	*isstr = 0;
	if (r->p >= r->end)
		return -1;
	switch (*r->p) {
	case '{':
	case '[':
		return 1;
	case '"':
		if (string(r) < 0)
			return -1;
		*v = skip ? NULL : ar_xstrdup(r->s.p);
		*isstr = 1;
		return 0;
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = { "true", "false", "null" };
		static const char *const val[] = { "true", "false", "" };
		int i = *r->p == 't' ? 0 : *r->p == 'f' ? 1 : 2;
		size_t n = strlen(lit[i]);

		if ((size_t)(r->end - r->p) < n || memcmp(r->p, lit[i], n))
			return -1;
		r->p += n;
		*v = skip ? NULL : ar_xstrdup(val[i]);
		return 0;
	}
	}
	/* A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	{
		char tmp[64], *end;
		int real = 0, expo = 0;
		size_t n;

		if (r->p < r->end && *r->p == '-')
			r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return -1;
		if (*r->p == '0' && r->p + 1 < r->end && r->p[1] >= '0' &&
		    r->p[1] <= '9')
			return -1;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
		if (r->p < r->end && *r->p == '.') {
			real = 1;
			r->p++;
			if (r->p >= r->end || *r->p < '0' || *r->p > '9')
				return -1;
			while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
				r->p++;
		}
		if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
			real = expo = 1;
			r->p++;
			if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
				r->p++;
			if (r->p >= r->end || *r->p < '0' || *r->p > '9')
				return -1;
			while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
				r->p++;
		}
		n = (size_t)(r->p - s);
		if (n >= sizeof tmp)
			return -1;
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		errno = 0;
		if (!real) {
			long long x;

			/* Up to 18 digits fit, and read as they are written
			 * but "-0"; jansson refuses what does not fit. */
			if (n <= 18 && strcmp(tmp, "-0") != 0) {
				*v = skip ? NULL : ar_xstrdup(tmp);
				return 0;
			}
			x = strtoll(tmp, &end, 10);
			if (errno || *end)
				return -1;
			*v = skip ? NULL : ar_xasprintf("%lld", x);
			return 0;
		}
		/* Fewer than 64 digits and no exponent cannot overflow: a
		 * real left out need not be converted. */
		if (skip && !expo)
			return 0;
		*num = strtod(tmp, &end);
		if (*end || (errno == ERANGE && (*num > 1 || *num < -1)))
			return -1;
		if (!keep && !skip) {
			char out[64];

			ar_fmt_double(out, sizeof out, *num);
			*v = ar_xstrdup(out);
		}
		return 0;
	}
}

static int value(struct reader *r, int depth, int skip);

/* An array: joined when every element is a scalar, else left out. */
static int
array(struct reader *r, int depth, int skip)
{
	struct ar_buf joined = {0};
	int ok = 1, first = 1;

	r->p++;
	ar_buf_reserve(&joined, 0);
	ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		goto done;
	}
	for (;;) {
		char *v;
		double num;
		int isstr, k;

		ws(r);
		k = ok ? scalar(r, 0, skip, &v, &num, &isstr) : 1;
		if (k < 0)
			goto fail;
		if (k == 1) {
			if (r->p >= r->end || (*r->p != '{' && *r->p != '[' &&
			    *r->p != '"' && *r->p != '-' && *r->p != 't' &&
			    *r->p != 'f' && *r->p != 'n' && (*r->p < '0' ||
			    *r->p > '9')))
				goto fail;
			ok = ok && *r->p != '{' && *r->p != '[';
			if (value(r, depth + 1, 1) < 0)
				goto fail;
		} else if (!skip) {
			if (!first)
				ar_buf_addc(&joined, ',');
			ar_buf_adds(&joined, v);
			free(v);
		}
		first = 0;
		ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			break;
		}
		goto fail;
	}
done:
	if (ok && !skip) {
		add(r->out, r->path.p, joined.p, 0);
		return 0;
	}
	ar_buf_free(&joined);
	return 0;
fail:
	ar_buf_free(&joined);
	return -1;
}

/* An object's members; keys in strictly increasing order, as canonical
 * JSON has them (which also rules out a key twice). */
static int
object(struct reader *r, int depth, int skip)
{
	size_t mark = r->path.len;
	char *prev = NULL;
	int top = depth == 0;

	r->p++;
	ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return 0;
	}
	for (;;) {
		int skipv;

		ws(r);
		if (string(r) < 0 || (prev && strcmp(prev, r->s.p) >= 0))
			goto fail;
		free(prev);
		prev = ar_xstrdup(r->s.p);
		if (top) {
			if (strcmp(prev, "sig") == 0)
				r->out->has_sig = 1;
			else if (strcmp(prev, "signed") == 0 ||
			    strcmp(prev, "json") == 0)
				r->out->reserved = 1;
		}
		skipv = skip || strcmp(prev, "raw") == 0 || (top &&
		    strcmp(prev, "sig") == 0);
		r->path.len = mark;
		if (mark)
			ar_buf_addc(&r->path, '.');
		for (const char *c = prev; *c; c++) {
			if (*c == '.' || *c == '\\')
				ar_buf_addc(&r->path, '\\');
			ar_buf_addc(&r->path, *c);
		}
		ar_buf_addc(&r->path, '\0');
		r->path.len--;
		ws(r);
		if (r->p >= r->end || *r->p != ':')
			goto fail;
		r->p++;
		ws(r);
		if (value(r, depth + 1, skipv) < 0)
			goto fail;
		ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			break;
		}
		goto fail;
	}
	free(prev);
	r->path.len = mark;
	r->path.p[mark] = '\0';
	return 0;
fail:
	free(prev);
	return -1;
}

static int
value(struct reader *r, int depth, int skip)
{
	char *v;
	double num;
	int isstr, k;

	if (depth > DEPTH || r->p >= r->end)
		return -1;
	if (*r->p == '{')
		return object(r, depth, skip);
	if (*r->p == '[')
		return array(r, depth, skip);
	if ((k = scalar(r, 1, skip, &v, &num, &isstr)) != 0)
		return -1;
	if (!skip)
		/* num marks a string with 1 when v is set (ar-ledger.h). */
		add(r->out, r->path.p, v, v ? isstr : num);
	return 0;
}

static int
cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct ar_kv *)a)->k,
	    ((const struct ar_kv *)b)->k);
}

int
canon_flat(const char *json, size_t len, struct cflat *out)
{
	struct reader r;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (memchr(json, '\0', len) || ar_utf8_invalid(json, len) >= 0)
		return -1;
	memset(&r, 0, sizeof r);
	r.p = json;
	r.end = json + len;
	r.out = out;
	ar_buf_reserve(&r.path, 64);
	ws(&r);
	if (r.p < r.end && *r.p == '{' && object(&r, 0, 0) == 0) {
		ws(&r);
		rc = r.p == r.end ? 0 : -1;
	}
	ar_buf_free(&r.path);
	ar_buf_free(&r.s);
	if (rc < 0) {
		ar_flat_free(&out->f);
		return -1;
	}
	if (out->f.n > 1)
		ar_sort(out->f.kv, out->f.n, sizeof *out->f.kv, cmp_kv);
	return 0;
}

const char *
cflat_str(const struct cflat *c, const char *path)
{
	size_t lo = 0, hi = c->f.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->f.kv[mid].k, path);

		if (d == 0)
			return c->f.kv[mid].v && c->f.kv[mid].num == 1 ?
			    c->f.kv[mid].v : NULL;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
