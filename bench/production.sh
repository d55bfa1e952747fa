#!/bin/bash
# bench/production.sh [BUILD_DIR] - the worked example of
# docs/production.md: redis 7.0 from Debian's sources, built natively and
# with `trms cc --trms-functions` (every function a region, GCC), serving
# redis-benchmark on 127.0.0.1 (50 clients, SET then GET, persistence
# off), with the production settings side by side:
#
#   native      the native build
#   all         the trms cc build, every activation measured
#   sample100   TRMS_ACTIVATION_SAMPLE=100
#   budget2     TRMS_BUDGET=2
#   budget2+w1  TRMS_BUDGET=2 TRMS_INTERVAL=1 (a window every second)
#
# Sampling at the default rate in every trms variant.  REPS (default 5)
# rounds, the variants interleaved (their order rotated); a variant's
# rate is the median over rounds, its ratio the median of the per-round
# ratios to native.  Also printed for each trms variant: the function
# regions in its profile, the share of activations measured (trms report
# says it), the library's share of the sampled CPU time, and windows
# written.  REQUESTS (default 200000) requests per round, half SET, half
# GET.  The source goes to BUILD_DIR/production/ (kept; apt-get source
# needs a deb-src entry: scripts/ensure-deb-src adds one as root).
set -u
build=${1:-build-release}
reps=${REPS:-5}
requests=${REQUESTS:-200000}
here=$(cd "$(dirname "$0")/.." && pwd)
trms=$(cd "$build" && pwd)/tools/trms
work=$(cd "$build" && pwd)/production
[ -x "$trms" ] || { echo "production.sh: $trms not built" >&2; exit 2; }
for p in redis-benchmark redis-cli; do
	command -v $p >/dev/null ||
		{ echo "production.sh: $p missing (scripts/install-servers)" >&2; exit 2; }
done
mkdir -p "$work/src" "$work/out" || exit 2

"$here/scripts/ensure-deb-src" || exit 2
src=$(find "$work/src" -maxdepth 1 -type d -name 'redis-*' | head -n 1)
if [ -z "$src" ]; then
	(cd "$work/src" && apt-get source -qq redis >/dev/null 2>&1) ||
		{ echo "production.sh: apt-get source redis failed" >&2; exit 2; }
	src=$(find "$work/src" -maxdepth 1 -type d -name 'redis-*' | head -n 1)
fi
for b in native trms; do
	[ -x "$work/redis-server-$b" ] && continue
	cc=cc
	[ $b = trms ] && cc="$trms cc --trms-functions"
	rm -rf "$work/build-$b" && cp -r "$src" "$work/build-$b" || exit 2
	echo "building redis ($b)..." >&2
	(cd "$work/build-$b" && TRMS_OFF=1 make -j2 MALLOC=libc BUILD_TLS=no \
		USE_SYSTEMD=no CC="$cc" >"$work/build-$b.log" 2>&1) ||
		{ echo "production.sh: build failed: $work/build-$b.log" >&2; exit 2; }
	cp "$work/build-$b/src/redis-server" "$work/redis-server-$b" || exit 2
done

settings() {
	case $1 in
	native | all) ;;
	sample100) echo TRMS_ACTIVATION_SAMPLE=100 ;;
	budget2) echo TRMS_BUDGET=2 ;;
	budget2+w1) echo TRMS_BUDGET=2 TRMS_INTERVAL=1 ;;
	esac
}

port=$((20000 + $$ % 20000))
# one VARIANT ROUND: start, load, stop; prints the rate (requests/s).
one() {
	local v=$1 r=$2 exe=$work/redis-server-trms out=$work/out/$1.$2
	[ "$v" = native ] && exe=$work/redis-server-native
	rm -f "$out".*.trms
	env $(settings "$v") TRMS_OUTPUT="$out.%p.trms" "$exe" --port "$port" \
		--bind 127.0.0.1 --save '' --appendonly no --dir "$work/out" \
		>"$out.log" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
		sleep 0.1
	done
	redis-benchmark -p "$port" -c 50 -n $((requests / 2)) -t set,get \
		--csv >"$out.csv" 2>&1 || echo "production.sh: $v: redis-benchmark failed" >&2
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1
	wait $pid
	awk -F'"' '/^"(SET|GET)"/ { s += 1 / $4; n++ } END { if (n) printf "%.0f\n", n / s }' "$out.csv"
}

variants="native all sample100 budget2 budget2+w1"
set -- $variants
: >"$work/rates"
echo "bench/production.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $reps rounds of $requests requests"
for r in $(seq "$reps"); do
	for v in "$@"; do
		echo "$v $r $(one "$v" "$r")" >>"$work/rates"
	done
	first=$1; shift; set -- "$@" "$first"
done

python3 - "$work" "$trms" "$reps" $variants <<'PY'
import glob, json, os, re, statistics, subprocess, sys
work, trms, reps, variants = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
rate = {}
for line in open(os.path.join(work, "rates")):
    v, r, x = line.split()
    rate[v, int(r)] = float(x)
print(f"{'variant':11} {'req/s':>9} {'ratio':>6}  {'regions':>7} {'measured':>9} {'library':>8} {'windows':>7}")
for v in variants:
    xs = [rate[v, r] for r in range(1, reps + 1) if (v, r) in rate]
    ratios = [rate[v, r] / rate["native", r] for r in range(1, reps + 1)
              if (v, r) in rate and ("native", r) in rate]
    extra = ""
    if v != "native":
        main = [p for p in glob.glob(os.path.join(work, "out", f"{v}.{reps}.*.trms"))
                if ".w" not in os.path.basename(p)]
        windows = len(glob.glob(os.path.join(work, "out", f"{v}.{reps}.*.w*.trms")))
        regions = measured = library = "-"
        if main:
            j = json.loads(subprocess.run([trms, "report", "--json", main[0]],
                                          capture_output=True, text=True).stdout or "{}")
            regions = str(len(j.get("regions", [])))
            text = subprocess.run([trms, "report", main[0]],
                                  capture_output=True, text=True).stdout
            pairs = re.findall(r"(\d+) of (\d+) activations measured", text)
            began = sum(int(b) for _, b in pairs)
            meas = sum(int(m) for m, _ in pairs)
            measured = f"{100 * meas / began:.1f}%" if began else "100%"
            lib = j.get("library", {})
            if lib.get("samples"):
                library = f"{100 * lib.get('samples_in_library', 0) / lib['samples']:.1f}%"
        extra = f"  {regions:>7} {measured:>9} {library:>8} {windows:>7}"
    print(f"{v:11} {statistics.median(xs):9.0f} {statistics.median(ratios):6.3f}{extra}")
PY
