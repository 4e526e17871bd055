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

# poll CMD...: runs CMD (its stderr thrown away) every 0.05 s until it
# succeeds, for POLL_S seconds at most (default 60: only a hang takes so
# long, even on a loaded machine); fails when CMD never did.
poll() {
	local end=$((EPOCHSECONDS + ${POLL_S:-60}))
	until "$@" 2>/dev/null; do
		if [ "$EPOCHSECONDS" -ge "$end" ]; then
			echo "poll: $* did not succeed in ${POLL_S:-60} s" >&2
			return 1
		fi
		sleep 0.05
	done
}

# replace FILE: replaces FILE with standard input, whole, through a
# temporary and a rename: a program that reads FILE meanwhile (a fake
# squeue, say) sees the old content or the new, never a part.
replace() {
	cat > "$1.tmp.$$"
	mv -f "$1.tmp.$$" "$1"
}
