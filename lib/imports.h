/* imports.h: the logs of other autoresearch tools, read one way for
 * every reader: karpathy/autoresearch's results.tsv and
 * pi-autoresearch's autoresearch.jsonl. This module decides which
 * column or key is the metric, which direction is better, which
 * statuses a run may have and what every row must hold; ar-ledger import
 * turns the rows into unsigned results (ar-ledger(5)), ar-digest -F into
 * its Imported log section (ar-digest(1)).
 *
 * The rule:
 * - results.tsv: TSV without escapes with the columns commit, memory_gb,
 *   status and description, and the metric: val_bpb when there is one,
 *   else the first other column. Every row has a commit, a finite
 *   number as its metric and as memory_gb (karpathy/autoresearch writes
 *   0 for a crash) and the status keep, discard or crash. Lower is
 *   better when the metric's name ends in bpb or loss, higher otherwise.
 * - autoresearch.jsonl: a config line sets, for the lines after it, the
 *   keys it has: metricName (default "metric"), bestDirection ("lower"
 *   or "higher"; default "lower", as pi-autoresearch's own) and name
 *   (the session). Run lines (a "run" key, no "type") have a status
 *   keep, discard, crash or checks_failed; a "metric" that is a number,
 *   null or absent (not in a kept run); "metrics" whose values are
 *   numbers; a "timestamp", when there is one, is a number of seconds
 *   or (above 1e11) milliseconds since 1970, before year 10000. Other
 *   lines are skipped and counted. */
#ifndef AR_IMPORTS_H
#define AR_IMPORTS_H

#include <stddef.h>
#include <stdio.h>

enum { AR_IMPORT_AUTORESEARCH, AR_IMPORT_PI };

/* The first second of year 10000: a pi timestamp (seconds, or
 * milliseconds above 1e11) must fall from 1970 to before it. */
#define AR_IMPORT_TIME_MAX 253402300800.0

/* A run's status. */
enum { AR_IMPORT_KEEP, AR_IMPORT_DISCARD, AR_IMPORT_CRASH,
	AR_IMPORT_CHECKS_FAILED };

/* A JSON number as the log wrote it: integer or real. */
enum { AR_IMPORT_NONE, AR_IMPORT_INT, AR_IMPORT_REAL };
struct ar_import_num {
	int kind;            /* AR_IMPORT_NONE, _INT or _REAL */
	long long i;         /* the value of an integer */
	double d;            /* the value, either kind */
};

struct ar_import_metric {
	char *name;
	double value;
};

/* One run. Strings are NULL where the log has none; they live as long as
 * the struct ar_import. */
struct ar_import_row {
	size_t lineno;
	/* What makes the row itself: a pi line as it is in the file; a
	 * results.tsv row's commit, metric, memory_gb, status and
	 * description fields, as they are, joined by tabs in that order. */
	const char *ident;
	const char *metric;  /* the primary metric's name */
	int lower;           /* lower is better */
	int status;          /* an AR_IMPORT_ status */
	const char *status_text; /* as the log writes it */
	double value;        /* the metric; NaN for a crash, or none logged */
	double logged;       /* the metric as logged, a crash's 0 included;
	                      * NaN when none is */
	double memory_gb;    /* NaN when none (pi) */
	const char *commit;
	const char *description;
	const char *session; /* pi: the config's name */
	struct ar_import_metric *metrics; /* pi: "metrics", in its order */
	size_t nmetrics;
	struct ar_import_num run, confidence; /* pi: an integer; a number */
	double finished;     /* pi: timestamp in seconds, from 0 to below
	                      * AR_IMPORT_TIME_MAX; NaN when none */
};

struct ar_import {
	int from;            /* AR_IMPORT_AUTORESEARCH or AR_IMPORT_PI */
	const char *metric;  /* the metric and direction in force at the */
	int lower;           /* end of the log */
	struct ar_import_row *row;
	size_t nrow;
	size_t skipped;      /* pi: lines without a run, config lines aside */
	char **str;          /* names the rows share */
	size_t nstr;
};

/* Why a log was refused. msg is the whole message, "NAME: line N: ...";
 * for the kinds below, field, value and expected hold its parts. */
enum {
	AR_IMPORT_E_FORMAT,  /* not TSV or JSON Lines as the format says */
	AR_IMPORT_E_NUMBER,  /* field's value is not a finite number */
	AR_IMPORT_E_VALUE,   /* field's value is not one of expected */
	AR_IMPORT_E_ROW,     /* anything else about a row or the header */
};
struct ar_import_err {
	int kind;
	size_t lineno;       /* 0 for the header */
	char field[64], value[256], expected[64];
	char msg[1024];
};

/* AR_IMPORT_AUTORESEARCH or AR_IMPORT_PI for "autoresearch" or "pi";
 * -1 for any other name. */
int ar_import_kind(const char *name);
/* Reads a whole log of that kind from f (named name in messages) into
 * imp. 0, or -1 with e set and imp empty. A read error, a carriage
 * return or a line over AR_LINE_MAX in a pi log end the process as
 * ar_jsonl_line does. */
int ar_import_read(struct ar_import *imp, int from, FILE *f,
	const char *name, struct ar_import_err *e);
void ar_import_free(struct ar_import *imp);

#endif
