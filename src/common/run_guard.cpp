#include "common/run_guard.h"

#include "common/interrupt.h"

#include <unistd.h>

#include <chrono>
#include <fstream>

namespace npu {

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages))
    return 0;
  return resident_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

RunGuard::RunGuard(RunGuardLimits limits) : m_limits(std::move(limits)) {
  m_limits.memory_message += "\n";
  m_limits.wall_time_message += "\n";
  m_thread = std::thread([this] { watch(); });
}

RunGuard::~RunGuard() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void RunGuard::stop(const std::string& message) {
  remove_temp_outputs_for_exit(); // a stopped run leaves no partial output behind
  if (::write(STDERR_FILENO, message.data(), message.size()) < 0) {
    // Nothing more to say: exit all the same.
  }
  _exit(2);
}

void RunGuard::watch() {
  // Often enough that growth between two looks stays small next to any sensible limit.
  constexpr auto kPeriod = std::chrono::milliseconds(20);
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_wake.wait_for(lock, kPeriod, [this] { return m_stop; })) {
    if (m_limits.memory_bytes > 0 && resident_bytes() > m_limits.memory_bytes)
      stop(m_limits.memory_message);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (m_limits.wall_time_ps > 0 &&
        static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()) >=
            m_limits.wall_time_ps / 1000)
      stop(m_limits.wall_time_message);
  }
}

} // namespace npu
