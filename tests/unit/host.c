/* host.c: unit tests of lib/host: this host's full and short names, and
 * when two names are one host. */
#include <string.h>

#include "host.h"
#include "unit.h"

static void
same(void)
{
	static const struct {
		const char *a, *b;
		int same;
	} t[] = {
		{ "node1", "node1", 1 },
		{ "node1", "node1.example.org", 1 },
		{ "node1.example.org", "node1", 1 },
		{ "node1.example.org", "node1.example", 1 },
		{ "node1.a.org", "node1.b.org", 0 },
		{ "node1", "node10", 0 },
		{ "node10", "node1.x", 0 },
		{ "node1x", "node1", 0 },
		{ "node1", "node2", 0 },
		{ "Node1", "node1", 0 },
	};
	size_t i;

	for (i = 0; i < NELEM(t); i++)
		OK(ar_host_same(t[i].a, t[i].b) == t[i].same, "same(%s, %s) is "
		    "%d", t[i].a, t[i].b, t[i].same);
}

static void
names(void)
{
	const char *full = ar_host(), *brief = ar_host_short();

	OK(full[0] && brief[0], "names are not empty (%s, %s)", full, brief);
	OK(strchr(brief, '.') == NULL || brief[0] == '.', "the short name has "
	    "no dot");
	OK(strncmp(full, brief, strlen(brief)) == 0 && (full[strlen(brief)] ==
	    0 || full[strlen(brief)] == '.'), "the short name is the full one "
	    "up to its first dot");
	OK(ar_host_same(full, brief), "the two are one host");
	OK(ar_host() == full, "the name is kept");
}

const struct unit_test unit_host[] = {
	TEST(same),
	TEST(names),
	UNIT_END,
};
