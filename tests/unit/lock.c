/* lock.c: unit tests of lib/lock: taking and dropping, a busy lock and
 * its holder named, the locks that are broken (a dead holder on this
 * host, a reused pid, an old format's dead pid, a stale lock, force) and
 * those that are not (a live holder, another host's). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "host.h"
#include "lock.h"
#include "proc.h"
#include "unit.h"

/* A child that lives until release: a holder that is not this process. */
static pid_t
hold(int *wfd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		return -1;
	fflush(NULL);
	if ((pid = fork()) == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static void
release(pid_t pid, int wfd)
{
	close(wfd);
	waitpid(pid, NULL, 0);
}

/* A pid that ran and is gone (reaped). */
static pid_t
dead_pid(void)
{
	int fd;
	pid_t pid = hold(&fd);

	release(pid, fd);
	return pid;
}

static void
take_drop(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, "lock"), err[512];
	char *text, host[256], tok[64], who[300], *want;
	struct ar_lock_opts o = { 0 };
	long pid = 0;
	unsigned long long start = 0;
	int broke = -1;

	OK(ar_lock_take(p, &o, &broke, err, sizeof err) == 0 && broke == 0,
	    "take a free lock");
	text = unit_read(p, NULL);
	OK(text && sscanf(text, "%255s %ld %llu %63s", host, &pid, &start,
	    tok) == 4 && strcmp(host, ar_host()) == 0 && pid == getpid() &&
	    start == ar_proc_start(getpid()) && strlen(tok) == 16 &&
	    text[strlen(text) - 1] == '\n', "one line: HOST PID START TOKEN");
	free(text);
	want = ar_xasprintf("pid %ld on %s", (long)getpid(), ar_host());
	OK(ar_lock_holder(p, who, sizeof who) == 0 && strcmp(who, want) == 0,
	    "holder names pid and host");
	free(want);
	OK(ar_lock_take(p, &o, NULL, err, sizeof err) == 1 && errno == EAGAIN,
	    "a second take, by the holder too, finds it busy");
	OK(ar_lock_drop(p, 0) == 0 && !unit_exists(dir, "lock"), "drop by "
	    "the holder removes it");
	OK(ar_lock_drop(p, 0) == 1, "drop of no lock");
	OK(ar_lock_holder(p, who, sizeof who) < 0, "no lock, no holder");
	free(p);
	p = unit_path(dir, "no/such/lock");
	OK(ar_lock_take(p, &o, NULL, err, sizeof err) == -1 && strstr(err,
	    "/no/such/lock: No such file or directory"), "a lock that cannot "
	    "be written: -1 and why");
	free(p);
	unit_rmtree(dir);
}

static void
busy(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, "lock"), err[512];
	char who[300], *want, *text;
	struct ar_lock_opts o = { 0 };
	int fd, broke = -1;
	pid_t child = hold(&fd);

	o.pid = child;
	OK(ar_lock_take(p, &o, NULL, err, sizeof err) == 0, "take for another "
	    "process");
	o.pid = 0;
	text = unit_read(p, NULL);
	if (text && strchr(text, '\n'))
		*strchr(text, '\n') = 0;
	want = ar_xasprintf("%s: busy: held by '%s' (remove it if that process "
	    "is gone)", p, text ? text : "");
	OK(ar_lock_take(p, &o, &broke, err, sizeof err) == 1 && errno ==
	    EAGAIN && strcmp(err, want) == 0 && broke == 0, "a live holder's "
	    "lock is busy, the holder named");
	free(want);
	free(text);
	want = ar_xasprintf("pid %ld on %s", (long)child, ar_host());
	OK(ar_lock_holder(p, who, sizeof who) == 0 && strcmp(who, want) == 0,
	    "holder: the other process");
	free(want);
	OK(ar_lock_drop(p, 0) == 1 && unit_exists(dir, "lock"), "drop by a "
	    "non-holder does nothing");
	OK(ar_lock_drop(p, child) == 0 && !unit_exists(dir, "lock"), "drop "
	    "for the holder");
	o.pid = child;
	ar_lock_take(p, &o, NULL, err, sizeof err);
	o.pid = 0;
	release(child, fd);
	OK(ar_lock_take(p, &o, &broke, err, sizeof err) == 0 && broke == 1,
	    "a dead holder's lock on this host is broken");
	OK(ar_lock_holder(p, who, sizeof who) == 0 && atol(who + 4) ==
	    (long)getpid(), "and taken");
	ar_lock_drop(p, 0);
	free(p);
	unit_rmtree(dir);
}

/* Takes the lock at dir/lock holding text, with o; its result, *broke
 * set. */
static int
take_over(const char *dir, const char *text, struct ar_lock_opts *o,
    int *broke)
{
	char *p = unit_path(dir, "lock"), err[512];
	int r;

	unit_put(dir, "lock", text, 0644);
	r = ar_lock_take(p, o, broke, err, sizeof err);
	if (r == 0)
		ar_lock_drop(p, 0);
	free(p);
	return r;
}

static void
formats(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, "lock"), *t, who[300];
	struct ar_lock_opts o = { 0 };
	long me = (long)getpid(), gone = (long)dead_pid();
	int broke;

	t = ar_xasprintf("%s %ld %llu abcd\n", ar_host(), me,
	    ar_proc_start(me) + 1);
	OK(take_over(dir, t, &o, &broke) == 0 && broke == 1, "a live pid "
	    "that started at another time is not the holder: broken");
	free(t);
	t = ar_xasprintf("%s %ld 1700000000\n", ar_host(), gone);
	OK(take_over(dir, t, &o, &broke) == 0 && broke == 1, "old format "
	    "HOST PID TIME of a dead pid: broken");
	free(t);
	t = ar_xasprintf("%s %ld 1700000000\n", ar_host(), me);
	OK(take_over(dir, t, &o, &broke) == 1 && broke == 0, "old format of "
	    "a live pid: busy");
	free(t);
	t = ar_xasprintf("%s %ld\n", ar_host(), me);
	OK(take_over(dir, t, &o, &broke) == 1 && ar_lock_holder(p, who,
	    sizeof who) == 0 && atol(who + 4) == me, "two fields, HOST PID: "
	    "busy, the holder named");
	free(t);
	t = ar_xasprintf("%s %ld 1 abcd\n", ar_host_short(), gone);
	OK(take_over(dir, t, &o, &broke) == 0 && broke == 1, "this host by "
	    "its short name: a dead pid's lock is broken");
	free(t);
	t = ar_xasprintf("other-host.invalid %ld 1 abcd\n", gone);
	OK(take_over(dir, t, &o, &broke) == 1 && broke == 0, "another host's "
	    "holder is never judged gone");
	o.force = 1;
	OK(take_over(dir, t, &o, &broke) == 0 && broke == 1, "force breaks "
	    "it");
	o.force = 0;
	free(t);
	OK(take_over(dir, "garbage\n", &o, &broke) == 1 && ar_lock_holder(p,
	    who, sizeof who) < 0, "a lock that names no holder is busy, and "
	    "has no holder");
	free(p);
	unit_rmtree(dir);
}

static void
stale(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, "lock"), *t;
	struct ar_lock_opts o = { 0 };
	struct timespec ts[2];
	int fd, broke;
	pid_t child = hold(&fd);

	t = ar_xasprintf("%s %ld %llu abcd\n", ar_host(), (long)child,
	    ar_proc_start(child));
	unit_put(dir, "lock", t, 0644);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= 3600;
	ts[1] = ts[0];
	utimensat(AT_FDCWD, p, ts, 0);
	{
		char err[512];

		o.stale_s = 7200;
		OK(ar_lock_take(p, &o, &broke, err, sizeof err) == 1, "a live "
		    "holder's lock younger than stale_s is busy");
		o.stale_s = 60;
		OK(ar_lock_take(p, &o, &broke, err, sizeof err) == 0 &&
		    broke == 1, "older than stale_s it is broken, live holder "
		    "or not");
		ar_lock_drop(p, 0);
	}
	release(child, fd);
	free(t);
	free(p);
	unit_rmtree(dir);
}

static void
take_dir(const char *path)
{
	struct ar_lock_opts o = { 0 };
	char err[512];
	int r;

	alarm(10);
	r = ar_lock_take(path, &o, NULL, err, sizeof err);
	_exit(r == 1 || r == -1 ? 0 : 2);
}

static void
not_a_file(void)
{
	char *dir = unit_tmpdir(), *p = unit_path(dir, "lock");

	mkdir(p, 0755);
	/* The take runs in a child that an alarm ends, should it spin. */
	OK(unit_child("take_dir", p, NULL, NULL) == 0, "a lock path that is a "
	    "directory: busy or an error at once, not a loop without end");
	free(p);
	unit_rmtree(dir);
}

const struct unit_test unit_lock[] = {
	TEST(take_drop),
	TEST(busy),
	TEST(formats),
	TEST(stale),
	TEST(not_a_file),
	CHILD("take_dir", take_dir),
	UNIT_END,
};
