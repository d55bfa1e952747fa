#!/usr/bin/env python3
"""demangle_regions.py TRMS WORKDIR - C++ functions as regions (code
built with `trms c++`) are named demangled in `trms report`, text and
--json, each by its own name, however many there are: a hand-written
profile of 300 regions with mangled names (void demo::f<I>()) among
regions with plain names, every one with one tuple of its own size I.
Each must appear with exactly its size.  (The demangler frees the names
it replaces; the report once read them again afterwards to put them back,
and with enough names the freed memory was reused: names lost or freed
twice, the report crashed on a LevelDB profile.)  Skipped (77) without
c++filt."""
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


if not shutil.which("c++filt"):
    print("SKIP: no c++filt")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

COUNT = 300
lines = ["trms-profile 1", "meta cost events"]
names = {}
for i in range(COUNT):
    # A plain name between C++ ones, so that the two kinds interleave.
    if i % 3 == 0:
        names[i] = "plain_%d" % i
        lines.append("region %d plain_%d" % (i, i))
    else:
        names[i] = "void demo::f<%d>()" % i
        lines.append("region %d _ZN4demo1fILi%dEEEvv" % (i, i))
lines.append("thread 0")
tuples = 0
for i in range(COUNT):
    for metric in ("trms", "rms"):
        # n = i + 1 activations of cost 7 each at size i.
        lines.append("tuple %d 0 %s %d %d 7 7 %d %d 0 0"
                     % (i, metric, i, i + 1, 7 * (i + 1), 49 * (i + 1)))
        tuples += 1
path = trms_report.write_profile(os.path.join(work, "cxx.trms"), lines,
                                 tuples)

text = trms_report.report(trms, fail, path)
for i, name in names.items():
    if not any(l.startswith(name + " ") for l in text.splitlines()):
        fail("text: no line for %s" % name)
if "_ZN4demo" in text:
    fail("text: a name left mangled")

out = trms_report.report(trms, fail, path, "--json")
try:
    doc = json.loads(out)
except ValueError as e:
    doc = None
    fail("--json: not JSON: %s" % e)
if doc is not None:
    found = {}

    def walk(o):
        if isinstance(o, dict):
            if isinstance(o.get("name"), str) and "calls" in o:
                found[o["name"]] = o["calls"]
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(doc)
    for i, name in names.items():
        if found.get(name) != i + 1:
            fail("--json: %s has calls %r, not %d"
                 % (name, found.get(name), i + 1))

if failures:
    sys.exit(1)
print("PASS: %d regions, %d of them C++, each named and counted"
      % (COUNT, sum(1 for n in names.values() if n.startswith("void"))))
