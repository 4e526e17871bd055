/* ar-sign-test: a test-only helper that signs results as ar-bench will,
 * and generates realistic signed results for tests and benchmarks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "campaign.h"
#include "conf.h"
#include "crypto.h"
#include "err.h"
#include "id.h"
#include "io.h"
#include "json.h"

static const char usage[] =
	"[-C campaign] [-k secret-key] [-g count] [-s seed]";

static struct ar_campaign camp;
static unsigned char sk[AR_SK_BYTES];

/* Fills what a real result always carries, then signs. */
static void
sign_out(json_t *o)
{
	char id[AR_IDLEN], *s;

	if (!json_object_get(o, "id")) {
		ar_id_new(id);
		json_object_set_new(o, "id", json_string(id));
	}
	if (!json_object_get(o, "campaign"))
		json_object_set_new(o, "campaign", json_string(camp.id));
	if (!json_object_get(o, "seal"))
		json_object_set_new(o, "seal", json_string(camp.seal_hash));
	ar_json_sign(o, sk);
	s = ar_json_canon(o);
	puts(s);
	free(s);
}

static unsigned long long rng;

static double
unif(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static json_t *
stat_obj(double med, double spread, int n)
{
	return json_pack("{s:f, s:f, s:f, s:i, s:f}", "median", med,
	    "ci_lo", med * (1 - spread), "ci_hi", med * (1 + spread), "n", n,
	    "rsd", spread / 2);
}

/* A result shaped like ar-bench's, with plausible numbers. */
static json_t *
generate(long i)
{
	static const char *verdicts[] = { "keep", "discard", "equivalent",
	    "inconclusive", "invalid", "crash", "timeout" };
	static const int ks[] = { 1, 2, 4, 8 };
	char commit[41], mhash[AR_HASH_HEX], buf[64];
	int k = ks[i % 4], g;
	double base = 1000 + 200 * unif(), ratio = 0.9 + 0.4 * unif();
	json_t *ids = json_array(), *raw = json_array(), *o;

	snprintf(buf, sizeof buf, "method-%ld", i % 997);
	ar_hash_hex(mhash, buf, strlen(buf));
	snprintf(commit, sizeof commit, "%.40s", mhash);
	for (g = 0; g < k; g++)
		json_array_append_new(ids, json_integer(g));
	for (g = 0; g < 8; g++)
		json_array_append_new(raw, json_real(base * ratio *
		    (0.97 + 0.06 * unif())));
	snprintf(buf, sizeof buf, "exp-%08ld", i);
	o = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:s, s:{s:i, s:s, s:o, "
	    "s:s}, s:s, s:s, s:s, s:s, s:{s:o, s:o}, s:{s:o}, s:o, s:s, s:s, "
	    "s:s, s:s, s:{s:o}}",
	    "experiment", buf, "idea", "idea-1",
	    "method", "commit", commit, "hash", mhash,
	    "build", "autoreduce-" AR_VERSION, "workload", "decode-512",
	    "shape", "k", k, "gpu_model", "H100", "gpu_ids", ids, "node", "n1",
	    "device", "cuda", "sandbox", "bwrap", "seeds", "dev",
	    "metric", "tok_s",
	    "metrics", "tok_s", stat_obj(base * ratio, 0.02, 20), "p95_ms",
	    stat_obj(180 + 80 * unif(), 0.05, 20),
	    "baseline", "tok_s", stat_obj(base, 0.02, 20),
	    "ratio", stat_obj(ratio, 0.015, 20),
	    "verdict", verdicts[i % 7], "why", "generated for a test",
	    "started", "2026-11-26T01:58:12Z", "finished", "2026-11-26T02:00:12Z",
	    "raw", "tok_s", raw);
	if (!o)
		ar_die(AR_EX_SOFTWARE, "cannot build a result");
	return o;
}

int
main(int argc, char **argv)
{
	const char *dir = NULL, *key = NULL;
	char *keypath = NULL;
	long count = -1, i;
	struct ar_buf line = {0};
	char err[512];
	int c;

	ar_std_args(argc, argv, usage);
	ar_crypto_init();
	while ((c = getopt(argc, argv, "C:g:k:s:")) != -1) {
		switch (c) {
		case 'C': dir = optarg; break;
		case 'g': count = atol(optarg); break;
		case 'k': key = optarg; break;
		case 's': rng = strtoull(optarg, NULL, 10); break;
		default: ar_usage(usage);
		}
	}
	dir = ar_campaign_default(dir);
	ar_campaign_open(&camp, dir);
	if (!key) {
		const char *k = ar_conf_get(&camp.conf, "key");

		if (!k)
			ar_die(AR_EX_DATA, "%s: no key in campaign.conf", dir);
		key = k[0] == '/' ? k : (keypath = ar_path(dir, k));
	}
	if (ar_key_read_secret(key, sk, err, sizeof err) < 0)
		ar_die(AR_EX_NOINPUT, "%s", err);
	if (count >= 0) {
		for (i = 0; i < count; i++) {
			json_t *o = generate(i);

			sign_out(o);
			json_decref(o);
		}
	} else {
		size_t lineno = 0;

		while (ar_jsonl_line(stdin, "<stdin>", &line, &lineno)) {
			json_t *o = ar_json_parse(line.p, line.len, err,
			    sizeof err);

			if (!o || !json_is_object(o))
				ar_die(AR_EX_DATA, "<stdin>: %s", o ? "not an "
				    "object" : err);
			sign_out(o);
			json_decref(o);
		}
	}
	ar_buf_free(&line);
	free(keypath);
	ar_campaign_free(&camp);
	ar_fshut(stdout, "<stdout>");
	return 0;
}
