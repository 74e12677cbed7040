// Op cost summaries (op_work), im2col and fully-connected lowering, names and sizes.
#include "common/checked_math.h"
#include "models/compute/op.h"
#include "models/compute/tiling.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace npu {
namespace {

OpSpec matmul(uint64_t m, uint64_t n, uint64_t k, DType dtype = DType::Int8) {
  OpSpec op;
  auto& shape = op.shape.emplace<MatmulOp>();
  op.dtype = dtype;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  return op;
}

OpSpec conv(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t k, uint64_t r, uint64_t s,
            uint64_t stride, uint64_t pad) {
  OpSpec op;
  auto& shape = op.shape.emplace<Conv2dOp>();
  shape.batch = n;
  shape.channels = c;
  shape.height = h;
  shape.width = w;
  shape.filters = k;
  shape.r = r;
  shape.s = s;
  shape.stride = stride;
  shape.pad = pad;
  return op;
}

const ArrayShape k32{32, 32};

// op_work is the first share's totals under the tiling a unit with unlimited SRAM
// would choose (models/compute/README.md); the systolic formulas themselves are
// checked tile by tile in tests/models/compute/tiling_test.cpp.
TEST(OpWork, IsTheUnlimitedSramPlan) {
  for (uint32_t units : {1u, 2u, 3u}) {
    ComputeModel model;
    model.array = k32;
    const OpWork w = op_work(matmul(64, 64, 64), k32, units);
    const OpWork p = plan_tiles(matmul(64, 64, 64), model, 1ull << 40, units, 0).totals();
    EXPECT_EQ(w.compute_cycles, p.compute_cycles);
    EXPECT_EQ(w.load_bytes, p.load_bytes);
    EXPECT_EQ(w.store_bytes, p.store_bytes);
    EXPECT_EQ(w.macs, p.macs);
  }
}

TEST(OpWork, Matmul64On32x32) {
  const OpWork w = op_work(matmul(64, 64, 64), k32, 1);
  // At least one pass over the 4 output blocks: 4 x (64 + 32 + 32 - 2); splitting k
  // into SRAM tiles (for overlap) adds a fill and drain per chunk.
  EXPECT_GE(w.compute_cycles, 504u);
  EXPECT_LE(w.compute_cycles, 2u * 504);
  EXPECT_EQ(w.macs, 64u * 64 * 64);
  EXPECT_GE(w.load_bytes, 64u * 64 + 64 * 64); // A and B at least once
  EXPECT_EQ(w.store_bytes, 64u * 64);          // C once
}

TEST(OpWork, MatmulBytesAndCyclesScaleWithDtype) {
  const OpWork i8 = op_work(matmul(64, 64, 64), k32, 1);
  const OpWork fp16 = op_work(matmul(64, 64, 64, DType::Fp16), k32, 1);
  EXPECT_EQ(fp16.load_bytes, 2 * i8.load_bytes);
  EXPECT_EQ(fp16.store_bytes, 2u * 64 * 64);
  EXPECT_EQ(fp16.compute_cycles, 2 * i8.compute_cycles); // 1/2 MAC per PE per cycle
  const OpWork fp32 = op_work(matmul(16, 8, 4, DType::Fp32), k32, 1);
  EXPECT_EQ(fp32.load_bytes, 4u * (16 * 4 + 4 * 8));
  EXPECT_EQ(fp32.store_bytes, 4u * 16 * 8);
  // One fold of the whole 32 x 32 array: 4 + 32 + 32 - 2 steps, 1/4 MAC per PE per cycle.
  EXPECT_EQ(fp32.compute_cycles, 4u * (4 + 32 + 32 - 2));
}

TEST(OpWork, PartialFoldsPayTheWholeArraysFillAndDrain) {
  // A 1 x 1 x 1 matmul uses one PE but waits for the whole array: 1 + 32 + 32 - 2.
  EXPECT_EQ(op_work(matmul(1, 1, 1), k32, 1).compute_cycles, 63u);
  // 33 x 32 outputs, k = 10: two folds (32 rows and 1 row) of 10 + 62 each.
  EXPECT_EQ(op_work(matmul(33, 32, 10), k32, 1).compute_cycles, 2 * (10u + 62));
}

TEST(OpWork, MultiUnitSplitsOutputBlocks) {
  // Compute-bound (k = 4096 per output), so the planner gives each unit its share.
  const OpWork one = op_work(matmul(256, 256, 4096), k32, 1);
  const OpWork two = op_work(matmul(256, 256, 4096), k32, 2);
  // Share 0 owns ceil(blocks / units) blocks: at least half, less than all.
  EXPECT_GE(two.macs, one.macs / 2);
  EXPECT_LT(two.macs, one.macs);
  EXPECT_GE(two.store_bytes, one.store_bytes / 2);
  EXPECT_LT(two.compute_cycles, one.compute_cycles);
  const OpWork four = op_work(matmul(256, 256, 4096), k32, 4);
  EXPECT_GE(four.macs, one.macs / 4);
  EXPECT_LT(four.macs, two.macs);
}

TEST(OpWork, ZeroUnitsMeansOne) {
  const OpWork zero = op_work(matmul(64, 64, 64), k32, 0);
  const OpWork one = op_work(matmul(64, 64, 64), k32, 1);
  EXPECT_EQ(zero.compute_cycles, one.compute_cycles);
  EXPECT_EQ(zero.macs, one.macs);
}

TEST(OpWork, CyclesKernel) {
  OpSpec op;
  auto& shape = op.shape.emplace<CyclesOp>();
  shape.cycles = 200;
  const OpWork w = op_work(op, k32, 4);
  EXPECT_EQ(w.compute_cycles, 200u);
  EXPECT_EQ(w.macs, 0u);
  EXPECT_EQ(w.load_bytes, 0u);
  EXPECT_EQ(w.store_bytes, 0u);
  uint64_t m = 9, n = 9, k = 9;
  lowered_matmul(op, &m, &n, &k);
  EXPECT_EQ(m + n + k, 0u);
}

TEST(OpLowering, MatmulIsItself) {
  uint64_t m = 0, n = 0, k = 0;
  lowered_matmul(matmul(7, 8, 9), &m, &n, &k);
  EXPECT_EQ(m, 7u);
  EXPECT_EQ(n, 8u);
  EXPECT_EQ(k, 9u);
}

TEST(OpLowering, Conv2dSamePaddingIm2col) {
  uint64_t m = 0, n = 0, k = 0;
  lowered_matmul(conv(1, 64, 56, 56, 64, 3, 3, 1, 1), &m, &n, &k);
  EXPECT_EQ(m, 56u * 56); // output pixels
  EXPECT_EQ(n, 64u);      // filters
  EXPECT_EQ(k, 64u * 9);  // c x r x s
}

TEST(OpLowering, Conv2dStrideAndNoPadding) {
  uint64_t m = 0, n = 0, k = 0;
  lowered_matmul(conv(2, 3, 224, 224, 64, 7, 7, 2, 3), &m, &n, &k);
  EXPECT_EQ(m, 2u * 112 * 112);
  EXPECT_EQ(n, 64u);
  EXPECT_EQ(k, 3u * 49);
  lowered_matmul(conv(1, 8, 10, 12, 4, 3, 5, 1, 0), &m, &n, &k);
  EXPECT_EQ(m, 8u * 8); // (10 - 3 + 1) x (12 - 5 + 1)
  EXPECT_EQ(k, 8u * 15);
}

TEST(OpWork, Conv2dSpecKernel) {
  const OpWork w = op_work(conv(1, 64, 56, 56, 64, 3, 3, 1, 1), k32, 1);
  // 3136 x 64 x 576 matmul: at least 98 x 2 blocks of 576 + 62 cycles.
  EXPECT_GE(w.compute_cycles, 196u * 638);
  EXPECT_EQ(w.macs, 3136u * 64 * 576);
  EXPECT_GE(w.load_bytes, 64u * 56 * 56 + 64 * 64 * 9); // input + weights
  EXPECT_LT(w.load_bytes, 3136u * 576);                 // not the im2col matrix
  EXPECT_EQ(w.store_bytes, 3136u * 64);
  // Share 0 of two owns ceil(blocks / 2): at least half of the work, less than all.
  const OpWork two = op_work(conv(1, 64, 56, 56, 64, 3, 3, 1, 1), k32, 2);
  EXPECT_GE(two.store_bytes, 3136u * 64 / 2);
  EXPECT_LT(two.store_bytes, 3136u * 64);
  EXPECT_GE(two.macs, 3136u * 64 * 576 / 2);
  EXPECT_LT(two.macs, w.macs);
}

TEST(OpLowering, FullyConnectedIsAMatmul) {
  OpSpec fc;
  auto& shape = fc.shape.emplace<FullyConnectedOp>();
  shape.batch = 8;
  shape.in_features = 1000;
  shape.out_features = 10;
  uint64_t m = 0, n = 0, k = 0;
  lowered_matmul(fc, &m, &n, &k);
  EXPECT_EQ(m, 8u);
  EXPECT_EQ(n, 10u);
  EXPECT_EQ(k, 1000u);
}

TEST(OpSize, ProblemsAreNamed) {
  EXPECT_EQ(op_size_problem(matmul(64, 64, 64)), "");
  EXPECT_NE(op_size_problem(matmul(1 << 24, 1 << 24, 1 << 24)), "");
  EXPECT_NE(op_size_problem(conv(1, 1, 2, 2, 1, 5, 5, 1, 0)), "");
}

TEST(CheckedMath, ProductsThatDoNotFitAreReportedOrSaturate) {
  EXPECT_EQ(checked_mul(1ull << 32, 1ull << 31), 1ull << 63);
  EXPECT_FALSE(checked_mul(1ull << 32, 1ull << 32));
  EXPECT_EQ(checked_product({1 << 24, 1 << 24, 1 << 15}), 1ull << 63);
  EXPECT_FALSE(checked_product({1 << 24, 1 << 24, 1 << 24}));
  EXPECT_FALSE(checked_add(~0ull, 1));
  EXPECT_EQ(saturating_product({1 << 24, 1 << 24, 1 << 24}), ~0ull);
  EXPECT_EQ(saturating_add(saturating_mul(~0ull, 2), 5), ~0ull);
  EXPECT_EQ(saturating_product({3, 5, 7}), 105u);
}

// n x ho x wo = 2^72 im2col rows wrapped to 0: the op passed as no work at all and the run
// looped at zero simulated time. Every product of sizes is now checked.
TEST(OpSize, Conv2dRowCountThatOverflowsIsTooMuchWork) {
  const OpSpec big = conv(1 << 24, 1, 1 << 24, 1 << 24, 1, 1, 1, 1, 0);
  EXPECT_EQ(op_size_problem(big), "too much work to simulate (over 1e18 operations)");
  EXPECT_EQ(op_extent(big).macs, ~0ull);
  uint64_t m = 0, n = 0, k = 0;
  EXPECT_THROW(lowered_matmul(big, &m, &n, &k), std::overflow_error);
  // The planner refuses it too, rather than planning with wrapped sizes.
  EXPECT_THROW(plan_tiles(big, ComputeModel{}, 1 << 20, 1, 0), std::overflow_error);
  // Products that wrap to a small non-zero number are caught the same way.
  const WindowOp huge = conv(1 << 24, 1 << 24, 1 << 24, 1 << 24, 0, 1, 1, 1, 0).as<Conv2dOp>();
  const OpSpec pool(PoolOp{huge});
  EXPECT_EQ(op_size_problem(pool), "too much work to simulate (over 1e18 operations)");
  OpSpec rows(SoftmaxOp{{1 << 24, 1 << 24}});
  EXPECT_EQ(op_size_problem(rows), "");
  rows.dtype = DType::Fp32;
  EXPECT_EQ(op_size_problem(rows), "operands too large (over 1e15 bytes)");
}

TEST(OpExtent, CountsEachOperandOnce) {
  const OpExtent mm = op_extent(matmul(64, 32, 16, DType::Fp16));
  EXPECT_EQ(mm.macs, 64u * 32 * 16);
  EXPECT_EQ(mm.bytes, (64u * 16 + 16 * 32 + 64 * 32) * 2);
  OpSpec e;
  auto& shape = e.shape.emplace<ElementwiseOp>();
  shape.elements = 1000;
  shape.inputs = 2;
  EXPECT_EQ(op_extent(e).vector_ops, 1000u);
  EXPECT_EQ(op_extent(e).bytes, 3000u);
}

TEST(OpNames, RoundTripAndSizes) {
  EXPECT_EQ(op_kind_from_name("cycles"), OpKind::Cycles);
  EXPECT_EQ(op_kind_from_name("matmul"), OpKind::Matmul);
  EXPECT_EQ(op_kind_from_name("conv2d"), OpKind::Conv2d);
  EXPECT_EQ(op_kind_from_name("depthwise_conv2d"), OpKind::DepthwiseConv2d);
  EXPECT_EQ(op_kind_from_name("layernorm"), OpKind::Layernorm);
  EXPECT_EQ(dataflow_from_name("weight_stationary"), Dataflow::WeightStationary);
  EXPECT_THROW(dataflow_from_name("row_stationary"), std::invalid_argument);
  EXPECT_EQ(dtype_from_name("int8"), DType::Int8);
  EXPECT_EQ(dtype_from_name("bf16"), DType::Bf16);
  EXPECT_EQ(dtype_bytes(DType::Int8), 1u);
  EXPECT_EQ(dtype_bytes(DType::Fp16), 2u);
  EXPECT_EQ(dtype_bytes(DType::Bf16), 2u);
  EXPECT_EQ(dtype_bytes(DType::Fp32), 4u);
  EXPECT_THROW(op_kind_from_name("conv3d"), std::invalid_argument);
  EXPECT_THROW(dtype_from_name("int4"), std::invalid_argument);
  for (const auto& name : op_kind_names())
    EXPECT_EQ(op_kind_names()[static_cast<size_t>(op_kind_from_name(name))], name);
  for (const auto& name : dtype_names())
    EXPECT_EQ(dtype_names()[static_cast<size_t>(dtype_from_name(name))], name);
}

TEST(OpSpec, EqualityComparesKindSizesAndDtype) {
  const OpSpec a = conv(1, 8, 8, 8, 4, 3, 3, 1, 1);
  EXPECT_EQ(a, conv(1, 8, 8, 8, 4, 3, 3, 1, 1));
  EXPECT_NE(a, conv(1, 8, 8, 8, 5, 3, 3, 1, 1));
  OpSpec f = a;
  f.dtype = DType::Fp16;
  EXPECT_NE(a, f);
  // The same window under another kind is another op.
  const OpSpec pool(PoolOp{a.as<Conv2dOp>()});
  const OpSpec dw(DepthwiseConv2dOp{a.as<Conv2dOp>()});
  EXPECT_NE(pool, dw);
  EXPECT_EQ(pool.kind(), OpKind::Pool);
  EXPECT_EQ(pool.window()->channels, 8u);
  EXPECT_EQ(pool.get_if<Conv2dOp>(), nullptr);
  EXPECT_EQ(pool.rowwise(), nullptr);
}

} // namespace
} // namespace npu
