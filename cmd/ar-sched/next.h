/* next.h: what ar-sched next knows of a campaign: the methods submitted,
 * what the ledger says of each at each k, the nodes' noise floors and
 * what is queued. next-read.c reads it; next.c decides on it. */
#ifndef AR_SCHED_NEXT_H
#define AR_SCHED_NEXT_H
#include <stddef.h>

#include "inventory.h"
#include "policy.h"

struct meth {
	char *id, *method, *idea, *label, *category, *workload;
	int hint;
	double pfrac;
	struct ar_pol_obs at[AR_POL_NK];
	char fin[AR_POL_NK][40];   /* when the latest result finished */
	int scored[AR_POL_NK];
	/* Every scored result of a scale, pooled in log space by inverse
	 * variance: a re-measurement narrows the estimate, as the
	 * policy (and ar-sched simulate) count on. */
	double lsum[AR_POL_NK], wsum[AR_POL_NK];
};

/* A node's latest A/A. */
struct noise {
	char *node, fin[40], exp[64];
	double v;
};

struct nx {
	const char *camp, *workload, *dflt_wl;
	struct meth *m;
	size_t nm, capm;
	struct meth **byname;      /* m sorted by method */
	struct noise *nz;
	size_t nnz;
	char **aa_pending;         /* nodes whose A/A is queued */
	size_t naa;
	double used_h, min_effect;
	/* The seconds each verified measurement at k took. */
	size_t nsecs[AR_POL_NK];
	double *all_secs[AR_POL_NK];
	size_t left_unverified;
	/* The baseline's primary metric per k, from every verified row of
	 * the workload: each result measures the baseline beside its method
	 * at the same k, so its scaling is known without runs of its own. */
	const char *metric;
	double *base[AR_POL_NK];
	size_t nbase[AR_POL_NK];
	int lower;                 /* the metric is lower-is-better */
};

/* The methods: from the submissions file subm ("-": standard input), or
 * when NULL from the campaign's submitted/ spool. One submitted twice
 * (same id and workload) is taken once, as it was first. */
void read_methods(struct nx *x, const char *subm);
/* What the results say: from the ledger export ledger ("-": standard
 * input), or when NULL from ar-ledger export of the campaign. */
void read_known(struct nx *x, const char *ledger);
/* What the queue qdir holds: the measurements pending and the nodes
 * whose A/A is queued. */
void read_queued(struct nx *x, const char *qdir);
/* The baseline's parallel fraction by Amdahl's law, from its median
 * metric at k=1 and at each larger k measured, weighted by the runs; 0
 * when there is no such pair (unknown to the policy). how lists the
 * larger k. */
double base_pfrac(const struct nx *x, char *how, size_t n);
/* The node's latest A/A, under its name or its long or short form;
 * NULL when none. */
const struct noise *noise_of(const struct nx *x, const char *node);
/* Whether an A/A is queued for node (an index into inv). */
int aa_queued(const struct nx *x, const struct ar_inv *inv, size_t node);
void free_nx(struct nx *x);

#endif
