/* spool.h: maildir-style spools: tmp/ new/ cur/ done/ failed/ why/. A
 * record is one file named PRIO-ORDER-ID: PRIO is 1000000 - priority in 7
 * digits, ORDER a fresh time-ordered id, so names sort by priority, then
 * age, whatever the record's own id. A claim renames new/NAME to
 * cur/NAME@EXPIRY@HOLDER, so the lease lives in the name and every state
 * change is one rename(2). Beside the states, arrivals (a token replaced
 * whenever a record enters new/) and next (the smallest names of new/ as
 * a claimer last saw them) let one claim skip reading all of new/. */
#ifndef AR_SPOOL_H
#define AR_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include <time.h>
#include "id.h"

#define AR_SPOOL_NAME (7 + 1 + 40 + 1 + AR_ID_MAX + 1)
enum { AR_SP_OK = 0, AR_SP_GONE = 1, AR_SP_ERR = -1 };
int ar_spool_init(const char *dir);
/* Checks that dir is a spool; -1 with errno otherwise. */
int ar_spool_check(const char *dir);
/* Durably delivers a record into new/; its file name is derived from prio
 * and id, with a fresh order id, so a record is never refused: it does not
 * look for the id elsewhere in the spool (that would read every state).
 * A caller that must not queue an id twice checks first, as ar-queue put
 * does. AR_SP_ERR with errno when it cannot be written. */
int ar_spool_put(const char *dir, const char *id, long prio,
	const char *data, size_t len);
/* One record of a batch put. */
struct ar_spool_rec {
	const char *id;
	long prio;
	const char *data;
	size_t len;
};
/* Delivers n records into new/ durably with one sync for all of them:
 * each is written to tmp/, the filesystem is synced once, then each is
 * linked into new/ and new/ is synced once. A record is never in new/
 * before its data is durable, so claimers see only whole records, and a
 * crash at any instant leaves only whole records and tmp/ leftovers
 * (reap removes them). *stored gets how many records, from the first,
 * are delivered and durable; on AR_SP_ERR (errno) or AR_SP_GONE (a name
 * exists already) recs[*stored] is the one that failed and none after it
 * is stored. */
int ar_spool_put_batch(const char *dir, const struct ar_spool_rec *recs,
	size_t n, size_t *stored);
/* A batch of at least AR_SPOOL_MANIFEST_MIN records also leaves
 * batch/NAME (NAME: its first record's), a manifest of every record's
 * name, inode and bytes in one file, so that a reader of many records
 * reads one file, not each. It is not synced: a reader takes a record
 * from it only when the name and inode match an entry it listed (the
 * spool never rewrites a record), and reads the record's own file when
 * the manifest is torn or gone. reap removes a manifest once none of its
 * records is in new/ or cur/. */
#define AR_SPOOL_MANIFEST_MIN 64
struct ar_spool_ment {
	const char *name, *data;
	uint64_t ino;
	size_t len;
};
struct ar_spool_man {
	struct ar_spool_ment *e;
	size_t n, cap;
	char **buf;                  /* the files read: e points into them */
	size_t nbuf;
	struct ar_hmap map;
};
/* Loads every whole manifest of the spool (none: an empty m); -1 with
 * errno when batch/ cannot be listed. */
int ar_spool_man_load(const char *dir, struct ar_spool_man *m);
/* The bytes of the record named name (no lease) with that inode, or NULL. */
const char *ar_spool_man_get(const struct ar_spool_man *m, const char *name,
	uint64_t ino, size_t *len);
void ar_spool_man_free(struct ar_spool_man *m);
/* Writes the manifest of the n records of recs that put_batch linked
 * as dst (their paths in new/), their inodes ino; nothing when it cannot
 * (errno kept). */
void ar_spool_man_put(const char *dir, const struct ar_spool_rec *recs,
	char *const *dst, const uint64_t *ino, size_t n);
/* Removes the manifests of which no record is in new/ or cur/ any more;
 * one it cannot parse is left alone. */
void ar_spool_man_prune(const char *dir);
/* Lists a subdirectory's entries (dot files skipped), sorted. */
int ar_spool_list(const char *dir, const char *sub, char ***names, size_t *n);
void ar_spool_free_list(char **names, size_t n);
struct ar_lease {
	char name[AR_SPOOL_NAME];   /* the record's name in new/ */
	char id[AR_ID_MAX + 1];
	long prio;
	long long expires;          /* seconds since the epoch; 0 if none */
	char holder[AR_ID_MAX + 1];
};
/* Parses "PRIO-ORDER-ID" or "PRIO-ORDER-ID@EXPIRY@HOLDER"; -1 if it is
 * neither. */
int ar_spool_parse(const char *fname, struct ar_lease *l);
void ar_spool_lease_name(char *out, size_t n, const struct ar_lease *l);
/* Claims the first record of new/ that nobody else takes first; fills l.
 * AR_SP_GONE when new/ is empty. A claim is not fsync'd: if the machine
 * dies before the rename reaches the disk, its claimer died with it and
 * the record is simply claimable again. It tries the names of the hint
 * when nothing has arrived in new/ since the hint's scan and the hint is
 * less than a second old, from the cursor its claimers keep in its
 * modification time; else it reads new/ and writes a new hint. */
int ar_spool_claim(const char *dir, const char *holder, long long expires,
	struct ar_lease *l);
/* A claimer that claims many records keeps its sorted view of new/ for
 * up to a second instead of reading the directory for every claim. */
struct ar_claimer {
	char **names;
	size_t n, pos;
	struct timespec scanned;
};
int ar_spool_claim_next(const char *dir, struct ar_claimer *c,
	const char *holder, long long expires, struct ar_lease *l);
void ar_claimer_free(struct ar_claimer *c);
/* Finds the claimed record id held by holder in cur/. AR_SP_GONE if not. */
int ar_spool_find(const char *dir, const char *id, const char *holder,
	struct ar_lease *l);
/* Moves a claimed record: to "done", "failed" or back to "new"; or renews
 * it in cur/ with a new expiry. AR_SP_GONE if the lease was lost. */
int ar_spool_finish(const char *dir, const struct ar_lease *l, const char *to);
int ar_spool_renew(const char *dir, struct ar_lease *l, long long expires);
/* Returns expired leases to new/ and removes tmp/ files older than a day;
 * counts the leases returned. */
int ar_spool_reap(const char *dir, long long now, size_t *returned);
/* The path of a record in a state directory, malloc'd. */
char *ar_spool_path(const char *dir, const char *sub, const char *fname);

#endif
