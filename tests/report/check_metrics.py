#!/usr/bin/python3
"""check_metrics.py TRMS WORK PROGRAM... - `trms report --prometheus` and
`--openmetrics` read by their real consumers: promtool (Prometheus'
checker) passes the text format, and Debian's python3-prometheus-client
parses both; every value equals what the tuples (`trms report --tuples`)
say: per region and thread, activations and cost summed over its trms
tuples, input cells n x count over each metric's tuples, the induced
input, and a histogram whose bucket le counts the activations of size at
most le.  Each PROGRAM runs under `trms run` first.  And `trms run
--interval 0.2 --metrics-dir DIR` on the first PROGRAM: DIR holds a
.prom file while it runs (from the windows so far, which promtool
passes, its counts at most the final ones) and at its end one whose
counts are the profile's, and no temporary file.  Then the library's
own file (TRMS_METRICS_DIR), the first PROGRAM run with 1 in 4
activations measured and windows every 0.2 s: a file while it runs that
promtool passes, and at its end one whose every sample is what `trms
report --prometheus` says of the profile (the library's own time
aside), with trms_activations_begun_total per region the activations
the profile's activations lines say were begun.  (Debian's python3:
/usr/bin/python3, for its prometheus_client.)"""
import collections
import os
import subprocess
import sys

from prometheus_client.openmetrics import parser as om_parser
from prometheus_client import parser as text_parser


def run(*cmd, stdin=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          input=stdin).stdout


def expected(tuples_text):
    """(series name, sorted labels) -> value, from the tuples."""
    want = collections.Counter()
    sizes = collections.defaultdict(collections.Counter)
    lines = tuples_text.splitlines()[1:]
    for line in lines:
        (region, thread, metric, n, count, _min, _max, total, _sumsq,
         induced_thread, induced_external) = line.split('\t')
        n, count = int(n), int(count)
        key = (('region', region), ('thread', thread))
        want[('trms_input_cells_total', key + (('size', metric),))] += \
            n * count
        if metric != 'trms':
            continue
        want[('trms_activations_total', key)] += count
        want[('trms_cost_seconds_total', key)] += int(total) * 1e-9
        want[('trms_induced_input_cells_total',
              key + (('source', 'thread'),))] += int(induced_thread)
        want[('trms_induced_input_cells_total',
              key + (('source', 'external'),))] += int(induced_external)
        want[('trms_input_size_cells_count', key)] += count
        want[('trms_input_size_cells_sum', key)] += n * count
        sizes[key][n] += count
    return want, sizes


def samples(families):
    got = {}
    for fam in families:
        for s in fam.samples:
            got[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return got


def verdict(name, bad, summary):
    """Say each of @bad under @name, then @summary; whether none."""
    for b in bad:
        print(f'{name}: {b}')
    print(f'{name}: {summary}')
    return not bad


def check(trms, name, profiles):
    tuples = run(trms, 'report', '--tuples', *profiles)
    want, sizes = expected(tuples)
    text = run(trms, 'report', '--prometheus', *profiles)
    om = run(trms, 'report', '--openmetrics', *profiles)
    bad = []
    r = subprocess.run(['promtool', 'check', 'metrics'], input=text,
                       capture_output=True, text=True, check=False)
    if r.returncode:
        bad.append(f'promtool check metrics: {r.stdout}{r.stderr}')
    for dialect, families in (
            ('prometheus', text_parser.text_string_to_metric_families(text)),
            ('openmetrics',
             om_parser.text_string_to_metric_families(om))):
        got = samples(families)
        for (series, labels), value in want.items():
            key = (series, tuple(sorted(labels)))
            if abs(got.get(key, -1) - value) > 1e-6 * max(1, value):
                bad.append(f'{dialect}: {series}{dict(labels)} = '
                           f'{got.get(key)}, the tuples say {value}')
        for key, by_size in sizes.items():
            for (series, labels), value in got.items():
                if series != 'trms_input_size_cells_bucket':
                    continue
                d = dict(labels)
                if (('region', d['region']), ('thread', d['thread'])) \
                        != key:
                    continue
                le = float(d['le'])
                below = sum(c for n, c in by_size.items() if n <= le)
                if value != below:
                    bad.append(f'{dialect}: bucket le={le} of {key}: '
                               f'{value}, the tuples say {below}')
        if 'trms_library_seconds_total' not in {s for s, _ in got}:
            bad.append(f'{dialect}: no trms_library_seconds_total')
    return verdict(name, bad, f'{len(want)} series against the tuples, '
                   f'{len(bad)} differences')


def activations_of(text):
    got = samples(text_parser.text_string_to_metric_families(text))
    return {dict(k[1])['region']: v for k, v in got.items()
            if k[0] == 'trms_activations_total'}


def watch(cmd, mdir, env=None):
    """Run @cmd; the first .prom file found in @mdir while it runs (or
    None), its exit status and its standard error."""
    import glob
    import time
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    during = None
    while proc.poll() is None and during is None:
        found = glob.glob(os.path.join(mdir, '*.prom'))
        if found:
            with open(found[0], encoding='utf-8') as f:
                during = f.read()
        time.sleep(0.05)
    err = proc.communicate()[1]
    return during, proc, err


def promtool_says(text):
    """promtool check metrics' complaints about @text ('' if none)."""
    r = subprocess.run(['promtool', 'check', 'metrics'], input=text,
                       capture_output=True, text=True, check=False)
    return f'{r.stdout}{r.stderr}' if r.returncode else ''


def check_metrics_dir(trms, work, program):
    """trms run --metrics-dir, during the run and at its end."""
    mdir, out = os.path.join(work, 'metrics-dir'), os.path.join(work, 'md')
    subprocess.run(['rm', '-rf', mdir, out], check=True)
    os.makedirs(mdir)
    during, run_, err = watch([trms, 'run', '--interval', '0.2',
                               '--metrics-dir', mdir, '-o', out + '/', '--',
                               program], mdir)
    bad = []
    if run_.returncode:
        bad.append(f'trms run: exit {run_.returncode}: {err}')
    files = os.listdir(mdir)
    if len(files) != 1 or not files[0].endswith('.prom'):
        bad.append(f'{mdir} holds {files}, not one .prom file')
    final = {}
    if files:
        with open(os.path.join(mdir, files[0]), encoding='utf-8') as f:
            final = activations_of(f.read())
    want = collections.Counter()
    for line in run(trms, 'report', '--tuples', out).splitlines()[1:]:
        f = line.split('\t')
        if f[2] == 'trms':
            want[f[0]] += int(f[4])
    if final != dict(want):
        bad.append(f'at the end: {final}, the profile says {dict(want)}')
    if during is None:
        bad.append('no .prom file while the program ran')
    else:
        if promtool_says(during):
            bad.append(f'during the run, promtool: {promtool_says(during)}')
        for region, n in activations_of(during).items():
            if n > want[region]:
                bad.append(f'during the run {region}: {n} > {want[region]}')
    return verdict('--metrics-dir', bad,
                   f'a file during the run '
                   f'({activations_of(during) if during else None}) and '
                   f'at the end ({final}); {len(bad)} differences')


def begun_of(profile):
    """Region name -> activations begun, from the profile's own lines:
    its activations lines where some were not measured, else its trms
    tuples' counts."""
    names, begun, lines = {}, collections.Counter(), set()
    with open(profile, encoding='utf-8') as f:
        rows = [line.split() for line in f]
    for r in rows:
        if r[0] == 'region':
            names[r[1]] = r[2]
    for r in rows:
        if r[0] == 'activations':
            begun[names[r[1]]] += int(r[3])
            lines.add((r[1], r[2]))
    for r in rows:
        # tuple <region> <thread> <metric> <n> <count> ...
        if r[0] == 'tuple' and r[3] == 'trms' and (r[1], r[2]) not in lines:
            begun[names[r[1]]] += int(r[5])
    return begun


def check_library_file(trms, work, program):
    """TRMS_METRICS_DIR: the library's own file, during and at the end
    (the library preloaded from the build tree TRMS is in)."""
    mdir = os.path.join(work, 'library-metrics')
    profile = os.path.join(work, 'library-metrics.trms')
    subprocess.run(['rm', '-rf', mdir], check=True)
    os.makedirs(mdir)
    lib = os.path.join(os.path.dirname(os.path.abspath(trms)), '..', 'src',
                       'libtrms.so')
    env = dict(os.environ, TRMS_METRICS_DIR=mdir, TRMS_OUTPUT=profile,
               TRMS_INTERVAL='0.2', TRMS_ACTIVATION_SAMPLE='4',
               LD_PRELOAD=lib)
    during, proc, err = watch([program], mdir, env)
    bad = []
    if proc.returncode:
        bad.append(f'exit {proc.returncode}: {err}')
    files = os.listdir(mdir)
    want_name = f'trms-{os.path.basename(program)}-{proc.pid}.prom'
    if files != [want_name]:
        bad.append(f'{mdir} holds {files}, not {want_name}')
    text = ''
    if want_name in files:
        with open(os.path.join(mdir, want_name), encoding='utf-8') as f:
            text = f.read()
    if promtool_says(text):
        bad.append(f'promtool check metrics: {promtool_says(text)}')
    got = samples(text_parser.text_string_to_metric_families(text))
    report = samples(text_parser.text_string_to_metric_families(
        run(trms, 'report', '--prometheus', profile)))
    for key in sorted(set(got) | set(report)):
        if key[0] == 'trms_library_seconds_total':
            continue
        if abs(got.get(key, -1) - report.get(key, -1)) > \
                1e-9 * max(1, abs(report.get(key, 1))):
            bad.append(f'{key}: the file says {got.get(key)}, trms report '
                       f'{report.get(key)}')
    begun = collections.Counter()
    for (series, labels), value in got.items():
        if series == 'trms_activations_begun_total':
            begun[dict(labels)['region']] += value
    want = begun_of(profile)
    if dict(begun) != dict(want) or not want:
        bad.append(f'begun {dict(begun)}, the profile says {dict(want)}')
    measured = sum(v for (s, _), v in got.items()
                   if s == 'trms_activations_total')
    if not measured or measured >= sum(want.values()):
        bad.append(f'{measured} measured of {sum(want.values())} begun '
                   f'with 1 in 4 measured')
    if during is None:
        bad.append('no .prom file while the program ran')
    elif promtool_says(during):
        bad.append(f'during the run, promtool: {promtool_says(during)}')
    return verdict('TRMS_METRICS_DIR', bad,
                   f'{len(got)} samples against trms report, begun '
                   f'{dict(begun)}; {len(bad)} differences')


def main():
    trms, work, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    profiles = []
    for p in programs:
        out = os.path.join(work, os.path.basename(p))
        subprocess.run(['rm', '-rf', out], check=True)
        run(trms, 'run', '-o', out + '/', '--', p)
        profiles += [os.path.join(out, f) for f in os.listdir(out)]
    ok = True
    for p in profiles:
        ok &= check(trms, os.path.basename(p), [p])
    ok &= check(trms, 'merged', profiles)
    ok &= check_metrics_dir(trms, work, programs[0])
    ok &= check_library_file(trms, work, programs[0])
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
