/* manifest.h: problem.json, the problem manifest; ar-problem(5). */
#ifndef AR_MANIFEST_H
#define AR_MANIFEST_H

#include <stddef.h>
#include <jansson.h>

enum { AR_OP_LT, AR_OP_LE, AR_OP_GT, AR_OP_GE, AR_OP_EQ };
struct ar_mdef {
	const char *name, *unit;
	int higher;          /* direction: 1 higher is better, 0 lower */
};
struct ar_check {
	const char *command; /* a gate that is a sealed checks command */
	const char *metric;
	int op;
	double value;
	double ratio;        /* > 0: a bound of ratio times the baseline's */
	char text[160];      /* "bad == 0", as results name it */
};
struct ar_workload {
	const char *name;
	size_t nenv;
	const char **envk, **envv;
	double work;         /* what the work metric must equal */
	double bytes, flops; /* moved and computed per run, for the
	                      * roofline; NAN when not declared */
	const char *dtype;   /* the compute roof: "bf16" (default), "fp8" */
	size_t nseed;
	unsigned long long *seed;
};
struct ar_stage {
	const char *cmd;     /* NULL when the stage is absent */
	double timeout_s;
};
struct ar_manifest {
	json_t *root;        /* every string points into it */
	const char *name, *description, *baseline, *work_metric;
	struct ar_mdef metric;
	size_t nsecondary, ngate, nguard, nworkload, nscale, nmutable;
	struct ar_mdef *secondary;
	struct ar_check *gate, *guard;
	struct ar_workload *workload;
	long *scale;
	const char **mutable;
	struct ar_stage setup, build, prepare, run, score;
	/* limits; negative when the manifest leaves them to ar-bench */
	double time_s, min_effect;
	long min_pairs, max_pairs, warmup;
};
/* Reads and checks dir/problem.json; -1 and a reason naming the file and
 * the field ("problem.json: stages.run.cmd: missing") otherwise. */
int ar_manifest_read(struct ar_manifest *m, const char *dir, char *err,
	size_t errlen);
void ar_manifest_free(struct ar_manifest *m);
const char *ar_op_name(int op);
int ar_op_holds(int op, double a, double b);

#endif
