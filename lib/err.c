/* err.c: diagnostics in the form "prog: what: why", and exit codes. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "json.h"

static const char *prog = "autoreduce";

void
ar_setprog(const char *argv0)
{
	const char *s = strrchr(argv0, '/');

	prog = s ? s + 1 : argv0;
}

const char *
ar_prog(void)
{
	return prog;
}

static void
vwarn(const char *fmt, va_list ap)
{
	int err = errno;
	size_t n = strlen(fmt);
	char msg[4096];

	vsnprintf(msg, sizeof msg, fmt, ap);
	/* A whole message in one write, so concurrent writers do not mix. */
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, "%s: %s %s\n", prog, msg, strerror(err));
	else
		fprintf(stderr, "%s: %s\n", prog, msg);
}

void
ar_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

static void (*die_hook)(void);

void
ar_on_die(void (*fn)(void))
{
	die_hook = fn;
}

void
ar_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	/* Out through _exit: what was written is flushed, the caller's
	 * cleanup runs, and no at-exit leak check reports the memory of a
	 * process that stops half-way on purpose. */
	if (die_hook)
		die_hook();
	fflush(NULL);
	_exit(code);
}

int
ar_errno_exit(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
		return AR_EX_NOINPUT;
	case EEXIST:
	case ENOTEMPTY:
		return AR_EX_CANTCREAT;
	case EACCES:
	case EPERM:
	case EROFS:
		return AR_EX_CANTCREAT;
	default:
		return AR_EX_IO;
	}
}

const char *
ar_build_id(void)
{
	return "autoreduce-" AR_VERSION;
}

static void
print_usage(FILE *f, const char *usage)
{
	const char *p = usage, *nl;
	int first = 1;

	/* Every form of the SYNOPSIS gets its own line. */
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ", prog,
		    (int)(nl - p), p);
		first = 0;
		p = *nl ? nl + 1 : nl;
	}
}

void
ar_usage(const char *usage)
{
	print_usage(stderr, usage);
	fflush(NULL);
	_exit(AR_EX_USAGE);
}

void
ar_std_args(int argc, char **argv, const char *usage)
{
	int i;

	ar_setprog(argv[0]);
	/* Only as the first argument, or right after a subcommand: "-h" may
	 * well be the value of an option further on. */
	for (i = 1; i < argc && i <= 2; i++) {
		if (strcmp(argv[i], "--") == 0 || (i == 2 && argv[1][0] == '-'))
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			print_usage(stdout, usage);
			ar_fshut(stdout, "<stdout>");
			exit(AR_EX_OK);
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("%s %s\n", prog, AR_VERSION);
			ar_fshut(stdout, "<stdout>");
			exit(AR_EX_OK);
		}
	}
}

void
ar_fshut(FILE *f, const char *name)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		if (bad && errno == 0)
			errno = EIO;
		ar_die(AR_EX_IO, "%s: write failed:", name);
	}
}

long long
ar_opt_long(const char *opt, const char *s, long long lo, long long hi)
{
	long long v;

	if (ar_parse_long(s, &v) < 0 || v < lo || v > hi)
		ar_die(AR_EX_USAGE, "%s %s: expected an integer from %lld to "
		    "%lld", opt, s, lo, hi);
	return v;
}

double
ar_opt_double(const char *opt, const char *s, double lo, double hi)
{
	double v;

	if (ar_parse_double(s, &v) < 0 || v < lo || v > hi)
		ar_die(AR_EX_USAGE, "%s %s: expected a number from %g to %g",
		    opt, s, lo, hi);
	return v;
}

const char *
ar_subcommand(int *argc, char ***argv, const char *usage)
{
	const char *cmd;

	if (*argc < 2)
		ar_usage(usage);
	cmd = (*argv)[1];
	(*argc)--;
	(*argv)++;
	(*argv)[0] = (char *)ar_prog();
	return cmd;
}
