/* run.h: what the files of ar-run share. One struct runctx holds the
 * whole state of a run of ar-run (its options, its campaign's places, who
 * it is, its inventory, the runs it owns) and goes by pointer to every
 * call; struct run is one claimed record and its ar-bench (or Slurm job);
 * struct pinfo is a run/pid file. The files, by job:
 *   main.c     options, the campaign, dispatch to a subcommand
 *   serve.c    the serving loop: claiming, lease renewal, signals
 *   local.c    the local backend: inventory, bookings, ar-bench processes
 *   slurm.c    the Slurm backend: sbatch, arrays and their maps, squeue
 *   job.c      ar-run job, inside a Slurm job
 *   recover.c  records whose runner died, and what they left behind
 *   runs.c     run/ files, the run table, how a run ends, its result
 *   input.c    -i: assignments TSV into the queue
 *   status.c   ar-run status */
#ifndef AR_RUN_H
#define AR_RUN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#include "assign.h"
#include "buf.h"
#include "id.h"
#include "inventory.h"
#include "spool.h"

enum { B_LOCAL, B_SLURM };
enum { M_SERVE, M_DRAIN, M_ONCE };

/* run/pid/EXPERIMENT: who runs an experiment, one TSV line. expires is
 * the queue lease it describes: a restart trusts the file only while the
 * lease in the queue's name is the same one. */
struct pinfo {
	char exp[AR_ID_MAX + 1], holder[AR_ID_MAX + 1], host[256];
	long owner, child;
	unsigned long long owner_start, child_start;
	long long expires, started;
	char slots[4096];
};

/* A claimed record and what runs it. */
struct run {
	struct ar_lease l;
	json_t *o;
	struct ar_assign r;   /* its strings point into o */
	int slot[AR_ASSIGN_GPUS];
	size_t nslot;
	pid_t pid;            /* the ar-bench child; 0 when none */
	unsigned long long pstart;
	long long started;
	double t0, deadline, killat;
	long long renewed;
	int timed_out, stopped, lost;
	char jid[64];         /* slurm: JOBID, or ARRAYID_TASK */
	char map[AR_ID_MAX + 2]; /* its array's map in run/jobs, or "" */
	char jnode[256];
	int jsubmitted;
};

/* What claiming needs of each waiting record, kept by name: a record in
 * new/ never changes, so each is read once, not at every poll. */
struct shape {
	char *name;
	char exp[AR_ID_MAX + 1];
	long k;
	int *gpus;
	size_t ngpus;
	int bad;              /* cannot run: claimed only to be failed */
};

struct runctx {
	/* Options. */
	int backend, mode;
	int verbose;          /* progress lines on stderr */
	const char *camp;
	const char *holder;
	const char *partition;
	const char *bench;    /* the ar-bench program */
	long long lease_s;
	double tlimit;
	long maxpar, requeue_max;
	long array_max;       /* the most tasks of one Slurm array */
	char **bargs;         /* ar-bench's extra arguments */
	int nbargs;

	/* The campaign's places. */
	char *qdir, *gdir, *piddir, *jobdir, *trydir, *logdir, *ledgerdir;

	/* Who this process is. The holder in the queue's lease names is
	 * HOLDER.HOST.PID.START, so that anyone on this host can tell a
	 * lease whose owner died from a live one, from the name alone, at
	 * any instant after the claim. */
	char lease_holder[AR_ID_MAX + 1];
	char host[256], host_short[25];
	const char *self_exe;
	pid_t self_pid;
	unsigned long long self_start;
	sigset_t orig_mask;   /* the signal mask before ours */

	/* The local inventory: node inode of inv, GPUs or (cpu) CPUs. */
	struct ar_inv inv;
	size_t inode;
	int cpu;

	/* The runs of this process and the waiting records' shapes. */
	struct run **runs;
	size_t nruns;
	struct shape *shapes;
	size_t nshapes;

	int header_done;
	int failures;         /* experiments recorded as failed */
	int io_errors;
	double sbatch_retry;  /* no sbatch before this (mono) */
	long long last_recover;
	unsigned map_seq;
};

/* Set by the signal handlers of serve.c. */
extern volatile sig_atomic_t got_term, got_chld;

/* runs.c */
void progress(const struct runctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double mono(void);
long long now_s(void);
const char *rec_str(const json_t *o, const char *key);
json_t *rec_load(const char *path);
int pinfo_read(const struct runctx *c, const char *exp, struct pinfo *pi);
void pinfo_remove(struct runctx *c, const char *exp);
long tries_get(const struct runctx *c, const char *exp);
void tries_set(struct runctx *c, const char *exp, long v);
struct run *run_new(struct runctx *c);
void run_free(struct runctx *c, struct run *r);
struct run *run_by_pid(const struct runctx *c, pid_t pid);
int exp_running(const struct runctx *c, const char *exp);
void slots_str(char *out, size_t n, const int *slot, size_t ns);
void run_save(struct runctx *c, const struct run *r);
void print_header(struct runctx *c);
int result_from_out(const struct runctx *c, const char *exp, char *resid,
	size_t nid, char *verdict, size_t nv);
/* Results in the ledger for n experiments, in one scan: found[i], with
 * id[i] and verdict[i]. */
struct lfind {
	size_t n;
	const char **exp;
	char (*id)[AR_ID_MAX + 1];
	char (*verdict)[32];
	int *found;
};
void lfind_init(struct lfind *lf, size_t n);
void lfind_free(struct lfind *lf);
void ledger_find(const struct runctx *c, struct lfind *lf);
void conclude(struct runctx *c, struct run *r, const char *status,
	const char *why, const char *verdict, const char *resid, double secs);
void judge(struct runctx *c, struct run *r, int st, int stopped,
	int timed_out, double secs);
char **bench_argv(const struct runctx *c, const struct run *r,
	const char *gpulist);
char **bench_env(const char *cuda);
void free_argv(char **av);
void free_env(char **env);

/* local.c */
void inv_load(struct runctx *c, const char *topo, long ngpus, int cpus);
size_t inv_slots(const struct runctx *c);
void booked_now(struct runctx *c);
int place(struct runctx *c, long k, const int *want, size_t nwant,
	int *slot);
int book(struct runctx *c, struct run *r);
void renew_bookings(struct runctx *c, const struct run *r);
void release_slots(struct runctx *c, struct run *r);
int start_local(struct runctx *c, struct run *r);
void reap_children(struct runctx *c);
void check_limits(struct runctx *c);
void shutdown_local(struct runctx *c);

/* serve.c */
void nap(double secs);
int serve(struct runctx *c);

/* recover.c */
void kill_wait(long pid, unsigned long long start);
int earlier_result(struct runctx *c, struct run *r);
void recover(struct runctx *c);

/* slurm.c */
const char *prog_env(const char *var, const char *def);
int job_file_exists(const struct runctx *c, const char *exp);
int job_load(const struct runctx *c, const char *exp, char *jid, size_t nj,
	char *map, size_t nm);
char **map_read(const struct runctx *c, const char *map, size_t *n);
int capture(char *const *av, struct ar_buf *out);
size_t submit_pending(struct runctx *c, struct run **pend, size_t n);
void adopt_slurm(struct runctx *c, struct run *r);
void poll_jobs(struct runctx *c);

/* job.c */
int cmd_job(struct runctx *c, const char *exp);

/* status.c */
int cmd_status(struct runctx *c);

/* input.c */
void put_input(struct runctx *c, const char *file);

#endif
