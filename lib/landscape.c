/* landscape.c: simulated campaigns (placeholder until it lands). */
#include <stdio.h>

#include "ar.h"
#include "landscape.h"

int
ar_sched_simulate(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "ar-sched simulate: not yet\n");
	return 70;
}

int
ar_sched_landscape(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "ar-sched landscape: not yet\n");
	return 70;
}
