/* profile.c: a machine profile (ar-result(5)) as ar-bench reads it:
 * JSON with a "roofline" object, signed by the campaign's key (the
 * target signs what it reads, so the fuzzer reaches past the
 * signature), then the fractions of the roofline a result reached
 * (dev/roofline). Every field of the fractions is a finite number, a
 * null or the bound's name, and the whole is valid canonical JSON. */
#include <math.h>

#include "crypto.h"
#include "fuzz.h"
#include "json.h"
#include "roofline.h"

static void
fractions(const json_t *prof, double bytes, double flops, const char *dtype,
    double s, double scale)
{
	json_t *o = ar_roofline_fraction(prof, bytes, flops, dtype, s, scale);
	const char *k;
	json_t *v;
	char *c;

	CHECK(json_is_object(o));
	json_object_foreach(o, k, v) {
		if (strcmp(k, "bound") == 0)
			CHECK(json_is_string(v));
		else
			CHECK(json_is_null(v) || (json_is_real(v) &&
			    isfinite(json_real_value(v))));
	}
	c = ar_json_canon(o);
	CHECK(c != NULL);
	free(c);
	json_decref(o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES];
	static int keyed;
	char err[512];
	json_t *o;

	if (!keyed) {
		ar_keypair(pk, sk);
		keyed = 1;
	}
	/* ar-bench's load_profile reads it this way. */
	o = json_loadb((const char *)d, n, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o) || !json_is_object(json_object_get(o,
	    "roofline"))) {
		json_decref(o);
		return 0;
	}
	json_object_del(o, "sig");
	ar_json_sign(o, sk);
	if (ar_json_verify(o, pk, err, sizeof err) == 0) {
		fractions(o, 1e9, 2e12, "bf16", 0.01, 1);
		fractions(o, 1e9, 0, NULL, 1e-9, 8);
		fractions(o, 0, 1e15, "fp8", 3, 0.5);
		fractions(o, 1e300, 1e300, "fp32", 1e-300, 1e300);
	} else
		CHECK(err[0]);
	json_decref(o);
	return 0;
}
