#!/bin/sh
# hostile.sh CASE LIBRARY BINDIR SCRATCH - run one hostile-program case
# (see meson.build here) with LIBRARY preloaded at 100 Hz and 1 kHz; exit
# status 1 and a line saying what went wrong on any failure.
set -u
case=$1 lib=$2 bin=$3 scratch=$4
unset LD_PRELOAD TRMS_OUTPUT TRMS_VERBOSE TRMS_OFF TRMS_SAMPLE_HZ \
	TRMS_SAMPLE_TRAP TRMS_SAMPLE_TIMER TRMS_RUN_SOCKET
rm -rf "$scratch"
mkdir -p "$scratch" || exit 2
failures=0

fail() {
	echo "FAIL $*"
	failures=$((failures + 1))
}

# run NAME HZ TRAP EXPECTED-OUTPUT PROGRAM ARGS...: one run, preloaded;
# it must exit 0, print EXPECTED-OUTPUT, and leave complete profiles only.
run() {
	name=$1 hz=$2 trap=$3 expect=$4
	shift 4
	out=$scratch/$name
	mkdir -p "$out/profiles" "$out/work"
	TRMS_OUTPUT=$out/profiles/%e.%p.trms TRMS_SAMPLE_HZ=$hz \
		TRMS_SAMPLE_TRAP=$trap LD_PRELOAD=$lib \
		timeout 60 "$@" >"$out/stdout" 2>"$out/stderr"
	status=$?
	if [ $status -ne 0 ]; then
		fail "$name: exit status $status: $(head -c 300 "$out/stderr")"
		return
	fi
	if ! grep -qx "$expect" "$out/stdout"; then
		fail "$name: printed $(head -c 200 "$out/stdout")"
		return
	fi
	profiles=0
	for p in "$out"/profiles/*; do
		[ -e "$p" ] || continue
		if [ "$(head -c 13 "$p")" != "trms-profile " ] ||
			[ "$(tail -n 1 "$p" | cut -d" " -f1)" != "end" ]; then
			fail "$name: $p is not a complete profile"
			return
		fi
		profiles=$((profiles + 1))
	done
	if [ $profiles -lt 1 ]; then
		fail "$name: no profile"
		return
	fi
	echo "ok $name"
}

# toggle: TRMS_SAMPLE_SIGNAL may not name a signal the program cannot
# give up; the process dies of it as without the library.
if [ "$case" = toggle ]; then
	# SIGSEGV SIGBUS SIGILL SIGFPE SIGTRAP SIGSYS on Linux
	for num in 11 7 4 8 5 31; do
		TRMS_SAMPLE_SIGNAL=$num TRMS_OUTPUT=$scratch/%p.trms \
			LD_PRELOAD=$lib sleep 5 2>"$scratch/stderr" &
		pid=$!
		sleep 0.5
		kill -$num $pid
		wait $pid
		status=$?
		if [ $status -ne $((128 + num)) ]; then
			fail "TRMS_SAMPLE_SIGNAL=$num: exit status $status, not $((128 + num))"
		elif ! grep -q TRMS_SAMPLE_SIGNAL "$scratch/stderr"; then
			fail "TRMS_SAMPLE_SIGNAL=$num: no message"
		else
			echo "ok toggle $num refused"
		fi
	done
	[ $failures -eq 0 ] && rm -rf "$scratch"
	[ $failures -eq 0 ]
	exit
fi

for hz in 100 1000; do
	for trap in 1 0; do
		[ $hz = 100 ] && [ $trap = 0 ] && continue
		tag=$hz-trap$trap
		case $case in
		fds)
			run "fds-$tag" $hz $trap "files intact" \
				"$bin/hostile-fds" "$scratch/fds-$tag/work"
			;;
		seccomp)
			for mode in strict filter exit tsync thread; do
				run "seccomp-$mode-$tag" $hz $trap "sandboxed ok" \
					"$bin/hostile-seccomp" $mode
			done
			;;
		*)
			echo "unknown case $case" >&2
			exit 2
			;;
		esac
	done
done
[ $failures -eq 0 ] && rm -rf "$scratch"
[ $failures -eq 0 ]
