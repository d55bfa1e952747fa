#!/bin/sh
# report_golden.sh TRMS SOURCE_ROOT [--update] - `trms report` prints, byte
# for byte, what it printed when tests/report-golden/expected/ was made:
# for each profile of tests/report-golden/profiles (the bundled examples,
# profiled once) and of the test corpus tests/fuzz/corpus (good and bad
# profiles), every form of the report (the table, --json, --tuples,
# --tree, --folded, --threads, --size rms, --stat mean, --stat best), its
# standard output, standard error and exit status.  A profile the reader
# refuses is refused before any form is chosen: it is checked in the
# table's form only (two thirds of the corpus; each run of `trms report`
# costs tens of milliseconds of process start-up, in every CI run).  A change of the code
# that must not change what users see (issue 10's redesign) is checked
# against it; a change meant to change the output regenerates the files
# with --update, and the diff shows what changed.
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 TRMS SOURCE_ROOT [--update]" >&2
	exit 2
fi
trms=$1
cd "$2/tests" || exit 2
update=${3:-}
expected=report-golden/expected
work=$(mktemp -d "${TMPDIR:-/tmp}/trms-golden.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
unset NO_COLOR TRMS_OUTPUT
LC_ALL=C
export LC_ALL

forms="table --json --tuples --tree --folded --threads --size=rms --stat=mean --stat=best"

# Every form's result, one after the other, for profile $1; only the
# first if it is refused (exit status 2).
report_all() {
	for form in $forms; do
		echo "=== trms report $form"
		if [ "$form" = table ]; then
			"$trms" report "$1" >"$work/out" 2>"$work/err"
		else
			"$trms" report $(echo "$form" | tr = ' ') "$1" \
				>"$work/out" 2>"$work/err"
		fi
		status=$?
		echo "exit $status"
		cat "$work/out"
		echo "--- stderr"
		cat "$work/err"
		[ "$status" -eq 2 ] && break
	done
}

failures=0 checked=0
[ -n "$update" ] && mkdir -p "$expected"
for profile in report-golden/profiles/*.trms fuzz/corpus/*; do
	name=$(basename "$profile")
	report_all "$profile" >"$work/got"
	if [ -n "$update" ]; then
		cp "$work/got" "$expected/$name"
	elif ! cmp -s "$work/got" "$expected/$name"; then
		echo "FAIL $profile: the report differs from $expected/$name:"
		diff "$expected/$name" "$work/got" | head -20
		failures=$((failures + 1))
	fi
	checked=$((checked + 1))
done
echo "$checked profiles, $failures differing"
[ $failures -eq 0 ]
