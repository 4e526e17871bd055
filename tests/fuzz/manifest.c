/* manifest.c: lib/manifest, problem.json as ar-bench, ar-run, ar-sched
 * and ar-campaign read it. */
#include <sys/stat.h>

#include "fuzz.h"
#include "manifest.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ar_manifest m;
	char path[128], err[1024], *dir, *slash;

	fuzz_file(d, n, "problem.json", path, sizeof path);
	dir = strdup(path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (ar_manifest_read(&m, dir, err, sizeof err) == 0) {
		CHECK(m.name && m.baseline && m.metric.name);
		ar_manifest_free(&m);
	} else
		CHECK(strncmp(err, "problem.json", 12) == 0);
	free(dir);
	return 0;
}
