#include "models/compute/op.h"

#include "common/checked_math.h"
#include "models/compute/tiling.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace npu {
namespace {

template <typename E>
E from_name(const std::vector<std::string>& names, const std::string& name, const char* what) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::invalid_argument(std::string("unknown ") + what + " " + name);
  return static_cast<E>(it - names.begin());
}

} // namespace

const std::vector<std::string>& op_kind_names() {
  static const std::vector<std::string> names = {"cycles",           "matmul",  "conv2d",
                                                 "depthwise_conv2d", "pool",    "fully_connected",
                                                 "elementwise",      "softmax", "layernorm"};
  return names;
}

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = {"int8", "fp16", "bf16", "fp32"};
  return names;
}

const std::vector<std::string>& dataflow_names() {
  static const std::vector<std::string> names = {"output_stationary", "weight_stationary",
                                                 "input_stationary"};
  return names;
}

OpKind op_kind_from_name(const std::string& name) {
  return from_name<OpKind>(op_kind_names(), name, "op");
}

DType dtype_from_name(const std::string& name) {
  return from_name<DType>(dtype_names(), name, "dtype");
}

Dataflow dataflow_from_name(const std::string& name) {
  return from_name<Dataflow>(dataflow_names(), name, "dataflow");
}

const std::string& op_kind_name(OpKind kind) {
  return op_kind_names().at(static_cast<size_t>(kind));
}

const std::string& dataflow_name(Dataflow dataflow) {
  return dataflow_names().at(static_cast<size_t>(dataflow));
}

namespace {
// The one table of element types: bytes, and cycles a PE or lane needs per operation.
struct DTypeInfo {
  uint32_t bytes;
  uint32_t cycles_per_op; ///< 1 / (MACs per PE per cycle)
};
DTypeInfo dtype_info(DType type) {
  switch (type) {
  case DType::Int8:
    return {1, 1};
  case DType::Fp16:
  case DType::Bf16:
    return {2, 2};
  case DType::Fp32:
    return {4, 4};
  }
  return {1, 1};
}
} // namespace

uint32_t dtype_bytes(DType type) {
  return dtype_info(type).bytes;
}

uint32_t dtype_cycles_per_op(DType type) {
  return dtype_info(type).cycles_per_op;
}

bool OpSpec::operator==(const OpSpec& o) const {
  auto fields = [](const OpSpec& x) {
    return std::make_tuple(x.kind, x.dtype, x.cycles, x.iterations, x.m, x.n, x.k, x.batch,
                           x.channels, x.height, x.width, x.filters, x.r, x.s, x.stride, x.pad,
                           x.in_features, x.out_features, x.elements, x.inputs, x.rows, x.cols);
  };
  return fields(*this) == fields(o);
}

uint64_t out_height(const OpSpec& op) {
  const uint64_t padded = op.height + 2 * op.pad;
  if (op.stride == 0 || padded < op.r)
    return 0;
  return (padded - op.r) / op.stride + 1;
}

uint64_t out_width(const OpSpec& op) {
  const uint64_t padded = op.width + 2 * op.pad;
  if (op.stride == 0 || padded < op.s)
    return 0;
  return (padded - op.s) / op.stride + 1;
}

void lowered_matmul(const OpSpec& op, uint64_t* m, uint64_t* n, uint64_t* k) {
  *m = *n = *k = 0;
  switch (op.kind) {
  case OpKind::Matmul:
    *m = saturating_mul(std::max<uint64_t>(op.batch, 1), op.m);
    *n = op.n;
    *k = op.k;
    break;
  case OpKind::Conv2d: {
    const auto rows = checked_product({op.batch, out_height(op), out_width(op)});
    if (!rows)
      throw std::overflow_error("conv2d: the im2col row count n x ho x wo does not fit in 64 "
                                "bits");
    *m = *rows;
    *n = op.filters;
    *k = saturating_product({op.channels, op.r, op.s});
    break;
  }
  case OpKind::FullyConnected:
    *m = op.batch;
    *n = op.out_features;
    *k = op.in_features;
    break;
  default:
    break;
  }
}

GemmShape gemm_shape(const OpSpec& op) {
  GemmShape g;
  if (op.kind != OpKind::Matmul && op.kind != OpKind::Conv2d && op.kind != OpKind::FullyConnected)
    return g;
  if (op.kind == OpKind::Matmul) {
    g.batches = std::max<uint64_t>(op.batch, 1);
    g.m = op.m;
    g.n = op.n;
    g.k = op.k;
    return g;
  }
  g.batches = 1;
  lowered_matmul(op, &g.m, &g.n, &g.k);
  return g;
}

OpExtent op_extent(const OpSpec& op) {
  // Saturating: a product that does not fit stays at UINT64_MAX through every later step.
  const uint64_t es = dtype_bytes(op.dtype);
  OpExtent x;
  switch (op.kind) {
  case OpKind::Cycles:
    x.unit_cycles = op.cycles;
    break;
  case OpKind::Matmul:
  case OpKind::FullyConnected:
  case OpKind::Conv2d: {
    // Not lowered_matmul(): its conv2d row count must not wrap here.
    uint64_t m = 0, n = 0, k = 0;
    if (op.kind == OpKind::Conv2d) {
      m = saturating_product({op.batch, out_height(op), out_width(op)});
      n = op.filters;
      k = saturating_product({op.channels, op.r, op.s});
    } else {
      lowered_matmul(op, &m, &n, &k);
    }
    x.macs = saturating_product({m, n, k});
    // A batched matmul has one B per batch.
    const uint64_t b_copies = op.kind == OpKind::Matmul ? std::max<uint64_t>(op.batch, 1) : 1;
    const uint64_t elements =
        saturating_add(saturating_add(saturating_mul(m, k), saturating_product({b_copies, k, n})),
                       saturating_mul(m, n));
    x.bytes = saturating_mul(elements, es);
    break;
  }
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool: {
    const uint64_t outputs =
        saturating_product({op.batch, op.channels, out_height(op), out_width(op)});
    x.vector_ops = saturating_product({outputs, op.r, op.s});
    const uint64_t inputs = saturating_product({op.batch, op.channels, op.height, op.width});
    x.bytes = saturating_mul(saturating_add(inputs, outputs), es);
    break;
  }
  case OpKind::Elementwise:
    x.vector_ops = op.elements;
    x.bytes = saturating_product({op.elements, uint64_t{op.inputs} + 1, es});
    break;
  case OpKind::Softmax:
  case OpKind::Layernorm: {
    const uint64_t elements = saturating_mul(op.rows, op.cols);
    x.vector_ops = saturating_mul(elements, rowwise_passes(op.kind));
    x.bytes = saturating_product({2, elements, es});
    break;
  }
  }
  return x;
}

std::string op_size_problem(const OpSpec& op) {
  switch (op.kind) {
  case OpKind::Cycles:
    return "";
  case OpKind::Conv2d:
    if (out_height(op) == 0 || out_width(op) == 0)
      return "the filter is larger than the padded input";
    break;
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool:
    if (out_height(op) == 0 || out_width(op) == 0)
      return "the window is larger than the padded input";
    break;
  default:
    break;
  }
  // Below these caps every product of sizes the planner and the compute unit form (a
  // tile's offsets, bytes and cycles, the op's totals) fits in 64 bits with room to spare.
  constexpr uint64_t kMaxWork = 1'000'000'000'000'000'000ull; // 1e18 operations
  constexpr uint64_t kMaxBytes = 1'000'000'000'000'000ull;    // 1e15 bytes
  const OpExtent x = op_extent(op);
  if (saturating_add(x.macs, x.vector_ops) > kMaxWork)
    return "too much work to simulate (over 1e18 operations)";
  if (x.bytes > kMaxBytes)
    return "operands too large (over 1e15 bytes)";
  return "";
}

OpWork op_work(const OpSpec& op, const ArrayShape& array, uint32_t units) {
  ComputeModel model;
  model.array = array;
  units = std::max<uint32_t>(units, 1);
  // "Unlimited" SRAM: 1 TiB, so the planner weighs only compute, traffic and overlap.
  return plan_tiles(op, model, 1ull << 40, units, 0).totals();
}

} // namespace npu
