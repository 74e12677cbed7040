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
  const double loads = images * patches + e.blocks / channel_blocks *
                                              static_cast<double>(g.channels * weights_per_channel);
  const double stores = images * static_cast<double>(g.ho * g.wo * g.channels * es);
  const double per_tile = patch_bytes(g, c.rt, c.wt, c.cc, es);
  const AccessPattern patch =
      c.cc == g.channels
          ? linear(per_tile)
          : AccessPattern{per_tile / static_cast<double>(c.cc * es), static_cast<double>(c.cc * es),
                          static_cast<double>(g.channels * es)};
  const double out_tile = static_cast<double>(c.rt * c.wt * c.cc * es);
  e.load(cost, patch, loads / per_tile, 0);
  e.store(cost, linear(out_tile), stores / out_tile);
  e.descriptors = e.tiles * static_cast<double>(patch_transfers(g, c.rt, c.cc) + 1 +
                                                (weights_per_channel ? 1 : 0));
  e.first_load_s = cost.exposed_seconds({{per_tile, 1, 0}, {0, 1, 1}});
  e.last_store_s = cost.exposed_seconds({{out_tile, 1, CostModel::kResult}});
  return e;
}

} // namespace

TilePlan PlanBuilder::window(const OpSpec& op, const CostModel& cost) {
  TilePlan p = start(TilePlan::Kind::Window, op, cost);
  const Window g = window_of(op);
  const uint64_t es = p.m_element_bytes, rs = g.r * g.s, P = cost.target().partition_bytes;
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
  p.m_tile_channels = c.cc;
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
  const uint64_t es = p.m_element_bytes, P = cost.target().partition_bytes, B = p.m_buffers;
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
    p.m_tile_channels = cc;
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
  const uint64_t E = e.elements, inputs = std::max<uint32_t>(e.inputs, 1), es = p.m_element_bytes;
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
    const auto tile_bytes = static_cast<double>(te * es);
    const double count = static_cast<double>(E) / static_cast<double>(te);
    for (uint32_t j = 0; j < inputs; ++j)
      e.load(cost, linear(tile_bytes), count, j);
    e.store(cost, linear(tile_bytes), count);
    e.descriptors = e.tiles * static_cast<double>(inputs + 1);
    e.first_load_s = inputs > 1 ? cost.exposed_seconds({{tile_bytes, 1, 0}, {tile_bytes, 1, 1}})
                                : cost.exposed_seconds({{tile_bytes, 1, 0}});
    e.last_store_s = cost.exposed_seconds({{tile_bytes, 1, CostModel::kResult}});
    best.offer(e, te);
  }
  // Below the alignment when not even 64 elements per operand fit.
  p.m_tile_elements =
      best.empty() ? std::min(E, P / (p.m_buffers * (inputs + 1) * es)) : best.pick();
  if (p.m_tile_elements == 0)
    too_small(op, P);
  p.m_blocks = ceil_div(E, p.m_tile_elements);
  p.m_operand_bytes = inputs * p.m_tile_elements * es;
  p.m_result_bytes = p.m_tile_elements * es;
  p.m_shape = "elements=" + std::to_string(p.m_tile_elements);
  return p;
}

TilePlan PlanBuilder::rowwise(const OpSpec& op, const CostModel& cost) {
  if (op.rowwise()->over_rows)
    return columns(op, cost);
  TilePlan p = start(TilePlan::Kind::Rows, op, cost);
  const uint64_t R = op.rowwise()->batch * op.rowwise()->rows, C = op.rowwise()->cols,
                 es = p.m_element_bytes, P = cost.target().partition_bytes;
  const ComputeModel& model = cost.target().model;
  const bool affine = op.kind() == OpKind::Layernorm; // gamma and beta, 2 x cols
  const uint32_t passes = rowwise_passes(op.kind());
  uint64_t row_cycles = 0;
  for (uint32_t pass = 0; pass < passes; ++pass)
    row_cycles += row_pass_cycles(model, op.kind(), pass, 1, C, op.dtype);
  const uint64_t extra = affine ? 2 * C * es : 0;
  // Streamed passes read x once per pass, in a tile per pass; a block's result then
  // takes several tiles, and one result buffer (TilePlan::result_buffers()).
  const uint64_t reads = model.vector_passes == VectorPasses::Streamed ? passes : 1;
  const uint64_t results = reads > 1 ? 1 : p.m_buffers;
  Best<uint64_t> best(cost);
  for (uint64_t rt : tile_candidates(R, 1)) {
    if (p.m_buffers * (rt * C * es + extra) + results * rt * C * es > P)
      continue;
    Estimate e;
    e.blocks = static_cast<double>(ceil_div(R, rt));
    e.tiles = e.blocks * static_cast<double>(reads);
    e.compute_cycles = static_cast<double>(R * row_cycles);
    const auto tile_bytes = static_cast<double>(rt * C * es);
    const double count = static_cast<double>(R) / static_cast<double>(rt);
    e.load(cost, linear(tile_bytes), count * static_cast<double>(reads), 0);
    if (affine)
      e.load(cost, linear(static_cast<double>(extra)), e.blocks, 1);
    e.store(cost, linear(tile_bytes), count);
    e.descriptors = e.tiles + e.blocks * (affine ? 2 : 1);
    e.first_load_s = cost.exposed_seconds(
        {{tile_bytes, 1, 0}, {static_cast<double>(extra), affine ? 1.0 : 0.0, 1}});
    e.last_store_s = cost.exposed_seconds({{tile_bytes, 1, CostModel::kResult}});
    best.offer(e, rt);
  }
  if (!best.empty()) {
    p.m_rt = best.pick();
    p.m_blocks = ceil_div(R, p.m_rt);
    p.m_chunks = reads;
    p.m_operand_bytes = p.m_rt * C * es + extra;
    p.m_a_buffer_bytes = p.m_rt * C * es;
    p.m_result_bytes = p.m_rt * C * es;
    p.m_shape = "rows=" + std::to_string(p.m_rt);
    if (reads > 1)
      p.m_shape += " streamed passes=" + std::to_string(reads);
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
  p.m_tile_elements = chunk;
  p.m_blocks = R;
  p.m_chunks = passes * ceil_div(C, chunk);
  p.m_operand_bytes = (affine ? 3 : 1) * chunk * es;
  p.m_result_bytes = chunk * es;
  p.m_shape = "row chunks=" + std::to_string(chunk);
  return p;
}

TilePlan PlanBuilder::columns(const OpSpec& op, const CostModel& cost) {
  TilePlan p = start(TilePlan::Kind::Columns, op, cost);
  const RowwiseOp& rw = *op.rowwise();
  const uint64_t R = rw.rows, C = rw.cols, es = p.m_element_bytes,
                 P = cost.target().partition_bytes;
  const ComputeModel& model = cost.target().model;
  const uint64_t extra = op.kind() == OpKind::Layernorm ? 2 * R * es : 0; // gamma, beta
  const uint32_t passes = rowwise_passes(op.kind());
  const uint64_t reads = model.vector_passes == VectorPasses::Streamed ? passes : 1;
  const uint64_t results = reads > 1 ? 1 : p.m_buffers;
  const uint64_t per_vector =
      std::max<uint64_t>(1, model.vector_lanes / dtype_cycles_per_op(op.dtype));
  Best<uint64_t> best(cost);
  // Whole vectors of columns where they fit, else fewer columns than lanes.
  std::vector<uint64_t> widths = tile_candidates(C, per_vector);
  if (R * std::min(C, per_vector) * es * (p.m_buffers + results) > P)
    widths = tile_candidates(C, 1);
  for (uint64_t ct : widths) {
    const uint64_t block_bytes = R * ct * es;
    if (p.m_buffers * (block_bytes + extra) + results * block_bytes > P)
      continue;
    Estimate e;
    const Cut cc = cut(C, ct);
    double cycles = 0;
    for (int i = 0; i < 2; ++i)
      cycles += static_cast<double>(cc.count[i] * R * rowwise_ops(op.kind()) *
                                    vector_cycles(cc.size[i], model.vector_lanes, op.dtype));
    e.blocks = static_cast<double>(rw.batch * ceil_div(C, ct));
    e.tiles = e.blocks * static_cast<double>(reads);
    e.compute_cycles = static_cast<double>(rw.batch) * cycles;
    const AccessPattern block{static_cast<double>(R), static_cast<double>(ct * es),
                              static_cast<double>(C * es)};
    e.load(cost, block, e.tiles, 0);
    if (extra > 0)
      e.load(cost, linear(static_cast<double>(extra)), e.blocks, 1);
    e.store(cost, block, e.blocks);
    e.descriptors = e.tiles + e.blocks * (extra > 0 ? 2 : 1);
    e.first_load_s = cost.exposed_seconds(
        {{static_cast<double>(block_bytes), 1, 0}, {static_cast<double>(extra), 1, 1}});
    e.last_store_s =
        cost.exposed_seconds({{static_cast<double>(block_bytes), 1, CostModel::kResult}});
    best.offer(e, ct);
  }
  if (best.empty())
    too_small(op, P);
  p.m_rt = best.pick();
  p.m_blocks = rw.batch * ceil_div(C, p.m_rt);
  p.m_chunks = reads;
  p.m_operand_bytes = R * p.m_rt * es + extra;
  p.m_result_bytes = R * p.m_rt * es;
  p.m_shape = "columns=" + std::to_string(p.m_rt) + " of " + std::to_string(R) + " rows";
  if (reads > 1)
    p.m_shape += " streamed passes=" + std::to_string(reads);
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
