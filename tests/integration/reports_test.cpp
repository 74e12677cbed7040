// The summary, `npusim report`, `npusim diff`, --format and --plots through the binary.
#include "cli_helpers.h"
#include "tests/text_lines.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace npu::test;

class ReportsTest : public ScratchDirTest {
protected:
  // Runs a testbench on edge-npu with --out DIR (plus `extra`); returns the result.
  Result run_to(const std::string& testbench, const fs::path& out,
                const std::string& extra = "") const {
    return run("run --config configs/edge-npu.yaml --testbench " + testbench + " --out " +
               out.string() + " " + extra);
  }
};

using test::lines_of;

// The numbers of the "where the time went" table in ns: one row per category, then total.
std::vector<std::array<double, 2>> time_went_rows(const std::string& text) {
  std::vector<std::array<double, 2>> rows;
  const auto lines = lines_of(text);
  auto it = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("where the time went, in ", 0) == 0;
  });
  if (it == lines.end())
    return rows;
  const std::string unit = it->substr(24);
  const double ns = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1;
  for (it += 2; it != lines.end() && it->rfind("  ", 0) == 0 && it->rfind("  critical", 0) != 0;
       ++it) {
    std::istringstream in(it->substr(16));
    std::string run, run_share, path, path_share;
    in >> run >> run_share >> path >> path_share;
    rows.push_back({std::stod(run) * ns, std::stod(path) * ns});
  }
  return rows;
}

} // namespace

TEST_F(ReportsTest, Resnet50SummaryFits80ColumnsAndItsBreakdownAddsUp) {
  const Result r = run_to("testbenches/workloads/resnet50_b1.yaml", m_dir / "out");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& line : lines_of(r.out))
    EXPECT_LE(line.size(), 80u) << line;
  for (const char* section : {"where the time went", "critical path:", "utilisation",
                              "compute.unit0     busy", "ddr               data bus busy"})
    EXPECT_NE(r.out.find(section), std::string::npos) << section << "\n" << r.out;

  const auto report = nlohmann::json::parse(slurp(m_dir / "out" / "report.json"));
  const double simulated_ns = report["sim"]["simulated_ns"];
  for (const char* section : {"breakdown", "critical_path"}) {
    double sum_ns = 0;
    for (const char* part : {"execute_ns", "iload_ns", "schedule_ns", "complete_ns",
                             "host_launch_ns", "device_idle_ns"})
      sum_ns += report[section][part].get<double>();
    EXPECT_NEAR(sum_ns, simulated_ns, simulated_ns * 0.001) << section;
  }
  // The text table adds up too, and its total is the simulated time.
  const auto rows = time_went_rows(r.out);
  ASSERT_EQ(rows.size(), 7u) << r.out;
  for (size_t column = 0; column < 2; ++column) {
    double sum = 0;
    for (size_t i = 0; i + 1 < rows.size(); ++i)
      sum += rows[i][column];
    EXPECT_NEAR(sum, rows.back()[column], rows.back()[column] * 0.001);
    EXPECT_NEAR(rows.back()[column], simulated_ns, simulated_ns * 0.001);
  }
  // A layer-by-layer network on one stream keeps the units busy most of the time.
  EXPECT_GT(report["breakdown"]["execute_ns"].get<double>(), 0.5 * simulated_ns);
  EXPECT_EQ(report["critical_path"]["launches"], 73);
}

TEST_F(ReportsTest, ReportReRendersWhatRunPrinted) {
  for (const char* format : {"text", "json", "csv"}) {
    const fs::path out = m_dir / format;
    const Result r =
        run_to("testbenches/multi_stream.yaml", out, std::string("--format ") + format);
    ASSERT_EQ(r.code, 0) << r.err;
    const Result again = run("report " + out.string() + " --format " + format);
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(again.out, r.out) << format;
  }
  // json is report.json itself; csv has the same figures.
  EXPECT_EQ(run("report " + (m_dir / "json").string() + " --format json").out,
            slurp(m_dir / "json" / "report.json"));
  const auto report = nlohmann::json::parse(slurp(m_dir / "csv" / "report.json"));
  const std::string csv = run("report " + (m_dir / "csv").string() + " --format csv").out;
  EXPECT_EQ(csv.rfind("section,name,metric,value,unit\n", 0), 0u);
  const std::string kernel = report["kernels"].begin().key();
  EXPECT_NE(csv.find("kernel," + kernel + ",execute.p99," +
                     report["kernels"][kernel]["execute"]["p99_ns"].dump() + ",ns\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("breakdown,,execute," + report["breakdown"]["execute_ns"].dump() + ",ns\n"),
            std::string::npos);
  EXPECT_NE(
      csv.find("stat,ddr,read_bytes," + report["blocks"]["ddr"]["read_bytes"].dump() + ",bytes\n"),
      std::string::npos);
  // The text is the default.
  EXPECT_EQ(run("report " + (m_dir / "text").string()).out,
            run("report " + (m_dir / "text").string() + " --format text").out);
}

// The header names the clock of every clocked block, grouped, and the DDR's data rate;
// `clock` moves every block without a frequency of its own.
TEST_F(ReportsTest, HeaderPrintsTheClockOfEveryBlock) {
  const auto clocks_line = [](const std::string& text) {
    for (const auto& line : lines_of(text))
      if (line.rfind("  clocks     ", 0) == 0)
        return line;
    return std::string();
  };
  const Result edge = run_to("testbenches/hello.yaml", m_dir / "edge");
  ASSERT_EQ(edge.code, 0) << edge.err;
  EXPECT_EQ(clocks_line(edge.out),
            "  clocks     1GHz: dma, sram, icache, scheduler, compute; ddr 3.2GT/s");
  const Result moved = run_to("testbenches/hello.yaml", m_dir / "moved",
                              "--set clock=2GHz --set compute.frequency=1.5GHz");
  ASSERT_EQ(moved.code, 0) << moved.err;
  EXPECT_EQ(clocks_line(moved.out),
            "  clocks     2GHz: dma, sram, icache, scheduler; 1.5GHz: compute; ddr 3.2GT/s");
  const Result npu = run("run --config datacenter-npu --testbench testbenches/hello.yaml");
  ASSERT_EQ(npu.code, 0) << npu.err;
  EXPECT_EQ(clocks_line(npu.out),
            "  clocks     1.83GHz: dma, sram, icache, scheduler; 1.8GHz: compute; ddr 3.2GT/s");
}

// The DMA line's total is the bytes it copied over the simulated time, as the DDR's
// bandwidth is; per busy channel is what one channel moves while it works.
TEST_F(ReportsTest, DmaLineGivesTotalAndPerBusyChannelBandwidth) {
  for (const char* config : {"edge-npu", "datacenter-gpu"}) {
    const fs::path out = m_dir / config;
    const Result r = run(std::string("run --config ") + config +
                         " --testbench testbenches/hello.yaml --out " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto report = nlohmann::json::parse(slurp(out / "report.json"));
    const double simulated_ns = report["sim"]["simulated_ns"];
    const auto& dma = report["blocks"]["dma"];
    const double dma_bytes = dma["bytes"];
    const auto& ddr = report["blocks"]["ddr"];
    const double ddr_bytes = ddr["read_bytes"].get<double>() + ddr["write_bytes"].get<double>();
    const auto& u = report["utilisation"]["dma"];
    const double total = u["total_gbps"], per_channel = u["per_busy_channel_gbps"];
    const double busy = u["busy"];
    const int channels = report["config"]["dma"]["channels"];
    double channel_bytes = 0;
    for (int i = 0; i < channels; ++i)
      channel_bytes += dma["channel" + std::to_string(i) + "_bytes"].get<double>();
    EXPECT_DOUBLE_EQ(channel_bytes, dma_bytes) << config;
    // GB/s is bytes per ns.
    EXPECT_NEAR(total, dma_bytes / simulated_ns, 1e-9 * total) << config;
    EXPECT_NEAR(report["utilisation"]["ddr"]["bandwidth_gbps"].get<double>(),
                ddr_bytes / simulated_ns, 1e-9 * ddr_bytes / simulated_ns);
    // Every byte a copy moves passes the DDR (host memory is DDR on the SoC, and the card's
    // copies from the host write into HBM), so the DMA's total stays below the DDR's.
    EXPECT_GT(total, 0) << config;
    EXPECT_LE(total, ddr_bytes / simulated_ns) << config;
    EXPECT_NEAR(per_channel * busy * channels, total, 1e-6 * total) << config;
    EXPECT_GE(per_channel * channels, total) << config;
    char line[160];
    std::snprintf(line, sizeof line,
                  "  dma               busy %.1f%%, total %.2f GB/s, per busy channel %.2f GB/s",
                  100 * busy, total, per_channel);
    EXPECT_NE(r.out.find(std::string(line) + "\n"), std::string::npos) << line << "\n" << r.out;
  }
}

TEST_F(ReportsTest, DiffOfInstructionCacheSizesNamesIload) {
  ASSERT_EQ(run_to("testbenches/iload_dominates.yaml", m_dir / "small").code, 0);
  ASSERT_EQ(
      run_to("testbenches/iload_dominates.yaml", m_dir / "big", "--set icache.size=512KiB").code,
      0);
  const Result r = run("diff " + (m_dir / "small").string() + " " + (m_dir / "big").string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\nphase that changed most: iload ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nstatistic that changed most: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  big_code "), std::string::npos) << r.out;
  // The inputs that differ come first: the one --set, and the instruction cache's energies
  // per lookup and per fill that its size sets; nothing else.
  EXPECT_NE(r.out.find("\nconfig and testbench (3 differ)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  config.icache.size "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  config.energy.icache.lookup_pj "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  config.energy.icache.fill_pj "), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("config.icache.size"), r.out.find("\nphases, all launches"));
  for (const auto& line : lines_of(r.out))
    EXPECT_LE(line.size(), 80u) << line;
  // A run against itself changes nothing.
  const Result same = run("diff " + (m_dir / "small").string() + " " + (m_dir / "small").string());
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.out.find("phase that changed most: none"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("config and testbench: the same in A and B"), std::string::npos);
}

TEST_F(ReportsTest, FidelityIsInTheReportTheSummaryAndTheDiff) {
  const Result cycle = run_to("testbenches/hello.yaml", m_dir / "cycle");
  ASSERT_EQ(cycle.code, 0) << cycle.err;
  const Result fast =
      run_to("testbenches/hello.yaml", m_dir / "fast", "--set ddr.model=transaction");
  ASSERT_EQ(fast.code, 0) << fast.err;
  EXPECT_NE(cycle.out.find("\n  fidelity   cycle "), std::string::npos) << cycle.out;
  EXPECT_NE(fast.out.find("\n  fidelity   transaction "), std::string::npos) << fast.out;
  for (const auto& [dir, fidelity] : {std::pair{"cycle", "cycle"}, {"fast", "transaction"}}) {
    std::ifstream in(m_dir / dir / "report.json");
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["sim"]["fidelity"], fidelity);
    EXPECT_EQ(j["config"]["ddr"]["model"], fidelity);
  }
  // Runs of different fidelity: the first line says so, and the config's ddr.model differs.
  const Result d = run("diff " + (m_dir / "cycle").string() + " " + (m_dir / "fast").string());
  ASSERT_EQ(d.code, 0) << d.err;
  const auto lines = lines_of(d.out);
  ASSERT_GE(lines.size(), 1u) << d.out;
  EXPECT_EQ(lines[0].rfind("npusim diff: runs of different fidelity, A cycle and B transaction", 0),
            0u)
      << d.out;
  EXPECT_NE(d.out.find("\n  config.ddr.model "), std::string::npos) << d.out;
  // One fidelity: a plain first line.
  const Result same = run("diff " + (m_dir / "fast").string() + " " + (m_dir / "fast").string());
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(lines_of(same.out)[0], "npusim diff") << same.out;
}

TEST_F(ReportsTest, ReportAndDiffRejectBadDirectories) {
  const Result missing = run("report " + (m_dir / "nope").string());
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("nope: error: no such directory; expected the --out directory"),
            std::string::npos)
      << missing.err;

  fs::create_directories(m_dir / "empty");
  const Result empty = run("diff " + (m_dir / "empty").string() + " " + (m_dir / "empty").string());
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("report.json: error: cannot read it"), std::string::npos) << empty.err;

  fs::create_directories(m_dir / "broken");
  std::ofstream(m_dir / "broken" / "report.json") << "{\n  \"sim\": {,\n}\n";
  const Result broken = run("report " + (m_dir / "broken").string());
  EXPECT_EQ(broken.code, 2);
  EXPECT_NE(broken.err.find("report.json:2:11: error: invalid JSON"), std::string::npos)
      << broken.err;
  EXPECT_EQ(std::count(broken.err.begin(), broken.err.end(), '\n'), 1);

  fs::create_directories(m_dir / "typo");
  std::ofstream(m_dir / "typo" / "report.json")
      << R"({"simm": {}, "kernels": {}, "host": {}, "blocks": {}, "config_name": "x"})";
  const Result typo = run("report " + (m_dir / "typo").string());
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("error: sim: missing; expected an object in an npusim report.json; "
                          "did you mean 'simm'?"),
            std::string::npos)
      << typo.err;
  EXPECT_TRUE(typo.out.empty());
}

namespace {

// Width and height from a PNG's IHDR chunk; {0, 0} when it is not a PNG.
std::array<uint32_t, 2> png_size(const fs::path& path) {
  const std::string bytes = slurp(path);
  if (bytes.size() < 24 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 ||
      bytes.compare(12, 4, "IHDR") != 0)
    return {0, 0};
  const auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i)
      v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

bool have_matplotlib() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

} // namespace

TEST_F(ReportsTest, PlotsRenderEveryPngAtItsSize) {
  if (!have_matplotlib())
    GTEST_SKIP() << "python3-matplotlib is not installed (scripts/setup.sh installs it)";
  const fs::path out = m_dir / "out";
  const Result r = run_to("testbenches/multi_stream.yaml", out, "--plots");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const std::pair<const char*, std::array<uint32_t, 2>> expected[] = {
      {"timeline.png", {1600, 900}},
      {"phases.png", {1200, 800}},
      {"histograms.png", {1200, 800}},
      {"roofline.png", {1200, 800}}};
  for (const auto& [name, size] : expected) {
    ASSERT_TRUE(fs::exists(out / name)) << name;
    EXPECT_GT(fs::file_size(out / name), 10000u) << name; // a drawn figure, not a blank one
    EXPECT_EQ(png_size(out / name), size) << name;
  }
  EXPECT_TRUE(fs::exists(out / "report.json"));
  // No temporary files are left.
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_EQ(e.path().extension() == ".tmp", false) << e.path();
}

// Kernels on four, two and one of edge-npu's units; the host launches every batch
// before the first has run, so launches wait in their queues.
const char* kMultiUnitTestbench = R"(name: multi-unit
kernels:
  wide: {op: matmul, m: 200, n: 256, k: 256, dtype: int8, binary: 16KiB, units: 4}
  pair: {op: cycles, cycles: 20000, binary: 4KiB, units: 2}
  one: {op: cycles, cycles: 5000, binary: 2KiB, units: 1}
streams: [s1, s2]
program:
  - repeat:
      count: 4
      body:
        - launch: {kernel: wide, stream: s1, async: true}
        - launch: {kernel: pair, stream: s2, async: true}
        - launch: {kernel: one, stream: s1, async: true}
  - sync: s1
  - sync: s2
)";

// Splits "a;b;c" into its fields.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ';');)
    out.push_back(item);
  return out;
}

// The timeline draws each launch on every unit it ran on, from launches.csv: each unit
// row's bars add up to that unit's occupied time in report.json, and a launch waiting in
// its queue is a thin marker, not a bar.
TEST_F(ReportsTest, TimelineDrawsEveryUnitOfALaunchAndQueuedLaunchesAsMarkers) {
  if (!have_matplotlib())
    GTEST_SKIP() << "python3-matplotlib is not installed (scripts/setup.sh installs it)";
  const fs::path testbench = m_dir / "multi_unit.yaml";
  std::ofstream(testbench) << kMultiUnitTestbench;
  const fs::path out = m_dir / "out";
  const Result r = run_to(testbench.string(), out);
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path dump = m_dir / "timeline.json";
  const Result plot = run_command("/usr/bin/python3 scripts/plot_run.py " + out.string() +
                                  " --only timeline --dump-timeline " + dump.string());
  ASSERT_EQ(plot.code, 0) << plot.err;
  EXPECT_EQ(png_size(out / "timeline.png"), (std::array<uint32_t, 2>{1600, 900}));
  const auto shapes = nlohmann::json::parse(slurp(dump));
  const auto report = nlohmann::json::parse(slurp(out / "report.json"));

  // launch id -> unit -> [t3, t4, t5] from launches.csv
  std::map<int64_t, std::map<int, std::array<double, 3>>> ran;
  std::map<int64_t, Row> rows;
  for (const Row& row : read_csv(out / "launches.csv")) {
    const int64_t id = std::stoll(row.cells.at("launch_id"));
    rows[id] = row;
    const auto units = split_list(row.cells.at("units"));
    const auto t4 = split_list(row.cells.at("unit_t4_ns"));
    const auto t5 = split_list(row.cells.at("unit_t5_ns"));
    ASSERT_EQ(t4.size(), units.size()) << id;
    ASSERT_EQ(t5.size(), units.size()) << id;
    const std::string& kernel = row.cells.at("kernel");
    EXPECT_EQ(units.size(), kernel == "wide" ? 4u : kernel == "pair" ? 2u : 1u) << id;
    EXPECT_NE(std::find(units.begin(), units.end(), row.cells.at("unit")), units.end()) << id;
    for (size_t i = 0; i < units.size(); ++i)
      ran[id][std::stoi(units[i])] = {row.num("t3_ns"), std::stod(t4[i]), std::stod(t5[i])};
    // t5 is the last unit's end; every unit starts at t3.
    double last = 0;
    for (const auto& t : t5)
      last = std::max(last, std::stod(t));
    EXPECT_NEAR(last, row.num("t5_ns"), 0.0005) << id;
  }
  ASSERT_EQ(ran.size(), 12u);

  // Every unit part is drawn on its own row, and nothing else is drawn on unit rows.
  std::map<int, double> drawn_ns; // unit -> iload + execute
  std::map<std::pair<int64_t, int>, std::array<double, 3>> seen;
  bool queued_for_long = false;
  for (const auto& bar : shapes.at("bars")) {
    const std::string track = bar.at("track");
    const int64_t id = bar.at("launch_id");
    const double start = bar.at("start_ns"), stop = bar.at("stop_ns");
    const std::string phase = bar.at("phase");
    if (track.rfind("unit ", 0) == 0) {
      const int unit = std::stoi(track.substr(5));
      ASSERT_TRUE(ran[id].count(unit)) << "launch " << id << " drawn on unit " << unit;
      const auto& t = ran[id][unit];
      if (phase == "iload") {
        EXPECT_NEAR(start, t[0], 0.0005);
        EXPECT_NEAR(stop, t[1], 0.0005);
      } else {
        ASSERT_EQ(phase, "execute");
        EXPECT_NEAR(start, t[1], 0.0005);
        EXPECT_NEAR(stop, t[2], 0.0005);
        seen[{id, unit}] = t;
      }
      drawn_ns[unit] += stop - start;
    } else if (phase == "schedule") {
      // Only the dispatch part of the schedule phase is a bar.
      EXPECT_NEAR(stop - start, rows[id].num("schedule_dispatch_ns"), 0.002) << id;
    }
  }
  for (const auto& [id, units] : ran)
    for (const auto& [unit, t] : units)
      EXPECT_TRUE(seen.count({id, unit}) || t[2] == t[1])
          << "launch " << id << " has no execute bar on unit " << unit;
  for (const auto& marker : shapes.at("markers")) {
    const int64_t id = marker.at("launch_id");
    EXPECT_EQ(marker.at("phase"), "queued");
    EXPECT_EQ(marker.at("track").get<std::string>().rfind("queue of stream ", 0), 0u);
    const double length = marker.at("stop_ns").get<double>() - marker.at("start_ns").get<double>();
    EXPECT_NEAR(length, rows[id].num("schedule_wait_ns"), 0.002) << id;
    queued_for_long = queued_for_long || length > 1000;
  }
  EXPECT_TRUE(queued_for_long) << "no launch waited in its queue; the test lost its point";

  // Each unit's bars cover the time the unit had a kernel: busy plus stalled, that is
  // everything but idle (report.json's utilisation rows), to rounding.
  const double simulated_ns = report.at("sim").at("simulated_ns");
  ASSERT_EQ(drawn_ns.size(), 4u);
  for (const auto& [unit, ns] : drawn_ns) {
    const auto& u = report.at("utilisation").at("compute.unit" + std::to_string(unit));
    const double occupied =
        (u.at("busy").get<double>() + u.at("stalled").get<double>()) * simulated_ns;
    EXPECT_NEAR(ns, occupied, 0.01 * static_cast<double>(ran.size()) + 1e-9 * simulated_ns)
        << "unit " << unit;
    const auto& block = report.at("blocks").at("compute.unit" + std::to_string(unit));
    EXPECT_NEAR(ns, simulated_ns - block.at("idle_ns").get<double>(), 0.01 * ran.size())
        << "unit " << unit;
  }
}

TEST_F(ReportsTest, PlotsWithoutMatplotlibSayHowToGetItAndKeepTheReport) {
  const fs::path fake = m_dir / "python-without-matplotlib";
  std::ofstream(fake) << "#!/bin/sh\nexit 1\n";
  fs::permissions(fake, fs::perms::owner_all);
  const fs::path out = m_dir / "out";
  const Result r = run_command("NPUSIM_PYTHON=" + fake.string() + " " + kBinary +
                               " run --config configs/edge-npu.yaml --testbench "
                               "testbenches/hello.yaml --out " +
                               out.string() + " --plots");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("apt-get install python3-matplotlib"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("npusim summary"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "report.json"));
  EXPECT_TRUE(fs::exists(out / "launches.csv"));
  EXPECT_FALSE(fs::exists(out / "timeline.png"));

  const Result no_out = run("run --config configs/edge-npu.yaml --testbench "
                            "testbenches/hello.yaml --plots");
  EXPECT_EQ(no_out.code, 2);
  EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
}

namespace {

// report.json's layers, by kernel name.
std::map<std::string, nlohmann::json> layers_by_kernel(const nlohmann::json& report) {
  std::map<std::string, nlohmann::json> layers;
  for (const auto& l : report.at("layers"))
    layers[l.at("kernel").get<std::string>()] = l;
  return layers;
}

// Nanoseconds as the summary prints microseconds: "6470.123".
std::string fmt_us(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", ns / 1e3);
  return text;
}

double sum_of(const nlohmann::json& layers, const char* key) {
  double sum = 0;
  for (const auto& l : layers)
    sum += l.at(key).get<double>();
  return sum;
}

// A GEMV (1 x 2048 by 2048 x 2048) as an ONNX model with fixed shapes: both operands are
// graph inputs, so the 4 MiB matrix is read from DDR once for 4 M MACs.
const char* kGemvModel = R"(import sys
import onnx
from onnx import helper, TensorProto
a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 2048])
b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [2048, 2048])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2048])
node = helper.make_node("MatMul", ["a", "b"], ["y"], name="gemv")
graph = helper.make_graph([node], "gemv", [a, b], [y])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
)";

} // namespace

// The per-layer figures add up to the run's: launches, MACs and DRAM bytes to what the
// units counted, execute and launch-to-completion to launches.csv, and each kernel's
// time with the device's idle time to the simulated time; the summary and layers.csv
// fit in 80 columns and agree with report.json.
TEST_F(ReportsTest, Resnet50LayersAddUpToTheRun) {
  const fs::path out = m_dir / "out";
  const Result r = run_to("testbenches/workloads/resnet50_b1.yaml", out);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  const auto& layers = report.at("layers");
  ASSERT_EQ(layers.size(), 73u);
  EXPECT_EQ(sum_of(layers, "launches"), report["sim"]["launches"].get<double>());

  // MACs and bytes: what the compute units counted, kernel by kernel.
  double unit_macs = 0, unit_bytes = 0;
  for (const auto& [name, block] : report["blocks"].items())
    if (name.rfind("compute.unit", 0) == 0) {
      unit_macs += block["macs"].get<double>();
      unit_bytes += block["bytes_loaded"].get<double>() + block["bytes_stored"].get<double>();
    }
  EXPECT_EQ(sum_of(layers, "macs"), unit_macs);
  EXPECT_EQ(sum_of(layers, "macs"), 4089184256.0);     // the workload's MACs (README)
  EXPECT_EQ(sum_of(layers, "dram_bytes"), unit_bytes); // every operand lives in DDR
  EXPECT_LE(sum_of(layers, "dram_bytes"), report["blocks"]["ddr"]["read_bytes"].get<double>() +
                                              report["blocks"]["ddr"]["write_bytes"].get<double>());

  // Times: the sums over launches.csv, and the run's simulated time.
  double execute_ns = 0, total_ns = 0;
  for (const Row& row : read_csv(out / "launches.csv")) {
    execute_ns += row.num("execute_ns");
    total_ns += row.num("t6_ns") - row.num("t0_ns");
  }
  EXPECT_NEAR(sum_of(layers, "execute_ns"), execute_ns, 0.001 * 73);
  EXPECT_NEAR(sum_of(layers, "total_ns"), total_ns, 0.001 * 73);
  const double simulated_ns = report["sim"]["simulated_ns"];
  EXPECT_NEAR(sum_of(layers, "time_ns") + report["breakdown"]["device_idle_ns"].get<double>(),
              simulated_ns, 0.001 * 74);
  for (size_t i = 1; i < layers.size(); ++i)
    EXPECT_GE(layers[i - 1]["time_ns"].get<double>(), layers[i]["time_ns"].get<double>()) << i;

  // layers.csv: the same figures, rounded, and the idle row; 80 columns.
  const std::string csv = slurp(out / "layers.csv");
  for (const auto& line : lines_of(csv))
    EXPECT_LE(line.size(), 80u) << line;
  const std::vector<Row> rows = read_csv(out / "layers.csv");
  ASSERT_EQ(rows.size(), 74u);
  double time_us = 0, macs_m = 0, dram_mb = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    time_us += rows[i].num("time_us");
    if (i == 73) {
      EXPECT_EQ(rows[i].cells.at("kernel"), "(device idle)");
      continue;
    }
    macs_m += rows[i].num("macs_m");
    dram_mb += rows[i].num("dram_mb");
    EXPECT_EQ(rows[i].cells.at("kernel"), layers[i]["kernel"]);
    EXPECT_EQ(rows[i].cells.at("bound"), layers[i]["bound"]);
    EXPECT_NEAR(rows[i].num("exec_us"), layers[i]["execute_ns"].get<double>() / 1e3, 0.00051);
  }
  EXPECT_NEAR(time_us, simulated_ns / 1e3, 0.0005 * 74);
  EXPECT_NEAR(macs_m, sum_of(layers, "macs") / 1e6, 0.0005 * 73);
  EXPECT_NEAR(dram_mb, sum_of(layers, "dram_bytes") / 1e6, 0.0005 * 73);

  // The summary: the 20 kernels with the most time, the other 53 in one line, the idle
  // time and the run; every line in 80 columns; no per-phase tables without --detail.
  const auto lines = lines_of(r.out);
  const auto title = std::find(lines.begin(), lines.end(),
                               "layers: 20 of 73 kernels, most time first, times in us");
  ASSERT_NE(title, lines.end()) << r.out;
  ASSERT_GT(lines.end() - title, 25);
  // The top kernel first: its name (cut to 12 characters), padded to the column.
  const std::string top = layers[0]["kernel"].get<std::string>().substr(0, 12);
  EXPECT_EQ(title[2].rfind("  " + top + " ", 0), 0u) << title[2];
  EXPECT_EQ(title[22].rfind("  53 more", 0), 0u) << title[22];
  EXPECT_EQ(title[23].rfind("  device idle", 0), 0u) << title[23];
  EXPECT_EQ(title[24].rfind("  run             73 ", 0), 0u) << title[24];
  EXPECT_NE(title[24].find(fmt_us(simulated_ns)), std::string::npos) << title[24];
  EXPECT_EQ(r.out.find("\nkernel conv1:"), std::string::npos);
  for (const auto& line : lines)
    EXPECT_LE(line.size(), 80u) << line;

  // --layers all and --layers N, and --detail, also on a saved run.
  const std::string all = run("report " + out.string() + " --layers all").out;
  EXPECT_NE(all.find("layers: 73 kernels, most time first"), std::string::npos);
  EXPECT_EQ(all.find("\n  53 more"), std::string::npos);
  const std::string five = run("report " + out.string() + " --layers 5 --detail").out;
  EXPECT_NE(five.find("layers: 5 of 73 kernels"), std::string::npos);
  EXPECT_NE(five.find("  68 more"), std::string::npos);
  EXPECT_NE(five.find("\nkernel conv1: 1 launch, times in us\n"), std::string::npos) << five;
  EXPECT_EQ(run("report " + out.string()).out, r.out);
  for (const char* bad : {"0", "some", "12x", ""}) {
    const Result refused = run("report " + out.string() + " --layers '" + bad + "'");
    EXPECT_EQ(refused.code, 2) << bad;
    EXPECT_NE(refused.err.find("--layers"), std::string::npos) << refused.err;
  }
}

// What bounds a kernel, on testbenches with one bound each: hello's 256^3 matmul on one
// unit of datacenter-gpu (compute: its HBM moves the operands in a twentieth of the
// time its array takes) and its tiny kernel that runs faster than the host launches it
// (host); iload_dominates' 256 KiB binary (iload); a GEMV that reads a 4 MiB matrix once
// (memory), imported on the fly with --model.
TEST_F(ReportsTest, BoundComesFromTheModelsFigures) {
  Result r = run_to("testbenches/hello.yaml", m_dir / "hello");
  ASSERT_EQ(r.code, 0) << r.err;
  auto report = nlohmann::json::parse(slurp(m_dir / "hello" / "report.json"));
  auto layers = layers_by_kernel(report);
  // On edge-npu's one unit: 2 x 256^3 MACs at 1024 a nanosecond.
  EXPECT_EQ(layers.at("gemm")["macs"], 2 * 256 * 256 * 256);
  EXPECT_NEAR(layers.at("gemm")["compute_roof_ns"].get<double>(), 2 * 16384.0, 0.01);
  EXPECT_NEAR(layers.at("gemm")["memory_roof_ns"].get<double>(),
              layers.at("gemm")["dram_bytes"].get<double>() / 25.6, 0.001);
  EXPECT_EQ(layers.at("tiny")["bound"], "host");
  EXPECT_GT(layers.at("tiny")["host_ns"].get<double>(),
            layers.at("tiny")["iload_ns"].get<double>() +
                layers.at("tiny")["execute_ns"].get<double>());
  EXPECT_EQ(report["peaks"]["macs_per_s"], 4 * 1024 * 1e9);
  EXPECT_EQ(report["peaks"]["dram_bytes_per_s"], 25.6e9);

  r = run("run --config configs/datacenter-gpu.yaml --testbench testbenches/hello.yaml --out " +
          (m_dir / "gpu").string());
  ASSERT_EQ(r.code, 0) << r.err;
  report = nlohmann::json::parse(slurp(m_dir / "gpu" / "report.json"));
  layers = layers_by_kernel(report);
  const auto& gemm = layers.at("gemm");
  EXPECT_EQ(gemm["bound"], "compute");
  EXPECT_GT(gemm["compute_roof_ns"].get<double>(), 10 * gemm["memory_roof_ns"].get<double>());
  EXPECT_GT(gemm["mac_utilisation"].get<double>(), 0.2);

  r = run_to("testbenches/iload_dominates.yaml", m_dir / "iload");
  ASSERT_EQ(r.code, 0) << r.err;
  report = nlohmann::json::parse(slurp(m_dir / "iload" / "report.json"));
  layers = layers_by_kernel(report);
  EXPECT_EQ(layers.at("big_code")["bound"], "iload");
  EXPECT_GT(layers.at("big_code")["iload_ns"].get<double>(),
            10 * layers.at("big_code")["execute_ns"].get<double>());

  const fs::path model = m_dir / "gemv.onnx";
  const fs::path script = m_dir / "gemv.py";
  std::ofstream(script) << kGemvModel;
  ASSERT_EQ(run_command("/usr/bin/python3 " + script.string() + " " + model.string()).code, 0);
  r = run("run --config configs/edge-npu.yaml --model " + model.string() + " --out " +
          (m_dir / "gemv").string() + " --layers all --detail");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("layers: 1 kernel, most time first"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nkernel gemv: 1 launch"), std::string::npos) << r.out;
  report = nlohmann::json::parse(slurp(m_dir / "gemv" / "report.json"));
  layers = layers_by_kernel(report);
  const auto& gemv = layers.at("gemv");
  EXPECT_EQ(gemv["bound"], "memory");
  EXPECT_EQ(gemv["macs"], 2048 * 2048);
  // The matrix is read once, in int8: at least 4 MiB from DDR, about one MAC a byte.
  EXPECT_GE(gemv["dram_bytes"].get<uint64_t>(), 2048u * 2048u);
  EXPECT_LT(gemv["macs_per_byte"].get<double>(), 1.0);
  EXPECT_GT(gemv["memory_roof_ns"].get<double>(), 4 * gemv["compute_roof_ns"].get<double>());
  EXPECT_NEAR(gemv["memory_roof_ns"].get<double>(), gemv["dram_bytes"].get<double>() / 25.6, 0.001);
}

// roofline.png plots each kernel with MACs and DRAM bytes at the intensity and MAC rate
// of layers.csv, under the roofs of report.json's peaks.
TEST_F(ReportsTest, RooflinePlotsTheKernelsOfLayersCsv) {
  if (!have_matplotlib())
    GTEST_SKIP() << "python3-matplotlib is not installed (scripts/setup.sh installs it)";
  const fs::path out = m_dir / "out";
  const Result r = run_to("testbenches/sync_vs_async.yaml", out);
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path dump = m_dir / "roofline.json";
  const Result plot = run_command("/usr/bin/python3 scripts/plot_run.py " + out.string() +
                                  " --only roofline --dump-roofline " + dump.string());
  ASSERT_EQ(plot.code, 0) << plot.err;
  EXPECT_EQ(png_size(out / "roofline.png"), (std::array<uint32_t, 2>{1200, 800}));
  EXPECT_FALSE(fs::exists(out / "timeline.png"));
  const auto data = nlohmann::json::parse(slurp(dump));
  EXPECT_EQ(data.at("macs_per_s"), 4 * 1024 * 1e9); // edge-npu: 4 units of 32 x 32 at 1 GHz
  EXPECT_EQ(data.at("dram_bytes_per_s"), 25.6e9);   // 4 LPDDR4 channels

  std::map<std::string, Row> rows;
  size_t kernels = 0, with_bytes = 0;
  for (const Row& row : read_csv(out / "layers.csv")) {
    if (row.cells.at("kernel") == "(device idle)")
      continue;
    ++kernels;
    with_bytes += row.num("macs_m") > 0 && row.num("dram_mb") > 0 ? 1 : 0;
    rows[row.cells.at("kernel")] = row;
  }
  const auto& points = data.at("points");
  EXPECT_EQ(points.size(), with_bytes);
  EXPECT_EQ(points.size() + data.at("left_out").get<size_t>(), kernels);
  EXPECT_GE(points.size(), 6u); // the matmuls of every size, sync and async
  for (const auto& p : points) {
    const Row& row = rows.at(p.at("kernel").get<std::string>());
    // Within what the CSV's 3 decimals of each figure allow.
    const double macs = row.num("macs_m"), bytes = row.num("dram_mb"), us = row.num("exec_us");
    const double intensity = p.at("macs_per_byte"), rate = p.at("macs_per_s");
    EXPECT_GE(intensity, (macs - 0.0005) / (bytes + 0.0005)) << row.cells.at("kernel");
    EXPECT_LE(intensity, (macs + 0.0005) / (bytes - 0.0005)) << row.cells.at("kernel");
    EXPECT_GE(rate, (macs - 0.0005) * 1e12 / (us + 0.0005)) << row.cells.at("kernel");
    EXPECT_LE(rate, (macs + 0.0005) * 1e12 / (us - 0.0005)) << row.cells.at("kernel");
    EXPECT_EQ(p.at("bound"), row.cells.at("bound"));
    // Under both roofs.
    EXPECT_LE(p.at("macs_per_s").get<double>(), data.at("macs_per_s").get<double>());
    EXPECT_LE(p.at("macs_per_s").get<double>(),
              p.at("macs_per_byte").get<double>() * data.at("dram_bytes_per_s").get<double>());
  }
}
