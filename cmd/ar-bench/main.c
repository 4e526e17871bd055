/* ar-bench: the sealed benchmark. main.c reads the command line, checks
 * it, and hands over to one of the four programs of this binary: the exec
 * benchmark (exec.c), --roofline (roofline.c), and the servers ar-bench
 * starts of itself, --runner (runner.c) and --rank (rank.c). ar-bench(1)
 * is the contract. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "id.h"
#include "json.h"
#include "ranks.h"
#include "runner.h"
#include "bench.h"

static const char usage[] =
	"[-aKqv] [-C campaign] [-m method] [-w workload] [-k cpus] [-G gpu-ids] "
	"[-S dev|holdout|both] [-T seconds] [-p min-pairs] [-P max-pairs] "
	"[-e min-effect] [-W warmup] [-t run-timeout] [-x experiment] [-i idea] "
	"[--sched-pairs min,max] [--stop-at ratio [--stop-prior lo,hi]] [--aa] [--no-sandbox] [--device auto|cuda|cpu]\n"
	"--roofline [--aa] [-q] [-C campaign] [-k cpus] "
	"[-G gpu-ids] [-P samples] [-W warmup] [--device auto|cuda|cpu]\n"
	"--check [-qv] [-C campaign] [-m method] [-w workload] [-k cpus] [-G gpu-ids] [-t run-timeout] [--no-sandbox] [--device auto|cuda|cpu]";

/* -G 0,1,2,3: the GPUs a bundle may use, given to the stages as
 * CUDA_VISIBLE_DEVICES. */
static void
parse_gpus(struct bench *b, const char *s)
{
	const char *p = s;
	char *end = (char *)s;
	size_t i, len = 0;

	while (*p) {
		long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;

		if (v < 0 || v > 1023 || (*end && *end != ',') ||
		    (*end == ',' && !end[1]) ||
		    b->ngpu == sizeof b->gpu / sizeof *b->gpu)
			ar_die(AR_EX_USAGE, "-G %s: not a list of GPU ids like "
			    "0,1,2,3", s);
		for (i = 0; i < b->ngpu; i++)
			if (b->gpu[i] == v)
				ar_die(AR_EX_USAGE, "-G %s: GPU %ld given twice", s,
				    v);
		b->gpu[b->ngpu++] = v;
		p = *end ? end + 1 : end;
	}
	if (!b->ngpu)
		ar_die(AR_EX_USAGE, "-G: no GPU ids");
	/* The stages get the ids as parsed, not as typed. */
	for (i = 0; i < b->ngpu; i++)
		len += (size_t)snprintf(b->gpulist + len, sizeof b->gpulist - len,
		    "%s%ld", i ? "," : "", b->gpu[i]);
	b->gpus = b->gpulist;
}

/* An option's "a,b": a, to be freed, and *b after the comma; without a
 * comma the option is refused, saying what it wants. */
static char *
comma_pair(const char *opt, const char *s, const char *want,
    const char **b)
{
	const char *c = strchr(s, ',');

	if (!c)
		ar_die(AR_EX_USAGE, "%s %s: expected %s", opt, s, want);
	*b = c + 1;
	return ar_xasprintf("%.*s", (int)(c - s), s);
}

/* --sched-pairs min,max: whole numbers, 1 <= min <= max <= 1000000. */
static void
sched_pairs(const char *s, long *lo, long *hi)
{
	long long a, b;
	const char *second;
	char *first = comma_pair("--sched-pairs", s, "min,max", &second);
	int ok;

	ok = ar_parse_long(first, &a) == 0 && ar_parse_long(second, &b) == 0 &&
	    a >= 1 && b >= a && b <= 1000000;
	free(first);
	if (!ok)
		ar_die(AR_EX_USAGE, "--sched-pairs %s: expected min,max, whole "
		    "numbers with 1 <= min <= max <= 1000000", s);
	*lo = (long)a;
	*hi = (long)b;
}

/* --stop-prior lo,hi: an interval of ratios, 0 < lo < hi. */
static void
stop_prior(const char *s, double *lo, double *hi)
{
	const char *second;
	char *first = comma_pair("--stop-prior", s, "lo,hi", &second);
	int ok;

	ok = ar_parse_double(first, lo) == 0 && ar_parse_double(second, hi) ==
	    0 && *lo >= 1e-6 && *hi > *lo && *hi <= 1e6;
	free(first);
	if (!ok)
		ar_die(AR_EX_USAGE, "--stop-prior %s: expected lo,hi, ratios "
		    "with 1e-06 <= lo < hi <= 1e+06", s);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "aa", no_argument, NULL, 'A' },
		{ "no-sandbox", no_argument, NULL, 'N' },
		{ "roofline", no_argument, NULL, 'R' },
		{ "device", required_argument, NULL, 'D' },
		{ "stop-at", required_argument, NULL, 'Z' },
		{ "stop-prior", required_argument, NULL, 'z' },
		{ "sched-pairs", required_argument, NULL, 'Y' },
		{ "check", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = {
		.seeds = "dev", .device = "auto", .T = -1, .e = -1, .rt = -1,
		.pmin = -1, .pmax = -1, .warm = -1, .k = 1, .spmin = -1,
		.spmax = -1,
	};
	struct bench b;
	int c, roofline = 0, kset = 0, nosandbox = 0;
	/* The first option given that only the exec benchmark takes. */
	int exec_only = 0;

	if (argc >= 3 && strcmp(argv[1], AR_RUNNER_ARG) == 0)
		return runner_main(strcmp(argv[2], AR_RUNNER_SANDBOX) == 0);
	if (argc == 2 && strcmp(argv[1], AR_RANK_ARG) == 0) {
		ar_setprog(argv[0]);
		return rank_main();
	}
	ar_setprog(argv[0]);
	ar_std_args(argc, argv, usage);
	bench_init(&b);
	while ((c = getopt_long(argc, argv, "aC:e:G:i:k:Km:p:P:qS:t:T:vw:W:x:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'a': o.append = 1; exec_only = exec_only ? exec_only : 'a'; break;
		case 'A': b.aa = 1; break;
		case 'c': o.check = 1; break;
		case 'C': o.dir = optarg; break;
		case 'e': o.e = ar_opt_double("-e", optarg, 0, 0.99); exec_only = exec_only ? exec_only : 'e'; break;
		case 'G': b.gpus = optarg; break;
		case 'i': o.idea = optarg; exec_only = exec_only ? exec_only : 'i'; break;
		case 'k': o.k = ar_opt_long("-k", optarg, 1, 1024); kset = 1; break;
		case 'R': roofline = 1; break;
		case 'D': o.device = optarg; break;
		case 'Y': sched_pairs(optarg, &o.spmin, &o.spmax); exec_only = exec_only ? exec_only : 'Y'; break;
		case 'Z': b.stop_at = ar_opt_double("--stop-at", optarg, 1e-6, 1e6); exec_only = exec_only ? exec_only : 'Z'; break;
		case 'z': stop_prior(optarg, &b.prior_lo, &b.prior_hi); exec_only = exec_only ? exec_only : 'z'; break;
		case 'K': b.keep = 1; exec_only = exec_only ? exec_only : 'K'; break;
		case 'm': o.spec = optarg; exec_only = exec_only ? exec_only : 'm'; break;
		case 'N': nosandbox = 1; exec_only = exec_only ? exec_only : 'N'; break;
		case 'p': o.pmin = ar_opt_long("-p", optarg, 1, 1000000); exec_only = exec_only ? exec_only : 'p'; break;
		case 'P': o.pmax = ar_opt_long("-P", optarg, 1, 1000000); break;
		case 'q': o.quiet = 1; break;
		case 'S': o.seeds = optarg; exec_only = exec_only ? exec_only : 'S'; break;
		case 't': o.rt = ar_opt_double("-t", optarg, 0.001, 1e9); exec_only = exec_only ? exec_only : 't'; break;
		case 'T': o.T = ar_opt_double("-T", optarg, 0.001, 1e9); exec_only = exec_only ? exec_only : 'T'; break;
		case 'v': o.verbose = 1; break;
		case 'w': o.wname = optarg; exec_only = exec_only ? exec_only : 'w'; break;
		case 'W': o.warm = ar_opt_long("-W", optarg, 0, 1000000); break;
		case 'x': o.experiment = optarg; exec_only = exec_only ? exec_only : 'x'; break;
		default: ar_usage(usage);
		}
	}
	if (optind != argc)
		ar_usage(usage);
	if (!roofline && b.prior_lo > 0 && !(b.stop_at > 0))
		ar_die(AR_EX_USAGE, "--stop-prior: only with --stop-at, whose "
		    "question it helps answer");
	if (strcmp(o.device, "auto") && strcmp(o.device, "cuda") &&
	    strcmp(o.device, "cpu"))
		ar_die(AR_EX_USAGE, "--device %s: auto, cuda or cpu", o.device);
	if (roofline) {
		if (exec_only == 'N')
			ar_die(AR_EX_USAGE, "--roofline: --no-sandbox is for exec "
			    "problems; the roofline runs no method");
		if (exec_only == 'Z' || exec_only == 'Y' || exec_only == 'z')
			ar_die(AR_EX_USAGE, "--roofline: --%s is for exec "
			    "problems", exec_only == 'Z' ? "stop-at" :
			    exec_only == 'z' ? "stop-prior" : "sched-pairs");
		if (exec_only)
			ar_die(AR_EX_USAGE, "--roofline: -%c is for exec problems",
			    exec_only);
		if (b.gpus)
			parse_gpus(&b, b.gpus);
		if (b.gpus && kset)
			ar_die(AR_EX_USAGE, "--roofline: -k and -G: a bundle is "
			    "CPUs or GPUs, not both");
		if (!b.gpus && strcmp(o.device, "cuda") == 0)
			ar_die(AR_EX_USAGE, "--device cuda: give the GPUs with -G");
		return roofline_main(&b, &o);
	}
	if (o.check) {
		/* The self-check an agent runs in its worktree: one pair on
		 * the dev seeds, nothing signed, stored or counted. Only the
		 * options that say what to build and where go with it. */
		if (b.aa || o.append || roofline || o.idea || o.experiment ||
		    b.stop_at > 0 || b.prior_lo > 0 || o.spmin > 0 || strcmp(o.seeds, "dev") ||
		    o.pmin > 0 || o.pmax > 0 || o.warm >= 0 || o.T > 0 ||
		    o.e >= 0 || b.keep)
			ar_die(AR_EX_USAGE, "--check takes only -C, -m, -w, -k, "
			    "-G, -t, -q, -v, --device and --no-sandbox");
		if (!o.spec)
			o.spec = ".";
		if (!o.wname)
			o.wname = getenv("AR_WORKLOAD") && *getenv("AR_WORKLOAD") ?
			    getenv("AR_WORKLOAD") : NULL;
		o.pmin = o.pmax = 1;
		o.warm = 0;
		b.check = 1;
		/* Inside ar-agent's sandbox, which holds the agent and so the
		 * method already, a sandbox of its own cannot be made (no
		 * /proc can be mounted there): the stages run in the agent's.
		 * Only --check, which signs and stores nothing, reads it. */
		if (getenv("AR_AGENT_SANDBOX") &&
		    strcmp(getenv("AR_AGENT_SANDBOX"), "1") == 0)
			nosandbox = 1;
	}
	if (!o.spec && !b.aa)
		ar_die(AR_EX_USAGE, "no method: give -m commit-or-directory, "
		    "or --aa to measure the baseline against itself");
	if (o.spec && b.aa)
		ar_die(AR_EX_USAGE, "--aa measures the baseline against itself; "
		    "it takes no -m");
	if (strcmp(o.seeds, "dev") && strcmp(o.seeds, "holdout") &&
	    strcmp(o.seeds, "both"))
		ar_die(AR_EX_USAGE, "-S %s: seeds are dev, holdout or both",
		    o.seeds);
	if (o.experiment && !ar_id_valid(o.experiment))
		ar_die(AR_EX_USAGE, "-x %s: not an id ([A-Za-z0-9._-], at most "
		    "%d)", o.experiment, AR_ID_MAX);
	if (o.idea && !ar_id_valid(o.idea))
		ar_die(AR_EX_USAGE, "-i %s: not an id ([A-Za-z0-9._-], at most "
		    "%d)", o.idea, AR_ID_MAX);
	b.sandbox = !nosandbox;
	if (b.gpus)
		parse_gpus(&b, b.gpus);
	if (!b.gpus && strcmp(o.device, "cuda") == 0)
		ar_die(AR_EX_USAGE, "--device cuda: give the GPUs with -G");
	return exec_main(&b, &o);
}
