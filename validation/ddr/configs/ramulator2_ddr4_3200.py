"""Ramulator 2.1 configuration matched to npusim's
`ddr: {preset: DDR4-3200, channels: 1, ranks: 1, mapping: RoBaCoBg}`.

DDR4-3200AA, 8 Gb x8 devices on a 64-bit channel, 1 rank; GenericDDR controller with 32-entry
read and write buffers, write drain between 0.8 and 0.2 fill, FR-FCFS, open page, all-bank
refresh. Address mapping: RoBaRaCoCh here; the driver (ramulator_mb.cpp) permutes each
trace address so that RoBaRaCoCh decodes it to the same (row, bank, bank group, column) as
npusim's RoBaCoBg (configs/npusim_ddr4_3200.yaml).
Export (build_refs.sh does it): PYTHONPATH=RAMULATOR2_SRC/python python3 -m ramulator export \
    ramulator2_ddr4_3200.py -o ramulator2_ddr4_3200.yaml
"""
import ramulator

frontend = ramulator.frontend.External(clock_ratio=1)
dram = ramulator.dram.DDR4(org_preset="DDR4_8Gb_x8", timing_preset="DDR4_3200AA", rank=1)
ctrl = ramulator.controller.GenericDDR(
    dram=dram,
    read_buffer_size=32,
    write_buffer_size=32,
    wr_high_watermark=0.8,
    wr_low_watermark=0.2,
    scheduler=ramulator.scheduler.FRFCFS(),
    refresh_manager=ramulator.refresh_manager.AllBank(),
    row_policy=ramulator.row_policy.Open(),
    addr_mapper=ramulator.addr_mapper.RoBaRaCoCh(),
)
mem = ramulator.memory_system.GenericDRAM(
    clock_ratio=1,
    controllers=[ctrl],
    channel_mapper=ramulator.channel_mapper.CacheLineInterleave(),
)
sim = ramulator.Simulation(frontend, mem)
