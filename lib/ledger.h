/* ledger.h: the result store; see ar-ledger(5). */
#ifndef AR_LEDGER_H
#define AR_LEDGER_H

#include <stddef.h>
#include <sys/stat.h>
#include <jansson.h>

struct ar_seg {
	char *path;        /* seg/NNNNNNNN.tsv */
	char *idx;         /* the mmap'd sorted id index */
	size_t idxlen;
	/* Its first and last ids: most ids fall outside a segment's range
	 * (ids start with their time), so most lookups end there. */
	size_t lolen, hioff, hilen;
	unsigned long num; /* ar_ledger_seg_number(path) */
	int mapped;        /* idx is read (ar_ledger_map) */
	/* Its first and last ids read by two short reads, not a map (1;
	 * -1 when they could not be; 0 not yet): a lookup outside them
	 * needs no map, and a thousand segments' ranges cost milliseconds
	 * where their maps cost tens. rlo and rhi are NULL for an empty
	 * index. */
	int ranged;
	char *rlo, *rhi;
	size_t rlolen, rhilen;
};
struct ar_frozen;
struct ar_ledger {
	char *dir;
	size_t nseg;
	struct ar_seg *seg;
	/* Set by ar_ledger_freeze: what every scan reads; NULL, each scan
	 * lists the ledger anew. */
	struct ar_frozen *frozen;
	int lazy;          /* opened by ar_ledger_open_lazy */
	/* Once every index is mapped: the largest last id of them all
	 * (NULL: no segment holds an id), so that an id after it, as a
	 * loose result's usually is, is in no segment at one look. */
	const char *hi;
	size_t hilen;
	int hi_set;
};
int ar_ledger_open(struct ar_ledger *l, const char *dir, int create,
	char *err, size_t errlen);
/* The same for a reader that may need no segment's index: the segments
 * are listed (an index missing from the listing is an error, as it is
 * for ar_ledger_open), and their indexes are mapped only by
 * ar_ledger_map, which the ledger's own scans and freeze call before
 * they look an id up. A decision on a ledger of a thousand segments
 * then opens none of them: each mapping is four system calls and a
 * fault or two, most of such a decision's time. */
int ar_ledger_open_lazy(struct ar_ledger *l, const char *dir, char *err,
	size_t errlen);
/* Maps every index not mapped yet; 0, or -1 with err set. */
int ar_ledger_map(struct ar_ledger *l, char *err, size_t errlen);
/* Makes exact every lookup of an id between lo and hi (line order) in
 * the segments numbered up to upto (all when 0): each segment's range is
 * read, and the index of one whose range meets [lo, hi], or whose range
 * cannot be read, is mapped. 0, or -1 with err. */
int ar_ledger_prepare(struct ar_ledger *l, unsigned long upto,
	const char *lo, const char *hi, char *err, size_t errlen);
/* Maps the indexes of the segments numbered after after. */
int ar_ledger_map_after(struct ar_ledger *l, unsigned long after, char *err,
	size_t errlen);
/* Whether a reader of the rows after segment `after` (0: all) needs the
 * indexes: a segment after it, or a loose result (any, unless frozen). */
int ar_ledger_needs_map(const struct ar_ledger *l, unsigned long after);
void ar_ledger_close(struct ar_ledger *l);
/* 1 if id is stored in a segment. */
int ar_ledger_in_segments(const struct ar_ledger *l, const char *id);
/* The number of the segment at path (seg/NNNNNNNN.tsv, numbered from 1
 * in the order they were written); 0 when path is not a segment's. */
unsigned long ar_ledger_seg_number(const char *path);
/* 1 if id is stored in a segment numbered upto or lower. */
int ar_ledger_in_segments_upto(const struct ar_ledger *l, const char *id,
	unsigned long upto);
/* Stores a record crash-safely as a loose file, then compacts when
 * enough are loose (ar_ledger_autocompact). Returns 0 stored, 1
 * already there with the same content (a no-op), 2 an id clash with other
 * content, -1 with errno (EINVAL: no valid "id", or a reserved key). */
int ar_ledger_store(struct ar_ledger *l, const json_t *rec);
/* The segment a batch made: its number (0: none, every record was
 * there already or refused) and the BLAKE2b-256 hash, in hex, of the
 * bytes written, so that a seal vouches for those and no others. */
struct ar_seg_made {
	unsigned long num;
	char hash[65];
};
/* Stores many records as one new segment, under the ledger's lock. st[i]
 * gets what ar_ledger_store would return for recs[i]; made, when not
 * NULL, the segment written. */
int ar_ledger_add_batch(struct ar_ledger *l, json_t **recs, size_t n,
	int *st, struct ar_seg_made *made, char *err, size_t errlen);
/* Calls fn for every stored record in storage order: segments, then loose
 * results not yet compacted. line is the record's JSON; cols, when the
 * record came from a segment, its stored flat columns. */
struct ar_row {
	const char *src;     /* file the row came from */
	const char *bad;     /* why the row could not be read, or NULL */
	size_t lineno;       /* line within a segment, 0 for a loose file */
	const char *json;
	size_t jsonlen;
	size_t ncol;         /* segment rows: header and fields */
	char **hdr, **field;
	/* A loose row of a frozen view (ar_ledger_freeze): json is the
	 * same bytes, at the same address, at every scan. */
	int held;
	/* A loose row the freeze's reader said it holds already
	 * (ar_ledger_freeze_known): not read, json NULL; src names it. */
	int known;
};
/* Every row, loose or in a segment, goes to fn; a row that cannot be
 * read comes with bad set, and so does a segment that cannot be read,
 * is empty or has no segment header: one bad row (line 1) for the
 * whole segment, and the scan goes on. -1 with err (and errno) when the
 * ledger's directories or an index cannot be read. */
typedef int (*ar_row_fn)(const struct ar_row *r, void *arg);
/* What fn returns, for a row of a segment, to skip the rest of that
 * segment and go on with the next (what it needed was the header). Any
 * other value but 0 stops the scan, which returns it. */
#define AR_ROW_NEXT_SEGMENT 0x7e9
int ar_ledger_scan(struct ar_ledger *l, ar_row_fn fn, void *arg,
	char *err, size_t errlen);
/* The same from the segment numbered after + 1 on: the segments up to
 * after are not read at all (ar-ledger export -A). */
int ar_ledger_scan_after(struct ar_ledger *l, unsigned long after,
	ar_row_fn fn, void *arg, char *err, size_t errlen);
/* The same, leaving out the segments for which skip (given arg) says 1:
 * their rows are not read at all (verify, of sealed segments). Loose
 * results already in a skipped segment are still left out. */
typedef int (*ar_seg_skip_fn)(const struct ar_seg *seg, void *arg);
int ar_ledger_scan_skip(struct ar_ledger *l, unsigned long after,
	ar_seg_skip_fn skip, ar_row_fn fn, void *arg, char *err,
	size_t errlen);
/* Freezes what the scans after it see, until ar_ledger_close: the loose
 * results listed once, and their bytes read once (up to
 * AR_FROZEN_BYTES in all; past it a file is read at each scan), and the
 * segments as loaded then. So that the passes of one reader (export -V:
 * its check, its columns, its rows) see the same rows, with the same
 * bytes, though a compaction or an append runs meanwhile; and a loose
 * result is read once, not once a pass. 0, or -1 with err. */
#define AR_FROZEN_BYTES ((size_t)256 << 20)
int ar_ledger_freeze(struct ar_ledger *l, char *err, size_t errlen);
/* The same, asking known, for each loose result listed and in no
 * segment, with its id and its file's stat, whether the reader holds it
 * already (1): then its file is not read, and the scans give it as a
 * row with known set. A reader of a thousand loose results that a
 * previous reading took spends a stat on each, not a read. */
typedef int (*ar_known_fn)(const char *id, const struct stat *st,
	void *arg);
/* upto, when not 0: the reader vouches that each result it holds was in
 * no segment numbered up to upto when it took it (segments are numbered
 * in the order written): such a result is looked up only in the later
 * segments, and, when it holds every loose result, only their indexes
 * are read. */
int ar_ledger_freeze_known(struct ar_ledger *l, ar_known_fn known,
	void *arg, unsigned long upto, char *err, size_t errlen);
/* Merges loose results into a new segment under a lock. Taking the
 * lock, this and ar_ledger_add_batch remove what writers that died left
 * (ar_tmp_clean on ledger/, results/ and seg/). */
int ar_ledger_compact(struct ar_ledger *l, int break_lock, size_t *merged,
	char *err, size_t errlen);
/* Loose results that make ar_ledger_store compact them: $AR_LEDGER_COMPACT
 * when it is a count (0: never), else AR_LEDGER_COMPACT_AT. */
#define AR_LEDGER_COMPACT_AT 1000
size_t ar_ledger_compact_at(void);
/* Compacts when results/ holds ar_ledger_compact_at() loose results and
 * no other writer holds the lock (it does not wait for one); quiet.
 * ar_ledger_store calls it after each new loose file, so a campaign's
 * ledger stays compact however its results arrive. 1 compacted (merged
 * set), 0 nothing to do or the lock busy, -1 a failure (nothing lost:
 * the loose files stay). */
int ar_ledger_autocompact(struct ar_ledger *l, size_t *merged);

#endif
