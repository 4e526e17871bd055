/* ar-bench: the sealed benchmark. Runs one experiment of an exec problem:
 * checks the seal, materializes the method and the baseline, builds both
 * in sandboxes, runs them in balanced, shuffled AB/BA pairs timed by its
 * own clock, scores every run with the sealed score stage, checks gates,
 * guardrails and the work done on every run, stops when the statistics
 * decide, and prints one signed result. ar-bench(1) is the contract. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sodium.h>

#include "buf.h"
#include "campaign.h"
#include "conf.h"
#include "crypto.h"
#include "err.h"
#include "host.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "ledger.h"
#include "manifest.h"
#include "method.h"
#include "metric.h"
#include "runner.h"
#include "seal.h"
#include "stats.h"
#include "timefmt.h"
#include "tree.h"
#include "dev.h"
#include "ranks.h"
#include "roofline.h"


static const char usage[] =
	"[-aKqv] [-C campaign] [-m method] [-w workload] [-k cpus] [-G gpu-ids] "
	"[-S dev|holdout|both] [-T seconds] [-p min-pairs] [-P max-pairs] "
	"[-e min-effect] [-W warmup] [-t run-timeout] [-x experiment] [-i idea] "
	"[--sched-pairs min,max] [--stop-at ratio] [--aa] [--no-sandbox] [--device auto|cuda|cpu]\n"
	"--roofline [--aa] [-q] [-C campaign] [-k cpus] "
	"[-G gpu-ids] [-P samples] [-W warmup] [--device auto|cuda|cpu]";

enum { R_BASE, R_METH, R_JUDGE };
static const char *const role_name[] = { "baseline", "method", "judge" };

/* A run's outcome when it ends the experiment. */
enum { END_NONE, END_CRASH, END_TIMEOUT, END_INVALID, END_DISCARD };

struct sample {
	double wall, user, sys;
	long rss;
	double *val;         /* per tracked metric; NAN when not printed */
};

struct role {
	char *dir;           /* session/<role> */
	char *src;           /* the method's directory */
	char *out, *log, *tmp;
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
	size_t n, npairs, cap;
	int verdict, end;
	int stopped;         /* ended by --stop-at, the verdict undecided */
	double stop_lo, stop_hi; /* the 95% interval that ended it */
	char why[512];
	struct ar_interval ci;
	double conf, secs;
	size_t outliers;
	int guard_failed;
	size_t first_sample[2];  /* index of the session's first sample */
};

static struct {
	struct ar_campaign camp;
	struct ar_manifest m;
	const struct ar_workload *w;
	unsigned char sk[AR_SK_BYTES];
	unsigned char hkey[32];
	char *session, *problem, *keydir;
	struct role role[3];
	struct ar_runner score;  /* the judge's score stage, inputs read-only */
	struct ar_sandbox base_sb;
	int sandbox, keep, progress, aa;
	double stop_at;          /* --stop-at's ratio, else 0 */
	const char *bwrap;
	int cpu[1024];
	size_t ncpu;
	long k;
	const char *gpus;    /* -G: CUDA_VISIBLE_DEVICES of the stages */
	size_t ngpu;
	long gpu[64];
	struct ar_verdict_opts vo;
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
	const char *device;      /* "cuda" or "cpu": what measures */
	json_t *profile;         /* the machine's roofline, when the workload
	                          * declares bytes or flops and one exists */
	char *profile_path;
	double profile_scale;    /* a k=1 profile read for a k bundle: k */
} B;

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	interrupted = sig;
	ar_runner_interrupted = 1;
	ar_roofline_abort();
}

static void
cleanup(void)
{
	int i;

	ar_roofline_abort();
	for (i = 0; i < 3; i++)
		ar_runner_stop(&B.role[i].run);
	ar_runner_stop(&B.score);
	if (B.session && !B.keep)
		ar_rm_rf(B.session, 0);
}


static void
check_interrupt(void)
{
	if (interrupted)
		ar_die(AR_EX_TEMPFAIL, "interrupted by signal %d; no result",
		    (int)interrupted);
}

/* ---- environment and jobs ---- */

struct env {
	char **v;
	size_t n;
};

static void
env_add(struct env *e, const char *k, const char *v)
{
	e->v = ar_xrealloc(e->v, (e->n + 2) * sizeof *e->v);
	e->v[e->n++] = ar_xasprintf("%s=%s", k, v);
	e->v[e->n] = NULL;
}

static void
env_free(struct env *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	memset(e, 0, sizeof *e);
}

/* What every stage gets: a clean environment, never ar-bench's own. */
static void
env_base(struct env *e, const struct role *r)
{
	size_t i;
	char num[32];
	const char *tmp = B.sandbox ? "/tmp" : r->tmp;

	env_add(e, "PATH", "/usr/local/bin:/usr/bin:/bin");
	env_add(e, "HOME", tmp);
	env_add(e, "TMPDIR", tmp);
	env_add(e, "LC_ALL", "C");
	for (i = 0; i < B.w->nenv; i++)
		env_add(e, B.w->envk[i], B.w->envv[i]);
	env_add(e, "AR_WORKLOAD", B.w->name);
	snprintf(num, sizeof num, "%ld", B.k);
	env_add(e, "AR_CPUS", num);
	if (B.gpus) {
		env_add(e, "CUDA_VISIBLE_DEVICES", B.gpus);
		snprintf(num, sizeof num, "%zu", B.ngpu);
		env_add(e, "AR_GPUS", num);
	}
}

static void
set_failure(const char *stage, int role, long pair, const struct ar_jobres *res,
    const char *errpath)
{
	if (B.fail.stage)
		return;
	B.fail.stage = stage;
	B.fail.role = role_name[role];
	B.fail.pair = pair;
	if (res) {
		B.fail.status = res->status;
		B.fail.has_status = !res->lost && !res->timed_out;
		B.fail.timed_out = res->timed_out;
	}
	B.fail.tail = errpath ? ar_tail_of(errpath) : ar_xstrdup("");
}

/* "exit 3" or "killed by SIGSEGV". */
static void
describe(char *out, size_t n, const struct ar_jobres *res)
{
	if (res->lost)
		snprintf(out, n, "failed: %s", res->why);
	else if (res->timed_out)
		snprintf(out, n, "timed out");
	else if (WIFSIGNALED(res->status))
		snprintf(out, n, "was killed by SIG%s", sigabbrev_np(
		    WTERMSIG(res->status)) ? sigabbrev_np(WTERMSIG(
		    res->status)) : "?");
	else
		snprintf(out, n, "exited with status %d",
		    WEXITSTATUS(res->status));
}

static int
res_ok(const struct ar_jobres *res)
{
	return !res->lost && !res->timed_out && WIFEXITED(res->status) &&
	    WEXITSTATUS(res->status) == 0;
}

/* Runs one job; errpath is where its stderr lands, seen from here. */
static void
job(struct ar_runner *r, const char *cmd, const char *cwd, struct env *e,
    const char *out, const char *err, char *const *clean, int pin,
    double timeout, struct ar_jobres *res)
{
	struct ar_job j = {0};

	check_interrupt();
	j.cmd = cmd;
	j.cwd = cwd;
	j.out = out;
	j.err = err;
	j.env = e->v;
	j.clean = clean;
	j.cpu = pin ? B.cpu : NULL;
	j.ncpu = pin ? B.ncpu : 0;
	j.timeout_s = timeout;
	ar_runner_exec(r, &j, res);
	check_interrupt();
}

/* ---- sandboxes ---- */

static void
sandbox_start(struct ar_runner *r, struct ar_sandbox *sb, const char *what)
{
	char err[512];

	sb->errfile = ar_xasprintf("%s/%s.sandbox.err", B.session, what);
	if (ar_runner_start(r, sb, err, sizeof err) < 0)
		ar_die(B.sandbox ? AR_EX_UNAVAILABLE : AR_EX_SOFTWARE,
		    "%s: cannot start the %s sandbox: %s%s", B.sandbox ?
		    B.bwrap : "runner", what, err, B.sandbox ? "; "
		    "--no-sandbox measures without one" : "");
	free((char *)sb->errfile);
	sb->errfile = NULL;
}

static void
bind(struct ar_sandbox *sb, const char *src, const char *dst, int rw)
{
	sb->bind[sb->nbind].src = src;
	sb->bind[sb->nbind].dst = dst;
	sb->bind[sb->nbind++].rw = rw;
}

/* A run or build sandbox for a role: the sealed problem, the method (rw
 * only to build), the inputs, its own output and log directories. */
static void
role_sandbox(int ri, int build, struct ar_runner *r)
{
	struct role *ro = &B.role[ri];
	struct ar_sandbox sb = B.base_sb;
	char what[64];

	bind(&sb, B.problem, "/ar/problem", 0);
	bind(&sb, ro->src, "/ar/method", build);
	bind(&sb, ro->log, "/ar/log", 1);
	if (!build) {
		char *in = ar_path(B.session, "in");

		bind(&sb, in, "/ar/in", 0);
		bind(&sb, ro->out, "/ar/out", 1);
		snprintf(what, sizeof what, "%s run", role_name[ri]);
		sandbox_start(r, &sb, what);
		free(in);
		return;
	}
	snprintf(what, sizeof what, "%s build", role_name[ri]);
	sandbox_start(r, &sb, what);
}

static void
judge_sandbox(void)
{
	struct role *j = &B.role[R_JUDGE];
	struct ar_sandbox sb = B.base_sb;
	char *in = ar_path(B.session, "in"), *ref = ar_path(B.session, "ref");

	/* setup and prepare write the inputs and the reference; the
	 * score stage only reads them, so no score can change what the
	 * next run of a pair is given. */
	bind(&sb, j->src, "/ar/judge", 1);
	bind(&sb, in, "/ar/in", 1);
	bind(&sb, ref, "/ar/ref", 1);
	bind(&sb, j->log, "/ar/log", 1);
	sandbox_start(&j->run, &sb, "judge");
	sb = B.base_sb;
	bind(&sb, j->src, "/ar/judge", 1);
	bind(&sb, in, "/ar/in", 0);
	bind(&sb, ref, "/ar/ref", 0);
	bind(&sb, j->log, "/ar/log", 1);
	bind(&sb, B.role[R_BASE].out, "/ar/out/baseline", 0);
	bind(&sb, B.role[R_METH].out, "/ar/out/method", 0);
	sandbox_start(&B.score, &sb, "score");
	j->started = 1;
	free(in);
	free(ref);
}

/* ---- the method ---- */

/* The method over a copy of the baseline in the method's role; a method
 * that changed a sealed file, or does not fit over the baseline, is
 * marked invalid. */
static void
overlay(const char *from, const struct ar_tree *base, const char *to)
{
	struct ar_overlay o;
	char err[600];
	int rc = ar_method_overlay(from, base, to, B.m.mutable, B.m.nmutable,
	    &o, err, sizeof err);

	if (rc)
		ar_die(rc, "%s", err);
	snprintf(B.outside, sizeof B.outside, "%s", o.outside);
	snprintf(B.conflict, sizeof B.conflict, "%s", o.conflict);
	B.invalid_tree = o.invalid;
}

static json_t *
materialize(const char *spec)
{
	struct role *b = &B.role[R_BASE], *m = &B.role[R_METH];
	char *basedir = ar_path(B.problem, B.m.baseline), err[600], hash[65];
	char *methods = ar_path(B.camp.dir, "methods");
	struct ar_tree base;
	struct stat st;
	json_t *mj;

	if (stat(basedir, &st) < 0 || !S_ISDIR(st.st_mode))
		ar_die(AR_EX_DATA, "problem.json: baseline: %s: not a "
		    "directory of the problem", B.m.baseline);
	if (ar_tree_list(basedir, &base, err, sizeof err) < 0)
		ar_die(AR_EX_NOINPUT, "baseline: %s", err);
	if (ar_tree_copy(basedir, b->src, err, sizeof err) < 0 ||
	    ar_tree_copy(basedir, m->src, err, sizeof err) < 0)
		ar_die(ar_errno_exit(errno), "%s", err);
	if (B.aa) {
		ar_tree_hash(&base, hash);
		mj = json_pack("{s:s, s:s}", "dir", B.m.baseline, "hash", hash);
	} else if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct ar_tree t;
		char real[PATH_MAX];

		overlay(spec, &base, m->src);
		if (ar_tree_list(spec, &t, err, sizeof err) < 0)
			ar_die(AR_EX_NOINPUT, "method: %s", err);
		ar_tree_hash(&t, hash);
		ar_tree_free(&t);
		mj = json_pack("{s:s, s:s}", "dir", realpath(spec, real) ?
		    real : spec, "hash", hash);
	} else {
		/* A commit of methods/: its blobs as stored, one by one, so
		 * no .gitattributes filter can change what is measured. */
		char full[41], *raw;
		int rc;

		if (ar_method_commit(methods, spec, full) < 0)
			ar_die(AR_EX_NOINPUT, "%s: no such method directory, "
			    "nor a commit in %s", spec, methods);
		/* The same hash ar-ledger verify recomputes. */
		if (ar_method_hash(methods, full, hash) < 0)
			ar_die(AR_EX_NOINPUT, "%s: git ls-tree failed", spec);
		raw = ar_path(B.session, "method-commit");
		if (ar_mkdirs(raw, 0755) < 0)
			ar_die(ar_errno_exit(errno), "%s:", raw);
		if ((rc = ar_method_extract(methods, full, raw, err,
		    sizeof err)))
			ar_die(rc, "%s", err);
		overlay(raw, &base, m->src);
		free(raw);
		mj = json_pack("{s:s, s:s}", "commit", full, "hash", hash);
	}
	ar_tree_free(&base);
	free(basedir);
	free(methods);
	if (!mj)
		ar_die(AR_EX_SOFTWARE, "cannot describe the method");
	return mj;
}

/* ---- metrics and checks ---- */

static size_t
track(const char *name)
{
	size_t i;

	for (i = 0; i < B.nmetric; i++)
		if (strcmp(B.metric[i], name) == 0)
			return i;
	B.metric = ar_xrealloc(B.metric, (B.nmetric + 1) * sizeof *B.metric);
	B.metric[B.nmetric] = name;
	return B.nmetric++;
}

static void
track_all(void)
{
	size_t i;

	track(B.m.metric.name);
	for (i = 0; i < B.m.nsecondary; i++)
		track(B.m.secondary[i].name);
	for (i = 0; i < B.m.ngate; i++)
		if (B.m.gate[i].metric)
			track(B.m.gate[i].metric);
	for (i = 0; i < B.m.nguard; i++)
		track(B.m.guard[i].metric);
	if (B.m.work_metric)
		track(B.m.work_metric);
	B.gate_worst_v = ar_xcalloc(B.m.ngate + 1, sizeof(double));
	B.guard_worst_v = ar_xcalloc(B.m.nguard + 1, sizeof(double));
	B.gate_runs = ar_xcalloc(B.m.ngate + 1, sizeof(size_t));
	B.guard_runs = ar_xcalloc(B.m.nguard + 1, sizeof(size_t));
	B.gate_pass = ar_xcalloc(B.m.ngate + 1, sizeof(int));
	B.guard_pass = ar_xcalloc(B.m.nguard + 1, sizeof(int));
	for (i = 0; i < B.m.ngate; i++)
		B.gate_pass[i] = 1;
	for (i = 0; i < B.m.nguard; i++)
		B.guard_pass[i] = 1;
	B.work_pass = 1;
}

/* The value that is worse for a bound: for "<=" the larger. */
static double
worse(int op, double a, double b)
{
	if (isnan(a))
		return b;
	if (op == AR_OP_LT || op == AR_OP_LE)
		return a > b ? a : b;
	if (op == AR_OP_GT || op == AR_OP_GE)
		return a < b ? a : b;
	return a == b ? a : b;
}

static struct sample *
new_sample(int ri)
{
	struct role *r = &B.role[ri];
	struct sample *s;
	size_t i;

	if (r->ns == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->s = ar_xrealloc(r->s, r->cap * sizeof *r->s);
	}
	s = &r->s[r->ns++];
	memset(s, 0, sizeof *s);
	s->val = ar_xmalloc((B.nmetric + 1) * sizeof *s->val);
	for (i = 0; i < B.nmetric; i++)
		s->val[i] = NAN;
	return s;
}

static int
end_run(int ri, int end, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static char end_why[512];

static int
end_run(int ri, int end, const char *fmt, ...)
{
	va_list ap;
	char msg[400];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* A baseline that fails is a broken problem, not a verdict; in A/A
	 * both sides are the baseline. */
	if (ri == R_BASE || B.aa)
		ar_die(AR_EX_DATA, "baseline: %s%s%s", msg, B.fail.tail &&
		    B.fail.tail[0] ? "; stderr ends: " : "", B.fail.tail &&
		    B.fail.tail[0] ? strrchr(B.fail.tail, '\n') ?
		    strrchr(B.fail.tail, '\n') + 1 : B.fail.tail : "");
	snprintf(end_why, sizeof end_why, "%s", msg);
	return end;
}

/* Checks the metric gates and the work of one scored run. */
static int
check_run(int ri, const struct sample *s, long pair)
{
	size_t i, k;

	/* Lost work first: it names the cause where a gate on the output
	 * would only see its effect. */
	if (B.m.work_metric) {
		double v = s->val[track(B.m.work_metric)];

		if (ri == R_METH)
			B.work_runs++;
		if (isnan(v) || v != B.w->work) {
			char num[40], want[40];

			if (ri == R_METH) {
				B.work_pass = 0;
				B.work_bad = isnan(v) ? 0 : v;
			}
			ar_fmt_double(num, sizeof num, isnan(v) ? 0 : v);
			ar_fmt_double(want, sizeof want, B.w->work);
			return end_run(ri, END_INVALID, "lost work: %s = %s, "
			    "the workload asked for %s (pair %ld)",
			    B.m.work_metric, isnan(v) ? "missing" : num, want,
			    pair);
		}
	}
	for (i = 0; i < B.m.ngate; i++) {
		const struct ar_check *g = &B.m.gate[i];
		double v;

		if (!g->metric)
			continue;
		k = track(g->metric);
		v = s->val[k];
		if (ri == R_METH) {
			B.gate_runs[i]++;
			B.gate_worst_v[i] = worse(g->op, B.gate_runs[i] == 1 ?
			    NAN : B.gate_worst_v[i], v);
		}
		if (isnan(v))
			return end_run(ri, END_INVALID, "gate %s: the score "
			    "printed no METRIC %s (pair %ld)", g->text,
			    g->metric, pair);
		if (!ar_op_holds(g->op, v, g->value)) {
			char num[40];

			if (ri == R_METH)
				B.gate_pass[i] = 0;
			ar_fmt_double(num, sizeof num, v);
			return end_run(ri, END_INVALID, "gate %s failed: %s "
			    "(pair %ld)", g->text, num, pair);
		}
	}
	k = track(B.m.metric.name);
	if (isnan(s->val[k]) || !(s->val[k] > 0))
		return end_run(ri, END_INVALID, "the score printed %s METRIC "
		    "%s (pair %ld)", isnan(s->val[k]) ? "no" : "a non-positive",
		    B.m.metric.name, pair);
	return END_NONE;
}

/* Guardrails on a method run, some against its paired baseline run. */
static int
check_guards(const struct sample *m, const struct sample *b, long pair)
{
	size_t i;
	int bad = END_NONE;

	for (i = 0; i < B.m.nguard; i++) {
		const struct ar_check *g = &B.m.guard[i];
		size_t k = track(g->metric);
		double v = m->val[k], bound = g->ratio > 0 ? g->ratio *
		    b->val[k] : g->value;

		B.guard_runs[i]++;
		B.guard_worst_v[i] = worse(g->op, B.guard_runs[i] == 1 ? NAN :
		    B.guard_worst_v[i], v);
		if (isnan(v) || isnan(bound))
			return end_run(R_METH, END_INVALID, "guardrail %s: the "
			    "score printed no METRIC %s (pair %ld)", g->text,
			    g->metric, pair);
		if (!ar_op_holds(g->op, v, bound) && bad == END_NONE) {
			char num[40], bnum[40];

			B.guard_pass[i] = 0;
			ar_fmt_double(num, sizeof num, v);
			ar_fmt_double(bnum, sizeof bnum, bound);
			bad = end_run(R_METH, END_DISCARD, "guardrail %s failed: "
			    "%s against %s (pair %ld)", g->text, num, bnum,
			    pair);
		}
	}
	return bad;
}

/* ---- stages ---- */

static char *
vpath(const char *dir, const char *name)
{
	return ar_path(dir, name);
}

static void
run_setup(void)
{
	struct role *j = &B.role[R_JUDGE];
	struct env e = {0};
	struct ar_jobres res;
	char *out, *err, *o, *eh, d[300];

	if (!B.m.setup.cmd)
		return;
	env_base(&e, j);
	env_add(&e, "AR_PROBLEM", j->v_method);
	out = vpath(j->v_log, "setup.out");
	err = vpath(j->v_log, "setup.err");
	job(&j->run, B.m.setup.cmd, j->v_method, &e, out, err, NULL, 0,
	    B.m.setup.timeout_s, &res);
	if (!res_ok(&res)) {
		char *t;

		eh = ar_path(j->log, "setup.err");
		t = ar_tail_of(eh);
		o = strrchr(t, '\n');
		describe(d, sizeof d, &res);
		ar_die(AR_EX_DATA, "the problem's setup stage failed: %s%s%s", d,
		    t[0] ? "; stderr ends: " : "", o ? o + 1 : t);
	}
	free(out);
	free(err);
	env_free(&e);
}

/* Builds one role in a sandbox of its own, the method writable. */
static int
run_build(int ri)
{
	struct role *r = &B.role[ri];
	struct ar_runner br;
	struct env e = {0};
	struct ar_jobres res;
	char *out, *err, d[300];
	int end = END_NONE;

	if (!B.m.build.cmd)
		return END_NONE;
	if (B.sandbox)
		role_sandbox(ri, 1, &br);
	else {
		struct ar_sandbox sb = B.base_sb;

		sandbox_start(&br, &sb, "build");
	}
	env_base(&e, r);
	env_add(&e, "AR_PROBLEM", r->v_problem);
	env_add(&e, "AR_METHOD", r->v_method);
	out = vpath(r->v_log, "build.out");
	err = vpath(r->v_log, "build.err");
	job(&br, B.m.build.cmd, r->v_method, &e, out, err, NULL, 1,
	    B.m.build.timeout_s, &res);
	ar_runner_stop(&br);
	if (!res_ok(&res)) {
		char *eh = ar_path(r->log, "build.err");

		set_failure("build", ri, -1, &res, eh);
		free(eh);
		describe(d, sizeof d, &res);
		end = res.timed_out ? end_run(ri, END_TIMEOUT, "build timed "
		    "out after %g s", B.m.build.timeout_s) : end_run(ri,
		    END_CRASH, "build %s", d);
	}
	free(out);
	free(err);
	env_free(&e);
	return end;
}

static void
start_runner(int ri)
{
	struct role *r = &B.role[ri];

	if (B.sandbox)
		role_sandbox(ri, 0, &r->run);
	else {
		struct ar_sandbox sb = B.base_sb;

		sandbox_start(&r->run, &sb, role_name[ri]);
	}
	r->started = 1;
}

/* The sealed checks commands, once per method after its build. */
static int
run_gate_commands(int ri)
{
	struct role *r = &B.role[ri];
	size_t i;

	for (i = 0; i < B.m.ngate; i++) {
		const struct ar_check *g = &B.m.gate[i];
		struct env e = {0};
		struct ar_jobres res;
		char *out, *err, d[300];

		if (!g->command)
			continue;
		env_base(&e, r);
		env_add(&e, "AR_PROBLEM", r->v_problem);
		env_add(&e, "AR_METHOD", r->v_method);
		out = vpath(r->v_log, "gate.out");
		err = vpath(r->v_log, "gate.err");
		job(&r->run, g->command, r->v_method, &e, out, err, NULL, 1,
		    B.m.run.timeout_s, &res);
		free(out);
		free(err);
		env_free(&e);
		if (ri == R_METH)
			B.gate_runs[i]++;
		if (!res_ok(&res)) {
			char *eh = ar_path(r->log, "gate.err");

			if (ri == R_METH)
				B.gate_pass[i] = 0;
			set_failure("gate", ri, -1, &res, eh);
			free(eh);
			describe(d, sizeof d, &res);
			if (res.timed_out)
				return end_run(ri, END_TIMEOUT, "gate %s timed "
				    "out after %g s", g->text,
				    B.m.run.timeout_s);
			return end_run(ri, END_INVALID, "gate %s failed: %s",
			    g->text, d);
		}
	}
	return END_NONE;
}

static void
run_prepare(unsigned long long seed)
{
	struct role *j = &B.role[R_JUDGE];
	struct env e = {0};
	struct ar_jobres res;
	char num[32], *out, *err, d[300];
	char *clean[] = { B.sandbox ? "/ar/in" : NULL, B.sandbox ? "/ar/ref" :
	    NULL, NULL };
	char *in = ar_path(B.session, "in"), *ref = ar_path(B.session, "ref");

	if (!B.sandbox) {
		clean[0] = in;
		clean[1] = ref;
	}
	if (!B.m.prepare.cmd) {
		free(in);
		free(ref);
		return;
	}
	env_base(&e, j);
	env_add(&e, "AR_PROBLEM", j->v_method);
	env_add(&e, "AR_IN", j->v_in);
	env_add(&e, "AR_REF", B.sandbox ? "/ar/ref" : ref);
	snprintf(num, sizeof num, "%llu", seed);
	env_add(&e, "AR_SEED", num);
	out = vpath(j->v_log, "prepare.out");
	err = vpath(j->v_log, "prepare.err");
	job(&j->run, B.m.prepare.cmd, j->v_method, &e, out, err, clean, 0,
	    B.m.prepare.timeout_s, &res);
	if (!res_ok(&res)) {
		char *eh = ar_path(j->log, "prepare.err"), *t = ar_tail_of(eh), *o;

		o = strrchr(t, '\n');
		describe(d, sizeof d, &res);
		ar_die(AR_EX_DATA, "the problem's prepare stage failed: %s%s%s",
		    d, t[0] ? "; stderr ends: " : "", o ? o + 1 : t);
	}
	free(out);
	free(err);
	free(in);
	free(ref);
	env_free(&e);
}

static int
read_metrics(const char *path, struct sample *s, char *why, size_t n)
{
	struct ar_buf b = {0};
	struct ar_metric *mv = NULL;
	size_t nm = 0, i, k;
	char err[300];

	if (ar_readfile(path, &b, AR_LINE_MAX) < 0) {
		snprintf(why, n, "the score's output: %s", strerror(errno));
		ar_buf_free(&b);
		return -1;
	}
	if (ar_metrics_parse(b.p ? b.p : "", b.len, &mv, &nm, err,
	    sizeof err) < 0) {
		snprintf(why, n, "the score's output: %s", err);
		ar_buf_free(&b);
		return -1;
	}
	for (i = 0; i < nm; i++)
		for (k = 0; k < B.nmetric; k++)
			if (strcmp(B.metric[k], mv[i].name) == 0)
				s->val[k] = mv[i].value;
	free(mv);
	ar_buf_free(&b);
	return 0;
}

/* One timed run of a role and its score. */
static int
run_one(int ri, long pair, unsigned long long seed, struct sample **out)
{
	struct role *r = &B.role[ri], *j = &B.role[R_JUDGE];
	struct env e = {0};
	struct ar_jobres res, sres;
	struct sample *s;
	char *o, *er, d[300], num[64], why[400];
	char *clean[] = { (char *)r->v_out, NULL };

	env_base(&e, r);
	env_add(&e, "AR_PROBLEM", r->v_problem);
	env_add(&e, "AR_METHOD", r->v_method);
	env_add(&e, "AR_IN", r->v_in);
	env_add(&e, "AR_OUT", r->v_out);
	o = vpath(r->v_log, "run.out");
	er = vpath(r->v_log, "run.err");
	job(&r->run, B.m.run.cmd, r->v_method, &e, o, er, clean, 1,
	    B.m.run.timeout_s, &res);
	free(o);
	free(er);
	env_free(&e);
	r->leftovers += res.leftovers;
	if (!res_ok(&res)) {
		char *eh = ar_path(r->log, "run.err");

		set_failure("run", ri, pair, &res, eh);
		free(eh);
		describe(d, sizeof d, &res);
		if (res.timed_out)
			return end_run(ri, END_TIMEOUT, "run timed out after %g "
			    "s (pair %ld)", B.m.run.timeout_s, pair);
		/* The error text (a CUDA error, an assertion) is the most
		 * useful part of a crash: its last stderr line goes in why. */
		if (ri == R_METH && !B.aa && B.fail.tail && B.fail.tail[0]) {
			const char *nl = strrchr(B.fail.tail, '\n');

			return end_run(ri, END_CRASH, "run %s (pair %ld); stderr "
			    "ends: %.200s", d, pair, nl ? nl + 1 : B.fail.tail);
		}
		return end_run(ri, END_CRASH, "run %s (pair %ld)", d, pair);
	}
	*out = s = new_sample(ri);
	s->wall = res.wall;
	s->user = res.user;
	s->sys = res.sys;
	s->rss = res.maxrss_kb;
	/* Affinity is a hint a process may widen; CPU time is not: a run
	 * cannot use more than k CPUs for its wall time. */
	if (res.user + res.sys > (double)B.ncpu * res.wall * 1.10 + 0.02)
		return end_run(ri, END_INVALID, "used more than its %zu CPU%s: "
		    "%.3f s of CPU time in %.3f s (pair %ld)", B.ncpu, B.ncpu ==
		    1 ? "" : "s", res.user + res.sys, res.wall, pair);
	/* The score reads only plain files and directories: a symbolic
	 * link could point it at something the run was not shown. */
	{
		struct ar_tree t;
		size_t i;

		if (ar_tree_scan(r->out, &t, 0, why, sizeof why) < 0)
			return end_run(ri, END_INVALID, "its output: %s (pair "
			    "%ld)", why, pair);
		for (i = 0; i < t.n; i++)
			if (!S_ISREG(t.e[i].mode) && !S_ISDIR(t.e[i].mode))
				break;
		if (i < t.n) {
			snprintf(why, sizeof why, "the run left %s in its "
			    "output, not a plain file: %s", S_ISLNK(t.e[i].mode)
			    ? "a symbolic link" : "a special file", t.e[i].path);
			ar_tree_free(&t);
			return end_run(ri, END_INVALID, "%s (pair %ld)", why,
			    pair);
		}
		ar_tree_free(&t);
	}

	env_base(&e, j);
	env_add(&e, "AR_PROBLEM", j->v_method);
	env_add(&e, "AR_IN", j->v_in);
	o = ar_path(B.session, "ref");
	env_add(&e, "AR_REF", B.sandbox ? "/ar/ref" : o);
	free(o);
	env_add(&e, "AR_OUT", B.sandbox ? (ri == R_BASE ? "/ar/out/baseline"
	    : "/ar/out/method") : r->out);
	snprintf(num, sizeof num, "%llu", seed);
	env_add(&e, "AR_SEED", num);
	snprintf(num, sizeof num, "%.9f", res.wall);
	env_add(&e, "AR_WALL_S", num);
	snprintf(num, sizeof num, "%.6f", res.user);
	env_add(&e, "AR_USER_S", num);
	snprintf(num, sizeof num, "%.6f", res.sys);
	env_add(&e, "AR_SYS_S", num);
	snprintf(num, sizeof num, "%ld", res.maxrss_kb);
	env_add(&e, "AR_MAXRSS_KB", num);
	o = vpath(j->v_log, "score.out");
	er = vpath(j->v_log, "score.err");
	job(&B.score, B.m.score.cmd, j->v_method, &e, o, er, NULL, 0,
	    B.m.score.timeout_s, &sres);
	free(o);
	free(er);
	env_free(&e);
	if (!res_ok(&sres)) {
		char *eh = ar_path(j->log, "score.err");

		set_failure("score", ri, pair, &sres, eh);
		free(eh);
		describe(d, sizeof d, &sres);
		return end_run(ri, END_INVALID, "score %s on the %s's run "
		    "(pair %ld)", d, role_name[ri], pair);
	}
	o = ar_path(j->log, "score.out");
	if (read_metrics(o, s, why, sizeof why) < 0) {
		free(o);
		return end_run(ri, END_INVALID, "%s (pair %ld)", why, pair);
	}
	free(o);
	/* ar-bench's own measurements, for guardrails that name them. */
	{
		size_t i;

		for (i = 0; i < B.nmetric; i++) {
			if (strcmp(B.metric[i], "wall_s") == 0)
				s->val[i] = res.wall;
			else if (strcmp(B.metric[i], "cpu_s") == 0)
				s->val[i] = res.user + res.sys;
			else if (strcmp(B.metric[i], "maxrss_kb") == 0)
				s->val[i] = (double)res.maxrss_kb;
		}
	}
	return check_run(ri, s, pair);
}

/* ---- statistics and the result ---- */

static json_t *
real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* median, a distribution-free 95% interval of it (order statistics),
 * n and the robust relative spread (1.4826 MAD / median). */
static json_t *
summary(const double *v, size_t n)
{
	double *c, med, lo, hi, h;
	size_t i, m = 0;
	long a, b;

	c = ar_xmalloc((n + 1) * sizeof *c);
	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			c[m++] = v[i];
	if (m == 0) {
		free(c);
		return json_pack("{s:i}", "n", 0);
	}
	for (i = 1; i < m; i++) {
		double t = c[i];
		size_t j = i;

		for (; j > 0 && c[j - 1] > t; j--)
			c[j] = c[j - 1];
		c[j] = t;
	}
	med = ar_median(c, m);
	h = 1.959964 * sqrt((double)m) / 2;
	a = (long)floor(m / 2.0 - h);
	b = (long)ceil(m / 2.0 + h);
	if (a < 0)
		a = 0;
	if (b > (long)m - 1)
		b = (long)m - 1;
	lo = c[a];
	hi = c[b];
	{
		json_t *o = json_pack("{s:o, s:o, s:o, s:I, s:o}", "median",
		    real(med), "ci_lo", real(lo), "ci_hi", real(hi), "n",
		    (json_int_t)m, "rsd", real(med != 0 ? 1.4826 *
		    ar_mad(c, m) / fabs(med) : NAN));

		free(c);
		return o;
	}
}

static json_t *
role_metrics(int ri, size_t from, size_t to)
{
	struct role *r = &B.role[ri];
	json_t *o = json_object();
	double *v = ar_xmalloc((r->ns + 1) * sizeof *v);
	size_t k, i;

	for (k = 0; k < B.nmetric; k++) {
		for (i = from; i < to; i++)
			v[i - from] = r->s[i].val[k];
		json_object_set_new(o, B.metric[k], summary(v, to - from));
	}
	for (i = from; i < to; i++)
		v[i - from] = r->s[i].wall;
	json_object_set_new(o, "wall_s", summary(v, to - from));
	for (i = from; i < to; i++)
		v[i - from] = r->s[i].user + r->s[i].sys;
	json_object_set_new(o, "cpu_s", summary(v, to - from));
	for (i = from; i < to; i++)
		v[i - from] = (double)r->s[i].rss;
	json_object_set_new(o, "maxrss_kb", summary(v, to - from));
	free(v);
	return o;
}

static json_t *
raw_of(int ri, size_t from, size_t to)
{
	struct role *r = &B.role[ri];
	json_t *o = json_object(), *a = json_array(), *w = json_array();
	size_t k = track(B.m.metric.name), i;

	for (i = from; i < to; i++) {
		json_array_append_new(a, real(r->s[i].val[k]));
		json_array_append_new(w, json_real(r->s[i].wall));
	}
	json_object_set_new(o, B.m.metric.name, a);
	json_object_set_new(o, "wall_s", w);
	return o;
}

static void
progress(const struct session *se, int force)
{
	static double last;
	struct ar_interval ci;
	double t = ar_mono(), conf;

	if (!B.progress || (!force && t - last < 1))
		return;
	last = t;
	if (se->n < 2) {
		fprintf(stderr, "%s: %s seeds: pair %zu\n", ar_prog(), se->seeds,
		    se->npairs);
		return;
	}
	conf = 1 - B.vo.alpha / (double)ar_verdict_looks(&B.vo);
	ar_signed_rank_ci(se->x, se->n, conf, &ci.est, &ci.lo, &ci.hi);
	fprintf(stderr, "%s: %s seeds: pair %zu: ratio %.4f [%.4f, %.4f]\n",
	    ar_prog(), se->seeds, se->npairs, exp(ci.est), exp(ci.lo),
	    exp(ci.hi));
}

static unsigned long long
seed_of(const char *kind, size_t pair)
{
	size_t n = B.w->nseed;

	if (strcmp(kind, "holdout") == 0)
		return ar_seed_derive(B.hkey, sizeof B.hkey, "holdout",
		    B.w->name, pair, 0);
	return ar_seed_derive(NULL, 0, "dev", B.w->name, B.w->seed[pair % n],
	    pair / n);
}

/* Pairs until the verdict or the end. Returns END_* of what ended it, the
 * verdict in se. */
static int
session_run(struct session *se)
{
	double t0 = ar_mono(), el;
	int first = 0, end = END_NONE;
	size_t p;

	se->first_sample[0] = B.role[R_BASE].ns;
	se->first_sample[1] = B.role[R_METH].ns;
	se->verdict = AR_V_CONTINUE;
	for (p = 0; end == END_NONE; p++) {
		unsigned long long seed = seed_of(se->seeds, p);
		struct sample *sb = NULL, *sm = NULL;
		int o[2], i, warm = (long)p < B.warmup, last;

		/* Warm-up runs count for the checks, not the statistics. */
		if ((long)p == B.warmup) {
			se->first_sample[0] = B.role[R_BASE].ns;
			se->first_sample[1] = B.role[R_METH].ns;
		}
		run_prepare(seed);
		/* Balanced: every two pairs, one AB and one BA, the first
		 * of the two drawn at random. */
		/* The very first pair runs the baseline first, so a problem
		 * broken for everyone fails on the baseline, not on a coin
		 * toss; the next pair of its block is the other way round. */
		if (p == 0)
			first = 0;
		else if ((warm ? p : p - (size_t)B.warmup) % 2 == 0)
			first = randombytes_uniform(2);
		else
			first = !first;
		o[0] = first ? R_METH : R_BASE;
		o[1] = first ? R_BASE : R_METH;
		for (i = 0; i < 2 && end == END_NONE; i++)
			end = run_one(o[i], (long)p, seed, o[i] == R_BASE ? &sb
			    : &sm);
		if (end == END_NONE)
			end = check_guards(sm, sb, (long)p);
		if (end != END_NONE)
			break;
		if (warm)
			continue;
		if (se->n == se->cap) {
			se->cap = se->cap ? 2 * se->cap : 64;
			se->x = ar_xrealloc(se->x, se->cap * sizeof *se->x);
			se->order = ar_xrealloc(se->order, se->cap + 1);
		}
		{
			double b = sb->val[0], m = sm->val[0];

			se->x[se->n] = B.m.metric.higher ? log(m / b) :
			    log(b / m);
		}
		se->order[se->n++] = first ? 'm' : 'b';
		se->order[se->n] = 0;
		se->npairs = p + 1;
		el = ar_mono() - t0;
		/* The time limit ends the session at the pair that would
		 * cross it. */
		last = se->n >= B.vo.max_pairs ||
		    el + el / (double)(p + 1) > B.time_s;
		progress(se, 0);
		if (!ar_verdict_look(se->n, &B.vo) && !last)
			continue;
		se->verdict = ar_verdict(se->x, se->n, &B.vo, last, &se->ci);
		/* With --stop-at, the scheduler's question ends the session:
		 * a verdict decided first does not, since the scheduler
		 * sized the measurement for its own question, and the
		 * verdict taken where the session ends is one of its looks
		 * (each at alpha / looks), whichever that is. */
		if (se->verdict != AR_V_CONTINUE && (!(B.stop_at > 0) || last))
			break;
		/* The scheduler's question (does the ratio clear the
		 * incumbent?) is asked at 95% per look, as ar-sched
		 * simulate models it; its errors cost the scheduler a miss,
		 * never a verdict: the verdict keeps its own confidence,
		 * and is inconclusive where it is undecided. */
		if (B.stop_at > 0) {
			double est, lo, hi;

			ar_signed_rank_ci(se->x, se->n, 0.95, &est, &lo, &hi);
			if (isfinite(lo) && isfinite(hi) && (lo > log(B.stop_at) ||
			    hi < log(B.stop_at))) {
				se->verdict = ar_verdict(se->x, se->n, &B.vo, 1,
				    &se->ci);
				se->stopped = se->verdict == AR_V_INCONCLUSIVE;
				se->stop_lo = lo;
				se->stop_hi = hi;
				break;
			}
		}
	}
	se->npairs = p + (end == END_NONE ? 1 : 0);
	se->secs = ar_mono() - t0;
	se->end = end;
	if (end == END_NONE)
		progress(se, 1);
	/* The interval is reported whatever ended the session, at the
	 * confidence of a look; with too few pairs for it, it is
	 * unbounded (null in the result). */
	se->conf = 1 - B.vo.alpha / (double)ar_verdict_looks(&B.vo);
	if (se->n >= 1) {
		ar_signed_rank_ci(se->x, se->n, se->conf, &se->ci.est,
		    &se->ci.lo, &se->ci.hi);
		se->ci.n = se->n;
		se->outliers = ar_mad_outliers(se->x, se->n, 3.5);
	}
	snprintf(se->why, sizeof se->why, "%s", end_why);
	return end;
}

static json_t *
ratio_of(const struct session *se)
{
	if (se->n < 1)
		return json_pack("{s:i}", "n", 0);
	/* An unbounded interval (too few pairs) is null, not 0 or inf. */
	return json_pack("{s:o, s:o, s:o, s:I, s:f}", "median",
	    real(exp(se->ci.est)), "ci_lo", real(isfinite(se->ci.lo) ?
	    exp(se->ci.lo) : NAN), "ci_hi", real(isfinite(se->ci.hi) ?
	    exp(se->ci.hi) : NAN), "n", (json_int_t)se->n, "conf",
	    se->conf > 0 ? se->conf : 0.0);
}

static const char *
verdict_text(const struct session *se, char *why, size_t n)
{
	double m = B.vo.min_effect * 100;

	switch (se->end) {
	case END_CRASH: snprintf(why, n, "%s", se->why); return "crash";
	case END_TIMEOUT: snprintf(why, n, "%s", se->why); return "timeout";
	case END_INVALID: snprintf(why, n, "%s", se->why); return "invalid";
	case END_DISCARD: snprintf(why, n, "%s", se->why); return "discard";
	default: break;
	}
	switch (se->verdict) {
	case AR_V_KEEP:
		snprintf(why, n, "%.2f%% better (CI %.2f%% to %.2f%%) over "
		    "%zu pairs clears the minimum effect of %g%%",
		    100 * (exp(se->ci.est) - 1), 100 * (exp(se->ci.lo) - 1),
		    100 * (exp(se->ci.hi) - 1), se->n, m);
		return "keep";
	case AR_V_DISCARD:
		snprintf(why, n, "no gain of %g%% is plausible: ratio %.4f, CI "
		    "up to %.4f over %zu pairs", m, exp(se->ci.est),
		    exp(se->ci.hi), se->n);
		return "discard";
	case AR_V_EQUIVALENT:
		snprintf(why, n, "the same within %g%%: ratio %.4f, CI %.4f to "
		    "%.4f over %zu pairs", m, exp(se->ci.est), exp(se->ci.lo),
		    exp(se->ci.hi), se->n);
		return "equivalent";
	default:
		if (se->stopped)
			snprintf(why, n, "stopped by --stop-at %g after %zu pairs: "
			    "ratio %.4f, its 95%% interval %.4f to %.4f clearly "
			    "%s it; the minimum effect of %g%% is undecided",
			    B.stop_at, se->n, exp(se->ci.est), exp(se->stop_lo),
			    exp(se->stop_hi), se->stop_lo > log(B.stop_at) ?
			    "above" : "below", m);
		else if (!isfinite(se->ci.lo) || !isfinite(se->ci.hi))
			snprintf(why, n, "undecided after %zu pair%s in %.0f s: "
			    "ratio %.4f, too few pairs for an interval", se->n,
			    se->n == 1 ? "" : "s", se->secs, se->n ?
			    exp(se->ci.est) : 1.0);
		else
			snprintf(why, n, "undecided after %zu pairs in %.0f s: "
			    "ratio %.4f, CI %.4f to %.4f", se->n, se->secs,
			    exp(se->ci.est), exp(se->ci.lo), exp(se->ci.hi));
		return "inconclusive";
	}
}

static json_t *
checks_json(const struct ar_check *c, size_t n, const size_t *runs,
    const int *pass, const double *worst)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s, s:b, s:I}", "check", c[i].text,
		    "pass", pass[i], "runs", (json_int_t)runs[i]);

		if (c[i].metric && runs[i])
			json_object_set_new(o, "worst", real(worst[i]));
		json_array_append_new(a, o);
	}
	return a;
}

/* 1 when the first run of a role was slow against the rest. */
static int
slow_first(int ri)
{
	struct role *r = &B.role[ri];
	double *w, med, s;
	size_t i;
	int slow;

	if (r->ns < 4)
		return 0;
	w = ar_xmalloc(r->ns * sizeof *w);
	for (i = 0; i < r->ns; i++)
		w[i] = r->s[i].wall;
	med = ar_median(w + 1, r->ns - 1);
	s = 1.4826 * ar_mad(w + 1, r->ns - 1);
	slow = w[0] > 1.2 * med && w[0] > med + 3.5 * s;
	free(w);
	return slow;
}


/* ---- the roofline of a result ---- */

/* Above this many times the measured limit a result is impossible: the
 * limit is measured, not the datasheet's, so a method may beat it a
 * little, never by this much. */
#define ROOF_IMPOSSIBLE 1.2

/* The machine profile for this node, device and bundle: the bundle's own,
 * else the k=1 one times k. A profile that does not verify under the
 * campaign's key stops the measurement (exit 1), like a broken seal. */
static void
load_profile(void)
{
	char host[256], err[512];
	unsigned char pk[AR_PK_BYTES];
	long k = B.ngpu ? (long)B.ngpu : B.k;
	struct ar_buf b = {0};
	json_error_t je;
	json_t *o;
	int pass;

	if (isnan(B.w->bytes) && isnan(B.w->flops))
		return;
	snprintf(host, sizeof host, "%s", ar_host());
	crypto_sign_ed25519_sk_to_pk(pk, B.sk);
	for (pass = 0; pass < 2; pass++) {
		char *path = ar_profile_path(B.camp.dir, host, B.device,
		    pass ? 1 : k);

		if (pass && k == 1) {
			free(path);
			break;
		}
		if (ar_readfile(path, &b, 1 << 20) < 0) {
			if (errno != ENOENT)
				ar_die(ar_errno_exit(errno), "%s:", path);
			free(path);
			continue;
		}
		o = json_loadb(b.p, b.len, JSON_REJECT_DUPLICATES, &je);
		if (!json_is_object(o) || !json_is_object(json_object_get(o,
		    "roofline")))
			ar_die(AR_EX_DATA, "%s: not a machine profile: %s", path,
			    o ? "no roofline" : je.text);
		if (ar_json_verify(o, pk, err, sizeof err) < 0)
			ar_die(AR_EX_NO, "%s: %s; a machine profile must be signed "
			    "by this campaign's key (run ar-bench --roofline "
			    "again)", path, err);
		B.profile = o;
		B.profile_path = path;
		B.profile_scale = pass ? (double)k : 1;
		break;
	}
	ar_buf_free(&b);
	if (!B.profile)
		ar_warn("no machine profile for %s %s k=%ld in %s/machine (ar-bench "
		    "--roofline makes one); no roofline fields", host, B.device,
		    k, B.camp.dir);
}

/* The rate each role reached against the machine's limits, from the
 * median wall time of its runs. The wall time holds the process's start
 * and more, so the rate is a lower bound: above the limit is impossible. */
static void
roofline_fields(json_t *o, size_t from_b, size_t from_m)
{
	json_t *rf = json_object(), *f[2] = { NULL, NULL };
	const char *slash = strrchr(B.profile_path, '/');
	const char *v = json_string_value(json_object_get(o, "verdict"));
	int ri;

	json_object_set_new(rf, "profile", json_string(slash ? slash + 1 :
	    B.profile_path));
	if (B.profile_scale != 1)
		json_object_set_new(rf, "scaled_from_k1", json_real(
		    B.profile_scale));
	for (ri = R_BASE; ri <= R_METH; ri++) {
		size_t from = ri == R_BASE ? from_b : from_m, n, i;
		double *w, med;

		if (B.role[ri].ns <= from)
			continue;
		n = B.role[ri].ns - from;
		w = ar_xmalloc(n * sizeof *w);
		for (i = 0; i < n; i++)
			w[i] = B.role[ri].s[from + i].wall;
		med = ar_median(w, n);
		free(w);
		f[ri] = ar_roofline_fraction(B.profile, isnan(B.w->bytes) ? 0 :
		    B.w->bytes, isnan(B.w->flops) ? 0 : B.w->flops, B.w->dtype,
		    med, B.profile_scale);
		json_object_set_new(f[ri], "wall_s", json_real(med));
		json_object_set(rf, role_name[ri], f[ri]);
		json_decref(f[ri]);
	}
	json_object_set_new(o, "roofline", rf);
	if (v && (strcmp(v, "crash") == 0 || strcmp(v, "invalid") == 0 ||
	    strcmp(v, "timeout") == 0))
		return;
	for (ri = R_METH; ri >= R_BASE; ri--) {
		double m = json_number_value(json_object_get(f[ri], "mem_frac"));
		double c = json_number_value(json_object_get(f[ri],
		    "compute_frac"));
		char why[600];

		if (!f[ri] || (m <= ROOF_IMPOSSIBLE && c <= ROOF_IMPOSSIBLE))
			continue;
		if (m > ROOF_IMPOSSIBLE)
			snprintf(why, sizeof why, "impossible: the %s moved %.4g "
			    "bytes/s, %.2fx the memory bandwidth measured on "
			    "this machine (%s); a run cannot beat the hardware "
			    "by that much, so the benchmark or the run is "
			    "broken", role_name[ri], json_number_value(
			    json_object_get(f[ri], "bytes_per_s")), m,
			    json_string_value(json_object_get(rf, "profile")));
		else
			snprintf(why, sizeof why, "impossible: the %s computed "
			    "%.4g flop/s, %.2fx the GEMM rate measured on this "
			    "machine (%s); a run cannot beat the hardware by "
			    "that much, so the benchmark or the run is broken",
			    role_name[ri], json_number_value(json_object_get(
			    f[ri], "flops_per_s")), c, json_string_value(
			    json_object_get(rf, "profile")));
		json_object_set_new(o, "verdict", json_string("invalid"));
		json_object_set_new(o, "why", json_string(why));
		break;
	}
}

static json_t *
result(json_t *method, const char *spec_idea, const char *experiment,
    struct session *dev, struct session *hold, const char *started)
{
	struct session *se = hold ? hold : dev;
	char why[700], id[AR_IDLEN], host[256], fin[40];
	const char *verdict;
	json_t *o, *cpus = json_array(), *flags = json_array();
	json_t *gpu_ids = json_array();
	size_t i, from_b = se->first_sample[0], from_m = se->first_sample[1];

	if (B.invalid_tree && B.conflict[0]) {
		verdict = "invalid";
		snprintf(why, sizeof why, "the method does not fit over the "
		    "baseline: %s", B.conflict);
	} else if (B.invalid_tree) {
		verdict = "invalid";
		snprintf(why, sizeof why, "the method changes files outside "
		    "the mutable paths: %s", B.outside);
	} else {
		verdict = verdict_text(se, why, sizeof why);
	}
	for (i = 0; i < B.ncpu; i++)
		json_array_append_new(cpus, json_integer(B.cpu[i]));
	for (i = 0; i < B.ngpu; i++)
		json_array_append_new(gpu_ids, json_integer(B.gpu[i]));
	snprintf(host, sizeof host, "%s", ar_host());
	ar_id_new(id);
	ar_time_now(fin, sizeof fin);
	o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, "
	    "s:{s:I, s:o, s:o, s:s}, s:s, s:s, s:s, s:b, s:s, s:s, s:s, "
	    "s:s, s:s, s:s}",
	    "id", id, "experiment", experiment, "campaign", B.camp.id,
	    "seal", B.camp.seal_hash, "method", method, "build", ar_build_id(),
	    "problem", B.m.name, "workload", B.w->name,
	    "shape", "k", (json_int_t)(B.ngpu ? (long)B.ngpu : B.k), "cpus",
	    cpus, "gpu_ids", gpu_ids,
	    "node", host,
	    "device", B.device, "sandbox", B.sandbox ? "bwrap" : "none",
	    "seeds", se->seeds, "aa", B.aa, "metric", B.m.metric.name,
	    "direction", B.m.metric.higher ? "higher" : "lower",
	    "verdict", verdict, "why", why, "started", started,
	    "finished", fin);
	if (!o)
		ar_die(AR_EX_SOFTWARE, "cannot build the result");
	if (spec_idea)
		json_object_set_new(o, "idea", json_string(spec_idea));
	if (B.m.metric.unit)
		json_object_set_new(o, "unit", json_string(B.m.metric.unit));
	json_object_set_new(o, "metrics", role_metrics(R_METH, from_m,
	    B.role[R_METH].ns));
	json_object_set_new(o, "baseline", role_metrics(R_BASE, from_b,
	    B.role[R_BASE].ns));
	json_object_set_new(o, "ratio", ratio_of(se));
	json_object_set_new(o, "gates", checks_json(B.m.gate, B.m.ngate,
	    B.gate_runs, B.gate_pass, B.gate_worst_v));
	json_object_set_new(o, "guardrails", checks_json(B.m.guard,
	    B.m.nguard, B.guard_runs, B.guard_pass, B.guard_worst_v));
	/* The checks as scalars, for tables: arrays of objects are not
	 * flattened into TSV columns. */
	{
		int g = 1, r = 1;

		for (i = 0; i < B.m.ngate; i++)
			g &= B.gate_pass[i];
		for (i = 0; i < B.m.nguard; i++)
			r &= B.guard_pass[i];
		json_object_set_new(o, "pass", json_pack("{s:b, s:b, s:b}",
		    "gates", g, "guardrails", r, "work", B.work_pass));
	}
	if (B.m.work_metric) {
		json_t *w = json_pack("{s:s, s:f, s:b, s:I}", "metric",
		    B.m.work_metric, "expected", B.w->work, "pass",
		    B.work_pass, "runs", (json_int_t)B.work_runs);

		if (!B.work_pass)
			json_object_set_new(w, "done", json_real(B.work_bad));
		json_object_set_new(o, "work", w);
	}
	json_object_set_new(o, "stats", json_pack("{s:I, s:I, s:I, s:f, s:I, "
	    "s:f, s:f, s:f, s:s}", "pairs", (json_int_t)se->n, "runs_pairs",
	    (json_int_t)se->npairs, "warmup", (json_int_t)B.warmup,
	    "min_effect", B.vo.min_effect, "outliers", (json_int_t)se->outliers,
	    "alpha", B.vo.alpha, "seconds", se->secs, "time_limit_s",
	    B.time_s, "test", "wilcoxon signed-rank, Hodges-Lehmann"));
	if (B.stop_at > 0)
		json_object_set_new(json_object_get(o, "stats"), "stop_at",
		    json_real(B.stop_at));
	if (se->n >= 2) {
		json_object_set_new(json_object_get(o, "stats"), "rsd",
		    real(1.4826 * ar_mad(se->x, se->n)));
	}
	/* A/A: the noise floor, what no method can be told apart from. */
	if (B.aa && se->n >= 2) {
		json_t *nf = json_pack("{s:o}", "rsd", real(1.4826 *
		    ar_mad(se->x, se->n)));

		if (isfinite(se->ci.lo) && isfinite(se->ci.hi))
			json_object_set_new(nf, "ci_half_width", real(
			    (exp(se->ci.hi) - exp(se->ci.lo)) / 2));
		json_object_set_new(o, "noise_floor", nf);
	}
	if (slow_first(R_BASE))
		json_array_append_new(flags, json_string("slow_first_run:"
		    "baseline"));
	if (slow_first(R_METH))
		json_array_append_new(flags, json_string("slow_first_run:"
		    "method"));
	if (B.role[R_METH].leftovers || B.role[R_BASE].leftovers)
		json_object_set_new(o, "leftovers", json_pack("{s:i, s:i}",
		    "baseline", B.role[R_BASE].leftovers, "method",
		    B.role[R_METH].leftovers));
	if (hold) {
		json_t *d = json_pack("{s:o, s:I, s:s}", "ratio", ratio_of(dev),
		    "pairs", (json_int_t)dev->n, "verdict", ar_verdict_name(
		    dev->verdict));
		/* Much better on dev than on holdout: tuned to the dev
		 * seeds. The intervals must not even touch. */
		int overfit = dev->n >= 2 && hold->n >= 2 &&
		    dev->ci.lo > hold->ci.hi &&
		    dev->ci.est - hold->ci.est > log1p(B.vo.min_effect);

		json_object_set_new(o, "dev", d);
		json_object_set_new(o, "overfit", json_boolean(overfit));
		if (overfit)
			json_array_append_new(flags, json_string("overfit"));
	}
	json_object_set_new(o, "flags", flags);
	if (B.fail.stage) {
		json_t *f = json_pack("{s:s, s:s, s:s}", "stage", B.fail.stage,
		    "role", B.fail.role, "stderr", B.fail.tail ? B.fail.tail :
		    "");

		if (B.fail.pair >= 0)
			json_object_set_new(f, "pair", json_integer(B.fail.pair));
		if (B.fail.has_status && WIFEXITED(B.fail.status))
			json_object_set_new(f, "exit", json_integer(
			    WEXITSTATUS(B.fail.status)));
		if (B.fail.has_status && WIFSIGNALED(B.fail.status)) {
			const char *sn = sigabbrev_np(WTERMSIG(B.fail.status));
			char *s = ar_xasprintf("SIG%s", sn ? sn : "?");

			json_object_set_new(f, "signal", json_string(s));
			free(s);
		}
		if (B.fail.timed_out)
			json_object_set_new(f, "timed_out", json_true());
		json_object_set_new(o, "failure", f);
	}
	if (B.profile)
		roofline_fields(o, from_b, from_m);
	{
		json_t *raw = json_pack("{s:o, s:o, s:s}", "baseline",
		    raw_of(R_BASE, from_b, B.role[R_BASE].ns), "method",
		    raw_of(R_METH, from_m, B.role[R_METH].ns), "order",
		    se->order ? se->order : "");

		json_object_set_new(o, "raw", raw);
	}
	return o;
}

/* ---- setup ---- */

static void
seal_report(void *arg, const char *state, const char *path,
    const char *detail)
{
	(void)arg;
	ar_warn("SEAL: problem/%s: %s%s%s", path, state, detail && detail[0] ?
	    ": " : "", detail ? detail : "");
}

static void
check_seal(void)
{
	char err[1024];
	int n = ar_seal_check(B.camp.dir, B.camp.id, B.camp.pk, seal_report,
	    NULL, err, sizeof err);

	if (n == -1)
		ar_die(AR_EX_NO, "%s: refusing to measure: %s", B.camp.dir, err);
	if (n < 0)
		ar_die(AR_EX_NO, "%s: refusing to measure: %s", B.camp.dir, err);
	if (n > 0)
		ar_die(AR_EX_NO, "%s: refusing to measure: the problem differs "
		    "from SEAL in %d file%s", B.camp.dir, n, n == 1 ? "" : "s");
}

static void
pick_cpus(long k)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof set, &set) < 0)
		ar_die(AR_EX_SOFTWARE, "sched_getaffinity:");
	for (i = 0; i < CPU_SETSIZE && (long)B.ncpu < k; i++)
		if (CPU_ISSET(i, &set))
			B.cpu[B.ncpu++] = i;
	if ((long)B.ncpu < k)
		ar_die(AR_EX_USAGE, "-k %ld: only %zu CPUs are available here",
		    k, B.ncpu);
}

static int
in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	copy = ar_xstrdup(path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	    dir = strtok_r(NULL, ":", &save)) {
		char *p = ar_path(dir, prog);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

static void
role_init(int ri)
{
	struct role *r = &B.role[ri];
	char *in = ar_path(B.session, "in");

	r->dir = ar_path(B.session, role_name[ri]);
	r->src = ar_path(r->dir, ri == R_JUDGE ? "judge" : "src");
	r->out = ar_path(r->dir, "out");
	r->log = ar_path(r->dir, "log");
	r->tmp = ar_path(r->dir, "tmp");
	r->run.pid = -1;
	if (ar_mkdirs(r->out, 0755) < 0 || ar_mkdirs(r->log, 0755) < 0 ||
	    ar_mkdirs(r->tmp, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", r->dir);
	if (B.sandbox) {
		r->v_method = ri == R_JUDGE ? "/ar/judge" : "/ar/method";
		r->v_out = "/ar/out";
		r->v_log = "/ar/log";
		r->v_in = "/ar/in";
		r->v_problem = "/ar/problem";
		free(in);
	} else {
		r->v_method = r->src;
		r->v_out = r->out;
		r->v_log = r->log;
		r->v_in = in;
		r->v_problem = B.problem;
	}
}

/* -G 0,1,2,3: the GPUs a bundle may use, given to the stages as
 * CUDA_VISIBLE_DEVICES. */
static void
parse_gpus(const char *s)
{
	const char *p = s;
	char *end = (char *)s;

	while (*p) {
		long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
		size_t i;

		if (v < 0 || v > 1023 || (*end && *end != ',') ||
		    (*end == ',' && !end[1]) ||
		    B.ngpu == sizeof B.gpu / sizeof *B.gpu)
			ar_die(AR_EX_USAGE, "-G %s: not a list of GPU ids like "
			    "0,1,2,3", s);
		for (i = 0; i < B.ngpu; i++)
			if (B.gpu[i] == v)
				ar_die(AR_EX_USAGE, "-G %s: GPU %ld given twice", s,
				    v);
		B.gpu[B.ngpu++] = v;
		p = *end ? end + 1 : end;
	}
	if (!B.ngpu)
		ar_die(AR_EX_USAGE, "-G: no GPU ids");
	/* The stages get the ids as parsed, not as typed. */
	{
		static char list[64 * 6];
		size_t i, len = 0;

		for (i = 0; i < B.ngpu; i++)
			len += (size_t)snprintf(list + len, sizeof list - len,
			    "%s%ld", i ? "," : "", B.gpu[i]);
		B.gpus = list;
	}
}

static long
int_arg(const char *opt, const char *s, long lo, long hi)
{
	long long v;

	if (ar_parse_long(s, &v) < 0 || v < lo || v > hi)
		ar_die(AR_EX_USAGE, "-%s %s: not a whole number from %ld to %ld",
		    opt, s, lo, hi);
	return (long)v;
}

/* --sched-pairs min,max: whole numbers, 1 <= min <= max <= 1000000. */
static void
sched_pairs(const char *s, long *lo, long *hi)
{
	long long a, b;
	const char *c = strchr(s, ',');
	char *first;
	int ok;

	if (!c)
		ar_die(AR_EX_USAGE, "--sched-pairs %s: expected min,max", s);
	first = ar_xasprintf("%.*s", (int)(c - s), s);
	ok = ar_parse_long(first, &a) == 0 && ar_parse_long(c + 1, &b) == 0 &&
	    a >= 1 && b >= a && b <= 1000000;
	free(first);
	if (!ok)
		ar_die(AR_EX_USAGE, "--sched-pairs %s: expected min,max, whole "
		    "numbers with 1 <= min <= max <= 1000000", s);
	*lo = (long)a;
	*hi = (long)b;
}

static double
num_arg(const char *opt, const char *s, double lo, double hi)
{
	double v;

	if (ar_parse_double(s, &v) < 0 || v < lo || v > hi)
		ar_die(AR_EX_USAGE, "-%s %s: not a number from %g to %g", opt, s,
		    lo, hi);
	return v;
}


/* The scratch session, removed at the end and on any error or signal. */
static void
start_session(void)
{
	const char *t = getenv("TMPDIR");
	char *tmpl = ar_xasprintf("%s/ar-bench.XXXXXX", t && t[0] ? t :
	    "/tmp");

	if (!mkdtemp(tmpl))
		ar_die(ar_errno_exit(errno), "%s:", tmpl);
	B.session = tmpl;
	ar_on_die(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- the roofline problem ---- */

/* The CUDA ordinal of GPU id: its place in CUDA_VISIBLE_DEVICES when that
 * is set (ar-run sets it to the bundle), else the id itself. */
static int
cuda_ordinal(long id)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	char *copy, *tok, *save = NULL;
	int i = 0, found = -1;

	if (!v || !*v)
		return (int)id;
	copy = ar_xstrdup(v);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",",
	    &save), i++) {
		char *end;
		long x = strtol(tok, &end, 10);

		if (*end == 0 && x == id) {
			found = i;
			break;
		}
	}
	free(copy);
	return found;
}

/* "cuda" or "cpu", from --device and what this machine has. */
static const char *
pick_device(const char *want, int gpus)
{
	char why[512];
	int n;

	if (strcmp(want, "cpu") == 0)
		return "cpu";
	if (strcmp(want, "cuda") != 0 && !gpus)
		return "cpu";
	n = ar_cuda_count(why, sizeof why);
	if (n > 0) {
		size_t i;

		for (i = 0; i < B.ngpu; i++)
			if (cuda_ordinal(B.gpu[i]) < 0 || cuda_ordinal(B.gpu[i]) >=
			    n) {
				if (strcmp(want, "cuda") == 0)
					ar_die(AR_EX_UNAVAILABLE, "-G %s: GPU %ld is "
					    "not one of the %d CUDA devices here",
					    B.gpus, B.gpu[i], n);
				ar_warn("-G %s: GPU %ld is not one of the %d CUDA "
				    "devices here; measuring on the cpu device",
				    B.gpus, B.gpu[i], n);
				return "cpu";
			}
		return "cuda";
	}
	if (n == 0)
		snprintf(why, sizeof why, "no CUDA device");
	if (strcmp(want, "cuda") == 0)
		ar_die(AR_EX_UNAVAILABLE, "cuda: %s", why);
	ar_warn("-G %s: %s; measuring on the cpu device", B.gpus ? B.gpus : "",
	    why);
	return "cpu";
}

static int
roofline_main(const char *dir, long k, long samples, long warmup,
    const char *want, int quiet, int verbose)
{
	struct ar_roofline_opts o = {0};
	char err[1024], host[256], started[40], fin[40], *keypath, *s;
	int ord[AR_RANKS_MAX], exe_ok;
	char exe[PATH_MAX];
	json_t *rec;
	const char *dev;
	long i, nr;

	ar_time_now(started, sizeof started);
	ar_crypto_init();
	ar_campaign_open(&B.camp, ar_campaign_default(dir));
	check_seal();
	{
		const char *kp = ar_conf_get(&B.camp.conf, "key");

		if (!kp)
			ar_die(AR_EX_DATA, "%s/campaign.conf: no key", B.camp.dir);
		keypath = kp[0] == '/' ? ar_xstrdup(kp) : ar_path(B.camp.dir,
		    kp);
		if (ar_key_read_secret(keypath, B.sk, err, sizeof err) < 0)
			ar_die(AR_EX_NOINPUT, "%s", err);
	}
	dev = pick_device(want, B.ngpu > 0);
	/* The ranks: one per GPU of -G, or one per CPU; a CPU bundle larger
	 * than the CPUs here shares them, and says so. */
	nr = B.ngpu ? (long)B.ngpu : k;
	if (nr > AR_RANKS_MAX)
		ar_die(AR_EX_USAGE, "%ld ranks: at most %d", nr, AR_RANKS_MAX);
	if (strcmp(dev, "cuda") == 0) {
		for (i = 0; i < nr; i++)
			ord[i] = cuda_ordinal(B.gpu[i]);
	} else {
		cpu_set_t set;
		int cpus[1024] = {0}, nc = 0, c;

		if (sched_getaffinity(0, sizeof set, &set) < 0)
			ar_die(AR_EX_SOFTWARE, "sched_getaffinity:");
		for (c = 0; c < CPU_SETSIZE && nc < 1024; c++)
			if (CPU_ISSET(c, &set))
				cpus[nc++] = c;
		if (nr > nc && !quiet)
			ar_warn("%ld ranks on %d CPUs: ranks share CPUs, so the "
			    "figures are the CPUs', not %ld", nr, nc, nr);
		for (i = 0; i < nr; i++)
			ord[i] = nc ? cpus[i % nc] : 0;
	}
	exe_ok = realpath("/proc/self/exe", exe) != NULL;
	if (!exe_ok)
		ar_die(AR_EX_SOFTWARE, "/proc/self/exe:");
	start_session();
	o.exe = exe;
	o.device = dev;
	o.k = (int)nr;
	o.ordinal = ord;
	o.scratch = B.session;
	o.aa = B.aa;
	o.samples = (int)(samples > 0 ? samples : B.aa ? 30 : 20);
	o.warmup = (int)(warmup >= 0 ? warmup : B.aa ? 2 : 3);
	o.target_ms = 10;
	o.progress = !quiet && (verbose || (isatty(2) && !getenv("NO_COLOR")));
	rec = ar_roofline_run(&o);
	if (!rec)
		ar_die(AR_EX_SOFTWARE, "cannot build the roofline record");
	check_interrupt();
	snprintf(host, sizeof host, "%s", ar_host());
	ar_time_now(fin, sizeof fin);
	{
		char id[AR_IDLEN];

		ar_id_new(id);
		json_object_set_new(rec, "id", json_string(id));
	}
	json_object_set_new(rec, "campaign", json_string(B.camp.id));
	json_object_set_new(rec, "node", json_string(host));
	json_object_set_new(rec, "build", json_string(ar_build_id()));
	json_object_set_new(rec, "started", json_string(started));
	json_object_set_new(rec, "finished", json_string(fin));
	ar_json_sign(rec, B.sk);
	s = ar_json_canon(rec);
	/* Only a whole profile replaces the last one; an A/A is no profile. */
	if (!B.aa && strcmp(json_string_value(json_object_get(rec,
	    "verdict")), "ok") == 0) {
		char *dir = ar_path(B.camp.dir, "machine");
		char *path = ar_profile_path(B.camp.dir, host, dev, nr);
		char *line = ar_xasprintf("%s\n", s);

		if (ar_mkdirs(dir, 0755) < 0)
			ar_die(ar_errno_exit(errno), "%s:", dir);
		if (ar_write_atomic(path, line, strlen(line), 0644) < 0)
			ar_die(ar_errno_exit(errno), "%s:", path);
		if (!quiet)
			ar_warn("machine profile: %s", path);
		free(line);
		free(path);
		free(dir);
	}
	cleanup();
	free(B.session);
	B.session = NULL;
	puts(s);
	ar_fshut(stdout, "<stdout>");
	free(s);
	free(keypath);
	json_decref(rec);
	return AR_EX_OK;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "aa", no_argument, NULL, 'A' },
		{ "no-sandbox", no_argument, NULL, 'N' },
		{ "roofline", no_argument, NULL, 'R' },
		{ "device", required_argument, NULL, 'D' },
		{ "stop-at", required_argument, NULL, 'Z' },
		{ "sched-pairs", required_argument, NULL, 'Y' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *spec = NULL, *wname = NULL, *seeds = "dev";
	const char *experiment = NULL, *idea = NULL;
	double T = -1, e = -1, rt = -1;
	long pmin = -1, pmax = -1, warm = -1, k = 1, spmin = -1, spmax = -1;
	int c, append = 0, quiet = 0, verbose = 0, roofline = 0, kset = 0;
	int exec_only = 0;
	const char *device = "auto";
	char err[1024], started[40], eid[AR_IDLEN], *keypath, *s;
	struct session dev = {0}, hold = {0};
	json_t *method, *res;
	size_t i;

	if (argc >= 3 && strcmp(argv[1], "--runner") == 0)
		return ar_runner_main(strcmp(argv[2], "sandbox") == 0);
	if (argc == 2 && strcmp(argv[1], "--rank") == 0) {
		ar_setprog(argv[0]);
		return ar_rank_main();
	}
	ar_setprog(argv[0]);
	ar_std_args(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "aC:e:G:i:k:Km:p:P:qS:t:T:vw:W:x:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'a': append = 1; exec_only = exec_only ? exec_only : 'a'; break;
		case 'A': B.aa = 1; break;
		case 'C': dir = optarg; break;
		case 'e': e = num_arg("e", optarg, 0, 0.99); exec_only = exec_only ? exec_only : 'e'; break;
		case 'G': B.gpus = optarg; break;
		case 'i': idea = optarg; exec_only = exec_only ? exec_only : 'i'; break;
		case 'k': k = int_arg("k", optarg, 1, 1024); kset = 1; break;
		case 'R': roofline = 1; break;
		case 'D': device = optarg; break;
		case 'Y': sched_pairs(optarg, &spmin, &spmax); exec_only = exec_only ? exec_only : 'Y'; break;
		case 'Z': B.stop_at = num_arg("-stop-at", optarg, 1e-6, 1e6); exec_only = exec_only ? exec_only : 'Z'; break;
		case 'K': B.keep = 1; exec_only = exec_only ? exec_only : 'K'; break;
		case 'm': spec = optarg; exec_only = exec_only ? exec_only : 'm'; break;
		case 'N': B.sandbox = -1; exec_only = exec_only ? exec_only : 'N'; break;
		case 'p': pmin = int_arg("p", optarg, 1, 1000000); exec_only = exec_only ? exec_only : 'p'; break;
		case 'P': pmax = int_arg("P", optarg, 1, 1000000); break;
		case 'q': quiet = 1; break;
		case 'S': seeds = optarg; exec_only = exec_only ? exec_only : 'S'; break;
		case 't': rt = num_arg("t", optarg, 0.001, 1e9); exec_only = exec_only ? exec_only : 't'; break;
		case 'T': T = num_arg("T", optarg, 0.001, 1e9); exec_only = exec_only ? exec_only : 'T'; break;
		case 'v': verbose = 1; break;
		case 'w': wname = optarg; exec_only = exec_only ? exec_only : 'w'; break;
		case 'W': warm = int_arg("W", optarg, 0, 1000000); break;
		case 'x': experiment = optarg; exec_only = exec_only ? exec_only : 'x'; break;
		default: ar_usage(usage);
		}
	}
	if (optind != argc)
		ar_usage(usage);
	if (strcmp(device, "auto") && strcmp(device, "cuda") &&
	    strcmp(device, "cpu"))
		ar_die(AR_EX_USAGE, "--device %s: auto, cuda or cpu", device);
	if (roofline) {
		if (exec_only == 'N')
			ar_die(AR_EX_USAGE, "--roofline: --no-sandbox is for exec "
			    "problems; the roofline runs no method");
		if (exec_only == 'Z' || exec_only == 'Y')
			ar_die(AR_EX_USAGE, "--roofline: --%s is for exec "
			    "problems", exec_only == 'Z' ? "stop-at" :
			    "sched-pairs");
		if (exec_only)
			ar_die(AR_EX_USAGE, "--roofline: -%c is for exec problems",
			    exec_only);
		if (B.gpus)
			parse_gpus(B.gpus);
		if (B.gpus && kset)
			ar_die(AR_EX_USAGE, "--roofline: -k and -G: a bundle is "
			    "CPUs or GPUs, not both");
		if (!B.gpus && strcmp(device, "cuda") == 0)
			ar_die(AR_EX_USAGE, "--device cuda: give the GPUs with -G");
		return roofline_main(dir, k, pmax, warm, device, quiet,
		    verbose);
	}
	if (!spec && !B.aa)
		ar_die(AR_EX_USAGE, "no method: give -m commit-or-directory, "
		    "or --aa to measure the baseline against itself");
	if (spec && B.aa)
		ar_die(AR_EX_USAGE, "--aa measures the baseline against itself; "
		    "it takes no -m");
	if (strcmp(seeds, "dev") && strcmp(seeds, "holdout") &&
	    strcmp(seeds, "both"))
		ar_die(AR_EX_USAGE, "-S %s: seeds are dev, holdout or both",
		    seeds);
	if (experiment && !ar_id_valid(experiment))
		ar_die(AR_EX_USAGE, "-x %s: not an id ([A-Za-z0-9._-], at most "
		    "%d)", experiment, AR_ID_MAX);
	if (idea && !ar_id_valid(idea))
		ar_die(AR_EX_USAGE, "-i %s: not an id ([A-Za-z0-9._-], at most "
		    "%d)", idea, AR_ID_MAX);
	B.sandbox = B.sandbox < 0 ? 0 : 1;
	if (B.gpus)
		parse_gpus(B.gpus);
	if (!B.gpus && strcmp(device, "cuda") == 0)
		ar_die(AR_EX_USAGE, "--device cuda: give the GPUs with -G");
	B.k = k;
	B.progress = !quiet && (verbose || (isatty(2) && !getenv("NO_COLOR")));
	ar_time_now(started, sizeof started);
	ar_crypto_init();

	/* The campaign, its seal and its key: nothing runs before they
	 * check. */
	dir = ar_campaign_default(dir);
	ar_campaign_open(&B.camp, dir);
	check_seal();
	{
		const char *kp = ar_conf_get(&B.camp.conf, "key");

		if (!kp)
			ar_die(AR_EX_DATA, "%s/campaign.conf: no key", dir);
		keypath = kp[0] == '/' ? ar_xstrdup(kp) : ar_path(dir, kp);
		if (ar_key_read_secret(keypath, B.sk, err, sizeof err) < 0)
			ar_die(AR_EX_NOINPUT, "%s", err);
	}
	/* Holdout seeds come from a key derived from the secret key. */
	crypto_generichash(B.hkey, sizeof B.hkey, (const unsigned char *)
	    "autoreduce holdout seeds", 24, B.sk, 32);
	B.problem = ar_path(B.camp.dir, "problem");
	{
		char real[PATH_MAX];

		if (realpath(B.problem, real)) {
			free(B.problem);
			B.problem = ar_xstrdup(real);
		}
	}
	if (ar_manifest_read(&B.m, B.problem, err, sizeof err) < 0)
		ar_die(AR_EX_DATA, "%s", err);
	B.w = &B.m.workload[0];
	if (wname) {
		for (i = 0; i < B.m.nworkload; i++)
			if (strcmp(B.m.workload[i].name, wname) == 0)
				break;
		if (i == B.m.nworkload) {
			struct ar_buf names = {0};

			for (i = 0; i < B.m.nworkload; i++)
				ar_buf_printf(&names, "%s%s", i ? ", " : "",
				    B.m.workload[i].name);
			ar_die(AR_EX_USAGE, "-w %s: no such workload in "
			    "problem.json (there are: %s)", wname, names.p);
		}
		B.w = &B.m.workload[i];
	}
	pick_cpus(k);
	B.device = pick_device(device, B.ngpu > 0);
	load_profile();
	B.vo.alpha = 0.05;
	B.vo.min_effect = e >= 0 ? e : B.m.min_effect >= 0 ? B.m.min_effect :
	    0.01;
	B.vo.max_pairs = (size_t)(pmax > 0 ? pmax : B.m.max_pairs > 0 ?
	    B.m.max_pairs : 2048);
	B.vo.min_pairs = (size_t)(pmin > 0 ? pmin : B.m.min_pairs > 0 ?
	    B.m.min_pairs : 16);
	/* A default gives way to a limit that was asked for. */
	if (pmin <= 0 && B.m.min_pairs <= 0 && B.vo.min_pairs > B.vo.max_pairs)
		B.vo.min_pairs = B.vo.max_pairs;
	/* The scheduler's size stands in for the manifest's limits and gives
	 * way to -p and -P, which a user may add to every run. */
	if (spmin > 0) {
		B.vo.max_pairs = (size_t)(pmax > 0 ? pmax : spmax);
		B.vo.min_pairs = (size_t)(pmin > 0 ? pmin : spmin);
		if (pmin <= 0 && B.vo.min_pairs > B.vo.max_pairs)
			B.vo.min_pairs = B.vo.max_pairs;
		if (pmax <= 0 && B.vo.max_pairs < B.vo.min_pairs)
			B.vo.max_pairs = B.vo.min_pairs;
	}
	if (B.vo.max_pairs < B.vo.min_pairs)
		ar_die(AR_EX_USAGE, "max pairs %zu (%s) is below min pairs %zu "
		    "(%s)", B.vo.max_pairs, pmax > 0 ? "-P" : "problem.json",
		    B.vo.min_pairs, pmin > 0 ? "-p" : "problem.json");
	B.time_s = T > 0 ? T : B.m.time_s > 0 ? B.m.time_s : 600;
	B.warmup = warm >= 0 ? warm : B.m.warmup >= 0 ? B.m.warmup : 1;
	/* A shorter run timeout can only make a method fail sooner, so it
	 * is the caller's to choose; a longer one is the problem's. */
	if (rt > 0 && rt < B.m.run.timeout_s)
		B.m.run.timeout_s = rt;
	track_all();

	if (B.sandbox) {
		B.bwrap = getenv("AR_BWRAP") ? getenv("AR_BWRAP") : "bwrap";
		if (!in_path(B.bwrap))
			ar_die(AR_EX_UNAVAILABLE, "%s: not found; ar-bench runs "
			    "methods in a bubblewrap sandbox (install "
			    "bubblewrap, or measure without one: "
			    "--no-sandbox)", B.bwrap);
	}
	start_session();
	for (i = 0; i < 3; i++)
		role_init((int)i);
	s = ar_path(B.session, "in");
	if (ar_mkdirs(s, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", s);
	free(s);
	s = ar_path(B.session, "ref");
	if (ar_mkdirs(s, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", s);
	free(s);
	/* The sandboxes hide the campaign (but problem/) and the key. */
	B.base_sb.on = B.sandbox;
	B.base_sb.bwrap = B.bwrap;
	B.base_sb.ngpu = B.ngpu;
	for (i = 0; i < B.ngpu; i++)
		B.base_sb.gpu[i] = (int)B.gpu[i];
	{
		static char camp_real[PATH_MAX], key_real[PATH_MAX];
		char *slash;

		if (realpath(B.camp.dir, camp_real))
			B.base_sb.mask[B.base_sb.nmask++] = camp_real;
		static char session_real[PATH_MAX];

		if (realpath(B.session, session_real))
			B.base_sb.mask[B.base_sb.nmask++] = session_real;
		if (realpath(keypath, key_real)) {
			if ((slash = strrchr(key_real, '/')) && slash != key_real)
				*slash = 0;
			B.base_sb.mask[B.base_sb.nmask++] = key_real;
		}
	}
	if (B.keep)
		ar_warn("scratch directory kept: %s", B.session);

	method = materialize(spec);
	if (!experiment) {
		ar_id_new(eid);
		experiment = eid;
	}
	dev.seeds = strcmp(seeds, "holdout") == 0 ? "holdout" : "dev";
	hold.seeds = "holdout";
	if (!B.invalid_tree) {
		if (ar_tree_copy(B.problem, B.role[R_JUDGE].src, err,
		    sizeof err) < 0)
			ar_die(ar_errno_exit(errno), "%s", err);
		judge_sandbox();
		run_setup();
		dev.end = run_build(R_BASE);
		if (dev.end == END_NONE)
			dev.end = run_build(R_METH);
		if (dev.end == END_NONE) {
			start_runner(R_BASE);
			start_runner(R_METH);
			dev.end = run_gate_commands(R_BASE);
			if (dev.end == END_NONE)
				dev.end = run_gate_commands(R_METH);
		}
		if (dev.end != END_NONE)
			snprintf(dev.why, sizeof dev.why, "%s", end_why);
		else if (session_run(&dev) == END_NONE &&
		    strcmp(seeds, "both") == 0)
			session_run(&hold);
	}
	res = result(method, idea, experiment, &dev,
	    strcmp(seeds, "both") == 0 && dev.end == END_NONE ? &hold : NULL,
	    started);
	cleanup();
	free(B.session);
	B.session = NULL;
	ar_json_sign(res, B.sk);
	s = ar_json_canon(res);
	if (append) {
		struct ar_ledger l;
		char *ld = ar_path(B.camp.dir, "ledger");
		int st;

		if (ar_ledger_open(&l, ld, 0, err, sizeof err) < 0)
			ar_die(AR_EX_NOINPUT, "%s", err);
		st = ar_ledger_store(&l, res);
		if (st < 0)
			ar_die(ar_errno_exit(errno), "%s: cannot append the "
			    "result:", ld);
		ar_ledger_close(&l);
		free(ld);
	}
	puts(s);
	ar_fshut(stdout, "<stdout>");
	free(s);
	free(keypath);
	json_decref(res);
	free(dev.x);
	free(dev.order);
	free(hold.x);
	free(hold.order);
	return AR_EX_OK;
}
