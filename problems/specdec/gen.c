/* gen: the prepare stage. From AR_SEED and the workload's variables,
 * makes the trace and the two networks' weights in $AR_IN and the
 * target's greedy decoding of every request, the reference, in $AR_REF
 * (README). The reference uses model.c's forward pass, the engine's. */
#include "judge.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "ar-stream.h"
#include "model.h"
#include "trace.h"
#ifdef SD_CUDA
#include "sd-cuda.h"
#endif

static uint64_t seed_value;

/* A decimal integer in [lo, hi], nothing else. */
static long
env_range(const char *name, long lo, long hi)
{
	const char *v = env_str(name);
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (*v < '0' || *v > '9' || errno || *end || n < lo || n > hi)
		die("%s: \"%s\" is not an integer from %ld to %ld", name, v, lo,
		    hi);
	return n;
}

static double
env_pos(const char *name, double hi)
{
	const char *v = env_str(name);
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || *end || end == v || !(x > 0) || !(x <= hi))
		die("%s: \"%s\" is not a number above 0 and at most %g", name, v,
		    hi);
	return x;
}

/* In (0, 1): never 0, so that a log of it is finite. */
static double
unif(struct ar_stream *s)
{
	return ((ar_stream_u32(s) >> 8) + 0.5) / 16777216.0;
}

static double
normal(struct ar_stream *s)
{
	double u = unif(s), v = unif(s);

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static int
lognormal_len(struct ar_stream *s, double med, double sigma, int lo, int hi)
{
	double x = med * exp(sigma * normal(s));

	return x < lo ? lo : x > hi ? hi : (int)x;
}

/* a[i] = 2 u - 1 for the label's stream of uniforms u, i < n, on every
 * core: ChaCha20's counter lets a thread start its share at any block of
 * 16 values, so the floats are those one thread would make. */
struct fill_job {
	float *a;
	size_t lo, hi;
	const char *label;
};

static void *
fill_part(void *arg)
{
	const struct fill_job *j = arg;
	struct ar_stream s;

	ar_stream_init(&s, seed_value, j->label);
	s.in[12] = (uint32_t)(j->lo / 16);
	for (size_t i = j->lo; i < j->hi; i++)
		j->a[i] = (float)(2 * unif(&s) - 1);
	return NULL;
}

static void
fill_uniform(float *a, size_t n, const char *label)
{
	struct fill_job job[32] = { { NULL, 0, 0, label } };
	pthread_t tid[32];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = ncpu < 1 ? 1 : ncpu > 32 ? 32 : (int)ncpu, started = 0;
	size_t per = (n / (size_t)nt + 15) / 16 * 16;

	if (n < 1u << 20)
		nt = 1, per = n;
	for (int t = 0; t < nt; t++) {
		job[t] = (struct fill_job){ a, (size_t)t * per,
		    (size_t)(t + 1) * per < n && t < nt - 1 ? (size_t)(t + 1) * per : n,
		    label };
		if (job[t].lo >= job[t].hi)
			break;
		if (t > 0 && pthread_create(&tid[t], NULL, fill_part, &job[t]) == 0)
			started |= 1 << t;
		else if (t > 0)
			fill_part(&job[t]);
	}
	fill_part(&job[0]);
	for (int t = 1; t < nt; t++)
		if (started & 1 << t)
			pthread_join(tid[t], NULL);
}

/* Uniform in [-a, a]: each matrix a = sqrt(3 / fan-in), so each output
 * has about unit variance; norm gains are 1. */
static float *
make_net(const struct sd_net *n, const char *label, size_t *nf)
{
	struct sd_weights w;
	float *a;
	size_t total = sd_net_floats(n);

	a = xmalloc(total * sizeof *a);
	fill_uniform(a, total, label);
	sd_weights_map(&w, n, a);
	for (int li = 0; li < n->layers; li++) {
		struct sd_layerw *l = &w.l[li];
		float sd = sqrtf(3.0f / n->dim), sq = sqrtf(3.0f / (n->heads * n->hd)),
		    sf = sqrtf(3.0f / n->ffn);
		size_t d = n->dim, q = (size_t)n->heads * n->hd,
		    kv = (size_t)n->kvh * n->hd, f = n->ffn;

		for (size_t i = 0; i < d; i++) {
			((float *)l->anorm)[i] = 1;
			((float *)l->fnorm)[i] = 1;
		}
		for (size_t i = 0; i < q * d; i++)
			((float *)l->wq)[i] *= sd;
		for (size_t i = 0; i < kv * d; i++) {
			((float *)l->wk)[i] *= sd;
			((float *)l->wv)[i] *= sd;
		}
		for (size_t i = 0; i < d * q; i++)
			((float *)l->wo)[i] *= sq;
		for (size_t i = 0; i < f * d; i++) {
			((float *)l->w1)[i] *= sd;
			((float *)l->w3)[i] *= sd;
			((float *)l->w2)[i] *= sf;
		}
	}
	for (int i = 0; i < n->dim; i++)
		((float *)w.fnorm)[i] = 1;
	for (size_t i = 0; i < (size_t)SD_VOCAB * n->dim; i++)
		((float *)w.head)[i] *= sqrtf(3.0f / n->dim);
	/* bf16 values, so that the GPU's bf16 weights are these exactly. */
	for (size_t i = 0; i < total; i++) {
		union { float f; uint32_t u; } b = { a[i] };

		b.u = (b.u + 0x7fffu + ((b.u >> 16) & 1u)) & 0xffff0000u;
		a[i] = b.f;
	}
	*nf = total;
	return a;
}

/* The target's greedy decoding of request r alone, on the CPU (model.c,
 * the engine's own forward pass): its prompt in one pass, then one token
 * at a time; the first ntok tokens in o. */
static void
decode_alone(const struct sd_model *m, const struct sd_weights *wd,
    const struct sd_weights *we, const struct sd_treq *r, const int32_t *tok,
    int ntok, int32_t *o)
{
	int cap = r->prompt_len + r->out_len, n = r->prompt_len;
	size_t kd = (size_t)m->d.layers * cap * m->d.kvh * m->d.hd,
	    ke = (size_t)m->e.layers * cap * m->e.kvh * m->e.hd;
	float *kvd = xmalloc(2 * kd * sizeof(float)),
	    *kve = xmalloc(2 * ke * sizeof(float));
	struct sd_row *rd = xmalloc((size_t)n * sizeof *rd),
	    *re = xmalloc((size_t)n * sizeof *re);
	float *ld = xmalloc((size_t)n * SD_VOCAB * sizeof(float)),
	    *le = xmalloc((size_t)n * SD_VOCAB * sizeof(float)),
	    *lt = xmalloc(SD_VOCAB * sizeof(float));

	for (int j = 0; j < n; j++) {
		rd[j] = (struct sd_row){ tok[r->prompt_off + j], j, r->dom,
		    kvd, kvd + kd, cap };
		re[j] = (struct sd_row){ tok[r->prompt_off + j], j, r->dom,
		    kve, kve + ke, cap };
	}
	for (int g = 0; g < ntok; g++) {
		int next;

		sd_forward(wd, n, rd, ld, 1);
		sd_forward(we, n, re, le, 1);
		sd_target_logits(lt, ld + (size_t)(n - 1) * SD_VOCAB,
		    le + (size_t)(n - 1) * SD_VOCAB, 1, &rd[n - 1]);
		next = sd_argmax(lt);
		o[g] = next;
		rd[0].tok = re[0].tok = next;
		rd[0].pos = re[0].pos = r->prompt_len + g;
		n = 1;
	}
	free(kvd);
	free(kve);
	free(rd);
	free(re);
	free(ld);
	free(le);
	free(lt);
}

/* What one core reaches with model.c's fixed-order sums, in GFLOP/s:
 * what the CPU's reference and gen's certificate are sized by. */
#define CPU_GFLOPS 2.0

#ifdef SD_CUDA
/* The reference on the GPU (the "gpu" size would take the CPU minutes
 * a pair): the same greedy decoding of every request, with the engine's
 * CUDA kernels, which compute model.c's bits whatever a row's batch
 * (tests/specdec-cuda-test). The requests go side by side, each its
 * whole prompt in its first pass and then a token a pass, at most
 * REF_ROWS rows a pass; certify() then checks a few requests against
 * model.c alone. */
#define REF_ROWS 4096

static void
ref_gpu(const struct sd_model *m, const float *dw, const float *ew,
    const struct sd_treq *rq, long nreq, const int32_t *tok,
    const size_t *ooff, int32_t *out)
{
	struct sd_cuda *c;
	char why[512];
	float **kd = xmalloc((size_t)nreq * sizeof *kd),
	    **ke = xmalloc((size_t)nreq * sizeof *ke);
	int *made = xmalloc((size_t)nreq * sizeof *made),
	    *am = xmalloc(REF_ROWS * sizeof *am),
	    *last = xmalloc(REF_ROWS * sizeof *last),
	    *lastrow = xmalloc(REF_ROWS * sizeof *lastrow);
	struct sd_row *rd = xmalloc(REF_ROWS * sizeof *rd),
	    *re = xmalloc(REF_ROWS * sizeof *re);
	long done = 0;

	if (sd_cuda_open(&c, m, dw, ew, why, sizeof why) < 0)
		die("cuda: %s", why);
	for (long i = 0; i < nreq; i++) {
		kd[i] = ke[i] = NULL;
		made[i] = 0;
		if (rq[i].prompt_len > REF_ROWS)
			die("request %ld: a prompt of %d tokens", i,
			    rq[i].prompt_len);
	}
	while (done < nreq) {
		int n = 0, nl = 0;

		for (long i = 0; i < nreq; i++) {
			const struct sd_treq *r = &rq[i];
			int cap = r->prompt_len + r->out_len,
			    rows = made[i] == 0 ? r->prompt_len : 1;
			size_t sd = (size_t)m->d.layers * cap * m->d.kvh * m->d.hd,
			    se = (size_t)m->e.layers * cap * m->e.kvh * m->e.hd;

			if (made[i] == r->out_len || n + rows > REF_ROWS)
				continue;
			if (kd[i] == NULL &&
			    ((kd[i] = sd_cuda_alloc(2 * sd * sizeof(float))) == NULL ||
			    (ke[i] = sd_cuda_alloc(2 * se * sizeof(float))) == NULL))
				die("cuda: no GPU memory for request %ld's KV cache", i);
			for (int j = 0; j < rows; j++, n++) {
				int t = made[i] == 0 ? tok[r->prompt_off + j] :
				    out[ooff[i] + made[i] - 1],
				    pos = made[i] == 0 ? j : r->prompt_len + made[i] - 1;

				rd[n] = (struct sd_row){ t, pos, r->dom, kd[i],
				    kd[i] + sd, cap };
				re[n] = (struct sd_row){ t, pos, r->dom, ke[i],
				    ke[i] + se, cap };
			}
			last[nl] = (int)i;
			lastrow[nl++] = n - 1;
		}
		if (sd_cuda_forward(c, n, rd, re, am, NULL, why, sizeof why) < 0)
			die("cuda: %s", why);
		for (int j = 0; j < nl; j++) {
			long i = last[j];

			out[ooff[i] + made[i]] = am[lastrow[j]];
			if (++made[i] == rq[i].out_len) {
				sd_cuda_free(kd[i]);
				sd_cuda_free(ke[i]);
				kd[i] = ke[i] = NULL;
				done++;
			}
		}
	}
	sd_cuda_close(c);
	free(kd);
	free(ke);
	free(made);
	free(am);
	free(last);
	free(lastrow);
	free(rd);
	free(re);
}

/* The GPU's reference must be model.c's: the CERTIFY requests with the
 * shortest prompts (the cheapest on the CPU) are decoded alone on the
 * CPU, their first CERTIFY_TOKENS tokens compared, or fewer where a
 * request's rows would take a core more than CERTIFY_S at CPU_GFLOPS
 * (the 1b size: a row of T is 2 GFLOP), but at least one. A device that
 * computes other bits stops the prepare stage rather than judge runs
 * against a wrong reference. */
#define CERTIFY 3
#define CERTIFY_TOKENS 12
#define CERTIFY_S 8.0

struct cert_job {
	const struct sd_model *m;
	const struct sd_weights *wd, *we;
	const struct sd_treq *r;
	const int32_t *tok;
	int n;
	int32_t o[CERTIFY_TOKENS];
};

static void *
cert_part(void *arg)
{
	struct cert_job *j = arg;

	decode_alone(j->m, j->wd, j->we, j->r, j->tok, j->n, j->o);
	return NULL;
}

static void
certify(const struct sd_model *m, const struct sd_weights *wd,
    const struct sd_weights *we, const struct sd_treq *rq, long nreq,
    const int32_t *tok, const size_t *ooff, const int32_t *out)
{
	long pick[CERTIFY] = { 0 };
	int np = 0, started[CERTIFY] = { 0 };
	struct cert_job job[CERTIFY];
	pthread_t tid[CERTIFY];
	double per = 2.0 * (double)(sd_net_floats(&m->d) +
	    sd_net_floats(&m->e)) / 1e9;

	for (long i = 0; i < nreq; i++) {
		int at = np < CERTIFY ? np++ : CERTIFY;

		if (at == CERTIFY) {
			if (rq[i].prompt_len >= rq[pick[CERTIFY - 1]].prompt_len)
				continue;
			at = CERTIFY - 1;
		}
		while (at > 0 && rq[pick[at - 1]].prompt_len > rq[i].prompt_len) {
			pick[at] = pick[at - 1];
			at--;
		}
		pick[at] = i;
	}
	/* Each request on a core of its own. */
	for (int p = 0; p < np; p++) {
		const struct sd_treq *r = &rq[pick[p]];

		int n = r->out_len < CERTIFY_TOKENS ? r->out_len : CERTIFY_TOKENS,
		    fit = (int)(CERTIFY_S * CPU_GFLOPS / per) - r->prompt_len + 1;

		if (n > fit)
			n = fit < 1 ? 1 : fit;
		job[p] = (struct cert_job){ m, wd, we, r, tok, n, { 0 } };
		started[p] = pthread_create(&tid[p], NULL, cert_part, &job[p]) == 0;
		if (!started[p])
			cert_part(&job[p]);
	}
	for (int p = 0; p < np; p++) {
		if (started[p])
			pthread_join(tid[p], NULL);
		for (int g = 0; g < job[p].n; g++)
			if (job[p].o[g] != out[ooff[pick[p]] + g])
				die("the GPU's reference differs from model.c's at "
				    "request %ld, token %d: the device does not compute "
				    "the CPU's bits", pick[p], g);
	}
}
#endif

/* The CPU's reference must fit the prepare stage: a trace whose
 * greedy decoding would take one core more than CPU_REF_S seconds (at
 * CPU_GFLOPS, about what model.c's fixed-order sums reach) is refused
 * at once, rather than cut by the stage's timeout minutes later, unless
 * the GPU makes it. */
#define CPU_REF_S 200.0

static void
cpu_ref_fits(const struct sd_model *m, const struct sd_treq *rq, long nreq)
{
	double rows = 0, per = 2.0 * (double)(sd_net_floats(&m->d) +
	    sd_net_floats(&m->e)) / 1e9, secs;

#ifdef SD_CUDA
	if (sd_cuda_devices() > 0)
		return;
#endif
	for (long i = 0; i < nreq; i++)
		rows += rq[i].prompt_len + rq[i].out_len - 1;
	secs = rows * per / CPU_GFLOPS;
	if (secs > CPU_REF_S)
		die("MODEL %s: the reference of %ld requests (%.0f rows of %.2g "
		    "GFLOP) would take one CPU about %.0f minutes; it is made "
		    "on a GPU (ar-bench -G)", m->name, nreq, rows, per,
		    secs / 60);
}

int
main(void)
{
	const char *in, *ref, *seed, *mname;
	const struct sd_model *m;
	struct sd_trace_hdr h;
	struct sd_treq *rq;
	struct sd_weights wd, we;
	struct ar_stream s;
	int32_t *tok, *out;
	size_t *ooff;
	float *dw, *ew;
	size_t nd, ne, nout = 0;
	double rate, burst, t = 0;
	long nreq, pmed, pmax, omed, omax, dlo, dhi;
	char *end;

	prog = "gen";
	in = env_str("AR_IN");
	ref = env_str("AR_REF");
	seed = env_str("AR_SEED");
	errno = 0;
	seed_value = strtoull(seed, &end, 10);
	if (*seed < '0' || *seed > '9' || errno || *end)
		die("AR_SEED: \"%s\" is not a decimal 64-bit number", seed);
	mname = env_str("MODEL");
	if ((m = sd_model_find(mname)) == NULL || strlen(mname) >= 16)
		die("MODEL: \"%s\" is not a model size (cpu, tiny, gpu, 1b)", mname);
	nreq = env_range("NREQ", 1, SD_MAXREQ);
	rate = env_pos("RATE", 1e6);
	burst = env_pos("BURST", 1000);
	pmed = env_range("PROMPT_MED", 2, 400);
	pmax = env_range("PROMPT_MAX", pmed, 400);
	omed = env_range("OUT_MED", 1, SD_MAXOUT);
	omax = env_range("OUT_MAX", omed, SD_MAXOUT);
	dlo = env_range("DOM_LO", 0, SD_NDOM - 1);
	dhi = env_range("DOM_HI", dlo, SD_NDOM - 1);
	if (burst < 1)
		die("BURST: %g is below 1 (the mean burst's size)", burst);

	memset(&h, 0, sizeof h);
	h.magic = SD_MAGIC;
	h.nreq = (uint32_t)nreq;
	h.kv_blocks = (uint32_t)env_range("KV_BLOCKS", 1, 1L << 20);
	h.block_tokens = 16;
	h.max_rows = (uint32_t)env_range("MAX_ROWS", 1, 65536);
	snprintf(h.model, sizeof h.model, "%s", mname);
	if (h.kv_blocks * h.block_tokens < (uint32_t)(pmax + omax + 16))
		die("KV_BLOCKS: %u blocks cannot hold one request of %ld tokens",
		    h.kv_blocks, pmax + omax + 16);

	/* The trace: bursts whose starts are a Poisson process (BURST 1 is
	 * plain Poisson), sizes geometric with mean BURST; classes 1:2:1;
	 * ShareGPT-like lognormal lengths, clipped. */
	rq = xmalloc((size_t)nreq * sizeof *rq);
	tok = xmalloc((size_t)nreq * (size_t)pmax * sizeof *tok);
	ar_stream_init(&s, seed_value, "trace");
	for (long i = 0, left = 0; i < nreq; i++) {
		struct sd_treq *r = &rq[i];

		if (left == 0) {
			t += -log(unif(&s)) * burst / rate * 1e3;
			left = burst <= 1 ? 1 :
			    1 + (long)floor(log(unif(&s)) / log(1 - 1 / burst));
		}
		left--;
		memset(r, 0, sizeof *r);
		r->arrival_ms = t;
		r->cls = (int32_t)(ar_stream_u32(&s) % 4);
		r->cls = r->cls == 0 ? SD_CLS_INTERACTIVE : r->cls == 3 ?
		    SD_CLS_BATCH : SD_CLS_STANDARD;
		r->prompt_len = lognormal_len(&s, (double)pmed, 1.0, 2, (int)pmax);
		r->out_len = lognormal_len(&s, (double)omed, 0.8, 1, (int)omax);
		r->dom = (int32_t)(dlo + ar_stream_u32(&s) % (uint32_t)(dhi - dlo + 1));
		r->prompt_off = (int32_t)h.ntok;
		tok[h.ntok] = r->dom;
		for (int j = 1; j < r->prompt_len; j++)
			tok[h.ntok + j] = (int32_t)(SD_NDOM + ar_stream_u32(&s) %
			    (SD_VOCAB - SD_NDOM));
		h.ntok += (uint32_t)r->prompt_len;
		nout += (size_t)r->out_len;
	}

	cpu_ref_fits(m, rq, nreq);
	dw = make_net(&m->d, "d", &nd);
	ew = make_net(&m->e, "e", &ne);
	sd_weights_map(&wd, &m->d, dw);
	sd_weights_map(&we, &m->e, ew);
	sd_rope_init(m->d.hd);

	/* The reference, out_len tokens of each request, in trace order. */
	out = xmalloc(nout * sizeof *out);
	ooff = xmalloc((size_t)nreq * sizeof *ooff);
	for (long i = 0, o = 0; i < nreq; i++) {
		ooff[i] = (size_t)o;
		o += rq[i].out_len;
	}
#ifdef SD_CUDA
	if (sd_cuda_devices() > 0) {
		ref_gpu(m, dw, ew, rq, nreq, tok, ooff, out);
		certify(m, &wd, &we, rq, nreq, tok, ooff, out);
	} else
#endif
		for (long i = 0; i < nreq; i++)
			decode_alone(m, &wd, &we, &rq[i], tok, rq[i].out_len,
			    out + ooff[i]);
	{
		size_t hs = sizeof h, rs = (size_t)nreq * sizeof *rq,
		    ts = (size_t)h.ntok * sizeof *tok;
		char *buf = xmalloc(hs + rs + ts);

		memcpy(buf, &h, hs);
		memcpy(buf + hs, rq, rs);
		memcpy(buf + hs + rs, tok, ts);
		write_file(in, "trace.bin", buf, hs + rs + ts);
		free(buf);
	}
	write_file(in, "d.bin", dw, nd * sizeof *dw);
	write_file(in, "e.bin", ew, ne * sizeof *ew);
	write_file(ref, "ref.bin", out, nout * sizeof *out);
	free(rq);
	free(tok);
	free(dw);
	free(ew);
	free(out);
	free(ooff);
	return 0;
}
