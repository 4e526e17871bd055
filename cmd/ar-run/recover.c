/* recover.c: records whose runner died. A record in cur/ is stale when
 * the ar-run its lease names, on this host, is dead, or when its lease
 * expired: it is taken over, the earlier ar-bench still alive is stopped,
 * and the ledger says whether its result landed (done) or not (back to
 * new/; ar-run slurm adopts its job instead). Bookings, run/pid files and
 * temporary files that dead processes left go too. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "booking.h"
#include "err.h"
#include "io.h"
#include "proc.h"
#include "run.h"

/* Stops a recorded process (not our child) and waits for it to go. */
void
kill_wait(long pid, unsigned long long start)
{
	double t0 = mono();
	int sig = SIGTERM;

	if (!ar_proc_alive(pid, start))
		return;
	ar_warn("process %ld of an earlier run is still alive; stopping it",
	    pid);
	kill(-(pid_t)pid, sig);
	kill((pid_t)pid, sig);
	while (ar_proc_alive(pid, start)) {
		if (sig == SIGTERM && mono() - t0 > 10) {
			sig = SIGKILL;
			kill(-(pid_t)pid, sig);
			kill((pid_t)pid, sig);
		}
		if (mono() - t0 > 30)
			break;
		usleep(20000);
	}
	/* Whatever it left in its group. */
	kill(-(pid_t)pid, SIGKILL);
}

/* A record claimed again after an earlier attempt that left run/pid: the
 * earlier ar-bench may have finished its result. 1 when it did (the run
 * is then concluded). */
int
earlier_result(struct runctx *c, struct run *r)
{
	struct pinfo pi;
	struct lfind lf;
	int found;

	if (pinfo_read(c, r->r.experiment, &pi) < 0)
		return 0;
	if (strcmp(pi.host, c->host) == 0 && pi.child)
		kill_wait(pi.child, pi.child_start);
	lfind_init(&lf, 1);
	lf.exp[0] = r->r.experiment;
	lf.n = 1;
	ledger_find(c, &lf);
	found = lf.found[0];
	if (found) {
		snprintf(r->jnode, sizeof r->jnode, "%s", c->backend ==
		    B_SLURM ? "" : "local");
		conclude(c, r, "done", NULL, lf.verdict[0], lf.id[0], -1);
	}
	lfind_free(&lf);
	return found;
}

/* The owner that a lease's holder names (HOLDER.HOST.PID.START); -1 when
 * the holder is not one of ours. */
static int
lease_owner(const char *h, char *hostp, size_t n, long *pid,
    unsigned long long *start)
{
	const char *d3 = strrchr(h, '.'), *d2, *d1;

	if (!d3)
		return -1;
	for (d2 = d3 - 1; d2 > h && *d2 != '.'; d2--)
		;
	if (d2 <= h)
		return -1;
	for (d1 = d2 - 1; d1 > h && *d1 != '.'; d1--)
		;
	if (d1 <= h || (size_t)(d2 - d1 - 1) >= n)
		return -1;
	memcpy(hostp, d1 + 1, (size_t)(d2 - d1 - 1));
	hostp[d2 - d1 - 1] = '\0';
	*pid = strtol(d2 + 1, NULL, 10);
	*start = strtoull(d3 + 1, NULL, 10);
	return *pid > 0 && *start > 0 ? 0 : -1;
}

/* Whether a record of cur/ is stale; its run/pid file in pi, when there
 * is one (*have_pi). */
static int
stale(const struct runctx *c, const struct ar_lease *l, const char *exp,
    struct pinfo *pi, int *have_pi)
{
	char h[64];
	long pid;
	unsigned long long start;

	*have_pi = pinfo_read(c, exp, pi) == 0;
	if (strcmp(l->holder, c->lease_holder) == 0)
		return 0;
	if (lease_owner(l->holder, h, sizeof h, &pid, &start) == 0 &&
	    strcmp(h, c->host_short) == 0 && !ar_proc_alive(pid, start))
		return 1;
	return l->expires < now_s();
}

/* Breaks a booking whose owner is dead and whose experiment runs
 * nowhere. */
static void
stale_booking(const char *node, int slot, const struct ar_booking *bk,
    const char *path, void *arg)
{
	struct runctx *c = arg;
	struct pinfo pi;
	int have;
	char *t;

	(void)slot;
	if (!bk || bk->pid == (long)c->self_pid)
		return;
	have = pinfo_read(c, bk->exp, &pi) == 0;
	if (kill((pid_t)bk->pid, 0) == 0 || errno != ESRCH) {
		/* A live pid may still be a reused one: the run/pid file's
		 * start time tells. */
		if (!have || pi.owner != bk->pid ||
		    ar_proc_alive(pi.owner, pi.owner_start))
			return;
	}
	if (have && pi.owner == bk->pid && strcmp(pi.host, c->host) == 0 &&
	    pi.child && ar_proc_alive(pi.child, pi.child_start) &&
	    bk->expires >= now_s())
		return;
	t = ar_tmpname(c->gdir, "broken");
	if (rename(path, t) == 0) {
		ar_warn("freed %s@%d, booked by dead process %ld for %s", node,
		    slot, bk->pid, bk->exp);
		unlink(t);
	}
	free(t);
}

/* Temporary files that a writer killed mid-write left in run/: an hour
 * is far longer than any write takes. */
static void
free_stale_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p;

		if (strncmp(de->d_name, ".tmp-", 5) != 0)
			continue;
		p = ar_path(dir, de->d_name);
		if (lstat(p, &st) == 0 && st.st_mtime < time(NULL) - 3600)
			unlink(p);
		free(p);
	}
	closedir(d);
}

/* run/pid files of dead owners whose experiment is no longer claimed;
 * cur lists the experiments of cur/'s records. */
static void
free_stale_pids(struct runctx *c, char **cur, size_t nc)
{
	char **names;
	size_t n, i, j;

	if (ar_spool_list(c->camp, "run/pid", &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		struct pinfo pi;
		char *p;

		if (pinfo_read(c, names[i], &pi) < 0 || strcmp(pi.host,
		    c->host) || ar_proc_alive(pi.owner, pi.owner_start) ||
		    exp_running(c, names[i]))
			continue;
		for (j = 0; j < nc; j++)
			if (strcmp(cur[j], names[i]) == 0)
				break;
		if (j < nc || (pi.child && ar_proc_alive(pi.child,
		    pi.child_start)) || job_file_exists(c, names[i]))
			continue;
		p = ar_path(c->piddir, names[i]);
		unlink(p);
		free(p);
	}
	ar_spool_free_list(names, n);
}

/* Takes over a stale record of cur/ under our lease: a new run, or NULL when
 * another took it first. */
static struct run *
take_over(struct runctx *c, const struct ar_lease *l, json_t *o,
    const struct pinfo *pi, int have)
{
	struct ar_lease nl = *l;
	char oname[3 * AR_ID_MAX], nname[3 * AR_ID_MAX], *src, *dst;
	struct run *r;
	int mv;

	nl.expires = now_s() + c->lease_s;
	snprintf(nl.holder, sizeof nl.holder, "%s", c->lease_holder);
	ar_spool_lease_name(oname, sizeof oname, l);
	ar_spool_lease_name(nname, sizeof nname, &nl);
	src = ar_spool_path(c->qdir, "cur", oname);
	dst = ar_spool_path(c->qdir, "cur", nname);
	mv = rename(src, dst);
	free(src);
	free(dst);
	if (mv < 0) {
		json_decref(o);
		return NULL;
	}
	r = run_new(c);
	r->l = nl;
	r->o = o ? o : json_object();
	r->renewed = now_s();
	ar_assign_parse(r->o, l->id, &r->r);
	ar_warn("%s: taking over from %s (%s)", r->r.experiment, l->holder,
	    have ? "its runner died" : "lease expired");
	if (have && pi->slots[0] && ar_assign_gpus(pi->slots, r->slot,
	    AR_ASSIGN_GPUS, &r->nslot) < 0)
		r->nslot = 0;
	if (have && pi->started)
		r->started = pi->started;
	if (have && strcmp(pi->host, c->host) == 0 && pi->child)
		kill_wait(pi->child, pi->child_start);
	return r;
}

static void
drop_bookings_of(const char *node, int slot, const struct ar_booking *bk,
    const char *path, void *arg)
{
	(void)node;
	(void)slot;
	if (bk && strcmp(bk->exp, arg) == 0)
		unlink(path);
}

/* Takes over the stale records of cur/; a local one is decided by the
 * ledger, a Slurm one adopted. */
void
recover(struct runctx *c)
{
	char **names, **curexp;
	size_t n, i, nt = 0, ncur = 0;
	struct run **taken;
	struct lfind lf;

	c->last_recover = now_s();
	if (ar_spool_list(c->qdir, "cur", &names, &n) < 0) {
		ar_warn("%s/cur:", c->qdir);
		return;
	}
	taken = ar_xcalloc(n ? n : 1, sizeof *taken);
	curexp = ar_xcalloc(n ? n : 1, sizeof *curexp);
	for (i = 0; i < n; i++) {
		struct ar_lease l;
		struct ar_assign a;
		struct pinfo pi;
		json_t *o;
		struct run *r;
		char *p;
		int have;

		if (ar_spool_parse(names[i], &l) < 0 || !l.expires)
			continue;
		p = ar_spool_path(c->qdir, "cur", names[i]);
		o = rec_load(p);
		free(p);
		if (o)
			ar_assign_parse(o, l.id, &a);
		else
			snprintf(a.experiment, sizeof a.experiment, "%s", l.id);
		curexp[ncur++] = ar_xstrdup(a.experiment);
		if (exp_running(c, a.experiment) || !stale(c, &l,
		    a.experiment, &pi, &have) ||
		    /* A Slurm job runs on without its ar-run: only an ar-run
		     * slurm adopts it. */
		    (c->backend == B_LOCAL && (job_file_exists(c,
		    a.experiment) || (have && strcmp(pi.slots, "slurm") ==
		    0)))) {
			json_decref(o);
			continue;
		}
		if (!(r = take_over(c, &l, o, &pi, have)))
			continue;
		if (c->backend == B_SLURM) {
			adopt_slurm(c, r);
			continue;
		}
		run_save(c, r);
		taken[nt++] = r;
	}
	ar_spool_free_list(names, n);
	lfind_init(&lf, nt);
	for (i = 0; i < nt; i++)
		lf.exp[i] = taken[i]->r.experiment;
	lf.n = nt;
	ledger_find(c, &lf);
	for (i = 0; i < nt; i++) {
		struct run *r = taken[i];
		double secs = r->started ? (double)(now_s() - r->started) : -1;

		/* The bookings the dead runner held become ours to free. */
		ar_booking_each(c->camp, drop_bookings_of, r->r.experiment);
		snprintf(r->jnode, sizeof r->jnode, "local");
		if (lf.found[i])
			conclude(c, r, "done", NULL, lf.verdict[i], lf.id[i],
			    secs);
		else
			conclude(c, r, "requeue", "its runner died", NULL, NULL,
			    -1);
		run_free(c, r);
	}
	lfind_free(&lf);
	free(taken);
	if (c->backend == B_LOCAL)
		ar_booking_each(c->camp, stale_booking, c);
	free_stale_pids(c, curexp, ncur);
	for (i = 0; i < ncur; i++)
		free(curexp[i]);
	free(curexp);
	free_stale_tmp(c->gdir);
	free_stale_tmp(c->piddir);
	free_stale_tmp(c->jobdir);
	free_stale_tmp(c->trydir);
}
