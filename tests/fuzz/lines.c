/* lines.c: the line parsers that read what others wrote: METRIC lines
 * of a method's score stage (lib/metric), TSV (lib/tsv), RFC 3339 times
 * (lib/timefmt), UTF-8 and its repair (lib/utf8), JSON (lib/json), a
 * runner request (lib/runner), a spool record's name (lib/spool), an
 * id's time (lib/id) and ar-ledger export -K's list (lib/known); and the fast paths of lines (lib/io), UTF-8,
 * times and decimals against what a byte at a time, timegm and strtod
 * give. */
#include <errno.h>
#include <math.h>

#include "buf.h"
#include "fuzz.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "known.h"
#include "metric.h"
#include "runner.h"
#include "spool.h"
#include "timefmt.h"
#include "tsv.h"
#include "utf8.h"

/* A list that parses is sorted, and written again reads the same. */
static void
known(const uint8_t *d, size_t n)
{
	struct ar_known *k, *k2;
	struct ar_buf b = {0};
	char err[256];
	size_t nk, nk2, i;

	if (ar_known_parse((const char *)d, n, &k, &nk, err, sizeof err) < 0) {
		CHECK(k == NULL && nk == 0 && err[0]);
		return;
	}
	for (i = 0; i < nk; i++) {
		CHECK(ar_id_valid(k[i].id));
		CHECK(i == 0 || strcmp(k[i - 1].id, k[i].id) < 0);
		CHECK(ar_known_find(k, nk, k[i].id) == &k[i]);
		ar_known_put(&b, &k[i]);
	}
	CHECK(ar_known_parse(b.p ? b.p : "", b.len, &k2, &nk2, err,
	    sizeof err) == 0 && nk2 == nk);
	CHECK(nk == 0 || memcmp(k, k2, nk * sizeof *k) == 0);
	free(k);
	free(k2);
	ar_buf_free(&b);
}

static void
tsv(const uint8_t *d, size_t n)
{
	struct ar_tsv t;
	FILE *f = fmemopen((void *)d, n, "r");
	int r;

	if (!f)
		return;
	if (ar_tsv_open(&t, f, "fuzz") == 0) {
		while ((r = ar_tsv_next(&t)) == 1)
			for (size_t i = 0; i < t.ncol; i++)
				CHECK(t.field[i] != NULL);
		if (r < 0)
			CHECK(strncmp(t.err, "fuzz: ", 6) == 0);
		ar_tsv_close(&t);
	} else
		CHECK(t.err[0]);
	fclose(f);
}

/* The readers' fast paths against what a byte at a time gives: lines
 * from stdio's buffer, the ASCII run of the UTF-8 check, and a time read
 * by hand against timegm's. */
static long
utf8_slow(const unsigned char *s, size_t len)
{
	size_t i = 0, k, m;
	unsigned cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf)
			m = 1, cp = s[i] & 0x1f;
		else if (s[i] >= 0xe0 && s[i] <= 0xef)
			m = 2, cp = s[i] & 0x0f;
		else if (s[i] >= 0xf0 && s[i] <= 0xf4)
			m = 3, cp = s[i] & 0x07;
		else
			return (long)i;
		for (k = 1; k <= m; k++) {
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((m == 2 && cp < 0x800) || (m == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (long)i;
		i += m + 1;
	}
	return -1;
}

static void
getline_same(const uint8_t *d, size_t n)
{
	/* A small max, so that long lines are cut too. */
	size_t max = n ? d[0] % 64 + 1 : 8, at = 0;
	FILE *f = fmemopen((void *)d, n ? n : 1, "r");
	struct ar_buf b = {0};
	int r;

	if (!f || !n) {
		if (f)
			fclose(f);
		return;
	}
	while ((r = ar_getline(f, &b, max)) != AR_LINE_EOF) {
		const uint8_t *nl = memchr(d + at, '\n', n - at);
		size_t len = (size_t)((nl ? nl : d + n) - (d + at));

		CHECK(r == (len > max ? AR_LINE_LONG : AR_LINE_OK));
		CHECK(b.len == (len > max ? max : len));
		CHECK(memcmp(b.p, d + at, b.len) == 0 && b.p[b.len] == 0);
		at += len + (nl != NULL);
		if (at >= n)
			break;
	}
	CHECK(at >= n || r != AR_LINE_EOF);
	fclose(f);
	ar_buf_free(&b);
}

static void
time_same(const char *s)
{
	struct timespec ts;
	struct tm tm = {0};
	int y, mo, dd, h, mi, sec;
	char z;

	/* Only the plain form: digits where they belong, then Z. */
	if (strlen(s) != 20 || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo,
	    &dd, &h, &mi, &sec, &z) != 7 || z != 'Z')
		return;
	for (size_t i = 0; i < 19; i++)
		if ((i == 4 || i == 7) ? s[i] != '-' : i == 10 ? s[i] != 'T' :
		    (i == 13 || i == 16) ? s[i] != ':' : (s[i] < '0' || s[i] > '9'))
			return;
	if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || h > 23 || mi > 59 ||
	    sec > 60)
		return;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = dd;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	{
		time_t t = timegm(&tm);
		int moved = tm.tm_mday != dd || tm.tm_mon != mo - 1;

		CHECK((ar_time_parse(s, &ts) == 0) == !moved);
		CHECK(moved || ts.tv_sec == t);
	}
}

/* ar_parse_double's fast path for plain decimals against strtod, as it
 * read them before: the same verdict and the same bits. */
static void
double_same(const char *s)
{
	double a = 1, b = 2;
	char *end;
	int ra = ar_parse_double(s, &a), rb = -1;

	if (*s && *s != ' ' && *s != '\t') {
		errno = 0;
		b = strtod(s, &end);
		rb = *end == '\0' && errno != ERANGE && isfinite(b) &&
		    !strpbrk(s, "xXiInN") ? 0 : -1;
	}
	CHECK(ra == rb);
	CHECK(ra != 0 || memcmp(&a, &b, sizeof a) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct ar_metric *m = NULL;
	struct ar_lease l;
	struct timespec ts, back;
	char err[512], out[64], *s = fuzz_str(d, n), *value, *fields[16];
	size_t nm = 0;
	long bad;
	json_t *j;

	if (ar_metrics_parse((const char *)d, n, &m, &nm, err, sizeof err) == 0) {
		for (size_t i = 0; i < nm; i++) {
			CHECK(strlen(m[i].name) > 0);
			CHECK(strlen(m[i].name) < AR_METRIC_NAME);
			for (size_t k = 0; k < i; k++)
				CHECK(strcmp(m[i].name, m[k].name) != 0);
		}
	} else
		CHECK(err[0]);
	free(m);
	tsv(d, n);
	known(d, n);
	if (ar_time_parse(s, &ts) == 0 && ts.tv_sec > 0 &&
	    ts.tv_sec < 253402300800LL) {
		/* What it read, written and read again, is the same instant. */
		ar_time_fmt(out, sizeof out, ts, 9);
		CHECK(ar_time_parse(out, &back) == 0);
		CHECK(back.tv_sec == ts.tv_sec && back.tv_nsec == ts.tv_nsec);
	}
	bad = ar_utf8_invalid((const char *)d, n);
	CHECK(bad >= -1 && bad < (long)n);
	CHECK(bad == utf8_slow(d, n));
	getline_same(d, n);
	time_same(s);
	double_same(s);
	{
		/* Repaired text is valid, and so is any prefix cut where
		 * ar_utf8_prefix says. */
		char *r = strdup(s);
		size_t len = strlen(r), cut;

		ar_utf8_repair(r);
		CHECK(strlen(r) == len && ar_utf8_invalid(r, len) == -1);
		cut = ar_utf8_prefix(r, len / 2);
		CHECK(cut <= len / 2 && ar_utf8_invalid(r, cut) == -1);
		free(r);
	}
	if ((j = ar_json_parse((const char *)d, n, err, sizeof err))) {
		char *line = ar_json_line(j);

		CHECK(strchr(line, '\n') == NULL);
		free(line);
		json_decref(j);
	}
	/* An id's time reads as the same instant in RFC 3339. */
	if (ar_id_time(s, &ts) == 0) {
		ar_time_fmt(out, sizeof out, ts, 6);
		CHECK(ar_time_parse(out, &back) == 0 &&
		    back.tv_sec == ts.tv_sec);
	}
	/* A claimed record's name, written again from what was read, reads
	 * the same (a name in new/ has no lease to write). */
	if (ar_spool_parse(s, &l) == 0 && l.holder[0]) {
		char name[AR_SPOOL_NAME + 64];
		struct ar_lease again;

		ar_spool_lease_name(name, sizeof name, &l);
		CHECK(ar_spool_parse(name, &again) == 0);
		CHECK(strcmp(again.id, l.id) == 0 && again.prio == l.prio &&
		    again.expires == l.expires &&
		    strcmp(again.holder, l.holder) == 0);
	}
	{
		char *line = strdup(s);
		size_t len = strlen(line);

		ar_tsv_split(line, len, fields, 16, err, sizeof err);
		/* The first fields only, into a buffer of their own. */
		{
			const char *uf[4];
			char *ub = malloc(len + 17);
			int um, un, ui;

			un = ar_tsv_split_upto(s, len, 4, uf, ub, len + 17, &um);
			CHECK(un >= -1 && un <= 4 && (!um || un == 4));
			for (ui = 0; ui < un; ui++)
				CHECK(uf[ui] >= ub && uf[ui] + strlen(uf[ui]) <=
				    ub + len);
			free(ub);
		}
		free(line);
		line = strdup(s);
		if (ar_runner_request(line, &value) >= AR_RQ_CMD)
			CHECK(value != NULL);
		free(line);
	}
	free(s);
	return 0;
}
