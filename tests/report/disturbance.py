#!/usr/bin/env python3
"""disturbance.py TRMS WORKDIR - worst costs in time that grow unlike the
best ones (tools/report/report_disturbance.h, docs/growth.md "Worst costs
in time"), on hand-written profiles:

  - a linear loop measured on a busy 2-vCPU virtual machine (the numbers
    below, as the library wrote them: every size's smallest cost is
    0.38-0.39 ns per element, its largest one 50 to 780 us above its
    mean): the worst costs fit sqrt n, HIGH, without the rule; with it
    the estimate is LOW and the reason names the best costs' class (n),
    the spread and the remedy, in the table and in --json;
  - the same profile with --stat best: n, and no such reason;
  - the same tuples in events (exact counts): no such reason;
  - worst costs 20% above the best at every size (no interruption): the
    same class, no reason added.
"""
import json
import os
import shutil
import sys

import trms_report

trms, work = sys.argv[1:3]
failures = []

# (n, activations, smallest, largest, sum) of the region "sum" of
# bench/selection_workload.c in a run with every activation measured
# (2026-11-27, the 2-vCPU KVM machine of docs/performance.md).
MEASURED = [
    (4096, 857, 1581, 83649, 1689800),
    (5121, 817, 1962, 57409, 1967285),
    (6402, 807, 2473, 61165, 2551815),
    (8003, 828, 3015, 113826, 3254974),
    (10004, 852, 3796, 57368, 3903595),
    (12506, 807, 4727, 125498, 5004319),
    (15633, 818, 5900, 118412, 6089305),
    (19542, 789, 7372, 159672, 7285439),
    (24428, 862, 9188, 73669, 9804336),
    (30536, 861, 11690, 144903, 12308203),
    (38171, 826, 14387, 150474, 14862502),
    (47714, 861, 17983, 198576, 20258758),
    (59643, 843, 22582, 187135, 24387964),
    (74554, 804, 29014, 230296, 28898352),
    (93193, 769, 35465, 252819, 34708935),
    (116492, 849, 45566, 236598, 47082044),
    (145616, 863, 54824, 244463, 59595463),
    (182021, 846, 69702, 291051, 73838022),
    (227527, 826, 88899, 286234, 90085529),
    (284409, 868, 111289, 346970, 117313061),
    (355512, 867, 137250, 380561, 146968765),
    (444391, 834, 169822, 990580, 179189079),
    (524288, 846, 201261, 449133, 211758937),
]


def fail(message):
    failures.append(message)
    print("FAIL: " + message, file=sys.stderr)


def profile(name, rows, unit):
    """A version 1 profile of region "sum" with @rows (n, count, min,
    max, sum) for both metrics, costs in @unit."""
    lines = ["trms-profile 1", "meta cost %s" % unit, "region 0 sum",
             "thread 0"]
    for metric in ("trms", "rms"):
        for n, count, lo, hi, total in rows:
            mean = total / count
            # One activation at the largest cost, the others near the
            # mean: a sum of squares consistent with the rest.
            sumsq = int(total * total / count + (hi - mean) ** 2) + 1
            lines.append("tuple 0 0 %s %d %d %d %d %d %d 0 0" % (
                metric, n, count, lo, hi, total, sumsq))
    return trms_report.write_profile(os.path.join(work, name + ".trms"),
                                     lines, 2 * len(rows))


def report(path, *options):
    return trms_report.report(trms, fail, path, *options)


def region(path, *options):
    text = report(path, "--json", *options)
    try:
        return json.loads(text)["regions"][0]
    except (ValueError, IndexError, KeyError) as e:
        fail("%s: no region in --json: %s" % (path, e))
        return {}


NOTE = "the worst costs grow as"

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

noisy = profile("noisy", MEASURED, "ns")
r = region(noisy)
reason = r.get("reason") or ""
if r.get("growth") == "n":
    fail("the worst costs fitted n: the case does not test the rule")
if r.get("confidence") != "LOW":
    fail("noisy worst costs: confidence %s, not LOW" % r.get("confidence"))
for text in (NOTE, "the best as n,", "x the best", "--stat best"):
    if text not in reason:
        fail("noisy worst costs: reason lacks %r: %r" % (text, reason))
table = report(noisy)
if NOTE not in table or "LOW" not in table:
    fail("the table does not say it:\n" + table)

b = region(noisy, "--stat", "best")
if b.get("growth") != "n" or NOTE in (b.get("reason") or ""):
    fail("--stat best: %s, reason %r" % (b.get("growth"), b.get("reason")))

events = region(profile("events", MEASURED, "events"))
if NOTE in (events.get("reason") or ""):
    fail("costs in events judged: %r" % events.get("reason"))

steady = [(n, c, lo, lo * 6 // 5, c * lo * 11 // 10)
          for n, c, lo, hi, total in MEASURED]
s = region(profile("steady", steady, "ns"))
if s.get("growth") != "n" or NOTE in (s.get("reason") or ""):
    fail("worst costs 20%% above the best: %s, reason %r" % (
        s.get("growth"), s.get("reason")))

print("noisy: %s %s (%s); --stat best: %s; events: %s; steady: %s %s" % (
    r.get("growth"), r.get("confidence"), reason, b.get("growth"),
    events.get("growth"), s.get("growth"), s.get("confidence")))
if failures:
    sys.exit(1)
shutil.rmtree(work)
