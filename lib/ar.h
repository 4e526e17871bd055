/* ar.h: the shared library of autoreduce, linked by every command. */
#ifndef AR_H
#define AR_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <signal.h>
#include <sys/types.h>
#include <jansson.h>

/* Exit codes shared by all commands; autoreduce(7) documents them. */
enum {
	AR_EX_OK = 0,
	AR_EX_NO = 1,        /* a check said no: tampering, bad rows, empty queue */
	AR_EX_USAGE = 64,    /* bad command line */
	AR_EX_DATA = 65,     /* malformed input data */
	AR_EX_NOINPUT = 66,  /* missing or unreadable input */
	AR_EX_UNAVAILABLE = 69, /* a needed service is missing: no sandbox */
	AR_EX_SOFTWARE = 70, /* internal error */
	AR_EX_CANTCREAT = 73,/* refusing to overwrite; cannot create: read-only
	                      * filesystem, permission denied */
	AR_EX_IO = 74,       /* read or write failed: full disk, I/O error */
	AR_EX_TEMPFAIL = 75, /* lost a race or a lease, or busy: try again */
};

/* The longest line any reader accepts; longer lines are errors. */
#define AR_LINE_MAX (1024 * 1024)
/* Ids: [A-Za-z0-9._-], this long at most. */
#define AR_ID_MAX 100
#define AR_HASH_HEX 65   /* 64 hex digits of BLAKE2b-256 and a NUL */
#define AR_SIG_HEX 129   /* 128 hex digits of Ed25519 and a NUL */
#define AR_PK_BYTES 32
#define AR_SK_BYTES 64

/* err.c: messages are "prog: what: why"; a format ending in ':' appends
 * strerror(errno). */
void ar_setprog(const char *argv0);
const char *ar_prog(void);
void ar_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void ar_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A function ar_die runs before the process ends: cleanup of half-made
 * work (ar_die ends with _exit, so atexit(3) handlers do not run). */
void ar_on_die(void (*fn)(void));
/* The exit code that fits an errno from a failed write or create. */
int ar_errno_exit(int err);
/* Handles -h/--help and --version before option parsing; returns only when
 * neither was given. usage is the SYNOPSIS text, one line per form. */
void ar_std_args(int argc, char **argv, const char *usage);
_Noreturn void ar_usage(const char *usage);
/* Closes stdout and dies with AR_EX_IO if anything written was lost. */
void ar_fshut(FILE *f, const char *name);
const char *ar_build_id(void);

/* buf.c: a growable byte buffer, always NUL-terminated. */
struct ar_buf {
	char *p;
	size_t len, cap;
};
void *ar_xmalloc(size_t n);
void *ar_xcalloc(size_t n, size_t size);
void *ar_xrealloc(void *p, size_t n);
char *ar_xstrdup(const char *s);
char *ar_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ar_buf_reserve(struct ar_buf *b, size_t extra);
void ar_buf_add(struct ar_buf *b, const void *p, size_t n);
void ar_buf_adds(struct ar_buf *b, const char *s);
void ar_buf_addc(struct ar_buf *b, char c);
void ar_buf_printf(struct ar_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ar_buf_clear(struct ar_buf *b);
/* qsort(3) that accepts no elements and a NULL base. */
void ar_sort(void *base, size_t n, size_t size,
	int (*cmp)(const void *, const void *));
void ar_buf_free(struct ar_buf *b);

/* io.c: bounded line reading and crash-safe files. */
enum { AR_LINE_EOF = 0, AR_LINE_OK = 1, AR_LINE_LONG = -2, AR_LINE_ERR = -1 };
/* Reads one line without its newline into b; returns an AR_LINE_ value.
 * A line longer than max is AR_LINE_LONG; the rest of it is skipped. */
int ar_getline(FILE *f, struct ar_buf *b, size_t max);
/* The next line of JSON Lines input that is not blank, in b; 0 at the
 * end. Dies
 * with the input's name and line on a read error (74), a line over
 * AR_LINE_MAX or a carriage return (65). */
int ar_jsonl_line(FILE *f, const char *name, struct ar_buf *b,
	size_t *lineno);
/* Reads a whole file of at most max bytes; -1 with errno on failure
 * (EFBIG when larger). */
int ar_readfile(const char *path, struct ar_buf *b, size_t max);
/* The last 10 lines of a file, at most 2000 bytes, as valid UTF-8
 * without control characters but newlines and tabs; "" if unreadable. */
char *ar_tail_of(const char *path);
/* Writes data to path so that a crash at any instant leaves either the old
 * file or the new one: tmp in the same directory, fsync, rename, fsync of
 * the directory. -1 with errno on failure; nothing half-written remains. */
int ar_write_atomic(const char *path, const void *data, size_t len, int mode);
/* Creates path with data only if it does not exist (link(2), which holds
 * on NFS). 0 on success, 1 if it existed, -1 with errno on failure. */
int ar_write_new(const char *path, const void *data, size_t len, int mode);
/* Writes all of data to fd; -1 with errno on failure. */
int ar_write_all(int fd, const void *data, size_t len);
int ar_fsync_dir(const char *dir);
/* fsync of the directory that holds path. */
int ar_fsync_parent(const char *path);
int ar_mkdirs(const char *path, int mode);
char *ar_path(const char *a, const char *b); /* a "/" b, malloc'd */
/* Output that replaces path whole: a fresh temporary file beside it,
 * renamed over it by ar_out_close after fsync. A path that exists and is
 * not a regular file (a pipe, /dev/stdout) is written into instead, *tmp
 * NULL. NULL with errno when it cannot be opened. */
FILE *ar_out_open(const char *path, char **tmp);
/* Flushes, syncs and renames; frees tmp. -1 with errno, nothing left
 * half-written at path, on failure. */
int ar_out_close(FILE *f, const char *path, char *tmp);
/* Writes s with the five characters XML reserves escaped. */
void ar_xml_put(FILE *f, const char *s);
/* A name for a temporary file next to path, unique across hosts. */
char *ar_tmpname(const char *dir, const char *base);

/* utf8.c */
/* Returns the offset of the first invalid UTF-8 byte, or -1 if valid. */
long ar_utf8_invalid(const char *s, size_t len);

/* tsv.c: header first, columns found by name, escapes \t \n \r \\. */
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
/* Reads the header. 0 on success, -1 with t->err set. */
int ar_tsv_open(struct ar_tsv *t, FILE *f, const char *name);
/* The same for TSV written by other tools without escapes (raw = 1),
 * such as karpathy/autoresearch's results.tsv. */
int ar_tsv_open_raw(struct ar_tsv *t, FILE *f, const char *name, int raw);
/* The index of a column, or -1. */
int ar_tsv_col(const struct ar_tsv *t, const char *name);
/* The same for a column that must be there: dies (65) naming it. */
int ar_tsv_need(const struct ar_tsv *t, const char *name);
/* 1 with a row in t->field, 0 at the end, -1 with t->err set. */
int ar_tsv_next(struct ar_tsv *t);
void ar_tsv_close(struct ar_tsv *t);
/* Splits one line in place into at most max fields, unescaping each;
 * returns the field count, or -1 with a reason in err. */
int ar_tsv_split(char *line, size_t len, char **fields, size_t max,
	char *err, size_t errlen);
/* Unescapes s in place; -1 on an unknown escape or a trailing backslash. */
int ar_tsv_unescape(char *s);
void ar_tsv_escape(struct ar_buf *b, const char *s);
void ar_tsv_put(FILE *f, const char *s);

/* json.c: JSON through jansson, strict: duplicate keys and invalid UTF-8
 * are errors, and so are NaN and infinities. */
json_t *ar_json_parse(const char *s, size_t len, char *err, size_t errlen);
/* The canonical form for signing: keys sorted, compact, reals with 17
 * significant digits. malloc'd. */
char *ar_json_canon(const json_t *j);
/* Compact, key order kept, one line. malloc'd. */
char *ar_json_line(const json_t *j);
/* Looks up a dotted path ("method.hash"); NULL if absent. */
json_t *ar_json_path(const json_t *j, const char *path);
const char *ar_json_str(const json_t *j, const char *path);
/* Formats a finite double in the shortest form that reads back exactly. */
void ar_fmt_double(char *out, size_t n, double v);
/* Parses a finite number; -1 on garbage, NaN or infinity. */
int ar_parse_double(const char *s, double *v);
int ar_parse_long(const char *s, long long *v);

/* crypto.c: BLAKE2b-256 and Ed25519 through libsodium. */
void ar_crypto_init(void);
void ar_hex(char *out, const unsigned char *in, size_t n);
int ar_unhex(unsigned char *out, size_t n, const char *hex);
void ar_hash_hex(char out[AR_HASH_HEX], const void *data, size_t len);
int ar_hash_file(const char *path, char out[AR_HASH_HEX]);
void ar_keypair(unsigned char pk[AR_PK_BYTES], unsigned char sk[AR_SK_BYTES]);
void ar_sign_hex(char out[AR_SIG_HEX], const void *msg, size_t len,
	const unsigned char sk[AR_SK_BYTES]);
/* 0 if sighex is a valid signature of msg under pk. */
int ar_verify_hex(const char *sighex, const void *msg, size_t len,
	const unsigned char pk[AR_PK_BYTES]);
/* Key files hold one line: "ed25519-public HEX" or "ed25519-secret HEX". */
int ar_key_read_public(const char *path, unsigned char pk[AR_PK_BYTES],
	char *err, size_t errlen);
int ar_key_read_secret(const char *path, unsigned char sk[AR_SK_BYTES],
	char *err, size_t errlen);
/* Signs the canonical form of obj without "sig" and stores "sig". */
void ar_json_sign(json_t *obj, const unsigned char sk[AR_SK_BYTES]);
/* 0 if obj's "sig" signs the canonical form of the rest; else -1 and a
 * reason in err. */
int ar_json_verify(const json_t *obj, const unsigned char pk[AR_PK_BYTES],
	char *err, size_t errlen);

/* 0 if text, a stored result in canonical form, carries a good signature:
 * the same check as ar_json_verify without parsing and dumping again. */
int ar_verify_canonical(const char *text, size_t len,
	const unsigned char pk[AR_PK_BYTES]);

/* A 64-bit seed: BLAKE2b of label, workload, a and b, keyed with key
 * when given (holdout seeds: only the key's holder can know them). */
unsigned long long ar_seed_derive(const unsigned char *key, size_t keylen,
	const char *label, const char *workload, unsigned long long a,
	unsigned long long b);

/* timefmt.c: RFC 3339 UTC. */
/* "2026-11-26T01:58:12Z", or with digits > 0 that many fraction digits. */
void ar_time_fmt(char *out, size_t n, struct timespec ts, int digits);
void ar_time_now(char *out, size_t n);
/* Seconds on the monotonic clock: for intervals, never for dates. */
double ar_mono(void);
/* Parses RFC 3339 (any offset, optional fraction); -1 on garbage. */
int ar_time_parse(const char *s, struct timespec *ts);

/* id.c: "20261126T015812.123456Z-3f9a2c1b7d4e5f60": UTC time to the
 * microsecond, then 64 random bits. Sorts by time; never collides. */
#define AR_IDLEN 41
void ar_id_new(char out[AR_IDLEN]);
int ar_id_valid(const char *s);

/* conf.c: "key = value" lines, '#' comments. */
struct ar_conf {
	size_t n;
	char **key, **val;
};
int ar_conf_read(struct ar_conf *c, const char *path, char *err, size_t errlen);
const char *ar_conf_get(const struct ar_conf *c, const char *key);
void ar_conf_free(struct ar_conf *c);

/* campaign.c: the paths and keys of a campaign directory. */
struct ar_campaign {
	char *dir;
	struct ar_conf conf;
	char *id;
	char seal_hash[AR_HASH_HEX];
	int have_seal;
	unsigned char pk[AR_PK_BYTES];
};
/* Opens DIR (campaign.conf, keys/bench.pub, SEAL's hash); dies with a
 * clear message and the fitting exit code when it is not a campaign. */
void ar_campaign_open(struct ar_campaign *c, const char *dir);
void ar_campaign_free(struct ar_campaign *c);
/* The directory named by -C, else $AR_CAMPAIGN, else ".". */
const char *ar_campaign_default(const char *opt);

/* seal.c: SEAL lists every file and directory of problem/ with its mode,
 * size and hash, signed by the campaign's key. */
typedef void (*ar_seal_report_fn)(void *arg, const char *state,
	const char *path, const char *detail);
int ar_seal_write(const char *campaign, const char *id, const char *problem,
	const unsigned char sk[AR_SK_BYTES], char *err, size_t errlen);
/* Reports each file changed, added or removed; returns their count, -1
 * when SEAL cannot be read (errno set), -2 when its signature is bad or it
 * belongs to another campaign, -3 when it is malformed. */
int ar_seal_check(const char *campaign, const char *id,
	const unsigned char pk[AR_PK_BYTES], ar_seal_report_fn report,
	void *arg, char *err, size_t errlen);

/* spool.c: maildir-style spools: tmp/ new/ cur/ done/ failed/ why/. A
 * record is one file named PRIO-ORDER-ID: PRIO is 1000000 - priority in 7
 * digits, ORDER a fresh time-ordered id, so names sort by priority, then
 * age, whatever the record's own id. A claim renames new/NAME to
 * cur/NAME@EXPIRY@HOLDER, so the lease lives in the name and every state
 * change is one rename(2). */
#define AR_SPOOL_NAME (7 + 1 + 40 + 1 + AR_ID_MAX + 1)
enum { AR_SP_OK = 0, AR_SP_GONE = 1, AR_SP_ERR = -1 };
int ar_spool_init(const char *dir);
/* Checks that dir is a spool; -1 with errno otherwise. */
int ar_spool_check(const char *dir);
/* Durably delivers a record into new/; its file name is derived from prio
 * and id. AR_SP_GONE if the id exists already. */
int ar_spool_put(const char *dir, const char *id, long prio,
	const char *data, size_t len);
/* Lists a subdirectory's entries (dot files skipped), sorted. */
int ar_spool_list(const char *dir, const char *sub, char ***names, size_t *n);
void ar_spool_free_list(char **names, size_t n);
struct ar_lease {
	char name[AR_SPOOL_NAME];   /* the record's name in new/ */
	char id[AR_ID_MAX + 1];
	long prio;
	long long expires;          /* seconds since the epoch; 0 if none */
	char holder[AR_ID_MAX + 1];
};
/* Parses "PRIO-ORDER-ID" or "PRIO-ORDER-ID@EXPIRY@HOLDER"; -1 if it is
 * neither. */
int ar_spool_parse(const char *fname, struct ar_lease *l);
void ar_spool_lease_name(char *out, size_t n, const struct ar_lease *l);
/* Claims the first record of new/ that nobody else takes first; fills l.
 * AR_SP_GONE when new/ is empty. A claim is not fsync'd: if the machine
 * dies before the rename reaches the disk, its claimer died with it and
 * the record is simply claimable again. */
int ar_spool_claim(const char *dir, const char *holder, long long expires,
	struct ar_lease *l);
/* A claimer that claims many records keeps its sorted view of new/ for
 * up to a second instead of reading the directory for every claim. */
struct ar_claimer {
	char **names;
	size_t n, pos;
	struct timespec scanned;
};
int ar_spool_claim_next(const char *dir, struct ar_claimer *c,
	const char *holder, long long expires, struct ar_lease *l);
void ar_claimer_free(struct ar_claimer *c);
/* Finds the claimed record id held by holder in cur/. AR_SP_GONE if not. */
int ar_spool_find(const char *dir, const char *id, const char *holder,
	struct ar_lease *l);
/* Moves a claimed record: to "done", "failed" or back to "new"; or renews
 * it in cur/ with a new expiry. AR_SP_GONE if the lease was lost. */
int ar_spool_finish(const char *dir, const struct ar_lease *l, const char *to);
int ar_spool_renew(const char *dir, struct ar_lease *l, long long expires);
/* Returns expired leases to new/ and removes tmp/ files older than a day;
 * counts the leases returned. */
int ar_spool_reap(const char *dir, long long now, size_t *returned);
/* The path of a record in a state directory, malloc'd. */
char *ar_spool_path(const char *dir, const char *sub, const char *fname);

/* flat.c: flattening a result into TSV columns by dotted path. */
struct ar_kv {
	char *k, *v;
	double num;      /* the value of a JSON real, when v is NULL */
};
struct ar_flat {
	size_t n, cap;
	struct ar_kv *kv;
};
/* Flattens obj: objects become dotted paths ('.' and '\' inside a key are
 * escaped with '\'), arrays of scalars are joined with ',', other arrays,
 * "raw" and "sig" are left out; sorted by key. */
void ar_flatten(const json_t *obj, struct ar_flat *f);
/* The same, but JSON reals are left in num with v NULL: formatting them
 * is the dear part, and a check can compare numbers instead. */
void ar_flatten_num(const json_t *obj, struct ar_flat *f);
void ar_flat_free(struct ar_flat *f);

/* metric.c: METRIC lines ("METRIC name=value"), as a score stage prints
 * them; ar-formats(5) has the contract. */
#define AR_METRIC_NAME 64
struct ar_metric {
	char name[AR_METRIC_NAME];
	double value;
};
/* Every metric of text, the last value of a duplicate winning, in order
 * of first appearance; -1 and a reason naming the line on a malformed
 * METRIC line. Other lines are not metrics and are skipped. */
int ar_metrics_parse(const char *text, size_t len, struct ar_metric **out,
	size_t *n, char *err, size_t errlen);

/* stats.c: what ar-bench decides with. x holds per-pair log-ratios,
 * method against baseline, oriented so that a positive value is better
 * (for a time: log(baseline / method)). */
double ar_median(const double *v, size_t n);
double ar_mad(const double *v, size_t n);
/* How many values lie more than k scaled MADs from the median. */
size_t ar_mad_outliers(const double *v, size_t n, double k);
/* Hodges-Lehmann estimate of x's centre and the Wilcoxon signed-rank
 * interval at confidence conf (exact up to 60 pairs); -inf..inf when n is
 * too small for conf. */
int ar_signed_rank_ci(const double *x, size_t n, double conf, double *est,
	double *lo, double *hi);
enum { AR_V_CONTINUE, AR_V_KEEP, AR_V_DISCARD, AR_V_EQUIVALENT,
	AR_V_INCONCLUSIVE };
struct ar_verdict_opts {
	double min_effect;   /* e.g. 0.01: a keep must gain at least 1% */
	double alpha;        /* false-keep rate allowed over all looks */
	size_t min_pairs, max_pairs;
};
struct ar_interval {
	size_t n;
	double est, lo, hi;  /* log-ratio; exp() gives the ratio */
};
/* The verdict after n pairs: keep when the interval clears the minimum
 * effect, equivalent when it lies within plus or minus it, discard when
 * no gain of the minimum effect remains plausible; otherwise continue,
 * or inconclusive when last. Looks come at min_pairs, then every 25% more
 * pairs (ar_verdict_look says when), each at alpha / looks. */
int ar_verdict(const double *x, size_t n, const struct ar_verdict_opts *o,
	int last, struct ar_interval *ci);
int ar_verdict_look(size_t n, const struct ar_verdict_opts *o);
size_t ar_verdict_looks(const struct ar_verdict_opts *o);
const char *ar_verdict_name(int v);

/* ledger.c: the result store; see ar-formats(5). */
struct ar_seg {
	char *path;        /* seg/NNNNNNNN.tsv */
	char *idx;         /* the mmap'd sorted id index */
	size_t idxlen;
};
struct ar_ledger {
	char *dir;
	size_t nseg;
	struct ar_seg *seg;
};
int ar_ledger_open(struct ar_ledger *l, const char *dir, int create,
	char *err, size_t errlen);
void ar_ledger_close(struct ar_ledger *l);
/* 1 if id is stored in a segment. */
int ar_ledger_in_segments(const struct ar_ledger *l, const char *id);
/* Stores a record crash-safely as a loose file. Returns 0 stored, 1
 * already there with the same content (a no-op), 2 an id clash with other
 * content, -1 with errno (EINVAL: no valid "id", or a reserved key). */
int ar_ledger_store(struct ar_ledger *l, const json_t *rec);
/* Stores many records as one new segment, under the ledger's lock. st[i]
 * gets what ar_ledger_store would return for recs[i]. */
int ar_ledger_add_batch(struct ar_ledger *l, json_t **recs, size_t n,
	int *st, char *err, size_t errlen);
/* Calls fn for every stored record in storage order: segments, then loose
 * results not yet compacted. line is the record's JSON; cols, when the
 * record came from a segment, its stored flat columns. */
struct ar_row {
	const char *src;     /* file the row came from */
	const char *bad;     /* why the row could not be read, or NULL */
	size_t lineno;       /* line within a segment, 0 for a loose file */
	const char *json;
	size_t jsonlen;
	size_t ncol;         /* segment rows: header and fields */
	char **hdr, **field;
};
typedef int (*ar_row_fn)(const struct ar_row *r, void *arg);
int ar_ledger_scan(struct ar_ledger *l, ar_row_fn fn, void *arg,
	char *err, size_t errlen);
/* Merges loose results into a new segment under a lock. */
int ar_ledger_compact(struct ar_ledger *l, int break_lock, size_t *merged,
	char *err, size_t errlen);

/* tree.c: directory trees, as ar-bench materializes methods. */
struct ar_entry {
	char *path;          /* relative to the tree's root */
	mode_t mode;
	off_t size;
	char hash[AR_HASH_HEX]; /* files: content; links: target */
	char *link;          /* a symbolic link's target */
};
struct ar_tree {
	size_t n, cap;
	struct ar_entry *e;  /* sorted by path; ".git" at the top left out */
};
int ar_tree_list(const char *root, struct ar_tree *t, char *err,
	size_t errlen);
/* The same; without hash, files are only listed (their hash is ""). */
int ar_tree_scan(const char *root, struct ar_tree *t, int hash, char *err,
	size_t errlen);
const struct ar_entry *ar_tree_find(const struct ar_tree *t,
	const char *path);
void ar_tree_free(struct ar_tree *t);
/* BLAKE2b-256 of the lines "MODE HASH\tPATH" of every file and link,
 * MODE as git writes it: a directory method's content hash. */
void ar_tree_hash(const struct ar_tree *t, char out[AR_HASH_HEX]);
/* Copies a tree; files become owner-writable (a sealed copy is not). */
int ar_tree_copy(const char *src, const char *dst, char *err, size_t errlen);
int ar_tree_copy_entry(const char *src, const char *dst,
	const struct ar_entry *e, char *err, size_t errlen);
/* Removes path and all below it; with keep_top only what it holds. */
int ar_rm_rf(const char *path, int keep_top);

/* manifest.c: problem.json, the problem manifest; ar-problem(5). */
enum { AR_OP_LT, AR_OP_LE, AR_OP_GT, AR_OP_GE, AR_OP_EQ };
struct ar_mdef {
	const char *name, *unit;
	int higher;          /* direction: 1 higher is better, 0 lower */
};
struct ar_check {
	const char *command; /* a gate that is a sealed checks command */
	const char *metric;
	int op;
	double value;
	double ratio;        /* > 0: a bound of ratio times the baseline's */
	char text[160];      /* "bad == 0", as results name it */
};
struct ar_workload {
	const char *name;
	size_t nenv;
	const char **envk, **envv;
	double work;         /* what the work metric must equal */
	double bytes, flops; /* moved and computed per run, for the
	                      * roofline; NAN when not declared */
	const char *dtype;   /* the compute roof: "bf16" (default), "fp8" */
	size_t nseed;
	unsigned long long *seed;
};
struct ar_stage {
	const char *cmd;     /* NULL when the stage is absent */
	double timeout_s;
};
struct ar_manifest {
	json_t *root;        /* every string points into it */
	const char *name, *description, *baseline, *work_metric;
	struct ar_mdef metric;
	size_t nsecondary, ngate, nguard, nworkload, nscale, nmutable;
	struct ar_mdef *secondary;
	struct ar_check *gate, *guard;
	struct ar_workload *workload;
	long *scale;
	const char **mutable;
	struct ar_stage setup, build, prepare, run, score;
	/* limits; negative when the manifest leaves them to ar-bench */
	double time_s, min_effect;
	long min_pairs, max_pairs, warmup;
};
/* Reads and checks dir/problem.json; -1 and a reason naming the file and
 * the field ("problem.json: stages.run.cmd: missing") otherwise. */
int ar_manifest_read(struct ar_manifest *m, const char *dir, char *err,
	size_t errlen);
void ar_manifest_free(struct ar_manifest *m);
const char *ar_op_name(int op);
int ar_op_holds(int op, double a, double b);

/* runner.c: a server that runs ar-bench's stages one at a time inside
 * one bubblewrap sandbox (or none), timing each with its own clock. */
struct ar_bind {
	const char *src, *dst;
	int rw;
};
struct ar_sandbox {
	int on;              /* 0: no sandbox */
	const char *bwrap;   /* the bwrap program */
	size_t nbind, nmask;
	struct ar_bind bind[16];
	const char *mask[8]; /* secrets to hide when a system dir holds them */
	const char *errfile; /* the runner's stderr (and bwrap's) */
	size_t ngpu;         /* the NVIDIA device nodes of these GPUs */
	int gpu[64];
};
struct ar_runner {
	pid_t pid;
	int wfd, rfd, sandbox, busy;
};
struct ar_job {
	const char *cmd;     /* run as /bin/sh -c CMD */
	const char *cwd, *out, *err;   /* stdout and stderr files */
	char *const *env;    /* NULL-ended "K=V": the whole environment */
	char *const *clean;  /* directories emptied before the job */
	const int *cpu;      /* the CPUs it may use; none: all */
	size_t ncpu;
	double timeout_s;
};
struct ar_jobres {
	int status;          /* as wait(2) gives it */
	int timed_out, leftovers, lost;
	double wall, user, sys, outside;
	long maxrss_kb;
	char why[256];       /* when lost */
};
int ar_runner_start(struct ar_runner *r, const struct ar_sandbox *sb,
	char *err, size_t errlen);
/* 0 with res filled; -1 with res->lost and res->why when the runner died
 * or lied about its clock (it is then stopped). */
int ar_runner_exec(struct ar_runner *r, const struct ar_job *j,
	struct ar_jobres *res);
void ar_runner_stop(struct ar_runner *r);
/* Set by a signal handler: a wait for a runner's answer gives up. */
extern volatile sig_atomic_t ar_runner_interrupted;
/* The server's loop on stdin and stdout: ar-bench --runner. */
int ar_runner_main(int sandboxed);

/* curve.c: scale curves (score against k) from few points. */
enum { AR_FIT_NONE, AR_FIT_AMDAHL, AR_FIT_USL };
struct ar_point {
	double k, y, lo, hi;  /* the score and its interval at k */
	int feasible;         /* every guardrail held */
};
struct ar_fit {
	int model;
	double k0, y0, y0_sd; /* the anchor: the smallest k measured */
	double sigma, kappa, sigma_se, kappa_se, cov[2][2];
	char why[160];
};
/* Fits the points (at distinct k); returns the model, AR_FIT_NONE with
 * f->why when there are fewer than two. */
int ar_curve_fit(const struct ar_point *p, size_t n, struct ar_fit *f);
double ar_curve_eval(const struct ar_fit *f, double k);
/* The fitted score at k with a 95% interval. */
void ar_curve_predict(const struct ar_fit *f, double k, double *y,
	double *lo, double *hi);
/* The best feasible point and the knee, the smallest feasible k whose
 * interval reaches the best's; -1 when no point is feasible. */
int ar_curve_best(const struct ar_point *p, size_t n, int higher, long *knee,
	long *best_k, double *best);

#endif
