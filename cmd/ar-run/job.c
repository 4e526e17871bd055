/* job.c: ar-run job, what a Slurm job of ar-run slurm runs: it finds its
 * experiment's record claimed in the queue (for an array task, through
 * the map), runs ar-bench on the job's GPUs, passes on the signals Slurm
 * sends, and leaves its exit status and GPUs in run/jobs/EXP.rc for
 * ar-run slurm to read. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "io.h"
#include "json.h"
#include "proc.h"
#include "run.h"

static volatile sig_atomic_t job_sig;

static void
on_job_sig(int s)
{
	job_sig = s;
}

/* GRES=gpu:4(IDX:2-5) or gpu:a100:2(IDX:0,3) in scontrol show job -d. */
static int
job_gpus(char *out, size_t n)
{
	const char *id = getenv("SLURM_JOB_ID");
	char *av[] = { (char *)prog_env("SCONTROL", "scontrol"), "show", "job",
	    "-d", (char *)id, NULL };
	struct ar_buf b = {0};
	char *s, *e, *p, *end;
	size_t len = 0;
	int r = -1;

	out[0] = '\0';
	if (!id)
		return -1;
	if (capture(av, &b) != 0) {
		ar_buf_free(&b);
		return -1;
	}
	if ((s = strstr(b.p, "(IDX:")) && (e = strchr(s, ')'))) {
		*e = '\0';
		r = 0;
		for (p = s + 5; *p && r == 0; ) {
			long a = strtol(p, &end, 10), z = a;

			if (end == p) {
				r = -1;
				break;
			}
			if (*end == '-')
				z = strtol(end + 1, &end, 10);
			for (long v = a; v <= z && len + 8 < n; v++)
				len += (size_t)snprintf(out + len, n - len,
				    "%s%ld", len ? "," : "", v);
			p = *end == ',' ? end + 1 : end;
			if (*end && *end != ',')
				r = -1;
		}
	}
	ar_buf_free(&b);
	return r;
}

/* An array task's experiment: line SLURM_ARRAY_TASK_ID of the map. Its
 * output then goes to the experiment's logs, as a lone job's does. */
static const char *
map_task(const struct runctx *c, const char *map, char *exp, size_t n)
{
	const char *tid = getenv("SLURM_ARRAY_TASK_ID");
	long long t;
	size_t nm, i;
	char **m;

	if (!ar_id_valid(map + 1))
		ar_die(AR_EX_USAGE, "%s: not a map name", map);
	if (!tid || ar_parse_long(tid, &t) < 0 || t < 0)
		ar_die(AR_EX_USAGE, "%s: no SLURM_ARRAY_TASK_ID (not an array "
		    "task)", map);
	m = map_read(c, map, &nm);
	if (!m)
		ar_die(AR_EX_NOINPUT, "%s/%s: missing or empty", c->jobdir,
		    map);
	if ((size_t)t >= nm)
		ar_die(AR_EX_DATA, "%s/%s: no task %lld", c->jobdir, map, t);
	snprintf(exp, n, "%s", m[t]);
	for (i = 0; i < nm; i++)
		free(m[i]);
	free(m);
	if (!ar_id_valid(exp))
		ar_die(AR_EX_DATA, "%s/%s: task %lld: not an experiment id",
		    c->jobdir, map, t);
	for (i = 0; i < 2; i++) {
		char *p = ar_xasprintf("%s/%s.%s", c->logdir, exp, i ? "err" :
		    "out");
		int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		    0644);

		if (fd < 0)
			ar_die(ar_errno_exit(errno), "%s:", p);
		fflush(i ? stderr : stdout);
		if (dup2(fd, (int)i + 1) < 0)
			ar_die(AR_EX_IO, "dup2:");
		close(fd);
		free(p);
	}
	return exp;
}

/* The claimed record of exp: by its id, else the one naming it. Dies
 * when none is claimed. */
static json_t *
claimed_record(const struct runctx *c, const char *exp, struct ar_lease *l)
{
	char lname[3 * AR_ID_MAX], **names, *p;
	json_t *o = NULL, *x;
	const char *e;
	size_t n, i;

	if (ar_spool_find(c->qdir, exp, NULL, l) == AR_SP_OK) {
		ar_spool_lease_name(lname, sizeof lname, l);
		p = ar_spool_path(c->qdir, "cur", lname);
		if (!(o = rec_load(p)))
			ar_die(AR_EX_DATA, "%s: unreadable record", p);
		free(p);
		return o;
	}
	/* A record whose id is not the experiment's. */
	if (ar_spool_list(c->qdir, "cur", &names, &n) < 0)
		ar_die(AR_EX_IO, "%s/cur:", c->qdir);
	for (i = 0; i < n && !o; i++) {
		if (ar_spool_parse(names[i], l) < 0)
			continue;
		p = ar_spool_path(c->qdir, "cur", names[i]);
		x = rec_load(p);
		free(p);
		if (x && (e = rec_str(x, "experiment")) && strcmp(e, exp) == 0)
			o = x;
		else
			json_decref(x);
	}
	ar_spool_free_list(names, n);
	if (!o)
		ar_die(AR_EX_NOINPUT, "%s: %s is not claimed in the queue",
		    c->qdir, exp);
	return o;
}

/* Writes run/jobs/EXP.rc: how ar-bench ended, and the GPUs too, for
 * ar-run slurm's report. */
static void
write_rc(const struct runctx *c, const char *exp, int st, const char *gpus)
{
	char *txt, *rcp;

	if (WIFEXITED(st))
		txt = ar_xasprintf("exit %d\ngpus %s\n", WEXITSTATUS(st), gpus);
	else
		txt = ar_xasprintf("signal %d\ngpus %s\n", WTERMSIG(st), gpus);
	rcp = ar_xasprintf("%s/%s.rc", c->jobdir, exp);
	if (ar_write_atomic(rcp, txt, strlen(txt), 0644) < 0)
		ar_warn("%s:", rcp);
	free(rcp);
	free(txt);
}

int
cmd_job(struct runctx *c, const char *exp)
{
	char mexp[AR_ID_MAX + 1], gpus[4096];
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	struct ar_spawn s = { .in = AR_FD_KEEP, .out = AR_FD_KEEP,
	    .err = AR_FD_KEEP, .pgroup = -1, .die_with_parent = 1 };
	struct sigaction sa;
	struct ar_lease l;
	struct run r;
	char **av, **env;
	pid_t pid;
	int st;

	if (exp[0] == '@')
		exp = map_task(c, exp, mexp, sizeof mexp);
	if (!ar_id_valid(exp))
		ar_die(AR_EX_USAGE, "%s: not an experiment id", exp);
	memset(&r, 0, sizeof r);
	r.o = claimed_record(c, exp, &l);
	ar_assign_parse(r.o, l.id, &r.r);
	if (r.r.bad[0])
		ar_die(AR_EX_DATA, "%s: %s", exp, r.r.bad);
	if (cvd && *cvd)
		snprintf(gpus, sizeof gpus, "%s", cvd);
	else if (job_gpus(gpus, sizeof gpus) < 0)
		ar_die(AR_EX_UNAVAILABLE, "cannot tell this job's GPUs: no "
		    "CUDA_VISIBLE_DEVICES and no IDX in scontrol show job -d");
	av = bench_argv(c, &r, gpus[0] ? gpus : NULL);
	env = bench_env(gpus[0] ? gpus : NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_job_sig;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	s.argv = av;
	s.env = env;
	if (ar_spawn(&s, &pid) < 0) {
		/* As a child that could not exec would say and exit. */
		ar_warn("%s:", av[0]);
		st = 127 << 8;
	} else {
		for (;;) {
			pid_t w = waitpid(pid, &st, 0);

			if (w == pid)
				break;
			if (w < 0 && errno != EINTR)
				ar_die(AR_EX_SOFTWARE, "waitpid:");
			/* Slurm's signal goes to the whole of ar-bench. */
			if (job_sig) {
				kill(-pid, (int)job_sig);
				job_sig = 0;
			}
		}
		kill(-pid, SIGKILL);
	}
	write_rc(c, exp, st, gpus);
	free_argv(av);
	free_env(env);
	json_decref(r.o);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
