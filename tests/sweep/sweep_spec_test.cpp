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

TEST(SweepSpec, FidelityFixesTheDramModelOfEveryPointAndObjectiveNamesAMetric) {
  const Spec cycle = spec_of(kHead + "metrics: [a]\n");
  EXPECT_EQ(cycle.fidelity, "cycle");
  EXPECT_TRUE(cycle.fixed.empty());
  EXPECT_TRUE(cycle.objective.column.empty());
  const Spec fast = spec_of(kHead + "fidelity: transaction\nmetrics: {a: sim.simulated_ns, "
                                    "b: sim.launches}\nobjective: {metric: b, goal: max}\n");
  EXPECT_EQ(fast.fidelity, "transaction");
  ASSERT_EQ(fast.fixed.size(), 1u);
  EXPECT_EQ(fast.fixed[0].key, "ddr.model");
  EXPECT_EQ(fast.fixed[0].value, "transaction");
  EXPECT_EQ(fast.objective.column, "b");
  EXPECT_TRUE(fast.objective.maximize);
  EXPECT_EQ(spec_of(kHead + "metrics: [a]\nobjective: a\n").objective.column, "a");
  EXPECT_FALSE(spec_of(kHead + "metrics: [a]\nobjective: a\n").objective.maximize);
  EXPECT_TRUE(
      contains(input_error([] { spec_of(kHead + "fidelity: fast\nmetrics: [a]\n"); }).what(),
               "fidelity: unknown value 'fast'; expected one of cycle, transaction"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "fidelity: transaction\nset: {ddr.model: cycle}\n"
                                         "metrics: [a]\n");
                       }).what(),
                       "set.ddr.model: is set by fidelity (line 3)"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "fidelity: transaction\nparameters: {ddr.model: "
                                         "[cycle, transaction]}\nmetrics: [a]\n");
                       }).what(),
                       "fixes for every point"));
  EXPECT_TRUE(
      contains(input_error([] { spec_of(kHead + "metrics: [time]\nobjective: tme\n"); }).what(),
               "objective: 'tme' is not a metric column; did you mean 'time'?"));
}

// Every way to make points is held to one cap, counted before anything is planned.
TEST(SweepSpec, EveryKindOfSweepIsHeldToThePointCap) {
  std::string testbenches = "config: c.yaml\ntestbench: [";
  for (int i = 0; i < 15; ++i)
    testbenches += (i ? ", t" : "t") + std::to_string(i) + ".yaml";
  testbenches += "]\n";
  // zip: 15 testbenches x 10,000 values zipped = 150,000 points.
  EXPECT_TRUE(contains(input_error([&] {
                         spec_of(testbenches + "mode: zip\nparameters: {a: {from: 1, to: 10000}, "
                                               "b: {from: 1, to: 10000}}\nmetrics: [x]\n");
                       }).what(),
                       "parameters.a: 10000 values zipped on 15 testbenches give more than "
                       "100000 points"));
  // linked: a group of 10,000 steps zipped on 15 testbenches.
  EXPECT_TRUE(contains(input_error([&] {
                         spec_of(testbenches + "mode: zip\nparameters:\n  g: {link: {a: {from: 1, "
                                               "to: 10000}, b: {from: 1, to: 10000}}}\n"
                                               "metrics: [x]\n");
                       }).what(),
                       "parameters.g: 10000 values zipped on 15 testbenches give more than"));
  // A linked group in a grid, and a grid whose product would overflow.
  EXPECT_TRUE(contains(input_error([&] {
                         spec_of(testbenches + "parameters:\n  g: {link: {a: {from: 1, to: 10000}, "
                                               "b: {from: 1, to: 10000}}}\nmetrics: [x]\n");
                       }).what(),
                       "parameters.g: the grid has more than 100000 points"));
  std::string many = kHead + "parameters:\n";
  for (int i = 0; i < 6; ++i)
    many += "  p" + std::to_string(i) + ": {from: 1, to: 10000}\n";
  EXPECT_TRUE(contains(input_error([&] { spec_of(many + "metrics: [x]\n"); }).what(),
                       "parameters.p1: the grid has more than 100000 points"));
  // At the cap itself: accepted.
  EXPECT_NO_THROW(spec_of(kHead + "mode: zip\nparameters: {a: {from: 1, to: 10000}}\n"
                                  "metrics: [x]\n"));
}

TEST(SweepSpec, MapValuedListsSetTheirKeysTogether) {
  const Spec spec =
      spec_of(kHead + "parameters:\n"
                      "  compute.array: [{rows: 32, cols: 32}, {rows: 64, cols: 64}]\n"
                      "  compute.units: [1, 2]\nmetrics: [sim.simulated_ns]\n");
  ASSERT_EQ(spec.parameters.size(), 2u);
  const Parameter& array = spec.parameters[0];
  EXPECT_TRUE(array.linked());
  EXPECT_EQ(array.keys(), (Strings{"compute.array.rows", "compute.array.cols"}));
  // Equal values label the step by the value alone: it plots as a number.
  EXPECT_EQ(array.values, (Strings{"32", "64"}));
  EXPECT_EQ(array.settings(1), (std::vector<std::pair<std::string, std::string>>{
                                   {"compute.array.rows", "64"}, {"compute.array.cols", "64"}}));
  EXPECT_EQ(array.key_loc(1).line, 4);
  EXPECT_EQ(array.key_loc(1).column, 30);
  // In a grid the group is one axis.
  const auto points = expand_points(spec);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[2].value(spec, 0), "64");
  EXPECT_EQ(points[2].value(spec, 1), "1");
}

TEST(SweepSpec, NestedMapsFlattenAndUnequalValuesAreNamed) {
  const Spec spec = spec_of(kHead + "parameters:\n  ddr: [{preset: DDR4-3200, timing: {CL: 22}},"
                                    " {preset: LPDDR4-3200, timing: {CL: 28}}]\n"
                                    "  testbench.kernels: [{k.binary: 4KiB}]\n"
                                    "metrics: [sim.simulated_ns]\n");
  EXPECT_EQ(spec.parameters[0].keys(), (Strings{"ddr.preset", "ddr.timing.CL"}));
  EXPECT_EQ(spec.parameters[0].values,
            (Strings{"preset=DDR4-3200 timing.CL=22", "preset=LPDDR4-3200 timing.CL=28"}));
  EXPECT_EQ(spec.parameters[1].keys(), (Strings{"testbench.kernels.k.binary"}));
  EXPECT_TRUE(is_testbench_key(spec.parameters[1].keys()[0]));
  EXPECT_EQ(target_key(spec.parameters[1].keys()[0]), "kernels.k.binary");
}

TEST(SweepSpec, LinkGroupsTakeListsAndRangesOfOneLength) {
  const Spec spec =
      spec_of(kHead + "mode: zip\nparameters:\n"
                      "  array: {link: {compute.array.rows: [32, 64, 128],\n"
                      "                 compute.array.cols: {from: 16, to: 64, factor: 2}}}\n"
                      "  compute.units: [1, 2, 4]\nmetrics: [sim.simulated_ns]\n");
  const Parameter& array = spec.parameters[0];
  EXPECT_EQ(array.key, "array");
  EXPECT_EQ(array.keys(), (Strings{"compute.array.rows", "compute.array.cols"}));
  EXPECT_EQ(array.values, (Strings{"rows=32 cols=16", "rows=64 cols=32", "rows=128 cols=64"}));
  const auto points = expand_points(spec);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[1].value(spec, 0), "rows=64 cols=32");
  // Keys whose last parts are alike are named in full.
  const Spec full = spec_of(kHead + "parameters:\n  size: {link: {icache.size: [8KiB],"
                                    " sram.size: [8KiB], icache.l2.ways: [2]}}\n"
                                    "metrics: [sim.simulated_ns]\n");
  EXPECT_EQ(full.parameters[0].values,
            (Strings{"icache.size=8KiB sram.size=8KiB icache.l2.ways=2"}));
}

TEST(SweepSpec, LinkedErrors) {
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters:\n  array: {link: {compute.array.rows: [32, "
                                         "64, 128], compute.array.cols: [32, 64]}}\n"
                                         "metrics: [a]\n");
                       }).what(),
                       "sweeps/s.yaml:4:53: error: parameters.array.link.compute.array.cols: "
                       "linked keys need lists of one length: 'compute.array.rows' has 3 "
                       "values, this one 2"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters:\n  array: {link: {a: [1]}, from: 1}\n"
                                         "metrics: [a]\n");
                       }).what(),
                       "parameters.array.from: unknown key"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters:\n  array: {link: [1, 2]}\nmetrics: [a]\n");
                       }).what(),
                       "parameters.array.link: expected a map of key: values, got a list"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters:\n  a: [{rows: 1, cols: 1}, {rows: 2}]\n"
                                         "metrics: [a]\n");
                       }).what(),
                       "sweeps/s.yaml:4:27: error: parameters.a: this item has no 'cols'"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters:\n  a: [{rows: 1}, {rows: 2, cls: 2}]\n"
                                         "metrics: [a]\n");
                       }).what(),
                       "parameters.a.cls: not a key of the first item"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters:\n  a: [{rows: 1}, 2]\nmetrics: [a]\n");
                       }).what(),
                       "parameters.a: expected a map like the first item, got a value"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "set: {a.rows: 1}\nparameters:\n  a: [{rows: 1}]\n"
                                         "metrics: [a]\n");
                       }).what(),
                       "parameters.a.rows: is also fixed under set"));
  EXPECT_TRUE(contains(input_error([] {
                         spec_of(kHead + "parameters:\n  a.rows: [1]\n  g: {link: {a.rows: "
                                         "[1]}}\nmetrics: [a]\n");
                       }).what(),
                       "parameters.g.link.a.rows: is also set by parameters.a.rows (line 4)"));
}

TEST(SweepSpec, QuotedMetricPaths) {
  const auto parts = split_metric_path("blocks.\"compute.unit0\".busy_ns");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].text, "compute.unit0");
  EXPECT_TRUE(parts[1].quoted);
  EXPECT_FALSE(parts[2].quoted);
  const auto candidates = key_candidates(split_metric_path("a.b.c"), 0);
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0], (std::pair<std::string, size_t>{"a.b.c", 3}));
  EXPECT_EQ(candidates[2], (std::pair<std::string, size_t>{"a", 1}));
  EXPECT_TRUE(contains(
      input_error([] { spec_of(kHead + "metrics: ['blocks.\"compute.unit0.busy_ns']\n"); }).what(),
      "sweeps/s.yaml:3:11: error: metrics: 'blocks.\"compute.unit0.busy_ns': the quote at "
      "character 8 is not closed"));
  EXPECT_TRUE(contains(input_error([] { spec_of(kHead + "metrics: [sim..launches]\n"); }).what(),
                       "expected a key between two dots"));
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

TEST_F(SweepPlanTest, EnergyFiguresAreMetrics) {
  EXPECT_NO_THROW(plan_of("metrics:\n  - energy.total_pj\n  - energy.tops_per_w\n"
                          "  - energy.blocks.compute_pj\n  - energy.phases.iload_pj\n"
                          "  - energy.shares.static_pj\n  - energy.kernels.gemm.execute_pj\n"
                          "  - energy.parts.compute.mac_int8_pj\n"));
  EXPECT_TRUE(contains(error_of("metrics: [energy.phases.iloda_pj]\n"),
                       "'energy.phases' has no 'iloda_pj'; did you mean 'iload_pj'?"));
}

TEST_F(SweepPlanTest, LinkedKeysSetTogetherAndAreChecked) {
  const Plan plan = plan_of("parameters:\n"
                            "  compute.array: [{rows: 16, cols: 16}, {rows: 64, cols: 64}]\n"
                            "  dims: {link: {compute.units: [1, 2], dma.channels: [2, 4]}}\n"
                            "metrics: [sim.simulated_ns]\n");
  EXPECT_EQ(plan.parameter_keys, (Strings{"compute.array", "dims"}));
  ASSERT_EQ(plan.linked.size(), 2u);
  EXPECT_EQ(plan.linked[1].second, (Strings{"compute.units", "dma.channels"}));
  ASSERT_EQ(plan.points.size(), 4u);
  const PlannedPoint& p = plan.points[3];
  const Strings tail(p.args.begin() + 5, p.args.end());
  EXPECT_EQ(tail, (Strings{"--set", "compute.array.rows=64", "--set", "compute.array.cols=64",
                           "--set", "compute.units=2", "--set", "dma.channels=4"}));
  EXPECT_EQ(p.parameters,
            (std::vector<std::pair<std::string, std::string>>{{"compute.array", "64"},
                                                              {"compute.array.rows", "64"},
                                                              {"compute.array.cols", "64"},
                                                              {"dims", "units=2 channels=4"},
                                                              {"compute.units", "2"},
                                                              {"dma.channels", "4"}}));
  EXPECT_TRUE(p.invalid.empty()) << p.invalid;
  const Plan back = plan_from_json(plan_to_json(plan));
  EXPECT_EQ(plan_to_json(back).dump(), plan_to_json(plan).dump());
}

TEST_F(SweepPlanTest, UnknownLinkedKeysAreTheSweepsError) {
  EXPECT_TRUE(contains(error_of("parameters:\n  a: {link: {compute.array.rws: [8], "
                                "compute.array.cols: [8]}}\nmetrics: [sim.launches]\n"),
                       "s.yaml:4:14: error: parameters.a.link.compute.array.rws: not a key of the "
                       "config: compute.array.rws: unknown key; did you mean 'rows'?"));
  EXPECT_TRUE(contains(error_of("parameters:\n  compute.aray: [{rows: 8, cols: 8}]\n"
                                "metrics: [sim.launches]\n"),
                       "s.yaml:4:19: error: parameters.compute.aray.rows: not a key of the "
                       "config: compute.aray: unknown key; did you mean 'array'?"));
  EXPECT_TRUE(contains(error_of("parameters:\n  testbench.kernels.gem: [{binary: 4KiB}]\n"
                                "metrics: [sim.launches]\n"),
                       "'kernels' has no 'gem'; did you mean 'gemm'?"));
}

TEST_F(SweepPlanTest, MetricPathsThroughBlocksWithDotsInTheirNames) {
  EXPECT_NO_THROW(plan_of("metrics:\n  - blocks.\"compute.unit0\".mac_utilization\n"
                          "  - utilisation.\"compute.unit0\".mac_utilization\n"
                          "  - utilisation.compute.unit0.busy\n"
                          "  - stat_units.\"ddr.reads\".unit\n"));
  EXPECT_TRUE(contains(error_of("metrics: [utilisation.compte.unit0.busy]\n"),
                       "metrics.utilisation.compte.unit0.busy: 'utilisation' has no 'compte'; "
                       "did you mean 'compute'?"));
  EXPECT_TRUE(contains(error_of("metrics: ['utilisation.\"compute.unit0\"']\n"),
                       "'utilisation.compute.unit0' is a block; expected one of its statistics"));
  EXPECT_TRUE(contains(error_of("metrics: [utilisation]\n"),
                       "'utilisation' is a section; expected a block and one of its statistics"));
  // The hints quote the metric's own parts, never a name it does not hold.
  for (const char* metric : {"blocks.dram.busy_ns", "blocks", "utilisation.foo.bar.busy"}) {
    const std::string e = error_of(std::string("metrics: [") + metric + "]\n");
    EXPECT_FALSE(contains(e, "compute.unit0")) << e;
  }
  EXPECT_TRUE(contains(error_of("metrics: [utilisation.foo.bar.busy]\n"),
                       "(a block with a dot in its name goes in quotes: \"foo.bar\")"));
}

TEST(SweepResults, ValuesAndCsvFields) {
  const auto j = nlohmann::ordered_json::parse(R"({"a": {"b": [1, {"c": "x"}]}})");
  EXPECT_EQ(value_at(j, "a.b.0")->dump(), "1");
  EXPECT_EQ(value_at(j, "a.b.1.c")->get<std::string>(), "x");
  EXPECT_FALSE(value_at(j, "a.b.2"));
  EXPECT_FALSE(value_at(j, "a.z"));
  // Keys with dots: quoted exactly, or unquoted by the longest key that matches.
  const auto r = nlohmann::ordered_json::parse(
      R"({"blocks": {"compute": {"busy": 1}, "compute.unit0": {"busy": 2}}})");
  EXPECT_EQ(value_at(r, "blocks.\"compute.unit0\".busy")->dump(), "2");
  EXPECT_EQ(value_at(r, "blocks.compute.unit0.busy")->dump(), "2");
  EXPECT_EQ(value_at(r, "blocks.\"compute\".busy")->dump(), "1");
  EXPECT_FALSE(value_at(r, "blocks.\"compute.unit0.busy"));
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a, \"b\""), "\"a, \"\"b\"\"\"");
}

} // namespace
} // namespace npu::sweep
