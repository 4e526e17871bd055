/* proc.c: unit tests of lib/proc: exit statuses of ar_run and
 * ar_capture, capture's limit, ar_spawn's descriptors, group and CPUs,
 * a process's start time and liveness, a sibling program, runnable
 * programs. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "proc.h"
#include "unit.h"

static void
run(void)
{
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	char *term[] = { "sh", "-c", "kill -TERM $$", NULL };
	char *ok[] = { "true", NULL };

	OK(ar_run(ok, AR_FD_NULL, AR_FD_NULL) == 0, "run: exit 0");
	OK(ar_run(exit3, AR_FD_NULL, AR_FD_NULL) == 3, "run: exit 3");
	OK(ar_run(term, AR_FD_NULL, AR_FD_NULL) == 128 + SIGTERM, "run: killed "
	    "by SIGTERM is 128 + 15");
	char *out = NULL;

	/* In a child of its own: under valgrind, posix_spawn cannot see an
	 * exec fail, and the child exits 127 instead. */
	OK(unit_child("missing", NULL, &out, NULL) == 0 && out, "run: a "
	    "missing program (a child)");
	OK(out && strstr(out, "run -1 No such file or directory\n"), "run: a "
	    "missing program is -1, ENOENT");
	OK(out && strstr(out, "path -1 No such file or directory\n"), "run: a "
	    "missing path is -1, ENOENT");
	OK(out && strstr(out, "capture -1 0\n"), "capture: a missing program "
	    "is -1");
	free(out);
	OK(ar_wait(getpid()) == -1 && errno == ECHILD, "wait: not a child");
}

/* A missing program run, by name and by path, and captured. */
static void
missing(const char *arg)
{
	char *none[] = { "ar-unit-no-such-program", NULL };
	char *abs_none[] = { "/nonexistent/prog", NULL };
	struct ar_buf b = {0};
	int r;

	(void)arg;
	errno = 0;
	r = ar_run(none, AR_FD_NULL, AR_FD_NULL);
	printf("run %d %s\n", r, strerror(errno));
	errno = 0;
	r = ar_run(abs_none, AR_FD_NULL, AR_FD_NULL);
	printf("path %d %s\n", r, strerror(errno));
	r = ar_capture(none, AR_FD_NULL, &b, 100);
	printf("capture %d %zu\n", r, b.len);
	ar_buf_free(&b);
}

static void
capture(void)
{
	char *echo[] = { "printf", "a\\nb", NULL };
	char *both[] = { "sh", "-c", "echo out; echo err >&2; exit 4", NULL };
	char *big[] = { "head", "-c", "100000", "/dev/zero", NULL };
	char *exact[] = { "head", "-c", "1000", "/dev/zero", NULL };
	char *dir = unit_tmpdir(), *p = unit_path(dir, "err"), *t;
	struct ar_buf b = {0};
	int fd;

	OK(ar_capture(echo, AR_FD_NULL, &b, 100) == 0 && strcmp(b.p, "a\nb") ==
	    0 && b.len == 3, "capture: stdout");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	OK(ar_capture(both, fd, &b, 100) == 4 && strcmp(b.p, "out\n") == 0,
	    "capture: the status, stdout alone");
	close(fd);
	t = unit_read(p, NULL);
	OK(t && strcmp(t, "err\n") == 0, "capture: stderr to the descriptor");
	free(t);
	errno = 0;
	OK(ar_capture(big, AR_FD_NULL, &b, 1000) == -1 && errno == EFBIG,
	    "capture: more than max is -1, EFBIG");
	OK(ar_capture(exact, AR_FD_NULL, &b, 1000) == 0 && b.len == 1000,
	    "capture: max bytes exactly");
	ar_buf_free(&b);
	free(p);
	unit_rmtree(dir);
}

static void
spawn_paths(void)
{
	char *dir = unit_tmpdir(), *out = unit_path(dir, "out"),
	    *in = unit_path(dir, "in"), *t;
	char *echo[] = { "echo", "two", NULL }, *cat[] = { "cat", NULL };
	char *envp[] = { "X=from env", NULL };
	char *env[] = { "/bin/sh", "-c", "echo \"$X\"", NULL };
	struct ar_spawn s = { .argv = echo, .in = AR_FD_NULL, .out = AR_FD_PATH,
	    .err = AR_FD_NULL, .out_path = out, .append = 1 };
	pid_t pid;

	unit_put(dir, "out", "one\n", 0644);
	OK(ar_spawn(&s, &pid) == 0 && ar_wait(pid) == 0, "spawn: runs");
	t = unit_read(out, NULL);
	OK(t && strcmp(t, "one\ntwo\n") == 0, "spawn: AR_FD_PATH with append "
	    "appends");
	free(t);
	s.append = 0;
	OK(ar_spawn(&s, &pid) == 0 && ar_wait(pid) == 0, "spawn: again");
	t = unit_read(out, NULL);
	OK(t && strcmp(t, "two\n") == 0, "spawn: without append, truncates");
	free(t);
	unit_put(dir, "in", "from a file\n", 0644);
	s.argv = cat;
	s.in = AR_FD_PATH;
	s.in_path = in;
	OK(ar_spawn(&s, &pid) == 0 && ar_wait(pid) == 0, "spawn: cat");
	t = unit_read(out, NULL);
	OK(t && strcmp(t, "from a file\n") == 0, "spawn: stdin from a path");
	free(t);
	s.argv = env;
	s.env = envp;
	s.in = AR_FD_NULL;
	OK(ar_spawn(&s, &pid) == 0 && ar_wait(pid) == 0, "spawn: an "
	    "environment");
	t = unit_read(out, NULL);
	OK(t && strcmp(t, "from env\n") == 0, "spawn: the environment given, "
	    "alone");
	free(t);
	free(out);
	free(in);
	unit_rmtree(dir);
}

static void
spawn_group(void)
{
	char *cat[] = { "cat", NULL };
	struct ar_spawn s = { .argv = cat, .out = AR_FD_NULL, .err = AR_FD_NULL };
	int p[2];
	pid_t pid;

	/* cat reads the pipe until it is closed: alive while we look. */
	if (pipe(p) < 0)
		return;
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	s.in = p[0];
	s.pgroup = -1;
	OK(ar_spawn(&s, &pid) == 0 && getpgid(pid) == pid, "spawn: pgroup -1 "
	    "is a group of its own");
	close(p[0]);
	close(p[1]);
	OK(ar_wait(pid) == 0, "spawn: it ends when its stdin does");
	if (pipe(p) < 0)
		return;
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	s.in = p[0];
	s.pgroup = 0;
	OK(ar_spawn(&s, &pid) == 0 && getpgid(pid) == getpgrp(), "spawn: "
	    "pgroup 0 is ours");
	close(p[0]);
	close(p[1]);
	ar_wait(pid);
}

static void
spawn_cpus(void)
{
	char *dir = unit_tmpdir(), *out = unit_path(dir, "out"), *t, want[64];
	char *grep[] = { "grep", "Cpus_allowed_list", "/proc/self/status",
	    NULL };
	char *none[] = { "ar-unit-no-such-program", NULL };
	struct ar_spawn s = { .argv = grep, .in = AR_FD_NULL, .out = AR_FD_PATH,
	    .err = AR_FD_NULL, .out_path = out };
	cpu_set_t set;
	int cpu = -1, i;
	pid_t pid;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		for (i = CPU_SETSIZE - 1; i >= 0; i--)
			if (CPU_ISSET(i, &set))
				cpu = i;
	s.cpus = &cpu;
	s.ncpu = 1;
	OK(cpu >= 0 && ar_spawn(&s, &pid) == 0 && ar_wait(pid) == 0,
	    "spawn: on CPU %d", cpu);
	t = unit_read(out, NULL);
	snprintf(want, sizeof want, "Cpus_allowed_list:\t%d\n", cpu);
	OK(t && strcmp(t, want) == 0, "spawn: the child may run on that CPU "
	    "alone");
	free(t);
	s.argv = none;
	errno = 0;
	OK(ar_spawn(&s, &pid) == -1 && errno == ENOENT, "spawn: through fork, "
	    "a missing program is -1, ENOENT");
	free(out);
	unit_rmtree(dir);
}

static void
liveness(void)
{
	unsigned long long me = ar_proc_start(getpid());
	pid_t pid;
	siginfo_t si;

	OK(me > 0, "start: this process has one");
	OK(ar_proc_alive(getpid(), me) && ar_proc_alive(getpid(), 0),
	    "alive: this process, by its start or by pid alone");
	OK(!ar_proc_alive(getpid(), me + 1), "alive: not a pid that started "
	    "at another time");
	OK(ar_proc_start(0) == 0 && !ar_proc_alive(0, 0) &&
	    ar_proc_start(-1) == 0, "pid 0 and -1 are none");
	fflush(NULL);
	if ((pid = fork()) == 0)
		_exit(0);
	/* Exited, not reaped: a zombie is not alive. */
	waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	OK(ar_proc_start(pid) == 0 && !ar_proc_alive(pid, 0), "a zombie is "
	    "not alive");
	waitpid(pid, NULL, 0);
	OK(!ar_proc_alive(pid, 0), "a reaped child is not alive");
}

static void
programs(void)
{
	const char *self = ar_self_exe();
	char *s, *dir = unit_tmpdir(), *p;

	OK(self && self[0] == '/' && strcmp(strrchr(self, '/'), "/unit") == 0,
	    "self_exe: this program's path");
	s = ar_sibling("unit");
	OK(self && strcmp(s, self) == 0, "sibling: the program beside this "
	    "one");
	free(s);
	s = ar_sibling("ar-unit-no-such-program");
	OK(strcmp(s, "ar-unit-no-such-program") == 0, "sibling: else the name, "
	    "for PATH");
	free(s);
	OK(ar_runnable("sh") && ar_runnable("/bin/sh"), "runnable: a name in "
	    "PATH, a path");
	OK(!ar_runnable("ar-unit-no-such-program") &&
	    !ar_runnable("/nonexistent/sh"), "runnable: not what is not there");
	unit_put(dir, "plain", "x", 0644);
	p = unit_path(dir, "plain");
	OK(!ar_runnable(p) && !ar_runnable(dir), "runnable: not a file "
	    "without x, not a directory");
	free(p);
	unit_rmtree(dir);
}

const struct unit_test unit_proc[] = {
	TEST(run),
	TEST(capture),
	TEST(spawn_paths),
	TEST(spawn_group),
	TEST(spawn_cpus),
	TEST(liveness),
	TEST(programs),
	CHILD("missing", missing),
	UNIT_END,
};
