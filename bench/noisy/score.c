/* score: the sealed score stage of the noisy problem. It does not time
 * anything: it draws the run's SIMULATED time, so that the statistics of
 * ar-bench can be tested in milliseconds per run. The model is the one of
 * bench/verdict-sim.c:
 *
 *   t = speed * (1 + 0.10 * idx / 1000) * exp(N(0, s) - s^2 / 2),
 *   s = sqrt(log(1 + CV^2)), and with probability 0.02, t * 3
 *
 * speed is what the run copied to $AR_OUT/speed (the method's file), CV
 * comes from the workload, idx counts the score calls of this session
 * (the slow drift). The counter lives in $AR_PROBLEM, the judge's
 * writable copy of the problem, which lasts as long as the session.
 *
 * Randomness: splitmix64 of AR_SEED, idx and a session nonce. The nonce
 * is needed because dev seeds are the same in every session of a
 * workload: without it every trial would replay the same noise. It is
 * drawn from getrandom(2) at the session's first score call and kept
 * with the counter.
 *
 * Interference shapes (issue 15), each off unless its variable is set:
 *   PERIODIC="a p f t"  runs with idx % p in [f, t) are (1 + a) slower:
 *                       a background job with a period of p runs
 *   FADE=r              from score call r on, the method's speed is 1:
 *                       a gain that fades
 *   $AR_OUT/carry       a factor the run leaves on the NEXT run (a cache
 *                       it ruins), kept with the counter
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static void
die(const char *what, const char *why)
{
	fprintf(stderr, "score: %s: %s\n", what, why);
	exit(1);
}

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		die(name, "not set");
	return v;
}

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform on (0, 1): 53 bits, never 0, so log() is safe. */
static double
uniform(uint64_t *x)
{
	return ((double)(splitmix64(x) >> 11) + 0.5) / 9007199254740992.0;
}

static double
number(const char *what, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || end == s || *end || !isfinite(v) || !(v > 0))
		die(what, "not a positive number");
	return v;
}

/* Reads nonce and counter, or makes a new nonce on the first call. */
static void
state_read(const char *path, uint64_t *nonce, uint64_t *idx, double *carry)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		if (errno != ENOENT)
			die(path, strerror(errno));
		if (getrandom(nonce, sizeof *nonce, 0) != sizeof *nonce)
			die("getrandom", strerror(errno));
		*idx = 0;
		*carry = 1;
		return;
	}
	if (fscanf(f, "%" SCNu64 " %" SCNu64 " %lf", nonce, idx, carry) != 3)
		die(path, "not \"nonce counter carry\"");
	fclose(f);
}

/* Writes the next counter: a new file renamed over the old one, so a
 * score killed half-way leaves the last whole state. */
static void
state_write(const char *path, uint64_t nonce, uint64_t idx, double carry)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!(f = fopen(tmp, "w")))
		die(tmp, strerror(errno));
	fprintf(f, "%" PRIu64 " %" PRIu64 " %.17g\n", nonce, idx, carry);
	if (fclose(f) != 0)
		die(tmp, strerror(errno));
	if (rename(tmp, path) != 0)
		die(path, strerror(errno));
}

int
main(void)
{
	char state[4096], out[4096], cpath[4096], buf[64];
	const char *v;
	double cv, speed, s, z, t, carry, next = 1;
	uint64_t nonce, idx, x;
	size_t n;
	FILE *f;

	cv = number("CV", env("CV"));
	x = strtoull(env("AR_SEED"), NULL, 10);
	snprintf(state, sizeof state, "%s/noisy.state", env("AR_PROBLEM"));
	snprintf(out, sizeof out, "%s/speed", env("AR_OUT"));

	/* The method's speed factor, as its run left it. */
	if (!(f = fopen(out, "r")))
		die(out, strerror(errno));
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	speed = number(out, buf);

	/* What this run leaves on the next one. */
	snprintf(cpath, sizeof cpath, "%s/carry", env("AR_OUT"));
	if ((f = fopen(cpath, "r"))) {
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		next = number(cpath, buf);
	}

	state_read(state, &nonce, &idx, &carry);
	state_write(state, nonce, idx + 1, next);
	if ((v = getenv("FADE")) && *v && (double)idx >= number("FADE", v))
		speed = 1;

	/* One stream per (seed, nonce, idx): mixed, not just added, so
	 * neighbouring seeds and counters do not share draws. */
	x ^= splitmix64(&nonce);
	x ^= idx * 0xd1342543de82ef95ULL;
	(void)splitmix64(&x);
	s = sqrt(log1p(cv * cv));
	z = sqrt(-2 * log(uniform(&x))) * cos(2 * M_PI * uniform(&x));
	t = speed * (1 + 0.10 * (double)idx / 1000) * exp(s * z - s * s / 2);
	if (uniform(&x) < 0.02)
		t *= 3;
	t *= carry;
	if ((v = getenv("PERIODIC")) && *v) {
		double a;
		unsigned long p, from, to;

		if (sscanf(v, "%lf %lu %lu %lu", &a, &p, &from, &to) != 4 ||
		    p == 0)
			die("PERIODIC", "not \"amplitude period from to\"");
		if (idx % p >= from && idx % p < to)
			t *= 1 + a;
	}
	printf("METRIC t=%.9g\n", t);
	return fflush(stdout) == 0 ? 0 : 1;
}
