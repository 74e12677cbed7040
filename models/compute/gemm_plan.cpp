// The one planner of every op that lowers to a GEMM (matmul, batched matmul,
// fully_connected, conv2d). Op-specific code is in gemm_lowering.cpp.
#include "models/compute/gemm_lowering.h"

#include <algorithm>
#include <string>

namespace npu {
namespace {

// Partial sums are kept in 32 bits (int32 for int8, fp32 for the float types).
constexpr uint64_t kAccumulatorBytes = 4;

using Reuse = TilePlan::Reuse;

struct GemmChoice {
  uint64_t mt = 0, nt = 0, kt = 0;
  Reuse reuse = Reuse::None;
};

// Which GEMM dimension lies along the array's rows and columns (the third streams
// through in time): tiles are multiples of the array along those.
struct Alignment {
  uint64_t m = 1, n = 1, k = 1;
};
Alignment alignment(const ComputeModel& model) {
  const uint64_t rows = model.array.rows, cols = model.array.cols;
  switch (model.dataflow) {
  case Dataflow::OutputStationary:
    return {rows, cols, 1};
  case Dataflow::WeightStationary:
    return {1, cols, rows};
  case Dataflow::InputStationary:
    return {cols, 1, rows};
  }
  return {};
}

// Whether a tile needs a 32-bit accumulator in SRAM: when the reduction is split
// across SRAM tiles, or across array folds (weight and input stationary).
bool needs_accumulator(const ComputeModel& model, uint64_t k_chunks, uint64_t kt) {
  return k_chunks > 1 || (model.dataflow != Dataflow::OutputStationary && kt > model.array.rows);
}

// SRAM bytes of a tile's A and B blocks in its operand buffer: none for an operand
// that sits in SRAM (the array reads it in place).
uint64_t a_block_bytes(const GemmLowering& low, const PlanTarget& target, uint64_t mt,
                       uint64_t kt) {
  return target.places.input_in_sram(0) ? 0 : low.a_buffer_bytes(mt, kt);
}
uint64_t b_block_bytes(const GemmLowering& low, const PlanTarget& target, uint64_t kt,
                       uint64_t nt) {
  return target.places.input_in_sram(1) ? 0 : kt * nt * low.element_bytes();
}

// buffers x (A block + B block) + result buffers x C block + accumulator. Every operand
// block has `buffers` slots, also the one that stays resident: the next block loads
// into the other slot while the last tiles of the current one compute.
uint64_t footprint(const GemmLowering& low, const PlanTarget& target, const GemmChoice& c) {
  const GemmShape& g = low.shape();
  const uint64_t es = low.element_bytes();
  const uint64_t chunks = ceil_div(g.k, c.kt);
  const uint64_t acc =
      needs_accumulator(target.model, chunks, c.kt) ? c.mt * c.nt * kAccumulatorBytes : 0;
  // One result buffer when the reduction is split (TilePlan::result_buffers()).
  const uint64_t results = chunks > 1 ? 1 : target.buffers;
  return target.buffers *
             (a_block_bytes(low, target, c.mt, c.kt) + b_block_bytes(low, target, c.kt, c.nt)) +
         results * c.mt * c.nt * es + acc;
}

uint64_t tile_cycles(const GemmLowering& low, const ComputeModel& model, uint64_t mt, uint64_t nt,
                     uint64_t kt, DType dtype) {
  return gemm_tile_steps(model, mt, nt, kt, low.k_groups()) * model.mac_cycles_of(dtype);
}

// Array cycles of the whole op: the tiles fall into at most 2 x 2 x 2 size classes.
double array_cycles(const GemmLowering& low, const ComputeModel& model, const GemmChoice& c,
                    DType dtype, uint32_t units) {
  const GemmShape& g = low.shape();
  const Cut cm = cut(g.m, c.mt), cn = cut(g.n, c.nt), ck = cut(g.k, c.kt);
  double cycles = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < 2; ++l) {
        const double count = static_cast<double>(cm.count[i]) * static_cast<double>(cn.count[j]) *
                             static_cast<double>(ck.count[l]);
        if (count > 0)
          cycles += count * static_cast<double>(
                                tile_cycles(low, model, cm.size[i], cn.size[j], ck.size[l], dtype));
      }
  // Each share fills and drains a streaming array once (gemm_stream_ends()).
  const double blocks = static_cast<double>(ceil_div(g.m, c.mt) * ceil_div(g.n, c.nt) * g.batches);
  const double shares = std::min(blocks, static_cast<double>(units));
  return cycles * static_cast<double>(g.batches) +
         shares * static_cast<double>(gemm_stream_ends(model) * model.mac_cycles_of(dtype));
}

// How many times each operand is read in all: once per block of the other operand, or,
// for the block that stays resident, once, plus a reload where a share starts inside a
// row (column) of blocks.
void passes(const GemmChoice& c, double batches, double mb, double nb, double units, double* a,
            double* b) {
  *a = nb;
  *b = mb;
  if (c.reuse == Reuse::A)
    *a = std::min(nb, 1 + (units - 1) / (batches * mb));
  else if (c.reuse == Reuse::B)
    *b = std::min(mb, 1 + (units - 1) / (batches * nb));
}

// `a_pass` is low.a_pass_bytes(c.mt), worked out once per row count.
Estimate estimate(const GemmLowering& low, const CostModel& cost, const GemmChoice& c, DType dtype,
                  double a_pass) {
  const GemmShape& g = low.shape();
  const auto batches = static_cast<double>(g.batches);
  const auto mb = static_cast<double>(ceil_div(g.m, c.mt));
  const auto nb = static_cast<double>(ceil_div(g.n, c.nt));
  const auto kb = static_cast<double>(ceil_div(g.k, c.kt));
  const auto es = static_cast<double>(low.element_bytes());
  Estimate e;
  e.compute_cycles = array_cycles(low, cost.target().model, c, dtype, cost.units());
  e.blocks = batches * mb * nb;
  e.tiles = e.blocks * kb;
  // The slowest share may own only whole blocks while the edge blocks go elsewhere.
  const double units = cost.units();
  e.peak_share = std::min(1.0, std::ceil(e.blocks / units) * static_cast<double>(c.mt * c.nt) /
                                   (batches * static_cast<double>(g.m * g.n)));
  double a_passes = 0, b_passes = 0;
  passes(c, batches, mb, nb, cost.units(), &a_passes, &b_passes);
  const double a_bytes = batches * a_pass * a_passes;
  const double b_bytes = batches * static_cast<double>(g.k * g.n) * es * b_passes;
  const double c_bytes = batches * static_cast<double>(g.m * g.n) * es;
  // Each operand's traffic at its tiles' access pattern, where the operand lives.
  const AccessPattern a = low.a_access(c.mt, c.kt), b = low.b_access(c.kt, c.nt),
                      o = low.c_access(c.mt, c.nt);
  const double a_loads = a.bytes() > 0 ? a_bytes / a.bytes() : 0, b_loads = b_bytes / b.bytes();
  e.load(cost, a, a_loads, 0);
  e.load(cost, b, b_loads, 1);
  e.store(cost, o, c_bytes / o.bytes());
  // Operands in SRAM are read in place: no loads, no descriptors.
  const OperandPlaces& places = cost.target().places;
  e.descriptors = (places.input_in_sram(0) ? 0 : a_loads * low.a_descriptors(c.mt, c.kt)) +
                  (places.input_in_sram(1) ? 0 : b_loads) + e.blocks;
  e.first_load_s =
      cost.exposed_seconds({{a.bytes(), low.a_descriptors(c.mt, c.kt), 0}, {b.bytes(), 1, 1}});
  e.last_store_s = cost.exposed_seconds({{o.bytes(), 1, CostModel::kResult}});
  return e;
}

// Reduction chunks: all of k, or whole multiples of the lowering's step (conv2d: whole
// channels) aligned to the array where the dataflow puts k on it.
std::vector<uint64_t> k_candidates(const GemmLowering& low, uint64_t align) {
  const GemmShape& g = low.shape();
  const uint64_t step = low.k_step();
  std::vector<uint64_t> out;
  for (uint64_t units : tile_candidates(g.k / step, 1)) {
    uint64_t kt = units * step;
    if (kt < g.k && align > 1 && kt > align)
      kt = kt / align * align / step * step; // down to the array where whole steps allow
    if (kt == 0)
      continue;
    if (std::find(out.begin(), out.end(), kt) == out.end())
      out.push_back(kt);
  }
  if (align > 1)
    for (uint64_t kt = align; kt < g.k; kt *= 2)
      if (kt % step == 0 && std::find(out.begin(), out.end(), kt) == out.end())
        out.push_back(kt);
  return out;
}

// Among the tiles aligned to `align` that fit: the best that keeps the whole
// reduction in one tile, unless splitting it is estimated at least kSplitGain faster
// (the whole-k tiles that fit are too small to reuse the operands), or none fits.
// Whole-k tiles keep the A block resident along a row of output blocks, or the B block
// down a column; split ones reload both.
constexpr double kSplitGain = 0.9;

bool search(const GemmLowering& low, const CostModel& cost, DType dtype, const Alignment& align,
            GemmChoice* chosen) {
  const GemmShape& g = low.shape();
  const PlanTarget& target = cost.target();
  const std::vector<uint64_t> ms = tile_candidates(g.m, align.m);
  const std::vector<uint64_t> ns = tile_candidates(g.n, align.n);
  std::vector<double> a_pass;
  for (uint64_t mt : ms)
    a_pass.push_back(low.a_pass_bytes(mt));
  Best<GemmChoice> whole(cost), split(cost);
  for (uint64_t kt : k_candidates(low, align.k))
    for (size_t i = 0; i < ms.size(); ++i)
      for (uint64_t nt : ns) {
        GemmChoice c{ms[i], nt, kt, Reuse::None};
        if (footprint(low, target, c) > target.partition_bytes)
          continue;
        if (kt < g.k) {
          split.offer(estimate(low, cost, c, dtype, a_pass[i]), c);
          continue;
        }
        for (const Reuse r : {Reuse::A, Reuse::B}) {
          c.reuse = r;
          whole.offer(estimate(low, cost, c, dtype, a_pass[i]), c);
        }
      }
  if (!whole.empty() && (split.empty() || split.best_time() > kSplitGain * whole.best_time())) {
    *chosen = whole.pick();
    return true;
  }
  if (split.empty())
    return false;
  *chosen = split.pick();
  return true;
}

} // namespace

TilePlan PlanBuilder::gemm(const OpSpec& op, const CostModel& cost) {
  TilePlan p = start(TilePlan::Kind::Gemm, op, cost);
  const PlanTarget& target = cost.target();
  const GemmLowering low(op, target.model.pad_taps);
  const GemmShape& g = low.shape();
  GemmChoice c;
  // Not even one fold of the array fits: partly used folds.
  if (!search(low, cost, op.dtype, alignment(target.model), &c) &&
      !search(low, cost, op.dtype, Alignment{}, &c))
    too_small(op, target.partition_bytes);
  p.m_mt = c.mt;
  p.m_nt = c.nt;
  p.m_kt = c.kt;
  p.m_reuse = c.reuse;
  p.m_blocks = g.batches * ceil_div(g.m, c.mt) * ceil_div(g.n, c.nt);
  p.m_chunks = ceil_div(g.k, c.kt);
  p.m_a_buffer_bytes = a_block_bytes(low, target, c.mt, c.kt);
  p.m_operand_bytes = p.m_a_buffer_bytes + b_block_bytes(low, target, c.kt, c.nt);
  p.m_result_bytes = c.mt * c.nt * p.m_element_bytes;
  p.m_accumulator_bytes =
      needs_accumulator(target.model, p.m_chunks, c.kt) ? c.mt * c.nt * kAccumulatorBytes : 0;
  p.m_shape =
      "mt=" + std::to_string(c.mt) + " nt=" + std::to_string(c.nt) + " kt=" + std::to_string(c.kt);
  if (g.batches > 1)
    p.m_shape += " batches=" + std::to_string(g.batches);
  if (c.reuse != Reuse::None)
    p.m_shape += c.reuse == Reuse::A ? " A resident" : " B resident";
  return p;
}

Tile TilePlan::gemm_tile(uint64_t block, uint64_t chunk) const {
  const GemmLowering low(m_op, m_model.pad_taps);
  const GemmShape& g = low.shape();
  const uint64_t mb = ceil_div(g.m, m_mt), nb = ceil_div(g.n, m_nt);
  // Blocks run along rows of output blocks (columns innermost), or down columns when B
  // stays resident.
  const uint64_t batch = block / (mb * nb), in_batch = block % (mb * nb);
  const bool down = m_reuse == Reuse::B;
  const uint64_t row = down ? in_batch % mb : in_batch / nb;
  const uint64_t col = down ? in_batch / mb : in_batch % nb;
  const uint64_t m0 = row * m_mt, n0 = col * m_nt, k0 = chunk * m_kt;
  const uint64_t mt = std::min(m_mt, g.m - m0), nt = std::min(m_nt, g.n - n0),
                 kt = std::min(m_kt, g.k - k0);
  // Operand slots: [A x buffers][B x buffers]. A tile uses slot (its index mod buffers)
  // for a block it loads every time, and slot (the resident block's ordinal in the
  // share mod buffers) for the block that stays; that block is loaded by its first tile.
  const uint64_t index = (block - m_block_begin) * m_chunks + chunk;
  const uint64_t run = down ? mb : nb; // tiles along one resident block
  const uint64_t ordinal = block / run - m_block_begin / run;
  const bool kept =
      m_reuse != Reuse::None && block > m_block_begin && block / run == (block - 1) / run;
  const uint64_t a_slot = (m_reuse == Reuse::A ? ordinal : index) % m_buffers;
  const uint64_t b_slot = (m_reuse == Reuse::B ? ordinal : index) % m_buffers;
  const uint64_t b_base = m_buffers * m_a_buffer_bytes;
  const uint64_t b_bytes = m_operand_bytes - m_a_buffer_bytes;
  // Blocks resident from the tile before, or read in place from SRAM, are not loaded.
  const uint64_t a_at = (kept && m_reuse == Reuse::A) || m_places.input_in_sram(0)
                            ? GemmLowering::kSkip
                            : a_slot * m_a_buffer_bytes;
  const uint64_t b_at = (kept && m_reuse == Reuse::B) || m_places.input_in_sram(1)
                            ? GemmLowering::kSkip
                            : b_base + b_slot * b_bytes;
  Tile t;
  t.engine = Engine::Array;
  low.tile_transfers(batch, m0, mt, n0, nt, k0, kt, a_at, b_at, chunk + 1 == m_chunks, &t);
  t.cycles = tile_cycles(low, m_model, mt, nt, kt, m_op.dtype);
  // A streaming array fills on the share's first tile and drains on its last.
  if (const uint64_t ends = gemm_stream_ends(m_model); ends > 0) {
    const uint64_t fill = m_model.array.rows, drain = ends - fill;
    t.cycles += ((index == 0 ? fill : 0) + (index + 1 == size() ? drain : 0)) *
                m_model.mac_cycles_of(m_op.dtype);
  }

  t.folds = gemm_tile_folds(m_model, mt, nt, kt, low.k_groups());
  t.macs = mt * nt * kt;
  return t;
}

} // namespace npu
