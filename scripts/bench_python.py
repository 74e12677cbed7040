#!/usr/bin/python3
"""Many runs in one Python process against the command line: memory and time per run.

    scripts/bench_python.py [--runs N] [--cli-runs M] [--config C] [--testbench TB]
                            [--build DIR]

Runs TB on C N times (default 200) with npusim.run() in this process, each run as a user
would write it (the config and the testbench loaded, the run, its report.json text), and
prints the process's peak resident memory (ru_maxrss) and current resident memory after
run 50 and after the last run, and their growth; then M times (default 20) the same run
with the npusim binary (`npusim run`, a process each, its summary to /dev/null). Times are
per run: the median and the best of the runs. Uses the package and the binary of the
build folder DIR (default build). Exit status 0 when peak memory grew by at most 10%
between run 50 and the last run and the median run in-process took no longer than the
median `npusim run`; 1 otherwise.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def resident_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def python_runs(npusim, args):
    times, marks = [], {}
    for i in range(1, args.runs + 1):
        start = time.perf_counter()
        result = npusim.run(npusim.Config.load(args.config), npusim.Testbench.load(args.testbench))
        result.to_json()
        times.append(time.perf_counter() - start)
        del result
        if i in (min(50, args.runs), args.runs):
            marks[i] = (peak_mib(), resident_mib())
    return times, marks


def cli_runs(binary, args):
    times = []
    argv = [binary, "run", "--config", args.config, "--testbench", args.testbench]
    for _ in range(args.cli_runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cli-runs", type=int, default=20)
    parser.add_argument("--config", default="edge-npu")
    parser.add_argument("--testbench", default="testbenches/hello.yaml")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    if args.runs < 50 or args.cli_runs < 1:
        parser.error("--runs must be at least 50 and --cli-runs at least 1")
    sys.path.insert(0, os.path.join(os.path.abspath(args.build), "python"))
    os.chdir(ROOT)
    import npusim
    from npusim import _paths

    times, marks = python_runs(npusim, args)
    cli = cli_runs(_paths.NPUSIM, args)
    first, last = min(marks), max(marks)
    growth = marks[last][0] / marks[first][0] - 1
    print(f"{args.testbench} on {args.config}; load {os.getloadavg()[0]:.2f}")
    for run in (first, last):
        print(f"python: after run {run:>4}: peak RSS {marks[run][0]:7.1f} MiB, "
              f"RSS {marks[run][1]:7.1f} MiB")
    print(f"python: peak RSS growth from run {first} to run {last}: {growth * 100:+.1f}%")
    py_median, cli_median = statistics.median(times), statistics.median(cli)
    print(f"python: {args.runs} runs in one process: median {py_median * 1000:.2f} ms, "
          f"best {min(times) * 1000:.2f} ms per run")
    print(f"cli:    {args.cli_runs} `npusim run`: median {cli_median * 1000:.2f} ms, "
          f"best {min(cli) * 1000:.2f} ms per run")
    ok = growth <= 0.10 and py_median <= cli_median
    print(f"{'ok' if ok else 'FAILED'}: peak RSS within 10% from run {first} to run {last}: "
          f"{growth <= 0.10}; in-process run no slower than the CLI: {py_median <= cli_median}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
