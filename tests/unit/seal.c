/* seal.c: unit tests of lib/seal: SEAL written over a problem/, checked
 * unchanged, every kind of change reported, and the SEAL files refused:
 * another key's, another campaign's, altered, malformed, missing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "crypto.h"
#include "seal.h"
#include "unit.h"

static void
report(void *arg, const char *state, const char *path, const char *detail)
{
	ar_buf_printf(arg, "%s %s%s%s;", state, path, *detail ? " " : "",
	    detail);
}

/* Checks the campaign dir against SEAL; the result, the reports in b. */
static int
check(const char *dir, const char *id, const unsigned char *pk,
    struct ar_buf *b, char *err, size_t n)
{
	ar_buf_clear(b);
	ar_buf_reserve(b, 0);
	return ar_seal_check(dir, id, pk, report, b, err, n);
}

static void
sealed(void)
{
	char *dir = unit_tmpdir(), err[512], *t, *p, line[200],
	    h[AR_HASH_HEX];
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES];
	struct ar_buf b = {0};
	struct stat st;

	ar_keypair(pk, sk);
	unit_put(dir, "problem/problem.json", "{}\n", 0644);
	unit_put(dir, "problem/base/run.sh", "echo hi\n", 0755);
	p = unit_path(dir, "problem");
	chmod(p, 0755);
	free(p);
	OK(ar_seal_write(dir, "c1", "the\tproblem", sk, err, sizeof err) == 0,
	    "write");
	t = unit_read(dir, "SEAL");
	p = unit_path(dir, "SEAL");
	OK(t && stat(p, &st) == 0 && (st.st_mode & 0777) == 0444,
	    "SEAL is read-only");
	free(p);
	ar_hash_hex(h, "echo hi\n", 8);
	snprintf(line, sizeof line, "\nfile\t0755\t8\t%s\tbase/run.sh\n", h);
	OK(t && strncmp(t, "autoreduce-seal 1\ncampaign\tc1\nproblem\tthe\\t"
	    "problem\nbuild\tautoreduce-", 54) == 0 && strstr(t, "\ncreated\t")
	    && strstr(t, "\ndir\t0755\t-\t-\t.\n") && strstr(t, line) &&
	    strstr(t, "\ndir\t0755\t-\t-\tbase\n"), "the header, problem/ "
	    "itself, a directory and a file with mode, size and hash");
	OK(t && strstr(t, "\nsig\t") && strlen(strstr(t, "\nsig\t")) == 1 + 4 +
	    128 + 1, "the signature's line last");
	free(t);
	OK(check(dir, "c1", pk, &b, err, sizeof err) == 0 && b.len == 0,
	    "check: unchanged, nothing reported");
	unit_put(dir, "problem/problem.json", "{\"a\":1}\n", 0644);
	p = unit_path(dir, "problem/base/run.sh");
	chmod(p, 0644);
	free(p);
	unit_put(dir, "problem/new.txt", "n\n", 0644);
	p = unit_path(dir, "problem/base/lnk");
	symlink("run.sh", p);
	free(p);
	OK(check(dir, "c1", pk, &b, err, sizeof err) == 4 && strcmp(b.p,
	    "added base/lnk symbolic link;changed base/run.sh mode 0755 -> "
	    "0644;added new.txt;changed problem.json content;") == 0,
	    "check: each change reported, in path order; their count");
	p = unit_path(dir, "problem/problem.json");
	unlink(p);
	mkdir(p, 0755);
	free(p);
	unit_rmtree(unit_path(dir, "problem/base"));
	OK(check(dir, "c1", pk, &b, err, sizeof err) == 4 && strcmp(b.p,
	    "removed base;removed base/run.sh;added new.txt;changed "
	    "problem.json type;") == 0, "check: removed files, a file that "
	    "became a directory");
	unit_rmtree(dir);
	ar_buf_free(&b);
}

static void
refused(void)
{
	char *dir = unit_tmpdir(), err[512], *t, *p, sig[AR_SIG_HEX];
	unsigned char pk[AR_PK_BYTES], sk[AR_SK_BYTES], pk2[AR_PK_BYTES],
	    sk2[AR_SK_BYTES];
	struct ar_buf b = {0}, body = {0};

	ar_keypair(pk, sk);
	ar_keypair(pk2, sk2);
	errno = 0;
	OK(check(dir, "c1", pk, &b, err, sizeof err) == -1 && errno == ENOENT &&
	    strstr(err, "/SEAL: No such file or directory"), "check: no SEAL");
	OK(ar_seal_write(dir, "c1", "p", sk, err, sizeof err) == -1 &&
	    strstr(err, "/problem: No such file or directory"), "write: no "
	    "problem/");
	unit_put(dir, "problem/f", "f\n", 0644);
	p = unit_path(dir, "problem/l");
	symlink("f", p);
	free(p);
	OK(ar_seal_write(dir, "c1", "p", sk, err, sizeof err) == -1 &&
	    strstr(err, "/problem/l: symbolic links are not sealed; copy the "
	    "file itself into the problem"), "write: a link is refused");
	p = unit_path(dir, "problem/l");
	unlink(p);
	free(p);
	ar_seal_write(dir, "c1", "p", sk, err, sizeof err);
	OK(check(dir, "c1", pk2, &b, err, sizeof err) == -2 && strstr(err,
	    "/SEAL: bad signature: the SEAL was altered or signed by another "
	    "key"), "check: another key's SEAL");
	OK(check(dir, "c2", pk, &b, err, sizeof err) == -2 && strstr(err,
	    "/SEAL: belongs to campaign c1, not c2"), "check: another "
	    "campaign's");
	t = unit_read(dir, "SEAL");
	if (t) {
		char *f = strstr(t, "\tf\n");

		f[1] = 'g';
		unit_put(dir, "SEAL", t, 0644);
		f[1] = 'f';
	}
	OK(check(dir, "c1", pk, &b, err, sizeof err) == -2, "check: an altered "
	    "SEAL");
	if (t) {
		ar_buf_adds(&body, t);
		ar_buf_adds(&body, "more\n");
		unit_put(dir, "SEAL", body.p, 0644);
	}
	OK(check(dir, "c1", pk, &b, err, sizeof err) == -3 && strstr(err,
	    "/SEAL: text after the signature"), "check: text after the "
	    "signature is malformed");
	free(t);
	unit_put(dir, "SEAL", "autoreduce-seal 1\ncampaign\tc1\n", 0644);
	OK(check(dir, "c1", pk, &b, err, sizeof err) == -2 && strstr(err,
	    "/SEAL: no signature"), "check: no signature");
	/* Signed, but malformed inside. */
	{
		static const struct {
			const char *body, *err;
		} t2[] = {
			{ "autoreduce-seal 2\n", "/SEAL: not a SEAL file" },
			{ "autoreduce-seal 1\nwhat\ta\tb\n", "/SEAL: line 2: "
			    "unknown record" },
			{ "autoreduce-seal 1\nfile\t0644\t1\th\\q\tx\n", "/SEAL: "
			    "line 2: field 4: unknown escape" },
		};
		size_t i;

		for (i = 0; i < NELEM(t2); i++) {
			ar_buf_clear(&body);
			ar_buf_adds(&body, t2[i].body);
			ar_sign_hex(sig, body.p, body.len, sk);
			ar_buf_printf(&body, "sig\t%s\n", sig);
			unit_put(dir, "SEAL", body.p, 0644);
			OK(check(dir, "c1", pk, &b, err, sizeof err) == -3 &&
			    strstr(err, t2[i].err), "check: signed but "
			    "malformed: \"%s\"", t2[i].err);
		}
	}
	ar_buf_free(&b);
	ar_buf_free(&body);
	unit_rmtree(dir);
}

const struct unit_test unit_seal[] = {
	TEST(sealed),
	TEST(refused),
	UNIT_END,
};
