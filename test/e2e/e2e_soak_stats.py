#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""The soak's resource judge (test/e2e/e2e_soak_mix.sh): reads the samples
of /proc the script took of every process of the soak, one a line

    SECONDS HOST PID COMM ROLE RSS_KB ANON_KB FILE_KB SHMEM_KB FDS TICKS

and judges each process from its first sample WARM seconds after it was
first seen (the first minute: pools, caches and the UMEM's pages filled)
to its last: its RSS may grow by less than RSS_PCT percent and it may not
end with more file descriptors than then. A process seen fewer than two
times after its warm-up is listed but not judged. Prints a line per
process, then `soak: NAME VALUE UNIT` lines; exit status 1 when a process
failed, 2 on bad input.

usage: e2e_soak_stats.py SAMPLES WARM_S [RSS_PCT]
"""
import os
import sys


def load(path):
    procs = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if len(w) != 11:
                sys.exit(f"{path}:{n}: {len(w)} fields, not 11: {line!r}")
            t, host, pid, comm, role = float(w[0]), w[1], w[2], w[3], w[4]
            rss, anon, fil, shm, fds, ticks = (int(x) for x in w[5:])
            p = procs.setdefault(pid, {"host": host, "comm": comm,
                                       "role": role, "s": []})
            p["s"].append((t, rss, anon, fil, shm, fds, ticks))
    return procs


def judge(p, warm, rss_pct, hz):
    s = p["s"]
    t0 = s[0][0]
    after = [x for x in s if x[0] >= t0 + warm]
    span = s[-1][0] - t0
    p["cpu"] = 100.0 * (s[-1][6] - s[0][6]) / hz / span if span > 0 else 0
    p["judged"] = len(after) >= 2
    if not p["judged"]:
        return True
    base = after[0]
    p["base_rss"], p["max_rss"] = base[1], max(x[1] for x in after)
    p["growth"] = 100.0 * (p["max_rss"] - base[1]) / base[1]
    p["anon_growth"] = max(x[2] for x in after) - base[2]
    p["shm_growth"] = max(x[4] for x in after) - base[4]
    p["base_fds"], p["last_fds"] = base[5], after[-1][5]
    p["max_fds"] = max(x[5] for x in after)
    p["fd_growth"] = p["last_fds"] - p["base_fds"]
    return p["growth"] < rss_pct and p["fd_growth"] <= 0


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    procs = load(sys.argv[1])
    warm = float(sys.argv[2])
    rss_pct = float(sys.argv[3]) if len(sys.argv) == 4 else 1.0
    hz = os.sysconf("SC_CLK_TCK")
    if not procs:
        print("soak: no samples", file=sys.stderr)
        return 2
    failed = 0
    for pid, p in sorted(procs.items(), key=lambda kv: (kv[1]["host"],
                                                         kv[1]["comm"],
                                                         int(kv[0]))):
        ok = judge(p, warm, rss_pct, hz)
        failed += not ok
        s = p["s"]
        head = (f"  {p['host']} {p['comm']:7} {p['role']:6} pid {pid:>7}: "
                f"{len(s)} samples over {s[-1][0] - s[0][0]:.0f} s, "
                f"cpu {p['cpu']:.0f}%")
        if not p["judged"]:
            print(f"{head}; too short-lived to judge after {warm:.0f} s")
            continue
        print(f"{head}; RSS {p['base_rss']} -> max {p['max_rss']} kB "
              f"({p['growth']:+.2f}%; anon {p['anon_growth']:+d} kB, "
              f"shmem {p['shm_growth']:+d} kB), fds {p['base_fds']} -> "
              f"{p['last_fds']} (max {p['max_fds']})"
              f"{'' if ok else '  FAILED'}")
    judged = [p for p in procs.values() if p["judged"]]
    grow = max((p["growth"] for p in judged), default=0.0)
    fdg = max((p["fd_growth"] for p in judged), default=0)
    cpu = max(p["cpu"] for p in procs.values())
    print(f"soak: processes {len(procs)} count")
    print(f"soak: processes_judged {len(judged)} count")
    print(f"soak: rss_growth_max {grow:.2f} %")
    print(f"soak: fd_growth_max {fdg} fds")
    print(f"soak: cpu_max {cpu:.0f} %")
    print(f"soak: resource_failures {failed} count")
    return 1 if failed or not judged else 0


if __name__ == "__main__":
    sys.exit(main())
