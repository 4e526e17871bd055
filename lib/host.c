/* host.c: this machine's name, full and short; host.h says which form
 * goes where. */
#include <string.h>
#include <unistd.h>

#include "host.h"

static char full[256], brief[256];

static void
load(void)
{
	char *dot;

	if (full[0])
		return;
	if (gethostname(full, sizeof full - 1) < 0 || !full[0])
		strcpy(full, "localhost");
	full[sizeof full - 1] = '\0';
	strcpy(brief, full);
	/* A name that starts with a dot keeps it: nothing would be left. */
	dot = strchr(brief, '.');
	if (dot && dot != brief)
		*dot = '\0';
}

const char *
ar_host(void)
{
	load();
	return full;
}

const char *
ar_host_short(void)
{
	load();
	return brief;
}

int
ar_host_same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la == lb)
		return strcmp(a, b) == 0;
	if (la > lb)
		return strncmp(a, b, lb) == 0 && a[lb] == '.';
	return strncmp(a, b, la) == 0 && b[la] == '.';
}
