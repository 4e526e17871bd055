/* io.c: bounded line reading and crash-safe file writes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "id.h"
#include "io.h"
#include "utf8.h"

int
ar_getline(FILE *f, struct ar_buf *b, size_t max)
{
	int c, too_long = 0;

	/* Even an empty line is a string: callers strchr and split it. */
	ar_buf_clear(b);
	ar_buf_reserve(b, 0);
	b->p[0] = '\0';
	for (;;) {
#ifdef __GLIBC__
		/* A run at a time from stdio's own buffer, as getc takes a
		 * byte from it: a byte per call was a third of the time of
		 * every TSV reader on a large ledger. */
		char *p = f->_IO_read_ptr, *e = f->_IO_read_end, *nl;
		size_t n, take;

		if (p < e) {
			nl = memchr(p, '\n', (size_t)(e - p));
			n = (size_t)((nl ? nl : e) - p);
			take = n;
			if (b->len + n > max) {
				take = max > b->len ? max - b->len : 0;
				too_long = 1;
			}
			if (take) {
				ar_buf_reserve(b, take);
				memcpy(b->p + b->len, p, take);
				b->len += take;
				b->p[b->len] = '\0';
			}
			f->_IO_read_ptr = nl ? nl + 1 : e;
			if (nl)
				return too_long ? AR_LINE_LONG : AR_LINE_OK;
			continue;
		}
#endif
		/* The buffer is empty: getc fills it, or says EOF. */
		if ((c = getc_unlocked(f)) == EOF)
			break;
		if (c == '\n')
			return too_long ? AR_LINE_LONG : AR_LINE_OK;
		if (b->len >= max) {
			too_long = 1;
			continue;
		}
		if (b->len + 1 >= b->cap)
			ar_buf_reserve(b, 1);
		b->p[b->len++] = (char)c;
		b->p[b->len] = '\0';
	}
	if (ferror(f))
		return AR_LINE_ERR;
	if (too_long)
		return AR_LINE_LONG;
	return b->len > 0 ? AR_LINE_OK : AR_LINE_EOF;
}

void
ar_read_die(const char *name)
{
	/* fopen(3) opens a directory; only the read says what it is. */
	if (errno == EISDIR)
		ar_die(AR_EX_NOINPUT, "%s: is a directory", name);
	ar_die(AR_EX_IO, "%s: read error:", name);
}

static int
jsonl_line(FILE *f, const char *name, struct ar_buf *b, size_t *lineno,
    int crlf)
{
	int r;

	while ((r = ar_getline(f, b, AR_LINE_MAX)) != AR_LINE_EOF) {
		++*lineno;
		if (r == AR_LINE_ERR)
			ar_read_die(name);
		if (r == AR_LINE_LONG)
			ar_die(AR_EX_DATA, "%s: line %zu: longer than %d bytes; "
			    "nothing stored", name, *lineno, AR_LINE_MAX);
		if (crlf && b->len > 0 && b->p[b->len - 1] == '\r')
			b->p[--b->len] = '\0';
		if (b->len == 0)
			continue;
		if (memchr(b->p, '\r', b->len))
			ar_die(AR_EX_DATA, crlf ? "%s: line %zu: carriage return "
			    "inside the line; nothing stored" : "%s: line %zu: "
			    "carriage return (CRLF line endings?); nothing stored",
			    name, *lineno);
		/* A line of blank space is a blank line. */
		if (strspn(b->p, " \t") < b->len)
			return 1;
	}
	return 0;
}

int
ar_jsonl_line(FILE *f, const char *name, struct ar_buf *b, size_t *lineno)
{
	return jsonl_line(f, name, b, lineno, 0);
}

int
ar_jsonl_line_crlf(FILE *f, const char *name, struct ar_buf *b,
    size_t *lineno)
{
	return jsonl_line(f, name, b, lineno, 1);
}

int
ar_readfile(const char *path, struct ar_buf *b, size_t max)
{
	return ar_readfile_at(AT_FDCWD, path, b, max);
}

int
ar_readfile_at(int dirfd, const char *path, struct ar_buf *b, size_t max)
{
	int fd, r, e;

	ar_buf_clear(b);
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	r = ar_readfd(fd, b, max);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

int
ar_readfd(int fd, struct ar_buf *b, size_t max)
{
	struct stat st;
	ssize_t n;
	int sized = 0;

	ar_buf_clear(b);
	/* Sized once for a regular file, and read straight into the
	 * buffer: summaries of megabytes are read on every decision. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= max) {
		ar_buf_reserve(b, (size_t)st.st_size + 1);
		sized = 1;
	}
	for (;;) {
		size_t room = b->cap - b->len, want;

		if (room < 2 || (!sized && room < 4097))
			ar_buf_reserve(b, 65536);
		want = b->cap - b->len - 1;
		n = read(fd, b->p + b->len, want);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (b->len + (size_t)n > max) {
			errno = EFBIG;
			return -1;
		}
		b->len += (size_t)n;
		b->p[b->len] = '\0';
		/* A regular file read short is at its end: no read more to
		 * hear it (a spool of records is thousands of files). */
		if (sized && (size_t)n < want)
			break;
	}
	if (!b->p)
		ar_buf_reserve(b, 0), b->p[0] = '\0';
	return 0;
}

int
ar_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
ar_fsync_dir(const char *dir)
{
	int fd, r, e;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	r = fsync(fd);
	e = errno;
	close(fd);
	/* Some filesystems cannot fsync a directory; the rename is all
	 * they offer, so that is not an error. */
	if (r < 0 && (e == EINVAL || e == EBADF))
		r = 0;
	errno = e;
	return r;
}

int
ar_fsync_parent(const char *path)
{
	char *copy = ar_xstrdup(path);
	int r = ar_fsync_dir(dirname(copy));
	int e = errno;

	free(copy);
	errno = e;
	return r;
}

int
ar_mkdirs(const char *path, int mode)
{
	char *p, *s;
	struct stat st;

	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	p = ar_xstrdup(path);
	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
				int e = errno;
				free(p);
				errno = e;
				return -1;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

char *
ar_path(const char *a, const char *b)
{
	return ar_xasprintf("%s/%s", a, b);
}

char *
ar_tmpname(const char *dir, const char *base)
{
	char id[AR_IDLEN];

	ar_id_new(id);
	return ar_xasprintf("%s/.tmp-%s-%s", dir, id, base);
}

/* Writes a fresh temporary file beside path and syncs it (unless
 * nosync: a cache's readers check what they read); *fdp stays
 * open, holding flock(2) on the file until the caller has renamed or
 * linked it and closes it, so that ar_tmp_clean can tell a live
 * writer's file from a dead one's. The file is made with mode 0 and
 * given its mode once locked: a mode of 0 marks the instant between. */
static char *
write_tmp(const char *path, const void *data, size_t len, int mode, int *fdp,
    int nosync)
{
	char *copy = ar_xstrdup(path), *base = ar_xstrdup(path);
	char *tmp = ar_tmpname(dirname(copy), basename(base));
	int fd, e;

	free(copy);
	free(base);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* A file system without locks still takes the write. */
	(void)flock(fd, LOCK_EX);
	/* The mode asked for, whatever the umask: sealed files and keys
	 * must be readable by the users the contract names. */
	if (fchmod(fd, (mode_t)mode) < 0 || ar_write_all(fd, data, len) < 0 ||
	    (!nosync && fsync(fd) < 0)) {
		e = errno;
		unlink(tmp);
		close(fd);
		errno = e;
		goto fail;
	}
	*fdp = fd;
	return tmp;
fail:
	e = errno;
	free(tmp);
	errno = e;
	return NULL;
}

static int
write_renamed(const char *path, const void *data, size_t len, int mode,
    int nosync)
{
	int fd, e;
	char *tmp = write_tmp(path, data, len, mode, &fd, nosync);

	if (!tmp)
		return -1;
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		close(fd);
		free(tmp);
		errno = e;
		return -1;
	}
	/* fsync said the data is stored; close only drops the lock. */
	close(fd);
	free(tmp);
	return nosync ? 0 : ar_fsync_parent(path);
}

int
ar_write_atomic(const char *path, const void *data, size_t len, int mode)
{
	return write_renamed(path, data, len, mode, 0);
}

int
ar_write_cache(const char *path, const void *data, size_t len, int mode)
{
	return write_renamed(path, data, len, mode, 1);
}

int
ar_write_new(const char *path, const void *data, size_t len, int mode)
{
	struct stat st;
	int r = 0, e = 0, fd;
	char *tmp = write_tmp(path, data, len, mode, &fd, 0);

	if (!tmp)
		return -1;
	if (link(tmp, path) < 0) {
		e = errno;
		/* Over NFS a link can succeed yet report failure; the link
		 * count tells the truth. */
		if (e == EEXIST)
			r = 1;
		else if (stat(tmp, &st) == 0 && st.st_nlink == 2)
			r = 0;
		else
			r = -1;
	}
	unlink(tmp);
	close(fd);
	free(tmp);
	if (r < 0) {
		errno = e;
		return -1;
	}
	if (r == 0 && ar_fsync_parent(path) < 0)
		return -1;
	return r;
}

int
ar_tmp_clean(const char *dir, size_t *removed)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (removed)
		*removed = 0;
	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d))) {
		struct stat st;
		int fd;

		if (strncmp(de->d_name, ".tmp-", 5) != 0)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			/* Mode 0 cannot be opened but by root: an hour old,
			 * it is a dead writer's all the same. */
			if (errno == EACCES && fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
			    !(st.st_mode & 07777) &&
			    st.st_mtime < time(NULL) - 3600 &&
			    unlinkat(dirfd(d), de->d_name, 0) == 0)
				n++;
			continue;
		}
		/* A mode of 0 is a file in its first instant, not locked
		 * yet; after an hour its writer is surely gone. */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    ((st.st_mode & 07777) || st.st_mtime < time(NULL) - 3600) &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			n++;
		close(fd);
	}
	closedir(d);
	if (removed)
		*removed = n;
	return 0;
}

FILE *
ar_out_open(const char *path, char **tmp)
{
	struct stat st;
	FILE *f;
	int fd;

	/* A pipe or a device (/dev/stdout) is written into; replacing it
	 * with a regular file would break whoever reads it. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*tmp = NULL;
		return fopen(path, "w");
	}
	{
		char *copy = ar_xstrdup(path), *base = ar_xstrdup(path);

		*tmp = ar_tmpname(dirname(copy), basename(base));
		free(copy);
		free(base);
	}
	fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(*tmp);
		*tmp = NULL;
		errno = e;
		return NULL;
	}
	return f;
}

int
ar_out_close(FILE *f, const char *path, char *tmp)
{
	int e;

	if (fflush(f) != 0 || (tmp && fsync(fileno(f)) != 0)) {
		e = errno;
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0) {
		e = errno;
		goto fail;
	}
	if (tmp && (rename(tmp, path) < 0 || ar_fsync_parent(path) < 0)) {
		e = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	if (tmp)
		unlink(tmp);
	free(tmp);
	errno = e;
	return -1;
}

void
ar_xml_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A stage's stderr, as results keep it: see ar.h. */
char *
ar_tail_of(const char *path)
{
	struct ar_buf b = {0};
	size_t start, lines = 0, i;
	char *s;

	if (ar_readfile(path, &b, 16 * 1024 * 1024) < 0) {
		ar_buf_free(&b);
		return ar_xstrdup("");
	}
	while (b.len && b.p[b.len - 1] == '\n')
		b.p[--b.len] = 0;
	start = b.len > 2000 ? b.len - 2000 : 0;
	for (i = b.len; i > start; i--)
		if (b.p[i - 1] == '\n' && ++lines == 10)
			break;
	if (i > start)
		start = i;
	s = ar_xstrdup(b.p + start);
	/* Bytes that are not UTF-8 (or a character cut in two) become
	 * '?': the result must stay valid JSON. */
	ar_utf8_repair(s);
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t')
			s[i] = '?';
	ar_buf_free(&b);
	return s;
}
