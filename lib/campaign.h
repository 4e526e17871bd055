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
/* The directory named by -C, else $AR_CAMPAIGN, else ".". */
const char *ar_campaign_default(const char *opt);

#endif
