#!/usr/bin/env python3
"""check_layers.py SRC_DIR - the library's modules depend one way
(docs/architecture.md): each file of src/ includes only headers of its own
layer or of the layers below, no module includes a module that includes it
back (no cycle), and the sampler, a leaf, includes nothing but the base and
its own files.  A module is a .c file and the .h of the same name (a
NAME_internal.h belongs to NAME).  Prints every breach and exits 1 if there
is one."""
import os
import re
import sys

# Layer of each module: its folder's.  The top of src/ holds the API,
# calibration and the hooks (layer 5), and the files the design card names
# there (DESIGN.md section 9) keep their own layer.
FOLDER_LAYER = {'base': 0, 'engine': 1, 'format': 2, 'sampler': 2,
                'runtime': 3, 'output': 4}
TOP = 5
TOP_NAMED = {'trms': 1, 'shadow': 1, 'preload': 6}
# The public header: every layer may include it.
PUBLIC = {'trms'}


def verdict(breaches, counted):
    """Print @breaches and what was read; the exit status."""
    for b in breaches:
        print(b)
    print(f'{counted}, {len(breaches)} breaches')
    return 1 if breaches else 0


def module(path):
    return os.path.splitext(os.path.basename(path))[0].replace('_internal',
                                                                '')


def main():
    root = sys.argv[1]
    layer, folder, includes = {}, {}, {}
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(d, f)
            m = module(path)
            sub = os.path.relpath(d, root).split(os.sep)[0]
            folder[m] = sub if sub != '.' else ''
            if sub in FOLDER_LAYER:
                layer[m] = FOLDER_LAYER[sub]
            elif sub == '.':
                layer[m] = TOP_NAMED.get(m, TOP)
            else:
                layer.setdefault(m, None)
            with open(path, encoding='utf-8') as text:
                found = re.findall(r'#include "([^"]+)"', text.read())
            includes.setdefault(m, set()).update(
                module(h) for h in found if module(h) != m)
    breaches = []
    for m, lay in sorted(layer.items()):
        if lay is None:
            breaches.append(f'{m}: no layer (a folder of src/ that '
                            'check_layers.py and docs/architecture.md '
                            'do not name)')
            continue
        for h in sorted(includes.get(m, ())):
            if h in PUBLIC or h not in layer or layer[h] is None:
                continue
            if layer[h] > lay:
                breaches.append(f'{m} (layer {lay}) includes {h} '
                                f'(layer {layer[h]}, above it)')
            if folder[m] == 'sampler' and folder[h] not in ('sampler',
                                                             'base'):
                breaches.append(f'{m}: the sampler includes {h}, which is '
                                'neither its own nor the base')
    # Cycles among modules (Tarjan).
    index, low, stack, on, count = {}, {}, [], set(), [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = count[0]
        count[0] += 1
        stack.append(v)
        on.add(v)
        for w in includes.get(v, ()):
            if w not in layer:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            cycle = []
            while True:
                w = stack.pop()
                on.discard(w)
                cycle.append(w)
                if w == v:
                    break
            if len(cycle) > 1:
                breaches.append('include cycle: ' + ' -> '.join(sorted(cycle)))

    for v in layer:
        if v not in index:
            visit(v)
    return verdict(breaches, f'{len(layer)} modules')


if __name__ == '__main__':
    sys.exit(main())
