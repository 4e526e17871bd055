/* runner.c: where ar-bench's stages run. A runner is a small server, the
 * ar-bench binary started with --runner, inside one bubblewrap sandbox
 * (or none), that runs one job at a time on request: it forks the stage in
 * its own process group, times it with its own clock, collects the exit
 * status and resource use from wait4(2), kills whatever the stage left
 * behind and empties the scratch space, then answers. Starting bubblewrap
 * costs about 12 ms; a runner pays it once per sandbox and session, not
 * once per run.
 *
 * The protocol is lines of "key<TAB>value" (values TSV-escaped) ending
 * with "go"; the answer is one line. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "io.h"
#include "proc.h"
#include "runner.h"
#include "timefmt.h"
#include "tree.h"
#include "tsv.h"



/* ---- the server, inside the sandbox ---- */

/* Without a sandbox, nothing kills a run's processes if the runner is
 * killed (kill -9 of ar-bench): a guard process, told the process group
 * of each job, kills it when the runner's end of their pipe closes. */
static pid_t guard_pid = -1;
static int guard_fd = -1;

static void
start_guard(void)
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
	guard_fd = p[1];
	guard_pid = pid;
}

static void
guard_tell(int group)
{
	if (guard_fd >= 0 && write(guard_fd, &group, sizeof group) < 0) {
		close(guard_fd);
		guard_fd = -1;
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
kill_leftovers(pid_t group, double *cpu)
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

			if (kids[i] == guard_pid) {
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

struct job {
	struct ar_buf cmd, cwd, out, err;
	char **env, **clean;
	size_t nenv, nclean;
	int cpu[1024];
	size_t ncpu;
	double timeout;
};

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

_Noreturn static void
child(struct job *j)
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
run_job(struct job *j, int sandboxed, FILE *reply)
{
	struct rusage ru;
	sigset_t set;
	siginfo_t si;
	double t0, t1, left;
	int status = 0, timed_out = 0, leftovers;
	double extra;
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
		fprintf(reply, "fail\tfork: %s\n", strerror(errno));
		fflush(reply);
		return;
	}
	if (pid == 0)
		child(j);
	setpgid(pid, pid);
	guard_tell(pid);
	for (;;) {
		struct timespec ts;

		w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		left = t0 + j->timeout - ar_mono();
		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
				;
			timed_out = 1;
			break;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		/* SIGCHLD is blocked: this sleeps until a child changes
		 * state or the deadline. SIGTERM is ar-bench giving up: the
		 * job and all it started go first. */
		if (sigtimedwait(&set, &si, &ts) == SIGTERM) {
			kill_leftovers(pid, NULL);
			_exit(1);
		}
	}
	t1 = ar_mono();
	extra = 0;
	leftovers = kill_leftovers(pid, &extra);
	guard_tell(0);
	if (sandboxed) {
		/* The next run starts with nothing this one left. */
		ar_rm_rf("/tmp", 1);
		ar_rm_rf("/dev/shm", 1);
	}
	fprintf(reply, "done\t%d\t%d\t%.9f\t%.6f\t%.6f\t%ld\t%d\n", status,
	    timed_out, t1 - t0,
	    (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6 + extra,
	    ru.ru_maxrss, leftovers);
	fflush(reply);
}

int
ar_runner_main(int sandboxed)
{
	struct ar_buf line = {0};
	struct job j = {0};
	sigset_t set;
	FILE *in = stdin, *out = stdout;
	pid_t parent = getppid();
	int r;

	/* Not dumpable: a stage running as the same user cannot ptrace
	 * this process or read its memory and descriptors. */
	prctl(PR_SET_DUMPABLE, 0);
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
		start_guard();
	fputs("ready\n", out);
	fflush(out);
	while ((r = ar_getline(in, &line, AR_LINE_MAX)) == AR_LINE_OK) {
		char *v = strchr(line.p, '\t');

		if (strcmp(line.p, "quit") == 0)
			break;
		if (strcmp(line.p, "go") == 0) {
			run_job(&j, sandboxed, out);
			job_reset(&j);
			continue;
		}
		if (!v || ar_tsv_unescape(++v) < 0) {
			fprintf(out, "fail\tbad request line\n");
			fflush(out);
			continue;
		}
		v[-1] = 0;
		if (strcmp(line.p, "cmd") == 0)
			ar_buf_adds(&j.cmd, v);
		else if (strcmp(line.p, "cwd") == 0)
			ar_buf_adds(&j.cwd, v);
		else if (strcmp(line.p, "out") == 0)
			ar_buf_adds(&j.out, v);
		else if (strcmp(line.p, "err") == 0)
			ar_buf_adds(&j.err, v);
		else if (strcmp(line.p, "env") == 0)
			push(&j.env, &j.nenv, v);
		else if (strcmp(line.p, "clean") == 0)
			push(&j.clean, &j.nclean, v);
		else if (strcmp(line.p, "timeout") == 0)
			j.timeout = atof(v);
		else if (strcmp(line.p, "cpu") == 0 && j.ncpu < 1024)
			j.cpu[j.ncpu++] = atoi(v);
	}
	job_reset(&j);
	ar_buf_free(&j.cmd);
	ar_buf_free(&j.cwd);
	ar_buf_free(&j.out);
	ar_buf_free(&j.err);
	ar_buf_free(&line);
	return 0;
}

/* ---- the client, in ar-bench ---- */

volatile sig_atomic_t ar_runner_interrupted;

static void
add(char ***v, size_t *n, const char *s)
{
	*v = ar_xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = (char *)s;
	(*v)[*n] = NULL;
}

/* 1 if path is dir or lies below it. */
static int
below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/'
	    || (n == 1 && dir[0] == '/'));
}

/* The NVIDIA device nodes every CUDA program opens; then one per GPU of
 * the bundle, and no other: CUDA_VISIBLE_DEVICES alone is a default a
 * method could unset. */
static const char *const nvdev[] = { "/dev/nvidiactl", "/dev/nvidia-uvm",
	"/dev/nvidia-uvm-tools", "/dev/nvidia-modeset" };

static const char *const sysdirs[] = { "/usr", "/bin", "/sbin", "/lib",
	"/lib32", "/lib64", "/libx32", "/etc", "/opt", NULL };

static char *
last_line(const char *path)
{
	struct ar_buf b = {0};
	char *s, *e;

	if (ar_readfile(path, &b, 65536) < 0 || b.len == 0) {
		ar_buf_free(&b);
		return ar_xstrdup("no message");
	}
	while (b.len && (b.p[b.len - 1] == '\n' || b.p[b.len - 1] == '\r'))
		b.p[--b.len] = 0;
	s = strrchr(b.p, '\n');
	s = ar_xstrdup(s ? s + 1 : b.p);
	for (e = s; *e; e++)
		if (*e == '\t' || *e == '\r')
			*e = ' ';
	ar_buf_free(&b);
	return s;
}

int
ar_runner_start(struct ar_runner *r, const struct ar_sandbox *sb,
    char *err, size_t errlen)
{
	char **argv = NULL, line[64];
	const char *exe = ar_self_exe();
	char *keep[128];
	size_t n = 0, nkeep = 0, i, k;
	int to[2], from[2], e;
	struct ar_spawn s = { .err = AR_FD_KEEP };
	struct pollfd pfd;
	ssize_t got = 0, m;
	double deadline;

	memset(r, 0, sizeof *r);
	r->pid = -1;
	if (!exe) {
		snprintf(err, errlen, "/proc/self/exe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (sb->on) {
		add(&argv, &n, sb->bwrap);
		add(&argv, &n, "--unshare-all");
		add(&argv, &n, "--die-with-parent");
		add(&argv, &n, "--new-session");
		add(&argv, &n, "--cap-drop");
		add(&argv, &n, "ALL");
		add(&argv, &n, "--clearenv");
		for (i = 0; sysdirs[i]; i++) {
			struct stat st;
			char t[PATH_MAX];
			ssize_t len;

			if (lstat(sysdirs[i], &st) < 0)
				continue;
			if (S_ISLNK(st.st_mode)) {
				len = readlink(sysdirs[i], t, sizeof t - 1);
				if (len <= 0)
					continue;
				t[len] = 0;
				add(&argv, &n, "--symlink");
				add(&argv, &n, keep[nkeep++] = ar_xstrdup(t));
				add(&argv, &n, sysdirs[i]);
			} else if (S_ISDIR(st.st_mode)) {
				add(&argv, &n, "--ro-bind");
				add(&argv, &n, sysdirs[i]);
				add(&argv, &n, sysdirs[i]);
			}
		}
		add(&argv, &n, "--proc");
		add(&argv, &n, "/proc");
		add(&argv, &n, "--dev");
		add(&argv, &n, "/dev");
		add(&argv, &n, "--tmpfs");
		add(&argv, &n, "/tmp");
		for (i = 0; sb->ngpu && i < sizeof nvdev / sizeof *nvdev; i++)
			if (access(nvdev[i], F_OK) == 0) {
				add(&argv, &n, "--dev-bind");
				add(&argv, &n, nvdev[i]);
				add(&argv, &n, nvdev[i]);
			}
		for (i = 0; i < sb->ngpu && nkeep < 120; i++) {
			char *d = ar_xasprintf("/dev/nvidia%d", sb->gpu[i]);

			keep[nkeep++] = d;
			if (access(d, F_OK) == 0) {
				add(&argv, &n, "--dev-bind");
				add(&argv, &n, d);
				add(&argv, &n, d);
			}
		}
		/* Nothing written outside /tmp, /dev/shm and the bound
		 * directories survives a run: the root and /dev are made
		 * read-only once everything is mounted. */
		add(&argv, &n, "--tmpfs");
		add(&argv, &n, "/dev/shm");
		add(&argv, &n, "--remount-ro");
		add(&argv, &n, "/dev");
		/* Secrets that happen to live under a system directory are
		 * covered by an empty tmpfs. */
		for (i = 0; i < sb->nmask; i++)
			for (k = 0; sysdirs[k]; k++)
				if (below(sb->mask[i], sysdirs[k])) {
					add(&argv, &n, "--tmpfs");
					add(&argv, &n, sb->mask[i]);
					break;
				}
		for (i = 0; i < sb->nbind; i++) {
			add(&argv, &n, sb->bind[i].rw ? "--bind" : "--ro-bind");
			add(&argv, &n, sb->bind[i].src);
			add(&argv, &n, sb->bind[i].dst);
		}
		add(&argv, &n, "--ro-bind");
		add(&argv, &n, exe);
		add(&argv, &n, "/ar/bin/ar-bench");
		add(&argv, &n, "--remount-ro");
		add(&argv, &n, "/");
		add(&argv, &n, "--chdir");
		add(&argv, &n, "/");
		add(&argv, &n, "/ar/bin/ar-bench");
		add(&argv, &n, "--runner");
		add(&argv, &n, "sandbox");
	} else {
		add(&argv, &n, exe);
		add(&argv, &n, "--runner");
		add(&argv, &n, "none");
	}
	s.argv = argv;
	s.in = to[0];
	s.out = from[1];
	if (sb->errfile) {
		s.err = AR_FD_PATH;
		s.err_path = sb->errfile;
	}
	e = ar_spawn(&s, &r->pid) < 0 ? errno : 0;
	for (i = 0; i < nkeep; i++)
		free(keep[i]);
	free(argv);
	close(to[0]);
	close(from[1]);
	if (e) {
		close(to[1]);
		close(from[0]);
		r->pid = -1;
		snprintf(err, errlen, "%s: %s", sb->on ? sb->bwrap : exe,
		    strerror(e));
		return -1;
	}
	r->wfd = to[1];
	r->rfd = from[0];
	r->sandbox = sb->on;
	/* Wait for "ready": a sandbox that cannot be made says so on its
	 * stderr and exits instead. */
	deadline = ar_mono() + 30;
	while (got < 6 && ar_mono() < deadline) {
		pfd.fd = r->rfd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			break;
		if (!(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		m = read(r->rfd, line + got, 6 - (size_t)got);
		if (m <= 0)
			break;
		got += m;
	}
	if (got != 6 || memcmp(line, "ready\n", 6) != 0) {
		char *why = sb->errfile ? last_line(sb->errfile) :
		    ar_xstrdup("it did not start");

		ar_runner_stop(r);
		snprintf(err, errlen, "%s", why);
		free(why);
		return -1;
	}
	return 0;
}

static void
put(struct ar_buf *b, const char *k, const char *v)
{
	ar_buf_adds(b, k);
	ar_buf_addc(b, '\t');
	ar_tsv_escape(b, v);
	ar_buf_addc(b, '\n');
}

/* Reads one answer line, waiting until deadline. */
static int
read_answer(struct ar_runner *r, struct ar_buf *b, double deadline)
{
	char c;

	ar_buf_clear(b);
	for (;;) {
		struct pollfd pfd = { r->rfd, POLLIN, 0 };
		double left = deadline - ar_mono();
		ssize_t m;

		if (left <= 0 || ar_runner_interrupted)
			return -1;
		if (poll(&pfd, 1, left > 1 ? 1000 : (int)(left * 1000) + 1) < 0
		    && errno != EINTR)
			return -1;
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		m = read(r->rfd, &c, 1);
		if (m <= 0)
			return -1;
		if (c == '\n')
			return 0;
		ar_buf_addc(b, c);
		if (b->len > 4096)
			return -1;
	}
}

int
ar_runner_exec(struct ar_runner *r, const struct ar_job *j,
    struct ar_jobres *res)
{
	struct ar_buf b = {0};
	char num[64];
	size_t i;
	double t0, t1;
	int st;

	memset(res, 0, sizeof *res);
	if (r->pid < 0) {
		res->lost = 1;
		snprintf(res->why, sizeof res->why, "the sandbox is gone");
		return -1;
	}
	put(&b, "cmd", j->cmd);
	put(&b, "cwd", j->cwd);
	put(&b, "out", j->out);
	put(&b, "err", j->err);
	for (i = 0; j->env && j->env[i]; i++)
		put(&b, "env", j->env[i]);
	for (i = 0; j->clean && j->clean[i]; i++)
		put(&b, "clean", j->clean[i]);
	for (i = 0; i < j->ncpu; i++) {
		snprintf(num, sizeof num, "%d", j->cpu[i]);
		put(&b, "cpu", num);
	}
	snprintf(num, sizeof num, "%.3f", j->timeout_s);
	put(&b, "timeout", num);
	ar_buf_adds(&b, "go\n");
	t0 = ar_mono();
	r->busy = 1;
	if (ar_write_all(r->wfd, b.p, b.len) < 0) {
		res->lost = 1;
		snprintf(res->why, sizeof res->why, "the sandbox is gone: %s",
		    strerror(errno));
		ar_buf_free(&b);
		ar_runner_stop(r);
		return -1;
	}
	/* The runner enforces the timeout; this deadline only catches a
	 * runner that stopped answering. */
	if (read_answer(r, &b, t0 + j->timeout_s + 30) < 0) {
		res->lost = 1;
		snprintf(res->why, sizeof res->why, "the sandbox died or "
		    "stopped answering");
		ar_buf_free(&b);
		ar_runner_stop(r);
		return -1;
	}
	t1 = ar_mono();
	r->busy = 0;
	if (sscanf(b.p, "done\t%d\t%d\t%lf\t%lf\t%lf\t%ld\t%d", &st,
	    &res->timed_out, &res->wall, &res->user, &res->sys,
	    &res->maxrss_kb, &res->leftovers) != 7) {
		res->lost = 1;
		snprintf(res->why, sizeof res->why, "the sandbox answered "
		    "\"%.100s\"", b.p);
		ar_buf_free(&b);
		ar_runner_stop(r);
		return -1;
	}
	res->status = st;
	ar_buf_free(&b);
	/* A runner's clock cannot have seen more time than this side. */
	if (!(res->wall >= 0 && res->wall <= t1 - t0 + 0.001)) {
		res->lost = 1;
		snprintf(res->why, sizeof res->why, "the sandbox reported %.6f "
		    "s for a job that took %.6f s", res->wall, t1 - t0);
		ar_runner_stop(r);
		return -1;
	}
	res->outside = t1 - t0;
	return 0;
}

void
ar_runner_stop(struct ar_runner *r)
{
	double deadline;
	int st;

	if (r->pid < 0)
		return;
	/* A runner in the middle of a job does not read "quit": SIGTERM
	 * makes it kill the job and all the job started (bubblewrap
	 * takes its whole sandbox down with it). */
	if (r->busy)
		kill(r->pid, SIGTERM);
	if (r->wfd >= 0) {
		ar_write_all(r->wfd, "quit\n", 5);
		close(r->wfd);
	}
	if (r->rfd >= 0)
		close(r->rfd);
	r->wfd = r->rfd = -1;
	deadline = ar_mono() + 2;
	while (waitpid(r->pid, &st, WNOHANG) == 0) {
		if (ar_mono() > deadline) {
			kill(r->pid, SIGKILL);
			waitpid(r->pid, &st, 0);
			break;
		}
		usleep(1000);
	}
	r->pid = -1;
}
