#!/usr/bin/python3
"""Generates the realistic-workload testbenches in testbenches/workloads/ from compact
layer lists with the shapes of their papers:

  resnet50_b1, resnet50_b8        ResNet-50 v1.5 inference (He et al. 2015, Table 1)
  mobilenetv2_b1, mobilenetv2_b8  MobileNetV2 1.0 inference (Sandler et al. 2018, Table 2)
  bert_base_layer                 one BERT-base encoder layer, seq 128 (Devlin et al. 2019)
  llm_decode_step                 one decode step of a Llama-3.2-1B-class model, 512 cached tokens
  llm7b_decode                    one decode step of Llama 2 7B, 2048 cached tokens (Touvron 2023)
  llm7b_prefill                   the prefill of a 512-token prompt through Llama 2 7B

Every layer is a launch, asynchronous on one stream; the input is copied host -> device
at the start and the result back at the end, then the host synchronises the stream.
The script prints each workload's MACs and weights and asserts them against the
published figures.

  scripts/gen_workloads.py            write the files
  scripts/gen_workloads.py --check    exit 1 if a committed file differs from what the
                                      script would write (a test runs this)
Standard library only.
"""

import argparse
import os
import sys

DTYPE_BYTES = {"int8": 1, "fp16": 2, "bf16": 2, "fp32": 4}

# Binary sizes per op kind (estimates: a compiled NPU kernel is a few KiB of
# address-generation loops and a hot inner loop; windowed convs need more of them).
BINARY_BYTES = {
    "conv2d_1x1": 8 << 10,
    "conv2d_3x3": 12 << 10,
    "conv2d_7x7": 16 << 10,
    "depthwise_conv2d": 6 << 10,
    "pool": 3 << 10,
    "fully_connected": 8 << 10,
    "matmul": 8 << 10,
    "gemv": 6 << 10,
    "elementwise": 2 << 10,
    "activation": 4 << 10,  # GELU, SiLU: polynomial or table approximations
    "softmax": 4 << 10,
    "layernorm": 4 << 10,
}

# A kernel with at least this many MACs or vector operations is split over every unit
# of the config it runs on (NPU compilers split large layers across cores; a kernel's
# `units` defaults to all); smaller ones run on one unit (`units: 1`).
SPLIT_OPS = 1 << 18


def out_hw(h, r, stride, pad):
    return (h + 2 * pad - r) // stride + 1


def op_geometry(op):
    """(output elements, weight elements, MACs, vector operations) of one op."""
    kind = op["op"]
    if kind in ("conv2d", "depthwise_conv2d", "pool"):
        pad = op.get("pad", op["r"] // 2) if kind != "pool" else 0
        stride = op.get("stride", 1)
        ho = out_hw(op["h"], op["r"], stride, pad)
        wo = out_hw(op["w"], op["s"], stride, pad)
        assert ho > 0 and wo > 0, op
        window = op["r"] * op["s"]
        if kind == "conv2d":
            out = op["n"] * ho * wo * op["k"]
            return out, op["c"] * window * op["k"], out * op["c"] * window, 0
        out = op["n"] * ho * wo * op["c"]
        if kind == "depthwise_conv2d":
            return out, op["c"] * window, out * window, 0
        return out, 0, 0, out * window
    if kind == "matmul":
        return op["m"] * op["n"], op["k"] * op["n"], op["m"] * op["n"] * op["k"], 0
    if kind == "fully_connected":
        return op["n"] * op["out"], op["in"] * op["out"], op["n"] * op["in"] * op["out"], 0
    if kind == "elementwise":
        return op["elements"], 0, 0, op["elements"]
    if kind in ("softmax", "layernorm"):
        out = op["rows"] * op["cols"]
        return out, (2 * op["cols"] if kind == "layernorm" else 0), 0, 3 * out
    raise ValueError(kind)


class Tensor:
    """An activation produced by one step and read by later ones; lives in a pooled slot."""

    def __init__(self, name, size):
        self.name = name
        self.size = size
        self.slot = None


class Net:
    """A workload: kernels, weight buffers, and a program of steps on one stream."""

    def __init__(self, name, comment, stream="infer"):
        self.name = name
        self.comment = comment
        self.stream = stream
        self.kernels = {}  # name -> op dict (with binary, units)
        self.buffers = {}  # fixed buffers: name -> (bytes, memory)
        self.steps = []  # (kind, fields, [input tensors], output tensor or None)
        self.macs = 0
        self.weight_elements = 0
        self.launches = 0

    def kernel(self, name, binary, **op):
        assert name not in self.kernels, name
        op = {k.rstrip("_"): v for k, v in op.items()}  # in_ -> in
        _, _, macs, vector = op_geometry(op)
        self.kernels[name] = dict(op, binary=binary) if max(macs, vector) >= SPLIT_OPS else dict(
            op, binary=binary, units=1)
        return name

    def buffer(self, name, size, memory="ddr"):
        assert name not in self.buffers, name
        self.buffers[name] = (size, memory)
        return name

    def launch(self, kernel, inputs, weights=None, out=None):
        """Launches `kernel` on `inputs` (tensors or buffer names) and its weight buffer;
        returns the output tensor (a new activation unless `out` names a buffer)."""
        op = self.kernels[kernel]
        out_elems, _, macs, _ = op_geometry(op)
        self.macs += macs
        self.launches += 1
        args = list(inputs) + ([weights] if weights else [])
        result = out if out else Tensor(kernel, out_elems * DTYPE_BYTES[op["dtype"]])
        self.steps.append(("launch", {"kernel": kernel}, args, result))
        return result

    def weights(self, name, kernel):
        """A weight buffer for `kernel` (its weight elements in its dtype)."""
        op = self.kernels[kernel]
        elems = op_geometry(op)[1]
        self.weight_elements += elems if op["op"] != "layernorm" else 0
        return self.buffer("w_" + name, elems * DTYPE_BYTES[op["dtype"]])

    def layer(self, name, binary, x, **op):
        """A kernel of its own with its own weights, launched once on `x`."""
        self.kernel(name, binary, **op)
        w = self.weights(name, name) if op_geometry(self.kernels[name])[1] else None
        return self.launch(name, [x], w)

    def conv(self, name, x, n, c, hw, k, r, stride=1):
        """An int8 conv2d layer of k r x r filters on an n x hw x hw x c input."""
        op = dict(op="conv2d", n=n, c=c, h=hw, w=hw, k=k, r=r, s=r)
        if stride != 1:
            op["stride"] = stride
        return self.layer(name, BINARY_BYTES["conv2d_%dx%d" % (r, r)], x, dtype="int8", **op)

    def add(self, name, a, b, elements=None, dtype="int8"):
        """A residual add of activations a and b (`elements` of `dtype`; by default as many
        as `a` holds) as a kernel of its own."""
        elements = elements or a.size // DTYPE_BYTES[dtype]
        self.kernel(name, BINARY_BYTES["elementwise"], op="elementwise", elements=elements,
                    inputs=2, dtype=dtype)
        return self.launch(name, [a, b])

    def copy_in(self, name, size):
        host = self.buffer(name + "_host", size, "host")
        dev = self.buffer(name, size)
        self.steps.append(("memcpy", {"dst": dev, "src": host, "bytes": size}, [], None))
        return dev

    def copy(self, dst, src, size):
        self.steps.append(("memcpy", {"dst": dst, "bytes": size}, [src], None))

    def copy_out(self, name, x):
        host = self.buffer(name + "_host", x.size, "host")
        self.steps.append(("memcpy", {"dst": host, "bytes": x.size}, [x], None))

    # Activation slots: a tensor takes the lowest free slot when produced and frees it
    # after its last reader, like an inference runtime's arena.
    def _allocate(self):
        last_use = {}
        for i, (_, _, args, _) in enumerate(self.steps):
            for a in args:
                if isinstance(a, Tensor):
                    last_use[id(a)] = i
        slots = []  # size of each slot
        free = []
        for i, (_, _, args, result) in enumerate(self.steps):
            if isinstance(result, Tensor) and result.slot is None:
                assert id(result) in last_use, "unused result of " + result.name
                if free:
                    free.sort()
                    result.slot = free.pop(0)
                    slots[result.slot] = max(slots[result.slot], result.size)
                else:
                    result.slot = len(slots)
                    slots.append(result.size)
            for a in set(args):
                if isinstance(a, Tensor) and last_use[id(a)] == i:
                    free.append(a.slot)
        return slots

    def render(self):
        slots = self._allocate()

        def ref(a):
            return "act%d" % a.slot if isinstance(a, Tensor) else a

        lines = ["# " + line if line else "#" for line in self.comment]
        lines += [
            "# Generated by scripts/gen_workloads.py; edit the script, not this file.",
            "# %s MACs, %s weights, %d kernels, %d launches, %d activation slots." %
            (si(self.macs), si(self.weight_elements), len(self.kernels), self.launches,
             len(slots)),
            "name: " + self.name,
            "kernels:",
        ]
        for name, op in self.kernels.items():
            lines.append("  %s: %s" % (name, flow(op)))
        lines.append("buffers:")
        for name, (size, memory) in self.buffers.items():
            lines.append("  %s: %s" % (name, flow({"size": size_text(size), "memory": memory})))
        for i, size in enumerate(slots):
            lines.append("  act%d: %s" % (i, flow({"size": size_text(size), "memory": "ddr"})))
        lines.append("streams: [%s]" % self.stream)
        lines.append("program:")
        for kind, fields, args, result in self.steps:
            f = dict(fields)
            if kind == "launch":
                f.update(stream=self.stream, async_=True)
                f["args"] = [ref(a) for a in args] + [ref(result)]
            else:
                if args:
                    f = dict(dst=f["dst"], src=ref(args[0]), bytes=f["bytes"])
                f.update(stream=self.stream, async_=True)
            lines.append("  - %s: %s" % (kind, flow(f)))
        lines.append("  - sync: " + self.stream)
        return "\n".join(lines) + "\n"


def si(n):
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= scale:
            return "%.3f %s" % (n / scale, suffix)
    return str(n)


def size_text(size):
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return "%d%s" % (size >> shift, unit)
    return str(size)


def flow(d):
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return str(v)

    items = []
    for k, v in d.items():
        if k == "binary":
            v = size_text(v)
        items.append("%s: %s" % (k.rstrip("_"), value(v)))
    return "{" + ", ".join(items) + "}"


def classifier(net, x, n, c, hw):
    """Global average pool of the n x hw x hw x c map, fc to 1000 classes, softmax, and the
    copy of the probabilities back to the host."""
    x = net.layer("avgpool", BINARY_BYTES["pool"], x, op="pool", n=n, c=c, h=hw, w=hw, r=hw,
                  s=hw, dtype="int8")
    x = net.layer("fc1000", BINARY_BYTES["fully_connected"], x, op="fully_connected", n=n,
                  in_=c, out=1000, dtype="int8")
    x = net.layer("prob", BINARY_BYTES["softmax"], x, op="softmax", rows=n, cols=1000,
                  dtype="int8")
    net.copy_out("prob", x)
    return net


# ResNet-50 (He et al. 2015, Table 1): conv1 7x7/2, 3x3 max pool /2, then bottleneck
# stages conv2_x..conv5_x of [1x1, 3x3, 1x1] blocks repeated 3, 4, 6, 3 times, global
# average pool, 1000-d fc, softmax. The first block of each stage has a 1x1 projection
# shortcut. The stride of stages 3-5 is on the 3x3 conv (v1.5, as in torchvision and
# MLPerf); the paper's v1 strides the first 1x1 and counts 3.8e9 multiply-adds.
RESNET50_STAGES = [  # (stage, width, blocks, stride)
    (2, 64, 3, 1),
    (3, 128, 4, 2),
    (4, 256, 6, 2),
    (5, 512, 3, 2),
]


def resnet50(batch):
    net = Net("resnet50_b%d" % batch, [
        "ResNet-50 v1.5 inference, batch %d, 224x224x3, int8: He et al., \"Deep Residual" % batch,
        "Learning for Image Recognition\" (2015), Table 1, with the stride of conv3_1,",
        "conv4_1 and conv5_1 on the 3x3 conv (v1.5). BatchNorm and ReLU are folded into",
        "the convs; each residual add (with its ReLU) is an elementwise kernel.",
        "Binary sizes are estimates per op kind (scripts/gen_workloads.py).",
    ])
    n = batch
    x = net.copy_in("image", n * 224 * 224 * 3)
    x = net.conv("conv1", x, n, 3, 224, 64, 7, stride=2)
    # pool has no padding: the 3x3/2 max pool reads the 112x112 map padded to 114x114.
    x = net.layer("pool1", BINARY_BYTES["pool"], x, op="pool", n=n, c=64, h=114, w=114, r=3, s=3,
                  stride=2, dtype="int8")
    hw, c = 56, 64
    for stage, width, blocks, stride in RESNET50_STAGES:
        for b in range(1, blocks + 1):
            s = stride if b == 1 else 1
            name = "conv%d_%d" % (stage, b)
            ho = out_hw(hw, 3, s, 1)
            a = net.conv(name + "a", x, n, c, hw, width, 1)
            a = net.conv(name + "b", a, n, width, hw, width, 3, stride=s)
            a = net.conv(name + "c", a, n, width, ho, 4 * width, 1)
            shortcut = x
            if b == 1:
                shortcut = net.conv(name + "_proj", x, n, c, hw, 4 * width, 1, stride=s)
            x = net.add(name + "_add", a, shortcut)
            hw, c = ho, 4 * width
    return classifier(net, x, n, c, hw)


# MobileNetV2 (Sandler et al. 2018, Table 2): conv2d 3x3/2 to 32 channels, then inverted
# residual bottlenecks (expansion t, output channels c, repeats n, stride s of the first),
# conv2d 1x1 to 1280, 7x7 average pool, 1x1 conv (a fully connected layer) to 1000 classes.
MOBILENETV2_BLOCKS = [  # (t, c, n, s)
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


def mobilenetv2(batch):
    net = Net("mobilenetv2_b%d" % batch, [
        "MobileNetV2 1.0 inference, batch %d, 224x224x3, int8: Sandler et al., \"MobileNetV2:" %
        batch,
        "Inverted Residuals and Linear Bottlenecks\" (2018), Table 2. Each bottleneck i_j is",
        "a 1x1 expansion conv (t x channels, absent when t = 1), a 3x3 depthwise conv and",
        "a 1x1 linear projection, plus a residual add when stride 1 keeps the channels.",
        "BatchNorm and ReLU6 are folded into the convs. Binary sizes are estimates.",
    ])
    n = batch
    x = net.copy_in("image", n * 224 * 224 * 3)
    x = net.conv("conv1", x, n, 3, 224, 32, 3, stride=2)
    hw, c = 112, 32
    for i, (t, cout, repeats, stride) in enumerate(MOBILENETV2_BLOCKS, start=1):
        for j in range(1, repeats + 1):
            s = stride if j == 1 else 1
            name = "ir%d_%d" % (i, j)
            hidden = t * c
            a = x
            if t != 1:
                a = net.conv(name + "_expand", a, n, c, hw, hidden, 1)
            a = net.layer(name + "_dw", BINARY_BYTES["depthwise_conv2d"], a,
                          op="depthwise_conv2d", n=n, c=hidden, h=hw, w=hw, r=3, s=3, stride=s,
                          dtype="int8")
            ho = out_hw(hw, 3, s, 1)
            a = net.conv(name + "_project", a, n, hidden, ho, cout, 1)
            if s == 1 and c == cout:
                a = net.add(name + "_add", a, x)
            x, hw, c = a, ho, cout
    x = net.conv("conv_last", x, n, c, hw, 1280, 1)
    return classifier(net, x, n, 1280, hw)


# BERT-base (Devlin et al. 2019, section 3): L = 12 layers, hidden H = 768, A = 12
# heads (64 each), feed-forward 4H = 3072; one encoder layer at sequence length 128.
def bert_base_layer(seq=128, hidden=768, heads=12, ffn=3072):
    net = Net("bert_base_layer", [
        "One BERT-base encoder layer, batch 1, sequence %d: Devlin et al., \"BERT: Pre-training" %
        seq,
        "of Deep Bidirectional Transformers for Language Understanding\" (2019): hidden %d," %
        hidden,
        "%d heads of %d, feed-forward %d. Projections and FFN are int8 GEMMs; attention" %
        (heads, hidden // heads, ffn),
        "scores and context run per head (one launch each); softmax, GELU, residual adds",
        "and layernorms are fp16 on the vector unit. Binary sizes are estimates.",
    ])
    head = hidden // heads
    x = net.copy_in("hidden_in", seq * hidden * 2)
    proj = {}
    for p in ("q", "k", "v"):
        net.kernel(p + "_proj", BINARY_BYTES["matmul"], op="matmul", m=seq, n=hidden, k=hidden,
                   dtype="int8")
        proj[p] = net.launch(p + "_proj", [x], net.weights(p + "_proj", p + "_proj"))
    net.kernel("scores", BINARY_BYTES["matmul"], op="matmul", m=seq, n=seq, k=head, dtype="fp16")
    net.kernel("context", BINARY_BYTES["matmul"], op="matmul", m=seq, n=head, k=seq,
               dtype="fp16")
    # Scores of all heads go into one tensor for the softmax; each launch writes its part
    # (the model has no offsets: every head's launch names the same buffers).
    scores = Tensor("scores", heads * seq * seq * 2)
    for _ in range(heads):
        net.launch("scores", [proj["q"], proj["k"]], out=scores)
    net.kernel("softmax", BINARY_BYTES["softmax"], op="softmax", rows=heads * seq, cols=seq,
               dtype="fp16")
    probs = net.launch("softmax", [scores])
    ctx = Tensor("context", seq * hidden * 2)
    for _ in range(heads):
        net.launch("context", [probs, proj["v"]], out=ctx)
    net.kernel("out_proj", BINARY_BYTES["matmul"], op="matmul", m=seq, n=hidden, k=hidden,
               dtype="int8")
    a = net.launch("out_proj", [ctx], net.weights("out_proj", "out_proj"))
    a = net.add("attn_add", a, x, seq * hidden, "fp16")
    net.kernel("attn_norm", BINARY_BYTES["layernorm"], op="layernorm", rows=seq, cols=hidden,
               dtype="fp16")
    h = net.launch("attn_norm", [a], net.weights("attn_norm", "attn_norm"))
    net.kernel("ffn_up", BINARY_BYTES["matmul"], op="matmul", m=seq, n=ffn, k=hidden,
               dtype="int8")
    u = net.launch("ffn_up", [h], net.weights("ffn_up", "ffn_up"))
    net.kernel("gelu", BINARY_BYTES["activation"], op="elementwise", elements=seq * ffn,
               dtype="fp16")
    u = net.launch("gelu", [u])
    net.kernel("ffn_down", BINARY_BYTES["matmul"], op="matmul", m=seq, n=hidden, k=ffn,
               dtype="int8")
    d = net.launch("ffn_down", [u], net.weights("ffn_down", "ffn_down"))
    d = net.add("ffn_add", d, h, seq * hidden, "fp16")
    net.kernel("ffn_norm", BINARY_BYTES["layernorm"], op="layernorm", rows=seq, cols=hidden,
               dtype="fp16")
    y = net.launch("ffn_norm", [d], net.weights("ffn_norm", "ffn_norm"))
    net.copy_out("hidden_out", y)
    return net


# A Llama-3.2-1B-class decoder (Meta 2024; the Llama architecture of Touvron et al. 2023
# with grouped-query attention): 16 layers, hidden 2048, 32 query heads and 8 KV heads of
# 64, SwiGLU MLP of 8192, vocabulary 128256. A 7B model (6.7 GB of int8 weights) does not
# fit the 4 GiB LPDDR4 of configs/edge-npu.yaml; a 1B model is the edge-sized member
# (the 7B workloads below are for configs/datacenter-npu.yaml).
LLM = dict(layers=16, hidden=2048, heads=32, kv_heads=8, ffn=8192, vocab=128256, context=512)

# Llama 2 7B (Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models",
# Table 1: multi-head attention, grouped-query only at 34B and 70B; the sizes are LLaMA
# 7B's, Touvron et al. 2023a, Table 2): 32 layers, hidden 4096, 32 heads of 128, SwiGLU MLP
# of 11008, vocabulary 32000, an output head of its own (not tied to the embedding). Its
# weights and KV cache need the HBM of configs/datacenter-npu.yaml; its large kernels span
# that config's units.
LLAMA2_7B = dict(layers=32, hidden=4096, heads=32, kv_heads=32, ffn=11008, vocab=32000,
                 model="Llama 2 7B",
                 source="Llama 2, Touvron et al. 2023; multi-head attention, no grouped-query",
                 tied=False)

EDGE_DDR_BYTES = 4 << 30  # ddr.size of configs/edge-npu.yaml


def llm_layers(net, layers, hidden, heads, kv_heads, ffn, vocab, tokens, context, tied):
    """The program of a Llama-style decoder on `tokens` new tokens (batch 1) that attend to
    `context` tokens of KV cache (their own included): embedding gather, `layers` layers,
    final norm and output head. GEMVs when tokens = 1, GEMMs of m = tokens otherwise. The
    final norm and the output head run on the last token only (its logits pick the next
    token); the kernels read their part of the full tensor, as the model has no offsets."""
    head = hidden // heads
    group = heads // kv_heads
    kv = kv_heads * head
    linear_binary = BINARY_BYTES["gemv" if tokens == 1 else "matmul"]

    def linear(name, n, k, m=tokens, binary=linear_binary):
        net.kernel(name, binary, op="matmul", m=m, n=n, k=k, dtype="int8")

    net.buffer("embedding", vocab * hidden * 2)  # fp16 table, read by the gather
    if not tied:
        net.weight_elements += vocab * hidden
    tok = net.copy_in("token", tokens * 4)
    net.kernel("embed", BINARY_BYTES["elementwise"], op="elementwise", elements=tokens * hidden,
               dtype="fp16")
    for name in ("attn_norm", "mlp_norm", "final_norm"):
        net.kernel(name, BINARY_BYTES["layernorm"], op="layernorm",
                   rows=1 if name == "final_norm" else tokens, cols=hidden, dtype="fp16")
    linear("q_proj", hidden, hidden)
    linear("k_proj", kv, hidden)
    linear("v_proj", kv, hidden)
    net.kernel("rope", BINARY_BYTES["elementwise"], op="elementwise",
               elements=tokens * (hidden + kv), inputs=2, dtype="fp16")
    net.kernel("scores", BINARY_BYTES["matmul"], op="matmul", m=group * tokens, n=context,
               k=head, dtype="fp16")
    net.kernel("softmax", BINARY_BYTES["softmax"], op="softmax", rows=heads * tokens,
               cols=context, dtype="fp16")
    net.kernel("context", BINARY_BYTES["matmul"], op="matmul", m=group * tokens, n=head,
               k=context, dtype="fp16")
    linear("o_proj", hidden, hidden)
    net.kernel("residual_add", BINARY_BYTES["elementwise"], op="elementwise",
               elements=tokens * hidden, inputs=2, dtype="fp16")
    linear("gate_proj", ffn, hidden)
    linear("up_proj", ffn, hidden)
    net.kernel("silu_mul", BINARY_BYTES["activation"], op="elementwise", elements=tokens * ffn,
               inputs=2, dtype="fp16")
    linear("down_proj", hidden, ffn)
    linear("lm_head", vocab, hidden, m=1, binary=BINARY_BYTES["gemv"])

    rope_table = net.buffer("rope_table", 2 * context * head * 2)
    x = net.launch("embed", ["embedding", tok])
    for layer in range(layers):
        p = "l%02d_" % layer
        kcache = net.buffer(p + "k_cache", context * kv * 2)
        vcache = net.buffer(p + "v_cache", context * kv * 2)
        h = net.launch("attn_norm", [x], net.weights(p + "attn_norm", "attn_norm"))
        q = net.launch("q_proj", [h], net.weights(p + "q_proj", "q_proj"))
        k = net.launch("k_proj", [h], net.weights(p + "k_proj", "k_proj"))
        v = net.launch("v_proj", [h], net.weights(p + "v_proj", "v_proj"))
        q = net.launch("rope", [q, rope_table])
        net.copy(kcache, k, k.size)
        net.copy(vcache, v, v.size)
        scores = Tensor("scores", heads * tokens * context * 2)
        for _ in range(kv_heads):
            net.launch("scores", [q, kcache], out=scores)
        probs = net.launch("softmax", [scores])
        ctx = Tensor("context", tokens * hidden * 2)
        for _ in range(kv_heads):
            net.launch("context", [probs, vcache], out=ctx)
        a = net.launch("o_proj", [ctx], net.weights(p + "o_proj", "o_proj"))
        x = net.launch("residual_add", [a, x])
        h = net.launch("mlp_norm", [x], net.weights(p + "mlp_norm", "mlp_norm"))
        g = net.launch("gate_proj", [h], net.weights(p + "gate_proj", "gate_proj"))
        u = net.launch("up_proj", [h], net.weights(p + "up_proj", "up_proj"))
        g = net.launch("silu_mul", [g, u])
        d = net.launch("down_proj", [g], net.weights(p + "down_proj", "down_proj"))
        x = net.launch("residual_add", [d, x])
    x = net.launch("final_norm", [x], net.weights("final_norm", "final_norm"))
    # Llama 3.2 1B ties the output head to the embedding table, Llama 2 7B does not; int8
    # here like the rest.
    logits = net.launch("lm_head", [x], net.weights("lm_head", "lm_head"))
    net.copy_out("logits", logits)
    return net


def llm_notes(net, tied):
    """Header lines for what differs from the edge-sized 1B model: an output head of its own,
    and weights and KV cache larger than edge-npu's DDR."""
    lines = []
    if not tied:
        lines += [
            "The embedding table (fp16, one row gathered per token) and the int8 output head",
            "are separate matrices (not tied); both count as weights.",
        ]
    ddr = sum(size for size, memory in net.buffers.values() if memory == "ddr")
    if ddr > EDGE_DDR_BYTES:
        lines += [
            "Weights and KV cache take %.2f GB of DDR, more than edge-npu's 4 GiB: run it on" %
            (ddr / 1e9),
            "configs/datacenter-npu.yaml. Large kernels span every unit (24 there).",
        ]
    return lines


def llm_decode_step(layers, hidden, heads, kv_heads, ffn, vocab, context, name="llm_decode_step",
                    model="a Llama-3.2-1B-class model",
                    source="Llama architecture, Touvron et al. 2023; grouped-query attention",
                    tied=True):
    group = heads // kv_heads
    net = llm_layers(Net(name, []), layers, hidden, heads, kv_heads, ffn, vocab,
                     tokens=1, context=context, tied=tied)
    net.comment = [
        "One decode step (one token) of %s over a KV cache of %d" % (model, context),
        "tokens: %d layers, hidden %d, %d query and %d KV heads of %d, SwiGLU MLP %d, vocabulary" %
        (layers, hidden, heads, kv_heads, hidden // heads, ffn),
        "%d (%s). Per layer:" % (vocab, source),
        "RMSNorm (as layernorm), q/k/v/o GEMVs (matmul m = 1), RoPE, KV-cache append, per",
        "KV head scores and context for its %d query head%s, softmax, SwiGLU gate/up/down," %
        (group, "s" if group > 1 else ""),
        "residual adds. Weights int8 (one buffer per layer), activations fp16. Each op is",
        "one kernel launched once per layer, as a runtime reuses its compiled kernels.",
    ] + llm_notes(net, tied) + ["Binary sizes are estimates."]
    return net


def llm_prefill(layers, hidden, heads, kv_heads, ffn, vocab, seq, name, model, source, tied):
    """The prefill of a `seq`-token prompt: every layer on all its tokens at once, the KV
    cache written for all of them; causal attention computed dense (full seq x seq scores,
    the softmax masks the upper triangle)."""
    group = heads // kv_heads
    net = llm_layers(Net(name, []), layers, hidden, heads, kv_heads, ffn, vocab,
                     tokens=seq, context=seq, tied=tied)
    net.comment = [
        "Prefill of a %d-token prompt (batch 1) through %s: %d layers, hidden %d," %
        (seq, model, layers, hidden),
        "%d query and %d KV heads of %d, SwiGLU MLP %d, vocabulary %d" %
        (heads, kv_heads, hidden // heads, ffn, vocab),
        "(%s). Per layer:" % source,
        "RMSNorm (as layernorm), q/k/v/o GEMMs (matmul m = %d), RoPE, KV-cache write of the" %
        seq,
        "%d tokens (two memcpys), per KV head scores (%d x %d) and context for its %d query" %
        (seq, seq * group, seq, group),
        "head%s, softmax, SwiGLU gate/up/down GEMMs, residual adds. Attention is causal but" %
        ("s" if group > 1 else ""),
        "computed dense, as a GEMM kernel does: each head's full %d x %d scores, the upper" %
        (seq, seq),
        "triangle masked in the softmax; the MACs count the full square. The final norm and",
        "the output head (a GEMV) run on the last token only, whose logits pick the next token.",
        "Weights int8 (one buffer per layer), activations fp16. Each op is one kernel",
        "launched once per layer, as a runtime reuses its compiled kernels.",
    ] + llm_notes(net, tied) + ["Binary sizes are estimates."]
    return net


# (file, builder, MAC range, weight range): published figures the shapes must match.
WORKLOADS = [
    # torchvision ResNet-50 (v1.5): 4.09 GMACs, 25.6 M parameters (BatchNorm and biases
    # are not weights here).
    ("resnet50_b1", lambda: resnet50(1), (4.05e9, 4.15e9), (25.4e6, 25.6e6)),
    ("resnet50_b8", lambda: resnet50(8), (8 * 4.05e9, 8 * 4.15e9), (25.4e6, 25.6e6)),
    # Sandler et al. Table 4: 300 M multiply-adds, 3.4 M parameters.
    ("mobilenetv2_b1", lambda: mobilenetv2(1), (290e6, 310e6), (3.3e6, 3.6e6)),
    ("mobilenetv2_b8", lambda: mobilenetv2(8), (8 * 290e6, 8 * 310e6), (3.3e6, 3.6e6)),
    # 110 M parameters over 12 layers of 7.1 M (plus embeddings); 128 x 7.1 M + attention.
    ("bert_base_layer", bert_base_layer, (0.9e9, 1.0e9), (7.0e6, 7.1e6)),
    # Llama 3.2 1B: 1.24 B parameters; one MAC per weight per token plus attention.
    ("llm_decode_step", lambda: llm_decode_step(**LLM), (1.2e9, 1.3e9), (1.2e9, 1.3e9)),
    # Llama 2 7B: 6.74 B parameters (6,738,415,616 with the 266 k norm weights, not weights
    # here). A decode step: one MAC per weight but the embedding's, 6.61 G, plus the
    # attention over 2048 cached tokens, 2 x 2048 x 4096 per layer, 0.54 G.
    ("llm7b_decode", lambda: llm_decode_step(name="llm7b_decode", context=2048, **LLAMA2_7B),
     (7.1e9, 7.2e9), (6.7e9, 6.8e9)),
    # The prefill: 512 x 6.48 G of the layers' weights, 68.7 G of dense 512 x 512 attention
    # (2 x 512 x 512 x 4096 per layer) and the last token's output head, 0.13 G.
    ("llm7b_prefill", lambda: llm_prefill(name="llm7b_prefill", seq=512, **LLAMA2_7B),
     (3.35e12, 3.42e12), (6.7e9, 6.8e9)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="output folder (default testbenches/workloads)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the files in the output folder; write nothing")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = args.out or os.path.join(root, "testbenches", "workloads")

    stale = []
    for name, build, (mac_lo, mac_hi), (w_lo, w_hi) in WORKLOADS:
        net = build()
        text = net.render()
        print("%-16s %12s MACs %12s weights %4d kernels %4d launches" %
              (name, si(net.macs), si(net.weight_elements), len(net.kernels), net.launches))
        assert mac_lo <= net.macs <= mac_hi, "%s: %d MACs outside [%g, %g]" % (name, net.macs,
                                                                               mac_lo, mac_hi)
        assert w_lo <= net.weight_elements <= w_hi, "%s: %d weights outside [%g, %g]" % (
            name, net.weight_elements, w_lo, w_hi)
        path = os.path.join(out, name + ".yaml")
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    current = f.read()
            except OSError:
                current = None
            if current != text:
                stale.append(path)
        else:
            os.makedirs(out, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        for path in stale:
            print("gen_workloads: %s is not up to date" % path, file=sys.stderr)
        print("gen_workloads: regenerate with scripts/gen_workloads.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
