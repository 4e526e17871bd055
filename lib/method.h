/* method.h: what a method is and what it may change. A method is a
 * directory, or a commit of the campaign's methods/ repository, laid over
 * a copy of the problem's baseline: only the problem's mutable paths may
 * differ from the baseline. ar-bench, ar-ledger and (through ar-campaign)
 * ar-agent decide all of this here, so they cannot disagree. */
#ifndef AR_METHOD_H
#define AR_METHOD_H

#include <stddef.h>
#include <sys/types.h>

#include "crypto.h"
#include "tree.h"

/* What one path of a method is. */
enum {
	AR_MP_SEALED,        /* must equal the baseline's */
	AR_MP_MUTABLE,       /* the method may change it */
	AR_MP_IGNORED,       /* git's own files (.gitignore, .gitattributes):
	                      * neither checked nor measured */
	AR_MP_NOTFILE,       /* a mutable path that is not a regular file */
};

/* Whether path matches one of the mutable globs: fnmatch(3) with
 * FNM_PATHNAME and FNM_PERIOD (a '*' stops at '/' and skips a leading
 * dot), and a glob naming a directory ("src/" or "src") covers all
 * below it. */
int ar_method_mutable(const char *const *globs, size_t n, const char *path);
/* What path, of the given mode (as stat(2) or git gives it; 0 for a path
 * the method deletes), is to the method: an AR_MP_ value. */
int ar_method_path(const char *const *globs, size_t n, const char *path,
	mode_t mode);
const char *ar_method_path_name(int what);

/* One change of `git diff --raw -z` output: ":OLDMODE NEWMODE OLDSHA
 * NEWSHA STATUS" NUL PATH NUL. */
struct ar_change {
	const char *path;    /* points into the output */
	mode_t mode;         /* the new mode as stat(2) gives it; 0 when the
	                      * path is deleted */
	const char *what;    /* "added", "deleted" or "modified" */
};
/* The change at *pos of the len bytes of buf, *pos moved past it: 1, 0
 * at the end, -1 when buf is not such output. */
int ar_method_change(const char *buf, size_t len, size_t *pos,
	struct ar_change *c);

/* The full id of the commit that rev names in repo, into out: 40 hex
 * digits, or 64 in a SHA-256 repository; -1 when there is none (a rev
 * that starts with '-' never names one). */
#define AR_COMMIT_MAX 64
int ar_method_commit(const char *repo, const char *rev,
	char out[AR_COMMIT_MAX + 1]);
/* 1 when s is a whole commit id as git prints it: 40 lowercase hex
 * digits (SHA-1) or 64 (SHA-256), and nothing more. */
int ar_method_is_commit(const char *s);
/* The content hash of a commit: BLAKE2b-256 of `git ls-tree -r
 * --full-tree`, every path with its mode and blob id; ar-result(5). 0,
 * or -1 with out "" when git cannot list it. */
int ar_method_hash(const char *repo, const char *commit,
	char out[AR_HASH_HEX]);

/* Writes every blob of commit's tree under dir, as stored (no filter of
 * .gitattributes applies), files first and links last, never through a
 * link. 0, or an AR_EX_ exit code with err set. */
int ar_method_extract(const char *repo, const char *commit, const char *dir,
	char *err, size_t errlen);

/* What laying a method over the baseline found. */
struct ar_overlay {
	char outside[400];   /* up to 5 sealed paths that differ, "and N
	                      * more" */
	char conflict[300];  /* why the method does not fit the baseline */
	int invalid;         /* either of them */
};
/* Lays the files of from (a method's tree) over to (a copy of the
 * baseline, whose listing is base): mutable files are copied, sealed ones
 * must equal the baseline's. 0 with o filled, or an AR_EX_ exit code
 * with err set when a file cannot be read or written. */
int ar_method_overlay(const char *from, const struct ar_tree *base,
	const char *to, const char *const *globs, size_t n,
	struct ar_overlay *o, char *err, size_t errlen);

#endif
