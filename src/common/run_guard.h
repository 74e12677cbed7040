#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace npu {

/// Temporary outputs to delete if the process is ended at once (by a MemoryGuard): a
/// writer registers its temporary file or directory while it exists and forgets it once
/// it is renamed into place or removed.
void remove_if_stopped(const std::string& path);
void forget_if_stopped(const std::string& path);

/// Resident memory of this process in bytes (from /proc/self/statm; 0 where unknown).
uint64_t resident_bytes();

/// Watches this process's resident memory from a background thread while it lives. When
/// it passes `limit_bytes`, the guard prints `message` (one line) on stderr and ends the
/// process at once with exit code 2: a run that would take the machine down stops before it
/// does. Callers write their outputs only after the guard is gone, so a stopped run leaves
/// none behind.
class MemoryGuard {
public:
  MemoryGuard(uint64_t limit_bytes, std::string message);
  ~MemoryGuard();
  MemoryGuard(const MemoryGuard&) = delete;
  MemoryGuard& operator=(const MemoryGuard&) = delete;

private:
  void watch();

  uint64_t m_limit_bytes;
  std::string m_message;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

} // namespace npu
