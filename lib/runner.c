/* runner.c: where ar-bench's stages run, seen from ar-bench. A runner is
 * a small server, the ar-bench binary started with --runner
 * (cmd/ar-bench/runner.c), inside one bubblewrap sandbox (or none), that
 * runs one job at a time on request. This is its client: it builds the
 * sandbox, starts the server in it, sends each job and checks the answer
 * against its own clock; and the protocol's encoding, both ways, so that
 * the format has one owner (runner.h describes it). Starting bubblewrap
 * costs about 12 ms; a runner pays it once per sandbox and session, not
 * once per run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "io.h"
#include "proc.h"
#include "runner.h"
#include "timefmt.h"
#include "tsv.h"

/* ---- the protocol ---- */

/* The request keys, by AR_RQ_ value. */
static const char *const key_name[] = {
	[AR_RQ_CMD] = "cmd", [AR_RQ_CWD] = "cwd", [AR_RQ_OUT] = "out",
	[AR_RQ_ERR] = "err", [AR_RQ_ENV] = "env", [AR_RQ_CLEAN] = "clean",
	[AR_RQ_CPU] = "cpu", [AR_RQ_TIMEOUT] = "timeout",
};

/* The answer to "go": "done" and the figures of an ar_jobres. */
#define DONE_FMT "done\t%d\t%d\t%.9f\t%.6f\t%.6f\t%ld\t%d\n"
#define DONE_SCAN "done\t%d\t%d\t%lf\t%lf\t%lf\t%ld\t%d"
#define READY "ready\n"
#define GO "go"
#define QUIT "quit"

int
ar_runner_request(char *line, char **value)
{
	char *v;
	int k;

	if (strcmp(line, QUIT) == 0)
		return AR_RQ_QUIT;
	if (strcmp(line, GO) == 0)
		return AR_RQ_GO;
	v = strchr(line, '\t');
	if (!v || ar_tsv_unescape(++v) < 0)
		return AR_RQ_BAD;
	v[-1] = 0;
	*value = v;
	for (k = AR_RQ_CMD; k <= AR_RQ_TIMEOUT; k++)
		if (strcmp(line, key_name[k]) == 0)
			return k;
	return AR_RQ_OTHER;
}

void
ar_runner_ready(FILE *out)
{
	fputs(READY, out);
	fflush(out);
}

void
ar_runner_done(FILE *out, const struct ar_jobres *res)
{
	fprintf(out, DONE_FMT, res->status, res->timed_out, res->wall,
	    res->user, res->sys, res->maxrss_kb, res->leftovers);
	fflush(out);
}

void
ar_runner_fail(FILE *out, const char *why)
{
	fprintf(out, "fail\t%s\n", why);
	fflush(out);
}

/* The answer to "go", into res; -1 when it is not "done" with all its
 * figures. */
static int
answer_done(const char *line, struct ar_jobres *res)
{
	int st;

	if (sscanf(line, DONE_SCAN, &st, &res->timed_out, &res->wall,
	    &res->user, &res->sys, &res->maxrss_kb, &res->leftovers) != 7)
		return -1;
	res->status = st;
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
		/* No bubblewrap init: the runner, not dumpable, is the
		 * sandbox's pid 1, so no process of the sandbox that a stage
		 * could ptrace or read holds the runner's pipes or files. */
		add(&argv, &n, "--as-pid-1");
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
		add(&argv, &n, AR_RUNNER_ARG);
		add(&argv, &n, AR_RUNNER_SANDBOX);
	} else {
		add(&argv, &n, exe);
		add(&argv, &n, AR_RUNNER_ARG);
		add(&argv, &n, AR_RUNNER_NONE);
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
	if (got != 6 || memcmp(line, READY, 6) != 0) {
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

	memset(res, 0, sizeof *res);
	if (r->pid < 0) {
		res->lost = 1;
		snprintf(res->why, sizeof res->why, "the sandbox is gone");
		return -1;
	}
	put(&b, key_name[AR_RQ_CMD], j->cmd);
	put(&b, key_name[AR_RQ_CWD], j->cwd);
	put(&b, key_name[AR_RQ_OUT], j->out);
	put(&b, key_name[AR_RQ_ERR], j->err);
	for (i = 0; j->env && j->env[i]; i++)
		put(&b, key_name[AR_RQ_ENV], j->env[i]);
	for (i = 0; j->clean && j->clean[i]; i++)
		put(&b, key_name[AR_RQ_CLEAN], j->clean[i]);
	for (i = 0; i < j->ncpu; i++) {
		snprintf(num, sizeof num, "%d", j->cpu[i]);
		put(&b, key_name[AR_RQ_CPU], num);
	}
	snprintf(num, sizeof num, "%.3f", j->timeout_s);
	put(&b, key_name[AR_RQ_TIMEOUT], num);
	ar_buf_adds(&b, GO "\n");
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
	if (answer_done(b.p, res) < 0) {
		res->lost = 1;
		snprintf(res->why, sizeof res->why, "the sandbox answered "
		    "\"%.100s\"", b.p);
		ar_buf_free(&b);
		ar_runner_stop(r);
		return -1;
	}
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
		ar_write_all(r->wfd, QUIT "\n", 5);
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
