#!/usr/bin/python3
"""The import's speed and memory against the model's size: imports each ONNX model N times
and prints the best wall time and the best CPU time (user + system), each also per 100 MB of
model, and the peak resident memory (`/usr/bin/time -v`) against the model's size.

Usage: bench_import.py --npusim BIN [--times N] MODEL.onnx [MODEL.onnx...] [-- IMPORT ARGS]
The target: under 1 s of wall time per 100 MB of model and a peak RSS under twice the
model's size. Exits 1 when a model of 50 MB or more misses it (smaller models are
dominated by the process's start and are only printed). Wall time depends on what else runs:
`uptime` is printed with the figures.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile


def measure(npusim, model, extra, out):
    p = subprocess.run(["/usr/bin/time", "-v", npusim, "import", model, "-o", out] + extra,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench_import: %s does not import: %s" % (model, p.stderr.strip()[:300]))

    def field(name):
        return float(re.search(re.escape(name) + r": ([\d.:]+)", p.stderr).group(1).split(":")[-1])

    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stderr)
    parts = [float(x) for x in wall.group(1).split(":")]
    seconds = sum(v * 60**i for i, v in enumerate(reversed(parts)))
    cpu = field("User time (seconds)") + field("System time (seconds)")
    return seconds, cpu, field("Maximum resident set size (kbytes)") / 1024


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--npusim", required=True)
    parser.add_argument("--times", type=int, default=3)
    parser.add_argument("models", nargs="+")
    args = parser.parse_args(argv)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    missed = []
    with tempfile.TemporaryDirectory(prefix="bench-import-") as work:
        for model in args.models:
            size = os.path.getsize(model) / 2**20
            runs = [measure(args.npusim, model, extra, os.path.join(work, "tb.yaml"))
                    for _ in range(args.times)]
            wall, cpu, rss = (min(r[0] for r in runs), min(r[1] for r in runs),
                              max(r[2] for r in runs))
            print("%-40s %8.1f MB  wall %6.2f s (%5.2f s per 100 MB)  CPU %6.2f s (%5.2f s per "
                  "100 MB)  peak RSS %5.0f MB (%.2fx the model)" %
                  (os.path.basename(model), size, wall, 100 * wall / size, cpu,
                   100 * cpu / size, rss, rss / size))
            if size >= 50 and (wall > size / 100 or rss > 2 * size):
                missed.append(os.path.basename(model))
    if missed:
        print("over 1 s per 100 MB or twice the model's size in memory: " + ", ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
