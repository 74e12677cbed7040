#!/usr/bin/python3
"""Exports models with PyTorch's own ONNX exporter (torch.onnx.export), for `npusim import`:
torchvision's ResNet-18 (untrained weights, dynamic batch) and a BERT-base-sized transformer
encoder layer (torch.nn.TransformerEncoderLayer, 768 wide, 12 heads, FFN 3072, sequence 128).
The weights are in the files (47 and 28 MB).

Needs Debian's python3-torch and python3-torchvision (not installed by scripts/setup.sh).

Usage: scripts/export_torch_models.py [--out DIR]   (default: models/)
"""
import argparse
import os

import torch
import torchvision


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="models")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)

    resnet = torchvision.models.resnet18(weights=None).eval()
    path = os.path.join(args.out, "torch_resnet18.onnx")
    torch.onnx.export(resnet, torch.randn(1, 3, 224, 224), path, opset_version=13,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    print(path)

    layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                             batch_first=True).eval()
    path = os.path.join(args.out, "torch_encoder_layer.onnx")
    torch.onnx.export(layer, torch.randn(1, 128, 768), path, opset_version=13,
                      input_names=["tokens"], output_names=["hidden"],
                      dynamic_axes={"tokens": {0: "batch"}, "hidden": {0: "batch"}})
    print(path)


if __name__ == "__main__":
    main()
