/* The roofline problem. ar-bench starts one rank per GPU (or CPU) of the
 * bundle and, for each op, runs warm-up and counted samples: every rank
 * flushes its cache outside the window, then ar-bench sends "run" to all
 * ranks at once and stops its clock when the last one answers; the ranks
 * time the same window with CUDA events and their own clock, then report
 * the clock of the chip and check the output. Samples whose clock fell
 * below 75% of the default are dropped and counted: a throttled chip says
 * nothing about the machine. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "io.h"
#include "stats.h"
#include "timefmt.h"
#include "dev.h"
#include "ranks.h"
#include "roofline.h"

/* The clock below which a sample is throttled, as a share of the default. */
#define THROTTLED 0.75

struct opspec {
	enum ar_op op;
	size_t size;
	int reps;
};

/* Sizes that fill an H100's samples with a few milliseconds each, and a
 * CPU's with a few; the copies are far larger than any cache. */
static const struct opspec cuda_spec[] = {
	{ AR_OP_COPY, (size_t)1 << 30, 8 },
	{ AR_OP_MEMCPY, (size_t)1 << 30, 8 },
	{ AR_OP_GEMM_BF16, 8192, 4 },
	{ AR_OP_GEMM_BF16_REF, 8192, 4 },
	{ AR_OP_GEMM_FP8, 8192, 6 },
	{ AR_OP_ALLREDUCE, (size_t)256 << 20, 4 },
};
static const struct opspec cpu_spec[] = {
	{ AR_OP_COPY, (size_t)16 << 20, 2 },
	{ AR_OP_MEMCPY, (size_t)16 << 20, 2 },
	{ AR_OP_GEMM_BF16, 192, 1 },
	{ AR_OP_GEMM_BF16_REF, 192, 1 },
	{ AR_OP_GEMM_FP8, 192, 1 },
	{ AR_OP_ALLREDUCE, (size_t)4 << 20, 2 },
};
/* The A/A's copy: one rep is a fraction of the target time. */
#define AA_CUDA_BYTES ((size_t)256 << 20)
#define AA_CPU_BYTES ((size_t)32 << 20)

static struct ar_ranks G;


/* Only kill(2): it is called from signal handlers. */
void
ar_roofline_abort(void)
{
	if (G.pgid > 0)
		kill(-G.pgid, SIGKILL);
}

static json_t *
real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* median, min, max and the robust relative spread of v. */
static json_t *
summary(const double *v, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, med;
	size_t i;

	if (n == 0)
		return json_null();
	for (i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	med = ar_median(v, n);
	return json_pack("{s:o, s:o, s:o, s:o}", "median", real(med), "min",
	    real(lo), "max", real(hi), "rsd", real(med > 0 ? 1.4826 *
	    ar_mad(v, n) / med : NAN));
}

/* One sample on every rank, after a flush: the bundle's time, the slowest
 * rank's event and CPU times, the lowest clock, and the check. */
struct sample {
	double bundle_s, dev_s, cpu_s, clock_mhz, err;
	long checked;
	int ok, bad_rank;
};

static int
one_sample(enum ar_op op, struct sample *s, char *why, size_t n)
{
	char line[64];
	double t0, t1;
	int r, rc;

	memset(s, 0, sizeof *s);
	s->clock_mhz = INFINITY;
	s->ok = 1;
	s->bad_rank = -1;
	snprintf(line, sizeof line, "flush %s\n", ar_dev_op_name[op]);
	if ((rc = ar_ranks_call(&G, line, 120, why, n)) != 0)
		return -1;
	snprintf(line, sizeof line, "run %s\n", ar_dev_op_name[op]);
	t0 = ar_mono();
	rc = ar_ranks_call(&G, line, 600, why, n);
	t1 = ar_mono();
	if (rc != 0)
		return -1;
	s->bundle_s = t1 - t0;
	for (r = 0; r < G.k; r++) {
		double d = 0, c = 0;

		if (sscanf(G.reply[r], "%lf %lf", &d, &c) != 2) {
			snprintf(why, n, "rank %d: bad answer to run: %s", r,
			    G.reply[r]);
			return -1;
		}
		s->dev_s = d > s->dev_s ? d : s->dev_s;
		s->cpu_s = c > s->cpu_s ? c : s->cpu_s;
	}
	snprintf(line, sizeof line, "post %s\n", ar_dev_op_name[op]);
	if (ar_ranks_call(&G, line, 600, why, n) != 0)
		return -1;
	for (r = 0; r < G.k; r++) {
		double clk = 0, err = 0;
		long chk = 0;
		int ok = 0;

		if (sscanf(G.reply[r], "%lf %lf %ld %d", &clk, &err, &chk,
		    &ok) != 4) {
			snprintf(why, n, "rank %d: bad answer to post: %s", r,
			    G.reply[r]);
			return -1;
		}
		if (clk < s->clock_mhz)
			s->clock_mhz = clk;
		if (err > s->err)
			s->err = err;
		s->checked += chk;
		if (!ok && s->ok) {
			s->ok = 0;
			s->bad_rank = r;
		}
	}
	return 0;
}

/* The lowest default clock of the bundle's chips; 0 when any is unknown. */
static double
default_clock(const json_t *devices)
{
	double lo = INFINITY;
	size_t i;
	json_t *d;

	json_array_foreach(devices, i, d) {
		double c = json_number_value(json_object_get(d, "clock_mhz"));

		if (!(c > 0))
			return 0;
		lo = c < lo ? c : lo;
	}
	return isfinite(lo) ? lo : 0;
}

/* What one sample of op did, in its unit: bytes moved, flops, or bus
 * bytes for the all-reduce (NCCL's convention: 2 (k - 1) / k of the
 * buffer per rank). */
static double
work_of(const struct opspec *s, int k)
{
	double reps = s->reps, sz = (double)s->size;

	switch (s->op) {
	case AR_OP_COPY:
	case AR_OP_MEMCPY:
		return 2 * sz * reps * k;
	case AR_OP_ALLREDUCE:
		return sz * reps * 2.0 * (k - 1) / k;
	default:
		return 2 * sz * sz * sz * reps * k;
	}
}

static const char *
unit_of(enum ar_op op)
{
	return op == AR_OP_COPY || op == AR_OP_MEMCPY ? "gb_s" :
	    op == AR_OP_ALLREDUCE ? "busbw_gb_s" : "tflop_s";
}

static double
scale_of(enum ar_op op)
{
	return op == AR_OP_COPY || op == AR_OP_MEMCPY ||
	    op == AR_OP_ALLREDUCE ? 1e9 : 1e12;
}

struct run {
	const struct ar_roofline_opts *o;
	double clock0;       /* the default clock; 0 if unknown */
	const char *verdict;
	char why[1200];
	long dropped;
};

/* Runs one op's samples into *out; 0, or -1 with r->verdict set. */
static int
measure(struct run *r, const struct opspec *s, json_t **out)
{
	char line[128], why[900];
	struct sample *smp;
	double *rate, *rate_ev, *bundle, *ev, *cpu, *clk;
	size_t ns = 0, i, total = (size_t)(r->o->warmup + r->o->samples);
	long dropped = 0, checked = 0;
	double maxerr = 0, work = work_of(s, r->o->k);
	int rc;

	if (s->op == AR_OP_ALLREDUCE && r->o->k == 1) {
		*out = json_pack("{s:s}", "skipped", "one rank: nothing to "
		    "all-reduce across");
		return 0;
	}
	snprintf(line, sizeof line, "prepare %s %zu %d\n", ar_dev_op_name[s->op],
	    s->size, s->reps);
	rc = ar_ranks_call(&G, line, 600, why, sizeof why);
	if (rc == 1) {
		*out = json_pack("{s:s}", "skipped", why);
		(void)ar_ranks_call(&G, "release\n", 120, why, sizeof why);
		return 0;
	}
	if (rc < 0) {
		r->verdict = "crash";
		snprintf(r->why, sizeof r->why, "%s: %s", ar_dev_op_name[s->op], why);
		return -1;
	}
	smp = ar_xcalloc(total, sizeof *smp);
	rate = ar_xcalloc(total, sizeof *rate);
	rate_ev = ar_xcalloc(total, sizeof *rate_ev);
	bundle = ar_xcalloc(total, sizeof *bundle);
	ev = ar_xcalloc(total, sizeof *ev);
	cpu = ar_xcalloc(total, sizeof *cpu);
	clk = ar_xcalloc(total, sizeof *clk);
	for (i = 0; i < total; i++) {
		struct sample *x = &smp[i];

		if (one_sample(s->op, x, why, sizeof why) < 0) {
			r->verdict = "crash";
			snprintf(r->why, sizeof r->why, "%s: sample %zu: %s",
			    ar_dev_op_name[s->op], i, why);
			goto fail;
		}
		/* A wrong output is a broken measurement, warm-up or not. */
		if (!x->ok) {
			r->verdict = "invalid";
			snprintf(r->why, sizeof r->why, "%s: sample %zu: rank %d: "
			    "wrong output (error %g, %ld outputs checked)",
			    ar_dev_op_name[s->op], i, x->bad_rank, x->err, x->checked);
			goto fail;
		}
		checked += x->checked;
		maxerr = x->err > maxerr ? x->err : maxerr;
		if (i < (size_t)r->o->warmup)
			continue;
		if (r->clock0 > 0 && x->clock_mhz > 0 && x->clock_mhz <
		    THROTTLED * r->clock0) {
			dropped++;
			continue;
		}
		rate[ns] = work / x->bundle_s / scale_of(s->op);
		rate_ev[ns] = work / x->dev_s / scale_of(s->op);
		bundle[ns] = x->bundle_s;
		ev[ns] = x->dev_s;
		cpu[ns] = x->cpu_s;
		clk[ns] = isfinite(x->clock_mhz) ? x->clock_mhz : 0;
		ns++;
	}
	if (ar_ranks_call(&G, "release\n", 120, why, sizeof why) != 0) {
		r->verdict = "crash";
		snprintf(r->why, sizeof r->why, "%s: %s", ar_dev_op_name[s->op], why);
		goto fail;
	}
	*out = json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, "
	    "s:o, s:I, s:o}",
	    "size", (json_int_t)s->size, "reps", (json_int_t)s->reps,
	    "samples", (json_int_t)ns, "warmup", (json_int_t)r->o->warmup,
	    "dropped_throttled", (json_int_t)dropped,
	    unit_of(s->op), summary(rate, ns),
	    "events", summary(rate_ev, ns),
	    "bundle_s", summary(bundle, ns), "event_s", summary(ev, ns),
	    "cpu_s", summary(cpu, ns), "clock_mhz", summary(clk, ns),
	    "checked", (json_int_t)checked, "max_err", real(maxerr));
	r->dropped += dropped;
	if (ns == 0) {
		r->verdict = "invalid";
		snprintf(r->why, sizeof r->why, "%s: every sample was throttled "
		    "(%ld dropped below %.0f%% of the %.0f MHz default clock)",
		    ar_dev_op_name[s->op], dropped, THROTTLED * 100, r->clock0);
		rc = -1;
	} else
		rc = 0;
	free(smp); free(rate); free(rate_ev); free(bundle); free(ev);
	free(cpu); free(clk);
	return rc;
fail:
	free(smp); free(rate); free(rate_ev); free(bundle); free(ev);
	free(cpu); free(clk);
	return -1;
}

static double
median_of(const json_t *m, const char *op, const char *unit)
{
	json_t *v = json_object_get(json_object_get(json_object_get(m, op),
	    unit), "median");

	return v ? json_number_value(v) : NAN;
}

static double
larger(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

/* The A/A: pairs of the same copy, each ~target_ms, and the spread of
 * their log-ratios: the noise floor of a GPU workload of that length. */
static int
aa(struct run *r, json_t *rec)
{
	struct opspec s = { AR_OP_COPY, strcmp(r->o->device, "cuda") == 0 ?
	    AA_CUDA_BYTES : AA_CPU_BYTES, 1 };
	struct sample a, b;
	char line[128], why[900];
	double *x, *xe, *t;
	size_t n = 0, i, np = (size_t)r->o->samples;
	long dropped = 0;
	int w;

	x = ar_xcalloc(np, sizeof *x);
	xe = ar_xcalloc(np, sizeof *xe);
	t = ar_xcalloc(2 * np, sizeof *t);
	/* Calibrate: reps so that a sample takes the target time, measured
	 * twice, since a rep of one copy may not cost what a rep of many
	 * does. */
	for (w = 0; w < 3; w++) {
		snprintf(line, sizeof line, "prepare copy %zu %d\n", s.size,
		    s.reps);
		if (ar_ranks_call(&G, line, 600, why, sizeof why) != 0)
			goto crash;
		if (one_sample(AR_OP_COPY, &a, why, sizeof why) < 0 ||
		    one_sample(AR_OP_COPY, &a, why, sizeof why) < 0)
			goto crash;
		if (w < 2) {
			double reps = s.reps * r->o->target_ms / 1000 / a.dev_s;

			s.reps = reps < 1 ? 1 : reps > 100000 ? 100000 :
			    (int)lround(reps);
			if (ar_ranks_call(&G, "release\n", 120, why,
			    sizeof why) != 0)
				goto crash;
		}
	}
	for (i = 0; i < (size_t)r->o->warmup; i++)
		if (one_sample(AR_OP_COPY, &a, why, sizeof why) < 0)
			goto crash;
	for (i = 0; i < np; i++) {
		if (one_sample(AR_OP_COPY, &a, why, sizeof why) < 0 ||
		    one_sample(AR_OP_COPY, &b, why, sizeof why) < 0)
			goto crash;
		if (!a.ok || !b.ok) {
			r->verdict = "invalid";
			snprintf(r->why, sizeof r->why, "copy: pair %zu: wrong "
			    "output", i);
			goto out;
		}
		if (r->clock0 > 0 && ((a.clock_mhz > 0 && a.clock_mhz <
		    THROTTLED * r->clock0) || (b.clock_mhz > 0 && b.clock_mhz <
		    THROTTLED * r->clock0))) {
			dropped++;
			continue;
		}
		x[n] = log(a.bundle_s / b.bundle_s);
		xe[n] = log(a.dev_s / b.dev_s);
		t[2 * n] = a.dev_s;
		t[2 * n + 1] = b.dev_s;
		n++;
	}
	(void)ar_ranks_call(&G, "release\n", 120, why, sizeof why);
	json_object_set_new(rec, "op", json_string("copy"));
	json_object_set_new(rec, "size", json_integer((json_int_t)s.size));
	json_object_set_new(rec, "reps", json_integer(s.reps));
	json_object_set_new(rec, "pairs", json_integer((json_int_t)n));
	json_object_set_new(rec, "dropped_throttled", json_integer(dropped));
	json_object_set_new(rec, "workload_ms", real(n ? 1000 *
	    ar_median(t, 2 * n) : NAN));
	json_object_set_new(rec, "noise_floor", json_pack("{s:o, s:o, s:o}",
	    "rsd", real(n >= 2 ? 1.4826 * ar_mad(x, n) : NAN), "rsd_events",
	    real(n >= 2 ? 1.4826 * ar_mad(xe, n) : NAN), "sample_rsd",
	    real(n >= 2 ? 1.4826 * ar_mad(t, 2 * n) / ar_median(t, 2 * n) :
	    NAN)));
	if (n < 2) {
		r->verdict = "invalid";
		snprintf(r->why, sizeof r->why, "fewer than 2 pairs left after "
		    "%ld throttled ones were dropped", dropped);
	}
	goto out;
crash:
	r->verdict = "crash";
	snprintf(r->why, sizeof r->why, "copy: %s", why);
out:
	free(x);
	free(xe);
	free(t);
	return 0;
}

json_t *
ar_roofline_run(const struct ar_roofline_opts *o)
{
	struct run r = { .o = o, .verdict = "ok" };
	const struct opspec *spec = strcmp(o->device, "cuda") == 0 ?
	    cuda_spec : cpu_spec;
	char why[900], *errlog, comm[600] = "-";
	json_t *rec, *devices = json_array(), *measures = json_object();
	size_t i;
	int k;

	rec = json_pack("{s:s, s:s, s:i}", "kind", o->aa ? "roofline-aa" :
	    "roofline", "device", o->device, "k", o->k);
	errlog = ar_path(o->scratch, "ranks.err");
	/* The bundle's rendezvous, made before any rank starts. */
	if (o->k > 1 && strcmp(o->device, "cuda") == 0) {
		char hex[257];

		if (ar_cuda_nccl_id(hex, why, sizeof why) < 0) {
			r.verdict = "crash";
			snprintf(r.why, sizeof r.why, "NCCL: %s", why);
			goto done;
		}
		snprintf(comm, sizeof comm, "%s", hex);
	} else if (o->k > 1) {
		char *p = ar_path(o->scratch, "bundle.shm");
		size_t most = 0;

		for (i = 0; i < AR_OP_N; i++)
			if (cpu_spec[i].op == AR_OP_ALLREDUCE)
				most = cpu_spec[i].size;
		if (ar_cpu_comm_create(p, o->k, most, why, sizeof why) < 0) {
			free(p);
			r.verdict = "crash";
			snprintf(r.why, sizeof r.why, "%s", why);
			goto done;
		}
		snprintf(comm, sizeof comm, "%s", p);
		free(p);
	}
	if (ar_ranks_start(&G, o->exe, o->k, errlog, why, sizeof why) < 0) {
		r.verdict = "crash";
		snprintf(r.why, sizeof r.why, "%s", why);
		goto done;
	}
	/* Each rank gets its own open: its ordinal and its rank number. */
	for (k = 0; k < o->k; k++) {
		char line[800];

		snprintf(line, sizeof line, "open %s %d %d %d %s\n", o->device,
		    o->ordinal[k], k, o->k, comm);
		if (ar_ranks_send(&G, k, line, why, sizeof why) < 0) {
			r.verdict = "crash";
			snprintf(r.why, sizeof r.why, "open: %s", why);
			goto done;
		}
	}
	if (ar_ranks_wait(&G, 300, why, sizeof why) != 0) {
		r.verdict = "crash";
		snprintf(r.why, sizeof r.why, "open: %s", why);
		goto done;
	}
	for (k = 0; k < o->k; k++) {
		json_error_t je;
		json_t *d = json_loads(G.reply[k], 0, &je);

		if (!json_is_object(d)) {
			json_decref(d);
			r.verdict = "crash";
			snprintf(r.why, sizeof r.why, "rank %d: bad answer to "
			    "open: %s", k, G.reply[k]);
			goto done;
		}
		json_object_set_new(d, "rank", json_integer(k));
		json_array_append_new(devices, d);
	}
	r.clock0 = default_clock(devices);
	if (o->aa) {
		aa(&r, rec);
		goto done;
	}
	for (i = 0; i < AR_OP_N; i++) {
		json_t *m = NULL;

		if (o->progress)
			fprintf(stderr, "%s: roofline: %s on %d %s rank%s\n",
			    ar_prog(), ar_dev_op_name[spec[i].op], o->k, o->device,
			    o->k == 1 ? "" : "s");
		if (measure(&r, &spec[i], &m) < 0)
			break;
		json_object_set_new(measures, ar_dev_op_name[spec[i].op], m);
	}
	if (strcmp(r.verdict, "ok") == 0) {
		double mem = larger(median_of(measures, "copy", "gb_s"),
		    median_of(measures, "memcpy", "gb_s"));
		double bf = larger(median_of(measures, "gemm_bf16", "tflop_s"),
		    median_of(measures, "gemm_bf16_ref", "tflop_s"));
		double f8 = median_of(measures, "gemm_fp8", "tflop_s");
		double ar = median_of(measures, "allreduce", "busbw_gb_s");
		json_t *roof = json_pack("{s:o, s:o}", "mem_gb_s", real(mem),
		    "bf16_tflop_s", real(bf));

		if (!isnan(f8))
			json_object_set_new(roof, "fp8_tflop_s", real(f8));
		if (!isnan(ar))
			json_object_set_new(roof, "allreduce_busbw_gb_s",
			    real(ar));
		json_object_set_new(rec, "roofline", roof);
		json_object_set_new(rec, "figures", json_pack("{s:o, s:o}",
		    "copy_vs_memcpy", real(median_of(measures, "copy", "gb_s") /
		    median_of(measures, "memcpy", "gb_s")), "lt_vs_cublas",
		    real(median_of(measures, "gemm_bf16", "tflop_s") /
		    median_of(measures, "gemm_bf16_ref", "tflop_s"))));
	}
	json_object_set_new(rec, "measures", measures);
	measures = NULL;
done:
	if (strcmp(r.verdict, "ok") == 0)
		ar_ranks_close(&G);
	else
		ar_ranks_stop(&G);
	json_decref(measures);
	json_object_set_new(rec, "devices", devices);
	json_object_set_new(rec, "hygiene", json_pack("{s:s, s:s, s:f, s:I, "
	    "s:s}", "cache", "at least twice the cache written before every "
	    "sample", "persisting_l2", strcmp(o->device, "cuda") == 0 ?
	    "off" : "n/a", "throttled_below", THROTTLED, "dropped_throttled",
	    (json_int_t)r.dropped, "clock", "ar-bench's, from the common "
	    "start to the last rank's end; CUDA events and each rank's "
	    "clock beside it"));
	json_object_set_new(rec, "verdict", json_string(r.verdict));
	json_object_set_new(rec, "why", json_string(r.why));
	/* The ranks' own words, when something went wrong. */
	if (strcmp(r.verdict, "ok") != 0) {
		char *t = ar_tail_of(errlog);

		if (t[0])
			json_object_set_new(rec, "stderr", json_string(t));
		free(t);
	}
	free(errlog);
	return rec;
}

char *
ar_profile_path(const char *camp, const char *node, const char *device,
    long k)
{
	return ar_xasprintf("%s/machine/%s.%s.k%ld.json", camp, node, device,
	    k);
}

json_t *
ar_roofline_fraction(const json_t *profile, double bytes, double flops,
    const char *dtype, double seconds, double scale)
{
	const json_t *roof = json_object_get(profile, "roofline");
	double mem = json_number_value(json_object_get(roof, "mem_gb_s")) *
	    1e9 * scale;
	const char *ck = dtype && strcmp(dtype, "fp8") == 0 ? "fp8_tflop_s" :
	    "bf16_tflop_s";
	double comp = json_number_value(json_object_get(roof, ck)) * 1e12 *
	    scale;
	json_t *o = json_object();
	double frac = NAN;

	if (!(seconds > 0))
		return o;
	if (bytes > 0 && mem > 0) {
		json_object_set_new(o, "bytes_per_s", real(bytes / seconds));
		json_object_set_new(o, "mem_frac", real(bytes / seconds / mem));
	}
	if (flops > 0 && comp > 0) {
		json_object_set_new(o, "flops_per_s", real(flops / seconds));
		json_object_set_new(o, "compute_frac", real(flops / seconds /
		    comp));
	}
	/* The classic roofline: what the workload's intensity allows is the
	 * lower of the compute roof and bandwidth times intensity. */
	if (bytes > 0 && flops > 0 && mem > 0 && comp > 0) {
		double ai = flops / bytes, attain = comp < mem * ai ? comp :
		    mem * ai;

		json_object_set_new(o, "intensity", real(ai));
		json_object_set_new(o, "bound", json_string(mem * ai < comp ?
		    "memory" : "compute"));
		frac = flops / seconds / attain;
	} else if (bytes > 0 && mem > 0) {
		json_object_set_new(o, "bound", json_string("memory"));
		frac = bytes / seconds / mem;
	} else if (flops > 0 && comp > 0) {
		json_object_set_new(o, "bound", json_string("compute"));
		frac = flops / seconds / comp;
	}
	if (!isnan(frac))
		json_object_set_new(o, "frac", real(frac));
	return o;
}
