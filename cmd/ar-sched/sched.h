/* sched.h: what the files of ar-sched share: the usage text, the
 * subcommands main.c dispatches to, where the inventory comes from and
 * what is busy on it (gpus.c), and the seeded random numbers of the
 * simulators (simulate.c, landscape.c, cluster.c). */
#ifndef AR_SCHED_H
#define AR_SCHED_H
#include <getopt.h>
#include <math.h>
#include <stdint.h>

#include "json.h"
#include "inventory.h"

/* One synopsis per subcommand; ar-sched(1) says the same. */
#define USAGE_GPUS "gpus [-g file | --gpus n [--pairs] | --cpus | --slurm]"
#define USAGE_PACK "pack [-C dir] [-g file | --gpus n [--pairs] | --cpus " \
	"| --slurm] k ..."
#define USAGE_NEXT "next [-C dir] [-l ledger] [-m submissions] [-n max] " \
	"[-w workload] [--put | --best] [--noise-max r] [-g file | " \
	"--gpus n [--pairs] | --cpus | --slurm]"
#define USAGE_FOLD "fold [-C dir]"
#define USAGE_CLUSTER "cluster [-N nodes] [-G gpus] [-p pending] " \
	"[-R reservations] [-W window] [-s seed] [-d hours] [--check] " \
	"[--no-reserve]"
#define USAGE_SIMULATE "simulate [-FOSv] [-p policy[,policy...]] " \
	"[-P pairs] [-s seed] [-r repeats] [-f tsv|jsonl] landscape-file ..."
#define USAGE_LANDSCAPE "landscape [-t families|shapes] [-n landscapes] " \
	"[-m methods|lo-hi] [-s seed] [-x prefix] [--mix name=weight[,...]] " \
	"[--hints share]"

/* Every form, one a line (main.c): what gpus, pack, next and cluster
 * print on a usage error. simulate and landscape print their own. */
extern const char sched_usage[];

/* The subcommands: argv[0] is the subcommand's name; each returns the
 * exit status. */
int cmd_gpus(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_next(int argc, char **argv);
int cmd_fold(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_landscape(int argc, char **argv);

/* ---- the inventory (gpus.c) ---- */

/* The long options of every subcommand, in one numbering. */
enum { O_GPUS = 256, O_PAIRS, O_CPUS, O_SLURM, O_PUT, O_NOISE, O_CHECK,
	O_NORES, O_BEST };

#define INV_LONGOPTS \
	{ "gpus", required_argument, NULL, O_GPUS }, \
	{ "pairs", no_argument, NULL, O_PAIRS }, \
	{ "cpus", no_argument, NULL, O_CPUS }, \
	{ "slurm", no_argument, NULL, O_SLURM }

/* Where the inventory comes from: -g, --gpus, --cpus, --slurm, or by
 * default NVML. */
struct src {
	const char *file;
	long gpus;
	int pairs, cpus, slurm, n;
};

/* Takes option c of the inventory's options into s; 0 when c is not
 * one of them. */
int src_opt(struct src *s, int c, const char *arg);
/* Reads the inventory s names into inv, or dies. */
void load_inv(struct ar_inv *inv, const struct src *s);
/* Marks busy what the campaign's bookings and queued records hold. */
void load_busy(struct ar_inv *inv, const char *camp);
/* Marks busy what ar-run has booked only. */
void read_bookings(struct ar_inv *inv, const char *camp);
/* Marks busy the n GPUs a queued record placed on node (NULL: none). */
void busy_placed(struct ar_inv *inv, const char *node, const int *gpus,
    size_t n);
/* The node a booking or record names; "local" is this host, or the one
 * node of a one-node inventory. -1 when not in the inventory. */
long node_of(const struct ar_inv *inv, const char *name);

/* Calls fn for every record of a spool's states (subs, NULL-ended)
 * that parses. */
typedef void (*rec_fn)(json_t *rec, void *arg);
void spool_each(const char *dir, const char *const *subs, rec_fn fn,
    void *arg);
/* A string member of o; "" when it is not there or not a string. */
const char *jstr(const json_t *o, const char *key);

/* ---- seeded random numbers (simulate.c, landscape.c, cluster.c) ---- */

/* splitmix64's step and finalizer: a generator whose state advances by
 * the golden ratio is mix64(state) each time. */
static inline uint64_t
mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in (0, 1) from a hash's top 53 bits. */
static inline double
unit(uint64_t h)
{
	return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

/* A generator of its own for each landscape, seeded from a hash:
 * numbers in (0, 1), uniform in [a, b), log-uniform in [a, b). */
struct rng {
	uint64_t s;
};

static inline double
rnd(struct rng *g)
{
	g->s += 0x9e3779b97f4a7c15ULL;
	return unit(mix64(g->s));
}

static inline double
urange(struct rng *g, double a, double b)
{
	return a + (b - a) * rnd(g);
}

static inline double
lrange(struct rng *g, double a, double b)
{
	return exp(urange(g, log(a), log(b)));
}

/* ---- landscape -t shapes (shapes.c) ---- */

enum { SHAPE_N = 16 };

/* What -t shapes prints: nland landscapes of mlo to mhi methods (drawn
 * per landscape when they differ), w[SHAPE_N] the shapes' weights, hints
 * the share of landscapes whose rows have a hint, pfrac and base_pfrac. */
struct shapes_opt {
	long long nland, mlo, mhi, seed;
	const char *prefix;
	double w[SHAPE_N];
	double hints;
};

/* The default weights into w. */
void shapes_default_mix(double *w);
/* --mix ARG's weights into w, every shape left out 0; dies with 64 on a
 * bad one. */
void shapes_parse_mix(const char *arg, double *w);
/* --mix's list of name=weight into w[0..n-1] by names: 0, -1 when an
 * item is not name=weight (0 to 1e6) of a known name, -2 when every
 * weight is 0 (landscape.c). */
int mix_parse(const char *arg, const char *const *names, int n, double *w);
/* Prints the landscape file. */
void shapes_print(const struct shapes_opt *o);

#endif
