#!/usr/bin/python3
"""Plots of one npusim run, as PNG, from the files of `npusim run --out DIR`.

  timeline.png    Gantt chart of the host thread, each stream's launches on their
                  hardware queue, and each compute unit a launch ran on (launches.csv);
                  a launch only waiting in its queue is a thin line, not a bar
  phases.png      mean time of each launch phase per kernel, stacked (report.json)
  histograms.png  one histogram of launch durations per phase (launches.csv)
  roofline.png    each kernel (arithmetic intensity, achieved MAC rate) under the
                  config's compute and DDR bandwidth roofs (report.json)

Usage: plot_run.py DIR [--only timeline|phases|histograms|roofline] [--max-launches N]
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
SIZES = {  # inches at DPI: the PNGs are 1600x900 and 1200x800 pixels
    "timeline": (16, 9),
    "phases": (12, 8),
    "histograms": (12, 8),
    "roofline": (12, 8),
}
PLOTS = ["timeline", "phases", "histograms", "roofline"]
BOUND_COLOURS = {"compute": "#1b9e77", "memory": "#d95f02", "iload": "#7570b3", "host": "#e7298a"}
PHASES = ["prepare", "submit", "schedule", "iload", "execute", "complete"]
QUEUED = "queued"  # the schedule wait: a thin line on the stream's queue row
COLOURS = {
    "prepare": "#8da0cb",
    "submit": "#66c2a5",
    "schedule": "#e5c494",
    "iload": "#fc8d62",
    "execute": "#a6d854",
    "complete": "#b3b3b3",
    QUEUED: "#b08a3e",
}
LEGEND = {QUEUED: "queued (schedule wait)"}


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
        row["spans"] = unit_spans(row)
    return rows


def unit_spans(row):
    """[(unit, t4, t5)]: each unit the launch ran on, with its own t4 and t5."""
    if row.get("units") is None:  # a launches.csv from before the units column
        unit = int(row["unit"])
        return [(unit, row["t4"], row["t5"])] if unit >= 0 else []
    units, t4s, t5s = (row[c].split(";") if row[c] else [] for c in
                       ("units", "unit_t4_ns", "unit_t5_ns"))
    if not len(units) == len(t4s) == len(t5s):
        fail(f"launch {row['launch_id']}: units, unit_t4_ns and unit_t5_ns differ in length")
    return [(int(u), float(a), float(b)) for u, a, b in zip(units, t4s, t5s)]


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


def timeline_shapes(launches):
    """What the timeline draws, in ns: (tracks, bars, markers). bars and markers are
    dicts with track, phase, start_ns, stop_ns and launch_id; a marker is a thin line."""
    streams = sorted({r["stream"] for r in launches})
    units = sorted({u for r in launches for u, _, _ in r["spans"]})
    tracks = ["host"] + [f"queue of stream {s}" for s in streams] + [f"unit {u}" for u in units]
    bars, markers = [], []

    def add(shapes, track, phase, start, stop, r):
        if stop > start:
            shapes.append({"track": track, "phase": phase, "start_ns": start, "stop_ns": stop,
                           "launch_id": int(r["launch_id"])})

    for r in launches:
        add(bars, "host", "prepare", r["t0"], r["t1"], r)
        add(bars, "host", "submit", r["t1"], r["t2"], r)
        queue = f"queue of stream {r['stream']}"
        # The schedule phase is the wait in the queue (the host ran ahead), then the
        # scheduler's dispatch; only the dispatch occupies the queue.
        dispatched = max(r["t2"], r["t3"] - float(r["schedule_dispatch_ns"]))
        add(markers, queue, QUEUED, r["t2"], dispatched, r)
        add(bars, queue, "schedule", dispatched, r["t3"], r)
        add(bars, queue, "iload", r["t3"], r["t4"], r)
        add(bars, queue, "execute", r["t4"], r["t5"], r)
        add(bars, queue, "complete", r["t5"], r["t6"], r)
        for unit, t4, t5 in r["spans"]:
            add(bars, f"unit {unit}", "iload", r["t3"], t4, r)
            add(bars, f"unit {unit}", "execute", t4, t5, r)
    return tracks, bars, markers


def plot_timeline(run_dir, launches, report, max_launches, dump=None):
    shown = launches[:max_launches]
    tracks, bars, markers = timeline_shapes(shown)
    if dump:
        with open(dump, "w", encoding="utf-8") as f:
            json.dump({"tracks": tracks, "bars": bars, "markers": markers}, f, indent=1)
    fig, ax = plt.subplots(figsize=SIZES["timeline"], dpi=DPI)
    end_ns = max([r["t6"] for r in shown], default=0.0)
    divisor, unit = time_unit(end_ns)
    y_of = {name: i for i, name in enumerate(tracks)}
    grouped = {}  # (track, phase) -> [(start, width)]
    for b in bars:
        grouped.setdefault((b["track"], b["phase"]), []).append(
            (b["start_ns"] / divisor, (b["stop_ns"] - b["start_ns"]) / divisor))
    labelled = set()
    for (track, phase), spans in sorted(grouped.items(), key=lambda kv: (y_of[kv[0][0]], kv[0][1])):
        label = phase if phase not in labelled else None
        labelled.add(phase)
        ax.broken_barh(spans, (y_of[track] - 0.4, 0.8), facecolors=COLOURS[phase], label=label,
                       alpha=0.85)
    if markers:
        # Queued launches overlap each other and what runs: a line in the row's lower half.
        ax.hlines([y_of[m["track"]] + 0.3 for m in markers],
                  [m["start_ns"] / divisor for m in markers],
                  [m["stop_ns"] / divisor for m in markers],
                  colors=COLOURS[QUEUED], linewidth=1.5, label=LEGEND[QUEUED])
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels(tracks)
    ax.invert_yaxis()
    ax.set_xlabel(f"simulated time ({unit})")
    name = f"{report.get('testbench_name', '')} on {report.get('config_name', '')}"
    note = "" if len(shown) == len(launches) else f", first {len(shown)} of {len(launches)} launches"
    ax.set_title(f"timeline: {name}{note}")
    handles, labels = ax.get_legend_handles_labels()
    names = [LEGEND.get(p, p) for p in PHASES[:3] + [QUEUED] + PHASES[3:]]
    order = [labels.index(n) for n in names if n in labels]
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


def roofline_points(report):
    """The kernels with MACs and DRAM bytes, as plotted, and the roofs (JSON-ready)."""
    peaks = report.get("peaks", {})
    points, left_out = [], 0
    for layer in report.get("layers", []):
        if layer["macs"] > 0 and layer["dram_bytes"] > 0 and layer["execute_ns"] > 0:
            points.append({"kernel": layer["kernel"], "bound": layer["bound"],
                           "macs_per_byte": layer["macs"] / layer["dram_bytes"],
                           "macs_per_s": layer["macs"] / (layer["execute_ns"] * 1e-9),
                           "time_ns": layer["time_ns"]})
        else:
            left_out += 1
    return {"macs_per_s": peaks.get("macs_per_s", 0.0),
            "dram_bytes_per_s": peaks.get("dram_bytes_per_s", 0.0),
            "points": points, "left_out": left_out}


def plot_roofline(run_dir, report, dump=None, labelled=10):
    data = roofline_points(report)
    if dump:
        with open(dump, "w", encoding="utf-8") as f:
            json.dump(data, f)
    points, peak, bandwidth = data["points"], data["macs_per_s"], data["dram_bytes_per_s"]
    fig, ax = plt.subplots(figsize=SIZES["roofline"], dpi=DPI)
    xs = [p["macs_per_byte"] for p in points]
    ridge = peak / bandwidth if bandwidth > 0 else 1.0
    lo = min(xs + [ridge]) / 4
    hi = max(xs + [ridge]) * 4
    if peak > 0 and bandwidth > 0:
        ax.plot([lo, ridge, hi], [lo * bandwidth, peak, peak], color="black", linewidth=1.5,
                label=f"roofs: {peak / 1e12:.2f} TMAC/s, {bandwidth / 1e9:.1f} GB/s DDR")
    for bound, colour in BOUND_COLOURS.items():
        chosen = [p for p in points if p["bound"] == bound]
        if chosen:
            ax.scatter([p["macs_per_byte"] for p in chosen], [p["macs_per_s"] for p in chosen],
                       color=colour, label=f"{bound} bound ({len(chosen)})", zorder=3)
    for p in sorted(points, key=lambda p: -p["time_ns"])[:labelled]:
        ax.annotate(p["kernel"], (p["macs_per_byte"], p["macs_per_s"]), fontsize=8,
                    xytext=(4, 4), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (MACs per DRAM byte)")
    ax.set_ylabel("achieved MAC rate (MACs per second of execute)")
    left_out = data["left_out"]
    ax.set_title("roofline, one point per kernel" +
                 (f" ({left_out} kernels without MACs or DRAM bytes not shown)"
                  if left_out else ""))
    ax.grid(which="both", alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    save(fig, run_dir, "roofline")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="output directory of `npusim run --out DIR`")
    parser.add_argument("--only", choices=PLOTS, help="draw one plot (default: all four)")
    parser.add_argument("--max-launches", type=int, default=5000,
                        help="launches drawn on the timeline (default 5000, the first ones)")
    # For tests: the timeline's tracks, bars and queued markers as JSON (times in ns).
    parser.add_argument("--dump-timeline", metavar="FILE", help=argparse.SUPPRESS)
    # For tests: the roofline's roofs and points as JSON.
    parser.add_argument("--dump-roofline", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.path.isdir(args.dir):
        fail(f"{args.dir}: no such directory; expected the --out directory of an npusim run")
    report = read_report(args.dir)
    wanted = [args.only] if args.only else PLOTS
    launches = read_launches(args.dir) if ("timeline" in wanted or "histograms" in wanted) else []
    if "timeline" in wanted:
        plot_timeline(args.dir, launches, report, args.max_launches, args.dump_timeline)
    if "phases" in wanted:
        plot_phases(args.dir, report)
    if "histograms" in wanted:
        plot_histograms(args.dir, launches)
    if "roofline" in wanted:
        plot_roofline(args.dir, report, args.dump_roofline)


if __name__ == "__main__":
    main()
