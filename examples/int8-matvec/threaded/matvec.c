/* threaded: the baseline's loop, with the rows split into ncpu (AR_CPUS)
 * slices, one thread each, the caller taking the first. The loop is the
 * baseline's on purpose: it is bound by compute, so it scales with CPUs
 * (the vectorized loop of the fast example is bound by memory here and
 * gains little from a second CPU).
 *
 * The threads are started on the first call and kept, spinning between
 * calls (as llama.cpp's do): threads made per call start late, since an
 * idle virtual CPU takes the hypervisor milliseconds to wake. They spin
 * with sched_yield(), so that more threads than CPUs still make progress. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "matvec.h"

#define MAX_THREADS 256

static struct slice {
	const int8_t *w, *x;
	const float *ws;
	float *y, xs;
	int r0, r1, cols;
} slices[MAX_THREADS];

static atomic_uint call;  /* bumped for every call: the workers' go */
static atomic_int done;   /* workers done with this call */

static void
rows(const struct slice *s)
{
	for (int r = s->r0; r < s->r1; r++) {
		const int8_t *wr = s->w + (size_t)r * s->cols;
		int32_t acc = 0;

		for (int c = 0; c < s->cols; c++)
			acc += (int32_t)wr[c] * s->x[c];
		s->y[r] = ((float)acc * s->ws[r]) * s->xs;
	}
}

static void *
worker(void *arg)
{
	const struct slice *s = arg;
	unsigned seen = 0;

	for (;;) {
		while (atomic_load_explicit(&call, memory_order_acquire) == seen)
			sched_yield();
		seen++;
		rows(s);
		atomic_fetch_add_explicit(&done, 1, memory_order_release);
	}
	return NULL;
}

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int nrows, int cols, int ncpu)
{
	static int n, started = -1;
	pthread_t tid;

	if (started < 0) {
		n = ncpu < MAX_THREADS ? ncpu : MAX_THREADS;
		n = n < nrows ? n : nrows;
		n = n > 1 ? n : 1;
		/* A thread that cannot start leaves its slice to the caller. */
		for (started = 1; started < n; started++)
			if (pthread_create(&tid, NULL, worker,
			    &slices[started]) != 0)
				break;
	}
	for (int i = 0; i < n; i++)
		slices[i] = (struct slice){ w, x, ws, y, xs,
		    (int)((long)nrows * i / n), (int)((long)nrows * (i + 1) / n),
		    cols };
	atomic_store_explicit(&done, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&call, 1, memory_order_release);
	rows(&slices[0]);
	for (int i = started; i < n; i++)
		rows(&slices[i]);
	while (atomic_load_explicit(&done, memory_order_acquire) < started - 1)
		sched_yield();
}
