/* serve.c: the serving loop of ar-run local and ar-run slurm: claims what
 * fits (a rename of new/NAME into cur/ under our lease), starts it on
 * this machine or hands it to Slurm, renews the leases of what runs,
 * takes over stale records now and then, and stops on a signal. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "json.h"
#include "run.h"

volatile sig_atomic_t got_term, got_chld;

static void
on_term(int s)
{
	(void)s;
	got_term++;
}

static void
on_chld(int s)
{
	(void)s;
	got_chld = 1;
}

/* The handlers; the signals stay blocked but while nap waits. */
static void
setup_signals(struct runctx *c)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_chld;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &c->orig_mask);
}

/* Sleeps up to secs, waking at once for a signal. */
void
nap(double secs)
{
	struct timespec ts;
	sigset_t open;

	sigemptyset(&open);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	ppoll(NULL, 0, &ts, &open);
}

/* ---- claiming ---- */

/* Claims new/NAME by renaming it into cur/ under our lease. */
static int
claim_name(struct runctx *c, const char *name, struct ar_lease *l)
{
	char lname[3 * AR_ID_MAX];
	char *src, *dst;
	int r;

	if (ar_spool_parse(name, l) < 0 || l->expires)
		return -1;
	l->expires = now_s() + c->lease_s;
	snprintf(l->holder, sizeof l->holder, "%s", c->lease_holder);
	ar_spool_lease_name(lname, sizeof lname, l);
	src = ar_spool_path(c->qdir, "new", name);
	dst = ar_spool_path(c->qdir, "cur", lname);
	r = rename(src, dst);
	free(src);
	free(dst);
	return r;
}

static void
shape_free(struct shape *sh)
{
	free(sh->name);
	free(sh->gpus);
}

/* The shapes of new/'s records, in claim order, from the cache where it
 * has them. */
static void
shapes_update(struct runctx *c, char **names, size_t n)
{
	struct shape *ns = ar_xcalloc(n ? n : 1, sizeof *ns);
	size_t i, j = 0, m = 0;

	for (i = 0; i < n; i++) {
		struct ar_lease l;
		struct ar_assign a;
		json_t *o;
		char *p;
		int cmp = 1;

		if (ar_spool_parse(names[i], &l) < 0 || l.expires)
			continue;
		while (j < c->nshapes && (cmp = strcmp(c->shapes[j].name,
		    names[i])) < 0)
			shape_free(&c->shapes[j++]);
		if (j < c->nshapes && cmp == 0) {
			ns[m++] = c->shapes[j++];
			continue;
		}
		p = ar_spool_path(c->qdir, "new", names[i]);
		o = rec_load(p);
		free(p);
		if (!o && errno == ENOENT)
			continue;      /* another took it */
		memset(&ns[m], 0, sizeof ns[m]);
		ns[m].name = ar_xstrdup(names[i]);
		if (o) {
			ar_assign_parse(o, l.id, &a);
			snprintf(ns[m].exp, sizeof ns[m].exp, "%s",
			    a.experiment);
			ns[m].k = a.k;
			ns[m].bad = a.bad[0] != '\0' || (c->backend ==
			    B_LOCAL && (size_t)a.k > inv_slots(c));
			if (a.ngpus) {
				ns[m].gpus = ar_xmalloc(a.ngpus *
				    sizeof *ns[m].gpus);
				memcpy(ns[m].gpus, a.gpus, a.ngpus *
				    sizeof *a.gpus);
				ns[m].ngpus = a.ngpus;
			}
		} else
			ns[m].bad = 1;
		json_decref(o);
		m++;
	}
	while (j < c->nshapes)
		shape_free(&c->shapes[j++]);
	free(c->shapes);
	c->shapes = ns;
	c->nshapes = m;
}

static size_t
free_slots(const struct runctx *c)
{
	const struct ar_snode *nd;
	size_t n = 0;
	int p;

	if (!c->inv.n)
		return 0;
	nd = &c->inv.node[c->inode];
	for (p = 0; p < nd->n; p++)
		n += !(nd->busy >> p & 1);
	return n;
}

/* Starts a record claimed as r, or decides it at once. 1 when it runs
 * (or waits in pend for sbatch), 0 when it ended or went back. */
static int
start_claimed(struct runctx *c, struct run *r, const int *slot,
    struct run ***pend, size_t *npend)
{
	if (r->r.bad[0]) {
		conclude(c, r, "failed", r->r.bad, NULL, NULL, -1);
		run_free(c, r);
		return 0;
	}
	if (earlier_result(c, r)) {
		run_free(c, r);
		return 0;
	}
	if (c->backend == B_SLURM) {
		/* A record put back in new/ (a reap by hand) while its job
		 * still runs: that job is adopted, never submitted twice. */
		if (job_file_exists(c, r->r.experiment)) {
			adopt_slurm(c, r);
			return 1;
		}
		/* Submitted after the round, so that records of one k can
		 * go out as one array. */
		run_save(c, r);
		*pend = ar_xrealloc(*pend, (*npend + 1) * sizeof **pend);
		(*pend)[(*npend)++] = r;
		return 1;
	}
	memcpy(r->slot, slot, (size_t)r->r.k * sizeof *slot);
	r->nslot = (size_t)r->r.k;
	run_save(c, r);
	if (book(c, r) < 0) {
		/* Another process booked one of them first. */
		r->nslot = 0;
		conclude(c, r, "requeue", NULL, NULL, NULL, -1);
		run_free(c, r);
		booked_now(c);
		return 0;
	}
	if (start_local(c, r) < 0) {
		run_free(c, r);
		return 0;
	}
	return 1;
}

/* Claims and starts what fits now; returns how many started. */
static size_t
claim_fitting(struct runctx *c)
{
	char **names;
	size_t n, i, started = 0, npend = 0;
	struct run **pend = NULL;

	if (c->nruns >= (size_t)c->maxpar || mono() < c->sbatch_retry)
		return 0;
	if (ar_spool_list(c->qdir, "new", &names, &n) < 0) {
		ar_warn("%s/new:", c->qdir);
		c->io_errors++;
		return 0;
	}
	shapes_update(c, names, n);
	ar_spool_free_list(names, n);
	if (c->backend == B_LOCAL)
		booked_now(c);
	for (i = 0; i < c->nshapes && c->nruns < (size_t)c->maxpar &&
	    !got_term; i++) {
		struct shape *sh = &c->shapes[i];
		struct ar_lease l;
		char lname[3 * AR_ID_MAX], *p;
		int slot[AR_ASSIGN_GPUS];
		struct run *r;

		if (!sh->bad) {
			if (exp_running(c, sh->exp))
				continue;
			if (c->backend == B_LOCAL && ((size_t)sh->k >
			    free_slots(c) || place(c, sh->k, sh->gpus,
			    sh->ngpus, slot) < 0))
				continue;
		}
		if (claim_name(c, sh->name, &l) < 0)
			continue;
		ar_spool_lease_name(lname, sizeof lname, &l);
		p = ar_spool_path(c->qdir, "cur", lname);
		r = run_new(c);
		r->l = l;
		r->o = rec_load(p);
		r->renewed = now_s();
		free(p);
		if (!r->o) {
			snprintf(r->r.experiment, sizeof r->r.experiment, "%s",
			    l.id);
			conclude(c, r, "failed", "unreadable record", NULL,
			    NULL, -1);
			run_free(c, r);
			continue;
		}
		ar_assign_parse(r->o, l.id, &r->r);
		if (!r->r.bad[0] && c->backend == B_LOCAL && (size_t)r->r.k >
		    inv_slots(c))
			snprintf(r->r.bad, sizeof r->r.bad, "k=%ld: the "
			    "inventory has %zu %s", r->r.k, inv_slots(c),
			    c->cpu ? "CPUs" : "GPUs");
		started += (size_t)start_claimed(c, r, slot, &pend, &npend);
	}
	if (npend)
		started -= submit_pending(c, pend, npend);
	free(pend);
	return started;
}

/* Whether new/ holds any record. */
static int
queue_waiting(const struct runctx *c)
{
	char **names;
	size_t n, i;
	struct ar_lease l;
	int any = 0;

	if (ar_spool_list(c->qdir, "new", &names, &n) < 0)
		return 1;
	for (i = 0; i < n && !any; i++)
		if (ar_spool_parse(names[i], &l) == 0 && !l.expires)
			any = 1;
	ar_spool_free_list(names, n);
	return any;
}

/* Renews the leases, bookings and run/pid files that are due; a lease
 * found lost means another process took the record: our run stops. */
static void
renew_due(struct runctx *c)
{
	long long now = now_s(), every = c->lease_s / 3 > 0 ? c->lease_s / 3 :
	    1;
	size_t i;

	for (i = 0; i < c->nruns; i++) {
		struct run *r = c->runs[i];
		int rc;

		if (r->lost || now - r->renewed < every)
			continue;
		rc = ar_spool_renew(c->qdir, &r->l, now + c->lease_s);
		r->renewed = now;
		if (rc == AR_SP_GONE) {
			ar_warn("%s: lease lost; stopping its run",
			    r->r.experiment);
			r->lost = 1;
			if (r->pid)
				kill(-r->pid, SIGKILL);
			continue;
		}
		if (rc != AR_SP_OK) {
			ar_warn("%s: renew %s:", c->qdir, r->r.experiment);
			continue;
		}
		run_save(c, r);
		renew_bookings(c, r);
	}
}

/* ---- the loop ---- */

int
serve(struct runctx *c)
{
	int once_done = 0;
	double poll_s = c->backend == B_SLURM ? 1.0 : 0.2;
	double last_poll = 0;
	const char *ps = getenv("AR_RUN_POLL");
	double d;

	if (ps && ar_parse_double(ps, &d) == 0 && d > 0.01 && d < 3600)
		poll_s = d;
	setup_signals(c);
	print_header(c);
	recover(c);
	for (;;) {
		if (got_term)
			break;
		if (c->backend == B_SLURM)
			got_chld = 0;   /* squeue's and sbatch's, reaped */
		if (c->backend == B_LOCAL) {
			reap_children(c);
			check_limits(c);
		} else if (mono() - last_poll >= poll_s) {
			poll_jobs(c);
			last_poll = mono();
		}
		renew_due(c);
		if (now_s() - c->last_recover >= 2 && !once_done)
			recover(c);
		if (!once_done && !got_term)
			claim_fitting(c);
		if (c->mode == M_ONCE)
			once_done = 1;
		if (c->mode == M_ONCE && c->nruns == 0)
			break;
		if (c->mode == M_DRAIN && c->nruns == 0 && !queue_waiting(c))
			break;
		if (!got_chld && !got_term)
			nap(poll_s);
	}
	while (c->nshapes)
		shape_free(&c->shapes[--c->nshapes]);
	free(c->shapes);
	c->shapes = NULL;
	if (got_term) {
		if (c->backend == B_LOCAL)
			shutdown_local(c);
		else {
			/* The jobs run on; a restart adopts them. */
			while (c->nruns)
				run_free(c, c->runs[0]);
		}
		ar_warn("interrupted");
		return AR_EX_TEMPFAIL;
	}
	if (c->io_errors)
		return AR_EX_IO;
	return c->failures ? AR_EX_NO : AR_EX_OK;
}
