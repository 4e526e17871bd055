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
 * now, the summary line, then "sig HEX": the body must be exactly that,
 * and the summary is read only once the signature over both holds. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crypto.h"
#include "err.h"
#include "io.h"
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

/* What a seal of seg signs, from the files as they are now; -1 when the
 * segment cannot be read. */
static int
seal_body(const struct lctx *cx, const struct ar_seg *seg, struct ar_buf *b)
{
	char th[AR_HASH_HEX], ih[AR_HASH_HEX];
	struct stat st;

	if (stat(seg->path, &st) < 0 || ar_hash_file(seg->path, th) < 0)
		return -1;
	ar_hash_hex(ih, seg->idx ? seg->idx : "", seg->idxlen);
	ar_buf_printf(b, "ar-ledger seal 2\ncampaign %s\nseal %s\n"
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
	char *path = seal_path(seg->path);
	const char *sl;
	size_t signedlen;
	int good = 0;

	if (!path || ar_readfile(path, &file, 4096) < 0)
		goto out;
	if (seal_body(cx, seg, &body) < 0)
		goto out;
	/* The body, the summary line, then "sig " and 128 hex digits and a
	 * newline. */
	if (file.len < body.len + 4 + AR_SIG_HEX ||
	    memcmp(file.p, body.p, body.len) != 0 ||
	    file.p[file.len - 1] != '\n')
		goto out;
	signedlen = file.len - (4 + AR_SIG_HEX);
	sl = file.p + signedlen;
	if (memcmp(sl, "sig ", 4) == 0) {
		char sig[AR_SIG_HEX];

		memcpy(sig, sl + 4, AR_SIG_HEX - 1);
		sig[AR_SIG_HEX - 1] = '\0';
		good = ar_verify_hex(sig, file.p, signedlen, cx->camp.pk) == 0 &&
		    segseal_summary(file.p + body.len, signedlen - body.len,
		    sum) == 0 && sum->rows == idx_lines(seg);
	}
out:
	free(path);
	ar_buf_free(&body);
	ar_buf_free(&file);
	return good;
}

/* 1 when the campaign's secret key can be read and is the key of its
 * bench.pub. */
static int
have_key(struct lctx *cx)
{
	char *kp, err[256];
	unsigned char pk[AR_PK_BYTES];

	/* Only the holder of the campaign's key seals: a run without it
	 * checks every row, as before. */
	if (!cx->sk_tried) {
		cx->sk_tried = 1;
		kp = ar_campaign_key(&cx->camp);
		if (ar_key_read_secret(kp, cx->sk, err, sizeof err) == 0) {
			ar_key_public_of(cx->sk, pk);
			cx->have_sk = memcmp(pk, cx->camp.pk, sizeof pk) == 0;
		}
		free(kp);
	}
	return cx->have_sk;
}

int
segseal_write(struct lctx *cx, const struct ar_seg *seg,
    const struct segsum *sum)
{
	struct ar_buf b = {0};
	char sig[AR_SIG_HEX], *path = seal_path(seg->path);
	int r = -1;

	if (!path)
		return -1;
	if (have_key(cx) && seal_body(cx, seg, &b) == 0) {
		ar_buf_printf(&b, "rows %zu unsigned %zu unchecked %zu\n",
		    sum->rows, sum->unsigned_, sum->unchecked);
		ar_sign_hex(sig, b.p, b.len, cx->sk);
		ar_buf_printf(&b, "sig %s\n", sig);
		/* Like a cache: a ledger it cannot write to is read as
		 * before, row by row. */
		r = ar_write_atomic(path, b.p, b.len, 0444);
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
				    &c->sums[i]);
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
