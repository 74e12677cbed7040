// Granularity::Transaction: the burst loop moves a window of bursts at a time as one
// descriptor-level transaction. A span is a part of one row, or whole rows, of at most a
// window of bursts; its bursts keep their issue slots (one per DMA clock) and their places
// in the window (each takes the place that freed first), so the span's data leaves evenly
// from its first burst's time to its last one's. The read goes first; the write leaves when
// the first burst's read data is in and carries the rest as the read brought it; each
// burst's place frees as the write's data lands, evenly from its first burst's end to its
// last one's.
#include "models/dma/dma.h"

#include <algorithm>

namespace npu {

uint32_t DmaEngine::shape_span(const DmaTransfer& t, uint64_t index, uint32_t window,
                               Slot* slot) const {
  const uint64_t burst = m_config.burst_bytes;
  const uint64_t per_row = (t.row_bytes + burst - 1) / burst;
  const uint64_t row = index / per_row;
  const uint64_t col = index % per_row;
  uint64_t bursts = 0, rows = 1, row_bytes = 0;
  if (col > 0 || per_row >= window) {
    bursts = std::min<uint64_t>(window, per_row - col);
    row_bytes = std::min(bursts * burst, t.row_bytes - col * burst);
  } else {
    rows = std::min<uint64_t>(window / per_row, t.rows - row);
    bursts = rows * per_row;
    row_bytes = t.row_bytes;
  }
  if (!slot)
    return static_cast<uint32_t>(bursts);
  slot->span = {t.src + row * t.src_stride + col * burst, t.dst + row * t.dst_stride + col * burst,
                row * t.row_bytes + col * burst, static_cast<uint32_t>(rows * row_bytes)};
  slot->rows.rows = rows;
  slot->rows.row_bytes = row_bytes;
  slot->rows.unit_bytes = std::min(burst, row_bytes);
  slot->src_stride = t.src_stride;
  slot->dst_stride = t.dst_stride;
  slot->bursts = static_cast<uint32_t>(bursts);
  return slot->bursts;
}

void DmaEngine::ready_span(Flow& f) {
  if (f.queued || f.error || f.next == f.count)
    return;
  const uint32_t k = shape_span(*f.transfer, f.next, f.window, nullptr);
  if (f.freed.size() < k)
    return; // its bursts need places still in flight
  // Burst m takes the m-th place to free, no earlier than its issue slot: the span goes from
  // its first burst's time to its last one's.
  const uint64_t first_slot = f.begin + f.next * m_period_ps;
  const uint64_t last_slot = f.begin + (f.next + k - 1) * m_period_ps;
  const uint64_t first = std::max(f.freed.top(), first_slot);
  const uint64_t last = std::max(f.freed.nth(k - 1), last_slot);
  f.queued_late = f.freed.top() >= first_slot ? 1 : 0;
  f.freed.pop(k);
  f.queued_at = first;
  f.queued_bursts = k;
  f.queued_spread = last - first;
  m_ready.add(queued_entry(f));
  f.queued = true;
  wake_pump(first);
}

void DmaEngine::start_span(Flow& f, Slot& slot, uint64_t at) {
  shape_span(*f.transfer, f.next, f.window, &slot);
  slot.writing = false;
  f.next += slot.bursts;
  if (slot.data.size() < slot.span.len)
    slot.data.resize(slot.span.len);
  if (!slot.payload.get_extension<SpanExtension>())
    slot.payload.set_extension(&slot.rows);
  slot.rows.stride = slot.src_stride;
  slot.rows.more = false;
  slot.rows.spread_ps = f.queued_spread;
  slot.rows.first_done_ps = 0;
  ready(f); // the window may hold the next span too
  send(slot, at);
}

void DmaEngine::span_done(Slot& slot, uint64_t at) {
  Flow& f = *slot.flow;
  // When its first burst was done (the target says; else with the last one).
  const uint64_t first = slot.rows.first_done_ps > 0 ? std::min(slot.rows.first_done_ps, at) : at;
  if (!slot.payload.is_response_ok()) {
    keep_failure(slot);
  } else if (!slot.writing) {
    // The write leaves with the first burst's data and carries the rest as it comes.
    slot.writing = true;
    slot.rows.stride = slot.dst_stride;
    slot.rows.more = false;
    slot.rows.spread_ps = at - first;
    slot.rows.first_done_ps = 0;
    if (first > current_ps()) {
      m_stages.push(Stage{Due(first, 0, f.channel, slot.index), &slot});
      wake_pump(first);
    } else {
      send(slot, first);
    }
    return;
  }
  f.freed.push_run(first, at, slot.bursts);
  m_free_slots.push_back(&slot);
  f.end = std::max(f.end, at);
  if (f.freed.size() == f.window && (f.next == f.count || f.error)) { // none in flight
    f.done.notify(ps(f.end) - time_now(*this));
    return;
  }
  ready(f);
}

void FreedPlaces::compact() {
  // The places taken stay in front until they outnumber the free ones.
  if (m_head < 16 || m_head < size())
    return;
  m_times.erase(m_times.begin(), m_times.begin() + static_cast<std::ptrdiff_t>(m_head));
  m_head = 0;
}

void FreedPlaces::push(uint64_t at) {
  compact();
  const auto head = m_times.begin() + static_cast<std::ptrdiff_t>(m_head);
  m_times.insert(std::upper_bound(head, m_times.end(), at), at);
}

void FreedPlaces::push_run(uint64_t first, uint64_t last, uint32_t k) {
  compact();
  // Merged in from the back: both runs are sorted.
  size_t i = m_times.size(), w = m_times.size() + k;
  m_times.resize(w);
  for (uint32_t j = k; j > 0;) {
    const uint64_t m = j - 1;
    const uint64_t t = k > 1 ? first + (last - first) * m / (k - 1) : last;
    if (i > m_head && m_times[i - 1] > t) {
      m_times[--w] = m_times[--i];
    } else {
      m_times[--w] = t;
      --j;
    }
  }
}

} // namespace npu
