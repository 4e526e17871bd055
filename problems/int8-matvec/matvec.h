/* matvec.h: the kernel every method implements, in its matvec.c.
 *
 * For r in [0, rows):
 *   y[r] = ((float)acc * ws[r]) * xs,
 *   acc  = sum over c in [0, cols) of (int32_t)w[r * cols + c] * x[c]
 * (the sum is exact in int32: COLS < 131072).
 *
 * The driver calls it once per token, in order, as a decoder would, and
 * each token depends on the last one's output (decode_next below), so no
 * method can batch tokens into one pass over the weights: w
 * (rows x cols, row-major, page-aligned) and ws are the same read-only
 * mapped arrays at every call; x is the token, copied into a 64-byte
 * aligned buffer; y is that token's slice of the output, zeroed. ncpu is
 * AR_CPUS, the number of CPUs the run is pinned to. A method may keep
 * state (threads, buffers) from one call to the next. */
#ifndef MATVEC_H
#define MATVEC_H

#include <stddef.h>
#include <stdint.h>

void matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu);

/* Token t + 1 is x.bin's row t + 1 with each value's sign flipped where
 * the previous token's output y[c % rows] is negative. The sign of y is
 * the sign of the exact int32 sum, the same for every correct method
 * however it rounds; x.bin holds -127..127, so a flip never overflows.
 * gen builds the reference with the same function. */
static inline void
decode_next(int8_t *x, const int8_t *base, const float *yprev, int rows,
    int cols)
{
	for (int c = 0; c < cols; c++)
		x[c] = yprev[c % rows] < 0 ? (int8_t)-base[c] : base[c];
}

#endif
