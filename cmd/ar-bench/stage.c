/* stage.c: one stage of a role, run as a job in the role's runner with a
 * clean environment: the problem's setup and prepare, a build, the sealed
 * gate commands, and a timed run with its score. A stage that fails is
 * recorded as the result's failure and ends the run (end_run); a broken
 * setup or prepare is the problem's, and stops ar-bench. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "buf.h"
#include "err.h"
#include "io.h"
#include "json.h"
#include "metric.h"
#include "runner.h"
#include "tree.h"
#include "utf8.h"
#include "bench.h"

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
env_base(struct bench *b, struct env *e, const struct role *r)
{
	size_t i;
	char num[32];
	const char *tmp = b->sandbox ? "/tmp" : r->tmp;

	env_add(e, "PATH", "/usr/local/bin:/usr/bin:/bin");
	env_add(e, "HOME", tmp);
	env_add(e, "TMPDIR", tmp);
	env_add(e, "LC_ALL", "C");
	for (i = 0; i < b->w->nenv; i++)
		env_add(e, b->w->envk[i], b->w->envv[i]);
	env_add(e, "AR_WORKLOAD", b->w->name);
	snprintf(num, sizeof num, "%ld", b->k);
	env_add(e, "AR_CPUS", num);
	if (b->gpus) {
		env_add(e, "CUDA_VISIBLE_DEVICES", b->gpus);
		snprintf(num, sizeof num, "%zu", b->ngpu);
		env_add(e, "AR_GPUS", num);
	}
}

/* What a stage printed on a holdout pair reaches the ledger, which agents
 * read, only in part: its last 200 bytes, the pair's seed masked. */
static void
bound_holdout(struct bench *b)
{
	char seed[32], *t = b->fail.tail, *p;
	size_t len = strlen(t), keep = 200, n;

	if (len > keep) {
		const char *from = t + len - keep;

		/* Start on a character, not inside one. */
		while (*from && ((unsigned char)*from & 0xc0) == 0x80)
			from++;
		memmove(t, from, strlen(from) + 1);
	}
	snprintf(seed, sizeof seed, "%llu", b->pair_seed);
	n = strlen(seed);
	while ((p = strstr(t, seed))) {
		memset(p, '#', n);
	}
}

static void
set_failure(struct bench *b, const char *stage, int role, long pair,
    const struct ar_jobres *res, const char *errpath)
{
	if (b->fail.stage)
		return;
	b->fail.stage = stage;
	b->fail.role = role_name[role];
	b->fail.pair = pair;
	if (res) {
		b->fail.status = res->status;
		b->fail.has_status = !res->lost && !res->timed_out;
		b->fail.timed_out = res->timed_out;
	}
	b->fail.tail = errpath ? ar_tail_of(errpath) : ar_xstrdup("");
	if (b->pair_holdout)
		bound_holdout(b);
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
job(struct bench *b, struct ar_runner *r, const char *cmd, const char *cwd,
    struct env *e, const char *out, const char *err, char *const *clean,
    int pin, double timeout, struct ar_jobres *res)
{
	struct ar_job j = {0};

	check_interrupt();
	j.cmd = cmd;
	j.cwd = cwd;
	j.out = out;
	j.err = err;
	j.env = e->v;
	j.clean = clean;
	j.cpu = pin ? b->cpu : NULL;
	j.ncpu = pin ? b->ncpu : 0;
	j.timeout_s = timeout;
	ar_runner_exec(r, &j, res);
	check_interrupt();
}

/* ---- stages ---- */

static char *
vpath(const char *dir, const char *name)
{
	return ar_path(dir, name);
}

void
run_setup(struct bench *b)
{
	struct role *j = &b->role[R_JUDGE];
	struct env e = {0};
	struct ar_jobres res;
	char *out, *err, *o, *eh, d[300];

	if (!b->m.setup.cmd)
		return;
	env_base(b, &e, j);
	env_add(&e, "AR_PROBLEM", j->v_method);
	out = vpath(j->v_log, "setup.out");
	err = vpath(j->v_log, "setup.err");
	job(b, &j->run, b->m.setup.cmd, j->v_method, &e, out, err, NULL, 0,
	    b->m.setup.timeout_s, &res);
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
int
run_build(struct bench *b, int ri)
{
	struct role *r = &b->role[ri];
	struct ar_runner br;
	struct env e = {0};
	struct ar_jobres res;
	char *out, *err, d[300];
	int end = END_NONE;

	if (!b->m.build.cmd)
		return END_NONE;
	if (b->sandbox)
		role_sandbox(b, ri, 1, &br);
	else {
		struct ar_sandbox sb = b->base_sb;

		sandbox_start(b, &br, &sb, "build");
	}
	env_base(b, &e, r);
	env_add(&e, "AR_PROBLEM", r->v_problem);
	env_add(&e, "AR_METHOD", r->v_method);
	out = vpath(r->v_log, "build.out");
	err = vpath(r->v_log, "build.err");
	job(b, &br, b->m.build.cmd, r->v_method, &e, out, err, NULL, 1,
	    b->m.build.timeout_s, &res);
	ar_runner_stop(&br);
	if (!res_ok(&res)) {
		char *eh = ar_path(r->log, "build.err");

		set_failure(b, "build", ri, -1, &res, eh);
		free(eh);
		describe(d, sizeof d, &res);
		end = res.timed_out ? end_run(b, ri, END_TIMEOUT, "build timed "
		    "out after %g s", b->m.build.timeout_s) : end_run(b, ri,
		    END_CRASH, "build %s", d);
	}
	free(out);
	free(err);
	env_free(&e);
	return end;
}

void
start_runner(struct bench *b, int ri)
{
	struct role *r = &b->role[ri];

	if (b->sandbox)
		role_sandbox(b, ri, 0, &r->run);
	else {
		struct ar_sandbox sb = b->base_sb;

		sandbox_start(b, &r->run, &sb, role_name[ri]);
	}
	r->started = 1;
}

/* The sealed checks commands, once per method after its build. */
int
run_gate_commands(struct bench *b, int ri)
{
	struct role *r = &b->role[ri];
	size_t i;

	for (i = 0; i < b->m.ngate; i++) {
		const struct ar_check *g = &b->m.gate[i];
		struct env e = {0};
		struct ar_jobres res;
		char *out, *err, d[300];

		if (!g->command)
			continue;
		env_base(b, &e, r);
		env_add(&e, "AR_PROBLEM", r->v_problem);
		env_add(&e, "AR_METHOD", r->v_method);
		out = vpath(r->v_log, "gate.out");
		err = vpath(r->v_log, "gate.err");
		job(b, &r->run, g->command, r->v_method, &e, out, err, NULL, 1,
		    b->m.run.timeout_s, &res);
		free(out);
		free(err);
		env_free(&e);
		if (ri == R_METH)
			b->gate_runs[i]++;
		if (!res_ok(&res)) {
			char *eh = ar_path(r->log, "gate.err");

			if (ri == R_METH)
				b->gate_pass[i] = 0;
			set_failure(b, "gate", ri, -1, &res, eh);
			free(eh);
			describe(d, sizeof d, &res);
			if (res.timed_out)
				return end_run(b, ri, END_TIMEOUT, "gate %s timed "
				    "out after %g s", g->text,
				    b->m.run.timeout_s);
			return end_run(b, ri, END_INVALID, "gate %s failed: %s",
			    g->text, d);
		}
	}
	return END_NONE;
}

/* Each role's fresh copy of the pair's inputs, made before either runs. */
static void
give_inputs(struct bench *b)
{
	const struct role *j = &b->role[R_JUDGE];
	char err[600];
	int ri;

	for (ri = R_BASE; ri <= R_METH; ri++) {
		const struct role *r = &b->role[ri];

		if (ar_rm_rf(r->in, 1) < 0)
			ar_die(ar_errno_exit(errno), "%s:", r->in);
		if (ar_tree_copy(j->in, r->in, err, sizeof err) < 0)
			ar_die(AR_EX_IO, "the pair's inputs: %s", err);
	}
}

void
run_prepare(struct bench *b, unsigned long long seed)
{
	struct role *j = &b->role[R_JUDGE];
	struct env e = {0};
	struct ar_jobres res;
	char num[32], *out, *err, d[300];
	char *clean[] = { b->sandbox ? "/ar/in" : NULL, b->sandbox ? "/ar/ref" :
	    NULL, NULL };
	char *in = ar_path(b->session, "in"), *ref = ar_path(b->session, "ref");

	if (!b->sandbox) {
		clean[0] = in;
		clean[1] = ref;
	}
	if (!b->m.prepare.cmd) {
		free(in);
		free(ref);
		give_inputs(b);
		return;
	}
	env_base(b, &e, j);
	env_add(&e, "AR_PROBLEM", j->v_method);
	env_add(&e, "AR_IN", j->v_in);
	env_add(&e, "AR_REF", b->sandbox ? "/ar/ref" : ref);
	snprintf(num, sizeof num, "%llu", seed);
	env_add(&e, "AR_SEED", num);
	out = vpath(j->v_log, "prepare.out");
	err = vpath(j->v_log, "prepare.err");
	job(b, &j->run, b->m.prepare.cmd, j->v_method, &e, out, err, clean, 0,
	    b->m.prepare.timeout_s, &res);
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
	give_inputs(b);
}

static int
read_metrics(struct bench *b, const char *path, struct sample *s, char *why,
    size_t n)
{
	struct ar_buf buf = {0};
	struct ar_metric *mv = NULL;
	size_t nm = 0, i, k;
	char err[300];

	if (ar_readfile(path, &buf, AR_LINE_MAX) < 0) {
		snprintf(why, n, "the score's output: %s", strerror(errno));
		ar_buf_free(&buf);
		return -1;
	}
	if (ar_metrics_parse(buf.p ? buf.p : "", buf.len, &mv, &nm, err,
	    sizeof err) < 0) {
		snprintf(why, n, "the score's output: %s", err);
		ar_buf_free(&buf);
		return -1;
	}
	for (i = 0; i < nm; i++)
		for (k = 0; k < b->nmetric; k++)
			if (strcmp(b->metric[k], mv[i].name) == 0)
				s->val[k] = mv[i].value;
	free(mv);
	ar_buf_free(&buf);
	return 0;
}

/* One timed run of a role and its score. */
int
run_one(struct bench *b, int ri, long pair, unsigned long long seed,
    struct sample **out)
{
	struct role *r = &b->role[ri], *j = &b->role[R_JUDGE];
	struct env e = {0};
	struct ar_jobres res, sres;
	struct sample *s;
	char *o, *er, d[300], num[64], why[400];
	/* Every timed run starts from the same state: nothing an earlier
	 * run wrote, in its output or beside its own logs, is left. */
	char *clean[] = { (char *)r->v_out, (char *)r->v_log, NULL };

	env_base(b, &e, r);
	env_add(&e, "AR_PROBLEM", r->v_problem);
	env_add(&e, "AR_METHOD", r->v_method);
	env_add(&e, "AR_IN", r->v_in);
	env_add(&e, "AR_OUT", r->v_out);
	o = vpath(r->v_log, "run.out");
	er = vpath(r->v_log, "run.err");
	job(b, &r->run, b->m.run.cmd, r->v_method, &e, o, er, clean, 1,
	    b->m.run.timeout_s, &res);
	free(o);
	free(er);
	env_free(&e);
	r->leftovers += res.leftovers;
	if (!res_ok(&res)) {
		char *eh = ar_path(r->log, "run.err");

		set_failure(b, "run", ri, pair, &res, eh);
		free(eh);
		describe(d, sizeof d, &res);
		if (res.timed_out)
			return end_run(b, ri, END_TIMEOUT, "run timed out after "
			    "%g s (pair %ld)", b->m.run.timeout_s, pair);
		/* The error text (a CUDA error, an assertion) is the most
		 * useful part of a crash: its last stderr line goes in why. */
		if (ri == R_METH && !b->aa && b->fail.tail && b->fail.tail[0]) {
			const char *nl = strrchr(b->fail.tail, '\n');
			const char *last = nl ? nl + 1 : b->fail.tail;

			/* Cut where a character ends: a half character
			 * would make the result JSON that cannot be
			 * written. */
			return end_run(b, ri, END_CRASH, "run %s (pair %ld); "
			    "stderr ends: %.*s", d, pair,
			    (int)ar_utf8_prefix(last, 200), last);
		}
		return end_run(b, ri, END_CRASH, "run %s (pair %ld)", d, pair);
	}
	*out = s = new_sample(b, ri);
	s->wall = res.wall;
	s->user = res.user;
	s->sys = res.sys;
	s->rss = res.maxrss_kb;
	/* Affinity is a hint a process may widen; CPU time is not: a run
	 * cannot use more than k CPUs for its wall time. */
	if (res.user + res.sys > (double)b->ncpu * res.wall * 1.10 + 0.02)
		return end_run(b, ri, END_INVALID, "used more than its %zu "
		    "CPU%s: %.3f s of CPU time in %.3f s (pair %ld)", b->ncpu,
		    b->ncpu == 1 ? "" : "s", res.user + res.sys, res.wall,
		    pair);
	/* The score reads only plain files and directories: a symbolic
	 * link could point it at something the run was not shown. */
	{
		struct ar_tree t;
		size_t i;

		if (ar_tree_scan(r->out, &t, 0, why, sizeof why) < 0)
			return end_run(b, ri, END_INVALID, "its output: %s (pair "
			    "%ld)", why, pair);
		for (i = 0; i < t.n; i++)
			if (!S_ISREG(t.e[i].mode) && !S_ISDIR(t.e[i].mode))
				break;
		if (i < t.n) {
			snprintf(why, sizeof why, "the run left %s in its "
			    "output, not a plain file: %s", S_ISLNK(t.e[i].mode)
			    ? "a symbolic link" : "a special file", t.e[i].path);
			ar_tree_free(&t);
			return end_run(b, ri, END_INVALID, "%s (pair %ld)", why,
			    pair);
		}
		ar_tree_free(&t);
	}

	env_base(b, &e, j);
	env_add(&e, "AR_PROBLEM", j->v_method);
	env_add(&e, "AR_IN", j->v_in);
	o = ar_path(b->session, "ref");
	env_add(&e, "AR_REF", b->sandbox ? "/ar/ref" : o);
	free(o);
	env_add(&e, "AR_OUT", b->sandbox ? (ri == R_BASE ? "/ar/out/baseline"
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
	job(b, &b->score, b->m.score.cmd, j->v_method, &e, o, er, NULL, 0,
	    b->m.score.timeout_s, &sres);
	free(o);
	free(er);
	env_free(&e);
	if (!res_ok(&sres)) {
		char *eh = ar_path(j->log, "score.err");

		set_failure(b, "score", ri, pair, &sres, eh);
		free(eh);
		describe(d, sizeof d, &sres);
		return end_run(b, ri, END_INVALID, "score %s on the %s's run "
		    "(pair %ld)", d, role_name[ri], pair);
	}
	o = ar_path(j->log, "score.out");
	if (read_metrics(b, o, s, why, sizeof why) < 0) {
		free(o);
		return end_run(b, ri, END_INVALID, "%s (pair %ld)", why, pair);
	}
	free(o);
	/* ar-bench's own measurements, for guardrails that name them. */
	{
		size_t i;

		for (i = 0; i < b->nmetric; i++) {
			if (strcmp(b->metric[i], "wall_s") == 0)
				s->val[i] = res.wall;
			else if (strcmp(b->metric[i], "cpu_s") == 0)
				s->val[i] = res.user + res.sys;
			else if (strcmp(b->metric[i], "maxrss_kb") == 0)
				s->val[i] = (double)res.maxrss_kb;
		}
	}
	return check_run(b, ri, s, pair);
}

