#include "models/ddr/dram_queues.h"

#include <utility>

namespace npu {

DramQueues::DramQueues(uint32_t read_entries, uint32_t write_entries, uint32_t bank_count)
    : banks(bank_count) {
  for (auto [q, n] : {std::pair<DramQueue*, uint32_t>{&rd, read_entries},
                      std::pair<DramQueue*, uint32_t>{&wr, write_entries}}) {
    q->slots.resize(n);
    for (uint32_t i = n; i-- > 0;)
      q->free.push_back(i);
  }
}

int32_t DramQueues::push(const DramEntry& e) {
  DramQueue& q = queue(e.is_write);
  const auto slot = static_cast<int32_t>(q.free.back());
  q.free.pop_back();
  ++q.count;
  DramEntry& s = q.at(slot);
  s = e;
  s.valid = true;
  DramBankRequests& b = banks[e.bank];
  const size_t dir = e.is_write ? 1 : 0;
  s.older = b.youngest[dir];
  s.younger = -1;
  if (s.older >= 0)
    q.at(s.older).younger = slot;
  else
    b.oldest[dir] = slot;
  b.youngest[dir] = slot;
  return slot;
}

void DramQueues::remove(bool is_write, int32_t slot) {
  DramQueue& q = queue(is_write);
  DramEntry& e = q.at(slot);
  e.valid = false;
  q.free.push_back(static_cast<uint32_t>(slot));
  --q.count;
  DramBankRequests& b = banks[e.bank];
  const size_t dir = is_write ? 1 : 0;
  if (e.older >= 0)
    q.at(e.older).younger = e.younger;
  else
    b.oldest[dir] = e.younger;
  if (e.younger >= 0)
    q.at(e.younger).older = e.older;
  else
    b.youngest[dir] = e.older;
}

uint32_t DramQueues::count_row(uint32_t bank, bool is_write, uint64_t row) const {
  const DramQueue& q = queue(is_write);
  uint32_t n = 0;
  for (int32_t i = banks[bank].oldest[is_write ? 1 : 0]; i >= 0; i = q.at(i).younger)
    n += q.at(i).row == row;
  return n;
}

} // namespace npu
