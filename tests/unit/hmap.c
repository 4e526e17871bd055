/* hmap.c: unit tests of lib/hmap: a hash index over a caller's array,
 * found again after growing, with colliding hashes and keys that share
 * long prefixes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "unit.h"

/* The position of key in keys[0..n) through the map; n when absent. */
static size_t
find(const struct ar_hmap *m, char **keys, size_t n, const char *key,
    uint32_t h)
{
	size_t it = 0, pos;

	while (ar_hmap_next(m, h, &it, &pos))
		if (pos < n && strcmp(keys[pos], key) == 0)
			return pos;
	return n;
}

static void
index_strings(void)
{
	struct ar_hmap m = {0};
	char **keys = calloc(20000, sizeof *keys), b[64];
	size_t i, bad = 0;

	OK(find(&m, keys, 0, "x", ar_hash_str("x")) == 0, "an empty map finds "
	    "nothing");
	for (i = 0; i < 20000; i++) {
		/* Long shared prefixes: only the last digits differ. */
		snprintf(b, sizeof b, "20261126T000000.000000Z-%016zx", i);
		keys[i] = strdup(b);
		ar_hmap_put(&m, ar_hash_str(keys[i]), i);
	}
	OK(m.n == 20000 && m.cap >= 40000, "grown at half full: %zu in %zu",
	    m.n, m.cap);
	for (i = 0; i < 20000; i++)
		if (find(&m, keys, 20000, keys[i], ar_hash_str(keys[i])) != i)
			bad++;
	OK(bad == 0, "every key found at its position (%zu not)", bad);
	OK(find(&m, keys, 20000, "20261126T000000.000000Z-", ar_hash_str(
	    "20261126T000000.000000Z-")) == 20000, "a prefix is not a key");
	OK(ar_hash("ab", 2) == ar_hash_str("ab") && ar_hash("ab", 1) !=
	    ar_hash_str("ab"), "ar_hash of a string's bytes is ar_hash_str");
	for (i = 0; i < 20000; i++)
		free(keys[i]);
	free(keys);
	ar_hmap_free(&m);
	OK(m.slot == NULL && m.n == 0 && m.cap == 0, "free empties it");
}

/* Every position stored under one hash comes back, each once: a caller
 * keeps colliding keys apart by its own comparison. */
static void
same_hash(void)
{
	struct ar_hmap m = {0};
	size_t i, it = 0, pos, seen = 0, once = 1;
	char got[300] = {0};

	for (i = 0; i < 300; i++)
		ar_hmap_put(&m, 7, i);
	ar_hmap_put(&m, 8, 1000);
	while (ar_hmap_next(&m, 7, &it, &pos)) {
		if (pos >= 300 || got[pos]++)
			once = 0;
		seen++;
	}
	OK(seen == 300 && once, "300 positions under one hash, each once "
	    "(%zu)", seen);
	it = 0;
	OK(ar_hmap_next(&m, 8, &it, &pos) && pos == 1000 &&
	    !ar_hmap_next(&m, 8, &it, &pos), "a hash past the cluster");
	it = 0;
	OK(!ar_hmap_next(&m, 9, &it, &pos) || pos != 1000, "a hash never "
	    "stored finds no position of its own");
	ar_hmap_free(&m);
}

const struct unit_test unit_hmap[] = {
	TEST(index_strings),
	TEST(same_hash),
	UNIT_END,
};
