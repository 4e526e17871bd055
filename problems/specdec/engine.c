/* engine.c: the sealed run of specdec, linked with the method's
 * policy.o by build.mk. Loads the trace and the weights from $AR_IN,
 * replays the arrivals on the real clock, asks the policy (sd.h) what
 * to do at every step, runs the draft and the target, and writes the
 * outputs and per-request times to $AR_OUT. It prints nothing on
 * stdout; errors are one line on stderr and exit 1. Built with SD_CUDA
 * (build.mk does so when the run has GPUs), the models and the KV cache
 * live on the GPU (cuda.cu): the same bits, the same reference.
 *
 * The policy runs in a process of its own (cage.c): it sees
 * each step's view and writes its actions in memory shared with the
 * engine and nothing else, so no policy can rewrite the engine's times,
 * caches or outputs, whatever pointers it follows.
 *
 * Over 1,000 lines, as one file: its parts (the caches, the passes, the
 * actions of a step, the loop) all work on struct eng and struct rq, and
 * the sealed build links it whole beside the method's object. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cage.h"
#include "model.h"
#include "sd.h"
#include "trace.h"
#ifdef SD_CUDA
#include "sd-cuda.h"
#endif

/* Steps in a row that do nothing while requests wait. */
#define MAXIDLE 10000

struct rq {
	const struct sd_treq *t;
	int32_t *seq;               /* prompt, then output */
	int len, kv, dkv, npend, running, done, blocks;
	int32_t pend[SD_MAXDRAFT];
	float *tcache, *dcache;     /* target (D and E parts), draft */
	int cap;
	int drafted, accepted, verifies, preempts, unverified;
	double first_ms, finish_ms;
	/* This step's plan. */
	int op, cnt, row0, nrows, ndraft, drow0;
	/* SD_CAND: the candidates' drafts and their scratch caches (the
	 * first candidate uses the request's own). */
	int ncand;
	int32_t cand[SD_MAXCAND][SD_MAXDRAFT];
	float *ct[SD_MAXCAND], *cd[SD_MAXCAND];
};

struct eng {
	const struct sd_model *m;
	struct sd_weights wd, we;
	struct sd_trace_hdr h;
	struct rq *r;
	int blocks_free;
	struct timespec t0;
	double kv_sum, steps, rows_t, rows_d, stalls, ignored;
	size_t dkv_floats, ekv_floats;  /* per token, all layers */
	int nthreads;                   /* AR_CPUS: the run's CPUs */
	struct cage *cage;              /* the policy's process */
#ifdef SD_CUDA
	struct sd_cuda *gpu;
#endif
};

/* A share of a pass's rows for one thread: whole requests only, since a
 * request's rows in one pass attend to each other's KV. */
struct share {
	const struct eng *e;
	int n;
	const struct sd_row *rd, *re;
	int *am;
	float *logits;
};

static void
die(const char *what, const char *why)
{
	fprintf(stderr, "specdec: %s: %s\n", what, why);
	exit(1);
}

static void *
xcalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (p == NULL)
		die("memory", strerror(errno));
	return p;
}

static char *
path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xcalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* The whole of dir/name; *size its bytes. */
static void *
load(const char *dir, const char *name, size_t *size)
{
	char *path = path_in(dir, name), *buf;
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0)
		die(path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die(path, "not a regular file");
	buf = xcalloc((size_t)st.st_size);
	while (done < (size_t)st.st_size) {
		if ((n = read(fd, buf + done, (size_t)st.st_size - done)) <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			die(path, n < 0 ? strerror(errno) : "shorter than its size");
		}
		done += (size_t)n;
	}
	close(fd);
	free(path);
	*size = done;
	return buf;
}

/* dir/name mapped read-only, for the weights: the 1b size's e.bin is
 * 3.9 GB, and reading it into memory of our own took seconds of the
 * run's wall time that no policy can change. NULL with *size 0 for an
 * empty file (the caller's size check refuses it). */
static void *
map(const char *dir, const char *name, size_t *size)
{
	char *path = path_in(dir, name);
	struct stat st;
	void *p;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0)
		die(path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die(path, "not a regular file");
	*size = (size_t)st.st_size;
	if (st.st_size == 0) {
		close(fd);
		free(path);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die(path, strerror(errno));
	close(fd);
	free(path);
	return p;
}

static void
save(const char *dir, const char *name, const void *buf, size_t len)
{
	char *path = path_in(dir, name);
	size_t done = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		die(path, strerror(errno));
	while (done < len) {
		if ((n = write(fd, (const char *)buf + done, len - done)) < 0) {
			if (errno == EINTR)
				continue;
			die(path, strerror(errno));
		}
		done += (size_t)n;
	}
	if (close(fd) < 0)
		die(path, strerror(errno));
	free(path);
}

static double
now_ms(const struct eng *e)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - e->t0.tv_sec) * 1e3 +
	    (double)(t.tv_nsec - e->t0.tv_nsec) / 1e6;
}

static int
generated(const struct rq *q)
{
	return q->len - q->t->prompt_len;
}

/* Tokens to feed the target before decoding: the prompt at first, then
 * all but the last token (recompute, or drafts taken unverified). */
static int
to_prefill(const struct rq *q)
{
	int want = generated(q) == 0 ? q->t->prompt_len : q->len - 1;

	return want - q->kv;
}

static int
max_pending(const struct rq *q)
{
	int room = q->t->out_len - generated(q) - 1;

	return room < SD_MAXDRAFT ? room : SD_MAXDRAFT;
}

/* KV cache memory, zeroed: on the GPU where the models are. */
static float *
cache_alloc(size_t floats)
{
#ifdef SD_CUDA
	float *p = sd_cuda_alloc(floats * sizeof(float));

	if (p == NULL)
		die("GPU memory", "cannot hold a request's KV cache");
	return p;
#else
	return xcalloc(floats * sizeof(float));
#endif
}

static void
cache_free(float *p)
{
#ifdef SD_CUDA
	if (p != NULL)
		sd_cuda_free(p);
#else
	free(p);
#endif
}

#ifndef SD_CUDA
static void *
forward_share(void *arg)
{
	const struct share *sh = arg;
	const struct eng *e = sh->e;
	int n = sh->n;
	const struct sd_row *rd = sh->rd, *re = sh->re;
	int *am = sh->am;
	float *ld = xcalloc((size_t)n * SD_VOCAB * sizeof(float)), *le = NULL;

	sd_forward(&e->wd, n, rd, ld, 1);
	if (re != NULL) {
		le = xcalloc((size_t)n * SD_VOCAB * sizeof(float));
		sd_forward(&e->we, n, re, le, 1);
		sd_target_logits(ld, ld, le, n, rd);
	}
	for (int i = 0; i < n; i++)
		am[i] = sd_argmax(ld + (size_t)i * SD_VOCAB);
	if (sh->logits != NULL)
		memcpy(sh->logits, ld, (size_t)n * SD_VOCAB * sizeof(float));
	free(ld);
	free(le);
	return NULL;
}
#endif

static void
cache_copy(float *dst, const float *src, size_t floats)
{
#ifdef SD_CUDA
	if (sd_cuda_copy(dst, src, floats * sizeof(float)) < 0)
		die("cuda", "cannot copy a KV cache");
#else
	memcpy(dst, src, floats * sizeof(float));
#endif
}

/* Copies positions [p0, p0 + cnt) of one network's cache (k then v,
 * [layers][cap][kvd] each) from src to dst. */
static void
copy_pos(float *dst, const float *src, const struct sd_net *n, int cap,
    int p0, int cnt)
{
	size_t kvd = (size_t)n->kvh * n->hd, half = (size_t)n->layers * cap * kvd;

	for (int h = 0; h < 2; h++)
		for (int l = 0; l < n->layers; l++) {
			size_t o = h * half + ((size_t)l * cap + p0) * kvd;

			cache_copy(dst + o, src + o, (size_t)cnt * kvd);
		}
}

/* Both parts of a target cache, D's then E's. */
static void
copy_tpos(const struct eng *e, float *dst, const float *src, int cap, int p0,
    int cnt)
{
	size_t dsz = (size_t)cap * e->dkv_floats;

	copy_pos(dst, src, &e->m->d, cap, p0, cnt);
	copy_pos(dst + dsz, src + dsz, &e->m->e, cap, p0, cnt);
}

/* One pass of the draft (re NULL) or the target over n rows: each
 * row's greedy token in am, and its logits in logits unless NULL. On
 * the CPU, AR_CPUS threads share the requests (whole caches: the rows of
 * one cache attend to each other's KV); every row is computed alone, so
 * the bits do not change. */
static void
forward(struct eng *e, int n, const struct sd_row *rd, const struct sd_row *re,
    int *am, float *logits)
{
#ifdef SD_CUDA
	char why[512];

	if (sd_cuda_forward(e->gpu, n, rd, re, am, logits, why, sizeof why) < 0)
		die("cuda", why);
#else
	struct share sh[64];
	pthread_t tid[64];
	int nt = e->nthreads < 64 ? e->nthreads : 64, k = 0, start = 0;

	for (int t = 0; t < nt && start < n; t++) {
		/* About n / nt rows each, cut between requests. */
		int end = t == nt - 1 ? n : start + (n - start) / (nt - t);

		if (end <= start)
			end = start + 1;
		while (end < n && rd[end].k == rd[end - 1].k)
			end++;
		sh[k++] = (struct share){ e, end - start, rd + start,
		    re != NULL ? re + start : NULL, am + start,
		    logits != NULL ? logits + (size_t)start * SD_VOCAB : NULL };
		start = end;
	}
	if (k == 0)
		return;
	for (int t = 1; t < k; t++)
		if (pthread_create(&tid[t], NULL, forward_share, &sh[t]) != 0)
			die("threads", strerror(errno));
	forward_share(&sh[0]);
	for (int t = 1; t < k; t++)
		pthread_join(tid[t], NULL);
#endif
}

static void
release(struct eng *e, struct rq *q)
{
	cache_free(q->tcache);
	cache_free(q->dcache);
	q->tcache = q->dcache = NULL;
	e->blocks_free += q->blocks;
	q->blocks = 0;
	q->running = 0;
	q->kv = q->dkv = q->npend = 0;
}

/* Holds KV blocks for tokens positions; 0 when the pool is short. */
static int
reserve(struct eng *e, struct rq *q, int tokens)
{
	int need = sd_blocks_for(tokens, (int)e->h.block_tokens) - q->blocks;

	if (need <= 0)
		return 1;
	if (need > e->blocks_free)
		return 0;
	e->blocks_free -= need;
	q->blocks += need;
	if (!q->running) {
		q->cap = q->t->prompt_len + q->t->out_len + SD_MAXDRAFT + 1;
		q->tcache = cache_alloc((size_t)q->cap * (e->dkv_floats +
		    e->ekv_floats));
		q->dcache = cache_alloc((size_t)q->cap * e->dkv_floats);
		q->running = 1;
	}
	return 1;
}

static void
emit(struct eng *e, struct rq *q, int32_t tok, double t)
{
	if (generated(q) == 0)
		q->first_ms = t;
	q->seq[q->len++] = tok;
	if (generated(q) == q->t->out_len) {
		q->finish_ms = t;
		q->done = 1;
		release(e, q);
	}
}

/* A target row in cache tc: part 0 is D's cache, part 1 E's, each k
 * then v. */
static struct sd_row
trow_in(const struct eng *e, const struct rq *q, float *tc, int tok, int pos,
    int part)
{
	size_t dsz = (size_t)q->cap * e->dkv_floats,
	    esz = (size_t)q->cap * e->ekv_floats;
	float *base = part == 0 ? tc : tc + dsz;
	size_t half = (part == 0 ? dsz : esz) / 2;

	return (struct sd_row){ tok, pos, q->t->dom, base, base + half, q->cap };
}

static struct sd_row
trow(const struct eng *e, const struct rq *q, int tok, int pos, int part)
{
	return trow_in(e, q, q->tcache, tok, pos, part);
}

static struct sd_row
drow_in(const struct eng *e, const struct rq *q, float *dc, int tok, int pos)
{
	size_t half = (size_t)q->cap * e->dkv_floats / 2;

	return (struct sd_row){ tok, pos, q->t->dom, dc, dc + half, q->cap };
}

static struct sd_row
drow(const struct eng *e, const struct rq *q, int tok, int pos)
{
	return drow_in(e, q, q->dcache, tok, pos);
}

/* The c best tokens of l, best first, ties to the lower index. */
static void
top_tokens(const float *l, int c, int32_t *out)
{
	for (int j = 0; j < c; j++) {
		int b = -1;

		for (int i = 0; i < SD_VOCAB; i++) {
			int taken = 0;

			for (int k = 0; k < j; k++)
				taken |= out[k] == i;
			if (!taken && (b < 0 || l[i] > l[b]))
				b = i;
		}
		out[j] = b;
	}
}

/* Candidate-parallel drafting: the draft catches up, its c best first
 * tokens start c candidates, each continued greedily in a cache of its
 * own; the candidates of all requests are drafted in the same passes,
 * which the threads (the ranks) share. */
static void
draft_cand(struct eng *e, struct rq **list, int nl)
{
	int n = 0, k = 0, most = 0;
	struct sd_row *rows;
	int *am;
	float *lg;

	for (int i = 0; i < nl; i++) {
		n += list[i]->len - list[i]->dkv;
		if (list[i]->ndraft > most)
			most = list[i]->ndraft;
	}
	rows = xcalloc((size_t)n * sizeof *rows);
	am = xcalloc((size_t)n * sizeof *am);
	lg = xcalloc((size_t)n * SD_VOCAB * sizeof(float));
	for (int i = 0; i < nl; i++) {
		struct rq *q = list[i];

		q->drow0 = k;
		for (int p = q->dkv; p < q->len; p++)
			rows[k++] = drow(e, q, q->seq[p], p);
	}
	forward(e, n, rows, NULL, am, lg);
	e->rows_d += n;
	for (int i = 0; i < nl; i++) {
		struct rq *q = list[i];
		int32_t first[SD_MAXCAND];
		int last = q->drow0 + (q->len - q->dkv) - 1;

		top_tokens(lg + (size_t)last * SD_VOCAB, q->ncand, first);
		q->dkv = q->len;
		for (int j = 0; j < q->ncand; j++) {
			q->cand[j][0] = first[j];
			q->cd[j] = j == 0 ? q->dcache :
			    cache_alloc((size_t)q->cap * e->dkv_floats);
			if (j > 0)
				copy_pos(q->cd[j], q->dcache, &e->m->d, q->cap, 0,
				    q->len);
		}
		q->drafted += q->ncand * q->ndraft;
	}
	free(rows);
	free(am);
	free(lg);
	for (int it = 1; it < most; it++) {
		n = 0;
		for (int i = 0; i < nl; i++)
			if (list[i]->ndraft > it)
				n += list[i]->ncand;
		rows = xcalloc((size_t)n * sizeof *rows);
		am = xcalloc((size_t)n * sizeof *am);
		k = 0;
		for (int i = 0; i < nl; i++) {
			struct rq *q = list[i];

			if (q->ndraft <= it)
				continue;
			q->drow0 = k;
			for (int j = 0; j < q->ncand; j++)
				rows[k++] = drow_in(e, q, q->cd[j], q->cand[j][it - 1],
				    q->len + it - 1);
		}
		forward(e, n, rows, NULL, am, NULL);
		e->rows_d += n;
		for (int i = 0; i < nl; i++) {
			struct rq *q = list[i];

			if (q->ndraft <= it)
				continue;
			for (int j = 0; j < q->ncand; j++)
				q->cand[j][it] = am[q->drow0 + j];
			q->dkv = q->len + it;
		}
		free(rows);
		free(am);
	}
	for (int i = 0; i < nl; i++) {
		struct rq *q = list[i];

		for (int j = 1; j < q->ncand; j++) {
			cache_free(q->cd[j]);
			q->cd[j] = NULL;
			/* The target's copy of the committed prefix. */
			q->ct[j] = cache_alloc((size_t)q->cap * (e->dkv_floats +
			    e->ekv_floats));
			copy_tpos(e, q->ct[j], q->tcache, q->cap, 0, q->kv);
		}
	}
}

/* The extended sequence, seq then pending, at position i. */
static int32_t
ext(const struct rq *q, int i)
{
	return i < q->len ? q->seq[i] : q->pend[i - q->len];
}

/* Draft passes: each request with drafts to make feeds the draft what
 * it has not seen of its extended sequence, and the last row's argmax
 * is its next draft token. */
static void
draft(struct eng *e, struct rq **list, int nl)
{
	int most = 0;

	for (int i = 0; i < nl; i++)
		if (list[i]->ndraft > most)
			most = list[i]->ndraft;
	for (int it = 0; it < most; it++) {
		int n = 0, k = 0;
		struct sd_row *rows;
		int *am;

		for (int i = 0; i < nl; i++)
			if (list[i]->ndraft > it)
				n += list[i]->len + list[i]->npend - list[i]->dkv;
		rows = xcalloc((size_t)n * sizeof *rows);
		am = xcalloc((size_t)n * sizeof *am);
		for (int i = 0; i < nl; i++) {
			struct rq *q = list[i];

			if (q->ndraft <= it)
				continue;
			q->drow0 = k;
			for (int p = q->dkv; p < q->len + q->npend; p++)
				rows[k++] = drow(e, q, ext(q, p), p);
		}
		forward(e, n, rows, NULL, am, NULL);
		e->rows_d += n;
		for (int i = 0; i < nl; i++) {
			struct rq *q = list[i];
			int last;

			if (q->ndraft <= it)
				continue;
			last = q->drow0 + (q->len + q->npend - q->dkv) - 1;
			q->dkv = q->len + q->npend;
			q->pend[q->npend++] = am[last];
			q->drafted++;
		}
		free(rows);
		free(am);
	}
}

/* One step: returns whether anything was done. */
static int
step(struct eng *e, struct sd_req *view, int *idx, struct sd_act *act,
    int nv)
{
	struct sd_view v;
	struct rq **dl = xcalloc((size_t)nv * sizeof *dl),
	    **dc = xcalloc((size_t)nv * sizeof *dc);
	struct sd_row *rd, *re;
	int *am, rows = 0, nd = 0, ndc = 0, did = 0, nfut = 0;
	double t;

	t = now_ms(e);
	for (uint32_t i = 0; i < e->h.nreq; i++)
		if (!e->r[i].done && e->r[i].t->arrival_ms > t)
			nfut++;
	for (int i = 0; i < nv; i++) {
		struct rq *q = &e->r[idx[i]];

		view[i] = (struct sd_req){ idx[i], q->t->cls, q->running,
		    q->t->arrival_ms, q->t->prompt_len, q->t->out_len,
		    generated(q), q->kv, to_prefill(q), q->npend, q->blocks,
		    q->drafted, q->accepted, q->verifies, q->preempts };
		act[i] = (struct sd_act){ SD_NONE, 0, 0 };
	}
	v = (struct sd_view){ t, nv, view, (int)e->h.kv_blocks,
	    e->blocks_free, (int)e->h.block_tokens, (int)e->h.max_rows, nfut,
	    e->nthreads };
	cage_ask(e->cage, &v, act);

	for (int i = 0; i < nv; i++) {
		struct rq *q = &e->r[idx[i]];

		q->op = SD_NONE;
		if (act[i].op == SD_PREEMPT) {
			if (q->running) {
				release(e, q);
				q->preempts++;
				did = 1;
			} else
				e->ignored++;
		}
	}
	for (int i = 0; i < nv; i++) {
		struct rq *q = &e->r[idx[i]];
		int op = act[i].op, n = act[i].n, ready = q->running &&
		    to_prefill(q) == 0, c = 0, need;

		if (op == SD_NONE || op == SD_PREEMPT)
			continue;
		if (op == SD_PREFILL) {
			int tp = to_prefill(q);

			if (tp <= 0 || n < 1) {
				e->ignored++;
				continue;
			}
			c = n < tp ? n : tp;
			if (c > (int)e->h.max_rows - rows)
				c = (int)e->h.max_rows - rows;
			if (c < 1 || !reserve(e, q, q->kv + c)) {
				e->stalls++;
				continue;
			}
			q->op = op, q->cnt = c, q->row0 = rows, q->nrows = c;
			rows += c;
			continue;
		}
		if (op == SD_CAND && ready && q->npend == 0 && n >= 1 &&
		    act[i].cands >= 2 && act[i].cands <= SD_MAXCAND &&
		    max_pending(q) >= 1) {
			c = n < max_pending(q) ? n : max_pending(q);
			need = act[i].cands * (1 + c);
			if (rows + need > (int)e->h.max_rows ||
			    !reserve(e, q, q->kv + 1 + c)) {
				e->stalls++;
				continue;
			}
			q->op = op, q->ndraft = c, q->ncand = act[i].cands;
			q->row0 = rows, q->nrows = need;
			rows += need;
			dc[ndc++] = q;
			continue;
		}
		if (op == SD_CAND)
			op = SD_SPEC;	/* one candidate, or none fits: SPEC */
		if (!ready || (op == SD_DECODE && q->npend > 0) ||
		    (op == SD_COMMIT_UNVERIFIED && q->npend == 0) ||
		    ((op == SD_DRAFT || op == SD_SPEC) && n < 0) ||
		    op < SD_NONE || op > SD_CAND) {
			e->ignored++;
			continue;
		}
		if (op == SD_COMMIT_UNVERIFIED) {
			q->op = op;
			continue;
		}
		if (op == SD_DRAFT || op == SD_SPEC) {
			c = max_pending(q) - q->npend;
			c = n < c ? n : c;
			if (c < 0)
				c = 0;
		}
		need = op == SD_DRAFT ? 0 : 1 + q->npend + c;
		if (rows + need > (int)e->h.max_rows ||
		    !reserve(e, q, q->kv + need)) {
			e->stalls++;
			continue;
		}
		q->op = op, q->ndraft = c, q->row0 = rows, q->nrows = need;
		rows += need;
		if (c > 0)
			dl[nd++] = q;
	}

	if (nd > 0) {
		draft(e, dl, nd);
		did = 1;
	}
	if (ndc > 0) {
		draft_cand(e, dc, ndc);
		did = 1;
	}
	rd = xcalloc((size_t)(rows + 1) * sizeof *rd);
	re = xcalloc((size_t)(rows + 1) * sizeof *re);
	for (int i = 0; i < nv; i++) {
		struct rq *q = &e->r[idx[i]];

		if (q->op == SD_PREFILL)
			for (int j = 0; j < q->cnt; j++) {
				rd[q->row0 + j] = trow(e, q, q->seq[q->kv + j], q->kv + j, 0);
				re[q->row0 + j] = trow(e, q, q->seq[q->kv + j], q->kv + j, 1);
			}
		else if (q->op == SD_DECODE || q->op == SD_VERIFY ||
		    q->op == SD_SPEC) {
			q->nrows = 1 + q->npend;
			for (int j = 0; j < q->nrows; j++) {
				int p = q->len - 1 + j;

				rd[q->row0 + j] = trow(e, q, ext(q, p), p, 0);
				re[q->row0 + j] = trow(e, q, ext(q, p), p, 1);
			}
		} else if (q->op == SD_CAND)
			for (int j = 0, r = q->row0; j < q->ncand; j++) {
				float *tc = j == 0 ? q->tcache : q->ct[j];

				for (int i = 0; i <= q->ndraft; i++, r++) {
					int p = q->len - 1 + i, tok = i == 0 ?
					    q->seq[q->len - 1] : q->cand[j][i - 1];

					rd[r] = trow_in(e, q, tc, tok, p, 0);
					re[r] = trow_in(e, q, tc, tok, p, 1);
				}
			}
	}
	am = xcalloc((size_t)(rows + 1) * sizeof *am);
	if (rows > 0) {
		forward(e, rows, rd, re, am, NULL);
		e->rows_t += rows;
		did = 1;
	}
	t = now_ms(e);
	for (int i = 0; i < nv; i++) {
		struct rq *q = &e->r[idx[i]];

		if (q->op == SD_PREFILL) {
			q->kv += q->cnt;
			if (generated(q) == 0 && q->kv == q->t->prompt_len)
				emit(e, q, am[q->row0 + q->cnt - 1], t);
		} else if (q->op == SD_COMMIT_UNVERIFIED) {
			int np = q->npend;

			q->npend = 0;
			q->unverified += np;
			for (int j = 0; j < np && !q->done; j++)
				emit(e, q, q->pend[j], t);
			did = 1;
		} else if (q->op == SD_CAND) {
			int best = 0, bm = -1, len0 = q->len, nd1 = q->ndraft + 1;

			/* The candidate the target agrees with longest. */
			for (int j = 0; j < q->ncand; j++) {
				int m = 0;

				while (m < q->ndraft && q->cand[j][m] ==
				    am[q->row0 + j * nd1 + m])
					m++;
				if (m > bm)
					bm = m, best = j;
			}
			if (best > 0)
				copy_tpos(e, q->tcache, q->ct[best], q->cap, len0 - 1,
				    bm + 1);
			for (int j = 1; j < q->ncand; j++) {
				cache_free(q->ct[j]);
				q->ct[j] = NULL;
			}
			q->verifies++;
			q->accepted += bm;
			q->kv = len0 + bm;
			/* The draft's cache holds the first candidate's tokens. */
			if (q->dkv > (best == 0 ? len0 + bm : len0))
				q->dkv = best == 0 ? len0 + bm : len0;
			{
				int32_t o = am[q->row0 + best * nd1 + bm];

				for (int j = 0; j < bm && !q->done; j++)
					emit(e, q, q->cand[best][j], t);
				if (!q->done)
					emit(e, q, o, t);
			}
		} else if (q->op == SD_DECODE || q->op == SD_VERIFY ||
		    q->op == SD_SPEC) {
			int np = q->npend, m = 0, len0 = q->len;
			int32_t o[SD_MAXDRAFT + 1], pend[SD_MAXDRAFT];

			for (int j = 0; j <= np; j++)
				o[j] = am[q->row0 + j];
			while (m < np && q->pend[m] == o[m])
				m++;
			memcpy(pend, q->pend, sizeof pend);
			q->npend = 0;
			if (np > 0) {
				q->verifies++;
				q->accepted += m;
			}
			q->kv = len0 + m;
			if (q->dkv > len0 + m)
				q->dkv = len0 + m;
			for (int j = 0; j < m && !q->done; j++)
				emit(e, q, pend[j], t);
			if (!q->done)
				emit(e, q, o[m], t);
		}
	}
	e->kv_sum += 1.0 - (double)e->blocks_free / e->h.kv_blocks;
	e->steps++;
	free(rd);
	free(re);
	free(am);
	free(dl);
	free(dc);
	return did;
}

int
main(void)
{
	const char *in = getenv("AR_IN"), *out = getenv("AR_OUT");
	struct eng e;
	struct cage cage;
	struct sd_req *view;
	struct sd_act *act;
	struct sd_stats_hdr sh;
	struct sd_rstat *st;
	int32_t *prompts, *toks;
	char *tb, model[17];
	float *dw, *ew;
	size_t tsz, dsz, esz, ntok = 0;
	int *idx, idle = 0;

	if (in == NULL || *in == '\0')
		die("AR_IN", "not set");
	if (out == NULL || *out == '\0')
		die("AR_OUT", "not set");
	memset(&e, 0, sizeof e);
	e.nthreads = 1;
	if (getenv("AR_CPUS") != NULL) {
		char *end;
		long k = strtol(getenv("AR_CPUS"), &end, 10);

		if (*end || k < 1 || k > 4096)
			die("AR_CPUS", "not an integer from 1 to 4096");
		e.nthreads = (int)k;
	}
	/* Before the weights and the GPU: the cage copies nothing big. */
	cage_open(&cage);
	e.cage = &cage;
	tb = load(in, "trace.bin", &tsz);
	if (tsz < sizeof e.h)
		die("trace.bin", "too short");
	memcpy(&e.h, tb, sizeof e.h);
	memcpy(model, e.h.model, 16);
	model[16] = '\0';
	if (e.h.magic != SD_MAGIC || e.h.nreq < 1 || e.h.nreq > SD_MAXREQ ||
	    (e.m = sd_model_find(model)) == NULL || e.h.block_tokens < 1 ||
	    tsz != sizeof e.h + e.h.nreq * sizeof(struct sd_treq) +
	    (size_t)e.h.ntok * sizeof(int32_t))
		die("trace.bin", "not a trace of gen's");
	prompts = (int32_t *)(tb + sizeof e.h + e.h.nreq * sizeof(struct sd_treq));
	dw = map(in, "d.bin", &dsz);
	ew = map(in, "e.bin", &esz);
	if (dsz != sd_net_floats(&e.m->d) * sizeof(float) ||
	    esz != sd_net_floats(&e.m->e) * sizeof(float))
		die("d.bin or e.bin", "not the size of the trace's model");
	sd_weights_map(&e.wd, &e.m->d, dw);
	sd_weights_map(&e.we, &e.m->e, ew);
	sd_rope_init(e.m->d.hd);
#ifdef SD_CUDA
	{
		char why[512];

		if (sd_cuda_devices() < 1)
			die("cuda", "no GPU: this engine was built for one");
		if (sd_cuda_open(&e.gpu, e.m, dw, ew, why, sizeof why) < 0)
			die("cuda", why);
	}
#endif
	e.dkv_floats = 2 * (size_t)e.m->d.layers * e.m->d.kvh * e.m->d.hd;
	e.ekv_floats = 2 * (size_t)e.m->e.layers * e.m->e.kvh * e.m->e.hd;
	e.blocks_free = (int)e.h.kv_blocks;
	e.r = xcalloc(e.h.nreq * sizeof *e.r);
	for (uint32_t i = 0; i < e.h.nreq; i++) {
		struct rq *q = &e.r[i];

		q->t = (const struct sd_treq *)(tb + sizeof e.h) + i;
		if (q->t->prompt_len < 1 || q->t->out_len < 1 ||
		    q->t->out_len > SD_MAXOUT || q->t->prompt_off < 0 ||
		    (uint32_t)q->t->prompt_off + (uint32_t)q->t->prompt_len > e.h.ntok ||
		    q->t->prompt_len + q->t->out_len + SD_MAXDRAFT + 1 > SD_MAXPOS)
			die("trace.bin", "a request out of bounds");
		q->seq = xcalloc((size_t)(q->t->prompt_len + q->t->out_len) *
		    sizeof(int32_t));
		memcpy(q->seq, prompts + q->t->prompt_off,
		    (size_t)q->t->prompt_len * sizeof(int32_t));
		q->len = q->t->prompt_len;
		q->first_ms = q->finish_ms = -1;
		ntok += (size_t)q->t->out_len;
	}
	view = xcalloc(e.h.nreq * sizeof *view);
	act = xcalloc(e.h.nreq * sizeof *act);
	idx = xcalloc(e.h.nreq * sizeof *idx);

	clock_gettime(CLOCK_MONOTONIC, &e.t0);
	for (;;) {
		double t = now_ms(&e), next = -1;
		int nv = 0, left = 0;

		for (uint32_t i = 0; i < e.h.nreq; i++) {
			if (e.r[i].done)
				continue;
			left++;
			if (e.r[i].t->arrival_ms <= t)
				idx[nv++] = (int)i;
			else if (next < 0 || e.r[i].t->arrival_ms < next)
				next = e.r[i].t->arrival_ms;
		}
		if (left == 0)
			break;
		if (nv == 0) {
			/* Nothing has arrived: wait for the next arrival. */
			double w = next - t;
			struct timespec ts = { (time_t)(w / 1e3),
			    (long)((w - (double)(time_t)(w / 1e3) * 1e3) * 1e6) };

			nanosleep(&ts, NULL);
			continue;
		}
		if (step(&e, view, idx, act, nv))
			idle = 0;
		else if (next >= 0) {
			/* The policy waits for arrivals: so does the clock. */
			double w = next - now_ms(&e);

			if (w > 0) {
				struct timespec ts = { (time_t)(w / 1e3),
				    (long)((w - (double)(time_t)(w / 1e3) * 1e3) * 1e6) };

				nanosleep(&ts, NULL);
			}
			idle = 0;
		} else if (++idle > MAXIDLE)
			die("policy", "makes no progress: 10000 steps did nothing "
			    "while requests waited");
	}

	cage_close(&cage);
	toks = xcalloc(ntok * sizeof *toks);
	st = xcalloc(e.h.nreq * sizeof *st);
	ntok = 0;
	for (uint32_t i = 0; i < e.h.nreq; i++) {
		struct rq *q = &e.r[i];

		memcpy(toks + ntok, q->seq + q->t->prompt_len,
		    (size_t)q->t->out_len * sizeof *toks);
		ntok += (size_t)q->t->out_len;
		st[i] = (struct sd_rstat){ q->first_ms, q->finish_ms,
		    generated(q), q->drafted, q->accepted, q->verifies,
		    q->preempts, q->unverified };
	}
	sh = (struct sd_stats_hdr){ SD_STATS_MAGIC, e.h.nreq, now_ms(&e),
	    e.steps > 0 ? e.kv_sum / e.steps : 0, e.steps, e.rows_t, e.rows_d,
	    e.stalls, e.ignored };
	save(out, "tokens.bin", toks, ntok * sizeof *toks);
	{
		size_t n = sizeof sh + e.h.nreq * sizeof *st;
		char *b = xcalloc(n);

		memcpy(b, &sh, sizeof sh);
		memcpy(b + sizeof sh, st, e.h.nreq * sizeof *st);
		save(out, "stats.bin", b, n);
		free(b);
	}
	/* Freed so that leak checkers see none. */
	for (uint32_t i = 0; i < e.h.nreq; i++) {
		release(&e, &e.r[i]);
		free(e.r[i].seq);
	}
#ifdef SD_CUDA
	sd_cuda_close(e.gpu);
#endif
	free(e.r);
	free(toks);
	free(st);
	free(view);
	free(act);
	free(idx);
	free(tb);
	munmap(dw, dsz);
	munmap(ew, esz);
	return 0;
}
