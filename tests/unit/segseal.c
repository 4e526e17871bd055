/* segseal.c: unit tests of lib/segseal: a segment's seal, as ar-ledger
 * writes it, gives the hash it signs only for the segment file as it is
 * now; another key's, another file's, a stale or altered seal, and
 * malformed ones give none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "buf.h"
#include "crypto.h"
#include "segseal.h"
#include "unit.h"

#define SEG "seg/00000003.tsv"

/* A seal of seg/00000003.tsv as ar-ledger writes one, with the parts a
 * test varies: the segment number, the tsv size, the stat line's file,
 * the seal's time past the ctime, and the signing key. */
struct shape {
	unsigned long num;
	long long size_add;
	const char *stat_of;        /* NULL: the segment's own */
	long long after;            /* seconds after the ctime */
	const char *hash;           /* NULL: the segment's own */
};

static void
put_seal(const char *dir, const struct shape *s, const unsigned char *sk,
    char th[AR_HASH_HEX])
{
	struct ar_buf b = {0};
	struct stat st, other;
	char *p = unit_path(dir, SEG), *q, stl[160], sig[AR_SIG_HEX];

	if (stat(p, &st) != 0 || ar_hash_file(p, th) != 0)
		abort();
	if (s->stat_of) {
		q = unit_path(dir, s->stat_of);
		if (stat(q, &other) != 0)
			abort();
		free(q);
		ar_segseal_stat(&other, stl, sizeof stl);
	} else
		ar_segseal_stat(&st, stl, sizeof stl);
	ar_buf_printf(&b, "ar-ledger seal 3\ncampaign c1\nseal -\nsegment %lu\n"
	    "tsv %lld %s\nidx 0 %s\nrows 2 unsigned 0 unchecked 0\n%s %lld\n",
	    s->num, (long long)st.st_size + s->size_add, s->hash ? s->hash :
	    th, th, stl, (long long)st.st_ctim.tv_sec + s->after);
	ar_sign_hex(sig, b.p, b.len, sk);
	ar_buf_printf(&b, "sig %s\n", sig);
	unit_put(dir, "seg/00000003.seal", b.p, 0644);
	free(p);
	ar_buf_free(&b);
}

static void
hashes(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, SEG), th[AR_HASH_HEX],
	    got[AR_HASH_HEX];
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], pk2[AR_PK_BYTES],
	    sk2[AR_SK_BYTES];
	struct stat st;
	const char *zeros = "0000000000000000000000000000000000000000000000000000000000000000";
	const struct {
		struct shape s;
		int other_key, ok;
		const char *what;
	} t[] = {
		{ { 3, 0, NULL, 1, NULL }, 0, 1, "signed for the file as it is" },
		{ { 3, 0, NULL, 0, NULL }, 0, 0, "made the second of its ctime" },
		{ { 3, 0, NULL, 1, NULL }, 1, 0, "signed by another key" },
		{ { 3, 0, "seg/other.tsv", 1, NULL }, 0, 0, "another file's stat" },
		{ { 3, 1, NULL, 1, NULL }, 0, 0, "another size" },
		{ { 4, 0, NULL, 1, NULL }, 0, 0, "another segment's number" },
		{ { 3, 0, NULL, 1, zeros }, 0, 1, "the hash it signs, not the file's" },
	};
	size_t i;

	ar_keypair(pk, sk);
	ar_keypair(pk2, sk2);
	unit_put(dir, SEG, "row 1\nrow 2\n", 0444);
	unit_put(dir, "seg/other.tsv", "row 1\nrow 2\n", 0444);
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		memset(got, 0, sizeof got);
		put_seal(dir, &t[i].s, t[i].other_key ? sk2 : sk, th);
		if (t[i].ok)
			OK(ar_segseal_hash(p, pk, got, &st) == 0 && strcmp(got,
			    t[i].s.hash ? t[i].s.hash : th) == 0 &&
			    st.st_size == 12, "hash: %s", t[i].what);
		else
			OK(ar_segseal_hash(p, pk, got, &st) == -1 && !got[0],
			    "no hash: %s", t[i].what);
	}
	/* A good seal altered by a byte; a seal gone; a path not a
	 * segment's. */
	{
		const struct shape good = { 3, 0, NULL, 1, NULL };
		char *s, *q;

		put_seal(dir, &good, sk, th);
		s = unit_read(dir, "seg/00000003.seal");
		q = strstr(s, "rows 2");
		q[5] = '3';
		unit_put(dir, "seg/00000003.seal", s, 0644);
		free(s);
		OK(ar_segseal_hash(p, pk, got, &st) == -1, "no hash: a seal "
		    "altered after its signature");
		q = unit_path(dir, "seg/00000003.seal");
		remove(q);
		free(q);
		OK(ar_segseal_hash(p, pk, got, &st) == -1, "no hash: no seal");
		OK(ar_segseal_hash("seg/00000003.idx", pk, got, &st) == -1,
		    "no hash: not a segment's path");
	}
	free(p);
	unit_rmtree(dir);
}

/* ar_segseal_read gives a seal signed by the key for its segment's
 * number whatever the file is now (its caller hashes it): the same
 * second, another stat; not another key's, another number's, an altered
 * or missing one. */
static void
reads(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, SEG), th[AR_HASH_HEX];
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], pk2[AR_PK_BYTES],
	    sk2[AR_SK_BYTES];
	const struct {
		struct shape s;
		int other_key, ok;
		const char *what;
	} t[] = {
		{ { 3, 0, NULL, 1, NULL }, 0, 1, "signed for the file as it is" },
		{ { 3, 0, NULL, 0, NULL }, 0, 1, "made the second of its ctime" },
		{ { 3, 0, "seg/other.tsv", 1, NULL }, 0, 1, "another file's stat" },
		{ { 3, 0, NULL, 1, NULL }, 1, 0, "signed by another key" },
		{ { 4, 0, NULL, 1, NULL }, 0, 0, "another segment's number" },
	};
	struct ar_segseal ss;
	struct ar_buf b = {0};
	size_t i;

	ar_keypair(pk, sk);
	ar_keypair(pk2, sk2);
	unit_put(dir, SEG, "row 1\nrow 2\n", 0444);
	unit_put(dir, "seg/other.tsv", "row 1\nrow 2\n", 0444);
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		put_seal(dir, &t[i].s, t[i].other_key ? sk2 : sk, th);
		b.len = 0;
		if (t[i].ok)
			OK(ar_segseal_read(p, pk, &ss, &b) == 0 &&
			    ss.segment == 3 && ss.tsv_size == 12 &&
			    strcmp(ss.tsv_hash, th) == 0, "read: %s",
			    t[i].what);
		else
			OK(ar_segseal_read(p, pk, &ss, &b) == -1, "not read: %s",
			    t[i].what);
	}
	{
		const struct shape good = { 3, 0, NULL, 1, NULL };
		char *s, *q;

		put_seal(dir, &good, sk, th);
		s = unit_read(dir, "seg/00000003.seal");
		q = strstr(s, "rows 2");
		q[5] = '3';
		unit_put(dir, "seg/00000003.seal", s, 0644);
		free(s);
		b.len = 0;
		OK(ar_segseal_read(p, pk, &ss, &b) == -1, "not read: altered "
		    "after its signature");
		q = unit_path(dir, "seg/00000003.seal");
		remove(q);
		free(q);
		b.len = 0;
		OK(ar_segseal_read(p, pk, &ss, &b) == -1, "not read: no seal");
	}
	ar_buf_free(&b);
	free(p);
	unit_rmtree(dir);
}

/* Signed, but not a seal's lines: each refused by the parser. */
static void
malformed(void)
{
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES];
	const char *body[] = {
		"ar-ledger seal 2\nsegment 3\ntsv 12 " "%s\nstat 1 2 12 0.0 0.0 5\n",
		"ar-ledger seal 3\ntsv 12 %s\nstat 1 2 12 0.0 0.0 5\n",
		"ar-ledger seal 3\nsegment 3\nstat 1 2 12 0.0 0.0 5\n%s",
		"ar-ledger seal 3\nsegment 3\ntsv 12 %s\n",
		"ar-ledger seal 3\nsegment 3\ntsv 12 %s\nstat 1 2 12 0.0 0.0\n",
		"ar-ledger seal 3\nsegment 3\ntsv 12 %s\nstat 1 2 12 0.0 0.0 x5\n",
		"ar-ledger seal 3\nsegment x3\ntsv 12 %s\nstat 1 2 12 0.0 0.0 5\n",
		"ar-ledger seal 3\nsegment 3\ntsv 12 %.63s\nstat 1 2 12 0.0 0.0 5\n",
		"ar-ledger seal 3\nsegment 3\ntsv 12 %sA\nstat 1 2 12 0.0 0.0 5\n",
		"ar-ledger seal 3\nsegment 3\ntsv 99999999999999999999 %s\nstat 1 2 12 0.0 0.0 5\n",
	};
	const char *hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	struct ar_segseal s;
	struct ar_buf b = {0};
	char sig[AR_SIG_HEX];
	size_t i;

	ar_keypair(pk, sk);
	/* The well-formed one first: the others differ from it by a line. */
	ar_buf_printf(&b, "ar-ledger seal 3\nsegment 3\ntsv 12 %s\n"
	    "stat 1 2 12 0.0 0.0 5\n", hex);
	ar_sign_hex(sig, b.p, b.len, sk);
	ar_buf_printf(&b, "sig %s\n", sig);
	OK(ar_segseal_parse(b.p, b.len, pk, &s) == 0 && s.segment == 3 &&
	    s.tsv_size == 12 && strcmp(s.tsv_hash, hex) == 0 && s.sealed_at ==
	    5 && s.statlen == 19 && memcmp(s.stat, "stat 1 2 12 0.0 0.0",
	    19) == 0, "parse: a well-formed seal");
	OK(ar_segseal_parse(b.p, b.len - 1, pk, &s) == -1, "parse: no "
	    "newline at its end");
	for (i = 0; i < sizeof body / sizeof body[0]; i++) {
		ar_buf_clear(&b);
		ar_buf_printf(&b, body[i], hex);
		ar_sign_hex(sig, b.p, b.len, sk);
		ar_buf_printf(&b, "sig %s\n", sig);
		OK(ar_segseal_parse(b.p, b.len, pk, &s) == -1, "parse: "
		    "malformed %zu refused", i);
	}
	ar_buf_free(&b);
}

const struct unit_test unit_segseal[] = {
	TEST(hashes),
	TEST(reads),
	TEST(malformed),
	UNIT_END,
};
