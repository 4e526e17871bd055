/* fuzz.h: what the libFuzzer targets of tests/fuzz share. Each target
 * feeds its input to one parser of lib/ and checks what the parser
 * promises; a crash, a sanitizer report or a failed check is a finding.
 * `make fuzz` builds and runs them (tests/fuzz/README). */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A check the parser promises: abort(), which libFuzzer reports. */
#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, \
	"fuzz: %s:%d: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

/* The input as a NUL-terminated string, malloc'd. */
static inline char *
fuzz_str(const uint8_t *d, size_t n)
{
	char *s = malloc(n + 1);

	memcpy(s, d, n);
	s[n] = '\0';
	return s;
}

/* The input written to a fresh file in dir (made once), its path in
 * path[]: for the parsers that read files. */
static inline void
fuzz_file(const uint8_t *d, size_t n, const char *name, char *path,
    size_t pn)
{
	static char dir[64];
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/ar-fuzz.%ld", (long)getpid());
		mkdir(dir, 0700);
	}
	snprintf(path, pn, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fwrite(d, 1, n, f);
	fclose(f);
}

#endif
