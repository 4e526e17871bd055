/* model.c: the networks of model.h on the CPU, row by row, in a fixed
 * order of operations (the reference every device must reproduce). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Sizes: "cpu" runs a 512-request trace in seconds on one core;
 * "tiny" is for tests; "gpu" (T about 146M parameters, D about 11M, head
 * dim 64) runs a 512-request trace in seconds on one GPU, where gen makes
 * the reference on the GPU too (gen.c). "1b" is the 1B-shaped
 * target: E has Llama 3.2 1B's layers (dim 2048, 16 layers, 32 heads of
 * 64 over 8 KV heads, ffn 8192), T about 1.01B parameters, and a draft
 * of 38M, about 4% of T, as real drafts are. D costs about a fifth of T
 * (D + E) on the CPU sizes. */
static const struct sd_model models[] = {
	{ "cpu",  { 64, 2, 4, 2, 16, 128 }, { 96, 3, 6, 2, 16, 256 } },
	{ "tiny", { 32, 1, 2, 1, 16, 64 },  { 48, 2, 3, 1, 16, 96 } },
	{ "gpu",  { 512, 4, 8, 2, 64, 1408 }, { 1024, 12, 16, 4, 64, 2816 } },
	{ "1b",   { 768, 6, 12, 4, 64, 2048 }, { 2048, 16, 32, 8, 64, 8192 } },
};

const struct sd_model *
sd_model_find(const char *name)
{
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
		if (strcmp(models[i].name, name) == 0)
			return &models[i];
	return NULL;
}

static size_t
layer_floats(const struct sd_net *n)
{
	size_t d = (size_t)n->dim, q = (size_t)n->heads * n->hd,
	    kv = (size_t)n->kvh * n->hd, f = (size_t)n->ffn;

	return d + q * d + 2 * kv * d + d * q + d + 2 * f * d + d * f;
}

size_t
sd_net_floats(const struct sd_net *n)
{
	return (size_t)SD_VOCAB * n->dim * 2 + (size_t)n->dim +
	    (size_t)n->layers * layer_floats(n);
}

void
sd_weights_map(struct sd_weights *w, const struct sd_net *n, const float *a)
{
	size_t d = (size_t)n->dim, q = (size_t)n->heads * n->hd,
	    kv = (size_t)n->kvh * n->hd, f = (size_t)n->ffn;

	w->net = n;
	w->emb = a;
	a += SD_VOCAB * d;
	for (int i = 0; i < n->layers; i++) {
		struct sd_layerw *l = &w->l[i];

		l->anorm = a, a += d;
		l->wq = a, a += q * d;
		l->wk = a, a += kv * d;
		l->wv = a, a += kv * d;
		l->wo = a, a += d * q;
		l->fnorm = a, a += d;
		l->w1 = a, a += f * d;
		l->w3 = a, a += f * d;
		l->w2 = a, a += d * f;
	}
	w->fnorm = a;
	a += d;
	w->head = a;
}

/* Domain 0 is T = D exactly; the others rise geometrically, so that a
 * workload's range of domains sets its range of acceptance. */
float
sd_domain_scale(int dom)
{
	static const float s[SD_NDOM] = {
		0.0f, 0.02f, 0.04f, 0.06f, 0.08f, 0.10f, 0.13f, 0.16f,
		0.20f, 0.25f, 0.30f, 0.40f, 0.50f, 0.70f, 1.00f, 1.50f,
	};

	return dom >= 0 && dom < SD_NDOM ? s[dom] : 0.0f;
}

static float rope_c[SD_MAXPOS * 32], rope_s[SD_MAXPOS * 32];

void
sd_rope_init(int hd)
{
	int h = hd / 2;

	for (int p = 0; p < SD_MAXPOS; p++)
		for (int i = 0; i < h; i++) {
			double a = p * pow(10000.0, -2.0 * i / hd);

			rope_c[p * h + i] = (float)cos(a);
			rope_s[p * h + i] = (float)sin(a);
		}
}

const float *sd_rope_cos(void) { return rope_c; }
const float *sd_rope_sin(void) { return rope_s; }

/* The order of a warp (cuda.cu): chunks of 8 elements go to lanes 0 to
 * 31 in turn, each lane sums its chunks' products in order, and the 32
 * lanes are summed in the tree of a shuffle-down reduction. The same
 * bits on either device, whatever the batch; n is a multiple of 8. */
float
sd_dot(const float *a, const float *b, int n)
{
	float s[32] = { 0 };

	for (int c = 0; c < n / 8; c++)
		for (int e = 0; e < 8; e++)
			s[c % 32] += a[c * 8 + e] * b[c * 8 + e];
	for (int off = 16; off > 0; off /= 2)
		for (int j = 0; j < off; j++)
			s[j] += s[j + off];
	return s[0];
}

/* exp(x) from + and * alone, rounded the same on the CPU and the GPU
 * (libm's expf and CUDA's differ in the last bits): 2^n * p(r), r =
 * x - n ln 2 in two parts, p of degree 6; 0 below -87. */
float
sd_exp(float x)
{
	union { float f; uint32_t u; } t;
	float n, r, p;

	if (x < -87.0f)
		return 0.0f;
	if (x > 88.0f)
		x = 88.0f;
	n = floorf(x * 1.44269504f + 0.5f);
	r = x - n * 0.693145752f;
	r = r - n * 1.42860677e-6f;
	p = 1.0f / 720;
	p = p * r + 1.0f / 120;
	p = p * r + 1.0f / 24;
	p = p * r + 1.0f / 6;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;
	t.u = (uint32_t)((int)n + 127) << 23;
	return p * t.f;
}

void
sd_rmsnorm(float *y, const float *x, const float *g, int dim)
{
	float ss = sd_dot(x, x, dim), r = 1.0f / sqrtf(ss / (float)dim + 1e-5f);

	for (int i = 0; i < dim; i++)
		y[i] = x[i] * r * g[i];
}

/* Rotates the pairs (i, i + hd/2) of every head by pos * theta_i. */
void
sd_rope(float *x, int nheads, int hd, int pos)
{
	int h = hd / 2;
	const float *c = rope_c + (size_t)pos * h, *s = rope_s + (size_t)pos * h;

	for (int k = 0; k < nheads; k++) {
		float *v = x + (size_t)k * hd;

		for (int i = 0; i < h; i++) {
			float a = v[i], b = v[i + h];

			v[i] = a * c[i] - b * s[i];
			v[i + h] = a * s[i] + b * c[i];
		}
	}
}

float
sd_silu(float a)
{
	return a / (1.0f + sd_exp(-a));
}

/* Attention's dot products, over a head: in order, one thread's. */
float
sd_dot_seq(const float *a, const float *b, int n)
{
	float s = 0;

	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

/* One row's attention over its cache's positions 0..pos, in order;
 * kc and vc are one layer's [cap][kvh * hd]; scratch holds pos + 1. */
void
sd_attend(float *out, const float *q, const float *kc, const float *vc,
    int pos, int heads, int kvh, int hd, float *scratch)
{
	int kvd = kvh * hd, grp = heads / kvh;
	float scale = 1.0f / sqrtf((float)hd);

	for (int h = 0; h < heads; h++) {
		const float *qh = q + (size_t)h * hd;
		int g = h / grp;
		float mx = -INFINITY, sum = 0;
		float *o = out + (size_t)h * hd;

		for (int t = 0; t <= pos; t++) {
			scratch[t] = sd_dot_seq(qh, kc + (size_t)t * kvd + g * hd,
			    hd) * scale;
			if (scratch[t] > mx)
				mx = scratch[t];
		}
		for (int t = 0; t <= pos; t++) {
			scratch[t] = sd_exp(scratch[t] - mx);
			sum += scratch[t];
		}
		for (int i = 0; i < hd; i++)
			o[i] = 0;
		for (int t = 0; t <= pos; t++) {
			const float *v = vc + (size_t)t * kvd + g * hd;
			float p = scratch[t] / sum;

			for (int i = 0; i < hd; i++)
				o[i] += p * v[i];
		}
	}
}

/* y[r][o] = W[o] . x[r]: each output one fixed-order dot product. */
static void
matmul(float *y, const float *x, const float *w, int n, int in, int out)
{
#ifdef SD_NONINVARIANT
	/* Only for tests/specdec.bats: a kernel that, like a GEMM choosing
	 * a lower precision for large batches, rounds its inputs and outputs
	 * to bf16 when it has more than one row. The score must catch it. */
	float *xr = NULL;

	if (n > 1 && (xr = malloc(sizeof(float) * (size_t)n * in)) != NULL) {
		for (size_t i = 0; i < (size_t)n * in; i++) {
			uint32_t u;

			memcpy(&u, &x[i], 4);
			u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
			memcpy(&xr[i], &u, 4);
		}
		x = xr;
	}
#endif
	for (int o = 0; o < out; o++) {
		const float *wo = w + (size_t)o * in;

		for (int r = 0; r < n; r++)
			y[(size_t)r * out + o] = sd_dot(x + (size_t)r * in, wo, in);
	}
#ifdef SD_NONINVARIANT
	if (xr != NULL)
		for (size_t i = 0; i < (size_t)n * out; i++) {
			uint32_t u;

			memcpy(&u, &y[i], 4);
			u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
			memcpy(&y[i], &u, 4);
		}
	free(xr);
#endif
}

void
sd_forward(const struct sd_weights *w, int n, const struct sd_row *rows,
    float *logits, int nthreads)
{
	const struct sd_net *net = w->net;
	int d = net->dim, qd = net->heads * net->hd, kvd = net->kvh * net->hd,
	    f = net->ffn, maxpos = 0;
	float *x, *xn, *q, *k, *v, *att, *h1, *h3, *tmp, *sc;

	(void)nthreads;
	for (int r = 0; r < n; r++)
		if (rows[r].pos > maxpos)
			maxpos = rows[r].pos;
	x = malloc(sizeof(float) * ((size_t)n * (3 * d + 2 * qd + 2 * kvd +
	    2 * f) + (size_t)maxpos + 1));
	if (x == NULL)
		abort();
	xn = x + (size_t)n * d;
	tmp = xn + (size_t)n * d;
	q = tmp + (size_t)n * d;
	att = q + (size_t)n * qd;
	k = att + (size_t)n * qd;
	v = k + (size_t)n * kvd;
	h1 = v + (size_t)n * kvd;
	h3 = h1 + (size_t)n * f;
	sc = h3 + (size_t)n * f;

	for (int r = 0; r < n; r++)
		memcpy(x + (size_t)r * d, w->emb + (size_t)rows[r].tok * d,
		    sizeof(float) * d);
	for (int li = 0; li < net->layers; li++) {
		const struct sd_layerw *l = &w->l[li];

		for (int r = 0; r < n; r++)
			sd_rmsnorm(xn + (size_t)r * d, x + (size_t)r * d, l->anorm, d);
		matmul(q, xn, l->wq, n, d, qd);
		matmul(k, xn, l->wk, n, d, kvd);
		matmul(v, xn, l->wv, n, d, kvd);
		for (int r = 0; r < n; r++) {
			const struct sd_row *rw = &rows[r];
			size_t off = ((size_t)li * rw->cap + rw->pos) * kvd;

			sd_rope(q + (size_t)r * qd, net->heads, net->hd, rw->pos);
			sd_rope(k + (size_t)r * kvd, net->kvh, net->hd, rw->pos);
			memcpy(rw->k + off, k + (size_t)r * kvd, sizeof(float) * kvd);
			memcpy(rw->v + off, v + (size_t)r * kvd, sizeof(float) * kvd);
		}
		for (int r = 0; r < n; r++) {
			const struct sd_row *rw = &rows[r];
			size_t lo = (size_t)li * rw->cap * kvd;

			sd_attend(att + (size_t)r * qd, q + (size_t)r * qd,
			    rw->k + lo, rw->v + lo, rw->pos, net->heads, net->kvh,
			    net->hd, sc);
		}
		matmul(tmp, att, l->wo, n, qd, d);
		for (size_t i = 0; i < (size_t)n * d; i++)
			x[i] += tmp[i];
		for (int r = 0; r < n; r++)
			sd_rmsnorm(xn + (size_t)r * d, x + (size_t)r * d, l->fnorm, d);
		matmul(h1, xn, l->w1, n, d, f);
		matmul(h3, xn, l->w3, n, d, f);
		for (size_t i = 0; i < (size_t)n * f; i++)
			h1[i] = sd_silu(h1[i]) * h3[i];
		matmul(tmp, h1, l->w2, n, f, d);
		for (size_t i = 0; i < (size_t)n * d; i++)
			x[i] += tmp[i];
	}
	for (int r = 0; r < n; r++)
		sd_rmsnorm(xn + (size_t)r * d, x + (size_t)r * d, w->fnorm, d);
	matmul(logits, xn, w->head, n, d, SD_VOCAB);
	free(x);
}

void
sd_target_logits(float *l, const float *ld, const float *le, int n,
    const struct sd_row *rows)
{
	for (int r = 0; r < n; r++) {
		float s = sd_domain_scale(rows[r].dom);

		for (int i = 0; i < SD_VOCAB; i++) {
			size_t j = (size_t)r * SD_VOCAB + i;

			l[j] = ld[j] + s * le[j];
		}
	}
}

/* The first of equal maxima: ties break the same way everywhere. */
int
sd_argmax(const float *l)
{
	int b = 0;

	for (int i = 1; i < SD_VOCAB; i++)
		if (l[i] > l[b])
			b = i;
	return b;
}
