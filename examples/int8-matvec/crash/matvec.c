/* crash: dies by SIGSEGV on its first call, for the benchmark's tests.
 * The pointer is volatile so that the compiler cannot see that it is
 * null (it would make the store a trap instruction: SIGILL); raise() is
 * there in case the store somehow survives. */
#include <signal.h>
#include <stdio.h>

#include "matvec.h"

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	int *volatile p = NULL;

	(void)w, (void)ws, (void)x, (void)xs, (void)y, (void)rows, (void)cols;
	(void)ncpu;
	fprintf(stderr, "crash: about to dereference NULL\n");
	*p = 1;
	raise(SIGSEGV);
}
