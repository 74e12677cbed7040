#include "python/core.h"

#include "cli/app.h"
#include "cli/import_command.h"
#include "cli/limit_options.h"
#include "common/run_guard.h"
#include "models/common/fresh_context.h"
#include "platform/config_lookup.h"
#include "report/trace_writer.h"
#include "runtime/simulation.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

namespace npu::python {

PlatformConfig load_config(const std::string& path, const std::vector<std::string>& overrides,
                           const std::string& data_dir) {
  return with_kind(ErrorKind::Config,
                   [&] { return load_platform_config(find_config(path, data_dir), overrides); });
}

Testbench load_testbench_file(const std::string& path, const std::vector<std::string>& overrides) {
  return with_kind(ErrorKind::Testbench, [&] { return load_testbench(path, overrides); });
}

Testbench load_testbench_from_text(const std::string& text, const std::string& origin,
                                   const std::vector<std::string>& overrides) {
  return with_kind(ErrorKind::Testbench,
                   [&] { return load_testbench_text(text, origin, overrides); });
}

onnx_import::ImportResult import_model(const std::string& path,
                                       const onnx_import::ImportOptions& options) {
  return with_kind(ErrorKind::Model, [&] { return import_checked(path, options); });
}

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void note_sigint(int) {
  g_interrupted = true;
}

// While it lives, SIGINT only sets g_interrupted (the run's watch sees it); the handler
// that was there before (Python's) comes back afterwards.
class SigintCatcher {
public:
  explicit SigintCatcher(bool enabled) : m_enabled(enabled) {
    g_interrupted = false;
    if (!m_enabled)
      return;
    struct sigaction action = {};
    action.sa_handler = note_sigint;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &m_former);
  }
  ~SigintCatcher() {
    if (m_enabled)
      ::sigaction(SIGINT, &m_former, nullptr);
  }
  SigintCatcher(const SigintCatcher&) = delete;
  SigintCatcher& operator=(const SigintCatcher&) = delete;

private:
  bool m_enabled;
  struct sigaction m_former = {};
};

// The limits a RunGuard enforces on the command line, as the message that ends the run
// (empty while none is passed); an interrupt ends it too.
std::function<std::string()> make_watch(const SimLimits& limits) {
  const RunGuardLimits guard = run_guard_limits(limits);
  const auto start = std::chrono::steady_clock::now();
  return [guard, start] {
    // The messages are the command line's lines; a SimulationError holds what follows
    // "npusim: error: ".
    constexpr size_t kPrefix = sizeof("npusim: error: ") - 1;
    if (g_interrupted)
      return std::string("interrupted");
    if (guard.memory_bytes > 0 && resident_bytes() > guard.memory_bytes)
      return guard.memory_message.substr(kPrefix);
    const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - start);
    if (guard.wall_time_ps > 0 &&
        static_cast<uint64_t>(elapsed.count()) >= guard.wall_time_ps / 1000)
      return guard.wall_time_message.substr(kPrefix);
    return std::string();
  };
}

// SystemC keeps one current context per process.
std::mutex g_run_mutex;

} // namespace

RunOutcome run(const PlatformConfig& config, const Testbench& tb, const RunRequest& request) {
  const std::lock_guard<std::mutex> lock(g_run_mutex);
  with_kind(ErrorKind::Testbench, [&] { check_testbench(tb, config); });
  RunOptions options;
  options.trace_path = request.trace_path;
  options.trace_limit = request.trace_limit;
  options.trace_sample = request.trace_sample;
  const std::unique_ptr<ChromeTraceWriter> trace = make_trace_writer(options, config);
  RunOutcome out;
  {
    const SigintCatcher sigint(request.catch_sigint);
    const FreshSimContext context;
    Simulation sim(config);
    sim.set_tracer(trace.get());
    sim.set_watch(make_watch(config.limits));
    try {
      out.report = sim.run([&tb](Runtime& rt) { run_testbench(rt, tb); });
    } catch (const SimulationError&) {
      if (g_interrupted)
        throw Interrupted();
      throw;
    }
  }
  if (g_interrupted) // a run shorter than the watch's first look still gives way to Ctrl-C
    throw Interrupted();
  out.report.testbench_name = tb.name;
  out.report.testbench_file = tb.file;
  out.report.testbench = tb.document;
  out.document = to_json(out.report);
  if (trace)
    trace->commit(out.report.simulated_ps);
  return out;
}

} // namespace npu::python
