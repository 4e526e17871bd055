/* campaign.c: unit tests of lib/campaign: opening a campaign directory
 * (and the exit codes of one that is not), the default directory, the
 * secret key's path and the paths of the parts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "campaign.h"
#include "crypto.h"
#include "err.h"
#include "unit.h"

/* A campaign of id "c1" in a fresh directory, its public key pk. */
static char *
make_campaign(unsigned char pk[AR_PK_BYTES], const char *conf)
{
	char *dir = unit_tmpdir(), hex[2 * AR_PK_BYTES + 1], line[128];
	unsigned char sk[AR_SK_BYTES];

	ar_keypair(pk, sk);
	ar_hex(hex, pk, AR_PK_BYTES);
	snprintf(line, sizeof line, "ed25519-public %s\n", hex);
	unit_put(dir, "keys/bench.pub", line, 0644);
	unit_put(dir, "campaign.conf", conf, 0644);
	return dir;
}

static void
opened(void)
{
	unsigned char pk[AR_PK_BYTES];
	char *dir = make_campaign(pk, "campaign = c1\n"), h[AR_HASH_HEX], *k;
	struct ar_campaign c;

	ar_campaign_open(&c, dir);
	OK(strcmp(c.id, "c1") == 0 && strcmp(c.dir, dir) == 0 &&
	    memcmp(c.pk, pk, sizeof pk) == 0 && !c.have_seal, "open: id, "
	    "directory, public key, no SEAL yet");
	k = ar_campaign_key(&c);
	OK(strcmp(k + strlen(dir), "/keys/bench.key") == 0, "key: "
	    "keys/bench.key by default");
	free(k);
	ar_campaign_free(&c);
	unit_put(dir, "SEAL", "sealed\n", 0444);
	unit_put(dir, "campaign.conf", "campaign = c1\nkey = k/sk\n", 0644);
	ar_campaign_open(&c, dir);
	ar_hash_hex(h, "sealed\n", 7);
	OK(c.have_seal && strcmp(c.seal_hash, h) == 0, "open: SEAL's hash");
	k = ar_campaign_key(&c);
	OK(strcmp(k + strlen(dir), "/k/sk") == 0, "key: relative to the "
	    "campaign");
	free(k);
	ar_campaign_free(&c);
	unit_put(dir, "campaign.conf", "campaign = c1\nkey = /etc/sk\n", 0644);
	ar_campaign_open(&c, dir);
	k = ar_campaign_key(&c);
	OK(strcmp(k, "/etc/sk") == 0, "key: an absolute path as it is");
	free(k);
	ar_campaign_free(&c);
	unit_rmtree(dir);
}

static void
open_child(const char *dir)
{
	struct ar_campaign c;

	ar_setprog("t");
	errno = 0;
	ar_campaign_open(&c, dir);
	ar_campaign_free(&c);
}

/* The same after a call that failed with ENOENT, as a program's may. */
static void
open_child_stale(const char *dir)
{
	struct ar_campaign c;

	ar_setprog("t");
	errno = ENOENT;
	ar_campaign_open(&c, dir);
	ar_campaign_free(&c);
}

static void
refused(void)
{
	unsigned char pk[AR_PK_BYTES];
	char *dir = make_campaign(pk, "campaign = a/b\n"), *err, *p, *want;
	int st;

	st = unit_child("open", dir, NULL, &err);
	want = ar_xasprintf("t: %s/campaign.conf: no valid 'campaign' id\n",
	    dir);
	OK(st == AR_EX_DATA && err && strcmp(err, want) == 0, "open: an "
	    "invalid id, exit 65");
	free(err);
	free(want);
	unit_put(dir, "campaign.conf", "campaign c1\n", 0644);
	st = unit_child("open", dir, NULL, &err);
	OK(st == AR_EX_DATA && err && strstr(err, "campaign.conf: line 1: "
	    "expected 'key = value'"), "open: a malformed conf, exit 65");
	free(err);
	OK(unit_child("open_stale", dir, NULL, NULL) == AR_EX_DATA,
	    "open: a malformed conf is exit 65 whatever errno held before");
	unit_put(dir, "campaign.conf", "campaign = c1\n", 0644);
	p = unit_path(dir, "keys/bench.pub");
	unlink(p);
	free(p);
	st = unit_child("open", dir, NULL, &err);
	OK(st == AR_EX_NOINPUT && err && strstr(err, "keys/bench.pub: No such "
	    "file or directory"), "open: no public key, exit 66");
	free(err);
	p = unit_path(dir, "campaign.conf");
	unlink(p);
	free(p);
	st = unit_child("open", dir, NULL, &err);
	want = ar_xasprintf("t: %s: not a campaign (no campaign.conf)\n", dir);
	OK(st == AR_EX_NOINPUT && err && strcmp(err, want) == 0, "open: no "
	    "campaign.conf, exit 66");
	free(err);
	free(want);
	p = unit_path(dir, "none");
	st = unit_child("open", p, NULL, &err);
	OK(st == AR_EX_NOINPUT && err && strstr(err, "/none: No such file or "
	    "directory"), "open: no directory, exit 66");
	free(err);
	free(p);
	unit_rmtree(dir);
}

static void
defaults(void)
{
	const char *old = getenv("AR_CAMPAIGN");
	char *saved = old ? ar_xstrdup(old) : NULL;

	setenv("AR_CAMPAIGN", "/env/c", 1);
	OK(strcmp(ar_campaign_default("/opt/c"), "/opt/c") == 0, "default: "
	    "-C first");
	OK(strcmp(ar_campaign_default(NULL), "/env/c") == 0, "default: then "
	    "$AR_CAMPAIGN");
	setenv("AR_CAMPAIGN", "", 1);
	OK(strcmp(ar_campaign_default(NULL), ".") == 0, "default: an empty "
	    "$AR_CAMPAIGN is none");
	unsetenv("AR_CAMPAIGN");
	OK(strcmp(ar_campaign_default(NULL), ".") == 0, "default: else .");
	if (saved)
		setenv("AR_CAMPAIGN", saved, 1);
	free(saved);
}

static void
paths(void)
{
	static const char *const want[][2] = {
		{ "conf", "d/campaign.conf" }, { "problem", "d/problem" },
		{ "manifest", "d/problem/problem.json" },
		{ "ledger", "d/ledger" }, { "queue", "d/queue" },
		{ "run", "d/run" }, { "pub", "d/keys/bench.pub" },
		{ "seal", "d/SEAL" },
	};
	size_t i, n = 0, bad = 0;
	char *p;

	for (i = 0; i < NELEM(want); i++) {
		p = ar_campaign_path("d", want[i][0]);
		OK(p && strcmp(p, want[i][1]) == 0, "path of %s is %s",
		    want[i][0], want[i][1]);
		free(p);
	}
	OK(ar_campaign_path("d", "nope") == NULL && ar_campaign_path("d", "")
	    == NULL, "no path for a name it does not know");
	for (i = 0; ar_campaign_parts[i]; i++, n++) {
		p = ar_campaign_path("d", ar_campaign_parts[i]);
		if (!p || strncmp(p, "d/", 2) != 0)
			bad++;
		free(p);
	}
	OK(n == 16 && bad == 0, "every part listed has a path inside the "
	    "campaign");
}

const struct unit_test unit_campaign[] = {
	TEST(opened),
	TEST(refused),
	TEST(defaults),
	TEST(paths),
	CHILD("open", open_child),
	CHILD("open_stale", open_child_stale),
	UNIT_END,
};
