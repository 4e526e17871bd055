/* metric.c: unit tests of lib/metric: METRIC lines as a score stage
 * prints them, the last duplicate winning, and the lines refused. */
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "unit.h"

static void
lines(void)
{
	const char *t = "building\nMETRIC tok_s=1234.5\nMETRIC p95_ms=20\n"
	    "noise METRIC x=1\nMETRIC tok_s=1300\nMETRIC compile_\xc2\xb5s=7e2\r\n";
	struct ar_metric *m;
	size_t n;
	char err[256];

	OK(ar_metrics_parse(t, strlen(t), &m, &n, err, sizeof err) == 0 &&
	    n == 3 && strcmp(m[0].name, "tok_s") == 0 && m[0].value == 1300 &&
	    strcmp(m[1].name, "p95_ms") == 0 && m[1].value == 20 &&
	    strcmp(m[2].name, "compile_\xc2\xb5s") == 0 && m[2].value == 700,
	    "lines parsed, last duplicate wins, µ allowed");
	free(m);
	m = NULL;
	OK(ar_metrics_parse("METRIC a=nan\n", 13, &m, &n, err, sizeof err) < 0
	    && strstr(err, "line 1: METRIC a: 'nan' is not a finite number"),
	    "NaN refused");
	OK(m == NULL && n == 0, "a refusal leaves no metrics");
	OK(ar_metrics_parse("x\nMETRIC a b=1\n", 15, &m, &n, err, sizeof err)
	    < 0 && strstr(err, "line 2: METRIC name"), "bad name");
	OK(ar_metrics_parse("METRIC a=\n", 10, &m, &n, err, sizeof err) < 0 &&
	    strstr(err, "no value"), "no value");
	OK(ar_metrics_parse("METRIC a=1e999\n", 15, &m, &n, err, sizeof err)
	    < 0, "infinity refused");
	OK(ar_metrics_parse("", 0, &m, &n, err, sizeof err) == 0 && n == 0 &&
	    m == NULL, "no lines, no metrics");
	OK(ar_metrics_parse("METRIC a=1", 10, &m, &n, err, sizeof err) == 0 &&
	    n == 1 && m[0].value == 1, "a last line without a newline");
	free(m);
}

const struct unit_test unit_metric[] = {
	TEST(lines),
	UNIT_END,
};
