#!/bin/bash
# tests/servers/redis.sh TRMS SCRATCH [SECONDS] - redis-server on 127.0.0.1
# under redis-benchmark, natively, under `trms run` and under
# `trms run -F 1000`; once plain and once with `--io-threads 2`.
#
# redis runs in the foreground with persistence off (`--save ''`,
# `--appendonly no`), its working directory in a scratch directory below
# SCRATCH.  Load: redis-benchmark, 50 clients, SET then GET, 12,500 of
# each per second of SECONDS (default 2) in every mode.  Then a 60 KiB value is stored and read
# back, and the server's own counters of error replies and rejected
# connections must be 0.  Stopped with SHUTDOWN NOSAVE.
# Asserts: redis-benchmark ran without error, the value read back is the
# value stored, no error reply, exit status 0 as natively, and under trms
# a readable profile of every process.  Prints the throughput ratios.
# Exit status 77 if redis-server, redis-cli or redis-benchmark is missing.
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/servers/lib.sh
. "$here/lib.sh"

redis_variants() { echo plain io-threads-2; }
redis_loads() { echo set-get; }

redis_prepare() {
	rds=$work/redis
	mkdir -p "$rds"
	head -c 45000 /dev/urandom | base64 -w 0 >"$rds/value"
}

redis_cli() {
	timeout -k 2 10 redis-cli -h 127.0.0.1 -p "$rds_port" "$@"
}

redis_ping() {
	rds_port=$1
	[ "$(redis_cli ping 2>/dev/null)" = PONG ]
}

# redis_start MODE VARIANT
redis_start() {
	rds_variant=$2
	srv_start_on_free_port 30 redis_ping redis_launch "$1" || {
		srv_error="not answering PING on 127.0.0.1:$rds_port"
		return 1
	}
}

# redis_launch MODE PORT
redis_launch() {
	local -a extra=()
	rds_port=$2
	[ "$rds_variant" = io-threads-2 ] && extra=(--io-threads 2)
	srv_launch "$1" "$rds/log.$rds_variant.$1" \
		redis-server --port "$rds_port" --bind 127.0.0.1 \
		--save '' --appendonly no --daemonize no --dir "$rds" \
		${extra[@]+"${extra[@]}"}
}

# redis_load set-get SECONDS
redis_load() {
	local out=$work/redis-benchmark.out n set get rate st
	# Half of the time SET, half GET.
	srv_amount "redis-$rds_variant" "$2" 25000
	n=$((srv_n / 2))
	timeout -k 5 $((60 + 10 * $2)) redis-benchmark -h 127.0.0.1 \
		-p "$rds_port" -c 50 -n "$n" -t set,get --csv \
		>"$out" 2>"$out.err" && st=0 || st=$?
	if [ $st -ne 0 ]; then
		srv_error="redis-benchmark failed (status $st$([ $st = 124 ] && echo ', timed out')): $(cat "$out.err" "$out" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	if [ -s "$out.err" ] || grep -qv '^"' "$out"; then
		srv_error="redis-benchmark: $(grep -hv '^"' "$out.err" "$out" | head -n 3 | tr '\n' ' ')"
		return 1
	fi
	set=$(sed -n 's/^"SET","\([0-9.]*\)".*/\1/p' "$out")
	get=$(sed -n 's/^"GET","\([0-9.]*\)".*/\1/p' "$out")
	if [ -z "$set" ] || [ -z "$get" ]; then
		srv_error="redis-benchmark printed no rate: $(tr '\n' ' ' <"$out")"
		return 1
	fi
	# Both tests' requests over both tests' time.
	rate=$(awk -v s="$set" -v g="$get" 'BEGIN { printf "%.2f", 2 / (1 / s + 1 / g) }')
	srv_measured "redis-$rds_variant" "$rate"
	srv_load_rate=$rate
	srv_load_note="redis-benchmark 50 clients, $n SET ($set/s) and $n GET ($get/s), no errors"
}

redis_check() {
	local got stats
	if [ "$(redis_cli -x set trms:check <"$rds/value" 2>&1)" != OK ]; then
		srv_error="SET of a 60 KiB value failed"
		return 1
	fi
	got=$(redis_cli get trms:check 2>&1)
	if [ "$got" != "$(cat "$rds/value")" ]; then
		srv_error="GET returned another value (${#got} bytes)"
		return 1
	fi
	stats=$(redis_cli info stats 2>&1 | tr -d '\r')
	for counter in total_error_replies rejected_connections; do
		if ! echo "$stats" | grep -qx "$counter:0"; then
			srv_error="$(echo "$stats" | grep "^$counter:" || echo "no $counter in INFO stats")"
			return 1
		fi
	done
}

redis_stop() {
	redis_cli shutdown nosave >/dev/null 2>&1 || :
}

redis_main() {
	if [ $# -lt 2 ]; then
		echo "usage: $0 TRMS SCRATCH [SECONDS]" >&2
		exit 2
	fi
	srv_init redis "$2" "$1"
	srv_need redis-server redis-cli redis-benchmark
	redis_prepare
	srv_test redis "${3:-2}"
	srv_finish
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	redis_main "$@"
fi
