/* spools.c: the health of the ideas and queue spools (-i, -q), the
 * categories and sources of the ideas, and staleness: how many results
 * landed between an idea's creation and the start of its measurement. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "hmap.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "spool.h"
#include "timefmt.h"
#include "digest.h"

static const char *const spsub[4] = { "new", "cur", "done", "failed" };

static struct tally *
tally(struct tallies *t, const char *key)
{
	uint32_t h = ar_hash_str(key);
	size_t it = 0, i;

	/* Hashed: an idea may cite a source no other idea does, so the
	 * sources grow with the spool. */
	while (ar_hmap_next(&t->ix, h, &it, &i))
		if (strcmp(t->a[i].key, key) == 0)
			return &t->a[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->a = ar_xrealloc(t->a, t->cap * sizeof *t->a);
	}
	memset(&t->a[t->n], 0, sizeof *t->a);
	t->a[t->n].key = ar_xstrdup(key);
	ar_hmap_put(&t->ix, h, t->n);
	return &t->a[t->n++];
}

/* Adds a holder to the distinct holders seen; hashed, as one lease
 * per holder is as likely as many. */
static void
holder(char ***holders, size_t *nh, struct ar_hmap *ix, const char *name)
{
	uint32_t h = ar_hash_str(name);
	size_t it = 0, i;

	while (ar_hmap_next(ix, h, &it, &i))
		if (strcmp((*holders)[i], name) == 0)
			return;
	*holders = ar_xrealloc(*holders, (*nh + 1) * sizeof **holders);
	(*holders)[*nh] = ar_xstrdup(name);
	ar_hmap_put(ix, h, (*nh)++);
}

static void
set_now(struct digest *dg)
{
	const char *e = getenv("AR_NOW");
	struct timespec ts;

	if (e && e[0]) {
		if (ar_time_parse(e, &ts) < 0)
			ar_die(AR_EX_USAGE, "AR_NOW=%s: not an RFC 3339 time", e);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
	}
	dg->now_s = (long long)ts.tv_sec;
}

static int
cmp_idea(const void *a, const void *b)
{
	return strcmp(((const struct idearec *)a)->id,
	    ((const struct idearec *)b)->id);
}

/* A record of the ideas spool: its title, state and, when it failed,
 * the reason (why/), so that results and the planner name ideas by
 * their titles and failures say why. o is NULL when the record could
 * not be read: the idea is still known, untitled. */
static void
add_idea(struct digest *dg, size_t *cap, const char *dir, int sub,
    const char *name, const struct ar_lease *l, json_t *o)
{
	struct idearec *r;
	const char *t;

	if (dg->nidea == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		dg->idea = ar_xrealloc(dg->idea, *cap * sizeof *dg->idea);
	}
	r = &dg->idea[dg->nidea++];
	memset(r, 0, sizeof *r);
	cpy(r->id, sizeof r->id, l->id);
	cpy(r->state, sizeof r->state, spsub[sub]);
	t = json_string_value(json_object_get(o, "title"));
	cpy(r->title, sizeof r->title, t ? t : "");
	if (sub == 3) {
		struct ar_buf b = {0};
		char *p = ar_spool_path(dir, "why", name), *nl;

		if (ar_readfile(p, &b, 4096) == 0 && b.len) {
			/* One line: the reason's first. */
			if ((nl = strchr(b.p, '\n')))
				*nl = 0;
			cpy(r->why, sizeof r->why, b.p);
		}
		ar_buf_free(&b);
		free(p);
	}
}

/* An idea's creation time, category and sources. */
static void
count_idea(struct digest *dg, int sub, const char *name,
    const struct ar_lease *l, json_t *o)
{
	struct stale_in *sl = &dg->st;
	struct tally *t;
	struct timespec when;
	const char *c, *ord = strchr(name, '-');
	json_t *v;
	size_t m, q;

	/* The name's ORDER is the time the record was put:
	 * 20261126T015812.123456Z-... */
	if (ord && ar_id_time(ord + 1, &when) == 0) {
		struct ideatime *it;

		if (sl->nitime == sl->capitime) {
			sl->capitime = sl->capitime ? 2 * sl->capitime : 256;
			sl->itime = ar_xrealloc(sl->itime, sl->capitime *
			    sizeof *sl->itime);
		}
		it = &sl->itime[sl->nitime];
		it->seq = sl->nitime++;
		cpy(it->id, sizeof it->id, l->id);
		it->created = (double)when.tv_sec + when.tv_nsec / 1e9;
	}
	c = json_string_value(json_object_get(o, "category"));
	t = tally(&dg->cat, c && c[0] ? c : "(none)");
	t->n++;
	t->nv[sub]++;
	v = json_object_get(o, "sources");
	for (m = 0; m < json_array_size(v); m++) {
		json_t *w = json_array_get(v, m);

		if (!json_is_string(w))
			continue;
		/* An idea citing a source twice counts once. */
		for (q = 0; q < m; q++)
			if (json_equal(json_array_get(v, q), w))
				break;
		if (q == m)
			tally(&dg->src, json_string_value(w))->n++;
	}
}

/* One pass over a spool: its health (counts per state, holders, expired
 * leases, unreadable records named on stderr); with ideas set, every
 * record's idea too (add_idea, count_idea), so that each record is read
 * once. */
static void
scan_spool(struct digest *dg, const char *dir, int ideas, struct health *hl)
{
	size_t i, j, k, cap = 0;
	char **holders = NULL;
	struct ar_hmap hix = {0};

	if (ar_spool_check(dir) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a spool", dir);
	memset(hl, 0, sizeof *hl);
	for (i = 0; i < 4; i++) {
		char **names;
		size_t n;

		char *sp;
		int dfd;

		if (ar_spool_list(dir, spsub[i], &names, &n) < 0)
			ar_die(AR_EX_IO, "%s/%s:", dir, spsub[i]);
		/* Records read relative to their directory. */
		sp = ar_spool_path(dir, spsub[i], "");
		dfd = open(sp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		free(sp);
		for (j = 0; j < n; j++) {
			struct ar_lease l;
			struct ar_buf b = {0};
			char err[256], *p;
			json_t *o;

			p = ar_spool_path(dir, spsub[i], names[j]);
			if (ar_spool_parse(names[j], &l) < 0) {
				ar_warn("%s: not a record name", p);
				hl->bad++;
				free(p);
				continue;
			}
			hl->cnt[i]++;
			if (i == 1 && l.expires) {
				if (l.expires < dg->now_s)
					hl->expired++;
				holder(&holders, &hl->nh, &hix, l.holder);
			}
			if ((dfd >= 0 ? ar_readfile_at(dfd, names[j], &b,
			    AR_LINE_MAX + 1) : ar_readfile(p, &b,
			    AR_LINE_MAX + 1)) < 0) {
				ar_warn("%s:", p);
				hl->bad++;
				ar_buf_free(&b);
				free(p);
				if (ideas)
					add_idea(dg, &cap, dir, (int)i, names[j],
					    &l, NULL);
				continue;
			}
			o = ar_json_parse(b.p, b.len, err, sizeof err);
			ar_buf_free(&b);
			if (!o || !json_is_object(o)) {
				ar_warn("%s: %s", p, o ? "not a JSON object" :
				    err);
				hl->bad++;
				free(p);
				if (ideas)
					add_idea(dg, &cap, dir, (int)i, names[j],
					    &l, o);
				json_decref(o);
				continue;
			}
			free(p);
			if (ideas) {
				add_idea(dg, &cap, dir, (int)i, names[j], &l, o);
				count_idea(dg, (int)i, names[j], &l, o);
			}
			json_decref(o);
		}
		ar_spool_free_list(names, n);
		if (dfd >= 0)
			close(dfd);
	}
	for (k = 0; k < hl->nh; k++)
		free(holders[k]);
	free(holders);
	ar_hmap_free(&hix);
	if (ideas)
		ar_sort(dg->idea, dg->nidea, sizeof *dg->idea, cmp_idea);
}

/* A spool's row in Queue health. */
static void
health_row(struct sect *s, const char *label, const struct health *hl)
{
	char a[8][32];

	a[6][0] = 0;
	if (hl->nh)
		snprintf(a[6], sizeof a[6], "%.1f", (double)hl->cnt[0] /
		    (double)hl->nh);
	row(s, label, fi(a[0], hl->cnt[0]), fi(a[1], hl->cnt[1]), fi(a[2],
	    hl->cnt[2]), fi(a[3], hl->cnt[3]), fi(a[4], hl->nh), fi(a[5],
	    hl->expired), a[6], fi(a[7], hl->bad));
}

/* The ideas of the spool, read before the ledger: results name their
 * ideas by their titles. Its health is kept for Queue health. */
void
read_ideas(struct digest *dg, const char *dir)
{
	set_now(dg);
	scan_spool(dg, dir, 1, &dg->ih);
}

/* An idea's title by its id; NULL when unknown or untitled. */
const char *
idea_title(const struct digest *dg, const char *id)
{
	struct idearec key, *r;

	if (!id[0] || !dg->nidea)
		return NULL;
	memset(&key, 0, sizeof key);
	cpy(key.id, sizeof key.id, id);
	r = bsearch(&key, dg->idea, dg->nidea, sizeof *dg->idea, cmp_idea);
	return r && r->title[0] ? r->title : NULL;
}

static int
cmp_cat(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->nv[2] != y->nv[2])
		return x->nv[2] < y->nv[2] ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
cmp_src(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The results that landed between an idea's creation and the start of
 * its measurement: what its author could not have seen. */
static size_t
unseen(const struct stale_in *sl, double from, double to)
{
	const double *fin = sl->fin;
	size_t lo = 0, hi = sl->nfin, a, b;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fin[mid] <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	a = lo;
	lo = a;
	hi = sl->nfin;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fin[mid] < to)
			lo = mid + 1;
		else
			hi = mid;
	}
	b = lo;
	return b > a ? b - a : 0;
}

static int
cmp_itime(const void *a, const void *b)
{
	const struct ideatime *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	if (c)
		return c;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct stale {
	const char *idea;
	size_t n;
	double age;
};

static int
cmp_stale(const void *a, const void *b)
{
	const struct stale *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->idea, y->idea);
}

static void
staleness(struct digest *dg)
{
	struct stale_in *sl = &dg->st;
	struct sect *s;
	struct stale *st;
	struct ar_hmap first = {0};
	size_t i, j, n = 0;
	char a[3][32];

	if (!sl->nist || !sl->nitime)
		return;
	ar_sort(sl->fin, sl->nfin, sizeof *sl->fin, cmp_dbl);
	/* The join by sort and binary search, not rows x ideas: by id,
	 * then in the order read, so that an id put twice matches as the
	 * first one read that was created before the run. */
	ar_sort(sl->itime, sl->nitime, sizeof *sl->itime, cmp_itime);
	/* Each id's first place in that order, by hash: one lookup a
	 * result, not a bisection. */
	for (i = 0; i < sl->nitime; i++)
		if (i == 0 || strcmp(sl->itime[i].id, sl->itime[i - 1].id))
			ar_hmap_put(&first, ar_hash_str(sl->itime[i].id), i);
	st = ar_xcalloc(sl->nist, sizeof *st);
	for (i = 0; i < sl->nist; i++) {
		const struct ideastart *is = &sl->ist[i];
		size_t lo = sl->nitime, it = 0, pos;

		while (ar_hmap_next(&first, ar_hash_str(is->idea), &it, &pos))
			if (strcmp(sl->itime[pos].id, is->idea) == 0) {
				lo = pos;
				break;
			}
		for (j = lo; j < sl->nitime && strcmp(sl->itime[j].id,
		    is->idea) == 0; j++) {
			const struct ideatime *it = &sl->itime[j];

			if (is->started >= it->created) {
				st[n].idea = is->idea;
				st[n].n = unseen(sl, it->created, is->started);
				st[n++].age = is->started - it->created;
				break;
			}
		}
	}
	ar_sort(st, n, sizeof *st, cmp_stale);
	s = sect(dg, "staleness", "Staleness (results an idea's author could "
	    "not see)", "ssin", "idea", "title", "unseen_results",
	    "hours_from_idea_to_run", NULL);
	{
		double sum = 0;

		for (i = 0; i < n; i++)
			sum += (double)st[i].n;
		/* The campaign's figure: what an idea missed, on average. */
		if (n) {
			snprintf(dg->stale_note, sizeof dg->stale_note, "On "
			    "average %.2f results landed between an idea and "
			    "its run (ideas measured: %zu).", sum / (double)n, n);
			s->note = dg->stale_note;
		}
	}
	for (i = 0; i < n; i++) {
		if (s->nrow < 20) {
			const char *t = idea_title(dg, st[i].idea);

			snprintf(a[1], sizeof a[1], "%.2f", st[i].age / 3600);
			row(s, st[i].idea, t ? t : "", fi(a[0], st[i].n), a[1]);
		} else {
			s->more++;
		}
	}
	free(st);
	ar_hmap_free(&first);
}

void
build_spools(struct digest *dg, const char *ideas, const char *queue)
{
	struct tallies *cat = &dg->cat, *src = &dg->src;
	struct sect *s;
	size_t i;
	char a[4][32];

	s = sect(dg, "queue_health", "Queue health", "siiiiiini", "spool",
	    "new", "cur", "done", "failed", "holders", "expired",
	    "new_per_holder", "unreadable", NULL);
	if (ideas)
		health_row(s, "ideas", &dg->ih);
	if (queue) {
		struct health hl;

		if (!ideas)
			set_now(dg);
		scan_spool(dg, queue, 0, &hl);
		health_row(s, "queue", &hl);
	}
	if (!ideas)
		return;
	/* Every idea with its fate; a failed one says why. The latest
	 * LB_MAX by id. */
	s = sect(dg, "ideas", "Ideas", "ssss", "idea", "state", "why", "id",
	    NULL);
	for (i = dg->nidea > LB_MAX ? dg->nidea - LB_MAX : 0; i < dg->nidea;
	    i++)
		row(s, dg->idea[i].title, dg->idea[i].state, dg->idea[i].why,
		    dg->idea[i].id);
	s->more = dg->nidea > LB_MAX ? dg->nidea - LB_MAX : 0;
	ar_sort(cat->a, cat->n, sizeof *cat->a, cmp_cat);
	s = sect(dg, "categories", "Under-explored categories", "siiii",
	    "category", "ideas", "open", "done", "failed", NULL);
	for (i = 0; i < cat->n; i++) {
		const struct tally *c = &cat->a[i];

		if (s->nrow < LB_MAX)
			row(s, c->key, fi(a[0], c->n), fi(a[1],
			    c->nv[0] + c->nv[1]), fi(a[2], c->nv[2]),
			    fi(a[3], c->nv[3]));
		else
			s->more++;
	}
	ar_sort(src->a, src->n, sizeof *src->a, cmp_src);
	s = sect(dg, "sources", "Sources cited", "si", "source", "ideas", NULL);
	for (i = 0; i < src->n; i++) {
		if (s->nrow < LB_MAX)
			row(s, src->a[i].key, fi(a[0], src->a[i].n));
		else
			s->more++;
	}
	staleness(dg);
}
