#!/usr/bin/python3
"""Writes small reference ONNX models for `npusim import` (Debian's python3-onnx):

  resnet50.onnx     ResNet-50 v1.5 (torchvision's graph: Conv, BatchNormalization, Relu,
                    MaxPool, Add, GlobalAveragePool, Flatten, Gemm, Softmax), input
                    image [N, 3, 224, 224] with a symbolic batch N
  mobilenetv2.onnx  MobileNetV2 1.0 (Conv incl. depthwise, BatchNormalization, Clip as
                    ReLU6, Add, GlobalAveragePool, Flatten, Gemm, Softmax)
  bert_layer.onnx   one BERT-base encoder layer, sequence `seq` (symbolic): MatMul
                    projections, the shape arithmetic exporters emit (Shape, Gather,
                    Unsqueeze, Concat) for the heads' Reshape, Transpose, batched MatMul,
                    Softmax, LayerNormalization, GELU written with Erf
  decoder_kv.onnx   one decoder layer with a KV cache (hidden 2048, 32 heads): past keys
                    and values [1, 32, past, 64] (symbolic `past`) concatenated with the
                    new token's, returned as present_key / present_value

The weights are initializers whose data lives in an external file that is not written:
only their shapes matter to the import, and each model stays a few KiB. Small int64
shape constants are stored inline. Usage: gen_onnx_models.py --out DIR [names...];
--bad writes the malformed models of tests/bad_inputs/onnx; --features the models of the
import's features its tests run (If folding, a 10,000-op chain, LSTM/GRU/RNN, Einsum,
quantized ops, opset 18 forms, rows far larger than SRAM, ops without a mapping); --macs
MODEL prints the MACs
of its Conv, Gemm and MatMul nodes from ONNX's own shape inference.
"""

import argparse
import os
import sys

import onnx
from onnx import TensorProto, helper

OPSET = 17  # LayerNormalization; the newest opset of Debian 12's onnx 1.12


class Graph:
    """Nodes, weights and value names of one model."""

    def __init__(self):
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, base):
        self.count += 1
        return "%s_%d" % (base, self.count)

    def weight(self, base, dims):
        """A float weight with external data: shape only."""
        t = TensorProto()
        t.name = self.name(base)
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", "weights.bin"), ("offset", "0"),
                           ("length", str(4 * _prod(dims)))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        self.inits.append(t)
        return t.name

    def ints(self, base, values):
        t = helper.make_tensor(self.name(base), TensorProto.INT64, [len(values)], values)
        self.inits.append(t)
        return t.name

    def op(self, op_type, inputs, name=None, outputs=1, **attrs):
        node_name = name or self.name(op_type.lower())
        outs = [node_name if outputs == 1 else "%s_%d" % (node_name, i) for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=node_name, **attrs))
        return outs[0] if outputs == 1 else outs

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, initializer=self.inits)
        model = helper.make_model(graph, producer_name="npusim gen_onnx_models.py",
                                  opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        return model


def _prod(dims):
    p = 1
    for d in dims:
        p *= d
    return p


def conv_bn(g, x, cin, cout, k, stride=1, groups=1, act="Relu", name=None):
    """Conv (no bias) + BatchNormalization (+ activation), as torchvision exports them."""
    w = g.weight("w", [cout, cin // groups, k, k])
    y = g.op("Conv", [x, w], name=name, kernel_shape=[k, k], strides=[stride, stride],
             pads=[k // 2] * 4, group=groups)
    bn = [g.weight("bn", [cout]) for _ in range(4)]
    y = g.op("BatchNormalization", [y] + bn)
    if act == "Relu":
        y = g.op("Relu", [y])
    elif act == "Relu6":
        y = g.op("Clip", [y, g.scalar_min, g.scalar_max])
    return y


def head(g, x, channels, classes=1000):
    y = g.op("GlobalAveragePool", [x])
    y = g.op("Flatten", [y], axis=1)
    y = g.op("Gemm", [y, g.weight("fc_w", [classes, channels]), g.weight("fc_b", [classes])],
             name="fc", transB=1)
    return g.op("Softmax", [y], name="prob", axis=1)


def resnet50():
    g = Graph()
    x = g.op("MaxPool", [conv_bn(g, "image", 3, 64, 7, 2, name="conv1")], name="pool1",
             kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (blocks, width) in enumerate(((3, 64), (4, 128), (6, 256), (3, 512)), start=2):
        for b in range(1, blocks + 1):
            stride = 2 if b == 1 and stage > 2 else 1
            p = "conv%d_%d" % (stage, b)
            y = conv_bn(g, x, cin, width, 1, name=p + "a")
            y = conv_bn(g, y, width, width, 3, stride, name=p + "b")  # v1.5: stride here
            y = conv_bn(g, y, width, 4 * width, 1, act=None, name=p + "c")
            short = conv_bn(g, x, cin, 4 * width, 1, stride, act=None,
                            name=p + "_proj") if b == 1 else x
            x = g.op("Relu", [g.op("Add", [y, short], name=p + "_add")])
            cin = 4 * width
    out = head(g, x, cin)
    image = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 224, 224])
    prob = helper.make_tensor_value_info(out, TensorProto.FLOAT, None)
    return g.model("resnet50", [image], [prob])


def mobilenetv2():
    g = Graph()
    g.scalar_min = "relu6_min"
    g.scalar_max = "relu6_max"
    g.inits += [helper.make_tensor("relu6_min", TensorProto.FLOAT, [], [0.0]),
                helper.make_tensor("relu6_max", TensorProto.FLOAT, [], [6.0])]
    x = conv_bn(g, "image", 3, 32, 3, 2, act="Relu6", name="conv1")
    cin = 32
    # (expansion t, channels c, repeats n, stride s): Sandler et al. 2018, Table 2
    for i, (t, c, n, s) in enumerate(((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
                                      (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                                      (6, 320, 1, 1)), start=1):
        for r in range(n):
            p = "ir%d_%d" % (i, r + 1)
            hidden = cin * t
            y = conv_bn(g, x, cin, hidden, 1, act="Relu6", name=p + "_expand") if t != 1 else x
            y = conv_bn(g, y, hidden, hidden, 3, s if r == 0 else 1, groups=hidden,
                        act="Relu6", name=p + "_dw")
            y = conv_bn(g, y, hidden, c, 1, act=None, name=p + "_project")
            x = g.op("Add", [y, x], name=p + "_add") if r > 0 or (s == 1 and cin == c) else y
            cin = c
    x = conv_bn(g, x, cin, 1280, 1, act="Relu6", name="conv_last")
    out = head(g, x, 1280)
    image = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 224, 224])
    prob = helper.make_tensor_value_info(out, TensorProto.FLOAT, None)
    return g.model("mobilenetv2", [image], [prob])


def linear(g, x, cin, cout, name):
    y = g.op("MatMul", [x, g.weight(name + "_w", [cin, cout])], name=name)
    return g.op("Add", [y, g.weight(name + "_b", [cout])], name=name + "_bias")


def layernorm(g, x, width, name):
    return g.op("LayerNormalization", [x, g.weight(name + "_g", [width]),
                                       g.weight(name + "_b", [width])], name=name, axis=-1)


def split_heads(g, x, heads, head_dim, name, perm=(0, 2, 1, 3)):
    """[B, S, heads * head_dim] -> [B, heads, S, head_dim], the shape computed as exporters
    do: Shape, Gather, Unsqueeze, Concat."""
    shape = g.op("Shape", [x])
    dims = []
    for i in (0, 1):
        index = helper.make_tensor(g.name("idx"), TensorProto.INT64, [], [i])  # a scalar
        g.inits.append(index)
        dims.append(g.op("Unsqueeze", [g.op("Gather", [shape, index.name]),
                                       g.ints("axes", [0])]))
    target = g.op("Concat", dims + [g.ints("heads", [heads, head_dim])], axis=0)
    return g.op("Transpose", [g.op("Reshape", [x, target], name=name + "_reshape")],
                name=name + "_transpose", perm=list(perm))


def attention(g, q, k, v, heads, head_dim, width, name):
    """Scores, softmax and context over [B, heads, S, head_dim] tensors; [B, S, width]."""
    kt = g.op("Transpose", [k], name=name + "_kt", perm=[0, 1, 3, 2])
    scores = g.op("MatMul", [q, kt], name=name + "_scores")
    scores = g.op("Div", [scores, g.ints("scale", [8])], name=name + "_scale")
    probs = g.op("Softmax", [scores], name=name + "_softmax", axis=-1)
    ctx = g.op("MatMul", [probs, v], name=name + "_context")
    ctx = g.op("Transpose", [ctx], name=name + "_merge", perm=[0, 2, 1, 3])
    return g.op("Reshape", [ctx, g.ints("merged", [0, -1, width])], name=name + "_reshape")


def gelu(g, x, name):
    """GELU as exporters write it before opset 20: x * 0.5 * (1 + erf(x / sqrt(2)))."""
    half = helper.make_tensor(g.name("c"), TensorProto.FLOAT, [], [0.5])
    one = helper.make_tensor(g.name("c"), TensorProto.FLOAT, [], [1.0])
    root2 = helper.make_tensor(g.name("c"), TensorProto.FLOAT, [], [1.4142135])
    g.inits += [half, one, root2]
    e = g.op("Erf", [g.op("Div", [x, root2.name])], name=name + "_erf")
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [e, one.name])]), half.name], name=name)


def bert_layer(hidden=768, heads=12, ffn=3072):
    g = Graph()
    x = "hidden_states"
    d = hidden // heads
    q, k, v = (split_heads(g, linear(g, x, hidden, hidden, n), heads, d, n)
               for n in ("query", "key", "value"))
    ctx = attention(g, q, k, v, heads, d, hidden, "attn")
    y = layernorm(g, g.op("Add", [linear(g, ctx, hidden, hidden, "attn_out"), x],
                          name="attn_residual"), hidden, "attn_norm")
    f = gelu(g, linear(g, y, hidden, ffn, "ffn_up"), "ffn_gelu")
    z = layernorm(g, g.op("Add", [linear(g, f, ffn, hidden, "ffn_down"), y],
                          name="ffn_residual"), hidden, "ffn_norm")
    inp = helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, "seq", hidden])
    out = helper.make_tensor_value_info(z, TensorProto.FLOAT, None)
    return g.model("bert_layer", [inp], [out])


def decoder_kv(hidden=2048, heads=32, ffn=8192):
    g = Graph()
    x = "x"
    d = hidden // heads
    h = layernorm(g, x, hidden, "attn_norm")
    q, k, v = (split_heads(g, g.op("MatMul", [h, g.weight(n + "_w", [hidden, hidden])],
                                   name=n), heads, d, n) for n in ("q", "k", "v"))
    present_k = g.op("Concat", ["past_key", k], name="present_key", axis=2)
    present_v = g.op("Concat", ["past_value", v], name="present_value", axis=2)
    ctx = attention(g, q, present_k, present_v, heads, d, hidden, "attn")
    o = g.op("MatMul", [ctx, g.weight("o_w", [hidden, hidden])], name="o_proj")
    y = g.op("Add", [o, x], name="attn_residual")
    h = layernorm(g, y, hidden, "mlp_norm")
    gate = g.op("MatMul", [h, g.weight("gate_w", [hidden, ffn])], name="gate")
    up = g.op("MatMul", [h, g.weight("up_w", [hidden, ffn])], name="up")
    act = g.op("Mul", [gate, g.op("Sigmoid", [gate], name="silu_sigmoid")], name="silu")
    down = g.op("MatMul", [g.op("Mul", [act, up], name="gated"),
                           g.weight("down_w", [ffn, hidden])], name="down")
    out = g.op("Add", [down, y], name="mlp_residual")
    cache = [1, heads, "past", d]
    inputs = [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 1, hidden]),
              helper.make_tensor_value_info("past_key", TensorProto.FLOAT, cache),
              helper.make_tensor_value_info("past_value", TensorProto.FLOAT, cache)]
    outputs = [helper.make_tensor_value_info(t, TensorProto.FLOAT, None)
               for t in (out, present_k, present_v)]
    return g.model("decoder_kv", inputs, outputs)


def tiny(nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, "bad", inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model.SerializeToString()


def conv(attrs, x=(1, 4, 8, 8), w=(8, 4, 3, 3), op="Conv", name="conv"):
    """A model of one Conv (or pooling, without `w`) with `attrs`: bytes."""
    f = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    inputs = ["x"] + (["w"] if w else [])
    node = helper.make_node(op, inputs, ["y"], name=name, **attrs)
    inits = [helper.make_tensor("w", f, w, [0.0] * _prod(w))] if w else []
    return tiny([node], [vi("x", f, list(x))], [vi("y", f, None)], inits)


def external(location):
    """A model whose weight's data is external at `location`: bytes."""
    f = TensorProto.FLOAT
    t = TensorProto()
    t.name, t.data_type = "w", f
    t.dims.extend([8, 8])
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "256")):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    vi = helper.make_tensor_value_info
    return tiny([node], [vi("x", f, [1, 8])], [vi("y", f, None)], [t])


def if_on_data():
    """An If whose condition is computed from the input's values."""
    f = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    then = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="then_relu")], "then",
                             [], [vi("t", f, [1, 8])])
    other = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["e"], name="else_sig")],
                              "else", [], [vi("e", f, [1, 8])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
             helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then,
                              else_branch=other)]
    return tiny(nodes, [vi("x", f, [1, 8])], [vi("y", f, None)],
                [helper.make_tensor("zero", f, [], [0.0])])


def relu_loop(trips, before=(), inits=(), name="repeat"):
    """A model of a Loop over a ReLU of x (1 x 8) whose trip count is tensor `trips`, after
    the nodes `before` and with the initializers `inits`: bytes."""
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    vi = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Relu", ["state"], ["next"], name="step_relu"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="again")], "body",
        [vi("i", i64, []), vi("cond_in", TensorProto.BOOL, []), vi("state", f, [1, 8])],
        [vi("cond_out", TensorProto.BOOL, []), vi("next", f, [1, 8])])
    nodes = list(before) + [helper.make_node("Loop", [trips, "", "x"], ["y"], name=name,
                                             body=body)]
    return tiny(nodes, [vi("x", f, [1, 8])], [vi("y", f, None)], inits)


def loop_on_data():
    """A Loop whose trip count is computed from the input's values."""
    return relu_loop("n", [helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
                           helper.make_node("Cast", ["s"], ["n"], name="trips",
                                            to=TensorProto.INT64)])


def loop_too_long():
    """A Loop with a constant trip count of 10^9: more iterations than import unrolls."""
    return relu_loop("n", inits=[helper.make_tensor("n", TensorProto.INT64, [], [10**9])],
                     name="forever")


def bad_models():
    """Malformed models for tests/bad_inputs/onnx: name -> bytes."""
    f = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    relu = helper.make_node("Relu", ["x"], ["y"], name="act")
    no_graph = onnx.ModelProto()
    no_graph.ir_version = 8
    return {
        "truncated.onnx": decoder_kv().SerializeToString()[:1500],
        "not_onnx.onnx": b"name: hello\nkernels: {}\n",
        "empty.onnx": b"",
        "no_graph.onnx": no_graph.SerializeToString(),
        "no_nodes.onnx": tiny([], [vi("x", f, [1, 8])], [vi("x", f, None)]),
        "cycle.onnx": tiny([helper.make_node("Add", ["x", "b"], ["a"], name="first"),
                            helper.make_node("Relu", ["a"], ["b"], name="second")],
                           [vi("x", f, [1, 8])], [vi("b", f, None)]),
        "unknown_op.onnx": tiny([relu, helper.make_node("FancyOp", ["y"], ["z"], name="fancy",
                                                         domain="com.example")],
                                [vi("x", f, [1, 8])], [vi("z", f, None)]),
        "unsupported_op.onnx": tiny([relu, helper.make_node("NonZero", ["y"], ["z"], name="nz")],
                                    [vi("x", f, [1, 8])], [vi("z", TensorProto.INT64, None)]),
        "zero_sized.onnx": tiny([relu], [vi("x", f, [1, 0])], [vi("y", f, None)]),
        "huge_dims.onnx": tiny([relu], [vi("x", f, [1 << 40, 1 << 40])], [vi("y", f, None)]),
        "unbound_dim.onnx": tiny([relu], [vi("x", f, ["batch", 8])], [vi("y", f, None)]),
        "no_shape.onnx": tiny([relu], [helper.make_tensor_value_info("x", f, None)],
                              [vi("y", f, None)]),
        "dangling_input.onnx": tiny([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")],
                                    [vi("x", f, [1, 8])], [vi("y", f, None)]),
        "shape_mismatch.onnx": tiny([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                                    [vi("x", f, [2, 3]), vi("w", f, [4, 5])], [vi("y", f, None)]),
        "duplicate_output.onnx": tiny([relu, helper.make_node("Sigmoid", ["x"], ["y"], name="sig")],
                                      [vi("x", f, [1, 8])], [vi("y", f, None)]),
        "unknown_default_op.onnx": tiny([relu, helper.make_node("Fancy", ["y"], ["z"], name="f")],
                                        [vi("x", f, [1, 8])], [vi("z", f, None)]),
        "conv_stride_zero.onnx": conv({"strides": [0, 1]}),
        "maxpool_stride_zero.onnx": conv({"kernel_shape": [2, 2], "strides": [0, 0]}, w=None,
                                         op="MaxPool", name="pool"),
        "conv_dilation_zero.onnx": conv({"dilations": [1, 0]}),
        "conv_group_zero.onnx": conv({"group": 0}),
        "conv_group_not_dividing.onnx": conv({"group": 3}, x=(1, 4, 8, 8), w=(6, 1, 3, 3)),
        "conv_negative_pad.onnx": conv({"pads": [-2, 0, 0, 0]}),
        "conv_kernel_too_large.onnx": conv({}, x=(1, 4, 3, 3), w=(8, 4, 7, 7)),
        "conv_name_escapes.onnx": conv({"strides": [0, 1]},
                                       name="c\nnpusim: error: forged \x1b[31mred"),
        "gemm_k_mismatch.onnx": tiny(
            [helper.make_node("Gemm", ["a", "b"], ["y"], name="fc")],
            [vi("a", f, [10, 64])], [vi("y", f, None)],
            [helper.make_tensor("b", f, [65, 10], [0.0] * 650)]),
        "output_overwrites_input.onnx": tiny(
            [helper.make_node("Relu", ["x"], ["t"], name="act"),
             helper.make_node("Sigmoid", ["t"], ["x"], name="sig")],
            [vi("x", f, [1, 8])], [vi("t", f, None)]),
        "duplicate_inputs.onnx": tiny([relu], [vi("x", f, [1, 8]), vi("x", f, [1, 8])],
                                      [vi("y", f, None)]),
        "if_on_data.onnx": if_on_data(),
        "loop_on_data.onnx": loop_on_data(),
        "loop_too_long.onnx": loop_too_long(),
        "external_absolute.onnx": external("/etc/passwd"),
        "external_outside.onnx": external("weights/../../secret.bin"),
        "buffer_over_cap.onnx": tiny([relu], [vi("x", f, [1 << 20, 1 << 17])],
                                     [vi("y", f, None)]),
        "data_dependent_shape.onnx": tiny(
            [relu, helper.make_node("NonZero", ["y"], ["z"], name="nz")],
            [vi("x", f, [1, 8])], [vi("z", TensorProto.INT64, None)]),
    }


def feature_model(nodes, inputs, inits=(), opset=OPSET, outputs=("y",)):
    f = TensorProto.FLOAT
    outs = [helper.make_tensor_value_info(*(o if isinstance(o, tuple) else (o, f)), None)
            for o in outputs]
    graph = helper.make_graph(nodes, "feature", inputs, outs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def zeros(name, dims, dtype=TensorProto.FLOAT):
    """A weight: inline when small, else external data that is not written (shape only)."""
    if _prod(dims) <= 1024:
        return helper.make_tensor(name, dtype, dims, [0] * _prod(dims))
    t = TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "weights.bin"), ("offset", "0"),
                       ("length", str(4 * _prod(dims)))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def loop_model(trips, until):
    """A Loop of `trips` iterations (a constant trip count), each a 256 x 256 matmul of the
    carried state and a ReLU whose result is also a scan output; with `until`, the body's
    condition (iteration + 1 < until) stops it after `until` iterations."""
    f, i64, b = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
    vi, mk = helper.make_tensor_value_info, helper.make_node
    nodes = [mk("MatMul", ["state", "w"], ["h"], name="step"),
             mk("Relu", ["h"], ["next"], name="act"),
             mk("Identity", ["next"], ["scan"], name="emit")]
    if until is None:
        nodes.append(mk("Identity", ["cond_in"], ["cond_out"], name="again"))
    else:
        nodes += [mk("Add", ["i", "one"], ["done"], name="count"),
                  mk("Less", ["done", "until"], ["cond_out"], name="again")]
    body = helper.make_graph(nodes, "body", [vi("i", i64, []), vi("cond_in", b, []),
                                              vi("state", f, [1, 256])],
                             [vi("cond_out", b, []), vi("next", f, [1, 256]),
                              vi("scan", f, [1, 256])])
    return feature_model(
        [mk("Loop", ["trips", "go", "x"], ["y", "steps"], name="repeat", body=body)],
        [vi("x", f, [1, 256])],
        [helper.make_tensor("trips", i64, [], [trips]), helper.make_tensor("go", b, [], [1]),
         helper.make_tensor("one", i64, [], [1]), helper.make_tensor("until", i64, [], [until or 0]),
         zeros("w", [256, 256])], outputs=("y", "steps"))


def features():
    """Models of the import's features for its tests: name -> ModelProto."""
    f, vi, mk = TensorProto.FLOAT, helper.make_tensor_value_info, helper.make_node
    image = [vi("x", f, ["batch", 64, 56, 56])]
    then = helper.make_graph([mk("Conv", ["x", "w"], ["t"], name="then_conv", pads=[1, 1, 1, 1])],
                             "then", [], [vi("t", f, None)])
    other = helper.make_graph([mk("Relu", ["x"], ["e"], name="else_relu")], "else", [],
                              [vi("e", f, None)])
    chain = [mk("Relu", ["x"], ["c0"], name="op0")]
    for i in range(1, 10000):
        op, ins = ("Add", ["c%d" % (i - 1), "bias"]) if i % 2 else ("Sigmoid", ["c%d" % (i - 1)])
        chain.append(mk(op, ins, ["c%d" % i if i < 9999 else "y"], name="op%d" % i))
    seq = [vi("x", f, [32, "batch", 128])]
    q = [mk("QuantizeLinear", ["x", "s", "z"], ["xq"], name="quant"),
         mk("QLinearConv", ["xq", "s", "z", "wq", "s", "z", "s", "z"], ["yq"], name="qconv"),
         mk("ConvInteger", ["xq", "wq"], ["yi"], name="iconv"),
         mk("DequantizeLinear", ["yq", "s", "z"], ["y"], name="dequant")]
    q_inits = [helper.make_tensor("s", f, [], [0.1]), helper.make_tensor("z", TensorProto.UINT8, [], [0]),
               zeros("wq", [64, 64, 3, 3], TensorProto.UINT8)]
    return {
        "loop_const": loop_model(trips=4, until=None),
        "loop_early_exit": loop_model(trips=10, until=3),
        "if_const": feature_model(
            [mk("Shape", ["x"], ["shape"], name="shape"),
             mk("Gather", ["shape", "zero"], ["n"], name="first", axis=0),
             mk("Equal", ["n", "one"], ["cond"], name="is_one"),
             mk("If", ["cond"], ["y"], name="branch", then_branch=then, else_branch=other)],
            image, [zeros("w", [64, 64, 3, 3]), helper.make_tensor("zero", TensorProto.INT64, [], [0]),
                    helper.make_tensor("one", TensorProto.INT64, [], [1])]),
        "chain10k": feature_model(chain, [vi("x", f, [1, 4096])], [zeros("bias", [4096])]),
        "recurrent": feature_model(
            [mk("LSTM", ["x", "wl", "rl"], ["l"], name="lstm", hidden_size=256,
                direction="bidirectional"),
             mk("GRU", ["x", "wg", "rg"], ["g"], name="gru", hidden_size=256),
             mk("RNN", ["x", "wr", "rr"], ["y"], name="rnn", hidden_size=64)],
            seq, [zeros("wl", [2, 1024, 128]), zeros("rl", [2, 1024, 256]),
                  zeros("wg", [1, 768, 128]), zeros("rg", [1, 768, 256]),
                  zeros("wr", [1, 64, 128]), zeros("rr", [1, 64, 64])], outputs=("l", "g", "y")),
        "einsum": feature_model(
            [mk("Einsum", ["q", "k"], ["s"], name="scores", equation="bhqd,bhkd->bhqk"),
             mk("Einsum", ["s", "v"], ["y"], name="mix", equation="...qk,...kd->...qd")],
            [vi("q", f, [1, 12, 128, 64]), vi("k", f, [1, 12, 128, 64]),
             vi("v", f, [1, 12, 128, 64])]),
        "quantized": feature_model(q, [vi("x", f, [1, 64, 28, 28])], q_inits,
                                   outputs=("y", ("yi", TensorProto.INT32))),
        "opset18": feature_model(
            [mk("ReduceMean", ["x", "axes"], ["m"], name="mean", keepdims=1),
             mk("Split", ["m"], ["a", "b"], name="halves", axis=1, num_outputs=2),
             mk("Add", ["a", "b"], ["y"], name="sum")],
            [vi("x", f, [1, 64, 32, 32])], [helper.make_tensor("axes", TensorProto.INT64, [1], [3])],
            opset=18),
        "huge_rows": feature_model(
            [mk("GlobalAveragePool", ["x"], ["p"], name="gap"),
             mk("Reshape", ["x", "flat"], ["r"], name="flat"),
             mk("Softmax", ["r"], ["s"], name="softmax", axis=-1),
             mk("LayerNormalization", ["s", "gamma", "beta"], ["y"], name="norm", axis=-1)],
            [vi("x", f, [1, 64, 320, 320])],
            [helper.make_tensor("flat", TensorProto.INT64, [2], [1, -1]),
             zeros("gamma", [64 * 320 * 320]), zeros("beta", [64 * 320 * 320])],
            outputs=("y", "p")),
        "generic": feature_model(
            [mk("GridSample", ["x", "grid"], ["g"], name="sample"),
             mk("Det", ["m"], ["y"], name="det")],
            [vi("x", f, [1, 8, 32, 32]), vi("grid", f, [1, 16, 16, 2]), vi("m", f, [4, 3, 3])],
            outputs=("g", "y")),
    }


def conv_gemm_macs(path, batch):
    """(node name, MACs) of every Conv, Gemm and MatMul of a model, from ONNX's own shape
    inference with the first input dimension bound to `batch`: a count independent of
    npusim's import, for its tests."""
    model = onnx.load(path, load_external_data=False)
    for value in model.graph.input:
        dims = value.type.tensor_type.shape.dim
        if dims and not dims[0].HasField("dim_value"):
            dims[0].dim_value = batch
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(model.graph.value_info) + list(model.graph.input) +
              list(model.graph.output)}
    shapes.update({t.name: list(t.dims) for t in model.graph.initializer})
    for node in model.graph.node:
        if node.op_type == "Conv":
            w, y = shapes[node.input[1]], shapes[node.output[0]]
            yield node.name, _prod(y) * _prod(w[1:])  # each output: C/group x window MACs
        elif node.op_type in ("Gemm", "MatMul"):
            a, y = shapes[node.input[0]], shapes[node.output[0]]
            yield node.name, _prod(y) * a[-1 if node.op_type == "MatMul" else 1]


MODELS = {"resnet50": resnet50, "mobilenetv2": mobilenetv2, "bert_layer": bert_layer,
          "decoder_kv": decoder_kv}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder to write the .onnx files into")
    parser.add_argument("--bad", action="store_true",
                        help="write the malformed models of tests/bad_inputs/onnx instead")
    parser.add_argument("--features", action="store_true",
                        help="write the models of the import's features (its tests) instead")
    parser.add_argument("--macs", metavar="MODEL",
                        help="print `node MACs` for each Conv, Gemm and MatMul of MODEL instead")
    parser.add_argument("--batch", type=int, default=1, help="with --macs: the batch size")
    parser.add_argument("names", nargs="*", help="models to write (default: all)")
    args = parser.parse_args()
    if args.macs:
        for name, macs in conv_gemm_macs(args.macs, args.batch):
            print(name, macs)
        return
    if not args.out:
        parser.error("--out DIR is required")
    os.makedirs(args.out, exist_ok=True)
    if args.bad:
        for name, data in bad_models().items():
            with open(os.path.join(args.out, name), "wb") as f:
                f.write(data)
        return
    if args.features:
        for name, model in features().items():
            if not args.names or name in args.names:
                with open(os.path.join(args.out, name + ".onnx"), "wb") as f:
                    f.write(model.SerializeToString())
        return
    for name in args.names or MODELS:
        if name not in MODELS:
            sys.exit("unknown model %r; expected one of %s" % (name, ", ".join(MODELS)))
        model = MODELS[name]()
        path = os.path.join(args.out, name + ".onnx")
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(model.SerializeToString())
        os.replace(tmp, path)
        print("%-12s %6d bytes, %d nodes" % (name, os.path.getsize(path), len(model.graph.node)))


if __name__ == "__main__":
    main()
