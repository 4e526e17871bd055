/* status.c: ar-run status: what runs in a campaign, from run/pid (one
 * line per experiment, with its state: submitted, running, booked,
 * stale, expired or unknown) and the bookings of run/gpus that no run/pid
 * file explains. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "booking.h"
#include "err.h"
#include "proc.h"
#include "timefmt.h"
#include "tsv.h"
#include "run.h"

static void
fmt_time(char *out, size_t n, long long t)
{
	struct timespec ts = { (time_t)t, 0 };

	out[0] = '\0';
	if (t)
		ar_time_fmt(out, n, ts, 0);
}

/* What a run/pid file says of its run. */
static const char *
state_of(const struct runctx *c, const struct pinfo *pi, int job,
    long long now)
{
	const char *state;

	if (job)
		state = "submitted";
	else if (strcmp(pi->host, c->host) != 0)
		state = "unknown";
	else if (!ar_proc_alive(pi->owner, pi->owner_start))
		state = "stale";
	else if (pi->child && ar_proc_alive(pi->child, pi->child_start))
		state = "running";
	else
		state = "booked";
	if (pi->expires && pi->expires < now && strcmp(state, "stale"))
		state = "expired";
	return state;
}

/* A booking whose experiment has no run/pid file. */
static void
lone_booking(const char *node, int slot, const struct ar_booking *bk,
    const char *path, void *arg)
{
	const struct runctx *c = arg;
	struct pinfo pi;
	struct timespec ts = { 0, 0 };
	char expires[32];

	(void)node;
	(void)path;
	if (!bk || pinfo_read(c, bk->exp, &pi) == 0)
		return;
	ts.tv_sec = (time_t)bk->expires;
	ar_time_fmt(expires, sizeof expires, ts, 0);
	ar_tsv_put(stdout, bk->exp);
	printf("\tlocal\t%d\t", slot);
	ar_tsv_put(stdout, bk->holder);
	printf("\t\t%ld\t\t\t\t%s\t%s\n", bk->pid, expires,
	    kill((pid_t)bk->pid, 0) == 0 || errno != ESRCH ? "booked" :
	    "stale");
}

int
cmd_status(struct runctx *c)
{
	char **names;
	size_t n, i;
	long long now = now_s();

	printf("experiment\tbackend\tgpus\tholder\thost\tpid\tchild\tjob\t"
	    "started\texpires\tstate\n");
	if (ar_spool_list(c->camp, "run/pid", &names, &n) < 0)
		ar_die(AR_EX_NOINPUT, "%s:", c->piddir);
	for (i = 0; i < n; i++) {
		struct pinfo pi;
		char jid[64], started[32], expires[32];
		int job = job_load(c, names[i], jid, sizeof jid, NULL, 0) == 0;

		if (pinfo_read(c, names[i], &pi) < 0)
			continue;
		fmt_time(started, sizeof started, pi.started);
		fmt_time(expires, sizeof expires, pi.expires);
		ar_tsv_put(stdout, pi.exp);
		printf("\t%s\t", job ? "slurm" : "local");
		ar_tsv_put(stdout, pi.slots);
		putchar('\t');
		ar_tsv_put(stdout, pi.holder);
		putchar('\t');
		ar_tsv_put(stdout, pi.host);
		printf("\t%ld\t", pi.owner);
		if (pi.child)
			printf("%ld", pi.child);
		putchar('\t');
		if (job)
			printf("%s", jid);
		printf("\t%s\t%s\t%s\n", started, expires, state_of(c, &pi, job,
		    now));
	}
	ar_spool_free_list(names, n);
	ar_booking_each(c->camp, lone_booking, (void *)c);
	return AR_EX_OK;
}
