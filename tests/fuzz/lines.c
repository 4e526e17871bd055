/* lines.c: the line parsers that read what others wrote: METRIC lines
 * of a method's score stage (lib/metric), TSV (lib/tsv), RFC 3339 times
 * (lib/timefmt), UTF-8 and its repair (lib/utf8), JSON (lib/json), a
 * runner request (lib/runner), a spool record's name (lib/spool) and
 * an id's time (lib/id). */
#include <math.h>

#include "fuzz.h"
#include "id.h"
#include "json.h"
#include "metric.h"
#include "runner.h"
#include "spool.h"
#include "timefmt.h"
#include "tsv.h"
#include "utf8.h"

static void
tsv(const uint8_t *d, size_t n)
{
	struct ar_tsv t;
	FILE *f = fmemopen((void *)d, n, "r");
	int r;

	if (!f)
		return;
	if (ar_tsv_open(&t, f, "fuzz") == 0) {
		while ((r = ar_tsv_next(&t)) == 1)
			for (size_t i = 0; i < t.ncol; i++)
				CHECK(t.field[i] != NULL);
		if (r < 0)
			CHECK(strncmp(t.err, "fuzz: ", 6) == 0);
		ar_tsv_close(&t);
	} else
		CHECK(t.err[0]);
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ar_metric *m = NULL;
	struct ar_lease l;
	struct timespec ts, back;
	char err[512], out[64], *s = fuzz_str(d, n), *value, *fields[16];
	size_t nm = 0;
	long bad;
	json_t *j;

	if (ar_metrics_parse((const char *)d, n, &m, &nm, err, sizeof err) == 0) {
		for (size_t i = 0; i < nm; i++) {
			CHECK(strlen(m[i].name) > 0);
			CHECK(strlen(m[i].name) < AR_METRIC_NAME);
			for (size_t k = 0; k < i; k++)
				CHECK(strcmp(m[i].name, m[k].name) != 0);
		}
	} else
		CHECK(err[0]);
	free(m);
	tsv(d, n);
	if (ar_time_parse(s, &ts) == 0 && ts.tv_sec > 0 &&
	    ts.tv_sec < 253402300800LL) {
		/* What it read, written and read again, is the same instant. */
		ar_time_fmt(out, sizeof out, ts, 9);
		CHECK(ar_time_parse(out, &back) == 0);
		CHECK(back.tv_sec == ts.tv_sec && back.tv_nsec == ts.tv_nsec);
	}
	bad = ar_utf8_invalid((const char *)d, n);
	CHECK(bad >= -1 && bad < (long)n);
	{
		/* Repaired text is valid, and so is any prefix cut where
		 * ar_utf8_prefix says. */
		char *r = strdup(s);
		size_t len = strlen(r), cut;

		ar_utf8_repair(r);
		CHECK(strlen(r) == len && ar_utf8_invalid(r, len) == -1);
		cut = ar_utf8_prefix(r, len / 2);
		CHECK(cut <= len / 2 && ar_utf8_invalid(r, cut) == -1);
		free(r);
	}
	if ((j = ar_json_parse((const char *)d, n, err, sizeof err))) {
		char *line = ar_json_line(j);

		CHECK(strchr(line, '\n') == NULL);
		free(line);
		json_decref(j);
	}
	/* An id's time reads as the same instant in RFC 3339. */
	if (ar_id_time(s, &ts) == 0) {
		ar_time_fmt(out, sizeof out, ts, 6);
		CHECK(ar_time_parse(out, &back) == 0 &&
		    back.tv_sec == ts.tv_sec);
	}
	/* A claimed record's name, written again from what was read, reads
	 * the same (a name in new/ has no lease to write). */
	if (ar_spool_parse(s, &l) == 0 && l.holder[0]) {
		char name[AR_SPOOL_NAME + 64];
		struct ar_lease again;

		ar_spool_lease_name(name, sizeof name, &l);
		CHECK(ar_spool_parse(name, &again) == 0);
		CHECK(strcmp(again.id, l.id) == 0 && again.prio == l.prio &&
		    again.expires == l.expires &&
		    strcmp(again.holder, l.holder) == 0);
	}
	{
		char *line = strdup(s);
		size_t len = strlen(line);

		ar_tsv_split(line, len, fields, 16, err, sizeof err);
		free(line);
		line = strdup(s);
		if (ar_runner_request(line, &value) >= AR_RQ_CMD)
			CHECK(value != NULL);
		free(line);
	}
	free(s);
	return 0;
}
