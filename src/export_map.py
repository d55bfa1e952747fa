#!/usr/bin/env python3
"""export_map.py TEMPLATE DEF OUT - the library's version script: TEMPLATE
(src/trms.map.in) with its @INTERPOSED@ line replaced by the symbol of
every entry of DEF (src/base/real_functions.def), so that a function the
library interposes is exported because it is listed there, and only
then."""
import re
import sys


def interposed(def_path):
    """The symbols of @def_path's entries, in its order."""
    with open(def_path, encoding='utf-8') as f:
        text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
    return re.findall(r'^(?:REAL_FUNCTION(?:_VERSIONED)?\(\s*\w+\s*,|'
                      r'INTERPOSED\()\s*"([^"]+)"', text, flags=re.M)


def main():
    template, def_path, out = sys.argv[1:4]
    names = interposed(def_path)
    if len(set(names)) != len(names):
        sys.exit(f'{def_path}: a symbol listed twice')
    with open(template, encoding='utf-8') as f:
        text = f.read()
    lines = ''.join(f'\t\t{name};\n' for name in names)
    if '@INTERPOSED@\n' not in text:
        sys.exit(f'{template}: no @INTERPOSED@ line')
    with open(out, 'w', encoding='utf-8') as f:
        f.write(text.replace('@INTERPOSED@\n', lines))


if __name__ == '__main__':
    main()
