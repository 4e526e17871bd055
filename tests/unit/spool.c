/* spool.c: unit tests of lib/spool: record names and leases, delivery,
 * claims in priority and age order, renewal, finishing, reaping expired
 * leases and stale temporary files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"
#include "unit.h"

static void
names(void)
{
	struct ar_lease l;
	char buf[512];
	const char *o = "20261126T015812.123456Z-3f9a2c1b7d4e5f60";

	snprintf(buf, sizeof buf, "0999995-%s-abc", o);
	OK(ar_spool_parse(buf, &l) == 0 && l.prio == 5 &&
	    strcmp(l.id, "abc") == 0 && l.expires == 0, "new name");
	snprintf(buf, sizeof buf, "1000003-%s-abc@1795000000@w1", o);
	OK(ar_spool_parse(buf, &l) == 0 && l.prio == -3 &&
	    l.expires == 1795000000 && strcmp(l.holder, "w1") == 0 &&
	    strncmp(l.name, "1000003-", 8) == 0 && strlen(l.name) == 52,
	    "lease name");
	{
		char back[512];

		ar_spool_lease_name(back, sizeof back, &l);
		OK(strcmp(back, buf) == 0, "name round-trip");
	}
	snprintf(buf, sizeof buf, "1000000-%s-a@x@w", o);
	OK(ar_spool_parse("junk", &l) < 0 && ar_spool_parse(buf, &l) < 0 &&
	    ar_spool_parse("1000000-abc", &l) < 0 && ar_spool_parse("README",
	    &l) < 0, "junk names rejected");
	snprintf(buf, sizeof buf, "1000000-%s-a@5@", o);
	OK(ar_spool_parse(buf, &l) < 0, "a lease without a holder");
	snprintf(buf, sizeof buf, "1000000-%s-.a", o);
	OK(ar_spool_parse(buf, &l) < 0, "an id that is not one");
	snprintf(buf, sizeof buf, "10000x0-%s-a", o);
	OK(ar_spool_parse(buf, &l) < 0, "a priority that is not 7 digits");
	{
		char *p = ar_spool_path("/q", "new", "n1");

		OK(strcmp(p, "/q/new/n1") == 0, "path");
		free(p);
	}
}

/* The one name in dir/sub, malloc'd; NULL unless there is exactly one. */
static char *
only(const char *dir, const char *sub)
{
	char **names, *s = NULL;
	size_t n;

	if (ar_spool_list(dir, sub, &names, &n) == 0 && n == 1)
		s = strdup(names[0]);
	if (n)
		ar_spool_free_list(names, n);
	else
		free(names);
	return s;
}

static void
deliver(void)
{
	char *dir = unit_tmpdir(), *q = unit_path(dir, "q"), *name, *t, *p;
	char **names;
	struct ar_lease l;
	size_t n;

	OK(ar_spool_init(q) == 0 && ar_spool_check(q) == 0, "init, check");
	OK(ar_spool_init(q) == 0, "init again is fine");
	OK(ar_spool_put(q, "r1", 5, "data\n", 5) == AR_SP_OK, "put");
	name = only(q, "new");
	OK(name && ar_spool_parse(name, &l) == 0 && l.prio == 5 &&
	    strcmp(l.id, "r1") == 0 && strncmp(name, "0999995-", 8) == 0,
	    "put: one record in new/, named PRIO-ORDER-ID");
	p = name ? ar_spool_path(q, "new", name) : NULL;
	t = p ? unit_read(p, NULL) : NULL;
	OK(t && strcmp(t, "data\n") == 0, "put: its content");
	free(t);
	free(p);
	free(name);
	OK(ar_spool_list(q, "tmp", &names, &n) == 0 && n == 0, "put: nothing "
	    "left in tmp/");
	free(names);
	OK(ar_spool_put(q, "r1", 5, "again\n", 6) == AR_SP_OK && ar_spool_list(q,
	    "new", &names, &n) == 0 && n == 2, "put: an id there already is "
	    "queued again, under a fresh name, as spool.h says");
	ar_spool_free_list(names, n);
	unit_put(q, "new/.hidden", "x", 0644);
	unit_put(q, "new/README", "x", 0644);
	OK(ar_spool_list(q, "new", &names, &n) == 0 && n >= 2 &&
	    strncmp(names[0], "0999995-", 8) == 0 && strcmp(names[n - 1],
	    "README") == 0, "list: sorted, dot files left out");
	ar_spool_free_list(names, n);
	errno = 0;
	OK(ar_spool_list(q, "nope", &names, &n) == -1 && errno == ENOENT &&
	    n == 0, "list: no such directory");
	p = unit_path(q, "why");
	rmdir(p);
	free(p);
	OK(ar_spool_check(q) == -1 && errno == ENOTDIR, "check: a state "
	    "directory missing");
	p = unit_path(dir, "none");
	OK(ar_spool_check(p) == -1 && errno == ENOENT, "check: no spool");
	OK(ar_spool_put(p, "r", 0, "x", 1) == AR_SP_ERR, "put into no spool");
	free(p);
	free(q);
	unit_rmtree(dir);
}

/* A batch: all stored, in order, nothing left in tmp/; into no spool,
 * nothing stored and the first record named as the one that failed. */
static void
batch(void)
{
	char *dir = unit_tmpdir(), *q = unit_path(dir, "q"), *p;
	struct ar_spool_rec r[3] = {
		{ "b1", 0, "one\n", 4 }, { "b2", 7, "two\n", 4 },
		{ "b3", 0, "three\n", 6 },
	};
	char **names;
	struct ar_lease l;
	size_t n, stored = 99, i, seen = 0;

	OK(ar_spool_init(q) == 0, "init");
	OK(ar_spool_put_batch(q, r, 3, &stored) == AR_SP_OK && stored == 3,
	    "batch: all three stored");
	OK(ar_spool_list(q, "new", &names, &n) == 0 && n == 3, "batch: three "
	    "records in new/");
	for (i = 0; i < n; i++) {
		char *t;

		p = ar_spool_path(q, "new", names[i]);
		t = unit_read(p, NULL);
		if (ar_spool_parse(names[i], &l) == 0 && t &&
		    ((strcmp(l.id, "b1") == 0 && strcmp(t, "one\n") == 0) ||
		    (strcmp(l.id, "b2") == 0 && l.prio == 7 && strcmp(t,
		    "two\n") == 0) || (strcmp(l.id, "b3") == 0 && strcmp(t,
		    "three\n") == 0)))
			seen++;
		free(t);
		free(p);
	}
	OK(seen == 3, "batch: each record whole under its name");
	OK(n == 3 && strstr(names[0], "-b2"), "batch: the higher priority "
	    "sorts first");
	ar_spool_free_list(names, n);
	OK(ar_spool_list(q, "tmp", &names, &n) == 0 && n == 0, "batch: "
	    "nothing left in tmp/");
	free(names);
	OK(ar_spool_put_batch(q, r, 0, &stored) == AR_SP_OK && stored == 0,
	    "batch: an empty batch stores nothing");
	p = unit_path(dir, "none");
	OK(ar_spool_put_batch(p, r, 3, &stored) == AR_SP_ERR && stored == 0 &&
	    errno == ENOENT, "batch: into no spool, nothing stored");
	free(p);
	free(q);
	unit_rmtree(dir);
}

static void
claims(void)
{
	char *dir = unit_tmpdir(), *q = unit_path(dir, "q"), *name;
	struct ar_lease l, l2;
	struct ar_claimer c = {0};

	ar_spool_init(q);
	ar_spool_put(q, "low", 1, "l\n", 2);
	ar_spool_put(q, "high", 9, "h\n", 2);
	ar_spool_put(q, "high2", 9, "h2\n", 3);
	unit_put(q, "new/README", "not a record\n", 0644);
	OK(ar_spool_claim(q, "w1", 2000000000, &l) == AR_SP_OK &&
	    strcmp(l.id, "high") == 0 && strcmp(l.holder, "w1") == 0 &&
	    l.expires == 2000000000, "claim: the highest priority first");
	name = only(q, "cur");
	{
		char want[512];

		ar_spool_lease_name(want, sizeof want, &l);
		OK(name && strcmp(name, want) == 0 && strstr(name,
		    "-high@2000000000@w1"), "claim: cur/NAME@EXPIRY@HOLDER");
	}
	free(name);
	OK(ar_spool_claim(q, "w2", 2000000000, &l2) == AR_SP_OK &&
	    strcmp(l2.id, "high2") == 0, "claim: then the older of the rest");
	OK(ar_spool_find(q, "high", "w1", &l2) == AR_SP_OK && l2.expires ==
	    2000000000, "find by id and holder");
	OK(ar_spool_find(q, "high", "w2", &l2) == AR_SP_GONE &&
	    ar_spool_find(q, "high", NULL, &l2) == AR_SP_OK, "find: another "
	    "holder's is not found; any holder's with none given");
	OK(ar_spool_renew(q, &l, 2100000000) == AR_SP_OK && l.expires ==
	    2100000000 && ar_spool_find(q, "high", "w1", &l2) == AR_SP_OK &&
	    l2.expires == 2100000000, "renew: a new expiry in the name");
	l2 = l;
	l2.expires = 1;
	OK(ar_spool_renew(q, &l2, 5) == AR_SP_GONE && l2.expires == 1,
	    "renew of a lease not held: gone, the lease unchanged");
	OK(ar_spool_finish(q, &l, "done") == AR_SP_OK, "finish into done/");
	name = only(q, "done");
	OK(name && strcmp(name, l.name) == 0, "finish: the record's name, "
	    "without the lease");
	free(name);
	OK(ar_spool_finish(q, &l, "done") == AR_SP_GONE, "finish twice: gone");
	OK(ar_spool_claim(q, "w1", 2000000000, &l) == AR_SP_OK &&
	    strcmp(l.id, "low") == 0, "claim: the lowest priority last; junk "
	    "skipped");
	OK(ar_spool_claim(q, "w1", 2000000000, &l) == AR_SP_GONE, "claim: "
	    "nothing left");
	ar_spool_put(q, "a", 0, "a\n", 2);
	ar_spool_put(q, "b", 0, "b\n", 2);
	OK(ar_spool_claim_next(q, &c, "w3", 2000000000, &l) == AR_SP_OK &&
	    strcmp(l.id, "a") == 0 && ar_spool_claim_next(q, &c, "w3",
	    2000000000, &l) == AR_SP_OK && strcmp(l.id, "b") == 0,
	    "claim_next: in order");
	OK(ar_spool_claim_next(q, &c, "w3", 2000000000, &l) == AR_SP_GONE,
	    "claim_next: then none");
	ar_claimer_free(&c);
	free(q);
	unit_rmtree(dir);
}

static void
reap(void)
{
	char *dir = unit_tmpdir(), *q = unit_path(dir, "q"), *p, *name;
	struct ar_lease l;
	struct timespec ts[2];
	size_t back = 99;

	ar_spool_init(q);
	ar_spool_put(q, "old", 0, "o\n", 2);
	ar_spool_put(q, "new", 0, "n\n", 2);
	ar_spool_claim(q, "w", 1000, &l);
	ar_spool_claim(q, "w", 3000, &l);
	unit_put(q, "tmp/stale", "s", 0644);
	unit_put(q, "tmp/fresh", "f", 0644);
	p = unit_path(q, "tmp/stale");
	ts[0].tv_sec = 1500 - 2 * 86400;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	utimensat(AT_FDCWD, p, ts, 0);
	free(p);
	p = unit_path(q, "tmp/fresh");
	ts[0].tv_sec = 1400;
	ts[1] = ts[0];
	utimensat(AT_FDCWD, p, ts, 0);
	free(p);
	OK(ar_spool_reap(q, 2000, &back) == AR_SP_OK && back == 1, "reap: one "
	    "lease expired");
	name = only(q, "new");
	OK(name && ar_spool_parse(name, &l) == 0 && strcmp(l.id, "old") == 0 &&
	    l.expires == 0, "reap: the expired record is back in new/");
	free(name);
	name = only(q, "cur");
	OK(name && strstr(name, "-new@3000@w"), "reap: the live lease stays");
	free(name);
	OK(!unit_exists(q, "tmp/stale") && unit_exists(q, "tmp/fresh"),
	    "reap: tmp/ files older than a day go, younger stay");
	free(q);
	unit_rmtree(dir);
}

const struct unit_test unit_spool[] = {
	TEST(names),
	TEST(deliver),
	TEST(batch),
	TEST(claims),
	TEST(reap),
	UNIT_END,
};
