/* rank.c: ar-bench --rank, one rank of a bundle: it opens one device
 * (a GPU or a CPU) and runs its ops on command from ar-bench, one line
 * in, one line out, so that ar-bench owns the clock. dev/ranks is the
 * parent's side and holds the protocol (ranks.h); dev/dev.h the ops. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <jansson.h>

#include "dev.h"
#include "ranks.h"
#include "bench.h"

/* Answers one command on stdout. */
static void
answer(const char *fmt, ...)
{
	char line[AR_RANK_LINE];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	/* One line per answer, whatever the error text holds. */
	for (i = 0; line[i]; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	fputs(line, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

static int
op_of(const char *s)
{
	int i;

	for (i = 0; i < AR_OP_N; i++)
		if (strcmp(s, ar_dev_op_name[i]) == 0)
			return i;
	return -1;
}

/* Reads commands on stdin until "close" or the end, answers on stdout. */
int
rank_main(void)
{
	const struct ar_dev_ops *d = NULL;
	char line[AR_RANK_LINE], why[700];
	pid_t parent = getppid();

	/* A rank outlives nothing: not ar-bench, not a kill -9 of it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return 1;
	signal(SIGPIPE, SIG_DFL);
	while (fgets(line, sizeof line, stdin)) {
		char cmd[32] = "", a[300] = "", b[64] = "", c[64] = "",
		    e[64] = "", f[600] = "";
		int na, op = -1, rc;

		line[strcspn(line, "\n")] = 0;
		why[0] = 0;
		na = sscanf(line, "%31s %299s %63s %63s %63s %599s", cmd, a, b,
		    c, e, f);
		if (na >= 2)
			op = op_of(a);
		if (strcmp(cmd, "open") == 0 && na >= 5) {
			struct ar_dev_info info;
			json_t *o;
			char *s;

			d = strcmp(a, "cuda") == 0 ? &ar_cuda_ops :
			    strcmp(a, "cpu") == 0 ? &ar_cpu_ops : NULL;
			if (!d) {
				answer("err %s: no such device", a);
				continue;
			}
			memset(&info, 0, sizeof info);
			if (d->open(atoi(b), atoi(c), atoi(e), na >= 6 &&
			    strcmp(f, "-") ? f : "", &info, why, sizeof why) < 0) {
				answer("err %s", why);
				d = NULL;
				continue;
			}
			o = json_pack("{s:s, s:i, s:i, s:f, s:I, s:I, s:b}",
			    "name", info.name, "ordinal", info.ordinal, "cc",
			    info.cc, "clock_mhz", info.clock_mhz, "cache_bytes",
			    (json_int_t)info.cache_bytes, "mem_bytes",
			    (json_int_t)info.mem_bytes, "fp8", info.fp8);
			s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
			answer("ok %s", s ? s : "{}");
			free(s);
			json_decref(o);
			continue;
		}
		if (strcmp(cmd, "close") == 0) {
			if (d)
				d->close();
			answer("ok");
			return 0;
		}
		if (!d) {
			answer("err %s: no device open", cmd);
			continue;
		}
		if (strcmp(cmd, "release") == 0) {
			d->release();
			answer("ok");
			continue;
		}
		if (op < 0) {
			answer("err %s: bad command", line);
			continue;
		}
		if (strcmp(cmd, "prepare") == 0 && na >= 4) {
			rc = d->prepare((enum ar_op)op, strtoull(b, NULL, 10),
			    atoi(c), why, sizeof why);
			if (rc == 1)
				answer("skip %s", why);
			else if (rc < 0)
				answer("err %s", why);
			else
				answer("ok");
		} else if (strcmp(cmd, "flush") == 0) {
			if (d->flush((enum ar_op)op, why, sizeof why) < 0)
				answer("err %s", why);
			else
				answer("ok");
		} else if (strcmp(cmd, "run") == 0) {
			struct ar_dev_timing t = {0};

			if (d->run((enum ar_op)op, &t, why, sizeof why) < 0)
				answer("err %s", why);
			else
				answer("ok %.9g %.9g", t.dev_s, t.cpu_s);
		} else if (strcmp(cmd, "post") == 0) {
			struct ar_dev_post p = {0};

			if (d->post((enum ar_op)op, &p, why, sizeof why) < 0)
				answer("err %s", why);
			else
				answer("ok %.6g %.6g %ld %d", p.clock_mhz, p.err,
				    p.checked, p.ok);
		} else
			answer("err %s: bad command", line);
	}
	if (d)
		d->close();
	return 0;
}
