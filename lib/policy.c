/* policy.c: a placeholder until the real policy lands (issue 5). */
#include <string.h>

#include "policy.h"

int
ar_pol_kindex(long k)
{
	return k == 1 ? 0 : k == 2 ? 1 : k == 4 ? 2 : k == 8 ? 3 : -1;
}

long
ar_pol_k(int ki)
{
	return 1L << ki;
}

const char *
ar_pol_purpose_name(int p)
{
	static const char *const name[] = { "probe", "scale", "validate", "aa" };

	return p >= 0 && p < 4 ? name[p] : "?";
}

const char *
ar_pol_name(int p)
{
	static const char *const name[] = { "ours", "flat1", "grid", "sha" };

	return p >= 0 && p < 4 ? name[p] : "?";
}

int
ar_pol_parse(const char *s)
{
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, ar_pol_name(i)) == 0)
			return i;
	return -1;
}

size_t
ar_policy_next(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, struct ar_pol_pick *out, size_t max)
{
	(void)m; (void)n; (void)c; (void)out; (void)max;
	return 0;
}

int
ar_policy_best(const struct ar_pol_method *m, size_t n,
	const struct ar_pol_cfg *c, size_t *method, int *ki)
{
	(void)m; (void)n; (void)c; (void)method; (void)ki;
	return -1;
}
