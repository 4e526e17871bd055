/* buf.h: a growable byte buffer, always NUL-terminated. */
#ifndef AR_BUF_H
#define AR_BUF_H

#include <stddef.h>

struct ar_buf {
	char *p;
	size_t len, cap;
};
void *ar_xmalloc(size_t n);
void *ar_xcalloc(size_t n, size_t size);
void *ar_xrealloc(void *p, size_t n);
char *ar_xstrdup(const char *s);
char *ar_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ar_buf_reserve(struct ar_buf *b, size_t extra);
void ar_buf_add(struct ar_buf *b, const void *p, size_t n);
void ar_buf_adds(struct ar_buf *b, const char *s);
void ar_buf_addc(struct ar_buf *b, char c);
void ar_buf_printf(struct ar_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ar_buf_clear(struct ar_buf *b);
/* qsort(3) that accepts no elements and a NULL base. */
void ar_sort(void *base, size_t n, size_t size,
	int (*cmp)(const void *, const void *));
void ar_buf_free(struct ar_buf *b);

#endif
