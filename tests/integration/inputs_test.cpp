// Input files that are no files (devices, FIFOs, directories), files over the input
// size cap, and report.json documents of the wrong shape: each is one error line naming
// the file and what was expected, exit code 2, nothing on stdout and nothing written.
#include "tests/integration/cli_helpers.h"

#include <nlohmann/json.hpp>
#include <sys/stat.h>

namespace npu::test {
namespace {

using Json = nlohmann::ordered_json;

class InputsTest : public ScratchDirTest {
protected:
  // Runs npusim (killed after 60 s, so that a blocking read fails rather than hangs).
  Result npusim(const std::string& args, const std::string& env = "") const {
    return run_command(env + " timeout 60 " + kBinary + " " + args);
  }
  // The run failed as bad input with exactly `line`, printed nothing and wrote nothing.
  void expect_refused(const Result& r, const std::string& line) const {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.err, line + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(m_dir / "out"));
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = m_dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string out_dir() const { return " --out " + (m_dir / "out").string(); }
};

TEST_F(InputsTest, DevZeroIsRefusedAsEveryKindOfInput) {
  const std::string device =
      "npusim: /dev/zero: error: file is a character device, not a regular file; expected ";
  expect_refused(npusim("run --config /dev/zero --testbench testbenches/hello.yaml" + out_dir()),
                 device + "a YAML file");
  expect_refused(npusim("run --config configs/edge-npu.yaml --testbench /dev/zero" + out_dir()),
                 device + "a YAML file");
  expect_refused(npusim("membench --config configs/edge-npu.yaml --trace /dev/zero"),
                 device + "a load/store trace");
  expect_refused(npusim("sweep /dev/zero" + out_dir()), device + "a YAML file");
  expect_refused(npusim("validate /dev/zero"), device + "a YAML file");
}

TEST_F(InputsTest, ReportJsonLinkedToDevZeroIsRefused) {
  fs::create_directories(m_dir / "run");
  fs::create_symlink("/dev/zero", m_dir / "run" / "report.json");
  const std::string file = (m_dir / "run" / "report.json").string();
  const std::string line = "npusim: " + file +
                           ": error: file is a character device, not a regular file; expected "
                           "the report.json of an npusim run";
  expect_refused(npusim("report " + (m_dir / "run").string()), line);
  expect_refused(npusim("diff " + (m_dir / "run").string() + " " + (m_dir / "run").string()), line);
}

TEST_F(InputsTest, FifoIsRefusedWithoutWaitingForAWriter) {
  const fs::path fifo = m_dir / "config.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_refused(
      npusim("run --config " + fifo.string() + " --testbench testbenches/hello.yaml" + out_dir()),
      "npusim: " + fifo.string() +
          ": error: file is a FIFO (named pipe), not a regular file; expected a YAML file");
}

TEST_F(InputsTest, DirectoryIsRefusedAsConfigAndTrace) {
  expect_refused(npusim("run --config configs --testbench testbenches/hello.yaml" + out_dir()),
                 "npusim: configs: error: file is a directory; expected a YAML file");
  expect_refused(npusim("membench --config configs/edge-npu.yaml --trace configs"),
                 "npusim: configs: error: file is a directory; expected a load/store trace");
}

TEST_F(InputsTest, FilesOverTheSizeCapAreRefusedAndTheCapIsConfigurable) {
  // edge-npu.yaml is about 4 KiB.
  const std::string cap = "NPUSIM_MAX_INPUT_SIZE=1KiB";
  expect_refused(npusim("validate configs/edge-npu.yaml", cap),
                 "npusim: configs/edge-npu.yaml: error: file is larger than 1KiB, the limit on "
                 "input files; set NPUSIM_MAX_INPUT_SIZE to raise it");
  expect_refused(npusim("run --config configs/edge-npu.yaml --testbench "
                        "testbenches/workloads/resnet50_b1.yaml" +
                            out_dir(),
                        "NPUSIM_MAX_INPUT_SIZE=4096"),
                 "npusim: testbenches/workloads/resnet50_b1.yaml: error: file is larger than "
                 "4KiB, the limit on input files; set NPUSIM_MAX_INPUT_SIZE to raise it");
  // A file of exactly the cap is read.
  std::string text = "name: exactly-the-cap\n";
  text += std::string(1024 - text.size() - 1, '#') + "\n";
  const fs::path at_cap = write("at_cap.yaml", text);
  ASSERT_EQ(fs::file_size(at_cap), 1024u);
  const Result ok = npusim("validate " + at_cap.string(), cap);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out, at_cap.string() + ": ok\n");
  // A malformed cap is itself bad input.
  expect_refused(npusim("validate configs/edge-npu.yaml", "NPUSIM_MAX_INPUT_SIZE=lots"),
                 "npusim: NPUSIM_MAX_INPUT_SIZE: error: expected a size from 1B to 1024GiB such "
                 "as 64MiB (units B, KiB, MiB, GiB), got 'lots'");
}

// A small but complete report.json: what `npusim report` reads.
Json minimal_report() {
  Json kernel = Json::object();
  kernel["launches"] = 2;
  for (const char* phase :
       {"prepare", "submit", "schedule", "iload", "execute", "complete", "total"})
    kernel[phase] = {{"mean_ns", 12.0}, {"p50_ns", 12.0}, {"p99_ns", 12.0}, {"max_ns", 12.0}};
  Json doc;
  doc["config_name"] = "c";
  doc["testbench_name"] = "t";
  doc["kernels"] = {{"gemm", kernel}};
  doc["host"] = {{"busy_ns", 1.0}, {"blocked_ns", 2.0}, {"idle_ns", 0.0}};
  doc["blocks"] = {{"dma", {{"bursts", 3}, {"rate", nullptr}}}};
  doc["stat_units"] = {{"dma.bursts", {{"unit", "count"}, {"description", "bursts"}}}};
  doc["events"] = Json::array({{{"label", "q"}, {"event", "e"}, {"complete", true}}});
  doc["sim"] = {{"simulated_ns", 100.0}, {"launches", 2}, {"wall_s", 0.1}};
  doc["breakdown"] = {{"execute_ns", 50.0}, {"total_ns", 100.0}};
  doc["critical_path"] = {
      {"execute_ns", 50.0},
      {"launches", 2},
      {"kernels", Json::array({{{"kernel", "gemm"}, {"launches", 2}, {"ns", 50.0}}})}};
  doc["utilisation"] = {{"dma", {{"busy", 0.5}}}};
  return doc;
}

TEST_F(InputsTest, ReportAndDiffCheckEveryFieldTheyReadBeforePrinting) {
  write("good/report.json", minimal_report().dump(2));
  for (const char* format : {"text", "json", "csv"}) {
    const Result ok = npusim("report " + (m_dir / "good").string() + " --format " + format);
    EXPECT_EQ(ok.code, 0) << format << ": " << ok.err;
    EXPECT_EQ(ok.err, "");
  }

  struct Mutation {
    const char* pointer; ///< JSON pointer of the field to replace
    Json value;
    const char* message; ///< the error after "report.json: error: "
  };
  const std::vector<Mutation> mutations = {
      {"/kernels/gemm/total/mean_ns", "12",
       "kernels.gemm.total.mean_ns: expected a number, got a string (\"12\")"},
      {"/kernels/gemm/launches", "2",
       "kernels.gemm.launches: expected a whole number of at "
       "least 0, got a string (\"2\")"},
      {"/kernels/gemm/iload", 5, "kernels.gemm.iload: expected an object, got the number 5"},
      {"/kernels/gemm", Json::array(), "kernels.gemm: expected an object, got an array"},
      {"/sim/launches", -1,
       "sim.launches: expected a whole number of at least 0, got the "
       "number -1"},
      {"/testbench_name", 7, "testbench_name: expected a string, got the number 7"},
      {"/host/leaked_buffers", true,
       "host.leaked_buffers: expected a whole number of at least 0, got true"},
      {"/events", Json::object(), "events: expected an array, got an object"},
      {"/events/0/complete", "yes",
       "events[0].complete: expected true or false, got a string "
       "(\"yes\")"},
      {"/critical_path/kernels", Json::object(),
       "critical_path.kernels: expected an array, got an object"},
      {"/critical_path/kernels/0/kernel", nullptr,
       "critical_path.kernels[0].kernel: expected a string, got null"},
      {"/breakdown/total_ns", "100",
       "breakdown.total_ns: expected a number, got a string "
       "(\"100\")"},
      {"/utilisation/dma", 1, "utilisation.dma: expected an object, got the number 1"},
      {"/blocks/dma/bursts", "3",
       "blocks.dma.bursts: expected a number or null, got a string "
       "(\"3\")"},
      {"/stat_units/dma.bursts/unit", 1,
       "stat_units.dma.bursts.unit: expected a string, got the number 1"},
  };
  for (const Mutation& m : mutations) {
    SCOPED_TRACE(m.pointer);
    Json doc = minimal_report();
    doc[Json::json_pointer(m.pointer)] = m.value;
    fs::remove_all(m_dir / "bad");
    write("bad/report.json", doc.dump(2));
    const std::string file = (m_dir / "bad" / "report.json").string();
    const std::string line = "npusim: " + file + ": error: " + m.message;
    for (const char* format : {"text", "json", "csv"})
      expect_refused(npusim("report " + (m_dir / "bad").string() + " --format " + format), line);
    expect_refused(npusim("diff " + (m_dir / "good").string() + " " + (m_dir / "bad").string()),
                   line);
  }
}

TEST_F(InputsTest, ReportWithANumberTooLargeForADoubleIsInvalidJson) {
  write("big/report.json", "{\"sim\": {\"simulated_ns\": 1e400}}");
  const Result r = npusim("report " + (m_dir / "big").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err.rfind("npusim: " + (m_dir / "big" / "report.json").string() + ": error: invalid JSON (",
                  0),
      0u)
      << r.err;
}

} // namespace
} // namespace npu::test
