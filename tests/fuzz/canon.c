/* canon.c: the canonical form of JSON (lib/json), what every signature
 * is made over (ar-formats(5)), and the signature itself (lib/crypto).
 * Whatever the strict reader accepts has a canonical form that reads
 * back, is its own canonical form, and signs and verifies; a change of
 * one value breaks the signature. */
#include "crypto.h"
#include "fuzz.h"
#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES];
	static int keyed;
	char err[512], *c, *c2, *line;
	json_t *j, *back;

	if (!keyed) {
		ar_keypair(pk, sk);
		keyed = 1;
	}
	if (!(j = ar_json_parse((const char *)d, n, err, sizeof err))) {
		CHECK(err[0]);
		return 0;
	}
	c = ar_json_canon(j);
	CHECK(strchr(c, '\n') == NULL);
	back = ar_json_parse(c, strlen(c), err, sizeof err);
	CHECK(back != NULL);
	c2 = ar_json_canon(back);
	CHECK(strcmp(c, c2) == 0);
	/* The one-line form reads back to the same canonical form. */
	line = ar_json_line(j);
	json_decref(back);
	back = ar_json_parse(line, strlen(line), err, sizeof err);
	CHECK(back != NULL);
	free(c2);
	c2 = ar_json_canon(back);
	CHECK(strcmp(c, c2) == 0);
	free(c2);
	free(line);
	json_decref(back);
	if (json_is_object(j) && !json_object_get(j, "sig")) {
		ar_json_sign(j, sk);
		CHECK(ar_json_verify(j, pk, err, sizeof err) == 0);
		c2 = ar_json_canon(j);
		CHECK(ar_verify_canonical(c2, strlen(c2), pk) == 0);
		free(c2);
		/* Another value under a new key is another object. */
		json_object_set_new(j, "fuzz-extra", json_true());
		CHECK(ar_json_verify(j, pk, err, sizeof err) < 0 && err[0]);
	}
	free(c);
	json_decref(j);
	return 0;
}
