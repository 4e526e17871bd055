/* imports.h: the logs of other autoresearch tools, read one way for
 * every reader: karpathy/autoresearch's results.tsv and
 * pi-autoresearch's autoresearch.jsonl. This module decides which
 * column or key is the metric, which direction is better, which
 * statuses a run may have and what every row must hold; ar-ledger import
 * turns the rows into unsigned results (ar-ledger(5)), ar-digest -F into
 * its Imported log section (ar-digest(1)).
 *
 * The rule:
 * - results.tsv: TSV without escapes (a CR that ends a line is dropped)
 *   whose header has a status column and a metric column; commit,
 *   memory_gb and description are optional, and every other column is
 *   an extra, kept as written. Names match in any case; decision,
 *   verdict or outcome stand for a missing status, git_commit,
 *   commit_hash or commit_sha for a missing commit. The metric is the
 *   column the caller names (-m), else val_bpb, else the first column
 *   of no other use that holds a number in some row and nothing else
 *   in a kept row, and whose name does not name or date a run (exp_id,
 *   iter, timestamp: names_a_run), else the first column of no other
 *   use. Lower is better as the caller says (-d), else when the name
 *   ends (in any case) in bpb, bpc, loss, ppl, perplexity, nll, mse,
 *   mae, mape, err, error, wer, cer, fid, latency, time, seconds, _ms,
 *   _us, _ns, µs, bytes, _mb or _gb; higher otherwise.
 *   A status is keep, discard or crash in any case, or any other word,
 *   kept as written (an "other" run). A metric and memory_gb are finite
 *   numbers or missing: empty, or NA, N/A, nan, null, none, - or ?. A
 *   metric that is a word (DIVERGED) in a run not kept is missing too,
 *   the word kept as the extra of its name; a kept run has a metric. A
 *   crash has no metric and, when it says 0 (as karpathy/autoresearch
 *   writes for a crash), no memory_gb.
 * - autoresearch.jsonl (a CR that ends a line is dropped; a line with
 *   an integer past 64 bits is read with its numbers as doubles): a
 *   config line sets, for the lines after it, the
 *   keys it has: metricName (default "metric"), bestDirection ("lower"
 *   or "higher"; default "lower", as pi-autoresearch's own) and name.
 *   A config line after a run starts a new session (numbered from 1):
 *   sessions are never pooled, as their metrics may differ. Run lines
 *   (a "run" key, no "type") have a non-empty status: keep, discard,
 *   crash, checks_failed or any other, kept as written; a "metric"
 *   that is a number, null or absent (not in a kept run), none for a
 *   crash (pi writes 0); "metrics" whose values are numbers; "asi",
 *   any JSON value, kept; a "timestamp", when there is one, is a number
 *   of seconds or (above 1e11) milliseconds since 1970, before year
 *   10000. Other lines are skipped and counted. */
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
	AR_IMPORT_CHECKS_FAILED, AR_IMPORT_OTHER };

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

/* A results.tsv column of no known use, as written. */
struct ar_import_extra {
	const char *name;    /* the header's, owned by struct ar_import */
	char *text;
};

/* What a caller may choose for a results.tsv; a pi log's config lines
 * choose for it. */
struct ar_import_opt {
	const char *metric;  /* the metric's column; NULL: the rule */
	int lower;           /* 1 lower, 0 higher is better; -1 by name */
};

/* One run. Strings are NULL where the log has none; they live as long as
 * the struct ar_import. */
struct ar_import_row {
	size_t lineno;
	/* What makes the row itself: a pi line as it is in the file; a
	 * results.tsv row's commit, metric, memory_gb, status and
	 * description fields, as they are ("" where a column is missing),
	 * joined by tabs in that order, then "\tNAME=TEXT" for each extra. */
	const char *ident;
	const char *metric;  /* the primary metric's name */
	int lower;           /* lower is better */
	int status;          /* an AR_IMPORT_ status */
	const char *status_text; /* as the log writes it */
	size_t session_no;   /* from 1; a results.tsv is one session */
	double value;        /* the metric; NaN for a crash, or none logged */
	double logged;       /* the metric as logged, a crash's 0 included;
	                      * NaN when none is */
	double memory_gb;    /* NaN when none, or a crash's 0 */
	const char *commit;
	const char *description;
	const char *session; /* pi: the config's name */
	struct ar_import_metric *metrics; /* pi: "metrics", in its order */
	size_t nmetrics;
	struct ar_import_extra *extra; /* results.tsv: non-empty extras */
	size_t nextra;
	char *asi;           /* pi: "asi" as compact JSON; NULL if none */
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
	size_t nsession;     /* sessions with runs */
	size_t skipped;      /* pi: lines without a run, config lines aside */
	char **col;          /* results.tsv: the header, as written */
	size_t ncol;
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

/* The columns of a results.tsv header by their use, as the reader takes
 * them (names in any case, and their forks' names): each an index into
 * hdr, or -1. The export writes an imported row back through them. */
enum { AR_IMPORT_COL_COMMIT, AR_IMPORT_COL_MEM, AR_IMPORT_COL_STATUS,
	AR_IMPORT_COL_DESC, AR_IMPORT_NCOL };
void ar_import_roles(char *const *hdr, size_t n, int *c);

/* AR_IMPORT_AUTORESEARCH or AR_IMPORT_PI for "autoresearch" or "pi";
 * -1 for any other name. */
int ar_import_kind(const char *name);
/* Reads a whole log of that kind from f (named name in messages) into
 * imp, with the caller's choices o (NULL: none). 0, or -1 with e set and
 * imp empty. A read error, a carriage return or a line over AR_LINE_MAX
 * in a pi log end the process as ar_jsonl_line does. */
int ar_import_read(struct ar_import *imp, int from, FILE *f,
	const char *name, const struct ar_import_opt *o,
	struct ar_import_err *e);
/* Lower is better for a metric of that name, by the rule above. */
int ar_import_lower_by_name(const char *metric);
/* 1 when the header is karpathy/autoresearch's own: commit, the metric,
 * memory_gb, status, description, in that order. */
int ar_import_std_header(const struct ar_import *imp, const char *metric);
/* Leaves only the rows of one session (a digest's chart of the last). */
void ar_import_keep_session(struct ar_import *imp, size_t session_no);
void ar_import_free(struct ar_import *imp);

#endif
