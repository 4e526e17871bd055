/* io.h: bounded line reading and crash-safe files. */
#ifndef AR_IO_H
#define AR_IO_H

#include <stddef.h>
#include <stdio.h>
#include "buf.h"

/* The longest line any reader accepts; longer lines are errors. */
#define AR_LINE_MAX (1024 * 1024)

enum { AR_LINE_EOF = 0, AR_LINE_OK = 1, AR_LINE_LONG = -2, AR_LINE_ERR = -1 };
/* Reads one line without its newline into b, always a NUL-terminated
 * string, even when empty; returns an AR_LINE_ value.
 * A line longer than max is AR_LINE_LONG; the rest of it is skipped. */
int ar_getline(FILE *f, struct ar_buf *b, size_t max);
/* Dies for a read of name that failed (AR_LINE_ERR), errno still set:
 * 66 "NAME: is a directory" for a directory given as input, else 74
 * "NAME: read error: REASON". Every reader of TSV and JSON Lines says it
 * this way. */
_Noreturn void ar_read_die(const char *name);
/* The next line of JSON Lines input that is not blank, in b; 0 at the
 * end. Dies with the input's name on a read error (ar_read_die), with
 * its line on a line over AR_LINE_MAX or a carriage return (65). */
int ar_jsonl_line(FILE *f, const char *name, struct ar_buf *b,
	size_t *lineno);
/* The same for other tools' logs, as a Windows checkout leaves them: a
 * CR that ends a line is dropped; one inside a line is still refused. */
int ar_jsonl_line_crlf(FILE *f, const char *name, struct ar_buf *b,
	size_t *lineno);
/* Reads a whole file of at most max bytes; -1 with errno on failure
 * (EFBIG when larger). */
int ar_readfile(const char *path, struct ar_buf *b, size_t max);
/* The same, path relative to the directory dirfd (AT_FDCWD: the current
 * one): a spool's thousands of records without a lookup of the whole
 * path each. */
int ar_readfile_at(int dirfd, const char *path, struct ar_buf *b,
	size_t max);
/* The same from an open descriptor, read to its end (a pipe, standard
 * input); fd is left open. */
int ar_readfd(int fd, struct ar_buf *b, size_t max);
/* The last 10 lines of a file, at most 2000 bytes, as valid UTF-8
 * without control characters but newlines and tabs; "" if unreadable. */
char *ar_tail_of(const char *path);
/* Writes data to path so that a crash at any instant leaves either the old
 * file or the new one: tmp in the same directory, fsync, rename, fsync of
 * the directory. -1 with errno on failure; nothing half-written remains. */
int ar_write_atomic(const char *path, const void *data, size_t len, int mode);
/* The same without either fsync, for a cache whose readers check what
 * they read (a signature, a checksum) and rebuild what fails: a kill -9
 * still leaves the old file or the new one, whole; a power cut may leave
 * neither, or an empty file. */
int ar_write_cache(const char *path, const void *data, size_t len, int mode);
/* Creates path with data only if it does not exist (link(2), which holds
 * on NFS). 0 on success, 1 if it existed, -1 with errno on failure. */
int ar_write_new(const char *path, const void *data, size_t len, int mode);
/* Removes the temporary files (.tmp-*) in dir that ar_write_atomic and
 * ar_write_new left when their writer died (kill -9, a crash): those no
 * process holds locked. A file that may be in its first instant (mode 0,
 * less than an hour old) is left. *removed counts them; -1 with errno
 * when dir cannot be read (a missing dir is no error). */
int ar_tmp_clean(const char *dir, size_t *removed);
/* Writes all of data to fd; -1 with errno on failure. */
int ar_write_all(int fd, const void *data, size_t len);
int ar_fsync_dir(const char *dir);
/* fsync of the directory that holds path. */
int ar_fsync_parent(const char *path);
int ar_mkdirs(const char *path, int mode);
char *ar_path(const char *a, const char *b); /* a "/" b, malloc'd */
/* Output that replaces path whole: a fresh temporary file beside it,
 * renamed over it by ar_out_close after fsync. A path that exists and is
 * not a regular file (a pipe, /dev/stdout) is written into instead, *tmp
 * NULL. NULL with errno when it cannot be opened. */
FILE *ar_out_open(const char *path, char **tmp);
/* Flushes, syncs and renames; frees tmp. -1 with errno, nothing left
 * half-written at path, on failure. */
int ar_out_close(FILE *f, const char *path, char *tmp);
/* Writes s with the five characters XML reserves escaped. */
void ar_xml_put(FILE *f, const char *s);
/* A name for a temporary file next to path, unique across hosts. */
char *ar_tmpname(const char *dir, const char *base);

#endif
