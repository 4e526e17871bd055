/* gen: the prepare stage. From AR_SEED, makes one pair's inputs in $AR_IN
 * (w.bin, ws.bin, x.bin, xs.bin) and the reference output in $AR_REF
 * (y.bin). Both runs of the pair read the same inputs. */
#include "judge.h"
#include "ar-stream.h"
#include "matvec.h"

/* The inputs come from a keyed stream (ar-stream.h): nothing a run reads
 * leads back to AR_SEED, so a method cannot learn a holdout seed from
 * its inputs. */
static uint64_t seed_value;

/* Uniform int8 values over the whole range, -128 included. */
static void
fill_i8(int8_t *p, size_t n, const char *label)
{
	struct ar_stream s;

	ar_stream_init(&s, seed_value, label);
	ar_stream_fill(&s, p, n);
}

/* Scales in [lo, 2 lo): positive, as quantization scales are. */
static void
fill_scale(float *p, size_t n, float lo, const char *label)
{
	struct ar_stream s;

	ar_stream_init(&s, seed_value, label);
	for (size_t i = 0; i < n; i++)
		p[i] = lo * (1.0f + (float)(ar_stream_u32(&s) >> 8) /
		    16777216.0f);
}

static void
write_file(const char *dir, const char *name, const void *buf, size_t len)
{
	char *path = path_in(dir, name);
	size_t done = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		die("%s: %s", path, strerror(errno));
	while (done < len) {
		if ((n = write(fd, (const char *)buf + done, len - done)) < 0) {
			if (errno == EINTR)
				continue;
			die("%s: %s", path, strerror(errno));
		}
		done += (size_t)n;
	}
	if (close(fd) < 0)
		die("%s: %s", path, strerror(errno));
	free(path);
}

int
main(void)
{
	const char *in, *ref, *seed;
	size_t rows, cols, tokens;
	int8_t *w, *x, *xt;
	float *ws, *xs, *y;
	char *end;

	prog = "gen";
	rows = (size_t)env_long("ROWS", MAX_ROWS);
	cols = (size_t)env_long("COLS", MAX_COLS);
	tokens = (size_t)env_long("TOKENS", MAX_TOKENS);
	in = env_str("AR_IN");
	ref = env_str("AR_REF");
	seed = env_str("AR_SEED");
	errno = 0;
	seed_value = strtoull(seed, &end, 10);
	if (*seed < '0' || *seed > '9' || errno || *end)
		die("AR_SEED: \"%s\" is not a decimal 64-bit number", seed);

	w = xmalloc(rows * cols);
	ws = xmalloc(rows * sizeof *ws);
	x = xmalloc(tokens * cols);
	xs = xmalloc(tokens * sizeof *xs);
	y = xmalloc(tokens * rows * sizeof *y);
	fill_i8(w, rows * cols, "w");
	fill_scale(ws, rows, 1e-4f, "ws");
	fill_i8(x, tokens * cols, "x");
	/* -127..127: decode_next flips signs, and -(-128) is no int8. */
	for (size_t i = 0; i < tokens * cols; i++)
		if (x[i] == -128)
			x[i] = -127;
	fill_scale(xs, tokens, 1e-2f, "xs");

	/* Token by token, as the driver does: each token is made from the
	 * last one's output. Exact int32 sums, then the same two float
	 * products, in the same order, that the methods are asked for. */
	xt = xmalloc(cols);
	for (size_t t = 0; t < tokens; t++) {
		if (t == 0)
			memcpy(xt, x, cols);
		else
			decode_next(xt, x + t * cols, y + (t - 1) * rows,
			    (int)rows, (int)cols);
		for (size_t r = 0; r < rows; r++) {
			const int8_t *wr = w + r * cols;
			int32_t acc = 0;

			for (size_t c = 0; c < cols; c++)
				acc += (int32_t)wr[c] * xt[c];
			y[t * rows + r] = ((float)acc * ws[r]) * xs[t];
		}
	}
	free(xt);

	write_file(in, "w.bin", w, rows * cols);
	write_file(in, "ws.bin", ws, rows * sizeof *ws);
	write_file(in, "x.bin", x, tokens * cols);
	write_file(in, "xs.bin", xs, tokens * sizeof *xs);
	write_file(ref, "y.bin", y, tokens * rows * sizeof *y);
	free(w);
	free(ws);
	free(x);
	free(xs);
	free(y);
	return 0;
}
