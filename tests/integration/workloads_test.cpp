// The realistic workloads (testbenches/workloads/, made by scripts/gen_workloads.py) run to
// the end on edge-npu through the npusim binary, with one launches.csv row per launch of
// the program, in order, and phases that add up.
#include "cli_helpers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace npu::test;

/// The kernel names a generated testbench declares and the kernels of its launches in
/// program order (the generator writes one kernel and one step a line, without repeats).
struct Workload {
  std::vector<std::string> kernels;
  std::vector<std::string> launches;
};

Workload read_workload(const fs::path& file) {
  std::ifstream in(file);
  Workload w;
  std::string section;
  const std::string launch = "  - launch: {kernel: ";
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != ' ' && line[0] != '#')
      section = line.substr(0, line.find(':'));
    else if (section == "kernels" && line.rfind("  ", 0) == 0 && line[2] != ' ')
      w.kernels.push_back(line.substr(2, line.find(':') - 2));
    else if (section == "program" && line.rfind(launch, 0) == 0)
      w.launches.push_back(line.substr(launch.size(), line.find(',') - launch.size()));
  }
  return w;
}

bool slow_tests_enabled() {
  const char* v = std::getenv("NPU_SLOW_TESTS");
  return v != nullptr && std::string(v) == "1";
}

struct Case {
  const char* name;
  bool slow; ///< tens of seconds of wall time: simulated only with NPU_SLOW_TESTS=1
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class WorkloadTest : public ScratchDirTest, public ::testing::WithParamInterface<Case> {};

TEST_P(WorkloadTest, RunsOnEdgeNpuWithOneRowPerLaunch) {
  const std::string file = "testbenches/workloads/" + std::string(GetParam().name) + ".yaml";
  const Workload w = read_workload(fs::path(kSource) / file);
  ASSERT_FALSE(w.kernels.empty()) << file;
  ASSERT_FALSE(w.launches.empty()) << file;
  const Result valid = run("validate " + file);
  ASSERT_EQ(valid.code, 0) << valid.err;
  if (GetParam().slow && !slow_tests_enabled())
    GTEST_SKIP() << "a slow workload: set NPU_SLOW_TESTS=1 to simulate it";

  const fs::path out = m_dir / "out";
  const Result r =
      run("run --config configs/edge-npu.yaml --testbench " + file + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;

  auto rows = read_csv(out / "launches.csv");
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return a.num("launch_id") < b.num("launch_id"); });
  ASSERT_EQ(rows.size(), w.launches.size());
  std::set<std::string> launched;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    EXPECT_EQ(row.cells.at("kernel"), w.launches[i]) << "launch " << i;
    launched.insert(row.cells.at("kernel"));
    EXPECT_NEAR(phase_sum_ns(row), row.num("t6_ns") - row.num("t0_ns"), 0.001)
        << row.cells.at("launch_id");
    EXPECT_GT(row.num("execute_ns"), 0) << row.cells.at("launch_id");
  }
  EXPECT_EQ(launched, std::set<std::string>(w.kernels.begin(), w.kernels.end()));

  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  EXPECT_EQ(report["sim"]["launches"], w.launches.size());
  for (const auto& k : w.kernels)
    EXPECT_TRUE(report["kernels"].contains(k)) << k;
}

INSTANTIATE_TEST_SUITE_P(Workloads, WorkloadTest,
                         ::testing::Values(Case{"resnet50_b1", false}, Case{"resnet50_b8", true},
                                           Case{"mobilenetv2_b1", false},
                                           Case{"mobilenetv2_b8", false},
                                           Case{"bert_base_layer", false},
                                           Case{"llm_decode_step", true}),
                         [](const auto& info) { return std::string(info.param.name); });

class GeneratorTest : public ScratchDirTest {};

TEST_F(GeneratorTest, CommittedWorkloadsAreUpToDate) {
  if (std::system("test -x /usr/bin/python3") != 0)
    GTEST_SKIP() << "/usr/bin/python3 is not installed";
  const Result r = run_command("/usr/bin/python3 scripts/gen_workloads.py --check");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // The script prints and asserts each workload's MACs against the papers' figures.
  EXPECT_NE(r.out.find("resnet50_b1"), std::string::npos) << r.out;
}

} // namespace
