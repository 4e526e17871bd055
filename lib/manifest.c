/* manifest.c: problem.json, strictly: every key known, every type right,
 * and each error names the field it is about. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "io.h"
#include "json.h"
#include "manifest.h"
#include "metric.h"

#define MANIFEST_MAX (1024 * 1024)

struct ctx {
	char *err;
	size_t errlen;
};

static int
fail(struct ctx *c, const char *path, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (path[0])
		snprintf(c->err, c->errlen, "problem.json: %s: %s", path, why);
	else
		snprintf(c->err, c->errlen, "problem.json: %s", why);
	return -1;
}

static const char *
type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static void
sub(char *out, size_t n, const char *path, const char *k)
{
	/* A path too long for out is cut: it only names a field. */
	if (snprintf(out, n, "%s%s%s", path, path[0] ? "." : "", k) < 0)
		out[0] = 0;
}

/* Checks that obj is an object whose keys are all in the NULL-ended
 * list allowed. */
static int
keys(struct ctx *c, const json_t *obj, const char *path,
    const char *const *allowed)
{
	const char *k;
	json_t *v;
	size_t i;

	if (!json_is_object(obj))
		return fail(c, path, "must be an object, not %s",
		    type_name(obj));
	json_object_foreach((json_t *)obj, k, v) {
		for (i = 0; allowed[i]; i++)
			if (strcmp(k, allowed[i]) == 0)
				break;
		if (!allowed[i]) {
			char p[200];

			sub(p, sizeof p, path, k);
			return fail(c, p, "unknown key");
		}
	}
	return 0;
}


static int
get_str(struct ctx *c, const json_t *obj, const char *path, const char *k,
    int required, const char **out)
{
	json_t *v = json_object_get(obj, k);
	char p[200];

	sub(p, sizeof p, path, k);
	*out = NULL;
	if (!v)
		return required ? fail(c, p, "missing") : 0;
	if (!json_is_string(v))
		return fail(c, p, "must be a string, not %s", type_name(v));
	if (required && !json_string_value(v)[0])
		return fail(c, p, "must not be empty");
	*out = json_string_value(v);
	return 0;
}

static int
get_num(struct ctx *c, const json_t *obj, const char *path, const char *k,
    int required, double *out)
{
	json_t *v = json_object_get(obj, k);
	char p[200];

	sub(p, sizeof p, path, k);
	if (!v) {
		*out = NAN;
		return required ? fail(c, p, "missing") : 0;
	}
	if (!json_is_number(v))
		return fail(c, p, "must be a number, not %s", type_name(v));
	*out = json_number_value(v);
	return 0;
}

static int
get_pos(struct ctx *c, const json_t *obj, const char *path, const char *k,
    int required, double *out)
{
	char p[200];

	if (get_num(c, obj, path, k, required, out) < 0)
		return -1;
	sub(p, sizeof p, path, k);
	if (!isnan(*out) && !(*out > 0))
		return fail(c, p, "must be greater than 0");
	return 0;
}

static int
get_count(struct ctx *c, const json_t *obj, const char *path, const char *k,
    long *out)
{
	json_t *v = json_object_get(obj, k);
	char p[200];

	sub(p, sizeof p, path, k);
	*out = -1;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > 1000000)
		return fail(c, p, "must be a whole number from 0 to 1000000");
	*out = (long)json_integer_value(v);
	return 0;
}

static int
metric_name_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!*p || strlen(s) >= AR_METRIC_NAME)
		return 0;
	for (; *p; p++) {
		/* µ is the two bytes 0xc2 0xb5. */
		if (p[0] == 0xc2 && p[1] == 0xb5) {
			p++;
			continue;
		}
		if (!(*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') ||
		    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return 0;
	}
	return 1;
}

static int
get_metric_name(struct ctx *c, const json_t *obj, const char *path,
    const char *k, const char **out)
{
	char p[200];

	if (get_str(c, obj, path, k, 1, out) < 0)
		return -1;
	sub(p, sizeof p, path, k);
	if (!metric_name_ok(*out))
		return fail(c, p, "\"%s\" is not a metric name ([A-Za-z0-9_.]"
		    ", at most %d bytes)", *out, AR_METRIC_NAME - 1);
	return 0;
}

static int
mdef(struct ctx *c, const json_t *o, const char *path, struct ar_mdef *d)
{
	static const char *const allowed[] = { "name", "unit", "direction",
	    NULL };
	const char *dir;
	char p[200];

	if (keys(c, o, path, allowed) < 0 ||
	    get_metric_name(c, o, path, "name", &d->name) < 0 ||
	    get_str(c, o, path, "unit", 0, &d->unit) < 0 ||
	    get_str(c, o, path, "direction", 1, &dir) < 0)
		return -1;
	sub(p, sizeof p, path, "direction");
	if (strcmp(dir, "higher") == 0)
		d->higher = 1;
	else if (strcmp(dir, "lower") == 0)
		d->higher = 0;
	else
		return fail(c, p, "must be \"higher\" or \"lower\", not "
		    "\"%s\"", dir);
	return 0;
}

const char *
ar_op_name(int op)
{
	static const char *const name[] = { "<", "<=", ">", ">=", "==" };

	return op >= 0 && op <= AR_OP_EQ ? name[op] : "?";
}

int
ar_op_holds(int op, double a, double b)
{
	switch (op) {
	case AR_OP_LT: return a < b;
	case AR_OP_LE: return a <= b;
	case AR_OP_GT: return a > b;
	case AR_OP_GE: return a >= b;
	default: return a == b;
	}
}

static int
check(struct ctx *c, const json_t *o, const char *path, int guard,
    struct ar_check *k)
{
	static const char *const gate_keys[] = { "command", "metric", "op",
	    "value", NULL };
	static const char *const guard_keys[] = { "metric", "op", "value",
	    "ratio_to_baseline", NULL };
	const char *op;
	char p[200], v[40];
	int i;

	memset(k, 0, sizeof *k);
	if (keys(c, o, path, guard ? guard_keys : gate_keys) < 0)
		return -1;
	if (!guard && json_object_get(o, "command")) {
		if (json_object_size(o) != 1)
			return fail(c, path, "a command gate has only "
			    "\"command\"");
		if (get_str(c, o, path, "command", 1, &k->command) < 0)
			return -1;
		snprintf(k->text, sizeof k->text, "command %s", k->command);
		return 0;
	}
	if (get_metric_name(c, o, path, "metric", &k->metric) < 0 ||
	    get_str(c, o, path, "op", 1, &op) < 0)
		return -1;
	for (i = 0; i <= AR_OP_EQ; i++)
		if (strcmp(op, ar_op_name(i)) == 0)
			break;
	sub(p, sizeof p, path, "op");
	if (i > AR_OP_EQ)
		return fail(c, p, "must be one of < <= > >= ==, not \"%s\"",
		    op);
	k->op = i;
	if (json_object_get(o, "ratio_to_baseline")) {
		if (json_object_get(o, "value"))
			return fail(c, path, "has both \"value\" and "
			    "\"ratio_to_baseline\"");
		if (get_pos(c, o, path, "ratio_to_baseline", 1, &k->ratio) < 0)
			return -1;
		ar_fmt_double(v, sizeof v, k->ratio);
		snprintf(k->text, sizeof k->text, "%s %s %s * baseline",
		    k->metric, op, v);
		return 0;
	}
	if (get_num(c, o, path, "value", 1, &k->value) < 0)
		return -1;
	ar_fmt_double(v, sizeof v, k->value);
	snprintf(k->text, sizeof k->text, "%s %s %s", k->metric, op, v);
	return 0;
}

static int
array(struct ctx *c, const json_t *root, const char *k, int required,
    json_t **out)
{
	json_t *v = json_object_get(root, k);

	*out = v;
	if (!v)
		return required ? fail(c, k, "missing") : 0;
	if (!json_is_array(v))
		return fail(c, k, "must be an array, not %s", type_name(v));
	if (required && json_array_size(v) == 0)
		return fail(c, k, "must not be empty");
	return 0;
}

static int
workload(struct ctx *c, const json_t *o, const char *path,
    struct ar_workload *w, int need_work)
{
	static const char *const allowed[] = { "name", "env", "work",
	    "dev_seeds", "bytes", "flops", "dtype", NULL };
	json_t *env, *seeds, *v;
	const char *k;
	char p[200], q[240];
	size_t i;

	if (keys(c, o, path, allowed) < 0 ||
	    get_str(c, o, path, "name", 1, &w->name) < 0 ||
	    get_num(c, o, path, "work", need_work, &w->work) < 0 ||
	    get_pos(c, o, path, "bytes", 0, &w->bytes) < 0 ||
	    get_pos(c, o, path, "flops", 0, &w->flops) < 0 ||
	    get_str(c, o, path, "dtype", 0, &w->dtype) < 0)
		return -1;
	sub(p, sizeof p, path, "dtype");
	if (w->dtype && strcmp(w->dtype, "bf16") && strcmp(w->dtype, "fp8"))
		return fail(c, p, "must be \"bf16\" or \"fp8\"");
	if (w->dtype && isnan(w->flops))
		return fail(c, p, "given, but the workload declares no "
		    "\"flops\"");
	sub(p, sizeof p, path, "work");
	if (!need_work && !isnan(w->work))
		return fail(c, p, "given, but the manifest names no \"work\" "
		    "metric");
	sub(p, sizeof p, path, "env");
	if ((env = json_object_get(o, "env"))) {
		if (!json_is_object(env))
			return fail(c, p, "must be an object, not %s",
			    type_name(env));
		w->envk = ar_xcalloc(json_object_size(env) + 1,
		    sizeof *w->envk);
		w->envv = ar_xcalloc(json_object_size(env) + 1,
		    sizeof *w->envv);
		json_object_foreach(env, k, v) {
			sub(q, sizeof q, p, k);
			if (!json_is_string(v))
				return fail(c, q, "must be a string, not %s",
				    type_name(v));
			if (!k[0] || strchr(k, '=') || strncmp(k, "AR_", 3) == 0
			    || strcmp(k, "PATH") == 0 || strcmp(k, "HOME") == 0
			    || strcmp(k, "TMPDIR") == 0 || strcmp(k, "LC_ALL")
			    == 0 || strcmp(k, "CUDA_VISIBLE_DEVICES") == 0)
				return fail(c, q, "not a name a workload may "
				    "set (empty, '=', AR_, or one ar-bench "
				    "sets: PATH HOME TMPDIR LC_ALL "
				    "CUDA_VISIBLE_DEVICES)");
			w->envk[w->nenv] = k;
			w->envv[w->nenv++] = json_string_value(v);
		}
	}
	sub(p, sizeof p, path, "dev_seeds");
	seeds = json_object_get(o, "dev_seeds");
	if (!seeds)
		return fail(c, p, "missing");
	if (!json_is_array(seeds) || json_array_size(seeds) == 0)
		return fail(c, p, "must be a non-empty array of whole numbers");
	w->seed = ar_xcalloc(json_array_size(seeds), sizeof *w->seed);
	json_array_foreach(seeds, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(c, p, "must be a non-empty array of whole "
			    "numbers");
		w->seed[w->nseed++] = (unsigned long long)json_integer_value(v);
	}
	return 0;
}

static int
stage(struct ctx *c, const json_t *stages, const char *k, int required,
    struct ar_stage *s)
{
	static const char *const allowed[] = { "cmd", "timeout_s", NULL };
	json_t *o = json_object_get(stages, k);
	char p[200];

	sub(p, sizeof p, "stages", k);
	s->cmd = NULL;
	s->timeout_s = 600;
	if (!o)
		return required ? fail(c, p, "missing") : 0;
	if (keys(c, o, p, allowed) < 0 || get_str(c, o, p, "cmd", 1,
	    &s->cmd) < 0 || get_pos(c, o, p, "timeout_s", 0,
	    &s->timeout_s) < 0)
		return -1;
	if (isnan(s->timeout_s))
		s->timeout_s = 600;
	return 0;
}

static int
parse(struct ctx *c, struct ar_manifest *m)
{
	static const char *const top[] = { "name", "description", "kind",
	    "metric", "secondary", "gates", "guardrails", "work", "workloads",
	    "scales", "baseline", "mutable", "stages", "limits", NULL };
	static const char *const stage_keys[] = { "setup", "build", "prepare",
	    "run", "score", NULL };
	static const char *const limit_keys[] = { "time_s", "min_pairs",
	    "max_pairs", "min_effect", "warmup", NULL };
	static const char *const work_keys[] = { "metric", NULL };
	const json_t *r = m->root;
	const char *kind;
	json_t *a, *v, *o;
	char p[200];
	size_t i, j;

	if (keys(c, r, "", top) < 0)
		return -1;
	if (get_str(c, r, "", "name", 1, &m->name) < 0 ||
	    get_str(c, r, "", "description", 0, &m->description) < 0 ||
	    get_str(c, r, "", "kind", 1, &kind) < 0)
		return -1;
	if (strcmp(kind, "exec") != 0)
		return fail(c, "kind", "must be \"exec\" (the kind ar-bench "
		    "runs through stages), not \"%s\"", kind);
	if (!(o = json_object_get(r, "metric")))
		return fail(c, "metric", "missing");
	if (mdef(c, o, "metric", &m->metric) < 0)
		return -1;
	if (array(c, r, "secondary", 0, &a) < 0)
		return -1;
	m->secondary = ar_xcalloc(json_array_size(a) + 1, sizeof *m->secondary);
	json_array_foreach(a, i, v) {
		snprintf(p, sizeof p, "secondary[%zu]", i);
		if (mdef(c, v, p, &m->secondary[m->nsecondary++]) < 0)
			return -1;
	}
	if (array(c, r, "gates", 0, &a) < 0)
		return -1;
	m->gate = ar_xcalloc(json_array_size(a) + 1, sizeof *m->gate);
	json_array_foreach(a, i, v) {
		snprintf(p, sizeof p, "gates[%zu]", i);
		if (check(c, v, p, 0, &m->gate[m->ngate++]) < 0)
			return -1;
	}
	if (array(c, r, "guardrails", 0, &a) < 0)
		return -1;
	m->guard = ar_xcalloc(json_array_size(a) + 1, sizeof *m->guard);
	json_array_foreach(a, i, v) {
		snprintf(p, sizeof p, "guardrails[%zu]", i);
		if (check(c, v, p, 1, &m->guard[m->nguard++]) < 0)
			return -1;
	}
	if ((o = json_object_get(r, "work")) && (keys(c, o, "work",
	    work_keys) < 0 || get_metric_name(c, o, "work", "metric",
	    &m->work_metric) < 0))
		return -1;
	if (array(c, r, "workloads", 1, &a) < 0)
		return -1;
	m->workload = ar_xcalloc(json_array_size(a), sizeof *m->workload);
	json_array_foreach(a, i, v) {
		snprintf(p, sizeof p, "workloads[%zu]", i);
		if (workload(c, v, p, &m->workload[m->nworkload++],
		    m->work_metric != NULL) < 0)
			return -1;
		for (j = 0; j < i; j++)
			if (strcmp(m->workload[j].name, m->workload[i].name)
			    == 0)
				return fail(c, p, "name \"%s\" given twice",
				    m->workload[i].name);
	}
	if (array(c, r, "scales", 1, &a) < 0)
		return -1;
	m->scale = ar_xcalloc(json_array_size(a), sizeof *m->scale);
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > 4096)
			return fail(c, "scales", "must hold whole numbers "
			    "from 1 to 4096");
		m->scale[m->nscale++] = (long)json_integer_value(v);
	}
	if (get_str(c, r, "", "baseline", 1, &m->baseline) < 0)
		return -1;
	if (m->baseline[0] == '/' || strstr(m->baseline, ".."))
		return fail(c, "baseline", "must be a directory inside the "
		    "problem");
	if (array(c, r, "mutable", 1, &a) < 0)
		return -1;
	m->mutable = ar_xcalloc(json_array_size(a) + 1, sizeof *m->mutable);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || !json_string_value(v)[0])
			return fail(c, "mutable", "must hold non-empty strings "
			    "(globs of paths a method may change)");
		m->mutable[m->nmutable++] = json_string_value(v);
	}
	if (!(o = json_object_get(r, "stages")))
		return fail(c, "stages", "missing");
	if (keys(c, o, "stages", stage_keys) < 0 ||
	    stage(c, o, "setup", 0, &m->setup) < 0 ||
	    stage(c, o, "build", 0, &m->build) < 0 ||
	    stage(c, o, "prepare", 0, &m->prepare) < 0 ||
	    stage(c, o, "run", 1, &m->run) < 0 ||
	    stage(c, o, "score", 1, &m->score) < 0)
		return -1;
	m->time_s = m->min_effect = -1;
	m->min_pairs = m->max_pairs = m->warmup = -1;
	if ((o = json_object_get(r, "limits"))) {
		if (keys(c, o, "limits", limit_keys) < 0 ||
		    get_pos(c, o, "limits", "time_s", 0, &m->time_s) < 0 ||
		    get_num(c, o, "limits", "min_effect", 0,
		    &m->min_effect) < 0 ||
		    get_count(c, o, "limits", "min_pairs", &m->min_pairs) < 0 ||
		    get_count(c, o, "limits", "max_pairs", &m->max_pairs) < 0 ||
		    get_count(c, o, "limits", "warmup", &m->warmup) < 0)
			return -1;
		if (isnan(m->time_s))
			m->time_s = -1;
		if (isnan(m->min_effect))
			m->min_effect = -1;
		else if (!(m->min_effect >= 0 && m->min_effect < 1))
			return fail(c, "limits.min_effect", "must be from 0 "
			    "to below 1");
		if (m->min_pairs == 0)
			return fail(c, "limits.min_pairs", "must be at least "
			    "1");
		if (m->max_pairs == 0)
			return fail(c, "limits.max_pairs", "must be at least "
			    "1");
		if (m->max_pairs >= 0 && m->max_pairs < m->min_pairs)
			return fail(c, "limits.max_pairs", "is below "
			    "min_pairs");
	}
	return 0;
}

int
ar_manifest_read(struct ar_manifest *m, const char *dir, char *err,
    size_t errlen)
{
	char *path = ar_path(dir, "problem.json"), jerr[300];
	struct ar_buf b = {0};
	struct ctx c = { err, errlen };
	int r;

	memset(m, 0, sizeof *m);
	if (ar_readfile(path, &b, MANIFEST_MAX) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	m->root = ar_json_parse(b.p, b.len, jerr, sizeof jerr);
	ar_buf_free(&b);
	if (!m->root) {
		snprintf(err, errlen, "problem.json: %s", jerr);
		return -1;
	}
	r = parse(&c, m);
	if (r < 0)
		ar_manifest_free(m);
	return r;
}

void
ar_manifest_free(struct ar_manifest *m)
{
	size_t i;

	/* A workload that failed half-way is counted too: nworkload grows
	 * before each is read. */
	for (i = 0; i < m->nworkload; i++) {
		free(m->workload[i].envk);
		free(m->workload[i].envv);
		free(m->workload[i].seed);
	}
	free(m->workload);
	free(m->secondary);
	free(m->gate);
	free(m->guard);
	free(m->scale);
	free(m->mutable);
	json_decref(m->root);
	memset(m, 0, sizeof *m);
}
