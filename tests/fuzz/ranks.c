/* ranks.c: the rank protocol's answers as ar-bench reads them
 * (dev/ranks): the input is what a rank writes on its pipe, in any
 * pieces, then the rank is gone. ar_ranks_wait takes one answer per
 * call; each is ok (its rest in reply[], without a newline, shorter
 * than AR_RANK_LINE), skip or an error with a reason, and the end of
 * the pipe is an error naming the rank. */
#include <fcntl.h>
#include <signal.h>

#include "fuzz.h"
#include "ranks.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static struct ar_ranks g;
	char why[512];
	int p[2], r, calls;

	if (n > 60000)
		return 0;
	signal(SIGPIPE, SIG_IGN);
	memset(&g, 0, sizeof g);
	if (pipe(p) < 0)
		abort();
	/* A pipe holds 64 KiB: the whole input fits before anyone reads. */
	if (n && write(p[1], d, n) != (ssize_t)n)
		abort();
	close(p[1]);
	g.k = 1;
	g.pid[0] = 0x7ffffff0;   /* no child of ours: "closed its pipe" */
	g.from[0] = p[0];
	g.to[0] = -1;
	for (calls = 0; calls <= (int)n + 1; calls++) {
		why[0] = '\0';
		r = ar_ranks_wait(&g, 5, why, sizeof why);
		CHECK(r >= -1 && r <= 1);
		CHECK(strlen(g.reply[0]) < AR_RANK_LINE);
		CHECK(strchr(g.reply[0], '\n') == NULL);
		CHECK(g.inlen[0] < AR_RANK_LINE);
		if (r != 0)
			CHECK(why[0]);
		if (r < 0 && (strstr(why, "closed its pipe") ||
		    strstr(why, "longer than")))
			break;
	}
	/* Every call took an answer or ended: no input loops for ever. */
	CHECK(calls <= (int)n + 1);
	close(p[0]);
	return 0;
}
