/* segseal.c: a segment's seal, seg/NNNNNNNN.seal. When ar-ledger has
 * checked every row of a segment and found them all good, it signs the
 * segment's and its index's sizes and BLAKE2b hashes with the campaign's
 * key, with what the check found (its rows, how many are unsigned, how
 * many name a method it could not rehash). verify and export -V then
 * take a segment whose seal still matches as checked: they hash the
 * files, check one signature, and read none of its rows (ar-ledger(1),
 * ar-ledger(5)).
 *
 * The file is the body ar-ledger would write for the segment as it is
 * now, the summary line, the segment file's stat line, then "sig HEX":
 * the body must be exactly that, and the summary is read only once the
 * signature over all three holds. While the segment's stat line is the
 * one signed (device, inode, size, mtime and ctime: a change through the
 * file system sets a new ctime, which no process can set back), the
 * body's tsv hash is the seal's own and the segment is not hashed again;
 * otherwise it is hashed, and a segment whose bytes are the same is still
 * good, and sealed again with its new stat. The stat line also holds when
 * the seal was made: a change within the same tick of the file system's
 * clock as the one before could keep the ctime, so a seal made less than
 * a second after the ctime it signs is not taken without hashing. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crypto.h"
#include "err.h"
#include "io.h"
#include "segseal.h"
#include "ar-ledger.h"

/* seg/NNNNNNNN.tsv -> seg/NNNNNNNN.seal */
static char *
seal_path(const char *segpath)
{
	size_t n = strlen(segpath);

	if (n < 4 || strcmp(segpath + n - 4, ".tsv") != 0)
		return NULL;
	return ar_xasprintf("%.*s.seal", (int)(n - 4), segpath);
}

/* What a seal of seg signs, from the files as they are now, with the
 * segment's hash th when given (else hashed here), and its stat in *st;
 * -1 when the segment cannot be read. */
static int
seal_body(const struct lctx *cx, const struct ar_seg *seg, const char *known,
    struct ar_buf *b, struct stat *st0)
{
	char th[AR_HASH_HEX], ih[AR_HASH_HEX];
	struct stat st;

	if (stat(seg->path, &st) < 0)
		return -1;
	if (known)
		snprintf(th, sizeof th, "%s", known);
	else if (ar_hash_file(seg->path, th) < 0)
		return -1;
	if (st0)
		*st0 = st;
	ar_hash_hex(ih, seg->idx ? seg->idx : "", seg->idxlen);
	ar_buf_printf(b, "ar-ledger seal 3\ncampaign %s\nseal %s\n"
	    "segment %lu\ntsv %lld %s\nidx %zu %s\n", cx->camp.id,
	    cx->camp.have_seal ? cx->camp.seal_hash : "-",
	    ar_ledger_seg_number(seg->path), (long long)st.st_size, th,
	    seg->idxlen, ih);
	return 0;
}

/* A count of the summary: 1 to 19 digits, no leading zero; the end of
 * it, or NULL. */
static const char *
count_of(const char *p, const char *end, size_t *v)
{
	const char *q = p;
	unsigned long long x = 0;

	while (q < end && *q >= '0' && *q <= '9' && q - p < 19)
		x = x * 10 + (unsigned long long)(*q++ - '0');
	if (q == p || (*p == '0' && q - p > 1))
		return NULL;
	*v = (size_t)x;
	return q;
}

static const char *
word_of(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - p) >= n && memcmp(p, w, n) == 0 ? p + n : NULL;
}

int
segseal_summary(const char *p, size_t len, struct segsum *sum)
{
	const char *end = p + len;

	memset(sum, 0, sizeof *sum);
	if (!(p = word_of(p, end, "rows ")) ||
	    !(p = count_of(p, end, &sum->rows)) ||
	    !(p = word_of(p, end, " unsigned ")) ||
	    !(p = count_of(p, end, &sum->unsigned_)) ||
	    !(p = word_of(p, end, " unchecked ")) ||
	    !(p = count_of(p, end, &sum->unchecked)) ||
	    !(p = word_of(p, end, "\n")) || p != end)
		return -1;
	if (sum->unsigned_ > sum->rows ||
	    sum->unchecked > sum->rows - sum->unsigned_)
		return -1;
	return 0;
}

/* The lines of an index. */
static size_t
idx_lines(const struct ar_seg *seg)
{
	size_t n = 0;
	const char *p = seg->idx, *end = seg->idx + seg->idxlen;

	while (p && p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	return n;
}

int
segseal_good(const struct lctx *cx, const struct ar_seg *seg,
    struct segsum *sum)
{
	struct ar_buf body = {0}, file = {0};
	char *path = seal_path(seg->path), stl[160];
	const char *sl, *sumend;
	size_t signedlen;
	struct ar_segseal ss;
	struct stat st;
	int good = 0, fast = 0;

	if (!path || ar_readfile(path, &file, 4096) < 0)
		goto out;
	/* The body as it would be with the seal's own hash of the segment
	 * (lib/segseal reads it, its signature checked): taken only when
	 * the segment's stat line is the one signed, and the seal was made
	 * a second or more after its ctime. */
	if (ar_segseal_parse(file.p, file.len, cx->camp.pk, &ss) == 0 &&
	    seal_body(cx, seg, ss.tsv_hash, &body, &st) == 0) {
		ar_segseal_stat(&st, stl, sizeof stl);
		fast = file.len >= body.len && memcmp(file.p, body.p,
		    body.len) == 0 && ss.statlen == strlen(stl) &&
		    memcmp(ss.stat, stl, ss.statlen) == 0 && ss.sealed_at >=
		    (long long)st.st_ctim.tv_sec + 1;
	}
	if (!fast) {
		body.len = 0;
		if (seal_body(cx, seg, NULL, &body, NULL) < 0)
			goto out;
	}
	/* The body, the summary line, the stat line, then "sig " and 128
	 * hex digits and a newline. */
	if (file.len < body.len + 4 + AR_SIG_HEX ||
	    memcmp(file.p, body.p, body.len) != 0 ||
	    file.p[file.len - 1] != '\n')
		goto out;
	signedlen = file.len - (4 + AR_SIG_HEX);
	sl = file.p + signedlen;
	sumend = memchr(file.p + body.len, '\n', signedlen - body.len);
	if (!sumend || memcmp(sl, "sig ", 4) != 0 || sumend + 1 >= sl ||
	    memcmp(sumend + 1, "stat ", 5) != 0 ||
	    memchr(sumend + 1, '\n', (size_t)(sl - (sumend + 1))) != sl - 1)
		goto out;
	{
		char sig[AR_SIG_HEX];

		memcpy(sig, sl + 4, AR_SIG_HEX - 1);
		sig[AR_SIG_HEX - 1] = '\0';
		/* Fast: ar_segseal_parse has checked the signature. */
		good = (fast || ar_verify_hex(sig, file.p, signedlen,
		    cx->camp.pk) == 0) &&
		    segseal_summary(file.p + body.len,
		    (size_t)(sumend + 1 - (file.p + body.len)), sum) == 0 &&
		    sum->rows == idx_lines(seg);
		/* Good by hashing: sealed again, with the stat of now. */
		if (good && !fast)
			good = SEAL_STALE;
	}
out:
	free(path);
	ar_buf_free(&body);
	ar_buf_free(&file);
	return good;
}

/* 1 when the campaign's secret key can be read and is the key of its
 * bench.pub. */
int
have_key(struct lctx *cx)
{
	char *kp, err[256];

	/* Only the holder of the campaign's key seals: a run without it
	 * checks every row, as before. */
	if (!cx->sk_tried) {
		cx->sk_tried = 1;
		kp = ar_campaign_key(&cx->camp);
		if (ar_key_read_secret(kp, cx->sk, err, sizeof err) == 0)
			cx->have_sk = ar_key_pair_ok(cx->sk, cx->camp.pk);
		free(kp);
	}
	return cx->have_sk;
}

const unsigned char *
signer(struct lctx *cx)
{
	return have_key(cx) ? cx->sk : NULL;
}

int
segseal_write(struct lctx *cx, const struct ar_seg *seg,
    const struct segsum *sum, const char *known)
{
	struct ar_buf b = {0};
	char sig[AR_SIG_HEX], *path = seal_path(seg->path), stl[160];
	struct stat st;
	int r = -1;

	if (!path)
		return -1;
	if (have_key(cx) && seal_body(cx, seg, known, &b, &st) == 0) {
		ar_segseal_stat(&st, stl, sizeof stl);
		ar_buf_printf(&b, "rows %zu unsigned %zu unchecked %zu\n%s "
		    "%lld\n", sum->rows, sum->unsigned_, sum->unchecked, stl,
		    (long long)time(NULL));
		ar_sign_hex(sig, b.p, b.len, cx->sk);
		ar_buf_printf(&b, "sig %s\n", sig);
		/* A cache: a ledger it cannot write to is read as before,
		 * row by row. Not synced: a seal lost or torn by a power cut
		 * fails its signature, and the rows are checked again. */
		r = ar_write_cache(path, b.p, b.len, 0444);
	}
	free(path);
	ar_buf_free(&b);
	return r;
}

/* Seals checked or written on every core: hashing the segments is most
 * of the cost. */
struct checker {
	struct lctx *cx;
	unsigned long cut;
	unsigned char *sealed;
	struct segsum *sums;
	const unsigned char *want; /* writing: the segments to seal */
	atomic_size_t next;
};

static void *
check_worker(void *arg)
{
	struct checker *c = arg;
	const struct ar_ledger *led = &c->cx->led;
	size_t i;

	while ((i = atomic_fetch_add(&c->next, 1)) < led->nseg) {
		if (c->want) {
			if (c->want[i])
				(void)segseal_write(c->cx, &led->seg[i],
				    &c->sums[i], NULL);
		} else if (ar_ledger_seg_number(led->seg[i].path) > c->cut)
			c->sealed[i] = (unsigned char)segseal_good(c->cx,
			    &led->seg[i], &c->sums[i]);
	}
	return NULL;
}

static void
run_checker(struct checker *c)
{
	pthread_t tid[16];
	int t = nthreads(), i, started = 0;

	atomic_init(&c->next, 0);
	if ((size_t)t > c->cx->led.nseg)
		t = (int)c->cx->led.nseg;
	for (i = 1; i < t; i++)
		if (pthread_create(&tid[started], NULL, check_worker, c) == 0)
			started++;
	check_worker(c);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}

void
segseal_check_all(struct lctx *cx, unsigned long cut, unsigned char *sealed,
    struct segsum *sums)
{
	struct checker c;

	memset(&c, 0, sizeof c);
	c.cx = cx;
	c.cut = cut;
	c.sealed = sealed;
	c.sums = sums;
	run_checker(&c);
}

void
segseal_write_all(struct lctx *cx, const unsigned char *want,
    const struct segsum *sums)
{
	struct checker c;
	size_t i;

	for (i = 0; i < cx->led.nseg && !want[i]; i++)
		;
	/* The key is read once, here, not by racing workers. */
	if (i == cx->led.nseg || !have_key(cx))
		return;
	memset(&c, 0, sizeof c);
	c.cx = cx;
	c.want = want;
	c.sums = (struct segsum *)sums;
	run_checker(&c);
}

/* ---- the loose results' seal ----
 * ledger/loose.seal lists the loose results a holder of the key found
 * good: each by its file's id and the BLAKE2b hash of its bytes, with
 * what the check found (unsigned, method.hash, method.commit). A result
 * whose bytes still have that hash is taken as checked, as a sealed
 * segment's rows are; any other is checked row by row. So a decision
 * does not check the signatures of up to AR_LEDGER_COMPACT - 1 loose
 * results again each time. The file: a header of three lines, one line
 * per result sorted by id, then "sig HEX" over all before it. */
#define LSEAL_MAGIC "ar-ledger loose seal 1\n"

static char *
looseseal_path(const struct lctx *cx)
{
	return ar_path(cx->led.dir, "loose.seal");
}

static void
lseal_header(struct ar_buf *b, const char *camp, const char *seal)
{
	ar_buf_printf(b, "%scampaign %s\nseal %s\n", LSEAL_MAGIC, camp, seal);
}

static int
lhex(const char *p, size_t n, size_t want)
{
	size_t i;

	if (n != want)
		return 0;
	for (i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' &&
		    p[i] <= 'f')))
			return 0;
	return 1;
}

/* One field of a line: up to the next tab (or the line's end); its
 * length, and p moved past it and its tab. */
static size_t
lfield(const char **p, const char *end, const char **f)
{
	const char *t = memchr(*p, '\t', (size_t)(end - *p));
	size_t n = (size_t)((t ? t : end) - *p);

	*f = *p;
	*p = t ? t + 1 : end;
	return n;
}

int
looseseal_parse(const char *p, size_t len, const char *camp,
    const char *seal, const unsigned char *pk, struct lseal *ls)
{
	struct ar_buf h = {0};
	const char *q, *end, *sl;
	char sig[AR_SIG_HEX];
	size_t n = 0, cap = 0, signedlen;
	struct lent *e = NULL;
	int ok = 0;

	ls->e = NULL;
	ls->n = 0;
	lseal_header(&h, camp, seal);
	/* The header, lines, then "sig " and its hex and a newline. */
	if (len < h.len + 4 + AR_SIG_HEX || memcmp(p, h.p, h.len) != 0 ||
	    p[len - 1] != '\n')
		goto out;
	signedlen = len - (4 + AR_SIG_HEX);
	sl = p + signedlen;
	if (memcmp(sl, "sig ", 4) != 0 || sl[-1] != '\n' ||
	    !lhex(sl + 4, AR_SIG_HEX - 1, AR_SIG_HEX - 1))
		goto out;
	memcpy(sig, sl + 4, AR_SIG_HEX - 1);
	sig[AR_SIG_HEX - 1] = '\0';
	if (ar_verify_hex(sig, p, signedlen, pk) < 0)
		goto out;
	for (q = p + h.len; q < sl; ) {
		const char *nl = memchr(q, '\n', (size_t)(sl - q)), *f;
		struct lent x;
		size_t fl;

		if (!nl)
			goto out;
		end = nl;
		memset(&x, 0, sizeof x);
		fl = lfield(&q, end, &f);
		if (fl == 0 || fl > AR_ID_MAX)
			goto out;
		memcpy(x.name, f, fl);
		if (memchr(x.name, '\0', fl) || !ar_id_valid(x.name))
			goto out;
		fl = lfield(&q, end, &f);
		if (!lhex(f, fl, AR_HASH_HEX - 1))
			goto out;
		memcpy(x.hash, f, fl);
		fl = lfield(&q, end, &f);
		if (fl == 2 && memcmp(f, "no", 2) == 0)
			x.unsigned_ = 1;
		else if (fl != 3 || memcmp(f, "yes", 3) != 0)
			goto out;
		fl = lfield(&q, end, &f);
		if (lhex(f, fl, AR_HASH_HEX - 1))
			memcpy(x.mhash, f, fl);
		else if (fl != 1 || *f != '-')
			goto out;
		fl = lfield(&q, end, &f);
		if (lhex(f, fl, 40) || lhex(f, fl, 64))
			memcpy(x.commit, f, fl);
		else if (fl != 1 || *f != '-')
			goto out;
		/* Five fields exactly, the ids strictly in order. */
		if (q != end || f + fl != end || (n && strcmp(e[n - 1].name,
		    x.name) >= 0))
			goto out;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			e = ar_xrealloc(e, cap * sizeof *e);
		}
		e[n++] = x;
		q = nl + 1;
	}
	ok = 1;
out:
	ar_buf_free(&h);
	if (!ok) {
		free(e);
		return -1;
	}
	ls->e = e;
	ls->n = n;
	return 0;
}

void
looseseal_load(struct lctx *cx, struct lseal *ls)
{
	struct ar_buf b = {0};
	char *path = looseseal_path(cx);

	ls->e = NULL;
	ls->n = 0;
	/* At most AR_LEDGER_COMPACT results are loose; 64 MB is far more. */
	if (ar_readfile(path, &b, (size_t)64 << 20) == 0)
		(void)looseseal_parse(b.p ? b.p : "", b.len, cx->camp.id,
		    cx->camp.have_seal ? cx->camp.seal_hash : "-",
		    cx->camp.pk, ls);
	ar_buf_free(&b);
	free(path);
}

static int
cmp_lent(const void *a, const void *b)
{
	return strcmp(((const struct lent *)a)->name,
	    ((const struct lent *)b)->name);
}

const struct lent *
looseseal_find(const struct lseal *ls, const char *name, const char *hash)
{
	struct lent key;
	const struct lent *e;

	if (!ls->n || strlen(name) > AR_ID_MAX)
		return NULL;
	memset(&key, 0, sizeof key);
	snprintf(key.name, sizeof key.name, "%s", name);
	e = bsearch(&key, ls->e, ls->n, sizeof *ls->e, cmp_lent);
	return e && (!hash || strcmp(e->hash, hash) == 0) ? e : NULL;
}

void
looseseal_keep(struct lseal *ls, const struct lent *e)
{
	if (ls->nk == ls->capk) {
		ls->capk = ls->capk ? 2 * ls->capk : 64;
		ls->k = ar_xrealloc(ls->k, ls->capk * sizeof *ls->k);
	}
	ls->k[ls->nk++] = *e;
}

void
looseseal_write(struct lctx *cx, struct lseal *ls)
{
	struct ar_buf b = {0};
	char sig[AR_SIG_HEX], *path;
	size_t i, w = 0;

	ar_sort(ls->k, ls->nk, sizeof *ls->k, cmp_lent);
	/* An id twice (a file read twice) is listed once; one stored twice
	 * with other bytes is a problem verify names, and not sealed. */
	for (i = 0; i < ls->nk; i++) {
		if (w && strcmp(ls->k[w - 1].name, ls->k[i].name) == 0) {
			if (strcmp(ls->k[w - 1].hash, ls->k[i].hash) != 0)
				ls->k[w - 1].hash[0] = '\0';
			continue;
		}
		ls->k[w++] = ls->k[i];
	}
	ls->nk = w;
	for (i = w = 0; i < ls->nk; i++)
		if (ls->k[i].hash[0])
			ls->k[w++] = ls->k[i];
	ls->nk = w;
	if (ls->nk == ls->n && (ls->n == 0 || memcmp(ls->k, ls->e, ls->n *
	    sizeof *ls->e) == 0))
		return;
	if (!have_key(cx))
		return;
	lseal_header(&b, cx->camp.id, cx->camp.have_seal ?
	    cx->camp.seal_hash : "-");
	for (i = 0; i < ls->nk; i++) {
		const struct lent *e = &ls->k[i];

		ar_buf_printf(&b, "%s\t%s\t%s\t%s\t%s\n", e->name, e->hash,
		    e->unsigned_ ? "no" : "yes", e->mhash[0] ? e->mhash : "-",
		    e->commit[0] ? e->commit : "-");
	}
	ar_sign_hex(sig, b.p, b.len, cx->sk);
	ar_buf_printf(&b, "sig %s\n", sig);
	path = looseseal_path(cx);
	/* Like a segment's seal, a cache, not synced: a ledger it cannot
	 * write to is read as before, and says nothing of it. */
	(void)ar_write_cache(path, b.p, b.len, 0444);
	free(path);
	ar_buf_free(&b);
}

/* Results append just checked and stored loose: listed in the seal with
 * those of the seal still loose, so that the first decision after them
 * hashes them instead of checking their signatures again. Not under the
 * ledger's lock: two writers at once may each drop the other's entries,
 * which only has those checked once more. */
void
looseseal_add(struct lctx *cx, const struct lent *add, size_t n)
{
	struct lseal ls;
	char *rd;
	size_t i;
	int dfd;

	if (!n || !have_key(cx))
		return;
	rd = ar_path(cx->led.dir, "results");
	dfd = open(rd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(rd);
	if (dfd < 0)
		return;
	memset(&ls, 0, sizeof ls);
	looseseal_load(cx, &ls);
	/* Only results still loose: a compaction moved the others into a
	 * segment, whose own seal covers them. */
	for (i = 0; i < ls.n + n; i++) {
		const struct lent *e = i < ls.n ? &ls.e[i] : &add[i - ls.n];
		char name[AR_ID_MAX + 8];
		struct stat st;

		snprintf(name, sizeof name, "%s.json", e->name);
		if (fstatat(dfd, name, &st, 0) == 0 && S_ISREG(st.st_mode))
			looseseal_keep(&ls, e);
	}
	close(dfd);
	looseseal_write(cx, &ls);
	looseseal_free(&ls);
}

void
looseseal_free(struct lseal *ls)
{
	free(ls->e);
	free(ls->k);
	memset(ls, 0, sizeof *ls);
}
