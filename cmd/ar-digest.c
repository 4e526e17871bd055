/* ar-digest: what a planner needs from a whole campaign, in one read of
 * the ledger export: the best so far, the leaderboard, near-misses,
 * failures, the noise floor, what to measure next and which phase the
 * data calls for; the health of the ideas and queue spools; or the
 * digest of a karpathy/autoresearch or pi-autoresearch log alone;
 * Markdown within a token budget, JSON, an SVG staircase or one HTML page. ar-digest(1) is the contract. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "campaign.h"
#include "err.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "manifest.h"
#include "spool.h"
#include "stats.h"
#include "timefmt.h"
#include "tsv.h"

static const char usage[] =
	"[-f md|json] [-b budget] [-C campaign] [-l ledger.tsv] "
	"[-c curves.jsonl] [-i ideas] [-q queue] [-F autoresearch|pi file] "
	"[--svg file] [--html file]";

/* Fixed sizes keep the single pass free of per-row allocation; what
 * does not fit is counted and reported as left out. */
#define KEEP 32          /* near-misses, crashes, invalid kept */
#define NK 64            /* distinct k with a best-at-k */
#define TXT 128          /* labels, reasons, ideas: truncated */

enum { V_KEEP, V_DISCARD, V_EQUIV, V_INCONC, V_CRASH, V_TIMEOUT, V_INVALID,
	V_OTHER, V_N };
static const char *const vname[V_N] = { "keep", "discard", "equivalent",
	"inconclusive", "crash", "timeout", "invalid", "other" };

struct item {            /* one remembered result */
	double r, lo, hi;
	double rf, rfb;      /* share of the roofline: method, baseline */
	char bound[8];       /* "memory" or "compute"; "" when unknown */
	long k;
	int v;
	char id[AR_ID_MAX + 1], label[TXT], why[TXT];
};

struct method {
	char *hash, *label;
	size_t n, nv[V_N];
	long kmin, kmax;
	int has_best;
	struct item best;    /* best ratio of keep/equivalent/inconclusive */
};

struct point {           /* one staircase point, only for --svg/--html */
	size_t id;           /* offset of the id in the arena */
	float r;
	unsigned char cls;   /* 0 keep, 1 other verdict, 2 failure */
};

static struct {
	size_t rows, taken, unsigned_, unverified, aa, nv[V_N];
	struct method *m;    /* open addressing, a power of two */
	size_t mcap, mn;
	struct item bestk[NK], best;
	size_t nbestk, kleft;
	int has_best;
	struct item near[KEEP], crash[KEEP], inval[KEEP];
	size_t nnear, ncrash, ninval, tnear, tcrash, tinval;
	double *rsd;
	size_t nrsd, caprsd;
	char metric[TXT], workload[TXT], device[16], first[64], last[64];
	int mixed_metric;
	struct point *pt;
	size_t npt, cappt;
	struct ar_buf ids;
	int want_points;
} D;

/* ---- reading ---- */

/* A column that may be missing, or (need) one that must be there. */
static int
col(const struct ar_tsv *t, const char *name, int need)
{
	return need ? ar_tsv_need(t, name) : ar_tsv_col(t, name);
}

/* Copies a field into a fixed cell; control characters become spaces so
 * one reason never breaks a table row. */
static void
cpy(char *dst, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < n && s[i]; i++)
		dst[i] = (unsigned char)s[i] < 32 ? ' ' : s[i];
	dst[i] = 0;
}

static const char *
fld(const struct ar_tsv *t, int c)
{
	return c >= 0 ? t->field[c] : "";
}

static int
verdict_of(const char *s)
{
	int i;

	for (i = 0; i < V_OTHER; i++)
		if (strcmp(s, vname[i]) == 0)
			return i;
	return V_OTHER;
}

static unsigned long
fnv(const char *s)
{
	unsigned long h = 1469598103934665603UL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

static struct method *
method_get(const char *hash, const char *label)
{
	size_t i;

	if (2 * (D.mn + 1) > D.mcap) {
		/* Grow at half full: lookups stay short. */
		struct method *old = D.m;
		size_t oc = D.mcap, j;

		D.mcap = oc ? 2 * oc : 256;
		D.m = ar_xcalloc(D.mcap, sizeof *D.m);
		for (j = 0; j < oc; j++) {
			if (!old[j].hash)
				continue;
			for (i = fnv(old[j].hash) & (D.mcap - 1); D.m[i].hash;
			    i = (i + 1) & (D.mcap - 1))
				;
			D.m[i] = old[j];
		}
		free(old);
	}
	for (i = fnv(hash) & (D.mcap - 1); D.m[i].hash; i = (i + 1) &
	    (D.mcap - 1))
		if (strcmp(D.m[i].hash, hash) == 0)
			return &D.m[i];
	D.m[i].hash = ar_xstrdup(hash);
	D.m[i].label = ar_xstrdup(label);
	D.m[i].kmin = D.m[i].kmax = 0;
	D.mn++;
	return &D.m[i];
}

/* Higher ratio first; the smaller id breaks ties, so the order of the
 * input never changes the digest. */
static int
better(const struct item *a, const struct item *b)
{
	if (a->r != b->r)
		return a->r > b->r;
	return strcmp(a->id, b->id) < 0;
}

/* Keeps the KEEP items that cmp puts first. */
static void
keep_top(struct item *a, size_t *n, const struct item *x,
    int (*first)(const struct item *, const struct item *))
{
	size_t i, w = 0;

	if (*n < KEEP) {
		a[(*n)++] = *x;
		return;
	}
	for (i = 1; i < KEEP; i++)
		if (first(&a[w], &a[i]))
			w = i;
	if (first(x, &a[w]))
		a[w] = *x;
}

static int
later(const struct item *a, const struct item *b)
{
	return strcmp(a->id, b->id) > 0;
}

static void
label_of(char *out, size_t n, const struct ar_tsv *t, int c_commit,
    int c_dir, const char *hash)
{
	const char *c = fld(t, c_commit), *d = fld(t, c_dir);

	if (c[0]) {
		snprintf(out, n, "%.7s", c);
	} else if (d[0]) {
		/* The directory's last name, trailing slashes aside. */
		size_t len = strlen(d), e;

		while (len > 1 && d[len - 1] == '/')
			len--;
		e = len;
		while (len > 0 && d[len - 1] != '/')
			len--;
		snprintf(out, n, "%.*s", (int)(e - len), d + len);
	} else {
		snprintf(out, n, "%.7s", hash);
	}
}

/* The goal and the baseline, from a campaign (-C): the problem's
 * manifest, and the baseline's own figure as every result measured it. */
static struct {
	int on;
	struct ar_campaign c;
	struct ar_manifest m;
	char col[160];       /* baseline.METRIC.median */
	double *bv;
	size_t nb, cap;
} GL;

static void
read_goal(const char *dir)
{
	char err[512], *p;

	ar_campaign_open(&GL.c, dir);
	p = ar_path(GL.c.dir, "problem");
	if (ar_manifest_read(&GL.m, p, err, sizeof err) < 0)
		ar_die(AR_EX_DATA, "%s: %s", dir, err);
	free(p);
	snprintf(GL.col, sizeof GL.col, "baseline.%s.median",
	    GL.m.metric.name);
	GL.on = 1;
}

/* Staleness: what landed in the ledger while a method was written.
 * Every taken result's finish time, and each taken result of an idea
 * with its start; the ideas spool gives each idea's creation time. */
struct ideastart {
	char idea[AR_ID_MAX + 1];
	double started;
};
static double *fin;
static size_t nfin, capfin;
static struct ideastart *ist;
static size_t nist, capist;
struct ideatime {
	char id[AR_ID_MAX + 1];
	double created;
};
static struct ideatime *itime;
static size_t nitime, capitime;

static double
rfc3339_s(const char *v)
{
	struct timespec ts;

	if (!v || !v[0] || ar_time_parse(v, &ts) < 0)
		return NAN;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
read_ledger(FILE *f, const char *name)
{
	struct ar_tsv t;
	int c_id, c_signed, c_ver, c_verdict, c_why, c_wl, c_dev, c_k, c_hash;
	int c_commit, c_dir, c_r, c_lo, c_hi, c_metric, c_aa, c_rsd, c_stage;
	int c_sig, c_exit, c_started, c_finished, c_idea, c_base;
	int c_rf, c_rfb, c_rb;

	if (ar_tsv_open(&t, f, name) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	/* An empty ledger exports a bare header: the columns a row needs
	 * are needed once there is one. */
	c_id = col(&t, "id", 1);
	c_signed = col(&t, "signed", 1);
	c_verdict = col(&t, "verdict", 0);
	c_hash = col(&t, "method.hash", 0);
	c_k = col(&t, "shape.k", 0);
	c_r = col(&t, "ratio.median", 0);
	c_ver = col(&t, "verified", 0);
	c_why = col(&t, "why", 0);
	c_wl = col(&t, "workload", 0);
	c_dev = col(&t, "device", 0);
	c_commit = col(&t, "method.commit", 0);
	c_dir = col(&t, "method.dir", 0);
	c_lo = col(&t, "ratio.ci_lo", 0);
	c_hi = col(&t, "ratio.ci_hi", 0);
	c_metric = col(&t, "metric", 0);
	c_aa = col(&t, "aa", 0);
	c_rsd = col(&t, "noise_floor.rsd", 0);
	c_stage = col(&t, "failure.stage", 0);
	c_sig = col(&t, "failure.signal", 0);
	c_exit = col(&t, "failure.exit", 0);
	c_started = col(&t, "started", 0);
	c_finished = col(&t, "finished", 0);
	c_base = GL.on ? col(&t, GL.col, 0) : -1;
	c_idea = col(&t, "idea", 0);
	c_rf = col(&t, "roofline.method.frac", 0);
	c_rfb = col(&t, "roofline.baseline.frac", 0);
	c_rb = col(&t, "roofline.method.bound", 0);
	for (;;) {
		int st = ar_tsv_next(&t), has_r = 0;
		struct item it;
		struct method *m;
		const char *s;
		long long k = 1;
		size_t i;

		if (st < 0)
			ar_die(AR_EX_DATA, "%s", t.err);
		if (st == 0)
			break;
		if (!D.rows) {
			ar_tsv_need(&t, "verdict");
			ar_tsv_need(&t, "method.hash");
			ar_tsv_need(&t, "shape.k");
			ar_tsv_need(&t, "ratio.median");
		}
		D.rows++;
		/* Every row is checked, taken or not: a bad value is a bad
		 * export either way. */
		s = t.field[c_r];
		it.r = it.lo = it.hi = NAN;
		if (s[0]) {
			if (ar_parse_double(s, &it.r) < 0 || it.r < 0)
				ar_die(AR_EX_DATA, "%s: line %zu: ratio.median: "
				    "\"%s\" is not a number of 0 or more", t.name,
				    t.lineno, s);
			has_r = 1;
			it.lo = it.hi = it.r;
			s = fld(&t, c_lo);
			if (s[0] && (ar_parse_double(s, &it.lo) < 0 || it.lo < 0))
				ar_die(AR_EX_DATA, "%s: line %zu: ratio.ci_lo: "
				    "\"%s\" is not a number of 0 or more", t.name,
				    t.lineno, s);
			s = fld(&t, c_hi);
			if (s[0] && (ar_parse_double(s, &it.hi) < 0 || it.hi < 0))
				ar_die(AR_EX_DATA, "%s: line %zu: ratio.ci_hi: "
				    "\"%s\" is not a number of 0 or more", t.name,
				    t.lineno, s);
		}
		s = t.field[c_k];
		if (s[0] && (ar_parse_long(s, &k) < 0 || k < 1 || k > 65536))
			ar_die(AR_EX_DATA, "%s: line %zu: shape.k: \"%s\" is not "
			    "a whole number from 1 to 65536", t.name, t.lineno, s);
		it.k = (long)k;
		if (strcmp(t.field[c_signed], "yes") != 0) {
			D.unsigned_++;
			continue;
		}
		if (c_ver < 0 || strcmp(t.field[c_ver], "yes") != 0) {
			D.unverified++;
			continue;
		}
		D.taken++;
		if (c_base >= 0 && t.field[c_base][0]) {
			double bv;

			if (ar_parse_double(t.field[c_base], &bv) == 0) {
				if (GL.nb == GL.cap) {
					GL.cap = GL.cap ? 2 * GL.cap : 256;
					GL.bv = ar_xrealloc(GL.bv, GL.cap *
					    sizeof *GL.bv);
				}
				GL.bv[GL.nb++] = bv;
			}
		}
		{
			double fd = rfc3339_s(fld(&t, c_finished));

			if (!isnan(fd)) {
				if (nfin == capfin) {
					capfin = capfin ? 2 * capfin : 1024;
					fin = ar_xrealloc(fin, capfin * sizeof *fin);
				}
				fin[nfin++] = fd;
			}
			s = fld(&t, c_idea);
			fd = rfc3339_s(fld(&t, c_started));
			if (s[0] && !isnan(fd) && strlen(s) <= AR_ID_MAX) {
				if (nist == capist) {
					capist = capist ? 2 * capist : 256;
					ist = ar_xrealloc(ist, capist * sizeof *ist);
				}
				cpy(ist[nist].idea, sizeof ist[nist].idea, s);
				ist[nist++].started = fd;
			}
		}
		if (!D.metric[0] || D.mixed_metric == 0) {
			s = fld(&t, c_metric);
			if (!D.metric[0])
				cpy(D.metric, sizeof D.metric, s);
			else if (s[0] && strncmp(D.metric, s, TXT - 1) != 0)
				D.mixed_metric = 1;
		}
		if (!D.workload[0])
			cpy(D.workload, sizeof D.workload, fld(&t, c_wl));
		if (!D.device[0])
			cpy(D.device, sizeof D.device, fld(&t, c_dev));
		s = fld(&t, c_started);
		if (s[0] && (!D.first[0] || strcmp(s, D.first) < 0))
			cpy(D.first, sizeof D.first, s);
		if (s[0] && strcmp(s, D.last) > 0)
			cpy(D.last, sizeof D.last, s);
		if (c_aa >= 0 && strcmp(t.field[c_aa], "true") == 0) {
			/* A/A runs measure the noise, not a method. */
			double v;

			D.aa++;
			s = fld(&t, c_rsd);
			if (s[0] && ar_parse_double(s, &v) == 0 && v >= 0) {
				if (D.nrsd == D.caprsd) {
					D.caprsd = D.caprsd ? 2 * D.caprsd : 64;
					D.rsd = ar_xrealloc(D.rsd, D.caprsd *
					    sizeof *D.rsd);
				}
				D.rsd[D.nrsd++] = v;
			}
			continue;
		}
		it.v = verdict_of(t.field[c_verdict]);
		D.nv[it.v]++;
		cpy(it.id, sizeof it.id, t.field[c_id]);
		label_of(it.label, sizeof it.label, &t, c_commit, c_dir,
		    t.field[c_hash]);
		s = fld(&t, c_why);
		if (s[0])
			cpy(it.why, sizeof it.why, s);
		else if (fld(&t, c_stage)[0])
			snprintf(it.why, sizeof it.why, "stage %.40s signal %.20s "
			    "exit %.20s", fld(&t, c_stage), fld(&t, c_sig)[0] ?
			    fld(&t, c_sig) : "-", fld(&t, c_exit)[0] ?
			    fld(&t, c_exit) : "-");
		else
			it.why[0] = 0;
		/* The roofline share, where the workload declared its bytes or
		 * flops and a machine profile existed. */
		it.rf = it.rfb = NAN;
		if (ar_parse_double(fld(&t, c_rf), &it.rf) < 0 || !(it.rf >= 0))
			it.rf = NAN;
		if (ar_parse_double(fld(&t, c_rfb), &it.rfb) < 0 ||
		    !(it.rfb >= 0))
			it.rfb = NAN;
		cpy(it.bound, sizeof it.bound, fld(&t, c_rb));
		m = method_get(t.field[c_hash], it.label);
		m->n++;
		m->nv[it.v]++;
		if (!m->kmin || it.k < m->kmin)
			m->kmin = it.k;
		if (it.k > m->kmax)
			m->kmax = it.k;
		if (has_r && (it.v == V_KEEP || it.v == V_EQUIV ||
		    it.v == V_INCONC) && (!m->has_best || better(&it, &m->best))) {
			m->best = it;
			m->has_best = 1;
		}
		if (has_r && it.v == V_KEEP) {
			if (!D.has_best || better(&it, &D.best)) {
				D.best = it;
				D.has_best = 1;
			}
			for (i = 0; i < D.nbestk && D.bestk[i].k != it.k; i++)
				;
			if (i == D.nbestk && i == NK)
				D.kleft++;
			else if (i == D.nbestk)
				D.bestk[D.nbestk++] = it;
			else if (better(&it, &D.bestk[i]))
				D.bestk[i] = it;
		}
		if (has_r && it.v == V_INCONC) {
			D.tnear++;
			keep_top(D.near, &D.nnear, &it, better);
		}
		if (it.v == V_CRASH || it.v == V_TIMEOUT) {
			D.tcrash++;
			keep_top(D.crash, &D.ncrash, &it, later);
		}
		if (it.v == V_INVALID) {
			D.tinval++;
			keep_top(D.inval, &D.ninval, &it, later);
		}
		if (D.want_points) {
			struct point *p;

			if (D.npt == D.cappt) {
				D.cappt = D.cappt ? 2 * D.cappt : 1024;
				D.pt = ar_xrealloc(D.pt, D.cappt * sizeof *D.pt);
			}
			p = &D.pt[D.npt++];
			p->id = D.ids.len;
			ar_buf_add(&D.ids, it.id, strlen(it.id) + 1);
			p->r = has_r ? (float)it.r : NAN;
			p->cls = it.v == V_KEEP ? 0 : it.v == V_CRASH ||
			    it.v == V_TIMEOUT || it.v == V_INVALID || !has_r ? 2 : 1;
		}
	}
	ar_tsv_close(&t);
}

/* ---- the digest as sections of rows, rendered three ways ---- */

struct sect {
	const char *key, *title;
	int kv;              /* two columns, item and value: an object in JSON */
	size_t ncol;
	const char *col[10];
	const char *type;    /* per column: s string, n number, i integer */
	char **cell;
	size_t nrow, cap;
	size_t more;         /* items counted but not kept */
	const char *note;    /* a line under the heading */
	const char *rowtype; /* kv: the type of each row's value */
};

#define NSECT 16
static struct sect S[NSECT];
static size_t nsect;

static struct sect *
sect(const char *key, const char *title, const char *type, ...)
{
	struct sect *s = &S[nsect++];
	va_list ap;
	const char *c;

	s->key = key;
	s->title = title;
	s->type = type;
	va_start(ap, type);
	while ((c = va_arg(ap, const char *)) != NULL)
		s->col[s->ncol++] = c;
	va_end(ap);
	return s;
}

/* Adds a row of ncol cells given as printf formats, one per cell. */
static void
row(struct sect *s, ...)
{
	va_list ap;
	size_t i;

	if (s->nrow == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->cell = ar_xrealloc(s->cell, s->cap * s->ncol * sizeof *s->cell);
	}
	va_start(ap, s);
	for (i = 0; i < s->ncol; i++)
		s->cell[s->nrow * s->ncol + i] = ar_xstrdup(va_arg(ap,
		    const char *));
	va_end(ap);
	s->nrow++;
}

static const char *
f3(char *b, double v)
{
	if (isfinite(v))
		snprintf(b, 32, "%.3f", v);
	else
		b[0] = 0;
	return b;
}

static const char *
fi(char *b, size_t v)
{
	snprintf(b, 32, "%zu", v);
	return b;
}

static int
cmp_method(const void *a, const void *b)
{
	const struct method *x = *(struct method *const *)a;
	const struct method *y = *(struct method *const *)b;

	if (x->best.r != y->best.r)
		return x->best.r > y->best.r ? -1 : 1;
	return strcmp(x->hash, y->hash);
}

static int
cmp_item_better(const void *a, const void *b)
{
	return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

static int
cmp_item_id(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->id,
	    ((const struct item *)b)->id);
}

static int
cmp_item_k(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return (x->k > y->k) - (x->k < y->k);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define LB_MAX 50

static void
read_curves(const char *path, struct sect *s)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct ar_buf b = {0};
	size_t lineno = 0;
	char err[256], x[32], y[32], z[32];

	if (!f)
		ar_die(errno == ENOENT || errno == EACCES ? AR_EX_NOINPUT :
		    AR_EX_IO, "%s:", path);
	while (ar_jsonl_line(f, path, &b, &lineno)) {
		json_t *o = ar_json_parse(b.p, b.len, err, sizeof err), *j;
		const char *label, *model;

		if (!o || !json_is_object(o))
			ar_die(AR_EX_DATA, "%s: line %zu: %s", path, lineno,
			    o ? "not an object" : err);
		label = ar_json_str(o, "label");
		model = ar_json_str(o, "fit.model");
		if (!label)
			ar_die(AR_EX_DATA, "%s: line %zu: no label", path, lineno);
		j = json_object_get(o, "knee");
		x[0] = 0;
		if (json_is_integer(j))
			snprintf(x, sizeof x, "%lld",
			    (long long)json_integer_value(j));
		j = json_object_get(o, "best_k");
		y[0] = 0;
		if (json_is_integer(j))
			snprintf(y, sizeof y, "%lld",
			    (long long)json_integer_value(j));
		j = json_object_get(o, "best_score");
		z[0] = 0;
		if (json_is_number(j))
			f3(z, json_number_value(j));
		row(s, label, ar_json_str(o, "workload") ? ar_json_str(o,
		    "workload") : "", ar_json_str(o, "device") ? ar_json_str(o,
		    "device") : "", x, y, z, model ? model : "");
		json_decref(o);
	}
	if (f != stdin)
		fclose(f);
	ar_buf_free(&b);
}

static const char *phase, *phase_why;

/* Builds every section from the aggregates. */
static void
build(const char *curves)
{
	struct sect *s;
	struct method **ms = ar_xcalloc(D.mn + 1, sizeof *ms);
	size_t i, n = 0, nl = 0, keepers = 0, promising = 0, nearup = 0;
	char a[32], b[32], c[32], d[32];

	for (i = 0; i < D.mcap; i++)
		if (D.m[i].hash)
			ms[n++] = &D.m[i];
	if (GL.on) {
		char bm[64] = "", bn[32], mt[200];

		s = sect("goal", "Goal and baseline", "ss", "item", "value",
		    NULL);
		s->kv = 1;
		row(s, "campaign", GL.c.id ? GL.c.id : "");
		row(s, "problem", GL.m.name);
		row(s, "goal", GL.m.description ? GL.m.description : "");
		snprintf(mt, sizeof mt, "%s%s%s, %s is better", GL.m.metric.name,
		    GL.m.metric.unit ? " in " : "", GL.m.metric.unit ?
		    GL.m.metric.unit : "", GL.m.metric.higher ? "higher" :
		    "lower");
		row(s, "metric", mt);
		row(s, "baseline", GL.m.baseline);
		if (GL.nb)
			snprintf(bm, sizeof bm, "%.6g", ar_median(GL.bv, GL.nb));
		row(s, "baseline_median", bm);
		row(s, "baseline_results", fi(bn, GL.nb));
		s->rowtype = "sssssni";
	}
	s = sect("summary", "Summary", "ss", "item", "value", NULL);
	s->kv = 1;
	row(s, "rows", fi(a, D.rows));
	row(s, "taken", fi(a, D.taken));
	row(s, "flagged_unsigned", fi(a, D.unsigned_));
	row(s, "flagged_unverified", fi(a, D.unverified));
	row(s, "aa", fi(a, D.aa));
	row(s, "methods", fi(a, D.mn));
	for (i = 0; i < V_N; i++)
		row(s, vname[i], fi(a, D.nv[i]));
	s->rowtype = "iiiiiiiiiiiiiisssss";
	row(s, "metric", D.mixed_metric ? "mixed" : D.metric);
	row(s, "workload", D.workload);
	row(s, "device", D.device);
	row(s, "first_started", D.first);
	row(s, "last_started", D.last);
	if (D.unsigned_ || D.unverified)
		s->note = "Flagged rows (unsigned or not verified) are counted, "
		    "never used.";

	s = sect("best", "Best so far (keep)", "sinnnss", "scope", "k", "ratio",
	    "ci_lo", "ci_hi", "label", "id", NULL);
	if (D.has_best)
		row(s, "overall", (snprintf(d, sizeof d, "%ld", D.best.k), d),
		    f3(a, D.best.r), f3(b, D.best.lo), f3(c, D.best.hi),
		    D.best.label, D.best.id);
	ar_sort(D.bestk, D.nbestk, sizeof *D.bestk, cmp_item_k);
	for (i = 0; i < D.nbestk; i++) {
		struct item *it = &D.bestk[i];

		snprintf(d, sizeof d, "%ld", it->k);
		row(s, "k", d, f3(a, it->r), f3(b, it->lo), f3(c, it->hi),
		    it->label, it->id);
	}
	s->more = D.kleft;

	/* Leaderboard: methods with a usable best, best ratio first. */
	for (i = 0; i < n; i++)
		if (ms[i]->has_best)
			ms[nl++] = ms[i];
	ar_sort(ms, nl, sizeof *ms, cmp_method);
	s = sect("leaderboard", "Leaderboard", "isnnnissii", "rank", "label",
	    "ratio", "ci_lo", "ci_hi", "k", "verdict", "id", "results", "keeps",
	    NULL);
	for (i = 0; i < nl && i < LB_MAX; i++) {
		char r[32], kk[32], nn[32], nk[32];

		snprintf(kk, sizeof kk, "%ld", ms[i]->best.k);
		row(s, fi(r, i + 1), ms[i]->label, f3(a, ms[i]->best.r),
		    f3(b, ms[i]->best.lo), f3(c, ms[i]->best.hi), kk,
		    vname[ms[i]->best.v], ms[i]->best.id, fi(nn, ms[i]->n),
		    fi(nk, ms[i]->nv[V_KEEP]));
	}
	s->more = nl > LB_MAX ? nl - LB_MAX : 0;

	/* How close the leaders came to what the machine can do: a method at
	 * 90% of the memory roof gains nothing from compute tricks. Only
	 * where results carry roofline fields (ar-bench(1), Roofline). */
	for (i = 0; i < nl && i < LB_MAX && isnan(ms[i]->best.rf); i++)
		;
	if (i < nl && i < LB_MAX) {
		s = sect("roofline", "Roofline (share of the machine's measured "
		    "limit)", "sisnns", "label", "k", "bound", "frac",
		    "baseline_frac", "id", NULL);
		for (i = 0; i < nl && i < LB_MAX; i++) {
			struct item *it = &ms[i]->best;

			if (isnan(it->rf))
				continue;
			snprintf(d, sizeof d, "%ld", it->k);
			row(s, ms[i]->label, d, it->bound, f3(a, it->rf),
			    isnan(it->rfb) ? "" : f3(b, it->rfb), it->id);
		}
		s->note = "frac is the rate reached over the roof the "
		    "workload's intensity allows (memory bandwidth times "
		    "flops per byte, or the GEMM rate, whichever is lower), "
		    "from ar-bench --roofline's profile; the run's whole wall "
		    "time counts, so it is a lower bound.";
	}

	if (curves) {
		s = sect("curves", "Scale curves", "sssiins", "label", "workload",
		    "device", "knee", "best_k", "best_score", "model", NULL);
		read_curves(curves, s);
	}

	ar_sort(D.near, D.nnear, sizeof *D.near, cmp_item_better);
	s = sect("near_misses", "Near-misses (inconclusive)", "sinnns", "label",
	    "k", "ratio", "ci_lo", "ci_hi", "id", NULL);
	for (i = 0; i < D.nnear; i++) {
		snprintf(d, sizeof d, "%ld", D.near[i].k);
		row(s, D.near[i].label, d, f3(a, D.near[i].r), f3(b,
		    D.near[i].lo), f3(c, D.near[i].hi), D.near[i].id);
	}
	s->more = D.tnear - D.nnear;

	ar_sort(D.crash, D.ncrash, sizeof *D.crash, cmp_item_id);
	s = sect("crashes", "Crashes and timeouts", "sisss", "label", "k",
	    "verdict", "why", "id", NULL);
	for (i = 0; i < D.ncrash; i++) {
		snprintf(d, sizeof d, "%ld", D.crash[i].k);
		row(s, D.crash[i].label, d, vname[D.crash[i].v], D.crash[i].why,
		    D.crash[i].id);
	}
	s->more = D.tcrash - D.ncrash;
	if (D.tcrash > D.ncrash)
		s->note = "The latest by id.";

	ar_sort(D.inval, D.ninval, sizeof *D.inval, cmp_item_id);
	s = sect("invalid", "Invalid results", "sss", "label", "why", "id",
	    NULL);
	for (i = 0; i < D.ninval; i++)
		row(s, D.inval[i].label, D.inval[i].why, D.inval[i].id);
	s->more = D.tinval - D.ninval;

	s = sect("noise_floor", "Noise floor (A/A)", "ss", "item", "value",
	    NULL);
	s->kv = 1;
	ar_sort(D.rsd, D.nrsd, sizeof *D.rsd, cmp_double);
	a[0] = 0;
	if (D.nrsd)
		snprintf(a, sizeof a, "%.4g", D.nrsd % 2 ? D.rsd[D.nrsd / 2] :
		    (D.rsd[D.nrsd / 2 - 1] + D.rsd[D.nrsd / 2]) / 2);
	s->rowtype = "in";
	row(s, "aa_rows", fi(b, D.aa));
	row(s, "median_rsd", a);

	/* Promising methods seen only at small k: the scale probe tells
	 * most; inconclusive ones need more pairs, not more ideas. */
	s = sect("next", "Next measurements", "snss", "label", "ratio",
	    "measured_k", "suggest", NULL);
	for (i = 0; i < nl; i++) {
		struct method *m = ms[i];
		char kr[64], sg[64];

		snprintf(kr, sizeof kr, "%ld..%ld", m->kmin, m->kmax);
		if (m->nv[V_INCONC] && !m->nv[V_KEEP]) {
			snprintf(sg, sizeof sg, "more pairs");
			if (m->best.r > 1)
				nearup++;
		} else if (m->best.r > 1 && m->kmax <= 2) {
			snprintf(sg, sizeof sg, "scale probe at k=%s4,8",
			    m->kmax < 2 ? "2," : "");
			promising++;
		} else {
			continue;
		}
		if (s->nrow < LB_MAX)
			row(s, m->label, f3(a, m->best.r), kr, sg);
		else
			s->more++;
	}
	for (i = 0; i < nl; i++)
		if (ms[i]->nv[V_KEEP])
			keepers++;

	/* The phase, by the first rule that holds (ar-digest(1)). */
	if (D.taken - D.aa < 10) {
		phase = "explore";
		phase_why = "fewer than 10 results: too little to exploit";
	} else if (!D.has_best) {
		phase = "explore";
		phase_why = "no method kept yet";
	} else if (nearup >= 2) {
		phase = "combine near-misses";
		phase_why = "two or more inconclusive methods above 1.0";
	} else if (promising > 0) {
		phase = "exploit";
		phase_why = "a method above 1.0 is measured only at k <= 2";
	} else if (keepers >= 3) {
		phase = "ablate";
		phase_why = "three or more kept methods: find which change pays";
	} else {
		phase = "exploit";
		phase_why = "a kept method to refine";
	}
	s = sect("phase", "Phase", "ss", "item", "value", NULL);
	s->kv = 1;
	row(s, "phase", phase);
	row(s, "reason", phase_why);
	free(ms);
}



/* ---- spools: ideas and the experiment queue ---- */

static const char *const spsub[4] = { "new", "cur", "done", "failed" };

struct tally {           /* a category or a source, counted */
	char *key;
	size_t n, nv[4];
};

static struct tally *cat, *src;
static size_t ncat, capcat, nsrc, capsrc;

static struct tally *
tally(struct tally **a, size_t *n, size_t *cap, const char *key)
{
	size_t i;

	/* Linear: spools hold hundreds of ideas, not millions. */
	for (i = 0; i < *n; i++)
		if (strcmp((*a)[i].key, key) == 0)
			return &(*a)[i];
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 32;
		*a = ar_xrealloc(*a, *cap * sizeof **a);
	}
	memset(&(*a)[*n], 0, sizeof **a);
	(*a)[*n].key = ar_xstrdup(key);
	return &(*a)[(*n)++];
}

static long long now_s;

static void
set_now(void)
{
	const char *e = getenv("AR_NOW");
	struct timespec ts;

	if (e && e[0]) {
		if (ar_time_parse(e, &ts) < 0)
			ar_die(AR_EX_USAGE, "AR_NOW=%s: not an RFC 3339 time", e);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
	}
	now_s = (long long)ts.tv_sec;
}

/* One spool: its row in Queue health; with ideas set, each record's
 * category and sources are counted too. */
static void
read_spool(const char *dir, const char *label, int ideas, struct sect *s)
{
	size_t cnt[4] = {0}, bad = 0, expired = 0, nh = 0, i, j, k;
	char **holders = NULL, a[8][32];

	if (ar_spool_check(dir) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a spool", dir);
	for (i = 0; i < 4; i++) {
		char **names;
		size_t n;

		if (ar_spool_list(dir, spsub[i], &names, &n) < 0)
			ar_die(AR_EX_IO, "%s/%s:", dir, spsub[i]);
		for (j = 0; j < n; j++) {
			struct ar_lease l;
			struct ar_buf b = {0};
			char err[256], *p;
			json_t *o, *v;
			const char *c;

			p = ar_spool_path(dir, spsub[i], names[j]);
			if (ar_spool_parse(names[j], &l) < 0) {
				ar_warn("%s: not a record name", p);
				bad++;
				free(p);
				continue;
			}
			cnt[i]++;
			if (i == 1 && l.expires) {
				if (l.expires < now_s)
					expired++;
				for (k = 0; k < nh && strcmp(holders[k],
				    l.holder); k++)
					;
				if (k == nh) {
					holders = ar_xrealloc(holders, (nh + 1) *
					    sizeof *holders);
					holders[nh++] = ar_xstrdup(l.holder);
				}
			}
			if (ar_readfile(p, &b, AR_LINE_MAX + 1) < 0) {
				ar_warn("%s:", p);
				bad++;
				ar_buf_free(&b);
				free(p);
				continue;
			}
			o = ar_json_parse(b.p, b.len, err, sizeof err);
			ar_buf_free(&b);
			if (!o || !json_is_object(o)) {
				ar_warn("%s: %s", p, o ? "not a JSON object" :
				    err);
				bad++;
				json_decref(o);
				free(p);
				continue;
			}
			free(p);
			if (ideas) {
				struct tally *t;
				size_t m, q;
				int Y, Mo, Dd, hh, mm, ss, us;
				const char *ord = strchr(names[j], '-');

				/* The name's ORDER is the time the record was
				 * put: 20261126T015812.123456Z-... */
				if (ord && sscanf(ord + 1, "%4d%2d%2dT%2d%2d%2d.%6dZ",
				    &Y, &Mo, &Dd, &hh, &mm, &ss, &us) == 7) {
					struct tm tmv = {0};

					tmv.tm_year = Y - 1900;
					tmv.tm_mon = Mo - 1;
					tmv.tm_mday = Dd;
					tmv.tm_hour = hh;
					tmv.tm_min = mm;
					tmv.tm_sec = ss;
					if (nitime == capitime) {
						capitime = capitime ? 2 * capitime :
						    256;
						itime = ar_xrealloc(itime, capitime *
						    sizeof *itime);
					}
					cpy(itime[nitime].id, sizeof
					    itime[nitime].id, l.id);
					itime[nitime++].created = (double)timegm(
					    &tmv) + us / 1e6;
				}

				c = json_string_value(json_object_get(o,
				    "category"));
				t = tally(&cat, &ncat, &capcat, c && c[0] ? c :
				    "(none)");
				t->n++;
				t->nv[i]++;
				v = json_object_get(o, "sources");
				for (m = 0; m < json_array_size(v); m++) {
					json_t *w = json_array_get(v, m);

					if (!json_is_string(w))
						continue;
					/* An idea citing a source twice counts
					 * once. */
					for (q = 0; q < m; q++)
						if (json_equal(json_array_get(v, q),
						    w))
							break;
					if (q == m)
						tally(&src, &nsrc, &capsrc,
						    json_string_value(w))->n++;
				}
			}
			json_decref(o);
		}
		ar_spool_free_list(names, n);
	}
	a[6][0] = 0;
	if (nh)
		snprintf(a[6], sizeof a[6], "%.1f", (double)cnt[0] / (double)nh);
	row(s, label, fi(a[0], cnt[0]), fi(a[1], cnt[1]), fi(a[2], cnt[2]),
	    fi(a[3], cnt[3]), fi(a[4], nh), fi(a[5], expired), a[6],
	    fi(a[7], bad));
	for (k = 0; k < nh; k++)
		free(holders[k]);
	free(holders);
}

static int
cmp_cat(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->nv[2] != y->nv[2])
		return x->nv[2] < y->nv[2] ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
cmp_src(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The results that landed between an idea's creation and the start of
 * its measurement: what its author could not have seen. */
static size_t
unseen(double from, double to)
{
	size_t lo = 0, hi = nfin, a, b;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fin[mid] <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	a = lo;
	lo = a;
	hi = nfin;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fin[mid] < to)
			lo = mid + 1;
		else
			hi = mid;
	}
	b = lo;
	return b > a ? b - a : 0;
}

struct stale {
	const char *idea;
	size_t n;
	double age;
};

static int
cmp_stale(const void *a, const void *b)
{
	const struct stale *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->idea, y->idea);
}

static void
staleness(void)
{
	struct sect *s;
	struct stale *st;
	size_t i, j, n = 0;
	char a[3][32];

	if (!nist || !nitime)
		return;
	ar_sort(fin, nfin, sizeof *fin, cmp_dbl);
	st = ar_xcalloc(nist, sizeof *st);
	for (i = 0; i < nist; i++)
		for (j = 0; j < nitime; j++)
			if (strcmp(ist[i].idea, itime[j].id) == 0 &&
			    ist[i].started >= itime[j].created) {
				st[n].idea = ist[i].idea;
				st[n].n = unseen(itime[j].created, ist[i].started);
				st[n++].age = ist[i].started - itime[j].created;
				break;
			}
	ar_sort(st, n, sizeof *st, cmp_stale);
	s = sect("staleness", "Staleness (results an idea's author could not "
	    "see)", "sin", "idea", "unseen_results", "hours_from_idea_to_run",
	    NULL);
	for (i = 0; i < n; i++) {
		if (s->nrow < 20) {
			snprintf(a[1], sizeof a[1], "%.2f", st[i].age / 3600);
			row(s, st[i].idea, fi(a[0], st[i].n), a[1]);
		} else {
			s->more++;
		}
	}
	free(st);
}

static void
build_spools(const char *ideas, const char *queue)
{
	struct sect *s;
	size_t i;
	char a[4][32];

	set_now();
	s = sect("queue_health", "Queue health", "siiiiiini", "spool", "new",
	    "cur", "done", "failed", "holders", "expired", "new_per_holder",
	    "unreadable", NULL);
	if (ideas)
		read_spool(ideas, "ideas", 1, s);
	if (queue)
		read_spool(queue, "queue", 0, s);
	if (!ideas)
		return;
	ar_sort(cat, ncat, sizeof *cat, cmp_cat);
	s = sect("categories", "Under-explored categories", "siiii",
	    "category", "ideas", "open", "done", "failed", NULL);
	for (i = 0; i < ncat; i++) {
		if (s->nrow < LB_MAX)
			row(s, cat[i].key, fi(a[0], cat[i].n), fi(a[1],
			    cat[i].nv[0] + cat[i].nv[1]), fi(a[2], cat[i].nv[2]),
			    fi(a[3], cat[i].nv[3]));
		else
			s->more++;
		free(cat[i].key);
	}
	ar_sort(src, nsrc, sizeof *src, cmp_src);
	s = sect("sources", "Sources cited", "si", "source", "ideas", NULL);
	for (i = 0; i < nsrc; i++) {
		if (s->nrow < LB_MAX)
			row(s, src[i].key, fi(a[0], src[i].n));
		else
			s->more++;
		free(src[i].key);
	}
	free(cat);
	free(src);
	staleness();
}

/* ---- an imported log: karpathy/autoresearch or pi-autoresearch ---- */

enum { L_KEEP, L_DISCARD, L_CRASH, L_OTHER, L_N };

static struct {
	const char *from;
	char metric[TXT], dir[8], best_commit[TXT], best_desc[TXT];
	size_t rows, n[L_N];
	double best;
	int has_best, lower;
	double *v;           /* per row: the value, NAN when none */
	unsigned char *cls; /* per row: L_* */
	size_t cap;
} G;

/* Lower is better for a metric whose name ends in bpb or loss. */
static int
lower_by_name(const char *m)
{
	size_t n = strlen(m);

	return (n >= 3 && strcmp(m + n - 3, "bpb") == 0) ||
	    (n >= 4 && strcmp(m + n - 4, "loss") == 0);
}

static void
log_row(double v, int cls, const char *commit, const char *desc)
{
	if (G.rows == G.cap) {
		G.cap = G.cap ? 2 * G.cap : 256;
		G.v = ar_xrealloc(G.v, G.cap * sizeof *G.v);
		G.cls = ar_xrealloc(G.cls, G.cap);
	}
	G.v[G.rows] = cls == L_CRASH ? NAN : v;
	G.cls[G.rows] = (unsigned char)cls;
	G.rows++;
	G.n[cls]++;
	if (cls == L_KEEP && isfinite(v) && (!G.has_best ||
	    (G.lower ? v < G.best : v > G.best))) {
		G.best = v;
		G.has_best = 1;
		cpy(G.best_commit, sizeof G.best_commit, commit);
		cpy(G.best_desc, sizeof G.best_desc, desc);
	}
}

static int
log_cls(const char *st)
{
	if (strcmp(st, "keep") == 0)
		return L_KEEP;
	if (strcmp(st, "discard") == 0)
		return L_DISCARD;
	if (strcmp(st, "crash") == 0)
		return L_CRASH;
	return L_OTHER;
}

static void
read_autoresearch(FILE *f, const char *name)
{
	struct ar_tsv t;
	int c[4], cm = -1, i, r;
	const char *need[4] = { "commit", "memory_gb", "status",
	    "description" };

	if (ar_tsv_open_raw(&t, f, name, 1) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	for (i = 0; i < 4; i++)
		if ((c[i] = ar_tsv_col(&t, need[i])) < 0)
			ar_die(AR_EX_DATA, "%s: no column %s", name, need[i]);
	/* The metric is the first other column (val_bpb). */
	for (i = 0; i < (int)t.ncol && cm < 0; i++)
		if (i != c[0] && i != c[1] && i != c[2] && i != c[3])
			cm = i;
	if (cm < 0)
		ar_die(AR_EX_DATA, "%s: no metric column", name);
	cpy(G.metric, sizeof G.metric, t.hdr[cm]);
	G.lower = lower_by_name(G.metric);
	while ((r = ar_tsv_next(&t)) == 1) {
		const char *st = t.field[c[2]];
		int cls = log_cls(st);
		double v = NAN;

		if (cls == L_OTHER)
			ar_die(AR_EX_DATA, "%s: line %zu: status \"%s\": "
			    "expected keep, discard or crash", name, t.lineno,
			    st);
		if (cls != L_CRASH && ar_parse_double(t.field[cm], &v) < 0)
			ar_die(AR_EX_DATA, "%s: line %zu: %s: \"%s\" is not a "
			    "number", name, t.lineno, G.metric, t.field[cm]);
		log_row(v, cls, t.field[c[0]], t.field[c[3]]);
	}
	if (r < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
}

static void
read_pi(FILE *f, const char *name)
{
	struct ar_buf b = {0};
	size_t lineno = 0;
	char err[256];
	int have_dir = 0;

	snprintf(G.metric, sizeof G.metric, "metric");
	G.lower = 1;
	while (ar_jsonl_line(f, name, &b, &lineno)) {
		json_t *o = ar_json_parse(b.p, b.len, err, sizeof err), *v;
		const char *type, *st, *cm, *ds;
		double x = NAN;
		int cls;

		if (!o || !json_is_object(o))
			ar_die(AR_EX_DATA, "%s: line %zu: %s", name, lineno,
			    o ? "not an object" : err);
		type = json_string_value(json_object_get(o, "type"));
		if (type && strcmp(type, "config") == 0) {
			const char *m = json_string_value(json_object_get(o,
			    "metricName"));
			const char *d = json_string_value(json_object_get(o,
			    "bestDirection"));

			if (m)
				cpy(G.metric, sizeof G.metric, m);
			if (d && strcmp(d, "lower") && strcmp(d, "higher"))
				ar_die(AR_EX_DATA, "%s: line %zu: bestDirection "
				    "\"%s\": expected lower or higher", name,
				    lineno, d);
			if (d) {
				G.lower = strcmp(d, "lower") == 0;
				have_dir = 1;
			} else if (!have_dir) {
				G.lower = lower_by_name(G.metric);
			}
			json_decref(o);
			continue;
		}
		if (type || !json_object_get(o, "run")) {
			json_decref(o);
			continue;
		}
		st = json_string_value(json_object_get(o, "status"));
		if (!st)
			ar_die(AR_EX_DATA, "%s: line %zu: run without a status",
			    name, lineno);
		cls = log_cls(st);
		v = json_object_get(o, "metric");
		if (json_is_number(v))
			x = json_number_value(v);
		else if (v && !json_is_null(v))
			ar_die(AR_EX_DATA, "%s: line %zu: metric is not a "
			    "number", name, lineno);
		cm = json_string_value(json_object_get(o, "commit"));
		ds = json_string_value(json_object_get(o, "description"));
		log_row(x, cls, cm ? cm : "", ds ? ds : "");
		json_decref(o);
	}
	ar_buf_free(&b);
}

static void
build_log(void)
{
	struct sect *s;
	char a[32];

	s = sect("imported_log", "Imported log", "ss", "item", "value", NULL);
	s->kv = 1;
	s->note = "Imported rows are unsigned: flagged, shown here, never "
	    "used as evidence.";
	s->rowtype = "sssiiiiiinss";
	row(s, "source", G.from);
	row(s, "metric", G.metric);
	row(s, "better", G.lower ? "lower" : "higher");
	row(s, "rows", fi(a, G.rows));
	row(s, "flagged_unsigned", fi(a, G.rows));
	row(s, "keep", fi(a, G.n[L_KEEP]));
	row(s, "discard", fi(a, G.n[L_DISCARD]));
	row(s, "crash", fi(a, G.n[L_CRASH]));
	row(s, "other", fi(a, G.n[L_OTHER]));
	a[0] = 0;
	if (G.has_best)
		snprintf(a, sizeof a, "%.6g", G.best);
	row(s, "best_kept", a);
	row(s, "best_commit", G.best_commit);
	row(s, "best_description", G.best_desc);
}

/* The kept values of an imported log as a staircase: rows in log order
 * across, the metric up; keeps green, discards and others grey, crashes
 * red on the bottom row, the running best of keeps as a step line. */
static void
staircase_log(FILE *f, int decl)
{
	const double W = 900, H = 420, L = 70, R = 170, T = 40, Bm = 60;
	double ymin = INFINITY, ymax = -INFINITY, best = NAN, pad;
	size_t i, n = G.rows ? G.rows : 1;
	int started = 0;

	for (i = 0; i < G.rows; i++) {
		if (!isfinite(G.v[i]))
			continue;
		if (G.v[i] < ymin)
			ymin = G.v[i];
		if (G.v[i] > ymax)
			ymax = G.v[i];
	}
	if (!isfinite(ymin))
		ymin = 0, ymax = 1;
	pad = (ymax - ymin) * 0.08 + 1e-9 + fabs(ymax) * 1e-6;
	ymax += pad;
	ymin -= 2 * pad;
#define X(i) (L + (W - L - R) * ((double)(i) + 0.5) / (double)n)
#define Y(v) (T + (H - T - Bm) * (1 - ((v) - ymin) / (ymax - ymin)))
#define BETTER(v, b) (isnan(b) || (G.lower ? (v) < (b) : (v) > (b)))
	if (decl)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
	    "height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
	    "fill=\"white\"/>\n", W, H, W, H);
	fprintf(f, "<text x=\"%g\" y=\"22\" font-size=\"15\">Progress: ", L);
	ar_xml_put(f, G.metric);
	fprintf(f, " (%s is better) by run, running best of keeps</text>\n",
	    G.lower ? "lower" : "higher");
	fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"black\"/>\n<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"black\"/>\n", L, H - Bm, W - R, H - Bm, L, T, L, H - Bm);
	for (i = 0; i <= 4; i++) {
		double v = ymin + pad + (ymax - ymin - pad) * (double)i / 4;

		fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
		    "stroke=\"#ddd\"/><text x=\"%g\" y=\"%.1f\" "
		    "text-anchor=\"end\">%.4g</text>\n", L, Y(v), W - R, Y(v),
		    L - 6, Y(v) + 4, v);
	}
	fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">runs in "
	    "log order (%zu)</text>\n", (L + W - R) / 2, H - 18, G.rows);
	for (i = 0; i < G.rows; i++)
		if (G.cls[i] != L_KEEP && G.cls[i] != L_CRASH &&
		    isfinite(G.v[i]))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
			    "fill=\"#999\"/>\n", X(i), Y(G.v[i]));
	for (i = 0; i < G.rows; i++) {
		if (G.cls[i] == L_CRASH || !isfinite(G.v[i]))
			fprintf(f, "<path d=\"M%.1f %.1fl6 6m0 -6l-6 6\" "
			    "stroke=\"#d62728\" stroke-width=\"1.5\"/>\n",
			    X(i) - 3, Y(ymin + pad * 0.7) - 3);
		else if (G.cls[i] == L_KEEP)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			    "fill=\"#2ca02c\"/>\n", X(i), Y(G.v[i]));
	}
	for (i = 0; i < G.rows; i++) {
		if (G.cls[i] != L_KEEP || !isfinite(G.v[i]) ||
		    !BETTER(G.v[i], best))
			continue;
		if (!started) {
			fputs("<polyline fill=\"none\" stroke=\"#2ca02c\" "
			    "stroke-width=\"2\" points=\"", f);
			started = 1;
		} else {
			fprintf(f, "%.1f,%.1f ", X(i), Y(best));
		}
		best = G.v[i];
		fprintf(f, "%.1f,%.1f ", X(i), Y(best));
	}
	if (started)
		fprintf(f, "%.1f,%.1f\"/>\n", X(n - 1) + 0.5 * (W - L - R) /
		    (double)n, Y(best));
	fprintf(f, "<circle cx=\"%g\" cy=\"%g\" r=\"3.5\" fill=\"#2ca02c\"/>"
	    "<text x=\"%g\" y=\"%g\">keep</text>\n", W - R + 20, T + 10,
	    W - R + 30, T + 14);
	fprintf(f, "<circle cx=\"%g\" cy=\"%g\" r=\"2.5\" fill=\"#999\"/>"
	    "<text x=\"%g\" y=\"%g\">discard, other</text>\n", W - R + 20,
	    T + 30, W - R + 30, T + 34);
	fprintf(f, "<path d=\"M%g %gl6 6m0 -6l-6 6\" stroke=\"#d62728\" "
	    "stroke-width=\"1.5\"/><text x=\"%g\" y=\"%g\">crash (at the "
	    "bottom)</text>\n", W - R + 17, T + 47, W - R + 30, T + 54);
	fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"#2ca02c\" stroke-width=\"2\"/><text x=\"%g\" y=\"%g\">"
	    "best kept so far</text>\n", W - R + 12, T + 70, W - R + 26,
	    T + 70, W - R + 30, T + 74);
	fputs("</svg>\n", f);
#undef X
#undef Y
#undef BETTER
}

/* ---- Markdown ---- */

static void
md_cell(struct ar_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			ar_buf_addc(b, '\\');
		ar_buf_addc(b, *s);
	}
}

static void
md(size_t budget)
{
	struct ar_buf out = {0}, line = {0}, head = {0};
	size_t i, j, k;

	ar_buf_adds(&out, "# Campaign digest\n");
	for (i = 0; i < nsect; i++) {
		struct sect *s = &S[i];
		size_t left;

		/* Headings and cut lines are always written: the reader
		 * sees what was left out. */
		ar_buf_printf(&out, "\n## %s\n\n", s->title);
		if (s->note)
			ar_buf_printf(&out, "%s\n\n", s->note);
		if (!s->nrow && !s->more) {
			ar_buf_adds(&out, "(none)\n");
			continue;
		}
		/* The table's head goes out with its first row, or not at
		 * all when no row fits. */
		ar_buf_clear(&head);
		if (s->kv) {
			ar_buf_adds(&head, "| item | value |\n|---|---|\n");
		} else {
			for (j = 0; j < s->ncol; j++)
				ar_buf_printf(&head, "| %s ", s->col[j]);
			ar_buf_adds(&head, "|\n");
			for (j = 0; j < s->ncol; j++)
				ar_buf_adds(&head, "|---");
			ar_buf_adds(&head, "|\n");
		}
		for (k = 0; k < s->nrow; k++) {
			ar_buf_clear(&line);
			for (j = 0; j < s->ncol; j++) {
				ar_buf_adds(&line, "| ");
				md_cell(&line, s->cell[k * s->ncol + j]);
				ar_buf_addc(&line, ' ');
			}
			ar_buf_adds(&line, "|\n");
			/* 24 bytes stay free for the cut line. */
			if (out.len + line.len + (k ? 0 : head.len) + 24 > budget)
				break;
			if (!k)
				ar_buf_add(&out, head.p, head.len);
			ar_buf_add(&out, line.p, line.len);
		}
		left = s->nrow - k + s->more;
		if (left)
			ar_buf_printf(&out, "%s(%zu more left out)\n", k ? "\n" :
			    "", left);
	}
	fwrite(out.p, 1, out.len, stdout);
	ar_buf_free(&out);
	ar_buf_free(&line);
	ar_buf_free(&head);
}

/* ---- JSON ---- */

static json_t *
cell_json(const char *v, char type)
{
	double d;
	long long l;

	if (type == 'i' && ar_parse_long(v, &l) == 0)
		return json_integer(l);
	if (type == 'n' && ar_parse_double(v, &d) == 0)
		return json_real(d);
	if (type != 's' && !v[0])
		return json_null();
	return json_string(v);
}

static void
json_out(void)
{
	json_t *o = json_object(), *more = json_object();
	size_t i, j, k;
	char *s;

	for (i = 0; i < nsect; i++) {
		struct sect *sc = &S[i];
		json_t *v;

		if (sc->kv) {
			v = json_object();
			for (k = 0; k < sc->nrow; k++) {
				const char *c = sc->cell[k * 2 + 1];
				/* kv sections type each row, not each column. */
				char t = sc->rowtype && k < strlen(sc->rowtype) ?
				    sc->rowtype[k] : 's';

				json_object_set_new(v, sc->cell[k * 2],
				    cell_json(c, t));
			}
		} else {
			v = json_array();
			for (k = 0; k < sc->nrow; k++) {
				json_t *r = json_object();

				for (j = 0; j < sc->ncol; j++)
					json_object_set_new(r, sc->col[j],
					    cell_json(sc->cell[k * sc->ncol + j],
					    sc->type[j]));
				json_array_append_new(v, r);
			}
			json_object_set_new(more, sc->key,
			    json_integer((json_int_t)sc->more));
		}
		json_object_set_new(o, sc->key, v);
	}
	json_object_set_new(o, "left_out", more);
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(10));
	if (!s)
		ar_die(AR_EX_SOFTWARE, "cannot write JSON");
	puts(s);
	free(s);
	json_decref(o);
}

/* ---- the staircase ---- */

static const char *ids_base;

static int
cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return strcmp(ids_base + x->id, ids_base + y->id);
}

/* At most this many grey points are drawn; keeps that raise the best
 * and failures in a thinned stride are always drawn. */
#define SVG_MAX 4000

static void
staircase(FILE *f, int decl)
{
	const double W = 900, H = 420, L = 70, R = 170, T = 40, Bm = 60;
	double ymin = INFINITY, ymax = -INFINITY, best = -INFINITY, pad;
	size_t i, stride = D.npt > SVG_MAX ? (D.npt + SVG_MAX - 1) / SVG_MAX : 1;
	size_t n = D.npt ? D.npt : 1;
	int started = 0;

	for (i = 0; i < D.npt; i++) {
		double r = D.pt[i].r;

		/* Failures sit on their own row: their ratios, if any, must
		 * not stretch the scale. */
		if (isnan(r) || D.pt[i].cls == 2)
			continue;
		if (r < ymin)
			ymin = r;
		if (r > ymax)
			ymax = r;
	}
	if (ymin > 1)
		ymin = 1;
	if (ymax < 1)
		ymax = 1;
	pad = (ymax - ymin) * 0.08 + 0.02;
	ymax += pad;
	ymin -= 2 * pad;     /* room for the failures' row */
#define X(i) (L + (W - L - R) * ((double)(i) + 0.5) / (double)n)
#define Y(v) (T + (H - T - Bm) * (1 - ((v) - ymin) / (ymax - ymin)))
	if (decl)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
	    "height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
	    "fill=\"white\"/>\n", W, H, W, H);
	fprintf(f, "<text x=\"%g\" y=\"22\" font-size=\"15\">Progress: ratio "
	    "to the baseline by result, running best of keeps</text>\n", L);
	fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"black\"/>\n<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"black\"/>\n", L, H - Bm, W - R, H - Bm, L, T, L, H - Bm);
	for (i = 0; i <= 4; i++) {
		double v = ymin + pad + (ymax - ymin - pad) * (double)i / 4;

		fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
		    "stroke=\"#ddd\"/><text x=\"%g\" y=\"%.1f\" "
		    "text-anchor=\"end\">%.3g</text>\n", L, Y(v), W - R, Y(v),
		    L - 6, Y(v) + 4, v);
	}
	fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
	    "stroke=\"black\" stroke-dasharray=\"6 4\"/><text x=\"%g\" "
	    "y=\"%.1f\">baseline</text>\n", L, Y(1.0), W - R, Y(1.0),
	    W - R - 60, Y(1.0) - 5);
	fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">results in "
	    "id order (%zu)</text>\n<text x=\"18\" y=\"%g\" "
	    "transform=\"rotate(-90 18 %g)\" text-anchor=\"middle\">ratio"
	    "</text>\n", (L + W - R) / 2, H - 18, D.npt, (T + H - Bm) / 2,
	    (T + H - Bm) / 2);
	/* Points: grey first, so keeps and failures stay on top. */
	for (i = 0; i < D.npt; i += stride)
		if (D.pt[i].cls == 1 && !isnan(D.pt[i].r))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
			    "fill=\"#999\"/>\n", X(i), Y(D.pt[i].r));
	for (i = 0; i < D.npt; i++) {
		if (D.pt[i].cls == 2 && i % stride == 0)
			fprintf(f, "<path d=\"M%.1f %.1fl6 6m0 -6l-6 6\" "
			    "stroke=\"#d62728\" stroke-width=\"1.5\"/>\n",
			    X(i) - 3, Y(ymin + pad * 0.7) - 3);
		if (D.pt[i].cls == 0 && (i % stride == 0 || D.pt[i].r > best))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			    "fill=\"#2ca02c\"/>\n", X(i), Y(D.pt[i].r));
		if (D.pt[i].cls == 0 && D.pt[i].r > best)
			best = D.pt[i].r;
	}
	/* The running best of keeps as a step line. */
	best = -INFINITY;
	for (i = 0; i < D.npt; i++) {
		if (D.pt[i].cls != 0 || !(D.pt[i].r > best))
			continue;
		if (!started) {
			fputs("<polyline fill=\"none\" stroke=\"#2ca02c\" "
			    "stroke-width=\"2\" points=\"", f);
			started = 1;
		} else {
			fprintf(f, "%.1f,%.1f ", X(i), Y(best));
		}
		best = D.pt[i].r;
		fprintf(f, "%.1f,%.1f ", X(i), Y(best));
	}
	if (started)
		fprintf(f, "%.1f,%.1f\"/>\n", X(n - 1) + 0.5 * (W - L - R) /
		    (double)n, Y(best));
	fprintf(f, "<circle cx=\"%g\" cy=\"%g\" r=\"3.5\" fill=\"#2ca02c\"/>"
	    "<text x=\"%g\" y=\"%g\">keep</text>\n", W - R + 20, T + 10,
	    W - R + 30, T + 14);
	fprintf(f, "<circle cx=\"%g\" cy=\"%g\" r=\"2.5\" fill=\"#999\"/>"
	    "<text x=\"%g\" y=\"%g\">discard, equivalent,</text><text x=\"%g\" "
	    "y=\"%g\">inconclusive</text>\n", W - R + 20, T + 30, W - R + 30,
	    T + 34, W - R + 30, T + 48);
	fprintf(f, "<path d=\"M%g %gl6 6m0 -6l-6 6\" stroke=\"#d62728\" "
	    "stroke-width=\"1.5\"/><text x=\"%g\" y=\"%g\">crash, timeout,"
	    "</text><text x=\"%g\" y=\"%g\">invalid (at the bottom)</text>\n",
	    W - R + 17, T + 63, W - R + 30, T + 70, W - R + 30, T + 84);
	fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
	    "stroke=\"#2ca02c\" stroke-width=\"2\"/><text x=\"%g\" y=\"%g\">"
	    "best kept so far</text>\n", W - R + 12, T + 100, W - R + 26,
	    T + 100, W - R + 30, T + 104);
	if (stride > 1)
		fprintf(f, "<text x=\"%g\" y=\"%g\">1 in %zu drawn</text>\n",
		    W - R + 20, T + 124, stride);
	fputs("</svg>\n", f);
#undef X
#undef Y
}

/* Output files through ar_out_open: replaced whole, or written into
 * when they are a pipe or a device. */
static FILE *
out_open(const char *path, char **tmp)
{
	FILE *f = ar_out_open(path, tmp);

	if (!f)
		ar_die(ar_errno_exit(errno), "%s:", path);
	return f;
}

static void
out_close(FILE *f, const char *path, char *tmp)
{
	if (ar_out_close(f, path, tmp) < 0)
		ar_die(ar_errno_exit(errno), "%s:", path);
}

static void
html(const char *path)
{
	char *tmp;
	FILE *f = out_open(path, &tmp);
	size_t i, j, k;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
	    "\"utf-8\"/>\n<title>Campaign digest</title>\n<style>\nbody { "
	    "font-family: sans-serif; margin: 2em; max-width: 70em; }\n"
	    "table { border-collapse: collapse; margin-bottom: 1em; }\n"
	    "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; "
	    "text-align: left; }\nth { background: #f3f3f3; }\n"
	    ".more { color: #666; }\n</style>\n</head>\n<body>\n"
	    "<h1>Campaign digest</h1>\n<h2>Progress</h2>\n", f);
	if (G.from)
		staircase_log(f, 0);
	else
		staircase(f, 0);
	for (i = 0; i < nsect; i++) {
		struct sect *s = &S[i];

		fputs("<h2>", f);
		ar_xml_put(f, s->title);
		fputs("</h2>\n", f);
		if (s->note) {
			fputs("<p>", f);
			ar_xml_put(f, s->note);
			fputs("</p>\n", f);
		}
		if (!s->nrow && !s->more) {
			fputs("<p class=\"more\">(none)</p>\n", f);
			continue;
		}
		fputs("<table>\n<tr>", f);
		for (j = 0; j < s->ncol; j++) {
			fputs("<th>", f);
			ar_xml_put(f, s->kv ? (j ? "value" : "item") : s->col[j]);
			fputs("</th>", f);
		}
		fputs("</tr>\n", f);
		for (k = 0; k < s->nrow; k++) {
			fputs("<tr>", f);
			for (j = 0; j < s->ncol; j++) {
				fputs("<td>", f);
				ar_xml_put(f, s->cell[k * s->ncol + j]);
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
		if (s->more)
			fprintf(f, "<p class=\"more\">(%zu more left out)</p>\n",
			    s->more);
	}
	fputs("</body>\n</html>\n", f);
	out_close(f, path, tmp);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "svg", required_argument, NULL, 'S' },
		{ "html", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmt = "md", *ledger = NULL, *curves = NULL, *svgp = NULL;
	const char *htmlp = NULL, *ideas = NULL, *queue = NULL, *logp = NULL;
	const char *campaign = NULL;
	long long budget = 4000;
	FILE *f;
	size_t i, j;
	int c;

	ar_setprog(argv[0]);
	ar_std_args(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "b:c:C:f:F:i:l:q:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (ar_parse_long(optarg, &budget) < 0 || budget < 1 ||
			    budget > 100000000)
				ar_die(AR_EX_USAGE, "-b %s: not a number of tokens "
				    "from 1 to 100000000", optarg);
			break;
		case 'c': curves = optarg; break;
		case 'C': campaign = optarg; break;
		case 'f': fmt = optarg; break;
		case 'F':
			if (strcmp(optarg, "autoresearch") &&
			    strcmp(optarg, "pi"))
				ar_die(AR_EX_USAGE, "-F %s: expected autoresearch "
				    "or pi", optarg);
			/* The log's file is the next argument. */
			if (optind >= argc)
				ar_usage(usage);
			G.from = optarg;
			logp = argv[optind++];
			break;
		case 'i': ideas = optarg; break;
		case 'q': queue = optarg; break;
		case 'l': ledger = optarg; break;
		case 'S': svgp = optarg; break;
		case 'H': htmlp = optarg; break;
		default: ar_usage(usage);
		}
	}
	if (optind < argc)
		ar_usage(usage);
	if (strcmp(fmt, "md") && strcmp(fmt, "json"))
		ar_die(AR_EX_USAGE, "-f %s: the formats are md and json", fmt);
	if (curves && strcmp(curves, "-") == 0 && (!ledger ||
	    strcmp(ledger, "-") == 0))
		ar_die(AR_EX_USAGE, "-c -: standard input is the ledger's");
	if (logp && (ledger || curves))
		ar_die(AR_EX_USAGE, "-F: a log is digested alone, without -l "
		    "or -c");
	D.want_points = svgp || htmlp;
	if (campaign)
		read_goal(campaign);
	if (logp) {
		f = strcmp(logp, "-") ? fopen(logp, "r") : stdin;
		if (!f)
			ar_die(errno == ENOENT || errno == EACCES ?
			    AR_EX_NOINPUT : AR_EX_IO, "%s:", logp);
		if (strcmp(G.from, "pi") == 0)
			read_pi(f, f == stdin ? "<stdin>" : logp);
		else
			read_autoresearch(f, f == stdin ? "<stdin>" : logp);
		if (f != stdin)
			fclose(f);
		build_log();
	} else if (ledger || (!ideas && !queue)) {
		if (!ledger || strcmp(ledger, "-") == 0) {
			read_ledger(stdin, "<stdin>");
		} else {
			if (!(f = fopen(ledger, "r")))
				ar_die(errno == ENOENT || errno == EACCES ?
				    AR_EX_NOINPUT : AR_EX_IO, "%s:", ledger);
			read_ledger(f, ledger);
			fclose(f);
		}
		build(curves);
	}
	if (ideas || queue)
		build_spools(ideas, queue);
	if (strcmp(fmt, "json") == 0)
		json_out();
	else
		md((size_t)budget * 4);
	if (D.want_points) {
		ids_base = D.ids.p;
		ar_sort(D.pt, D.npt, sizeof *D.pt, cmp_point);
	}
	if (svgp) {
		char *tmp;

		f = out_open(svgp, &tmp);
		if (logp)
			staircase_log(f, 1);
		else
			staircase(f, 1);
		out_close(f, svgp, tmp);
	}
	if (htmlp)
		html(htmlp);
	ar_fshut(stdout, "<stdout>");
	for (i = 0; i < nsect; i++) {
		for (j = 0; j < S[i].nrow * S[i].ncol; j++)
			free(S[i].cell[j]);
		free(S[i].cell);
	}
	for (i = 0; i < D.mcap; i++) {
		free(D.m[i].hash);
		free(D.m[i].label);
	}
	free(D.m);
	free(D.rsd);
	free(D.pt);
	ar_buf_free(&D.ids);
	free(G.v);
	free(G.cls);
	free(fin);
	free(ist);
	free(itime);
	if (GL.on) {
		ar_manifest_free(&GL.m);
		ar_campaign_free(&GL.c);
		free(GL.bv);
	}
	return AR_EX_OK;
}
