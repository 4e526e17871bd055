/* imports.c: lib/imports, both kinds of log; the first byte picks the
 * kind. Carriage returns and long lines end a pi read by design (exit
 * 65, as ar_jsonl_line does), so they are taken out of its input. */
#include <math.h>

#include "fuzz.h"
#include "imports.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ar_import imp;
	struct ar_import_err e;
	char *s;
	size_t i, m = 0;
	int from;
	FILE *f;

	if (n < 1)
		return 0;
	from = d[0] & 1 ? AR_IMPORT_PI : AR_IMPORT_AUTORESEARCH;
	s = malloc(n);
	for (i = 1; i < n; i++)
		if (from != AR_IMPORT_PI || d[i] != '\r')
			s[m++] = (char)d[i];
	f = fmemopen(s, m ? m : 1, "r");
	if (f && m) {
		if (ar_import_read(&imp, from, f, "fuzz", NULL, &e) == 0) {
			for (i = 0; i < imp.nrow; i++)
				CHECK(imp.row[i].metric && imp.row[i].status_text &&
				    imp.row[i].status >= AR_IMPORT_KEEP &&
				    imp.row[i].status <= AR_IMPORT_OTHER);
			ar_import_free(&imp);
		} else
			CHECK(e.msg[0]);
	}
	if (f)
		fclose(f);
	free(s);
	return 0;
}
