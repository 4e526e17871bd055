/* export.c: ar-ledger export: the rows as TSV (the union of their
 * columns), as JSON Lines, or as a karpathy/autoresearch results.tsv;
 * with -V, only the rows verify finds good. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "flat.h"
#include "io.h"
#include "json.h"
#include "known.h"
#include "tsv.h"
#include "ar-ledger.h"
#include "imports.h"

/* What an export writes, and how far it got. */
struct exporter {
	int fmt, with_unsigned;
	struct scanner *v;   /* what -V found, or NULL */
	char **cols;         /* output columns after id and signed */
	size_t ncols;
	char **map_hdr;      /* the segment header the map belongs to */
	const char *map_src;
	long *map;           /* output column -> segment column, or -1 */
	size_t left_unsigned, rows, other_metric, other_workload;
	const char *workload; /* -w, or NULL */
	char *metric;        /* results.tsv's metric */
	const char *want;    /* -m, or NULL */
	char **hdr;          /* results.tsv's columns */
	size_t nhdr;
	int role[AR_IMPORT_NCOL]; /* hdr's commit, status...: ar_import_roles */
	int header_done;
	long after;          /* -A: the last segment left out; -1 none */
	char segcol[32];     /* "\tNNNNNNNN" of map_src's segment */
	/* The loose rows of the frozen view as gather_cols read them, in
	 * order, for emit: their json, its fields, and the bytes held. */
	const char **lj;
	struct cflat *lf;
	size_t nl, capl, lnext, lbytes;
};

/* At most this much JSON a loose row's fields are kept for. */
#define LOOSE_KEEP ((size_t)64 << 20)

/* -c: only the columns named, of those the rows have (id, signed,
 * verified and segment are always there). A reader that needs a few
 * columns of a million rows reads a third of the bytes. */
static void
keep_only(struct exporter *e, const char *only)
{
	char *list = ar_xstrdup(only), *name, *save = NULL;
	size_t k, j;
	unsigned char *want = ar_xcalloc(e->ncols + 1, 1);

	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL,
	    ",", &save)) {
		/* No column at all (an empty ledger): nothing to find. */
		char **hit = e->ncols ? bsearch(&name, e->cols, e->ncols,
		    sizeof *e->cols, cmp_str) : NULL;

		if (hit)
			want[hit - e->cols] = 1;
	}
	for (k = j = 0; k < e->ncols; k++)
		if (want[k])
			e->cols[j++] = e->cols[k];
		else
			free(e->cols[k]);
	e->ncols = j;
	free(want);
	free(list);
}

/* Rows -V found bad: by where they are, or by an id stored twice. */
static int
is_bad(struct exporter *e, const struct ar_row *r, const char *id)
{
	char *w;
	int bad;

	if (!e->v)
		return 0;
	if (e->v->nbadids && bsearch(&id, e->v->badids, e->v->nbadids,
	    sizeof *e->v->badids, cmp_str))
		return 1;
	if (!e->v->nbadwhere)
		return 0;
	w = where_of(r);
	bad = bsearch(&w, e->v->badwhere, e->v->nbadwhere,
	    sizeof *e->v->badwhere, cmp_str) != NULL;
	free(w);
	return bad;
}

static void
add_cols(struct exporter *e, char **names, size_t n)
{
	size_t i, j, k;

	size_t had = e->ncols;

	e->cols = ar_xrealloc(e->cols, (e->ncols + n + 1) * sizeof *e->cols);
	for (i = 0; i < n; i++)
		if (strcmp(names[i], "id") != 0 && strcmp(names[i], "signed") != 0
		    && strcmp(names[i], "json") != 0 && !(had && bsearch(
		    &names[i], e->cols, had, sizeof *e->cols, cmp_str)))
			e->cols[e->ncols++] = ar_xstrdup(names[i]);
	/* Most rows name no column that an earlier row did not. */
	if (e->ncols == had)
		return;
	ar_sort(e->cols, e->ncols, sizeof *e->cols, cmp_str);
	for (k = j = 0; k < e->ncols; k++) {
		if (j > 0 && strcmp(e->cols[k], e->cols[j - 1]) == 0) {
			free(e->cols[k]);
			continue;
		}
		e->cols[j++] = e->cols[k];
	}
	e->ncols = j;
}

/* First pass: the union of every row's columns. */
static int
gather_cols(const struct ar_row *r, void *arg)
{
	struct exporter *e = arg;

	/* A known row's columns are its reader's. */
	if (before_cut(r, e->after) || r->known)
		return 0;
	if (r->lineno) {
		if (r->hdr && (r->hdr != e->map_hdr || r->src != e->map_src)) {
			add_cols(e, r->hdr, r->ncol);
			e->map_hdr = r->hdr;
			e->map_src = r->src;
		}
		/* A segment's columns are its header's: its other rows
		 * need not be read for them. */
		return r->hdr ? AR_ROW_NEXT_SEGMENT : 0;
	}
	if (r->json) {
		char err[256];
		json_t *o;
		struct ar_flat f;
		struct cflat c;
		char **names;
		size_t i;

		/* A stored row is canonical JSON, which canon.c reads to the
		 * names jansson and ar_flatten would give. */
		if (canon_flat(r->json, r->jsonlen, &c) == 0) {
			names = ar_xmalloc((c.f.n + 1) * sizeof *names);
			for (i = 0; i < c.f.n; i++)
				names[i] = c.f.kv[i].k;
			add_cols(e, names, c.f.n);
			free(names);
			/* Kept for emit, which would read the same bytes
			 * again. */
			if (r->held && e->lbytes + r->jsonlen <= LOOSE_KEEP) {
				if (e->nl == e->capl) {
					e->capl = e->capl ? 2 * e->capl : 64;
					e->lj = ar_xrealloc(e->lj, e->capl *
					    sizeof *e->lj);
					e->lf = ar_xrealloc(e->lf, e->capl *
					    sizeof *e->lf);
				}
				e->lj[e->nl] = r->json;
				e->lf[e->nl++] = c;
				e->lbytes += r->jsonlen;
				return 0;
			}
			ar_flat_free(&c.f);
			return 0;
		}
		ar_flat_free(&c.f);
		if (!(o = ar_json_parse(r->json, r->jsonlen, err, sizeof err)))
			return 0;
		ar_flatten(o, &f);
		names = ar_xmalloc((f.n + 1) * sizeof *names);
		for (i = 0; i < f.n; i++)
			names[i] = f.kv[i].k;
		add_cols(e, names, f.n);
		free(names);
		ar_flat_free(&f);
		json_decref(o);
	}
	return 0;
}

static void
put_tsv_header(struct exporter *e)
{
	size_t k;

	/* With -V every row exported was checked: the column says so to
	 * readers that take only verified rows (ar-curve). */
	fputs(e->v ? "id\tsigned\tverified" : "id\tsigned", stdout);
	if (e->after >= 0)
		fputs("\tsegment", stdout);
	for (k = 0; k < e->ncols; k++) {
		putchar('\t');
		ar_tsv_put(stdout, e->cols[k]);
	}
	putchar('\n');
}

/* A results.tsv status: an imported row's as its log wrote it; a
 * result's by its verdict (ar-ledger(1) says how). */
static const char *
status_of(json_t *o)
{
	const char *st = json_string_value(json_object_get(o, "status"));
	const char *verdict = json_string_value(json_object_get(o,
	    "verdict"));

	if (st)
		return st;
	if (json_object_get(o, "source") && verdict)
		return verdict;
	if (json_is_true(json_object_get(o, "aa")))
		return "aa";
	if (!verdict || strcmp(verdict, "crash") == 0 ||
	    strcmp(verdict, "timeout") == 0)
		return "crash";
	if (strcmp(verdict, "keep") == 0 || strcmp(verdict, "invalid") == 0)
		return verdict;
	return "discard";
}

/* A metric's median, found by name, not by dotted path: a metric's
 * name may hold a '.'. */
static json_t *
median(json_t *o, const char *metric)
{
	return json_object_get(json_object_get(json_object_get(o, "metrics"),
	    metric), "median");
}

/* results.tsv has no escapes: tabs and newlines become spaces. */
static void
put_text(const char *s)
{
	for (; s && *s; s++)
		putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* The header: an imported results.tsv's own columns, else
 * karpathy/autoresearch's. */
static void
autoresearch_header(struct exporter *e, json_t *o, const char *metric)
{
	json_t *cols = json_object_get(o, "columns");
	size_t i, n = json_array_size(cols);

	for (i = 0; i < n; i++)
		if (!json_is_string(json_array_get(cols, i)))
			n = 0;
	e->metric = ar_xstrdup(metric);
	if (n == 0) {
		static const char *const std[5] = { "commit", NULL,
		    "memory_gb", "status", "description" };

		e->hdr = ar_xcalloc(5, sizeof *e->hdr);
		for (i = 0; i < 5; i++)
			e->hdr[i] = ar_xstrdup(std[i] ? std[i] : metric);
		e->nhdr = 5;
	} else {
		e->hdr = ar_xcalloc(n, sizeof *e->hdr);
		for (i = 0; i < n; i++)
			e->hdr[i] = ar_xstrdup(json_string_value(
			    json_array_get(cols, i)));
		e->nhdr = n;
	}
	/* An imported log's columns are found as its import found them:
	 * decision for status, git_commit for commit. */
	ar_import_roles(e->hdr, e->nhdr, e->role);
	for (i = 0; i < e->nhdr; i++)
		printf("%s%s", i ? "\t" : "", e->hdr[i]);
	putchar('\n');
	e->header_done = 1;
}

static void
put_autoresearch(struct exporter *e, json_t *o)
{
	const char *commit = ar_json_str(o, "method.commit");
	const char *metric = json_string_value(json_object_get(o, "metric"));
	const char *st = status_of(o);
	const char *desc = json_string_value(json_object_get(o, "description"));
	const char *verdict = json_string_value(json_object_get(o, "verdict"));
	int imported = json_object_get(o, "source") != NULL, crash;
	json_t *v, *mem, *x = json_object_get(o, "extra");
	size_t i;

	if (e->workload) {
		const char *w = json_string_value(json_object_get(o,
		    "workload"));

		if (!w || strcmp(w, e->workload) != 0) {
			e->other_workload++;
			e->rows--;
			return;
		}
	}
	if (!metric)
		metric = "val_bpb";
	/* results.tsv has one metric column: -m's, else the first row's. */
	if ((e->want && strcmp(metric, e->want)) ||
	    (e->header_done && strcmp(metric, e->metric) != 0)) {
		e->other_metric++;
		e->rows--;
		return;
	}
	crash = !verdict || strcmp(verdict, "crash") == 0 ||
	    strcmp(verdict, "timeout") == 0;
	v = median(o, metric);
	/* The memory measured, or else the run's max RSS. */
	if (!json_is_number(mem = median(o, "memory_gb")) &&
	    json_is_number(mem = median(o, "maxrss_kb")))
		mem = json_real(json_number_value(mem) / 1048576);
	else
		json_incref(mem);
	if (!desc)
		desc = json_string_value(json_object_get(o, "why"));
	if (!e->header_done)
		autoresearch_header(e, o, metric);
	for (i = 0; i < e->nhdr; i++) {
		const char *c = e->hdr[i];
		/* A metric or memory_gb the log wrote as a word (NA,
		 * DIVERGED) is an extra of the column's name. */
		const char *text = json_string_value(json_object_get(x, c));

		if (i)
			putchar('\t');
		if ((int)i == e->role[AR_IMPORT_COL_COMMIT]) {
			if (imported)
				put_text(commit);
			else
				printf("%.7s", commit ? commit : "0000000");
		} else if (strcmp(c, metric) == 0) {
			/* karpathy/autoresearch writes 0 for a crash. */
			if (!crash && !json_is_number(v) && text)
				put_text(text);
			else
				printf("%.6f", crash || !json_is_number(v) ?
				    0.0 : json_number_value(v));
		} else if ((int)i == e->role[AR_IMPORT_COL_MEM]) {
			if (!json_is_number(mem) && text)
				put_text(text);
			else
				printf("%.1f", json_is_number(mem) ?
				    json_number_value(mem) : 0.0);
		} else if ((int)i == e->role[AR_IMPORT_COL_STATUS])
			put_text(st);
		else if ((int)i == e->role[AR_IMPORT_COL_DESC])
			put_text(desc);
		else
			put_text(text);
	}
	putchar('\n');
	json_decref(mem);
}

/* A loose result's TSV line from its flat fields: a real that canon.c
 * kept as a number (v NULL) is written as ar_flatten writes one. */
static void
put_loose_tsv(const struct exporter *e, const char *id, int is_signed,
    const struct ar_flat *f)
{
	size_t j = 0, k;

	fputs(id, stdout);
	fputs(is_signed ? "\tyes" : "\tno", stdout);
	if (e->v)
		fputs(is_signed ? "\tyes" : "\tno", stdout);
	/* A loose result is in no segment yet. */
	if (e->after >= 0)
		putchar('\t');
	for (k = 0; k < e->ncols; k++) {
		putchar('\t');
		while (j < f->n && strcmp(f->kv[j].k, e->cols[k]) < 0)
			j++;
		if (j < f->n && strcmp(f->kv[j].k, e->cols[k]) == 0) {
			char num[64];
			const char *v = f->kv[j].v;

			if (!v) {
				ar_fmt_double(num, sizeof num, f->kv[j].num);
				v = num;
			}
			ar_tsv_put(stdout, v);
		}
	}
	putchar('\n');
}

static int
emit(const struct ar_row *r, void *arg)
{
	struct exporter *e = arg;
	const char *id;
	int is_signed;
	size_t k;

	if (before_cut(r, e->after))
		return 0;
	if (r->known) {
		char kid[AR_ID_MAX + 1];

		/* Held by the reader (-K): its id, "known" for signed, and
		 * every other column empty. With -V it is a signed result
		 * the loose seal lists, and still good. */
		row_fileid(r, kid);
		if (is_bad(e, r, kid))
			return 0;
		e->rows++;
		fputs(kid, stdout);
		fputs("\tknown", stdout);
		if (e->v)
			fputs("\tyes", stdout);
		if (e->after >= 0)
			putchar('\t');
		for (k = 0; k < e->ncols; k++)
			putchar('\t');
		putchar('\n');
		return 0;
	}
	if (r->bad) {
		char *w = where_of(r);

		ar_warn("%s: left out: %s", w, r->bad);
		free(w);
		return 0;
	}
	if (r->field && e->fmt == F_TSV) {
		/* The fast path: a segment already holds the columns. */
		id = r->field[0];
		is_signed = strcmp(r->field[1], "yes") == 0;
		if (is_bad(e, r, id))
			return 0;
		if (!is_signed && !e->with_unsigned) {
			e->left_unsigned++;
			return 0;
		}
		if (r->hdr != e->map_hdr || r->src != e->map_src) {
			size_t x = 2;

			e->map = ar_xrealloc(e->map, (e->ncols + 1) *
			    sizeof *e->map);
			/* Both lists are sorted; the segment's columns sit
			 * between id, signed and json. */
			for (k = 0; k < e->ncols; k++) {
				while (x + 1 < r->ncol && strcmp(r->hdr[x],
				    e->cols[k]) < 0)
					x++;
				e->map[k] = x + 1 < r->ncol && strcmp(r->hdr[x],
				    e->cols[k]) == 0 ? (long)x : -1;
			}
			e->map_hdr = r->hdr;
			e->map_src = r->src;
			/* The segment column, once a segment, not a printf a
			 * row. */
			snprintf(e->segcol, sizeof e->segcol, "\t%08lu",
			    ar_ledger_seg_number(r->src));
		}
		fputs(id, stdout);
		fputs(is_signed ? "\tyes" : "\tno", stdout);
		if (e->v)
			fputs(is_signed ? "\tyes" : "\tno", stdout);
		if (e->after >= 0)
			fputs(e->segcol, stdout);
		for (k = 0; k < e->ncols; k++) {
			putchar_unlocked('\t');
			/* Fields lie one after the other in the line, each
			 * ended by the NUL that replaced its tab, and json is
			 * last: a field's length is the distance to the next. */
			if (e->map[k] >= 0)
				fwrite_unlocked(r->field[e->map[k]], 1,
				    (size_t)(r->field[e->map[k] + 1] -
				    r->field[e->map[k]]) - 1, stdout);
		}
		putchar_unlocked('\n');
		e->rows++;
		return 0;
	}
	if (r->field && e->fmt == F_JSONL) {
		/* JSON Lines from a segment: the row is printed as it is
		 * stored, once canon.c has read it (what it reads, jansson
		 * would); what it does not read, jansson reads below. */
		struct cflat c;

		if (canon_flat(r->json, r->jsonlen, &c) == 0 &&
		    (id = cflat_str(&c, "id"))) {
			int skip;

			is_signed = c.has_sig;
			skip = is_bad(e, r, id);
			if (!skip && !is_signed && !e->with_unsigned) {
				e->left_unsigned++;
				skip = 1;
			}
			ar_flat_free(&c.f);
			if (!skip) {
				e->rows++;
				fwrite_unlocked(r->json, 1, r->jsonlen, stdout);
				putchar_unlocked('\n');
			}
			return 0;
		}
		ar_flat_free(&c.f);
	}
	if (!r->field && e->fmt == F_TSV) {
		/* A loose result as TSV: read by canon.c, the reals written
		 * as ar_flatten writes them; what it does not read, jansson
		 * reads below. */
		struct cflat c;
		int got;

		/* Read by gather_cols already: the same bytes, as the
		 * frozen view holds them. */
		if (r->held && e->lnext < e->nl && e->lj[e->lnext] == r->json) {
			c = e->lf[e->lnext];
			memset(&e->lf[e->lnext++], 0, sizeof c);
			got = 0;
		} else
			got = canon_flat(r->json, r->jsonlen, &c);
		if (got == 0 && (id = cflat_str(&c, "id"))) {
			is_signed = c.has_sig;
			if (is_bad(e, r, id)) {
				ar_flat_free(&c.f);
				return 0;
			}
			if (!is_signed && !e->with_unsigned) {
				e->left_unsigned++;
				ar_flat_free(&c.f);
				return 0;
			}
			e->rows++;
			put_loose_tsv(e, id, is_signed, &c.f);
			ar_flat_free(&c.f);
			return 0;
		}
		ar_flat_free(&c.f);
	}
	{
		char err[256];
		json_t *o = ar_json_parse(r->json, r->jsonlen, err, sizeof err);
		char *w;

		if (!o || !json_is_object(o) || !(id = json_string_value(
		    json_object_get(o, "id")))) {
			w = where_of(r);
			ar_warn("%s: left out: %s", w, o ? "no id" : err);
			free(w);
			json_decref(o);
			return 0;
		}
		is_signed = json_object_get(o, "sig") != NULL;
		if (is_bad(e, r, id)) {
			json_decref(o);
			return 0;
		}
		if (!is_signed && !e->with_unsigned) {
			e->left_unsigned++;
			json_decref(o);
			return 0;
		}
		e->rows++;
		if (e->fmt == F_JSONL) {
			fwrite(r->json, 1, r->jsonlen, stdout);
			putchar('\n');
		} else if (e->fmt == F_AUTORESEARCH) {
			put_autoresearch(e, o);
		} else {
			struct ar_flat f;

			ar_flatten(o, &f);
			put_loose_tsv(e, id, is_signed, &f);
			ar_flat_free(&f);
		}
		json_decref(o);
	}
	return 0;
}

/* -K: the list, and what the freeze asks of it. */
struct knownlist {
	struct ar_known *k;
	size_t n;
	const struct lseal *seal;   /* with -V: the loose seal */
};

/* A loose result is left unread when the list names it with its file's
 * identity now, and, with -V, the loose seal lists it as signed: its
 * bytes are those the seal vouched for. */
static int
is_known(const char *id, const struct stat *st, void *arg)
{
	const struct knownlist *kl = arg;
	const struct ar_known *k = ar_known_find(kl->k, kl->n, id);
	const struct lent *e;

	if (!k || !ar_known_same(k, st))
		return 0;
	if (!kl->seal)
		return 1;
	e = looseseal_find(kl->seal, id, NULL);
	return e && !e->unsigned_;
}

static void
known_load(struct knownlist *kl, const char *path)
{
	struct ar_buf b = {0};
	char err[512];
	int std = strcmp(path, "-") == 0;

	memset(kl, 0, sizeof *kl);
	/* At most AR_LEDGER_COMPACT results are loose, of about 120
	 * bytes a line: 64 MB is far more. */
	if ((std ? ar_readfd(0, &b, (size_t)64 << 20) : ar_readfile(path, &b,
	    (size_t)64 << 20)) < 0) {
		int e = errno;

		ar_die(e == EFBIG ? AR_EX_DATA : ar_errno_exit(e), "-K %s: %s",
		    std ? "<stdin>" : path, e == EFBIG ? "over 64 MB" :
		    strerror(e));
	}
	if (ar_known_parse(b.p ? b.p : "", b.len, &kl->k, &kl->n, err,
	    sizeof err) < 0)
		ar_die(AR_EX_DATA, "-K %s: %s", std ? "<stdin>" : path, err);
	ar_buf_free(&b);
}

int
cmd_export(struct lctx *cx, int fmt, int with_unsigned, int verify,
    long after, const char *metric, const char *workload, const char *only,
    const char *known)
{
	struct knownlist kl;
	struct exporter e;
	struct scanner s;
	char err[1024];
	size_t k;
	int ret = AR_EX_OK;
	unsigned long cut;

	/* Writes of a megabyte, not of the pipe's 4 KiB block: an export
	 * of a million rows is hundreds of megabytes. */
	setvbuf(stdout, NULL, _IOFBF, (size_t)1 << 20);
	memset(&e, 0, sizeof e);
	memset(&s, 0, sizeof s);
	e.fmt = fmt;
	e.with_unsigned = with_unsigned;
	e.after = after;
	e.want = metric;
	e.workload = workload;
	s.after = after;
	cut = after > 0 ? (unsigned long)after : 0;
	memset(&kl, 0, sizeof kl);
	if (known) {
		known_load(&kl, known);
		if (verify) {
			looseseal_load(cx, &s.loose);
			s.loose_loaded = 1;
			kl.seal = &s.loose;
		}
	}
	/* Its passes (the check, the columns, the rows) read one view:
	 * a row the check did not see is not written, though an append or
	 * a compaction runs meanwhile, and a loose result is read once. */
	/* With -A, each listed result is vouched for up to the cut: its
	 * reader folded it when it was in none of those segments. */
	if (ar_ledger_freeze_known(&cx->led, known ? is_known : NULL, &kl,
	    after > 0 ? (unsigned long)after : 0, err, sizeof err) != 0)
		ar_die(scan_exit(errno), "%s", err);
	if (verify) {
		cx->mc_keep = 1;
		s.trust_seals = 1;
		verify_all(cx, &s, 0);
		mcache_save(cx);
		if (s.bad) {
			ar_warn("%zu problem%s found; bad rows left out "
			    "(ar-ledger verify names them)", s.bad,
			    s.bad == 1 ? "" : "s");
			ret = AR_EX_NO;
		}
		e.v = &s;
	}
	if (fmt == F_TSV) {
		if (ar_ledger_scan_after(&cx->led, cut, gather_cols, &e, err,
		    sizeof err) != 0)
			ar_die(scan_exit(errno), "%s", err);
		e.map_hdr = NULL;
		e.map_src = NULL;
		if (only)
			keep_only(&e, only);
		put_tsv_header(&e);
	}
	if (ar_ledger_scan_after(&cx->led, cut, emit, &e, err, sizeof err) != 0)
		ar_die(scan_exit(errno), "%s", err);
	if (fmt == F_AUTORESEARCH && !e.header_done)
		printf("commit\t%s\tmemory_gb\tstatus\tdescription\n",
		    metric ? metric : "val_bpb");
	if (e.other_workload)
		ar_warn("%zu rows of other workloads than %s left out (-w)",
		    e.other_workload, workload);
	if (e.other_metric)
		ar_warn("%zu rows of another metric than %s left out: "
		    "results.tsv holds one metric", e.other_metric,
		    e.metric ? e.metric : metric);
	free(e.metric);
	for (k = 0; k < e.nhdr; k++)
		free(e.hdr[k]);
	free(e.hdr);
	if (e.left_unsigned)
		ar_warn("%zu unsigned (imported) rows left out; -u includes "
		    "them", e.left_unsigned);
	for (k = 0; k < e.ncols; k++)
		free(e.cols[k]);
	free(e.cols);
	free(e.map);
	for (k = 0; k < e.nl; k++)
		ar_flat_free(&e.lf[k].f);
	free(e.lf);
	free(e.lj);
	free(kl.k);
	free_scanner(&s);
	return ret;
}
