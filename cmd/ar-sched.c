/* ar-sched: what to measure next, at what scale and on which GPUs. gpus
 * prints the inventory; pack places bundles on what is free; next asks
 * the shared policy for the most valuable measurements and places them;
 * cluster simulates the packer on a large cluster. ar-sched(1) is the
 * contract. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "assign.h"
#include "booking.h"
#include "buf.h"
#include "campaign.h"
#include "conf.h"
#include "err.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "lock.h"
#include "manifest.h"
#include "proc.h"
#include "spool.h"
#include "stats.h"
#include "timefmt.h"
#include "tsv.h"
#include "landscape.h"
#include "policy.h"
#include "host.h"
#include "inventory.h"
#include "pack.h"


static const char usage_base[] =
	"gpus [-g file | --gpus n [--pairs] | --cpus | --slurm]\n"
	"pack [-C dir] [-g file | --gpus n [--pairs] | --cpus | --slurm] "
	"k ...\n"
	"next [-C dir] [-l ledger] [-m submissions] [-n max] [-w workload] "
	"[--put] [--noise-max r] [-g file | --gpus n [--pairs] | --cpus | "
	"--slurm]\n"
	"cluster [-N nodes] [-G gpus] [-p pending] [-R reservations] "
	"[-W window] [-s seed] [-d hours] [--check] [--no-reserve]";
/* With simulate's and landscape's forms, which lib/landscape.c owns. */
static char *usage;

enum { O_GPUS = 256, O_PAIRS, O_CPUS, O_SLURM, O_PUT, O_NOISE, O_CHECK,
	O_NORES };

#define INV_LONGOPTS \
	{ "gpus", required_argument, NULL, O_GPUS }, \
	{ "pairs", no_argument, NULL, O_PAIRS }, \
	{ "cpus", no_argument, NULL, O_CPUS }, \
	{ "slurm", no_argument, NULL, O_SLURM }

/* Where the inventory comes from. */
struct src {
	const char *file;
	long gpus;
	int pairs, cpus, slurm, n;
};

static int
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

static void
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

static int
cmd_gpus(int argc, char **argv)
{
	static const struct option lo[] = { INV_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct src s = {0};
	struct ar_inv inv;
	int c;

	while ((c = getopt_long(argc, argv, "g:", lo, NULL)) != -1)
		if (!src_opt(&s, c, optarg))
			ar_usage(usage);
	if (optind != argc)
		ar_usage(usage);
	ar_inv_init(&inv);
	load_inv(&inv, &s);
	ar_inv_write(&inv, stdout);
	ar_fshut(stdout, "<stdout>");
	ar_inv_free(&inv);
	return AR_EX_OK;
}

/* ---- what is busy: bookings and queued records ---- */

/* The node a booking or record names; "local" is this host, or the one
 * node of a one-node inventory. -1 when not in the inventory. */
static long
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
static void
read_bookings(struct ar_inv *inv, const char *camp)
{
	if (ar_booking_each(camp, booked, inv) < 0 && errno != ENOENT)
		ar_die(AR_EX_IO, "%s/run/gpus:", camp);
}

/* Calls fn for every record of a spool's states that parses. */
typedef void (*rec_fn)(json_t *rec, void *arg);

static void
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

static const char *
jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void
queued_busy(json_t *rec, void *arg)
{
	struct ar_inv *inv = arg;
	struct ar_assign a;

	ar_assign_parse(rec, "", &a);
	/* Placed but not yet booked by ar-run: those GPUs are promised. */
	if (a.node && a.ngpus)
		mark_busy(inv, node_of(inv, a.node), a.gpus, a.ngpus, INFINITY);
}

static void
load_busy(struct ar_inv *inv, const char *camp)
{
	static const char *const subs[] = { "new", "cur", NULL };
	char *q = ar_path(camp, "queue");

	read_bookings(inv, camp);
	spool_each(q, subs, queued_busy, inv);
	free(q);
}

/* ---- pack ---- */

static int
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
			ar_usage(usage);
	}
	if (optind == argc)
		ar_usage(usage);
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

/* ---- next ---- */

struct meth {
	char *id, *method, *idea, *label, *category, *workload;
	int hint;
	double pfrac;
	struct ar_pol_obs at[AR_POL_NK];
	char fin[AR_POL_NK][40];   /* when the latest result finished */
	int scored[AR_POL_NK];
	/* Every scored result of a scale, pooled in log space by inverse
	 * variance: a re-measurement narrows the estimate, as the
	 * policy (and ar-sched simulate) count on. */
	double lsum[AR_POL_NK], wsum[AR_POL_NK];
};

struct noise {
	char *node, fin[40], exp[64];
	double v;
};

struct nx {
	const char *camp, *workload, *dflt_wl;
	struct meth *m;
	size_t nm, capm;
	size_t *byname;            /* meths sorted by method */
	struct noise *nz;
	size_t nnz;
	char **aa_pending;         /* nodes whose A/A is queued */
	size_t naa;
	double secs[AR_POL_NK], used_h, min_effect;
	size_t nsecs[AR_POL_NK];
	double *all_secs[AR_POL_NK];
	size_t left_unverified;
	/* The baseline's primary metric per k, from every verified row of
	 * the workload: each result measures the baseline beside its method
	 * at the same k, so its scaling is known without runs of its own. */
	const char *metric;
	double *base[AR_POL_NK];
	size_t nbase[AR_POL_NK];
	int lower;                 /* the metric is lower-is-better */
};

static void
add_meth(struct nx *x, const char *id, const char *method, const char *idea,
    const char *label, const char *category, const char *workload,
    const char *hint, const char *pfrac, const char *where)
{
	struct meth *m;
	const char *wl = x->workload ? x->workload : workload[0] ? workload :
	    x->dflt_wl;
	double pf = NAN;
	int k;

	if (!method[0]) {
		ar_warn("%s: no method; left out", where);
		return;
	}
	if (!id[0])
		id = method;
	if (pfrac[0] && (ar_parse_double(pfrac, &pf) < 0 || pf < 0 || pf > 1))
		ar_die(AR_EX_DATA, "%s: pfrac: \"%s\" is not a number from 0 "
		    "to 1", where, pfrac);
	if (x->nm == x->capm) {
		x->capm = x->capm ? 2 * x->capm : 64;
		x->m = ar_xrealloc(x->m, x->capm * sizeof *x->m);
	}
	m = &x->m[x->nm++];
	memset(m, 0, sizeof *m);
	m->id = ar_xstrdup(id);
	m->method = ar_xstrdup(method);
	m->idea = ar_xstrdup(idea);
	m->label = ar_xstrdup(label[0] ? label : id);
	m->category = ar_xstrdup(category);
	m->workload = ar_xstrdup(wl);
	m->hint = strcmp(hint, "scale") == 0 ? 1 : strcmp(hint, "single") ==
	    0 ? -1 : 0;
	m->pfrac = pf;
	for (k = 0; k < AR_POL_NK; k++) {
		m->at[k].est = m->at[k].lo = m->at[k].hi = NAN;
		m->at[k].feasible = 1;
	}
}

static void
submitted_rec(json_t *rec, void *arg)
{
	struct nx *x = arg;
	json_t *pf = json_object_get(rec, "pfrac");
	char pfs[64] = "";

	if (json_is_number(pf))
		snprintf(pfs, sizeof pfs, "%.17g", json_number_value(pf));
	else if (json_is_string(pf))
		snprintf(pfs, sizeof pfs, "%s", json_string_value(pf));
	add_meth(x, jstr(rec, "id"), jstr(rec, "method"), jstr(rec, "idea"),
	    jstr(rec, "label"), jstr(rec, "category"), jstr(rec, "workload"),
	    jstr(rec, "hint"), pfs, "submitted");
}

static void
read_submissions_tsv(struct nx *x, const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	static const char *const names[] = { "id", "method", "idea", "label",
	    "category", "workload", "hint", "pfrac" };
	struct ar_tsv t;
	int c[8], i, st;

	if (!f)
		ar_die(errno == ENOENT || errno == EACCES ? AR_EX_NOINPUT :
		    AR_EX_IO, "%s:", file);
	if (ar_tsv_open(&t, f, file) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	for (i = 0; i < 8; i++)
		c[i] = i == 1 ? ar_tsv_need(&t, names[i]) :
		    ar_tsv_col(&t, names[i]);
	while ((st = ar_tsv_next(&t)) == 1) {
		const char *v[8];
		char where[300];

		for (i = 0; i < 8; i++)
			v[i] = c[i] >= 0 ? t.field[c[i]] : "";
		snprintf(where, sizeof where, "%s: line %zu", file, t.lineno);
		add_meth(x, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
		    where);
	}
	if (st < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
	if (f != stdin)
		fclose(f);
}

static struct nx *sort_ctx;

static int
cmp_byname(const void *a, const void *b)
{
	const size_t *i = a, *j = b;

	return strcmp(sort_ctx->m[*i].method, sort_ctx->m[*j].method);
}

static int
cmp_idwl(const void *a, const void *b)
{
	const size_t *i = a, *j = b;
	const struct meth *x = &sort_ctx->m[*i], *y = &sort_ctx->m[*j];
	int c = strcmp(x->id, y->id);

	if (!c)
		c = strcmp(x->workload, y->workload);
	return c ? c : (*i > *j) - (*i < *j);
}

static void
free_meth(struct meth *m)
{
	free(m->id);
	free(m->method);
	free(m->idea);
	free(m->label);
	free(m->category);
	free(m->workload);
}

/* A method submitted twice (same id and workload) is taken once, as it
 * was first; the order of the rest is kept. */
static void
dedupe(struct nx *x)
{
	size_t *ix = ar_xcalloc(x->nm + 1, sizeof *ix), i, n = 0;
	char *drop = ar_xcalloc(x->nm + 1, 1);

	for (i = 0; i < x->nm; i++)
		ix[i] = i;
	sort_ctx = x;
	ar_sort(ix, x->nm, sizeof *ix, cmp_idwl);
	for (i = 1; i < x->nm; i++)
		if (strcmp(x->m[ix[i]].id, x->m[ix[i - 1]].id) == 0 &&
		    strcmp(x->m[ix[i]].workload, x->m[ix[i - 1]].workload) == 0)
			drop[ix[i]] = 1;
	for (i = 0; i < x->nm; i++) {
		if (drop[i])
			free_meth(&x->m[i]);
		else
			x->m[n++] = x->m[i];
	}
	x->nm = n;
	free(ix);
	free(drop);
}

/* Calls fn for each method whose method is name, on workload (NULL:
 * any). */
static void
each_named(struct nx *x, const char *name, const char *workload,
    void (*fn)(struct meth *, void *), void *arg)
{
	size_t lo = 0, hi = x->nm;

	if (!name[0])
		return;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(x->m[x->byname[mid]].method, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->nm && strcmp(x->m[x->byname[lo]].method, name) == 0;
	    lo++) {
		struct meth *m = &x->m[x->byname[lo]];

		if (!workload || strcmp(m->workload, workload) == 0)
			fn(m, arg);
	}
}

struct lrow {
	int ki, feasible, scored;
	double y, lo, hi, conf;
	const char *fin;
};

/* A result's standard error in log space, from its interval at its own
 * confidence (a look's, e.g. 0.99); without an interval, 2% as the
 * policy takes it. */
static double
log_se(const struct lrow *r)
{
	double c = r->conf > 0.5 && r->conf < 1 ? r->conf : 0.95;
	double z = gsl_cdf_ugaussian_Pinv(1 - (1 - c) / 2);

	if (r->hi > r->lo && r->lo > 0)
		return (log(r->hi) - log(r->lo)) / (2 * z);
	return 0.02;
}

static void
apply_row(struct meth *m, void *arg)
{
	const struct lrow *r = arg;
	struct ar_pol_obs *o = &m->at[r->ki];
	int ki = r->ki;

	o->n++;
	if (r->scored && r->y > 0) {
		double se = log_se(r), w = 1 / (se * se);

		m->lsum[ki] += w * log(r->y);
		m->wsum[ki] += w;
	}
	/* Whether the pair is feasible, the latest result decides; ties go
	 * to the later row. */
	if (strcmp(r->fin, m->fin[ki]) >= 0) {
		snprintf(m->fin[ki], sizeof m->fin[ki], "%s", r->fin);
		o->feasible = r->feasible;
		m->scored[ki] = r->scored;
	}
	if (m->scored[ki] && m->wsum[ki] > 0) {
		double mean = m->lsum[ki] / m->wsum[ki];
		double se = 1 / sqrt(m->wsum[ki]);

		/* As the policy reads an interval: at 95%. */
		o->est = exp(mean);
		o->lo = exp(mean - 1.959964 * se);
		o->hi = exp(mean + 1.959964 * se);
	} else {
		/* Nothing measured: a crash or an invalid run. */
		o->est = o->lo = o->hi = 0;
	}
}

static const char *
fld(const struct ar_tsv *t, int c)
{
	return c >= 0 ? t->field[c] : "";
}

static int
num(const struct ar_tsv *t, int c, double *v)
{
	return c >= 0 && t->field[c][0] && ar_parse_double(t->field[c], v) ==
	    0;
}

static void
add_noise(struct nx *x, const char *node, const char *fin, const char *exp,
    double v)
{
	size_t i;

	for (i = 0; i < x->nnz; i++)
		if (strcmp(x->nz[i].node, node) == 0)
			break;
	if (i == x->nnz) {
		x->nz = ar_xrealloc(x->nz, (x->nnz + 1) * sizeof *x->nz);
		memset(&x->nz[i], 0, sizeof *x->nz);
		x->nz[i].node = ar_xstrdup(node);
		x->nnz++;
	} else if (strcmp(fin, x->nz[i].fin) < 0) {
		return;
	}
	snprintf(x->nz[i].fin, sizeof x->nz[i].fin, "%s", fin);
	snprintf(x->nz[i].exp, sizeof x->nz[i].exp, "%s", exp);
	x->nz[i].v = v;
}

static double
seconds_between(const char *a, const char *b)
{
	struct timespec s, e;

	if (ar_time_parse(a, &s) < 0 || ar_time_parse(b, &e) < 0)
		return -1;
	return (double)(e.tv_sec - s.tv_sec) + (e.tv_nsec - s.tv_nsec) / 1e9;
}

static void
read_ledger(struct nx *x, FILE *f, const char *name)
{
	struct ar_tsv t;
	int c_commit, c_dir, c_wl, c_k, c_node, c_aa, c_verdict, c_y, c_lo;
	int c_hi, c_guard, c_rsd, c_half, c_fin, c_start, c_signed, c_ver;
	int c_exp, c_me, c_base = -1, c_dirn, c_conf, st;
	size_t rows = 0;
	const char *wl = x->workload ? x->workload : x->dflt_wl;

	if (ar_tsv_open(&t, f, name) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	c_wl = ar_tsv_col(&t, "workload");
	c_k = ar_tsv_col(&t, "shape.k");
	c_verdict = ar_tsv_col(&t, "verdict");
	c_commit = ar_tsv_col(&t, "method.commit");
	c_dir = ar_tsv_col(&t, "method.dir");
	c_node = ar_tsv_col(&t, "shape.node");
	c_aa = ar_tsv_col(&t, "aa");
	c_y = ar_tsv_col(&t, "ratio.median");
	c_lo = ar_tsv_col(&t, "ratio.ci_lo");
	c_hi = ar_tsv_col(&t, "ratio.ci_hi");
	c_guard = ar_tsv_col(&t, "pass.guardrails");
	c_rsd = ar_tsv_col(&t, "noise_floor.rsd");
	c_half = ar_tsv_col(&t, "noise_floor.ci_half_width");
	c_fin = ar_tsv_col(&t, "finished");
	c_start = ar_tsv_col(&t, "started");
	c_signed = ar_tsv_col(&t, "signed");
	c_ver = ar_tsv_col(&t, "verified");
	c_exp = ar_tsv_col(&t, "experiment");
	c_me = ar_tsv_col(&t, "stats.min_effect");
	c_dirn = ar_tsv_col(&t, "direction");
	c_conf = ar_tsv_col(&t, "ratio.conf");
	if (x->metric) {
		char *cn = ar_xasprintf("baseline.%s.median", x->metric);

		c_base = ar_tsv_col(&t, cn);
		free(cn);
	}
	while ((st = ar_tsv_next(&t)) == 1) {
		const char *aa = fld(&t, c_aa), *v = fld(&t, c_verdict);
		long long k;
		double y, secs, me;
		struct lrow r;

		/* An empty ledger exports a bare header: the columns are
		 * needed only once there is a row. */
		if (!rows++) {
			ar_tsv_need(&t, "workload");
			ar_tsv_need(&t, "shape.k");
			ar_tsv_need(&t, "verdict");
			if (c_commit < 0 && c_dir < 0)
				ar_die(AR_EX_DATA, "%s: no column method.commit or "
				    "method.dir", name);
		}
		if ((c_signed >= 0 && strcmp(fld(&t, c_signed), "yes")) ||
		    strcmp(fld(&t, c_ver), "yes")) {
			x->left_unverified++;
			continue;
		}
		if (ar_parse_long(fld(&t, c_k), &k) < 0 || k < 1 || k > 65536)
			ar_die(AR_EX_DATA, "%s: line %zu: shape.k: \"%s\" is not a "
			    "whole number from 1 to 65536", name, t.lineno,
			    fld(&t, c_k));
		r.ki = ar_pol_kindex((long)k);
		secs = seconds_between(fld(&t, c_start), fld(&t, c_fin));
		if (secs > 0) {
			x->used_h += (double)k * secs / 3600;
			if (r.ki >= 0) {
				size_t *n = &x->nsecs[r.ki];

				x->all_secs[r.ki] = ar_xrealloc(x->all_secs[r.ki],
				    (*n + 1) * sizeof(double));
				x->all_secs[r.ki][(*n)++] = secs;
			}
		}
		if (num(&t, c_me, &me) && me > 0)
			x->min_effect = me;
		{
			double bv;
			size_t *nb;

			if (r.ki >= 0 && wl && strcmp(fld(&t, c_wl), wl) == 0 &&
			    num(&t, c_base, &bv) && bv > 0) {
				nb = &x->nbase[r.ki];
				x->base[r.ki] = ar_xrealloc(x->base[r.ki], (*nb + 1) *
				    sizeof(double));
				x->base[r.ki][(*nb)++] = bv;
				x->lower = strcmp(fld(&t, c_dirn), "lower") == 0;
			}
		}
		if (strcmp(aa, "true") == 0 || strcmp(aa, "yes") == 0) {
			double nv, lo, hi;

			/* The noise floor: the A/A's own figure, else the
			 * half width of its ratio's interval. */
			if (!num(&t, c_rsd, &nv) && !num(&t, c_half, &nv)) {
				if (num(&t, c_lo, &lo) && num(&t, c_hi, &hi))
					nv = (hi - lo) / 2;
				else
					nv = INFINITY;
			}
			if (fld(&t, c_node)[0])
				add_noise(x, fld(&t, c_node), fld(&t, c_fin),
				    fld(&t, c_exp), nv);
			continue;
		}
		if (r.ki < 0)
			continue;
		r.scored = num(&t, c_y, &y) && y > 0;
		if (!num(&t, c_conf, &r.conf))
			r.conf = 0.95;
		r.y = r.lo = r.hi = r.scored ? y : 0;
		if (r.scored) {
			if (!num(&t, c_lo, &r.lo) || r.lo > y)
				r.lo = y;
			if (!num(&t, c_hi, &r.hi) || r.hi < y)
				r.hi = y;
		}
		r.feasible = strcmp(v, "invalid") && strcmp(v, "crash") &&
		    strcmp(v, "timeout") && strcmp(fld(&t, c_guard), "false");
		r.fin = fld(&t, c_fin);
		each_named(x, fld(&t, c_commit), fld(&t, c_wl), apply_row, &r);
		if (strcmp(fld(&t, c_dir), fld(&t, c_commit)))
			each_named(x, fld(&t, c_dir), fld(&t, c_wl), apply_row,
			    &r);
	}
	if (st < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
}

/* The baseline's parallel fraction by Amdahl's law, from its median
 * metric at k=1 and at each larger k measured, weighted by the runs; 0
 * when there is no such pair (unknown to the policy). how lists the larger
 * k. */
static double
base_pfrac(const struct nx *x, char *how, size_t n)
{
	double m1, p = 0, w = 0;
	size_t len = 0;
	int ki;

	how[0] = 0;
	if (!x->nbase[0])
		return 0;
	m1 = ar_median(x->base[0], x->nbase[0]);
	for (ki = 1; ki < AR_POL_NK; ki++) {
		double mk, sp, k = (double)ar_pol_k(ki), pk;

		if (!x->nbase[ki])
			continue;
		mk = ar_median(x->base[ki], x->nbase[ki]);
		sp = x->lower ? m1 / mk : mk / m1;
		if (!(sp > 0) || !isfinite(sp))
			continue;
		pk = (1 - 1 / sp) / (1 - 1 / k);
		pk = pk < 0 ? 0 : pk > 1 ? 1 : pk;
		p += pk * (double)x->nbase[ki];
		w += (double)x->nbase[ki];
		if (len < n)
			len += (size_t)snprintf(how + len, n - len, "%s%ld",
			    len ? ", " : "", ar_pol_k(ki));
	}
	if (!(w > 0))
		return 0;
	/* A baseline that does not scale is known, not unknown. */
	return p / w > 1e-6 ? p / w : 1e-6;
}

static void
add_pending(struct meth *m, void *arg)
{
	m->at[*(int *)arg].pending++;
}

static void
queued_rec(json_t *rec, void *arg)
{
	struct nx *x = arg;
	struct ar_assign a;
	int ki;

	ar_assign_parse(rec, "", &a);
	if (a.purpose && strcmp(a.purpose, "aa") == 0) {
		x->aa_pending = ar_xrealloc(x->aa_pending, (x->naa + 1) *
		    sizeof *x->aa_pending);
		x->aa_pending[x->naa++] = ar_xstrdup(a.node ? a.node : "");
		return;
	}
	ki = ar_pol_kindex(a.k);
	if (ki >= 0 && a.method)
		each_named(x, a.method, a.workload, add_pending, &ki);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The node's latest A/A, under its name or its long or short form. */
static const struct noise *
noise_of(const struct nx *x, const char *node)
{
	const struct noise *z = NULL;
	size_t i;

	for (i = 0; i < x->nnz; i++)
		if (ar_host_same(x->nz[i].node, node) &&
		    (!z || strcmp(x->nz[i].fin, z->fin) > 0))
			z = &x->nz[i];
	return z;
}

static int
aa_queued(const struct nx *x, const struct ar_inv *inv, size_t node)
{
	size_t i;

	for (i = 0; i < x->naa; i++)
		if (node_of(inv, x->aa_pending[i]) == (long)node)
			return 1;
	return 0;
}

struct out {
	FILE *f;
	const char *queue;
	size_t n;
};

/* How much to measure: ar-bench's pair limits and the ratio whose side
 * ends the session early; pmin 0 leaves it all to ar-bench. */
struct size {
	long pmin, pmax;
	double stop_at;
};

/* A pick's size in pairs: a standard measurement is std pairs. Only a
 * pick that asks for something other than one standard measurement with
 * no early stop is sized, so the other policies keep ar-bench's own
 * sequential rule. ar-sched simulate sizes its measurements the same
 * way. */
static struct size
size_of(const struct ar_pol_pick *pk, long std)
{
	struct size z = { 0, 0, NAN };

	if (!ar_pol_pairs(pk, std, &z.pmin, &z.pmax))
		return z;
	if (pk->stop_at > 0 && isfinite(pk->stop_at))
		z.stop_at = pk->stop_at;
	return z;
}

/* One assignment: printed, and with --put stored in queue/ first. */
static void
emit(struct out *o, const char *method, const char *workload, int k,
    const char *gpus, const char *node, const char *purpose,
    const char *idea, const char *label, double value, const char *why,
    long prio, struct size z)
{
	struct ar_assign a;
	char now[40];

	memset(&a, 0, sizeof a);
	ar_id_new(a.experiment);
	a.method = method;
	a.workload = workload;
	a.k = k;
	if (ar_assign_gpus(gpus, a.gpus, AR_ASSIGN_GPUS, &a.ngpus) < 0)
		ar_die(AR_EX_SOFTWARE, "placed on \"%s\": not GPU ids", gpus);
	a.node = node;
	a.purpose = purpose;
	a.idea = idea;
	a.label = label;
	a.value = value;
	a.why = why;
	a.priority = prio;
	a.pmin = z.pmin;
	a.pmax = z.pmax;
	a.stop_at = z.stop_at > 0 ? z.stop_at : 0;
	if (o->queue) {
		json_t *r;
		char *s;
		int st;

		ar_time_now(now, sizeof now);
		a.queued = now;
		r = ar_assign_record(&a);
		s = ar_json_line(r);
		json_decref(r);
		st = ar_spool_put(o->queue, a.experiment, prio, s, strlen(s));
		free(s);
		if (st != AR_SP_OK)
			ar_die(st == AR_SP_GONE ? AR_EX_CANTCREAT :
			    ar_errno_exit(errno), "%s: %s: %s", o->queue,
			    a.experiment, st == AR_SP_GONE ? "exists already" :
			    strerror(errno));
	}
	ar_assign_tsv_row(o->f, &a);
	o->n++;
}

static void
free_nx(struct nx *x)
{
	size_t i;
	int k;

	for (i = 0; i < x->nm; i++)
		free_meth(&x->m[i]);
	free(x->m);
	free(x->byname);
	for (i = 0; i < x->nnz; i++)
		free(x->nz[i].node);
	free(x->nz);
	for (i = 0; i < x->naa; i++)
		free(x->aa_pending[i]);
	free(x->aa_pending);
	for (k = 0; k < AR_POL_NK; k++) {
		free(x->all_secs[k]);
		free(x->base[k]);
	}
}

static char *lock_path;

static void
unlock(void)
{
	if (lock_path)
		ar_lock_drop(lock_path, 0);
}

/* One next --put at a time per campaign: two would both see the same
 * GPUs free. The lock is run/sched.lock (lib/lock); one older than a
 * minute was left by a crash on another host (a run takes a second) and
 * is broken. Waits up to 2 seconds for it. */
static void
take_lock(const char *camp)
{
	char *dir = ar_path(camp, "run"), err[600];
	struct ar_lock_opts o = { .wait_s = 2, .stale_s = 60 };
	int r;

	if (ar_mkdirs(dir, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", dir);
	lock_path = ar_path(dir, "sched.lock");
	free(dir);
	r = ar_lock_take(lock_path, &o, NULL, err, sizeof err);
	if (r < 0)
		ar_die(ar_errno_exit(errno), "%s", err);
	if (r > 0)
		ar_die(AR_EX_TEMPFAIL, "%s: another ar-sched next --put is "
		    "running; try again", lock_path);
	ar_on_die(unlock);
}

static int
cmd_next(int argc, char **argv)
{
	static const struct option lo[] = {
		INV_LONGOPTS,
		{ "put", no_argument, NULL, O_PUT },
		{ "noise-max", required_argument, NULL, O_NOISE },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const subs[] = { "new", "cur", "done", NULL };
	static const char *const qsubs[] = { "new", "cur", NULL };
	const char *copt = NULL, *ledger = NULL, *subm = NULL, *v;
	int policy = AR_POL_OURS;
	double conf_pfrac = -1;
	long long std_pairs = AR_POL_PAIRS_STD;
	const struct size nosize = { 0, 0, NAN };
	struct nx x = {0};
	struct src s = {0};
	struct ar_campaign camp;
	struct ar_manifest man;
	struct ar_inv inv;
	struct ar_pol_method *pm;
	struct ar_pol_pick *pick;
	struct ar_pol_cfg cfg = {0};
	struct out o = {0};
	char err[512], *qdir, *sdir;
	double noise_max = -1, all_med = -1;
	long long maxn = -1;
	int c, put = 0, ki, reserved = 0, have_man;
	size_t i, npick, nfree = 0, want;

	while ((c = getopt_long(argc, argv, "C:g:l:m:n:w:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': copt = optarg; break;
		case 'l': ledger = optarg; break;
		case 'm': subm = optarg; break;
		case 'w': x.workload = optarg; break;
		case 'n':
			if (ar_parse_long(optarg, &maxn) < 0 || maxn < 1 ||
			    maxn > 100000)
				ar_die(AR_EX_USAGE, "-n %s: a count from 1 to "
				    "100000", optarg);
			break;
		case O_PUT: put = 1; break;
		case O_NOISE:
			if (ar_parse_double(optarg, &noise_max) < 0 ||
			    noise_max < 0)
				ar_die(AR_EX_USAGE, "--noise-max %s: a number of "
				    "0 or more", optarg);
			break;
		default:
			if (!src_opt(&s, c, optarg))
				ar_usage(usage);
		}
	}
	if (optind != argc)
		ar_usage(usage);
	if (ledger && subm && strcmp(ledger, "-") == 0 && strcmp(subm, "-") == 0)
		ar_die(AR_EX_USAGE, "-l - and -m -: standard input is one of them "
		    "only");
	ar_campaign_open(&camp, ar_campaign_default(copt));
	x.camp = camp.dir;
	/* The policy is checked before anything is printed or queued.
	 * Campaigns made before the policies had names say "autoreduce". */
	if ((v = ar_conf_get(&camp.conf, "policy")) &&
	    strcmp(v, "autoreduce") != 0) {
		if (ar_pol_parse(v) < 0)
			ar_die(AR_EX_DATA, "%s/campaign.conf: policy: %s: not "
			    "ours, flat1, grid or sha", camp.dir, v);
		policy = ar_pol_parse(v);
	}
	if ((v = ar_conf_get(&camp.conf, "sched.base_pfrac")) &&
	    (ar_parse_double(v, &conf_pfrac) < 0 || !(conf_pfrac > 0) ||
	    conf_pfrac > 1))
		ar_die(AR_EX_DATA, "%s/campaign.conf: sched.base_pfrac: \"%s\" "
		    "is not a number above 0 and at most 1", camp.dir, v);
	/* The pairs of one standard measurement: what the policy's sizes
	 * (a quarter, a half, 2.5) are multiples of. 32 makes the smallest,
	 * a quarter, the 8 pairs that give a 95% interval at a look. */
	if ((v = ar_conf_get(&camp.conf, "sched.pairs")) &&
	    (ar_parse_long(v, &std_pairs) < 0 ||
	    std_pairs < AR_POL_PAIRS_MIN || std_pairs > 100000))
		ar_die(AR_EX_DATA, "%s/campaign.conf: sched.pairs: \"%s\" is not "
		    "a whole number from %d to 100000", camp.dir, v,
		    AR_POL_PAIRS_MIN);
	/* Before anything is read: what is busy must not change under us. */
	if (put)
		take_lock(camp.dir);
	x.min_effect = 0.01;
	if ((v = ar_conf_get(&camp.conf, "sched.noise_max")) && noise_max < 0 &&
	    (ar_parse_double(v, &noise_max) < 0 || noise_max < 0))
		ar_die(AR_EX_DATA, "%s/campaign.conf: sched.noise_max: \"%s\" "
		    "is not a number of 0 or more", camp.dir, v);
	if (noise_max < 0)
		noise_max = 0.10;
	{
		char *pdir = ar_path(camp.dir, "problem");

		have_man = ar_manifest_read(&man, pdir, err, sizeof err) == 0;
		free(pdir);
	}
	x.dflt_wl = have_man && man.nworkload ? man.workload[0].name : "";
	x.metric = have_man ? man.metric.name : NULL;
	if (!have_man)
		memset(&man, 0, sizeof man);

	/* The methods. */
	if (subm) {
		read_submissions_tsv(&x, subm);
	} else {
		sdir = ar_path(camp.dir, "submitted");
		spool_each(sdir, subs, submitted_rec, &x);
		free(sdir);
	}
	dedupe(&x);
	x.byname = ar_xcalloc(x.nm + 1, sizeof *x.byname);
	for (i = 0; i < x.nm; i++)
		x.byname[i] = i;
	sort_ctx = &x;
	ar_sort(x.byname, x.nm, sizeof *x.byname, cmp_byname);

	/* What is known. */
	if (ledger) {
		FILE *f = strcmp(ledger, "-") ? fopen(ledger, "r") : stdin;

		if (!f)
			ar_die(errno == ENOENT || errno == EACCES ?
			    AR_EX_NOINPUT : AR_EX_IO, "%s:", ledger);
		read_ledger(&x, f, ledger);
		if (f != stdin)
			fclose(f);
	} else {
		/* ar-ledger export -C CAMP -V -f tsv, from the ar-ledger
		 * beside this program or on PATH; all of it first: a failed
		 * export is not malformed data. */
		char *prog = ar_sibling("ar-ledger");
		char *argv[] = { prog, "export", "-C", camp.dir, "-V", "-f",
		    "tsv", NULL };
		struct ar_buf b = {0};
		FILE *mf;
		int st;

		st = ar_capture(argv, AR_FD_KEEP, &b, (size_t)1 << 34);
		if (st < 0 && errno != EFBIG)
			ar_die(AR_EX_UNAVAILABLE, "%s: cannot run: %s", prog,
			    strerror(errno));
		if (st != 0)
			ar_die(AR_EX_UNAVAILABLE, "ar-ledger export -C %s -V "
			    "failed; give its export with -l", camp.dir);
		free(prog);
		if (!(mf = fmemopen(b.p, b.len ? b.len : 1, "r")))
			ar_die(AR_EX_SOFTWARE, "fmemopen:");
		read_ledger(&x, mf, "ar-ledger export");
		fclose(mf);
		ar_buf_free(&b);
	}
	if (x.left_unverified)
		ar_warn("left out %zu row%s not signed and verified (export "
		    "with ar-ledger export -V)", x.left_unverified,
		    x.left_unverified == 1 ? "" : "s");

	/* What is pending and what is busy. */
	qdir = ar_path(camp.dir, "queue");
	spool_each(qdir, qsubs, queued_rec, &x);
	ar_inv_init(&inv);
	load_inv(&inv, &s);
	load_busy(&inv, camp.dir);

	/* Noise: a node that is loud, or unmeasured, takes only an A/A. */
	for (i = 0; i < inv.n; i++) {
		struct ar_snode *nd = &inv.node[i];
		const struct noise *z = noise_of(&x, nd->name);

		nd->pref = z ? z->v : INFINITY;
		if (z && z->v <= noise_max)
			continue;
		nd->off = 1;
		if (z)
			ar_warn("node %s: quarantined: its latest A/A (%s) has "
			    "noise %.4g > %.4g; it runs an A/A only until a "
			    "newer one clears it%s", nd->name, z->exp, z->v,
			    noise_max, aa_queued(&x, &inv, i) ? " (queued)" : "");
		else
			ar_warn("node %s: no A/A yet: it runs one before any "
			    "other work%s", nd->name, aa_queued(&x, &inv, i) ?
			    " (queued)" : "");
	}
	ar_pack_index(&inv);
	for (i = 0; i < inv.n; i++)
		if (!inv.node[i].off)
			nfree += (size_t)__builtin_popcountll(~inv.node[i].busy &
			    (inv.node[i].n == 64 ? ~(uint64_t)0 :
			    ((uint64_t)1 << inv.node[i].n) - 1));
	want = maxn > 0 ? (size_t)maxn : nfree + inv.n;

	o.f = stdout;
	if (put) {
		if (ar_spool_check(qdir) < 0)
			ar_die(errno == ENOENT ? AR_EX_NOINPUT : AR_EX_IO,
			    "%s:", qdir);
		o.queue = qdir;
	}
	ar_assign_tsv_header(stdout);

	/* A/A first on nodes that need one. */
	for (i = 0; i < inv.n && o.n < want; i++) {
		struct ar_place p;
		char ids[512], why[200];
		const struct noise *z = noise_of(&x, inv.node[i].name);

		if (!inv.node[i].off || aa_queued(&x, &inv, i))
			continue;
		if (!ar_pack_find_on(&inv, i, 1, &p))
			continue;
		ar_pack_take(&inv, &p, INFINITY);
		ar_place_ids(&inv, &p, ids, sizeof ids);
		if (z)
			snprintf(why, sizeof why, "node noise %.3g exceeds %.3g: "
			    "measure it again before trusting it", z->v,
			    noise_max);
		else
			snprintf(why, sizeof why, "no A/A on this node yet: "
			    "measure its noise floor first");
		emit(&o, "baseline", x.workload ? x.workload : x.dflt_wl, 1, ids,
		    inv.node[i].name, "aa", "", "A/A", 0, why, 900000, nosize);
	}

	/* The policy's picks, placed in its order. */
	cfg.policy = policy;
	{
		const char *sc = ar_conf_get(&camp.conf, "scales");
		int maxk = 0;

		for (i = 0; i < inv.n; i++)
			if (!inv.node[i].off && inv.node[i].n > maxk)
				maxk = inv.node[i].n;
		for (ki = 0; ki < AR_POL_NK; ki++)
			cfg.use[ki] = !sc && ar_pol_k(ki) <= maxk;
		while (sc && *sc) {
			char *end;
			long k = strtol(sc, &end, 10);

			if (end == sc)
				break;
			if ((ki = ar_pol_kindex(k)) >= 0 && k <= maxk)
				cfg.use[ki] = 1;
			sc = end;
		}
	}
	/* A measurement's cost: its k times the median time one took. */
	{
		double *all = NULL;
		size_t na = 0;

		for (ki = 0; ki < AR_POL_NK; ki++) {
			all = ar_xrealloc(all, (na + x.nsecs[ki] + 1) *
			    sizeof *all);
			if (x.nsecs[ki])
				memcpy(all + na, x.all_secs[ki], x.nsecs[ki] *
				    sizeof *all);
			na += x.nsecs[ki];
		}
		ar_sort(all, na, sizeof *all, cmp_double);
		all_med = na ? all[na / 2] : have_man && man.time_s > 0 ?
		    man.time_s : 600;
		free(all);
		for (ki = 0; ki < AR_POL_NK; ki++) {
			double sec = all_med;

			if (x.nsecs[ki]) {
				ar_sort(x.all_secs[ki], x.nsecs[ki],
				    sizeof(double), cmp_double);
				sec = x.all_secs[ki][x.nsecs[ki] / 2];
			}
			cfg.cost_h[ki] = (double)ar_pol_k(ki) * sec / 3600;
		}
	}
	cfg.min_effect = have_man && man.min_effect > 0 ? man.min_effect :
	    x.min_effect;
	/* What a method's Amdahl prediction is held against: the campaign's
	 * figure, else the baseline's own scaling in the ledger. */
	if (conf_pfrac > 0) {
		cfg.base_pfrac = conf_pfrac;
	} else {
		char how[64];

		cfg.base_pfrac = base_pfrac(&x, how, sizeof how);
		if (cfg.base_pfrac > 0)
			ar_warn("the baseline's parallel fraction: %.3f, from its "
			    "runs at k = 1 and %s (workload %s)", cfg.base_pfrac,
			    how, x.workload ? x.workload : x.dflt_wl);
	}
	cfg.budget_h = -1;
	if ((v = ar_conf_get(&camp.conf, "budget.gpu_hours"))) {
		double b;

		if (ar_parse_double(v, &b) == 0 && b > 0)
			cfg.budget_h = b > x.used_h ? b - x.used_h : 0;
	}
	pm = ar_xcalloc(x.nm + 1, sizeof *pm);
	for (i = 0; i < x.nm; i++) {
		pm[i].id = x.m[i].id;
		pm[i].pfrac = x.m[i].pfrac;
		pm[i].pfrac_sd = isnan(x.m[i].pfrac) ? NAN : 0.1;
		pm[i].hint = x.m[i].hint;
		memcpy(pm[i].at, x.m[i].at, sizeof pm[i].at);
	}
	/* Ask for more than fits: what does not fit now is skipped. */
	pick = ar_xcalloc(4 * want + 1, sizeof *pick);
	npick = o.n < want && x.nm ? ar_policy_next(pm, x.nm, &cfg, pick,
	    4 * want) : 0;
	for (i = 0; i < npick && o.n < want; i++) {
		struct ar_pol_pick *pk = &pick[i];
		struct meth *m;
		struct ar_pol_obs *ob;
		struct ar_place p;
		char ids[512];
		int k, close_call;
		size_t rn;
		double when;

		if (pk->method >= x.nm || pk->ki < 0 || pk->ki >= AR_POL_NK)
			continue;
		m = &x.m[pk->method];
		ob = &m->at[pk->ki];
		k = (int)ar_pol_k(pk->ki);
		close_call = ob->n > 0 && ob->lo <= 1 + cfg.min_effect &&
		    ob->hi >= 1 + cfg.min_effect;
		/* Validations and close calls go to the quietest node. */
		if (!ar_pack_find(&inv, k, pk->purpose == AR_PUR_VALIDATE ||
		    close_call, INFINITY, &p)) {
			if (!reserved && k > 1 &&
			    ar_pack_reserve(&inv, k, (double)time(NULL), &rn,
			    &when)) {
				reserved = 1;
				ar_warn("k=%d for %s fits nowhere now; node %s is "
				    "kept for it and smaller work goes elsewhere",
				    k, m->label, inv.node[rn].name);
			}
			continue;
		}
		ar_pack_take(&inv, &p, INFINITY);
		ar_place_ids(&inv, &p, ids, sizeof ids);
		emit(&o, m->method, m->workload, k, ids, inv.node[p.node].name,
		    ar_pol_purpose_name(pk->purpose), m->idea, m->label,
		    pk->value, pk->why[0] ? pk->why : "the policy's pick",
		    1000 - (long)i, size_of(pk, std_pairs));
	}
	ar_fshut(stdout, "<stdout>");
	unlock();
	free(lock_path);
	lock_path = NULL;
	free(pick);
	free(pm);
	free(qdir);
	ar_inv_free(&inv);
	free_nx(&x);
	if (have_man)
		ar_manifest_free(&man);
	ar_campaign_free(&camp);
	return AR_EX_OK;
}

/* ---- cluster: a discrete-event simulation of the packer ---- */

static unsigned long long rng_s;

static unsigned long long
rng(void)
{
	unsigned long long z = (rng_s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double
unif(void)
{
	return ((double)(rng() >> 11) + 0.5) / 9007199254740992.0;
}

struct req {
	double arrive, dur, head;   /* head: when it became the oldest */
	unsigned long long seq;
	int k;
};

struct fifo {
	struct req *r;
	size_t head, n, cap;
};

struct job {
	double end;
	size_t node;
	uint64_t mask;
	long id;
};

struct sim {
	struct ar_inv inv;
	struct fifo q[4];
	struct job *heap;
	size_t nheap, capheap;
	unsigned long long seq;
	double now, maxhead8;
	size_t placed8;
	long *owner;               /* --check: who holds each slot */
	long jobs;
	int check, noreserve, nres, gpn;
	size_t window;               /* how far into the queue one looks */
	size_t placements;
};

static void
fifo_push(struct fifo *f, struct req r)
{
	if (f->head + f->n == f->cap) {
		if (f->head > f->cap / 2) {
			memmove(f->r, f->r + f->head, f->n * sizeof *f->r);
			f->head = 0;
		} else {
			f->cap = f->cap ? 2 * f->cap : 1024;
			f->r = ar_xrealloc(f->r, f->cap * sizeof *f->r);
		}
	}
	f->r[f->head + f->n++] = r;
}

static void
new_req(struct sim *s, double now)
{
	double u = unif(), d;
	struct req r;
	int ki;

	/* The mix: many 1-GPU probes, fewer scale probes and validations. */
	ki = u < 0.40 ? 0 : u < 0.65 ? 1 : u < 0.85 ? 2 : 3;
	/* Nothing larger than a node: it would wait forever. */
	while (ki > 0 && (1 << ki) > s->gpn)
		ki--;
	/* Durations: exponential, mean one hour, from 3 minutes to 6 hours. */
	d = -log(unif());
	d = d < 0.05 ? 0.05 : d > 6 ? 6 : d;
	r.arrive = now;
	r.dur = d;
	r.head = -1;
	r.seq = s->seq++;
	r.k = 1 << ki;
	fifo_push(&s->q[ki], r);
}

static void
heap_push(struct sim *s, struct job j)
{
	size_t i;

	if (s->nheap == s->capheap) {
		s->capheap = s->capheap ? 2 * s->capheap : 1024;
		s->heap = ar_xrealloc(s->heap, s->capheap * sizeof *s->heap);
	}
	i = s->nheap++;
	while (i > 0 && s->heap[(i - 1) / 2].end > j.end) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = j;
}

static struct job
heap_pop(struct sim *s)
{
	struct job top = s->heap[0], last = s->heap[--s->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && s->heap[c + 1].end < s->heap[c].end)
			c++;
		if (last.end <= s->heap[c].end)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

static void
sim_check(struct sim *s, const struct ar_place *p, long id, int taking)
{
	int i;

	for (i = 0; i < AR_SLOTS_MAX; i++) {
		long *o;

		if (!(p->mask >> i & 1))
			continue;
		o = &s->owner[p->node * AR_SLOTS_MAX + (size_t)i];
		if (taking ? *o != -1 : *o != id)
			ar_die(AR_EX_SOFTWARE, "check: node %zu slot %d: %s by "
			    "job %ld", p->node, i, taking ? "double-booked, held" :
			    "released, not held", *o);
		*o = taking ? id : -1;
	}
}

static void
sim_start(struct sim *s, int ki, const struct ar_place *p)
{
	struct fifo *f = &s->q[ki];
	struct req r = f->r[f->head];
	struct job j;

	f->head++;
	f->n--;
	ar_pack_take(&s->inv, p, s->now + r.dur);
	j.end = s->now + r.dur;
	j.node = p->node;
	j.mask = p->mask;
	j.id = s->jobs++;
	if (s->check)
		sim_check(s, p, j.id, 1);
	heap_push(s, j);
	if (r.k == 8) {
		s->placed8++;
		if (r.head >= 0 && s->now - r.head > s->maxhead8)
			s->maxhead8 = s->now - r.head;
	}
	s->placements++;
	/* The queue stays deep: a new request for each one placed. */
	new_req(s, s->now);
}

/* The oldest request of all sizes; -1 when none. */
static int
oldest(const struct sim *s)
{
	int ki, best = -1;

	for (ki = 0; ki < 4; ki++)
		if (s->q[ki].n && (best < 0 || s->q[ki].r[s->q[ki].head].seq <
		    s->q[best].r[s->q[best].head].seq))
			best = ki;
	return best;
}


/* One decision: the oldest requests first, each started where it fits;
 * one that fits nowhere keeps the node it will get soonest (up to
 * s->nres of them), and what comes after it is started only where it
 * does not delay those (EASY backfill; conservative with nres > 1). */
static void
sim_decide(struct sim *s)
{
	struct ar_place p;

	for (;;) {
		size_t w[4] = {0}, seen;
		int placed = 0, nres = 0, h = oldest(s);

		if (h < 0)
			return;
		if (s->q[h].r[s->q[h].head].head < 0)
			s->q[h].r[s->q[h].head].head = s->now;
		for (seen = 0; seen < s->window && !placed; seen++) {
			int ki, c = -1;
			struct req *r;
			size_t rn;
			double when;

			/* The next oldest of the four queues. */
			for (ki = 0; ki < 4; ki++)
				if (w[ki] < s->q[ki].n && (c < 0 ||
				    s->q[ki].r[s->q[ki].head + w[ki]].seq <
				    s->q[c].r[s->q[c].head + w[c]].seq))
					c = ki;
			if (c < 0)
				break;
			r = &s->q[c].r[s->q[c].head + w[c]];
			if (ar_pack_find(&s->inv, r->k, 0, s->now + r->dur, &p)) {
				/* Out of order: those before it move up one. */
				if (w[c] > 0) {
					struct req t = *r;
					struct req *f = &s->q[c].r[s->q[c].head];

					memmove(f + 1, f, w[c] * sizeof *f);
					*f = t;
				}
				sim_start(s, c, &p);
				placed = 1;
				break;
			}
			if (!s->noreserve && nres < s->nres && r->k > 1 &&
			    ar_pack_reserve(&s->inv, r->k, s->now, &rn, &when))
				nres++;
			w[c]++;
		}
		ar_pack_unreserve(&s->inv);
		if (!placed)
			return;
	}
}

static int
cmp_ms(const void *a, const void *b)
{
	return cmp_double(a, b);
}

static int
cmd_cluster(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "check", no_argument, NULL, O_CHECK },
		{ "no-reserve", no_argument, NULL, O_NORES },
		{ NULL, 0, NULL, 0 },
	};
	long long nodes = 64, gpn = 8, pending = 100000, seed = 1, v;
	double hours = 48, *ms = NULL, total_ms = 0, max_ms = 0, busy = 0;
	size_t nms = 0, capms = 0, i;
	struct sim s;
	int c;
	char name[32];

	memset(&s, 0, sizeof s);
	s.nres = -1;
	s.window = 128;
	while ((c = getopt_long(argc, argv, "N:G:p:R:s:d:W:", lo, NULL)) != -1) {
		switch (c) {
		case 'N':
			if (ar_parse_long(optarg, &nodes) < 0 || nodes < 1 ||
			    nodes > 100000)
				ar_die(AR_EX_USAGE, "-N %s: nodes from 1 to 100000",
				    optarg);
			break;
		case 'G':
			if (ar_parse_long(optarg, &gpn) < 0 || gpn < 1 ||
			    gpn > AR_SLOTS_MAX)
				ar_die(AR_EX_USAGE, "-G %s: GPUs per node from 1 "
				    "to %d", optarg, AR_SLOTS_MAX);
			break;
		case 'p':
			if (ar_parse_long(optarg, &pending) < 0 || pending < 1 ||
			    pending > 100000000)
				ar_die(AR_EX_USAGE, "-p %s: a count from 1 to "
				    "100000000", optarg);
			break;
		case 'R':
			if (ar_parse_long(optarg, &v) < 0 || v < 1 || v > 100000)
				ar_die(AR_EX_USAGE, "-R %s: reservations from 1 to "
				    "100000", optarg);
			s.nres = (int)v;
			break;
		case 'W':
			if (ar_parse_long(optarg, &v) < 0 || v < 1 || v > 1000000)
				ar_die(AR_EX_USAGE, "-W %s: a window from 1 to "
				    "1000000", optarg);
			s.window = (size_t)v;
			break;
		case 's':
			if (ar_parse_long(optarg, &seed) < 0)
				ar_die(AR_EX_USAGE, "-s %s: a whole number", optarg);
			break;
		case 'd':
			if (ar_parse_double(optarg, &hours) < 0 || hours <= 0 ||
			    hours > 1e6)
				ar_die(AR_EX_USAGE, "-d %s: hours, more than 0",
				    optarg);
			break;
		case O_CHECK: s.check = 1; break;
		case O_NORES: s.noreserve = 1; break;
		default: ar_usage(usage);
		}
	}
	if (optind != argc)
		ar_usage(usage);
	if (s.nres < 0)
		s.nres = 4;
	s.gpn = (int)gpn;
	rng_s = (unsigned long long)seed;
	ar_inv_init(&s.inv);
	for (i = 0; i < (size_t)nodes; i++) {
		snprintf(name, sizeof name, "n%04zu", i);
		ar_inv_gpus(&s.inv, name, (int)gpn, 0);
	}
	ar_pack_index(&s.inv);
	if (s.check) {
		s.owner = ar_xcalloc((size_t)nodes * AR_SLOTS_MAX,
		    sizeof *s.owner);
		for (i = 0; i < (size_t)nodes * AR_SLOTS_MAX; i++)
			s.owner[i] = -1;
	}
	for (i = 0; i < (size_t)pending; i++)
		new_req(&s, 0);
	for (;;) {
		struct timespec t0, t1;
		double d, next;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		sim_decide(&s);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		d = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (nms == capms) {
			capms = capms ? 2 * capms : 4096;
			ms = ar_xrealloc(ms, capms * sizeof *ms);
		}
		ms[nms++] = d;
		total_ms += d;
		if (d > max_ms)
			max_ms = d;
		if (s.check) {
			/* The packer's masks agree with the owners. */
			size_t n;

			for (n = 0; n < s.inv.n; n++) {
				int g;

				for (g = 0; g < s.inv.node[n].n; g++) {
					int b = (int)(s.inv.node[n].busy >> g & 1);
					int held = s.owner[n * AR_SLOTS_MAX +
					    (size_t)g] >= 0;

					if (b != held)
						ar_die(AR_EX_SOFTWARE, "check: node "
						    "%zu slot %d: mask and owner "
						    "disagree", n, g);
				}
			}
		}
		if (!s.nheap)
			break;
		/* Busy GPU time up to the next event, within the horizon. */
		next = s.heap[0].end;
		{
			size_t n, used = 0;

			for (n = 0; n < s.inv.n; n++)
				used += (size_t)__builtin_popcountll(
				    s.inv.node[n].busy);
			busy += (double)used * ((next < hours ? next : hours) -
			    s.now);
		}
		if (next >= hours)
			break;
		s.now = next;
		while (s.nheap && s.heap[0].end <= s.now) {
			struct job j = heap_pop(&s);
			struct ar_place p = { .node = j.node, .mask = j.mask };

			if (s.check)
				sim_check(&s, &p, j.id, 0);
			ar_pack_release(&s.inv, j.node, j.mask);
		}
	}
	/* An 8 still waiting at the head at the end has waited too. */
	if (s.q[3].n && s.q[3].r[s.q[3].head].head >= 0 &&
	    hours - s.q[3].r[s.q[3].head].head > s.maxhead8)
		s.maxhead8 = hours - s.q[3].r[s.q[3].head].head;
	ar_sort(ms, nms, sizeof *ms, cmp_ms);
	puts("nodes\tgpus_per_node\tpending\tseed\thours\treserve\tdecisions\t"
	    "placements\tutilization\tdecision_ms_mean\tdecision_ms_p99\t"
	    "decision_ms_max\tplaced8\twait8_max_h");
	printf("%lld\t%lld\t%lld\t%lld\t%g\t%s\t%zu\t%zu\t%.4f\t%.4f\t%.4f\t"
	    "%.4f\t%zu\t%.2f\n", nodes, gpn, pending, seed, hours,
	    s.noreserve ? "no" : "yes", nms, s.placements,
	    busy / ((double)nodes * (double)gpn * hours),
	    nms ? total_ms / (double)nms : 0,
	    nms ? ms[(size_t)((double)(nms - 1) * 0.99)] : 0, max_ms,
	    s.placed8, s.maxhead8);
	ar_fshut(stdout, "<stdout>");
	free(ms);
	free(s.owner);
	free(s.heap);
	for (i = 0; i < 4; i++)
		free(s.q[i].r);
	ar_inv_free(&s.inv);
	return AR_EX_OK;
}

int
main(int argc, char **argv)
{
	const char *sub;
	int rc;

	ar_setprog(argv[0]);
	/* simulate and landscape answer -h themselves. */
	if (argc >= 2 && strcmp(argv[1], "simulate") == 0)
		return ar_sched_simulate(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "landscape") == 0)
		return ar_sched_landscape(argc - 1, argv + 1);
	usage = ar_xasprintf("%s\n%s\n%s", usage_base, ar_simulate_usage,
	    ar_landscape_usage);
	ar_std_args(argc, argv, usage);
	if (argc < 2)
		ar_usage(usage);
	sub = argv[1];
	/* getopt starts again at the subcommand's own arguments. */
	optind = 1;
	if (strcmp(sub, "gpus") == 0)
		rc = cmd_gpus(argc - 1, argv + 1);
	else if (strcmp(sub, "pack") == 0)
		rc = cmd_pack(argc - 1, argv + 1);
	else if (strcmp(sub, "next") == 0)
		rc = cmd_next(argc - 1, argv + 1);
	else if (strcmp(sub, "cluster") == 0)
		rc = cmd_cluster(argc - 1, argv + 1);
	else
		ar_die(AR_EX_USAGE, "%s: no such command (gpus, pack, next, "
		    "cluster, simulate, landscape)", sub);
	free(usage);
	return rc;
}
