/* cluster.c: ar-sched cluster: a discrete-event simulation of lib/pack
 * on a large cluster. A deep queue of seeded requests for 1, 2, 4 and 8
 * GPUs, oldest first, each started where it fits, with reservations and
 * backfill for the large ones that fit nowhere; it prints the
 * utilization, the time one decision takes and how long 8-GPU requests
 * waited. --check holds every slot's owner beside the packer's masks. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "err.h"
#include "json.h"
#include "pack.h"
#include "sched.h"

struct req {
	double arrive, dur, head;   /* head: when it became the oldest */
	unsigned long long seq;
	int k;
};

struct fifo {
	struct req *r;
	size_t head, n, cap;
};

struct job {
	double end;
	size_t node;
	uint64_t mask;
	long id;
};

struct sim {
	uint64_t rng;              /* splitmix64's state, from -s */
	struct ar_inv inv;
	struct fifo q[4];
	struct job *heap;
	size_t nheap, capheap;
	unsigned long long seq;
	double now, maxhead8;
	size_t placed8;
	long *owner;               /* --check: who holds each slot */
	long jobs;
	int check, noreserve, nres, gpn;
	size_t window;             /* how far into the queue one looks:
	                            * all of it unless -W says less */
	size_t placements;
};

/* The next number in (0, 1) of s's generator. */
static double
unif(struct sim *s)
{
	uint64_t z = mix64(s->rng);

	s->rng += 0x9e3779b97f4a7c15ULL;
	return unit(z);
}

static void
fifo_push(struct fifo *f, struct req r)
{
	if (f->head + f->n == f->cap) {
		if (f->head > f->cap / 2) {
			memmove(f->r, f->r + f->head, f->n * sizeof *f->r);
			f->head = 0;
		} else {
			f->cap = f->cap ? 2 * f->cap : 1024;
			f->r = ar_xrealloc(f->r, f->cap * sizeof *f->r);
		}
	}
	f->r[f->head + f->n++] = r;
}

static void
new_req(struct sim *s, double now)
{
	double u = unif(s), d;
	struct req r;
	int ki;

	/* The mix: many 1-GPU probes, fewer scale probes and validations. */
	ki = u < 0.40 ? 0 : u < 0.65 ? 1 : u < 0.85 ? 2 : 3;
	/* Nothing larger than a node: it would wait forever. */
	while (ki > 0 && (1 << ki) > s->gpn)
		ki--;
	/* Durations: exponential, mean one hour, from 3 minutes to 6 hours. */
	d = -log(unif(s));
	d = d < 0.05 ? 0.05 : d > 6 ? 6 : d;
	r.arrive = now;
	r.dur = d;
	r.head = -1;
	r.seq = s->seq++;
	r.k = 1 << ki;
	fifo_push(&s->q[ki], r);
}

static void
heap_push(struct sim *s, struct job j)
{
	size_t i;

	if (s->nheap == s->capheap) {
		s->capheap = s->capheap ? 2 * s->capheap : 1024;
		s->heap = ar_xrealloc(s->heap, s->capheap * sizeof *s->heap);
	}
	i = s->nheap++;
	while (i > 0 && s->heap[(i - 1) / 2].end > j.end) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = j;
}

static struct job
heap_pop(struct sim *s)
{
	struct job top = s->heap[0], last = s->heap[--s->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && s->heap[c + 1].end < s->heap[c].end)
			c++;
		if (last.end <= s->heap[c].end)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

static void
sim_check(struct sim *s, const struct ar_place *p, long id, int taking)
{
	int i;

	for (i = 0; i < AR_SLOTS_MAX; i++) {
		long *o;

		if (!(p->mask >> i & 1))
			continue;
		o = &s->owner[p->node * AR_SLOTS_MAX + (size_t)i];
		if (taking ? *o != -1 : *o != id)
			ar_die(AR_EX_SOFTWARE, "check: node %zu slot %d: %s by "
			    "job %ld", p->node, i, taking ? "double-booked, held" :
			    "released, not held", *o);
		*o = taking ? id : -1;
	}
}

static void
sim_start(struct sim *s, int ki, const struct ar_place *p)
{
	struct fifo *f = &s->q[ki];
	struct req r = f->r[f->head];
	struct job j;

	f->head++;
	f->n--;
	ar_pack_take(&s->inv, p, s->now + r.dur);
	j.end = s->now + r.dur;
	j.node = p->node;
	j.mask = p->mask;
	j.id = s->jobs++;
	if (s->check)
		sim_check(s, p, j.id, 1);
	heap_push(s, j);
	if (r.k == 8) {
		s->placed8++;
		if (r.head >= 0 && s->now - r.head > s->maxhead8)
			s->maxhead8 = s->now - r.head;
	}
	s->placements++;
	/* The queue stays deep: a new request for each one placed. */
	new_req(s, s->now);
}

/* The oldest request of all sizes; -1 when none. */
static int
oldest(const struct sim *s)
{
	int ki, best = -1;

	for (ki = 0; ki < 4; ki++)
		if (s->q[ki].n && (best < 0 || s->q[ki].r[s->q[ki].head].seq <
		    s->q[best].r[s->q[best].head].seq))
			best = ki;
	return best;
}


/* One decision: the oldest requests first, each started where it fits;
 * one that fits nowhere keeps the node it will get soonest (up to
 * s->nres of them), and what comes after it is started only where it
 * does not delay those (EASY backfill; conservative with nres > 1). */
static void
sim_decide(struct sim *s)
{
	struct ar_place p;

	for (;;) {
		size_t w[4] = {0}, seen;
		int placed = 0, nres = 0, h = oldest(s);

		if (h < 0)
			return;
		if (s->q[h].r[s->q[h].head].head < 0)
			s->q[h].r[s->q[h].head].head = s->now;
		/* The earliest end that found no place, per size: a request
		 * of that size ending as late or later cannot fit either (a
		 * later end is shut out of more kept nodes, and nothing is
		 * freed during a decision), so it is passed over without a
		 * search; once no size can fit, the walk stops. */
		double fail[4] = { INFINITY, INFINITY, INFINITY, INFINITY };
		int shut = 0;

		for (seen = 0; seen < s->window && !placed; seen++) {
			int ki, c = -1;
			struct req *r;
			size_t rn;
			double when;

			/* The next oldest of the four queues. */
			for (ki = 0; ki < 4; ki++)
				if (w[ki] < s->q[ki].n && (c < 0 ||
				    s->q[ki].r[s->q[ki].head + w[ki]].seq <
				    s->q[c].r[s->q[c].head + w[c]].seq))
					c = ki;
			if (c < 0)
				break;
			r = &s->q[c].r[s->q[c].head + w[c]];
			if (shut == 4 && (s->noreserve || nres >= s->nres))
				break;
			if (s->now + r->dur < fail[c] &&
			    ar_pack_find(&s->inv, r->k, 0, s->now + r->dur, &p)) {
				/* Out of order: those before it move up one. */
				if (w[c] > 0) {
					struct req t = *r;
					struct req *f = &s->q[c].r[s->q[c].head];

					memmove(f + 1, f, w[c] * sizeof *f);
					*f = t;
				}
				sim_start(s, c, &p);
				placed = 1;
				break;
			}
			if (s->now + r->dur < fail[c]) {
				fail[c] = s->now + r->dur;
				/* The shortest request lasts 3 minutes. */
				if (fail[c] <= s->now + 0.05)
					shut++;
			}
			if (!s->noreserve && nres < s->nres && r->k > 1 &&
			    ar_pack_reserve(&s->inv, r->k, s->now, &rn, &when))
				nres++;
			w[c]++;
		}
		ar_pack_unreserve(&s->inv);
		if (!placed)
			return;
	}
}

static int
cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
cmd_cluster(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "check", no_argument, NULL, O_CHECK },
		{ "no-reserve", no_argument, NULL, O_NORES },
		{ NULL, 0, NULL, 0 },
	};
	long long nodes = 64, gpn = 8, pending = 100000, seed = 1, v;
	double hours = 48, *ms = NULL, total_ms = 0, max_ms = 0, busy = 0;
	size_t nms = 0, capms = 0, i;
	struct sim s;
	int c;
	char name[32];

	memset(&s, 0, sizeof s);
	s.nres = -1;
	s.window = SIZE_MAX;
	while ((c = getopt_long(argc, argv, "N:G:p:R:s:d:W:", lo, NULL)) != -1) {
		switch (c) {
		case 'N':
			if (ar_parse_long(optarg, &nodes) < 0 || nodes < 1 ||
			    nodes > 100000)
				ar_die(AR_EX_USAGE, "-N %s: nodes from 1 to 100000",
				    optarg);
			break;
		case 'G':
			if (ar_parse_long(optarg, &gpn) < 0 || gpn < 1 ||
			    gpn > AR_SLOTS_MAX)
				ar_die(AR_EX_USAGE, "-G %s: GPUs per node from 1 "
				    "to %d", optarg, AR_SLOTS_MAX);
			break;
		case 'p':
			if (ar_parse_long(optarg, &pending) < 0 || pending < 1 ||
			    pending > 100000000)
				ar_die(AR_EX_USAGE, "-p %s: a count from 1 to "
				    "100000000", optarg);
			break;
		case 'R':
			if (ar_parse_long(optarg, &v) < 0 || v < 1 || v > 100000)
				ar_die(AR_EX_USAGE, "-R %s: reservations from 1 to "
				    "100000", optarg);
			s.nres = (int)v;
			break;
		case 'W':
			if (ar_parse_long(optarg, &v) < 0 || v < 1 || v > 1000000)
				ar_die(AR_EX_USAGE, "-W %s: a window from 1 to "
				    "1000000", optarg);
			s.window = (size_t)v;
			break;
		case 's':
			if (ar_parse_long(optarg, &seed) < 0)
				ar_die(AR_EX_USAGE, "-s %s: a whole number", optarg);
			break;
		case 'd':
			if (ar_parse_double(optarg, &hours) < 0 || hours <= 0 ||
			    hours > 1e6)
				ar_die(AR_EX_USAGE, "-d %s: hours, more than 0",
				    optarg);
			break;
		case O_CHECK: s.check = 1; break;
		case O_NORES: s.noreserve = 1; break;
		default: ar_usage(USAGE_CLUSTER);
		}
	}
	if (optind != argc)
		ar_usage(USAGE_CLUSTER);
	if (s.nres < 0)
		s.nres = 4;
	s.gpn = (int)gpn;
	s.rng = (uint64_t)seed;
	ar_inv_init(&s.inv);
	for (i = 0; i < (size_t)nodes; i++) {
		snprintf(name, sizeof name, "n%04zu", i);
		ar_inv_gpus(&s.inv, name, (int)gpn, 0);
	}
	ar_pack_index(&s.inv);
	if (s.check) {
		s.owner = ar_xcalloc((size_t)nodes * AR_SLOTS_MAX,
		    sizeof *s.owner);
		for (i = 0; i < (size_t)nodes * AR_SLOTS_MAX; i++)
			s.owner[i] = -1;
	}
	for (i = 0; i < (size_t)pending; i++)
		new_req(&s, 0);
	for (;;) {
		struct timespec t0, t1;
		double d, next;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		sim_decide(&s);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		d = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (nms == capms) {
			capms = capms ? 2 * capms : 4096;
			ms = ar_xrealloc(ms, capms * sizeof *ms);
		}
		ms[nms++] = d;
		total_ms += d;
		if (d > max_ms)
			max_ms = d;
		if (s.check) {
			/* The packer's masks agree with the owners. */
			size_t n;

			for (n = 0; n < s.inv.n; n++) {
				int g;

				for (g = 0; g < s.inv.node[n].n; g++) {
					int b = (int)(s.inv.node[n].busy >> g & 1);
					int held = s.owner[n * AR_SLOTS_MAX +
					    (size_t)g] >= 0;

					if (b != held)
						ar_die(AR_EX_SOFTWARE, "check: node "
						    "%zu slot %d: mask and owner "
						    "disagree", n, g);
				}
			}
		}
		if (!s.nheap)
			break;
		/* Busy GPU time up to the next event, within the horizon. */
		next = s.heap[0].end;
		{
			size_t n, used = 0;

			for (n = 0; n < s.inv.n; n++)
				used += (size_t)__builtin_popcountll(
				    s.inv.node[n].busy);
			busy += (double)used * ((next < hours ? next : hours) -
			    s.now);
		}
		if (next >= hours)
			break;
		s.now = next;
		while (s.nheap && s.heap[0].end <= s.now) {
			struct job j = heap_pop(&s);
			struct ar_place p = { .node = j.node, .mask = j.mask };

			if (s.check)
				sim_check(&s, &p, j.id, 0);
			ar_pack_release(&s.inv, j.node, j.mask);
		}
	}
	/* An 8 still waiting at the head at the end has waited too. */
	if (s.q[3].n && s.q[3].r[s.q[3].head].head >= 0 &&
	    hours - s.q[3].r[s.q[3].head].head > s.maxhead8)
		s.maxhead8 = hours - s.q[3].r[s.q[3].head].head;
	ar_sort(ms, nms, sizeof *ms, cmp_ms);
	puts("nodes\tgpus_per_node\tpending\tseed\thours\treserve\tdecisions\t"
	    "placements\tutilization\tdecision_ms_mean\tdecision_ms_p99\t"
	    "decision_ms_max\tplaced8\twait8_max_h");
	printf("%lld\t%lld\t%lld\t%lld\t%g\t%s\t%zu\t%zu\t%.4f\t%.4f\t%.4f\t"
	    "%.4f\t%zu\t%.2f\n", nodes, gpn, pending, seed, hours,
	    s.noreserve ? "no" : "yes", nms, s.placements,
	    busy / ((double)nodes * (double)gpn * hours),
	    nms ? total_ms / (double)nms : 0,
	    nms ? ms[(size_t)((double)(nms - 1) * 0.99)] : 0, max_ms,
	    s.placed8, s.maxhead8);
	ar_fshut(stdout, "<stdout>");
	free(ms);
	free(s.owner);
	free(s.heap);
	for (i = 0; i < 4; i++)
		free(s.q[i].r);
	ar_inv_free(&s.inv);
	return AR_EX_OK;
}

