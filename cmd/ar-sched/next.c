/* next.c: ar-sched next: the most valuable measurements to make now, at
 * which k and on which GPUs. A/As first on nodes whose noise is unknown
 * or too loud; then lib/policy's picks, in its order, each placed by
 * lib/pack where it fits now; printed as assignments (lib/assign) and
 * with --put queued, under run/sched.lock (lib/lock). What it decides
 * on is read by methods.c and next-read.c. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "assign.h"
#include "campaign.h"
#include "conf.h"
#include "err.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "lock.h"
#include "manifest.h"
#include "pack.h"
#include "policy.h"
#include "spool.h"
#include "timefmt.h"
#include "sched.h"
#include "next.h"

struct out {
	FILE *f;
	const char *queue;
	size_t n;
};

/* How much to measure: ar-bench's pair limits, the ratio whose side
 * ends the session early and the pair's earlier interval that answers
 * that question with the session's pairs; pmin 0 leaves it all to
 * ar-bench. */
struct size {
	long pmin, pmax;
	double stop_at, prior_lo, prior_hi;
};

/* A pick's size in pairs: a standard measurement is std pairs. Only a
 * pick that asks for something other than one standard measurement with
 * no early stop is sized, so the other policies keep ar-bench's own
 * sequential rule. ar-sched simulate sizes its measurements the same
 * way. */
static struct size
size_of(const struct ar_pol_pick *pk, const struct ar_pol_obs *ob, long std)
{
	struct size z = { 0, 0, NAN, 0, 0 };

	if (!ar_pol_pairs(pk, std, &z.pmin, &z.pmax))
		return z;
	if (pk->stop_at > 0 && isfinite(pk->stop_at))
		z.stop_at = pk->stop_at;
	/* The policy asks its question of every run of the pair, as
	 * ar-sched simulate measures: the earlier ones go with it. An
	 * interval narrower than the digits that carry it is left out. */
	if (z.stop_at > 0 && ob && ob->n > 0 && ob->feasible &&
	    ob->lo >= 1e-6 && ob->hi > ob->lo * (1 + 1e-6) && ob->hi <= 1e6) {
		z.prior_lo = ob->lo;
		z.prior_hi = ob->hi;
	}
	return z;
}

/* One assignment: printed, and with --put stored in queue/ first. */
static void
emit(struct out *o, const char *method, const char *workload, int k,
    const char *gpus, const char *node, const char *purpose,
    const char *idea, const char *label, double value, const char *why,
    long prio, struct size z)
{
	struct ar_assign a;
	char now[40];

	memset(&a, 0, sizeof a);
	ar_id_new(a.experiment);
	a.method = method;
	a.workload = workload;
	a.k = k;
	if (ar_assign_gpus(gpus, a.gpus, AR_ASSIGN_GPUS, &a.ngpus) < 0)
		ar_die(AR_EX_SOFTWARE, "placed on \"%s\": not GPU ids", gpus);
	a.node = node;
	a.purpose = purpose;
	a.idea = idea;
	a.label = label;
	a.value = value;
	a.why = why;
	a.priority = prio;
	a.pmin = z.pmin;
	a.pmax = z.pmax;
	a.stop_at = z.stop_at > 0 ? z.stop_at : 0;
	a.prior_lo = z.prior_lo;
	a.prior_hi = z.prior_hi;
	if (o->queue) {
		json_t *r;
		char *s;
		int st;

		ar_time_now(now, sizeof now);
		a.queued = now;
		r = ar_assign_record(&a);
		s = ar_json_line(r);
		json_decref(r);
		st = ar_spool_put(o->queue, a.experiment, prio, s, strlen(s));
		free(s);
		if (st != AR_SP_OK)
			ar_die(st == AR_SP_GONE ? AR_EX_CANTCREAT :
			    ar_errno_exit(errno), "%s: %s: %s", o->queue,
			    a.experiment, st == AR_SP_GONE ? "exists already" :
			    strerror(errno));
	}
	ar_assign_tsv_row(o->f, &a);
	o->n++;
}

/* The lock next --put holds, for unlock: ar_on_die's cleanup hook takes
 * no argument, so what it drops has to be here. The only state of the
 * file; NULL when no lock is held. */
static char *lock_path;

static void
unlock(void)
{
	if (lock_path)
		ar_lock_drop(lock_path, 0);
}

/* One next --put at a time per campaign: two would both see the same
 * GPUs free. The lock is run/sched.lock (lib/lock); one older than a
 * minute was left by a crash on another host (a run takes a second) and
 * is broken. Waits up to 2 seconds for it. */
static void
take_lock(const char *camp)
{
	char *dir = ar_path(camp, "run"), err[600];
	struct ar_lock_opts o = { .wait_s = 2, .stale_s = 60 };
	int r;

	if (ar_mkdirs(dir, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", dir);
	lock_path = ar_path(dir, "sched.lock");
	free(dir);
	r = ar_lock_take(lock_path, &o, NULL, err, sizeof err);
	if (r < 0)
		ar_die(ar_errno_exit(errno), "%s", err);
	if (r > 0)
		ar_die(AR_EX_TEMPFAIL, "%s: another ar-sched next --put is "
		    "running; try again", lock_path);
	ar_on_die(unlock);
}


/* Noise: a node that is loud, or unmeasured, takes only an A/A; the
 * rest prefer the quietest. */
static void
quarantine(const struct nx *x, struct ar_inv *inv, double noise_max)
{
	size_t i;

	for (i = 0; i < inv->n; i++) {
		struct ar_snode *nd = &inv->node[i];
		const struct noise *z = noise_of(x, nd->name);

		nd->pref = z ? z->v : INFINITY;
		if (z && z->v <= noise_max)
			continue;
		nd->off = 1;
		if (z)
			ar_warn("node %s: quarantined: its latest A/A (%s) has "
			    "noise %.4g > %.4g; it runs an A/A only until a "
			    "newer one clears it%s", nd->name, z->exp, z->v,
			    noise_max, aa_queued(x, inv, i) ? " (queued)" : "");
		else
			ar_warn("node %s: no A/A yet: it runs one before any "
			    "other work%s", nd->name, aa_queued(x, inv, i) ?
			    " (queued)" : "");
	}
}

/* The GPUs free on nodes that are not quarantined. */
static size_t
free_slots(const struct ar_inv *inv)
{
	size_t i, nfree = 0;

	for (i = 0; i < inv->n; i++)
		if (!inv->node[i].off)
			nfree += (size_t)__builtin_popcountll(~inv->node[i].busy &
			    (inv->node[i].n == 64 ? ~(uint64_t)0 :
			    ((uint64_t)1 << inv->node[i].n) - 1));
	return nfree;
}

/* An A/A on each node that needs one and has none queued. */
static void
place_aa(struct out *o, const struct nx *x, struct ar_inv *inv,
    double noise_max, size_t want)
{
	const struct size nosize = { 0, 0, NAN, 0, 0 };
	size_t i;

	for (i = 0; i < inv->n && o->n < want; i++) {
		struct ar_place p;
		char ids[512], why[200];
		const struct noise *z = noise_of(x, inv->node[i].name);

		if (!inv->node[i].off || aa_queued(x, inv, i))
			continue;
		if (!ar_pack_find_on(inv, i, 1, &p))
			continue;
		ar_pack_take(inv, &p, INFINITY);
		ar_place_ids(inv, &p, ids, sizeof ids);
		if (z)
			snprintf(why, sizeof why, "node noise %.3g exceeds %.3g: "
			    "measure it again before trusting it", z->v,
			    noise_max);
		else
			snprintf(why, sizeof why, "no A/A on this node yet: "
			    "measure its noise floor first");
		emit(o, "baseline", x->workload ? x->workload : x->dflt_wl, 1,
		    ids, inv->node[i].name, "aa", "", "A/A", 0, why, 900000,
		    nosize);
	}
}

/* What the policy is told: the scales it may use (campaign.conf's
 * scales, up to the largest node in service), a measurement's cost at
 * each, the minimum effect, the baseline's parallel fraction and the
 * GPU-hours left. man is NULL when the problem has no manifest. */
static void
pol_cfg(struct ar_pol_cfg *cfg, const struct nx *x, const struct ar_inv *inv,
    const struct ar_conf *conf, const struct ar_manifest *man,
    double conf_pfrac, double grid_cap)
{
	const char *sc = ar_conf_get(conf, "scales"), *v;
	double all_med;
	size_t i, na = 0;
	int ki, maxk = 0;

	for (i = 0; i < inv->n; i++)
		if (!inv->node[i].off && inv->node[i].n > maxk)
			maxk = inv->node[i].n;
	for (ki = 0; ki < AR_POL_NK; ki++)
		cfg->use[ki] = !sc && ar_pol_k(ki) <= maxk;
	while (sc && *sc) {
		char *end;
		long k = strtol(sc, &end, 10);

		if (end == sc)
			break;
		if ((ki = ar_pol_kindex(k)) >= 0 && k <= maxk)
			cfg->use[ki] = 1;
		sc = end;
	}
	/* A measurement's cost: its k times the median time one took at
	 * that k, else the median of all of them. */
	for (ki = 0; ki < AR_POL_NK; ki++)
		na += x->nsecs[ki];
	all_med = man && man->time_s > 0 ? man->time_s : 600;
	if (na)
		all_med = x->secs_all_med;
	for (ki = 0; ki < AR_POL_NK; ki++) {
		double sec = all_med;

		if (x->nsecs[ki])
			sec = x->secs_med[ki];
		cfg->cost_h[ki] = (double)ar_pol_k(ki) * sec / 3600;
	}
	cfg->min_effect = man && man->min_effect > 0 ? man->min_effect :
	    x->min_effect;
	/* What a method's Amdahl prediction is held against: the campaign's
	 * figure, else the baseline's own scaling in the ledger. */
	if (conf_pfrac > 0) {
		cfg->base_pfrac = conf_pfrac;
	} else {
		char how[64];

		cfg->base_pfrac = base_pfrac(x, how, sizeof how);
		if (cfg->base_pfrac > 0)
			ar_warn("the baseline's parallel fraction: %.3f, from its "
			    "runs at k = 1 and %s (workload %s)", cfg->base_pfrac,
			    how, x->workload ? x->workload : x->dflt_wl);
	}
	/* ours stops at a share of the grid: one measurement of every
	 * method at every scale in use, at the campaign's costs. */
	cfg->grid_h = 0;
	for (ki = 0; grid_cap != 0 && ki < AR_POL_NK; ki++)
		if (cfg->use[ki])
			cfg->grid_h += (double)x->nm * cfg->cost_h[ki];
	cfg->grid_cap = grid_cap > 0 ? grid_cap : AR_POL_GRID_CAP;
	cfg->spent_h = x->used_h;
	cfg->budget_h = -1;
	if ((v = ar_conf_get(conf, "budget.gpu_hours"))) {
		double b;

		if (ar_parse_double(v, &b) == 0 && b > 0)
			cfg->budget_h = b > x->used_h ? b - x->used_h : 0;
	}
}

/* What the policy is told of the methods. */
static struct ar_pol_method *
pol_methods(const struct nx *x)
{
	struct ar_pol_method *pm = ar_xcalloc(x->nm + 1, sizeof *pm);
	size_t i;

	for (i = 0; i < x->nm; i++) {
		pm[i].id = x->m[i].id;
		pm[i].pfrac = x->m[i].pfrac;
		pm[i].pfrac_sd = isnan(x->m[i].pfrac) ? NAN : 0.1;
		pm[i].hint = x->m[i].hint;
		memcpy(pm[i].at, x->m[i].at, sizeof pm[i].at);
	}
	return pm;
}

/* next --best: the policy's pick on the evidence so far, one row under
 * a header; the header alone while nothing feasible is measured. */
static void
print_best(const struct nx *x, const struct ar_pol_cfg *cfg)
{
	struct ar_pol_method *pm = pol_methods(x);
	size_t bm;
	int bk;
	double est, sd;

	printf("method\tworkload\tk\testimate\tlo\thi\tn\tpick\tpick_sd\t"
	    "label\n");
	if (x->nm && ar_policy_pick(pm, x->nm, cfg, &bm, &bk, &est, &sd) ==
	    0) {
		const struct meth *m = &x->m[bm];
		const struct ar_pol_obs *o = &m->at[bk];

		printf("%s\t%s\t%ld\t%.6g\t%.6g\t%.6g\t%d\t%.6g\t%.6g\t%s\n",
		    m->method, m->workload, ar_pol_k(bk), o->est, o->lo, o->hi,
		    o->n, est, sd, m->label);
	} else {
		ar_warn("no pick yet: no feasible result of any method");
	}
	free(pm);
}

/* The policy's picks, placed in its order until want are out. It is
 * asked for more than fits: what does not fit now is skipped, and the
 * first bundle of several GPUs that fits nowhere keeps a node. */
static void
place_picks(struct out *o, const struct nx *x, struct ar_inv *inv,
    const struct ar_pol_cfg *cfg, long std_pairs, size_t want)
{
	struct ar_pol_method *pm = pol_methods(x);
	struct ar_pol_pick *pick = ar_xcalloc(4 * want + 1, sizeof *pick);
	size_t i, npick;
	int reserved = 0;

	npick = o->n < want && x->nm ? ar_policy_next(pm, x->nm, cfg, pick,
	    4 * want) : 0;
	for (i = 0; i < npick && o->n < want; i++) {
		struct ar_pol_pick *pk = &pick[i];
		const struct meth *m;
		const struct ar_pol_obs *ob;
		struct ar_place p;
		char ids[512];
		int k, close_call;
		size_t rn;
		double when;

		if (pk->method >= x->nm || pk->ki < 0 || pk->ki >= AR_POL_NK)
			continue;
		m = &x->m[pk->method];
		ob = &m->at[pk->ki];
		k = (int)ar_pol_k(pk->ki);
		close_call = ob->n > 0 && ob->lo <= 1 + cfg->min_effect &&
		    ob->hi >= 1 + cfg->min_effect;
		/* Validations and close calls go to the quietest node. */
		if (!ar_pack_find(inv, k, pk->purpose == AR_PUR_VALIDATE ||
		    close_call, INFINITY, &p)) {
			if (!reserved && k > 1 &&
			    ar_pack_reserve(inv, k, (double)time(NULL), &rn,
			    &when)) {
				reserved = 1;
				ar_warn("k=%d for %s fits nowhere now; node %s is "
				    "kept for it and smaller work goes elsewhere",
				    k, m->label, inv->node[rn].name);
			}
			continue;
		}
		ar_pack_take(inv, &p, INFINITY);
		ar_place_ids(inv, &p, ids, sizeof ids);
		emit(o, m->method, m->workload, k, ids, inv->node[p.node].name,
		    ar_pol_purpose_name(pk->purpose), m->idea, m->label,
		    pk->value, pk->why[0] ? pk->why : "the policy's pick",
		    1000 - (long)i, size_of(pk, ob, std_pairs));
	}
	free(pick);
	free(pm);
}

int
cmd_next(int argc, char **argv)
{
	static const struct option lo[] = {
		INV_LONGOPTS,
		{ "put", no_argument, NULL, O_PUT },
		{ "best", no_argument, NULL, O_BEST },
		{ "noise-max", required_argument, NULL, O_NOISE },
		{ NULL, 0, NULL, 0 },
	};
	const char *copt = NULL, *ledger = NULL, *subm = NULL, *v;
	int policy = AR_POL_OURS;
	double conf_pfrac = -1, grid_cap = -1;
	long long std_pairs = AR_POL_PAIRS_STD;
	struct nx x = {0};
	struct src s = {0};
	struct ar_campaign camp;
	struct ar_manifest man;
	struct ar_inv inv;
	struct ar_pol_cfg cfg = {0};
	struct out o = {0};
	struct summ *sm;
	char err[512], *qdir = NULL;
	double noise_max = -1;
	long long maxn = -1;
	int c, put = 0, best = 0, have_man;
	size_t want;

	while ((c = getopt_long(argc, argv, "C:g:l:m:n:w:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': copt = optarg; break;
		case 'l': ledger = optarg; break;
		case 'm': subm = optarg; break;
		case 'w': x.workload = optarg; break;
		case 'n':
			if (ar_parse_long(optarg, &maxn) < 0 || maxn < 1 ||
			    maxn > 100000)
				ar_die(AR_EX_USAGE, "-n %s: a count from 1 to "
				    "100000", optarg);
			break;
		case O_PUT: put = 1; break;
		case O_BEST: best = 1; break;
		case O_NOISE:
			if (ar_parse_double(optarg, &noise_max) < 0 ||
			    noise_max < 0)
				ar_die(AR_EX_USAGE, "--noise-max %s: a number of "
				    "0 or more", optarg);
			break;
		default:
			if (!src_opt(&s, c, optarg))
				ar_usage(USAGE_NEXT);
		}
	}
	if (optind != argc || (put && best))
		ar_usage(USAGE_NEXT);
	if (ledger && subm && strcmp(ledger, "-") == 0 && strcmp(subm, "-") == 0)
		ar_die(AR_EX_USAGE, "-l - and -m -: standard input is one of them "
		    "only");
	ar_campaign_open(&camp, ar_campaign_default(copt));
	x.camp = camp.dir;
	/* The policy is checked before anything is printed or queued.
	 * Campaigns made before the policies had names say "autoreduce". */
	if ((v = ar_conf_get(&camp.conf, "policy")) &&
	    strcmp(v, "autoreduce") != 0) {
		if (ar_pol_parse(v) < 0)
			ar_die(AR_EX_DATA, "%s/campaign.conf: policy: %s: not "
			    "ours, flat1, grid or sha", camp.dir, v);
		policy = ar_pol_parse(v);
	}
	if ((v = ar_conf_get(&camp.conf, "sched.base_pfrac")) &&
	    (ar_parse_double(v, &conf_pfrac) < 0 || !(conf_pfrac > 0) ||
	    conf_pfrac > 1))
		ar_die(AR_EX_DATA, "%s/campaign.conf: sched.base_pfrac: \"%s\" "
		    "is not a number above 0 and at most 1", camp.dir, v);
	/* The pairs of one standard measurement: what the policy's sizes
	 * (a quarter, a half, 2.5) are multiples of. 32 makes the smallest,
	 * a quarter, the 8 pairs that give a 95% interval at a look. */
	if ((v = ar_conf_get(&camp.conf, "sched.pairs")) &&
	    (ar_parse_long(v, &std_pairs) < 0 ||
	    std_pairs < AR_POL_PAIRS_MIN || std_pairs > 100000))
		ar_die(AR_EX_DATA, "%s/campaign.conf: sched.pairs: \"%s\" is not "
		    "a whole number from %d to 100000", camp.dir, v,
		    AR_POL_PAIRS_MIN);
	/* ours' cap, a share of the grid's GPU-hours; 0: none. */
	if ((v = ar_conf_get(&camp.conf, "sched.grid_cap")) &&
	    (ar_parse_double(v, &grid_cap) < 0 || grid_cap < 0 ||
	    grid_cap > 100))
		ar_die(AR_EX_DATA, "%s/campaign.conf: sched.grid_cap: \"%s\" is "
		    "not a number from 0 to 100", camp.dir, v);
	/* Before anything is read: what is busy must not change under us. */
	if (put)
		take_lock(camp.dir);
	x.min_effect = 0.01;
	if ((v = ar_conf_get(&camp.conf, "sched.noise_max")) && noise_max < 0 &&
	    (ar_parse_double(v, &noise_max) < 0 || noise_max < 0))
		ar_die(AR_EX_DATA, "%s/campaign.conf: sched.noise_max: \"%s\" "
		    "is not a number of 0 or more", camp.dir, v);
	if (noise_max < 0)
		noise_max = 0.10;
	{
		char *pdir = ar_path(camp.dir, "problem");

		have_man = ar_manifest_read(&man, pdir, err, sizeof err) == 0;
		free(pdir);
	}
	x.dflt_wl = have_man && man.nworkload ? man.workload[0].name : "";
	x.metric = have_man ? man.metric.name : NULL;
	if (!have_man)
		memset(&man, 0, sizeof man);

	/* The methods, what is known of them, what is pending and what is
	 * busy. */
	read_methods(&x, subm);
	/* --best reads no queue. */
	qdir = ar_path(camp.dir, "queue");
	sm = summ_known(&x, ledger, x.metric, best ? NULL : qdir);
	ar_inv_init(&inv);
	cfg.policy = policy;
	if (best) {
		/* The pick needs no GPUs, queue or bookings. */
		pol_cfg(&cfg, &x, &inv, &camp.conf, have_man ? &man : NULL,
		    conf_pfrac, grid_cap);
		print_best(&x, &cfg);
		goto done;
	}
	load_inv(&inv, &s);
	read_bookings(&inv, camp.dir);
	/* Each queue record counts twice, as pending and as GPUs promised:
	 * one pass, and only records the summary does not know are read. */
	summ_queued(sm, &x, &inv, qdir);
	quarantine(&x, &inv, noise_max);
	ar_pack_index(&inv);
	want = maxn > 0 ? (size_t)maxn : free_slots(&inv) + inv.n;

	o.f = stdout;
	if (put) {
		if (ar_spool_check(qdir) < 0)
			ar_die(errno == ENOENT ? AR_EX_NOINPUT : AR_EX_IO,
			    "%s:", qdir);
		o.queue = qdir;
	}
	ar_assign_tsv_header(stdout);
	place_aa(&o, &x, &inv, noise_max, want);
	pol_cfg(&cfg, &x, &inv, &camp.conf, have_man ? &man : NULL,
	    conf_pfrac, grid_cap);
	cfg.pairs = (long)std_pairs;
	place_picks(&o, &x, &inv, &cfg, (long)std_pairs, want);

done:
	ar_fshut(stdout, "<stdout>");
	summ_close(sm);
	unlock();
	free(lock_path);
	lock_path = NULL;
	free(qdir);
	ar_inv_free(&inv);
	free_nx(&x);
	if (have_man)
		ar_manifest_free(&man);
	ar_campaign_free(&camp);
	return AR_EX_OK;
}

/* ar-sched fold: the segments' folds brought up to date without a
 * decision (ar-sched(1)); ar-ledger append runs it once it has sealed
 * new segments. */
int
cmd_fold(int argc, char **argv)
{
	const char *copt = NULL;
	struct nx x = {0};
	struct ar_campaign camp;
	struct ar_manifest man;
	char err[512], *pdir;
	size_t n;
	int c, have_man;

	while ((c = getopt(argc, argv, "C:")) != -1) {
		switch (c) {
		case 'C': copt = optarg; break;
		default: ar_usage(USAGE_FOLD);
		}
	}
	if (optind != argc)
		ar_usage(USAGE_FOLD);
	ar_campaign_open(&camp, ar_campaign_default(copt));
	x.camp = camp.dir;
	pdir = ar_path(camp.dir, "problem");
	have_man = ar_manifest_read(&man, pdir, err, sizeof err) == 0;
	free(pdir);
	/* The metric a decision folds by: the problem's, or none without
	 * one, as next does. */
	n = summ_fold(&x, have_man ? man.metric.name : NULL);
	ar_warn("fold: %zu segment%s folded", n, n == 1 ? "" : "s");
	free_nx(&x);
	if (have_man)
		ar_manifest_free(&man);
	ar_campaign_free(&camp);
	return AR_EX_OK;
}
