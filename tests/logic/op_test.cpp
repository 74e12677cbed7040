// Op cost formulas: output-stationary systolic tiles, operand traffic, im2col lowering.
#include "models/compute/op.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace npu {
namespace {

OpSpec matmul(uint64_t m, uint64_t n, uint64_t k, DType dtype = DType::Int8) {
  OpSpec op;
  op.kind = OpKind::Matmul;
  op.dtype = dtype;
  op.m = m;
  op.n = n;
  op.k = k;
  return op;
}

OpSpec conv(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t k, uint64_t r, uint64_t s,
            uint64_t stride, uint64_t pad) {
  OpSpec op;
  op.kind = OpKind::Conv2d;
  op.batch = n;
  op.channels = c;
  op.height = h;
  op.width = w;
  op.filters = k;
  op.r = r;
  op.s = s;
  op.stride = stride;
  op.pad = pad;
  return op;
}

const ArrayShape k32{32, 32};

TEST(OpWork, Matmul64On32x32) {
  const OpWork w = op_work(matmul(64, 64, 64), k32, 1);
  EXPECT_EQ(w.compute_cycles, 504u); // 4 tiles x (64 + 32 + 32 - 2)
  EXPECT_EQ(w.macs, 64u * 64 * 64);
  EXPECT_EQ(w.load_bytes, 64u * 64 + 64 * 64); // A and B
  EXPECT_EQ(w.store_bytes, 64u * 64);          // C
}

TEST(OpWork, MatmulBytesScaleWithDtype) {
  const OpWork fp16 = op_work(matmul(64, 64, 64, DType::Fp16), k32, 1);
  EXPECT_EQ(fp16.load_bytes, 2u * (64 * 64 + 64 * 64));
  EXPECT_EQ(fp16.store_bytes, 2u * 64 * 64);
  EXPECT_EQ(fp16.compute_cycles, 504u);
  const OpWork fp32 = op_work(matmul(16, 8, 4, DType::Fp32), k32, 1);
  EXPECT_EQ(fp32.load_bytes, 4u * (16 * 4 + 4 * 8));
  EXPECT_EQ(fp32.store_bytes, 4u * 16 * 8);
}

TEST(OpWork, PartialTilesCountAsWholeTiles) {
  // m = 33 needs two row tiles; n = 32 one column tile.
  EXPECT_EQ(op_work(matmul(33, 32, 10), k32, 1).compute_cycles, 2u * (10 + 62));
  EXPECT_EQ(op_work(matmul(1, 1, 1), k32, 1).compute_cycles, 1u * (1 + 62));
}

TEST(OpWork, NonSquareArray) {
  const ArrayShape a{16, 8};
  // 4 row tiles x 8 column tiles, each 64 + 16 + 8 - 2 cycles.
  EXPECT_EQ(op_work(matmul(64, 64, 64), a, 1).compute_cycles, 32u * 86);
}

TEST(OpWork, MultiUnitSplitsTiles) {
  const OpWork two = op_work(matmul(64, 64, 64), k32, 2);
  EXPECT_EQ(two.compute_cycles, 2u * 126);
  EXPECT_EQ(two.macs, 64u * 64 * 64 / 2);
  EXPECT_EQ(two.load_bytes, 32u * 64 + 64 * 64); // its rows of A, all of B
  EXPECT_EQ(two.store_bytes, 32u * 64);
  EXPECT_EQ(op_work(matmul(64, 64, 64), k32, 3).compute_cycles, 2u * 126); // ceil(4 / 3)
  EXPECT_EQ(op_work(matmul(64, 64, 64), k32, 4).compute_cycles, 1u * 126);
  EXPECT_EQ(op_work(matmul(64, 64, 64), k32, 8).compute_cycles, 1u * 126);
}

TEST(OpWork, ZeroUnitsMeansOne) {
  EXPECT_EQ(op_work(matmul(64, 64, 64), k32, 0).compute_cycles, 504u);
}

TEST(OpWork, CyclesKernel) {
  OpSpec op;
  op.kind = OpKind::Cycles;
  op.cycles = 200;
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
  // 3136 x 64 x 576 matmul: 98 x 2 tiles of 576 + 62 cycles.
  EXPECT_EQ(w.compute_cycles, 196u * 638);
  EXPECT_EQ(w.macs, 3136u * 64 * 576);
  EXPECT_EQ(w.load_bytes, 64u * 56 * 56 + 64 * 64 * 9); // input + weights
  EXPECT_EQ(w.store_bytes, 3136u * 64);
  const OpWork two = op_work(conv(1, 64, 56, 56, 64, 3, 3, 1, 1), k32, 2);
  EXPECT_EQ(two.compute_cycles, 98u * 638);
  EXPECT_EQ(two.load_bytes, 64u * 56 * 56 / 2 + 64 * 64 * 9); // weights are not split
  EXPECT_EQ(two.store_bytes, 3136u * 64 / 2);
}

TEST(OpNames, RoundTripAndSizes) {
  EXPECT_EQ(op_kind_from_name("cycles"), OpKind::Cycles);
  EXPECT_EQ(op_kind_from_name("matmul"), OpKind::Matmul);
  EXPECT_EQ(op_kind_from_name("conv2d"), OpKind::Conv2d);
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

} // namespace
} // namespace npu
