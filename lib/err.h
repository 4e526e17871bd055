/* err.h: messages "prog: what: why", the exit codes every command
 * shares, and the standard options -h and --version. */
#ifndef AR_ERR_H
#define AR_ERR_H

#include <stdio.h>

/* Exit codes shared by all commands; autoreduce(7) documents them. */
enum {
	AR_EX_OK = 0,
	AR_EX_NO = 1,        /* a check said no: tampering, bad rows, empty queue */
	AR_EX_USAGE = 64,    /* bad command line */
	AR_EX_DATA = 65,     /* malformed input data */
	AR_EX_NOINPUT = 66,  /* missing or unreadable input */
	AR_EX_UNAVAILABLE = 69, /* a needed service is missing: no sandbox */
	AR_EX_SOFTWARE = 70, /* internal error */
	AR_EX_CANTCREAT = 73,/* refusing to overwrite; cannot create: read-only
	                      * filesystem, permission denied */
	AR_EX_IO = 74,       /* read or write failed: full disk, I/O error */
	AR_EX_TEMPFAIL = 75, /* lost a race or a lease, or busy: try again */
};

/* messages are "prog: what: why"; a format ending in ':' appends
 * strerror(errno). */
void ar_setprog(const char *argv0);
const char *ar_prog(void);
void ar_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void ar_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A function ar_die runs before the process ends: cleanup of half-made
 * work (ar_die ends with _exit, so atexit(3) handlers do not run). */
void ar_on_die(void (*fn)(void));
/* The exit code that fits an errno from a failed write or create. */
int ar_errno_exit(int err);
/* Handles -h/--help and --version before option parsing; returns only when
 * neither was given. usage is the SYNOPSIS text, one line per form. */
void ar_std_args(int argc, char **argv, const char *usage);
_Noreturn void ar_usage(const char *usage);
/* The subcommand of a program that has several: argv[1], taken out of
 * argc and argv so that getopt(3) reads the subcommand's options, with
 * argv[0] the program's name for getopt's messages; the usage (64) when
 * there is none. */
const char *ar_subcommand(int *argc, char ***argv, const char *usage);
/* An option's number: the value of s, or exit 64 with "OPT S: expected
 * an integer from LO to HI" (or "a number"). Every command reads its
 * numeric options with these, so they say the same thing. */
long long ar_opt_long(const char *opt, const char *s, long long lo,
	long long hi);
double ar_opt_double(const char *opt, const char *s, double lo, double hi);
/* Closes stdout and dies with AR_EX_IO if anything written was lost. */
void ar_fshut(FILE *f, const char *name);
const char *ar_build_id(void);

#endif
