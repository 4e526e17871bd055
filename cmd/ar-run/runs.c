/* runs.c: the runs of ar-run: the run/pid and run/tries files, the table
 * of this process's runs, the output lines, how a run ends (the record's
 * fate in the queue, then its bookings, then run/pid) and where its
 * result is found (its .out, else the ledger); ar-bench's command line
 * and environment. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "io.h"
#include "json.h"
#include "ledger.h"
#include "tsv.h"
#include "run.h"

extern char **environ;

/* Progress: on a terminal, or with -v; never with -q. */
void
progress(const struct runctx *c, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	if (c->verbose <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", ar_prog(), msg);
}

double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

long long
now_s(void)
{
	return (long long)time(NULL);
}

/* A string member of a record, NULL when absent or empty. */
const char *
rec_str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) && *json_string_value(v) ?
	    json_string_value(v) : NULL;
}

/* A record of the queue; NULL with errno ENOENT when it is gone, EINVAL
 * when it is not a JSON object. */
json_t *
rec_load(const char *path)
{
	struct ar_buf b = {0};
	char err[256];
	json_t *j = NULL;

	if (ar_readfile(path, &b, AR_LINE_MAX + 1) == 0) {
		j = ar_json_parse(b.p, b.len, err, sizeof err);
		if (j && !json_is_object(j)) {
			json_decref(j);
			j = NULL;
		}
		/* Unreadable, as opposed to gone (ENOENT). */
		errno = EINVAL;
	}
	ar_buf_free(&b);
	return j;
}

/* ---- the run/ files ---- */

int
pinfo_read(const struct runctx *c, const char *exp, struct pinfo *pi)
{
	struct ar_buf b = {0};
	char *p = ar_path(c->piddir, exp), *f[10];
	size_t n = 0;
	char *s, *t;
	int r = -1;

	memset(pi, 0, sizeof *pi);
	if (ar_readfile(p, &b, 65536) == 0) {
		s = b.p;
		s[strcspn(s, "\n")] = '\0';
		while (n < 10 && s) {
			f[n++] = s;
			if ((t = strchr(s, '\t')))
				*t++ = '\0';
			s = t;
		}
		if (n >= 9) {
			snprintf(pi->exp, sizeof pi->exp, "%s", f[0]);
			snprintf(pi->holder, sizeof pi->holder, "%s", f[1]);
			snprintf(pi->host, sizeof pi->host, "%s", f[2]);
			pi->owner = strtol(f[3], NULL, 10);
			pi->owner_start = strtoull(f[4], NULL, 10);
			pi->expires = strtoll(f[5], NULL, 10);
			pi->child = strtol(f[6], NULL, 10);
			pi->child_start = strtoull(f[7], NULL, 10);
			pi->started = strtoll(f[8], NULL, 10);
			if (n == 10)
				snprintf(pi->slots, sizeof pi->slots, "%s", f[9]);
			r = 0;
		}
	}
	ar_buf_free(&b);
	free(p);
	return r;
}

static void
pinfo_write(struct runctx *c, const struct pinfo *pi)
{
	char *p = ar_path(c->piddir, pi->exp);
	char *s = ar_xasprintf("%s\t%s\t%s\t%ld\t%llu\t%lld\t%ld\t%llu\t%lld\t"
	    "%s\n", pi->exp, pi->holder, pi->host, pi->owner, pi->owner_start,
	    pi->expires, pi->child, pi->child_start, pi->started, pi->slots);

	if (ar_write_atomic(p, s, strlen(s), 0644) < 0) {
		ar_warn("%s:", p);
		c->io_errors++;
	}
	free(s);
	free(p);
}

/* Removes run/pid/EXP if this process wrote it (a taker may own it now). */
void
pinfo_remove(struct runctx *c, const char *exp)
{
	struct pinfo pi;
	char *p = ar_path(c->piddir, exp);

	if (pinfo_read(c, exp, &pi) < 0 || (pi.owner == (long)c->self_pid &&
	    pi.owner_start == c->self_start))
		unlink(p);
	free(p);
}

long
tries_get(const struct runctx *c, const char *exp)
{
	struct ar_buf b = {0};
	char *p = ar_path(c->trydir, exp);
	long v = 0;

	if (ar_readfile(p, &b, 64) == 0)
		v = strtol(b.p, NULL, 10);
	ar_buf_free(&b);
	free(p);
	return v;
}

void
tries_set(struct runctx *c, const char *exp, long v)
{
	char *p = ar_path(c->trydir, exp), s[32];

	snprintf(s, sizeof s, "%ld\n", v);
	if (ar_write_atomic(p, s, strlen(s), 0644) < 0) {
		ar_warn("%s:", p);
		c->io_errors++;
	}
	free(p);
}

/* ---- the table of runs ---- */

struct run *
run_new(struct runctx *c)
{
	struct run *r = ar_xcalloc(1, sizeof *r);

	c->runs = ar_xrealloc(c->runs, (c->nruns + 1) * sizeof *c->runs);
	c->runs[c->nruns++] = r;
	return r;
}

void
run_free(struct runctx *c, struct run *r)
{
	size_t i;

	for (i = 0; i < c->nruns; i++)
		if (c->runs[i] == r) {
			memmove(c->runs + i, c->runs + i + 1, (c->nruns - i -
			    1) * sizeof *c->runs);
			c->nruns--;
			break;
		}
	json_decref(r->o);
	free(r);
}

struct run *
run_by_pid(const struct runctx *c, pid_t pid)
{
	size_t i;

	for (i = 0; i < c->nruns; i++)
		if (c->runs[i]->pid == pid)
			return c->runs[i];
	return NULL;
}

int
exp_running(const struct runctx *c, const char *exp)
{
	size_t i;

	for (i = 0; i < c->nruns; i++)
		if (strcmp(c->runs[i]->r.experiment, exp) == 0)
			return 1;
	return 0;
}

void
slots_str(char *out, size_t n, const int *slot, size_t ns)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < ns && len + 8 < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%d", i ? "," :
		    "", slot[i]);
}

/* Writes run/pid/EXP for a run of ours. */
void
run_save(struct runctx *c, const struct run *r)
{
	struct pinfo pi;

	memset(&pi, 0, sizeof pi);
	snprintf(pi.exp, sizeof pi.exp, "%s", r->r.experiment);
	snprintf(pi.holder, sizeof pi.holder, "%s", c->holder);
	snprintf(pi.host, sizeof pi.host, "%s", c->host);
	pi.owner = (long)c->self_pid;
	pi.owner_start = c->self_start;
	pi.expires = r->l.expires;
	pi.child = (long)r->pid;
	pi.child_start = r->pstart;
	pi.started = r->started;
	if (c->backend == B_SLURM)
		snprintf(pi.slots, sizeof pi.slots, "slurm");
	else
		slots_str(pi.slots, sizeof pi.slots, r->slot, r->nslot);
	pinfo_write(c, &pi);
}

/* ---- output ---- */

void
print_header(struct runctx *c)
{
	if (c->header_done++)
		return;
	printf("experiment\tmethod\tk\tgpus\tnode\tstatus\tverdict\t"
	    "result\tseconds\n");
	fflush(stdout);
}

static void
print_line(struct runctx *c, const struct run *r, const char *gpus,
    const char *node, const char *status, const char *verdict,
    const char *resid, double secs)
{
	char sec[32] = "";

	if (secs >= 0)
		snprintf(sec, sizeof sec, "%.1f", secs);
	print_header(c);
	ar_tsv_put(stdout, r->r.experiment);
	putchar('\t');
	ar_tsv_put(stdout, r->r.method ? r->r.method : "");
	printf("\t%ld\t", r->r.k);
	ar_tsv_put(stdout, gpus);
	putchar('\t');
	ar_tsv_put(stdout, node);
	printf("\t%s\t", status);
	ar_tsv_put(stdout, verdict ? verdict : "");
	putchar('\t');
	ar_tsv_put(stdout, resid ? resid : "");
	printf("\t%s\n", sec);
	if (fflush(stdout) != 0)
		c->io_errors++;
}

/* ---- results ---- */

/* The result of an experiment: the last line of its .out that is a JSON
 * object naming it, as ar-bench prints it. */
int
result_from_out(const struct runctx *c, const char *exp, char *resid,
    size_t nid, char *verdict, size_t nv)
{
	char *p = ar_xasprintf("%s/%s.out", c->logdir, exp);
	struct ar_buf b = {0};
	int found = 0;

	if (ar_readfile(p, &b, 256 * 1024 * 1024) == 0) {
		char *end = b.p + b.len, *s;

		while (end > b.p && !found) {
			s = end;
			while (s > b.p && s[-1] != '\n')
				s--;
			if (*s == '{') {
				char err[128];
				json_t *j = ar_json_parse(s, (size_t)(end - s),
				    err, sizeof err);
				const char *e = j ? rec_str(j, "experiment") :
				    NULL;

				if (e && strcmp(e, exp) == 0 &&
				    rec_str(j, "id")) {
					snprintf(resid, nid, "%s",
					    rec_str(j, "id"));
					snprintf(verdict, nv, "%s",
					    rec_str(j, "verdict") ?
					    rec_str(j, "verdict") : "");
					found = 1;
				}
				json_decref(j);
			}
			end = s > b.p ? s - 1 : b.p;
		}
	}
	ar_buf_free(&b);
	free(p);
	return found;
}

static int
lfind_row(const struct ar_row *row, void *arg)
{
	struct lfind *lf = arg;
	char err[128];
	json_t *j;
	const char *e, *id, *v;
	size_t i;

	if (row->bad || !row->json || !memmem(row->json, row->jsonlen,
	    "\"experiment\"", 12))
		return 0;
	if (!(j = ar_json_parse(row->json, row->jsonlen, err, sizeof err)))
		return 0;
	if ((e = rec_str(j, "experiment")) && (id = rec_str(j, "id"))) {
		v = rec_str(j, "verdict");
		for (i = 0; i < lf->n; i++)
			if (strcmp(e, lf->exp[i]) == 0) {
				lf->found[i] = 1;
				snprintf(lf->id[i], sizeof lf->id[i], "%s", id);
				snprintf(lf->verdict[i], sizeof lf->verdict[i],
				    "%s", v ? v : "");
			}
	}
	json_decref(j);
	return 0;
}

void
ledger_find(const struct runctx *c, struct lfind *lf)
{
	struct ar_ledger led;
	char err[512];

	if (lf->n == 0)
		return;
	if (ar_ledger_open(&led, c->ledgerdir, 0, err, sizeof err) < 0) {
		ar_warn("%s", err);
		return;
	}
	if (ar_ledger_scan(&led, lfind_row, lf, err, sizeof err) != 0)
		ar_warn("%s", err);
	ar_ledger_close(&led);
}

void
lfind_init(struct lfind *lf, size_t n)
{
	memset(lf, 0, sizeof *lf);
	lf->exp = ar_xcalloc(n ? n : 1, sizeof *lf->exp);
	lf->id = ar_xcalloc(n ? n : 1, sizeof *lf->id);
	lf->verdict = ar_xcalloc(n ? n : 1, sizeof *lf->verdict);
	lf->found = ar_xcalloc(n ? n : 1, sizeof *lf->found);
}

void
lfind_free(struct lfind *lf)
{
	free(lf->exp);
	free(lf->id);
	free(lf->verdict);
	free(lf->found);
}

/* The last line of an experiment's .err, for a why. */
static void
err_tail(const struct runctx *c, const char *exp, char *out, size_t n)
{
	char *p = ar_xasprintf("%s/%s.err", c->logdir, exp);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	char buf[4096];
	ssize_t got = 0;
	off_t size;

	out[0] = '\0';
	if (fd >= 0) {
		size = lseek(fd, 0, SEEK_END);
		if (size > 0) {
			off_t from = size > (off_t)sizeof buf - 1 ?
			    size - (off_t)sizeof buf + 1 : 0;

			got = pread(fd, buf, sizeof buf - 1, from);
		}
		close(fd);
	}
	if (got > 0) {
		char *s, *e;

		buf[got] = '\0';
		e = buf + got;
		while (e > buf && (e[-1] == '\n' || e[-1] == ' '))
			*--e = '\0';
		s = e;
		while (s > buf && s[-1] != '\n')
			s--;
		snprintf(out, n, ": %.200s", s);
		for (s = out; *s; s++)
			if ((unsigned char)*s < ' ')
				*s = ' ';
	}
	free(p);
}

/* ---- how a run ends ---- */

/* Moves a claimed record to its end: "done", "failed" (with why) or back
 * to "new". 0 when moved; -1 when the lease was lost or the move failed. */
static int
spool_end(struct runctx *c, struct ar_lease *l, const char *to,
    const char *why)
{
	char *w = NULL;
	int r;

	if (to[0] == 'f') {
		char *line = ar_xasprintf("%s\n", why ? why : "");

		w = ar_spool_path(c->qdir, "why", l->name);
		if (ar_write_atomic(w, line, strlen(line), 0644) < 0) {
			ar_warn("%s:", w);
			c->io_errors++;
		}
		free(line);
	}
	r = ar_spool_finish(c->qdir, l, to);
	if (r != AR_SP_OK) {
		if (w)
			unlink(w);
		if (r == AR_SP_GONE)
			ar_warn("%s: lease lost (expired and taken by "
			    "another)", l->id);
		else {
			ar_warn("%s: cannot move %s to %s:", c->qdir, l->id,
			    to);
			c->io_errors++;
		}
	}
	free(w);
	return r == AR_SP_OK ? 0 : -1;
}

/* Ends a run: the queue first (the record's fate is then durable), then
 * the bookings, then run/pid. */
void
conclude(struct runctx *c, struct run *r, const char *status,
    const char *why, const char *verdict, const char *resid, double secs)
{
	char gpus[4096];
	const char *to = strcmp(status, "done") == 0 ? "done" :
	    strcmp(status, "requeue") == 0 ? "new" : "failed";
	char *full = NULL;
	int moved;

	slots_str(gpus, sizeof gpus, r->slot, r->nslot);
	if (strcmp(to, "failed") == 0)
		full = ar_xasprintf("%s: %s", status, why ? why : "");
	moved = r->lost ? -1 : spool_end(c, &r->l, to, full);
	release_slots(c, r);
	pinfo_remove(c, r->r.experiment);
	if (moved == 0 && strcmp(to, "new") != 0) {
		print_line(c, r, gpus, c->backend == B_SLURM ? r->jnode :
		    "local", status, verdict, resid, secs);
		if (strcmp(to, "failed") == 0)
			c->failures += strcmp(status, "failed") == 0;
		progress(c, "%s: %s%s%s", r->r.experiment, status, why ?
		    ": " : "", why ? why : "");
	} else if (moved == 0)
		progress(c, "%s: back in the queue%s%s", r->r.experiment,
		    why ? ": " : "", why ? why : "");
	free(full);
}

/* Decides a run whose ar-bench ended with wait status st. */
void
judge(struct runctx *c, struct run *r, int st, int stopped, int timed_out,
    double secs)
{
	char why[512], tail[256], resid[AR_ID_MAX + 1], verdict[32];
	const char *exp = r->r.experiment;

	err_tail(c, exp, tail, sizeof tail);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		struct lfind lf;

		if (result_from_out(c, exp, resid, sizeof resid, verdict,
		    sizeof verdict)) {
			conclude(c, r, "done", NULL, verdict, resid, secs);
			return;
		}
		lfind_init(&lf, 1);
		lf.exp[0] = exp;
		lf.n = 1;
		ledger_find(c, &lf);
		if (lf.found[0])
			conclude(c, r, "done", NULL, lf.verdict[0], lf.id[0],
			    secs);
		else
			conclude(c, r, "failed", "ar-bench exited 0 but no "
			    "result names the experiment", NULL, NULL, secs);
		lfind_free(&lf);
		return;
	}
	if (timed_out) {
		snprintf(why, sizeof why, "killed at the time limit of %.0f s",
		    c->tlimit);
		conclude(c, r, "timeout", why, NULL, NULL, secs);
		return;
	}
	if (stopped) {
		conclude(c, r, "requeue", "ar-run was interrupted", NULL, NULL,
		    secs);
		return;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, sizeof why, "ar-bench killed by signal %d (%s)%s",
		    WTERMSIG(st), strsignal(WTERMSIG(st)), tail);
		conclude(c, r, "crash", why, NULL, NULL, secs);
		return;
	}
	switch (WEXITSTATUS(st)) {
	case AR_EX_TEMPFAIL: {
		long t = tries_get(c, exp) + 1;

		tries_set(c, exp, t);
		if (t > c->requeue_max) {
			snprintf(why, sizeof why, "ar-bench interrupted %ld "
			    "time%s%s", t, t == 1 ? "" : "s", tail);
			conclude(c, r, "failed", why, NULL, NULL, secs);
		} else
			conclude(c, r, "requeue", "ar-bench was interrupted",
			    NULL, NULL, secs);
		return;
	}
	case AR_EX_NO: case AR_EX_USAGE: case AR_EX_DATA: case AR_EX_NOINPUT:
	case AR_EX_UNAVAILABLE: case AR_EX_CANTCREAT: case 126: case 127:
		snprintf(why, sizeof why, "ar-bench exited %d%s",
		    WEXITSTATUS(st), tail);
		conclude(c, r, "failed", why, NULL, NULL, secs);
		return;
	default:
		snprintf(why, sizeof why, "ar-bench exited %d%s",
		    WEXITSTATUS(st), tail);
		conclude(c, r, "crash", why, NULL, NULL, secs);
	}
}

/* ---- ar-bench's command line ---- */

char **
bench_argv(const struct runctx *c, const struct run *r, const char *gpulist)
{
	char **av = ar_xcalloc((size_t)c->nbargs + 32, sizeof *av);
	size_t n = 0;
	int i;

	av[n++] = ar_xstrdup(c->bench);
	av[n++] = ar_xstrdup("-C");
	av[n++] = ar_xstrdup(c->camp);
	if (r->r.method) {
		av[n++] = ar_xstrdup("-m");
		av[n++] = ar_xstrdup(r->r.method);
	} else
		av[n++] = ar_xstrdup("--aa");
	if (r->r.workload) {
		av[n++] = ar_xstrdup("-w");
		av[n++] = ar_xstrdup(r->r.workload);
	}
	av[n++] = ar_xstrdup("-k");
	av[n++] = ar_xasprintf("%ld", r->r.k);
	av[n++] = ar_xstrdup("-x");
	av[n++] = ar_xstrdup(r->r.experiment);
	if (r->r.idea) {
		av[n++] = ar_xstrdup("-i");
		av[n++] = ar_xstrdup(r->r.idea);
	}
	av[n++] = ar_xstrdup("-a");
	av[n++] = ar_xstrdup("-q");
	/* The scheduler's size gives way to a user's -p and -P. */
	if (r->r.pmin > 0) {
		av[n++] = ar_xstrdup("--sched-pairs");
		av[n++] = ar_xasprintf("%ld,%ld", r->r.pmin, r->r.pmax);
	}
	if (r->r.stop_at > 0) {
		av[n++] = ar_xstrdup("--stop-at");
		av[n++] = ar_xasprintf("%.10g", r->r.stop_at);
	}
	if (r->r.stop_at > 0 && r->r.prior_lo > 0) {
		av[n++] = ar_xstrdup("--stop-prior");
		av[n++] = ar_xasprintf("%.10g,%.10g", r->r.prior_lo,
		    r->r.prior_hi);
	}
	if (gpulist) {
		av[n++] = ar_xstrdup("-G");
		av[n++] = ar_xstrdup(gpulist);
	}
	for (i = 0; i < c->nbargs; i++)
		av[n++] = ar_xstrdup(c->bargs[i]);
	return av;
}

void
free_argv(char **av)
{
	size_t i;

	for (i = 0; av && av[i]; i++)
		free(av[i]);
	free(av);
}

/* The environment for ar-bench: ours, with CUDA_VISIBLE_DEVICES set to the
 * bundle (or removed on the CPU path). */
char **
bench_env(const char *cuda)
{
	size_t n = 0, i, w = 0;
	char **env;

	while (environ[n])
		n++;
	env = ar_xcalloc(n + 2, sizeof *env);
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) != 0)
			env[w++] = environ[i];
	if (cuda)
		env[w++] = ar_xasprintf("CUDA_VISIBLE_DEVICES=%s", cuda);
	return env;
}

/* Frees what bench_env made: its own CUDA_VISIBLE_DEVICES, and the
 * array. */
void
free_env(char **env)
{
	char **e;

	for (e = env; *e; e++)
		if (strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0)
			free(*e);
	free(env);
}
