/* lock.h: the one lock of the toolkit (the ledger's writers, ar-sched next
 * --put, ar-loop, ar-agent's worktrees). A lock is a file made with
 * link(2), which is atomic on NFS too, holding one line "HOST PID START
 * TOKEN": the full host name, the holder's pid and start time (so that a
 * reused pid is not taken for the holder) and a random token. A lock
 * whose holder is gone from this host, or older than the caller allows,
 * is broken under a guard: breakers take flock(2) on PATH.break, read the
 * lock again and remove it only if it is still the one they judged, so a
 * lock taken meanwhile by a live process is never removed. */
#ifndef AR_LOCK_H
#define AR_LOCK_H

#include <stddef.h>
#include <sys/types.h>

struct ar_lock_opts {
	double wait_s;       /* how long to wait for a busy lock */
	double stale_s;      /* > 0: a lock older than this is broken,
	                      * whoever holds it (for locks held briefly) */
	int force;           /* break the lock found first, once */
	pid_t pid;           /* the holder to record; 0: this process */
};

/* Takes the lock at path. 0 when taken; 1 when another holds it after
 * wait_s (err names the holder); -1 with errno and err on a failure to
 * write. *broke, when given, counts the locks of dead holders broken. */
int ar_lock_take(const char *path, const struct ar_lock_opts *o,
	int *broke, char *err, size_t errlen);
/* Removes the lock at path if pid (0: this process) on this host holds
 * it; 0 when removed, 1 when it is another's or gone. */
int ar_lock_drop(const char *path, pid_t pid);
/* The holder a lock names, "pid PID on HOST", into out; -1 when there is
 * none. */
int ar_lock_holder(const char *path, char *out, size_t n);

#endif
