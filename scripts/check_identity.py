#!/usr/bin/env python3
"""Checks that a change leaves every output of npusim byte-identical (wall-clock fields aside).

    scripts/check_identity.py record NPUSIM DIR [--testbench-dir DIR] [--all] [--jobs N] [--only RE]
    scripts/check_identity.py check  NPUSIM DIR [--testbench-dir DIR] [--all] [--jobs N] [--only RE]

`record` runs every case with the npusim binary of the code before the change and keeps, in
DIR, a digest of each output (and the report.json and launches.csv themselves, compressed,
to show where a later run differs); `check` runs the same cases with the binary after the
change and compares. A case is one shipped testbench (testbenches/*.yaml,
testbenches/bench/, testbenches/sweeps/ testbenches, testbenches/workloads/; with
--testbench-dir, the C++ host programs two_streams and launch_conv_kernel too) on one
reference config (configs/*.yaml) on one data path (interconnect.granularity burst and
64B), run with --out and --trace. Outputs compared: report.json and launches.csv without
wall-clock keys or columns (names containing "wall"; a C++ host program's own path in
report.json), the trace byte for byte, and the exit status. A testbench that a config
refuses (exit status 2, such as one asking for more compute units than the config has) is
a case too: its exit status and its error line are compared. Workloads that take minutes (the LLM and batch-8 ones) run only with --all.

Exit status: 0 every case identical (check) or recorded (record), 1 some case differs or a
run failed (a case must exit 0, or 2 for a refused input), 2 bad arguments.
"""

import argparse
import concurrent.futures
import csv
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATHS = ["burst", "64B"]
# Minutes each on the datacenter configs or on the 64-byte path.
SLOW = {"llm7b_decode", "llm7b_prefill", "resnet50_b8", "mobilenetv2_b8", "matmul2048",
        "llm_decode_step", "resnet50_b1"}
CPP = ["two_streams", "launch_conv_kernel"]


def testbenches():
    """(name, path) of every shipped YAML testbench; sweep specs left out."""
    found = []
    for sub in ["", "bench", "sweeps", "workloads"]:
        folder = os.path.join(ROOT, "testbenches", sub)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not name.endswith(".yaml"):
                continue
            with open(path) as f:
                text = f.read()
            if re.search(r"^(parameters|metrics):", text, re.M):
                continue  # a sweep, not a testbench
            found.append((name[:-5], path))
    return found


def cases(args):
    configs = sorted(n[:-5] for n in os.listdir(os.path.join(ROOT, "configs"))
                     if n.endswith(".yaml"))
    programs = [(name, ["--testbench", path]) for name, path in testbenches()]
    if args.testbench_dir:
        programs += [(name, None) for name in CPP]
    out = []
    for name, tb in programs:
        if name in SLOW and not args.all:
            continue
        for config in configs:
            for path in PATHS:
                case = "%s.%s.%s" % (name, config, path)
                if args.only and not re.search(args.only, case):
                    continue
                out.append((case, name, tb, config, path))
    return out


def without_wall(value):
    if isinstance(value, dict):
        return {k: without_wall(v) for k, v in value.items() if "wall" not in k}
    if isinstance(value, list):
        return [without_wall(v) for v in value]
    return value


def normal_report(path, program):
    """report.json without wall-clock keys; a C++ host program's own path (the report's
    testbench_file) as <program>, since the two binaries compared live apart."""
    with open(path) as f:
        report = json.load(f, object_pairs_hook=dict)
    if program and report.get("testbench_file") == program:
        report["testbench_file"] = "<program>"
    return json.dumps(without_wall(report), indent=1).encode()


def normal_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0] if rows else []) if "wall" not in name]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in rows:
        w.writerow([row[i] for i in keep if i < len(row)])
    return buf.getvalue().encode()


def digest_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run_case(case, name, tb, config, path, args, tmp):
    """Runs one case; returns (case, {output: digest}, {output: normalised bytes}, seconds)."""
    out = os.path.join(tmp, case)
    os.makedirs(out)
    trace = os.path.join(out, "trace.json")
    config_path = os.path.join(ROOT, "configs", config + ".yaml")
    if tb is None:
        argv = [os.path.join(args.testbench_dir, name), "--config", config_path]
    else:
        argv = [args.npusim, "run", "--config", config_path] + tb
    argv += ["--set", "interconnect.granularity=" + path, "--out", out, "--trace", trace]
    start = time.monotonic()
    p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.monotonic() - start
    digests, kept = {"rc": str(p.returncode)}, {}
    program = argv[0] if tb is None else None
    for label, file, normal in [("report.json", "report.json",
                                 lambda p: normal_report(p, program)),
                                ("launches.csv", "launches.csv", normal_csv)]:
        full = os.path.join(out, file)
        if os.path.exists(full):
            kept[label] = normal(full)
            digests[label] = hashlib.sha256(kept[label]).hexdigest()
    if os.path.exists(trace):
        digests["trace"] = digest_file(trace)
    if p.returncode != 0:
        digests["stderr"] = hashlib.sha256(p.stderr).hexdigest()
    shutil.rmtree(out)
    return case, digests, kept, seconds


def first_difference(old, new):
    a, b = gzip.decompress(old).split(b"\n"), new.split(b"\n")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "line %d: was %r, now %r" % (i + 1, x[:160], y[:160])
    return "%d lines, now %d" % (len(a), len(b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["record", "check"])
    ap.add_argument("npusim")
    ap.add_argument("dir", help="where the record is kept")
    ap.add_argument("--testbench-dir", help="folder of the C++ host programs (build/testbenches)")
    ap.add_argument("--all", action="store_true", help="also the workloads that take minutes")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--only", help="cases whose name (TESTBENCH.CONFIG.PATH) matches this regex")
    args = ap.parse_args()
    args.npusim = os.path.abspath(args.npusim)
    if args.testbench_dir:
        args.testbench_dir = os.path.abspath(args.testbench_dir)
    if not os.access(args.npusim, os.X_OK):
        print("check_identity: %s is not an executable" % args.npusim, file=sys.stderr)
        return 2
    index_path = os.path.join(args.dir, "index.json")
    if args.mode == "check" and not os.path.exists(index_path):
        print("check_identity: no record in %s (run `record` first)" % args.dir, file=sys.stderr)
        return 2
    os.makedirs(args.dir, exist_ok=True)
    index = {}
    if os.path.exists(index_path):
        with open(index_path) as f:
            index = json.load(f)

    todo = cases(args)
    tmp = tempfile.mkdtemp(prefix="npusim-identity-")
    problems, start, total = [], time.monotonic(), 0.0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_case, *c, args, tmp) for c in todo]
            for fut in concurrent.futures.as_completed(futures):
                case, digests, kept, seconds = fut.result()
                total += seconds
                if digests["rc"] not in ("0", "2"):
                    problems.append("%s: exit status %s" % (case, digests["rc"]))
                if args.mode == "record":
                    index[case] = digests
                    for label, data in kept.items():
                        with open(os.path.join(args.dir, case + "." + label + ".gz"), "wb") as f:
                            f.write(gzip.compress(data, 6, mtime=0))
                    continue
                if case not in index:
                    problems.append("%s: not in the record" % case)
                    continue
                for label in sorted(set(index[case]) | set(digests)):
                    if index[case].get(label) == digests.get(label):
                        continue
                    why = "%s: %s differs" % (case, label)
                    saved = os.path.join(args.dir, case + "." + label + ".gz")
                    if label in kept and os.path.exists(saved):
                        with open(saved, "rb") as f:
                            why += " (%s)" % first_difference(f.read(), kept[label])
                    problems.append(why)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.mode == "record":
        with open(index_path, "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)
    for p in sorted(problems):
        print("DIFFERS " + p)
    print("check_identity: %s %d cases (%.1f s of runs) in %.1f s%s" %
          ("recorded" if args.mode == "record" else "compared", len(todo), total,
           time.monotonic() - start,
           "" if args.mode == "record" else ", %d differ" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
