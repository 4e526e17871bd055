/* pack.c: the bundle packer: bundles of k = 1, 2, 4, 8 slots on aligned
 * blocks of positions, buddy style; pack.h says what it promises. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "pack.h"

static uint64_t
block(int pos, int k)
{
	return (((uint64_t)1 << k) - 1) << pos;
}

static uint64_t
range(int from, int to)
{
	uint64_t m = 0;
	int i;

	for (i = from; i < to; i++)
		m |= (uint64_t)1 << i;
	return m;
}

static int
kidx(int k)
{
	return k == 1 ? 0 : k == 2 ? 1 : k == 4 ? 2 : k == 8 ? 3 : -1;
}

/* NVLinked pairs inside the block. */
static int
conn(const struct ar_snode *nd, int pos, int k)
{
	uint64_t m = block(pos, k);
	int i, c = 0;

	for (i = pos; i < pos + k; i++)
		c += __builtin_popcountll(nd->link[i] & m);
	return c / 2;
}

/* Free slots of the aligned block of size s around pos. */
static int
free_in(const struct ar_snode *nd, int pos, int s)
{
	int base = pos & ~(s - 1), end = base + s < nd->n ? base + s : nd->n;

	return __builtin_popcountll(range(base, end) & ~nd->busy);
}

static int
node_class(const struct ar_snode *nd)
{
	int s, p;

	if (nd->off)
		return 0;
	for (s = 8; s >= 1; s /= 2)
		for (p = 0; p + s <= nd->n; p += s)
			if (!(nd->busy & block(p, s)))
				return kidx(s) + 1;
	return 0;
}

static void
bucket_add(struct ar_inv *inv, size_t i, int b)
{
	if (inv->bn[b] == inv->bcap[b]) {
		inv->bcap[b] = inv->bcap[b] ? 2 * inv->bcap[b] : 16;
		inv->bucket[b] = ar_xrealloc(inv->bucket[b],
		    inv->bcap[b] * sizeof *inv->bucket[b]);
	}
	inv->node[i].bucket = b;
	inv->node[i].bpos = inv->bn[b];
	inv->bucket[b][inv->bn[b]++] = i;
}

static void
bucket_del(struct ar_inv *inv, size_t i)
{
	int b = inv->node[i].bucket;
	size_t at = inv->node[i].bpos, last = inv->bucket[b][--inv->bn[b]];

	inv->bucket[b][at] = last;
	inv->node[last].bpos = at;
}

static void
rebucket(struct ar_inv *inv, size_t i)
{
	int b = node_class(&inv->node[i]);

	if (b == inv->node[i].bucket)
		return;
	bucket_del(inv, i);
	bucket_add(inv, i, b);
}

void
ar_pack_index(struct ar_inv *inv)
{
	size_t i;
	int b, ki, p;

	for (b = 0; b < AR_NBUCKET; b++)
		inv->bn[b] = 0;
	memset(inv->maxconn, 0, sizeof inv->maxconn);
	for (i = 0; i < inv->n; i++) {
		struct ar_snode *nd = &inv->node[i];

		for (ki = 0; ki < 4; ki++) {
			nd->maxconn[ki] = 0;
			for (p = 0; p + (1 << ki) <= nd->n; p += 1 << ki) {
				int c = conn(nd, p, 1 << ki);

				if (c > nd->maxconn[ki])
					nd->maxconn[ki] = c;
			}
			if (nd->maxconn[ki] > inv->maxconn[ki])
				inv->maxconn[ki] = nd->maxconn[ki];
		}
		bucket_add(inv, i, node_class(nd));
	}
	inv->indexed = 1;
}

struct key {
	int found;
	double pref;
	int conn, cls, nfree, f2, f4, f8;
	size_t node;
	int pos;
};

/* <0 when a is the better place. */
static int
cmp_key(const struct key *a, const struct key *b, int use_pref)
{
	if (use_pref && a->pref != b->pref)
		return a->pref < b->pref ? -1 : 1;
	if (a->conn != b->conn)
		return b->conn - a->conn;
	if (a->cls != b->cls)
		return a->cls - b->cls;
	if (a->nfree != b->nfree)
		return a->nfree - b->nfree;
	if (a->f2 != b->f2)
		return a->f2 - b->f2;
	if (a->f4 != b->f4)
		return a->f4 - b->f4;
	if (a->f8 != b->f8)
		return a->f8 - b->f8;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->pos - b->pos;
}

/* Weighs every free aligned block of k on node i against *best. */
static void
eval_node(const struct ar_inv *inv, size_t i, int k, int use_pref,
    struct key *best)
{
	const struct ar_snode *nd = &inv->node[i];
	int nfree = __builtin_popcountll(range(0, nd->n) & ~nd->busy), p;
	struct key cur;

	for (p = 0; p + k <= nd->n; p += k) {
		if (nd->busy & block(p, k))
			continue;
		cur.found = 1;
		cur.pref = nd->pref;
		cur.conn = conn(nd, p, k);
		cur.cls = nd->bucket;
		cur.nfree = nfree;
		cur.f2 = free_in(nd, p, 2 * k);
		cur.f4 = free_in(nd, p, 4 * k);
		cur.f8 = free_in(nd, p, 8 * k);
		cur.node = i;
		cur.pos = p;
		if (!best->found || cmp_key(&cur, best, use_pref) < 0)
			*best = cur;
	}
}

static int
found(const struct key *best, int k, struct ar_place *out)
{
	if (!best->found)
		return 0;
	out->node = best->node;
	out->pos = best->pos;
	out->k = k;
	out->mask = block(best->pos, k);
	out->conn = best->conn;
	return 1;
}

int
ar_pack_find(const struct ar_inv *inv, int k, int use_pref, double end,
    struct ar_place *out)
{
	struct key best = {0};
	int ki = kidx(k), b;
	size_t j;

	if (ki < 0 || !inv->indexed)
		return 0;
	for (b = ki + 1; b < AR_NBUCKET; b++) {
		for (j = 0; j < inv->bn[b]; j++) {
			size_t i = inv->bucket[b][j];
			const struct ar_snode *nd = &inv->node[i];

			if (nd->off || (nd->reserved && !(end <= nd->shadow)))
				continue;
			eval_node(inv, i, k, use_pref, &best);
		}
		/* Later buckets fit worse; only better links could win. */
		if (best.found && !use_pref && best.conn >= inv->maxconn[ki])
			break;
	}
	return found(&best, k, out);
}

int
ar_pack_find_on(const struct ar_inv *inv, size_t node, int k,
    struct ar_place *out)
{
	struct key best = {0};

	if (kidx(k) < 0 || !inv->indexed || node >= inv->n)
		return 0;
	eval_node(inv, node, k, 0, &best);
	return found(&best, k, out);
}

void
ar_pack_take(struct ar_inv *inv, const struct ar_place *p, double until)
{
	struct ar_snode *nd = &inv->node[p->node];
	int i;

	nd->busy |= p->mask;
	for (i = 0; i < nd->n; i++)
		if (p->mask >> i & 1)
			nd->until[i] = until;
	if (inv->indexed)
		rebucket(inv, p->node);
}

void
ar_pack_release(struct ar_inv *inv, size_t node, uint64_t mask)
{
	inv->node[node].busy &= ~mask;
	if (inv->indexed)
		rebucket(inv, node);
}

int
ar_pack_reserve(struct ar_inv *inv, int k, double now, size_t *node,
    double *when)
{
	size_t i, bi = 0;
	double bw = 0;
	int bfree = -1, p, q;

	for (i = 0; i < inv->n; i++) {
		struct ar_snode *nd = &inv->node[i];
		int nfree = __builtin_popcountll(range(0, nd->n) & ~nd->busy);

		if (nd->off || nd->reserved)
			continue;
		for (p = 0; p + k <= nd->n; p += k) {
			double w = now;

			for (q = p; q < p + k; q++)
				if ((nd->busy >> q & 1) && nd->until[q] > w)
					w = nd->until[q];
			if (bfree < 0 || w < bw || (w == bw && nfree > bfree)) {
				bw = w;
				bi = i;
				bfree = nfree;
			}
		}
	}
	if (bfree < 0)
		return 0;
	inv->node[bi].reserved = 1;
	inv->node[bi].shadow = bw;
	*node = bi;
	*when = bw;
	return 1;
}

void
ar_pack_unreserve(struct ar_inv *inv)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		inv->node[i].reserved = 0;
}

void
ar_place_ids(const struct ar_inv *inv, const struct ar_place *p, char *out,
    size_t n)
{
	const struct ar_snode *nd = &inv->node[p->node];
	size_t len = 0;
	int i;

	out[0] = 0;
	for (i = 0; i < nd->n && len < n; i++)
		if (p->mask >> i & 1)
			len += (size_t)snprintf(out + len, n - len, "%s%d",
			    len ? "," : "", nd->id[i]);
}

/* The positions of a block of k from pos; k may be 64. */
static uint64_t
span(int pos, int k)
{
	return (k >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << k) - 1) << pos;
}

int
ar_pack_choose_on(const struct ar_inv *inv, size_t node, int k,
    const int *want, size_t nwant, struct ar_place *out, int *ids)
{
	const struct ar_snode *nd;
	uint64_t m = 0;
	size_t i;
	int p, q, step;

	if (node >= inv->n || k < 1 || k > inv->node[node].n)
		return 0;
	nd = &inv->node[node];
	if (nwant == (size_t)k) {
		for (i = 0; i < nwant; i++) {
			if ((p = ar_inv_pos(nd, want[i])) < 0 ||
			    (nd->busy >> p & 1))
				break;
			m |= (uint64_t)1 << p;
		}
		if (i == nwant) {
			out->node = node;
			out->pos = __builtin_ctzll(m);
			out->k = k;
			out->mask = m;
			out->conn = 0;
			for (p = 0; p < nd->n; p++)
				if (m >> p & 1)
					out->conn += __builtin_popcountll(
					    nd->link[p] & m);
			out->conn /= 2;
			memcpy(ids, want, nwant * sizeof *ids);
			return 1;
		}
	}
	if (kidx(k) >= 0 && inv->indexed) {
		if (!ar_pack_find_on(inv, node, k, out))
			return 0;
	} else {
		/* Sizes the packer does not place: the first free block. */
		step = (k & (k - 1)) == 0 ? k : 1;
		for (p = 0; p + k <= nd->n; p += step)
			if (!(nd->busy & span(p, k)))
				break;
		if (p + k > nd->n)
			return 0;
		out->node = node;
		out->pos = p;
		out->k = k;
		out->mask = span(p, k);
		out->conn = 0;
	}
	for (i = 0, q = 0; q < nd->n; q++)
		if (out->mask >> q & 1)
			ids[i++] = nd->id[q];
	return 1;
}
