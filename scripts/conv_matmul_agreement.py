#!/usr/bin/python3
"""Runs each conv2d of the SCALE-Sim reference table (tests/models/compute/data/
scalesim_compute.csv) and the matmul of its lowered GEMM (m = images x Ho x Wo,
n = filters, k = C x R x S) through the whole platform, on every shipped reference config,
every dataflow, with the operands in DDR or in SRAM, and prints the ratio of their execute
phases (each kernel runs twice; the faster launch counts) and whether each kernel's printed roofline bound stays below its execute.

conv2d runs with `compute.conv_lowering=im2col` (the lowering that is the same GEMM; per_tap
pads each tap's channels to the array and so is a different GEMM by design). SRAM cases
enlarge the SRAM (`sram.size=64MiB`, `sram.buffer_space=32MiB`) so that every operand fits.
With operands in DDR a conv2d may legitimately beat its matmul where DDR binds: it reads its
input once, not the R x S-times larger im2col matrix.

  /usr/bin/python3 scripts/conv_matmul_agreement.py [--npusim build/npusim] [--jobs 2]
      [--configs edge-npu,...] [--memory sram|ddr|both] [--check]

About 1,100 runs of two small kernels: a few minutes on two cores.

With the operands in SRAM the unit reads them in place (its array feed reads the conv's
input through the sliding-window address generator, as it reads a tile in its partition),
so a conv2d and its matmul are the same GEMM on the same array: with --check the exit status
is 1 unless every conv, whatever its window, executes within 5% of its matmul there. With
the operands in DDR, a 1 x 1 conv2d at stride 1 without padding reads its input as the
matmul reads A (the NHWC input is the im2col matrix): such a case must plan the same tiling
as its matmul (tile shape, tiles, folds, array cycles, bytes loaded and stored; in DDR the
DRAM's refresh and row phase alone move a few-microsecond kernel by up to 11%, see
TOLERANCE). The other convs load input patches from DDR (each pixel once per tile, skipped
pixels of strided windows not at all) where the matmul loads the R x S-times larger im2col
rows: their DDR ratios are printed, not gated. Every run must succeed and no roofline bound
may be above its execute, in both memories.

  --cases NAME,...  runs only these convs of the table
  --quick           runs QUICK's convs (about a minute; the CTest), or all of them when
                    NPU_SLOW_TESTS=1
"""
import argparse
import concurrent.futures
import csv
import itertools
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = ("edge-npu", "datacenter-npu", "datacenter-gpu", "tpu-v3-core")
DATAFLOWS = ("output_stationary", "weight_stationary", "input_stationary")
ES = 4  # fp32
# How far a conv may be from its matmul. In SRAM every conv is gated (both read their
# operands in place). In DDR only a 1 x 1 stride-1 conv is the same transfers, and there a
# kernel of a few microseconds also meets the DRAM in another refresh and row-buffer phase
# (the same matmul launched twice on tpu-v3-core: 8,039.7 and 8,591.1 ns; a pointwise conv
# on datacenter-npu input-stationary 1.106x its matmul with the same tiles), so there only
# the tilings are gated.
TOLERANCE = {"sram": 0.05, "ddr": float("inf")}
# Two 1 x 1 convs (a wide image, a deep one), a 3 x 3 and a strided 1 x 1.
QUICK = ("mbv1_pw2_56_64to128", "r50_s5_1x1_7_1024to512", "r50_s3_3x3_28_128to128",
         "r50_s3_1x1s2_55_256to128")


def conv_cases():
    """name -> (images, h, w, c, filters, r, s, stride, m per image, n, k) of each conv2d."""
    out = {}
    with open(os.path.join(ROOT, "tests", "models", "compute", "data", "scalesim_compute.csv")) as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            if len(row) > 12 and row[1] == "conv2d" and row[0] not in out:
                m, n, k, images, h, w, c, filters, r, s, stride = map(int, row[2:13])
                out[row[0]] = (images, h, w, c, filters, r, s, stride, m, n, k)
    return out


def same_gemm(case):
    """Whether the conv's input is its im2col matrix: a 1 x 1 window at stride 1, no padding."""
    r, s, stride = case[5], case[6], case[7]
    return r == 1 and s == 1 and stride == 1


def testbench(case, memory):
    # One input buffer for both (the conv's input and the matmul's A start at the same
    # address), so that DDR placement is not what they differ by. Each kernel runs twice, in
    # the order conv, mm, mm, conv, and the faster of its two launches counts: a kernel of a
    # few microseconds meets the memories in another phase each time (the same matmul with
    # operands in SRAM on datacenter-npu: 3,799 and 3,530 ns in a row), and the order cancels
    # what running first or second does to it.
    images, h, w, c, filters, r, s, stride, m, n, k = case
    return f"""name: conv_vs_matmul
kernels:
  conv: {{op: conv2d, n: {images}, c: {c}, h: {h}, w: {w}, k: {filters}, r: {r}, s: {s}, stride: {stride}, pad: 0, binary: 4KiB, dtype: fp32}}
  mm: {{op: matmul, m: {images * m}, n: {n}, k: {k}, binary: 4KiB, dtype: fp32}}
buffers:
  x: {{size: {max(images * h * w * c, images * m * k) * ES}, memory: {memory}}}
  w: {{size: {k * n * ES}, memory: {memory}}}
  o: {{size: {images * m * n * ES}, memory: {memory}}}
streams: [s]
program:
  - launch: {{kernel: conv, stream: s, args: [x, w, o]}}
  - launch: {{kernel: mm, stream: s, args: [x, w, o]}}
  - launch: {{kernel: mm, stream: s, args: [x, w, o]}}
  - launch: {{kernel: conv, stream: s, args: [x, w, o]}}
"""


def run(npusim, scratch, name, case, config, dataflow, memory):
    d = os.path.join(scratch, "_".join((name, config, dataflow, memory)))
    os.makedirs(d)
    with open(os.path.join(d, "tb.yaml"), "w") as f:
        f.write(testbench(case, memory))
    sets = ["compute.dataflow=" + dataflow, "compute.conv_lowering=im2col"]
    if memory == "sram":
        sets += ["sram.size=64MiB", "sram.buffer_space=32MiB"]
    cmd = [npusim, "run", "--config", os.path.join(ROOT, "configs", config + ".yaml"),
           "--testbench", os.path.join(d, "tb.yaml"), "--out", os.path.join(d, "out")]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip().splitlines()[-1]
    with open(os.path.join(d, "out", "report.json")) as f:
        kernels = json.load(f)["kernels"]
    execute = {}
    with open(os.path.join(d, "out", "launches.csv")) as f:
        for row in csv.DictReader(f):
            ns = float(row["execute_ns"])
            execute[row["kernel"]] = min(execute.get(row["kernel"], ns), ns)
    # What each planned: tile shape, tiles, folds, array cycles and bytes loaded and stored.
    execute["plans"] = [
        [(t["shape"], t["tiles"], t["folds"], t["array_cycles"],
          [o["loaded_bytes"] for o in t["operands"]], t["stored_bytes"])
         for t in kernels[n]["tiling"]] for n in ("conv", "mm")]
    above = [n for n in ("conv", "mm")
             if kernels[n]["roofline"]["bound_ns"] > kernels[n]["roofline"]["execute_ns"]]
    return execute, above


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--npusim", default=os.path.join(ROOT, "build", "npusim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--memory", choices=("sram", "ddr", "both"), default="both")
    ap.add_argument("--cases", help="comma-separated conv2d names of the table (default: all)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.quick and not args.cases and os.environ.get("NPU_SLOW_TESTS") != "1":
        args.cases = ",".join(QUICK)
    cases = conv_cases()
    if args.cases:
        unknown = sorted(set(args.cases.split(",")) - set(cases))
        if unknown:
            ap.error("no conv2d named %s in the table" % ", ".join(unknown))
        cases = {n: cases[n] for n in args.cases.split(",")}
    memories = ("ddr", "sram") if args.memory == "both" else (args.memory,)
    jobs = list(itertools.product(cases, args.configs.split(","), DATAFLOWS, memories))
    with tempfile.TemporaryDirectory() as scratch:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(
                lambda j: run(args.npusim, scratch, j[0], cases[j[0]], *j[1:]), jobs))
    outside = {m: [] for m in memories}
    gated = {m: [] for m in memories}
    bound_above, failed = [], []
    print("%-28s %-15s %-18s %-5s %10s %10s %7s" %
          ("conv2d", "config", "dataflow", "ops", "conv ns", "matmul ns", "ratio"))
    for (name, config, dataflow, memory), (execute, above) in zip(jobs, results):
        if execute is None:
            failed.append("%s %s %s %s: %s" % (name, config, dataflow, memory, above))
            continue
        ratio = execute["conv"] / execute["mm"]
        flag = "" if abs(ratio - 1) <= 0.05 else "  outside 5%"
        if flag:
            outside[memory].append(ratio)
        if (memory == "sram" or same_gemm(cases[name])) and abs(ratio - 1) > TOLERANCE[memory]:
            gated[memory].append("%s %s %s %s %.3fx" % (name, config, dataflow, memory, ratio))
        if same_gemm(cases[name]) and execute["plans"][0] != execute["plans"][1]:
            gated[memory].append("%s %s %s %s: conv planned %s, matmul %s" %
                                 (name, config, dataflow, memory, *execute["plans"]))
        bound_above += ["%s %s %s %s %s" % (name, config, dataflow, memory, k) for k in above]
        print("%-28s %-15s %-18s %-5s %10.0f %10.0f %7.3f%s" %
              (name, config, dataflow, memory, execute["conv"], execute["mm"], ratio, flag))
    print()
    for memory in memories:
        total = sum(1 for j in jobs if j[3] == memory)
        r = outside[memory]
        print("operands in %s: %d of %d cases outside 5%%%s" %
              (memory, len(r), total, " (%.3f-%.3fx)" % (min(r), max(r)) if r else ""))
        same = sum(1 for j in jobs if j[3] == memory and same_gemm(cases[j[0]]))
        tilings = sum(1 for line in gated[memory] if "planned" in line)
        print("  1x1 stride-1 convs (the input is the im2col matrix): %d of %d with another "
              "tiling" % (tilings, same))
        if memory == "sram":
            print("  gated (every conv within 5%%): %d of %d outside" %
                  (len(gated[memory]) - tilings, total))
    print("roofline bound above execute: %d kernels" % len(bound_above))
    gated_all = [line for m in memories for line in gated[m]]
    for line in bound_above[:10] + failed + gated_all[:10]:
        print("  " + line)
    if args.check and (gated_all or bound_above or failed):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
