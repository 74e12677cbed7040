// Every op kind plans into SRAM tiles however large it is: windows, rows and reductions far
// above a unit's SRAM split into chunks whose partial results accumulate, so a kernel that
// passed the testbench's checks never fails at run time because a tile does not fit.
#include "models/compute/tiling.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace npu {
namespace {

struct Case {
  std::string name;
  OpSpec op;
};

WindowOp window(uint64_t c, uint64_t hw, uint64_t rs, uint64_t stride, uint64_t pad) {
  WindowOp w;
  w.batch = 1;
  w.channels = c;
  w.height = w.width = hw;
  w.r = w.s = rs;
  w.stride = stride;
  w.pad = pad;
  return w;
}

std::vector<Case> huge_ops(DType dtype) {
  PoolOp global;
  static_cast<WindowOp&>(global) = window(256, 320, 320, 1, 0); // a 320 x 320 average
  PoolOp strided;
  static_cast<WindowOp&>(strided) = window(8, 96, 80, 8, 0);
  DepthwiseConv2dOp depthwise;
  static_cast<WindowOp&>(depthwise) = window(32, 200, 199, 1, 3);
  Conv2dOp conv;
  static_cast<WindowOp&>(conv) = window(512, 32, 31, 1, 0);
  conv.filters = 64;
  SoftmaxOp softmax;
  softmax.rows = 3;
  softmax.cols = uint64_t{1} << 22;
  LayernormOp layernorm;
  layernorm.rows = 2;
  layernorm.cols = uint64_t{1} << 22;
  return {{"pool 320x320 window", {global, dtype}},
          {"pool 80x80 window, stride 8", {strided, dtype}},
          {"depthwise 199x199 window", {depthwise, dtype}},
          {"conv2d 31x31 over 512 channels", {conv, dtype}},
          {"softmax rows of 4M", {softmax, dtype}},
          {"layernorm rows of 4M", {layernorm, dtype}},
          {"elementwise 64M", {ElementwiseOp{uint64_t{1} << 26, 2}, dtype}},
          {"matmul 4096 x 4096 x 65536", {MatmulOp{4096, 4096, 65536, 1}, dtype}},
          {"fully_connected 1M in", {FullyConnectedOp{1, uint64_t{1} << 20, 1024}, dtype}}};
}

// edge-npu's partition (the smallest shipped: 112 KiB per unit) and one seven times smaller.
class TileFitTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(TileFitTest, EveryOpKindFitsAndDoesAllItsWork) {
  const uint64_t partition = GetParam();
  for (const DType dtype : {DType::Int8, DType::Fp32})
    for (const Case& c : huge_ops(dtype)) {
      SCOPED_TRACE(c.name + (dtype == DType::Fp32 ? " fp32" : " int8"));
      ComputeModel model;
      TilePlan plan;
      ASSERT_NO_THROW(plan = plan_tiles(c.op, model, partition, 1, 0));
      EXPECT_LE(plan.footprint_bytes(), partition) << plan.shape();
      const OpWork work = plan.totals();
      const OpExtent extent = op_extent(c.op);
      EXPECT_EQ(work.macs, extent.macs) << plan.shape();
      EXPECT_EQ(work.vector_ops, extent.vector_ops) << plan.shape();
      EXPECT_GT(work.store_bytes, 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(Partitions, TileFitTest,
                         ::testing::Values(uint64_t{112} << 10, uint64_t{16} << 10));

} // namespace
} // namespace npu
