/* summary.c: run/sched-summary and run/sched-queue, the cache ar-sched
 * next keeps (ar-sched(1), The summary), read by cmd/ar-sched/summary.c's
 * static load(), which this target includes. The input is the two files'
 * bodies: two bytes (little-endian) give the summary's length, the rest
 * is the queue file's. The target puts each magic line before its body
 * and each checksum after it, and the queue file's checksum at the end
 * of the summary's body, so that the reader goes past them all and
 * parses every field. Whatever the bytes, the
 * reader must take the file or say why not, never read outside it, and
 * leave nothing half-loaded: a file it refuses leaves no entries but a
 * whole queue part's, when only a segment was not the ledger's. The
 * whole input is also read as a segment's fold, the folds' prefix, a
 * sealed segment's rows and the loose results' list (run/sched-fold/N,
 * run/sched-fold/prefix, ledger/seg/N.tsv, run/sched-loose). */
#include <sanitizer/lsan_interface.h>

#include "fuzz.h"

#include "../../cmd/ar-sched/summary.c"

/* main.c's, which is not linked: the other subcommands name it. */
const char sched_usage[] = "usage: ar-sched " USAGE_SIMULATE;

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static char dir[64];
	struct ar_buf b = {0};
	struct ar_ledger led;
	struct summ *sm;
	struct agg a;
	char h[SUMLEN + 1];
	const char *why;
	size_t i, slen;

	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/fuzz-summary.%ld", (long)getpid());
		mkdir(dir, 0700);
		ar_setprog("ar-sched");
	}
	if (n < 2)
		return 0;
	slen = (size_t)d[0] | (size_t)d[1] << 8;
	d += 2;
	n -= 2;
	if (slen > n)
		slen = n;
	sm = ar_xcalloc(1, sizeof *sm);
	sm->path = ar_path(dir, NAME);
	sm->qpath = ar_path(dir, QNAME);
	ar_buf_add(&b, QMAGIC, sizeof QMAGIC - 1);
	ar_buf_add(&b, (const char *)d + slen, n - slen);
	sum_hex(h, b.p, b.len);
	ar_buf_add(&b, h, SUMLEN);
	if (ar_write_atomic(sm->qpath, b.p, b.len, 0600) < 0)
		abort();
	b.len = 0;
	ar_buf_add(&b, MAGIC, sizeof MAGIC - 1);
	ar_buf_add(&b, (const char *)d, slen);
	put_str(&b, h);
	sum_hex(h, b.p, b.len);
	ar_buf_add(&b, h, SUMLEN);
	if (ar_write_atomic(sm->path, b.p, b.len, 0600) < 0)
		abort();
	ar_buf_free(&b);
	sm->cp.id = ar_xstrdup("fuzz-campaign");
	memset(&led, 0, sizeof led);
	agg_init(&a, "tok_s");
	sm->metric = "tok_s";
	why = load(sm, &a, &led);
	/* The queue file is read on a thread: taken here. */
	q_join(sm, 0);
	if (why) {
		/* Only the queue part may stay: when it was whole and only
		 * a segment was not the ledger's. */
		CHECK(sm->nseg == 0 && a.nkey == 0 && !sm->loaded);
		CHECK(sm->qkept || sm->nq == 0);
		for (i = 0; sm->qkept && i < sm->nq; i++)
			CHECK(sm->q[i].name != NULL && sm->qfile.p != NULL);
	} else {
		int ki;

		for (i = 0; i < sm->nq; i++)
			CHECK(sm->q[i].name != NULL);
		/* Medians are read off sorted lists. */
		for (ki = 0; ki < AR_POL_NK; ki++)
			for (i = 1; i < a.secs[ki].n; i++)
				CHECK(!(a.secs[ki].v[i] < a.secs[ki].v[i - 1]));
	}
	agg_free(&a);
	/* The whole input as a segment's fold (run/sched-fold), its magic
	 * and checksum put around it: taken or refused, never half. */
	{
		struct fseg now;
		char whyf[300], *fp;
		int moved = 0;

		memset(&now, 0, sizeof now);
		now.num = 1;
		free(sm->fdir);
		sm->fdir = ar_xstrdup(dir);
		b.len = 0;
		ar_buf_add(&b, FMAGIC, sizeof FMAGIC - 1);
		ar_buf_add(&b, (const char *)d, n);
		sum_hex(h, b.p, b.len);
		ar_buf_add(&b, h, SUMLEN);
		fp = fold_path(sm, 1);
		if (ar_write_atomic(fp, b.p, b.len, 0600) < 0)
			abort();
		free(fp);
		ar_buf_free(&b);
		agg_init(&a, "tok_s");
		/* No segment file: a fold of another identity is not
		 * taken for the same bytes. */
		fp = ar_path(dir, "00000001.tsv");
		if (fold_read(sm, fp, &now, &a, &moved, whyf, sizeof whyf) < 0)
			CHECK(a.nkey == 0 && a.nnz == 0 && a.secs_all.n == 0);
		else
			CHECK(!moved);
		free(fp);
		agg_free(&a);
	}
	/* The whole input as the folds' prefix (run/sched-fold/prefix), its
	 * magic, head and checksum put around it: no ledger here, so only
	 * a prefix of no segment is taken, and one refused leaves nothing. */
	{
		char *pp = ar_path(sm->fdir, PNAME);

		b.len = 0;
		ar_buf_add(&b, PMAGIC, sizeof PMAGIC - 1);
		put_head(&b, sm);
		ar_buf_add(&b, (const char *)d, n);
		sum_hex(h, b.p, b.len);
		ar_buf_add(&b, h, SUMLEN);
		if (ar_write_atomic(pp, b.p, b.len, 0600) < 0)
			abort();
		ar_buf_free(&b);
		free(pp);
		free(sm->seg);
		sm->seg = NULL;
		sm->nseg = 0;
		agg_init(&a, "tok_s");
		prefix_read(sm, &a, &led);
		CHECK(sm->nseg == 0);
		if (!sm->seg)
			CHECK(a.nkey == 0 && a.nnz == 0 && a.secs_all.n == 0);
		agg_free(&a);
	}
	/* The whole input as a sealed segment's bytes (fold_segment, which
	 * folds a segment without its fold): folded or refused, never read
	 * past, and a row folded for at most each line after the header. */
	{
		struct agg sg;
		size_t lines = 0;

		for (i = 0; i < n; i++)
			lines += d[i] == '\n';
		agg_init(&sg, "tok_s");
		if (fold_segment(&sg, (const char *)d, n) == 0)
			CHECK(lines >= 1 && sg.rows <= lines - 1);
		agg_free(&sg);
	}
	/* The whole input as the loose results' list (run/sched-loose),
	 * its magic, head and checksum put around it: taken whole, sorted,
	 * each value inside the file read, or refused with nothing held. */
	{
		struct lcache lc;
		char whyl[300];

		memset(&lc, 0, sizeof lc);
		ar_buf_add(&lc.file, LMAGIC, sizeof LMAGIC - 1);
		put_head(&lc.file, sm);
		ar_buf_add(&lc.file, (const char *)d, n);
		sum_hex(h, lc.file.p, lc.file.len);
		ar_buf_add(&lc.file, h, SUMLEN);
		lcache_parse(&lc, sm, whyl, sizeof whyl);
		if (whyl[0])
			CHECK(lc.old == NULL && lc.nold == 0);
		for (i = 0; !whyl[0] && i < lc.nold; i++) {
			size_t j;

			CHECK(ar_id_valid(lc.old[i].k.id));
			CHECK(i == 0 || strcmp(lc.old[i - 1].k.id,
			    lc.old[i].k.id) < 0);
			CHECK(lres_find(&lc, lc.old[i].k.id) == &lc.old[i]);
			for (j = 0; j < FV_KEEP; j++)
				CHECK(lc.old[i].v[j] >= lc.file.p &&
				    lc.old[i].v[j] + strlen(lc.old[i].v[j]) <
				    lc.file.p + lc.file.len);
		}
		free(lc.old);
		ar_buf_free(&lc.file);
	}
	for (i = 0; i < sm->nq; i++)
		q_free(&sm->q[i]);
	free(sm->q);
	free(sm->qslot);
	free(sm->order);
	free(sm->seg);
	ar_buf_free(&sm->ledger);
	ar_buf_free(&sm->file);
	ar_buf_free(&sm->qfile);
	free(sm->cp.id);
	free(sm->path);
	free(sm->qpath);
	free(sm->fdir);
	free(sm);
	return 0;
}
