/* seccomp.c: unit tests of lib/seccomp: in a child with the filter
 * installed, the refused calls fail as seccomp.h says, and ordinary
 * ones (fork, a thread's clone, files) still work. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp.h"
#include "unit.h"

/* Runs what() in a filtered child; its exit status. */
static int
filtered(int (*what)(void))
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (ar_seccomp_install() < 0)
			_exit(100);
		_exit(what());
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Each returns 0 when the call was refused as it must be. */
static int
try_ptrace(void)
{
	return ptrace(PTRACE_ATTACH, getppid(), NULL, NULL) < 0 &&
	    errno == EPERM ? 0 : 1;
}

static int
try_keyctl(void)
{
	return syscall(SYS_add_key, "user", "k", "v", 1, -3) < 0 &&
	    errno == EPERM ? 0 : 1;
}

static int
try_shm(void)
{
	return syscall(SYS_shmget, 1234, 4096, 01000 | 0600) < 0 &&
	    errno == EPERM ? 0 : 1;
}

static int
try_unshare(void)
{
	return unshare(CLONE_NEWUSER) < 0 && errno == EPERM ? 0 : 1;
}

static int
try_clone_ns(void)
{
	long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL,
	    NULL, NULL);

	if (r == 0)
		_exit(0);
	return r < 0 && errno == EPERM ? 0 : 1;
}

static int
try_clone3(void)
{
#ifdef SYS_clone3
	return syscall(SYS_clone3, NULL, 0) < 0 && errno == ENOSYS ? 0 : 1;
#else
	return 0;
#endif
}

/* Succeeds, and the CPUs stay what they were. */
static int
try_affinity(void)
{
	cpu_set_t before, set, after;
	int i;

	sched_getaffinity(0, sizeof before, &before);
	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (!CPU_ISSET(i, &before))
			CPU_SET(i, &set);
	if (CPU_COUNT(&set) == 0)
		CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return 1;
	sched_getaffinity(0, sizeof after, &after);
	return CPU_EQUAL(&before, &after) ? 0 : 2;
}

/* What must still work: fork and wait, a plain clone, files, getpid. */
static int
try_ordinary(void)
{
	pid_t pid = fork();
	int st;
	char path[] = "/tmp/ar-seccomp-XXXXXX";
	int fd;

	if (pid == 0)
		_exit(7);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || WEXITSTATUS(st) != 7)
		return 1;
	if ((fd = mkstemp(path)) < 0)
		return 2;
	close(fd);
	unlink(path);
	return getpid() > 0 ? 0 : 3;
}

static void
refused(void)
{
	OK(filtered(try_ptrace) == 0, "ptrace of the parent: EPERM");
	OK(filtered(try_keyctl) == 0, "add_key: EPERM");
	OK(filtered(try_shm) == 0, "shmget: EPERM");
	OK(filtered(try_unshare) == 0, "unshare(CLONE_NEWUSER): EPERM");
	OK(filtered(try_clone_ns) == 0, "clone with CLONE_NEWUSER: EPERM");
	OK(filtered(try_clone3) == 0, "clone3: ENOSYS, so libc falls back");
	OK(filtered(try_affinity) == 0, "sched_setaffinity: 0, and the CPUs unchanged");
	OK(filtered(try_ordinary) == 0, "fork, wait, files still work");
}

static void
listed(void)
{
	size_t i, n = 0;

	for (i = 0; ar_seccomp_refused(i); i++)
		n += strcmp(ar_seccomp_refused(i), "ptrace") == 0 ||
		    strcmp(ar_seccomp_refused(i), "keyctl") == 0;
	OK(n == 2 && i > 40, "the list of refused calls names them (%zu)", i);
}

const struct unit_test unit_seccomp[] = {
	TEST(refused),
	TEST(listed),
	UNIT_END,
};
