/* utf8.h: UTF-8 validity. */
#ifndef AR_UTF8_H
#define AR_UTF8_H

#include <stddef.h>

/* utf8.c */
/* Returns the offset of the first invalid UTF-8 byte, or -1 if valid. */
long ar_utf8_invalid(const char *s, size_t len);

#endif
