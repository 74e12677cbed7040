#include "models/compute/op.h"

#include "common/checked_math.h"
#include "models/compute/tiling.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <type_traits>

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

bool CyclesOp::operator==(const CyclesOp& o) const {
  return std::tie(cycles, iterations) == std::tie(o.cycles, o.iterations);
}
bool MatmulOp::operator==(const MatmulOp& o) const {
  return std::tie(m, n, k, batch) == std::tie(o.m, o.n, o.k, o.batch);
}
bool WindowOp::operator==(const WindowOp& o) const {
  return std::tie(batch, channels, height, width, r, s, stride, pad) ==
         std::tie(o.batch, o.channels, o.height, o.width, o.r, o.s, o.stride, o.pad);
}
bool Conv2dOp::operator==(const Conv2dOp& o) const {
  return WindowOp::operator==(o) && filters == o.filters;
}
bool FullyConnectedOp::operator==(const FullyConnectedOp& o) const {
  return std::tie(batch, in_features, out_features) ==
         std::tie(o.batch, o.in_features, o.out_features);
}
bool ElementwiseOp::operator==(const ElementwiseOp& o) const {
  return std::tie(elements, inputs) == std::tie(o.elements, o.inputs);
}
bool RowwiseOp::operator==(const RowwiseOp& o) const {
  return std::tie(rows, cols, batch, over_rows) == std::tie(o.rows, o.cols, o.batch, o.over_rows);
}

// OpKind names the variant's alternatives in order.
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<size_t>(OpKind::Pool), OpShape>, PoolOp>);
static_assert(std::variant_size_v<OpShape> == static_cast<size_t>(OpKind::Layernorm) + 1);

OpShape op_shape(OpKind kind) {
  switch (kind) {
  case OpKind::Cycles:
    return CyclesOp{};
  case OpKind::Matmul:
    return MatmulOp{};
  case OpKind::Conv2d:
    return Conv2dOp{};
  case OpKind::DepthwiseConv2d:
    return DepthwiseConv2dOp{};
  case OpKind::Pool:
    return PoolOp{};
  case OpKind::FullyConnected:
    return FullyConnectedOp{};
  case OpKind::Elementwise:
    return ElementwiseOp{};
  case OpKind::Softmax:
    return SoftmaxOp{};
  case OpKind::Layernorm:
    return LayernormOp{};
  }
  return CyclesOp{};
}

const WindowOp* OpSpec::window() const {
  if (const auto* c = get_if<Conv2dOp>())
    return c;
  if (const auto* d = get_if<DepthwiseConv2dOp>())
    return d;
  return get_if<PoolOp>();
}

const RowwiseOp* OpSpec::rowwise() const {
  if (const auto* sm = get_if<SoftmaxOp>())
    return sm;
  return get_if<LayernormOp>();
}

uint64_t out_height(const WindowOp& op) {
  const uint64_t padded = op.height + 2 * op.pad;
  if (op.stride == 0 || padded < op.r)
    return 0;
  return (padded - op.r) / op.stride + 1;
}

uint64_t out_width(const WindowOp& op) {
  const uint64_t padded = op.width + 2 * op.pad;
  if (op.stride == 0 || padded < op.s)
    return 0;
  return (padded - op.s) / op.stride + 1;
}

void lowered_matmul(const OpSpec& op, uint64_t* m, uint64_t* n, uint64_t* k) {
  *m = *n = *k = 0;
  if (const auto* mm = op.get_if<MatmulOp>()) {
    *m = saturating_mul(std::max<uint64_t>(mm->batch, 1), mm->m);
    *n = mm->n;
    *k = mm->k;
  } else if (const auto* c = op.get_if<Conv2dOp>()) {
    const auto rows = checked_product({c->batch, out_height(*c), out_width(*c)});
    if (!rows)
      throw std::overflow_error("conv2d: the im2col row count n x ho x wo does not fit in 64 "
                                "bits");
    *m = *rows;
    *n = c->filters;
    *k = saturating_product({c->channels, c->r, c->s});
  } else if (const auto* fc = op.get_if<FullyConnectedOp>()) {
    *m = fc->batch;
    *n = fc->out_features;
    *k = fc->in_features;
  }
}

GemmShape gemm_shape(const OpSpec& op) {
  GemmShape g;
  if (const auto* mm = op.get_if<MatmulOp>()) {
    g.batches = std::max<uint64_t>(mm->batch, 1);
    g.m = mm->m;
    g.n = mm->n;
    g.k = mm->k;
    return g;
  }
  if (op.kind() != OpKind::Conv2d && op.kind() != OpKind::FullyConnected)
    return g;
  g.batches = 1;
  lowered_matmul(op, &g.m, &g.n, &g.k);
  return g;
}

namespace {

OpExtent gemm_extent(const OpSpec& op, uint64_t es) {
  // Not lowered_matmul(): its conv2d row count must not wrap here.
  uint64_t m = 0, n = 0, k = 0;
  if (const auto* c = op.get_if<Conv2dOp>()) {
    m = saturating_product({c->batch, out_height(*c), out_width(*c)});
    n = c->filters;
    k = saturating_product({c->channels, c->r, c->s});
  } else {
    lowered_matmul(op, &m, &n, &k);
  }
  OpExtent x;
  x.macs = saturating_product({m, n, k});
  // A batched matmul has one B per batch.
  const auto* mm = op.get_if<MatmulOp>();
  const uint64_t b_copies = mm ? std::max<uint64_t>(mm->batch, 1) : 1;
  const uint64_t elements =
      saturating_add(saturating_add(saturating_mul(m, k), saturating_product({b_copies, k, n})),
                     saturating_mul(m, n));
  x.bytes = saturating_mul(elements, es);
  return x;
}

} // namespace

OpExtent op_extent(const OpSpec& op) {
  // Saturating: a product that does not fit stays at UINT64_MAX through every later step.
  const uint64_t es = dtype_bytes(op.dtype);
  OpExtent x;
  switch (op.kind()) {
  case OpKind::Cycles:
    x.unit_cycles = op.as<CyclesOp>().cycles;
    break;
  case OpKind::Matmul:
  case OpKind::FullyConnected:
  case OpKind::Conv2d:
    x = gemm_extent(op, es);
    break;
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool: {
    const WindowOp& w = *op.window();
    const uint64_t outputs = saturating_product({w.batch, w.channels, out_height(w), out_width(w)});
    x.vector_ops = saturating_product({outputs, w.r, w.s});
    const uint64_t inputs = saturating_product({w.batch, w.channels, w.height, w.width});
    x.bytes = saturating_mul(saturating_add(inputs, outputs), es);
    break;
  }
  case OpKind::Elementwise: {
    const auto& e = op.as<ElementwiseOp>();
    x.vector_ops = e.elements;
    x.bytes = saturating_product({e.elements, uint64_t{e.inputs} + 1, es});
    break;
  }
  case OpKind::Softmax:
  case OpKind::Layernorm: {
    const RowwiseOp& rw = *op.rowwise();
    const uint64_t elements = saturating_product({rw.batch, rw.rows, rw.cols});
    x.vector_ops = saturating_mul(elements, rowwise_ops(op.kind()));
    const uint64_t affine = op.kind() == OpKind::Layernorm ? 2 * rw.length() : 0;
    x.bytes = saturating_mul(saturating_add(saturating_mul(2, elements), affine), es);
    break;
  }
  }
  return x;
}

std::string op_size_problem(const OpSpec& op) {
  if (op.kind() == OpKind::Cycles)
    return "";
  if (const WindowOp* w = op.window(); w && (out_height(*w) == 0 || out_width(*w) == 0))
    return op.kind() == OpKind::Conv2d ? "the filter is larger than the padded input"
                                       : "the window is larger than the padded input";
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
