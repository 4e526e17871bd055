/* campaign.h: the paths and keys of a campaign directory. */
#ifndef AR_CAMPAIGN_H
#define AR_CAMPAIGN_H

#include "conf.h"
#include "crypto.h"

struct ar_campaign {
	char *dir;
	struct ar_conf conf;
	char *id;
	char seal_hash[AR_HASH_HEX];
	int have_seal;
	unsigned char pk[AR_PK_BYTES];
};
/* Opens DIR (campaign.conf, keys/bench.pub, SEAL's hash); dies with a
 * clear message and the fitting exit code when it is not a campaign. */
void ar_campaign_open(struct ar_campaign *c, const char *dir);
void ar_campaign_free(struct ar_campaign *c);
/* Checks the campaign's public key against a pinned fingerprint: want,
 * else $AR_KEY_FINGERPRINT; 0 when it matches or nothing is pinned, -1
 * when it does not match, -2 when want is not a fingerprint; err says
 * which. The pin is the trust anchor a user keeps outside the campaign
 * (ar-init(1)), where no method or agent can write it. */
int ar_campaign_pinned(const struct ar_campaign *c, const char *want,
	char *err, size_t errlen);
/* The directory named by -C, else $AR_CAMPAIGN, else ".". */
const char *ar_campaign_default(const char *opt);
/* The secret key's file: campaign.conf's "key", relative to the campaign
 * unless absolute, else keys/bench.key. malloc'd. */
char *ar_campaign_key(const struct ar_campaign *c);
/* The path of a named part of the campaign directory ("conf", "problem",
 * "manifest", "ledger", "ideas", "queue", "submitted", "methods",
 * "work", "log", "loop", "run", "machine", "keys", "pub", "seal"),
 * malloc'd; NULL for a name it does not know. ar-campaign(5) has the
 * layout. */
char *ar_campaign_path(const char *dir, const char *name);
/* The names ar_campaign_path knows, NULL-ended. */
extern const char *const ar_campaign_parts[];

#endif
