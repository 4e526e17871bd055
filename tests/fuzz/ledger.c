/* ledger.c: lib/ledger reading a segment and its index as a tampered
 * ledger could hold them: the input up to its first form feed is the
 * index, the rest the segment (all of it when there is no form feed). Every row is either read or named bad; nothing crashes.
 * The whole input is also read as the summary line of a segment's seal
 * (cmd/ar-ledger/segseal.c, included): one it accepts has consistent
 * counts and is exactly the line ar-ledger would write for them. And as
 * a row's JSON by cmd/ar-ledger/canon.c (included): what it reads,
 * jansson reads too, to the same flat columns and top-level facts. And
 * as the lines of a loose seal (segseal.c), signed here unless its first
 * byte is odd: one it reads is written back byte for byte. And the
 * segment's bytes as a loose result: a frozen view of the ledger scans
 * to what a plain scan gives. */
#include "fuzz.h"
#include "io.h"
#include "ledger.h"
#include "../../cmd/ar-ledger/segseal.c"
#include "../../cmd/ar-ledger/canon.c"
#include "flat.h"
#include "json.h"

/* segseal.c's seals are checked on threads; here, on none. */
int
nthreads(void)
{
	return 1;
}

/* canon.c against jansson and ar_flatten_num. */
static void
canon(const uint8_t *d, size_t n)
{
	static const char *const paths[] = { "id", "campaign", "seal",
	    "method.hash", "method.commit", "source" };
	struct cflat c;
	struct ar_flat f;
	char err[256];
	json_t *o;
	size_t i;

	if (canon_flat((const char *)d, n, &c) < 0)
		return;
	o = ar_json_parse((const char *)d, n, err, sizeof err);
	CHECK(o && json_is_object(o));
	ar_flatten_num(o, &f);
	CHECK(f.n == c.f.n);
	for (i = 0; i < f.n; i++) {
		CHECK(strcmp(f.kv[i].k, c.f.kv[i].k) == 0);
		CHECK(!f.kv[i].v == !c.f.kv[i].v);
		if (f.kv[i].v)
			CHECK(strcmp(f.kv[i].v, c.f.kv[i].v) == 0);
		else
			CHECK(f.kv[i].num == c.f.kv[i].num);
	}
	CHECK(c.has_sig == (json_object_get(o, "sig") != NULL));
	CHECK(c.reserved == (json_object_get(o, "signed") != NULL ||
	    json_object_get(o, "json") != NULL));
	for (i = 0; i < sizeof paths / sizeof *paths; i++) {
		const char *a = ar_json_str(o, paths[i]);
		const char *b = cflat_str(&c, paths[i]);

		CHECK(!a == !b);
		CHECK(!a || strcmp(a, b) == 0);
	}
	ar_flat_free(&f);
	ar_flat_free(&c.f);
	json_decref(o);
}

static void
summary(const uint8_t *d, size_t n)
{
	struct segsum sum;
	char line[128];
	int len;

	if (segseal_summary((const char *)d, n, &sum) < 0)
		return;
	CHECK(sum.unsigned_ <= sum.rows);
	CHECK(sum.unchecked <= sum.rows - sum.unsigned_);
	len = snprintf(line, sizeof line, "rows %zu unsigned %zu unchecked "
	    "%zu\n", sum.rows, sum.unsigned_, sum.unchecked);
	CHECK(len > 0 && (size_t)len == n && memcmp(line, d, n) == 0);
}

static void
loose(const uint8_t *d, size_t n)
{
	static const char head[] = "ar-ledger loose seal 1\ncampaign c1\n"
	    "seal -\n";
	static unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES];
	static int keyed;
	struct ar_buf b = {0}, w = {0};
	struct lseal ls = {0};
	char sig[AR_SIG_HEX];
	size_t i;

	if (n < 1)
		return;
	if (!keyed) {
		ar_keypair(pk, sk);
		keyed = 1;
	}
	ar_buf_add(&b, head, sizeof head - 1);
	ar_buf_add(&b, d + 1, n - 1);
	if (!(d[0] & 1)) {
		ar_sign_hex(sig, b.p, b.len, sk);
		ar_buf_printf(&b, "sig %s\n", sig);
	}
	if (looseseal_parse(b.p, b.len, "c1", "-", pk, &ls) == 0) {
		ar_buf_add(&w, head, sizeof head - 1);
		for (i = 0; i < ls.n; i++) {
			const struct lent *e = &ls.e[i];

			CHECK(ar_id_valid(e->name));
			CHECK(i == 0 || strcmp(ls.e[i - 1].name, e->name) < 0);
			ar_buf_printf(&w, "%s\t%s\t%s\t%s\t%s\n", e->name,
			    e->hash, e->unsigned_ ? "no" : "yes", e->mhash[0] ?
			    e->mhash : "-", e->commit[0] ? e->commit : "-");
		}
		CHECK(b.len >= 4 + AR_SIG_HEX);
		CHECK(w.len == b.len - (4 + AR_SIG_HEX));
		CHECK(memcmp(w.p, b.p, w.len) == 0);
	}
	looseseal_free(&ls);
	ar_buf_free(&b);
	ar_buf_free(&w);
}

static int
row(const struct ar_row *r, void *arg)
{
	size_t *rows = arg;

	CHECK(r->src != NULL);
	CHECK(r->bad || r->json);
	(*rows)++;
	return 0;
}

static void
put_file(const char *path, const uint8_t *d, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	fwrite(d, 1, n, f);
	fclose(f);
}

/* A scan's rows, as bytes: where each came from, then why it is bad or
 * its JSON. */
static int
record(const struct ar_row *r, void *arg)
{
	struct ar_buf *b = arg;

	ar_buf_printf(b, "%s\n%zu\n", r->src, r->lineno);
	if (r->bad)
		ar_buf_printf(b, "bad %s\n", r->bad);
	else
		ar_buf_add(b, r->json, r->jsonlen);
	ar_buf_addc(b, '\n');
	return 0;
}

/* The segment's bytes stored as a loose result too: a frozen view
 * (ar_ledger_freeze) of the ledger opened lazily (ar_ledger_open_lazy,
 * as a decision's export opens it) scans to the rows a plain scan of
 * the ledger opened whole gives, twice. */
static void
frozen(const char *dir, const uint8_t *d, size_t n)
{
	struct ar_buf plain = {0}, a = {0}, b = {0};
	struct ar_ledger l;
	char p[160], err[1024];

	snprintf(p, sizeof p, "%s/results/20260101T000000Z-fuzz.json", dir);
	put_file(p, d, n);
	if (ar_ledger_open(&l, dir, 0, err, sizeof err) == 0) {
		int r0 = ar_ledger_scan(&l, record, &plain, err, sizeof err);

		ar_ledger_close(&l);
		CHECK(ar_ledger_open_lazy(&l, dir, err, sizeof err) == 0);
		CHECK(ar_ledger_freeze(&l, err, sizeof err) == 0);
		CHECK(ar_ledger_scan(&l, record, &a, err, sizeof err) == r0);
		CHECK(ar_ledger_scan(&l, record, &b, err, sizeof err) == r0);
		CHECK(a.len == plain.len && b.len == plain.len);
		CHECK(memcmp(a.p, plain.p, a.len) == 0);
		CHECK(memcmp(b.p, plain.p, b.len) == 0);
		ar_ledger_close(&l);
	}
	unlink(p);
	ar_buf_free(&plain);
	ar_buf_free(&a);
	ar_buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static char dir[64];
	struct ar_ledger l;
	char path[128], err[1024];
	const uint8_t *ff = memchr(d, '\f', n);
	size_t cut = ff ? (size_t)(ff - d) : 0, skip = ff ? 1 : 0, rows = 0;

	summary(d, n);
	canon(d, n);
	loose(d, n);

	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/ar-fuzz-ledger.%ld",
		    (long)getpid());
		if (ar_ledger_open(&l, dir, 1, err, sizeof err) < 0)
			abort();
		ar_ledger_close(&l);
	}
	snprintf(path, sizeof path, "%s/seg", dir);
	{
		char p[160];

		snprintf(p, sizeof p, "%s/00000001.idx", path);
		put_file(p, d, cut);
		snprintf(p, sizeof p, "%s/00000001.tsv", path);
		put_file(p, d + cut + skip, n - cut - skip);
	}
	if (ar_ledger_open(&l, dir, 0, err, sizeof err) < 0)
		return 0;
	if (ar_ledger_scan(&l, row, &rows, err, sizeof err) < 0)
		CHECK(err[0]);
	(void)ar_ledger_in_segments(&l, "a");
	(void)ar_ledger_in_segments(&l, "zzzzzzzz");
	ar_ledger_close(&l);
	frozen(dir, d + cut + skip, n - cut - skip);
	return 0;
}
