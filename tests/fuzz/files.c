/* files.c: the readers of small files of a campaign: campaign.conf
 * (lib/conf), a booking (lib/booking) and its file name, a lock file's
 * holder (lib/lock). */
#include <sys/stat.h>

#include "booking.h"
#include "conf.h"
#include "fuzz.h"
#include "lock.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ar_conf c;
	struct ar_booking b;
	char path[128], err[512], who[400], node[256], *s;
	int slot;

	fuzz_file(d, n, "campaign.conf", path, sizeof path);
	if (ar_conf_read(&c, path, err, sizeof err) == 0) {
		for (size_t i = 0; i < c.n; i++)
			CHECK(ar_conf_get(&c, c.key[i]) == c.val[i]);
		ar_conf_free(&c);
	} else
		CHECK(err[0]);
	if (ar_booking_read(path, &b) == 0)
		CHECK(strlen(b.exp) <= AR_ID_MAX);
	if (ar_lock_holder(path, who, sizeof who) == 0)
		CHECK(strncmp(who, "pid ", 4) == 0);
	s = fuzz_str(d, n);
	if (ar_booking_name(s, node, sizeof node, &slot) == 0)
		CHECK(slot >= 0 && strlen(node) < sizeof node);
	free(s);
	return 0;
}
