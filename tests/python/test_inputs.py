"""Configs and testbenches: loading, settings with the checks of --set and --tb-set, and
errors as exceptions carrying the command line's message and location."""

import pytest

import npusim

from conftest import HELLO, cli_error


def test_config_by_name_and_by_path_are_the_same():
    by_name = npusim.Config.load("edge-npu")
    by_path = npusim.Config.load("configs/edge-npu.yaml")
    assert by_name.name == by_path.name == "edge-npu"
    assert by_name.path.endswith("configs/edge-npu.yaml")
    assert by_name.to_dict() == by_path.to_dict()


def test_set_changes_the_effective_config_and_returns_it():
    cfg = npusim.Config.load("edge-npu")
    units = cfg.get("compute.units")
    assert cfg.set("compute.units", units * 2) is cfg
    assert cfg.get("compute.units") == units * 2
    assert cfg.overrides == [f"compute.units={units * 2}"]
    # Python values are written as YAML: sizes in units, bools, a map for a whole section.
    cfg.set("sram.size", "1MiB").set("energy.enabled", False)
    assert cfg.get("sram.size") == "1MiB" or cfg.get("sram.size") == 1 << 20
    assert cfg.get("energy.enabled") is False


def test_copy_is_independent():
    cfg = npusim.Config.load("edge-npu")
    other = cfg.copy().set("compute.units", 1)
    assert other.get("compute.units") == 1
    assert cfg.get("compute.units") != 1 or cfg.overrides == []


def test_a_bad_setting_raises_the_cli_message_and_keeps_the_config():
    cfg = npusim.Config.load("edge-npu")
    before = cfg.to_dict()
    with pytest.raises(npusim.ConfigError) as e:
        cfg.set("compute.unts", 4)
    assert str(e.value) == cli_error("validate", HELLO, "--config", "edge-npu", "--set",
                                     "compute.unts=4")
    assert "did you mean" in str(e.value)
    assert e.value.key is not None and e.value.key.startswith("compute.unts")
    assert cfg.to_dict() == before and cfg.overrides == []
    with pytest.raises(npusim.ConfigError) as e:
        cfg.set("compute.units", 0)
    assert str(e.value) == cli_error("validate", HELLO, "--config", "edge-npu", "--set",
                                     "compute.units=0")


def test_a_bad_config_file_is_located(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: edge-npu.yaml\ncompute:\n  units: many\n")
    (tmp_path / "edge-npu.yaml").write_text(open("configs/edge-npu.yaml").read())
    with pytest.raises(npusim.ConfigError) as e:
        npusim.Config.load(bad)
    assert str(e.value) == cli_error("validate", str(bad))
    assert (e.value.file, e.value.line, e.value.column) == (str(bad), 3, 10)
    assert e.value.location == f"{bad}:3:10"
    assert e.value.key == "compute.units"
    assert isinstance(e.value, npusim.InputError) and isinstance(e.value, npusim.Error)


def test_an_unknown_config_name_lists_the_configs():
    with pytest.raises(npusim.ConfigError) as e:
        npusim.Config.load("edge-npo")
    assert "edge-npu" in str(e.value)


def test_testbench_load_and_set(hello):
    assert hello.name == "hello"
    assert hello.path == HELLO
    # The testbench as the report's `testbench` section has it: values as written.
    assert hello.get("kernels.gemm.m") == "256"
    assert hello.set("kernels.gemm.m", 512) is hello
    assert hello.get("kernels.gemm.m") == "512"
    assert hello.overrides == ["kernels.gemm.m=512"]


def test_a_bad_testbench_setting_raises_the_cli_message(hello):
    with pytest.raises(npusim.TestbenchError) as e:
        hello.set("kernels.gemm.dtype", "int4")
    assert str(e.value) == cli_error("validate", HELLO, "--config", "edge-npu", "--tb-set",
                                     "kernels.gemm.dtype=int4")
    assert hello.overrides == []


def test_a_bad_testbench_file_is_located(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(open(HELLO).read().replace("host_work: 20us", "host_wrok: 20us"))
    with pytest.raises(npusim.TestbenchError) as e:
        npusim.Testbench.load(bad)
    assert str(e.value) == cli_error("validate", str(bad))
    assert e.value.file == str(bad) and e.value.line is not None and e.value.column is not None
    assert "did you mean 'host_work'" in str(e.value)


def test_testbench_from_a_dict():
    tb = npusim.Testbench.from_dict({
        "name": "one",
        "kernels": {"k": {"op": "cycles", "cycles": 1000, "binary": "4KiB"}},
        "program": [{"launch": {"kernel": "k"}}],
    })
    assert tb.name == "one"
    result = npusim.run("edge-npu", tb)
    assert result.report["sim"]["launches"] == 1
    with pytest.raises(npusim.TestbenchError) as e:
        npusim.Testbench.from_dict({"name": "x", "program": [{"launch": {"kernel": "k"}}]})
    assert e.value.file == "<dict>" and e.value.line is not None


def test_setting_values():
    with pytest.raises(TypeError):
        npusim.Config.load("edge-npu").set("compute.units", object())
    with pytest.raises(TypeError):
        npusim.Config.load("edge-npu").set("", 1)
