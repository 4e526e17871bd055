/* specdec-score.c: problems/specdec's score stage, which this target
 * includes (its main as score_main), on what a run leaves: the input
 * is cut into tokens.bin and stats.bin for a fixed trace of 5 requests
 * and its reference. Whatever the run wrote, score must not die (the
 * run's files are never its error), must say exit 0, and must print
 * every METRIC as a finite number: a NaN or an infinity from a forged
 * record would reach ar-bench's ratios. The first input byte steers
 * the cut: bit 0 gives tokens.bin the reference itself (so the records
 * decide), bit 1 writes stats.bin's magic and request count over the
 * input's (so its records are read), the rest of the byte is the
 * length of a tokens.bin taken from the input otherwise. */
#define main score_main
#include "../../problems/specdec/score.c"
#undef main

#include <math.h>

#include "fuzz.h"

#define NREQ 5

static char dir[64], in[96], ref[96], out[96], res[96];
static int32_t want[1 + 2 + 3 + 4 + 5];

static void
put(const char *d, const char *name, const void *p, size_t n)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", d, name);
	if ((f = fopen(path, "wb")) == NULL || fwrite(p, 1, n, f) != n ||
	    fclose(f) != 0)
		abort();
}

/* The trace and reference, once: 5 requests of each class, arriving
 * 0 to 40 ms, outputs of 1 to 5 tokens. */
static void
setup(void)
{
	struct {
		struct sd_trace_hdr h;
		struct sd_treq r[NREQ];
		int32_t prompt[NREQ * 2];
	} t;
	char tmpl[] = "/tmp/fuzz-specdec.XXXXXX";

	if (mkdtemp(tmpl) == NULL)
		abort();
	snprintf(dir, sizeof dir, "%s", tmpl);
	snprintf(in, sizeof in, "%s/in", dir);
	snprintf(ref, sizeof ref, "%s/ref", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(res, sizeof res, "%s/score.out", dir);
	if (mkdir(in, 0700) || mkdir(ref, 0700) || mkdir(out, 0700))
		abort();
	memset(&t, 0, sizeof t);
	t.h.magic = SD_MAGIC;
	t.h.nreq = NREQ;
	t.h.kv_blocks = 16;
	t.h.block_tokens = 16;
	t.h.max_rows = 64;
	t.h.ntok = NREQ * 2;
	memcpy(t.h.model, "tiny", 5);
	for (int i = 0; i < NREQ; i++) {
		t.r[i] = (struct sd_treq){ i % SD_NCLS, 2, i + 1, 1, 2 * i, 0,
		    10.0 * i };
		t.prompt[2 * i] = 1;
		t.prompt[2 * i + 1] = 20 + i;
	}
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		want[i] = 16 + (int32_t)i;
	put(in, "trace.bin", &t, sizeof t);
	put(ref, "ref.bin", want, sizeof want);
	setenv("AR_IN", in, 1);
	setenv("AR_REF", ref, 1);
	setenv("AR_OUT", out, 1);
	setenv("AR_WALL_S", "1.5", 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static int ready;
	uint8_t *stats;
	size_t ntok, nst, len;
	char line[256];
	int rc, err, quiet, lines = 0;
	FILE *f;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (n < 1)
		return 0;
	ntok = (d[0] & 1) ? 0 : (size_t)(d[0] >> 2);
	if (ntok > n - 1)
		ntok = n - 1;
	if (d[0] & 1)
		put(out, "tokens.bin", want, sizeof want);
	else
		put(out, "tokens.bin", d + 1, ntok);
	nst = n - 1 - ntok;
	stats = malloc(nst + 8);
	memcpy(stats, d + 1 + ntok, nst);
	if ((d[0] & 2) && nst >= 8) {
		uint32_t hdr[2] = { SD_STATS_MAGIC, NREQ };

		memcpy(stats, hdr, sizeof hdr);
	}
	put(out, "stats.bin", stats, nst);
	free(stats);

	/* score's stdout to a file; its stderr (what it says of the run's
	 * files) to nowhere, put back after. */
	fflush(stdout);
	fflush(stderr);
	if (freopen(res, "w", stdout) == NULL)
		abort();
	err = dup(2);
	quiet = open("/dev/null", O_WRONLY);
	if (err < 0 || quiet < 0 || dup2(quiet, 2) < 0)
		abort();
	rc = score_main();
	fflush(stderr);
	if (dup2(err, 2) < 0)
		abort();
	close(err);
	close(quiet);
	CHECK(rc == 0);

	/* Every line a METRIC whose value is a finite number. */
	if ((f = fopen(res, "r")) == NULL)
		abort();
	while (fgets(line, sizeof line, f) != NULL) {
		char *eq = strchr(line, '='), *end;
		double v;

		len = strlen(line);
		CHECK(len > 0 && line[len - 1] == '\n');
		CHECK(strncmp(line, "METRIC ", 7) == 0 && eq != NULL);
		v = strtod(eq + 1, &end);
		CHECK(end != eq + 1 && *end == '\n');
		CHECK(isfinite(v));
		lines++;
	}
	fclose(f);
	CHECK(lines > 0);
	return 0;
}
