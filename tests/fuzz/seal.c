/* seal.c: lib/seal reading a SEAL, and lib/segseal reading a ledger
 * segment's seal. The input is the body a campaign's key signs: the
 * target signs it, so the fuzzer reaches the records past the signature;
 * an input whose first byte is odd is read as it is, unsigned, for the
 * signature's own checks. problem/ holds one file. */
#include <string.h>
#include <sys/stat.h>

#include "crypto.h"
#include "fuzz.h"
#include "seal.h"
#include "segseal.h"

static void
report(void *arg, const char *state, const char *path, const char *detail)
{
	(void)arg;
	CHECK(state && path && detail);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static char dir[64];
	static unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES];
	char path[128], err[1024], sig[AR_SIG_HEX];
	FILE *f;
	int r;

	if (n < 1)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/ar-fuzz-seal.%ld",
		    (long)getpid());
		mkdir(dir, 0700);
		snprintf(path, sizeof path, "%s/problem", dir);
		mkdir(path, 0755);
		snprintf(path, sizeof path, "%s/problem/a.c", dir);
		if (!(f = fopen(path, "w")))
			abort();
		fputs("int a;\n", f);
		fclose(f);
		ar_keypair(pk, sk);
	}
	snprintf(path, sizeof path, "%s/SEAL", dir);
	if (!(f = fopen(path, "w")))
		abort();
	if (d[0] & 1)
		fwrite(d + 1, 1, n - 1, f);
	else {
		ar_sign_hex(sig, d + 1, n - 1, sk);
		fwrite(d + 1, 1, n - 1, f);
		fprintf(f, "sig\t%s\n", sig);
	}
	fclose(f);
	r = ar_seal_check(dir, "c1", pk, report, NULL, err, sizeof err);
	CHECK(r >= -3);
	if (r < 0)
		CHECK(err[0]);
	/* The segment's seal: its signature line is "sig HEX". A copy of
	 * exactly its bytes, so that a read past them is caught. */
	{
		struct ar_segseal ss;
		size_t len = n - 1 + (d[0] & 1 ? 0 : 4 + AR_SIG_HEX);
		char *b = malloc(len ? len : 1);

		if (!b)
			abort();
		memcpy(b, d + 1, n - 1);
		if (!(d[0] & 1)) {
			memcpy(b + n - 1, "sig ", 4);
			memcpy(b + n + 3, sig, AR_SIG_HEX - 1);
			b[len - 1] = '\n';
		}
		if (ar_segseal_parse(b, len, pk, &ss) == 0) {
			CHECK(ss.stat >= b && ss.stat + ss.statlen <= b + len);
			CHECK(strlen(ss.tsv_hash) == AR_HASH_HEX - 1);
			CHECK(ss.tsv_size >= 0 && ss.sealed_at >= 0);
		}
		free(b);
	}
	return 0;
}
