/* imports.c: lib/imports, both kinds of log; the first byte picks the
 * kind (bit 0), a metric column "score" (bit 1) and higher is better
 * (bit 2). Carriage returns and long lines end a pi read by design
 * (exit 65, as ar_jsonl_line does), so they are taken out of its
 * input. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "imports.h"

static void
check(struct ar_import *imp)
{
	size_t i, j;

	for (i = 0; i < imp->nrow; i++) {
		const struct ar_import_row *w = &imp->row[i];

		CHECK(w->metric && w->status_text && w->ident &&
		    w->status >= AR_IMPORT_KEEP &&
		    w->status <= AR_IMPORT_OTHER);
		CHECK(w->session_no >= 1 && w->session_no <= imp->nsession);
		/* A crash never has a value a min could take. */
		CHECK(w->status != AR_IMPORT_CRASH || isnan(w->value));
		CHECK(w->status != AR_IMPORT_KEEP || isfinite(w->value));
		for (j = 0; j < w->nextra; j++)
			CHECK(w->extra[j].name && w->extra[j].text[0]);
	}
	if (imp->from == AR_IMPORT_AUTORESEARCH && imp->nrow)
		(void)ar_import_std_header(imp, imp->metric);
	ar_import_keep_session(imp, imp->nsession);
	for (i = 0; i < imp->nrow; i++)
		CHECK(imp->row[i].session_no == imp->nsession);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ar_import imp;
	struct ar_import_err e;
	struct ar_import_opt o = { NULL, -1 };
	char *s;
	size_t i, m = 0;
	int from;
	FILE *f;

	if (n < 1)
		return 0;
	from = d[0] & 1 ? AR_IMPORT_PI : AR_IMPORT_AUTORESEARCH;
	if (d[0] & 2)
		o.metric = "score";
	if (d[0] & 4)
		o.lower = 0;
	s = malloc(n);
	for (i = 1; i < n; i++)
		if (from != AR_IMPORT_PI || d[i] != '\r')
			s[m++] = (char)d[i];
	f = fmemopen(s, m ? m : 1, "r");
	if (f && m) {
		if (ar_import_read(&imp, from, f, "fuzz", &o, &e) == 0) {
			check(&imp);
			ar_import_free(&imp);
		} else
			CHECK(e.msg[0]);
	}
	if (f)
		fclose(f);
	free(s);
	return 0;
}
