/* conf.h: "key = value" lines, '#' comments. */
#ifndef AR_CONF_H
#define AR_CONF_H

#include <stddef.h>

struct ar_conf {
	size_t n;
	char **key, **val;
};
int ar_conf_read(struct ar_conf *c, const char *path, char *err, size_t errlen);
const char *ar_conf_get(const struct ar_conf *c, const char *key);
void ar_conf_free(struct ar_conf *c);

#endif
