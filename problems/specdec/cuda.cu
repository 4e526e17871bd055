/* cuda.cu: specdec's forward pass on a GPU, with bf16 weights and float
 * activations, every operation in model.c's order and rounding: a warp
 * per dot product in sd_dot's order, attention by one thread per row
 * and head in order of position, sd_exp's exp; every operation is an
 * explicitly rounded intrinsic (no multiply fused into an add, whatever
 * nvcc's flags), so that the outputs are model.c's bits, and a row's never depend on its batch (no split-K, no
 * batch-dependent algorithm). Kernels of my own throughout: no cuBLASLt
 * algorithm is pinned to one reduction order for every batch size. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-cuda.h"

/* Rounded operations, never fused or approximated, whatever the flags
 * (--fmad, --use_fast_math): model.c's bits. */
#define ADD(a, b) __fadd_rn((a), (b))
#define SUB(a, b) __fsub_rn((a), (b))
#define MUL(a, b) __fmul_rn((a), (b))

#define CK(call) do { \
	cudaError_t err_ = (call); \
	if (err_ != cudaSuccess) { \
		say(why, nwhy, "%s:%d: %s: %s", __FILE__, __LINE__, #call, \
		    cudaGetErrorString(err_)); \
		return -1; \
	} \
} while (0)

static void
say(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || n == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

/* Offsets of one network's tensors in its bf16 array. */
struct dlayer {
	size_t anorm, wq, wk, wv, wo, fnorm, w1, w3, w2;
};
struct dnet {
	struct sd_net net;
	__nv_bfloat16 *w;
	size_t emb, fnorm, head;
	struct dlayer l[16];
};

/* A row on the device. */
struct drow {
	int tok, pos, dom, cap;
	float *k, *v;
};

struct sd_cuda {
	struct dnet d, e;
	float *cos, *sin, *scale;
	/* Scratch, grown as needed. */
	size_t cap_rows, cap_sc;
	float *x, *xn, *tmp, *q, *att, *k, *v, *h1, *h3, *ld, *le, *sc;
	struct drow *rows_d, *rows_e;
	int *am;
};

__device__ static float
dexp(float x)
{
	float n, r, p;

	if (x < -87.0f)
		return 0.0f;
	if (x > 88.0f)
		x = 88.0f;
	n = floorf(ADD(MUL(x, 1.44269504f), 0.5f));
	r = SUB(x, MUL(n, 0.693145752f));
	r = SUB(r, MUL(n, 1.42860677e-6f));
	p = 1.0f / 720;
	p = ADD(MUL(p, r), 1.0f / 120);
	p = ADD(MUL(p, r), 1.0f / 24);
	p = ADD(MUL(p, r), 1.0f / 6);
	p = ADD(MUL(p, r), 0.5f);
	p = ADD(MUL(p, r), 1.0f);
	p = ADD(MUL(p, r), 1.0f);
	return MUL(p, __uint_as_float((uint32_t)((int)n + 127) << 23));
}

/* sd_dot's order: chunk c of 8 to lane c % 32, then a shuffle-down
 * tree; the sum is in lane 0. */
__device__ static float
warp_dot_ff(const float *a, const float *b, int n, int lane)
{
	float s = 0;

	for (int c = lane; c < n / 8; c += 32)
		for (int e = 0; e < 8; e++)
			s = ADD(s, MUL(a[c * 8 + e], b[c * 8 + e]));
	for (int off = 16; off > 0; off /= 2)
		s = ADD(s, __shfl_down_sync(0xffffffffu, s, off));
	return s;
}

__global__ static void
k_embed(float *x, const __nv_bfloat16 *emb, const struct drow *rows, int n,
    int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n * d)
		x[i] = __bfloat162float(emb[(size_t)rows[i / d].tok * d + i % d]);
}

/* A warp per row. */
__global__ static void
k_rmsnorm(float *y, const float *x, const __nv_bfloat16 *g, const float *gf,
    int n, int d)
{
	int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
	float ss, rs;

	if (r >= n)
		return;
	ss = warp_dot_ff(x + (size_t)r * d, x + (size_t)r * d, d, lane);
	ss = __shfl_sync(0xffffffffu, ss, 0);
	rs = __fdiv_rn(1.0f, __fsqrt_rn(ADD(__fdiv_rn(ss, (float)d), 1e-5f)));
	for (int i = lane; i < d; i += 32)
		y[(size_t)r * d + i] = MUL(MUL(x[(size_t)r * d + i], rs),
		    g != NULL ? __bfloat162float(g[i]) : gf[i]);
}

/* y[r][o] = W[o] . x[r], a warp per output and tile of up to MM_ROWS
 * rows: each lane reads its chunks of W[o] once for the whole tile, so
 * a decode pass streams the weights once rather than once a row (it is
 * bound by memory, and a verification's extra rows come nearly free).
 * Each row's sum is still made in sd_dot's order (warp_dot_ff's), so
 * its bits do not depend on its tile-mates or on n. */
#define MM_ROWS 8

__global__ static void
k_matmul(float *y, const float *x, const __nv_bfloat16 *w, int n, int in,
    int out)
{
	size_t wid = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	size_t tiles = ((size_t)n + MM_ROWS - 1) / MM_ROWS;
	int lane = threadIdx.x % 32, o, r0, nr;
	const __nv_bfloat16 *wo;
	float s[MM_ROWS];

	if (wid >= tiles * out)
		return;
	o = (int)(wid % out);
	r0 = (int)(wid / out) * MM_ROWS;
	nr = n - r0 < MM_ROWS ? n - r0 : MM_ROWS;
	wo = w + (size_t)o * in;
	for (int r = 0; r < MM_ROWS; r++)
		s[r] = 0;
	for (int c = lane; c < in / 8; c += 32) {
		float wf[8];

		for (int e = 0; e < 8; e++)
			wf[e] = __bfloat162float(wo[c * 8 + e]);
		for (int r = 0; r < MM_ROWS; r++) {
			const float *xr = x + (size_t)(r0 + r) * in + c * 8;

			if (r >= nr)
				break;
			for (int e = 0; e < 8; e++)
				s[r] = ADD(s[r], MUL(wf[e], xr[e]));
		}
	}
	/* nr is the same in every lane: the shuffles see the whole warp. */
	for (int r = 0; r < MM_ROWS; r++) {
		float v = s[r];

		if (r >= nr)
			break;
		for (int off = 16; off > 0; off /= 2)
			v = ADD(v, __shfl_down_sync(0xffffffffu, v, off));
		if (lane == 0)
			y[(size_t)(r0 + r) * out + o] = v;
	}
}

/* The same sums, a warp per MW_OUTS outputs and tile of MM_ROWS rows:
 * each lane loads a chunk of 8 weights of each output in one 16-byte
 * load and each row's 8 inputs in two, and uses every value loaded
 * MW_OUTS or MM_ROWS times, where k_matmul loads an input per product.
 * Each (row, output) is still summed chunk by chunk, 8 products in
 * order, then the shuffle-down tree: k_matmul's bits. Needs in % 8 == 0
 * and w, x 16-byte aligned (matmul() checks). */
#define MW_OUTS 4

__global__ static void
k_matmul_wide(float *y, const float *x, const __nv_bfloat16 *w, int n,
    int in, int out)
{
	size_t wid = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	size_t groups = ((size_t)out + MW_OUTS - 1) / MW_OUTS;
	size_t tiles = ((size_t)n + MM_ROWS - 1) / MM_ROWS;
	int lane = threadIdx.x % 32, o0, r0, nr, no;
	float s[MW_OUTS][MM_ROWS];

	if (wid >= tiles * groups)
		return;
	o0 = (int)(wid % groups) * MW_OUTS;
	r0 = (int)(wid / groups) * MM_ROWS;
	nr = n - r0 < MM_ROWS ? n - r0 : MM_ROWS;
	no = out - o0 < MW_OUTS ? out - o0 : MW_OUTS;
	for (int j = 0; j < MW_OUTS; j++)
		for (int r = 0; r < MM_ROWS; r++)
			s[j][r] = 0;
	for (int c = lane; c < in / 8; c += 32) {
		float wf[MW_OUTS][8];

		for (int j = 0; j < MW_OUTS; j++) {
			uint4 u = make_uint4(0, 0, 0, 0);
			const __nv_bfloat162 *h = (const __nv_bfloat162 *)&u;

			if (j < no)
				u = *(const uint4 *)(w + (size_t)(o0 + j) * in +
				    (size_t)c * 8);
			for (int e = 0; e < 4; e++) {
				float2 f = __bfloat1622float2(h[e]);

				wf[j][2 * e] = f.x;
				wf[j][2 * e + 1] = f.y;
			}
		}
		for (int r = 0; r < MM_ROWS; r++) {
			const float4 *xr;
			float4 a, b;
			float xv[8];

			if (r >= nr)
				break;
			xr = (const float4 *)(x + (size_t)(r0 + r) * in +
			    (size_t)c * 8);
			a = xr[0];
			b = xr[1];
			xv[0] = a.x, xv[1] = a.y, xv[2] = a.z, xv[3] = a.w;
			xv[4] = b.x, xv[5] = b.y, xv[6] = b.z, xv[7] = b.w;
			for (int j = 0; j < MW_OUTS; j++)
				for (int e = 0; e < 8; e++)
					s[j][r] = ADD(s[j][r], MUL(wf[j][e], xv[e]));
		}
	}
	/* nr and no are the same in every lane: whole-warp shuffles. */
	for (int j = 0; j < MW_OUTS; j++) {
		if (j >= no)
			break;
		for (int r = 0; r < MM_ROWS; r++) {
			float v = s[j][r];

			if (r >= nr)
				break;
			for (int off = 16; off > 0; off /= 2)
				v = ADD(v, __shfl_down_sync(0xffffffffu, v, off));
			if (lane == 0)
				y[(size_t)(r0 + r) * out + o0 + j] = v;
		}
	}
}

static unsigned blocks(size_t threads, int per);

/* Which GEMM kernel matmul() launches: SD_GEMM_WIDE once sd_cuda_open
 * has found it gives SD_GEMM_WARP's bits on the model's shapes. */
static int gemm_kind = SD_GEMM_WARP;
/* And which attention kernel: SD_ATTEND_BLOCK once it gave attend1's bits. */
static int attend_kind = SD_ATTEND_THREAD;

#ifdef SD_NONINVARIANT
/* Only for tests/specdec-gpu-invariance: a GEMM that, like one choosing
 * a lower precision for large batches, rounds its inputs and outputs to
 * bf16 when it has more than one row (model.c's -DSD_NONINVARIANT, on
 * the GPU). The score must catch it. */
__global__ static void
k_round_bf16(float *a, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = __bfloat162float(__float2bfloat16_rn(a[i]));
}
#endif

static void
matmul(float *y, const float *x, const __nv_bfloat16 *w, int n, int in,
    int out)
{
	size_t tiles = ((size_t)n + MM_ROWS - 1) / MM_ROWS;

#ifdef SD_NONINVARIANT
	if (n > 1)
		k_round_bf16<<<blocks((size_t)n * in, 256), 256>>>((float *)x,
		    (size_t)n * in);
#endif
	if (gemm_kind == SD_GEMM_WIDE && in % 8 == 0 &&
	    (uintptr_t)w % 16 == 0 && (uintptr_t)x % 16 == 0) {
		size_t groups = ((size_t)out + MW_OUTS - 1) / MW_OUTS;

		k_matmul_wide<<<blocks(tiles * groups * 32, 256), 256>>>(y, x, w,
		    n, in, out);
	} else
		k_matmul<<<blocks(tiles * out * 32, 256), 256>>>(y, x, w, n, in,
		    out);
#ifdef SD_NONINVARIANT
	if (n > 1)
		k_round_bf16<<<blocks((size_t)n * out, 256), 256>>>(y,
		    (size_t)n * out);
#endif
}

int
sd_cuda_gemm(int kind)
{
	int was = gemm_kind;

	if (kind == SD_GEMM_WARP || kind == SD_GEMM_WIDE)
		gemm_kind = kind;
	return was;
}

/* Both kernels on one shape, n rows of made-up values: 1 when their
 * outputs are the same bits, 0 when not, -1 on a CUDA error. */
__global__ static void
k_pattern(float *a, size_t n, unsigned seed, int bf)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned h;

	if (i >= n)
		return;
	h = (unsigned)i * 2654435761u ^ seed;
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	if (bf)
		((__nv_bfloat16 *)a)[i] = __float2bfloat16(
		    ((float)(h & 0xffff) / 65536.0f - 0.5f) * 0.2f);
	else
		a[i] = ((float)(h & 0xffff) / 65536.0f - 0.5f) * 4.0f;
}

static int
gemm_same(int n, int in, int out)
{
	void *w = NULL, *x = NULL, *y1 = NULL, *y2 = NULL;
	float *h1, *h2;
	size_t ny = (size_t)n * out;
	int same = -1;

	h1 = (float *)malloc(ny * sizeof(float));
	h2 = (float *)malloc(ny * sizeof(float));
	if (h1 != NULL && h2 != NULL &&
	    cudaMalloc(&w, (size_t)in * out * 2) == cudaSuccess &&
	    cudaMalloc(&x, (size_t)n * in * 4) == cudaSuccess &&
	    cudaMalloc(&y1, ny * 4) == cudaSuccess &&
	    cudaMalloc(&y2, ny * 4) == cudaSuccess) {
		int was = gemm_kind;

		k_pattern<<<blocks((size_t)in * out, 256), 256>>>((float *)w,
		    (size_t)in * out, 7u, 1);
		k_pattern<<<blocks((size_t)n * in, 256), 256>>>((float *)x,
		    (size_t)n * in, 11u, 0);
		gemm_kind = SD_GEMM_WARP;
		matmul((float *)y1, (float *)x, (__nv_bfloat16 *)w, n, in, out);
		gemm_kind = SD_GEMM_WIDE;
		matmul((float *)y2, (float *)x, (__nv_bfloat16 *)w, n, in, out);
		gemm_kind = was;
		if (cudaGetLastError() == cudaSuccess &&
		    cudaMemcpy(h1, y1, ny * 4, cudaMemcpyDeviceToHost) ==
		    cudaSuccess &&
		    cudaMemcpy(h2, y2, ny * 4, cudaMemcpyDeviceToHost) ==
		    cudaSuccess)
			same = memcmp(h1, h2, ny * 4) == 0;
	}
	cudaFree(w);
	cudaFree(x);
	cudaFree(y1);
	cudaFree(y2);
	free(h1);
	free(h2);
	return same;
}

static void attend_choose(const struct sd_model *m);

/* The wide kernel is taken only where it gives the warp kernel's bits
 * on every GEMM shape of both networks, with 1 row and with 13 (a whole
 * tile and a partial one). */
static void
gemm_choose(const struct sd_model *m)
{
	const struct sd_net *nets[2] = { &m->d, &m->e };
	int ok = 1;

	for (int i = 0; i < 2 && ok; i++) {
		const struct sd_net *t = nets[i];
		int q = t->heads * t->hd, kv = t->kvh * t->hd;
		int shapes[6][2] = { { t->dim, q }, { t->dim, kv }, { q, t->dim },
		    { t->dim, t->ffn }, { t->ffn, t->dim }, { t->dim, SD_VOCAB } };

		for (int sh = 0; sh < 6 && ok; sh++)
			for (int rows = 1; rows <= 13 && ok; rows += 12)
				if (gemm_same(rows, shapes[sh][0], shapes[sh][1]) != 1) {
					fprintf(stderr, "sd-cuda: the wide GEMM kernel "
					    "differs from the warp kernel on %d x %d x %d; "
					    "the warp kernel is used\n", rows, shapes[sh][0],
					    shapes[sh][1]);
					ok = 0;
				}
	}
	gemm_kind = ok ? SD_GEMM_WIDE : SD_GEMM_WARP;
}

__device__ static void
rope1(float *v, int i, int h, const float *c, const float *s)
{
	float a = v[i], b = v[i + h];

	v[i] = SUB(MUL(a, c[i]), MUL(b, s[i]));
	v[i + h] = ADD(MUL(a, s[i]), MUL(b, c[i]));
}

/* A thread per (row, head, pair); k heads also go to the cache. */
__global__ static void
k_rope_kv(float *q, float *k, const float *v, const struct drow *rows,
    int n, int heads, int kvh, int hd, int layer, const float *cs,
    const float *sn)
{
	int h = hd / 2, t = blockIdx.x * blockDim.x + threadIdx.x;
	int per = (heads + kvh) * h, r = t / per, j = t % per, hh = j / h,
	    i = j % h;
	const struct drow *rw;

	if (r >= n)
		return;
	rw = &rows[r];
	if (hh < heads) {
		rope1(q + (size_t)r * heads * hd + (size_t)hh * hd, i, h,
		    cs + (size_t)rw->pos * h, sn + (size_t)rw->pos * h);
		return;
	}
	hh -= heads;
	{
		int kvd = kvh * hd;
		float *kr = k + (size_t)r * kvd + (size_t)hh * hd;
		size_t off = ((size_t)layer * rw->cap + rw->pos) * kvd +
		    (size_t)hh * hd;

		rope1(kr, i, h, cs + (size_t)rw->pos * h, sn + (size_t)rw->pos * h);
		rw->k[off + i] = kr[i];
		rw->k[off + i + h] = kr[i + h];
		rw->v[off + i] = v[(size_t)r * kvd + (size_t)hh * hd + i];
		rw->v[off + i + h] = v[(size_t)r * kvd + (size_t)hh * hd + i + h];
	}
}

/* sd_attend for one (row, head) per thread; sc holds stride floats. */
__device__ static void
attend1(float *o, const float *qh, const float *kc, const float *vc, int pos,
    int g, int kvd, int hd, float *sc)
{
	float scale = __fdiv_rn(1.0f, __fsqrt_rn((float)hd)), mx = -INFINITY,
	    sum = 0;
	float acc[64];

	for (int t = 0; t <= pos; t++) {
		const float *kt = kc + (size_t)t * kvd + (size_t)g * hd;
		float s = 0;

		for (int i = 0; i < hd; i++)
			s = ADD(s, MUL(qh[i], kt[i]));
		sc[t] = MUL(s, scale);
		if (sc[t] > mx)
			mx = sc[t];
	}
	for (int t = 0; t <= pos; t++) {
		sc[t] = dexp(SUB(sc[t], mx));
		sum = ADD(sum, sc[t]);
	}
	for (int i = 0; i < hd; i++)
		acc[i] = 0;
	for (int t = 0; t <= pos; t++) {
		const float *vt = vc + (size_t)t * kvd + (size_t)g * hd;
		float p = __fdiv_rn(sc[t], sum);

		for (int i = 0; i < hd; i++)
			acc[i] = ADD(acc[i], MUL(p, vt[i]));
	}
	for (int i = 0; i < hd; i++)
		o[i] = acc[i];
}

__global__ static void
k_attend(float *att, const float *q, const struct drow *rows, int n,
    int heads, int kvh, int hd, int layer, float *sc, size_t stride)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x, r = t / heads,
	    h = t % heads, kvd = kvh * hd;
	const struct drow *rw;
	size_t lo;

	if (r >= n)
		return;
	rw = &rows[r];
	lo = (size_t)layer * rw->cap * kvd;
	attend1(att + (size_t)r * heads * hd + (size_t)h * hd,
	    q + (size_t)r * heads * hd + (size_t)h * hd, rw->k + lo, rw->v + lo,
	    rw->pos, h / (heads / kvh), kvd, hd, sc + (size_t)t * stride);
}

/* sd_attend with a block of 64 threads per (row, head): the scores of
 * the positions side by side (each one thread's dot in order), the
 * maximum (exact in any order), the exps side by side, their sum by
 * one thread in order of position, then each output element by its own
 * thread, over positions in order: attend1's bits, without one thread
 * walking every position and element alone. hd <= 64. */
#define AT_THREADS 64

__device__ static void
attend_block(float *o, const float *qh, const float *kc, const float *vc,
    int pos, int g, int kvd, int hd, float *sc)
{
	__shared__ float red[AT_THREADS];
	__shared__ float sum_s;
	float scale = __fdiv_rn(1.0f, __fsqrt_rn((float)hd)), mx = -INFINITY;
	int tid = threadIdx.x;

	for (int t = tid; t <= pos; t += AT_THREADS) {
		const float *kt = kc + (size_t)t * kvd + (size_t)g * hd;
		float s = 0;

		for (int i = 0; i < hd; i++)
			s = ADD(s, MUL(qh[i], kt[i]));
		sc[t] = MUL(s, scale);
		if (sc[t] > mx)
			mx = sc[t];
	}
	red[tid] = mx;
	__syncthreads();
	if (tid == 0) {
		for (int i = 1; i < AT_THREADS; i++)
			if (red[i] > mx)
				mx = red[i];
		red[0] = mx;
	}
	__syncthreads();
	mx = red[0];
	for (int t = tid; t <= pos; t += AT_THREADS)
		sc[t] = dexp(SUB(sc[t], mx));
	__syncthreads();
	if (tid == 0) {
		float sum = 0;

		for (int t = 0; t <= pos; t++)
			sum = ADD(sum, sc[t]);
		sum_s = sum;
	}
	__syncthreads();
	if (tid < hd) {
		float acc = 0;

		for (int t = 0; t <= pos; t++)
			acc = ADD(acc, MUL(__fdiv_rn(sc[t], sum_s),
			    vc[(size_t)t * kvd + (size_t)g * hd + tid]));
		o[tid] = acc;
	}
}

__global__ static void
k_attend_block(float *att, const float *q, const struct drow *rows, int n,
    int heads, int kvh, int hd, int layer, float *sc, size_t stride)
{
	int t = blockIdx.x, r = t / heads, h = t % heads, kvd = kvh * hd;
	const struct drow *rw;
	size_t lo;

	if (r >= n)
		return;
	rw = &rows[r];
	lo = (size_t)layer * rw->cap * kvd;
	attend_block(att + (size_t)r * heads * hd + (size_t)h * hd,
	    q + (size_t)r * heads * hd + (size_t)h * hd, rw->k + lo, rw->v + lo,
	    rw->pos, h / (heads / kvh), kvd, hd, sc + (size_t)t * stride);
}

__global__ static void
k_add(float *x, const float *y, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = ADD(x[i], y[i]);
}

__global__ static void
k_swiglu(float *h1, const float *h3, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		float a = h1[i];

		h1[i] = MUL(__fdiv_rn(a, ADD(1.0f, dexp(-a))), h3[i]);
	}
}

__global__ static void
k_exp(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = dexp(x[i]);
}

/* A warp per row: the target's logits (le given) or the draft's, and
 * the first index of the maximum, as sd_argmax. */
__global__ static void
k_argmax(int *am, float *ld, const float *le, const struct drow *rows,
    const float *scale, int n)
{
	int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
	int bi = -1;
	float bv = 0;

	if (r >= n)
		return;
	for (int i = lane; i < SD_VOCAB; i += 32) {
		size_t j = (size_t)r * SD_VOCAB + i;
		float l = ld[j];

		if (le != NULL) {
			l = ADD(l, MUL(scale[rows[r].dom], le[j]));
			ld[j] = l;
		}
		if (bi < 0 || l > bv)
			bv = l, bi = i;
	}
	for (int off = 16; off > 0; off /= 2) {
		float ov = __shfl_down_sync(0xffffffffu, bv, off);
		int oi = __shfl_down_sync(0xffffffffu, bi, off);

		if (ov > bv || (ov == bv && oi < bi))
			bv = ov, bi = oi;
	}
	if (lane == 0)
		am[r] = bi;
}

static unsigned
blocks(size_t threads, int per)
{
	return (unsigned)((threads + per - 1) / per);
}

__global__ static void
k_to_bf16(__nv_bfloat16 *y, const float *x, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = __float2bfloat16_rn(x[i]);
}

/* The weights go up as floats, UP_CHUNK at a time, and the GPU rounds
 * them to bf16 (exact: gen made them bf16 values): rounding 974M floats
 * on the host, one core, cost the 1b size's run about a second. */
#define UP_CHUNK ((size_t)32 << 20)

static int
upload_net(struct dnet *dn, const struct sd_net *net, const float *a,
    char *why, size_t nwhy)
{
	size_t total = sd_net_floats(net),
	    chunk = total < UP_CHUNK ? total : UP_CHUNK;
	struct sd_weights w;
	float *stage = NULL;

	dn->net = *net;
	dn->w = NULL;
	if (cudaMalloc(&dn->w, total * sizeof *dn->w) != cudaSuccess ||
	    cudaMalloc(&stage, chunk * sizeof *stage) != cudaSuccess) {
		say(why, nwhy, "cannot upload the weights: %s",
		    cudaGetErrorString(cudaGetLastError()));
		cudaFree(stage);
		return -1;
	}
	for (size_t at = 0; at < total; at += chunk) {
		size_t n = total - at < chunk ? total - at : chunk;

		if (cudaMemcpy(stage, a + at, n * sizeof *stage,
		    cudaMemcpyHostToDevice) != cudaSuccess) {
			say(why, nwhy, "cannot upload the weights: %s",
			    cudaGetErrorString(cudaGetLastError()));
			cudaFree(stage);
			return -1;
		}
		k_to_bf16<<<blocks(n, 256), 256>>>(dn->w + at, stage, n);
	}
	if (cudaDeviceSynchronize() != cudaSuccess) {
		say(why, nwhy, "cannot upload the weights: %s",
		    cudaGetErrorString(cudaGetLastError()));
		cudaFree(stage);
		return -1;
	}
	cudaFree(stage);
	sd_weights_map(&w, net, a);
	dn->emb = (size_t)(w.emb - a);
	dn->fnorm = (size_t)(w.fnorm - a);
	dn->head = (size_t)(w.head - a);
	for (int i = 0; i < net->layers; i++) {
		dn->l[i].anorm = (size_t)(w.l[i].anorm - a);
		dn->l[i].wq = (size_t)(w.l[i].wq - a);
		dn->l[i].wk = (size_t)(w.l[i].wk - a);
		dn->l[i].wv = (size_t)(w.l[i].wv - a);
		dn->l[i].wo = (size_t)(w.l[i].wo - a);
		dn->l[i].fnorm = (size_t)(w.l[i].fnorm - a);
		dn->l[i].w1 = (size_t)(w.l[i].w1 - a);
		dn->l[i].w3 = (size_t)(w.l[i].w3 - a);
		dn->l[i].w2 = (size_t)(w.l[i].w2 - a);
	}
	return 0;
}

int
sd_cuda_open(struct sd_cuda **cp, const struct sd_model *m, const float *dw,
    const float *ew, char *why, size_t nwhy)
{
	struct sd_cuda *c = (struct sd_cuda *)calloc(1, sizeof *c);
	size_t nr = (size_t)SD_MAXPOS * 32;
	float s[SD_NDOM];

	if (c == NULL) {
		say(why, nwhy, "out of memory");
		return -1;
	}
	*cp = c;
	if (upload_net(&c->d, &m->d, dw, why, nwhy) < 0 ||
	    upload_net(&c->e, &m->e, ew, why, nwhy) < 0)
		return -1;
	sd_rope_init(m->d.hd);
	for (int i = 0; i < SD_NDOM; i++)
		s[i] = sd_domain_scale(i);
	CK(cudaMalloc(&c->cos, nr * sizeof(float)));
	CK(cudaMalloc(&c->sin, nr * sizeof(float)));
	CK(cudaMalloc(&c->scale, sizeof s));
	CK(cudaMemcpy(c->cos, sd_rope_cos(), nr * sizeof(float),
	    cudaMemcpyHostToDevice));
	CK(cudaMemcpy(c->sin, sd_rope_sin(), nr * sizeof(float),
	    cudaMemcpyHostToDevice));
	CK(cudaMemcpy(c->scale, s, sizeof s, cudaMemcpyHostToDevice));
	/* SD_GEMM=warp keeps the first kernels, for comparisons. */
	if (getenv("SD_GEMM") != NULL && strcmp(getenv("SD_GEMM"), "warp") == 0) {
		gemm_kind = SD_GEMM_WARP;
		attend_kind = SD_ATTEND_THREAD;
	} else {
		gemm_choose(m);
		attend_choose(m);
	}
	return 0;
}

void
sd_cuda_close(struct sd_cuda *c)
{
	if (c == NULL)
		return;
	cudaFree(c->d.w);
	cudaFree(c->e.w);
	cudaFree(c->cos);
	cudaFree(c->sin);
	cudaFree(c->scale);
	cudaFree(c->x);
	cudaFree(c->sc);
	cudaFree(c->rows_d);
	free(c);
}

int
sd_cuda_devices(void)
{
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess)
		return 0;
	return n;
}

void *
sd_cuda_alloc(size_t bytes)
{
	void *p;

	if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess)
		return NULL;
	if (cudaMemset(p, 0, bytes ? bytes : 1) != cudaSuccess) {
		cudaFree(p);
		return NULL;
	}
	return p;
}

void
sd_cuda_free(void *p)
{
	cudaFree(p);
}

int
sd_cuda_copy(void *dst, const void *src, size_t bytes)
{
	return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice) ==
	    cudaSuccess ? 0 : -1;
}

/* The scratch for n rows of the wider network, with attention scores
 * for positions up to maxpos. */
static int
grow(struct sd_cuda *c, int n, int maxpos, char *why, size_t nwhy)
{
	const struct sd_net *e = &c->e.net, *d = &c->d.net;
	int dim = e->dim > d->dim ? e->dim : d->dim,
	    qd = e->heads * e->hd > d->heads * d->hd ? e->heads * e->hd :
	    d->heads * d->hd, kvd = e->kvh * e->hd > d->kvh * d->hd ?
	    e->kvh * e->hd : d->kvh * d->hd, f = e->ffn > d->ffn ? e->ffn :
	    d->ffn, heads = e->heads > d->heads ? e->heads : d->heads;
	size_t sc = (size_t)n * heads * (maxpos + 1);

	if ((size_t)n > c->cap_rows) {
		size_t cap = (size_t)n * 2, per = 3 * (size_t)dim + 2 * qd +
		    2 * kvd + 2 * (size_t)f + 2 * SD_VOCAB;
		float *p;

		cudaFree(c->x);
		cudaFree(c->rows_d);
		c->x = NULL;
		c->cap_rows = 0;
		CK(cudaMalloc(&p, cap * per * sizeof(float)));
		c->x = p, p += cap * dim;
		c->xn = p, p += cap * dim;
		c->tmp = p, p += cap * dim;
		c->q = p, p += cap * qd;
		c->att = p, p += cap * qd;
		c->k = p, p += cap * kvd;
		c->v = p, p += cap * kvd;
		c->h1 = p, p += cap * f;
		c->h3 = p, p += cap * f;
		c->ld = p, p += cap * SD_VOCAB;
		c->le = p;
		CK(cudaMalloc(&c->rows_d, cap * (2 * sizeof(struct drow) +
		    sizeof(int))));
		c->rows_e = c->rows_d + cap;
		c->am = (int *)(c->rows_e + cap);
		c->cap_rows = cap;
	}
	if (sc > c->cap_sc) {
		cudaFree(c->sc);
		c->sc = NULL;
		c->cap_sc = 0;
		CK(cudaMalloc(&c->sc, sc * 2 * sizeof(float)));
		c->cap_sc = sc * 2;
	}
	return 0;
}

/* One network over n rows: its logits in out. */
static void
net_forward(struct sd_cuda *c, const struct dnet *dn,
    const struct drow *rows, int n, float *out, size_t stride)
{
	const struct sd_net *net = &dn->net;
	int d = net->dim, qd = net->heads * net->hd, kvd = net->kvh * net->hd,
	    f = net->ffn;
	const __nv_bfloat16 *w = dn->w;
	size_t nd = (size_t)n * d, nf = (size_t)n * f;

	k_embed<<<blocks(nd, 256), 256>>>(c->x, w + dn->emb, rows, n, d);
	for (int li = 0; li < net->layers; li++) {
		const struct dlayer *l = &dn->l[li];

		k_rmsnorm<<<blocks((size_t)n * 32, 128), 128>>>(c->xn, c->x,
		    w + l->anorm, NULL, n, d);
		matmul(c->q, c->xn, w + l->wq, n, d, qd);
		matmul(c->k, c->xn, w + l->wk, n, d, kvd);
		matmul(c->v, c->xn, w + l->wv, n, d, kvd);
		k_rope_kv<<<blocks((size_t)n * (net->heads + net->kvh) *
		    (net->hd / 2), 128), 128>>>(c->q, c->k, c->v, rows, n,
		    net->heads, net->kvh, net->hd, li, c->cos, c->sin);
		if (attend_kind == SD_ATTEND_BLOCK && net->hd <= AT_THREADS)
			k_attend_block<<<(unsigned)((size_t)n * net->heads),
			    AT_THREADS>>>(c->att, c->q, rows, n, net->heads, net->kvh,
			    net->hd, li, c->sc, stride);
		else
			k_attend<<<blocks((size_t)n * net->heads, 64), 64>>>(c->att,
			    c->q, rows, n, net->heads, net->kvh, net->hd, li, c->sc,
			    stride);
		matmul(c->tmp, c->att, w + l->wo, n, qd, d);
		k_add<<<blocks(nd, 256), 256>>>(c->x, c->tmp, nd);
		k_rmsnorm<<<blocks((size_t)n * 32, 128), 128>>>(c->xn, c->x,
		    w + l->fnorm, NULL, n, d);
		matmul(c->h1, c->xn, w + l->w1, n, d, f);
		matmul(c->h3, c->xn, w + l->w3, n, d, f);
		k_swiglu<<<blocks(nf, 256), 256>>>(c->h1, c->h3, nf);
		matmul(c->tmp, c->h1, w + l->w2, n, f, d);
		k_add<<<blocks(nd, 256), 256>>>(c->x, c->tmp, nd);
	}
	k_rmsnorm<<<blocks((size_t)n * 32, 128), 128>>>(c->xn, c->x,
	    w + dn->fnorm, NULL, n, d);
	matmul(out, c->xn, w + dn->head, n, d, SD_VOCAB);
}

static void
to_drow(struct drow *o, const struct sd_row *r, int n)
{
	for (int i = 0; i < n; i++)
		o[i] = (struct drow){ r[i].tok, r[i].pos, r[i].dom, r[i].cap,
		    r[i].k, r[i].v };
}

int
sd_cuda_forward(struct sd_cuda *c, int n, const struct sd_row *rd,
    const struct sd_row *re, int *am, float *logits, char *why, size_t nwhy)
{
	struct drow *h;
	int maxpos = 0;

	if (n < 1)
		return 0;
	for (int i = 0; i < n; i++)
		if (rd[i].pos > maxpos)
			maxpos = rd[i].pos;
	if (grow(c, n, maxpos, why, nwhy) < 0)
		return -1;
	h = (struct drow *)malloc((size_t)n * 2 * sizeof *h);
	if (h == NULL) {
		say(why, nwhy, "out of memory");
		return -1;
	}
	to_drow(h, rd, n);
	if (re != NULL)
		to_drow(h + n, re, n);
	if (cudaMemcpy(c->rows_d, h, (size_t)n * sizeof *h,
	    cudaMemcpyHostToDevice) != cudaSuccess || (re != NULL &&
	    cudaMemcpy(c->rows_e, h + n, (size_t)n * sizeof *h,
	    cudaMemcpyHostToDevice) != cudaSuccess)) {
		free(h);
		say(why, nwhy, "cudaMemcpy: %s",
		    cudaGetErrorString(cudaGetLastError()));
		return -1;
	}
	free(h);
	net_forward(c, &c->d, c->rows_d, n, c->ld, (size_t)maxpos + 1);
	if (re != NULL)
		net_forward(c, &c->e, c->rows_e, n, c->le, (size_t)maxpos + 1);
	k_argmax<<<blocks((size_t)n * 32, 128), 128>>>(c->am, c->ld,
	    re != NULL ? c->le : NULL, c->rows_d, c->scale, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(am, c->am, (size_t)n * sizeof(int),
	    cudaMemcpyDeviceToHost));
	if (logits != NULL)
		CK(cudaMemcpy(logits, c->ld, (size_t)n * SD_VOCAB * sizeof(float),
		    cudaMemcpyDeviceToHost));
	return 0;
}

/* ---- single kernels, for the tests ---- */

static int
put(void **d, const void *h, size_t n, char *why, size_t nwhy)
{
	CK(cudaMalloc(d, n ? n : 1));
	if (h != NULL)
		CK(cudaMemcpy(*d, h, n, cudaMemcpyHostToDevice));
	return 0;
}

static __nv_bfloat16 *
put_bf(const float *w, size_t n, char *why, size_t nwhy)
{
	__nv_bfloat16 *h = (__nv_bfloat16 *)malloc(n * sizeof *h);
	void *d = NULL;

	if (h == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		h[i] = __float2bfloat16(w[i]);
	if (put(&d, h, n * sizeof *h, why, nwhy) < 0)
		d = NULL;
	free(h);
	return (__nv_bfloat16 *)d;
}

static int
finish(void *out, const void *dout, size_t n, char *why, size_t nwhy)
{
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, n, cudaMemcpyDeviceToHost));
	return 0;
}

int
sd_cuda_op_matmul(float *y, const float *x, const float *w, int n, int in,
    int out, char *why, size_t nwhy)
{
	void *dx, *dy;
	__nv_bfloat16 *dw;
	int rc;

	if ((dw = put_bf(w, (size_t)in * out, why, nwhy)) == NULL ||
	    put(&dx, x, (size_t)n * in * 4, why, nwhy) < 0 ||
	    put(&dy, NULL, (size_t)n * out * 4, why, nwhy) < 0)
		return -1;
	matmul((float *)dy, (float *)dx, dw, n, in, out);
	rc = finish(y, dy, (size_t)n * out * 4, why, nwhy);
	cudaFree(dw);
	cudaFree(dx);
	cudaFree(dy);
	return rc;
}

int
sd_cuda_op_rmsnorm(float *y, const float *x, const float *g, int n, int dim,
    char *why, size_t nwhy)
{
	void *dx, *dy, *dg;
	int rc;

	if (put(&dx, x, (size_t)n * dim * 4, why, nwhy) < 0 ||
	    put(&dg, g, (size_t)dim * 4, why, nwhy) < 0 ||
	    put(&dy, NULL, (size_t)n * dim * 4, why, nwhy) < 0)
		return -1;
	k_rmsnorm<<<blocks((size_t)n * 32, 128), 128>>>((float *)dy,
	    (float *)dx, NULL, (float *)dg, n, dim);
	rc = finish(y, dy, (size_t)n * dim * 4, why, nwhy);
	cudaFree(dx);
	cudaFree(dg);
	cudaFree(dy);
	return rc;
}

__global__ static void
k_rope_only(float *x, const int *pos, int n, int nh, int hd, const float *cs,
    const float *sn)
{
	int h = hd / 2, t = blockIdx.x * blockDim.x + threadIdx.x,
	    r = t / (nh * h), j = t % (nh * h);

	if (r < n)
		rope1(x + (size_t)r * nh * hd + (size_t)(j / h) * hd, j % h, h,
		    cs + (size_t)pos[r] * h, sn + (size_t)pos[r] * h);
}

int
sd_cuda_op_rope(float *x, const int *pos, int n, int nh, int hd, char *why,
    size_t nwhy)
{
	void *dx, *dp, *dc, *ds;
	size_t nr = (size_t)SD_MAXPOS * 32 * 4;
	int rc;

	if (put(&dx, x, (size_t)n * nh * hd * 4, why, nwhy) < 0 ||
	    put(&dp, pos, (size_t)n * sizeof(int), why, nwhy) < 0 ||
	    put(&dc, sd_rope_cos(), nr, why, nwhy) < 0 ||
	    put(&ds, sd_rope_sin(), nr, why, nwhy) < 0)
		return -1;
	k_rope_only<<<blocks((size_t)n * nh * hd / 2, 128), 128>>>((float *)dx,
	    (int *)dp, n, nh, hd, (float *)dc, (float *)ds);
	rc = finish(x, dx, (size_t)n * nh * hd * 4, why, nwhy);
	cudaFree(dx);
	cudaFree(dp);
	cudaFree(dc);
	cudaFree(ds);
	return rc;
}

__global__ static void
k_attend_one(float *out, const float *q, const float *kc, const float *vc,
    int pos, int heads, int kvh, int hd, float *sc)
{
	int h = threadIdx.x;

	if (h < heads)
		attend1(out + (size_t)h * hd, q + (size_t)h * hd, kc, vc, pos,
		    h / (heads / kvh), kvh * hd, hd, sc + (size_t)h * (pos + 1));
}

__global__ static void
k_attend_block_one(float *out, const float *q, const float *kc,
    const float *vc, int pos, int heads, int kvh, int hd, float *sc)
{
	int h = blockIdx.x;

	attend_block(out + (size_t)h * hd, q + (size_t)h * hd, kc, vc, pos,
	    h / (heads / kvh), kvh * hd, hd, sc + (size_t)h * (pos + 1));
}

int
sd_cuda_attend(int kind)
{
	int was = attend_kind;

	if (kind == SD_ATTEND_THREAD || kind == SD_ATTEND_BLOCK)
		attend_kind = kind;
	return was;
}

/* Both attention kernels on made-up q, k and v of one network's shape
 * at position pos: 1 when they give the same bits, 0 or -1 when not. */
static int
attend_same(const struct sd_net *t, int pos)
{
	size_t nq = (size_t)t->heads * t->hd,
	    nkv = (size_t)(pos + 1) * t->kvh * t->hd;
	float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nkv * 4),
	    *v = (float *)malloc(nkv * 4), *o1 = (float *)malloc(nq * 4),
	    *o2 = (float *)malloc(nq * 4);
	int was = attend_kind, same = -1;
	unsigned h = 12345;

	if (q && k && v && o1 && o2) {
		for (size_t i = 0; i < nkv; i++) {
			h = h * 1664525u + 1013904223u;
			k[i] = ((float)(h >> 8) / 16777216.0f - 0.5f) * 4;
			h = h * 1664525u + 1013904223u;
			v[i] = ((float)(h >> 8) / 16777216.0f - 0.5f) * 2;
		}
		for (size_t i = 0; i < nq; i++) {
			h = h * 1664525u + 1013904223u;
			q[i] = ((float)(h >> 8) / 16777216.0f - 0.5f) * 4;
		}
		attend_kind = SD_ATTEND_THREAD;
		if (sd_cuda_op_attend(o1, q, k, v, pos, t->heads, t->kvh, t->hd,
		    NULL, 0) == 0) {
			attend_kind = SD_ATTEND_BLOCK;
			if (sd_cuda_op_attend(o2, q, k, v, pos, t->heads, t->kvh,
			    t->hd, NULL, 0) == 0)
				same = memcmp(o1, o2, nq * 4) == 0;
		}
	}
	attend_kind = was;
	free(q);
	free(k);
	free(v);
	free(o1);
	free(o2);
	return same;
}

static void
attend_choose(const struct sd_model *m)
{
	const struct sd_net *nets[2] = { &m->d, &m->e };
	static const int poss[3] = { 0, 37, 300 };
	int ok = 1;

	for (int i = 0; i < 2 && ok; i++)
		for (int p = 0; p < 3 && ok; p++)
			if (nets[i]->hd > AT_THREADS ||
			    attend_same(nets[i], poss[p]) != 1) {
				fprintf(stderr, "sd-cuda: the block attention kernel "
				    "differs from the thread kernel at position %d; the "
				    "thread kernel is used\n", poss[p]);
				ok = 0;
			}
	attend_kind = ok ? SD_ATTEND_BLOCK : SD_ATTEND_THREAD;
}

int
sd_cuda_op_attend(float *out, const float *q, const float *kc,
    const float *vc, int pos, int heads, int kvh, int hd, char *why,
    size_t nwhy)
{
	void *dq, *dk, *dv, *dout, *dsc;
	size_t kv = (size_t)(pos + 1) * kvh * hd * 4;
	int rc;

	if (put(&dq, q, (size_t)heads * hd * 4, why, nwhy) < 0 ||
	    put(&dk, kc, kv, why, nwhy) < 0 || put(&dv, vc, kv, why, nwhy) < 0 ||
	    put(&dout, NULL, (size_t)heads * hd * 4, why, nwhy) < 0 ||
	    put(&dsc, NULL, (size_t)heads * (pos + 1) * 4, why, nwhy) < 0)
		return -1;
	if (attend_kind == SD_ATTEND_BLOCK && hd <= AT_THREADS)
		k_attend_block_one<<<heads, AT_THREADS>>>((float *)dout,
		    (float *)dq, (float *)dk, (float *)dv, pos, heads, kvh, hd,
		    (float *)dsc);
	else
		k_attend_one<<<1, 32>>>((float *)dout, (float *)dq, (float *)dk,
		    (float *)dv, pos, heads, kvh, hd, (float *)dsc);
	rc = finish(out, dout, (size_t)heads * hd * 4, why, nwhy);
	cudaFree(dq);
	cudaFree(dk);
	cudaFree(dv);
	cudaFree(dout);
	cudaFree(dsc);
	return rc;
}

int
sd_cuda_op_swiglu(float *h1, const float *h3, int n, char *why, size_t nwhy)
{
	void *d1, *d3;
	int rc;

	if (put(&d1, h1, (size_t)n * 4, why, nwhy) < 0 ||
	    put(&d3, h3, (size_t)n * 4, why, nwhy) < 0)
		return -1;
	k_swiglu<<<blocks((size_t)n, 256), 256>>>((float *)d1, (float *)d3,
	    (size_t)n);
	rc = finish(h1, d1, (size_t)n * 4, why, nwhy);
	cudaFree(d1);
	cudaFree(d3);
	return rc;
}

int
sd_cuda_op_exp(float *y, const float *x, int n, char *why, size_t nwhy)
{
	void *dx, *dy;
	int rc;

	if (put(&dx, x, (size_t)n * 4, why, nwhy) < 0 ||
	    put(&dy, NULL, (size_t)n * 4, why, nwhy) < 0)
		return -1;
	k_exp<<<blocks((size_t)n, 256), 256>>>((float *)dy, (float *)dx, n);
	rc = finish(y, dy, (size_t)n * 4, why, nwhy);
	cudaFree(dx);
	cudaFree(dy);
	return rc;
}

int
sd_cuda_time_matmul(double *sec, int n, int in, int out, int reps, char *why,
    size_t nwhy)
{
	void *dx, *dy, *dw;
	cudaEvent_t a, b;
	float ms = 0;

	if (put(&dw, NULL, (size_t)in * out * 2, why, nwhy) < 0 ||
	    put(&dx, NULL, (size_t)n * in * 4, why, nwhy) < 0 ||
	    put(&dy, NULL, (size_t)n * out * 4, why, nwhy) < 0)
		return -1;
	CK(cudaMemset(dw, 0x3c, (size_t)in * out * 2));
	CK(cudaMemset(dx, 0x3c, (size_t)n * in * 4));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	/* One launch first: the timed ones find the code loaded. */
	matmul((float *)dy, (float *)dx, (__nv_bfloat16 *)dw, n, in, out);
	CK(cudaEventRecord(a));
	for (int i = 0; i < reps; i++)
		matmul((float *)dy, (float *)dx, (__nv_bfloat16 *)dw, n, in, out);
	CK(cudaEventRecord(b));
	CK(cudaEventSynchronize(b));
	CK(cudaGetLastError());
	CK(cudaEventElapsedTime(&ms, a, b));
	*sec = ms / 1e3 / reps;
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	cudaFree(dw);
	cudaFree(dx);
	cudaFree(dy);
	return 0;
}
