/* policy.h: which (method, k) to measure next. One policy serves both
 * ar-sched next (real campaigns) and ar-sched simulate (landscapes), so
 * the figures the simulation gives are the figures of the real thing. */
#ifndef AR_POLICY_H
#define AR_POLICY_H
#include <stddef.h>

#define AR_POL_NK 4          /* the scales: k = 1, 2, 4, 8 */
enum { AR_PUR_PROBE, AR_PUR_SCALE, AR_PUR_VALIDATE, AR_PUR_AA };
enum { AR_POL_OURS, AR_POL_FLAT1, AR_POL_GRID, AR_POL_SHA };

/* What is known of one (method, k). The score is the ratio to the
 * baseline measured at the same k, higher better. */
struct ar_pol_obs {
	int n;               /* measurements made; 0 none */
	double est, lo, hi;  /* the latest estimate and its 95% interval */
	int feasible;        /* every guardrail held */
	int pending;         /* queued or running now */
};

struct ar_pol_method {
	const char *id;
	double pfrac, pfrac_sd;  /* measured parallel fraction; NAN if none */
	int hint;            /* planner: 1 may pay at scale, -1 will not, 0 */
	/* GPU-hours of one measurement of this method at k, once known (its
	 * own runs); 0: the campaign's figure (ar_pol_cfg's cost_h). */
	double cost_h[AR_POL_NK];
	struct ar_pol_obs at[AR_POL_NK];
};

struct ar_pol_cfg {
	int policy;          /* AR_POL_ */
	int use[AR_POL_NK];  /* 1 where that k may be measured */
	double cost_h[AR_POL_NK]; /* GPU-hours of one measurement at k */
	double min_effect;   /* a gain smaller than this is noise: 0.01 */
	double budget_h;     /* GPU-hours left; negative: no limit */
	/* The grid's GPU-hours (one measurement of every method at every
	 * usable k) and what the campaign has spent: ours spends at most
	 * grid_cap of the grid (AR_POL_GRID_CAP when 0), so that ties cannot
	 * run away. grid_h 0: no cap. */
	double grid_h, spent_h, grid_cap;
	/* The pairs of a standard measurement (sched.pairs; 0: the
	 * default): a probe is never shorter than AR_POL_PAIRS_MIN of them. */
	long pairs;
	/* Added for the simulator and ours' predictions (zero: unknown). */
	double base_pfrac;   /* the baseline's parallel fraction; 0: unknown */
};

struct ar_pol_pick {
	size_t method;       /* index into the methods */
	int ki;              /* index of k: 0..3 for 1, 2, 4, 8 */
	int purpose;         /* AR_PUR_ */
	double value;        /* expected gain per GPU-hour */
	/* Sequential stopping, as ar-bench does: the measurement runs from
	 * size_min to size_max standard measurements (ar_pol_pairs turns
	 * them into pairs) and stops at the first of ar-bench's looks where
	 * the 95% interval of the ratio leaves out stop_at. NAN: no early
	 * stop. A default pick is one standard measurement. */
	double size_min, size_max, stop_at;
	char why[160];
};

/* The fewest pairs that give ar-bench a 95% interval at its first look,
 * and the default pairs of a standard measurement (sched.pairs). */
#define AR_POL_PAIRS_MIN 8
#define AR_POL_PAIRS_STD 32
#ifndef AR_POL_GRID_CAP
#define AR_POL_GRID_CAP 0.7
#endif

/* The index of k (1, 2, 4, 8) or -1; and back. */
int ar_pol_kindex(long k);
long ar_pol_k(int ki);
const char *ar_pol_purpose_name(int purpose);
const char *ar_pol_name(int policy);
int ar_pol_parse(const char *name);   /* -1 when unknown */

/* A pick's size in pairs, a standard measurement being std pairs: 0 for
 * a default pick (ar-bench's own rule decides), else 1 with *pmin and
 * *pmax set, never below AR_POL_PAIRS_MIN. */
int ar_pol_pairs(const struct ar_pol_pick *pk, long std, long *pmin,
	long *pmax);

/* Up to max measurements to make next, in the order to make them; 0 when
 * nothing left is worth its cost. */
size_t ar_policy_next(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, struct ar_pol_pick *out, size_t max);
/* The best feasible (method, k) on the evidence; -1 when none. */
int ar_policy_best(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, size_t *method, int *ki);
/* The same, with the policy's estimate of the pick and its standard
 * deviation (ours reads each pair through its method's curve); est and
 * sd may be NULL. */
int ar_policy_pick(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, size_t *method, int *ki, double *est,
	double *sd);

#endif
