#!/usr/bin/env python3
"""correction.py TRMS WORKDIR - the rule by which `trms report` judges
costs in ns against the error of their correction (docs/cost.md, "When
the library dominates"), on hand-written version 3 profiles whose numbers
decide every case:

  - costs well above the library time estimated: reported exactly as the
    same profile without the correction's fields (version 1), no line
    added;
  - costs far below it at every size: no class ("unresolved" in the table),
    the reason with the library's share and the error, and the remedy;
    --json: growth "insufficient", correction.refused, every size listed;
  - the small sizes below it: those left out, the class from the others,
    a line saying which; too few left: refused;
  - a size whose smallest cost is 0: left out;
  - an error bound of 10% or more: said in a line, the class kept;
  - the rule's edge: an error bound of exactly half the smallest cost is
    resolved, a little more is not;
  - some activations without the fields (merged with an older profile):
    judged by those that have them;
  - costs in events, or a version 1 profile: nothing judged, nothing said;
  - with --threads, each thread judged on its own.
"""
import json
import os
import shutil
import sys

import trms_report

trms, work = sys.argv[1:3]
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, file=sys.stderr)


def profile(name, sizes, cost, estimated, library=None, corrected=None,
            unit="ns", version=3, threads=(0,)):
    """A profile of region "r": at each size n, 4 activations of costs
    cost(n) to 1.2 cost(n), each with estimated(n) ns of library time
    charged by estimate and library(n) (default: estimated(n) + 10) taken
    out in all; corrected(n) of the 4 carry the figures (default: all).
    cost, estimated ... may take the thread too (thread=...)."""
    path = os.path.join(work, name + ".trms")
    lines = ["trms-profile %d" % version, "meta cost %s" % unit,
             "region 0 r"]
    lines += ["thread %d" % t for t in threads]
    tuples = 0
    for t in threads:
        for metric in ("trms", "rms"):
            for n in sizes:
                def call(f, default=None):
                    if f is None:
                        return default
                    try:
                        return f(n, thread=t)
                    except TypeError:
                        return f(n)
                lo = call(cost)
                hi = lo * 6 // 5
                total = 2 * lo + 2 * hi
                sq = 2 * lo * lo + 2 * hi * hi
                line = "tuple 0 %d %s %d 4 %d %d %d %d 0 0" % (
                    t, metric, n, lo, hi, total, sq)
                if version >= 3:
                    c = call(corrected, 4)
                    est = call(estimated)
                    lib = call(library, est + 10)
                    line += " %d %d %d" % (c, c * lib if c else 0,
                                           c * est if c else 0)
                lines.append(line)
                tuples += 1
    return trms_report.write_profile(path, lines, tuples)


def report(path, *options):
    return trms_report.report(trms, fail, path, *options)


def regions(path, *options):
    return json.loads(report(path, "--json", *options) or "{}").get(
        "regions", [])


def region(path, *options):
    found = regions(path, *options)
    return found[0] if found else {}


def same_as_version_1(what, path):
    """The report of @path is the report of it in version 1, in every
    form but --json, which adds only its "correction"."""
    plain = trms_report.as_version_1(path)
    for options in ([], ["--stat", "mean"], ["--threads"], ["--tuples"]):
        got, want = report(path, *options), report(plain, *options)
        if got != want:
            fail("%s %s: differs from version 1:\n%s---\n%s"
                 % (what, " ".join(options), got, want))
    got, want = region(path), region(plain)
    got.pop("correction", None)
    if got != want:
        fail("%s --json: differs from version 1 beyond 'correction'" % what)


def growth(g):
    if "growth_range" in g:
        return "...".join(g["growth_range"])
    return g.get("growth")


def sentence(path, *options):
    text = report(path, *options)
    return "\n".join(l for l in text.splitlines() if l.startswith("  "))


REMEDY = ("use TRMS_COST=events, or annotate whole ranges with one "
          "trms_read of the range")
POWERS = [8 << k for k in range(11)]  # 8 ... 8192


def main():
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # Costs 50 n, estimated library time 2 n + 50: a twentieth or so.
    p = profile("resolved", POWERS, lambda n: 50 * n, lambda n: 2 * n + 50)
    g = region(p)
    c = g.get("correction", {})
    if growth(g) != "n" or c.get("refused") or c.get("unresolved_sizes") \
            or c.get("note") is not None or c.get("sizes") != 11:
        fail("resolved: %s, correction %s" % (growth(g), c))
    same_as_version_1("resolved", p)

    # Costs of 1 ns per element, 12 ns of it estimated: refused.
    p = profile("dominated", POWERS, lambda n: n, lambda n: 12 * n + 50)
    g = region(p)
    c = g.get("correction", {})
    if g.get("growth") != "insufficient" or not c.get("refused") or \
            c.get("unresolved_sizes") != POWERS or \
            REMEDY not in (g.get("reason") or ""):
        fail("dominated: %s, %s, correction %s"
             % (g.get("growth"), g.get("reason"), c))
    table = report(p)
    row = [l for l in table.splitlines() if l.startswith("r ")]
    if not row or " unresolved " not in row[0]:
        fail("dominated: the table's row: %s" % row)
    want = ("  r: no estimate: costs below what the correction of the "
            "library's time resolves at all 11 sizes (library time ")
    if want not in table or "correction error \u00b1" not in table or \
            REMEDY not in table:
        fail("dominated: the sentence:\n" + table)

    # Costs 10 n, 300 + n estimated: resolved from n = 128 on.
    p = profile("partial", POWERS, lambda n: 10 * n, lambda n: 300 + n)
    g = region(p)
    c = g.get("correction", {})
    if growth(g) != "n" or c.get("refused") or \
            c.get("unresolved_sizes") != [8, 16, 32, 64]:
        fail("partial: %s, correction %s" % (growth(g), c))
    text = sentence(p)
    if "7 distinct trms sizes from 128 to 8192" not in text \
            or "(4 of 11 sizes, from 8 to 64, left out: their costs are " \
               "below what the correction of the library's time resolves" \
            not in text:
        fail("partial: the sentence:\n" + text)
    if g.get("points") and len(g["points"]) != 11:
        fail("partial: --json shows %d points, not all 11"
             % len(g["points"]))

    # Resolved at the two largest sizes only: too few to fit.
    p = profile("too-few", POWERS, lambda n: 10 * n, lambda n: 20000)
    g = region(p)
    c = g.get("correction", {})
    if g.get("growth") != "insufficient" or not c.get("refused") or \
            "at 9 of 11 sizes, from 8 to 2048 (" not in g.get("reason", "") \
            or "and the others alone give no estimate (insufficient " \
               "data: 2 distinct sizes (need 5))" not in g.get("reason", ""):
        fail("too few: %s, %s" % (g.get("growth"), g.get("reason")))

    # One size whose smallest cost is 0.
    p = profile("zero", POWERS, lambda n: 0 if n == 256 else 50 * n,
                lambda n: 4 * n)
    c = region(p).get("correction", {})
    if c.get("unresolved_sizes") != [256] or c.get("refused"):
        fail("a cost of 0: correction %s" % c)

    # Costs 10 n, 2 n estimated, 3 n in all: ±20%, 23% of the time.
    p = profile("noted", POWERS, lambda n: 10 * n, lambda n: 2 * n,
                lambda n: 3 * n)
    g = region(p)
    note = "library time 23% of measured time, correction error \u00b120%"
    if growth(g) != "n" or g.get("correction", {}).get("note") != note or \
            "    (%s)" % note not in report(p):
        fail("noted: %s, %s\n%s" % (growth(g), g.get("correction"),
                                     report(p)))

    # The edge: 150 estimated is half of 300; 153 is more.
    p = profile("edge", POWERS, lambda n: 300 if n == 8 else 50 * n,
                lambda n: 150 if n == 8 else n)
    c = region(p).get("correction", {})
    if c.get("unresolved_sizes") != []:
        fail("edge, exactly half: %s" % c)
    p = profile("past-edge", POWERS, lambda n: 300 if n == 8 else 50 * n,
                lambda n: 153 if n == 8 else n)
    c = region(p).get("correction", {})
    if c.get("unresolved_sizes") != [8]:
        fail("edge, past half: %s" % c)

    # 1 of the 4 activations with the figures: judged by that one.
    p = profile("merged-older", POWERS, lambda n: n, lambda n: 12 * n,
                corrected=lambda n: 1)
    if not region(p).get("correction", {}).get("refused"):
        fail("partly older: not refused")

    # Costs in events; a version 1 profile in ns.
    for name, kw in (("events", {"unit": "events"}),
                     ("version-1", {"version": 1})):
        p = profile(name, POWERS, lambda n: n, lambda n: 12 * n, **kw)
        g = region(p)
        if "correction" in g or growth(g) != "n":
            fail("%s: %s, correction %s"
                 % (name, growth(g), g.get("correction")))

    # Per thread: thread 1 dominated, thread 0 not.
    p = profile("threads", POWERS, lambda n: 50 * n,
                lambda n, thread: 4 * n if thread == 0 else 400 * n,
                threads=(0, 1))
    by = {g.get("thread"): g for g in regions(p, "--threads")}
    if growth(by.get("0", {})) != "n" or \
            not by.get("1", {}).get("correction", {}).get("refused"):
        fail("threads: %s" % {t: (growth(g), g.get("correction"))
                              for t, g in by.items()})

    if failures:
        sys.exit(1)
    print("report-correction: all checks passed")


main()
