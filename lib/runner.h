/* runner.h: a server that runs ar-bench's stages one at a time inside
 * one bubblewrap sandbox (or none), timing each with its own clock. */
#ifndef AR_RUNNER_H
#define AR_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct ar_bind {
	const char *src, *dst;
	int rw;
};
struct ar_sandbox {
	int on;              /* 0: no sandbox */
	const char *bwrap;   /* the bwrap program */
	size_t nbind, nmask;
	struct ar_bind bind[16];
	const char *mask[8]; /* secrets to hide when a system dir holds them */
	const char *errfile; /* the runner's stderr (and bwrap's) */
	size_t ngpu;         /* the NVIDIA device nodes of these GPUs */
	int gpu[64];
};
struct ar_runner {
	pid_t pid;
	int wfd, rfd, sandbox, busy;
};
struct ar_job {
	const char *cmd;     /* run as /bin/sh -c CMD */
	const char *cwd, *out, *err;   /* stdout and stderr files */
	char *const *env;    /* NULL-ended "K=V": the whole environment */
	char *const *clean;  /* directories emptied before the job */
	const int *cpu;      /* the CPUs it may use; none: all */
	size_t ncpu;
	double timeout_s;
};
struct ar_jobres {
	int status;          /* as wait(2) gives it */
	int timed_out, leftovers, lost;
	double wall, user, sys, outside;
	long maxrss_kb;
	char why[256];       /* when lost */
};
int ar_runner_start(struct ar_runner *r, const struct ar_sandbox *sb,
	char *err, size_t errlen);
/* 0 with res filled; -1 with res->lost and res->why when the runner died
 * or lied about its clock (it is then stopped). */
int ar_runner_exec(struct ar_runner *r, const struct ar_job *j,
	struct ar_jobres *res);
void ar_runner_stop(struct ar_runner *r);
/* Set by a signal handler: a wait for a runner's answer gives up. */
extern volatile sig_atomic_t ar_runner_interrupted;
/* The server's loop on stdin and stdout: ar-bench --runner. */
int ar_runner_main(int sandboxed);

#endif
