/* result.c: the result record of a measurement (ar-result(5)): the
 * figures of each role (median, interval, spread), the ratio and the
 * verdict with its why, the gates, guardrails and work, the flags
 * (overfit, a slow first run), the failure that ended it, the machine
 * profile's roofline fields, and the raw samples. The record is signed
 * by exec.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sodium.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "host.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "stats.h"
#include "timefmt.h"
#include "roofline.h"
#include "bench.h"

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
role_metrics(struct bench *b, int ri, size_t from, size_t to)
{
	struct role *r = &b->role[ri];
	json_t *o = json_object();
	double *v = ar_xmalloc((r->ns + 1) * sizeof *v);
	size_t k, i;

	for (k = 0; k < b->nmetric; k++) {
		for (i = from; i < to; i++)
			v[i - from] = r->s[i].val[k];
		json_object_set_new(o, b->metric[k], summary(v, to - from));
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
raw_of(struct bench *b, int ri, size_t from, size_t to)
{
	struct role *r = &b->role[ri];
	json_t *o = json_object(), *a = json_array(), *w = json_array();
	size_t k = track(b, b->m.metric.name), i;

	for (i = from; i < to; i++) {
		json_array_append_new(a, real(r->s[i].val[k]));
		json_array_append_new(w, json_real(r->s[i].wall));
	}
	json_object_set_new(o, b->m.metric.name, a);
	json_object_set_new(o, "wall_s", w);
	return o;
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
verdict_text(struct bench *b, const struct session *se, char *why,
    size_t n)
{
	double m = b->vo.min_effect * 100;

	switch (se->end) {
	case END_CRASH: snprintf(why, n, "%s", se->why); return "crash";
	case END_TIMEOUT: snprintf(why, n, "%s", se->why); return "timeout";
	case END_INVALID: snprintf(why, n, "%s", se->why); return "invalid";
	case END_DISCARD: snprintf(why, n, "%s", se->why); return "discard";
	default: break;
	}
	switch (se->verdict) {
	case AR_V_KEEP: {
		char ci[80];

		/* Few blocks bound the interval on one side only. */
		if (isfinite(se->ci.hi))
			snprintf(ci, sizeof ci, "CI %.2f%% to %.2f%%", 100 *
			    (exp(se->ci.lo) - 1), 100 * (exp(se->ci.hi) - 1));
		else
			snprintf(ci, sizeof ci, "CI above %.2f%%", 100 *
			    (exp(se->ci.lo) - 1));
		snprintf(why, n, "%.2f%% better (%s) over %zu pairs: faster at "
		    "the keep boundary, and the estimate clears the minimum "
		    "effect of %g%%", 100 * (exp(se->ci.est) - 1), ci, se->n,
		    m);
		return "keep";
	}
	case AR_V_DISCARD:
		snprintf(why, n, "no gain of %g%% is plausible: ratio %.4f, CI "
		    "up to %.4f over %zu pairs", m, exp(se->ci.est),
		    exp(se->look.stop_hi), se->n);
		return "discard";
	case AR_V_EQUIVALENT:
		snprintf(why, n, "the same within %g%%: ratio %.4f, CI %.4f to "
		    "%.4f over %zu pairs", m, exp(se->ci.est),
		    exp(se->look.stop_lo), exp(se->look.stop_hi), se->n);
		return "equivalent";
	default:
		if (se->stopped && b->prior_lo > 0)
			snprintf(why, n, "stopped by --stop-at %g after %zu pairs: "
			    "ratio %.4f, its 95%% interval %.4f to %.4f; with the "
			    "earlier measurements' %.4f to %.4f, clearly %s it; "
			    "the minimum effect of %g%% is undecided", b->stop_at,
			    se->n, exp(se->ci.est), exp(se->stop_lo),
			    exp(se->stop_hi), b->prior_lo, b->prior_hi,
			    se->stop_above ? "above" : "below", m);
		else if (se->stopped)
			snprintf(why, n, "stopped by --stop-at %g after %zu pairs: "
			    "ratio %.4f, its 95%% interval %.4f to %.4f clearly "
			    "%s it; the minimum effect of %g%% is undecided",
			    b->stop_at, se->n, exp(se->ci.est), exp(se->stop_lo),
			    exp(se->stop_hi), se->stop_lo > log(b->stop_at) ?
			    "above" : "below", m);
		else if (se->look.why == AR_WHY_UNSTABLE)
			snprintf(why, n, "the effect changed across the session: "
			    "ratio %.4f in the first half, %.4f in the second "
			    "(z %.2f) over %zu pairs", exp(se->look.first),
			    exp(se->look.second), se->look.stab_z, se->n);
		else if (se->look.why == AR_WHY_FUTILE)
			snprintf(why, n, "futile after %zu pairs: a gain of "
			    "%.2f%%, the least this session could confirm, is "
			    "implausible (ratio %.4f, CI up to %.4f)", se->n,
			    100 * (exp(se->look.reach) - 1), exp(se->ci.est),
			    exp(se->look.stop_hi));
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

/* The verdict's own numbers: the design, the pairs it used, the
 * carry-over it left out and the halves it compared. */
static void
design_json(struct bench *b, const struct session *se, json_t *st)
{
	struct ar_pairs p = { se->x, se->order, se->before, se->n, se->block };
	double est, lo, hi;
	json_t *c;

	json_object_set_new(st, "beta", json_real(b->vo.beta));
	json_object_set_new(st, "keep_z", json_real(ar_design_z(&b->design,
	    se->n, 1)));
	json_object_set_new(st, "stop_z", json_real(ar_design_z(&b->design,
	    se->n, 0)));
	json_object_set_new(st, "pairs_used", json_integer((json_int_t)
	    se->look.used));
	json_object_set_new(st, "blocks", json_integer((json_int_t)
	    se->look.units));
	json_object_set_new(st, "block_pairs", json_integer((json_int_t)
	    se->block));
	if (se->n >= 2 && ar_carryover(&p, &est, &lo, &hi) == 0) {
		c = json_pack("{s:o, s:o, s:o}", "ratio", real(exp(est)),
		    "ci_lo", real(isfinite(lo) ? exp(lo) : NAN), "ci_hi",
		    real(isfinite(hi) ? exp(hi) : NAN));
		json_object_set_new(st, "carryover", c);
	}
	if (!isnan(se->look.first))
		json_object_set_new(st, "halves", json_pack("{s:o, s:o, s:f}",
		    "first", real(exp(se->look.first)), "second",
		    real(exp(se->look.second)), "z", se->look.stab_z));
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
slow_first(struct bench *b, int ri)
{
	struct role *r = &b->role[ri];
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
void
load_profile(struct bench *b)
{
	char host[256], err[512];
	unsigned char pk[AR_PK_BYTES];
	long k = b->ngpu ? (long)b->ngpu : b->k;
	struct ar_buf buf = {0};
	json_error_t je;
	json_t *o;
	int pass;

	if (isnan(b->w->bytes) && isnan(b->w->flops))
		return;
	snprintf(host, sizeof host, "%s", ar_host());
	crypto_sign_ed25519_sk_to_pk(pk, b->sk);
	for (pass = 0; pass < 2; pass++) {
		char *path = ar_profile_path(b->camp.dir, host, b->device,
		    pass ? 1 : k);

		if (pass && k == 1) {
			free(path);
			break;
		}
		if (ar_readfile(path, &buf, 1 << 20) < 0) {
			if (errno != ENOENT)
				ar_die(ar_errno_exit(errno), "%s:", path);
			free(path);
			continue;
		}
		o = json_loadb(buf.p, buf.len, JSON_REJECT_DUPLICATES, &je);
		if (!json_is_object(o) || !json_is_object(json_object_get(o,
		    "roofline")))
			ar_die(AR_EX_DATA, "%s: not a machine profile: %s", path,
			    o ? "no roofline" : je.text);
		if (ar_json_verify(o, pk, err, sizeof err) < 0)
			ar_die(AR_EX_NO, "%s: %s; a machine profile must be signed "
			    "by this campaign's key (run ar-bench --roofline "
			    "again)", path, err);
		b->profile = o;
		b->profile_path = path;
		b->profile_scale = pass ? (double)k : 1;
		break;
	}
	ar_buf_free(&buf);
	/* A self-check reports no roofline: no need to say why; nor does a
	 * quiet run, which the loop makes on every experiment. */
	if (!b->profile && !b->check && !b->quiet)
		ar_warn("no machine profile for %s %s k=%ld in %s/machine "
		    "(ar-bench --roofline makes one); no roofline fields", host,
		    b->device, k, b->camp.dir);
}

/* The rate each role reached against the machine's limits, from the
 * median wall time of its runs. The wall time holds the process's start
 * and more, so the rate is a lower bound: above the limit is impossible. */
static void
roofline_fields(struct bench *b, json_t *o, size_t from_b, size_t from_m)
{
	json_t *rf = json_object(), *f[2] = { NULL, NULL };
	const char *slash = strrchr(b->profile_path, '/');
	const char *v = json_string_value(json_object_get(o, "verdict"));
	int ri;

	json_object_set_new(rf, "profile", json_string(slash ? slash + 1 :
	    b->profile_path));
	if (b->profile_scale != 1)
		json_object_set_new(rf, "scaled_from_k1", json_real(
		    b->profile_scale));
	for (ri = R_BASE; ri <= R_METH; ri++) {
		size_t from = ri == R_BASE ? from_b : from_m, n, i;
		double *w, med;

		if (b->role[ri].ns <= from)
			continue;
		n = b->role[ri].ns - from;
		w = ar_xmalloc(n * sizeof *w);
		for (i = 0; i < n; i++)
			w[i] = b->role[ri].s[from + i].wall;
		med = ar_median(w, n);
		free(w);
		f[ri] = ar_roofline_fraction(b->profile, isnan(b->w->bytes) ? 0 :
		    b->w->bytes, isnan(b->w->flops) ? 0 : b->w->flops, b->w->dtype,
		    med, b->profile_scale);
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

/* The unsigned result: of the holdout session when there was one (with
 * the dev session's figures beside it), else of the dev session. */
json_t *
result(struct bench *b, json_t *method, const char *spec_idea,
    const char *experiment, struct session *dev, struct session *hold,
    const char *started)
{
	struct session *se = hold ? hold : dev;
	char why[700], id[AR_IDLEN], host[256], fin[40];
	const char *verdict;
	json_t *o, *cpus = json_array(), *flags = json_array();
	json_t *gpu_ids = json_array();
	size_t i, from_b = se->first_sample[0], from_m = se->first_sample[1];

	if (b->invalid_tree && b->conflict[0]) {
		verdict = "invalid";
		snprintf(why, sizeof why, "the method does not fit over the "
		    "baseline: %s", b->conflict);
	} else if (b->invalid_tree) {
		verdict = "invalid";
		snprintf(why, sizeof why, "the method changes files outside "
		    "the mutable paths: %s", b->outside);
	} else {
		verdict = verdict_text(b, se, why, sizeof why);
	}
	for (i = 0; i < b->ncpu; i++)
		json_array_append_new(cpus, json_integer(b->cpu[i]));
	for (i = 0; i < b->ngpu; i++)
		json_array_append_new(gpu_ids, json_integer(b->gpu[i]));
	snprintf(host, sizeof host, "%s", ar_host());
	ar_id_new(id);
	ar_time_now(fin, sizeof fin);
	o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, "
	    "s:{s:I, s:o, s:o, s:s}, s:s, s:s, s:s, s:b, s:s, s:s, s:s, "
	    "s:s, s:s, s:s}",
	    "id", id, "experiment", experiment, "campaign", b->camp.id,
	    "seal", b->camp.seal_hash, "method", method, "build", ar_build_id(),
	    "problem", b->m.name, "workload", b->w->name,
	    "shape", "k", (json_int_t)(b->ngpu ? (long)b->ngpu : b->k), "cpus",
	    cpus, "gpu_ids", gpu_ids,
	    "node", host,
	    "device", b->device, "sandbox", b->sandbox ? "bwrap" : "none",
	    "seeds", se->seeds, "aa", b->aa, "metric", b->m.metric.name,
	    "direction", b->m.metric.higher ? "higher" : "lower",
	    "verdict", verdict, "why", why, "started", started,
	    "finished", fin);
	if (!o)
		ar_die(AR_EX_SOFTWARE, "cannot build the result");
	if (spec_idea)
		json_object_set_new(o, "idea", json_string(spec_idea));
	if (b->m.metric.unit)
		json_object_set_new(o, "unit", json_string(b->m.metric.unit));
	json_object_set_new(o, "metrics", role_metrics(b, R_METH, from_m,
	    b->role[R_METH].ns));
	json_object_set_new(o, "baseline", role_metrics(b, R_BASE, from_b,
	    b->role[R_BASE].ns));
	json_object_set_new(o, "ratio", ratio_of(se));
	json_object_set_new(o, "gates", checks_json(b->m.gate, b->m.ngate,
	    b->gate_runs, b->gate_pass, b->gate_worst_v));
	json_object_set_new(o, "guardrails", checks_json(b->m.guard,
	    b->m.nguard, b->guard_runs, b->guard_pass, b->guard_worst_v));
	/* The checks as scalars, for tables: arrays of objects are not
	 * flattened into TSV columns. */
	{
		int g = 1, r = 1;

		for (i = 0; i < b->m.ngate; i++)
			g &= b->gate_pass[i];
		for (i = 0; i < b->m.nguard; i++)
			r &= b->guard_pass[i];
		json_object_set_new(o, "pass", json_pack("{s:b, s:b, s:b}",
		    "gates", g, "guardrails", r, "work", b->work_pass));
	}
	if (b->m.work_metric) {
		json_t *w = json_pack("{s:s, s:f, s:b, s:I}", "metric",
		    b->m.work_metric, "expected", b->w->work, "pass",
		    b->work_pass, "runs", (json_int_t)b->work_runs);

		if (!b->work_pass)
			json_object_set_new(w, "done", json_real(b->work_bad));
		json_object_set_new(o, "work", w);
	}
	json_object_set_new(o, "stats", json_pack("{s:I, s:I, s:I, s:f, s:I, "
	    "s:f, s:f, s:f, s:s}", "pairs", (json_int_t)se->n, "runs_pairs",
	    (json_int_t)se->npairs, "warmup", (json_int_t)b->warmup,
	    "min_effect", b->vo.min_effect, "outliers", (json_int_t)se->outliers,
	    "alpha", b->vo.alpha, "seconds", se->secs, "time_limit_s",
	    b->time_s, "test", "wilcoxon signed-rank over blocks of pairs, "
	    "carry-over exposed pairs left out, group-sequential"));
	design_json(b, se, json_object_get(o, "stats"));
	if (b->stop_at > 0)
		json_object_set_new(json_object_get(o, "stats"), "stop_at",
		    json_real(b->stop_at));
	if (b->prior_lo > 0)
		json_object_set_new(json_object_get(o, "stats"), "stop_prior",
		    json_pack("[f, f]", b->prior_lo, b->prior_hi));
	if (se->n >= 2) {
		json_object_set_new(json_object_get(o, "stats"), "rsd",
		    real(1.4826 * ar_mad(se->x, se->n)));
	}
	/* A/A: the noise floor, what no method can be told apart from. */
	if (b->aa && se->n >= 2) {
		json_t *nf = json_pack("{s:o}", "rsd", real(1.4826 *
		    ar_mad(se->x, se->n)));

		if (isfinite(se->ci.lo) && isfinite(se->ci.hi))
			json_object_set_new(nf, "ci_half_width", real(
			    (exp(se->ci.hi) - exp(se->ci.lo)) / 2));
		json_object_set_new(o, "noise_floor", nf);
	}
	if (slow_first(b, R_BASE))
		json_array_append_new(flags, json_string("slow_first_run:"
		    "baseline"));
	if (slow_first(b, R_METH))
		json_array_append_new(flags, json_string("slow_first_run:"
		    "method"));
	if (b->role[R_METH].leftovers || b->role[R_BASE].leftovers)
		json_object_set_new(o, "leftovers", json_pack("{s:i, s:i}",
		    "baseline", b->role[R_BASE].leftovers, "method",
		    b->role[R_METH].leftovers));
	if (hold) {
		json_t *d = json_pack("{s:o, s:I, s:s}", "ratio", ratio_of(dev),
		    "pairs", (json_int_t)dev->n, "verdict", ar_verdict_name(
		    dev->verdict));
		/* Much better on dev than on holdout: tuned to the dev
		 * seeds. The intervals must not even touch. */
		int overfit = dev->n >= 2 && hold->n >= 2 &&
		    dev->ci.lo > hold->ci.hi &&
		    dev->ci.est - hold->ci.est > log1p(b->vo.min_effect);

		json_object_set_new(o, "dev", d);
		json_object_set_new(o, "overfit", json_boolean(overfit));
		if (overfit)
			json_array_append_new(flags, json_string("overfit"));
	}
	json_object_set_new(o, "flags", flags);
	if (b->fail.stage) {
		json_t *f = json_pack("{s:s, s:s, s:s}", "stage", b->fail.stage,
		    "role", b->fail.role, "stderr", b->fail.tail ? b->fail.tail :
		    "");

		if (b->fail.pair >= 0)
			json_object_set_new(f, "pair", json_integer(
			    b->fail.pair));
		if (b->fail.has_status && WIFEXITED(b->fail.status))
			json_object_set_new(f, "exit", json_integer(
			    WEXITSTATUS(b->fail.status)));
		if (b->fail.has_status && WIFSIGNALED(b->fail.status)) {
			const char *sn = sigabbrev_np(WTERMSIG(b->fail.status));
			char *s = ar_xasprintf("SIG%s", sn ? sn : "?");

			json_object_set_new(f, "signal", json_string(s));
			free(s);
		}
		if (b->fail.timed_out)
			json_object_set_new(f, "timed_out", json_true());
		json_object_set_new(o, "failure", f);
	}
	if (b->profile)
		roofline_fields(b, o, from_b, from_m);
	{
		json_t *raw = json_pack("{s:o, s:o, s:s}", "baseline",
		    raw_of(b, R_BASE, from_b, b->role[R_BASE].ns), "method",
		    raw_of(b, R_METH, from_m, b->role[R_METH].ns), "order",
		    se->order ? se->order : "");

		json_object_set_new(o, "raw", raw);
	}
	return o;
}

