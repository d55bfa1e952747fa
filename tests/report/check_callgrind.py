#!/usr/bin/env python3
"""check_callgrind.py TRMS WORK PROGRAM... - `trms report --callgrind`
read back by Valgrind's callgrind_annotate: each PROGRAM run under `trms
run` with call stacks sampled at 2 kHz; for each profile, and for all of
them merged, with and without --lines, the file's total is the number of
samples, and each
function's self and inclusive samples as callgrind_annotate computes them
equal what the collapsed stacks of `trms report --folded` say: self, the
samples of the stacks that end in it; inclusive, those of the stacks it
is on (once per stack, however often it is on it).  The roots' caller
"(all)" holds every sample.  With --lines, the file names the source
files.  And a profile without samples is refused (exit 2), nothing
written.  Exits 1 if anything differs."""
import collections
import os
import re
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def function(label):
    """A frame's function: its label without " (file:line)"."""
    return re.sub(r' \([^()]*:\d+\)$', '', label)


def from_folded(text):
    """(total, self by function, inclusive by function)."""
    total, own, incl = 0, collections.Counter(), collections.Counter()
    for line in text.splitlines():
        stack, count = line.rsplit(' ', 1)
        frames = [function(f) for f in stack.split(';')]
        n = int(count)
        total += n
        own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    incl['(all)'] = total
    return total, own, incl


def from_annotate(path, inclusive):
    """Samples by function, as callgrind_annotate lists them."""
    out = run('callgrind_annotate', '--threshold=100',
              f'--inclusive={"yes" if inclusive else "no"}', path)
    got, total, files = collections.Counter(), None, set()
    for line in out.splitlines():
        m = re.match(r'^\s*([\d,]+) \([ \d.]+%\)\s+(.*)$', line)
        if not m:
            continue
        n = int(m.group(1).replace(',', ''))
        if m.group(2) == 'PROGRAM TOTALS':
            total = n
            continue
        # file:function; the file is ??? without line information.
        file, fn = m.group(2).split(':', 1)
        got[fn] += n
        files.add(file)
    return total, got, files


def check(trms, work, name, profiles, lines):
    opts = ['--lines'] if lines else []
    name += ' --lines' if lines else ''
    out = os.path.join(work, name.replace(' ', '') + '.callgrind')
    run(trms, 'report', *opts, '--callgrind', out, *profiles)
    total, own, incl = from_folded(run(trms, 'report', *opts, '--folded',
                                       *profiles))
    bad = []
    for inclusive, want in ((False, own), (True, incl)):
        got_total, got, files = from_annotate(out, inclusive)
        if lines and not any(f.endswith('.c') for f in files):
            bad.append(f'no source file named: {sorted(files)}')
        if got_total != total:
            bad.append(f'total {got_total}, --folded says {total}')
        for f in sorted(set(want) | set(got)):
            if got[f] != want[f]:
                kind = 'inclusive' if inclusive else 'self'
                bad.append(f'{f}: {kind} {got[f]}, --folded says '
                           f'{want[f]}')
    for b in bad:
        print(f'{name}: {b}')
    print(f'{name}: {total} samples, {len(incl)} functions, '
          f'{len(bad)} differences')
    return not bad


def profile_of(trms, work, program, hz='2000'):
    """The profile of @program run under trms run, sampled at @hz."""
    out = os.path.join(work, os.path.basename(program) + '-' + hz)
    subprocess.run(['rm', '-rf', out], check=True)
    run(trms, 'run', '-F', hz, '-o', out + '/', '--', program)
    found = [os.path.join(out, f) for f in os.listdir(out)
             if f.endswith('.trms')]
    assert len(found) == 1, found
    return found[0]


def main():
    trms, work, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    profiles = [profile_of(trms, work, p) for p in programs]
    ok = True
    for lines in (False, True):
        for p in profiles:
            ok &= check(trms, work, os.path.basename(p), [p], lines)
        ok &= check(trms, work, 'merged', profiles, lines)
    # No samples: refused, nothing written.
    empty = profile_of(trms, work, programs[0], '0')
    out = os.path.join(work, 'empty.callgrind')
    r = subprocess.run([trms, 'report', '--callgrind', out, empty],
                       capture_output=True, text=True, check=False)
    if r.returncode != 2 or os.path.exists(out) or 'no call-stack' not in \
            r.stderr:
        print(f'no samples: exit {r.returncode}, {r.stderr.strip()!r}, '
              f'{out} {"written" if os.path.exists(out) else "absent"}')
        ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
