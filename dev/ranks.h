/* The ranks of a bundle: one process per GPU (or CPU), driven by ar-bench
 * over pipes, one command at a time, so that ar-bench owns the clock: it
 * starts every rank's timed window together and ends it when the last
 * rank answers. This is the parent's side; a rank is ar-bench --rank
 * (cmd/ar-bench/rank.c). The protocol, one line each way, is this:
 *   open KIND ORDINAL RANK NRANKS COMM   ok NAME-AND-FACTS-AS-JSON
 *   prepare OP SIZE REPS                 ok | skip WHY
 *   flush OP                             ok
 *   run OP                               ok DEV_S CPU_S
 *   post OP                              ok CLOCK_MHZ ERR CHECKED OK
 *   release | close                      ok
 * and any command may answer "err WHY". KIND is cuda or cpu, OP a name
 * of ar_dev_op_name (dev.h), COMM the communicator's id or "-"; an
 * answer is at most AR_RANK_LINE bytes, with no newline inside. */
#ifndef AR_RANKS_H
#define AR_RANKS_H

#include <sys/types.h>

#define AR_RANKS_MAX 64
#define AR_RANK_LINE 1024
/* A rank is started as "EXE AR_RANK_ARG". */
#define AR_RANK_ARG "--rank"

struct ar_ranks {
	int k;
	pid_t pgid;
	pid_t pid[AR_RANKS_MAX];
	int to[AR_RANKS_MAX], from[AR_RANKS_MAX];
	char in[AR_RANKS_MAX][AR_RANK_LINE];   /* what is read, unfinished */
	size_t inlen[AR_RANKS_MAX];
	char reply[AR_RANKS_MAX][AR_RANK_LINE]; /* the last answers, after
	                                          * "ok " */
};

/* Starts k ranks, "exe --rank", their stderr appended to errlog, in a
 * process group of their own. 0, or -1 with why. */
int ar_ranks_start(struct ar_ranks *g, const char *exe, int k,
    const char *errlog, char *why, size_t n);
/* Sends line to rank r (-1: every rank). 0, or -1 with why. */
int ar_ranks_send(struct ar_ranks *g, int r, const char *line, char *why,
    size_t n);
/* Waits for an answer from every rank, at most timeout seconds. 0 when
 * all said "ok"; 1 when one said "skip" (why is its reason); -1 when one
 * said "err", died, or did not answer in time (why names the rank). */
int ar_ranks_wait(struct ar_ranks *g, double timeout, char *why, size_t n);
/* send to every rank, then wait. */
int ar_ranks_call(struct ar_ranks *g, const char *line, double timeout,
    char *why, size_t n);
/* Kills every rank and all they started, and reaps them. Safe to call
 * twice, and from a cleanup at exit. */
void ar_ranks_stop(struct ar_ranks *g);
/* Asks the ranks to close, waits for them, then stops what is left. */
void ar_ranks_close(struct ar_ranks *g);

#endif
