/* ledger.c: the result store. One file per appended result in results/;
 * batches and compaction write segments in seg/: a TSV file of flat
 * columns plus the signed JSON, and a sorted index of its ids. A segment
 * becomes visible by one rename; its index is renamed first; loose results
 * already in a segment are ignored, so a crash anywhere in a compaction
 * loses and duplicates nothing. Over 1,000 lines: the store, the
 * compaction and the scan share the segment's layout and its lock, and
 * each is the other's reader or writer of it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "flat.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "ledger.h"
#include "lock.h"
#include "spool.h"
#include "tsv.h"

/* Rows per segment: bounds the memory a batch or a compaction needs. */
#define SEG_ROWS 16384

static int
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && strcmp(s + n - m, suf) == 0;
}

static void
free_segments(struct ar_ledger *l)
{
	size_t i;

	for (i = 0; i < l->nseg; i++) {
		if (l->seg[i].idx && l->seg[i].idxlen)
			munmap(l->seg[i].idx, l->seg[i].idxlen);
		free(l->seg[i].path);
		free(l->seg[i].rlo);
		free(l->seg[i].rhi);
	}
	free(l->seg);
	l->seg = NULL;
	l->nseg = 0;
	l->hi = NULL;
	l->hilen = 0;
	l->hi_set = 0;
}

static void idx_range(struct ar_seg *s);
static int line_cmp(const char *line, size_t len, const char *id,
    size_t idlen);
static void ledger_hi(struct ar_ledger *l);
static void frozen_free(struct ar_frozen *f);
static int cmp_pstr(const void *a, const void *b);

/* A file mapped for reading; len 0 maps nothing. */
struct map {
	char *p;
	size_t len;
};

static int
map_file(const char *path, struct map *m)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	m->p = NULL;
	m->len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	m->len = (size_t)st.st_size;
	if (m->len) {
		m->p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m->p == MAP_FAILED) {
			int e = errno;
			close(fd);
			m->p = NULL;
			m->len = 0;
			errno = e;
			return -1;
		}
		madvise(m->p, m->len, MADV_SEQUENTIAL);
	}
	close(fd);
	return 0;
}

static void
unmap_file(struct map *m)
{
	if (m->p)
		munmap(m->p, m->len);
	m->p = NULL;
	m->len = 0;
}

/* Maps the segment's index; 0, or -1 with err set. */
static int
map_index(struct ar_seg *s, char *err, size_t errlen)
{
	char *ip = ar_xasprintf("%.*s.idx", (int)(strlen(s->path) - 4),
	    s->path);
	struct map m;

	if (map_file(ip, &m) < 0) {
		snprintf(err, errlen, "%s: %s", ip, strerror(errno));
		free(ip);
		return -1;
	}
	free(ip);
	/* Looked up here and there, not read through. */
	if (m.len)
		madvise(m.p, m.len, MADV_NORMAL);
	s->idx = m.p;
	s->idxlen = m.len;
	idx_range(s);
	s->mapped = 1;
	return 0;
}

static int
load_segments(struct ar_ledger *l, char *err, size_t errlen)
{
	char *sd = ar_path(l->dir, "seg"), **names;
	size_t n, i;

	free_segments(l);
	if (ar_spool_list(l->dir, "seg", &names, &n) < 0) {
		snprintf(err, errlen, "%s: %s", sd, strerror(errno));
		free(sd);
		return -1;
	}
	/* Sorted, so that a lazy open finds each index in the listing. */
	ar_sort(names, n, sizeof *names, cmp_pstr);
	l->seg = ar_xmalloc((n ? n : 1) * sizeof *l->seg);
	for (i = 0; i < n; i++) {
		struct ar_seg *s;

		if (!has_suffix(names[i], ".tsv"))
			continue;
		s = &l->seg[l->nseg++];
		memset(s, 0, sizeof *s);
		s->path = ar_path(sd, names[i]);
		s->num = ar_ledger_seg_number(s->path);
		if (l->lazy) {
			size_t len = strlen(names[i]);
			char *in = ar_xasprintf("%.*s.idx", (int)(len - 4),
			    names[i]);
			int have = bsearch(&in, names, n, sizeof *names,
			    cmp_pstr) != NULL;

			if (!have)
				snprintf(err, errlen, "%s/%s: %s", sd, in,
				    strerror(ENOENT));
			free(in);
			if (!have)
				goto fail;
		} else if (map_index(s, err, errlen) < 0)
			goto fail;
	}
	if (!l->lazy)
		ledger_hi(l);
	ar_spool_free_list(names, n);
	free(sd);
	return 0;
fail:
	ar_spool_free_list(names, n);
	free(sd);
	return -1;
}

int
ar_ledger_map(struct ar_ledger *l, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < l->nseg; i++)
		if (!l->seg[i].mapped && map_index(&l->seg[i], err, errlen) < 0)
			return -1;
	ledger_hi(l);
	return 0;
}

int
ar_ledger_map_after(struct ar_ledger *l, unsigned long after, char *err,
    size_t errlen)
{
	size_t i;

	for (i = 0; i < l->nseg; i++)
		if (l->seg[i].num > after && !l->seg[i].mapped &&
		    map_index(&l->seg[i], err, errlen) < 0)
			return -1;
	return 0;
}

/* Reads the index's first and last lines (see struct ar_seg); 0, or -1
 * when they cannot be read so (the index is then mapped instead). */
#define RANGE_READ 512
static int
seg_range(struct ar_seg *s)
{
	char head[RANGE_READ], tail[RANGE_READ], *ip;
	const char *nl;
	struct stat st;
	ssize_t nh, nt;
	size_t end, b;
	int fd;

	if (s->ranged)
		return s->ranged > 0 ? 0 : -1;
	s->ranged = -1;
	ip = ar_xasprintf("%.*s.idx", (int)(strlen(s->path) - 4), s->path);
	fd = open(ip, O_RDONLY | O_CLOEXEC);
	free(ip);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		s->ranged = 1;
		return 0;
	}
	nh = pread(fd, head, sizeof head, 0);
	nt = st.st_size > RANGE_READ ? pread(fd, tail, sizeof tail,
	    st.st_size - RANGE_READ) : nh;
	close(fd);
	if (nh <= 0 || nt <= 0)
		return -1;
	if (st.st_size <= RANGE_READ)
		memcpy(tail, head, (size_t)nh);
	/* Each line whole within the bytes read, as idx_range reads them
	 * in a map; a line longer than that is left to the map. */
	nl = memchr(head, '\n', (size_t)nh);
	if (!nl && (off_t)nh < st.st_size)
		return -1;
	end = (size_t)nt;
	if (tail[end - 1] == '\n')
		end--;
	for (b = end; b > 0 && tail[b - 1] != '\n'; b--)
		;
	if (b == 0 && st.st_size > RANGE_READ)
		return -1;
	s->rlolen = nl ? (size_t)(nl - head) : (size_t)nh;
	s->rlo = ar_xmalloc(s->rlolen + 1);
	memcpy(s->rlo, head, s->rlolen);
	s->rlo[s->rlolen] = '\0';
	s->rhilen = end - b;
	s->rhi = ar_xmalloc(s->rhilen + 1);
	memcpy(s->rhi, tail + b, s->rhilen);
	s->rhi[s->rhilen] = '\0';
	s->ranged = 1;
	return 0;
}

int
ar_ledger_prepare(struct ar_ledger *l, unsigned long upto, const char *lo,
    const char *hi, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < l->nseg; i++) {
		struct ar_seg *s = &l->seg[i];

		if (s->mapped || (upto && s->num > upto))
			continue;
		if (seg_range(s) == 0 && (!s->rlo || line_cmp(s->rlo,
		    s->rlolen, hi, strlen(hi)) > 0 || line_cmp(s->rhi,
		    s->rhilen, lo, strlen(lo)) < 0))
			continue;
		if (map_index(s, err, errlen) < 0)
			return -1;
	}
	if (!upto)
		ledger_hi(l);
	return 0;
}

static int
open_dir(struct ar_ledger *l, const char *dir, int create, int lazy,
    char *err, size_t errlen)
{
	const char *sub[] = { "results", "seg" };
	struct stat st;
	size_t i;
	char *p;

	memset(l, 0, sizeof *l);
	l->dir = ar_xstrdup(dir);
	l->lazy = lazy;
	for (i = 0; i < 2; i++) {
		p = ar_path(dir, sub[i]);
		if (create && ar_mkdirs(p, 0755) < 0) {
			snprintf(err, errlen, "%s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: not a ledger (no %s/)", dir,
			    sub[i]);
			free(p);
			return -1;
		}
		free(p);
	}
	return load_segments(l, err, errlen);
}

int
ar_ledger_open(struct ar_ledger *l, const char *dir, int create, char *err,
    size_t errlen)
{
	return open_dir(l, dir, create, 0, err, errlen);
}

int
ar_ledger_open_lazy(struct ar_ledger *l, const char *dir, char *err,
    size_t errlen)
{
	return open_dir(l, dir, 0, 1, err, errlen);
}

void
ar_ledger_close(struct ar_ledger *l)
{
	frozen_free(l->frozen);
	free_segments(l);
	free(l->dir);
	memset(l, 0, sizeof *l);
}

/* A line of an index against an id, as strcmp orders them. */
static int
line_cmp(const char *line, size_t len, const char *id, size_t idlen)
{
	int c = memcmp(line, id, len < idlen ? len : idlen);

	return c ? c : (len > idlen) - (len < idlen);
}

/* The segment's first and last lines, for idx_has's range check. */
static void
idx_range(struct ar_seg *s)
{
	const char *nl;
	size_t end = s->idxlen;

	s->lolen = s->hioff = s->hilen = 0;
	if (!s->idx || !s->idxlen)
		return;
	nl = memchr(s->idx, '\n', s->idxlen);
	s->lolen = nl ? (size_t)(nl - s->idx) : s->idxlen;
	if (end && s->idx[end - 1] == '\n')
		end--;
	s->hioff = end;
	while (s->hioff > 0 && s->idx[s->hioff - 1] != '\n')
		s->hioff--;
	s->hilen = end - s->hioff;
}

/* The largest of the segments' last ids, all of them mapped. */
static void
ledger_hi(struct ar_ledger *l)
{
	size_t i;

	l->hi = NULL;
	l->hilen = 0;
	l->hi_set = 0;
	for (i = 0; i < l->nseg; i++) {
		const struct ar_seg *s = &l->seg[i];
		const char *h = s->mapped ? s->idx + s->hioff : s->rhi;
		size_t hl = s->mapped ? s->hilen : s->rhilen;

		/* Neither mapped nor ranged: no largest id is known. */
		if (!s->mapped && s->ranged <= 0)
			return;
		if (!h || !hl)
			continue;
		if (!l->hi || line_cmp(h, hl, l->hi, l->hilen) > 0) {
			l->hi = h;
			l->hilen = hl;
		}
	}
	l->hi_set = 1;
}

/* Whether id is after every segment's last id (ledger_hi): then in none. */
static int
after_all(const struct ar_ledger *l, const char *id)
{
	return l->hi_set && (!l->hi || line_cmp(l->hi, l->hilen, id,
	    strlen(id)) < 0);
}

/* Binary search over the sorted lines of an index, after a look at its
 * range. */
static int
idx_has(const struct ar_seg *s, const char *id)
{
	const char *idx;
	size_t lo = 0, hi, idlen = strlen(id);

	/* Outside the range read without a map: not there. */
	if (!s->mapped && s->ranged > 0 && (!s->rlo || line_cmp(s->rlo,
	    s->rlolen, id, idlen) > 0 || line_cmp(s->rhi, s->rhilen, id,
	    idlen) < 0))
		return 0;
	/* Every path to here maps first (ar_ledger_map, ar_ledger_prepare);
	 * this is the guard for one that did not: an index it cannot map
	 * has no id. */
	if (!s->mapped) {
		char err[1];

		if (map_index((struct ar_seg *)s, err, sizeof err) < 0)
			return 0;
	}
	idx = s->idx;
	hi = s->idxlen;

	if (!idx || line_cmp(idx, s->lolen, id, idlen) > 0 ||
	    line_cmp(idx + s->hioff, s->hilen, id, idlen) < 0)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, start = mid, end;
		int c;

		while (start > lo && idx[start - 1] != '\n')
			start--;
		end = start;
		while (end < hi && idx[end] != '\n')
			end++;
		c = line_cmp(idx + start, end - start, id, idlen);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = end + 1;
		else
			hi = start;
	}
	return 0;
}

static int
seg_of(const struct ar_ledger *l, const char *id)
{
	size_t i;

	if (after_all(l, id))
		return -1;
	for (i = 0; i < l->nseg; i++)
		if (idx_has(&l->seg[i], id))
			return (int)i;
	return -1;
}

int
ar_ledger_in_segments(const struct ar_ledger *l, const char *id)
{
	return seg_of(l, id) >= 0;
}

unsigned long
ar_ledger_seg_number(const char *path)
{
	const char *b = strrchr(path, '/');
	char *end;
	unsigned long v;

	b = b ? b + 1 : path;
	if (strspn(b, "0123456789") != 8 || strcmp(b + 8, ".tsv") != 0)
		return 0;
	v = strtoul(b, &end, 10);
	return v;
}

/* Whether a segment numbered after upto holds id. */
static int
in_segments_after(const struct ar_ledger *l, const char *id,
    unsigned long upto)
{
	size_t i;

	for (i = 0; i < l->nseg; i++)
		if (l->seg[i].num > upto && idx_has(&l->seg[i], id))
			return 1;
	return 0;
}

int
ar_ledger_in_segments_upto(const struct ar_ledger *l, const char *id,
    unsigned long upto)
{
	size_t i;

	if (after_all(l, id))
		return 0;
	for (i = 0; i < l->nseg; i++)
		if (l->seg[i].num <= upto && idx_has(&l->seg[i], id))
			return 1;
	return 0;
}

/* Splits a line in place at tabs without unescaping; returns the count. */
static size_t
split_raw(char *s, char **f, size_t max)
{
	size_t n = 0;

	for (;;) {
		char *t = strchr(s, '\t');

		if (n < max)
			f[n] = s;
		n++;
		if (!t)
			return n;
		*t = '\0';
		s = t + 1;
	}
}

static int
scan_segment(const char *path, ar_row_fn fn, void *arg, const char *want,
    struct ar_buf *found)
{
	struct map m;
	struct ar_buf line = {0};
	char **hdr = NULL, **field = NULL, *p, *end, *nl;
	size_t ncol = 0, lineno = 0, n, i;
	int r = 0, plain;

	if (map_file(path, &m) < 0) {
		struct ar_row row;

		/* A segment that cannot be read is one problem, reported as
		 * a bad row, as a truncated one's rows are: the scan goes
		 * on. A lookup has nothing to find in it. */
		if (want)
			return 0;
		memset(&row, 0, sizeof row);
		row.src = path;
		row.lineno = 1;
		row.bad = errno == EACCES ? "segment not readable: "
		    "permission denied" : "segment not readable";
		return fn(&row, arg);
	}
	p = m.p;
	end = m.p ? m.p + m.len : m.p;
	while (p < end) {
		struct ar_row row;
		char bad[256];

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		ar_buf_clear(&line);
		ar_buf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		lineno++;
		if (lineno == 1) {
			char *tmp[4096];

			n = split_raw(line.p, tmp, 4096);
			if (n < 3 || n > 4096 || strcmp(tmp[0], "id") != 0 ||
			    strcmp(tmp[n - 1], "json") != 0) {
				/* Its rows cannot be read without it: one bad
				 * row stands for the segment. */
				memset(&row, 0, sizeof row);
				row.src = path;
				row.lineno = 1;
				row.bad = "not a segment header; the segment's "
				    "rows not read";
				if (!want)
					r = fn(&row, arg);
				break;
			}
			ncol = n;
			hdr = ar_xmalloc(ncol * sizeof *hdr);
			field = ar_xmalloc((ncol + 1) * sizeof *field);
			for (i = 0; i < n; i++) {
				hdr[i] = ar_xstrdup(tmp[i]);
				ar_tsv_unescape(hdr[i]);
			}
			continue;
		}
		memset(&row, 0, sizeof row);
		row.src = path;
		row.lineno = lineno;
		row.hdr = hdr;
		row.ncol = ncol;
		/* A plain line (most are) is split in one pass, and has no
		 * escape to look for in its json; any other is looked at
		 * byte by byte. */
		plain = ar_tsv_split_plain(line.p, line.len, field, ncol + 1);
		if (plain < 0 && memchr(line.p, '\0', line.len)) {
			row.bad = "NUL byte in line";
		} else if ((n = plain >= 0 ? (size_t)plain : split_raw(line.p,
		    field, ncol + 1)) != ncol) {
			snprintf(bad, sizeof bad, "%zu fields, header has %zu",
			    n, ncol);
			row.bad = bad;
		} else {
			size_t jl = (size_t)(line.p + line.len - field[ncol - 1]);

			row.field = field;
			row.json = field[ncol - 1];
			/* Most rows have no escape: one memchr, not a copy
			 * byte by byte. */
			if (plain < 0 && memchr(row.json, '\\', jl)) {
				if (ar_tsv_unescape(field[ncol - 1]) < 0)
					row.bad = "unknown escape in the json "
					    "column";
				jl = strlen(row.json);
			}
			row.jsonlen = jl;
		}
		if (want) {
			if (!row.bad && strcmp(field[0], want) == 0) {
				ar_buf_add(found, row.json, row.jsonlen);
				r = 1;
				break;
			}
			continue;
		}
		if ((r = fn(&row, arg)) != 0) {
			if (r == AR_ROW_NEXT_SEGMENT)
				r = 0;
			break;
		}
	}
	if (lineno == 0 && !want) {
		struct ar_row row;

		memset(&row, 0, sizeof row);
		row.src = path;
		row.lineno = 1;
		row.bad = "empty segment";
		r = fn(&row, arg);
	}
	for (i = 0; hdr && i < ncol; i++)
		free(hdr[i]);
	free(hdr);
	free(field);
	ar_buf_free(&line);
	unmap_file(&m);
	return r;
}

/* The stored JSON of id, from a segment or a loose file. 1 if found. */
static int
lookup(const struct ar_ledger *l, const char *id, struct ar_buf *out)
{
	char *p;
	int s = seg_of(l, id);

	ar_buf_clear(out);
	if (s >= 0)
		return scan_segment(l->seg[s].path, NULL, NULL, id, out) == 1;
	p = ar_xasprintf("%s/results/%s.json", l->dir, id);
	s = ar_readfile(p, out, AR_LINE_MAX + 1) == 0;
	free(p);
	if (s && out->len && out->p[out->len - 1] == '\n')
		out->p[--out->len] = '\0';
	return s;
}

static int
valid_record(const json_t *rec, const char **id)
{
	*id = json_string_value(json_object_get(rec, "id"));
	return json_is_object(rec) && *id && ar_id_valid(*id) &&
	    !json_object_get(rec, "signed") && !json_object_get(rec, "json");
}

int
ar_ledger_store(struct ar_ledger *l, const json_t *rec)
{
	struct ar_buf old = {0};
	const char *id;
	char *canon, *p, *line;
	int r;

	if (!valid_record(rec, &id)) {
		errno = EINVAL;
		return -1;
	}
	canon = ar_json_canon(rec);
	if (lookup(l, id, &old)) {
		r = strcmp(old.p, canon) == 0 ? 1 : 2;
		free(canon);
		ar_buf_free(&old);
		return r;
	}
	ar_buf_free(&old);
	line = ar_xasprintf("%s\n", canon);
	free(canon);
	p = ar_xasprintf("%s/results/%s.json", l->dir, id);
	r = ar_write_new(p, line, strlen(line), 0444);
	free(p);
	if (r == 1) {
		/* Another writer stored the same id just now. */
		r = lookup(l, id, &old) && old.len + 1 == strlen(line) &&
		    memcmp(old.p, line, old.len) == 0 ? 1 : 2;
		ar_buf_free(&old);
	}
	free(line);
	if (r == 0) {
		size_t merged;
		int e = errno;

		/* The result is durable; merging the loose ones into a
		 * segment is upkeep, and its failure is no failure of the
		 * store: they stay loose, and are read as such. */
		(void)ar_ledger_autocompact(l, &merged);
		errno = e;
	}
	return r;
}

/* The ledger's lock, for writers of segments (lib/lock): it waits
 * AR_LOCK_WAIT seconds (30 by default) for a live holder, or no time at
 * all when nowait is set; -B breaks whatever lock it finds first.
 * 0 taken, 1 held by another, -1 a failure. */
static int
lock_as(struct ar_ledger *l, int force, int nowait, char *err, size_t errlen)
{
	char *p = ar_path(l->dir, "lock");
	const char *env = getenv("AR_LOCK_WAIT");
	struct ar_lock_opts o = { 0 };
	int r;

	o.wait_s = env && *env ? atof(env) : 30;
	if (!(o.wait_s >= 0) || nowait)
		o.wait_s = 0;
	o.force = force;
	r = ar_lock_take(p, &o, NULL, err, errlen);
	free(p);
	if (r == 0) {
		/* The holder cleans up after writers that died mid-write
		 * (kill -9): their temporary files, which no live process
		 * holds (ar_tmp_clean). Nothing depends on it succeeding. */
		static const char *const sub[] = { ".", "results", "seg" };
		size_t i;

		for (i = 0; i < 3; i++) {
			char *d = ar_path(l->dir, sub[i]);

			(void)ar_tmp_clean(d, NULL);
			free(d);
		}
	}
	return r;
}

static int
lock(struct ar_ledger *l, int force, char *err, size_t errlen)
{
	return lock_as(l, force, 0, err, errlen) == 0 ? 0 : -1;
}

static void
unlock(struct ar_ledger *l)
{
	char *p = ar_path(l->dir, "lock");

	ar_lock_drop(p, 0);
	free(p);
}

/* One row of a segment being written. */
struct segrow {
	char *id;
	char *canon;
	int is_signed;
	size_t orig;        /* its place in the caller's batch */
	struct ar_flat flat;
};

static int
cmp_segrow(const void *a, const void *b)
{
	return strcmp(((const struct segrow *)a)->id,
	    ((const struct segrow *)b)->id);
}

static int
cmp_pstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t
sort_unique(char **v, size_t n)
{
	size_t i, w = 0;

	if (n < 2)
		return n;
	ar_sort(v, n, sizeof *v, cmp_pstr);
	for (i = 0; i < n; i++)
		if (w == 0 || strcmp(v[i], v[w - 1]) != 0)
			v[w++] = v[i];
	return w;
}

/* Writes rows (sorted by id, unique, none stored yet) as the next segment:
 * index first, then the segment, each tmp, fsync, rename. */
static int
write_segment(struct ar_ledger *l, struct segrow *rows, size_t n,
    struct ar_seg_made *made, char *err, size_t errlen)
{
	struct ar_buf tsv = {0}, idx = {0};
	char **cols = NULL, *sd = ar_path(l->dir, "seg"), *sp = NULL,
	    *ip = NULL;
	size_t ncols = 0, cap = 0, i, j, k;
	unsigned long next = 1;
	int r = -1;

	/* The union of the rows' columns, sorted; deduplicated as it grows
	 * so that memory stays near the number of distinct columns. */
	for (i = 0; i < n; i++) {
		for (j = 0; j < rows[i].flat.n; j++) {
			if (strcmp(rows[i].flat.kv[j].k, "id") == 0)
				continue;
			if (ncols == cap) {
				cap = cap ? cap * 2 : 64;
				cols = ar_xrealloc(cols, cap * sizeof *cols);
			}
			cols[ncols++] = rows[i].flat.kv[j].k;
		}
		if (ncols > 65536 || i + 1 == n)
			ncols = sort_unique(cols, ncols);
	}
	if (ncols > 4000) {
		snprintf(err, errlen, "%s: more than 4000 columns in one "
		    "segment", l->dir);
		goto out;
	}
	ar_buf_adds(&tsv, "id\tsigned");
	for (k = 0; k < ncols; k++) {
		ar_buf_addc(&tsv, '\t');
		ar_tsv_escape(&tsv, cols[k]);
	}
	ar_buf_adds(&tsv, "\tjson\n");
	for (i = 0; i < n; i++) {
		struct ar_flat *f = &rows[i].flat;

		ar_buf_adds(&tsv, rows[i].id);
		ar_buf_adds(&tsv, rows[i].is_signed ? "\tyes" : "\tno");
		/* Both lists are sorted: one merge walk. */
		for (k = 0, j = 0; k < ncols; k++) {
			ar_buf_addc(&tsv, '\t');
			while (j < f->n && strcmp(f->kv[j].k, cols[k]) < 0)
				j++;
			if (j < f->n && strcmp(f->kv[j].k, cols[k]) == 0)
				ar_tsv_escape(&tsv, f->kv[j].v);
		}
		ar_buf_addc(&tsv, '\t');
		ar_tsv_escape(&tsv, rows[i].canon);
		ar_buf_addc(&tsv, '\n');
		ar_buf_adds(&idx, rows[i].id);
		ar_buf_addc(&idx, '\n');
	}
	for (i = 0; i < l->nseg; i++) {
		const char *b = strrchr(l->seg[i].path, '/') + 1;
		unsigned long v = strtoul(b, NULL, 10);

		if (v >= next)
			next = v + 1;
	}
	sp = ar_xasprintf("%s/%08lu.tsv", sd, next);
	ip = ar_xasprintf("%s/%08lu.idx", sd, next);
	if (ar_write_atomic(ip, idx.p, idx.len, 0444) < 0) {
		snprintf(err, errlen, "%s: %s", ip, strerror(errno));
		goto out;
	}
	if (ar_write_atomic(sp, tsv.p, tsv.len, 0444) < 0) {
		snprintf(err, errlen, "%s: %s", sp, strerror(errno));
		unlink(ip);
		goto out;
	}
	if (made) {
		made->num = next;
		ar_hash_hex(made->hash, tsv.p, tsv.len);
	}
	r = load_segments(l, err, errlen);
out:
	free(cols);
	free(sd);
	free(sp);
	free(ip);
	ar_buf_free(&tsv);
	ar_buf_free(&idx);
	return r;
}

static void
free_rows(struct segrow *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].id);
		free(rows[i].canon);
		ar_flat_free(&rows[i].flat);
	}
}

int
ar_ledger_add_batch(struct ar_ledger *l, json_t **recs, size_t n, int *st,
    struct ar_seg_made *made, char *err, size_t errlen)
{
	struct segrow *rows;
	struct ar_buf old = {0};
	size_t i, k, m = 0, w = 0;
	int r = 0;

	if (lock(l, 0, err, errlen) < 0)
		return -1;
	if (load_segments(l, err, errlen) < 0) {
		unlock(l);
		return -1;
	}
	rows = ar_xmalloc((n ? n : 1) * sizeof *rows);
	for (i = 0; i < n; i++) {
		const char *id;

		if (!valid_record(recs[i], &id)) {
			st[i] = -1;
			continue;
		}
		rows[m].id = ar_xstrdup(id);
		rows[m].canon = ar_json_canon(recs[i]);
		rows[m].is_signed = json_object_get(recs[i], "sig") != NULL;
		rows[m].orig = i;
		ar_flatten(recs[i], &rows[m].flat);
		m++;
	}
	/* Duplicates inside the batch, then against what is stored. */
	ar_sort(rows, m, sizeof *rows, cmp_segrow);
	for (k = 0; k < m; k++) {
		size_t o = rows[k].orig;

		if (w > 0 && strcmp(rows[w - 1].id, rows[k].id) == 0) {
			st[o] = strcmp(rows[w - 1].canon, rows[k].canon) == 0 ?
			    1 : 2;
			free_rows(&rows[k], 1);
			continue;
		}
		if (lookup(l, rows[k].id, &old)) {
			st[o] = strcmp(old.p, rows[k].canon) == 0 ? 1 : 2;
			free_rows(&rows[k], 1);
			continue;
		}
		st[o] = 0;
		rows[w++] = rows[k];
	}
	if (made)
		memset(made, 0, sizeof *made);
	if (w > 0 && write_segment(l, rows, w, made, err, errlen) < 0)
		r = -1;
	free_rows(rows, w);
	free(rows);
	ar_buf_free(&old);
	unlock(l);
	return r;
}

/* The compaction itself, under the lock, which it drops; quiet leaves
 * loose files that cannot be merged in place without a word (an
 * automatic compaction, whose caller did not ask for one). */
static int
compact_locked(struct ar_ledger *l, int quiet, size_t *merged, char *err,
    size_t errlen)
{
	char **names, *rd, *p;
	size_t n, i, start, m;
	struct ar_buf b = {0};
	int r = 0;

	*merged = 0;
	if (load_segments(l, err, errlen) < 0) {
		unlock(l);
		return -1;
	}
	rd = ar_path(l->dir, "results");
	if (ar_spool_list(l->dir, "results", &names, &n) < 0) {
		snprintf(err, errlen, "%s: %s", rd, strerror(errno));
		free(rd);
		unlock(l);
		return -1;
	}
	for (start = 0; start < n && r == 0; start += SEG_ROWS) {
		size_t end = start + SEG_ROWS < n ? start + SEG_ROWS : n;
		struct segrow *rows = ar_xmalloc((end - start) * sizeof *rows);
		char **done = ar_xmalloc((end - start) * sizeof *done);
		size_t nd = 0;

		m = 0;
		for (i = start; i < end; i++) {
			char id[AR_ID_MAX + 1], why[256];
			json_t *j;
			const char *jid;

			if (!has_suffix(names[i], ".json") ||
			    strlen(names[i]) - 5 > AR_ID_MAX)
				continue;
			snprintf(id, sizeof id, "%.*s",
			    (int)(strlen(names[i]) - 5), names[i]);
			p = ar_path(rd, names[i]);
			if (ar_ledger_in_segments(l, id)) {
				/* Left by a compaction that died after its
				 * segment was in place. */
				done[nd++] = p;
				continue;
			}
			if (ar_readfile(p, &b, AR_LINE_MAX + 1) < 0 ||
			    !(j = ar_json_parse(b.p, b.len, why, sizeof why))) {
				if (!quiet)
					ar_warn("%s: left in place: %s", p,
					    b.p ? "invalid JSON" :
					    strerror(errno));
				free(p);
				continue;
			}
			if (!valid_record(j, &jid) || strcmp(jid, id) != 0) {
				if (!quiet)
					ar_warn("%s: left in place: id does "
					    "not match the file name", p);
				json_decref(j);
				free(p);
				continue;
			}
			rows[m].id = ar_xstrdup(id);
			rows[m].canon = ar_json_canon(j);
			rows[m].is_signed = json_object_get(j, "sig") != NULL;
			ar_flatten(j, &rows[m].flat);
			json_decref(j);
			m++;
			done[nd++] = p;
		}
		ar_sort(rows, m, sizeof *rows, cmp_segrow);
		if (m > 0 && write_segment(l, rows, m, NULL, err, errlen) < 0)
			r = -1;
		if (r == 0) {
			/* The segment is durable; only now do the loose
			 * copies go. */
			for (i = 0; i < nd; i++)
				if (unlink(done[i]) < 0 && errno != ENOENT) {
					snprintf(err, errlen, "%s: %s", done[i],
					    strerror(errno));
					r = -1;
					break;
				}
			if (r == 0 && ar_fsync_dir(rd) < 0) {
				snprintf(err, errlen, "%s: %s", rd,
				    strerror(errno));
				r = -1;
			}
			*merged += m;
		}
		free_rows(rows, m);
		free(rows);
		for (i = 0; i < nd; i++)
			free(done[i]);
		free(done);
	}
	ar_spool_free_list(names, n);
	ar_buf_free(&b);
	free(rd);
	unlock(l);
	return r;
}

int
ar_ledger_compact(struct ar_ledger *l, int break_lock, size_t *merged,
    char *err, size_t errlen)
{
	*merged = 0;
	if (lock(l, break_lock, err, errlen) < 0)
		return -1;
	return compact_locked(l, 0, merged, err, errlen);
}

size_t
ar_ledger_compact_at(void)
{
	const char *e = getenv("AR_LEDGER_COMPACT");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return AR_LEDGER_COMPACT_AT;
	errno = 0;
	v = strtoull(e, &end, 10);
	/* A value that is not a count leaves the default in force. */
	if (*end || errno || e[0] == '-')
		return AR_LEDGER_COMPACT_AT;
	return (size_t)v;
}

/* Whether results/ holds at least want loose results; the listing stops
 * there, so a ledger kept compact costs one short readdir a store. */
static int
loose_at_least(const struct ar_ledger *l, size_t want)
{
	char *rd = ar_path(l->dir, "results");
	DIR *d = opendir(rd);
	struct dirent *de;
	size_t n = 0;

	free(rd);
	if (!d)
		return 0;
	while (n < want && (de = readdir(d)))
		if (de->d_name[0] != '.' && has_suffix(de->d_name, ".json"))
			n++;
	closedir(d);
	return n >= want;
}

int
ar_ledger_autocompact(struct ar_ledger *l, size_t *merged)
{
	size_t at = ar_ledger_compact_at();
	char err[1024];

	*merged = 0;
	if (at == 0 || !loose_at_least(l, at))
		return 0;
	/* Another writer holds the lock (it may be compacting now): this
	 * store does not wait for it; a later one compacts. */
	if (lock_as(l, 0, 1, err, sizeof err) != 0)
		return 0;
	return compact_locked(l, 1, merged, err, sizeof err) < 0 ? -1 : 1;
}

int
ar_ledger_scan(struct ar_ledger *l, ar_row_fn fn, void *arg, char *err,
    size_t errlen)
{
	return ar_ledger_scan_after(l, 0, fn, arg, err, errlen);
}

int
ar_ledger_scan_after(struct ar_ledger *l, unsigned long after, ar_row_fn fn,
    void *arg, char *err, size_t errlen)
{
	return ar_ledger_scan_skip(l, after, NULL, fn, arg, err, errlen);
}

/* The loose results' ids in results/, in the order a segment would hold
 * them, so that compacting never changes what a reader sees. */
static int
list_loose(const struct ar_ledger *l, char ***names, size_t *n, char *err,
    size_t errlen)
{
	size_t i, w = 0;

	if (ar_spool_list(l->dir, "results", names, n) < 0) {
		char *rd = ar_path(l->dir, "results");

		snprintf(err, errlen, "%s: %s", rd, strerror(errno));
		free(rd);
		return -1;
	}
	for (i = 0; i < *n; i++) {
		char *name = (*names)[i];
		size_t len = strlen(name);

		if (len > 5 && len - 5 <= AR_ID_MAX && has_suffix(name,
		    ".json")) {
			name[len - 5] = '\0';
			(*names)[w++] = name;
		} else
			free(name);
	}
	*n = w;
	ar_sort(*names, *n, sizeof **names, cmp_pstr);
	return 0;
}

/* A frozen view (ar_ledger_freeze): the loose ids listed, and the bytes
 * of those read (NULL: not held, read at each scan). */
struct ar_frozen {
	char **names;
	size_t n;
	char **json;
	size_t *len;
	/* The listed result is also in a segment (compacted between the
	 * listing and the loading): looked up once, not at each scan. */
	unsigned char *inseg;
	/* The reader holds it already (ar_ledger_freeze_known). */
	unsigned char *known;
};

static void
frozen_free(struct ar_frozen *f)
{
	size_t i;

	if (!f)
		return;
	/* json is not made yet when the listing or the segments failed. */
	for (i = 0; f->json && i < f->n; i++)
		free(f->json[i]);
	free(f->json);
	free(f->len);
	free(f->inseg);
	free(f->known);
	ar_spool_free_list(f->names, f->n);
	free(f);
}

/* A loose result's bytes into b, its newline cut; 0, or -1 with errno. */
static int
read_loose(const char *path, struct ar_buf *b)
{
	if (ar_readfile(path, b, AR_LINE_MAX + 1) < 0)
		return -1;
	if (b->len && b->p[b->len - 1] == '\n')
		b->p[--b->len] = '\0';
	return 0;
}

int
ar_ledger_needs_map(const struct ar_ledger *l, unsigned long after)
{
	size_t i;

	if (!l->frozen || !after)
		return 1;
	for (i = 0; i < l->nseg; i++)
		if (l->seg[i].num > after)
			return 1;
	/* A loose result held and looked up after the cut needs none. */
	for (i = 0; i < l->frozen->n; i++)
		if (!l->frozen->inseg[i] && !l->frozen->known[i])
			return 1;
	return 0;
}

int
ar_ledger_freeze(struct ar_ledger *l, char *err, size_t errlen)
{
	return ar_ledger_freeze_known(l, NULL, NULL, 0, err, errlen);
}

int
ar_ledger_freeze_known(struct ar_ledger *l, ar_known_fn known, void *arg,
    unsigned long upto, char *err, size_t errlen)
{
	struct ar_frozen *f = ar_xcalloc(1, sizeof *f);
	char *rd = ar_path(l->dir, "results"), *p;
	struct ar_buf b = {0};
	size_t i, held = 0;
	int dfd, all = 0;

	frozen_free(l->frozen);
	l->frozen = NULL;
	/* Listed before the segments are loaded, as a scan lists them. */
	if (list_loose(l, &f->names, &f->n, err, errlen) < 0 ||
	    load_segments(l, err, errlen) < 0)
		goto fail;
	f->json = ar_xcalloc(f->n + 1, sizeof *f->json);
	f->len = ar_xcalloc(f->n + 1, sizeof *f->len);
	f->inseg = ar_xcalloc(f->n + 1, 1);
	f->known = ar_xcalloc(f->n + 1, 1);
	/* Each file by its name in results/: a thousand lookups of one
	 * name, not of the whole path. */
	dfd = known ? open(rd, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	for (i = 0; dfd >= 0 && i < f->n; i++) {
		struct stat st;
		char name[AR_ID_MAX + 8];

		snprintf(name, sizeof name, "%s.json", f->names[i]);
		/* A file gone or not plain is read at each scan, which says
		 * why or finds it compacted. */
		if (fstatat(dfd, name, &st, 0) == 0 && S_ISREG(st.st_mode) &&
		    known(f->names[i], &st, arg))
			f->known[i] = 1;
	}
	if (dfd >= 0)
		close(dfd);
	/* A loose result is looked up in the segments' indexes: in all of
	 * them, unless the reader holds it and looked up to upto. Only
	 * the later indexes are then read: a thousand segments' are not,
	 * at each decision. */
	for (i = 0; i < f->n && !all; i++)
		all = !f->known[i] || !upto;
	/* Looked up in all: only the indexes whose range (two short reads
	 * each) meets the loose ids' are mapped; most ids come after every
	 * segment's. */
	if (all) {
		const char *lo = f->names[0], *hi = f->names[0];

		for (i = 1; i < f->n; i++) {
			if (strcmp(f->names[i], lo) < 0)
				lo = f->names[i];
			if (strcmp(f->names[i], hi) > 0)
				hi = f->names[i];
		}
		if (ar_ledger_prepare(l, 0, lo, hi, err, errlen) < 0)
			goto fail;
	}
	for (i = 0; f->n && !all && i < l->nseg; i++)
		if (l->seg[i].num > upto && !l->seg[i].mapped &&
		    map_index(&l->seg[i], err, errlen) < 0)
			goto fail;
	for (i = 0; i < f->n; i++) {
		f->inseg[i] = (unsigned char)(f->known[i] && upto ?
		    in_segments_after(l, f->names[i], upto) :
		    ar_ledger_in_segments(l, f->names[i]));
		if (f->inseg[i])
			f->known[i] = 0;
	}
	for (i = 0; i < f->n && held < AR_FROZEN_BYTES; i++) {
		if (f->inseg[i] || f->known[i])
			continue;
		p = ar_xasprintf("%s/%s.json", rd, f->names[i]);
		/* One it cannot read now is read at each scan, which
		 * says why or finds it compacted. */
		if (read_loose(p, &b) == 0) {
			f->json[i] = ar_xmalloc(b.len + 1);
			memcpy(f->json[i], b.p, b.len);
			f->json[i][b.len] = '\0';
			f->len[i] = b.len;
			held += b.len + 1;
		}
		free(p);
	}
	ar_buf_free(&b);
	free(rd);
	l->frozen = f;
	return 0;
fail:
	frozen_free(f);
	free(rd);
	return -1;
}

int
ar_ledger_scan_skip(struct ar_ledger *l, unsigned long after,
    ar_seg_skip_fn skip, ar_row_fn fn, void *arg, char *err, size_t errlen)
{
	char **names = NULL, *rd = ar_path(l->dir, "results"), *p;
	struct ar_buf b = {0};
	struct ar_frozen *f = l->frozen;
	size_t n = 0, i;
	int r = 0;

	/* Loose files are listed before the segments are read, so a
	 * compaction running meanwhile cannot move a row out of our view:
	 * a listed file that is gone by the time we read it is found in the
	 * segment that took it. A frozen view was listed so once. */
	if (f) {
		names = f->names;
		n = f->n;
	} else if (list_loose(l, &names, &n, err, errlen) < 0 ||
	    load_segments(l, err, errlen) < 0 ||
	    (n && ar_ledger_map(l, err, errlen) < 0)) {
		r = -1;
		goto out;
	}
	for (i = 0; i < l->nseg && r == 0; i++)
		if ((!after || ar_ledger_seg_number(l->seg[i].path) > after) &&
		    (!skip || !skip(&l->seg[i], arg)))
			r = scan_segment(l->seg[i].path, fn, arg, NULL,
			    NULL);
	for (i = 0; i < n && r == 0; i++) {
		struct ar_row row;
		const char *id = names[i];

		if (f ? f->inseg[i] : ar_ledger_in_segments(l, id))
			continue;
		p = ar_xasprintf("%s/%s.json", rd, id);
		memset(&row, 0, sizeof row);
		row.src = p;
		if (f && f->known[i]) {
			row.known = 1;
		} else if (f && f->json[i]) {
			row.json = f->json[i];
			row.jsonlen = f->len[i];
			row.held = 1;
		} else if (read_loose(p, &b) < 0) {
			if (errno == ENOENT) {
				struct ar_ledger now;
				char e2[256];
				int found = 0;

				if (ar_ledger_open(&now, l->dir, 0, e2,
				    sizeof e2) == 0) {
					found = lookup(&now, id, &b);
					ar_ledger_close(&now);
				}
				if (!found) {
					free(p);
					continue;
				}
				row.json = b.p;
				row.jsonlen = b.len;
			} else
				row.bad = errno == EFBIG ? "file too large" :
				    strerror(errno);
		} else {
			row.json = b.p;
			row.jsonlen = b.len;
		}
		r = fn(&row, arg);
		free(p);
	}
out:
	if (!f)
		ar_spool_free_list(names, n);
	ar_buf_free(&b);
	free(rd);
	return r;
}
