/* ar-run: dispatches the experiments queued in a campaign's queue/ to
 * ar-bench, on this machine's GPUs or CPUs (local) or through Slurm.
 * Every state change is a rename(2) or link(2) in the campaign, so a
 * kill -9 at any instant, then a restart, loses nothing and runs nothing
 * twice: the queue holds each record's fate, run/ holds who runs what. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "campaign.h"
#include "err.h"
#include "host.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "ledger.h"
#include "manifest.h"
#include "spool.h"
#include "timefmt.h"
#include "tsv.h"

static const char usage[] =
	"local [-qv] [-C campaign] [-g topology | --gpus n | --cpus] [-H holder] "
	"[-i assignments] [-j max-parallel] [-l lease-seconds] "
	"[-r requeue-limit] [-t time-limit] [--drain | --once] "
	"[-- ar-bench-args ...]\n"
	"slurm [-qv] [-C campaign] [-H holder] [-i assignments] [-j max-jobs] "
	"[-l lease-seconds] [-p partition] [-r requeue-limit] [-t time-limit] "
	"[--drain | --once] [--no-array | --array-max n] "
	"[-- ar-bench-args ...]\n"
	"job [-C campaign] experiment | @map [-- ar-bench-args ...]\n"
	"status [-C campaign]";

extern char **environ;

enum { B_LOCAL, B_SLURM };
enum { M_SERVE, M_DRAIN, M_ONCE };

static int backend;
static int mode = M_SERVE;
static const char *camp;
static char *qdir, *gdir, *piddir, *jobdir, *trydir, *logdir, *ledgerdir;
static const char *holder;
/* The holder in the queue's lease names: HOLDER.HOST.PID.START, so that
 * anyone on this host can tell a lease whose owner died from a live one,
 * from the name alone, at any instant after the claim. */
static char lease_holder[AR_ID_MAX + 1];
static char host_short[25];
static char host[256];
static long long lease_s = 120;
static double tlimit = -1;
static long maxpar = -1;
static long requeue_max = 2;
/* The most tasks of one Slurm array; 1 submits one job per experiment. */
static long array_max = 1000;
static const char *partition;
static char **bargs;          /* ar-bench's extra arguments */
static int nbargs;
static const char *bench;     /* the ar-bench program */
static char self_exe[4096];
static pid_t self_pid;
static unsigned long long self_start;
static int failures;          /* experiments recorded as failed */
static int io_errors;

/* The inventory: the slots of this node, GPU indices or CPU numbers. */
static int *inv;
static size_t ninv;
static int inv_cpu;

static volatile sig_atomic_t got_term, got_chld;
static int verbose = -1;      /* progress lines on stderr */

/* Progress: on a terminal, or with -v; never with -q. */
__attribute__((format(printf, 1, 2)))
static void
progress(const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	if (verbose <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", ar_prog(), msg);
}

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

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long
now_s(void)
{
	return (long long)time(NULL);
}

static long long
parse_num(const char *opt, const char *s, long long lo, long long hi)
{
	long long v;

	if (ar_parse_long(s, &v) < 0 || v < lo || v > hi)
		ar_die(AR_EX_USAGE, "%s %s: expected an integer from %lld to "
		    "%lld", opt, s, lo, hi);
	return v;
}

/* The start time of a process in clock ticks since boot, from
 * /proc/PID/stat; 0 when there is no such process or it is a zombie. A
 * pid is only "the same process" when its start time matches too, so a
 * reused pid is never taken for a recorded one. */
static unsigned long long
proc_start(long pid)
{
	char path[64], *p;
	struct ar_buf b = {0};
	unsigned long long v = 0;
	int f;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (ar_readfile(path, &b, 65536) == 0 && (p = strrchr(b.p, ')'))) {
		/* Field 2 ends at ')'; field 3 is the state, 22 the start. */
		if (p[1] == ' ' && p[2] != 'Z' && p[2] != 'X') {
			for (f = 2; *p && f < 22; p++)
				if (*p == ' ')
					f++;
			v = strtoull(p, NULL, 10);
		}
	}
	ar_buf_free(&b);
	return v;
}

static int
alive(long pid, unsigned long long start)
{
	unsigned long long s = proc_start(pid);

	return s != 0 && (start == 0 || s == start);
}

/* ---- the run/ files ---- */

/* run/pid/EXPERIMENT: who runs an experiment, one TSV line. expires is
 * the queue lease it describes: a restart trusts the file only while the
 * lease in the queue's name is the same one. */
struct pinfo {
	char exp[AR_ID_MAX + 1], holder[AR_ID_MAX + 1], host[256];
	long owner, child;
	unsigned long long owner_start, child_start;
	long long expires, started;
	char slots[4096];
};

static char *
pid_path(const char *exp)
{
	return ar_path(piddir, exp);
}

static int
pinfo_read(const char *exp, struct pinfo *pi)
{
	struct ar_buf b = {0};
	char *p = pid_path(exp), *f[10];
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
pinfo_write(const struct pinfo *pi)
{
	char *p = pid_path(pi->exp);
	char *s = ar_xasprintf("%s\t%s\t%s\t%ld\t%llu\t%lld\t%ld\t%llu\t%lld\t"
	    "%s\n", pi->exp, pi->holder, pi->host, pi->owner, pi->owner_start,
	    pi->expires, pi->child, pi->child_start, pi->started, pi->slots);

	if (ar_write_atomic(p, s, strlen(s), 0644) < 0) {
		ar_warn("%s:", p);
		io_errors++;
	}
	free(s);
	free(p);
}

/* Removes run/pid/EXP if this process wrote it (a taker may own it now). */
static void
pinfo_remove(const char *exp)
{
	struct pinfo pi;
	char *p = pid_path(exp);

	if (pinfo_read(exp, &pi) < 0 || (pi.owner == (long)self_pid &&
	    pi.owner_start == self_start))
		unlink(p);
	free(p);
}

static long
tries_get(const char *exp)
{
	struct ar_buf b = {0};
	char *p = ar_path(trydir, exp);
	long v = 0;

	if (ar_readfile(p, &b, 64) == 0)
		v = strtol(b.p, NULL, 10);
	ar_buf_free(&b);
	free(p);
	return v;
}

static void
tries_set(const char *exp, long v)
{
	char *p = ar_path(trydir, exp), s[32];

	snprintf(s, sizeof s, "%ld\n", v);
	if (ar_write_atomic(p, s, strlen(s), 0644) < 0) {
		ar_warn("%s:", p);
		io_errors++;
	}
	free(p);
}

/* ---- bookings: run/gpus/local@SLOT, made with link(2) ---- */

struct booking {
	char exp[AR_ID_MAX + 1], holder[AR_ID_MAX + 1];
	long pid;
	long long expires;
};

static char *
book_path(int slot)
{
	char name[64];

	snprintf(name, sizeof name, "local@%d", slot);
	return ar_path(gdir, name);
}

static int
booking_read(const char *path, struct booking *bk)
{
	struct ar_buf b = {0};
	char *f[4], *s, *t;
	size_t n = 0;
	int r = -1;

	memset(bk, 0, sizeof *bk);
	if (ar_readfile(path, &b, 4096) == 0) {
		s = b.p;
		s[strcspn(s, "\n")] = '\0';
		while (n < 4 && s) {
			f[n++] = s;
			if ((t = strchr(s, '\t')))
				*t++ = '\0';
			s = t;
		}
		if (n == 4) {
			snprintf(bk->exp, sizeof bk->exp, "%s", f[0]);
			snprintf(bk->holder, sizeof bk->holder, "%s", f[1]);
			bk->pid = strtol(f[2], NULL, 10);
			bk->expires = strtoll(f[3], NULL, 10);
			r = 0;
		}
	}
	ar_buf_free(&b);
	return r;
}

static char *
booking_line(const char *exp, long long expires)
{
	return ar_xasprintf("%s\t%s\t%ld\t%lld\n", exp, holder, (long)self_pid,
	    expires);
}

/* Removes a booking only while it is still ours. */
static void
unbook_slot(int slot, const char *exp)
{
	char *p = book_path(slot);
	struct booking bk;

	if (booking_read(p, &bk) == 0 && strcmp(bk.exp, exp) == 0 &&
	    bk.pid == (long)self_pid)
		unlink(p);
	free(p);
}

/* Books every slot, or none: on a clash the ones made are taken back. */
static int
book(const int *slot, size_t n, const char *exp, long long expires)
{
	char *line = booking_line(exp, expires);
	size_t i, j;
	int r = 0;

	for (i = 0; i < n; i++) {
		char *p = book_path(slot[i]);
		int w = ar_write_new(p, line, strlen(line), 0644);

		free(p);
		if (w != 0) {
			if (w < 0) {
				ar_warn("%s/local@%d:", gdir, slot[i]);
				io_errors++;
			}
			for (j = 0; j < i; j++)
				unbook_slot(slot[j], exp);
			r = -1;
			break;
		}
	}
	free(line);
	return r;
}

/* The slots booked now, as a flag per inventory position. */
static void
booked_now(char *used)
{
	char **names;
	size_t n, i, k;

	memset(used, 0, ninv ? ninv : 1);
	if (ar_spool_list(camp, "run/gpus", &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		long v;
		char *end;

		if (strncmp(names[i], "local@", 6) != 0)
			continue;
		v = strtol(names[i] + 6, &end, 10);
		if (*end)
			continue;
		for (k = 0; k < ninv; k++)
			if (inv[k] == v)
				used[k] = 1;
	}
	ar_spool_free_list(names, n);
}

/* ---- inventory ---- */

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static void
inv_add(int id)
{
	inv = ar_xrealloc(inv, (ninv + 1) * sizeof *inv);
	inv[ninv++] = id;
}

static void
inv_cpus(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof set, &set) < 0)
		ar_die(AR_EX_SOFTWARE, "sched_getaffinity:");
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			inv_add(i);
	inv_cpu = 1;
}

/* A topology file (ar-sched gpus): the rows of this host, or of "local",
 * or else of the file's only node. */
static void
inv_file(const char *file)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	struct ar_tsv t;
	int cn, cg, cm, r, ncpu = 0, ngpu = 0, which;
	char *first = NULL;

	if (!f)
		ar_die(AR_EX_NOINPUT, "%s:", file);
	if (ar_tsv_open(&t, f, file) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	cn = ar_tsv_need(&t, "node");
	cg = ar_tsv_need(&t, "gpu");
	cm = ar_tsv_need(&t, "model");
	/* Two passes would need the input twice; keep each row's node. */
	struct row { char *node; int id; int cpu; } *rows = NULL;
	size_t nr = 0, i;

	while ((r = ar_tsv_next(&t)) == 1) {
		long long v;

		if (ar_parse_long(t.field[cg], &v) < 0 || v < 0 || v > 1023)
			ar_die(AR_EX_DATA, "%s: line %zu: gpu: expected an "
			    "integer from 0 to 1023", file, t.lineno);
		rows = ar_xrealloc(rows, (nr + 1) * sizeof *rows);
		rows[nr].node = ar_xstrdup(t.field[cn]);
		rows[nr].id = (int)v;
		rows[nr].cpu = strcmp(t.field[cm], "cpu") == 0;
		if (!first)
			first = ar_xstrdup(t.field[cn]);
		nr++;
	}
	if (r < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
	if (f != stdin)
		fclose(f);
	if (nr == 0)
		ar_die(AR_EX_DATA, "%s: no GPUs or CPUs listed", file);
	/* 0: this host's rows; 1: "local"; 2: the only node's. */
	for (which = 0; which < 3; which++) {
		for (i = 0; i < nr; i++)
			if ((which == 0 && strcmp(rows[i].node, host) == 0) ||
			    (which == 1 && strcmp(rows[i].node, "local") == 0))
				break;
		if (i < nr || which == 2)
			break;
	}
	if (which == 2)
		for (i = 0; i < nr; i++)
			if (strcmp(rows[i].node, first) != 0)
				ar_die(AR_EX_DATA, "%s: lists several nodes and "
				    "none is this host (%s) or \"local\"", file,
				    host);
	for (i = 0; i < nr; i++) {
		if ((which == 0 && strcmp(rows[i].node, host) == 0) ||
		    (which == 1 && strcmp(rows[i].node, "local") == 0) ||
		    which == 2) {
			size_t k;

			for (k = 0; k < ninv; k++)
				if (inv[k] == rows[i].id)
					ar_die(AR_EX_DATA, "%s: %s@%d listed "
					    "twice", file, rows[i].node,
					    rows[i].id);
			inv_add(rows[i].id);
			if (rows[i].cpu)
				ncpu++;
			else
				ngpu++;
		}
	}
	for (i = 0; i < nr; i++)
		free(rows[i].node);
	free(rows);
	free(first);
	if (ncpu && ngpu)
		ar_die(AR_EX_DATA, "%s: mixes CPU slots and GPUs on one node",
		    file);
	inv_cpu = ncpu > 0;
	ar_sort(inv, ninv, sizeof *inv, cmp_int);
}

/* No inventory given: the GPUs nvidia-smi lists, else the CPUs. */
static void
inv_default(void)
{
	/* Where PATH lacks it, where NVIDIA's containers put it. */
	FILE *p = popen("{ nvidia-smi --query-gpu=index --format=csv,noheader "
	    "|| /usr/local/nvidia/bin/nvidia-smi --query-gpu=index "
	    "--format=csv,noheader; } 2>/dev/null", "r");
	char line[64];

	if (p) {
		while (fgets(line, sizeof line, p)) {
			long long v;

			line[strcspn(line, "\r\n ")] = '\0';
			if (ar_parse_long(line, &v) == 0 && v >= 0 && v < 1024)
				inv_add((int)v);
		}
		if (pclose(p) != 0) {
			free(inv);
			inv = NULL;
			ninv = 0;
		}
	}
	if (ninv == 0)
		inv_cpus();
	else
		ar_sort(inv, ninv, sizeof *inv, cmp_int);
}

/* ---- records ---- */

/* What ar-run needs of a queue record. */
struct rec {
	char exp[AR_ID_MAX + 1];
	const char *method, *workload, *idea, *purpose, *node;
	long k;
	int gpus[1024];
	size_t ngpus;
	long pmin, pmax;      /* ar-bench's -p and -P, or 0 */
	double stop_at;       /* ar-bench's --stop-at, or 0 */
	char bad[256];        /* why the record cannot run, or "" */
};

static const char *
jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) && *json_string_value(v) ?
	    json_string_value(v) : NULL;
}

/* Parses "0,2,3" into ids; -1 on garbage. */
static int
parse_ids(const char *s, int *out, size_t max, size_t *n)
{
	const char *p = s;

	*n = 0;
	while (*p) {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			return -1;
		v = strtol(p, &end, 10);
		if (v > 1023 || *n == max || (*end && *end != ',') ||
		    (*end == ',' && !end[1]))
			return -1;
		for (size_t i = 0; i < *n; i++)
			if (out[i] == v)
				return -1;
		out[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* A number from JSON or from a TSV field (a string): -1 if neither. */
static int
jlong(const json_t *v, long long *out)
{
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	return json_is_string(v) ? ar_parse_long(json_string_value(v), out) :
	    -1;
}

static int
jdouble(const json_t *v, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	return json_is_string(v) ? ar_parse_double(json_string_value(v), out) :
	    -1;
}

static void
rec_parse(const json_t *o, const char *id, struct rec *r)
{
	const json_t *k = json_object_get(o, "k");
	const char *e = jstr(o, "experiment"), *g;
	long long kv = -1;

	memset(r, 0, sizeof *r);
	snprintf(r->exp, sizeof r->exp, "%s", e ? e : id);
	r->method = jstr(o, "method");
	r->workload = jstr(o, "workload");
	r->idea = jstr(o, "idea");
	r->purpose = jstr(o, "purpose");
	r->node = jstr(o, "node");
	if (e && !ar_id_valid(e)) {
		snprintf(r->bad, sizeof r->bad, "experiment: not an id");
		snprintf(r->exp, sizeof r->exp, "%s", id);
		return;
	}
	if (jlong(k, &kv) < 0 || kv < 1 || kv > 1024) {
		snprintf(r->bad, sizeof r->bad, "k: expected an integer from "
		    "1 to 1024");
		return;
	}
	r->k = (long)kv;
	if (r->purpose && strcmp(r->purpose, "aa") == 0)
		r->method = NULL;
	else if (!r->method || r->method[0] == '-') {
		snprintf(r->bad, sizeof r->bad, "method: %s", r->method ?
		    "starts with '-'" : "missing");
		return;
	}
	if (r->workload && r->workload[0] == '-') {
		snprintf(r->bad, sizeof r->bad, "workload: starts with '-'");
		return;
	}
	if (r->idea && r->idea[0] == '-') {
		snprintf(r->bad, sizeof r->bad, "idea: starts with '-'");
		return;
	}
	if ((g = jstr(o, "gpus")) && (parse_ids(g, r->gpus, 1024,
	    &r->ngpus) < 0 || r->ngpus != (size_t)r->k)) {
		snprintf(r->bad, sizeof r->bad, "gpus: expected %ld distinct "
		    "indices, comma-separated", r->k);
		return;
	}
	/* The scheduler's size of the measurement: both pair limits or
	 * neither, as ar-bench checks them. */
	{
		const json_t *a = json_object_get(o, "min_pairs");
		const json_t *b = json_object_get(o, "max_pairs");
		const json_t *z = json_object_get(o, "stop_at");

		long long pa = -1, pb = -1;
		double zv = NAN;

		if (a || b) {
			if (jlong(a, &pa) < 0 || jlong(b, &pb) < 0 || pa < 1 ||
			    pb > 1000000 || pb < pa) {
				snprintf(r->bad, sizeof r->bad, "min_pairs, "
				    "max_pairs: expected whole numbers, 1 <= "
				    "min_pairs <= max_pairs <= 1000000");
				return;
			}
			r->pmin = (long)pa;
			r->pmax = (long)pb;
		}
		if (z) {
			if (jdouble(z, &zv) < 0 || !(zv >= 1e-6 && zv <= 1e6)) {
				snprintf(r->bad, sizeof r->bad, "stop_at: expected "
				    "a number from 1e-06 to 1e+06");
				return;
			}
			r->stop_at = zv;
		}
	}
}

static json_t *
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

/* ---- the runs of this process ---- */

struct run {
	struct ar_lease l;
	json_t *o;
	struct rec r;
	int slot[1024];
	size_t nslot;
	pid_t pid;            /* the ar-bench child; 0 when none */
	unsigned long long pstart;
	long long started;
	double t0, deadline, killat;
	long long renewed;
	int timed_out, stopped, lost;
	char jid[64];         /* slurm: JOBID, or ARRAYID_TASK */
	char map[AR_ID_MAX + 2]; /* its array's map in run/jobs, or "" */
	char jnode[256];
	int jsubmitted;
};

static struct run **runs;
static size_t nruns;

static struct run *
run_new(void)
{
	struct run *r = ar_xcalloc(1, sizeof *r);

	runs = ar_xrealloc(runs, (nruns + 1) * sizeof *runs);
	runs[nruns++] = r;
	return r;
}

static void
run_free(struct run *r)
{
	size_t i;

	for (i = 0; i < nruns; i++)
		if (runs[i] == r) {
			memmove(runs + i, runs + i + 1, (nruns - i - 1) *
			    sizeof *runs);
			nruns--;
			break;
		}
	json_decref(r->o);
	free(r);
}

static void
slots_str(char *out, size_t n, const int *slot, size_t ns)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < ns && len + 8 < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%d", i ? "," :
		    "", slot[i]);
}

static void
run_pinfo(const struct run *r, struct pinfo *pi)
{
	memset(pi, 0, sizeof *pi);
	snprintf(pi->exp, sizeof pi->exp, "%s", r->r.exp);
	snprintf(pi->holder, sizeof pi->holder, "%s", holder);
	snprintf(pi->host, sizeof pi->host, "%s", host);
	pi->owner = (long)self_pid;
	pi->owner_start = self_start;
	pi->expires = r->l.expires;
	pi->child = (long)r->pid;
	pi->child_start = r->pstart;
	pi->started = r->started;
	if (backend == B_SLURM)
		snprintf(pi->slots, sizeof pi->slots, "slurm");
	else
		slots_str(pi->slots, sizeof pi->slots, r->slot, r->nslot);
}

static void
run_save(const struct run *r)
{
	struct pinfo pi;

	run_pinfo(r, &pi);
	pinfo_write(&pi);
}

static int header_done;

static void
print_header(void)
{
	if (header_done++)
		return;
	printf("experiment\tmethod\tk\tgpus\tnode\tstatus\tverdict\t"
	    "result\tseconds\n");
	fflush(stdout);
}

static void
print_line(const char *exp, const char *method, long k, const char *gpus,
    const char *node, const char *status, const char *verdict,
    const char *resid, double secs)
{
	char sec[32] = "";

	if (secs >= 0)
		snprintf(sec, sizeof sec, "%.1f", secs);
	print_header();
	ar_tsv_put(stdout, exp);
	putchar('\t');
	ar_tsv_put(stdout, method ? method : "");
	printf("\t%ld\t", k);
	ar_tsv_put(stdout, gpus);
	putchar('\t');
	ar_tsv_put(stdout, node);
	printf("\t%s\t", status);
	ar_tsv_put(stdout, verdict ? verdict : "");
	putchar('\t');
	ar_tsv_put(stdout, resid ? resid : "");
	printf("\t%s\n", sec);
	if (fflush(stdout) != 0)
		io_errors++;
}

/* Moves a claimed record to its end: "done", "failed" (with why) or back
 * to "new". 0 when moved; -1 when the lease was lost or the move failed. */
static int
spool_end(struct ar_lease *l, const char *to, const char *why)
{
	char *w = NULL;
	int r;

	if (to[0] == 'f') {
		char *line = ar_xasprintf("%s\n", why ? why : "");

		w = ar_spool_path(qdir, "why", l->name);
		if (ar_write_atomic(w, line, strlen(line), 0644) < 0) {
			ar_warn("%s:", w);
			io_errors++;
		}
		free(line);
	}
	r = ar_spool_finish(qdir, l, to);
	if (r != AR_SP_OK) {
		if (w)
			unlink(w);
		if (r == AR_SP_GONE)
			ar_warn("%s: lease lost (expired and taken by "
			    "another)", l->id);
		else {
			ar_warn("%s: cannot move %s to %s:", qdir, l->id, to);
			io_errors++;
		}
	}
	free(w);
	return r == AR_SP_OK ? 0 : -1;
}

/* The result of an experiment: the last line of its .out that is a JSON
 * object naming it, as ar-bench prints it. */
static int
result_from_out(const char *exp, char *resid, size_t nid, char *verdict,
    size_t nv)
{
	char *p = ar_xasprintf("%s/%s.out", logdir, exp);
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
				const char *e = j ? jstr(j, "experiment") : NULL;

				if (e && strcmp(e, exp) == 0 && jstr(j, "id")) {
					snprintf(resid, nid, "%s", jstr(j, "id"));
					snprintf(verdict, nv, "%s",
					    jstr(j, "verdict") ? jstr(j,
					    "verdict") : "");
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

/* Results in the ledger for a set of experiments, in one scan. */
struct lfind {
	size_t n;
	const char **exp;
	char (*id)[AR_ID_MAX + 1];
	char (*verdict)[32];
	int *found;
};

static int
lfind_row(const struct ar_row *row, void *arg)
{
	struct lfind *lf = arg;
	char err[128];
	json_t *j;
	const char *e;
	size_t i;

	if (row->bad || !row->json || !memmem(row->json, row->jsonlen,
	    "\"experiment\"", 12))
		return 0;
	if (!(j = ar_json_parse(row->json, row->jsonlen, err, sizeof err)))
		return 0;
	if ((e = jstr(j, "experiment")))
		for (i = 0; i < lf->n; i++)
			if (strcmp(e, lf->exp[i]) == 0 && jstr(j, "id")) {
				lf->found[i] = 1;
				snprintf(lf->id[i], sizeof lf->id[i], "%s",
				    jstr(j, "id"));
				snprintf(lf->verdict[i], sizeof lf->verdict[i],
				    "%s", jstr(j, "verdict") ? jstr(j,
				    "verdict") : "");
			}
	json_decref(j);
	return 0;
}

static void
ledger_find(struct lfind *lf)
{
	struct ar_ledger led;
	char err[512];

	if (lf->n == 0)
		return;
	if (ar_ledger_open(&led, ledgerdir, 0, err, sizeof err) < 0) {
		ar_warn("%s", err);
		return;
	}
	if (ar_ledger_scan(&led, lfind_row, lf, err, sizeof err) != 0)
		ar_warn("%s", err);
	ar_ledger_close(&led);
}

static void
lfind_init(struct lfind *lf, size_t n)
{
	memset(lf, 0, sizeof *lf);
	lf->exp = ar_xcalloc(n ? n : 1, sizeof *lf->exp);
	lf->id = ar_xcalloc(n ? n : 1, sizeof *lf->id);
	lf->verdict = ar_xcalloc(n ? n : 1, sizeof *lf->verdict);
	lf->found = ar_xcalloc(n ? n : 1, sizeof *lf->found);
}

static void
lfind_free(struct lfind *lf)
{
	free(lf->exp);
	free(lf->id);
	free(lf->verdict);
	free(lf->found);
}

/* The last line of an experiment's .err, for a why. */
static void
err_tail(const char *exp, char *out, size_t n)
{
	char *p = ar_xasprintf("%s/%s.err", logdir, exp);
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

/* ---- starting and ending local runs ---- */

static char **
bench_argv(const struct run *r, const char *gpulist)
{
	char **av = ar_xcalloc((size_t)nbargs + 32, sizeof *av);
	size_t n = 0;
	int i;

	av[n++] = ar_xstrdup(bench);
	av[n++] = ar_xstrdup("-C");
	av[n++] = ar_xstrdup(camp);
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
	av[n++] = ar_xstrdup(r->r.exp);
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
	if (gpulist) {
		av[n++] = ar_xstrdup("-G");
		av[n++] = ar_xstrdup(gpulist);
	}
	for (i = 0; i < nbargs; i++)
		av[n++] = ar_xstrdup(bargs[i]);
	return av;
}

static void
free_argv(char **av)
{
	size_t i;

	for (i = 0; av && av[i]; i++)
		free(av[i]);
	free(av);
}

/* The environment for ar-bench: ours, with CUDA_VISIBLE_DEVICES set to the
 * bundle (or removed on the CPU path). */
static char **
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

static sigset_t orig_mask;

/* Forks and runs ar-bench for r; the child is its own process group, so a
 * kill reaches everything it started, and it dies with ar-run. */
static int
spawn(char **av, char **env, const int *cpus, size_t ncpu, const char *exp,
    pid_t *pidp)
{
	char *out = ar_xasprintf("%s/%s.out", logdir, exp);
	char *err = ar_xasprintf("%s/%s.err", logdir, exp);
	int fo = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int fe = open(err, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int fi = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t parent = getpid(), pid;
	int e = 0;

	if (fo < 0 || fe < 0 || fi < 0) {
		e = errno;
		ar_warn("%s:", fo < 0 ? out : fe < 0 ? err : "/dev/null");
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		ar_warn("fork:");
		goto out;
	}
	if (pid == 0) {
		cpu_set_t set;
		size_t i;

		setpgid(0, 0);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &orig_mask, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(75);
		if (ncpu) {
			CPU_ZERO(&set);
			for (i = 0; i < ncpu; i++)
				CPU_SET(cpus[i], &set);
			if (sched_setaffinity(0, sizeof set, &set) < 0) {
				dprintf(fe, "ar-run: sched_setaffinity: %s\n",
				    strerror(errno));
				_exit(126);
			}
		}
		if (dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		execvpe(av[0], av, env);
		dprintf(2, "ar-run: %s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	*pidp = pid;
out:
	if (fo >= 0)
		close(fo);
	if (fe >= 0)
		close(fe);
	if (fi >= 0)
		close(fi);
	free(out);
	free(err);
	errno = e;
	return e ? -1 : 0;
}

static int
start_local(struct run *r)
{
	char list[4096];
	char **av, **env;
	int rc;

	slots_str(list, sizeof list, r->slot, r->nslot);
	av = bench_argv(r, inv_cpu ? NULL : list);
	env = bench_env(inv_cpu ? NULL : list);
	r->started = now_s();
	r->t0 = mono();
	r->deadline = r->t0 + tlimit;
	rc = spawn(av, env, inv_cpu ? r->slot : NULL, inv_cpu ? r->nslot : 0,
	    r->r.exp, &r->pid);
	if (rc == 0) {
		r->pstart = proc_start(r->pid);
		run_save(r);
		progress("%s: started on %s %s", r->r.exp, inv_cpu ? "CPUs" :
		    "GPUs", list);
	}
	free_argv(av);
	{
		char **e;

		for (e = env; *e; e++)
			if (strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0)
				free(*e);
		free(env);
	}
	return rc;
}

static void
release_slots(struct run *r)
{
	size_t i;

	for (i = 0; i < r->nslot; i++)
		unbook_slot(r->slot[i], r->r.exp);
	r->nslot = 0;
}

/* Ends a run: the queue first (the record's fate is then durable), then
 * the bookings, then run/pid. */
static void
conclude(struct run *r, const char *status, const char *why,
    const char *verdict, const char *resid, double secs)
{
	char gpus[4096];
	const char *to = strcmp(status, "done") == 0 ? "done" :
	    strcmp(status, "requeue") == 0 ? "new" : "failed";
	char *full = NULL;
	int moved;

	slots_str(gpus, sizeof gpus, r->slot, r->nslot);
	if (strcmp(to, "failed") == 0)
		full = ar_xasprintf("%s: %s", status, why ? why : "");
	moved = r->lost ? -1 : spool_end(&r->l, to, full);
	release_slots(r);
	pinfo_remove(r->r.exp);
	if (moved == 0 && strcmp(to, "new") != 0) {
		print_line(r->r.exp, r->r.method, r->r.k, gpus,
		    backend == B_SLURM ? r->jnode : "local", status, verdict,
		    resid, secs);
		if (strcmp(to, "failed") == 0)
			failures += strcmp(status, "failed") == 0;
		progress("%s: %s%s%s", r->r.exp, status, why ? ": " : "",
		    why ? why : "");
	} else if (moved == 0)
		progress("%s: back in the queue%s%s", r->r.exp, why ? ": " : "",
		    why ? why : "");
	free(full);
}

/* The status of an ar-bench that ended with wait status st. */
static void
judge(struct run *r, int st, int stopped, int timed_out, double secs)
{
	char why[512], tail[256], resid[AR_ID_MAX + 1], verdict[32];

	err_tail(r->r.exp, tail, sizeof tail);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		if (result_from_out(r->r.exp, resid, sizeof resid, verdict,
		    sizeof verdict)) {
			conclude(r, "done", NULL, verdict, resid, secs);
			return;
		}
		{
			struct lfind lf;

			lfind_init(&lf, 1);
			lf.exp[0] = r->r.exp;
			lf.n = 1;
			ledger_find(&lf);
			if (lf.found[0]) {
				conclude(r, "done", NULL, lf.verdict[0],
				    lf.id[0], secs);
				lfind_free(&lf);
				return;
			}
			lfind_free(&lf);
		}
		conclude(r, "failed", "ar-bench exited 0 but no result "
		    "names the experiment", NULL, NULL, secs);
		return;
	}
	if (timed_out) {
		snprintf(why, sizeof why, "killed at the time limit of %.0f s",
		    tlimit);
		conclude(r, "timeout", why, NULL, NULL, secs);
		return;
	}
	if (stopped) {
		conclude(r, "requeue", "ar-run was interrupted", NULL, NULL,
		    secs);
		return;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, sizeof why, "ar-bench killed by signal %d (%s)%s",
		    WTERMSIG(st), strsignal(WTERMSIG(st)), tail);
		conclude(r, "crash", why, NULL, NULL, secs);
		return;
	}
	switch (WEXITSTATUS(st)) {
	case AR_EX_TEMPFAIL: {
		long t = tries_get(r->r.exp) + 1;

		tries_set(r->r.exp, t);
		if (t > requeue_max) {
			snprintf(why, sizeof why, "ar-bench interrupted %ld "
			    "time%s%s", t, t == 1 ? "" : "s", tail);
			conclude(r, "failed", why, NULL, NULL, secs);
		} else
			conclude(r, "requeue", "ar-bench was interrupted",
			    NULL, NULL, secs);
		return;
	}
	case AR_EX_NO: case AR_EX_USAGE: case AR_EX_DATA: case AR_EX_NOINPUT:
	case AR_EX_UNAVAILABLE: case AR_EX_CANTCREAT: case 126: case 127:
		snprintf(why, sizeof why, "ar-bench exited %d%s",
		    WEXITSTATUS(st), tail);
		conclude(r, "failed", why, NULL, NULL, secs);
		return;
	default:
		snprintf(why, sizeof why, "ar-bench exited %d%s",
		    WEXITSTATUS(st), tail);
		conclude(r, "crash", why, NULL, NULL, secs);
	}
}

static struct run *
run_by_pid(pid_t pid)
{
	size_t i;

	for (i = 0; i < nruns; i++)
		if (runs[i]->pid == pid)
			return runs[i];
	return NULL;
}

static void
reap_children(void)
{
	pid_t p;
	int st;

	got_chld = 0;
	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		struct run *r = run_by_pid(p);
		double secs;

		if (!r)
			continue;
		/* What the run left behind in its group goes with it. */
		kill(-p, SIGKILL);
		secs = mono() - r->t0;
		r->pid = 0;
		if (r->lost) {
			release_slots(r);
			pinfo_remove(r->r.exp);
		} else
			judge(r, st, r->stopped, r->timed_out, secs);
		run_free(r);
	}
}

/* Renews the leases, bookings and run/pid files that are due; a lease
 * found lost means another process took the record: our run stops. */
static void
renew_due(void)
{
	long long now = now_s(), every = lease_s / 3 > 0 ? lease_s / 3 : 1;
	size_t i, j;

	for (i = 0; i < nruns; i++) {
		struct run *r = runs[i];
		char *line;
		int rc;

		if (r->lost || now - r->renewed < every)
			continue;
		rc = ar_spool_renew(qdir, &r->l, now + lease_s);
		r->renewed = now;
		if (rc == AR_SP_GONE) {
			ar_warn("%s: lease lost; stopping its run",
			    r->r.exp);
			r->lost = 1;
			if (r->pid)
				kill(-r->pid, SIGKILL);
			continue;
		}
		if (rc != AR_SP_OK) {
			ar_warn("%s: renew %s:", qdir, r->r.exp);
			continue;
		}
		run_save(r);
		line = booking_line(r->r.exp, r->l.expires);
		for (j = 0; j < r->nslot; j++) {
			char *p = book_path(r->slot[j]);
			struct booking bk;

			if (booking_read(p, &bk) == 0 &&
			    strcmp(bk.exp, r->r.exp) == 0 &&
			    bk.pid == (long)self_pid &&
			    ar_write_atomic(p, line, strlen(line), 0644) < 0)
				ar_warn("%s:", p);
			free(p);
		}
		free(line);
	}
}

static void
check_limits(void)
{
	double t = mono();
	size_t i;

	for (i = 0; i < nruns; i++) {
		struct run *r = runs[i];

		if (!r->pid)
			continue;
		if (!r->timed_out && t >= r->deadline) {
			ar_warn("%s: time limit of %.0f s reached; killing it",
			    r->r.exp, tlimit);
			r->timed_out = 1;
			kill(-r->pid, SIGTERM);
			r->killat = t + 5;
		} else if (r->killat > 0 && t >= r->killat) {
			kill(-r->pid, SIGKILL);
			r->killat = 0;
		}
	}
}

/* ---- claiming ---- */

/* The first free aligned block of k slots, or the record's own GPUs. */
static int
pick_slots(const struct rec *rc, const char *used, int *out)
{
	size_t i, j, step;
	long k = rc->k;

	if (rc->ngpus) {
		for (i = 0; i < rc->ngpus; i++) {
			for (j = 0; j < ninv; j++)
				if (inv[j] == rc->gpus[i])
					break;
			if (j == ninv || used[j])
				break;
			out[i] = rc->gpus[i];
		}
		if (i == rc->ngpus)
			return 0;
	}
	step = (k & (k - 1)) == 0 ? (size_t)k : 1;
	for (i = 0; i + (size_t)k <= ninv; i += step) {
		for (j = 0; j < (size_t)k; j++)
			if (used[i + j])
				break;
		if (j == (size_t)k) {
			for (j = 0; j < (size_t)k; j++)
				out[j] = inv[i + j];
			return 0;
		}
	}
	return -1;
}

/* Claims new/NAME by renaming it into cur/ under our lease. */
static int
claim_name(const char *name, struct ar_lease *l)
{
	char lname[3 * AR_ID_MAX];
	char *src, *dst;
	int r;

	if (ar_spool_parse(name, l) < 0 || l->expires)
		return -1;
	l->expires = now_s() + lease_s;
	snprintf(l->holder, sizeof l->holder, "%s", lease_holder);
	ar_spool_lease_name(lname, sizeof lname, l);
	src = ar_spool_path(qdir, "new", name);
	dst = ar_spool_path(qdir, "cur", lname);
	r = rename(src, dst);
	free(src);
	free(dst);
	return r;
}

static int
exp_running(const char *exp)
{
	size_t i;

	for (i = 0; i < nruns; i++)
		if (strcmp(runs[i]->r.exp, exp) == 0)
			return 1;
	return 0;
}

static void kill_wait(long pid, unsigned long long start);
static size_t submit_pending(struct run **pend, size_t n);
static int job_file_exists(const char *exp);
static void adopt_slurm(struct run *r, const struct pinfo *pi, int have_pi);

/* A record claimed again after an earlier attempt that left run/pid: the
 * earlier ar-bench may have finished its result. */
static int
earlier_result(struct run *r)
{
	struct pinfo pi;
	struct lfind lf;
	int found;

	if (pinfo_read(r->r.exp, &pi) < 0)
		return 0;
	if (strcmp(pi.host, host) == 0 && pi.child)
		kill_wait(pi.child, pi.child_start);
	lfind_init(&lf, 1);
	lf.exp[0] = r->r.exp;
	lf.n = 1;
	ledger_find(&lf);
	found = lf.found[0];
	if (found) {
		snprintf(r->jnode, sizeof r->jnode, "%s", backend == B_SLURM ?
		    "" : "local");
		conclude(r, "done", NULL, lf.verdict[0], lf.id[0], -1);
	}
	lfind_free(&lf);
	return found;
}

/* What claiming needs of each waiting record, kept by name: a record in
 * new/ never changes, so each is read once, not at every poll. */
struct shape {
	char *name;
	char exp[AR_ID_MAX + 1];
	long k;
	int *gpus;
	size_t ngpus;
	int bad;              /* cannot run: claimed only to be failed */
};
static struct shape *shapes;
static size_t nshapes;

static void
shape_free(struct shape *sh)
{
	free(sh->name);
	free(sh->gpus);
}

/* The shapes of new/'s records, in claim order, from the cache where it
 * has them. */
static void
shapes_update(char **names, size_t n)
{
	struct shape *ns = ar_xcalloc(n ? n : 1, sizeof *ns);
	size_t i, j = 0, m = 0;

	for (i = 0; i < n; i++) {
		struct ar_lease l;
		int c = 1;

		if (ar_spool_parse(names[i], &l) < 0 || l.expires)
			continue;
		while (j < nshapes && (c = strcmp(shapes[j].name,
		    names[i])) < 0)
			shape_free(&shapes[j++]);
		if (j < nshapes && c == 0) {
			ns[m++] = shapes[j++];
			continue;
		}
		{
			char *p = ar_spool_path(qdir, "new", names[i]);
			json_t *o = rec_load(p);
			struct rec rc;

			free(p);
			if (!o && errno == ENOENT)
				continue;      /* another took it */
			memset(&ns[m], 0, sizeof ns[m]);
			ns[m].name = ar_xstrdup(names[i]);
			if (o) {
				rec_parse(o, l.id, &rc);
				snprintf(ns[m].exp, sizeof ns[m].exp, "%s",
				    rc.exp);
				ns[m].k = rc.k;
				ns[m].bad = rc.bad[0] != '\0' ||
				    (backend == B_LOCAL && (size_t)rc.k > ninv);
				if (rc.ngpus) {
					ns[m].gpus = ar_xmalloc(rc.ngpus *
					    sizeof *ns[m].gpus);
					memcpy(ns[m].gpus, rc.gpus, rc.ngpus *
					    sizeof *rc.gpus);
					ns[m].ngpus = rc.ngpus;
				}
			} else
				ns[m].bad = 1;
			json_decref(o);
			m++;
		}
	}
	while (j < nshapes)
		shape_free(&shapes[j++]);
	free(shapes);
	shapes = ns;
	nshapes = m;
}

static double sbatch_retry;

/* Claims and starts what fits now; returns how many started. */
static size_t
claim_fitting(void)
{
	char **names, *used;
	size_t n, i, j, started = 0, nfree = 0, npend = 0;
	struct run **pend = NULL;

	if (nruns >= (size_t)maxpar || mono() < sbatch_retry)
		return 0;
	if (ar_spool_list(qdir, "new", &names, &n) < 0) {
		ar_warn("%s/new:", qdir);
		io_errors++;
		return 0;
	}
	shapes_update(names, n);
	ar_spool_free_list(names, n);
	used = ar_xmalloc(ninv ? ninv : 1);
	if (backend == B_LOCAL) {
		booked_now(used);
		for (i = 0; i < ninv; i++)
			nfree += !used[i];
	}
	for (i = 0; i < nshapes && nruns < (size_t)maxpar && !got_term; i++) {
		struct shape *sh = &shapes[i];
		struct ar_lease l;
		char lname[3 * AR_ID_MAX], *p;
		json_t *o;
		struct rec rc;
		int slot[1024];
		struct run *r;

		if (!sh->bad) {
			if (exp_running(sh->exp))
				continue;
			if (backend == B_LOCAL) {
				if ((size_t)sh->k > nfree)
					continue;
				memset(&rc, 0, sizeof rc);
				rc.k = sh->k;
				if (sh->ngpus)
					memcpy(rc.gpus, sh->gpus, sh->ngpus *
					    sizeof *sh->gpus);
				rc.ngpus = sh->ngpus;
				if (pick_slots(&rc, used, slot) < 0)
					continue;
			}
		}
		if (claim_name(sh->name, &l) < 0)
			continue;
		ar_spool_lease_name(lname, sizeof lname, &l);
		p = ar_spool_path(qdir, "cur", lname);
		o = rec_load(p);
		free(p);
		r = run_new();
		r->l = l;
		r->o = o;
		r->renewed = now_s();
		if (!o) {
			snprintf(r->r.exp, sizeof r->r.exp, "%s", l.id);
			conclude(r, "failed", "unreadable record", NULL, NULL,
			    -1);
			run_free(r);
			continue;
		}
		/* r->r's strings point into r->o, which r keeps. */
		rec_parse(r->o, l.id, &r->r);
		if (!r->r.bad[0] && backend == B_LOCAL && (size_t)r->r.k > ninv)
			snprintf(r->r.bad, sizeof r->r.bad, "k=%ld: the "
			    "inventory has %zu %s", r->r.k, ninv,
			    inv_cpu ? "CPUs" : "GPUs");
		if (r->r.bad[0]) {
			conclude(r, "failed", r->r.bad, NULL, NULL, -1);
			run_free(r);
			continue;
		}
		if (earlier_result(r)) {
			run_free(r);
			continue;
		}
		/* A record put back in new/ (a reap by hand) while its job
		 * still runs: that job is adopted, never submitted twice. */
		if (backend == B_SLURM && job_file_exists(r->r.exp)) {
			adopt_slurm(r, NULL, 0);
			started++;
			continue;
		}
		if (backend == B_SLURM) {
			/* Submitted after the round, so that records of one
			 * k can go out as one array. */
			run_save(r);
			pend = ar_xrealloc(pend, (npend + 1) * sizeof *pend);
			pend[npend++] = r;
			started++;
			continue;
		}
		memcpy(r->slot, slot, (size_t)r->r.k * sizeof *slot);
		r->nslot = (size_t)r->r.k;
		run_save(r);
		if (book(r->slot, r->nslot, r->r.exp, r->l.expires) < 0) {
			/* Another process booked one of them first. */
			r->nslot = 0;
			conclude(r, "requeue", NULL, NULL, NULL, -1);
			run_free(r);
			booked_now(used);
			for (nfree = 0, j = 0; j < ninv; j++)
				nfree += !used[j];
			continue;
		}
		for (j = 0; j < r->nslot; j++)
			for (size_t q = 0; q < ninv; q++)
				if (inv[q] == r->slot[j] && !used[q]) {
					used[q] = 1;
					nfree--;
				}
		if (start_local(r) < 0) {
			conclude(r, "failed", "cannot start ar-bench", NULL,
			    NULL, -1);
			run_free(r);
			continue;
		}
		started++;
	}
	if (npend)
		started -= submit_pending(pend, npend);
	free(pend);
	free(used);
	return started;
}

/* Whether new/ holds any record. */
static int
queue_waiting(void)
{
	char **names;
	size_t n, i;
	struct ar_lease l;
	int any = 0;

	if (ar_spool_list(qdir, "new", &names, &n) < 0)
		return 1;
	for (i = 0; i < n && !any; i++)
		if (ar_spool_parse(names[i], &l) == 0 && !l.expires)
			any = 1;
	ar_spool_free_list(names, n);
	return any;
}

/* ---- recovery: records whose runner died ---- */

/* Stops a recorded process (not our child) and waits for it to go. */
static void
kill_wait(long pid, unsigned long long start)
{
	double t0 = mono();
	int sig = SIGTERM;

	if (!alive(pid, start))
		return;
	ar_warn("process %ld of an earlier run is still alive; stopping it",
	    pid);
	kill(-(pid_t)pid, sig);
	kill((pid_t)pid, sig);
	while (alive(pid, start)) {
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

static int
job_file_exists(const char *exp)
{
	char *p = ar_path(jobdir, exp);
	struct stat st;
	int r = stat(p, &st) == 0;

	free(p);
	return r;
}

static void adopt_slurm(struct run *r, const struct pinfo *pi, int have_pi);

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

/* A record in cur/ is stale when the ar-run its lease names, on this host,
 * is dead, or when its lease expired. */
static int
stale(const struct ar_lease *l, const char *exp, struct pinfo *pi,
    int *have_pi)
{
	char h[64];
	long pid;
	unsigned long long start;

	*have_pi = pinfo_read(exp, pi) == 0;
	if (strcmp(l->holder, lease_holder) == 0)
		return 0;
	if (lease_owner(l->holder, h, sizeof h, &pid, &start) == 0 &&
	    strcmp(h, host_short) == 0 && !alive(pid, start))
		return 1;
	return l->expires < now_s();
}

/* Breaks bookings whose owner is dead and whose experiment runs nowhere. */
static void
free_stale_bookings(void)
{
	char **names;
	size_t n, i;
	long long now = now_s();

	if (ar_spool_list(camp, "run/gpus", &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		char *p = ar_path(gdir, names[i]), *t;
		struct booking bk;
		struct pinfo pi;
		int have;

		if (booking_read(p, &bk) < 0 || bk.pid == (long)self_pid ||
		    kill((pid_t)bk.pid, 0) == 0 || errno != ESRCH) {
			/* A live pid may still be a reused one: the run/pid
			 * file's start time tells. */
			have = booking_read(p, &bk) == 0 &&
			    pinfo_read(bk.exp, &pi) == 0;
			if (!have || bk.pid == (long)self_pid ||
			    pi.owner != bk.pid ||
			    alive(pi.owner, pi.owner_start)) {
				free(p);
				continue;
			}
		}
		have = pinfo_read(bk.exp, &pi) == 0;
		if (have && pi.owner == bk.pid && strcmp(pi.host, host) == 0 &&
		    pi.child && alive(pi.child, pi.child_start) &&
		    bk.expires >= now) {
			free(p);
			continue;
		}
		t = ar_tmpname(gdir, "broken");
		if (rename(p, t) == 0) {
			ar_warn("freed %s, booked by dead process %ld for %s",
			    names[i], bk.pid, bk.exp);
			unlink(t);
		}
		free(t);
		free(p);
	}
	ar_spool_free_list(names, n);
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
free_stale_pids(char **cur, size_t nc)
{
	char **names;
	size_t n, i, j;

	if (ar_spool_list(camp, "run/pid", &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		struct pinfo pi;

		if (pinfo_read(names[i], &pi) < 0 || strcmp(pi.host, host) ||
		    alive(pi.owner, pi.owner_start) || exp_running(names[i]))
			continue;
		for (j = 0; j < nc; j++)
			if (strcmp(cur[j], names[i]) == 0)
				break;
		if (j < nc || (pi.child && alive(pi.child, pi.child_start)) ||
		    job_file_exists(names[i]))
			continue;
		{
			char *p = pid_path(names[i]);

			unlink(p);
			free(p);
		}
	}
	ar_spool_free_list(names, n);
}

static long long last_recover;

/* Takes over the stale records of cur/: their runner's child is stopped,
 * the ledger says whether the result landed (done) or not (back to new;
 * a Slurm job is adopted instead). */
static void
recover(void)
{
	char **names;
	size_t n, i, nt = 0;
	struct run **taken;
	struct lfind lf;
	char **curexp;
	size_t ncur = 0;

	last_recover = now_s();
	if (ar_spool_list(qdir, "cur", &names, &n) < 0) {
		ar_warn("%s/cur:", qdir);
		return;
	}
	taken = ar_xcalloc(n ? n : 1, sizeof *taken);
	curexp = ar_xcalloc(n ? n : 1, sizeof *curexp);
	for (i = 0; i < n; i++) {
		struct ar_lease l, nl;
		struct pinfo pi;
		char *p, oname[3 * AR_ID_MAX], nname[3 * AR_ID_MAX], *src,
		    *dst;
		json_t *o;
		struct run *r;
		int have, jobs, mv;

		if (ar_spool_parse(names[i], &l) < 0 || !l.expires)
			continue;
		p = ar_spool_path(qdir, "cur", names[i]);
		o = rec_load(p);
		free(p);
		{
			struct rec rc;

			if (o)
				rec_parse(o, l.id, &rc);
			else
				snprintf(rc.exp, sizeof rc.exp, "%s", l.id);
			curexp[ncur++] = ar_xstrdup(rc.exp);
			if (exp_running(rc.exp) || !stale(&l, rc.exp, &pi,
			    &have)) {
				json_decref(o);
				continue;
			}
			jobs = job_file_exists(rc.exp);
			/* A Slurm job runs on without its ar-run: only an
			 * ar-run slurm adopts it. */
			if (backend == B_LOCAL && (jobs || (have &&
			    strcmp(pi.slots, "slurm") == 0))) {
				json_decref(o);
				continue;
			}
		}
		nl = l;
		nl.expires = now_s() + lease_s;
		snprintf(nl.holder, sizeof nl.holder, "%s", lease_holder);
		ar_spool_lease_name(oname, sizeof oname, &l);
		ar_spool_lease_name(nname, sizeof nname, &nl);
		src = ar_spool_path(qdir, "cur", oname);
		dst = ar_spool_path(qdir, "cur", nname);
		mv = rename(src, dst);
		free(src);
		free(dst);
		if (mv < 0) {
			json_decref(o);
			continue;
		}
		r = run_new();
		r->l = nl;
		r->o = o ? o : json_object();
		r->renewed = now_s();
		rec_parse(r->o, l.id, &r->r);
		ar_warn("%s: taking over from %s (%s)", r->r.exp, l.holder,
		    have ? "its runner died" : "lease expired");
		if (have && pi.slots[0])
			parse_ids(pi.slots, r->slot, 1024, &r->nslot);
		if (have && pi.started)
			r->started = pi.started;
		if (have && strcmp(pi.host, host) == 0 && pi.child)
			kill_wait(pi.child, pi.child_start);
		if (backend == B_SLURM) {
			adopt_slurm(r, &pi, have);
			continue;
		}
		run_save(r);
		taken[nt++] = r;
	}
	ar_spool_free_list(names, n);
	lfind_init(&lf, nt);
	for (i = 0; i < nt; i++)
		lf.exp[i] = taken[i]->r.exp;
	lf.n = nt;
	ledger_find(&lf);
	for (i = 0; i < nt; i++) {
		struct run *r = taken[i];
		/* The bookings the dead runner held become ours to free. */
		char **bn;
		size_t nb, b;

		if (ar_spool_list(camp, "run/gpus", &bn, &nb) == 0) {
			for (b = 0; b < nb; b++) {
				char *p = ar_path(gdir, bn[b]);
				struct booking bk;

				if (booking_read(p, &bk) == 0 &&
				    strcmp(bk.exp, r->r.exp) == 0)
					unlink(p);
				free(p);
			}
			ar_spool_free_list(bn, nb);
		}
		{
			double secs = r->started ? (double)(now_s() -
			    r->started) : -1;

			snprintf(r->jnode, sizeof r->jnode, "local");
			if (lf.found[i])
				conclude(r, "done", NULL, lf.verdict[i],
				    lf.id[i], secs);
			else
				conclude(r, "requeue", "its runner died", NULL,
				    NULL, -1);
		}
		run_free(r);
	}
	lfind_free(&lf);
	free(taken);
	if (backend == B_LOCAL)
		free_stale_bookings();
	free_stale_pids(curexp, ncur);
	for (i = 0; i < ncur; i++)
		free(curexp[i]);
	free(curexp);
	free_stale_tmp(gdir);
	free_stale_tmp(piddir);
	free_stale_tmp(jobdir);
	free_stale_tmp(trydir);
}

/* ---- -i: assignments TSV into the queue ---- */

/* Whether an experiment is in the queue already: a record of that id in
 * any state, or a waiting or claimed record that names it. */
static int
id_in_spool(char ***ids, size_t *nids, const char *id)
{
	static int loaded;
	size_t i;

	if (!loaded) {
		const char *subs[] = { "new", "cur", "done", "failed" };
		size_t s, j, n;
		char **names;
		struct ar_lease l;

		for (s = 0; s < 4; s++) {
			if (ar_spool_list(qdir, subs[s], &names, &n) < 0)
				ar_die(AR_EX_IO, "%s/%s:", qdir, subs[s]);
			for (j = 0; j < n; j++) {
				const char *e = NULL;
				json_t *o = NULL;

				if (ar_spool_parse(names[j], &l) < 0)
					continue;
				if (s < 2) {
					char *p = ar_spool_path(qdir, subs[s],
					    names[j]);

					o = rec_load(p);
					free(p);
					e = o ? jstr(o, "experiment") : NULL;
				}
				*ids = ar_xrealloc(*ids, (*nids + 2) *
				    sizeof **ids);
				(*ids)[(*nids)++] = ar_xstrdup(l.id);
				if (e && strcmp(e, l.id) != 0)
					(*ids)[(*nids)++] = ar_xstrdup(e);
				json_decref(o);
			}
			ar_spool_free_list(names, n);
		}
		loaded = 1;
	}
	for (i = 0; i < *nids; i++)
		if (strcmp((*ids)[i], id) == 0)
			return 1;
	return 0;
}

/* A bad assignment: its half-made record is freed before the exit, so
 * nothing is lost to valgrind either. */
static void __attribute__((noreturn, format(printf, 2, 3)))
bad_input(json_t *o, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	json_decref(o);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ar_die(AR_EX_DATA, "%s", msg);
}

static void
put_input(const char *file)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	const char *name = strcmp(file, "-") == 0 ? "<stdin>" : file;
	struct ar_tsv t;
	json_t **recs = NULL;
	long *prio = NULL;
	size_t n = 0, i, j;
	char **ids = NULL;
	size_t nids = 0;
	int r, ce, ck, cp, cpr, cg;
	struct stat st;

	if (!f)
		ar_die(AR_EX_NOINPUT, "%s:", file);
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
		ar_die(AR_EX_NOINPUT, "%s: is a directory", name);
	if (ar_tsv_open(&t, f, name) < 0) {
		if (feof(f) && t.lineno == 0)
			return;        /* nothing at all: no assignments */
		ar_die(AR_EX_DATA, "%s", t.err);
	}
	ce = ar_tsv_need(&t, "experiment");
	ar_tsv_need(&t, "method");
	ck = ar_tsv_need(&t, "k");
	cp = ar_tsv_col(&t, "purpose");
	cpr = ar_tsv_col(&t, "priority");
	cg = ar_tsv_col(&t, "gpus");
	while ((r = ar_tsv_next(&t)) == 1) {
		json_t *o = json_object();
		long long v;
		struct rec rc;

		for (j = 0; j < t.ncol; j++) {
			if (!t.field[j][0] || (int)j == cpr)
				continue;
			if ((int)j == ck) {
				if (ar_parse_long(t.field[j], &v) < 0 ||
				    v < 1 || v > 1024)
					bad_input(o, "%s: line %zu: k: "
					    "expected an integer from 1 to "
					    "1024", name, t.lineno);
				json_object_set_new(o, t.hdr[j],
				    json_integer(v));
			} else if (strcmp(t.hdr[j], "value") == 0) {
				double d;

				if (ar_parse_double(t.field[j], &d) < 0)
					bad_input(o, "%s: line %zu: "
					    "value: not a number", name,
					    t.lineno);
				json_object_set_new(o, t.hdr[j], json_real(d));
			} else
				json_object_set_new(o, t.hdr[j],
				    json_string(t.field[j]));
		}
		if (!ar_id_valid(t.field[ce]))
			bad_input(o, "%s: line %zu: experiment: expected "
			    "1 to %d of [A-Za-z0-9._-], not starting with '.' "
			    "or '-'", name, t.lineno, AR_ID_MAX);
		(void)cp;
		(void)cg;
		rec_parse(o, t.field[ce], &rc);
		if (rc.bad[0])
			bad_input(o, "%s: line %zu: %s", name, t.lineno,
			    rc.bad);
		v = 0;
		if (cpr >= 0 && t.field[cpr][0] &&
		    (ar_parse_long(t.field[cpr], &v) < 0 || v < -999999 ||
		    v > 999999))
			bad_input(o, "%s: line %zu: priority: expected "
			    "an integer from -999999 to 999999", name,
			    t.lineno);
		json_object_set_new(o, "id", json_string(t.field[ce]));
		json_object_set_new(o, "priority", json_integer(v));
		for (i = 0; i < n; i++)
			if (strcmp(jstr(recs[i], "id"), t.field[ce]) == 0)
				bad_input(o, "%s: line %zu: experiment "
				    "%s given twice; nothing stored", name,
				    t.lineno, t.field[ce]);
		recs = ar_xrealloc(recs, (n + 1) * sizeof *recs);
		prio = ar_xrealloc(prio, (n + 1) * sizeof *prio);
		recs[n] = o;
		prio[n++] = (long)v;
	}
	if (r < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
	if (f != stdin)
		fclose(f);
	for (i = 0; i < n; i++) {
		const char *id = jstr(recs[i], "id");
		char *s;
		size_t len;

		if (id_in_spool(&ids, &nids, id)) {
			/* ar-sched next --put stored it already. */
			json_decref(recs[i]);
			continue;
		}
		s = ar_json_line(recs[i]);
		len = strlen(s);
		s = ar_xrealloc(s, len + 2);
		memcpy(s + len, "\n", 2);
		if (ar_spool_put(qdir, id, prio[i], s, len + 1) == AR_SP_ERR)
			ar_die(ar_errno_exit(errno), "%s: cannot store %s:",
			    qdir, id);
		free(s);
		json_decref(recs[i]);
	}
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	free(recs);
	free(prio);
}

/* ---- Slurm ---- */

static const char *
prog_env(const char *var, const char *def)
{
	const char *s = getenv(var);

	return s && *s ? s : def;
}

/* Runs a command and collects its standard output; its exit status, or
 * -1 when it could not run. */
static int
capture(char *const *av, struct ar_buf *out)
{
	int fd[2], st;
	pid_t pid;
	char buf[4096];
	ssize_t n;

	ar_buf_clear(out);
	if (pipe2(fd, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		sigprocmask(SIG_SETMASK, &orig_mask, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(fd[1], 1);
		execvp(av[0], av);
		dprintf(2, "%s: %s: %s\n", ar_prog(), av[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		ar_buf_add(out, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!out->p)
		ar_buf_reserve(out, 0), out->p[0] = '\0';
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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

/* run/jobs/EXP: the job id, and for an array task its map. */
static void
job_save(const char *exp, const char *jid, const char *map)
{
	char *p = ar_path(jobdir, exp);
	char *s = map && *map ? ar_xasprintf("%s\t%s\n", jid, map) :
	    ar_xasprintf("%s\n", jid);

	if (ar_write_atomic(p, s, strlen(s), 0644) < 0) {
		ar_warn("%s:", p);
		io_errors++;
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
static int
job_load(const char *exp, char *jid, size_t nj, char *map, size_t nm)
{
	struct ar_buf b = {0};
	char *p = ar_path(jobdir, exp), *t;
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

static void
job_forget(const char *exp)
{
	char *p = ar_path(jobdir, exp), *q = ar_xasprintf("%s/%s.rc", jobdir,
	    exp);

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

/* Removes an array's map once no run/jobs file names it: its tasks all
 * ended (or never existed), so no ar-run job will read it again. */
static void
map_release(const char *map)
{
	char **names, *p;
	size_t n, i;
	int used = 0;

	if (ar_spool_list(camp, "run/jobs", &names, &n) < 0)
		return;
	for (i = 0; i < n && !used; i++) {
		char jid[64], m[AR_ID_MAX + 2];
		size_t l = strlen(names[i]);

		if (names[i][0] == '@' || (l > 3 && strcmp(names[i] + l - 3,
		    ".rc") == 0))
			continue;
		if (job_load(names[i], jid, sizeof jid, m, sizeof m) == 0 &&
		    strcmp(m, map) == 0)
			used = 1;
	}
	ar_spool_free_list(names, n);
	if (used)
		return;
	p = ar_path(jobdir, map);
	unlink(p);
	free(p);
	{
		/* Its own log, where only a task that could not start
		 * wrote; kept when it says something. */
		struct stat st;

		p = ar_xasprintf("%s/%s.out", logdir, map);
		if (stat(p, &st) == 0 && st.st_size == 0)
			unlink(p);
		free(p);
	}
}

/* Reads a map: its experiments, one a line, task 0 first. */
static char **
map_read(const char *map, size_t *n)
{
	struct ar_buf b = {0};
	char *p = ar_path(jobdir, map), **v = NULL, *s, *e;

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

static unsigned map_seq;

/* Submits runs of one k: one job for a lone run, else one array whose
 * task i runs rs[i]. 0 when sbatch took it; the ids are saved before
 * anything else can lose them. */
static int
submit(struct run **rs, size_t n)
{
	struct ar_buf w = {0}, out = {0}, mt = {0};
	char *av[32], *name, *o, *e, *g, *tm = NULL, *pp = NULL, *arr = NULL;
	char map[AR_ID_MAX + 2] = "", *mp = NULL;
	const char *tgt;
	size_t i, na = 0;
	int j, st;
	long long job = 0;

	for (i = 0; i < n; i++) {
		char *rc = ar_xasprintf("%s/%s.rc", jobdir, rs[i]->r.exp);

		unlink(rc);
		free(rc);
	}
	if (n > 1) {
		snprintf(map, sizeof map, "@%s.%ld.%lld.%u", host_short,
		    (long)self_pid, now_s(), map_seq++);
		for (i = 0; i < n; i++)
			ar_buf_printf(&mt, "%s\n", rs[i]->r.exp);
		mp = ar_path(jobdir, map);
		/* Written whole before sbatch: a task may start at once. */
		if (ar_write_atomic(mp, mt.p, mt.len, 0644) < 0) {
			ar_warn("%s:", mp);
			io_errors++;
			ar_buf_free(&mt);
			free(mp);
			return -1;
		}
		ar_buf_free(&mt);
	}
	tgt = n > 1 ? map : rs[0]->r.exp;
	ar_buf_adds(&w, "exec ");
	shell_quote(&w, self_exe);
	ar_buf_adds(&w, " job -C ");
	shell_quote(&w, camp);
	ar_buf_addc(&w, ' ');
	shell_quote(&w, tgt);
	if (nbargs) {
		ar_buf_adds(&w, " --");
		for (j = 0; j < nbargs; j++) {
			ar_buf_addc(&w, ' ');
			shell_quote(&w, bargs[j]);
		}
	}
	name = ar_xasprintf("ar-%s", tgt);
	o = ar_xasprintf("%s/%s.out", logdir, tgt);
	/* An array's tasks write their experiment's logs themselves; its
	 * own log gets only what a task says before it knows which. */
	e = ar_xasprintf("%s/%s.%s", logdir, tgt, n > 1 ? "out" : "err");
	g = ar_xasprintf("--gpus=%ld", rs[0]->r.k);
	av[na++] = (char *)prog_env("SBATCH", "sbatch");
	av[na++] = "--parsable";
	if (n > 1) {
		arr = ar_xasprintf("--array=0-%zu%%%ld", n - 1, maxpar);
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
	if (partition) {
		pp = ar_xasprintf("--partition=%s", partition);
		av[na++] = pp;
	}
	if (tlimit > 0) {
		long long s = (long long)tlimit;

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
			job_save(r->r.exp, r->jid, map);
			r->jsubmitted = 1;
			r->started = now_s();
			r->t0 = mono();
		}
		for (i = 0; i < n; i++) {
			run_save(rs[i]);
			progress("%s: submitted as job %s", rs[i]->r.exp,
			    rs[i]->jid);
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
static size_t
submit_pending(struct run **pend, size_t n)
{
	struct run **grp = ar_xcalloc(n ? n : 1, sizeof *grp);
	char *taken = ar_xcalloc(n ? n : 1, 1);
	size_t i, j, m, back = 0;

	for (i = 0; i < n; i++) {
		if (taken[i])
			continue;
		for (m = 0, j = i; j < n && m < (size_t)array_max; j++)
			if (!taken[j] && pend[j]->r.k == pend[i]->r.k) {
				grp[m++] = pend[j];
				taken[j] = 1;
			}
		/* Slurm may be down for a while: the rest wait too, and
		 * the next try is in 10 s, not at every poll. */
		if (back || submit(grp, m) < 0) {
			for (j = 0; j < m; j++) {
				conclude(grp[j], "requeue", "sbatch failed",
				    NULL, NULL, -1);
				run_free(grp[j]);
			}
			back += m;
			sbatch_retry = mono() + 10;
		}
	}
	free(grp);
	free(taken);
	return back;
}

/* A record of a dead ar-run slurm: its job, by the jobs file, else by
 * name (its own, or its array's through the maps that list it), is
 * adopted; without one the record goes back to the queue. */
static void
adopt_slurm(struct run *r, const struct pinfo *pi, int have_pi)
{
	char jid[64], map[AR_ID_MAX + 2];
	char **dead = NULL;
	size_t ndead = 0, i;
	int sq_ok = 1;

	(void)pi;
	(void)have_pi;
	if (job_load(r->r.exp, jid, sizeof jid, map, sizeof map) < 0) {
		long long best = job_by_name(r->r.exp), v;
		char **names;
		size_t n;

		if (best < 0) {
			sq_ok = 0;
			best = 0;
		}
		if (best > 0)
			snprintf(jid, sizeof jid, "%lld", best);
		/* The newest wins: Slurm's ids grow. */
		if (ar_spool_list(camp, "run/jobs", &names, &n) == 0) {
			for (i = 0; i < n; i++) {
				size_t nm, t, at = 0;
				char **m;
				int in = 0;

				if (names[i][0] != '@')
					continue;
				m = map_read(names[i], &nm);
				for (t = 0; t < nm; t++) {
					if (!in && strcmp(m[t], r->r.exp) == 0) {
						in = 1;
						at = t;
					}
					free(m[t]);
				}
				free(m);
				if (!in)
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
			job_save(r->r.exp, jid, map);
	}
	r->t0 = mono() - (r->started ? (double)(now_s() - r->started) : 0);
	if (jid[0]) {
		snprintf(r->jid, sizeof r->jid, "%s", jid);
		snprintf(r->map, sizeof r->map, "%s", map);
		r->jsubmitted = 1;
		run_save(r);
		ar_warn("%s: adopted job %s", r->r.exp, jid);
	} else {
		run_save(r);
		if (!earlier_result(r))
			conclude(r, "requeue", "its runner died before sbatch",
			    NULL, NULL, -1);
		run_free(r);
	}
	/* Maps whose array was never submitted: its writer died first. */
	for (i = 0; i < ndead; i++) {
		if (sq_ok)
			map_release(dead[i]);
		free(dead[i]);
	}
	free(dead);
}

/* The rc file ar-run job wrote: "exit N" or "signal N", then "gpus
 * LIST"; -1 when none. */
static int
job_rc(struct run *rn, const char *exp, int *st)
{
	char *p = ar_xasprintf("%s/%s.rc", jobdir, exp);
	struct ar_buf b = {0};
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
		{
			char *g = strstr(b.p, "\ngpus ");

			if (g) {
				g += 6;
				g[strcspn(g, "\n")] = '\0';
				if (parse_ids(g, rn->slot, 1024, &rn->nslot) < 0)
					rn->nslot = 0;
			}
		}
	}
	ar_buf_free(&b);
	free(p);
	return r;
}

/* Decides a job that Slurm says has ended in state. */
static void
job_ended(struct run *r, const char *state)
{
	char resid[AR_ID_MAX + 1], verdict[32], why[512];
	double secs = mono() - r->t0;
	int st = 0, have_rc = job_rc(r, r->r.exp, &st) == 0;

	if (result_from_out(r->r.exp, resid, sizeof resid, verdict,
	    sizeof verdict)) {
		job_forget(r->r.exp);
		conclude(r, "done", NULL, verdict, resid, secs);
		return;
	}
	if (strcmp(state, "COMPLETED") == 0 && have_rc) {
		job_forget(r->r.exp);
		judge(r, st, 0, 0, secs);
		return;
	}
	if (strcmp(state, "TIMEOUT") == 0 || strcmp(state, "DEADLINE") == 0) {
		job_forget(r->r.exp);
		snprintf(why, sizeof why, "job %s: %s", r->jid, state);
		conclude(r, "timeout", why, NULL, NULL, secs);
		return;
	}
	if (strcmp(state, "CANCELLED") == 0 || strcmp(state, "PREEMPTED") == 0 ||
	    strcmp(state, "LOST") == 0) {
		long t = tries_get(r->r.exp) + 1;

		tries_set(r->r.exp, t);
		job_forget(r->r.exp);
		if (t > requeue_max) {
			snprintf(why, sizeof why, "job %s: %s, %ld time%s",
			    r->jid, state, t, t == 1 ? "" : "s");
			conclude(r, "failed", why, NULL, NULL, secs);
		} else {
			snprintf(why, sizeof why, "job %s: %s (attempt %ld "
			    "of %ld)", r->jid, state, t, requeue_max + 1);
			conclude(r, "requeue", why, NULL, NULL, secs);
		}
		return;
	}
	job_forget(r->r.exp);
	if (have_rc && strcmp(state, "FAILED") == 0 && WIFEXITED(st) &&
	    WEXITSTATUS(st) != 0) {
		judge(r, st, 0, 0, secs);
		return;
	}
	if (have_rc && WIFSIGNALED(st)) {
		snprintf(why, sizeof why, "job %s: %s: ar-bench killed by "
		    "signal %d (%s)", r->jid, state, WTERMSIG(st),
		    strsignal(WTERMSIG(st)));
		conclude(r, "crash", why, NULL, NULL, secs);
		return;
	}
	snprintf(why, sizeof why, "job %s: %s%s", r->jid, state,
	    have_rc ? "" : " before ar-bench ended");
	conclude(r, "crash", why, NULL, NULL, secs);
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

/* One squeue for every job of ours (an array by its id, which lists all
 * its tasks); each job or task that ended is decided. */
static void
poll_jobs(void)
{
	struct ar_buf ids = {0}, out = {0};
	size_t i;
	int st;

	for (i = 0; i < nruns; i++)
		if (runs[i]->jsubmitted) {
			char base[64];

			snprintf(base, sizeof base, "%.*s",
			    (int)strcspn(runs[i]->jid, "_"), runs[i]->jid);
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
	if (st != 0) {
		/* squeue refuses a list naming a job it forgot; ask one by
		 * one through scontrol instead (it knows 123_4 too). */
		ar_buf_clear(&out);
		for (i = 0; i < nruns; i++) {
			struct ar_buf one = {0};
			char *s;

			if (!runs[i]->jsubmitted)
				continue;
			{
				char *av[] = { (char *)prog_env("SCONTROL",
				    "scontrol"), "-o", "show", "job",
				    runs[i]->jid, NULL };

				if (capture(av, &one) == 0 &&
				    (s = strstr(one.p, "JobState="))) {
					char state[64] = "", node[256] = "";
					char *nl = strstr(one.p, " NodeList=");

					sscanf(s + 9, "%63[A-Z_]", state);
					if (nl)
						sscanf(nl + 10, "%255s", node);
					ar_buf_printf(&out, "%s|%s|%s\n",
					    runs[i]->jid, state,
					    strcmp(node, "(null)") ? node : "");
				} else
					ar_buf_printf(&out, "%s|GONE|\n",
					    runs[i]->jid);
			}
			ar_buf_free(&one);
		}
	}
	for (i = 0; i < nruns; ) {
		struct run *r = runs[i];
		char *s, state[64] = "", node[256] = "", map[AR_ID_MAX + 2];
		int ended = 0, found = 0;

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
		ended = strcmp(state, "PENDING") && strcmp(state, "RUNNING") &&
		    strcmp(state, "CONFIGURING") && strcmp(state, "COMPLETING") &&
		    strcmp(state, "SUSPENDED") && strcmp(state, "REQUEUED") &&
		    strcmp(state, "REQUEUE_HOLD") && strcmp(state, "REQUEUE_FED") &&
		    strcmp(state, "RESIZING") && strcmp(state, "SIGNALING") &&
		    strcmp(state, "STAGE_OUT") && strcmp(state, "STOPPED");
		if (ended) {
			progress("%s: job %s %s", r->r.exp, r->jid, state);
			snprintf(map, sizeof map, "%s", r->map);
			job_ended(r, strcmp(state, "GONE") ? state : "LOST");
			run_free(r);
			if (map[0])
				map_release(map);
			continue;
		}
		i++;
	}
	ar_buf_free(&ids);
	ar_buf_free(&out);
}

/* ---- the main loops ---- */

static void
setup_signals(void)
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
	sigprocmask(SIG_BLOCK, &block, &orig_mask);
}

/* Sleeps up to secs, waking at once for a signal. */
static void
nap(double secs)
{
	struct timespec ts;
	sigset_t open;

	sigemptyset(&open);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	ppoll(NULL, 0, &ts, &open);
}

/* SIGTERM or SIGINT: children are stopped, claims released. */
static void
shutdown_local(void)
{
	double t0 = mono();
	int killed = 0;
	size_t i;

	for (i = 0; i < nruns; i++)
		if (runs[i]->pid) {
			runs[i]->stopped = 1;
			kill(-runs[i]->pid, SIGTERM);
		}
	while (nruns) {
		reap_children();
		if (!nruns)
			break;
		if (!killed && (mono() - t0 > 10 || got_term > 1)) {
			for (i = 0; i < nruns; i++)
				if (runs[i]->pid)
					kill(-runs[i]->pid, SIGKILL);
			killed = 1;
		}
		for (i = 0; i < nruns; ) {
			if (!runs[i]->pid) {
				conclude(runs[i], "requeue", "ar-run was "
				    "interrupted", NULL, NULL, -1);
				run_free(runs[i]);
			} else
				i++;
		}
		nap(0.05);
	}
}

static int
serve(void)
{
	int once_done = 0;
	double poll_s = backend == B_SLURM ? 1.0 : 0.2;
	double last_poll = 0;
	const char *ps = getenv("AR_RUN_POLL");
	double d;

	if (ps && ar_parse_double(ps, &d) == 0 && d > 0.01 && d < 3600)
		poll_s = d;
	print_header();
	recover();
	for (;;) {
		if (got_term)
			break;
		if (backend == B_SLURM)
			got_chld = 0;   /* squeue's and sbatch's, reaped */
		if (backend == B_LOCAL) {
			reap_children();
			check_limits();
		} else if (mono() - last_poll >= poll_s) {
			poll_jobs();
			last_poll = mono();
		}
		renew_due();
		if (now_s() - last_recover >= 2 && !once_done)
			recover();
		if (!once_done && !got_term)
			claim_fitting();
		if (mode == M_ONCE)
			once_done = 1;
		if (mode == M_ONCE && nruns == 0)
			break;
		if (mode == M_DRAIN && nruns == 0 && !queue_waiting())
			break;
		if (!got_chld && !got_term)
			nap(poll_s);
	}
	if (got_term) {
		if (backend == B_LOCAL)
			shutdown_local();
		else {
			/* The jobs run on; a restart adopts them. */
			while (nruns)
				run_free(runs[0]);
		}
		ar_warn("interrupted");
		return AR_EX_TEMPFAIL;
	}
	while (nshapes)
		shape_free(&shapes[--nshapes]);
	free(shapes);
	if (io_errors)
		return AR_EX_IO;
	return failures ? AR_EX_NO : AR_EX_OK;
}

/* ---- ar-run job: inside a Slurm job ---- */

/* GRES=gpu:4(IDX:2-5) or gpu:a100:2(IDX:0,3) in scontrol show job -d. */
static int
job_gpus(char *out, size_t n)
{
	const char *id = getenv("SLURM_JOB_ID");
	struct ar_buf b = {0};
	char *s;
	int r = -1;

	out[0] = '\0';
	if (!id)
		return -1;
	{
		char *av[] = { (char *)prog_env("SCONTROL", "scontrol"),
		    "show", "job", "-d", (char *)id, NULL };

		if (capture(av, &b) != 0) {
			ar_buf_free(&b);
			return -1;
		}
	}
	if ((s = strstr(b.p, "(IDX:"))) {
		char *e = strchr(s, ')'), *p;
		size_t len = 0;

		if (e) {
			*e = '\0';
			r = 0;
			for (p = s + 5; *p && r == 0; ) {
				char *end;
				long a = strtol(p, &end, 10), z = a;

				if (end == p) {
					r = -1;
					break;
				}
				if (*end == '-')
					z = strtol(end + 1, &end, 10);
				for (long v = a; v <= z && len + 8 < n; v++)
					len += (size_t)snprintf(out + len,
					    n - len, "%s%ld", len ? "," : "",
					    v);
				p = *end == ',' ? end + 1 : end;
				if (*end && *end != ',')
					r = -1;
			}
		}
	}
	ar_buf_free(&b);
	return r;
}

static volatile sig_atomic_t job_sig;

static void
on_job_sig(int s)
{
	job_sig = s;
}

/* An array task's experiment: line SLURM_ARRAY_TASK_ID of the map. Its
 * output then goes to the experiment's logs, as a lone job's does. */
static const char *
map_task(const char *map, char *exp, size_t n)
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
	m = map_read(map, &nm);
	if (!m)
		ar_die(AR_EX_NOINPUT, "%s/%s: missing or empty", jobdir, map);
	if ((size_t)t >= nm)
		ar_die(AR_EX_DATA, "%s/%s: no task %lld", jobdir, map, t);
	snprintf(exp, n, "%s", m[t]);
	for (i = 0; i < nm; i++)
		free(m[i]);
	free(m);
	if (!ar_id_valid(exp))
		ar_die(AR_EX_DATA, "%s/%s: task %lld: not an experiment id",
		    jobdir, map, t);
	for (i = 0; i < 2; i++) {
		char *p = ar_xasprintf("%s/%s.%s", logdir, exp, i ? "err" :
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

static int
cmd_job(const char *exp)
{
	char mexp[AR_ID_MAX + 1];
	struct ar_lease l;
	struct run r;
	char *p, gpus[4096], *rcp, line[64];
	char **av, **env;
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	pid_t pid;
	int st;

	if (exp[0] == '@')
		exp = map_task(exp, mexp, sizeof mexp);
	if (!ar_id_valid(exp))
		ar_die(AR_EX_USAGE, "%s: not an experiment id", exp);
	memset(&r, 0, sizeof r);
	if (ar_spool_find(qdir, exp, NULL, &l) == AR_SP_OK) {
		char lname[3 * AR_ID_MAX];

		ar_spool_lease_name(lname, sizeof lname, &l);
		p = ar_spool_path(qdir, "cur", lname);
		if (!(r.o = rec_load(p)))
			ar_die(AR_EX_DATA, "%s: unreadable record", p);
		free(p);
	} else {
		/* A record whose id is not the experiment's. */
		char **names;
		size_t n, i;

		if (ar_spool_list(qdir, "cur", &names, &n) < 0)
			ar_die(AR_EX_IO, "%s/cur:", qdir);
		for (i = 0; i < n && !r.o; i++) {
			json_t *o;
			const char *e;

			if (ar_spool_parse(names[i], &l) < 0)
				continue;
			p = ar_spool_path(qdir, "cur", names[i]);
			o = rec_load(p);
			free(p);
			if (o && (e = jstr(o, "experiment")) &&
			    strcmp(e, exp) == 0)
				r.o = o;
			else
				json_decref(o);
		}
		ar_spool_free_list(names, n);
		if (!r.o)
			ar_die(AR_EX_NOINPUT, "%s: %s is not claimed in the "
			    "queue", qdir, exp);
	}
	rec_parse(r.o, l.id, &r.r);
	if (r.r.bad[0])
		ar_die(AR_EX_DATA, "%s: %s", exp, r.r.bad);
	if (cvd && *cvd)
		snprintf(gpus, sizeof gpus, "%s", cvd);
	else if (job_gpus(gpus, sizeof gpus) < 0)
		ar_die(AR_EX_UNAVAILABLE, "cannot tell this job's GPUs: no "
		    "CUDA_VISIBLE_DEVICES and no IDX in scontrol show job -d");
	av = bench_argv(&r, gpus[0] ? gpus : NULL);
	env = bench_env(gpus[0] ? gpus : NULL);
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_job_sig;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigprocmask(SIG_SETMASK, NULL, &orig_mask);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		ar_die(AR_EX_SOFTWARE, "fork:");
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execvpe(av[0], av, env);
		dprintf(2, "ar-run: %s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	for (;;) {
		pid_t w = waitpid(pid, &st, 0);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			ar_die(AR_EX_SOFTWARE, "waitpid:");
		if (job_sig) {
			kill(-pid, (int)job_sig);
			job_sig = 0;
		}
	}
	kill(-pid, SIGKILL);
	if (WIFEXITED(st))
		snprintf(line, sizeof line, "exit %d\n", WEXITSTATUS(st));
	else
		snprintf(line, sizeof line, "signal %d\n", WTERMSIG(st));
	{
		/* The GPUs too, for ar-run slurm's report. */
		char *txt = ar_xasprintf("%sgpus %s\n", line, gpus);

		rcp = ar_xasprintf("%s/%s.rc", jobdir, exp);
		if (ar_write_atomic(rcp, txt, strlen(txt), 0644) < 0)
			ar_warn("%s:", rcp);
		free(rcp);
		free(txt);
	}
	free_argv(av);
	{
		char **e;

		for (e = env; *e; e++)
			if (strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0)
				free(*e);
		free(env);
	}
	json_decref(r.o);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- ar-run status ---- */

static int
cmd_status(void)
{
	char **names;
	size_t n, i;
	long long now = now_s();

	printf("experiment\tbackend\tgpus\tholder\thost\tpid\tchild\tjob\t"
	    "started\texpires\tstate\n");
	if (ar_spool_list(camp, "run/pid", &names, &n) < 0)
		ar_die(AR_EX_NOINPUT, "%s:", piddir);
	for (i = 0; i < n; i++) {
		struct pinfo pi;
		char jid[64];
		int job = job_load(names[i], jid, sizeof jid, NULL, 0) == 0;
		char started[32] = "", expires[32] = "";
		const char *state;
		struct timespec ts = { 0, 0 };

		if (pinfo_read(names[i], &pi) < 0)
			continue;
		if (pi.started) {
			ts.tv_sec = (time_t)pi.started;
			ar_time_fmt(started, sizeof started, ts, 0);
		}
		if (pi.expires) {
			ts.tv_sec = (time_t)pi.expires;
			ar_time_fmt(expires, sizeof expires, ts, 0);
		}
		if (job)
			state = "submitted";
		else if (strcmp(pi.host, host) != 0)
			state = "unknown";
		else if (!alive(pi.owner, pi.owner_start))
			state = "stale";
		else if (pi.child && alive(pi.child, pi.child_start))
			state = "running";
		else
			state = "booked";
		if (pi.expires && pi.expires < now && strcmp(state, "stale"))
			state = "expired";
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
		printf("\t%s\t%s\t%s\n", started, expires, state);
	}
	ar_spool_free_list(names, n);
	/* Bookings whose experiment has no run/pid file. */
	if (ar_spool_list(camp, "run/gpus", &names, &n) == 0) {
		for (i = 0; i < n; i++) {
			char *p = ar_path(gdir, names[i]), *at;
			struct booking bk;
			struct pinfo pi;
			char expires[32] = "";
			struct timespec ts = { 0, 0 };

			if (booking_read(p, &bk) == 0 &&
			    pinfo_read(bk.exp, &pi) < 0) {
				ts.tv_sec = (time_t)bk.expires;
				ar_time_fmt(expires, sizeof expires, ts, 0);
				at = strchr(names[i], '@');
				ar_tsv_put(stdout, bk.exp);
				printf("\tlocal\t%s\t", at ? at + 1 : "");
				ar_tsv_put(stdout, bk.holder);
				printf("\t\t%ld\t\t\t\t%s\t%s\n", bk.pid, expires,
				    kill((pid_t)bk.pid, 0) == 0 ||
				    errno != ESRCH ? "booked" : "stale");
			}
			free(p);
		}
		ar_spool_free_list(names, n);
	}
	return AR_EX_OK;
}

/* ---- main ---- */

static void
open_campaign(void)
{
	struct stat st;
	char *conf = ar_path(camp, "campaign.conf");
	const char *subs[] = { "run", "run/gpus", "run/pid", "run/jobs",
	    "run/tries", "log" };
	size_t i;

	if (stat(camp, &st) < 0)
		ar_die(AR_EX_NOINPUT, "%s:", camp);
	if (!S_ISDIR(st.st_mode))
		ar_die(AR_EX_NOINPUT, "%s: not a directory", camp);
	if (stat(conf, &st) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a campaign (no campaign.conf)",
		    camp);
	free(conf);
	qdir = ar_path(camp, "queue");
	if (ar_spool_check(qdir) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a spool (ar-queue init makes "
		    "one)", qdir);
	for (i = 0; i < sizeof subs / sizeof *subs; i++) {
		char *p = ar_path(camp, subs[i]);

		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			ar_die(ar_errno_exit(errno), "%s:", p);
		free(p);
	}
	gdir = ar_path(camp, "run/gpus");
	piddir = ar_path(camp, "run/pid");
	jobdir = ar_path(camp, "run/jobs");
	trydir = ar_path(camp, "run/tries");
	logdir = ar_path(camp, "log");
	ledgerdir = ar_path(camp, "ledger");
}

/* The manifest's limits.time_s twice (dev and holdout sessions) plus 600 s
 * for setup and builds; 3600 s without one. */
static double
default_limit(void)
{
	struct ar_manifest m;
	char err[512], *dir = ar_path(camp, "problem");
	double t = 3600;

	if (ar_manifest_read(&m, dir, err, sizeof err) == 0) {
		if (m.time_s > 0)
			t = 2 * m.time_s + 600;
		ar_manifest_free(&m);
	}
	free(dir);
	return t;
}

/* Whether prog runs: a path that is executable, or a name found in
 * PATH. */
static int
runnable(const char *prog)
{
	const char *path = getenv("PATH"), *p, *e;
	int ok = 0;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	for (p = path ? path : "/usr/bin:/bin"; !ok; p = e + 1) {
		char *f;

		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		f = ar_xasprintf("%.*s/%s", (int)(e - p), e > p ? p : ".",
		    prog);
		ok = access(f, X_OK) == 0;
		free(f);
		if (!*e)
			break;
	}
	return ok;
}

static void
find_bench(void)
{
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	char *b;

	if (n < 0)
		snprintf(self_exe, sizeof self_exe, "ar-run");
	else
		self_exe[n] = '\0';
	if ((bench = getenv("AR_BENCH")) && *bench)
		return;
	b = ar_xstrdup(self_exe);
	if (strrchr(b, '/')) {
		char *p;

		strrchr(b, '/')[1] = '\0';
		p = ar_xasprintf("%sar-bench", b);
		free(b);
		if (access(p, X_OK) == 0) {
			bench = p;
			return;
		}
		free(p);
	} else
		free(b);
	bench = "ar-bench";
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "gpus", required_argument, NULL, 'N' },
		{ "cpus", no_argument, NULL, 'U' },
		{ "drain", no_argument, NULL, 'D' },
		{ "once", no_argument, NULL, 'O' },
		{ "no-array", no_argument, NULL, 'A' },
		{ "array-max", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd, *copt = NULL, *topo = NULL, *input = NULL;
	long ngpus = -1;
	int c, cpus = 0, r, ninvopt = 0;
	static char hbuf[AR_ID_MAX + 1];

	ar_std_args(argc, argv, usage);
	argv[0] = (char *)ar_prog();
	if (argc < 2)
		ar_usage(usage);
	cmd = argv[1];
	if (strcmp(cmd, "local") && strcmp(cmd, "slurm") && strcmp(cmd, "job") &&
	    strcmp(cmd, "status"))
		ar_die(AR_EX_USAGE, "%s: unknown subcommand (local, slurm, job "
		    "or status)", cmd);
	backend = strcmp(cmd, "slurm") == 0 ? B_SLURM : B_LOCAL;
	argc--;
	argv++;
	argv[0] = argv[-1];
	while ((c = getopt_long(argc, argv, "+C:g:H:i:j:l:p:qr:t:v", longopts,
	    NULL)) != -1) {
		int ok = strcmp(cmd, "status") != 0 || c == 'C';

		if (strcmp(cmd, "job") == 0 && c != 'C')
			ok = 0;
		if (strcmp(cmd, "slurm") == 0 && (c == 'g' || c == 'N' ||
		    c == 'U'))
			ok = 0;
		if (strcmp(cmd, "local") == 0 && (c == 'p' || c == 'A' ||
		    c == 'M'))
			ok = 0;
		if (!ok)
			ar_usage(usage);
		switch (c) {
		case 'C': copt = optarg; break;
		case 'g': topo = optarg; ninvopt++; break;
		case 'N': ngpus = (long)parse_num("--gpus", optarg, 1, 1024);
			ninvopt++; break;
		case 'U': cpus = 1; ninvopt++; break;
		case 'H': holder = optarg; break;
		case 'i': input = optarg; break;
		case 'j': maxpar = (long)parse_num("-j", optarg, 1, 100000); break;
		case 'l': lease_s = parse_num("-l", optarg, 3, 365LL * 86400);
			break;
		case 'p': partition = optarg; break;
		case 'A': array_max = 1; break;
		case 'M': array_max = (long)parse_num("--array-max", optarg, 1,
		    100000); break;
		case 'q': verbose = 0; break;
		case 'v': verbose = 1; break;
		case 'r': requeue_max = (long)parse_num("-r", optarg, 0, 1000);
			break;
		case 't': tlimit = (double)parse_num("-t", optarg, 1,
		    365LL * 86400); break;
		case 'D':
		case 'O':
			if (mode != M_SERVE)
				ar_die(AR_EX_USAGE, "--drain and --once: one "
				    "at most");
			mode = c == 'D' ? M_DRAIN : M_ONCE;
			break;
		default: ar_usage(usage);
		}
	}
	if (verbose < 0)
		verbose = isatty(2) && !getenv("NO_COLOR");
	if (ninvopt > 1)
		ar_die(AR_EX_USAGE, "-g, --gpus and --cpus: one at most");
	argc -= optind;
	argv += optind;
	if (strcmp(cmd, "job") == 0) {
		if (argc < 1 || strcmp(argv[0], "--") == 0)
			ar_usage(usage);
		bargs = argv + 1;
		nbargs = argc - 1;
		if (nbargs && strcmp(bargs[0], "--") == 0) {
			bargs++;
			nbargs--;
		} else if (nbargs)
			ar_usage(usage);
	} else {
		/* Only what follows "--" goes to ar-bench. */
		if (argc > 0 && strcmp(argv[-1], "--") != 0)
			ar_usage(usage);
		if (argc > 0 && strcmp(cmd, "status") == 0)
			ar_usage(usage);
		bargs = argv;
		nbargs = argc;
	}
	snprintf(host, sizeof host, "%s", ar_host_short());
	if (!holder && (holder = getenv("AR_HOLDER")) && !*holder)
		holder = NULL;
	if (!holder) {
		snprintf(hbuf, sizeof hbuf, "%.80s-%s", host, cmd);
		holder = hbuf;
	}
	if (!ar_id_valid(holder))
		ar_die(AR_EX_USAGE, "holder '%s': expected 1 to %d of "
		    "[A-Za-z0-9._-]", holder, AR_ID_MAX);
	camp = ar_campaign_default(copt);
	self_pid = getpid();
	self_start = proc_start(self_pid);
	snprintf(host_short, sizeof host_short, "%.24s", host);
	snprintf(lease_holder, sizeof lease_holder, "%.50s.%s.%ld.%llu", holder,
	    host_short, (long)self_pid, self_start);
	open_campaign();
	find_bench();
	if (strcmp(cmd, "status") == 0) {
		r = cmd_status();
		ar_fshut(stdout, "<stdout>");
		return r;
	}
	if (strcmp(cmd, "status") != 0 && !runnable(bench))
		ar_die(AR_EX_UNAVAILABLE, "%s: not found or not executable "
		    "(AR_BENCH names the benchmark)", bench);
	if (backend == B_SLURM && !runnable(prog_env("SBATCH", "sbatch")))
		ar_die(AR_EX_UNAVAILABLE, "%s: not found (install Slurm, or "
		    "SBATCH names it)", prog_env("SBATCH", "sbatch"));
	if (strcmp(cmd, "job") == 0)
		return cmd_job(argv[0]);
	if (backend == B_LOCAL) {
		if (topo)
			inv_file(topo);
		else if (ngpus > 0)
			for (long i = 0; i < ngpus; i++)
				inv_add((int)i);
		else if (cpus)
			inv_cpus();
		else
			inv_default();
		if (maxpar < 0)
			maxpar = (long)ninv;
	} else if (maxpar < 0)
		maxpar = 100;
	if (tlimit < 0 && backend == B_LOCAL)
		tlimit = default_limit();
	if (input)
		put_input(input);
	setup_signals();
	r = serve();
	ar_fshut(stdout, "<stdout>");
	return r;
}
