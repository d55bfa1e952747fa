#!/bin/sh
# windows.sh TRMS PROGRAM DIR STRESS - profiles while running (TRMS_INTERVAL):
# the program (windows_prog.c: two threads, a fork, a region open at exit)
# runs for about a second with windows every 0.1 s and costs in events.
# Checked: several windows beside each process's profile, numbered from 1
# with their times in the meta; the windows of each process merged with
# `trms merge` give, tuple for tuple (`trms report --tuples`), that
# process's profile at exit; `trms report DIR` leaves the windows out and
# `trms report --windows DIR` shows them; the same under `trms run
# --interval`; a window that cannot be written is said once and the run
# goes on.  Then STRESS (windows_stress.c: more threads than CPUs, busy
# inside regions and between them, one ending and one starting half-way)
# runs TRMS_WINDOWS_RUNS times (default 6) with a window every 0.05 s:
# in every run the windows add up to the profile, tuple for tuple, and
# each window but the last holds some thread's activations.
set -u
trms=$1 program=$2 dir=$3/windows-test stress=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failed=0
check() { # check WHAT COMMAND...
	what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failed=1; fi
}

# The windows of each process add up to its profile.
adds_up() { # adds_up DIR
	found=0
	for whole in "$1"/*.trms; do
		case $whole in *.w[0-9]*.trms) continue ;; esac
		stem=${whole%.trms}
		set -- "$stem".w*.trms
		[ -e "$1" ] || { echo "no windows beside $whole"; return 1; }
		[ $# -ge 2 ] || { echo "only $# windows beside $whole"; return 1; }
		"$trms" merge -o "$stem.merged" "$@" || return 1
		"$trms" report --tuples "$stem.merged" >"$stem.merged.tuples" &&
		"$trms" report --tuples "$whole" >"$stem.tuples" || return 1
		cmp -s "$stem.merged.tuples" "$stem.tuples" || {
			diff "$stem.merged.tuples" "$stem.tuples" | head
			return 1
		}
		[ "$(wc -l <"$stem.tuples")" -gt 2 ] || return 1
		# The merge says which windows it holds, and so does the
		# report.
		grep -q "^meta window 1 2 " "$stem.merged" || {
			echo "$stem.merged: $(grep '^meta window ' "$stem.merged")"
			return 1
		}
		"$trms" report "$stem.merged" | grep -q '^Windows 1 2 .* merged' ||
			{ echo "report of $stem.merged: no windows line"; return 1; }
		rm -f "$stem.merged"
		found=$((found + 1))
	done
	[ "$found" -eq 2 ] || { echo "$found processes, not 2"; return 1; }
}

meta_ok() { # the first window's meta: number 1, start before end
	w=$(ls "$1"/*.w1.trms | head -n 1)
	grep -q '^meta window 1$' "$w" &&
	start=$(sed -n 's/^meta window_start_ns //p' "$w") &&
	end=$(sed -n 's/^meta window_end_ns //p' "$w") &&
	[ -n "$start" ] && [ -n "$end" ] && [ "$start" -lt "$end" ]
}

export TRMS_COST=events TRMS_SAMPLE_HZ=0
mkdir "$dir/env"
TRMS_INTERVAL=0.1 TRMS_OUTPUT="$dir/env/%e.%p.trms" "$program" 2>"$dir/env.err"
check "the program ran with windows" [ $? -eq 0 ]
check "windows add up to each profile (TRMS_OUTPUT)" adds_up "$dir/env"
check "a window's meta" meta_ok "$dir/env"
"$trms" report "$dir/env" >"$dir/report.txt" 2>&1
check "trms report DIR leaves windows out" \
	sh -c "\"$trms\" report --tuples \"$dir/env\"/*[0-9][0-9].trms | cmp -s - \"$dir/dir.tuples\" 2>/dev/null || \"$trms\" report --tuples \"$dir/env\" >\"$dir/dir.tuples\" && ! grep -q '\.w[0-9]' \"$dir/dir.tuples\"" 
"$trms" report --windows "$dir/env" >"$dir/windows.txt" 2>&1
check "trms report --windows" grep -q '^  *2 ' "$dir/windows.txt"
check "report --windows refuses a whole profile" \
	sh -c "! \"$trms\" report --windows \"$(ls "$dir"/env/*.trms | grep -v '\.w' | head -n 1)\" 2>/dev/null"

# Under trms run: the windows come through its socket, into its directory.
"$trms" run --interval 0.1 -o "$dir/run/" -- "$program" 2>"$dir/run.err"
check "trms run --interval" [ $? -eq 0 ]
check "windows add up to each profile (trms run)" adds_up "$dir/run"
check "trms run counts the windows" grep -q 'windows of the run' "$dir/run.err"

# A window that cannot be written (its directory is missing): said
# once, the program goes on.
TRMS_INTERVAL=0.1 TRMS_OUTPUT="$dir/missing/p.trms" "$program" \
	2>"$dir/full.err"
check "unwritable windows: the program's status" [ $? -eq 0 ]
n=$(grep -c 'cannot write window' "$dir/full.err")
check "unwritable windows: said once per process ($n)" [ "$n" -le 2 ]
check "unwritable windows: said" [ "$n" -ge 1 ]

# Busy threads at every window boundary, run after run.
stress_adds_up() { # stress_adds_up DIR
	set -- "$1"/s.w*.trms
	[ $# -ge 5 ] || { echo "only $# windows"; return 1; }
	"$trms" merge -o "${1%/*}/merged" "$@" || return 1
	"$trms" report --tuples "${1%/*}/merged" >"${1%/*}/merged.tuples" &&
	"$trms" report --tuples "${1%/*}/s.trms" >"${1%/*}/s.tuples" ||
		return 1
	cmp -s "${1%/*}/merged.tuples" "${1%/*}/s.tuples" || {
		diff "${1%/*}/merged.tuples" "${1%/*}/s.tuples" | head -n 6
		return 1
	}
	last=$#
	for w in "$@"; do
		case $w in *.w$last.trms) continue ;; esac
		grep -q '^tuple ' "$w" || { echo "$w: no activation"; return 1; }
	done
}
runs=${TRMS_WINDOWS_RUNS:-6}
bad=0
for i in $(seq 1 "$runs"); do
	mkdir "$dir/stress$i"
	TRMS_INTERVAL=0.05 TRMS_OUTPUT="$dir/stress$i/s.trms" "$stress" 0.6 5 \
		2>"$dir/stress$i/err" || { bad=$((bad + 1)); continue; }
	stress_adds_up "$dir/stress$i" || bad=$((bad + 1))
done
check "busy threads: windows add up to the profile in $((runs - bad)) of $runs runs" \
	[ "$bad" -eq 0 ]

# Bad values: one clear message.
TRMS_INTERVAL=0.001 "$program" 2>"$dir/bad.err" >/dev/null
check "TRMS_INTERVAL=0.001 refused" grep -q 'TRMS_INTERVAL=0.001 is not valid' "$dir/bad.err"
exit $failed
