#!/bin/bash
# tests/soak/soak.sh TRMS MEMORY_PROG SCRATCH - the library left on for a
# long time (SOAK_SECONDS each, default 600), checked as an operator would:
#
#  1. redis-server (Debian's) under `trms run --interval 1
#     --activation-sample 100`, loaded the whole time by redis-benchmark
#     (50 clients, SET and GET), after a short native run for the
#     throughput ratio;
#  2. memory_prog soak: 8 MiB mapped at drifting addresses, written, read
#     in a region and unmapped, half of them by a system call the library
#     does not see, and a malloc'd buffer freed and malloc'd again, under
#     TRMS_INTERVAL=1 and TRMS_ACTIVATION_SAMPLE=10.
#
# Every 2 s the process's resident memory (VmRSS) and open descriptors are
# read.  Asserts, after a warm-up of a sixth of the time: the resident
# memory never above the warm-up's largest by more than a tenth plus 32
# MiB (the shadow of memory unmapped unseen grows by that much at least
# before the library compares it with the process's mappings: src/runtime/sweep.h,
# a sawtooth whose top a warm-up of a few samples may miss), the
# descriptors in the last 10 samples at some point no more than at
# warm-up and never more than 2 above (a window being written holds one
# for a moment: a leak raises the floor); every window written
# is readable (trms report --tuples), about one a second; the exit
# status 0; and for redis, that redis-benchmark never failed.  Prints
# the throughput ratio and the memory and descriptor ranges.  Exit status
# 77 if redis is missing (scripts/install-servers installs it).
set -u
trms=$1 prog=$2 scratch=$3/soak
seconds=${SOAK_SECONDS:-600}
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
unset TRMS_OUTPUT TRMS_VERBOSE TRMS_OFF TRMS_COST TRMS_SAMPLE_HZ

rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# watch PID NAME: sample the process every 2 s while it runs, into
# $scratch/NAME.watch ("seconds rss fds").
watch() {
	local pid=$1 out=$scratch/$2.watch t=0
	: >"$out"
	while kill -0 "$pid" 2>/dev/null; do
		local r f
		r=$(rss_kib "$pid") f=$(fds "$pid")
		[ -n "$r" ] && echo "$t $r $f" >>"$out"
		sleep 2
		t=$((t + 2))
	done
}

# judge NAME: the memory and descriptors flat after warm-up.
judge() {
	local out=$scratch/$1.watch warm=$((seconds / 6))
	awk -v warm="$warm" -v name="$1" '
		$1 <= warm { if ($2 > wr) wr = $2; if ($3 > wf) wf = $3; next }
		{ if ($2 > lr) lr = $2; if ($3 > lf) lf = $3; n++
		  last[n % 10] = $3 }
		END {
			low = lf
			for (i in last) if (last[i] < low) low = last[i]
			printf "%s: resident %d KiB at warm-up, %d after; descriptors %d, %d after, %d in the last 10 samples (%d samples)\n",
				name, wr, lr, wf, lf, low, n
			if (!n) { print "no sample after warm-up"; exit 1 }
			if (lr > wr * 1.1 + 32768) { print "resident memory grew"; exit 1 }
			if (low > wf || lf > wf + 2) { print "descriptors grew"; exit 1 }
		}' "$out" || fail "$1: not flat ($(tail -n 3 "$out" | tr '\n' ' '))"
}

# windows DIR NAME: every window readable, about one a second.
windows() {
	local n=0 bad=0
	for w in $(find "$1" -name '*.w[0-9]*.trms'); do
		n=$((n + 1))
		"$trms" report --tuples "$w" >/dev/null 2>&1 || bad=$((bad + 1))
	done
	echo "$2: $n windows, $bad unreadable"
	[ "$bad" -eq 0 ] || fail "$2: $bad windows unreadable"
	[ "$n" -ge $((seconds * 8 / 10)) ] || fail "$2: only $n windows in $seconds s"
}

# --- 1. redis ---------------------------------------------------------------
if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
	port=$((30000 + $$ % 20000))
	bench() { # bench SECONDS: requests per second, SET and GET
		local end=$(($(date +%s) + $1)) total=0 runs=0 out
		while [ "$(date +%s)" -lt "$end" ]; do
			out=$(timeout 60 redis-benchmark -h 127.0.0.1 -p "$port" -c 50 \
				-n 20000 -t set,get --csv -q 2>&1) ||
				{ echo "redis-benchmark failed: $out" >&2; return 1; }
			total=$(echo "$out" | sed -n 's/^"\(SET\|GET\)","\([0-9.]*\)".*/\2/p' |
				awk -v t="$total" '{ t += $1 } END { print t }')
			runs=$((runs + 2))
		done
		awk -v t="$total" -v r="$runs" 'BEGIN { printf "%.0f", r ? t / r : 0 }'
	}
	ping() { [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; }
	start() { # start [trms run OPTIONS...]: the server, in the background
		"$@" redis-server --port "$port" --bind 127.0.0.1 --save '' \
			--appendonly no --dir "$scratch" >"$scratch/redis.log" 2>&1 &
		server=$!
		for _ in $(seq 100); do ping && return 0; sleep 0.1; done
		fail "redis did not answer"
		return 1
	}
	stop() {
		redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1
		wait "$server"
	}
	start && native=$(bench 30) && stop
	start "$trms" run --interval 1 --activation-sample 100 \
		-o "$scratch/redis-prof/" -- || exit 1
	# (trms run execs nothing: the server is its child.)
	pid=$(pgrep -n -x redis-server)
	watch "$pid" redis &
	watcher=$!
	under=$(bench "$seconds") || fail "redis-benchmark failed under trms"
	stop
	status=$?
	wait "$watcher"
	[ "$status" -eq 0 ] || fail "redis under trms run: exit status $status"
	echo "redis: $native requests/s natively, $under under trms run" \
		"($(awk -v a="$under" -v b="$native" 'BEGIN { printf "%.3f", a / b }'))"
	judge redis
	windows "$scratch/redis-prof" redis
else
	echo "redis-server or redis-benchmark missing (scripts/install-servers)"
	redis_missing=1
fi

# --- 2. memory churn -----------------------------------------------------------
mkdir -p "$scratch/churn"
TRMS_INTERVAL=1 TRMS_ACTIVATION_SAMPLE=10 \
	TRMS_OUTPUT="$scratch/churn/soak.%p.trms" "$prog" soak "$seconds" \
	>"$scratch/churn.out" 2>"$scratch/churn.err" &
pid=$!
watch "$pid" churn
wait "$pid" || fail "memory_prog soak: exit status $?: $(head -n 3 "$scratch/churn.err")"
judge churn
windows "$scratch/churn" churn

[ "$failed" -eq 0 ] || exit 1
[ -z "${redis_missing:-}" ] || exit 77
echo "soak: all checks passed"
