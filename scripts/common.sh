# common.sh: what ar-loop, ar-plan and ar-agent share, sourced by each
# after it sets prog and usage. Formats and rules are not decided here:
# campaign.conf, the problem, the mutable paths, method hashes and locks
# are asked of ar-campaign(1), which calls the lib/ module that owns each.
# shellcheck shell=bash

# The toolkit's programs where PATH lacks them (cron's PATH has no
# /usr/local/bin): beside the script (an installation's bin/), else in
# the source tree's build/bin. After PATH, so that PATH's choice stands.
for ar_d in "$ar_here" "$ar_here/../build/bin"; do
	[ ! -x "$ar_d/ar-campaign" ] || PATH=$PATH:$ar_d
done

# logtime: the UTC time and a space before a line on stderr when no one
# watches it (cron's log, a file): AR_LOG_TIME=1 always, 0 never, else
# when stderr is not a terminal.
logtime() {
	case ${AR_LOG_TIME:-} in
	0) return 0 ;;
	1) ;;
	*) [ ! -t 2 ] || return 0 ;;
	esac
	date -u '+%Y-%m-%dT%H:%M:%SZ '
}

# die CODE MESSAGE: "prog: MESSAGE" on stderr, exit CODE; the message is
# kept in died, for an exit trap to pass on.
die() {
	code=$1
	shift
	died=$*
	echo "$(logtime)$prog: $*" >&2
	exit "$code"
}

# say MESSAGE: a line of progress or a warning on stderr.
say() { echo "$(logtime)$prog: $*" >&2; }

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

# our_child_runs PID: whether PID is a child of this shell that runs,
# not yet a zombie. The parent is checked too: once bash has reaped a
# child by itself, its pid may be another process's.
our_child_runs() {
	local st pp
	read -r st 2>/dev/null < "/proc/$1/stat" || return 1
	# The name in field 2 may hold spaces: the state follows the last
	# ')', then the parent's pid.
	st=${st##*) }
	pp=${st#* }
	pp=${pp%% *}
	st=${st%% *}
	[ "$st" != Z ] && [ "$st" != X ] && [ "$pp" = "$BASHPID" ]
}

# stop_children GRACE PID...: stops these children of ours and reaps
# them. A TERM that lands in a child between its fork and its exec is
# taken by the trap the child inherited from us, and lost (about 1 in
# 100 for a subshell on a loaded machine, bench/bench-lost-term.sh), so
# TERM is sent again every 0.2 s; what still runs after GRACE seconds
# gets KILL. Only a pid that is still our child is signalled.
stop_children() {
	local grace=$1 p left i=0 nap=0.05
	shift
	while :; do
		left=0
		for p; do
			our_child_runs "$p" || continue
			left=1
			if [ "$i" -ge $((grace * 5)) ]; then
				kill -KILL "$p" 2>/dev/null || :
			else
				kill -TERM "$p" 2>/dev/null || :
			fi
		done
		if [ "$left" -eq 0 ] || [ "$i" -gt $((grace * 5)) ]; then
			break
		fi
		i=$((i + 1))
		# Most stop at the first TERM: a short first look.
		sleep "$nap"
		nap=0.2
	done
	for p; do
		wait "$p" 2>/dev/null || :
	done
}
