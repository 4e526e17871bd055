/* crypto.c: BLAKE2b-256 hashes and Ed25519 signatures (libsodium). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "io.h"
#include "json.h"

void
ar_crypto_init(void)
{
	if (sodium_init() < 0)
		ar_die(AR_EX_SOFTWARE, "libsodium failed to start");
}

void
ar_hex(char *out, const unsigned char *in, size_t n)
{
	sodium_bin2hex(out, n * 2 + 1, in, n);
}

int
ar_unhex(unsigned char *out, size_t n, const char *hex)
{
	size_t got;
	const char *end;
	size_t i;

	if (strlen(hex) != n * 2)
		return -1;
	for (i = 0; i < n * 2; i++)
		if (!strchr("0123456789abcdef", hex[i]) || hex[i] == '\0')
			return -1;
	if (sodium_hex2bin(out, n, hex, n * 2, NULL, &got, &end) != 0 ||
	    got != n)
		return -1;
	return 0;
}

void
ar_hash_hex(char out[AR_HASH_HEX], const void *data, size_t len)
{
	unsigned char h[32];

	crypto_generichash(h, sizeof h, data, len, NULL, 0);
	ar_hex(out, h, sizeof h);
}

void
ar_key_fingerprint(char out[AR_HASH_HEX], const unsigned char pk[AR_PK_BYTES])
{
	ar_hash_hex(out, pk, AR_PK_BYTES);
}

void
ar_key_public_of(const unsigned char sk[AR_SK_BYTES],
    unsigned char pk[AR_PK_BYTES])
{
	crypto_sign_ed25519_sk_to_pk(pk, sk);
}

int
ar_hash_file(const char *path, char out[AR_HASH_HEX])
{
	crypto_generichash_state st;
	unsigned char h[32], chunk[65536];
	ssize_t n;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -1;
	crypto_generichash_init(&st, NULL, 0, sizeof h);
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		crypto_generichash_update(&st, chunk, (size_t)n);
	}
	close(fd);
	crypto_generichash_final(&st, h, sizeof h);
	ar_hex(out, h, sizeof h);
	return 0;
}

void
ar_keypair(unsigned char pk[AR_PK_BYTES], unsigned char sk[AR_SK_BYTES])
{
	crypto_sign_keypair(pk, sk);
}

void
ar_sign_hex(char out[AR_SIG_HEX], const void *msg, size_t len,
    const unsigned char sk[AR_SK_BYTES])
{
	unsigned char sig[crypto_sign_BYTES];

	crypto_sign_detached(sig, NULL, msg, len, sk);
	ar_hex(out, sig, sizeof sig);
}

int
ar_verify_hex(const char *sighex, const void *msg, size_t len,
    const unsigned char pk[AR_PK_BYTES])
{
	return ar_verify_hex_by(sighex, msg, len, pk, NULL);
}

int
ar_verify_hex_by(const char *sighex, const void *msg, size_t len,
    const unsigned char pk[AR_PK_BYTES], const unsigned char *sk)
{
	unsigned char sig[crypto_sign_BYTES], again[crypto_sign_BYTES];

	if (ar_unhex(sig, sizeof sig, sighex) < 0)
		return -1;
	/* Ed25519 signing is deterministic: the key's own signature of msg
	 * is the only one it makes, and making it costs a third of a
	 * verification. Any other bytes may still be a good signature (made
	 * elsewhere), so they are verified. */
	if (sk) {
		crypto_sign_detached(again, NULL, msg, len, sk);
		if (sodium_memcmp(again, sig, sizeof sig) == 0)
			return 0;
	}
	return crypto_sign_verify_detached(sig, msg, len, pk) == 0 ? 0 : -1;
}

int
ar_key_pair_ok(const unsigned char sk[AR_SK_BYTES],
    const unsigned char pk[AR_PK_BYTES])
{
	unsigned char seed[crypto_sign_SEEDBYTES], pk2[AR_PK_BYTES];
	unsigned char sk2[AR_SK_BYTES];
	int ok;

	/* The secret key file holds the public half too, and signing uses
	 * it as written: both halves must come from the seed. */
	crypto_sign_ed25519_sk_to_seed(seed, sk);
	crypto_sign_seed_keypair(pk2, sk2, seed);
	ok = sodium_memcmp(pk2, pk, AR_PK_BYTES) == 0 &&
	    sodium_memcmp(sk2, sk, AR_SK_BYTES) == 0;
	sodium_memzero(seed, sizeof seed);
	sodium_memzero(sk2, sizeof sk2);
	return ok;
}

static int
read_key(const char *path, const char *kind, unsigned char *out, size_t n,
    char *err, size_t errlen)
{
	struct ar_buf b = {0};
	size_t klen = strlen(kind);
	int r = -1;

	if (ar_readfile(path, &b, 4096) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (b.len > 0 && b.p[b.len - 1] == '\n')
		b.p[--b.len] = '\0';
	if (b.len != klen + 1 + n * 2 || strncmp(b.p, kind, klen) != 0 ||
	    b.p[klen] != ' ' || ar_unhex(out, n, b.p + klen + 1) < 0)
		snprintf(err, errlen, "%s: not an %s key file", path, kind);
	else
		r = 0;
	sodium_memzero(b.p, b.cap);
	ar_buf_free(&b);
	return r;
}

int
ar_key_read_public(const char *path, unsigned char pk[AR_PK_BYTES],
    char *err, size_t errlen)
{
	return read_key(path, "ed25519-public", pk, AR_PK_BYTES, err, errlen);
}

int
ar_key_read_secret(const char *path, unsigned char sk[AR_SK_BYTES],
    char *err, size_t errlen)
{
	return read_key(path, "ed25519-secret", sk, AR_SK_BYTES, err, errlen);
}

void
ar_json_sign(json_t *obj, const unsigned char sk[AR_SK_BYTES])
{
	char sig[AR_SIG_HEX], *canon;

	json_object_del(obj, "sig");
	canon = ar_json_canon(obj);
	ar_sign_hex(sig, canon, strlen(canon), sk);
	free(canon);
	json_object_set_new(obj, "sig", json_string(sig));
}

int
ar_json_verify(const json_t *obj, const unsigned char pk[AR_PK_BYTES],
    char *err, size_t errlen)
{
	const char *sig = json_string_value(json_object_get(obj, "sig"));
	json_t *copy;
	char *canon;
	int r;

	if (!json_is_object(obj)) {
		snprintf(err, errlen, "not a JSON object");
		return -1;
	}
	if (!sig) {
		snprintf(err, errlen, "no signature (\"sig\")");
		return -1;
	}
	copy = json_copy((json_t *)obj);
	json_object_del(copy, "sig");
	canon = ar_json_canon(copy);
	json_decref(copy);
	r = ar_verify_hex(sig, canon, strlen(canon), pk);
	free(canon);
	if (r < 0)
		snprintf(err, errlen, "bad signature");
	return r;
}

/* Finds the top-level member "sig" of a compact JSON object: its start
 * (with the comma before it, or after it when first) and its end. */
static int
find_sig(const char *s, size_t len, size_t *from, size_t *to)
{
	size_t i = 0, depth = 0, key_at = 0;
	int in_str = 0, expect_key = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		switch (c) {
		case '"':
			if (depth == 1 && expect_key) {
				key_at = i;
				expect_key = 0;
				if (len - i > 6 && memcmp(s + i, "\"sig\":\"", 7) == 0) {
					size_t end = i + 7;

					while (end < len && s[end] != '"' &&
					    s[end] != '\\')
						end++;
					if (end >= len || s[end] != '"')
						return -1;
					end++;
					if (s[key_at - 1] == ',') {
						*from = key_at - 1;
						*to = end;
					} else if (end < len && s[end] == ',') {
						*from = key_at;
						*to = end + 1;
					} else {
						*from = key_at;
						*to = end;
					}
					return 0;
				}
			}
			in_str = 1;
			break;
		case '{':
		case '[':
			depth++;
			expect_key = depth == 1 && c == '{';
			break;
		case '}':
		case ']':
			depth--;
			break;
		case ',':
			expect_key = depth == 1;
			break;
		}
	}
	return -1;
}

int
ar_verify_canonical(const char *text, size_t len,
    const unsigned char pk[AR_PK_BYTES])
{
	return ar_verify_canonical_by(text, len, pk, NULL);
}

int
ar_verify_canonical_by(const char *text, size_t len,
    const unsigned char pk[AR_PK_BYTES], const unsigned char *sk)
{
	char sig[AR_SIG_HEX], *msg;
	size_t from, to;
	int r;

	if (find_sig(text, len, &from, &to) < 0)
		return -1;
	/* The member is "sig":"HEX"; HEX starts 7 bytes into it. */
	{
		size_t at = text[from] == ',' ? from + 1 : from;

		if (to - at < 7 + 128 + 1 || text[at + 7 + 128] != '"')
			return -1;
		memcpy(sig, text + at + 7, 128);
		sig[128] = '\0';
	}
	msg = ar_xmalloc(len - (to - from) + 1);
	memcpy(msg, text, from);
	memcpy(msg + from, text + to, len - to);
	r = ar_verify_hex_by(sig, msg, len - (to - from), pk, sk);
	free(msg);
	return r;
}

unsigned long long
ar_seed_derive(const unsigned char *key, size_t keylen, const char *label,
    const char *workload, unsigned long long a, unsigned long long b)
{
	crypto_generichash_state st;
	unsigned char h[8], n[16];
	unsigned long long s = 0;
	int i;

	/* Fixed byte order, so a seed is the same on every machine. */
	for (i = 0; i < 8; i++) {
		n[i] = (unsigned char)(a >> (8 * i));
		n[8 + i] = (unsigned char)(b >> (8 * i));
	}
	crypto_generichash_init(&st, key, key ? keylen : 0, sizeof h);
	crypto_generichash_update(&st, (const unsigned char *)label,
	    strlen(label) + 1);
	crypto_generichash_update(&st, (const unsigned char *)workload,
	    strlen(workload) + 1);
	crypto_generichash_update(&st, n, sizeof n);
	crypto_generichash_final(&st, h, sizeof h);
	for (i = 0; i < 8; i++)
		s |= (unsigned long long)h[i] << (8 * i);
	return s;
}
