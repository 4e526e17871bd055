/* inventory.c: unit tests of lib/inventory: the topology TSV read (and
 * each error message of a malformed one) and written back, generated
 * inventories, the local node, and sinfo's lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "host.h"
#include "inventory.h"
#include "unit.h"

/* Reads text as a topology into inv; ar_inv_read's result, err set. */
static int
read_text(struct ar_inv *inv, const char *text, char *err, size_t n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	ar_inv_init(inv);
	err[0] = 0;
	r = ar_inv_read(inv, f, "topo", err, n);
	fclose(f);
	return r;
}

/* ar_inv_write's text, malloc'd. */
static char *
written(const struct ar_inv *inv)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	ar_inv_write(inv, m);
	fclose(m);
	return s;
}

#define HDR "node\tgpu\tmodel\tmemory_mib\tnvlink\n"

static void
good(void)
{
	static const char text[] = HDR
	    "a\t3\tH100\t81559\t2\n"
	    "a\t2\tH100\t81559\t3\n"
	    "a\t0\tH100\t\t\n"
	    "b\t7\tA100\t40960\t\n";
	struct ar_inv inv;
	char err[512];
	struct ar_snode *a, *b;

	OK(read_text(&inv, text, err, sizeof err) == 0, "read: a topology");
	OK(inv.n == 2 && ar_inv_find(&inv, "a") == 0 && ar_inv_find(&inv, "b")
	    == 1 && ar_inv_find(&inv, "c") == -1, "read: the nodes");
	a = &inv.node[0];
	b = &inv.node[1];
	OK(a->n == 3 && a->id[0] == 0 && a->id[1] == 2 && a->id[2] == 3,
	    "read: positions follow the ids, whatever the file's order");
	OK(a->mem[0] == -1 && a->mem[1] == 81559 && strcmp(a->model[2],
	    "H100") == 0 && b->n == 1 && b->mem[0] == 40960, "read: models and "
	    "memory, -1 when not given");
	OK(a->link[1] == 1u << 2 && a->link[2] == 1u << 1 && a->link[0] == 0,
	    "read: NVLinks as masks of positions");
	OK(a->line[0] == 4 && a->line[1] == 3 && a->line[2] == 2, "read: each "
	    "slot's line");
	OK(ar_inv_pos(a, 3) == 2 && ar_inv_pos(a, 1) == -1, "pos of an id");
	OK(ar_inv_maxslots(&inv) == 3, "maxslots");
	ar_inv_free(&inv);
}

static void
round_trip(void)
{
	static const char text[] = HDR
	    "a\t0\tH100 SXM\t81559\t1\n"
	    "a\t1\tH100 SXM\t81559\t0\n"
	    "a\t2\tH100 SXM\t\t\n"
	    "b\t4\tA\\t100\t40960\t5\n"
	    "b\t5\tA\\t100\t40960\t4\n";
	struct ar_inv inv, again;
	char err[512], *s, *t;

	OK(read_text(&inv, text, err, sizeof err) == 0, "write: the input "
	    "reads");
	s = written(&inv);
	OK(strcmp(s, text) == 0, "write: the same text, escapes and all");
	OK(read_text(&again, s, err, sizeof err) == 0, "write: the output "
	    "reads");
	t = written(&again);
	OK(strcmp(s, t) == 0, "write: read and write again, the same");
	free(s);
	free(t);
	ar_inv_free(&inv);
	ar_inv_free(&again);
}

static void
malformed(void)
{
	static const struct {
		const char *text, *err;
	} t[] = {
		{ "node\tgpu\tmodel\tmemory_mib\n", "topo: no column nvlink" },
		{ HDR "\t0\tm\t\t\n", "topo: line 2: node: empty" },
		{ HDR "a\tx\tm\t\t\n", "topo: line 2: gpu: \"x\" is not a whole "
		    "number" },
		{ HDR "a\t-1\tm\t\t\n", "topo: line 2: gpu: \"-1\" is not a "
		    "whole number" },
		{ HDR "a\t\tm\t\t\n", "topo: line 2: gpu: \"\" is not a whole "
		    "number" },
		{ HDR "a\t0\tm\t1.5\t\n", "topo: line 2: memory_mib: \"1.5\" is "
		    "not a whole number" },
		{ HDR "a\t0\tm\t\t\nb\t0\tm\t\t\na\t0\tm\t\t\n", "topo: line 4: "
		    "gpu 0 of node a is listed twice (line 2)" },
		{ HDR "a\t0\tm\t\tx\n", "topo: line 2: nvlink: \"x\" is not a "
		    "GPU index" },
		{ HDR "a\t0\tm\t\t5\n", "topo: line 2: nvlink: peer 5 is not a "
		    "GPU of the node" },
		{ HDR "a\t0\tm\t\t0\n", "topo: line 2: nvlink: peer 0 is the GPU "
		    "itself" },
		{ HDR "a\t0\tm\t\t\nb\t1\tm\t\t\na\t1\tm\t\t0\n", "topo: line 4: "
		    "nvlink: gpu 1 reaches 0, but 0 does not list 1" },
		{ HDR "a\t0\tm\t\t1\na\t1\tm\t\t\n", "topo: line 2: nvlink: gpu 0 "
		    "reaches 1, but 1 does not list 0" },
		{ HDR "a\t0\tm\t\n", "topo: line 2: 4 fields, header has 5" },
	};
	struct ar_inv inv;
	char err[512];
	size_t i;

	for (i = 0; i < NELEM(t); i++) {
		OK(read_text(&inv, t[i].text, err, sizeof err) == -1 &&
		    strcmp(err, t[i].err) == 0, "read refuses: \"%s\"",
		    t[i].err);
		ar_inv_free(&inv);
	}
	OK(read_text(&inv, "", err, sizeof err) == -1 && strcmp(err, "topo: "
	    "empty input: no header line") == 0, "read refuses an empty input "
	    "and frees all it took");
	ar_inv_free(&inv);
	{
		struct ar_buf b = {0};

		ar_buf_adds(&b, HDR);
		for (i = 0; i < 65; i++)
			ar_buf_printf(&b, "a\t%zu\tm\t\t\n", i);
		OK(read_text(&inv, b.p, err, sizeof err) == -1 && strcmp(err,
		    "topo: line 66: node a has more than 64 GPUs") == 0,
		    "read refuses: a node of 65 GPUs");
		ar_inv_free(&inv);
		ar_buf_free(&b);
	}
}

static void
generated(void)
{
	struct ar_inv inv;
	struct ar_snode *nd;
	char err[256];
	int i, ok = 1;

	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "h", 8, 0);
	nd = &inv.node[0];
	for (i = 0; i < 8; i++)
		if (nd->id[i] != i || nd->link[i] != (0xffu & ~(1u << i)) ||
		    strcmp(nd->model[i], "gpu") != 0 || nd->mem[i] != -1)
			ok = 0;
	OK(inv.n == 1 && nd->n == 8 && ok, "gpus: 8, all NVLinked");
	ar_inv_gpus(&inv, "p", 6, 1);
	nd = &inv.node[1];
	OK(nd->n == 6 && nd->link[0] == 2 && nd->link[1] == 1 &&
	    nd->link[4] == 1u << 5 && nd->link[5] == 1u << 4, "gpus: in pairs");
	OK(ar_inv_add(nd, 3, "gpu", -1) == -1, "add: an id already there");
	OK(ar_inv_add(nd, 9, "x", 5) == 6 && nd->n == 7 && nd->mem[6] == 5,
	    "add: a new slot at the next position");
	ar_inv_free(&inv);
	ar_inv_init(&inv);
	nd = ar_inv_node(&inv, "big");
	for (i = 0; i < 64; i++)
		ar_inv_add(nd, i, "g", -1);
	OK(ar_inv_add(nd, 64, "g", -1) == -1 && nd->n == 64, "add: a node holds "
	    "64 slots");
	OK(ar_inv_node(&inv, "big") == nd && inv.n == 1, "node: the one there");
	ar_inv_free(&inv);
	ar_inv_init(&inv);
	OK(ar_inv_cpus(&inv, "c", err, sizeof err) == 0 && inv.n == 1 &&
	    inv.node[0].n >= 1 && strcmp(inv.node[0].model[0], "cpu") == 0,
	    "cpus: this process's CPUs, as slots of model cpu");
	ar_inv_free(&inv);
}

static void
local(void)
{
	struct ar_inv inv;

	ar_inv_init(&inv);
	OK(ar_inv_local(&inv) == -1, "local: none in an empty inventory");
	ar_inv_gpus(&inv, "somewhere-else", 1, 0);
	OK(ar_inv_local(&inv) == 0, "local: the only node");
	ar_inv_gpus(&inv, "local", 1, 0);
	OK(ar_inv_local(&inv) == 1, "local: the node called local");
	ar_inv_gpus(&inv, ar_host_short(), 1, 0);
	OK(ar_inv_local(&inv) == 2, "local: the node named as this host");
	ar_inv_free(&inv);
	ar_inv_init(&inv);
	ar_inv_gpus(&inv, "x", 1, 0);
	ar_inv_gpus(&inv, "y", 1, 0);
	OK(ar_inv_local(&inv) == -1, "local: none among others");
	ar_inv_free(&inv);
}

static void
sinfo(void)
{
	struct ar_inv inv;
	char err[256], longname[300];
	long i;

	ar_inv_init(&inv);
	OK(ar_inv_sinfo_line(&inv, "n1 gpu:h100:8(S:0-1)", err, sizeof err) ==
	    0 && inv.n == 1 && inv.node[0].n == 8 && strcmp(inv.node[0].model[7],
	    "h100") == 0 && inv.node[0].id[7] == 7, "sinfo: a node of 8 GPUs "
	    "of a model");
	OK(ar_inv_sinfo_line(&inv, "n1 gpu:h100:4", err, sizeof err) == 0 &&
	    inv.n == 1 && inv.node[0].n == 8, "sinfo: a node again (another "
	    "partition) is taken once");
	OK(ar_inv_sinfo_line(&inv, "n2 gpu:a100:2,gpu:h100:2", err,
	    sizeof err) == 0 && (i = ar_inv_find(&inv, "n2")) >= 0 &&
	    inv.node[i].n == 4 && strcmp(inv.node[i].model[0], "gpu") == 0,
	    "sinfo: two models: model gpu");
	OK(ar_inv_sinfo_line(&inv, "n3 gpu:h100:2(S:0,1),gpu:h100:2(S:1),"
	    "mps:100", err, sizeof err) == 0 && (i = ar_inv_find(&inv, "n3")) >=
	    0 && inv.node[i].n == 4 && strcmp(inv.node[i].model[3], "h100") == 0,
	    "sinfo: commas in parentheses; one model twice; other gres");
	OK(ar_inv_sinfo_line(&inv, "n4 gpu:3", err, sizeof err) == 0 &&
	    (i = ar_inv_find(&inv, "n4")) >= 0 && inv.node[i].n == 3 &&
	    strcmp(inv.node[i].model[0], "gpu") == 0, "sinfo: no model");
	OK(ar_inv_sinfo_line(&inv, "n5 (null)", err, sizeof err) == 0 &&
	    ar_inv_find(&inv, "n5") == -1, "sinfo: a node without GPUs is "
	    "left out");
	OK(ar_inv_sinfo_line(&inv, "  ", err, sizeof err) == 0 && inv.n == 4,
	    "sinfo: a blank line");
	OK(ar_inv_sinfo_line(&inv, "n6 gpu:h100:x", err, sizeof err) == -1 &&
	    strcmp(err, "node n6: gres \"gpu:h100:x\": not a GPU count from 0 "
	    "to 64") == 0, "sinfo: a count that is not one");
	OK(ar_inv_sinfo_line(&inv, "n7 gpu:40,gpu:40", err, sizeof err) == -1 &&
	    strcmp(err, "node n7: more than 64 GPUs") == 0, "sinfo: more than "
	    "64");
	memset(longname, 'n', 299);
	longname[299] = 0;
	OK(ar_inv_sinfo_line(&inv, longname, err, sizeof err) == -1 &&
	    strcmp(err, "node name too long") == 0, "sinfo: a name too long");
	OK(inv.n == 4, "sinfo: nothing added by a refused line");
	ar_inv_free(&inv);
}

const struct unit_test unit_inventory[] = {
	TEST(good),
	TEST(round_trip),
	TEST(malformed),
	TEST(generated),
	TEST(local),
	TEST(sinfo),
	UNIT_END,
};
