/* ar-curve: scale curves from a ledger export. Groups verified results by
 * method, workload and device; per group, the points (k, score with its
 * CI, feasible under the guardrails), a fit that works with few points,
 * predictions at unmeasured k, the knee and the best feasible k.
 * ar-curve(1) is the contract. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "curve.h"
#include "err.h"
#include "io.h"
#include "json.h"
#include "svg.h"
#include "tsv.h"

static const char usage[] =
	"[-U] [-f tsv|jsonl] [-m metric] [-l] [-k list] [--text] "
	"[--svg file] [file ...]";

struct row {
	char *key;           /* method.hash TAB workload TAB device */
	char *method, *label, *workload, *device, *id, *verdict;
	double k, y, lo, hi;
	long n;
	int feasible, has_y;
};

struct group {
	struct row *r;       /* rows of the group, sorted by k then id */
	size_t nr;
	struct ar_point *p;  /* one point per k: the latest result */
	size_t np;
	long *results;
	const struct row **last;
	struct ar_fit fit;
	long knee, best_k;
	double best;
	int has_best;
};

/* The options; the only file-level state. */
static struct {
	int fmt, text, unverified, lower;
	const char *metric, *svg;
	double kpred[64];    /* -k */
	size_t nkpred;
} O;

/* Rows read and left out, by why. */
struct left {
	size_t unsigned_, unverified, aa, noscore;
};

static char *
dup_field(const struct ar_tsv *t, int c)
{
	return ar_xstrdup(c >= 0 ? t->field[c] : "");
}

/* A column that may be missing, or (need) one that must be there. */
static int
col(const struct ar_tsv *t, const char *name, int need)
{
	return need ? ar_tsv_need(t, name) : ar_tsv_col(t, name);
}

/* A score field: empty is missing; anything else must be a positive,
 * finite number. */
static int
score_field(const struct ar_tsv *t, int c, const char *name, double *v)
{
	const char *s = c >= 0 ? t->field[c] : "";

	if (!s[0])
		return 0;
	if (ar_parse_double(s, v) < 0 || !(*v > 0))
		ar_die(AR_EX_DATA, "%s: line %zu: %s: \"%s\" is not a positive "
		    "number", t->name, t->lineno, name, s);
	return 1;
}

static void
read_rows(FILE *f, const char *name, struct row **rows, size_t *n,
    size_t *cap, struct left *left)
{
	struct ar_tsv t;
	char cy[128], clo[128], chi[128], cn[128];
	int c_id, c_signed, c_verified, c_hash, c_commit, c_dir, c_wl, c_dev;
	int c_k, c_verdict, c_guard, c_aa, c_y, c_lo, c_hi, c_n;

	if (ar_tsv_open(&t, f, name) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	if (O.metric) {
		snprintf(cy, sizeof cy, "metrics.%s.median", O.metric);
		snprintf(clo, sizeof clo, "metrics.%s.ci_lo", O.metric);
		snprintf(chi, sizeof chi, "metrics.%s.ci_hi", O.metric);
		snprintf(cn, sizeof cn, "metrics.%s.n", O.metric);
	} else {
		snprintf(cy, sizeof cy, "ratio.median");
		snprintf(clo, sizeof clo, "ratio.ci_lo");
		snprintf(chi, sizeof chi, "ratio.ci_hi");
		snprintf(cn, sizeof cn, "ratio.n");
	}
	c_id = col(&t, "id", 1);
	c_signed = col(&t, "signed", 1);
	c_verified = col(&t, "verified", 0);
	c_hash = col(&t, "method.hash", 1);
	c_commit = col(&t, "method.commit", 0);
	c_dir = col(&t, "method.dir", 0);
	c_wl = col(&t, "workload", 1);
	c_dev = col(&t, "device", 1);
	c_k = col(&t, "shape.k", 1);
	c_verdict = col(&t, "verdict", 1);
	c_guard = col(&t, "pass.guardrails", 0);
	c_aa = col(&t, "aa", 0);
	c_y = col(&t, cy, 1);
	c_lo = col(&t, clo, 0);
	c_hi = col(&t, chi, 0);
	c_n = col(&t, cn, 0);
	for (;;) {
		struct row r = {0};
		int st = ar_tsv_next(&t);
		const char *v;
		long long k;

		if (st < 0)
			ar_die(AR_EX_DATA, "%s", t.err);
		if (st == 0)
			break;
		if (strcmp(t.field[c_signed], "yes") != 0) {
			left->unsigned_++;
			continue;
		}
		/* Only rows checked by ar-ledger export -V, unless -U. */
		if (!O.unverified && (c_verified < 0 ||
		    strcmp(t.field[c_verified], "yes") != 0)) {
			left->unverified++;
			continue;
		}
		if (c_aa >= 0 && strcmp(t.field[c_aa], "true") == 0) {
			left->aa++;
			continue;
		}
		if (ar_parse_long(t.field[c_k], &k) < 0 || k < 1 || k > 65536)
			ar_die(AR_EX_DATA, "%s: line %zu: shape.k: \"%s\" is not "
			    "a whole number from 1 to 65536", t.name, t.lineno,
			    t.field[c_k]);
		r.k = (double)k;
		r.has_y = score_field(&t, c_y, cy, &r.y);
		r.lo = r.hi = r.y;
		if (r.has_y) {
			double x;

			if (score_field(&t, c_lo, clo, &x))
				r.lo = x;
			if (score_field(&t, c_hi, chi, &x))
				r.hi = x;
			if (r.lo > r.y || r.hi < r.y)
				ar_die(AR_EX_DATA, "%s: line %zu: %s lies outside "
				    "its interval", t.name, t.lineno, cy);
		} else {
			left->noscore++;
		}
		r.n = 0;
		if (c_n >= 0 && t.field[c_n][0]) {
			long long nn;

			if (ar_parse_long(t.field[c_n], &nn) == 0 && nn >= 0)
				r.n = (long)nn;
		}
		v = t.field[c_verdict];
		r.feasible = strcmp(v, "invalid") && strcmp(v, "crash") &&
		    strcmp(v, "timeout") && !(c_guard >= 0 &&
		    strcmp(t.field[c_guard], "false") == 0);
		r.method = dup_field(&t, c_hash);
		if (c_commit >= 0 && t.field[c_commit][0])
			r.label = ar_xasprintf("%.7s", t.field[c_commit]);
		else if (c_dir >= 0 && t.field[c_dir][0]) {
			/* The directory's last name, trailing slashes aside. */
			char *d = ar_xstrdup(t.field[c_dir]), *b;
			size_t len = strlen(d);

			while (len > 1 && d[len - 1] == '/')
				d[--len] = 0;
			b = strrchr(d, '/');
			r.label = ar_xstrdup(b && b[1] ? b + 1 : d);
			free(d);
		} else
			r.label = ar_xasprintf("%.7s", r.method);
		r.workload = dup_field(&t, c_wl);
		r.device = dup_field(&t, c_dev);
		r.id = dup_field(&t, c_id);
		r.verdict = dup_field(&t, c_verdict);
		r.key = ar_xasprintf("%s\t%s\t%s", r.method, r.workload,
		    r.device);
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 1024;
			*rows = ar_xrealloc(*rows, *cap * sizeof **rows);
		}
		(*rows)[(*n)++] = r;
	}
	ar_tsv_close(&t);
}

static int
cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* One point per k: the latest result with a score; feasible as the
 * latest result at that k says. */
static void
build(struct group *g)
{
	size_t i = 0;

	g->p = ar_xcalloc(g->nr + 1, sizeof *g->p);
	g->results = ar_xcalloc(g->nr + 1, sizeof *g->results);
	g->last = ar_xcalloc(g->nr + 1, sizeof *g->last);
	while (i < g->nr) {
		size_t j = i, s = g->nr;

		while (j < g->nr && g->r[j].k == g->r[i].k) {
			if (g->r[j].has_y)
				s = j;
			j++;
		}
		if (s < g->nr) {
			struct ar_point *p = &g->p[g->np];

			p->k = g->r[s].k;
			p->y = g->r[s].y;
			p->lo = g->r[s].lo;
			p->hi = g->r[s].hi;
			p->feasible = g->r[j - 1].feasible;
			g->results[g->np] = (long)(j - i);
			g->last[g->np] = &g->r[s];
			g->np++;
		}
		i = j;
	}
	ar_curve_fit(g->p, g->np, &g->fit);
	g->has_best = ar_curve_best(g->p, g->np, !O.lower, &g->knee,
	    &g->best_k, &g->best) == 0;
}

static double
efficiency(const struct group *g, size_t i)
{
	/* The score's scaling efficiency against the smallest k. */
	if (!g->np || !(g->p[0].y > 0))
		return NAN;
	return (g->p[i].y / g->p[0].y) / (g->p[i].k / g->p[0].k);
}

static int
measured(const struct group *g, double k)
{
	size_t i;

	for (i = 0; i < g->np; i++)
		if (g->p[i].k == k)
			return 1;
	return 0;
}

/* Six significant digits: more than any score's interval can tell
 * apart, and the shortest exact form costs a strtod per digit count. */
static void
num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
}

static const char *
model_name(int m)
{
	return m == AR_FIT_USL ? "usl" : m == AR_FIT_AMDAHL ? "amdahl" : "none";
}

static void
tsv_group(const struct group *g)
{
	const struct row *r0 = &g->r[0];
	size_t i;

	for (i = 0; i < g->np + O.nkpred; i++) {
		double k, y, lo, hi;
		int meas = i < g->np;

		if (meas) {
			k = g->p[i].k;
			y = g->p[i].y;
			lo = g->p[i].lo;
			hi = g->p[i].hi;
		} else {
			k = O.kpred[i - g->np];
			if (g->fit.model == AR_FIT_NONE || measured(g, k))
				continue;
			ar_curve_predict(&g->fit, k, &y, &lo, &hi);
		}
		printf("%s\t", r0->method);
		ar_tsv_put(stdout, r0->label);
		putchar('\t');
		ar_tsv_put(stdout, r0->workload);
		putchar('\t');
		ar_tsv_put(stdout, r0->device);
		printf("\t%s\t%g\t%s\t", O.metric ? O.metric : "ratio", k,
		    meas ? "measured" : "predicted");
		num(stdout, y);
		putchar('\t');
		num(stdout, lo);
		putchar('\t');
		num(stdout, hi);
		putchar('\t');
		if (meas)
			printf("%ld", g->last[i]->n);
		putchar('\t');
		if (meas)
			fputs(g->p[i].feasible ? "yes" : "no", stdout);
		putchar('\t');
		if (meas)
			num(stdout, efficiency(g, i));
		printf("\t%s\t", model_name(g->fit.model));
		if (g->fit.model) {
			num(stdout, g->fit.sigma);
			putchar('\t');
			num(stdout, g->fit.sigma_se);
			putchar('\t');
			num(stdout, g->fit.kappa);
			putchar('\t');
			num(stdout, g->fit.kappa_se);
		} else {
			fputs("\t\t", stdout);
			putchar('\t');
		}
		putchar('\t');
		if (g->has_best)
			printf("%ld\t%ld", g->knee, g->best_k);
		else
			putchar('\t');
		putchar('\n');
	}
}

static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
group_json(const struct group *g)
{
	const struct row *r0 = &g->r[0];
	json_t *o, *pts = json_array(), *pred = json_array(), *eff = json_array();
	json_t *fit;
	size_t i;

	for (i = 0; i < g->np; i++) {
		json_array_append_new(pts, json_pack("{s:f, s:o, s:o, s:o, s:i, "
		    "s:i, s:b, s:s, s:s}", "k", g->p[i].k, "score",
		    jnum(g->p[i].y), "ci_lo", jnum(g->p[i].lo), "ci_hi",
		    jnum(g->p[i].hi), "n", (int)g->last[i]->n, "results",
		    (int)g->results[i], "feasible", g->p[i].feasible, "verdict",
		    g->last[i]->verdict, "id", g->last[i]->id));
		json_array_append_new(eff, json_pack("{s:f, s:o}", "k",
		    g->p[i].k, "e", jnum(efficiency(g, i))));
	}
	for (i = 0; i < O.nkpred && g->fit.model; i++) {
		double y, lo, hi;

		if (measured(g, O.kpred[i]))
			continue;
		ar_curve_predict(&g->fit, O.kpred[i], &y, &lo, &hi);
		json_array_append_new(pred, json_pack("{s:f, s:o, s:o, s:o}",
		    "k", O.kpred[i], "score", jnum(y), "ci_lo", jnum(lo),
		    "ci_hi", jnum(hi)));
	}
	fit = json_pack("{s:s, s:s}", "model", model_name(g->fit.model), "why",
	    g->fit.why);
	if (g->fit.model) {
		json_object_set_new(fit, "k0", json_real(g->fit.k0));
		json_object_set_new(fit, "s1", jnum(g->fit.y0));
		json_object_set_new(fit, "sigma", jnum(g->fit.sigma));
		json_object_set_new(fit, "sigma_se", jnum(g->fit.sigma_se));
		json_object_set_new(fit, "kappa", jnum(g->fit.kappa));
		json_object_set_new(fit, "kappa_se", jnum(g->fit.kappa_se));
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}",
	    "method", r0->method, "label", r0->label, "workload", r0->workload,
	    "device", r0->device, "score", O.metric ? O.metric : "ratio",
	    "points", pts, "fit", fit, "predicted", pred, "efficiency", eff);
	json_object_set_new(o, "knee", g->has_best ? json_integer(g->knee) :
	    json_null());
	json_object_set_new(o, "best_k", g->has_best ? json_integer(g->best_k) :
	    json_null());
	json_object_set_new(o, "best_score", g->has_best ? json_real(g->best) :
	    json_null());
	return o;
}

/* A terminal plot: one line per k, the score as a bar against the
 * group's largest value, the interval and the marks. */
static void
text_group(const struct group *g)
{
	const struct row *r0 = &g->r[0];
	double top = 0;
	size_t i;

	for (i = 0; i < g->np; i++)
		if (g->p[i].hi > top)
			top = g->p[i].hi;
	printf("%s (%.12s) %s %s, %s vs k: %s\n", r0->label, r0->method,
	    r0->workload, r0->device, O.metric ? O.metric : "ratio",
	    g->fit.why);
	for (i = 0; i < g->np; i++) {
		int w = top > 0 ? (int)(40 * g->p[i].y / top + 0.5) : 0, j;

		printf("  k=%-4g ", g->p[i].k);
		for (j = 0; j < w; j++)
			putchar(g->p[i].feasible ? '#' : 'x');
		printf("%*s %.3f [%.3f, %.3f]%s%s%s\n", 40 - w, "", g->p[i].y,
		    g->p[i].lo, g->p[i].hi, g->p[i].feasible ? "" :
		    "  infeasible", g->has_best && g->p[i].k == g->knee ?
		    "  <- knee" : "", g->has_best && g->p[i].k == g->best_k ?
		    "  <- best feasible" : "");
	}
	for (i = 0; i < O.nkpred && g->fit.model; i++) {
		double y, lo, hi;

		if (measured(g, O.kpred[i]))
			continue;
		ar_curve_predict(&g->fit, O.kpred[i], &y, &lo, &hi);
		printf("  k=%-4g %-40s %.3f [%.3f, %.3f]  predicted\n",
		    O.kpred[i], "", y, lo, hi);
	}
	if (g->has_best)
		printf("  knee %ld, best feasible %ld (%.3f)\n", g->knee,
		    g->best_k, g->best);
	else
		printf("  no feasible point\n");
}

/* ---- SVG ---- */

static const char *const colour[] = { "#1f77b4", "#d62728", "#2ca02c",
	"#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };

/* The curves of the first 8 groups against k on a log scale, each with
 * its band of intervals, its points (a cross where infeasible) and its
 * knee; the legend names them. */
static void
svg(const char *path, struct group *g, size_t ng)
{
	struct ar_svg p;
	double kmax = 1, ymin = INFINITY, ymax = -INFINITY, kt;
	char *tmp, txt[256];
	FILE *f = ar_out_open(path, &tmp);
	size_t i, j, shown = ng < 8 ? ng : 8;

	if (!f)
		ar_die(ar_errno_exit(errno), "%s:", path);
	for (i = 0; i < shown; i++)
		for (j = 0; j < g[i].np; j++) {
			if (g[i].p[j].k > kmax)
				kmax = g[i].p[j].k;
			if (g[i].p[j].lo < ymin)
				ymin = g[i].p[j].lo;
			if (g[i].p[j].hi > ymax)
				ymax = g[i].p[j].hi;
		}
	if (!O.metric) {
		/* The baseline's line at 1 is always in view. */
		if (ymin > 1)
			ymin = 1;
		if (ymax < 1)
			ymax = 1;
	}
	if (!isfinite(ymin)) {
		ymin = 0;
		ymax = 1;
	}
	{
		double pad = (ymax - ymin) * 0.08 + 1e-9;

		ymin -= pad;
		ymax += pad;
	}
	ar_svg_begin(&p, f, 1, 900, 440, 70, 330, 40, 60);
	p.ymin = ymin;
	p.ymax = ymax;
	ar_svg_xlog2(&p, kmax);
	snprintf(txt, sizeof txt, "%s against k (log scale), 95%% intervals",
	    O.metric ? O.metric : "ratio to the baseline");
	ar_svg_title(&p, txt);
	/* Axes, k ticks at powers of two, five score ticks. */
	ar_svg_axes(&p);
	for (kt = 1; kt <= kmax; kt *= 2)
		ar_svg_xtick(&p, kt);
	ar_svg_xlabel(&p, "k (GPUs or CPUs of the bundle)");
	ar_svg_ygrid(&p, ymin, ymax - ymin, 4, 3);
	if (!O.metric)
		ar_svg_hline(&p, 1.0, "baseline");
	for (i = 0; i < shown; i++) {
		const char *c = colour[i % 8];
		struct group *q = &g[i];

		if (!q->np)
			continue;
		/* The CI band, then the line, then the points. */
		ar_svg_poly(&p, AR_SVG_BAND, c);
		for (j = 0; j < q->np; j++)
			ar_svg_point(&p, ar_svg_x(&p, q->p[j].k),
			    ar_svg_y(&p, q->p[j].hi));
		for (j = q->np; j-- > 0;)
			ar_svg_point(&p, ar_svg_x(&p, q->p[j].k),
			    ar_svg_y(&p, q->p[j].lo));
		ar_svg_poly_end(&p);
		ar_svg_poly(&p, AR_SVG_LINE, c);
		for (j = 0; j < q->np; j++)
			ar_svg_point(&p, ar_svg_x(&p, q->p[j].k),
			    ar_svg_y(&p, q->p[j].y));
		ar_svg_poly_end(&p);
		for (j = 0; j < q->np; j++) {
			double x = ar_svg_x(&p, q->p[j].k);
			double y = ar_svg_y(&p, q->p[j].y);

			if (q->p[j].feasible)
				ar_svg_dot(&p, x, y, 4, c);
			else
				ar_svg_cross(&p, x, y, 10, c, 2.5,
				    "infeasible");
			if (q->has_best && q->p[j].k == q->knee)
				ar_svg_ring(&p, x, y, 9, c, "knee");
		}
		if (q->has_best)
			snprintf(txt, sizeof txt, "%s %s (knee %ld, best %ld)",
			    q->r[0].label, q->r[0].workload, q->knee,
			    q->best_k);
		else
			snprintf(txt, sizeof txt, "%s %s", q->r[0].label,
			    q->r[0].workload);
		ar_svg_key(&p, AR_SVG_KEY_SWATCH, 20 * (double)i, 0, c, txt,
		    NULL);
	}
	if (ng > shown) {
		snprintf(txt, sizeof txt, "and %zu more", ng - shown);
		ar_svg_note(&p, p.w - p.r + 16, p.t + 20 * (double)shown + 9,
		    txt);
	}
	ar_svg_end(&p);
	if (ar_out_close(f, path, tmp) < 0)
		ar_die(ar_errno_exit(errno), "%s:", path);
}

static void
parse_klist(const char *s)
{
	const char *p = s;
	char *end = (char *)s;

	O.nkpred = 0;
	if (!*s)
		ar_die(AR_EX_USAGE, "-k: no k given");
	while (*p) {
		long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;

		if (v < 1 || v > 65536 || (*end && *end != ',') ||
		    (*end == ',' && !end[1]) ||
		    O.nkpred == sizeof O.kpred / sizeof *O.kpred)
			ar_die(AR_EX_USAGE, "-k %s: not a list of k like 1,2,4,8",
			    s);
		O.kpred[O.nkpred++] = (double)v;
		p = *end ? end + 1 : end;
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "text", no_argument, NULL, 'X' },
		{ "svg", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct row *rows = NULL;
	struct group *g = NULL;
	struct left left = {0};
	size_t nrows = 0, cap = 0, ng = 0, i, j;
	const char *fmt = "tsv";
	int c;

	ar_setprog(argv[0]);
	ar_std_args(argc, argv, usage);
	parse_klist("1,2,4,8");
	while ((c = getopt_long(argc, argv, "f:k:lm:U", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'k': parse_klist(optarg); break;
		case 'l': O.lower = 1; break;
		case 'm': O.metric = optarg; break;
		case 'S': O.svg = optarg; break;
		case 'U': O.unverified = 1; break;
		case 'X': O.text = 1; break;
		default: ar_usage(usage);
		}
	}
	if (strcmp(fmt, "tsv") && strcmp(fmt, "jsonl"))
		ar_die(AR_EX_USAGE, "-f %s: the formats are tsv and jsonl", fmt);
	O.fmt = strcmp(fmt, "jsonl") == 0;
	if (optind == argc) {
		read_rows(stdin, "<stdin>", &rows, &nrows, &cap, &left);
	} else {
		for (i = (size_t)optind; i < (size_t)argc; i++) {
			FILE *f = strcmp(argv[i], "-") ? fopen(argv[i], "r") :
			    stdin;

			if (!f)
				ar_die(errno == ENOENT || errno == EACCES ?
				    AR_EX_NOINPUT : AR_EX_IO, "%s:", argv[i]);
			read_rows(f, argv[i], &rows, &nrows, &cap, &left);
			if (f != stdin)
				fclose(f);
		}
	}
	if (left.unsigned_ || left.unverified || left.aa || left.noscore)
		ar_warn("left out %zu unsigned row%s, %zu not verified%s, %zu "
		    "A/A; %zu row%s without a score", left.unsigned_,
		    left.unsigned_ == 1 ? "" : "s", left.unverified,
		    left.unverified ? " (export with ar-ledger export -V, or "
		    "-U)" : "", left.aa, left.noscore, left.noscore == 1 ?
		    "" : "s");
	ar_sort(rows, nrows, sizeof *rows, cmp_row);
	for (i = 0; i < nrows; i = j) {
		for (j = i; j < nrows && strcmp(rows[j].key, rows[i].key) == 0;
		    j++)
			;
		g = ar_xrealloc(g, (ng + 1) * sizeof *g);
		memset(&g[ng], 0, sizeof *g);
		g[ng].r = &rows[i];
		g[ng].nr = j - i;
		build(&g[ng]);
		ng++;
	}
	if (O.text) {
		for (i = 0; i < ng; i++)
			text_group(&g[i]);
	} else if (O.fmt) {
		for (i = 0; i < ng; i++) {
			json_t *o = group_json(&g[i]);
			char *s = ar_json_line(o);

			puts(s);
			free(s);
			json_decref(o);
		}
	} else {
		puts("method\tlabel\tworkload\tdevice\tscore\tk\tsource\tvalue\t"
		    "ci_lo\tci_hi\tn\tfeasible\tefficiency\tmodel\tsigma\t"
		    "sigma_se\tkappa\tkappa_se\tknee\tbest_k");
		for (i = 0; i < ng; i++)
			tsv_group(&g[i]);
	}
	if (O.svg)
		svg(O.svg, g, ng);
	ar_fshut(stdout, "<stdout>");
	for (i = 0; i < ng; i++) {
		free(g[i].p);
		free(g[i].results);
		free(g[i].last);
	}
	free(g);
	for (i = 0; i < nrows; i++) {
		free(rows[i].key);
		free(rows[i].method);
		free(rows[i].label);
		free(rows[i].workload);
		free(rows[i].device);
		free(rows[i].id);
		free(rows[i].verdict);
	}
	free(rows);
	return AR_EX_OK;
}
