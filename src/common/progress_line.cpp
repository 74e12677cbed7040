#include "common/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace npu {

namespace {

constexpr auto kRedraw = std::chrono::milliseconds(250);

std::chrono::milliseconds first_delay() {
  if (const char* env = std::getenv("NPUSIM_PROGRESS_AFTER_MS"); env != nullptr && *env != '\0')
    return std::chrono::milliseconds(std::strtoul(env, nullptr, 10));
  return std::chrono::milliseconds(1000);
}

// "1:05" or "2:03:04".
std::string clock_text(double seconds) {
  const auto s = static_cast<unsigned long long>(seconds + 0.5);
  char text[48];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%llu:%02llu", s / 60, s % 60);
  return text;
}

// Simulated time in the largest unit that keeps it readable: "12.345 us", "1.234 s".
std::string sim_text(uint64_t ps) {
  static const std::pair<const char*, double> kUnits[] = {
      {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}};
  char text[48];
  for (const auto& [unit, scale] : kUnits)
    if (static_cast<double>(ps) >= scale) {
      std::snprintf(text, sizeof text, "%.3f %s", static_cast<double>(ps) / scale, unit);
      return text;
    }
  std::snprintf(text, sizeof text, "%llu ps", static_cast<unsigned long long>(ps));
  return text;
}

} // namespace

ProgressLine::ProgressLine(std::string what, bool enabled)
    : m_what(std::move(what)), m_enabled(enabled && ::isatty(2) == 1), m_start(Clock::now()),
      m_next(m_start + first_delay()) {}

ProgressLine::~ProgressLine() {
  finish();
}

std::string ProgressLine::text(const std::string& what, uint64_t done, uint64_t total,
                               uint64_t simulated_ps, double wall_s) {
  std::string line = "npusim: " + std::to_string(done);
  if (total > 0)
    line += "/" + std::to_string(total);
  line += " " + what;
  if (total > 0) {
    char percent[16];
    std::snprintf(percent, sizeof percent, " (%.1f%%)",
                  100.0 * static_cast<double>(done) / static_cast<double>(total));
    line += percent;
  }
  line += ", simulated " + sim_text(simulated_ps) + ", wall " + clock_text(wall_s);
  if (total > 0 && done > 0 && done <= total)
    line += ", about " +
            clock_text(wall_s / static_cast<double>(done) * static_cast<double>(total - done)) +
            " left";
  return line;
}

void ProgressLine::update(uint64_t done, uint64_t total, uint64_t simulated_ps) {
  const Clock::time_point now = Clock::now();
  if (!m_enabled || now < m_next)
    return;
  m_next = now + kRedraw;
  const double wall_s = std::chrono::duration<double>(now - m_start).count();
  // Erase to the end of the line: a shorter line leaves nothing of the longer one before.
  const std::string line = "\r" + text(m_what, done, total, simulated_ps, wall_s) + "\x1b[K";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  m_drawn = true;
}

void ProgressLine::finish() {
  if (!m_drawn)
    return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  m_drawn = false;
}

} // namespace npu
