#!/usr/bin/python3
"""api-help.py HEADER TRMS [--help | --version] - the text help2man makes
libtrms(3) from: the library's functions and macros as include/trms.h
documents them (each function's comment block, its declaration), and the
library's settings as `TRMS help` lists them from their table.  Nothing
here is written twice: the page says what the header and the settings
table say, and a change to either changes the page at the next build.
"""
import re
import subprocess
import sys
import textwrap

WIDTH = 76


def comment_blocks(text):
    """(comment, the code up to the next comment) pairs, in order."""
    out = []
    for m in re.finditer(r"/\*(.*?)\*/", text, re.S):
        body = [re.sub(r"^\s*\* ?", "", line)
                for line in m.group(1).strip("\n").split("\n")]
        rest = text[m.end():]
        nxt = rest.find("/*")
        out.append(("\n".join(body).strip("\n"), rest[:nxt if nxt >= 0
                                                      else len(rest)]))
    return out


def declarations(code):
    """The TRMS_API declarations in @code, one line each."""
    decls = []
    for m in re.finditer(r"TRMS_API\s+([^;]*);", code):
        decls.append(" ".join(m.group(1).split()))
    return decls


# A line that starts a paragraph of its own within a comment's: a list
# item ("- ..."), a return code ("-EINVAL if ..."), the return and
# thread-safety clauses.
ITEM = re.compile(r"^\s*(- |-E[A-Z]+|@return|Thread-safety:|a negative errno)")


def paragraphs(body):
    """A comment's paragraphs, as lists of lines."""
    paras, cur = [], []
    for line in body.split("\n"):
        if not line.strip() or ITEM.match(line):
            if cur:
                paras.append(cur)
            cur = [line] if line.strip() else []
            continue
        cur.append(line)
    if cur:
        paras.append(cur)
    return paras


def prose(lines):
    """One paragraph's text: @name is the parameter name, @return says
    what the function returns."""
    text = " ".join(line.strip() for line in lines)
    text = re.sub(r"^- ", "", text)
    text = text.replace("@return", "Returns")
    return re.sub(r"@(\w+)", r"\1", text)


def wrap(text, indent):
    """@text wrapped at WIDTH, no line starting with "-" (help2man would
    take it for an option)."""
    out = []
    for line in textwrap.wrap(text, WIDTH, initial_indent=indent,
                              subsequent_indent=indent,
                              break_on_hyphens=False):
        if out and line.strip().startswith("-"):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def item(head, paras):
    """A help2man list item: @head at column 2, the text below it."""
    out = ["  " + head]
    for p in paras:
        out += wrap(prose(p), " " * 8)
    return out


def main():
    header, trms = sys.argv[1], sys.argv[2]
    text = open(header).read()
    if "--version" in sys.argv[3:]:
        version = ".".join(re.search(r"TRMS_VERSION_%s (\d+)" % k,
                                     text).group(1)
                           for k in ("MAJOR", "MINOR", "PATCH"))
        print("libtrms " + version)
        return 0
    blocks = comment_blocks(text)
    conventions = paragraphs(blocks[0][0])
    lines = [
        "Usage: #include <trms.h>  ...  cc prog.c $(pkg-config --cflags "
        "--libs trms)",
        "",
        "A program links with libtrms (-ltrms), or runs with it preloaded "
        "(LD_PRELOAD=libtrms.so, or trms run).",
        "",
    ]
    # The header's opening comment: its conventions, as it says them.
    for p in conventions[1:]:
        lines += wrap(prose(p), "")
        lines.append("")
    lines.append("Functions:")
    for body, code in blocks[1:]:
        decls = declarations(code)
        if not decls:
            continue
        paras = paragraphs(body)
        # "name, name - summary": the summary without the names.
        first = re.sub(r"^[\w, ]+ - ", "", prose(paras[0]))
        paras[0] = [first[:1].upper() + first[1:]]
        for d in decls[:-1]:
            lines.append("  " + d)
        lines += item(decls[-1], paras)
    lines.append("")
    lines.append("Macros:")
    for body, code in blocks[1:]:
        if "#define TRMS_REGION(" in code or "TRMS_REGION(" in body:
            if "Scoped regions" not in body:
                continue
            paras = paragraphs(body)
            lines += item("TRMS_REGION(name) { ... }, "
                          "TRMS_SCOPED_REGION(name)", paras)
            break
    lines.append("")
    # The settings, from the one table (`trms help`).
    help_text = subprocess.run([trms, "help"], capture_output=True,
                               text=True).stdout.split("\n")
    start = next(i for i, l in enumerate(help_text)
                 if l.startswith("  TRMS_"))
    end = start
    while end < len(help_text) and help_text[end].startswith("  "):
        end += 1
    lines.append("Environment:")
    lines.append("The library reads these variables once, at start "
                 "(trms(1) lists them too):")
    lines += help_text[start:end]
    lines.append("")
    lines.append("See also: trms(1), trms-run(1), trms-cc(1), "
                 "trms-report(1), and the project's docs/ directory.")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
