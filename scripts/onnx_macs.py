#!/usr/bin/python3
"""Counts the multiply-accumulates of an ONNX model from its graph alone (Debian's
python3-onnx and numpy), independently of npusim: the reference that scripts/zoo.sh and the
model-zoo test compare npusim's simulated MACs with.

Shapes come from ONNX's own shape inference, run to a fixpoint with a small numpy evaluator
of the shape arithmetic exporters emit (Shape, Gather, Slice, Concat, Cast, Range, ...), so
that Reshape targets computed from the input's shape resolve. An If whose condition folds
to a constant counts its taken branch; a Loop whose trip count and condition fold is
unrolled, one iteration per round, so its body counts once per iteration it runs.

MACs per op: Conv, ConvInteger, QLinearConv: output elements x (C / group) x kernel;
ConvTranspose: input elements x (K / group) x kernel; MatMul, MatMulInteger, QLinearMatMul,
Gemm: output elements x K; Einsum: the product of every index extent of each pairwise
contraction; LSTM, GRU, RNN: directions x steps x batch x gates x hidden x (input + hidden).

Unbound dimensions are taken as 1, as npusim import takes them.

Usage: onnx_macs.py MODEL.onnx [--batch N] [--dim NAME=V]... [--shape INPUT=AxBxC]...
       [--per-node]
Prints the total (and with --per-node, `MACs op node` lines first).
"""

import argparse
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

MAX_FOLD_ELEMENTS = 1 << 20


def prod(values):
    p = 1
    for v in values:
        p *= int(v)
    return p


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def dims_of(type_proto):
    if not type_proto.HasField("tensor_type") or not type_proto.tensor_type.HasField("shape"):
        return None
    dims = []
    for d in type_proto.tensor_type.shape.dim:
        if not d.HasField("dim_value") or d.dim_value < 0:
            return None
        dims.append(d.dim_value)
    return dims


class Folder:
    """numpy evaluation of the small integer arithmetic on shapes."""

    def __init__(self, shapes, values):
        self.shapes = shapes
        self.values = values

    def inputs(self, node):
        return [self.values.get(t) if t else None for t in node.input]

    def run(self, node):  # noqa: C901 - one branch per op, kept together
        op = node.op_type
        x = self.inputs(node)
        if op == "Constant":
            t = attr(node, "value")
            if t is not None:
                return [numpy_helper.to_array(t)]
            for key in ("value_int", "value_float"):
                v = attr(node, key)
                if v is not None:
                    return [np.array(v)]
            for key in ("value_ints", "value_floats"):
                v = attr(node, key)
                if v is not None:
                    return [np.array(v)]
            return None
        if op in ("Shape", "Size"):
            s = self.shapes.get(node.input[0])
            if s is None:
                return None
            if op == "Size":
                return [np.array(prod(s), dtype=np.int64)]
            start, end = attr(node, "start", 0), attr(node, "end", len(s))
            return [np.array(s[start:end], dtype=np.int64)]
        if any(v is None for i, v in enumerate(x) if node.input[i]):
            return None
        if op in ("Identity",):
            return [x[0]]
        if op == "Cast":
            to = attr(node, "to")
            return [x[0].astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[to])]
        if op == "Gather":
            return [np.take(x[0], x[1], axis=attr(node, "axis", 0))]
        if op == "Unsqueeze":
            axes = attr(node, "axes") if len(x) < 2 else list(x[1])
            out = x[0]
            rank = out.ndim + len(axes)
            for a in sorted(a + rank if a < 0 else a for a in axes):
                out = np.expand_dims(out, a)
            return [out]
        if op == "Squeeze":
            axes = attr(node, "axes") if len(x) < 2 else list(x[1])
            return [np.squeeze(x[0], axis=tuple(axes) if axes is not None else None)]
        if op == "Concat":
            return [np.concatenate([np.atleast_1d(v) for v in x], axis=attr(node, "axis", 0))]
        if op == "Slice":
            data = x[0]
            if len(x) == 1:
                starts, ends, axes = attr(node, "starts"), attr(node, "ends"), attr(node, "axes")
                steps = None
            else:
                starts, ends = list(x[1]), list(x[2])
                axes = list(x[3]) if len(x) > 3 and x[3] is not None else None
                steps = list(x[4]) if len(x) > 4 and x[4] is not None else None
            axes = axes if axes is not None else list(range(len(starts)))
            steps = steps if steps is not None else [1] * len(starts)
            index = [slice(None)] * data.ndim
            for s, e, a, st in zip(starts, ends, axes, steps):
                index[a] = slice(int(max(min(s, 2**62), -2**62)), int(max(min(e, 2**62), -2**62)),
                                 int(st))
            return [data[tuple(index)]]
        binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
                  "Equal": np.equal, "Less": np.less, "Greater": np.greater,
                  "LessOrEqual": np.less_equal, "GreaterOrEqual": np.greater_equal,
                  "And": np.logical_and, "Or": np.logical_or, "Max": np.maximum,
                  "Min": np.minimum, "Pow": np.power}
        if op in binary:
            out = x[0]
            for v in x[1:]:
                out = binary[op](out, v)
            return [np.asarray(out).astype(x[0].dtype) if op not in (
                "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or")
                else np.asarray(out)]
        if op == "Div":
            if np.issubdtype(x[0].dtype, np.integer):
                return [np.trunc(x[0] / x[1]).astype(x[0].dtype)]
            return [np.asarray(x[0] / x[1]).astype(x[0].dtype)]
        if op == "Mod":
            return [np.fmod(x[0], x[1]) if attr(node, "fmod", 0) else np.mod(x[0], x[1])]
        unary = {"Neg": np.negative, "Abs": np.abs, "Not": np.logical_not, "Sqrt": np.sqrt,
                 "Floor": np.floor, "Ceil": np.ceil, "Reciprocal": np.reciprocal}
        if op in unary:
            return [np.asarray(unary[op](x[0])).astype(x[0].dtype)]
        if op == "Range":
            return [np.arange(x[0], x[1], x[2]).astype(x[0].dtype)]
        if op == "ConstantOfShape":
            t = attr(node, "value")
            fill = numpy_helper.to_array(t).reshape(-1)[0] if t is not None else np.float32(0)
            shape = [int(v) for v in x[0]]
            if prod(shape) > MAX_FOLD_ELEMENTS:
                return None
            return [np.full(shape, fill, dtype=np.asarray(fill).dtype)]
        if op == "Expand":
            shape = np.broadcast_shapes(x[0].shape, tuple(int(v) for v in x[1]))
            return [np.broadcast_to(x[0], shape).copy()]
        if op == "Where":
            return [np.where(x[0], x[1], x[2])]
        if op == "Reshape":
            shape = [int(v) for v in x[1]]
            shape = [x[0].shape[i] if v == 0 and not attr(node, "allowzero", 0) else v
                     for i, v in enumerate(shape)]
            return [x[0].reshape(shape)]
        if op == "Transpose":
            return [np.transpose(x[0], attr(node, "perm"))]
        if op == "Tile":
            return [np.tile(x[0], [int(v) for v in x[1]])]
        if op.startswith("Reduce"):
            axes = attr(node, "axes") if len(x) < 2 else [int(v) for v in x[1]]
            keep = bool(attr(node, "keepdims", 1))
            fn = {"ReduceProd": np.prod, "ReduceSum": np.sum, "ReduceMax": np.max,
                  "ReduceMin": np.min, "ReduceMean": np.mean}.get(op)
            if fn is None:
                return None
            return [np.asarray(fn(x[0], axis=tuple(axes) if axes else None, keepdims=keep))]
        return None


def bind_inputs(model, args):
    dims = dict(kv.split("=", 1) for kv in args.dim)
    shapes = {k: [int(v) for v in s.split("x")]
              for k, s in (kv.split("=", 1) for kv in args.shape)}
    inits = {t.name for t in model.graph.initializer}
    for value in model.graph.input:
        if value.name in inits:
            continue
        t = value.type.tensor_type
        if value.name in shapes:
            t.ClearField("shape")
            for v in shapes[value.name]:
                t.shape.dim.add().dim_value = v
            continue
        for i, d in enumerate(t.shape.dim):
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = int(dims[d.dim_param])
            elif i == 0 and args.batch:
                d.dim_value = args.batch
            elif not d.HasField("dim_value"):
                d.dim_value = 1  # unbound: 1, as npusim import takes it
    del model.graph.value_info[:]
    for output in model.graph.output:
        output.type.tensor_type.ClearField("shape")


def inline_control_flow(graph, values, opset, loops):
    """Replaces If nodes whose condition is known by their taken branch, and unrolls one
    iteration of each Loop whose trip count and condition are known (`loops` keeps each
    Loop's iteration and scan values between rounds); returns True if any."""
    changed = False
    nodes = []
    for node in graph.node:
        if node.op_type == "Loop":
            step = unroll_step(graph, node, values, opset, loops)
            nodes.extend(step or [node])
            changed |= step is not None
            continue
        cond = values.get(node.input[0]) if node.op_type == "If" else None
        if cond is None:
            nodes.append(node)
            continue
        branch = attr(node, "then_branch" if bool(np.asarray(cond).reshape(-1)[0])
                      else "else_branch")
        rename = {}
        for inner in branch.node:
            copy = onnx.NodeProto()
            copy.CopyFrom(inner)
            nodes.append(copy)
        for out_inner, out_outer in zip(branch.output, node.output):
            rename[out_inner.name] = out_outer
        for t in branch.initializer:
            graph.initializer.append(t)
        for n in nodes[len(nodes) - len(branch.node):]:
            for i, name in enumerate(n.output):
                if name in rename:
                    n.output[i] = rename[name]
        # A branch output that is an outer tensor directly: an Identity.
        produced = {o for n in branch.node for o in n.output}
        for out_inner, out_outer in zip(branch.output, node.output):
            if out_inner.name not in produced:
                nodes.append(helper.make_node("Identity", [out_inner.name], [out_outer]))
        changed = True
    if changed:
        del graph.node[:]
        graph.node.extend(nodes)
    return changed


def constant(graph, values, name, array):
    graph.initializer.append(numpy_helper.from_array(array, name))
    values[name] = array
    return name


def unroll_step(graph, node, values, opset, loops):
    """The nodes of the next iteration of a Loop and the Loop for the rest, or once its trip
    count is spent or its condition false the nodes giving its outputs; None while its trip
    count or condition is unknown."""
    body = attr(node, "body")
    ins = list(node.input) + [""] * (2 - min(len(node.input), 2))
    trips, cond = ins[0], ins[1]
    if body is None or (not trips and not cond) or any(t and t not in values for t in (trips, cond)):
        return None
    carried = ins[2:]
    key = (node.name, tuple(node.output))
    k, scans = loops.get(key, (0, [[] for _ in body.output[1 + len(carried):]]))
    go = not trips or int(np.asarray(values[trips]).reshape(-1)[0]) > 0
    if go and cond:
        go = bool(np.asarray(values[cond]).reshape(-1)[0])
    prefix = "%s/%d/" % (node.name or "loop", k)
    if not go:
        out = [helper.make_node("Identity", [c], [o]) for c, o in zip(carried, node.output) if o]
        for parts, result in zip(scans, node.output[len(carried):]):
            if result and parts:
                names = [p + "/scan" for p in parts]
                if opset >= 13:
                    axes = constant(graph, values, prefix + "axes", np.array([0], dtype=np.int64))
                    out += [helper.make_node("Unsqueeze", [p, axes], [n]) for p, n in zip(parts, names)]
                else:
                    out += [helper.make_node("Unsqueeze", [p], [n], axes=[0])
                            for p, n in zip(parts, names)]
                out.append(helper.make_node("Concat", names, [result], axis=0))
        return out
    rename = {}
    if body.input[0].name:
        rename[body.input[0].name] = constant(graph, values, prefix + "i", np.array(k, dtype=np.int64))
    if body.input[1].name:
        rename[body.input[1].name] = cond or constant(graph, values, prefix + "true", np.array(True))
    for inner, outer in zip(body.input[2:], carried):
        rename[inner.name] = outer
    for t in body.initializer:
        copy = onnx.TensorProto()
        copy.CopyFrom(t)
        copy.name = rename[t.name] = prefix + t.name
        graph.initializer.append(copy)
    for inner in body.node:
        for o in inner.output:
            rename[o] = prefix + o
    out = []
    for inner in body.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(inner)
        copy.input[:] = [rename.get(i, i) for i in inner.input]
        copy.output[:] = [rename.get(o, o) for o in inner.output]
        out.append(copy)
    results = [rename.get(o.name, o.name) for o in body.output]
    rest = onnx.NodeProto()
    rest.CopyFrom(node)
    left = int(np.asarray(values[trips]).reshape(-1)[0]) - 1 if trips else 0
    rest.input[:] = ([constant(graph, values, prefix + "left", np.array(left, dtype=np.int64))
                      if trips else "", results[0] if cond else ""] + results[1:1 + len(carried)])
    loops[key] = (k + 1, [s + [r] for s, r in zip(scans, results[1 + len(carried):])])
    return out + [rest]


def fold_model(model):
    """Shape inference and folding to a fixpoint: (shapes, values, model)."""
    values = {}
    for t in model.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL and prod(t.dims) <= MAX_FOLD_ELEMENTS:
            try:
                values[t.name] = numpy_helper.to_array(t)
            except Exception:  # noqa: BLE001 - an odd tensor: not foldable
                pass
    opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [1])
    loops = {}
    for _ in range(1000):  # a round per Loop iteration
        try:
            inferred = shape_inference.infer_shapes(model, data_prop=True)
        except Exception:  # noqa: BLE001 - keep what we have
            inferred = model
        shapes = {t.name: list(t.dims) for t in inferred.graph.initializer}
        for v in list(inferred.graph.input) + list(inferred.graph.value_info) + list(
                inferred.graph.output):
            d = dims_of(v.type)
            if d is not None:
                shapes[v.name] = d
        einsum_shapes(inferred, shapes, model)
        folder = Folder(shapes, values)
        new = 0
        for node in inferred.graph.node:
            if all(o in values for o in node.output if o):
                continue
            try:
                out = folder.run(node)
            except Exception:  # noqa: BLE001 - not foldable
                out = None
            if out is None:
                continue
            for name, v in zip(node.output, out):
                if name and name not in values and np.asarray(v).size <= MAX_FOLD_ELEMENTS:
                    values[name] = np.asarray(v)
                    new += 1
        changed = inline_control_flow(model.graph, values, opset, loops)
        if not new and not changed:
            return shapes, values, inferred
        # Folded tensors become initializers: shape inference sees their values.
        folded = {t.name for t in model.graph.initializer}
        keep = []
        for node in model.graph.node:
            if node.output and all(o in values for o in node.output if o) and node.op_type not in (
                    "If", "Loop"):
                for o in node.output:
                    if o and o not in folded:
                        model.graph.initializer.append(numpy_helper.from_array(values[o], o))
                        folded.add(o)
                continue
            keep.append(node)
        del model.graph.node[:]
        model.graph.node.extend(keep)
    return shapes, values, inferred


def einsum_letters(node, shapes):
    """(operand terms, result term, index extents) with ellipses spelled out, or None."""
    eq = attr(node, "equation")
    eq = (eq.decode() if isinstance(eq, bytes) else eq).replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if any(n not in shapes for n in node.input) or len(terms) != len(node.input):
        return None
    longest = max([len(shapes[n]) - len(t) + 3 for t, n in zip(terms, node.input) if "..." in t]
                  or [0])
    size, expanded = {}, []
    for term, name in zip(terms, node.input):
        s = shapes[name]
        if "..." in term:
            head, tail = term.split("...")
            ell = len(s) - len(head) - len(tail)  # right-aligned, as numpy broadcasts
            term = head + "".join(chr(0x100 + longest - ell + i) for i in range(ell)) + tail
        expanded.append(term)
        for letter, extent in zip(term, s):
            size[letter] = max(size.get(letter, 1), extent)
    ell = "".join(chr(0x100 + i) for i in range(longest))
    if not arrow:  # implicit: the ellipsis, then letters seen once, in order
        once = sorted(c for c in set("".join(terms)) if "".join(terms).count(c) == 1
                      and c.isalpha())
        rhs = ell + "".join(once)
    return expanded, rhs.replace("...", ell), size


def einsum_shapes(inferred, shapes, model):
    """Einsum results ONNX's inference leaves without extents."""
    for node in inferred.graph.node:
        if node.op_type != "Einsum" or node.output[0] in shapes:
            continue
        letters = einsum_letters(node, shapes)
        if letters is None:
            continue
        dims = [letters[2][c] for c in letters[1]]
        shapes[node.output[0]] = dims
        model.graph.value_info.append(
            helper.make_tensor_value_info(node.output[0], onnx.TensorProto.FLOAT, dims))


def einsum_macs(node, shapes):
    letters = einsum_letters(node, shapes)
    if letters is None or len(letters[0]) < 2:
        return 0
    terms, rhs, size = letters
    total = 0
    current = set(terms[0])
    for i in range(1, len(terms)):
        nxt = set(terms[i])
        total += prod(size[c] for c in current | nxt if c in size)
        later = set("".join(terms[i + 1:]) + rhs)
        current = {c for c in current | nxt if c in later}
    return total


def conv_outputs(node, x, w):
    """Output elements of a convolution from its attributes (ONNX's formula)."""
    spatial = len(x) - 2
    strides = attr(node, "strides") or [1] * spatial
    dilations = attr(node, "dilations") or [1] * spatial
    pads = list(attr(node, "pads") or [0] * (2 * spatial))
    auto = attr(node, "auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    out = x[0] * w[0]
    for i in range(spatial):
        window = (w[2 + i] - 1) * dilations[i] + 1
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            extent = -(-x[2 + i] // strides[i])
        elif auto == "VALID":
            extent = (x[2 + i] - window) // strides[i] + 1
        else:
            extent = (x[2 + i] + pads[i] + pads[i + spatial] - window) // strides[i] + 1
        out *= extent
    return out


MAC_OPS = ("Conv", "ConvInteger", "QLinearConv", "ConvTranspose", "MatMul", "MatMulInteger",
           "QLinearMatMul", "Gemm", "Einsum", "LSTM", "GRU", "RNN")


def node_macs(node, shapes, opset):
    op = node.op_type
    s = shapes.get

    def need(*names):
        return all(n and s(n) is not None for n in names)

    if op in ("Conv", "ConvInteger", "QLinearConv"):
        x, w = node.input[0], node.input[3 if op == "QLinearConv" else 1]
        if need(x, w):
            return conv_outputs(node, s(x), s(w)) * prod(s(w)[1:])
        return 0
    if op == "ConvTranspose" and need(node.input[0], node.input[1]):
        return prod(s(node.input[0])) * prod(s(node.input[1])[1:])
    if op in ("MatMul", "MatMulInteger", "QLinearMatMul") and need(node.input[0], node.output[0]):
        return prod(s(node.output[0])) * s(node.input[0])[-1]
    if op == "Gemm" and need(node.input[0], node.output[0]):
        a = s(node.input[0])
        return prod(s(node.output[0])) * (a[0] if attr(node, "transA", 0) else a[1])
    if op == "Einsum" and need(*node.input):
        return einsum_macs(node, shapes)
    if op in ("LSTM", "GRU", "RNN") and need(node.input[0], node.input[1], node.input[2]):
        x, w, r = s(node.input[0]), s(node.input[1]), s(node.input[2])
        steps, batch = (x[1], x[0]) if attr(node, "layout", 0) else (x[0], x[1])
        return w[0] * steps * batch * w[1] * (w[2] + r[2])
    return 0


def count(model, per_node=False):
    opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [1])
    shapes, values, inferred = fold_model(model)
    total = 0
    lines = []
    unknown = []
    for node in inferred.graph.node:
        m = node_macs(node, shapes, opset)
        if node.op_type in MAC_OPS and not m:
            unknown.append("%s %s" % (node.op_type, node.name))
        if m:
            lines.append("%d %s %s" % (m, node.op_type, node.name))
        total += m
    if per_node:
        print("\n".join(lines))
    for u in unknown:
        print("onnx_macs: shapes unknown, not counted: %s" % u, file=sys.stderr)
    return total, len(unknown)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--batch", type=int, default=0)
    parser.add_argument("--dim", action="append", default=[])
    parser.add_argument("--shape", action="append", default=[])
    parser.add_argument("--per-node", action="store_true")
    args = parser.parse_args()
    model = onnx.load(args.model, load_external_data=False)
    bind_inputs(model, args)
    total, unknown = count(model, args.per_node)
    print(total)
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
