// Tiling and cost formulas of the compute units (plain logic, no SystemC time):
// systolic tile steps per dataflow, vector-unit cycles, the dtype table, plans that
// fit the SRAM partition and cover the op exactly, shares, and cyclic region mapping.
#include "models/compute/op.h"
#include "models/compute/tiling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npu {
namespace {

const ArrayShape k32{32, 32};

OpSpec matmul(uint64_t m, uint64_t n, uint64_t k, DType dtype = DType::Int8) {
  OpSpec op;
  auto& shape = op.shape.emplace<MatmulOp>();
  op.dtype = dtype;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  return op;
}

OpSpec window(OpKind kind, uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t k, uint64_t r,
              uint64_t s, uint64_t stride, uint64_t pad) {
  const WindowOp g{n, c, h, w, r, s, stride, pad};
  if (kind == OpKind::Conv2d)
    return OpSpec(Conv2dOp{g, k});
  if (kind == OpKind::DepthwiseConv2d)
    return OpSpec(DepthwiseConv2dOp{g});
  return OpSpec(PoolOp{g});
}

ComputeModel model(Dataflow df = Dataflow::OutputStationary, uint32_t lanes = 64) {
  ComputeModel m;
  m.array = k32;
  m.dataflow = df;
  m.vector_lanes = lanes;
  return m;
}

// --- Systolic formulas, by hand --------------------------------------------------

TEST(TileSteps, OutputStationaryFoldIsKPlusRowsPlusColsMinusTwo) {
  EXPECT_EQ(gemm_tile_steps(Dataflow::OutputStationary, k32, 32, 32, 4096), 4096u + 62);
  // A partly occupied fold still pays the whole array's fill and drain (as SCALE-Sim).
  EXPECT_EQ(gemm_tile_steps(Dataflow::OutputStationary, k32, 16, 16, 16), 16u + 62);
  EXPECT_EQ(gemm_tile_steps(Dataflow::OutputStationary, k32, 1, 1, 1), 1u + 62);
  EXPECT_EQ(gemm_tile_folds(Dataflow::OutputStationary, k32, 16, 16, 16), 1u);
}

TEST(TileSteps, OutputStationarySumsOverOutputFolds) {
  // 64 x 48 outputs on 32 x 32: 2 x 2 folds of kt + 62, partial ones included.
  const uint64_t kt = 40;
  EXPECT_EQ(gemm_tile_folds(Dataflow::OutputStationary, k32, 64, 48, kt), 4u);
  EXPECT_EQ(gemm_tile_steps(Dataflow::OutputStationary, k32, 64, 48, kt), 4 * (kt + 62));
  EXPECT_EQ(gemm_tile_steps(Dataflow::OutputStationary, k32, 33, 32, 10), 2 * (10u + 62));
}

TEST(TileSteps, WeightStationaryFoldShiftsWeightsInThenStreamsTheRows) {
  // Weights 40 x 48 on 32 x 32: ceil(40/32) x ceil(48/32) = 4 folds, each
  // mt + 2 x 32 + 32 - 2 with mt = 64 rows streaming.
  const uint64_t mt = 64;
  EXPECT_EQ(gemm_tile_folds(Dataflow::WeightStationary, k32, mt, 48, 40), 4u);
  EXPECT_EQ(gemm_tile_steps(Dataflow::WeightStationary, k32, mt, 48, 40), 4 * (mt + 94));
  EXPECT_EQ(gemm_tile_steps(Dataflow::WeightStationary, k32, 4096, 32, 32), 4096u + 94);
}

TEST(TileSteps, InputStationaryFoldShiftsInputsInThenStreamsTheColumns) {
  // Inputs 64 x 40 (k = 40 on rows, m = 64 on columns): 2 x 2 folds of nt + 94.
  const uint64_t nt = 48;
  EXPECT_EQ(gemm_tile_folds(Dataflow::InputStationary, k32, 64, nt, 40), 4u);
  EXPECT_EQ(gemm_tile_steps(Dataflow::InputStationary, k32, 64, nt, 40), 4 * (nt + 94));
}

TEST(TileSteps, NonSquareArray) {
  const ArrayShape a{16, 8};
  // 64 x 64 outputs on 16 x 8: 4 x 8 folds of 64 + 16 + 8 - 2; weight stationary
  // 4 x 8 folds of 64 + 2 x 16 + 8 - 2.
  EXPECT_EQ(gemm_tile_steps(Dataflow::OutputStationary, a, 64, 64, 64), 32u * 86);
  EXPECT_EQ(gemm_tile_steps(Dataflow::WeightStationary, a, 64, 64, 64), 32u * 102);
}

TEST(TileSteps, EmptyTileTakesNoTime) {
  EXPECT_EQ(gemm_tile_steps(Dataflow::OutputStationary, k32, 0, 4, 4), 0u);
  EXPECT_EQ(gemm_tile_steps(Dataflow::WeightStationary, k32, 4, 0, 4), 0u);
  EXPECT_EQ(gemm_tile_steps(Dataflow::InputStationary, k32, 4, 4, 0), 0u);
}

TEST(DTypes, TableOfBytesAndRates) {
  EXPECT_EQ(dtype_bytes(DType::Int8), 1u);
  EXPECT_EQ(dtype_bytes(DType::Fp16), 2u);
  EXPECT_EQ(dtype_bytes(DType::Bf16), 2u);
  EXPECT_EQ(dtype_bytes(DType::Fp32), 4u);
  // int8 1 MAC/PE/cycle, fp16 and bf16 1/2, fp32 1/4.
  EXPECT_EQ(dtype_cycles_per_op(DType::Int8), 1u);
  EXPECT_EQ(dtype_cycles_per_op(DType::Fp16), 2u);
  EXPECT_EQ(dtype_cycles_per_op(DType::Bf16), 2u);
  EXPECT_EQ(dtype_cycles_per_op(DType::Fp32), 4u);
}

TEST(VectorUnit, CyclesAndReductions) {
  EXPECT_EQ(vector_cycles(64, 64, DType::Int8), 1u);
  EXPECT_EQ(vector_cycles(65, 64, DType::Int8), 2u);
  EXPECT_EQ(vector_cycles(64, 64, DType::Fp16), 2u);
  EXPECT_EQ(vector_cycles(64, 64, DType::Fp32), 4u);
  EXPECT_EQ(vector_cycles(1000, 16, DType::Int8), 63u);
  EXPECT_EQ(reduction_cycles(64), 6u);
  EXPECT_EQ(reduction_cycles(48), 6u);
  EXPECT_EQ(reduction_cycles(1), 0u);
  EXPECT_EQ(rowwise_passes(OpKind::Softmax), 3u);
  EXPECT_EQ(rowwise_reductions(OpKind::Softmax), 2u);
  EXPECT_EQ(rowwise_passes(OpKind::Layernorm), 3u);
  EXPECT_EQ(rowwise_reductions(OpKind::Layernorm), 2u);
}

// --- Plans ------------------------------------------------------------------------

// Every op the planner knows, small and large.
std::vector<OpSpec> sample_ops() {
  std::vector<OpSpec> ops;
  ops.push_back(matmul(16, 16, 16));
  ops.push_back(matmul(100, 70, 300, DType::Fp16));
  ops.push_back(matmul(1024, 512, 2048));
  ops.push_back(matmul(1, 4096, 4096, DType::Fp32));
  ops.push_back(window(OpKind::Conv2d, 1, 64, 56, 56, 64, 3, 3, 1, 1));
  ops.push_back(window(OpKind::Conv2d, 2, 3, 224, 224, 64, 7, 7, 2, 3));
  ops.push_back(window(OpKind::Conv2d, 1, 512, 7, 7, 512, 3, 3, 1, 1));
  ops.push_back(window(OpKind::DepthwiseConv2d, 1, 96, 112, 112, 0, 3, 3, 2, 1));
  ops.push_back(window(OpKind::Pool, 1, 64, 112, 112, 0, 2, 2, 2, 0));
  ops.push_back(window(OpKind::Pool, 1, 3, 9, 7, 0, 3, 3, 1, 0));
  ops.push_back(OpSpec(FullyConnectedOp{8, 1000, 300}));
  ops.push_back(OpSpec(ElementwiseOp{1'000'003, 2}));
  ops.push_back(OpSpec(SoftmaxOp{{77, 1000}}));
  // A row does not fit 112 KiB in bf16: streamed in chunks per pass.
  ops.push_back(OpSpec(LayernormOp{{3, 100'000}}, DType::Bf16));
  return ops;
}

uint64_t output_bytes(const OpSpec& op) {
  const uint64_t es = dtype_bytes(op.dtype);
  uint64_t m = 0, n = 0, k = 0;
  lowered_matmul(op, &m, &n, &k);
  const WindowOp* g = op.window();
  const RowwiseOp* rw = op.rowwise();
  switch (op.kind()) {
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool:
    return g->batch * g->channels * out_height(*g) * out_width(*g) * es;
  case OpKind::Elementwise:
    return op.as<ElementwiseOp>().elements * es;
  case OpKind::Softmax:
  case OpKind::Layernorm:
    return rw->rows * rw->cols * es;
  default:
    return m * n * es;
  }
}

uint64_t useful_work(const OpSpec& op) {
  uint64_t m = 0, n = 0, k = 0;
  lowered_matmul(op, &m, &n, &k);
  const WindowOp* g = op.window();
  const RowwiseOp* rw = op.rowwise();
  switch (op.kind()) {
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool:
    return g->batch * g->channels * out_height(*g) * out_width(*g) * g->r * g->s;
  case OpKind::Elementwise:
    return op.as<ElementwiseOp>().elements;
  case OpKind::Softmax:
  case OpKind::Layernorm:
    return rowwise_ops(op.kind()) * rw->rows * rw->cols;
  default:
    return m * n * k;
  }
}

TEST(TilePlan, EveryOpFitsItsPartitionAndCoversTheOpExactly) {
  for (const uint64_t partition : {uint64_t{4096}, uint64_t{112} << 10, uint64_t{4} << 20}) {
    for (const OpSpec& op : sample_ops()) {
      for (const Dataflow df :
           {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
        SCOPED_TRACE(op_kind_name(op.kind()) + " in " + std::to_string(partition) + " bytes, " +
                     dataflow_name(df));
        const TilePlan plan = plan_tiles(op, model(df), partition, 1, 0);
        EXPECT_LE(plan.footprint_bytes(), partition) << plan.shape();
        const OpWork w = plan.totals();
        EXPECT_EQ(w.macs + w.vector_ops, useful_work(op));
        EXPECT_EQ(w.store_bytes, output_bytes(op)); // every result stored exactly once
        // Each load stays inside the operand buffers, each store inside its result buffer.
        for (uint64_t i = 0; i < plan.size(); ++i) {
          const Tile t = plan.tile(i);
          for (const auto& l : t.loads)
            EXPECT_LE(l.sram_offset + l.bytes(), plan.buffers() * plan.operand_buffer_bytes());
          for (const auto& s : t.stores)
            EXPECT_LE(s.sram_offset + s.bytes(), plan.result_buffer_bytes());
        }
      }
    }
  }
}

// Sums each operand's loads over the plan's tiles.
std::array<uint64_t, 2> operand_loads(const TilePlan& plan) {
  std::array<uint64_t, 2> loads{};
  for (uint64_t i = 0; i < plan.size(); ++i)
    for (const auto& l : plan.tile(i).loads)
      loads.at(l.operand) += l.bytes();
  return loads;
}

TEST(TilePlan, MatmulLoadsFollowTheTileCounts) {
  // Split reductions reload both blocks per tile: A once per column block, B once per row
  // block. Whole-k tiles keep one block resident: it is read once, the other once per
  // block of the resident operand.
  const OpSpec op = matmul(1024, 512, 2048);
  for (const uint64_t partition : {uint64_t{112} << 10, uint64_t{8} << 20}) {
    const TilePlan plan = plan_tiles(op, model(), partition, 1, 0);
    SCOPED_TRACE(plan.shape());
    const std::array<uint64_t, 2> loads = operand_loads(plan);
    EXPECT_EQ(loads[0] + loads[1], plan.totals().load_bytes);
    ASSERT_EQ(loads[0] % (1024u * 2048), 0u);
    ASSERT_EQ(loads[1] % (2048u * 512), 0u);
    const uint64_t a_passes = loads[0] / (1024u * 2048), b_passes = loads[1] / (2048u * 512);
    if (plan.chunks() > 1)
      EXPECT_EQ(a_passes * b_passes, plan.blocks());
    else
      EXPECT_EQ(std::min(a_passes, b_passes), 1u);
  }
}

TEST(TilePlan, AResidentBlockIsLoadedOnceAndKeptInItsSlot) {
  // Whole-k tiles along a row of output blocks: the A block loads with the row's first
  // tile only; B loads with every tile, in alternate slots after the A slots.
  const OpSpec op = matmul(512, 2048, 256);
  const TilePlan plan = plan_tiles(op, model(), 1 << 20, 1, 0);
  ASSERT_EQ(plan.chunks(), 1u) << plan.shape();
  const std::array<uint64_t, 2> loads = operand_loads(plan);
  const uint64_t a_passes = loads[0] / (512u * 256), b_passes = loads[1] / (256u * 2048);
  EXPECT_EQ(std::min(a_passes, b_passes), 1u) << plan.shape();
  EXPECT_GT(std::max(a_passes, b_passes), 1u) << plan.shape();
  uint64_t with_both = 0;
  for (uint64_t i = 0; i < plan.size(); ++i)
    with_both += plan.tile(i).loads.size() >= 2 ? 1 : 0;
  EXPECT_LT(with_both, plan.size()); // some tiles find a block resident
}

TEST(TilePlan, Matmul4096OnFourMiBReachesNinetyPercentOfTheArray) {
  const OpSpec op = matmul(4096, 4096, 4096);
  const TilePlan plan = plan_tiles(op, model(), 4 << 20, 1, 0);
  const OpWork w = plan.totals();
  const double utilisation =
      static_cast<double>(w.macs) / (static_cast<double>(w.compute_cycles) * 1024);
  EXPECT_GE(utilisation, 0.9) << plan.shape();
}

TEST(TilePlan, FloatTypesTakeProportionallyLonger) {
  // Memory that never limits: the tiling depends on the array cycles alone.
  PlanTarget fast;
  fast.model = model();
  fast.partition_bytes = 1 << 20;
  fast.ddr_bytes_per_s = fast.port_bytes_per_s = fast.ddr_activates_per_s = 1e18;
  fast.latency_s = fast.descriptor_s = 0;
  const TilePlan i8 = plan_tiles(matmul(64, 64, 64), fast, 1, 0);
  const TilePlan f16 = plan_tiles(matmul(64, 64, 64, DType::Fp16), fast, 1, 0);
  const TilePlan f32 = plan_tiles(matmul(64, 64, 64, DType::Fp32), fast, 1, 0);
  ASSERT_EQ(f16.shape(), i8.shape());
  ASSERT_EQ(f32.shape(), i8.shape());
  const uint64_t steps = i8.totals().compute_cycles;
  EXPECT_EQ(f16.totals().compute_cycles, 2 * steps);
  EXPECT_EQ(f32.totals().compute_cycles, 4 * steps);
  EXPECT_EQ(f16.totals().load_bytes, 2 * i8.totals().load_bytes);
  // A 32 x 32 x 32 fp32 tile: one block of 32 + 62 steps, 4 cycles each.
  const TilePlan one = plan_tiles(matmul(32, 32, 32, DType::Fp32), model(), 1 << 20, 1, 0);
  if (one.size() == 1) {
    EXPECT_EQ(one.tile(0).cycles, 4u * (32 + 62));
  }
}

TEST(TilePlan, SharesSplitTheBlocksWithoutOverlap) {
  for (const OpSpec& op : sample_ops()) {
    SCOPED_TRACE(op_kind_name(op.kind()));
    const TilePlan whole = plan_tiles(op, model(), 112 << 10, 3, 0);
    uint64_t work = 0, stores = 0, tiles = 0;
    for (uint32_t share = 0; share < 3; ++share) {
      const TilePlan p = plan_tiles(op, model(), 112 << 10, 3, share);
      EXPECT_EQ(p.shape(), whole.shape());
      const OpWork w = p.totals();
      work += w.macs + w.vector_ops;
      stores += w.store_bytes;
      tiles += p.size();
    }
    EXPECT_EQ(work, useful_work(op));
    EXPECT_EQ(stores, output_bytes(op));
    EXPECT_EQ(tiles, whole.blocks() * whole.chunks());
  }
}

TEST(TilePlan, ShareZeroIsNeverSmaller) {
  // 64^3 on two units: share 0 takes ceil(blocks / 2).
  const TilePlan p0 = plan_tiles(matmul(64, 64, 64), model(), 1 << 20, 2, 0);
  const TilePlan p1 = plan_tiles(matmul(64, 64, 64), model(), 1 << 20, 2, 1);
  EXPECT_GE(p0.size(), p1.size());
  EXPECT_GE(p0.size(), 1u);
}

TEST(TilePlan, CyclesKernelIsOneTileOnEveryShare) {
  OpSpec op;
  auto& shape = op.shape.emplace<CyclesOp>();
  shape.cycles = 200;
  for (uint32_t share = 0; share < 4; ++share) {
    const TilePlan p = plan_tiles(op, model(), 1024, 4, share);
    ASSERT_EQ(p.size(), 1u);
    const Tile t = p.tile(0);
    EXPECT_EQ(t.cycles, 200u);
    EXPECT_TRUE(t.loads.empty());
    EXPECT_TRUE(t.stores.empty());
  }
}

TEST(TilePlan, ElementwiseTilesAreOneVectorPass) {
  OpSpec op;
  auto& shape = op.shape.emplace<ElementwiseOp>();
  shape.elements = 1 << 20;
  shape.inputs = 2;
  op.dtype = DType::Fp16;
  const TilePlan p = plan_tiles(op, model(), 112 << 10, 1, 0);
  const Tile t = p.tile(0);
  ASSERT_EQ(t.loads.size(), 2u);
  EXPECT_EQ(t.loads[0].operand, 0u);
  EXPECT_EQ(t.loads[1].operand, 1u);
  const uint64_t elements = t.loads[0].bytes() / 2;
  EXPECT_EQ(t.cycles, (elements * 2 + 63) / 64); // fp16: 2 cycles per element per lane
  EXPECT_EQ(t.engine, Engine::Vector);
  const OpWork w = p.totals();
  EXPECT_EQ(w.load_bytes, 2u * 2 * (1 << 20));
  EXPECT_EQ(w.compute_cycles, (1u << 20) * 2 / 64);
}

TEST(TilePlan, SoftmaxWholeRowsTakeThreePassesAndTwoReductions) {
  OpSpec op;
  auto& shape = op.shape.emplace<SoftmaxOp>();
  shape.rows = 8;
  shape.cols = 1000;
  const TilePlan p = plan_tiles(op, model(), 1 << 20, 1, 0);
  const OpWork w = p.totals();
  // Per row: 1 + 3 + 1 operations per element, ceil(1000 / 64) = 16 cycles each, and 2
  // reduction trees of log2(64) = 6 levels; x read once (resident passes).
  EXPECT_EQ(w.compute_cycles, 8u * (5 * 16 + 2 * 6));
  EXPECT_EQ(w.vector_ops, 8u * 5 * 1000);
  EXPECT_EQ(w.load_bytes, 8000u);
  EXPECT_EQ(w.store_bytes, 8000u);
}

TEST(TilePlan, LayernormRowsTooLongStreamOncePerPass) {
  OpSpec op;
  auto& shape = op.shape.emplace<LayernormOp>();
  shape.rows = 2;
  shape.cols = 1 << 20;
  const TilePlan p = plan_tiles(op, model(), 64 << 10, 1, 0);
  const OpWork w = p.totals();
  // x is read in every pass; gamma and beta in the last; results written once.
  EXPECT_EQ(w.load_bytes, 2u * 3 * (1 << 20) + 2u * 2 * (1 << 20));
  EXPECT_EQ(w.store_bytes, 2u << 20);
  EXPECT_EQ(w.vector_ops, 8u * 2 * (1 << 20)); // 1 + 3 + 4 operations per element
}

TEST(TilePlan, DepthwiseAndPoolRunOnTheVectorUnit) {
  const OpSpec dw = window(OpKind::DepthwiseConv2d, 1, 64, 8, 8, 0, 3, 3, 1, 1);
  const TilePlan p = plan_tiles(dw, model(), 1 << 20, 1, 0);
  const OpWork w = p.totals();
  EXPECT_EQ(w.macs, 0u);
  EXPECT_EQ(w.vector_ops, 64u * 8 * 8 * 9);
  // Outputs 8 x 8 x 64 = 4096: ceil(4096 / 64) = 64 cycles per tap, 9 taps, if one tile.
  if (p.size() == 1) {
    EXPECT_EQ(w.compute_cycles, 64u * 9);
    EXPECT_EQ(w.load_bytes, 64u * 8 * 8 + 64 * 9); // input and weights
  }
  const OpSpec pool = window(OpKind::Pool, 1, 64, 8, 8, 0, 2, 2, 2, 0);
  const OpWork pw = plan_tiles(pool, model(), 1 << 20, 1, 0).totals();
  EXPECT_EQ(pw.vector_ops, 64u * 4 * 4 * 4);
  EXPECT_EQ(pw.store_bytes, 64u * 4 * 4);
}

TEST(TilePlan, ConvReadsInputPatchesNotTheIm2colMatrix) {
  const OpSpec conv = window(OpKind::Conv2d, 1, 64, 56, 56, 64, 3, 3, 1, 1);
  const OpWork w = plan_tiles(conv, model(), 112 << 10, 1, 0).totals();
  const uint64_t input = 64u * 56 * 56, weights = 64u * 64 * 9;
  const uint64_t im2col = 3136u * 576; // the lowered A matrix, 9 x the input
  EXPECT_GE(w.load_bytes, input + weights);
  EXPECT_LT(w.load_bytes, im2col);
  EXPECT_EQ(w.macs, 3136u * 64 * 576);
}

TEST(TilePlan, OperandsInSramAreReadInPlace) {
  // An input in SRAM is neither loaded nor given an operand buffer, for every op kind; the
  // other input still loads from DDR. A conv2d and the matmul of its GEMM then plan the
  // same tiles and array cycles, as the array reads both where they sit.
  const OpSpec conv = window(OpKind::Conv2d, 1, 64, 56, 56, 64, 3, 3, 1, 1);
  const OpSpec mm = matmul(3136, 64, 576);
  for (const Dataflow df :
       {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
    PlanTarget target;
    target.model = model(df);
    target.partition_bytes = 112 << 10;
    const TilePlan in_ddr = plan_tiles(conv, target, 1, 0);
    target.places.sram_inputs = 0x1; // A (the conv's input) in SRAM, B in DDR
    const TilePlan a_in_sram = plan_tiles(conv, target, 1, 0);
    const std::array<uint64_t, 2> loads = operand_loads(a_in_sram);
    EXPECT_EQ(loads[0], 0u) << a_in_sram.shape();
    EXPECT_GE(loads[1], 64u * 576) << a_in_sram.shape();
    EXPECT_LE(a_in_sram.footprint_bytes(), 112u << 10);
    EXPECT_EQ(a_in_sram.totals().macs, in_ddr.totals().macs);
    target.places.sram_inputs = 0x3;
    const TilePlan c = plan_tiles(conv, target, 1, 0), m = plan_tiles(mm, target, 1, 0);
    EXPECT_EQ(c.totals().load_bytes, 0u);
    EXPECT_EQ(m.totals().load_bytes, 0u);
    EXPECT_EQ(c.summary().array_cycles, m.summary().array_cycles)
        << c.shape() << " vs " << m.shape();
  }
  PlanTarget target;
  target.places.sram_inputs = 0x3;
  for (const OpSpec& op : {window(OpKind::Pool, 1, 64, 56, 56, 0, 3, 3, 1, 1),
                           window(OpKind::DepthwiseConv2d, 1, 64, 56, 56, 0, 3, 3, 1, 1)})
    EXPECT_EQ(plan_tiles(op, target, 1, 0).totals().load_bytes, 0u);
}

TEST(TilePlan, TooSmallPartitionIsAnError) {
  EXPECT_THROW(plan_tiles(matmul(64, 64, 64, DType::Fp32), model(), 16, 1, 0), std::runtime_error);
}

// --- Cyclic region mapping -----------------------------------------------------------

TileTransfer xfer(uint64_t offset, uint64_t row_bytes, uint64_t rows, uint64_t stride) {
  TileTransfer t;
  t.offset = offset;
  t.row_bytes = row_bytes;
  t.rows = rows;
  t.stride = stride;
  t.sram_offset = 1000;
  return t;
}

TEST(RegionMapping, FittingTransferIsOnePiece) {
  const auto p = map_to_region(xfer(100, 64, 10, 256), 1 << 20);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].region_offset, 100u);
  EXPECT_EQ(p[0].rows, 10u);
  EXPECT_EQ(p[0].region_stride, 256u);
  EXPECT_EQ(p[0].sram_offset, 1000u);
}

TEST(RegionMapping, LinearTransferWrapsAtTheRegionEnd) {
  const auto p = map_to_region(xfer(900, 300, 1, 300), 1000);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].region_offset, 900u);
  EXPECT_EQ(p[0].row_bytes, 100u);
  EXPECT_EQ(p[1].region_offset, 0u);
  EXPECT_EQ(p[1].row_bytes, 200u);
  EXPECT_EQ(p[1].sram_offset, 1100u);
}

TEST(RegionMapping, StridedRowsWrapAndStraddlingRowsAreCut) {
  // Rows of 100 bytes every 300 in a 1000-byte region: starts 0, 300, 600, 900 (ends
  // exactly at the region end), then 1200 % 1000 = 200 and 500.
  const auto p = map_to_region(xfer(0, 100, 6, 300), 1000);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].region_offset, 0u);
  EXPECT_EQ(p[0].rows, 4u);
  EXPECT_EQ(p[1].region_offset, 200u);
  EXPECT_EQ(p[1].rows, 2u);
  EXPECT_EQ(p[1].sram_offset, 1000u + 4 * 100);
  // Starts 50, 350, 650, then 950 straddles the end: 950..1000 and 0..50.
  const auto q = map_to_region(xfer(50, 100, 4, 300), 1000);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].rows, 3u);
  EXPECT_EQ(q[1].region_offset, 950u);
  EXPECT_EQ(q[1].row_bytes, 50u);
  EXPECT_EQ(q[2].region_offset, 0u);
  EXPECT_EQ(q[2].row_bytes, 50u);
  EXPECT_EQ(q[2].sram_offset, 1000u + 3 * 100 + 50);
  for (const auto& piece : q)
    EXPECT_LE(piece.region_offset + (piece.rows - 1) * piece.region_stride + piece.row_bytes,
              1000u);
}

TEST(RegionMapping, EmptyRegionMovesNothing) {
  EXPECT_TRUE(map_to_region(xfer(0, 64, 1, 64), 0).empty());
}

} // namespace
} // namespace npu
