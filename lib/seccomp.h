/* seccomp.h: the system calls a stage of ar-bench may not make, as one
 * seccomp filter: no reaching another process (ptrace, process_vm_*,
 * kcmp, pidfd_getfd), no kernel state that outlives a run or is shared
 * with the host (keyrings, SysV IPC, POSIX message queues), no new
 * namespaces, mounts or kernel modules, no io_uring (whose operations
 * pass by seccomp). Such a call fails with EPERM; clone3 with ENOSYS,
 * so that the C library falls back to clone, whose namespace flags the
 * filter can see. sched_setaffinity returns 0 and changes nothing: the
 * CPUs a run was pinned to are its bundle, and libraries that pin their
 * threads must not fail for it. A call of another architecture's ABI
 * (x32, i386) kills the process. */
#ifndef AR_SECCOMP_H
#define AR_SECCOMP_H

#include <stddef.h>

/* Installs the filter on the calling thread and its future children,
 * with no_new_privs set; 0, or -1 with errno (ENOSYS on an architecture
 * it does not know). */
int ar_seccomp_install(void);
/* The name of the i-th call it refuses, NULL past the last: for tests
 * and docs. */
const char *ar_seccomp_refused(size_t i);

#endif
