/* policy.c: verification-maximal batching. The baseline's admission,
 * and each step's target pass filled with verification rows: every
 * ready request drafts as many tokens as an equal share of the step's
 * rows allows (1 to 8), so each pass of the target verifies as many
 * draft tokens as it can hold. */
#include <string.h>

#include "sd.h"

#define MAXREQ 4096

/* The ready requests of this step, counted once per step. */
static int
ready_count(const struct sd_view *v)
{
	static double at = -1;
	static int n;

	if (v->now_ms != at) {
		at = v->now_ms;
		n = 0;
		for (int i = 0; i < v->n; i++)
			n += v->req[i].running && v->req[i].to_prefill == 0;
	}
	return n;
}

static int
draft_len(const struct sd_view *v, const struct sd_req *q)
{
	int n = ready_count(v), k;

	(void)q;
	k = n > 0 ? v->max_rows / n - 1 : 1;
	return k < 1 ? 1 : k > 8 ? 8 : k;
}

/* Class, then arrival, then id: lower is served first. */
static int
before(const struct sd_req *a, const struct sd_req *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls;
	if (a->arrival_ms != b->arrival_ms)
		return a->arrival_ms < b->arrival_ms;
	return a->id < b->id;
}

void
policy_step(const struct sd_view *v, struct sd_act *act)
{
	static int ord[MAXREQ];
	int n = v->n < MAXREQ ? v->n : MAXREQ, nfree = v->blocks_free,
	    rows = v->max_rows, bt = v->block_tokens;
	static int held[MAXREQ];

	for (int i = 0; i < n; i++) {
		int j = i;

		while (j > 0 && before(&v->req[i], &v->req[ord[j - 1]])) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
		held[i] = v->req[i].blocks;
	}

	/* Running requests, best first: decode (or verify) or prefill. */
	for (int a = 0; a < n; a++) {
		int i = ord[a], r, k = 0, need;
		const struct sd_req *q = &v->req[i];

		if (!q->running || act[i].op == SD_PREEMPT)
			continue;
		if (q->to_prefill > 0)
			r = q->to_prefill < rows ? q->to_prefill : rows;
		else {
			k = draft_len(v, q);
			r = 1 + q->pending + k;
		}
		if (r < 1 || r > rows)
			continue;
		need = sd_blocks_for(q->kv + r, bt) - held[i];
		/* Preempt from the worst end until it fits. */
		for (int b = n - 1; need > nfree && b > a; b--) {
			int j = ord[b];

			if (v->req[j].running && act[j].op == SD_NONE) {
				act[j].op = SD_PREEMPT;
				nfree += held[j];
				held[j] = 0;
			}
		}
		if (need > nfree) {
			act[i].op = SD_PREEMPT;
			nfree += held[i];
			held[i] = 0;
			continue;
		}
		nfree -= need > 0 ? need : 0;
		rows -= r;
		if (q->to_prefill > 0)
			act[i] = (struct sd_act){ SD_PREFILL, r, 0 };
		else if (k > 0)
			act[i] = (struct sd_act){ SD_SPEC, k, 0 };
		else
			act[i] = (struct sd_act){ q->pending ? SD_VERIFY : SD_DECODE, 0, 0 };
	}

	/* Waiting requests, best first, while their whole prompt fits. */
	for (int a = 0; a < n && rows > 0; a++) {
		int i = ord[a], r;
		const struct sd_req *q = &v->req[i];

		if (q->running || act[i].op != SD_NONE)
			continue;
		if (sd_blocks_for(q->to_prefill + 1, bt) > nfree)
			break;
		r = q->to_prefill < rows ? q->to_prefill : rows;
		nfree -= sd_blocks_for(r, bt);
		rows -= r;
		act[i] = (struct sd_act){ SD_PREFILL, r, 0 };
	}
}
