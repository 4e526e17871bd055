/* utf8.c: strict UTF-8 validation (no overlongs, no surrogates). */
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
			i++;
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
