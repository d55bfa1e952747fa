#!/usr/bin/env python3
"""make_trace.py OUT - a trace for `trms replay` whose regions grow in known
ways (cost is counted in events: one per access):

  quad   reads its n cells n times over: trms = rms = n, cost n^2 (+ the
         write of its result)
  lin    reads its n cells once: trms = rms = n, cost n + 1
  shared thread 1 writes n cells, then thread 0 reads them, twice each:
         trms = n (all induced by thread 1), rms = n
  fed    the kernel writes n cells (kwrite), then the region reads them:
         external input
  echo   reads one cell that thread 1 rewrites before every read: rms = 1,
         trms = the number of reads (input volume near 1)
"""
import sys

SIZES = [2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 90, 128]
out = []
CELL = 4          # bytes per cell (replayed with --granularity 4)
base = {"quad": 0x100000, "lin": 0x200000, "shared": 0x300000,
        "fed": 0x400000, "echo": 0x500000}


def access(tid, kind, addr, cells=1):
    out.append(f"{tid} {kind} {addr:#x} {cells * CELL}")


for n in SIZES:
    out.append("0 call quad")
    for _ in range(n):
        for i in range(n):
            access(0, "read", base["quad"] + i * CELL)
    access(0, "write", base["quad"] + n * CELL)
    out.append("0 return")

    out.append("0 call lin")
    for i in range(n):
        access(0, "read", base["lin"] + i * CELL)
    access(0, "write", base["lin"] - CELL)
    out.append("0 return")

    access(1, "write", base["shared"], n)
    out.append("0 call shared")
    for _ in range(2):
        for i in range(n):
            access(0, "read", base["shared"] + i * CELL)
    out.append("0 return")

    access(0, "kwrite", base["fed"], n)
    out.append("0 call fed")
    for i in range(n):
        access(0, "read", base["fed"] + i * CELL)
    out.append("0 return")

    out.append("0 call echo")
    for _ in range(n):
        access(1, "write", base["echo"])
        access(0, "read", base["echo"])
    out.append("0 return")

with open(sys.argv[1], "w") as f:
    f.write("\n".join(out) + "\n")
