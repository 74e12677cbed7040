// Determinism: each reference testbench on each reference config, run twice, writes the same
// report.json and launches.csv byte for byte (wall-clock fields aside). Of the real-network
// workloads only the ones that simulate in a few seconds take part. A reference sweep run
// with one job and with two writes the same files too.
#include "tests/integration/determinism.h"

namespace npu::test {
namespace {

struct Pair {
  std::string config;
  std::string testbench;
};

void PrintTo(const Pair& p, std::ostream* os) {
  *os << p.testbench << " on " << p.config;
}

std::vector<Pair> reference_pairs() {
  std::vector<std::string> testbenches;
  for (const auto& e : fs::directory_iterator(fs::path(kSource) / "testbenches"))
    if (e.path().extension() == ".yaml")
      testbenches.push_back("testbenches/" + e.path().filename().string());
  for (const char* quick : {"bert_base_layer", "mobilenetv2_b1"})
    testbenches.push_back(std::string("testbenches/workloads/") + quick + ".yaml");
  std::sort(testbenches.begin(), testbenches.end());
  std::vector<Pair> pairs;
  for (const char* config : {"edge-npu", "datacenter-gpu", "datacenter-npu"})
    for (const auto& tb : testbenches)
      pairs.push_back({std::string("configs/") + config + ".yaml", tb});
  return pairs;
}

class DeterminismTest : public ScratchDirTest, public ::testing::WithParamInterface<Pair> {};

TEST_P(DeterminismTest, TwoRunsWriteIdenticalReports) {
  const Pair& p = GetParam();
  const std::string args = "run --config " + p.config + " --testbench " + p.testbench + " --out ";
  for (const char* run_dir : {"a", "b"}) {
    const Result r = run(args + (m_dir / run_dir).string());
    ASSERT_EQ(r.code, 0) << r.err;
  }
  ASSERT_TRUE(fs::exists(m_dir / "a" / "report.json"));
  ASSERT_TRUE(fs::exists(m_dir / "a" / "launches.csv"));
  expect_identical_outputs(m_dir / "a", m_dir / "b");
}

std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  std::string name = fs::path(info.param.config).stem().string() + "_" +
                     fs::path(info.param.testbench).stem().string();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Reference, DeterminismTest, ::testing::ValuesIn(reference_pairs()),
                         pair_name);

using SweepDeterminismTest = ScratchDirTest;

TEST_F(SweepDeterminismTest, OneJobAndTwoJobsWriteIdenticalSweeps) {
  // Both from the same folder: the plan records where the sweep was started.
  const std::string sweep = kSource + "/testbenches/sweeps/queues_vs_streams.yaml";
  for (const char* jobs : {"1", "2"}) {
    const Result r = run_command("cd " + m_dir.string() + " && " + kBinary + " sweep " + sweep +
                                 " --out jobs" + jobs + " --jobs " + jobs);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  ASSERT_TRUE(fs::exists(m_dir / "jobs1" / "results.csv"));
  ASSERT_TRUE(fs::exists(m_dir / "jobs1" / "points" / "0015" / "report.json"));
  expect_identical_outputs(m_dir / "jobs1", m_dir / "jobs2");
}

} // namespace
} // namespace npu::test
