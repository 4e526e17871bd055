/* id.c: unit tests of lib/id: valid ids, and fresh ids that sort by
 * time and never collide, within a process and across processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "id.h"
#include "unit.h"

static void
fresh(void)
{
	char a[AR_IDLEN], b[AR_IDLEN];
	int i, sorted = 1;

	ar_id_new(a);
	for (i = 0; i < 10000; i++) {
		ar_id_new(b);
		if (strcmp(a, b) >= 0)
			sorted = 0;
		memcpy(a, b, sizeof a);
	}
	OK(sorted, "strictly increasing within a process");
	OK(strlen(a) == 40 && ar_id_valid(a), "40 valid characters");
	OK(a[8] == 'T' && a[22] == 'Z' && a[23] == '-' &&
	    strspn(a + 24, "0123456789abcdef") == 16, "time, Z, then 64 "
	    "random bits in hex");
}

static void
valid(void)
{
	char longest[AR_ID_MAX + 2];

	OK(!ar_id_valid("") && !ar_id_valid("a/b") && !ar_id_valid(".x") &&
	    !ar_id_valid("-x") && !ar_id_valid("a@b"), "invalid ids");
	OK(ar_id_valid("a.b-c_D9") && ar_id_valid("x.") && ar_id_valid("0"),
	    "valid ids");
	memset(longest, 'a', AR_ID_MAX);
	longest[AR_ID_MAX] = 0;
	OK(ar_id_valid(longest), "%d characters", AR_ID_MAX);
	longest[AR_ID_MAX] = 'a';
	longest[AR_ID_MAX + 1] = 0;
	OK(!ar_id_valid(longest), "%d characters are too many", AR_ID_MAX + 1);
}

/* Ids made by many processes at once never collide. Each child writes
 * its own file: lines through one pipe could interleave. */
static void
processes(void)
{
	enum { PROCS = 8, EACH = 5000 };
	char (*all)[AR_IDLEN] = malloc((size_t)PROCS * EACH * AR_IDLEN);
	char *dir = unit_tmpdir(), path[4096];
	int p, dup = 0;
	size_t got = 0, i;

	if (!all) {
		OK(0, "across processes (setup)");
		unit_rmtree(dir);
		return;
	}
	for (p = 0; p < PROCS; p++) {
		if (fork() == 0) {
			FILE *out;
			char id[AR_IDLEN];
			int k;

			snprintf(path, sizeof path, "%s/%d", dir, p);
			if (!(out = fopen(path, "w")))
				_exit(1);
			for (k = 0; k < EACH; k++) {
				ar_id_new(id);
				fprintf(out, "%s\n", id);
			}
			/* Freed: valgrind checks a child's exit too. */
			free(all);
			free(dir);
			_exit(fclose(out) == 0 ? 0 : 1);
		}
	}
	while (wait(NULL) > 0)
		;
	for (p = 0; p < PROCS; p++) {
		FILE *in;

		snprintf(path, sizeof path, "%s/%d", dir, p);
		if (!(in = fopen(path, "r")))
			continue;
		while (got < (size_t)PROCS * EACH &&
		    fscanf(in, "%40s", all[got]) == 1)
			got++;
		fclose(in);
	}
	unit_rmtree(dir);
	qsort(all, got, AR_IDLEN, (int (*)(const void *, const void *))strcmp);
	for (i = 1; i < got; i++)
		if (strcmp(all[i], all[i - 1]) == 0)
			dup++;
	OK(got == (size_t)PROCS * EACH && dup == 0, "40,000 ids from 8 "
	    "processes at once, none twice");
	free(all);
}

static void
times(void)
{
	char id[AR_IDLEN];
	struct timespec ts, before;

	clock_gettime(CLOCK_REALTIME, &before);
	ar_id_new(id);
	OK(ar_id_time(id, &ts) == 0 && ts.tv_sec >= before.tv_sec - 1 &&
	    ts.tv_sec <= before.tv_sec + 5, "time: a fresh id's own time");
	OK(ar_id_time("20261126T015812.123456Z-x", &ts) == 0 &&
	    ts.tv_sec == 1795658292 && ts.tv_nsec == 123456000,
	    "time: 2026-11-26T01:58:12.123456Z");
	OK(ar_id_time("20261131T015812.123456Z", &ts) < 0, "time: no 31 "
	    "November");
	OK(ar_id_time("20261126T015812.12345Z", &ts) < 0 &&
	    ar_id_time("20261126-015812.123456Z", &ts) < 0 &&
	    ar_id_time("2026112", &ts) < 0 && ar_id_time("", &ts) < 0,
	    "time: short, misshapen or empty: -1");
}

const struct unit_test unit_id[] = {
	TEST(fresh),
	TEST(times),
	TEST(valid),
	TEST(processes),
	UNIT_END,
};
