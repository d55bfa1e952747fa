#!/usr/bin/env python3
"""correction.py TRMS LOOP_PROG WORKDIR - costs in ns where the library's
own time dominates (docs/cost.md, "When the library dominates"), on
loop_prog's runs: whatever the machine's noise, `trms report` never gives
such a region a wrong growth class.

  - one trms_read per element of a loop doing about 1 ns of work per
    element, costs in ns, every activation measured, 1 in 3 of them
    (TRMS_ACTIVATION_SAMPLE=3) and a budget (TRMS_BUDGET=5): with each
    cost statistic the region is either linear or refused; the run that
    measures everything is refused for its correction, with the reason
    and the remedy in the table, --json and the sentence;
  - the same loop with costs in events: linear, and nothing said of a
    correction;
  - the same loop with heavy work per element (about 100 ns), costs in
    ns: nothing left out, nothing refused, and the report is the report
    of the same profile without the correction's fields (version 1),
    line for line;
  - the light loop annotated as one range per activation (the remedy),
    costs in ns: not refused.

No check depends on how fast the machine is: the light loop's costs are
some ten times below the library's time per element, the heavy loop's
some ten times above it."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "report"))
import trms_report  # noqa: E402  (tests/report/trms_report.py)

trms, prog, work = sys.argv[1:4]
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, file=sys.stderr)


def run(name, cost, mode, rounds, reps, **env):
    path = os.path.join(work, name + ".trms")
    e = dict(os.environ)
    for var in ("TRMS_ACTIVATION_SAMPLE", "TRMS_BUDGET", "TRMS_PARTITION",
                "TRMS_INTERVAL", "TRMS_OFF"):
        e.pop(var, None)
    e.update({"TRMS_COST": cost, "TRMS_SAMPLE_HZ": "0", "TRMS_OUTPUT": path})
    e.update(env)
    p = subprocess.run([prog, mode, str(rounds), str(reps)], env=e,
                       capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(path):
        fail("%s: exit status %d: %s" % (name, p.returncode, p.stderr))
        return None
    return path


def report(path, *options):
    p = subprocess.run([trms, "report"] + list(options) + [path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("trms report %s %s: %s" % (" ".join(options), path, p.stderr))
    return p.stdout


def region(path, stat):
    doc = json.loads(report(path, "--json", "--stat", stat) or "{}")
    for g in doc.get("regions", []):
        if g["name"] == "loop":
            return g
    fail("%s: no region 'loop' in the report" % path)
    return None


def growth(g):
    if "growth_range" in g:
        return "...".join(g["growth_range"])
    return g["growth"]


REMEDY = ("use TRMS_COST=events, or annotate whole ranges with one "
          "trms_read of the range")


def check_no_wrong_class(name, path, must_refuse):
    """Linear or refused, with every statistic; refused for the
    correction, with the remedy, if @must_refuse."""
    for stat in ("worst", "mean", "best"):
        g = region(path, stat)
        if not g:
            return
        what = "%s, --stat %s" % (name, stat)
        corr = g.get("correction")
        if not corr:
            fail(what + ": the report says nothing of the correction")
            continue
        if corr["refused"]:
            if g["growth"] != "insufficient" or REMEDY not in g["reason"]:
                fail("%s: refused as %r, reason %r"
                     % (what, g["growth"], g["reason"]))
        elif g["growth"] == "insufficient":
            if must_refuse:
                fail("%s: refused, but not for the correction: %r"
                     % (what, g["reason"]))
        elif growth(g) != "n":
            fail("%s: a wrong class, %s (%s), costs %s"
                 % (what, growth(g), g["confidence"],
                    [(p["n"], p[stat]) for p in g["points"]]))
        elif must_refuse:
            fail("%s: linear, but not refused" % what)
    if must_refuse:
        table = report(path)
        row = [l for l in table.splitlines() if l.startswith("loop ")]
        if not row or " unresolved " not in row[0]:
            fail("%s: the table's row does not say 'unresolved': %s"
                 % (name, row))
        if "  loop: no estimate: costs below what the correction" not in \
                table or REMEDY not in table:
            fail("%s: no reason and remedy in the table:\n%s"
                 % (name, table))


def check_unchanged(name, path):
    for stat in ("worst", "mean", "best"):
        g = region(path, stat)
        if not g:
            return
        corr = g.get("correction")
        if not corr or corr["refused"] or corr["unresolved_sizes"]:
            fail("%s, --stat %s: its costs were not all resolved: %s"
                 % (name, stat, corr))
    plain = trms_report.as_version_1(path)
    for options in ([], ["--stat", "mean"], ["--stat", "best"]):
        got = [l for l in report(path, *options).splitlines()
               if not l.startswith("    (library time ")]
        want = report(plain, *options).splitlines()
        if got != want:
            fail("%s %s: the report differs from the report without the "
                 "correction:\n%s\n---\n%s"
                 % (name, " ".join(options), "\n".join(got),
                    "\n".join(want)))


def main():
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    light = run("light-ns", "ns", "each", 0, 10)
    if light:
        check_no_wrong_class("light loop, costs in ns", light, True)
    sampled = run("light-sampled", "ns", "each", 0, 30,
                  TRMS_ACTIVATION_SAMPLE="3")
    if sampled:
        check_no_wrong_class("light loop, 1 in 3 measured", sampled, False)
    budget = run("light-budget", "ns", "each", 0, 200, TRMS_BUDGET="5")
    if budget:
        check_no_wrong_class("light loop, TRMS_BUDGET=5", budget, False)

    events = run("light-events", "events", "each", 0, 3)
    if events:
        g = region(events, "worst")
        if g and (growth(g) != "n" or "correction" in g):
            fail("light loop, costs in events: %s, correction %s"
                 % (growth(g), g.get("correction")))

    heavy = run("heavy-ns", "ns", "each", 100, 10)
    if heavy:
        check_unchanged("heavy loop, costs in ns", heavy)

    ranges = run("range-ns", "ns", "range", 0, 10)
    if ranges:
        g = region(ranges, "best")
        if g and g.get("correction", {}).get("refused", True):
            fail("light loop annotated as ranges: refused (%s)"
                 % g.get("reason"))

    if failures:
        sys.exit(1)
    print("correction: all checks passed")


main()
