/* batch.c: a batch's manifest, SPOOL/batch/NAME (lib/spool), as
 * ar_spool_man_load reads it and ar_spool_reap prunes it. The input is
 * the manifest's body: the target puts its magic line before it and its
 * sum line after it, so that the reader parses every entry. Whatever
 * the bytes, every entry the reader takes must lie inside the file and
 * be found again by its name and inode; a manifest it cannot parse
 * gives no entry at all; reap, with no record in new/ or cur/, removes
 * a manifest exactly when it parses. */
#include "fuzz.h"
#include "crypto.h"
#include "spool.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128], cmd[160], h[AR_HASH_HEX];
	struct ar_spool_man m;
	struct stat st;
	size_t i, len, returned, parsed;
	FILE *f;
	char *body;
	size_t blen;

	if (!dir[0])
		snprintf(dir, sizeof dir, "/tmp/ar-fuzz-batch.%ld", (long)getpid());
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	CHECK(ar_spool_init(dir) == 0);
	snprintf(path, sizeof path, "%s/batch", dir);
	CHECK(mkdir(path, 0755) == 0);
	blen = strlen("ar-spool batch 1\n") + size;
	body = malloc(blen + 1);
	memcpy(body, "ar-spool batch 1\n", 17);
	memcpy(body + 17, data, size);
	ar_hash_hex(h, body, blen);
	snprintf(path, sizeof path, "%s/batch/0000000-x", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fwrite(body, 1, blen, f);
	fprintf(f, "sum %s\n", h);
	CHECK(fclose(f) == 0);
	CHECK(ar_spool_man_load(dir, &m) == 0);
	for (i = 0; i < m.n; i++) {
		const char *got;

		CHECK(m.nbuf == 1);
		CHECK(m.e[i].data >= m.buf[0] && m.e[i].name >= m.buf[0]);
		CHECK(m.e[i].name < m.buf[0] + blen);
		CHECK(m.e[i].data + m.e[i].len <= m.buf[0] + blen);
		got = ar_spool_man_get(&m, m.e[i].name, m.e[i].ino, &len);
		/* An earlier entry of the same name and inode comes first. */
		CHECK(got != NULL && len <= blen);
	}
	parsed = m.nbuf;
	ar_spool_man_free(&m);
	CHECK(ar_spool_reap(dir, 0, &returned) == AR_SP_OK);
	CHECK((stat(path, &st) == 0) == (parsed == 0));
	free(body);
	return 0;
}
