/* ar-init: create a campaign directory from a problem, or check its seal. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sodium.h>

#include "buf.h"
#include "campaign.h"
#include "crypto.h"
#include "err.h"
#include "id.h"
#include "io.h"
#include "manifest.h"
#include "proc.h"
#include "seal.h"
#include "spool.h"
#include "timefmt.h"
#include "tsv.h"

static const char usage[] =
	"[-k keydir] [-n name] -p problem dir\n"
	"-c dir";

/* Copies the problem tree, refusing links and special files; the copy is
 * made read-only afterwards by seal_modes. */
static void
copy_tree(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *de;

	if (!d)
		ar_die(errno == ENOENT || errno == EACCES || errno == ENOTDIR ?
		    AR_EX_NOINPUT : AR_EX_IO, "%s:", src);
	if (mkdir(dst, 0755) < 0 && errno != EEXIST)
		ar_die(ar_errno_exit(errno), "%s:", dst);
	while ((de = readdir(d))) {
		char *s, *t;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		s = ar_path(src, de->d_name);
		t = ar_path(dst, de->d_name);
		if (lstat(s, &st) < 0)
			ar_die(AR_EX_NOINPUT, "%s:", s);
		if (S_ISDIR(st.st_mode)) {
			copy_tree(s, t);
		} else if (S_ISREG(st.st_mode)) {
			struct ar_buf b = {0};
			int mode = (st.st_mode & 0111) ? 0555 : 0444;

			if (ar_readfile(s, &b, SIZE_MAX / 2) < 0)
				ar_die(AR_EX_NOINPUT, "%s:", s);
			if (ar_write_atomic(t, b.p, b.len, mode) < 0)
				ar_die(ar_errno_exit(errno), "%s:", t);
			ar_buf_free(&b);
		} else {
			ar_die(AR_EX_DATA, "%s: %s cannot be sealed; put the file "
			    "itself in the problem", s, S_ISLNK(st.st_mode) ?
			    "a symbolic link" : "a special file");
		}
		free(s);
		free(t);
	}
	closedir(d);
}

/* Directories become read-only last, deepest first. */
static void
seal_modes(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		ar_die(AR_EX_IO, "%s:", dir);
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		p = ar_path(dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			seal_modes(p);
		free(p);
	}
	closedir(d);
	if (chmod(dir, 0555) < 0)
		ar_die(AR_EX_IO, "%s:", dir);
}

static void
mkdir_or_die(const char *base, const char *sub, int mode)
{
	char *p = ar_path(base, sub);

	if (ar_mkdirs(p, mode) < 0)
		ar_die(ar_errno_exit(errno), "%s:", p);
	free(p);
}

static void
git_init(const char *dir)
{
	char *argv[] = { "git", "init", "--quiet", (char *)dir, NULL };
	int st = ar_run(argv, AR_FD_NULL, AR_FD_KEEP);

	if (st < 0)
		ar_die(AR_EX_IO, "git: cannot run it to create methods/:");
	if (st != 0)
		ar_die(AR_EX_IO, "git init %s: failed", dir);
}

static void
remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		chmod(path, 0755);
		if ((d = opendir(path))) {
			while ((de = readdir(d))) {
				char *p;

				if (strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				p = ar_path(path, de->d_name);
				remove_tree(p);
				free(p);
			}
			closedir(d);
		}
		rmdir(path);
	} else
		unlink(path);
}

/* Hidden siblings left by an ar-init killed an hour ago or more: no run
 * takes that long, so nobody is still building them. */
static void
clean_stale(const char *parent, const char *base)
{
	char *prefix = ar_xasprintf(".%s.tmp-", base);
	size_t plen = strlen(prefix);
	time_t now = time(NULL);
	struct dirent *de;
	DIR *d = opendir(parent);

	if (d) {
		while ((de = readdir(d))) {
			struct stat st;
			char *p;

			if (strncmp(de->d_name, prefix, plen) != 0)
				continue;
			p = ar_path(parent, de->d_name);
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
			    st.st_mtime < now - 3600)
				remove_tree(p);
			free(p);
		}
		closedir(d);
	}
	free(prefix);
}

/* The half-made campaign that ar_die's cleanup removes: file-level, since
 * the hook takes no argument. */
static char *tmpdir_to_clean;

static void
cleanup(void)
{
	if (tmpdir_to_clean)
		remove_tree(tmpdir_to_clean);
}

/* Reads problem.json with the checker ar-bench uses, so that a problem
 * ar-bench would refuse is refused here, with the same message, before
 * anything is sealed. Returns the problem's scales as campaign.conf
 * writes them ("1 2 4"). */
static char *
check_manifest(const char *problem)
{
	struct ar_manifest m;
	struct ar_buf b = {0};
	struct stat st;
	char err[1024], *p = ar_path(problem, "problem.json");
	size_t i;

	if (stat(p, &st) < 0 && errno == ENOENT)
		ar_die(AR_EX_NOINPUT, "%s: missing; a problem is described by "
		    "its problem.json (ar-problem(5))", p);
	free(p);
	if (ar_manifest_read(&m, problem, err, sizeof err) < 0)
		ar_die(AR_EX_DATA, "%s", err);
	for (i = 0; i < m.nscale; i++)
		ar_buf_printf(&b, "%s%ld", i ? " " : "", m.scale[i]);
	ar_manifest_free(&m);
	return b.p;
}

static int
create(const char *problem, const char *dir, const char *keydir,
    const char *name)
{
	char id[AR_IDLEN], hex[AR_SK_BYTES * 2 + 1], now[32], err[1024];
	char *parent, *target, *tmp, *p, *keypath, *conf, *pname, *pcopy;
	char *scales;
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES];
	struct stat st;
	DIR *d;

	if (stat(problem, &st) < 0)
		ar_die(AR_EX_NOINPUT, "%s:", problem);
	if (!S_ISDIR(st.st_mode))
		ar_die(AR_EX_NOINPUT, "%s: not a directory", problem);
	scales = check_manifest(problem);
	if (lstat(dir, &st) == 0) {
		int empty = 0;

		if (S_ISDIR(st.st_mode) && (d = opendir(dir))) {
			struct dirent *de;

			empty = 1;
			while ((de = readdir(d)))
				if (strcmp(de->d_name, ".") != 0 &&
				    strcmp(de->d_name, "..") != 0)
					empty = 0;
			closedir(d);
		}
		if (!empty)
			ar_die(AR_EX_CANTCREAT, "%s: exists already; refusing "
			    "to overwrite it", dir);
	}
	ar_id_new(id);
	pcopy = ar_xstrdup(problem);
	pname = ar_xstrdup(name ? name : basename(pcopy));
	free(pcopy);
	if (strchr(pname, '\n') || *pname == '\0')
		ar_die(AR_EX_USAGE, "%s: not a usable problem name", pname);

	/* Work on absolute paths: "." and "camp/." name a directory whose
	 * parent must hold the hidden sibling. */
	{
		char real[PATH_MAX], preal[PATH_MAX];
		char *c1 = ar_xstrdup(dir), *c2 = ar_xstrdup(dir);
		const char *b = basename(c2);

		if (strcmp(b, ".") == 0 || strcmp(b, "..") == 0 ||
		    strcmp(b, "/") == 0) {
			if (!realpath(dir, real))
				ar_die(AR_EX_NOINPUT, "%s:", dir);
			free(c1);
			free(c2);
			c1 = ar_xstrdup(real);
			c2 = ar_xstrdup(real);
			b = basename(c2);
		}
		if (!realpath(dirname(c1), real))
			ar_die(AR_EX_NOINPUT, "%s: its parent directory: %s", dir,
			    strerror(errno));
		parent = ar_xstrdup(real);
		target = strcmp(real, "/") == 0 ? ar_xasprintf("/%s", b) :
		    ar_xasprintf("%s/%s", real, b);
		if (!realpath(problem, preal))
			ar_die(AR_EX_NOINPUT, "%s:", problem);
		if (strncmp(target, preal, strlen(preal)) == 0 &&
		    (target[strlen(preal)] == '/' ||
		    target[strlen(preal)] == '\0'))
			ar_die(AR_EX_USAGE, "%s: inside the problem %s; put the "
			    "campaign elsewhere", dir, problem);
		tmp = ar_xasprintf("%s/.%s.tmp-%s", parent, b, id);
		clean_stale(parent, b);
		free(c1);
		free(c2);
	}
	if (mkdir(tmp, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", tmp);
	tmpdir_to_clean = tmp;
	ar_on_die(cleanup);

	/* Everything is built in a hidden sibling and renamed into place at
	 * the end, so a crash never leaves a half-made campaign. */
	p = ar_path(tmp, "problem");
	copy_tree(problem, p);
	seal_modes(p);
	free(p);
	mkdir_or_die(tmp, "keys", 0755);
	ar_spool_init(p = ar_path(tmp, "ideas"));
	free(p);
	ar_spool_init(p = ar_path(tmp, "queue"));
	free(p);
	mkdir_or_die(tmp, "ledger/results", 0755);
	mkdir_or_die(tmp, "ledger/seg", 0755);
	mkdir_or_die(tmp, "log", 0755);
	git_init(p = ar_path(tmp, "methods"));
	free(p);

	ar_keypair(pk, sk);
	ar_hex(hex, pk, AR_PK_BYTES);
	p = ar_xasprintf("ed25519-public %s\n", hex);
	keypath = ar_path(tmp, "keys/bench.pub");
	if (ar_write_atomic(keypath, p, strlen(p), 0444) < 0)
		ar_die(ar_errno_exit(errno), "%s:", keypath);
	free(keypath);
	free(p);

	if (ar_seal_write(tmp, id, pname, sk, err, sizeof err) < 0)
		ar_die(AR_EX_IO, "%s", err);

	if (keydir) {
		char real[PATH_MAX];

		if (ar_mkdirs(keydir, 0700) < 0)
			ar_die(ar_errno_exit(errno), "%s:", keydir);
		if (!realpath(keydir, real))
			ar_die(AR_EX_IO, "%s:", keydir);
		keypath = ar_xasprintf("%s/%s.key", real, id);
	} else
		keypath = ar_xstrdup("keys/bench.key");

	ar_time_now(now, sizeof now);
	conf = ar_xasprintf(
	    "# autoreduce campaign: see ar-campaign(5). The problem and SEAL\n"
	    "# are sealed; the settings below may be edited.\n"
	    "campaign = %s\n"
	    "problem = %s\n"
	    "created = %s\n"
	    "build = %s\n"
	    "key = %s\n"
	    "scales = %s\n"
	    "budget.experiments = 0\n"
	    "budget.gpu_hours = 0\n"
	    "budget.wall_hours = 0\n"
	    "policy = ours\n",
	    id, pname, now, ar_build_id(), keypath, scales);
	p = ar_path(tmp, "campaign.conf");
	if (ar_write_atomic(p, conf, strlen(conf), 0644) < 0)
		ar_die(ar_errno_exit(errno), "%s:", p);
	free(p);
	free(conf);

	/* The secret key: inside the campaign, or in keydir, out of the
	 * agents' reach. Either way readable by its owner only. */
	ar_hex(hex, sk, AR_SK_BYTES);
	p = ar_xasprintf("ed25519-secret %s\n", hex);
	sodium_memzero(sk, sizeof sk);
	sodium_memzero(hex, sizeof hex);
	{
		char *kp = keydir ? ar_xstrdup(keypath) : ar_path(tmp, keypath);
		int r = ar_write_new(kp, p, strlen(p), 0400);

		if (r != 0)
			ar_die(r > 0 ? AR_EX_CANTCREAT : ar_errno_exit(errno),
			    "%s: %s", kp, r > 0 ? "exists already" :
			    strerror(errno));
		sodium_memzero(p, strlen(p));
		free(p);
		free(kp);
	}
	if (ar_fsync_dir(tmp) < 0)
		ar_die(AR_EX_IO, "%s:", tmp);
	if (rename(tmp, target) < 0) {
		int e = errno;

		if (keydir)
			unlink(keypath);
		errno = e;
		ar_die(e == EEXIST || e == ENOTEMPTY ? AR_EX_CANTCREAT :
		    ar_errno_exit(e), "%s: %s", dir, e == EEXIST ||
		    e == ENOTEMPTY ? "exists already; refusing to overwrite it" :
		    strerror(e));
	}
	tmpdir_to_clean = NULL;
	if (ar_fsync_dir(parent) < 0)
		ar_die(AR_EX_IO, "%s:", parent);
	printf("%s\n", id);
	free(keypath);
	free(parent);
	free(target);
	free(tmp);
	free(pname);
	free(scales);
	return AR_EX_OK;
}

/* The report's header, once: *done says whether it is out. */
static void
header(int *done)
{
	if (!*done)
		printf("state\tpath\tdetail\n");
	*done = 1;
}

static void
report(void *arg, const char *state, const char *path, const char *detail)
{
	header(arg);
	ar_tsv_put(stdout, state);
	putchar('\t');
	ar_tsv_put(stdout, path);
	putchar('\t');
	ar_tsv_put(stdout, detail);
	putchar('\n');
}

static int
check(const char *dir)
{
	struct ar_campaign c;
	char err[1024];
	int n, done = 0;

	ar_campaign_open(&c, dir);
	n = ar_seal_check(dir, c.id, c.pk, report, &done, err, sizeof err);
	if (n >= 0)
		header(&done);
	fflush(stdout);
	if (n == -2)
		ar_die(AR_EX_NO, "%s", err);
	if (n == -3)
		ar_die(AR_EX_DATA, "%s", err);
	if (n < 0)
		ar_die(errno == ENOENT || errno == EACCES ? AR_EX_NOINPUT :
		    AR_EX_IO, "%s", err);
	if (n > 0)
		ar_die(AR_EX_NO, "%s: seal broken: %d file%s changed, added or "
		    "removed", dir, n, n == 1 ? "" : "s");
	ar_campaign_free(&c);
	return AR_EX_OK;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *problem = NULL, *keydir = NULL, *name = NULL, *chk = NULL;
	int c, r;

	ar_std_args(argc, argv, usage);
	/* getopt's messages name the program as the others do. */
	argv[0] = (char *)ar_prog();
	ar_crypto_init();
	while ((c = getopt_long(argc, argv, "c:k:n:p:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': chk = optarg; break;
		case 'k': keydir = optarg; break;
		case 'n': name = optarg; break;
		case 'p': problem = optarg; break;
		default: ar_usage(usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (chk) {
		if (argc != 0 || problem || keydir || name)
			ar_usage(usage);
		r = check(chk);
	} else {
		if (argc != 1 || !problem)
			ar_usage(usage);
		r = create(problem, argv[0], keydir, name);
		/* The campaign is made: a stdout that cannot take its id
		 * (closed, a reader gone) is said, not a failure that a
		 * retry would meet as "exists already". SIGPIPE is ignored
		 * only now, so create's children do not inherit that; the
		 * id is still in stdout's buffer but on a terminal. */
		signal(SIGPIPE, SIG_IGN);
		errno = 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			if (!errno)
				errno = EIO;
			ar_warn("%s: campaign made; its id is in its "
			    "campaign.conf, not printed: <stdout>: write "
			    "failed:", argv[0]);
		}
		fclose(stdout);
		return r;
	}
	ar_fshut(stdout, "<stdout>");
	return r;
}
