/* ar-digest: what a planner needs from a whole campaign, in one read of
 * the ledger export: the best so far, the leaderboard, near-misses,
 * failures, the noise floor, what to measure next and which phase the
 * data calls for; the health of the ideas and queue spools; or the
 * digest of a karpathy/autoresearch or pi-autoresearch log alone;
 * Markdown within a token budget, JSON, an SVG staircase or one HTML
 * page. ar-digest(1) is the contract. This file reads the command line
 * and runs the steps in order; digest.h lists the other files. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "json.h"
#include "digest.h"

static const char usage[] =
	"[-f md|json] [-b budget] [-C campaign] [-l ledger.tsv] "
	"[-c curves.jsonl] [-i ideas] [-q queue] [-F autoresearch|pi file] "
	"[-m metric] [-d lower|higher] [--svg file] [--html file]";

static int
cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return strcmp(x->idp, y->idp);
}

static void
free_digest(struct digest *dg)
{
	struct results *D = &dg->D;
	size_t i, j;

	for (i = 0; i < dg->nsect; i++) {
		for (j = 0; j < dg->S[i].nrow * dg->S[i].ncol; j++)
			free(dg->S[i].cell[j]);
		free(dg->S[i].cell);
	}
	for (i = 0; i < D->mcap; i++) {
		free(D->m[i].hash);
		free(D->m[i].label);
		free(D->m[i].wl);
		free(D->m[i].kp);
	}
	free(D->m);
	free(dg->idea);
	free(D->rsd);
	free(D->pt);
	json_decref(dg->curves);
	ar_buf_free(&D->ids);
	for (i = 0; i < dg->cat.n; i++)
		free(dg->cat.a[i].key);
	free(dg->cat.a);
	for (i = 0; i < dg->src.n; i++)
		free(dg->src.a[i].key);
	free(dg->src.a);
	ar_hmap_free(&dg->cat.ix);
	ar_hmap_free(&dg->src.ix);
	ar_import_free(&dg->G.imp);
	free(dg->st.fin);
	free(dg->st.ist);
	free(dg->st.itime);
	free(dg->st.busy);
	if (dg->GL.on) {
		ar_manifest_free(&dg->GL.m);
		ar_campaign_free(&dg->GL.c);
		free(dg->GL.bv);
	}
	free(dg);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "svg", required_argument, NULL, 'S' },
		{ "html", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmt = "md", *ledger = NULL, *curves = NULL, *svgp = NULL;
	const char *htmlp = NULL, *ideas = NULL, *queue = NULL, *logp = NULL;
	const char *campaign = NULL, *from = NULL;
	struct ar_import_opt io = { NULL, -1 };
	struct digest *dg = ar_xcalloc(1, sizeof *dg);
	struct results *D = &dg->D;
	long long budget = 4000;
	FILE *f;
	size_t i;
	int c;

	ar_setprog(argv[0]);
	ar_std_args(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "b:c:C:d:f:F:i:l:m:q:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (ar_parse_long(optarg, &budget) < 0 || budget < 1 ||
			    budget > 100000000)
				ar_die(AR_EX_USAGE, "-b %s: not a number of tokens "
				    "from 1 to 100000000", optarg);
			break;
		case 'c': curves = optarg; break;
		case 'C': campaign = optarg; break;
		case 'f': fmt = optarg; break;
		case 'F':
			if (strcmp(optarg, "autoresearch") &&
			    strcmp(optarg, "pi"))
				ar_die(AR_EX_USAGE, "-F %s: expected autoresearch "
				    "or pi", optarg);
			/* The log's file is the next argument. */
			if (optind >= argc)
				ar_usage(usage);
			from = optarg;
			logp = argv[optind++];
			break;
		case 'd':
			if (strcmp(optarg, "lower") && strcmp(optarg, "higher"))
				ar_die(AR_EX_USAGE, "-d %s: expected lower or "
				    "higher", optarg);
			io.lower = strcmp(optarg, "lower") == 0;
			break;
		case 'm':
			if (!*optarg)
				ar_die(AR_EX_USAGE, "-m: an empty metric name");
			io.metric = optarg;
			break;
		case 'i': ideas = optarg; break;
		case 'q': queue = optarg; break;
		case 'l': ledger = optarg; break;
		case 'S': svgp = optarg; break;
		case 'H': htmlp = optarg; break;
		default: ar_usage(usage);
		}
	}
	if (optind < argc)
		ar_usage(usage);
	if (strcmp(fmt, "md") && strcmp(fmt, "json"))
		ar_die(AR_EX_USAGE, "-f %s: the formats are md and json", fmt);
	if (curves && strcmp(curves, "-") == 0 && (!ledger ||
	    strcmp(ledger, "-") == 0))
		ar_die(AR_EX_USAGE, "-c -: standard input is the ledger's");
	/* -m and -d choose a results.tsv's metric, as ar-ledger import's
	 * do: a pi log's config lines name its own. */
	if ((io.metric || io.lower >= 0) && (!from || strcmp(from, "pi") == 0))
		ar_die(AR_EX_USAGE, "-m and -d choose the metric of a results.tsv "
		    "(-F autoresearch); a pi log's config lines name its own");
	if (logp && (ledger || curves))
		ar_die(AR_EX_USAGE, "-F: a log is digested alone, without -l "
		    "or -c");
	D->want_points = svgp || htmlp;
	if (campaign)
		read_goal(dg, campaign);
	/* The ideas' titles first: results name their ideas by them. */
	if (ideas)
		read_ideas(dg, ideas);
	if (logp) {
		read_log(dg, from, logp, &io);
		build_log(dg);
	} else if (ledger || (!ideas && !queue)) {
		if (!ledger || strcmp(ledger, "-") == 0) {
			read_ledger(dg, stdin, "<stdin>");
		} else {
			if (!(f = fopen(ledger, "r")))
				ar_die(errno == ENOENT || errno == EACCES ?
				    AR_EX_NOINPUT : AR_EX_IO, "%s:", ledger);
			read_ledger(dg, f, ledger);
			fclose(f);
		}
		build(dg, curves);
	}
	if (ideas || queue)
		build_spools(dg, ideas, queue);
	if (strcmp(fmt, "json") == 0)
		json_out(dg);
	else
		md(dg, (size_t)budget * 4);
	if (D->want_points) {
		/* The arena is complete: the ids can be pointed to. */
		for (i = 0; i < D->npt; i++)
			D->pt[i].idp = D->ids.p + D->pt[i].id;
		ar_sort(D->pt, D->npt, sizeof *D->pt, cmp_point);
	}
	if (svgp) {
		char *tmp;

		f = out_open(svgp, &tmp);
		if (logp)
			staircase_log(&dg->G, f, 1);
		else
			staircase(D, f, 1);
		out_close(f, svgp, tmp);
	}
	if (htmlp)
		html(dg, htmlp);
	ar_fshut(stdout, "<stdout>");
	free_digest(dg);
	return AR_EX_OK;
}
