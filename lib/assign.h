/* assign.h: an assignment, one experiment the scheduler chose: a row of
 * ar-sched next's TSV and, queued, a record of the campaign's queue/ that
 * ar-run runs. This module alone reads and writes both forms; ar-spool(5)
 * is the format. */
#ifndef AR_ASSIGN_H
#define AR_ASSIGN_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "id.h"

#define AR_ASSIGN_GPUS 1024

struct ar_assign {
	char experiment[AR_ID_MAX + 1];
	const char *method;      /* NULL for an A/A (purpose "aa") */
	const char *workload, *idea, *purpose, *node, *label, *why;
	const char *queued;      /* when it was queued, RFC 3339 */
	long k;
	int gpus[AR_ASSIGN_GPUS];/* the bundle's GPUs, when placed */
	size_t ngpus;
	long priority;
	long pmin, pmax;         /* ar-bench's --sched-pairs, or 0 */
	double stop_at;          /* ar-bench's --stop-at, or 0 */
	double prior_lo, prior_hi; /* its --stop-prior, or 0 */
	double value;            /* the policy's value; NAN when none */
	char bad[256];           /* why it cannot run, or "" */
};

/* Reads a queue record; id is the record's own id, the experiment when
 * the record names none. The strings point into o. a->bad says what is
 * wrong, if anything. */
void ar_assign_parse(const json_t *o, const char *id, struct ar_assign *a);
/* The same, from the record's text in the plain form ar-queue writes
 * (a flat object of strings and integers, no escapes, no white space
 * but at its end): then 0, with the strings in store (at least len + 1
 * bytes), and a as ar_assign_parse gives; -1 when the text is not of
 * that form, to be read by jansson and ar_assign_parse. */
int ar_assign_parse_text(const char *text, size_t len, const char *id,
	struct ar_assign *a, char *store, size_t storelen);
/* The queue record of an assignment. */
json_t *ar_assign_record(const struct ar_assign *a);
/* The queue record of one row of ar-sched next's TSV (columns by name,
 * hdr and field of ncol); NULL with err when the row is malformed. */
json_t *ar_assign_from_row(char *const *hdr, char *const *field,
	size_t ncol, char *err, size_t errlen);
/* Parses "0,2,3": distinct indices below AR_ASSIGN_GPUS; -1 on garbage. */
int ar_assign_gpus(const char *s, int *out, size_t max, size_t *n);
/* ar-sched next's TSV: its header line and one row. */
void ar_assign_tsv_header(FILE *f);
void ar_assign_tsv_row(FILE *f, const struct ar_assign *a);

#endif
