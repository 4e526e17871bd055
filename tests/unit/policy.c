/* policy.c: unit tests of lib/policy: k and its index, the names, the
 * pairs of a pick, what each policy measures next on small hand-made
 * method sets (grid every k, flat1 k=1 only, sha by halving, ours by
 * value with its ladder, budget, use mask, cap and costs, a scale probe
 * priced at the size it is expected to take, with no hints at all), and
 * the best feasible
 * (method, k). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "unit.h"

static void
method(struct ar_pol_method *m, const char *id)
{
	int k;

	memset(m, 0, sizeof *m);
	m->id = id;
	m->pfrac = m->pfrac_sd = NAN;
	for (k = 0; k < AR_POL_NK; k++)
		m->at[k].est = m->at[k].lo = m->at[k].hi = NAN;
}

/* n measurements at k = 1 << ki with estimate est, its interval est +-
 * half. */
static void
measure(struct ar_pol_method *m, int ki, int n, double est, double half,
    int feasible)
{
	m->at[ki].n = n;
	m->at[ki].est = est;
	m->at[ki].lo = est - half;
	m->at[ki].hi = est + half;
	m->at[ki].feasible = feasible;
}

static void
config(struct ar_pol_cfg *c, int policy)
{
	int k;

	memset(c, 0, sizeof *c);
	c->policy = policy;
	for (k = 0; k < AR_POL_NK; k++)
		c->use[k] = 1;
	c->min_effect = 0.01;
	c->budget_h = -1;
}

/* The picks as "mMETHOD:k=K:PURPOSE " text, into buf. */
static const char *
picks(const struct ar_pol_pick *p, size_t n)
{
	static char buf[1024];
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < n && len < sizeof buf; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len,
		    "m%zu:k=%ld:%s ", p[i].method, ar_pol_k(p[i].ki),
		    ar_pol_purpose_name(p[i].purpose));
	return buf;
}

static void
names(void)
{
	static const long ks[] = { 1, 2, 4, 8 };
	static const char *const pol[] = { "ours", "flat1", "grid", "sha" },
	    *const pur[] = { "probe", "scale", "validate", "aa" };
	int i;

	for (i = 0; i < AR_POL_NK; i++)
		OK(ar_pol_kindex(ks[i]) == i && ar_pol_k(i) == ks[i], "k=%ld is "
		    "index %d, and back", ks[i], i);
	OK(ar_pol_kindex(0) == -1 && ar_pol_kindex(3) == -1 &&
	    ar_pol_kindex(16) == -1 && ar_pol_kindex(-1) == -1, "no index for "
	    "k = 0, 3, 16, -1");
	for (i = 0; i < 4; i++)
		OK(strcmp(ar_pol_name(i), pol[i]) == 0 && ar_pol_parse(pol[i]) ==
		    i, "policy %d is %s, and back", i, pol[i]);
	OK(ar_pol_parse("OURS") == -1 && ar_pol_parse("") == -1 &&
	    ar_pol_parse("grid ") == -1, "unknown policies are -1");
	OK(strcmp(ar_pol_name(4), "?") == 0 && strcmp(ar_pol_name(-1), "?") ==
	    0, "no name out of range");
	for (i = 0; i < 4; i++)
		OK(strcmp(ar_pol_purpose_name(i), pur[i]) == 0, "purpose %d is "
		    "%s", i, pur[i]);
	OK(strcmp(ar_pol_purpose_name(4), "?") == 0, "no purpose out of range");
}

static int
pairs_of(double lo, double hi, double stop, long std, long *pmin, long *pmax)
{
	struct ar_pol_pick p;

	memset(&p, 0, sizeof p);
	p.size_min = lo;
	p.size_max = hi;
	p.stop_at = stop;
	*pmin = *pmax = -1;
	return ar_pol_pairs(&p, std, pmin, pmax);
}

static void
pairs(void)
{
	long a, b;
	int bad = 0;
	double lo, hi;
	long std;

	OK(pairs_of(1, 1, NAN, 32, &a, &b) == 0 && a == -1 && b == -1, "a "
	    "default pick is 0: ar-bench's own rule");
	OK(pairs_of(1, 1, 1.05, 32, &a, &b) == 1 && a == 32 && b == 32, "one "
	    "standard measurement with a stop is sized");
	OK(pairs_of(0.25, 1, 1.1, 32, &a, &b) == 1 && a == 8 && b == 32,
	    "a quarter to one: 8 to 32 pairs of 32");
	OK(pairs_of(0.5, 2.5, NAN, 32, &a, &b) == 1 && a == 16 && b == 80,
	    "half to two and a half: 16 to 80");
	OK(pairs_of(0.25, 1, NAN, 8, &a, &b) == 1 && a == AR_POL_PAIRS_MIN &&
	    b == AR_POL_PAIRS_MIN, "never below %d pairs", AR_POL_PAIRS_MIN);
	OK(pairs_of(0.1, 0.2, NAN, 32, &a, &b) == 1 && a == 8 && b == 8,
	    "the most is never below the least");
	OK(pairs_of(0.57, 1.1, NAN, 100, &a, &b) == 1 && a == 57 && b == 110,
	    "no pair more for a rounding error (0.57 and 1.1 of 100)");
	for (std = 1; std <= 64; std++)
		for (lo = 0.05; lo < 3; lo += 0.15)
			for (hi = lo; hi < 3; hi += 0.35)
				if (pairs_of(lo, hi, NAN, std, &a, &b) == 1 &&
				    (a < AR_POL_PAIRS_MIN || b < a))
					bad++;
	OK(bad == 0, "over many sizes: never below the minimum, never a most "
	    "below the least (%d bad)", bad);
}

static void
grid(void)
{
	struct ar_pol_method m[2];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n;
	long a, b;

	method(&m[0], "a");
	method(&m[1], "b");
	config(&c, AR_POL_GRID);
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 8 && strcmp(picks(p, n), "m0:k=1:probe m1:k=1:probe "
	    "m0:k=2:scale m1:k=2:scale m0:k=4:scale m1:k=4:scale "
	    "m0:k=8:scale m1:k=8:scale ") == 0, "grid: every method at every "
	    "k, k by k");
	OK(ar_pol_pairs(&p[0], 32, &a, &b) == 0 && ar_pol_pairs(&p[7], 32, &a,
	    &b) == 0, "grid: default measurements");
	n = ar_policy_next(m, 2, &c, p, 3);
	OK(n == 3 && strcmp(picks(p, n), "m0:k=1:probe m1:k=1:probe "
	    "m0:k=2:scale ") == 0, "grid: at most max");
	measure(&m[0], 0, 1, 1.1, 0.01, 1);
	m[1].at[2].pending = 1;
	c.use[3] = 0;
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 4 && strcmp(picks(p, n), "m1:k=1:probe m0:k=2:scale "
	    "m1:k=2:scale m0:k=4:scale ") == 0, "grid: not what is measured, "
	    "pending or not to be used");
	method(&m[0], "a");
	method(&m[1], "b");
	config(&c, AR_POL_GRID);
	c.budget_h = 3;
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 2 && strcmp(picks(p, n), "m0:k=1:probe m1:k=1:probe ") == 0,
	    "grid: within the budget, a k's cost k GPU-hours by default");
	c.budget_h = 2;
	c.cost_h[0] = 0.5;
	c.cost_h[1] = 1;
	c.cost_h[2] = 2;
	c.cost_h[3] = 4;
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 3 && strcmp(picks(p, n), "m0:k=1:probe m1:k=1:probe "
	    "m0:k=2:scale ") == 0, "grid: within the budget at the costs "
	    "given");
	c.budget_h = 0.25;
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "grid: nothing within a "
	    "budget too small");
	OK(ar_policy_next(m, 0, &c, p, 16) == 0 && ar_policy_next(m, 2, &c, p,
	    0) == 0, "no methods or max 0: no picks");
}

static void
flat1(void)
{
	struct ar_pol_method m[3];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n;

	method(&m[0], "a");
	method(&m[1], "b");
	method(&m[2], "c");
	measure(&m[1], 0, 1, 1.2, 0.01, 1);
	config(&c, AR_POL_FLAT1);
	n = ar_policy_next(m, 3, &c, p, 16);
	OK(n == 2 && strcmp(picks(p, n), "m0:k=1:probe m2:k=1:probe ") == 0,
	    "flat1: every unmeasured method at k=1, and nothing else");
	measure(&m[0], 0, 1, 1.0, 0.01, 1);
	measure(&m[2], 0, 1, 1.0, 0.01, 0);
	OK(ar_policy_next(m, 3, &c, p, 16) == 0, "flat1: all measured at k=1: "
	    "done, whatever k > 1 could show");
	method(&m[0], "a");
	c.use[0] = 0;
	OK(ar_policy_next(m, 3, &c, p, 16) == 0, "flat1: nothing when k=1 may "
	    "not be used");
}

static void
sha(void)
{
	struct ar_pol_method m[5];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n;
	static const double est[] = { 1.0, 1.3, 1.1, 1.2 };
	int i;

	config(&c, AR_POL_SHA);
	for (i = 0; i < 4; i++) {
		method(&m[i], "m");
		measure(&m[i], 0, 1, est[i], 0.01, 1);
	}
	n = ar_policy_next(m, 4, &c, p, 16);
	OK(n == 2 && strcmp(picks(p, n), "m1:k=2:scale m3:k=2:scale ") == 0,
	    "sha: the better half of k=1 goes to k=2");
	method(&m[4], "new");
	n = ar_policy_next(m, 5, &c, p, 16);
	OK(n == 1 && strcmp(picks(p, n), "m4:k=1:probe ") == 0, "sha: a rung "
	    "is finished before the next");
	measure(&m[4], 0, 1, 2.0, 0.01, 0);
	n = ar_policy_next(m, 5, &c, p, 16);
	OK(n == 2 && strcmp(picks(p, n), "m1:k=2:scale m3:k=2:scale ") == 0,
	    "sha: an infeasible method takes no place in the halving");
	measure(&m[1], 1, 1, 1.5, 0.01, 1);
	measure(&m[3], 1, 1, 1.4, 0.01, 1);
	n = ar_policy_next(m, 5, &c, p, 16);
	OK(n == 1 && strcmp(picks(p, n), "m1:k=4:scale ") == 0, "sha: then "
	    "the better half of those at k=4");
}

/* Two methods at k=1: fast, whose parallel fraction is 0.99, and serial,
 * whose fraction is the baseline's 0.5; fast leads. */
static void
two(struct ar_pol_method *m, struct ar_pol_cfg *c)
{
	method(&m[0], "fast");
	measure(&m[0], 0, 1, 1.10, 0.02, 1);
	m[0].pfrac = 0.99;
	m[0].pfrac_sd = 0.01;
	method(&m[1], "serial");
	measure(&m[1], 0, 2, 1.05, 0.01, 1);
	m[1].pfrac = 0.5;
	m[1].pfrac_sd = 0.01;
	config(c, AR_POL_OURS);
	c->base_pfrac = 0.5;
}

static void
ours_probes(void)
{
	struct ar_pol_method m[2];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n;
	long a, b;

	method(&m[0], "a");
	method(&m[1], "b");
	config(&c, AR_POL_OURS);
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 2 && strcmp(picks(p, n), "m0:k=1:probe m1:k=1:probe ") == 0,
	    "ours: new methods are probed at k=1 first");
	OK(p[0].size_min == 0.25 && p[0].size_max == 1 && isnan(p[0].stop_at) &&
	    ar_pol_pairs(&p[0], 32, &a, &b) == 1 && a == 8 && b == 32, "ours: "
	    "a probe runs 8 to 32 pairs; no incumbent, no early stop");
	measure(&m[0], 0, 2, 1.2, 0.01, 1);
	n = ar_policy_next(m, 2, &c, p, 1);
	OK(n == 1 && p[0].method == 1 && p[0].ki == 0 && p[0].purpose ==
	    AR_PUR_PROBE && fabs(p[0].stop_at - 1.2) < 1e-12, "ours: a new "
	    "method's probe may stop once clearly above or below the "
	    "incumbent");
	m[1].at[0].pending = 1;
	c.use[1] = c.use[2] = c.use[3] = 0;
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "ours: not a probe pending "
	    "already");
}

static void
ours_scale(void)
{
	struct ar_pol_method m[2];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n, i;
	int sorted = 1, eight = 0, fast_first = 1;

	two(m, &c);
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n >= 1 && p[0].method == 0 && p[0].ki == 1 && p[0].purpose ==
	    AR_PUR_SCALE && p[0].value > 0, "ours: the method with a high "
	    "parallel fraction is scaled first, at k=2");
	OK(n >= 1 && fabs(p[0].stop_at - (1.10 + 0.01)) < 1e-12 &&
	    p[0].size_min == 0.25 && p[0].size_max == 1, "ours: a scale probe "
	    "stops once it clearly beats the incumbent by the minimum effect");
	for (i = 0; i < n; i++) {
		if (i && p[i].value > p[i - 1].value)
			sorted = 0;
		if (p[i].ki == 3)
			eight++;
		if (p[i].method == 1 && p[i].value >= p[0].value)
			fast_first = 0;
	}
	OK(sorted, "ours: picks in order of value");
	OK(fast_first, "ours: the serial method is worth less at scale");
	OK(eight == 0, "ours: no k=8 on one measured scale (the ladder)");
	c.use[1] = 0;
	n = ar_policy_next(m, 2, &c, p, 16);
	for (i = 0, eight = 0; i < n; i++)
		if (p[i].ki == 1)
			eight++;
	OK(n >= 1 && p[0].method == 0 && p[0].ki == 2 && eight == 0, "ours: "
	    "with k=2 not to be used, k=4, never k=2");
	c.use[1] = 1;
	c.budget_h = 3;
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 1 && p[0].method == 0 && p[0].ki == 1, "ours: one k=2 within "
	    "3 GPU-hours");
	c.budget_h = 1;
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "ours: nothing within 1 "
	    "GPU-hour: every scale costs more");
	c.budget_h = -1;
	measure(&m[0], 1, 1, 1.6, 0.02, 1);
	n = ar_policy_next(m, 2, &c, p, 16);
	for (i = 0, eight = 0; i < n; i++)
		if (p[i].method == 0 && p[i].ki == 3)
			eight++;
	OK(eight == 0 && n >= 1 && p[0].method == 0 && p[0].ki == 2,
	    "ours: rising from 1 to 2, k=4 next; no k=8 before k=4");
	measure(&m[0], 2, 1, 2.4, 0.02, 1);
	n = ar_policy_next(m, 2, &c, p, 16);
	for (i = 0, eight = 0; i < n; i++)
		if (p[i].method == 0 && p[i].ki == 3)
			eight++;
	OK(eight == 1, "ours: k=8 once k=4 is measured");
}

static void
ours_stops(void)
{
	struct ar_pol_method m[2];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n;

	config(&c, AR_POL_OURS);
	method(&m[0], "a");
	measure(&m[0], 0, 2, 1.0, 0.01, 1);
	measure(&m[0], 1, 2, 1.1, 0.01, 1);
	measure(&m[0], 2, 2, 1.2, 0.01, 1);
	measure(&m[0], 3, 2, 1.5, 0.01, 1);
	OK(ar_policy_next(m, 1, &c, p, 16) == 0, "ours: all measured, a clear "
	    "best: nothing is worth its cost");
	method(&m[0], "broken");
	measure(&m[0], 0, 1, 1.3, 0.01, 0);
	OK(ar_policy_next(m, 1, &c, p, 16) == 0, "ours: a guardrail broken at "
	    "k=1 stays broken above: nothing to scale");
	method(&m[0], "lone");
	measure(&m[0], 0, 1, 1.2, 0.2, 1);
	c.use[1] = c.use[2] = c.use[3] = 0;
	n = ar_policy_next(m, 1, &c, p, 16);
	OK(n == 1 && p[0].ki == 0 && p[0].purpose == AR_PUR_VALIDATE &&
	    p[0].size_min == 0.25 && p[0].size_max == 0.5, "ours: a best on one "
	    "noisy measurement is measured again, up to half a measurement");
	measure(&m[0], 0, 2, 1.2, 0.2, 1);
	n = ar_policy_next(m, 1, &c, p, 16);
	OK(n == 1 && p[0].purpose == AR_PUR_VALIDATE && p[0].size_max == 0.5,
	    "ours: and again while its sd exceeds three minimum effects: its "
	    "first looks may all have been lucky");
	/* An sd of 0.026, within three minimum effects (0.03). */
	measure(&m[0], 0, 3, 1.2, 0.05, 1);
	OK(ar_policy_next(m, 1, &c, p, 16) == 0, "ours: but not once it is "
	    "within them");
	method(&m[0], "a");
	measure(&m[0], 0, 2, 1.20, 0.03, 1);
	method(&m[1], "b");
	measure(&m[1], 0, 1, 1.19, 0.03, 1);
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 1 && p[0].method == 1 && p[0].purpose == AR_PUR_VALIDATE &&
	    p[0].size_min == 0.25 && p[0].size_max == 3 && p[0].stop_at ==
	    1.20, "ours: a rival within the incumbent's noise is measured "
	    "again, until clearly above or below it");
	/* An sd of 0.009 each, within the minimum effect (0.01). */
	measure(&m[1], 0, 4, 1.19, 0.018, 1);
	measure(&m[0], 0, 4, 1.20, 0.018, 1);
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "ours: no pair more than four "
	    "times: a close call is a tie");
	/* An sd of 0.015, above the minimum effect (0.01). */
	measure(&m[1], 0, 4, 1.19, 0.03, 1);
	measure(&m[0], 0, 4, 1.20, 0.03, 1);
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 1 && p[0].purpose == AR_PUR_VALIDATE, "ours: a noisy close "
	    "call, its sd above the minimum effect, has more than four looks");
	measure(&m[1], 0, 8, 1.19, 0.03, 1);
	measure(&m[0], 0, 8, 1.20, 0.03, 1);
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 1 && p[0].purpose == AR_PUR_VALIDATE && p[0].value == 0 &&
	    p[0].size_max == 3, "ours: past eight looks, a noisy best and its "
	    "closest rival not told apart are measured again, when nothing "
	    "else is worth it");
	/* An sd of 0.009 each: within the minimum effect. */
	measure(&m[1], 0, 12, 1.19, 0.018, 1);
	measure(&m[0], 0, 12, 1.20, 0.018, 1);
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "ours: but not once both "
	    "are within the minimum effect");
	/* A rival 3 sds of the gap below a noisy best: told apart. */
	measure(&m[1], 0, 8, 1.10, 0.03, 1);
	measure(&m[0], 0, 8, 1.20, 0.03, 1);
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "ours: nor a rival clearly "
	    "below a noisy best");
	measure(&m[1], 0, 1, 0.9, 0.01, 1);
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "ours: a rival clearly below "
	    "is not measured again");
}

/* A method the planner hinted may pay at scale is probed at 2 and then
 * 4 even when the expected gain alone would not pay for it (program.md's
 * promise), unless the scale below shows it dead. */
static void
ours_hinted_probe(void)
{
	struct ar_pol_method m[3];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[32];
	size_t n, i;
	int at2 = 0, at4 = 0, dead = 0;

	config(&c, AR_POL_OURS);
	method(&m[0], "inc");
	method(&m[1], "hinted");
	method(&m[2], "hinted-dead");
	m[1].hint = m[2].hint = 1;
	/* The best so far fell from 1 to 2: what the campaign learns is
	 * that scale hurts, so no k=1 loser is expected to gain there. */
	measure(&m[0], 0, 2, 1.17, 0.01, 1);
	measure(&m[0], 1, 2, 1.02, 0.01, 1);
	measure(&m[1], 0, 2, 0.70, 0.01, 1);
	measure(&m[2], 0, 2, 0.30, 0.01, 1);
	n = ar_policy_next(m, 3, &c, p, 32);
	for (i = 0; i < n; i++) {
		if (p[i].method == 1 && p[i].ki == 1)
			at2 = 1;
		if (p[i].method == 2)
			dead = 1;
	}
	OK(at2 && !dead, "ours: a method hinted scale, 0.70 against 1.17 at "
	    "k=1 where the best fell at k=2, is probed at k=2; one at 0.30 "
	    "is not");
	measure(&m[1], 1, 2, 0.65, 0.01, 1);
	n = ar_policy_next(m, 3, &c, p, 32);
	for (i = 0; i < n; i++)
		if (p[i].method == 1 && p[i].ki == 2)
			at4 = 1;
	OK(at4, "ours: then at k=4, though it fell at k=2 too");
}

/* Without hints, parallel fractions or the baseline's: six methods at
 * k=1, the incumbent 1.05; what is learnt from measuring decides. */
static void
ours_unhinted(void)
{
	struct ar_pol_method m[6];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[32];
	size_t n, i;
	int weak2 = 0, dead2 = 0, rise4 = -1, flat4 = -1;
	static const double est[6] = { 1.05, 1.00, 0.95, 0.35, 1.01, 0.99 };
	static const char *const id[6] = { "inc", "a", "weak", "dead", "b",
	    "c" };

	config(&c, AR_POL_OURS);
	for (i = 0; i < 6; i++) {
		method(&m[i], id[i]);
		measure(&m[i], 0, 1, est[i], 0.01, 1);
	}
	n = ar_policy_next(m, 6, &c, p, 32);
	for (i = 0; i < n; i++) {
		if (p[i].method == 2 && p[i].ki == 1)
			weak2 = 1;
		if (p[i].method == 3)
			dead2 = 1;
	}
	OK(weak2 && !dead2, "ours, no hints: a method 10%% below the "
	    "incumbent at k=1 gets a k=2 probe; one at a third of it none");
	/* weak rises from 1 to 2; a stays flat. */
	measure(&m[2], 1, 1, 1.04, 0.01, 1);
	measure(&m[1], 1, 1, 1.00, 0.01, 1);
	n = ar_policy_next(m, 6, &c, p, 32);
	for (i = 0; i < n; i++) {
		if (p[i].method == 2 && p[i].ki == 2 && rise4 < 0)
			rise4 = (int)i;
		if (p[i].method == 1 && p[i].ki == 2 && flat4 < 0)
			flat4 = (int)i;
	}
	OK(rise4 >= 0 && (flat4 < 0 || rise4 < flat4), "ours, no hints: the "
	    "method that rose from 1 to 2 is probed at k=4 before a flat one");
	/* It peaks at 4 and falls at 8: 4 stays the best, no going on. */
	measure(&m[2], 2, 1, 1.15, 0.01, 1);
	measure(&m[2], 3, 1, 1.02, 0.01, 1);
	{
		size_t bm;
		int bk;

		OK(ar_policy_best(m, 6, &c, &bm, &bk) == 0 && bm == 2 &&
		    bk == 2, "ours: a curve that peaks at 4: the best is k=4");
	}
	/* A crash at 8 says nothing of 4: 4 is still the best. */
	measure(&m[2], 3, 1, 0.2, 0.01, 0);
	{
		size_t bm;
		int bk;

		OK(ar_policy_best(m, 6, &c, &bm, &bk) == 0 && bm == 2 &&
		    bk == 2, "ours: an infeasible k=8 leaves k=4 the best");
	}
}

/* The cap: ours spends at most AR_POL_GRID_CAP of the grid. */
static void
ours_cap(void)
{
	struct ar_pol_method m[2];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n;

	config(&c, AR_POL_OURS);
	method(&m[0], "a");
	method(&m[1], "b");
	measure(&m[0], 0, 1, 1.05, 0.03, 1);
	measure(&m[1], 0, 1, 1.04, 0.03, 1);
	c.grid_h = 30;       /* two methods, 1 + 2 + 4 + 8 hours each */
	c.spent_h = 0;
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n >= 1, "ours: under the cap, close calls are measured");
	c.spent_h = AR_POL_GRID_CAP * 30 - 0.5;
	OK(ar_policy_next(m, 2, &c, p, 16) == 0, "ours: nothing that would "
	    "take the campaign past %.0f%% of the grid", 100 *
	    AR_POL_GRID_CAP);
	method(&m[1], "new");
	n = ar_policy_next(m, 2, &c, p, 16);
	OK(n == 1 && p[0].method == 1 && p[0].ki == 0 && p[0].purpose ==
	    AR_PUR_PROBE, "ours: past the cap, a new method is still probed "
	    "at k=1");
	c.policy = AR_POL_GRID;
	method(&m[0], "new");
	OK(ar_policy_next(m, 2, &c, p, 16) >= 1, "the cap is ours' alone: "
	    "grid measures every pair");
}

/* A method's own cost: of two equal rivals, the cheap one is measured
 * first. */
static void
ours_cost(void)
{
	struct ar_pol_method m[3];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[16];
	size_t n;

	config(&c, AR_POL_OURS);
	method(&m[0], "inc");
	measure(&m[0], 0, 4, 1.05, 0.002, 1);
	method(&m[1], "dear");
	measure(&m[1], 0, 1, 1.04, 0.03, 1);
	m[1].cost_h[0] = 10;
	method(&m[2], "cheap");
	measure(&m[2], 0, 1, 1.04, 0.03, 1);
	m[2].cost_h[0] = 0.5;
	c.use[1] = c.use[2] = c.use[3] = 0;
	n = ar_policy_next(m, 3, &c, p, 16);
	OK(n >= 1 && p[0].method == 2 && p[0].purpose == AR_PUR_VALIDATE,
	    "ours: of two equal rivals, the cheaper is measured first");
}

static void
best(void)
{
	struct ar_pol_method m[2];
	struct ar_pol_cfg c;
	size_t bm = 99;
	int bk = -1;

	method(&m[0], "a");
	method(&m[1], "b");
	config(&c, AR_POL_GRID);
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == -1, "best: none measured: -1");
	measure(&m[0], 0, 1, 1.2, 0.01, 1);
	measure(&m[0], 1, 1, 1.5, 0.01, 0);
	measure(&m[1], 2, 1, 1.3, 0.01, 1);
	m[1].at[3].est = 9;
	m[1].at[3].feasible = 1;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 1 && bk == 2,
	    "best: grid, the highest feasible estimate; an infeasible higher "
	    "one and an unmeasured one ignored");
	c.policy = AR_POL_SHA;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 1 && bk == 2,
	    "best: sha, the same");
	c.policy = AR_POL_FLAT1;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 0 && bk == 0,
	    "best: flat1 looks at k=1 alone");
	m[0].at[0].feasible = 0;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == -1, "best: flat1, none "
	    "feasible at k=1: -1");
	method(&m[0], "wide");
	measure(&m[0], 0, 1, 1.20, 0.2, 1);
	method(&m[1], "narrow");
	measure(&m[1], 0, 2, 1.15, 0.01, 1);
	c.policy = AR_POL_GRID;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 0, "best: grid "
	    "takes the higher estimate");
	c.policy = AR_POL_OURS;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 1 && bk == 0,
	    "best: ours takes one standard error off: the narrow one");
	measure(&m[0], 0, 1, 1.17, 0.06, 1);
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 1, "best: ours, "
	    "a wide pair on one draw: the narrow one");
	measure(&m[0], 0, 2, 1.17, 0.06, 1);
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 0, "best: ours, "
	    "the same measured twice: half a standard error off, the wide "
	    "one");
	measure(&m[0], 0, 1, 1.20, 0.2, 1);
	measure(&m[1], 0, 2, 1.20, 0.2, 1);
	c.policy = AR_POL_GRID;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == 0 && bm == 0 && bk == 0,
	    "best: a tie goes to the first");
	m[0].at[0].feasible = m[1].at[0].feasible = 0;
	c.policy = AR_POL_OURS;
	OK(ar_policy_best(m, 2, &c, &bm, &bk) == -1, "best: ours, none "
	    "feasible: -1");
}

/* ours reads a pair through its method's curve: a noisy high pair whose
 * method is flat below is taken down, a quiet one keeps its estimate.
 * Twelve flat methods teach the campaign that curves move little. */
static void
pick_curve(void)
{
	struct ar_pol_method m[14];
	struct ar_pol_cfg c;
	size_t bm = 99, i;
	int bk = -1, k;
	double e = 0, sd = 0;

	for (i = 2; i < 14; i++) {
		method(&m[i], "flat");
		for (k = 0; k < AR_POL_NK; k++)
			measure(&m[i], k, 2, 0.9, 0.005, 1);
	}
	method(&m[0], "flat-then-lucky");
	measure(&m[0], 0, 2, 1.00, 0.01, 1);
	measure(&m[0], 1, 2, 1.00, 0.01, 1);
	measure(&m[0], 2, 2, 1.00, 0.01, 1);
	measure(&m[0], 3, 2, 1.25, 0.25, 1);
	method(&m[1], "quiet");
	measure(&m[1], 0, 2, 1.10, 0.01, 1);
	config(&c, AR_POL_GRID);
	OK(ar_policy_pick(m, 14, &c, &bm, &bk, &e, &sd) == 0 && bm == 0 &&
	    bk == 3 && e == 1.25, "pick: grid, the highest estimate as it is");
	config(&c, AR_POL_OURS);
	OK(ar_policy_best(m, 14, &c, &bm, &bk) == 0 && bm == 1 && bk == 0,
	    "pick: ours, the quiet one: the lucky pair, measured twice, is "
	    "read through its flat curve");
	OK(ar_policy_pick(m, 14, &c, &bm, &bk, &e, &sd) == 0 && bm == 1 &&
	    fabs(e - 1.10) < 0.002 && sd > 0 && sd < 0.01,
	    "pick: the quiet pair's estimate and sd, all but its own");
	measure(&m[0], 3, 2, 1.25, 0.01, 1);
	OK(ar_policy_pick(m, 14, &c, &bm, &bk, &e, &sd) == 0 && bm == 0 &&
	    bk == 3 && fabs(e - 1.25) < 0.01, "pick: made quiet, the same "
	    "pair wins whatever its curve below");
	OK(ar_policy_pick(m, 14, &c, &bm, &bk, NULL, NULL) == 0 && bm == 0,
	    "pick: est and sd may be NULL");
}

/* Whether ours' next picks hold a scale probe of m at ki. */
static int
probes(const struct ar_pol_method *m, size_t n, const struct ar_pol_cfg *c,
    size_t mi, int ki)
{
	struct ar_pol_pick p[64];
	size_t got = ar_policy_next(m, n, c, p, 64), i;

	for (i = 0; i < got; i++)
		if (p[i].method == mi && p[i].ki == ki &&
		    p[i].purpose == AR_PUR_SCALE)
			return 1;
	return 0;
}

/* The curves' roughness is learnt: where the campaign's methods that
 * reached k=8 jumped there past what their lower scales predicted, a
 * method flat at 1, 2 and 4 is worth a k=8 probe; where they stayed on
 * their curves, it is not. */
static void
ours_jump(void)
{
	struct ar_pol_method m[14];
	struct ar_pol_cfg c;
	size_t i;
	int k, smooth, rough;

	config(&c, AR_POL_OURS);
	method(&m[0], "inc");
	for (k = 0; k < AR_POL_NK; k++)
		measure(&m[0], k, 2, k == 3 ? 1.12 : 1.0, 0.005, 1);
	method(&m[1], "flat");
	for (k = 0; k < 3; k++)
		measure(&m[1], k, 2, 1.0, 0.005, 1);
	for (i = 2; i < 14; i++) {
		method(&m[i], "other");
		for (k = 0; k < AR_POL_NK; k++)
			measure(&m[i], k, 4, 0.95, 0.005, 1);
	}
	smooth = probes(m, 14, &c, 1, 3);
	/* The others jump at 8, half up and half down: no trend, only
	 * roughness. */
	for (i = 2; i < 14; i++)
		measure(&m[i], 3, 4, i % 2 ? 1.07 : 0.84, 0.005, 1);
	rough = probes(m, 14, &c, 1, 3);
	OK(!smooth && rough, "ours: a flat method gets a k=8 probe where the "
	    "campaign's curves jump at 8 (%d), not where they are smooth (%d)",
	    rough, smooth);
}

/* A scale probe stopped early on an unlucky quarter of a measurement,
 * below the curve its method rose along, is still a rival: read through
 * the curve, it is within the incumbent's noise and is measured again.
 * Read alone, it would be 3 standard errors below and dropped. */
static void
ours_rival_curve(void)
{
	struct ar_pol_method m[8];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[32];
	size_t n, i, again = 0, dud = 0;
	int k;

	config(&c, AR_POL_OURS);
	method(&m[0], "inc");
	for (k = 0; k < AR_POL_NK; k++)
		measure(&m[0], k, 2, k == 3 ? 1.30 : 1.0, 0.01, 1);
	method(&m[1], "riser");
	measure(&m[1], 0, 1, 1.05, 0.02, 1);
	measure(&m[1], 1, 1, 1.15, 0.02, 1);
	measure(&m[1], 2, 1, 1.25, 0.02, 1);
	measure(&m[1], 3, 1, 1.0, 0.2, 1);
	method(&m[2], "dud");
	for (k = 0; k < 3; k++)
		measure(&m[2], k, 1, 0.7, 0.02, 1);
	measure(&m[2], 3, 1, 0.7, 0.2, 1);
	for (i = 3; i < 8; i++) {
		method(&m[i], "other");
		for (k = 0; k < AR_POL_NK; k++)
			measure(&m[i], k, 2, 0.9 + 0.05 * k, 0.01, 1);
	}
	n = ar_policy_next(m, 8, &c, p, 32);
	for (i = 0; i < n; i++) {
		if (p[i].purpose != AR_PUR_VALIDATE || p[i].ki != 3)
			continue;
		again += p[i].method == 1;
		dud += p[i].method == 2;
	}
	OK(again == 1 && dud == 0, "ours: a probe stopped low below its "
	    "rising curve is measured again, a dud's alike is not: %s",
	    picks(p, n));
}

/* A rival measured once above the incumbent, which leads it only by
 * the caution a single draw carries, is worth measuring again: valued by
 * its gap as it is (above), not as the same gap below. */
static void
ours_rival_above(void)
{
	struct ar_pol_method m[6];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[1];
	size_t n, i;
	int k;

	config(&c, AR_POL_OURS);
	method(&m[0], "inc");
	for (k = 0; k < AR_POL_NK; k++)
		measure(&m[0], k, 8, k == 0 ? 1.10 : 1.0, 0.02, 1);
	/* Rivals first, each a little closer below than the lucky one is
	 * above: a gap read without its sign would measure them first. */
	for (i = 1; i < 5; i++) {
		method(&m[i], "other");
		for (k = 0; k < AR_POL_NK; k++)
			measure(&m[i], k, 2, 1.0, 0.1, 1);
		measure(&m[i], 3, 1, 1.05, 0.196, 1);
	}
	method(&m[5], "lucky");
	for (k = 0; k < 3; k++)
		measure(&m[5], k, 2, 1.0, 0.1, 1);
	measure(&m[5], 3, 1, 1.18, 0.196, 1);
	n = ar_policy_next(m, 6, &c, p, 1);
	OK(n == 1 && p[0].purpose == AR_PUR_VALIDATE && p[0].method == 5 &&
	    p[0].ki == 3, "ours: a rival drawn once above the cautious "
	    "incumbent is measured before those as far below: %s",
	    picks(p, n));
}

/* A scale probe is priced at the size it is expected to take: a quiet
 * method's k=2 probe stops at its first look, a quarter of a
 * measurement at 32 pairs, and is worth that price; where the first look
 * is a whole measurement (sched.pairs 8), the same probe is not. */
static void
ours_probe_price(void)
{
	static char id[40][8];
	struct ar_pol_method m[40];
	struct ar_pol_cfg c;
	struct ar_pol_pick p[256];
	size_t n, q;
	int i, k, got[2], pp;

	for (pp = 0; pp < 2; pp++) {
		config(&c, AR_POL_OURS);
		c.pairs = pp ? 8 : 32;
		for (k = 0; k < AR_POL_NK; k++)
			c.cost_h[k] = 1 << k;
		for (i = 0; i < 40; i++) {
			snprintf(id[i], sizeof id[i], "m%d", i);
			method(&m[i], id[i]);
			measure(&m[i], 0, 1, 0.95 + 0.002 * i, 0.004, 1);
			if (i > 0 && i < 39)
				measure(&m[i], 1, 1, 0.95 + 0.002 * i, 0.004, 1);
		}
		measure(&m[0], 1, 1, 1.10, 0.004, 1);
		measure(&m[0], 2, 1, 1.12, 0.004, 1);
		measure(&m[0], 3, 1, 1.13, 0.004, 1);
		/* m39: quiet, 0.95 at k=1, dear at scale. */
		measure(&m[39], 0, 1, 0.95, 0.004, 1);
		for (k = 1; k < AR_POL_NK; k++)
			m[39].cost_h[k] = 60 << (k - 1);
		n = ar_policy_next(m, 40, &c, p, 256);
		for (got[pp] = 0, q = 0; q < n; q++)
			if (p[q].method == 39 && p[q].ki == 1 &&
			    p[q].purpose == AR_PUR_SCALE)
				got[pp] = 1;
	}
	OK(got[0] && !got[1], "ours: a quiet method's dear k=2 probe, worth "
	    "its price at a quarter of a measurement (32 pairs: %d) and not "
	    "at a whole one (8 pairs: %d)", got[0], got[1]);
}

const struct unit_test unit_policy[] = {
	TEST(ours_probe_price),
	TEST(ours_rival_above),
	TEST(ours_rival_curve),
	TEST(ours_jump),
	TEST(pick_curve),
	TEST(names),
	TEST(pairs),
	TEST(grid),
	TEST(flat1),
	TEST(sha),
	TEST(ours_probes),
	TEST(ours_scale),
	TEST(ours_stops),
	TEST(ours_unhinted),
	TEST(ours_hinted_probe),
	TEST(ours_cap),
	TEST(ours_cost),
	TEST(best),
	UNIT_END,
};
