// `npusim import`: the reference models of scripts/gen_onnx_models.py (written into each
// test's scratch folder) become testbenches that load and run, with the MACs ONNX's own
// shapes give; the imported ResNet-50 has the layers of the generated workload.
#include "cli_helpers.h"
#include "models/compute/op.h"
#include "testbench/testbench.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace npu::test;

class ImportTest : public ScratchDirTest {
protected:
  /// Writes reference model `name` into the scratch folder; its path.
  fs::path model(const std::string& name) const {
    const Result r = run_command("/usr/bin/python3 scripts/gen_onnx_models.py --out " +
                                 m_dir.string() + " " + name);
    EXPECT_EQ(r.code, 0) << r.err;
    return m_dir / (name + ".onnx");
  }
  /// Imports `onnx` with `args` into the scratch folder; the testbench's path.
  fs::path import(const fs::path& onnx, const std::string& args) const {
    const fs::path out = m_dir / (onnx.stem().string() + ".yaml");
    const Result r = run("import " + onnx.string() + " -o " + out.string() + " " + args);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    return out;
  }
};

// The MAC-bearing layers of a testbench's launches: kernel kind and shape, and MACs.
struct Layer {
  std::tuple<int, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
             uint64_t>
      shape;
  uint64_t macs = 0;
  bool operator<(const Layer& o) const { return shape < o.shape; }
  bool operator==(const Layer& o) const { return shape == o.shape && macs == o.macs; }
};

std::vector<Layer> mac_layers(const npu::Testbench& tb) {
  std::vector<Layer> layers;
  for (const npu::Step& s : tb.program) {
    const auto* launch = s.as<npu::step::Launch>();
    if (!launch)
      continue;
    const npu::OpSpec& op = tb.kernels[launch->kernel].desc.op;
    // A depthwise convolution's multiply-accumulates run on the vector unit.
    const npu::OpExtent x = npu::op_extent(op);
    const uint64_t macs = op.kind() == npu::OpKind::DepthwiseConv2d ? x.vector_ops : x.macs;
    if (macs == 0)
      continue;
    const int kind = static_cast<int>(op.kind());
    decltype(Layer::shape) shape{kind, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    if (const npu::WindowOp* w = op.window()) {
      const auto* conv = op.get_if<npu::Conv2dOp>();
      shape = {kind, w->batch, w->channels, w->height, w->width, conv ? conv->filters : 0,
               w->r, w->s,     w->stride,   w->pad};
    } else if (const auto* fc = op.get_if<npu::FullyConnectedOp>()) {
      shape = {kind, fc->batch, fc->in_features, 0, 0, fc->out_features, 0, 0, 1, 0};
    } else if (const auto* mm = op.get_if<npu::MatmulOp>()) {
      std::get<1>(shape) = mm->batch;
    }
    layers.push_back({shape, macs});
  }
  std::sort(layers.begin(), layers.end());
  return layers;
}

uint64_t total_macs(const std::vector<Layer>& layers) {
  uint64_t sum = 0;
  for (const Layer& l : layers)
    sum += l.macs;
  return sum;
}

} // namespace

TEST_F(ImportTest, Resnet50HasTheLayersAndMacsOfTheGeneratedWorkload) {
  const fs::path tb = import(model("resnet50"), "--batch 1");
  const std::vector<Layer> imported = mac_layers(npu::load_testbench(tb.string()));
  const std::vector<Layer> generated =
      mac_layers(npu::load_testbench(kSource + "/testbenches/workloads/resnet50_b1.yaml"));
  ASSERT_EQ(imported.size(), 54u); // 53 convolutions and the classifier
  EXPECT_EQ(imported.size(), generated.size());
  EXPECT_TRUE(imported == generated);
  EXPECT_EQ(total_macs(imported), 4'089'184'256u);
  EXPECT_EQ(total_macs(imported), total_macs(generated));
}

// Each Conv and Gemm's MACs as ONNX's shape inference (Python) counts them, against the
// kernel the import named after the node.
TEST_F(ImportTest, Resnet50MacsPerLayerEqualOnnxShapes) {
  const fs::path onnx = model("resnet50");
  const Result macs = run_command("/usr/bin/python3 scripts/gen_onnx_models.py --macs " +
                                  onnx.string() + " --batch 1");
  ASSERT_EQ(macs.code, 0) << macs.err;
  const npu::Testbench tb = npu::load_testbench(import(onnx, "--batch 1").string());
  std::map<std::string, uint64_t> kernel_macs;
  for (const auto& k : tb.kernels)
    kernel_macs[k.desc.name] = npu::op_extent(k.desc.op).macs;
  std::istringstream lines(macs.out);
  size_t checked = 0;
  for (std::string name; lines >> name;) {
    uint64_t expected = 0;
    lines >> expected;
    ASSERT_TRUE(kernel_macs.count(name)) << name;
    EXPECT_EQ(kernel_macs[name], expected) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 54u);
}

TEST_F(ImportTest, EveryReferenceModelImportsAndRuns) {
  const struct {
    const char* name;
    const char* args;
    uint64_t macs;
  } cases[] = {{"resnet50", "--batch 1 --fuse elementwise", 4'089'184'256u},
               {"mobilenetv2", "--batch 1", 300'774'272u},
               {"bert_layer", "--dim seq=128 --dtype fp16", 931'135'488u},
               {"decoder_kv", "--dim past=511 --streams 2", 0}};
  for (const auto& c : cases) {
    const fs::path tb = import(model(c.name), c.args);
    const Result r = run("run --config configs/datacenter-npu.yaml --testbench " + tb.string());
    EXPECT_EQ(r.code, 0) << c.name << ": " << r.err;
    EXPECT_NE(r.out.find("testbench  " + std::string(c.name)), std::string::npos) << r.out;
    if (c.macs) {
      EXPECT_EQ(total_macs(mac_layers(npu::load_testbench(tb.string()))), c.macs) << c.name;
    }
  }
}

TEST_F(ImportTest, FuseElementwiseJoinsActivationsToTheirProducers) {
  const fs::path onnx = model("resnet50");
  const npu::Testbench plain = npu::load_testbench(import(onnx, "--batch 1").string());
  const fs::path fused_path = m_dir / "fused.yaml";
  ASSERT_EQ(run("import " + onnx.string() + " -o " + fused_path.string() +
                " --batch 1 --fuse elementwise --name fused")
                .code,
            0);
  const npu::Testbench fused = npu::load_testbench(fused_path.string());
  EXPECT_EQ(fused.name, "fused");
  auto launches = [](const npu::Testbench& tb) {
    return std::count_if(tb.program.begin(), tb.program.end(),
                         [](const npu::Step& s) { return s.as<npu::step::Launch>() != nullptr; });
  };
  EXPECT_EQ(launches(plain), 122);
  EXPECT_EQ(launches(fused), 57); // 53 convs with their BatchNorm, ReLU and residual add
  EXPECT_EQ(mac_layers(plain).size(), mac_layers(fused).size());
}

TEST_F(ImportTest, StreamsSplitBranchesWithEventsAtTheJoins) {
  const fs::path tb = import(model("resnet50"), "--batch 1 --streams 2");
  const std::string text = slurp(tb);
  EXPECT_NE(text.find("streams: [s0, s1]"), std::string::npos);
  EXPECT_NE(text.find("- record: {event: "), std::string::npos);
  EXPECT_NE(text.find("- wait: {event: "), std::string::npos);
  const Result r = run("run --config configs/edge-npu.yaml --testbench " + tb.string());
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(ImportTest, RunModelImportsOnTheFly) {
  const fs::path onnx = model("bert_layer");
  // bert_layer's sequence is symbolic: unbound, it is taken as 1 and a warning says so.
  Result r = run("run --config configs/edge-npu.yaml --model " + onnx.string());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("unbound dimensions taken as 1: hidden_states[1] 'seq'"), std::string::npos)
      << r.err;
  r = run("run --config configs/edge-npu.yaml --model " + onnx.string() + " --dim seq=16");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  r = run("run --config configs/edge-npu.yaml --testbench x.yaml --model " + onnx.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
  r = run("run --config configs/edge-npu.yaml --testbench x.yaml --dim seq=16");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--dim requires --model"), std::string::npos) << r.err;
}

// Models of the import's features (scripts/gen_onnx_models.py --features): each imports and
// runs with default options, with the MACs an independent count gives (scripts/onnx_macs.py).
class FeatureTest : public ImportTest {
protected:
  fs::path feature(const std::string& name) const {
    const Result r = run_command("/usr/bin/python3 scripts/gen_onnx_models.py --features --out " +
                                 m_dir.string() + " " + name);
    EXPECT_EQ(r.code, 0) << r.err;
    return m_dir / (name + ".onnx");
  }
  uint64_t counted(const fs::path& onnx) const {
    const Result r = run_command("/usr/bin/python3 scripts/onnx_macs.py " + onnx.string());
    EXPECT_EQ(r.code, 0) << r.err;
    return std::stoull(r.out);
  }
};

TEST_F(FeatureTest, EachFeatureImportsRunsAndCountsTheMacsOfTheGraph) {
  const struct {
    const char* name;
    uint64_t macs;
    const char* warning;
  } cases[] = {{"if_const", 115'605'504u, "unbound dimensions taken as 1: x[0] 'batch'"},
               {"loop_const", 4 * 65'536u, nullptr},      // 4 iterations of a 256 x 256 matmul
               {"loop_early_exit", 3 * 65'536u, nullptr}, // its condition stops it after 3
               {"einsum", 25'165'824u, nullptr},
               {"recurrent", 34'996'224u, "unbound dimensions taken as 1: x[1] 'batch'"},
               {"quantized", 49'840'128u, nullptr},
               {"opset18", 0, nullptr},
               {"huge_rows", 0, nullptr}, // a 320 x 320 pool, softmax and layernorm over 6.5M
               {"generic", 0,
                "2 node(s) of ops npusim has no mapping for run as vector passes over their "
                "elements: Det, GridSample"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path onnx = feature(c.name);
    EXPECT_EQ(counted(onnx), c.macs);
    const fs::path out = m_dir / (std::string(c.name) + ".yaml");
    Result r = run("import " + onnx.string() + " -o " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(", " + std::to_string(c.macs) + " MACs"), std::string::npos) << r.out;
    if (c.warning)
      EXPECT_NE(r.err.find(c.warning), std::string::npos) << r.err;
    else
      EXPECT_EQ(r.err, "");
    r = run("run --config configs/edge-npu.yaml --testbench " + out.string());
    EXPECT_EQ(r.code, 0) << r.err;
  }
}

TEST_F(FeatureTest, AnIfThatFoldsRunsItsBranchAndTheReportNamesTheModelsNodes) {
  const fs::path out = m_dir / "out";
  const Result r = run("run --config configs/edge-npu.yaml --model " +
                       feature("if_const").string() + " --batch 1 --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(out / "report.json").find("\"kernel\": \"branch/then_conv\""), std::string::npos);
}

TEST_F(FeatureTest, ALoopIsUnrolledIterationByIterationUntilItsConditionIsFalse) {
  const fs::path out = m_dir / "loop.yaml";
  const Result r = run("import " + feature("loop_early_exit").string() + " -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const npu::Testbench tb = npu::load_testbench(out.string());
  std::vector<std::string> kernels;
  for (const auto& k : tb.kernels)
    kernels.push_back(k.desc.name);
  EXPECT_EQ(kernels, (std::vector<std::string>{"repeat/0/step", "repeat/0/act", "repeat/1/step",
                                               "repeat/1/act", "repeat/2/step", "repeat/2/act"}));
  // Each iteration reads the state the one before wrote; the scan output gathers all three.
  const std::string yaml = slurp(out);
  EXPECT_NE(yaml.find("args: [repeat_0_next, w_repeat_1_step, repeat_1_h]"), std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("memcpy: {dst: steps, dst_offset: 512, src: repeat_2_next, bytes: 256"),
            std::string::npos)
      << yaml;
}

TEST_F(FeatureTest, TenThousandFusedElementwiseOpsGiveATestbenchNpusimAccepts) {
  const fs::path out = m_dir / "chain.yaml";
  const Result r =
      run("import " + feature("chain10k").string() + " -o " + out.string() + " --fuse elementwise");
  ASSERT_EQ(r.code, 0) << r.err;
  const npu::Testbench tb = npu::load_testbench(out.string());
  size_t ops = 0;
  for (const auto& k : tb.kernels) {
    EXPECT_LE(k.desc.fused.size() + 1, 4096u) << k.desc.name;
    ops += k.desc.fused.size() + 1;
  }
  EXPECT_GT(ops, 10000u); // the parts and the fused kernels that run them
}

TEST_F(FeatureTest, AModelFileNameWithANewlineGivesATestbenchThatLoads) {
  const fs::path odd = m_dir / "two\nlines.onnx";
  fs::copy_file(feature("einsum"), odd);
  const fs::path out = m_dir / "odd.yaml";
  const Result r = run("import '" + odd.string() + "' -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(out).find("# Imported from two\\nlines.onnx"), std::string::npos);
  EXPECT_NO_THROW(npu::load_testbench(out.string()));
}

TEST_F(FeatureTest, MaxWallTimeCoversTheImport) {
  const fs::path onnx = feature("chain10k");
  const auto start = std::chrono::steady_clock::now();
  const Result r =
      run("run --config configs/edge-npu.yaml --model " + onnx.string() + " --max-wall-time 1ms");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("passed its wall-clock time limit of 1ms"), std::string::npos) << r.err;
  // Stopped during the import, which alone takes seconds.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST_F(ImportTest, AFailedImportLeavesAnExistingFileAlone) {
  const fs::path out = m_dir / "keep.yaml";
  std::ofstream(out) << "old\n";
  const fs::path bad = m_dir / "bad.onnx";
  std::ofstream(bad) << "not a model";
  const Result r = run("import " + bad.string() + " -o " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(slurp(out), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator()), 4); // +std*
}
