#pragma once
// The progress line of a long run on a terminal: what is done of how much, the simulated
// time, the wall-clock time and an estimate of the time left.

#include <chrono>
#include <cstdint>
#include <string>

namespace npu {

/// One line on stderr, redrawn in place. It appears only when stderr is a terminal and the
/// command was not told to be quiet, and only once the run has lasted `after` (about a
/// second: a short run prints nothing); finish() erases it, so that what follows starts on
/// a clean line.
class ProgressLine {
public:
  using Clock = std::chrono::steady_clock;

  /// `what` names the units counted ("launches", "requests"). Shown when `enabled` and
  /// stderr is a terminal. The NPUSIM_PROGRESS_AFTER_MS environment variable overrides
  /// the delay (for tests).
  ProgressLine(std::string what, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// True when the line may appear: a terminal, not quiet.
  bool enabled() const { return m_enabled; }
  /// True when update() would draw now (cheap: one clock read).
  bool due() const { return m_enabled && Clock::now() >= m_next; }
  /// Redraws the line when it is due: `done` of `total` (0: not known), the simulated time
  /// in picoseconds.
  void update(uint64_t done, uint64_t total, uint64_t simulated_ps);
  /// Erases the line, if it was drawn.
  void finish();

  /// The text of the line (without the carriage return), for tests.
  static std::string text(const std::string& what, uint64_t done, uint64_t total,
                          uint64_t simulated_ps, double wall_s);

private:
  std::string m_what;
  bool m_enabled;
  bool m_drawn = false;
  Clock::time_point m_start;
  Clock::time_point m_next;
};

} // namespace npu
