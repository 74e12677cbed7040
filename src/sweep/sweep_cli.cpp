#include "sweep/sweep_cli.h"

#include "common/error.h"
#include "common/escape.h"
#include "common/input_file.h"
#include "common/interrupt.h"
#include "common/json_input.h"
#include "common/output_path.h"
#include "common/publish.h"
#include "config/units.h"
#include "sweep/plan_check.h"
#include "sweep/point_runner.h"
#include "sweep/sweep_confirm.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_results.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

namespace npu::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;

int default_jobs() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  return std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
}

// Milliseconds of a duration option such as "30s"; throws InputError naming the option.
uint64_t duration_ms(const std::string& option, const std::string& text) {
  std::string error;
  const auto ps = units::parse_time_ps(text, &error);
  // A duration too large to read is outside the range, which the message says.
  if (!ps && error.find("is too large") != std::string::npos)
    throw InputError(SourceLoc{option + " " + text, 0, 0}, option,
                     "must be at most " +
                         units::format_time_ps(std::numeric_limits<uint64_t>::max()) + ", got " +
                         text);
  if (!ps)
    throw InputError(SourceLoc{option + " " + text, 0, 0}, option, error);
  return *ps / 1000000000ull;
}

// Holds DIR/.lock for the life of the command, so that two sweeps never share a folder.
class DirLock {
public:
  explicit DirLock(const fs::path& dir) {
    const fs::path file = dir / ".lock";
    m_fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0 || ::flock(m_fd, LOCK_EX | LOCK_NB) != 0)
      throw InputError(SourceLoc{dir.string(), 0, 0}, "",
                       "another npusim sweep is using this output directory");
  }
  ~DirLock() {
    if (m_fd >= 0)
      ::close(m_fd);
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

private:
  int m_fd = -1;
};

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

// Progress on stderr: a bar redrawn in place on a terminal, one line per point otherwise.
class Progress {
public:
  Progress(size_t total, size_t done, size_t failed)
      : m_total(total), m_done(done), m_failed(failed), m_start_done(done), m_tty(::isatty(2) == 1),
        m_start(Clock::now()) {}

  void point_done(const PlannedPoint& point, const PointResult& r) {
    ++m_done;
    if (r.status != "ok")
      ++m_failed;
    if (m_tty) {
      draw();
      return;
    }
    std::string params;
    for (const auto& [key, value] : point.parameters)
      params += " " + key + "=" + value;
    std::cerr << escape(fmt::format("sweep: {}/{} {} {} {:.2f} s {}{}{}", m_done, m_total,
                                    point.dir, r.status, r.wall_s, point.testbench, params,
                                    r.error.empty() ? "" : ": " + r.error))
              << "\n";
  }

  /// Sets the counts from outside (a Slurm job's folders).
  void set(size_t done, size_t failed) {
    const bool changed = done != m_done || failed != m_failed;
    m_done = done;
    m_failed = failed;
    if (m_tty)
      draw();
    else if (changed)
      std::cerr << fmt::format("sweep: {}/{} done, {} failed\n", m_done, m_total, m_failed);
  }

  void tick() {
    if (m_tty && Clock::now() - m_drawn > std::chrono::milliseconds(500))
      draw();
  }

  void finish() {
    if (m_tty && m_drawn != Clock::time_point{})
      std::cerr << "\n";
  }

private:
  void draw() {
    constexpr size_t kWidth = 30;
    const size_t filled = m_total ? m_done * kWidth / m_total : kWidth;
    const double elapsed = std::chrono::duration<double>(Clock::now() - m_start).count();
    const size_t ran = m_done - m_start_done;
    const std::string eta = ran == 0 ? "--:--"
                                     : clock_text(elapsed / static_cast<double>(ran) *
                                                  static_cast<double>(m_total - m_done));
    std::cerr << fmt::format("\rsweep [{}{}] {}/{} done, {} failed, ETA {}   ",
                             std::string(filled, '#'), std::string(kWidth - filled, '.'), m_done,
                             m_total, m_failed, eta)
              << std::flush;
    m_drawn = Clock::now();
  }

  size_t m_total, m_done, m_failed, m_start_done;
  bool m_tty;
  Clock::time_point m_start;
  Clock::time_point m_drawn{};
};

Plan read_plan(const fs::path& dir, bool runs_points) {
  const fs::path file = dir / "plan.json";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec)))
    throw InputError(SourceLoc{dir.string(), 0, 0}, "",
                     "not a sweep output directory: it has no plan.json");
  const auto j =
      parse_json_input(read_input_file(file.string(), "the plan.json of an npusim sweep"),
                       file.string(), "the plan.json of an npusim sweep");
  Plan plan;
  try {
    plan = plan_from_json(j);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(SourceLoc{file.string(), 0, 0}, "",
                     std::string("not a sweep plan: ") + e.what());
  }
  check_plan(plan, dir, runs_points);
  return plan;
}

// Counts points with a result among `points`.
std::pair<size_t, size_t> count_results(const fs::path& dir, const Plan& plan,
                                        const std::vector<size_t>& points) {
  size_t done = 0, failed = 0;
  for (const size_t i : points)
    if (const auto r = read_result(dir, plan.points[i])) {
      ++done;
      failed += r->status == "ok" ? 0 : 1;
    }
  return {done, failed};
}

int report_merge(const fs::path& dir, const Plan& plan) {
  const MergeCounts c = merge_results(dir, plan);
  std::cout << escape(fmt::format("sweep {}: {} points, {} ok, {} failed, {} missing; results in "
                                  "{} and {}",
                                  plan.name, plan.points.size(), c.ok, c.failed, c.missing,
                                  (dir / "results.csv").string(), (dir / "results.json").string()))
            << "\n";
  return kExitOk;
}

template <typename F> int guarded(F&& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "npusim: " << escape(e.what()) << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "npusim: error: " << escape(e.what()) << "\n";
    return kExitInternal;
  }
}

} // namespace

SweepCommand::SweepCommand(CLI::App& app) {
  m_sweep = app.add_subcommand(
      "sweep", "run a sweep file's points in parallel and merge their results into DIR");
  m_sweep->add_option("file", m_file, "sweep file (YAML)");
  m_sweep->add_option("--out", m_out_dir, "output directory (created; re-run to resume)")
      ->type_name("DIR");
  m_sweep->add_option("--jobs", m_jobs, "points run at once (default: the cores)")
      ->check(CLI::Range(1, 4096));
  m_sweep->add_option("--timeout", m_timeout, "wall-clock limit of one point, e.g. 60s")
      ->type_name("DURATION");
  m_sweep->add_flag("--retry-failed", m_retry_failed,
                    "run failed, crashed and timed-out points again");
  m_sweep->add_option("--launcher", m_launcher, "local (default) or slurm")
      ->check(CLI::IsMember({"local", "slurm"}));
  m_sweep->add_option("--partition", m_slurm.partition, "slurm: partition of the job");
  m_sweep->add_option("--time-limit", m_slurm.time_limit,
                      "slurm: time limit of one array task, in sbatch's format (e.g. 10:00)");
  m_sweep
      ->add_option("--sbatch-arg", m_slurm.sbatch_args,
                   "slurm: one more sbatch argument, e.g. --sbatch-arg=--mem=2G")
      ->allow_extra_args(false);
  m_sweep
      ->add_option("--points-per-task", m_slurm.points_per_task,
                   "slurm: points per array task (default: at most 100 tasks)")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  m_sweep->add_flag("--no-wait", m_no_wait,
                    "slurm: return after submitting; merge later with `sweep collect DIR`");
  m_sweep->add_option("--confirm", m_confirm,
                      "rerun the N best points (by the objective) of a `fidelity: transaction` "
                      "sweep at fidelity cycle and print both figures and their difference");
  m_sweep->add_option("--poll", m_poll, "slurm: how often to ask squeue (default 5s)")
      ->type_name("DURATION");

  m_collect = m_sweep->add_subcommand("collect", "merge the point results of DIR again");
  m_collect->add_option("dir", m_dir, "sweep output directory")->required();

  m_worker = m_sweep->add_subcommand("worker", "run one chunk of DIR's points (a Slurm task)");
  m_worker->add_option("dir", m_dir, "sweep output directory")->required();
  m_worker->add_option("--chunk", m_chunk, "chunk number (the array task id)")->required();
}

int SweepCommand::run() {
  if (m_collect->parsed())
    return guarded([&] { return run_collect(); });
  if (m_worker->parsed())
    return guarded([&] { return run_worker(); });
  return guarded([&] { return run_sweep(); });
}

namespace {

// The points a (resumed) sweep still has to run, and how many are already done.
struct PendingPoints {
  std::vector<size_t> todo;
  size_t done = 0, failed = 0;
};

// Finished points are kept; a point is finished when its folder has a result.
PendingPoints find_pending_points(const fs::path& dir, const Plan& plan, bool retry_failed) {
  PendingPoints pending;
  for (const auto& point : plan.points) {
    // What an interrupted or killed sweep left: the point's temporary siblings, its lock.
    OutputPath::remove_leftovers((dir / (point.dir + ".partial")).string());
    salvage_finished_run(dir, point);
    const std::optional<PointResult> r = read_result(dir, point);
    const bool retry = r && retry_failed && r->status != "ok" && r->status != "invalid";
    if (r && !retry) {
      ++pending.done;
      pending.failed += r->status == "ok" ? 0 : 1;
    } else if (!point.invalid.empty()) {
      write_invalid_result(dir, point);
      ++pending.done;
      ++pending.failed;
    } else {
      pending.todo.push_back(point.index);
    }
  }
  return pending;
}

int run_local(const fs::path& dir, const Plan& plan, const PendingPoints& pending, int jobs,
              uint64_t timeout_ms) {
  std::cerr << escape(fmt::format("sweep {}: {} points, {} to run with {} job{}", plan.name,
                                  plan.points.size(), pending.todo.size(), jobs,
                                  jobs == 1 ? "" : "s"))
            << "\n";
  Progress progress(plan.points.size(), pending.done, pending.failed);
  const int stopped_by = run_points(
      dir, plan, pending.todo, RunnerOptions{self_exe(), jobs, timeout_ms},
      [&](const PlannedPoint& p, const PointResult& r) { progress.point_done(p, r); },
      [&] { progress.tick(); });
  progress.finish();
  report_merge(dir, plan);
  if (stopped_by != 0) {
    std::cerr << "npusim: sweep interrupted; run the same command again to resume\n";
    end_by_signal(stopped_by);
  }
  return kExitOk;
}

int run_slurm(const fs::path& dir, const Plan& plan, const PendingPoints& pending,
              const SlurmOptions& slurm, bool no_wait) {
  if (pending.todo.empty())
    return report_merge(dir, plan);
  const auto chunks = make_chunks(pending.todo, slurm.points_per_task);
  const std::string job = submit_job(dir, plan.name, plan.cwd, chunks, slurm);
  std::cerr << fmt::format("sweep {}: {} points, {} submitted as Slurm job {} ({} array task{})\n",
                           escape(plan.name), plan.points.size(), pending.todo.size(), job,
                           chunks.size(), chunks.size() == 1 ? "" : "s");
  if (no_wait) {
    std::cout << fmt::format("submitted Slurm job {}; when it has ended, merge its results with: "
                             "npusim sweep collect {}\n",
                             job, dir.string());
    return kExitOk;
  }
  Progress progress(plan.points.size(), pending.done, pending.failed);
  wait_for_job(job, slurm.poll_ms, [&] {
    const auto [now_done, now_failed] = count_results(dir, plan, pending.todo);
    progress.set(pending.done + now_done, pending.failed + now_failed);
  });
  progress.finish();
  return report_merge(dir, plan);
}

} // namespace

uint64_t SweepCommand::check_sweep_options() {
  const bool slurm = m_launcher == "slurm";
  for (const auto& [given, name] : {std::pair{!m_slurm.partition.empty(), "--partition"},
                                    std::pair{!m_slurm.time_limit.empty(), "--time-limit"},
                                    std::pair{!m_slurm.sbatch_args.empty(), "--sbatch-arg"},
                                    std::pair{m_slurm.points_per_task != 0, "--points-per-task"},
                                    std::pair{m_no_wait, "--no-wait"}})
    if (given && !slurm)
      throw InputError(std::string(name) + " needs --launcher slurm");
  if (slurm && m_jobs != 0)
    throw InputError("--jobs is for the local launcher; Slurm runs one point per array task "
                     "at a time (see --points-per-task)");

  const uint64_t timeout_ms = m_timeout.empty() ? 0 : duration_ms("--timeout", m_timeout);
  if (!m_timeout.empty() && timeout_ms == 0)
    throw InputError(SourceLoc{"--timeout " + m_timeout, 0, 0}, "--timeout",
                     "must be at least 1ms");
  m_slurm.poll_ms = std::max<uint64_t>(100, duration_ms("--poll", m_poll));
  return timeout_ms;
}

int SweepCommand::run_sweep() {
  if (m_file.empty() || m_out_dir.empty())
    throw InputError("sweep: expected a sweep file and --out DIR (or `sweep collect DIR`)");
  const uint64_t timeout_ms = check_sweep_options();
  const Spec spec = load_spec(m_file);
  if (m_confirm > 0 && spec.fidelity != "transaction")
    throw InputError(SourceLoc{m_file, 0, 0}, "--confirm",
                     "reruns the best points of a transaction-level sweep at fidelity cycle; "
                     "this sweep runs at fidelity " +
                         spec.fidelity + " (add `fidelity: transaction` to it)");
  if (m_confirm > 0 && m_launcher != "local")
    throw InputError("--confirm needs the local launcher");
  const Plan plan = make_plan(spec, timeout_ms);

  const fs::path dir = fs::absolute(m_out_dir).lexically_normal();
  const SweepOutputs outputs("--out", dir, {"plan.json", "results.csv", "results.json", ".lock"},
                             {"points", "slurm"});
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw InputError(SourceLoc{m_out_dir, 0, 0}, "--out",
                     "cannot create the output directory: " + ec.message());
  DirLock lock(dir);
  check_plan(plan, dir, true); // a resumed sweep's folders are checked as a read plan's are
  write_file_atomically(dir / "plan.json", plan_to_json(plan).dump(2) + "\n");

  const PendingPoints pending = find_pending_points(dir, plan, m_retry_failed);
  if (m_launcher == "slurm")
    return run_slurm(dir, plan, pending, m_slurm, m_no_wait);
  const int jobs = m_jobs > 0 ? m_jobs : default_jobs();
  const int code = run_local(dir, plan, pending, jobs, timeout_ms);
  if (m_confirm == 0 || code != kExitOk)
    return code;
  const int stopped_by =
      confirm_best(dir, plan, m_confirm, RunnerOptions{self_exe(), jobs, timeout_ms}, std::cout);
  if (stopped_by != 0) {
    std::cerr << "npusim: confirmation interrupted; run the same command again to resume\n";
    end_by_signal(stopped_by);
  }
  return kExitOk;
}

int SweepCommand::run_collect() {
  const fs::path dir = fs::absolute(m_dir).lexically_normal();
  const Plan plan = read_plan(dir, false);
  const SweepOutputs outputs("sweep collect", dir, {"results.csv", "results.json"}, {});
  DirLock lock(dir);
  return report_merge(dir, plan);
}

int SweepCommand::run_worker() {
  const fs::path dir = fs::absolute(m_dir).lexically_normal();
  const Plan plan = read_plan(dir, true);
  const SweepOutputs outputs("sweep worker", dir, {}, {"points"});
  std::vector<size_t> todo;
  for (const size_t i : read_chunk(dir, m_chunk)) {
    if (i >= plan.points.size())
      throw InputError(
          SourceLoc{(dir / "slurm" / "chunks.json").string(), 0, 0}, "",
          fmt::format("chunk {} names point {} of {}", m_chunk, i, plan.points.size()));
    salvage_finished_run(dir, plan.points[i]);
    if (!read_result(dir, plan.points[i]))
      todo.push_back(i);
  }
  std::error_code ec;
  fs::current_path(plan.cwd, ec);
  if (ec)
    throw InputError(SourceLoc{(dir / "plan.json").string(), 0, 0}, "cwd",
                     "cannot enter folder " + quoted_name(plan.cwd) + ": " + ec.message());
  std::cout << fmt::format(
                   "sweep {}: chunk {} on {}: {} points to run\n", escape(plan.name), m_chunk,
                   [] {
                     char host[256] = {};
                     ::gethostname(host, sizeof host - 1);
                     return std::string(host);
                   }(),
                   todo.size())
            << std::flush;
  const int stopped_by = run_points(
      dir, plan, todo, RunnerOptions{self_exe(), 1, plan.timeout_ms},
      [&](const PlannedPoint& p, const PointResult& r) {
        std::cout << fmt::format("{} {} {:.2f} s{}\n", p.dir, r.status, r.wall_s,
                                 r.error.empty() ? "" : ": " + escape(r.error))
                  << std::flush;
      },
      [] {});
  if (stopped_by != 0)
    end_by_signal(stopped_by);
  return kExitOk;
}

void run_hook_start(const std::vector<std::string>& sets, const std::string& out_dir) {
  if (const char* log = std::getenv("NPUSIM_TEST_RUN_LOG")) {
    std::ofstream(log, std::ios::app) << "start " << out_dir << "\n";
  }
  if (const char* abort_on = std::getenv("NPUSIM_TEST_ABORT_ON_SET"))
    for (const auto& s : sets)
      if (s == abort_on)
        std::abort();
}

void run_hook_end(const std::string& out_dir, int exit_code) {
  if (const char* log = std::getenv("NPUSIM_TEST_RUN_LOG"))
    std::ofstream(log, std::ios::app) << "done " << out_dir << " " << exit_code << "\n";
}

} // namespace npu::sweep
