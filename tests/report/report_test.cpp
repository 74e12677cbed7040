// Report formats: percentiles, number formatting, JSON, CSV, summary, output directory.
#include "report/report.h"
#include "tests/text_lines.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace npu {
namespace {

namespace fs = std::filesystem;

LaunchRecord make_record(uint64_t id, const std::string& kernel, uint64_t base_ps) {
  LaunchRecord r;
  r.launch_id = id;
  r.kernel = kernel;
  r.stream = "s0";
  r.unit = 2;
  // prepare 1000, submit 2000, schedule 3000 (dispatch 500), iload 4000,
  // execute 5000 (ifetch stall 250), complete 6000 ps.
  r.at = Stamps({base_ps, base_ps + 1000, base_ps + 3000, base_ps + 6000, base_ps + 10000,
                 base_ps + 15000, base_ps + 21000});
  r.schedule_dispatch_ps = 500;
  r.ifetch_stall_ps = 250;
  return r;
}

RunReport make_report() {
  RunReport report;
  report.config_file = "configs/base.yaml";
  report.testbench_file = "testbenches/matmul.yaml";
  report.config_name = "base";
  report.testbench_name = "matmul";
  report.effective_config = {{"clock_mhz", 1000}, {"units", 4}};
  report.launches.push_back(make_record(0, "matmul", 0));
  report.launches.push_back(make_record(1, "softmax", 100000));
  report.launches.push_back(make_record(2, "matmul", 200000));
  report.host = {123456, 7000, 1};
  StatGroup icache{"icache", {}};
  icache.add("misses", 256, "count", "instruction cache misses");
  icache.add("hit_rate", 0.75, "ratio", "hits per access");
  report.blocks.push_back(icache);
  StatGroup ddr{"ddr", {}};
  ddr.add("bytes_read", 1 << 20, "bytes", "bytes read from DRAM");
  report.blocks.push_back(ddr);
  report.simulated_ps = 1234567;
  report.wall_s = 0.5;
  return report;
}

// A fresh empty directory under the system temp dir, removed at the end of the test.
class TempDir {
public:
  TempDir() {
    m_path = fs::temp_directory_path() /
             ("npu_report_test-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  const fs::path& path() const { return m_path; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(m_path))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  fs::path m_path;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using test::lines_of;

TEST(Summarize, OneToHundred) {
  std::vector<uint64_t> values_ps;
  for (uint64_t ns = 100; ns >= 1; --ns) // descending, so summarize must sort
    values_ps.push_back(ns * 1000);
  const Distribution d = summarize(values_ps);
  EXPECT_EQ(d.count, 100u);
  EXPECT_DOUBLE_EQ(d.mean_ns, 50.5);
  EXPECT_DOUBLE_EQ(d.p50_ns, 50);
  EXPECT_DOUBLE_EQ(d.p99_ns, 99);
  EXPECT_DOUBLE_EQ(d.max_ns, 100);
}

TEST(Summarize, NearestRankOnSmallSets) {
  // n = 10: p50 is rank 5, p99 is rank ceil(9.9) = 10.
  const Distribution ten = summarize({10000, 9000, 8000, 7000, 6000, 5000, 4000, 3000, 2000, 1000});
  EXPECT_DOUBLE_EQ(ten.p50_ns, 5);
  EXPECT_DOUBLE_EQ(ten.p99_ns, 10);
  // n = 3: p50 is rank 2.
  const Distribution three = summarize({3000, 1000, 2000});
  EXPECT_DOUBLE_EQ(three.p50_ns, 2);
  EXPECT_DOUBLE_EQ(three.mean_ns, 2);
  // n = 200: p99 is rank 198.
  std::vector<uint64_t> values_ps(200);
  std::iota(values_ps.begin(), values_ps.end(), 1);
  const Distribution many = summarize(values_ps);
  EXPECT_DOUBLE_EQ(many.p99_ns, 0.198);
  EXPECT_DOUBLE_EQ(many.p50_ns, 0.100);
}

TEST(Summarize, SingleAndEmpty) {
  const Distribution one = summarize({1234567});
  EXPECT_EQ(one.count, 1u);
  EXPECT_DOUBLE_EQ(one.mean_ns, 1234.567);
  EXPECT_DOUBLE_EQ(one.p50_ns, 1234.567);
  EXPECT_DOUBLE_EQ(one.p99_ns, 1234.567);
  EXPECT_DOUBLE_EQ(one.max_ns, 1234.567);
  const Distribution none = summarize({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.mean_ns, 0);
  EXPECT_EQ(none.p50_ns, 0);
  EXPECT_EQ(none.p99_ns, 0);
  EXPECT_EQ(none.max_ns, 0);
}

TEST(Summarize, MeanRoundsToWholePicoseconds) {
  EXPECT_DOUBLE_EQ(summarize({1, 2}).mean_ns, 0.002);    // 1.5 ps rounds up
  EXPECT_DOUBLE_EQ(summarize({1, 1, 2}).mean_ns, 0.001); // 1.33 ps rounds down
}

TEST(FormatNs, EdgeCases) {
  EXPECT_EQ(format_ns(0), "0.000");
  EXPECT_EQ(format_ns(1), "0.001");
  EXPECT_EQ(format_ns(999), "0.999");
  EXPECT_EQ(format_ns(1000), "1.000");
  EXPECT_EQ(format_ns(1010), "1.010");
  EXPECT_EQ(format_ns(1234567), "1234.567");
  EXPECT_EQ(format_ns(UINT64_MAX), "18446744073709551.615");
  // Every count of digits, and either side of a billion nanoseconds.
  std::string digits = "1";
  for (uint64_t ns = 1; ns <= 10000000000; ns *= 10, digits += "0") {
    EXPECT_EQ(format_ns(ns * 1000 + 5), digits + ".005");
    const std::string nines = ns > 1 ? std::string(digits.size() - 1, '9') : "0";
    EXPECT_EQ(format_ns(ns * 1000 - 1), nines + ".999");
  }
  EXPECT_EQ(format_ns(uint64_t{999999999} * 1000 + 42), "999999999.042");
  EXPECT_EQ(format_ns(uint64_t{1000000000} * 1000 + 420), "1000000000.420");
}

TEST(FormatNs, AgreesWithToStringOnEveryMagnitude) {
  // Random values of every length, and the values either side of each power of ten.
  std::mt19937_64 rng(3);
  const auto expect = [](uint64_t ps) {
    const std::string frac = std::to_string(1000 + ps % 1000).substr(1);
    ASSERT_EQ(format_ns(ps), std::to_string(ps / 1000) + "." + frac) << ps;
  };
  for (uint64_t top = 10; top <= 10000000000000; top *= 10) {
    for (uint64_t d = 0; d < 2000; ++d) {
      expect(top - 1 - d);
      expect(top + d);
    }
    for (int i = 0; i < 20000; ++i)
      expect(rng() % top);
  }
}

TEST(LaunchesCsv, HeaderAndRows) {
  std::ostringstream out;
  write_launches_csv(out, make_report().launches);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "launch_id,kernel,stream,unit,t0_ns,t1_ns,t2_ns,t3_ns,t4_ns,t5_ns,t6_ns,prepare_ns,"
            "submit_ns,schedule_wait_ns,schedule_dispatch_ns,iload_ns,execute_ns,complete_ns,"
            "execute_ifetch_stall_ns,released_by,host_after,units,unit_t4_ns,unit_t5_ns");
  // A record without unit spans ran on its unit alone, at the launch's t4 and t5.
  EXPECT_EQ(lines[2],
            "1,softmax,s0,2,100.000,101.000,103.000,106.000,110.000,115.000,121.000,1.000,"
            "2.000,2.500,0.500,4.000,5.000,6.000,0.250,-1,-1,2,110.000,115.000");
  EXPECT_EQ(out.str().back(), '\n');
}

// A kernel on several units: each unit's number, t4 and t5 in three ';' lists.
TEST(LaunchesCsv, ListsEveryUnitOfALaunch) {
  LaunchRecord r = make_record(7, "mm", 0);
  r.unit = 3;
  r.units = 3;
  r.unit_spans = {{0, 110000, 114000}, {3, 110500, 115000}, {5, 111000, 114500}};
  std::ostringstream out;
  write_launches_csv(out, {r});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  const std::string tail = ",0;3;5,110.000;110.500;111.000,114.000;115.000;114.500";
  ASSERT_GE(lines[1].size(), tail.size());
  EXPECT_EQ(lines[1].substr(lines[1].size() - tail.size()), tail) << lines[1];
  EXPECT_EQ(lines[1].rfind("7,mm,s0,3,", 0), 0u) << lines[1];
}

TEST(LaunchesCsv, QuotesFieldsWithCommasOrQuotes) {
  LaunchRecord r = make_record(7, "a,b", 0);
  r.stream = "say \"hi\"";
  std::ostringstream out;
  write_launches_csv(out, {r});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("7,\"a,b\",\"say \"\"hi\"\"\",2,0.000,", 0), 0u) << lines[1];
}

// Names from C++ programs may hold any bytes; launches.csv stays UTF-8 text, one record a
// line, with every byte that is not UTF-8 and every control character as a visible escape.
TEST(LaunchesCsv, EscapesInvalidUtf8AndControlCharactersInNames) {
  LaunchRecord r = make_record(7, "k\xff", 0);
  r.stream = "s\xc3\xa9,\xe2";
  std::ostringstream out;
  write_launches_csv(out, {r});
  auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("7,k\\xff,\"s\xc3\xa9,\\xe2\",2,", 0), 0u) << lines[1];
  r.kernel = "k\n7,forged";
  r.stream = "\x1b[31m";
  out.str("");
  write_launches_csv(out, {r});
  lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("7,\"k\\n7,forged\",\\x1b[31m,2,", 0), 0u) << lines[1];
}

TEST(Json, KeysInOrderAndValues) {
  const auto j = to_json(make_report());
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"config", "config_file", "testbench_file",
                                            "config_name", "testbench_name", "kernels", "host",
                                            "blocks", "stat_units", "sim", "breakdown",
                                            "critical_path", "utilisation", "peaks", "layers"}));
  EXPECT_EQ(j["config"]["units"], 4);
  EXPECT_EQ(j["config_file"], "configs/base.yaml");
  EXPECT_EQ(j["testbench_name"], "matmul");

  // Kernels in order of first launch, each with every phase.
  std::vector<std::string> kernels;
  for (const auto& [key, value] : j["kernels"].items())
    kernels.push_back(key);
  EXPECT_EQ(kernels, (std::vector<std::string>{"matmul", "softmax"}));
  const auto& matmul = j["kernels"]["matmul"];
  EXPECT_EQ(matmul["launches"], 2);
  std::vector<std::string> phases;
  for (const auto& [key, value] : matmul.items())
    phases.push_back(key);
  EXPECT_EQ(phases,
            (std::vector<std::string>{"launches", "prepare", "submit", "schedule", "schedule_wait",
                                      "schedule_dispatch", "iload", "execute",
                                      "execute_ifetch_stall", "complete", "total"}));
  for (const auto& phase : phases) {
    if (phase == "launches")
      continue;
    std::vector<std::string> fields;
    for (const auto& [key, value] : matmul[phase].items())
      fields.push_back(key);
    EXPECT_EQ(fields, (std::vector<std::string>{"mean_ns", "p50_ns", "p99_ns", "max_ns"})) << phase;
  }
  EXPECT_EQ(matmul["schedule"]["mean_ns"], 3.0);
  EXPECT_EQ(matmul["schedule_wait"]["p50_ns"], 2.5);
  EXPECT_EQ(matmul["schedule_dispatch"]["max_ns"], 0.5);
  EXPECT_EQ(matmul["execute_ifetch_stall"]["p99_ns"], 0.25);
  EXPECT_EQ(matmul["total"]["max_ns"], 21.0);

  EXPECT_EQ(j["host"]["busy_ns"], 123.456);
  EXPECT_EQ(j["host"]["blocked_ns"], 7.0);
  EXPECT_EQ(j["host"]["idle_ns"], 0.001);
  EXPECT_EQ(j["host"]["leaked_buffers"], 0);
  EXPECT_EQ(j["host"]["leaked_bytes"], 0);

  EXPECT_TRUE(j["blocks"]["icache"]["misses"].is_number_integer());
  EXPECT_EQ(j["blocks"]["icache"]["misses"], 256);
  EXPECT_EQ(j["blocks"]["icache"]["hit_rate"], 0.75);
  EXPECT_EQ(j["blocks"]["ddr"]["bytes_read"], 1048576);
  EXPECT_EQ(j["stat_units"]["icache.misses"]["unit"], "count");
  EXPECT_EQ(j["stat_units"]["icache.misses"]["description"], "instruction cache misses");

  EXPECT_EQ(j["sim"]["simulated_ns"], 1234.567);
  EXPECT_EQ(j["sim"]["launches"], 3);
  EXPECT_EQ(j["sim"]["wall_s"], 0.5);
}

TEST(Json, EventMeasurementsWhenPresent) {
  RunReport report = make_report();
  report.events.push_back({"conv time", "e0", "e1", 5'000'000, 1'234'567});
  report.events.push_back({"query e1", "e1", "", 4'000'000, 0});
  const auto j = to_json(report);
  ASSERT_TRUE(j.contains("events"));
  ASSERT_EQ(j["events"].size(), 2u);
  EXPECT_EQ(j["events"][0]["label"], "conv time");
  EXPECT_EQ(j["events"][0]["start"], "e0");
  EXPECT_EQ(j["events"][0]["end"], "e1");
  EXPECT_EQ(j["events"][0]["elapsed_ns"], 1234.567);
  EXPECT_EQ(j["events"][0]["at_ns"], 5000.0);
  EXPECT_EQ(j["events"][1]["event"], "e1");
  EXPECT_EQ(j["events"][1]["complete"], false);
  EXPECT_FALSE(to_json(make_report()).contains("events"));
  std::ostringstream text;
  print_summary(text, report);
  EXPECT_NE(text.str().find("conv time"), std::string::npos);
  EXPECT_NE(text.str().find("1.235 us"), std::string::npos);
  EXPECT_NE(text.str().find("not complete"), std::string::npos);
}

TEST(Json, DumpIsDeterministicText) {
  const std::string text = to_json(make_report()).dump(2);
  EXPECT_NE(text.find("\"misses\": 256,"), std::string::npos);
  EXPECT_NE(text.find("\"simulated_ns\": 1234.567,"), std::string::npos);
  EXPECT_NE(text.find("\"busy_ns\": 123.456,"), std::string::npos);
  EXPECT_EQ(text, to_json(make_report()).dump(2));
}

TEST(Summary, FitsIn80ColumnsAndShowsEverything) {
  RunReport report = make_report();
  StatGroup wide{"compute.unit0", {}};
  for (int i = 0; i < 30; ++i)
    wide.add("busy_cycles_of_lane_" + std::to_string(i), 1e6 + i, "cycles", "");
  wide.add(std::string(120, 'x'), 1.5, "ns", "a name longer than a line");
  report.blocks.push_back(wide);
  report.launches.push_back(make_record(3, std::string(100, 'k'), 0));
  SummaryOptions detail;
  detail.detail = true;
  std::ostringstream out;
  print_summary(out, to_json(report), SummaryFormat::Text, detail);
  const std::string text = out.str();
  for (const auto& line : lines_of(text))
    EXPECT_LE(line.size(), 80u) << line;

  EXPECT_NE(text.find("base"), std::string::npos);
  EXPECT_NE(text.find("matmul"), std::string::npos);
  EXPECT_NE(text.find("simulated  1234.567 ns\n"), std::string::npos);
  EXPECT_NE(text.find("kernel softmax"), std::string::npos);
  for (const char* phase :
       {"prepare", "submit", "schedule", "iload", "execute", "complete", "total"})
    EXPECT_NE(text.find(std::string("  ") + phase + " "), std::string::npos) << phase;
  EXPECT_NE(text.find("misses = 256"), std::string::npos);
  EXPECT_NE(text.find("hit_rate = 0.75 ratio"), std::string::npos);
  EXPECT_NE(text.find("busy_cycles_of_lane_29 = 1000029 cycles"), std::string::npos);
  EXPECT_NE(text.find("10.0%"), std::string::npos); // busy share of simulated time
  // Wall time is the last line and the only one that depends on it.
  const auto lines = lines_of(text);
  EXPECT_EQ(lines.back(), "wall time: 0.500 s");
  report.wall_s = 99;
  std::ostringstream again;
  print_summary(again, to_json(report), SummaryFormat::Text, detail);
  const auto lines_again = lines_of(again.str());
  ASSERT_EQ(lines_again.size(), lines.size());
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    EXPECT_EQ(lines[i], lines_again[i]);
}

TEST(Summary, KernelTableRows) {
  RunReport report = make_report();
  report.launches.resize(1);
  std::ostringstream out;
  print_summary(out, report);
  // Only with --detail.
  EXPECT_EQ(out.str().find("kernel matmul"), std::string::npos) << out.str();
  SummaryOptions detail;
  detail.detail = true;
  out.str("");
  print_summary(out, to_json(report), SummaryFormat::Text, detail);
  const std::string text = out.str();
  EXPECT_NE(text.find("kernel matmul: 1 launch, times in ns\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  total            21.000       21.000       21.000       21.000\n"),
            std::string::npos)
      << text;
}

TEST(Summary, LeakLineOnlyWhenBuffersLeaked) {
  RunReport report = make_report();
  std::ostringstream clean;
  print_summary(clean, report);
  EXPECT_EQ(clean.str().find("leaked"), std::string::npos) << clean.str();

  report.leaks.buffers = 2;
  report.leaks.bytes = 5096;
  report.leaks.list = {"'kept' (4KiB of ddr at 0x80000000)", "1000B of sram at 0x10000000"};
  std::ostringstream out;
  print_summary(out, report);
  EXPECT_NE(out.str().find("\n  leaked: 2 buffers (5096 bytes) not freed\n"), std::string::npos)
      << out.str();
  const auto j = to_json(report);
  EXPECT_EQ(j["host"]["leaked_buffers"], 2);
  EXPECT_EQ(j["host"]["leaked_bytes"], 5096);
  report.leaks.buffers = 1;
  std::ostringstream one;
  print_summary(one, report);
  EXPECT_NE(one.str().find("  leaked: 1 buffer (5096 bytes) not freed\n"), std::string::npos);
}

TEST(OutputDir, CreatesBothFilesAndNoTempDir) {
  TempDir tmp;
  const RunReport report = make_report();
  const fs::path out = tmp.path() / "out";
  write_output_dir(out.string(), report);
  EXPECT_EQ(tmp.entries(), (std::vector<std::string>{"out"}));
  const std::string json = read_file(out / "report.json");
  EXPECT_EQ(json, to_json(report).dump(2) + "\n");
  std::ostringstream csv;
  write_launches_csv(csv, report.launches);
  EXPECT_EQ(read_file(out / "launches.csv"), csv.str());
  EXPECT_EQ(read_file(out / "layers.csv"), layers_csv(to_json(report)));
}

TEST(OutputDir, ReplacesFilesInExistingDirectory) {
  TempDir tmp;
  const fs::path out = tmp.path() / "out";
  fs::create_directory(out);
  std::ofstream(out / "report.json") << "old";
  std::ofstream(out / "keep.txt") << "mine";
  RunReport report = make_report();
  write_output_dir(out.string() + "/", report);
  EXPECT_EQ(tmp.entries(), (std::vector<std::string>{"out"}));
  EXPECT_EQ(read_file(out / "report.json"), to_json(report).dump(2) + "\n");
  EXPECT_EQ(read_file(out / "keep.txt"), "mine");
  EXPECT_TRUE(fs::exists(out / "launches.csv"));
}

TEST(OutputDir, MissingParentFailsAndCreatesNothing) {
  TempDir tmp;
  const fs::path out = tmp.path() / "missing" / "out";
  EXPECT_THROW(write_output_dir(out.string(), make_report()), std::runtime_error);
  EXPECT_TRUE(tmp.entries().empty());
}

TEST(OutputDir, ParentIsAFileFailsAndCreatesNothing) {
  TempDir tmp;
  std::ofstream(tmp.path() / "file") << "x";
  const fs::path out = tmp.path() / "file" / "out";
  try {
    write_output_dir(out.string(), make_report());
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    // The message names the path and the reason.
    EXPECT_NE(std::string(e.what()).find(out.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Not a directory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tmp.entries(), (std::vector<std::string>{"file"}));
  EXPECT_EQ(read_file(tmp.path() / "file"), "x");
}

TEST(OutputDir, TargetIsAFileFailsAndCreatesNothing) {
  TempDir tmp;
  std::ofstream(tmp.path() / "out") << "x";
  EXPECT_THROW(write_output_dir((tmp.path() / "out").string(), make_report()), std::runtime_error);
  EXPECT_EQ(tmp.entries(), (std::vector<std::string>{"out"}));
  EXPECT_EQ(read_file(tmp.path() / "out"), "x");
}

TEST(OutputDir, UnwritableParentFailsAndCreatesNothing) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root ignores directory permissions";
  TempDir tmp;
  const fs::path parent = tmp.path() / "ro";
  fs::create_directory(parent);
  fs::permissions(parent, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(write_output_dir((parent / "out").string(), make_report()), std::runtime_error);
  fs::permissions(parent, fs::perms::owner_all);
  EXPECT_TRUE(fs::is_empty(parent));
}

TEST(OutputDir, StreamedFileAppearsOnlyAtCommit) {
  TempDir tmp;
  const fs::path out = tmp.path() / "out";
  {
    OutputDir dir(out.string());
    dir.stream("launches.csv") << "a,b\n";
    EXPECT_FALSE(fs::exists(out));
  } // no commit: the temporary directory goes
  EXPECT_TRUE(tmp.entries().empty());
  OutputDir dir(out.string());
  dir.stream("launches.csv") << "a,b\n";
  dir.write("report.json", "{}\n");
  dir.commit();
  EXPECT_EQ(read_file(out / "launches.csv"), "a,b\n");
  EXPECT_EQ(read_file(out / "report.json"), "{}\n");
  EXPECT_EQ(tmp.entries(), (std::vector<std::string>{"out"}));
}

LaunchRecord timed(uint64_t id, const std::string& stream, int unit,
                   const std::array<uint64_t, 7>& t_ps, bool async) {
  LaunchRecord r;
  r.launch_id = id;
  r.kernel = "k" + std::to_string(id);
  r.stream = stream;
  r.unit = unit;
  r.async = async;
  r.at = Stamps(t_ps);
  return r;
}

// `r` as released on the device by the completion of launch `by` at `at_ps`.
LaunchRecord released(LaunchRecord r, int64_t by, uint64_t at_ps) {
  r.released_by = by;
  r.released_ps = at_ps;
  return r;
}

// `r` as launched by a host that had just woken from a wait for launch `by`.
LaunchRecord woken(LaunchRecord r, int64_t by) {
  r.host_after = by;
  return r;
}

size_t at(TimeCategory c) {
  return static_cast<size_t>(c);
}

// Two async launches on one stream: the second waits in schedule while the first runs.
LaunchTable overlapping() {
  return make_launch_table({timed(0, "s", 0, {0, 10, 20, 30, 40, 100, 120}, true),
                            timed(1, "s", 1, {20, 30, 40, 110, 115, 130, 150}, true)});
}

TEST(Breakdown, EachInstantGoesToTheFirstCategoryInFlight) {
  const TimeBreakdown parts = breakdown(overlapping(), 200);
  EXPECT_EQ(parts[at(TimeCategory::Launch)], 20u);   // [0, 20): only the host
  EXPECT_EQ(parts[at(TimeCategory::Schedule)], 20u); // [20, 30) and [100, 110)
  EXPECT_EQ(parts[at(TimeCategory::Iload)], 15u);    // [30, 40) and [110, 115)
  EXPECT_EQ(parts[at(TimeCategory::Execute)], 75u);  // [40, 100) and [115, 130)
  EXPECT_EQ(parts[at(TimeCategory::Complete)], 20u); // [130, 150)
  EXPECT_EQ(parts[at(TimeCategory::Idle)], 50u);     // [150, 200)
  EXPECT_EQ(std::accumulate(parts.begin(), parts.end(), uint64_t{0}), 200u);
  EXPECT_EQ(breakdown(LaunchTable{}, 7)[at(TimeCategory::Idle)], 7u);
}

TEST(CriticalPath, FollowsTheLaunchThatHeldTheLastOne) {
  // Launch 1 was released by launch 0's completion (its stream predecessor).
  const CriticalPath path = critical_path(
      make_launch_table(
          {timed(0, "s", 0, {0, 10, 20, 30, 40, 100, 120}, true),
           released(timed(1, "s", 1, {20, 30, 40, 110, 115, 130, 150}, true), 0, 100)}),
      200);
  // [150, 200) host; launch 1 from t6 back to its t3; it waited for launch 0 to finish
  // at 100; launch 0 from t5 back to t0.
  EXPECT_EQ(path.ps[at(TimeCategory::Idle)], 50u);
  EXPECT_EQ(path.ps[at(TimeCategory::Complete)], 20u); // launch 1 only
  EXPECT_EQ(path.ps[at(TimeCategory::Execute)], 75u);
  EXPECT_EQ(path.ps[at(TimeCategory::Iload)], 15u);
  EXPECT_EQ(path.ps[at(TimeCategory::Schedule)], 20u); // [100, 110) and [20, 30)
  EXPECT_EQ(path.ps[at(TimeCategory::Launch)], 20u);
  EXPECT_EQ(path.launches, 2u);
  EXPECT_EQ(path.host_gaps, 1u);
  ASSERT_EQ(path.kernels.size(), 2u);
  EXPECT_EQ(path.kernels[0].kernel, "k0"); // 100 of launch 0 against 50 of launch 1
  EXPECT_EQ(path.kernels[0].ps, 100u);
  EXPECT_EQ(path.kernels[1].ps, 50u);
}

TEST(CriticalPath, GoesThroughTheSyncTheHostWokeFrom) {
  // A sync launch, then the host returns 5 after learning of it and launches again.
  const LaunchTable table =
      make_launch_table({timed(0, "s", 0, {0, 10, 20, 30, 40, 100, 120}, false),
                         woken(timed(1, "t", 1, {125, 135, 145, 145, 150, 160, 170}, true), 0)});
  const CriticalPath path = critical_path(table, 170);
  EXPECT_EQ(path.ps[at(TimeCategory::Launch)], 40u);   // both launch calls
  EXPECT_EQ(path.ps[at(TimeCategory::Idle)], 5u);      // [120, 125): the sync returning
  EXPECT_EQ(path.ps[at(TimeCategory::Complete)], 30u); // both
  EXPECT_EQ(path.ps[at(TimeCategory::Execute)], 70u);
  EXPECT_EQ(path.launches, 2u);
  uint64_t sum = 0;
  for (uint64_t ps : path.ps)
    sum += ps;
  EXPECT_EQ(sum, 170u);
}

// The same times with no recorded cause: launch 1 came from the host's submission, so
// the path goes back through its launch call, not through launch 0 that happened to
// finish while it waited.
TEST(CriticalPath, TimesAloneDoNotMakeADependency) {
  const CriticalPath path = critical_path(overlapping(), 200);
  EXPECT_EQ(path.ps[at(TimeCategory::Schedule)], 70u); // [40, 110): launch 1 waited
  EXPECT_EQ(path.ps[at(TimeCategory::Launch)], 40u);   // both calls: [20, 40) and [0, 20)
  EXPECT_EQ(path.ps[at(TimeCategory::Execute)], 15u);  // launch 1 only
  EXPECT_EQ(path.launches, 2u);
  ASSERT_EQ(path.kernels.size(), 2u);
  EXPECT_EQ(path.kernels[0].kernel, "k1");
  EXPECT_EQ(path.kernels[1].ps, 20u); // launch 0's call only
}

// Three kernels: `long` on s2, then on s1 `short`, a wait for an event recorded after
// `long`, and `after`. `after` was released by `long` through the event (the record and
// the wait in between count as device time off the launches); `short` is not on it.
TEST(CriticalPath, FollowsAnEventWaitAcrossStreams) {
  const LaunchTable table = make_launch_table(
      {timed(0, "s2", 0, {0, 5, 10, 15, 20, 1000, 1010}, true),
       timed(1, "s1", 1, {10, 15, 20, 25, 30, 60, 70}, true),
       released(timed(2, "s1", 1, {20, 25, 30, 1012, 1015, 1100, 1110}, true), 0, 1008)});
  const CriticalPath path = critical_path(table, 1110);
  ASSERT_EQ(path.kernels.size(), 2u);
  EXPECT_EQ(path.kernels[0].kernel, "k0");
  EXPECT_EQ(path.kernels[1].kernel, "k2");
  EXPECT_EQ(path.ps[at(TimeCategory::Execute)], 980u + 85u);
  EXPECT_EQ(path.ps[at(TimeCategory::Schedule)], 4u + 5u); // [1008, 1012) and [10, 15)
  EXPECT_EQ(path.ps[at(TimeCategory::Idle)], 8u);          // [1000, 1008): record and wait
  EXPECT_EQ(path.host_gaps, 0u);
  uint64_t sum = 0;
  for (uint64_t ps : path.ps)
    sum += ps;
  EXPECT_EQ(sum, 1110u);
}

TEST(Summary, BreakdownCriticalPathAndUtilisationSections) {
  RunReport report = make_report();
  StatGroup unit{"compute.unit0", {}};
  unit.add("busy_ns", 617.2835, "ns", "");
  unit.add("stalled_on_memory_ns", 123.4567, "ns", "");
  unit.add("idle_ns", 493.827, "ns", "");
  report.blocks.push_back(unit);
  const auto j = to_json(report);
  // The parts add up to the simulated time.
  double sum_ns = 0;
  for (const auto& [key, value] : j["breakdown"].items())
    if (key != "total_ns")
      sum_ns += value.get<double>();
  EXPECT_DOUBLE_EQ(sum_ns, 1234.567);
  EXPECT_DOUBLE_EQ(j["breakdown"]["total_ns"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ(j["critical_path"]["total_ns"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ(j["utilisation"]["compute.unit0"]["busy"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["utilisation"]["icache"]["hit_rate"].get<double>(), 0.75);

  std::ostringstream text;
  print_summary(text, report);
  EXPECT_NE(text.str().find("where the time went, in ns\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("  total                 1234.567  100.0%"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("  compute.unit0     busy 50.0%, stalled 10.0%, idle 40.0%"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("  icache            hit rate 75.0%"), std::string::npos);
  for (const auto& line : lines_of(text.str()))
    EXPECT_LE(line.size(), 80u) << line;
  // The document gives the same text as the report it came from, also once read back.
  std::ostringstream from_json;
  print_summary(from_json, nlohmann::ordered_json::parse(dump_report(j)));
  EXPECT_EQ(from_json.str(), text.str());
}

TEST(Summary, JsonAndCsvFormats) {
  const RunReport report = make_report();
  const auto j = to_json(report);
  std::ostringstream json;
  print_summary(json, j, SummaryFormat::Json);
  EXPECT_EQ(json.str(), dump_report(j));
  std::ostringstream csv;
  print_summary(csv, j, SummaryFormat::Csv);
  const auto lines = lines_of(csv.str());
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "section,name,metric,value,unit");
  const auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("run,,simulated,1234.567,ns")) << csv.str();
  EXPECT_TRUE(has("kernel,matmul,launches,2,count"));
  EXPECT_TRUE(has("kernel,matmul,iload.mean,4.0,ns")) << csv.str();
  EXPECT_TRUE(has("host,,busy,123.456,ns"));
  EXPECT_TRUE(has("stat,icache,misses,256,count"));
  EXPECT_TRUE(has("utilisation,icache,hit_rate,0.75,ratio"));
  EXPECT_EQ(lines.back(), "run,,wall_time,0.5,s");
  for (const auto& line : lines)
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 4) << line;
  EXPECT_EQ(parse_summary_format("csv"), SummaryFormat::Csv);
  EXPECT_THROW(parse_summary_format("xml"), std::invalid_argument);
}

} // namespace
} // namespace npu
