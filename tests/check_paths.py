#!/usr/bin/env python3
"""check_paths.py TOP - every path of the tree that the tree names (in a
comment, a doc, a script: "src/base/vm.c", "docs/cost.md") exists, so that
a reader sent to a file finds it.  A path is a word that starts with one
of the tree's top folders and ends in a file name with an extension; a
path after "$", "/" or "." (a shell variable's folder, a path inside
another) is not one of the tree's.  Prints each missing one with where it
is named, and exits 1 if there is one."""
import os
import re
import subprocess
import sys

TOPS = ('src', 'tools', 'tests', 'bench', 'docs', 'examples', 'scripts',
        'include')
TEXT = re.compile(r'(\.(c|h|cc|sh|py|md|js|css|html|txt|sql|map|in)|'
                  r'meson\.build|README|\.ci/run)$')
PATH = re.compile(r'(?<![$A-Za-z0-9_/.~-])((?:%s)/[A-Za-z0-9_./-]*'
                  r'[A-Za-z0-9_]\.[A-Za-z]+)' % '|'.join(TOPS))


def main():
    top = sys.argv[1]
    try:
        files = subprocess.run(['git', '-C', top, 'ls-files'], check=True,
                               capture_output=True,
                               text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        print('not a git checkout: nothing to check')
        return 77
    missing = 0
    for name in files:
        if not TEXT.search(name):
            continue
        try:
            with open(os.path.join(top, name), encoding='utf-8') as f:
                lines = f.readlines()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(lines, 1):
            for path in PATH.findall(line):
                path = path.rstrip('.')
                if '..' in path or '*' in path:
                    continue
                if not os.path.exists(os.path.join(top, path)):
                    print('%s:%d: names %s, which does not exist' %
                          (name, number, path))
                    missing += 1
    print('%d files read, %d missing paths' % (len(files), missing))
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
