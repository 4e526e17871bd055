/* io.c: unit tests of lib/io: bounded lines, whole files, crash-safe
 * writes (atomic, new only, replacing output), directories, a stage's
 * stderr tail and XML escapes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "io.h"
#include "unit.h"

static void
lines(void)
{
	static char text[] = "one\n\nthree is long\nlast";
	FILE *f = fmemopen(text, strlen(text), "r");
	struct ar_buf b = {0};

	OK(ar_getline(f, &b, 10) == AR_LINE_OK && strcmp(b.p, "one") == 0,
	    "getline: a line without its newline");
	OK(ar_getline(f, &b, 10) == AR_LINE_OK && b.len == 0, "getline: an "
	    "empty line");
	OK(ar_getline(f, &b, 10) == AR_LINE_LONG && b.len == 10,
	    "getline: a line over max, cut at max");
	OK(ar_getline(f, &b, 10) == AR_LINE_OK && strcmp(b.p, "last") == 0,
	    "getline: the rest of a long line skipped; a last line without "
	    "a newline");
	OK(ar_getline(f, &b, 10) == AR_LINE_EOF, "getline: the end");
	fclose(f);
	{
		/* Lines across stdio's buffer (a pipe gives it short reads):
		 * lengths, NUL bytes and the cut at max as a byte at a time. */
		static const size_t lens[] = { 0, 1, 4095, 4096, 4097, 9000,
		    70000, 3, 65536, 65537 };
		size_t i, j, max = 65536, n = sizeof lens / sizeof lens[0];
		int fd[2], good = 1, st;
		pid_t pid;

		if (pipe(fd) != 0)
			abort();
		if ((pid = fork()) == 0) {
			close(fd[0]);
			for (i = 0; i < n; i++) {
				char *l = malloc(lens[i] + 1);

				for (j = 0; j < lens[i]; j++)
					l[j] = j % 251 == 7 ? '\0' :
					    (char)('a' + j % 26);
				l[lens[i]] = '\n';
				/* Short writes, so reads come in pieces. */
				for (j = 0; j <= lens[i]; j += 1000)
					if (write(fd[1], l + j, lens[i] + 1 - j < 1000 ?
					    lens[i] + 1 - j : 1000) < 0)
						_exit(1);
				free(l);
			}
			if (write(fd[1], "tail", 4) != 4)
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		f = fdopen(fd[0], "r");
		for (i = 0; i < n; i++) {
			int r = ar_getline(f, &b, max);
			size_t want = lens[i] > max ? max : lens[i];

			good &= r == (lens[i] > max ? AR_LINE_LONG : AR_LINE_OK);
			good &= b.len == want && b.p[b.len] == '\0';
			for (j = 0; j < want && good; j++)
				good &= b.p[j] == (j % 251 == 7 ? '\0' :
				    (char)('a' + j % 26));
		}
		OK(good, "getline: lines of 0 to 70,000 bytes over a pipe in "
		    "pieces: each whole, NUL bytes kept, cut at max");
		OK(ar_getline(f, &b, max) == AR_LINE_OK && strcmp(b.p,
		    "tail") == 0 && ar_getline(f, &b, max) == AR_LINE_EOF,
		    "getline: a last line without a newline after them");
		fclose(f);
		waitpid(pid, &st, 0);
	}
	{
		static char t1[] = "\nx\n";
		struct ar_buf fresh = {0};

		f = fmemopen(t1, strlen(t1), "r");
		OK(ar_getline(f, &fresh, 10) == AR_LINE_OK && fresh.p &&
		    strcmp(fresh.p, "") == 0, "getline: an empty first line "
		    "into a fresh buffer is the string \"\"");
		fclose(f);
		ar_buf_free(&fresh);
	}
	{
		static char t2[] = "{\"a\":1}\n\n  \t\n{\"b\":2}\n";
		size_t lineno = 0;

		f = fmemopen(t2, strlen(t2), "r");
		OK(ar_jsonl_line(f, "in", &b, &lineno) == 1 && strcmp(b.p,
		    "{\"a\":1}") == 0 && lineno == 1, "jsonl: a line");
		OK(ar_jsonl_line(f, "in", &b, &lineno) == 1 && strcmp(b.p,
		    "{\"b\":2}") == 0 && lineno == 4, "jsonl: blank lines and "
		    "lines of blanks skipped, counted");
		OK(ar_jsonl_line(f, "in", &b, &lineno) == 0, "jsonl: the end");
		fclose(f);
	}
	ar_buf_free(&b);
}

static void
files(void)
{
	char *dir = unit_tmpdir(), *p;
	struct ar_buf b = {0};
	struct stat st;

	p = ar_path(dir, "f");
	OK(ar_write_atomic(p, "one", 3, 0644) == 0 && ar_readfile(p, &b, 100)
	    == 0 && strcmp(b.p, "one") == 0, "atomic write");
	OK(ar_write_atomic(p, "two", 3, 0600) == 0 && ar_readfile(p, &b, 100)
	    == 0 && strcmp(b.p, "two") == 0 && stat(p, &st) == 0 &&
	    (st.st_mode & 0777) == 0600, "atomic replace with mode");
	OK(ar_write_new(p, "three", 5, 0644) == 1 && ar_readfile(p, &b, 100)
	    == 0 && strcmp(b.p, "two") == 0, "write_new keeps the old");
	OK(ar_readfile(p, &b, 2) < 0 && errno == EFBIG, "size limit");
	OK(ar_readfile(p, &b, 3) == 0 && b.len == 3, "a file of the limit "
	    "exactly");
	unlink(p);
	OK(ar_write_new(p, "four", 4, 0640) == 0 && ar_readfile(p, &b, 100)
	    == 0 && strcmp(b.p, "four") == 0 && stat(p, &st) == 0 &&
	    (st.st_mode & 0777) == 0640, "write_new makes a new file with "
	    "its mode");
	free(p);
	p = ar_path(dir, "empty");
	OK(ar_write_atomic(p, "", 0, 0644) == 0 && ar_readfile(p, &b, 100) ==
	    0 && b.len == 0 && b.p && b.p[0] == 0, "an empty file reads as "
	    "\"\"");
	free(p);
	p = ar_path(dir, "none");
	OK(ar_readfile(p, &b, 100) < 0 && errno == ENOENT, "a missing file");
	free(p);
	p = ar_path(dir, "ro");
	mkdir(p, 0555);
	if (geteuid() != 0) {
		char *q = ar_path(p, "x");

		OK(ar_write_atomic(q, "x", 1, 0644) < 0 && errno == EACCES,
		    "read-only directory is an error");
		free(q);
	}
	rmdir(p);
	free(p);
	/* No temporary file is left behind by any of them. */
	{
		char *names = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&names, &len);
		char *cmd = ar_xasprintf("ls -A %s", dir);
		FILE *ls = popen(cmd, "r");
		int c;

		while (ls && (c = getc(ls)) != EOF)
			putc(c, m);
		if (ls)
			pclose(ls);
		fclose(m);
		OK(strcmp(names, "empty\nf\n") == 0, "no temporary file left");
		free(names);
		free(cmd);
	}
	unit_rmtree(dir);
	ar_buf_free(&b);
}

/* The reader of a FIFO, a child: exits 0 when it read "piped". */
static void
fifo_reader(const char *fifo)
{
	FILE *r = fopen(fifo, "r");
	char line[16] = "";
	int got = r && fgets(line, sizeof line, r) && strcmp(line, "piped") ==
	    0;

	if (r)
		fclose(r);
	exit(got ? 0 : 1);
}

/* ar_out_open/close: a whole replacement, no temporary file left; a
 * FIFO is written into, and stays a FIFO. */
static void
out(void)
{
	char *dir = unit_tmpdir(), *tmp, *p, *fifo = ar_path(dir, "fifo");
	struct ar_buf b = {0};
	struct stat st;
	FILE *f;
	pid_t pid;
	int st2;

	p = ar_path(dir, "out");
	ar_write_atomic(p, "old", 3, 0644);
	f = ar_out_open(p, &tmp);
	OK(f && tmp && strstr(tmp, "/.tmp-"), "a temporary file");
	fputs("new", f);
	OK(ar_readfile(p, &b, 100) == 0 && strcmp(b.p, "old") == 0,
	    "the old content until closed");
	OK(ar_out_close(f, p, tmp) == 0 && ar_readfile(p, &b, 100) == 0
	    && strcmp(b.p, "new") == 0, "replaced on close");
	unlink(p);
	free(p);
	OK(mkfifo(fifo, 0644) == 0, "a fifo");
	pid = unit_child_start("fifo_reader", fifo);
	f = ar_out_open(fifo, &tmp);
	OK(f && tmp == NULL, "a fifo is written into");
	fputs("piped", f);
	OK(ar_out_close(f, fifo, tmp) == 0, "fifo closed");
	OK(waitpid(pid, &st2, 0) == pid && WIFEXITED(st2) &&
	    WEXITSTATUS(st2) == 0 && stat(fifo, &st) == 0 &&
	    S_ISFIFO(st.st_mode), "the reader got it; still a fifo");
	p = ar_path(dir, "no/such/out");
	OK(ar_out_open(p, &tmp) == NULL && errno == ENOENT && !tmp,
	    "a missing directory is an error");
	free(p);
	free(fifo);
	unit_rmtree(dir);
	ar_buf_free(&b);
}

static void
dirs(void)
{
	char *dir = unit_tmpdir(), *p, *q;
	struct stat st;
	int fd;

	p = ar_path(dir, "a/b/c");
	OK(ar_mkdirs(p, 0755) == 0 && stat(p, &st) == 0 && S_ISDIR(st.st_mode),
	    "mkdirs makes every level");
	OK(ar_mkdirs(p, 0755) == 0, "mkdirs of what is there is fine");
	free(p);
	unit_put(dir, "file", "x", 0644);
	p = ar_path(dir, "file");
	OK(ar_mkdirs(p, 0755) < 0 && errno == ENOTDIR, "mkdirs over a file");
	q = ar_path(p, "below");
	OK(ar_mkdirs(q, 0755) < 0 && errno == ENOTDIR, "mkdirs under a file");
	free(q);
	OK(ar_fsync_dir(dir) == 0 && ar_fsync_parent(p) == 0, "fsync of a "
	    "directory and of a file's");
	OK(ar_fsync_dir(p) < 0, "fsync_dir of a file fails");
	free(p);
	p = ar_tmpname(dir, "base");
	q = ar_tmpname(dir, "base");
	OK(strncmp(p, dir, strlen(dir)) == 0 && strstr(p, "/.tmp-") &&
	    strcmp(p + strlen(p) - 5, "-base") == 0 && strcmp(p, q) != 0,
	    "tmpname: hidden, beside, unique");
	free(p);
	free(q);
	p = ar_path(dir, "w");
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	OK(fd >= 0 && ar_write_all(fd, "abc", 3) == 0 && close(fd) == 0, "write_all");
	q = unit_read(p, NULL);
	OK(q && strcmp(q, "abc") == 0, "write_all wrote it all");
	free(q);
	OK(ar_write_all(-1, "x", 1) < 0 && errno == EBADF, "write_all to a "
	    "bad descriptor");
	free(p);
	p = ar_path("a", "b");
	OK(strcmp(p, "a/b") == 0, "path joins with '/'");
	free(p);
	unit_rmtree(dir);
	OK(ar_mkdirs("", 0755) < 0, "mkdirs of \"\" fails, reading nothing "
	    "beyond the string");
}

static void
tail(void)
{
	char *dir = unit_tmpdir(), *p, *s;
	struct ar_buf b = {0};
	int i;

	for (i = 1; i <= 15; i++)
		ar_buf_printf(&b, "line %d\n", i);
	unit_put(dir, "err", b.p, 0644);
	p = unit_path(dir, "err");
	s = ar_tail_of(p);
	OK(strncmp(s, "line 6\n", 7) == 0 && strcmp(s + strlen(s) - 7,
	    "line 15") == 0, "tail: the last 10 lines, no final newline");
	free(s);
	unit_put(dir, "err", "ok \x01\xff\ttab\n", 0644);
	s = ar_tail_of(p);
	OK(strcmp(s, "ok ??\ttab") == 0, "tail: control bytes and bad UTF-8 "
	    "become '?', tabs stay");
	free(s);
	ar_buf_clear(&b);
	for (i = 0; i < 3000; i++)
		ar_buf_addc(&b, 'x');
	unit_put(dir, "err", b.p, 0644);
	s = ar_tail_of(p);
	OK(strlen(s) == 2000, "tail: at most 2000 bytes");
	free(s);
	free(p);
	p = unit_path(dir, "none");
	s = ar_tail_of(p);
	OK(strcmp(s, "") == 0, "tail: \"\" when unreadable");
	free(s);
	free(p);
	ar_buf_free(&b);
	unit_rmtree(dir);
}

static void
xml(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	ar_xml_put(m, "a<b>&\"c'");
	fclose(m);
	OK(strcmp(buf, "a&lt;b&gt;&amp;&quot;c'") == 0, "xml: escaped");
	free(buf);
}

/* ar_tmp_clean: what a dead writer left goes; a live writer's (locked),
 * one in its first instant (mode 0) and other files stay. */
static void
tmpclean(void)
{
	char *d = unit_tmpdir(), *live;
	struct timespec old[2] = { { 0, UTIME_OMIT }, { 0, 0 } };
	size_t n = 99;
	int fd;

	unit_put(d, ".tmp-x-dead.json", "half", 0444);
	unit_put(d, ".tmp-x-live.json", "writing", 0444);
	unit_put(d, ".tmp-x-new.json", "", 0);
	unit_put(d, ".tmp-x-old.json", "", 0);
	unit_put(d, "kept.json", "{}", 0444);
	old[1].tv_sec = time(NULL) - 7200;
	live = unit_path(d, ".tmp-x-old.json");
	utimensat(AT_FDCWD, live, old, 0);
	free(live);
	live = unit_path(d, ".tmp-x-live.json");
	fd = open(live, O_RDONLY);
	OK(fd >= 0 && flock(fd, LOCK_EX) == 0, "tmpclean: a live writer's lock");
	OK(ar_tmp_clean(d, &n) == 0 && n == 2, "tmpclean: two removed");
	OK(!unit_exists(d, ".tmp-x-dead.json") &&
	    !unit_exists(d, ".tmp-x-old.json"), "tmpclean: a dead writer's "
	    "and an hour-old mode-0 file gone");
	OK(unit_exists(d, ".tmp-x-live.json") &&
	    unit_exists(d, ".tmp-x-new.json") && unit_exists(d, "kept.json"),
	    "tmpclean: a live one, a new mode-0 one and others stay");
	close(fd);
	OK(ar_tmp_clean(d, &n) == 0 && n == 1 &&
	    !unit_exists(d, ".tmp-x-live.json"), "tmpclean: its writer gone, "
	    "the live one goes too");
	OK(ar_tmp_clean("/nonexistent/dir", &n) == 0 && n == 0,
	    "tmpclean: a missing directory is no error");
	free(live);
	unit_rmtree(d);
}

const struct unit_test unit_io[] = {
	TEST(lines),
	TEST(files),
	TEST(out),
	TEST(dirs),
	TEST(tail),
	TEST(xml),
	TEST(tmpclean),
	CHILD("fifo_reader", fifo_reader),
	UNIT_END,
};
