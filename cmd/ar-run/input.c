/* input.c: ar-run -i: assignments TSV (ar-sched next's output) into the
 * queue, one record each as lib/assign makes it. The whole input is
 * checked before anything is stored; an experiment already in the queue
 * (ar-sched next --put stored it) is not stored again. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "json.h"
#include "tsv.h"
#include "run.h"

/* The experiments in the queue: the ids of records in any state, and the
 * experiments that waiting or claimed records name. */
struct known {
	char **id;
	size_t n;
};

static void
known_load(const struct runctx *c, struct known *k)
{
	static const char *const subs[] = { "new", "cur", "done", "failed" };
	struct ar_lease l;
	char **names;
	size_t s, j, n;

	for (s = 0; s < 4; s++) {
		if (ar_spool_list(c->qdir, subs[s], &names, &n) < 0)
			ar_die(AR_EX_IO, "%s/%s:", c->qdir, subs[s]);
		for (j = 0; j < n; j++) {
			const char *e = NULL;
			json_t *o = NULL;

			if (ar_spool_parse(names[j], &l) < 0)
				continue;
			if (s < 2) {
				char *p = ar_spool_path(c->qdir, subs[s],
				    names[j]);

				o = rec_load(p);
				free(p);
				e = o ? rec_str(o, "experiment") : NULL;
			}
			k->id = ar_xrealloc(k->id, (k->n + 2) * sizeof *k->id);
			k->id[k->n++] = ar_xstrdup(l.id);
			if (e && strcmp(e, l.id) != 0)
				k->id[k->n++] = ar_xstrdup(e);
			json_decref(o);
		}
		ar_spool_free_list(names, n);
	}
}

static int
known_has(const struct known *k, const char *id)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->id[i], id) == 0)
			return 1;
	return 0;
}

/* A bad assignment: its half-made record is freed before the exit, so
 * nothing is lost to valgrind either. */
static void __attribute__((noreturn, format(printf, 2, 3)))
bad_input(json_t *o, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	json_decref(o);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ar_die(AR_EX_DATA, "%s", msg);
}

/* Reads and checks every row; the records, n of them. */
static json_t **
read_rows(const char *file, size_t *np)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	const char *name = strcmp(file, "-") == 0 ? "<stdin>" : file;
	struct ar_tsv t;
	json_t **recs = NULL;
	size_t n = 0, i;
	struct stat st;
	int r;

	*np = 0;
	if (!f)
		ar_die(AR_EX_NOINPUT, "%s:", file);
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
		ar_die(AR_EX_NOINPUT, "%s: is a directory", name);
	/* Nothing at all, not even the header that ar-sched next always
	 * prints, is the command before it in a pipe failing: said, not
	 * taken for "no assignments". */
	if (ar_tsv_open(&t, f, name) < 0) {
		if (feof(f) && t.lineno == 0)
			ar_die(AR_EX_DATA, "%s: empty: no header (did the "
			    "command before it fail?)", name);
		ar_die(AR_EX_DATA, "%s", t.err);
	}
	ar_tsv_need(&t, "experiment");
	ar_tsv_need(&t, "method");
	ar_tsv_need(&t, "k");
	while ((r = ar_tsv_next(&t)) == 1) {
		char err[512];
		struct ar_assign a;
		json_t *o = ar_assign_from_row(t.hdr, t.field, t.ncol, err,
		    sizeof err);

		if (!o)
			bad_input(NULL, "%s: line %zu: %s", name, t.lineno,
			    err);
		ar_assign_parse(o, rec_str(o, "id"), &a);
		if (a.bad[0])
			bad_input(o, "%s: line %zu: %s", name, t.lineno, a.bad);
		for (i = 0; i < n; i++)
			if (strcmp(rec_str(recs[i], "id"), a.experiment) == 0)
				bad_input(o, "%s: line %zu: experiment %s given "
				    "twice; nothing stored", name, t.lineno,
				    a.experiment);
		recs = ar_xrealloc(recs, (n + 1) * sizeof *recs);
		recs[n++] = o;
	}
	if (r < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
	if (f != stdin)
		fclose(f);
	*np = n;
	return recs;
}

void
put_input(struct runctx *c, const char *file)
{
	struct known k = { NULL, 0 };
	size_t n, i;
	json_t **recs = read_rows(file, &n);

	if (n)
		known_load(c, &k);
	for (i = 0; i < n; i++) {
		const char *id = rec_str(recs[i], "id");
		long prio = (long)json_integer_value(json_object_get(recs[i],
		    "priority"));
		char *s;
		size_t len;

		if (known_has(&k, id)) {
			/* ar-sched next --put stored it already. */
			json_decref(recs[i]);
			continue;
		}
		s = ar_json_line(recs[i]);
		len = strlen(s);
		s = ar_xrealloc(s, len + 2);
		memcpy(s + len, "\n", 2);
		if (ar_spool_put(c->qdir, id, prio, s, len + 1) == AR_SP_ERR)
			ar_die(ar_errno_exit(errno), "%s: cannot store %s:",
			    c->qdir, id);
		free(s);
		json_decref(recs[i]);
	}
	for (i = 0; i < k.n; i++)
		free(k.id[i]);
	free(k.id);
	free(recs);
}
