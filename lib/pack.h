/* pack.h: the bundle packer behind ar-sched: bundles of k = 1, 2, 4, 8
 * slots of an inventory on aligned blocks of positions, buddy style, so
 * that what stays free stays in whole pairs, quads and nodes. */
#ifndef AR_PACK_H
#define AR_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "inventory.h"

/* One bundle's place: node, the block's first position, its mask. */
struct ar_place {
	size_t node;
	int pos, k;
	uint64_t mask;
	int conn;                       /* NVLinked pairs inside the block */
};

/* The packer. ar_pack_index builds the per-size buckets once the
 * inventory and its busy slots are in; take and release keep them. */
void ar_pack_index(struct ar_inv *inv);
/* The best free aligned block of k slots: most NVLinked pairs, then (with
 * use_pref) lowest node pref, then best fit: the node whose largest free
 * block is smallest and which has fewest free slots, the block whose
 * buddies are most used. A reserved node is taken only by work that ends
 * (end) by its shadow time. 1 found, 0 none. */
int ar_pack_find(const struct ar_inv *inv, int k, int use_pref, double end,
	struct ar_place *p);
/* The same on one node, whatever its off and reserved marks say. */
int ar_pack_find_on(const struct ar_inv *inv, size_t node, int k,
	struct ar_place *p);
void ar_pack_take(struct ar_inv *inv, const struct ar_place *p, double until);
void ar_pack_release(struct ar_inv *inv, size_t node, uint64_t mask);
/* Reserves, for a bundle of k that fits nowhere now, the node whose block
 * frees soonest (the emptiest among equals), among the nodes not reserved
 * yet. 1 with *node and *when, 0 when no node is left big enough. */
int ar_pack_reserve(struct ar_inv *inv, int k, double now, size_t *node,
	double *when);
void ar_pack_unreserve(struct ar_inv *inv);
/* Where ar-run puts a bundle of k on one node: on the slots want names
 * (nwant ids) when there are k of them, all on the node and free; else on
 * the block ar_pack_find_on finds, for k = 1, 2, 4 or 8 once indexed;
 * else on the first free block of k positions, aligned on k when k is a
 * power of two. 1 with the place and its k slot ids in ids (want's order,
 * else the positions'), 0 when none is free. */
int ar_pack_choose_on(const struct ar_inv *inv, size_t node, int k,
	const int *want, size_t nwant, struct ar_place *p, int *ids);
/* Slot ids of a placed bundle, comma-separated, into out. */
void ar_place_ids(const struct ar_inv *inv, const struct ar_place *p,
	char *out, size_t n);

#endif
