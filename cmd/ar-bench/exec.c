/* exec.c: the exec benchmark, ar-bench's default program, its steps in
 * order: the campaign, seal and key; the problem and the workload; the
 * CPUs, device and machine profile; the limits of the statistics; the
 * scratch session, the roles and their sandboxes; the method laid over
 * the baseline; setup, builds and gate commands; the dev session (and
 * the holdout one with -S both); then one signed result, printed and,
 * with -a, stored in the ledger. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "ledger.h"
#include "manifest.h"
#include "proc.h"
#include "timefmt.h"
#include "tree.h"
#include "bench.h"

/* The workload of -w, else the problem's first. */
static void
pick_workload(struct bench *b, const char *wname)
{
	size_t i;

	b->w = &b->m.workload[0];
	if (!wname)
		return;
	for (i = 0; i < b->m.nworkload; i++)
		if (strcmp(b->m.workload[i].name, wname) == 0)
			break;
	if (i == b->m.nworkload) {
		struct ar_buf names = {0};

		for (i = 0; i < b->m.nworkload; i++)
			ar_buf_printf(&names, "%s%s", i ? ", " : "",
			    b->m.workload[i].name);
		ar_die(AR_EX_USAGE, "-w %s: no such workload in problem.json "
		    "(there are: %s)", wname, names.p);
	}
	b->w = &b->m.workload[i];
}

/* The limits of the statistics and of the runs: the command line's,
 * else the scheduler's (--sched-pairs), else the problem's, else the
 * defaults. */
static void
set_limits(struct bench *b, const struct opts *o)
{
	long pmin = o->pmin, pmax = o->pmax;

	ar_verdict_defaults(&b->vo);
	b->vo.min_effect = o->e >= 0 ? o->e : b->m.min_effect >= 0 ?
	    b->m.min_effect : 0.01;
	b->vo.max_pairs = (size_t)(pmax > 0 ? pmax : b->m.max_pairs > 0 ?
	    b->m.max_pairs : 2048);
	b->vo.min_pairs = (size_t)(pmin > 0 ? pmin : b->m.min_pairs > 0 ?
	    b->m.min_pairs : 16);
	/* A default gives way to a limit that was asked for. */
	if (pmin <= 0 && b->m.min_pairs <= 0 && b->vo.min_pairs >
	    b->vo.max_pairs)
		b->vo.min_pairs = b->vo.max_pairs;
	/* The scheduler's size stands in for the manifest's limits and gives
	 * way to -p and -P, which a user may add to every run. */
	if (o->spmin > 0) {
		b->vo.max_pairs = (size_t)(pmax > 0 ? pmax : o->spmax);
		b->vo.min_pairs = (size_t)(pmin > 0 ? pmin : o->spmin);
		if (pmin <= 0 && b->vo.min_pairs > b->vo.max_pairs)
			b->vo.min_pairs = b->vo.max_pairs;
		if (pmax <= 0 && b->vo.max_pairs < b->vo.min_pairs)
			b->vo.max_pairs = b->vo.min_pairs;
	}
	if (b->vo.max_pairs < b->vo.min_pairs)
		ar_die(AR_EX_USAGE, "max pairs %zu (%s) is below min pairs %zu "
		    "(%s)", b->vo.max_pairs, pmax > 0 ? "-P" : "problem.json",
		    b->vo.min_pairs, pmin > 0 ? "-p" : "problem.json");
	/* The boundaries, once for the session's schedule. */
	if (ar_design_init(&b->design, &b->vo) < 0)
		ar_die(AR_EX_USAGE, "min effect %g, pairs %zu to %zu: no "
		    "verdict design for these", b->vo.min_effect,
		    b->vo.min_pairs, b->vo.max_pairs);
	b->time_s = o->T > 0 ? o->T : b->m.time_s > 0 ? b->m.time_s : 600;
	b->warmup = o->warm >= 0 ? o->warm : b->m.warmup >= 0 ? b->m.warmup :
	    1;
	/* A shorter run timeout can only make a method fail sooner, so it
	 * is the caller's to choose; a longer one is the problem's. */
	if (o->rt > 0 && o->rt < b->m.run.timeout_s)
		b->m.run.timeout_s = o->rt;
}

static void
mkdir_in(const char *dir, const char *name)
{
	char *s = ar_path(dir, name);

	if (ar_mkdirs(s, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", s);
	free(s);
}

/* Stores the result in the campaign's ledger (-a). 0, or the exit code
 * of a failure, said: the caller prints the result all the same, so a
 * full or read-only ledger loses no measurement. */
static int
append(struct bench *b, json_t *res)
{
	struct ar_ledger l;
	char err[1024], *ld = ar_path(b->camp.dir, "ledger");
	int rc = 0;

	if (ar_ledger_open(&l, ld, 0, err, sizeof err) < 0) {
		ar_warn("%s; the result is on standard output only", err);
		free(ld);
		return AR_EX_NOINPUT;
	}
	if (ar_ledger_store(&l, res) < 0) {
		rc = ar_errno_exit(errno);
		ar_warn("%s: cannot append the result: %s; it is on standard "
		    "output only (ar-ledger append stores it later)", ld,
		    strerror(errno));
	}
	ar_ledger_close(&l);
	free(ld);
	return rc;
}

/* --check: pass when the method built and its run held the gates, the
 * guardrails and the work counter (any verdict of a measurement); fail,
 * with ar-bench's why, when it did not. */
static int
check_report(struct bench *b, json_t *res)
{
	const char *v = json_string_value(json_object_get(res, "verdict"));
	const char *why = json_string_value(json_object_get(res, "why"));
	int bad = !v || strcmp(v, "invalid") == 0 || strcmp(v, "crash") == 0 ||
	    strcmp(v, "timeout") == 0;

	if (bad)
		printf("fail: %s: %s\n", v ? v : "no verdict", why && *why ?
		    why : "no reason given");
	else
		printf("pass: built and ran on workload %s (one pair, dev "
		    "seeds): the gates, the guardrails and the work hold; "
		    "nothing was signed or stored\n", b->w->name);
	ar_fshut(stdout, "<stdout>");
	json_decref(res);
	bench_free(b);
	return bad ? AR_EX_NO : AR_EX_OK;
}

int
exec_main(struct bench *b, const struct opts *o)
{
	const char *experiment = o->experiment;
	char err[1024], started[40], eid[AR_IDLEN], *keypath, *s;
	int rc;
	struct session dev = {0}, hold = {0};
	int both = strcmp(o->seeds, "both") == 0;
	json_t *method, *res;
	size_t i;

	b->k = o->k;
	b->quiet = o->quiet;
	b->progress = !o->quiet && (o->verbose || (isatty(2) &&
	    !getenv("NO_COLOR")));
	ar_time_now(started, sizeof started);
	ar_crypto_init();

	keypath = open_campaign(b, o->dir);
	/* Holdout seeds come from a key derived from the secret key. */
	crypto_generichash(b->hkey, sizeof b->hkey, (const unsigned char *)
	    "autoreduce holdout seeds", 24, b->sk, 32);
	b->problem = ar_path(b->camp.dir, "problem");
	{
		char real[PATH_MAX];

		if (realpath(b->problem, real)) {
			free(b->problem);
			b->problem = ar_xstrdup(real);
		}
	}
	if (ar_manifest_read(&b->m, b->problem, err, sizeof err) < 0)
		ar_die(AR_EX_DATA, "%s", err);
	pick_workload(b, o->wname);
	pick_cpus(b, o->k);
	b->device = pick_device(b, o->device, b->ngpu > 0);
	load_profile(b);
	set_limits(b, o);
	track_all(b);

	if (b->sandbox) {
		b->bwrap = getenv("AR_BWRAP") ? getenv("AR_BWRAP") : "bwrap";
		if (!ar_runnable(b->bwrap))
			ar_die(AR_EX_UNAVAILABLE, "%s: not found; ar-bench runs "
			    "methods in a bubblewrap sandbox (install "
			    "bubblewrap, or measure without one: "
			    "--no-sandbox)", b->bwrap);
	}
	start_session(b);
	for (i = 0; i < 3; i++)
		role_init(b, (int)i);
	mkdir_in(b->session, "in");
	mkdir_in(b->session, "ref");
	base_sandbox(b, keypath);
	if (b->keep)
		ar_warn("scratch directory kept: %s", b->session);

	method = materialize(b, o->spec);
	if (!experiment) {
		ar_id_new(eid);
		experiment = eid;
	}
	dev.seeds = strcmp(o->seeds, "holdout") == 0 ? "holdout" : "dev";
	hold.seeds = "holdout";
	if (!b->invalid_tree) {
		if (ar_tree_copy(b->problem, b->role[R_JUDGE].src, err,
		    sizeof err) < 0)
			ar_die(ar_errno_exit(errno), "%s", err);
		if (b->sandbox) {
			b->problem_copy = ar_path(b->session, "problem");
			if (ar_tree_copy(b->problem, b->problem_copy, err,
			    sizeof err) < 0)
				ar_die(ar_errno_exit(errno), "%s", err);
		}
		judge_sandbox(b);
		run_setup(b);
		dev.end = run_build(b, R_BASE);
		if (dev.end == END_NONE)
			dev.end = run_build(b, R_METH);
		if (dev.end == END_NONE) {
			start_runner(b, R_BASE);
			start_runner(b, R_METH);
			dev.end = run_gate_commands(b, R_BASE);
			if (dev.end == END_NONE)
				dev.end = run_gate_commands(b, R_METH);
		}
		if (dev.end != END_NONE)
			snprintf(dev.why, sizeof dev.why, "%s", b->end_why);
		else if (session_run(b, &dev) == END_NONE && both)
			session_run(b, &hold);
	}
	res = result(b, method, o->idea, experiment, &dev, both &&
	    dev.end == END_NONE ? &hold : NULL, started);
	cleanup(b);
	free(b->session);
	b->session = NULL;
	if (b->check) {
		free(keypath);
		free(dev.x);
		free(dev.order);
		free(hold.x);
		free(hold.order);
		return check_report(b, res);
	}
	ar_json_sign(res, b->sk);
	s = ar_json_canon(res);
	rc = o->append ? append(b, res) : 0;
	puts(s);
	ar_fshut(stdout, "<stdout>");
	free(s);
	free(keypath);
	json_decref(res);
	free(dev.x);
	free(dev.order);
	free(hold.x);
	free(hold.order);
	bench_free(b);
	return rc;
}
