#include "models/compute/gemm_lowering.h"

#include <algorithm>
#include <numeric>

namespace npu {

GemmLowering::GemmLowering(const OpSpec& op, bool pad_taps)
    : m_op(op), m_g(gemm_shape(op)), m_element_bytes(dtype_bytes(op.dtype)),
      m_conv(op.kind() == OpKind::Conv2d), m_pad_taps(pad_taps) {
  if (!m_conv)
    return;
  m_w = window_of(op);
  // A 1 x 1 window at stride 1 without padding reads each input pixel once, in order: the
  // NHWC input is the im2col matrix itself (m x c, row-major), so the conv is its matmul.
  if (m_w.r == 1 && m_w.s == 1 && m_w.stride == 1 && m_w.pad == 0)
    m_conv = false;
}

namespace {
// Tile positions a profile looks at: every one, or a sample of this many for ops with more.
constexpr uint64_t kSampledTiles = 1024;
} // namespace

uint64_t GemmLowering::chunk_channels(uint64_t kt) const {
  const uint64_t rs = m_w.r * m_w.s;
  if (kt % rs == 0) // chunks start at multiples of kt: whole channels
    return kt / rs;
  return std::min(m_w.channels, ceil_div(kt + rs - 1, rs)); // the most one chunk touches
}

uint64_t GemmLowering::a_buffer_bound(uint64_t mt, uint64_t kt) const {
  // The windows of at most two partial output rows, and of the whole rows between them.
  const Window& g = m_w;
  const uint64_t cc = chunk_channels(kt);
  const uint64_t window_rows = std::min(g.h, g.r);
  if (mt < g.wo) {
    const uint64_t cols =
        std::min(2 * g.w, (mt - 1) * g.stride + g.s + (g.s > g.stride ? g.s - g.stride : 0));
    return window_rows * cols * cc * m_element_bytes;
  }
  const uint64_t full = std::min(g.ho, mt / g.wo);
  const uint64_t rows = std::min(g.h, band_in(full, g.stride, g.r, g.h) + 2 * window_rows);
  const uint64_t segments = g.images > 1 ? std::min(g.images, ceil_div(mt, g.ho * g.wo) + 1) : 1;
  return segments * rows * g.w * cc * m_element_bytes;
}

const GemmLowering::Profile& GemmLowering::profile(uint64_t mt, bool whole) const {
  const auto [at, fresh] = m_profiles.try_emplace({mt, whole});
  Profile& p = at->second;
  if (!fresh)
    return p;
  const uint64_t cc = whole ? m_w.channels : 1, tiles = ceil_div(m_g.m, mt);
  const uint64_t per_image = m_w.ho * m_w.wo;
  // A tile's loads depend only on where in an image it starts: they repeat every
  // per_image / gcd(mt, per_image) tiles.
  const uint64_t period = per_image / std::gcd(mt, per_image);
  const uint64_t step = std::max<uint64_t>(1, tiles / kSampledTiles);
  p.max_exact = step == 1 || period <= kSampledTiles;
  double seen = 0;
  const auto visit = [&](uint64_t i, bool count) {
    Tile t;
    const uint64_t m0 = i * mt;
    tile_transfers(0, m0, std::min(mt, m_g.m - m0), 0, 1, 0, cc * m_w.r * m_w.s, 0, kSkip, false,
                   &t);
    uint64_t bytes = 0;
    for (const TileTransfer& l : t.loads) {
      bytes += l.bytes();
      if (!count)
        continue;
      p.rows += static_cast<double>(l.rows);
      if (l.rows > 1 && l.stride != l.row_bytes) {
        p.stride_bytes += static_cast<double>(l.stride * l.rows);
        p.strided_rows += static_cast<double>(l.rows);
      }
    }
    p.max_bytes = std::max(p.max_bytes, bytes);
    if (count) {
      p.bytes += static_cast<double>(bytes);
      p.descriptors += static_cast<double>(t.loads.size());
      seen += 1;
    }
  };
  for (uint64_t i = 0; i < tiles; i += step)
    visit(i, true);
  for (uint64_t i = 0; step > 1 && i < period && p.max_exact; ++i)
    visit(i, false);
  // Scale the sample to every tile of the pass.
  const double scale = seen > 0 ? static_cast<double>(tiles) / seen : 0;
  p.bytes *= scale;
  p.rows *= scale;
  p.descriptors *= scale;
  p.stride_bytes *= scale;
  p.strided_rows *= scale;
  p.tiles = static_cast<double>(tiles);
  return p;
}

uint64_t GemmLowering::a_buffer_bytes(uint64_t mt, uint64_t kt) const {
  if (!m_conv)
    return mt * kt * m_element_bytes;
  // The most any tile loads, where every tile position was seen; else a bound.
  const uint64_t cc = chunk_channels(kt);
  const Profile& p = profile(mt, cc == m_w.channels);
  if (!p.max_exact)
    return a_buffer_bound(mt, kt);
  return cc == m_w.channels ? p.max_bytes : p.max_bytes * cc;
}

double GemmLowering::a_pass_bytes(uint64_t mt) const {
  if (!m_conv)
    return static_cast<double>(m_g.m * m_g.k * m_element_bytes);
  return profile(mt, true).bytes; // overlapping windows read some input rows twice
}

AccessPattern GemmLowering::a_access(uint64_t mt, uint64_t kt) const {
  if (!m_conv) {
    if (kt == m_g.k)
      return {1, static_cast<double>(mt * kt * m_element_bytes), 0};
    return {static_cast<double>(mt), static_cast<double>(kt * m_element_bytes),
            static_cast<double>(m_g.k * m_element_bytes)};
  }
  // The mean tile of the pass: its DMA rows, their mean size and stride.
  const uint64_t cc = chunk_channels(kt);
  const Profile& p = profile(mt, cc == m_w.channels);
  if (p.rows <= 0)
    return {};
  const double bytes = cc == m_w.channels ? p.bytes : p.bytes * static_cast<double>(cc);
  const double row_bytes = bytes / p.rows;
  return {p.rows / p.tiles, row_bytes,
          p.strided_rows > 0 ? p.stride_bytes / p.strided_rows : row_bytes};
}

double GemmLowering::a_descriptors(uint64_t mt, uint64_t kt) const {
  if (!m_conv)
    return 1;
  const Profile& p = profile(mt, chunk_channels(kt) == m_w.channels);
  return p.tiles > 0 ? p.descriptors / p.tiles : 1;
}

AccessPattern GemmLowering::b_access(uint64_t kt, uint64_t nt) const {
  if (nt == m_g.n)
    return {1, static_cast<double>(kt * nt * m_element_bytes), 0};
  return {static_cast<double>(kt), static_cast<double>(nt * m_element_bytes),
          static_cast<double>(m_g.n * m_element_bytes)};
}

AccessPattern GemmLowering::c_access(uint64_t mt, uint64_t nt) const {
  if (nt == m_g.n)
    return {1, static_cast<double>(mt * nt * m_element_bytes), 0};
  return {static_cast<double>(mt), static_cast<double>(nt * m_element_bytes),
          static_cast<double>(m_g.n * m_element_bytes)};
}

void GemmLowering::tile_transfers(uint64_t batch, uint64_t m0, uint64_t mt, uint64_t n0,
                                  uint64_t nt, uint64_t k0, uint64_t kt, uint64_t a_offset,
                                  uint64_t b_offset, bool store, Tile* t) const {
  const uint64_t es = m_element_bytes, M = m_g.m, N = m_g.n, K = m_g.k;
  if (!m_conv) {
    // A is M x K, B is K x N, C is M x N, row-major, one of each per batch.
    if (a_offset != kSkip)
      t->loads.push_back(
          make_transfer(0, (batch * M * K + m0 * K + k0) * es, kt * es, mt, K * es, a_offset));
    if (b_offset != kSkip)
      t->loads.push_back(
          make_transfer(1, (batch * K * N + k0 * N + n0) * es, nt * es, kt, N * es, b_offset));
    if (store)
      t->stores.push_back(
          make_transfer(0, (batch * M * N + m0 * N + n0) * es, nt * es, mt, N * es, 0));
    return;
  }
  // conv2d: rows are output pixels (images, then rows, then columns); the reduction is
  // (channel, r, s), so a chunk reads the channels [c0, c0 + cc) it touches (whole
  // channels under per_tap; a chunk that starts or ends inside a channel's taps reads that
  // channel's patch whole).
  const Window& g = m_w;
  const uint64_t rs = g.r * g.s, c0 = k0 / rs, per_image = g.ho * g.wo;
  const uint64_t cc = std::min(g.channels, ceil_div(k0 + kt, rs)) - c0;
  uint64_t sram = a_offset;
  for (uint64_t p = m0; a_offset != kSkip && p < m0 + mt;) {
    // The next piece: the rest of an output row, or the whole rows that follow.
    const uint64_t image = p / per_image, q = p % per_image, oh = q / g.wo, ow = q % g.wo;
    const uint64_t left = std::min(m0 + mt - p, per_image - q);
    if (ow != 0 || left < g.wo) {
      const uint64_t n = std::min(left, g.wo - ow);
      sram += patch_loads(g, es, image, oh, 1, ow, n, c0, cc, sram, &t->loads);
      p += n;
    } else {
      const uint64_t rows = left / g.wo;
      sram += patch_loads(g, es, image, oh, rows, 0, g.wo, c0, cc, sram, &t->loads);
      p += rows * g.wo;
    }
  }
  // Weights: (c x r x s) x filters, row-major; this chunk's channels are consecutive rows.
  if (b_offset != kSkip)
    t->loads.push_back(make_transfer(1, (k0 * N + n0) * es, nt * es, kt, N * es, b_offset));
  // Output pixels are consecutive rows of filters values (NHWC).
  if (store)
    t->stores.push_back(make_transfer(0, (m0 * N + n0) * es, nt * es, mt, N * es, 0));
}

} // namespace npu
