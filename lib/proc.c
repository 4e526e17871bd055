/* proc.c: child processes and what is known of other processes; proc.h
 * says what each call promises. A child is started with posix_spawn(3)
 * when nothing but descriptors, its group and its signals need setting
 * (no copy of a large parent), and with fork(2) when it must also be
 * pinned to CPUs or die with its parent. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "io.h"
#include "proc.h"

extern char **environ;

/* Signals a child gets back at their default: ours may ignore or catch
 * them, and an ignored signal stays ignored across exec(2). */
static const int sigdef[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT,
	SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM };

static int
open_flags(int which, int append)
{
	if (which == 0)
		return O_RDONLY;
	return O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
}

static const char *
path_of(const struct ar_spawn *s, int which)
{
	return which == 0 ? s->in_path : which == 1 ? s->out_path :
	    s->err_path;
}

static int
fd_of(const struct ar_spawn *s, int which)
{
	return which == 0 ? s->in : which == 1 ? s->out : s->err;
}

static int
by_spawn(const struct ar_spawn *s, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
	size_t i;
	int w, e;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	for (w = 0; w < 3; w++) {
		int fd = fd_of(s, w);

		if (fd == AR_FD_NULL)
			posix_spawn_file_actions_addopen(&fa, w, "/dev/null",
			    w ? O_WRONLY : O_RDONLY, 0);
		else if (fd == AR_FD_PATH)
			posix_spawn_file_actions_addopen(&fa, w, path_of(s, w),
			    open_flags(w, s->append), 0644);
		else if (fd >= 0)
			posix_spawn_file_actions_adddup2(&fa, fd, w);
	}
	sigemptyset(&def);
	for (i = 0; i < sizeof sigdef / sizeof *sigdef; i++)
		sigaddset(&def, sigdef[i]);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, s->mask ? s->mask : &none);
	if (s->pgroup) {
		flags |= POSIX_SPAWN_SETPGROUP;
		posix_spawnattr_setpgroup(&at, s->pgroup < 0 ? 0 : s->pgroup);
	}
	posix_spawnattr_setflags(&at, flags);
	e = posix_spawnp(pid, s->argv[0], &fa, &at, s->argv, s->env ?
	    s->env : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* The child's side of by_fork: any failure is sent up the pipe as an
 * errno, so that the parent returns it as posix_spawn would. */
_Noreturn static void
child(const struct ar_spawn *s, pid_t parent, int report)
{
	sigset_t none;
	size_t i;
	int w, e;

	for (i = 0; i < sizeof sigdef / sizeof *sigdef; i++)
		signal(sigdef[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, s->mask ? s->mask : &none, NULL);
	if (s->pgroup)
		setpgid(0, s->pgroup < 0 ? 0 : s->pgroup);
	if (s->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(75);
	}
	if (s->ncpu) {
		cpu_set_t set;

		CPU_ZERO(&set);
		for (i = 0; i < s->ncpu; i++)
			CPU_SET(s->cpus[i], &set);
		if (sched_setaffinity(0, sizeof set, &set) < 0)
			goto fail;
	}
	for (w = 0; w < 3; w++) {
		int fd = fd_of(s, w), o;

		if (fd == AR_FD_KEEP)
			continue;
		if (fd >= 0) {
			/* dup2 onto itself would keep its close-on-exec. */
			if (fd == w ? fcntl(w, F_SETFD, 0) < 0 : dup2(fd, w) < 0)
				goto fail;
			continue;
		}
		o = open(fd == AR_FD_NULL ? "/dev/null" : path_of(s, w),
		    fd == AR_FD_NULL ? (w ? O_WRONLY : O_RDONLY) :
		    open_flags(w, s->append), 0644);
		if (o < 0 || (o != w && (dup2(o, w) < 0 || close(o) < 0)))
			goto fail;
	}
	if (s->env)
		execvpe(s->argv[0], s->argv, s->env);
	else
		execvp(s->argv[0], s->argv);
fail:
	e = errno;
	if (write(report, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

static int
by_fork(const struct ar_spawn *s, pid_t *pid)
{
	pid_t parent = getpid(), p;
	int rep[2], e = 0;
	ssize_t n;

	if (pipe2(rep, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	if ((p = fork()) < 0) {
		e = errno;
		close(rep[0]);
		close(rep[1]);
		errno = e;
		return -1;
	}
	if (p == 0) {
		close(rep[0]);
		child(s, parent, rep[1]);
	}
	close(rep[1]);
	/* The group is set on both sides, so that a kill right after the
	 * return reaches it whoever ran first. */
	if (s->pgroup)
		setpgid(p, s->pgroup < 0 ? p : s->pgroup);
	while ((n = read(rep[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(rep[0]);
	if (n == (ssize_t)sizeof e) {
		ar_wait(p);
		errno = e;
		return -1;
	}
	*pid = p;
	return 0;
}

int
ar_spawn(const struct ar_spawn *s, pid_t *pid)
{
	if (s->ncpu || s->die_with_parent)
		return by_fork(s, pid);
	return by_spawn(s, pid);
}

int
ar_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
ar_run(char *const argv[], int out, int err)
{
	struct ar_spawn s = { .argv = argv, .in = AR_FD_NULL, .out = out,
	    .err = err };
	pid_t pid;

	if (ar_spawn(&s, &pid) < 0)
		return -1;
	return ar_wait(pid);
}

int
ar_capture(char *const argv[], int err, struct ar_buf *out, size_t max)
{
	struct ar_spawn s = { .argv = argv, .in = AR_FD_NULL, .err = err };
	char chunk[65536];
	int fd[2], st, over = 0;
	ssize_t n;
	pid_t pid;

	ar_buf_clear(out);
	ar_buf_reserve(out, 0);
	if (pipe2(fd, O_CLOEXEC) < 0)
		return -1;
	s.out = fd[1];
	if (ar_spawn(&s, &pid) < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	close(fd[1]);
	while ((n = read(fd[0], chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (out->len + (size_t)n > max) {
			over = 1;
			kill(pid, SIGKILL);
			break;
		}
		ar_buf_add(out, chunk, (size_t)n);
	}
	close(fd[0]);
	st = ar_wait(pid);
	if (over) {
		errno = EFBIG;
		return -1;
	}
	return st;
}

const char *
ar_self_exe(void)
{
	static char self[PATH_MAX];
	ssize_t n;

	if (!self[0]) {
		n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0)
			return NULL;
		self[n] = '\0';
	}
	return self;
}

char *
ar_sibling(const char *name)
{
	const char *self = ar_self_exe(), *slash;
	char *p;

	if (self && (slash = strrchr(self, '/'))) {
		p = ar_xasprintf("%.*s/%s", (int)(slash - self), self, name);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return ar_xstrdup(name);
}

int
ar_runnable(const char *prog)
{
	const char *path = getenv("PATH"), *p, *e;
	struct stat st;
	int ok = 0;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 && stat(prog, &st) == 0 &&
		    S_ISREG(st.st_mode);
	for (p = path ? path : "/usr/bin:/bin"; !ok; p = e + 1) {
		char *f;

		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		f = ar_xasprintf("%.*s/%s", (int)(e - p), e > p ? p : ".",
		    prog);
		ok = access(f, X_OK) == 0 && stat(f, &st) == 0 &&
		    S_ISREG(st.st_mode);
		free(f);
		if (!*e)
			break;
	}
	return ok;
}

unsigned long long
ar_proc_start(long pid)
{
	char path[64], *p;
	struct ar_buf b = {0};
	unsigned long long v = 0;
	int f;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (ar_readfile(path, &b, 65536) == 0 && (p = strrchr(b.p, ')'))) {
		/* Field 2 ends at ')'; field 3 is the state, 22 the start. */
		if (p[1] == ' ' && p[2] != 'Z' && p[2] != 'X') {
			for (f = 2; *p && f < 22; p++)
				if (*p == ' ')
					f++;
			v = strtoull(p, NULL, 10);
		}
	}
	ar_buf_free(&b);
	return v;
}

int
ar_proc_alive(long pid, unsigned long long start)
{
	unsigned long long s = ar_proc_start(pid);

	return s != 0 && (start == 0 || s == start);
}
