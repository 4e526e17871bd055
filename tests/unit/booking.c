/* booking.c: unit tests of lib/booking: bookings made all or none,
 * renewed and dropped only by their holder, file names NODE@SLOT, and
 * the walk over a campaign's bookings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking.h"
#include "buf.h"
#include "unit.h"

static struct ar_booking
booking(const char *exp, long pid, long long expires)
{
	struct ar_booking b;

	memset(&b, 0, sizeof b);
	snprintf(b.exp, sizeof b.exp, "%s", exp);
	snprintf(b.holder, sizeof b.holder, "host-a");
	b.pid = pid;
	b.expires = expires;
	return b;
}

static void
make(void)
{
	char *camp = unit_tmpdir(), *p, *t;
	struct ar_booking a = booking("e1", 100, 2000000000), c = booking("e2",
	    200, 2000000000), r;
	int s01[] = { 0, 1 }, s12[] = { 2, 1 }, s3[] = { 3 }, s33[] = { 3, 3 };

	OK(ar_booking_make(camp, "local", s01, 2, &a) == 0, "make two slots");
	t = unit_read(camp, "run/gpus/local@0");
	OK(t && strcmp(t, "e1\thost-a\t100\t2000000000\n") == 0, "a booking "
	    "is one line: EXPERIMENT HOLDER PID EXPIRES");
	free(t);
	p = ar_booking_path(camp, "local", 1);
	OK(ar_booking_read(p, &r) == 0 && strcmp(r.exp, "e1") == 0 &&
	    strcmp(r.holder, "host-a") == 0 && r.pid == 100 && r.expires ==
	    2000000000, "read it back");
	free(p);
	OK(ar_booking_make(camp, "local", s12, 2, &c) == 1, "a clash on "
	    "slot 1: 1");
	OK(!unit_exists(camp, "run/gpus/local@2"), "slot 2, made before the "
	    "clash, is taken back");
	t = unit_read(camp, "run/gpus/local@1");
	OK(t && strncmp(t, "e1\t", 3) == 0, "the clashing slot is still the "
	    "first booking's");
	free(t);
	OK(ar_booking_make(camp, "other", s12, 2, &c) == 0, "the same slots "
	    "of another node");
	OK(ar_booking_make(camp, "local", s33, 2, &c) == 1 &&
	    !unit_exists(camp, "run/gpus/local@3"), "a slot twice in one "
	    "booking clashes with itself, and nothing stays");
	OK(ar_booking_make(camp, "local", s3, 1, &c) == 0, "then slot 3 alone");
	unit_put(camp, "file", "x", 0644);
	p = unit_path(camp, "file");
	errno = 0;
	OK(ar_booking_make(p, "local", s3, 1, &c) == -1 && errno == ENOTDIR,
	    "no run/gpus can be made: -1 with errno");
	free(p);
	unit_rmtree(camp);
}

static void
renew_drop(void)
{
	char *camp = unit_tmpdir(), *t;
	struct ar_booking a = booking("e1", 100, 1000), other = booking("e1",
	    101, 5000), later = booking("e1", 100, 3000);
	int s0[] = { 0 };

	ar_booking_make(camp, "n", s0, 1, &a);
	OK(ar_booking_renew(camp, "n", 0, &other) == 0, "renew by another pid: "
	    "0");
	t = unit_read(camp, "run/gpus/n@0");
	OK(t && strcmp(t, "e1\thost-a\t100\t1000\n") == 0, "renew by another "
	    "pid changes nothing");
	free(t);
	OK(ar_booking_renew(camp, "n", 0, &later) == 0, "renew by the holder");
	t = unit_read(camp, "run/gpus/n@0");
	OK(t && strcmp(t, "e1\thost-a\t100\t3000\n") == 0, "renew rewrites the "
	    "expiry");
	free(t);
	ar_booking_drop(camp, "n", 0, "e2", 100);
	OK(unit_exists(camp, "run/gpus/n@0"), "drop for another experiment "
	    "does nothing");
	ar_booking_drop(camp, "n", 0, "e1", 101);
	OK(unit_exists(camp, "run/gpus/n@0"), "drop by another pid does "
	    "nothing");
	ar_booking_drop(camp, "n", 0, "e1", 100);
	OK(!unit_exists(camp, "run/gpus/n@0"), "drop by the holder removes it");
	OK(ar_booking_renew(camp, "n", 0, &later) == 0 &&
	    !unit_exists(camp, "run/gpus/n@0"), "renew of a booking gone makes "
	    "none");
	unit_rmtree(camp);
}

static void
names(void)
{
	static const struct {
		const char *name, *node;
		int slot;
	} good[] = {
		{ "local@0", "local", 0 }, { "n1.x@12", "n1.x", 12 },
		{ "a@b@3", "a@b", 3 }, { "n@1048576", "n", 1048576 },
	};
	static const char *const bad[] = { "local", "@3", "n@", "n@x",
	    "n@-1", "n@3x", "n@+3", "n@ 3", "n@1048577",
	    "n@99999999999999999999999", "n@3@", "a-very-long-node-name@1" };
	char node[32], *p;
	size_t i;
	int slot;

	for (i = 0; i < NELEM(good); i++)
		OK(ar_booking_name(good[i].name, node, sizeof node, &slot) ==
		    0 && strcmp(node, good[i].node) == 0 && slot ==
		    good[i].slot, "name %s is %s, slot %d", good[i].name,
		    good[i].node, good[i].slot);
	for (i = 0; i < NELEM(bad); i++)
		OK(ar_booking_name(bad[i], node, 16, &slot) == -1, "name %s is "
		    "not a booking's (node buffer of 16)", bad[i]);
	p = ar_booking_dir("/c");
	OK(strcmp(p, "/c/run/gpus") == 0, "the directory");
	free(p);
	p = ar_booking_path("/c", "n1", 7);
	OK(strcmp(p, "/c/run/gpus/n1@7") == 0, "a slot's file");
	free(p);
}

static void
seen(const char *node, int slot, const struct ar_booking *b,
    const char *path, void *arg)
{
	struct ar_buf *out = arg;

	ar_buf_printf(out, "%s@%d=%s:%s;", node, slot, b ? b->exp : "(bad)",
	    strrchr(path, '/') + 1);
}

static void
each(void)
{
	char *camp = unit_tmpdir();
	struct ar_buf out = {0};
	struct ar_booking a = booking("e1", 100, 1000), b = booking("e2", 7, 9);
	int s01[] = { 0, 1 }, s4[] = { 4 };

	errno = 0;
	OK(ar_booking_each(camp, seen, &out) == -1 && errno == ENOENT, "each: "
	    "none made yet is -1, ENOENT");
	ar_booking_make(camp, "n2", s01, 2, &a);
	ar_booking_make(camp, "n1", s4, 1, &b);
	unit_put(camp, "run/gpus/README", "not a booking\n", 0644);
	unit_put(camp, "run/gpus/.tmp-x@1", "e\th\t1\t1\n", 0644);
	unit_put(camp, "run/gpus/n3@9", "short line\n", 0644);
	ar_buf_reserve(&out, 0);
	OK(ar_booking_each(camp, seen, &out) == 0, "each: 0");
	OK(strcmp(out.p, "n1@4=e2:n1@4;n2@0=e1:n2@0;n2@1=e1:n2@1;"
	    "n3@9=(bad):n3@9;") == 0, "each: every booking in name order, an "
	    "unreadable one without content, other names skipped");
	ar_buf_free(&out);
	unit_rmtree(camp);
}

const struct unit_test unit_booking[] = {
	TEST(make),
	TEST(renew_drop),
	TEST(names),
	TEST(each),
	UNIT_END,
};
