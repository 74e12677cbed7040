#include "models/ddr/dram_transaction.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace npu {

namespace {

/// The first of `spans` (sorted) for which `before(value, span)` holds, as std::upper_bound,
/// looking at the last few first: bookings mostly fall at the end of a calendar.
template <typename It, typename T, typename Before>
It upper_bound_from_back(It begin, It end, const T& value, Before before) {
  It it = end;
  for (int i = 0; i < 4; ++i) {
    if (it == begin || !before(value, *std::prev(it)))
      return it;
    --it;
  }
  return std::upper_bound(begin, it, value, before);
}

/// A count of clocks or bytes (under 2^63) as a double, through the signed conversion: one
/// instruction, where the unsigned one takes a test and a branch; the same value.
inline double to_double(uint64_t v) {
  return static_cast<double>(static_cast<int64_t>(v));
}
/// A double in [0, 2^63) truncated to an integer, as static_cast<uint64_t> does.
inline uint64_t to_count(double v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

} // namespace

inline uint64_t TransactionDram::BusCalendar::find(uint64_t t, uint64_t len) const {
  t = std::max(t, m_floor);
  // Spans do not overlap, so their ends are sorted like their starts.
  auto it = upper_bound_from_back(m_spans.begin() + m_head, m_spans.end(), t,
                                  [](uint64_t at, const auto& span) { return at < span.second; });
  for (; it != m_spans.end() && it->first < t + len; ++it)
    t = std::max(t, it->second);
  // The spans before `it` end by t: a booking at t goes before it.
  m_hint_at = t;
  m_hint = static_cast<size_t>(it - m_spans.begin());
  return t;
}

[[gnu::always_inline]] inline void TransactionDram::BusCalendar::add(uint64_t start, uint64_t len) {
  if (len == 0)
    return;
  const uint64_t end = start + len;
  // The first span starting at or after `start`: where find() left off, when it found `start`.
  const auto first = m_spans.begin() + m_head;
  auto it =
      start == m_hint_at
          ? m_spans.begin() + static_cast<int64_t>(m_hint)
          : upper_bound_from_back(first, m_spans.end(), start,
                                  [](uint64_t at, const auto& span) { return at <= span.first; });
  m_hint_at = UINT64_MAX;
  const bool joins_prev = it != first && std::prev(it)->second == start;
  const bool joins_next = it != m_spans.end() && it->first == end;
  if (joins_prev && joins_next) {
    std::prev(it)->second = it->second;
    m_spans.erase(it);
  } else if (joins_prev) {
    std::prev(it)->second = end;
  } else if (joins_next) {
    it->first = start;
  } else {
    m_spans.insert(it, {start, end});
  }
}

void TransactionDram::BusCalendar::forget_through(uint64_t t) {
  // The spans that end by `t`, from the first: few (forget_before() is called for each booking
  // once the calendar is long).
  // They are dropped from the vector in bulk: the live spans start at m_head.
  auto it = m_spans.begin() + m_head;
  while (it != m_spans.end() && it->second <= t)
    ++it;
  m_hint_at = UINT64_MAX;
  m_floor = std::max(m_floor, std::prev(it)->second);
  m_head = static_cast<size_t>(it - m_spans.begin());
  if (m_head >= 64) {
    m_spans.erase(m_spans.begin(), it);
    m_head = 0;
  }
}

TransactionDram::TransactionDram(const DramSpec& spec, const DramControllerConfig& config,
                                 const AddressMapper& mapper)
    : m_spec(spec), m_t(spec.t), m_config(config), m_mapper(mapper), m_burst(spec.burst_cycles()),
      m_slot_s(std::max<uint64_t>(spec.burst_cycles(), spec.t.CCD_S)),
      m_slot_l(std::max<uint64_t>(spec.burst_cycles(), spec.t.CCD_L)) {
  // The controller drains writes between its watermarks: one pair of turnarounds per batch.
  const auto high = static_cast<uint64_t>(std::ceil(config.write_high * config.write_queue));
  const auto low = static_cast<uint64_t>(config.write_low * config.write_queue);
  m_write_batch = std::max<uint64_t>(1, high > low ? high - low : 1);
  m_piece_window = uint64_t{std::max(config.read_queue, config.write_queue)} * m_slot_s;
  const auto field_mask = [&](DramField f) {
    return ((uint64_t{1} << mapper.bits(f)) - 1) << mapper.shift(f);
  };
  m_key_mask = ~(field_mask(DramField::Column) | field_mask(DramField::BankGroup) |
                 field_mask(DramField::Channel) | uint64_t{spec.access_bytes - 1});
  m_group_shift = mapper.shift(DramField::BankGroup);
  m_group_mask = static_cast<uint32_t>((uint64_t{1} << mapper.bits(DramField::BankGroup)) - 1);
  m_group_words = std::min(kGroupWords, m_group_mask / 64 + 1);
  // The mapper takes the line size for a power of two.
  m_line_shift = static_cast<uint32_t>(__builtin_ctzll(spec.access_bytes));
  m_rank_shift = mapper.shift(DramField::Rank);
  m_rank_mask = static_cast<uint32_t>((uint64_t{1} << mapper.bits(DramField::Rank)) - 1);
  m_bank_shift = mapper.shift(DramField::Bank);
  m_bank_mask = static_cast<uint32_t>((uint64_t{1} << mapper.bits(DramField::Bank)) - 1);
  // The channel hash is linear in the address bits (shifts and XORs): a table gives the hash
  // of the low bits it folds, the rest change seldom.
  const uint32_t hash_shift = mapper.hash_shift();
  const uint32_t low_bits = mapper.hashed() ? std::min(12u, 63 - hash_shift) : 0;
  m_hash_low.resize(size_t{1} << low_bits);
  for (uint64_t low = 0; low < m_hash_low.size(); ++low)
    m_hash_low[low] = static_cast<uint8_t>(mapper.channel_hash(low << hash_shift));
  m_hash_low_shift = hash_shift;
  m_hash_low_mask = (uint64_t{1} << low_bits) - 1;
  m_hash_high_shift = hash_shift + low_bits;
  m_channels.resize(spec.channels);
  for (Channel& ch : m_channels) {
    ch.banks.resize(spec.banks() * spec.ranks);
    ch.ranks.resize(spec.ranks);
    for (uint32_t r = 0; r < spec.ranks; ++r)
      ch.ranks[r].next_refresh =
          config.refresh ? uint64_t{spec.t.REFI} * (r + 1) / spec.ranks : kNoRow;
  }
  m_runs.resize(spec.channels);
}

DramTransactionDone TransactionDram::serve(const DramTransaction& t) {
  thread_local std::vector<DramTransaction> one(1);
  one[0] = t;
  serve_batch(one, m_single);
  return m_single[0];
}

void TransactionDram::serve_batch(const std::vector<DramTransaction>& batch,
                                  std::vector<DramTransactionDone>& done) {
  done.assign(batch.size(), DramTransactionDone{});
  // The batch's earliest arrival: no run served later asks for the buses or the activation
  // windows before it, so what ends before it there may be forgotten, and nothing after it.
  m_horizon = UINT64_MAX;
  for (const DramTransaction& t : batch) {
    m_last_arrival = std::max(m_last_arrival, t.arrival);
    m_horizon = std::min(m_horizon, t.arrival);
  }
  m_formed.clear();
  for (size_t i = 0; i < batch.size(); ++i)
    form_runs(batch[i], static_cast<uint32_t>(i));
  order_runs();
  for (size_t c = 0; c + 1 < m_channel_start.size(); ++c)
    if (m_channel_start[c] < m_channel_start[c + 1])
      serve_channel(m_channel_start[c], m_channel_start[c + 1], done);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (done[i].last == 0) // nothing to move
      done[i] = {batch[i].arrival, batch[i].arrival};
    else if (done[i].first == 0)
      done[i].first = done[i].last;
  }
}

inline void TransactionDram::order_runs() {
  // By channel, then arrival, then as formed (a transaction's runs in address order): the
  // runs of each channel in the order formed, then each channel's by arrival where needed.
  m_channel_start.assign(m_channels.size() + 1, 0);
  for (const Run& r : m_formed)
    ++m_channel_start[r.channel + 1];
  for (size_t c = 1; c < m_channel_start.size(); ++c)
    m_channel_start[c] += m_channel_start[c - 1];
  m_queued.resize(m_formed.size());
  m_channel_next.assign(m_channel_start.begin(), m_channel_start.end() - 1);
  for (size_t i = 0; i < m_formed.size(); ++i) {
    const Run& r = m_formed[i];
    m_queued[m_channel_next[r.channel]++] = {r.first_arrival, r.key, static_cast<uint32_t>(i)};
  }
  // Each run once: sorted on (arrival, as formed), as a stable sort by arrival would.
  const auto by_arrival = [](const Queued& a, const Queued& b) {
    return a.arrival < b.arrival || (a.arrival == b.arrival && a.run < b.run);
  };
  for (size_t c = 0; c + 1 < m_channel_start.size(); ++c) {
    const auto begin = m_queued.begin() + m_channel_start[c];
    const auto end = m_queued.begin() + m_channel_start[c + 1];
    if (!std::is_sorted(begin, end, by_arrival))
      std::sort(begin, end, by_arrival);
  }
}

void TransactionDram::form_runs(const DramTransaction& t, uint32_t tx) {
  const uint64_t total = t.rows * t.row_bytes;
  if (total == 0)
    return;
  const uint64_t unit = t.unit_bytes > 0 ? std::min(t.unit_bytes, t.row_bytes) : t.row_bytes;
  const uint64_t first_unit = t.unit_bytes > 0 ? unit : 1;
  // The data arrives evenly over the spread, in the order of its bytes.
  const double pace =
      total > 1 ? static_cast<double>(t.spread) / static_cast<double>(total - 1) : 0;
  const auto add_piece = [&](uint64_t a, uint64_t len, uint64_t packed) {
    const auto arrival = t.arrival + to_count(to_double(packed) * pace);
    add_lines(a >> m_line_shift, (a + len - 1) >> m_line_shift, arrival, packed < first_unit,
              t.is_write, tx);
  };
  if (unit == t.row_bytes) { // each row one piece, as most are: no loop over pieces
    for (uint64_t r = 0; r < t.rows; ++r)
      add_piece(t.addr + r * t.stride, unit, r * t.row_bytes);
  } else {
    for (uint64_t r = 0; r < t.rows; ++r)
      for (uint64_t piece = 0; piece < t.row_bytes; piece += unit)
        add_piece(t.addr + r * t.stride + piece, std::min(unit, t.row_bytes - piece),
                  r * t.row_bytes + piece);
  }
  for (uint32_t c : m_forming) {
    Run& r = m_runs[c];
    if (r.lines > 0)
      m_formed.push_back(r);
    r.lines = 0;
    r.listed = false;
  }
  m_forming.clear();
}

uint64_t TransactionDram::read_queue_empty_from(uint32_t channel, uint64_t at) const {
  const Channel& ch = m_channels[channel];
  if (ch.last_read_column <= at)
    return at;
  uint64_t first = ch.last_read_column;
  for (const auto& [from, to] : ch.idle)
    if (to > at)
      first = std::min(first, std::max(from, at));
  return first;
}

void TransactionDram::count_lines(const DramTransaction& t, uint32_t* per_channel) const {
  const uint64_t line = m_spec.access_bytes;
  const uint64_t unit = t.unit_bytes > 0 ? std::min(t.unit_bytes, t.row_bytes) : t.row_bytes;
  for (uint64_t r = 0; r < t.rows && unit > 0; ++r) {
    for (uint64_t piece = 0; piece < t.row_bytes; piece += unit) {
      const uint64_t a = t.addr + r * t.stride + piece;
      const uint64_t last = (a + std::min(unit, t.row_bytes - piece) - 1) / line;
      for (uint64_t l = a / line; l <= last; ++l)
        ++per_channel[m_mapper.channel_of(l * line, channel_hash(l * line))];
    }
  }
}

[[gnu::always_inline]] inline void TransactionDram::add_lines(uint64_t first, uint64_t last,
                                                              uint64_t arrival, bool first_unit,
                                                              bool is_write, uint32_t tx) {
  for (uint64_t l = first; l <= last; ++l) {
    const uint64_t addr = l << m_line_shift;
    const uint32_t c = m_mapper.channel_of(addr, channel_hash(addr));
    const uint64_t key = addr & m_key_mask;
    const auto group = static_cast<uint32_t>(addr >> m_group_shift) & m_group_mask;
    Run& r = m_runs[c];
    // A run ends at another row, or once its lines have arrived over longer than the
    // controller's queue takes to drain: lines that arrive later are served when they
    // arrive, in order of arrival with the other transactions' runs, not booked ahead of them.
    if (r.lines > 0 && (r.key != key || arrival > r.first_arrival + m_piece_window)) {
      m_formed.push_back(r);
      r.lines = 0;
    }
    if (r.lines == 0) {
      r.key = key;
      r.rank = rank_of(key);
      r.bank = bank_of(key);
      r.same_group = 0;
      r.first_lines = 0;
      r.first_group = group;
      r.first_arrival = arrival;
      r.groups = {};
      r.tx = tx;
      r.channel = c;
      r.is_write = is_write;
      if (!r.listed) {
        r.listed = true;
        m_forming.push_back(c);
      }
    } else if (group == r.last_group) {
      ++r.same_group;
    }
    r.groups[group / 64] |= uint64_t{1} << (group % 64);
    r.last_group = group;
    r.last_arrival = arrival;
    r.first_lines += first_unit ? 1 : 0;
    ++r.lines;
  }
}

void TransactionDram::serve_channel(size_t begin, size_t end,
                                    std::vector<DramTransactionDone>& done) {
  Channel& ch = m_channels[m_formed[m_queued[begin].run].channel];
  for (size_t next = begin; next < end;) {
    if (m_queued[next].key == kNoRow) { // served
      ++next;
      continue;
    }
    // The oldest run left, unless its bank holds another row and a run of that row arrives
    // before the oldest one's precharge could issue: FR-FCFS serves that hit first.
    size_t pick = next;
    const Run& oldest = m_formed[m_queued[next].run];
    const Bank& b = ch.banks[bank_index(oldest.rank, oldest.first_group, oldest.bank)];
    if (b.row != kNoRow && b.row != oldest.key) {
      const uint64_t precharge = std::max(oldest.first_arrival + 1, b.pre_ready);
      for (size_t j = next + 1; j < end && m_queued[j].arrival <= precharge; ++j)
        if (m_queued[j].key == b.row) { // not served (b.row is a row)
          pick = j;
          break;
        }
    }
    m_queued[pick].key = kNoRow;
    Run& r = m_formed[m_queued[pick].run];
    const Served s = serve_run(r);
    DramTransactionDone& d = done[r.tx];
    d.last = std::max(d.last, s.end);
    d.first = std::max(d.first, s.first_end);
  }
}

[[gnu::always_inline]] inline TransactionDram::Served TransactionDram::serve_run(Run& r) {
  Channel& ch = m_channels[r.channel];
  Served out;
  uint64_t floor = 0;
  // The lines of the first unit go as they arrive, the rest by the last one's arrival: the
  // first unit's end does not wait for lines that arrive later.
  const uint32_t split = r.first_lines > 0 && r.first_lines < r.lines ? r.first_lines : r.lines;
  for (uint32_t from = 0; from < r.lines;) {
    uint32_t served = 0;
    serve_part(ch, r, from, from < split ? split : r.lines, floor, served, out);
    from += served;
  }
  return out;
}

[[gnu::always_inline]] inline uint64_t
TransactionDram::open_run_banks(Channel& ch, const Run& r, uint32_t from, uint32_t n, uint64_t c0,
                                uint64_t last_arrival, uint32_t& opened) {
  const uint32_t rank = r.rank;
  const uint32_t bank = r.bank;
  uint64_t start = c0;
  const uint32_t groups = m_spec.bank_groups;
  const bool open_page = m_config.page_policy == DramControllerConfig::PagePolicy::Open;
  // The bank groups it touches, word by word in one loop (most devices have one word).
  uint32_t w = 0;
  for (uint64_t bits = r.groups[0];; bits &= bits - 1) {
    while (bits == 0) {
      if (++w >= m_group_words)
        return start;
      bits = r.groups[w];
    }
    const uint32_t g = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
    Bank& b = ch.banks[bank_index(rank, g, bank)];
    uint64_t ready;
    if (b.row == r.key) {
      ready = std::max(c0, b.open_col); // columns may fill its calendar's gaps
    } else if (const uint64_t fit = open_page ? closed_row_fit(b, r, n, c0, last_arrival) : kNoRow;
               fit != kNoRow) {
      ready = fit; // a row hit in its calendar, before the rows opened since
    } else if (const uint64_t early =
                   open_page ? open_early(ch, b, r, g, n, c0, last_arrival) : kNoRow;
               early != kNoRow) {
      ready = early;
      ++opened;
    } else {
      ready = open_row(ch, rank, g, bank, r.key, c0);
      ++opened;
    }
    uint64_t place = 0; // bank groups after the run's first one
    if (from == 0)
      place = g >= r.first_group ? g - r.first_group : g + groups - r.first_group;
    const uint64_t lead = std::min<uint64_t>(place, n - 1) * m_slot_s;
    start = std::max(start, ready > lead ? ready - lead : 0);
  }
}

inline uint64_t TransactionDram::closed_row_fit(const Bank& b, const Run& r, uint32_t n,
                                                uint64_t c0, uint64_t last_arrival) const {
  // Its columns go at the pace of one bank group; the last one a clock after its line came.
  uint64_t tail = 0, recovery = 0;
  bool known = false; // tail and recovery: found a span of its row (most banks have none)
  for (const OpenSpan& span : b.closed) {
    if (span.row != r.key)
      continue;
    if (!known) {
      tail = uint64_t{n - 1} * m_slot_l;
      recovery = r.is_write ? m_t.CWL + m_burst + m_t.WR : m_t.RTP;
      known = true;
    }
    if (span.pre < recovery)
      continue;
    uint64_t first = std::max(c0, span.col_from);
    first = std::max(first, last_arrival + 1 > tail ? last_arrival + 1 - tail : 0);
    if (first + tail <= span.pre - recovery)
      return first;
  }
  return kNoRow;
}

inline uint64_t TransactionDram::open_early(Channel& ch, Bank& b, const Run& r, uint32_t group,
                                            uint32_t n, uint64_t c0, uint64_t last_arrival) {
  if (b.row != kNoRow) {
    // Only an access older than the one that opened the row goes before it (FR-FCFS serves
    // the oldest of the misses first).
    return b.open_act > c0 && b.open_at > c0 ? open_between(ch, b, r, group, n, c0, last_arrival)
                                             : kNoRow;
  }
  // The controller holds a rank from its refresh's due time on: an access that came before
  // then (served after a later one brought the refresh about) may still take its ACT and
  // columns before, where it does not delay the PREA.
  const Rank& rk = ch.ranks[r.rank];
  return c0 < rk.held_from && rk.held_from != 0 && b.act_ready <= rk.ready_after
             ? open_before_refresh(ch, b, r, group, n, c0, last_arrival)
             : kNoRow;
}

uint64_t TransactionDram::open_between(Channel& ch, Bank& b, const Run& r, uint32_t group,
                                       uint32_t n, uint64_t c0, uint64_t last_arrival) {
  OpenSpan& last = b.closed[(b.next_closed + kSpans - 1) % kSpans];
  if (last.row == kNoRow || last.pre + m_t.RP > b.open_act || last.pre <= c0)
    return kNoRow; // the open row's ACT does not follow the last one's PRE
  const uint64_t tail = uint64_t{n - 1} * m_slot_l;
  const uint64_t recovery = r.is_write ? m_t.CWL + m_burst + m_t.WR : m_t.RTP;
  uint64_t at = std::max({c0, last.pre_min + m_t.RP, last.act + m_t.RC});
  at = std::max(at, last_arrival + 1 > tail + m_t.RCD ? last_arrival + 1 - tail - m_t.RCD : 0);
  // Its PRE, tRP before the open row's ACT, and its tRC there, from an ACT at `act`.
  const auto fits_before_open = [&](uint64_t act) {
    const uint64_t pre = std::max(act + m_t.RAS, act + m_t.RCD + tail + recovery);
    return pre + m_t.RP <= b.open_act && act + m_t.RC <= b.open_act;
  };
  if (!fits_before_open(at)) // nor from the ACT placed (no earlier than `at`)
    return kNoRow;
  Rank& rk = ch.ranks[r.rank];
  uint64_t act = place_act(rk, group, at, std::min(c0, m_horizon), false);
  // The rank's latest refresh, when it falls between the two rows, holds it: the row goes
  // wholly before the refresh's PREA or after its REF.
  if (rk.held_from != 0 && act < rk.ready_after && b.open_act >= rk.ready_after &&
      (act + m_t.RCD + tail >= rk.held_from ||
       std::max(act + m_t.RAS, act + m_t.RCD + tail + recovery) > rk.held_prea))
    act = place_act(rk, group, std::max(at, rk.ready_after), std::min(c0, m_horizon), false);
  if (!fits_before_open(act))
    return kNoRow;
  const uint64_t col = act + m_t.RCD;
  const uint64_t pre = std::max(act + m_t.RAS, col + tail + recovery);
  place_act(rk, group, act, std::min(c0, m_horizon));
  // The row before closes at tRP before this ACT; this one closes tRP before the open row's.
  last.pre = act - m_t.RP;
  b.closed[b.next_closed] = OpenSpan{r.key, act, col, pre, b.open_act - m_t.RP};
  b.next_closed = (b.next_closed + 1) % kSpans;
  ++ch.stats.activates;
  ++ch.stats.row_misses;
  ++ch.precharges;
  return col;
}

uint64_t TransactionDram::open_before_refresh(Channel& ch, Bank& b, const Run& r, uint32_t group,
                                              uint32_t n, uint64_t c0, uint64_t last_arrival) {
  Rank& rk = ch.ranks[r.rank];
  OpenSpan& last = b.closed[(b.next_closed + kSpans - 1) % kSpans];
  const bool by_refresh = last.row != kNoRow && last.pre == rk.held_prea;
  uint64_t at = std::max(c0, rk.ready_before);
  if (last.row != kNoRow)
    at = std::max({at, (by_refresh ? last.pre_min : last.pre) + m_t.RP, last.act + m_t.RC});
  const uint64_t tail = uint64_t{n - 1} * m_slot_l;
  const uint64_t recovery = r.is_write ? m_t.CWL + m_burst + m_t.WR : m_t.RTP;
  at = std::max(at, last_arrival + 1 > tail + m_t.RCD ? last_arrival + 1 - tail - m_t.RCD : 0);
  // Its columns and PRE from an ACT at `at` at the earliest: when they do not fit, none do.
  if (at + m_t.RCD + tail >= rk.held_from ||
      std::max(at + m_t.RAS, at + m_t.RCD + tail + recovery) > rk.held_prea)
    return kNoRow;
  const uint64_t act = place_act(rk, group, at, std::min(c0, m_horizon), false);
  // Its data in a gap of the bus before the refresh: the bus does not push it past.
  const uint64_t latency = r.is_write ? m_t.CWL : m_t.CL;
  const uint64_t col = ch.bus.find(act + m_t.RCD + latency, tail + m_burst) - latency;
  const uint64_t pre = std::max(act + m_t.RAS, col + tail + recovery);
  if (col + tail >= rk.held_from || pre > rk.held_prea)
    return kNoRow;
  place_act(rk, group, act, std::min(c0, m_horizon));
  if (by_refresh)
    last.pre = act - m_t.RP;
  b.closed[b.next_closed] = OpenSpan{r.key, act, col, pre, rk.held_prea};
  b.next_closed = (b.next_closed + 1) % kSpans;
  ++ch.stats.activates;
  ++ch.stats.row_misses;
  ++ch.precharges;
  return col;
}

uint64_t TransactionDram::take_gaps(Channel& ch, const Run& r, uint64_t earliest, uint64_t latency,
                                    uint64_t before, uint32_t& n) {
  // The run whose slots take its first line earliest.
  Gaps* best = nullptr;
  uint64_t data = before, skip = 0;
  for (Gaps& c : ch.gaps) {
    if (c.slots == 0 || c.group == r.first_group || c.rank != r.rank || c.is_write != r.is_write)
      continue;
    const uint64_t s = earliest > c.next ? (earliest - c.next + m_slot_l - 1) / m_slot_l : 0;
    if (s < c.slots && c.next + s * m_slot_l < data) {
      best = &c;
      skip = s;
      data = c.next + s * m_slot_l;
    }
  }
  if (best == nullptr)
    return kNoRow;
  Gaps& g = *best;
  const uint64_t first_col = data - latency;
  const uint64_t last_col = first_col + uint64_t{n - 1} * m_slot_l;
  const Rank& rk = ch.ranks[r.rank];
  if (rk.next_refresh <= last_col || (first_col < rk.ready_after && last_col >= rk.held_from))
    return kNoRow;
  const uint64_t left = g.slots - skip; // slots before the run's booking ends
  if (n <= left) {
    g.next = data + uint64_t{n} * m_slot_l;
    g.slots = static_cast<uint32_t>(left - n);
    return data;
  }
  // The lines past the other run's end take the bus from there; their slots are left.
  const uint64_t end = last_col + latency + m_burst;
  if (ch.bus.find(g.end, end - g.end) != g.end) { // the lines before go in its slots
    n = static_cast<uint32_t>(left);
    g.slots = 0;
    return data;
  }
  ch.bus.add(g.end, end - g.end);
  g = Gaps{data + left * m_slot_l + m_slot_s,
           end,
           static_cast<uint32_t>(n - 1 - left),
           r.rank,
           r.first_group,
           r.is_write};
  return data;
}

inline uint64_t TransactionDram::turnaround(const Channel& ch, bool is_write, uint32_t n,
                                            uint32_t rank) const {
  // The controller drains writes in batches: a write pays its share of a batch's
  // read-to-write turnaround, and a read after writes the share of the write-to-read one that
  // the writes since the last read fill.
  uint64_t margin = 0;
  if (ch.used && ch.last_write != is_write) {
    margin = is_write ? 2 * std::min<uint64_t>(n, m_write_batch) / m_write_batch
                      : (m_t.WTR_S + m_t.CL) * std::min(ch.direction_lines, m_write_batch) /
                            m_write_batch;
  }
  if (ch.used && ch.last_rank != rank)
    margin = std::max<uint64_t>(margin, m_t.RTRS);
  return margin;
}

[[gnu::always_inline]] inline void
TransactionDram::book_banks(Channel& ch, const Run& r, uint64_t first_col, uint64_t last_col) {
  const uint32_t rank = r.rank;
  const uint32_t bank = r.bank;
  Rank& rk = ch.ranks[rank];
  // Each bank it used: the next column tCCD_L on, precharge after tRTP or write recovery.
  const uint64_t pre = last_col + (r.is_write ? m_t.CWL + m_burst + m_t.WR : m_t.RTP);
  const bool closed_page = m_config.page_policy == DramControllerConfig::PagePolicy::Closed;
  for_each_group(r, [&](uint32_t g) {
    Bank& b = ch.banks[bank_index(rank, g, bank)];
    b.col_ready = std::max(b.col_ready, last_col + m_t.CCD_L);
    b.pre_ready = std::max(b.pre_ready, pre);
    if (closed_page && b.row != kNoRow)
      close_bank(ch, rk, b, b.pre_ready);
  });
  if (closed_page) {
    const uint64_t open_from =
        std::max(first_col > m_t.RCD ? first_col - m_t.RCD : 0, rk.closed_page_end);
    if (pre > open_from)
      rk.active_cycles += pre - open_from;
    rk.closed_page_end = std::max(rk.closed_page_end, pre);
  }
}

inline void TransactionDram::count_part(Channel& ch, bool is_write, uint32_t k, uint32_t n,
                                        uint32_t opened, uint64_t data, uint64_t busy,
                                        uint64_t from_arrival, uint64_t last_arrival) {
  DramChannelStats& s = ch.stats;
  (is_write ? s.writes : s.reads) += k;
  s.row_hits += k - std::min<uint32_t>(k, opened);
  s.data_bus_busy_cycles += uint64_t{k} * m_burst;
  if (is_write)
    return;
  const uint64_t end = data + busy;
  if (k == 1) { // the sum below for one line, in integers
    s.read_latency_sum_cycles += data + m_burst > from_arrival ? data + m_burst - from_arrival : 0;
    s.read_latency_max_cycles = std::max(s.read_latency_max_cycles, end - from_arrival);
    return;
  }
  // Sum over its lines of data end minus arrival: both step evenly.
  const double step = k > 1 ? to_double(busy - m_burst) / (k - 1) : 0;
  const double pace = n > 1 ? to_double(last_arrival - from_arrival) / (n - 1) : 0;
  const double first = to_double(data + m_burst) - to_double(from_arrival);
  const double sum = k * first + (step - pace) * k * (k - 1) / 2.0;
  s.read_latency_sum_cycles += to_count(std::max(0.0, sum));
  s.read_latency_max_cycles = std::max(s.read_latency_max_cycles, end - from_arrival);
}

[[gnu::always_inline]] inline void TransactionDram::serve_part(Channel& ch, Run& r, uint32_t from,
                                                               uint32_t to, uint64_t& floor,
                                                               uint32_t& served, Served& out) {
  const uint32_t n = to - from;
  const uint32_t rank = r.rank;
  Rank& rk = ch.ranks[rank];
  // A command issues a clock after its request arrived at the earliest; the run's lines
  // arrive evenly from its first to its last.
  const uint64_t span = r.last_arrival - r.first_arrival;
  const auto arrival_of = [&](uint32_t line) {
    return r.first_arrival + (r.lines > 1 ? span * line / (r.lines - 1) : 0);
  };
  const bool whole = from == 0 && to == r.lines; // its arrivals as they are: no division
  const uint64_t from_arrival = whole ? r.first_arrival : arrival_of(from);
  const uint64_t last_arrival = whole ? r.last_arrival : arrival_of(to - 1);
  const uint64_t c0 = std::max(from_arrival + 1, floor);
  refresh_until(ch, rank, c0);
  // Open the row in every bank group the run touches; its first column waits for the
  // banks, each by the place of its first line in the run (bank groups take turns).
  uint32_t opened = 0;
  uint64_t start = open_run_banks(ch, r, from, n, c0, last_arrival, opened);
  // Columns: tCCD_S between bank groups, tCCD_L within one, one command per clock (the
  // ACTs and PREs share the command bus).
  const uint64_t same = whole         ? r.same_group
                        : r.lines > 1 ? uint64_t{r.same_group} * (n - 1) / (r.lines - 1)
                                      : 0;
  uint64_t busy = (n - 1 - same) * m_slot_s + same * m_slot_l + m_burst;
  busy = std::max<uint64_t>(busy, n + opened);
  // Its last column no earlier than a clock after its last line arrived.
  const uint64_t tail = busy - m_burst;
  if (last_arrival + 1 > start + tail)
    start = last_arrival + 1 - tail;
  const bool is_write = r.is_write;
  const uint64_t margin = turnaround(ch, is_write, n, rank);
  const uint64_t latency = is_write ? m_t.CWL : m_t.CL;
  // Reads and writes alike take the first gap of the data bus that fits after their columns
  // may issue: the controller drains writes in batches between reads, so a write does not
  // wait for every read booked before it (the turnaround margin is its share of a batch's).
  const uint64_t earliest = start + latency;
  // A run of one bank group goes in the slots another one's left, when it can (a run of a few
  // lines would gain a slot or two, and its cut would reorder the channel's runs).
  const bool paced = n >= kPacedLines && same + 1 == n && m_slot_s + m_burst <= m_slot_l;
  uint32_t k = n; // the lines served now
  const uint64_t free = ch.bus.find(earliest - std::min(margin, earliest), busy + margin) + margin;
  const uint64_t gap = paced && margin == 0 ? take_gaps(ch, r, earliest, latency, free, k) : kNoRow;
  const uint64_t data = gap != kNoRow ? gap : free;
  const uint64_t first_col = data - latency;
  // A refresh falls due before its last column, or one applied already (an access served
  // before brought it about) holds the rank there: the lines before it go now, the rest once
  // the rank is free again.
  uint64_t stop = kNoRow, resume = 0;
  if (gap != kNoRow) {
    busy = uint64_t{k - 1} * m_slot_l + m_burst;
  } else if (rk.next_refresh <= first_col + tail) {
    stop = resume = rk.next_refresh;
  } else if (first_col < rk.ready_after && first_col + tail >= rk.held_from) {
    stop = rk.held_from;
    resume = rk.ready_after;
  }
  if (stop != kNoRow) {
    k = stop > first_col ? static_cast<uint32_t>((stop - first_col + m_slot_s - 1) / m_slot_s) : 0;
    k = std::min(k, n);
    if (k == 0) {
      floor = resume;
      refresh_until(ch, rank, resume);
      served = 0;
      return;
    }
    busy = (k - 1) * m_slot_s + m_burst;
  }
  if (gap == kNoRow) {
    ch.bus.add(data - margin, busy + margin);
    if (paced && k == n) {
      ch.gaps[ch.next_gaps] =
          Gaps{data + m_slot_s, data + busy, n - 1, rank, r.first_group, is_write};
      ch.next_gaps = (ch.next_gaps + 1) % kGapRuns;
    }
  }
  if (ch.bus.size() > 64)
    ch.bus.forget_before(std::min(c0, m_horizon));
  book_banks(ch, r, first_col, first_col + busy - m_burst);
  if (!is_write) {
    if (from_arrival > ch.last_read_column) {
      ch.idle[ch.idle_next] = {ch.last_read_column, from_arrival};
      ch.idle_next = (ch.idle_next + 1) % kIdleStretches;
    }
    ch.last_read_column = std::max(ch.last_read_column, first_col + busy - m_burst);
  }
  count_part(ch, is_write, k, n, opened, data, busy, from_arrival, last_arrival);
  if (from < r.first_lines) {
    const uint32_t in_unit = std::min(r.first_lines, from + k) - from;
    out.first_end = std::max(out.first_end, data + uint64_t{in_unit - 1} * m_slot_s + m_burst);
  }
  const uint64_t end = data + busy;
  out.end = std::max(out.end, end);
  ch.direction_lines = ch.used && ch.last_write == is_write ? ch.direction_lines + k : k;
  ch.last_write = is_write;
  ch.last_rank = rank;
  ch.used = true;
  served = k;
  if (k < n && gap == kNoRow) {
    floor = resume;
    refresh_until(ch, rank, resume);
  }
}

[[gnu::always_inline]] inline uint64_t TransactionDram::open_row(Channel& ch, uint32_t rank,
                                                                 uint32_t group, uint32_t bank,
                                                                 uint64_t row, uint64_t at) {
  Bank& b = ch.banks[bank_index(rank, group, bank)];
  Rank& rk = ch.ranks[rank];
  uint64_t act_at;
  if (b.row != kNoRow) {
    const uint64_t pre = std::max(at, b.pre_ready);
    close_bank(ch, rk, b, pre);
    ++ch.stats.row_conflicts;
    act_at = std::max(pre + m_t.RP, b.act_ready);
  } else {
    ++ch.stats.row_misses;
    act_at = std::max(at, b.act_ready);
  }
  // A refresh due by then goes first: the controller issues no ACT to a rank whose refresh
  // is due, and closes only the rows opened before.
  if (act_at >= rk.next_refresh) {
    refresh_until(ch, rank, act_at);
    act_at = std::max(act_at, b.act_ready);
  }
  const uint64_t act = place_act(rk, group, act_at, std::min(at, m_horizon));
  b.row = row;
  b.act_ready = act + m_t.RC;
  b.pre_ready = std::max(b.pre_ready, act + m_t.RAS);
  b.col_ready = std::max(b.col_ready, act + m_t.RCD);
  b.open_act = act;
  b.open_at = at;
  b.open_col = b.col_ready;
  ++ch.stats.activates;
  open_bank(rk, act);
  return b.col_ready;
}

[[gnu::always_inline]] inline uint64_t
TransactionDram::place_act(Rank& rk, uint32_t group, uint64_t at, uint64_t arrival, bool book) {
  // ACTs this old no longer constrain one of this or a later arrival: the ones kept start at
  // acts_head (dropped from the vector in bulk).
  const uint64_t reach = std::max<uint64_t>(m_t.FAW, m_t.RRD_L);
  if (rk.acts.size() - rk.acts_head > 8 && rk.acts[rk.acts_head].at + reach < arrival) {
    while (rk.acts_head < rk.acts.size() && rk.acts[rk.acts_head].at + reach < arrival)
      ++rk.acts_head;
    if (rk.acts_head >= 64) {
      rk.acts.erase(rk.acts.begin(), rk.acts.begin() + static_cast<int64_t>(rk.acts_head));
      rk.packed_from = std::max(rk.packed_from, rk.acts_head) - rk.acts_head;
      rk.packed_to = std::max(rk.packed_to, rk.acts_head) - rk.acts_head;
      rk.acts_head = 0;
    }
  }
  const Act* acts = rk.acts.data() + rk.acts_head;
  const auto n = static_cast<int64_t>(rk.acts.size() - rk.acts_head);
  if (n == 0 || acts[n - 1].at <= at) { // after every ACT booked, as most are
    const uint64_t lo = act_after(acts, n - 1, group, at);
    if (book)
      rk.acts.push_back(Act{lo, group});
    return lo;
  }
  return place_act_between(rk, group, at, book);
}

[[gnu::always_inline]] inline uint64_t
TransactionDram::act_after(const Act* acts, int64_t g, uint32_t group, uint64_t at) const {
  const auto rrd = [&](int64_t i) {
    return acts[i].at + (acts[i].group == group ? m_t.RRD_L : m_t.RRD_S);
  };
  if (g >= 3) // as most are; the ACTs go by clock, so tFAW 0 adds nothing
    return std::max(std::max(std::max(at, rrd(g)), std::max(rrd(g - 1), rrd(g - 2))),
                    acts[g - 3].at + m_t.FAW); // the new one last of five
  uint64_t lo = at;
  for (int64_t i = std::max<int64_t>(g - 2, 0); i <= g; ++i)
    lo = std::max<uint64_t>(lo, rrd(i));
  return lo;
}

uint64_t TransactionDram::place_act_between(Rank& rk, uint32_t group, uint64_t at, bool book) {
  const Act* acts = rk.acts.data() + rk.acts_head;
  const auto n = static_cast<int64_t>(rk.acts.size() - rk.acts_head);
  const auto rrd = [&](int64_t i) { return acts[i].group == group ? m_t.RRD_L : m_t.RRD_S; };
  // The gaps between booked ACTs, from the one holding `at` on: the first that takes one more
  // (tRRD from its neighbours, and every five ACTs in a row spanning tFAW) gets it.
  int64_t g =
      upper_bound_from_back(acts, acts + n, at, [](uint64_t v, const Act& a) { return v < a.at; }) -
      acts - 1;
  const uint64_t rrd_min = std::min<uint64_t>(m_t.RRD_S, m_t.RRD_L);
  for (;; ++g) {
    // The new ACT goes after acts[g] (none: g < 0) and before acts[g + 1]. A gap under two
    // tRRD from `at` or acts[g] takes none: skipped before the full test, in a tight loop
    // once acts[g] is late enough that `at` no longer matters.
    if (g >= 0 && g + 1 < n && acts[g].at + rrd_min >= at)
      g = skip_packed(rk, g, rrd_min);
    if (g >= 0 && g + 1 < n && acts[g + 1].at < std::max(at, acts[g].at + rrd_min) + rrd_min)
      continue;
    if (g + 1 >= n) { // after every ACT booked
      const uint64_t lo = act_after(acts, g, group, at);
      if (book)
        rk.acts.push_back(Act{lo, group});
      return lo;
    }
    // Five with the new one inside: the outer two must already span tFAW (tested first, it
    // rules out most gaps of a busy rank).
    bool fits = true;
    if (m_t.FAW > 0)
      for (int64_t j = std::max<int64_t>(g - 2, 0); j <= g && j + 3 < n; ++j)
        fits = fits && acts[j + 3].at - acts[j].at >= m_t.FAW;
    if (!fits)
      continue;
    const uint64_t lo = act_after(acts, g, group, at);
    uint64_t hi = UINT64_MAX;
    for (int64_t i = g + 1; i < std::min(n, g + 4); ++i)
      hi = std::min<uint64_t>(hi, acts[i].at >= rrd(i) ? acts[i].at - rrd(i) : 0);
    if (m_t.FAW > 0 && g + 4 < n)
      hi = std::min<uint64_t>(hi, acts[g + 4].at >= m_t.FAW ? acts[g + 4].at - m_t.FAW : 0);
    if (lo <= hi) {
      if (book) {
        // The packed gaps after it move one on; one it splits stays packed.
        const size_t p = rk.acts_head + static_cast<size_t>(g + 1);
        rk.acts.insert(rk.acts.begin() + static_cast<int64_t>(p), Act{lo, group});
        rk.packed_from += p <= rk.packed_from ? 1 : 0;
        rk.packed_to += p <= rk.packed_to ? 1 : 0;
      }
      return lo;
    }
  }
}

inline int64_t TransactionDram::skip_packed(Rank& rk, int64_t g, uint64_t rrd_min) {
  const Act* acts = rk.acts.data() + rk.acts_head;
  const auto n = static_cast<int64_t>(rk.acts.size() - rk.acts_head);
  const int64_t from = g;
  const size_t at = rk.acts_head + static_cast<size_t>(g);
  if (at >= rk.packed_from && at < rk.packed_to) // known packed up to packed_to
    g = static_cast<int64_t>(rk.packed_to - rk.acts_head);
  while (g + 1 < n && acts[g + 1].at < acts[g].at + 2 * rrd_min)
    ++g;
  if (g > from) { // remember them, with the ones known when they touch
    const size_t first = rk.acts_head + static_cast<size_t>(from);
    const size_t last = rk.acts_head + static_cast<size_t>(g);
    const bool touch = first <= rk.packed_to && last >= rk.packed_from;
    rk.packed_from = touch ? std::min(rk.packed_from, first) : first;
    rk.packed_to = touch ? std::max(rk.packed_to, last) : last;
  }
  return g;
}

inline void TransactionDram::refresh_until(Channel& ch, uint32_t rank, uint64_t at) {
  while (ch.ranks[rank].next_refresh <= at)
    refresh(ch, rank);
}

void TransactionDram::refresh(Channel& ch, uint32_t rank) {
  Rank& rk = ch.ranks[rank];
  const uint64_t due = rk.next_refresh;
  // PREA once every open bank may close, REF tRP later (and tRC after the last ACT).
  uint64_t prea = due;
  bool open = false;
  const uint32_t first = rank * m_spec.banks();
  for (uint32_t i = first; i < first + m_spec.banks(); ++i) {
    if (ch.banks[i].row != kNoRow) {
      prea = std::max(prea, ch.banks[i].pre_ready);
      open = true;
    }
  }
  uint64_t ref = open ? prea + m_t.RP : prea;
  for (uint32_t i = first; i < first + m_spec.banks(); ++i) {
    Bank& b = ch.banks[i];
    if (b.row != kNoRow)
      close_bank(ch, rk, b, prea);
    ref = std::max(ref, b.act_ready > m_t.RP ? b.act_ready - m_t.RP : 0);
  }
  const uint64_t end = ref + m_t.RFC;
  for (uint32_t i = first; i < first + m_spec.banks(); ++i)
    ch.banks[i].act_ready = std::max(ch.banks[i].act_ready, end);
  rk.held_from = due;
  rk.held_prea = prea;
  rk.ready_before = rk.ready_after;
  rk.ready_after = end;
  ++ch.stats.refreshes;
  ++rk.refreshes;
  rk.next_refresh = due + m_t.REFI;
}

inline void TransactionDram::close_bank(Channel& ch, Rank& rk, Bank& b, uint64_t at) {
  b.closed[b.next_closed] = OpenSpan{b.row, b.open_act, b.open_col, b.pre_ready, at};
  b.next_closed = (b.next_closed + 1) % kSpans;
  b.row = kNoRow;
  b.act_ready = std::max(b.act_ready, at + m_t.RP);
  ++ch.precharges;
  if (rk.open_banks > 0 && --rk.open_banks == 0 &&
      m_config.page_policy == DramControllerConfig::PagePolicy::Open && at > rk.open_since)
    rk.active_cycles += at - rk.open_since;
}

inline void TransactionDram::open_bank(Rank& rk, uint64_t at) {
  if (rk.open_banks++ == 0)
    rk.open_since = at;
}

DramChannelStats TransactionDram::stats() const {
  DramChannelStats sum;
  for (const Channel& ch : m_channels) {
    sum += ch.stats;
    sum.precharges += ch.precharges;
  }
  return sum;
}

DramActivity TransactionDram::activity(uint64_t end, uint64_t refreshed_until) const {
  DramActivity a;
  const bool open_page = m_config.page_policy == DramControllerConfig::PagePolicy::Open;
  const uint64_t refresh_active = m_t.RFC > m_t.RP ? m_t.RFC - m_t.RP : 0;
  for (const Channel& ch : m_channels) {
    a.activates += ch.stats.activates;
    a.precharges += ch.precharges;
    a.reads += ch.stats.reads;
    a.writes += ch.stats.writes;
    for (const Rank& rk : ch.ranks) {
      // Refreshes due by `refreshed_until` that no access of this rank brought about (the
      // first closes the banks); after it the state stays as it was then.
      const uint64_t until = std::min(end, refreshed_until);
      uint64_t pending = 0;
      if (rk.next_refresh <= until)
        pending = (until - rk.next_refresh) / m_t.REFI + 1;
      uint64_t active = rk.active_cycles;
      if (open_page && rk.open_banks > 0) {
        const uint64_t close = pending > 0 ? rk.next_refresh : end;
        active += close > rk.open_since ? close - rk.open_since : 0;
        a.precharges += pending > 0 ? rk.open_banks : 0;
      }
      const uint64_t refreshes = rk.refreshes + pending;
      a.refreshes += refreshes;
      active = std::min(end, active + refreshes * refresh_active);
      a.active_cycles += active;
      a.precharged_cycles += end - active;
    }
  }
  return a;
}

} // namespace npu
