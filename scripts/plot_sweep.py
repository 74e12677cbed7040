#!/usr/bin/python3
"""Plots the results of `npusim sweep` (DIR/results.csv or DIR/results.json) as a PNG.

  lines    --x PARAM --y METRIC [--by PARAM]
           METRIC against one parameter; one line per value of the other parameters
           (or of --by alone)
  heatmap  --heatmap PARAM_X PARAM_Y --y METRIC
           METRIC over two parameters (the others must be fixed, e.g. with --where)
  pareto   --pareto METRIC_A METRIC_B [--maximize METRIC]
           every point by two metrics, the Pareto front drawn through the best
           (both minimised unless named with --maximize)

A linked group of parameters is one parameter (its column); its keys' own columns
may also be named. Axes are labelled in words with units, times in ns, us, ms or s
and sizes in B, KiB, MiB or GiB as fits the values.

Common options: --out FILE.png (required), --where KEY=VALUE (keep rows where a
column has that value; repeatable), --logx, --title TEXT (default: the sweep's
name). Only rows whose status is `ok` are plotted. Run it with Debian's
/usr/bin/python3 and python3-matplotlib.
Exit codes: 0 ok, 2 bad input (a column the results do not have, nothing to plot).
"""

import argparse
import csv
import difflib
import json
import os
import re
import sys
import tempfile

FIXED = ("point", "testbench", "status", "error", "wall_s")

# Units as npusim writes them, for ordering and spacing values along an axis.
UNITS = {
    "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
    "KB": 1e3, "MB": 1e6, "GB": 1e9,
    "ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1,
    "Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9,
    "MT/s": 1, "GT/s": 1e3,
}
NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]*)\s*$")


class InputError(Exception):
    pass


def numeric(text):
    """The value of '16KiB', '10ns', '2' or '1.5'; None when it is not a quantity."""
    m = NUMBER.match(str(text))
    if not m:
        return None
    scale = UNITS.get(m.group(2), None) if m.group(2) else 1
    return None if scale is None else float(m.group(1)) * scale


def sort_key(text):
    """A value's place along an axis: its size, or for a linked group's 'rows=32 cols=64'
    the sizes of its parts in order; None when it is not made of quantities."""
    v = numeric(text)
    if v is not None:
        return (v,)
    parts = str(text).split()
    sizes = [numeric(p.partition("=")[2]) if "=" in p else None for p in parts]
    if parts and all(x is not None for x in sizes):
        return tuple(sizes)
    return None


def ordered(values):
    """Distinct values, by size when all are quantities, else in order of appearance."""
    distinct = list(dict.fromkeys(values))
    if all(sort_key(v) is not None for v in distinct):
        return sorted(distinct, key=sort_key)
    return distinct


# What a label writes for the first part of a path: report.json's sections and the
# testbench prefix are left out ("sim.simulated_ns" is "simulated time"), a kernel or
# buffer is named as one ("kernels.k.iload.p50_ns" is "kernel k iload p50").
SECTIONS = {"sim": None, "blocks": None, "utilisation": None, "breakdown": None,
            "critical_path": "critical path", "config": None, "testbench": None,
            "kernels": "kernel", "buffers": "buffer"}
STATISTICS = ("mean", "min", "max", "p50", "p90", "p95", "p99", "time")
SPECIAL = {"simulated_ns": "simulated time", "wall_s": "wall time"}


def path_parts(path):
    """The parts of a dotted path; a part in double quotes may hold dots."""
    return [a if a else b for a, b in re.findall(r'"([^"]*)"|([^.]+)', path)]


def scaled(unit, largest):
    """(unit to show, factor from the stored unit) for values up to `largest`."""
    if unit == "ns":
        for name, factor in (("ns", 1), ("us", 1e-3), ("ms", 1e-6)):
            if largest * factor < 1000:
                return name, factor
        return "s", 1e-9
    if unit == "B":
        for name, factor in (("B", 1), ("KiB", 1 / 1024), ("MiB", 1 / 1024**2)):
            if largest * factor < 1024:
                return name, factor
        return "GiB", 1 / 1024**3
    if unit == "B/s":
        return "GB/s", 1e-9
    if unit == "pJ":
        for name, factor in (("pJ", 1), ("nJ", 1e-3), ("uJ", 1e-6), ("mJ", 1e-9)):
            if largest * factor < 1000:
                return name, factor
        return "J", 1e-12
    return unit, 1


class Axis:
    """How a column is shown: words with a unit, and the factor its values take."""

    def __init__(self, column, path=None, values=(), linked=None):
        parts = path_parts(path or column)
        leaf = parts[-1] if parts else column
        unit, stem = None, leaf
        for suffix, u in (("_bytes_per_s", "B/s"), ("_gbps", "GB/s"), ("_ns", "ns"),
                          ("_pj", "pJ"), ("_w", "W"), ("_js", "J s"), ("_s", "s")):
            if leaf.endswith(suffix):
                unit, stem = u, leaf[: -len(suffix)]
                break
        if unit is None and (leaf == "bytes" or leaf.endswith("_bytes")):
            unit = "B"  # the word stays: "ddr read bytes (MiB)"
        largest = max((abs(v) for v in values), default=0)
        self.unit, self.factor = scaled(unit, largest) if unit else (None, 1)
        if path and path != column:  # a metric under a name of the user's
            words = column.replace("_", " ")
        elif leaf in SPECIAL:
            words = SPECIAL[leaf]
        else:
            context = parts[:-1]
            while context and context[0] in SECTIONS:
                context = ([SECTIONS[context[0]]] if SECTIONS[context[0]] else []) + context[1:]
            words = " ".join(context + [stem]).replace("_", " ")
            if unit in ("ns", "s") and stem.split("_")[-1] not in STATISTICS:
                words += " time"
        if linked:
            words += " (" + " = ".join(path_parts(k)[-1] for k in linked) + ")"
        self.label = words + (f" ({self.unit})" if self.unit else "")


def read_meta(path):
    """results.json, else plan.json, beside a results.csv; {} when neither is there."""
    directory = os.path.dirname(os.path.abspath(path))
    for name in ("results.json", "plan.json"):
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            continue
    return {}


class Results:
    """A sweep's rows (dicts of text) and what its columns are."""

    def __init__(self, path):
        if path.endswith(".json"):
            with open(path, encoding="utf-8") as f:
                meta = json.load(f)
            self.rows = []
            for p in meta["points"]:
                row = {"point": str(p["point"]), "testbench": p["testbench"],
                       "status": p["status"], "error": p["error"], "wall_s": str(p["wall_s"])}
                row.update(p["parameters"])
                for name, value in p["metrics"].items():
                    row[name] = "" if value is None else str(value)
                self.rows.append(row)
            middle = None
        else:
            with open(path, newline="", encoding="utf-8") as f:
                reader = csv.DictReader(f)
                header = reader.fieldnames or []
                self.rows = list(reader)
            if header[:2] != ["point", "testbench"] or header[-3:] != ["status", "error", "wall_s"]:
                raise InputError(f"{path}: not a results file of npusim sweep")
            middle = header[2:-3]
            meta = read_meta(path)
        self.title = meta.get("sweep", meta.get("name"))
        self.linked = meta.get("linked", {})
        self.paths = {m["name"]: m["path"] for m in meta.get("metrics", [])}
        keys = [k for ks in self.linked.values() for k in ks]
        if "parameters" in meta:
            self.params = meta["parameters"]
        else:
            # Parameters come first; a metric column holds numbers in every ok row.
            ok = [r for r in self.rows if r["status"] == "ok"]
            self.params = [c for c in middle if not all(numeric(r[c]) is not None for r in ok)]
        if middle is None:
            self.metrics = list(self.paths)
        else:
            self.metrics = [c for c in middle if c not in self.params and c not in keys]
        # Columns that name a parameter: the axes, the linked keys and the testbench.
        self.parameter_columns = self.params + [k for k in keys if k not in self.params]

    def axis_of(self, column):
        """The parameter (axis) a column belongs to: itself, or its linked group."""
        for name, keys in self.linked.items():
            if column in keys:
                return name
        return column

    def axis(self, column, rows):
        """How to show a column's values in `rows`."""
        if column in self.metrics or column == "wall_s":
            values = [numeric(r[column]) for r in rows]
            return Axis(column, self.paths.get(column), [v for v in values if v is not None])
        linked = self.linked.get(column)
        equal = linked and all(numeric(r[column]) is not None for r in rows)
        return Axis(column, None, (), linked if equal else None)


def check_column(name, columns, what):
    if name in columns:
        return
    hint = difflib.get_close_matches(name, columns, n=1)
    tail = f"; did you mean '{hint[0]}'?" if hint else "; the results have " + ", ".join(columns)
    raise InputError(f"{what} '{name}' is not a column of the results{tail}")


def value(row, metric, factor=1):
    v = numeric(row[metric])
    if v is None:
        raise InputError(f"point {row['point']}: {metric} is '{row[metric]}', not a number")
    return v * factor


def plot_lines(ax, rows, res, x, y, by, logx):
    params = res.params
    others = [by] if by else [p for p in params if p != res.axis_of(x)]
    if not by and len({r["testbench"] for r in rows}) > 1:
        others = ["testbench"] + others
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[o] for o in others), []).append(r)
    xs_all = ordered([r[x] for r in rows])
    quantity = all(numeric(v) is not None for v in xs_all)
    y_axis = res.axis(y, rows)
    for key in sorted(groups, key=lambda k: [sort_key(v) or (0,) for v in k]):
        members = sorted(groups[key], key=lambda r: xs_all.index(r[x]))
        xs = [numeric(r[x]) if quantity else xs_all.index(r[x]) for r in members]
        label = ", ".join(f"{o}={v}" for o, v in zip(others, key)) or None
        ax.plot(xs, [value(r, y, y_axis.factor) for r in members], marker="o", label=label)
    if quantity:
        ax.set_xticks([numeric(v) for v in xs_all])
    else:
        ax.set_xticks(range(len(xs_all)))
    ax.set_xticklabels(xs_all)
    if logx:
        ax.set_xscale("log")
        ax.set_xticks([numeric(v) for v in xs_all])
        ax.set_xticklabels(xs_all)
        ax.minorticks_off()
    ax.set_xlabel(res.axis(x, rows).label)
    ax.set_ylabel(y_axis.label)
    if len(groups) > 1:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)


def plot_heatmap(fig, ax, rows, res, px, py, y):
    others = [p for p in res.params if p not in (res.axis_of(px), res.axis_of(py))]
    if "testbench" not in (px, py):
        others.append("testbench")
    for o in others:
        if len({r[o] for r in rows}) > 1:
            raise InputError(f"{o} takes several values; fix it with --where {o}=VALUE")
    xs, ys = ordered([r[px] for r in rows]), ordered([r[py] for r in rows])
    y_axis = res.axis(y, rows)
    grid = [[float("nan")] * len(xs) for _ in ys]
    for r in rows:
        grid[ys.index(r[py])][xs.index(r[px])] = value(r, y, y_axis.factor)
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels(ys)
    ax.set_xlabel(res.axis(px, rows).label)
    ax.set_ylabel(res.axis(py, rows).label)
    finite = [v for line in grid for v in line if v == v]
    middle = (min(finite) + max(finite)) / 2 if finite else 0
    for j, line in enumerate(grid):
        for i, v in enumerate(line):
            if v == v:
                ax.text(i, j, f"{v:.4g}", ha="center", va="center", fontsize="small",
                        color="white" if v < middle else "black")
    fig.colorbar(image, ax=ax, label=y_axis.label)


def pareto_front(points):
    """Indices of the points no other point beats on both (minimised) coordinates."""
    front = []
    for i, (a, b) in enumerate(points):
        beaten = any(c <= a and d <= b and (c < a or d < b) for c, d in points)
        if not beaten:
            front.append(i)
    return sorted(front, key=lambda i: points[i])


def plot_pareto(ax, rows, res, ma, mb, maximize):
    params = res.params
    axis_a, axis_b = res.axis(ma, rows), res.axis(mb, rows)
    sign_a = -1 if ma in maximize else 1
    sign_b = -1 if mb in maximize else 1
    raw = [(value(r, ma, axis_a.factor), value(r, mb, axis_b.factor)) for r in rows]
    front = pareto_front([(sign_a * a, sign_b * b) for a, b in raw])
    ax.scatter([a for a, _ in raw], [b for _, b in raw], color="tab:gray", label="points")
    ax.plot([raw[i][0] for i in front], [raw[i][1] for i in front], color="tab:red",
            marker="o", drawstyle="steps-post", label="Pareto front")
    for i in front:
        label = ", ".join(f"{p}={rows[i][p]}" for p in params)
        ax.annotate(label, raw[i], textcoords="offset points", xytext=(4, 4), fontsize="x-small")
    ax.set_xlabel(axis_a.label + (", higher is better" if ma in maximize else ""))
    ax.set_ylabel(axis_b.label + (", higher is better" if mb in maximize else ""))
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", help="results.csv or results.json of npusim sweep")
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--x", help="parameter on the x axis (lines)")
    parser.add_argument("--y", help="metric to plot (lines, heatmap)")
    parser.add_argument("--by", help="lines: one line per value of this parameter only")
    parser.add_argument("--heatmap", nargs=2, metavar=("PARAM_X", "PARAM_Y"))
    parser.add_argument("--pareto", nargs=2, metavar=("METRIC_A", "METRIC_B"))
    parser.add_argument("--maximize", action="append", default=[], metavar="METRIC")
    parser.add_argument("--where", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--logx", action="store_true", help="lines: logarithmic x axis")
    parser.add_argument("--title")
    args = parser.parse_args(argv)
    modes = [m for m in (args.x, args.heatmap, args.pareto) if m]
    if len(modes) != 1:
        parser.error("choose one of --x (lines), --heatmap or --pareto")

    try:
        res = Results(args.results)
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"{args.results}: cannot read: {e}") from e
    params, metrics, rows = res.parameter_columns, res.metrics, res.rows
    columns = list(FIXED[:2]) + params + metrics
    for cond in args.where:
        key, sep, wanted = cond.partition("=")
        if not sep:
            raise InputError(f"--where {cond}: expected KEY=VALUE")
        check_column(key, columns, "--where")
        rows = [r for r in rows if r[key] == wanted]
    rows = [r for r in rows if r["status"] == "ok"]
    if not rows:
        raise InputError("no successful point to plot (after --where)")

    try:
        import matplotlib
    except ImportError:
        print(f"plot_sweep.py: error: {sys.executable} has no matplotlib; run this script with "
              "/usr/bin/python3 after `apt-get install python3-matplotlib`", file=sys.stderr)
        sys.exit(2)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    if args.x:
        if not args.y:
            parser.error("--x needs --y METRIC")
        check_column(args.x, params + ["testbench"], "parameter")
        check_column(args.y, metrics, "metric")
        if args.by:
            check_column(args.by, params + ["testbench"], "parameter")
        plot_lines(ax, rows, res, args.x, args.y, args.by, args.logx)
    elif args.heatmap:
        if not args.y:
            parser.error("--heatmap needs --y METRIC")
        for p in args.heatmap:
            check_column(p, params + ["testbench"], "parameter")
        check_column(args.y, metrics, "metric")
        plot_heatmap(fig, ax, rows, res, *args.heatmap, args.y)
    else:
        for m in args.pareto + args.maximize:
            check_column(m, metrics, "metric")
        plot_pareto(ax, rows, res, *args.pareto, args.maximize)
    folder = os.path.basename(os.path.dirname(os.path.abspath(args.results)))
    ax.set_title(args.title or res.title or folder)
    fig.tight_layout()
    # Write under a temporary name: a failed plot leaves no file behind.
    directory = os.path.dirname(os.path.abspath(args.out))
    fd, temp = tempfile.mkstemp(suffix=".png", dir=directory)
    os.close(fd)
    try:
        fig.savefig(temp, format="png")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, args.out)
    finally:
        if os.path.exists(temp):
            os.remove(temp)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        print(f"plot_sweep: error: {e}", file=sys.stderr)
        sys.exit(2)
