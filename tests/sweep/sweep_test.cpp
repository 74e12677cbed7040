// `npusim sweep` end to end: points as child processes, merged results, failures kept in
// their rows, timeouts, resuming after a kill, `sweep collect` and the plots.
#include "tests/config/test_util.h"
#include "tests/integration/cli_helpers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace npu::test {
namespace {

using Json = nlohmann::json;

class SweepTest : public ScratchDirTest {
protected:
  /// Writes a sweep file into the scratch dir; `body` follows config and testbench.
  std::string sweep_file(const std::string& body, const std::string& testbench = "") {
    const std::string file = (m_dir / "sweep.yaml").string();
    std::ofstream(file) << "name: t\nconfig: " << kSource << "/configs/edge-npu.yaml\n"
                        << "testbench: "
                        << (testbench.empty() ? kSource + "/testbenches/hello.yaml" : testbench)
                        << "\n"
                        << body;
    return file;
  }

  Result sweep(const std::string& args, const std::string& env = "") const {
    return run_command(env + " " + kBinary + " sweep " + args);
  }

  /// results.csv without its wall_s column, the only one that may differ between runs.
  static std::string without_wall(const fs::path& csv) {
    std::istringstream in(slurp(csv));
    std::string out, line;
    while (std::getline(in, line))
      out += line.substr(0, line.rfind(',')) + "\n";
    return out;
  }

  static std::vector<Row> rows(const fs::path& dir) { return read_csv(dir / "results.csv"); }
};

const std::string kGrid = "parameters:\n  icache.size: [8KiB, 32KiB]\n  compute.units: [1, 2]\n"
                          "metrics: [sim.simulated_ns, kernels.gemm.iload.max_ns, "
                          "kernels.gemm.iload.p50_ns]\n";

TEST_F(SweepTest, RunsEveryPointAndMergesTheSameRowsWhateverTheJobs) {
  const std::string file = sweep_file(kGrid);
  const Result one = sweep(file + " --out " + (m_dir / "one").string() + " --jobs 1");
  ASSERT_EQ(one.code, 0) << one.err;
  const Result three = sweep(file + " --out " + (m_dir / "three").string() + " --jobs 3");
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_TRUE(contains(one.out, "sweep t: 4 points, 4 ok, 0 failed, 0 missing"));
  // Not a terminal: one plain line per point.
  EXPECT_TRUE(contains(one.err, "sweep: 4/4 points/")) << one.err;
  EXPECT_EQ(without_wall(m_dir / "one" / "results.csv"),
            without_wall(m_dir / "three" / "results.csv"));

  const auto r = rows(m_dir / "one");
  ASSERT_EQ(r.size(), 4u);
  const std::string csv = slurp(m_dir / "one" / "results.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,testbench,icache.size,compute.units,sim.simulated_ns,kernels.gemm.iload.max_ns,"
            "kernels.gemm.iload.p50_ns,status,error,wall_s");
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].cells.at("status"), "ok");
    EXPECT_EQ(r[i].cells.at("point"), std::to_string(i));
    EXPECT_GT(r[i].num("wall_s"), 0.0);
    // Each metric is the value in that point's own report.
    const Json report =
        Json::parse(slurp(m_dir / "one" / "points" / ("000" + std::to_string(i)) / "report.json"));
    EXPECT_EQ(r[i].num("sim.simulated_ns"), report["sim"]["simulated_ns"].get<double>());
    EXPECT_EQ(r[i].cells.at("icache.size"), report["config"]["icache"]["size"].get<std::string>());
  }
  EXPECT_EQ(r[0].cells.at("icache.size"), "8KiB");
  EXPECT_EQ(r[1].cells.at("compute.units"), "2");
  // gemm's 16KiB binary does not fit an 8KiB cache: its second launch misses again.
  EXPECT_GT(r[0].num("kernels.gemm.iload.p50_ns"), 10 * r[2].num("kernels.gemm.iload.p50_ns"));

  const Json results = Json::parse(slurp(m_dir / "one" / "results.json"));
  ASSERT_EQ(results["points"].size(), 4u);
  EXPECT_EQ(results["points"][3]["parameters"]["icache.size"], "32KiB");
  EXPECT_EQ(results["points"][3]["metrics"]["sim.simulated_ns"].get<double>(),
            r[3].num("sim.simulated_ns"));

  // `sweep collect` merges the same rows again.
  const std::string before = slurp(m_dir / "one" / "results.csv");
  fs::remove(m_dir / "one" / "results.csv");
  const Result collect = sweep("collect " + (m_dir / "one").string());
  ASSERT_EQ(collect.code, 0) << collect.err;
  EXPECT_EQ(slurp(m_dir / "one" / "results.csv"), before);

  // Running the same command again runs nothing: every point has its result.
  const std::string log = (m_dir / "runs.log").string();
  const Result again =
      sweep(file + " --out " + (m_dir / "one").string(), "NPUSIM_TEST_RUN_LOG=" + log);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "4 points, 0 to run"));
  EXPECT_FALSE(fs::exists(log));
  EXPECT_EQ(slurp(m_dir / "one" / "results.csv"), before);
}

TEST_F(SweepTest, ConfirmRerunsTheBestTransactionPointsAtCycleFidelity) {
  const std::string file = sweep_file("fidelity: transaction\nparameters:\n  compute.units: [1, 2, "
                                      "4]\nmetrics: {time: sim.simulated_ns}\nobjective: time\n");
  const fs::path out = m_dir / "out";
  const Result r = sweep(file + " --out " + out.string() + " --jobs 2 --confirm 2");
  ASSERT_EQ(r.code, 0) << r.err;
  // Every point ran at the transaction level.
  for (const auto& row : rows(out)) {
    char dir[16];
    std::snprintf(dir, sizeof dir, "%04d", static_cast<int>(row.num("point")));
    const Json report = Json::parse(slurp(out / "points" / dir / "report.json"));
    EXPECT_EQ(report["sim"]["fidelity"], "transaction");
  }
  EXPECT_TRUE(contains(r.out, "confirm: 2 best points by time (least first), rerun at fidelity "
                              "cycle"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "confirmation error: ")) << r.out;
  const Json confirm = Json::parse(slurp(out / "confirm.json"));
  ASSERT_EQ(confirm["points"].size(), 2u);
  double best = 0;
  for (const auto& row : rows(out))
    best = best == 0 ? row.num("time") : std::min(best, row.num("time"));
  double worst = 0;
  for (const auto& p : confirm["points"]) {
    EXPECT_EQ(p["status"], "ok");
    const Json& time = p["metrics"]["time"];
    const double fast = time["transaction"], cycle = time["cycle"];
    EXPECT_NEAR(time["difference_pct"].get<double>(), 100.0 * (fast - cycle) / cycle, 1e-9);
    worst = std::max(worst, std::abs(time["difference_pct"].get<double>()));
    const std::string dir = p["dir"]; // its transaction-level run: points/NNNN
    const Json rerun =
        Json::parse(slurp(out / "confirm" / dir.substr(dir.rfind('/') + 1) / "report.json"));
    EXPECT_EQ(rerun["sim"]["fidelity"], "cycle");
    EXPECT_DOUBLE_EQ(rerun["sim"]["simulated_ns"].get<double>(), cycle);
  }
  EXPECT_DOUBLE_EQ(confirm["points"][0]["metrics"]["time"]["transaction"].get<double>(), best);
  EXPECT_DOUBLE_EQ(confirm["confirmation_error_pct"].get<double>(), worst);
  // --confirm needs a transaction-level sweep.
  const Result cycle =
      sweep(sweep_file(kGrid) + " --out " + (m_dir / "c").string() + " --confirm 1");
  EXPECT_EQ(cycle.code, 2);
  EXPECT_TRUE(contains(cycle.err, "add `fidelity: transaction`")) << cycle.err;
}

// The best point need not be among the first N: the rerun plan keeps the sweep's point
// numbers (points/0002 is rerun in confirm/0002), whatever its own length.
TEST_F(SweepTest, ConfirmRerunsABestPointThatComesLast) {
  const std::string file =
      sweep_file("fidelity: transaction\nparameters:\n  host.prepare: [20us, 10us, 1us]\n"
                 "metrics: {time: sim.simulated_ns}\nobjective: time\n");
  const fs::path out = m_dir / "out";
  const Result r = sweep(file + " --out " + out.string() + " --jobs 2 --confirm 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  0002 host.prepare=1us: time transaction ")) << r.out;
  const Json confirm = Json::parse(slurp(out / "confirm.json"));
  ASSERT_EQ(confirm["points"].size(), 1u);
  EXPECT_EQ(confirm["points"][0]["point"], 2);
  EXPECT_EQ(confirm["points"][0]["status"], "ok");
  const Json rerun = Json::parse(slurp(out / "confirm" / "0002" / "report.json"));
  EXPECT_EQ(rerun["sim"]["fidelity"], "cycle");
  EXPECT_FALSE(fs::exists(out / "confirm" / "0000"));
}

TEST_F(SweepTest, InvalidAndCrashedPointsFailAloneWithTheirError) {
  const std::string file =
      sweep_file("parameters:\n  compute.units: [1, 0, 2, 3]\nmetrics: [sim.launches]\n");
  const Result r = sweep(file + " --out " + (m_dir / "out").string() + " --jobs 2",
                         "NPUSIM_TEST_ABORT_ON_SET=compute.units=2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "4 points, 2 ok, 2 failed, 0 missing"));
  const auto rs = rows(m_dir / "out");
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[0].cells.at("status"), "ok");
  EXPECT_EQ(rs[0].cells.at("sim.launches"), "6");
  EXPECT_EQ(rs[1].cells.at("status"), "invalid");
  // The error holds a comma, so the CSV quotes it; results.json has it as it is.
  const Json results = Json::parse(slurp(m_dir / "out" / "results.json"));
  EXPECT_EQ(results["points"][1]["error"],
            "--set compute.units=0: error: compute.units: must be at least 1, got 0");
  EXPECT_TRUE(contains(slurp(m_dir / "out" / "results.csv"),
                       ",invalid,\"--set compute.units=0: error: compute.units: must be at least "
                       "1, got 0\","));
  EXPECT_EQ(rs[1].cells.at("sim.launches"), "");
  EXPECT_EQ(rs[2].cells.at("status"), "crashed");
  EXPECT_EQ(rs[2].cells.at("error"), "crashed: signal 6 (Aborted)");
  EXPECT_EQ(rs[3].cells.at("status"), "ok");
  EXPECT_EQ(rs[3].cells.at("sim.launches"), "6");
  // A crashed point keeps its folder, with what the child printed.
  EXPECT_TRUE(fs::exists(m_dir / "out" / "points" / "0002" / "stderr.txt"));

  // --retry-failed runs the crashed point again (now without the hook); invalid stays.
  const Result retry = sweep(file + " --out " + (m_dir / "out").string() + " --retry-failed");
  ASSERT_EQ(retry.code, 0) << retry.err;
  EXPECT_TRUE(contains(retry.err, "4 points, 1 to run"));
  EXPECT_EQ(rows(m_dir / "out")[2].cells.at("status"), "ok");
  EXPECT_EQ(rows(m_dir / "out")[1].cells.at("status"), "invalid");
}

TEST_F(SweepTest, AFailingRunAndATimeoutBecomeRows) {
  const fs::path tb = m_dir / "copy.yaml";
  std::ofstream(tb) << "name: copy\nkernels:\n  k: {op: cycles, cycles: 100, binary: 1KiB}\n"
                       "buffers:\n  x: {size: 4KiB, memory: host}\n  y: {size: 4KiB, memory: ddr}\n"
                       "program:\n  - memcpy: {dst: y, src: x}\n  - launch: {kernel: k}\n";
  // 1GiB through the cycle-approximate DDR takes many seconds of wall time; the SRAM
  // buffer is larger than the SRAM's buffer space, which only the run itself finds out.
  const std::string file =
      sweep_file("mode: zip\nparameters:\n  testbench.buffers.x.size: [4KiB, 1GiB]\n"
                 "  testbench.buffers.y.size: [4KiB, 1GiB]\nmetrics: [sim.launches]\n",
                 tb.string());
  const Result r = sweep(file + " --out " + (m_dir / "out").string() + " --timeout 3s");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rs = rows(m_dir / "out");
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].cells.at("status"), "ok");
  EXPECT_EQ(rs[1].cells.at("status"), "timeout");
  EXPECT_EQ(rs[1].cells.at("error"), "timed out after 3 s");
  EXPECT_LT(rs[1].num("wall_s"), 30.0);
}

TEST_F(SweepTest, BadSweepFilesStopBeforeAnythingRuns) {
  const fs::path out = m_dir / "out";
  const Result typo =
      sweep(sweep_file("parameters:\n  icache.sise: [8KiB]\nmetrics: [sim.launches]\n") +
            " --out " + out.string());
  EXPECT_EQ(typo.code, 2);
  EXPECT_TRUE(contains(typo.err, "sweep.yaml:5:3: error: parameters.icache.sise: not a key of "
                                 "the config: icache.sise: unknown key; did you mean 'size'?"))
      << typo.err;
  EXPECT_EQ(std::count(typo.err.begin(), typo.err.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(out));

  const Result metric =
      sweep(sweep_file("metrics: [kernels.tiny.iload.mean_n]\n") + " --out " + out.string());
  EXPECT_EQ(metric.code, 2);
  EXPECT_TRUE(contains(metric.err, "sweep.yaml:4:11: error: metrics.kernels.tiny.iload.mean_n: "
                                   "'kernels.tiny.iload' has no 'mean_n'; did you mean 'mean_ns'?"))
      << metric.err;
  EXPECT_FALSE(fs::exists(out));

  const Result option =
      sweep(sweep_file("metrics: [sim.launches]\n") + " --out " + out.string() + " --no-wait");
  EXPECT_EQ(option.code, 2);
  EXPECT_TRUE(contains(option.err, "--no-wait needs --launcher slurm"));
  const Result timeout =
      sweep(sweep_file("metrics: [sim.launches]\n") + " --out " + out.string() + " --timeout 10");
  EXPECT_EQ(timeout.code, 2);
  EXPECT_TRUE(contains(timeout.err, "--timeout: ")) << timeout.err;
  const Result collect = sweep("collect " + m_dir.string());
  EXPECT_EQ(collect.code, 2);
  EXPECT_TRUE(contains(collect.err, "not a sweep output directory")) << collect.err;
}

// Each `npusim run` of a point logs "start OUT" and "done OUT CODE" (a test hook).
std::map<std::string, std::pair<int, int>> starts_and_dones(const std::string& log_text,
                                                            size_t from = 0) {
  std::map<std::string, std::pair<int, int>> counts;
  std::istringstream in(log_text.substr(from));
  std::string word, out;
  while (in >> word >> out) {
    const std::string point = fs::path(out).filename().string().substr(0, 4);
    if (word == "start") {
      ++counts[point].first;
    } else {
      std::string code;
      in >> code;
      if (code == "0")
        ++counts[point].second;
    }
  }
  return counts;
}

TEST_F(SweepTest, AKilledSweepResumesWithOnlyTheMissingPoints) {
  const std::string file = sweep_file("parameters:\n  icache.size: [8KiB, 16KiB, 32KiB, 64KiB]\n"
                                      "  compute.units: [1, 2, 4]\nmetrics: [sim.simulated_ns]\n");
  const fs::path out = m_dir / "out";
  const fs::path log = m_dir / "runs.log";
  const std::string command = "cd " + kSource + " && NPUSIM_TEST_RUN_LOG=" + log.string() +
                              " exec " + kBinary + " sweep " + file + " --out " + out.string() +
                              " --jobs 2 >/dev/null 2>&1";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill the sweep (SIGKILL: no chance to clean up) once a few points have finished.
  auto finished = [&] {
    std::set<std::string> done;
    if (fs::exists(out / "points"))
      for (const auto& e : fs::directory_iterator(out / "points"))
        if (e.path().extension().empty() && fs::exists(e.path() / "result.json"))
          done.insert(e.path().filename().string());
    return done;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (finished().size() < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200)); // children die with it
  // Finished are the recorded points and those whose run completed (report.json in
  // place) just before the kill: the resumed sweep records those without running them.
  std::set<std::string> before = finished(), salvaged;
  for (const auto& e : fs::directory_iterator(out / "points"))
    if (e.path().extension() == ".partial" && fs::exists(e.path() / "report.json"))
      salvaged.insert(e.path().stem().string());
  before.insert(salvaged.begin(), salvaged.end());
  ASSERT_GE(before.size(), 4u);
  ASSERT_LT(before.size(), 12u) << "the sweep finished before it could be killed";
  const size_t resumed_at = slurp(log).size();

  const Result again = run_command("NPUSIM_TEST_RUN_LOG=" + log.string() + " " + kBinary +
                                   " sweep " + file + " --out " + out.string() + " --jobs 2");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "12 points, " + std::to_string(12 - before.size()) + " to run"))
      << again.err;
  EXPECT_TRUE(contains(again.out, "12 points, 12 ok, 0 failed, 0 missing"));

  // No finished point ran again; every point finished exactly once overall.
  const std::string text = slurp(log);
  const auto after_resume = starts_and_dones(text, resumed_at);
  for (const auto& point : before)
    EXPECT_EQ(after_resume.count(point), 0u) << point << " ran again";
  const auto all = starts_and_dones(text);
  ASSERT_EQ(all.size(), 12u);
  for (const auto& [point, counts] : all) {
    if (salvaged.count(point)) {
      // Its run was complete when the kill came, perhaps before it logged "done".
      EXPECT_EQ(counts.first, 1) << point << " started " << counts.first << " times";
      EXPECT_LE(counts.second, 1) << point << " finished " << counts.second << " times";
    } else {
      EXPECT_EQ(counts.second, 1) << point << " finished " << counts.second << " times";
    }
  }
  EXPECT_FALSE(fs::exists(out / "points" / "0000.partial"));
  // Nor what the killed points left beside their folders: temporary siblings, locks.
  for (const auto& e : fs::directory_iterator(out / "points")) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
    EXPECT_EQ(name.find(".partial"), std::string::npos) << name;
  }
}

// Linked parameters: rows and cols of the array move together as one axis of the grid;
// a metric reaches a block whose name holds a dot; the heatmap takes the group as an axis.
TEST_F(SweepTest, LinkedParametersRunResumeAndPlotAsOneAxis) {
  const std::string file = sweep_file(
      "parameters:\n  compute.array: [{rows: 32, cols: 32}, {rows: 8, cols: 8}]\n"
      "  compute.units: [1, 2]\n"
      "metrics:\n  - sim.simulated_ns\n  - utilisation.\"compute.unit0\".mac_utilization\n"
      "  - blocks.compute.unit0.busy_ns\n");
  const fs::path out = m_dir / "out";
  const Result first = sweep(file + " --out " + out.string() + " --jobs 2");
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string csv = slurp(out / "results.csv");
  // A column name with quotes is quoted in the CSV, its quotes doubled.
  const std::string mac = "\"utilisation.\"\"compute.unit0\"\".mac_utilization\"";
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,testbench,compute.array,compute.array.rows,compute.array.cols,compute.units,"
            "sim.simulated_ns," +
                mac + ",blocks.compute.unit0.busy_ns,status,error,wall_s");
  const auto r = rows(out);
  ASSERT_EQ(r.size(), 4u);
  const std::vector<std::string> arrays = {"32", "32", "8", "8"}, units = {"1", "2", "1", "2"};
  for (size_t i = 0; i < r.size(); ++i) {
    ASSERT_EQ(r[i].cells.at("status"), "ok") << r[i].cells.at("error");
    EXPECT_EQ(r[i].cells.at("compute.array"), arrays[i]);
    EXPECT_EQ(r[i].cells.at("compute.array.rows"), arrays[i]);
    EXPECT_EQ(r[i].cells.at("compute.array.cols"), arrays[i]);
    EXPECT_EQ(r[i].cells.at("compute.units"), units[i]);
    // Both keys reached the point's config, and the metrics are its report's values.
    const Json report =
        Json::parse(slurp(out / "points" / ("000" + std::to_string(i)) / "report.json"));
    EXPECT_EQ(report["config"]["compute"]["array"]["rows"].get<int>(), std::stoi(arrays[i]));
    EXPECT_EQ(report["config"]["compute"]["array"]["cols"].get<int>(), std::stoi(arrays[i]));
    const Json& unit0 = report["utilisation"]["compute.unit0"];
    EXPECT_EQ(r[i].num(mac), unit0["mac_utilization"].get<double>());
    EXPECT_EQ(r[i].num("blocks.compute.unit0.busy_ns"),
              report["blocks"]["compute.unit0"]["busy_ns"].get<double>());
  }
  // An 8x8 array needs 16 times the passes of a 32x32 one for the same matmul.
  EXPECT_GT(r[2].num("blocks.compute.unit0.busy_ns"), 4 * r[0].num("blocks.compute.unit0.busy_ns"));
  const Json results = Json::parse(slurp(out / "results.json"));
  EXPECT_EQ(results["parameters"], Json({"compute.array", "compute.units"}));
  EXPECT_EQ(results["linked"]["compute.array"], Json({"compute.array.rows", "compute.array.cols"}));
  EXPECT_EQ(results["points"][2]["parameters"]["compute.array.rows"], "8");

  // The same command again keeps every point.
  const std::string log = (m_dir / "runs.log").string();
  const Result again = sweep(file + " --out " + out.string(), "NPUSIM_TEST_RUN_LOG=" + log);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "4 points, 0 to run")) << again.err;
  EXPECT_FALSE(fs::exists(log));

  if (run_command("/usr/bin/python3 -c 'import matplotlib'").code != 0)
    GTEST_SKIP() << "matplotlib is not installed (Debian: python3-matplotlib)";
  const std::vector<std::pair<std::string, std::string>> plots = {
      {"heat.png", "results.csv --heatmap compute.array compute.units --y sim.simulated_ns"},
      {"heat_json.png", "results.json --heatmap compute.units compute.array --y "
                        "utilisation.\\\"compute.unit0\\\".mac_utilization"},
      {"lines.png", "results.csv --x compute.array.rows --y blocks.compute.unit0.busy_ns"},
      {"heat_key.png",
       "results.csv --heatmap compute.array.rows compute.units --y sim.simulated_ns"},
  };
  for (const auto& [name, args] : plots) {
    const fs::path png = m_dir / name;
    const Result p = run_command("/usr/bin/python3 scripts/plot_sweep.py " + out.string() + "/" +
                                 args + " --out " + png.string());
    ASSERT_EQ(p.code, 0) << name << ": " << p.err;
    EXPECT_EQ(slurp(png).substr(1, 3), "PNG") << name;
  }
  // Labels in words with units, the title from the sweep's name, sizes ordered by value.
  const Result labels = run_command(
      "/usr/bin/python3 -c 'import sys; sys.path.insert(0, \"scripts\"); import plot_sweep as p; "
      "r = p.Results(\"" +
      (out / "results.csv").string() +
      "\"); "
      "print(r.title); print(r.axis(\"sim.simulated_ns\", r.rows).label); "
      "print(r.axis(\"compute.array\", r.rows).label); "
      "print(p.ordered([\"128\", \"16\"])); "
      "print(p.ordered([\"rows=64 cols=8\", \"rows=8 cols=16\", \"rows=8 cols=8\"]))'");
  ASSERT_EQ(labels.code, 0) << labels.err;
  EXPECT_EQ(labels.out, "t\nsimulated time (us)\ncompute array (rows = cols)\n['16', '128']\n"
                        "['rows=8 cols=8', 'rows=8 cols=16', 'rows=64 cols=8']\n");
}

TEST_F(SweepTest, PlotsLinesHeatmapAndParetoFront) {
  if (run_command("/usr/bin/python3 -c 'import matplotlib'").code != 0)
    GTEST_SKIP() << "matplotlib is not installed (Debian: python3-matplotlib)";
  const std::string file = sweep_file(kGrid);
  ASSERT_EQ(sweep(file + " --out " + (m_dir / "out").string()).code, 0);
  const std::string results = (m_dir / "out" / "results.csv").string();
  const std::vector<std::pair<std::string, std::string>> plots = {
      {"lines.png", "--x icache.size --y sim.simulated_ns"},
      {"heat.png", "--heatmap icache.size compute.units --y sim.simulated_ns"},
      {"pareto.png", "--pareto sim.simulated_ns kernels.gemm.iload.max_ns"},
  };
  for (const auto& [name, args] : plots) {
    const fs::path png = m_dir / name;
    const Result r = run_command("/usr/bin/python3 scripts/plot_sweep.py " + results + " " + args +
                                 " --out " + png.string());
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    const std::string bytes = slurp(png);
    ASSERT_GT(bytes.size(), 1000u) << name;
    EXPECT_EQ(bytes.substr(1, 3), "PNG") << name;
  }
  // A column the results do not have is an error naming the columns there are.
  const Result bad =
      run_command("/usr/bin/python3 scripts/plot_sweep.py " + results +
                  " --x icache.sise --y sim.simulated_ns --out " + (m_dir / "x.png").string());
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(contains(bad.err, "did you mean 'icache.size'?")) << bad.err;
  EXPECT_FALSE(fs::exists(m_dir / "x.png"));
}

} // namespace
} // namespace npu::test
