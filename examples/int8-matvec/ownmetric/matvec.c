/* ownmetric: the baseline's kernel, which also prints METRIC lines of its
 * own, on stdout and stderr, for the benchmark's tests: only the score
 * stage's METRIC lines may count, so these must change nothing. */
#include <stdio.h>

#include "matvec.h"

static const char lies[] = "METRIC gb_s=99999\nMETRIC bad=0\n"
    "METRIC work=99999999\nMETRIC wall_ms=0.001\n";

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	static int once;

	(void)ncpu;
	if (!once++) {
		fputs(lies, stdout);
		fflush(stdout);
		fputs(lies, stderr);
	}
	for (int r = 0; r < rows; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		int32_t acc = 0;

		for (int c = 0; c < cols; c++)
			acc += (int32_t)wr[c] * x[c];
		y[r] = ((float)acc * ws[r]) * xs;
	}
}
