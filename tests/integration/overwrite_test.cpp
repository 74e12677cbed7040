// No output may overwrite an input: every command knows the files it reads (config and its
// extends chain, testbench, model, sweep file, plan) and refuses, with exit code 2 and one
// line naming both, an output that resolves to one of them, before writing anything. And a
// sweep directory's plan.json is an input like any other: nothing it says may make a point
// write outside the sweep directory.
#include "tests/integration/cli_helpers.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

namespace npu::test {
namespace {

using Json = nlohmann::ordered_json;

// Every file below `dir` with its content: what a refused command must leave as it was.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = fs::relative(e.path(), dir).string();
    if (name == "stdout.txt" || name == "stderr.txt")
      continue;
    files[name] = e.is_symlink()        ? "link to " + fs::read_symlink(e.path()).string()
                  : e.is_regular_file() ? slurp(e.path())
                                        : std::string("folder");
  }
  return files;
}

class OverwriteTest : public ScratchDirTest {
protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    fs::copy_file(fs::path(kSource) / "testbenches/hello.yaml", m_dir / "tb.yaml");
    fs::copy_file(fs::path(kSource) / "configs/edge-npu.yaml", m_dir / "base.yaml");
    std::ofstream(m_dir / "cfg.yaml") << "extends: base.yaml\nname: child\n";
    fs::copy_file(fs::path(kSource) / "tests/bad_inputs/overwrite/trace_onto_model.onnx",
                  m_dir / "m.onnx");
  }

  std::string at(const std::string& name) const { return (m_dir / name).string(); }

  // Runs `args`; expects the refusal that names `output` and `input` and nothing changed.
  void expect_refused(const std::string& args, const std::string& output, const std::string& input,
                      const std::string& role) {
    const auto before = snapshot(m_dir);
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("'" + at(output) + "' is the input '" + at(input) + "' (" + role + ")"),
              std::string::npos)
        << args << "\n"
        << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(snapshot(m_dir), before) << args;
  }
};

TEST_F(OverwriteTest, ATraceOntoAnyInputOfRunIsRefused) {
  const std::string run = "run --config " + at("cfg.yaml") + " --testbench " + at("tb.yaml");
  expect_refused(run + " --trace " + at("tb.yaml"), "tb.yaml", "tb.yaml", "the testbench");
  expect_refused(run + " --trace " + at("cfg.yaml"), "cfg.yaml", "cfg.yaml", "the config");
  expect_refused(run + " --trace " + at("base.yaml"), "base.yaml", "base.yaml",
                 "a config named by extends");
  expect_refused("run --config " + at("cfg.yaml") + " --model " + at("m.onnx") + " --trace " +
                     at("m.onnx"),
                 "m.onnx", "m.onnx", "an ONNX model");
}

TEST_F(OverwriteTest, LinksAndOtherNamesOfAnInputAreTheInput) {
  fs::create_symlink("tb.yaml", m_dir / "link.yaml");
  fs::create_hard_link(m_dir / "tb.yaml", m_dir / "hard.yaml");
  fs::create_directories(m_dir / "sub");
  const std::string run = "run --config " + at("cfg.yaml") + " --testbench " + at("tb.yaml");
  expect_refused(run + " --trace " + at("link.yaml"), "link.yaml", "tb.yaml", "the testbench");
  expect_refused(run + " --trace " + at("hard.yaml"), "hard.yaml", "tb.yaml", "the testbench");
  expect_refused(run + " --trace " + at("sub/../tb.yaml"), "sub/../tb.yaml", "tb.yaml",
                 "the testbench");
  // Read through the link, written by its target's name.
  expect_refused("run --config " + at("cfg.yaml") + " --testbench " + at("link.yaml") +
                     " --trace " + at("tb.yaml"),
                 "tb.yaml", "link.yaml", "the testbench");
}

TEST_F(OverwriteTest, AFileOfTheOutFolderThatIsAnInputIsRefused) {
  fs::create_directories(m_dir / "out");
  fs::copy_file(m_dir / "tb.yaml", m_dir / "out" / "layers.csv");
  expect_refused("run --config " + at("cfg.yaml") + " --testbench " + at("out/layers.csv") +
                     " --out " + at("out"),
                 "out/layers.csv", "out/layers.csv", "the testbench");
  // The plots of --plots are files of the folder too.
  fs::copy_file(m_dir / "base.yaml", m_dir / "out" / "timeline.png");
  expect_refused("run --config " + at("out/timeline.png") + " --testbench " + at("tb.yaml") +
                     " --out " + at("out") + " --plots",
                 "out/timeline.png", "out/timeline.png", "the config");
  // Not asked for, the plots replace nothing: the run goes ahead.
  const Result ok = run("run --config " + at("out/timeline.png") + " --testbench " + at("tb.yaml") +
                        " --out " + at("out"));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(slurp(m_dir / "out" / "timeline.png"), slurp(m_dir / "base.yaml"));
}

TEST_F(OverwriteTest, TwoOutputsOfOneFileAreRefused) {
  fs::create_directories(m_dir / "out");
  const Result r = run("run --config " + at("cfg.yaml") + " --testbench " + at("tb.yaml") +
                       " --out " + at("out") + " --trace " + at("out/report.json"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out: error: '" + at("out") + "/report.json' is also written by --trace"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

TEST_F(OverwriteTest, ImportNeverWritesOverItsModel) {
  fs::create_symlink("m.onnx", m_dir / "link.onnx");
  fs::create_hard_link(m_dir / "m.onnx", m_dir / "hard.onnx");
  expect_refused("import " + at("m.onnx") + " -o " + at("m.onnx"), "m.onnx", "m.onnx",
                 "the ONNX model");
  expect_refused("import " + at("m.onnx") + " -o " + at("link.onnx"), "link.onnx", "m.onnx",
                 "the ONNX model");
  expect_refused("import " + at("link.onnx") + " -o " + at("m.onnx"), "m.onnx", "link.onnx",
                 "the ONNX model");
  expect_refused("import " + at("m.onnx") + " -o " + at("hard.onnx"), "hard.onnx", "m.onnx",
                 "the ONNX model");
  const Result ok = run("import " + at("m.onnx") + " -o " + at("m.yaml"));
  EXPECT_EQ(ok.code, 0) << ok.err;
}

// A sweep writes DIR/plan.json, DIR/results.* and everything below DIR/points.
TEST_F(OverwriteTest, ASweepNeverWritesOverItsInputs) {
  const auto sweep_file = [&](const std::string& path, const std::string& config) {
    std::ofstream(m_dir / path) << "name: s\nconfig: " << config << "\ntestbench: " << at("tb.yaml")
                                << "\nparameters:\n  dma.channels: [1, 2]\nmetrics: "
                                   "[sim.simulated_ns]\n";
  };
  fs::create_directories(m_dir / "sweep" / "points" / "0000");
  fs::copy_file(m_dir / "base.yaml", m_dir / "sweep" / "points" / "0000" / "cfg.yaml");
  sweep_file("s.yaml", at("sweep/points/0000/cfg.yaml"));
  auto before = snapshot(m_dir);
  Result r = run("sweep " + at("s.yaml") + " --out " + at("sweep"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out: error: '" + at("sweep") + "/points' holds the input '" +
                       at("sweep/points/0000/cfg.yaml") + "' (the config)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(snapshot(m_dir), before);

  // The sweep file itself where the plan goes; the config where the results go.
  fs::create_directories(m_dir / "sweep2");
  sweep_file("sweep2/plan.json", at("base.yaml"));
  before = snapshot(m_dir);
  r = run("sweep " + at("sweep2/plan.json") + " --out " + at("sweep2"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is the input '" + at("sweep2/plan.json") + "' (the sweep file)"),
            std::string::npos)
      << r.err;
  fs::copy_file(m_dir / "base.yaml", m_dir / "sweep2" / "results.csv");
  sweep_file("s.yaml", at("sweep2/results.csv"));
  r = run("sweep " + at("s.yaml") + " --out " + at("sweep2"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is the input '" + at("sweep2/results.csv") + "' (the config)"),
            std::string::npos)
      << r.err;
}

class PlanTest : public OverwriteTest {
protected:
  // A finished two-point sweep in DIR/sweep, with the chunk file a Slurm task reads.
  void SetUp() override {
    OverwriteTest::SetUp();
    std::ofstream(m_dir / "s.yaml")
        << "name: s\nconfig: " << at("base.yaml") << "\ntestbench: " << at("tb.yaml")
        << "\nparameters:\n  dma.channels: [1, 2]\nmetrics: "
           "[sim.simulated_ns]\n";
    const Result r = run("sweep " + at("s.yaml") + " --out " + at("sweep") + " --jobs 1");
    ASSERT_EQ(r.code, 0) << r.err;
    fs::create_directories(m_dir / "sweep" / "slurm");
    std::ofstream(m_dir / "sweep" / "slurm" / "chunks.json") << R"({"chunks": [[0, 1]]})";
    fs::remove_all(m_dir / "sweep" / "points"); // to be run again by the worker
    fs::create_directories(m_dir / "victim");
    std::ofstream(m_dir / "victim" / "keep") << "precious\n";
    m_plan = Json::parse(slurp(m_dir / "sweep" / "plan.json"));
  }

  // Writes the plan; runs the worker and then collect; both must refuse with `message`.
  void expect_refused_plan(const std::string& message, bool collect_too = true) {
    std::ofstream(m_dir / "sweep" / "plan.json") << m_plan.dump(2);
    const auto before = snapshot(m_dir);
    for (const std::string& command :
         {"sweep worker " + at("sweep") + " --chunk 0", "sweep collect " + at("sweep")}) {
      if (!collect_too && command.rfind("sweep collect", 0) == 0)
        continue;
      const Result r = run(command);
      EXPECT_EQ(r.code, 2) << command << "\n" << r.err;
      EXPECT_NE(r.err.find(message), std::string::npos) << command << "\n" << r.err;
      EXPECT_EQ(snapshot(m_dir), before) << command;
    }
  }

  Json m_plan;
};

TEST_F(PlanTest, APointFolderOutsideTheSweepIsRefusedBeforeAnythingRuns) {
  m_plan["points"][1]["dir"] = "../victim";
  expect_refused_plan("plan.json: error: points[1].dir: expected a folder inside the sweep "
                      "directory such as 'points/0007', got '../victim'");
  m_plan["points"][1]["dir"] = at("victim");
  expect_refused_plan("got '" + at("victim") + "'");
  m_plan["points"][1]["dir"] = "points/../../victim";
  expect_refused_plan("got 'points/../../victim'");
  m_plan["points"][1]["dir"] = "";
  expect_refused_plan("got ''");
  m_plan["points"][1]["dir"] = "points/0000";
  expect_refused_plan("points[1].dir: 'points/0000' is the folder of an earlier point too");
}

TEST_F(PlanTest, NoSymbolicLinkLeadsOutOfTheSweep) {
  fs::create_directory_symlink(m_dir / "victim", m_dir / "sweep" / "points");
  expect_refused_plan("points: '" + at("sweep") + "/points' is a symbolic link");
  fs::remove(m_dir / "sweep" / "points");
  fs::create_directories(m_dir / "sweep" / "points");
  fs::create_directory_symlink(m_dir / "victim", m_dir / "sweep" / "points" / "0001.partial");
  expect_refused_plan("points[1].dir: '" + at("sweep") +
                      "/points/0001.partial' is a symbolic link");
  EXPECT_EQ(slurp(m_dir / "victim" / "keep"), "precious\n");
}

TEST_F(PlanTest, AMissingCwdIsACleanErrorOfTheWorker) {
  m_plan["cwd"] = at("gone");
  expect_refused_plan("plan.json: error: cwd: folder '" + at("gone") + "' does not exist", false);
  // collect runs nothing there: it still merges what the points left.
  std::ofstream(m_dir / "sweep" / "plan.json") << m_plan.dump(2);
  const Result r = run("sweep collect " + at("sweep"));
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(PlanTest, CommandLinesHoldOnlyWhatAPlanHolds) {
  m_plan["points"][0]["args"].push_back("--trace");
  m_plan["points"][0]["args"].push_back(at("victim/keep"));
  expect_refused_plan("points[0].args[7]: expected one of --config, --testbench, --set or "
                      "--tb-set, got '--trace'");
  m_plan["points"][0]["args"] = Json::array({"import", "m.onnx"});
  expect_refused_plan("points[0].args: expected an `npusim run` command line starting with 'run'");
}

TEST_F(PlanTest, AnInputInsideThePointsFolderIsRefused) {
  fs::create_directories(m_dir / "sweep" / "points");
  fs::copy_file(m_dir / "tb.yaml", m_dir / "sweep" / "points" / "tb.yaml");
  m_plan["points"][1]["args"][4] = at("sweep/points/tb.yaml");
  expect_refused_plan("points[1].args[4]: '" + at("sweep/points/tb.yaml") + "' lies inside '" +
                      at("sweep") + "/points', which the sweep empties");
}

TEST_F(PlanTest, TheWorkerRunsAValidPlan) {
  const Result r = run("sweep worker " + at("sweep") + " --chunk 0");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(m_dir / "sweep" / "points" / "0001" / "report.json"));
}

} // namespace
} // namespace npu::test
