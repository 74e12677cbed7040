"""Runs in the Python process: the result equals the command line's report, tables and
pandas, many runs per process, checks, limits, interrupts, traces."""

import csv
import json
import os
import signal
import sys
import threading

import pytest

import npusim

from conftest import HELLO, cli, cli_error, without_wall_time


def test_to_json_equals_the_cli_report(tmp_path, hello):
    result = npusim.run(npusim.Config.load("configs/edge-npu.yaml"), hello)
    code, out, err = cli("run", "--config", "configs/edge-npu.yaml", "--testbench", HELLO,
                         "--out", str(tmp_path / "out"))
    assert code == 0, err
    cli_text = (tmp_path / "out" / "report.json").read_text()
    assert without_wall_time(result.to_json()) == without_wall_time(cli_text)
    assert result.to_json() != without_wall_time(result.to_json())  # wall_s is real
    # And the summary is the command line's.
    assert result.summary().split("\nwall time")[0] == out.split("\nwall time")[0]


def test_result_figures(hello):
    result = npusim.run("edge-npu", hello)
    report = result.report
    assert result.simulated_ns == report["sim"]["simulated_ns"] > 0
    assert result.config_name == "edge-npu" and result.testbench_name == "hello"
    assert result.wall_s > 0
    phases = result.phases
    parts = sum(v for k, v in phases.items() if k != "total_ns")
    assert parts == pytest.approx(phases["total_ns"]) and phases["total_ns"] == pytest.approx(
        result.simulated_ns)
    assert set(result.kernels) == {"gemm", "tiny"}
    assert result.kernels["gemm"]["launches"] == 2
    assert result.energy["total_pj"] > 0
    assert result.blocks["ddr"]
    assert [layer["kernel"] for layer in result.layers] == [r["kernel"] for r in report["layers"]]


def test_launches_are_the_rows_of_launches_csv(tmp_path, hello):
    result = npusim.run("edge-npu", hello)
    assert cli("run", "--config", "edge-npu", "--testbench", HELLO, "--out",
               str(tmp_path / "out"))[0] == 0
    with open(tmp_path / "out" / "launches.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    launches = result.launches
    assert len(launches) == len(rows) == result.report["sim"]["launches"] == 6
    for mine, theirs in zip(launches, rows):
        assert list(mine) == list(theirs)  # the same columns, in the same order
        for key, text in theirs.items():
            value = mine[key]
            if isinstance(value, list):
                assert ";".join(str(v if key == "units" else f"{v:.3f}") for v in value) == text
            elif isinstance(value, float):
                assert f"{value:.3f}" == text, key
            else:
                assert str(value) == text, key
    # Phases add up to each launch's span.
    for r in launches:
        phases = (r["prepare_ns"] + r["submit_ns"] + r["schedule_wait_ns"] +
                  r["schedule_dispatch_ns"] + r["iload_ns"] + r["execute_ns"] + r["complete_ns"])
        assert phases == pytest.approx(r["t6_ns"] - r["t0_ns"])


def test_tables_as_lists_and_as_pandas(hello, monkeypatch):
    result = npusim.run("edge-npu", hello)
    for name in npusim.TABLES:
        rows = result.table(name)
        assert rows and all(isinstance(r, dict) for r in rows), name
    assert {r["phase"] for r in result.table("phases")} >= {"execute", "total"}
    assert {r["block"] for r in result.table("energy")} >= {"ddr"}
    with pytest.raises(ValueError):
        result.table("nope")
    pandas = pytest.importorskip("pandas")
    for name in npusim.TABLES:
        frame = result.to_pandas(name)
        assert isinstance(frame, pandas.DataFrame)
        assert len(frame) == len(result.table(name))
        assert list(frame.columns) == list(result.table(name)[0])
    assert result.to_pandas()["execute_ns"].sum() == pytest.approx(
        sum(r["execute_ns"] for r in result.launches))
    # Without pandas: a clear ImportError, and the lists still work.
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="python3-pandas"):
        result.to_pandas("layers")
    assert result.table("layers")


def test_many_runs_in_one_process_are_identical(hello):
    cfg = npusim.Config.load("edge-npu")
    texts = {without_wall_time(npusim.run(cfg, hello).to_json()) for _ in range(5)}
    assert len(texts) == 1
    # A different config in between does not leak into the next run.
    other = npusim.run(cfg.copy().set("compute.units", 1), hello)
    assert json.loads(other.to_json())["config"]["compute"]["units"] == 1
    assert without_wall_time(npusim.run(cfg, hello).to_json()) in texts


def test_a_run_from_another_thread(hello):
    results = []
    thread = threading.Thread(target=lambda: results.append(npusim.run("edge-npu", hello)))
    thread.start()
    thread.join()
    assert results[0].simulated_ns == npusim.run("edge-npu", hello).simulated_ns


def test_a_testbench_that_does_not_fit_the_config(hello):
    hello.set("kernels.gemm.units", 64)
    with pytest.raises(npusim.TestbenchError) as e:
        npusim.run("edge-npu", hello)
    assert str(e.value) == cli_error("run", "--config", "edge-npu", "--testbench", HELLO,
                                     "--tb-set", "kernels.gemm.units=64")


def test_the_simulated_time_limit(hello):
    cfg = npusim.Config.load("edge-npu").set("limits.sim_time", "100us")
    with pytest.raises(npusim.SimulationError) as e:
        npusim.run(cfg, hello)
    assert str(e.value) == cli_error("run", "--config", "edge-npu", "--testbench", HELLO,
                                     "--set", "limits.sim_time=100us")
    assert npusim.run("edge-npu", hello).simulated_ns > 100000  # the next run is whole


def long_testbench(launches=10_000_000):
    return npusim.Testbench.from_dict({
        "name": "long",
        "kernels": {"k": {"op": "cycles", "cycles": 100, "binary": "1KiB"}},
        "streams": ["s"],
        "program": [{"repeat": {"count": launches,
                                "body": [{"launch": {"kernel": "k", "stream": "s",
                                                     "async": True}}]}},
                    {"sync": "s"}],
    })


def test_the_wall_time_limit_raises_instead_of_ending_the_process():
    cfg = npusim.Config.load("edge-npu").set("limits.wall_time", "300ms")
    cfg.set("limits.sim_time", "1000s")
    with pytest.raises(npusim.SimulationError) as e:
        npusim.run(cfg, long_testbench())
    assert str(e.value) == ("error: the run passed its wall-clock time limit of 300ms "
                            "(limits.wall_time); raise it with --max-wall-time if the run is "
                            "meant to take this long")


def test_ctrl_c_stops_a_run_with_keyboard_interrupt(hello):
    cfg = npusim.Config.load("edge-npu").set("limits.sim_time", "1000s")
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            npusim.run(cfg, long_testbench())
    finally:
        timer.cancel()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert npusim.run("edge-npu", hello).report["sim"]["launches"] == 6


def test_fidelity(hello):
    cycle = npusim.run("edge-npu", hello, fidelity="cycle")
    assert cycle.simulated_ns == npusim.run("edge-npu", hello).simulated_ns
    with pytest.raises(npusim.ConfigError) as e:
        npusim.run("edge-npu", hello, fidelity="exact")
    assert "exact" in str(e.value)
    if "model" in npusim.Config.load("edge-npu").get("ddr"):
        fast = npusim.run("edge-npu", hello, fidelity="transaction")
        assert fast.report["config"]["ddr"]["model"] == "transaction"
    else:
        with pytest.raises(npusim.ConfigError, match="fidelity"):
            npusim.run("edge-npu", hello, fidelity="transaction")


def test_trace_and_save(tmp_path, hello):
    trace = tmp_path / "trace.json"
    result = npusim.run("edge-npu", hello, trace=trace, trace_limit=2)
    events = json.loads(trace.read_text())["traceEvents"]
    assert events
    result.save(tmp_path / "out")
    assert (tmp_path / "out" / "report.json").read_text() == result.to_json()
    assert (tmp_path / "out" / "launches.csv").read_text().count("\n") == 7
    with pytest.raises(npusim.InputError):
        npusim.run("edge-npu", hello, trace=tmp_path / "no" / "such" / "dir" / "t.json")
    with pytest.raises(ValueError):
        npusim.run("edge-npu", hello, trace_limit=2)
