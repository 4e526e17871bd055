/* metric.h: METRIC lines ("METRIC name=value"), as a score stage prints
 * them; ar-formats(5) has the contract. */
#ifndef AR_METRIC_H
#define AR_METRIC_H

#include <stddef.h>

#define AR_METRIC_NAME 64
struct ar_metric {
	char name[AR_METRIC_NAME];
	double value;
};
/* Every metric of text, the last value of a duplicate winning, in order
 * of first appearance; -1 and a reason naming the line on a malformed
 * METRIC line. Other lines are not metrics and are skipped. */
int ar_metrics_parse(const char *text, size_t len, struct ar_metric **out,
	size_t *n, char *err, size_t errlen);

#endif
