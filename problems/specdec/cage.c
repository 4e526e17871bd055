/* cage.c: the policy's own process, for the engine (engine.c). Forked
 * before the engine loads anything, it holds two pipe ends and a shared
 * page of views and actions; it dies with the engine
 * (PR_SET_PDEATHSIG), and a seccomp filter lets it make no system call
 * but reading and writing those pipes, managing its own memory (qsort
 * may allocate) and exiting: no files, no clock, no signals to others.
 * Each step the engine writes the view, sends a byte, waits for one back
 * and copies the actions out before it reads them, so a policy that
 * goes on writing after its answer changes nothing the engine checked.
 * In the engine's own process a policy could have rewritten the times
 * that the guardrail and the goodput are read from. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cage.h"
#include "trace.h"

static void
die(const char *why)
{
	fprintf(stderr, "specdec: policy: %s\n", why);
	exit(1);
}

struct cage_shm {
	struct sd_view v;               /* v.req is the child's to set */
	int confined;                   /* the child's filter is in place */
	struct sd_req req[SD_MAXREQ];
	struct sd_act act[SD_MAXREQ];
};

#if defined(__x86_64__)
#define CAGE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CAGE_ARCH AUDIT_ARCH_AARCH64
#endif

#define CAGE_ALLOW(nr) \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* 1 when the filter is in place, 0 when this kernel or arch has none. */
static int
cage_confine(void)
{
#ifdef CAGE_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CAGE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		CAGE_ALLOW(__NR_read),
		CAGE_ALLOW(__NR_write),
		CAGE_ALLOW(__NR_exit),
		CAGE_ALLOW(__NR_exit_group),
		CAGE_ALLOW(__NR_rt_sigreturn),
		CAGE_ALLOW(__NR_brk),
		CAGE_ALLOW(__NR_mmap),
		CAGE_ALLOW(__NR_munmap),
		CAGE_ALLOW(__NR_mremap),
		CAGE_ALLOW(__NR_madvise),
		CAGE_ALLOW(__NR_sysinfo),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		return 0;
	return 1;
#else
	return 0;
#endif
}

static void
cage_child(struct cage_shm *m, int in, int out)
{
	char b;

	/* Only the two pipe ends stay open, as 0 and 1. */
	if (dup2(in, 100) < 0 || dup2(out, 101) < 0 || dup2(100, 0) < 0 ||
	    dup2(101, 1) < 0)
		_exit(1);
	for (int fd = 2; fd < 1024; fd++)
		close(fd);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	m->confined = cage_confine();
	if (write(1, "r", 1) != 1)
		syscall(SYS_exit, 1);
	for (;;) {
		struct sd_view v;
		ssize_t n = read(0, &b, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			break;
		v = m->v;
		if (v.n < 0 || v.n > SD_MAXREQ)
			v.n = 0;
		v.req = m->req;
		memset(m->act, 0, (size_t)v.n * sizeof m->act[0]);
		policy_step(&v, m->act);
		if (write(1, "s", 1) != 1)
			break;
	}
	syscall(SYS_exit, 0);
}

/* Why the cage's process ended, as a die() line. */
static void
cage_died(struct cage *c)
{
	char why[160];
	int st;

	if (waitpid(c->pid, &st, 0) != c->pid)
		die("its process vanished");
	if (WIFSIGNALED(st))
		snprintf(why, sizeof why, "crashed: killed by signal %d%s",
		    WTERMSIG(st), WTERMSIG(st) == SIGSYS ? " (SIGSYS: a system "
		    "call no policy may make)" : "");
	else
		snprintf(why, sizeof why, "its process exited with status %d",
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	die(why);
}

void
cage_open(struct cage *c)
{
	int to[2], from[2];
	char b;

	c->shm = mmap(NULL, sizeof *c->shm, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c->shm == MAP_FAILED)
		die(strerror(errno));
	if (pipe(to) != 0 || pipe(from) != 0)
		die(strerror(errno));
	/* A policy gone: its pipe says EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	fflush(NULL);
	if ((c->pid = fork()) < 0)
		die(strerror(errno));
	if (c->pid == 0) {
		close(to[1]);
		close(from[0]);
		cage_child(c->shm, to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	c->to = to[1];
	c->from = from[0];
	for (;;) {
		ssize_t n = read(c->from, &b, 1);

		if (n == 1)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		cage_died(c);
	}
	if (!c->shm->confined)
		fprintf(stderr, "specdec: policy: no seccomp filter on this "
		    "kernel: the policy's process is apart, not confined\n");
}

/* One step: the view in, a byte each way, the actions copied out. */
void
cage_ask(struct cage *c, const struct sd_view *v, struct sd_act *act)
{
	ssize_t n;
	char b;

	c->shm->v = *v;
	c->shm->v.req = NULL;
	memcpy(c->shm->req, v->req, (size_t)v->n * sizeof *v->req);
	while ((n = write(c->to, "s", 1)) != 1)
		if (n >= 0 || errno != EINTR)
			cage_died(c);
	while ((n = read(c->from, &b, 1)) != 1)
		if (n >= 0 || errno != EINTR)
			cage_died(c);
	memcpy(act, c->shm->act, (size_t)v->n * sizeof *act);
}

void
cage_close(struct cage *c)
{
	int st;

	close(c->to);
	close(c->from);
	waitpid(c->pid, &st, 0);
	munmap(c->shm, sizeof *c->shm);
}
