#include "models/compute/tiling.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace npu {
namespace {

// The planner's assumed operand bandwidth per unit cycle, used only to weigh data
// reuse against fill and drain when choosing tile sizes (not for timing).
constexpr double kPlannerBytesPerCycle = 16.0;
// ... and the setup time of one DMA descriptor, in unit cycles.
constexpr double kPlannerSetupCycles = 100.0;
// Among plans within this factor of the best estimate, the one with least traffic wins.
constexpr double kPlannerTolerance = 1.01;
// Partial sums are kept in 32 bits (int32 for int8, fp32 for the float types).
constexpr uint64_t kAccumulatorBytes = 4;

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

// Candidate tile sizes along a dimension of `dim`: dim, dim/2, dim/4, ... (rounded
// up) and the multiples align x 2^j below dim, largest first.
std::vector<uint64_t> candidates(uint64_t dim, uint64_t align) {
  std::set<uint64_t> c;
  for (uint64_t v = dim; v >= 1; v = ceil_div(v, 2)) {
    c.insert(v);
    if (v == 1)
      break;
  }
  for (uint64_t v = std::max<uint64_t>(align, 1); v < dim; v *= 2)
    c.insert(v);
  return {c.rbegin(), c.rend()};
}

// A dimension of `dim` cut into tiles of `t`: (count, size) classes.
struct Cut {
  uint64_t count[2] = {0, 0};
  uint64_t size[2] = {0, 0};
};
Cut cut(uint64_t dim, uint64_t t) {
  Cut c;
  c.count[0] = dim / t;
  c.size[0] = t;
  c.count[1] = dim % t ? 1 : 0;
  c.size[1] = dim % t;
  return c;
}

// A TileTransfer whose contiguous rows are merged into one (DMA bursts never cross a
// row, so merging keeps bursts full).
TileTransfer transfer(uint32_t operand, uint64_t offset, uint64_t row_bytes, uint64_t rows,
                      uint64_t stride, uint64_t sram_offset) {
  TileTransfer t;
  t.operand = operand;
  t.offset = offset;
  t.sram_offset = sram_offset;
  if (rows <= 1 || stride == row_bytes) {
    t.row_bytes = row_bytes * rows;
    t.rows = 1;
    t.stride = t.row_bytes;
  } else {
    t.row_bytes = row_bytes;
    t.rows = rows;
    t.stride = stride;
  }
  return t;
}

// Estimated time (cycles) of the slowest share: the larger of compute and memory
// time, plus one average tile's load and store that double buffering cannot hide.
// Memory time counts each DMA descriptor's setup, so tiny tiles do not pay off.
struct Estimate {
  double compute_cycles = 0;
  double load_bytes = 0;
  double store_bytes = 0;
  double transfers = 0; ///< DMA descriptors
  double tiles = 0;
  double blocks = 0;

  double traffic() const { return load_bytes + store_bytes; }
  double per_share(uint32_t units) const {
    const double share = blocks > 0 ? std::ceil(blocks / units) / blocks : 1.0;
    const double memory = traffic() / kPlannerBytesPerCycle + transfers * kPlannerSetupCycles;
    const double exposed =
        (load_bytes / std::max(tiles, 1.0) + store_bytes / std::max(blocks, 1.0)) /
            kPlannerBytesPerCycle +
        2 * kPlannerSetupCycles;
    return std::max(compute_cycles, memory) * share + exposed;
  }
};

// Keeps the best candidate: lowest estimate; within the tolerance, least traffic, then
// fewest tiles; first seen on a tie.
template <typename Choice> class Best {
public:
  explicit Best(uint32_t units) : m_units(units) {}
  void offer(const Estimate& e, const Choice& c) { m_all.push_back({e.per_share(m_units), e, c}); }
  bool empty() const { return m_all.empty(); }
  Choice pick() const {
    double best = m_all.front().time;
    for (const auto& x : m_all)
      best = std::min(best, x.time);
    const Entry* chosen = nullptr;
    for (const auto& x : m_all) {
      if (x.time > best * kPlannerTolerance)
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
  uint32_t m_units;
  std::vector<Entry> m_all;
};

// Input rows (or columns) an output band of `out` rows needs: (out - 1) x stride + r,
// at most the input extent.
uint64_t band_in(uint64_t out, uint64_t stride, uint64_t window, uint64_t extent) {
  return std::min(extent, (out - 1) * stride + window);
}

} // namespace

uint64_t gemm_tile_steps(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt) {
  if (mt == 0 || nt == 0 || kt == 0)
    return 0;
  const uint64_t rows = array.rows, cols = array.cols;
  switch (dataflow) {
  case Dataflow::OutputStationary: {
    // Sum over r x c output blocks of kt + r + c - 2.
    const uint64_t br = ceil_div(mt, rows), bc = ceil_div(nt, cols);
    return br * bc * kt + bc * mt + br * nt - 2 * br * bc;
  }
  case Dataflow::WeightStationary: {
    // Sum over k x c weight blocks of 2k + c + mt - 2.
    const uint64_t bk = ceil_div(kt, rows), bc = ceil_div(nt, cols);
    return bk * bc * mt + 2 * bc * kt + bk * nt - 2 * bk * bc;
  }
  case Dataflow::InputStationary: {
    // Sum over k x m input blocks of 2k + m + nt - 2.
    const uint64_t bk = ceil_div(kt, rows), bm = ceil_div(mt, cols);
    return bk * bm * nt + 2 * bm * kt + bk * mt - 2 * bk * bm;
  }
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

namespace npu {
namespace {

// Whether a gemm tile needs a 32-bit accumulator in SRAM: when the reduction is split
// across SRAM tiles, or across array passes (weight and input stationary).
bool needs_accumulator(const ComputeModel& model, uint64_t k_chunks, uint64_t kt) {
  return k_chunks > 1 || (model.dataflow != Dataflow::OutputStationary && kt > model.array.rows);
}

[[noreturn]] void too_small(const OpSpec& op, uint64_t partition_bytes) {
  throw std::runtime_error("an SRAM partition of " + std::to_string(partition_bytes) +
                           " bytes cannot hold one tile of " + op_kind_name(op.kind));
}

// Window geometry shared by conv2d, depthwise_conv2d and pool.
struct Window {
  uint64_t images, channels, h, w, r, s, stride, pad, ho, wo;
};
Window window_of(const OpSpec& op) {
  return {op.batch, op.channels, op.height, op.width,       op.r,
          op.s,     op.stride,   op.pad,    out_height(op), out_width(op)};
}
// Bytes of the input patch an rt x wt output tile of cc channels reads (upper bound).
uint64_t patch_bytes(const Window& g, uint64_t rt, uint64_t wt, uint64_t cc, uint64_t es) {
  return band_in(rt, g.stride, g.r, g.h) * band_in(wt, g.stride, g.s, g.w) * cc * es;
}
// DMA descriptors of one patch load: one when all channels come, else one per input row.
uint64_t patch_transfers(const Window& g, uint64_t rt, uint64_t cc) {
  return cc == g.channels ? 1 : band_in(rt, g.stride, g.r, g.h);
}
// Output column-band candidates: whole rows, or (for one-row bands) parts of a row.
std::vector<uint64_t> col_candidates(const Window& g, uint64_t rt) {
  return rt == 1 ? candidates(g.wo, 1) : std::vector<uint64_t>{g.wo};
}

} // namespace

TilePlan plan_tiles(const OpSpec& op, const ComputeModel& model, uint64_t partition_bytes,
                    uint32_t units, uint32_t share) {
  // Input checks reject such ops; this keeps a caller that skipped them (a C++ program,
  // a test) from planning with products that wrapped around 64 bits.
  if (const std::string problem = op_size_problem(op); !problem.empty())
    throw std::overflow_error(op_kind_name(op.kind) + ": " + problem);
  units = std::max<uint32_t>(units, 1);
  share = std::min(share, units - 1);
  TilePlan p;
  p.m_op = op;
  p.m_model = model;
  p.m_es = dtype_bytes(op.dtype);
  const uint64_t es = p.m_es;
  const double cpo = dtype_cycles_per_op(op.dtype);
  const uint64_t rows = model.array.rows, cols = model.array.cols;
  const uint64_t P = partition_bytes;

  switch (op.kind) {
  case OpKind::Cycles:
    p.m_kind = TilePlan::Kind::Cycles;
    p.m_shape = "cycles";
    return p; // every share runs the cycles: one tile, blocks [0, 1)
  case OpKind::Matmul:
  case OpKind::FullyConnected: {
    p.m_kind = TilePlan::Kind::Gemm;
    uint64_t M = 0, N = 0, K = 0;
    lowered_matmul(op, &M, &N, &K);
    struct Choice {
      uint64_t mt, nt, kt;
    };
    Best<Choice> best(units);
    for (uint64_t mt : candidates(M, rows))
      for (uint64_t nt : candidates(N, cols))
        for (uint64_t kt : candidates(K, rows)) {
          const uint64_t kb = ceil_div(K, kt);
          const uint64_t acc = needs_accumulator(model, kb, kt) ? mt * nt * kAccumulatorBytes : 0;
          if (2 * (mt * kt + kt * nt) * es + 2 * mt * nt * es + acc > P)
            continue;
          const Cut cm = cut(M, mt), cn = cut(N, nt), ck = cut(K, kt);
          double steps = 0;
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
              for (int l = 0; l < 2; ++l) {
                const double count = static_cast<double>(cm.count[i]) *
                                     static_cast<double>(cn.count[j]) *
                                     static_cast<double>(ck.count[l]);
                if (count > 0)
                  steps += count *
                           static_cast<double>(gemm_tile_steps(model.dataflow, model.array,
                                                               cm.size[i], cn.size[j], ck.size[l]));
              }
          const auto mb = static_cast<double>(ceil_div(M, mt));
          const auto nb = static_cast<double>(ceil_div(N, nt));
          Estimate e;
          e.compute_cycles = steps * cpo;
          e.load_bytes =
              static_cast<double>(M * K * es) * nb + static_cast<double>(K * N * es) * mb;
          e.store_bytes = static_cast<double>(M * N * es);
          e.blocks = mb * nb;
          e.tiles = e.blocks * static_cast<double>(kb);
          e.transfers = 2 * e.tiles + e.blocks;
          best.offer(e, {mt, nt, kt});
        }
    if (best.empty())
      too_small(op, P);
    const Choice c = best.pick();
    p.m_mt = c.mt;
    p.m_nt = c.nt;
    p.m_kt = c.kt;
    p.m_blocks = ceil_div(M, c.mt) * ceil_div(N, c.nt);
    p.m_chunks = ceil_div(K, c.kt);
    p.m_operand_bytes = (c.mt * c.kt + c.kt * c.nt) * es;
    p.m_result_bytes = c.mt * c.nt * es;
    p.m_accumulator_bytes =
        needs_accumulator(model, p.m_chunks, c.kt) ? c.mt * c.nt * kAccumulatorBytes : 0;
    p.m_shape = "mt=" + std::to_string(c.mt) + " nt=" + std::to_string(c.nt) +
                " kt=" + std::to_string(c.kt);
    break;
  }
  case OpKind::Conv2d: {
    p.m_kind = TilePlan::Kind::Conv;
    const Window g = window_of(op);
    const uint64_t KF = op.filters, rs = g.r * g.s;
    struct Choice {
      uint64_t rt, wt, cc, ft;
    };
    Best<Choice> best(units);
    for (uint64_t rt : candidates(g.ho, 1))
      for (uint64_t wt : col_candidates(g, rt))
        for (uint64_t cc : candidates(g.channels, 1))
          for (uint64_t ft : candidates(KF, cols)) {
            const uint64_t chunks = ceil_div(g.channels, cc);
            const uint64_t acc =
                needs_accumulator(model, chunks, cc * rs) ? rt * wt * ft * kAccumulatorBytes : 0;
            if (2 * (patch_bytes(g, rt, wt, cc, es) + cc * rs * ft * es) + 2 * rt * wt * ft * es +
                    acc >
                P)
              continue;
            const Cut cr = cut(g.ho, rt), cw = cut(g.wo, wt), cc_cut = cut(g.channels, cc),
                      cf = cut(KF, ft);
            const auto rb = static_cast<double>(ceil_div(g.ho, rt));
            const auto wb = static_cast<double>(ceil_div(g.wo, wt));
            const auto fb = static_cast<double>(ceil_div(KF, ft));
            const auto images = static_cast<double>(g.images);
            double steps = 0, patches = 0;
            for (int i = 0; i < 2; ++i)
              for (int j = 0; j < 2; ++j)
                for (int l = 0; l < 2; ++l) {
                  const double tiles = static_cast<double>(cr.count[i]) *
                                       static_cast<double>(cw.count[j]) *
                                       static_cast<double>(cc_cut.count[l]);
                  if (tiles == 0)
                    continue;
                  patches += tiles * static_cast<double>(patch_bytes(g, cr.size[i], cw.size[j],
                                                                     cc_cut.size[l], es));
                  for (int f = 0; f < 2; ++f)
                    if (cf.count[f])
                      steps += tiles * static_cast<double>(cf.count[f]) *
                               static_cast<double>(gemm_tile_steps(
                                   model.dataflow, model.array, cr.size[i] * cw.size[j], cf.size[f],
                                   cc_cut.size[l] * rs));
                }
            Estimate e;
            e.compute_cycles = images * steps * cpo;
            e.blocks = images * rb * wb * fb;
            e.tiles = e.blocks * static_cast<double>(chunks);
            e.load_bytes = images * patches * fb +
                           images * rb * wb * static_cast<double>(g.channels * rs * KF * es);
            e.store_bytes = images * static_cast<double>(g.ho * g.wo * KF * es);
            e.transfers = e.tiles * static_cast<double>(patch_transfers(g, rt, cc) + 1) + e.blocks;
            best.offer(e, {rt, wt, cc, ft});
          }
    if (best.empty())
      too_small(op, P);
    const Choice c = best.pick();
    p.m_rt = c.rt;
    p.m_wt = c.wt;
    p.m_cc = c.cc;
    p.m_nt = c.ft;
    p.m_blocks = g.images * ceil_div(g.ho, c.rt) * ceil_div(g.wo, c.wt) * ceil_div(KF, c.ft);
    p.m_chunks = ceil_div(g.channels, c.cc);
    p.m_operand_bytes = patch_bytes(g, c.rt, c.wt, c.cc, es) + c.cc * rs * c.ft * es;
    p.m_result_bytes = c.rt * c.wt * c.ft * es;
    p.m_accumulator_bytes = needs_accumulator(model, p.m_chunks, c.cc * rs)
                                ? c.rt * c.wt * c.ft * kAccumulatorBytes
                                : 0;
    p.m_shape = "rows=" + std::to_string(c.rt) + " cols=" + std::to_string(c.wt) +
                " channels=" + std::to_string(c.cc) + " filters=" + std::to_string(c.ft);
    break;
  }
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool: {
    p.m_kind = TilePlan::Kind::Window;
    const Window g = window_of(op);
    const uint64_t rs = g.r * g.s;
    const uint64_t weights_per_channel = op.kind == OpKind::DepthwiseConv2d ? rs * es : 0;
    struct Choice {
      uint64_t rt, wt, cc;
    };
    Best<Choice> best(units);
    for (uint64_t rt : candidates(g.ho, 1))
      for (uint64_t wt : col_candidates(g, rt))
        for (uint64_t cc : candidates(g.channels, model.vector_lanes)) {
          if (2 * (patch_bytes(g, rt, wt, cc, es) + cc * weights_per_channel) +
                  2 * rt * wt * cc * es >
              P)
            continue;
          const Cut cr = cut(g.ho, rt), cw = cut(g.wo, wt), cc_cut = cut(g.channels, cc);
          const auto images = static_cast<double>(g.images);
          double cycles = 0, patches = 0;
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
              for (int l = 0; l < 2; ++l) {
                const double tiles = static_cast<double>(cr.count[i]) *
                                     static_cast<double>(cw.count[j]) *
                                     static_cast<double>(cc_cut.count[l]);
                if (tiles == 0)
                  continue;
                patches += tiles * static_cast<double>(
                                       patch_bytes(g, cr.size[i], cw.size[j], cc_cut.size[l], es));
                cycles += tiles * static_cast<double>(
                                      vector_cycles(cr.size[i] * cw.size[j] * cc_cut.size[l],
                                                    model.vector_lanes, op.dtype) *
                                      rs);
              }
          Estimate e;
          e.compute_cycles = images * cycles;
          e.blocks = images * static_cast<double>(ceil_div(g.ho, rt) * ceil_div(g.wo, wt) *
                                                  ceil_div(g.channels, cc));
          e.tiles = e.blocks;
          e.load_bytes =
              images * patches + e.blocks / static_cast<double>(ceil_div(g.channels, cc)) *
                                     static_cast<double>(g.channels * weights_per_channel);
          e.store_bytes = images * static_cast<double>(g.ho * g.wo * g.channels * es);
          e.transfers = e.tiles * static_cast<double>(patch_transfers(g, rt, cc) + 1 +
                                                      (weights_per_channel ? 1 : 0));
          best.offer(e, {rt, wt, cc});
        }
    if (best.empty())
      too_small(op, P);
    const Choice c = best.pick();
    p.m_rt = c.rt;
    p.m_wt = c.wt;
    p.m_cc = c.cc;
    p.m_blocks =
        g.images * ceil_div(g.ho, c.rt) * ceil_div(g.wo, c.wt) * ceil_div(g.channels, c.cc);
    p.m_operand_bytes = patch_bytes(g, c.rt, c.wt, c.cc, es) + c.cc * weights_per_channel;
    p.m_result_bytes = c.rt * c.wt * c.cc * es;
    p.m_shape = "rows=" + std::to_string(c.rt) + " cols=" + std::to_string(c.wt) +
                " channels=" + std::to_string(c.cc);
    break;
  }
  case OpKind::Elementwise: {
    p.m_kind = TilePlan::Kind::Elementwise;
    const uint64_t E = op.elements, inputs = std::max<uint32_t>(op.inputs, 1);
    Best<uint64_t> best(units);
    for (uint64_t te : candidates(E, 64)) {
      if (2 * (inputs + 1) * te * es > P)
        continue;
      Estimate e;
      e.blocks = e.tiles = static_cast<double>(ceil_div(E, te));
      const Cut ct = cut(E, te);
      e.compute_cycles = static_cast<double>(
          ct.count[0] * vector_cycles(ct.size[0], model.vector_lanes, op.dtype) +
          ct.count[1] * vector_cycles(ct.size[1], model.vector_lanes, op.dtype));
      e.load_bytes = static_cast<double>(inputs * E * es);
      e.store_bytes = static_cast<double>(E * es);
      e.transfers = e.tiles * static_cast<double>(inputs + 1);
      best.offer(e, te);
    }
    if (best.empty())
      too_small(op, P);
    p.m_te = best.pick();
    p.m_blocks = ceil_div(E, p.m_te);
    p.m_operand_bytes = inputs * p.m_te * es;
    p.m_result_bytes = p.m_te * es;
    p.m_shape = "elements=" + std::to_string(p.m_te);
    break;
  }
  case OpKind::Softmax:
  case OpKind::Layernorm: {
    const uint64_t R = op.rows, C = op.cols;
    const bool affine = op.kind == OpKind::Layernorm; // gamma and beta, 2 x cols
    const uint64_t passes = rowwise_passes(op.kind), reductions = rowwise_reductions(op.kind);
    const uint64_t row_cycles = passes * vector_cycles(C, model.vector_lanes, op.dtype) +
                                reductions * reduction_cycles(model.vector_lanes);
    Best<uint64_t> best(units);
    for (uint64_t rt : candidates(R, 1)) {
      const uint64_t extra = affine ? 2 * C * es : 0;
      if (2 * (rt * C * es + extra) + 2 * rt * C * es > P)
        continue;
      Estimate e;
      e.blocks = e.tiles = static_cast<double>(ceil_div(R, rt));
      e.compute_cycles = static_cast<double>(R * row_cycles);
      e.load_bytes = static_cast<double>(R * C * es) + e.tiles * static_cast<double>(extra);
      e.store_bytes = static_cast<double>(R * C * es);
      e.transfers = e.tiles * (affine ? 3 : 2);
      best.offer(e, rt);
    }
    if (!best.empty()) {
      p.m_kind = TilePlan::Kind::Rows;
      p.m_rt = best.pick();
      p.m_blocks = ceil_div(R, p.m_rt);
      p.m_operand_bytes = p.m_rt * C * es + (affine ? 2 * C * es : 0);
      p.m_result_bytes = p.m_rt * C * es;
      p.m_shape = "rows=" + std::to_string(p.m_rt);
      break;
    }
    // A row does not fit: every pass streams the row in chunks.
    p.m_kind = TilePlan::Kind::RowChunks;
    uint64_t chunk = P / ((affine ? 8 : 4) * es);
    if (chunk >= 64)
      chunk = chunk / 64 * 64;
    if (chunk == 0)
      too_small(op, P);
    p.m_te = chunk;
    p.m_blocks = R;
    p.m_chunks = passes * ceil_div(C, chunk);
    p.m_operand_bytes = (affine ? 3 : 1) * chunk * es;
    p.m_result_bytes = chunk * es;
    p.m_shape = "row chunks=" + std::to_string(chunk);
    break;
  }
  }
  // Share s owns blocks [ceil(B s / u), ceil(B (s + 1) / u)): share 0 is never smaller.
  p.m_block_begin = ceil_div(p.m_blocks * share, units);
  p.m_block_end = ceil_div(p.m_blocks * (share + 1), units);
  return p;
}

Tile TilePlan::tile(uint64_t index) const {
  const uint64_t block = m_block_begin + index / m_chunks;
  const uint64_t chunk = index % m_chunks;
  switch (m_kind) {
  case Kind::Cycles: {
    Tile t;
    t.cycles = m_op.cycles;
    return t;
  }
  case Kind::Gemm:
    return gemm_tile(block, chunk);
  case Kind::Conv:
    return conv_tile(block, chunk);
  case Kind::Window:
    return window_tile(block);
  case Kind::Elementwise:
    return elementwise_tile(block);
  case Kind::Rows:
    return rows_tile(block);
  case Kind::RowChunks:
    return row_chunk_tile(block, chunk);
  }
  return {};
}

Tile TilePlan::gemm_tile(uint64_t block, uint64_t chunk) const {
  uint64_t M = 0, N = 0, K = 0;
  lowered_matmul(m_op, &M, &N, &K);
  const uint64_t es = m_es;
  const uint64_t nb = ceil_div(N, m_nt);
  const uint64_t m0 = block / nb * m_mt, n0 = block % nb * m_nt, k0 = chunk * m_kt;
  const uint64_t mt = std::min(m_mt, M - m0), nt = std::min(m_nt, N - n0),
                 kt = std::min(m_kt, K - k0);
  Tile t;
  t.engine = Engine::Array;
  // A is M x K, B is K x N, C is M x N, all row-major.
  t.loads.push_back(transfer(0, (m0 * K + k0) * es, kt * es, mt, K * es, 0));
  t.loads.push_back(transfer(1, (k0 * N + n0) * es, nt * es, kt, N * es, m_mt * m_kt * es));
  if (chunk + 1 == m_chunks)
    t.stores.push_back(transfer(0, (m0 * N + n0) * es, nt * es, mt, N * es, 0));
  t.cycles = gemm_tile_steps(m_model.dataflow, m_model.array, mt, nt, kt) *
             dtype_cycles_per_op(m_op.dtype);
  t.macs = mt * nt * kt;
  return t;
}

namespace {
// Input rows [lo, hi) an output band [o0, o0 + n) reads, clipped to the input.
void input_band(uint64_t o0, uint64_t n, uint64_t stride, uint64_t pad, uint64_t window,
                uint64_t extent, uint64_t* lo, uint64_t* hi) {
  const int64_t first = static_cast<int64_t>(o0 * stride) - static_cast<int64_t>(pad);
  const int64_t last =
      static_cast<int64_t>((o0 + n - 1) * stride + window) - static_cast<int64_t>(pad);
  *lo = static_cast<uint64_t>(std::clamp<int64_t>(first, 0, static_cast<int64_t>(extent)));
  *hi = static_cast<uint64_t>(std::clamp<int64_t>(last, 0, static_cast<int64_t>(extent)));
}

// Loads of the NHWC input patch of image `image` for output rows [oh0, oh0 + rt) and
// columns [ow0, ow0 + wt), channels [c0, c0 + cc), packed from SRAM offset 0.
void patch_loads(const Window& g, uint64_t es, uint64_t image, uint64_t oh0, uint64_t rt,
                 uint64_t ow0, uint64_t wt, uint64_t c0, uint64_t cc,
                 std::vector<TileTransfer>* out) {
  uint64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
  input_band(oh0, rt, g.stride, g.pad, g.r, g.h, &h0, &h1);
  input_band(ow0, wt, g.stride, g.pad, g.s, g.w, &w0, &w1);
  if (h1 <= h0 || w1 <= w0)
    return; // the window only covers padding
  const uint64_t C = g.channels;
  if (cc == C) {
    out->push_back(transfer(0, ((image * g.h + h0) * g.w + w0) * C * es, (w1 - w0) * C * es,
                            h1 - h0, g.w * C * es, 0));
    return;
  }
  uint64_t sram = 0;
  for (uint64_t h = h0; h < h1; ++h) {
    out->push_back(transfer(0, (((image * g.h + h) * g.w + w0) * C + c0) * es, cc * es, w1 - w0,
                            C * es, sram));
    sram += (w1 - w0) * cc * es;
  }
}
} // namespace

Tile TilePlan::conv_tile(uint64_t block, uint64_t chunk) const {
  const Window g = window_of(m_op);
  const uint64_t es = m_es, KF = m_op.filters, rs = g.r * g.s;
  const uint64_t fb = ceil_div(KF, m_nt), wb = ceil_div(g.wo, m_wt), rb = ceil_div(g.ho, m_rt);
  const uint64_t f0 = block % fb * m_nt;
  const uint64_t ow0 = block / fb % wb * m_wt;
  const uint64_t oh0 = block / fb / wb % rb * m_rt;
  const uint64_t image = block / fb / wb / rb;
  const uint64_t c0 = chunk * m_cc;
  const uint64_t ft = std::min(m_nt, KF - f0), wt = std::min(m_wt, g.wo - ow0),
                 rt = std::min(m_rt, g.ho - oh0), cc = std::min(m_cc, g.channels - c0);
  Tile t;
  t.engine = Engine::Array;
  patch_loads(g, es, image, oh0, rt, ow0, wt, c0, cc, &t.loads);
  // Weights: (c x r x s) x k, row-major; this chunk's channels are consecutive rows.
  t.loads.push_back(transfer(1, (c0 * rs * KF + f0) * es, ft * es, cc * rs, KF * es,
                             patch_bytes(g, m_rt, m_wt, m_cc, es)));
  // Output pixels of a tile are consecutive (whole rows, or part of one row).
  if (chunk + 1 == m_chunks)
    t.stores.push_back(transfer(0, (((image * g.ho + oh0) * g.wo + ow0) * KF + f0) * es, ft * es,
                                rt * wt, KF * es, 0));
  t.cycles = gemm_tile_steps(m_model.dataflow, m_model.array, rt * wt, ft, cc * rs) *
             dtype_cycles_per_op(m_op.dtype);
  t.macs = rt * wt * ft * cc * rs;
  return t;
}

Tile TilePlan::window_tile(uint64_t block) const {
  const Window g = window_of(m_op);
  const uint64_t es = m_es, rs = g.r * g.s;
  const uint64_t cb = ceil_div(g.channels, m_cc), wb = ceil_div(g.wo, m_wt),
                 rb = ceil_div(g.ho, m_rt);
  const uint64_t c0 = block % cb * m_cc;
  const uint64_t ow0 = block / cb % wb * m_wt;
  const uint64_t oh0 = block / cb / wb % rb * m_rt;
  const uint64_t image = block / cb / wb / rb;
  const uint64_t cc = std::min(m_cc, g.channels - c0), wt = std::min(m_wt, g.wo - ow0),
                 rt = std::min(m_rt, g.ho - oh0);
  Tile t;
  t.engine = Engine::Vector;
  patch_loads(g, es, image, oh0, rt, ow0, wt, c0, cc, &t.loads);
  if (m_op.kind == OpKind::DepthwiseConv2d) // weights: c x r x s
    t.loads.push_back(transfer(1, c0 * rs * es, cc * rs * es, 1, cc * rs * es,
                               patch_bytes(g, m_rt, m_wt, m_cc, es)));
  t.stores.push_back(transfer(0, (((image * g.ho + oh0) * g.wo + ow0) * g.channels + c0) * es,
                              cc * es, rt * wt, g.channels * es, 0));
  // One multiply-accumulate (or compare) per window element per output.
  t.cycles = vector_cycles(rt * wt * cc, m_model.vector_lanes, m_op.dtype) * rs;
  t.vector_ops = rt * wt * cc * rs;
  return t;
}

Tile TilePlan::elementwise_tile(uint64_t block) const {
  const uint64_t e0 = block * m_te, te = std::min(m_te, m_op.elements - e0);
  Tile t;
  t.engine = Engine::Vector;
  for (uint32_t j = 0; j < std::max<uint32_t>(m_op.inputs, 1); ++j)
    t.loads.push_back(transfer(j, e0 * m_es, te * m_es, 1, te * m_es, j * m_te * m_es));
  t.stores.push_back(transfer(0, e0 * m_es, te * m_es, 1, te * m_es, 0));
  t.cycles = vector_cycles(te, m_model.vector_lanes, m_op.dtype);
  t.vector_ops = te;
  return t;
}

Tile TilePlan::rows_tile(uint64_t block) const {
  const uint64_t C = m_op.cols, r0 = block * m_rt, rt = std::min(m_rt, m_op.rows - r0);
  Tile t;
  t.engine = Engine::Vector;
  t.loads.push_back(transfer(0, r0 * C * m_es, rt * C * m_es, 1, rt * C * m_es, 0));
  if (m_op.kind == OpKind::Layernorm) // gamma then beta
    t.loads.push_back(transfer(1, 0, 2 * C * m_es, 1, 2 * C * m_es, m_rt * C * m_es));
  t.stores.push_back(transfer(0, r0 * C * m_es, rt * C * m_es, 1, rt * C * m_es, 0));
  t.cycles = rt * (rowwise_passes(m_op.kind) * vector_cycles(C, m_model.vector_lanes, m_op.dtype) +
                   rowwise_reductions(m_op.kind) * reduction_cycles(m_model.vector_lanes));
  t.vector_ops = rowwise_passes(m_op.kind) * rt * C;
  return t;
}

Tile TilePlan::row_chunk_tile(uint64_t block, uint64_t chunk) const {
  const uint64_t C = m_op.cols, per_pass = ceil_div(C, m_te);
  const uint64_t pass = chunk / per_pass, j = chunk % per_pass;
  const uint64_t c0 = j * m_te, n = std::min(m_te, C - c0);
  const bool last_pass = pass + 1 == rowwise_passes(m_op.kind);
  Tile t;
  t.engine = Engine::Vector;
  t.loads.push_back(transfer(0, (block * C + c0) * m_es, n * m_es, 1, n * m_es, 0));
  if (m_op.kind == OpKind::Layernorm && last_pass) {
    t.loads.push_back(transfer(1, c0 * m_es, n * m_es, 1, n * m_es, m_te * m_es));
    t.loads.push_back(transfer(1, (C + c0) * m_es, n * m_es, 1, n * m_es, 2 * m_te * m_es));
  }
  if (last_pass)
    t.stores.push_back(transfer(0, (block * C + c0) * m_es, n * m_es, 1, n * m_es, 0));
  t.cycles = vector_cycles(n, m_model.vector_lanes, m_op.dtype);
  if (pass < rowwise_reductions(m_op.kind) && j + 1 == per_pass)
    t.cycles += reduction_cycles(m_model.vector_lanes);
  t.vector_ops = n;
  return t;
}

OpWork TilePlan::totals() const {
  OpWork w;
  for (uint64_t i = 0; i < size(); ++i) {
    const Tile t = tile(i);
    w.compute_cycles += t.cycles;
    w.macs += t.macs;
    w.vector_ops += t.vector_ops;
    for (const auto& l : t.loads)
      w.load_bytes += l.bytes();
    for (const auto& s : t.stores)
      w.store_bytes += s.bytes();
  }
  return w;
}

std::vector<RegionPiece> map_to_region(const TileTransfer& t, uint64_t region_bytes) {
  std::vector<RegionPiece> out;
  if (region_bytes == 0 || t.bytes() == 0)
    return out;
  // Bytes [offset, offset + len) of the operand as 1-D pieces, cut at the region end.
  auto linear = [&](uint64_t offset, uint64_t len, uint64_t sram) {
    uint64_t at = offset % region_bytes;
    while (len > 0) {
      const uint64_t n = std::min(len, region_bytes - at);
      out.push_back({at, sram, n, 1, n});
      len -= n;
      sram += n;
      at = 0;
    }
  };
  if (t.rows == 1 || t.stride == t.row_bytes) {
    linear(t.offset, t.bytes(), t.sram_offset);
    return out;
  }
  for (uint64_t row = 0; row < t.rows;) {
    const uint64_t start = (t.offset + row * t.stride) % region_bytes;
    if (start + t.row_bytes > region_bytes) {
      linear(start, t.row_bytes, t.sram_offset + row * t.row_bytes);
      ++row;
      continue;
    }
    // Rows while each still starts and ends before the region end.
    uint64_t n = t.rows - row;
    if (t.stride > 0)
      n = std::min(n, (region_bytes - t.row_bytes - start) / t.stride + 1);
    out.push_back({start, t.sram_offset + row * t.row_bytes, t.row_bytes, n, t.stride});
    row += n;
  }
  return out;
}

} // namespace npu
