#pragma once

// What differs between the ops that lower to a GEMM (matmul, batched matmul,
// fully_connected, conv2d by im2col): where the operands' elements lie in memory.
// The GEMM planner (gemm_plan.cpp) and its tiles see the ops only through this.
#include "models/compute/plan_internal.h"

#include <cstdint>
#include <map>

namespace npu {

class GemmLowering {
public:
  /// `pad_taps`: the per_tap conv2d lowering (ComputeModel::pad_taps).
  explicit GemmLowering(const OpSpec& op, bool pad_taps = false);

  const GemmShape& shape() const { return m_g; }
  uint64_t element_bytes() const { return m_element_bytes; }
  /// A reduction chunk kt is a multiple of this unless it is all of k (conv2d: whole
  /// input channels, r x s reduction steps each: the reduction is ordered (channel, r, s),
  /// so a chunk that split a channel's taps would load that channel's patch again, and a
  /// chunk of few channels loads each pixel as a short DMA row).
  uint64_t k_step() const { return m_conv ? m_w.r * m_w.s : 1; }
  /// SRAM bytes of A for tiles of mt rows and kt of the reduction, at any position
  /// (conv2d: the most any tile of the op loads, or a bound where the tiles were sampled).
  uint64_t a_buffer_bytes(uint64_t mt, uint64_t kt) const;
  /// A bytes the tiles of one column block load over all rows and all of k, one batch.
  double a_pass_bytes(uint64_t mt) const;
  /// How one tile reads A, B and writes C in DDR (conv2d's A: the mean tile of a pass, from
  /// the loads tile_transfers() makes, so that the planner costs what the tiles move).
  AccessPattern a_access(uint64_t mt, uint64_t kt) const;
  AccessPattern b_access(uint64_t kt, uint64_t nt) const;
  AccessPattern c_access(uint64_t mt, uint64_t nt) const;
  /// DMA descriptors of one tile's A loads (conv2d: the mean over the tiles).
  double a_descriptors(uint64_t mt, uint64_t kt) const;
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
  /// conv2d: what the A loads of the tiles of mt rows come to over one pass down all of
  /// m, for all channels (`whole`) or for one channel of a chunk of fewer (bytes scale
  /// with the chunk's channels; DMA rows and descriptors do not).
  struct Profile {
    double bytes = 0, rows = 0, descriptors = 0, tiles = 0, stride_bytes = 0, strided_rows = 0;
    uint64_t max_bytes = 0; ///< the most one tile loads
    bool max_exact = false; ///< every tile position was seen
  };
  const Profile& profile(uint64_t mt, bool whole) const;
  /// conv2d: the most input channels a reduction chunk of kt reads.
  uint64_t chunk_channels(uint64_t kt) const;
  uint64_t a_buffer_bound(uint64_t mt, uint64_t kt) const;

  OpSpec m_op;
  GemmShape m_g;
  uint64_t m_element_bytes = 1;
  bool m_conv = false;
  bool m_pad_taps = false;
  Window m_w{};
  mutable std::map<std::pair<uint64_t, bool>, Profile> m_profiles;
};

} // namespace npu
