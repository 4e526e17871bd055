/* tsv.c: TSV with a header; columns are found by name. Escapes inside
 * fields: \t \n \r \\. Anything else after a backslash is an error. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "buf.h"
#include "err.h"
#include "io.h"
#include "tsv.h"
#include "utf8.h"

int
ar_tsv_unescape(char *s)
{
	/* Most fields hold no escape: find the first one fast. */
	char *r = strchr(s, '\\'), *w = r;

	if (!r)
		return 0;
	while (*r) {
		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		switch (r[1]) {
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case '\\': *w++ = '\\'; break;
		default: return -1;
		}
		r += 2;
	}
	*w = '\0';
	return 0;
}

void
ar_tsv_escape(struct ar_buf *b, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *e;

		switch (*s) {
		case '\t': e = "\\t"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\\': e = "\\\\"; break;
		default: continue;
		}
		ar_buf_add(b, run, (size_t)(s - run));
		ar_buf_add(b, e, 2);
		run = s + 1;
	}
	ar_buf_add(b, run, (size_t)(s - run));
}

void
ar_tsv_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\\': fputs("\\\\", f); break;
		default: putc_unlocked(*s, f);
		}
	}
}

/* ar_tsv_split_plain refused the line at byte upto: the tabs it made NULs
 * before it are put back (it found no NUL there), so that split sees the
 * line as it was. */
static int
unsplit(char *line, size_t upto)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (line[i] == '\0')
			line[i] = '\t';
	return -1;
}

/* A line of plain ASCII without NUL, CR or backslash, as the
 * ledger's exports are, split at its tabs in one pass, 16 bytes at a
 * time: what split's checks and its look for each tab would find, at a
 * fraction of the time on a million rows. -1 for any other line, which
 * split reads its own way. */
int
ar_tsv_split_plain(char *line, size_t len, char **fields, size_t max)
{
	size_t i = 0, n = 1;

	if (max)
		fields[0] = line;
#ifdef __SSE2__
	{
		const __m128i tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r'),
		    bs = _mm_set1_epi8('\\'), nul = _mm_setzero_si128();

		for (; i + 16 <= len; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const
			    void *)(line + i));
			unsigned m;

			/* The sign bits are the bytes past ASCII. */
			if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
			    _mm_cmpeq_epi8(v, nul), _mm_cmpeq_epi8(v, cr)),
			    _mm_or_si128(_mm_cmpeq_epi8(v, bs), v))))
				return unsplit(line, i);
			m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, tab));
			while (m) {
				size_t at = i + (size_t)__builtin_ctz(m);

				line[at] = '\0';
				if (n < max)
					fields[n] = line + at + 1;
				n++;
				m &= m - 1;
			}
		}
	}
#endif
	for (; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c == '\0' || c == '\r' || c == '\\' || c >= 0x80)
			return unsplit(line, i);
		if (c == '\t') {
			line[i] = '\0';
			if (n < max)
				fields[n] = line + i + 1;
			n++;
		}
	}
	return (int)n;
}

int
ar_tsv_split_upto(const char *p, size_t len, size_t n, const char **f,
    char *buf, size_t buflen, int *more)
{
	size_t i = 0, k = 1, upto = len, c;

	*more = 0;
	if (n == 0 || buflen == 0)
		return n == 0 ? 0 : -1;
	f[0] = buf;
	/* Copied as it is scanned, 16 bytes at a time, each tab made the
	 * end of its field, up to the tab after field n. */
#ifdef __SSE2__
	{
		const __m128i tab = _mm_set1_epi8('\t');

		for (; i + 16 <= len; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)
			    (p + i));
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v,
			    tab));

			if (i + 16 >= buflen)
				return -1;
			_mm_storeu_si128((__m128i *)(void *)(buf + i), v);
			for (; m; m &= m - 1) {
				c = i + (size_t)__builtin_ctz(m);
				if (k == n) {
					upto = c;
					*more = 1;
					goto copied;
				}
				buf[c] = '\0';
				f[k++] = buf + c + 1;
			}
		}
	}
#endif
	for (; i < len; i++) {
		if (i + 1 >= buflen)
			return -1;
		buf[i] = p[i];
		if (p[i] == '\t') {
			if (k == n) {
				upto = i;
				*more = 1;
				goto copied;
			}
			buf[i] = '\0';
			f[k++] = buf + i + 1;
		}
	}
copied:
	buf[upto] = '\0';
	if (memchr(buf, '\\', upto))
		for (c = 0; c < k; c++)
			if (ar_tsv_unescape((char *)f[c]) < 0) {
				*more = 0;
				return -1;
			}
	return (int)k;
}

static int
split(char *line, size_t len, char **fields, size_t max, char *err,
    size_t errlen, int raw)
{
	size_t n = 0;
	long bad;
	char *p = line, *tab, *end = line + len;
	int esc, nf;

	if ((nf = ar_tsv_split_plain(line, len, fields, max)) >= 0)
		return nf;

	if (memchr(line, '\0', len)) {
		snprintf(err, errlen, "NUL byte in line");
		return -1;
	}
	if (memchr(line, '\r', len)) {
		snprintf(err, errlen, raw ? "carriage return inside the "
		    "line" : "carriage return in line (CRLF line "
		    "endings? escape a CR in a field as \\r)");
		return -1;
	}
	if ((bad = ar_utf8_invalid(line, len)) >= 0) {
		snprintf(err, errlen, "invalid UTF-8 at byte %ld", bad + 1);
		return -1;
	}
	/* One look for a backslash in the whole line spares one in
	 * every field of the lines that hold none. */
	esc = !raw && memchr(line, '\\', len);
	for (;;) {
		tab = memchr(p, '\t', (size_t)(end - p));
		if (n < max)
			fields[n] = p;
		n++;
		if (tab)
			*tab = '\0';
		if (esc && n <= max && ar_tsv_unescape(p) < 0) {
			snprintf(err, errlen, "field %zu: unknown escape "
			    "(only \\t \\n \\r \\\\ are allowed)", n);
			return -1;
		}
		if (!tab)
			break;
		p = tab + 1;
	}
	return (int)n;
}

int
ar_tsv_split(char *line, size_t len, char **fields, size_t max,
    char *err, size_t errlen)
{
	return split(line, len, fields, max, err, errlen, 0);
}

static int
readrow(struct ar_tsv *t, char **fields, size_t max, int *nf)
{
	char why[256];
	int r = ar_getline(t->f, &t->line, AR_LINE_MAX);

	if (r == AR_LINE_EOF)
		return 0;
	t->lineno++;
	if (r == AR_LINE_ERR)
		ar_read_die(t->name);
	if (r == AR_LINE_LONG) {
		snprintf(t->err, sizeof t->err, "%s: line %zu: longer than "
		    "%d bytes", t->name, t->lineno, AR_LINE_MAX);
		return -1;
	}
	/* A byte-order mark some editors put first is not the first
	 * column's name. */
	if (t->lineno == 1 && t->line.len >= 3 &&
	    memcmp(t->line.p, "\xef\xbb\xbf", 3) == 0) {
		t->line.len -= 3;
		memmove(t->line.p, t->line.p + 3, t->line.len + 1);
	}
	/* Other tools' TSV (raw) is read as their editors left it: a CR
	 * before the newline is the line's end, not a field's byte. */
	if (t->raw && t->line.len > 0 && t->line.p[t->line.len - 1] == '\r')
		t->line.p[--t->line.len] = '\0';
	*nf = split(t->line.p, t->line.len, fields, max, why, sizeof why,
	    t->raw);
	if (*nf < 0) {
		snprintf(t->err, sizeof t->err, "%s: line %zu: %s", t->name,
		    t->lineno, why);
		return -1;
	}
	return 1;
}

int
ar_tsv_open(struct ar_tsv *t, FILE *f, const char *name)
{
	return ar_tsv_open_raw(t, f, name, 0);
}

/* A failed open frees what it took and keeps only the reason, so its
 * caller need not close. */
static int
open_failed(struct ar_tsv *t)
{
	char err[sizeof t->err];

	memcpy(err, t->err, sizeof err);
	ar_tsv_close(t);
	memcpy(t->err, err, sizeof err);
	return -1;
}

/* Other tools' logs sometimes have no header line: their first row is
 * taken for one, and a number among its first n names says so. */
static const char *
headless(const struct ar_tsv *t, int n)
{
	char *end;
	int i;

	for (i = 0; t->raw && i < n; i++) {
		(void)strtod(t->hdr[i], &end);
		if (end != t->hdr[i] && *end == '\0')
			return " (no header line? the first line is a row)";
	}
	return "";
}

int
ar_tsv_open_raw(struct ar_tsv *t, FILE *f, const char *name, int raw)
{
	char *tmp[4096];
	int nf, r, i, j;

	memset(t, 0, sizeof *t);
	t->raw = raw;
	t->f = f;
	t->name = ar_xstrdup(name);
	r = readrow(t, tmp, 4096, &nf);
	if (r == 0)
		snprintf(t->err, sizeof t->err, "%s: empty input: no header "
		    "line", name);
	if (r <= 0)
		return open_failed(t);
	if (nf > 4096) {
		snprintf(t->err, sizeof t->err, "%s: header: more than 4096 "
		    "columns", name);
		return open_failed(t);
	}
	t->ncol = (size_t)nf;
	t->hdr = ar_xmalloc(t->ncol * sizeof *t->hdr);
	t->field = ar_xmalloc((t->ncol + 1) * sizeof *t->field);
	for (i = 0; i < nf; i++) {
		if (tmp[i][0] == '\0') {
			snprintf(t->err, sizeof t->err, "%s: header: column "
			    "%d has no name", name, i + 1);
			t->ncol = (size_t)i;
			return open_failed(t);
		}
		t->hdr[i] = ar_xstrdup(tmp[i]);
		for (j = 0; j < i; j++)
			if (strcmp(t->hdr[j], t->hdr[i]) == 0) {
				snprintf(t->err, sizeof t->err, "%s: header: "
				    "duplicate column '%s'%s", name, t->hdr[i],
				    headless(t, i + 1));
				t->ncol = (size_t)i + 1;
				return open_failed(t);
			}
	}
	return 0;
}

int
ar_tsv_col(const struct ar_tsv *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncol; i++)
		if (strcmp(t->hdr[i], name) == 0)
			return (int)i;
	return -1;
}

int
ar_tsv_next(struct ar_tsv *t)
{
	int nf, r;

	/* An empty line (a file's trailing blank line) is no row of a table
	 * of two columns or more; of one, it is a row with an empty field. */
	do
		r = readrow(t, t->field, t->ncol + 1, &nf);
	while (r > 0 && t->ncol > 1 && t->line.len == 0);
	if (r <= 0)
		return r;
	if ((size_t)nf != t->ncol) {
		snprintf(t->err, sizeof t->err, "%s: line %zu: %d field%s, "
		    "header has %zu", t->name, t->lineno, nf,
		    nf == 1 ? "" : "s", t->ncol);
		return -1;
	}
	return 1;
}

void
ar_tsv_close(struct ar_tsv *t)
{
	size_t i;

	if (t->hdr)
		for (i = 0; i < t->ncol; i++)
			free(t->hdr[i]);
	free(t->hdr);
	free(t->field);
	free(t->name);
	ar_buf_free(&t->line);
	memset(t, 0, sizeof *t);
}

int
ar_tsv_need(const struct ar_tsv *t, const char *name)
{
	int c = ar_tsv_col(t, name);

	if (c < 0)
		ar_die(AR_EX_DATA, "%s: no column %s", t->name, name);
	return c;
}
