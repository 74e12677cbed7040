// The planner's entry point and the tiles of a plan; the planners themselves are in
// gemm_plan.cpp (every op that lowers to a GEMM) and vector_plan.cpp.
#include "models/compute/plan_internal.h"

#include <algorithm>
#include <stdexcept>

namespace npu {

TilePlan plan_tiles(const OpSpec& op, const PlanTarget& target, uint32_t units, uint32_t share) {
  // Input checks reject such ops; this keeps a caller that skipped them (a C++ program,
  // a test) from planning with products that wrapped around 64 bits.
  if (const std::string problem = op_size_problem(op); !problem.empty())
    throw std::overflow_error(op_kind_name(op.kind()) + ": " + problem);
  units = std::max<uint32_t>(units, 1);
  share = std::min(share, units - 1);
  const CostModel cost(target, units);
  TilePlan p;
  switch (op.kind()) {
  case OpKind::Cycles:
    return PlanBuilder::cycles(op); // every share runs the cycles
  case OpKind::Matmul:
  case OpKind::FullyConnected:
  case OpKind::Conv2d:
    p = PlanBuilder::gemm(op, cost);
    break;
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool:
    p = PlanBuilder::window(op, cost);
    break;
  case OpKind::Elementwise:
    p = PlanBuilder::elementwise(op, cost);
    break;
  case OpKind::Softmax:
  case OpKind::Layernorm:
    p = PlanBuilder::rowwise(op, cost);
    break;
  }
  PlanBuilder::assign_share(&p, units, share);
  return p;
}

TilePlan plan_tiles(const OpSpec& op, const ComputeModel& model, uint64_t partition_bytes,
                    uint32_t units, uint32_t share) {
  PlanTarget target;
  target.model = model;
  target.partition_bytes = partition_bytes;
  return plan_tiles(op, target, units, share);
}

OperandPlaces operand_places(const std::vector<bool>& args_in_sram) {
  OperandPlaces places;
  const size_t n = args_in_sram.size();
  if (n == 0)
    return places;
  const size_t inputs = n > 1 ? n - 1 : 1;
  for (uint32_t j = 0; j < 4; ++j) // no op has more than 3 input operands
    if (args_in_sram[j % inputs])
      places.sram_inputs |= 1u << j;
  places.sram_output = args_in_sram[n - 1];
  return places;
}

TilePlan PlanBuilder::start(TilePlan::Kind kind, const OpSpec& op, const CostModel& cost) {
  TilePlan p;
  p.m_kind = kind;
  p.m_op = op;
  p.m_model = cost.target().model;
  p.m_element_bytes = dtype_bytes(op.dtype);
  p.m_buffers = std::max<uint32_t>(cost.target().buffers, 1);
  p.m_places = cost.target().places;
  return p;
}

void PlanBuilder::assign_share(TilePlan* p, uint32_t units, uint32_t share) {
  // Share s owns blocks [ceil(B s / u), ceil(B (s + 1) / u)): share 0 is never smaller.
  p->m_block_begin = ceil_div(p->m_blocks * share, units);
  p->m_block_end = ceil_div(p->m_blocks * (share + 1), units);
}

Tile TilePlan::tile(uint64_t index) const {
  const uint64_t block = m_block_begin + index / m_chunks;
  const uint64_t chunk = index % m_chunks;
  Tile t;
  switch (m_kind) {
  case Kind::Cycles:
    t.cycles = m_op.as<CyclesOp>().cycles;
    return t;
  case Kind::Gemm:
    return gemm_tile(block, chunk); // places its blocks in the operand slots itself, and
                                    // leaves out the ones read in place
  case Kind::Window:
    t = window_tile(block);
    break;
  case Kind::WindowChunks:
    t = window_chunk_tile(block, chunk);
    break;
  case Kind::Elementwise:
    t = elementwise_tile(block);
    break;
  case Kind::Rows:
    t = rows_tile(block, chunk);
    break;
  case Kind::RowChunks:
    t = row_chunk_tile(block, chunk);
    break;
  case Kind::Columns:
    t = columns_tile(block, chunk);
    break;
  }
  // Operand buffer (index mod buffers) of the partition; inputs in SRAM are read in place.
  t.loads.erase(
      std::remove_if(t.loads.begin(), t.loads.end(),
                     [this](const TileTransfer& l) { return m_places.input_in_sram(l.operand); }),
      t.loads.end());
  for (TileTransfer& l : t.loads)
    l.sram_offset += index % m_buffers * m_operand_bytes;
  return t;
}

Tile TilePlan::window_tile(uint64_t block) const {
  const Window g = window_of(m_op);
  const uint64_t es = m_element_bytes, rs = g.r * g.s;
  const uint64_t channel_blocks = ceil_div(g.channels, m_tile_channels),
                 col_blocks = ceil_div(g.wo, m_wt), row_blocks = ceil_div(g.ho, m_rt);
  const uint64_t c0 = block % channel_blocks * m_tile_channels;
  const uint64_t ow0 = block / channel_blocks % col_blocks * m_wt;
  const uint64_t oh0 = block / channel_blocks / col_blocks % row_blocks * m_rt;
  const uint64_t image = block / channel_blocks / col_blocks / row_blocks;
  const uint64_t cc = std::min(m_tile_channels, g.channels - c0), wt = std::min(m_wt, g.wo - ow0),
                 rt = std::min(m_rt, g.ho - oh0);
  Tile t;
  t.engine = Engine::Vector;
  patch_loads(g, es, image, oh0, rt, ow0, wt, c0, cc, 0, &t.loads);
  if (m_op.kind() == OpKind::DepthwiseConv2d) // weights: c x r x s
    t.loads.push_back(
        make_transfer(1, c0 * rs * es, cc * rs * es, 1, cc * rs * es, m_a_buffer_bytes));
  t.stores.push_back(make_transfer(0, (((image * g.ho + oh0) * g.wo + ow0) * g.channels + c0) * es,
                                   cc * es, rt * wt, g.channels * es, 0));
  // One multiply-accumulate (or compare) per window element per output.
  t.cycles = vector_cycles(rt * wt * cc, m_model.vector_lanes, m_op.dtype) * rs;
  t.vector_ops = rt * wt * cc * rs;
  return t;
}

// Chunk `chunk` (window rows, then columns) of one output column of a channel block: its
// input rows and columns (inside the input), the weights of depthwise_conv2d, and the
// result once the last chunk has accumulated.
Tile TilePlan::window_chunk_tile(uint64_t block, uint64_t chunk) const {
  const Window g = window_of(m_op);
  const uint64_t es = m_element_bytes, channel_blocks = ceil_div(g.channels, m_tile_channels),
                 window_col_chunks = ceil_div(g.s, m_sc);
  const uint64_t c0 = block % channel_blocks * m_tile_channels, ow = block / channel_blocks % g.wo,
                 oh = block / channel_blocks / g.wo % g.ho;
  const uint64_t image = block / channel_blocks / g.wo / g.ho;
  const uint64_t r0 = chunk / window_col_chunks * m_rc, s0 = chunk % window_col_chunks * m_sc;
  const uint64_t cc = std::min(m_tile_channels, g.channels - c0), rc = std::min(m_rc, g.r - r0),
                 sc = std::min(m_sc, g.s - s0);
  auto clip = [](int64_t lo, uint64_t n, uint64_t extent, uint64_t* a, uint64_t* b) {
    const int64_t e = static_cast<int64_t>(extent);
    *a = static_cast<uint64_t>(std::clamp<int64_t>(lo, 0, e));
    *b = static_cast<uint64_t>(std::clamp<int64_t>(lo + static_cast<int64_t>(n), 0, e));
  };
  uint64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
  clip(static_cast<int64_t>(oh * g.stride + r0) - static_cast<int64_t>(g.pad), rc, g.h, &h0, &h1);
  clip(static_cast<int64_t>(ow * g.stride + s0) - static_cast<int64_t>(g.pad), sc, g.w, &w0, &w1);
  Tile t;
  t.engine = Engine::Vector;
  uint64_t sram = 0;
  for (uint64_t h = h0; w1 > w0 && h < h1; ++h) {
    t.loads.push_back(make_transfer(0, (((image * g.h + h) * g.w + w0) * g.channels + c0) * es,
                                    cc * es, w1 - w0, g.channels * es, sram));
    sram += (w1 - w0) * cc * es;
  }
  if (m_op.kind() == OpKind::DepthwiseConv2d) // weights: c x r x s
    t.loads.push_back(make_transfer(1, (c0 * g.r * g.s + r0 * g.s + s0) * es, rc * sc * es, cc,
                                    g.r * g.s * es, m_a_buffer_bytes));
  if (chunk + 1 == m_chunks)
    t.stores.push_back(make_transfer(0, (((image * g.ho + oh) * g.wo + ow) * g.channels + c0) * es,
                                     cc * es, 1, cc * es, 0));
  t.cycles = vector_cycles(cc, m_model.vector_lanes, m_op.dtype) * rc * sc;
  t.vector_ops = cc * rc * sc;
  return t;
}

Tile TilePlan::elementwise_tile(uint64_t block) const {
  const auto& e = m_op.as<ElementwiseOp>();
  const uint64_t e0 = block * m_tile_elements, te = std::min(m_tile_elements, e.elements - e0);
  Tile t;
  t.engine = Engine::Vector;
  for (uint32_t j = 0; j < std::max<uint32_t>(e.inputs, 1); ++j)
    t.loads.push_back(make_transfer(j, e0 * m_element_bytes, te * m_element_bytes, 1,
                                    te * m_element_bytes, j * m_tile_elements * m_element_bytes));
  t.stores.push_back(
      make_transfer(0, e0 * m_element_bytes, te * m_element_bytes, 1, te * m_element_bytes, 0));
  t.cycles = vector_cycles(te, m_model.vector_lanes, m_op.dtype);
  t.vector_ops = te;
  return t;
}

Tile TilePlan::rows_tile(uint64_t block, uint64_t chunk) const {
  const RowwiseOp& rw = *m_op.rowwise();
  const uint64_t C = rw.cols, r0 = block * m_rt, rt = std::min(m_rt, rw.batch * rw.rows - r0);
  const uint32_t passes = rowwise_passes(m_op.kind());
  // Resident rows: one tile runs every pass. Streamed: one tile per pass, each loading x.
  const uint32_t first = m_chunks > 1 ? static_cast<uint32_t>(chunk) : 0;
  const uint32_t end = m_chunks > 1 ? first + 1 : passes;
  Tile t;
  t.engine = Engine::Vector;
  t.loads.push_back(make_transfer(0, r0 * C * m_element_bytes, rt * C * m_element_bytes, 1,
                                  rt * C * m_element_bytes, 0));
  if (end == passes) {
    if (m_op.kind() == OpKind::Layernorm) // gamma then beta
      t.loads.push_back(make_transfer(1, 0, 2 * C * m_element_bytes, 1, 2 * C * m_element_bytes,
                                      m_rt * C * m_element_bytes));
    t.stores.push_back(make_transfer(0, r0 * C * m_element_bytes, rt * C * m_element_bytes, 1,
                                     rt * C * m_element_bytes, 0));
  }
  for (uint32_t p = first; p < end; ++p) {
    t.cycles += row_pass_cycles(m_model, m_op.kind(), p, rt, C, m_op.dtype);
    t.vector_ops += rowwise_pass_ops(m_op.kind(), p) * rt * C;
  }
  return t;
}

Tile TilePlan::row_chunk_tile(uint64_t block, uint64_t chunk) const {
  const uint64_t C = m_op.rowwise()->cols, per_pass = ceil_div(C, m_tile_elements);
  const uint64_t pass = chunk / per_pass, j = chunk % per_pass;
  const uint64_t c0 = j * m_tile_elements, n = std::min(m_tile_elements, C - c0);
  const bool last_pass = pass + 1 == rowwise_passes(m_op.kind());
  Tile t;
  t.engine = Engine::Vector;
  t.loads.push_back(make_transfer(0, (block * C + c0) * m_element_bytes, n * m_element_bytes, 1,
                                  n * m_element_bytes, 0));
  if (m_op.kind() == OpKind::Layernorm && last_pass) {
    t.loads.push_back(make_transfer(1, c0 * m_element_bytes, n * m_element_bytes, 1,
                                    n * m_element_bytes, m_tile_elements * m_element_bytes));
    t.loads.push_back(make_transfer(1, (C + c0) * m_element_bytes, n * m_element_bytes, 1,
                                    n * m_element_bytes, 2 * m_tile_elements * m_element_bytes));
  }
  if (last_pass)
    t.stores.push_back(make_transfer(0, (block * C + c0) * m_element_bytes, n * m_element_bytes, 1,
                                     n * m_element_bytes, 0));
  const auto p = static_cast<uint32_t>(pass);
  // The reduction tree ends the pass, after its last chunk.
  t.cycles = row_piece_cycles(m_model, m_op.kind(), p, n, C, m_op.dtype, j + 1 == per_pass);
  t.vector_ops = rowwise_pass_ops(m_op.kind(), p) * n;
  return t;
}

Tile TilePlan::columns_tile(uint64_t block, uint64_t chunk) const {
  const RowwiseOp& rw = *m_op.rowwise();
  const uint64_t R = rw.rows, C = rw.cols, per_matrix = ceil_div(C, m_rt);
  const uint64_t matrix = block / per_matrix, c0 = block % per_matrix * m_rt;
  const uint64_t n = std::min(m_rt, C - c0), at = (matrix * R * C + c0) * m_element_bytes;
  const uint32_t passes = rowwise_passes(m_op.kind());
  const uint32_t first = m_chunks > 1 ? static_cast<uint32_t>(chunk) : 0;
  const uint32_t end = m_chunks > 1 ? first + 1 : passes;
  Tile t;
  t.engine = Engine::Vector;
  // All R rows of n columns: each lane keeps one column; reductions run down the rows.
  t.loads.push_back(make_transfer(0, at, n * m_element_bytes, R, C * m_element_bytes, 0));
  if (end == passes) {
    if (m_op.kind() == OpKind::Layernorm) // gamma then beta, one per row
      t.loads.push_back(make_transfer(1, 0, 2 * R * m_element_bytes, 1, 2 * R * m_element_bytes,
                                      R * m_rt * m_element_bytes));
    t.stores.push_back(make_transfer(0, at, n * m_element_bytes, R, C * m_element_bytes, 0));
  }
  for (uint32_t p = first; p < end; ++p) {
    t.cycles +=
        rowwise_pass_ops(m_op.kind(), p) * R * vector_cycles(n, m_model.vector_lanes, m_op.dtype);
    t.vector_ops += rowwise_pass_ops(m_op.kind(), p) * R * n;
  }
  return t;
}

namespace {
// Bytes of each input operand and of the result, each counted once.
void operand_sizes(const OpSpec& op, std::vector<uint64_t>* inputs, uint64_t* result) {
  const uint64_t es = dtype_bytes(op.dtype);
  inputs->clear();
  *result = 0;
  switch (op.kind()) {
  case OpKind::Cycles:
    return;
  case OpKind::Matmul:
  case OpKind::FullyConnected: {
    const GemmShape g = gemm_shape(op);
    *inputs = {g.batches * g.m * g.k * es, g.batches * g.k * g.n * es};
    *result = g.batches * g.m * g.n * es;
    return;
  }
  case OpKind::Conv2d: {
    const auto& c = op.as<Conv2dOp>();
    *inputs = {c.batch * c.height * c.width * c.channels * es,
               c.channels * c.r * c.s * c.filters * es};
    *result = c.batch * out_height(c) * out_width(c) * c.filters * es;
    return;
  }
  case OpKind::DepthwiseConv2d:
  case OpKind::Pool: {
    const WindowOp& w = *op.window();
    inputs->push_back(w.batch * w.height * w.width * w.channels * es);
    if (op.kind() == OpKind::DepthwiseConv2d)
      inputs->push_back(w.channels * w.r * w.s * es);
    *result = w.batch * out_height(w) * out_width(w) * w.channels * es;
    return;
  }
  case OpKind::Elementwise: {
    const auto& e = op.as<ElementwiseOp>();
    inputs->assign(std::max<uint32_t>(e.inputs, 1), e.elements * es);
    *result = e.elements * es;
    return;
  }
  case OpKind::Softmax:
  case OpKind::Layernorm: {
    const RowwiseOp& rw = *op.rowwise();
    inputs->push_back(rw.batch * rw.rows * rw.cols * es);
    if (op.kind() == OpKind::Layernorm)
      inputs->push_back(2 * rw.length() * es);
    *result = rw.batch * rw.rows * rw.cols * es;
    return;
  }
  }
}
} // namespace

TilingSummary TilePlan::summary() const {
  TilingSummary s;
  s.shape = m_shape;
  s.tiles = size();
  operand_sizes(m_op, &s.operand_bytes, &s.result_bytes);
  s.load_bytes.assign(s.operand_bytes.size(), 0);
  for (uint64_t i = 0; i < size(); ++i) {
    const Tile t = tile(i);
    s.folds += t.folds;
    if (t.engine == Engine::Array)
      s.array_cycles += t.cycles;
    else if (t.engine == Engine::Vector)
      s.vector_cycles += t.cycles;
    s.macs += t.macs;
    s.vector_ops += t.vector_ops;
    for (const auto& l : t.loads)
      if (l.operand < s.load_bytes.size())
        s.load_bytes[l.operand] += l.bytes();
    for (const auto& st : t.stores)
      s.store_bytes += st.bytes();
  }
  return s;
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
