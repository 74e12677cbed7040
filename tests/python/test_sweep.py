"""Sweeps from Python: the table, the command line's resume and failure isolation, and
sweep files npusim refuses as SweepError."""

import os

import pytest

import npusim

from conftest import HELLO, ROOT, cli_error


def spec(**extra):
    document = {
        "name": "units",
        "config": "configs/edge-npu.yaml",
        "testbench": HELLO,
        "parameters": {"compute.units": [1, 2]},
        "metrics": ["sim.simulated_ns", "kernels.gemm.execute.mean_ns"],
    }
    document.update(extra)
    return document


def test_a_sweep_returns_its_table(tmp_path):
    result = npusim.sweep(spec(), jobs=2, out=tmp_path / "s", quiet=True)
    assert len(result) == 2 and [r["status"] for r in result] == ["ok", "ok"]
    assert result.parameters == ["compute.units"]
    assert result.column("compute.units") == [1, 2]  # numbers, not text
    # Each point's figures are those of the same run in this process.
    for row in result:
        cfg = npusim.Config.load("edge-npu").set("compute.units", row["compute.units"])
        assert row["sim.simulated_ns"] == npusim.run(cfg, HELLO).simulated_ns
    assert (tmp_path / "s" / "results.csv").exists()
    pandas = pytest.importorskip("pandas")
    frame = result.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["point", "testbench", "compute.units", "sim.simulated_ns",
                                   "kernels.gemm.execute.mean_ns", "status", "error", "wall_s"]


def test_a_rerun_resumes(tmp_path, capsys):
    first = npusim.sweep(spec(), out=tmp_path / "s")
    assert "2 to run" in capsys.readouterr().err
    stamp = os.stat(tmp_path / "s" / "points").st_mtime_ns
    again = npusim.sweep(spec(), out=tmp_path / "s")
    assert "0 to run" in capsys.readouterr().err
    assert os.stat(tmp_path / "s" / "points").st_mtime_ns == stamp
    assert again.rows == first.rows


def test_failing_points_are_rows(tmp_path, monkeypatch):
    # Four points: one runs, one passes its simulated-time limit (failed), one aborts
    # (crashed: the test hook of `npusim run`), one cannot run at all (invalid: gemm on 2
    # units, the config has 1).
    monkeypatch.setenv("NPUSIM_TEST_ABORT_ON_SET", "limits.sim_time=2ms")
    document = spec(mode="zip", parameters={
        "compute.units": [2, 2, 2, 1],
        "limits.sim_time": ["1ms", "100us", "2ms", "1ms"],
    }, set={"testbench.kernels.gemm.units": 2})
    result = npusim.sweep(document, out=tmp_path / "s", quiet=True)
    statuses = [row["status"] for row in result]
    assert statuses == ["ok", "failed", "crashed", "invalid"]
    assert result[0]["sim.simulated_ns"] > 0
    assert "simulated time limit of 100us reached" in result[1]["error"]
    assert "signal 6" in result[2]["error"]
    assert "units" in result[3]["error"]
    assert all(row["sim.simulated_ns"] is None for row in result.failed)
    assert len(result.failed) == 3 and len(result.ok) == 1


def test_config_and_testbench_objects_and_a_temporary_folder():
    cfg = npusim.Config.load("edge-npu").set("host.completion", "polling")
    tb = npusim.Testbench.load(HELLO).set("kernels.tiny.cycles", 4000)
    result = npusim.sweep(spec(config=cfg, testbench=tb), quiet=True)
    folder = result.dir
    assert os.path.isdir(folder)
    for row in result:
        point = npusim.Config.load("edge-npu").set("host.completion", "polling")
        point.set("compute.units", row["compute.units"])
        assert row["sim.simulated_ns"] == npusim.run(point, tb).simulated_ns
    del result, row
    assert not os.path.exists(folder)


def test_a_sweep_file_by_path(tmp_path):
    # 4 cache sizes x 6 binary sizes; paths in the file are relative to the file.
    path = os.path.join(ROOT, "testbenches", "sweeps", "icache_vs_binary.yaml")
    result = npusim.sweep(path, jobs=2, out=tmp_path / "s", quiet=True)
    assert len(result) == 24 and not result.failed
    misses = {(r["icache.size"], r["testbench.kernels.k.binary"]): r["blocks.icache.misses"]
              for r in result}
    assert misses[("64KiB", "4KiB")] < misses[("8KiB", "128KiB")]


def test_a_bad_sweep_raises_the_cli_message(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"config: {ROOT}/configs/edge-npu.yaml\ntestbench: {HELLO}\n"
                   "parameters:\n  compute.units: []\nmetrics: [sim.simulated_ns]\n")
    with pytest.raises(npusim.SweepError) as e:
        npusim.sweep(bad, out=tmp_path / "s", quiet=True)
    assert str(e.value) == cli_error("sweep", str(bad), "--out", str(tmp_path / "s2"))
    assert (e.value.file, e.value.line) == (str(bad), 4)
