/* assign.c: lib/assign's readers: a queue record (JSON) and a row of
 * ar-sched next's TSV; what one writes, the other reads back alike. */
#include <math.h>
#include <sys/stat.h>

#include "assign.h"
#include "fuzz.h"
#include "json.h"
#include "tsv.h"

static void
round_trip(const struct ar_assign *a)
{
	json_t *r = ar_assign_record(a), *back;
	char *s = ar_json_line(r), err[256];
	struct ar_assign b;

	back = ar_json_parse(s, strlen(s), err, sizeof err);
	CHECK(back && json_is_object(back));
	ar_assign_parse(back, a->experiment, &b);
	CHECK(!b.bad[0]);
	CHECK(strcmp(a->experiment, b.experiment) == 0 && a->k == b.k &&
	    a->ngpus == b.ngpus && a->pmin == b.pmin && a->pmax == b.pmax &&
	    a->prior_lo == b.prior_lo && a->prior_hi == b.prior_hi);
	json_decref(back);
	json_decref(r);
	free(s);
}

static int
same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int
same(const struct ar_assign *a, const struct ar_assign *b)
{
	size_t i;

	if (!same_str(a->method, b->method) || !same_str(a->workload,
	    b->workload) || !same_str(a->idea, b->idea) ||
	    !same_str(a->purpose, b->purpose) || !same_str(a->node, b->node) ||
	    !same_str(a->label, b->label) || !same_str(a->why, b->why) ||
	    !same_str(a->queued, b->queued) || strcmp(a->experiment,
	    b->experiment) || strcmp(a->bad, b->bad) || a->k != b->k ||
	    a->ngpus != b->ngpus || a->priority != b->priority || a->pmin !=
	    b->pmin || a->pmax != b->pmax || a->stop_at != b->stop_at ||
	    a->prior_lo != b->prior_lo || a->prior_hi != b->prior_hi ||
	    (a->value != b->value && !(isnan(a->value) && isnan(b->value))))
		return 0;
	for (i = 0; i < a->ngpus; i++)
		if (a->gpus[i] != b->gpus[i])
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char err[256];
	json_t *o = ar_json_parse((const char *)d, n, err, sizeof err);
	FILE *f;

	if (o && json_is_object(o)) {
		struct ar_assign a;

		ar_assign_parse(o, "fuzz", &a);
		if (!a.bad[0])
			round_trip(&a);
	}
	{
		/* The plain reader reads only what jansson reads, alike. */
		char store[1024];
		struct ar_assign p, a;

		if (ar_assign_parse_text((const char *)d, n, "fuzz", &p, store,
		    sizeof store) == 0) {
			CHECK(o && json_is_object(o));
			ar_assign_parse(o, "fuzz", &a);
			CHECK(same(&p, &a));
		}
	}
	json_decref(o);
	/* The same bytes as TSV. */
	if ((f = fmemopen((void *)d, n ? n : 1, "r"))) {
		struct ar_tsv t;

		memset(&t, 0, sizeof t);
		if (n && ar_tsv_open(&t, f, "fuzz") == 0) {
			while (ar_tsv_next(&t) == 1) {
				json_t *r = ar_assign_from_row(t.hdr, t.field,
				    t.ncol, err, sizeof err);

				if (r) {
					struct ar_assign a;

					ar_assign_parse(r, "fuzz", &a);
					json_decref(r);
				}
			}
		}
		ar_tsv_close(&t);
		fclose(f);
	}
	return 0;
}
