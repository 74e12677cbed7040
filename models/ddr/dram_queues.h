#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu {

/// Row outcome of a request, set by the first command it needs: RD/WR (hit), ACT (miss:
/// bank closed) or PRE (conflict: another row open).
enum class DramOutcome : uint8_t { Unknown, Hit, Miss, Conflict };

/// A request waiting in a controller queue.
struct DramEntry {
  uint64_t id = 0;
  uint64_t arrival = 0;
  uint64_t seq = 0; ///< acceptance order: smaller is older
  uint64_t row = 0;
  uint32_t bank = 0; ///< flat index (DramTimingState)
  uint32_t column = 0;
  int32_t older = -1, younger = -1; ///< neighbours in the bank's list (slots of this queue)
  DramOutcome outcome = DramOutcome::Unknown;
  bool is_write = false;
  bool valid = false;
};

/// A request queue with stable slots, so a scheduler can point at its candidates.
struct DramQueue {
  std::vector<DramEntry> slots;
  std::vector<uint32_t> free;
  uint32_t count = 0;

  const DramEntry& at(int32_t slot) const { return slots[static_cast<size_t>(slot)]; }
  DramEntry& at(int32_t slot) { return slots[static_cast<size_t>(slot)]; }
};

/// One bank's queued requests.
struct DramBankRequests {
  /// This bank's requests in each queue, oldest first: [0] reads, [1] writes (slots).
  std::array<int32_t, 2> oldest{-1, -1}, youngest{-1, -1};
  uint32_t hits_rd = 0, hits_wr = 0; ///< queued requests (both queues) to the open row
  /// The request whose ACT opened the row (slot in the queue of `opener_write`) until its
  /// RD/WR issues or the row closes, or -1. A mode switch does not take the row from it.
  int32_t opener = -1;
  bool opener_write = false;
};

/// A channel's read and write queues, each bank's requests linked oldest first, and which
/// queue is served. The controller changes them; schedulers read them.
struct DramQueues {
  DramQueue rd, wr;
  std::vector<DramBankRequests> banks;
  bool write_mode = false; ///< the write queue is served

  DramQueues(uint32_t read_entries, uint32_t write_entries, uint32_t bank_count);
  DramQueue& queue(bool is_write) { return is_write ? wr : rd; }
  const DramQueue& queue(bool is_write) const { return is_write ? wr : rd; }
  const DramQueue& active() const { return queue(write_mode); }
  /// Puts `e` into a free slot of its queue, last in its bank's list; returns the slot.
  int32_t push(const DramEntry& e);
  /// Frees the slot of a request of queue `is_write` and unlinks it from its bank's list.
  void remove(bool is_write, int32_t slot);
  /// Queued requests of `bank` in queue `is_write` to `row`.
  uint32_t count_row(uint32_t bank, bool is_write, uint64_t row) const;
};

// Inline: the controller calls these for every request.
inline int32_t DramQueues::push(const DramEntry& e) {
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

inline void DramQueues::remove(bool is_write, int32_t slot) {
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

inline uint32_t DramQueues::count_row(uint32_t bank, bool is_write, uint64_t row) const {
  const DramQueue& q = queue(is_write);
  uint32_t n = 0;
  for (int32_t i = banks[bank].oldest[is_write ? 1 : 0]; i >= 0; i = q.at(i).younger)
    n += q.at(i).row == row;
  return n;
}

} // namespace npu
