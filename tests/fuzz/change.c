/* change.c: lib/method's reader of git's raw diff, and the mutable-path
 * rule on every path it yields. */
#include <sys/stat.h>

#include "fuzz.h"
#include "method.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const char *const globs[] = { "src/*.c", "kernels/", "lib",
	    "*.h", "Makefile" };
	struct ar_change c;
	size_t pos = 0, last = 0;
	int r;

	while ((r = ar_method_change((const char *)d, n, &pos, &c)) == 1) {
		int what = ar_method_path(globs, 5, c.path, c.mode);

		CHECK(pos > last && pos <= n);
		CHECK(what >= AR_MP_SEALED && what <= AR_MP_NOTFILE);
		last = pos;
	}
	CHECK(r == 0 || r == -1);
	return 0;
}
