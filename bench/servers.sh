#!/bin/bash
# bench/servers.sh [BUILD_DIR] - what trms costs real servers: the
# throughput of nginx, redis and MariaDB natively, under `trms run` (default
# sampling rate) and under `trms run -F 1000`, as a table of medians.
#
#   scripts/install-servers          # the servers and load drivers
#   meson setup build-release -Dbuildtype=release && ninja -C build-release
#   bench/servers.sh build-release   # about 10 minutes
#   SERVERS_SECONDS=1 SERVERS_REPS=3 bench/servers.sh build-release  # about 2
#
# The servers, their configurations and loads are those of the real-server
# suite (tests/servers/*.sh, where each is described), over 127.0.0.1:
#   nginx 100 KiB     wrk, 16 keep-alive connections, a 100 KiB file,
#                     sendfile off (master and 2 workers, as nobody if root)
#   nginx 4 KiB       the same on a 4 KiB file
#   redis             redis-benchmark, 50 clients, SET and GET
#   redis io-threads  the same against redis-server --io-threads 2
#   mariadb N clients mariadb-slap at 1, 8 and 32 clients, mixed queries
# Each server is started (and stopped gracefully) for each measurement:
# one warm-up native lifecycle per configuration, which also sizes the
# fixed-count loads (redis-benchmark, mariadb-slap) to last about
# SERVERS_SECONDS natively, then SERVERS_REPS repetitions interleaved:
# native, trms, trms -F 1000, native, ...  so that a busy neighbour slows
# all three alike.  A rate is the median over the repetitions; a ratio the
# median of the per-repetition ratios to the native run of the same
# repetition (as in bench/bench.h); "native spread" is (max - min) / median
# of the native runs: how noisy the machine was.
#
# Settings (environment):
#   SERVERS_SECONDS  length of one load, in seconds (default 3)
#   SERVERS_REPS     repetitions (default 5)
#   SERVERS          which servers (default "nginx redis mariadb")
#   SERVERS_MODES    which modes, native first (default "native trms
#                    trms-1k"; also trms-1k-tick: -F 1000 with
#                    TRMS_SAMPLE_TIMER=tick, and trms-interval: `trms run
#                    --interval 1`, a window of the profile written every
#                    second)
#   SERVERS_DATA     a file to copy every measurement into ("LOAD MODE
#                    REPETITION RATE" lines; repetition 0 is the warm-up)
# Scratch files go to BUILD_DIR/bench-servers (removed at the end).  The
# exit status is non-zero only if a run failed (a load driver's error, a
# server that did not start or stop); no target is enforced.
set -eu

build=${1:-build}
seconds=${SERVERS_SECONDS:-3}
reps=${SERVERS_REPS:-5}
servers=${SERVERS:-nginx redis mariadb}
modes=${SERVERS_MODES:-native trms trms-1k}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=$here/../tests/servers

case $seconds in '' | *[!0-9]* | 0)
	echo "servers.sh: SERVERS_SECONDS must be a positive integer" >&2
	exit 2 ;;
esac
case $reps in '' | *[!0-9]* | 0)
	echo "servers.sh: SERVERS_REPS must be a positive integer" >&2
	exit 2 ;;
esac
if [ ! -x "$build/tools/trms" ]; then
	echo "servers.sh: $build/tools/trms not found; build first:" >&2
	echo "  meson setup $build -Dbuildtype=release && ninja -C $build" >&2
	exit 2
fi

# shellcheck source=tests/servers/lib.sh
. "$suite/lib.sh"
for s in $servers; do
	case $s in
	nginx | redis | mariadb) ;;
	*) echo "servers.sh: unknown server $s (nginx, redis, mariadb)" >&2
		exit 2 ;;
	esac
	# shellcheck disable=SC1090 # tests/servers/{nginx,redis,mariadb}.sh
	. "$suite/$s.sh"
done

srv_init servers "$build/bench-servers" "$build/tools/trms"
for m in $modes; do
	case $m in
	native | trms | trms-1k | trms-1k-tick | trms-interval) ;;
	*) echo "servers.sh: unknown mode $m (native, trms, trms-1k, trms-1k-tick, trms-interval)" >&2
		exit 2 ;;
	esac
done
case $modes in native*) ;; *)
	echo "servers.sh: SERVERS_MODES must start with native (ratios are to it)" >&2
	exit 2 ;;
esac
srv_modes=$modes
srv_calibrate=yes
needs() {
	case $1 in
	nginx) echo nginx wrk ab ;;
	redis) echo redis-server redis-cli redis-benchmark ;;
	mariadb) echo mariadb-install-db mariadbd mariadb-admin mariadb-slap ;;
	esac
}
for s in $servers; do
	for p in $(needs "$s"); do
		if ! command -v "$p" >/dev/null 2>&1; then
			echo "servers.sh: $p is not installed (scripts/install-servers installs it)" >&2
			exit 2
		fi
	done
done

buildtype=$(sed -n 's/.*"name": "buildtype", "value": "\([a-z]*\)".*/\1/p' \
	"$build/meson-info/intro-buildoptions.json" 2>/dev/null | head -n 1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "== real servers: $(echo "$srv_modes" | sed 's/ / vs /g')"
echo "  $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) CPUs, ${cpu:-unknown CPU}"
echo "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  build: $build (buildtype ${buildtype:-unknown}), $("$build/tools/trms" version 2>/dev/null | head -n 1)"
if [ -n "$buildtype" ] && [ "$buildtype" != release ]; then
	echo "  note: not a release build"
fi
echo "  $reps repetitions of ${seconds} s loads after a native warm-up, interleaved: $srv_modes"
echo "  servers: $(for s in $servers; do case $s in
	nginx) nginx -v 2>&1 | sed 's/.*version: //' ;;
	redis) redis-server --version | sed 's/ sha=.*//' ;;
	mariadb) mariadbd --version | sed 's/.*Ver //; s/ for .*//' ;;
	esac; done | paste -sd ',' | sed 's/,/, /g')"
echo

for s in $servers; do
	"${s}_prepare"
done

status=0
: >"$work/data"
# lifecycle SERVER VARIANT MODE REP: start, every load, stop; appends
# "SERVER-VARIANT-LOAD MODE REP RATE" to $work/data (REP 0: not kept).
lifecycle() {
	local s=$1 v=$2 mode=$3 rep=$4 key label
	cut -d' ' -f1 /proc/loadavg >>"$work/loadavg"
	srv_error=""
	if ! "${s}_start" "$mode" "$v"; then
		echo "servers.sh: $s $v ($mode) did not start: ${srv_error:-}" >&2
		srv_show_log >&2
		srv_wait_exit 1
		status=1
		return
	fi
	for key in $("${s}_loads" "$v"); do
		label=$s-$key
		[ "$v" = - ] || label=$s-$v-$key
		srv_error=""
		if "${s}_load" "$key" "$seconds"; then
			echo "$label $mode $rep $srv_load_rate" >>"$work/data"
		else
			echo "servers.sh: $label ($mode, repetition $rep): $srv_error" >&2
			status=1
		fi
	done
	"${s}_stop" || :
	srv_wait_exit 60
	if [ "$srv_status" != 0 ]; then
		echo "servers.sh: $s $v ($mode): exit status $srv_status" >&2
		status=1
	fi
	rm -rf "$srv_prof"
}

start_time=$(date +%s)
for s in $servers; do
	for v in $("${s}_variants"); do
		lifecycle "$s" "$v" native 0
	done
done
for rep in $(seq 1 "$reps"); do
	for s in $servers; do
		for v in $("${s}_variants"); do
			for mode in $srv_modes; do
				lifecycle "$s" "$v" "$mode" "$rep"
			done
		done
	done
done

echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start_time)) s;"
echo "  1-minute load average between $(sort -g "$work/loadavg" | head -n 1) and $(sort -g "$work/loadavg" | tail -n 1) (median $(sort -g "$work/loadavg" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')) over the runs"
echo
awk -v reps="$reps" -v modes="$srv_modes" '
	function median(list,    n, a, i, j, t) {
		n = split(list, a, " ")
		if (n == 0) return ""
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function title(m) {
		if (m == "trms") return "trms /s"
		if (m == "trms-1k") return "1 kHz /s"
		if (m == "trms-1k-tick") return "1 kHz tick /s"
		if (m == "trms-interval") return "interval /s"
		return m " /s"
	}
	function label(k) {
		if (k == "nginx-100KiB") return "nginx 100 KiB, sendfile off"
		if (k == "nginx-4KiB") return "nginx 4 KiB keep-alive"
		if (k == "redis-plain-set-get") return "redis SET+GET, 50 clients"
		if (k == "redis-io-threads-2-set-get") return "redis --io-threads 2"
		if (k ~ /^mariadb-/) { sub(/^mariadb-/, "", k); sub(/-/, " ", k); return "mariadb-slap " k }
		return k
	}
	$3 > 0 {
		if (!($1 in seen)) { seen[$1] = 1; keys[++n] = $1 }
		rate[$1, $2] = rate[$1, $2] " " $4
		r[$1, $2, $3] = $4
	}
	function ratios(k, m,    i, list) {
		list = ""
		for (i = 1; i <= reps; i++)
			if ((k, m, i) in r && (k, "native", i) in r && r[k, "native", i] > 0)
				list = list " " r[k, m, i] / r[k, "native", i]
		return median(list)
	}
	function spread(k,    i, a, c, lo, hi, m) {
		c = split(rate[k, "native"], a, " ")
		if (c < 2) return "-"
		lo = hi = a[1]
		for (i = 2; i <= c; i++) { if (a[i] + 0 < lo + 0) lo = a[i]; if (a[i] + 0 > hi + 0) hi = a[i] }
		m = median(rate[k, "native"])
		return m > 0 ? sprintf("%.0f%%", 100 * (hi - lo) / m) : "-"
	}
	function fmt(x, f) { return x == "" ? "-" : sprintf(f, x) }
	END {
		nm = split(modes, m, " ")
		printf "%-30s %11s %8s", "load", "native /s", "spread"
		for (j = 2; j <= nm; j++)
			printf " %11s %7s", title(m[j]), "ratio"
		printf "\n"
		for (i = 1; i <= n; i++) {
			k = keys[i]
			printf "%-30s %11s %8s", label(k),
				fmt(median(rate[k, "native"]), "%.0f"), spread(k)
			for (j = 2; j <= nm; j++)
				printf " %11s %7s", fmt(median(rate[k, m[j]]), "%.0f"),
					fmt(ratios(k, m[j]), "%.3f")
			printf "\n"
		}
	}' "$work/data"
[ -z "${SERVERS_DATA:-}" ] || cp "$work/data" "$SERVERS_DATA"
echo
echo "  /s: requests (nginx, redis) or queries (mariadb) per second, medians of"
echo "  $reps runs; ratio: median of the per-repetition ratios to native; spread:"
echo "  (max - min) / median of the native runs."
if [ "$status" -ne 0 ]; then
	echo "  some runs failed (see above): their rows have fewer measurements"
fi
exit $status
