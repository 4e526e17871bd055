/* kref.h: the CPU references of the device kernels (kernels/cuda.cu), and
 * the input functions both sides share. The inline functions below are
 * compiled by the C compiler and by nvcc alike, so a kernel fills its
 * inputs with the very code the CPU uses to recompute them. */
#ifndef AR_KREF_H
#define AR_KREF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define AR_HD __host__ __device__
#else
#define AR_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Which input buffer a fill key names. */
enum ar_kref_buf {
	AR_KREF_SRC = 1,     /* the source of a copy */
	AR_KREF_A = 2,       /* the A matrix of a GEMM */
	AR_KREF_B = 3,       /* the B matrix of a GEMM */
	AR_KREF_SEND = 4     /* a rank's all-reduce input */
};

/* The key of one input buffer: which buffer, of which input set, of which
 * rank. Distinct buffers get unrelated data. */
static inline AR_HD uint64_t ar_kref_key(int buf, int set, int rank)
{
	return ((uint64_t)(unsigned)buf << 56) ^
	    ((uint64_t)(unsigned)set << 32) ^ (uint64_t)(unsigned)rank;
}

/* splitmix64's finalizer: every input bit moves every output bit. */
static inline AR_HD uint64_t ar_kref_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* 32 random bits for element idx of the buffer key. */
static inline AR_HD uint32_t ar_kref_hash(uint64_t key, uint64_t idx)
{
	return (uint32_t)(ar_kref_mix(idx + ar_kref_mix(key ^
	    0x9e3779b97f4a7c15ULL)) >> 32);
}

/* Byte off of a copy source: the 32-bit word off / 4, little-endian, so
 * the GPU may fill whole words. */
static inline AR_HD uint8_t ar_kref_byte(uint64_t key, uint64_t off)
{
	return (uint8_t)(ar_kref_hash(key, off >> 2) >> (8 * (off & 3)));
}

/* A uniform float in [-1, 1) with 24 random bits: GEMM inputs that toggle
 * every mantissa bit, as real data does (constant data runs faster). */
static inline AR_HD float ar_kref_unit(uint64_t key, uint64_t idx)
{
	return (float)((int32_t)(ar_kref_hash(key, idx) >> 8) - (1 << 23)) *
	    (1.0f / (float)(1 << 23));
}

static inline AR_HD uint32_t ar_kref_f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static inline AR_HD float ar_kref_u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* float to bf16, round to nearest even; NaN stays a quiet NaN. */
static inline AR_HD uint16_t ar_kref_bf16(float f)
{
	uint32_t u = ar_kref_f2u(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

static inline AR_HD float ar_kref_bf16_float(uint16_t h)
{
	return ar_kref_u2f((uint32_t)h << 16);
}

/* float to e4m3 (OCP FP8 E4M3FN: bias 7, no infinities, 0x7f and 0xff
 * the NaNs), round to nearest even, saturating at +-448 as cuBLAS's
 * conversions do; integer arithmetic only, so host and device agree. */
static inline AR_HD uint8_t ar_kref_e4m3(float f)
{
	uint32_t u = ar_kref_f2u(f);
	uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
	uint32_t ex = (u >> 23) & 0xffu, man = u & 0x7fffffu;
	int e = (int)ex - 127;
	uint32_t r, rem;

	if (ex == 0xff)
		return man ? (uint8_t)(sign | 0x7f) : (uint8_t)(sign | 0x7e);
	if (ex == 0)
		return sign; /* zero, and float subnormals far below e4m3's */
	if (e >= -6) {
		r = man >> 20;
		rem = man & 0xfffffu;
		if (rem > 0x80000u || (rem == 0x80000u && (r & 1u)))
			r++;
		if (r == 8) {
			r = 0;
			e++;
		}
		if (e > 8 || (e == 8 && r == 7))
			return (uint8_t)(sign | 0x7e);
		return (uint8_t)(sign | (uint32_t)((e + 7) << 3) | r);
	}
	/* Subnormal: the value in units of 2^-9, from the 24-bit significand
	 * shifted right by 14 - e (21 and more here). */
	{
		uint64_t sig = man | 0x800000u;
		int sh = 14 - e;
		uint64_t q, lo, half;

		if (sh > 40)
			return sign;
		q = sig >> sh;
		lo = sig & ((1ULL << sh) - 1);
		half = 1ULL << (sh - 1);
		if (lo > half || (lo == half && (q & 1)))
			q++;
		return (uint8_t)(sign | (uint8_t)q); /* q == 8: the least normal */
	}
}

static inline AR_HD float ar_kref_e4m3_float(uint8_t c)
{
	uint32_t sign = (uint32_t)(c & 0x80) << 24;
	uint32_t ex = (c >> 3) & 0xfu, m = c & 7u;

	if ((c & 0x7f) == 0x7f)
		return ar_kref_u2f(0x7fc00000u | sign);
	if (ex == 0) {
		float v = (float)m * (1.0f / 512.0f);

		return sign ? -v : v;
	}
	return ar_kref_u2f(sign | ((ex - 7 + 127) << 23) | (m << 20));
}

/* GEMM inputs: element idx of A or B of input set set. */
static inline AR_HD uint16_t ar_kref_gemm_bf16_in(int buf, int set,
    uint64_t idx)
{
	return ar_kref_bf16(ar_kref_unit(ar_kref_key(buf, set, 0), idx));
}

/* FP8 inputs span [-2, 2) so that small values hit the subnormals too. */
static inline AR_HD uint8_t ar_kref_gemm_e4m3_in(int buf, int set,
    uint64_t idx)
{
	return ar_kref_e4m3(2.0f * ar_kref_unit(ar_kref_key(buf, set, 0),
	    idx));
}

/* All-reduce input of rank rank: a multiple of 1/256 in [-8, 8) with 12
 * significant bits, so the sum of up to 4096 ranks is exact in float in
 * any order, and the expected value is computable exactly. */
static inline AR_HD float ar_kref_send(int set, int rank, uint64_t idx)
{
	return (float)((int32_t)(ar_kref_hash(ar_kref_key(AR_KREF_SEND, set,
	    rank), idx) & 0xfffu) - 2048) * (1.0f / 256.0f);
}

/* The GEMM check's entries: the (i, j) of check point p of sample s. */
static inline AR_HD void ar_kref_gemm_point(uint64_t s, int p, size_t n,
    size_t *i, size_t *j)
{
	uint64_t h = ar_kref_mix(ar_kref_mix(s + 0x5bd1e995ULL) + (uint64_t)p);

	*i = (size_t)((h & 0xffffffffULL) % n);
	*j = (size_t)((h >> 32) % n);
}

/* The relative error of a GEMM output d against the exact ref: scaled by
 * max(|ref|, mag), mag the root of the sum of the squared products, so
 * that an entry near zero by cancellation is judged on its terms' size. */
static inline AR_HD double ar_kref_gemm_relerr(double d, double ref,
    double mag)
{
	double den = ref < 0 ? -ref : ref;
	double diff = d - ref;

	if (mag > den)
		den = mag;
	if (diff < 0)
		diff = -diff;
	return den > 0 ? diff / den : diff;
}

/* Tolerances of the GEMM checks: bf16 output is within half an ulp
 * (2^-9) of the fp32 sum; fp32 accumulation adds far less at the K
 * used; FP8 GEMMs accumulate with fewer bits on some GPUs. */
#define AR_KREF_TOL_BF16 (1.0 / 64)
#define AR_KREF_TOL_FP8 (1.0 / 32)

/* dev/kref.c: the CPU side. */

/* Fills n bytes of copy source set set as the GPU does. */
void ar_kref_fill_src(void *p, size_t n, int set);
/* Fills an n x n GEMM input (A or B) of input set set. */
void ar_kref_fill_bf16(uint16_t *p, size_t n, int buf, int set);
void ar_kref_fill_e4m3(uint8_t *p, size_t n, int buf, int set);
/* Fills count floats of rank's all-reduce input of set set. */
void ar_kref_fill_send(float *p, size_t count, int set, int rank);

/*
 * The reference entry (i, j) of the TN GEMM the device runs: A and B are
 * stored K-major (element (k, i) of A at A[i * n + k], likewise B), D is
 * column-major (D[i + j * n]), so D(i, j) = sum over k of A[i * n + k] *
 * B[j * n + k]. Accumulated in double; *mag, when not NULL, gets the root
 * of the sum of the squared products (ar_kref_gemm_relerr).
 */
double ar_kref_gemm_bf16(const uint16_t *a, const uint16_t *b, size_t n,
    size_t i, size_t j, double *mag);
double ar_kref_gemm_e4m3(const uint8_t *a, const uint8_t *b, size_t n,
    size_t i, size_t j, double *mag);

/* The expected all-reduce sum of element idx over nranks ranks. */
float ar_kref_allreduce(int set, int nranks, uint64_t idx);

/* The number of bytes that differ between a and b. */
size_t ar_kref_mismatches(const void *a, const void *b, size_t n);

/*
 * Test hooks of the CUDA device (kernels/cuda.cu; dev/cuda-none.c fails
 * them), for tests/cuda-test.c: the input set of the last window's last
 * rep, and reads and writes of the prepared op's device buffers at a byte
 * offset. 0, or -1 with why.
 */
enum ar_cuda_buf {
	AR_CUDA_OUT,         /* dst, D or recv */
	AR_CUDA_IN0,         /* src, A or send of the last set used */
	AR_CUDA_IN1          /* B of the last set used */
};
int ar_cuda_last_set(void);
/* What prepare chose for the op: the copy kernel's shape, the cuBLASLt
 * algorithm; "" before. */
const char *ar_cuda_describe(void);
int ar_cuda_peek(int which, size_t off, void *buf, size_t bytes,
    char *why, size_t n);
int ar_cuda_poke(int which, size_t off, const void *buf, size_t bytes,
    char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
