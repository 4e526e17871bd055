/* tsv.h: header first, columns found by name, escapes \t \n \r \\. */
#ifndef AR_TSV_H
#define AR_TSV_H

#include <stddef.h>
#include <stdio.h>
#include "buf.h"

struct ar_tsv {
	FILE *f;
	char *name;      /* the input's name, for messages */
	size_t lineno;
	size_t ncol;
	char **hdr;
	char **field;    /* the current row; points into an internal buffer */
	struct ar_buf line;
	char err[512];   /* "name: line N: reason" after a failure */
	int raw;         /* fields taken as they are, without escapes */
};
/* Reads the header. 0 on success; -1 with t->err set and nothing else
 * held (ar_tsv_close is then optional). A read that fails (a directory
 * given as input, an I/O error) ends the process here and in
 * ar_tsv_next, as ar_jsonl_line does (ar_read_die: 66 or 74). */
int ar_tsv_open(struct ar_tsv *t, FILE *f, const char *name);
/* The same for TSV written by other tools without escapes (raw = 1),
 * such as karpathy/autoresearch's results.tsv: a CR that ends a line
 * (CRLF) is dropped; one inside a line is still refused. */
int ar_tsv_open_raw(struct ar_tsv *t, FILE *f, const char *name, int raw);
/* The index of a column, or -1. */
int ar_tsv_col(const struct ar_tsv *t, const char *name);
/* The same for a column that must be there: dies (65) naming it. */
int ar_tsv_need(const struct ar_tsv *t, const char *name);
/* 1 with a row in t->field, 0 at the end, -1 with t->err set (a
 * malformed row). */
int ar_tsv_next(struct ar_tsv *t);
void ar_tsv_close(struct ar_tsv *t);
/* Splits one line in place into at most max fields, unescaping each;
 * returns the field count, or -1 with a reason in err. */
int ar_tsv_split(char *line, size_t len, char **fields, size_t max,
	char *err, size_t errlen);
/* The same for a line of plain ASCII without NUL, CR or backslash,
 * which needs no unescaping: its fields in one pass; -1 for any other
 * line, left as it was. */
int ar_tsv_split_plain(char *line, size_t len, char **fields, size_t max);
/* The first n fields of the line of len bytes at p (its newline not
 * among them), copied to buf (buflen bytes), each ended there and
 * unescaped, into f; the rest of the line is not split, so a reader of
 * a few leading columns of long lines (a ledger segment's, before its
 * json) pays for those only. Returns how many fields it has up to n,
 * with *more 1 when the line goes on after field n; -1 when one has an
 * unknown escape, or they do not fit in buf. */
int ar_tsv_split_upto(const char *p, size_t len, size_t n, const char **f,
	char *buf, size_t buflen, int *more);
/* Unescapes s in place; -1 on an unknown escape or a trailing backslash. */
int ar_tsv_unescape(char *s);
void ar_tsv_escape(struct ar_buf *b, const char *s);
void ar_tsv_put(FILE *f, const char *s);

#endif
