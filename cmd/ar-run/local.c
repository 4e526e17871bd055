/* local.c: the local backend: the inventory of this machine (lib/
 * inventory), the bookings of its slots as run/gpus/local@SLOT (lib/
 * booking), where a bundle goes (lib/pack), and the ar-bench processes:
 * started pinned and in their own group (lib/proc), reaped, killed at the
 * time limit, stopped on a signal. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "booking.h"
#include "err.h"
#include "io.h"
#include "pack.h"
#include "proc.h"
#include "run.h"

/* Bookings and inventories call this machine "local". */
static const char node_name[] = "local";

/* ---- the inventory ---- */

/* A topology file (ar-sched gpus): the rows of this host, or of "local",
 * or else of the file's only node. */
static void
inv_file(struct runctx *c, const char *file)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	char err[512];
	const struct ar_snode *nd;
	long i;
	int p, ncpu = 0;

	if (!f)
		ar_die(AR_EX_NOINPUT, "%s:", file);
	if (ar_inv_read(&c->inv, f, file, err, sizeof err) < 0)
		ar_die(AR_EX_DATA, "%s", err);
	if (f != stdin)
		fclose(f);
	if (c->inv.n == 0)
		ar_die(AR_EX_DATA, "%s: no GPUs or CPUs listed", file);
	if ((i = ar_inv_local(&c->inv)) < 0)
		ar_die(AR_EX_DATA, "%s: lists several nodes and none is this "
		    "host (%s) or \"local\"", file, c->host);
	c->inode = (size_t)i;
	nd = &c->inv.node[i];
	for (p = 0; p < nd->n; p++)
		ncpu += strcmp(nd->model[p], "cpu") == 0;
	if (ncpu && ncpu < nd->n)
		ar_die(AR_EX_DATA, "%s: mixes CPU slots and GPUs on one node",
		    file);
	c->cpu = ncpu > 0;
}

static void
inv_cpus(struct runctx *c)
{
	char err[256];

	if (ar_inv_cpus(&c->inv, node_name, err, sizeof err) < 0)
		ar_die(AR_EX_SOFTWARE, "%s", err);
	c->inode = 0;
	c->cpu = 1;
}

/* The inventory: a topology file, n GPUs, the CPUs, or by default the
 * GPUs NVML sees, else the CPUs. */
void
inv_load(struct runctx *c, const char *topo, long ngpus, int cpus)
{
	char err[512];

	ar_inv_init(&c->inv);
	if (topo)
		inv_file(c, topo);
	else if (ngpus > 0) {
		ar_inv_gpus(&c->inv, node_name, (int)ngpus, 0);
		c->inode = 0;
	} else if (cpus)
		inv_cpus(c);
	else if (ar_inv_nvml(&c->inv, node_name, err, sizeof err) == 0 &&
	    c->inv.n == 1 && c->inv.node[0].n > 0)
		c->inode = 0;
	else {
		ar_inv_free(&c->inv);
		inv_cpus(c);
	}
	ar_pack_index(&c->inv);
}

/* How many slots the inventory has. */
size_t
inv_slots(const struct runctx *c)
{
	return c->inv.n ? (size_t)c->inv.node[c->inode].n : 0;
}

/* ---- bookings ---- */

static void
mark_booked(const char *node, int slot, const struct ar_booking *b,
    const char *path, void *arg)
{
	struct ar_snode *nd = arg;
	int p;

	(void)b;
	(void)path;
	if (strcmp(node, node_name) == 0 && (p = ar_inv_pos(nd, slot)) >= 0)
		nd->busy |= (uint64_t)1 << p;
}

/* The slots booked now, by anyone, as the inventory's busy marks. */
void
booked_now(struct runctx *c)
{
	struct ar_snode *nd;

	if (!c->inv.n)
		return;
	nd = &c->inv.node[c->inode];
	nd->busy = 0;
	ar_booking_each(c->camp, mark_booked, nd);
	ar_pack_index(&c->inv);
}

/* Where a bundle of k goes now: the record's own slots (want) when all
 * are free, else a free block that the packer picks. 0 with k slot ids in
 * slot, -1 when nothing fits. */
int
place(struct runctx *c, long k, const int *want, size_t nwant, int *slot)
{
	struct ar_place p;

	if (!c->inv.n || !ar_pack_choose_on(&c->inv, c->inode, (int)k, want,
	    nwant, &p, slot))
		return -1;
	return 0;
}

/* Books r's slots, all or none, and marks them busy. 0 booked; -1 when
 * another process booked one first, or a booking cannot be written. */
int
book(struct runctx *c, struct run *r)
{
	struct ar_booking b;
	struct ar_place pl = { .node = c->inode };
	size_t i;
	int rc, p;

	memset(&b, 0, sizeof b);
	snprintf(b.exp, sizeof b.exp, "%s", r->r.experiment);
	snprintf(b.holder, sizeof b.holder, "%s", c->holder);
	b.pid = (long)c->self_pid;
	b.expires = r->l.expires;
	rc = ar_booking_make(c->camp, node_name, r->slot, r->nslot, &b);
	if (rc < 0) {
		ar_warn("%s: booking %s:", c->gdir, r->r.experiment);
		c->io_errors++;
	}
	if (rc != 0)
		return -1;
	for (i = 0; i < r->nslot; i++)
		if ((p = ar_inv_pos(&c->inv.node[c->inode], r->slot[i])) >= 0)
			pl.mask |= (uint64_t)1 << p;
	ar_pack_take(&c->inv, &pl, 0);
	return 0;
}

/* Rewrites r's bookings with its lease's expiry, where they are ours. */
void
renew_bookings(struct runctx *c, const struct run *r)
{
	struct ar_booking b;
	size_t i;

	memset(&b, 0, sizeof b);
	snprintf(b.exp, sizeof b.exp, "%s", r->r.experiment);
	snprintf(b.holder, sizeof b.holder, "%s", c->holder);
	b.pid = (long)c->self_pid;
	b.expires = r->l.expires;
	for (i = 0; i < r->nslot; i++)
		if (ar_booking_renew(c->camp, node_name, r->slot[i], &b) < 0) {
			char *p = ar_booking_path(c->camp, node_name,
			    r->slot[i]);

			ar_warn("%s:", p);
			free(p);
		}
}

/* Drops r's bookings, those still ours. */
void
release_slots(struct runctx *c, struct run *r)
{
	size_t i;

	for (i = 0; i < r->nslot; i++)
		ar_booking_drop(c->camp, node_name, r->slot[i],
		    r->r.experiment, (long)c->self_pid);
	r->nslot = 0;
}

/* ---- ar-bench processes ---- */

/* Starts ar-bench for r on its slots: GPUs through -G and
 * CUDA_VISIBLE_DEVICES, or CPUs through its affinity; its own process
 * group, so that a kill reaches everything it started, and it dies with
 * ar-run. 0 when it runs; -1 when r has ended already: its logs cannot be
 * opened (a failure), or ar-bench cannot start (decided as its exit 127
 * would be, with the reason in its .err). */
int
start_local(struct runctx *c, struct run *r)
{
	char list[4096];
	char **av, **env;
	char *out = ar_xasprintf("%s/%s.out", c->logdir, r->r.experiment);
	char *err = ar_xasprintf("%s/%s.err", c->logdir, r->r.experiment);
	int fo = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int fe = open(err, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	struct ar_spawn s = {
		.in = AR_FD_NULL, .out = fo, .err = fe, .pgroup = -1,
		.die_with_parent = 1, .mask = &c->orig_mask,
		.cpus = c->cpu ? r->slot : NULL, .ncpu = c->cpu ? r->nslot : 0,
	};
	int rc = -1;

	if (fo < 0 || fe < 0) {
		ar_warn("%s:", fo < 0 ? out : err);
		conclude(c, r, "failed", "cannot start ar-bench", NULL, NULL,
		    -1);
		goto out;
	}
	slots_str(list, sizeof list, r->slot, r->nslot);
	av = bench_argv(c, r, c->cpu ? NULL : list);
	env = bench_env(c->cpu ? NULL : list);
	s.argv = av;
	s.env = env;
	r->started = now_s();
	r->t0 = mono();
	r->deadline = r->t0 + c->tlimit;
	if (ar_spawn(&s, &r->pid) == 0) {
		r->pstart = ar_proc_start(r->pid);
		run_save(c, r);
		progress(c, "%s: started on %s %s", r->r.experiment, c->cpu ?
		    "CPUs" : "GPUs", list);
		rc = 0;
	} else {
		dprintf(fe, "%s: %s: %s\n", ar_prog(), av[0], strerror(errno));
		r->pid = 0;
		judge(c, r, 127 << 8, 0, 0, 0);
	}
	free_argv(av);
	free_env(env);
out:
	if (fo >= 0)
		close(fo);
	if (fe >= 0)
		close(fe);
	free(out);
	free(err);
	return rc;
}

/* Decides every child that ended. */
void
reap_children(struct runctx *c)
{
	pid_t p;
	int st;

	got_chld = 0;
	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		struct run *r = run_by_pid(c, p);
		double secs;

		if (!r)
			continue;
		/* What the run left behind in its group goes with it. */
		kill(-p, SIGKILL);
		secs = mono() - r->t0;
		r->pid = 0;
		if (r->lost) {
			release_slots(c, r);
			pinfo_remove(c, r->r.experiment);
		} else
			judge(c, r, st, r->stopped, r->timed_out, secs);
		run_free(c, r);
	}
}

/* The time limit: SIGTERM to the group, SIGKILL 5 s later. */
void
check_limits(struct runctx *c)
{
	double t = mono();
	size_t i;

	for (i = 0; i < c->nruns; i++) {
		struct run *r = c->runs[i];

		if (!r->pid)
			continue;
		if (!r->timed_out && t >= r->deadline) {
			ar_warn("%s: time limit of %.0f s reached; killing it",
			    r->r.experiment, c->tlimit);
			r->timed_out = 1;
			kill(-r->pid, SIGTERM);
			r->killat = t + 5;
		} else if (r->killat > 0 && t >= r->killat) {
			kill(-r->pid, SIGKILL);
			r->killat = 0;
		}
	}
}

/* SIGTERM or SIGINT: children are stopped, claims released. */
void
shutdown_local(struct runctx *c)
{
	double t0 = mono();
	int killed = 0;
	size_t i;

	for (i = 0; i < c->nruns; i++)
		if (c->runs[i]->pid) {
			c->runs[i]->stopped = 1;
			kill(-c->runs[i]->pid, SIGTERM);
		}
	while (c->nruns) {
		reap_children(c);
		if (!c->nruns)
			break;
		if (!killed && (mono() - t0 > 10 || got_term > 1)) {
			for (i = 0; i < c->nruns; i++)
				if (c->runs[i]->pid)
					kill(-c->runs[i]->pid, SIGKILL);
			killed = 1;
		}
		for (i = 0; i < c->nruns; ) {
			if (!c->runs[i]->pid) {
				conclude(c, c->runs[i], "requeue", "ar-run was "
				    "interrupted", NULL, NULL, -1);
				run_free(c, c->runs[i]);
			} else
				i++;
		}
		nap(0.05);
	}
}
