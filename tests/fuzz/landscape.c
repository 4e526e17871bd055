/* landscape.c: the landscape files of ar-sched simulate (ar-sched(1)),
 * read by cmd/ar-sched/simulate.c, which this target includes to reach
 * its static reader. The reader ends the process on a malformed file
 * (ar_die, 65); here its cleanup hook frees what the reader had read
 * and jumps back instead, so a refused file is a normal outcome. What
 * it accepts offers k=1, has a row for every method at every k the
 * landscape offers, finite scores, noises and costs, and its methods in
 * the natural order of their ids. */
#include <setjmp.h>
#include <sanitizer/lsan_interface.h>

#include "fuzz.h"

#include "../../cmd/ar-sched/simulate.c"

/* main.c's, which is not linked: the other subcommands name it. */
const char sched_usage[] = "usage: ar-sched " USAGE_SIMULATE;

static jmp_buf died;
static struct land *ls;
static size_t nl;

/* Called by ar_die while the reader's frame is live: what it had read
 * and its TSV reader are freed, so that refused files do not pile up
 * (two million of them filled 2 GB), then back to the target. */
static void
back(void)
{
	if (sim_reading) {
		ar_tsv_close(sim_reading);
		sim_reading = NULL;
	}
	free_lands(ls, nl);
	ls = NULL;
	nl = 0;
	longjmp(died, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static int hooked;
	size_t i, j;
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
		CHECK(ls[i].use[0]);
		/* The methods in the natural order of their ids, which
		 * are unique in a landscape. */
		for (j = 1; j < ls[i].n; j++)
			CHECK(cmp_id(ls[i].m[j - 1].id, ls[i].m[j].id) < 0);
		for (j = 0; j < ls[i].n; j++)
			for (ki = 0; ki < NK; ki++) {
				/* A k the landscape offers, every method has. */
				CHECK(ls[i].m[j].have[ki] == ls[i].use[ki]);
				if (!ls[i].use[ki])
					continue;
				CHECK(isfinite(ls[i].m[j].score[ki]));
				CHECK(isfinite(ls[i].m[j].noise[ki]));
				CHECK(isfinite(ls[i].m[j].cost[ki]));
			}
	}
	free_lands(ls, nl);
	ls = NULL;
	nl = 0;
	return 0;
}
