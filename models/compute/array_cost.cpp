// Cycle formulas of the MAC array and the vector unit (models/compute/README.md).
#include "models/compute/plan_internal.h"

#include <algorithm>

namespace npu {

namespace {
ComputeModel plain(Dataflow dataflow, const ArrayShape& array) {
  ComputeModel m;
  m.dataflow = dataflow;
  m.array = array;
  return m;
}
} // namespace

uint64_t gemm_tile_folds(const ComputeModel& model, uint64_t mt, uint64_t nt, uint64_t kt,
                         uint64_t k_groups) {
  if (mt == 0 || nt == 0 || kt == 0)
    return 0;
  const uint64_t rows = model.array.rows, cols = model.array.cols;
  k_groups = std::clamp<uint64_t>(k_groups, 1, kt);
  // Folds along the reduction when it lies on the rows: groups never share a fold.
  const uint64_t k_folds = k_groups * ceil_div(ceil_div(kt, k_groups), rows);
  switch (model.dataflow) {
  case Dataflow::OutputStationary: // outputs on the PEs; k streams in time
    return ceil_div(mt, rows) * ceil_div(nt, cols);
  case Dataflow::WeightStationary: // k x n weights on the PEs
    return k_folds * ceil_div(nt, cols);
  case Dataflow::InputStationary: // k x m inputs on the PEs
    return k_folds * ceil_div(mt, cols);
  }
  return 0;
}

uint64_t gemm_tile_folds(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt) {
  return gemm_tile_folds(plain(dataflow, array), mt, nt, kt);
}

uint64_t gemm_tile_steps(const ComputeModel& model, uint64_t mt, uint64_t nt, uint64_t kt,
                         uint64_t k_groups) {
  const uint64_t folds = gemm_tile_folds(model, mt, nt, kt, k_groups);
  if (folds == 0)
    return 0;
  const uint64_t rows = model.array.rows, cols = model.array.cols;
  if (model.dataflow == Dataflow::OutputStationary)
    // kt reduction steps after rows + cols - 2 of skew; outputs drain before the next fold.
    return folds * (kt + rows + cols - 2);
  // Weight stationary streams mt input rows per fold, input stationary nt weight columns.
  const uint64_t streamed = model.dataflow == Dataflow::WeightStationary ? mt : nt;
  if (model.double_buffered_stationary)
    // Each fold's operand shifts in behind the stream of the fold before (hidden when
    // that stream is at least `rows` long): the array streams from fold to fold and from
    // tile to tile; the first shift and the last drain are gemm_stream_ends().
    return folds * std::max(streamed, rows);
  // rows steps to shift the stationary operand in, then the stream with fill and drain.
  return folds * (streamed + 2 * rows + cols - 2);
}

uint64_t gemm_stream_ends(const ComputeModel& model) {
  if (!model.double_buffered_stationary || model.dataflow == Dataflow::OutputStationary)
    return 0;
  const uint64_t rows = model.array.rows, cols = model.array.cols;
  return rows + rows + cols - 2; // the first operand shifts in; the last results drain
}

uint64_t gemm_tile_steps(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt) {
  return gemm_tile_steps(plain(dataflow, array), mt, nt, kt);
}

uint64_t vector_cycles(uint64_t ops, uint32_t lanes, DType dtype) {
  return ceil_div(ops * dtype_cycles_per_op(dtype), std::max<uint32_t>(lanes, 1));
}

uint64_t reduction_cycles(uint32_t lanes) {
  uint64_t levels = 0;
  for (uint64_t width = 1; width < lanes; width *= 2)
    ++levels;
  return levels;
}

uint32_t rowwise_passes(OpKind kind) {
  return kind == OpKind::Softmax || kind == OpKind::Layernorm ? 3 : 0;
}

uint32_t rowwise_reductions(OpKind kind) {
  return kind == OpKind::Softmax || kind == OpKind::Layernorm ? 2 : 0;
}

uint32_t rowwise_pass_ops(OpKind kind, uint32_t pass) {
  // softmax: max (a compare); x - max, exp and the sum; the multiply by 1 / sum.
  // layernorm: the sum for the mean; x - mean, its square and their sum for the
  // variance; x - mean, times rstd, times gamma, plus beta.
  static constexpr uint32_t kSoftmax[3] = {1, 3, 1};
  static constexpr uint32_t kLayernorm[3] = {1, 3, 4};
  if (pass >= 3)
    return 0;
  if (kind == OpKind::Softmax)
    return kSoftmax[pass];
  return kind == OpKind::Layernorm ? kLayernorm[pass] : 0;
}

uint32_t rowwise_ops(OpKind kind) {
  uint32_t ops = 0;
  for (uint32_t p = 0; p < rowwise_passes(kind); ++p)
    ops += rowwise_pass_ops(kind, p);
  return ops;
}

uint64_t row_reduction_cycles(const ComputeModel& model, uint64_t cols, DType dtype) {
  // A row longer than a vector is first added up vector by vector (the pass's element
  // operations); the tree then spans one vector's elements, or the row if shorter.
  const uint64_t per_vector =
      std::max<uint64_t>(1, model.vector_lanes / dtype_cycles_per_op(dtype));
  const auto width = static_cast<uint32_t>(std::min<uint64_t>(cols, per_vector));
  return reduction_cycles(width) * model.reduction_level_cycles;
}

uint64_t row_piece_cycles(const ComputeModel& model, OpKind kind, uint32_t pass, uint64_t n,
                          uint64_t cols, DType dtype, bool tree) {
  const uint64_t ops = rowwise_pass_ops(kind, pass);
  if (pass >= rowwise_reductions(kind))
    return ops * vector_cycles(n, model.vector_lanes, dtype);
  // The pass's reduction (max or sum) crosses lanes: it runs on the reduction network.
  const uint32_t lanes = model.reduction_lanes > 0 ? model.reduction_lanes : model.vector_lanes;
  return (ops - 1) * vector_cycles(n, model.vector_lanes, dtype) + vector_cycles(n, lanes, dtype) +
         (tree ? row_reduction_cycles(model, cols, dtype) : 0);
}

uint64_t row_pass_cycles(const ComputeModel& model, OpKind kind, uint32_t pass, uint64_t rows,
                         uint64_t cols, DType dtype) {
  return rows * row_piece_cycles(model, kind, pass, cols, cols, dtype, true);
}

} // namespace npu
