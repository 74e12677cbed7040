#!/usr/bin/env python3
"""Compares two runs of the same testbench and config, e.g. the burst and the 64-byte data
path (interconnect.granularity): simulated time, each launch phase's mean over all launches,
and every kernel's phase means, as relative differences of the first run from the second.

Usage: scripts/compare_paths.py FIRST/report.json SECOND/report.json [--names A B] [--worst N]
Exit status 0; a report that cannot be read or is not an npusim report exits 2.
"""
import argparse
import json
import sys

PHASES = ["prepare", "submit", "schedule", "iload", "execute", "complete"]


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        report["sim"]["simulated_ns"], report["kernels"]
        return report
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"compare_paths.py: {path}: not an npusim report.json ({e})", file=sys.stderr)
        sys.exit(2)


def pct(a, b):
    return 0.0 if a == b else (float("inf") if b == 0 else 100 * (a - b) / b)


def phase_means(report):
    """Each phase's mean over all launches (kernels' means weighted by their launches)."""
    total = {p: 0.0 for p in PHASES}
    launches = 0
    for k in report["kernels"].values():
        launches += k["launches"]
        for p in PHASES:
            total[p] += k[p]["mean_ns"] * k["launches"]
    return {p: total[p] / launches if launches else 0.0 for p in PHASES}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("first")
    ap.add_argument("second")
    ap.add_argument("--names", nargs=2, default=["burst", "64B"], metavar=("A", "B"))
    ap.add_argument("--worst", type=int, default=3, help="kernel phases listed (default 3)")
    args = ap.parse_args()
    a, b = load(args.first), load(args.second)
    na, nb = args.names
    ta, tb = a["sim"]["simulated_ns"], b["sim"]["simulated_ns"]
    print(f"simulated time: {na} {ta / 1e3:.3f} us, {nb} {tb / 1e3:.3f} us ({pct(ta, tb):+.3f}%)")
    ma, mb = phase_means(a), phase_means(b)
    print("phase means over all launches (ns): "
          + ", ".join(f"{p} {ma[p]:.1f}/{mb[p]:.1f} ({pct(ma[p], mb[p]):+.2f}%)" for p in PHASES))
    rows = []
    for name, k in a["kernels"].items():
        other = b["kernels"].get(name)
        if other is None:
            continue
        for p in PHASES:
            x, y = k[p]["mean_ns"], other[p]["mean_ns"]
            rows.append((abs(pct(x, y)), name, p, x, y))
    within = sum(1 for r in rows if r[0] <= 1.0)
    print(f"kernel phase means within 1%: {within} of {len(rows)}")
    for d, name, p, x, y in sorted(rows, key=lambda r: (-r[0], r[1], r[2]))[: args.worst]:
        if d > 1.0:
            print(f"  {name}.{p}: {x:.1f} ns vs {y:.1f} ns ({pct(x, y):+.2f}%, {x - y:+.1f} ns)")


if __name__ == "__main__":
    main()
