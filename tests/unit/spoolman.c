/* spoolman.c: unit tests of lib/spoolman: a batch's manifest, looked up
 * by name and inode, refused when torn, pruned by reap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool.h"
#include "unit.h"

/* A batch of AR_SPOOL_MANIFEST_MIN records or more leaves a manifest
 * that gives each record's bytes by its name and inode; a torn one gives
 * none; reap removes it once none of its records is in new/ or cur/. */
static void
manifest(void)
{
	char *dir = unit_tmpdir(), *q = unit_path(dir, "q"), *p, *t;
	struct ar_spool_rec r[AR_SPOOL_MANIFEST_MIN];
	char ids[AR_SPOOL_MANIFEST_MIN][16], data[AR_SPOOL_MANIFEST_MIN][32];
	struct ar_spool_man m;
	struct stat st;
	char **names;
	const char *got;
	size_t n, i, stored, len, found = 0, back;

	OK(ar_spool_init(q) == 0, "init");
	for (i = 0; i < AR_SPOOL_MANIFEST_MIN; i++) {
		snprintf(ids[i], sizeof ids[i], "m%zu", i);
		snprintf(data[i], sizeof data[i], "{\"n\":%zu}\n", i);
		r[i].id = ids[i];
		r[i].prio = 0;
		r[i].data = data[i];
		r[i].len = strlen(data[i]);
	}
	/* One short of the size: no manifest. */
	OK(ar_spool_put_batch(q, r, AR_SPOOL_MANIFEST_MIN - 1, &stored) ==
	    AR_SP_OK && !unit_exists(q, "batch"), "manifest: none for a "
	    "small batch");
	p = unit_path(dir, "q2");
	free(q);
	q = p;
	OK(ar_spool_init(q) == 0, "init");
	OK(ar_spool_put_batch(q, r, AR_SPOOL_MANIFEST_MIN, &stored) ==
	    AR_SP_OK && stored == AR_SPOOL_MANIFEST_MIN, "manifest: stored");
	OK(ar_spool_man_load(q, &m) == 0 && m.n == AR_SPOOL_MANIFEST_MIN,
	    "manifest: every record in it");
	OK(ar_spool_list(q, "new", &names, &n) == 0, "list");
	for (i = 0; i < n; i++) {
		p = ar_spool_path(q, "new", names[i]);
		t = unit_read(p, NULL);
		if (stat(p, &st) == 0 && t && (got = ar_spool_man_get(&m,
		    names[i], (uint64_t)st.st_ino, &len)) && len ==
		    strlen(t) && memcmp(got, t, len) == 0 &&
		    !ar_spool_man_get(&m, names[i], (uint64_t)st.st_ino + 1,
		    &len))
			found++;
		free(t);
		free(p);
	}
	OK(found == AR_SPOOL_MANIFEST_MIN, "manifest: each record's bytes by "
	    "its name and inode, none by another inode");
	ar_spool_man_free(&m);
	/* Torn: nothing of it is taken, and reap leaves it be. */
	{
		char **b;
		size_t nb;

		OK(ar_spool_list(q, "batch", &b, &nb) == 0 && nb == 1,
		    "manifest: one file in batch/");
		p = ar_spool_path(q, "batch", nb ? b[0] : "none");
		ar_spool_free_list(b, nb);
	}
	OK(stat(p, &st) == 0 && truncate(p, st.st_size - 3) == 0, "truncate");
	OK(ar_spool_man_load(q, &m) == 0 && m.n == 0, "manifest: a torn one "
	    "gives nothing");
	ar_spool_man_free(&m);
	OK(ar_spool_reap(q, 0, &back) == AR_SP_OK && stat(p, &st) == 0,
	    "reap: a manifest that does not parse stays");
	free(p);
	/* A whole one (a new batch): kept while one record lives. */
	for (i = 0; i < AR_SPOOL_MANIFEST_MIN; i++)
		ids[i][0] = 'n';
	OK(ar_spool_put_batch(q, r, AR_SPOOL_MANIFEST_MIN, &stored) ==
	    AR_SP_OK, "another batch");
	for (i = 1; i < n; i++) {
		p = ar_spool_path(q, "new", names[i]);
		unlink(p);
		free(p);
	}
	ar_spool_free_list(names, n);
	OK(ar_spool_reap(q, 0, &back) == AR_SP_OK && ar_spool_list(q, "batch",
	    &names, &n) == 0 && n == 2, "reap: the torn one and the whole "
	    "one kept while records live");
	ar_spool_free_list(names, n);
	OK(ar_spool_list(q, "new", &names, &n) == 0, "list");
	for (i = 0; i < n; i++) {
		p = ar_spool_path(q, "new", names[i]);
		unlink(p);
		free(p);
	}
	ar_spool_free_list(names, n);
	OK(ar_spool_reap(q, 0, &back) == AR_SP_OK && ar_spool_list(q, "batch",
	    &names, &n) == 0 && n == 1, "reap: the manifest of no live "
	    "record goes, the torn one stays");
	ar_spool_free_list(names, n);
	free(q);
	unit_rmtree(dir);
}

const struct unit_test unit_spoolman[] = {
	TEST(manifest),
	UNIT_END,
};
