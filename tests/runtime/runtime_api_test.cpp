// The runtime API's memory and stream management through a whole platform: malloc's
// alignment, device-to-device copies, and the error of every misuse (out of memory,
// double free, use after free, a destroyed stream), each checked by its message; leaks
// at the end of a run. Each TEST runs one simulation (one per process).
#include "cli/app.h"
#include "common/error.h"
#include "runtime/progress_monitor.h"
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/kernels.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace npu {
namespace {

constexpr const char* kPlatform = "name: t\ncompute: {units: 2}\nddr: {size: 64MiB}\n";

using test::cycles_kernel;

/// Runs `program`, which must fail; returns the SimulationError's message.
std::string error_of(const std::function<void(Runtime&)>& program, const char* yaml = kPlatform) {
  Simulation sim(test::config_from_yaml(yaml));
  try {
    sim.run(program);
  } catch (const SimulationError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the program ran without an error";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A loop of zero-time waits never reaches --max-sim-time; the progress monitor stops it
// and says where time stood still and what the host was doing.
TEST(RuntimeProgress, ALoopAtZeroSimulatedTimeIsStoppedAndNamed) {
  const std::string e = error_of([](Runtime& rt) {
    rt.host_work(5000);
    while (true)
      sc_core::wait(sc_core::SC_ZERO_TIME);
  });
  EXPECT_EQ(e, "simulation stuck at 5 ns: over 1000000 delta cycles without simulated time "
               "advancing, so --max-sim-time could never end it; the host is running its "
               "program");
}

// The monitor's looks never show in the simulation: a block that asks the kernel whether
// anything else is due (the DMA engine's look-ahead) sees nothing from it, so a run's
// results do not depend on how fast the machine runs it. A process that steps time for
// about a second of wall time (four periods of the monitor) finds no pending activity at
// any step.
struct Stepper : sc_core::sc_module {
  SC_HAS_PROCESS(Stepper);
  explicit Stepper(sc_core::sc_module_name name) : sc_module(name) { SC_THREAD(step); }
  void step() {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1100);
    while (std::chrono::steady_clock::now() < end) {
      sc_core::wait(1, sc_core::SC_NS);
      ++steps;
      if (sc_core::sc_time_to_pending_activity() == sc_core::SC_ZERO_TIME)
        ++seen;
    }
  }
  uint64_t steps = 0;
  uint64_t seen = 0;
};

TEST(RuntimeProgress, TheMonitorIsNeverPendingActivity) {
  ProgressMonitor monitor([] { return std::string(); });
  Stepper stepper("stepper");
  monitor.start();
  sc_core::sc_start();
  monitor.stop();
  EXPECT_GT(stepper.steps, 1000u);
  EXPECT_EQ(stepper.seen, 0u);
}

// A C++ program's kernels get the checks a YAML testbench's get: a conv2d of 2^72 im2col
// rows (which wrapped to 0) is refused when it is loaded.
TEST(RuntimeLoadKernel, AnOpWhoseSizesDoNotFitIsRefused) {
  const std::string e = error_of([](Runtime& rt) {
    KernelDesc k;
    k.name = "big";
    auto& shape = k.op.shape.emplace<Conv2dOp>();
    shape.batch = shape.height = shape.width = 1 << 24;
    shape.channels = shape.filters = shape.r = shape.s = 1;
    rt.launch(rt.load_kernel(k), {});
  });
  EXPECT_EQ(e, "kernel 'big': conv2d: too much work to simulate (over 1e18 operations)");
}

TEST(RuntimeMalloc, EveryBufferIsAlignedTo256BytesAndBuffersDoNotOverlap) {
  Simulation sim(test::config_from_yaml(kPlatform));
  std::vector<Buffer> buffers;
  sim.run([&](Runtime& rt) {
    for (const MemoryKind m : {MemoryKind::Ddr, MemoryKind::Sram, MemoryKind::Host})
      for (const uint64_t bytes : {1, 3, 255, 256, 257, 1000, 4097})
        buffers.push_back(rt.malloc(bytes, m));
    for (const Buffer& b : buffers)
      rt.free(b);
  });
  EXPECT_EQ(Runtime::kBufferAlign, 256u);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    EXPECT_EQ(b.addr % Runtime::kBufferAlign, 0u) << "buffer " << i << " at " << b.addr;
    for (size_t j = 0; j < i; ++j)
      EXPECT_TRUE(b.addr >= buffers[j].addr + buffers[j].bytes ||
                  buffers[j].addr >= b.addr + b.bytes)
          << "buffers " << j << " and " << i << " overlap";
  }
}

TEST(RuntimeMalloc, OutOfDeviceMemoryNamesTheSizeAndTheLargestFreeBlock) {
  const std::string e = error_of([](Runtime& rt) {
    rt.malloc(32 << 20, MemoryKind::Ddr, "half");
    rt.malloc(48 << 20, MemoryKind::Ddr, "big");
  });
  EXPECT_TRUE(contains(e, "out of device memory: cannot allocate 48MiB of ddr for buffer 'big' ("))
      << e;
  EXPECT_TRUE(contains(e, "is the largest free block")) << e;
  EXPECT_TRUE(contains(e, "in use)")) << e;
}

TEST(RuntimeMalloc, OutOfSramBufferSpace) {
  const std::string e = error_of([](Runtime& rt) { rt.malloc(1ull << 30, MemoryKind::Sram); });
  EXPECT_TRUE(contains(e, "out of SRAM buffer space: cannot allocate 1GiB of sram (")) << e;
}

TEST(RuntimeMalloc, ZeroBytesIsAnError) {
  const std::string e = error_of([](Runtime& rt) { rt.malloc(0, MemoryKind::Ddr, "empty"); });
  EXPECT_EQ(e, "malloc of 0 bytes for buffer 'empty'");
}

TEST(RuntimeFree, DoubleFreeIsAnError) {
  const std::string e = error_of([](Runtime& rt) {
    const Buffer b = rt.malloc(4096, MemoryKind::Ddr, "x");
    rt.free(b);
    rt.free(b);
  });
  EXPECT_TRUE(contains(e, "double free of buffer 'x' (4KiB of ddr at 0x")) << e;
  EXPECT_TRUE(contains(e, "): it was freed already")) << e;
}

TEST(RuntimeFree, FreeOfABufferMallocNeverReturnedIsAnError) {
  const std::string e = error_of([](Runtime& rt) {
    Buffer forged = rt.malloc(4096);
    forged.bytes = 8192;
    rt.free(forged);
  });
  EXPECT_TRUE(contains(e, "free of buffer at 0x")) << e;
  EXPECT_TRUE(contains(e, "(8KiB of ddr), which malloc never returned")) << e;
}

// A stale handle stays stale when malloc hands out the same address again.
TEST(RuntimeFree, StaleHandleToAReusedAddressIsStillAUseAfterFree) {
  uint64_t first = 0, second = 0;
  const std::string e = error_of([&](Runtime& rt) {
    const Buffer old = rt.malloc(4096, MemoryKind::Ddr, "old");
    rt.free(old);
    const Buffer reused = rt.malloc(4096, MemoryKind::Ddr, "new");
    first = old.addr;
    second = reused.addr;
    uint8_t byte = 0;
    rt.read(old, &byte, 1);
  });
  EXPECT_EQ(first, second) << "the allocator did not reuse the address; the test needs it";
  EXPECT_TRUE(contains(e, "use after free: read uses buffer 'old' (4KiB of ddr at 0x")) << e;
  EXPECT_TRUE(contains(e, "), which was freed already")) << e;
}

TEST(RuntimeUseAfterFree, Launch) {
  const std::string e = error_of([](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 100));
    const Buffer in = rt.malloc(4096, MemoryKind::Ddr, "in");
    const Buffer out = rt.malloc(4096, MemoryKind::Ddr, "out");
    rt.free(out);
    rt.launch_async(k, {in, out}, Stream{0});
  });
  EXPECT_TRUE(contains(e, "use after free: launch of 'k' (argument 1) uses buffer 'out' (4KiB of "
                          "ddr at 0x"))
      << e;
}

TEST(RuntimeUseAfterFree, MemcpySource) {
  const std::string e = error_of([](Runtime& rt) {
    const Buffer dst = rt.malloc(4096, MemoryKind::Ddr, "dst");
    const Buffer src = rt.malloc(4096, MemoryKind::Host, "src");
    rt.free(src);
    rt.memcpy(dst, src, 4096);
  });
  EXPECT_TRUE(contains(e, "use after free: memcpy source uses buffer 'src' (4KiB of host at 0x"))
      << e;
}

TEST(RuntimeUseAfterFree, MemcpyAsyncDestination) {
  const std::string e = error_of([](Runtime& rt) {
    const Buffer dst = rt.malloc(4096, MemoryKind::Sram, "dst");
    const Buffer src = rt.malloc(4096);
    rt.free(dst);
    rt.memcpy_async(dst, src, 4096, rt.stream_create("s"));
  });
  EXPECT_TRUE(
      contains(e, "use after free: memcpy destination uses buffer 'dst' (4KiB of sram at 0x"))
      << e;
}

TEST(RuntimeUseAfterFree, Write) {
  const std::string e = error_of([](Runtime& rt) {
    const Buffer b = rt.malloc(4096);
    rt.free(b);
    const uint8_t byte = 1;
    rt.write(b, &byte, 1);
  });
  // An unnamed buffer is named by its address.
  EXPECT_TRUE(contains(e, "use after free: write uses buffer at 0x")) << e;
  EXPECT_TRUE(contains(e, " (4KiB of ddr), which was freed already")) << e;
}

TEST(RuntimeUseAfterFree, CommandListSubmitChecksItsRecordedBuffers) {
  const std::string e = error_of([](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 100));
    const Buffer b = rt.malloc(4096, MemoryKind::Ddr, "act");
    const CommandList list = rt.command_list_create();
    rt.command_list_launch(list, k, {b});
    rt.command_list_submit(list, Stream{0}, true);
    rt.free(b);
    rt.command_list_submit(list, Stream{0}, true);
  });
  EXPECT_TRUE(contains(e, "use after free: command_list_submit (launch 0, of 'k') uses buffer "
                          "'act' (4KiB of ddr at 0x"))
      << e;
}

TEST(RuntimeLeaks, BuffersNotFreedAreReportedWithTheirBytes) {
  Simulation sim(test::config_from_yaml(kPlatform));
  const RunReport report = sim.run([](Runtime& rt) {
    rt.malloc(4096, MemoryKind::Ddr, "kept");
    rt.free(rt.malloc(512));
    rt.malloc(1000, MemoryKind::Sram);
    rt.load_kernel(cycles_kernel("k", 10)); // its binary is the runtime's, not a leak
  });
  EXPECT_EQ(report.leaks.buffers, 2u);
  EXPECT_EQ(report.leaks.bytes, 5096u);
  ASSERT_EQ(report.leaks.list.size(), 2u);
  EXPECT_TRUE(contains(report.leaks.list[0], "'kept' (4KiB of ddr at 0x")) << report.leaks.list[0];
  EXPECT_TRUE(contains(report.leaks.list[1], "1000B of sram at 0x")) << report.leaks.list[1];
}

TEST(RuntimeLeaks, NoLeakWhenEverythingIsFreed) {
  Simulation sim(test::config_from_yaml(kPlatform));
  const RunReport report = sim.run([](Runtime& rt) { rt.free(rt.malloc(4096)); });
  EXPECT_EQ(report.leaks.buffers, 0u);
  EXPECT_EQ(report.leaks.bytes, 0u);
  EXPECT_TRUE(report.leaks.list.empty());
}

// The command line's view: a warning on stderr naming each leaked buffer, the summary's
// leak line, report.json's counts, and exit code 0.
TEST(RuntimeLeaks, RunWarnsOnStderrNamingThemAndStillSucceeds) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("npusim-leaks-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  RunOptions options;
  options.config_path = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu.yaml";
  options.out_dir = (dir / "out").string();
  const HostProgram program{"leaky",
                            "leaky.cpp",
                            [](Runtime& rt) {
                              rt.malloc(4096, MemoryKind::Ddr, "kept");
                              rt.malloc(1000, MemoryKind::Host);
                            },
                            {},
                            nullptr};
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = run_program(options, program);
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 0) << err;
  EXPECT_TRUE(contains(err, "npusim: warning: 2 buffers (5096 bytes) not freed by the host "
                            "program: 'kept' (4KiB of ddr at 0x"))
      << err;
  EXPECT_TRUE(contains(err, ", 1000B of host at 0x")) << err;
  EXPECT_TRUE(contains(out, "\n  leaked: 2 buffers (5096 bytes) not freed\n")) << out;
  std::ifstream in(dir / "out" / "report.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["host"]["leaked_buffers"], 2);
  EXPECT_EQ(report["host"]["leaked_bytes"], 5096);
  fs::remove_all(dir);
}

// Device-to-device copies, synchronous and asynchronous, DDR and SRAM on both sides.
TEST(RuntimeMemcpy, DeviceToDeviceCopiesArriveIntact) {
  constexpr uint64_t kBytes = 24 << 10;
  const std::vector<uint8_t> input = test::pattern(kBytes, 7);
  std::vector<std::vector<uint8_t>> seen;
  uint64_t sync_returned_ps = 0;
  Simulation sim(test::config_from_yaml(kPlatform));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Buffer ddr_a = rt.malloc(kBytes);
    const Buffer ddr_b = rt.malloc(kBytes);
    const Buffer sram_a = rt.malloc(kBytes, MemoryKind::Sram);
    const Buffer sram_b = rt.malloc(kBytes, MemoryKind::Sram);
    const Buffer ddr_c = rt.malloc(kBytes);
    rt.write(ddr_a, input.data(), kBytes);
    rt.memcpy(ddr_b, ddr_a, kBytes); // DDR -> DDR, synchronous
    sync_returned_ps = rt.now_ps();
    const Stream s = rt.stream_create("copies");
    rt.memcpy_async(sram_a, ddr_b, kBytes, s);  // DDR -> SRAM
    rt.memcpy_async(sram_b, sram_a, kBytes, s); // SRAM -> SRAM
    rt.memcpy_async(ddr_c, sram_b, kBytes, s);  // SRAM -> DDR
    rt.stream_synchronize(s);
    for (const Buffer& b : {ddr_b, sram_a, sram_b, ddr_c}) {
      seen.emplace_back(kBytes);
      rt.read(b, seen.back().data(), kBytes);
    }
    // Parts of buffers: the second half of ddr_a onto the first half of ddr_b.
    rt.memcpy(ddr_b, 0, ddr_a, kBytes / 2, kBytes / 2);
    seen.emplace_back(kBytes / 2);
    rt.read(ddr_b, seen.back().data(), kBytes / 2);
    for (const Buffer& b : {ddr_a, ddr_b, sram_a, sram_b, ddr_c})
      rt.free(b);
  });
  ASSERT_EQ(seen.size(), 5u);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_TRUE(seen[i] == input) << "copy " << i << " differs";
  EXPECT_TRUE(std::equal(seen[4].begin(), seen[4].end(), input.begin() + kBytes / 2))
      << "the partial copy differs";
  EXPECT_GT(sync_returned_ps, 0u) << "a synchronous copy took no time";
  EXPECT_EQ(test::stat(report.blocks, "host", "copies"), 5);
  EXPECT_EQ(test::stat(report.blocks, "dma", "bytes"), 4.5 * kBytes);
}

TEST(RuntimeStream, WorkQueuedBeforeDestroyStillCompletes) {
  Simulation sim(test::config_from_yaml(kPlatform));
  const RunReport report = sim.run([](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 20000));
    const Stream s = rt.stream_create("short_lived");
    rt.launch_async(k, {}, s);
    rt.launch_async(k, {}, s);
    rt.stream_destroy(s);
  });
  ASSERT_EQ(report.launches.size(), 2u);
  for (const LaunchRecord& r : report.launches) {
    EXPECT_EQ(r.stream, "short_lived");
    EXPECT_GT(r.at[Stamp::Learnt], r.at[Stamp::Finished])
        << "launch " << r.launch_id << " never completed";
  }
}

// Every call that takes a stream refuses a destroyed one, naming it.
void expect_destroyed_stream_error(const std::function<void(Runtime&, Stream)>& use,
                                   const std::string& expected) {
  const std::string e = error_of([&](Runtime& rt) {
    const Stream s = rt.stream_create("gone");
    rt.stream_destroy(s);
    use(rt, s);
  });
  EXPECT_EQ(e, expected);
}

TEST(RuntimeStream, LaunchOnADestroyedStreamIsAnError) {
  expect_destroyed_stream_error(
      [](Runtime& rt, Stream s) { rt.launch_async(rt.load_kernel(cycles_kernel("k", 1)), {}, s); },
      "launch of 'k' on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, SyncLaunchOnADestroyedStreamIsAnError) {
  expect_destroyed_stream_error(
      [](Runtime& rt, Stream s) { rt.launch(rt.load_kernel(cycles_kernel("k", 1)), {}, s); },
      "launch of 'k' on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, MemcpyAsyncOnADestroyedStreamIsAnError) {
  expect_destroyed_stream_error(
      [](Runtime& rt, Stream s) {
        const Buffer b = rt.malloc(64);
        rt.memcpy_async(b, b, 64, s);
      },
      "memcpy_async on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, RecordOnADestroyedStreamIsAnError) {
  expect_destroyed_stream_error(
      [](Runtime& rt, Stream s) { rt.event_record(rt.event_create("e"), s); },
      "event_record of 'e' on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, WaitOnADestroyedStreamIsAnError) {
  expect_destroyed_stream_error(
      [](Runtime& rt, Stream s) { rt.stream_wait_event(s, rt.event_create("e")); },
      "stream_wait_event for 'e' on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, SynchronizeOfADestroyedStreamIsAnError) {
  expect_destroyed_stream_error([](Runtime& rt, Stream s) { rt.stream_synchronize(s); },
                                "stream_synchronize on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, DestroyingTwiceIsAnError) {
  expect_destroyed_stream_error([](Runtime& rt, Stream s) { rt.stream_destroy(s); },
                                "stream_destroy on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, SubmitOnADestroyedStreamIsAnError) {
  expect_destroyed_stream_error(
      [](Runtime& rt, Stream s) {
        const CommandList list = rt.command_list_create();
        rt.command_list_launch(list, rt.load_kernel(cycles_kernel("k", 1)));
        rt.command_list_submit(list, s);
      },
      "command_list_submit on stream 'gone', which was destroyed");
}

TEST(RuntimeStream, TheDefaultStreamCannotBeDestroyed) {
  const std::string e = error_of([](Runtime& rt) { rt.stream_destroy(Stream{0}); });
  EXPECT_EQ(e, "stream_destroy of the default stream, which cannot be destroyed");
}

TEST(RuntimeStream, AStreamThatWasNeverCreatedIsAnError) {
  const std::string e = error_of([](Runtime& rt) { rt.stream_synchronize(Stream{7}); });
  EXPECT_EQ(e, "stream_synchronize on stream id 7, which stream_create never returned");
}

} // namespace
} // namespace npu
