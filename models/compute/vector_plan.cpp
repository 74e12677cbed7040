// Planners of the ops that run on the vector unit: depthwise_conv2d and pool (windows),
// elementwise, and the row-wise softmax and layernorm.
#include "models/compute/plan_internal.h"

#include <string>

namespace npu {
namespace {

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
  return rt == 1 ? tile_candidates(g.wo, 1) : std::vector<uint64_t>{g.wo};
}
// A contiguous stream of `bytes` (one pattern) for the cost model.
AccessPattern linear(double bytes) {
  return {1, bytes, 0};
}

struct WindowChoice {
  uint64_t rt, wt, cc;
};

Estimate window_estimate(const OpSpec& op, const CostModel& cost, const Window& g,
                         const WindowChoice& c, uint64_t weights_per_channel) {
  const uint64_t es = dtype_bytes(op.dtype), rs = g.r * g.s;
  const Cut cr = cut(g.ho, c.rt), cw = cut(g.wo, c.wt), cc_cut = cut(g.channels, c.cc);
  const auto images = static_cast<double>(g.images);
  double cycles = 0, patches = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < 2; ++l) {
        const double tiles = static_cast<double>(cr.count[i]) * static_cast<double>(cw.count[j]) *
                             static_cast<double>(cc_cut.count[l]);
        if (tiles == 0)
          continue;
        patches +=
            tiles * static_cast<double>(patch_bytes(g, cr.size[i], cw.size[j], cc_cut.size[l], es));
        cycles +=
            tiles * static_cast<double>(vector_cycles(cr.size[i] * cw.size[j] * cc_cut.size[l],
                                                      cost.target().model.vector_lanes, op.dtype) *
                                        rs);
      }
  const double channel_blocks = static_cast<double>(ceil_div(g.channels, c.cc));
  Estimate e;
  e.compute_cycles = images * cycles;
  e.blocks =
      images * static_cast<double>(ceil_div(g.ho, c.rt) * ceil_div(g.wo, c.wt)) * channel_blocks;
  e.tiles = e.blocks;
  e.load_bytes = images * patches +
                 e.blocks / channel_blocks * static_cast<double>(g.channels * weights_per_channel);
  e.store_bytes = images * static_cast<double>(g.ho * g.wo * g.channels * es);
  const double per_tile = patch_bytes(g, c.rt, c.wt, c.cc, es);
  const AccessPattern patch =
      c.cc == g.channels
          ? linear(per_tile)
          : AccessPattern{per_tile / static_cast<double>(c.cc * es), static_cast<double>(c.cc * es),
                          static_cast<double>(g.channels * es)};
  const double out_tile = static_cast<double>(c.rt * c.wt * c.cc * es);
  e.ddr_s = cost.transfer_seconds(patch, e.load_bytes / per_tile) +
            cost.transfer_seconds(linear(out_tile), e.store_bytes / out_tile);
  e.descriptors = e.tiles * static_cast<double>(patch_transfers(g, c.rt, c.cc) + 1 +
                                                (weights_per_channel ? 1 : 0));
  e.first_load_s = cost.exposed_seconds(per_tile, 2);
  e.last_store_s = cost.exposed_seconds(out_tile, 1);
  return e;
}

} // namespace

TilePlan PlanBuilder::window(const OpSpec& op, const CostModel& cost) {
  TilePlan p = start(TilePlan::Kind::Window, op, cost);
  const Window g = window_of(op);
  const uint64_t es = p.m_es, rs = g.r * g.s, P = cost.target().partition_bytes;
  const uint64_t weights_per_channel = op.kind() == OpKind::DepthwiseConv2d ? rs * es : 0;
  Best<WindowChoice> best(cost);
  for (uint64_t rt : tile_candidates(g.ho, 1))
    for (uint64_t wt : col_candidates(g, rt))
      for (uint64_t cc : tile_candidates(g.channels, cost.target().model.vector_lanes)) {
        const WindowChoice c{rt, wt, cc};
        if (p.m_buffers *
                (patch_bytes(g, rt, wt, cc, es) + cc * weights_per_channel + rt * wt * cc * es) <=
            P)
          best.offer(window_estimate(op, cost, g, c, weights_per_channel), c);
      }
  if (best.empty())
    return window_chunks(op, cost, p);
  const WindowChoice c = best.pick();
  p.m_rt = c.rt;
  p.m_wt = c.wt;
  p.m_cc = c.cc;
  p.m_blocks = g.images * ceil_div(g.ho, c.rt) * ceil_div(g.wo, c.wt) * ceil_div(g.channels, c.cc);
  p.m_operand_bytes = patch_bytes(g, c.rt, c.wt, c.cc, es) + c.cc * weights_per_channel;
  p.m_a_buffer_bytes = patch_bytes(g, c.rt, c.wt, c.cc, es);
  p.m_result_bytes = c.rt * c.wt * c.cc * es;
  p.m_shape = "rows=" + std::to_string(c.rt) + " cols=" + std::to_string(c.wt) +
              " channels=" + std::to_string(c.cc);
  return p;
}

TilePlan PlanBuilder::window_chunks(const OpSpec& op, const CostModel& cost, TilePlan p) {
  const Window g = window_of(op);
  const uint64_t es = p.m_es, P = cost.target().partition_bytes, B = p.m_buffers;
  const uint64_t per = op.kind() == OpKind::DepthwiseConv2d ? 2 : 1; // the patch, its weights
  const uint64_t lanes = cost.target().model.vector_lanes;
  // The widest channel block whose result and one window element per buffer fit; then
  // as many window columns, and rows of them, as the buffers hold.
  for (uint64_t cc = std::min<uint64_t>(g.channels, std::max<uint64_t>(lanes, 1)); cc >= 1;
       cc /= 2) {
    if (cc * es >= P)
      continue;
    const uint64_t room = (P - cc * es) / B / (per * cc * es); // window elements per chunk
    if (room == 0)
      continue;
    const uint64_t sc = std::min(g.s, room), rc = std::min(g.r, room / sc);
    p.m_kind = TilePlan::Kind::WindowChunks;
    p.m_rt = p.m_wt = 1;
    p.m_cc = cc;
    p.m_rc = rc;
    p.m_sc = sc;
    p.m_blocks = g.images * g.ho * g.wo * ceil_div(g.channels, cc);
    p.m_chunks = ceil_div(g.r, rc) * ceil_div(g.s, sc);
    p.m_a_buffer_bytes = rc * sc * cc * es;
    p.m_operand_bytes = per * p.m_a_buffer_bytes;
    p.m_result_bytes = cc * es;
    p.m_shape = "window chunks=" + std::to_string(rc) + "x" + std::to_string(sc) +
                " channels=" + std::to_string(cc);
    return p;
  }
  too_small(op, P);
}

TilePlan PlanBuilder::elementwise(const OpSpec& op, const CostModel& cost) {
  TilePlan p = start(TilePlan::Kind::Elementwise, op, cost);
  const auto& e = op.as<ElementwiseOp>();
  const uint64_t E = e.elements, inputs = std::max<uint32_t>(e.inputs, 1), es = p.m_es;
  const uint64_t P = cost.target().partition_bytes;
  const uint32_t lanes = cost.target().model.vector_lanes;
  Best<uint64_t> best(cost);
  for (uint64_t te : tile_candidates(E, 64)) {
    if (p.m_buffers * (inputs + 1) * te * es > P)
      continue;
    Estimate e;
    e.blocks = e.tiles = static_cast<double>(ceil_div(E, te));
    const Cut ct = cut(E, te);
    e.compute_cycles =
        static_cast<double>(ct.count[0] * vector_cycles(ct.size[0], lanes, op.dtype) +
                            ct.count[1] * vector_cycles(ct.size[1], lanes, op.dtype));
    e.load_bytes = static_cast<double>(inputs * E * es);
    e.store_bytes = static_cast<double>(E * es);
    const auto tile_bytes = static_cast<double>(te * es);
    e.ddr_s = cost.transfer_seconds(linear(tile_bytes), e.tiles * static_cast<double>(inputs + 1));
    e.descriptors = e.tiles * static_cast<double>(inputs + 1);
    e.first_load_s =
        cost.exposed_seconds(tile_bytes * static_cast<double>(inputs), static_cast<double>(inputs));
    e.last_store_s = cost.exposed_seconds(tile_bytes, 1);
    best.offer(e, te);
  }
  // Below the alignment when not even 64 elements per operand fit.
  p.m_te = best.empty() ? std::min(E, P / (p.m_buffers * (inputs + 1) * es)) : best.pick();
  if (p.m_te == 0)
    too_small(op, P);
  p.m_blocks = ceil_div(E, p.m_te);
  p.m_operand_bytes = inputs * p.m_te * es;
  p.m_result_bytes = p.m_te * es;
  p.m_shape = "elements=" + std::to_string(p.m_te);
  return p;
}

TilePlan PlanBuilder::rowwise(const OpSpec& op, const CostModel& cost) {
  TilePlan p = start(TilePlan::Kind::Rows, op, cost);
  const uint64_t R = op.rowwise()->rows, C = op.rowwise()->cols, es = p.m_es,
                 P = cost.target().partition_bytes;
  const uint32_t lanes = cost.target().model.vector_lanes;
  const bool affine = op.kind() == OpKind::Layernorm; // gamma and beta, 2 x cols
  const uint64_t passes = rowwise_passes(op.kind()), reductions = rowwise_reductions(op.kind());
  const uint64_t row_cycles =
      passes * vector_cycles(C, lanes, op.dtype) + reductions * reduction_cycles(lanes);
  const uint64_t extra = affine ? 2 * C * es : 0;
  Best<uint64_t> best(cost);
  for (uint64_t rt : tile_candidates(R, 1)) {
    if (p.m_buffers * (rt * C * es + extra + rt * C * es) > P)
      continue;
    Estimate e;
    e.blocks = e.tiles = static_cast<double>(ceil_div(R, rt));
    e.compute_cycles = static_cast<double>(R * row_cycles);
    e.load_bytes = static_cast<double>(R * C * es) + e.tiles * static_cast<double>(extra);
    e.store_bytes = static_cast<double>(R * C * es);
    const auto tile_bytes = static_cast<double>(rt * C * es);
    e.ddr_s = cost.transfer_seconds(linear(tile_bytes), 2 * e.tiles) +
              (affine ? cost.transfer_seconds(linear(static_cast<double>(extra)), e.tiles) : 0);
    e.descriptors = e.tiles * (affine ? 3 : 2);
    e.first_load_s = cost.exposed_seconds(tile_bytes + static_cast<double>(extra), affine ? 2 : 1);
    e.last_store_s = cost.exposed_seconds(tile_bytes, 1);
    best.offer(e, rt);
  }
  if (!best.empty()) {
    p.m_rt = best.pick();
    p.m_blocks = ceil_div(R, p.m_rt);
    p.m_operand_bytes = p.m_rt * C * es + extra;
    p.m_a_buffer_bytes = p.m_rt * C * es;
    p.m_result_bytes = p.m_rt * C * es;
    p.m_shape = "rows=" + std::to_string(p.m_rt);
    return p;
  }
  // A row does not fit: every pass streams the row in chunks (x, and for layernorm
  // gamma and beta, per operand buffer; one result chunk).
  p.m_kind = TilePlan::Kind::RowChunks;
  uint64_t chunk = P / (p.m_buffers * ((affine ? 3 : 1) + 1) * es);
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
  return p;
}

TilePlan PlanBuilder::cycles(const OpSpec& op) {
  TilePlan p;
  p.m_kind = TilePlan::Kind::Cycles;
  p.m_op = op;
  p.m_shape = "cycles";
  return p; // every share runs the cycles: one tile, blocks [0, 1)
}

} // namespace npu
