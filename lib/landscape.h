/* landscape.h: simulated campaigns. A landscape file says, per method
 * and k, the true score, the noise of one measurement, a guardrail value
 * and the cost; ar-sched simulate runs the policies against it and
 * ar-sched landscape generates such files. */
#ifndef AR_LANDSCAPE_H
#define AR_LANDSCAPE_H

/* `ar-sched simulate ARGS` and `ar-sched landscape ARGS`; argv[0] is the
 * subcommand's name. They return the exit status. */
int ar_sched_simulate(int argc, char **argv);
int ar_sched_landscape(int argc, char **argv);
/* Their synopses, "simulate [-Sv] ..." and "landscape [-n ...] ...",
 * for ar-sched's own usage text. */
extern const char ar_simulate_usage[];
extern const char ar_landscape_usage[];

#endif
