/* digest.h: what the files of ar-digest share. One struct digest holds
 * the state of a run of ar-digest (what was read, the sections built from
 * it) and goes by pointer to every call. The files, by job:
 *   main.c       options, the order of the work, output files
 *   ledger.c     reading the ledger export (-l), the goal (-C)
 *   sections.c   the sections built from the ledger, the phase, curves
 *   spools.c     the ideas and queue spools (-i, -q), staleness
 *   imported.c   a karpathy/autoresearch or pi-autoresearch log (-F)
 *   output.c     the sections as Markdown, JSON or an HTML page
 *   staircase.c  the progress pictures (--svg, and in --html) */
#ifndef AR_DIGEST_H
#define AR_DIGEST_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"
#include "campaign.h"
#include "hmap.h"
#include "id.h"
#include "imports.h"
#include "json.h"
#include "manifest.h"
#include "stats.h"

/* Fixed sizes keep the single pass free of per-row allocation; what
 * does not fit is counted and reported as left out. */
#define KEEP 32          /* near-misses, crashes, invalid kept */
#define NK 64            /* distinct k with a best-at-k */
#define TXT 128          /* labels, reasons, ideas: truncated */
#define LB_MAX 50        /* rows of the leaderboard and like tables */
#define NSECT 24

enum { V_KEEP, V_DISCARD, V_EQUIV, V_INCONC, V_CRASH, V_TIMEOUT, V_INVALID,
	V_OTHER, V_N };
extern const char *const vname[V_N];

struct item {            /* one remembered result */
	double r, lo, hi;
	double conf;         /* the interval's confidence (ratio.conf) */
	double rf, rfb;      /* share of the roofline: method, baseline */
	char bound[8];       /* "memory" or "compute"; "" when unknown */
	long k;
	int v;
	char id[AR_ID_MAX + 1], label[TXT], why[TXT];
	char idea[AR_ID_MAX + 1], wl[TXT];
};

/* Every scored result of a method at one k, pooled by inverse variance
 * (ar_pool, as ar-sched next reads the ledger): the best so far is the
 * pooled estimate, not the luckiest of several measurements. */
struct kpool {
	long k;
	struct ar_pool p;
	size_t n, nkeep, nuse; /* results; keeps; keep/equivalent/inconclusive */
	double est, lo, hi;  /* set by build() */
	struct item last;    /* the latest result (by id): its verdict, id */
};

/* A method on one workload. */
struct method {
	char *hash, *label, *wl;
	size_t n, nv[V_N];
	long kmin, kmax;
	int has_best;
	struct kpool *kp, *bp; /* per k; bp the best pool with a use */
	size_t nkp;
};

struct point {           /* one staircase point, only for --svg/--html */
	size_t id;           /* offset of the id in the arena; after its NUL,
	                      * a keep's idea title or label, NUL */
	const char *idp;     /* the id, once the arena is complete */
	float r;
	unsigned char cls;   /* 0 keep, 1 other verdict, 2 failure */
};

/* What the ledger export holds, aggregated in one pass. */
struct results {
	size_t rows, taken, unsigned_, unverified, aa, nv[V_N];
	struct method *m;    /* open addressing, a power of two */
	size_t mcap, mn;
	int has_best, mixed_wl;
	struct item near[KEEP], crash[KEEP], inval[KEEP];
	size_t nnear, ncrash, ninval, tnear, tcrash, tinval;
	size_t wnear, wcrash, winval;  /* the last of each, once full */
	double *rsd;
	size_t nrsd, caprsd;
	char metric[TXT], workload[TXT], device[16], first[64], last[64];
	int mixed_metric;
	struct point *pt;
	size_t npt, cappt;
	struct ar_buf ids;
	int want_points;
};

/* The goal and the baseline, from a campaign (-C): the problem's
 * manifest, and the baseline's own figure as every result measured it. */
struct goal {
	int on;
	struct ar_campaign c;
	struct ar_manifest m;
	char col[160];       /* baseline.METRIC.median */
	double *bv;
	size_t nb, cap;
};

/* Staleness: what landed in the ledger while a method was written.
 * Every taken result's finish time, and each taken result of an idea
 * with its start; the ideas spool gives each idea's creation time. */
struct ideastart {
	char idea[AR_ID_MAX + 1];
	double started;
};
struct ideatime {
	char id[AR_ID_MAX + 1];
	double created;
	size_t seq;          /* the order read: the first of an id matches */
};
struct stale_in {
	double *fin;
	size_t nfin, capfin;
	struct ideastart *ist;
	size_t nist, capist;
	struct ideatime *itime;
	size_t nitime, capitime;
	/* Every taken result's [started, finished], A/A too: when the
	 * measurement devices were busy. */
	double (*busy)[2];
	size_t nbusy, capbusy;
};

/* A category or a source of ideas, counted. */
struct tally {
	char *key;
	size_t n, nv[4];     /* by spool directory: new, cur, done, failed */
};
struct tallies {
	struct tally *a;
	size_t n, cap;
	struct ar_hmap ix;   /* a's positions by key */
};

/* An imported log (-F) and its summary. */
enum { L_KEEP, L_DISCARD, L_CRASH, L_OTHER, L_N };
struct logsum {
	const char *from;    /* "autoresearch" or "pi"; NULL without -F */
	struct ar_import imp;
	char metric[TXT], best_commit[TXT], best_desc[TXT];
	size_t n[L_N];
	double best;
	int has_best, lower;
};

/* One section of the digest: rows of cells, rendered three ways. */
struct sect {
	const char *key, *title;
	int kv;              /* two columns, item and value: an object in JSON */
	size_t ncol;
	const char *col[16];
	const char *type;    /* per column: s string, n number, i integer */
	char **cell;
	size_t nrow, cap;
	size_t more;         /* items counted but not kept */
	const char *note;    /* a line under the heading */
	const char *rowtype; /* kv: the type of each row's value */
};

/* An idea of the ideas spool (-i): its title, state and why it failed,
 * sorted by id, so that results name their idea by its title. */
struct idearec {
	char id[AR_ID_MAX + 1], title[TXT], state[8], why[TXT];
};

/* A spool's health: records per state, holders of leases, leases
 * expired, records that could not be read. */
struct health {
	size_t cnt[4], nh, expired, bad;
};

struct digest {
	struct results D;
	struct idearec *idea;
	size_t nidea;
	struct health ih;    /* the ideas spool's, read with its ideas */
	struct goal GL;
	struct stale_in st;
	struct tallies cat, src;
	long long now_s;     /* AR_NOW, or the clock */
	struct logsum G;
	json_t *curves;      /* the curves read (-c), for --html to draw */
	struct sect S[NSECT];
	char stale_note[128];
	size_t nsect;
};

/* ledger.c */
void cpy(char *dst, size_t n, const char *s);
void read_goal(struct digest *dg, const char *dir);
void read_ledger(struct digest *dg, FILE *f, const char *name);
int better(const struct item *a, const struct item *b);

/* sections.c */
struct sect *sect(struct digest *dg, const char *key, const char *title,
	const char *type, ...);
void row(struct sect *s, ...);
const char *f3(char *b, double v);
const char *fi(char *b, size_t v);
void build(struct digest *dg, const char *curves);

/* spools.c */
void build_spools(struct digest *dg, const char *ideas, const char *queue);
void read_ideas(struct digest *dg, const char *ideas);
const char *idea_title(const struct digest *dg, const char *id);

/* imported.c */
void read_log(struct digest *dg, const char *from, const char *path,
    const struct ar_import_opt *o);
void build_log(struct digest *dg);
int log_cls(int status);

/* output.c */
void md(const struct digest *dg, size_t budget);
void json_out(const struct digest *dg);
void html(const struct digest *dg, const char *path);
FILE *out_open(const char *path, char **tmp);
void out_close(FILE *f, const char *path, char *tmp);

/* staircase.c */
void staircase(const struct results *D, FILE *f, int decl);
void staircase_log(const struct logsum *G, FILE *f, int decl);

#endif
