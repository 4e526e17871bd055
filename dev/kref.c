/* kref.c: the CPU references the device kernels are checked against. The
 * element functions are kref.h's, shared with the kernels. */
#include <math.h>

#include "kref.h"

void
ar_kref_fill_src(void *p, size_t n, int set)
{
	uint8_t *b = p;
	uint64_t key = ar_kref_key(AR_KREF_SRC, set, 0);

	for (size_t i = 0; i < n; i++)
		b[i] = ar_kref_byte(key, i);
}

void
ar_kref_fill_bf16(uint16_t *p, size_t n, int buf, int set)
{
	for (size_t i = 0; i < n * n; i++)
		p[i] = ar_kref_gemm_bf16_in(buf, set, i);
}

void
ar_kref_fill_e4m3(uint8_t *p, size_t n, int buf, int set)
{
	for (size_t i = 0; i < n * n; i++)
		p[i] = ar_kref_gemm_e4m3_in(buf, set, i);
}

void
ar_kref_fill_send(float *p, size_t count, int set, int rank)
{
	for (size_t i = 0; i < count; i++)
		p[i] = ar_kref_send(set, rank, i);
}

double
ar_kref_gemm_bf16(const uint16_t *a, const uint16_t *b, size_t n, size_t i,
    size_t j, double *mag)
{
	double s = 0, q = 0;

	for (size_t k = 0; k < n; k++) {
		double t = (double)ar_kref_bf16_float(a[i * n + k]) *
		    (double)ar_kref_bf16_float(b[j * n + k]);

		s += t;
		q += t * t;
	}
	if (mag)
		*mag = sqrt(q);
	return s;
}

double
ar_kref_gemm_e4m3(const uint8_t *a, const uint8_t *b, size_t n, size_t i,
    size_t j, double *mag)
{
	double s = 0, q = 0;

	for (size_t k = 0; k < n; k++) {
		double t = (double)ar_kref_e4m3_float(a[i * n + k]) *
		    (double)ar_kref_e4m3_float(b[j * n + k]);

		s += t;
		q += t * t;
	}
	if (mag)
		*mag = sqrt(q);
	return s;
}

float
ar_kref_allreduce(int set, int nranks, uint64_t idx)
{
	float s = 0;

	/* Exact in any order: see ar_kref_send. */
	for (int r = 0; r < nranks; r++)
		s += ar_kref_send(set, r, idx);
	return s;
}

size_t
ar_kref_mismatches(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += x[i] != y[i];
	return bad;
}
