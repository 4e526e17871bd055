/* next.h: what ar-sched next knows of a campaign: the methods submitted,
 * what the ledger says of each at each k, the nodes' noise floors and
 * what is queued. methods.c and next-read.c read it; next.c decides on
 * it. */
#ifndef AR_SCHED_NEXT_H
#define AR_SCHED_NEXT_H
#include <stddef.h>

#include "inventory.h"
#include "policy.h"

struct meth {
	char *id, *method, *idea, *label, *category, *workload;
	int hint;
	double pfrac;
	struct ar_pol_obs at[AR_POL_NK];
	char fin[AR_POL_NK][40];   /* when the latest result finished */
	int scored[AR_POL_NK];
	/* Every scored result of a scale, pooled in log space by inverse
	 * variance: a re-measurement narrows the estimate, as the
	 * policy (and ar-sched simulate) count on. */
	double lsum[AR_POL_NK], wsum[AR_POL_NK];
};

/* A node's latest A/A. */
struct noise {
	char *node, fin[40], exp[64];
	double v;
};

struct nx {
	const char *camp, *workload, *dflt_wl;
	struct meth *m;
	size_t nm, capm;
	struct meth **byname;      /* m sorted by method */
	struct noise *nz;
	size_t nnz;
	char **aa_pending;         /* nodes whose A/A is queued */
	size_t naa;
	double used_h, min_effect;
	/* The seconds verified measurements took: how many at each k,
	 * the median at each k (the upper one of two) and of all k. */
	size_t nsecs[AR_POL_NK];
	double secs_med[AR_POL_NK], secs_all_med;
	size_t left_unverified;
	/* The baseline's primary metric per k, from every verified row of
	 * the workload: each result measures the baseline beside its method
	 * at the same k, so its scaling is known without runs of its own. */
	const char *metric;
	double base_med[AR_POL_NK]; /* the median, as ar_median takes it */
	size_t nbase[AR_POL_NK];
	int lower;                 /* the metric is lower-is-better */
};

/* What the verified rows say before they meet the methods, so that it
 * can be kept between runs (summary.c): per method name (a row's commit
 * and, when it differs, its directory) and workload, each k's count,
 * pooled sums and latest row; the nodes' A/As; the times measurements
 * took; the baseline's metric per workload and k. Rows are folded in
 * storage order, so the sums come out the same, bit for bit, whether
 * they are folded at once or some now and the rest in a later run. */
struct kstat {
	long n;
	int feasible, scored;
	double lsum, wsum;
	char fin[40];
};

struct akey {
	char *name, *workload;
	struct kstat at[AR_POL_NK];
};

/* A growing list of numbers, sorted up to nsorted, kept for its median.
 * A summary keeps only a window of it around the median (DLIST_KEEP
 * values, below and above counting the rest): a median stays exact while
 * its ranks are in the window, which takes thousands of new values on
 * one side to leave; then the summary is rebuilt (dlist_median). */
struct dlist {
	double *v;
	size_t n, cap, nsorted;
	size_t below, above;
};
#define DLIST_KEEP 8192
#define DLIST_MAX (1 << 20)   /* the most a summary's list may hold */

struct wbase {
	char *workload;
	struct dlist at[AR_POL_NK];
	int lower;
};

struct agg {
	struct akey *key;
	size_t nkey, capkey;
	size_t *slot, nslot;       /* hash of (name, workload): key + 1 */
	struct noise *nz;
	size_t nnz;
	struct wbase *wb;
	size_t nwb;
	double used_h, min_effect; /* min_effect: NAN until a row has one */
	struct dlist secs[AR_POL_NK], secs_all;
	size_t left_unverified, rows;
	const char *metric;        /* the problem's; NULL when none */
};

/* How a ledger export is read: with want_seg, its column "segment"
 * (ar-ledger export -A); before_loose is called once, before the first
 * row of no segment (a loose result), or at the end when there is
 * none; maxseg is the largest segment seen. */
struct fold {
	int want_seg;
	unsigned long maxseg;
	void (*before_loose)(struct agg *, void *);
	void *arg;
	/* When set: each segment's rows are folded into seg (empty at
	 * first), then seg_done(total, seg, number, arg) is called, which
	 * merges it into total and leaves seg empty again. */
	void (*seg_done)(struct agg *, struct agg *, unsigned long, void *);
	struct agg *seg;
	/* When set: called with arg before the rows are refused as
	 * malformed, so that a reader of a program's output can say first
	 * that the program failed (it then does not return). */
	void (*bad)(void *);
	/* With soft, rows refused as malformed set failed and end the fold
	 * instead of the program (fold_file's threads, whose line numbers
	 * are not the file's: it folds the file again, on one thread). */
	int soft, failed;
	/* When set (an export given -K): a row whose signed column says
	 * "known" takes its values from known(arg, id, v), which fills
	 * v[0] to v[FV_KEEP - 1] and returns 0, or -1 for an id it did not
	 * list; and each loose row folded, known or read, goes to
	 * loose_row(arg, id, v) to be kept. */
	int (*known)(void *arg, const char *id, const char **v);
	void (*loose_row)(void *arg, const char *id, const char *const *v);
};

/* The columns fold_ledger reads (beside signed, verified, segment and
 * the baseline's): fold_cols, which the export is asked for (-c); a
 * row's values are v[FC_...], then v[FV_BASE], the baseline's median of
 * the problem's metric; FV_KEEP of them are a loose row's, kept by the
 * summary (struct fold's known). */
enum {
	FC_WL, FC_K, FC_VERDICT, FC_COMMIT, FC_DIR, FC_NODE, FC_AA, FC_Y,
	FC_LO, FC_HI, FC_GUARD, FC_RSD, FC_HALF, FC_FIN, FC_START, FC_EXP,
	FC_ME, FC_DIRN, FC_CONF, FC_N
};
enum { FV_BASE = FC_N, FV_KEEP, FV_SIGNED = FV_KEEP, FV_VER, FV_SEG,
	FV_ID, FV_N };
/* Their names, as the export is asked for them. */
extern const char *const fold_cols[FC_N];

void agg_init(struct agg *a, const char *metric);
void agg_free(struct agg *a);
struct akey *agg_key(struct agg *a, const char *name, const char *workload,
    int create);
struct wbase *agg_wbase(struct agg *a, const char *workload, int create);
void dlist_add(struct dlist *l, double v);
/* The value at rank r (from 0) of a sorted list; -1 when the window
 * does not hold it. */
int dlist_at(const struct dlist *l, size_t r, double *v);
/* 1 when every median a decision takes of a is in its window. */
int agg_exact(const struct agg *a);
/* Adds b, the fold of later rows, to a: the same a as folding b's rows
 * after a's, but for the last bits of the sums. */
void agg_merge(struct agg *a, const struct agg *b);
/* Sorts what was added since the last call: the lists are sorted after. */
void agg_sort(struct agg *a);
/* Folds the rows of a ledger export f (named name) into a. */
void fold_ledger(struct agg *a, FILE *f, const char *name, struct fold *fo);
/* Folds one row's values (v[FC_...] and v[FV_BASE]) into a; -1 when its
 * shape.k is not a whole number from 1 to 65536. */
int fold_values(struct agg *a, const char *const *v);
/* Folds the rows of a sealed ledger segment (its len bytes at p) into a,
 * empty, as ar-ledger export -V gives them (its unsigned rows left out,
 * the rest checked when it was sealed), reading each line's fields only
 * up to the last the fold needs: the json, most of each line, is not
 * split. -1 when they are not a segment the fold can read; the export
 * then reads it, and says why. */
int fold_segment(struct agg *a, const char *p, size_t len);
/* The columns fold_ledger reads, comma-separated, for ar-ledger export
 * -c (the baseline's of metric too, when given); the caller frees. */
char *fold_columns(const char *metric);
/* fold_ledger of an export given whole (next -l): a regular file of 64
 * KiB or more is cut at lines into one part a thread (AR_THREADS, else
 * the online CPUs, at most 16), each folded beside the others and the
 * folds merged in order; anything else, or a part refused, on one
 * thread, which says why with the file's own line numbers. */
void fold_file(struct agg *a, FILE *f, const char *name);
/* The threads a decision may read on: AR_THREADS, else the online
 * CPUs; 1 to 16. */
int sched_threads(void);
/* What a says of x's methods, nodes and baseline; a's lists go to x. */
void apply_agg(struct nx *x, struct agg *a);

/* summary.c: the summary of the campaign's ledger and queue, kept in
 * run/sched-summary and run/sched-queue. */
struct summ;
/* Loads the summary (a missing or unusable one is an empty one, and
 * said so when it was there); with ledger NULL, brings it up to date
 * from the rows ar-ledger export -V -A gives, else from the export
 * ledger without keeping it. Fills x as read_known does. With qdir,
 * the queue summ_queued will read, listed meanwhile when the summary
 * knows none of it. */
struct summ *summ_known(struct nx *x, const char *ledger,
    const char *metric, const char *qdir);
/* What the queue holds, each record file read only when the summary
 * does not know its name: the measurements pending, the nodes whose A/A
 * is queued (x), the GPUs queued records were placed on (inv). */
void summ_queued(struct summ *sm, struct nx *x, struct ar_inv *inv,
    const char *qdir);
/* Writes the summary if it changed (tmp, fsync, rename) and frees it. */
void summ_close(struct summ *sm);
/* The folds of the segments after the newest one with a good fold
 * (ar-sched fold); how many segments it folded. */
size_t summ_fold(struct nx *x, const char *metric);

/* The methods: from the submissions file subm ("-": standard input), or
 * when NULL from the campaign's submitted/ spool. One submitted twice
 * (same id and workload) is taken once, as it was first. */
void read_methods(struct nx *x, const char *subm);
/* n pending measurements (queued) of a method name at k index ki. */
void add_pending_named(struct nx *x, const char *method,
    const char *workload, int ki, long n);
/* The baseline's parallel fraction by Amdahl's law, from its median
 * metric at k=1 and at each larger k measured, weighted by the runs; 0
 * when there is no such pair (unknown to the policy). how lists the
 * larger k. */
double base_pfrac(const struct nx *x, char *how, size_t n);
/* The node's latest A/A, under its name or its long or short form;
 * NULL when none. */
const struct noise *noise_of(const struct nx *x, const char *node);
/* Whether an A/A is queued for node (an index into inv). */
int aa_queued(const struct nx *x, const struct ar_inv *inv, size_t node);
void free_nx(struct nx *x);

#endif
