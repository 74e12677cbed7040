// Helpers for tests that run the real npusim binary and read what it writes.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace npu::test {

inline const std::string kSourceDir = NPU_SOURCE_DIR;
inline const std::string kNpusim = std::string(NPU_BINARY_DIR) + "/npusim";

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `npusim ARGS` in the source tree; its stdout and stderr pass through files in `dir`.
inline CliResult run_npusim(const std::string& args, const std::filesystem::path& dir) {
  const std::filesystem::path out = dir / "stdout.txt";
  const std::filesystem::path err = dir / "stderr.txt";
  const std::string cmd = "cd " + kSourceDir + " && " + kNpusim + " " + args + " >" + out.string() +
                          " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// One row of a CSV file, by column name.
struct CsvRow {
  std::map<std::string, std::string> cells;
  double num(const std::string& k) const { return std::stod(cells.at(k)); }
};

inline std::vector<CsvRow> read_csv(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string h; std::getline(hs, h, ',');)
    header.push_back(h);
  std::vector<CsvRow> rows;
  while (std::getline(in, line)) {
    CsvRow r;
    std::stringstream ls(line);
    size_t i = 0;
    for (std::string c; std::getline(ls, c, ',') && i < header.size(); ++i)
      r.cells[header[i]] = c;
    rows.push_back(r);
  }
  return rows;
}

} // namespace npu::test
