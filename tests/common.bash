# common.bash: the setup that the test files share; each reads it with
# `load common`.

# ar_setup PROG: the tree's programs (build/bin), scripts and test
# helpers (build/tests) on PATH, unless PROG is installed, so that an
# installed copy is what gets tested; TOP, the source tree; VERSION, the
# version in config.mk; T, the test's own scratch directory.
ar_setup() {
	if ! command -v "$1" >/dev/null 2>&1; then
		PATH="$BATS_TEST_DIRNAME/../build/bin:$BATS_TEST_DIRNAME/../scripts:$BATS_TEST_DIRNAME/../build/tests:$PATH"
	fi
	TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	VERSION=$(sed -n 's/^VERSION = //p' "$TOP/config.mk")
	T=$BATS_TEST_TMPDIR
}

# ar_unlock: sealed problems and campaigns are read-only; bats must be
# able to remove the scratch directory all the same.
ar_unlock() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}
