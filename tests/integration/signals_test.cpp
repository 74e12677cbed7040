// SIGINT and SIGTERM at many points in time during `npusim run`, `npusim sweep` and
// `npusim membench`: the process either finishes normally or ends as killed by the signal
// (exit status 130 or 143 as a shell shows it), and either way leaves no temporary file,
// no lock and no partial output behind.
#include "cli_helpers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace npu::test {
namespace {

using Clock = std::chrono::steady_clock;

// Starts the npusim binary with `args` in `cwd`, stdout and stderr into `log_dir`.
pid_t start(const std::vector<std::string>& args, const fs::path& cwd, const fs::path& log_dir) {
  const std::string out = (log_dir / "stdout.txt").string();
  const std::string err = (log_dir / "stderr.txt").string();
  std::vector<std::string> argv{kBinary};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0)
      ::_exit(126);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  return pid;
}

// The exit status as a shell shows it: 128 + signal for a process a signal ended.
int wait_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// Names under `dir` (recursively) that only a stopped writer leaves: temporary siblings,
// locks, a sweep point's working folder.
std::vector<std::string> leftovers(const fs::path& dir, const std::string& allowed_lock = "") {
  std::vector<std::string> found;
  if (!fs::exists(dir))
    return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().string() == allowed_lock)
      continue;
    const bool lock = name.size() >= 5 && name.compare(name.size() - 5, 5, ".lock") == 0;
    if (lock || name.find(".tmp-") != std::string::npos ||
        name.find(".partial") != std::string::npos)
      found.push_back(entry.path().string());
  }
  return found;
}

class SignalsTest : public ScratchDirTest {
protected:
  // Runs `args` once with no signal; its wall time spreads the signals over the run.
  double wall_s(const std::vector<std::string>& args, const fs::path& cwd) {
    fs::create_directories(m_dir / "logs");
    const auto begin = Clock::now();
    EXPECT_EQ(wait_status(start(args, cwd, m_dir / "logs")), 0)
        << slurp(m_dir / "logs" / "stderr.txt");
    return std::chrono::duration<double>(Clock::now() - begin).count();
  }

  // Starts `args`, sends `sig` after `delay_s` and returns the exit status.
  int interrupt(const std::vector<std::string>& args, const fs::path& cwd, double delay_s,
                int sig) {
    const pid_t pid = start(args, cwd, m_dir / "logs");
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
    ::kill(pid, sig);
    return wait_status(pid);
  }
};

int signal_for(int point) {
  return point % 2 == 0 ? SIGINT : SIGTERM;
}

// 24 points in time over a run that streams launches.csv and a trace.
TEST_F(SignalsTest, RunLeavesEitherCompleteOutputsOrNothing) {
  const auto args = [&](const fs::path& dir) {
    return std::vector<std::string>{"run",
                                    "--config",
                                    "configs/edge-npu.yaml",
                                    "--testbench",
                                    "testbenches/multi_stream.yaml",
                                    "--out",
                                    (dir / "out").string(),
                                    "--trace",
                                    (dir / "trace.json").string(),
                                    "--trace-limit",
                                    "2000"};
  };
  fs::create_directories(m_dir / "full");
  const double full_s = wall_s(args(m_dir / "full"), kSource);
  const size_t launches = read_csv(m_dir / "full" / "out" / "launches.csv").size();
  ASSERT_GT(launches, 10u);
  constexpr int kPoints = 24;
  int stopped = 0;
  for (int i = 0; i < kPoints; ++i) {
    const fs::path dir = m_dir / ("p" + std::to_string(i));
    fs::create_directories(dir);
    const int sig = signal_for(i);
    const int status = interrupt(args(dir), kSource, full_s * 1.1 * i / kPoints, sig);
    SCOPED_TRACE("point " + std::to_string(i) + ", status " + std::to_string(status));
    EXPECT_TRUE(status == 0 || status == 128 + sig) << slurp(m_dir / "logs" / "stderr.txt");
    EXPECT_EQ(leftovers(dir), std::vector<std::string>{});
    // A signal after the outputs were published (while the summary is printed) still
    // ends the process by it: then both outputs are there and complete.
    if (status == 0 || !fs::is_empty(dir)) {
      EXPECT_EQ(read_csv(dir / "out" / "launches.csv").size(), launches);
      EXPECT_NO_THROW(nlohmann::json::parse(slurp(dir / "out" / "report.json")));
      EXPECT_NO_THROW(nlohmann::json::parse(slurp(dir / "trace.json")));
    }
    if (status != 0 && fs::is_empty(dir))
      ++stopped;
  }
  EXPECT_GE(stopped, kPoints / 4); // the signals are spread over the whole run
}

// A sweep forwards the signal to its points; none leaves a working folder, and a resumed
// sweep completes every point.
TEST_F(SignalsTest, SweepLeavesNoPartialPointAndResumes) {
  const std::string sweep_file = "testbenches/sweeps/icache_vs_binary.yaml";
  const auto args = [&](const fs::path& out) {
    return std::vector<std::string>{"sweep", sweep_file, "--out", out.string(), "--jobs", "2"};
  };
  const double full_s = wall_s(args(m_dir / "full"), kSource);
  constexpr int kPoints = 6;
  for (int i = 0; i < kPoints; ++i) {
    const fs::path out = m_dir / ("s" + std::to_string(i));
    const int sig = signal_for(i);
    const int status = interrupt(args(out), kSource, full_s * (i + 0.5) / kPoints, sig);
    SCOPED_TRACE("point " + std::to_string(i) + ", status " + std::to_string(status));
    EXPECT_TRUE(status == 0 || status == 128 + sig) << slurp(m_dir / "logs" / "stderr.txt");
    EXPECT_EQ(leftovers(out, (out / ".lock").string()), std::vector<std::string>{});
    if (fs::exists(out / "points")) {
      for (const auto& point : fs::directory_iterator(out / "points"))
        EXPECT_TRUE(fs::exists(point.path() / "result.json")) << point.path();
    }
  }
  // The last one resumed: every point runs and nothing is left.
  const fs::path last = m_dir / ("s" + std::to_string(kPoints - 1));
  EXPECT_EQ(wait_status(start(args(last), kSource, m_dir / "logs")), 0)
      << slurp(m_dir / "logs" / "stderr.txt");
  EXPECT_EQ(leftovers(last, (last / ".lock").string()), std::vector<std::string>{});
  EXPECT_EQ(read_csv(last / "results.csv").size(), 24u);
}

// membench writes no file: it only has to end as the signal says.
TEST_F(SignalsTest, MembenchEndsByTheSignalAndWritesNothing) {
  const fs::path cwd = m_dir / "cwd";
  fs::create_directories(cwd);
  const std::vector<std::string> args{"membench",  "--config",  kSource + "/configs/edge-npu.yaml",
                                      "--pattern", "rand_read", "--requests",
                                      "400000"};
  const double full_s = wall_s(args, cwd);
  constexpr int kPoints = 6;
  for (int i = 0; i < kPoints; ++i) {
    const int sig = signal_for(i);
    const int status = interrupt(args, cwd, full_s * (i + 0.5) / (kPoints + 2), sig);
    SCOPED_TRACE("point " + std::to_string(i));
    EXPECT_TRUE(status == 0 || status == 128 + sig) << status;
    EXPECT_TRUE(fs::is_empty(cwd));
  }
}

} // namespace
} // namespace npu::test
