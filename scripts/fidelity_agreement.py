#!/usr/bin/env python3
"""Runs testbenches on configs at both fidelity levels (ddr.model: cycle and transaction)
and prints how far the transaction level is from the cycle level: simulated time, each
kernel's mean execute time (the worst kernel), DRAM energy, and both wall times.

Usage: scripts/fidelity_agreement.py [--npusim BUILD/npusim] [--configs A,B] [--cases X,Y]
                                     [--jobs N] [--out DIR] [--keep] [--markdown]
                                     [--bounds T,K,E]
  --configs   config names (default: edge-npu,datacenter-npu,datacenter-gpu)
  --cases     testbench files or names under testbenches/ and testbenches/workloads/
              (default: every shipped testbench and workload)
  --keep      reuse the runs already in --out DIR (each with its report.json and wall_s);
              delete DIR/*-transaction to rerun one level only
  --bounds    allowed error in percent of time, kernel execute, DRAM energy (default 3,5,5)
Each pair runs with --max-wall-time 3600s. A testbench a config cannot hold (a workload whose
buffers exceed its DDR) is listed as such, not as an error. Exit status: 0 when every case
that ran is within the bounds, 1 otherwise, 2 on bad arguments.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def all_cases():
    cases = []
    for folder in ("testbenches", "testbenches/workloads"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".yaml"):
                cases.append(os.path.join(folder, name))
    return cases


def resolve(case):
    for candidate in (case, f"testbenches/{case}.yaml", f"testbenches/workloads/{case}.yaml"):
        if os.path.exists(os.path.join(ROOT, candidate)):
            return candidate
    sys.exit(f"fidelity_agreement.py: no testbench '{case}'")


def run(npusim, config, case, model, out, keep=False):
    report = os.path.join(out, "report.json")
    if keep and os.path.exists(report) and os.path.exists(os.path.join(out, "wall_s")):
        with open(report, encoding="utf-8") as f, open(os.path.join(out, "wall_s")) as w:
            return json.load(f), float(w.read()), ""
    start = time.monotonic()
    proc = subprocess.run(
        [npusim, "run", "--config", f"configs/{config}.yaml", "--testbench", case, "--set",
         f"ddr.model={model}", "--max-wall-time", "3600s", "--out", out],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        return None, wall, proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"
    with open(os.path.join(out, "wall_s"), "w") as w:
        w.write(f"{wall}\n")
    with open(report, encoding="utf-8") as f:
        return json.load(f), wall, ""


def pct(a, b):
    return 0.0 if a == b else (float("inf") if b == 0 else 100.0 * (a - b) / b)


def ddr_energy(report):
    return report.get("energy", {}).get("blocks", {}).get("ddr_pj", 0.0)


def compare(tx, cycle):
    time_err = pct(tx["sim"]["simulated_ns"], cycle["sim"]["simulated_ns"])
    worst, worst_kernel = 0.0, "-"
    for name, k in cycle["kernels"].items():
        if name not in tx["kernels"]:
            continue
        e = pct(tx["kernels"][name]["execute"]["mean_ns"], k["execute"]["mean_ns"])
        if abs(e) > abs(worst):
            worst, worst_kernel = e, name
    return time_err, worst, worst_kernel, pct(ddr_energy(tx), ddr_energy(cycle))


def one_case(npusim, config, case, out_root, keep):
    label = os.path.splitext(os.path.basename(case))[0]
    out = os.path.join(out_root, f"{config}-{label}")
    cycle, cycle_wall, err = run(npusim, config, case, "cycle", out + "-cycle", keep)
    if cycle is None:
        return {"config": config, "case": label, "error": err}
    tx, tx_wall, err = run(npusim, config, case, "transaction", out + "-transaction", keep)
    if tx is None:
        return {"config": config, "case": label, "error": "transaction: " + err}
    t, k, kernel, e = compare(tx, cycle)
    ddr = cycle["blocks"]["ddr"]
    return {"config": config, "case": label, "time": t, "kernel": k, "kernel_name": kernel,
            "energy": e, "cycle_wall": cycle_wall, "tx_wall": tx_wall,
            "dram_gb": (ddr["read_bytes"] + ddr["write_bytes"]) / 1e9,
            "sim_ms": cycle["sim"]["simulated_ns"] / 1e6}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--npusim", default=os.path.join(ROOT, "build", "npusim"))
    ap.add_argument("--configs", default="edge-npu,datacenter-npu,datacenter-gpu")
    ap.add_argument("--cases", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default="")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--bounds", default="3,5,5")
    args = ap.parse_args()
    try:
        bounds = [float(x) for x in args.bounds.split(",")]
        assert len(bounds) == 3
    except (ValueError, AssertionError):
        print("fidelity_agreement.py: --bounds takes three numbers, e.g. 3,5,5", file=sys.stderr)
        sys.exit(2)
    cases = [resolve(c) for c in args.cases.split(",") if c] or all_cases()
    configs = [c for c in args.configs.split(",") if c]
    out_root = args.out or tempfile.mkdtemp(prefix="fidelity-")
    os.makedirs(out_root, exist_ok=True)
    pairs = [(c, t) for c in configs for t in cases]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        results = list(pool.map(lambda p: one_case(args.npusim, p[0], p[1], out_root, args.keep), pairs))
    ok = True
    if args.markdown:
        print("| config | case | DRAM traffic | simulated | time | worst kernel execute | DRAM energy "
              "| wall cycle / transaction |")
        print("|---|---|---|---|---|---|---|---|")
    for r in results:
        if "error" in r:
            line = f"{r['config']:<15} {r['case']:<18} not run: {r['error']}"
            print(f"| {r['config']} | {r['case']} | not run: {r['error']} | | | | | |"
                  if args.markdown else line)
            continue
        within = (abs(r["time"]) <= bounds[0] and abs(r["kernel"]) <= bounds[1]
                  and abs(r["energy"]) <= bounds[2])
        ok = ok and within
        if args.markdown:
            print(f"| {r['config']} | {r['case']} | {r['dram_gb']:.3f} GB | {r['sim_ms']:.3f} ms "
                  f"| {r['time']:+.2f}% | {r['kernel']:+.2f}% ({r['kernel_name']}) "
                  f"| {r['energy']:+.2f}% | {r['cycle_wall']:.2f} / {r['tx_wall']:.2f} s |")
        else:
            print(f"{r['config']:<15} {r['case']:<18} time {r['time']:+7.2f}%  kernel "
                  f"{r['kernel']:+7.2f}% ({r['kernel_name']})  energy {r['energy']:+7.2f}%  wall "
                  f"{r['cycle_wall']:.2f}/{r['tx_wall']:.2f} s {'' if within else ' OUT'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
