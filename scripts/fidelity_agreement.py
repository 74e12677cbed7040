#!/usr/bin/env python3
"""Runs testbenches on configs at both fidelity levels (ddr.model: cycle and transaction)
and prints how far the transaction level is from the cycle level: simulated time, each
kernel's mean execute time (the worst kernel), DRAM energy, and both wall times; then
membench's four DDR reference streams (seq_read, rand_read, seq_write, mix_rw) on the DDR of
each config and on one DDR4-3200 channel: bandwidth and DRAM energy at both levels.

Usage: scripts/fidelity_agreement.py [--npusim BUILD/npusim] [--configs A,B] [--cases X,Y]
                                     [--jobs N] [--out DIR] [--keep] [--markdown]
                                     [--bounds T,K,E,B] [--requests N] [--check]
  --configs   config names (default: edge-npu,datacenter-npu,datacenter-gpu)
  --cases     testbench files or names under testbenches/ and testbenches/workloads/
              (default: every shipped testbench and workload); "none" runs no testbench
  --requests  64-byte requests per membench stream (default 400000; 0: no streams)
  --keep      reuse the runs already in --out DIR (each with its report.json and wall_s);
              delete DIR/*-transaction to rerun one level only
  --bounds    allowed error in percent of time, kernel execute, DRAM energy and stream
              bandwidth (default 3,5,5,5)
  --check     exit with status 1 when any case is outside the bounds (else status 0 always)
Each pair runs with --max-wall-time 3600s. A testbench a config cannot hold (a workload whose
buffers exceed its DDR) is listed as such, not as an error. Every shipped case at the cycle
level takes about an hour on two cores (llm7b_prefill most of it). Exit status: 0, or with
--check 1 when a case is outside the bounds or failed; 2 on bad arguments.
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


STREAMS = ("seq_read", "rand_read", "seq_write", "mix_rw")


def membench(npusim, config, sets, stream, model, requests):
    args = [npusim, "membench", "--config", f"configs/{config}.yaml", "--set",
            f"ddr.model={model}", "--pattern", stream, "--requests", str(requests), "--quiet"]
    for kv in sets:
        args += ["--set", kv]
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)


def one_stream(npusim, ddr, stream, requests):
    label, config, sets = ddr
    cycle = membench(npusim, config, sets, stream, "cycle", requests)
    tx = membench(npusim, config, sets, stream, "transaction", requests)
    if cycle is None or tx is None:
        return {"ddr": label, "stream": stream, "error": "membench failed"}
    return {"ddr": label, "stream": stream, "cycle_gbps": cycle["bandwidth_gbps"],
            "tx_gbps": tx["bandwidth_gbps"],
            "bandwidth": pct(tx["bandwidth_gbps"], cycle["bandwidth_gbps"]),
            "energy": pct(tx["energy"]["total_pj"], cycle["energy"]["total_pj"])}


def stream_ddrs(configs):
    # One DDR4-3200 channel, as the comparison with Ramulator 2 and DRAMSys; then each config's.
    ddrs = [("DDR4-3200x1", "edge-npu",
             ["ddr.preset=DDR4-3200", "ddr.channels=1", "ddr.hash=false"])]
    return ddrs + [(c, c, []) for c in configs]


def print_streams(results, bound, markdown):
    ok = True
    if markdown:
        print("\n| DDR | stream | cycle GB/s | transaction GB/s | bandwidth | DRAM energy |")
        print("|---|---|---|---|---|---|")
    for r in results:
        if "error" in r:
            ok = False
            print(f"| {r['ddr']} | {r['stream']} | {r['error']} | | | |" if markdown
                  else f"{r['ddr']:<15} {r['stream']:<18} {r['error']}  OUT")
            continue
        within = abs(r["bandwidth"]) <= bound
        ok = ok and within
        if markdown:
            print(f"| {r['ddr']} | {r['stream']} | {r['cycle_gbps']:.3f} | {r['tx_gbps']:.3f} "
                  f"| {r['bandwidth']:+.2f}% | {r['energy']:+.2f}% |")
        else:
            print(f"{r['ddr']:<15} {r['stream']:<18} bandwidth {r['cycle_gbps']:8.3f} -> "
                  f"{r['tx_gbps']:8.3f} GB/s {r['bandwidth']:+7.2f}%  energy {r['energy']:+7.2f}%"
                  f"{'' if within else '  OUT'}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--npusim", default=os.path.join(ROOT, "build", "npusim"))
    ap.add_argument("--configs", default="edge-npu,datacenter-npu,datacenter-gpu")
    ap.add_argument("--cases", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default="")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--bounds", default="3,5,5,5")
    ap.add_argument("--requests", type=int, default=400000)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    try:
        bounds = [float(x) for x in args.bounds.split(",")]
        assert len(bounds) == 4
    except (ValueError, AssertionError):
        print("fidelity_agreement.py: --bounds takes four numbers, e.g. 3,5,5,5", file=sys.stderr)
        sys.exit(2)
    if args.requests < 0:
        print("fidelity_agreement.py: --requests must be 0 or more", file=sys.stderr)
        sys.exit(2)
    if args.cases == "none":
        cases = []
    else:
        cases = [resolve(c) for c in args.cases.split(",") if c] or all_cases()
    configs = [c for c in args.configs.split(",") if c]
    out_root = args.out or tempfile.mkdtemp(prefix="fidelity-")
    os.makedirs(out_root, exist_ok=True)
    pairs = [(c, t) for c in configs for t in cases]
    streams = [(d, s) for d in stream_ddrs(configs) for s in STREAMS] if args.requests else []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        results = list(pool.map(lambda p: one_case(args.npusim, p[0], p[1], out_root, args.keep), pairs))
        stream_results = list(pool.map(
            lambda p: one_stream(args.npusim, p[0], p[1], args.requests), streams))
    ok = True
    if args.markdown:
        print("| config | case | DRAM traffic | simulated | time | worst kernel execute | DRAM energy "
              "| wall cycle / transaction |")
        print("|---|---|---|---|---|---|---|---|")
    for r in results:
        if "error" in r:
            ok = ok and "but ddr.size is" in r["error"]  # a workload too big for the config's DDR
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
    ok = print_streams(stream_results, bounds[3], args.markdown) and ok
    if args.check:
        print("fidelity_agreement.py: " + ("every case within the bounds" if ok
                                            else "some cases outside the bounds (OUT)"))
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
