#!/usr/bin/env python3
"""check_page.py - checks of a `trms report --html` page, for html.sh.

  check_page.py static PAGE.html
      the file as written: the report's JSON in its script element, with
      no "<" that could end the element; nothing loaded from anywhere
      (no URL in src or href, no @import, no url() but url(#id)).
  check_page.py dom PAGE.html DOM.html [--interacted | --drawn N]
      the page as Chromium rendered it (--dump-dom): no error noted by the
      page, and per region of the JSON in PAGE.html the plots with one
      point per size (data-n), "unresolved" and the correction's note
      where the JSON has them, the fitted curve with its formula, the
      workload, guess-ratio, trms, rms and input-share plots; the
      summary table; the icicle with one rect per tree node of at least
      0.1% of the samples, regions and threads marked.  --interacted:
      after interact.js zoomed the icicle into a region node and switched
      every plot to linear axes.  The first 24 regions must be drawn;
      later ones may wait to be scrolled into view (data-pending, with a
      note saying so), and then nothing of them is checked but their
      name.  --drawn N: region N, and the first 24, must be drawn.
  check_page.py png SHOT.png WIDTH HEIGHT
      a screenshot of that size, not blank: enough pixels that are not
      the page's background or white, in more than one colour.

Prints what it checked; exit status 1 and a line per failure otherwise.
"""
import json
import math
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def done(summary):
    if failures:
        for f in failures:
            print("FAIL: " + f)
        sys.exit(1)
    print("ok: " + summary)
    sys.exit(0)


# ---- the page as written ----------------------------------------------------

DATA_OPEN = '<script type="application/json" id="report-data">'


def report_of(page):
    start = page.find(DATA_OPEN)
    if start < 0:
        failures.append("no report-data script element")
        done("")
    start += len(DATA_OPEN)
    end = page.find("</script>", start)
    text = page[start:end]
    return text, json.loads(text)


def check_static(path):
    page = open(path, encoding="utf-8", errors="replace").read()
    text, report = report_of(page)
    check("<" not in text,
          "the JSON holds a '<': a name could end its script element")
    # Everything but the JSON: the template itself.
    rest = page.replace(text, "")
    for m in re.finditer(r'\b(src|href|xlink:href)\s*=\s*["\']?\s*([^"\'\s>]*)',
                         rest, re.I):
        check(not re.match(r"(https?:|//|file:|ftp:)", m.group(2), re.I),
              "%s=%s: the page must load nothing" % (m.group(1), m.group(2)))
    check(not re.search(r"@import", rest, re.I), "@import in the page")
    for m in re.finditer(r"url\(\s*['\"]?([^)'\"]*)", rest, re.I):
        check(m.group(1).startswith("#"),
              "url(%s): the page must load nothing" % m.group(1))
    check(not re.search(r"https?:", rest, re.I),
          "the page names a web address")
    check("Content-Security-Policy" in rest and "default-src 'none'" in rest,
          "no Content-Security-Policy forbidding every load")
    done("%s: %d regions%s, %d bytes, nothing loaded from outside" % (
        path, len(report["regions"]),
        ", a call tree" if "call_tree" in report else "", len(page)))


# ---- the rendered page --------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], []

    def all_text(self):
        out = list(self.text)
        for c in self.children:
            out.append(c.all_text())
        return "".join(out)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find_all(self, tag=None, **attrs):
        found = []
        for n in self.walk():
            if tag and n.tag != tag:
                continue
            if all((n.attrs.get(k.replace("_", "-")) == v) if v is not True
                   else (k.replace("_", "-") in n.attrs)
                   for k, v in attrs.items()):
                found.append(n)
        return found

    def find(self, tag=None, **attrs):
        found = self.find_all(tag, **attrs)
        return found[0] if found else None


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, attrs, self.at))

    def handle_endtag(self, tag):
        n = self.at
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.at = n.parent

    def handle_data(self, data):
        self.at.text.append(data)


FITTED = ["1", "log n", "sqrt n", "n", "n log n", "n^1.5", "n^2",
          "n^2 log n", "n^3"]


def g_of(name, n):
    ln = math.log(n) if n > 1 else 0.0
    return {"1": 1.0, "log n": ln, "sqrt n": math.sqrt(n), "n": n,
            "n log n": n * ln, "n^1.5": n * math.sqrt(n), "n^2": n * n,
            "n^2 log n": n * n * ln, "n^3": n ** 3}[name]


def usable(v, log):
    return isinstance(v, (int, float)) and math.isfinite(v) and \
        (not log or v > 0)


def expect_points(svg, series, points, value, log, what):
    """The markers of @series in @svg: one per point of @points that the
    axes can show, each with its n and a tooltip."""
    want = sorted(p["n"] for p in points
                  if usable(p["n"], log) and usable(value(p), log))
    marks = [m for m in svg.find_all(data_series=series)
             if "data-n" in m.attrs]
    got = sorted(int(m.attrs["data-n"]) for m in marks)
    check(got == want, "%s: %d points of %s drawn, %d expected (n %s, not %s)"
          % (what, len(got), series, len(want), want[:8], got[:8]))
    check(all(m.find("title") for m in marks),
          "%s: a point of %s has no tooltip" % (what, series))
    return len(got)


def region_label(r):
    return r["name"] + (" @ " + r["thread"] if "thread" in r else "")


EAGER_REGIONS = 24  # report.js draws these at once


def check_region(dom, report, i, r, log, must_draw):
    section = dom.find("section", id="region-%d" % i)
    what = "region %d (%s)" % (i, region_label(r))
    if not check(section is not None, what + ": no section"):
        return 0
    name = section.find("span", **{"class": "region-name"})
    check(name is not None and name.all_text() == r["name"],
          "%s: its name shows as %r" % (what, name and name.all_text()))
    if "data-pending" in section.attrs:
        check(i >= EAGER_REGIONS and not must_draw,
              what + ": its plots are not drawn")
        note = section.find("p", **{"class": "hint pending"})
        check(note is not None and "come" in note.all_text() and
              not section.find_all("svg"),
              what + ": waits to be drawn, but says nothing of it")
        return 0
    # The correction of costs in ns (docs/cost.md): a region whose costs
    # it cannot resolve shows as "unresolved", and its note is there.
    corr = r.get("correction")
    if corr:
        heading = section.find("h2")
        shown = heading.all_text() if heading else ""
        check(("unresolved" in shown) == bool(corr["refused"]),
              "%s: heading %r, correction refused: %s"
              % (what, shown, corr["refused"]))
        if corr.get("note"):
            hints = [p.all_text() for p in section.find_all("p")
                     if "hint" in p.attrs.get("class", "")]
            check(any(corr["note"] in h for h in hints),
                  "%s: the correction's note is not shown (%r)"
                  % (what, hints))
    metric = report["size_metric"]
    stat = report["cost_statistic"]
    other = "rms" if metric == "trms" else "trms"
    by = {metric: r["points"], other: r.get("points_" + other, [])}
    drawn = 0

    cost = section.find("svg", data_plot="cost")
    if check(cost is not None, what + ": no cost plot"):
        check(cost.attrs.get("data-axes") == ("log-log" if log else "linear"),
              what + ": cost plot axes " + str(cost.attrs.get("data-axes")))
        for s in ("worst", "mean", "best"):
            drawn += expect_points(cost, s, r["points"], lambda p: p[s], log,
                                   what + " cost")
        fit = cost.find("path", data_curve="fit")
        formula = [t.all_text() for t in cost.find_all("text")
                   if "formula" in t.attrs.get("class", "")]
        if r["fit"] and r["fit"]["model"] in FITTED:
            check(fit is not None and len(fit.attrs.get("d", "")) > 10,
                  what + ": no fitted curve")
            check(any(r["fit"]["formula"] in f for f in formula),
                  "%s: formula %r not shown (%r)" % (
                      what, r["fit"]["formula"], formula))
        elif not r["fit"]:
            check(fit is None, what + ": a curve but no fit")

    work = section.find("svg", data_plot="workload")
    if check(work is not None, what + ": no workload plot"):
        drawn += expect_points(work, "count", r["points"],
                               lambda p: p["count"], log, what + " workload")

    ratio = section.find("svg", data_plot="ratio")
    if r["fit"] and r["fit"]["model"] in FITTED:
        if check(ratio is not None, what + ": no guess-ratio plot"):
            at = FITTED.index(r["fit"]["model"])
            names = FITTED[max(0, at - 1):at + 2]
            for gname in names:
                # cost / g(n) over the sizes n >= 1, scaled by a positive
                # number: drawn where finite (and positive on log axes)
                pts = [p for p in r["points"] if p["n"] >= 1]
                drawn += expect_points(
                    ratio, "ratio-" + gname, pts,
                    lambda p: (p[stat] / g_of(gname, p["n"])
                               if g_of(gname, p["n"]) else float("inf")),
                    log, what + " ratio")
            check(len([g for g in ratio.find_all("g", **{"class": "series"})])
                  == len(names), what + ": not one ratio curve per guess")
    elif not r["fit"]:
        check(ratio is None, what + ": a guess ratio without a fit")
        card = section.find("figure", data_card="ratio")
        check(card is not None and "No growth estimate" in card.all_text(),
              what + ": no word on the missing guess ratio")

    for m in ("trms", "rms"):
        plot = section.find("svg", data_plot=m)
        if check(plot is not None, "%s: no %s plot" % (what, m)):
            drawn += expect_points(plot, stat, by[m], lambda p: p[stat], log,
                                   "%s %s" % (what, m))

    shares = section.find("svg", data_plot="shares")
    if check(shares is not None, what + ": no input-share bar"):
        t, e = r["input_thread_share"], r["input_external_share"]
        if t is None or e is None:
            check(shares.find("rect", data_share="none") is not None,
                  what + ": no 'no input' bar")
        else:
            for key, share in (("thread", t), ("external", e)):
                check((shares.find("rect", data_share=key) is not None)
                      == (share > 0),
                      "%s: %s share %s, bar segment %s" % (
                          what, key, share,
                          shares.find("rect", data_share=key) is not None))
    return drawn


def tree_expectation(tree, per_thread):
    """(name, kind) of every node the icicle draws unzoomed."""
    out = []
    total = tree["total"]

    def kind(node, depth):
        if depth == 0:
            return "root"
        if re.match(r"^\[.*\]$", node["name"]):
            return "region"
        if node["name"] == "(thread start)":
            return "thread-start"
        if depth == 1 and per_thread and re.match(r"^thread \d+",
                                                  node["name"]):
            return "thread"
        return "frame"

    def lay(node, depth):
        out.append((node["name"], kind(node, depth), depth))
        for c in node["children"]:
            if c["total"] and c["total"] * 1000 >= total:
                lay(c, depth + 1)

    lay(tree, 0)
    return out


def check_icicle(dom, report, interacted):
    icicle = dom.find("svg", data_plot="icicle")
    if "call_tree" not in report:
        check(icicle is None, "an icicle without a call tree")
        return 0
    if not check(icicle is not None, "no icicle of the call tree"):
        return 0
    rects = icicle.find_all("rect", data_node=True)
    got = sorted((r.attrs["data-node"], r.attrs.get("data-kind"),
                  int(r.attrs.get("data-depth", -1))) for r in rects)
    if interacted:
        # zoomed into the first region node: its ancestors above it, full
        # width, then it at full width and its subtree
        zoom = int(icicle.attrs.get("data-zoomed", 0))
        check(zoom > 0, "the icicle did not zoom when a node was clicked")
        top = [r for r in rects if int(r.attrs["data-depth"]) == zoom]
        width = float(icicle.attrs.get("width", 0))
        check(len(top) == 1 and top[0].attrs["data-kind"] == "region" and
              abs(float(top[0].attrs["width"]) - width) < 1,
              "zoomed: the region node is not alone at full width")
        crumbs = dom.find("span", **{"class": "crumbs"})
        check(crumbs is not None and len(crumbs.find_all("button")) == zoom,
              "zoomed: no path back to each ancestor")
        return len(rects)
    want = sorted(tree_expectation(report["call_tree"], report["per_thread"]))
    check(got == want, "icicle: %d nodes drawn, %d expected; first "
          "differences: %s" % (len(got), len(want),
                               [x for x in want if x not in got][:3] +
                               [x for x in got if x not in want][:3]))
    check(all(r.parent.find("title") for r in rects),
          "icicle: a node has no tooltip")
    kinds = {k for _, k, _ in want}
    for k in ("region", "thread", "thread-start"):
        if k in kinds:
            check(any(r.attrs.get("data-kind") == k for r in rects),
                  "icicle: no node marked " + k)
    return len(rects)


def check_dom(page_path, dom_path, interacted, drawn=None):
    page = open(page_path, encoding="utf-8", errors="replace").read()
    report = report_of(page)[1]
    builder = TreeBuilder()
    builder.feed(open(dom_path, encoding="utf-8", errors="replace").read())
    dom = builder.root

    html = dom.find("html")
    check(html is not None and "data-errors" not in html.attrs,
          "the page noted errors: %s" % (
              dom.find(id="page-errors").all_text().strip()
              if dom.find(id="page-errors") else "?"))
    body = dom.find("body")
    check(body is not None and body.attrs.get("data-rendered") == "yes",
          "the page did not finish drawing (data-rendered=%s)" % (
              body.attrs.get("data-rendered") if body else None))
    errs = dom.find(id="page-errors")
    check(errs is not None and "hidden" in errs.attrs and
          not errs.find_all("li"), "the error box is shown")

    regions = report["regions"]
    table = dom.find("table", id="summary-table")
    if regions and check(table is not None, "no summary table"):
        rows = table.find("tbody").find_all("tr")
        check(len(rows) == len(regions), "summary: %d rows for %d regions"
              % (len(rows), len(regions)))
        if not interacted:
            for i, (row, r) in enumerate(zip(rows, regions)):
                a = row.find("a")
                check(a is not None and a.attrs.get("href") == "#region-%d" % i
                      and a.all_text() == region_label(r),
                      "summary row %d: %r" % (i, a and a.all_text()))
                check(len(row.find_all("td")) == 11,
                      "summary row %d: not 11 columns" % i)

    log = not interacted
    points = sum(check_region(dom, report, i, r, log, i == drawn)
                 for i, r in enumerate(regions))
    pending = sum(1 for s in dom.find_all("section")
                  if "data-pending" in s.attrs)
    if interacted:
        check(all(s.attrs.get("data-axes") == "linear"
                  for s in dom.find_all("svg") if "data-axes" in s.attrs),
              "not every plot switched to linear axes")
    nodes = check_icicle(dom, report, interacted)
    done("%s: %d regions (%d not drawn yet), %d data points, %d icicle "
         "nodes%s" % (
        dom_path, len(regions), pending, points, nodes,
        " (after zooming and switching to linear axes)" if interacted else ""))


# ---- the screenshot -------------------------------------------------------------

def png_pixels(path):
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    if not check(depth == 8 and colour in (2, 6) and not interlace,
                 "%s: a PNG kind this check does not read" % path):
        done("")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[at]
        line = bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        if kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + (left + prev[x]) // 2) & 255
        elif kind == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc
                                      else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def check_png(path, width, height):
    w, h, bpp, rows = png_pixels(path)
    check((w, h) == (width, height),
          "%s: %dx%d, not %dx%d" % (path, w, h, width, height))
    # The most common colour is the background: count the others, and
    # the saturated ones (plots, bars, the icicle; text is grey).
    colours, saturated = {}, 0
    for row in rows[::2]:
        for x in range(0, len(row), bpp * 2):
            c = row[x:x + 3]
            colours[c] = colours.get(c, 0) + 1
            if max(c) - min(c) > 60:
                saturated += 1
    total = sum(colours.values())
    background = max(colours, key=colours.get)
    drawn = total - colours[background] - (
        colours.get(b"\xff\xff\xff", 0) if background != b"\xff\xff\xff"
        else 0)
    check(drawn > total * 0.01,
          "%s: only %d of %d sampled pixels drawn: blank?" % (
              path, drawn, total))
    check(saturated > 200, "%s: only %d coloured pixels: no plot drawn?"
          % (path, saturated))
    check(len(colours) > 20, "%s: only %d colours" % (path, len(colours)))
    done("%s: %dx%d; of %d sampled pixels, %d drawn (neither background "
         "nor white), %d coloured; %d colours" % (
             path, w, h, total, drawn, saturated, len(colours)))


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "static":
        check_static(args[1])
    elif len(args) in (3, 4) and args[0] == "dom":
        check_dom(args[1], args[2], args[3:] == ["--interacted"])
    elif len(args) == 5 and args[0] == "dom" and args[3] == "--drawn":
        check_dom(args[1], args[2], False, int(args[4]))
    elif len(args) == 4 and args[0] == "png":
        check_png(args[1], int(args[2]), int(args[3]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


main()
