/* segfold.c: a sealed ledger segment's rows folded straight from its
 * bytes (fold_segment, next.h), for a decision whose segment has no
 * fold: summary.c's fold_direct checks the seal and hands the bytes
 * here. Apart from next-read.c, whose rows come through ar_tsv from an
 * export: these lines are split only as far as the fold reads them
 * (ar_tsv_split_upto). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "tsv.h"
#include "sched.h"
#include "next.h"

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
	size_t ncol, last;
	int c[FV_N], csig, k, more, r = -1;

	if (len == 0 || end[-1] != '\n')
		return -1;
	/* The header: each column's name, for those the fold reads. */
	nl = memchr(map, '\n', len);
	h = ar_xcalloc(SEG_COLS, sizeof *h);
	hb = ar_xmalloc((size_t)(nl - map) + 17);
	if (nl == map || (k = ar_tsv_split_upto(map, (size_t)(nl - map),
	    SEG_COLS, h, hb, (size_t)(nl - map) + 17, &more)) < 1 || more)
		goto out;
	ncol = (size_t)k;
	f = ar_xcalloc(ncol, sizeof *f);
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
		nl = memchr(p, '\n', (size_t)(end - p));
		/* A blank line is no row, as ar_tsv reads it. */
		if (nl == p)
			continue;
		/* Fields up to last, split no further (the json, most of
		 * the line, is not: its bytes are those ar-ledger wrote, as
		 * the seal says), and more after it unless the header ends
		 * there. */
		k = ar_tsv_split_upto(p, (size_t)(nl - p), last + 1, f, buf,
		    SEG_FIELDS, &more);
		if (k != (int)last + 1 || (!more && last + 1 < ncol))
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
	free(h);
	free(f);
	free(hb);
	free(buf);
	return r;
}
