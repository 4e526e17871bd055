/* hang: never ends, for the benchmark's tests. On its first call it forks
 * a child that ignores SIGTERM, leaves the run's process group and session
 * (setsid) and sleeps forever, holding the run's stdout and stderr open;
 * then the kernel spins. ar-bench must end the run as a timeout and leave
 * no process behind, the child included, without waiting for EOF on the
 * pipes the child holds. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "matvec.h"

static volatile unsigned long spins;

void
matvec(const int8_t *w, const float *ws, const int8_t *x, float xs,
    float *y, int rows, int cols, int ncpu)
{
	pid_t pid;

	(void)w, (void)ws, (void)x, (void)xs, (void)y, (void)rows, (void)cols;
	(void)ncpu;
	if ((pid = fork()) == 0) {
		signal(SIGTERM, SIG_IGN);
		setsid();
		fprintf(stderr, "hang: child %ld: own session, ignores "
		    "SIGTERM, sleeps\n", (long)getpid());
		for (;;)
			pause();
	}
	if (pid < 0)
		perror("hang: fork");
	fprintf(stderr, "hang: %ld spins forever\n", (long)getpid());
	for (;;)
		spins++;
}
