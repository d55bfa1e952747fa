#!/usr/bin/env python3
"""check_report.py TRMS SCRATCH - `trms report` (table and --json) and its
options, on a replayed trace whose regions grow in known ways
(make_trace.py).

Every number of the JSON report is recomputed here from the merged tuples
(`trms report --tuples`, tested on its own elsewhere) by the definitions
of docs/report-json.md; the growth classes are the ones the trace was
built to have.
"""
import json
import os
import subprocess
import sys

trms, scratch = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(*args, status=0, env=None):
    p = subprocess.run([trms, *args], capture_output=True, text=True,
                       env=env)
    check(p.returncode == status,
          f"trms {' '.join(args)}: status {p.returncode}, not {status}: "
          f"{p.stderr.strip()}")
    return p


os.makedirs(scratch, exist_ok=True)
trace = os.path.join(scratch, "regions.trace")
profile = os.path.join(scratch, "regions.trms")
subprocess.run([sys.executable, os.path.join(here, "make_trace.py"), trace],
               check=True)
run("replay", "--granularity", "4", "--profile", profile, trace)

# --- the tuples, and what the report must say of them ---------------------
tuples = {}
lines = run("report", "--tuples", profile).stdout.splitlines()
for line in lines[1:]:
    f = line.split("\t")
    region, thread, metric = f[0], f[1], f[2]
    n, count, lo, hi, total = map(int, f[3:8])
    it, ie = int(f[9]), int(f[10])
    tuples.setdefault((region, metric), {}).setdefault(n, []).append(
        (count, lo, hi, total, it, ie))


def expected(region, metric="trms", stat="worst"):
    mine = tuples[(region, metric)]
    other = tuples[(region, "rms" if metric == "trms" else "trms")]
    trms_t = tuples[(region, "trms")]
    rms_t = tuples[(region, "rms")]
    flat = [t for ts in trms_t.values() for t in ts]
    input_trms = sum(n * t[0] for n, ts in trms_t.items() for t in ts)
    input_rms = sum(n * t[0] for n, ts in rms_t.items() for t in ts)
    top = max(mine)
    at_top = mine[top]
    cost_at_top = {
        "worst": max(t[2] for t in at_top),
        "best": min(t[1] for t in at_top),
        "mean": sum(t[3] for t in at_top) / sum(t[0] for t in at_top),
    }[stat]
    return {
        "calls": sum(t[0] for t in flat),
        "sizes": len(mine),
        "max_n": top,
        "total_cost": sum(t[3] for t in flat),
        "cost_at_max_n": cost_at_top,
        "input_thread_share": sum(t[4] for t in flat) / input_trms,
        "input_external_share": sum(t[5] for t in flat) / input_trms,
        "profile_richness": (len(trms_t) - len(rms_t)) / len(rms_t),
        "input_volume": 1 - input_rms / input_trms,
        "points": sorted(mine),
        "other_points": sorted(other),
    }


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_region(r, metric="trms", stat="worst"):
    want = expected(r["name"], metric, stat)
    for key in ("calls", "sizes", "max_n", "total_cost", "cost_at_max_n",
                "input_thread_share", "input_external_share",
                "profile_richness", "input_volume"):
        check(close(r[key], want[key]),
              f"{r['name']} ({metric}, {stat}): {key} is {r[key]}, "
              f"expected {want[key]}")
    check([p["n"] for p in r["points"]] == want["points"],
          f"{r['name']}: points at sizes {[p['n'] for p in r['points']]}")
    other = "points_rms" if metric == "trms" else "points_trms"
    check([p["n"] for p in r[other]] == want["other_points"],
          f"{r['name']}: {other} at sizes {[p['n'] for p in r[other]]}")
    for p in r["points"]:
        check(p["best"] <= p["mean"] <= p["worst"] and p["count"] >= 1,
              f"{r['name']}: point {p} is not ordered")


def report_json(*options):
    return json.loads(run("report", "--json", *options, profile).stdout)


# --- --json: every number, and the growth of each region -------------------
doc = report_json()
check(doc["trms_report"] == 1 and doc["unit"] == "events" and
      doc["size_metric"] == "trms" and doc["cost_statistic"] == "worst" and
      doc["profiles"] == [profile], f"document header: {doc}")
regions = {r["name"]: r for r in doc["regions"]}
check(sorted(regions) == ["echo", "fed", "lin", "quad", "shared"],
      f"regions: {sorted(regions)}")
for r in doc["regions"]:
    check_region(r)
growth = {name: r["growth"] for name, r in regions.items()}
check(growth == {"quad": "n^2", "lin": "n", "shared": "n", "fed": "n",
                 "echo": "n"}, f"growth classes: {growth}")
for r in doc["regions"]:
    check(r["confidence"] in ("HIGH", "MEDIUM", "LOW") and
          r["fit"]["model"] == r["growth"] and r["fit"]["c1"] > 0 and
          len(r["models"]) == 9,
          f"{r['name']}: confidence and fit: {r['confidence']} {r['fit']}")
check(close(regions["quad"]["fit"]["c1"], 1.0) or
      abs(regions["quad"]["fit"]["c1"] - 1) < 0.05,
      f"quad: n^2 coefficient {regions['quad']['fit']['c1']}, not 1")
costs = [r["total_cost"] for r in doc["regions"]]
check(costs == sorted(costs, reverse=True), f"not ranked by cost: {costs}")
check(regions["shared"]["input_thread_share"] == 1 and
      regions["fed"]["input_external_share"] == 1 and
      regions["quad"]["input_thread_share"] == 0,
      "thread and external shares")

# --- the options -------------------------------------------------------------
doc = report_json("--size", "rms")
check(doc["size_metric"] == "rms", "--size rms: size_metric")
for r in doc["regions"]:
    check_region(r, "rms")
echo = [r for r in doc["regions"] if r["name"] == "echo"][0]
check(echo["growth"] == "insufficient" and echo["confidence"] is None and
      echo["fit"] is None and echo["sizes"] == 1,
      f"--size rms: echo has one rms size, no estimate: {echo['growth']}")

for stat in ("mean", "best"):
    doc = report_json("--stat", stat)
    check(doc["cost_statistic"] == stat, f"--stat {stat}")
    for r in doc["regions"]:
        check_region(r, "trms", stat)

doc = report_json("--sort", "name")
names = [r["name"] for r in doc["regions"]]
check(names == sorted(names), f"--sort name: {names}")
doc = report_json("--sort", "growth")
check(doc["regions"][0]["name"] == "quad", "--sort growth: quad first")
doc = report_json("--limit", "2")
check([r["name"] for r in doc["regions"]] == ["quad", "shared"],
      f"--limit 2: {[r['name'] for r in doc['regions']]}")
doc = report_json("--filter", "^(lin|fed)$")
check(sorted(r["name"] for r in doc["regions"]) == ["fed", "lin"],
      "--filter")
doc = report_json("--threads")
check(doc["per_thread"] and
      all(r.get("thread") == "0" for r in doc["regions"]),
      "--threads: every region on thread 0 (the readers)")

# --- the table ---------------------------------------------------------------
table = run("report", profile).stdout
check("\033[" not in table, "colour when piped")
check(table.splitlines()[0].split()[:4] == ["region", "total", "calls",
                                            "sizes"], "table header")
check("quad: worst-case cost grows as n^2 in its input size" in table,
      "the growth sentence of quad")
coloured = run("report", "--color", "always", profile).stdout
check("\033[31mn^2" in coloured, "--color always: n^2 in red")
env = dict(os.environ, NO_COLOR="1")
check("\033[" not in run("report", "--color", "auto", profile,
                         env=env).stdout, "NO_COLOR")
filtered = run("report", "--filter", "nothing-matches", profile).stdout
check("no region matches" in filtered, "an empty filter says so")

# --- bad usage -----------------------------------------------------------------
for args in (["--stat", "median"], ["--size", "cells"], ["--sort", "x"],
             ["--limit", "0"], ["--limit", "-3"], ["--color", "blue"],
             ["--filter", "("], ["--json", "--tuples"],
             ["--html", "x.html", "--json"]):
    p = run("report", *args, profile, status=2)
    check(p.stdout == "" and p.stderr.count("\n") >= 1,
          f"report {' '.join(args)}: stdout {p.stdout!r}")

if failures:
    print(f"{len(failures)} checks failed")
    sys.exit(1)
print("all checks passed")
