// Where a run's outputs go: every shipped testbench with every combination of output
// options, outputs that are devices, FIFOs or links, paths that are refused before the
// run starts, two runs writing one folder, and write failures.
#include "cli_helpers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

namespace npu::test {
namespace {

using Json = nlohmann::json;

// The YAML testbenches of testbenches/ (the workloads have tests of their own).
std::vector<std::string> shipped_testbenches() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(kSource) / "testbenches"))
    if (entry.path().extension() == ".yaml")
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Combination {
  std::string testbench;
  bool out = false;
  bool trace = false;
  bool plots = false; // needs out
  std::string format;
};

void PrintTo(const Combination& c, std::ostream* os) {
  *os << c.testbench << (c.out ? " --out" : "") << (c.trace ? " --trace" : "")
      << (c.plots ? " --plots" : "") << " --format " << c.format;
}

// Every testbench with --out, --trace and --format in every combination; --plots (which needs
// --out) with --trace and every format: the plots are drawn after every other output is
// written, so they meet them all there (and must leave the summary on stdout alone).
std::vector<Combination> combinations() {
  std::vector<Combination> all;
  for (const std::string& tb : shipped_testbenches())
    for (const bool out : {false, true})
      for (const bool trace : {false, true})
        for (const bool plots : {false, true})
          for (const char* format : {"text", "json", "csv"})
            if (out ? !plots || trace : !plots)
              all.push_back({tb, out, trace, plots, format});
  return all;
}

std::string combination_name(const ::testing::TestParamInfo<Combination>& info) {
  const Combination& c = info.param;
  return c.testbench + (c.out ? "_out" : "") + (c.trace ? "_trace" : "") +
         (c.plots ? "_plots" : "") + "_" + c.format;
}

bool python_has_matplotlib() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

class OutputCombinationTest : public ScratchDirTest,
                              public ::testing::WithParamInterface<Combination> {};

// Each output is complete and agrees with the others: the summary in its format, the
// report, one launches.csv row per launch, a trace with every launch, the plots.
TEST_P(OutputCombinationTest, EveryOutputIsWrittenAndAgrees) {
  const Combination& c = GetParam();
  // --tiling adds each kernel's tiling and roofline to the text summary (the other
  // formats carry them always).
  std::string args = "run --config configs/edge-npu.yaml --testbench testbenches/" + c.testbench +
                     ".yaml --tiling --format " + c.format;
  if (c.out)
    args += " --out " + (m_dir / "out").string();
  // launch_rate runs 4,000 of its 100,000 launches here (what the outputs do with many
  // launches does not change past a few thousand; the determinism and README tests run it
  // whole), and traces the first 1000 of them.
  const bool launch_rate = c.testbench == "launch_rate";
  if (launch_rate)
    args += " --tb-set program.0.repeat.count=1000";
  const int64_t trace_limit = launch_rate ? 1000 : 0;
  if (c.trace)
    args += " --trace " + (m_dir / "trace.json").string() +
            (trace_limit > 0 ? " --trace-limit " + std::to_string(trace_limit) : "");
  if (c.plots)
    args += " --plots";
  const Result r = run(args);
  ASSERT_EQ(r.code, 0) << args << "\n" << r.err;
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;

  int64_t launches = -1;
  if (c.format == "json") {
    const Json summary = Json::parse(r.out);
    launches = summary["sim"]["launches"].get<int64_t>();
  } else if (c.format == "csv") {
    EXPECT_EQ(r.out.rfind("section,name,metric,value,unit\n", 0), 0u) << r.out.substr(0, 200);
  } else {
    EXPECT_NE(r.out.find("launches"), std::string::npos) << r.out.substr(0, 400);
    // One roofline line under every kernel.
    size_t kernels = 0, rooflines = 0;
    for (size_t at = 0; (at = r.out.find("\nkernel ", at)) != std::string::npos; ++at)
      ++kernels;
    for (size_t at = 0; (at = r.out.find("x the roofline bound", at)) != std::string::npos; ++at)
      ++rooflines;
    EXPECT_GT(kernels, 0u);
    EXPECT_EQ(rooflines, kernels);
  }
  if (c.out) {
    const Json report = Json::parse(slurp(m_dir / "out" / "report.json"));
    const int64_t reported = report["sim"]["launches"].get<int64_t>();
    if (launches >= 0) {
      EXPECT_EQ(reported, launches);
    }
    launches = reported;
    EXPECT_EQ(static_cast<int64_t>(read_csv(m_dir / "out" / "launches.csv").size()), launches);
    // Every launched kernel's tiling, one entry per op, and its roofline bound.
    for (const auto& [name, kernel] : report["kernels"].items()) {
      EXPECT_FALSE(kernel["tiling"].empty()) << name;
      EXPECT_GT(kernel["roofline"]["bound_ns"].get<double>(), 0) << name;
    }
    // One layers.csv row per kernel, and one for the idle time.
    EXPECT_EQ(read_csv(m_dir / "out" / "layers.csv").size(), report["layers"].size() + 1);
    EXPECT_EQ(report["layers"].size(), report["kernels"].size());
  }
  if (c.trace) {
    const Json trace = Json::parse(slurp(m_dir / "trace.json"));
    int64_t traced = 0;
    for (const Json& e : trace["traceEvents"])
      if (e.value("ph", "") == "b" && e.value("cat", "") == "launch" && e.contains("args"))
        ++traced; // the launch's slice; its phases nest inside without args
    if (launches >= 0) {
      EXPECT_EQ(traced, trace_limit > 0 ? std::min(launches, trace_limit) : launches);
    }
    EXPECT_GT(traced, 0);
  }
  if (c.plots && python_has_matplotlib()) {
    for (const char* png : {"timeline.png", "phases.png", "histograms.png", "roofline.png"})
      EXPECT_TRUE(fs::exists(m_dir / "out" / png)) << png;
  }
  // Nothing but the outputs asked for.
  for (const auto& entry : fs::directory_iterator(m_dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "stdout.txt" || name == "stderr.txt" || name == "out" ||
                name == "trace.json")
        << "left behind: " << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, OutputCombinationTest, ::testing::ValuesIn(combinations()),
                         combination_name);

class OutputPathTest : public ScratchDirTest {
protected:
  std::string hello(const std::string& extra) const {
    return "run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml " + extra;
  }
  /// Exit code 2, exactly `line` on stderr, nothing on stdout (the run never started).
  static void expect_refused(const Result& r, const std::string& line) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.err, line + "\n");
    EXPECT_EQ(r.out, "");
  }
  /// Only these names (and the captured stdout and stderr) are in the scratch folder.
  void expect_only(const std::vector<std::string>& names) const {
    for (const auto& entry : fs::directory_iterator(m_dir)) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name == "stdout.txt" || name == "stderr.txt" ||
                  std::find(names.begin(), names.end(), name) != names.end())
          << "left behind: " << name;
    }
  }
};

bool is_char_device(const char* path) {
  struct stat st {};
  return ::lstat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

TEST_F(OutputPathTest, ATraceToDevNullStreamsThereAndLeavesTheDevice) {
  const Result r = run(hello("--trace /dev/null --out " + (m_dir / "out").string()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(is_char_device("/dev/null"));
  EXPECT_TRUE(fs::exists(m_dir / "out" / "report.json"));
  for (const auto& entry : fs::directory_iterator("/dev"))
    EXPECT_EQ(entry.path().filename().string().rfind("null.", 0), std::string::npos)
        << entry.path();
}

TEST_F(OutputPathTest, ATraceToDevFullFailsWithOneLineAndLeavesTheDevice) {
  const Result r = run(hello("--trace /dev/full"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "npusim: error: cannot write trace: cannot write '/dev/full': No space left "
                   "on device\n");
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(is_char_device("/dev/full"));
}

TEST_F(OutputPathTest, ATraceStreamsIntoAFifoThatHasAReader) {
  const fs::path fifo = m_dir / "trace.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  // The reader is open before the run starts (read-write, so that the open does not wait
  // for a writer); it reads until the run has ended and the FIFO is drained.
  const int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  auto result =
      std::async(std::launch::async, [&] { return run(hello("--trace " + fifo.string())); });
  std::string text;
  char buffer[65536];
  for (bool ended = false;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (ended)
      break;
    ended = result.wait_for(std::chrono::milliseconds(2)) == std::future_status::ready;
  }
  ::close(fd);
  const Result r = result.get();
  ASSERT_EQ(r.code, 0) << r.err;
  const Json trace = Json::parse(text);
  EXPECT_GT(trace["traceEvents"].size(), 10u);
  EXPECT_EQ(::access(fifo.c_str(), F_OK), 0);
}

TEST_F(OutputPathTest, AFifoWithoutAReaderIsRefused) {
  const fs::path fifo = m_dir / "trace.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  expect_refused(run(hello("--trace " + fifo.string())),
                 "npusim: --trace: error: the FIFO '" + fifo.string() + "' has no reader");
}

TEST_F(OutputPathTest, PathsThatCannotBeWrittenAreRefusedBeforeTheRun) {
  std::ofstream(m_dir / "file") << "keep\n";
  fs::create_directory(m_dir / "folder");
  fs::create_symlink(m_dir / "nowhere", m_dir / "dangling");
  const std::string long_name(300, 'x');
  const std::string file = (m_dir / "file").string();
  const std::string folder = (m_dir / "folder").string();
  const std::string dangling = (m_dir / "dangling").string();
  const std::string missing = (m_dir / "missing" / "out").string();
  const std::string too_long = (m_dir / long_name).string();

  expect_refused(run(hello("--out " + file)),
                 "npusim: --out: error: '" + file + "' is a file, expected a folder");
  expect_refused(run(hello("--out " + dangling)),
                 "npusim: --out: error: '" + dangling + "' is a symbolic link to '" +
                     (m_dir / "nowhere").string() + "', which does not exist");
  expect_refused(run(hello("--out " + too_long)),
                 "npusim: --out: error: '" + too_long + "' has a name longer than 255 bytes");
  expect_refused(run(hello("--out " + missing)), "npusim: --out: error: cannot create '" + missing +
                                                     "': folder '" + (m_dir / "missing").string() +
                                                     "' does not exist");
  expect_refused(run(hello("--out /dev/null")),
                 "npusim: --out: error: '/dev/null' is a character device, expected a folder");
  expect_refused(run(hello("--trace " + folder)),
                 "npusim: --trace: error: '" + folder +
                     "' is a directory, expected a file (or a character device or FIFO to "
                     "write to directly)");
  expect_refused(run(hello("--trace " + dangling)),
                 "npusim: --trace: error: '" + dangling + "' is a symbolic link to '" +
                     (m_dir / "nowhere").string() + "', which does not exist");
  expect_refused(run(hello("--trace -")),
                 "npusim: --trace: error: '-' (standard output) cannot be used: the summary "
                 "is printed there; name a file");
  expect_refused(run(hello("--out ''")), "npusim: error: --out: expected a path, got an empty one");
  expect_refused(run(hello("--trace ''")),
                 "npusim: error: --trace: expected a path, got an empty one");
  // A file where report.json goes inside an existing folder is kept.
  fs::create_directory(m_dir / "folder" / "report.json");
  expect_refused(run(hello("--out " + folder)), "npusim: --out: error: '" + folder +
                                                    "/report.json' is a directory; npusim "
                                                    "replaces only files there");
  EXPECT_EQ(slurp(m_dir / "file"), "keep\n");
  EXPECT_TRUE(fs::is_symlink(m_dir / "dangling"));
  expect_only({"file", "folder", "dangling"});
}

TEST_F(OutputPathTest, ALongNameWithinNameMaxWorks) {
  const std::string name(250, 'o');
  const Result r = run(
      hello("--out " + (m_dir / name).string() + " --trace " + (m_dir / (name + "t")).string()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(m_dir / name / "report.json"));
  EXPECT_TRUE(fs::exists(m_dir / (name + "t")));
  expect_only({name, name + "t"});
}

TEST_F(OutputPathTest, LinksAreFollowedAndKept) {
  fs::create_directory(m_dir / "real");
  fs::create_directory_symlink(m_dir / "real", m_dir / "link");
  std::ofstream(m_dir / "trace-real.json") << "old\n";
  fs::create_symlink(m_dir / "trace-real.json", m_dir / "trace-link.json");
  const Result r = run(hello("--out " + (m_dir / "link").string() + " --trace " +
                             (m_dir / "trace-link.json").string()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(m_dir / "link"));
  EXPECT_TRUE(fs::exists(m_dir / "real" / "report.json"));
  EXPECT_TRUE(fs::is_symlink(m_dir / "trace-link.json"));
  EXPECT_NO_THROW(Json::parse(slurp(m_dir / "trace-real.json")));
  expect_only({"real", "link", "trace-real.json", "trace-link.json"});
}

// What a run killed outright (SIGKILL) left beside its output is removed by the next run
// that writes it; a sibling of a live process is not touched.
TEST_F(OutputPathTest, TheNextRunRemovesWhatAKilledRunLeft) {
  const pid_t dead = ::fork();
  if (dead == 0)
    ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string stale = "out.tmp-" + std::to_string(dead) + "-0";
  const std::string live = "out.tmp-" + std::to_string(::getpid()) + "-0";
  fs::create_directories(m_dir / stale / "sub");
  fs::create_directory(m_dir / live);
  std::ofstream(m_dir / "out.lock") << "";
  const Result r = run(hello("--out " + (m_dir / "out").string()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(m_dir / stale));
  EXPECT_TRUE(fs::exists(m_dir / live));
  expect_only({"out", live});
}

// Two runs writing one new folder at once: one writes it, the other is refused before it
// starts; the folder holds one complete run.
TEST_F(OutputPathTest, TwoRunsWritingOneFolderAtOnce) {
  const std::string out = (m_dir / "out").string();
  const std::string args = "run --config configs/edge-npu.yaml --testbench "
                           "testbenches/launch_rate.yaml --out " +
                           out;
  bool overlapped = false;
  for (int attempt = 0; attempt < 5 && !overlapped; ++attempt) {
    fs::remove_all(out);
    fs::create_directories(m_dir / "first");
    fs::create_directories(m_dir / "second");
    auto first = std::async(std::launch::async,
                            [&] { return run_in_source(kBinary + " " + args, m_dir / "first"); });
    // The second starts once the first holds the folder.
    while (!fs::exists(out + ".lock") &&
           first.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
    }
    const Result second = run_in_source(kBinary + " " + args, m_dir / "second");
    const Result a = first.get();
    if (a.code == 0 && second.code == 0)
      continue; // the first ended before the second looked: try again
    overlapped = true;
    const Result& refused = a.code == 2 ? a : second;
    const Result& written = a.code == 2 ? second : a;
    EXPECT_EQ(written.code, 0) << written.err;
    EXPECT_EQ(refused.code, 2);
    EXPECT_EQ(refused.err, "npusim: --out: error: '" + out +
                               "' is being written by another npusim run ('" + out +
                               ".lock' is locked); wait for it to end or choose another path\n");
    EXPECT_EQ(refused.out, "");
    const Json report = Json::parse(slurp(fs::path(out) / "report.json"));
    EXPECT_EQ(static_cast<int64_t>(read_csv(fs::path(out) / "launches.csv").size()),
              report["sim"]["launches"].get<int64_t>());
  }
  EXPECT_TRUE(overlapped) << "the two runs never overlapped in 5 attempts";
  EXPECT_FALSE(fs::exists(out + ".lock"));
}

} // namespace
} // namespace npu::test
