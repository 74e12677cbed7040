run --config configs/edge-npu.yaml --testbench {copy} --out {dir:x} --trace {dir:x}/launches.csv
