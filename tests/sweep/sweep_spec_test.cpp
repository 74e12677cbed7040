// The sweep file: values, ranges, grid and zip order, and its errors. Also the plan's
// checks against the config and testbench schemas, which run before any point.
#include "sweep/sweep_plan.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_spec.h"
#include "tests/config/test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace npu::sweep {
namespace {

using test::contains;
using test::input_error;

using Strings = std::vector<std::string>;

Strings values_of(const std::string& yaml) {
  return expand_values(cfg::parse_yaml_string(yaml, "s.yaml"), "parameters.x");
}

Spec spec_of(const std::string& yaml) {
  return read_spec(cfg::parse_yaml_string(yaml, "sweeps/s.yaml"), "sweeps/s.yaml");
}

const std::string kHead =
    "config: ../configs/edge-npu.yaml\ntestbench: ../testbenches/hello.yaml\n";

TEST(SweepValues, ListsKeepTheirSpelling) {
  EXPECT_EQ(values_of("[8KiB, 16384, fifo]"), (Strings{"8KiB", "16384", "fifo"}));
  EXPECT_EQ(values_of("4"), (Strings{"4"}));
}

TEST(SweepValues, LinearRanges) {
  EXPECT_EQ(values_of("{from: 1, to: 7, step: 2}"), (Strings{"1", "3", "5", "7"}));
  EXPECT_EQ(values_of("{from: 1, to: 4}"), (Strings{"1", "2", "3", "4"}));
  EXPECT_EQ(values_of("{from: 8KiB, to: 32KiB, step: 8KiB}"),
            (Strings{"8KiB", "16KiB", "24KiB", "32KiB"}));
  EXPECT_EQ(values_of("{from: 10ns, to: 30ns, step: 10ns}"), (Strings{"10ns", "20ns", "30ns"}));
  // Real steps are multiplied, not accumulated: 0.3 is reached exactly.
  EXPECT_EQ(values_of("{from: 0.1, to: 0.3, step: 0.1}"), (Strings{"0.1", "0.2", "0.3"}));
}

TEST(SweepValues, LogRanges) {
  EXPECT_EQ(values_of("{from: 4KiB, to: 64KiB, factor: 2}"),
            (Strings{"4KiB", "8KiB", "16KiB", "32KiB", "64KiB"}));
  EXPECT_EQ(values_of("{from: 1, to: 100, factor: 10}"), (Strings{"1", "10", "100"}));
  EXPECT_EQ(values_of("{from: 1, to: 50, factor: 4}"), (Strings{"1", "4", "16"}));
}

TEST(SweepValues, RangeErrors) {
  EXPECT_TRUE(contains(input_error([] { values_of("{from: 8, to: 2}"); }).what(),
                       "s.yaml:1:15: error: parameters.x.to: must not be below from"));
  EXPECT_TRUE(
      contains(input_error([] { values_of("{from: 1, to: 8, step: 1, factor: 2}"); }).what(),
               "parameters.x.factor: a range takes either step"));
  EXPECT_TRUE(contains(input_error([] { values_of("{from: 1KiB, to: 8KiB, factor: 1.5}"); }).what(),
                       "must be a whole number for sizes"));
  EXPECT_TRUE(contains(input_error([] { values_of("{from: 1, to: 8, stpe: 2}"); }).what(),
                       "parameters.x.stpe: unknown key; did you mean 'step'?"));
  EXPECT_TRUE(contains(input_error([] { values_of("{from: 1KiB, to: fast}"); }).what(),
                       "cannot step from '1KiB' to 'fast'"));
  EXPECT_TRUE(contains(input_error([] { values_of("{from: 1, to: 100000, step: 1}"); }).what(),
                       "more than 10000 values"));
  EXPECT_TRUE(contains(input_error([] { values_of("[]"); }).what(), "an empty list"));
  EXPECT_TRUE(contains(input_error([] { values_of("[[1, 2]]"); }).what(), "got a list"));
}

TEST(SweepSpec, GridOrderTestbenchOutermostLastParameterFastest) {
  const Spec spec =
      spec_of("config: c.yaml\ntestbench: [a.yaml, b.yaml]\n"
              "parameters:\n  p: [1, 2]\n  q: [x, y, z]\nmetrics: [sim.simulated_ns]\n");
  EXPECT_EQ(spec.config, "sweeps/c.yaml");
  EXPECT_EQ(spec.testbenches, (Strings{"sweeps/a.yaml", "sweeps/b.yaml"}));
  const auto points = expand_points(spec);
  ASSERT_EQ(points.size(), 12u);
  Strings seen;
  for (const auto& p : points)
    seen.push_back(spec.testbench_labels[p.testbench] + ":" + p.value(spec, 0) + p.value(spec, 1));
  EXPECT_EQ(seen, (Strings{"a.yaml:1x", "a.yaml:1y", "a.yaml:1z", "a.yaml:2x", "a.yaml:2y",
                           "a.yaml:2z", "b.yaml:1x", "b.yaml:1y", "b.yaml:1z", "b.yaml:2x",
                           "b.yaml:2y", "b.yaml:2z"}));
  EXPECT_EQ(points[7].index, 7u);
}

TEST(SweepSpec, ZipAdvancesTogether) {
  const Spec spec =
      spec_of(kHead + "mode: zip\nparameters:\n  p: [1, 2, 3]\n"
                      "  q: {from: 8KiB, to: 32KiB, factor: 2}\nmetrics: {t: sim.simulated_ns}\n");
  const auto points = expand_points(spec);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2].value(spec, 0), "3");
  EXPECT_EQ(points[2].value(spec, 1), "32KiB");
  EXPECT_EQ(spec.metrics[0].name, "t");
  EXPECT_EQ(spec.metrics[0].path, "sim.simulated_ns");
}

TEST(SweepSpec, NoParametersIsOnePointPerTestbench) {
  EXPECT_EQ(expand_points(spec_of(kHead + "metrics: [sim.launches]\n")).size(), 1u);
}

TEST(SweepSpec, Errors) {
  EXPECT_TRUE(contains(input_error([] { spec_of(kHead + "metrics: [a]\nparameter: {}\n"); }).what(),
                       "sweeps/s.yaml:4:1: error: parameter: unknown key; did you mean "
                       "'parameters'?"));
  EXPECT_TRUE(contains(input_error([] { spec_of("testbench: a.yaml\nmetrics: [a]\n"); }).what(),
                       "config: missing required key"));
  EXPECT_TRUE(
      contains(input_error([] { spec_of(kHead); }).what(), "metrics: missing required key"));
  EXPECT_TRUE(contains(input_error([] { spec_of(kHead + "mode: zp\nmetrics: [a]\n"); }).what(),
                       "mode: unknown value 'zp'; expected one of grid, zip; did you mean 'zip'?"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead +
                                 "mode: zip\nparameters: {p: [1, 2], q: [1]}\nmetrics: [a]\n");
                       }).what(),
                       "parameters.q: mode zip needs lists of one length: 'p' has 2 values"));
  EXPECT_TRUE(contains(
      input_error([] { spec_of(kHead + "parameters: {status: [1]}\nmetrics: [a]\n"); }).what(),
      "column 'status' is already taken"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "set: {p: 1}\nparameters: {p: [1]}\nmetrics: [a]\n");
                       }).what(),
                       "parameters.p: is also fixed under set"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of("config: c.yaml\ntestbench: [a.yaml, a.yaml]\nmetrics: [a]\n");
                       }).what(),
                       "'a.yaml' is listed twice"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters: {a: {from: 1, to: 400}, b: {from: 1, to: "
                                         "400}}\nmetrics: [x]\n");
                       }).what(),
                       "parameters.b: the grid has more than 100000 points"));
}

// The plan checks keys, values and metrics against the real config and testbench.
class SweepPlanTest : public ::testing::Test {
protected:
  Plan plan_of(const std::string& body) {
    const std::string file =
        m_dir.write("s.yaml", std::string("config: ") + NPU_SOURCE_DIR +
                                  "/configs/edge-npu.yaml\ntestbench: " + NPU_SOURCE_DIR +
                                  "/testbenches/hello.yaml\n" + body);
    return make_plan(load_spec(file), 0);
  }
  std::string error_of(const std::string& body) {
    return input_error([&] { plan_of(body); }).what();
  }
  test::TempDir m_dir;
};

TEST_F(SweepPlanTest, CommandLinesAndInvalidPoints) {
  const Plan plan =
      plan_of("set: {dma.channels: 2}\nparameters:\n  compute.units: [2, 0]\n"
              "  testbench.kernels.tiny.binary: [4KiB]\nmetrics: [sim.simulated_ns, "
              "kernels.gemm.iload.mean_ns, config.icache.size, blocks.icache.hits]\n");
  ASSERT_EQ(plan.points.size(), 2u);
  const PlannedPoint& p = plan.points[0];
  EXPECT_EQ(p.dir, "points/0000");
  const Strings tail(p.args.begin() + 5, p.args.end());
  EXPECT_EQ(tail, (Strings{"--set", "dma.channels=2", "--set", "compute.units=2", "--tb-set",
                           "kernels.tiny.binary=4KiB"}));
  EXPECT_TRUE(p.invalid.empty());
  EXPECT_TRUE(contains(plan.points[1].invalid,
                       "--set compute.units=0: error: compute.units: must be at least 1"));
  // The plan survives its JSON form.
  const Plan back = plan_from_json(plan_to_json(plan));
  EXPECT_EQ(plan_to_json(back).dump(), plan_to_json(plan).dump());
}

TEST_F(SweepPlanTest, UnknownKeysAreTheSweepsError) {
  EXPECT_TRUE(contains(error_of("parameters: {icache.sise: [8KiB]}\nmetrics: [sim.launches]\n"),
                       "s.yaml:3:14: error: parameters.icache.sise: not a key of the config: "
                       "icache.sise: unknown key; did you mean 'size'?"));
  EXPECT_TRUE(contains(error_of("parameters: {icahce.size: [8KiB]}\nmetrics: [sim.launches]\n"),
                       "did you mean 'icache'?"));
  EXPECT_TRUE(contains(
      error_of("parameters: {testbench.kernels.gem.binary: [8KiB]}\nmetrics: [sim.launches]\n"),
      "parameters.testbench.kernels.gem.binary: 'kernels' has no 'gem'; did you mean 'gemm'?"));
  EXPECT_TRUE(contains(error_of("set: {dma.channels: 0}\nmetrics: [sim.launches]\n"),
                       "s.yaml:3:7: error: set.dma.channels: must be at least 1"));
}

TEST_F(SweepPlanTest, MetricsMustExistInTheReport) {
  EXPECT_TRUE(contains(error_of("metrics: [sim.simulatd_ns]\n"),
                       "metrics.sim.simulatd_ns: 'sim' has no 'simulatd_ns'; did you mean "
                       "'simulated_ns'?"));
  EXPECT_TRUE(contains(error_of("metrics: [kernels.gemn.iload.mean_ns]\n"),
                       "'kernels' has no 'gemn'; did you mean 'gemm'?"));
  EXPECT_TRUE(contains(error_of("metrics: [kernels.gemm.iload]\n"),
                       "'kernels.gemm.iload' is a section; expected one of its values: mean_ns"));
  EXPECT_TRUE(contains(error_of("metrics: [simm.launches]\n"), "did you mean 'sim'?"));
}

TEST(SweepResults, ValuesAndCsvFields) {
  const auto j = nlohmann::ordered_json::parse(R"({"a": {"b": [1, {"c": "x"}]}})");
  EXPECT_EQ(value_at(j, "a.b.0")->dump(), "1");
  EXPECT_EQ(value_at(j, "a.b.1.c")->get<std::string>(), "x");
  EXPECT_FALSE(value_at(j, "a.b.2"));
  EXPECT_FALSE(value_at(j, "a.z"));
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a, \"b\""), "\"a, \"\"b\"\"\"");
}

} // namespace
} // namespace npu::sweep
