/* inventory.c: lib/inventory's readers: a topology TSV and sinfo's
 * lines; then the packer on whatever was read. */
#include "fuzz.h"
#include "inventory.h"
#include "pack.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ar_inv inv;
	struct ar_place p;
	char err[512], *s, *line, *save = NULL;
	FILE *f;
	int k;

	ar_inv_init(&inv);
	if (n && (f = fmemopen((void *)d, n, "r"))) {
		if (ar_inv_read(&inv, f, "fuzz", err, sizeof err) == 0) {
			ar_pack_index(&inv);
			for (k = 1; k <= 8; k *= 2)
				if (ar_pack_find(&inv, k, 0, 0, &p))
					ar_pack_take(&inv, &p, 1);
		} else
			CHECK(err[0]);
		fclose(f);
	}
	ar_inv_free(&inv);
	ar_inv_init(&inv);
	s = fuzz_str(d, n);
	for (line = strtok_r(s, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save))
		if (ar_inv_sinfo_line(&inv, line, err, sizeof err) < 0)
			CHECK(err[0]);
	ar_inv_free(&inv);
	free(s);
	return 0;
}
