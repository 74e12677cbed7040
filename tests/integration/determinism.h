// Compares two output directories of the same inputs: every file byte for byte, except the
// wall-clock fields (JSON keys and CSV columns whose name contains "wall", lines of other
// text that contain it), which a rerun may change.
#pragma once

#include "tests/integration/cli_helpers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace npu::test {

inline bool is_wall_clock(const std::string& name) {
  return name.find("wall") != std::string::npos;
}

/// `j` without wall-clock keys, at any depth.
inline nlohmann::ordered_json without_wall_clock(const nlohmann::ordered_json& j) {
  if (j.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& item : j)
      out.push_back(without_wall_clock(item));
    return out;
  }
  if (!j.is_object())
    return j;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : j.items())
    if (!is_wall_clock(key))
      out[key] = without_wall_clock(value);
  return out;
}

/// CSV text without its wall-clock columns.
inline std::string csv_without_wall_clock(const std::string& text) {
  std::stringstream in(text);
  std::string line, out;
  std::set<size_t> dropped;
  for (bool header = true; std::getline(in, line); header = false) {
    std::stringstream cells(line);
    std::string cell, kept;
    size_t column = 0;
    for (; std::getline(cells, cell, ','); ++column) {
      if (header && is_wall_clock(cell))
        dropped.insert(column);
      if (!dropped.count(column))
        kept += (kept.empty() ? "" : ",") + cell;
    }
    out += kept + "\n";
  }
  return out;
}

/// Text without its lines that mention wall-clock time (the summary's "wall time: 0.2 s").
inline std::string text_without_wall_clock(const std::string& text) {
  std::stringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (!is_wall_clock(line))
      out += line + "\n";
  return out;
}

/// Expects the same files under `a` and `b` with the same content, wall clock aside.
inline void expect_identical_outputs(const fs::path& a, const fs::path& b) {
  std::set<fs::path> files_a, files_b;
  for (const auto& e : fs::recursive_directory_iterator(a))
    if (e.is_regular_file())
      files_a.insert(fs::relative(e.path(), a));
  for (const auto& e : fs::recursive_directory_iterator(b))
    if (e.is_regular_file())
      files_b.insert(fs::relative(e.path(), b));
  EXPECT_EQ(files_a, files_b);
  EXPECT_FALSE(files_a.empty()) << a << " holds no files";
  for (const fs::path& f : files_a) {
    if (!files_b.count(f))
      continue;
    const std::string text_a = slurp(a / f), text_b = slurp(b / f);
    if (f.extension() == ".json")
      EXPECT_EQ(without_wall_clock(nlohmann::ordered_json::parse(text_a)).dump(1),
                without_wall_clock(nlohmann::ordered_json::parse(text_b)).dump(1))
          << f;
    else if (f.extension() == ".csv")
      EXPECT_EQ(csv_without_wall_clock(text_a), csv_without_wall_clock(text_b)) << f;
    else
      EXPECT_TRUE(text_without_wall_clock(text_a) == text_without_wall_clock(text_b))
          << f << " differs";
  }
}

/// A reference config and testbench.
struct Pair {
  std::string config;
  std::string testbench;
};

inline void PrintTo(const Pair& p, std::ostream* os) {
  *os << p.testbench << " on " << p.config;
}

/// Every shipped testbench, and the real-network workloads that simulate in a few seconds,
/// on each reference config.
inline std::vector<Pair> reference_pairs() {
  std::vector<std::string> testbenches;
  for (const auto& e : fs::directory_iterator(fs::path(kSource) / "testbenches"))
    if (e.path().extension() == ".yaml")
      testbenches.push_back("testbenches/" + e.path().filename().string());
  for (const char* quick : {"bert_base_layer", "mobilenetv2_b1"})
    testbenches.push_back(std::string("testbenches/workloads/") + quick + ".yaml");
  std::sort(testbenches.begin(), testbenches.end());
  std::vector<Pair> pairs;
  for (const char* config : {"edge-npu", "datacenter-gpu", "datacenter-npu"})
    for (const auto& tb : testbenches)
      pairs.push_back({std::string("configs/") + config + ".yaml", tb});
  return pairs;
}

/// "edge_npu_hello" for a test name.
inline std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  std::string name = fs::path(info.param.config).stem().string() + "_" +
                     fs::path(info.param.testbench).stem().string();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

} // namespace npu::test
