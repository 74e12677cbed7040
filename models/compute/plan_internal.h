#pragma once

// Shared by the planner's files (plan_cost.cpp, gemm_plan.cpp, gemm_lowering.cpp,
// vector_plan.cpp, tiling.cpp); not part of the compute model's interface.
#include "models/compute/tiling.h"

#include <cstdint>
#include <vector>

namespace npu {

inline uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

/// Candidate tile sizes along a dimension of `dim`, each a multiple of `align` unless it
/// is `dim` itself: balanced cuts (ceil(dim / q) rounded up to `align`), the first
/// multiples of `align` and its doubles. Largest first, no duplicates.
std::vector<uint64_t> tile_candidates(uint64_t dim, uint64_t align);

/// A dimension of `dim` cut into tiles of `t`: count[0] tiles of size[0] and count[1]
/// (0 or 1) of the remainder size[1].
struct Cut {
  uint64_t count[2] = {0, 0};
  uint64_t size[2] = {0, 0};
};
Cut cut(uint64_t dim, uint64_t t);

/// A TileTransfer whose contiguous rows are merged into one (DMA bursts never cross a
/// row, so merging keeps bursts full).
TileTransfer make_transfer(uint32_t operand, uint64_t offset, uint64_t row_bytes, uint64_t rows,
                           uint64_t stride, uint64_t sram_offset);

/// Input rows (or columns) an output band of `out` rows needs: (out - 1) x stride +
/// window, at most the input extent.
inline uint64_t band_in(uint64_t out, uint64_t stride, uint64_t window, uint64_t extent) {
  return out == 0 ? 0 : std::min<uint64_t>(extent, (out - 1) * stride + window);
}

/// How one tile reads (or writes) an operand in DDR: `rows` rows of `row_bytes`,
/// `stride` apart (contiguous when rows == 1 or stride == row_bytes).
struct AccessPattern {
  double rows = 0;
  double row_bytes = 0;
  double stride = 0;
  double bytes() const { return rows * row_bytes; }
};

/// The planner's totals for one candidate over the whole op (all shares).
struct Estimate {
  double compute_cycles = 0; ///< MAC-array or vector-unit cycles
  double load_bytes = 0;
  double store_bytes = 0;
  double ddr_s = 0;       ///< DDR time of all traffic (bandwidth or row activations)
  double descriptors = 0; ///< DMA descriptors
  double tiles = 0;
  double blocks = 0;       ///< output blocks (what shares split)
  double first_load_s = 0; ///< one tile's loads and one block's store, which the
  double last_store_s = 0; ///< buffering cannot hide

  double traffic() const { return load_bytes + store_bytes; }
};

/// The planner's view of the hardware: how long traffic and compute take.
class CostModel {
public:
  CostModel(const PlanTarget& target, uint32_t units);
  /// Memory time of `count` repetitions of an access pattern, the longest of: its bytes
  /// at the DDR's peak (each row rounded up to whole DDR accesses), its DDR row
  /// activations, and its DMA bursts with at most channels x outstanding in flight for
  /// a round trip each.
  double transfer_seconds(const AccessPattern& a, double count) const;
  /// Time of one unit moving `bytes` alone (latency plus the unit's bandwidth).
  double exposed_seconds(double bytes, double descriptors) const;
  /// Estimated time of the slowest share: compute against memory (overlapped when
  /// buffered), plus the first load and last store.
  double time(const Estimate& e) const;
  const PlanTarget& target() const { return m_target; }
  uint32_t units() const { return m_units; }

private:
  PlanTarget m_target;
  uint32_t m_units;
};

/// Keeps every offered candidate and picks the best: lowest estimated time; among
/// those within 1% of it, least traffic, then fewest tiles; first offered on a tie.
template <typename Choice> class Best {
public:
  explicit Best(const CostModel& cost) : m_cost(cost) {}
  void offer(const Estimate& e, const Choice& c) { m_all.push_back({m_cost.time(e), e, c}); }
  bool empty() const { return m_all.empty(); }
  /// The lowest estimated time offered (seconds).
  double best_time() const {
    double best = m_all.front().time;
    for (const auto& x : m_all)
      best = std::min(best, x.time);
    return best;
  }
  Choice pick() const {
    constexpr double kTolerance = 1.01;
    const double best = best_time();
    const Entry* chosen = nullptr;
    for (const auto& x : m_all) {
      if (x.time > best * kTolerance)
        continue;
      if (!chosen || x.est.traffic() < chosen->est.traffic() ||
          (x.est.traffic() == chosen->est.traffic() && x.est.tiles < chosen->est.tiles))
        chosen = &x;
    }
    return chosen->choice;
  }

private:
  struct Entry {
    double time;
    Estimate est;
    Choice choice;
  };
  const CostModel& m_cost;
  std::vector<Entry> m_all;
};

[[noreturn]] void too_small(const OpSpec& op, uint64_t partition_bytes);

/// Window geometry shared by conv2d, depthwise_conv2d and pool.
struct Window {
  uint64_t images, channels, h, w, r, s, stride, pad, ho, wo;
};
Window window_of(const OpSpec& op);
/// Loads of the NHWC input patch of image `image` for output rows [oh0, oh0 + rt) and
/// columns [ow0, ow0 + wt), channels [c0, c0 + cc), packed from `sram` on; returns the
/// bytes appended.
uint64_t patch_loads(const Window& g, uint64_t es, uint64_t image, uint64_t oh0, uint64_t rt,
                     uint64_t ow0, uint64_t wt, uint64_t c0, uint64_t cc, uint64_t sram,
                     std::vector<TileTransfer>* out);

/// Builds TilePlans: one function per op family (gemm_plan.cpp, vector_plan.cpp).
class PlanBuilder {
public:
  static TilePlan gemm(const OpSpec& op, const CostModel& cost);
  static TilePlan window(const OpSpec& op, const CostModel& cost);
  /// A window too large for any output tile: each output's window in chunks whose partial
  /// results accumulate (one output column of a channel block per block).
  static TilePlan window_chunks(const OpSpec& op, const CostModel& cost, TilePlan p);
  static TilePlan elementwise(const OpSpec& op, const CostModel& cost);
  static TilePlan rowwise(const OpSpec& op, const CostModel& cost);
  static TilePlan cycles(const OpSpec& op);
  /// Share `share` of `units` owns blocks [ceil(B s / u), ceil(B (s + 1) / u)).
  static void assign_share(TilePlan* plan, uint32_t units, uint32_t share);

private:
  static TilePlan start(TilePlan::Kind kind, const OpSpec& op, const CostModel& cost);
};

} // namespace npu
