/* slurm.c: the Slurm backend: claimed records go out through sbatch, one
 * job each or those of one k as one array whose map (run/jobs/@MAP) lists
 * its tasks' experiments; run/jobs/EXP holds each job's id, saved before
 * anything else can lose it; one squeue a poll tells what ended, and the
 * rc file that ar-run job wrote says how; a record whose ar-run died has
 * its job adopted, found by the jobs file or by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "io.h"
#include "proc.h"
#include "run.h"

const char *
prog_env(const char *var, const char *def)
{
	const char *s = getenv(var);

	return s && *s ? s : def;
}

/* Runs a Slurm command and collects its standard output; its exit
 * status, 127 when it could not run. */
int
capture(char *const *av, struct ar_buf *out)
{
	int st = ar_capture(av, AR_FD_KEEP, out, 64 << 20);

	if (st < 0) {
		ar_warn("%s:", av[0]);
		st = 127;
	}
	return st;
}

static void
shell_quote(struct ar_buf *b, const char *s)
{
	ar_buf_addc(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			ar_buf_adds(b, "'\\''");
		else
			ar_buf_addc(b, *s);
	ar_buf_addc(b, '\'');
}

/* ---- run/jobs ---- */

/* run/jobs/EXP: the job id, and for an array task its map. */
static void
job_save(struct runctx *c, const char *exp, const char *jid, const char *map)
{
	char *p = ar_path(c->jobdir, exp);
	char *s = map && *map ? ar_xasprintf("%s\t%s\n", jid, map) :
	    ar_xasprintf("%s\n", jid);

	if (ar_write_atomic(p, s, strlen(s), 0644) < 0) {
		ar_warn("%s:", p);
		c->io_errors++;
	}
	free(s);
	free(p);
}

/* Whether a job id is a number or NUMBER_NUMBER. */
static int
jid_valid(const char *s)
{
	const char *p = s;

	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '_' && p[1] >= '0' && p[1] <= '9')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	return *p == '\0' && p - s < 40;
}

/* Reads run/jobs/EXP; 0 when it names a job. */
int
job_load(const struct runctx *c, const char *exp, char *jid, size_t nj,
    char *map, size_t nm)
{
	struct ar_buf b = {0};
	char *p = ar_path(c->jobdir, exp), *t;
	int r = -1;

	jid[0] = '\0';
	if (map)
		map[0] = '\0';
	if (ar_readfile(p, &b, 512) == 0) {
		b.p[strcspn(b.p, "\n")] = '\0';
		if ((t = strchr(b.p, '\t')))
			*t++ = '\0';
		if (jid_valid(b.p)) {
			snprintf(jid, nj, "%s", b.p);
			if (map && t && t[0] == '@' && ar_id_valid(t + 1))
				snprintf(map, nm, "%s", t);
			r = 0;
		}
	}
	ar_buf_free(&b);
	free(p);
	return r;
}

int
job_file_exists(const struct runctx *c, const char *exp)
{
	char *p = ar_path(c->jobdir, exp);
	struct stat st;
	int r = stat(p, &st) == 0;

	free(p);
	return r;
}

static void
job_forget(const struct runctx *c, const char *exp)
{
	char *p = ar_path(c->jobdir, exp), *q = ar_xasprintf("%s/%s.rc",
	    c->jobdir, exp);

	unlink(p);
	unlink(q);
	free(p);
	free(q);
}

/* The newest job named ar-NAME that Slurm still knows (an array's id for
 * an array); 0 if none, -1 when squeue failed. */
static long long
job_by_name(const char *nm)
{
	char *name = ar_xasprintf("ar-%s", nm);
	char *av[] = { (char *)prog_env("SQUEUE", "squeue"), "-h", "-t", "all",
	    "-n", name, "-o", "%i", NULL };
	struct ar_buf out = {0};
	long long best = 0;

	if (capture(av, &out) == 0) {
		char *s;

		/* One id a line: 123, 123_4 or 123_[5-7]. */
		for (s = out.p; s && *s; ) {
			long long v = strtoll(s, NULL, 10);

			if (v > best)
				best = v;
			if ((s = strchr(s, '\n')))
				s++;
		}
	} else
		best = -1;
	ar_buf_free(&out);
	free(name);
	return best;
}

/* Whether an squeue id field (123, 123_4, 123_[1,3-5%2]) names jid. */
static int
jid_match(const char *field, const char *jid)
{
	const char *us = strchr(jid, '_'), *p;
	size_t nb;
	long t;

	if (!us)
		return strcmp(field, jid) == 0;
	nb = (size_t)(us - jid) + 1;
	if (strncmp(field, jid, nb) != 0)
		return 0;
	p = field + nb;
	t = strtol(us + 1, NULL, 10);
	if (*p != '[')
		return strcmp(p, us + 1) == 0;
	/* A list of pending tasks, maybe with a %limit at its end. */
	for (p++; *p && *p != ']' && *p != '%'; ) {
		char *e;
		long a = strtol(p, &e, 10), z = a;

		if (e == p)
			return 0;
		if (*e == '-')
			z = strtol(e + 1, &e, 10);
		if (t >= a && t <= z)
			return 1;
		p = *e == ',' ? e + 1 : e;
		if (*e != ',' && *e != ']' && *e != '%')
			return 0;
	}
	return 0;
}

/* ---- array maps ---- */

/* Removes an array's map once no run/jobs file names it: its tasks all
 * ended (or never existed), so no ar-run job will read it again. */
static void
map_release(const struct runctx *c, const char *map)
{
	char **names, *p;
	size_t n, i;
	int used = 0;
	struct stat st;

	if (ar_spool_list(c->camp, "run/jobs", &names, &n) < 0)
		return;
	for (i = 0; i < n && !used; i++) {
		char jid[64], m[AR_ID_MAX + 2];
		size_t l = strlen(names[i]);

		if (names[i][0] == '@' || (l > 3 && strcmp(names[i] + l - 3,
		    ".rc") == 0))
			continue;
		if (job_load(c, names[i], jid, sizeof jid, m, sizeof m) == 0 &&
		    strcmp(m, map) == 0)
			used = 1;
	}
	ar_spool_free_list(names, n);
	if (used)
		return;
	p = ar_path(c->jobdir, map);
	unlink(p);
	free(p);
	/* Its own log, where only a task that could not start wrote; kept
	 * when it says something. */
	p = ar_xasprintf("%s/%s.out", c->logdir, map);
	if (stat(p, &st) == 0 && st.st_size == 0)
		unlink(p);
	free(p);
}

/* Reads a map: its experiments, one a line, task 0 first. */
char **
map_read(const struct runctx *c, const char *map, size_t *n)
{
	struct ar_buf b = {0};
	char *p = ar_path(c->jobdir, map), **v = NULL, *s, *e;

	*n = 0;
	if (ar_readfile(p, &b, 4 << 20) == 0)
		for (s = b.p; *s; s = *e ? e + 1 : e) {
			e = s + strcspn(s, "\n");
			v = ar_xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = ar_xasprintf("%.*s", (int)(e - s), s);
		}
	ar_buf_free(&b);
	free(p);
	return v;
}

/* Whether a map lists exp; its task in *at. */
static int
map_has(const struct runctx *c, const char *map, const char *exp,
    size_t *at)
{
	size_t nm, t;
	char **m = map_read(c, map, &nm);
	int in = 0;

	for (t = 0; t < nm; t++) {
		if (!in && strcmp(m[t], exp) == 0) {
			in = 1;
			*at = t;
		}
		free(m[t]);
	}
	free(m);
	return in;
}

/* ---- submitting ---- */

/* Writes an array's map whole before sbatch (a task may start at once);
 * its name in map, malloc'd path in *mp. -1 on failure. */
static int
map_write(struct runctx *c, struct run **rs, size_t n, char *map, size_t nm,
    char **mp)
{
	struct ar_buf mt = {0};
	size_t i;
	int r = 0;

	snprintf(map, nm, "@%s.%ld.%lld.%u", c->host_short, (long)c->self_pid,
	    now_s(), c->map_seq++);
	for (i = 0; i < n; i++)
		ar_buf_printf(&mt, "%s\n", rs[i]->r.experiment);
	*mp = ar_path(c->jobdir, map);
	if (ar_write_atomic(*mp, mt.p, mt.len, 0644) < 0) {
		ar_warn("%s:", *mp);
		c->io_errors++;
		free(*mp);
		*mp = NULL;
		r = -1;
	}
	ar_buf_free(&mt);
	return r;
}

/* Submits runs of one k: one job for a lone run, else one array whose
 * task i runs rs[i]. 0 when sbatch took it; the ids are saved before
 * anything else can lose them. */
static int
submit(struct runctx *c, struct run **rs, size_t n)
{
	struct ar_buf w = {0}, out = {0};
	char *av[32], *name, *o, *e, *g, *tm = NULL, *pp = NULL, *arr = NULL;
	char map[AR_ID_MAX + 2] = "", *mp = NULL;
	const char *tgt;
	size_t i, na = 0;
	int j, st;
	long long job = 0;

	for (i = 0; i < n; i++) {
		char *rc = ar_xasprintf("%s/%s.rc", c->jobdir,
		    rs[i]->r.experiment);

		unlink(rc);
		free(rc);
	}
	if (n > 1 && map_write(c, rs, n, map, sizeof map, &mp) < 0)
		return -1;
	tgt = n > 1 ? map : rs[0]->r.experiment;
	ar_buf_adds(&w, "exec ");
	shell_quote(&w, c->self_exe);
	ar_buf_adds(&w, " job -C ");
	shell_quote(&w, c->camp);
	ar_buf_addc(&w, ' ');
	shell_quote(&w, tgt);
	if (c->nbargs) {
		ar_buf_adds(&w, " --");
		for (j = 0; j < c->nbargs; j++) {
			ar_buf_addc(&w, ' ');
			shell_quote(&w, c->bargs[j]);
		}
	}
	name = ar_xasprintf("ar-%s", tgt);
	o = ar_xasprintf("%s/%s.out", c->logdir, tgt);
	/* An array's tasks write their experiment's logs themselves; its
	 * own log gets only what a task says before it knows which. */
	e = ar_xasprintf("%s/%s.%s", c->logdir, tgt, n > 1 ? "out" : "err");
	g = ar_xasprintf("--gpus=%ld", rs[0]->r.k);
	av[na++] = (char *)prog_env("SBATCH", "sbatch");
	av[na++] = "--parsable";
	if (n > 1) {
		arr = ar_xasprintf("--array=0-%zu%%%ld", n - 1, c->maxpar);
		av[na++] = arr;
	}
	av[na++] = g;
	av[na++] = "-J";
	av[na++] = name;
	av[na++] = "-o";
	av[na++] = o;
	av[na++] = "-e";
	av[na++] = e;
	av[na++] = "--open-mode=append";
	if (c->partition) {
		pp = ar_xasprintf("--partition=%s", c->partition);
		av[na++] = pp;
	}
	if (c->tlimit > 0) {
		long long s = (long long)c->tlimit;

		tm = ar_xasprintf("--time=%lld:%02lld", s / 60, s % 60);
		av[na++] = tm;
	}
	av[na++] = "--wrap";
	av[na++] = w.p;
	av[na] = NULL;
	st = capture(av, &out);
	job = st == 0 ? strtoll(out.p, NULL, 10) : 0;
	if (job > 0) {
		for (i = 0; i < n; i++) {
			struct run *r = rs[i];

			if (n > 1)
				snprintf(r->jid, sizeof r->jid, "%lld_%zu", job,
				    i);
			else
				snprintf(r->jid, sizeof r->jid, "%lld", job);
			snprintf(r->map, sizeof r->map, "%s", map);
			job_save(c, r->r.experiment, r->jid, map);
			r->jsubmitted = 1;
			r->started = now_s();
			r->t0 = mono();
		}
		for (i = 0; i < n; i++) {
			run_save(c, rs[i]);
			progress(c, "%s: submitted as job %s",
			    rs[i]->r.experiment, rs[i]->jid);
		}
	} else {
		ar_warn("%s: sbatch failed (status %d): %.200s", tgt, st,
		    out.p ? out.p : "");
		if (mp)
			unlink(mp);
	}
	ar_buf_free(&w);
	ar_buf_free(&out);
	free(name);
	free(o);
	free(e);
	free(g);
	free(tm);
	free(pp);
	free(arr);
	free(mp);
	return job > 0 ? 0 : -1;
}

/* Submits the runs claimed in one round: those of one k together as an
 * array of at most array_max tasks, a lone one as a job. Returns how many
 * went back to the queue because sbatch failed. */
size_t
submit_pending(struct runctx *c, struct run **pend, size_t n)
{
	struct run **grp = ar_xcalloc(n ? n : 1, sizeof *grp);
	char *taken = ar_xcalloc(n ? n : 1, 1);
	size_t i, j, m, back = 0;

	for (i = 0; i < n; i++) {
		if (taken[i])
			continue;
		for (m = 0, j = i; j < n && m < (size_t)c->array_max; j++)
			if (!taken[j] && pend[j]->r.k == pend[i]->r.k) {
				grp[m++] = pend[j];
				taken[j] = 1;
			}
		/* Slurm may be down for a while: the rest wait too, and
		 * the next try is in 10 s, not at every poll. */
		if (back || submit(c, grp, m) < 0) {
			for (j = 0; j < m; j++) {
				conclude(c, grp[j], "requeue", "sbatch failed",
				    NULL, NULL, -1);
				run_free(c, grp[j]);
			}
			back += m;
			c->sbatch_retry = mono() + 10;
		}
	}
	free(grp);
	free(taken);
	return back;
}

/* ---- adopting a dead ar-run's job ---- */

/* A record of a dead ar-run slurm: its job, by the jobs file, else by
 * name (its own, or its array's through the maps that list it), is
 * adopted; without one the record goes back to the queue. */
void
adopt_slurm(struct runctx *c, struct run *r)
{
	char jid[64], map[AR_ID_MAX + 2];
	char **dead = NULL, **names;
	size_t ndead = 0, i, n, at;
	int sq_ok = 1;
	long long best, v;

	if (job_load(c, r->r.experiment, jid, sizeof jid, map,
	    sizeof map) < 0) {
		if ((best = job_by_name(r->r.experiment)) < 0) {
			sq_ok = 0;
			best = 0;
		}
		if (best > 0)
			snprintf(jid, sizeof jid, "%lld", best);
		/* The newest wins: Slurm's ids grow. */
		if (ar_spool_list(c->camp, "run/jobs", &names, &n) == 0) {
			for (i = 0; i < n; i++) {
				if (names[i][0] != '@' || !map_has(c, names[i],
				    r->r.experiment, &at))
					continue;
				if ((v = job_by_name(names[i])) < 0)
					sq_ok = 0;
				else if (v == 0) {
					dead = ar_xrealloc(dead, (ndead + 1) *
					    sizeof *dead);
					dead[ndead++] = ar_xstrdup(names[i]);
				} else if (v > best) {
					best = v;
					snprintf(jid, sizeof jid, "%lld_%zu", v,
					    at);
					snprintf(map, sizeof map, "%s",
					    names[i]);
				}
			}
			ar_spool_free_list(names, n);
		}
		if (jid[0])
			job_save(c, r->r.experiment, jid, map);
	}
	r->t0 = mono() - (r->started ? (double)(now_s() - r->started) : 0);
	if (jid[0]) {
		snprintf(r->jid, sizeof r->jid, "%s", jid);
		snprintf(r->map, sizeof r->map, "%s", map);
		r->jsubmitted = 1;
		run_save(c, r);
		ar_warn("%s: adopted job %s", r->r.experiment, jid);
	} else {
		run_save(c, r);
		if (!earlier_result(c, r))
			conclude(c, r, "requeue", "its runner died before "
			    "sbatch", NULL, NULL, -1);
		run_free(c, r);
	}
	/* Maps whose array was never submitted: its writer died first. */
	for (i = 0; i < ndead; i++) {
		if (sq_ok)
			map_release(c, dead[i]);
		free(dead[i]);
	}
	free(dead);
}

/* ---- jobs that ended ---- */

/* The rc file ar-run job wrote: "exit N" or "signal N", then "gpus
 * LIST"; -1 when none. */
static int
job_rc(const struct runctx *c, struct run *rn, int *st)
{
	char *p = ar_xasprintf("%s/%s.rc", c->jobdir, rn->r.experiment);
	struct ar_buf b = {0};
	char *g;
	int r = -1;
	long v;

	if (ar_readfile(p, &b, 256) == 0) {
		if (sscanf(b.p, "exit %ld", &v) == 1) {
			*st = (int)((v & 0xff) << 8);
			r = 0;
		} else if (sscanf(b.p, "signal %ld", &v) == 1) {
			*st = (int)(v & 0x7f);
			r = 0;
		}
		if ((g = strstr(b.p, "\ngpus "))) {
			g += 6;
			g[strcspn(g, "\n")] = '\0';
			if (ar_assign_gpus(g, rn->slot, AR_ASSIGN_GPUS,
			    &rn->nslot) < 0)
				rn->nslot = 0;
		}
	}
	ar_buf_free(&b);
	free(p);
	return r;
}

/* Decides a job that Slurm says has ended in state. */
static void
job_ended(struct runctx *c, struct run *r, const char *state)
{
	char resid[AR_ID_MAX + 1], verdict[32], why[512];
	const char *exp = r->r.experiment;
	double secs = mono() - r->t0;
	int st = 0, have_rc = job_rc(c, r, &st) == 0;

	if (result_from_out(c, exp, resid, sizeof resid, verdict,
	    sizeof verdict)) {
		job_forget(c, exp);
		conclude(c, r, "done", NULL, verdict, resid, secs);
		return;
	}
	if (strcmp(state, "COMPLETED") == 0 && have_rc) {
		job_forget(c, exp);
		judge(c, r, st, 0, 0, secs);
		return;
	}
	if (strcmp(state, "TIMEOUT") == 0 || strcmp(state, "DEADLINE") == 0) {
		job_forget(c, exp);
		snprintf(why, sizeof why, "job %s: %s", r->jid, state);
		conclude(c, r, "timeout", why, NULL, NULL, secs);
		return;
	}
	if (strcmp(state, "CANCELLED") == 0 || strcmp(state, "PREEMPTED") == 0 ||
	    strcmp(state, "LOST") == 0) {
		long t = tries_get(c, exp) + 1;

		tries_set(c, exp, t);
		job_forget(c, exp);
		if (t > c->requeue_max) {
			snprintf(why, sizeof why, "job %s: %s, %ld time%s",
			    r->jid, state, t, t == 1 ? "" : "s");
			conclude(c, r, "failed", why, NULL, NULL, secs);
		} else {
			snprintf(why, sizeof why, "job %s: %s (attempt %ld "
			    "of %ld)", r->jid, state, t, c->requeue_max + 1);
			conclude(c, r, "requeue", why, NULL, NULL, secs);
		}
		return;
	}
	job_forget(c, exp);
	if (have_rc && strcmp(state, "FAILED") == 0 && WIFEXITED(st) &&
	    WEXITSTATUS(st) != 0) {
		judge(c, r, st, 0, 0, secs);
		return;
	}
	if (have_rc && WIFSIGNALED(st)) {
		snprintf(why, sizeof why, "job %s: %s: ar-bench killed by "
		    "signal %d (%s)", r->jid, state, WTERMSIG(st),
		    strsignal(WTERMSIG(st)));
		conclude(c, r, "crash", why, NULL, NULL, secs);
		return;
	}
	snprintf(why, sizeof why, "job %s: %s%s", r->jid, state,
	    have_rc ? "" : " before ar-bench ended");
	conclude(c, r, "crash", why, NULL, NULL, secs);
}

/* Whether ids, a comma-separated list, holds id. */
static int
in_list(const char *ids, const char *id)
{
	size_t n = strlen(id);
	const char *p;

	for (p = ids; (p = strstr(p, id)); p += n)
		if ((p == ids || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

/* squeue refuses a list naming a job it forgot: each job of ours through
 * scontrol instead (it knows 123_4 too), as squeue's lines. */
static void
ask_one_by_one(const struct runctx *c, struct ar_buf *out)
{
	size_t i;

	ar_buf_clear(out);
	for (i = 0; i < c->nruns; i++) {
		struct run *r = c->runs[i];
		struct ar_buf one = {0};
		char *av[] = { (char *)prog_env("SCONTROL", "scontrol"), "-o",
		    "show", "job", r->jid, NULL };
		char *s;

		if (!r->jsubmitted)
			continue;
		if (capture(av, &one) == 0 && (s = strstr(one.p,
		    "JobState="))) {
			char state[64] = "", node[256] = "";
			char *nl = strstr(one.p, " NodeList=");

			sscanf(s + 9, "%63[A-Z_]", state);
			if (nl)
				sscanf(nl + 10, "%255s", node);
			ar_buf_printf(out, "%s|%s|%s\n", r->jid, state,
			    strcmp(node, "(null)") ? node : "");
		} else
			ar_buf_printf(out, "%s|GONE|\n", r->jid);
		ar_buf_free(&one);
	}
}

/* Whether a job in this state has ended. */
static int
state_ended(const char *s)
{
	static const char *const live[] = { "PENDING", "RUNNING",
	    "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED",
	    "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SIGNALING",
	    "STAGE_OUT", "STOPPED", NULL };
	size_t i;

	for (i = 0; live[i]; i++)
		if (strcmp(s, live[i]) == 0)
			return 0;
	return 1;
}

/* One squeue for every job of ours (an array by its id, which lists all
 * its tasks); each job or task that ended is decided. */
void
poll_jobs(struct runctx *c)
{
	struct ar_buf ids = {0}, out = {0};
	size_t i;
	int st;

	for (i = 0; i < c->nruns; i++)
		if (c->runs[i]->jsubmitted) {
			char base[64];

			snprintf(base, sizeof base, "%.*s",
			    (int)strcspn(c->runs[i]->jid, "_"),
			    c->runs[i]->jid);
			if (!ids.len || !in_list(ids.p, base))
				ar_buf_printf(&ids, "%s%s", ids.len ? "," : "",
				    base);
		}
	if (!ids.len) {
		ar_buf_free(&ids);
		return;
	}
	{
		char *av[] = { (char *)prog_env("SQUEUE", "squeue"), "-h",
		    "-t", "all", "-j", ids.p, "-o", "%i|%T|%N", NULL };

		st = capture(av, &out);
	}
	if (st != 0)
		ask_one_by_one(c, &out);
	for (i = 0; i < c->nruns; ) {
		struct run *r = c->runs[i];
		char *s, state[64] = "", node[256] = "", map[AR_ID_MAX + 2];
		int found = 0;

		if (!r->jsubmitted) {
			i++;
			continue;
		}
		for (s = out.p; s && *s && !found; ) {
			size_t fl = strcspn(s, "|\n");
			char field[128];

			if (s[fl] == '|' && fl < sizeof field) {
				memcpy(field, s, fl);
				field[fl] = '\0';
				if (jid_match(field, r->jid)) {
					sscanf(s + fl + 1, "%63[A-Z_]|%255[^\n]",
					    state, node);
					found = 1;
				}
			}
			s = strchr(s, '\n');
			if (s)
				s++;
		}
		if (!found)
			snprintf(state, sizeof state, "GONE");
		if (node[0])
			snprintf(r->jnode, sizeof r->jnode, "%s", node);
		if (!state_ended(state)) {
			i++;
			continue;
		}
		progress(c, "%s: job %s %s", r->r.experiment, r->jid, state);
		snprintf(map, sizeof map, "%s", r->map);
		job_ended(c, r, strcmp(state, "GONE") ? state : "LOST");
		run_free(c, r);
		if (map[0])
			map_release(c, map);
	}
	ar_buf_free(&ids);
	ar_buf_free(&out);
}
