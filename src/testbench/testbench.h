#pragma once

#include "common/error.h"
#include "config/node.h"
#include "platform/platform_config.h"
#include "runtime/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// One step of a testbench's host program.
struct Step {
  enum class Kind {
    Launch,
    Memcpy,
    Repeat,
    HostWork,
    Record,
    Wait,
    Sync,
    Query,
    Elapsed,
    CommandList,
    Submit,
    Free,
    Destroy
  };
  Kind kind = Kind::Launch;
  SourceLoc loc;
  uint32_t kernel = 0;
  std::vector<uint32_t> args; ///< buffer indices
  uint32_t stream = 0;        ///< 0 = default stream, else index + 1 into streams (destroy too)
  bool async = false;
  uint32_t dst = 0, src = 0;               ///< buffer indices (memcpy; free: dst)
  uint64_t dst_offset = 0, src_offset = 0; ///< memcpy: where in each buffer, in bytes
  uint64_t bytes = 0;
  uint64_t count = 0;       ///< repeat
  std::vector<Step> body;   ///< repeat; command_list (its launches)
  uint64_t duration_ps = 0; ///< host_work
  uint32_t event = 0;       ///< record, wait, sync on an event, query; elapsed: start
  uint32_t end_event = 0;   ///< elapsed
  std::string label;        ///< query, elapsed: name in the report
  bool sync_device = false; ///< sync: device
  bool sync_event = false;  ///< sync: {event: ...}
  uint32_t list = 0;        ///< command_list, submit: index into Testbench::command_lists
};

/// A YAML workload: kernels, buffers, streams and a host program.
struct Testbench {
  struct NamedKernel {
    KernelDesc desc;
    SourceLoc loc;
  };
  struct NamedBuffer {
    std::string name;
    uint64_t bytes = 0;
    MemoryKind memory = MemoryKind::Ddr;
    SourceLoc loc;
  };
  struct NamedStream {
    std::string name;
    int priority = 0;
  };

  std::string name;
  std::string file;
  std::vector<NamedKernel> kernels;
  std::vector<NamedBuffer> buffers;
  std::vector<NamedStream> streams;
  std::vector<std::string> events;
  std::vector<std::string> command_lists;
  std::vector<Step> program;
  /// The file as read, after --tb-set (load_testbench only), for the report.
  nlohmann::ordered_json document;
};

/// Parses and validates a testbench (names, references, event waits that could
/// never be satisfied). Throws InputError with file, line, column and key.
Testbench read_testbench(const cfg::Node& root, const std::string& file);
/// Loads a testbench file; `overrides` (`key.path=value`, as --tb-set) change it first.
Testbench load_testbench(const std::string& path, const std::vector<std::string>& overrides = {});
/// The same for a testbench given as text (`origin` names it in messages).
Testbench load_testbench_text(const std::string& text, const std::string& origin,
                              const std::vector<std::string>& overrides = {});

/// Checks what depends on the hardware: kernel unit counts, SRAM buffer space, and that
/// no stream's launches need more than limits.sim_time even at the hardware's peak rates
/// (such a run could only end at the limit, after a long wait).
void check_testbench(const Testbench& tb, const PlatformConfig& config);

/// A lower bound on one launch of `kernel` on `config`, in picoseconds: its setup cycles
/// plus, per op, the larger of its work at the peak rate of the units it spans (MACs on the
/// MAC arrays, element operations on the vector units, a `cycles` op's cycles) and its
/// bytes at the memories' peak bandwidth together (DDR, SRAM, the host link). `why` (if
/// given) names the bound that dominates.
double kernel_min_time_ps(const KernelDesc& kernel, const PlatformConfig& config,
                          std::string* why = nullptr);

/// Runs the testbench's program through the runtime API (in the host thread).
void run_testbench(Runtime& runtime, const Testbench& tb);

/// True when a YAML tree looks like a testbench rather than a hardware config.
bool looks_like_testbench(const cfg::Node& root);

} // namespace npu
