// ChromeTraceWriter alone: valid JSON, launch choice, counter windows, atomic file.
#include "common/error.h"
#include "models/common/launch_record.h"
#include "report/trace_writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using npu::ChromeTraceWriter;
using npu::TraceOptions;

class TraceWriterTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("npusim-trace-writer-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
             std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  TraceOptions options(uint64_t limit = 0, uint64_t sample = 1) const {
    TraceOptions o;
    o.path = (m_dir / "trace.json").string();
    o.limit = limit;
    o.sample = sample;
    return o;
  }
  json read() const {
    std::ifstream in(m_dir / "trace.json");
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
  }
  static std::vector<json> of_phase(const json& trace, const std::string& ph) {
    std::vector<json> out;
    for (const json& e : trace["traceEvents"])
      if (e["ph"] == ph)
        out.push_back(e);
    return out;
  }

  fs::path m_dir;
};

npu::LaunchRecord record(uint64_t id, const std::string& kernel) {
  npu::LaunchRecord r;
  r.launch_id = id;
  r.kernel = kernel;
  r.stream = "s1";
  r.unit = 1;
  for (size_t i = 0; i < r.at.size(); ++i)
    r.at.nth(i) = 1'000'000 * id + 1'000 * i + 1; // distinct, whole ps
  return r;
}

} // namespace

TEST_F(TraceWriterTest, LimitAndSamplePickLaunchIds) {
  ChromeTraceWriter all(options(), {1, 1, 1});
  EXPECT_TRUE(all.wants(0));
  EXPECT_TRUE(all.wants(12345));
  EXPECT_TRUE(all.wants(ChromeTraceWriter::kNoLaunch));

  // A second file: one writer at a time holds a path.
  TraceOptions capped_options = options(3, 2);
  capped_options.path = (m_dir / "capped.json").string();
  ChromeTraceWriter capped(capped_options, {1, 2, 1});
  EXPECT_TRUE(capped.wants(0));
  EXPECT_FALSE(capped.wants(1));
  EXPECT_TRUE(capped.wants(2));
  EXPECT_FALSE(capped.wants(3)); // past the first three launches
  EXPECT_FALSE(capped.wants(4));
  // Events of no launch stop once both traced launches (0 and 2) completed.
  EXPECT_TRUE(capped.wants(ChromeTraceWriter::kNoLaunch));
  capped.launch_done(record(0, "k"));
  EXPECT_TRUE(capped.wants(ChromeTraceWriter::kNoLaunch));
  capped.launch_done(record(2, "k"));
  EXPECT_FALSE(capped.wants(ChromeTraceWriter::kNoLaunch));
}

TEST_F(TraceWriterTest, TwoWritersOfOnePathAreRefused) {
  ChromeTraceWriter first(options(), {1, 1, 1});
  EXPECT_THROW(ChromeTraceWriter(options(), {1, 1, 1}), npu::InputError);
  first.commit();
  EXPECT_NO_THROW(read());
  EXPECT_FALSE(fs::exists(m_dir / "trace.json.lock"));
}

TEST_F(TraceWriterTest, PicosecondTimesAndEscapedNames) {
  {
    ChromeTraceWriter w(options(), {1, 2, 1});
    const npu::LaunchRecord r = record(3, "conv \"a\"\\b");
    w.launch_call(r, r.at[npu::Stamp::Submitted]);
    w.unit_run(3, r.kernel, 1, r.at[npu::Stamp::Assigned], r.at[npu::Stamp::Resident],
               r.at[npu::Stamp::Finished]);
    w.launch_done(r);
    w.commit();
  }
  const json trace = read();
  const auto begins = of_phase(trace, "b");
  ASSERT_EQ(begins.size(), 7u); // the kernel and its six phases
  EXPECT_EQ(begins[0]["name"], "conv \"a\"\\b");
  EXPECT_EQ(begins[0]["id2"]["local"], "0x3");
  EXPECT_EQ(begins[0]["pid"], ChromeTraceWriter::kUnitPidBase + 1);
  // 3,000,001 ps is 3.000001 us: written exactly.
  EXPECT_DOUBLE_EQ(begins[0]["ts"].get<double>(), 3.000001);
  EXPECT_DOUBLE_EQ(begins[6]["ts"].get<double>(), 3.005001); // complete starts at t5
  const auto flows_s = of_phase(trace, "s");
  const auto flows_f = of_phase(trace, "f");
  ASSERT_EQ(flows_s.size(), 2u);
  ASSERT_EQ(flows_f.size(), 2u);
  std::ifstream in(m_dir / "trace.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(R"("ts":3.000001)"), std::string::npos);
}

// Names from C++ programs may hold any bytes: the trace must still be valid UTF-8 JSON.
// Control characters are escaped, ill-formed bytes become U+FFFD, good UTF-8 stays.
TEST_F(TraceWriterTest, NamesWithInvalidUtf8AndControlCharactersStayValidJson) {
  const std::string name = "k\xff\x01\tx\xc3\xa9\xe2\x82";
  {
    ChromeTraceWriter w(options(), {1, 2, 1});
    const npu::LaunchRecord r = record(3, name);
    w.launch_call(r, r.at[npu::Stamp::Submitted]);
    w.unit_run(3, r.kernel, 1, r.at[npu::Stamp::Assigned], r.at[npu::Stamp::Resident],
               r.at[npu::Stamp::Finished]);
    w.launch_done(r);
    w.commit();
  }
  const json trace = read(); // nlohmann rejects invalid UTF-8 and raw control characters
  const auto begins = of_phase(trace, "b");
  ASSERT_FALSE(begins.empty());
  EXPECT_EQ(begins[0]["name"], "k\xef\xbf\xbd\x01\tx\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_F(TraceWriterTest, CountersSumPerWindowAndDropToZero) {
  {
    ChromeTraceWriter w(options(), {1, 1, 1});
    w.ddr_bytes(500'000, 100); // window 0 (1 us windows)
    w.ddr_bytes(700'000, 100);
    w.ddr_bytes(3'200'000, 50); // window 3, after a quiet gap
    w.icache_misses(0, 1'500'000, 4);
    w.commit();
  }
  const json trace = read();
  std::vector<std::pair<double, double>> ddr;
  std::vector<std::pair<double, double>> misses;
  for (const json& e : of_phase(trace, "C")) {
    if (e["name"] == "DDR bandwidth")
      ddr.emplace_back(e["ts"].get<double>(), e["args"]["GB/s"].get<double>());
    if (e["name"] == "icache misses")
      misses.emplace_back(e["ts"].get<double>(), e["args"]["lines"].get<double>());
  }
  // 200 bytes in 1 us is 0.2 GB/s; zero from the next window; 50 bytes in window 3.
  const std::vector<std::pair<double, double>> want_ddr = {
      {0, 0}, {0, 0.2}, {1, 0}, {3, 0.05}, {4, 0}};
  EXPECT_EQ(ddr, want_ddr);
  const std::vector<std::pair<double, double>> want_misses = {{0, 0}, {1, 4}, {2, 0}};
  EXPECT_EQ(misses, want_misses);
}

// Energy that a test sets by hand: block "a" draws 2 W from t = 0; block "b" counts
// 6 pJ at 1.5 us, and 4 pJ more once the run is settled.
class FakeProbe : public npu::EnergyProbe {
public:
  uint64_t now = 0;
  uint64_t now_ps() const override { return now; }
  const std::vector<std::string>& blocks() const override { return m_blocks; }
  void energy_pj(uint64_t at_ps, bool settled, std::vector<double>& out) const override {
    out = {2.0 * static_cast<double>(at_ps), (at_ps >= 1'500'000 ? 6e6 : 0) + (settled ? 4e6 : 0)};
  }

private:
  std::vector<std::string> m_blocks{"a", "b"};
};

TEST_F(TraceWriterTest, PowerIsEnergyOverTimeBetweenSamples) {
  FakeProbe probe;
  {
    ChromeTraceWriter w(options(), {1, 1, 1});
    w.set_energy_probe(&probe);
    probe.now = 400'000; // window 0: sampled already at 0
    w.ddr_bytes(probe.now, 64);
    probe.now = 1'600'000; // window 1: a sample
    w.ddr_bytes(probe.now, 64);
    probe.now = 1'900'000; // still window 1: none
    w.ddr_bytes(probe.now, 64);
    probe.now = 4'000'000; // the run ends at 4 us: a settled sample
    w.commit(4'000'000);
  }
  std::vector<std::tuple<double, double, double>> power;
  for (const json& e : of_phase(read(), "C"))
    if (e["name"] == "power (W)")
      power.emplace_back(e["ts"].get<double>(), e["args"]["a"].get<double>(),
                         e["args"]["b"].get<double>());
  // b: 6 uJ over [0, 1.6 us] is 3.75 W; 4 uJ over [1.6, 4] us is 1.666667 W.
  const std::vector<std::tuple<double, double, double>> want = {
      {0, 2, 3.75}, {1.6, 2, 1.666667}, {4, 0, 0}};
  EXPECT_EQ(power, want);
}

TEST_F(TraceWriterTest, NothingIsLeftWithoutCommit) {
  {
    ChromeTraceWriter w(options(), {2, 2, 2});
    w.ddr_bytes(1, 64);
  }
  EXPECT_TRUE(fs::is_empty(m_dir));
}

TEST_F(TraceWriterTest, MissingDirectoryIsInputError) {
  TraceOptions o = options();
  o.path = (m_dir / "no" / "trace.json").string();
  EXPECT_THROW(ChromeTraceWriter(o, {1, 1, 1}), npu::InputError);
}
