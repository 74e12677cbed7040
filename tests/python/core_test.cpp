// The C++ half of the Python package (src/python/core.h) without Python: many runs in one
// process, each in a fresh simulation context, the errors' kinds, and the limits that end a
// run with an exception instead of the process. It runs under the sanitizers, where the
// pytest suite (CPython, not instrumented) does not.
#include "python/core.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace npu::python {
namespace {

const std::string kSource = NPU_SOURCE_DIR;
const std::string kHello = kSource + "/testbenches/hello.yaml";

std::string without_wall_time(nlohmann::ordered_json document) {
  document["sim"]["wall_s"] = 0;
  return document.dump();
}

ErrorKind kind_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const KindedError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no KindedError";
  return ErrorKind::Input;
}

// A testbench of `launches` asynchronous launches of a short kernel on one stream.
Testbench long_testbench(uint64_t launches) {
  return load_testbench_from_text("name: long\n"
                                  "kernels: {k: {op: cycles, cycles: 100, binary: 1KiB}}\n"
                                  "streams: [s]\n"
                                  "program:\n"
                                  "  - repeat: {count: " +
                                      std::to_string(launches) +
                                      ", body: [{launch: {kernel: k, stream: s, async: true}}]}\n"
                                      "  - sync: s\n",
                                  "long", {});
}

TEST(PythonCore, RunsAgainInTheSameProcessWithTheSameReport) {
  const PlatformConfig config = load_config("edge-npu", {}, kSource);
  const Testbench tb = load_testbench_file(kHello, {});
  const RunOutcome first = run(config, tb, {});
  EXPECT_EQ(first.report.table.size(), 6u);
  EXPECT_EQ(first.document["testbench_name"], "hello");
  EXPECT_EQ(first.document["testbench_file"], kHello);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(without_wall_time(run(config, tb, {}).document), without_wall_time(first.document));
  // Another config between two runs leaves nothing behind.
  const RunOutcome one_unit = run(load_config("edge-npu", {"compute.units=1"}, kSource), tb, {});
  EXPECT_EQ(one_unit.document["config"]["compute"]["units"], 1);
  EXPECT_EQ(without_wall_time(run(config, tb, {}).document), without_wall_time(first.document));
}

TEST(PythonCore, ErrorsCarryTheKindOfInput) {
  const PlatformConfig config = load_config("edge-npu", {}, kSource);
  EXPECT_EQ(kind_of([] { load_config("edge-npu", {"compute.unts=4"}, kSource); }),
            ErrorKind::Config);
  EXPECT_EQ(kind_of([] { load_config("no-such-config", {}, kSource); }), ErrorKind::Config);
  EXPECT_EQ(kind_of([] { load_testbench_file(kHello, {"kernels.gemm.dtype=int4"}); }),
            ErrorKind::Testbench);
  const Testbench too_wide = load_testbench_file(kHello, {"kernels.gemm.units=64"});
  EXPECT_EQ(kind_of([&] { run(config, too_wide, {}); }), ErrorKind::Testbench);
  EXPECT_EQ(kind_of([] { import_model(kSource + "/tests/bad_inputs/onnx/not_onnx.onnx", {}); }),
            ErrorKind::Model);
  try {
    load_config("edge-npu", {"compute.units=0"}, kSource);
    FAIL() << "no error";
  } catch (const KindedError& e) {
    EXPECT_EQ(e.error().key(), "compute.units");
    EXPECT_EQ(std::string(e.what()), e.error().what());
  }
}

TEST(PythonCore, ASimulationErrorLeavesTheNextRunWhole) {
  const Testbench tb = load_testbench_file(kHello, {});
  const PlatformConfig short_limit = load_config("edge-npu", {"limits.sim_time=100us"}, kSource);
  EXPECT_THROW(run(short_limit, tb, {}), SimulationError);
  const RunOutcome after = run(load_config("edge-npu", {}, kSource), tb, {});
  EXPECT_EQ(after.report.table.size(), 6u);
}

TEST(PythonCore, TheWallTimeLimitThrowsInsteadOfEndingTheProcess) {
  const PlatformConfig config =
      load_config("edge-npu", {"limits.wall_time=100ms", "limits.sim_time=1000s"}, kSource);
  try {
    run(config, long_testbench(10'000'000), {});
    FAIL() << "the run ended";
  } catch (const SimulationError& e) {
    EXPECT_EQ(std::string(e.what()),
              "the run passed its wall-clock time limit of 100ms (limits.wall_time); "
              "raise it with --max-wall-time if the run is meant to take this long");
  }
}

} // namespace
} // namespace npu::python
