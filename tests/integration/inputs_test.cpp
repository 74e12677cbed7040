// Input files that are no files (devices, FIFOs, directories) and files over the input
// size cap: each is one error line naming the file and what was expected, exit code 2,
// nothing on stdout and nothing written.
#include "tests/integration/cli_helpers.h"

#include <sys/stat.h>

namespace npu::test {
namespace {

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

} // namespace
} // namespace npu::test
