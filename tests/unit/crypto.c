/* crypto.c: unit tests of lib/crypto: BLAKE2b-256, hex, key files,
 * signatures of JSON objects and of their stored canonical text, and
 * derived seeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "json.h"
#include "unit.h"

static void
hashes(void)
{
	char h[AR_HASH_HEX], hf[AR_HASH_HEX], *dir = unit_tmpdir(), *p;
	unsigned char bin[4];

	ar_hash_hex(h, "abc", 3);
	/* BLAKE2b-256("abc") from RFC 7693's reference implementation. */
	OK(strcmp(h, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c0"
	    "68d52319") == 0, "blake2b-256 of abc");
	unit_put(dir, "f", "abc", 0644);
	p = unit_path(dir, "f");
	OK(ar_hash_file(p, hf) == 0 && strcmp(hf, h) == 0, "a file's hash is "
	    "its content's");
	free(p);
	p = unit_path(dir, "none");
	OK(ar_hash_file(p, hf) < 0, "a missing file has no hash");
	free(p);
	ar_hex(h, (const unsigned char *)"\x01\xab\xff\x00", 4);
	OK(strcmp(h, "01abff00") == 0, "hex");
	OK(ar_unhex(bin, 4, "01abff00") == 0 && memcmp(bin, "\x01\xab\xff\x00",
	    4) == 0, "unhex");
	OK(ar_unhex(bin, 4, "01ABFF00") < 0 && ar_unhex(bin, 4, "01abff0") < 0 &&
	    ar_unhex(bin, 4, "01abff000") < 0 && ar_unhex(bin, 4,
	    "01abfg00") < 0, "unhex: upper case, odd length, too long, not "
	    "hex rejected");
	unit_rmtree(dir);
}

static void
signatures(void)
{
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], pk2[AR_PK_BYTES],
	    sk2[AR_SK_BYTES];
	char err[256], sig[AR_SIG_HEX];
	json_t *o;

	ar_keypair(pk, sk);
	ar_keypair(pk2, sk2);
	o = json_pack("{s:s, s:{s:f}}", "id", "x", "metrics", "m", 1.5);
	ar_json_sign(o, sk);
	OK(ar_json_verify(o, pk, err, sizeof err) == 0, "sign: verifies");
	OK(ar_json_verify(o, pk2, err, sizeof err) < 0 && strcmp(err, "bad "
	    "signature") == 0, "sign: other key fails");
	json_object_set_new(json_object_get(o, "metrics"), "m", json_real(1.6));
	OK(ar_json_verify(o, pk, err, sizeof err) < 0, "sign: changed metric "
	    "fails");
	json_object_del(o, "sig");
	OK(ar_json_verify(o, pk, err, sizeof err) < 0 && strstr(err, "no "
	    "signature"), "sign: missing signature");
	json_decref(o);
	o = json_array();
	OK(ar_json_verify(o, pk, err, sizeof err) < 0 && strcmp(err, "not a "
	    "JSON object") == 0, "sign: an array is no signed object");
	json_decref(o);
	ar_sign_hex(sig, "msg", 3, sk);
	OK(strlen(sig) == 128 && ar_verify_hex(sig, "msg", 3, pk) == 0 &&
	    ar_verify_hex(sig, "msh", 3, pk) < 0 && ar_verify_hex("zz", "msg",
	    3, pk) < 0, "detached: verifies the message signed only");
}

/* The canonical text of o signed with sk, malloc'd. */
static char *
signed_text(json_t *o, const unsigned char *sk)
{
	char *s;

	ar_json_sign(o, sk);
	s = ar_json_canon(o);
	json_decref(o);
	return s;
}

static void
canonical(void)
{
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], pk2[AR_PK_BYTES],
	    sk2[AR_SK_BYTES];
	char *s, *at;

	ar_keypair(pk, sk);
	ar_keypair(pk2, sk2);
	s = signed_text(json_pack("{s:s, s:i}", "id", "r1", "a", 1), sk);
	OK(ar_verify_canonical(s, strlen(s), pk) == 0, "stored: sig last");
	OK(ar_verify_canonical(s, strlen(s), pk2) < 0, "stored: another key "
	    "fails");
	at = strstr(s, "\"a\":1");
	at[4] = '2';
	OK(ar_verify_canonical(s, strlen(s), pk) < 0, "stored: a changed "
	    "value fails");
	free(s);
	s = signed_text(json_pack("{s:s, s:i}", "a", "r1", "z", 1), sk);
	OK(strstr(s, "\"sig\":") < strstr(s, "\"z\":") &&
	    ar_verify_canonical(s, strlen(s), pk) == 0, "stored: sig between "
	    "members");
	free(s);
	s = signed_text(json_pack("{s:i}", "x", 1), sk);
	OK(strncmp(s, "{\"sig\":", 7) == 0 && ar_verify_canonical(s,
	    strlen(s), pk) == 0, "stored: sig first");
	free(s);
	s = signed_text(json_pack("{s:{s:s}, s:s}", "in", "sig", "inner",
	    "t", "a\\\"sig\\\":"), sk);
	OK(ar_verify_canonical(s, strlen(s), pk) == 0, "stored: a nested "
	    "\"sig\" and one inside a string are not the signature");
	free(s);
	s = "{\"id\":\"r\"}";
	OK(ar_verify_canonical(s, strlen(s), pk) < 0, "stored: no sig");
	s = "{\"id\":\"r\",\"sig\":\"abc\"}";
	OK(ar_verify_canonical(s, strlen(s), pk) < 0, "stored: a short sig");
}

/* Checking by signing again: the same answers as verifying, and a key
 * whose halves do not belong together is not taken as the holder's. */
static void
by_signing(void)
{
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], pk2[AR_PK_BYTES],
	    sk2[AR_SK_BYTES], forged[AR_SK_BYTES];
	char sig[AR_SIG_HEX], *s, *at;

	ar_keypair(pk, sk);
	ar_keypair(pk2, sk2);
	OK(ar_key_pair_ok(sk, pk) && !ar_key_pair_ok(sk, pk2) &&
	    !ar_key_pair_ok(sk2, pk), "pair: a key and only its own public "
	    "key");
	/* Another seed with this public half: libsodium signs with the
	 * half as written, so what it makes must not be taken as ours. */
	memcpy(forged, sk2, 32);
	memcpy(forged + 32, pk, 32);
	OK(!ar_key_pair_ok(forged, pk), "pair: a seed not of the public "
	    "half is refused");
	ar_sign_hex(sig, "msg", 3, forged);
	OK(ar_verify_hex(sig, "msg", 3, pk) < 0, "pair: what it signs does "
	    "not verify");
	ar_sign_hex(sig, "msg", 3, sk);
	OK(ar_verify_hex_by(sig, "msg", 3, pk, sk) == 0 &&
	    ar_verify_hex_by(sig, "msh", 3, pk, sk) < 0 &&
	    ar_verify_hex_by("zz", "msg", 3, pk, sk) < 0, "by signing: the "
	    "message signed only");
	/* Bytes the key would not make are verified: with another key as
	 * the signer, a good signature still holds and a bad one fails. */
	OK(ar_verify_hex_by(sig, "msg", 3, pk, sk2) == 0 &&
	    ar_verify_hex_by(sig, "msh", 3, pk, sk2) < 0, "by signing: "
	    "other bytes are verified");
	sig[10] = sig[10] == '0' ? '1' : '0';
	OK(ar_verify_hex_by(sig, "msg", 3, pk, sk) < 0, "by signing: a "
	    "changed signature fails");
	s = signed_text(json_pack("{s:s, s:i}", "id", "r1", "a", 1), sk);
	OK(ar_verify_canonical_by(s, strlen(s), pk, sk) == 0 &&
	    ar_verify_canonical_by(s, strlen(s), pk, sk2) == 0 &&
	    ar_verify_canonical_by(s, strlen(s), pk2, sk2) < 0, "stored by "
	    "signing: good under its key");
	at = strstr(s, "\"a\":1");
	at[4] = '2';
	OK(ar_verify_canonical_by(s, strlen(s), pk, sk) < 0, "stored by "
	    "signing: a changed value fails");
	free(s);
}

static void
keys(void)
{
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], rpk[AR_PK_BYTES],
	    rsk[AR_SK_BYTES];
	char hex[2 * AR_SK_BYTES + 1], line[300], err[512], *dir = unit_tmpdir();
	char *p, *q;

	ar_keypair(pk, sk);
	ar_hex(hex, pk, AR_PK_BYTES);
	snprintf(line, sizeof line, "ed25519-public %s\n", hex);
	unit_put(dir, "pub", line, 0644);
	ar_hex(hex, sk, AR_SK_BYTES);
	snprintf(line, sizeof line, "ed25519-secret %s", hex);
	unit_put(dir, "key", line, 0600);
	p = unit_path(dir, "pub");
	q = unit_path(dir, "key");
	OK(ar_key_read_public(p, rpk, err, sizeof err) == 0 &&
	    memcmp(rpk, pk, sizeof pk) == 0, "key: a public key file");
	OK(ar_key_read_secret(q, rsk, err, sizeof err) == 0 &&
	    memcmp(rsk, sk, sizeof sk) == 0, "key: a secret key file, no "
	    "newline needed");
	OK(ar_key_read_secret(p, rsk, err, sizeof err) < 0 && strstr(err,
	    "/pub: not an ed25519-secret key file"), "key: a public key is no "
	    "secret one");
	unit_put(dir, "pub", "ed25519-public 00\n", 0644);
	OK(ar_key_read_public(p, rpk, err, sizeof err) < 0 && strstr(err,
	    "not an ed25519-public key file"), "key: a short key");
	free(p);
	p = unit_path(dir, "none");
	OK(ar_key_read_public(p, rpk, err, sizeof err) < 0 && strstr(err,
	    "/none: No such file or directory"), "key: a missing file");
	free(p);
	free(q);
	unit_rmtree(dir);
}

static void
seeds(void)
{
	unsigned char k1[32], k2[32];
	unsigned long long a, b;

	memset(k1, 1, sizeof k1);
	memset(k2, 2, sizeof k2);
	a = ar_seed_derive(NULL, 0, "dev", "w", 1, 2);
	b = ar_seed_derive(NULL, 0, "dev", "w", 1, 2);
	OK(a == b, "seed: the same inputs, the same seed");
	OK(a != ar_seed_derive(NULL, 0, "dev", "w", 2, 1) &&
	    a != ar_seed_derive(NULL, 0, "dev", "x", 1, 2) &&
	    a != ar_seed_derive(NULL, 0, "hold", "w", 1, 2),
	    "seed: each input counts");
	/* Label and workload are NUL-separated: "ab"+"c" is not "a"+"bc". */
	OK(ar_seed_derive(NULL, 0, "ab", "c", 0, 0) !=
	    ar_seed_derive(NULL, 0, "a", "bc", 0, 0), "seed: fields do not "
	    "run together");
	OK(ar_seed_derive(k1, sizeof k1, "dev", "w", 1, 2) != a &&
	    ar_seed_derive(k1, sizeof k1, "dev", "w", 1, 2) !=
	    ar_seed_derive(k2, sizeof k2, "dev", "w", 1, 2), "seed: keyed "
	    "seeds depend on the key");
}

const struct unit_test unit_crypto[] = {
	TEST(hashes),
	TEST(signatures),
	TEST(canonical),
	TEST(by_signing),
	TEST(keys),
	TEST(seeds),
	UNIT_END,
};
