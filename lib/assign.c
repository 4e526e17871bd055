/* assign.c: assignments as queue records and as TSV rows; assign.h says
 * what each call promises. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "json.h"
#include "tsv.h"

/* A record's value by key, however the record was read: JSON by
 * jansson, or the plain form ar_assign_parse_text reads itself. Both
 * readers give the same value for the same text. */
enum { AV_NONE, AV_STR, AV_INT, AV_REAL, AV_OTHER };

struct aval {
	int t;
	const char *s;
	long long i;
	double d;
};

typedef void (*aget_fn)(const void *src, const char *key, struct aval *v);

static void
json_get(const void *src, const char *key, struct aval *v)
{
	const json_t *j = json_object_get((const json_t *)src, key);

	memset(v, 0, sizeof *v);
	if (!j)
		v->t = AV_NONE;
	else if (json_is_string(j)) {
		v->t = AV_STR;
		v->s = json_string_value(j);
	} else if (json_is_integer(j)) {
		v->t = AV_INT;
		v->i = json_integer_value(j);
	} else if (json_is_real(j)) {
		v->t = AV_REAL;
		v->d = json_real_value(j);
	} else
		v->t = AV_OTHER;
}

static const char *
str(aget_fn get, const void *src, const char *key)
{
	struct aval v;

	get(src, key, &v);
	return v.t == AV_STR && *v.s ? v.s : NULL;
}

/* A whole number given as a JSON integer or a string; -1 if neither. */
static int
whole(const struct aval *v, long long *out)
{
	if (v->t == AV_INT) {
		*out = v->i;
		return 0;
	}
	return v->t == AV_STR ? ar_parse_long(v->s, out) : -1;
}

static int
number(const struct aval *v, double *out)
{
	if (v->t == AV_INT || v->t == AV_REAL) {
		*out = v->t == AV_INT ? (double)v->i : v->d;
		return 0;
	}
	return v->t == AV_STR ? ar_parse_double(v->s, out) : -1;
}

int
ar_assign_gpus(const char *s, int *out, size_t max, size_t *n)
{
	const char *p = s;
	size_t i;

	*n = 0;
	while (*p) {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			return -1;
		v = strtol(p, &end, 10);
		if (v >= AR_ASSIGN_GPUS || *n == max || (*end && *end != ',') ||
		    (*end == ',' && !end[1]))
			return -1;
		for (i = 0; i < *n; i++)
			if (out[i] == v)
				return -1;
		out[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static void
assign_read(aget_fn get, const void *o, const char *id, struct ar_assign *a)
{
	const char *e = str(get, o, "experiment"), *g;
	struct aval pa, pb, z, t, ql, qh;
	long long v = -1, lo = -1, hi = -1;
	double d;

	get(o, "min_pairs", &pa);
	get(o, "max_pairs", &pb);
	get(o, "stop_at", &z);
	get(o, "prior_lo", &ql);
	get(o, "prior_hi", &qh);

	memset(a, 0, sizeof *a);
	a->value = NAN;
	snprintf(a->experiment, sizeof a->experiment, "%s", e ? e : id);
	a->method = str(get, o, "method");
	a->workload = str(get, o, "workload");
	a->idea = str(get, o, "idea");
	a->purpose = str(get, o, "purpose");
	a->node = str(get, o, "node");
	a->label = str(get, o, "label");
	a->why = str(get, o, "why");
	a->queued = str(get, o, "queued");
	get(o, "priority", &t);
	if (whole(&t, &v) == 0)
		a->priority = (long)v;
	get(o, "value", &t);
	if (number(&t, &d) == 0)
		a->value = d;
	if (e && !ar_id_valid(e)) {
		snprintf(a->bad, sizeof a->bad, "experiment: not an id");
		snprintf(a->experiment, sizeof a->experiment, "%s", id);
		return;
	}
	get(o, "k", &t);
	if (whole(&t, &v) < 0 || v < 1 || v > 1024) {
		snprintf(a->bad, sizeof a->bad, "k: expected an integer from "
		    "1 to 1024");
		return;
	}
	a->k = (long)v;
	if (a->purpose && strcmp(a->purpose, "aa") == 0)
		a->method = NULL;
	else if (!a->method || a->method[0] == '-') {
		snprintf(a->bad, sizeof a->bad, "method: %s", a->method ?
		    "starts with '-'" : "missing");
		return;
	}
	/* They become ar-bench's arguments: never an option. */
	if (a->workload && a->workload[0] == '-') {
		snprintf(a->bad, sizeof a->bad, "workload: starts with '-'");
		return;
	}
	if (a->idea && a->idea[0] == '-') {
		snprintf(a->bad, sizeof a->bad, "idea: starts with '-'");
		return;
	}
	if ((g = str(get, o, "gpus")) && (ar_assign_gpus(g, a->gpus,
	    AR_ASSIGN_GPUS, &a->ngpus) < 0 || a->ngpus != (size_t)a->k)) {
		snprintf(a->bad, sizeof a->bad, "gpus: expected %ld distinct "
		    "indices, comma-separated", a->k);
		return;
	}
	/* The scheduler's size of the measurement: both pair limits or
	 * neither, as ar-bench checks them. */
	if (pa.t != AV_NONE || pb.t != AV_NONE) {
		if (whole(&pa, &lo) < 0 || whole(&pb, &hi) < 0 || lo < 1 ||
		    hi > 1000000 || hi < lo) {
			snprintf(a->bad, sizeof a->bad, "min_pairs, max_pairs: "
			    "expected whole numbers, 1 <= min_pairs <= "
			    "max_pairs <= 1000000");
			return;
		}
		a->pmin = (long)lo;
		a->pmax = (long)hi;
	}
	if (z.t != AV_NONE) {
		if (number(&z, &d) < 0 || !(d >= 1e-6 && d <= 1e6)) {
			snprintf(a->bad, sizeof a->bad, "stop_at: expected a "
			    "number from 1e-06 to 1e+06");
			return;
		}
		a->stop_at = d;
	}
	/* The pair's earlier interval: both ends or neither, and only
	 * with the question it helps answer. */
	if (ql.t != AV_NONE || qh.t != AV_NONE) {
		double l, h;

		if (number(&ql, &l) < 0 || number(&qh, &h) < 0 ||
		    !(l >= 1e-6 && h > l && h <= 1e6) || !(a->stop_at > 0)) {
			snprintf(a->bad, sizeof a->bad, "prior_lo, prior_hi: "
			    "expected numbers with 1e-06 <= prior_lo < "
			    "prior_hi <= 1e+06, and a stop_at");
			return;
		}
		a->prior_lo = l;
		a->prior_hi = h;
	}
}

void
ar_assign_parse(const json_t *o, const char *id, struct ar_assign *a)
{
	assign_read(json_get, o, id, a);
}

/* A record in the plain form: at most TEXT_KEYS keys, no whitespace
 * but at the end, strings of printable ASCII without escapes, integers
 * of up to 18 digits. What it holds, read in place. */
#define TEXT_KEYS 32

struct text_rec {
	size_t n;
	const char *key[TEXT_KEYS];
	struct aval val[TEXT_KEYS];
};

static void
text_get(const void *src, const char *key, struct aval *v)
{
	const struct text_rec *r = src;
	size_t i;

	/* The first bytes first: a decision from scratch looks up twenty
	 * keys in each of a hundred thousand records. */
	for (i = 0; i < r->n; i++)
		if (r->key[i][0] == key[0] && strcmp(r->key[i], key) == 0) {
			*v = r->val[i];
			return;
		}
	memset(v, 0, sizeof *v);
	v->t = AV_NONE;
}

/* The string at *p (after its opening quote), ended in place; NULL when
 * it is not of the plain form. */
static char *
text_str(char **p, char *end)
{
	char *s = *p, *q;

	for (q = s; q < end && *q != '"'; q++)
		if (*q < 0x20 || *q > 0x7e || *q == '\\')
			return NULL;
	if (q == end)
		return NULL;
	*q = '\0';
	*p = q + 1;
	return s;
}

static int
digits(char **p, char *end)
{
	char *s = *p;

	while (*p < end && **p >= '0' && **p <= '9')
		(*p)++;
	return (int)(*p - s);
}

/* A number at *p as JSON writes it, into v as jansson would read it: an
 * integer of up to 18 digits, or a real (a fraction or an exponent)
 * read as strtod reads it; -1 for anything else (-0, a leading zero, a
 * real out of range), left to jansson. */
static int
text_num(char **p, char *end, struct aval *v)
{
	char *s = *p, save;
	int neg = *s == '-', nd, real = 0, r;

	if (neg)
		(*p)++;
	if (*p >= end || **p < '0' || **p > '9' || (**p == '0' && (neg ||
	    (*p + 1 < end && (*p)[1] >= '0' && (*p)[1] <= '9'))))
		return -1;
	nd = digits(p, end);
	if (*p < end && **p == '.') {
		(*p)++;
		real = 1;
		if (digits(p, end) == 0)
			return -1;
	}
	if (*p < end && (**p == 'e' || **p == 'E')) {
		(*p)++;
		real = 1;
		if (*p < end && (**p == '+' || **p == '-'))
			(*p)++;
		if (digits(p, end) == 0)
			return -1;
	}
	if (!real) {
		long long x = 0;

		if (nd > 18)
			return -1;
		for (s += neg; s < *p; s++)
			x = x * 10 + (*s - '0');
		v->t = AV_INT;
		v->i = neg ? -x : x;
		return 0;
	}
	/* The byte after it is a comma or the brace (or the loop refuses
	 * it): ended there for a moment. */
	save = **p;
	**p = '\0';
	r = ar_parse_double(s, &v->d);
	**p = save;
	if (r < 0)
		return -1;
	v->t = AV_REAL;
	return 0;
}

int
ar_assign_parse_text(const char *text, size_t len, const char *id,
    struct ar_assign *a, char *store, size_t storelen)
{
	struct text_rec r;
	char *p = store, *end = store + len;
	size_t i;

	if (len + 1 > storelen || len < 2)
		return -1;
	memcpy(store, text, len);
	store[len] = '\0';
	/* Only white space after the object, as jansson allows. */
	while (end > p && (end[-1] == ' ' || end[-1] == '\n' ||
	    end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (end - p < 2 || *p++ != '{' || *--end != '}')
		return -1;
	r.n = 0;
	while (p < end) {
		struct aval *v;

		if (r.n == TEXT_KEYS || *p++ != '"' ||
		    !(r.key[r.n] = text_str(&p, end)) || p >= end || *p++ != ':'
		    || p >= end)
			return -1;
		v = &r.val[r.n];
		memset(v, 0, sizeof *v);
		if (*p == '"') {
			p++;
			if (!(v->s = text_str(&p, end)))
				return -1;
			v->t = AV_STR;
		} else if (text_num(&p, end, v) < 0)
			return -1;
		/* jansson refuses a key twice: the record is left to it. */
		for (i = 0; i < r.n; i++)
			if (r.key[i][0] == r.key[r.n][0] &&
			    strcmp(r.key[i], r.key[r.n]) == 0)
				return -1;
		r.n++;
		if (p < end && *p++ != ',')
			return -1;
		if (p == end && end[-1] == ',')
			return -1;
	}
	assign_read(text_get, &r, id, a);
	return 0;
}

static void
gpus_text(const struct ar_assign *a, char *out, size_t n)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < a->ngpus && len + 8 < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%d", i ? "," :
		    "", a->gpus[i]);
}

static void
set_str(json_t *r, const char *key, const char *v)
{
	if (v)
		json_object_set_new(r, key, json_string(v));
}

/* The value as the TSV shows it, six digits: a record says no more. */
static double
six(double v)
{
	char s[64];

	snprintf(s, sizeof s, "%.6g", v);
	return strtod(s, NULL);
}

json_t *
ar_assign_record(const struct ar_assign *a)
{
	json_t *r = json_object();
	char gpus[8 * AR_ASSIGN_GPUS];

	gpus_text(a, gpus, sizeof gpus);
	json_object_set_new(r, "id", json_string(a->experiment));
	json_object_set_new(r, "experiment", json_string(a->experiment));
	set_str(r, "method", a->method ? a->method : "baseline");
	set_str(r, "workload", a->workload);
	json_object_set_new(r, "k", json_integer(a->k));
	if (a->ngpus)
		json_object_set_new(r, "gpus", json_string(gpus));
	set_str(r, "node", a->node);
	set_str(r, "purpose", a->purpose);
	set_str(r, "idea", a->idea);
	set_str(r, "label", a->label);
	if (isfinite(a->value))
		json_object_set_new(r, "value", json_real(six(a->value)));
	set_str(r, "why", a->why);
	json_object_set_new(r, "priority", json_integer(a->priority));
	set_str(r, "queued", a->queued);
	if (a->pmin > 0) {
		json_object_set_new(r, "min_pairs", json_integer(a->pmin));
		json_object_set_new(r, "max_pairs", json_integer(a->pmax));
	}
	if (a->stop_at > 0)
		json_object_set_new(r, "stop_at", json_real(a->stop_at));
	if (a->prior_lo > 0) {
		json_object_set_new(r, "prior_lo", json_real(a->prior_lo));
		json_object_set_new(r, "prior_hi", json_real(a->prior_hi));
	}
	return r;
}

static int
col(char *const *hdr, size_t ncol, const char *name)
{
	size_t i;

	for (i = 0; i < ncol; i++)
		if (strcmp(hdr[i], name) == 0)
			return (int)i;
	return -1;
}

json_t *
ar_assign_from_row(char *const *hdr, char *const *field, size_t ncol,
    char *err, size_t errlen)
{
	static const char *const known[] = { "experiment", "method",
	    "workload", "k", "gpus", "node", "purpose", "idea", "label",
	    "value", "why", "priority", "min_pairs", "max_pairs", "stop_at",
	    "prior_lo", "prior_hi", NULL };
	struct ar_assign a;
	json_t *r;
	long long v;
	double d;
	size_t i, j;
	int c;

	memset(&a, 0, sizeof a);
	a.value = NAN;
#define F(name) ((c = col(hdr, ncol, name)) >= 0 && field[c][0] ? \
	field[c] : NULL)
	if (!F("experiment") || !ar_id_valid(field[c])) {
		snprintf(err, errlen, "experiment: expected 1 to %d of "
		    "[A-Za-z0-9._-], not starting with '.' or '-'", AR_ID_MAX);
		return NULL;
	}
	snprintf(a.experiment, sizeof a.experiment, "%s", field[c]);
	if (!F("k") || ar_parse_long(field[c], &v) < 0 || v < 1 ||
	    v > 1024) {
		snprintf(err, errlen, "k: expected an integer from 1 to 1024");
		return NULL;
	}
	a.k = (long)v;
	if (F("value")) {
		if (ar_parse_double(field[c], &d) < 0) {
			snprintf(err, errlen, "value: not a number");
			return NULL;
		}
		a.value = d;
	}
	if (F("priority") && (ar_parse_long(field[c], &v) < 0 ||
	    v < -999999 || v > 999999)) {
		snprintf(err, errlen, "priority: expected an integer from "
		    "-999999 to 999999");
		return NULL;
	}
	a.priority = F("priority") ? (long)v : 0;
	a.method = F("method");
	a.workload = F("workload");
	a.node = F("node");
	a.purpose = F("purpose");
	a.idea = F("idea");
	a.label = F("label");
	a.why = F("why");
#undef F
	r = ar_assign_record(&a);
	/* The rest as they are: what the parser checks, it checks there. */
	for (i = 0; i < ncol; i++) {
		for (j = 0; known[j] && strcmp(known[j], hdr[i]); j++)
			;
		if ((!known[j] || j == 4 || j >= 12) && field[i][0])
			json_object_set_new(r, hdr[i], json_string(field[i]));
	}
	if (!a.method && !(a.purpose && strcmp(a.purpose, "aa") == 0))
		json_object_del(r, "method");
	return r;
}

void
ar_assign_tsv_header(FILE *f)
{
	fputs("experiment\tmethod\tworkload\tk\tgpus\tnode\tpurpose\tidea\t"
	    "label\tvalue\twhy\tmin_pairs\tmax_pairs\tstop_at\tprior_lo\t"
	    "prior_hi\n", f);
}

void
ar_assign_tsv_row(FILE *f, const struct ar_assign *a)
{
	char gpus[8 * AR_ASSIGN_GPUS];

	gpus_text(a, gpus, sizeof gpus);
	ar_tsv_put(f, a->experiment);
	fputc('\t', f);
	ar_tsv_put(f, a->method ? a->method : "baseline");
	fputc('\t', f);
	ar_tsv_put(f, a->workload ? a->workload : "");
	fprintf(f, "\t%ld\t%s\t", a->k, gpus);
	ar_tsv_put(f, a->node ? a->node : "");
	fputc('\t', f);
	ar_tsv_put(f, a->purpose ? a->purpose : "");
	fputc('\t', f);
	ar_tsv_put(f, a->idea ? a->idea : "");
	fputc('\t', f);
	ar_tsv_put(f, a->label ? a->label : "");
	fputc('\t', f);
	if (isfinite(a->value))
		fprintf(f, "%.6g", a->value);
	fputc('\t', f);
	ar_tsv_put(f, a->why ? a->why : "");
	if (a->pmin > 0)
		fprintf(f, "\t%ld\t%ld\t", a->pmin, a->pmax);
	else
		fputs("\t\t\t", f);
	if (a->stop_at > 0)
		fprintf(f, "%.6g", a->stop_at);
	if (a->prior_lo > 0)
		fprintf(f, "\t%.10g\t%.10g\n", a->prior_lo, a->prior_hi);
	else
		fputs("\t\t\n", f);
}
