"""Sweeps: `npusim sweep`, with its semantics (each point a process of its own, so that a
crash costs one point; a rerun on the same folder resumes), returning the results table."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import weakref

from . import _paths
from ._errors import SweepError
from ._inputs import Config, Testbench

_LOCATED = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<column>\d+): error: ")


def _binary():
    path = os.environ.get("NPUSIM_BINARY") or _paths.NPUSIM
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"the npusim binary is not at {path}: build it (target npusim), "
                                "or set NPUSIM_BINARY")
    return path


def _absolute(path):
    return os.path.abspath(os.fspath(path))


def _testbench_entry(entry, settings, several):
    if not isinstance(entry, Testbench):
        return _absolute(entry)
    if entry._text is not None:
        raise SweepError("error: testbench: a sweep runs testbench files; save this one "
                         "(Testbench.to_dict()) to a file first", key="testbench")
    if entry.overrides and several:
        raise SweepError("error: testbench: settings of one testbench among several cannot "
                         "be swept; give them under set: as testbench.KEY", key="testbench")
    for override in entry.overrides:
        key, value = override.split("=", 1)
        settings["testbench." + key] = value
    return _absolute(entry.path)


def _spec_document(spec):
    """A sweep given as a dict, with its files made absolute (relative to the working
    directory) and Config and Testbench objects written as files plus `set:` entries."""
    document = dict(spec)
    settings = {}
    config = document.get("config")
    if isinstance(config, Config):
        for override in config.overrides:
            key, value = override.split("=", 1)
            settings[key] = value
        document["config"] = config.path
    elif isinstance(config, (str, os.PathLike)):
        path = os.fspath(config)
        document["config"] = _absolute(path) if os.path.exists(path) else Config.load(path).path
    testbench = document.get("testbench")
    if isinstance(testbench, (list, tuple)):
        document["testbench"] = [_testbench_entry(t, settings, len(testbench) > 1)
                                 for t in testbench]
    elif testbench is not None:
        document["testbench"] = _testbench_entry(testbench, settings, False)
    if settings:
        document["set"] = {**settings, **(document.get("set") or {})}
    return document


def _write_spec(directory, spec):
    path = os.path.join(directory, "sweep.yaml")
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(_spec_document(spec), f, indent=2)  # JSON is YAML
        f.write("\n")
    os.replace(temporary, path)
    return path


def _sweep_error(stderr_lines, code):
    message = next((line[len("npusim: "):] for line in reversed(stderr_lines)
                    if line.startswith("npusim: ")), None)
    if message is None:
        message = f"error: npusim sweep failed (exit status {code})"
    located = _LOCATED.match(message)
    if located:
        return SweepError(message, located["file"], int(located["line"]),
                          int(located["column"]))
    return SweepError(message)


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except (TypeError, ValueError):
            pass
    return text


class SweepResult:
    """The results of a sweep: one row per point, with the columns of results.csv (point,
    testbench, each parameter, each metric, status, error, wall_s). Parameter values that
    are numbers are numbers; metrics are as report.json has them (None where a point
    failed)."""

    def __init__(self, directory, document, summary):
        self.dir = directory
        self.name = document["sweep"]
        self.parameters = list(document["parameters"])
        self.metrics = [m["name"] if isinstance(m, dict) else m for m in document["metrics"]]
        self.summary = summary
        self.rows = []
        for point in document["points"]:
            row = {"point": point["point"], "testbench": point["testbench"]}
            row.update({k: _number(v) for k, v in point["parameters"].items()})
            row.update(point["metrics"])
            row.update(status=point["status"], error=point["error"], wall_s=point["wall_s"])
            self.rows.append(row)

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, index):
        return self.rows[index]

    @property
    def ok(self):
        return [row for row in self.rows if row["status"] == "ok"]

    @property
    def failed(self):
        return [row for row in self.rows if row["status"] not in ("ok", "missing")]

    def column(self, name):
        return [row.get(name) for row in self.rows]

    def to_pandas(self):
        import pandas
        return pandas.DataFrame(self.rows)

    def __repr__(self):
        return (f"<npusim.SweepResult {self.name}: {len(self.rows)} points, {len(self.ok)} ok, "
                f"{len(self.failed)} failed ({self.dir})>")


def _run_command(argv, quiet):
    """Runs `npusim sweep`, passing its progress lines on to stderr; (code, stdout, stderr
    lines). Ctrl-C stops it as it would on a terminal (the finished points stay)."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               errors="replace")
    lines = []
    try:
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            if not quiet:
                sys.stderr.write(line)
        stdout = process.stdout.read()
        process.wait()
    except KeyboardInterrupt:
        process.send_signal(signal.SIGINT)
        process.wait()
        raise
    finally:
        process.stdout.close()
        process.stderr.close()
    return process.returncode, stdout, lines


def sweep(spec, jobs=None, out=None, timeout=None, retry_failed=False, quiet=False):
    """Runs a sweep as `npusim sweep SPEC --out DIR` does and returns a SweepResult.

    spec: a sweep file's path, or a dict with its keys (name, config, testbench, set, mode,
        parameters, metrics); in a dict, config and testbench may be Config and Testbench
        objects (their settings become `set:` entries), and relative paths are relative to
        the working directory
    jobs: points at once (default: the cores)
    out: the output folder; run again with the same spec and folder to resume (the
        finished points are kept). None: a temporary folder, removed with the result
    timeout: wall-clock limit of one point, in seconds or as a duration ("90s")
    retry_failed: run failed, crashed and timed-out points again
    quiet: no progress lines on stderr

    A point that fails is a row with status failed, crashed, timeout or invalid; a sweep
    file npusim refuses raises SweepError with the command line's message.
    """
    temporary = out is None
    directory = tempfile.mkdtemp(prefix="npusim-sweep-") if temporary else _absolute(out)
    try:
        os.makedirs(directory, exist_ok=True)
        spec_path = _write_spec(directory, spec) if isinstance(spec, dict) else os.fspath(spec)
        argv = [_binary(), "sweep", spec_path, "--out", directory]
        if jobs is not None:
            argv += ["--jobs", str(jobs)]
        if timeout is not None:
            argv += ["--timeout", timeout if isinstance(timeout, str) else f"{timeout}s"]
        if retry_failed:
            argv.append("--retry-failed")
        code, stdout, lines = _run_command(argv, quiet)
        if code != 0:
            raise _sweep_error(lines, code)
        with open(os.path.join(directory, "results.json"), encoding="utf-8") as f:
            result = SweepResult(directory, json.load(f), stdout.strip())
    except BaseException:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    if temporary:
        weakref.finalize(result, shutil.rmtree, directory, True)
    return result
