/* sd-cuda.h: the CUDA forward pass of specdec (cuda.cu), the engine's
 * on a GPU and the one tests/specdec-cuda-test compares with model.c.
 * Every function returns 0, or -1 with why filled. Rows' k and v are
 * device pointers from sd_cuda_alloc. */
#ifndef SD_CUDA_H
#define SD_CUDA_H

#include <stddef.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sd_cuda;

/* The GEMM kernels: a warp per output (SD_GEMM_WARP), or a warp per 4
 * outputs with vector loads (SD_GEMM_WIDE), the same bits. sd_cuda_open
 * takes the wide one where it gives the warp one's bits on the model's
 * shapes (SD_GEMM=warp in the environment keeps the warp one and the
 * thread attention). */
enum { SD_GEMM_WARP, SD_GEMM_WIDE };
/* Sets the kernel of later passes and ops; returns the one before. */
int sd_cuda_gemm(int kind);
/* Attention: a thread per (row, head) (SD_ATTEND_THREAD) or a block of
 * 64 per (row, head) (SD_ATTEND_BLOCK), the same bits; chosen by
 * sd_cuda_open alike. */
enum { SD_ATTEND_THREAD, SD_ATTEND_BLOCK };
int sd_cuda_attend(int kind);

/* Uploads both networks' weights as bf16 (gen makes them bf16-exact). */
int sd_cuda_open(struct sd_cuda **c, const struct sd_model *m,
    const float *dw, const float *ew, char *why, size_t nwhy);
void sd_cuda_close(struct sd_cuda *c);
/* The GPUs the runtime sees; 0 without a driver or a GPU. */
int sd_cuda_devices(void);
/* Zeroed device memory, or NULL. */
void *sd_cuda_alloc(size_t bytes);
void sd_cuda_free(void *p);
/* Copies bytes from device memory src to dst; 0 or -1. */
int sd_cuda_copy(void *dst, const void *src, size_t bytes);
/* One pass over n rows: the draft D alone (re NULL) or the target, D's
 * rows in rd and E's in re (the same tokens and positions). Writes each
 * row's argmax in am and, when logits is not NULL, its logits. */
int sd_cuda_forward(struct sd_cuda *c, int n, const struct sd_row *rd,
    const struct sd_row *re, int *am, float *logits, char *why,
    size_t nwhy);

/* Single kernels on host arrays, for the tests: y[n][out] = x . W^T (W
 * bf16-exact floats), rmsnorm of n rows, rope of n rows of nh heads at
 * positions pos, one row's attention, SwiGLU in place (h1 = silu(h1) *
 * h3), and sd_exp of n values. */
int sd_cuda_op_matmul(float *y, const float *x, const float *w, int n,
    int in, int out, char *why, size_t nwhy);
int sd_cuda_op_rmsnorm(float *y, const float *x, const float *g, int n,
    int dim, char *why, size_t nwhy);
int sd_cuda_op_rope(float *x, const int *pos, int n, int nh, int hd,
    char *why, size_t nwhy);
int sd_cuda_op_attend(float *out, const float *q, const float *kc,
    const float *vc, int pos, int heads, int kvh, int hd, char *why,
    size_t nwhy);
int sd_cuda_op_swiglu(float *h1, const float *h3, int n, char *why,
    size_t nwhy);
int sd_cuda_op_exp(float *y, const float *x, int n, char *why, size_t nwhy);
/* For the kernel benchmark: the GEMM kernel over n rows, in -> out,
 * launched reps times on device buffers (bf16 weights of any value);
 * the mean seconds a launch in sec. */
int sd_cuda_time_matmul(double *sec, int n, int in, int out, int reps,
    char *why, size_t nwhy);

#ifdef __cplusplus
}
#endif

#endif
