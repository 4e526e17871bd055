/* spool.c: the claim hint SPOOL/next (lib/spool). A spool of four
 * records, then a hint whose header carries the spool's real token and
 * the current time (so that the claim follows it) and whose names are
 * the input; one claim. Whatever the names (torn, foreign, ../ paths,
 * names of records claimed already), the claim must take at most one of
 * the four records, from new/ to cur/, and nothing else must move. */
#include <dirent.h>
#include <time.h>

#include "fuzz.h"
#include "spool.h"

static size_t
count(const char *dir, const char *sub)
{
	char p[256];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(p, sizeof p, "%s/%s", dir, sub);
	d = opendir(p);
	CHECK(d != NULL);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128], cmd[160], tok[64] = "-";
	struct ar_lease l;
	struct timespec now;
	FILE *f;
	int i, r;

	if (!dir[0])
		snprintf(dir, sizeof dir, "/tmp/ar-fuzz-spool.%ld", (long)getpid());
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	CHECK(ar_spool_init(dir) == 0);
	for (i = 0; i < 4; i++) {
		char id[16];

		snprintf(id, sizeof id, "r%d", i);
		CHECK(ar_spool_put(dir, id, i, "{}", 2) == AR_SP_OK);
	}
	snprintf(path, sizeof path, "%s/arrivals", dir);
	if ((f = fopen(path, "r"))) {
		if (fgets(tok, sizeof tok, f))
			tok[strcspn(tok, "\n")] = '\0';
		fclose(f);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(path, sizeof path, "%s/next", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fprintf(f, "ar-spool-next 1\n%s\n%lld.%09ld\n", tok,
	    (long long)now.tv_sec, now.tv_nsec);
	fwrite(data, 1, size, f);
	fputs("end\n", f);
	fclose(f);
	r = ar_spool_claim(dir, "fuzz", now.tv_sec + 60, &l);
	CHECK(r == AR_SP_OK);
	/* The first record in order: priority 3 is r3. */
	CHECK(strcmp(l.id, "r3") == 0);
	CHECK(count(dir, "new") == 3);
	CHECK(count(dir, "cur") == 1);
	CHECK(count(dir, "done") == 0 && count(dir, "failed") == 0);
	return 0;
}
