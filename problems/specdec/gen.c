/* gen: the prepare stage. From AR_SEED and the workload's variables,
 * makes the trace and the two networks' weights in $AR_IN and the
 * target's greedy decoding of every request, the reference, in $AR_REF
 * (README). The reference uses model.c's forward pass, the engine's. */
#include "judge.h"

#include <math.h>

#include "ar-stream.h"
#include "model.h"
#include "trace.h"

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

/* Uniform in [-a, a]: each matrix a = sqrt(3 / fan-in), so each output
 * has about unit variance; norm gains are 1. */
static float *
make_net(const struct sd_net *n, const char *label, size_t *nf)
{
	struct ar_stream s;
	struct sd_weights w;
	float *a;
	size_t total = sd_net_floats(n);

	a = xmalloc(total * sizeof *a);
	ar_stream_init(&s, seed_value, label);
	for (size_t i = 0; i < total; i++)
		a[i] = (float)(2 * unif(&s) - 1);
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
		die("MODEL: \"%s\" is not a model size (cpu, tiny)", mname);
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

	dw = make_net(&m->d, "d", &nd);
	ew = make_net(&m->e, "e", &ne);
	sd_weights_map(&wd, &m->d, dw);
	sd_weights_map(&we, &m->e, ew);
	sd_rope_init(m->d.hd);

	/* The reference: each request alone, its prompt in one pass, then
	 * one token at a time, greedy. */
	out = xmalloc(nout * sizeof *out);
	nout = 0;
	for (long i = 0; i < nreq; i++) {
		const struct sd_treq *r = &rq[i];
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
		int next;

		for (int j = 0; j < n; j++) {
			rd[j] = (struct sd_row){ tok[r->prompt_off + j], j, r->dom,
			    kvd, kvd + kd, cap };
			re[j] = (struct sd_row){ tok[r->prompt_off + j], j, r->dom,
			    kve, kve + ke, cap };
		}
		for (int g = 0; g < r->out_len; g++) {
			sd_forward(&wd, n, rd, ld, 1);
			sd_forward(&we, n, re, le, 1);
			sd_target_logits(lt, ld + (size_t)(n - 1) * SD_VOCAB,
			    le + (size_t)(n - 1) * SD_VOCAB, 1, &rd[n - 1]);
			next = sd_argmax(lt);
			out[nout++] = next;
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
	return 0;
}
