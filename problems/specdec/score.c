/* score: the score stage. Compares every request's output in
 * $AR_OUT/tokens.bin with the target's greedy decoding in
 * $AR_REF/ref.bin, token for token, reads the engine's times in
 * $AR_OUT/stats.bin and prints the METRIC lines (README). What the run
 * left is never score's error: missing or short files count as lost
 * requests. */
#include "judge.h"

#include <math.h>

#include "trace.h"

/* TTFT limits by class, ms: interactive, standard, batch (none). */
static const double limit_ms[SD_NCLS] = { 250, 1000, INFINITY };
static const char *cname[SD_NCLS] = { "int", "std", "batch" };

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* What the engine could not have recorded for request r: a first token
 * before its arrival, times out of order or past the end of the run,
 * counts below zero or more accepted than drafted. The policy runs in a
 * process of its own (cage.c), so this is a second line: a
 * record overwritten or a broken engine makes every request of the run
 * count as bad. NULL when the record is possible. */
static const char *
impossible(const struct sd_treq *r, const struct sd_rstat *s, double end)
{
	if (s->first_ms == -1)
		return s->finish_ms == -1 ? NULL : "a finish without a first token";
	if (!isfinite(s->first_ms) || !isfinite(s->finish_ms))
		return "a time that is not a number";
	if (s->first_ms < r->arrival_ms)
		return "a first token before its arrival";
	if (s->first_ms > end || s->finish_ms > end)
		return "a time after the end of the run";
	if (s->finish_ms != -1 && s->finish_ms < s->first_ms)
		return "a finish before its first token";
	if (s->ntok < 0 || s->ntok > r->out_len || s->drafted < 0 ||
	    s->accepted < 0 || s->verifies < 0 || s->preempts < 0 ||
	    s->unverified < 0)
		return "a count out of range";
	if (s->accepted > s->drafted)
		return "more tokens accepted than drafted";
	return NULL;
}

/* The same for the run's totals; NULL when possible. */
static const char *
impossible_hdr(const struct sd_stats_hdr *sh)
{
	const double v[] = { sh->run_ms, sh->kv_occ, sh->steps, sh->rows_t,
	    sh->rows_d, sh->stalls, sh->ignored };

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!isfinite(v[i]) || v[i] < 0)
			return "a total that is negative or not a number";
	if (sh->kv_occ > 1)
		return "a KV occupancy above 1";
	return NULL;
}

/* The q-quantile of n sorted values, nearest rank; 0 when n is 0. */
static double
quantile(const double *v, int n, double q)
{
	int i;

	if (n == 0)
		return 0;
	i = (int)ceil(q * n) - 1;
	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

int
main(void)
{
	const char *wall_s, *in, *ref, *out, *why;
	struct sd_trace_hdr h;
	struct sd_stats_hdr sh;
	struct sd_treq *rq;
	struct sd_rstat *st;
	int32_t *want, *got;
	char *tb, *sb, *end;
	size_t tsz, ntok = 0, gsz, ssz, off = 0, work = 0, bad = 0;
	double wall, good = 0, exact = 0, drafted = 0, accepted = 0,
	    verifies = 0, preempts = 0, unverified = 0;
	double *ttft[SD_NCLS], *tpot;
	int nc[SD_NCLS] = { 0 }, ntp = 0, forged = 0;

	prog = "score";
	in = env_str("AR_IN");
	ref = env_str("AR_REF");
	out = env_str("AR_OUT");
	wall_s = env_str("AR_WALL_S");
	errno = 0;
	wall = strtod(wall_s, &end);
	if (errno || *end || end == wall_s || !(wall > 0) || !isfinite(wall))
		die("AR_WALL_S: \"%s\" is not a positive number", wall_s);

	/* The trace is the judge's own: any fault in it is fatal. */
	tb = xmalloc(64 << 20);
	if ((why = read_upto(in, "trace.bin", tb, 64 << 20, &tsz)) != NULL)
		die("%s/trace.bin: %s", in, why);
	if (tsz < sizeof h)
		die("%s/trace.bin: too short", in);
	memcpy(&h, tb, sizeof h);
	if (h.magic != SD_MAGIC || h.nreq < 1 || h.nreq > SD_MAXREQ ||
	    tsz < sizeof h + h.nreq * sizeof *rq)
		die("%s/trace.bin: not a trace of gen's", in);
	rq = (struct sd_treq *)(tb + sizeof h);
	for (uint32_t i = 0; i < h.nreq; i++) {
		if (rq[i].out_len < 1 || rq[i].out_len > SD_MAXOUT ||
		    rq[i].cls < 0 || rq[i].cls >= SD_NCLS)
			die("%s/trace.bin: request %u out of bounds", in, i);
		ntok += (size_t)rq[i].out_len;
	}
	want = xmalloc(ntok * sizeof *want);
	if ((why = read_upto(ref, "ref.bin", want, ntok * sizeof *want,
	    &gsz)) != NULL)
		die("%s/ref.bin: %s", ref, why);
	if (gsz != ntok * sizeof *want)
		die("%s/ref.bin: %zu bytes, not %zu", ref, gsz,
		    ntok * sizeof *want);

	/* The run's: bounded, and short means lost. */
	got = xmalloc(ntok * sizeof *got);
	if ((why = read_upto(out, "tokens.bin", got, ntok * sizeof *got,
	    &gsz)) != NULL) {
		fprintf(stderr, "score: %s/tokens.bin: %s (outputs missing)\n",
		    out, why);
		gsz = 0;
	}
	ssz = sizeof sh + h.nreq * sizeof *st;
	sb = xmalloc(ssz);
	off = 0;
	if ((why = read_upto(out, "stats.bin", sb, ssz, &off)) != NULL)
		fprintf(stderr, "score: %s/stats.bin: %s (times missing)\n",
		    out, why);
	if (off >= sizeof sh)
		memcpy(&sh, sb, sizeof sh);
	st = (struct sd_rstat *)(sb + sizeof sh);
	if (off == ssz && sh.magic == SD_STATS_MAGIC && sh.nreq == h.nreq) {
		const char *what = impossible_hdr(&sh);

		if (what != NULL)
			fprintf(stderr, "score: %s/stats.bin: %s: the engine's "
			    "records were overwritten; every request counts as "
			    "bad\n", out, what);
		for (uint32_t i = 0; what == NULL && i < h.nreq; i++)
			if ((what = impossible(&rq[i], &st[i], sh.run_ms)) != NULL)
				fprintf(stderr, "score: %s/stats.bin: request %u: %s: "
				    "the engine's records were overwritten; every "
				    "request counts as bad\n", out, i, what);
		forged = what != NULL;
	} else
		off = 0;
	/* Missing or overwritten records are not read: no times, no counts. */
	if (off != ssz || forged) {
		memset(sb, 0, ssz);
		memset(&sh, 0, sizeof sh);
		for (uint32_t i = 0; i < h.nreq; i++)
			st[i].first_ms = st[i].finish_ms = -1;
	}

	for (int c = 0; c < SD_NCLS; c++)
		ttft[c] = xmalloc(h.nreq * sizeof(double));
	tpot = xmalloc(h.nreq * sizeof(double));
	off = 0;
	for (uint32_t i = 0; i < h.nreq; i++) {
		const struct sd_treq *r = &rq[i];
		const struct sd_rstat *s = &st[i];
		int n = r->out_len, ok = 1, full;
		double t;

		full = (off + (size_t)n) * sizeof *got <= gsz && s->ntok == n;
		for (int j = 0; j < n; j++)
			if (forged || !full || got[off + j] != want[off + j])
				ok = 0;
		off += (size_t)n;
		work += full;
		bad += !ok;
		t = s->first_ms >= 0 && isfinite(s->first_ms) ?
		    s->first_ms - r->arrival_ms : 1e9;
		ttft[r->cls][nc[r->cls]++] = t;
		if (r->cls == SD_CLS_INTERACTIVE && n > 1 && s->finish_ms >= 0)
			tpot[ntp++] = (s->finish_ms - s->first_ms) / (n - 1);
		if (ok) {
			exact += n;
			if (t <= limit_ms[r->cls])
				good += n;
		}
		drafted += s->drafted;
		accepted += s->accepted;
		verifies += s->verifies;
		preempts += s->preempts;
		unverified += s->unverified;
	}
	for (int c = 0; c < SD_NCLS; c++)
		qsort(ttft[c], (size_t)nc[c], sizeof(double), cmp_double);
	qsort(tpot, (size_t)ntp, sizeof(double), cmp_double);

	/* The primary is floored above 0: ar-bench works on log-ratios. */
	printf("METRIC goodput_tok_s=%.6g\n", fmax(good / wall, 1e-6));
	printf("METRIC tok_s=%.6g\n", exact / wall);
	printf("METRIC work=%zu\n", work);
	printf("METRIC bad=%zu\n", bad);
	printf("METRIC p95_ttft_int_ms=%.6g\n",
	    quantile(ttft[SD_CLS_INTERACTIVE], nc[SD_CLS_INTERACTIVE], 0.95));
	for (int c = 0; c < SD_NCLS; c++) {
		printf("METRIC ttft_p50_%s_ms=%.6g\n", cname[c],
		    quantile(ttft[c], nc[c], 0.50));
		printf("METRIC ttft_p95_%s_ms=%.6g\n", cname[c],
		    quantile(ttft[c], nc[c], 0.95));
		printf("METRIC ttft_p99_%s_ms=%.6g\n", cname[c],
		    quantile(ttft[c], nc[c], 0.99));
	}
	printf("METRIC tpot_p95_int_ms=%.6g\n", quantile(tpot, ntp, 0.95));
	printf("METRIC accept_rate=%.6g\n", drafted > 0 ? accepted / drafted : 0);
	printf("METRIC tok_per_verify=%.6g\n",
	    verifies > 0 ? (accepted + verifies) / verifies : 1);
	printf("METRIC kv_occupancy=%.6g\n", sh.kv_occ);
	printf("METRIC preempts=%.6g\n", preempts);
	printf("METRIC unverified=%.6g\n", unverified);
	printf("METRIC target_rows=%.6g\n", sh.rows_t);
	printf("METRIC draft_rows=%.6g\n", sh.rows_d);
	printf("METRIC wall_ms=%.6g\n", wall * 1e3);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("stdout: %s", strerror(errno));
	for (int c = 0; c < SD_NCLS; c++)
		free(ttft[c]);
	free(tpot);
	free(sb);
	free(got);
	free(want);
	free(tb);
	return 0;
}
