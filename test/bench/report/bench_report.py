#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""make bench-report: the benchmark report, one self-contained HTML page
(images inline as data: URIs, no script, no font or style fetched) made
from a benchmark run's saved outputs and time series.

usage: bench_report.py INDIR OUTDIR
INDIR holds NAME.out (each benchmark's output, `bench:` lines in it) and
series/ (the time series, BENCH_SERIES); make bench fills build/bench,
make bench-smoke build/bench-smoke. OUTDIR gets index.html and each plot
as PLOT.png. Exits 1 when INDIR has no benchmark output."""

import base64
import datetime
import html
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_data import read_figures  # noqa: E402
from report_plots import MAKERS  # noqa: E402

STYLE = """
body { font-family: sans-serif; max-width: 1000px; margin: 1em auto;
       color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
figure { margin: 1em 0; } figcaption { font-size: 0.9em; color: #444; }
img { max-width: 100%; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
td.v { text-align: right; font-family: monospace; }
.missing { color: #a40; }
"""


def fmt(v):
    return v if isinstance(v, str) else "%g" % v


def table(rows, head):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % h for h in head)]
    for r in rows:
        out.append("<tr><td>%s</td><td class=v>%s</td><td>%s</td></tr>"
                   % (html.escape(r[0]), html.escape(fmt(r[1])),
                      html.escape(r[2])))
    out.append("</table>")
    return "\n".join(out)


def ratio_tables(figures):
    """The ratios (unit x) of every benchmark: uet over tcp on a wire,
    uet over shm and vader on one host, and the rest as they stand."""
    out = []
    for bench, rows in figures.items():
        ratios = [r for r in rows if r[2] == "x"]
        if ratios:
            out.append("<h3>%s</h3>" % html.escape(bench))
            out.append(table(ratios, ("figure", "ratio", "unit")))
    return "\n".join(out) or "<p class=missing>No ratios in this run.</p>"


def all_figures(figures):
    out = []
    for bench, rows in figures.items():
        out.append("<details><summary>%s: %d figures</summary>%s</details>"
                   % (html.escape(bench), len(rows),
                      table(rows, ("figure", "value", "unit"))))
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    indir, outdir = argv[1], argv[2]
    figures = read_figures(indir)
    if not figures:
        sys.stderr.write("bench_report: no benchmark output in %s: run "
                         "`make bench` (or `make bench-smoke`) first\n"
                         % indir)
        return 1
    os.makedirs(outdir, exist_ok=True)
    sdir = os.path.join(indir, "series")
    when = datetime.datetime.fromtimestamp(max(
        os.path.getmtime(os.path.join(indir, b + ".out")) for b in figures))
    body = ["<h1>uet benchmark report</h1>",
            "<p>From <code>%s</code>, benchmarks run up to %s: %s.</p>"
            % (html.escape(os.path.abspath(indir)),
               when.strftime("%Y-%m-%d %H:%M"),
               "the short smoke run (one repetition, small sizes)"
               if os.path.basename(os.path.normpath(indir)) == "bench-smoke"
               else "make bench")]
    nplots = 0
    for section, maker, files in MAKERS:
        body.append("<h2>%s</h2>" % html.escape(section))
        plots = maker(sdir)
        if not plots:
            body.append("<p class=missing>Not measured in this run (no %s)."
                        "</p>" % html.escape(files))
        for p in plots:
            with open(os.path.join(outdir, p.pid + ".png"), "wb") as f:
                f.write(p.png)
            body.append(
                '<figure id="%s"><img alt="%s" data-points="%d" '
                'src="data:image/png;base64,%s"><figcaption>%s (%d points)'
                "</figcaption></figure>"
                % (p.pid, html.escape(p.title), p.points,
                   base64.b64encode(p.png).decode(), html.escape(p.caption),
                   p.points))
            nplots += 1
    body.append("<h2>Ratios</h2>")
    body.append("<p>Above 1 for a latency or below 1 for a rate: uet is "
                "slower than what it is compared with (medians of the "
                "benchmarks' own alternated runs).</p>")
    body.append(ratio_tables(figures))
    body.append("<h2>Every figure</h2>")
    body.append(all_figures(figures))
    page = ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            "<title>uet benchmark report</title><style>%s</style></head>"
            "<body>\n%s\n</body></html>\n" % (STYLE, "\n".join(body)))
    with open(os.path.join(outdir, "index.html"), "w") as f:
        f.write(page)
    print("bench_report: %s: %d plots, %d benchmarks"
          % (os.path.join(outdir, "index.html"), nplots, len(figures)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
