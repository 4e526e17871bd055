/* The roofline problem: what the machine can do (memory bandwidth, GEMM
 * rates, all-reduce bus bandwidth) measured on a bundle, and the fraction
 * of it that a result reached. */
#ifndef AR_ROOFLINE_H
#define AR_ROOFLINE_H

#include <jansson.h>

struct ar_roofline_opts {
	const char *exe;       /* ar-bench itself: the ranks are "exe --rank" */
	const char *device;    /* "cuda" or "cpu" */
	int k;                 /* ranks */
	const int *ordinal;    /* per rank: the CUDA ordinal or the CPU */
	const char *scratch;   /* for the ranks' stderr and shared memory */
	int samples, warmup;   /* per op */
	int aa;                /* an A/A of a ~target_ms copy instead */
	double target_ms;
	int progress;          /* a line per op on stderr */
};

/* Runs the roofline problem (or its A/A) and returns its record:
 * "verdict" is "ok", "crash" (a rank died, an error; why says it) or
 * "invalid" (an output was wrong). Every rank is gone when it returns.
 * NULL only when the record cannot be built. */
json_t *ar_roofline_run(const struct ar_roofline_opts *o);

/* Stops the ranks of a run in progress: for a signal handler's cleanup. */
void ar_roofline_abort(void);

/* The profile's file for a node, device and bundle size: DIR/machine/
 * NODE.DEVICE.kK.json. */
char *ar_profile_path(const char *camp, const char *node, const char *device,
    long k);

/* The fields a result gains from a profile: the rate a run reached for
 * bytes and flops per run in seconds, as fractions of the profile's
 * limits. dtype ("bf16", "fp8", "fp32" or NULL) picks the compute limit.
 * scale multiplies the limits (a k=1 profile read for a k-GPU bundle). */
json_t *ar_roofline_fraction(const json_t *profile, double bytes,
    double flops, const char *dtype, double seconds, double scale);

#endif
