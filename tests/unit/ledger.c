/* ledger.c: unit tests of lib/ledger: storing results as loose files
 * (stored, the same again, a clash, refused), batches into segments,
 * scanning in storage order, a frozen view, and compaction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "io.h"
#include "json.h"
#include "ledger.h"
#include "unit.h"

static json_t *
rec(const char *id, int x)
{
	return json_pack("{s:s, s:i, s:{s:f}}", "id", id, "x", x, "metrics",
	    "t", 1.5);
}

/* Each row as "id@src-kind:lineno;" (src-kind "seg" or "loose"). */
static int
seen(const struct ar_row *r, void *arg)
{
	struct ar_buf *b = arg;
	char err[256];
	json_t *j = r->json ? ar_json_parse(r->json, r->jsonlen, err,
	    sizeof err) : NULL;

	ar_buf_printf(b, "%s@%s:%zu%s;", j ? json_string_value(json_object_get(j,
	    "id")) : "?", r->ncol ? "seg" : "loose", r->lineno, r->bad ?
	    " bad" : "");
	json_decref(j);
	return 0;
}

static int
stop_at_first(const struct ar_row *r, void *arg)
{
	(void)r;
	++*(int *)arg;
	return 7;
}

static void
store(void)
{
	char *dir = unit_tmpdir(), err[512], *t, *p;
	struct ar_ledger l;
	struct ar_buf b = {0};
	struct stat st;
	json_t *r;

	OK(ar_ledger_open(&l, dir, 0, err, sizeof err) == -1 && strstr(err,
	    ": not a ledger (no results/)"), "open: not a ledger");
	ar_ledger_close(&l);
	OK(ar_ledger_open(&l, dir, 1, err, sizeof err) == 0 && unit_exists(dir,
	    "results") && unit_exists(dir, "seg") && l.nseg == 0, "open: "
	    "create makes results/ and seg/");
	r = rec("r1", 1);
	OK(ar_ledger_store(&l, r) == 0, "store: stored");
	t = unit_read(dir, "results/r1.json");
	p = ar_json_canon(r);
	OK(t && strncmp(t, p, strlen(p)) == 0 && strcmp(t + strlen(p), "\n") ==
	    0, "store: the canonical JSON and a newline, in results/ID.json");
	free(t);
	free(p);
	p = unit_path(dir, "results/r1.json");
	OK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0444, "store: "
	    "read-only");
	free(p);
	OK(ar_ledger_store(&l, r) == 1, "store: the same again is a no-op");
	json_decref(r);
	r = rec("r1", 2);
	OK(ar_ledger_store(&l, r) == 2, "store: the same id, other content: a "
	    "clash");
	json_decref(r);
	r = json_pack("{s:i}", "x", 1);
	errno = 0;
	OK(ar_ledger_store(&l, r) == -1 && errno == EINVAL, "store: no id");
	json_decref(r);
	r = json_pack("{s:s}", "id", "a/b");
	OK(ar_ledger_store(&l, r) == -1 && errno == EINVAL, "store: an id that "
	    "is not one");
	json_decref(r);
	r = json_pack("{s:s, s:i}", "id", "r9", "signed", 1);
	OK(ar_ledger_store(&l, r) == -1 && errno == EINVAL, "store: a reserved "
	    "key (signed)");
	json_decref(r);
	ar_buf_reserve(&b, 0);
	OK(ar_ledger_scan(&l, seen, &b, err, sizeof err) == 0 && strcmp(b.p,
	    "r1@loose:0;") == 0, "scan: the loose result");
	ar_ledger_close(&l);
	ar_buf_free(&b);
	unit_rmtree(dir);
}

static void
batches(void)
{
	char *dir = unit_tmpdir(), err[512];
	struct ar_ledger l;
	struct ar_buf b = {0};
	json_t *recs[6];
	int st[6], i, calls = 0;
	size_t merged = 99;
	struct ar_seg_made made;
	char h[AR_HASH_HEX], *segp;

	ar_ledger_open(&l, dir, 1, err, sizeof err);
	recs[5] = rec("r1", 1);
	ar_ledger_store(&l, recs[5]);
	json_decref(recs[5]);
	recs[0] = rec("r3", 1);
	recs[1] = rec("r2", 1);
	recs[2] = rec("r3", 1);
	recs[3] = rec("r1", 1);
	recs[4] = rec("r1", 5);
	recs[5] = json_pack("{s:i}", "x", 1);
	OK(ar_ledger_add_batch(&l, recs, 6, st, &made, err, sizeof err) == 0,
	    "batch: added");
	segp = unit_path(dir, "seg/00000001.tsv");
	OK(made.num == 1 && ar_hash_file(segp, h) == 0 && strcmp(h,
	    made.hash) == 0, "batch: the segment made, and the hash of the "
	    "bytes written");
	free(segp);
	OK(st[0] == 0 && st[1] == 0 && st[2] == 1 && st[3] == 1 && st[4] == 2 &&
	    st[5] == -1, "batch: stored, stored, the same twice in the batch, "
	    "the same as stored, a clash, invalid");
	for (i = 0; i < 6; i++)
		json_decref(recs[i]);
	OK(l.nseg == 1 && ar_ledger_in_segments(&l, "r2") &&
	    ar_ledger_in_segments(&l, "r3") && !ar_ledger_in_segments(&l, "r1")
	    && !ar_ledger_in_segments(&l, "r"), "batch: one segment, its ids "
	    "indexed");
	OK(!unit_exists(dir, "lock"), "batch: the lock is dropped");
	ar_buf_reserve(&b, 0);
	OK(ar_ledger_scan(&l, seen, &b, err, sizeof err) == 0 && strcmp(b.p,
	    "r2@seg:2;r3@seg:3;r1@loose:0;") == 0, "scan: segments in id order, "
	    "then loose results");
	OK(ar_ledger_scan(&l, stop_at_first, &calls, err, sizeof err) == 7 &&
	    calls == 1, "scan: stops at the first row whose call says so");
	OK(ar_ledger_compact(&l, 0, &merged, err, sizeof err) == 0 && merged ==
	    1, "compact: one loose result merged");
	OK(!unit_exists(dir, "results/r1.json") && l.nseg == 2 &&
	    ar_ledger_in_segments(&l, "r1"), "compact: into a new segment, the "
	    "loose file gone");
	ar_buf_clear(&b);
	OK(ar_ledger_scan(&l, seen, &b, err, sizeof err) == 0 && strcmp(b.p,
	    "r2@seg:2;r3@seg:3;r1@seg:2;") == 0, "scan: compacting changes "
	    "no row");
	recs[0] = rec("r1", 1);
	recs[1] = rec("r2", 2);
	OK(ar_ledger_store(&l, recs[0]) == 1 && ar_ledger_store(&l, recs[1]) ==
	    2 && !unit_exists(dir, "results/r1.json"), "store: ids in "
	    "segments are found there");
	json_decref(recs[0]);
	json_decref(recs[1]);
	OK(ar_ledger_compact(&l, 0, &merged, err, sizeof err) == 0 && merged ==
	    0 && l.nseg == 2, "compact: nothing loose, no segment");
	ar_ledger_close(&l);
	ar_buf_free(&b);
	unit_rmtree(dir);
}

static void
compact_bad(const char *dir)
{
	struct ar_ledger l;
	char err[512];
	size_t merged = 0;
	int r;

	ar_ledger_open(&l, dir, 0, err, sizeof err);
	r = ar_ledger_compact(&l, 0, &merged, err, sizeof err);
	ar_ledger_close(&l);
	_exit(r == 0 && merged == 1 ? 0 : 1);
}

static void
left(void)
{
	char *dir = unit_tmpdir(), err[512], *e;
	struct ar_ledger l;
	json_t *r = rec("good", 1);

	ar_ledger_open(&l, dir, 1, err, sizeof err);
	ar_ledger_store(&l, r);
	json_decref(r);
	ar_ledger_close(&l);
	unit_put(dir, "results/broken.json", "{\"id\":", 0444);
	unit_put(dir, "results/other.json", "{\"id\":\"notother\"}\n", 0444);
	OK(unit_child("compact", dir, NULL, &e) == 0, "compact: merges the "
	    "good one");
	OK(e && strstr(e, "/results/broken.json: left in place: invalid JSON") &&
	    strstr(e, "/results/other.json: left in place: id does not match "
	    "the file name"), "compact: warns of what it leaves");
	free(e);
	OK(unit_exists(dir, "results/broken.json") && unit_exists(dir,
	    "results/other.json") && !unit_exists(dir, "results/good.json"),
	    "compact: the bad ones left in place");
	unit_rmtree(dir);
}

/* A frozen view: the rows listed and read at the freeze, at each scan,
 * though a result is stored after it; a freeze that cannot list the
 * segments fails and leaves nothing to free twice. */
static void
frozen(void)
{
	char *dir = unit_tmpdir(), err[512], *seg, *gone;
	struct ar_ledger l;
	struct ar_buf a = {0}, b = {0};
	json_t *r;

	ar_ledger_open(&l, dir, 1, err, sizeof err);
	ar_ledger_store(&l, (r = rec("a", 1)));
	json_decref(r);
	OK(ar_ledger_freeze(&l, err, sizeof err) == 0, "freeze: made");
	ar_ledger_store(&l, (r = rec("b", 2)));
	json_decref(r);
	ar_ledger_scan(&l, seen, &a, err, sizeof err);
	ar_ledger_scan(&l, seen, &b, err, sizeof err);
	OK(strcmp(a.p, "a@loose:0;") == 0 && strcmp(b.p, a.p) == 0,
	    "freeze: b, stored after it, is in no scan of the view");
	ar_buf_clear(&a);
	OK(ar_ledger_freeze(&l, err, sizeof err) == 0, "freeze: again");
	ar_ledger_scan(&l, seen, &a, err, sizeof err);
	OK(strcmp(a.p, "a@loose:0;b@loose:0;") == 0, "freeze: again, b is in");
	seg = ar_path(dir, "seg");
	gone = ar_path(dir, "seg.gone");
	rename(seg, gone);
	OK(ar_ledger_freeze(&l, err, sizeof err) == -1 && strstr(err, "/seg:"),
	    "freeze: no seg/, an error that names it");
	ar_ledger_close(&l);
	rename(gone, seg);
	free(seg);
	free(gone);
	ar_buf_free(&a);
	ar_buf_free(&b);
	unit_rmtree(dir);
}

/* A lazy open lists the segments and maps no index until asked: a
 * frozen view past the last segment with no loose result needs none; a
 * loose result's freeze maps them, and its lookups find the ids. */
static void
lazy(void)
{
	char *dir = unit_tmpdir(), err[512];
	struct ar_ledger l;
	struct ar_seg_made made;
	json_t *recs[2];
	int st[2];

	ar_ledger_open(&l, dir, 1, err, sizeof err);
	recs[0] = rec("r1", 1);
	recs[1] = rec("r2", 1);
	ar_ledger_add_batch(&l, recs, 2, st, &made, err, sizeof err);
	json_decref(recs[0]);
	json_decref(recs[1]);
	ar_ledger_close(&l);
	OK(ar_ledger_open_lazy(&l, dir, err, sizeof err) == 0 && l.nseg == 1 &&
	    !l.seg[0].mapped && l.seg[0].num == 1, "lazy: listed, not mapped");
	OK(ar_ledger_needs_map(&l, 1), "lazy: unfrozen, an index may be needed");
	OK(ar_ledger_freeze(&l, err, sizeof err) == 0 && !l.seg[0].mapped &&
	    !ar_ledger_needs_map(&l, 1) && ar_ledger_needs_map(&l, 0),
	    "lazy: frozen with no loose result, past segment 1: none needed");
	OK(ar_ledger_map(&l, err, sizeof err) == 0 && l.seg[0].mapped &&
	    ar_ledger_in_segments(&l, "r2") && !ar_ledger_in_segments(&l, "r3"),
	    "lazy: mapped, its ids are found");
	ar_ledger_close(&l);
	recs[0] = rec("r3", 1);
	ar_ledger_open(&l, dir, 0, err, sizeof err);
	ar_ledger_store(&l, recs[0]);
	json_decref(recs[0]);
	ar_ledger_close(&l);
	OK(ar_ledger_open_lazy(&l, dir, err, sizeof err) == 0 &&
	    ar_ledger_freeze(&l, err, sizeof err) == 0 && !l.seg[0].mapped &&
	    l.seg[0].ranged == 1 && ar_ledger_needs_map(&l, 1),
	    "lazy: a loose result after every segment's range maps none");
	ar_ledger_close(&l);
	unit_rmtree(dir);
}

/* freeze_known's callback: "b" is held when its file is the size it was
 * stored at; the ids asked, in order, into the buffer. */
struct asked {
	struct ar_buf ids;
	off_t bsize;
};

static int
held_b(const char *id, const struct stat *st, void *arg)
{
	struct asked *a = arg;

	ar_buf_printf(&a->ids, "%s;", id);
	return strcmp(id, "b") == 0 && st->st_size == a->bsize;
}

/* Each row as "id:known;" or "id:read;", known rows by their file's
 * name. */
static int
seen_known(const struct ar_row *r, void *arg)
{
	const char *b = strrchr(r->src, '/');

	ar_buf_printf(arg, "%.*s:%s;", (int)strcspn(b + 1, "."), b + 1,
	    r->known ? (r->json ? "known with json" : "known") : r->json ?
	    "read" : "none");
	return 0;
}

static void
frozen_known(void)
{
	char *dir = unit_tmpdir(), err[512], *bp;
	struct ar_ledger l;
	struct asked a;
	struct ar_buf b = {0};
	struct stat st;
	size_t merged;
	json_t *r;

	memset(&a, 0, sizeof a);
	ar_ledger_open(&l, dir, 1, err, sizeof err);
	ar_ledger_store(&l, (r = rec("a", 1)));
	json_decref(r);
	ar_ledger_store(&l, (r = rec("b", 2)));
	json_decref(r);
	ar_ledger_store(&l, (r = rec("c", 3)));
	json_decref(r);
	bp = ar_path(dir, "results/b.json");
	stat(bp, &st);
	a.bsize = st.st_size;
	OK(ar_ledger_freeze_known(&l, held_b, &a, 0, err, sizeof err) == 0 &&
	    strcmp(a.ids.p, "a;b;c;") == 0, "freeze_known: each loose "
	    "result asked, in order");
	ar_ledger_scan(&l, seen_known, &b, err, sizeof err);
	OK(strcmp(b.p, "a:read;b:known;c:read;") == 0, "freeze_known: b "
	    "known and not read");
	/* Its file gone after the freeze: still given as known (the view
	 * was frozen with it). */
	unlink(bp);
	ar_buf_clear(&b);
	ar_ledger_scan(&l, seen_known, &b, err, sizeof err);
	OK(strcmp(b.p, "a:read;b:known;c:read;") == 0, "freeze_known: the "
	    "view holds");
	/* Gone at the freeze: not asked. */
	ar_buf_clear(&a.ids);
	OK(ar_ledger_freeze_known(&l, held_b, &a, 0, err, sizeof err) == 0 &&
	    strcmp(a.ids.p, "a;c;") == 0, "freeze_known: a file gone is not "
	    "asked");
	ar_ledger_close(&l);
	/* Compacted into a segment: in no scan as loose, and not asked. */
	ar_ledger_open(&l, dir, 0, err, sizeof err);
	ar_ledger_store(&l, (r = rec("b", 2)));
	json_decref(r);
	ar_ledger_compact(&l, 0, &merged, err, sizeof err);
	ar_buf_clear(&a.ids);
	OK(ar_ledger_freeze_known(&l, held_b, &a, 0, err, sizeof err) == 0 &&
	    merged == 3 && (!a.ids.p || !a.ids.p[0]), "freeze_known: none "
	    "loose, none asked");
	ar_ledger_close(&l);
	free(bp);
	ar_buf_free(&a.ids);
	ar_buf_free(&b);
	unit_rmtree(dir);
}

static int
held_all(const char *id, const struct stat *st, void *arg)
{
	(void)id;
	(void)st;
	(void)arg;
	return 1;
}

/* A reader that vouches up to segment 1: its index is not read, and a
 * held result is looked up only in the later segments. */
static void
frozen_known_upto(void)
{
	char *dir = unit_tmpdir(), err[512];
	struct ar_ledger l;
	struct ar_seg_made made;
	struct ar_buf b = {0}, keep = {0};
	json_t *recs[2], *r;
	char *rp;
	size_t merged = 0;
	int st[2];
	struct asked none = { {0}, -1 };

	ar_ledger_open(&l, dir, 1, err, sizeof err);
	recs[0] = rec("r1", 1);
	recs[1] = rec("r2", 1);
	ar_ledger_add_batch(&l, recs, 2, st, &made, err, sizeof err);
	json_decref(recs[0]);
	json_decref(recs[1]);
	ar_ledger_store(&l, (r = rec("r5", 5)));
	json_decref(r);
	ar_ledger_close(&l);
	OK(ar_ledger_open_lazy(&l, dir, err, sizeof err) == 0 &&
	    ar_ledger_freeze_known(&l, held_all, NULL, 1, err, sizeof err) ==
	    0 && l.nseg == 1 && !l.seg[0].mapped && !ar_ledger_needs_map(&l,
	    1), "freeze_known upto: held, the earlier index not read");
	ar_ledger_scan_after(&l, 1, seen_known, &b, err, sizeof err);
	OK(b.p && strcmp(b.p, "r5:known;") == 0, "freeze_known upto: given "
	    "as known");
	ar_ledger_close(&l);
	/* Not held: looked up in every index. */
	ar_buf_clear(&b);
	OK(ar_ledger_open_lazy(&l, dir, err, sizeof err) == 0 &&
	    ar_ledger_freeze_known(&l, held_b, &none, 1, err, sizeof err) ==
	    0 && !l.seg[0].mapped && l.seg[0].ranged ==
	    1 && ar_ledger_needs_map(&l, 1), "freeze_known upto: one not held "
	    "is looked up in every segment's range");
	ar_ledger_close(&l);
	/* A later segment holds the same id (a compaction that died before
	 * it removed the file): found there, not given as loose. */
	rp = ar_path(dir, "results/r5.json");
	ar_readfile(rp, &keep, 1 << 20);
	ar_ledger_open(&l, dir, 0, err, sizeof err);
	ar_ledger_store(&l, (r = rec("r6", 6)));
	json_decref(r);
	ar_ledger_compact(&l, 0, &merged, err, sizeof err);
	ar_ledger_close(&l);
	OK(merged == 2 && ar_write_atomic(rp, keep.p, keep.len, 0644) == 0,
	    "freeze_known upto: r5 compacted, its file left");
	OK(ar_ledger_open_lazy(&l, dir, err, sizeof err) == 0 &&
	    ar_ledger_freeze_known(&l, held_all, NULL, 1, err, sizeof err) ==
	    0 && l.nseg == 2 && !l.seg[0].mapped && l.seg[1].mapped,
	    "freeze_known upto: only the later index read");
	ar_buf_clear(&b);
	ar_ledger_scan_after(&l, 1, seen_known, &b, err, sizeof err);
	OK(b.p && strcmp(b.p, "00000002:read;00000002:read;") == 0,
	    "freeze_known upto: in a later segment, not loose");
	ar_ledger_close(&l);
	ar_buf_free(&b);
	ar_buf_free(&keep);
	ar_buf_free(&none.ids);
	free(rp);
	unit_rmtree(dir);
}

/* Ranges read by two short reads: a lookup outside every segment's maps
 * nothing; one inside a range maps that segment's index alone. */
static void
ranges(void)
{
	char *dir = unit_tmpdir(), err[512];
	struct ar_ledger l;
	struct ar_seg_made made;
	json_t *recs[2];
	int st[2];

	ar_ledger_open(&l, dir, 1, err, sizeof err);
	recs[0] = rec("r1", 1);
	recs[1] = rec("r2", 1);
	ar_ledger_add_batch(&l, recs, 2, st, &made, err, sizeof err);
	json_decref(recs[0]);
	json_decref(recs[1]);
	recs[0] = rec("r5", 1);
	recs[1] = rec("r6", 1);
	ar_ledger_add_batch(&l, recs, 2, st, &made, err, sizeof err);
	json_decref(recs[0]);
	json_decref(recs[1]);
	ar_ledger_close(&l);
	OK(ar_ledger_open_lazy(&l, dir, err, sizeof err) == 0 && l.nseg == 2 &&
	    ar_ledger_prepare(&l, 0, "r9", "r9", err, sizeof err) == 0 &&
	    !l.seg[0].mapped && !l.seg[1].mapped && l.seg[0].ranged == 1 &&
	    strcmp(l.seg[0].rlo, "r1") == 0 && strcmp(l.seg[0].rhi, "r2") ==
	    0 && strcmp(l.seg[1].rlo, "r5") == 0 && strcmp(l.seg[1].rhi,
	    "r6") == 0, "ranges: read, nothing mapped");
	OK(!ar_ledger_in_segments(&l, "r9") && !ar_ledger_in_segments(&l,
	    "r0") && !ar_ledger_in_segments(&l, "r3") && !l.seg[0].mapped &&
	    !l.seg[1].mapped, "ranges: ids outside them, no map");
	OK(ar_ledger_prepare(&l, 0, "r2", "r2", err, sizeof err) == 0 &&
	    l.seg[0].mapped && !l.seg[1].mapped && ar_ledger_in_segments(&l,
	    "r2") && !ar_ledger_in_segments(&l, "r21"), "ranges: the "
	    "segment whose range meets them is mapped");
	OK(ar_ledger_prepare(&l, 1, "r5", "r5", err, sizeof err) == 0 &&
	    !l.seg[1].mapped, "ranges: up to segment 1 only");
	ar_ledger_close(&l);
	unit_rmtree(dir);
}

const struct unit_test unit_ledger[] = {
	TEST(lazy),
	TEST(frozen),
	TEST(frozen_known),
	TEST(frozen_known_upto),
	TEST(ranges),
	TEST(store),
	TEST(batches),
	TEST(left),
	CHILD("compact", compact_bad),
	UNIT_END,
};
