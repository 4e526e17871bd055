/* ar-ledger: the result store of a campaign: append signed results, verify
 * every row, export them for pipes, import the logs of autoresearch and
 * pi-autoresearch (marked unsigned), compact loose results into segments. */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "campaign.h"
#include "crypto.h"
#include "err.h"
#include "flat.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "ledger.h"
#include "method.h"
#include "timefmt.h"
#include "tsv.h"

static const char usage[] =
	"append [-C campaign] [file ...]\n"
	"verify [-C campaign] [-s]\n"
	"export [-C campaign] [-f tsv|jsonl|autoresearch] [-u] [-V]\n"
	"import [-C campaign] -F autoresearch|pi file\n"
	"compact [-C campaign] [-B]";

/* Batches larger than this become one segment instead of loose files. */
#define LOOSE_MAX 16
#define BATCH 4096


static struct ar_campaign camp;
static struct ar_ledger led;

/* A segment header, shared by the jobs of its rows. */
struct hdr {
	size_t ncol;
	char **name;
};

/* One row to check. */
struct job {
	char *json;
	size_t len;
	char *where;
	char **cols;         /* a segment row's stored fields but json */
	const struct hdr *h;
	int status;          /* an ST_ value */
	int malformed;       /* not JSON, or not an object */
	int stored;          /* read from the ledger, hence canonical */
	char fileid[AR_ID_MAX + 1]; /* the id its file name or column gives */
	char id[AR_ID_MAX + 1];
	char commit[64];     /* method.commit, when a git commit id */
	char mhash[AR_HASH_HEX]; /* method.hash */
	char why[320];
};

enum { ST_OK, ST_BAD, ST_UNSIGNED };

static int
is_hex(const char *s, size_t n)
{
	return s && strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* Checks one row: JSON, id, signature, campaign, seal, method hash, and,
 * for segment rows, that the stored columns say what the JSON says. */
static void
check_job(struct job *j)
{
	char err[256];
	json_t *o = ar_json_parse(j->json, j->len, err, sizeof err);
	const char *id, *s;

	j->status = ST_BAD;
	if (!o) {
		snprintf(j->why, sizeof j->why, "%s", err);
		j->malformed = 1;
		return;
	}
	if (!json_is_object(o)) {
		snprintf(j->why, sizeof j->why, "not a JSON object");
		j->malformed = 1;
		goto out;
	}
	id = json_string_value(json_object_get(o, "id"));
	if (!id || !ar_id_valid(id)) {
		snprintf(j->why, sizeof j->why, "no valid \"id\"");
		goto out;
	}
	snprintf(j->id, sizeof j->id, "%s", id);
	if (json_object_get(o, "signed") || json_object_get(o, "json")) {
		snprintf(j->why, sizeof j->why, "reserved key \"signed\" or "
		    "\"json\"");
		goto out;
	}
	if (j->fileid[0] && strcmp(j->fileid, id) != 0) {
		snprintf(j->why, sizeof j->why, "stored under id %s, but its "
		    "\"id\" is %s", j->fileid, id);
		goto out;
	}
	if (!json_object_get(o, "sig")) {
		if (!json_is_string(json_object_get(o, "source"))) {
			snprintf(j->why, sizeof j->why, "no signature and no "
			    "\"source\" of an import");
			goto out;
		}
		j->status = ST_UNSIGNED;
	} else {
		/* Stored rows are canonical: the signature is checked on
		 * their text; other input is checked on its canonical form. */
		if (j->stored ? ar_verify_canonical(j->json, j->len, camp.pk) < 0
		    : ar_json_verify(o, camp.pk, err, sizeof err) < 0) {
			snprintf(j->why, sizeof j->why, "bad signature");
			goto out;
		}
		s = json_string_value(json_object_get(o, "campaign"));
		if (!s || strcmp(s, camp.id) != 0) {
			snprintf(j->why, sizeof j->why, "campaign '%s' is not "
			    "this campaign", s ? s : "");
			goto out;
		}
		s = json_string_value(json_object_get(o, "seal"));
		if (!camp.have_seal || !s || strcmp(s, camp.seal_hash) != 0) {
			snprintf(j->why, sizeof j->why, "seal hash does not "
			    "match this campaign's SEAL");
			goto out;
		}
		if (!is_hex(ar_json_str(o, "method.hash"), 64)) {
			snprintf(j->why, sizeof j->why, "no method hash "
			    "(method.hash: 64 hex digits)");
			goto out;
		}
		snprintf(j->mhash, sizeof j->mhash, "%s",
		    ar_json_str(o, "method.hash"));
		s = ar_json_str(o, "method.commit");
		if (s && (is_hex(s, 40) || is_hex(s, 64)))
			snprintf(j->commit, sizeof j->commit, "%s", s);
		j->status = ST_OK;
	}
	if (j->cols) {
		struct ar_flat f;
		struct ar_buf esc = {0};
		size_t k, x = 0;
		const char *bad = NULL;

		/* Columns after id and signed are sorted, like the flat
		 * fields: one merge walk. */
		ar_flatten_num(o, &f);
		for (k = 0; k + 1 < j->h->ncol && !bad; k++) {
			const char *name = j->h->name[k], *want = "";

			if (k == 0)
				want = id;
			else if (k == 1)
				want = j->status == ST_OK ? "yes" : "no";
			else {
				while (x < f.n && strcmp(f.kv[x].k, name) < 0) {
					if (strcmp(f.kv[x].k, "id") != 0)
						bad = f.kv[x].k;
					x++;
				}
				if (bad)
					break;
				if (x < f.n && strcmp(f.kv[x].k, name) == 0) {
					want = f.kv[x].v;
					if (!want) {
						/* A real: the stored text must
						 * read back as the same number. */
						double v;

						if (ar_parse_double(j->cols[k],
						    &v) < 0 || v != f.kv[x].num)
							bad = name;
						x++;
						continue;
					}
					x++;
				}
			}
			ar_buf_clear(&esc);
			ar_buf_reserve(&esc, 0);
			ar_tsv_escape(&esc, want);
			if (strcmp(esc.p, j->cols[k]) != 0)
				bad = name;
		}
		for (; !bad && x < f.n; x++)
			if (strcmp(f.kv[x].k, "id") != 0)
				bad = f.kv[x].k;
		if (bad) {
			snprintf(j->why, sizeof j->why, "stored column '%s' "
			    "does not match the signed JSON", bad);
			j->status = ST_BAD;
		}
		ar_flat_free(&f);
		ar_buf_free(&esc);
	}
out:
	json_decref(o);
}

struct slice {
	struct job *jobs;
	size_t n;
};

static void *
worker(void *arg)
{
	struct slice *s = arg;
	size_t i;

	for (i = 0; i < s->n; i++)
		check_job(&s->jobs[i]);
	return NULL;
}

static int
nthreads(void)
{
	const char *e = getenv("AR_THREADS");
	long n = e && *e ? atol(e) : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

/* Checks jobs on every core; signatures dominate the cost. */
static void
run_jobs(struct job *jobs, size_t n)
{
	int t = nthreads(), i;
	pthread_t tid[16];
	struct slice sl[16];
	size_t per, off = 0;

	if (n < 64 || t == 1) {
		for (off = 0; off < n; off++)
			check_job(&jobs[off]);
		return;
	}
	per = (n + (size_t)t - 1) / (size_t)t;
	for (i = 0; i < t; i++) {
		sl[i].jobs = jobs + off;
		sl[i].n = off + per <= n ? per : n - off;
		off += sl[i].n;
		if (pthread_create(&tid[i], NULL, worker, &sl[i]) != 0)
			ar_die(AR_EX_SOFTWARE, "cannot start a thread");
	}
	for (i = 0; i < t; i++)
		pthread_join(tid[i], NULL);
}

static void
free_jobs(struct job *jobs, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		free(jobs[i].json);
		free(jobs[i].where);
		if (jobs[i].cols) {
			for (k = 0; k + 1 < jobs[i].h->ncol; k++)
				free(jobs[i].cols[k]);
			free(jobs[i].cols);
		}
	}
}

/* ---- reading the ledger in batches of jobs ---- */

struct scanner {
	struct job *jobs;
	size_t n;
	struct hdr **hdrs;
	size_t nhdr;
	const char *last_src;
	char **last_hdr;
	void (*flush)(struct scanner *);
	/* verify */
	size_t ok, unsigned_, total;
	int strict;
	char **ids;
	size_t nids, capids;
	size_t bad;          /* problems found */
	char **badids;       /* ids stored twice */
	size_t nbadids, capbadids;
	char **badwhere;     /* where the bad rows are */
	size_t nbadwhere, capbadwhere;
	const char *seg_src;
	struct ar_buf seg_ids;
	FILE *out;           /* where bad rows are named, or NULL */
};

static const struct hdr *
hdr_for(struct scanner *s, const struct ar_row *r)
{
	struct hdr *h;
	size_t i;

	if (s->nhdr && r->hdr == s->last_hdr && r->src == s->last_src)
		return s->hdrs[s->nhdr - 1];
	h = ar_xmalloc(sizeof *h);
	h->ncol = r->ncol;
	h->name = ar_xmalloc(r->ncol * sizeof *h->name);
	for (i = 0; i < r->ncol; i++)
		h->name[i] = ar_xstrdup(r->hdr[i]);
	s->hdrs = ar_xrealloc(s->hdrs, (s->nhdr + 1) * sizeof *s->hdrs);
	s->hdrs[s->nhdr++] = h;
	s->last_hdr = r->hdr;
	s->last_src = r->src;
	return h;
}

static void
free_hdrs(struct scanner *s)
{
	size_t i, k;

	for (i = 0; i < s->nhdr; i++) {
		for (k = 0; k < s->hdrs[i]->ncol; k++)
			free(s->hdrs[i]->name[k]);
		free(s->hdrs[i]->name);
		free(s->hdrs[i]);
	}
	free(s->hdrs);
	s->hdrs = NULL;
	s->nhdr = 0;
}

static char *
where_of(const struct ar_row *r)
{
	if (r->lineno)
		return ar_xasprintf("%s:%zu", r->src, r->lineno);
	return ar_xstrdup(r->src);
}

static void report_bad(struct scanner *s, const char *where, const char *id,
    const char *why);

/* The ids of a segment must be exactly its index. */
static void
check_index(struct scanner *s)
{
	size_t i;

	if (!s->seg_src)
		return;
	for (i = 0; i < led.nseg; i++) {
		if (led.seg[i].path != s->seg_src)
			continue;
		if (led.seg[i].idxlen != s->seg_ids.len || (s->seg_ids.len &&
		    memcmp(led.seg[i].idx, s->seg_ids.p, s->seg_ids.len) != 0))
			report_bad(s, s->seg_src, "-", "index (.idx) does not "
			    "list exactly the segment's ids");
	}
	s->seg_src = NULL;
	ar_buf_clear(&s->seg_ids);
}

/* The id a row is stored under: its segment's id column, or its file
 * name without ".json". Empty when neither can be read. */
static void
row_fileid(const struct ar_row *r, char id[AR_ID_MAX + 1])
{
	const char *b;
	size_t len;

	id[0] = '\0';
	if (r->field) {
		snprintf(id, AR_ID_MAX + 1, "%s", r->field[0]);
		return;
	}
	if (r->lineno)
		return;
	b = strrchr(r->src, '/');
	b = b ? b + 1 : r->src;
	len = strlen(b);
	if (len > 5 && len - 5 <= AR_ID_MAX)
		snprintf(id, AR_ID_MAX + 1, "%.*s", (int)(len - 5), b);
}

static int
collect(const struct ar_row *r, void *arg)
{
	struct scanner *s = arg;
	struct job *j;

	if (r->src != s->seg_src && s->seg_src)
		check_index(s);
	if (r->lineno)
		s->seg_src = r->src;
	if (r->lineno && r->field) {
		ar_buf_adds(&s->seg_ids, r->field[0]);
		ar_buf_addc(&s->seg_ids, '\n');
	}
	if (r->bad) {
		char *w = where_of(r), id[AR_ID_MAX + 1];

		s->total++;
		row_fileid(r, id);
		report_bad(s, w, id[0] ? id : "-", r->bad);
		free(w);
		return 0;
	}
	j = &s->jobs[s->n++];
	memset(j, 0, sizeof *j);
	j->json = ar_xstrdup(r->json);
	j->len = r->jsonlen;
	j->where = where_of(r);
	j->stored = 1;
	row_fileid(r, j->fileid);
	if (r->field) {
		size_t k;

		j->h = hdr_for(s, r);
		j->cols = ar_xmalloc(r->ncol * sizeof *j->cols);
		for (k = 0; k + 1 < r->ncol; k++)
			j->cols[k] = ar_xstrdup(r->field[k]);
	}
	if (s->n == BATCH)
		s->flush(s);
	return 0;
}

static void
push_str(char ***v, size_t *n, size_t *cap, const char *str)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = ar_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = ar_xstrdup(str);
}

/* Names one problem. Export -V leaves out the row at where; a problem
 * of an id (stored twice) leaves out every row of that id. */
static void
report_bad(struct scanner *s, const char *where, const char *id,
    const char *why)
{
	s->bad++;
	if (s->out) {
		fprintf(s->out, "%s\t%s\t", where, id);
		ar_tsv_put(s->out, why);
		putc('\n', s->out);
	}
	push_str(&s->badwhere, &s->nbadwhere, &s->capbadwhere, where);
}

/* Methods in the campaign's methods/ repository, by commit: the hash of
 * their content, computed once per commit, or "" when the commit is not
 * there (a method given as a directory, or from elsewhere). */
struct mcache {
	char commit[64];
	char hash[AR_HASH_HEX];
};
static struct mcache *mc;
static size_t nmc, capmc;
static size_t methods_unchecked;

static const char *
method_hash(const char *commit)
{
	char *repo;
	size_t i;

	for (i = 0; i < nmc; i++)
		if (strcmp(mc[i].commit, commit) == 0)
			return mc[i].hash;
	if (nmc == capmc) {
		capmc = capmc ? capmc * 2 : 64;
		mc = ar_xrealloc(mc, capmc * sizeof *mc);
	}
	snprintf(mc[nmc].commit, sizeof mc[nmc].commit, "%s", commit);
	repo = ar_path(camp.dir, "methods");
	ar_method_hash(repo, commit, mc[nmc].hash);
	free(repo);
	return mc[nmc++].hash;
}

static int
methods_in_repo(void)
{
	char *repo = ar_path(camp.dir, "methods"), head[41];
	int r = ar_method_commit(repo, "HEAD", head) == 0;

	free(repo);
	return r;
}

static void
flush_verify(struct scanner *s)
{
	size_t i;

	run_jobs(s->jobs, s->n);
	for (i = 0; i < s->n; i++) {
		struct job *j = &s->jobs[i];

		if (j->id[0]) {
			if (s->nids == s->capids) {
				s->capids = s->capids ? s->capids * 2 : 1024;
				s->ids = ar_xrealloc(s->ids, s->capids *
				    sizeof *s->ids);
			}
			s->ids[s->nids++] = ar_xstrdup(j->id);
		}
		s->total++;
		if (j->status == ST_BAD) {
			report_bad(s, j->where, j->id[0] ? j->id : j->fileid[0] ?
			    j->fileid : "-", j->why);
			continue;
		}
		if (j->status == ST_UNSIGNED) {
			s->unsigned_++;
			if (s->strict)
				report_bad(s, j->where, j->id, "unsigned "
				    "(imported) row");
			continue;
		}
		if (j->commit[0]) {
			const char *h = method_hash(j->commit);

			if (!h[0])
				methods_unchecked++;
			else if (strcmp(h, j->mhash) != 0) {
				char why[200];

				snprintf(why, sizeof why, "method.hash is not "
				    "the hash of commit %.12s in methods/",
				    j->commit);
				report_bad(s, j->where, j->id, why);
				continue;
			}
		} else
			methods_unchecked++;
		s->ok++;
	}
	free_jobs(s->jobs, s->n);
	s->n = 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
open_all(const char *dir)
{
	char err[1024], *p;

	ar_campaign_open(&camp, dir);
	p = ar_path(dir, "ledger");
	if (ar_ledger_open(&led, p, 0, err, sizeof err) < 0)
		ar_die(AR_EX_NOINPUT, "%s", err);
	free(p);
}

/* Runs the checks over the whole ledger; prints bad rows as TSV on
 * stdout when print is set, and leaves in s, sorted, where the bad rows
 * are and which ids are stored twice. */
static void
verify_all(struct scanner *s, int print)
{
	char err[1024];
	size_t i;

	s->out = print ? stdout : NULL;
	s->jobs = ar_xmalloc(BATCH * sizeof *s->jobs);
	s->flush = flush_verify;
	if (ar_ledger_scan(&led, collect, s, err, sizeof err) != 0)
		ar_die(AR_EX_DATA, "%s", err);
	flush_verify(s);
	check_index(s);
	ar_sort(s->ids, s->nids, sizeof *s->ids, cmp_str);
	for (i = 1; i < s->nids; i++)
		if (strcmp(s->ids[i], s->ids[i - 1]) == 0 && (i == 1 ||
		    strcmp(s->ids[i], s->ids[i - 2]) != 0)) {
			report_bad(s, led.dir, s->ids[i], "the same id is "
			    "stored twice");
			push_str(&s->badids, &s->nbadids, &s->capbadids,
			    s->ids[i]);
		}
	ar_sort(s->badids, s->nbadids, sizeof *s->badids, cmp_str);
	ar_sort(s->badwhere, s->nbadwhere, sizeof *s->badwhere, cmp_str);
	free(s->jobs);
	free_hdrs(s);
}

static void
free_scanner(struct scanner *s)
{
	size_t i;

	for (i = 0; i < s->nids; i++)
		free(s->ids[i]);
	free(s->ids);
	for (i = 0; i < s->nbadids; i++)
		free(s->badids[i]);
	free(s->badids);
	for (i = 0; i < s->nbadwhere; i++)
		free(s->badwhere[i]);
	free(s->badwhere);
	ar_buf_free(&s->seg_ids);
}

static int
cmd_verify(int strict)
{
	struct scanner s;

	memset(&s, 0, sizeof s);
	s.strict = strict;
	printf("where\tid\tproblem\n");
	verify_all(&s, 1);
	ar_warn("%zu rows: %zu verified, %zu unsigned (imported); %zu "
	    "problem%s", s.total, s.ok, s.unsigned_, s.bad, s.bad == 1 ? "" :
	    "s");
	/* Said only where methods/ holds commits at all: an empty one
	 * means the methods live elsewhere, and there is nothing to say. */
	if (methods_unchecked && methods_in_repo())
		ar_warn("%zu verified rows name a method that is not a commit "
		    "of methods/: its hash was not recomputed",
		    methods_unchecked);
	free_scanner(&s);
	return s.bad ? AR_EX_NO : AR_EX_OK;
}

/* ---- export ---- */

enum { F_TSV, F_JSONL, F_AUTORESEARCH };

struct exporter {
	int fmt, with_unsigned;
	struct scanner *v;   /* what -V found, or NULL */
	char **cols;         /* output columns after id and signed */
	size_t ncols;
	char **map_hdr;      /* the segment header the map belongs to */
	const char *map_src;
	long *map;           /* output column -> segment column, or -1 */
	size_t left_unsigned, rows, other_metric;
	char *metric;
	int header_done;
};

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

	e->cols = ar_xrealloc(e->cols, (e->ncols + n + 1) * sizeof *e->cols);
	for (i = 0; i < n; i++)
		if (strcmp(names[i], "id") != 0 && strcmp(names[i], "signed") != 0
		    && strcmp(names[i], "json") != 0)
			e->cols[e->ncols++] = ar_xstrdup(names[i]);
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

	if (r->lineno) {
		if (r->hdr != e->map_hdr || r->src != e->map_src) {
			add_cols(e, r->hdr, r->ncol);
			e->map_hdr = r->hdr;
			e->map_src = r->src;
		}
		return 0;
	}
	if (r->json) {
		char err[256];
		json_t *o = ar_json_parse(r->json, r->jsonlen, err, sizeof err);
		struct ar_flat f;
		char **names;
		size_t i;

		if (!o)
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
	for (k = 0; k < e->ncols; k++) {
		putchar('\t');
		ar_tsv_put(stdout, e->cols[k]);
	}
	putchar('\n');
}

static const char *
status_of(const char *verdict)
{
	if (!verdict)
		return "crash";
	if (strcmp(verdict, "keep") == 0)
		return "keep";
	if (strcmp(verdict, "crash") == 0 || strcmp(verdict, "timeout") == 0 ||
	    strcmp(verdict, "invalid") == 0)
		return "crash";
	return "discard";
}

static void
put_autoresearch(struct exporter *e, json_t *o)
{
	const char *commit = ar_json_str(o, "method.commit");
	const char *metric = json_string_value(json_object_get(o, "metric"));
	const char *st = status_of(json_string_value(json_object_get(o,
	    "verdict")));
	const char *desc = json_string_value(json_object_get(o, "description"));
	json_t *v = NULL, *mem;

	if (!metric)
		metric = "val_bpb";
	/* results.tsv has one metric column: the first row's metric. */
	if (e->header_done && strcmp(metric, e->metric) != 0) {
		e->other_metric++;
		e->rows--;
		return;
	}
	/* Not by dotted path: a metric's name may hold a '.'. */
	v = json_object_get(json_object_get(json_object_get(o, "metrics"),
	    metric), "median");
	mem = json_object_get(json_object_get(json_object_get(o, "metrics"),
	    "memory_gb"), "median");
	if (!desc)
		desc = json_string_value(json_object_get(o, "why"));
	if (!e->header_done) {
		e->metric = ar_xstrdup(metric);
		printf("commit\t%s\tmemory_gb\tstatus\tdescription\n", metric);
		e->header_done = 1;
	}
	printf("%.7s\t%.6f\t%.1f\t%s\t", commit ? commit : "0000000",
	    strcmp(st, "crash") == 0 || !json_is_number(v) ? 0.0 :
	    json_number_value(v), strcmp(st, "crash") == 0 ||
	    !json_is_number(mem) ? 0.0 : json_number_value(mem), st);
	/* results.tsv has no escapes: tabs and newlines become spaces. */
	for (; desc && *desc; desc++)
		putchar(*desc == '\t' || *desc == '\n' || *desc == '\r' ? ' ' :
		    *desc);
	putchar('\n');
}

static int
emit(const struct ar_row *r, void *arg)
{
	struct exporter *e = arg;
	const char *id;
	int is_signed;
	size_t k;

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
		}
		fputs(id, stdout);
		fputs(is_signed ? "\tyes" : "\tno", stdout);
		if (e->v)
			fputs(is_signed ? "\tyes" : "\tno", stdout);
		for (k = 0; k < e->ncols; k++) {
			putchar_unlocked('\t');
			if (e->map[k] >= 0)
				fputs(r->field[e->map[k]], stdout);
		}
		putchar_unlocked('\n');
		e->rows++;
		return 0;
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
			size_t j = 0;

			ar_flatten(o, &f);
			fputs(id, stdout);
			fputs(is_signed ? "\tyes" : "\tno", stdout);
			if (e->v)
				fputs(is_signed ? "\tyes" : "\tno", stdout);
			for (k = 0; k < e->ncols; k++) {
				putchar('\t');
				while (j < f.n && strcmp(f.kv[j].k,
				    e->cols[k]) < 0)
					j++;
				if (j < f.n && strcmp(f.kv[j].k, e->cols[k]) == 0)
					ar_tsv_put(stdout, f.kv[j].v);
			}
			putchar('\n');
			ar_flat_free(&f);
		}
		json_decref(o);
	}
	return 0;
}

static int
cmd_export(int fmt, int with_unsigned, int verify)
{
	struct exporter e;
	struct scanner s;
	char err[1024];
	size_t k;
	int ret = AR_EX_OK;

	memset(&e, 0, sizeof e);
	memset(&s, 0, sizeof s);
	e.fmt = fmt;
	e.with_unsigned = with_unsigned;
	if (verify) {
		verify_all(&s, 0);
		if (s.bad) {
			ar_warn("%zu problem%s found; bad rows left out "
			    "(ar-ledger verify names them)", s.bad,
			    s.bad == 1 ? "" : "s");
			ret = AR_EX_NO;
		}
		e.v = &s;
	}
	if (fmt == F_TSV) {
		if (ar_ledger_scan(&led, gather_cols, &e, err, sizeof err) != 0)
			ar_die(AR_EX_DATA, "%s", err);
		e.map_hdr = NULL;
		e.map_src = NULL;
		put_tsv_header(&e);
	}
	if (ar_ledger_scan(&led, emit, &e, err, sizeof err) != 0)
		ar_die(AR_EX_DATA, "%s", err);
	if (fmt == F_AUTORESEARCH && !e.header_done)
		printf("commit\tval_bpb\tmemory_gb\tstatus\tdescription\n");
	if (e.other_metric)
		ar_warn("%zu rows of another metric than %s left out: "
		    "results.tsv holds one metric", e.other_metric, e.metric);
	free(e.metric);
	if (e.left_unsigned)
		ar_warn("%zu unsigned (imported) rows left out; -u includes "
		    "them", e.left_unsigned);
	for (k = 0; k < e.ncols; k++)
		free(e.cols[k]);
	free(e.cols);
	free(e.map);
	free_scanner(&s);
	return ret;
}

/* ---- append ---- */

static void
read_jsonl(FILE *in, const char *name, struct job **jobs, size_t *n,
    size_t *cap)
{
	struct ar_buf line = {0};
	size_t lineno = 0;

	while (ar_jsonl_line(in, name, &line, &lineno)) {
		struct job *j;

		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*jobs = ar_xrealloc(*jobs, *cap * sizeof **jobs);
		}
		j = &(*jobs)[(*n)++];
		memset(j, 0, sizeof *j);
		j->json = ar_xstrdup(line.p);
		j->len = line.len;
		j->where = ar_xasprintf("%s:%zu", name, lineno);
	}
	ar_buf_free(&line);
}

static int
store_all(json_t **recs, size_t n, const char *what)
{
	size_t i, stored = 0, dup = 0, clash = 0, off;
	int *st = ar_xmalloc((n ? n : 1) * sizeof *st);
	char err[1024];

	if (n <= LOOSE_MAX) {
		for (i = 0; i < n; i++) {
			st[i] = ar_ledger_store(&led, recs[i]);
			if (st[i] < 0)
				ar_die(ar_errno_exit(errno), "%s/results: "
				    "cannot store %s:", led.dir,
				    json_string_value(json_object_get(recs[i],
				    "id")));
		}
	} else {
		for (off = 0; off < n; off += 16384) {
			size_t m = n - off < 16384 ? n - off : 16384;

			if (ar_ledger_add_batch(&led, recs + off, m, st + off,
			    err, sizeof err) < 0)
				ar_die(errno == EAGAIN ? AR_EX_TEMPFAIL :
				    ar_errno_exit(errno), "%s", err);
		}
	}
	for (i = 0; i < n; i++) {
		if (st[i] == 0)
			stored++;
		else if (st[i] == 1)
			dup++;
		else {
			clash++;
			ar_warn("%s: id %s is stored already with other "
			    "content; not replaced", led.dir,
			    json_string_value(json_object_get(recs[i], "id")));
		}
	}
	ar_warn("%s: %zu stored, %zu already there%s", what, stored, dup,
	    clash ? ", some refused" : "");
	free(st);
	return clash ? AR_EX_CANTCREAT : AR_EX_OK;
}

static int
cmd_append(int argc, char **argv)
{
	struct job *jobs = NULL;
	size_t n = 0, cap = 0, i, bad = 0;
	json_t **recs;
	int r, malformed = 0;

	if (argc == 0)
		read_jsonl(stdin, "<stdin>", &jobs, &n, &cap);
	for (i = 0; i < (size_t)argc; i++) {
		FILE *f = fopen(argv[i], "r");

		if (!f)
			ar_die(AR_EX_NOINPUT, "%s:", argv[i]);
		read_jsonl(f, argv[i], &jobs, &n, &cap);
		fclose(f);
	}
	run_jobs(jobs, n);
	for (i = 0; i < n; i++) {
		if (jobs[i].status == ST_UNSIGNED) {
			jobs[i].status = ST_BAD;
			snprintf(jobs[i].why, sizeof jobs[i].why, "not signed "
			    "(only ar-ledger import stores unsigned rows)");
		}
		if (jobs[i].status == ST_BAD) {
			if (jobs[i].malformed)
				malformed = 1;
			if (++bad <= 20)
				ar_warn("%s: %s%s%s", jobs[i].where,
				    jobs[i].id[0] ? jobs[i].id : "",
				    jobs[i].id[0] ? ": " : "", jobs[i].why);
		}
	}
	if (bad) {
		if (bad > 20)
			ar_warn("... and %zu more", bad - 20);
		ar_die(malformed ? AR_EX_DATA : AR_EX_NO, "%zu of %zu results "
		    "refused; nothing stored", bad, n);
	}
	recs = ar_xmalloc((n ? n : 1) * sizeof *recs);
	for (i = 0; i < n; i++) {
		char err[256];

		recs[i] = ar_json_parse(jobs[i].json, jobs[i].len, err,
		    sizeof err);
	}
	free_jobs(jobs, n);
	free(jobs);
	r = store_all(recs, n, "append");
	for (i = 0; i < n; i++)
		json_decref(recs[i]);
	free(recs);
	return r;
}

/* ---- import ---- */

static char *
import_id(const char *src, size_t lineno, const char *line)
{
	char h[AR_HASH_HEX];
	struct ar_buf b = {0};

	/* The same line of the same log always gets the same id, so a
	 * repeated import stores nothing twice; lines keep their order. */
	ar_buf_printf(&b, "%s\n%zu\n%s", src, lineno, line);
	ar_hash_hex(h, b.p, b.len);
	ar_buf_free(&b);
	return ar_xasprintf("imp-%s-%06zu-%.12s", src, lineno, h);
}

static json_t *
metric_obj(double v)
{
	return json_pack("{s:f}", "median", v);
}

static int
import_autoresearch(FILE *in, const char *name, json_t ***out, size_t *n)
{
	struct ar_tsv t;
	const char *need[] = { "commit", "val_bpb", "memory_gb", "status",
	    "description" };
	int col[5], r;
	size_t i, cap = 0;

	/* karpathy/autoresearch writes its TSV without escapes. */
	if (ar_tsv_open_raw(&t, in, name, 1) < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	for (i = 0; i < 5; i++)
		if ((col[i] = ar_tsv_col(&t, need[i])) < 0)
			ar_die(AR_EX_DATA, "%s: header: no '%s' column (a "
			    "results.tsv has commit, val_bpb, memory_gb, status, "
			    "description)", name, need[i]);
	while ((r = ar_tsv_next(&t)) == 1) {
		double bpb, mem;
		const char *st = t.field[col[3]];
		json_t *o;
		char *id, *line;

		if (ar_parse_double(t.field[col[1]], &bpb) < 0)
			ar_die(AR_EX_DATA, "%s: line %zu: val_bpb '%s' is not a "
			    "finite number", name, t.lineno, t.field[col[1]]);
		if (ar_parse_double(t.field[col[2]], &mem) < 0)
			ar_die(AR_EX_DATA, "%s: line %zu: memory_gb '%s' is not "
			    "a finite number", name, t.lineno, t.field[col[2]]);
		if (strcmp(st, "keep") != 0 && strcmp(st, "discard") != 0 &&
		    strcmp(st, "crash") != 0)
			ar_die(AR_EX_DATA, "%s: line %zu: status '%s': expected "
			    "keep, discard or crash", name, t.lineno, st);
		if (t.field[col[0]][0] == '\0')
			ar_die(AR_EX_DATA, "%s: line %zu: empty commit", name,
			    t.lineno);
		line = ar_xasprintf("%s\t%s\t%s\t%s\t%s", t.field[col[0]],
		    t.field[col[1]], t.field[col[2]], st, t.field[col[4]]);
		id = import_id("autoresearch", t.lineno, line);
		free(line);
		o = json_pack("{s:s, s:s, s:{s:s}, s:s, s:s, s:{s:o, s:o},"
		    " s:s, s:s, s:I}",
		    "id", id, "source", "autoresearch",
		    "method", "commit", t.field[col[0]],
		    "metric", "val_bpb", "direction", "lower",
		    "metrics", "val_bpb", metric_obj(bpb), "memory_gb",
		    metric_obj(mem), "verdict", st,
		    "description", t.field[col[4]], "seq",
		    (json_int_t)t.lineno);
		free(id);
		if (!o)
			ar_die(AR_EX_SOFTWARE, "cannot build a record");
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			*out = ar_xrealloc(*out, cap * sizeof **out);
		}
		(*out)[(*n)++] = o;
	}
	if (r < 0)
		ar_die(AR_EX_DATA, "%s", t.err);
	ar_tsv_close(&t);
	return 0;
}

static int
import_pi(FILE *in, const char *name, json_t ***out, size_t *n)
{
	struct ar_buf line = {0};
	size_t lineno = 0, cap = 0, skipped = 0;
	const char *mname = "metric", *dir = "lower", *session = "";
	json_t *config = NULL;
	char err[256];

	while (ar_jsonl_line(in, name, &line, &lineno)) {
		json_t *j, *o, *metrics, *m, *v;
		const char *type, *st, *k, *verdict;
		char *id;
		double val;

		if (!(j = ar_json_parse(line.p, line.len, err, sizeof err)))
			ar_die(AR_EX_DATA, "%s: line %zu: %s", name, lineno, err);
		if (!json_is_object(j))
			ar_die(AR_EX_DATA, "%s: line %zu: not a JSON object",
			    name, lineno);
		type = json_string_value(json_object_get(j, "type"));
		if (type && strcmp(type, "config") == 0) {
			json_decref(config);
			config = j;
			if (json_is_string(json_object_get(j, "metricName")))
				mname = json_string_value(json_object_get(j,
				    "metricName"));
			if (json_is_string(json_object_get(j, "bestDirection")))
				dir = json_string_value(json_object_get(j,
				    "bestDirection"));
			if (json_is_string(json_object_get(j, "name")))
				session = json_string_value(json_object_get(j,
				    "name"));
			if (strcmp(dir, "lower") != 0 && strcmp(dir,
			    "higher") != 0)
				ar_die(AR_EX_DATA, "%s: line %zu: bestDirection "
				    "'%s': expected lower or higher", name,
				    lineno, dir);
			continue;
		}
		if (type || !json_object_get(j, "run")) {
			/* Hook and other records carry no measurement. */
			skipped++;
			json_decref(j);
			continue;
		}
		st = json_string_value(json_object_get(j, "status"));
		if (!st)
			ar_die(AR_EX_DATA, "%s: line %zu: run without a status",
			    name, lineno);
		if (strcmp(st, "keep") == 0 || strcmp(st, "discard") == 0 ||
		    strcmp(st, "crash") == 0)
			verdict = st;
		else if (strcmp(st, "checks_failed") == 0)
			verdict = "invalid";
		else
			ar_die(AR_EX_DATA, "%s: line %zu: status '%s': expected "
			    "keep, discard, crash or checks_failed", name,
			    lineno, st);
		metrics = json_object();
		v = json_object_get(j, "metric");
		if (json_is_number(v))
			json_object_set_new(metrics, mname,
			    metric_obj(json_number_value(v)));
		else if (v && !json_is_null(v))
			ar_die(AR_EX_DATA, "%s: line %zu: metric is not a "
			    "number", name, lineno);
		else if (strcmp(verdict, "keep") == 0)
			ar_die(AR_EX_DATA, "%s: line %zu: a kept run without a "
			    "metric", name, lineno);
		json_object_foreach(json_object_get(j, "metrics"), k, m) {
			if (!json_is_number(m))
				ar_die(AR_EX_DATA, "%s: line %zu: metrics.%s is "
				    "not a number", name, lineno, k);
			val = json_number_value(m);
			json_object_set_new(metrics, k, metric_obj(val));
		}
		id = import_id("pi", lineno, line.p);
		o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:I}",
		    "id", id, "source", "pi",
		    "metric", mname, "direction", dir, "metrics", metrics,
		    "verdict", verdict, "seq", (json_int_t)lineno);
		free(id);
		if (json_is_string(json_object_get(j, "commit")))
			json_object_set_new(o, "method", json_pack("{s:O}",
			    "commit", json_object_get(j, "commit")));
		if (json_is_string(json_object_get(j, "description")))
			json_object_set(o, "description",
			    json_object_get(j, "description"));
		if (*session)
			json_object_set_new(o, "session", json_string(session));
		if (json_is_number(json_object_get(j, "confidence")))
			json_object_set(o, "confidence",
			    json_object_get(j, "confidence"));
		if (json_is_integer(json_object_get(j, "run")))
			json_object_set(o, "run", json_object_get(j, "run"));
		if (json_is_number(json_object_get(j, "timestamp"))) {
			double t = json_number_value(json_object_get(j,
			    "timestamp"));
			struct timespec ts;
			char when[32];

			/* pi writes seconds or milliseconds. */
			if (t > 1e11)
				t /= 1000;
			ts.tv_sec = (time_t)t;
			ts.tv_nsec = 0;
			ar_time_fmt(when, sizeof when, ts, 0);
			json_object_set_new(o, "finished", json_string(when));
		}
		json_decref(j);
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			*out = ar_xrealloc(*out, cap * sizeof **out);
		}
		(*out)[(*n)++] = o;
	}
	if (skipped)
		ar_warn("%s: %zu lines without a run left out", name, skipped);
	json_decref(config);
	ar_buf_free(&line);
	return 0;
}

static int
cmd_import(const char *from, const char *file)
{
	FILE *in = fopen(file, "r");
	json_t **recs = NULL;
	size_t n = 0, i;
	int r;

	if (!in)
		ar_die(AR_EX_NOINPUT, "%s:", file);
	if (strcmp(from, "autoresearch") == 0)
		import_autoresearch(in, file, &recs, &n);
	else if (strcmp(from, "pi") == 0)
		import_pi(in, file, &recs, &n);
	else
		ar_die(AR_EX_USAGE, "-F %s: expected autoresearch or pi", from);
	fclose(in);
	r = store_all(recs, n, "import");
	for (i = 0; i < n; i++)
		json_decref(recs[i]);
	free(recs);
	return r;
}

static int
cmd_compact(int break_lock)
{
	char err[1024];
	size_t merged;

	if (ar_ledger_compact(&led, break_lock, &merged, err, sizeof err) < 0)
		ar_die(errno == EAGAIN ? AR_EX_TEMPFAIL : ar_errno_exit(errno),
		    "%s", err);
	ar_warn("%zu results merged into segments", merged);
	return AR_EX_OK;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'F' },
		{ "verify", no_argument, NULL, 'V' },
		{ "break-lock", no_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd, *dir = NULL, *from = NULL;
	int c, r, fmt = F_TSV, with_unsigned = 0, verify = 0, brk = 0, strict = 0;

	ar_std_args(argc, argv, usage);
	argv[0] = (char *)ar_prog();
	ar_crypto_init();
	json_object_seed(0);
	if (argc < 2)
		ar_usage(usage);
	cmd = argv[1];
	argc--;
	argv++;
	argv[0] = argv[-1];
	while ((c = getopt_long(argc, argv, "BC:f:F:suV", longopts, NULL)) != -1) {
		switch (c) {
		case 's': strict = 1; break;
		case 'B': brk = 1; break;
		case 'C': dir = optarg; break;
		case 'f':
			if (strcmp(optarg, "tsv") == 0)
				fmt = F_TSV;
			else if (strcmp(optarg, "jsonl") == 0)
				fmt = F_JSONL;
			else if (strcmp(optarg, "autoresearch") == 0)
				fmt = F_AUTORESEARCH;
			else
				ar_die(AR_EX_USAGE, "-f %s: expected tsv, jsonl "
				    "or autoresearch", optarg);
			break;
		case 'F': from = optarg; break;
		case 'u': with_unsigned = 1; break;
		case 'V': verify = 1; break;
		default: ar_usage(usage);
		}
	}
	argc -= optind;
	argv += optind;
	dir = ar_campaign_default(dir);
	if (strcmp(cmd, "append") == 0) {
		open_all(dir);
		r = cmd_append(argc, argv);
	} else if (strcmp(cmd, "verify") == 0 && argc == 0) {
		open_all(dir);
		r = cmd_verify(strict);
	} else if (strcmp(cmd, "export") == 0 && argc == 0) {
		open_all(dir);
		r = cmd_export(fmt, with_unsigned, verify);
	} else if (strcmp(cmd, "import") == 0 && argc == 1 && from) {
		open_all(dir);
		r = cmd_import(from, argv[0]);
	} else if (strcmp(cmd, "compact") == 0 && argc == 0) {
		open_all(dir);
		r = cmd_compact(brk);
	} else
		ar_usage(usage);
	ar_ledger_close(&led);
	ar_campaign_free(&camp);
	ar_fshut(stdout, "<stdout>");
	return r;
}
