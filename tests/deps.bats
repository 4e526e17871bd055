#!/usr/bin/env bats
# scripts/deps: what each make goal needs, from the one list
# scripts/deps.tsv: present (exit 0), missing and named with the one
# command that installs it (exit 69, nothing built), installed with
# apt-get as root (a stand-in apt-get here), a malformed list (70), a bad
# goal (64); and the README's table is the list's.

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_setup ar-ledger
	cd "$T"
	unset AR_DEPS_DONE AR_DEPS_SAID AR_DEPS_FILE AR_DEPS_APT AR_DEPS_UID
	# A list of two packages: one whose command is on PATH, one that
	# is not (yet).
	mkdir bin
	printf '#!/bin/sh\n' > bin/here-cmd
	chmod +x bin/here-cmd
	printf 'here\tbuild\tcmd:here-cmd\talways here\nthere\tdemo,check\tcmd:there-cmd\tneeded to test\n' > list.tsv
	export PATH="$T/bin:$PATH"
}

teardown() {
	ar_teardown
}

@test "deps: what a goal needs is present: exit 0, nothing said of packages" {
	run --separate-stderr env AR_DEPS_FILE=list.tsv "$TOP/scripts/deps" build
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	not grep -q 'install' <<< "$stderr"
}

@test "deps: missing, not root: the package, the command that installs it, exit 69" {
	run --separate-stderr env AR_DEPS_FILE=list.tsv AR_DEPS_UID=1000 "$TOP/scripts/deps" check
	[ "$status" -eq 69 ]
	[ -z "$output" ]
	same "$(grep -v 'GPU' <<< "$stderr")" \
	    "deps: make check needs what is not installed: there; install it with: sudo apt-get install -y --no-install-recommends there"
}

@test "deps: -n never installs, even as root: exit 69, no sudo in the command" {
	printf '#!/bin/sh\necho "$@" >> "%s/apt.log"\n' "$T" > bin/fake-apt
	chmod +x bin/fake-apt
	run --separate-stderr env AR_DEPS_FILE=list.tsv AR_DEPS_UID=0 AR_DEPS_APT=fake-apt "$TOP/scripts/deps" -n demo
	[ "$status" -eq 69 ]
	[ ! -e apt.log ]
	grep -qx 'deps: make demo needs what is not installed: there; install it with: apt-get install -y --no-install-recommends there' <<< "$stderr"
}

@test "deps: missing, as root: apt-get installs it, saying what and why on stderr" {
	# The stand-in apt-get "installs" there-cmd and logs its calls.
	cat > bin/fake-apt <<-APT
	#!/bin/sh
	echo "\$@" >> "$T/apt.log"
	echo "apt says something"
	if [ "\$1" = install ]; then printf '#!/bin/sh\n' > "$T/bin/there-cmd"; chmod +x "$T/bin/there-cmd"; fi
	APT
	chmod +x bin/fake-apt
	run --separate-stderr env AR_DEPS_FILE=list.tsv AR_DEPS_UID=0 AR_DEPS_APT=fake-apt "$TOP/scripts/deps" check
	[ "$status" -eq 0 ]
	# stdout is make's.
	[ -z "$output" ]
	grep -qx 'deps: installing with apt-get, for make check:' <<< "$stderr"
	grep -qx '  there: needed to test' <<< "$stderr"
	# apt's chatter is not shown when it succeeds.
	not grep -q 'apt says something' <<< "$stderr"
	same "$(cat apt.log)" "update -qq
install -y -qq --no-install-recommends there"
}

@test "deps: apt-get fails, or installs nothing: exit 69, saying so" {
	printf '#!/bin/sh\n[ "$1" = update ] || { echo "E: Unable to locate package there"; exit 100; }\n' > bin/fake-apt
	chmod +x bin/fake-apt
	run --separate-stderr env AR_DEPS_FILE=list.tsv AR_DEPS_UID=0 AR_DEPS_APT=fake-apt "$TOP/scripts/deps" check
	[ "$status" -eq 69 ]
	grep -qx 'deps: apt-get install there failed' <<< "$stderr"
	# When it fails, what apt said is shown.
	grep -qx 'E: Unable to locate package there' <<< "$stderr"
	printf '#!/bin/sh\nexit 0\n' > bin/fake-apt
	run --separate-stderr env AR_DEPS_FILE=list.tsv AR_DEPS_UID=0 AR_DEPS_APT=fake-apt "$TOP/scripts/deps" check
	[ "$status" -eq 69 ]
	grep -qx 'deps: still missing after apt-get install: there' <<< "$stderr"
}

@test "deps: a package of another goal is not asked for" {
	run --separate-stderr env AR_DEPS_FILE=list.tsv AR_DEPS_UID=1000 "$TOP/scripts/deps" build lint
	[ "$status" -eq 0 ]
}

@test "deps: headers, static libraries and files are probed, not only commands" {
	mkdir lib
	: > lib/libhere.a
	printf 'h\tbuild\thdr:stdio.h\tc\nl\tbuild\tlib:libhere.a\tl\nf\tbuild\tfile:%s/lib/libh*.a\tf\nnh\tbuild\thdr:no/such/header.h\tx\nnl\tbuild\tlib:libnosuch.a\ty\nnf\tbuild\tfile:/no/such/*.a\tz\n' "$T" > l2.tsv
	run --separate-stderr env AR_DEPS_FILE=l2.tsv AR_DEPS_UID=1000 AR_DEPS_LIBDIR="$T/lib" "$TOP/scripts/deps" build
	[ "$status" -eq 69 ]
	grep -q 'not installed: nh nl nf;' <<< "$stderr"
}

@test "deps: a malformed or missing list is exit 70 naming the line; a bad goal 64" {
	printf 'ok\tbuild\tcmd:sh\tfine\nbroken line without tabs\n' > bad.tsv
	run --separate-stderr env AR_DEPS_FILE=bad.tsv "$TOP/scripts/deps" build
	[ "$status" -eq 70 ]
	same "$stderr" "deps: bad.tsv:2: not four tab-separated fields (package, goals, cmd:|hdr:|lib:|file: probe, why)"
	printf 'x\tbuild\tprobe:sh\twhy\n' > bad.tsv
	run --separate-stderr env AR_DEPS_FILE=bad.tsv "$TOP/scripts/deps" build
	[ "$status" -eq 70 ]
	run --separate-stderr env AR_DEPS_FILE=nonexistent.tsv "$TOP/scripts/deps" build
	[ "$status" -eq 70 ]
	same "$stderr" "deps: nonexistent.tsv: cannot read the package list"
	run --separate-stderr "$TOP/scripts/deps" frobnicate
	[ "$status" -eq 64 ]
	grep -qx 'deps: frobnicate: unknown goal' <<< "$stderr"
	run --separate-stderr "$TOP/scripts/deps"
	[ "$status" -eq 64 ]
}

@test "deps: make with something missing stops before building anything" {
	run --separate-stderr env AR_DEPS_FILE="$T/list.tsv" AR_DEPS_UID=1000 \
	    make -C "$TOP" O="$T/b" check
	[ "$status" -ne 0 ]
	[ ! -e "$T/b" ]
	grep -q 'deps: make check needs what is not installed: there;' <<< "$stderr"
	grep -q 'nothing was built' <<< "$stderr"
	# So does make demo, and plain make for a build package.
	printf 'gone\tbuild\tcmd:gone-cmd\tx\n' > l3.tsv
	run --separate-stderr env AR_DEPS_FILE="$T/l3.tsv" AR_DEPS_UID=1000 make -C "$TOP" O="$T/b"
	[ "$status" -ne 0 ]
	[ ! -e "$T/b" ]
	grep -q 'deps: make build needs what is not installed: gone;' <<< "$stderr"
	# A dry run, and goals that need nothing (uninstall, clean), check
	# nothing. (Not clean itself here: it removes the tree's build.)
	run env AR_DEPS_FILE="$T/l3.tsv" AR_DEPS_UID=1000 make -C "$TOP" O="$T/b" DESTDIR="$T/d" uninstall
	[ "$status" -eq 0 ]
	run env AR_DEPS_FILE="$T/l3.tsv" AR_DEPS_UID=1000 make -n -C "$TOP" O="$T/b" check
	[ "$status" -eq 0 ]
	[ ! -e "$T/b" ]
}

@test "deps: a real user who is not root is told the command, with sudo" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to become another user"
	command -v runuser >/dev/null || skip "runuser (util-linux) is needed"
	# bats's scratch directory is private: the other user gets its own.
	# The tree may be private too (/root/...): the script is copied.
	pub=$(mktemp -d /tmp/deps-test.XXXXXX)
	cp list.tsv "$TOP/scripts/deps" "$pub/"
	chmod 755 "$pub" "$pub/deps"
	chmod 644 "$pub/list.tsv"
	run --separate-stderr runuser -u nobody -- env -C / PATH=/usr/bin:/bin AR_DEPS_FILE="$pub/list.tsv" "$pub/deps" demo
	rm -rf "$pub"
	[ "$status" -eq 69 ]
	# here-cmd is not on that user's PATH: both are missing there.
	grep -qx 'deps: make demo needs what is not installed: here there; install it with: sudo apt-get install -y --no-install-recommends here there' <<< "$stderr"
}

@test "deps: the README's table is scripts/deps -m, and .ci/run uses scripts/deps" {
	run "$TOP/scripts/deps" -m
	[ "$status" -eq 0 ]
	table=$output
	grep -qF -- "$table" "$TOP/README.md" || {
		echo "README.md's dependency table differs from scripts/deps -m:" >&2
		echo "$table" >&2
		false
	}
	# Each package of the list is in the table, once.
	n=$(grep -vc '^#' "$TOP/scripts/deps.tsv")
	[ "$(grep -c '^| [a-z]' <<< "$table")" -eq $((n + 1)) ]
	grep -qx 'scripts/deps check' "$TOP/.ci/run"
	# No second install line to drift.
	not grep -q 'apt-get install -y gcc' "$TOP/README.md"
}
