/* ar-ledger.h: what the files of ar-ledger share. One struct lctx holds the
 * state of a run of ar-ledger (its campaign, its ledger, the method
 * hashes computed so far) and goes by pointer to every call. The files,
 * by job:
 *   main.c     options, the campaign, dispatch to a subcommand; compact
 *   check.c    the checks of one row, on every core
 *   canon.c    a signed row's JSON read into its flat columns
 *   segseal.c  segment seals, and the loose results' seal: written,
 *              and trusted when they hold
 *   verify.c   reading the whole ledger in batches; verify
 *   methods.c  the method hashes of methods/, cached
 *   export.c   export as TSV, JSON Lines or a results.tsv
 *   store.c    append, and import through lib/imports */
#ifndef AR_LEDGER_CMD_H
#define AR_LEDGER_CMD_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "buf.h"
#include "campaign.h"
#include "crypto.h"
#include "err.h"
#include "flat.h"
#include "id.h"
#include "ledger.h"

/* Batches larger than this become one segment instead of loose files. */
#define LOOSE_MAX 16
#define BATCH 4096

/* Methods in the campaign's methods/ repository, by commit: the hash of
 * their content, computed once per commit, or "" when the commit is not
 * there (a method given as a directory, or from elsewhere). */
struct mcache {
	char commit[65];
	char hash[AR_HASH_HEX];
};

/* What a seal says of its segment, checked when it was sealed. */
struct segsum {
	size_t rows;         /* every row, good */
	size_t unsigned_;    /* of them, unsigned (imported) */
	size_t unchecked;    /* signed, with a method not rehashed */
};

struct lctx {
	struct ar_campaign camp;
	struct ar_ledger led;
	struct mcache *mc;          /* sorted by commit */
	size_t nmc, capmc;
	/* export -V: method hashes are kept in run/method-hashes between
	 * runs (a commit's tree never changes); verify rehashes all. */
	int mc_keep, mc_loaded, mc_new;
	/* The state of methods/'s objects when the cache was loaded: a
	 * commit found missing stays so while it holds (mcache_stamp). */
	char mc_stamp[AR_HASH_HEX];
	/* The campaign's secret key, for seals (segseal.c), once read. */
	unsigned char sk[AR_SK_BYTES];
	int sk_tried, have_sk;
	size_t methods_unchecked; /* verified rows whose method was not
	                           * rehashed */
};

/* A segment header, shared by the jobs of its rows. */
struct hdr {
	size_t ncol;
	char **name;
};

/* One row to check. */
struct job {
	char *json;
	size_t len;
	char *where;
	char **cols;         /* a segment row's stored fields but json;
	                      * one allocation with them, and json */
	int json_in_cols;    /* json lies in cols' allocation */
	const struct hdr *h;
	int status;          /* an ST_ value */
	int malformed;       /* not JSON, or not an object */
	int stored;          /* read from the ledger, hence canonical */
	char fileid[AR_ID_MAX + 1]; /* the id its file name or column gives */
	char id[AR_ID_MAX + 1];
	char commit[65];     /* method.commit, when a git commit id */
	char mhash[AR_HASH_HEX]; /* method.hash */
	char why[320];
	int trusted;         /* of a sealed segment, or a loose result
	                      * its seal lists: not checked again */
	long segi;           /* its segment in the ledger, or -1 (loose) */
	int loose;           /* a loose result's file */
	char chash[AR_HASH_HEX]; /* of a loose result: its bytes' hash */
};

/* A loose result found good, as ledger/loose.seal lists it. */
struct lent {
	char name[AR_ID_MAX + 1];  /* the id its file is named by */
	char hash[AR_HASH_HEX];    /* BLAKE2b of its JSON as read (the
	                            * file's bytes but a last newline) */
	int unsigned_;             /* an import's unsigned row */
	char mhash[AR_HASH_HEX];   /* method.hash, or "" */
	char commit[65];           /* method.commit, or "" */
};

/* The loose seal as read (sorted by name), and the results this run
 * found good, which the next seal lists. */
struct lseal {
	struct lent *e;
	size_t n;
	struct lent *k;
	size_t nk, capk;
};

enum { ST_OK, ST_BAD, ST_UNSIGNED };

/* Jobs being checked on every core while the caller goes on. */
struct pool {
	const struct ar_campaign *camp;
	const unsigned char *sk;
	struct job *jobs;
	size_t n;
	atomic_size_t next;
	pthread_t tid[16];
	int started;
};

/* The ledger read in batches of jobs, and what verify found. */
struct scanner {
	struct lctx *cx;
	struct job *jobs;
	size_t n;
	struct job *pend;    /* the batch being checked meanwhile */
	size_t npend;
	int in_flush;        /* finishing a batch: its problems said now */
	struct ar_buf later; /* problems found while a batch was pending */
	struct pool pool;
	struct hdr **hdrs;
	size_t nhdr;
	const char *last_src;
	char **last_hdr;
	void (*flush)(struct scanner *);
	/* verify */
	size_t ok, unsigned_, total;
	int strict;
	char **ids;
	size_t nids, capids;
	/* Per id, until they are sorted: from a segment's row (a loose
	 * result was looked up in the segments when the ledger was read). */
	unsigned char *idseg;
	char *cut_lo, *cut_hi; /* prepare_cut's bounds from indexes */
	size_t bad;          /* problems found */
	char **badids;       /* ids stored twice */
	size_t nbadids, capbadids;
	char **badwhere;     /* where the bad rows are */
	size_t nbadwhere, capbadwhere;
	const char *seg_src;
	struct ar_buf seg_ids;
	FILE *out;           /* where bad rows are named, or NULL */
	int trust_seals;     /* rows of sealed segments are taken as
	                      * checked (not verify -F) */
	unsigned char *sealed; /* per segment of the ledger: its seal is
	                      * good */
	size_t nsealed;      /* segments when the seals were checked */
	struct segsum *sums; /* per segment: its seal's summary, or what
	                      * this run found */
	size_t nsums;
	size_t *skipped;     /* sealed segments not read: their ids come
	                      * from their indexes */
	size_t nskipped;
	long cur_segi;
	const char *cur_src;  /* the segment of the rows being read */
	int cur_sealed;
	long c_commit, c_mhash; /* their columns in cur_src */
	long after;          /* export -A: rows of segments numbered up
	                      * to this are neither checked nor exported;
	                      * -1 for all */
	struct lseal loose;  /* ledger/loose.seal */
	int loose_loaded;    /* read before the scan (export -K) */
};

/* Whether a row is one export -A leaves out: in a segment numbered at
 * most after. */
int before_cut(const struct ar_row *r, long after);

enum { F_TSV, F_JSONL, F_AUTORESEARCH };

/* canon.c */
/* A row's flat columns, as ar_flatten_num gives them, read from its
 * canonical JSON; and what check_job asks of its top level. In f, a kv
 * with v set has num 1 when v came from a JSON string, else 0. */
struct cflat {
	struct ar_flat f;
	int has_sig;         /* a top-level "sig" */
	int reserved;        /* a top-level "signed" or "json" */
};
/* 0 with out filled, or -1 when json is not what canon.c reads (then
 * jansson reads it); out needs ar_flat_free(&out->f) after 0. */
int canon_flat(const char *json, size_t len, struct cflat *out);
/* The string at a flat path, or NULL when there is none there. */
const char *cflat_str(const struct cflat *c, const char *path);

/* store.c: ar-sched fold -C on the campaign, once segments were written
 * (what: the subcommand, for its warning). */
void ledger_fold(struct lctx *cx, const char *what);

/* segseal.c */
/* Nonzero when seg's seal matches the segment as it is now, signed by
 * the campaign's key; sum gets what it says of the rows. SEAL_STALE when
 * that took hashing the segment (its stat is not the one signed, or was
 * signed too soon after its ctime): worth sealing again. */
enum { SEAL_FAST = 1, SEAL_STALE = 2 };
int segseal_good(const struct lctx *cx, const struct ar_seg *seg,
	struct segsum *sum);
/* 1 when this run can read the campaign's secret key, and it is the key
 * of bench.pub (read once). */
int have_key(struct lctx *cx);
/* That key, or NULL. */
const unsigned char *signer(struct lctx *cx);
/* Writes seg's seal, when this run can read the campaign's secret key;
 * 0 when written. known: the hash of the segment's bytes as checked (it
 * is then not hashed again, and a file that differs fails the seal), or
 * NULL to hash it now. */
int segseal_write(struct lctx *cx, const struct ar_seg *seg,
	const struct segsum *sum, const char *known);
/* A seal's summary line, "rows R unsigned U unchecked C\n", exactly;
 * -1 when it is not one or its counts cannot be. */
int segseal_summary(const char *p, size_t len, struct segsum *sum);
/* sealed[i] = segseal_good of each segment numbered after cut, and
 * sums[i] its summary, on every core. */
void segseal_check_all(struct lctx *cx, unsigned long cut,
	unsigned char *sealed, struct segsum *sums);
/* Seals each segment i with want[i] set, from sums[i], on every core. */
void segseal_write_all(struct lctx *cx, const unsigned char *want,
	const struct segsum *sums);
/* ledger/loose.seal: the loose results found good, by name and hash,
 * signed with the campaign's key. parse: 0 with ls->e filled when p is
 * one for this campaign, its SEAL (or "-") and key pk, else -1. */
int looseseal_parse(const char *p, size_t len, const char *camp,
	const char *seal, const unsigned char *pk, struct lseal *ls);
/* Reads the ledger's loose seal; one that is missing or not good is
 * none. */
void looseseal_load(struct lctx *cx, struct lseal *ls);
/* The entry of the result named name with bytes of hash (any, when hash
 * is NULL), or NULL. */
const struct lent *looseseal_find(const struct lseal *ls, const char *name,
	const char *hash);
/* A result this run found good. */
void looseseal_keep(struct lseal *ls, const struct lent *e);
/* Writes the seal of the results kept, when it differs from the one read
 * and the campaign's key can be read. */
void looseseal_write(struct lctx *cx, struct lseal *ls);
/* Adds n results append checked and stored loose to the seal, with
 * those it lists that are still loose. */
void looseseal_add(struct lctx *cx, const struct lent *add, size_t n);
void looseseal_free(struct lseal *ls);

/* check.c */
/* sk, when not NULL, is the campaign's secret key (signer()): stored rows'
 * signatures are checked by signing again (ar_verify_hex_by). */
void check_job(const struct ar_campaign *camp, const unsigned char *sk,
	struct job *j);
void run_jobs(const struct ar_campaign *camp, const unsigned char *sk,
	struct job *jobs, size_t n);
/* Starts checking jobs on every core but one, and returns. */
void jobs_start(struct pool *p, const struct ar_campaign *camp,
	const unsigned char *sk, struct job *jobs, size_t n);
/* Checks what is left of them on this thread too, and waits for all. */
void jobs_wait(struct pool *p);
/* The threads to use: $AR_THREADS, else the cores online (1 to 16). */
int nthreads(void);
void free_jobs(struct job *jobs, size_t n);
/* jansson's allocator for the whole run, before any JSON is made: rows
 * parsed by check_job on a worker use that thread's arena. */
void arena_install(void);

/* verify.c */
int cmp_str(const void *a, const void *b);
char *where_of(const struct ar_row *r);
/* Runs the checks over the whole ledger; prints bad rows as TSV on
 * stdout when print is set, and leaves in s, sorted, where the bad rows
 * are and which ids are stored twice. */
void verify_all(struct lctx *cx, struct scanner *s, int print);
void free_scanner(struct scanner *s);
int cmd_verify(struct lctx *cx, int strict, int full);
/* methods.c */
/* Writes the method hashes computed in this run to run/method-hashes. */
void mcache_save(struct lctx *cx);
/* Which of a batch's commits methods/ lacks, in one git process. */
void mcache_missing(struct lctx *cx, struct job *jobs, size_t n);
/* The hash of a commit of methods/, or "" when it is not there. */
const char *method_hash(struct lctx *cx, const char *commit);
/* 1 when methods/ has a commit (HEAD). */
int methods_in_repo(const struct lctx *cx);
/* check.c: s is n lowercase hex digits, and no more. */
int is_hex(const char *s, size_t n);

/* The exit code of a ledger scan that failed with errno e: its
 * directories or an index missing or unreadable (66), else a failed
 * read (74). A row or segment that cannot be read is no failure of the
 * scan but a bad row. */
static inline int
scan_exit(int e)
{
	return e == ENOENT || e == EACCES || e == ENOTDIR ? AR_EX_NOINPUT :
	    AR_EX_IO;
}

/* The id a row is stored under: its segment's id column, or its file
 * name without ".json". Empty when neither can be read. */
void row_fileid(const struct ar_row *r, char id[AR_ID_MAX + 1]);

/* export.c */
/* known: -K, the file listing the loose results the reader holds
 * ("-": standard input), or NULL. */
int cmd_export(struct lctx *cx, int fmt, int with_unsigned, int verify,
	long after, const char *metric, const char *workload,
	const char *only, const char *known);

/* store.c */
int cmd_append(struct lctx *cx, int argc, char **argv);
int cmd_import(struct lctx *cx, const char *from, const char *file,
	const char *metric, int lower);

#endif
