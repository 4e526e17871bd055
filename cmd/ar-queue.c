/* ar-queue: crash-safe spools of ideas and experiments. Every record is
 * one file; every state change is one rename(2), so any number of
 * claimers on any number of hosts claim each record exactly once. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "flat.h"
#include "host.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "spool.h"
#include "timefmt.h"
#include "tsv.h"

static const char usage[] =
	"put [-f tsv|jsonl] [-k key] [-p priority] spool [file]\n"
	"claim [-f tsv|jsonl] [-H holder] [-l seconds] [-n count] spool\n"
	"renew [-H holder] [-l seconds] spool id ...\n"
	"done [-H holder] spool id ...\n"
	"fail [-H holder] [-r reason] spool id ...\n"
	"release [-H holder] spool id ...\n"
	"reap spool\n"
	"ls [-f tsv|jsonl] [-s state] spool\n"
	"init spool";

enum { FMT_AUTO, FMT_TSV, FMT_JSONL };

/* Records stored with one sync: enough that the sync costs little per
 * record, few enough that a long input shows progress. */
#define PUT_BATCH 8192

static int fmt = FMT_AUTO;
static long prio_default;
static const char *holder;
static long long lease_s = 600;
static long count = 1;
static const char *reason;
static const char *state_filter;
static const char *put_key;
/* put closes stdout itself, and says what it printed. */
static int stdout_closed;

/* Input put refuses: it is all read and checked before the first record
 * is stored, so the message says that nothing was. */
static _Noreturn void
refuse(int code, const char *fmt, ...)
{
	static const char tail[] = "; nothing stored";
	char msg[1200];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	len = strlen(msg);
	if (len >= sizeof tail - 1 && strcmp(msg + len - (sizeof tail - 1),
	    tail) == 0)
		ar_die(code, "%s", msg);
	ar_die(code, "%s%s", msg, tail);
}

static int
parse_fmt(const char *s)
{
	if (strcmp(s, "tsv") == 0)
		return FMT_TSV;
	if (strcmp(s, "jsonl") == 0)
		return FMT_JSONL;
	ar_die(AR_EX_USAGE, "-f %s: expected tsv or jsonl", s);
}

static void
open_spool(const char *dir)
{
	if (ar_spool_check(dir) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a spool (ar-queue init makes "
		    "one)", dir);
}

static const char *
default_holder(void)
{
	static char host[AR_ID_MAX + 1];
	const char *env = getenv("AR_HOLDER");

	if (env && *env)
		return env;
	/* The host: the same in every process of one worker, pipelines and
	 * subshells included. Workers that share a host should each set
	 * -H or AR_HOLDER. */
	snprintf(host, sizeof host, "%s", ar_host_short());
	return host;
}

/* The records of an input and the line each came from. */
struct records {
	json_t **rec;
	size_t *line;
	size_t n, cap;
};

static void
add_record(struct records *r, json_t *o, size_t line)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->rec = ar_xrealloc(r->rec, r->cap * sizeof *r->rec);
		r->line = ar_xrealloc(r->line, r->cap * sizeof *r->line);
	}
	r->line[r->n] = line;
	r->rec[r->n++] = o;
}

/* Reads every record of the input first, so that malformed input stores
 * nothing. */
static size_t
read_records(FILE *in, const char *name, struct records *recs)
{
	struct ar_buf line = {0};
	size_t lineno = 0;
	char err[512];
	int c, f = fmt, r;

	if (f == FMT_AUTO) {
		/* JSON Lines start with '{', maybe after blank space. */
		struct ar_buf skipped = {0};

		while ((c = getc(in)) == ' ' || c == '\t' || c == '\n' ||
		    c == '\r')
			ar_buf_addc(&skipped, (char)c);
		f = c == '{' ? FMT_JSONL : FMT_TSV;
		if (c != EOF)
			ungetc(c, in);
		if (c == EOF) {
			/* Nothing but blank space: no records. */
			ar_buf_free(&skipped);
			return 0;
		}
		for (size_t i = 0; i < skipped.len; i++)
			if (skipped.p[i] == '\n')
				lineno++;
			else if (skipped.p[i] == '\r')
				refuse(AR_EX_DATA, "%s: line %zu: carriage return "
				    "(CRLF line endings?); nothing stored", name,
				    lineno + 1);
		if (c == '[')
			refuse(AR_EX_DATA, "%s: line %zu: a JSON array; JSON "
			    "Lines want one object per line", name,
			    lineno + 1);
		if (f == FMT_TSV && skipped.len)
			refuse(AR_EX_DATA, "%s: line 1: starts with blank "
			    "space: neither a TSV header nor JSON", name);
		ar_buf_free(&skipped);
	}
	if (f == FMT_TSV) {
		struct ar_tsv t;

		if (ar_tsv_open(&t, in, name) < 0)
			refuse(AR_EX_DATA, "%s", t.err);
		while ((r = ar_tsv_next(&t)) == 1) {
			json_t *o = json_object();
			size_t i;

			for (i = 0; i < t.ncol; i++)
				if (t.field[i][0] != '\0')
					json_object_set_new(o, t.hdr[i],
					    json_string(t.field[i]));
			add_record(recs, o, t.lineno);
		}
		if (r < 0)
			refuse(AR_EX_DATA, "%s", t.err);
		ar_tsv_close(&t);
		return recs->n;
	}
	while (ar_jsonl_line(in, name, &line, &lineno)) {
		json_t *j;

		if (!(j = ar_json_parse(line.p, line.len, err, sizeof err)))
			refuse(AR_EX_DATA, "%s: line %zu: %s", name, lineno,
			    err);
		if (!json_is_object(j)) {
			json_decref(j);
			refuse(AR_EX_DATA, "%s: line %zu: not a JSON object",
			    name, lineno);
		}
		add_record(recs, j, lineno);
	}
	ar_buf_free(&line);
	return recs->n;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct ar_kv *)a)->k, ((const struct ar_kv *)b)->k);
}

/* Every id present in any state, for refusing user-given duplicates. */
static int
id_exists(const char *dir, const char *id)
{
	static char **ids;
	static size_t nids;
	static int loaded;
	const char *subs[] = { "new", "cur", "done", "failed" };
	size_t i, j, lo, hi;

	if (!loaded) {
		for (i = 0; i < 4; i++) {
			char **names;
			size_t n;
			struct ar_lease l;

			if (ar_spool_list(dir, subs[i], &names, &n) < 0)
				ar_die(AR_EX_IO, "%s/%s:", dir, subs[i]);
			ids = ar_xrealloc(ids, (nids + n + 1) * sizeof *ids);
			for (j = 0; j < n; j++)
				if (ar_spool_parse(names[j], &l) == 0)
					ids[nids++] = ar_xstrdup(l.id);
			ar_spool_free_list(names, n);
		}
		ar_sort(ids, nids, sizeof *ids, cmp_str);
		loaded = 1;
	}
	lo = 0;
	hi = nids;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(ids[mid], id);

		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Prints the ids of n records stored, one a line, by write(2) calls of
 * whole lines: stdio would cut a line between its 4 KiB writes, and a
 * kill -9 there would leave a part of an id printed. */
static int
print_ids(const struct ar_spool_rec *b, size_t n)
{
	char buf[4096];
	size_t i, len = 0, l;
	int r = 0;

	for (i = 0; i <= n; i++) {
		l = i < n ? strlen(b[i].id) + 1 : 0;
		if (len && (i == n || len + l > sizeof buf)) {
			if (ar_write_all(STDOUT_FILENO, buf, len) < 0)
				r = -1;
			len = 0;
		}
		if (i == n)
			break;
		if (l > sizeof buf) {
			/* No id is this long (AR_ID_MAX); kept whole anyway. */
			if (ar_write_all(STDOUT_FILENO, b[i].id, l - 1) < 0 ||
			    ar_write_all(STDOUT_FILENO, "\n", 1) < 0)
				r = -1;
			continue;
		}
		memcpy(buf + len, b[i].id, l - 1);
		buf[len + l - 1] = '\n';
		len += l;
	}
	return r;
}

static int
cmd_put(const char *dir, const char *file)
{
	FILE *in = stdin;
	struct records rs = { 0 };
	json_t **recs;
	size_t n, i;
	long *prio;
	char now[32];

	const char *name = file ? file : "<stdin>";
	struct stat st;
	char *there;           /* with -k: stored by an earlier try */
	size_t nthere = 0, j;
	int out_err = 0;

	open_spool(dir);
	if (file && !(in = fopen(file, "r")))
		ar_die(AR_EX_NOINPUT, "%s:", file);
	if (fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode))
		ar_die(AR_EX_NOINPUT, "%s: is a directory", name);
	n = read_records(in, name, &rs);
	recs = rs.rec;
	prio = ar_xmalloc((n ? n : 1) * sizeof *prio);
	there = ar_xcalloc(n ? n : 1, 1);
	ar_time_now(now, sizeof now);
	for (i = 0; i < n; i++) {
		json_t *p = json_object_get(recs[i], "priority");
		json_t *id = json_object_get(recs[i], "id");
		long long v = prio_default;
		char gen[AR_ID_MAX + 16];

		if (json_is_string(p)) {
			if (ar_parse_long(json_string_value(p), &v) < 0)
				v = 1LL << 40;
		} else if (json_is_integer(p))
			v = json_integer_value(p);
		else if (p)
			v = 1LL << 40;
		if (v < -999999 || v > 999999)
			refuse(AR_EX_DATA, "%s: line %zu: priority: expected "
			    "an integer from -999999 to 999999", name,
			    rs.line[i]);
		prio[i] = (long)v;
		json_object_set_new(recs[i], "priority", json_integer(v));
		if (id) {
			if (!json_is_string(id) ||
			    !ar_id_valid(json_string_value(id)))
				refuse(AR_EX_DATA, "%s: line %zu: id: expected 1 "
				    "to %d of [A-Za-z0-9._-], not starting "
				    "with '.' or '-'", name, rs.line[i],
				    AR_ID_MAX);
		} else if (put_key) {
			/* The same key and input give the same ids: a retry
			 * stores what is missing and nothing twice. */
			snprintf(gen, sizeof gen, "%s-%06zu", put_key, i + 1);
			json_object_set_new(recs[i], "id", json_string(gen));
		} else {
			ar_id_new(gen);
			json_object_set_new(recs[i], "id", json_string(gen));
		}
		id = json_object_get(recs[i], "id");
		if (id_exists(dir, json_string_value(id))) {
			if (!put_key)
				refuse(AR_EX_CANTCREAT, "%s: line %zu: id %s "
				    "exists already in %s", name, rs.line[i],
				    json_string_value(id), dir);
			there[i] = 1;
			nthere++;
		}
		if (!json_object_get(recs[i], "queued"))
			json_object_set_new(recs[i], "queued",
			    json_string(now));
		{
			/* Readers take records up to the line limit. */
			char *s = ar_json_line(recs[i]);
			size_t len = strlen(s);

			free(s);
			if (len >= AR_LINE_MAX)
				refuse(AR_EX_DATA, "%s: line %zu: the record "
				    "would be %zu bytes, more than %d",
				    name, rs.line[i], len + 1, AR_LINE_MAX);
		}
	}
	free(rs.line);
	{
		/* The same id twice in one input is refused before anything is
		 * stored. */
		const char **ids = ar_xmalloc((n ? n : 1) * sizeof *ids);

		for (i = 0; i < n; i++)
			ids[i] = json_string_value(json_object_get(recs[i], "id"));
		ar_sort(ids, n, sizeof *ids, cmp_str);
		for (i = 1; i < n; i++)
			if (strcmp(ids[i], ids[i - 1]) == 0)
				refuse(AR_EX_DATA, "%s: id %s given twice; nothing "
				    "stored", name, ids[i]);
		free(ids);
	}
	/* A reader that goes away (ar-queue put ... | head -1) or a closed
	 * stdout must not stop the store half-way: every record is stored,
	 * and then what was printed is said. */
	signal(SIGPIPE, SIG_IGN);
	/* With -k, the records of an earlier try are stored already: their
	 * ids first, the rest as they are stored. */
	for (i = 0; i < n; i++)
		if (there[i])
			printf("%s\n", json_string_value(json_object_get(recs[i],
			    "id")));
	for (i = j = 0; i < n; i++) {
		if (there[i])
			json_decref(recs[i]);
		else {
			recs[j] = recs[i];
			prio[j++] = prio[i];
		}
	}
	n = j;
	free(there);
	/* Stored in batches, each made durable with one sync; a batch's ids
	 * are printed once it is durable. */
	for (i = 0; i < n; ) {
		struct ar_spool_rec *b;
		size_t m = n - i < PUT_BATCH ? n - i : PUT_BATCH, stored;
		int r;

		b = ar_xmalloc(m * sizeof *b);
		for (j = 0; j < m; j++) {
			char *s = ar_json_line(recs[i + j]);
			size_t len = strlen(s);

			s = ar_xrealloc(s, len + 2);
			s[len] = '\n';
			s[len + 1] = '\0';
			b[j].id = json_string_value(json_object_get(recs[i + j],
			    "id"));
			b[j].prio = prio[i + j];
			b[j].data = s;
			b[j].len = len + 1;
		}
		r = ar_spool_put_batch(dir, b, m, &stored);
		/* An id printed is a record stored: callers may rely on it
		 * even if we are killed right after. */
		if (fflush(stdout) != 0 && !out_err)
			out_err = errno ? errno : EIO;
		if (print_ids(b, stored) < 0 && !out_err)
			out_err = errno ? errno : EIO;
		if (r != AR_SP_OK) {
			int e = errno;
			size_t done = nthere + i + stored;
			const char *said = out_err ? "their ids not all "
			    "printed" : "their ids printed";

			/* The ids printed are the records stored; none
			 * printed, nothing stored. */
			if (r == AR_SP_GONE && done)
				ar_die(AR_EX_CANTCREAT, "%s: id %s exists already "
				    "(%zu of %zu records stored, %s)", dir,
				    b[stored].id, done, n + nthere, said);
			if (r == AR_SP_GONE)
				ar_die(AR_EX_CANTCREAT, "%s: id %s exists already; "
				    "nothing stored", dir, b[stored].id);
			errno = e;
			if (done)
				ar_die(ar_errno_exit(e), "%s: cannot store %s (%zu "
				    "of %zu records stored, %s):", dir,
				    b[stored].id, done, n + nthere, said);
			ar_die(ar_errno_exit(e), "%s: cannot store %s:", dir,
			    b[stored].id);
		}
		for (j = 0; j < m; j++) {
			free((char *)b[j].data);
			json_decref(recs[i + j]);
		}
		free(b);
		i += m;
	}
	free(recs);
	free(prio);
	if (in != stdin)
		fclose(in);
	errno = 0;
	if (fclose(stdout) != 0 && !out_err)
		out_err = errno ? errno : EIO;
	stdout_closed = 1;
	if (out_err)
		/* The work is done: a retry must not be told otherwise. */
		ar_warn("%s: all %zu records stored (%zu by an earlier try); "
		    "<stdout>: %s: their ids not all printed", dir,
		    n + nthere, nthere, strerror(out_err));
	return AR_EX_OK;
}

/* A record, or NULL with *err: the errno of a read that failed (ENOENT:
 * the record moved meanwhile, said by no warning) or 0 for a record
 * that is not JSON. */
static json_t *
load_record(const char *path, int *err)
{
	struct ar_buf b = {0};
	char why[256];
	json_t *j;

	*err = 0;
	if (ar_readfile(path, &b, AR_LINE_MAX + 1) < 0) {
		*err = errno;
		if (errno != ENOENT)
			ar_warn("%s:", path);
		ar_buf_free(&b);
		return NULL;
	}
	j = ar_json_parse(b.p, b.len, why, sizeof why);
	if (!j)
		ar_warn("%s: %s", path, why);
	ar_buf_free(&b);
	return j;
}

static void
fmt_epoch(char *out, size_t n, long long t)
{
	struct timespec ts = { (time_t)t, 0 };

	if (t)
		ar_time_fmt(out, n, ts, 0);
	else
		snprintf(out, n, "%s", "");
}

/* Rows for ls and claim -f tsv: fixed columns, then every other field of
 * the records, sorted by name. */
struct row {
	const char *state;
	struct ar_lease l;
	char *why;
	json_t *rec;
};

static void
print_rows(struct row *rows, size_t n, int f)
{
	static const char *fixed[] = { "state", "id", "priority", "holder",
	    "expires", "why" };
	char **cols = NULL, exp[32];
	size_t ncols = 0, i, j, k;
	struct ar_flat *fl = ar_xmalloc((n ? n : 1) * sizeof *fl);

	if (f == FMT_JSONL) {
		for (i = 0; i < n; i++) {
			json_t *o = json_object();
			char *s;

			json_object_set_new(o, "state", json_string(rows[i].state));
			if (rows[i].l.expires) {
				fmt_epoch(exp, sizeof exp, rows[i].l.expires);
				json_object_set_new(o, "lease", json_pack(
				    "{s:s, s:s}", "holder", rows[i].l.holder,
				    "expires", exp));
			}
			if (rows[i].why)
				json_object_set_new(o, "why",
				    json_string(rows[i].why));
			json_object_set(o, "record", rows[i].rec);
			s = ar_json_line(o);
			puts(s);
			free(s);
			json_decref(o);
		}
		free(fl);
		return;
	}
	for (i = 0; i < n; i++) {
		ar_flatten(rows[i].rec, &fl[i]);
		/* A record's own field named like a fixed column is shown as
		 * record.NAME, so no column name appears twice. */
		for (j = 0; j < fl[i].n; j++)
			for (k = 0; k < 6; k++)
				if (k != 1 && k != 2 &&
				    strcmp(fl[i].kv[j].k, fixed[k]) == 0) {
					char *r = ar_xasprintf("record.%s",
					    fl[i].kv[j].k);

					free(fl[i].kv[j].k);
					fl[i].kv[j].k = r;
				}
		ar_sort(fl[i].kv, fl[i].n, sizeof *fl[i].kv, cmp_kv);
		cols = ar_xrealloc(cols, (ncols + fl[i].n + 1) * sizeof *cols);
		for (j = 0; j < fl[i].n; j++)
			if (strcmp(fl[i].kv[j].k, "id") != 0 &&
			    strcmp(fl[i].kv[j].k, "priority") != 0)
				cols[ncols++] = fl[i].kv[j].k;
		if (ncols > 1) {
			ar_sort(cols, ncols, sizeof *cols, cmp_str);
			for (k = j = 0; k < ncols; k++)
				if (j == 0 || strcmp(cols[k], cols[j - 1]) != 0)
					cols[j++] = cols[k];
			ncols = j;
		}
	}
	for (i = 0; i < 6; i++)
		printf("%s%s", i ? "\t" : "", fixed[i]);
	for (k = 0; k < ncols; k++) {
		putchar('\t');
		ar_tsv_put(stdout, cols[k]);
	}
	putchar('\n');
	for (i = 0; i < n; i++) {
		fmt_epoch(exp, sizeof exp, rows[i].l.expires);
		printf("%s\t%s\t%ld\t%s\t%s\t", rows[i].state, rows[i].l.id,
		    rows[i].l.prio, rows[i].l.holder, exp);
		ar_tsv_put(stdout, rows[i].why ? rows[i].why : "");
		for (k = 0, j = 0; k < ncols; k++) {
			putchar('\t');
			while (j < fl[i].n && strcmp(fl[i].kv[j].k, cols[k]) < 0)
				j++;
			if (j < fl[i].n && strcmp(fl[i].kv[j].k, cols[k]) == 0)
				ar_tsv_put(stdout, fl[i].kv[j].v);
		}
		putchar('\n');
	}
	free(cols);
	for (i = 0; i < n; i++)
		ar_flat_free(&fl[i]);
	free(fl);
}

static int
cmd_claim(const char *dir)
{
	struct row *rows = ar_xmalloc((size_t)count * sizeof *rows);
	struct ar_claimer cl = {0};
	size_t n = 0, i;
	long k;
	int lerr;

	open_spool(dir);
	for (k = 0; k < count; ) {
		struct ar_lease l;
		char lname[3 * AR_ID_MAX], *p;
		long long exp = (long long)time(NULL) + lease_s;
		int r = count == 1 ? ar_spool_claim(dir, holder, exp, &l) :
		    ar_spool_claim_next(dir, &cl, holder, exp, &l);
		json_t *rec;

		if (r == AR_SP_GONE)
			break;
		if (r != AR_SP_OK)
			ar_die(ar_errno_exit(errno), "%s: claim:", dir);
		ar_spool_lease_name(lname, sizeof lname, &l);
		p = ar_spool_path(dir, "cur", lname);
		rec = load_record(p, &lerr);
		free(p);
		/* Reaped from under us already: nothing to set aside. */
		if (!rec && lerr == ENOENT)
			continue;
		if (!rec) {
			/* Unreadable: set it aside, say why, and claim the
			 * next one instead. */
			char *w = ar_spool_path(dir, "why", l.name);

			if (ar_write_atomic(w, "unreadable record\n", 18,
			    0644) < 0)
				ar_die(ar_errno_exit(errno), "%s:", w);
			free(w);
			if (ar_spool_finish(dir, &l, "failed") == AR_SP_ERR)
				ar_die(ar_errno_exit(errno), "%s: cannot set "
				    "aside %s:", dir, l.id);
			continue;
		}
		rows[n].state = "cur";
		rows[n].l = l;
		rows[n].why = NULL;
		rows[n].rec = rec;
		n++;
		k++;
	}
	ar_claimer_free(&cl);
	/* A claim nobody saw is given back: with a closed stdout (or a
	 * reader gone) the records return to new/ at once, not when their
	 * leases expire. */
	signal(SIGPIPE, SIG_IGN);
	if (n)
		print_rows(rows, n, fmt == FMT_TSV ? FMT_TSV : FMT_JSONL);
	errno = 0;
	if (n && (fflush(stdout) != 0 || ferror(stdout))) {
		int e = errno ? errno : EIO;

		for (i = 0; i < n; i++)
			if (ar_spool_finish(dir, &rows[i].l, "new") != AR_SP_OK)
				ar_warn("%s: %s: cannot give back:", dir,
				    rows[i].l.id);
		errno = e;
		ar_die(AR_EX_IO, "<stdout>: write failed: %s; the %zu "
		    "record%s claimed given back", strerror(e), n,
		    n == 1 ? "" : "s");
	}
	for (i = 0; i < n; i++)
		json_decref(rows[i].rec);
	free(rows);
	return n ? AR_EX_OK : AR_EX_NO;
}

static int
cmd_finish(const char *cmd, const char *dir, int argc, char **argv)
{
	int i, ret = AR_EX_OK;

	open_spool(dir);
	for (i = 0; i < argc; i++) {
		struct ar_lease l;
		int r = ar_spool_find(dir, argv[i], holder, &l);

		if (r == AR_SP_OK) {
			if (strcmp(cmd, "renew") == 0)
				r = ar_spool_renew(dir, &l,
				    (long long)time(NULL) + lease_s);
			else if (strcmp(cmd, "fail") == 0) {
				char *w = ar_spool_path(dir, "why", l.name);
				const char *txt = reason ? reason : "";
				char *line = ar_xasprintf("%s\n", txt);

				if (ar_write_atomic(w, line, strlen(line),
				    0644) < 0)
					ar_die(ar_errno_exit(errno), "%s:", w);
				r = ar_spool_finish(dir, &l, "failed");
				if (r != AR_SP_OK)
					unlink(w);
				free(w);
				free(line);
			} else
				r = ar_spool_finish(dir, &l,
				    strcmp(cmd, "done") == 0 ? "done" : "new");
		}
		if (r == AR_SP_GONE) {
			ar_warn("%s: %s: no lease held by %s (expired and "
			    "reaped, or never claimed)", dir, argv[i], holder);
			ret = AR_EX_TEMPFAIL;
		} else if (r != AR_SP_OK) {
			ar_warn("%s: %s:", dir, argv[i]);
			ret = ar_errno_exit(errno);
		}
	}
	return ret;
}

static int
cmd_reap(const char *dir)
{
	size_t n;

	open_spool(dir);
	if (ar_spool_reap(dir, (long long)time(NULL), &n) != AR_SP_OK)
		ar_die(ar_errno_exit(errno), "%s: reap:", dir);
	printf("%zu\n", n);
	return AR_EX_OK;
}

static int
cmd_ls(const char *dir)
{
	const char *subs[] = { "new", "cur", "done", "failed" };
	struct row *rows = NULL;
	size_t n = 0, cap = 0, i, j, unreadable = 0, unread_io = 0;
	int lerr;

	open_spool(dir);
	if (state_filter) {
		for (i = 0; i < 4; i++)
			if (strcmp(state_filter, subs[i]) == 0)
				break;
		if (i == 4)
			ar_die(AR_EX_USAGE, "-s %s: expected new, cur, done or "
			    "failed", state_filter);
	}
	for (i = 0; i < 4; i++) {
		char **names;
		size_t m;

		if (state_filter && strcmp(state_filter, subs[i]) != 0)
			continue;
		if (ar_spool_list(dir, subs[i], &names, &m) < 0)
			ar_die(AR_EX_IO, "%s/%s:", dir, subs[i]);
		for (j = 0; j < m; j++) {
			struct ar_lease l;
			char *p;
			json_t *rec;

			if (ar_spool_parse(names[j], &l) < 0)
				continue;
			p = ar_spool_path(dir, subs[i], names[j]);
			rec = load_record(p, &lerr);
			free(p);
			/* Claimed, finished or reaped since it was listed:
			 * not unreadable, only elsewhere now. */
			if (!rec && lerr == ENOENT)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				rows = ar_xrealloc(rows, cap * sizeof *rows);
			}
			rows[n].state = subs[i];
			rows[n].l = l;
			rows[n].why = NULL;
			if (!rec) {
				/* Listed, not hidden: what the name says, and
				 * why the record cannot be shown. */
				rec = json_pack("{s:s}", "id", l.id);
				rows[n].why = ar_xstrdup("unreadable record");
				/* One already set aside in failed/ is known;
				 * elsewhere it is news. */
				if (strcmp(subs[i], "failed") != 0) {
					unreadable++;
					/* Not malformed: it cannot be read
					 * (too large is malformed). */
					if (lerr && lerr != EFBIG)
						unread_io++;
				}
			}
			rows[n].rec = rec;
			if (!rows[n].why && strcmp(subs[i], "failed") == 0) {
				struct ar_buf b = {0};

				p = ar_spool_path(dir, "why", l.name);
				if (ar_readfile(p, &b, 65536) == 0) {
					if (b.len && b.p[b.len - 1] == '\n')
						b.p[--b.len] = '\0';
					rows[n].why = b.p;
				}
				free(p);
			}
			n++;
		}
		ar_spool_free_list(names, m);
	}
	print_rows(rows, n, fmt == FMT_JSONL ? FMT_JSONL : FMT_TSV);
	for (i = 0; i < n; i++) {
		json_decref(rows[i].rec);
		free(rows[i].why);
	}
	free(rows);
	/* Listed, but a record that cannot be read is a fault to report:
	 * 66 when its file cannot be read, 65 when it is malformed. */
	return unread_io ? AR_EX_NOINPUT : unreadable ? AR_EX_DATA : AR_EX_OK;
}

int
main(int argc, char **argv)
{
	static const char *const subs[] = { "put", "claim", "renew", "done",
		"fail", "release", "reap", "ls", "init", NULL };
	const char *cmd, *dir;
	int c, r;

	ar_std_args(argc, argv, usage);
	cmd = ar_subcommand(&argc, &argv, usage);
	/* Named, as ar-campaign and ar-run name theirs; not only the usage. */
	for (c = 0; subs[c] && strcmp(cmd, subs[c]) != 0; c++)
		;
	if (!subs[c]) {
		ar_warn("%s: unknown subcommand (put, claim, renew, "
		    "done, fail, release, reap, ls or init)", cmd);
		ar_usage(usage);
	}
	holder = default_holder();
	while ((c = getopt(argc, argv, "f:H:k:l:n:p:r:s:")) != -1) {
		switch (c) {
		case 'f': fmt = parse_fmt(optarg); break;
		case 'H': holder = optarg; break;
		case 'k': put_key = optarg; break;
		case 'l': lease_s = ar_opt_long("-l", optarg, 1, 365LL * 86400); break;
		case 'n': count = (long)ar_opt_long("-n", optarg, 1, 1000000); break;
		case 'p': prio_default = (long)ar_opt_long("-p", optarg, -999999, 999999); break;
		case 'r': reason = optarg; break;
		case 's': state_filter = optarg; break;
		default: ar_usage(usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (!ar_id_valid(holder))
		ar_die(AR_EX_USAGE, "holder '%s': expected 1 to %d of "
		    "[A-Za-z0-9._-]", holder, AR_ID_MAX);
	/* Room for the "-NNNNNN" that numbers a record. */
	if (put_key && (!ar_id_valid(put_key) || strlen(put_key) >
	    AR_ID_MAX - 7))
		ar_die(AR_EX_USAGE, "-k %s: expected 1 to %d of "
		    "[A-Za-z0-9._-]", put_key, AR_ID_MAX - 7);
	if (argc < 1)
		ar_usage(usage);
	dir = argv[0];
	if (strcmp(cmd, "put") == 0 && argc <= 2)
		r = cmd_put(dir, argc == 2 ? argv[1] : NULL);
	else if (strcmp(cmd, "claim") == 0 && argc == 1)
		r = cmd_claim(dir);
	else if ((strcmp(cmd, "done") == 0 || strcmp(cmd, "fail") == 0 ||
	    strcmp(cmd, "release") == 0 || strcmp(cmd, "renew") == 0) &&
	    argc >= 2)
		r = cmd_finish(cmd, dir, argc - 1, argv + 1);
	else if (strcmp(cmd, "reap") == 0 && argc == 1)
		r = cmd_reap(dir);
	else if (strcmp(cmd, "ls") == 0 && argc == 1)
		r = cmd_ls(dir);
	else if (strcmp(cmd, "init") == 0 && argc == 1) {
		if (ar_spool_init(dir) < 0)
			ar_die(ar_errno_exit(errno), "%s:", dir);
		r = AR_EX_OK;
	} else
		ar_usage(usage);
	if (!stdout_closed)
		ar_fshut(stdout, "<stdout>");
	return r;
}
