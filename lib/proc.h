/* proc.h: child processes: starting one with its descriptors, process
 * group, CPUs and signals set up, waiting for it, capturing its output;
 * finding a program beside this one; and telling a live process from a
 * dead one whose pid was reused. Every command starts its children here. */
#ifndef AR_PROC_H
#define AR_PROC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

/* Where a child's 0, 1 or 2 comes from: a descriptor of ours, or one of
 * these. */
enum {
	AR_FD_NULL = -1,     /* /dev/null */
	AR_FD_KEEP = -2,     /* this process's own, inherited */
	AR_FD_PATH = -3,     /* the path in in_path, out_path or err_path */
};

struct ar_spawn {
	char *const *argv;       /* argv[0] is looked up in PATH unless it
	                          * holds a '/' */
	char *const *env;        /* NULL: this process's environment */
	int in, out, err;        /* AR_FD_ values or descriptors */
	const char *in_path, *out_path, *err_path; /* with AR_FD_PATH */
	int append;              /* out_path and err_path appended to, not
	                          * truncated */
	int pgroup;              /* 0: ours; -1: a new group of its own;
	                          * > 0: join that group */
	int die_with_parent;     /* SIGTERM to it when we die */
	const int *cpus;         /* the CPUs it may run on; NULL: ours */
	size_t ncpu;
	const sigset_t *mask;    /* its signal mask; NULL: empty */
};

/* Starts a child; 0 with *pid, or -1 with errno (nothing is left running).
 * Signals this process catches are default in the child. */
int ar_spawn(const struct ar_spawn *s, pid_t *pid);
/* Waits for pid: its exit status, 128 + the signal that killed it, or -1
 * with errno. */
int ar_wait(pid_t pid);
/* Runs argv with stdin from /dev/null, stdout to out and stderr to err
 * (AR_FD_ values or descriptors); its status as ar_wait gives it, -1 with
 * errno when it cannot start. */
int ar_run(char *const argv[], int out, int err);
/* Runs argv and collects at most max bytes of its stdout into out
 * (NUL-terminated); its stderr goes to err (an AR_FD_ value or a
 * descriptor). Its status as ar_wait gives it; -1 when it cannot start
 * or wrote more than max (it is then killed). */
int ar_capture(char *const argv[], int err, struct ar_buf *out, size_t max);

/* The path of this program, from /proc/self/exe; NULL when unknown. */
const char *ar_self_exe(void);
/* A program of the toolkit: the one beside this program when there is
 * one, else name itself, to be found in PATH. malloc'd. */
char *ar_sibling(const char *name);
/* Whether prog runs: a path that is executable, or a name found in PATH. */
int ar_runnable(const char *prog);

/* The start time of a process in clock ticks since boot, from
 * /proc/PID/stat; 0 when there is no such process or it is a zombie. */
unsigned long long ar_proc_start(long pid);
/* Whether pid runs and, when start is not 0, is the process that started
 * then: a reused pid is never taken for a recorded one. */
int ar_proc_alive(long pid, unsigned long long start);

#endif
