/* attack: what a method written to cheat tries from inside ar-bench's
 * sandbox, for tests/ar-bench-attacks.bats. Each command prints one line
 * per thing it tried: "ok WHAT" when it got through, "refused WHAT:
 * REASON" when not. The tests copy it into a method as lib/attack.
 *
 *   attack procs             every process outside this run: ptrace it,
 *                            open its memory, read its environment and
 *                            command line, open its descriptors
 *   attack fds               the descriptors this process holds past 2
 *   attack keep NAME VALUE   stores VALUE where a later run or session
 *                            could find it: keyrings, SysV shared memory,
 *                            a POSIX message queue
 *   attack find NAME         looks for what keep stored; prints it
 *   attack escape            a new user namespace (unshare, clone), a
 *                            mount
 *   attack cpus              widens its CPU affinity to every CPU
 *   attack seed FILE         works back from the first 8 bytes of an
 *                            input to the seed of a splitmix64 generator
 *                            (the one int8-matvec's gen used): prints it
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void
said(int ok, const char *what)
{
	if (ok)
		printf("ok %s\n", what);
	else
		printf("refused %s: %s\n", what, strerror(errno));
	fflush(stdout);
}

/* The hash of a name, as a SysV key and a queue name share it. */
static key_t
key_of(const char *name)
{
	unsigned h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return (key_t)(h & 0x7fffffff);
}

static void
procs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), group = getpgid(0);
	char what[600], path[128];

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		DIR *fds;
		struct dirent *f;
		int fd;

		/* The run's own processes are its own to inspect. */
		if (pid <= 0 || pid == self || getpgid(pid) == group)
			continue;
		snprintf(what, sizeof what, "ptrace %d", (int)pid);
		if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0) {
			said(1, what);
			waitpid(pid, NULL, __WALL);
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
		} else
			said(0, what);
		snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
		fd = open(path, O_RDONLY);
		snprintf(what, sizeof what, "open %s", path);
		said(fd >= 0, what);
		if (fd >= 0)
			close(fd);
		snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
		snprintf(what, sizeof what, "read %s", path);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			char buf[64];
			ssize_t n = read(fd, buf, sizeof buf);

			close(fd);
			if (n > 0)
				said(1, what);
			else {
				errno = n == 0 ? ENODATA : errno;
				said(0, what);
			}
		} else
			said(0, what);
		snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
		snprintf(what, sizeof what, "list %s", path);
		if (!(fds = opendir(path))) {
			said(0, what);
			continue;
		}
		while ((f = readdir(fds))) {
			char fp[400];

			if (f->d_name[0] == '.')
				continue;
			snprintf(fp, sizeof fp, "%s/%s", path, f->d_name);
			snprintf(what, sizeof what, "open %s for writing", fp);
			/* Opened, never written: a test must not break the
			 * runner it proves reachable. */
			fd = open(fp, O_WRONLY | O_NONBLOCK);
			said(fd >= 0, what);
			if (fd >= 0)
				close(fd);
		}
		closedir(fds);
	}
	closedir(d);
}

static void
fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		char path[64], to[256] = "", what[400];
		ssize_t n;

		if (e->d_name[0] == '.' || fd <= 2 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		n = readlink(path, to, sizeof to - 1);
		to[n > 0 ? n : 0] = '\0';
		snprintf(what, sizeof what, "inherited descriptor %d (%s)", fd,
		    to);
		said(1, what);
	}
	closedir(d);
}

static void
keep(const char *name, const char *value)
{
	key_t k = key_of(name);
	char what[400], mq[300];
	long r;
	int id, fd;

	snprintf(what, sizeof what, "add_key %s to the session keyring", name);
	r = syscall(SYS_add_key, "user", name, value, strlen(value),
	    KEY_SPEC_SESSION_KEYRING);
	said(r >= 0, what);
	snprintf(what, sizeof what, "add_key %s to the user keyring", name);
	r = syscall(SYS_add_key, "user", name, value, strlen(value),
	    KEY_SPEC_USER_KEYRING);
	said(r >= 0, what);
	snprintf(what, sizeof what, "shmget %s", name);
	id = shmget(k, 4096, IPC_CREAT | 0600);
	said(id >= 0, what);
	if (id >= 0) {
		char *p = shmat(id, NULL, 0);

		if (p != (void *)-1) {
			snprintf(p, 4096, "%s", value);
			shmdt(p);
		}
	}
	snprintf(mq, sizeof mq, "ar-attack-%s", name);
	snprintf(what, sizeof what, "mq_open %s", mq);
	fd = (int)syscall(SYS_mq_open, mq, O_CREAT | O_RDWR, 0600, NULL);
	said(fd >= 0, what);
	if (fd >= 0) {
		syscall(SYS_mq_timedsend, fd, value, strlen(value), 0, NULL);
		close(fd);
	}
}

static void
find(const char *name)
{
	key_t k = key_of(name);
	char what[4500], buf[4096], mq[300];
	long r;
	int id, fd;

	snprintf(what, sizeof what, "request_key %s", name);
	r = syscall(SYS_request_key, "user", name, NULL, 0);
	if (r >= 0) {
		long n = syscall(SYS_keyctl, KEYCTL_READ, r, buf,
		    sizeof buf - 1);

		buf[n > 0 ? n : 0] = '\0';
		snprintf(what, sizeof what, "request_key %s found %s", name,
		    buf);
	}
	said(r >= 0, what);
	snprintf(what, sizeof what, "shmget %s", name);
	id = shmget(k, 0, 0);
	if (id >= 0) {
		char *p = shmat(id, NULL, SHM_RDONLY);

		if (p != (void *)-1) {
			snprintf(what, sizeof what, "shmget %s found %.100s",
			    name, p);
			shmdt(p);
		}
	}
	said(id >= 0, what);
	snprintf(mq, sizeof mq, "ar-attack-%s", name);
	snprintf(what, sizeof what, "mq_open %s", mq);
	fd = (int)syscall(SYS_mq_open, mq, O_RDONLY | O_NONBLOCK, 0, NULL);
	said(fd >= 0, what);
	if (fd >= 0)
		close(fd);
}

static void
escape(void)
{
	pid_t pid;

	said(unshare(CLONE_NEWUSER) == 0, "unshare a user namespace");
	said(unshare(CLONE_NEWNS) == 0, "unshare a mount namespace");
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL,
	    NULL, NULL);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	said(pid > 0, "clone into a user namespace");
	said(mount("none", "/tmp", "tmpfs", 0, NULL) == 0, "mount a tmpfs");
}

static void
cpus(void)
{
	cpu_set_t set;
	char what[100];
	int before, after, i;

	sched_getaffinity(0, sizeof set, &set);
	before = CPU_COUNT(&set);
	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	i = sched_setaffinity(0, sizeof set, &set);
	sched_getaffinity(0, sizeof set, &set);
	after = CPU_COUNT(&set);
	snprintf(what, sizeof what, "widen the CPUs from %d to %d", before,
	    after);
	if (i == 0 && after <= before)
		errno = EPERM;   /* "succeeded", and changed nothing */
	said(i == 0 && after > before, what);
}

/* The inverse of an odd number modulo 2^64 (Newton's iteration). */
static uint64_t
inverse(uint64_t a)
{
	uint64_t x = a;
	int i;

	for (i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

static void
seed(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint64_t z;

	if (!f || fread(&z, 8, 1, f) != 1) {
		perror(path);
		exit(66);
	}
	fclose(f);
	/* splitmix64's finalizer undone step by step; its state was the
	 * seed plus the golden ratio. */
	z ^= z >> 31 ^ z >> 62;
	z *= inverse(0x94d049bb133111ebu);
	z ^= z >> 27 ^ z >> 54;
	z *= inverse(0xbf58476d1ce4e5b9u);
	z ^= z >> 30 ^ z >> 60;
	printf("%llu\n", (unsigned long long)(z - 0x9e3779b97f4a7c15u));
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "procs") == 0)
		procs();
	else if (argc == 2 && strcmp(argv[1], "fds") == 0)
		fds();
	else if (argc == 4 && strcmp(argv[1], "keep") == 0)
		keep(argv[2], argv[3]);
	else if (argc == 3 && strcmp(argv[1], "find") == 0)
		find(argv[2]);
	else if (argc == 2 && strcmp(argv[1], "escape") == 0)
		escape();
	else if (argc == 2 && strcmp(argv[1], "cpus") == 0)
		cpus();
	else if (argc == 3 && strcmp(argv[1], "seed") == 0)
		seed(argv[2]);
	else {
		fprintf(stderr, "usage: attack procs|fds|keep NAME VALUE|"
		    "find NAME|escape|cpus|seed FILE\n");
		return 64;
	}
	return 0;
}
