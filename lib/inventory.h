/* inventory.h: the GPU inventory behind ar-sched and ar-run. A node
 * holds up to 64 slots (GPUs, or CPUs on the CPU path); a slot's place on
 * its node is its position, its name the id the inventory gives (GPU
 * index or CPU number). Bundles of k = 1, 2, 4, 8 slots go on aligned
 * blocks of positions, buddy style, so that what stays free stays in
 * whole pairs, quads and nodes for the large bundles. */
#ifndef AR_INVENTORY_H
#define AR_INVENTORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AR_SLOTS_MAX 64
#define AR_NBUCKET 5     /* no free slot, largest free block 1, 2, 4, 8+ */

struct ar_snode {
	char *name;
	int n;                          /* slots */
	int id[AR_SLOTS_MAX];           /* GPU index or CPU number */
	char *model[AR_SLOTS_MAX];
	long long mem[AR_SLOTS_MAX];    /* MiB; -1 when unknown */
	uint64_t link[AR_SLOTS_MAX];    /* positions reached by NVLink */
	size_t line[AR_SLOTS_MAX];      /* topology file line, for messages */
	uint64_t busy;                  /* positions taken */
	double until[AR_SLOTS_MAX];     /* when a taken slot frees: estimate */
	int maxconn[4];                 /* best links inside a block of 1..8 */
	int off;                        /* takes nothing (quarantined) */
	int reserved;                   /* kept for a large bundle ... */
	double shadow;                  /* ... that starts here by this time */
	double pref;                    /* with use_pref: lower first */
	int bucket;                     /* AR_NBUCKET class and place in it */
	size_t bpos;
};

struct ar_inv {
	size_t n, cap;
	struct ar_snode *node;
	size_t *bucket[AR_NBUCKET];     /* node indices by largest free block */
	size_t bn[AR_NBUCKET], bcap[AR_NBUCKET];
	int maxconn[4];                 /* over all nodes */
	int indexed;
};

void ar_inv_init(struct ar_inv *inv);
void ar_inv_free(struct ar_inv *inv);
/* The node called name; made when absent. */
struct ar_snode *ar_inv_node(struct ar_inv *inv, const char *name);
/* Index of the node called name, or -1. */
long ar_inv_find(const struct ar_inv *inv, const char *name);
/* Adds a slot; its position, or -1 when the node is full or holds id. */
int ar_inv_add(struct ar_snode *nd, int id, const char *model,
	long long mem);
/* The position of slot id on nd, or -1. */
int ar_inv_pos(const struct ar_snode *nd, int id);
/* The node of this host: the one named as this host's short name, else
 * the one called "local", else the only node; -1 when there is none. */
long ar_inv_local(const struct ar_inv *inv);
/* Largest number of slots any node has. */
int ar_inv_maxslots(const struct ar_inv *inv);

/* Reads the inventory TSV (ar-sched gpus output). -1 and a one-line
 * reason naming the input and line in err when it is malformed: missing
 * column, duplicate or non-integer gpu, memory not a whole number, an
 * NVLink peer that is not on the node or links back not. */
int ar_inv_read(struct ar_inv *inv, FILE *f, const char *name, char *err,
	size_t errlen);
void ar_inv_write(const struct ar_inv *inv, FILE *f);
/* n GPUs of model "gpu" on host: all NVLinked, or (pairs) in pairs. */
void ar_inv_gpus(struct ar_inv *inv, const char *host, int n, int pairs);
/* The CPUs this process may run on, as slots of model "cpu". */
int ar_inv_cpus(struct ar_inv *inv, const char *host, char *err,
	size_t errlen);
/* The GPUs NVML sees, through libnvidia-ml.so.1 loaded at run time; -1
 * and the reason when there is no driver. */
int ar_inv_nvml(struct ar_inv *inv, const char *host, char *err,
	size_t errlen);
/* One line of `sinfo -h -N -o '%N %G'`: "node gres". A node listed
 * again (one line per partition) is taken once. -1 on garbage. */
int ar_inv_sinfo_line(struct ar_inv *inv, const char *line, char *err,
	size_t errlen);

#endif
