// Names that come from inputs are printed escaped wherever npusim prints or writes them:
// control characters and bytes that are not UTF-8 as visible escapes, so that a name can
// neither forge a line of output nor act on the terminal.
#include "tests/integration/cli_helpers.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace npu::test {
namespace {

// True when `text` holds a control character other than a line break (ESC, BEL, CR...).
bool has_control(const std::string& text) {
  for (const char c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
      return true;
  return false;
}

size_t lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

class NamesTest : public ScratchDirTest {
protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    // A kernel, a buffer and an event label whose names hold a newline, ESC and BEL.
    std::ofstream(m_dir / "tb.yaml")
        << "name: \"tb\\e[2J\"\n"
           "kernels:\n"
           "  \"k\\nnpusim: error: forged\\e[31m\": {op: cycles, cycles: 100, units: 1}\n"
           "buffers:\n"
           "  \"b\\a\\r\": {size: 4KiB}\n"
           "streams: [s1]\n"
           "program:\n"
           "  - record: {event: e0, stream: s1}\n"
           "  - launch: {kernel: \"k\\nnpusim: error: forged\\e[31m\", args: [\"b\\a\\r\"],\n"
           "             stream: s1, async: true}\n"
           "  - record: {event: e1, stream: s1}\n"
           "  - sync: s1\n"
           "  - elapsed: {start: e0, end: e1, label: \"t\\e]0;x\\a\"}\n";
  }
  std::string tb() const { return (m_dir / "tb.yaml").string(); }
};

TEST_F(NamesTest, TheSummaryReportAndCsvShowThemEscaped) {
  const fs::path out = m_dir / "out";
  // A YAML double-quoted value: \e and \n become ESC and a line break in the config's name.
  const std::string name_set = "--set 'name=\"cfg\\e[1m\\nnpusim: forged\"'";
  for (const char* format : {"text", "csv"}) {
    const Result r = run("run --config configs/edge-npu.yaml " + name_set + " --testbench " + tb() +
                         " --out " + out.string() + " --detail --tiling --format " + format);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(has_control(r.out)) << r.out;
    EXPECT_NE(r.out.find("k\\nnpusim: error: forged\\x1b[31m"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cfg\\x1b[1m\\nnpusim: forged"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\nnpusim: "), std::string::npos) << "a forged line:\n" << r.out;
    EXPECT_FALSE(has_control(r.err)) << r.err;
  }
  for (const char* file : {"launches.csv", "layers.csv"}) {
    const std::string text = slurp(out / file);
    EXPECT_FALSE(has_control(text)) << file;
    EXPECT_NE(text.find("k\\nnpusim: error: forged\\x1b[31m"), std::string::npos) << file;
  }
  // report.json keeps the names; JSON escapes what is not printable.
  const std::string report = slurp(out / "report.json");
  EXPECT_FALSE(has_control(report));
  EXPECT_NE(report.find("k\\nnpusim: error: forged\\u001b[31m"), std::string::npos);
  const Result again = run("report " + out.string() + " --detail");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_FALSE(has_control(again.out));
  EXPECT_NE(again.out.find("t\\x1b]0;x\\x07"), std::string::npos) << again.out;
}

TEST_F(NamesTest, DiffShowsThemEscaped) {
  const fs::path a = m_dir / "a", b = m_dir / "b";
  ASSERT_EQ(
      run("run --config configs/edge-npu.yaml --testbench " + tb() + " --out " + a.string()).code,
      0);
  ASSERT_EQ(run("run --config configs/edge-npu.yaml --set \"dma.channels=2\" --testbench " + tb() +
                " --out " + b.string())
                .code,
            0);
  const Result r = run("diff " + a.string() + " " + b.string());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(has_control(r.out)) << r.out;
  EXPECT_NE(r.out.find("k\\nnpusim: error: forged"), std::string::npos) << r.out;
}

TEST_F(NamesTest, AnErrorThatNamesThemIsOneEscapedLine) {
  const Result r = run("run --config configs/edge-npu.yaml --testbench " + tb() +
                       " --tb-set 'kernels.*.units=64'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_FALSE(has_control(r.err)) << r.err;
  EXPECT_NE(r.err.find("kernels.k\\nnpusim: error: forged\\x1b[31m.units: asks for 64 units"),
            std::string::npos)
      << r.err;
  // From the command line too: an option, a --set value.
  for (const std::string& args : {std::string("run --config configs/edge-npu.yaml --testbench ") +
                                      tb() + " \"$(printf -- '--x\\033[31m\\nnpusim: forged')\"",
                                  std::string("run --config configs/edge-npu.yaml --testbench ") +
                                      tb() + " --set \"dma.channels=$(printf '2\\033[31m\\n')\"",
                                  std::string("validate \"$(printf 'no\\033[1msuch\\n.yaml')\"")}) {
    const Result e = run(args);
    EXPECT_EQ(e.code, 2) << args;
    EXPECT_EQ(lines(e.err), 1u) << args << "\n" << e.err;
    EXPECT_FALSE(has_control(e.err)) << args << "\n" << e.err;
    EXPECT_NE(e.err.find("\\x1b["), std::string::npos) << args << "\n" << e.err;
  }
}

TEST_F(NamesTest, ASweepShowsThemEscaped) {
  std::ofstream(m_dir / "s.yaml") << "name: \"s\\e[5m\"\nconfig: " << kSource
                                  << "/configs/edge-npu.yaml\ntestbench: " << tb()
                                  << "\nparameters:\n  dma.channels: [1]\nmetrics: "
                                     "[sim.simulated_ns]\n";
  const Result r = run("sweep " + (m_dir / "s.yaml").string() + " --out " +
                       (m_dir / "sw").string() + " --jobs 1");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(has_control(r.out + r.err)) << r.out << r.err;
  EXPECT_NE(r.out.find("sweep s\\x1b[5m: 1 points"), std::string::npos) << r.out;
  EXPECT_FALSE(has_control(slurp(m_dir / "sw" / "results.csv")));
}

} // namespace
} // namespace npu::test
