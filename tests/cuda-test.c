/*
 * cuda-test: the CUDA device of lib/dev.h (kernels/cuda.cu) against the
 * CPU references of lib/kref.c. First the references themselves (bf16 and
 * e4m3 conversions, fills), which need no GPU; then, on device 0, every
 * op with small sizes through prepare, flush, run and post, its device
 * buffers read back and compared on the CPU, and a corrupted output that
 * post must catch. Prints TAP lines and "cuda-test: N passed, M failed";
 * exits 0 when all pass, 77 when there is no GPU (after the CPU tests),
 * 1 otherwise. --quick uses the smallest sizes, for compute-sanitizer.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "kref.h"

static int ntest, nfail;

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
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "cuda-test: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

/* ---- the references, on the CPU ---- */

static void
test_bf16(void)
{
	struct { float f; uint16_t h; } c[] = {
		{ 1.0f, 0x3f80 }, { -2.0f, 0xc000 }, { 0.0f, 0x0000 },
		{ -0.0f, 0x8000 },
		/* 1 + 2^-8: halfway, to even (1.0). */
		{ 1.00390625f, 0x3f80 },
		/* 1 + 3 * 2^-8: halfway, to even (1 + 2^-6). */
		{ 1.01171875f, 0x3f82 },
		/* Just above halfway rounds up. */
		{ 0x1.010002p+0f, 0x3f81 },
		{ INFINITY, 0x7f80 }, { 3.3895314e38f, 0x7f7f },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		if (ar_kref_bf16(c[i].f) != c[i].h) {
			printf("# bf16(%a) = %#x, not %#x\n", (double)c[i].f,
			    ar_kref_bf16(c[i].f), c[i].h);
			bad++;
		}
	ok(bad == 0, "kref: float to bf16 rounds to nearest even");
	ok(isnan(ar_kref_bf16_float(ar_kref_bf16(NAN))),
	    "kref: bf16 keeps NaN a NaN");
	bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = ar_kref_bf16_float((uint16_t)h);

		if (!isnan(f) && ar_kref_bf16(f) != h)
			bad++;
	}
	ok(bad == 0, "kref: every bf16 value converts back to itself");
}

/* e4m3 by brute force: the nearest of the 253 finite values, ties to the
 * even code, saturating; the reference the bit-level conversion must
 * equal. */
static uint8_t
e4m3_slow(float f)
{
	double best = INFINITY;
	uint8_t code = 0;

	if (isnan(f))
		return signbit(f) ? 0xff : 0x7f;
	if (f >= 448)
		return 0x7e;
	if (f <= -448)
		return 0xfe;
	for (int c = 0; c < 256; c++) {
		double v, d;

		if ((c & 0x7f) == 0x7f)
			continue;
		v = ar_kref_e4m3_float((uint8_t)c);
		/* signbit gives any non-zero value: compare truths. */
		if (!signbit(v) != !signbit(f) && v != 0)
			continue;
		if (v == 0 && ((c & 0x80) != 0) != !!signbit(f))
			continue;
		d = fabs(v - (double)f);
		if (d < best || (d == best && (c & 1) == 0 && (code & 1))) {
			best = d;
			code = (uint8_t)c;
		}
	}
	return code;
}

static void
test_e4m3(void)
{
	int bad = 0;
	uint64_t key = 12345;

	ok(ar_kref_e4m3_float(0x7e) == 448.0f &&
	    ar_kref_e4m3_float(0x01) == 1.0f / 512 &&
	    ar_kref_e4m3_float(0x08) == 1.0f / 64 &&
	    ar_kref_e4m3_float(0x38) == 1.0f &&
	    ar_kref_e4m3_float(0xb8) == -1.0f &&
	    isnan(ar_kref_e4m3_float(0x7f)),
	    "kref: e4m3 decodes 448, the least subnormal and normal, +-1, NaN");
	for (int c = 0; c < 256; c++)
		if ((c & 0x7f) != 0x7f &&
		    ar_kref_e4m3(ar_kref_e4m3_float((uint8_t)c)) != c)
			bad++;
	ok(bad == 0, "kref: every e4m3 value converts back to itself");
	ok(ar_kref_e4m3(1000.0f) == 0x7e && ar_kref_e4m3(-1e30f) == 0xfe &&
	    ar_kref_e4m3(INFINITY) == 0x7e && ar_kref_e4m3(464.0f) == 0x7e &&
	    ar_kref_e4m3(1e-30f) == 0,
	    "kref: e4m3 saturates at 448, has no infinity, flushes tiny");
	bad = 0;
	for (int i = 0; i < 200000; i++) {
		float f = ar_kref_unit(key, (uint64_t)i) *
		    (float)(1 << (i % 12)) / 8.0f;

		if (ar_kref_e4m3(f) != e4m3_slow(f)) {
			if (bad++ < 3)
				printf("# e4m3(%a) = %#x, not %#x\n", (double)f,
				    ar_kref_e4m3(f), e4m3_slow(f));
		}
	}
	/* Every midpoint between neighbours: ties go to the even code. */
	for (int c = 0; c < 0x7e; c++) {
		float lo = ar_kref_e4m3_float((uint8_t)c);
		float hi = ar_kref_e4m3_float((uint8_t)(c + 1));
		float mid = (lo + hi) / 2;

		if (ar_kref_e4m3(mid) != e4m3_slow(mid) ||
		    ar_kref_e4m3(mid) != ((c & 1) ? c + 1 : c))
			bad++;
	}
	ok(bad == 0, "kref: e4m3 rounds to nearest even (random values and "
	    "every midpoint)");
}

static void
test_fills(void)
{
	uint8_t b[9];
	float s = 0;
	int in = 1;

	ar_kref_fill_src(b, sizeof b, 3);
	ok(b[0] == (uint8_t)ar_kref_hash(ar_kref_key(AR_KREF_SRC, 3, 0), 0) &&
	    b[5] == (uint8_t)(ar_kref_hash(ar_kref_key(AR_KREF_SRC, 3, 0),
	    1) >> 8), "kref: copy source bytes are the hash words, "
	    "little-endian");
	for (int i = 0; i < 1000; i++) {
		float v = ar_kref_send(1, 2, (uint64_t)i);

		s += v;
		in &= v >= -8 && v < 8 && v * 256 == floorf(v * 256);
	}
	ok(in && ar_kref_allreduce(4, 3, 17) == ar_kref_send(4, 0, 17) +
	    ar_kref_send(4, 1, 17) + ar_kref_send(4, 2, 17),
	    "kref: all-reduce inputs are multiples of 1/256 in [-8, 8), "
	    "and the expected sum adds them");
	{
		uint16_t a[4 * 4], bb[4 * 4];
		double mag, r;

		ar_kref_fill_bf16(a, 4, AR_KREF_A, 0);
		ar_kref_fill_bf16(bb, 4, AR_KREF_B, 0);
		r = ar_kref_gemm_bf16(a, bb, 4, 1, 2, &mag);
		ok(fabs(r - ((double)ar_kref_bf16_float(a[4]) *
		    ar_kref_bf16_float(bb[8]) + (double)ar_kref_bf16_float(a[5]) *
		    ar_kref_bf16_float(bb[9]) + (double)ar_kref_bf16_float(a[6]) *
		    ar_kref_bf16_float(bb[10]) + (double)ar_kref_bf16_float(a[7]) *
		    ar_kref_bf16_float(bb[11]))) < 1e-12 && mag > 0,
		    "kref: a GEMM entry is the dot of row i of A and row j of B "
		    "(TN)");
	}
	ok(ar_kref_gemm_relerr(1.01, 1.0, 0.5) > 0.0099 &&
	    ar_kref_gemm_relerr(1.01, 1.0, 0.5) < 0.0101 &&
	    ar_kref_gemm_relerr(0.01, 0.0, 1.0) < 0.0101,
	    "kref: GEMM errors are relative to max(|ref|, mag)");
	ok(ar_kref_mismatches("abcd", "abXd", 4) == 1,
	    "kref: mismatches count differing bytes");
}

/* ---- the device ---- */

struct opcase {
	enum ar_op op;
	size_t size, quick;
};

static int
sample(enum ar_op op, struct ar_dev_post *p, char *why, size_t n)
{
	const struct ar_dev_ops *d = &ar_cuda_ops;
	struct ar_dev_timing t = {0};

	if (d->flush(op, why, n) < 0 || d->run(op, &t, why, n) < 0 ||
	    d->post(op, p, why, n) < 0)
		return -1;
	if (!(t.dev_s > 0 && t.cpu_s > 0 && t.cpu_s < 60)) {
		snprintf(why, n, "timing dev_s %g cpu_s %g", t.dev_s, t.cpu_s);
		return -1;
	}
	printf("# %s: dev %.6f s, cpu %.6f s, clock %.0f MHz, err %g, "
	    "checked %ld\n", ar_dev_op_name[op], t.dev_s, t.cpu_s, p->clock_mhz,
	    p->err, p->checked);
	return 0;
}

/* The copy's source and destination, read back, against the CPU fill. */
static void
check_copy(enum ar_op op, size_t size, int set)
{
	uint8_t *want = xmalloc(size), *in = xmalloc(size),
	    *out = xmalloc(size);
	char why[512] = "";

	ar_kref_fill_src(want, size, set);
	if (ok(ar_cuda_peek(AR_CUDA_IN0, 0, in, size, why, sizeof why) == 0 &&
	    ar_cuda_peek(AR_CUDA_OUT, 0, out, size, why, sizeof why) == 0,
	    "%s: read back %zu bytes%s%s", ar_dev_op_name[op], size, *why ? ": " :
	    "", why)) {
		ok(ar_kref_mismatches(in, want, size) == 0,
		    "%s: the GPU's source of set %d is the CPU's fill",
		    ar_dev_op_name[op], set);
		ok(ar_kref_mismatches(out, want, size) == 0,
		    "%s: the destination equals the source, tail bytes "
		    "included", ar_dev_op_name[op]);
	}
	free(want);
	free(in);
	free(out);
}

static void
check_gemm(enum ar_op op, size_t dim, int set)
{
	int fp8 = op == AR_OP_GEMM_FP8;
	size_t el = fp8 ? 1 : 2, nn = dim * dim;
	void *a = xmalloc(nn * el), *b = xmalloc(nn * el);
	void *ga = xmalloc(nn * el), *gb = xmalloc(nn * el);
	uint16_t *dd = xmalloc(nn * 2);
	double tol = fp8 ? AR_KREF_TOL_FP8 : AR_KREF_TOL_BF16, worst = 0;
	char why[512] = "";
	int bad = 0, pts = 0;

	if (fp8) {
		ar_kref_fill_e4m3(a, dim, AR_KREF_A, set);
		ar_kref_fill_e4m3(b, dim, AR_KREF_B, set);
	} else {
		ar_kref_fill_bf16(a, dim, AR_KREF_A, set);
		ar_kref_fill_bf16(b, dim, AR_KREF_B, set);
	}
	if (!ok(ar_cuda_peek(AR_CUDA_IN0, 0, ga, nn * el, why, sizeof why) ==
	    0 && ar_cuda_peek(AR_CUDA_IN1, 0, gb, nn * el, why, sizeof why) ==
	    0 && ar_cuda_peek(AR_CUDA_OUT, 0, dd, nn * 2, why, sizeof why) ==
	    0, "%s: read back A, B and D%s%s", ar_dev_op_name[op], *why ? ": " : "",
	    why))
		goto out;
	ok(memcmp(a, ga, nn * el) == 0 && memcmp(b, gb, nn * el) == 0,
	    "%s: the GPU's A and B of set %d are the CPU's fill", ar_dev_op_name[op],
	    set);
	/* The corners and a few hundred entries spread by the hash. */
	for (int p = 0; p < 300; p++) {
		size_t i, j;
		double mag, ref, e;

		if (p < 4) {
			i = p & 1 ? dim - 1 : 0;
			j = p & 2 ? dim - 1 : 0;
		} else
			ar_kref_gemm_point(0xc0ffee, p, dim, &i, &j);
		ref = fp8 ? ar_kref_gemm_e4m3(a, b, dim, i, j, &mag) :
		    ar_kref_gemm_bf16(a, b, dim, i, j, &mag);
		e = ar_kref_gemm_relerr(ar_kref_bf16_float(dd[i + j * dim]),
		    ref, mag);
		if (!(e <= tol)) {
			if (bad++ < 3)
				printf("# D(%zu, %zu) = %g, reference %g\n", i,
				    j, (double)ar_kref_bf16_float(dd[i + j *
				    dim]), ref);
		}
		if (e > worst)
			worst = e;
		pts++;
	}
	ok(bad == 0, "%s: %d entries of D within %g of the CPU's double "
	    "reference (worst %.3g)", ar_dev_op_name[op], pts, tol, worst);
out:
	free(a);
	free(b);
	free(ga);
	free(gb);
	free(dd);
}

static void
check_allreduce(size_t size, int set)
{
	size_t count = size / 4;
	float *got = xmalloc(count * 4), *in = xmalloc(count * 4),
	    *want = xmalloc(count * 4);
	char why[512] = "";
	size_t bad = 0;

	ar_kref_fill_send(want, count, set, 0);
	if (ok(ar_cuda_peek(AR_CUDA_IN0, 0, in, count * 4, why,
	    sizeof why) == 0 && ar_cuda_peek(AR_CUDA_OUT, 0, got, count * 4,
	    why, sizeof why) == 0, "allreduce: read back send and recv%s%s",
	    *why ? ": " : "", why)) {
		ok(memcmp(in, want, count * 4) == 0,
		    "allreduce: the GPU's send of set %d is the CPU's fill",
		    set);
		for (size_t i = 0; i < count; i++)
			bad += got[i] != ar_kref_allreduce(set, 1, i);
		ok(bad == 0, "allreduce: recv is the exact sum over 1 rank "
		    "(%zu of %zu wrong)", bad, count);
	}
	free(got);
	free(in);
	free(want);
}

/* A corrupted output that post must catch. The copies and the all-reduce
 * check every output, so one wrong byte or float is enough; a GEMM's post
 * checks a few hundred entries, so all of D is made wrong. */
static void
check_negative(enum ar_op op, size_t size, const struct ar_dev_info *info)
{
	struct ar_dev_post p = {0};
	char why[512] = "";
	int rc;

	(void)info;
	if (op == AR_OP_COPY || op == AR_OP_MEMCPY) {
		uint8_t x;

		rc = ar_cuda_peek(AR_CUDA_OUT, size - 1, &x, 1, why,
		    sizeof why);
		x ^= 0x10;
		if (rc == 0)
			rc = ar_cuda_poke(AR_CUDA_OUT, size - 1, &x, 1, why,
			    sizeof why);
	} else if (op == AR_OP_ALLREDUCE) {
		float x = 1e30f;

		rc = ar_cuda_poke(AR_CUDA_OUT, (size / 4 / 2) * 4, &x, 4, why,
		    sizeof why);
	} else {
		size_t nn = size * size;
		uint16_t *d = xmalloc(nn * 2);

		for (size_t i = 0; i < nn; i++)
			d[i] = ar_kref_bf16(3.0f + (float)(i % 7));
		rc = ar_cuda_poke(AR_CUDA_OUT, 0, d, nn * 2, why, sizeof why);
		free(d);
	}
	if (!ok(rc == 0, "%s: corrupt the output%s%s", ar_dev_op_name[op],
	    *why ? ": " : "", why))
		return;
	rc = ar_cuda_ops.post(op, &p, why, sizeof why);
	ok(rc == 0 && !p.ok && p.checked > 0 &&
	    (op >= AR_OP_GEMM_BF16 && op <= AR_OP_GEMM_FP8 ? p.err > 0.1 :
	    p.err == 1), "%s: post reports the corrupted output (ok %d, "
	    "err %g)%s%s", ar_dev_op_name[op], p.ok, p.err, rc ? ": " : "",
	    rc ? why : "");
}

static void
test_op(const struct opcase *c, int quick, const struct ar_dev_info *info)
{
	const struct ar_dev_ops *d = &ar_cuda_ops;
	size_t size = quick ? c->quick : c->size;
	struct ar_dev_post p = {0};
	char why[700] = "";
	int rc, set;

	rc = d->prepare(c->op, size, 2, why, sizeof why);
	if (rc == 1 && c->op == AR_OP_GEMM_FP8 && !info->fp8) {
		ok(1, "%s: # skip %s", ar_dev_op_name[c->op], why);
		return;
	}
	if (!ok(rc == 0, "%s: prepare %zu%s%s", ar_dev_op_name[c->op], size,
	    rc ? ": " : "", rc ? why : "")) {
		d->release();
		return;
	}
	printf("# %s\n", ar_cuda_describe());
	rc = sample(c->op, &p, why, sizeof why);
	ok(rc == 0 && p.ok && p.checked > 0, "%s: a sample, checked by "
	    "post (ok %d, err %g, %ld checked)%s%s", ar_dev_op_name[c->op], p.ok,
	    p.err, p.checked, rc ? ": " : "", rc ? why : "");
	ok(rc == 0 && p.clock_mhz > 100 && p.clock_mhz < 5000,
	    "%s: the SM clock after the window is %.0f MHz (peak %.0f)",
	    ar_dev_op_name[c->op], p.clock_mhz, info->clock_mhz);
	set = ar_cuda_last_set();
	if (rc == 0) {
		switch (c->op) {
		case AR_OP_COPY:
		case AR_OP_MEMCPY:
			check_copy(c->op, size, set);
			break;
		case AR_OP_ALLREDUCE:
			check_allreduce(size, set);
			break;
		default:
			check_gemm(c->op, size, set);
			break;
		}
		check_negative(c->op, size, info);
		/* The next sample's inputs rotate, and its output is right
		 * again. */
		rc = sample(c->op, &p, why, sizeof why);
		ok(rc == 0 && p.ok && ar_cuda_last_set() != set,
		    "%s: the next sample uses another input set (%d, then %d) "
		    "and is right%s%s", ar_dev_op_name[c->op], set,
		    ar_cuda_last_set(), rc ? ": " : "", rc ? why : "");
	}
	d->release();
}

static void
test_errors(void)
{
	const struct ar_dev_ops *d = &ar_cuda_ops;
	struct ar_dev_post p;
	struct ar_dev_timing t;
	char why[512] = "", buf[16];

	ok(d->run(AR_OP_COPY, &t, why, sizeof why) < 0 && *why,
	    "run before prepare fails: %s", why);
	ok(d->prepare(AR_OP_COPY, 4096, 1, why, sizeof why) == 0,
	    "prepare a small copy");
	ok(d->post(AR_OP_COPY, &p, why, sizeof why) < 0 && *why,
	    "post before run fails: %s", why);
	ok(d->run(AR_OP_MEMCPY, &t, why, sizeof why) < 0 && *why,
	    "run of another op than the prepared one fails: %s", why);
	ok(ar_cuda_peek(AR_CUDA_OUT, 4090, buf, 16, why, sizeof why) < 0,
	    "peek past the buffer fails: %s", why);
	d->release();
	ok(d->prepare(AR_OP_COPY, (size_t)1 << 50, 1, why, sizeof why) < 0 &&
	    *why, "a copy larger than the device fails: %s", why);
	ok(d->prepare(AR_OP_GEMM_BF16, 0, 1, why, sizeof why) < 0 && *why,
	    "a GEMM of n = 0 fails: %s", why);
	d->release();
}

int
main(int argc, char **argv)
{
	static const struct opcase cases[] = {
		{ AR_OP_COPY, ((size_t)64 << 20) + 13, ((size_t)1 << 20) + 13 },
		{ AR_OP_MEMCPY, ((size_t)64 << 20) + 13, ((size_t)1 << 20) + 13 },
		{ AR_OP_GEMM_BF16, 512, 128 },
		{ AR_OP_GEMM_BF16_REF, 512, 128 },
		{ AR_OP_GEMM_FP8, 512, 128 },
		{ AR_OP_ALLREDUCE, ((size_t)16 << 20) + 4, (size_t)256 << 10 },
	};
	struct ar_dev_info info;
	char why[700] = "", hex[257];
	int quick = 0, cnt, rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else {
			fprintf(stderr, "usage: cuda-test [--quick]\n");
			return 64;
		}
	}
	test_bf16();
	test_e4m3();
	test_fills();

	cnt = ar_cuda_count(why, sizeof why);
	if (cnt < 0) {
		printf("cuda-test: %d passed, %d failed; no GPU, the device "
		    "tests skipped: %s\n", ntest - nfail, nfail, why);
		return nfail ? 1 : 77;
	}
	ok(cnt > 0, "%d CUDA devices", cnt);
	rc = ar_cuda_ops.open(0, 0, 1, NULL, &info, why, sizeof why);
	if (ok(rc == 0, "open device 0%s%s", rc ? ": " : "", rc ? why : "")) {
		ok(info.cc > 0 && info.clock_mhz > 0 && info.cache_bytes > 0 &&
		    info.mem_bytes > 0 && *info.name, "%s: cc %d, %.0f MHz, "
		    "L2 %zu bytes, %zu bytes of memory, fp8 %d", info.name,
		    info.cc, info.clock_mhz, info.cache_bytes, info.mem_bytes,
		    info.fp8);
		ok(ar_cuda_ops.open(0, 0, 1, NULL, &info, why, sizeof why) < 0,
		    "a second open fails: %s", why);
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
			test_op(&cases[i], quick, &info);
		test_errors();
		ar_cuda_ops.close();
	}
	rc = ar_cuda_ops.open(0, 0, 2, "00zz", &info, why, sizeof why);
	ok(rc < 0 && strstr(why, "hex"), "open with a malformed NCCL id "
	    "fails: %s", why);
	rc = ar_cuda_nccl_id(hex, why, sizeof why);
	ok(rc == 0 && strlen(hex) == 256 && strspn(hex, "0123456789abcdef") ==
	    256, "ar_cuda_nccl_id gives 256 hex digits%s%s", rc ? ": " : "",
	    rc ? why : "");
	printf("cuda-test: %d passed, %d failed\n", ntest - nfail, nfail);
	return nfail ? 1 : 0;
}
