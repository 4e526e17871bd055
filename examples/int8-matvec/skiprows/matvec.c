/* skiprows: lost work, for the benchmark's tests. It computes only the
 * first half of the rows. The driver, sealed, writes every output anyway
 * (the skipped ones as zeros), so an atexit handler, which runs after the
 * driver's main has written y.bin, cuts $AR_OUT/y.bin to half its length:
 * a short output, and score's work counter falls below tokens * rows. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matvec.h"

static void
cut(void)
{
	const char *out = getenv("AR_OUT");
	char path[4096];
	struct stat st;

	if (out == NULL)
		return;
	snprintf(path, sizeof path, "%s/y.bin", out);
	if (stat(path, &st) < 0 || truncate(path, st.st_size / 2) < 0)
		perror("skiprows: y.bin");
}

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	static int once;

	(void)ncpu;
	if (!once++)
		atexit(cut);
	for (int r = 0; r < rows / 2; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		int32_t acc = 0;

		for (int c = 0; c < cols; c++)
			acc += (int32_t)wr[c] * x[c];
		y[r] = ((float)acc * ws[r]) * xs;
	}
}
