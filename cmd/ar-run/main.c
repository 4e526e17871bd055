/* ar-run: dispatches the experiments queued in a campaign's queue/ to
 * ar-bench, on this machine's GPUs or CPUs (local) or through Slurm.
 * Every state change is a rename(2) or link(2) in the campaign, so a
 * kill -9 at any instant, then a restart, loses nothing and runs nothing
 * twice: the queue holds each record's fate, run/ holds who runs what.
 * This file reads the command line, opens the campaign and hands over to
 * the subcommand; run.h lists the other files and their jobs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "err.h"
#include "host.h"
#include "io.h"
#include "json.h"
#include "manifest.h"
#include "proc.h"
#include "run.h"

static const char usage[] =
	"local [-qv] [-C campaign] [-g topology | --gpus n | --cpus] [-H holder] "
	"[-i assignments] [-j max-parallel] [-l lease-seconds] "
	"[-r requeue-limit] [-t time-limit] [--drain | --once] "
	"[-- ar-bench-args ...]\n"
	"slurm [-qv] [-C campaign] [-H holder] [-i assignments] [-j max-jobs] "
	"[-l lease-seconds] [-p partition] [-r requeue-limit] [-t time-limit] "
	"[--drain | --once] [--no-array | --array-max n] "
	"[-- ar-bench-args ...]\n"
	"job [-C campaign] experiment | @map [-- ar-bench-args ...]\n"
	"status [-C campaign]";

/* Checks the campaign and makes run/ and log/ where missing. */
static void
open_campaign(struct runctx *c)
{
	static const char *const subs[] = { "run", "run/gpus", "run/pid",
	    "run/jobs", "run/tries", "log" };
	struct stat st;
	char *conf = ar_path(c->camp, "campaign.conf");
	size_t i;

	if (stat(c->camp, &st) < 0)
		ar_die(AR_EX_NOINPUT, "%s:", c->camp);
	if (!S_ISDIR(st.st_mode))
		ar_die(AR_EX_NOINPUT, "%s: not a directory", c->camp);
	if (stat(conf, &st) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a campaign (no campaign.conf)",
		    c->camp);
	free(conf);
	c->qdir = ar_path(c->camp, "queue");
	if (ar_spool_check(c->qdir) < 0)
		ar_die(AR_EX_NOINPUT, "%s: not a spool (ar-queue init makes "
		    "one)", c->qdir);
	for (i = 0; i < sizeof subs / sizeof *subs; i++) {
		char *p = ar_path(c->camp, subs[i]);

		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			ar_die(ar_errno_exit(errno), "%s:", p);
		free(p);
	}
	c->gdir = ar_path(c->camp, "run/gpus");
	c->piddir = ar_path(c->camp, "run/pid");
	c->jobdir = ar_path(c->camp, "run/jobs");
	c->trydir = ar_path(c->camp, "run/tries");
	c->logdir = ar_path(c->camp, "log");
	c->ledgerdir = ar_path(c->camp, "ledger");
}

/* The manifest's limits.time_s twice (dev and holdout sessions) plus 600 s
 * for setup and builds; 3600 s without one. */
static double
default_limit(const struct runctx *c)
{
	struct ar_manifest m;
	char err[512], *dir = ar_path(c->camp, "problem");
	double t = 3600;

	if (ar_manifest_read(&m, dir, err, sizeof err) == 0) {
		if (m.time_s > 0)
			t = 2 * m.time_s + 600;
		ar_manifest_free(&m);
	}
	free(dir);
	return t;
}

/* The options of ar-run's command line, before they go into c. */
struct opts {
	const char *cmd, *copt, *topo, *input;
	long ngpus;
	int cpus, ninv;
};

/* Whether subcommand cmd takes option ch. */
static int
allowed(const char *cmd, int ch)
{
	if (strcmp(cmd, "status") == 0 || strcmp(cmd, "job") == 0)
		return ch == 'C';
	if (strcmp(cmd, "slurm") == 0)
		return ch != 'g' && ch != 'N' && ch != 'U';
	return ch != 'p' && ch != 'A' && ch != 'M';
}

static void
parse_opts(struct runctx *c, struct opts *o, int *argcp, char ***argvp)
{
	static const struct option longopts[] = {
		{ "gpus", required_argument, NULL, 'N' },
		{ "cpus", no_argument, NULL, 'U' },
		{ "drain", no_argument, NULL, 'D' },
		{ "once", no_argument, NULL, 'O' },
		{ "no-array", no_argument, NULL, 'A' },
		{ "array-max", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	int argc = *argcp, ch;
	char **argv = *argvp;

	while ((ch = getopt_long(argc, argv, "+C:g:H:i:j:l:p:qr:t:v",
	    longopts, NULL)) != -1) {
		if (!allowed(o->cmd, ch))
			ar_usage(usage);
		switch (ch) {
		case 'C': o->copt = optarg; break;
		case 'g': o->topo = optarg; o->ninv++; break;
		case 'N': o->ngpus = (long)ar_opt_long("--gpus", optarg, 1,
		    AR_SLOTS_MAX); o->ninv++; break;
		case 'U': o->cpus = 1; o->ninv++; break;
		case 'H': c->holder = optarg; break;
		case 'i': o->input = optarg; break;
		case 'j': c->maxpar = (long)ar_opt_long("-j", optarg, 1, 100000);
			break;
		case 'l': c->lease_s = ar_opt_long("-l", optarg, 3,
		    365LL * 86400); break;
		case 'p': c->partition = optarg; break;
		case 'A': c->array_max = 1; break;
		case 'M': c->array_max = (long)ar_opt_long("--array-max", optarg,
		    1, 100000); break;
		case 'q': c->verbose = 0; break;
		case 'v': c->verbose = 1; break;
		case 'r': c->requeue_max = (long)ar_opt_long("-r", optarg, 0,
		    1000); break;
		case 't': c->tlimit = (double)ar_opt_long("-t", optarg, 1,
		    365LL * 86400); break;
		case 'D':
		case 'O':
			if (c->mode != M_SERVE)
				ar_die(AR_EX_USAGE, "--drain and --once: one "
				    "at most");
			c->mode = ch == 'D' ? M_DRAIN : M_ONCE;
			break;
		default: ar_usage(usage);
		}
	}
	if (c->verbose < 0)
		c->verbose = isatty(2) && !getenv("NO_COLOR");
	if (o->ninv > 1)
		ar_die(AR_EX_USAGE, "-g, --gpus and --cpus: one at most");
	*argcp = argc - optind;
	*argvp = argv + optind;
}

/* ar-bench's arguments: after "--" (ar-run job: after the experiment). */
static void
bench_args(struct runctx *c, const char *cmd, int argc, char **argv)
{
	if (strcmp(cmd, "job") == 0) {
		if (argc < 1 || strcmp(argv[0], "--") == 0)
			ar_usage(usage);
		c->bargs = argv + 1;
		c->nbargs = argc - 1;
		if (c->nbargs && strcmp(c->bargs[0], "--") == 0) {
			c->bargs++;
			c->nbargs--;
		} else if (c->nbargs)
			ar_usage(usage);
		return;
	}
	/* Only what follows "--" goes to ar-bench. */
	if (argc > 0 && strcmp(argv[-1], "--") != 0)
		ar_usage(usage);
	if (argc > 0 && strcmp(cmd, "status") == 0)
		ar_usage(usage);
	c->bargs = argv;
	c->nbargs = argc;
}

/* Who this process is: its holder, host and lease holder. */
static void
identify(struct runctx *c, const char *cmd, char *hbuf, size_t nh)
{
	snprintf(c->host, sizeof c->host, "%s", ar_host_short());
	if (!c->holder && (c->holder = getenv("AR_HOLDER")) && !*c->holder)
		c->holder = NULL;
	if (!c->holder) {
		snprintf(hbuf, nh, "%.80s-%s", c->host, cmd);
		c->holder = hbuf;
	}
	if (!ar_id_valid(c->holder))
		ar_die(AR_EX_USAGE, "holder '%s': expected 1 to %d of "
		    "[A-Za-z0-9._-]", c->holder, AR_ID_MAX);
	c->self_pid = getpid();
	c->self_start = ar_proc_start(c->self_pid);
	snprintf(c->host_short, sizeof c->host_short, "%.24s", c->host);
	snprintf(c->lease_holder, sizeof c->lease_holder, "%.50s.%s.%ld.%llu",
	    c->holder, c->host_short, (long)c->self_pid, c->self_start);
}

static void
free_ctx(struct runctx *c, char *bench)
{
	while (c->nruns)
		run_free(c, c->runs[0]);
	free(c->runs);
	ar_inv_free(&c->inv);
	free(c->qdir);
	free(c->gdir);
	free(c->piddir);
	free(c->jobdir);
	free(c->trydir);
	free(c->logdir);
	free(c->ledgerdir);
	free(bench);
}

int
main(int argc, char **argv)
{
	struct runctx c;
	struct opts o;
	char hbuf[AR_ID_MAX + 1];
	char *sibling = NULL;
	int r;

	memset(&c, 0, sizeof c);
	memset(&o, 0, sizeof o);
	c.mode = M_SERVE;
	c.verbose = -1;
	c.lease_s = 120;
	c.tlimit = -1;
	c.maxpar = -1;
	c.requeue_max = 2;
	c.array_max = 1000;
	ar_std_args(argc, argv, usage);
	o.cmd = ar_subcommand(&argc, &argv, usage);
	if (strcmp(o.cmd, "local") && strcmp(o.cmd, "slurm") &&
	    strcmp(o.cmd, "job") && strcmp(o.cmd, "status"))
		ar_die(AR_EX_USAGE, "%s: unknown subcommand (local, slurm, job "
		    "or status)", o.cmd);
	c.backend = strcmp(o.cmd, "slurm") == 0 ? B_SLURM : B_LOCAL;
	parse_opts(&c, &o, &argc, &argv);
	bench_args(&c, o.cmd, argc, argv);
	identify(&c, o.cmd, hbuf, sizeof hbuf);
	c.camp = ar_campaign_default(o.copt);
	open_campaign(&c);
	if (!(c.self_exe = ar_self_exe()))
		c.self_exe = "ar-run";
	if ((c.bench = getenv("AR_BENCH")) && !*c.bench)
		c.bench = NULL;
	if (!c.bench)
		c.bench = sibling = ar_sibling("ar-bench");
	if (strcmp(o.cmd, "status") == 0) {
		r = cmd_status(&c);
		free_ctx(&c, sibling);
		ar_fshut(stdout, "<stdout>");
		return r;
	}
	if (!ar_runnable(c.bench))
		ar_die(AR_EX_UNAVAILABLE, "%s: not found or not executable "
		    "(AR_BENCH names the benchmark)", c.bench);
	if (c.backend == B_SLURM && !ar_runnable(prog_env("SBATCH", "sbatch")))
		ar_die(AR_EX_UNAVAILABLE, "%s: not found (install Slurm, or "
		    "SBATCH names it)", prog_env("SBATCH", "sbatch"));
	if (strcmp(o.cmd, "job") == 0) {
		r = cmd_job(&c, argv[0]);
		free_ctx(&c, sibling);
		return r;
	}
	if (c.backend == B_LOCAL) {
		inv_load(&c, o.topo, o.ngpus, o.cpus);
		if (c.maxpar < 0)
			c.maxpar = (long)inv_slots(&c);
	} else if (c.maxpar < 0)
		c.maxpar = 100;
	if (c.tlimit < 0 && c.backend == B_LOCAL)
		c.tlimit = default_limit(&c);
	if (o.input)
		put_input(&c, o.input);
	r = serve(&c);
	free_ctx(&c, sibling);
	ar_fshut(stdout, "<stdout>");
	return r;
}
