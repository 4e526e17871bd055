/* landscape.c: the landscape files of ar-sched simulate (ar-sched(1)),
 * read by cmd/ar-sched/simulate.c, which this target includes to reach
 * its static reader. The reader ends the process on a malformed file
 * (ar_die, 65); here its cleanup hook jumps back instead, so a refused
 * file is a normal outcome, and what the reader had allocated then is
 * not counted as a leak. What it accepts has a row for every method
 * at every k, and finite scores, noises and costs. */
#include <setjmp.h>
#include <sanitizer/lsan_interface.h>

#include "fuzz.h"

#include "../../cmd/ar-sched/simulate.c"

/* main.c's, which is not linked: the other subcommands name it. */
const char sched_usage[] = "usage: ar-sched " USAGE_SIMULATE;

static jmp_buf died;

static void
back(void)
{
	longjmp(died, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static int hooked;
	struct land *ls = NULL;
	size_t nl = 0, i, j;
	char path[128];
	int ki;

	if (!hooked) {
		ar_setprog("ar-sched");
		ar_on_die(back);
		hooked = 1;
	}
	fuzz_file(d, n, "landscape.tsv", path, sizeof path);
	if (!freopen(path, "r", stdin))
		abort();
	__lsan_disable();
	if (setjmp(died)) {
		__lsan_enable();
		return 0;
	}
	read_file("-", &ls, &nl);
	__lsan_enable();
	CHECK(nl > 0);
	for (i = 0; i < nl; i++) {
		CHECK(ls[i].n > 0);
		for (j = 0; j < ls[i].n; j++)
			for (ki = 0; ki < NK; ki++) {
				CHECK(ls[i].m[j].have[ki]);
				CHECK(isfinite(ls[i].m[j].score[ki]));
				CHECK(isfinite(ls[i].m[j].noise[ki]));
				CHECK(isfinite(ls[i].m[j].cost[ki]));
			}
	}
	free_lands(ls, nl);
	return 0;
}
