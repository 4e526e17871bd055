/* unit.h: the harness of the C unit tests of lib/. Each
 * tests/unit/MODULE.c tests one module of lib/ and ends with a table of
 * its tests, unit_MODULE[], that main.c runs in order. A test asserts
 * with OK(cond, what...): TAP's "ok N - MODULE: what", or "not ok" and a
 * diagnostic naming the file, the line and the expression. A table may
 * also name children: code a test runs as a process of its own. */
#ifndef UNIT_H
#define UNIT_H

#include <stddef.h>
#include <sys/types.h>

struct unit_test {
	const char *name;
	void (*fn)(void);               /* a test; NULL for a child */
	void (*child)(const char *arg); /* a child, for unit_child */
};

/* The entries of a table: a test by its function's name, a child by
 * the name unit_child gives; the table ends with UNIT_END. */
#define TEST(fn) { #fn, fn, NULL }
#define CHILD(name, fn) { name, NULL, fn }
#define UNIT_END { NULL, NULL, NULL }

/* Every module with tests, in the order they run; each defines
 * unit_NAME[]. */
#define UNIT_MODULES \
	X(buf) X(err) X(utf8) X(tsv) X(json) X(crypto) X(timefmt) X(id) \
	X(io) X(flat) X(conf) X(campaign) X(stats) X(metric) X(manifest) \
	X(tree) X(method) X(seal) X(spool) X(spoolman) X(ledger) X(lock) \
	X(proc) X(host) X(booking) X(assign) X(inventory) X(pack) X(curve) \
	X(hmap) X(segseal) X(known) \
	X(policy) X(seccomp)

#define X(m) extern const struct unit_test unit_##m[];
UNIT_MODULES
#undef X

/* One assertion: what is a printf format naming it. 1 when it held. */
#define OK(cond, ...) unit_ok(!!(cond), __FILE__, __LINE__, #cond, \
	__VA_ARGS__)
int unit_ok(int pass, const char *file, int line, const char *expr,
	const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A fresh directory under $TMPDIR (else /tmp), malloc'd; the run bails
 * out when none can be made. unit_rmtree removes it, read-only
 * directories included, and frees the name. */
char *unit_tmpdir(void);
void unit_rmtree(char *dir);
/* dir "/" name, malloc'd. */
char *unit_path(const char *dir, const char *name);
/* Writes text to dir/name (every directory above it made) with mode; 0,
 * or -1 after a failed assertion saying why. */
int unit_put(const char *dir, const char *name, const char *text,
	mode_t mode);
/* The content of dir/name (name may be NULL: dir is the file), malloc'd
 * and NUL-terminated; NULL when it cannot be read. */
char *unit_read(const char *dir, const char *name);
/* Whether dir/name exists (lstat). */
int unit_exists(const char *dir, const char *name);
/* Runs the child called name, of the running module's table, with arg:
 * this program again, as "unit --child MODULE NAME ARG", stdout and
 * stderr caught; a child that returns exits 0. A fresh process, not a
 * fork: a child may end half-way on purpose (ar_die), and a leak checker
 * that does not follow exec (valgrind) neither counts what it left nor
 * changes its exit status. The status (128 + the signal that killed
 * it; -1 when it could not run), what it wrote in *out and *err
 * (malloc'd; either may be NULL when not wanted). */
int unit_child(const char *name, const char *arg, char **out, char **err);
/* The same, not waited for, its stdout and stderr ours: its pid, or -1. */
pid_t unit_child_start(const char *name, const char *arg);
/* An array's element count. */
#define NELEM(a) (sizeof (a) / sizeof *(a))

#endif
