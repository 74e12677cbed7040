// The planner's shared pieces: candidate sizes, cuts, transfers, window patches, and
// the cost model that weighs candidates against the configured hardware.
#include "models/compute/plan_internal.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace npu {

std::vector<uint64_t> tile_candidates(uint64_t dim, uint64_t align) {
  std::set<uint64_t> c;
  if (dim == 0)
    return {};
  align = std::max<uint64_t>(align, 1);
  const auto add = [&](uint64_t v) { c.insert(std::min(dim, std::max<uint64_t>(v, 1))); };
  // Balanced cuts: q tiles of ceil(dim / q), rounded up to the alignment.
  for (uint64_t q = 1; q <= 32 && q <= dim; ++q)
    add(ceil_div(ceil_div(dim, q), align) * align);
  // The first multiples of the alignment, then its doubles, then halvings of dim.
  for (uint64_t j = 1; j <= 8 && align * j < dim; ++j)
    add(align * j);
  for (uint64_t v = align; v < dim; v *= 2)
    add(v);
  // Below the alignment only when the whole dimension is (a partly used fold).
  for (uint64_t v = dim; v >= 1; v = ceil_div(v, 2)) {
    if (v >= align)
      add(v / align * align);
    else if (dim < align)
      add(v);
    if (v == 1)
      break;
  }
  return {c.rbegin(), c.rend()};
}

Cut cut(uint64_t dim, uint64_t t) {
  Cut c;
  c.count[0] = dim / t;
  c.size[0] = t;
  c.count[1] = dim % t ? 1 : 0;
  c.size[1] = dim % t;
  return c;
}

TileTransfer make_transfer(uint32_t operand, uint64_t offset, uint64_t row_bytes, uint64_t rows,
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

void too_small(const OpSpec& op, uint64_t partition_bytes) {
  throw std::runtime_error("an SRAM partition of " + std::to_string(partition_bytes) +
                           " bytes cannot hold one tile of " + op_kind_name(op.kind()));
}

Window window_of(const OpSpec& op) {
  const WindowOp& w = *op.window();
  return {w.batch, w.channels, w.height, w.width,       w.r,
          w.s,     w.stride,   w.pad,    out_height(w), out_width(w)};
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
} // namespace

uint64_t patch_loads(const Window& g, uint64_t es, uint64_t image, uint64_t oh0, uint64_t rt,
                     uint64_t ow0, uint64_t wt, uint64_t c0, uint64_t cc, uint64_t sram,
                     std::vector<TileTransfer>* out) {
  uint64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
  input_band(oh0, rt, g.stride, g.pad, g.r, g.h, &h0, &h1);
  input_band(ow0, wt, g.stride, g.pad, g.s, g.w, &w0, &w1);
  if (h1 <= h0 || w1 <= w0)
    return 0; // the window only covers padding
  const uint64_t C = g.channels;
  if (cc == C) {
    out->push_back(make_transfer(0, ((image * g.h + h0) * g.w + w0) * C * es, (w1 - w0) * C * es,
                                 h1 - h0, g.w * C * es, sram));
    return (h1 - h0) * (w1 - w0) * C * es;
  }
  const uint64_t start = sram;
  for (uint64_t h = h0; h < h1; ++h) {
    out->push_back(make_transfer(0, (((image * g.h + h) * g.w + w0) * C + c0) * es, cc * es,
                                 w1 - w0, C * es, sram));
    sram += (w1 - w0) * cc * es;
  }
  return sram - start;
}

CostModel::CostModel(const PlanTarget& target, uint32_t units)
    : m_target(target), m_units(std::max<uint32_t>(units, 1)) {}

double CostModel::transfer_seconds(const AccessPattern& a, double count) const {
  if (a.rows <= 0 || a.row_bytes <= 0 || count <= 0)
    return 0;
  const PlanTarget& t = m_target;
  const auto access = static_cast<double>(std::max<uint64_t>(t.ddr_access_bytes, 1));
  const auto page = static_cast<double>(std::max<uint64_t>(t.ddr_row_bytes, 1));
  const double ways = std::max<uint32_t>(t.ddr_interleave, 1);
  double bytes = a.bytes(), activations = bytes / page;
  if (a.rows > 1 && a.stride != a.row_bytes) {
    // Each row is whole DDR accesses; it opens a row in each channel or bank group it
    // touches, unless rows are so close that the next one finds those rows open.
    bytes = a.rows * std::ceil(a.row_bytes / access) * access;
    const double pieces = std::min(ways, std::ceil(a.row_bytes / access));
    const double per_row =
        std::max(a.row_bytes / page, pieces * std::min(1.0, a.stride / (page * ways)));
    activations = a.rows * per_row;
  }
  const double by_bandwidth = bytes / std::max(t.ddr_bytes_per_s, 1.0);
  const double by_activations = activations / std::max(t.ddr_activates_per_s, 1.0);
  // Little's law on the DMA: each burst (a row, or a burst-sized part of one) holds one
  // of the channels' outstanding slots for a round trip.
  const double burst = static_cast<double>(std::max<uint64_t>(t.dma_burst_bytes, 1));
  const double bursts = a.rows > 1 && a.stride != a.row_bytes
                            ? a.rows * std::ceil(a.row_bytes / burst)
                            : std::ceil(a.bytes() / burst);
  // As many bursts per channel as its slots and its read buffer allow.
  const double burst_len = std::min(burst, a.row_bytes);
  const double per_channel =
      std::clamp(std::floor(static_cast<double>(t.dma_buffer_bytes) / burst_len), 1.0,
                 static_cast<double>(std::max<uint32_t>(t.dma_outstanding, 1)));
  const double in_flight = static_cast<double>(std::max<uint32_t>(t.dma_channels, 1)) * per_channel;
  const double by_bursts = bursts * t.latency_s / in_flight;
  return count * std::max({by_bandwidth, by_activations, by_bursts});
}

double CostModel::exposed_seconds(double bytes, double descriptors) const {
  const PlanTarget& t = m_target;
  const double bandwidth =
      std::min(t.ddr_bytes_per_s / static_cast<double>(m_units), t.port_bytes_per_s);
  return t.latency_s + descriptors * t.descriptor_s / std::max<uint32_t>(t.dma_channels, 1) +
         bytes / std::max(bandwidth, 1.0);
}

double CostModel::time(const Estimate& e) const {
  const PlanTarget& t = m_target;
  const double u = m_units;
  // The slowest share owns ceil(blocks / units) blocks; the units share the memory
  // path, so memory time is the whole op's at the rate the slowest share keeps up.
  const double share = e.blocks > 0 ? std::ceil(e.blocks / u) / e.blocks : 1.0;
  const double compute_s = e.compute_cycles * share / std::max(t.unit_hz, 1.0);
  const double ddr_s = e.ddr_s * share * u;
  const double port_s = e.traffic() * share * u / std::max(t.port_bytes_per_s, 1.0);
  const double descriptor_s =
      e.descriptors * share * u * t.descriptor_s / std::max<uint32_t>(t.dma_channels, 1);
  const double memory_s = std::max({ddr_s, port_s, descriptor_s});
  // Buffered, loads and stores overlap compute but for the first load and last store;
  // single-buffered, every transfer waits for compute and the other way round.
  if (t.buffers >= 2)
    return std::max(compute_s, memory_s) + e.first_load_s + e.last_store_s;
  return compute_s + memory_s + t.latency_s;
}

} // namespace npu
