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

} // namespace npu
