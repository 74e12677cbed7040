// The limits that keep a mistaken input from taking the machine down: simulated time
// (limits.sim_time, --max-sim-time), the simulator's memory (limits.memory, --max-memory)
// and wall-clock time (limits.wall_time, --max-wall-time). Exceeding any stops the run
// with exit code 2, one line, no output.
#include "tests/integration/cli_helpers.h"

#include <nlohmann/json.hpp>

namespace npu::test {
namespace {

class LimitsTest : public ScratchDirTest {
protected:
  /// Expects exit code 2, exactly `line` on stderr, nothing on stdout and no output dir.
  void expect_stopped(const Result& r, const std::string& line) const {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.err, line + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(m_dir / "out"));
    // Nor a temporary sibling of it.
    for (const auto& entry : fs::directory_iterator(m_dir))
      EXPECT_NE(entry.path().filename().string().rfind("out", 0), 0u)
          << "left behind: " << entry.path();
  }

  std::string hello(const std::string& extra) const {
    return "run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml --out " +
           (m_dir / "out").string() + " " + extra;
  }
};

// hello simulates 218.067 us: a limit below that stops it, one above lets it finish.
TEST_F(LimitsTest, SimulatedTimeLimitFromTheCommandLine) {
  expect_stopped(run(hello("--max-sim-time 120us")),
                 "npusim: error: simulated time limit of 120us reached after 2 launches, the "
                 "host waiting for sync launch of gemm; raise limits.sim_time or --max-sim-time "
                 "if the run is meant to be this long");
  const Result ok = run(hello("--max-sim-time 250us"));
  ASSERT_EQ(ok.code, 0) << ok.err;
  const auto report = nlohmann::json::parse(slurp(m_dir / "out" / "report.json"));
  EXPECT_EQ(report["config"]["limits"]["sim_time"], "250us");
  EXPECT_EQ(report["config"]["limits"]["memory"], "8GiB");
  EXPECT_EQ(report["config"]["limits"]["wall_time"], "3600s");
  EXPECT_NEAR(report["sim"]["simulated_ns"].get<double>(), 218067.0, 1); // either path
}

TEST_F(LimitsTest, SimulatedTimeLimitFromTheConfigAndSet) {
  std::ofstream(m_dir / "short.yaml") << "name: short\nextends: " << kSource
                                      << "/configs/edge-npu.yaml\nlimits: {sim_time: 50us}\n";
  const std::string message_50us =
      "npusim: error: simulated time limit of 50us reached after 1 launch, the host waiting for "
      "sync launch of gemm; raise limits.sim_time or --max-sim-time if the run is meant to be "
      "this long";
  expect_stopped(run("run --config " + (m_dir / "short.yaml").string() +
                     " --testbench testbenches/hello.yaml --out " + (m_dir / "out").string()),
                 message_50us);
  expect_stopped(run(hello("--set limits.sim_time=50us")), message_50us);
  // The command-line option wins over --set.
  EXPECT_EQ(run(hello("--set limits.sim_time=50us --max-sim-time 1ms")).code, 0);
}

// The default (10 s) stops a loop that would run for 11.6 simulated days.
TEST_F(LimitsTest, DefaultSimulatedTimeLimitStopsARunawayLoop) {
  std::ofstream(m_dir / "loop.yaml")
      << "name: loop\nprogram:\n  - repeat: {count: 1000000000, body: [{host_work: 1ms}]}\n";
  expect_stopped(run("run --config configs/edge-npu.yaml --testbench " +
                     (m_dir / "loop.yaml").string() + " --out " + (m_dir / "out").string()),
                 "npusim: error: simulated time limit of 10s reached after 0 launches, the host "
                 "still running its program; raise limits.sim_time or --max-sim-time if the run "
                 "is meant to be this long");
}

// Recording a command list of a billion launches grows without bound; the memory limit
// stops it long before the simulated-time limit would.
TEST_F(LimitsTest, MemoryLimitStopsARunThatGrowsWithoutBound) {
  std::ofstream(m_dir / "grow.yaml")
      << "name: grow\nkernels:\n  k: {op: cycles, cycles: 10}\nprogram:\n"
         "  - command_list: {name: l, body: [{repeat: {count: 1000000000, body: [{launch: "
         "{kernel: k}}]}}]}\n";
  expect_stopped(run("run --config configs/edge-npu.yaml --testbench " +
                     (m_dir / "grow.yaml").string() + " --out " + (m_dir / "out").string() +
                     " --max-memory 256MiB"),
                 "npusim: error: the simulator's memory use passed its limit of 256MiB "
                 "(limits.memory); raise it with --max-memory if the run is meant to be this "
                 "large");
}

TEST_F(LimitsTest, MemoryLimitCoversMembench) {
  // No process of npusim fits in 1 MiB.
  const Result r = run("membench --config configs/edge-npu.yaml --pattern seq_read --requests "
                       "100000000 --max-memory 1MiB");
  expect_stopped(r, "npusim: error: the simulator's memory use passed its limit of 1MiB "
                    "(limits.memory); raise it with --max-memory if the run is meant to be this "
                    "large");
}

const char* const kWallTime1s =
    "npusim: error: the run passed its wall-clock time limit of 1s (limits.wall_time); raise "
    "it with --max-wall-time if the run is meant to take this long";

// A billion launches would take hours of wall time to simulate, even with the simulated-time
// limit raised far enough; the wall-clock limit stops the run.
TEST_F(LimitsTest, WallTimeLimitStopsALongRun) {
  std::ofstream(m_dir / "long.yaml")
      << "name: long\nkernels:\n  k: {op: cycles, cycles: 10}\nprogram:\n"
         "  - repeat: {count: 1000000000, body: [{launch: {kernel: k, async: true}}]}\n";
  const std::string run_long = "run --config configs/edge-npu.yaml --testbench " +
                               (m_dir / "long.yaml").string() + " --out " +
                               (m_dir / "out").string() + " --max-sim-time 86400s ";
  expect_stopped(run(run_long + "--max-wall-time 1s"), kWallTime1s);
  expect_stopped(run(run_long + "--set limits.wall_time=1s"), kWallTime1s);
  expect_stopped(run(hello("--max-wall-time 0")),
                 "npusim: --max-wall-time 0: error: must be at least 1ms, got 0");
}

// The documented maximum, 2^32 requests, used to end in bad_alloc: the requests were all
// built before the DDR model started. They are generated as offered now, so the run stays
// within 128 MiB until the wall-clock limit ends it.
TEST_F(LimitsTest, MembenchOfTheMaximumRequestCountRunsInBoundedMemory) {
  expect_stopped(run("membench --config configs/edge-npu.yaml --pattern rand_read --requests "
                     "4294967296 --max-memory 128MiB --max-wall-time 2s"),
                 "npusim: error: the run passed its wall-clock time limit of 2s "
                 "(limits.wall_time); raise it with --max-wall-time if the run is meant to take "
                 "this long");
}

TEST_F(LimitsTest, MalformedLimitsAreInputErrors) {
  expect_stopped(run(hello("--max-memory lots")),
                 "npusim: --max-memory lots: error: expected a size such as 64KiB, got 'lots'");
  expect_stopped(run(hello("--max-sim-time 0")),
                 "npusim: --max-sim-time 0: error: must be at least 1ns, got 0");
}

// An --out folder whose parent does not exist is bad input: one line, exit 2, before
// anything runs, and nothing written.
TEST_F(LimitsTest, OutFolderWithoutAParentIsRejected) {
  const fs::path out = m_dir / "missing" / "out";
  const Result r = run("run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml "
                       "--out " +
                       out.string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "npusim: --out: error: cannot create '" + out.string() + "': folder '" +
                       (m_dir / "missing").string() + "' does not exist\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(m_dir / "missing"));
}

} // namespace
} // namespace npu::test
