/* simulate.c: ar-sched simulate: whole campaigns on landscapes. A
 * landscape file says, per method and k, the true score (the ratio to
 * the baseline at the same k), the noise of one measurement's estimate,
 * a guardrail value and its limit, and the GPU-hours of one measurement;
 * each policy of lib/policy runs against it with seeded noise, one
 * measurement at a time, and how often it found the true best and at
 * what cost is printed. landscape.c makes such files. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "id.h"
#include "json.h"
#include "stats.h"
#include "tsv.h"
#include "policy.h"
#include "sched.h"

#define NK AR_POL_NK
#define Z95 1.959964
#define MIN_EFFECT 0.01
/* A pick is found within this much of the true best's score. */
#define FOUND_ABS 0.01
/* The sd of the parallel fraction a k=1 profile reports. */
#define PFRAC_SD 0.02

struct lmeth {
	char *id;
	size_t line;             /* its first row, for messages */
	int have[NK];
	double score[NK], noise[NK], guard[NK], gmax[NK];
	int guarded[NK];         /* a guardrail value was given */
	double cost[NK];         /* GPU-hours of one measurement */
	double pfrac;            /* NAN: none */
	int hint;
	char *family;            /* the family column; "" when none */
};

struct land {
	char *name, *file;
	size_t line;
	struct lmeth *m;
	size_t n;
	double cost[NK];         /* the mean of the methods' */
	int use[NK];             /* k has rows: a cluster without it has none */
	double base_pfrac;       /* 0: unknown */
	int base_set;
};

/* One whole campaign of one policy on one landscape. */
struct run {
	int found, found_rel, exact, picked;
	size_t pm;
	int pk;
	double pick_true, best_true, hours, grid_hours;
	size_t best_m;
	int best_k;
	long measurements;
};

/* ---- random numbers: a hash of the seed and what is measured, so that
 * every policy sees the same value for the j-th measurement of a pair
 * (common random numbers: the policies differ in choices, not in luck);
 * mix64 and unit are in sched.h */

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* A standard normal from a key, by Box-Muller. */
static double
gauss(uint64_t key)
{
	double u1 = unit(mix64(key)), u2 = unit(mix64(key ^ 0x5bd1e995ULL));

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static uint64_t
key_of(uint64_t base, size_t m, int ki, long j)
{
	return mix64(base ^ mix64((uint64_t)m * 64 + (uint64_t)ki +
	    ((uint64_t)j << 40)));
}

/* The reader of the landscape file being read, for an ar_on_die hook to
 * close: a malformed file ends in ar_die mid-read, and the fuzz target,
 * whose hook jumps back instead of exiting, would otherwise keep every
 * refused file's buffers. */
static struct ar_tsv *sim_reading;

/* ---- reading landscapes ---- */

/* Ids in natural order: a run of digits compares by its value, so that
 * m9 comes before m10 and m99 before m100 (the order generators write
 * them in); ids equal so far compare byte by byte. */
static int
cmp_id(const char *a, const char *b)
{
	const char *p = a, *q = b;

	while (*p && *q) {
		if (isdigit((unsigned char)*p) && isdigit((unsigned char)*q)) {
			const char *pe, *qe;
			size_t lp, lq;
			int c;

			while (*p == '0' && isdigit((unsigned char)p[1]))
				p++;
			while (*q == '0' && isdigit((unsigned char)q[1]))
				q++;
			for (pe = p; isdigit((unsigned char)*pe); pe++)
				;
			for (qe = q; isdigit((unsigned char)*qe); qe++)
				;
			lp = (size_t)(pe - p);
			lq = (size_t)(qe - q);
			if (lp != lq)
				return lp < lq ? -1 : 1;
			if ((c = memcmp(p, q, lp)) != 0)
				return c;
			p = pe;
			q = qe;
			continue;
		}
		if (*p != *q)
			return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
		p++;
		q++;
	}
	if (*p || *q)
		return *p ? 1 : -1;
	return strcmp(a, b);
}

static int
cmp_meth(const void *a, const void *b)
{
	return cmp_id(((const struct lmeth *)a)->id,
	    ((const struct lmeth *)b)->id);
}

static int
num_field(const struct ar_tsv *t, int c, const char *name, double *v,
    int empty_ok)
{
	const char *s = c >= 0 ? t->field[c] : "";

	if (!s[0]) {
		if (empty_ok)
			return 0;
		ar_die(AR_EX_DATA, "%s: line %zu: %s: empty", t->name,
		    t->lineno, name);
	}
	if (ar_parse_double(s, v) < 0)
		ar_die(AR_EX_DATA, "%s: line %zu: %s: \"%s\" is not a finite "
		    "number", t->name, t->lineno, name, s);
	return 1;
}

static void
read_file(const char *path, struct land **ls, size_t *nl)
{
	struct ar_tsv t;
	FILE *f;
	int c_land, c_meth, c_k, c_score, c_noise, c_guard, c_gmax, c_cost;
	int c_pfrac, c_hint, c_base, c_fam;
	size_t first = *nl, i, j;

	if (strcmp(path, "-") == 0)
		f = stdin;
	else if (!(f = fopen(path, "r")))
		ar_die(errno == ENOENT || errno == EACCES || errno == ENOTDIR ?
		    AR_EX_NOINPUT : AR_EX_IO, "%s:", path);
	if (ar_tsv_open(&t, f, path) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	sim_reading = &t;
	c_land = ar_tsv_need(&t, "landscape");
	c_meth = ar_tsv_need(&t, "method");
	c_k = ar_tsv_need(&t, "k");
	c_score = ar_tsv_need(&t, "score");
	c_noise = ar_tsv_need(&t, "noise");
	/* Only what a landscape must say is required: no guardrail, no
	 * profile and no hint are what a missing column says, and a missing
	 * cost_h is an hour of k GPUs. */
	c_guard = ar_tsv_col(&t, "guard");
	c_gmax = ar_tsv_col(&t, "guard_max");
	if ((c_guard < 0) != (c_gmax < 0))
		ar_die(AR_EX_DATA, "%s: no column %s: give guard and guard_max "
		    "or neither", t.name, c_guard < 0 ? "guard" : "guard_max");
	c_cost = ar_tsv_col(&t, "cost_h");
	c_pfrac = ar_tsv_col(&t, "pfrac");
	c_hint = ar_tsv_col(&t, "hint");
	c_base = ar_tsv_col(&t, "base_pfrac");
	c_fam = ar_tsv_col(&t, "family");
	for (;;) {
		int st = ar_tsv_next(&t), ki, hint;
		struct land *L = NULL;
		struct lmeth *M = NULL;
		const char *name, *meth, *h;
		long long k;
		double score, noise, guard = 0, gmax = 0, cost, pfrac = NAN;
		double base = 0;
		int hg, hm;

		if (st < 0)
			ar_die(AR_EX_DATA, "%s", t.err);
		if (st == 0)
			break;
		name = t.field[c_land];
		meth = t.field[c_meth];
		if (!ar_id_valid(name))
			ar_die(AR_EX_DATA, "%s: line %zu: landscape: \"%s\" is "
			    "not a name of letters, digits, '.', '_', '-'",
			    t.name, t.lineno, name);
		if (!ar_id_valid(meth))
			ar_die(AR_EX_DATA, "%s: line %zu: method: \"%s\" is not "
			    "a name of letters, digits, '.', '_', '-'", t.name,
			    t.lineno, meth);
		if (ar_parse_long(t.field[c_k], &k) < 0 ||
		    (ki = ar_pol_kindex((long)k)) < 0)
			ar_die(AR_EX_DATA, "%s: line %zu: k: \"%s\" is not 1, 2, "
			    "4 or 8", t.name, t.lineno, t.field[c_k]);
		/* 0: the method crashes at this k, as a generator that
		 * scores a dead run nothing writes it. */
		num_field(&t, c_score, "score", &score, 0);
		if (!(score >= 0))
			ar_die(AR_EX_DATA, "%s: line %zu: score: %s is "
			    "negative", t.name, t.lineno, t.field[c_score]);
		num_field(&t, c_noise, "noise", &noise, 0);
		if (!(noise >= 0 && noise <= 1))
			ar_die(AR_EX_DATA, "%s: line %zu: noise: %s is not "
			    "between 0 and 1", t.name, t.lineno,
			    t.field[c_noise]);
		hg = num_field(&t, c_guard, "guard", &guard, 1);
		hm = num_field(&t, c_gmax, "guard_max", &gmax, 1);
		if (hg != hm)
			ar_die(AR_EX_DATA, "%s: line %zu: guard and guard_max: "
			    "give both or neither", t.name, t.lineno);
		if (c_cost < 0)
			cost = (double)k;
		else
			num_field(&t, c_cost, "cost_h", &cost, 0);
		if (!(cost > 0))
			ar_die(AR_EX_DATA, "%s: line %zu: cost_h: %s is not "
			    "positive", t.name, t.lineno, t.field[c_cost]);
		if (num_field(&t, c_pfrac, "pfrac", &pfrac, 1) &&
		    !(pfrac >= 0 && pfrac <= 1))
			ar_die(AR_EX_DATA, "%s: line %zu: pfrac: %s is not "
			    "between 0 and 1", t.name, t.lineno,
			    t.field[c_pfrac]);
		if (c_base >= 0 && num_field(&t, c_base, "base_pfrac", &base,
		    1) && !(base > 0 && base <= 1))
			ar_die(AR_EX_DATA, "%s: line %zu: base_pfrac: %s is not "
			    "above 0 and at most 1", t.name, t.lineno,
			    t.field[c_base]);
		h = c_hint >= 0 ? t.field[c_hint] : "";
		if (!h[0])
			hint = 0;
		else if (strcmp(h, "scale") == 0)
			hint = 1;
		else if (strcmp(h, "single") == 0)
			hint = -1;
		else
			ar_die(AR_EX_DATA, "%s: line %zu: hint: \"%s\" is not "
			    "scale, single or empty", t.name, t.lineno, h);

		for (i = *nl; i > 0; i--)
			if (strcmp((*ls)[i - 1].name, name) == 0) {
				L = &(*ls)[i - 1];
				break;
			}
		if (L && i - 1 < first)
			ar_die(AR_EX_DATA, "%s: line %zu: landscape %s is "
			    "already in %s", t.name, t.lineno, name, L->file);
		if (!L) {
			*ls = ar_xrealloc(*ls, (*nl + 1) * sizeof **ls);
			L = &(*ls)[(*nl)++];
			memset(L, 0, sizeof *L);
			L->name = ar_xstrdup(name);
			L->file = ar_xstrdup(path);
			L->line = t.lineno;
			L->base_set = 0;
		}
		if (L->base_set && L->base_pfrac != base)
			ar_die(AR_EX_DATA, "%s: line %zu: base_pfrac: differs "
			    "from the landscape's first row", t.name,
			    t.lineno);
		L->base_pfrac = base;
		L->base_set = 1;
		for (j = 0; j < L->n; j++)
			if (strcmp(L->m[j].id, meth) == 0)
				M = &L->m[j];
		if (!M) {
			L->m = ar_xrealloc(L->m, (L->n + 1) * sizeof *L->m);
			M = &L->m[L->n++];
			memset(M, 0, sizeof *M);
			M->id = ar_xstrdup(meth);
			M->line = t.lineno;
			M->pfrac = pfrac;
			M->hint = hint;
			M->family = ar_xstrdup(c_fam >= 0 ? t.field[c_fam] : "");
		}
		if (M->have[ki])
			ar_die(AR_EX_DATA, "%s: line %zu: %s %s at k=%lld is "
			    "there twice", t.name, t.lineno, name, meth, k);
		if (!(isnan(M->pfrac) ? isnan(pfrac) : M->pfrac == pfrac) ||
		    M->hint != hint)
			ar_die(AR_EX_DATA, "%s: line %zu: pfrac and hint must be "
			    "the same on every row of method %s", t.name,
			    t.lineno, meth);
		M->have[ki] = 1;
		M->score[ki] = score;
		M->noise[ki] = noise;
		M->cost[ki] = cost;
		M->guarded[ki] = hg;
		M->guard[ki] = guard;
		M->gmax[ki] = gmax;
	}
	sim_reading = NULL;
	ar_tsv_close(&t);
	if (f != stdin)
		fclose(f);
	for (i = first; i < *nl; i++) {
		struct land *L = &(*ls)[i];
		int ki;

		/* The methods in the order of their ids, whatever the order
		 * of the rows: which is probed first and which draws which
		 * noise must not depend on how a file was sorted. */
		qsort(L->m, L->n, sizeof *L->m, cmp_meth);
		/* A k no method has is a scale the landscape's cluster does
		 * not offer; every method has k=1, where each is first seen. */
		for (ki = 0; ki < NK; ki++)
			for (L->use[ki] = ki == 0, j = 0; j < L->n; j++)
				L->use[ki] |= L->m[j].have[ki];
		for (j = 0; j < L->n; j++)
			for (ki = 0; ki < NK; ki++)
				if (L->use[ki] && !L->m[j].have[ki])
					ar_die(AR_EX_DATA, "%s: line %zu: %s %s "
					    "has no row at k=%ld", path,
					    L->m[j].line, L->name, L->m[j].id,
					    ar_pol_k(ki));
		for (ki = 0; ki < NK; ki++) {
			for (L->cost[ki] = 0, j = 0; j < L->n; j++)
				L->cost[ki] += L->m[j].cost[ki];
			L->cost[ki] /= (double)L->n;
		}
	}
	if (*nl == first)
		ar_die(AR_EX_DATA, "%s: no landscape in it", path);
}

static void
free_lands(struct land *ls, size_t nl)
{
	size_t i, j;

	for (i = 0; i < nl; i++) {
		for (j = 0; j < ls[i].n; j++) {
			free(ls[i].m[j].id);
			free(ls[i].m[j].family);
		}
		free(ls[i].m);
		free(ls[i].name);
		free(ls[i].file);
	}
	free(ls);
}

/* ---- one campaign ---- */

static int
truly_feasible(const struct lmeth *m, int ki)
{
	return m->score[ki] > 0 && (!m->guarded[ki] ||
	    m->guard[ki] <= m->gmax[ki]);
}

/* Measures (i, ki) once more as the pick asks and folds it into what the
 * policy knows: the estimate is the mean log of every run of the pair so
 * far, each measurement weighted by its size, its interval from the noise
 * over the square root of their total size. A standard measurement (one
 * of size 1 with no early stop) is one draw. A sequential one is sized
 * in pairs as ar-sched next sizes it for ar-bench (ar_pol_pairs, std
 * pairs to a standard measurement), draws pair by pair (a pair has
 * sqrt(std) times the noise) and stops at the first of ar-bench's looks
 * (ar_verdict_look) where the interval of all the pair's runs leaves out
 * stop_at: ar-bench, given the earlier runs' interval by ar-sched next
 * (--stop-prior), asks it of the two together; with own, of the
 * measurement's own pairs, as ar-bench without it does. Returns the size
 * measured, in standard measurements. */
static double
measure(const struct land *L, uint64_t base, const struct ar_pol_pick *pk,
    long std, int own, struct ar_pol_method *pm, double *logsum,
    double *wsum, long *chunks)
{
	size_t i = pk->method, at = pk->method * NK + (size_t)pk->ki;
	int ki = pk->ki;
	const struct lmeth *m = &L->m[i];
	struct ar_pol_obs *o = &pm[i].at[ki];
	struct ar_verdict_opts vo;
	struct ar_pol_pick p = *pk;
	double s, mean, used = 0, w = 1 / (double)std;
	long pmin, pmax, n;

	if (!(p.size_max > 0))
		p.size_min = p.size_max = 1;
	if (!(p.size_min > 0) || p.size_min > p.size_max)
		p.size_min = p.size_max;
	if (m->score[ki] == 0) {
		/* A crash: no score, and the measurement ends at its first
		 * look, as ar-bench ends a session whose run died. */
		o->n++;
		o->est = o->lo = o->hi = 0;
		o->feasible = 0;
		o->pending = 0;
		return ar_pol_pairs(&p, std, &pmin, &pmax) ?
		    (double)pmin / (double)std : 1;
	}
	if (!ar_pol_pairs(&p, std, &pmin, &pmax)) {
		logsum[at] += log(m->score[ki]) + m->noise[ki] *
		    gauss(key_of(base, i, ki, o->n));
		wsum[at] += 1;
		used = 1;
	} else {
		double sum0 = logsum[at], w0 = wsum[at];

		memset(&vo, 0, sizeof vo);
		vo.min_pairs = (size_t)pmin;
		vo.max_pairs = (size_t)pmax;
		if (!own)
			sum0 = w0 = 0;
		for (n = 1;; n++) {
			/* Pairs draw from keys of their own, past the
			 * standard draws' and the profile's. */
			double z = gauss(key_of(base, i, 2 * NK + ki,
			    chunks[at]++));

			logsum[at] += w * (log(m->score[ki]) +
			    sqrt((double)std) * m->noise[ki] * z);
			wsum[at] += w;
			used += w;
			if (n >= pmax)
				break;
			if (!ar_verdict_look((size_t)n, &vo))
				continue;
			mean = (logsum[at] - sum0) / (wsum[at] - w0);
			s = m->noise[ki] / sqrt(wsum[at] - w0);
			if (pk->stop_at > 0 && (mean - Z95 * s >
			    log(pk->stop_at) || mean + Z95 * s <
			    log(pk->stop_at)))
				break;
		}
	}
	o->n++;
	mean = logsum[at] / wsum[at];
	s = m->noise[ki] / sqrt(wsum[at]);
	o->est = exp(mean);
	o->lo = exp(mean - Z95 * s);
	o->hi = exp(mean + Z95 * s);
	o->feasible = truly_feasible(m, ki);
	o->pending = 0;
	/* A k=1 profile reveals the parallel fraction, with its noise. */
	if (ki == 0 && o->n == 1 && !isnan(m->pfrac)) {
		double p = m->pfrac + PFRAC_SD * gauss(key_of(base, i, NK, 0));

		pm[i].pfrac = p < 0 ? 0 : p > 1 ? 1 : p;
		pm[i].pfrac_sd = PFRAC_SD;
	}
	return used;
}

/* How the campaigns of one ar-sched simulate are run: its -s, -P, -O
 * and -v. */
struct simopt {
	uint64_t seed;
	long std;                /* the pairs of a standard measurement */
	int own;                 /* -O: a measurement's question asked of
	                          * its own pairs (no --stop-prior) */
	int trace;               /* each measurement on stderr */
};

static void
campaign(const struct simopt *so, const struct land *L, int policy,
    long rep, struct run *r)
{
	struct ar_pol_method *pm = ar_xcalloc(L->n, sizeof *pm);
	double *logsum = ar_xcalloc(L->n * NK, sizeof *logsum);
	double *wsum = ar_xcalloc(L->n * NK, sizeof *wsum);
	long *chunks = ar_xcalloc(L->n * NK, sizeof *chunks);
	double size;
	struct ar_pol_cfg c;
	struct ar_pol_pick pick;
	uint64_t base = mix64(so->seed ^ mix64(hash_str(L->name) ^
	    mix64((uint64_t)rep)));
	long cap = (long)L->n * NK * 8 + 8;
	size_t i, bm;
	int ki, bk;

	memset(r, 0, sizeof *r);
	memset(&c, 0, sizeof c);
	c.policy = policy;
	for (ki = 0; ki < NK; ki++) {
		c.use[ki] = L->use[ki];
		c.cost_h[ki] = L->cost[ki];
	}
	c.min_effect = MIN_EFFECT;
	c.pairs = so->std;
	c.budget_h = -1;
	c.base_pfrac = L->base_pfrac;
	for (i = 0; i < L->n; i++) {
		pm[i].id = L->m[i].id;
		pm[i].pfrac = NAN;
		pm[i].pfrac_sd = NAN;
		pm[i].hint = L->m[i].hint;
		for (ki = 0; ki < NK; ki++) {
			pm[i].at[ki].est = NAN;
			if (!c.use[ki])
				continue;
			r->grid_hours += L->m[i].cost[ki];
			if (!truly_feasible(&L->m[i], ki))
				continue;
			/* The true best: the highest score, then the smaller
			 * k, then the first method. */
			if (r->best_true == 0 ||
			    L->m[i].score[ki] > r->best_true) {
				r->best_true = L->m[i].score[ki];
				r->best_m = i;
				r->best_k = ki;
			}
		}
	}
	c.grid_h = r->grid_hours;
	/* One measurement at a time, each seen before the next choice. */
	while (r->measurements < cap &&
	    ar_policy_next(pm, L->n, &c, &pick, 1) == 1) {
		const struct lmeth *lm;

		if (pick.method >= L->n || pick.ki < 0 || pick.ki >= NK)
			ar_die(AR_EX_SOFTWARE, "simulate: the policy picked "
			    "no pair of the landscape");
		lm = &L->m[pick.method];
		size = measure(L, base, &pick, so->std, so->own, pm, logsum,
		    wsum, chunks);
		if (so->trace)
			fprintf(stderr, "%s\t%s\t%ld\t%s\t%ld\t%s\t%.4f\t"
			    "%.4f\t%s\t%.2f\n", L->name, ar_pol_name(policy),
			    rep, lm->id, ar_pol_k(pick.ki),
			    ar_pol_purpose_name(pick.purpose),
			    pm[pick.method].at[pick.ki].est,
			    lm->score[pick.ki], pick.why, size);
		r->hours += lm->cost[pick.ki] * size;
		c.spent_h = r->hours;
		/* A method's own run time is known once it has run. */
		for (ki = 0; ki < NK; ki++)
			pm[pick.method].cost_h[ki] = lm->cost[ki];
		r->measurements++;
	}
	if (ar_policy_best(pm, L->n, &c, &bm, &bk) == 0) {
		r->picked = 1;
		r->pm = bm;
		r->pk = bk;
		r->pick_true = L->m[bm].score[bk];
		/* Found: feasible, and its true score within 0.01 of the
		 * true best's (absolute); found_rel, the earlier rule:
		 * within 1% of it; exact: a true best itself. The 1e-9
		 * forgives the files' rounding, nothing more. */
		if (r->best_true > 0 && truly_feasible(&L->m[bm], bk)) {
			r->found = r->pick_true >= r->best_true - FOUND_ABS -
			    1e-9;
			r->found_rel = r->pick_true >= r->best_true *
			    (1 - MIN_EFFECT) - 1e-12;
			r->exact = r->pick_true >= r->best_true;
		}
	}
	free(pm);
	free(logsum);
	free(wsum);
	free(chunks);
}

/* ---- ar-sched simulate ---- */

struct tally {
	long runs, found, found_rel, exact, meas;
	double frac, frac_max, hours, grid;
};

/* The tallies of one family of true bests ("all": every campaign). */
struct group {
	const char *family;
	struct tally t[8];
};

static void
put_num(json_t *o, const char *k, double v)
{
	json_object_set_new(o, k, json_real(v));
}

static void
run_line(int fmt, const struct land *L, int pol, long rep,
    const struct run *r)
{
	double frac = r->grid_hours > 0 ? r->hours / r->grid_hours : 0;
	const char *pmeth = r->picked ? L->m[r->pm].id : "";
	long pk = r->picked ? ar_pol_k(r->pk) : 0;

	if (fmt) {
		json_t *o = json_object();
		char *s;

		json_object_set_new(o, "landscape", json_string(L->name));
		json_object_set_new(o, "policy",
		    json_string(ar_pol_name(pol)));
		json_object_set_new(o, "repeat", json_integer(rep));
		json_object_set_new(o, "found", json_boolean(r->found));
		json_object_set_new(o, "found_rel",
		    json_boolean(r->found_rel));
		json_object_set_new(o, "exact", json_boolean(r->exact));
		json_object_set_new(o, "pick_method", json_string(pmeth));
		json_object_set_new(o, "pick_k", r->picked ?
		    json_integer(pk) : json_null());
		json_object_set_new(o, "pick_score", r->picked ?
		    json_real(r->pick_true) : json_null());
		json_object_set_new(o, "best_method",
		    json_string(L->m[r->best_m].id));
		json_object_set_new(o, "best_k",
		    json_integer(ar_pol_k(r->best_k)));
		put_num(o, "best_score", r->best_true);
		json_object_set_new(o, "best_family",
		    json_string(L->m[r->best_m].family));
		put_num(o, "gpu_hours", r->hours);
		put_num(o, "grid_frac", frac);
		json_object_set_new(o, "measurements",
		    json_integer(r->measurements));
		s = ar_json_line(o);
		puts(s);
		free(s);
		json_decref(o);
		return;
	}
	printf("%s\t%s\t%ld\t%s\t%s\t%s\t", L->name, ar_pol_name(pol), rep,
	    r->found ? "yes" : "no", r->found_rel ? "yes" : "no",
	    r->exact ? "yes" : "no");
	if (r->picked)
		printf("%s\t%ld\t%.4f\t", pmeth, pk, r->pick_true);
	else
		printf("\t\t\t");
	printf("%s\t%ld\t%.4f\t%.3f\t%.4f\t%ld\t%s\n", L->m[r->best_m].id,
	    ar_pol_k(r->best_k), r->best_true, r->hours, frac,
	    r->measurements, L->m[r->best_m].family);
}

static void
summary_line(int fmt, int pol, const char *family, const struct tally *t)
{
	double n = t->runs > 0 ? (double)t->runs : 1;

	if (fmt) {
		json_t *o = json_object();
		char *s;

		json_object_set_new(o, "policy",
		    json_string(ar_pol_name(pol)));
		if (family)
			json_object_set_new(o, "family", json_string(family));
		json_object_set_new(o, "runs", json_integer(t->runs));
		json_object_set_new(o, "found", json_integer(t->found));
		put_num(o, "found_rate", t->found / n);
		put_num(o, "found_rel_rate", t->found_rel / n);
		put_num(o, "exact_rate", t->exact / n);
		put_num(o, "gpu_hours", t->hours / n);
		put_num(o, "grid_frac", t->frac / n);
		put_num(o, "grid_frac_max", t->frac_max);
		put_num(o, "hours_frac", t->grid > 0 ? t->hours / t->grid : 0);
		put_num(o, "measurements", t->meas / n);
		s = ar_json_line(o);
		puts(s);
		free(s);
		json_decref(o);
		return;
	}
	printf("%s\t", ar_pol_name(pol));
	if (family)
		printf("%s\t", family);
	printf("%ld\t%ld\t%.4f\t%.4f\t%.4f\t%.3f\t%.4f\t%.4f\t%.4f\t%.1f\n",
	    t->runs, t->found, t->found / n, t->found_rel / n, t->exact / n,
	    t->hours / n, t->frac / n, t->frac_max, t->grid > 0 ? t->hours /
	    t->grid : 0, t->meas / n);
}

static int
cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct group *)a)->family,
	    ((const struct group *)b)->family);
}

int
cmd_simulate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "summary", no_argument, NULL, 'S' },
		{ "by-family", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int pols[8], npol = 0, c, fmt = 0, summary = 0, byfam = 0, p;
	long long seed = 1, reps = 1, pairs = AR_POL_PAIRS_STD;
	const char *polarg = "flat1,grid,sha,ours", *fmtarg = "tsv";
	struct land *ls = NULL;
	struct group *grp = NULL;
	size_t ngrp = 0, g;
	struct simopt so = {0};
	size_t nl = 0, i;
	long rep;

	optind = 0;
	while ((c = getopt_long(argc, argv, "f:FOp:P:r:s:Sv", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'f': fmtarg = optarg; break;
		case 'P':
			if (ar_parse_long(optarg, &pairs) < 0 ||
			    pairs < AR_POL_PAIRS_MIN || pairs > 100000)
				ar_die(AR_EX_USAGE, "-P %s: not a count from %d "
				    "to 100000", optarg, AR_POL_PAIRS_MIN);
			break;
		case 'p': polarg = optarg; break;
		case 'r':
			if (ar_parse_long(optarg, &reps) < 0 || reps < 1 ||
			    reps > 100000)
				ar_die(AR_EX_USAGE, "-r %s: not a count from 1 "
				    "to 100000", optarg);
			break;
		case 's':
			if (ar_parse_long(optarg, &seed) < 0 || seed < 0)
				ar_die(AR_EX_USAGE, "-s %s: not a whole number "
				    "from 0", optarg);
			break;
		case 'S': summary = 1; break;
		case 'F': summary = byfam = 1; break;
		case 'O': so.own = 1; break;
		case 'v': so.trace = 1; break;
		default: ar_usage(USAGE_SIMULATE);
		}
	}
	if (strcmp(fmtarg, "tsv") && strcmp(fmtarg, "jsonl"))
		ar_die(AR_EX_USAGE, "-f %s: the formats are tsv and jsonl",
		    fmtarg);
	fmt = strcmp(fmtarg, "jsonl") == 0;
	{
		char *list = ar_xstrdup(polarg), *save = NULL, *tok;

		for (tok = strtok_r(list, ",", &save); tok;
		    tok = strtok_r(NULL, ",", &save)) {
			int q;

			if ((p = ar_pol_parse(tok)) < 0) {
				ar_warn("-p %s: the policies are ours, flat1, "
				    "grid and sha", tok);
				free(list);
				exit(AR_EX_USAGE);
			}
			for (q = 0; q < npol; q++)
				if (pols[q] == p)
					break;
			if (q == npol && npol < 8)
				pols[npol++] = p;
		}
		free(list);
		if (npol == 0)
			ar_die(AR_EX_USAGE, "-p %s: no policy given", polarg);
	}
	if (optind == argc)
		ar_usage(USAGE_SIMULATE);
	for (i = (size_t)optind; i < (size_t)argc; i++)
		read_file(argv[i], &ls, &nl);
	so.seed = (uint64_t)seed;
	so.std = (long)pairs;
	grp = ar_xcalloc(1, sizeof *grp);
	grp[0].family = "all";
	ngrp = 1;
	if (summary && !fmt)
		printf("policy\t%sruns\tfound\tfound_rate\tfound_rel_rate\t"
		    "exact_rate\tgpu_hours\tgrid_frac\tgrid_frac_max\t"
		    "hours_frac\tmeasurements\n", byfam ? "family\t" : "");
	else if (!fmt)
		puts("landscape\tpolicy\trepeat\tfound\tfound_rel\texact\t"
		    "pick_method\tpick_k\tpick_score\tbest_method\tbest_k\t"
		    "best_score\tgpu_hours\tgrid_frac\tmeasurements\t"
		    "best_family");
	for (i = 0; i < nl; i++)
		for (rep = 0; rep < reps; rep++)
			for (p = 0; p < npol; p++) {
				struct run r;
				const char *fam;
				size_t gi[2];
				int q;
				double frac;

				campaign(&so, &ls[i], pols[p], rep, &r);
				frac = r.grid_hours > 0 ? r.hours /
				    r.grid_hours : 0;
				/* Counted in "all" and in the group of the
				 * true best's family. */
				fam = ls[i].m[r.best_m].family[0] ?
				    ls[i].m[r.best_m].family : "-";
				for (g = 1; g < ngrp; g++)
					if (strcmp(grp[g].family, fam) == 0)
						break;
				if (g == ngrp) {
					grp = ar_xrealloc(grp, (ngrp + 1) *
					    sizeof *grp);
					memset(&grp[ngrp], 0, sizeof *grp);
					grp[ngrp++].family = fam;
				}
				gi[0] = 0;
				gi[1] = g;
				for (q = 0; q < 2; q++) {
					struct tally *t = &grp[gi[q]].t[p];

					t->runs++;
					t->found += r.found;
					t->found_rel += r.found_rel;
					t->exact += r.exact;
					t->meas += r.measurements;
					t->frac += frac;
					if (frac > t->frac_max)
						t->frac_max = frac;
					t->hours += r.hours;
					t->grid += r.grid_hours;
				}
				if (!summary)
					run_line(fmt, &ls[i], pols[p], rep, &r);
			}
	if (summary) {
		if (ngrp > 2)
			qsort(grp + 1, ngrp - 1, sizeof *grp, cmp_group);
		for (p = 0; p < npol; p++)
			for (g = 0; g < (byfam ? ngrp : 1); g++)
				summary_line(fmt, pols[p], byfam ?
				    grp[g].family : NULL, &grp[g].t[p]);
	}
	ar_fshut(stdout, "<stdout>");
	free(grp);
	free_lands(ls, nl);
	return AR_EX_OK;
}

