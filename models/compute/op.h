#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

enum class OpKind { Cycles, Matmul, Conv2d };
enum class DType { Int8, Fp16, Bf16, Fp32 };

/// Names as they appear in testbenches ("matmul", "int8", ...).
const std::vector<std::string>& op_kind_names();
const std::vector<std::string>& dtype_names();
OpKind op_kind_from_name(const std::string& name);
DType dtype_from_name(const std::string& name);
uint32_t dtype_bytes(DType type);

/// What a kernel computes. Unused fields stay zero.
struct OpSpec {
  OpKind kind = OpKind::Cycles;
  DType dtype = DType::Int8;
  uint64_t cycles = 0;          ///< cycles
  uint64_t m = 0, n = 0, k = 0; ///< matmul: (m x k) * (k x n)
  // conv2d, NCHW input, k filters of c x r x s
  uint64_t batch = 0, channels = 0, height = 0, width = 0, filters = 0, r = 0, s = 0;
  uint64_t stride = 1, pad = 0;
};

/// A MAC array of rows x cols processing elements.
struct ArrayShape {
  uint32_t rows = 32;
  uint32_t cols = 32;
};

/// Work of one unit's share of an op (no timing, no SystemC).
struct OpWork {
  uint64_t compute_cycles = 0;
  uint64_t load_bytes = 0;  ///< operands read from memory
  uint64_t store_bytes = 0; ///< results written back
  uint64_t macs = 0;
};

/// Output-stationary systolic model: every rows x cols output tile takes
/// k + rows + cols - 2 cycles (fill, k steady-state steps, drain). A kernel on
/// `units` units splits its output tiles evenly; this returns one unit's share.
OpWork op_work(const OpSpec& op, const ArrayShape& array, uint32_t units);

/// The matmul an op lowers to (conv2d by im2col); m = n = k = 0 for `cycles`.
void lowered_matmul(const OpSpec& op, uint64_t* m, uint64_t* n, uint64_t* k);

} // namespace npu
