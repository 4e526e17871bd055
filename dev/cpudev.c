/* The CPU device: the same ops as the CUDA device, measured the same way,
 * so the roofline problem and the k-rank logic run and are tested on a
 * machine without a GPU. A rank is pinned to its CPU; the ranks of a
 * bundle all-reduce through a shared memory file. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "timefmt.h"
#include "dev.h"

const char *const ar_dev_op_name[AR_OP_N] = {
	"copy", "memcpy", "gemm_bf16", "gemm_bf16_ref", "gemm_fp8",
	"allreduce",
};

/* Rotating input sets: each sample reads other memory than the last. */
#define NSETS 3

/* The shared memory of a bundle: a barrier, then per rank a slot of the
 * input, then the reduced result. */
struct shm_head {
	atomic_uint arrived;
	atomic_uint phase;
	unsigned nranks;
	unsigned pad;
	uint64_t bytes;
};

static struct {
	int rank, nranks, cpu;
	struct ar_dev_info info;
	/* the op */
	enum ar_op op;
	size_t size;
	int reps, set;
	unsigned char *src[NSETS], *dst;
	float *a[NSETS], *b[NSETS], *c;
	size_t n;
	unsigned char *flushbuf;
	size_t flushlen;
	unsigned char flushval;
	/* the bundle */
	struct shm_head *shm;
	size_t shmlen;
	float *slot0, *result;
	float *send[NSETS], *recv;
} C;


/* A number from a sysfs or procfs file; -1 when absent. */
static double
read_num(const char *path)
{
	FILE *f = fopen(path, "r");
	double v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lf", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The largest cache of cpu, from sysfs ("32768K"), else sysconf. */
static size_t
cache_size(int cpu)
{
	size_t best = 0;
	int i;

	for (i = 0; i < 8; i++) {
		char p[128], s[32];
		FILE *f;
		unsigned long v;
		char unit = 0;

		snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/"
		    "index%d/size", cpu, i);
		if (!(f = fopen(p, "r")))
			break;
		if (fgets(s, sizeof s, f) && sscanf(s, "%lu%c", &v, &unit) >= 1) {
			size_t b = unit == 'K' ? v << 10 : unit == 'M' ? v << 20 :
			    v;

			if (b > best)
				best = b;
		}
		fclose(f);
	}
#ifdef _SC_LEVEL3_CACHE_SIZE
	if (!best && sysconf(_SC_LEVEL3_CACHE_SIZE) > 0)
		best = (size_t)sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
	return best;
}

static void
cpu_model(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, n, "CPU");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && c) {
			c++;
			while (*c == ' ' || *c == '\t')
				c++;
			c[strcspn(c, "\n")] = 0;
			snprintf(out, n, "%s", c);
			break;
		}
	}
	fclose(f);
}

/* A sense-free barrier: the last to arrive moves the phase on. Ranks
 * yield while they wait, since a bundle may have more ranks than CPUs. */
static void
barrier(void)
{
	unsigned ph = atomic_load(&C.shm->phase);

	if (atomic_fetch_add(&C.shm->arrived, 1) + 1 == C.shm->nranks) {
		atomic_store(&C.shm->arrived, 0);
		atomic_fetch_add(&C.shm->phase, 1);
		return;
	}
	while (atomic_load(&C.shm->phase) == ph)
		sched_yield();
}

int
ar_cpu_comm_create(const char *path, int nranks, size_t bytes, char *why,
    size_t n)
{
	size_t len = sizeof(struct shm_head) + 64 + ((size_t)nranks + 1) *
	    bytes;
	struct shm_head *h;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (ftruncate(fd, (off_t)len) < 0) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	h = mmap(NULL, sizeof *h, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED) {
		snprintf(why, n, "%s: mmap: %s", path, strerror(errno));
		return -1;
	}
	atomic_init(&h->arrived, 0);
	atomic_init(&h->phase, 0);
	h->nranks = (unsigned)nranks;
	h->bytes = bytes;
	munmap(h, sizeof *h);
	return 0;
}

static int
cpu_open(int ordinal, int rank, int nranks, const char *comm,
    struct ar_dev_info *info, char *why, size_t n)
{
	cpu_set_t set;
	char p[128];
	double khz;

	memset(&C, 0, sizeof C);
	C.rank = rank;
	C.nranks = nranks;
	C.cpu = ordinal;
	if (ordinal >= 0 && ordinal < CPU_SETSIZE) {
		CPU_ZERO(&set);
		CPU_SET(ordinal, &set);
		if (sched_setaffinity(0, sizeof set, &set) < 0) {
			snprintf(why, n, "CPU %d: sched_setaffinity: %s", ordinal,
			    strerror(errno));
			return -1;
		}
	}
	cpu_model(C.info.name, sizeof C.info.name);
	C.info.ordinal = ordinal;
	snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpufreq/"
	    "cpuinfo_max_freq", ordinal);
	khz = read_num(p);
	C.info.clock_mhz = khz > 0 ? khz / 1000 : 0;
	C.info.cache_bytes = cache_size(ordinal);
	C.info.mem_bytes = (size_t)sysconf(_SC_PHYS_PAGES) *
	    (size_t)sysconf(_SC_PAGESIZE);
	if (nranks > 1) {
		struct stat st;
		int fd;

		if (!comm || !comm[0]) {
			snprintf(why, n, "%d ranks but no shared memory file",
			    nranks);
			return -1;
		}
		if ((fd = open(comm, O_RDWR | O_CLOEXEC)) < 0 ||
		    fstat(fd, &st) < 0) {
			snprintf(why, n, "%s: %s", comm, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		C.shmlen = (size_t)st.st_size;
		C.shm = mmap(NULL, C.shmlen, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
		close(fd);
		if (C.shm == MAP_FAILED) {
			C.shm = NULL;
			snprintf(why, n, "%s: mmap: %s", comm, strerror(errno));
			return -1;
		}
		if (C.shm->nranks != (unsigned)nranks) {
			snprintf(why, n, "%s: made for %u ranks, not %d", comm,
			    C.shm->nranks, nranks);
			return -1;
		}
		C.slot0 = (float *)((char *)C.shm + sizeof *C.shm + 64);
		C.result = (float *)((char *)C.slot0 + nranks * C.shm->bytes);
	}
	*info = C.info;
	return 0;
}

/* The input of rank r, set s, element i: small whole numbers, so float
 * sums are exact and the expected all-reduce is known. */
static float
ar_in(int r, int s, size_t i)
{
	return (float)((r + 1) * (int)((i + (size_t)s * 7) % 1024 + 1));
}

static void
op_free(void)
{
	int s;

	for (s = 0; s < NSETS; s++) {
		free(C.src[s]);
		free(C.a[s]);
		free(C.b[s]);
		free(C.send[s]);
		C.src[s] = NULL;
		C.a[s] = C.b[s] = C.send[s] = NULL;
	}
	free(C.dst);
	free(C.c);
	free(C.recv);
	free(C.flushbuf);
	C.dst = NULL;
	C.c = C.recv = NULL;
	C.flushbuf = NULL;
}

static void *
alloc_or(size_t len, char *why, size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, len ? len : 64) != 0) {
		snprintf(why, n, "cannot allocate %zu bytes", len);
		return NULL;
	}
	return p;
}

static int
cpu_prepare(enum ar_op op, size_t size, int reps, char *why, size_t n)
{
	size_t i;
	int s;

	op_free();
	C.op = op;
	C.size = size;
	C.reps = reps;
	C.set = 0;
	/* Twice the cache, as on the GPU; 64 MiB where it is unknown. */
	C.flushlen = C.info.cache_bytes ? 2 * C.info.cache_bytes : 64 << 20;
	if (!(C.flushbuf = alloc_or(C.flushlen, why, n)))
		return -1;
	memset(C.flushbuf, 1, C.flushlen);
	switch (op) {
	case AR_OP_COPY:
	case AR_OP_MEMCPY:
		for (s = 0; s < NSETS; s++) {
			if (!(C.src[s] = alloc_or(size, why, n)))
				return -1;
			for (i = 0; i < size; i++)
				C.src[s][i] = (unsigned char)(i * 131 + (size_t)s *
				    17 + i / 4099);
		}
		if (!(C.dst = alloc_or(size, why, n)))
			return -1;
		memset(C.dst, 0, size);
		return 0;
	case AR_OP_GEMM_BF16:
	case AR_OP_GEMM_BF16_REF:
		C.n = size;
		for (s = 0; s < NSETS; s++) {
			if (!(C.a[s] = alloc_or(size * size * sizeof(float), why,
			    n)) || !(C.b[s] = alloc_or(size * size *
			    sizeof(float), why, n)))
				return -1;
			for (i = 0; i < size * size; i++) {
				C.a[s][i] = (float)((int)((i * 37 + (size_t)s) %
				    17) - 8) / 8;
				C.b[s][i] = (float)((int)((i * 11 + (size_t)s * 3) %
				    13) - 6) / 8;
			}
		}
		if (!(C.c = alloc_or(size * size * sizeof(float), why, n)))
			return -1;
		return 0;
	case AR_OP_GEMM_FP8:
		snprintf(why, n, "no FP8 GEMM on the cpu device");
		return 1;
	case AR_OP_ALLREDUCE: {
		size_t cnt = size / sizeof(float);

		if (C.nranks > 1 && size > C.shm->bytes) {
			snprintf(why, n, "all-reduce of %zu bytes: the shared "
			    "memory holds %llu", size,
			    (unsigned long long)C.shm->bytes);
			return -1;
		}
		for (s = 0; s < NSETS; s++) {
			if (!(C.send[s] = alloc_or(size, why, n)))
				return -1;
			for (i = 0; i < cnt; i++)
				C.send[s][i] = ar_in(C.rank, s, i);
		}
		if (!(C.recv = alloc_or(size, why, n)))
			return -1;
		return 0;
	}
	default:
		snprintf(why, n, "op %d: no such op", (int)op);
		return -1;
	}
}

static int
cpu_flush(enum ar_op op, char *why, size_t n)
{
	(void)op;
	(void)why;
	(void)n;
	/* Writing twice the cache evicts what the last sample left. */
	memset(C.flushbuf, ++C.flushval, C.flushlen);
	__asm__ __volatile__("" : : "r"(C.flushbuf) : "memory");
	C.set = (C.set + 1) % NSETS;
	return 0;
}

/* Our own copy, kept a loop: the compiler must not turn it into memcpy,
 * or there would be nothing of ours to compare. */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
static void
own_copy(uint64_t *restrict d, const uint64_t *restrict s, size_t words)
{
	size_t i;

	for (i = 0; i + 4 <= words; i += 4) {
		d[i] = s[i];
		d[i + 1] = s[i + 1];
		d[i + 2] = s[i + 2];
		d[i + 3] = s[i + 3];
	}
	for (; i < words; i++)
		d[i] = s[i];
}

/* Blocked i-k-j: the inner loop runs over rows of B and C, which the
 * compiler vectorizes. */
__attribute__((optimize("O3")))
static void
gemm_blocked(size_t n, const float *restrict a, const float *restrict b,
    float *restrict c)
{
	const size_t bs = 64;
	size_t i0, k0, j0, i, k, j;

	memset(c, 0, n * n * sizeof *c);
	for (i0 = 0; i0 < n; i0 += bs)
		for (k0 = 0; k0 < n; k0 += bs)
			for (j0 = 0; j0 < n; j0 += bs)
				for (i = i0; i < i0 + bs && i < n; i++)
					for (k = k0; k < k0 + bs && k < n; k++) {
						float aik = a[i * n + k];

						for (j = j0; j < j0 + bs && j < n; j++)
							c[i * n + j] += aik * b[k * n + j];
					}
}

static void
gemm_naive(size_t n, const float *restrict a, const float *restrict b,
    float *restrict c)
{
	size_t i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			float acc = 0;

			for (k = 0; k < n; k++)
				acc += a[i * n + k] * b[k * n + j];
			c[i * n + j] = acc;
		}
}

static void
allreduce_once(const float *send, float *recv, size_t cnt)
{
	size_t per = (cnt + (size_t)C.nranks - 1) / (size_t)C.nranks;
	size_t lo = per * (size_t)C.rank, hi = lo + per, i;
	int r;

	if (C.nranks == 1) {
		memcpy(recv, send, cnt * sizeof *send);
		return;
	}
	if (hi > cnt)
		hi = cnt;
	memcpy(C.slot0 + (size_t)C.rank * (C.shm->bytes / sizeof(float)),
	    send, cnt * sizeof *send);
	barrier();
	/* Reduce-scatter: each rank sums its share over every slot. */
	for (i = lo; i < hi; i++) {
		float acc = 0;

		for (r = 0; r < C.nranks; r++)
			acc += C.slot0[(size_t)r * (C.shm->bytes /
			    sizeof(float)) + i];
		C.result[i] = acc;
	}
	barrier();
	/* All-gather: each rank reads the whole sum. */
	memcpy(recv, C.result, cnt * sizeof *recv);
	barrier();
}

static int
cpu_run(enum ar_op op, struct ar_dev_timing *t, char *why, size_t n)
{
	double t0, t1;
	int r, s = C.set;

	(void)why;
	(void)n;
	t0 = ar_mono();
	for (r = 0; r < C.reps; r++) {
		switch (op) {
		case AR_OP_COPY:
			own_copy((uint64_t *)C.dst, (const uint64_t *)C.src[s],
			    C.size / 8);
			memcpy(C.dst + C.size / 8 * 8, C.src[s] + C.size / 8 * 8,
			    C.size % 8);
			break;
		case AR_OP_MEMCPY:
			memcpy(C.dst, C.src[s], C.size);
			break;
		case AR_OP_GEMM_BF16:
			gemm_blocked(C.n, C.a[s], C.b[s], C.c);
			break;
		case AR_OP_GEMM_BF16_REF:
			gemm_naive(C.n, C.a[s], C.b[s], C.c);
			break;
		case AR_OP_ALLREDUCE:
			allreduce_once(C.send[s], C.recv, C.size / sizeof(float));
			break;
		default:
			break;
		}
		__asm__ __volatile__("" : : : "memory");
	}
	t1 = ar_mono();
	t->cpu_s = t1 - t0;
	t->dev_s = t->cpu_s;
	return 0;
}

static int
cpu_post(enum ar_op op, struct ar_dev_post *p, char *why, size_t n)
{
	char path[128];
	double khz;
	size_t i;
	int s = C.set;

	(void)why;
	(void)n;
	memset(p, 0, sizeof *p);
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/"
	    "scaling_cur_freq", C.cpu);
	khz = read_num(path);
	p->clock_mhz = khz > 0 ? khz / 1000 : 0;
	p->ok = 1;
	switch (op) {
	case AR_OP_COPY:
	case AR_OP_MEMCPY:
		for (i = 0; i < C.size; i++)
			if (C.dst[i] != C.src[s][i])
				p->err++;
		p->checked = (long)C.size;
		p->ok = p->err == 0;
		break;
	case AR_OP_GEMM_BF16:
	case AR_OP_GEMM_BF16_REF: {
		/* 64 entries, spread over the matrix, in double. */
		for (i = 0; i < 64; i++) {
			size_t row = (i * 2654435761u) % C.n, col = (i * 40503u +
			    7) % C.n, k;
			double want = 0, got = C.c[row * C.n + col], e;

			for (k = 0; k < C.n; k++)
				want += (double)C.a[s][row * C.n + k] *
				    C.b[s][k * C.n + col];
			e = fabs(got - want) / (fabs(want) > 1 ? fabs(want) : 1);
			if (e > p->err)
				p->err = e;
		}
		p->checked = 64;
		p->ok = p->err <= 1e-4;
		break;
	}
	case AR_OP_ALLREDUCE: {
		size_t cnt = C.size / sizeof(float);
		int k = C.nranks;

		for (i = 0; i < cnt; i++) {
			float want = ar_in(0, s, i) * (float)(k * (k + 1) / 2);

			if (C.recv[i] != want)
				p->err++;
		}
		p->checked = (long)cnt;
		p->ok = p->err == 0;
		break;
	}
	default:
		break;
	}
	return 0;
}

static void
cpu_release(void)
{
	op_free();
}

static void
cpu_close(void)
{
	op_free();
	if (C.shm)
		munmap(C.shm, C.shmlen);
	C.shm = NULL;
}

const struct ar_dev_ops ar_cpu_ops = {
	"cpu", cpu_open, cpu_prepare, cpu_flush, cpu_run, cpu_post,
	cpu_release, cpu_close,
};
