/* manifest.c: unit tests of lib/manifest: problem.json read in full
 * and at its smallest, each error naming its field exactly, and the
 * operators of gates and guardrails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "unit.h"

/* The error ar_manifest_read gives for a problem.json of text, or "" when
 * it reads. */
static const char *
manifest_err(const char *dir, const char *text)
{
	static char err[512];
	struct ar_manifest m;

	unit_put(dir, "problem.json", text, 0644);
	err[0] = 0;
	if (ar_manifest_read(&m, dir, err, sizeof err) == 0)
		ar_manifest_free(&m);
	return err;
}

/* A good manifest with one key replaced: "%s" in a template. */
#define MAN_HEAD "{\"name\": \"toy\", \"kind\": \"exec\", "
#define MAN_METRIC "\"metric\": {\"name\": \"t\", \"direction\": \"lower\"}, "
#define MAN_WL "\"workloads\": [{\"name\": \"w\", \"dev_seeds\": [1]}], "
#define MAN_REST "\"scales\": [1], \"baseline\": \"b\", \"mutable\": [\"x\"], " \
	"\"stages\": {\"run\": {\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}"

static void
manifest(void)
{
	char *dir = unit_tmpdir(), err[512];
	struct ar_manifest m;
	const char *e;
	static const char full[] = "{\n"
	    "  \"name\": \"toy\", \"description\": \"d\", \"kind\": \"exec\",\n"
	    "  \"metric\": {\"name\": \"gb_s\", \"unit\": \"GB/s\", "
	    "\"direction\": \"higher\"},\n"
	    "  \"secondary\": [{\"name\": \"wall_ms\", \"direction\": \"lower\"}],\n"
	    "  \"gates\": [{\"command\": \"./check\"}, "
	    "{\"metric\": \"bad\", \"op\": \"==\", \"value\": 0}],\n"
	    "  \"guardrails\": [{\"metric\": \"p95_ms\", \"op\": \"<=\", "
	    "\"ratio_to_baseline\": 1.1}],\n"
	    "  \"work\": {\"metric\": \"work\"},\n"
	    "  \"workloads\": [{\"name\": \"big\", \"env\": {\"ROWS\": \"8\", "
	    "\"COLS\": \"4\"}, \"work\": 32, \"dev_seeds\": [11, 12]},\n"
	    "    {\"name\": \"tiny\", \"work\": 1, \"dev_seeds\": [7]}],\n"
	    "  \"scales\": [1, 2, 4],\n"
	    "  \"baseline\": \"baseline\", \"mutable\": [\"matvec.c\", \"lib/\"],\n"
	    "  \"stages\": {\"build\": {\"cmd\": \"make\", \"timeout_s\": 120},\n"
	    "    \"run\": {\"cmd\": \"./matvec\"}, \"score\": {\"cmd\": \"./score\","
	    " \"timeout_s\": 0.5}},\n"
	    "  \"limits\": {\"min_pairs\": 8, \"max_pairs\": 64, \"warmup\": 0}\n"
	    "}\n";

	OK(ar_manifest_read(&m, dir, err, sizeof err) < 0 && strstr(err,
	    "problem.json: No such file or directory"), "a missing "
	    "problem.json is named");
	OK(strcmp(manifest_err(dir, full), "") == 0, "a full one "
	    "reads");
	OK(ar_manifest_read(&m, dir, err, sizeof err) == 0, "read");
	OK(strcmp(m.name, "toy") == 0 && strcmp(m.description, "d") == 0 &&
	    strcmp(m.metric.name, "gb_s") == 0 && strcmp(m.metric.unit,
	    "GB/s") == 0 && m.metric.higher == 1, "name, metric, "
	    "direction higher");
	OK(m.nsecondary == 1 && strcmp(m.secondary[0].name, "wall_ms") == 0 &&
	    m.secondary[0].higher == 0 && m.secondary[0].unit == NULL,
	    "secondary metrics");
	OK(m.ngate == 2 && strcmp(m.gate[0].command, "./check") == 0 &&
	    m.gate[0].metric == NULL && strcmp(m.gate[0].text,
	    "command ./check") == 0 && strcmp(m.gate[1].metric, "bad") == 0 &&
	    m.gate[1].op == AR_OP_EQ && m.gate[1].value == 0 &&
	    strcmp(m.gate[1].text, "bad == 0") == 0, "command and "
	    "metric gates");
	OK(m.nguard == 1 && m.guard[0].op == AR_OP_LE && m.guard[0].ratio ==
	    1.1 && strcmp(m.guard[0].text, "p95_ms <= 1.1 * baseline") == 0,
	    "a guardrail against the baseline");
	OK(strcmp(m.work_metric, "work") == 0 && m.nworkload == 2 &&
	    strcmp(m.workload[0].name, "big") == 0 && m.workload[0].work ==
	    32 && m.workload[0].nenv == 2 && m.workload[0].nseed == 2 &&
	    m.workload[0].seed[1] == 12 && m.workload[1].nenv == 0 &&
	    m.workload[1].seed[0] == 7, "workloads, work, env, seeds");
	{
		int rows = 0, cols = 0;
		size_t i;

		for (i = 0; i < m.workload[0].nenv; i++) {
			if (strcmp(m.workload[0].envk[i], "ROWS") == 0 &&
			    strcmp(m.workload[0].envv[i], "8") == 0)
				rows = 1;
			if (strcmp(m.workload[0].envk[i], "COLS") == 0 &&
			    strcmp(m.workload[0].envv[i], "4") == 0)
				cols = 1;
		}
		OK(rows && cols, "workload env names and values");
	}
	OK(m.nscale == 3 && m.scale[2] == 4 && strcmp(m.baseline,
	    "baseline") == 0 && m.nmutable == 2 && strcmp(m.mutable[1],
	    "lib/") == 0, "scales, baseline, mutable");
	OK(m.setup.cmd == NULL && m.prepare.cmd == NULL &&
	    strcmp(m.build.cmd, "make") == 0 && m.build.timeout_s == 120 &&
	    strcmp(m.run.cmd, "./matvec") == 0 && m.run.timeout_s == 600 &&
	    m.score.timeout_s == 0.5, "stages, absent ones NULL, "
	    "timeout 600 by default");
	OK(m.min_pairs == 8 && m.max_pairs == 64 && m.warmup == 0 &&
	    m.time_s < 0 && m.min_effect < 0, "limits, absent ones "
	    "negative");
	ar_manifest_free(&m);
	OK(strcmp(manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL MAN_REST "}"),
	    "") == 0, "the smallest one reads");
	OK(ar_manifest_read(&m, dir, err, sizeof err) == 0 && m.ngate == 0 &&
	    m.nguard == 0 && m.nsecondary == 0 && m.work_metric == NULL &&
	    m.min_pairs == -1 && m.max_pairs == -1 && m.warmup == -1,
	    "optional parts absent");
	ar_manifest_free(&m);

	/* Each error names the field, exactly. */
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL MAN_REST
	    ", \"extra\": 1}");
	OK(strcmp(e, "problem.json: extra: unknown key") == 0,
	    "unknown top-level key");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\", \"timeout\": 5}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: stages.run.timeout: unknown key") == 0,
	    "unknown nested key, with its path");
	e = manifest_err(dir, MAN_HEAD "\"metric\": {\"name\": \"t\", "
	    "\"direction\": \"up\"}, " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: metric.direction: must be \"higher\" or "
	    "\"lower\", not \"up\"") == 0, "bad direction");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads: missing") == 0,
	    "missing workloads");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": {}, "
	    MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads: must be an array, not an "
	    "object") == 0, "workloads of the wrong type");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": \"1\", "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: scales: must be an array, not a string")
	    == 0, "scales of the wrong type");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"work\": {\"metric\": "
	    "\"work\"}, " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].work: missing") == 0,
	    "a work metric needs every workload's work");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"work\": 3, \"dev_seeds\": [1]}], " MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].work: given, but the manifest "
	    "names no \"work\" metric") == 0, "work without a work "
	    "metric");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"dev_seeds\": [-1]}], " MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].dev_seeds: must be a "
	    "non-empty array of whole numbers") == 0, "negative seed");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"env\": {\"A=B\": \"1\"}, \"dev_seeds\": [1]}], " MAN_REST
	    "}");
	OK(strncmp(e, "problem.json: workloads[0].env.A=B: not a name a "
	    "workload may set (", 67) == 0, "env name with =");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"env\": {\"PATH\": \"/x\"}, \"dev_seeds\": [1]}], "
	    MAN_REST "}");
	OK(strncmp(e, "problem.json: workloads[0].env.PATH: not a name a "
	    "workload may set (", 68) == 0, "PATH is ar-bench's");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"gates\": [{\"metric\": "
	    "\"bad\", \"op\": \"=\", \"value\": 0}], " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: gates[0].op: must be one of < <= > >= ==, "
	    "not \"=\"") == 0, "bad op");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"gates\": [{\"metric\": "
	    "\"bad\", \"op\": \"<\"}], " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: gates[0].value: missing") == 0,
	    "a gate without a value");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"guardrails\": [{\"metric\": "
	    "\"m\", \"op\": \"<\", \"ratio_to_baseline\": -1}], " MAN_WL MAN_REST
	    "}");
	OK(strcmp(e, "problem.json: guardrails[0].ratio_to_baseline: must be "
	    "greater than 0") == 0, "a negative ratio");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"guardrails\": "
	    "[{\"command\": \"./x\"}], " MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: guardrails[0].command: unknown key") == 0,
	    "a guardrail is no command");
	e = manifest_err(dir, "{\"name\": \"toy\", \"kind\": \"exec\", "
	    "\"metric\": {\"name\": \"a b\", \"direction\": \"lower\"}, "
	    MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: metric.name: \"a b\" is not a metric name "
	    "([A-Za-z0-9_.], at most 63 bytes)") == 0, "bad metric "
	    "name");
	e = manifest_err(dir, "{\"name\": \"\", \"kind\": \"exec\", "
	    MAN_METRIC MAN_WL MAN_REST "}");
	OK(strcmp(e, "problem.json: name: must not be empty") == 0,
	    "empty name");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"/b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: baseline: must be a directory inside the "
	    "problem") == 0, "absolute baseline");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\"}, \"score\": {\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: mutable: must not be empty") == 0,
	    "empty mutable");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"run\": "
	    "{\"cmd\": \"./r\", \"timeout_s\": \"5\"}, \"score\": {\"cmd\": "
	    "\"./s\"}}}");
	OK(strcmp(e, "problem.json: stages.run.timeout_s: must be a number, "
	    "not a string") == 0, "a timeout of the wrong type");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL "\"scales\": [1], "
	    "\"baseline\": \"b\", \"mutable\": [\"x\"], \"stages\": {\"score\": "
	    "{\"cmd\": \"./s\"}}}");
	OK(strcmp(e, "problem.json: stages.run: missing") == 0,
	    "the run stage is required");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC MAN_WL MAN_REST ", \"limits\": "
	    "{\"warmup\": 1.5}}");
	OK(strcmp(e, "problem.json: limits.warmup: must be a whole number from "
	    "0 to 1000000") == 0, "a fractional warm-up");
	e = manifest_err(dir, "{\"name\": \"toy\", \"kind\": \"exec\"");
	OK(strncmp(e, "problem.json: invalid JSON", 26) == 0,
	    "invalid JSON");
	e = manifest_err(dir, "[1, 2]");
	OK(strcmp(e, "problem.json: : must be an object, not an array") == 0 ||
	    strcmp(e, "problem.json: must be an object, not an array") == 0,
	    "not an object");
	OK(ar_op_holds(AR_OP_LE, 1, 1) && !ar_op_holds(AR_OP_LT, 1, 1) &&
	    ar_op_holds(AR_OP_GE, 2, 1) && !ar_op_holds(AR_OP_GT, 1, 2) &&
	    ar_op_holds(AR_OP_EQ, 0, 0) && !ar_op_holds(AR_OP_EQ, 0, 1e-300),
	    "operators, == exact");
	OK(strcmp(ar_op_name(AR_OP_GE), ">=") == 0 && strcmp(ar_op_name(99),
	    "?") == 0, "operator names");
	unit_rmtree(dir);
}

/* A workload's roofline: bytes and flops per run, the compute roof. */
static void
roofline(void)
{
	char *dir = unit_tmpdir(), err[512];
	struct ar_manifest m;
	const char *e;

	unit_put(dir, "problem.json", MAN_HEAD MAN_METRIC "\"workloads\": "
	    "[{\"name\": \"w\", \"dev_seeds\": [1], \"bytes\": 1e6, "
	    "\"flops\": 2e9, \"dtype\": \"fp8\"}, {\"name\": \"v\", "
	    "\"dev_seeds\": [1]}], " MAN_REST "}", 0644);
	OK(ar_manifest_read(&m, dir, err, sizeof err) == 0 &&
	    m.workload[0].bytes == 1e6 && m.workload[0].flops == 2e9 &&
	    strcmp(m.workload[0].dtype, "fp8") == 0, "roofline: bytes, flops, "
	    "dtype");
	OK(isnan(m.workload[1].bytes) && isnan(m.workload[1].flops) &&
	    m.workload[1].dtype == NULL, "roofline: NAN and NULL when not "
	    "declared");
	ar_manifest_free(&m);
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"dev_seeds\": [1], \"flops\": 1, \"dtype\": "
	    "\"fp16\"}], " MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].dtype: must be \"bf16\" or "
	    "\"fp8\"") == 0, "roofline: an unknown dtype");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"dev_seeds\": [1], \"dtype\": \"bf16\"}], " MAN_REST
	    "}");
	OK(strcmp(e, "problem.json: workloads[0].dtype: given, but the "
	    "workload declares no \"flops\"") == 0, "roofline: a dtype needs "
	    "flops");
	e = manifest_err(dir, MAN_HEAD MAN_METRIC "\"workloads\": [{\"name\": "
	    "\"w\", \"dev_seeds\": [1], \"bytes\": 0}], " MAN_REST "}");
	OK(strcmp(e, "problem.json: workloads[0].bytes: must be greater than "
	    "0") == 0, "roofline: bytes must be positive");
	unit_rmtree(dir);
}

const struct unit_test unit_manifest[] = {
	TEST(manifest),
	TEST(roofline),
	UNIT_END,
};
