/* ar-ledger: the result store of a campaign: append signed results, verify
 * every row, export them for pipes, import the logs of autoresearch and
 * pi-autoresearch (marked unsigned), compact loose results into segments.
 * This file reads the command line, opens the campaign and hands over to
 * the subcommand; ar-ledger.h lists the other files and their jobs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "err.h"
#include "io.h"
#include "json.h"
#include "ar-ledger.h"

static const char usage[] =
	"append [-C campaign] [file ...]\n"
	"verify [-C campaign] [-F] [-s] [-k fingerprint]\n"
	"export [-C campaign] [-f tsv|jsonl|autoresearch] [-m metric] [-w workload] [-u] [-V] [-k fingerprint] [-A segment] [-c columns] [-K known]\n"
	"import [-C campaign] -F autoresearch|pi [-m metric] [-d lower|higher] file\n"
	"compact [-C campaign] [-B]";

/* lazy: the segments' indexes are read only if the command needs them
 * (an export past the last segment, with no loose result, reads none). */
static void
open_all(struct lctx *cx, const char *dir, int lazy)
{
	char err[1024], *p;

	ar_campaign_open(&cx->camp, dir);
	p = ar_path(dir, "ledger");
	if ((lazy ? ar_ledger_open_lazy(&cx->led, p, err, sizeof err) :
	    ar_ledger_open(&cx->led, p, 0, err, sizeof err)) < 0)
		ar_die(AR_EX_NOINPUT, "%s", err);
	free(p);
}

/* The campaign's key against the pin (-k, else AR_KEY_FINGERPRINT):
 * rows that verify under a replaced key prove nothing. */
static void
check_pin(const struct lctx *cx, const char *pin)
{
	char err[600];
	int r = ar_campaign_pinned(&cx->camp, pin, err, sizeof err);

	if (r == -2)
		ar_die(AR_EX_USAGE, "%s", err);
	if (r < 0)
		ar_die(AR_EX_NO, "%s", err);
}

static int
cmd_compact(struct lctx *cx, int break_lock)
{
	char err[1024];
	size_t merged;

	if (ar_ledger_compact(&cx->led, break_lock, &merged, err,
	    sizeof err) < 0)
		ar_die(errno == EAGAIN ? AR_EX_TEMPFAIL : ar_errno_exit(errno),
		    "%s", err);
	ar_warn("%zu results merged into segments", merged);
	if (merged)
		ledger_fold(cx, "compact");
	return AR_EX_OK;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'F' },
		{ "verify", no_argument, NULL, 'V' },
		{ "break-lock", no_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const subs[] = { "append", "verify", "export",
		"import", "compact", NULL };
	struct lctx cx;
	const char *cmd, *dir = NULL, *from = NULL, *pin = NULL, *metric = NULL;
	const char *workload = NULL, *only = NULL, *known = NULL;
	int c, r, fmt = F_TSV, with_unsigned = 0, verify = 0, brk = 0, strict = 0;
	int lower = -1;
	int is_verify, full = 0;
	long after = -1;

	ar_std_args(argc, argv, usage);
	ar_crypto_init();
	arena_install();
	json_object_seed(0);
	cmd = ar_subcommand(&argc, &argv, usage);
	/* Named, as ar-campaign and ar-run name theirs; not only the usage. */
	for (c = 0; subs[c] && strcmp(cmd, subs[c]) != 0; c++)
		;
	if (!subs[c]) {
		ar_warn("%s: unknown subcommand (append, verify, "
		    "export, import or compact)", cmd);
		ar_usage(usage);
	}
	/* -F is verify's "full", and import's format (--from). */
	is_verify = strcmp(cmd, "verify") == 0;
	while ((c = getopt_long(argc, argv, is_verify ? "A:BC:f:Fk:suV" :
	    "A:BC:c:d:f:F:k:K:m:suVw:", longopts, NULL)) != -1) {
		switch (c) {
		case 'A':
			after = (long)ar_opt_long("-A", optarg, 0, 99999999);
			break;
		case 'c': only = optarg; break;
		case 's': strict = 1; break;
		case 'B': brk = 1; break;
		case 'C': dir = optarg; break;
		case 'd':
			if (strcmp(optarg, "lower") && strcmp(optarg, "higher"))
				ar_die(AR_EX_USAGE, "-d %s: expected lower or "
				    "higher", optarg);
			lower = strcmp(optarg, "lower") == 0;
			break;
		case 'm':
			if (!*optarg)
				ar_die(AR_EX_USAGE, "-m: an empty metric name");
			metric = optarg;
			break;
		case 'w':
			workload = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "tsv") == 0)
				fmt = F_TSV;
			else if (strcmp(optarg, "jsonl") == 0)
				fmt = F_JSONL;
			else if (strcmp(optarg, "autoresearch") == 0)
				fmt = F_AUTORESEARCH;
			else
				ar_die(AR_EX_USAGE, "-f %s: expected tsv, jsonl "
				    "or autoresearch", optarg);
			break;
		case 'F':
			if (is_verify)
				full = 1;
			else
				from = optarg;
			break;
		case 'k': pin = optarg; break;
		case 'K': known = optarg; break;
		case 'u': with_unsigned = 1; break;
		case 'V': verify = 1; break;
		default: ar_usage(usage);
		}
	}
	argc -= optind;
	argv += optind;
	dir = ar_campaign_default(dir);
	if (pin && strcmp(cmd, "verify") && strcmp(cmd, "export"))
		ar_usage(usage);
	if (after >= 0 && (strcmp(cmd, "export") || fmt == F_AUTORESEARCH))
		ar_usage(usage);
	/* -c picks TSV columns: the other formats have their own. */
	if (only && (strcmp(cmd, "export") || fmt != F_TSV))
		ar_usage(usage);
	/* -K marks rows in TSV, whose reader holds their columns. */
	if (known && (strcmp(cmd, "export") || fmt != F_TSV))
		ar_usage(usage);
	/* -m and -d choose a results.tsv's metric: a pi log's config lines
	 * name its own. */
	if ((metric || lower >= 0) && !(strcmp(cmd, "import") == 0 ||
	    (strcmp(cmd, "export") == 0 && fmt == F_AUTORESEARCH && lower < 0)))
		ar_usage(usage);
	/* -w picks one workload's rows for a results.tsv: a session of a
	 * pi log, whose metric another session may share. */
	if (workload && !(strcmp(cmd, "export") == 0 && fmt == F_AUTORESEARCH))
		ar_usage(usage);
	if ((metric || lower >= 0) && from && strcmp(from, "pi") == 0)
		ar_die(AR_EX_USAGE, "-m and -d choose a results.tsv's metric; "
		    "a pi log's config lines name its own");
	/* The commands that store: a bad AR_LEDGER_COMPACT is said before
	 * anything is stored (the library would keep its default). */
	if (strcmp(cmd, "append") == 0 || strcmp(cmd, "import") == 0) {
		const char *e = getenv("AR_LEDGER_COMPACT");

		if (e && (!*e || strspn(e, "0123456789") != strlen(e) ||
		    strlen(e) > 9))
			ar_die(AR_EX_USAGE, "AR_LEDGER_COMPACT=%s: not a count "
			    "of loose results (0 to 999999999)", e);
	}
	memset(&cx, 0, sizeof cx);
	if (strcmp(cmd, "append") == 0) {
		open_all(&cx, dir, 0);
		r = cmd_append(&cx, argc, argv);
	} else if (strcmp(cmd, "verify") == 0 && argc == 0) {
		open_all(&cx, dir, 0);
		check_pin(&cx, pin);
		r = cmd_verify(&cx, strict, full);
	} else if (strcmp(cmd, "export") == 0 && argc == 0) {
		open_all(&cx, dir, 1);
		if (verify || pin)
			check_pin(&cx, pin);
		r = cmd_export(&cx, fmt, with_unsigned, verify, after, metric,
		    workload, only, known);
	} else if (strcmp(cmd, "import") == 0 && argc == 1 && from) {
		open_all(&cx, dir, 0);
		r = cmd_import(&cx, from, argv[0], metric, lower);
	} else if (strcmp(cmd, "compact") == 0 && argc == 0) {
		open_all(&cx, dir, 0);
		r = cmd_compact(&cx, brk);
	} else
		ar_usage(usage);
	ar_ledger_close(&cx.led);
	ar_campaign_free(&cx.camp);
	free(cx.mc);
	ar_fshut(stdout, "<stdout>");
	return r;
}
