// Determinism: each reference testbench on each reference config, run twice, writes the same
// report.json and launches.csv byte for byte (wall-clock fields aside). Of the real-network
// workloads only the ones that simulate in a few seconds take part. A reference sweep run
// with one job and with two writes the same files too.
#include "tests/integration/determinism.h"

namespace npu::test {
namespace {

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
