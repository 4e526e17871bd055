/* bench.h: what the files of ar-bench share. ar-bench is four programs
 * in one binary: the exec benchmark (the default), --roofline, and the
 * two servers it starts of itself, --runner and --rank. One struct bench
 * holds the whole state of a measurement (its campaign, key, problem,
 * roles, samples, checks and failure) and goes by pointer to every call;
 * struct opts is the command line. The files, by job:
 *   main.c     options, their checks, dispatch to the four programs
 *   exec.c     the exec benchmark, its steps in order
 *   setup.c    the campaign, seal and key; the scratch session, signals
 *              and cleanup; CPUs and device; roles, sandboxes, the method
 *   stage.c    one stage of a role in its runner: setup, build, gates,
 *              prepare, a timed run and its score
 *   session.c  the pairs of a session, the checks of every run, when the
 *              statistics stop it
 *   result.c   the result record: statistics, verdict, checks, roofline
 *   roofline.c ar-bench --roofline: the machine profile
 *   runner.c   ar-bench --runner: the server that runs the stages inside
 *              a sandbox (lib/runner is its client and protocol)
 *   rank.c     ar-bench --rank: one device's ops on command (dev/ranks
 *              is its client and protocol) */
#ifndef AR_BENCH_H
#define AR_BENCH_H

#include <limits.h>
#include <stddef.h>
#include <jansson.h>

#include "campaign.h"
#include "crypto.h"
#include "manifest.h"
#include "runner.h"
#include "stats.h"

enum { R_BASE, R_METH, R_JUDGE };
extern const char *const role_name[3];

/* A run's outcome when it ends the experiment. */
enum { END_NONE, END_CRASH, END_TIMEOUT, END_INVALID, END_DISCARD };

/* The command line, as given. */
struct opts {
	const char *dir, *spec, *wname, *seeds, *experiment, *idea;
	const char *device;  /* auto, cuda or cpu */
	double T, e, rt;     /* -T, -e, -t; -1: not given */
	long pmin, pmax, warm, k, spmin, spmax; /* -1: not given; k 1 */
	int append, quiet, verbose;
	int check;           /* --check: an agent's self-check, unsigned */
};

struct sample {
	double wall, user, sys;
	long rss;
	double *val;         /* per tracked metric; NAN when not printed */
};

struct role {
	char *dir;           /* session/<role> */
	char *src;           /* the method's directory */
	char *out, *log, *tmp;
	char *in;            /* the pair's inputs: the judge's, or a
	                      * role's own copy of them */
	struct ar_runner run;
	int started;
	/* the paths the stages see */
	const char *v_method, *v_out, *v_log, *v_in, *v_problem;
	struct sample *s;
	size_t ns, cap;
	int leftovers;
};

struct failure {
	const char *stage, *role;
	long pair;
	int status, timed_out, has_status;
	char *tail;          /* the last lines of the stage's stderr */
};

/* One session of pairs on one kind of seeds. */
struct session {
	const char *seeds;   /* "dev" or "holdout" */
	double *x;           /* per-pair log-ratio, positive = better */
	char *order;         /* per pair: 'b' or 'm', whoever ran first */
	char before;         /* the role of the run before the first pair */
	size_t block;        /* pairs per block (ar_block_size) */
	size_t n, npairs, cap;
	int verdict, end;
	int stopped;         /* ended by --stop-at, the verdict undecided */
	double stop_lo, stop_hi; /* the session's 95% interval then */
	int stop_above;          /* the answer: clearly above stop_at */
	char why[512];
	struct ar_interval ci;
	struct ar_look look;     /* the last look's numbers */
	double conf, secs;
	size_t outliers;
	size_t first_sample[2];  /* index of the session's first sample */
};

/* One measurement, from the command line to the signed result. */
struct bench {
	struct ar_campaign camp;
	struct ar_manifest m;
	const struct ar_workload *w;
	unsigned char sk[AR_SK_BYTES];
	unsigned char hkey[32];
	/* The pair being run: its seed and whether it is a holdout one,
	 * so that what a failure reports is bounded there. */
	unsigned long long pair_seed;
	int pair_holdout;
	char *session, *problem;
	char *problem_copy;     /* the session's copy of it, bound in the
	                         * sandboxes: no host path of the campaign
	                         * shows there, and it cannot change mid-way */
	struct role role[3];
	struct ar_runner score;  /* the judge's score stage, inputs read-only */
	struct ar_sandbox base_sb;
	int sandbox, keep, progress, aa;
	int check;               /* --check: no secret key, nothing signed */
	int quiet;               /* -q: no progress, no note of a missing profile */
	double stop_at;          /* --stop-at's ratio, else 0 */
	/* --stop-prior: the 95% interval of the pair's earlier
	 * measurements, asked with the session's own; 0 when none. */
	double prior_lo, prior_hi;
	const char *bwrap;
	int cpu[1024];
	size_t ncpu;
	long k;
	const char *gpus;    /* -G: CUDA_VISIBLE_DEVICES of the stages */
	size_t ngpu;
	long gpu[64];
	char gpulist[64 * 6];    /* the ids of -G as parsed; gpus points here */
	struct ar_verdict_opts vo;
	struct ar_design design;
	double time_s;
	long warmup;
	/* tracked metrics: primary first, then the others named anywhere */
	const char **metric;
	size_t nmetric;
	struct failure fail;
	double *gate_worst_v, *guard_worst_v;
	size_t *gate_runs, *guard_runs;
	int *gate_pass, *guard_pass;
	int work_pass;
	size_t work_runs;
	double work_bad;
	char outside[400];
	char conflict[300];      /* a method that does not fit the baseline */
	int invalid_tree;
	char end_why[512];       /* why the last run that ended it did */
	double progress_last;    /* when the last progress line was written */
	/* What the sandboxes hide, real paths: base_sb.mask points here. */
	char camp_real[PATH_MAX], session_real[PATH_MAX], key_real[PATH_MAX];
	const char *device;      /* "cuda" or "cpu": what measures */
	json_t *profile;         /* the machine's roofline, when the workload
	                          * declares bytes or flops and one exists */
	char *profile_path;
	double profile_scale;    /* a k=1 profile read for a k bundle: k */
};

/* The four programs. */
int exec_main(struct bench *b, const struct opts *o);
int roofline_main(struct bench *b, const struct opts *o);
int runner_main(int sandboxed);
int rank_main(void);

/* setup.c */
char *open_campaign(struct bench *b, const char *dir);
void start_session(struct bench *b);
void bench_init(struct bench *b);
void cleanup(struct bench *b);
void bench_free(struct bench *b);
void check_interrupt(void);
void pick_cpus(struct bench *b, long k);
int cuda_ordinal(long id);
const char *pick_device(struct bench *b, const char *want, int gpus);
void role_init(struct bench *b, int ri);
void base_sandbox(struct bench *b, const char *keypath);
void sandbox_start(struct bench *b, struct ar_runner *r,
    struct ar_sandbox *sb, const char *what);
void role_sandbox(struct bench *b, int ri, int build, struct ar_runner *r);
void judge_sandbox(struct bench *b);
json_t *materialize(struct bench *b, const char *spec);

/* stage.c */
void run_setup(struct bench *b);
int run_build(struct bench *b, int ri);
void start_runner(struct bench *b, int ri);
int run_gate_commands(struct bench *b, int ri);
void run_prepare(struct bench *b, unsigned long long seed);
int run_one(struct bench *b, int ri, long pair, unsigned long long seed,
    struct sample **out);

/* session.c */
size_t track(struct bench *b, const char *name);
void track_all(struct bench *b);
struct sample *new_sample(struct bench *b, int ri);
int end_run(struct bench *b, int ri, int end, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int check_run(struct bench *b, int ri, const struct sample *s, long pair);
int session_run(struct bench *b, struct session *se);

/* result.c */
void load_profile(struct bench *b);
json_t *result(struct bench *b, json_t *method, const char *spec_idea,
    const char *experiment, struct session *dev, struct session *hold,
    const char *started);

#endif
