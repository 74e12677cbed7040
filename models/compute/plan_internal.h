#pragma once

// Shared by the planner's files (plan_cost.cpp, gemm_plan.cpp, gemm_lowering.cpp,
// vector_plan.cpp, tiling.cpp); not part of the compute model's interface.
#include "models/compute/tiling.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <tuple>
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

class CostModel;

/// The planner's totals for one candidate over the whole op (all shares).
struct Estimate {
  double compute_cycles = 0; ///< MAC-array or vector-unit cycles
  double load_bytes = 0;
  double store_bytes = 0;
  double ddr_bytes = 0;   ///< loads and stores whose memory side is DDR
  double sram_bytes = 0;  ///< stores of a result that sits in SRAM (inputs there are read
                          ///< in place: no loads)
  double ddr_s = 0;       ///< DDR time of the DDR traffic (bandwidth or row activations)
  double sram_s = 0;      ///< time of the SRAM-resident traffic (bandwidth or bursts)
  double dma_s = 0;       ///< the bursts' time on the DMA channels (burst_seconds)
  double descriptors = 0; ///< DMA descriptors
  double tiles = 0;
  double blocks = 0; ///< output blocks (what shares split)
  /// The share of the op's compute the slowest share may own, when its blocks are not all
  /// alike (a cut leaves smaller blocks at the edges): 0 when they are.
  double peak_share = 0;
  double first_load_s = 0; ///< one tile's loads and one block's store, which the
  double last_store_s = 0; ///< buffering cannot hide

  double traffic() const { return load_bytes + store_bytes; }
  /// `count` loads of input operand `operand` in `pattern` from DDR; nothing for an input
  /// in SRAM, which the unit reads in place.
  void load(const CostModel& cost, const AccessPattern& pattern, double count, uint32_t operand);
  /// `count` stores of the result in `pattern`.
  void store(const CostModel& cost, const AccessPattern& pattern, double count);
};

/// The parts of a candidate's estimated time (seconds, the slowest share).
struct Timing {
  double compute = 0; ///< its compute cycles
  double memory = 0;  ///< its traffic: the busiest of DDR, SRAM, port, DMA, loader
  double total = 0;   ///< both, overlapped as the buffering allows, and what is exposed
};

/// The planner's view of the hardware: how long traffic and compute take.
class CostModel {
public:
  CostModel(const PlanTarget& target, uint32_t units);
  /// Memory time of `count` repetitions of an access pattern, the longest of: its bytes
  /// at the DDR's peak (each row rounded up to whole DDR accesses), its DDR row
  /// activations, and its DMA bursts with at most channels x outstanding in flight for
  /// a round trip each. In SRAM (`sram`): its bytes at the SRAM's bandwidth and its bursts.
  double transfer_seconds(const AccessPattern& a, double count, bool sram = false) const;
  /// What one unit's loader (or storer) moves at most: its DMA streams (ComputeUnit::move),
  /// each with as many bursts in flight as a channel keeps, a round trip each.
  double unit_dma_bytes_per_s() const;
  /// Bursts of `burst_len` bytes one DMA channel keeps in flight.
  double bursts_per_channel(double burst_len) const;
  /// The DMA part of transfer_seconds: the bursts' round trips over every channel's slots.
  double burst_seconds(const AccessPattern& a, double count, bool sram = false) const;
  /// One transfer a unit makes with nothing to hide it: `bytes` in `descriptors` of input
  /// operand `operand`, or of the result when `operand` is kResult.
  struct Exposed {
    double bytes = 0;
    double descriptors = 1;
    uint32_t operand = 0;
  };
  static constexpr uint32_t kResult = ~0u;
  /// Time of one unit moving these alone: the longest round trip among them (DDR's, or
  /// SRAM's for a result in SRAM), their descriptors' setup, and their bytes at the unit's
  /// bandwidth from where each lives. Inputs in SRAM are read in place: they cost nothing.
  double exposed_seconds(std::initializer_list<Exposed> transfers) const;
  /// Estimated time of the slowest share: compute against memory (overlapped when
  /// buffered), plus the first load and last store.
  Timing timing(const Estimate& e) const;
  double time(const Estimate& e) const { return timing(e).total; }
  const PlanTarget& target() const { return m_target; }
  uint32_t units() const { return m_units; }
  /// The share of the DDR's channel and bank-group pairs that one instance of a pattern
  /// (from address 0) reaches: rows a multiple of the interleave apart keep landing on the
  /// same few, and those alone serve them.
  double reach(const AccessPattern& a) const;

private:
  PlanTarget m_target;
  uint32_t m_units;
  mutable std::map<std::pair<double, double>, double> m_reach; ///< by (row bytes, stride)
};

/// Keeps every offered candidate and picks the best: lowest estimated time. Among those
/// within 1% of it: when the best is bound by compute, the fewest compute cycles, then
/// the least DDR traffic; when bound by memory, the least DDR traffic, then the fewest
/// compute cycles; then the fewest tiles; the first offered on a tie.
template <typename Choice> class Best {
public:
  explicit Best(const CostModel& cost) : m_cost(cost) {}
  void offer(const Estimate& e, const Choice& c) { m_all.push_back({m_cost.timing(e), e, c}); }
  bool empty() const { return m_all.empty(); }
  /// The lowest estimated time offered (seconds).
  double best_time() const { return best().time.total; }
  Choice pick() const {
    constexpr double kTolerance = 1.01;
    const Entry& fastest = best();
    const bool compute_bound = fastest.time.compute >= fastest.time.memory;
    const auto key = [&](const Entry& x) {
      const double traffic = x.est.ddr_bytes + 1e-3 * x.est.sram_bytes;
      return compute_bound ? std::make_tuple(x.est.compute_cycles, traffic, x.est.tiles)
                           : std::make_tuple(traffic, x.est.compute_cycles, x.est.tiles);
    };
    const Entry* chosen = nullptr;
    for (const auto& x : m_all) {
      if (x.time.total > fastest.time.total * kTolerance)
        continue;
      if (!chosen || key(x) < key(*chosen))
        chosen = &x;
    }
    return chosen->choice;
  }

private:
  struct Entry {
    Timing time;
    Estimate est;
    Choice choice;
  };
  const Entry& best() const {
    const Entry* b = &m_all.front();
    for (const auto& x : m_all)
      if (x.time.total < b->time.total)
        b = &x;
    return *b;
  }
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
  /// softmax and layernorm normalising down the columns (RowwiseOp::over_rows).
  static TilePlan columns(const OpSpec& op, const CostModel& cost);
  static TilePlan cycles(const OpSpec& op);
  /// Share `share` of `units` owns blocks [ceil(B s / u), ceil(B (s + 1) / u)).
  static void assign_share(TilePlan* plan, uint32_t units, uint32_t share);

private:
  static TilePlan start(TilePlan::Kind kind, const OpSpec& op, const CostModel& cost);
};

} // namespace npu
