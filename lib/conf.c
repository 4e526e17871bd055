/* conf.c: campaign.conf, "key = value" lines and '#' comments. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "io.h"
#include "utf8.h"

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

int
ar_conf_read(struct ar_conf *c, const char *path, char *err, size_t errlen)
{
	struct ar_buf b = {0};
	char *line, *next, *eq, *k;
	size_t lineno = 0;

	memset(c, 0, sizeof *c);
	if (ar_readfile(path, &b, 1 << 20) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (memchr(b.p, '\0', b.len) || ar_utf8_invalid(b.p, b.len) >= 0) {
		snprintf(err, errlen, "%s: not a text file", path);
		goto fail;
	}
	for (line = b.p; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line = trim(line);
		if (*line == '#' || *line == '\0')
			continue;
		if (!(eq = strchr(line, '='))) {
			snprintf(err, errlen, "%s: line %zu: expected "
			    "'key = value'", path, lineno);
			goto fail;
		}
		*eq = '\0';
		k = trim(line);
		if (*k == '\0' || strspn(k, "abcdefghijklmnopqrstuvwxyz"
		    "0123456789_.") != strlen(k)) {
			snprintf(err, errlen, "%s: line %zu: bad key '%s'",
			    path, lineno, k);
			goto fail;
		}
		if (ar_conf_get(c, k)) {
			snprintf(err, errlen, "%s: line %zu: duplicate key "
			    "'%s'", path, lineno, k);
			goto fail;
		}
		c->key = ar_xrealloc(c->key, (c->n + 1) * sizeof *c->key);
		c->val = ar_xrealloc(c->val, (c->n + 1) * sizeof *c->val);
		c->key[c->n] = ar_xstrdup(k);
		c->val[c->n] = ar_xstrdup(trim(eq + 1));
		c->n++;
	}
	ar_buf_free(&b);
	return 0;
fail:
	/* Malformed, not unreadable: errno must not say otherwise. */
	ar_buf_free(&b);
	ar_conf_free(c);
	errno = EINVAL;
	return -1;
}

const char *
ar_conf_get(const struct ar_conf *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->key[i], key) == 0)
			return c->val[i];
	return NULL;
}

void
ar_conf_free(struct ar_conf *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->key[i]);
		free(c->val[i]);
	}
	free(c->key);
	free(c->val);
	memset(c, 0, sizeof *c);
}
