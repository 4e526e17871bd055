/* seal.h: SEAL lists every file and directory of problem/ with its mode,
 * size and hash, signed by the campaign's key. */
#ifndef AR_SEAL_H
#define AR_SEAL_H

#include <stddef.h>
#include "crypto.h"

typedef void (*ar_seal_report_fn)(void *arg, const char *state,
	const char *path, const char *detail);
int ar_seal_write(const char *campaign, const char *id, const char *problem,
	const unsigned char sk[AR_SK_BYTES], char *err, size_t errlen);
/* Reports each file changed, added or removed; returns their count, -1
 * when SEAL cannot be read (errno set), -2 when its signature is bad or it
 * belongs to another campaign, -3 when it is malformed. */
int ar_seal_check(const char *campaign, const char *id,
	const unsigned char pk[AR_PK_BYTES], ar_seal_report_fn report,
	void *arg, char *err, size_t errlen);

#endif
