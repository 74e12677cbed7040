#pragma once

#include "common/interrupt.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace npu {

/// Resident memory of this process in bytes (from /proc/self/statm; 0 where unknown).
uint64_t resident_bytes();

/// What a RunGuard enforces: a cap and the one line to print when it is passed.
struct RunGuardLimits {
  uint64_t memory_bytes = 0; ///< resident memory (0: unwatched)
  std::string memory_message;
  uint64_t wall_time_ps = 0; ///< wall-clock time since the guard was made (0: unwatched)
  std::string wall_time_message;
};

/// Watches this process's resident memory and the wall-clock time from a background thread
/// while it lives. When either passes its limit, the guard prints that limit's message (one
/// line) on stderr, removes the temporary outputs (remove_if_stopped, see interrupt.h) and ends the
/// process at once with exit code 2: a run that would take the machine down, or that the user would
/// wait on for hours, stops before it does, wherever it is (in the simulation, or planning
/// before it). Callers write their outputs only after the guard is gone, so a stopped run
/// leaves none behind.
class RunGuard {
public:
  explicit RunGuard(RunGuardLimits limits);
  ~RunGuard();
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

private:
  void watch();
  [[noreturn]] static void stop(const std::string& message);

  RunGuardLimits m_limits;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

} // namespace npu
