#!/usr/bin/python3
"""Writes the DDR comparison traces, in Ramulator 2's LoadStoreTrace format (`LD 0x..`, `ST 0x..`),
read by `npusim membench --trace`, ramulator_mb and (through to_stl.py) DRAMSys.

Streams (N = 100,000 64-byte requests each, fixed seeds):
  seq_read  / seq_write : address i * 64
  rand_read             : uniform random 64-byte lines over 1 GiB
  mix_w25 / mix_w50 / mix_w75 : uniform random lines over 1 GiB, each a write (ST)
                          with probability 0.25 / 0.50 / 0.75
  copy                  : extra, high-locality mix: LD i*64 and ST 512 MiB + i*64 alternating
Usage: gen_traces.py OUTDIR [N]
"""
import random
import sys
from pathlib import Path

LINE = 64
SPAN_LINES = (1 << 30) // LINE


def write(path, reqs):
    with open(path, "w") as f:
        for is_write, addr in reqs:
            f.write(f"{'ST' if is_write else 'LD'} 0x{addr:x}\n")


def main():
    out = Path(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    out.mkdir(parents=True, exist_ok=True)
    write(out / "seq_read.trace", [(False, i * LINE) for i in range(n)])
    write(out / "seq_write.trace", [(True, i * LINE) for i in range(n)])
    rng = random.Random(12345)
    write(out / "rand_read.trace", [(False, rng.randrange(SPAN_LINES) * LINE) for _ in range(n)])
    for name, p, seed in (("mix_w25", 0.25, 25), ("mix_w50", 0.50, 50), ("mix_w75", 0.75, 75)):
        rng = random.Random(seed)
        reqs = []
        for _ in range(n):
            addr = rng.randrange(SPAN_LINES) * LINE
            reqs.append((rng.random() < p, addr))
        write(out / f"{name}.trace", reqs)
    copy = []
    for i in range(n // 2):
        copy += [(False, i * LINE), (True, (1 << 29) + i * LINE)]
    write(out / "copy.trace", copy)


if __name__ == "__main__":
    main()
