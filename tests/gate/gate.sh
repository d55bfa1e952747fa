#!/bin/sh
# gate.sh TRMS PROGRAM CALLS SHIM DIR INCLUDE LIBDIR - the inline forms of
# trms.h decide what needs no measuring without calling the library:
# gate_prog.c's calls that reach the library are counted by a shim
# preloaded before it (gate_count.c).  CALLS is the same program built
# with TRMS_NO_INLINE.  PROGRAM is built by the project's compiler; the
# checks of the inline forms run on a build by Clang too, if it is
# installed (INCLUDE and LIBDIR: the header's directory and the library's).
#  - every activation measured: every call reaches the library;
#  - TRMS_OFF=1: at most one call of each kind (the first, which tells
#    the thread's inline forms to stop calling);
#  - TRMS_ACTIVATION_SAMPLE=1000: the begins and ends of the measured
#    activations and the accesses inside them, about 1 in 1000; the
#    profile counts every activation begun all the same, and measured
#    about 1 in 1000 (within 5 standard deviations);
#  - TRMS_BUDGET=2 (costs in ns): under half the begins call;
#  - built with TRMS_NO_INLINE: every call does, and the profile says the
#    same of the activations;
#  - nested skipped activations deeper than the inline stack, a region
#    inside itself, and an end naming another region than the innermost
#    (refused with -EINVAL): everything ends, the stack is empty, and a
#    sampled run's tuples are a full run's, with the same costs;
#  - reads before, inside and after a region in one function (the gate's
#    flags, which the inline forms let the compiler keep in a register
#    through a loop of reads, are read again after the begin): a sampled
#    run's tuples are a full run's.
# The inline checks run on the project's build of PROGRAM, on a build by
# the same compiler with -O2, and on one by Clang -O2 if it is installed.
set -u
trms=$1 prog=$2 calls=$3 shim=$4 dir=$5/gate-test include=$6 libdir=$7
here=$(dirname "$0")
. "$here/../checks.sh"
fresh_dir "$dir"

run() { # run NAME [VAR=VALUE...] PROGRAM ARGS...
	name=$1
	shift
	env TRMS_COST=events TRMS_SAMPLE_HZ=0 TRMS_OUTPUT="$dir/$name.trms" \
		GATE_COUNTS="$dir/$name.counts" LD_PRELOAD="$shim" "$@" \
		>"$dir/$name.out" 2>"$dir/$name.err" ||
		fail "$name: exit status $?: $(cat "$dir/$name.err")"
}
count() { # count NAME KIND
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' \
		"$dir/$1.counts"
}
activations() { # activations NAME: "all measured" of region loop
	awk '$1 == "region" && $3 == "loop" { id = $2 }
	     $1 == "activations" && $2 == id { print $4, $5 }' "$dir/$1.trms"
}

# inline_checks CC PROGRAM: the checks of the inline forms, on PROGRAM
# built by CC.
inline_checks() {
	cc=$1 p=$2
	n=20000
	run full "$p" loop $n
	[ "$(count full begin)" -eq $n ] && [ "$(count full read)" -eq $((8 * n)) ] &&
		[ "$(count full write)" -eq $n ] ||
		fail "$cc: full: not every call reached the library: $(cat "$dir/full.counts")"

	run off TRMS_OFF=1 "$p" loop $n
	for kind in begin end read write; do
		[ "$(count off $kind)" -le 1 ] ||
			fail "$cc: TRMS_OFF=1: $(count off $kind) calls of $kind reached the library"
	done

	n=200000
	run sample TRMS_ACTIVATION_SAMPLE=1000 "$p" loop $n
	set -- $(activations sample)
	[ "${1:-}" = $n ] || fail "$cc: 1 in 1000: the profile counts ${1:-no} activations, not $n"
	measured=${2:-0}
	python3 -c "import math, sys; m, n = $measured, $n; \
sys.exit(abs(m - n / 1000) > 5 * math.sqrt(n / 1000 * (1 - 1 / 1000)))" ||
		fail "$cc: 1 in 1000: $measured of $n measured"
	begins=$(count sample begin)
	[ "$begins" -le $((measured + 2)) ] ||
		fail "$cc: 1 in 1000: $begins begins reached the library for $measured measured"
	[ "$(count sample read)" -le $((8 * (measured + 1))) ] &&
		[ "$(count sample write)" -le $((measured + 1)) ] ||
		fail "$cc: 1 in 1000: accesses outside measured activations reached the library: $(cat "$dir/sample.counts")"

	run budget env TRMS_COST=ns TRMS_BUDGET=2 "$p" loop $n
	[ "$(count budget begin)" -lt $((n / 2)) ] ||
		fail "$cc: TRMS_BUDGET=2: $(count budget begin) of $n begins reached the library"

	run nested-full "$p" nested
	run nested-sample TRMS_ACTIVATION_SAMPLE=2 "$p" nested
	for v in nested-full nested-sample; do
		[ "$(cat "$dir/$v.out")" = "depth 0 0 rc -22" ] ||
			fail "$cc: $v: $(cat "$dir/$v.out") (open on the inline stack, or the mismatched end not refused)"
		grep -q 'the innermost open region is "outer"' "$dir/$v.err" ||
			fail "$cc: $v: the mismatched end was not said: $(cat "$dir/$v.err")"
	done
	python3 "$here/../selection/compare.py" "$dir/nested-full.trms" \
		"$dir/nested-sample.trms" >"$dir/nested.compare" ||
		fail "$cc: nested, 1 in 2: $(cat "$dir/nested.compare")"

	run spans-full "$p" spans 2000
	run spans-sample TRMS_ACTIVATION_SAMPLE=2 "$p" spans 2000
	python3 "$here/../selection/compare.py" "$dir/spans-full.trms" \
		"$dir/spans-sample.trms" >"$dir/spans.compare" ||
		fail "$cc: spans, 1 in 2: $(cat "$dir/spans.compare")"
}

inline_checks cc "$prog"
${CC:-cc} -O2 -I"$include" "$here/gate_prog.c" -o "$dir/gate-prog-O2" \
	-L"$libdir" -ltrms -Wl,-rpath,"$libdir" ||
	fail "${CC:-cc} -O2 could not build gate_prog.c"
inline_checks "${CC:-cc} -O2" "$dir/gate-prog-O2"
if command -v clang >/dev/null 2>&1; then
	clang -O2 -I"$include" "$here/gate_prog.c" -o "$dir/gate-prog-clang" \
		-L"$libdir" -ltrms -Wl,-rpath,"$libdir" ||
		fail "clang could not build gate_prog.c"
	inline_checks clang "$dir/gate-prog-clang"
fi

n=200000
run calls TRMS_ACTIVATION_SAMPLE=1000 "$calls" loop $n
[ "$(count calls begin)" -eq $n ] && [ "$(count calls read)" -eq $((8 * n)) ] ||
	fail "TRMS_NO_INLINE: not every call reached the library: $(cat "$dir/calls.counts")"
set -- $(activations calls)
[ "${1:-}" = $n ] || fail "TRMS_NO_INLINE: the profile counts ${1:-no} activations"

finish gate
