#!/usr/bin/python3
"""Writes the DDR comparison traces, in Ramulator 2's LoadStoreTrace format (`LD 0x..`, `ST 0x..`),
read by `npusim membench --trace`, ramulator_mb and (through to_stl.py) DRAMSys.

Streams (N = 100,000 64-byte requests each, fixed seeds):
  seq_read  / seq_write : address i * 64
  rand_read             : uniform random 64-byte lines over 1 GiB
  mix_w25 / mix_w50 / mix_w75 : uniform random lines over 1 GiB, each a write (ST)
                          with probability 0.25 / 0.50 / 0.75
  copy                  : extra, high-locality mix: LD i*64 and ST 512 MiB + i*64 alternating
Energy streams (N_ENERGY = 20,000 requests, see energy_streams(); the unit test
tests/integration/ddr/dram_energy_validation_test.cpp makes the same requests with the same
SplitMix64 generator):
  e_seq_read / e_seq_write : address i * 64
  e_rand_read              : line splitmix64(i) mod (1 GiB / 64)
  e_mix_rw                 : the same lines, a write where splitmix64(N_ENERGY + i) is odd
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


N_ENERGY = 20_000
MASK64 = (1 << 64) - 1


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def energy_streams(n=N_ENERGY):
    rand = [splitmix64(i) % SPAN_LINES * LINE for i in range(n)]
    return {
        "e_seq_read": [(False, i * LINE) for i in range(n)],
        "e_seq_write": [(True, i * LINE) for i in range(n)],
        "e_rand_read": [(False, a) for a in rand],
        "e_mix_rw": [(splitmix64(n + i) & 1 == 1, a) for i, a in enumerate(rand)],
    }


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
    for name, reqs in energy_streams().items():
        write(out / f"{name}.trace", reqs)


if __name__ == "__main__":
    main()
