/* runner.c: ar-bench --runner, the server that runs ar-bench's stages
 * inside one bubblewrap sandbox (or none), one job at a time on request:
 * it forks the stage in its own process group, times it with its own
 * clock, collects the exit status and resource use from wait4(2), kills
 * whatever the stage left behind and empties the scratch space, then
 * answers. lib/runner is its client and owns the protocol (runner.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "io.h"
#include "runner.h"
#include "seccomp.h"
#include "timefmt.h"
#include "tree.h"
#include "bench.h"

/* One job, as the requests so far describe it. */
struct job {
	struct ar_buf cmd, cwd, out, err;
	char **env, **clean;
	size_t nenv, nclean;
	int cpu[1024];
	size_t ncpu;
	double timeout;
};

/* The server: whether it is in a sandbox, where it answers, and its
 * guard. */
struct server {
	int sandboxed;
	FILE *out;
	/* Without a sandbox, nothing kills a run's processes if the runner
	 * is killed (kill -9 of ar-bench): a guard process, told the
	 * process group of each job, kills it when the runner's end of
	 * their pipe closes. */
	pid_t guard_pid;
	int guard_fd;
};

static void
start_guard(struct server *sv)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		int group = 0, g;
		ssize_t n;

		close(p[1]);
		while ((n = read(p[0], &g, sizeof g)) == (ssize_t)sizeof g ||
		    (n < 0 && errno == EINTR))
			if (n > 0)
				group = g;
		if (group > 0)
			kill(-group, SIGKILL);
		_exit(0);
	}
	close(p[0]);
	sv->guard_fd = p[1];
	sv->guard_pid = pid;
}

static void
guard_tell(struct server *sv, int group)
{
	if (sv->guard_fd >= 0 && write(sv->guard_fd, &group, sizeof group) <
	    0) {
		close(sv->guard_fd);
		sv->guard_fd = -1;
	}
}

static size_t scan_children(pid_t *out, size_t max);

/* The children of this process, as /proc lists them. */
static size_t
list_children(pid_t *out, size_t max)
{
	char path[64], buf[4096], *p, *end;
	ssize_t len;
	size_t n = 0;
	int fd;

	/* The kernel's own list, where it keeps one: reading all of /proc
	 * costs a millisecond on a busy machine, after every run. */
	snprintf(path, sizeof path, "/proc/self/task/%ld/children",
	    (long)getpid());
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		/* A full buffer may have cut the list: scan instead. */
		if (len >= 0 && (size_t)len < sizeof buf - 1) {
			buf[len] = 0;
			for (p = buf; n < max; p = end) {
				long pid = strtol(p, &end, 10);

				if (end == p)
					break;
				if (pid > 0)
					out[n++] = (pid_t)pid;
			}
			return n;
		}
	}
	return scan_children(out, max);
}

/* The same from every /proc/PID/stat. */
static size_t
scan_children(pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char path[64], buf[512], *p;
		long pid = strtol(e->d_name, &p, 10);
		int fd;
		ssize_t len;

		if (*p || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		/* "pid (comm) state ppid": comm may hold anything, so
		 * parse from its last ')'. */
		if (!(p = strrchr(buf, ')')))
			continue;
		{
			char state;
			long ppid;

			if (sscanf(p + 1, " %c %ld", &state, &ppid) == 2 &&
			    ppid == self)
				out[n++] = (pid_t)pid;
		}
	}
	closedir(d);
	return n;
}

/* Kills and reaps every descendant: this process is a child subreaper,
 * so whatever a stage left running, double-forked or in a new session,
 * ends up its child once its own parent is gone. Returns the count. */
static int
kill_leftovers(const struct server *sv, pid_t group, double *cpu)
{
	pid_t kids[256];
	size_t n, i;
	int killed = 0, rounds;

	if (group > 0)
		kill(-group, SIGKILL);
	for (rounds = 0; rounds < 10000; rounds++) {
		n = list_children(kids, sizeof kids / sizeof *kids);
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			struct rusage ru;
			int st;

			if (kids[i] == sv->guard_pid) {
				/* The guard is this runner's, not the run's. */
				if (n == 1)
					return killed;
				continue;
			}
			if (kill(kids[i], SIGKILL) == 0)
				killed++;
			/* Reaping it first means its children are ours by the
			 * next round. Its CPU time counts: work a run left
			 * running on other CPUs is still the run's. */
			while (wait4(kids[i], &st, 0, &ru) < 0 && errno == EINTR)
				;
			if (cpu)
				*cpu += (double)ru.ru_utime.tv_sec +
				    ru.ru_utime.tv_usec / 1e6 +
				    (double)ru.ru_stime.tv_sec +
				    ru.ru_stime.tv_usec / 1e6;
		}
	}
	return killed;
}

static double
tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* Whether a process of the run other than this runner's guard is still
 * a child of this subreaper. */
static int
others(const struct server *sv)
{
	pid_t kids[4];
	size_t n = list_children(kids, 4), i;

	for (i = 0; i < n; i++)
		if (kids[i] != sv->guard_pid)
			return 1;
	return 0;
}

static void
job_reset(struct job *j)
{
	size_t i;

	for (i = 0; i < j->nenv; i++)
		free(j->env[i]);
	for (i = 0; i < j->nclean; i++)
		free(j->clean[i]);
	free(j->env);
	free(j->clean);
	j->env = j->clean = NULL;
	j->nenv = j->nclean = j->ncpu = 0;
	ar_buf_clear(&j->cmd);
	ar_buf_clear(&j->cwd);
	ar_buf_clear(&j->out);
	ar_buf_clear(&j->err);
	j->timeout = 600;
}

static void
push(char ***v, size_t *n, const char *s)
{
	*v = ar_xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = ar_xstrdup(s);
	(*v)[*n] = NULL;
}

/* Closes every descriptor from lo up. */
static void
close_from(int lo)
{
	DIR *d;
	struct dirent *e;

	if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0) == 0)
		return;
	/* Kernels before 5.9: each open descriptor, from /proc. */
	if (!(d = opendir("/proc/self/fd")))
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd >= lo && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

/* The stage's side of the fork. Not lib/proc's ar_spawn: a stage that
 * cannot be set up (its CPUs, its directory, its output) is a run that
 * fails with 126 and says why on its own stderr, which the score sees,
 * not a failure of the runner; and it must die with SIGKILL, not
 * SIGTERM, when the runner goes. */
_Noreturn static void
child(struct job *j, int sandboxed)
{
	sigset_t none;
	int fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(j->err.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dup2(fd, 2) < 0)
		_exit(126);
	if (j->ncpu) {
		cpu_set_t set;
		size_t i;

		CPU_ZERO(&set);
		for (i = 0; i < j->ncpu; i++)
			CPU_SET(j->cpu[i], &set);
		if (sched_setaffinity(0, sizeof set, &set) < 0) {
			dprintf(2, "ar-bench: cannot pin the stage to its "
			    "CPUs: %s\n", strerror(errno));
			_exit(126);
		}
	}
	if (chdir(j->cwd.p) < 0) {
		dprintf(2, "ar-bench: %s: %s\n", j->cwd.p, strerror(errno));
		_exit(126);
	}
	fd = open(j->out.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dup2(fd, 1) < 0) {
		dprintf(2, "ar-bench: %s: %s\n", j->out.p, strerror(errno));
		_exit(126);
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, 0) < 0)
		_exit(126);
	/* A stage starts with 0, 1 and 2 only: whatever ar-bench's caller
	 * left open without close-on-exec stays out of the run. */
	close_from(3);
	/* Last, so that the runner's own setup above is not filtered. */
	if (ar_seccomp_install() < 0 && sandboxed) {
		dprintf(2, "ar-bench: cannot install the seccomp filter: %s\n",
		    strerror(errno));
		_exit(126);
	}
	{
		/* A plain command replaces the shell, so a signal that kills
		 * it is seen as such, not as the shell's exit 128 + n. */
		char *cmd = strpbrk(j->cmd.p, ";&|<>()`\n\\\"'*?[#~{}") ?
		    j->cmd.p : ar_xasprintf("exec %s", j->cmd.p);
		char *argv[] = { "sh", "-c", cmd, NULL };

		execve("/bin/sh", argv, j->env ? j->env : (char *[]){ NULL });
	}
	dprintf(2, "ar-bench: /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

static void
run_job(struct server *sv, struct job *j)
{
	struct ar_jobres res = {0};
	struct rusage ru;
	sigset_t set;
	siginfo_t si;
	double t0, t1, left;
	int status = 0, timed_out = 0, main_done;
	double extra = 0;
	pid_t pid, w;
	size_t i;

	for (i = 0; i < j->nclean; i++)
		ar_rm_rf(j->clean[i], 1);
	memset(&ru, 0, sizeof ru);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	t0 = ar_mono();
	pid = fork();
	if (pid < 0) {
		char why[300];

		snprintf(why, sizeof why, "fork: %s", strerror(errno));
		ar_runner_fail(sv->out, why);
		return;
	}
	if (pid == 0)
		child(j, sv->sandboxed);
	setpgid(pid, pid);
	guard_tell(sv, pid);
	/* The run lasts until the last of its processes is gone: its main
	 * process, then whatever it left running, which is reparented to
	 * this subreaper. Work done after the main process exited is
	 * timed, and the outputs are read only once nothing of the run can
	 * still write them. */
	main_done = 0;
	for (;;) {
		struct timespec ts;
		struct rusage cru;
		int st;

		while ((w = wait4(-1, &st, WNOHANG, &cru)) > 0) {
			if (w == pid) {
				status = st;
				ru = cru;
				main_done = 1;
			} else if (w != sv->guard_pid)
				extra += tv_s(cru.ru_utime) + tv_s(cru.ru_stime);
		}
		if (main_done && !others(sv))
			break;
		left = t0 + j->timeout - ar_mono();
		if (left <= 0) {
			if (!main_done) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				while (wait4(pid, &status, 0, &ru) < 0 &&
				    errno == EINTR)
					;
			}
			res.leftovers = kill_leftovers(sv, pid, &extra);
			timed_out = 1;
			break;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		/* SIGCHLD is blocked: this sleeps until a child changes
		 * state or the deadline. SIGTERM is ar-bench giving up: the
		 * job and all it started go first. */
		if (sigtimedwait(&set, &si, &ts) == SIGTERM) {
			kill_leftovers(sv, pid, NULL);
			_exit(1);
		}
	}
	t1 = ar_mono();
	guard_tell(sv, 0);
	if (sv->sandboxed) {
		/* The next run starts with nothing this one left. */
		ar_rm_rf("/tmp", 1);
		ar_rm_rf("/dev/shm", 1);
	}
	res.status = status;
	res.timed_out = timed_out;
	res.wall = t1 - t0;
	res.user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	res.sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6 +
	    extra;
	res.maxrss_kb = ru.ru_maxrss;
	ar_runner_done(sv->out, &res);
}

int
runner_main(int sandboxed)
{
	struct server sv = { .sandboxed = sandboxed, .out = stdout,
	    .guard_pid = -1, .guard_fd = -1 };
	struct ar_buf line = {0};
	struct job j = {0};
	sigset_t set;
	FILE *in = stdin;
	pid_t parent = getppid();
	int r;

	/* Not dumpable: a stage running as the same user cannot ptrace
	 * this process or read its memory and descriptors. */
	prctl(PR_SET_DUMPABLE, 0);
	/* The protocol and stderr only: nothing of the caller's. */
	close_from(3);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	job_reset(&j);
	if (!sandboxed)
		start_guard(&sv);
	ar_runner_ready(sv.out);
	while ((r = ar_getline(in, &line, AR_LINE_MAX)) == AR_LINE_OK) {
		char *v = NULL;
		int k = ar_runner_request(line.p, &v);

		if (k == AR_RQ_QUIT)
			break;
		switch (k) {
		case AR_RQ_GO:
			run_job(&sv, &j);
			job_reset(&j);
			break;
		case AR_RQ_BAD:
			ar_runner_fail(sv.out, "bad request line");
			break;
		case AR_RQ_CMD: ar_buf_adds(&j.cmd, v); break;
		case AR_RQ_CWD: ar_buf_adds(&j.cwd, v); break;
		case AR_RQ_OUT: ar_buf_adds(&j.out, v); break;
		case AR_RQ_ERR: ar_buf_adds(&j.err, v); break;
		case AR_RQ_ENV: push(&j.env, &j.nenv, v); break;
		case AR_RQ_CLEAN: push(&j.clean, &j.nclean, v); break;
		case AR_RQ_TIMEOUT: j.timeout = atof(v); break;
		case AR_RQ_CPU:
			if (j.ncpu < 1024)
				j.cpu[j.ncpu++] = atoi(v);
			break;
		default:
			break;
		}
	}
	job_reset(&j);
	ar_buf_free(&j.cmd);
	ar_buf_free(&j.cwd);
	ar_buf_free(&j.out);
	ar_buf_free(&j.err);
	ar_buf_free(&line);
	return 0;
}
