#!/usr/bin/env python3
"""check_calls.py MAP OBJDIR... - the library's modules call one way too:
check_layers.py reads #include lines, which a declaration in a lower
header can hide; this reads the object files the library is linked from
(each OBJDIR, a target's objects, one per source file; a target built in
src/FOLDER/ holds that folder's) with nm, and finds every symbol a module
uses that a module of a higher layer defines (docs/architecture.md).

Not counted: the C library functions the library interposes (the names
MAP, its version script, exports besides its own API: the library's own
calls of them go to its hooks, which pass them on), and runtime_start,
the start-up's one entry for the API and the thread hook to start the
library lazily when the program calls them before its constructor ran.
Prints each breach and exits 1 if there is one."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402

# Called from below by design (see the docstring).
ENTRIES = {'runtime_start'}


def interposed(map_path):
    """The names the version script exports that are not the API's."""
    with open(map_path, encoding='utf-8') as f:
        text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
    names = set()
    for section in re.findall(r'global:(.*?)local:', text, flags=re.S):
        names.update(re.findall(r'([A-Za-z_][A-Za-z0-9_]*)\s*;', section))
    return {n for n in names if not n.startswith(('trms_', '__trms'))}


def module_of(obj, folder):
    """(module, layer) of an object file named FOLDER_NAME.c.o or
    NAME.c.o, of a target built in src/@folder/ if @folder."""
    name = obj[:-len('.c.o')]
    if folder in check_layers.FOLDER_LAYER:
        return name, check_layers.FOLDER_LAYER[folder]
    for folder, layer in check_layers.FOLDER_LAYER.items():
        if name.startswith(folder + '_'):
            return name[len(folder) + 1:], layer
    return name, check_layers.TOP_NAMED.get(name, check_layers.TOP)


def symbols(path):
    out = subprocess.run(['nm', path], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == 'U':
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBRVWG':
            defined.add(parts[2])
    return defined, used


def main():
    map_path, objdirs = sys.argv[1], sys.argv[2:]
    skip = interposed(map_path) | ENTRIES
    owner, uses = {}, {}
    objects = 0
    for objdir in objdirs:
        folder = os.path.basename(os.path.dirname(os.path.abspath(objdir)))
        for obj in sorted(os.listdir(objdir)):
            if not obj.endswith('.c.o'):
                continue
            m = module_of(obj, folder)
            defined, used = symbols(os.path.join(objdir, obj))
            for sym in defined:
                owner[sym] = m
            uses[m] = uses.get(m, set()) | used
            objects += 1
    breaches = []
    for (name, layer), used in sorted(uses.items(), key=str):
        for s in sorted(used - skip):
            if s not in owner:
                continue
            up_name, up_layer = owner[s]
            if layer is not None and up_layer is not None and \
                    up_layer > layer:
                breaches.append(f'{name} (layer {layer}) uses {s} of '
                                f'{up_name} (layer {up_layer}, above it)')
    return check_layers.verdict(breaches, f'{objects} objects')


if __name__ == '__main__':
    sys.exit(main())
