/* hmap.c: a hash index over a caller's array (hmap.h). Linear probing
 * from the hash's low bits; the full 32-bit hash is kept beside each
 * position, so that a walk compares keys only where the hashes agree and
 * growing never asks the caller for a key. */
#include <stdlib.h>

#include "buf.h"
#include "err.h"
#include "hmap.h"

/* FNV-1a, then a finalizer (MurmurHash3's): FNV's low bits alone
 * cluster on keys that differ only in their last characters. */
static uint32_t
mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (uint32_t)h;
}

uint32_t
ar_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return mix(h);
}

uint32_t
ar_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return mix(h);
}

int
ar_hmap_next(const struct ar_hmap *m, uint32_t h, size_t *it, size_t *pos)
{
	size_t i;

	if (!m->cap)
		return 0;
	/* *it counts the slots walked, so a walk resumes where it left. */
	for (i = (h + *it) & (m->cap - 1); m->slot[i][1]; i = (i + 1) &
	    (m->cap - 1)) {
		++*it;
		if (m->slot[i][0] == h) {
			*pos = m->slot[i][1] - 1;
			return 1;
		}
	}
	return 0;
}

static void
place(uint32_t (*slot)[2], size_t cap, uint32_t h, uint32_t v)
{
	size_t i;

	for (i = h & (cap - 1); slot[i][1]; i = (i + 1) & (cap - 1))
		;
	slot[i][0] = h;
	slot[i][1] = v;
}

void
ar_hmap_put(struct ar_hmap *m, uint32_t h, size_t pos)
{
	if (pos >= UINT32_MAX - 1)
		ar_die(AR_EX_SOFTWARE, "hash index: more than %u elements",
		    (unsigned)(UINT32_MAX - 2));
	if (2 * (m->n + 1) > m->cap) {
		uint32_t (*old)[2] = m->slot;
		size_t oc = m->cap, i;

		m->cap = oc ? 2 * oc : 64;
		m->slot = ar_xcalloc(m->cap, sizeof *m->slot);
		for (i = 0; i < oc; i++)
			if (old[i][1])
				place(m->slot, m->cap, old[i][0], old[i][1]);
		free(old);
	}
	place(m->slot, m->cap, h, (uint32_t)(pos + 1));
	m->n++;
}

void
ar_hmap_free(struct ar_hmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}
