/* score: the score stage. Compares $AR_OUT/y.bin, the method's output,
 * with $AR_REF/y.bin and prints the METRIC lines. What the method left is
 * never an error of score's: a missing or short output counts as missing
 * outputs (work falls, bad rises). */
#include "judge.h"

#include <math.h>

#define REL_CAP 1e30

/* Reads up to max bytes of the regular file path into buf and sets *got.
 * Returns NULL, or why it failed. A method's output may be anything: a
 * symlink (to the reference, say) or a FIFO must not be followed or
 * block, so neither is read. */
static const char *
read_upto(const char *path, void *buf, size_t max, size_t *got)
{
	const char *why = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	*got = 0;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)) < 0)
		return errno == ELOOP ? "is a symbolic link" : strerror(errno);
	if (fstat(fd, &st) < 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	while (why == NULL && *got < max &&
	    (n = read(fd, (char *)buf + *got, max - *got)) != 0) {
		if (n < 0 && errno != EINTR)
			why = strerror(errno);
		else if (n > 0)
			*got += (size_t)n;
	}
	close(fd);
	return why;
}

int
main(void)
{
	const char *wall_s, *why;
	char *ref_path, *out_path, *end;
	size_t rows, cols, tokens, n, got, work, bad = 0;
	float *ref, *out;
	double wall, max_rel = 0;

	prog = "score";
	rows = (size_t)env_long("ROWS", MAX_ROWS);
	cols = (size_t)env_long("COLS", MAX_COLS);
	tokens = (size_t)env_long("TOKENS", MAX_TOKENS);
	wall_s = env_str("AR_WALL_S");
	errno = 0;
	wall = strtod(wall_s, &end);
	if (errno || *end || end == wall_s || !(wall > 0) || !isfinite(wall))
		die("AR_WALL_S: \"%s\" is not a positive number", wall_s);
	ref_path = path_in(env_str("AR_REF"), "y.bin");
	out_path = path_in(env_str("AR_OUT"), "y.bin");

	n = tokens * rows;
	ref = xmalloc(n * sizeof *ref);
	out = xmalloc(n * sizeof *out);
	if ((why = read_upto(ref_path, ref, n * sizeof *ref, &got)) != NULL)
		die("%s: %s", ref_path, why);
	if (got != n * sizeof *ref)
		die("%s: %zu bytes, not %zu", ref_path, got, n * sizeof *ref);
	/* Only the first n outputs count: more is not more work. */
	if ((why = read_upto(out_path, out, n * sizeof *out, &got)) != NULL)
		fprintf(stderr, "score: %s: %s (outputs missing)\n", out_path,
		    why);
	work = got / sizeof *out;

	for (size_t i = 0; i < n; i++) {
		double r = ref[i], d, rel;

		if (i >= work || !isfinite(out[i])) {
			bad++;
			max_rel = REL_CAP;
			continue;
		}
		d = fabs((double)out[i] - r);
		if (d > 1e-4 * fabs(r) + 1e-6)
			bad++;
		rel = d == 0 ? 0 : r == 0 ? REL_CAP : fmin(d / fabs(r), REL_CAP);
		if (rel > max_rel)
			max_rel = rel;
	}

	printf("METRIC gb_s=%.6g\n", (double)n * (double)cols / wall / 1e9);
	printf("METRIC wall_ms=%.6g\n", wall * 1e3);
	printf("METRIC work=%zu\n", work);
	printf("METRIC bad=%zu\n", bad);
	printf("METRIC max_rel_err=%.6g\n", max_rel);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("stdout: %s", strerror(errno));
	free(ref);
	free(out);
	free(ref_path);
	free(out_path);
	return 0;
}
