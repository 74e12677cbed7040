#pragma once

// What differs between the ops that lower to a GEMM (matmul, batched matmul,
// fully_connected, conv2d by im2col): where the operands' elements lie in memory.
// The GEMM planner (gemm_plan.cpp) and its tiles see the ops only through this.
#include "models/compute/plan_internal.h"

#include <cstdint>

namespace npu {

class GemmLowering {
public:
  /// `pad_taps`: the per_tap conv2d lowering (ComputeModel::pad_taps).
  explicit GemmLowering(const OpSpec& op, bool pad_taps = false);

  const GemmShape& shape() const { return m_g; }
  uint64_t element_bytes() const { return m_element_bytes; }
  /// A reduction chunk kt is a multiple of this unless it is all of k (conv2d: whole
  /// input channels, r x s reduction steps each).
  uint64_t k_step() const { return m_conv ? m_w.r * m_w.s : 1; }
  /// SRAM bytes of A for tiles of mt rows and kt of the reduction, at any position.
  uint64_t a_buffer_bytes(uint64_t mt, uint64_t kt) const;
  /// A bytes the tiles of one column block load over all rows and all of k, one batch.
  double a_pass_bytes(uint64_t mt) const;
  /// How one tile reads A, B and writes C in DDR.
  AccessPattern a_access(uint64_t mt, uint64_t kt) const;
  AccessPattern b_access(uint64_t kt, uint64_t nt) const;
  AccessPattern c_access(uint64_t mt, uint64_t nt) const;
  /// DMA descriptors of one tile's A loads.
  uint64_t a_descriptors(uint64_t mt, uint64_t kt) const;
  /// Reduction groups of a chunk of kt that never share a fold of the array: conv2d's
  /// taps under the per_tap lowering (each tap's channels padded to the array), else 1.
  uint64_t k_groups() const { return m_conv && m_pad_taps ? m_w.r * m_w.s : 1; }
  /// Where a tile's A and B blocks go in SRAM; kSkip leaves one out (it is resident).
  static constexpr uint64_t kSkip = ~uint64_t{0};
  /// Appends tile (batch, rows [m0, m0 + mt), columns [n0, n0 + nt), reduction
  /// [k0, k0 + kt)) transfers: A packed from SRAM offset `a_offset`, B at `b_offset`,
  /// and the store of its C block when `store`.
  void tile_transfers(uint64_t batch, uint64_t m0, uint64_t mt, uint64_t n0, uint64_t nt,
                      uint64_t k0, uint64_t kt, uint64_t a_offset, uint64_t b_offset, bool store,
                      Tile* t) const;

private:
  uint64_t conv_patch_bytes(uint64_t m0, uint64_t mt, uint64_t cc) const;

  OpSpec m_op;
  GemmShape m_g;
  uint64_t m_element_bytes = 1;
  bool m_conv = false;
  bool m_pad_taps = false;
  Window m_w{};
};

} // namespace npu
