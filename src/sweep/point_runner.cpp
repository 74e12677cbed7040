#include "sweep/point_runner.h"

#include "common/input_file.h"
#include "common/interrupt.h"
#include "common/json_input.h"
#include "common/output_path.h"
#include "common/process.h"
#include "common/publish.h"
#include "report/report.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace npu::sweep {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

namespace {

// The file's text, or "" when it cannot be read as an input file (missing, not a
// regular file, over the input size cap): then it holds no result to trust.
std::string slurp(const fs::path& path) {
  try {
    return read_input_file(path.string(), "a file of a sweep point");
  } catch (const InputError&) {
    return {};
  }
}

// j[key] when it is a string, else "".
std::string string_at(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// j[key] when it is a number, else 0.
double number_at(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The last line a failed child wrote to stderr, without the "npusim: " prefix.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      last = line;
  const std::string prefix = "npusim: ";
  if (last.rfind(prefix, 0) == 0)
    last = last.substr(prefix.size());
  return last;
}

std::string result_json(const PlannedPoint& point, const PointResult& r) {
  Json j;
  j["args"] = point.args;
  j["status"] = r.status;
  j["error"] = r.error;
  j["exit_code"] = r.exit_code;
  j["wall_s"] = r.wall_s;
  return j.dump(2) + "\n";
}

// Moves a finished point's folder into place, replacing an older result.
void publish(const fs::path& partial, const fs::path& final_dir) {
  if (const int error = publish_rename(partial, final_dir, true); error != 0)
    throw std::runtime_error(
        fmt::format("cannot publish point '{}': {}", final_dir.string(), std::strerror(error)));
}

int open_output(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot create '{}': {}", path.string(), std::strerror(errno)));
  return fd;
}

// Starts argv with stdout and stderr going to the two files. The child gets its own
// process group (so a timeout kills all of it) and dies with its parent.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err,
            bool search_path) {
  ChildSetup setup;
  setup.out_fd = open_output(out);
  setup.err_fd = open_output(err);
  setup.null_stdin = true;
  setup.own_group = true;
  setup.dies_with_parent = true;
  setup.search_path = search_path;
  pid_t pid = -1;
  try {
    pid = spawn_child(argv, setup);
  } catch (...) {
    ::close(setup.out_fd);
    ::close(setup.err_fd);
    throw;
  }
  ::close(setup.out_fd);
  ::close(setup.err_fd);
  return pid;
}

struct Child {
  /// Its point's position in the plan's points (a confirmation plan keeps the sweep's
  /// point numbers, so the two differ there).
  size_t point = 0;
  Clock::time_point start;
  Clock::time_point end; ///< when it was reaped
  bool timed_out = false;
  bool killed = false;
};

PointResult outcome(const Child& c, int status, const fs::path& partial, uint64_t timeout_ms) {
  PointResult r;
  r.wall_s = std::chrono::duration<double>(c.end - c.start).count();
  if (c.timed_out) {
    r.status = "timeout";
    r.error = fmt::format("timed out after {:g} s", static_cast<double>(timeout_ms) / 1000.0);
    r.exit_code = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    r.status = "crashed";
    r.error = fmt::format("crashed: signal {} ({})", sig, ::strsignal(sig));
    r.exit_code = -sig;
  } else {
    r.exit_code = WEXITSTATUS(status);
    std::error_code ec;
    if (r.exit_code == 0 && fs::exists(partial / "report.json", ec)) {
      r.status = "ok";
    } else {
      r.status = "failed";
      const std::string line = last_line(slurp(partial / "stderr.txt"));
      r.error = r.exit_code == 0
                    ? "exit 0 without a report.json"
                    : fmt::format("exit {}: {}", r.exit_code, line.empty() ? "no message" : line);
    }
  }
  return r;
}

} // namespace

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw std::runtime_error("cannot find the npusim binary: " + ec.message());
  return p.string();
}

std::optional<PointResult> read_result(const fs::path& out_dir, const PlannedPoint& point) {
  const fs::path file = out_dir / point.dir / "result.json";
  std::error_code ec;
  if (!fs::exists(file, ec))
    return std::nullopt;
  const Json j = parse_json_or_discarded(slurp(file));
  if (j.is_discarded() || !j.is_object() || !j.contains("args") || j["args"] != Json(point.args))
    return std::nullopt;
  PointResult r;
  r.status = string_at(j, "status");
  // A result.json edited or damaged by hand holds no result: the point runs again.
  static const char* const kStatuses[] = {"ok", "failed", "crashed", "timeout", "invalid"};
  if (std::find(std::begin(kStatuses), std::end(kStatuses), r.status) == std::end(kStatuses))
    return std::nullopt;
  r.error = string_at(j, "error");
  const auto code = j.find("exit_code");
  r.exit_code = code != j.end() && code->is_number_integer() && code->get<int64_t>() >= -255 &&
                        code->get<int64_t>() <= 255
                    ? static_cast<int>(code->get<int64_t>())
                    : 0;
  r.wall_s = number_at(j, "wall_s");
  return r;
}

bool salvage_finished_run(const fs::path& out_dir, const PlannedPoint& point) {
  const fs::path partial = out_dir / (point.dir + ".partial");
  std::error_code ec;
  if (fs::exists(out_dir / point.dir / "result.json", ec) ||
      !fs::exists(partial / "report.json", ec))
    return false;
  // `npusim run` renames report.json into place last, once the run has succeeded: the
  // point finished and only the sweep's own bookkeeping was cut off.
  const Json report = parse_json_or_discarded(slurp(partial / "report.json"));
  if (report.is_discarded() || !report.is_object())
    return false;
  PointResult r{"ok", "", 0, 0.0};
  r.wall_s = number_at(json_member(report, "sim"), "wall_s");
  write_file_atomically(partial / "result.json", result_json(point, r), false);
  publish(partial, out_dir / point.dir);
  return true;
}

void write_invalid_result(const fs::path& out_dir, const PlannedPoint& point) {
  const fs::path partial = out_dir / (point.dir + ".partial");
  std::error_code ec;
  fs::remove_all(partial, ec);
  fs::create_directories(partial);
  PointResult r{"invalid", point.invalid, 2, 0.0};
  write_file_atomically(partial / "result.json", result_json(point, r));
  publish(partial, out_dir / point.dir);
}

namespace {

// Runs the points of a sweep in child processes, at most `jobs` at a time, and stops them
// on an interrupt or a timeout. Signals are set up by run_points.
class PointScheduler {
public:
  using OnDone = std::function<void(const PlannedPoint&, const PointResult&)>;

  PointScheduler(const fs::path& out_dir, const Plan& plan, const std::vector<size_t>& todo,
                 const RunnerOptions& options, const OnDone& on_done)
      : m_out_dir(out_dir), m_plan(plan), m_todo(todo), m_options(options), m_on_done(on_done),
        m_jobs(static_cast<size_t>(std::max(1, options.jobs))) {}

  /// True while points are left to start (unless stopped) or children still run.
  bool busy() const { return (m_stopped_by == 0 && m_next < m_todo.size()) || !m_running.empty(); }
  int stopped_by() const { return m_stopped_by; }

  /// Starts points until `jobs` children run (with the mask the process had before it
  /// blocked anything).
  void start_more() {
    while (m_stopped_by == 0 && m_running.size() < m_jobs && m_next < m_todo.size()) {
      const size_t position = m_todo[m_next++];
      const PlannedPoint& point = m_plan.points.at(position);
      const fs::path partial = m_out_dir / (point.dir + ".partial");
      std::error_code ec;
      fs::remove_all(partial, ec);
      fs::create_directories(partial);
      std::vector<std::string> argv{m_options.exe};
      argv.insert(argv.end(), point.args.begin(), point.args.end());
      argv.insert(argv.end(), {"--out", partial.string()});
      const pid_t pid = spawn(argv, partial / "stdout.txt", partial / "stderr.txt", false);
      Child child;
      child.point = position;
      child.start = Clock::now();
      m_running[pid] = child;
    }
  }

  /// How long to sleep: until the next timeout or the next progress tick.
  std::chrono::milliseconds wait_time() const {
    auto wait = std::chrono::milliseconds(250);
    if (m_options.timeout_ms > 0)
      for (const auto& [pid, c] : m_running)
        if (!c.killed) {
          const auto left =
              c.start + std::chrono::milliseconds(m_options.timeout_ms) - Clock::now();
          wait = std::min(wait, std::max(std::chrono::milliseconds(1),
                                         std::chrono::duration_cast<std::chrono::milliseconds>(
                                             left + std::chrono::milliseconds(1))));
        }
    return wait;
  }

  /// The first signal asks the children to stop (they remove their temporary files); a
  /// second one kills them.
  void interrupt(int sig) {
    const bool again = m_stopped_by != 0;
    if (!again) {
      m_stopped_by = sig;
      m_stop_time = Clock::now();
    }
    for (auto& [pid, c] : m_running)
      if (!c.killed) {
        ::kill(-pid, again ? SIGKILL : SIGTERM);
        c.killed = again;
      }
  }

  /// Kills the children still running a grace period after a stop.
  void kill_overdue() {
    // A stopped child gets this long to remove its temporary files before it is killed.
    constexpr auto kGrace = std::chrono::seconds(10);
    if (m_stopped_by != 0 && Clock::now() - m_stop_time >= kGrace)
      for (auto& [pid, c] : m_running)
        if (!c.killed) {
          ::kill(-pid, SIGKILL);
          c.killed = true;
        }
  }

  void kill_timed_out() {
    if (m_options.timeout_ms > 0)
      for (auto& [child_pid, c] : m_running)
        if (!c.killed &&
            Clock::now() - c.start >= std::chrono::milliseconds(m_options.timeout_ms)) {
          ::kill(-child_pid, SIGKILL);
          c.killed = true;
          c.timed_out = true;
        }
  }

  /// Reaps the children that exited and publishes their points' results.
  void reap() {
    int status = 0;
    pid_t pid;
    std::vector<std::pair<Child, int>> finished;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      const auto it = m_running.find(pid);
      if (it == m_running.end())
        continue;
      Child child = it->second;
      child.end = Clock::now();
      finished.emplace_back(child, status);
      m_running.erase(it);
    }
    for (const auto& [child, child_status] : finished)
      finish(child, child_status);
  }

  /// On an error: no child may outlive the sweep.
  void kill_all() {
    for (const auto& [pid, c] : m_running) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }

private:
  void finish(const Child& child, int status) {
    const PlannedPoint& point = m_plan.points.at(child.point);
    const fs::path partial = m_out_dir / (point.dir + ".partial");
    // A killed child leaves its temporary siblings behind: none may outlive it.
    OutputPath::remove_leftovers(partial.string());
    if (m_stopped_by != 0 && !child.timed_out) {
      std::error_code ec;
      fs::remove_all(partial, ec);
      return;
    }
    const PointResult r = outcome(child, status, partial, m_options.timeout_ms);
    // Not synced: the next point waits for this write, and a result.json lost to a
    // power cut only makes a resumed sweep run its point again.
    write_file_atomically(partial / "result.json", result_json(point, r), false);
    publish(partial, m_out_dir / point.dir);
    m_on_done(point, r);
  }

  const fs::path& m_out_dir;
  const Plan& m_plan;
  const std::vector<size_t>& m_todo;
  const RunnerOptions& m_options;
  const OnDone& m_on_done;
  const size_t m_jobs;
  std::map<pid_t, Child> m_running;
  size_t m_next = 0;
  int m_stopped_by = 0;
  Clock::time_point m_stop_time;
};

} // namespace

int run_points(const fs::path& out_dir, const Plan& plan, const std::vector<size_t>& todo,
               const RunnerOptions& options,
               const std::function<void(const PlannedPoint&, const PointResult&)>& on_done,
               const std::function<void()>& on_tick) {
  // A child's exit is taken synchronously with sigtimedwait, so that it wakes the loop at
  // once. An interrupt arrives on the signal thread (catch_interrupts), which notes it and
  // wakes this thread the same way.
  static std::atomic<int> interrupt{0};
  sigset_t wait_set, old_mask;
  sigemptyset(&wait_set);
  sigaddset(&wait_set, SIGCHLD);
  ::pthread_sigmask(SIG_BLOCK, &wait_set, &old_mask);
  interrupt = 0;
  set_interrupt_handler([main = ::pthread_self()](int sig) {
    interrupt = sig;
    ::pthread_kill(main, SIGCHLD);
  });
  const auto restore = [&] {
    set_interrupt_handler({});
    ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  };

  PointScheduler points(out_dir, plan, todo, options, on_done);
  try {
    while (points.busy()) {
      points.start_more();
      const auto wait = points.wait_time();
      timespec ts{};
      ts.tv_sec = wait.count() / 1000;
      ts.tv_nsec = (wait.count() % 1000) * 1000000;
      siginfo_t info;
      ::sigtimedwait(&wait_set, &info, &ts);
      if (const int sig = interrupt.exchange(0); sig != 0)
        points.interrupt(sig);
      points.kill_overdue();
      points.reap();
      points.kill_timed_out();
      on_tick();
    }
  } catch (...) {
    points.kill_all();
    restore();
    throw;
  }
  restore();
  return points.stopped_by();
}

Captured run_capture(const std::vector<std::string>& argv, uint64_t timeout_ms) {
  Captured c;
  char dir_template[] = "/tmp/npusim-cmd.XXXXXX";
  const char* dir = nullptr;
  {
    // Made and listed for removal at once: an interrupt in between would leave it behind.
    const auto guard = lock_temp_outputs();
    dir = ::mkdtemp(dir_template);
    if (dir)
      remove_if_stopped(dir);
  }
  if (!dir) {
    c.err = fmt::format("cannot create a temporary directory: {}", std::strerror(errno));
    return c;
  }
  const fs::path out = fs::path(dir) / "out", err = fs::path(dir) / "err";
  const pid_t pid = spawn(argv, out, err, true);
  const auto start = Clock::now();
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR)
      break;
    if (Clock::now() - start > std::chrono::milliseconds(timeout_ms)) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      c.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!c.timed_out && WIFEXITED(status))
    c.exit_code = WEXITSTATUS(status);
  c.out = slurp(out);
  c.err = slurp(err);
  std::error_code ec;
  fs::remove_all(dir, ec);
  forget_if_stopped(dir);
  return c;
}

} // namespace npu::sweep
