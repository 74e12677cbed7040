// membench on DDR4-3200, one channel and rank: the bounds of issue 3, in process, and
// the `npusim membench` command line.
#include "cli/membench.h"
#include "common/error.h"
#include "config/node.h"
#include "platform/platform_config.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace npu {
namespace {

namespace fs = std::filesystem;

// 25.6 GB/s x (1 - tRFC / tREFI) = 25.6 x (1 - 576 / 12480).
constexpr double kRefreshAdjustedPeakGbps = 24.42;
// Four ACTs per tFAW (34 clocks of 0.625 ns) x 64 B, refresh-adjusted.
constexpr double kFawBoundGbps = 11.49;
constexpr uint64_t kRequests = 100000;

DdrConfig ddr4(const std::string& mapping) {
  const std::string text =
      "ddr: {preset: DDR4-3200, channels: 1, ranks: 1, mapping: " + mapping + "}\n";
  return read_platform_config(cfg::parse_yaml_string(text, "t.yaml"), "t.yaml").ddr;
}

MembenchResult bench(const std::string& pattern, const std::string& mapping = "RoBaCoBg") {
  return run_membench_engine(ddr4(mapping), membench_pattern(pattern, kRequests));
}

void expect_sane(const MembenchResult& r) {
  EXPECT_EQ(r.requests, kRequests);
  EXPECT_EQ(r.reads + r.writes, kRequests);
  EXPECT_LE(r.bandwidth_gbps, kRefreshAdjustedPeakGbps);
  EXPECT_GT(r.refreshes, 0u);
  EXPECT_NEAR(r.simulated_ns, r.cycles * 0.625, 1e-6);
}

TEST(Membench, SequentialReadsReachNinetyFivePercentOfTheRefreshAdjustedPeak) {
  const MembenchResult r = bench("seq_read");
  expect_sane(r);
  EXPECT_GE(r.bandwidth_gbps, 0.95 * kRefreshAdjustedPeakGbps);
  EXPECT_GT(r.row_hit_rate, 0.95);
  EXPECT_EQ(r.reads, kRequests);
}

TEST(Membench, RandomReadsStayUnderTheFawBound) {
  const MembenchResult r = bench("rand_read");
  expect_sane(r);
  EXPECT_LT(r.bandwidth_gbps, kFawBoundGbps);
  EXPECT_GT(r.bandwidth_gbps, 0.8 * kFawBoundGbps); // tFAW, not something else, limits it
  EXPECT_LT(r.row_hit_rate, 0.01);
}

TEST(Membench, SequentialWritesStayWithinThePeak) {
  const MembenchResult r = bench("seq_write");
  expect_sane(r);
  EXPECT_EQ(r.writes, kRequests);
  EXPECT_GE(r.bandwidth_gbps, 0.9 * kRefreshAdjustedPeakGbps);
}

TEST(Membench, MixedReadsAndWritesStayWithinThePeak) {
  const MembenchResult r = bench("mix_rw");
  expect_sane(r);
  EXPECT_NEAR(static_cast<double>(r.writes) / kRequests, 0.5, 0.01);
  EXPECT_LT(r.bandwidth_gbps, kFawBoundGbps);
  EXPECT_GT(r.read_latency_p99_ns, r.read_latency_p50_ns);
}

TEST(Membench, RoBaRaCoChKeepsStreamsInOneBankGroupSoTccdLSlowsThem) {
  const MembenchResult bg = bench("seq_read", "RoBaCoBg");
  const MembenchResult co = bench("seq_read", "RoBaRaCoCh");
  expect_sane(co);
  // tCCD_L = 2 x tCCD_S: one bank group at a time gives at most 12.8 GB/s.
  EXPECT_LT(co.bandwidth_gbps, 0.75 * bg.bandwidth_gbps);
  EXPECT_GT(co.row_hit_rate, 0.95);
}

TEST(Membench, SameInputsGiveTheSameFigures) {
  const MembenchResult a = bench("mix_rw");
  const MembenchResult b = bench("mix_rw");
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.read_latency_p99_ns, b.read_latency_p99_ns);
  EXPECT_EQ(a.refreshes, b.refreshes);
}

TEST(Membench, TwoChannelsRouteByTheMappingAndDoubleTheStream) {
  const std::string text = "ddr: {preset: DDR4-3200, channels: 2, mapping: RoBaCoBg}\n";
  const DdrConfig two = read_platform_config(cfg::parse_yaml_string(text, "t.yaml"), "t.yaml").ddr;
  const MembenchResult r = run_membench_engine(two, membench_pattern("seq_read", kRequests));
  EXPECT_GT(r.bandwidth_gbps, 1.5 * kRefreshAdjustedPeakGbps * 0.95);
  EXPECT_LE(r.bandwidth_gbps, 2 * kRefreshAdjustedPeakGbps);
}

// Generated as offered (constant memory), the pattern gives the figures the whole list does.
TEST(Membench, AStreamedPatternGivesTheSameFiguresAsTheWholeList) {
  MembenchPattern pattern("mix_rw", kRequests);
  const MembenchResult streamed = run_membench_engine(
      ddr4("RoBaCoBg"), [&pattern](MembenchAccess& out) { return pattern.next(out); });
  const MembenchResult listed = bench("mix_rw");
  EXPECT_EQ(streamed.requests, kRequests);
  EXPECT_EQ(streamed.reads, listed.reads);
  EXPECT_EQ(streamed.writes, listed.writes);
  EXPECT_EQ(streamed.cycles, listed.cycles);
  EXPECT_EQ(streamed.read_latency_mean_ns, listed.read_latency_mean_ns);
  EXPECT_EQ(streamed.read_latency_p50_ns, listed.read_latency_p50_ns);
  EXPECT_EQ(streamed.read_latency_p99_ns, listed.read_latency_p99_ns);
  EXPECT_EQ(streamed.refreshes, listed.refreshes);
  EXPECT_THROW(MembenchPattern("zigzag", 1), InputError);
}

// The command line: one JSON object on stdout, input errors with file:line:col.
class MembenchCli : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("npusim-membench-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_dir);
    std::ofstream(m_dir / "ddr4.yaml")
        << "name: ddr4\nddr: {preset: DDR4-3200, channels: 1, ranks: 1, mapping: RoBaCoBg}\n";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  int run(const std::string& args, std::string* out, std::string* err) const {
    const std::string cmd = std::string(NPU_BINARY_DIR) + "/npusim membench --config " +
                            (m_dir / "ddr4.yaml").string() + " " + args + " >" +
                            (m_dir / "out").string() + " 2>" + (m_dir / "err").string();
    const int status = std::system(cmd.c_str());
    std::stringstream o, e;
    o << std::ifstream(m_dir / "out").rdbuf();
    e << std::ifstream(m_dir / "err").rdbuf();
    *out = o.str();
    *err = e.str();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  fs::path m_dir;
};

TEST_F(MembenchCli, PrintsOneJsonObjectWithEveryField) {
  std::string out, err;
  ASSERT_EQ(run("--pattern seq_read --requests 100000", &out, &err), 0) << err;
  const auto j = nlohmann::json::parse(out);
  for (const char* key :
       {"requests", "reads", "writes", "cycles", "simulated_ns", "bandwidth_gbps",
        "read_latency_ns", "row_hit_rate", "refreshes", "wall_s", "requests_per_wall_s"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"mean", "p50", "p99"})
    EXPECT_TRUE(j["read_latency_ns"].contains(key)) << key;
  // DRAM energy: the parts add up to the total; pJ per bit over the 100,000 x 512 bits.
  ASSERT_TRUE(j.contains("energy"));
  double sum = 0;
  for (const auto& [name, pj] : j["energy"]["parts_pj"].items())
    sum += pj.get<double>();
  EXPECT_EQ(j["energy"]["parts_pj"].size(), 8u);
  EXPECT_NEAR(sum, j["energy"]["total_pj"].get<double>(), 1e-6 * sum);
  EXPECT_NEAR(j["energy"]["pj_per_bit"].get<double>(),
              j["energy"]["total_pj"].get<double>() / (100000 * 512.0), 1e-9);
  EXPECT_GT(j["energy"]["parts_pj"]["read"].get<double>(), 0);
  EXPECT_EQ(j["energy"]["parts_pj"]["write"].get<double>(), 0);
  EXPECT_EQ(j["requests"], 100000);
  EXPECT_EQ(j["reads"], 100000);
  EXPECT_LE(j["bandwidth_gbps"].get<double>(), kRefreshAdjustedPeakGbps);
  EXPECT_GT(j["bandwidth_gbps"].get<double>(), 20.0);
  // --set reaches the DDR section.
  ASSERT_EQ(run("--set ddr.mapping=RoBaRaCoCh --pattern seq_read --requests 20000", &out, &err), 0)
      << err;
  EXPECT_LT(nlohmann::json::parse(out)["bandwidth_gbps"].get<double>(), 18.0);
}

TEST_F(MembenchCli, ReadsARamulatorTrace) {
  std::ofstream(m_dir / "t.trace") << "# a comment\nLD 0x3b499b40\nST 0x38eeb640\n\nLD 0x40\n";
  std::string out, err;
  ASSERT_EQ(run("--trace " + (m_dir / "t.trace").string(), &out, &err), 0) << err;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["requests"], 3);
  EXPECT_EQ(j["reads"], 2);
  EXPECT_EQ(j["writes"], 1);
}

TEST_F(MembenchCli, BadInputIsOneLineAndExitCodeTwo) {
  std::ofstream(m_dir / "bad.trace") << "LD 0x40\nLD 0x80\nLX 0x100\n";
  std::string out, err;
  EXPECT_EQ(run("--trace " + (m_dir / "bad.trace").string(), &out, &err), 2);
  EXPECT_NE(err.find("bad.trace:3:1: error: expected LD or ST"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  std::ofstream(m_dir / "bad2.trace") << "ST 0xZZ\n";
  EXPECT_EQ(run("--trace " + (m_dir / "bad2.trace").string(), &out, &err), 2);
  EXPECT_NE(err.find("bad2.trace:1:4: error"), std::string::npos) << err;
  EXPECT_EQ(run("--trace " + (m_dir / "none.trace").string(), &out, &err), 2);
  EXPECT_EQ(run("--pattern seq_read --requests 10 --set ddr.channels=3", &out, &err), 2);
  EXPECT_NE(err.find("ddr.channels"), std::string::npos) << err;
  EXPECT_EQ(run("--pattern zigzag --requests 10", &out, &err), 2);
  EXPECT_EQ(run("--pattern seq_read", &out, &err), 2);
  EXPECT_EQ(run("", &out, &err), 2);
}

} // namespace
} // namespace npu
