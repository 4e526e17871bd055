/* imported.c: the digest of a karpathy/autoresearch results.tsv or a
 * pi-autoresearch log (-F), read by lib/imports as ar-ledger import reads
 * it: its rows counted by status and the best kept value of its last
 * session; a log of several sessions has a line for each, as their
 * metrics may differ and are never pooled. */
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
read_log(struct digest *dg, const char *from, const char *path,
    const struct ar_import_opt *o)
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
	if (ar_import_read(&G->imp, ar_import_kind(from), f, name, o, &e) < 0)
		die_import(&e, name);
	if (f != stdin)
		fclose(f);
	cpy(G->metric, sizeof G->metric, G->imp.metric);
	G->lower = G->imp.lower;
	for (i = 0; i < G->imp.nrow; i++) {
		const struct ar_import_row *w = &G->imp.row[i];
		int cls = log_cls(w->status);

		G->n[cls]++;
		/* The best of the last session: the metric in force. */
		if (cls == L_KEEP && isfinite(w->value) &&
		    w->session_no == G->imp.nsession && (!G->has_best ||
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

/* One line per session, each by its own metric and direction. */
static void
build_sessions(struct digest *dg)
{
	struct ar_import *imp = &dg->G.imp;
	struct sect *s;
	size_t i, k;

	s = sect(dg, "imported_sessions", "Imported sessions", "isssiiiiins",
	    "session", "name", "metric", "better", "rows", "keep", "discard",
	    "crash", "other", "best_kept", "best_commit", NULL);
	s->note = "Each session of the log by its own metric; the chart "
	    "shows the last.";
	for (k = 1; k <= imp->nsession; k++) {
		const struct ar_import_row *first = NULL, *best = NULL;
		size_t n[L_N] = {0}, rows = 0;
		char a[8][32];

		for (i = 0; i < imp->nrow; i++) {
			const struct ar_import_row *w = &imp->row[i];
			int cls = log_cls(w->status);

			if (w->session_no != k)
				continue;
			first = first ? first : w;
			rows++;
			n[cls]++;
			if (cls == L_KEEP && isfinite(w->value) && (!best ||
			    (w->lower ? w->value < best->value :
			    w->value > best->value)))
				best = w;
		}
		if (!first)
			continue;
		a[6][0] = 0;
		/* As logged: a count of 4306891 is not 4.30689e+06. */
		if (best)
			ar_fmt_double(a[6], sizeof a[6], best->value);
		row(s, fi(a[0], k), first->session ? first->session : "",
		    first->metric, first->lower ? "lower" : "higher",
		    fi(a[1], rows), fi(a[2], n[L_KEEP]), fi(a[3], n[L_DISCARD]),
		    fi(a[4], n[L_CRASH]), fi(a[5], n[L_OTHER]), a[6],
		    best && best->commit ? best->commit : "");
	}
}

void
build_log(struct digest *dg)
{
	struct logsum *G = &dg->G;
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
		ar_fmt_double(a, sizeof a, G->best);
	row(s, "best_kept", a);
	row(s, "best_commit", G->best_commit);
	row(s, "best_description", G->best_desc);
	if (G->imp.nsession > 1) {
		build_sessions(dg);
		ar_import_keep_session(&G->imp, G->imp.nsession);
	}
}
