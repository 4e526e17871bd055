/* campaign.c: opening a campaign directory for the commands that read it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "campaign.h"
#include "conf.h"
#include "crypto.h"
#include "err.h"
#include "id.h"
#include "io.h"

const char *
ar_campaign_default(const char *opt)
{
	const char *env;

	if (opt)
		return opt;
	if ((env = getenv("AR_CAMPAIGN")) && *env)
		return env;
	return ".";
}

void
ar_campaign_open(struct ar_campaign *c, const char *dir)
{
	char err[512], *p;
	const char *id;
	struct ar_buf b = {0};
	struct stat st;

	memset(c, 0, sizeof *c);
	c->dir = ar_xstrdup(dir);
	if (stat(dir, &st) < 0)
		ar_die(AR_EX_NOINPUT, "%s:", dir);
	p = ar_path(dir, "campaign.conf");
	if (access(p, F_OK) < 0 && errno == ENOENT)
		ar_die(AR_EX_NOINPUT, "%s: not a campaign (no campaign.conf)",
		    dir);
	if (ar_conf_read(&c->conf, p, err, sizeof err) < 0)
		ar_die(errno == ENOENT || errno == EACCES ? AR_EX_NOINPUT :
		    AR_EX_DATA, "%s", err);
	free(p);
	if (!(id = ar_conf_get(&c->conf, "campaign")) || !ar_id_valid(id))
		ar_die(AR_EX_DATA, "%s/campaign.conf: no valid 'campaign' id",
		    dir);
	c->id = ar_xstrdup(id);
	p = ar_path(dir, "keys/bench.pub");
	if (ar_key_read_public(p, c->pk, err, sizeof err) < 0)
		ar_die(AR_EX_NOINPUT, "%s", err);
	free(p);
	p = ar_path(dir, "SEAL");
	if (ar_readfile(p, &b, 64 << 20) == 0) {
		ar_hash_hex(c->seal_hash, b.p, b.len);
		c->have_seal = 1;
	} else if (errno != ENOENT)
		ar_die(AR_EX_NOINPUT, "%s:", p);
	ar_buf_free(&b);
	free(p);
}

int
ar_campaign_pinned(const struct ar_campaign *c, const char *want, char *err,
    size_t errlen)
{
	const char *from = want ? "-k" : "AR_KEY_FINGERPRINT";
	char have[AR_HASH_HEX];
	size_t i;

	if (!want && !(want = getenv("AR_KEY_FINGERPRINT")))
		return 0;
	for (i = 0; want[i]; i++)
		if (!strchr("0123456789abcdef", want[i]))
			break;
	if (want[i] || i != AR_HASH_HEX - 1) {
		snprintf(err, errlen, "%s %.80s: not a key fingerprint (64 "
		    "lowercase hex digits, as ar-campaign fingerprint prints)",
		    from, want);
		return -2;
	}
	ar_key_fingerprint(have, c->pk);
	if (strcmp(have, want) != 0) {
		snprintf(err, errlen, "%s/keys/bench.pub: fingerprint %.16s..., "
		    "not the pinned %.16s...: the campaign's key was replaced",
		    c->dir, have, want);
		return -1;
	}
	return 0;
}

void
ar_campaign_free(struct ar_campaign *c)
{
	ar_conf_free(&c->conf);
	free(c->dir);
	free(c->id);
	memset(c, 0, sizeof *c);
}

char *
ar_campaign_key(const struct ar_campaign *c)
{
	const char *kp = ar_conf_get(&c->conf, "key");

	if (!kp || !*kp)
		kp = "keys/bench.key";
	return kp[0] == '/' ? ar_xstrdup(kp) : ar_path(c->dir, kp);
}

/* Each part's name and its path in the campaign directory. */
static const char *const layout[][2] = {
	{ "conf", "campaign.conf" }, { "problem", "problem" },
	{ "manifest", "problem/problem.json" }, { "ledger", "ledger" },
	{ "ideas", "ideas" }, { "queue", "queue" },
	{ "submitted", "submitted" }, { "methods", "methods" },
	{ "work", "work" }, { "log", "log" }, { "loop", "loop" },
	{ "run", "run" }, { "machine", "machine" }, { "keys", "keys" },
	{ "pub", "keys/bench.pub" }, { "seal", "SEAL" },
};

const char *const ar_campaign_parts[] = { "conf", "problem", "manifest",
	"ledger", "ideas", "queue", "submitted", "methods", "work", "log",
	"loop", "run", "machine", "keys", "pub", "seal", NULL };

char *
ar_campaign_path(const char *dir, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof layout / sizeof *layout; i++)
		if (strcmp(layout[i][0], name) == 0)
			return ar_path(dir, layout[i][1]);
	return NULL;
}
