/* gpus.c: ar-sched gpus and pack, and what every subcommand that places
 * work needs: the inventory from its sources (a topology file, --gpus,
 * --cpus, Slurm's sinfo or NVML, through lib/inventory) and what is busy
 * on it (ar-run's bookings, lib/booking, and the queue's placed records,
 * lib/assign). The packer itself is lib/pack. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "booking.h"
#include "buf.h"
#include "err.h"
#include "host.h"
#include "io.h"
#include "pack.h"
#include "policy.h"
#include "proc.h"
#include "spool.h"
#include "tsv.h"
#include "sched.h"

int
src_opt(struct src *s, int c, const char *arg)
{
	long long v;

	switch (c) {
	case 'g':
		s->file = arg;
		s->n++;
		return 1;
	case O_GPUS:
		if (ar_parse_long(arg, &v) < 0 || v < 1 || v > AR_SLOTS_MAX)
			ar_die(AR_EX_USAGE, "--gpus %s: a GPU count from 1 to %d",
			    arg, AR_SLOTS_MAX);
		s->gpus = (long)v;
		s->n++;
		return 1;
	case O_PAIRS:
		s->pairs = 1;
		return 1;
	case O_CPUS:
		s->cpus = 1;
		s->n++;
		return 1;
	case O_SLURM:
		s->slurm = 1;
		s->n++;
		return 1;
	}
	return 0;
}

/* sinfo's answer, one node per line; SINFO names another program. */
static void
load_slurm(struct ar_inv *inv)
{
	const char *prog = getenv("SINFO");
	char *argv[] = { NULL, "-h", "-N", "-o", "%N %G", NULL };
	struct ar_buf out = {0}, line = {0};
	char err[256];
	int st;
	size_t lineno = 0;
	FILE *f;

	if (!prog || !prog[0])
		prog = "sinfo";
	argv[0] = (char *)prog;
	st = ar_capture(argv, AR_FD_KEEP, &out, (size_t)64 << 20);
	if (st < 0 && errno != EFBIG)
		ar_die(AR_EX_UNAVAILABLE, "%s: cannot run: %s (no Slurm "
		    "here?)", prog, strerror(errno));
	if (st != 0)
		ar_die(AR_EX_UNAVAILABLE, "%s: failed (%s %d)", prog,
		    st < 0 ? "output over" : st > 128 ? "signal" :
		    "exit status", st < 0 ? 64 << 20 : st > 128 ? st - 128 :
		    st);
	if (!(f = fmemopen(out.p, out.len ? out.len : 1, "r")))
		ar_die(AR_EX_SOFTWARE, "fmemopen:");
	while (out.len && (st = ar_getline(f, &line, AR_LINE_MAX)) ==
	    AR_LINE_OK) {
		lineno++;
		if (ar_inv_sinfo_line(inv, line.p, err, sizeof err) < 0)
			ar_die(AR_EX_DATA, "%s: line %zu: %s", prog, lineno, err);
	}
	if (out.len && st != AR_LINE_EOF)
		ar_die(AR_EX_DATA, "%s: line %zu: unreadable", prog, lineno + 1);
	fclose(f);
	ar_buf_free(&line);
	ar_buf_free(&out);
}

void
load_inv(struct ar_inv *inv, const struct src *s)
{
	const char *host = ar_host_short();
	char err[512];

	if (s->n > 1)
		ar_die(AR_EX_USAGE, "-g, --gpus, --cpus and --slurm exclude "
		    "each other");
	if (s->pairs && !s->gpus)
		ar_die(AR_EX_USAGE, "--pairs goes with --gpus");
	if (s->file) {
		FILE *f = strcmp(s->file, "-") ? fopen(s->file, "r") : stdin;

		if (!f)
			ar_die(errno == ENOENT || errno == EACCES ?
			    AR_EX_NOINPUT : AR_EX_IO, "%s:", s->file);
		if (ar_inv_read(inv, f, s->file, err, sizeof err) < 0)
			ar_die(AR_EX_DATA, "%s", err);
		if (f != stdin)
			fclose(f);
	} else if (s->gpus) {
		ar_inv_gpus(inv, host, (int)s->gpus, s->pairs);
	} else if (s->cpus) {
		if (ar_inv_cpus(inv, host, err, sizeof err) < 0)
			ar_die(AR_EX_UNAVAILABLE, "%s", err);
	} else if (s->slurm) {
		load_slurm(inv);
	} else if (ar_inv_nvml(inv, host, err, sizeof err) < 0) {
		ar_die(AR_EX_UNAVAILABLE, "%s", err);
	}
}

/* ---- gpus ---- */

int
cmd_gpus(int argc, char **argv)
{
	static const struct option lo[] = { INV_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct src s = {0};
	struct ar_inv inv;
	int c;

	while ((c = getopt_long(argc, argv, "g:", lo, NULL)) != -1)
		if (!src_opt(&s, c, optarg))
			ar_usage(USAGE_GPUS);
	if (optind != argc)
		ar_usage(USAGE_GPUS);
	ar_inv_init(&inv);
	load_inv(&inv, &s);
	ar_inv_write(&inv, stdout);
	ar_fshut(stdout, "<stdout>");
	ar_inv_free(&inv);
	return AR_EX_OK;
}

/* ---- what is busy: bookings and queued records ---- */

long
node_of(const struct ar_inv *inv, const char *name)
{
	long i = ar_inv_find(inv, name);
	size_t j;

	if (i >= 0)
		return i;
	if (strcmp(name, "local") == 0) {
		i = ar_inv_find(inv, ar_host_short());
		return i >= 0 ? i : inv->n == 1 ? 0 : -1;
	}
	/* The long form of a short name, or the other way round. */
	for (j = 0; j < inv->n; j++)
		if (ar_host_same(inv->node[j].name, name))
			return (long)j;
	return -1;
}

static void
mark_busy(struct ar_inv *inv, long node, const int *ids, size_t n,
    double until)
{
	struct ar_snode *nd;
	size_t i;

	if (node < 0)
		return;
	nd = &inv->node[node];
	for (i = 0; i < n; i++) {
		int pos = ar_inv_pos(nd, ids[i]);

		if (pos >= 0 && !(nd->busy >> pos & 1)) {
			nd->busy |= (uint64_t)1 << pos;
			nd->until[pos] = until;
		} else if (pos >= 0 && until > nd->until[pos]) {
			nd->until[pos] = until;
		}
	}
}

static void
booked(const char *node, int slot, const struct ar_booking *b,
    const char *path, void *arg)
{
	struct ar_inv *inv = arg;

	(void)path;
	mark_busy(inv, node_of(inv, node), &slot, 1, b && b->expires > 0 ?
	    (double)b->expires : INFINITY);
}

/* The slots ar-run has booked (lib/booking). */
void
read_bookings(struct ar_inv *inv, const char *camp)
{
	if (ar_booking_each(camp, booked, inv) < 0 && errno != ENOENT)
		ar_die(AR_EX_IO, "%s/run/gpus:", camp);
}

void
spool_each(const char *dir, const char *const *subs, rec_fn fn, void *arg)
{
	size_t s, i, n;
	char **names;

	for (s = 0; subs[s]; s++) {
		if (ar_spool_list(dir, subs[s], &names, &n) < 0) {
			if (errno == ENOENT)
				continue;
			ar_die(AR_EX_IO, "%s/%s:", dir, subs[s]);
		}
		for (i = 0; i < n; i++) {
			char *path = ar_spool_path(dir, subs[s], names[i]);
			struct ar_buf b = {0};
			char err[256];
			json_t *j;

			/* A record claimed or finished meanwhile is gone:
			 * it is simply not counted. */
			if (ar_readfile(path, &b, AR_LINE_MAX) == 0) {
				j = ar_json_parse(b.p, b.len, err, sizeof err);
				if (j && json_is_object(j))
					fn(j, arg);
				else if (!j)
					ar_warn("%s: %s; left out", path, err);
				json_decref(j);
			}
			ar_buf_free(&b);
			free(path);
		}
		ar_spool_free_list(names, n);
	}
}

const char *
jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

void
busy_placed(struct ar_inv *inv, const char *node, const int *gpus, size_t n)
{
	/* Placed but not yet booked by ar-run: those GPUs are promised. */
	if (node && n)
		mark_busy(inv, node_of(inv, node), gpus, n, INFINITY);
}

static void
queued_busy(json_t *rec, void *arg)
{
	struct ar_inv *inv = arg;
	struct ar_assign a;

	ar_assign_parse(rec, "", &a);
	busy_placed(inv, a.node, a.gpus, a.ngpus);
}

void
load_busy(struct ar_inv *inv, const char *camp)
{
	static const char *const subs[] = { "new", "cur", NULL };
	char *q = ar_path(camp, "queue");

	read_bookings(inv, camp);
	spool_each(q, subs, queued_busy, inv);
	free(q);
}

/* ---- pack ---- */

int
cmd_pack(int argc, char **argv)
{
	static const struct option lo[] = { INV_LONGOPTS, { NULL, 0, NULL, 0 } };
	const char *camp = NULL;
	struct src s = {0};
	struct ar_inv inv;
	int c, i, rc = AR_EX_OK, reserved = 0;

	while ((c = getopt_long(argc, argv, "C:g:", lo, NULL)) != -1) {
		if (c == 'C')
			camp = optarg;
		else if (!src_opt(&s, c, optarg))
			ar_usage(USAGE_PACK);
	}
	if (optind == argc)
		ar_usage(USAGE_PACK);
	for (i = optind; i < argc; i++) {
		long long k;

		if (ar_parse_long(argv[i], &k) < 0 || ar_pol_kindex(k) < 0)
			ar_die(AR_EX_USAGE, "%s: a bundle is 1, 2, 4 or 8 GPUs",
			    argv[i]);
	}
	ar_inv_init(&inv);
	load_inv(&inv, &s);
	if (camp)
		load_busy(&inv, camp);
	ar_pack_index(&inv);
	puts("k\tnode\tgpus");
	for (i = optind; i < argc; i++) {
		int k = atoi(argv[i]);
		struct ar_place p;
		char ids[512];
		size_t rn;
		double when;

		if (!ar_pack_find(&inv, k, 0, INFINITY, &p)) {
			/* The first that waits keeps a node; the rest go
			 * elsewhere, so it does not starve. */
			if (k > ar_inv_maxslots(&inv))
				ar_warn("k=%d: no node has %d GPUs", k, k);
			else if (!reserved && k > 1 &&
			    ar_pack_reserve(&inv, k, 0, &rn, &when)) {
				reserved = 1;
				ar_warn("k=%d fits nowhere now; node %s is kept "
				    "for it", k, inv.node[rn].name);
			} else {
				ar_warn("k=%d fits nowhere now", k);
			}
			rc = AR_EX_TEMPFAIL;
			continue;
		}
		ar_pack_take(&inv, &p, INFINITY);
		ar_place_ids(&inv, &p, ids, sizeof ids);
		printf("%d\t", k);
		ar_tsv_put(stdout, inv.node[p.node].name);
		printf("\t%s\n", ids);
	}
	ar_fshut(stdout, "<stdout>");
	ar_inv_free(&inv);
	return rc;
}

