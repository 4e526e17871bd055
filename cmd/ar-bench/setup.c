/* setup.c: what a measurement stands on before its first run: the
 * campaign, its seal and its key; the scratch session, removed at the end
 * and on any error or signal; the CPUs and the device; the roles (the
 * baseline, the method, the judge), their directories and their
 * sandboxes; and the method, laid over the baseline. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "campaign.h"
#include "conf.h"
#include "crypto.h"
#include "err.h"
#include "io.h"
#include "method.h"
#include "runner.h"
#include "seal.h"
#include "tree.h"
#include "dev.h"
#include "roofline.h"
#include "bench.h"

const char *const role_name[3] = { "baseline", "method", "judge" };

/* A signal handler and an ar_on_die hook take no argument, so what they
 * reach lives here: the signal that interrupted the measurement (the
 * handler only sets it; check_interrupt dies at the next safe point), and
 * the measurement whose runners and scratch session a die removes. */
static volatile sig_atomic_t interrupted;
static struct bench *dying;

static void
on_signal(int sig)
{
	interrupted = sig;
	ar_runner_interrupted = 1;
	ar_roofline_abort();
}

/* Stops the ranks and the runners and removes the scratch session (kept
 * with -K); safe to call twice. */
void
cleanup(struct bench *b)
{
	int i;

	ar_roofline_abort();
	for (i = 0; i < 3; i++)
		ar_runner_stop(&b->role[i].run);
	ar_runner_stop(&b->score);
	if (b->session && !b->keep)
		ar_rm_rf(b->session, 0);
}

/* A measurement with nothing started: no runner has a process (pid 0
 * would be taken for one, and stopping it would write to descriptor 0
 * and wait for any child). */
void
bench_init(struct bench *b)
{
	int i;

	memset(b, 0, sizeof *b);
	for (i = 0; i < 3; i++)
		b->role[i].run.pid = -1;
	b->score.pid = -1;
}

/* Frees what a measurement holds, once its result is out. */
void
bench_free(struct bench *b)
{
	size_t i;
	int ri;

	for (ri = 0; ri < 3; ri++) {
		struct role *r = &b->role[ri];

		for (i = 0; i < r->ns; i++)
			free(r->s[i].val);
		free(r->s);
		free(r->in);
		free(r->dir);
		free(r->src);
		free(r->out);
		free(r->log);
		free(r->tmp);
	}
	free(b->metric);
	free(b->gate_worst_v);
	free(b->guard_worst_v);
	free(b->gate_runs);
	free(b->guard_runs);
	free(b->gate_pass);
	free(b->guard_pass);
	free(b->fail.tail);
	json_decref(b->profile);
	free(b->profile_path);
	free(b->problem);
	free(b->problem_copy);
	free(b->session);
	ar_manifest_free(&b->m);
	ar_campaign_free(&b->camp);
	memset(b, 0, sizeof *b);
	if (dying == b)
		dying = NULL;
}

static void
cleanup_at_die(void)
{
	if (dying)
		cleanup(dying);
}

void
check_interrupt(void)
{
	if (interrupted)
		ar_die(AR_EX_TEMPFAIL, "interrupted by signal %d; no result",
		    (int)interrupted);
}

/* The scratch session, removed at the end and on any error or signal. */
void
start_session(struct bench *b)
{
	const char *t = getenv("TMPDIR");
	char *tmpl = ar_xasprintf("%s/ar-bench.XXXXXX", t && t[0] ? t :
	    "/tmp");

	if (!mkdtemp(tmpl))
		ar_die(ar_errno_exit(errno), "%s:", tmpl);
	b->session = tmpl;
	dying = b;
	ar_on_die(cleanup_at_die);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- the campaign ---- */

static void
seal_report(void *arg, const char *state, const char *path,
    const char *detail)
{
	(void)arg;
	ar_warn("SEAL: problem/%s: %s%s%s", path, state, detail && detail[0] ?
	    ": " : "", detail ? detail : "");
}

static void
check_seal(struct bench *b)
{
	char err[1024];
	int n = ar_seal_check(b->camp.dir, b->camp.id, b->camp.pk, seal_report,
	    NULL, err, sizeof err);

	if (n < 0)
		ar_die(AR_EX_NO, "%s: refusing to measure: %s", b->camp.dir,
		    err);
	if (n > 0)
		ar_die(AR_EX_NO, "%s: refusing to measure: the problem differs "
		    "from SEAL in %d file%s", b->camp.dir, n, n == 1 ? "" : "s");
}

/* The campaign, its seal and its secret key: nothing runs before they
 * check. Returns the key's path, malloc'd. */
char *
open_campaign(struct bench *b, const char *dir)
{
	const char *kp;
	char err[1024], *keypath;

	ar_campaign_open(&b->camp, ar_campaign_default(dir));
	if (b->check) {
		/* No secret key (an agent's sandbox hides it): the seal is
		 * checked against bench.pub, and nothing is signed. */
		memset(b->sk, 0, sizeof b->sk);
		check_seal(b);
		return NULL;
	}
	if (!(kp = ar_conf_get(&b->camp.conf, "key")))
		ar_die(AR_EX_DATA, "%s/campaign.conf: no key", b->camp.dir);
	keypath = kp[0] == '/' ? ar_xstrdup(kp) : ar_path(b->camp.dir, kp);
	if (ar_key_read_secret(keypath, b->sk, err, sizeof err) < 0)
		ar_die(AR_EX_NOINPUT, "%s", err);
	{
		unsigned char pk[AR_PK_BYTES];
		int r = ar_campaign_pinned(&b->camp, NULL, err, sizeof err);

		/* Whoever can write the campaign could re-key it; the pin,
		 * in ar-bench's environment, says whose key it must be. */
		if (r == -2)
			ar_die(AR_EX_USAGE, "%s", err);
		if (r < 0)
			ar_die(AR_EX_NO, "%s", err);
		ar_key_public_of(b->sk, pk);
		if (memcmp(pk, b->camp.pk, sizeof pk) != 0)
			ar_die(AR_EX_NO, "%s: not the secret half of %s/keys/"
			    "bench.pub", keypath, b->camp.dir);
	}
	/* The seal after the key: its signature means something only
	 * under the campaign's own key. */
	check_seal(b);
	return keypath;
}

/* ---- CPUs and device ---- */

void
pick_cpus(struct bench *b, long k)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof set, &set) < 0)
		ar_die(AR_EX_SOFTWARE, "sched_getaffinity:");
	for (i = 0; i < CPU_SETSIZE && (long)b->ncpu < k; i++)
		if (CPU_ISSET(i, &set))
			b->cpu[b->ncpu++] = i;
	if ((long)b->ncpu < k)
		ar_die(AR_EX_USAGE, "-k %ld: only %zu CPUs are available here",
		    k, b->ncpu);
}

/* The CUDA ordinal of GPU id: its place in CUDA_VISIBLE_DEVICES when that
 * is set (ar-run sets it to the bundle), else the id itself. */
int
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
const char *
pick_device(struct bench *b, const char *want, int gpus)
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

		for (i = 0; i < b->ngpu; i++) {
			int ord = cuda_ordinal(b->gpu[i]);

			if (ord >= 0 && ord < n)
				continue;
			if (strcmp(want, "cuda") == 0)
				ar_die(AR_EX_UNAVAILABLE, "-G %s: GPU %ld is not "
				    "one of the %d CUDA devices here", b->gpus,
				    b->gpu[i], n);
			ar_warn("-G %s: GPU %ld is not one of the %d CUDA devices "
			    "here; measuring on the cpu device", b->gpus,
			    b->gpu[i], n);
			return "cpu";
		}
		return "cuda";
	}
	if (n == 0)
		snprintf(why, sizeof why, "no CUDA device");
	if (strcmp(want, "cuda") == 0)
		ar_die(AR_EX_UNAVAILABLE, "cuda: %s", why);
	ar_warn("-G %s: %s; measuring on the cpu device", b->gpus ? b->gpus :
	    "", why);
	return "cpu";
}

/* ---- roles and sandboxes ---- */

void
role_init(struct bench *b, int ri)
{
	struct role *r = &b->role[ri];
	char *in = ar_path(b->session, "in");

	r->dir = ar_path(b->session, role_name[ri]);
	r->src = ar_path(r->dir, ri == R_JUDGE ? "judge" : "src");
	r->out = ar_path(r->dir, "out");
	r->log = ar_path(r->dir, "log");
	r->tmp = ar_path(r->dir, "tmp");
	/* A run reads a copy of the inputs of its own, so that it cannot
	 * see (access times) or change (the page cache) what the other
	 * role's run of the pair read. */
	r->in = ri == R_JUDGE ? in : ar_path(r->dir, "in");
	r->run.pid = -1;
	if (ar_mkdirs(r->out, 0755) < 0 || ar_mkdirs(r->log, 0755) < 0 ||
	    ar_mkdirs(r->tmp, 0755) < 0 || ar_mkdirs(r->in, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", r->dir);
	if (b->sandbox) {
		r->v_method = ri == R_JUDGE ? "/ar/judge" : "/ar/method";
		r->v_out = "/ar/out";
		r->v_log = "/ar/log";
		r->v_in = "/ar/in";
		r->v_problem = "/ar/problem";
	} else {
		r->v_method = r->src;
		r->v_out = r->out;
		r->v_log = r->log;
		r->v_in = r->in;
		r->v_problem = b->problem;
	}
	if (ri != R_JUDGE)
		free(in);
}

/* What every sandbox has: the GPUs of the bundle, and the campaign (but
 * problem/), the session and the key hidden. */
void
base_sandbox(struct bench *b, const char *keypath)
{
	char *slash;
	size_t i;

	b->base_sb.on = b->sandbox;
	b->base_sb.bwrap = b->bwrap;
	b->base_sb.ngpu = b->ngpu;
	for (i = 0; i < b->ngpu; i++)
		b->base_sb.gpu[i] = (int)b->gpu[i];
	if (realpath(b->camp.dir, b->camp_real))
		b->base_sb.mask[b->base_sb.nmask++] = b->camp_real;
	if (realpath(b->session, b->session_real))
		b->base_sb.mask[b->base_sb.nmask++] = b->session_real;
	if (keypath && realpath(keypath, b->key_real)) {
		if ((slash = strrchr(b->key_real, '/')) && slash != b->key_real)
			*slash = 0;
		b->base_sb.mask[b->base_sb.nmask++] = b->key_real;
	}
}

void
sandbox_start(struct bench *b, struct ar_runner *r, struct ar_sandbox *sb,
    const char *what)
{
	char err[512];

	sb->errfile = ar_xasprintf("%s/%s.sandbox.err", b->session, what);
	if (ar_runner_start(r, sb, err, sizeof err) < 0)
		ar_die(b->sandbox ? AR_EX_UNAVAILABLE : AR_EX_SOFTWARE,
		    "%s: cannot start the %s sandbox: %s%s", b->sandbox ?
		    b->bwrap : "runner", what, err, b->sandbox ? "; "
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
void
role_sandbox(struct bench *b, int ri, int build, struct ar_runner *r)
{
	struct role *ro = &b->role[ri];
	struct ar_sandbox sb = b->base_sb;
	char what[64];

	bind(&sb, b->problem_copy ? b->problem_copy : b->problem,
	    "/ar/problem", 0);
	bind(&sb, ro->src, "/ar/method", build);
	bind(&sb, ro->log, "/ar/log", 1);
	if (!build) {
		bind(&sb, ro->in, "/ar/in", 0);
		bind(&sb, ro->out, "/ar/out", 1);
		snprintf(what, sizeof what, "%s run", role_name[ri]);
		sandbox_start(b, r, &sb, what);
		return;
	}
	snprintf(what, sizeof what, "%s build", role_name[ri]);
	sandbox_start(b, r, &sb, what);
}

void
judge_sandbox(struct bench *b)
{
	struct role *j = &b->role[R_JUDGE];
	struct ar_sandbox sb = b->base_sb;
	char *in = ar_path(b->session, "in"), *ref = ar_path(b->session, "ref");

	/* setup and prepare write the inputs and the reference; the
	 * score stage only reads them, so no score can change what the
	 * next run of a pair is given. */
	bind(&sb, j->src, "/ar/judge", 1);
	bind(&sb, in, "/ar/in", 1);
	bind(&sb, ref, "/ar/ref", 1);
	bind(&sb, j->log, "/ar/log", 1);
	sandbox_start(b, &j->run, &sb, "judge");
	sb = b->base_sb;
	bind(&sb, j->src, "/ar/judge", 1);
	bind(&sb, in, "/ar/in", 0);
	bind(&sb, ref, "/ar/ref", 0);
	bind(&sb, j->log, "/ar/log", 1);
	bind(&sb, b->role[R_BASE].out, "/ar/out/baseline", 0);
	bind(&sb, b->role[R_METH].out, "/ar/out/method", 0);
	sandbox_start(b, &b->score, &sb, "score");
	j->started = 1;
	free(in);
	free(ref);
}

/* ---- the method ---- */

/* The method over a copy of the baseline in the method's role; a method
 * that changed a sealed file, or does not fit over the baseline, is
 * marked invalid. */
static void
overlay(struct bench *b, const char *from, const struct ar_tree *base,
    const char *to)
{
	struct ar_overlay o;
	char err[600];
	int rc = ar_method_overlay(from, base, to, b->m.mutable, b->m.nmutable,
	    &o, err, sizeof err);

	if (rc)
		ar_die(rc, "%s", err);
	snprintf(b->outside, sizeof b->outside, "%s", o.outside);
	snprintf(b->conflict, sizeof b->conflict, "%s", o.conflict);
	b->invalid_tree = o.invalid;
}

/* The files of dir that ar-agent would commit, copied into the session:
 * the mutable ones and those the baseline has. Returns the copy's path,
 * malloc'd. */
static char *
check_copy(struct bench *b, const char *dir, const struct ar_tree *base)
{
	char *to = ar_path(b->session, "method-check"), err[600];
	struct ar_tree t;
	size_t i;

	if (ar_mkdirs(to, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", to);
	if (ar_tree_list(dir, &t, err, sizeof err) < 0)
		ar_die(AR_EX_NOINPUT, "method: %s", err);
	for (i = 0; i < t.n; i++) {
		const struct ar_entry *e = &t.e[i];
		char *d, *slash;

		if (S_ISDIR(e->mode) || (!ar_method_mutable(b->m.mutable,
		    b->m.nmutable, e->path) && !ar_tree_find(base, e->path)))
			continue;
		d = ar_path(to, e->path);
		if ((slash = strrchr(d, '/')))
			*slash = 0;
		if (ar_mkdirs(d, 0755) < 0)
			ar_die(ar_errno_exit(errno), "%s:", d);
		free(d);
		if (ar_tree_copy_entry(dir, to, e, err, sizeof err) < 0)
			ar_die(ar_errno_exit(errno), "%s", err);
	}
	ar_tree_free(&t);
	return to;
}

/* The baseline and the method in their roles' directories; returns the
 * result's "method": a directory or a commit of methods/, and its hash. */
json_t *
materialize(struct bench *b, const char *spec)
{
	struct role *br = &b->role[R_BASE], *m = &b->role[R_METH];
	char *basedir = ar_path(b->problem, b->m.baseline), err[600], hash[65];
	char *methods = ar_path(b->camp.dir, "methods");
	struct ar_tree base;
	struct stat st;
	json_t *mj;

	if (stat(basedir, &st) < 0 || !S_ISDIR(st.st_mode))
		ar_die(AR_EX_DATA, "problem.json: baseline: %s: not a "
		    "directory of the problem", b->m.baseline);
	if (ar_tree_list(basedir, &base, err, sizeof err) < 0)
		ar_die(AR_EX_NOINPUT, "baseline: %s", err);
	if (ar_tree_copy(basedir, br->src, err, sizeof err) < 0 ||
	    ar_tree_copy(basedir, m->src, err, sizeof err) < 0)
		ar_die(ar_errno_exit(errno), "%s", err);
	if (b->aa) {
		ar_tree_hash(&base, hash);
		mj = json_pack("{s:s, s:s}", "dir", b->m.baseline, "hash", hash);
	} else if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct ar_tree t;
		char real[PATH_MAX], *copy = NULL;

		/* --check, in an agent's worktree: new files outside the
		 * mutable globs are build outputs, left out as ar-agent
		 * leaves them out of the method; a changed sealed file is
		 * still one. */
		if (b->check)
			spec = copy = check_copy(b, spec, &base);
		overlay(b, spec, &base, m->src);
		if (ar_tree_list(spec, &t, err, sizeof err) < 0)
			ar_die(AR_EX_NOINPUT, "method: %s", err);
		ar_tree_hash(&t, hash);
		ar_tree_free(&t);
		mj = json_pack("{s:s, s:s}", "dir", realpath(spec, real) ?
		    real : spec, "hash", hash);
		free(copy);
	} else {
		/* A commit of methods/: its blobs as stored, one by one, so
		 * no .gitattributes filter can change what is measured. */
		char full[AR_COMMIT_MAX + 1], *raw;
		int rc;

		if (ar_method_commit(methods, spec, full) < 0)
			ar_die(AR_EX_NOINPUT, "%s: no such method directory, "
			    "nor a commit in %s", spec, methods);
		/* The same hash ar-ledger verify recomputes. */
		if (ar_method_hash(methods, full, hash) < 0)
			ar_die(AR_EX_NOINPUT, "%s: git ls-tree failed", spec);
		raw = ar_path(b->session, "method-commit");
		if (ar_mkdirs(raw, 0755) < 0)
			ar_die(ar_errno_exit(errno), "%s:", raw);
		if ((rc = ar_method_extract(methods, full, raw, err,
		    sizeof err)))
			ar_die(rc, "%s", err);
		overlay(b, raw, &base, m->src);
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
