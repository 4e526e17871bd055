/* tree.h: directory trees, as ar-bench materializes methods. */
#ifndef AR_TREE_H
#define AR_TREE_H

#include <stddef.h>
#include <sys/types.h>
#include "crypto.h"

struct ar_entry {
	char *path;          /* relative to the tree's root */
	mode_t mode;
	off_t size;
	char hash[AR_HASH_HEX]; /* files: content; links: target */
	char *link;          /* a symbolic link's target */
};
struct ar_tree {
	size_t n, cap;
	struct ar_entry *e;  /* sorted by path; ".git" at the top left out */
};
int ar_tree_list(const char *root, struct ar_tree *t, char *err,
	size_t errlen);
/* The same; without hash, files are only listed (their hash is ""). */
int ar_tree_scan(const char *root, struct ar_tree *t, int hash, char *err,
	size_t errlen);
const struct ar_entry *ar_tree_find(const struct ar_tree *t,
	const char *path);
void ar_tree_free(struct ar_tree *t);
/* BLAKE2b-256 of the lines "MODE HASH\tPATH" of every file and link,
 * MODE as git writes it: a directory method's content hash. */
void ar_tree_hash(const struct ar_tree *t, char out[AR_HASH_HEX]);
/* Copies a tree; files become owner-writable (a sealed copy is not). */
int ar_tree_copy(const char *src, const char *dst, char *err, size_t errlen);
int ar_tree_copy_entry(const char *src, const char *dst,
	const struct ar_entry *e, char *err, size_t errlen);
/* Removes path and all below it; with keep_top only what it holds. */
int ar_rm_rf(const char *path, int keep_top);

#endif
