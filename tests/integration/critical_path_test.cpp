// The critical path through the binary, on programs whose path is known by construction:
// an event wait across streams under every dispatch policy, a fork-join over four
// streams, a chain through a host sync, and two kernels contending for one unit. The path
// follows the causes the simulator recorded, so a launch that only ran meanwhile is never
// on it.
#include "cli_helpers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

using namespace npu::test;

class CriticalPathTest : public ScratchDirTest {
protected:
  /// Runs `testbench` (YAML text) on edge-npu with `extra` options; returns report.json.
  nlohmann::json run_testbench(const std::string& testbench, const std::string& extra = "") {
    const fs::path file = m_dir / "tb.yaml";
    std::ofstream(file) << testbench;
    const fs::path out = m_dir / "out";
    fs::remove_all(out);
    const Result r = run("run --config configs/edge-npu.yaml --testbench " + file.string() +
                         " --out " + out.string() + " " + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(slurp(out / "report.json"));
  }
};

/// The kernels the path names.
std::set<std::string> path_kernels(const nlohmann::json& report) {
  std::set<std::string> names;
  for (const auto& k : report["critical_path"]["kernels"])
    names.insert(k["kernel"].get<std::string>());
  return names;
}

/// The path's share in `part` (e.g. "execute_ns"), and a check that its parts add up.
double path_share(const nlohmann::json& report, const char* part) {
  const auto& path = report["critical_path"];
  double total = 0;
  for (const char* p :
       {"execute_ns", "iload_ns", "schedule_ns", "complete_ns", "host_launch_ns", "device_idle_ns"})
    total += path[p].get<double>();
  const double simulated = report["sim"]["simulated_ns"].get<double>();
  EXPECT_NEAR(total, simulated, simulated * 1e-6);
  return path[part].get<double>() / total;
}

// `long` on s2; on s1 `short`, a wait for an event recorded after `long`, then `after`.
const char* const kThreeKernels = R"(name: three-kernels
kernels:
  long: {op: cycles, cycles: 400000, binary: 4KiB, units: 1}
  short: {op: cycles, cycles: 20000, binary: 4KiB, units: 1}
  after: {op: cycles, cycles: 100000, binary: 4KiB, units: 1}
streams: [s1, s2]
program:
  - launch: {kernel: long, stream: s2, async: true}
  - record: {event: long_done, stream: s2}
  - launch: {kernel: short, stream: s1, async: true}
  - wait: {event: long_done, stream: s1}
  - launch: {kernel: after, stream: s1, async: true}
  - sync: device
)";

} // namespace

TEST_F(CriticalPathTest, AnEventWaitPutsTheRecordingKernelOnThePathUnderEveryPolicy) {
  for (const char* policy : {"fifo", "round_robin", "least_loaded", "affinity", "priority"}) {
    SCOPED_TRACE(policy);
    const auto report =
        run_testbench(kThreeKernels, std::string("--set scheduler.policy=") + policy);
    EXPECT_EQ(path_kernels(report), (std::set<std::string>{"long", "after"}));
    EXPECT_EQ(report["critical_path"]["launches"], 2);
    EXPECT_GT(path_share(report, "execute_ns"), 0.9);
    EXPECT_LT(path_share(report, "schedule_ns"), 0.01);
  }
}

// A root kernel, four branches on their own streams waiting for it, and a join waiting
// for all four: the path is root, the longest branch, join. The root runs long enough for
// the host to submit everything meanwhile, so no branch waits for its launch call.
TEST_F(CriticalPathTest, AForkJoinFollowsTheLongestBranch) {
  const auto report = run_testbench(R"(name: fork-join
kernels:
  root: {op: cycles, cycles: 200000, binary: 4KiB, units: 1}
  b1: {op: cycles, cycles: 50000, binary: 4KiB, units: 1}
  b2: {op: cycles, cycles: 80000, binary: 4KiB, units: 1}
  b3: {op: cycles, cycles: 200000, binary: 4KiB, units: 1}
  b4: {op: cycles, cycles: 60000, binary: 4KiB, units: 1}
  join: {op: cycles, cycles: 30000, binary: 4KiB, units: 1}
streams: [s0, s1, s2, s3, s4]
program:
  - launch: {kernel: root, stream: s0, async: true}
  - record: {event: forked, stream: s0}
  - wait: {event: forked, stream: s1}
  - launch: {kernel: b1, stream: s1, async: true}
  - record: {event: d1, stream: s1}
  - wait: {event: forked, stream: s2}
  - launch: {kernel: b2, stream: s2, async: true}
  - record: {event: d2, stream: s2}
  - wait: {event: forked, stream: s3}
  - launch: {kernel: b3, stream: s3, async: true}
  - record: {event: d3, stream: s3}
  - wait: {event: forked, stream: s4}
  - launch: {kernel: b4, stream: s4, async: true}
  - record: {event: d4, stream: s4}
  - wait: {event: d1, stream: s0}
  - wait: {event: d2, stream: s0}
  - wait: {event: d3, stream: s0}
  - wait: {event: d4, stream: s0}
  - launch: {kernel: join, stream: s0, async: true}
  - sync: device
)");
  EXPECT_EQ(path_kernels(report), (std::set<std::string>{"root", "b3", "join"}));
  EXPECT_GT(path_share(report, "execute_ns"), 0.85);
  EXPECT_GE(report["critical_path"]["execute_ns"].get<double>(), 430000.0); // 200 + 200 + 30 us
}

// `first` on s1, `other` on s2; the host syncs s1, works 10 us, then launches `second`
// on s2. `second` depends on `first` only through the host: the path goes first, the
// sync, the host's work, second's launch call; `other` (earlier on s2) is not on it.
TEST_F(CriticalPathTest, AChainThroughAHostSync) {
  const auto report = run_testbench(R"(name: host-chain
kernels:
  first: {op: cycles, cycles: 100000, binary: 4KiB, units: 1}
  other: {op: cycles, cycles: 20000, binary: 4KiB, units: 1}
  second: {op: cycles, cycles: 100000, binary: 4KiB, units: 1}
streams: [s1, s2]
program:
  - launch: {kernel: first, stream: s1, async: true}
  - launch: {kernel: other, stream: s2, async: true}
  - sync: s1
  - host_work: 10us
  - launch: {kernel: second, stream: s2, async: true}
  - sync: device
)");
  EXPECT_EQ(path_kernels(report), (std::set<std::string>{"first", "second"}));
  const auto& path = report["critical_path"];
  EXPECT_GE(path["device_idle_ns"].get<double>(), 10000.0); // the host's work
  EXPECT_GE(path["host_gaps"].get<int>(), 1);
  EXPECT_GE(path["execute_ns"].get<double>(), 200000.0); // both kernels whole
  EXPECT_LT(path_share(report, "schedule_ns"), 0.01);
}

// Two kernels on two streams and one unit: the second waits for the unit, and the
// path runs through the first kernel's execution, not through the second's launch call.
TEST_F(CriticalPathTest, ContentionForOneUnitChainsTheKernelsThatShareIt) {
  const auto report = run_testbench(R"(name: one-unit
kernels:
  a: {op: cycles, cycles: 100000, binary: 4KiB, units: 1}
  b: {op: cycles, cycles: 100000, binary: 4KiB, units: 1}
streams: [s1, s2]
program:
  - launch: {kernel: a, stream: s1, async: true}
  - launch: {kernel: b, stream: s2, async: true}
  - sync: device
)",
                                    "--set compute.units=1");
  EXPECT_EQ(path_kernels(report), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(report["critical_path"]["launches"], 2);
  EXPECT_GE(report["critical_path"]["execute_ns"].get<double>(), 200000.0); // both whole
  EXPECT_LT(path_share(report, "schedule_ns"), 0.01);
}
