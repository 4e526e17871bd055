/* crypto.h: BLAKE2b-256 and Ed25519 through libsodium. */
#ifndef AR_CRYPTO_H
#define AR_CRYPTO_H

#include <stddef.h>
#include <jansson.h>

#define AR_HASH_HEX 65   /* 64 hex digits of BLAKE2b-256 and a NUL */
#define AR_SIG_HEX 129   /* 128 hex digits of Ed25519 and a NUL */
#define AR_PK_BYTES 32
#define AR_SK_BYTES 64

void ar_crypto_init(void);
void ar_hex(char *out, const unsigned char *in, size_t n);
int ar_unhex(unsigned char *out, size_t n, const char *hex);
void ar_hash_hex(char out[AR_HASH_HEX], const void *data, size_t len);
int ar_hash_file(const char *path, char out[AR_HASH_HEX]);
/* A public key's fingerprint: BLAKE2b-256 of its 32 bytes, in hex. */
void ar_key_fingerprint(char out[AR_HASH_HEX],
	const unsigned char pk[AR_PK_BYTES]);
/* The public half of a secret key. */
void ar_key_public_of(const unsigned char sk[AR_SK_BYTES],
	unsigned char pk[AR_PK_BYTES]);
void ar_keypair(unsigned char pk[AR_PK_BYTES], unsigned char sk[AR_SK_BYTES]);
void ar_sign_hex(char out[AR_SIG_HEX], const void *msg, size_t len,
	const unsigned char sk[AR_SK_BYTES]);
/* 0 if sighex is a valid signature of msg under pk. */
int ar_verify_hex(const char *sighex, const void *msg, size_t len,
	const unsigned char pk[AR_PK_BYTES]);
/* The same, for a caller that may hold the secret key: sk, when not NULL,
 * must pass ar_key_pair_ok with pk. It checks by signing msg again and
 * verifies only when the bytes differ; the answer is the same. */
int ar_verify_hex_by(const char *sighex, const void *msg, size_t len,
	const unsigned char pk[AR_PK_BYTES], const unsigned char *sk);
/* 1 if sk is the secret key of pk, both halves made from its seed. */
int ar_key_pair_ok(const unsigned char sk[AR_SK_BYTES],
	const unsigned char pk[AR_PK_BYTES]);
/* Key files hold one line: "ed25519-public HEX" or "ed25519-secret HEX". */
int ar_key_read_public(const char *path, unsigned char pk[AR_PK_BYTES],
	char *err, size_t errlen);
int ar_key_read_secret(const char *path, unsigned char sk[AR_SK_BYTES],
	char *err, size_t errlen);
/* Signs the canonical form of obj without "sig" and stores "sig". */
void ar_json_sign(json_t *obj, const unsigned char sk[AR_SK_BYTES]);
/* 0 if obj's "sig" signs the canonical form of the rest; else -1 and a
 * reason in err. */
int ar_json_verify(const json_t *obj, const unsigned char pk[AR_PK_BYTES],
	char *err, size_t errlen);

/* 0 if text, a stored result in canonical form, carries a good signature:
 * the same check as ar_json_verify without parsing and dumping again. */
int ar_verify_canonical(const char *text, size_t len,
	const unsigned char pk[AR_PK_BYTES]);
/* The same, signing again with sk when given (see ar_verify_hex_by). */
int ar_verify_canonical_by(const char *text, size_t len,
	const unsigned char pk[AR_PK_BYTES], const unsigned char *sk);

/* A 64-bit seed: BLAKE2b of label, workload, a and b, keyed with key
 * when given (holdout seeds: only the key's holder can know them). */
unsigned long long ar_seed_derive(const unsigned char *key, size_t keylen,
	const char *label, const char *workload, unsigned long long a,
	unsigned long long b);

#endif
