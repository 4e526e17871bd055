/* imported.c: the digest of a karpathy/autoresearch results.tsv or a
 * pi-autoresearch log (-F), read by lib/imports as ar-ledger import reads
 * it: its rows counted by status and the best kept value. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "digest.h"

/* The digest's classes of a status: checks_failed is "other". */
int
log_cls(int status)
{
	switch (status) {
	case AR_IMPORT_KEEP: return L_KEEP;
	case AR_IMPORT_DISCARD: return L_DISCARD;
	case AR_IMPORT_CRASH: return L_CRASH;
	default: return L_OTHER;
	}
}

/* Dies with lib/imports' reason. Two messages keep the wording
 * ar-digest gave them before lib/imports (its tests name them). */
static _Noreturn void
die_import(const struct ar_import_err *e, const char *name)
{
	if (e->kind == AR_IMPORT_E_NUMBER)
		ar_die(AR_EX_DATA, "%s: line %zu: %s: \"%s\" is not a number",
		    name, e->lineno, e->field, e->value);
	if (e->kind == AR_IMPORT_E_VALUE)
		ar_die(AR_EX_DATA, "%s: line %zu: %s \"%s\": expected %s", name,
		    e->lineno, e->field, e->value, e->expected);
	ar_die(AR_EX_DATA, "%s", e->msg);
}

void
read_log(struct digest *dg, const char *from, const char *path)
{
	struct logsum *G = &dg->G;
	struct ar_import_err e;
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	const char *name = f == stdin ? "<stdin>" : path;
	size_t i;

	if (!f)
		ar_die(errno == ENOENT || errno == EACCES ? AR_EX_NOINPUT :
		    AR_EX_IO, "%s:", path);
	G->from = from;
	if (ar_import_read(&G->imp, ar_import_kind(from), f, name, &e) < 0)
		die_import(&e, name);
	if (f != stdin)
		fclose(f);
	cpy(G->metric, sizeof G->metric, G->imp.metric);
	G->lower = G->imp.lower;
	for (i = 0; i < G->imp.nrow; i++) {
		const struct ar_import_row *w = &G->imp.row[i];
		int cls = log_cls(w->status);

		G->n[cls]++;
		/* Each row by the direction in force at its line. */
		if (cls == L_KEEP && isfinite(w->value) && (!G->has_best ||
		    (w->lower ? w->value < G->best : w->value > G->best))) {
			G->best = w->value;
			G->has_best = 1;
			cpy(G->best_commit, sizeof G->best_commit,
			    w->commit ? w->commit : "");
			cpy(G->best_desc, sizeof G->best_desc,
			    w->description ? w->description : "");
		}
	}
}

void
build_log(struct digest *dg)
{
	const struct logsum *G = &dg->G;
	struct sect *s;
	char a[32];

	s = sect(dg, "imported_log", "Imported log", "ss", "item", "value",
	    NULL);
	s->kv = 1;
	s->note = "Imported rows are unsigned: flagged, shown here, never "
	    "used as evidence.";
	s->rowtype = "sssiiiiiinss";
	row(s, "source", G->from);
	row(s, "metric", G->metric);
	row(s, "better", G->lower ? "lower" : "higher");
	row(s, "rows", fi(a, G->imp.nrow));
	row(s, "flagged_unsigned", fi(a, G->imp.nrow));
	row(s, "keep", fi(a, G->n[L_KEEP]));
	row(s, "discard", fi(a, G->n[L_DISCARD]));
	row(s, "crash", fi(a, G->n[L_CRASH]));
	row(s, "other", fi(a, G->n[L_OTHER]));
	a[0] = 0;
	if (G->has_best)
		snprintf(a, sizeof a, "%.6g", G->best);
	row(s, "best_kept", a);
	row(s, "best_commit", G->best_commit);
	row(s, "best_description", G->best_desc);
}
