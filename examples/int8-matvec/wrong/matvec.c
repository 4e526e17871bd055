/* wrong: every output present, the values wrong, for the benchmark's
 * tests. The sums are kept in int16_t, which the int8 products overflow
 * within a few columns (it wraps), so score counts bad outputs. */
#include "matvec.h"

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	(void)ncpu;
	for (int r = 0; r < rows; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		int16_t acc = 0;

		for (int c = 0; c < cols; c++)
			acc = (int16_t)(acc + wr[c] * x[c]);
		y[r] = ((float)acc * ws[r]) * xs;
	}
}
