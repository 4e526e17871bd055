/* inventory.c: the GPU inventory of ar-sched and ar-run: topology files,
 * NVML, the CPUs, Slurm's sinfo; inventory.h says what each part
 * promises. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "host.h"
#include "json.h"
#include "tsv.h"
#include "inventory.h"

void
ar_inv_init(struct ar_inv *inv)
{
	memset(inv, 0, sizeof *inv);
}

void
ar_inv_free(struct ar_inv *inv)
{
	size_t i;
	int j;

	for (i = 0; i < inv->n; i++) {
		free(inv->node[i].name);
		for (j = 0; j < inv->node[i].n; j++)
			free(inv->node[i].model[j]);
	}
	free(inv->node);
	for (j = 0; j < AR_NBUCKET; j++)
		free(inv->bucket[j]);
	memset(inv, 0, sizeof *inv);
}

long
ar_inv_find(const struct ar_inv *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		if (strcmp(inv->node[i].name, name) == 0)
			return (long)i;
	return -1;
}

struct ar_snode *
ar_inv_node(struct ar_inv *inv, const char *name)
{
	long i = ar_inv_find(inv, name);
	struct ar_snode *nd;

	if (i >= 0)
		return &inv->node[i];
	if (inv->n == inv->cap) {
		inv->cap = inv->cap ? 2 * inv->cap : 16;
		inv->node = ar_xrealloc(inv->node, inv->cap * sizeof *inv->node);
	}
	nd = &inv->node[inv->n++];
	memset(nd, 0, sizeof *nd);
	nd->name = ar_xstrdup(name);
	return nd;
}

int
ar_inv_pos(const struct ar_snode *nd, int id)
{
	int i;

	for (i = 0; i < nd->n; i++)
		if (nd->id[i] == id)
			return i;
	return -1;
}

int
ar_inv_add(struct ar_snode *nd, int id, const char *model, long long mem)
{
	if (nd->n == AR_SLOTS_MAX || ar_inv_pos(nd, id) >= 0)
		return -1;
	nd->id[nd->n] = id;
	nd->model[nd->n] = ar_xstrdup(model);
	nd->mem[nd->n] = mem;
	nd->link[nd->n] = 0;
	nd->until[nd->n] = 0;
	return nd->n++;
}

long
ar_inv_local(const struct ar_inv *inv)
{
	long i = ar_inv_find(inv, ar_host_short());

	if (i < 0)
		i = ar_inv_find(inv, "local");
	if (i < 0 && inv->n == 1)
		i = 0;
	return i;
}

int
ar_inv_maxslots(const struct ar_inv *inv)
{
	size_t i;
	int m = 0;

	for (i = 0; i < inv->n; i++)
		if (inv->node[i].n > m)
			m = inv->node[i].n;
	return m;
}

/* ---- the topology file ---- */

struct trow {
	char *node, *model, *links;
	int id;
	long long mem;
	size_t line;
};

static int
cmp_trow(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static void
free_trows(struct trow *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].node);
		free(r[i].model);
		free(r[i].links);
	}
	free(r);
}

/* A whole number in [0, max], nothing else. */
static int
whole(const char *s, long long max, long long *v)
{
	return ar_parse_long(s, v) == 0 && *v >= 0 && *v <= max &&
	    isdigit((unsigned char)s[0]) ? 0 : -1;
}

int
ar_inv_read(struct ar_inv *inv, FILE *f, const char *name, char *err,
    size_t errlen)
{
	static const char *const cols[] = { "node", "gpu", "model",
	    "memory_mib", "nvlink" };
	struct ar_tsv t;
	struct trow *r = NULL;
	size_t nr = 0, cap = 0, i, first = 0, best;
	int c[5], k, st, rc = -1, fp = -1, fq = -1;

	if (ar_tsv_open(&t, f, name) < 0) {
		snprintf(err, errlen, "%s", t.err);
		ar_tsv_close(&t);
		return -1;
	}
	for (k = 0; k < 5; k++)
		if ((c[k] = ar_tsv_col(&t, cols[k])) < 0) {
			snprintf(err, errlen, "%s: no column %s", name, cols[k]);
			goto out;
		}
	while ((st = ar_tsv_next(&t)) == 1) {
		long long id, mem = -1;
		const char *m = t.field[c[3]];

		if (!t.field[c[0]][0]) {
			snprintf(err, errlen, "%s: line %zu: node: empty", name,
			    t.lineno);
			goto out;
		}
		if (whole(t.field[c[1]], 1048575, &id) < 0) {
			snprintf(err, errlen, "%s: line %zu: gpu: \"%s\" is not a "
			    "whole number", name, t.lineno, t.field[c[1]]);
			goto out;
		}
		if (m[0] && whole(m, (long long)1 << 40, &mem) < 0) {
			snprintf(err, errlen, "%s: line %zu: memory_mib: \"%s\" is "
			    "not a whole number", name, t.lineno, m);
			goto out;
		}
		for (i = 0; i < nr; i++)
			if (r[i].id == id && strcmp(r[i].node,
			    t.field[c[0]]) == 0) {
				snprintf(err, errlen, "%s: line %zu: gpu %lld of "
				    "node %s is listed twice (line %zu)", name,
				    t.lineno, id, r[i].node, r[i].line);
				goto out;
			}
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			r = ar_xrealloc(r, cap * sizeof *r);
		}
		r[nr].node = ar_xstrdup(t.field[c[0]]);
		r[nr].model = ar_xstrdup(t.field[c[2]]);
		r[nr].links = ar_xstrdup(t.field[c[4]]);
		r[nr].id = (int)id;
		r[nr].mem = mem;
		r[nr].line = t.lineno;
		nr++;
	}
	if (st < 0) {
		snprintf(err, errlen, "%s", t.err);
		goto out;
	}
	/* Positions follow the ids, so that blocks are aligned on them. */
	ar_sort(r, nr, sizeof *r, cmp_trow);
	for (i = 0; i < nr; i++) {
		struct ar_snode *nd = ar_inv_node(inv, r[i].node);
		int p = ar_inv_add(nd, r[i].id, r[i].model, r[i].mem);

		if (p < 0) {
			snprintf(err, errlen, "%s: line %zu: node %s has more "
			    "than %d GPUs", name, r[i].line, r[i].node,
			    AR_SLOTS_MAX);
			goto out;
		}
		nd->line[p] = r[i].line;
	}
	for (i = 0; i < nr; i++) {
		struct ar_snode *nd = ar_inv_node(inv, r[i].node);
		int p = ar_inv_pos(nd, r[i].id);
		char *s = r[i].links, *tok, *save = NULL;

		for (tok = strtok_r(s, ",", &save); tok;
		    tok = strtok_r(NULL, ",", &save)) {
			long long peer;
			int q;

			if (whole(tok, 1048575, &peer) < 0) {
				snprintf(err, errlen, "%s: line %zu: nvlink: \"%s\" "
				    "is not a GPU index", name, r[i].line, tok);
				goto out;
			}
			q = ar_inv_pos(nd, (int)peer);
			if (q < 0 || q == p) {
				snprintf(err, errlen, "%s: line %zu: nvlink: peer "
				    "%lld is %s", name, r[i].line, peer, q < 0 ?
				    "not a GPU of the node" : "the GPU itself");
				goto out;
			}
			nd->link[p] |= (uint64_t)1 << q;
		}
	}
	/* Links go both ways; the first row (in file order) that names a
	 * peer that does not name it back is the one reported. */
	best = (size_t)-1;
	for (i = 0; i < nr; i++) {
		struct ar_snode *nd = ar_inv_node(inv, r[i].node);
		int p = ar_inv_pos(nd, r[i].id), q;

		for (q = 0; q < nd->n; q++)
			if ((nd->link[p] >> q & 1) && !(nd->link[q] >> p & 1) &&
			    r[i].line < best) {
				best = r[i].line;
				first = i;
				fp = p;
				fq = q;
			}
	}
	if (fq >= 0) {
		struct ar_snode *nd = ar_inv_node(inv, r[first].node);

		snprintf(err, errlen, "%s: line %zu: nvlink: gpu %d reaches "
		    "%d, but %d does not list %d", name, best, nd->id[fp],
		    nd->id[fq], nd->id[fq], nd->id[fp]);
		goto out;
	}
	rc = 0;
out:
	free_trows(r, nr);
	ar_tsv_close(&t);
	return rc;
}

void
ar_inv_write(const struct ar_inv *inv, FILE *f)
{
	size_t i;
	int p, q;

	fputs("node\tgpu\tmodel\tmemory_mib\tnvlink\n", f);
	for (i = 0; i < inv->n; i++) {
		const struct ar_snode *nd = &inv->node[i];

		for (p = 0; p < nd->n; p++) {
			const char *sep = "";

			ar_tsv_put(f, nd->name);
			fprintf(f, "\t%d\t", nd->id[p]);
			ar_tsv_put(f, nd->model[p]);
			fputc('\t', f);
			if (nd->mem[p] >= 0)
				fprintf(f, "%lld", nd->mem[p]);
			fputc('\t', f);
			for (q = 0; q < nd->n; q++)
				if (nd->link[p] >> q & 1) {
					fprintf(f, "%s%d", sep, nd->id[q]);
					sep = ",";
				}
			fputc('\n', f);
		}
	}
}

void
ar_inv_gpus(struct ar_inv *inv, const char *host, int n, int pairs)
{
	struct ar_snode *nd = ar_inv_node(inv, host);
	int i, j;

	for (i = 0; i < n; i++)
		ar_inv_add(nd, i, "gpu", -1);
	for (i = 0; i < nd->n; i++)
		for (j = 0; j < nd->n; j++)
			if (i != j && (!pairs || i / 2 == j / 2))
				nd->link[i] |= (uint64_t)1 << j;
}

int
ar_inv_cpus(struct ar_inv *inv, const char *host, char *err, size_t errlen)
{
	cpu_set_t set;
	struct ar_snode *nd;
	int i;

	if (sched_getaffinity(0, sizeof set, &set) < 0) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	nd = ar_inv_node(inv, host);
	/* A node holds 64 slots: bundles are at most 8, so the first 64
	 * CPUs are plenty. */
	for (i = 0; i < CPU_SETSIZE && nd->n < AR_SLOTS_MAX; i++)
		if (CPU_ISSET(i, &set))
			ar_inv_add(nd, i, "cpu", -1);
	return 0;
}

/* ---- NVML, loaded at run time so that the program runs without it ---- */

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
#define NVML_P2P_CAPS_INDEX_NVLINK 2   /* nvmlGpuP2PCapsIndex_t */
#define NVML_P2P_STATUS_OK 0
#define NVML_NAME_LEN 96               /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */

struct nvml {
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*errstr)(nvmlReturn_t);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*mem)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*p2p)(nvmlDevice_t, nvmlDevice_t, int, int *);
};

static int
nvml_sym(void *lib, const char *name, void *fn, char *err, size_t errlen)
{
	void *p = dlsym(lib, name);

	if (!p) {
		snprintf(err, errlen, "NVML: %s: not in libnvidia-ml.so.1", name);
		return -1;
	}
	/* POSIX lets a data pointer carry a function's address. */
	memcpy(fn, &p, sizeof p);
	return 0;
}

static const char *
nvml_err(const struct nvml *v, nvmlReturn_t r)
{
	const char *s = v->errstr ? v->errstr(r) : NULL;

	return s ? s : "error";
}

int
ar_inv_nvml(struct ar_inv *inv, const char *host, char *err, size_t errlen)
{
	struct nvml v;
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvmlDevice_t dev[AR_SLOTS_MAX];
	unsigned int n, i, j;
	struct ar_snode *nd;
	nvmlReturn_t r;
	int rc = -1;

	if (!lib) {
		const char *e = dlerror();

		snprintf(err, errlen, "NVML: %s (no NVIDIA driver here; use "
		    "--gpus N, --cpus or -g FILE)", e ? e :
		    "libnvidia-ml.so.1: cannot open");
		return -1;
	}
	memset(&v, 0, sizeof v);
	if (nvml_sym(lib, "nvmlErrorString", &v.errstr, err, errlen) < 0 ||
	    nvml_sym(lib, "nvmlInit_v2", &v.init, err, errlen) < 0 ||
	    nvml_sym(lib, "nvmlShutdown", &v.shutdown, err, errlen) < 0 ||
	    nvml_sym(lib, "nvmlDeviceGetCount_v2", &v.count, err, errlen) < 0 ||
	    nvml_sym(lib, "nvmlDeviceGetHandleByIndex_v2", &v.handle, err,
	    errlen) < 0 ||
	    nvml_sym(lib, "nvmlDeviceGetName", &v.name, err, errlen) < 0 ||
	    nvml_sym(lib, "nvmlDeviceGetMemoryInfo", &v.mem, err, errlen) < 0 ||
	    nvml_sym(lib, "nvmlDeviceGetP2PStatus", &v.p2p, err, errlen) < 0)
		goto out;
	if ((r = v.init()) != 0) {
		snprintf(err, errlen, "NVML: nvmlInit: %s", nvml_err(&v, r));
		goto out;
	}
	if ((r = v.count(&n)) != 0) {
		snprintf(err, errlen, "NVML: nvmlDeviceGetCount: %s",
		    nvml_err(&v, r));
		goto shut;
	}
	if (n > AR_SLOTS_MAX)
		n = AR_SLOTS_MAX;
	nd = ar_inv_node(inv, host);
	for (i = 0; i < n; i++) {
		char name[NVML_NAME_LEN] = "";
		nvmlMemory_t m;
		long long mib = -1;

		if ((r = v.handle(i, &dev[i])) != 0) {
			snprintf(err, errlen, "NVML: GPU %u: %s", i,
			    nvml_err(&v, r));
			goto shut;
		}
		if (v.name(dev[i], name, sizeof name) != 0 || !name[0])
			snprintf(name, sizeof name, "gpu");
		name[sizeof name - 1] = 0;
		if (v.mem(dev[i], &m) == 0)
			mib = (long long)(m.total / (1024 * 1024));
		ar_inv_add(nd, (int)i, name, mib);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int st = -1;

			if (i != j && v.p2p(dev[i], dev[j],
			    NVML_P2P_CAPS_INDEX_NVLINK, &st) == 0 &&
			    st == NVML_P2P_STATUS_OK)
				nd->link[i] |= (uint64_t)1 << j;
		}
	/* NVML answers per direction; a link is a link both ways. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (nd->link[i] >> j & 1)
				nd->link[j] |= (uint64_t)1 << i;
	rc = 0;
shut:
	v.shutdown();
out:
	dlclose(lib);
	return rc;
}

/* ---- sinfo ---- */

int
ar_inv_sinfo_line(struct ar_inv *inv, const char *line, char *err,
    size_t errlen)
{
	char node[256], *gres, *p, *item;
	const char *s = line;
	size_t len;
	long total = 0;
	char model[128] = "";
	int depth = 0, i, nmodel = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	len = strcspn(s, " \t");
	if (len >= sizeof node) {
		snprintf(err, errlen, "node name too long");
		return -1;
	}
	memcpy(node, s, len);
	node[len] = 0;
	s += len;
	while (*s == ' ' || *s == '\t')
		s++;
	if (ar_inv_find(inv, node) >= 0)
		return 0;
	gres = ar_xstrdup(s);
	/* Items are split at commas outside parentheses: gpu:h100:8(S:0-1). */
	for (p = gres; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && depth == 0)
			*p = '\n';
		else if (*p == ' ' || *p == '\t')
			*p = 0;
	}
	for (item = gres; item;) {
		char *next = strchr(item, '\n'), *f[4] = { NULL }, *q;
		int nf = 0;
		long long cnt;

		if (next)
			*next++ = 0;
		if ((q = strchr(item, '(')))
			*q = 0;
		for (q = item; nf < 4;) {
			f[nf++] = q;
			q = strchr(q, ':');
			if (!q)
				break;
			*q++ = 0;
		}
		if (nf >= 2 && strcmp(f[0], "gpu") == 0) {
			if (ar_parse_long(f[nf - 1], &cnt) < 0 || cnt < 0 ||
			    cnt > AR_SLOTS_MAX) {
				snprintf(err, errlen, "node %s: gres \"%s\": not a "
				    "GPU count from 0 to %d", node, s, AR_SLOTS_MAX);
				free(gres);
				return -1;
			}
			total += (long)cnt;
			if (nf == 3 && strcmp(model, f[1]) != 0) {
				snprintf(model, sizeof model, "%s", f[1]);
				nmodel++;
			}
		}
		item = next;
	}
	free(gres);
	if (total > AR_SLOTS_MAX) {
		snprintf(err, errlen, "node %s: more than %d GPUs", node,
		    AR_SLOTS_MAX);
		return -1;
	}
	if (total > 0) {
		struct ar_snode *nd = ar_inv_node(inv, node);

		for (i = 0; i < total; i++)
			ar_inv_add(nd, i, nmodel == 1 ? model : "gpu", -1);
	}
	return 0;
}
