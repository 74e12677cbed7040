#!/usr/bin/python3
"""Plots of one npusim run, as PNG, from the files of `npusim run --out DIR`.

  timeline.png    Gantt chart of the host thread, each stream's launches on their
                  hardware queue, and each compute unit (launches.csv)
  phases.png      mean time of each launch phase per kernel, stacked (report.json)
  histograms.png  one histogram of launch durations per phase (launches.csv)

Usage: plot_run.py DIR [--only timeline|phases|histograms] [--max-launches N]
Run it with Debian's /usr/bin/python3 and python3-matplotlib. Writes the PNGs into DIR
(each under a temporary name first), and prints nothing on success.
"""

import argparse
import csv
import json
import os
import sys

try:
    import matplotlib
except ImportError:
    print(f"plot_run.py: error: {sys.executable} has no matplotlib; run this script with "
          "/usr/bin/python3 after `apt-get install python3-matplotlib`", file=sys.stderr)
    sys.exit(2)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DPI = 100
SIZES = {  # inches at DPI: the PNGs are 1600x900, 1200x800 and 1200x800 pixels
    "timeline": (16, 9),
    "phases": (12, 8),
    "histograms": (12, 8),
}
PHASES = ["prepare", "submit", "schedule", "iload", "execute", "complete"]
COLOURS = {
    "prepare": "#8da0cb",
    "submit": "#66c2a5",
    "schedule": "#e5c494",
    "iload": "#fc8d62",
    "execute": "#a6d854",
    "complete": "#b3b3b3",
}


def fail(message):
    print(f"plot_run.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_launches(run_dir):
    path = os.path.join(run_dir, "launches.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}; expected the launches.csv of `npusim run --out`")
    for row in rows:
        for k in range(7):
            row[f"t{k}"] = float(row[f"t{k}_ns"])
        row["schedule_ns"] = float(row["schedule_wait_ns"]) + float(row["schedule_dispatch_ns"])
    return rows


def read_report(run_dir):
    path = os.path.join(run_dir, "report.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}; expected the report.json of `npusim run --out`")
    except json.JSONDecodeError as e:
        fail(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}")


def time_unit(span_ns):
    """The unit that shows `span_ns` with a few integer digits."""
    for divisor, name in ((1e6, "ms"), (1e3, "us")):
        if span_ns >= 10 * divisor:
            return divisor, name
    return 1.0, "ns"


def save(fig, run_dir, name):
    path = os.path.join(run_dir, name + ".png")
    temp = path + ".tmp"
    fig.savefig(temp, format="png", dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    os.replace(temp, path)


def plot_timeline(run_dir, launches, report, max_launches):
    shown = launches[:max_launches]
    fig, ax = plt.subplots(figsize=SIZES["timeline"], dpi=DPI)
    end_ns = max([r["t6"] for r in shown], default=0.0)
    divisor, unit = time_unit(end_ns)
    streams = sorted({r["stream"] for r in shown})
    units = sorted({int(r["unit"]) for r in shown if int(r["unit"]) >= 0})
    tracks = ["host"] + [f"queue of stream {s}" for s in streams] + [f"unit {u}" for u in units]
    y_of = {name: i for i, name in enumerate(tracks)}
    bars = {}  # (track, phase) -> [(start, width)]

    def add(track, phase, start, stop):
        if stop > start:
            bars.setdefault((track, phase), []).append((start / divisor, (stop - start) / divisor))

    for r in shown:
        add("host", "prepare", r["t0"], r["t1"])
        add("host", "submit", r["t1"], r["t2"])
        queue = f"queue of stream {r['stream']}"
        add(queue, "schedule", r["t2"], r["t3"])
        add(queue, "iload", r["t3"], r["t4"])
        add(queue, "execute", r["t4"], r["t5"])
        add(queue, "complete", r["t5"], r["t6"])
        if int(r["unit"]) >= 0:
            add(f"unit {int(r['unit'])}", "iload", r["t3"], r["t4"])
            add(f"unit {int(r['unit'])}", "execute", r["t4"], r["t5"])
    labelled = set()
    for (track, phase), spans in sorted(bars.items(), key=lambda kv: (y_of[kv[0][0]], kv[0][1])):
        label = phase if phase not in labelled else None
        labelled.add(phase)
        ax.broken_barh(spans, (y_of[track] - 0.4, 0.8), facecolors=COLOURS[phase], label=label,
                       alpha=0.85)
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels(tracks)
    ax.invert_yaxis()
    ax.set_xlabel(f"simulated time ({unit})")
    name = f"{report.get('testbench_name', '')} on {report.get('config_name', '')}"
    note = "" if len(shown) == len(launches) else f", first {len(shown)} of {len(launches)} launches"
    ax.set_title(f"timeline: {name}{note}")
    handles, labels = ax.get_legend_handles_labels()
    order = [labels.index(p) for p in PHASES if p in labels]
    if order:
        ax.legend([handles[i] for i in order], [labels[i] for i in order], loc="upper right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save(fig, run_dir, "timeline")


def plot_phases(run_dir, report, max_kernels=40):
    kernels = report.get("kernels", {})
    names = sorted(kernels, key=lambda k: -kernels[k]["total"]["mean_ns"] * kernels[k]["launches"])
    names = names[:max_kernels]
    fig, ax = plt.subplots(figsize=SIZES["phases"], dpi=DPI)
    span = max([kernels[k]["total"]["mean_ns"] for k in names], default=0.0)
    divisor, unit = time_unit(span)
    left = [0.0] * len(names)
    for phase in PHASES:
        widths = [kernels[k][phase]["mean_ns"] / divisor for k in names]
        ax.barh(range(len(names)), widths, left=left, color=COLOURS[phase], label=phase)
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([f"{k} (x{kernels[k]['launches']})" for k in names],
                       fontsize=8 if len(names) > 20 else 10)
    ax.invert_yaxis()
    ax.set_xlabel(f"mean time per launch ({unit})")
    more = len(kernels) - len(names)
    ax.set_title("launch phases per kernel" + (f" ({more} more kernels not shown)" if more else ""))
    ax.legend(loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save(fig, run_dir, "phases")


def plot_histograms(run_dir, launches):
    fig, axes = plt.subplots(2, 3, figsize=SIZES["histograms"], dpi=DPI)
    for ax, phase in zip(axes.flat, PHASES):
        values = [float(r[f"{phase}_ns"]) for r in launches]
        divisor, unit = time_unit(max(values, default=0.0))
        ax.hist([v / divisor for v in values], bins=50, color=COLOURS[phase])
        ax.set_title(phase)
        ax.set_xlabel(unit)
        ax.set_ylabel("launches")
        if values and max(values) > 0:
            ax.set_yscale("log")
    fig.suptitle(f"launch phase durations ({len(launches)} launches)")
    fig.tight_layout()
    save(fig, run_dir, "histograms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="output directory of `npusim run --out DIR`")
    parser.add_argument("--only", choices=["timeline", "phases", "histograms"],
                        help="draw one plot (default: all three)")
    parser.add_argument("--max-launches", type=int, default=5000,
                        help="launches drawn on the timeline (default 5000, the first ones)")
    args = parser.parse_args()
    if not os.path.isdir(args.dir):
        fail(f"{args.dir}: no such directory; expected the --out directory of an npusim run")
    report = read_report(args.dir)
    wanted = [args.only] if args.only else ["timeline", "phases", "histograms"]
    launches = read_launches(args.dir) if ("timeline" in wanted or "histograms" in wanted) else []
    if "timeline" in wanted:
        plot_timeline(args.dir, launches, report, args.max_launches)
    if "phases" in wanted:
        plot_phases(args.dir, report)
    if "histograms" in wanted:
        plot_histograms(args.dir, launches)


if __name__ == "__main__":
    main()
