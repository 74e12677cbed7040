#pragma once

#include <systemc>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace npu {

/// Stops a run whose simulated time stands still while the kernel keeps running processes:
/// a loop of zero-time waits or notifications that --max-sim-time can never reach. While a
/// run lasts (start() to stop()), a background thread watches it every few hundred
/// milliseconds of wall time. It reads the kernel's simulated time and delta count without
/// entering the simulation, so that a run that makes progress is never touched: a request
/// into the kernel (async_request_update) is itself pending activity, which a block asking
/// the kernel for it (the DMA engine's look-ahead) would see at a wall-clock instant, making
/// the results depend on the machine's speed. Only when `max_deltas` delta cycles have passed
/// without simulated time advancing, or when the watch asks to stop, does the thread ask
/// for a look; the look runs in the simulation (between two delta cycles), checks again and
/// ends the run the way a failed process does (guarded(): a SimulationError, then sc_pause)
/// with a message that says where time stopped and, from `describe`, what the platform was
/// doing.
class ProgressMonitor : public sc_core::sc_prim_channel {
public:
  /// More delta cycles at one instant than any real workload needs (a launch takes a few).
  static constexpr uint64_t kMaxDeltas = 1'000'000;

  explicit ProgressMonitor(std::function<std::string()> describe, uint64_t max_deltas = kMaxDeltas);
  ~ProgressMonitor() override;
  ProgressMonitor(const ProgressMonitor&) = delete;
  ProgressMonitor& operator=(const ProgressMonitor&) = delete;

  /// Calls `look` every period from the watching thread with the simulated time (read
  /// outside the simulation: a progress line); whatever it reads must be safe to read there.
  void set_on_look(std::function<void(uint64_t sim_ps)> look) { m_on_look = std::move(look); }

  /// Starts and stops the background thread (around sc_start).
  void start();
  void stop();
  /// Asked every period from the watching thread: a non-empty answer ends the run (at the
  /// next look, in the simulation) the way a standstill does, with that message. For an
  /// embedding program's own limits (a wall-clock limit, an interrupt) where ending the
  /// process is not an option.
  void set_watch(std::function<std::string()> watch) { m_watch = std::move(watch); }

private:
  void update() override;
  void tick();

  std::function<std::string()> m_describe;
  std::function<void(uint64_t)> m_on_look;
  std::function<std::string()> m_watch;
  uint64_t m_max_deltas;
  // Written by the watching thread under m_mutex, read by the look.
  uint64_t m_time_ps = ~uint64_t{0}; ///< simulated time at the last sample
  uint64_t m_deltas = 0;             ///< delta count when time last moved
  std::string m_stop_message;        ///< the watch's answer, when it asked to stop
  bool m_look_asked = false;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

} // namespace npu
