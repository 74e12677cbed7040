#include "models/icache/tag_store.h"

#include <stdexcept>

namespace npu {

TagStore::TagStore(uint64_t size_bytes, uint64_t line_bytes, uint32_t ways)
    : m_line_bytes(line_bytes), m_line_shift(static_cast<uint32_t>(__builtin_ctzll(line_bytes))),
      m_sets(size_bytes / (line_bytes * ways)), m_ways(ways), m_ways_storage(m_sets * ways) {
  const auto pow2 = [](uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
  if (!pow2(line_bytes) || !pow2(m_sets))
    throw std::invalid_argument("TagStore: line size and set count must be powers of two");
}

TagStore::Way* TagStore::find(uint64_t line) {
  return const_cast<Way*>(static_cast<const TagStore*>(this)->find(line));
}

const TagStore::Way* TagStore::find(uint64_t line) const {
  const uint64_t set = line & (m_sets - 1); // sets is a power of two
  const Way* base = &m_ways_storage[set * m_ways];
  for (uint32_t w = 0; w < m_ways; ++w)
    if (base[w].valid && base[w].tag == line)
      return &base[w];
  return nullptr;
}

void TagStore::settle_ages() {
  if (m_pending == kNoRun)
    return;
  uint64_t age = m_pending_base;
  for (const uint32_t w : m_runs[m_pending].ways)
    m_ways_storage[w].last_use = ++age;
  m_pending = kNoRun;
}

bool TagStore::lookup(uint64_t addr) {
  settle_ages();
  Way* way = find(addr >> m_line_shift);
  if (!way)
    return false;
  way->last_use = ++m_clock;
  return true;
}

bool TagStore::touch_all(uint64_t addr, uint64_t lines) {
  const uint64_t first = addr >> m_line_shift;
  for (uint32_t k = 0; k < 2; ++k) {
    const Run& run = m_runs[k];
    if (run.inserts == m_inserts && run.first_line == first && run.lines == lines) {
      if (m_pending != k) // a pending touch of the same run is overwritten whole
        settle_ages();
      m_pending = k;
      m_pending_base = m_clock;
      m_clock += run.ways.size();
      return true;
    }
  }
  settle_ages();
  Run& run = m_runs[m_next_run];
  run.ways.clear();
  for (uint64_t i = 0; i < lines; ++i) {
    const Way* way = find(first + i);
    if (!way) {
      run.inserts = UINT64_MAX; // the partial run is no memo
      return false;
    }
    run.ways.push_back(static_cast<uint32_t>(way - m_ways_storage.data()));
  }
  for (const uint32_t w : run.ways)
    m_ways_storage[w].last_use = ++m_clock;
  run.first_line = first;
  run.lines = lines;
  run.inserts = m_inserts;
  m_next_run = (m_next_run + 1) % 2;
  return true;
}

bool TagStore::contains(uint64_t addr) const {
  return find(addr >> m_line_shift) != nullptr;
}

bool TagStore::insert(uint64_t addr) {
  settle_ages();
  const uint64_t line = addr >> m_line_shift;
  if (Way* way = find(line)) {
    way->last_use = ++m_clock;
    return false;
  }
  ++m_inserts;
  Way* base = &m_ways_storage[(line & (m_sets - 1)) * m_ways];
  Way* victim = base;
  for (uint32_t w = 0; w < m_ways; ++w) {
    if (!base[w].valid) {
      victim = &base[w];
      break;
    }
    if (base[w].last_use < victim->last_use)
      victim = &base[w];
  }
  const bool evicted = victim->valid;
  victim->valid = true;
  victim->tag = line;
  victim->last_use = ++m_clock;
  return evicted;
}

void TagStore::clear() {
  m_pending = kNoRun;
  ++m_inserts;
  for (auto& w : m_ways_storage)
    w = Way{};
}

} // namespace npu
