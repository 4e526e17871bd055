/* hmap.h: a hash index over a caller's array. The map holds positions,
 * not elements: the array keeps the data and its order, and a lookup
 * walks the positions stored under a hash, the caller comparing keys.
 * Open addressing, grown at half full, so a walk is short. */
#ifndef AR_HMAP_H
#define AR_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct ar_hmap {
	uint32_t (*slot)[2]; /* the hash, the position + 1 (0: empty) */
	size_t cap, n;       /* cap: 0 or a power of two */
};

/* A hash of n bytes, and of a string. */
uint32_t ar_hash(const void *p, size_t n);
uint32_t ar_hash_str(const char *s);
/* The next position stored under hash h: *it starts at 0; 0 when there
 * is none left. Every position stored under h comes once, and maybe
 * others whose hash only shares bits with h. */
int ar_hmap_next(const struct ar_hmap *m, uint32_t h, size_t *it,
	size_t *pos);
/* Stores position pos (below UINT32_MAX) under hash h. */
void ar_hmap_put(struct ar_hmap *m, uint32_t h, size_t pos);
void ar_hmap_free(struct ar_hmap *m);

#endif
