/* known.h: the loose results a reader of the ledger holds already, each
 * by its id and the identity of its file when the reader last took it
 * (ar-ledger export -K; ar-sched next keeps them folded). The list is
 * text, one result a line:
 *   ID \t INODE \t SIZE \t MTIME \t CTIME \n
 * the times as seconds.nanoseconds (9 digits). */
#ifndef AR_KNOWN_H
#define AR_KNOWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "buf.h"
#include "id.h"

struct ar_known {
	char id[AR_ID_MAX + 1];
	uint64_t ino, size;
	int64_t mt, mtn, ct, ctn;
};

/* Parses a list: 0 with *out (malloc'd, sorted by id) and *n, or -1
 * with err ("line N: reason") and nothing held. An id twice is an
 * error: the list names each file once. */
int ar_known_parse(const char *p, size_t len, struct ar_known **out,
	size_t *n, char *err, size_t errlen);
/* The entry of id for the file of stat st. */
void ar_known_of(struct ar_known *k, const char *id, const struct stat *st);
/* Appends the line of an entry. */
void ar_known_put(struct ar_buf *b, const struct ar_known *k);
/* The entry of id in a parsed list, or NULL. */
const struct ar_known *ar_known_find(const struct ar_known *k, size_t n,
	const char *id);
/* Whether st is the file as the entry took it: same inode, size, mtime
 * and ctime. Any rewrite (a rename over it, a write, a chmod) changes
 * the ctime, and ar-ledger's files are renamed into place. */
int ar_known_same(const struct ar_known *k, const struct stat *st);

#endif
