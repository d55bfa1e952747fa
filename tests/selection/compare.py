#!/usr/bin/env python3
"""compare.py FULL PART... - check that profiles that measured only some
activations (TRMS_ACTIVATION_SAMPLE, TRMS_BUDGET, TRMS_PARTITION) hold
only what a full measurement of the same deterministic run holds.

For every tuple (region name, thread, metric, n) of a PART: FULL has it,
with at least as many activations, a min no smaller and a max no larger;
where FULL's activations of that n all cost the same and read the same
numbers of induced cells, the PART's sums are exactly its count times
those (the test programs make an activation's n tell its induced reads,
so a sum that divides evenly is a uniform one), with --kinds only: by
default the library does not record accesses outside measured
activations, which changes no trms, rms or cost but may change the kind
of a measured activation's first read of a cell (docs/production.md).
Options:
  --kinds           the induced reads too (runs with TRMS_EXACT_KINDS=1
                    or TRMS_PARTITION alone)
  --equal           the PARTs together hold exactly FULL's tuples
                    (partitions merged: same counts and sums)
  --fraction R:N    region R was measured in about 1/N of its candidate
                    activations: measured/activations within 5 standard
                    deviations of 1/N (R's activations all candidates)
Exits 1 with a line per breach."""
import math
import sys


def read(path):
    regions, tuples, acts = {}, {}, {}
    with open(path) as f:
        first = f.readline().split()
        assert first[0] == 'trms-profile', path
        for line in f:
            w = line.split()
            if w[0] == 'region':
                regions[w[1]] = w[2]
            elif w[0] == 'tuple':
                key = (regions[w[1]], w[2], w[3], int(w[4]))
                # count min max sum sumsq it ie (then, from version 3
                # on, the correction's three fields: not compared)
                nums = [int(x) for x in w[5:12]]
                tuples[key] = nums
            elif w[0] == 'activations':
                acts[(regions[w[1]], w[2])] = (int(w[3]), int(w[4]))
    return tuples, acts


def main():
    args = sys.argv[1:]
    equal = '--equal' in args
    kinds = '--kinds' in args or equal
    fractions = []
    while '--fraction' in args:
        i = args.index('--fraction')
        fractions.append(args[i + 1])
        del args[i:i + 2]
    args = [a for a in args if a not in ('--equal', '--kinds')]
    full, _ = read(args[0])
    parts = [read(p) for p in args[1:]]
    bad = []
    merged = {}
    for tuples, _ in parts:
        for key, (count, lo, hi, total, sq, it, ie) in tuples.items():
            if key not in full:
                bad.append(f'{key}: not in the full run')
                continue
            fc, flo, fhi, fsum, fsq, fit, fie = full[key]
            if count > fc or lo < flo or hi > fhi:
                bad.append(f'{key}: count/min/max {count}/{lo}/{hi} '
                           f'outside the full run\'s {fc}/{flo}/{fhi}')
            if flo == fhi and total != count * flo:
                bad.append(f'{key}: cost sum {total} != {count} x {flo}')
            if kinds and fit % fc == 0 and fie % fc == 0 and (
                    it != count * (fit // fc) or ie != count * (fie // fc)):
                bad.append(f'{key}: induced {it}/{ie}, the full run '
                           f'has {fit // fc}/{fie // fc} per activation')
            m = merged.setdefault(key, [0, None, None, 0, 0, 0, 0])
            m[0] += count
            m[1] = lo if m[1] is None else min(m[1], lo)
            m[2] = hi if m[2] is None else max(m[2], hi)
            for i, v in ((3, total), (4, sq), (5, it), (6, ie)):
                m[i] += v
    if equal:
        for key, nums in full.items():
            if merged.get(key) != nums:
                bad.append(f'{key}: parts merged give {merged.get(key)}, '
                           f'the full run {nums}')
    for spec in fractions:
        region, n = spec.rsplit(':', 1)
        n = int(n)
        for _, acts in parts:
            for (name, thread), (all_, measured) in acts.items():
                if name != region:
                    continue
                p = 1 / n
                sd = math.sqrt(all_ * p * (1 - p))
                if abs(measured - all_ * p) > 5 * sd + 1:
                    bad.append(f'{region} thread {thread}: {measured} of '
                               f'{all_} measured, expected about '
                               f'{all_ * p:.0f} (sd {sd:.1f})')
            if not any(k[0] == region for k in acts):
                bad.append(f'{region}: no activations line')
    for b in bad:
        print(b)
    print(f'{len(parts)} profile(s) checked against {args[0]}: '
          f'{len(bad)} breach(es)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
