/* ar-campaign: what the scripts ask of a campaign, answered by the lib/
 * module that owns each rule, so that ar-loop, ar-plan and ar-agent never
 * parse a format or decide a rule themselves: campaign.conf's settings,
 * the campaign's layout, the problem as ar-bench reads it, which paths a
 * method may change, a method's content hash, the campaign's locks and
 * this host's name. ar-campaign(1) is the contract. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "buf.h"
#include "campaign.h"
#include "crypto.h"
#include "conf.h"
#include "err.h"
#include "host.h"
#include "io.h"
#include "json.h"
#include "lock.h"
#include "manifest.h"
#include "method.h"
#include "proc.h"
#include "tsv.h"

static const char usage[] =
	"get [-C campaign] [-d default] key\n"
	"path [-C campaign] name\n"
	"problem [-C campaign]\n"
	"mutable [-C campaign] [-r | path ...]\n"
	"hash [-C campaign] rev\n"
	"fingerprint [-C campaign]\n"
	"lock [-C campaign] [-p pid] [-w seconds] name [command ...]\n"
	"unlock [-C campaign] [-p pid] name\n"
	"host [-s]";

/* The campaign's locks: a name for each, so that every caller takes the
 * same file with the same rule. */
static const struct {
	const char *name, *path;
	double stale_s;      /* > 0: broken when older, whoever holds it */
} locks[] = {
	{ "loop", "loop/lock", 0 },
	{ "sched", "run/sched.lock", 60 },
	{ "ledger", "ledger/lock", 0 },
	{ "worktrees", "work/worktrees.lock", 0 },
	{ "ideas", "ideas.lock", 0 },
};

static int
cmd_get(struct ar_campaign *c, const char *key, const char *dflt)
{
	const char *v = ar_conf_get(&c->conf, key);

	if (!v && !dflt)
		return AR_EX_NO;
	puts(v ? v : dflt);
	return AR_EX_OK;
}

static int
cmd_path(const char *dir, const char *name)
{
	char *p = ar_campaign_path(dir, name);
	struct ar_buf known = {0};
	size_t i;

	if (!p) {
		for (i = 0; ar_campaign_parts[i]; i++)
			ar_buf_printf(&known, "%s%s", i ? ", " : "",
			    ar_campaign_parts[i]);
		ar_die(AR_EX_USAGE, "%s: not a part of a campaign (%s)", name,
		    known.p);
	}
	puts(p);
	free(p);
	return AR_EX_OK;
}

static json_t *
mdef_json(const struct ar_mdef *d)
{
	json_t *o = json_pack("{s:s, s:s}", "name", d->name, "direction",
	    d->higher ? "higher" : "lower");

	if (d->unit)
		json_object_set_new(o, "unit", json_string(d->unit));
	return o;
}

/* The problem as ar-bench reads it, defaults filled in: the scripts read
 * this, never problem.json itself. */
static int
cmd_problem(const char *dir)
{
	struct ar_manifest m;
	char err[1024], *pdir = ar_path(dir, "problem"), *s;
	json_t *o, *a;
	size_t i;

	if (ar_manifest_read(&m, pdir, err, sizeof err) < 0)
		ar_die(errno == ENOENT ? AR_EX_NOINPUT : AR_EX_DATA, "%s/%s",
		    pdir, err);
	o = json_pack("{s:s, s:s, s:s, s:o}", "name", m.name, "description",
	    m.description ? m.description : "", "baseline", m.baseline,
	    "metric", mdef_json(&m.metric));
	a = json_array();
	for (i = 0; i < m.nmutable; i++)
		json_array_append_new(a, json_string(m.mutable[i]));
	json_object_set_new(o, "mutable", a);
	a = json_array();
	for (i = 0; i < m.nscale; i++)
		json_array_append_new(a, json_integer(m.scale[i]));
	json_object_set_new(o, "scales", a);
	a = json_array();
	for (i = 0; i < m.nworkload; i++)
		json_array_append_new(a, json_string(m.workload[i].name));
	json_object_set_new(o, "workloads", a);
	s = ar_json_line(o);
	puts(s);
	free(s);
	json_decref(o);
	ar_manifest_free(&m);
	free(pdir);
	return AR_EX_OK;
}

/* One path's verdict: "STATE<TAB>PATH"; 1 when the method may not make
 * this change. */
static int
judge(const struct ar_manifest *m, const char *path, mode_t mode,
    const char *change)
{
	int what = ar_method_path(m->mutable, m->nmutable, path, mode);

	fputs(ar_method_path_name(what), stdout);
	putchar('\t');
	if (change)
		printf("%s\t", change);
	ar_tsv_put(stdout, path);
	putchar('\n');
	return what == AR_MP_SEALED || what == AR_MP_NOTFILE;
}

/* The changes of `git diff --raw -z`, on stdin (lib/method reads them). */
static int
judge_raw(const struct ar_manifest *m)
{
	struct ar_buf in = {0};
	struct ar_change c;
	char chunk[65536];
	size_t got, pos = 0;
	int r, bad = 0;

	while ((got = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
		ar_buf_add(&in, chunk, got);
		if (in.len > (size_t)256 << 20)
			ar_die(AR_EX_DATA, "<stdin>: over 256 MiB of git diff");
	}
	if (ferror(stdin))
		ar_die(AR_EX_IO, "<stdin>:");
	while ((r = ar_method_change(in.p, in.len, &pos, &c)) == 1)
		bad |= judge(m, c.path, c.mode, c.what);
	if (r < 0)
		ar_die(AR_EX_DATA, "<stdin>: not the output of git diff --raw -z");
	ar_buf_free(&in);
	return bad;
}

static int
cmd_mutable(const char *dir, int raw, int argc, char **argv)
{
	struct ar_manifest m;
	char err[1024], *pdir = ar_path(dir, "problem");
	int i, bad = 0;

	if (ar_manifest_read(&m, pdir, err, sizeof err) < 0)
		ar_die(errno == ENOENT ? AR_EX_NOINPUT : AR_EX_DATA, "%s/%s",
		    pdir, err);
	if (raw)
		bad = judge_raw(&m);
	else
		for (i = 0; i < argc; i++)
			bad |= judge(&m, argv[i], S_IFREG | 0644, NULL);
	ar_manifest_free(&m);
	free(pdir);
	return bad ? AR_EX_NO : AR_EX_OK;
}

static int
cmd_hash(const char *dir, const char *rev)
{
	char *repo = ar_path(dir, "methods"), full[AR_COMMIT_MAX + 1],
	    hash[AR_HASH_HEX];

	if (ar_method_commit(repo, rev, full) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a commit in %s", rev, repo);
	if (ar_method_hash(repo, full, hash) < 0)
		ar_die(AR_EX_NOINPUT, "%s: git ls-tree failed", full);
	printf("%s\t%s\n", full, hash);
	free(repo);
	return AR_EX_OK;
}

static size_t
lock_index(const char *name)
{
	struct ar_buf known = {0};
	size_t i;

	for (i = 0; i < sizeof locks / sizeof *locks; i++)
		if (strcmp(locks[i].name, name) == 0)
			return i;
	for (i = 0; i < sizeof locks / sizeof *locks; i++)
		ar_buf_printf(&known, "%s%s", i ? ", " : "", locks[i].name);
	ar_die(AR_EX_USAGE, "%s: not a lock of a campaign (%s)", name,
	    known.p);
}

/* The lock a command runs under, for ar_die's cleanup hook to drop:
 * file-level, since the hook takes no argument. */
static char *held;
static pid_t held_pid;

static void
drop_held(void)
{
	if (held)
		ar_lock_drop(held, held_pid);
}

static int
cmd_lock(const char *dir, const char *name, pid_t pid, double wait_s,
    int argc, char **argv)
{
	size_t i = lock_index(name);
	char *path = ar_path(dir, locks[i].path), *parent, err[1200];
	char who[400];
	struct ar_lock_opts o = { 0 };
	int broke, r;

	parent = ar_xstrdup(path);
	*strrchr(parent, '/') = '\0';
	if (ar_mkdirs(parent, 0755) < 0)
		ar_die(ar_errno_exit(errno), "%s:", parent);
	free(parent);
	o.wait_s = wait_s;
	o.stale_s = locks[i].stale_s;
	/* A command runs under the lock of this process; without one the
	 * lock is the caller's (-p, else our parent). */
	o.pid = argc ? getpid() : pid ? pid : getppid();
	if (ar_lock_holder(path, who, sizeof who) < 0)
		snprintf(who, sizeof who, "a process");
	r = ar_lock_take(path, &o, &broke, err, sizeof err);
	if (broke)
		ar_warn("%s: broke the lock of %s, which died", path, who);
	if (r < 0)
		ar_die(ar_errno_exit(errno), "%s", err);
	if (r > 0) {
		if (ar_lock_holder(path, who, sizeof who) < 0)
			ar_die(AR_EX_TEMPFAIL, "%s", err);
		ar_die(AR_EX_TEMPFAIL, "%s: held by %s", path, who);
	}
	if (argc) {
		struct ar_spawn s = { .argv = argv, .in = AR_FD_KEEP,
		    .out = AR_FD_KEEP, .err = AR_FD_KEEP };
		pid_t child;

		held = path;
		held_pid = o.pid;
		ar_on_die(drop_held);
		/* The command's signals are its own; ours wait for it. */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		if (ar_spawn(&s, &child) < 0)
			ar_die(errno == ENOENT ? 127 : 126, "%s:", argv[0]);
		r = ar_wait(child);
		ar_lock_drop(path, o.pid);
		held = NULL;
		free(path);
		return r < 0 ? AR_EX_SOFTWARE : r;
	}
	free(path);
	return AR_EX_OK;
}

static int
cmd_unlock(const char *dir, const char *name, pid_t pid)
{
	size_t i = lock_index(name);
	char *path = ar_path(dir, locks[i].path);
	int r = ar_lock_drop(path, pid ? pid : getppid());

	free(path);
	return r == 0 ? AR_EX_OK : AR_EX_NO;
}

int
main(int argc, char **argv)
{
	const char *cmd, *copt = NULL, *dflt = NULL, *dir;
	double wait_s = 0;
	long long pid = 0;
	int c, r, raw = 0, brief = 0;
	struct ar_campaign camp;

	ar_std_args(argc, argv, usage);
	cmd = ar_subcommand(&argc, &argv, usage);
	/* "+": a command after the lock's name keeps its own options. */
	while ((c = getopt(argc, argv, "+C:d:p:rsw:")) != -1) {
		switch (c) {
		case 'C': copt = optarg; break;
		case 'd': dflt = optarg; break;
		case 'p':
			if (ar_parse_long(optarg, &pid) < 0 || pid < 1 ||
			    pid > 4194304)
				ar_die(AR_EX_USAGE, "-p %s: expected a process id",
				    optarg);
			break;
		case 'r': raw = 1; break;
		case 's': brief = 1; break;
		case 'w': wait_s = ar_opt_double("-w", optarg, 0, 86400); break;
		default: ar_usage(usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (strcmp(cmd, "host") == 0) {
		if (argc || copt || dflt || raw || pid || wait_s > 0)
			ar_usage(usage);
		puts(brief ? ar_host_short() : ar_host());
		ar_fshut(stdout, "<stdout>");
		return AR_EX_OK;
	}
	/* Each option goes with its subcommands only. */
	if ((dflt && strcmp(cmd, "get")) || (raw && strcmp(cmd, "mutable")) ||
	    brief || (pid && strcmp(cmd, "lock") && strcmp(cmd, "unlock")) ||
	    (wait_s > 0 && strcmp(cmd, "lock")))
		ar_usage(usage);
	if (strcmp(cmd, "get") && strcmp(cmd, "path") &&
	    strcmp(cmd, "problem") && strcmp(cmd, "mutable") &&
	    strcmp(cmd, "hash") && strcmp(cmd, "fingerprint") &&
	    strcmp(cmd, "lock") && strcmp(cmd, "unlock"))
		ar_die(AR_EX_USAGE, "%s: unknown subcommand (get, path, "
		    "problem, mutable, hash, fingerprint, lock, unlock or host)",
		    cmd);
	/* The command line is checked whole before the campaign is read. */
	if ((strcmp(cmd, "get") == 0 && argc != 1) ||
	    (strcmp(cmd, "path") == 0 && argc != 1) ||
	    (strcmp(cmd, "problem") == 0 && argc != 0) ||
	    (strcmp(cmd, "mutable") == 0 && (raw ? argc != 0 : argc == 0)) ||
	    (strcmp(cmd, "hash") == 0 && argc != 1) ||
	    (strcmp(cmd, "fingerprint") == 0 && argc != 0) ||
	    (strcmp(cmd, "lock") == 0 && argc < 1) ||
	    (strcmp(cmd, "unlock") == 0 && argc != 1))
		ar_usage(usage);
	dir = ar_campaign_default(copt);
	ar_campaign_open(&camp, dir);
	if (strcmp(cmd, "get") == 0)
		r = cmd_get(&camp, argv[0], dflt);
	else if (strcmp(cmd, "path") == 0)
		r = cmd_path(dir, argv[0]);
	else if (strcmp(cmd, "problem") == 0)
		r = cmd_problem(dir);
	else if (strcmp(cmd, "mutable") == 0)
		r = cmd_mutable(dir, raw, argc, argv);
	else if (strcmp(cmd, "hash") == 0)
		r = cmd_hash(dir, argv[0]);
	else if (strcmp(cmd, "fingerprint") == 0) {
		char fp[AR_HASH_HEX];

		ar_key_fingerprint(fp, camp.pk);
		puts(fp);
		r = AR_EX_OK;
	} else if (strcmp(cmd, "lock") == 0) {
		/* What follows the name is the command; "--" may part them. */
		int skip = argc > 1 && strcmp(argv[1], "--") == 0;

		fflush(stdout);
		r = cmd_lock(dir, argv[0], (pid_t)pid, wait_s, argc - 1 - skip,
		    argv + 1 + skip);
	} else
		r = cmd_unlock(dir, argv[0], (pid_t)pid);
	ar_campaign_free(&camp);
	ar_fshut(stdout, "<stdout>");
	return r;
}
