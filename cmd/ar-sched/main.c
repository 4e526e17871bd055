/* ar-sched: what to measure next, at what scale and on which GPUs. This
 * file dispatches to the subcommands and owns the usage text: gpus and
 * pack (gpus.c) print the inventory and place bundles on what is free;
 * next (next.c, next-read.c, methods.c) asks the shared policy for the most
 * valuable measurements and places them, and fold (next.c, summary.c)
 * keeps the folds of the ledger's segments it reads; simulate (simulate.c) runs the
 * policies against landscapes that landscape (landscape.c) makes;
 * cluster (cluster.c) simulates the packer on a large cluster.
 * ar-sched(1) is the contract. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "err.h"
#include "sched.h"

const char sched_usage[] =
	USAGE_GPUS "\n"
	USAGE_PACK "\n"
	USAGE_NEXT "\n"
	USAGE_FOLD "\n"
	USAGE_CLUSTER "\n"
	USAGE_SIMULATE "\n"
	USAGE_LANDSCAPE;

/* simulate and landscape answer -h and --help anywhere before "--",
 * with their own synopsis only. */
static void
own_help(int argc, char **argv, const char *usage)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			printf("usage: %s %s\n", ar_prog(), usage);
			ar_fshut(stdout, "<stdout>");
			exit(AR_EX_OK);
		}
	}
}

int
main(int argc, char **argv)
{
	const char *sub;

	ar_setprog(argv[0]);
	/* libsodium's fastest BLAKE2b for this CPU (the queue's manifests,
	 * method hashes): without it, its reference code. */
	ar_crypto_init();
	/* A subcommand's argv[0] is what getopt names in its messages: the
	 * program, not the subcommand ("ar-sched: unrecognized option"). */
	if (argc >= 2 && strcmp(argv[1], "simulate") == 0) {
		argv[1] = (char *)ar_prog();
		own_help(argc - 1, argv + 1, USAGE_SIMULATE);
		return cmd_simulate(argc - 1, argv + 1);
	}
	if (argc >= 2 && strcmp(argv[1], "landscape") == 0) {
		argv[1] = (char *)ar_prog();
		own_help(argc - 1, argv + 1, USAGE_LANDSCAPE);
		return cmd_landscape(argc - 1, argv + 1);
	}
	ar_std_args(argc, argv, sched_usage);
	if (argc < 2)
		ar_usage(sched_usage);
	sub = argv[1];
	argv[1] = (char *)ar_prog();
	/* getopt starts again at the subcommand's own arguments. */
	optind = 1;
	if (strcmp(sub, "gpus") == 0)
		return cmd_gpus(argc - 1, argv + 1);
	if (strcmp(sub, "pack") == 0)
		return cmd_pack(argc - 1, argv + 1);
	if (strcmp(sub, "next") == 0)
		return cmd_next(argc - 1, argv + 1);
	if (strcmp(sub, "fold") == 0)
		return cmd_fold(argc - 1, argv + 1);
	if (strcmp(sub, "cluster") == 0)
		return cmd_cluster(argc - 1, argv + 1);
	ar_die(AR_EX_USAGE, "%s: no such command (gpus, pack, next, fold, cluster, "
	    "simulate, landscape)", sub);
}
