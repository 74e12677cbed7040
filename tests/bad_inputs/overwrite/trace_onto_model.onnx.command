run --config configs/edge-npu.yaml --model {copy} --trace {copy}
