#!/usr/bin/env python3
"""Per-access SRAM energies as Accelergy's CACTI plug-in computes them.

Replays accelergy-cacti-plug-in (commit 291018b12cc9cd467168973fc47528670e1480ce),
class CactiSRAM, for SRAMs given as WIDTHxDEPTH (bits x words) at 45 nm, one read-write
port, one bank: the plug-in's own CACTI input template (default_cfg.cfg) with its
appended size, port, block, node, bus width, bank, "ram" type, tag and associativity
lines, and its rounding of small arrays (width up to a multiple of 8 bits and at least
32, depth at least 64, energy scaled back by (0.7 w + 0.3) d^0.78 for the width and
depth fractions w, d). Prints CACTI's dynamic read and write energy per access in pJ.

usage: cacti_sram.py PLUGIN_DIR CACTI_DIR WIDTHxDEPTH...
  PLUGIN_DIR  a checkout of accelergy-cacti-plug-in (for default_cfg.cfg)
  CACTI_DIR   HewlettPackard/cacti at 1ffd8dfb10303d306ecd8d215320aea07651e878 (the
              plug-in's submodule), built with `make`
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

TECH_UM = 0.045


def run_cacti(plugin_dir, cacti_dir, size, block):
    with open(os.path.join(plugin_dir, "default_cfg.cfg")) as f:
        cfg = f.read()
    cfg += (
        "\n############## User-Specified Hardware Attributes ##############\n"
        f"-size (bytes) {size}\n-read-write port  1\n-block size (bytes) {block}\n"
        f"-technology (u) {TECH_UM}\n-output/input bus width  {block * 8}\n-UCA bank 1\n"
        '-cache type "ram"\n-tag size (b) 0\n-associativity 1\n'
    )
    fd, path = tempfile.mkstemp(suffix=".cfg")
    with os.fdopen(fd, "w") as f:
        f.write(cfg)
    try:
        with open(path + ".log", "w") as log:
            subprocess.run(["./cacti", "-infile", path], cwd=cacti_dir, stdout=log,
                           stderr=subprocess.STDOUT, check=True)
        with open(path + ".out") as out:
            row = list(csv.DictReader(out))[-1]
    finally:
        for p in (path, path + ".log", path + ".out"):
            if os.path.exists(p):
                os.remove(p)
    return (float(row[" Dynamic read energy (nJ)"]) * 1e3,
            float(row[" Dynamic write energy (nJ)"]) * 1e3)


def sram_pj(plugin_dir, cacti_dir, width, depth):
    cacti_width = max(math.ceil(width / 8) * 8, 32)
    cacti_depth = max(depth, 64)
    read, write = run_cacti(plugin_dir, cacti_dir, cacti_width * cacti_depth // 8,
                            cacti_width // 8)
    scale = (0.7 * width / cacti_width + 0.3) * (depth / cacti_depth) ** (1.56 / 2)
    return read * scale, write * scale


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    plugin_dir, cacti_dir = argv[1], argv[2]
    for arg in argv[3:]:
        width, depth = (int(v) for v in arg.split("x"))
        read, write = sram_pj(plugin_dir, cacti_dir, width, depth)
        print(f"{width} bits x {depth} ({width * depth // 8} B): "
              f"read {read:.6g} pJ, write {write:.6g} pJ")


if __name__ == "__main__":
    main(sys.argv)
