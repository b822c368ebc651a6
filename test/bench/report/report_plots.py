# SPDX-License-Identifier: BSD-2-Clause
"""The report's plots, drawn with matplotlib (Debian's python3-matplotlib)
into PNG bytes. Each maker takes the series directory and returns a list
of Plot (none when its series are absent: the page then says so)."""

import io
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)
from matplotlib.ticker import FormatStrFormatter  # noqa: E402

from report_data import read_events, read_series  # noqa: E402

INCAST_N = (4, 8, 16)
INCAST_PROVS = (("uet", "uet (NSCC)"), ("tcp_cubic", "tcp cubic+ECN"),
                ("tcp_bbr", "tcp bbr"))


class Plot:
    """A drawn plot: |points| is how many data points it shows (what the
    page's data check compares with what the image shows)."""

    def __init__(self, pid, title, caption, png, points):
        self.pid = pid
        self.title = title
        self.caption = caption
        self.png = png
        self.points = points


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _ms(series):
    return [t * 1e3 for t in series.col("t_s")]


def _incast_found(sdir, n, kind):
    """[(label, Series)] of the N:1 incast's KIND series (queue, rates) that
    hold samples, in INCAST_PROVS' order."""
    found = [(label, read_series(os.path.join(
        sdir, "incast%d_%s_%s.tsv" % (n, prov, kind))))
        for prov, label in INCAST_PROVS]
    return [(label, s) for label, s in found if s and len(s)]


def incast_queue(sdir):
    plots = []
    for n in INCAST_N:
        found = _incast_found(sdir, n, "queue")
        if not found:
            continue
        fig, ax = plt.subplots(figsize=(8, 3.2))
        points = 0
        for label, s in found:
            # uet on top: the others' taller queues would hide it.
            ax.plot(_ms(s), [q / 1024 for q in s.col("queue_bytes")],
                    label=label, linewidth=1,
                    zorder=3 if label.startswith("uet") else 2)
            points += len(s)
        ax.set_xlabel("time since the senders' common start (ms)")
        ax.set_ylabel("port queue (KiB)")
        ax.set_title("%d:1 incast: the bottleneck port's queue" % n)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
        plots.append(Plot(
            "incast%d_queue" % n, "%d:1 incast, queue" % n,
            "Bytes queued at the emulated switch port toward the receiver "
            "(bench_incast's port model, sampled every ms), %d senders of "
            "one host each, per provider." % n, _png(fig), points))
    return plots


def incast_rates(sdir):
    plots = []
    for n in INCAST_N:
        found = _incast_found(sdir, n, "rates")
        if not found:
            continue
        fig, axes = plt.subplots(1, len(found), sharey=True,
                                 figsize=(4 * len(found), 3.2),
                                 squeeze=False)
        points = 0
        for ax, (label, s) in zip(axes[0], found):
            t = _ms(s)
            for c in s.cols[1:]:
                ax.plot(t, s.col(c), linewidth=0.8, label=c.split("_")[0])
                points += len(s)
            ax.set_title(label, fontsize="medium")
            ax.set_xlabel("time (ms)")
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("sender's rate (Mbit/s)")
        axes[0][-1].legend(loc="upper right", fontsize="x-small")
        fig.suptitle("%d:1 incast: each sender's rate" % n, y=1.04)
        plots.append(Plot(
            "incast%d_rates" % n, "%d:1 incast, senders' rates" % n,
            "Each sender's rate in 10 ms bins, measured at the router port "
            "it sends into.", _png(fig), points))
    return plots


def nscc(sdir):
    plots = []
    for n in INCAST_N:
        s = read_series(os.path.join(sdir, "incast%d_uet_nscc.tsv" % n))
        if not s or not len(s):
            continue
        fig, ax = plt.subplots(figsize=(8, 3.2))
        t = _ms(s)
        ax.plot(t, [c / 1024 for c in s.col("cwnd_bytes")], color="tab:blue",
                linewidth=1, label="window (KiB)")
        ax.set_xlabel("time since the senders' common start (ms)")
        ax.set_ylabel("NSCC window (KiB)", color="tab:blue")
        ax2 = ax.twinx()
        ax2.plot(t, s.col("delay_us"), color="tab:red", linewidth=1,
                 label="queueing delay (us)")
        ax2.set_ylabel("measured queueing delay (us)", color="tab:red")
        ax.set_title("%d:1 incast: one sender's NSCC window and delay" % n)
        ax.grid(alpha=0.3)
        plots.append(Plot(
            "incast%d_nscc" % n, "%d:1 incast, NSCC state" % n,
            "One uet sender's PDC: its NSCC window and the queueing delay "
            "it measures (FI_UET_TRACE, sampled every ms).", _png(fig),
            2 * len(s)))
    return plots


def multipath(sdir):
    found = []
    for prov, label in (("uet", "uet (packet spraying)"),
                        ("tcp", "tcp (one hashed path)")):
        s = read_series(os.path.join(sdir, "multipath_dead_%s_links.tsv"
                                     % prov))
        if s and len(s):
            found.append((label, s, read_events(os.path.join(
                sdir, "multipath_dead_%s_events.tsv" % prov))))
    if not found:
        return []
    fig, axes = plt.subplots(len(found), 1, sharex=True,
                             figsize=(8, 2.8 * len(found)), squeeze=False)
    points = 0
    for ax, (label, s, events) in zip(axes[:, 0], found):
        t = _ms(s)
        for c in s.cols[1:]:
            ax.plot(t, s.col(c), linewidth=0.9, label=c.split("_")[0])
            points += len(s)
        for name, at in events:
            ax.axvline(at * 1e3, color="0.4", linestyle="--", linewidth=0.8)
            ax.annotate(name, (at * 1e3, 1), xycoords=("data", "axes fraction"),
                        xytext=(3, -12), textcoords="offset points",
                        fontsize="x-small", color="0.3")
        ax.set_title(label, fontsize="medium")
        ax.set_ylabel("link rate (Mbit/s)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize="x-small", ncol=4)
    axes[-1][0].set_xlabel("time since the flow's start (ms)")
    return [Plot("multipath_dead", "Multipath: a dead link",
                 "Each of 4 parallel 400 Mbit/s links' rate (10 ms bins) as "
                 "link 2 drops everything and comes back (dashed lines).",
                 _png(fig), points)]


def _cdf(ax, values, label):
    v = sorted(values)
    n = len(v)
    ax.step(v, [(i + 1) / n for i in range(n)], where="post", label=label,
            linewidth=1)


def latency(sdir):
    plots = []
    for kind, provs, title, caption in (
            ("wire", ("uet", "tcp", "udp_rxd"),
             "8 B half round trips over a veth pair",
             "Distribution of uet_pingpong's 8 B fi_writedata half round "
             "trips between two namespaces (bench_rma), per provider."),
            ("local", ("uet", "shm"),
             "8 B half round trips within one host",
             "The same ping-pong between two processes of one namespace "
             "(bench_local): uet's local channel beside libfabric's shm.")):
        found = []
        for prov in provs:
            s = read_series(os.path.join(sdir, "lat8_%s_%s.tsv"
                                         % (kind, prov)))
            if s and len(s):
                found.append((prov, s.col("half_rtt_us")))
        if not found:
            continue
        fig, ax = plt.subplots(figsize=(8, 3.2))
        for prov, v in found:
            _cdf(ax, v, "%s (median %.2f us)" % (prov, sorted(v)[len(v) // 2]))
        ax.set_xscale("log")
        # Plain numbers: 12 and 15, not 1.2 x 10^1, on the minor ticks too.
        ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.xaxis.set_minor_formatter(FormatStrFormatter("%g"))
        ax.set_xlabel("half round trip (us, log scale)")
        ax.set_ylabel("fraction of round trips")
        ax.set_title(title)
        ax.grid(alpha=0.3, which="both")
        ax.legend(loc="lower right", fontsize="small")
        plots.append(Plot("latency_%s" % kind, title, caption, _png(fig),
                          sum(len(v) for _, v in found)))
    return plots


MAKERS = (
    ("Incast: the port's queue", incast_queue,
     "incast{4,8,16}_{uet,tcp_cubic,tcp_bbr}_queue.tsv (bench_incast)"),
    ("Incast: each sender's rate", incast_rates,
     "incast{N}_{prov}_rates.tsv (bench_incast)"),
    ("NSCC during an incast", nscc, "incast{N}_uet_nscc.tsv (bench_incast)"),
    ("Multipath around a dead link", multipath,
     "multipath_dead_{uet,tcp}_links.tsv (bench_multipath)"),
    ("Latency distribution", latency,
     "lat8_wire_*.tsv (bench_rma), lat8_local_*.tsv (bench_local)"),
)
