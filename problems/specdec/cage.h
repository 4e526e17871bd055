/* cage.h: the policy's own process (cage.c): the engine opens it before
 * it loads anything, asks it for each step's actions and closes it at
 * the end. Each ends the run with "specdec: policy: ..." on stderr and
 * exit 1 when the policy's process is gone (a crash, a forbidden system
 * call). */
#ifndef SD_CAGE_H
#define SD_CAGE_H

#include <sys/types.h>

#include "sd.h"

struct cage_shm;

struct cage {
	pid_t pid;
	int to, from;                   /* the engine's ends of the pipes */
	struct cage_shm *shm;
};

void cage_open(struct cage *c);
/* act[0 .. v->n - 1] for one step, copied out of the shared page. */
void cage_ask(struct cage *c, const struct sd_view *v, struct sd_act *act);
void cage_close(struct cage *c);

#endif
