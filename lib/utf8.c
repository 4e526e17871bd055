/* utf8.c: strict UTF-8 validation (no overlongs, no surrogates). */
#include <stdint.h>
#include <string.h>

#include "utf8.h"

long
ar_utf8_invalid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n, k;
	unsigned cp;

	while (i < len) {
		unsigned char c = s[i];

		if (c < 0x80) {
			uint64_t w;

			/* ASCII eight bytes at a time: most text is ASCII. */
			i++;
			while (i + 8 <= len) {
				memcpy(&w, s + i, 8);
				if (w & 0x8080808080808080ULL)
					break;
				i += 8;
			}
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return (long)i;
		for (k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (long)i;
		i += n + 1;
	}
	return -1;
}

size_t
ar_utf8_prefix(const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strnlen(str, max), i;

	if (len < max || s[len] == '\0' || (s[len] & 0xc0) != 0x80)
		return len;
	/* s[len] continues a character: back up to where it starts. */
	for (i = len; i > 0 && (s[i - 1] & 0xc0) == 0x80; i--)
		;
	return i > 0 ? i - 1 : 0;
}

void
ar_utf8_repair(char *s)
{
	size_t len = strlen(s), off = 0;
	long bad;

	while ((bad = ar_utf8_invalid(s + off, len - off)) >= 0) {
		s[off + (size_t)bad] = '?';
		off += (size_t)bad + 1;
	}
}
