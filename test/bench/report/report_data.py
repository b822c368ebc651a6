# SPDX-License-Identifier: BSD-2-Clause
"""What the benchmark report reads: the `bench:` lines of each benchmark's
saved output (NAME.out) and the time series the benchmarks save under
series/ when BENCH_SERIES is set (test/bench/bench_*.sh say which).

A series file is whitespace-separated numbers under one header line
"# col col ...", except *_events.tsv, whose first column is a word."""

import glob
import os


class Series:
    """One series file: its column names and its rows (floats)."""

    def __init__(self, path, cols, rows):
        self.path = path
        self.cols = cols
        self.rows = rows

    def col(self, name):
        i = self.cols.index(name)
        return [r[i] for r in self.rows]

    def __len__(self):
        return len(self.rows)


def read_series(path):
    """The series at |path|, or None when it is absent or has no header;
    rows that do not parse (a line cut short by a killed sampler) are
    skipped, as their count is what a plot's data check looks at."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    if not lines or not lines[0].startswith("#"):
        return None
    cols = lines[0][1:].split()
    rows = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) != len(cols):
            continue
        try:
            rows.append([float(p) for p in parts])
        except ValueError:
            continue
    return Series(path, cols, rows)


def read_events(path):
    """[(event, t_s)] of an *_events.tsv file; [] when absent."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and not line.startswith("#"):
                    try:
                        out.append((parts[0], float(parts[1])))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def read_figures(indir):
    """{bench: [(name, value, unit)]} from every indir/*.out, in the order
    printed; a value that is not a number (nan) is kept as a string."""
    figures = {}
    for path in sorted(glob.glob(os.path.join(indir, "*.out"))):
        bench = os.path.basename(path)[:-4]
        rows = []
        with open(path, errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4 and parts[0] == "bench:":
                    try:
                        value = float(parts[2])
                    except ValueError:
                        value = parts[2]
                    rows.append((parts[1], value, parts[3]))
        if rows:
            figures[bench] = rows
    return figures
