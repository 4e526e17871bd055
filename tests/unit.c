/* unit: C unit tests of lib/: TSV, UTF-8, JSON, canonical form, hashes
 * and signatures, times, ids, spool names, flattening, crash-safe files.
 * Prints TAP. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "conf.h"
#include "crypto.h"
#include "err.h"
#include "flat.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "manifest.h"
#include "metric.h"
#include "spool.h"
#include "stats.h"
#include "timefmt.h"
#include "tree.h"
#include "tsv.h"
#include "utf8.h"

static int ntest, nfail;

#define OK(cond, name) ok_((cond), (name), __LINE__)

static void
ok_(int cond, const char *name, int line)
{
	ntest++;
	if (cond)
		printf("ok %d - %s\n", ntest, name);
	else {
		nfail++;
		printf("not ok %d - %s (line %d)\n", ntest, name, line);
	}
}

static void
test_tsv(void)
{
	char line[256], *f[8], err[256];
	struct ar_buf b = {0};
	int n;

	strcpy(line, "a\\tb\tc\\\\d\te\\nf");
	n = ar_tsv_split(line, strlen(line), f, 8, err, sizeof err);
	OK(n == 3 && strcmp(f[0], "a\tb") == 0 && strcmp(f[1], "c\\d") == 0 &&
	    strcmp(f[2], "e\nf") == 0, "tsv: split unescapes \\t \\\\ \\n");
	strcpy(line, "a\\xb");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0 &&
	    strstr(err, "unknown escape"), "tsv: unknown escape is an error");
	strcpy(line, "ab\\");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0,
	    "tsv: trailing backslash is an error");
	strcpy(line, "a\rb");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0 &&
	    strstr(err, "carriage return"), "tsv: CR is an error");
	memcpy(line, "a\0b", 4);
	OK(ar_tsv_split(line, 3, f, 8, err, sizeof err) < 0 &&
	    strstr(err, "NUL"), "tsv: NUL is an error");
	strcpy(line, "caf\xc3");
	OK(ar_tsv_split(line, strlen(line), f, 8, err, sizeof err) < 0 &&
	    strstr(err, "UTF-8"), "tsv: truncated UTF-8 is an error");
	ar_buf_reserve(&b, 0);
	ar_tsv_escape(&b, "x\ty\nz\\w\rv");
	OK(strcmp(b.p, "x\\ty\\nz\\\\w\\rv") == 0, "tsv: escape");
	strcpy(line, b.p);
	OK(ar_tsv_unescape(line) == 0 && strcmp(line, "x\ty\nz\\w\rv") == 0,
	    "tsv: escape and unescape round-trip");
	ar_buf_free(&b);
	{
		FILE *in = fmemopen("b\ta\n1\t2\n3\n", 10, "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") == 0 && ar_tsv_col(&t, "a") == 1 &&
		    ar_tsv_col(&t, "zz") == -1, "tsv: columns by name");
		OK(ar_tsv_next(&t) == 1 && strcmp(t.field[1], "2") == 0,
		    "tsv: a row");
		OK(ar_tsv_next(&t) == -1 && strstr(t.err, "line 3: 1 field, "
		    "header has 2"), "tsv: wrong column count names the line");
		ar_tsv_close(&t);
		fclose(in);
	}
	{
		FILE *in = fmemopen("a\ta\n", 4, "r");
		struct ar_tsv t;

		OK(ar_tsv_open(&t, in, "in") < 0 && strstr(t.err, "duplicate "
		    "column 'a'"), "tsv: duplicate column");
		ar_tsv_close(&t);
		fclose(in);
	}
}

static void
test_utf8(void)
{
	{
		const char *t = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80";

		OK(ar_utf8_invalid(t, strlen(t)) == -1, "utf8: valid text");
	}
	OK(ar_utf8_invalid("\xc0\xaf", 2) == 0, "utf8: overlong rejected");
	OK(ar_utf8_invalid("ab\xed\xa0\x80", 5) == 2, "utf8: surrogate rejected");
	OK(ar_utf8_invalid("\xf4\x90\x80\x80", 4) == 0, "utf8: > U+10FFFF");
	OK(ar_utf8_invalid("\xff", 1) == 0, "utf8: 0xff rejected");
}

static void
test_json(void)
{
	char err[256], *s;
	json_t *j;

	OK(!ar_json_parse("{\"a\":1,\"a\":2}", 13, err, sizeof err) &&
	    strstr(err, "duplicate"), "json: duplicate keys rejected");
	OK(!ar_json_parse("{\"a\":NaN}", 9, err, sizeof err), "json: NaN "
	    "rejected");
	OK(!ar_json_parse("{\"a\":1e999}", 11, err, sizeof err), "json: "
	    "overflow to infinity rejected");
	OK(!ar_json_parse("{\"a\":\"\xff\"}", 8, err, sizeof err) &&
	    strstr(err, "UTF-8"), "json: invalid UTF-8 rejected");
	OK(!ar_json_parse("{\"a\":1}\0", 8, err, sizeof err), "json: NUL "
	    "rejected");
	s = "{\"b\":[1,2.5,\"x\"],\"a\":{\"d\":null,\"c\":true}}";
	j = ar_json_parse(s, strlen(s), err, sizeof err);
	OK(j != NULL, "json: parse");
	s = ar_json_canon(j);
	OK(strcmp(s, "{\"a\":{\"c\":true,\"d\":null},\"b\":[1,2.5,\"x\"]}") == 0,
	    "json: canonical form sorts keys, compact");
	free(s);
	OK(json_integer_value(ar_json_path(j, "b")) == 0 &&
	    ar_json_path(j, "a.c") == json_true(), "json: dotted path");
	json_decref(j);
	{
		char buf[64];
		double v;

		ar_fmt_double(buf, sizeof buf, 0.1);
		OK(strcmp(buf, "0.1") == 0, "number: shortest form 0.1");
		ar_fmt_double(buf, sizeof buf, 1.0 / 3);
		OK(strtod(buf, NULL) == 1.0 / 3, "number: 1/3 reads back exactly");
		OK(ar_parse_double("nan", &v) < 0 && ar_parse_double("inf",
		    &v) < 0 && ar_parse_double("1e999", &v) < 0 &&
		    ar_parse_double("0x10", &v) < 0 && ar_parse_double("", &v)
		    < 0 && ar_parse_double("1.5x", &v) < 0, "number: NaN, inf, "
		    "overflow, hex, empty, garbage rejected");
		OK(ar_parse_double("-2.5e3", &v) == 0 && v == -2500, "number: "
		    "parse");
	}
}

static void
test_crypto(void)
{
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], pk2[AR_PK_BYTES],
	    sk2[AR_SK_BYTES];
	char h[AR_HASH_HEX], err[256];
	json_t *o;

	ar_hash_hex(h, "abc", 3);
	/* BLAKE2b-256("abc") from RFC 7693's reference implementation. */
	OK(strcmp(h, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c0"
	    "68d52319") == 0, "blake2b-256 of abc");
	ar_keypair(pk, sk);
	ar_keypair(pk2, sk2);
	o = json_pack("{s:s, s:{s:f}}", "id", "x", "metrics", "m", 1.5);
	ar_json_sign(o, sk);
	OK(ar_json_verify(o, pk, err, sizeof err) == 0, "sign: verifies");
	OK(ar_json_verify(o, pk2, err, sizeof err) < 0, "sign: other key fails");
	json_object_set_new(json_object_get(o, "metrics"), "m", json_real(1.6));
	OK(ar_json_verify(o, pk, err, sizeof err) < 0, "sign: changed metric "
	    "fails");
	json_object_del(o, "sig");
	OK(ar_json_verify(o, pk, err, sizeof err) < 0 && strstr(err, "no "
	    "signature"), "sign: missing signature");
	json_decref(o);
}

static void
test_time_id(void)
{
	struct timespec ts = { 1795000000, 123456789 }, back;
	char buf[64], a[AR_IDLEN], b[AR_IDLEN];
	int i, sorted = 1;

	ar_time_fmt(buf, sizeof buf, ts, 0);
	OK(strcmp(buf, "2026-11-18T11:06:40Z") == 0, "time: RFC 3339 UTC");
	ar_time_fmt(buf, sizeof buf, ts, 3);
	OK(strcmp(buf, "2026-11-18T11:06:40.123Z") == 0, "time: fraction");
	OK(ar_time_parse("2026-11-18T12:06:40.5+01:00", &back) == 0 &&
	    back.tv_sec == 1795000000 && back.tv_nsec == 500000000,
	    "time: parse with offset");
	OK(ar_time_parse("2026-02-30T00:00:00Z", &back) < 0 &&
	    ar_time_parse("2026-11-18 09:46", &back) < 0 &&
	    ar_time_parse("2026-11-18T09:46:40", &back) < 0, "time: invalid "
	    "dates and missing zone rejected");
	ar_id_new(a);
	for (i = 0; i < 10000; i++) {
		ar_id_new(b);
		if (strcmp(a, b) >= 0)
			sorted = 0;
		memcpy(a, b, sizeof a);
	}
	OK(sorted, "id: strictly increasing within a process");
	OK(strlen(a) == 40 && ar_id_valid(a), "id: 40 valid characters");
	OK(!ar_id_valid("") && !ar_id_valid("a/b") && !ar_id_valid(".x") &&
	    !ar_id_valid("-x") && !ar_id_valid("a@b"), "id: invalid ids");
}

/* Ids made by many processes at once never collide. Each child writes
 * its own file: lines through one pipe could interleave. */
static void
test_ids_processes(void)
{
	enum { PROCS = 8, EACH = 5000 };
	char (*all)[AR_IDLEN] = malloc((size_t)PROCS * EACH * AR_IDLEN);
	char dir[] = "/tmp/ar-unit-XXXXXX", path[64];
	int p, dup = 0;
	size_t got = 0, i;

	if (!all || !mkdtemp(dir)) {
		OK(0, "id: across processes (setup)");
		free(all);
		return;
	}
	for (p = 0; p < PROCS; p++) {
		if (fork() == 0) {
			FILE *out;
			char id[AR_IDLEN];
			int k;

			snprintf(path, sizeof path, "%s/%d", dir, p);
			if (!(out = fopen(path, "w")))
				_exit(1);
			for (k = 0; k < EACH; k++) {
				ar_id_new(id);
				fprintf(out, "%s\n", id);
			}
			_exit(fclose(out) == 0 ? 0 : 1);
		}
	}
	while (wait(NULL) > 0)
		;
	for (p = 0; p < PROCS; p++) {
		FILE *in;

		snprintf(path, sizeof path, "%s/%d", dir, p);
		if (!(in = fopen(path, "r")))
			continue;
		while (got < (size_t)PROCS * EACH &&
		    fscanf(in, "%40s", all[got]) == 1)
			got++;
		fclose(in);
		unlink(path);
	}
	rmdir(dir);
	qsort(all, got, AR_IDLEN, (int (*)(const void *, const void *))strcmp);
	for (i = 1; i < got; i++)
		if (strcmp(all[i], all[i - 1]) == 0)
			dup++;
	OK(got == (size_t)PROCS * EACH && dup == 0, "id: 40,000 ids from 8 "
	    "processes at once, none twice");
	free(all);
}

static void
test_spool_names(void)
{
	struct ar_lease l;
	char buf[512];
	const char *o = "20261126T015812.123456Z-3f9a2c1b7d4e5f60";

	snprintf(buf, sizeof buf, "0999995-%s-abc", o);
	OK(ar_spool_parse(buf, &l) == 0 && l.prio == 5 &&
	    strcmp(l.id, "abc") == 0 && l.expires == 0, "spool: new name");
	snprintf(buf, sizeof buf, "1000003-%s-abc@1795000000@w1", o);
	OK(ar_spool_parse(buf, &l) == 0 && l.prio == -3 &&
	    l.expires == 1795000000 && strcmp(l.holder, "w1") == 0 &&
	    strncmp(l.name, "1000003-", 8) == 0 && strlen(l.name) == 52,
	    "spool: lease name");
	{
		char back[512];

		ar_spool_lease_name(back, sizeof back, &l);
		OK(strcmp(back, buf) == 0, "spool: name round-trip");
	}
	snprintf(buf, sizeof buf, "1000000-%s-a@x@w", o);
	OK(ar_spool_parse("junk", &l) < 0 && ar_spool_parse(buf, &l) < 0 &&
	    ar_spool_parse("1000000-abc", &l) < 0 && ar_spool_parse("README",
	    &l) < 0, "spool: junk names rejected");
}

static void
test_flat(void)
{
	char err[256];
	const char *in = "{\"id\":\"r\",\"sig\":\"s\",\"raw\":[1],"
	    "\"metrics\":{\"t\":{\"median\":1.5,\"n\":3}},\"ids\":[0,1],"
	    "\"objs\":[{\"a\":1}],\"ok\":false,\"none\":null}";
	json_t *o = ar_json_parse(in, strlen(in), err, sizeof err);
	struct ar_flat f;
	struct ar_buf b = {0};
	size_t i;

	OK(o != NULL, "flat: input parses");
	if (!o)
		return;
	ar_flatten(o, &f);
	ar_buf_reserve(&b, 0);
	for (i = 0; i < f.n; i++)
		ar_buf_printf(&b, "%s=%s;", f.kv[i].k, f.kv[i].v);
	OK(strcmp(b.p, "id=r;ids=0,1;metrics.t.median=1.5;metrics.t.n=3;"
	    "none=;ok=false;") == 0, "flat: dotted paths, joined arrays, no "
	    "sig, raw or arrays of objects");
	ar_flat_free(&f);
	ar_buf_free(&b);
	json_decref(o);
}

static void
test_files(void)
{
	char dir[] = "/tmp/ar-unit-XXXXXX", *p;
	struct ar_buf b = {0};
	struct stat st;

	OK(mkdtemp(dir) != NULL, "files: scratch");
	p = ar_path(dir, "f");
	OK(ar_write_atomic(p, "one", 3, 0644) == 0 && ar_readfile(p, &b, 100)
	    == 0 && strcmp(b.p, "one") == 0, "files: atomic write");
	OK(ar_write_atomic(p, "two", 3, 0600) == 0 && ar_readfile(p, &b, 100)
	    == 0 && strcmp(b.p, "two") == 0 && stat(p, &st) == 0 &&
	    (st.st_mode & 0777) == 0600, "files: atomic replace with mode");
	OK(ar_write_new(p, "three", 5, 0644) == 1 && ar_readfile(p, &b, 100)
	    == 0 && strcmp(b.p, "two") == 0, "files: write_new keeps the old");
	OK(ar_readfile(p, &b, 2) < 0 && errno == EFBIG, "files: size limit");
	unlink(p);
	free(p);
	p = ar_path(dir, "ro");
	mkdir(p, 0555);
	if (geteuid() != 0) {
		char *q = ar_path(p, "x");

		OK(ar_write_atomic(q, "x", 1, 0644) < 0 && errno == EACCES,
		    "files: read-only directory is an error");
		free(q);
	}
	rmdir(p);
	free(p);
	/* ar_out_open/close: a whole replacement, no temporary file left;
	 * a FIFO is written into, and stays a FIFO. */
	{
		char *tmp, fifo[sizeof dir + 8];
		FILE *f;
		pid_t pid;
		int st2;

		snprintf(fifo, sizeof fifo, "%s/fifo", dir);
		p = ar_path(dir, "out");
		ar_write_atomic(p, "old", 3, 0644);
		f = ar_out_open(p, &tmp);
		OK(f && tmp && strstr(tmp, "/.tmp-"), "out: a temporary file");
		fputs("new", f);
		OK(ar_readfile(p, &b, 100) == 0 && strcmp(b.p, "old") == 0,
		    "out: the old content until closed");
		OK(ar_out_close(f, p, tmp) == 0 && ar_readfile(p, &b, 100) == 0
		    && strcmp(b.p, "new") == 0, "out: replaced on close");
		unlink(p);
		free(p);
		OK(mkfifo(fifo, 0644) == 0, "out: a fifo");
		if ((pid = fork()) == 0) {
			FILE *r = fopen(fifo, "r");
			char line[16] = "";
			int got = r && fgets(line, sizeof line, r) &&
			    strcmp(line, "piped") == 0;

			/* Freed here too: valgrind checks the child's exit. */
			ar_buf_free(&b);
			if (r)
				fclose(r);
			_exit(got ? 0 : 1);
		}
		f = ar_out_open(fifo, &tmp);
		OK(f && tmp == NULL, "out: a fifo is written into");
		fputs("piped", f);
		OK(ar_out_close(f, fifo, tmp) == 0, "out: fifo closed");
		OK(waitpid(pid, &st2, 0) == pid && WIFEXITED(st2) &&
		    WEXITSTATUS(st2) == 0 && stat(fifo, &st) == 0 &&
		    S_ISFIFO(st.st_mode), "out: the reader got it; still a fifo");
		unlink(fifo);
		p = ar_path(dir, "no/such/out");
		OK(ar_out_open(p, &tmp) == NULL && errno == ENOENT && !tmp,
		    "out: a missing directory is an error");
		free(p);
	}
	/* XML: the five reserved characters. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		ar_xml_put(m, "a<b>&\"c'");
		fclose(m);
		OK(strcmp(buf, "a&lt;b&gt;&amp;&quot;c'") == 0, "xml: escaped");
		free(buf);
	}
	rmdir(dir);
	ar_buf_free(&b);
}

static void
test_stats(void)
{
	double x[10], est, lo, hi, big[200];
	struct ar_verdict_opts o = { 0.01, 0.01, 8, 256 };
	struct ar_interval ci;
	int i, v;

	for (i = 0; i < 10; i++)
		x[i] = i + 1;
	OK(ar_median(x, 10) == 5.5 && ar_mad(x, 10) == 2.5, "stats: median "
	    "and MAD");
	x[9] = 1000;
	OK(ar_mad_outliers(x, 10, 3) == 1, "stats: one MAD outlier");
	x[9] = 10;
	/* n = 10 at 95%: P(T <= 8) = 0.0244, so the interval runs from the
	 * 9th to the 47th of the 55 Walsh averages. */
	OK(ar_signed_rank_ci(x, 10, 0.95, &est, &lo, &hi) == 0 && est == 5.5 &&
	    lo == 3 && hi == 8, "stats: Hodges-Lehmann and the exact Wilcoxon "
	    "interval");
	OK(ar_signed_rank_ci(x, 5, 0.95, &est, &lo, &hi) == 0 && isinf(lo) &&
	    isinf(hi), "stats: too few pairs give the widest interval");
	for (i = 0; i < 200; i++)
		big[i] = 0.05 + 0.01 * ((i * 37) % 11 - 5) / 5.0;
	OK(ar_signed_rank_ci(big, 200, 0.99, &est, &lo, &hi) == 0 &&
	    fabs(est - 0.05) < 1e-9 && lo < est && hi > est && lo > 0.04 &&
	    hi < 0.06, "stats: normal approximation beyond 60 pairs");
	v = ar_verdict(big, 200, &o, 0, &ci);
	OK(v == AR_V_KEEP, "stats: a clear 5% gain is a keep");
	for (i = 0; i < 200; i++)
		big[i] = -big[i];
	OK(ar_verdict(big, 200, &o, 0, &ci) == AR_V_DISCARD, "stats: a clear "
	    "5% loss is a discard");
	for (i = 0; i < 200; i++)
		big[i] = 0.001 * ((i * 37) % 11 - 5) / 5.0;
	OK(ar_verdict(big, 200, &o, 0, &ci) == AR_V_EQUIVALENT, "stats: within "
	    "0.1% of the baseline is equivalent at a 1% minimum effect");
	for (i = 0; i < 8; i++)
		big[i] = (i % 2 ? 1 : -1) * 0.2;
	OK(ar_verdict(big, 8, &o, 0, &ci) == AR_V_CONTINUE &&
	    ar_verdict(big, 8, &o, 1, &ci) == AR_V_INCONCLUSIVE, "stats: wide "
	    "noise continues, and is inconclusive at the last look");
	OK(ar_verdict(big, 7, &o, 0, &ci) == AR_V_CONTINUE, "stats: no verdict "
	    "before the minimum pairs");
	OK(ar_verdict_look(8, &o) && ar_verdict_look(10, &o) &&
	    !ar_verdict_look(9, &o) && ar_verdict_look(256, &o),
	    "stats: looks at 8, 10, ... and the last pair");
}

static void
test_metrics(void)
{
	const char *t = "building\nMETRIC tok_s=1234.5\nMETRIC p95_ms=20\n"
	    "noise METRIC x=1\nMETRIC tok_s=1300\nMETRIC compile_\xc2\xb5s=7e2\r\n";
	struct ar_metric *m;
	size_t n;
	char err[256];

	OK(ar_metrics_parse(t, strlen(t), &m, &n, err, sizeof err) == 0 &&
	    n == 3 && strcmp(m[0].name, "tok_s") == 0 && m[0].value == 1300 &&
	    strcmp(m[1].name, "p95_ms") == 0 && m[1].value == 20 &&
	    strcmp(m[2].name, "compile_\xc2\xb5s") == 0 && m[2].value == 700,
	    "metric: lines parsed, last duplicate wins, µ allowed");
	free(m);
	OK(ar_metrics_parse("METRIC a=nan\n", 13, &m, &n, err, sizeof err) < 0
	    && strstr(err, "line 1: METRIC a: 'nan' is not a finite number"),
	    "metric: NaN refused");
	OK(ar_metrics_parse("x\nMETRIC a b=1\n", 15, &m, &n, err, sizeof err)
	    < 0 && strstr(err, "line 2: METRIC name"), "metric: bad name");
	OK(ar_metrics_parse("METRIC a=\n", 10, &m, &n, err, sizeof err) < 0 &&
	    strstr(err, "no value"), "metric: no value");
	OK(ar_metrics_parse("METRIC a=1e999\n", 15, &m, &n, err, sizeof err)
	    < 0, "metric: infinity refused");
	OK(ar_metrics_parse("", 0, &m, &n, err, sizeof err) == 0 && n == 0,
	    "metric: no lines, no metrics");
}

static void
test_conf(void)
{
	char dir[] = "/tmp/ar-unit-XXXXXX", *p, err[512];
	struct ar_conf c;

	mkdtemp(dir);
	p = ar_path(dir, "c.conf");
	ar_write_atomic(p, "# c\na = 1\n b.c=two words \n", 26, 0644);
	OK(ar_conf_read(&c, p, err, sizeof err) == 0 &&
	    strcmp(ar_conf_get(&c, "a"), "1") == 0 &&
	    strcmp(ar_conf_get(&c, "b.c"), "two words") == 0, "conf: read");
	ar_conf_free(&c);
	ar_write_atomic(p, "a = 1\na = 2\n", 12, 0644);
	OK(ar_conf_read(&c, p, err, sizeof err) < 0 && strstr(err,
	    "line 2: duplicate key"), "conf: duplicate key");
	ar_write_atomic(p, "novalue\n", 8, 0644);
	OK(ar_conf_read(&c, p, err, sizeof err) < 0 && strstr(err,
	    "line 1"), "conf: malformed line");
	unlink(p);
	free(p);
	rmdir(dir);
}

/* put DIR NAME TEXT MODE: a file of a scratch tree. */
static void
put(const char *dir, const char *name, const char *text, int mode)
{
	char *p = ar_path(dir, name);

	ar_write_atomic(p, text, strlen(text), mode);
	chmod(p, mode);
	free(p);
}

/* The error ar_manifest_read gives for a problem.json of text, or "" when
 * it reads. */
static const char *
manifest_err(const char *dir, const char *text)
{
	static char err[512];
	struct ar_manifest m;

	put(dir, "problem.json", text, 0644);
	err[0] = 0;
	if (ar_manifest_read(&m, dir, err, sizeof err) == 0)
		ar_manifest_free(&m);
	return err;
}

/* A good manifest with one key replaced: "%s" in a template. */
#define MAN_HEAD "{\"name\": \"toy\", \"kind\": \"exec\", "
#define MAN_METRIC "\"metric\": {\"name\": \"t\", \"direction\": \"lower\"}, "
#define MAN_WL "\"workloads\": [{\"name\": \"w\", \"dev_seeds\": [1]}], "
#define MAN_REST "\"scales\": [1], \"baseline\": \"b\", \"mutable\": [\"x\"], " \
	"\"stages\": {\"run\": {\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}"

static void
test_manifest(void)
{
	char dir[] = "/tmp/ar-unit-XXXXXX", err[512];
	struct ar_manifest m;
	const char *e;
	static const char full[] = "{\n"
	    "  \"name\": \"toy\", \"description\": \"d\", \"kind\": \"exec\",\n"
	    "  \"metric\": {\"name\": \"gb_s\", \"unit\": \"GB/s\", "
	    "\"direction\": \"higher\"},\n"
	    "  \"secondary\": [{\"name\": \"wall_ms\", \"direction\": \"lower\"}],\n"
	    "  \"gates\": [{\"command\": \"./check\"}, "
	    "{\"metric\": \"bad\", \"op\": \"==\", \"value\": 0}],\n"
	    "  \"guardrails\": [{\"metric\": \"p95_ms\", \"op\": \"<=\", "
	    "\"ratio_to_baseline\": 1.1}],\n"
	    "  \"work\": {\"metric\": \"work\"},\n"
	    "  \"workloads\": [{\"name\": \"big\", \"env\": {\"ROWS\": \"8\", "
	    "\"COLS\": \"4\"}, \"work\": 32, \"dev_seeds\": [11, 12]},\n"
	    "    {\"name\": \"tiny\", \"work\": 1, \"dev_seeds\": [7]}],\n"
	    "  \"scales\": [1, 2, 4],\n"
	    "  \"baseline\": \"baseline\", \"mutable\": [\"matvec.c\", \"lib/\"],\n"
	    "  \"stages\": {\"build\": {\"cmd\": \"make\", \"timeout_s\": 120},\n"
	    "    \"run\": {\"cmd\": \"./matvec\"}, \"score\": {\"cmd\": \"./score\","
	    " \"timeout_s\": 0.5}},\n"
	    "  \"limits\": {\"min_pairs\": 8, \"max_pairs\": 64, \"warmup\": 0}\n"
	    "}\n";

	OK(mkdtemp(dir) != NULL, "manifest: scratch");
	OK(ar_manifest_read(&m, dir, err, sizeof err) < 0 && strstr(err,
	    "problem.json: No such file or directory"), "manifest: a missing "
	    "problem.json is named");
	OK(strcmp(manifest_err(dir, full), "") == 0, "manifest: a full one "
	    "reads");
	OK(ar_manifest_read(&m, dir, err, sizeof err) == 0, "manifest: read");
	OK(strcmp(m.name, "toy") == 0 && strcmp(m.description, "d") == 0 &&
	    strcmp(m.metric.name, "gb_s") == 0 && strcmp(m.metric.unit,
	    "GB/s") == 0 && m.metric.higher == 1, "manifest: name, metric, "
	    "direction higher");
	OK(m.nsecondary == 1 && strcmp(m.secondary[0].name, "wall_ms") == 0 &&
	    m.secondary[0].higher == 0 && m.secondary[0].unit == NULL,
	    "manifest: secondary metrics");
	OK(m.ngate == 2 && strcmp(m.gate[0].command, "./check") == 0 &&
	    m.gate[0].metric == NULL && strcmp(m.gate[0].text,
	    "command ./check") == 0 && strcmp(m.gate[1].metric, "bad") == 0 &&
	    m.gate[1].op == AR_OP_EQ && m.gate[1].value == 0 &&
	    strcmp(m.gate[1].text, "bad == 0") == 0, "manifest: command and "
	    "metric gates");
	OK(m.nguard == 1 && m.guard[0].op == AR_OP_LE && m.guard[0].ratio ==
	    1.1 && strcmp(m.guard[0].text, "p95_ms <= 1.1 * baseline") == 0,
	    "manifest: a guardrail against the baseline");
	OK(strcmp(m.work_metric, "work") == 0 && m.nworkload == 2 &&
	    strcmp(m.workload[0].name, "big") == 0 && m.workload[0].work ==
	    32 && m.workload[0].nenv == 2 && m.workload[0].nseed == 2 &&
	    m.workload[0].seed[1] == 12 && m.workload[1].nenv == 0 &&
	    m.workload[1].seed[0] == 7, "manifest: workloads, work, env, seeds");
	{
		int rows = 0, cols = 0;
		size_t i;

		for (i = 0; i < m.workload[0].nenv; i++) {
			if (strcmp(m.workload[0].envk[i], "ROWS") == 0 &&
			    strcmp(m.workload[0].envv[i], "8") == 0)
				rows = 1;
			if (strcmp(m.workload[0].envk[i], "COLS") == 0 &&
			    strcmp(m.workload[0].envv[i], "4") == 0)
				cols = 1;
		}
		OK(rows && cols, "manifest: workload env names and values");
	}
	OK(m.nscale == 3 && m.scale[2] == 4 && strcmp(m.baseline,
	    "baseline") == 0 && m.nmutable == 2 && strcmp(m.mutable[1],
	    "lib/") == 0, "manifest: scales, baseline, mutable");
	OK(m.setup.cmd == NULL && m.prepare.cmd == NULL &&
	    strcmp(m.build.cmd, "make") == 0 && m.build.timeout_s == 120 &&
	    strcmp(m.run.cmd, "./matvec") == 0 && m.run.timeout_s == 600 &&
	    m.score.timeout_s == 0.5, "manifest: stages, absent ones NULL, "
	    "timeout 600 by default");
	OK(m.min_pairs == 8 && m.max_pairs == 64 && m.warmup == 0 &&
	    m.time_s < 0 && m.min_effect < 0, "manifest: limits, absent ones "
	    "negative");
	ar_manifest_free(&m);
	OK(strcmp(manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL MAN_REST "}"),
	    "") == 0, "manifest: the smallest one reads");
	OK(ar_manifest_read(&m, dir, err, sizeof err) == 0 && m.ngate == 0 &&
	    m.nguard == 0 && m.nsecondary == 0 && m.work_metric == NULL &&
	    m.min_pairs == -1 && m.max_pairs == -1 && m.warmup == -1,
	    "manifest: optional parts absent");
	ar_manifest_free(&m);

	/* Each error names the field, exactly. */
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL MAN_REST
	    ", \"extra\": 1}");
	OK(strcmp(e, "problem.json: extra: unknown key") == 0, "manifest: "
	    "unknown top-level key");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\", \"timeout\": 5}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: stages.run.timeout: unknown key") == 0,
	    "manifest: unknown nested key, with its path");
	e = manifest_err(dir, MAN_HEAD "\"metric\": {\"name\": \"t\", "
	    "\"direction\": \"up\"}, " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: metric.direction: must be \"higher\" or "
	    "\"lower\", not \"up\"") == 0, "manifest: bad direction");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads: missing") == 0, "manifest: "
	    "missing workloads");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": {}, "
	    MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads: must be an array, not an "
	    "object") == 0, "manifest: workloads of the wrong type");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": \"1\", "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: scales: must be an array, not a string")
	    == 0, "manifest: scales of the wrong type");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"work\": {\"metric\": "
	    "\"work\"}, " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].work: missing") == 0,
	    "manifest: a work metric needs every workload's work");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"work\": 3, \"dev_seeds\": [1]}], " MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].work: given, but the manifest "
	    "names no \"work\" metric") == 0, "manifest: work without a work "
	    "metric");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"dev_seeds\": [-1]}], " MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].dev_seeds: must be a "
	    "non-empty array of whole numbers") == 0, "manifest: negative seed");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"env\": {\"A=B\": \"1\"}, \"dev_seeds\": [1]}], " MAN_REST
	    "}");
	OK(strncmp(e, "problem.json: workloads[0].env.A=B: not a name a "
	    "workload may set (", 67) == 0, "manifest: env name with =");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"env\": {\"PATH\": \"/x\"}, \"dev_seeds\": [1]}], "
	    MAN_REST "}");
	OK(strncmp(e, "problem.json: workloads[0].env.PATH: not a name a "
	    "workload may set (", 68) == 0, "manifest: PATH is ar-bench's");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"gates\": [{\"metric\": "
	    "\"bad\", \"op\": \"=\", \"value\": 0}], " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: gates[0].op: must be one of < <= > >= ==, "
	    "not \"=\"") == 0, "manifest: bad op");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"gates\": [{\"metric\": "
	    "\"bad\", \"op\": \"<\"}], " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: gates[0].value: missing") == 0,
	    "manifest: a gate without a value");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"guardrails\": [{\"metric\": "
	    "\"m\", \"op\": \"<\", \"ratio_to_baseline\": -1}], " MAN_WL MAN_REST
	    "}");
	OK(strcmp(e, "problem.json: guardrails[0].ratio_to_baseline: must be "
	    "greater than 0") == 0, "manifest: a negative ratio");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"guardrails\": "
	    "[{\"command\": \"./x\"}], " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: guardrails[0].command: unknown key") == 0,
	    "manifest: a guardrail is no command");
	e = manifest_err(dir, "{\"name\": \"toy\", \"kind\": \"exec\", "
	    "\"metric\": {\"name\": \"a b\", \"direction\": \"lower\"}, "
	    MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: metric.name: \"a b\" is not a metric name "
	    "([A-Za-z0-9_.], at most 63 bytes)") == 0, "manifest: bad metric "
	    "name");
	e = manifest_err(dir, "{\"name\": \"\", \"kind\": \"exec\", "
	    MAN_METRIC MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: name: must not be empty") == 0,
	    "manifest: empty name");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"/b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: baseline: must be a directory inside the "
	    "problem") == 0, "manifest: absolute baseline");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: mutable: must not be empty") == 0,
	    "manifest: empty mutable");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\", \"timeout_s\": \"5\"}, \"score\": {\"cmd\": "
	    "\"./s\"}}}");
	OK(strcmp(e, "problem.json: stages.run.timeout_s: must be a number, "
	    "not a string") == 0, "manifest: a timeout of the wrong type");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"score\": "
	    "{\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: stages.run: missing") == 0, "manifest: "
	    "the run stage is required");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL MAN_REST ", \"limits\": "
	    "{\"warmup\": 1.5}}");
	OK(strcmp(e, "problem.json: limits.warmup: must be a whole number from "
	    "0 to 1000000") == 0, "manifest: a fractional warm-up");
	e = manifest_err(dir, "{\"name\": \"toy\", \"kind\": \"exec\"");
	OK(strncmp(e, "problem.json: invalid JSON", 26) == 0, "manifest: "
	    "invalid JSON");
	e = manifest_err(dir, "[1, 2]");
	OK(strcmp(e, "problem.json: : must be an object, not an array") == 0 ||
	    strcmp(e, "problem.json: must be an object, not an array") == 0,
	    "manifest: not an object");
	OK(ar_op_holds(AR_OP_LE, 1, 1) && !ar_op_holds(AR_OP_LT, 1, 1) &&
	    ar_op_holds(AR_OP_GE, 2, 1) && !ar_op_holds(AR_OP_GT, 1, 2) &&
	    ar_op_holds(AR_OP_EQ, 0, 0) && !ar_op_holds(AR_OP_EQ, 0, 1e-300),
	    "manifest: operators, == exact");
	OK(strcmp(ar_op_name(AR_OP_GE), ">=") == 0 && strcmp(ar_op_name(99),
	    "?") == 0, "manifest: operator names");
	put(dir, "problem.json", "", 0644);
	{
		char *p = ar_path(dir, "problem.json");

		unlink(p);
		free(p);
	}
	rmdir(dir);
}

static void
test_tree(void)
{
	char dir[] = "/tmp/ar-unit-XXXXXX", err[512], h[AR_HASH_HEX], *a, *b;
	char *p;
	struct ar_tree t, u;
	const struct ar_entry *e;
	struct stat st;
	struct ar_buf lines = {0};

	OK(mkdtemp(dir) != NULL, "tree: scratch");
	a = ar_path(dir, "a");
	b = ar_path(dir, "b");
	mkdir(a, 0755);
	put(a, "run.sh", "echo hi\n", 0555);
	p = ar_path(a, "lib");
	mkdir(p, 0755);
	free(p);
	put(a, "lib/x.c", "int x;\n", 0444);
	put(a, "a-b", "dash\n", 0644);
	p = ar_path(a, "link");
	symlink("run.sh", p);
	free(p);
	/* The method's .git at the top is left out; deeper it is a file. */
	p = ar_path(a, ".git");
	mkdir(p, 0755);
	free(p);
	put(a, ".git/HEAD", "ref\n", 0644);
	put(a, "lib/.git", "gitdir\n", 0644);
	OK(ar_tree_list(a, &t, err, sizeof err) == 0, "tree: list");
	OK(t.n == 6 && strcmp(t.e[0].path, "a-b") == 0 &&
	    strcmp(t.e[1].path, "lib") == 0 && strcmp(t.e[2].path,
	    "lib/.git") == 0 && strcmp(t.e[3].path, "lib/x.c") == 0 &&
	    strcmp(t.e[4].path, "link") == 0 && strcmp(t.e[5].path,
	    "run.sh") == 0, "tree: sorted paths, top .git left out");
	ar_hash_hex(h, "echo hi\n", 8);
	OK((e = ar_tree_find(&t, "run.sh")) && S_ISREG(e->mode) &&
	    (e->mode & 0777) == 0555 && e->size == 8 && strcmp(e->hash, h) == 0,
	    "tree: a file's mode, size, content hash");
	ar_hash_hex(h, "run.sh", 6);
	OK((e = ar_tree_find(&t, "link")) && S_ISLNK(e->mode) &&
	    strcmp(e->link, "run.sh") == 0 && strcmp(e->hash, h) == 0,
	    "tree: a link and the hash of its target");
	OK((e = ar_tree_find(&t, "lib")) && S_ISDIR(e->mode) &&
	    ar_tree_find(&t, "nope") == NULL && ar_tree_find(&t, ".git") ==
	    NULL, "tree: find");
	{
		size_t i;

		for (i = 0; i < t.n; i++)
			if (!S_ISDIR(t.e[i].mode))
				ar_buf_printf(&lines, "%s %s\t%s\n", S_ISLNK(
				    t.e[i].mode) ? "120000" : t.e[i].mode & 0111 ?
				    "100755" : "100644", t.e[i].hash, t.e[i].path);
		ar_hash_hex(h, lines.p, lines.len);
	}
	{
		char th[AR_HASH_HEX];

		ar_tree_hash(&t, th);
		OK(strcmp(th, h) == 0 && strstr(lines.p, "100755 ") &&
		    strstr(lines.p, "120000 "), "tree: the method hash is over "
		    "git-like modes, hashes and paths");
	}
	OK(ar_tree_copy(a, b, err, sizeof err) == 0, "tree: copy");
	OK(ar_tree_list(b, &u, err, sizeof err) == 0 && u.n == t.n,
	    "tree: the copy lists alike");
	{
		char ha[AR_HASH_HEX], hb[AR_HASH_HEX];

		ar_tree_hash(&t, ha);
		ar_tree_hash(&u, hb);
		OK(strcmp(ha, hb) == 0, "tree: the copy has the same hash");
	}
	p = ar_path(b, "lib/x.c");
	OK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644, "tree: a "
	    "read-only file becomes owner-writable");
	free(p);
	p = ar_path(b, "run.sh");
	OK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0755, "tree: an "
	    "executable stays executable");
	free(p);
	p = ar_path(b, "link");
	{
		char target[64];
		ssize_t n = readlink(p, target, sizeof target - 1);

		OK(n == 6 && memcmp(target, "run.sh", 6) == 0, "tree: a link "
		    "is copied as a link");
	}
	free(p);
	p = ar_path(b, ".git");
	OK(access(p, F_OK) < 0, "tree: the top .git is not copied");
	free(p);
	/* Copying an entry replaces what is there, a link too. */
	put(a, "a-b", "changed\n", 0644);
	ar_tree_free(&t);
	OK(ar_tree_list(a, &t, err, sizeof err) == 0 && ar_tree_copy_entry(a,
	    b, ar_tree_find(&t, "a-b"), err, sizeof err) == 0, "tree: copy "
	    "an entry over a file");
	{
		struct ar_buf c = {0};

		p = ar_path(b, "a-b");
		OK(ar_readfile(p, &c, 100) == 0 && strcmp(c.p, "changed\n") ==
		    0, "tree: the entry's new content");
		free(p);
		ar_buf_free(&c);
	}
	ar_tree_free(&u);
	OK(ar_tree_scan(a, &u, 0, err, sizeof err) == 0 && (e = ar_tree_find(&u,
	    "run.sh")) && e->hash[0] == 0, "tree: scan without hashes");
	ar_tree_free(&u);
	p = ar_path(a, "fifo");
	mkfifo(p, 0644);
	OK(ar_tree_list(a, &u, err, sizeof err) < 0 && strstr(err, "/fifo: "
	    "not a file, directory or symbolic link"), "tree: a fifo is an "
	    "error naming it");
	free(p);
	OK(ar_tree_list("/nonexistent/ar-unit", &u, err, sizeof err) < 0 &&
	    strstr(err, "No such file or directory"), "tree: a missing root");
	/* rm -rf, through a directory its owner made read-only. */
	p = ar_path(b, "lib");
	chmod(p, 0555);
	OK(ar_rm_rf(b, 1) == 0 && rmdir(b) == 0, "tree: rm_rf keeps the top "
	    "when asked, and empties read-only directories");
	free(p);
	OK(ar_rm_rf(a, 0) == 0 && access(a, F_OK) < 0, "tree: rm_rf");
	OK(ar_rm_rf(a, 0) == 0, "tree: rm_rf of what is not there is fine");
	ar_tree_free(&t);
	ar_buf_free(&lines);
	free(a);
	free(b);
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	(void)argc;
	ar_setprog(argv[0]);
	ar_crypto_init();
	test_tsv();
	test_utf8();
	test_json();
	test_crypto();
	test_time_id();
	test_ids_processes();
	test_spool_names();
	test_flat();
	test_files();
	test_conf();
	test_stats();
	test_metrics();
	test_manifest();
	test_tree();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
