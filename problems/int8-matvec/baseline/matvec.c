/* The baseline: one row at a time, one thread, exact int32 sums. */
#include "matvec.h"

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	(void)ncpu;
	for (int r = 0; r < rows; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		int32_t acc = 0;

		for (int c = 0; c < cols; c++)
			acc += (int32_t)wr[c] * x[c];
		y[r] = ((float)acc * ws[r]) * xs;
	}
}
