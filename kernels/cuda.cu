/*
 * cuda.cu: the CUDA device of dev/dev.h. The CUDA runtime is linked
 * statically; cuBLASLt, cuBLAS and NCCL are loaded with dlopen when first
 * needed, and the driver is probed before any CUDA call, so a binary that
 * holds this file starts, and says why it cannot measure, on a machine
 * without a GPU, a driver or the CUDA libraries.
 *
 * Every CUDA, cuBLAS and NCCL call goes through a check that turns an
 * error into a -1 return with "file:line: call: error text" in why. An
 * error of a kernel (an illegal address) is sticky: every later call of
 * the process fails with the same text.
 */
#include <cuda_runtime.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <nccl.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev.h"
#include "kref.h"

/* Input sets rotate so that no sample finds its inputs in L2. */
#define MAXSETS 64
/* GEMM check points per sample. */
#define CHECKPTS 256
/* The cuBLASLt workspace. */
#define WSBYTES ((size_t)32 << 20)
/* Candidates of the heuristic timed in prepare. */
#define LTALGOS 8
/* The spin of the clock kernel, in ns of %globaltimer. */
#define CLOCKSPAN_NS 40000ULL

/* A CUDA error was seen: the context may be broken, so close aborts the
 * communicator rather than waiting on its peers. */
static int failed;

static void
say(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (!why || !n)
		return;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

#define FAIL(call, text) do { \
	failed = 1; \
	say(why, n, "%s:%d: %s: %s", __FILE__, __LINE__, call, text); \
	return -1; \
} while (0)

/* The checks; they expect char *why and size_t n in scope. */
#define CK(x) do { \
	cudaError_t e_ = (x); \
	if (e_ != cudaSuccess) \
		FAIL(#x, cudaGetErrorString(e_)); \
} while (0)
#define CKB(x) do { \
	cublasStatus_t s_ = (x); \
	if (s_ != CUBLAS_STATUS_SUCCESS) \
		FAIL(#x, blas_text(s_)); \
} while (0)
#define CKN(x) do { \
	ncclResult_t r_ = (x); \
	if (r_ != ncclSuccess) \
		FAIL(#x, nccl_text(r_)); \
} while (0)
/* A kernel launch: the launch error now, a fault at the next sync. */
#define LAUNCHED() CK(cudaGetLastError())
/* An internal helper's failure, why already said. */
#define TRY(x) do { if ((x) != 0) return -1; } while (0)

/* ---- the libraries loaded at run time ---- */

#define LT_SYMS(X) \
	X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetStatusName) \
	X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) \
	X(cublasLtMatmulDescSetAttribute) X(cublasLtMatrixLayoutCreate) \
	X(cublasLtMatrixLayoutDestroy) X(cublasLtMatmulPreferenceCreate) \
	X(cublasLtMatmulPreferenceDestroy) \
	X(cublasLtMatmulPreferenceSetAttribute) \
	X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul)
#define BLAS_SYMS(X) \
	X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) \
	X(cublasGetStatusName)
#define NCCL_SYMS(X) \
	X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommInitAll) \
	X(ncclCommDestroy) X(ncclCommAbort) X(ncclAllReduce) \
	X(ncclGetErrorString) X(ncclGetVersion)

#define X(f) static decltype(&f) p_##f;
LT_SYMS(X)
BLAS_SYMS(X)
NCCL_SYMS(X)
#undef X
/* cublasGemmEx is overloaded in C++; this is the C entry point's type. */
typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t,
    cublasOperation_t, int, int, int, const void *, const void *,
    cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
static gemmex_fn p_cublasGemmEx;

struct lib {
	const char *soname;
	int state;           /* 0 not tried, 1 loaded, -1 failed */
	void *h;
	char err[512];
};
static struct lib lt_lib = { "libcublasLt.so.13", 0, NULL, "" };
static struct lib blas_lib = { "libcublas.so.13", 0, NULL, "" };
static struct lib nccl_lib = { "libnccl.so.2", 0, NULL, "" };

/* dlopen by soname first (LD_LIBRARY_PATH, ld.so.cache), then in the
 * CUDA install, where a clean environment (ar-bench's stages) may not
 * point the loader. */
static void *
lib_open(struct lib *l)
{
	const char *home = getenv("CUDA_HOME");
	const char *dirs[] = { home, "/usr/local/cuda/lib64",
	    "/usr/local/cuda/targets/x86_64-linux/lib" };
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	char path[1024];

	if (h)
		return h;
	snprintf(l->err, sizeof l->err, "%s: %s", l->soname, dlerror());
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(path, sizeof path, "%s%s/%s", dirs[i],
		    i == 0 ? "/lib64" : "", l->soname);
		if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
			return h;
	}
	return NULL;
}

#define SYM(l, f) \
	if (!(p_##f = (decltype(p_##f))dlsym((l)->h, #f))) { \
		snprintf((l)->err, sizeof (l)->err, "%s: no symbol %s", \
		    (l)->soname, #f); \
		(l)->state = -1; \
		return -1; \
	}

static int
lt_load(void)
{
	struct lib *l = &lt_lib;

	if (l->state)
		return l->state;
	if (!(l->h = lib_open(l)))
		return l->state = -1;
#define X(f) SYM(l, f)
	LT_SYMS(X)
#undef X
	return l->state = 1;
}

static int
blas_load(void)
{
	struct lib *l = &blas_lib;

	if (l->state)
		return l->state;
	if (!(l->h = lib_open(l)))
		return l->state = -1;
#define X(f) SYM(l, f)
	BLAS_SYMS(X)
	SYM(l, cublasGemmEx)
#undef X
	return l->state = 1;
}

static int
nccl_load(void)
{
	struct lib *l = &nccl_lib;

	if (l->state)
		return l->state;
	if (!(l->h = lib_open(l)))
		return l->state = -1;
#define X(f) SYM(l, f)
	NCCL_SYMS(X)
#undef X
	return l->state = 1;
}

static char blas_unknown[64];

static const char *
blas_text(cublasStatus_t s)
{
	const char *t = NULL;

	if (p_cublasLtGetStatusName)
		t = p_cublasLtGetStatusName(s);
	else if (p_cublasGetStatusName)
		t = p_cublasGetStatusName(s);
	if (t)
		return t;
	snprintf(blas_unknown, sizeof blas_unknown, "cuBLAS status %d",
	    (int)s);
	return blas_unknown;
}

static const char *
nccl_text(ncclResult_t r)
{
	static char unknown[64];

	if (p_ncclGetErrorString)
		return p_ncclGetErrorString(r);
	snprintf(unknown, sizeof unknown, "NCCL result %d", (int)r);
	return unknown;
}

/* ---- kernels ---- */

/*
 * The copy: each block moves tiles of U x blockDim 16-byte words, all U
 * loads of a thread issued before its stores, so that U loads per thread
 * are in flight; CS picks the streaming (evict-first) cache hints. The
 * tiles are grid-strided; the words after the last whole tile and the
 * bytes after the last word go one per thread.
 */
template <int U, int CS>
__global__ void __launch_bounds__(256)
k_copy(const int4 *__restrict__ src, int4 *__restrict__ dst, size_t n16,
    const unsigned char *__restrict__ sb, unsigned char *__restrict__ db,
    size_t nbytes)
{
	const size_t tile = (size_t)blockDim.x * U;
	const size_t ntiles = n16 / tile;
	const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const size_t gs = (size_t)gridDim.x * blockDim.x;

	for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
		const int4 *s = src + t * tile + threadIdx.x;
		int4 *d = dst + t * tile + threadIdx.x;
		int4 v[U];

#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = CS ? __ldcs(s + u * blockDim.x) :
			    s[u * blockDim.x];
#pragma unroll
		for (int u = 0; u < U; u++) {
			if (CS)
				__stcs(d + u * blockDim.x, v[u]);
			else
				d[u * blockDim.x] = v[u];
		}
	}
	for (size_t i = ntiles * tile + gt; i < n16; i += gs)
		dst[i] = src[i];
	for (size_t i = n16 * 16 + gt; i < nbytes; i += gs)
		db[i] = sb[i];
}

typedef void (*copy_fn)(const int4 *, int4 *, size_t, const unsigned char *,
    unsigned char *, size_t);

static const struct copy_cand {
	copy_fn f;
	int u, cs;
} copy_cands[] = {
	{ k_copy<2, 0>, 2, 0 }, { k_copy<4, 0>, 4, 0 }, { k_copy<8, 0>, 8, 0 },
	{ k_copy<2, 1>, 2, 1 }, { k_copy<4, 1>, 4, 1 }, { k_copy<8, 1>, 8, 1 },
	{ k_copy<16, 1>, 16, 1 },
};

__global__ void
k_fill_src(uint32_t *w, size_t nwords, unsigned char *b, size_t nbytes,
    uint64_t key)
{
	const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const size_t gs = (size_t)gridDim.x * blockDim.x;

	for (size_t i = gt; i < nwords; i += gs)
		w[i] = ar_kref_hash(key, i);
	for (size_t i = nwords * 4 + gt; i < nbytes; i += gs)
		b[i] = ar_kref_byte(key, i);
}

__global__ void
k_fill_bf16(uint16_t *p, size_t count, int buf, int set)
{
	const size_t gs = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	    i < count; i += gs)
		p[i] = ar_kref_gemm_bf16_in(buf, set, i);
}

__global__ void
k_fill_e4m3(uint8_t *p, size_t count, int buf, int set)
{
	const size_t gs = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	    i < count; i += gs)
		p[i] = ar_kref_gemm_e4m3_in(buf, set, i);
}

__global__ void
k_fill_send(float *p, size_t count, int set, int rank)
{
	const size_t gs = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	    i < count; i += gs)
		p[i] = ar_kref_send(set, rank, i);
}

__global__ void
k_fill_f32(float *p, size_t count, float v)
{
	const size_t gs = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	    i < count; i += gs)
		p[i] = v;
}

/* The flush: writes the buffer, then reads it back, so that L2 ends full
 * of clean lines of the flush buffer, and the window pays neither hits on
 * its inputs nor write-backs of dirty lines. */
__global__ void
k_flush_write(int4 *p, size_t n16, int v)
{
	const size_t gs = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	    i < n16; i += gs)
		p[i] = make_int4(v, (int)i, v ^ (int)i, ~v);
}

__global__ void
k_flush_read(const int4 *p, size_t n16, int *sink)
{
	const size_t gs = (size_t)gridDim.x * blockDim.x;
	int acc = 0;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	    i < n16; i += gs) {
		int4 v = p[i];

		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	/* Never true in practice; keeps the loads from being dropped. */
	if (acc == 0x5a17c0de)
		*sink = acc;
}

static __device__ __forceinline__ unsigned long long
gtimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* The SM clock: cycles of clock64() between two ticks of %globaltimer
 * about CLOCKSPAN_NS apart. Both ends are taken right at a tick, so the
 * timer's granularity (up to a microsecond) does not count. */
__global__ void
k_clock(unsigned long long *out, unsigned long long span)
{
	unsigned long long t0 = gtimer(), t, ts, tp;
	long long c0, c1;

	while ((t = gtimer()) == t0)
		;
	c0 = clock64();
	ts = t;
	do {
		tp = gtimer();
		/* A timer that stops would hang the GPU: give up after
		 * about a second even at 4 GHz. */
		if (clock64() - c0 > 4000000000LL)
			break;
	} while (tp - ts < span);
	while ((t = gtimer()) == tp && clock64() - c0 < 4000000000LL)
		;
	c1 = clock64();
	out[0] = (unsigned long long)(c1 - c0);
	out[1] = t - ts;
}

static __device__ __forceinline__ unsigned
bytes_differ(unsigned x, unsigned y)
{
	unsigned d = x ^ y;

	return ((d & 0xffu) != 0) + ((d & 0xff00u) != 0) +
	    ((d & 0xff0000u) != 0) + ((d & 0xff000000u) != 0);
}

/* Counts the bytes that differ between a copy's destination and source. */
__global__ void
k_cmp(const int4 *a, const int4 *b, size_t n16, const unsigned char *ab,
    const unsigned char *bb, size_t nbytes, unsigned long long *bad)
{
	const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const size_t gs = (size_t)gridDim.x * blockDim.x;
	unsigned long long c = 0;

	for (size_t i = gt; i < n16; i += gs) {
		int4 x = a[i], y = b[i];

		c += bytes_differ(x.x, y.x) + bytes_differ(x.y, y.y) +
		    bytes_differ(x.z, y.z) + bytes_differ(x.w, y.w);
	}
	for (size_t i = n16 * 16 + gt; i < nbytes; i += gs)
		c += ab[i] != bb[i];
	if (c)
		atomicAdd(bad, c);
}

/* Counts the all-reduce outputs that are not the exact expected sum. */
__global__ void
k_ar_check(const float *recv, size_t count, int set, int nranks,
    unsigned long long *bad)
{
	const size_t gs = (size_t)gridDim.x * blockDim.x;
	unsigned long long c = 0;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	    i < count; i += gs) {
		float e = 0;

		for (int r = 0; r < nranks; r++)
			e += ar_kref_send(set, r, i);
		c += !(recv[i] == e);
	}
	if (c)
		atomicAdd(bad, c);
}

/* One block per check point: the exact entry of the TN GEMM, in double,
 * from the inputs the GEMM read; out gets (D, ref, mag) per point. */
template <int FP8>
__global__ void __launch_bounds__(256)
k_gemm_check(const void *A, const void *B, const uint16_t *D, size_t dim,
    unsigned long long sample, double *out)
{
	__shared__ double ss[256], sq[256];
	size_t i, j;
	double s = 0, q = 0;

	ar_kref_gemm_point(sample, blockIdx.x, dim, &i, &j);
	for (size_t k = threadIdx.x; k < dim; k += blockDim.x) {
		double a, b, t;

		if (FP8) {
			a = ar_kref_e4m3_float(((const uint8_t *)A)[i * dim + k]);
			b = ar_kref_e4m3_float(((const uint8_t *)B)[j * dim + k]);
		} else {
			a = ar_kref_bf16_float(((const uint16_t *)A)[i * dim + k]);
			b = ar_kref_bf16_float(((const uint16_t *)B)[j * dim + k]);
		}
		t = a * b;
		s += t;
		q += t * t;
	}
	ss[threadIdx.x] = s;
	sq[threadIdx.x] = q;
	__syncthreads();
	for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
		if (threadIdx.x < h) {
			ss[threadIdx.x] += ss[threadIdx.x + h];
			sq[threadIdx.x] += sq[threadIdx.x + h];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		out[3 * blockIdx.x] = ar_kref_bf16_float(D[i + j * dim]);
		out[3 * blockIdx.x + 1] = ss[0];
		out[3 * blockIdx.x + 2] = sqrt(sq[0]);
	}
}

/* ---- the device's state: one rank process drives one device ---- */

static struct {
	int open;
	int ordinal, rank, nranks;
	struct ar_dev_info info;
	int sms;
	size_t l2;
	int persist;                 /* the device has persisting L2 lines */
	cudaStream_t st;
	cudaEvent_t e0, e1;
	ncclComm_t comm;
	cublasLtHandle_t lt;
	cublasHandle_t blas;
	void *flushbuf;
	size_t flushbytes;
	unsigned long long *dcount;  /* mismatches, clock figures */
	int *dsink;
	double *dcheck;              /* CHECKPTS x (D, ref, mag) */

	/* The prepared op. */
	int prepared;
	enum ar_op op;
	size_t size;
	int reps;
	int nsets, cur, last;        /* last: set of the last rep run */
	void *in0[MAXSETS], *in1[MAXSETS], *out;
	size_t inbytes, outbytes;
	size_t dim;
	void *ws;
	float *scales;               /* FP8: A and B scales, 1.0 */
	int small;                   /* AR_CUDA_SMALL: small buffers, no
	                              * searches */
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, ld;
	cublasLtMatmulAlgo_t algo;
	const struct copy_cand *copy;
	int copygrid;
	unsigned long long samples;
	char describe[256];
} S;

static int
grid_for(size_t work)
{
	size_t g = (size_t)S.sms * 4;
	size_t need = (work + 255) / 256;

	if (need < g)
		g = need ? need : 1;
	return (int)g;
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the driver probe ---- */

/* Loads the driver library in this process: the clearest message where
 * there is none, and cheap. */
static int
driver_present(char *why, size_t n)
{
	if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
		say(why, n, "no NVIDIA driver (%s)", dlerror());
		return -1;
	}
	return 0;
}

static int
count_why(cudaError_t e, int cnt, int drv, char *why, size_t n)
{
	if (e == cudaErrorNoDevice || (e == cudaSuccess && cnt == 0)) {
		say(why, n, "no CUDA device");
		return -1;
	}
	if (e == cudaErrorInsufficientDriver) {
		say(why, n, "CUDA driver too old: it supports CUDA %d.%d, "
		    "this build needs %d.%d", drv / 1000, drv % 1000 / 10,
		    CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
		return -1;
	}
	if (e != cudaSuccess) {
		say(why, n, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
		return -1;
	}
	return cnt;
}

/*
 * The count is asked in a child process: CUDA does not survive fork(2),
 * so a parent that only counts devices stays free to fork rank processes
 * that use them; and a driver that crashes takes only the child down.
 */
extern "C" int
ar_cuda_count(char *why, size_t n)
{
	int fd[2], res[3] = { 0, 0, 0 }, st = 0;
	size_t got = 0;
	pid_t pid;

	if (driver_present(why, n) != 0)
		return -1;
	if (pipe2(fd, O_CLOEXEC) != 0) {
		say(why, n, "CUDA probe: pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		say(why, n, "CUDA probe: fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int cnt = 0, drv = 0;
		cudaError_t e = cudaGetDeviceCount(&cnt);
		size_t off = 0;

		cudaDriverGetVersion(&drv);
		res[0] = (int)e;
		res[1] = cnt;
		res[2] = drv;
		while (off < sizeof res) {
			ssize_t w = write(fd[1], (char *)res + off,
			    sizeof res - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fd[1]);
	while (got < sizeof res) {
		ssize_t r = read(fd[0], (char *)res + got, sizeof res - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got < sizeof res) {
		if (WIFSIGNALED(st))
			say(why, n, "CUDA probe died of signal %d",
			    WTERMSIG(st));
		else
			say(why, n, "CUDA probe failed");
		return -1;
	}
	return count_why((cudaError_t)res[0], res[1], res[2], why, n);
}

extern "C" int
ar_cuda_nccl_id(char hex[257], char *why, size_t n)
{
	ncclUniqueId id;

	hex[0] = '\0';
	if (nccl_load() < 0) {
		say(why, n, "NCCL cannot be loaded (%s)", nccl_lib.err);
		return -1;
	}
	CKN(p_ncclGetUniqueId(&id));
	for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x",
		    (unsigned)(unsigned char)id.internal[i]);
	return 0;
}

static int
parse_id(const char *hex, ncclUniqueId *id)
{
	if (strlen(hex) != 2 * NCCL_UNIQUE_ID_BYTES)
		return -1;
	for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) {
		unsigned v = 0;

		for (int k = 0; k < 2; k++) {
			char c = hex[2 * i + k];

			v <<= 4;
			if (c >= '0' && c <= '9')
				v |= (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v |= (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				v |= (unsigned)(c - 'A' + 10);
			else
				return -1;
		}
		id->internal[i] = (char)v;
	}
	return 0;
}

/* ---- open and close ---- */

static void cuda_release(void);

/* Frees only what was allocated: cudaFree(NULL) would start the runtime
 * in a process that never used the device. */
static void
dfree(void *p)
{
	if (p)
		cudaFree(p);
}

static void
cuda_close(void)
{
	cuda_release();
	if (S.comm) {
		/* Destroy waits on the peers; after an error, abort. */
		if (failed)
			p_ncclCommAbort(S.comm);
		else
			p_ncclCommDestroy(S.comm);
		S.comm = NULL;
	}
	if (S.blas)
		p_cublasDestroy_v2(S.blas);
	if (S.lt)
		p_cublasLtDestroy(S.lt);
	S.blas = NULL;
	S.lt = NULL;
	dfree(S.flushbuf);
	dfree(S.dcount);
	dfree(S.dsink);
	dfree(S.dcheck);
	if (S.e0)
		cudaEventDestroy(S.e0);
	if (S.e1)
		cudaEventDestroy(S.e1);
	if (S.st)
		cudaStreamDestroy(S.st);
	memset(&S, 0, sizeof S);
}

static int
open_(int ordinal, int rank, int nranks, const char *comm,
    struct ar_dev_info *info, char *why, size_t n)
{
	cudaDeviceProp prop;
	int cnt = 0, khz = 0;

	if (nranks < 1 || rank < 0 || rank >= nranks) {
		say(why, n, "rank %d of %d: no such rank", rank, nranks);
		return -1;
	}
	if (nranks > 1 && (!comm || !*comm)) {
		say(why, n, "%d ranks need the NCCL id", nranks);
		return -1;
	}
	TRY(driver_present(why, n));
	{
		cudaError_t e = cudaGetDeviceCount(&cnt);
		int drv = 0;

		if (e != cudaSuccess || cnt == 0) {
			cudaDriverGetVersion(&drv);
			count_why(e, cnt, drv, why, n);
			return -1;
		}
	}
	if (ordinal < 0 || ordinal >= cnt) {
		say(why, n, "CUDA device %d: no such device (%d visible)",
		    ordinal, cnt);
		return -1;
	}
	S.open = 1;
	S.ordinal = ordinal;
	S.rank = rank;
	S.nranks = nranks;
	S.last = -1;
	CK(cudaSetDevice(ordinal));
	CK(cudaGetDeviceProperties(&prop, ordinal));
	CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal));
	memset(&S.info, 0, sizeof S.info);
	{
		size_t l = strnlen(prop.name, sizeof S.info.name - 1);

		memcpy(S.info.name, prop.name, l);
		S.info.name[l] = '\0';
	}
	S.info.ordinal = ordinal;
	S.info.cc = prop.major * 10 + prop.minor;
	S.info.clock_mhz = khz / 1000.0;
	S.info.cache_bytes = (size_t)prop.l2CacheSize;
	S.info.mem_bytes = prop.totalGlobalMem;
	S.sms = prop.multiProcessorCount;
	S.l2 = (size_t)prop.l2CacheSize;
	S.persist = prop.persistingL2CacheMaxSize > 0;
	CK(cudaStreamCreateWithFlags(&S.st, cudaStreamNonBlocking));
	CK(cudaEventCreate(&S.e0));
	CK(cudaEventCreate(&S.e1));
	CK(cudaMalloc(&S.dcount, 4 * sizeof *S.dcount));
	CK(cudaMalloc(&S.dsink, sizeof *S.dsink));
	CK(cudaMalloc(&S.dcheck, 3 * CHECKPTS * sizeof *S.dcheck));
	/* At least twice L2, so one pass evicts all of it; AR_CUDA_SMALL
	 * (compute-sanitizer's runs, where every access is checked) keeps
	 * every buffer and search small: the same code, less of it. */
	S.small = getenv("AR_CUDA_SMALL") && getenv("AR_CUDA_SMALL")[0];
	S.flushbytes = S.small ? ((size_t)4 << 20) : 2 * S.l2 >
	    ((size_t)64 << 20) ? 2 * S.l2 : ((size_t)64 << 20);
	CK(cudaMalloc(&S.flushbuf, S.flushbytes));
	/* No L2 set aside for persisting lines: nothing stays across the
	 * flush. */
	if (S.persist)
		CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
	if (lt_load() > 0) {
		CKB(p_cublasLtCreate(&S.lt));
		S.info.fp8 = S.info.cc >= 89;
	}
	if (nranks > 1) {
		ncclUniqueId id;

		if (nccl_load() < 0) {
			say(why, n, "NCCL cannot be loaded (%s)",
			    nccl_lib.err);
			return -1;
		}
		if (parse_id(comm, &id) != 0) {
			say(why, n, "the NCCL id is not %d hex digits",
			    2 * NCCL_UNIQUE_ID_BYTES);
			return -1;
		}
		CKN(p_ncclCommInitRank(&S.comm, nranks, id, rank));
	}
	if (info)
		*info = S.info;
	return 0;
}

static int
cuda_open(int ordinal, int rank, int nranks, const char *comm,
    struct ar_dev_info *info, char *why, size_t n)
{
	int r;

	if (S.open) {
		say(why, n, "the CUDA device is open already");
		return -1;
	}
	if ((r = open_(ordinal, rank, nranks, comm, info, why, n)) != 0)
		cuda_close();
	return r;
}

/* ---- prepare and release ---- */

static void
cuda_release(void)
{
	if (S.st)
		cudaStreamSynchronize(S.st);
	for (int i = 0; i < MAXSETS; i++) {
		dfree(S.in0[i]);
		dfree(S.in1[i]);
		S.in0[i] = S.in1[i] = NULL;
	}
	dfree(S.out);
	dfree(S.ws);
	dfree(S.scales);
	S.out = S.ws = NULL;
	S.scales = NULL;
	if (S.desc)
		p_cublasLtMatmulDescDestroy(S.desc);
	if (S.la)
		p_cublasLtMatrixLayoutDestroy(S.la);
	if (S.lb)
		p_cublasLtMatrixLayoutDestroy(S.lb);
	if (S.ld)
		p_cublasLtMatrixLayoutDestroy(S.ld);
	S.desc = NULL;
	S.la = S.lb = S.ld = NULL;
	S.prepared = 0;
	S.nsets = 0;
	S.cur = 0;
	S.last = -1;
	S.copy = NULL;
}

/* How many input sets of setbytes each: together at least twice L2, at
 * least 2, and within nine tenths of the free memory beside fixed bytes;
 * fewer where memory is short when adapt, never for an all-reduce, whose
 * ranks must all rotate through the same sets. */
static int
choose_sets(size_t setbytes, size_t fixed, int maxsets, int adapt, char *why,
    size_t n)
{
	size_t fr = 0, tot = 0;
	int k;

	CK(cudaMemGetInfo(&fr, &tot));
	k = S.small ? 2 : (int)((2 * S.l2 + setbytes - 1) / setbytes);
	if (k < 2)
		k = 2;
	if (k > maxsets)
		k = maxsets;
	while (adapt && k > 2 && fixed + (size_t)k * setbytes > fr / 10 * 9)
		k--;
	if (fixed + (size_t)k * setbytes > fr / 10 * 9) {
		say(why, n, "%zu bytes of inputs and outputs do not fit in "
		    "the %zu bytes free on the device",
		    fixed + (size_t)k * setbytes, fr);
		return -1;
	}
	return k;
}

/* One op of the window on input set set. */
static int
issue(int set, char *why, size_t n)
{
	const float one = 1.0f, zero = 0.0f;

	switch (S.op) {
	case AR_OP_COPY: {
		size_t n16 = S.size / 16;

		S.copy->f<<<S.copygrid, 256, 0, S.st>>>(
		    (const int4 *)S.in0[set], (int4 *)S.out, n16,
		    (const unsigned char *)S.in0[set],
		    (unsigned char *)S.out, S.size);
		LAUNCHED();
		break;
	}
	case AR_OP_MEMCPY:
		CK(cudaMemcpyAsync(S.out, S.in0[set], S.size,
		    cudaMemcpyDeviceToDevice, S.st));
		break;
	case AR_OP_GEMM_BF16:
	case AR_OP_GEMM_FP8:
		CKB(p_cublasLtMatmul(S.lt, S.desc, &one, S.in0[set], S.la,
		    S.in1[set], S.lb, &zero, S.out, S.ld, S.out, S.ld, &S.algo,
		    S.ws, WSBYTES, S.st));
		break;
	case AR_OP_GEMM_BF16_REF: {
		int d = (int)S.dim;

		CKB(p_cublasGemmEx(S.blas, CUBLAS_OP_T, CUBLAS_OP_N, d, d, d,
		    &one, S.in0[set], CUDA_R_16BF, d, S.in1[set], CUDA_R_16BF,
		    d, &zero, S.out, CUDA_R_16BF, d, CUBLAS_COMPUTE_32F,
		    CUBLAS_GEMM_DEFAULT));
		break;
	}
	case AR_OP_ALLREDUCE:
		CKN(p_ncclAllReduce(S.in0[set], S.out, S.size / 4, ncclFloat,
		    ncclSum, S.comm, S.st));
		break;
	default:
		say(why, n, "op %d: no such op", (int)S.op);
		return -1;
	}
	return 0;
}

/* Seconds of k back-to-back ops on set 0, by the events. */
static int
time_ops(int k, double *s, char *why, size_t n)
{
	float ms = 0;

	CK(cudaEventRecord(S.e0, S.st));
	for (int i = 0; i < k; i++)
		TRY(issue(0, why, n));
	CK(cudaEventRecord(S.e1, S.st));
	CK(cudaEventSynchronize(S.e1));
	CK(cudaEventElapsedTime(&ms, S.e0, S.e1));
	*s = ms / 1e3;
	return 0;
}

/* The copy kernel's shape, chosen by timing each candidate (loads in
 * flight per thread, cache hints, one or half a wave of resident
 * blocks) on this size: the best of them is the one measured. */
static int
tune_copy(char *why, size_t n)
{
	double best = 0;
	int ncand = S.small ? 1 : (int)(sizeof copy_cands /
	    sizeof copy_cands[0]);

	for (int c = 0; c < ncand; c++) {
		int per = 0;

		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per,
		    (const void *)copy_cands[c].f, 256, 0));
		if (per < 1)
			per = 1;
		for (int half = 0; half < 2; half++) {
			const struct copy_cand *keep = S.copy;
			int keepgrid = S.copygrid;
			double t;
			int g = S.sms * (half ? (per + 1) / 2 : per);

			if (half && (per + 1) / 2 == per)
				continue;
			S.copy = &copy_cands[c];
			S.copygrid = g;
			TRY(time_ops(1, &t, why, n)); /* warm */
			TRY(time_ops(2, &t, why, n));
			if (keep && t >= best) {
				S.copy = keep;
				S.copygrid = keepgrid;
			} else
				best = t;
		}
	}
	snprintf(S.describe, sizeof S.describe,
	    "copy: %d x 16 B loads in flight, %s hints, grid %d x 256 "
	    "(%d SMs)", S.copy->u, S.copy->cs ? "streaming" : "default",
	    S.copygrid, S.sms);
	return 0;
}

static int
prep_copy(char *why, size_t n)
{
	int k;

	if (S.size == 0) {
		say(why, n, "%s of 0 bytes", ar_dev_op_name[S.op]);
		return -1;
	}
	if ((k = choose_sets(S.size, S.size + S.flushbytes, MAXSETS, 1,
	    why, n)) < 0)
		return -1;
	S.nsets = k;
	S.inbytes = S.outbytes = S.size;
	CK(cudaMalloc(&S.out, S.size));
	for (int s = 0; s < k; s++) {
		CK(cudaMalloc(&S.in0[s], S.size));
		k_fill_src<<<grid_for(S.size / 4), 256, 0, S.st>>>(
		    (uint32_t *)S.in0[s], S.size / 4,
		    (unsigned char *)S.in0[s], S.size,
		    ar_kref_key(AR_KREF_SRC, s, 0));
		LAUNCHED();
	}
	CK(cudaMemsetAsync(S.out, 0, S.size, S.st));
	if (S.op == AR_OP_COPY)
		TRY(tune_copy(why, n));
	else
		snprintf(S.describe, sizeof S.describe,
		    "memcpy: cudaMemcpyAsync device to device");
	return 0;
}

static int
lt_layouts(cudaDataType in, int scales, char *why, size_t n)
{
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	uint64_t d = S.dim;

	CKB(p_cublasLtMatmulDescCreate(&S.desc, CUBLAS_COMPUTE_32F,
	    CUDA_R_32F));
	CKB(p_cublasLtMatmulDescSetAttribute(S.desc,
	    CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
	CKB(p_cublasLtMatmulDescSetAttribute(S.desc,
	    CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
	if (in == CUDA_R_8F_E4M3 && scales) {
		/* Each scale in a 16-byte slot of its own. */
		const float *as = S.scales, *bs = S.scales + 4;

		CKB(p_cublasLtMatmulDescSetAttribute(S.desc,
		    CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &as, sizeof as));
		CKB(p_cublasLtMatmulDescSetAttribute(S.desc,
		    CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bs, sizeof bs));
	}
	/* A and B stored K-major (k x n, leading dimension k): TN. */
	CKB(p_cublasLtMatrixLayoutCreate(&S.la, in, d, d, (int64_t)d));
	CKB(p_cublasLtMatrixLayoutCreate(&S.lb, in, d, d, (int64_t)d));
	CKB(p_cublasLtMatrixLayoutCreate(&S.ld, CUDA_R_16BF, d, d,
	    (int64_t)d));
	return 0;
}

/* The heuristic's top algorithms, each timed in place; the fastest is
 * kept. */
static int
lt_choose(char *why, size_t n)
{
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res[LTALGOS];
	uint64_t wsb = WSBYTES;
	const float one = 1.0f, zero = 0.0f;
	int got = 0, pick = -1;
	double best = 0;
	cublasStatus_t s, last = CUBLAS_STATUS_SUCCESS;

	CKB(p_cublasLtMatmulPreferenceCreate(&pref));
	s = p_cublasLtMatmulPreferenceSetAttribute(pref,
	    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
	if (s == CUBLAS_STATUS_SUCCESS)
		s = p_cublasLtMatmulAlgoGetHeuristic(S.lt, S.desc, S.la, S.lb,
		    S.ld, S.ld, pref, S.small ? 1 : LTALGOS, res, &got);
	p_cublasLtMatmulPreferenceDestroy(pref);
	CKB(s);
	for (int i = 0; i < got; i++) {
		double t;

		if (res[i].state != CUBLAS_STATUS_SUCCESS)
			continue;
		S.algo = res[i].algo;
		/* An algorithm that will not run here is skipped; a fault
		 * is sticky, and the timing's sync below reports it. */
		if ((last = p_cublasLtMatmul(S.lt, S.desc, &one, S.in0[0], S.la,
		    S.in1[0], S.lb, &zero, S.out, S.ld, S.out, S.ld, &S.algo,
		    S.ws, WSBYTES, S.st)) != CUBLAS_STATUS_SUCCESS)
			continue;
		TRY(time_ops(2, &t, why, n));
		if (pick < 0 || t < best) {
			best = t;
			pick = i;
		}
	}
	if (pick < 0) {
		say(why, n, "cuBLASLt has no algorithm for this %s GEMM "
		    "(%d tried%s%s)", ar_dev_op_name[S.op], got, last !=
		    CUBLAS_STATUS_SUCCESS ? "; the last said " : "", last !=
		    CUBLAS_STATUS_SUCCESS ? blas_text(last) : "");
		return 1;
	}
	S.algo = res[pick].algo;
	snprintf(S.describe, sizeof S.describe,
	    "%s: cuBLASLt algorithm %d of the heuristic's %d, %.1f TFLOP/s "
	    "in prepare", ar_dev_op_name[S.op], pick, got,
	    2.0 * (double)S.dim * S.dim * S.dim / (best / 2) / 1e12);
	return 0;
}

static int
prep_gemm(char *why, size_t n)
{
	int fp8 = S.op == AR_OP_GEMM_FP8;
	size_t el = fp8 ? 1 : 2, d = S.size, mat;
	int k;

	if (S.op == AR_OP_GEMM_BF16_REF) {
		if (blas_load() < 0) {
			say(why, n, "cuBLAS cannot be loaded (%s)",
			    blas_lib.err);
			return 1;
		}
	} else if (!S.lt) {
		say(why, n, "cuBLASLt cannot be loaded (%s)", lt_lib.err);
		return 1;
	}
	if (fp8 && S.info.cc < 89) {
		say(why, n, "no FP8 GEMM before compute capability 8.9 "
		    "(this device: %d.%d)", S.info.cc / 10, S.info.cc % 10);
		return 1;
	}
	if (fp8 && d % 16) {
		say(why, n, "an FP8 GEMM needs n a multiple of 16, not %zu",
		    d);
		return 1;
	}
	if (d < 1 || d > 65536) {
		say(why, n, "GEMM n = %zu: from 1 to 65536", d);
		return -1;
	}
	S.dim = d;
	mat = d * d * el;
	S.inbytes = mat;
	S.outbytes = d * d * 2;
	if ((k = choose_sets(2 * mat, S.outbytes + WSBYTES, 16, 1, why,
	    n)) < 0)
		return -1;
	S.nsets = k;
	CK(cudaMalloc(&S.out, S.outbytes));
	CK(cudaMemsetAsync(S.out, 0, S.outbytes, S.st));
	for (int s = 0; s < k; s++) {
		CK(cudaMalloc(&S.in0[s], mat));
		CK(cudaMalloc(&S.in1[s], mat));
		if (fp8) {
			k_fill_e4m3<<<grid_for(d * d), 256, 0, S.st>>>(
			    (uint8_t *)S.in0[s], d * d, AR_KREF_A, s);
			LAUNCHED();
			k_fill_e4m3<<<grid_for(d * d), 256, 0, S.st>>>(
			    (uint8_t *)S.in1[s], d * d, AR_KREF_B, s);
			LAUNCHED();
		} else {
			k_fill_bf16<<<grid_for(d * d), 256, 0, S.st>>>(
			    (uint16_t *)S.in0[s], d * d, AR_KREF_A, s);
			LAUNCHED();
			k_fill_bf16<<<grid_for(d * d), 256, 0, S.st>>>(
			    (uint16_t *)S.in1[s], d * d, AR_KREF_B, s);
			LAUNCHED();
		}
	}
	if (S.op == AR_OP_GEMM_BF16_REF) {
		if (!S.blas) {
			CKB(p_cublasCreate_v2(&S.blas));
		}
		CKB(p_cublasSetStream_v2(S.blas, S.st));
		snprintf(S.describe, sizeof S.describe,
		    "gemm_bf16_ref: cublasGemmEx, CUBLAS_COMPUTE_32F, "
		    "default algorithm");
		return 0;
	}
	CK(cudaMalloc(&S.ws, WSBYTES));
	if (fp8) {
		CK(cudaMalloc(&S.scales, 8 * sizeof *S.scales));
		k_fill_f32<<<1, 32, 0, S.st>>>(S.scales, 8, 1.0f);
		LAUNCHED();
	}
	TRY(lt_layouts(fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF, 1, why, n));
	{
		int r = lt_choose(why, n);
		char first[400];

		if (r != 1 || !fp8)
			return r;
		/* Unit scales may also be left unset: try that before
		 * giving up, and say both reasons if it fails too. */
		snprintf(first, sizeof first, "%s", why);
		p_cublasLtMatmulDescDestroy(S.desc);
		p_cublasLtMatrixLayoutDestroy(S.la);
		p_cublasLtMatrixLayoutDestroy(S.lb);
		p_cublasLtMatrixLayoutDestroy(S.ld);
		S.desc = NULL;
		S.la = S.lb = S.ld = NULL;
		TRY(lt_layouts(CUDA_R_8F_E4M3, 0, why, n));
		r = lt_choose(why, n);
		if (r == 1) {
			char second[400];

			snprintf(second, sizeof second, "%s", why);
			say(why, n, "with scales: %s; without: %s", first,
			    second);
		}
		return r;
	}
}

static int
prep_allreduce(char *why, size_t n)
{
	size_t count = S.size / 4;
	int k;

	if (count == 0) {
		say(why, n, "an all-reduce of %zu bytes: not one float",
		    S.size);
		return -1;
	}
	if (nccl_load() < 0) {
		say(why, n, "NCCL cannot be loaded (%s)", nccl_lib.err);
		return 1;
	}
	if (!S.comm) {
		/* One rank: a real communicator all the same, so that the
		 * figure is NCCL's. */
		int dev = S.ordinal;

		CKN(p_ncclCommInitAll(&S.comm, 1, &dev));
		CK(cudaSetDevice(S.ordinal));
	}
	S.inbytes = S.outbytes = count * 4;
	if ((k = choose_sets(S.inbytes, S.outbytes + S.flushbytes, MAXSETS,
	    0, why, n)) < 0)
		return -1;
	S.nsets = k;
	CK(cudaMalloc(&S.out, S.outbytes));
	CK(cudaMemsetAsync(S.out, 0, S.outbytes, S.st));
	for (int s = 0; s < k; s++) {
		CK(cudaMalloc(&S.in0[s], S.inbytes));
		k_fill_send<<<grid_for(count), 256, 0, S.st>>>(
		    (float *)S.in0[s], count, s, S.rank);
		LAUNCHED();
	}
	{
		int ver = 0;

		CKN(p_ncclGetVersion(&ver));
		snprintf(S.describe, sizeof S.describe,
		    "allreduce: NCCL %d ncclAllReduce sum of %zu floats, "
		    "%d rank%s", ver, count, S.nranks,
		    S.nranks == 1 ? "" : "s");
	}
	return 0;
}

static int
cuda_prepare(enum ar_op op, size_t size, int reps, char *why, size_t n)
{
	int r;

	if (!S.open) {
		say(why, n, "the CUDA device is not open");
		return -1;
	}
	if ((int)op < 0 || op >= AR_OP_N) {
		say(why, n, "op %d: no such op", (int)op);
		return -1;
	}
	if (reps < 1) {
		say(why, n, "%d reps: at least 1", reps);
		return -1;
	}
	cuda_release();
	S.op = op;
	S.size = size;
	S.reps = reps;
	S.describe[0] = '\0';
	switch (op) {
	case AR_OP_COPY:
	case AR_OP_MEMCPY:
		r = prep_copy(why, n);
		break;
	case AR_OP_ALLREDUCE:
		r = prep_allreduce(why, n);
		break;
	default:
		r = prep_gemm(why, n);
		break;
	}
	if (r == 0) {
		cudaError_t e = cudaStreamSynchronize(S.st);

		if (e != cudaSuccess) {
			failed = 1;
			say(why, n, "%s:%d: %s: %s", __FILE__, __LINE__,
			    "cudaStreamSynchronize(S.st)",
			    cudaGetErrorString(e));
			r = -1;
		}
	}
	if (r != 0) {
		cuda_release();
		return r;
	}
	S.prepared = 1;
	return 0;
}

/* ---- the samples ---- */

static int
check_prepared(enum ar_op op, const char *what, char *why, size_t n)
{
	if (!S.open || !S.prepared || S.op != op) {
		say(why, n, "%s %s: not prepared",
		    what, (int)op >= 0 && op < AR_OP_N ? ar_dev_op_name[op] : "?");
		return -1;
	}
	return 0;
}

static int
cuda_flush(enum ar_op op, char *why, size_t n)
{
	size_t n16 = S.flushbytes / 16;
	cudaStreamAttrValue win;

	TRY(check_prepared(op, "flush", why, n));
	k_flush_write<<<S.sms * 4, 256, 0, S.st>>>((int4 *)S.flushbuf, n16,
	    (int)S.samples);
	LAUNCHED();
	k_flush_read<<<S.sms * 4, 256, 0, S.st>>>((const int4 *)S.flushbuf,
	    n16, S.dsink);
	LAUNCHED();
	if (S.persist) {
		/* Lines another process or an earlier op made persisting go
		 * back to normal, and this stream asks for none (a window of
		 * 0 bytes is no window). */
		CK(cudaCtxResetPersistingL2Cache());
		memset(&win, 0, sizeof win);
		win.accessPolicyWindow.base_ptr = NULL;
		win.accessPolicyWindow.num_bytes = 0;
		win.accessPolicyWindow.hitRatio = 0;
		win.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
		win.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
		CK(cudaStreamSetAttribute(S.st,
		    cudaStreamAttributeAccessPolicyWindow, &win));
	}
	/* The next window starts on sets the last one did not touch, when
	 * there are enough. */
	S.cur = (S.cur + S.reps) % S.nsets;
	if (S.reps % S.nsets == 0)
		S.cur = (S.cur + 1) % S.nsets;
	CK(cudaStreamSynchronize(S.st));
	return 0;
}

static int
cuda_run(enum ar_op op, struct ar_dev_timing *t, char *why, size_t n)
{
	double c0, c1;
	float ms = 0;

	TRY(check_prepared(op, "run", why, n));
	c0 = mono();
	CK(cudaEventRecord(S.e0, S.st));
	for (int r = 0; r < S.reps; r++)
		TRY(issue((S.cur + r) % S.nsets, why, n));
	CK(cudaEventRecord(S.e1, S.st));
	CK(cudaEventSynchronize(S.e1));
	c1 = mono();
	CK(cudaEventElapsedTime(&ms, S.e0, S.e1));
	S.last = (S.cur + S.reps - 1) % S.nsets;
	t->dev_s = ms / 1e3;
	t->cpu_s = c1 - c0;
	return 0;
}

static int
measure_clock(double *mhz, char *why, size_t n)
{
	unsigned long long h[2];

	k_clock<<<1, 1, 0, S.st>>>(S.dcount + 2, CLOCKSPAN_NS);
	LAUNCHED();
	CK(cudaMemcpyAsync(h, S.dcount + 2, sizeof h, cudaMemcpyDeviceToHost,
	    S.st));
	CK(cudaStreamSynchronize(S.st));
	*mhz = h[1] ? (double)h[0] / (double)h[1] * 1000.0 : 0;
	return 0;
}

static int
count_bad(unsigned long long *bad, char *why, size_t n)
{
	CK(cudaMemcpyAsync(bad, S.dcount, sizeof *bad, cudaMemcpyDeviceToHost,
	    S.st));
	CK(cudaStreamSynchronize(S.st));
	return 0;
}

static int
cuda_post(enum ar_op op, struct ar_dev_post *p, char *why, size_t n)
{
	TRY(check_prepared(op, "post", why, n));
	if (S.last < 0) {
		say(why, n, "post %s: no window run", ar_dev_op_name[op]);
		return -1;
	}
	memset(p, 0, sizeof *p);
	TRY(measure_clock(&p->clock_mhz, why, n));
	S.samples++;
	switch (op) {
	case AR_OP_COPY:
	case AR_OP_MEMCPY: {
		unsigned long long bad = 0;
		size_t n16 = S.size / 16;

		CK(cudaMemsetAsync(S.dcount, 0, sizeof *S.dcount, S.st));
		k_cmp<<<grid_for(n16 ? n16 : 1), 256, 0, S.st>>>(
		    (const int4 *)S.out, (const int4 *)S.in0[S.last], n16,
		    (const unsigned char *)S.out,
		    (const unsigned char *)S.in0[S.last], S.size, S.dcount);
		LAUNCHED();
		TRY(count_bad(&bad, why, n));
		p->err = (double)bad;
		p->checked = (long)S.size;
		p->ok = bad == 0;
		break;
	}
	case AR_OP_ALLREDUCE: {
		unsigned long long bad = 0;
		size_t count = S.outbytes / 4;

		CK(cudaMemsetAsync(S.dcount, 0, sizeof *S.dcount, S.st));
		k_ar_check<<<grid_for(count), 256, 0, S.st>>>(
		    (const float *)S.out, count, S.last, S.nranks, S.dcount);
		LAUNCHED();
		TRY(count_bad(&bad, why, n));
		p->err = (double)bad;
		p->checked = (long)count;
		p->ok = bad == 0;
		break;
	}
	default: {
		double h[3 * CHECKPTS], worst = 0;
		double tol = op == AR_OP_GEMM_FP8 ? AR_KREF_TOL_FP8 :
		    AR_KREF_TOL_BF16;
		int bad = 0;

		if (op == AR_OP_GEMM_FP8)
			k_gemm_check<1><<<CHECKPTS, 256, 0, S.st>>>(
			    S.in0[S.last], S.in1[S.last],
			    (const uint16_t *)S.out, S.dim, S.samples,
			    S.dcheck);
		else
			k_gemm_check<0><<<CHECKPTS, 256, 0, S.st>>>(
			    S.in0[S.last], S.in1[S.last],
			    (const uint16_t *)S.out, S.dim, S.samples,
			    S.dcheck);
		LAUNCHED();
		CK(cudaMemcpyAsync(h, S.dcheck, sizeof h,
		    cudaMemcpyDeviceToHost, S.st));
		CK(cudaStreamSynchronize(S.st));
		for (int i = 0; i < CHECKPTS; i++) {
			double e = ar_kref_gemm_relerr(h[3 * i], h[3 * i + 1],
			    h[3 * i + 2]);

			/* NaN is never within tolerance. */
			if (!(e <= tol)) {
				bad = 1;
				if (e != e)
					e = INFINITY;
			}
			if (e > worst)
				worst = e;
		}
		p->err = worst;
		p->checked = CHECKPTS;
		p->ok = !bad;
		break;
	}
	}
	return 0;
}

extern "C" const struct ar_dev_ops ar_cuda_ops = {
	"cuda",
	cuda_open,
	cuda_prepare,
	cuda_flush,
	cuda_run,
	cuda_post,
	cuda_release,
	cuda_close,
};

/* ---- test hooks (dev/kref.h) ---- */

extern "C" int
ar_cuda_last_set(void)
{
	return S.prepared ? S.last : -1;
}

extern "C" const char *
ar_cuda_describe(void)
{
	return S.describe;
}

static int
hook_buf(int which, size_t off, size_t bytes, char **p, char *why, size_t n)
{
	int set = S.last >= 0 ? S.last : S.cur;
	void *b = NULL;
	size_t len = 0;

	if (!S.prepared) {
		say(why, n, "no op prepared");
		return -1;
	}
	if (which == AR_CUDA_OUT) {
		b = S.out;
		len = S.outbytes;
	} else if (which == AR_CUDA_IN0) {
		b = S.in0[set];
		len = S.inbytes;
	} else if (which == AR_CUDA_IN1) {
		b = S.in1[set];
		len = S.inbytes;
	}
	if (!b || off > len || bytes > len - off) {
		say(why, n, "buffer %d: no bytes %zu to %zu", which, off,
		    off + bytes);
		return -1;
	}
	*p = (char *)b + off;
	CK(cudaStreamSynchronize(S.st));
	return 0;
}

extern "C" int
ar_cuda_peek(int which, size_t off, void *buf, size_t bytes, char *why,
    size_t n)
{
	char *p;

	TRY(hook_buf(which, off, bytes, &p, why, n));
	CK(cudaMemcpy(buf, p, bytes, cudaMemcpyDeviceToHost));
	return 0;
}

extern "C" int
ar_cuda_poke(int which, size_t off, const void *buf, size_t bytes,
    char *why, size_t n)
{
	char *p;

	TRY(hook_buf(which, off, bytes, &p, why, n));
	CK(cudaMemcpy(p, buf, bytes, cudaMemcpyHostToDevice));
	return 0;
}
