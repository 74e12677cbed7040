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

namespace {
// Byte offset of channel c0 of input pixel (h, w) of image `image` (NHWC).
uint64_t pixel_at(const Window& g, uint64_t es, uint64_t image, uint64_t h, uint64_t w,
                  uint64_t c0) {
  return (((image * g.h + h) * g.w + w) * g.channels + c0) * es;
}

// Loads of input row h for output columns [ow0, ow0 + wt) when windows narrower than the
// stride leave columns between them that no window reads: each window's s columns (clipped
// to the input at the edges), those inside the input as one strided transfer (per tap
// column when not all channels come). Returns the bytes appended.
uint64_t gapped_row_loads(const Window& g, uint64_t es, uint64_t image, uint64_t h, uint64_t ow0,
                          uint64_t wt, uint64_t c0, uint64_t cc, uint64_t sram,
                          std::vector<TileTransfer>* out) {
  const uint64_t C = g.channels, start = sram;
  // Output columns whose window lies inside the input: [in0, in1).
  const uint64_t in0 = std::max(ow0, ceil_div(g.pad, g.stride));
  const uint64_t in1 =
      g.w + g.pad < g.s ? in0 : std::min(ow0 + wt, (g.w + g.pad - g.s) / g.stride + 1);
  const auto columns = [&](uint64_t a, uint64_t n, uint64_t count, uint64_t step) {
    if (cc == C) {
      out->push_back(make_transfer(0, pixel_at(g, es, image, h, a, 0), n * C * es, count,
                                   step * C * es, sram));
      sram += n * C * es * count;
      return;
    }
    for (uint64_t j = 0; j < n; ++j) {
      out->push_back(make_transfer(0, pixel_at(g, es, image, h, a + j, c0), cc * es, count,
                                   step * C * es, sram));
      sram += cc * es * count;
    }
  };
  for (uint64_t ow = ow0; ow < ow0 + wt; ++ow) {
    if (ow >= in0 && ow < in1) {
      columns(ow * g.stride - g.pad, g.s, in1 - in0, g.stride);
      ow = in1 - 1;
      continue;
    }
    const int64_t a = static_cast<int64_t>(ow * g.stride) - static_cast<int64_t>(g.pad);
    const auto lo = static_cast<uint64_t>(std::clamp<int64_t>(a, 0, static_cast<int64_t>(g.w)));
    const auto hi = static_cast<uint64_t>(
        std::clamp<int64_t>(a + static_cast<int64_t>(g.s), 0, static_cast<int64_t>(g.w)));
    if (hi > lo)
      columns(lo, hi - lo, 1, 1);
  }
  return sram - start;
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
  const uint64_t C = g.channels, start = sram;
  if (g.r >= g.stride && g.s >= g.stride) { // the windows leave no input row or column out
    if (cc == C) {
      out->push_back(make_transfer(0, pixel_at(g, es, image, h0, w0, 0), (w1 - w0) * C * es,
                                   h1 - h0, g.w * C * es, sram));
      return (h1 - h0) * (w1 - w0) * C * es;
    }
    // Whole input rows: every pixel of the band is C elements after the one before.
    const bool whole_rows = w1 - w0 == g.w;
    for (uint64_t h = h0; h < h1; h = whole_rows ? h1 : h + 1) {
      const uint64_t pixels = whole_rows ? (h1 - h0) * g.w : w1 - w0;
      out->push_back(
          make_transfer(0, pixel_at(g, es, image, h, w0, c0), cc * es, pixels, C * es, sram));
      sram += pixels * cc * es;
    }
    return sram - start;
  }
  // Windows smaller than the stride: load only the input rows and columns they read.
  for (uint64_t h = h0; h < h1; ++h) {
    if ((h + g.pad) % g.stride >= g.r)
      continue;
    if (g.s >= g.stride) {
      const uint64_t n = w1 - w0;
      out->push_back(
          cc == C
              ? make_transfer(0, pixel_at(g, es, image, h, w0, 0), n * C * es, 1, n * C * es, sram)
              : make_transfer(0, pixel_at(g, es, image, h, w0, c0), cc * es, n, C * es, sram));
      sram += n * cc * es;
      continue;
    }
    sram += gapped_row_loads(g, es, image, h, ow0, wt, c0, cc, sram, out);
  }
  return sram - start;
}

CostModel::CostModel(const PlanTarget& target, uint32_t units)
    : m_target(target), m_units(std::max<uint32_t>(units, 1)) {}

double CostModel::transfer_seconds(const AccessPattern& a, double count, bool sram) const {
  if (a.rows <= 0 || a.row_bytes <= 0 || count <= 0)
    return 0;
  const PlanTarget& t = m_target;
  const bool strided = a.rows > 1 && a.stride != a.row_bytes;
  double by_memory = 0;
  if (sram) {
    by_memory = t.sram_bytes_per_s > 0 ? a.bytes() / t.sram_bytes_per_s : 0.0;
  } else {
    const auto access = static_cast<double>(std::max<uint64_t>(t.ddr_access_bytes, 1));
    const auto page = static_cast<double>(std::max<uint64_t>(t.ddr_row_bytes, 1));
    const double ways = std::max<uint32_t>(t.ddr_interleave, 1);
    double bytes = a.bytes(), activations = bytes / page;
    if (strided) {
      // Each row is whole DDR accesses; it opens a row in each channel or bank group it
      // touches, unless rows are so close that the next one finds those rows open.
      bytes = a.rows * std::ceil(a.row_bytes / access) * access;
      const double pieces = std::min(ways, std::ceil(a.row_bytes / access));
      const double per_row =
          std::max(a.row_bytes / page, pieces * std::min(1.0, a.stride / (page * ways)));
      activations = a.rows * per_row;
    }
    // Concurrent instances (one per unit at most) start at other addresses and reach
    // other channels and bank groups; together they reach at most all of them.
    const double parallel =
        std::min(1.0, reach(a) * std::min(static_cast<double>(m_units), std::ceil(count)));
    by_memory = std::max(bytes / std::max(t.ddr_bytes_per_s * parallel, 1.0),
                         activations / std::max(t.ddr_activates_per_s * parallel, 1.0));
  }
  return count * std::max(by_memory, burst_seconds(a, 1, sram));
}

double CostModel::burst_seconds(const AccessPattern& a, double count, bool sram) const {
  if (a.rows <= 0 || a.row_bytes <= 0 || count <= 0)
    return 0;
  const PlanTarget& t = m_target;
  const bool strided = a.rows > 1 && a.stride != a.row_bytes;
  // Little's law on the DMA: each burst (a row, or a burst-sized part of one) holds one
  // of the channels' outstanding slots for a round trip.
  const double burst = static_cast<double>(std::max<uint64_t>(t.dma_burst_bytes, 1));
  const double bursts =
      strided ? a.rows * std::ceil(a.row_bytes / burst) : std::ceil(a.bytes() / burst);
  const double in_flight = static_cast<double>(std::max<uint32_t>(t.dma_channels, 1)) *
                           bursts_per_channel(std::min(burst, a.row_bytes));
  return count * bursts * (sram ? t.sram_latency_s : t.latency_s) / in_flight;
}

double CostModel::reach(const AccessPattern& a) const {
  const PlanTarget& t = m_target;
  const uint32_t channel_bits = t.ddr_hashed ? 0 : t.ddr_channel_bits;
  const uint64_t ways = uint64_t{1} << (channel_bits + t.ddr_group_bits);
  const bool strided = a.rows > 1 && a.stride != a.row_bytes;
  const double row_bytes = strided ? a.row_bytes : a.bytes(), stride = strided ? a.stride : 0;
  if (ways <= 1)
    return 1.0;
  const auto found = m_reach.find({row_bytes, stride});
  if (found != m_reach.end())
    return found->second;
  const uint64_t access = std::max<uint64_t>(t.ddr_access_bytes, 1);
  const auto way_of = [&](uint64_t addr) {
    const uint64_t ch = (addr >> t.ddr_channel_shift) & ((uint64_t{1} << channel_bits) - 1);
    const uint64_t group = (addr >> t.ddr_group_shift) & ((uint64_t{1} << t.ddr_group_bits) - 1);
    return ch | group << channel_bits;
  };
  // The first rows (4096 at most) from address 0, until every way is reached.
  std::vector<bool> seen(ways, false);
  uint64_t reached = 0;
  const auto bytes = static_cast<uint64_t>(row_bytes);
  const uint64_t rows = strided ? std::min<uint64_t>(static_cast<uint64_t>(a.rows), 4096) : 1;
  for (uint64_t r = 0; r < rows && reached < ways; ++r) {
    const uint64_t first = r * static_cast<uint64_t>(stride);
    for (uint64_t at = first / access * access; at < first + bytes && reached < ways; at += access)
      if (const uint64_t w = way_of(at); !seen[w]) {
        seen[w] = true;
        ++reached;
      }
  }
  const double share = static_cast<double>(reached) / static_cast<double>(ways);
  m_reach.emplace(std::make_pair(row_bytes, stride), share);
  return share;
}

double CostModel::unit_dma_bytes_per_s() const {
  const PlanTarget& t = m_target;
  const double burst = static_cast<double>(std::max<uint64_t>(t.dma_burst_bytes, 1));
  const double streams = std::min(t.dma_streams, std::max<uint32_t>(t.dma_channels, 1));
  return streams * bursts_per_channel(burst) * burst / std::max(t.latency_s, 1e-12);
}

double CostModel::bursts_per_channel(double burst_len) const {
  // As many as the channel's slots and its read buffer allow (bursts_in_flight of the DMA).
  const PlanTarget& t = m_target;
  return std::clamp(std::floor(static_cast<double>(t.dma_buffer_bytes) / burst_len), 1.0,
                    static_cast<double>(std::max<uint32_t>(t.dma_outstanding, 1)));
}

double CostModel::exposed_seconds(std::initializer_list<Exposed> transfers) const {
  const PlanTarget& t = m_target;
  const double ddr = std::min({t.ddr_bytes_per_s / static_cast<double>(m_units),
                               unit_dma_bytes_per_s(), t.port_bytes_per_s});
  const double sram = t.sram_bytes_per_s > 0 ? std::min(t.sram_bytes_per_s, t.port_bytes_per_s)
                                             : t.port_bytes_per_s;
  double latency = 0, seconds = 0;
  for (const Exposed& x : transfers) {
    if (x.operand != kResult && t.places.input_in_sram(x.operand))
      continue; // read in place
    const bool in_sram = x.operand == kResult && t.places.sram_output;
    latency = std::max(latency, in_sram ? t.sram_latency_s : t.latency_s);
    seconds += x.descriptors * t.descriptor_s / std::max<uint32_t>(t.dma_channels, 1) +
               x.bytes / std::max(in_sram ? sram : ddr, 1.0);
  }
  return latency + seconds;
}

Timing CostModel::timing(const Estimate& e) const {
  const PlanTarget& t = m_target;
  const double u = m_units;
  // The slowest share owns ceil(blocks / units) blocks; the busy units (no more than there
  // are blocks) share the memory path, so memory time is the whole op's at the rate the
  // slowest share keeps up.
  const double share = e.blocks > 0 ? std::ceil(e.blocks / u) / e.blocks : 1.0;
  Timing out;
  out.compute = e.compute_cycles * std::max(share, e.peak_share) / std::max(t.unit_hz, 1.0);
  const double channels = std::max<uint32_t>(t.dma_channels, 1);
  // Every load lands in SRAM and every store leaves it; operands in SRAM are read there too.
  const double sram_side =
      t.sram_bytes_per_s > 0 ? (e.traffic() + e.sram_bytes) / t.sram_bytes_per_s : 0.0;
  const double port =
      std::max(e.ddr_bytes, e.traffic() + e.sram_bytes) / std::max(t.port_bytes_per_s, 1.0);
  // Each transfer holds a DMA channel for its setup and a round trip, and then its bursts
  // their round trips, as many at once as the channel keeps in flight. A unit
  // cuts a tile's loads, and a block's store, into as many transfers as it keeps in
  // flight (ComputeUnit::move), at least 4, or its part of the channels.
  const double latency = e.ddr_bytes > 0 ? t.latency_s : t.sram_latency_s;
  const double streams = std::max<uint32_t>(t.dma_streams, 1);
  const double transfers =
      std::max(e.descriptors,
               ((e.load_bytes > 0 ? e.tiles : 0) + (e.store_bytes > 0 ? e.blocks : 0)) * streams);
  const double descriptors = transfers * (t.descriptor_s + latency) / channels + e.dma_s;
  const double busy = std::max(1.0, std::min(u, e.blocks));
  const double shared = std::max({e.ddr_s, e.sram_s, sram_side, port, descriptors}) * share * busy;
  // One loader per unit brings its tiles one after another: a round trip and the
  // descriptors' setup per tile (a unit issues up to 4 at once) and its bytes at the
  // busy units' part of the bandwidth, at most what its DMA streams keep in flight. Tiny
  // tiles pay the round trip on every tile.
  const double unit_bandwidth = std::min(
      {e.ddr_bytes > 0 || t.sram_bytes_per_s <= 0 ? t.ddr_bytes_per_s / busy : t.sram_bytes_per_s,
       unit_dma_bytes_per_s(), t.port_bytes_per_s});
  const double loader =
      (e.tiles * latency + e.descriptors * t.descriptor_s / std::min(4.0, channels) +
       e.load_bytes / std::max(unit_bandwidth, 1.0)) *
      share;
  out.memory = std::max(shared, loader);
  if (t.buffers < 2) { // every transfer waits for compute and the other way round
    out.total = out.compute + out.memory + t.latency_s;
    return out;
  }
  // Buffered, a unit runs three stages, each one tile after another: its loader, its
  // array or vector unit, and its storer. The share's tiles go through them as a
  // pipeline: the first load, a compute and the last store, then one tile per slowest
  // stage (a transfer's round trip included, and the unit's loads and stores sharing its
  // part of the bandwidth). The whole op's traffic bounds it too, then the last compute.
  const double n = std::max(1.0, std::ceil(e.tiles * share));
  const double stores = std::max(1.0, std::ceil(e.blocks * share));
  const double compute = out.compute / n;
  const double load = loader / n;
  const double store = stores * (latency + t.descriptor_s) / n;
  const double moved = (e.load_bytes + e.store_bytes) * share / n / std::max(unit_bandwidth, 1.0);
  const double pipeline =
      e.first_load_s + compute + e.last_store_s + (n - 1) * std::max({compute, load, store, moved});
  out.total = std::max(pipeline, shared + compute);
  return out;
}

void Estimate::load(const CostModel& cost, const AccessPattern& pattern, double count,
                    uint32_t operand) {
  if (cost.target().places.input_in_sram(operand))
    return; // read in place: nothing moves
  const double bytes = pattern.bytes() * count;
  load_bytes += bytes;
  ddr_bytes += bytes;
  ddr_s += cost.transfer_seconds(pattern, count);
  dma_s += cost.burst_seconds(pattern, count);
}

void Estimate::store(const CostModel& cost, const AccessPattern& pattern, double count) {
  const bool sram = cost.target().places.sram_output;
  const double bytes = pattern.bytes() * count;
  store_bytes += bytes;
  (sram ? sram_bytes : ddr_bytes) += bytes;
  (sram ? sram_s : ddr_s) += cost.transfer_seconds(pattern, count, sram);
  dma_s += cost.burst_seconds(pattern, count, sram);
}

} // namespace npu
