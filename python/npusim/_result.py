"""A run in this process, and what it returns."""

import os
import threading

from . import _core
from ._errors import ConfigError
from ._inputs import Config, Testbench

# The tables a result holds; to_pandas() and table() take these names.
TABLES = ("launches", "layers", "kernels", "phases", "blocks", "energy")


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_pandas() needs pandas (Debian: apt-get install python3-pandas); "
                          "table() gives the same rows as lists of dicts") from e
    return pandas


def _flatten(prefix, value, row):
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, item, row)
    else:
        row[prefix] = value


class Result:
    """What one run produced. The figures are those of the run's report.json:

    simulated_ns   simulated time of the run
    phases         where the time went ({"execute_ns": ..., "total_ns": ...})
    launches       one dict per launch, with launches.csv's columns
    layers         one dict per kernel: time, work, DRAM bytes, roofs, bound
    kernels        each kernel's phases (mean, p50, p99, max)
    energy         the energy section (None when the config turns energy off)
    blocks         each block's statistics
    report         the whole report.json as a dict
    to_json()      report.json's text; to_pandas(table) a DataFrame of one table
    """

    def __init__(self, handle):
        self._handle = handle
        self._report = None
        self._launches = None

    @property
    def report(self):
        """report.json as a dict (read once, then kept)."""
        if self._report is None:
            self._report = self._handle.document()
        return self._report

    def to_json(self):
        """The text `npusim run --out DIR` writes to DIR/report.json for the same run
        (only sim.wall_s differs)."""
        return self._handle.to_json()

    @property
    def simulated_ns(self):
        return self._handle.simulated_ps / 1000.0

    @property
    def wall_s(self):
        """Wall-clock seconds the simulation took."""
        return self._handle.wall_s

    @property
    def config_name(self):
        return self.report["config_name"]

    @property
    def testbench_name(self):
        return self.report["testbench_name"]

    @property
    def phases(self):
        return self.report["breakdown"]

    @property
    def kernels(self):
        return self.report["kernels"]

    @property
    def blocks(self):
        return self.report["blocks"]

    @property
    def energy(self):
        return self.report.get("energy")

    @property
    def layers(self):
        return self.report["layers"]

    @property
    def launches(self):
        return self.table("launches")

    def _launch_columns(self):
        if self._launches is None:
            self._launches = self._handle.launch_columns()
        return self._launches

    def table(self, name="launches"):
        """One of TABLES as a list of dicts, one per row."""
        if name == "launches":
            columns = self._launch_columns()
            keys = list(columns)
            return [dict(zip(keys, row)) for row in zip(*columns.values())]
        if name == "layers":
            return [dict(row) for row in self.layers]
        if name == "kernels":
            rows = []
            for kernel, figures in self.kernels.items():
                row = {"kernel": kernel}
                _flatten("", figures, row)
                rows.append(row)
            return rows
        if name == "phases":
            return [{"phase": key[:-3] if key.endswith("_ns") else key, "ns": value}
                    for key, value in self.phases.items()]
        if name == "blocks":
            units = self.report.get("stat_units", {})
            return [{"block": block, "statistic": stat, "value": value,
                     "unit": units.get(f"{block}.{stat}", {}).get("unit")}
                    for block, stats in self.blocks.items() for stat, value in stats.items()]
        if name == "energy":
            parts = (self.energy or {}).get("parts", {})
            return [{"block": block, "part": part[:-3] if part.endswith("_pj") else part,
                     "pj": pj}
                    for block, block_parts in parts.items() for part, pj in block_parts.items()]
        raise ValueError(f"no table {name!r}; expected one of {', '.join(TABLES)}")

    def to_pandas(self, table="launches"):
        """One of TABLES as a pandas DataFrame (needs pandas)."""
        pandas = _pandas()
        if table == "launches":
            return pandas.DataFrame(self._launch_columns())
        return pandas.DataFrame(self.table(table))

    def summary(self, format="text", layers=20, detail=False, tiling=False):
        """What `npusim run` prints: text, json or csv (--layers N, 0 for all; --detail;
        --tiling)."""
        if format not in ("text", "json", "csv"):
            raise ValueError(f"format: expected text, json or csv, got {format!r}")
        return self._handle.summary(format, layers, detail, tiling)

    def save(self, directory):
        """Writes report.json, launches.csv and layers.csv into `directory` (created; all
        three or none), as `npusim run --out DIR` does."""
        self._handle.save(os.fspath(directory))

    def __repr__(self):
        return (f"<npusim.Result {self.testbench_name} on {self.config_name}: "
                f"{self.simulated_ns:.3f} ns simulated, {self.report['sim']['launches']} launches>")


def _with_fidelity(config, fidelity):
    """The config with `ddr.model` set to `fidelity`, where the config has that key."""
    if fidelity is None:
        return config
    try:
        config.get("ddr.model")
    except KeyError:
        if fidelity == "cycle":
            return config  # the only DRAM model this build has
        raise ConfigError(f"error: fidelity: this build simulates the DRAM cycle by cycle only; "
                          f"expected 'cycle', got {fidelity!r}", key="fidelity") from None
    return config.copy().set("ddr.model", fidelity)


def _count(option, value):
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{option}: expected a whole number of at least 1, got {value!r}")
    return value


def run(config, testbench, fidelity=None, trace=None, trace_limit=None, trace_sample=None):
    """Runs `testbench` on `config` in this process and returns a Result.

    config: a Config, or a path or a config's name
    testbench: a Testbench, or a testbench file's path
    fidelity: the DRAM model (ddr.model): "cycle", or "transaction" where the build has it;
        None: as the config says
    trace: a path for a Chrome trace (as --trace); trace_limit, trace_sample: as
        --trace-limit and --trace-sample

    Each run gets a fresh simulation context, so a process may run any number of them, one
    at a time (a second thread waits). The checks, limits and messages are those of
    `npusim run`: TestbenchError when the testbench does not fit the config,
    SimulationError for a workload that cannot finish or a limit it passed; Ctrl-C stops
    the run with KeyboardInterrupt.
    """
    if not isinstance(config, Config):
        config = Config.load(config)
    if not isinstance(testbench, Testbench):
        testbench = Testbench.load(testbench)
    config = _with_fidelity(config, fidelity)
    if trace is None and (trace_limit is not None or trace_sample is not None):
        raise ValueError("trace_limit and trace_sample need trace (a path)")
    if trace is not None and not os.fspath(trace):
        raise ValueError("trace: expected a path, got an empty one")
    limit = _count("trace_limit", trace_limit)
    sample = _count("trace_sample", trace_sample) or 1
    on_main = threading.current_thread() is threading.main_thread()
    handle = _core.run(config._handle, testbench._handle,
                       "" if trace is None else os.fspath(trace), limit, sample, on_main)
    return Result(handle)
