/* The ranks of a bundle, the parent's side: it starts, drives and stops
 * rank processes (ar-bench --rank, cmd/ar-bench/rank.c, runs one
 * device's ops on command) and reads their answers; ranks.h holds the
 * protocol. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "timefmt.h"
#include "ranks.h"


static void rank_gone(struct ar_ranks *g, int r, char *why, size_t n);


int
ar_ranks_start(struct ar_ranks *g, const char *exe, int k, const char *errlog,
    char *why, size_t n)
{
	int r;

	memset(g, 0, sizeof *g);
	for (r = 0; r < AR_RANKS_MAX; r++)
		g->to[r] = g->from[r] = -1;
	if (k < 1 || k > AR_RANKS_MAX) {
		snprintf(why, n, "%d ranks: from 1 to %d", k, AR_RANKS_MAX);
		return -1;
	}
	for (r = 0; r < k; r++) {
		int to[2], from[2], e;
		char *argv[] = { (char *)exe, (char *)AR_RANK_ARG, NULL };
		/* One group for all ranks: one kill reaches all they start. */
		struct ar_spawn s = { .argv = argv, .err = AR_FD_PATH,
		    .err_path = errlog, .append = 1,
		    .pgroup = g->pgid ? g->pgid : -1 };

		if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
			snprintf(why, n, "pipe: %s", strerror(errno));
			ar_ranks_stop(g);
			return -1;
		}
		s.in = to[0];
		s.out = from[1];
		e = ar_spawn(&s, &g->pid[r]) < 0 ? errno : 0;
		close(to[0]);
		close(from[1]);
		if (e) {
			close(to[1]);
			close(from[0]);
			snprintf(why, n, "%s %s: %s", exe, AR_RANK_ARG,
			    strerror(e));
			ar_ranks_stop(g);
			return -1;
		}
		if (!g->pgid)
			g->pgid = g->pid[r];
		g->to[r] = to[1];
		g->from[r] = from[0];
		g->k = r + 1;
	}
	return 0;
}

int
ar_ranks_send(struct ar_ranks *g, int r, const char *line, char *why,
    size_t n)
{
	int lo = r < 0 ? 0 : r, hi = r < 0 ? g->k : r + 1, i;
	size_t len = strlen(line);

	for (i = lo; i < hi; i++) {
		const char *p = line;
		size_t left = len;

		while (left) {
			ssize_t w = write(g->to[i], p, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EPIPE) {
				rank_gone(g, i, why, n);
				return -1;
			}
			if (w < 0) {
				snprintf(why, n, "rank %d (pid %ld): cannot send: "
				    "%s", i, (long)g->pid[i], strerror(errno));
				return -1;
			}
			p += w;
			left -= (size_t)w;
		}
	}
	return 0;
}

/* Why rank r is gone: its exit status, reaped. */
static void
rank_gone(struct ar_ranks *g, int r, char *why, size_t n)
{
	int st;
	pid_t p;
	double t0 = ar_mono();

	/* Its pipe closed: it is dead or dying; give it a moment. */
	while ((p = waitpid(g->pid[r], &st, WNOHANG)) == 0 &&
	    ar_mono() - t0 < 2)
		usleep(2000);
	if (p == g->pid[r]) {
		g->pid[r] = 0;
		if (WIFSIGNALED(st)) {
			const char *s = sigabbrev_np(WTERMSIG(st));

			snprintf(why, n, "rank %d (pid %ld) was killed by SIG%s", r,
			    (long)p, s ? s : "?");
		} else
			snprintf(why, n, "rank %d (pid %ld) exited with status "
			    "%d", r, (long)p, WEXITSTATUS(st));
	} else
		snprintf(why, n, "rank %d (pid %ld) closed its pipe", r,
		    (long)g->pid[r]);
}

int
ar_ranks_wait(struct ar_ranks *g, double timeout, char *why, size_t n)
{
	int done[AR_RANKS_MAX] = {0}, left = g->k, r, rc = 0;
	double end = ar_mono() + timeout;

	while (left > 0) {
		struct pollfd pf[AR_RANKS_MAX];
		int map[AR_RANKS_MAX], np = 0, ms;
		double now = ar_mono();

		if (now >= end) {
			for (r = 0; r < g->k && done[r]; r++)
				;
			snprintf(why, n, "rank %d (pid %ld) did not answer in "
			    "%.0f s", r, (long)g->pid[r], timeout);
			return -1;
		}
		for (r = 0; r < g->k; r++)
			if (!done[r]) {
				pf[np].fd = g->from[r];
				pf[np].events = POLLIN;
				map[np++] = r;
			}
		ms = (int)((end - now) * 1000) + 1;
		if (poll(pf, (nfds_t)np, ms) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, n, "poll: %s", strerror(errno));
			return -1;
		}
		for (int i = 0; i < np; i++) {
			char *nl;
			ssize_t got;

			r = map[i];
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (g->inlen[r] >= AR_RANK_LINE - 1) {
				snprintf(why, n, "rank %d: an answer longer than "
				    "%d bytes", r, AR_RANK_LINE - 1);
				return -1;
			}
			got = read(g->from[r], g->in[r] + g->inlen[r],
			    AR_RANK_LINE - 1 - g->inlen[r]);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				rank_gone(g, r, why, n);
				return -1;
			}
			g->inlen[r] += (size_t)got;
			g->in[r][g->inlen[r]] = 0;
			if (!(nl = memchr(g->in[r], '\n', g->inlen[r])))
				continue;
			*nl = 0;
			/* A NUL would cut the answer short unseen, and a skip
			 * needs its reason (tests/fuzz/ranks found both). */
			if (strlen(g->in[r]) < (size_t)(nl - g->in[r])) {
				if (rc >= 0)
					snprintf(why, n, "rank %d: a NUL byte in "
					    "its answer", r);
				rc = -1;
			} else if (strncmp(g->in[r], "ok", 2) == 0 &&
			    (!g->in[r][2] || g->in[r][2] == ' '))
				snprintf(g->reply[r], AR_RANK_LINE, "%s",
				    g->in[r][2] ? g->in[r] + 3 : "");
			else if (strncmp(g->in[r], "skip ", 5) == 0 &&
			    g->in[r][5]) {
				snprintf(why, n, "%s", g->in[r] + 5);
				rc = rc < 0 ? rc : 1;
			} else if (rc >= 0) {
				snprintf(why, n, "rank %d: %s", r,
				    strncmp(g->in[r], "err ", 4) == 0 ?
				    g->in[r] + 4 : g->in[r]);
				rc = -1;
			}
			/* One answer per command: what follows is the next. */
			g->inlen[r] -= (size_t)(nl + 1 - g->in[r]);
			memmove(g->in[r], nl + 1, g->inlen[r] + 1);
			done[r] = 1;
			left--;
		}
	}
	return rc;
}

int
ar_ranks_call(struct ar_ranks *g, const char *line, double timeout, char *why,
    size_t n)
{
	if (ar_ranks_send(g, -1, line, why, n) < 0)
		return -1;
	return ar_ranks_wait(g, timeout, why, n);
}

void
ar_ranks_stop(struct ar_ranks *g)
{
	int r, st;

	if (g->pgid > 0)
		kill(-g->pgid, SIGKILL);
	for (r = 0; r < g->k; r++) {
		if (g->pid[r] > 0) {
			kill(g->pid[r], SIGKILL);
			while (waitpid(g->pid[r], &st, 0) < 0 && errno == EINTR)
				;
			g->pid[r] = 0;
		}
		if (g->to[r] >= 0)
			close(g->to[r]);
		if (g->from[r] >= 0)
			close(g->from[r]);
		g->to[r] = g->from[r] = -1;
	}
	g->pgid = 0;
	g->k = 0;
}

void
ar_ranks_close(struct ar_ranks *g)
{
	char why[256];

	if (g->k > 0)
		(void)ar_ranks_call(g, "close\n", 30, why, sizeof why);
	ar_ranks_stop(g);
}
