// End-to-end checks through the npusim binary: the contract users and scripts rely on.
#include "cli_helpers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace npu::test;

class CliTest : public ScratchDirTest {
protected:
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = m_dir / name;
    std::ofstream(p) << text;
    return p;
  }
};

const char* kHeader =
    "launch_id,kernel,stream,unit,t0_ns,t1_ns,t2_ns,t3_ns,t4_ns,t5_ns,t6_ns,prepare_ns,submit_ns,"
    "schedule_wait_ns,schedule_dispatch_ns,iload_ns,execute_ns,complete_ns,execute_ifetch_stall_ns,"
    "released_by,host_after,units,unit_t4_ns,unit_t5_ns";

} // namespace

TEST_F(CliTest, HelloPhasesSumAndSyncAsyncSemantics) {
  const fs::path out = m_dir / "out";
  const Result r =
      run("run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml --out " +
          out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  gemm             2 "), std::string::npos) << r.out;
  std::ifstream csv(out / "launches.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, kHeader);
  const auto rows = read_csv(out / "launches.csv");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& row : rows) {
    EXPECT_NEAR(phase_sum_ns(row), row.num("t6_ns") - row.num("t0_ns"), 0.001)
        << row.cells.at("launch_id");
    for (int i = 1; i <= 6; ++i)
      EXPECT_LE(row.num("t" + std::to_string(i - 1) + "_ns"),
                row.num("t" + std::to_string(i) + "_ns"));
  }
  // Launches 0 and 1 are synchronous: the host's next call starts after t6.
  EXPECT_GE(rows[1].num("t0_ns"), rows[0].num("t6_ns"));
  EXPECT_GE(rows[2].num("t0_ns"), rows[1].num("t6_ns"));
  // Launches 2..5 are asynchronous: the call returns at t2, before the kernel ends,
  // and the next launch starts while the previous one is still in flight.
  for (size_t i = 2; i < 6; ++i)
    EXPECT_LT(rows[i].num("t2_ns"), rows[i].num("t5_ns"));
  for (size_t i = 3; i < 6; ++i)
    EXPECT_LT(rows[i].num("t0_ns"), rows[i - 1].num("t6_ns"));
  // The same kernel on the same unit: a warm instruction cache.
  EXPECT_EQ(rows[0].cells.at("unit"), rows[1].cells.at("unit"));
  EXPECT_LT(rows[1].num("iload_ns"), 0.1 * rows[0].num("iload_ns"));

  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  for (const char* key : {"config", "kernels", "host", "blocks", "sim"})
    EXPECT_TRUE(report.contains(key)) << key;
  EXPECT_EQ(report["sim"]["launches"], 6);
  for (const char* phase : {"prepare", "submit", "schedule", "iload", "execute", "complete"})
    for (const char* stat : {"mean_ns", "p50_ns", "p99_ns", "max_ns"})
      EXPECT_TRUE(report["kernels"]["gemm"][phase].contains(stat)) << phase << stat;
  EXPECT_EQ(report["config"]["ddr"]["preset"], "LPDDR4-3200");
  const auto& host = report["host"];
  EXPECT_NEAR(host["busy_ns"].get<double>() + host["blocked_ns"].get<double>() +
                  host["idle_ns"].get<double>(),
              report["sim"]["simulated_ns"].get<double>(), 0.01);
}

TEST_F(CliTest, FirstLaunchMissesEveryLineSecondHits) {
  const fs::path tb = write("one.yaml", R"(name: one
kernels:
  k: {op: cycles, cycles: 1000, binary: 16KiB, units: 1}
program:
  - launch: {kernel: k}
)");
  const fs::path out = m_dir / "out";
  const Result r = run("run --config configs/edge-npu.yaml --testbench " + tb.string() +
                       " --set icache.line=64B --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  EXPECT_EQ(report["blocks"]["icache"]["misses"], 16 * 1024 / 64);
  // Executing the kernel (one pass over its hot loop, the whole binary) hits every line.
  EXPECT_EQ(report["blocks"]["icache"]["hits"], 16 * 1024 / 64);
  EXPECT_EQ(report["blocks"]["icache"]["fetch_misses"], 0);

  // With a 128-byte line the same binary takes half the fills.
  const fs::path out2 = m_dir / "out2";
  ASSERT_EQ(run("run --config configs/edge-npu.yaml --testbench " + tb.string() +
                " --set icache.line=128B --out " + out2.string())
                .code,
            0);
  const auto report2 = nlohmann::json::parse(slurp(out2 / "report.json"));
  EXPECT_EQ(report2["blocks"]["icache"]["misses"], 16 * 1024 / 128);
}

TEST_F(CliTest, TypoInConfigKeyNamesFileLineColumnAndSuggestion) {
  const fs::path cfg = write("bad.yaml", "name: bad\ndma: {chanels: 4}\n");
  const fs::path out = m_dir / "never";
  const Result r = run("run --config " + cfg.string() +
                       " --testbench testbenches/hello.yaml --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(cfg.string() + ":2:7:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dma.chanels"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'channels'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CliTest, BadValuesEachGetTheirOwnMessage) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sram: {size: -512KiB}\n", "must not be negative"},
      {"compute: {frequency: 0GHz}\n", "frequency must be greater than zero"},
      {"icache: {line: 48B}\n", "cache line must be a power of two"},
      {"ddr: {size: 4GiX}\n", "unknown unit 'GiX'"},
      {"scheduler: {policy: fifoo}\n", "did you mean 'fifo'"},
  };
  for (const auto& [yaml, expected] : cases) {
    const fs::path cfg = write("bad.yaml", "name: bad\n" + yaml);
    const fs::path out = m_dir / "never";
    const Result r = run("run --config " + cfg.string() +
                         " --testbench testbenches/hello.yaml --out " + out.string());
    EXPECT_EQ(r.code, 2) << yaml;
    EXPECT_NE(r.err.find(expected), std::string::npos) << yaml << " -> " << r.err;
    EXPECT_NE(r.err.find(cfg.string() + ":2:"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << yaml;
  }
}

TEST_F(CliTest, SetOverridesAreValidatedToo) {
  const Result ok = run("run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml "
                        "--set dma.channels=2 --set compute.units=2 --out " +
                        (m_dir / "out").string());
  ASSERT_EQ(ok.code, 0) << ok.err;
  const auto report = nlohmann::json::parse(slurp(m_dir / "out" / "report.json"));
  EXPECT_EQ(report["config"]["dma"]["channels"], 2);
  EXPECT_EQ(report["config"]["compute"]["units"], 2);

  const Result bad = run("run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml "
                         "--set dma.chanels=2");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--set dma.chanels=2"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("did you mean 'channels'"), std::string::npos) << bad.err;
}

TEST_F(CliTest, ValidateAcceptsShippedFilesAndRejectsBadOnes) {
  const Result ok = run("validate configs/*.yaml testbenches/*.yaml testbenches/workloads/*.yaml");
  EXPECT_EQ(ok.code, 0) << ok.err;
  for (const char* file :
       {"configs/datacenter-gpu.yaml: ok", "configs/datacenter-npu.yaml: ok",
        "testbenches/kernel_fusion.yaml: ok", "testbenches/workloads/resnet50_b1.yaml: ok"})
    EXPECT_NE(ok.out.find(file), std::string::npos) << ok.out;
  const fs::path tb = write("tb.yaml", R"(name: t
kernels:
  k: {op: cycles, cycles: 10}
program:
  - lauch: {kernel: k}
)");
  const Result bad = run("validate " + tb.string());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(tb.string() + ":5:5:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("did you mean 'launch'"), std::string::npos) << bad.err;
}

// validate --config makes the checks run makes before it simulates, with the same message
// and exit code; a testbench that fits passes.
TEST_F(CliTest, ValidateWithConfigRejectsWhatRunRejects) {
  const fs::path wide = write("wide.yaml", R"(name: wide
kernels:
  k: {op: cycles, cycles: 10, units: 8}
program:
  - launch: {kernel: k}
)");
  const fs::path big = write("big.yaml", R"(name: big
kernels:
  k: {op: cycles, cycles: 10}
buffers:
  scratch: {size: 1MiB, memory: sram}
program:
  - launch: {kernel: k}
)");
  const fs::path ddr = write("ddr.yaml", R"(name: ddr
buffers:
  weights: {size: 3GiB, memory: ddr}
  cache: {size: 2GiB, memory: ddr}
program: []
)");
  for (const auto& [tb, where] :
       {std::pair{wide, ":3:38: "}, std::pair{big, ":5:19: "}, std::pair{ddr, ":4:17: "}}) {
    const Result run_result = run("run --config edge-npu --testbench " + tb.string());
    const Result validated = run("validate --config edge-npu " + tb.string());
    EXPECT_EQ(run_result.code, 2) << run_result.err;
    EXPECT_EQ(validated.code, 2) << validated.err;
    EXPECT_EQ(validated.err, run_result.err);
    EXPECT_NE(validated.err.find(tb.string() + where), std::string::npos) << validated.err;
    EXPECT_EQ(validated.out, "");
  }
  EXPECT_NE(run("validate --config edge-npu " + wide.string())
                .err.find("kernels.k.units: asks for 8 units but 'edge-npu' has 4"),
            std::string::npos);
  EXPECT_NE(run("validate --config edge-npu " + ddr.string())
                .err.find("buffers.cache.size: DDR buffers and kernel binaries need at least "
                          "5GiB but ddr.size is 4GiB"),
            std::string::npos);
  // Plain validate reads each file alone and accepts it.
  EXPECT_EQ(run("validate " + wide.string()).code, 0);
  // The same testbench fits a config with more units, by path and with --set.
  const Result ok = run("validate --config configs/datacenter-gpu.yaml " + wide.string() +
                        " testbenches/hello.yaml");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out, wide.string() + ": ok on datacenter-gpu\ntestbenches/hello.yaml: ok on "
                                    "datacenter-gpu\n");
  EXPECT_EQ(run("validate --config edge-npu --set compute.units=8 " + wide.string()).code, 0);
  // A bad config is reported once, as run reports it.
  const Result bad = run("validate --config edge-npu --set dma.chanels=2 testbenches/hello.yaml");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, run("run --config edge-npu --testbench testbenches/hello.yaml "
                         "--set dma.chanels=2")
                         .err);
  const Result unknown = run("validate --config edge-nup testbenches/hello.yaml");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("edge-npu"), std::string::npos) << unknown.err;
}

TEST_F(CliTest, HelpCommandPrintsTheHelpOfNpusimOrOfOneCommand) {
  const Result top = run("help");
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_EQ(top.out, run("--help").out);
  for (const char* command : {"run", "validate", "sweep", "membench", "report", "diff"})
    EXPECT_NE(top.out.find(command), std::string::npos) << command;
  const Result help_run = run("help run");
  EXPECT_EQ(help_run.code, 0) << help_run.err;
  EXPECT_EQ(help_run.out, run("run --help").out);
  EXPECT_NE(help_run.out.find("--testbench"), std::string::npos);
  const Result bogus = run("help rnu");
  EXPECT_EQ(bogus.code, 2);
  EXPECT_EQ(bogus.err, "npusim: error: unknown command 'rnu' (did you mean 'run'?)\n");
  EXPECT_EQ(bogus.out, "");
  const Result none = run("");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err.rfind("npusim: error: a command is required; expected one of run, ", 0), 0u)
      << none.err;
  const Result bare = run("rnu --config edge-npu");
  EXPECT_EQ(bare.code, 2);
  EXPECT_EQ(bare.err.rfind("npusim: error: unknown command 'rnu' (did you mean 'run'?)", 0), 0u)
      << bare.err;
}

TEST_F(CliTest, ExtendsCycleIsAnErrorNotAHang) {
  const fs::path a = write("a.yaml", "name: a\nextends: b.yaml\n");
  write("b.yaml", "name: b\nextends: a.yaml\n");
  const Result r = run("validate " + a.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cyclic extends"), std::string::npos) << r.err;
}

TEST_F(CliTest, WaitThatCanNeverFinishIsReportedAsDeadlock) {
  // s2 waits for e1, the host syncs s2 before it records e1: nothing can move.
  const fs::path tb = write("dead.yaml", R"(name: dead
kernels:
  k: {op: cycles, cycles: 100}
streams: [s1, s2]
program:
  - wait: {event: e1, stream: s2}
  - launch: {kernel: k, stream: s2, async: true}
  - sync: s2
  - record: {event: e1, stream: s1}
)");
  for (const char* completion : {"interrupt", "polling"}) {
    const fs::path out = m_dir / "out";
    const Result r = run("run --config configs/edge-npu.yaml --testbench " + tb.string() +
                         " --set host.completion=" + completion + " --out " + out.string());
    EXPECT_EQ(r.code, 2) << completion;
    EXPECT_NE(r.err.find("deadlock"), std::string::npos) << completion << ": " << r.err;
    EXPECT_NE(r.err.find("'e1'"), std::string::npos) << completion << ": " << r.err;
    EXPECT_NE(r.err.find("the host waits for sync of stream 's2', but no block can make "
                         "progress"),
              std::string::npos)
        << completion << ": " << r.err;
    EXPECT_NE(r.err.find("stream 's2' has 2 unfinished command(s) on hardware queue 2 and waits "
                         "for event 'e1', which the host has not recorded yet"),
              std::string::npos)
        << completion << ": " << r.err;
    EXPECT_EQ(r.err.find("stream 's1'"), std::string::npos) << "s1 has no work: " << r.err;
    EXPECT_EQ(r.err.rfind("npusim: error: deadlock at ", 0), 0u) << r.err;
    EXPECT_EQ(r.out.find("npusim summary"), std::string::npos) << "a failed run: " << r.out;
    // Nothing written: no report, no temporary files beside where it would have gone.
    EXPECT_FALSE(fs::exists(out));
    for (const auto& entry : fs::directory_iterator(m_dir))
      EXPECT_TRUE(entry.path().filename() == "dead.yaml" ||
                  entry.path().filename() == "stdout.txt" ||
                  entry.path().filename() == "stderr.txt")
          << "left behind: " << entry.path();
  }
}

// free and destroy steps run through the runtime; what the program does not free is
// freed as it ends, so nothing leaks.
TEST_F(CliTest, FreeAndDestroyStepsRunAndNothingLeaks) {
  const fs::path tb = write("free.yaml", R"(name: free
kernels:
  k: {op: cycles, cycles: 1000}
buffers:
  x: {size: 64KiB, memory: host}
  y: {size: 64KiB}
  z: {size: 64KiB}
streams: [s1, s2]
program:
  - memcpy: {dst: y, src: x, stream: s1, async: true}
  - memcpy: {dst: z, src: y, stream: s1, async: true}
  - memcpy: {dst: z, dst_offset: 32KiB, src: y, bytes: 32KiB}
  - launch: {kernel: k, stream: s1, async: true, args: [z]}
  - destroy: s1
  - launch: {kernel: k, stream: s2, args: [y]}
  - free: y
  - sync: device
)");
  const fs::path out = m_dir / "out";
  const Result r = run("run --config configs/edge-npu.yaml --testbench " + tb.string() + " --out " +
                       out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.out.find("leaked"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  EXPECT_EQ(report["host"]["leaked_buffers"], 0);
  EXPECT_EQ(report["host"]["leaked_bytes"], 0);
  EXPECT_EQ(report["blocks"]["host"]["copies"], 3);
  EXPECT_EQ(read_csv(out / "launches.csv").size(), 2u);
}

TEST_F(CliTest, SameInputsGiveIdenticalReports) {
  const std::string args =
      "run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml --out ";
  ASSERT_EQ(run(args + (m_dir / "a").string()).code, 0);
  ASSERT_EQ(run(args + (m_dir / "b").string()).code, 0);
  EXPECT_EQ(slurp(m_dir / "a" / "launches.csv"), slurp(m_dir / "b" / "launches.csv"));
  auto a = nlohmann::json::parse(slurp(m_dir / "a" / "report.json"));
  auto b = nlohmann::json::parse(slurp(m_dir / "b" / "report.json"));
  a["sim"].erase("wall_s");
  b["sim"].erase("wall_s");
  EXPECT_EQ(a.dump(), b.dump());
}

TEST_F(CliTest, CppTestbenchRunsTheChapterSample) {
  const std::string bin = std::string(NPU_BINARY_DIR) + "/testbenches/launch_conv_kernel";
  const std::string cmd = "cd " + kSource + " && " + bin + " --out " + (m_dir / "out").string() +
                          " >" + (m_dir / "o.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(m_dir / "o.txt");
  const auto rows = read_csv(m_dir / "out" / "launches.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cells.at("kernel"), "conv2d");
  EXPECT_GT(rows[0].num("execute_ns"), 0);
}

// Configs are found by name from where the binary is, not from the working directory: the
// C++ host programs' default (edge-npu) and `npusim run --config NAME` alike.
TEST_F(CliTest, ConfigsByNameFromAnyWorkingDirectory) {
  const std::string bin = std::string(NPU_BINARY_DIR) + "/testbenches/launch_conv_kernel";
  const std::string cmd = "cd " + m_dir.string() + " && " + bin + " --out host >o.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(m_dir / "o.txt");
  const fs::path configs = fs::canonical(fs::path(kSource) / "configs");
  EXPECT_EQ(nlohmann::json::parse(slurp(m_dir / "host" / "report.json"))["config_file"],
            (configs / "edge-npu.yaml").string());

  const std::string tb = " --testbench " + kSource + "/testbenches/hello.yaml";
  const std::string run_here = "cd " + m_dir.string() + " && " + kBinary + " run --config ";
  ASSERT_EQ(std::system((run_here + "datacenter-npu" + tb + " --out cli >o.txt 2>&1").c_str()), 0)
      << slurp(m_dir / "o.txt");
  EXPECT_EQ(nlohmann::json::parse(slurp(m_dir / "cli" / "report.json"))["config_file"],
            (configs / "datacenter-npu.yaml").string());

  const int status = std::system((run_here + "edge-npux" + tb + " >o.txt 2>e.txt").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_EQ(slurp(m_dir / "o.txt"), "");
  EXPECT_EQ(slurp(m_dir / "e.txt"),
            "npusim: --config edge-npux: error: no such file, and no config of that name; "
            "expected a path or one of datacenter-gpu, datacenter-npu, edge-npu, tpu-v3-core (the "
            "configs in " +
                configs.string() + "); did you mean 'edge-npu'?\n");
}

// The chapter's two-stream sample: batches alternate between two streams, and the host
// prepares the next batch while the device works. Overlap is read from the output files.
TEST_F(CliTest, CppTwoStreamsOverlapKernelsAndHostWork) {
  const std::string bin = std::string(NPU_BINARY_DIR) + "/testbenches/two_streams";
  const std::string cmd = "cd " + kSource + " && " + bin + " --out " + (m_dir / "out").string() +
                          " >" + (m_dir / "o.txt").string() + " 2>" + (m_dir / "e.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(m_dir / "o.txt") << slurp(m_dir / "e.txt");
  EXPECT_TRUE(slurp(m_dir / "e.txt").empty()) << "a warning (leak?): " << slurp(m_dir / "e.txt");
  const auto rows = read_csv(m_dir / "out" / "launches.csv");
  ASSERT_EQ(rows.size(), 8u);
  // Batches alternate between the two streams, all asynchronous.
  for (size_t b = 0; b < rows.size(); ++b)
    EXPECT_EQ(rows[b].cells.at("stream"), b % 2 == 0 ? "stream1" : "stream2") << b;
  // Kernels of the two streams run at the same time: each odd batch executes while the
  // batch before it, on the other stream, is still executing.
  int overlapping = 0;
  for (size_t b = 1; b < rows.size(); ++b)
    if (rows[b].num("t4_ns") < rows[b - 1].num("t5_ns") &&
        rows[b - 1].num("t4_ns") < rows[b].num("t5_ns"))
      ++overlapping;
  EXPECT_GE(overlapping, 4) << "the two streams' kernels hardly overlap";
  // The host submits batch b + 1 (after preparing it) while batch b still executes.
  int host_ahead = 0;
  for (size_t b = 1; b < rows.size(); ++b)
    if (rows[b].num("t2_ns") < rows[b - 1].num("t5_ns"))
      ++host_ahead;
  EXPECT_GE(host_ahead, 4) << "the host's preparation did not overlap the device";
  // Host work and device time overlap: the run is shorter than the host's busy time plus
  // the kernels' execution, back to back.
  const auto report = nlohmann::json::parse(slurp(m_dir / "out" / "report.json"));
  double execute_ns = 0;
  for (const auto& row : rows)
    execute_ns += row.num("execute_ns");
  const double busy_ns = report["host"]["busy_ns"].get<double>();
  EXPECT_GE(busy_ns, 8 * 100000.0) << "prepare_next_batch() ran less than expected";
  EXPECT_LT(report["sim"]["simulated_ns"].get<double>(), 0.8 * (busy_ns + execute_ns));
  EXPECT_EQ(report["host"]["leaked_buffers"], 0);
}

// Every command-line error is one "npusim: error: ..." line with exit code 2; a misspelt
// option gets a suggestion.
TEST_F(CliTest, CommandLineErrorsAreOneLineWithASuggestion) {
  const std::string hello = "run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run --config configs/edge-npu.yaml --confg x --testbench testbenches/hello.yaml",
       "unknown option '--confg' (did you mean '--config'?)"},
      {hello + " stray", "unexpected argument 'stray'"},
      {hello + " --config configs/edge-npu.yaml", "--config is given 2 times; give it once"},
      {hello + " --trace t.json --trace-limit 0",
       "--trace-limit: expected a whole number from 1 to 18446744073709551615, got '0'"},
      {hello + " --trace t.json --trace-sample -3",
       "--trace-sample: expected a whole number from 1 to 18446744073709551615, got '-3'"},
      // The range a message states is the range accepted: one past it is refused.
      {hello + " --trace t.json --trace-sample 18446744073709551616",
       "--trace-sample: expected a whole number from 1 to 18446744073709551615, got "
       "'18446744073709551616'"},
      {"membench --config configs/edge-npu.yaml --patern seq_read",
       "unknown option '--patern' (did you mean '--pattern'?)"},
      {"run --testbench testbenches/hello.yaml", "--config is required"},
      // An unknown option comes before a missing required one (--config, --testbench).
      {"run --confg x.yaml tb.yaml",
       "unknown option '--confg' (did you mean '--config'?); unexpected argument 'tb.yaml'"},
      {"run --testbench testbenches/hello.yaml --tarce t.json",
       "unknown option '--tarce' (did you mean '--trace'?)"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err, "npusim: error: " + message + "\n") << args;
    EXPECT_EQ(r.out, "") << args;
  }
  // ... and the top of it accepted (10^19 is within it).
  for (const char* count : {"10000000000000000000", "18446744073709551615"}) {
    const Result r =
        run(hello + " --trace " + (m_dir / "t.json").string() + " --trace-sample " + count);
    EXPECT_EQ(r.code, 0) << count << "\n" << r.err;
  }
  // Help and the version still go to stdout with exit code 0.
  const Result help = run("run --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--testbench"), std::string::npos);
  EXPECT_EQ(run("--version").out, "npusim 0.1.0\n");
}

// A kernel without `units` spans every unit of the config it runs on; --tb-set with a
// `*` changes every kernel at once.
TEST_F(CliTest, KernelsSpanEveryUnitByDefault) {
  const fs::path tb = write("units.yaml", R"(name: units
kernels:
  mm: {op: matmul, m: 256, n: 256, k: 256}
  one: {op: cycles, cycles: 100, units: 1}
program:
  - launch: {kernel: mm}
  - launch: {kernel: one}
)");
  const fs::path out = m_dir / "out";
  Result r = run("run --config configs/edge-npu.yaml --set compute.units=8 --testbench " +
                 tb.string() + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<Row> rows = read_csv(out / "launches.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cells.at("units"), "0;1;2;3;4;5;6;7");
  EXPECT_EQ(rows[1].cells.at("units").find(';'), std::string::npos);

  r = run("run --config configs/edge-npu.yaml --set compute.units=8 --testbench " + tb.string() +
          " --tb-set 'kernels.*.units=3' --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  rows = read_csv(out / "launches.csv");
  for (const Row& row : rows)
    EXPECT_EQ(std::count(row.cells.at("units").begin(), row.cells.at("units").end(), ';'), 2)
        << row.cells.at("units");

  // More units than the config has: said of the kernel, where its units were given: here by
  // the --tb-set, not by a line of the file.
  r = run("run --config configs/edge-npu.yaml --testbench " + tb.string() +
          " --tb-set 'kernels.*.units=8'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "npusim: --tb-set kernels.*.units=8: error: kernels.mm.units: asks for 8 "
                   "units but 'edge-npu' has 4\n");
}

// ResNet-50 on datacenter-npu uses all 24 of its units.
TEST_F(CliTest, Resnet50UsesEveryUnitOfDatacenterNpu) {
  const fs::path out = m_dir / "out";
  const Result r = run("run --config configs/datacenter-npu.yaml --testbench "
                       "testbenches/workloads/resnet50_b1.yaml --out " +
                       out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  size_t widest = 0;
  for (const Row& row : read_csv(out / "launches.csv"))
    widest = std::max<size_t>(
        widest, std::count(row.cells.at("units").begin(), row.cells.at("units").end(), ';') + 1);
  EXPECT_EQ(widest, 24u);
}
