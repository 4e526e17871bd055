/* ar-stream.h: the keyed generator a problem's prepare stage fills its
 * inputs with (ar-problem(5), "Inputs"). The bytes are ChaCha20's
 * keystream (RFC 8439) under a key made from AR_SEED, with a nonce made
 * from a label naming the input: a run that reads the inputs cannot
 * work back to the seed (ChaCha20 is a pseudo-random function), so it
 * cannot tell a holdout seed or tabulate the answers of later pairs.
 * Generators whose output reveals their state (splitmix64, xorshift, an
 * LCG, Mersenne Twister) must not be used for inputs.
 *
 * One header, no library: copy it into the problem directory (it is
 * sealed with it). Use:
 *
 *	struct ar_stream s;
 *	ar_stream_init(&s, seed, "w");       (a label per input)
 *	ar_stream_fill(&s, buf, len);
 *	uint32_t u = ar_stream_u32(&s);
 */
#ifndef AR_STREAM_H
#define AR_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ar_stream {
	uint32_t in[16];       /* constants, key, counter, nonce */
	uint8_t out[64];       /* the current block */
	size_t used;           /* bytes of out already given */
};

static inline uint32_t
ar_stream_rotl(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

#define AR_STREAM_QR(a, b, c, d) do { \
	a += b; d ^= a; d = ar_stream_rotl(d, 16); \
	c += d; b ^= c; b = ar_stream_rotl(b, 12); \
	a += b; d ^= a; d = ar_stream_rotl(d, 8); \
	c += d; b ^= c; b = ar_stream_rotl(b, 7); \
} while (0)

static inline void
ar_stream_block(struct ar_stream *s)
{
	uint32_t x[16];
	int i;

	memcpy(x, s->in, sizeof x);
	for (i = 0; i < 10; i++) {
		AR_STREAM_QR(x[0], x[4], x[8], x[12]);
		AR_STREAM_QR(x[1], x[5], x[9], x[13]);
		AR_STREAM_QR(x[2], x[6], x[10], x[14]);
		AR_STREAM_QR(x[3], x[7], x[11], x[15]);
		AR_STREAM_QR(x[0], x[5], x[10], x[15]);
		AR_STREAM_QR(x[1], x[6], x[11], x[12]);
		AR_STREAM_QR(x[2], x[7], x[8], x[13]);
		AR_STREAM_QR(x[3], x[4], x[9], x[14]);
	}
	for (i = 0; i < 16; i++) {
		uint32_t v = x[i] + s->in[i];

		s->out[4 * i] = (uint8_t)v;
		s->out[4 * i + 1] = (uint8_t)(v >> 8);
		s->out[4 * i + 2] = (uint8_t)(v >> 16);
		s->out[4 * i + 3] = (uint8_t)(v >> 24);
	}
	s->in[12]++;
	s->used = 0;
}

/* The stream of one input: seed is AR_SEED's value, label names the
 * input (each input its own label, so no two share bytes). */
static inline void
ar_stream_init(struct ar_stream *s, uint64_t seed, const char *label)
{
	uint64_t h = 0xcbf29ce484222325u, g = 0x84222325cbf29ce4u;
	const char *p;

	/* "expand 32-byte k", as RFC 8439. */
	s->in[0] = 0x61707865u;
	s->in[1] = 0x3320646eu;
	s->in[2] = 0x79622d32u;
	s->in[3] = 0x6b206574u;
	/* The key: the seed, and a constant naming this use. */
	s->in[4] = (uint32_t)seed;
	s->in[5] = (uint32_t)(seed >> 32);
	s->in[6] = 0x6f747561u;   /* "autoreduce inputs" */
	s->in[7] = 0x75646572u;
	s->in[8] = 0x69206563u;
	s->in[9] = 0x7475706eu;
	s->in[10] = 0x73u;
	s->in[11] = 0;
	s->in[12] = 0;
	/* The nonce: two FNV-1a hashes of the label and its length. The
	 * label is public; it only keeps the inputs' streams apart. */
	for (p = label; *p; p++) {
		h = (h ^ (uint8_t)*p) * 0x100000001b3u;
		g = (g ^ (uint8_t)*p) * 0x100000001b3u + 1;
	}
	s->in[13] = (uint32_t)h;
	s->in[14] = (uint32_t)(h >> 32) ^ (uint32_t)g;
	s->in[15] = (uint32_t)(p - label) ^ (uint32_t)(g >> 32);
	s->used = 64;
}

static inline void
ar_stream_fill(struct ar_stream *s, void *buf, size_t n)
{
	uint8_t *b = buf;

	while (n > 0) {
		size_t k;

		if (s->used == 64)
			ar_stream_block(s);
		k = 64 - s->used < n ? 64 - s->used : n;
		memcpy(b, s->out + s->used, k);
		s->used += k;
		b += k;
		n -= k;
	}
}

static inline uint32_t
ar_stream_u32(struct ar_stream *s)
{
	uint8_t b[4];

	ar_stream_fill(s, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

#endif
