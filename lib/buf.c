/* buf.c: allocation that dies on failure, and growable buffers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"

void *
ar_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		ar_die(AR_EX_SOFTWARE, "out of memory");
	return p;
}

void *
ar_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		ar_die(AR_EX_SOFTWARE, "out of memory");
	return p;
}

void *
ar_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		ar_die(AR_EX_SOFTWARE, "out of memory");
	return p;
}

char *
ar_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(ar_xmalloc(n), s, n);
}

char *
ar_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		ar_die(AR_EX_SOFTWARE, "out of memory");
	va_end(ap);
	return s;
}

void
ar_buf_reserve(struct ar_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 256;
	while (b->cap < need)
		b->cap *= 2;
	b->p = ar_xrealloc(b->p, b->cap);
	b->p[b->len] = '\0';
}

void
ar_buf_add(struct ar_buf *b, const void *p, size_t n)
{
	ar_buf_reserve(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
ar_buf_adds(struct ar_buf *b, const char *s)
{
	ar_buf_add(b, s, strlen(s));
}

void
ar_buf_addc(struct ar_buf *b, char c)
{
	ar_buf_reserve(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

void
ar_buf_printf(struct ar_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		ar_die(AR_EX_SOFTWARE, "bad format");
	ar_buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
ar_buf_clear(struct ar_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void
ar_buf_free(struct ar_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void
ar_sort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *))
{
	/* qsort's pointer must not be NULL, even for no elements. */
	if (n > 1)
		qsort(base, n, size, cmp);
}
