/* The devices ar-bench measures on: the CUDA device (kernels/cuda.cu) and
 * the CPU device (dev/cpudev.c) behind one interface, so the rank code and
 * the roofline problem do not care which one runs. */
#ifndef AR_DEV_H
#define AR_DEV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What one sample does, reps times back to back in its timed window. */
enum ar_op {
	AR_OP_COPY,          /* own copy kernel (CPU: own loop) */
	AR_OP_MEMCPY,        /* cudaMemcpyAsync device to device (CPU: memcpy) */
	AR_OP_GEMM_BF16,     /* cuBLASLt, bf16 in and out, fp32 accumulate
	                      * (CPU: own blocked float GEMM) */
	AR_OP_GEMM_BF16_REF, /* cublasGemmEx on the same shapes: the reference
	                      * the cuBLASLt figure is held to (CPU: a naive
	                      * float GEMM) */
	AR_OP_GEMM_FP8,      /* cuBLASLt e4m3 x e4m3 -> bf16, TN, with scales
	                      * (CPU: unsupported) */
	AR_OP_ALLREDUCE,     /* sum of floats across the bundle, out of place
	                      * (NCCL; CPU: shared memory) */
	AR_OP_N
};

/* Static facts of one device, filled by open. */
struct ar_dev_info {
	char name[128];      /* "NVIDIA H100 80GB HBM3", or the CPU's model */
	int ordinal;         /* the CUDA ordinal, or the CPU number */
	int cc;              /* compute capability times 10 (90); 0 on CPUs */
	double clock_mhz;    /* the default (peak) SM or core clock; 0 when
	                      * unknown, and then no sample counts as
	                      * throttled */
	size_t cache_bytes;  /* L2 on GPUs, the last-level cache on CPUs */
	size_t mem_bytes;
	int fp8;             /* AR_OP_GEMM_FP8 runs here */
};

/* One sample's figures. */
struct ar_dev_timing {
	double dev_s;        /* CUDA events around the window (CPU: = cpu_s) */
	double cpu_s;        /* the monotonic clock around the same window */
};

struct ar_dev_post {
	double clock_mhz;    /* the clock measured right after the window; 0
	                      * when unknown */
	double err;          /* the largest error of the checked outputs,
	                      * relative for GEMMs, mismatches for copies */
	long checked;        /* outputs checked */
	int ok;              /* every checked output was right */
};

/*
 * A device is driven by one rank process, one call at a time:
 *   open once; then per op: prepare (allocate and fill rotating
 *   inputs); then per sample: flush (outside the window: evict the
 *   cache, turn persisting L2 off, move to the next input set), run (the
 *   timed window, reps times the op), post (the clock, the output check);
 *   release between ops; close at the end.
 * Every call returns 0 when done, -1 on an error (why says it, with the
 * CUDA or NCCL error text), and prepare returns 1 when the op does not
 * run on this device (why says why, e.g. no FP8 before compute
 * capability 8.9). size is bytes per rank for COPY, MEMCPY and
 * ALLREDUCE, and the dimension n of an n x n x n GEMM otherwise.
 */
struct ar_dev_ops {
	const char *kind;    /* "cuda" or "cpu" */
	int (*open)(int ordinal, int rank, int nranks, const char *comm,
	    struct ar_dev_info *info, char *why, size_t n);
	int (*prepare)(enum ar_op op, size_t size, int reps, char *why,
	    size_t n);
	int (*flush)(enum ar_op op, char *why, size_t n);
	int (*run)(enum ar_op op, struct ar_dev_timing *t, char *why,
	    size_t n);
	int (*post)(enum ar_op op, struct ar_dev_post *p, char *why, size_t n);
	void (*release)(void);
	void (*close)(void);
};

/* comm, for open: the bundle's rendezvous. On CUDA, the NCCL unique id
 * as 256 hex digits (NULL or "" for one rank: no communicator). On the
 * CPU, the path of the shared memory file that ar_cpu_comm_create made. */

/* The CUDA device. Builds without nvcc link dev/cuda-none.c instead, where
 * every call fails with "built without CUDA". */
extern const struct ar_dev_ops ar_cuda_ops;
/* The number of CUDA devices, or -1 with why: no driver, no device, a
 * build without CUDA. Never crashes on a machine without a GPU. */
int ar_cuda_count(char *why, size_t n);
/* A new NCCL unique id as 256 hex digits into hex[257]; -1 with why where
 * NCCL cannot be loaded. */
int ar_cuda_nccl_id(char hex[257], char *why, size_t n);

/* The CPU device. */
extern const struct ar_dev_ops ar_cpu_ops;
/* Makes the shared memory file of a CPU bundle of nranks ranks, each
 * all-reducing up to bytes, at path. 0, or -1 with why. */
int ar_cpu_comm_create(const char *path, int nranks, size_t bytes,
    char *why, size_t n);

extern const char *const ar_dev_op_name[AR_OP_N];

#ifdef __cplusplus
}
#endif

#endif
