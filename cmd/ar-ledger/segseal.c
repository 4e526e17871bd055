/* segseal.c: a segment's seal, seg/NNNNNNNN.seal. When ar-ledger has
 * checked every row of a segment and found them all good, it signs the
 * segment's and its index's sizes and BLAKE2b hashes with the campaign's
 * key; export -V then takes the rows of a segment whose seal still
 * matches as checked, hashing the files instead of checking each
 * row's signature and columns (ar-ledger(5)). verify checks every row.
 *
 * The file is the body ar-ledger would write for the segment as it is
 * now, then "sig HEX": a seal is good when its bytes are exactly that,
 * so nothing in it is parsed. */
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
	ar_buf_printf(b, "ar-ledger seal 1\ncampaign %s\nseal %s\n"
	    "segment %lu\ntsv %lld %s\nidx %zu %s\n", cx->camp.id,
	    cx->camp.have_seal ? cx->camp.seal_hash : "-",
	    ar_ledger_seg_number(seg->path), (long long)st.st_size, th,
	    seg->idxlen, ih);
	return 0;
}

int
segseal_good(const struct lctx *cx, const struct ar_seg *seg)
{
	struct ar_buf body = {0}, file = {0};
	char *path = seal_path(seg->path);
	int good = 0;

	if (!path || ar_readfile(path, &file, 4096) < 0)
		goto out;
	if (seal_body(cx, seg, &body) < 0)
		goto out;
	/* The body, then "sig " and 128 hex digits and a newline. */
	if (file.len == body.len + 4 + AR_SIG_HEX &&
	    memcmp(file.p, body.p, body.len) == 0 &&
	    memcmp(file.p + body.len, "sig ", 4) == 0 &&
	    file.p[file.len - 1] == '\n') {
		char sig[AR_SIG_HEX];

		memcpy(sig, file.p + body.len + 4, AR_SIG_HEX - 1);
		sig[AR_SIG_HEX - 1] = '\0';
		good = ar_verify_hex(sig, body.p, body.len, cx->camp.pk) == 0;
	}
out:
	free(path);
	ar_buf_free(&body);
	ar_buf_free(&file);
	return good;
}

int
segseal_write(struct lctx *cx, const struct ar_seg *seg)
{
	struct ar_buf b = {0};
	char sig[AR_SIG_HEX], *path = seal_path(seg->path), *kp, err[256];
	unsigned char pk[AR_PK_BYTES];
	int r = -1;

	if (!path)
		return -1;
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
	if (cx->have_sk && seal_body(cx, seg, &b) == 0) {
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

struct checker {
	const struct lctx *cx;
	unsigned long cut;
	unsigned char *sealed;
	atomic_size_t next;
};

static void *
check_worker(void *arg)
{
	struct checker *c = arg;
	const struct ar_ledger *led = &c->cx->led;
	size_t i;

	while ((i = atomic_fetch_add(&c->next, 1)) < led->nseg)
		if (ar_ledger_seg_number(led->seg[i].path) > c->cut)
			c->sealed[i] = (unsigned char)segseal_good(c->cx,
			    &led->seg[i]);
	return NULL;
}

void
segseal_check_all(const struct lctx *cx, unsigned long cut,
    unsigned char *sealed)
{
	struct checker c;
	pthread_t tid[16];
	int t = nthreads(), i, started = 0;

	c.cx = cx;
	c.cut = cut;
	c.sealed = sealed;
	atomic_init(&c.next, 0);
	if ((size_t)t > cx->led.nseg)
		t = (int)cx->led.nseg;
	for (i = 1; i < t; i++)
		if (pthread_create(&tid[started], NULL, check_worker, &c) == 0)
			started++;
	check_worker(&c);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}
