/* runner.h: the client of a runner, and the protocol it speaks. A runner
 * is a server that runs ar-bench's stages one at a time inside one
 * bubblewrap sandbox (or none), timing each with its own clock; the
 * server is ar-bench --runner (cmd/ar-bench/runner.c), the client and
 * the protocol, both sides of it, are here.
 *
 * The protocol, over the server's stdin and stdout: the client starts
 * "EXE --runner sandbox" (or "none") and waits for "ready". A request is
 * lines of "KEY<TAB>VALUE", the value TSV-escaped, one for each field of
 * an ar_job (env, clean and cpu once per item), then "go"; the answer is
 * one line, "done" and the figures of an ar_jobres (ar_runner_done), or
 * "fail<TAB>WHY". "quit" ends the server. */
#ifndef AR_RUNNER_H
#define AR_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* How the client starts the server: EXE AR_RUNNER_ARG AR_RUNNER_SANDBOX
 * (inside bubblewrap) or AR_RUNNER_NONE. */
#define AR_RUNNER_ARG "--runner"
#define AR_RUNNER_SANDBOX "sandbox"
#define AR_RUNNER_NONE "none"

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

/* The server's side of the protocol. What a request line asks: */
enum {
	AR_RQ_BAD = -1,      /* not KEY<TAB>VALUE: answer ar_runner_fail */
	AR_RQ_OTHER,         /* a key this server does not know: ignored */
	AR_RQ_GO,            /* run the job the lines so far describe */
	AR_RQ_QUIT,
	AR_RQ_CMD, AR_RQ_CWD, AR_RQ_OUT, AR_RQ_ERR, /* one value each */
	AR_RQ_ENV, AR_RQ_CLEAN, AR_RQ_CPU,          /* one line per item */
	AR_RQ_TIMEOUT,       /* seconds */
};
/* Reads one request line, without its newline; an AR_RQ_ value, and for
 * a key *value, unescaped in place inside line. */
int ar_runner_request(char *line, char **value);
/* The server's answers: "ready" once started, "done" with status,
 * timed_out, wall, user, sys, maxrss_kb and leftovers of res, or "fail"
 * with why. Each is flushed. */
void ar_runner_ready(FILE *out);
void ar_runner_done(FILE *out, const struct ar_jobres *res);
void ar_runner_fail(FILE *out, const char *why);

#endif
