#!/usr/bin/python3
"""Converts a LD/ST trace into a DRAMSys absolute STL trace: request i is offered at player
cycle i (player clock 1600 MHz = the DDR4-3200 memory clock); a request that the controller has
not yet accepted holds back every later one (DRAMSys trace players send in order and wait for
END_REQ), so once behind schedule requests go out as fast as they are accepted.
Usage: to_stl.py IN.trace OUT.stl"""
import sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for i, line in enumerate(f):
        op, addr = line.split()
        o.write(f"{i}:\t{'write' if op == 'ST' else 'read'}\t0x{int(addr, 0):x}\n")
