#!/usr/bin/python3
"""Imports and runs every model of a zoo manifest with npusim on each config, and writes the
table of scripts/zoo.sh: model, exporter, opset, nodes, import ok, run ok on each config,
MACs simulated against an independent count (scripts/onnx_macs.py), simulated time, wall
time, and the import's wall time and peak memory (/usr/bin/time -v) against the model's size.

The manifest has one line per model: `file<TAB>exporter<TAB>opset<TAB>import arguments`
(paths relative to the manifest's folder). Default options otherwise: each model imports
and runs as a user's first try would.

Usage: zoo_run.py MANIFEST --npusim BIN [--configs edge-npu,datacenter-npu] [--table FILE]
       [--rows FILE.jsonl] [--check] [--only SUBSTRING] [--import-only N] [--measured-only]
The table is rewritten after each model; with --rows an interrupted run resumes, and
--import-only N times the import of the models already there again (best of N wall and CPU
time; the last line of a model in --rows counts); --measured-only writes the table of the
models measured so far, listing the others.
--check exits 1 unless every model imports and runs on every config with simulated MACs
within 1% of the count (the model-zoo test).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %d s" % timeout, time.monotonic() - start


def first_error(stderr):
    lines = [l for l in stderr.splitlines() if "error" in l] or stderr.splitlines() or [""]
    return lines[0].strip()


def simulated_macs(report):
    """MACs on the arrays, plus a depthwise convolution's multiply-accumulates, which run on
    the vector unit (a kernel's tiling describes one launch, every unit together)."""
    total = 0
    for kernel in report["kernels"].values():
        per_launch = sum(p["macs"] + (p["vector_ops"] if p["op"] == "depthwise_conv2d" else 0)
                         for p in kernel.get("tiling", []))
        total += per_launch * kernel["launches"]
    return total


def import_model(npusim, model, args, work, timeout):
    tb = os.path.join(work, "tb.yaml")
    cmd = ["/usr/bin/time", "-v", npusim, "import", model, "-o", tb] + args
    code, out, err, wall = run(cmd, timeout)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    cpu = sum(float(t) for t in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", err))
    row = {"import_ok": code == 0, "import_s": wall, "import_cpu_s": cpu,
           "import_rss_mb": int(rss.group(1)) / 1024 if rss else 0}
    m = re.search(r": (\d+) nodes, (\d+) launches", out)
    if m:
        row["nodes"], row["launches"] = int(m.group(1)), int(m.group(2))
    if code != 0:
        row["error"] = first_error(err.replace("Command exited with non-zero status", ""))
    return row, tb


def reimport(row, entry, folder, npusim, timeout, times):
    """The import of a measured model timed again, best of `times` (the runs are kept)."""
    model = os.path.join(folder, entry[0])
    work = tempfile.mkdtemp(prefix="zoo-")
    try:
        tries = [import_model(npusim, model, entry[3].split(), work, timeout)[0]
                 for _ in range(times)]
    finally:
        shutil.rmtree(work)
    best = min(tries, key=lambda t: t["import_s"])
    best["import_cpu_s"] = min(t["import_cpu_s"] for t in tries)
    best.pop("error", None)
    row.update(best)
    return row


def run_model(npusim, tb, config, work, timeout):
    out = os.path.join(work, "out-" + config)
    shipped = os.path.join(HERE, "..", "configs", config + ".yaml")  # any binary finds it
    cmd = [npusim, "run", "--config", shipped if os.path.exists(shipped) else config,
           "--testbench", tb, "--out", out, "--format", "json"]
    code, _, err, wall = run(cmd, timeout)
    row = {"ok": code == 0, "wall_s": wall}
    if code != 0:
        row["error"] = first_error(err)
        return row
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    row["simulated_us"] = report["sim"]["simulated_ns"] / 1000
    row["macs"] = simulated_macs(report)
    return row


def count_macs(model, args):
    code, out, err, _ = run(["/usr/bin/python3", os.path.join(HERE, "onnx_macs.py"), model] + args,
                            600)
    return int(out.split()[-1]) if code == 0 and out.split() else None


def evaluate(entry, folder, npusim, configs, timeout):
    path, exporter, opset, args = entry
    model = os.path.join(folder, path)
    args = args.split()
    row = {"model": path, "exporter": exporter, "opset": opset, "nodes": 0,
           "size_mb": os.path.getsize(model) / 2**20, "counted": count_macs(model, args),
           "runs": {}}
    work = tempfile.mkdtemp(prefix="zoo-")
    try:
        imported, tb = import_model(npusim, model, args, work, timeout)
        row.update(imported)
        if row["import_ok"]:
            for config in configs:
                row["runs"][config] = run_model(npusim, tb, config, work, timeout)
    finally:
        shutil.rmtree(work)
    return relative_errors(row, [folder, work])


def relative_errors(row, folders):
    """Error messages name the model as the table does: relative to the zoo's folder."""
    for r in [row] + list(row["runs"].values()):
        for folder in folders:
            if "error" in r:
                r["error"] = r["error"].replace(folder + os.sep, "")
    return row


def mac_error(row, config):
    r = row["runs"].get(config, {})
    if not r.get("ok") or row["counted"] is None:
        return None
    if row["counted"] == 0:
        return 0.0 if r["macs"] == 0 else 100.0
    return 100.0 * (r["macs"] - row["counted"]) / row["counted"]


def passed(row, configs):
    return row["import_ok"] and all(row["runs"].get(c, {}).get("ok") and
                                    mac_error(row, c) is not None and abs(mac_error(row, c)) <= 1
                                    for c in configs)


HEADER = """# The model zoo

Written by `scripts/zoo.sh` (see [Importing ONNX models](onnx.md#the-model-zoo)): every model
imported with default options (the PaddleOCR and Silero models with the input shapes their
users give) and run on each config; MACs simulated against `scripts/onnx_macs.py`'s count
from the ONNX graph; the import's wall time and peak resident memory (`/usr/bin/time -v`)
beside the model file's size. Wall times are as measured on the machine that ran it.

"""


def table(rows, configs):
    head = ("| model | exporter | opset | nodes | import | " +
            " | ".join("%s run | %s sim. time | %s wall" % (c, c, c) for c in configs) +
            " | MACs counted | MACs simulated (error) | import wall / RSS (model size) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        cells = [r["model"], r["exporter"], str(r["opset"]), str(r.get("nodes", 0)),
                 "ok" if r["import_ok"] else "**fails**: " + r.get("error", "")]
        for c in configs:
            run_row = r["runs"].get(c)
            if not run_row:
                cells += ["-", "-", "-"]
            elif run_row["ok"]:
                cells += ["ok", "%.1f us" % run_row["simulated_us"], "%.1f s" % run_row["wall_s"]]
            else:
                cells += ["**fails**: " + run_row.get("error", ""), "-", "%.1f s" % run_row["wall_s"]]
        counted = r["counted"]
        cells.append("%.4g G" % (counted / 1e9) if counted is not None else "?")
        sims = ["%.4g G (%+.2f%%)" % (r["runs"][c]["macs"] / 1e9, mac_error(r, c))
                for c in configs if mac_error(r, c) is not None]
        cells.append("; ".join(sorted(set(sims))) or "-")
        cpu = " (CPU %.2f s)" % r["import_cpu_s"] if "import_cpu_s" in r else ""
        cells.append("%.2f s%s / %.0f MB (%.1f MB)" % (r["import_s"], cpu, r["import_rss_mb"],
                                                      r["size_mb"]))
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def totals(rows, configs):
    n = len(rows)
    imported = sum(r["import_ok"] for r in rows)
    text = ["%d models; %d import (%.1f%%)" % (n, imported, 100.0 * imported / max(n, 1))]
    for c in configs:
        ran = sum(1 for r in rows if r["runs"].get(c, {}).get("ok"))
        within = sum(1 for r in rows if mac_error(r, c) is not None and abs(mac_error(r, c)) <= 1)
        text.append("%s: %d run (%.1f%%), %d with simulated MACs within 1%% of the count" %
                    (c, ran, 100.0 * ran / max(n, 1), within))
    def over(r, seconds):  # over 1 s per 100 MB, and over 1 s
        return r["import_ok"] and r["size_mb"] >= 1 and seconds > max(1.0, r["size_mb"] / 100)

    slow = [r for r in rows if over(r, r["import_s"])]
    slow_cpu = [r for r in rows if over(r, r.get("import_cpu_s", r["import_s"]))]
    heavy = [r for r in rows if r["import_ok"] and r["size_mb"] >= 50 and
             r["import_rss_mb"] > 2 * r["size_mb"]]
    slowest = max((r for r in rows if r["import_ok"] and r["size_mb"] >= 50),
                  key=lambda r: r["import_s"] / r["size_mb"], default=None)
    text.append("imports over 1 s per 100 MB: %d in wall time, %d in CPU time; peak RSS over "
                "twice the model's size (models of 50 MB and more): %d" %
                (len(slow), len(slow_cpu), len(heavy)) +
                ("; slowest of 50 MB and more: %s, %.2f s wall per 100 MB" %
                 (slowest["model"], 100 * slowest["import_s"] / slowest["size_mb"])
                 if slowest else ""))
    return text


def write_table(path, rows, configs, missing):
    with open(path + ".part", "w") as f:
        f.write(HEADER + table(rows, configs) + "\n\n" +
                "\n".join("- " + s for s in totals(rows, configs)) + "\n")
        if missing:
            f.write("\nIn the manifest, not measured yet (`--rows` resumes): %s.\n" %
                    ", ".join(missing))
    os.replace(path + ".part", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("manifest")
    parser.add_argument("--npusim", required=True)
    parser.add_argument("--configs", default="edge-npu,datacenter-npu")
    parser.add_argument("--table", help="write the table (Markdown) here")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--only", help="models whose file contains this")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per command")
    parser.add_argument("--import-only", type=int, metavar="N", default=0,
                        help="time the import of the models found in --rows again, best of "
                             "N, and keep their runs (after the importer changed)")
    parser.add_argument("--measured-only", action="store_true",
                        help="only the models found in --rows: the table of a partial run")
    parser.add_argument("--rows", help="JSON lines of the models measured: appended to, and "
                                       "models found there are not measured again")
    args = parser.parse_args()
    configs = args.configs.split(",")
    folder = os.path.dirname(os.path.abspath(args.manifest))
    with open(args.manifest) as f:
        entries = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    entries = [e + [""] * (4 - len(e)) for e in entries if not args.only or args.only in e[0]]
    rows, done, missing = [], {}, []
    if args.rows and os.path.exists(args.rows):  # resume: models already measured
        with open(args.rows) as f:
            done = {r["model"]: relative_errors(r, [folder]) for r in map(json.loads, f)}
    for entry in entries:
        row = done.get(entry[0])
        if not row and args.measured_only:
            missing.append(entry[0])
            continue
        if row and args.import_only:
            row = reimport(row, entry, folder, args.npusim, args.timeout, args.import_only)
        elif not row:
            row = evaluate(entry, folder, args.npusim, configs, args.timeout)
        rows.append(row)
        if args.rows and (entry[0] not in done or args.import_only):
            with open(args.rows, "a") as f:
                f.write(json.dumps(row) + "\n")
        if args.table:
            write_table(args.table, rows, configs, missing)
        status = "ok" if passed(row, configs) else "FAIL"
        print("%-4s %s %s" % (status, row["model"], row.get("error", "") or "; ".join(
            "%s %s" % (c, row["runs"][c].get("error", "%+.2f%% MACs" % (mac_error(row, c) or 0)))
            for c in configs if c in row["runs"])), flush=True)
    if args.table and missing:
        write_table(args.table, rows, configs, missing)
    print("\n".join(totals(rows, configs)))
    if args.check and not all(passed(r, configs) for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
