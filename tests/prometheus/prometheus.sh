#!/bin/sh
# prometheus.sh TRMS PROGRAM WORK - the metrics of a run as the monitoring
# people see them: Debian's prometheus-node-exporter (its textfile
# collector only) and prometheus, started on loopback, scrape what `trms
# run --interval 0.5 --metrics-dir` writes while PROGRAM runs; asked with
# PromQL (the HTTP API), Prometheus' trms_activations_total and
# trms_cost_seconds_total of each region equal what `trms report
# --tuples` says of the run.  Suite prometheus, outside the default run.
set -eu
trms=$1 program=$2 work=$3
for p in prometheus prometheus-node-exporter curl; do
	command -v "$p" >/dev/null || {
		echo "no $p: scripts/install-deps --tests installs it"
		exit 1
	}
done
rm -rf "$work"
mkdir -p "$work/textfile" "$work/data"
# Ports of their own, for this test only.
exporter=127.0.0.1:$((20000 + $$ % 5000))
server=127.0.0.1:$((25000 + $$ % 5000))
cat >"$work/prometheus.yml" <<CONFIG
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: trms
    static_configs:
      - targets: ['$exporter']
CONFIG
prometheus-node-exporter --web.listen-address="$exporter" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$work/textfile" >"$work/exporter.log" 2>&1 &
pids=$!
prometheus --config.file="$work/prometheus.yml" \
	--storage.tsdb.path="$work/data" --web.listen-address="$server" \
	>"$work/prometheus.log" 2>&1 &
pids="$pids $!"
trap 'kill $pids 2>/dev/null; wait 2>/dev/null' EXIT

"$trms" run --interval 0.5 --metrics-dir "$work/textfile" -o "$work/run/" \
	-- "$program" >/dev/null 2>"$work/run.log" || { cat "$work/run.log"; exit 1; }

# query PROMQL: the value of each result as "region value" lines.
query() {
	curl -sf "http://$server/api/v1/query" --data-urlencode "query=$1" |
		/usr/bin/python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    print(r["metric"]["region"], r["value"][1])' | sort
}
"$trms" report --tuples "$work/run" | awk -F'\t' '
	NR > 1 && $3 == "trms" { n[$1] += $5; c[$1] += $8 }
	END { for (r in n) printf "%s %d %.9g\n", r, n[r], c[r] / 1e9 }' |
	sort >"$work/want"
status=1
# Scraped each second: give it up to 20 s after the run.
for i in $(seq 40); do
	query 'trms_activations_total' >"$work/activations" 2>/dev/null || true
	query 'trms_cost_seconds_total' >"$work/cost" 2>/dev/null || true
	join "$work/activations" "$work/cost" >"$work/got" || true
	if [ -s "$work/got" ] && /usr/bin/python3 - "$work/want" "$work/got" <<'CMP'
import sys
want = {l.split()[0]: l.split()[1:] for l in open(sys.argv[1])}
got = {l.split()[0]: l.split()[1:] for l in open(sys.argv[2])}
ok = want.keys() == got.keys() and all(
    int(want[r][0]) == int(float(got[r][0])) and
    abs(float(want[r][1]) - float(got[r][1])) <= 1e-6 * float(want[r][1])
    for r in want)
sys.exit(0 if ok else 1)
CMP
	then
		status=0
		break
	fi
	sleep 0.5
done
echo "the run's tuples (region, activations, cost in s):"
cat "$work/want"
echo "Prometheus, asked trms_activations_total and trms_cost_seconds_total:"
cat "$work/got" 2>/dev/null || true
[ $status -eq 0 ] && echo "equal" || echo "they differ"
exit $status
