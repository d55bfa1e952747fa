#!/bin/sh
# outputs.sh TRMS PROFILE WORKDIR - the files `trms report --html` and
# `--pprof` write go in place as profiles do (src/base/atomic_file.h, through
# tools/util/output_file.c): whole or not at all, and never over what is
# not a regular file.  A FIFO at OUT is refused (exit status 1, one line
# naming OUT) and left a FIFO; a regular file is replaced whole; /dev/null
# is written to in place.
set -u
trms=$1 profile=$2 work=$3
. "$(dirname "$0")/../checks.sh"
fresh_dir "$work"

for form in html pprof; do
	fifo=$work/fifo.$form
	mkfifo "$fifo" || exit 1
	status=0
	"$trms" report --$form "$fifo" "$profile" >"$work/out" 2>"$work/err" ||
		status=$?
	[ "$status" -eq 1 ] || fail "--$form into a FIFO: exit status $status"
	[ -p "$fifo" ] || fail "--$form replaced the FIFO"
	grep -q "cannot create $fifo: it is a FIFO" "$work/err" ||
		fail "--$form into a FIFO: '$(cat "$work/err")'"

	file=$work/out.$form
	echo old >"$file"
	"$trms" report --$form "$file" "$profile" 2>"$work/err" ||
		fail "--$form: $(cat "$work/err")"
	[ "$(cat "$file")" = old ] && fail "--$form left the old file"
	[ -s "$file" ] || fail "--$form wrote nothing"

	"$trms" report --$form /dev/null "$profile" 2>"$work/err" ||
		fail "--$form /dev/null: $(cat "$work/err")"
	[ -c /dev/null ] || fail "--$form replaced /dev/null"
done

finish outputs
