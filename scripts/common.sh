# common.sh: what ar-loop, ar-plan and ar-agent share, sourced by each
# after it sets prog and usage. Formats and rules are not decided here:
# campaign.conf, the problem, the mutable paths, method hashes and locks
# are asked of ar-campaign(1), which calls the lib/ module that owns each.
# shellcheck shell=bash

# die CODE MESSAGE: "prog: MESSAGE" on stderr, exit CODE; the message is
# kept in died, for an exit trap to pass on.
die() {
	code=$1
	shift
	died=$*
	echo "$prog: $*" >&2
	exit "$code"
}

# say MESSAGE: a line of progress or a warning on stderr.
say() { echo "$prog: $*" >&2; }

# num OPTION VALUE: VALUE must be a whole number (exit 64 otherwise).
num() { case $2 in '' | *[!0-9]*) die 64 "$1: expected a whole number, not '$2'" ;; esac; }

# plural N WORD: "1 WORD", "N WORDs".
plural() { if [ "$1" -eq 1 ]; then echo "1 $2"; else echo "$1 ${2}s"; fi; }

# ar_version: the toolkit's version, which make builds into the programs
# from config.mk; the scripts have no copy of it.
ar_version() {
	v=$(ar-campaign --version 2>/dev/null) || v="ar-campaign unknown"
	echo "${v#ar-campaign }"
}

# std_args "$@": -h and --version, as the programs handle them.
std_args() {
	case ${1:-} in
	-h | --help) echo "$usage"; exit 0 ;;
	--version) echo "$prog $(ar_version)"; exit 0 ;;
	esac
}

# conf KEY: campaign.conf's value of KEY in $camp, empty when unset.
conf() { ar-campaign get -C "$camp" -d '' "$1"; }

# find_program: program.md, from AR_PROGRAM, else beside the scripts (a
# source tree) or in share/autoreduce (an installation); empty if none.
find_program() {
	if [ -n "${AR_PROGRAM:-}" ]; then
		echo "$AR_PROGRAM"
		return
	fi
	for p in "${AR_TOP:+$AR_TOP/program.md}" "$ar_here/../program.md" \
	    "$ar_here/../share/autoreduce/program.md"; do
		if [ -n "$p" ] && [ -f "$p" ]; then
			echo "$p"
			return
		fi
	done
}
