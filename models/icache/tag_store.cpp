#include "models/icache/tag_store.h"

namespace npu {

TagStore::TagStore(uint64_t size_bytes, uint64_t line_bytes, uint32_t ways)
    : m_line_bytes(line_bytes), m_sets(size_bytes / (line_bytes * ways)), m_ways(ways),
      m_ways_storage(m_sets * ways) {}

TagStore::Way* TagStore::find(uint64_t line) {
  return const_cast<Way*>(static_cast<const TagStore*>(this)->find(line));
}

const TagStore::Way* TagStore::find(uint64_t line) const {
  const uint64_t set = line % m_sets;
  const Way* base = &m_ways_storage[set * m_ways];
  for (uint32_t w = 0; w < m_ways; ++w)
    if (base[w].valid && base[w].tag == line)
      return &base[w];
  return nullptr;
}

bool TagStore::lookup(uint64_t addr) {
  Way* way = find(addr / m_line_bytes);
  if (!way)
    return false;
  way->last_use = ++m_clock;
  return true;
}

bool TagStore::contains(uint64_t addr) const {
  return find(addr / m_line_bytes) != nullptr;
}

bool TagStore::insert(uint64_t addr) {
  const uint64_t line = addr / m_line_bytes;
  if (Way* way = find(line)) {
    way->last_use = ++m_clock;
    return false;
  }
  Way* base = &m_ways_storage[(line % m_sets) * m_ways];
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
  for (auto& w : m_ways_storage)
    w = Way{};
}

} // namespace npu
