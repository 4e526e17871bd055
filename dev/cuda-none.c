/* cuda-none.c: the CUDA device of a build without nvcc. Every call fails
 * and says why, so ar-bench still links and runs on the CPU. The Makefile
 * links this file instead of kernels/cuda.cu's object, never both. */
#include <stdio.h>

#include "dev.h"
#include "kref.h"

#define NOCUDA "built without CUDA (no nvcc at build time)"

static int
none(char *why, size_t n)
{
	if (why && n)
		snprintf(why, n, "%s", NOCUDA);
	return -1;
}

static int
none_open(int ordinal, int rank, int nranks, const char *comm,
    struct ar_dev_info *info, char *why, size_t n)
{
	(void)ordinal, (void)rank, (void)nranks, (void)comm, (void)info;
	return none(why, n);
}

static int
none_prepare(enum ar_op op, size_t size, int reps, char *why, size_t n)
{
	(void)op, (void)size, (void)reps;
	return none(why, n);
}

static int
none_flush(enum ar_op op, char *why, size_t n)
{
	(void)op;
	return none(why, n);
}

static int
none_run(enum ar_op op, struct ar_dev_timing *t, char *why, size_t n)
{
	(void)op, (void)t;
	return none(why, n);
}

static int
none_post(enum ar_op op, struct ar_dev_post *p, char *why, size_t n)
{
	(void)op, (void)p;
	return none(why, n);
}

static void
none_release(void)
{
}

static void
none_close(void)
{
}

const struct ar_dev_ops ar_cuda_ops = {
	.kind = "cuda",
	.open = none_open,
	.prepare = none_prepare,
	.flush = none_flush,
	.run = none_run,
	.post = none_post,
	.release = none_release,
	.close = none_close,
};

int
ar_cuda_count(char *why, size_t n)
{
	return none(why, n);
}

int
ar_cuda_nccl_id(char hex[257], char *why, size_t n)
{
	if (hex)
		hex[0] = '\0';
	return none(why, n);
}

int
ar_cuda_last_set(void)
{
	return -1;
}

const char *
ar_cuda_describe(void)
{
	return "";
}

int
ar_cuda_peek(int which, size_t off, void *buf, size_t bytes, char *why,
    size_t n)
{
	(void)which, (void)off, (void)buf, (void)bytes;
	return none(why, n);
}

int
ar_cuda_poke(int which, size_t off, const void *buf, size_t bytes,
    char *why, size_t n)
{
	(void)which, (void)off, (void)buf, (void)bytes;
	return none(why, n);
}
