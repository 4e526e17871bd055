/* check.c: the checks of one row of the ledger (JSON, id, signature,
 * campaign, seal, method hash, a segment row's stored columns), run on
 * every core: signatures dominate the cost. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "flat.h"
#include "json.h"
#include "method.h"
#include "tsv.h"
#include "ar-ledger.h"

/* A row's parse makes a few hundred small allocations in jansson, each a
 * malloc and a free, at a cost near a third of the parse's. While a
 * worker parses a row, they come from its thread's arena, dropped whole
 * once the row is checked. */
#define ARENA (256 * 1024)
static _Thread_local char *arena;
static _Thread_local size_t arena_used;
static _Thread_local int arena_on;

static void *
arena_malloc(size_t n)
{
	if (arena_on) {
		n = (n + 15) & ~(size_t)15;
		if (n <= ARENA - arena_used) {
			void *p = arena + arena_used;

			arena_used += n;
			return p;
		}
	}
	return malloc(n);
}

/* What the arena gave is dropped with it; the rest was malloc's. Only the
 * thread that parsed a row frees it. */
static void
arena_free(void *p)
{
	if (arena && (char *)p >= arena && (char *)p < arena + ARENA)
		return;
	free(p);
}

void
arena_install(void)
{
	json_set_alloc_funcs(arena_malloc, arena_free);
}

int
is_hex(const char *s, size_t n)
{
	return s && strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* A segment row's stored columns against its flat fields: they must say
 * what the signed JSON says. */
static void
compare_cols(struct job *j, const char *id, const struct ar_flat *fl)
{
	const struct ar_flat f = *fl;
	struct ar_buf esc = {0};
	size_t k, x = 0;
	const char *bad = NULL;

	/* Columns after id and signed are sorted, like the flat
	 * fields: one merge walk. */
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
	ar_buf_free(&esc);
}

/* The checks of a signed segment row whose signature holds, from its
 * text read by canon.c instead of jansson: the same checks, in the same
 * order, with the same words. 0 when done; -1 when canon.c cannot read
 * the text, and jansson must. */
static int
check_fast(const struct ar_campaign *camp, struct job *j)
{
	struct cflat c;
	const char *id, *s;

	if (canon_flat(j->json, j->len, &c) < 0)
		return -1;
	j->status = ST_BAD;
	id = cflat_str(&c, "id");
	if (!id || !ar_id_valid(id)) {
		snprintf(j->why, sizeof j->why, "no valid \"id\"");
		goto out;
	}
	snprintf(j->id, sizeof j->id, "%s", id);
	if (c.reserved) {
		snprintf(j->why, sizeof j->why, "reserved key \"signed\" or "
		    "\"json\"");
		goto out;
	}
	if (j->fileid[0] && strcmp(j->fileid, id) != 0) {
		snprintf(j->why, sizeof j->why, "stored under id %s, but its "
		    "\"id\" is %s", j->fileid, id);
		goto out;
	}
	s = cflat_str(&c, "campaign");
	if (!s || strcmp(s, camp->id) != 0) {
		snprintf(j->why, sizeof j->why, "campaign '%s' is not "
		    "this campaign", s ? s : "");
		goto out;
	}
	s = cflat_str(&c, "seal");
	if (!camp->have_seal || !s || strcmp(s, camp->seal_hash) != 0) {
		snprintf(j->why, sizeof j->why, "seal hash does not "
		    "match this campaign's SEAL");
		goto out;
	}
	s = cflat_str(&c, "method.hash");
	if (!is_hex(s, 64)) {
		snprintf(j->why, sizeof j->why, "no method hash "
		    "(method.hash: 64 hex digits)");
		goto out;
	}
	snprintf(j->mhash, sizeof j->mhash, "%s", s);
	s = cflat_str(&c, "method.commit");
	if (s && ar_method_is_commit(s))
		snprintf(j->commit, sizeof j->commit, "%s", s);
	j->status = ST_OK;
	compare_cols(j, id, &c.f);
out:
	ar_flat_free(&c.f);
	return 0;
}

/* Checks one row: JSON, id, signature, campaign, seal, method hash, and,
 * for segment rows, that the stored columns say what the JSON says. */
void
check_job(const struct ar_campaign *camp, const unsigned char *sk,
    struct job *j)
{
	char err[256];
	json_t *o;
	const char *id, *s;

	if (j->trusted)
		return;
	/* A signed segment row whose signature holds is the signer's
	 * canonical JSON: canon.c reads it at a fraction of jansson's
	 * cost. Any other row, and any text canon.c does not expect, goes
	 * to jansson, which says what is wrong with it. */
	if (j->stored && j->cols && ar_verify_canonical_by(j->json,
	    j->len, camp->pk, sk) == 0 && check_fast(camp, j) == 0)
		return;
	arena_on = arena != NULL;
	o = ar_json_parse(j->json, j->len, err, sizeof err);
	arena_on = 0;
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
		if (j->stored ? ar_verify_canonical_by(j->json, j->len,
		    camp->pk, sk) < 0 : ar_json_verify(o, camp->pk, err,
		    sizeof err) < 0) {
			snprintf(j->why, sizeof j->why, "bad signature");
			goto out;
		}
		s = json_string_value(json_object_get(o, "campaign"));
		if (!s || strcmp(s, camp->id) != 0) {
			snprintf(j->why, sizeof j->why, "campaign '%s' is not "
			    "this campaign", s ? s : "");
			goto out;
		}
		s = json_string_value(json_object_get(o, "seal"));
		if (!camp->have_seal || !s || strcmp(s, camp->seal_hash) != 0) {
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
		if (s && ar_method_is_commit(s))
			snprintf(j->commit, sizeof j->commit, "%s", s);
		j->status = ST_OK;
	}
	if (j->cols) {
		struct ar_flat f;

		ar_flatten_num(o, &f);
		compare_cols(j, id, &f);
		ar_flat_free(&f);
	}
out:
	json_decref(o);
	arena_used = 0;
}

/* Workers take chunks of this many jobs in turn: a thread that the
 * machine's load slows down holds back no more than one chunk. */
#define CHUNK 16

static void *
pool_worker(void *arg)
{
	struct pool *p = arg;
	size_t i, k;

	if (atomic_load(&p->next) >= p->n)
		return NULL;
	arena = malloc(ARENA);
	arena_used = 0;
	while ((i = atomic_fetch_add(&p->next, CHUNK)) < p->n)
		for (k = i; k < i + CHUNK && k < p->n; k++)
			check_job(p->camp, p->sk, &p->jobs[k]);
	free(arena);
	arena = NULL;
	return NULL;
}

int
nthreads(void)
{
	const char *e = getenv("AR_THREADS");
	long n = e && *e ? atol(e) : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

void
jobs_start(struct pool *p, const struct ar_campaign *camp,
    const unsigned char *sk, struct job *jobs, size_t n)
{
	int t = nthreads(), i;

	p->camp = camp;
	p->sk = sk;
	p->jobs = jobs;
	p->n = n;
	p->started = 0;
	atomic_init(&p->next, 0);
	/* One thread fewer than the cores: the caller goes on reading the
	 * next batch, then works on this one in jobs_wait. */
	if (n < 64)
		return;
	for (i = 0; i + 1 < t; i++)
		if (pthread_create(&p->tid[p->started], NULL, pool_worker,
		    p) == 0)
			p->started++;
}

void
jobs_wait(struct pool *p)
{
	int i;

	pool_worker(p);
	for (i = 0; i < p->started; i++)
		pthread_join(p->tid[i], NULL);
	p->started = 0;
}

/* Checks jobs on every core; signatures dominate the cost. */
void
run_jobs(const struct ar_campaign *camp, const unsigned char *sk,
    struct job *jobs, size_t n)
{
	struct pool p;

	jobs_start(&p, camp, sk, jobs, n);
	jobs_wait(&p);
}

void
free_jobs(struct job *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!jobs[i].json_in_cols)
			free(jobs[i].json);
		free(jobs[i].where);
		free(jobs[i].cols);
	}
}
