/*
 * specdec-cuda-test: problems/specdec's CUDA kernels (kernels/specdec.cu)
 * against their CPU references (problems/specdec/model.c), bit for bit:
 * each kernel alone, then whole forward passes of the draft and the
 * target, and batch invariance (a row's logits alone, in a batch with
 * another request's rows and as a decode step after its prefill). First
 * the CPU's own batch invariance, which needs no GPU. Prints TAP lines
 * and "specdec-cuda-test: N passed, M failed"; exits 0 when all pass,
 * 77 when there is no GPU (after the CPU tests), 1 otherwise. With
 * --bench [SIZE], times the GEMM kernel and whole passes at SIZE (default
 * the "gpu" size) instead (JSON lines; 77 without a GPU).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "sd-cuda.h"

static int ntest, nfail;
static char why[512];

static int
ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	printf("%s %d - ", cond ? "ok" : "not ok", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		nfail++;
	return cond;
}

static void *
xcalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (p == NULL) {
		fprintf(stderr, "specdec-cuda-test: out of memory\n");
		exit(1);
	}
	return p;
}

/* A fixed test pattern (not an input of the problem: any generator
 * will do), rounded to bf16 as gen's weights are. */
static uint64_t rs = 0x9e3779b97f4a7c15u;

static float
bf16(float f)
{
	union { float f; uint32_t u; } b = { f };

	b.u = (b.u + 0x7fffu + ((b.u >> 16) & 1u)) & 0xffff0000u;
	return b.f;
}

static float
rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (float)((double)(rs >> 11) / 9007199254740992.0 * 2 - 1);
}

/* bf16 values after the scale: the GPU's weights are these exactly. */
static void
fill(float *a, size_t n, float scale)
{
	for (size_t i = 0; i < n; i++)
		a[i] = bf16(rnd() * scale);
}

/* Positions where a and b differ, bitwise. */
static size_t
differ(const float *a, const float *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += memcmp(&a[i], &b[i], sizeof(float)) != 0;
	return d;
}

/* Weights like gen's: uniform, scaled by fan-in, norms at 1. */
static float *
net_weights(const struct sd_net *n)
{
	size_t total = sd_net_floats(n);
	float *a = xcalloc(total * sizeof *a);

	fill(a, total, 0.2f);
	return a;
}

/* One request's caches on the host or the device. */
struct req {
	float *kd, *vd, *ke, *ve;
	int cap;
};

static void
req_host(struct req *r, const struct sd_model *m, int cap)
{
	size_t d = (size_t)m->d.layers * cap * m->d.kvh * m->d.hd,
	    e = (size_t)m->e.layers * cap * m->e.kvh * m->e.hd;

	r->kd = xcalloc(d * 4), r->vd = xcalloc(d * 4);
	r->ke = xcalloc(e * 4), r->ve = xcalloc(e * 4);
	r->cap = cap;
}

static int
req_dev(struct req *r, const struct sd_model *m, int cap)
{
	size_t d = (size_t)m->d.layers * cap * m->d.kvh * m->d.hd * 4,
	    e = (size_t)m->e.layers * cap * m->e.kvh * m->e.hd * 4;

	r->kd = sd_cuda_alloc(d), r->vd = sd_cuda_alloc(d);
	r->ke = sd_cuda_alloc(e), r->ve = sd_cuda_alloc(e);
	r->cap = cap;
	return r->kd && r->vd && r->ke && r->ve ? 0 : -1;
}

static void
rows_of(struct sd_row *rd, struct sd_row *re, const struct req *q,
    const int *tok, int p0, int n, int dom)
{
	for (int i = 0; i < n; i++) {
		rd[i] = (struct sd_row){ tok[i], p0 + i, dom, q->kd, q->vd, q->cap };
		re[i] = (struct sd_row){ tok[i], p0 + i, dom, q->ke, q->ve, q->cap };
	}
}

/* The CPU target over n rows: logits and argmax. */
static void
cpu_target(const struct sd_weights *wd, const struct sd_weights *we, int n,
    const struct sd_row *rd, const struct sd_row *re, float *lt, int *am)
{
	float *ld = xcalloc((size_t)n * SD_VOCAB * 4),
	    *le = xcalloc((size_t)n * SD_VOCAB * 4);

	sd_forward(wd, n, rd, ld, 1);
	sd_forward(we, n, re, le, 1);
	sd_target_logits(lt, ld, le, n, rd);
	for (int i = 0; i < n; i++)
		am[i] = sd_argmax(lt + (size_t)i * SD_VOCAB);
	free(ld);
	free(le);
}

/* The CPU's batch invariance: a prompt in one pass, in chunks, and with
 * another request's rows beside it give the same logits. */
static void
test_cpu_invariance(const struct sd_model *m)
{
	float *dw = net_weights(&m->d), *ew = net_weights(&m->e);
	struct sd_weights wd, we;
	struct req a, b, c;
	int n = 24, tok[24], am[48];
	struct sd_row rd[48], re[48];
	float *l1 = xcalloc((size_t)48 * SD_VOCAB * 4),
	    *l2 = xcalloc((size_t)48 * SD_VOCAB * 4);

	sd_weights_map(&wd, &m->d, dw);
	sd_weights_map(&we, &m->e, ew);
	sd_rope_init(m->d.hd);
	for (int i = 0; i < n; i++)
		tok[i] = (int)((unsigned)(rnd() * 1000 + 1000) % SD_VOCAB);
	req_host(&a, m, 64);
	req_host(&b, m, 64);
	req_host(&c, m, 64);
	rows_of(rd, re, &a, tok, 0, n, 3);
	cpu_target(&wd, &we, n, rd, re, l1, am);
	/* In chunks of 7, beside another request's rows. */
	for (int p = 0; p < n; p += 7) {
		int k = n - p < 7 ? n - p : 7;

		rows_of(rd, re, &b, tok + p, p, k, 3);
		rows_of(rd + k, re + k, &c, tok, 0, 20, 5);
		cpu_target(&wd, &we, k + 20, rd, re, l2 + (size_t)p * SD_VOCAB,
		    am);
	}
	ok(differ(l1, l2, (size_t)n * SD_VOCAB) == 0,
	    "cpu %s: a prompt's logits whole, in chunks and beside another "
	    "request's rows are the same bits", m->name);
	free(dw), free(ew), free(l1), free(l2);
}

static void
test_ops(void)
{
	int n = 5, in = 96, out = 40;
	/* y and yr take the GEMM's n x out and then the n x in of the
	 * element-wise ops. */
	float *x = xcalloc((size_t)n * in * 4), *w = xcalloc((size_t)in * out * 4),
	    *y = xcalloc((size_t)n * in * 4), *yr = xcalloc((size_t)n * in * 4),
	    *g = xcalloc((size_t)in * 4), *e = xcalloc(4096 * 4),
	    *er = xcalloc(4096 * 4);
	int pos[5] = { 0, 1, 17, 300, 1000 };

	fill(x, (size_t)n * in, 2);
	fill(w, (size_t)in * out, 0.3f);
	for (int r = 0; r < n; r++)
		for (int o = 0; o < out; o++)
			yr[r * out + o] = sd_dot(x + (size_t)r * in,
			    w + (size_t)o * in, in);
	for (int kind = SD_GEMM_WARP; kind <= SD_GEMM_WIDE; kind++) {
		sd_cuda_gemm(kind);
		ok(sd_cuda_op_matmul(y, x, w, n, in, out, why, sizeof why) == 0 &&
		    differ(y, yr, (size_t)n * out) == 0, "gemm %s (bf16 weights) 5 x "
		    "96 x 40: the reference's bits %s", kind ? "wide" : "warp", why);
	}
	{
		/* Three tiles of rows, the last partial, over a longer sum. */
		int bn = 21, bin = 1024, bout = 24;
		float *bx = xcalloc((size_t)bn * bin * 4),
		    *bw = xcalloc((size_t)bin * bout * 4),
		    *by = xcalloc((size_t)bn * bout * 4),
		    *byr = xcalloc((size_t)bn * bout * 4);

		fill(bx, (size_t)bn * bin, 2);
		fill(bw, (size_t)bin * bout, 0.1f);
		for (int r = 0; r < bn; r++)
			for (int o = 0; o < bout; o++)
				byr[r * bout + o] = sd_dot(bx + (size_t)r * bin,
				    bw + (size_t)o * bin, bin);
		for (int kind = SD_GEMM_WARP; kind <= SD_GEMM_WIDE; kind++) {
			sd_cuda_gemm(kind);
			ok(sd_cuda_op_matmul(by, bx, bw, bn, bin, bout, why,
			    sizeof why) == 0 && differ(by, byr, (size_t)bn * bout) == 0,
			    "gemm %s 21 x 1024 x 24 (tiles of rows, one partial): the "
			    "reference's bits %s", kind ? "wide" : "warp", why);
		}
		/* 22 outputs: the wide kernel's last group of 4 is partial. */
		for (int r = 0; r < bn; r++)
			for (int o = 0; o < 22; o++)
				byr[r * 22 + o] = sd_dot(bx + (size_t)r * bin,
				    bw + (size_t)o * bin, bin);
		sd_cuda_gemm(SD_GEMM_WIDE);
		ok(sd_cuda_op_matmul(by, bx, bw, bn, bin, 22, why, sizeof why) == 0 &&
		    differ(by, byr, (size_t)bn * 22) == 0,
		    "gemm wide 21 x 1024 x 22 (a partial group of outputs): the "
		    "reference's bits %s", why);
		sd_cuda_gemm(SD_GEMM_WARP);
		free(bx), free(bw), free(by), free(byr);
	}

	fill(g, (size_t)in, 1);
	for (int r = 0; r < n; r++)
		sd_rmsnorm(yr + (size_t)r * in, x + (size_t)r * in, g, in);
	ok(sd_cuda_op_rmsnorm(y, x, g, n, in, why, sizeof why) == 0 &&
	    differ(y, yr, (size_t)n * in) == 0, "rmsnorm: the reference's bits %s",
	    why);

	sd_rope_init(16);
	memcpy(yr, x, (size_t)n * in * 4);
	for (int r = 0; r < n; r++)
		sd_rope(yr + (size_t)r * in, 6, 16, pos[r]);
	memcpy(y, x, (size_t)n * in * 4);
	ok(sd_cuda_op_rope(y, pos, n, 6, 16, why, sizeof why) == 0 &&
	    differ(y, yr, (size_t)n * in) == 0, "rotary: the reference's bits %s",
	    why);

	{
		int p = 300, heads = 6, kvh = 2, hd = 16;
		size_t kv = (size_t)(p + 1) * kvh * hd;
		float *q = xcalloc((size_t)heads * hd * 4), *kc = xcalloc(kv * 4),
		    *vc = xcalloc(kv * 4), *o = xcalloc((size_t)heads * hd * 4),
		    *orf = xcalloc((size_t)heads * hd * 4),
		    *sc = xcalloc((size_t)(p + 1) * 4);

		fill(q, (size_t)heads * hd, 2);
		fill(kc, kv, 2);
		fill(vc, kv, 1);
		sd_attend(orf, q, kc, vc, p, heads, kvh, hd, sc);
		for (int kind = SD_ATTEND_THREAD; kind <= SD_ATTEND_BLOCK; kind++) {
			sd_cuda_attend(kind);
			ok(sd_cuda_op_attend(o, q, kc, vc, p, heads, kvh, hd, why,
			    sizeof why) == 0 && differ(o, orf, (size_t)heads * hd) == 0,
			    "gqa attention (%s), 6 heads on 2, 301 positions: the "
			    "reference's bits %s", kind ? "block" : "thread", why);
		}
		sd_cuda_attend(SD_ATTEND_THREAD);
		free(q), free(kc), free(vc), free(o), free(orf), free(sc);
	}

	for (int i = 0; i < n * in; i++)
		yr[i] = sd_silu(x[i]) * g[i % in];
	memcpy(y, x, (size_t)n * in * 4);
	{
		float *h3 = xcalloc((size_t)n * in * 4);

		for (int i = 0; i < n * in; i++)
			h3[i] = g[i % in];
		ok(sd_cuda_op_swiglu(y, h3, n * in, why, sizeof why) == 0 &&
		    differ(y, yr, (size_t)n * in) == 0,
		    "swiglu: the reference's bits %s", why);
		free(h3);
	}

	for (int i = 0; i < 4096; i++) {
		e[i] = -100 + 200.0f * i / 4095;
		er[i] = sd_exp(e[i]);
	}
	free(y);
	y = xcalloc(4096 * 4);
	ok(sd_cuda_op_exp(y, e, 4096, why, sizeof why) == 0 &&
	    differ(y, er, 4096) == 0, "exp from -100 to 100: the reference's bits %s",
	    why);
	{
		double worst = 0;

		for (int i = 0; i < 4096; i++)
			if (e[i] > -80 && e[i] < 80) {
				double r = fabs(er[i] - exp(e[i])) / exp(e[i]);

				if (r > worst)
					worst = r;
			}
		ok(worst < 1e-6, "sd_exp is within 1e-6 of exp (%.3g)", worst);
	}
	free(x), free(w), free(y), free(yr), free(g), free(e), free(er);
}

/* The whole target and draft on the GPU against the CPU: a prompt, in
 * one pass and in chunks beside another request, then decode steps.
 * The 1b size's rows take the CPU a second each, so its prompt is
 * shorter (10 tokens, in chunks of 4 beside 6 rows of another request)
 * and it decodes 2 steps rather than 8: the same code on larger shapes. */
static void
test_forward(const struct sd_model *m)
{
	float *dw = net_weights(&m->d), *ew = net_weights(&m->e);
	struct sd_weights wd, we;
	struct sd_cuda *c = NULL;
	struct req ha, ga, gb;
	int big = sd_net_floats(&m->e) > 500000000u;
	int n = big ? 10 : 40, chunk = big ? 4 : 9, other = big ? 6 : 30,
	    steps = big ? 2 : 8;
	int tok[40], amc[80], amg[80], bad = 0;
	struct sd_row rd[80], re[80];
	float *lc = xcalloc((size_t)80 * SD_VOCAB * 4),
	    *lg = xcalloc((size_t)80 * SD_VOCAB * 4);

	sd_weights_map(&wd, &m->d, dw);
	sd_weights_map(&we, &m->e, ew);
	sd_rope_init(m->d.hd);
	if (!ok(sd_cuda_open(&c, m, dw, ew, why, sizeof why) == 0,
	    "%s: open: weights uploaded %s", m->name, why))
		return;
	/* open took the wide GEMM only if it gave the warp one's bits on
	 * this model's shapes: the passes below check it against the CPU. */
	ok(sd_cuda_gemm(SD_GEMM_WIDE) == SD_GEMM_WIDE,
	    "%s: open chose the wide GEMM kernel (the same bits on every shape)",
	    m->name);
	ok(sd_cuda_attend(SD_ATTEND_BLOCK) == SD_ATTEND_BLOCK,
	    "%s: open chose the block attention kernel (the same bits)", m->name);
	for (int i = 0; i < n; i++)
		tok[i] = SD_NDOM + (int)((unsigned)(rnd() * 1000 + 1000) %
		    (SD_VOCAB - SD_NDOM));
	tok[0] = 7;
	req_host(&ha, m, 64);
	if (!ok(req_dev(&ga, m, 64) == 0 && req_dev(&gb, m, 64) == 0,
	    "%s: device caches", m->name))
		return;
	/* The prompt, whole. */
	rows_of(rd, re, &ha, tok, 0, n, 7);
	cpu_target(&wd, &we, n, rd, re, lc, amc);
	rows_of(rd, re, &ga, tok, 0, n, 7);
	ok(sd_cuda_forward(c, n, rd, re, amg, lg, why, sizeof why) == 0 &&
	    differ(lg, lc, (size_t)n * SD_VOCAB) == 0 &&
	    memcmp(amg, amc, (size_t)n * sizeof(int)) == 0,
	    "%s: target logits and argmax of a %d-token prompt: the CPU's bits %s",
	    m->name, n, why);
	/* The same prompt in chunks, another request beside it. */
	for (int p = 0; p < n; p += chunk) {
		int k = n - p < chunk ? n - p : chunk;

		rows_of(rd, re, &gb, tok + p, p, k, 7);
		rows_of(rd + k, re + k, &ga, tok, 0, other, 7);
		if (sd_cuda_forward(c, k + other, rd, re, amg, lg, why,
		    sizeof why) < 0)
			bad = -1;
		else
			bad += (int)differ(lg, lc + (size_t)p * SD_VOCAB,
			    (size_t)k * SD_VOCAB);
	}
	ok(bad == 0, "%s: in chunks beside another request's rows, the same "
	    "bits (batch invariance) %s", m->name, bad < 0 ? why : "");
	/* Decode: the argmax fed back, one row at a time, both devices. */
	bad = 0;
	for (int s = 0; s < steps; s++) {
		int t = amc[n - 1];
		struct sd_row cd, ce;

		rows_of(&cd, &ce, &ha, &t, n + s, 1, 7);
		cpu_target(&wd, &we, 1, &cd, &ce, lc, amc + n - 1);
		rows_of(&cd, &ce, &ga, &t, n + s, 1, 7);
		if (sd_cuda_forward(c, 1, &cd, &ce, amg, lg, why, sizeof why) < 0)
			bad = -1;
		else
			bad += (int)differ(lg, lc, SD_VOCAB);
	}
	ok(bad == 0, "%s: %d decode steps after the prompt: the CPU's bits %s",
	    m->name, steps, bad < 0 ? why : "");
	/* The draft alone. */
	{
		float *ld = xcalloc((size_t)SD_VOCAB * 4);
		int t = 42, a1;
		struct sd_row cd, ce;

		rows_of(&cd, &ce, &ha, &t, n + steps, 1, 7);
		sd_forward(&wd, 1, &cd, ld, 1);
		rows_of(&cd, &ce, &ga, &t, n + steps, 1, 7);
		ok(sd_cuda_forward(c, 1, &cd, NULL, &a1, lg, why, sizeof why) == 0 &&
		    differ(lg, ld, SD_VOCAB) == 0 && a1 == sd_argmax(ld),
		    "%s: the draft's logits and argmax: the CPU's bits %s", m->name,
		    why);
		free(ld);
	}
	sd_cuda_close(c);
	free(dw), free(ew), free(lc), free(lg);
}

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* --bench: the kernels' speed on the GPU at the "gpu" size, as JSON
 * lines on stdout (bench/specdec-gpu.sh reads them against ar-bench's
 * roofline). The GEMM alone: the weights' bytes over its time is the
 * bandwidth a decode step reaches. Whole passes of the target and the
 * draft, timed from the host with their copies: n requests decoding a
 * row each, and one request verifying n rows. */
static int
bench(const struct sd_model *m)
{
	static const int ns[] = { 1, 2, 4, 8, 16, 32, 64, 256 };
	/* E's MLP in and out, and its attention's output. */
	const int shapes[][2] = { { m->e.dim, m->e.ffn }, { m->e.ffn, m->e.dim },
	    { m->e.dim, m->e.dim } };
	float *dw = net_weights(&m->d), *ew = net_weights(&m->e);
	struct sd_cuda *c = NULL;
	struct sd_row *rd = xcalloc(256 * sizeof *rd), *re = xcalloc(256 * sizeof *re);
	int *am = xcalloc(256 * sizeof *am), tok[256];
	struct req *q = xcalloc(256 * sizeof *q);

	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
			int n = ns[i], in = shapes[s][0], out = shapes[s][1];
			double t;

			for (int kind = SD_GEMM_WARP; kind <= SD_GEMM_WIDE; kind++) {
				sd_cuda_gemm(kind);
				if (sd_cuda_time_matmul(&t, n, in, out, 50, why,
				    sizeof why) < 0) {
					fprintf(stderr, "specdec-cuda-test: %s\n", why);
					return 1;
				}
				printf("{\"kernel\":\"gemm\",\"gemm\":\"%s\",\"n\":%d,"
				    "\"in\":%d,\"out\":%d,\"us\":%.3f,"
				    "\"weight_gb_s\":%.1f,\"bytes_gb_s\":%.1f,"
				    "\"gflop_s\":%.1f}\n", kind ? "wide" : "warp", n, in,
				    out, t * 1e6, 2.0 * in * out / t / 1e9,
				    (2.0 * in * out + 4.0 * n * (in + out)) / t / 1e9,
				    2.0 * n * in * out / t / 1e9);
			}
		}
	if (sd_cuda_open(&c, m, dw, ew, why, sizeof why) < 0) {
		fprintf(stderr, "specdec-cuda-test: %s\n", why);
		return 1;
	}
	for (int i = 0; i < 256; i++) {
		tok[i] = SD_NDOM + i % (SD_VOCAB - SD_NDOM);
		if (req_dev(&q[i], m, 80) < 0) {
			fprintf(stderr, "specdec-cuda-test: no GPU memory for caches\n");
			return 1;
		}
	}
	for (int kind = SD_GEMM_WARP; kind <= SD_GEMM_WIDE; kind++)
	for (int mode = 0; mode < 2; mode++)
		for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
			int n = ns[i], reps = 20;

			/* mode 0: n requests, a row each at position 63;
			 * mode 1: one request, n rows from position 63 - n + 1
			 * (a verification of n - 1 drafts), up to 64 rows. */
			if (mode == 1 && n > 64)
				continue;
			for (int r = 0; r < n; r++) {
				const struct req *rq = mode == 0 ? &q[r] : &q[0];
				int pos = mode == 0 ? 63 : 63 - n + 1 + r;

				rows_of(&rd[r], &re[r], rq, &tok[r], pos, 1, 3);
			}
			sd_cuda_gemm(kind);
			sd_cuda_attend(kind == SD_GEMM_WIDE ? SD_ATTEND_BLOCK :
			    SD_ATTEND_THREAD);
			for (int net = 0; net < 2; net++) {
				double t0, t;

				if (sd_cuda_forward(c, n, rd, net ? re : NULL, am, NULL, why,
				    sizeof why) < 0) {
					fprintf(stderr, "specdec-cuda-test: %s\n", why);
					return 1;
				}
				t0 = now();
				for (int k = 0; k < reps; k++)
					sd_cuda_forward(c, n, rd, net ? re : NULL, am, NULL, why,
					    sizeof why);
				t = (now() - t0) / reps;
				printf("{\"kernel\":\"pass\",\"model\":\"%s\","
				    "\"gemm\":\"%s\",\"net\":\"%s\",\"rows\":%d,"
				    "\"shape\":\"%s\",\"ms\":%.3f}\n",
				    m->name, kind ? "wide" : "warp",
				    net ? "target" : "draft", n,
				    mode == 0 ? "decode" : "verify", t * 1e3);
			}
		}
	fflush(stdout);
	sd_cuda_close(c);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *names[] = { "tiny", "cpu", "gpu", "1b" };

	if (argc >= 2 && argc <= 3 && strcmp(argv[1], "--bench") == 0) {
		const struct sd_model *m = sd_model_find(argc == 3 ? argv[2] :
		    "gpu");

		if (m == NULL) {
			fprintf(stderr, "specdec-cuda-test: --bench: \"%s\" is not "
			    "a model size (cpu, tiny, gpu, 1b)\n", argv[2]);
			return 64;
		}
		if (sd_cuda_devices() < 1) {
			fprintf(stderr, "specdec-cuda-test: --bench: no GPU\n");
			return 77;
		}
		return bench(m);
	}
	if (argc > 1) {
		fprintf(stderr, "usage: specdec-cuda-test [--bench [size]]\n");
		return 64;
	}
	/* The "gpu" size's CPU passes would take CI minutes; its kernels
	 * are the same code. */
	for (int i = 0; i < 2; i++)
		test_cpu_invariance(sd_model_find(names[i]));
	if (sd_cuda_devices() < 1) {
		printf("# no GPU: the CUDA kernels are not tested\n");
		printf("specdec-cuda-test: %d passed, %d failed\n", ntest - nfail,
		    nfail);
		return nfail ? 1 : 77;
	}
	test_ops();
	for (int i = 0; i < 4; i++)
		test_forward(sd_model_find(names[i]));
	printf("specdec-cuda-test: %d passed, %d failed\n", ntest - nfail, nfail);
	return nfail ? 1 : 0;
}
