/* utf8.h: UTF-8 validity. */
#ifndef AR_UTF8_H
#define AR_UTF8_H

#include <stddef.h>

/* utf8.c */
/* Returns the offset of the first invalid UTF-8 byte, or -1 if valid. */
long ar_utf8_invalid(const char *s, size_t len);
/* The length of the longest prefix of the string s of at most max bytes
 * that does not end inside a character: where to cut valid UTF-8. */
size_t ar_utf8_prefix(const char *s, size_t max);
/* Replaces every byte that is not part of valid UTF-8 (a character cut
 * in two included) by '?', in place. */
void ar_utf8_repair(char *s);

#endif
