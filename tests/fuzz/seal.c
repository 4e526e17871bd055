/* seal.c: lib/seal reading a SEAL. The input is the body a campaign's
 * key signs: the target signs it, so the fuzzer reaches the records past
 * the signature; an input whose first byte is odd is written as it is,
 * unsigned, for the signature's own checks. problem/ holds one file. */
#include <sys/stat.h>

#include "crypto.h"
#include "fuzz.h"
#include "seal.h"

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
	return 0;
}
