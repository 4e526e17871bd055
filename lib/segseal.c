/* segseal.c: a ledger segment's seal as other programs than ar-ledger
 * read it (segseal.h; ar-ledger(5) gives the format). The file is
 *   ar-ledger seal 3, campaign, seal, segment N, tsv SIZE HASH,
 *   idx LEN HASH, rows ..., stat DEV INO SIZE MTIME CTIME SEALED_AT,
 *   sig HEX
 * a line each; the signature covers every line before it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "crypto.h"
#include "io.h"
#include "ledger.h"
#include "segseal.h"

/* The largest seal read: a few hundred bytes in practice. */
#define SEAL_MAX 4096

void
ar_segseal_stat(const struct stat *st, char *out, size_t n)
{
	snprintf(out, n, "stat %llu %llu %lld %lld.%09ld %lld.%09ld",
	    (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
	    (long long)st->st_size, (long long)st->st_mtim.tv_sec,
	    st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
	    st->st_ctim.tv_nsec);
}

/* A decimal of 1 to 18 digits from p, up to end; its end or NULL. */
static const char *
decimal(const char *p, const char *end, long long *v)
{
	const char *q = p;
	long long x = 0;

	while (q < end && *q >= '0' && *q <= '9' && q - p < 18)
		x = x * 10 + (*q++ - '0');
	if (q == p || (q < end && *q >= '0' && *q <= '9'))
		return NULL;
	*v = x;
	return q;
}

/* The rest of the first line in [p, end) that starts with word, or
 * NULL. */
static const char *
line_of(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);
	const char *q = p, *nl;

	while (q < end) {
		if ((size_t)(end - q) >= n && memcmp(q, word, n) == 0)
			return q + n;
		if (!(nl = memchr(q, '\n', (size_t)(end - q))))
			return NULL;
		q = nl + 1;
	}
	return NULL;
}

static int
is_hex64(const char *p, const char *end)
{
	int i;

	if (end - p < AR_HASH_HEX - 1)
		return 0;
	for (i = 0; i < AR_HASH_HEX - 1; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' &&
		    p[i] <= 'f')))
			return 0;
	return 1;
}

int
ar_segseal_parse(const char *p, size_t n, const unsigned char pk[AR_PK_BYTES],
    struct ar_segseal *s)
{
	static const char magic[] = "ar-ledger seal 3\n";
	const char *end, *q, *sl, *last;
	char sig[AR_SIG_HEX];
	long long v;
	size_t signedlen;

	memset(s, 0, sizeof *s);
	/* ... "sig " and 128 hex digits and a newline, at the end. */
	if (n < sizeof magic - 1 + 4 + AR_SIG_HEX || memcmp(p, magic,
	    sizeof magic - 1) != 0 || p[n - 1] != '\n')
		return -1;
	signedlen = n - (4 + AR_SIG_HEX);
	sl = p + signedlen;
	if (memcmp(sl, "sig ", 4) != 0 || sl[-1] != '\n')
		return -1;
	memcpy(sig, sl + 4, AR_SIG_HEX - 1);
	sig[AR_SIG_HEX - 1] = '\0';
	if (memchr(sig, '\n', AR_SIG_HEX - 1) || ar_verify_hex(sig, p,
	    signedlen, pk) != 0)
		return -1;
	end = sl;
	/* segment N */
	if (!(q = line_of(p, end, "segment ")) || !(q = decimal(q, end, &v)) ||
	    q >= end || *q != '\n')
		return -1;
	s->segment = (unsigned long)v;
	/* tsv SIZE HASH */
	if (!(q = line_of(p, end, "tsv ")) || !(q = decimal(q, end, &v)) ||
	    q >= end || *q != ' ' || !is_hex64(q + 1, end) ||
	    q + AR_HASH_HEX >= end || q[AR_HASH_HEX] != '\n')
		return -1;
	s->tsv_size = v;
	memcpy(s->tsv_hash, q + 1, AR_HASH_HEX - 1);
	s->tsv_hash[AR_HASH_HEX - 1] = '\0';
	/* The last signed line: the stat line, then the seal's time. */
	for (last = end - 1; last > p && last[-1] != '\n'; last--)
		;
	if ((size_t)(end - last) < 6 || memcmp(last, "stat ", 5) != 0)
		return -1;
	for (q = end - 1; q > last && q[-1] != ' '; q--)
		;
	if (q <= last + 5 || !(sl = decimal(q, end, &v)) || sl != end - 1)
		return -1;
	s->stat = last;
	s->statlen = (size_t)(q - 1 - last);
	s->sealed_at = v;
	return 0;
}

int
ar_segseal_read(const char *segpath, const unsigned char pk[AR_PK_BYTES],
    struct ar_segseal *s, struct ar_buf *b)
{
	size_t n = strlen(segpath);
	char *path;
	int r = -1;

	if (n < 4 || strcmp(segpath + n - 4, ".tsv") != 0)
		return -1;
	path = ar_xasprintf("%.*s.seal", (int)(n - 4), segpath);
	if (ar_readfile(path, b, SEAL_MAX) == 0 &&
	    ar_segseal_parse(b->p, b->len, pk, s) == 0 &&
	    s->segment == ar_ledger_seg_number(segpath))
		r = 0;
	free(path);
	return r;
}

int
ar_segseal_hash(const char *segpath, const unsigned char pk[AR_PK_BYTES],
    char th[AR_HASH_HEX], struct stat *st)
{
	struct ar_buf b = {0};
	struct ar_segseal s;
	char stl[160], *path;
	size_t n = strlen(segpath);
	int r = -1;

	if (n < 4 || strcmp(segpath + n - 4, ".tsv") != 0)
		return -1;
	path = ar_xasprintf("%.*s.seal", (int)(n - 4), segpath);
	if (ar_readfile(path, &b, SEAL_MAX) < 0 || stat(segpath, st) < 0 ||
	    ar_segseal_parse(b.p, b.len, pk, &s) < 0)
		goto out;
	ar_segseal_stat(st, stl, sizeof stl);
	/* A change within the ctime's tick could keep it: a seal made in
	 * the same second as the ctime it signs is not taken. */
	if (s.segment == ar_ledger_seg_number(segpath) && s.tsv_size ==
	    (long long)st->st_size && s.statlen == strlen(stl) &&
	    memcmp(s.stat, stl, s.statlen) == 0 && s.sealed_at >=
	    (long long)st->st_ctim.tv_sec + 1) {
		memcpy(th, s.tsv_hash, AR_HASH_HEX);
		r = 0;
	}
out:
	free(path);
	ar_buf_free(&b);
	return r;
}
