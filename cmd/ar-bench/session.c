/* session.c: the pairs of one session. Baseline and method run in
 * balanced AB/BA pairs, in blocks one coin orders, on seeds of one kind
 * (dev or holdout);
 * every scored run is checked (the work done, the gates, the primary
 * metric, and on a method run the guardrails against its pair's
 * baseline), and the statistics of the per-pair log-ratios decide when
 * the session stops and with which verdict. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "buf.h"
#include "err.h"
#include "json.h"
#include "manifest.h"
#include "stats.h"
#include "timefmt.h"
#include "utf8.h"
#include "bench.h"

/* ---- metrics and checks ---- */

size_t
track(struct bench *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nmetric; i++)
		if (strcmp(b->metric[i], name) == 0)
			return i;
	b->metric = ar_xrealloc(b->metric, (b->nmetric + 1) *
	    sizeof *b->metric);
	b->metric[b->nmetric] = name;
	return b->nmetric++;
}

void
track_all(struct bench *b)
{
	size_t i;

	track(b, b->m.metric.name);
	for (i = 0; i < b->m.nsecondary; i++)
		track(b, b->m.secondary[i].name);
	for (i = 0; i < b->m.ngate; i++)
		if (b->m.gate[i].metric)
			track(b, b->m.gate[i].metric);
	for (i = 0; i < b->m.nguard; i++)
		track(b, b->m.guard[i].metric);
	if (b->m.work_metric)
		track(b, b->m.work_metric);
	b->gate_worst_v = ar_xcalloc(b->m.ngate + 1, sizeof(double));
	b->guard_worst_v = ar_xcalloc(b->m.nguard + 1, sizeof(double));
	b->gate_runs = ar_xcalloc(b->m.ngate + 1, sizeof(size_t));
	b->guard_runs = ar_xcalloc(b->m.nguard + 1, sizeof(size_t));
	b->gate_pass = ar_xcalloc(b->m.ngate + 1, sizeof(int));
	b->guard_pass = ar_xcalloc(b->m.nguard + 1, sizeof(int));
	for (i = 0; i < b->m.ngate; i++)
		b->gate_pass[i] = 1;
	for (i = 0; i < b->m.nguard; i++)
		b->guard_pass[i] = 1;
	b->work_pass = 1;
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

struct sample *
new_sample(struct bench *b, int ri)
{
	struct role *r = &b->role[ri];
	struct sample *s;
	size_t i;

	if (r->ns == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->s = ar_xrealloc(r->s, r->cap * sizeof *r->s);
	}
	s = &r->s[r->ns++];
	memset(s, 0, sizeof *s);
	s->val = ar_xmalloc((b->nmetric + 1) * sizeof *s->val);
	for (i = 0; i < b->nmetric; i++)
		s->val[i] = NAN;
	return s;
}

/* Ends a run of role ri with end, why it did in b->end_why; a baseline
 * that fails stops ar-bench instead. */
int
end_run(struct bench *b, int ri, int end, const char *fmt, ...)
{
	va_list ap;
	char msg[400];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* What a method printed may be in msg, cut anywhere: the result's
	 * JSON must be written whatever it is. */
	ar_utf8_repair(msg);
	/* A baseline that fails is a broken problem, not a verdict; in A/A
	 * both sides are the baseline. */
	if (ri == R_BASE || b->aa)
		ar_die(AR_EX_DATA, "baseline: %s%s%s", msg, b->fail.tail &&
		    b->fail.tail[0] ? "; stderr ends: " : "", b->fail.tail &&
		    b->fail.tail[0] ? strrchr(b->fail.tail, '\n') ?
		    strrchr(b->fail.tail, '\n') + 1 : b->fail.tail : "");
	snprintf(b->end_why, sizeof b->end_why, "%s", msg);
	return end;
}

/* Checks the metric gates and the work of one scored run. */
int
check_run(struct bench *b, int ri, const struct sample *s, long pair)
{
	size_t i, k;

	/* Lost work first: it names the cause where a gate on the output
	 * would only see its effect. */
	if (b->m.work_metric) {
		double v = s->val[track(b, b->m.work_metric)];

		if (ri == R_METH)
			b->work_runs++;
		if (isnan(v) || v != b->w->work) {
			char num[40], want[40];

			if (ri == R_METH) {
				b->work_pass = 0;
				b->work_bad = isnan(v) ? 0 : v;
			}
			ar_fmt_double(num, sizeof num, isnan(v) ? 0 : v);
			ar_fmt_double(want, sizeof want, b->w->work);
			return end_run(b, ri, END_INVALID, "lost work: %s = %s, "
			    "the workload asked for %s (pair %ld)",
			    b->m.work_metric, isnan(v) ? "missing" : num, want,
			    pair);
		}
	}
	for (i = 0; i < b->m.ngate; i++) {
		const struct ar_check *g = &b->m.gate[i];
		double v;

		if (!g->metric)
			continue;
		k = track(b, g->metric);
		v = s->val[k];
		if (ri == R_METH) {
			b->gate_runs[i]++;
			b->gate_worst_v[i] = worse(g->op, b->gate_runs[i] == 1 ?
			    NAN : b->gate_worst_v[i], v);
		}
		if (isnan(v))
			return end_run(b, ri, END_INVALID, "gate %s: the score "
			    "printed no METRIC %s (pair %ld)", g->text,
			    g->metric, pair);
		if (!ar_op_holds(g->op, v, g->value)) {
			char num[40];

			if (ri == R_METH)
				b->gate_pass[i] = 0;
			ar_fmt_double(num, sizeof num, v);
			return end_run(b, ri, END_INVALID, "gate %s failed: %s "
			    "(pair %ld)", g->text, num, pair);
		}
	}
	k = track(b, b->m.metric.name);
	if (isnan(s->val[k]) || !(s->val[k] > 0))
		return end_run(b, ri, END_INVALID, "the score printed %s METRIC "
		    "%s (pair %ld)", isnan(s->val[k]) ? "no" : "a non-positive",
		    b->m.metric.name, pair);
	return END_NONE;
}

/* Guardrails on a method run, some against its paired baseline run. */
static int
check_guards(struct bench *b, const struct sample *m, const struct sample *base,
    long pair)
{
	size_t i;
	int bad = END_NONE;

	for (i = 0; i < b->m.nguard; i++) {
		const struct ar_check *g = &b->m.guard[i];
		size_t k = track(b, g->metric);
		double v = m->val[k], bound = g->ratio > 0 ? g->ratio *
		    base->val[k] : g->value;

		b->guard_runs[i]++;
		b->guard_worst_v[i] = worse(g->op, b->guard_runs[i] == 1 ? NAN :
		    b->guard_worst_v[i], v);
		if (isnan(v) || isnan(bound))
			return end_run(b, R_METH, END_INVALID, "guardrail %s: "
			    "the score printed no METRIC %s (pair %ld)",
			    g->text, g->metric, pair);
		if (!ar_op_holds(g->op, v, bound) && bad == END_NONE) {
			char num[40], bnum[40];

			b->guard_pass[i] = 0;
			ar_fmt_double(num, sizeof num, v);
			ar_fmt_double(bnum, sizeof bnum, bound);
			bad = end_run(b, R_METH, END_DISCARD, "guardrail %s "
			    "failed: %s against %s (pair %ld)", g->text, num,
			    bnum, pair);
		}
	}
	return bad;
}

static void
pairs_of(const struct session *se, struct ar_pairs *p)
{
	p->x = se->x;
	p->first = se->order;
	p->before = se->before;
	p->n = se->n;
	p->block = se->block;
}

static void
progress(struct bench *b, const struct session *se, int force)
{
	struct ar_pairs p;
	struct ar_look lk;
	double t = ar_mono();

	if (!b->progress || (!force && t - b->progress_last < 1))
		return;
	b->progress_last = t;
	pairs_of(se, &p);
	/* As a last look: the interval, whatever the verdict. */
	ar_verdict(&b->design, &p, b->vo.max_pairs, 1, &lk);
	/* Few blocks bound the interval on one side only: inf. */
	if (lk.units < 2 || (!isfinite(lk.ci.lo) && !isfinite(lk.ci.hi))) {
		fprintf(stderr, "%s: %s seeds: pair %zu\n", ar_prog(), se->seeds,
		    se->npairs);
		return;
	}
	fprintf(stderr, "%s: %s seeds: pair %zu: ratio %.4f [%.4f, %.4f]\n",
	    ar_prog(), se->seeds, se->npairs, exp(lk.ci.est), exp(lk.ci.lo),
	    exp(lk.ci.hi));
}

static unsigned long long
seed_of(struct bench *b, const char *kind, size_t pair)
{
	size_t n = b->w->nseed;

	if (strcmp(kind, "holdout") == 0)
		return ar_seed_derive(b->hkey, sizeof b->hkey, "holdout",
		    b->w->name, pair, 0);
	return ar_seed_derive(NULL, 0, "dev", b->w->name, b->w->seed[pair % n],
	    pair / n);
}
/* The session's 95% interval of the log-ratio (est, lo, hi) and the
 * pair's earlier one (--stop-prior) as one: each read as a normal
 * estimate, weighed by its precision, so that a session whose earlier
 * measurements already answer the scheduler's question ends at its
 * first look, as ar-sched simulate's measurement of all the pair's runs
 * does. An interval the session cannot give yet stays unbounded. */
static void
with_prior(const struct bench *b, double est, double *lo, double *hi)
{
	double pm = (log(b->prior_lo) + log(b->prior_hi)) / 2;
	double ps = (log(b->prior_hi) - log(b->prior_lo)) / (2 * 1.959964);
	double ss = (*hi - *lo) / (2 * 1.959964), w, m, s;

	if (!isfinite(*lo) || !isfinite(*hi) || !(ss > 0) || !(ps > 0))
		return;
	w = 1 / (ss * ss) + 1 / (ps * ps);
	m = (est / (ss * ss) + pm / (ps * ps)) / w;
	s = 1 / sqrt(w);
	*lo = m - 1.959964 * s;
	*hi = m + 1.959964 * s;
}


/* Pairs until the verdict or the end. Returns END_* of what ended it, the
 * verdict in se. */
int
session_run(struct bench *b, struct session *se)
{
	double t0 = ar_mono(), el;
	int first = 0, first_prev = 0, end = END_NONE;
	struct ar_pairs pairs;
	size_t p;

	se->first_sample[0] = b->role[R_BASE].ns;
	se->first_sample[1] = b->role[R_METH].ns;
	se->verdict = AR_V_CONTINUE;
	se->block = ar_block_size(b->vo.max_pairs);
	for (p = 0; end == END_NONE; p++) {
		unsigned long long seed = seed_of(b, se->seeds, p);
		struct sample *sb = NULL, *sm = NULL;
		int o[2], i, warm = (long)p < b->warmup, last;

		b->pair_seed = seed;
		b->pair_holdout = strcmp(se->seeds, "holdout") == 0;

		/* Warm-up runs count for the checks, not the statistics. */
		if ((long)p == b->warmup) {
			se->first_sample[0] = b->role[R_BASE].ns;
			se->first_sample[1] = b->role[R_METH].ns;
		}
		run_prepare(b, seed);
		/* Blocks of se->block pairs: a coin decides the first pair's
		 * order, and the pairs after it alternate (AB BA AB BA), so
		 * each starts with the role the one before ended with. The
		 * test's unit is the block (its coin flips the whole block),
		 * and only a block's first pair can follow a run of the other
		 * role, the carry-over the test leaves out. The very first
		 * pair runs the baseline first, so a problem broken for
		 * everyone fails on the baseline, not on a coin toss. */
		if (p == 0)
			first = 0;
		else if ((warm ? p : p - (size_t)b->warmup) % se->block == 0)
			first = randombytes_uniform(2);
		else
			first = !first;
		/* The run before the first scored pair: the last warm-up
		 * run, the other role than the warm-up pair's first. */
		if ((long)p == b->warmup)
			se->before = p == 0 ? 0 : first_prev ? 'b' : 'm';
		first_prev = first;
		o[0] = first ? R_METH : R_BASE;
		o[1] = first ? R_BASE : R_METH;
		for (i = 0; i < 2 && end == END_NONE; i++)
			end = run_one(b, o[i], (long)p, seed, o[i] == R_BASE ? &sb
			    : &sm);
		if (end == END_NONE)
			end = check_guards(b, sm, sb, (long)p);
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
			double bv = sb->val[0], mv = sm->val[0];

			se->x[se->n] = b->m.metric.higher ? log(mv / bv) :
			    log(bv / mv);
		}
		se->order[se->n++] = first ? 'm' : 'b';
		se->order[se->n] = 0;
		se->npairs = p + 1;
		el = ar_mono() - t0;
		/* The time limit ends the session at the pair that would
		 * cross it. */
		last = se->n >= b->vo.max_pairs ||
		    el + el / (double)(p + 1) > b->time_s;
		progress(b, se, 0);
		if (!ar_verdict_look(se->n, &b->vo) && !last)
			continue;
		{
			/* The last pair the session can reach, by pairs or by
			 * time: what a futile session is judged against. */
			double by_time = b->time_s / (el / (double)(p + 1));
			size_t n_end = b->vo.max_pairs;

			if (by_time < (double)n_end)
				n_end = by_time > (double)se->n ?
				    (size_t)by_time : se->n;
			pairs_of(se, &pairs);
			se->verdict = ar_verdict(&b->design, &pairs, n_end, last,
			    &se->look);
		}
		/* With --stop-at, the scheduler's question ends the session:
		 * a verdict decided first does not, since the scheduler
		 * sized the measurement for its own question, and the
		 * verdict taken where the session ends is one of its looks,
		 * whichever that is. */
		if (se->verdict != AR_V_CONTINUE && (!(b->stop_at > 0) || last))
			break;
		/* The scheduler's question (does the ratio clear the
		 * incumbent?) is asked at 95% per look, as ar-sched
		 * simulate models it; its errors cost the scheduler a miss,
		 * never a verdict: the verdict keeps its own confidence,
		 * and is inconclusive where it is undecided. */
		if (b->stop_at > 0) {
			double est, lo, hi, qlo, qhi;

			ar_signed_rank_ci(se->x, se->n, 0.95, &est, &lo, &hi);
			/* The question may use the earlier runs too; the
			 * interval reported stays the session's own, which
			 * is what a reader pooling results may weigh. */
			qlo = lo;
			qhi = hi;
			if (b->prior_lo > 0)
				with_prior(b, est, &qlo, &qhi);
			if (isfinite(qlo) && isfinite(qhi) && (qlo >
			    log(b->stop_at) || qhi < log(b->stop_at))) {
				pairs_of(se, &pairs);
				se->verdict = ar_verdict(&b->design, &pairs,
				    se->n, 1, &se->look);
				se->stopped = se->verdict == AR_V_INCONCLUSIVE;
				se->stop_lo = lo;
				se->stop_hi = hi;
				se->stop_above = qlo > log(b->stop_at);
				break;
			}
		}
	}
	se->npairs = p + (end == END_NONE ? 1 : 0);
	se->secs = ar_mono() - t0;
	se->end = end;
	if (end == END_NONE)
		progress(b, se, 1);
	/* The interval is reported whatever ended the session, the last
	 * look's (its keep boundary's confidence); with too few pairs for
	 * it, it is unbounded (null in the result). */
	if (end != END_NONE || se->verdict == AR_V_CONTINUE) {
		struct ar_look lk;

		pairs_of(se, &pairs);
		ar_verdict(&b->design, &pairs, se->n, 1, &lk);
		se->look = lk;
	}
	/* The interval the verdict was read on: a stop's at the stop
	 * boundary, any other at the keep boundary. */
	se->ci = se->look.ci;
	se->ci.n = se->n;
	se->conf = se->look.conf;
	if (se->verdict == AR_V_DISCARD || se->verdict == AR_V_EQUIVALENT ||
	    se->look.why == AR_WHY_FUTILE) {
		se->ci.lo = se->look.stop_lo;
		se->ci.hi = se->look.stop_hi;
		se->conf = se->look.stop_conf;
	}
	if (se->n >= 1)
		se->outliers = ar_mad_outliers(se->x, se->n, 3.5);
	snprintf(se->why, sizeof se->why, "%s", b->end_why);
	return end;
}
