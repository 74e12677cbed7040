#include "models/compute/op.h"

#include <algorithm>
#include <stdexcept>

namespace npu {

const std::vector<std::string>& op_kind_names() {
  static const std::vector<std::string> names = {"cycles", "matmul", "conv2d"};
  return names;
}

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = {"int8", "fp16", "bf16", "fp32"};
  return names;
}

OpKind op_kind_from_name(const std::string& name) {
  const auto& names = op_kind_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::invalid_argument("unknown op " + name);
  return static_cast<OpKind>(it - names.begin());
}

DType dtype_from_name(const std::string& name) {
  const auto& names = dtype_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::invalid_argument("unknown dtype " + name);
  return static_cast<DType>(it - names.begin());
}

uint32_t dtype_bytes(DType type) {
  switch (type) {
  case DType::Int8:
    return 1;
  case DType::Fp16:
  case DType::Bf16:
    return 2;
  case DType::Fp32:
    return 4;
  }
  return 1;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

void lowered_matmul(const OpSpec& op, uint64_t* m, uint64_t* n, uint64_t* k) {
  *m = *n = *k = 0;
  if (op.kind == OpKind::Matmul) {
    *m = op.m;
    *n = op.n;
    *k = op.k;
  } else if (op.kind == OpKind::Conv2d) {
    const uint64_t ho = (op.height + 2 * op.pad - op.r) / op.stride + 1;
    const uint64_t wo = (op.width + 2 * op.pad - op.s) / op.stride + 1;
    *m = op.batch * ho * wo;
    *n = op.filters;
    *k = op.channels * op.r * op.s;
  }
}

OpWork op_work(const OpSpec& op, const ArrayShape& array, uint32_t units) {
  OpWork w;
  units = std::max<uint32_t>(units, 1);
  if (op.kind == OpKind::Cycles) {
    w.compute_cycles = op.cycles;
    return w;
  }
  uint64_t m = 0, n = 0, k = 0;
  lowered_matmul(op, &m, &n, &k);
  const uint64_t es = dtype_bytes(op.dtype);
  const uint64_t tiles = ceil_div(m, array.rows) * ceil_div(n, array.cols);
  const uint64_t my_tiles = ceil_div(tiles, units);
  w.compute_cycles = my_tiles * (k + array.rows + array.cols - 2);
  w.macs = m * n * k / units;
  if (op.kind == OpKind::Matmul) {
    // Each unit reads its rows of A and all of B, writes its rows of C.
    w.load_bytes = ceil_div(m, units) * k * es + k * n * es;
    w.store_bytes = ceil_div(m, units) * n * es;
  } else {
    const uint64_t input = op.batch * op.channels * op.height * op.width * es;
    const uint64_t weights = op.filters * op.channels * op.r * op.s * es;
    w.load_bytes = ceil_div(input, units) + weights;
    w.store_bytes = ceil_div(m * n * es, units);
  }
  return w;
}

} // namespace npu
