/* segfold.c: a sealed ledger segment's rows folded straight from its
 * bytes (fold_segment, next.h), for a decision whose segment has no
 * fold: summary.c's fold_direct checks the seal and hands the bytes
 * here. Apart from next-read.c, whose rows come through ar_tsv from an
 * export: these lines are split only as far as the fold reads them. */
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "tsv.h"
#include "sched.h"
#include "next.h"

/* The line at p (before end): its newline into *nl, and the offsets of
 * its first nwant tabs into off, 16 bytes at a time; returns how many it
 * has of them (up to nwant), -1 when no newline ends it. A segment's
 * lines are 2 KB, most of it the json after the columns the fold reads:
 * the rest of a line is not split, nor its tabs counted (its bytes are
 * those ar-ledger wrote, as the seal says). */
static long
line_tabs(const char *p, const char *end, size_t *off, size_t nwant,
    const char **nl)
{
	size_t i = 0, len, nt = 0;

	if (!(*nl = memchr(p, '\n', (size_t)(end - p))))
		return -1;
	len = (size_t)(*nl - p);
#ifdef __SSE2__
	{
		const __m128i tab = _mm_set1_epi8('\t');

		for (; i + 16 <= len && nt < nwant; i += 16) {
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			    _mm_loadu_si128((const __m128i *)(const void *)
			    (p + i)), tab));

			for (; m && nt < nwant; m &= m - 1)
				off[nt++] = i + (size_t)__builtin_ctz(m);
		}
	}
#endif
	for (; i < len && nt < nwant; i++)
		if (p[i] == '\t')
			off[nt++] = i;
	return (long)nt;
}

/* Fields 0 to last of the line at p, tabs at off (at least last of
 * them, and one more unless field last ends the line): each ended in buf
 * and unescaped as ar_tsv reads it, into f; -1 when one has an unknown
 * escape, or they do not fit. */
static int
seg_fields(const char *p, const char *nl, const size_t *off, size_t ntab,
    size_t last, const char **f, char *buf, size_t buflen)
{
	size_t c, upto;
	int esc;

	upto = last < ntab ? off[last] : (size_t)(nl - p);
	if (upto >= buflen)
		return -1;
	/* One copy of them all, each tab made the end of its field, and
	 * one look for a backslash. */
	memcpy(buf, p, upto);
	buf[upto] = '\0';
	esc = memchr(buf, '\\', upto) != NULL;
	for (c = 0; c <= last; c++) {
		f[c] = buf + (c ? off[c - 1] + 1 : 0);
		if (c < last)
			buf[off[c]] = '\0';
	}
	for (c = 0; esc && c <= last; c++)
		if (ar_tsv_unescape((char *)f[c]) < 0)
			return -1;
	return 0;
}

static int
seg_col(const char *const *h, size_t ncol, const char *name)
{
	size_t c;

	for (c = 0; c < ncol; c++)
		if (strcmp(h[c], name) == 0)
			return (int)c;
	return -1;
}

#define SEG_COLS 4096
#define SEG_FIELDS 65536

int
fold_segment(struct agg *x, const char *map, size_t len)
{
	const char *p, *end = map + len, *nl, **h = NULL, **f = NULL, *v[FV_N];
	char *hb = NULL, *buf = NULL;
	size_t *off = NULL, ncol, last;
	long nt;
	int c[FV_N], csig, k, r = -1;

	if (len == 0 || end[-1] != '\n')
		return -1;
	/* The header: each column's name, for those the fold reads. */
	off = ar_xcalloc(SEG_COLS, sizeof *off);
	nt = line_tabs(map, end, off, SEG_COLS, &nl);
	if (nt < 0 || nt >= SEG_COLS || nl == map)
		goto out;
	ncol = (size_t)nt + 1;
	h = ar_xcalloc(ncol, sizeof *h);
	f = ar_xcalloc(ncol, sizeof *f);
	hb = ar_xmalloc((size_t)(nl - map) + 1);
	if (seg_fields(map, nl, off, (size_t)nt, ncol - 1, h, hb,
	    (size_t)(nl - map) + 1) < 0)
		goto out;
	for (k = 0; k < FC_N; k++)
		c[k] = seg_col(h, ncol, fold_cols[k]);
	c[FV_BASE] = -1;
	if (x->metric) {
		char *cn = ar_xasprintf("baseline.%s.median", x->metric);

		c[FV_BASE] = seg_col(h, ncol, cn);
		free(cn);
	}
	/* What fold_ledger needs of a row (else the export says why). */
	if ((csig = seg_col(h, ncol, "signed")) < 0 || c[FC_WL] < 0 ||
	    c[FC_K] < 0 || c[FC_VERDICT] < 0 || (c[FC_COMMIT] < 0 &&
	    c[FC_DIR] < 0))
		goto out;
	last = (size_t)csig;
	for (k = 0; k <= FV_BASE; k++)
		if (c[k] >= 0 && (size_t)c[k] > last)
			last = (size_t)c[k];
	buf = ar_xmalloc(SEG_FIELDS);
	for (p = nl + 1; p < end; p = nl + 1) {
		nt = line_tabs(p, end, off, last + 1, &nl);
		/* A blank line is no row, as ar_tsv reads it. */
		if (nt == 0 && nl == p)
			continue;
		/* Fields up to last, and the line's end after it only
		 * where the header ends. */
		if (nt < 0 || (size_t)nt < last || ((size_t)nt == last &&
		    last + 1 < ncol) || seg_fields(p, nl, off, (size_t)nt,
		    last, f, buf, SEG_FIELDS) < 0)
			goto out;
		/* As ar-ledger export -V gives a sealed segment: its
		 * unsigned rows left out, the rest checked when sealed. */
		if (strcmp(f[csig], "yes") != 0)
			continue;
		for (k = 0; k <= FV_BASE; k++)
			v[k] = c[k] >= 0 ? f[c[k]] : "";
		x->rows++;
		if (fold_values(x, v) < 0)
			goto out;
	}
	r = 0;
out:
	free(off);
	free(h);
	free(f);
	free(hb);
	free(buf);
	return r;
}
