/* fast: four rows at a time, so every load of x serves four rows, in a
 * loop the compiler vectorizes (see the Makefile). Still exact: int32 sums
 * of int8 products. One thread. */
#include "matvec.h"

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	int r = 0;

	(void)ncpu;
	for (; r + 4 <= rows; r += 4) {
		const int8_t *w0 = w + (size_t)r * cols, *w1 = w0 + cols;
		const int8_t *w2 = w1 + cols, *w3 = w2 + cols;
		int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

		for (int c = 0; c < cols; c++) {
			int32_t xc = x[c];

			a0 += w0[c] * xc;
			a1 += w1[c] * xc;
			a2 += w2[c] * xc;
			a3 += w3[c] * xc;
		}
		y[r] = ((float)a0 * ws[r]) * xs;
		y[r + 1] = ((float)a1 * ws[r + 1]) * xs;
		y[r + 2] = ((float)a2 * ws[r + 2]) * xs;
		y[r + 3] = ((float)a3 * ws[r + 3]) * xs;
	}
	for (; r < rows; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		int32_t acc = 0;

		for (int c = 0; c < cols; c++)
			acc += wr[c] * x[c];
		y[r] = ((float)acc * ws[r]) * xs;
	}
}
