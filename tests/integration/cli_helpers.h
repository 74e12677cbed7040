// Helpers for tests that run the npusim binaries: a scratch directory per test, running a
// command line from the source tree, reading the files a run writes.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace npu::test {

namespace fs = std::filesystem;

inline const std::string kSource = NPU_SOURCE_DIR;
inline const std::string kBinary = std::string(NPU_BINARY_DIR) + "/npusim";

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// One row of a CSV file, by column name.
struct Row {
  std::map<std::string, std::string> cells;
  double num(const std::string& k) const { return std::stod(cells.at(k)); }
};

/// prepare + submit + schedule (wait and dispatch) + iload + execute + complete of one
/// launches.csv row, in ns: equal to t6 - t0.
inline double phase_sum_ns(const Row& row) {
  return row.num("prepare_ns") + row.num("submit_ns") + row.num("schedule_wait_ns") +
         row.num("schedule_dispatch_ns") + row.num("iload_ns") + row.num("execute_ns") +
         row.num("complete_ns");
}

inline std::vector<Row> read_csv(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string h; std::getline(hs, h, ',');)
    header.push_back(h);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row r;
    std::stringstream ls(line);
    size_t i = 0;
    for (std::string c; std::getline(ls, c, ',') && i < header.size(); ++i)
      r.cells[header[i]] = c;
    rows.push_back(r);
  }
  return rows;
}

/// Runs `command` (a shell command line) in the source tree; its stdout and stderr pass
/// through files in `dir`.
inline Result run_in_source(const std::string& command, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt";
  const fs::path err = dir / "stderr.txt";
  const std::string cmd =
      "cd " + kSource + " && " + command + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// Runs the npusim binary with `args` in the source tree.
inline Result run_npusim(const std::string& args, const fs::path& dir) {
  return run_in_source(kBinary + " " + args, dir);
}

/// A scratch directory per test, removed afterwards; commands run in the source tree.
class ScratchDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& c : name)
      if (c == '/')
        c = '_';
    m_dir = fs::temp_directory_path() / ("npusim-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  /// Runs `command` (a shell command line) in the source tree, capturing its output.
  Result run_command(const std::string& command) const { return run_in_source(command, m_dir); }
  /// Runs the npusim binary with `args`.
  Result run(const std::string& args) const { return run_npusim(args, m_dir); }

  fs::path m_dir;
};

} // namespace npu::test
