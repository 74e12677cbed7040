"""ONNX import: the testbench `npusim import` writes, the report `run --model` makes, and
the command line's errors as ModelError."""

import os
import subprocess

import pytest

import npusim

from conftest import ROOT, cli, cli_error, without_wall_time


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The reference models of scripts/gen_onnx_models.py (a few KiB each)."""
    out = tmp_path_factory.mktemp("onnx")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "gen_onnx_models.py"),
                    "--out", str(out), "mobilenetv2", "bert_layer"], check=True)
    return out


def test_import_equals_the_cli_testbench(models, tmp_path):
    model = str(models / "mobilenetv2.onnx")
    tb = npusim.import_onnx(model, batch=1, dtype="int8")
    assert tb.name == "mobilenetv2" and tb.path == model
    written = tmp_path / "m.yaml"
    code, _, err = cli("import", model, "-o", str(written), "--batch", "1", "--dtype", "int8")
    assert code == 0, err
    assert tb.to_dict() == npusim.Testbench.load(written).to_dict()
    assert len(tb.to_dict()["kernels"]) > 10


def fixed_model(path):
    """A small model whose shapes are all given, which `run --model` takes as it is."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    weights = [helper.make_tensor(name, TensorProto.FLOAT, dims, [0.0] * _count(dims))
               for name, dims in (("w1", [16, 3, 3, 3]), ("w2", [16 * 30 * 30, 10]))]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c"], kernel_shape=[3, 3]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Flatten", ["r"], ["f"]),
             helper.make_node("MatMul", ["f", "w2"], ["y"])]
    graph = helper.make_graph(nodes, "fixed",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                             [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _count(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def test_run_of_an_import_equals_run_model(tmp_path):
    model = fixed_model(tmp_path / "fixed.onnx")
    result = npusim.run("edge-npu", npusim.import_onnx(model))
    code, _, err = cli("run", "--config", "edge-npu", "--model", model, "--out",
                       str(tmp_path / "out"))
    assert code == 0, err
    assert without_wall_time(result.to_json()) == without_wall_time(
        (tmp_path / "out" / "report.json").read_text())
    assert [layer["kernel"] for layer in result.layers]
    assert result.report["testbench_file"] == model


def test_shapes_dims_and_options(models, tmp_path):
    model = str(models / "bert_layer.onnx")
    tb = npusim.import_onnx(model, dims={"seq": 128}, dtype="fp16", fuse="elementwise",
                            name="bert128")
    written = tmp_path / "b.yaml"
    assert cli("import", model, "-o", str(written), "--dim", "seq=128", "--dtype", "fp16",
               "--fuse", "elementwise", "--name", "bert128")[0] == 0
    assert tb.to_dict() == npusim.Testbench.load(written).to_dict()
    assert tb.name == "bert128"
    # A dimension left open is taken as 1 with a warning, as on the command line.
    with pytest.warns(UserWarning, match="unbound dimensions taken as 1: hidden_states\\[1\\] 'seq'"):
        open_seq = npusim.import_onnx(model)
    assert open_seq.to_dict() == npusim.import_onnx(model, dims={"seq": 1}).to_dict()
    # A dimension the model does not have is an error, the command line's.
    with pytest.raises(npusim.ModelError) as e:
        npusim.import_onnx(model, dims={"nosuch": 3})
    assert str(e.value) == cli_error("import", model, "-o", str(tmp_path / "x.yaml"), "--dim",
                                     "nosuch=3")
    # A whole input shape, as a tuple or as text, is --shape.
    by_tuple = npusim.import_onnx(model, shapes={"hidden_states": (1, 64, 768)})
    by_text = npusim.import_onnx(model, shapes={"hidden_states": "1x64x768"})
    by_dim = npusim.import_onnx(model, dims={"seq": 64})
    assert by_tuple.to_dict() == by_text.to_dict() == by_dim.to_dict()


def test_a_file_that_is_not_onnx():
    bad = os.path.join(ROOT, "tests", "bad_inputs", "onnx", "not_onnx.onnx")
    with pytest.raises(npusim.ModelError) as e:
        npusim.import_onnx(bad)
    assert str(e.value) == cli_error("import", bad, "-o", "/tmp/never-written.yaml")
    assert e.value.file == bad


def test_options_are_checked(models):
    model = str(models / "mobilenetv2.onnx")
    for kwargs in ({"dtype": "int4"}, {"batch": 0}, {"streams": 65}, {"fuse": "all"},
                   {"unsupported": "skip"}):
        with pytest.raises(npusim.ModelError):
            npusim.import_onnx(model, **kwargs)
