// Cycle formulas of the MAC array and the vector unit (models/compute/README.md).
#include "models/compute/plan_internal.h"

namespace npu {

uint64_t gemm_tile_folds(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt) {
  if (mt == 0 || nt == 0 || kt == 0)
    return 0;
  const uint64_t rows = array.rows, cols = array.cols;
  switch (dataflow) {
  case Dataflow::OutputStationary: // outputs on the PEs
    return ceil_div(mt, rows) * ceil_div(nt, cols);
  case Dataflow::WeightStationary: // k x n weights on the PEs
    return ceil_div(kt, rows) * ceil_div(nt, cols);
  case Dataflow::InputStationary: // k x m inputs on the PEs
    return ceil_div(kt, rows) * ceil_div(mt, cols);
  }
  return 0;
}

uint64_t gemm_tile_steps(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt) {
  const uint64_t folds = gemm_tile_folds(dataflow, array, mt, nt, kt);
  if (folds == 0)
    return 0;
  const uint64_t rows = array.rows, cols = array.cols;
  switch (dataflow) {
  case Dataflow::OutputStationary:
    // kt reduction steps after rows + cols - 2 of skew; outputs drain before the next fold.
    return folds * (kt + rows + cols - 2);
  case Dataflow::WeightStationary:
    // rows steps to shift the weights in, then mt inputs stream with fill and drain.
    return folds * (mt + 2 * rows + cols - 2);
  case Dataflow::InputStationary:
    // rows steps to shift the inputs in, then nt weight columns stream.
    return folds * (nt + 2 * rows + cols - 2);
  }
  return 0;
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
  // softmax: max; exp(x - max) and sum; scale by 1/sum.
  // layernorm: mean; variance; (x - mean) x rstd x gamma + beta.
  return kind == OpKind::Softmax || kind == OpKind::Layernorm ? 3 : 0;
}

uint32_t rowwise_reductions(OpKind kind) {
  return kind == OpKind::Softmax || kind == OpKind::Layernorm ? 2 : 0;
}

} // namespace npu
