/* model.h: the two Llama-shaped networks of specdec and their CPU
 * forward pass, shared by gen (the reference decoding), the engine (the
 * run) and the CUDA kernels' tests (kernels/specdec.cu), so that all
 * three compute the same bits.
 *
 * The draft D is a small Llama: embedding, layers of RMSNorm, rotary
 * grouped-query attention over a KV cache and a SwiGLU MLP, a final
 * RMSNorm and an untied vocabulary projection. The target T is D plus a
 * correction E, a wider and deeper Llama of its own, whose logits are
 * added with a scale s chosen by the request's domain (the first token
 * of its prompt, from 0 to SD_NDOM - 1):
 *
 *	logits_T(ctx) = logits_D(ctx) + s[ctx[0]] * logits_E(ctx)
 *
 * So T's next token is a function of its context alone, the draft's
 * guess is right where E's push is smaller than D's margin, and the
 * acceptance of a request falls as its domain's s grows (README).
 *
 * Batch invariance: every row of a forward pass is computed alone, in
 * a fixed order (dot products in a warp's order, sd_dot), from
 * its own token, position and its request's KV cache: a row's logits do
 * not depend on which rows share its batch, nor on how a prompt is cut
 * into chunks. Build with -ffp-contract=off, as judge.mk and build.mk
 * do, so that no compiler fuses a multiply into an add. The CUDA
 * kernels (cuda.cu, with explicitly rounded intrinsics) do every operation in the
 * same order with the same rounding, exp included (sd_exp), and the
 * weights are bf16 values (gen rounds them), so the GPU's outputs are
 * these bits too and gen's reference serves both devices. */
#ifndef SD_MODEL_H
#define SD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SD_VOCAB 256
#define SD_NDOM 16
#define SD_MAXPOS 1024

struct sd_net {
	int dim, layers, heads, kvh, hd, ffn;
};

/* The two networks; a model size names both (model.c). */
struct sd_model {
	const char *name;
	struct sd_net d, e;
};

/* One network's weights, views into one float array. */
struct sd_layerw {
	const float *anorm, *wq, *wk, *wv, *wo, *fnorm, *w1, *w3, *w2;
};
struct sd_weights {
	const struct sd_net *net;
	const float *emb, *fnorm, *head;
	struct sd_layerw l[16];
};

/* A row of a forward pass: the token fed, its position, and the KV
 * cache of its request for this network, [layers][cap][kvh * hd] for k
 * and for v. */
struct sd_row {
	int tok, pos, dom;
	float *k, *v;
	int cap;
};

const struct sd_model *sd_model_find(const char *name);
/* Floats in one network's weight file. */
size_t sd_net_floats(const struct sd_net *n);
/* Points w's views into a (sd_net_floats(n) floats). */
void sd_weights_map(struct sd_weights *w, const struct sd_net *n,
    const float *a);
/* The domain scales, s[SD_NDOM]: s[0] = 0 (T is D), then rising. */
float sd_domain_scale(int dom);
/* Rotary tables, [SD_MAXPOS][hd / 2] each; built once. */
void sd_rope_init(int hd);
const float *sd_rope_cos(void);
const float *sd_rope_sin(void);

/* The forward pass of one network over n rows: logits[n][SD_VOCAB].
 * Writes each row's k and v at its position in its cache first, then
 * attends over positions 0..pos, so rows of one request may come in one
 * pass in any order of positions that are all fed. nthreads workers
 * split the output features; the result is the same for any count. */
void sd_forward(const struct sd_weights *w, int n, const struct sd_row *rows,
    float *logits, int nthreads);
/* The target's logits from D's and E's: l = ld + s[dom] * le. */
void sd_target_logits(float *l, const float *ld, const float *le, int n,
    const struct sd_row *rows);
int sd_argmax(const float *l);

/* The kernels, exposed for the CUDA tests' references. */
float sd_dot(const float *a, const float *b, int n);
void sd_rmsnorm(float *y, const float *x, const float *g, int dim);
void sd_rope(float *x, int nheads, int hd, int pos);
void sd_attend(float *out, const float *q, const float *kc, const float *vc,
    int pos, int heads, int kvh, int hd, float *scratch);
float sd_silu(float a);
float sd_exp(float x);
float sd_dot_seq(const float *a, const float *b, int n);

#ifdef __cplusplus
}
#endif

#endif
