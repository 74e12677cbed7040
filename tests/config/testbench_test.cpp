// Testbench parsing and validation: the SPEC format, name references with
// "did you mean", unsatisfiable waits, buffer overruns and hardware checks.
#include "config/node.h"
#include "test_util.h"
#include "testbench/testbench.h"

#include <gtest/gtest.h>

#include <string>

namespace npu {
namespace {

using test::contains;
using test::input_error;

// The step as kind `T`; a step of another kind fails the test (std::get throws).
template <class T> const T& step_as(const Step& s) {
  return std::get<T>(s.action);
}

// The testbench from SPEC.md, "Formats that users and checks rely on".
const char* const kSpecExample = R"(name: two-streams
kernels:
  conv1: {op: conv2d, n: 1, c: 64, h: 56, w: 56, k: 64, r: 3, s: 3, dtype: int8, binary: 48KiB}
  gemm:  {op: matmul, m: 512, n: 512, k: 512, dtype: int8, binary: 16KiB, units: 2}
  tiny:  {op: cycles, cycles: 200, binary: 2KiB}
buffers:
  x: {size: 1MiB, memory: host}
  y: {size: 1MiB, memory: ddr}
streams: [s1, s2]
program:
  - memcpy: {dst: y, src: x, bytes: 1MiB, stream: s1, async: true}
  - launch: {kernel: conv1, stream: s1, async: true, args: [y]}
  - repeat: {count: 10, body: [{launch: {kernel: tiny, stream: s2, async: true}}]}
  - host_work: 50us
  - record: {event: e1, stream: s1}
  - wait: {event: e1, stream: s2}
  - sync: s1
)";

// A small testbench with a program to fill in (kernels k1/gemm, buffers a/b, streams s1/s2).
std::string with_program(const std::string& program) {
  return "name: t\n"
         "kernels:\n"
         "  k1: {op: cycles, cycles: 100}\n"
         "  gemm: {op: matmul, m: 64, n: 64, k: 64}\n"
         "buffers:\n"
         "  a: {size: 4KiB}\n"
         "  b: {size: 1KiB, memory: sram}\n"
         "streams: [s1, s2]\n"
         "program:\n" +
         program;
}

Testbench read_text(const std::string& text) {
  return read_testbench(cfg::parse_yaml_string(text, "tb.yaml"), "tb.yaml");
}

std::string error_of(const std::string& text) {
  return input_error([&] { read_text(text); }).what();
}

TEST(TestbenchParse, SpecExample) {
  const Testbench tb = read_text(kSpecExample);
  EXPECT_EQ(tb.name, "two-streams");
  EXPECT_EQ(tb.file, "tb.yaml");

  ASSERT_EQ(tb.kernels.size(), 3u);
  const KernelDesc& conv = tb.kernels[0].desc;
  EXPECT_EQ(conv.name, "conv1");
  EXPECT_EQ(conv.op.kind(), OpKind::Conv2d);
  EXPECT_EQ(conv.op.dtype, DType::Int8);
  const auto& c = conv.op.as<Conv2dOp>();
  EXPECT_EQ(c.batch, 1u);
  EXPECT_EQ(c.channels, 64u);
  EXPECT_EQ(c.height, 56u);
  EXPECT_EQ(c.width, 56u);
  EXPECT_EQ(c.filters, 64u);
  EXPECT_EQ(c.r, 3u);
  EXPECT_EQ(c.s, 3u);
  EXPECT_EQ(c.stride, 1u);
  EXPECT_EQ(c.pad, 1u); // "same" padding by default
  EXPECT_EQ(conv.binary_bytes, 48u * 1024);
  EXPECT_EQ(conv.units, KernelDesc::kAllUnits); // every unit of the config by default
  EXPECT_EQ(tb.kernels[0].loc.str(), "tb.yaml:3:3");
  const KernelDesc& gemm = tb.kernels[1].desc;
  EXPECT_EQ(gemm.op.kind(), OpKind::Matmul);
  const auto& mm = gemm.op.as<MatmulOp>();
  EXPECT_EQ(mm.m, 512u);
  EXPECT_EQ(mm.n, 512u);
  EXPECT_EQ(mm.k, 512u);
  EXPECT_EQ(gemm.units, 2u);
  EXPECT_EQ(gemm.binary_bytes, 16u * 1024);
  const KernelDesc& tiny = tb.kernels[2].desc;
  EXPECT_EQ(tiny.op.kind(), OpKind::Cycles);
  EXPECT_EQ(tiny.op.as<CyclesOp>().cycles, 200u);
  EXPECT_EQ(tiny.binary_bytes, 2048u);

  ASSERT_EQ(tb.buffers.size(), 2u);
  EXPECT_EQ(tb.buffers[0].name, "x");
  EXPECT_EQ(tb.buffers[0].bytes, 1u << 20);
  EXPECT_EQ(tb.buffers[0].memory, MemoryKind::Host);
  EXPECT_EQ(tb.buffers[1].memory, MemoryKind::Ddr);

  ASSERT_EQ(tb.streams.size(), 2u);
  EXPECT_EQ(tb.streams[0].name, "s1");
  EXPECT_EQ(tb.streams[1].name, "s2");
  EXPECT_EQ(tb.streams[0].priority, 0);
  ASSERT_EQ(tb.events.size(), 1u);
  EXPECT_EQ(tb.events[0], "e1");

  ASSERT_EQ(tb.program.size(), 7u);
  const auto& memcpy = step_as<step::Memcpy>(tb.program[0]);
  EXPECT_EQ(memcpy.dst, 1u);
  EXPECT_EQ(memcpy.src, 0u);
  EXPECT_EQ(memcpy.bytes, 1u << 20);
  EXPECT_EQ(memcpy.stream, 1u); // streams are index + 1
  EXPECT_TRUE(memcpy.async);
  EXPECT_EQ(tb.program[0].loc.str(), "tb.yaml:11:5");

  const auto& launch = step_as<step::Launch>(tb.program[1]);
  EXPECT_EQ(launch.kernel, 0u);
  EXPECT_EQ(launch.stream, 1u);
  EXPECT_TRUE(launch.async);
  EXPECT_EQ(launch.args, (std::vector<uint32_t>{1}));

  const auto& repeat = step_as<step::Repeat>(tb.program[2]);
  EXPECT_EQ(repeat.count, 10u);
  ASSERT_EQ(repeat.body.size(), 1u);
  const auto& body = step_as<step::Launch>(repeat.body[0]);
  EXPECT_EQ(body.kernel, 2u);
  EXPECT_EQ(body.stream, 2u);
  EXPECT_TRUE(body.async);

  EXPECT_EQ(step_as<step::HostWork>(tb.program[3]).duration_ps, 50000000u);
  EXPECT_EQ(step_as<step::Record>(tb.program[4]).event, 0u);
  EXPECT_EQ(step_as<step::Record>(tb.program[4]).stream, 1u);
  EXPECT_EQ(step_as<step::Wait>(tb.program[5]).event, 0u);
  EXPECT_EQ(step_as<step::Wait>(tb.program[5]).stream, 2u);
  EXPECT_EQ(step_as<step::Sync>(tb.program[6]).stream, 1u);
  EXPECT_EQ(step_as<step::Sync>(tb.program[6]).target, step::Sync::Target::Stream);
  EXPECT_TRUE(looks_like_testbench(cfg::parse_yaml_string(kSpecExample, "tb.yaml")));
}

TEST(TestbenchParse, StreamsAsMapWithPriority) {
  const Testbench tb = read_text("kernels: {k: {op: cycles, cycles: 1}}\n"
                                 "streams: {hi: {priority: 5}, lo: {priority: -2}, plain: {}}\n"
                                 "program:\n  - launch: {kernel: k, stream: lo}\n");
  ASSERT_EQ(tb.streams.size(), 3u);
  EXPECT_EQ(tb.streams[0].name, "hi");
  EXPECT_EQ(tb.streams[0].priority, 5);
  EXPECT_EQ(tb.streams[1].priority, -2);
  EXPECT_EQ(tb.streams[2].priority, 0);
  EXPECT_EQ(step_as<step::Launch>(tb.program[0]).stream, 2u);
}

TEST(TestbenchParse, StreamPriorityChecked) {
  const std::string e = error_of("streams: {hi: {priority: 500}}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "streams.hi.priority: must be at most 100")) << e;
  EXPECT_TRUE(
      contains(error_of("streams: {hi: {priorty: 1}}\nprogram: []\n"), "did you mean 'priority'"));
}

TEST(TestbenchParse, DefaultsAndSpecialTargets) {
  const Testbench tb = read_text(with_program("  - launch: {kernel: k1}\n"
                                              "  - launch: {kernel: k1, stream: default}\n"
                                              "  - memcpy: {dst: a, src: b}\n"
                                              "  - sync: device\n"
                                              "  - sync: default\n"));
  ASSERT_EQ(tb.program.size(), 5u);
  EXPECT_EQ(step_as<step::Launch>(tb.program[0]).stream, 0u);
  EXPECT_FALSE(step_as<step::Launch>(tb.program[0]).async);
  EXPECT_TRUE(step_as<step::Launch>(tb.program[0]).args.empty());
  EXPECT_EQ(step_as<step::Launch>(tb.program[1]).stream, 0u);
  EXPECT_EQ(step_as<step::Memcpy>(tb.program[2]).bytes, 1024u); // the smaller of the two buffers
  EXPECT_EQ(step_as<step::Sync>(tb.program[3]).target, step::Sync::Target::Device);
  EXPECT_EQ(step_as<step::Sync>(tb.program[4]).target, step::Sync::Target::Stream);
  EXPECT_EQ(step_as<step::Sync>(tb.program[4]).stream, 0u);
  EXPECT_EQ(tb.buffers[1].memory, MemoryKind::Sram);
  EXPECT_EQ(tb.kernels[1].desc.binary_bytes, 4096u);
}

TEST(TestbenchParse, ConvolutionStrideAndPad) {
  const Testbench tb = read_text(
      "kernels:\n  c: {op: conv2d, n: 2, c: 3, h: 224, w: 224, k: 64, r: 7, s: 7, stride: 2}\n"
      "  v: {op: conv2d, n: 1, c: 8, h: 8, w: 8, k: 8, r: 3, s: 3, pad: 0, dtype: fp16}\n"
      "program: []\n");
  EXPECT_EQ(tb.kernels[0].desc.op.as<Conv2dOp>().stride, 2u);
  EXPECT_EQ(tb.kernels[0].desc.op.as<Conv2dOp>().pad, 3u);
  EXPECT_EQ(tb.kernels[1].desc.op.as<Conv2dOp>().pad, 0u);
  EXPECT_EQ(tb.kernels[1].desc.op.dtype, DType::Fp16);
}

TEST(TestbenchParse, FusedKernelTakesItsPartsOps) {
  const Testbench tb =
      read_text("kernels:\n"
                "  mm: {op: matmul, m: 64, n: 64, k: 64, binary: 8KiB, hot_loop: 2KiB}\n"
                "  relu: {op: elementwise, elements: 4096, binary: 2KiB, units: 2}\n"
                "  ln: {op: layernorm, rows: 64, cols: 64, binary: 4KiB}\n"
                "  mm_relu: {fuse: [mm, relu]}\n"
                "  all: {fuse: [mm_relu, ln], binary: 10KiB}\n"
                "program: []\n");
  ASSERT_EQ(tb.kernels.size(), 5u);
  const KernelDesc& f = tb.kernels[3].desc;
  EXPECT_EQ(f.op.kind(), OpKind::Matmul);
  ASSERT_EQ(f.fused.size(), 1u);
  EXPECT_EQ(f.fused[0].kind(), OpKind::Elementwise);
  EXPECT_EQ(f.binary_bytes, 10u << 10);       // the parts' binaries together
  EXPECT_EQ(f.hot_loop_bytes, 4u << 10);      // 2 KiB + all of relu's 2 KiB
  EXPECT_EQ(f.units, KernelDesc::kAllUnits);  // mm spans every unit by default
  const KernelDesc& all = tb.kernels[4].desc; // nested fusions flatten
  ASSERT_EQ(all.fused.size(), 2u);
  EXPECT_EQ(all.fused[1].kind(), OpKind::Layernorm);
  EXPECT_EQ(all.binary_bytes, 10u << 10);
}

TEST(TestbenchErrors, FusedKernelErrors) {
  auto kernels = [](const std::string& fused) {
    return "kernels:\n  a: {op: cycles, cycles: 10}\n  f: " + fused +
           "\n  b: {op: cycles, "
           "cycles: 10}\nprogram: []\n";
  };
  std::string e = error_of(kernels("{fuse: [a, c]}"));
  EXPECT_TRUE(contains(e, "unknown kernel 'c'")) << e;
  EXPECT_TRUE(contains(e, "kernels.f.fuse")) << e;
  e = error_of(kernels("{fuse: [a, b]}"));
  EXPECT_TRUE(contains(e, "unknown kernel 'b'")) << e; // parts come first
  e = error_of(kernels("{fuse: [a, f]}"));
  EXPECT_TRUE(contains(e, "kernel 'f' must be declared before")) << e;
  e = error_of(kernels("{fuse: [a]}"));
  EXPECT_TRUE(contains(e, "at least two kernel names")) << e;
  e = error_of(kernels("{fuse: [a, a], op: matmul}"));
  EXPECT_TRUE(contains(e, "remove 'op'")) << e;
  e = error_of(kernels("{fuse: [a, a], cycles: 5}"));
  EXPECT_TRUE(contains(e, "cycles")) << e;
}

TEST(TestbenchParse, EventRecordedAfterWaitIsAccepted) {
  const Testbench tb = read_text(with_program("  - wait: {event: e, stream: s2}\n"
                                              "  - record: {event: e, stream: s1}\n"));
  ASSERT_EQ(tb.events.size(), 1u);
  EXPECT_EQ(step_as<step::Wait>(tb.program[0]).event, step_as<step::Record>(tb.program[1]).event);
}

TEST(TestbenchErrors, UnknownKernelHasHint) {
  const std::string e = error_of(with_program("  - launch: {kernel: k2}\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:10:22")) << e;
  EXPECT_TRUE(contains(e, "unknown kernel 'k2'; did you mean 'k1'?")) << e;
  EXPECT_TRUE(contains(e, "program[0].launch.kernel")) << e;
}

TEST(TestbenchErrors, UnknownBufferHasHint) {
  std::string e = error_of(with_program("  - launch: {kernel: k1, args: [a, bb]}\n"));
  EXPECT_TRUE(contains(e, "unknown buffer 'bb'; did you mean 'b'?")) << e;
  e = error_of(with_program("  - memcpy: {dst: aa, src: b}\n"));
  EXPECT_TRUE(contains(e, "unknown buffer 'aa'; did you mean 'a'?")) << e;
  EXPECT_TRUE(contains(e, "program[0].memcpy.dst")) << e;
}

TEST(TestbenchErrors, UnknownStreamHasHint) {
  std::string e = error_of(with_program("  - launch: {kernel: k1, stream: s3}\n"));
  EXPECT_TRUE(contains(e, "unknown stream 's3'; did you mean 's1'?")) << e;
  e = error_of(with_program("  - sync: s9\n"));
  EXPECT_TRUE(contains(e, "unknown stream 's9'")) << e;
  e = error_of("kernels: {k: {op: cycles, cycles: 1}}\nprogram:\n  - launch: {kernel: k, stream: "
               "s1}\n");
  EXPECT_TRUE(contains(e, "unknown stream 's1'; none is declared")) << e;
}

TEST(TestbenchErrors, UnknownStepKindHasHint) {
  const std::string e = error_of(with_program("  - lauch: {kernel: k1}\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:10:5")) << e;
  EXPECT_TRUE(contains(e, "unknown step 'lauch'")) << e;
  EXPECT_TRUE(contains(e, "did you mean 'launch'")) << e;
}

TEST(TestbenchErrors, StepWithTwoKindsRejected) {
  const std::string e = error_of(with_program("  - {launch: {kernel: k1}, sync: device}\n"));
  EXPECT_TRUE(contains(e, "expected one step such as {launch: {...}}")) << e;
}

TEST(TestbenchErrors, WaitOnEventNeverRecorded) {
  const std::string e = error_of(with_program("  - record: {event: e1, stream: s1}\n"
                                              "  - wait: {event: e2, stream: s2}\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:11:19")) << e;
  EXPECT_TRUE(contains(e, "event 'e2' is waited for but never recorded")) << e;
}

TEST(TestbenchParse, EventQuerySyncAndElapsedSteps) {
  const Testbench tb = read_text(with_program("  - record: {event: e0, stream: s1}\n"
                                              "  - launch: {kernel: k1, stream: s1, async: true}\n"
                                              "  - record: {event: e1, stream: s1}\n"
                                              "  - query: {event: e1}\n"
                                              "  - sync: {event: e1}\n"
                                              "  - elapsed: {start: e0, end: e1, label: k1}\n"
                                              "  - query: {event: e0, label: again}\n"));
  ASSERT_EQ(tb.program.size(), 7u);
  const uint32_t e0 = step_as<step::Record>(tb.program[0]).event;
  const uint32_t e1 = step_as<step::Record>(tb.program[2]).event;
  EXPECT_EQ(step_as<step::Query>(tb.program[3]).label, "query e1");
  EXPECT_EQ(step_as<step::Sync>(tb.program[4]).target, step::Sync::Target::Event);
  EXPECT_EQ(step_as<step::Sync>(tb.program[4]).event, e1);
  const auto& elapsed = step_as<step::Elapsed>(tb.program[5]);
  EXPECT_EQ(elapsed.start, e0);
  EXPECT_EQ(elapsed.end, e1);
  EXPECT_EQ(elapsed.label, "k1");
  EXPECT_EQ(step_as<step::Query>(tb.program[6]).label, "again");
}

TEST(TestbenchErrors, EventStepsNeedRecordedEvents) {
  std::string e = error_of(with_program("  - record: {event: e0, stream: s1}\n"
                                        "  - elapsed: {start: e0, end: e9}\n"));
  EXPECT_TRUE(contains(e, "program[1].elapsed.end")) << e;
  EXPECT_TRUE(contains(e, "unknown event 'e9'; did you mean 'e0'?")) << e;
  e = error_of(with_program("  - record: {event: e0, stream: s1}\n"
                            "  - wait: {event: e1, stream: s2}\n"
                            "  - record: {event: e1, stream: s1}\n"
                            "  - repeat: {count: 0, body: [{record: {event: e2}}]}\n"
                            "  - elapsed: {start: e0, end: e2}\n"));
  EXPECT_TRUE(contains(e, "program[4].elapsed.end")) << e;
  EXPECT_TRUE(contains(e, "event 'e2' is timed but never recorded")) << e;
  e = error_of(with_program("  - query: {event: q}\n  - sync: {event: q}\n"));
  EXPECT_TRUE(contains(e, "program[1].sync.event")) << e;
  EXPECT_TRUE(contains(e, "event 'q' is synchronised on but never recorded")) << e;
  e = error_of(with_program("  - sync: [s1]\n"));
  EXPECT_TRUE(contains(e, "expected a stream name, 'device' or {event: name}")) << e;
  e = error_of(with_program("  - record: {event: e0}\n  - query: {event: e0, lable: x}\n"));
  EXPECT_TRUE(contains(e, "did you mean 'label'")) << e;
}

TEST(TestbenchErrors, WaitInsideRepeatNeverRecorded) {
  const std::string e =
      error_of(with_program("  - repeat: {count: 2, body: [{wait: {event: lost, stream: s1}}]}\n"));
  EXPECT_TRUE(contains(e, "never recorded")) << e;
}

// A record inside `repeat: {count: 0}` never runs, so a wait on it can never finish
// (Driver::wait_event waits for at least the first record).
TEST(TestbenchErrors, WaitOnEventRecordedOnlyInEmptyRepeat) {
  const std::string e =
      error_of(with_program("  - repeat: {count: 0, body: [{record: {event: e1, stream: s1}}]}\n"
                            "  - wait: {event: e1, stream: s2}\n"));
  EXPECT_TRUE(contains(e, "never recorded")) << e;
}

// A command list is recorded where its step stands and submitted by name.
TEST(TestbenchParse, CommandListRecordsLaunchesAndSubmits) {
  const Testbench tb =
      read_text(with_program("  - command_list:\n"
                             "      name: step\n"
                             "      body:\n"
                             "        - launch: {kernel: gemm, args: [a, a]}\n"
                             "        - repeat: {count: 3, body: [{launch: {kernel: k1}}]}\n"
                             "  - submit: {list: step, stream: s2, async: true}\n"
                             "  - submit: {list: step}\n"));
  ASSERT_EQ(tb.command_lists.size(), 1u);
  EXPECT_EQ(tb.command_lists[0], "step");
  ASSERT_EQ(tb.program.size(), 3u);
  const auto& list = step_as<step::CommandList>(tb.program[0]);
  ASSERT_EQ(list.body.size(), 2u);
  EXPECT_EQ(step_as<step::Launch>(list.body[0]).args.size(), 2u);
  EXPECT_EQ(step_as<step::Repeat>(list.body[1]).count, 3u);
  const auto& submit = step_as<step::Submit>(tb.program[1]);
  EXPECT_EQ(submit.stream, 2u);
  EXPECT_TRUE(submit.async);
  const auto& sync_submit = step_as<step::Submit>(tb.program[2]);
  EXPECT_EQ(sync_submit.stream, 0u); // the default stream, synchronous
  EXPECT_FALSE(sync_submit.async);
}

// The launches a program makes, for the progress line: repeats multiply, a command list
// counts each time it is submitted, with what it held when it was last recorded.
TEST(TestbenchLaunches, CountedAsTheProgramWouldMakeThem) {
  EXPECT_EQ(count_launches(read_text(with_program("  - launch: {kernel: k1}\n"
                                                  "  - repeat: {count: 4, body: [{launch: "
                                                  "{kernel: k1}}, {host_work: 1us}]}\n"
                                                  "  - sync: device\n"))),
            5u);
  EXPECT_EQ(count_launches(read_text(
                with_program("  - command_list:\n"
                             "      name: step\n"
                             "      body:\n"
                             "        - launch: {kernel: gemm, args: [a, a]}\n"
                             "        - repeat: {count: 3, body: [{launch: {kernel: k1}}]}\n"
                             "  - submit: {list: step, stream: s2, async: true}\n"
                             "  - repeat: {count: 10, body: [{submit: {list: step}}]}\n"))),
            44u);
  // Nested repeats of 10^9 overflow no counter: the count is unknown (0), not wrapped.
  EXPECT_EQ(count_launches(read_text(with_program(
                "  - repeat: {count: 1000000000, body: [{repeat: {count: 1000000000, body: "
                "[{repeat: {count: 1000000000, body: [{launch: {kernel: k1}}]}}]}}]}\n"))),
            0u);
  EXPECT_EQ(count_launches(read_text(with_program("  - sync: device\n"))), 0u);
}

TEST(TestbenchErrors, CommandListErrors) {
  auto list = [](const std::string& body) {
    return "  - command_list:\n      name: step\n      body:\n" + body;
  };
  std::string e = error_of(with_program(list("        - launch: {kernel: k1, stream: s1}\n")));
  EXPECT_TRUE(contains(e, "takes its stream and async from the submit")) << e;
  EXPECT_TRUE(contains(e, "body[0].launch.stream")) << e;
  e = error_of(with_program(list("        - sync: device\n")));
  EXPECT_TRUE(contains(e, "records launches only (and repeats of them), not 'sync'")) << e;
  e = error_of(with_program("  - command_list: {name: step, body: []}\n"));
  EXPECT_TRUE(contains(e, "needs at least one launch")) << e;
  e = error_of(
      with_program(list("        - launch: {kernel: k1}\n") + "  - submit: {list: stp}\n"));
  EXPECT_TRUE(contains(e, "unknown command list 'stp'; did you mean 'step'?")) << e;
  e = error_of(
      with_program("  - submit: {list: step}\n" + list("        - launch: {kernel: k1}\n")));
  EXPECT_TRUE(contains(e, "unknown command list 'step'; none is declared")) << e;
  e = error_of(with_program(list("        - launch: {kernel: k1}\n") +
                            list("        - launch: {kernel: k1}\n")));
  EXPECT_TRUE(contains(e, "duplicate command list name 'step'")) << e;
  e = error_of(with_program("  - repeat: {count: 0, body: [{command_list: {name: step, body: "
                            "[{launch: {kernel: k1}}]}}]}\n"
                            "  - submit: {list: step}\n"));
  EXPECT_TRUE(contains(e, "recorded only inside a repeat that never runs")) << e;
}

TEST(TestbenchErrors, MemcpyLargerThanBuffer) {
  const std::string e = error_of(with_program("  - memcpy: {dst: a, src: b, bytes: 2KiB}\n"));
  EXPECT_TRUE(contains(e, "program[0].memcpy.bytes")) << e;
  EXPECT_TRUE(contains(e, "2KiB overruns a buffer")) << e;
  EXPECT_TRUE(contains(e, "source 'b' 1KiB")) << e;
  EXPECT_TRUE(contains(e, "destination 'a' 4KiB")) << e;
}

TEST(TestbenchParse, FreeDestroyAndPartialMemcpySteps) {
  const Testbench tb = read_text(
      with_program("  - memcpy: {dst: a, src: b, dst_offset: 1KiB, src_offset: 512B, bytes: 256B, "
                   "stream: s2, async: true}\n"
                   "  - memcpy: {dst: a, src: b, src_offset: 256}\n"
                   "  - free: a\n"
                   "  - destroy: s1\n"
                   "  - launch: {kernel: k1, args: [b], stream: s2}\n"
                   "  - sync: s2\n"));
  ASSERT_EQ(tb.program.size(), 6u);
  const auto& part = step_as<step::Memcpy>(tb.program[0]);
  EXPECT_EQ(part.dst_offset, 1024u);
  EXPECT_EQ(part.src_offset, 512u);
  EXPECT_EQ(part.bytes, 256u);
  EXPECT_EQ(step_as<step::Memcpy>(tb.program[1]).dst_offset, 0u);
  EXPECT_EQ(step_as<step::Memcpy>(tb.program[1]).bytes, 768u); // what is left of b after the offset
  EXPECT_EQ(step_as<step::Free>(tb.program[2]).buffer, 0u);
  EXPECT_EQ(tb.program[2].loc.str(), "tb.yaml:12:5");
  EXPECT_EQ(step_as<step::Destroy>(tb.program[3]).stream, 1u);
}

// A free or destroy inside a repeat that never runs frees nothing: later uses are fine.
TEST(TestbenchParse, FreeInARepeatThatNeverRunsLeavesTheBuffer) {
  const Testbench tb = read_text(with_program("  - repeat: {count: 0, body: [{free: a}]}\n"
                                              "  - repeat: {count: 1, body: [{destroy: s1}]}\n"
                                              "  - launch: {kernel: k1, args: [a], stream: s2}\n"));
  EXPECT_NE(step_as<step::Repeat>(tb.program[0]).body[0].as<step::Free>(), nullptr);
}

TEST(TestbenchErrors, BufferUsedAfterFree) {
  std::string e = error_of(with_program("  - free: a\n"
                                        "  - launch: {kernel: k1, args: [b, a]}\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:11:36: error: program[1].launch.args: buffer 'a' is used after "
                          "it was freed at tb.yaml:10:11"))
      << e;
  e = error_of(with_program("  - free: b\n"
                            "  - repeat: {count: 3, body: [{memcpy: {dst: a, src: b}}]}\n"));
  EXPECT_TRUE(contains(e, "program[1].repeat.body[0].memcpy.src: buffer 'b' is used after it was "
                          "freed at tb.yaml:10:11"))
      << e;
  e = error_of(with_program("  - command_list: {name: step, body: [{launch: {kernel: k1, "
                            "args: [a]}}]}\n"
                            "  - submit: {list: step}\n"
                            "  - free: a\n"
                            "  - submit: {list: step}\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:13:20: error: program[3].submit.list: command list 'step' "
                          "launches with buffer 'a', which was freed at tb.yaml:12:11"))
      << e;
}

TEST(TestbenchErrors, FreeErrors) {
  std::string e = error_of(with_program("  - free: a\n  - free: a\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:11:11: error: program[1].free: buffer 'a' is freed twice; it "
                          "was freed at tb.yaml:10:11"))
      << e;
  e = error_of(with_program("  - free: aa\n"));
  EXPECT_TRUE(contains(e, "program[0].free: unknown buffer 'aa'; did you mean 'a'?")) << e;
  e = error_of(with_program("  - repeat: {count: 2, body: [{free: a}]}\n"));
  EXPECT_TRUE(contains(e, "program[0].repeat.body[0].free: freeing buffer 'a' inside a repeat "
                          "would run again on the next iteration; move it after the repeat"))
      << e;
  e = error_of(with_program("  - free: {buffer: a}\n"));
  EXPECT_TRUE(contains(e, "program[0].free: expected a buffer name, got a map")) << e;
  e = error_of(with_program("  - command_list: {name: l, body: [{free: a}]}\n"));
  EXPECT_TRUE(contains(e, "records launches only (and repeats of them), not 'free'")) << e;
  e = error_of(with_program("  - fre: a\n"));
  EXPECT_TRUE(contains(e, "unknown step 'fre'; did you mean 'free'?")) << e;
}

TEST(TestbenchErrors, StreamUsedAfterDestroy) {
  const std::string destroy = "  - destroy: s1\n";
  const std::string at = "it was destroyed at tb.yaml:10:14";
  std::string e = error_of(with_program(destroy + "  - launch: {kernel: k1, stream: s1}\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:11:34: error: program[1].launch.stream: stream 's1' is used "
                          "after " +
                              at))
      << e;
  e = error_of(with_program(destroy + "  - memcpy: {dst: a, src: b, stream: s1, async: true}\n"));
  EXPECT_TRUE(contains(e, "program[1].memcpy.stream: stream 's1' is used after " + at)) << e;
  e = error_of(with_program(destroy + "  - record: {event: e, stream: s1}\n"));
  EXPECT_TRUE(contains(e, "program[1].record.stream: stream 's1' is used after " + at)) << e;
  e = error_of(with_program("  - record: {event: e, stream: s2}\n" + destroy +
                            "  - wait: {event: e, stream: s1}\n"));
  EXPECT_TRUE(contains(e, "program[2].wait.stream: stream 's1' is used after it was destroyed at "
                          "tb.yaml:11:14"))
      << e;
  e = error_of(with_program(destroy + "  - sync: s1\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:11:11: error: program[1].sync: stream 's1' is used after " + at))
      << e;
  e = error_of(with_program("  - command_list: {name: l, body: [{launch: {kernel: k1}}]}\n" +
                            destroy + "  - submit: {list: l, stream: s1}\n"));
  EXPECT_TRUE(contains(e, "program[2].submit.stream: stream 's1' is used after it was destroyed"))
      << e;
}

TEST(TestbenchErrors, DestroyErrors) {
  std::string e = error_of(with_program("  - destroy: s1\n  - destroy: s1\n"));
  EXPECT_TRUE(contains(e, "tb.yaml:11:14: error: program[1].destroy: stream 's1' is destroyed "
                          "twice; it was destroyed at tb.yaml:10:14"))
      << e;
  e = error_of(with_program("  - destroy: default\n"));
  EXPECT_TRUE(contains(e, "program[0].destroy: the default stream cannot be destroyed")) << e;
  e = error_of(with_program("  - destroy: device\n"));
  EXPECT_TRUE(contains(e, "'device' is not a stream; destroy takes a stream name")) << e;
  e = error_of(with_program("  - destroy: s3\n"));
  EXPECT_TRUE(contains(e, "program[0].destroy: unknown stream 's3'; did you mean 's1'?")) << e;
  e = error_of(with_program("  - repeat: {count: 5, body: [{destroy: s2}]}\n"));
  EXPECT_TRUE(contains(e, "destroying stream 's2' inside a repeat would run again on the next "
                          "iteration; move it after the repeat"))
      << e;
  e = error_of(with_program("  - destory: s1\n"));
  EXPECT_TRUE(contains(e, "did you mean 'destroy'?")) << e;
}

TEST(TestbenchErrors, MemcpyOffsetsChecked) {
  std::string e = error_of(with_program("  - memcpy: {dst: a, src: b, src_offset: 1KiB}\n"));
  EXPECT_TRUE(contains(e, "program[0].memcpy.src_offset")) << e;
  e = error_of(with_program("  - memcpy: {dst: a, src: b, src_offset: 512, bytes: 1KiB}\n"));
  EXPECT_TRUE(contains(e, "program[0].memcpy.bytes: 1KiB overruns a buffer (source 'b' 1KiB from "
                          "offset 512B, destination 'a' 4KiB)"))
      << e;
  e = error_of(with_program("  - memcpy: {dst: a, src: b, dst_ofset: 5}\n"));
  EXPECT_TRUE(contains(e, "did you mean 'dst_offset'")) << e;
}

TEST(TestbenchErrors, KernelErrors) {
  std::string e = error_of("kernels: {k: {cycles: 5}}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "kernels.k.op: missing required key")) << e;
  e = error_of("kernels: {k: {op: matmull, m: 1}}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "did you mean 'matmul'")) << e;
  e = error_of("kernels: {k: {op: matmul, m: 4, n: 4}}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "kernels.k.k: missing required key")) << e;
  e = error_of("kernels: {k: {op: matmul, m: 4, n: 4, k: 4, mm: 3}}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "kernels.k.mm: unknown key; did you mean 'm'?")) << e;
  e = error_of("kernels: {k: {op: conv2d, n: 1, c: 1, h: 1, w: 1, k: 1, r: 5, s: 5, pad: 0}}\n"
               "program: []\n");
  EXPECT_TRUE(contains(e, "filter larger than the padded input")) << e;
  e = error_of("kernels: {k: {op: cycles, cycles: 1, dtype: int4}}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "kernels.k.dtype")) << e;
  e = error_of("kernels: {k:}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "needs at least an op")) << e;
}

TEST(TestbenchErrors, StreamNamesChecked) {
  std::string e = error_of("streams: [s1, s1]\nprogram: []\n");
  EXPECT_TRUE(contains(e, "duplicate stream name 's1'")) << e;
  e = error_of("streams: [default]\nprogram: []\n");
  EXPECT_TRUE(contains(e, "'default' is reserved")) << e;
  e = error_of("streams: s1\nprogram: []\n");
  EXPECT_TRUE(contains(e, "expected a list of stream names or a map of streams")) << e;
}

TEST(TestbenchErrors, ProgramShapeChecked) {
  std::string e = error_of("kernels: {k: {op: cycles, cycles: 1}}\n");
  EXPECT_TRUE(contains(e, "program: missing required key")) << e;
  e = error_of("program: {launch: {kernel: k}}\n");
  EXPECT_TRUE(contains(e, "expected a list of steps, got a map")) << e;
  e = error_of(with_program("  - host_work: 50\n"));
  EXPECT_TRUE(contains(e, "missing unit")) << e;
  e = error_of("name: t\nprogramm: []\nprogram: []\n");
  EXPECT_TRUE(contains(e, "did you mean 'program'")) << e;
  e = error_of(with_program("  - launch: {kernel: k1, asyn: true}\n"));
  EXPECT_TRUE(contains(e, "did you mean 'async'")) << e;
}

TEST(TestbenchErrors, RepeatNestingLimited) {
  std::string body = "[{sync: device}]";
  for (int i = 0; i < 17; ++i)
    body = "[{repeat: {count: 1, body: " + body + "}}]";
  const std::string e = error_of("program: " + body + "\n");
  EXPECT_TRUE(contains(e, "repeat blocks nested deeper than 16")) << e;
}

// A config named "small" with two compute units.
PlatformConfig two_unit_config() {
  return read_platform_config(
      cfg::parse_yaml_string("name: small\ncompute: {units: 2}\n", "cfg.yaml"), "cfg.yaml");
}

TEST(TestbenchCheck, KernelWithMoreUnitsThanConfigRejected) {
  const PlatformConfig config = two_unit_config();
  const Testbench ok = read_text("kernels: {k: {op: cycles, cycles: 1, units: 2}}\nprogram: []\n");
  EXPECT_NO_THROW(check_testbench(ok, config));
  const Testbench big = read_text("kernels: {k: {op: cycles, cycles: 1, units: 3}}\nprogram: []\n");
  const InputError e = input_error([&] { check_testbench(big, config); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "tb.yaml:1:45")) << what; // at the value of `units`
  EXPECT_TRUE(contains(what, "kernels.k.units")) << what;
  EXPECT_TRUE(contains(what, "asks for 3 units but 'small' has 2")) << what;
  // A value set by --tb-set is blamed on the --tb-set, not on a line of the file.
  const Testbench set =
      load_testbench_text("kernels: {k: {op: cycles, cycles: 1, units: 1}}\nprogram: []\n",
                          "tb.yaml", {"kernels.k.units=3"});
  const std::string from_set = input_error([&] { check_testbench(set, config); }).what();
  EXPECT_EQ(
      from_set,
      "--tb-set kernels.k.units=3: error: kernels.k.units: asks for 3 units but 'small' has 2");
}

TEST(TestbenchParse, UnitsDefaultToAllAndTakeANumberOrAll) {
  const Testbench tb = read_text("kernels:\n"
                                 "  a: {op: cycles, cycles: 1}\n"
                                 "  b: {op: cycles, cycles: 1, units: all}\n"
                                 "  c: {op: cycles, cycles: 1, units: 3}\n"
                                 "  d: {op: cycles, cycles: 1, units: 1}\n"
                                 "  cd: {fuse: [c, d]}\n"
                                 "  ad: {fuse: [a, d], units: 2}\n"
                                 "program: []\n");
  EXPECT_EQ(tb.kernels[0].desc.units, KernelDesc::kAllUnits);
  EXPECT_EQ(tb.kernels[1].desc.units, KernelDesc::kAllUnits);
  EXPECT_EQ(tb.kernels[2].desc.units, 3u);
  EXPECT_EQ(tb.kernels[4].desc.units, 3u); // the largest part's
  EXPECT_EQ(tb.kernels[5].desc.units, 2u); // as written
  EXPECT_EQ(kernel_units(tb.kernels[0].desc, 24), 24u);
  EXPECT_EQ(kernel_units(tb.kernels[2].desc, 24), 3u);
  const std::string e = error_of("kernels: {k: {op: cycles, cycles: 1, units: al}}\nprogram: []\n");
  EXPECT_TRUE(contains(e, "kernels.k.units: expected a number of units or 'all', got 'al'")) << e;
}

TEST(TestbenchCheck, AllUnitsFitsEveryConfig) {
  const PlatformConfig config = two_unit_config();
  const Testbench tb = read_text("kernels: {k: {op: matmul, m: 64, n: 64, k: 64}}\nprogram: []\n");
  EXPECT_NO_THROW(check_testbench(tb, config));
  // The lower bound counts every unit: half the MAC-bound time of one unit.
  KernelDesc one = tb.kernels[0].desc;
  one.units = 1;
  EXPECT_LT(kernel_min_time_ps(tb.kernels[0].desc, config), kernel_min_time_ps(one, config));
}

TEST(TestbenchCheck, SramBuffersMustFitBufferSpace) {
  const PlatformConfig config = read_platform_config(
      cfg::parse_yaml_string("name: s\nsram: {buffer_space: 64KiB}\n", "cfg.yaml"), "cfg.yaml");
  const Testbench ok = read_text("buffers: {a: {size: 32KiB, memory: sram}, "
                                 "b: {size: 32KiB, memory: sram}, c: {size: 1GiB}}\nprogram: []\n");
  EXPECT_NO_THROW(check_testbench(ok, config));
  // 32KiB + 32KiB + 1B rounds up past 64KiB.
  const Testbench big = read_text("buffers: {a: {size: 32KiB, memory: sram}, "
                                  "b: {size: 32KiB, memory: sram}, c: {size: 1, memory: sram}}\n"
                                  "program: []\n");
  const InputError e = input_error([&] { check_testbench(big, config); });
  EXPECT_TRUE(contains(e.what(), "SRAM buffers need 65792B but sram.buffer_space is 64KiB"))
      << e.what();
}

} // namespace
} // namespace npu
