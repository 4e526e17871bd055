/* segseal.h: what a ledger segment's seal (seg/NNNNNNNN.seal, written
 * by ar-ledger) says of the segment's bytes, for readers other than
 * ar-ledger: ar-sched takes a segment's hash from it. */
#ifndef AR_SEGSEAL_H
#define AR_SEGSEAL_H

#include <stddef.h>
#include <sys/stat.h>

#include "buf.h"
#include "crypto.h"

struct ar_segseal {
	unsigned long segment;
	long long tsv_size;
	char tsv_hash[AR_HASH_HEX];
	const char *stat;           /* the stat line signed, in the bytes */
	size_t statlen;             /* without its time and newline */
	long long sealed_at;        /* seconds since 1970 */
};

/* The stat line a seal signs for a segment file: device, inode, size,
 * mtime and ctime, what a change through the file system cannot leave
 * as it was. */
void ar_segseal_stat(const struct stat *st, char *out, size_t n);
/* Reads a seal's bytes: 0 when its signature by pk holds and its lines
 * are well formed (s points into p), else -1. */
int ar_segseal_parse(const char *p, size_t n,
	const unsigned char pk[AR_PK_BYTES], struct ar_segseal *s);
/* The seal beside segpath, signed by pk and for its segment number,
 * into s (pointing into b, which the caller frees); -1 when there is no
 * such seal. Whether the segment is still the file it signs is the
 * caller's to check: its size and hash (tsv_size, tsv_hash). */
int ar_segseal_read(const char *segpath, const unsigned char pk[AR_PK_BYTES],
	struct ar_segseal *s, struct ar_buf *b);
/* The BLAKE2b hash of a segment's bytes as its seal signs it, into th,
 * when the seal beside segpath is signed by pk for the segment file as
 * it is now (its stat line, signed a second or more after the ctime in
 * it); its stat in *st. Else -1: then only hashing the file tells. */
int ar_segseal_hash(const char *segpath, const unsigned char pk[AR_PK_BYTES],
	char th[AR_HASH_HEX], struct stat *st);

#endif
