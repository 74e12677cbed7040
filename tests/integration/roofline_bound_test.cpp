// The roofline bound a report prints is a true lower bound: for every shipped testbench and
// workload on every reference config, no kernel's bound (its launches' work at the peak
// rates of their units, or their DDR bytes at the DDR's peak) is above its mean execute
// phase, nor is the sum of its ops' bounds (each op's work at the units' peak, its planned
// DDR traffic at the DDR's peak; ops run one after another).
#include "cli_helpers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace npu::test;
using Json = nlohmann::json;

struct Case {
  std::string testbench; ///< under the source tree
  std::string config;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.testbench << " on " << c.config;
}

// Workloads that take tens of seconds (workloads_test marks them slow too).
bool slow(const std::string& testbench) {
  for (const char* name : {"resnet50_b8", "llm_decode_step", "llm7b_decode", "llm7b_prefill"})
    if (testbench.find(name) != std::string::npos)
      return true;
  return false;
}

std::vector<Case> cases() {
  std::vector<std::string> benches;
  for (const char* dir : {"testbenches", "testbenches/bench", "testbenches/workloads"})
    for (const auto& entry : fs::directory_iterator(fs::path(kSource) / dir))
      if (entry.path().extension() == ".yaml")
        benches.push_back(std::string(dir) + "/" + entry.path().filename().string());
  std::sort(benches.begin(), benches.end());
  std::vector<Case> out;
  for (const std::string& tb : benches)
    for (const char* config : {"edge-npu", "datacenter-npu", "datacenter-gpu", "tpu-v3-core"})
      out.push_back({tb, config});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.testbench + "_on_" + info.param.config;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

class RooflineBound : public ScratchDirTest, public ::testing::WithParamInterface<Case> {};

TEST_P(RooflineBound, IsNeverAboveTheSimulatedExecute) {
  const Case& c = GetParam();
  if (slow(c.testbench) &&
      !(std::getenv("NPU_SLOW_TESTS") && std::string(std::getenv("NPU_SLOW_TESTS")) == "1"))
    GTEST_SKIP() << "a slow workload: set NPU_SLOW_TESTS=1 to simulate it";
  const fs::path out = m_dir / "out";
  const Result r = run("run --config configs/" + c.config + ".yaml --testbench " + c.testbench +
                       " --out " + out.string());
  // A testbench that asks for more units or DDR than a config has is refused before it
  // runs (llm7b_decode's 7.95 GB of weights and KV cache on edge-npu's 4 GiB).
  if (r.code == 2 && (r.err.find("units but '" + c.config + "' has") != std::string::npos ||
                      r.err.find(" but ddr.size is ") != std::string::npos))
    GTEST_SKIP() << r.err;
  ASSERT_EQ(r.code, 0) << r.err;
  const Json report = Json::parse(slurp(out / "report.json"));
  int checked = 0;
  for (const auto& [name, kernel] : report["kernels"].items()) {
    const double execute = kernel["roofline"]["execute_ns"].get<double>();
    const double bound = kernel["roofline"]["bound_ns"].get<double>();
    EXPECT_LE(bound, execute) << name;
    double ops = 0;
    for (const auto& op : kernel["tiling"])
      ops += op["bound_ns"].get<double>();
    EXPECT_LE(ops, execute) << name << ": the sum of its ops' bounds";
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Shipped, RooflineBound, ::testing::ValuesIn(cases()), case_name);

} // namespace
