/* roofline.c: ar-bench --roofline. Measures what the machine can do
 * (memory bandwidth, GEMM rates, all-reduce bus bandwidth) on a bundle of
 * GPUs or CPUs with one rank each (dev/roofline runs the ops; the ranks
 * are ar-bench --rank, rank.c), signs the record with the campaign's key,
 * prints it, and keeps it as the machine profile that exec results are
 * set against. --aa measures the noise of a copy instead, and keeps
 * nothing. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "err.h"
#include "host.h"
#include "id.h"
#include "io.h"
#include "json.h"
#include "proc.h"
#include "timefmt.h"
#include "ranks.h"
#include "roofline.h"
#include "bench.h"

int
roofline_main(struct bench *b, const struct opts *opt)
{
	struct ar_roofline_opts o = {0};
	char host[256], started[40], fin[40], *keypath, *s;
	int ord[AR_RANKS_MAX], quiet = opt->quiet;
	const char *dev, *exe;
	json_t *rec;
	long i, nr;

	ar_time_now(started, sizeof started);
	ar_crypto_init();
	keypath = open_campaign(b, opt->dir);
	dev = pick_device(b, opt->device, b->ngpu > 0);
	/* The ranks: one per GPU of -G, or one per CPU; a CPU bundle larger
	 * than the CPUs here shares them, and says so. */
	nr = b->ngpu ? (long)b->ngpu : opt->k;
	if (nr > AR_RANKS_MAX)
		ar_die(AR_EX_USAGE, "%ld ranks: at most %d", nr, AR_RANKS_MAX);
	if (strcmp(dev, "cuda") == 0) {
		for (i = 0; i < nr; i++)
			ord[i] = cuda_ordinal(b->gpu[i]);
	} else {
		cpu_set_t set;
		int cpus[1024] = {0}, nc = 0, c;

		if (sched_getaffinity(0, sizeof set, &set) < 0)
			ar_die(AR_EX_SOFTWARE, "sched_getaffinity:");
		for (c = 0; c < CPU_SETSIZE && nc < 1024; c++)
			if (CPU_ISSET(c, &set))
				cpus[nc++] = c;
		if (nr > nc && !quiet)
			ar_warn("%ld ranks on %d CPUs: ranks share CPUs, so the "
			    "figures are the CPUs', not %ld", nr, nc, nr);
		for (i = 0; i < nr; i++)
			ord[i] = nc ? cpus[i % nc] : 0;
	}
	if (!(exe = ar_self_exe()))
		ar_die(AR_EX_SOFTWARE, "/proc/self/exe:");
	start_session(b);
	o.exe = exe;
	o.device = dev;
	o.k = (int)nr;
	o.ordinal = ord;
	o.scratch = b->session;
	o.aa = b->aa;
	o.samples = (int)(opt->pmax > 0 ? opt->pmax : b->aa ? 30 : 20);
	o.warmup = (int)(opt->warm >= 0 ? opt->warm : b->aa ? 2 : 3);
	o.target_ms = 10;
	o.progress = !quiet && (opt->verbose || (isatty(2) &&
	    !getenv("NO_COLOR")));
	rec = ar_roofline_run(&o);
	if (!rec)
		ar_die(AR_EX_SOFTWARE, "cannot build the roofline record");
	check_interrupt();
	snprintf(host, sizeof host, "%s", ar_host());
	ar_time_now(fin, sizeof fin);
	{
		char id[AR_IDLEN];

		ar_id_new(id);
		json_object_set_new(rec, "id", json_string(id));
	}
	json_object_set_new(rec, "campaign", json_string(b->camp.id));
	json_object_set_new(rec, "node", json_string(host));
	json_object_set_new(rec, "build", json_string(ar_build_id()));
	json_object_set_new(rec, "started", json_string(started));
	json_object_set_new(rec, "finished", json_string(fin));
	ar_json_sign(rec, b->sk);
	s = ar_json_canon(rec);
	/* Only a whole profile replaces the last one; an A/A is no profile. */
	if (!b->aa && strcmp(json_string_value(json_object_get(rec,
	    "verdict")), "ok") == 0) {
		char *dir = ar_path(b->camp.dir, "machine");
		char *path = ar_profile_path(b->camp.dir, host, dev, nr);
		char *line = ar_xasprintf("%s\n", s);

		if (ar_mkdirs(dir, 0755) < 0)
			ar_die(ar_errno_exit(errno), "%s:", dir);
		if (ar_write_atomic(path, line, strlen(line), 0644) < 0)
			ar_die(ar_errno_exit(errno), "%s:", path);
		if (!quiet)
			ar_warn("machine profile: %s", path);
		free(line);
		free(path);
		free(dir);
	}
	cleanup(b);
	free(b->session);
	b->session = NULL;
	puts(s);
	ar_fshut(stdout, "<stdout>");
	free(s);
	free(keypath);
	json_decref(rec);
	bench_free(b);
	return AR_EX_OK;
}

