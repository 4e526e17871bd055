/* assign.c: unit tests of lib/assign: queue records parsed (and each bad
 * field's message), made from assignments and from ar-sched next's TSV
 * rows, the TSV itself, and GPU lists. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "json.h"
#include "tsv.h"
#include "unit.h"

#define PRIOR_BAD "prior_lo, prior_hi: expected numbers with 1e-06 <= " \
	"prior_lo < prior_hi <= 1e+06, and a stop_at"

/* Parses the record text into *a; the record, to be freed after a. */
static json_t *
parse(const char *text, struct ar_assign *a)
{
	char err[256];
	json_t *o = ar_json_parse(text, strlen(text), err, sizeof err);

	if (!o) {
		OK(0, "setup: %s: %s", text, err);
		o = json_object();
	}
	ar_assign_parse(o, "rec-id", a);
	return o;
}

static void
records(void)
{
	struct ar_assign a;
	json_t *o;

	o = parse("{\"experiment\":\"e1\",\"method\":\"m1\",\"workload\":\"w\","
	    "\"idea\":\"i\",\"purpose\":\"scale\",\"node\":\"n1\",\"label\":\"l\","
	    "\"why\":\"y\",\"queued\":\"2026-01-01T00:00:00Z\",\"k\":4,"
	    "\"gpus\":\"0,1,2,3\",\"priority\":5,\"value\":0.25,"
	    "\"min_pairs\":8,\"max_pairs\":32,\"stop_at\":1.05,"
	    "\"prior_lo\":0.9,\"prior_hi\":1.1}", &a);
	OK(a.bad[0] == 0 && strcmp(a.experiment, "e1") == 0 &&
	    strcmp(a.method, "m1") == 0 && strcmp(a.workload, "w") == 0 &&
	    strcmp(a.idea, "i") == 0 && strcmp(a.purpose, "scale") == 0 &&
	    strcmp(a.node, "n1") == 0 && strcmp(a.label, "l") == 0 &&
	    strcmp(a.why, "y") == 0 && strcmp(a.queued,
	    "2026-01-01T00:00:00Z") == 0, "parse: every string");
	OK(a.k == 4 && a.ngpus == 4 && a.gpus[0] == 0 && a.gpus[3] == 3 &&
	    a.priority == 5 && a.value == 0.25 && a.pmin == 8 && a.pmax == 32 &&
	    a.stop_at == 1.05 && a.prior_lo == 0.9 && a.prior_hi == 1.1,
	    "parse: every number");
	json_decref(o);
	o = parse("{\"method\":\"m\",\"k\":\"2\",\"min_pairs\":\"8\","
	    "\"max_pairs\":\"8\",\"stop_at\":\"0.5\",\"value\":\"1.5\","
	    "\"priority\":\"-3\"}", &a);
	OK(a.bad[0] == 0 && strcmp(a.experiment, "rec-id") == 0 && a.k == 2 &&
	    a.pmin == 8 && a.pmax == 8 && a.stop_at == 0.5 && a.value == 1.5 &&
	    a.priority == -3, "parse: numbers as strings; the record's id "
	    "when it names no experiment");
	OK(a.workload == NULL && a.ngpus == 0 && a.node == NULL, "parse: what "
	    "is absent is NULL or 0");
	json_decref(o);
	o = parse("{\"method\":\"m\",\"k\":1,\"workload\":\"\"}", &a);
	OK(a.bad[0] == 0 && a.workload == NULL && isnan(a.value) &&
	    a.pmin == 0 && a.stop_at == 0, "parse: an empty string is absent; "
	    "no value is NAN");
	json_decref(o);
	o = parse("{\"method\":\"m\",\"purpose\":\"aa\",\"k\":1}", &a);
	OK(a.bad[0] == 0 && a.method == NULL, "parse: an A/A has no method");
	json_decref(o);
	o = parse("{\"purpose\":\"aa\",\"k\":1}", &a);
	OK(a.bad[0] == 0 && a.method == NULL, "parse: an A/A needs none");
	json_decref(o);
}

static void
bad_fields(void)
{
	static const struct {
		const char *rec, *bad;
	} t[] = {
		{ "{\"experiment\":\"a/b\",\"method\":\"m\",\"k\":1}",
		    "experiment: not an id" },
		{ "{\"method\":\"m\"}", "k: expected an integer from 1 to 1024" },
		{ "{\"method\":\"m\",\"k\":0}",
		    "k: expected an integer from 1 to 1024" },
		{ "{\"method\":\"m\",\"k\":1025}",
		    "k: expected an integer from 1 to 1024" },
		{ "{\"method\":\"m\",\"k\":1.5}",
		    "k: expected an integer from 1 to 1024" },
		{ "{\"method\":\"m\",\"k\":\"x\"}",
		    "k: expected an integer from 1 to 1024" },
		{ "{\"k\":1}", "method: missing" },
		{ "{\"method\":\"-rf\",\"k\":1}", "method: starts with '-'" },
		{ "{\"method\":\"m\",\"k\":1,\"workload\":\"-w\"}",
		    "workload: starts with '-'" },
		{ "{\"method\":\"m\",\"k\":1,\"idea\":\"-i\"}",
		    "idea: starts with '-'" },
		{ "{\"method\":\"m\",\"k\":1,\"gpus\":\"0,1\"}",
		    "gpus: expected 1 distinct indices, comma-separated" },
		{ "{\"method\":\"m\",\"k\":2,\"gpus\":\"0,0\"}",
		    "gpus: expected 2 distinct indices, comma-separated" },
		{ "{\"method\":\"m\",\"k\":2,\"gpus\":\"0,x\"}",
		    "gpus: expected 2 distinct indices, comma-separated" },
		{ "{\"method\":\"m\",\"k\":1,\"min_pairs\":8}",
		    "min_pairs, max_pairs: expected whole numbers, 1 <= "
		    "min_pairs <= max_pairs <= 1000000" },
		{ "{\"method\":\"m\",\"k\":1,\"max_pairs\":8}",
		    "min_pairs, max_pairs: expected whole numbers, 1 <= "
		    "min_pairs <= max_pairs <= 1000000" },
		{ "{\"method\":\"m\",\"k\":1,\"min_pairs\":0,\"max_pairs\":8}",
		    "min_pairs, max_pairs: expected whole numbers, 1 <= "
		    "min_pairs <= max_pairs <= 1000000" },
		{ "{\"method\":\"m\",\"k\":1,\"min_pairs\":9,\"max_pairs\":8}",
		    "min_pairs, max_pairs: expected whole numbers, 1 <= "
		    "min_pairs <= max_pairs <= 1000000" },
		{ "{\"method\":\"m\",\"k\":1,\"min_pairs\":1,"
		    "\"max_pairs\":1000001}", "min_pairs, max_pairs: expected "
		    "whole numbers, 1 <= min_pairs <= max_pairs <= 1000000" },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":0}",
		    "stop_at: expected a number from 1e-06 to 1e+06" },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":2e6}",
		    "stop_at: expected a number from 1e-06 to 1e+06" },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":\"x\"}",
		    "stop_at: expected a number from 1e-06 to 1e+06" },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":1,\"prior_lo\":0.9}",
		    PRIOR_BAD },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":1,\"prior_hi\":0.9}",
		    PRIOR_BAD },
		{ "{\"method\":\"m\",\"k\":1,\"prior_lo\":0.9,"
		    "\"prior_hi\":1.1}", PRIOR_BAD },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":1,\"prior_lo\":1.1,"
		    "\"prior_hi\":1.1}", PRIOR_BAD },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":1,\"prior_lo\":0,"
		    "\"prior_hi\":1.1}", PRIOR_BAD },
		{ "{\"method\":\"m\",\"k\":1,\"stop_at\":1,\"prior_lo\":0.5,"
		    "\"prior_hi\":\"y\"}", PRIOR_BAD },
	};
	struct ar_assign a;
	size_t i;
	json_t *o;

	for (i = 0; i < NELEM(t); i++) {
		o = parse(t[i].rec, &a);
		OK(strcmp(a.bad, t[i].bad) == 0, "parse %s: \"%s\"", t[i].rec,
		    t[i].bad);
		json_decref(o);
	}
	o = parse("{\"experiment\":\"a/b\",\"method\":\"m\",\"k\":1}", &a);
	OK(strcmp(a.experiment, "rec-id") == 0, "parse: a bad experiment is "
	    "named by the record's id");
	json_decref(o);
}

/* An assignment with every field set. */
static void
full(struct ar_assign *a)
{
	memset(a, 0, sizeof *a);
	snprintf(a->experiment, sizeof a->experiment, "e7");
	a->method = "m\t1";
	a->workload = "w";
	a->idea = "idea-3";
	a->purpose = "validate";
	a->node = "n2";
	a->label = "lab";
	a->why = "because";
	a->queued = "2026-01-02T03:04:05Z";
	a->k = 2;
	a->gpus[0] = 6;
	a->gpus[1] = 4;
	a->ngpus = 2;
	a->priority = -7;
	a->pmin = 8;
	a->pmax = 80;
	a->stop_at = 1.01;
	a->prior_lo = 0.5;
	a->prior_hi = 1.25;
	a->value = 0.1234567;
}

static void
round_trip(void)
{
	struct ar_assign a, b;
	json_t *r;
	char *s;

	full(&a);
	r = ar_assign_record(&a);
	s = ar_json_canon(r);
	OK(strcmp(s, "{\"experiment\":\"e7\",\"gpus\":\"6,4\",\"id\":\"e7\","
	    "\"idea\":\"idea-3\",\"k\":2,\"label\":\"lab\",\"max_pairs\":80,"
	    "\"method\":\"m\\t1\",\"min_pairs\":8,\"node\":\"n2\","
	    "\"prior_hi\":1.25,\"prior_lo\":0.5,\"priority\":-7,\"purpose\":"
	    "\"validate\",\"queued\":\"2026-01-02T03:04:05Z\","
	    "\"stop_at\":1.01,\"value\":0.123457,\"why\":\"because\","
	    "\"workload\":\"w\"}") == 0, "record: every field, value to six "
	    "digits");
	free(s);
	ar_assign_parse(r, "x", &b);
	OK(b.bad[0] == 0 && strcmp(b.experiment, a.experiment) == 0 &&
	    strcmp(b.method, a.method) == 0 && strcmp(b.workload, a.workload)
	    == 0 && strcmp(b.idea, a.idea) == 0 && strcmp(b.purpose,
	    a.purpose) == 0 && strcmp(b.node, a.node) == 0 && strcmp(b.label,
	    a.label) == 0 && strcmp(b.why, a.why) == 0 && strcmp(b.queued,
	    a.queued) == 0, "record then parse: the strings");
	OK(b.k == a.k && b.ngpus == 2 && b.gpus[0] == 6 && b.gpus[1] == 4 &&
	    b.priority == a.priority && b.pmin == a.pmin && b.pmax == a.pmax &&
	    b.stop_at == a.stop_at && b.prior_lo == a.prior_lo && b.prior_hi ==
	    a.prior_hi && b.value == 0.123457, "record then parse: "
	    "the numbers, GPUs in their order");
	json_decref(r);
	memset(&a, 0, sizeof a);
	snprintf(a.experiment, sizeof a.experiment, "aa1");
	a.purpose = "aa";
	a.k = 1;
	a.value = NAN;
	r = ar_assign_record(&a);
	s = ar_json_canon(r);
	OK(strcmp(s, "{\"experiment\":\"aa1\",\"id\":\"aa1\",\"k\":1,"
	    "\"method\":\"baseline\",\"priority\":0,\"purpose\":\"aa\"}") == 0,
	    "record: an A/A's method is the baseline; nothing unset written");
	free(s);
	ar_assign_parse(r, "x", &b);
	OK(b.bad[0] == 0 && b.method == NULL && isnan(b.value) && b.pmin == 0,
	    "record then parse: an A/A");
	json_decref(r);
}

static void
tsv(void)
{
	struct ar_assign a, b;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct ar_tsv t;
	json_t *r;

	full(&a);
	ar_assign_tsv_header(m);
	ar_assign_tsv_row(m, &a);
	memset(&b, 0, sizeof b);
	snprintf(b.experiment, sizeof b.experiment, "e8");
	b.k = 1;
	b.value = NAN;
	ar_assign_tsv_row(m, &b);
	fclose(m);
	OK(strcmp(text, "experiment\tmethod\tworkload\tk\tgpus\tnode\tpurpose\t"
	    "idea\tlabel\tvalue\twhy\tmin_pairs\tmax_pairs\tstop_at\tprior_lo\t"
	    "prior_hi\n"
	    "e7\tm\\t1\tw\t2\t6,4\tn2\tvalidate\tidea-3\tlab\t0.123457\tbecause"
	    "\t8\t80\t1.01\t0.5\t1.25\n"
	    "e8\tbaseline\t\t1\t\t\t\t\t\t\t\t\t\t\t\t\n") == 0, "the header and "
	    "rows, escaped, empty fields for what is unset");
	m = fmemopen(text, strlen(text), "r");
	OK(ar_tsv_open(&t, m, "next") == 0 && ar_tsv_next(&t) == 1, "the TSV "
	    "reads");
	r = ar_assign_from_row(t.hdr, t.field, t.ncol, err, sizeof err);
	OK(r != NULL, "from_row: the row is a record");
	if (r) {
		ar_assign_parse(r, "x", &b);
		OK(b.bad[0] == 0 && strcmp(b.experiment, "e7") == 0 &&
		    strcmp(b.method, "m\t1") == 0 && b.k == 2 && b.ngpus == 2 &&
		    b.gpus[0] == 6 && strcmp(b.node, "n2") == 0 && b.pmin == 8 &&
		    b.pmax == 80 && b.stop_at == 1.01 && b.prior_lo == 0.5 &&
		    b.prior_hi == 1.25 && b.value == 0.123457 &&
		    strcmp(b.why, "because") == 0, "row, record, parse: the "
		    "assignment again");
		json_decref(r);
	}
	OK(ar_tsv_next(&t) == 1 && (r = ar_assign_from_row(t.hdr, t.field,
	    t.ncol, err, sizeof err)) != NULL, "from_row: a row of little");
	if (r) {
		char *s = ar_json_canon(r);

		OK(strcmp(s, "{\"experiment\":\"e8\",\"id\":\"e8\",\"k\":1,"
		    "\"method\":\"baseline\",\"priority\":0}") == 0,
		    "from_row: the record of a row of little");
		free(s);
		json_decref(r);
	}
	ar_tsv_close(&t);
	fclose(m);
	free(text);
}

/* The record of a row given as header and fields, "|"-separated; NULL
 * with err. */
static json_t *
row(const char *hdr, const char *fields, char *err, size_t n)
{
	char *h = strdup(hdr), *f = strdup(fields), *hv[16], *fv[16];
	size_t nh = 0, nf = 0;
	char *s, *save;
	json_t *r;

	for (s = strtok_r(h, "|", &save); s && nh < 16; s = strtok_r(NULL, "|",
	    &save))
		hv[nh++] = s;
	/* Fields may be empty: split by hand. */
	for (s = f; nf < 16;) {
		fv[nf++] = s;
		if (!(s = strchr(s, '|')))
			break;
		*s++ = 0;
	}
	r = nh == nf ? ar_assign_from_row(hv, fv, nh, err, n) : NULL;
	free(h);
	free(f);
	return r;
}

static void
rows(void)
{
	static const struct {
		const char *hdr, *fields, *err;
	} bad[] = {
		{ "method|k", "m|1", "experiment: expected 1 to 100 of "
		    "[A-Za-z0-9._-], not starting with '.' or '-'" },
		{ "experiment|k", "-e|1", "experiment: expected 1 to 100 of "
		    "[A-Za-z0-9._-], not starting with '.' or '-'" },
		{ "experiment|k", "e|", "k: expected an integer from 1 to 1024" },
		{ "experiment|k", "e|0", "k: expected an integer from 1 to 1024" },
		{ "experiment|k", "e|2x", "k: expected an integer from 1 to "
		    "1024" },
		{ "experiment|k|value", "e|1|x", "value: not a number" },
		{ "experiment|k|priority", "e|1|1000000", "priority: expected an "
		    "integer from -999999 to 999999" },
		{ "experiment|k|priority", "e|1|p", "priority: expected an "
		    "integer from -999999 to 999999" },
	};
	char err[256], *s;
	size_t i;
	json_t *r;
	struct ar_assign a;

	for (i = 0; i < NELEM(bad); i++) {
		err[0] = 0;
		r = row(bad[i].hdr, bad[i].fields, err, sizeof err);
		OK(r == NULL && strcmp(err, bad[i].err) == 0, "from_row %s / %s: "
		    "\"%s\"", bad[i].hdr, bad[i].fields, bad[i].err);
		json_decref(r);
	}
	r = row("experiment|k|method|purpose|extra|min_pairs|max_pairs|gpus",
	    "e|2|m|probe|x1|8|4|0,1", err, sizeof err);
	s = r ? ar_json_canon(r) : NULL;
	OK(s && strcmp(s, "{\"experiment\":\"e\",\"extra\":\"x1\",\"gpus\":"
	    "\"0,1\",\"id\":\"e\",\"k\":2,\"max_pairs\":\"4\",\"method\":\"m\","
	    "\"min_pairs\":\"8\",\"priority\":0,\"purpose\":\"probe\"}") == 0,
	    "from_row: other columns, gpus and pair limits kept as text");
	free(s);
	if (r)
		ar_assign_parse(r, "x", &a);
	OK(r && strcmp(a.bad, "min_pairs, max_pairs: expected whole numbers, "
	    "1 <= min_pairs <= max_pairs <= 1000000") == 0, "from_row: the "
	    "parser checks what the row keeps as text");
	json_decref(r);
	r = row("experiment|k|purpose", "e|1|probe", err, sizeof err);
	if (r)
		ar_assign_parse(r, "x", &a);
	OK(r && json_object_get(r, "method") == NULL && strcmp(a.bad,
	    "method: missing") == 0, "from_row: no method is no method, not "
	    "the baseline");
	json_decref(r);
	r = row("experiment|k|purpose", "e|1|aa", err, sizeof err);
	if (r)
		ar_assign_parse(r, "x", &a);
	OK(r && a.bad[0] == 0 && a.method == NULL, "from_row: an A/A without "
	    "a method");
	json_decref(r);
}

static void
gpus(void)
{
	static const struct {
		const char *s;
		int n;       /* -1: refused */
	} t[] = {
		{ "", 0 }, { "0", 1 }, { "0,2,3", 3 }, { "1023", 1 },
		{ "1024", -1 }, { "0,,1", -1 }, { "1,", -1 }, { ",1", -1 },
		{ "a", -1 }, { "1a", -1 }, { "0,0", -1 }, { "-1", -1 },
		{ "+1", -1 }, { " 1", -1 }, { "1 ", -1 }, { "1;2", -1 },
	};
	int out[8];
	size_t i, n;

	for (i = 0; i < NELEM(t); i++)
		OK(t[i].n < 0 ? ar_assign_gpus(t[i].s, out, 8, &n) == -1 :
		    ar_assign_gpus(t[i].s, out, 8, &n) == 0 && n ==
		    (size_t)t[i].n, "gpus \"%s\": %d", t[i].s, t[i].n);
	OK(ar_assign_gpus("5,0,3", out, 8, &n) == 0 && out[0] == 5 &&
	    out[1] == 0 && out[2] == 3, "gpus: in the order given");
	OK(ar_assign_gpus("0,1,2", out, 2, &n) == -1, "gpus: more than max");
}

/* Whether two readings agree on every field. */
static int
same_assign(const struct ar_assign *a, const struct ar_assign *b)
{
	const char *const sa[] = { a->method, a->workload, a->idea,
	    a->purpose, a->node, a->label, a->why, a->queued };
	const char *const sb[] = { b->method, b->workload, b->idea,
	    b->purpose, b->node, b->label, b->why, b->queued };
	size_t i;

	for (i = 0; i < NELEM(sa); i++)
		if ((sa[i] == NULL) != (sb[i] == NULL) || (sa[i] &&
		    strcmp(sa[i], sb[i]) != 0))
			return 0;
	if (strcmp(a->experiment, b->experiment) || strcmp(a->bad, b->bad) ||
	    a->k != b->k || a->ngpus != b->ngpus || a->priority !=
	    b->priority || a->pmin != b->pmin || a->pmax != b->pmax ||
	    a->stop_at != b->stop_at || a->prior_lo != b->prior_lo ||
	    a->prior_hi != b->prior_hi || (a->value != b->value &&
	    !(isnan(a->value) && isnan(b->value))))
		return 0;
	for (i = 0; i < a->ngpus; i++)
		if (a->gpus[i] != b->gpus[i])
			return 0;
	return 1;
}

/* text by the plain reader and by jansson: the plain reader reads it
 * alike or leaves it to jansson. Returns whether it read it. */
static int
both_read(const char *text, size_t len)
{
	char store[1024], err[256];
	struct ar_assign a, b;
	json_t *o;
	int plain = ar_assign_parse_text(text, len, "rid", &a, store,
	    sizeof store) == 0;

	if (!plain)
		return 0;
	o = ar_json_parse(text, len, err, sizeof err);
	if (!o || !json_is_object(o)) {
		OK(0, "plain text read that jansson refuses: %.*s", (int)len,
		    text);
		json_decref(o);
		return 1;
	}
	ar_assign_parse(o, "rid", &b);
	if (!same_assign(&a, &b))
		OK(0, "plain text read otherwise than by jansson: %.*s",
		    (int)len, text);
	json_decref(o);
	return 1;
}

static unsigned long
rnd(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The plain reader against jansson: records as ar-queue writes them,
 * read by it; the same records changed a byte at a time (to quotes,
 * escapes, white space, digits, signs, non-ASCII), read alike or left
 * to jansson. */
static void
plain_text(void)
{
	static const char *const keys[] = { "method", "workload", "k",
	    "gpus", "purpose", "priority", "value", "min_pairs", "max_pairs",
	    "stop_at", "prior_lo", "prior_hi", "node", "experiment", "id", "queued", "why", "label",
	    "idea" };
	static const char subst[] = "\"\\ \t\n,:{}[]0123456789-+.eE\x80\xff"
	    "aZ";
	unsigned long seed = 88172645463325252UL;
	size_t n, i, plain = 0, mut = 0, mutplain = 0;
	char text[512];
	struct ar_assign a;
	json_t *r;

	full(&a);
	a.method = "m1"; /* full's has a tab: an escape, left to jansson */
	r = ar_assign_record(&a);
	{
		char *line = ar_json_line(r);

		OK(both_read(line, strlen(line)), "plain: the record of an "
		    "assignment (ar_assign_record) is of the plain form");
		free(line);
	}
	json_decref(r);
	for (n = 0; n < 20000; n++) {
		size_t len = 0, nk;

		len += (size_t)snprintf(text + len, sizeof text - len, "{");
		size_t k0 = rnd(&seed), step = 1 + rnd(&seed) % 16;

		nk = rnd(&seed) % 8;
		/* Distinct keys: a step through the 17, a prime. */
		for (i = 0; i < nk; i++) {
			const char *k = keys[(k0 + i * step) % NELEM(keys)];
			unsigned long c = rnd(&seed) % 7;

			len += (size_t)snprintf(text + len, sizeof text - len,
			    "%s\"%s\":", i ? "," : "", k);
			if (c == 0)
				len += (size_t)snprintf(text + len, sizeof text -
				    len, "%ld", (long)(rnd(&seed) % 2000) - 500);
			else if (c == 1)
				len += (size_t)snprintf(text + len, sizeof text -
				    len, "\"%lu\"", rnd(&seed) % 12);
			else if (c == 2)
				len += (size_t)snprintf(text + len, sizeof text -
				    len, "\"0,%lu\"", rnd(&seed) % 4);
			else if (c == 3)
				len += (size_t)snprintf(text + len, sizeof text -
				    len, rnd(&seed) % 2 ? "%.17g" : "%g",
				    (double)(rnd(&seed) % 100000) / 997 *
				    (rnd(&seed) % 2 ? 1e-3 : 1e3));
			else
				len += (size_t)snprintf(text + len, sizeof text -
				    len, "\"v%lx\"", rnd(&seed) % 4096);
		}
		len += (size_t)snprintf(text + len, sizeof text - len, "}");
		if (n % 3 == 0)
			text[len++] = '\n';
		plain += both_read(text, len);
		/* One byte changed, anywhere. */
		i = rnd(&seed) % len;
		text[i] = subst[rnd(&seed) % (sizeof subst - 1)];
		mut++;
		mutplain += both_read(text, len);
	}
	OK(plain == 20000, "plain: every generated records of the plain form "
	    "read by it (%zu of 20000)",
	    plain);
	OK(mutplain > 0 && mutplain < mut, "plain: some changed records "
	    "still plain (%zu of %zu), the others left to jansson", mutplain,
	    mut);
	/* What jansson refuses, the plain reader leaves to it. */
	{
		static const char *const bad[] = {
			"{\"k\":1,\"k\":2}", "{\"k\":01}", "{\"k\":-0}",
			"{\"k\":1,}", "{,}", "{\"k\":1} x", "{\"k\" :1}",
			"{\"k\":1.}", "{\"k\":.5}", "{\"k\":1e}", "{\"k\":1e400}",
			"{\"k\":+1}", "{\"k\":-}", "{\"k\":1e-400}", "{\"k\":\"a\\\"b\"}",
			"{\"k\":\"\xc3\xa9\"}", "{\"k\":null}", "{\"k\":true}",
			"{\"k\":1234567890123456789}", "{\"k\":\"a\tb\"}",
			"{\"k\"}", "{\"k\":}", "{", "}", "[1]", "",
			"{\"method\":\"m\",\"k\":1", " {\"k\":1}",
		};
		char store[1024];

		for (i = 0; i < NELEM(bad); i++)
			OK(ar_assign_parse_text(bad[i], strlen(bad[i]), "x", &a,
			    store, sizeof store) == -1, "plain: \"%s\" left to "
			    "jansson", bad[i]);
		OK(ar_assign_parse_text("{\"k\":1}", 7, "x", &a, store, 7) ==
		    -1, "plain: a store too small leaves it to jansson");
	}
}

const struct unit_test unit_assign[] = {
	TEST(records),
	TEST(bad_fields),
	TEST(round_trip),
	TEST(tsv),
	TEST(rows),
	TEST(gpus),
	TEST(plain_text),
	UNIT_END,
};
