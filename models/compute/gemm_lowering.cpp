#include "models/compute/gemm_lowering.h"

#include <algorithm>

namespace npu {

GemmLowering::GemmLowering(const OpSpec& op, bool pad_taps)
    : m_op(op), m_g(gemm_shape(op)), m_element_bytes(dtype_bytes(op.dtype)),
      m_conv(op.kind() == OpKind::Conv2d), m_pad_taps(pad_taps) {
  if (m_conv)
    m_w = window_of(op);
}

uint64_t GemmLowering::a_buffer_bytes(uint64_t mt, uint64_t kt) const {
  if (!m_conv)
    return mt * kt * m_element_bytes;
  // What tile_transfers() loads for mt consecutive output pixels at any position: the
  // windows of at most two partial output rows, and of the whole rows between them.
  const Window& g = m_w;
  const uint64_t cc = kt / (g.r * g.s);
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

uint64_t GemmLowering::conv_patch_bytes(uint64_t m0, uint64_t mt, uint64_t cc) const {
  Tile t;
  tile_transfers(0, m0, mt, 0, 1, 0, cc * m_w.r * m_w.s, 0, kSkip, false, &t);
  uint64_t bytes = 0;
  for (const TileTransfer& l : t.loads)
    bytes += l.bytes();
  return bytes;
}

double GemmLowering::a_pass_bytes(uint64_t mt) const {
  if (!m_conv)
    return static_cast<double>(m_g.m * m_g.k * m_element_bytes);
  // Overlapping windows read some input rows twice: add up the patches (a sample of
  // at most 1024 tiles, scaled, for ops with very many).
  const uint64_t tiles = ceil_div(m_g.m, mt);
  const uint64_t step = std::max<uint64_t>(1, tiles / 1024);
  double bytes = 0, sampled = 0;
  for (uint64_t i = 0; i < tiles; i += step) {
    const uint64_t m0 = i * mt;
    const uint64_t n = std::min(mt, m_g.m - m0);
    bytes += static_cast<double>(conv_patch_bytes(m0, n, m_w.channels));
    sampled += static_cast<double>(n);
  }
  return sampled > 0 ? bytes * static_cast<double>(m_g.m) / sampled : 0;
}

AccessPattern GemmLowering::a_access(uint64_t mt, uint64_t kt) const {
  if (!m_conv) {
    if (kt == m_g.k)
      return {1, static_cast<double>(mt * kt * m_element_bytes), 0};
    return {static_cast<double>(mt), static_cast<double>(kt * m_element_bytes),
            static_cast<double>(m_g.k * m_element_bytes)};
  }
  const Window& g = m_w;
  const uint64_t cc = kt / (g.r * g.s);
  const double bytes = static_cast<double>(a_buffer_bytes(mt, kt));
  if (cc == g.channels) // whole-width bands of all channels: contiguous
    return {1, bytes, 0};
  return {bytes / static_cast<double>(cc * m_element_bytes),
          static_cast<double>(cc * m_element_bytes),
          static_cast<double>(g.channels * m_element_bytes)};
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

uint64_t GemmLowering::a_descriptors(uint64_t mt, uint64_t kt) const {
  if (!m_conv)
    return 1;
  const Window& g = m_w;
  if (kt / (g.r * g.s) == g.channels)
    return mt >= g.ho * g.wo ? ceil_div(mt, g.ho * g.wo) + 1 : 2;
  return a_buffer_bytes(mt, kt) / (g.w * (kt / (g.r * g.s)) * m_element_bytes); // one per input row
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
  // (channel, r, s), so a chunk is whole channels [c0, c0 + cc).
  const Window& g = m_w;
  const uint64_t rs = g.r * g.s, c0 = k0 / rs, cc = kt / rs, per_image = g.ho * g.wo;
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
