run --config configs/edge-npu.yaml --testbench {dir:report.json}/report.json --out {dir:report.json}
