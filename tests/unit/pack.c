/* pack.c: unit tests of lib/pack: aligned blocks for k = 1, 2, 4, 8,
 * NVLinks first, the node preference, best fit, take and release,
 * reservations for a large bundle, ar-run's choice on one node, and the
 * slot ids of a place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "pack.h"
#include "unit.h"

/* A node of n slots, ids 0..n-1, without NVLinks. */
static struct ar_snode *
bare(struct ar_inv *inv, const char *name, int n)
{
	struct ar_snode *nd = ar_inv_node(inv, name);
	int i;

	for (i = 0; i < n; i++)
		ar_inv_add(nd, i, "gpu", -1);
	return nd;
}

static void
link2(struct ar_snode *nd, int a, int b)
{
	nd->link[a] |= (uint64_t)1 << b;
	nd->link[b] |= (uint64_t)1 << a;
}

static void
alignment(void)
{
	struct ar_inv inv;
	struct ar_place p;
	int k, round, bad = 0, found = 0;

	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "a", 8, 0);
	ar_inv_gpus(&inv, "b", 8, 1);
	ar_pack_index(&inv);
	OK(ar_pack_find(&inv, 3, 0, 0, &p) == 0 && ar_pack_find(&inv, 16, 0, 0,
	    &p) == 0, "find: no k but 1, 2, 4, 8");
	/* Fill both nodes with a mix of sizes: every place aligned on its
	 * size, on free slots, and the mask its block. */
	for (round = 0; round < 8; round++) {
		static const int ks[] = { 1, 2, 1, 4, 2, 1, 8, 1 };

		k = ks[round];
		if (!ar_pack_find(&inv, k, 0, 0, &p))
			continue;
		found++;
		if (p.pos % k != 0 || p.k != k || p.mask != (((uint64_t)1 << k) -
		    1) << p.pos || (inv.node[p.node].busy & p.mask))
			bad++;
		ar_pack_take(&inv, &p, 10);
	}
	OK(found == 7 && bad == 0, "find: %d places, each aligned on k, on "
	    "free slots (%d bad)", found, bad);
	OK(!ar_pack_find(&inv, 8, 0, 0, &p), "find: no 8 left once both nodes "
	    "are in use");
	ar_inv_free(&inv);
	ar_inv_init(&inv);
	bare(&inv, "six", 6);
	ar_pack_index(&inv);
	OK(ar_pack_find(&inv, 4, 0, 0, &p) && p.pos == 0, "find: on 6 slots, "
	    "a 4 only at 0");
	ar_pack_take(&inv, &p, 1);
	OK(!ar_pack_find(&inv, 4, 0, 0, &p), "find: 4..7 is no block of 6 "
	    "slots");
	OK(ar_pack_find(&inv, 2, 0, 0, &p) && p.pos == 4, "find: a 2 at 4");
	ar_inv_free(&inv);
}

static void
nvlink(void)
{
	struct ar_inv inv;
	struct ar_snode *nd;
	struct ar_place p;

	ar_inv_init(&inv);
	bare(&inv, "plain", 8);
	ar_inv_gpus(&inv, "linked", 8, 1);
	ar_pack_index(&inv);
	OK(ar_pack_find(&inv, 2, 0, 0, &p) && p.node == 1 && p.conn == 1,
	    "a pair goes where it is NVLinked");
	OK(ar_pack_find(&inv, 1, 0, 0, &p) && p.conn == 0, "a single has no "
	    "link to use");
	OK(ar_pack_find(&inv, 4, 0, 0, &p) && p.node == 1 && p.conn == 2,
	    "a quad on two linked pairs");
	ar_inv_free(&inv);
	ar_inv_init(&inv);
	nd = bare(&inv, "n", 8);
	link2(nd, 2, 3);
	link2(nd, 4, 5);
	link2(nd, 4, 6);
	link2(nd, 4, 7);
	link2(nd, 5, 6);
	ar_pack_index(&inv);
	OK(ar_pack_find(&inv, 2, 0, 0, &p) && p.pos == 2 && p.conn == 1,
	    "within a node, the linked pair");
	OK(ar_pack_find(&inv, 4, 0, 0, &p) && p.pos == 4 && p.conn == 4,
	    "the quad with most links");
	OK(ar_pack_find_on(&inv, 0, 2, &p) && p.pos == 2, "find_on: the same "
	    "on one node");
	OK(!ar_pack_find_on(&inv, 1, 2, &p) && !ar_pack_find_on(&inv, 0, 3,
	    &p), "find_on: no node 1; no k of 3");
	ar_inv_free(&inv);
}

static void
preference(void)
{
	struct ar_inv inv;
	struct ar_place p;

	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "linked", 8, 0);
	bare(&inv, "plain", 8);
	inv.node[0].pref = 2;
	inv.node[1].pref = 1;
	ar_pack_index(&inv);
	OK(ar_pack_find(&inv, 2, 0, 0, &p) && p.node == 0, "without use_pref, "
	    "links win");
	OK(ar_pack_find(&inv, 2, 1, 0, &p) && p.node == 1, "with use_pref, the "
	    "lower pref wins over links");
	ar_inv_free(&inv);
}

static void
best_fit(void)
{
	struct ar_inv inv;
	struct ar_place p, q = { 0 };

	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "empty", 8, 0);
	ar_inv_gpus(&inv, "used", 8, 0);
	ar_pack_index(&inv);
	q.node = 1;
	q.pos = 0;
	q.k = 1;
	q.mask = 1;
	ar_pack_take(&inv, &q, 5);
	OK(inv.node[1].busy == 1 && inv.node[1].until[0] == 5, "take: busy and "
	    "until");
	OK(ar_pack_find(&inv, 1, 0, 0, &p) && p.node == 1 && p.pos == 1, "a "
	    "single goes beside the busy slot of the used node, not on the "
	    "empty one");
	ar_pack_take(&inv, &p, 5);
	OK(ar_pack_find(&inv, 2, 0, 0, &p) && p.node == 1 && p.pos == 2, "a "
	    "pair fills the used quad");
	OK(ar_pack_find(&inv, 8, 0, 0, &p) && p.node == 0, "the empty node "
	    "stays whole for an 8");
	ar_pack_release(&inv, 1, 3);
	OK(inv.node[1].busy == 0, "release frees the slots");
	OK(ar_pack_find(&inv, 8, 0, 0, &p) && p.node == 0, "8 fits either; the "
	    "first node on a tie");
	ar_pack_take(&inv, &p, 5);
	OK(ar_pack_find(&inv, 8, 0, 0, &p) && p.node == 1, "released: an 8 "
	    "fits the node freed");
	inv.node[1].off = 1;
	ar_pack_index(&inv);
	OK(!ar_pack_find(&inv, 1, 0, 0, &p), "an off node takes nothing");
	OK(ar_pack_find_on(&inv, 1, 1, &p) && p.node == 1, "find_on: whatever "
	    "its off mark says");
	ar_inv_free(&inv);
	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "a", 8, 0);
	ar_inv_gpus(&inv, "b", 8, 0);
	inv.node[0].busy = 0xf0;
	inv.node[1].busy = 0xe0;
	ar_pack_index(&inv);
	OK(ar_pack_find(&inv, 1, 0, 0, &p) && p.node == 0, "of two nodes whose "
	    "largest block is 4, the one with fewer free slots");
	ar_inv_free(&inv);
}

static void
reserve(void)
{
	struct ar_inv inv;
	struct ar_place p;
	size_t node = 99;
	double when = -1;
	int i;

	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "a", 8, 0);
	ar_inv_gpus(&inv, "b", 8, 0);
	inv.node[0].busy = 0x01;
	inv.node[0].until[0] = 100;
	inv.node[1].busy = 0x0f;
	for (i = 0; i < 4; i++)
		inv.node[1].until[i] = 50;
	ar_pack_index(&inv);
	OK(!ar_pack_find(&inv, 8, 0, 0, &p), "an 8 fits nowhere now");
	OK(ar_pack_reserve(&inv, 8, 10, &node, &when) == 1 && node == 1 &&
	    when == 50 && inv.node[1].reserved && inv.node[1].shadow == 50,
	    "reserve: the node whose block frees soonest");
	OK(ar_pack_find(&inv, 1, 0, 60, &p) && p.node == 0, "work that ends "
	    "after the shadow time keeps off the reserved node");
	OK(ar_pack_find(&inv, 1, 0, 40, &p) && p.node == 1, "work that ends "
	    "by it may use it");
	OK(ar_pack_reserve(&inv, 8, 10, &node, &when) == 1 && node == 0 &&
	    when == 100, "reserve again: the next node");
	OK(ar_pack_reserve(&inv, 8, 10, &node, &when) == 0, "reserve: no node "
	    "left");
	ar_pack_unreserve(&inv);
	OK(!inv.node[0].reserved && !inv.node[1].reserved, "unreserve");
	inv.node[0].busy = 0;
	inv.node[1].busy = 0;
	inv.node[1].until[0] = 0;
	OK(ar_pack_reserve(&inv, 8, 10, &node, &when) == 1 && when == 10,
	    "reserve of a free node: now");
	ar_pack_unreserve(&inv);
	inv.node[0].busy = 0x03;
	inv.node[0].until[0] = inv.node[0].until[1] = 30;
	inv.node[1].busy = 0x01;
	inv.node[1].until[0] = 30;
	OK(ar_pack_reserve(&inv, 8, 10, &node, &when) == 1 && node == 1 &&
	    when == 30, "reserve: the emptiest among equals");
	OK(ar_pack_reserve(&inv, 16, 10, &node, &when) == 0, "reserve: no node "
	    "big enough");
	ar_inv_free(&inv);
}

static void
ids(void)
{
	static const char text[] = "node\tgpu\tmodel\tmemory_mib\tnvlink\n"
	    "n\t4\tg\t\t\nn\t5\tg\t\t\nn\t6\tg\t\t\nn\t7\tg\t\t\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct ar_inv inv;
	struct ar_place p;
	char err[256], out[64];

	ar_inv_init(&inv);
	OK(ar_inv_read(&inv, f, "t", err, sizeof err) == 0, "ids: a node of "
	    "GPUs 4 to 7");
	fclose(f);
	ar_pack_index(&inv);
	ar_pack_take(&inv, &(struct ar_place){ 0, 0, 2, 3, 0 }, 1);
	OK(ar_pack_find(&inv, 2, 0, 0, &p) && p.pos == 2, "ids: a pair at "
	    "position 2");
	ar_place_ids(&inv, &p, out, sizeof out);
	OK(strcmp(out, "6,7") == 0, "ids: the slots' ids, not positions");
	ar_place_ids(&inv, &p, out, 2);
	OK(strlen(out) <= 1, "ids: cut to the buffer");
	ar_inv_free(&inv);
}

static void
choose(void)
{
	struct ar_inv inv;
	struct ar_place p;
	int ids[8], w3[] = { 5, 1, 3 }, w2[] = { 0, 1 };

	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "n", 8, 1);
	OK(ar_pack_choose_on(&inv, 0, 3, w3, 3, &p, ids) && p.mask == 0x2a &&
	    p.pos == 1 && ids[0] == 5 && ids[1] == 1 && ids[2] == 3, "choose: "
	    "the slots asked for, in their order");
	OK(ar_pack_choose_on(&inv, 0, 2, w2, 2, &p, ids) && p.conn == 1,
	    "choose: a linked pair asked for counts its link");
	inv.node[0].busy = 1;
	OK(ar_pack_choose_on(&inv, 0, 2, w2, 2, &p, ids) && p.pos == 2 &&
	    ids[0] == 2 && ids[1] == 3, "choose: one asked for is busy: the "
	    "first free aligned block, unindexed");
	OK(ar_pack_choose_on(&inv, 0, 3, NULL, 0, &p, ids) && p.pos == 1 &&
	    p.mask == 0x0e, "choose: a 3, on the first free run of 3");
	ar_pack_index(&inv);
	inv.node[0].busy = 0;
	ar_pack_take(&inv, &(struct ar_place){ 0, 0, 1, 1, 0 }, 1);
	OK(ar_pack_choose_on(&inv, 0, 2, NULL, 0, &p, ids) && p.pos == 2,
	    "choose: indexed, the packer's block");
	OK(!ar_pack_choose_on(&inv, 0, 9, NULL, 0, &p, ids) &&
	    !ar_pack_choose_on(&inv, 1, 1, NULL, 0, &p, ids) &&
	    !ar_pack_choose_on(&inv, 0, 0, NULL, 0, &p, ids), "choose: more "
	    "than the node holds, no such node, k 0");
	inv.node[0].busy = 0xfe;
	OK(!ar_pack_choose_on(&inv, 0, 2, NULL, 0, &p, ids), "choose: none "
	    "free");
	ar_inv_free(&inv);
}

const struct unit_test unit_pack[] = {
	TEST(alignment),
	TEST(nvlink),
	TEST(preference),
	TEST(best_fit),
	TEST(reserve),
	TEST(ids),
	TEST(choose),
	UNIT_END,
};
